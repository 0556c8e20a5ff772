#!/usr/bin/env bash
# tests/run.sh stopped by SIGTERM (as a time limit stops it) prints the lines of the tests that had finished and
# 'interrupted: N passed, N failed, N not finished', exits 130, and stops the test still running (which runs in a
# process group of its own). Checked with PGX_JOBS=2 and 1 on a copy of the runner with two tests of its own: one
# that passes at once, one that would take 60 s; the signal comes once the first has passed and the second runs.
# Usage: tests/sys/runner_interrupted.sh PGX_INFO (the suite's build/tests/sys/pgx_info)
set -u
info=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/pgx-runner.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests" "$tmp/build/tests/sys" "$tmp/lib"
cp "$root/tests/run.sh" "$tmp/tests/"
ln -s "$info" "$tmp/build/tests/sys/pgx_info"
printf '%s\n' 'quick | - | 1 | true' "slow | - | 1 | sleep 60; touch $tmp/slow.finished" > "$tmp/tests/a.tests"
bad=0
for jobs in 2 1; do
  logs=$tmp/logs$jobs out=$tmp/out$jobs
  env -u PGX_TESTS -u PGX_BUILD -u PGX_LIB PGX_JOBS=$jobs PGX_TEST_LOGDIR="$logs" "$tmp/tests/run.sh" > "$out" 2>&1 &
  rpid=$!
  # SIGTERM once 'quick' has passed and 'slow' runs (its pid file is there): no guess of how long the start takes
  for i in $(seq 600); do
    { grep -qs '^ok ' "$logs/quick.result" || grep -qs '^ok   quick' "$out"; } && [ -f "$logs/slow.pid" ] && break
    sleep 0.1
  done
  kill -TERM $rpid
  wait $rpid
  rc=$?
  # the stopped test's processes must be gone within 10 s (polled: a loaded CI machine may take more than a fixed
  # second to reap them; one left after 10 s of a test that sleeps 60 s is a leak)
  for i in $(seq 100); do
    left=$(grep -l "$tmp/slow[.]finished" /proc/[0-9]*/cmdline 2>/dev/null | grep -c . || true)
    [ "$left" -eq 0 ] && break
    sleep 0.1
  done
  echo "PGX_JOBS=$jobs: exit $rc; $(grep -c '^ok   quick' "$out") 'ok quick' line; last line: $(tail -1 "$out"); processes of the slow test left: $left"
  [ $rc -eq 130 ] || bad=1
  grep -q '^ok   quick' "$out" || bad=1
  [ "$(tail -1 "$out")" = "interrupted: 1 passed, 0 failed, 1 not finished (0 skipped before)" ] || bad=1
  [ "$left" -eq 0 ] || bad=1
  ls "$logs"/*.pid > /dev/null 2>&1 && { echo "a pid file is left"; bad=1; }
done
[ $bad -eq 0 ] && echo "all checks passed" || { echo "FAILED"; exit 1; }
