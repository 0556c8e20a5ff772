#!/usr/bin/env bash
# PGX test runner. Runs every test listed in tests/*.tests, one line per test, and ends with
# 'N passed, N failed' (', N skipped' when tests were skipped). Exit status 1 on any failure.
#
# A .tests file has one test per line:   name | requires | nsize | command
#   requires: '-' (none), 'cuda' (a GPU and the cuda backend), 'nogpu' (only where no GPU is usable),
#             'cudapetsc' (a GPU and a PETSc built with CUDA: device Vecs, AIJCUSPARSE; make check-petsc325 builds
#             against one, tools/gpuhost-run.sh tests325 runs them on the GPU host),
#             'real' (only with real PetscScalar: e.g. bitwise hashes recorded from real arithmetic), 'complex' (only
#             with complex PetscScalar), 'complexcuda' (a 'cuda' test whose capability's cuda backend supports complex
#             scalars: in a complex build the other 'cuda' tests are skipped, their backends being real-only),
#             'gpu2' (a 'cuda' test that needs at least two visible GPUs: one MPI rank per GPU; skipped, visibly,
#             where fewer are visible, also under PGX_REQUIRE_GPU=1; PGX_REQUIRE_GPU2=1 turns that skip into a failure),
#             'slepc' (PGX built with SLEPc: EPS pgx), 'pre325' (PETSc before 3.25: a known difference, see the
#             test's .tests comment); several join with commas (cuda,slepc)
#   nsize:    MPI ranks; >1 runs 'mpiexec -n nsize command'
#   command:  run by bash from the repository root; it passes when it exits 0. Tests check their
#             own numbers; tests/expect.sh checks output and error messages.
# Environment: PGX_REQUIRE_GPU=1 turns skipped cuda tests into failures (for the GPU host);
#   PGX_TESTS=regex runs only the tests whose name matches; PGX_TEST_TIMEOUT (seconds, default 900);
#   PGX_JOBS=N runs N tests at a time (default 1; their lines come in the suite's order at the end). Stopped by
#   SIGTERM or SIGINT (a step's time limit), the runner first prints the lines of the tests that had finished and
#   'interrupted: N passed, N failed, N not finished'.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
# PGX_BUILD/PGX_LIB: run the suite on another build (make check64): build/ and $PGX_ROOT/lib/ in the
# commands are rewritten to them
B=${PGX_BUILD:-build} L=${PGX_LIB:-lib}
export LD_LIBRARY_PATH="$ROOT/$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# A one-rank test started without mpiexec initializes Open MPI as a singleton; isolated, it starts no helper daemon
# (0.2 s a test less; such a test needs no other process)
export OMPI_MCA_ess_singleton_isolated=${OMPI_MCA_ess_singleton_isolated:-1}
export PGX_ROOT=$ROOT
MPIEXEC=${PGX_MPIEXEC:-mpiexec}
[ -n "$MPIEXEC" ] || MPIEXEC=mpiexec
LOGDIR=${PGX_TEST_LOGDIR:-$ROOT/$B/testlogs}
mkdir -p "$LOGDIR"
rm -f "$LOGDIR"/*.pid # an earlier run's, stopped by SIGKILL

if [ ! -x $B/tests/sys/pgx_info ]; then
  echo "tests/run.sh: $B/tests/sys/pgx_info is missing; run 'make' first" >&2
  exit 1
fi
gpu_reason=$($B/tests/sys/pgx_info -gpu_reason 2>&1)
if [ $? -eq 0 ]; then have_gpu=1; else have_gpu=0; fi
if $B/tests/sys/pgx_info -petsc_cuda >/dev/null 2>&1; then petsc_cuda=1; else petsc_cuda=0; fi
info=$($B/tests/sys/pgx_info 2>&1 | sed -n 1p)
if grep -q 'PetscScalar complex' <<<"$info"; then complex=1; else complex=0; fi
petsc_minor=$(sed -n 's/.*PETSc 3\.\([0-9]*\)\..*/\1/p' <<<"$info"); petsc_minor=${petsc_minor:-0}
if [ -x $B/tests/eps/test_eps ]; then have_slepc=1; else have_slepc=0; fi
ngpu=0; [ $have_gpu = 1 ] && ngpu=$($B/tests/sys/pgx_info -gpu_count 2>/dev/null | tail -1)
# trim STRING: REPLY is STRING without leading and trailing blanks
trim() { REPLY=${1#"${1%%[![:space:]]*}"}; REPLY=${REPLY%"${REPLY##*[![:space:]]}"}; }
req_has() { [[ ",$req," == *",$1,"* ]]; }
echo "PGX tests: $($B/tests/sys/pgx_info 2>&1 | head -1); GPU: $([ $have_gpu = 1 ] && echo "$gpu_reason ($ngpu visible)" || echo "none ($gpu_reason)")$([ $petsc_cuda = 1 ] && echo "; PETSc with CUDA")"

# now_ms: milliseconds since the epoch (bash 5's EPOCHREALTIME, else date)
now_ms() { if [ -n "${EPOCHREALTIME:-}" ]; then local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t / 1000)); else echo $(($(date +%s%N) / 1000000)); fi; }
# run_cmd NAME CMD LOG: CMD under the test time limit, its output in LOG; the limit's process (GNU timeout, which
# makes the test its own process group) is named in LOGDIR/NAME.pid while it runs, so that interrupted() can stop it
run_cmd() {
  timeout "${PGX_TEST_TIMEOUT:-900}" bash -c "$2" >"$3" 2>&1 </dev/null &
  local tp=$! rc
  echo $tp >"$LOGDIR/$1.pid"
  wait $tp
  rc=$?
  rm -f "$LOGDIR/$1.pid"
  return $rc
}
# run_one NAME CMD: runs one test, prints its 'ok'/'FAIL' line (and the log's tail on failure); exit status 0 on pass
run_one() {
  local name=$1 cmd=$2 log=$LOGDIR/$1.log t0 rc ms dt
  t0=$(now_ms)
  local again=""
  run_cmd "$name" "$cmd" "$log"
  rc=$?
  # Open MPI itself failing to start (a transient seen once in a fresh clone's suite, "orte_ess_init failed", that
  # did not recur in five runs of the test; no PGX code has run then) gets one more run, and the line says so
  if [ $rc -ne 0 ] && grep -qE 'orte_ess_init failed|orte_init failed|ompi_rte_init failed' "$log"; then
    mv "$log" "$log.mpistart"
    run_cmd "$name" "$cmd" "$log"
    rc=$?
    again="; run again after Open MPI failed to start, $LOGDIR/$name.log.mpistart"
  fi
  ms=$(($(now_ms) - t0)); dt="$((ms / 1000)).$(((ms % 1000) / 100))"
  if [ $rc -eq 0 ]; then
    printf 'ok   %s (%s s%s)\n' "$name" "$dt" "$again"
  else
    printf 'FAIL %s (exit %d, %s s): %s\n' "$name" "$rc" "$dt" "$cmd"
    tail -n 25 "$log" | sed 's/^/     | /'
  fi
  return $rc
}
count_one() { if [ "$1" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); failed_names+=("$name"); fi; }
# PGX_JOBS=N runs N tests at a time (the GPU host has 16 cores); their lines are printed in the suite's order at the end
jobs=${PGX_JOBS:-1}
order=()

pass=0 fail=0 skip=0 failed_names=()
# collect NAME (PGX_JOBS > 1): prints test NAME's result file and counts it, then removes the file; with 'finished'
# only a finished test's (status 1 for one still running), else a missing or empty result counts as a failure
collect() {
  local r=$LOGDIR/$1.result
  if [ -s "$r" ] && head -1 "$r" | grep -qE '^(ok|FAIL) '; then
    cat "$r"
    if head -1 "$r" | grep -q '^ok '; then count_one 0; else count_one 1; fi
  elif [ "${2:-}" = finished ]; then
    rm -f "$r"
    return 1
  else
    cat "$r" 2>/dev/null
    count_one 1
  fi
  rm -f "$r"
}
# interrupted: the finished tests' lines (PGX_JOBS > 1: from their result files) and the counts so far; exit 130
interrupted() {
  trap - TERM INT
  local running=0
  if [ "$jobs" -gt 1 ]; then
    for name in "${order[@]}"; do collect "$name" finished || running=$((running + 1)); done
  else running=1; fi
  [ $fail -gt 0 ] && echo "failed: ${failed_names[*]}"
  echo "interrupted: $pass passed, $fail failed, $running not finished ($skip skipped before)"
  kill $(jobs -p) 2>/dev/null
  for r in "$LOGDIR"/*.pid; do [ -f "$r" ] && kill -TERM "$(cat "$r")" 2>/dev/null; rm -f "$r"; done
  exit 130
}
trap interrupted TERM INT
for f in tests/*.tests; do
  while IFS='|' read -r name req nsize cmd; do
    # trimmed with bash alone: a subprocess per field and line cost about two CPU minutes a suite
    trim "$name"; name=$REPLY; trim "$req"; req=$REPLY; trim "$nsize"; nsize=$REPLY; trim "$cmd"; cmd=$REPLY
    case "$name" in \#* | '') continue ;; esac # comments and blank lines
    if [ -n "${PGX_TESTS:-}" ] && ! [[ $name =~ $PGX_TESTS ]]; then continue; fi
    if req_has slepc && [ $have_slepc = 0 ]; then
      echo "skip $name (needs PGX built with SLEPc)"; skip=$((skip + 1)); continue
    fi
    if req_has pre325 && [ $petsc_minor -ge 25 ]; then
      echo "skip $name (known difference with PETSc 3.25: see tests/*.tests)"; skip=$((skip + 1)); continue
    fi
    if req_has gpu2 && [ $have_gpu = 1 ] && [ "${ngpu:-0}" -lt 2 ] 2>/dev/null; then
      if [ "${PGX_REQUIRE_GPU2:-0}" = 1 ]; then
        echo "FAIL $name (PGX_REQUIRE_GPU2=1 but only $ngpu GPU visible)"; fail=$((fail + 1)); failed_names+=("$name")
      else
        echo "skip $name (needs two GPUs; $ngpu visible)"; skip=$((skip + 1))
      fi
      continue
    fi
    if req_has cuda && [ $complex = 1 ] && ! req_has complexcuda; then
      echo "skip $name (complex scalars: this capability's cuda backend supports real scalars only)"; skip=$((skip + 1)); continue
    fi
    if req_has cuda && [ $have_gpu = 0 ]; then
      if [ "${PGX_REQUIRE_GPU:-0}" = 1 ]; then
        echo "FAIL $name (PGX_REQUIRE_GPU=1 but no GPU: $gpu_reason)"; fail=$((fail + 1)); failed_names+=("$name")
      else
        echo "skip $name (needs a GPU)"; skip=$((skip + 1))
      fi
      continue
    fi
    if req_has cudapetsc && { [ $have_gpu = 0 ] || [ $petsc_cuda = 0 ]; }; then
      # needs both; PGX_REQUIRE_GPU=1 fails it only where PETSc has CUDA (a Debian-PETSc run cannot run it)
      if [ "${PGX_REQUIRE_GPU:-0}" = 1 ] && [ $petsc_cuda = 1 ]; then
        echo "FAIL $name (PGX_REQUIRE_GPU=1 but no GPU: $gpu_reason)"; fail=$((fail + 1)); failed_names+=("$name")
      else
        echo "skip $name (needs a GPU and a PETSc built with CUDA)"; skip=$((skip + 1))
      fi
      continue
    fi
    if req_has real && [ $complex = 1 ]; then
      echo "skip $name (needs real scalars)"; skip=$((skip + 1)); continue
    fi
    if req_has complex && [ $complex = 0 ]; then
      echo "skip $name (needs complex scalars)"; skip=$((skip + 1)); continue
    fi
    if req_has nogpu && [ $have_gpu = 1 ]; then
      echo "skip $name (checks the no-GPU path)"; skip=$((skip + 1)); continue
    fi
    if [ "$B" != build ]; then cmd=${cmd//build\//$B/}; fi
    if [ "$L" != lib ]; then cmd=${cmd//\$PGX_ROOT\/lib\//\$PGX_ROOT\/$L/}; fi
    [ "${nsize:-1}" -gt 1 ] 2>/dev/null && cmd="$MPIEXEC -n $nsize $cmd"
    if [ "$jobs" -gt 1 ]; then
      while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
      run_one "$name" "$cmd" > "$LOGDIR/$name.result" &
      order+=("$name")
    else
      run_one "$name" "$cmd"
      count_one $?
    fi
  done < "$f"
done
if [ "$jobs" -gt 1 ]; then
  wait
  trap - TERM INT
  for name in "${order[@]}"; do collect "$name"; done
fi
[ $fail -gt 0 ] && echo "failed: ${failed_names[*]}"
if [ $skip -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ $fail -eq 0 ]
