#!/usr/bin/env bash
# tests/expect.sh [--fail] [--not PATTERN]... PATTERN... -- command...
# Runs the command and passes when it exits 0 (with --fail: non-zero) and its output (stdout and
# stderr) contains every PATTERN (fixed strings) and none of the --not patterns.
want_fail=0 pats=() nots=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fail) want_fail=1 ;;
    --not) shift; nots+=("$1") ;;
    --) shift; break ;;
    *) pats+=("$1") ;;
  esac
  shift
done
out=$("$@" 2>&1); rc=$?
echo "$out"
ok=1
if [ $want_fail = 1 ] && [ $rc -eq 0 ]; then echo "expect.sh: command succeeded but should have failed"; ok=0; fi
if [ $want_fail = 0 ] && [ $rc -ne 0 ]; then echo "expect.sh: command failed with exit $rc"; ok=0; fi
for p in "${pats[@]}"; do
  grep -qF -- "$p" <<<"$out" || { echo "expect.sh: output lacks: $p"; ok=0; }
done
for p in "${nots[@]}"; do
  grep -qF -- "$p" <<<"$out" && { echo "expect.sh: output contains: $p"; ok=0; }
done
[ $ok = 1 ]
