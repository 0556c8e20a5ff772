#!/usr/bin/env bash
# Runs on the GPU host, from the repository root of a tree prepared here with 'make gpuhost'
# (lib/, build/, .gpuhost/ with the packed Debian PETSc runtime; .matrices/ only if asked for: the tests read tests/data/).
#
#   tools/gpuhost-run.sh [tests] [bench] [LIST...]
#     tests : PGX_REQUIRE_GPU=1 make test (every test; cuda ones must run, none may skip)
#     bench : every benchmark in bench/gpuhost.list (one command per line; '#' comments), or those matching
#             the regex PGX_BENCH_FILTER
#     tests325: the suite built against PETSc 3.25 with CUDA ('make gpuhost325' here: build-gpu325/, lib-gpu325/,
#             .gpuhost325/), device-Vec tests (tests/cudapetsc.tests) included
#     bench325: bench/cudapetsc/run.sh (PETSc's GPU solvers beside PGX's with CUDA Vecs)
#     testsc: the suite built against Debian's complex PETSc/SLEPc ('make gpuhostc' here: build-gpuc/, lib-gpuc/,
#             .gpuhostc/complex-runtime.tar.xz, unpacked into the real runtime's lib directory)
# Logs and result tables go to $OUT (or ./gpuhost-out); a summary is printed last.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUTDIR=${OUT:-$ROOT/gpuhost-out}
# the copy built by 'make gpuhost' (sm_90) replaces any other build
if [ -d build-gpu ]; then rm -rf build lib; mv build-gpu build; mv lib-gpu lib; fi
mkdir -p "$OUTDIR"
# shellcheck disable=SC1091
source .gpuhost/env.sh || { echo "gpuhost-run: cannot set up the PETSc runtime (.gpuhost/env.sh)"; exit 1; }
export PGX_ROOT=$ROOT
[ -d "$ROOT/.matrices" ] && export PGX_MATRICES=$ROOT/.matrices
export LD_LIBRARY_PATH="$ROOT/lib:$LD_LIBRARY_PATH"
what=("$@"); [ ${#what[@]} -eq 0 ] && what=(tests bench)
summary=()
{
  echo "date: $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  echo "host: $(nproc) cores, $(uname -r)"; build/tests/sys/pgx_info
} 2>&1 | tee "$OUTDIR/device.txt"
for w in "${what[@]}"; do
  case "$w" in
  tests)
    t0=$(date +%s)
    if command -v make >/dev/null; then PGX_REQUIRE_GPU=1 make --no-print-directory test > "$OUTDIR/tests.log" 2>&1
    else PGX_REQUIRE_GPU=1 tests/run.sh > "$OUTDIR/tests.log" 2>&1; fi
    summary+=("tests: $(grep -E '^([0-9]+ passed|interrupted:)' "$OUTDIR/tests.log" | tail -1) ($(( $(date +%s) - t0 )) s)")
    grep -E '^(FAIL|failed:)' "$OUTDIR/tests.log" | head -20 | while read -r l; do echo "  $l"; done
    ;;
  bench)
    list=${PGX_BENCH_LIST:-bench/gpuhost.list}; [ -f "$list" ] || continue
    while IFS= read -r cmd; do
      case "$cmd" in ''|\#*) continue ;; esac
      if [ -n "${PGX_BENCH_FILTER:-}" ] && ! [[ $cmd =~ $PGX_BENCH_FILTER ]]; then continue; fi
      nb=$((${nb:-0} + 1))
      name=$(basename "$(echo "$cmd" | awk '{print $1}')")
      f="$OUTDIR/bench$nb-$name.txt"
      t0=$(date +%s)
      { echo "device: $(head -2 "$OUTDIR/device.txt" | tail -1)"; echo "date: $(date -u +%FT%TZ)"
        echo "command: $cmd"; echo "CPU side: PETSc 3.18 (Debian) on 1 rank, reference BLAS from the packed runtime"; echo; } > "$f"
      timeout "${PGX_BENCH_TIMEOUT:-300}" bash -c "$cmd" >> "$f" 2>&1 </dev/null
      rc=$?
      summary+=("bench $name: exit $rc ($(( $(date +%s) - t0 )) s)")
    done < "$list"
    ;;
  testsc)
    if [ ! -f "$PB_ROOT/lib/libpetsc_complex.so.3.18" ]; then
      tar -C "$(dirname "$PB_ROOT")" -xJf .gpuhostc/complex-runtime.tar.xz || { summary+=("testsc: cannot unpack .gpuhostc/complex-runtime.tar.xz"); continue; }
    fi
    t0=$(date +%s)
    LD_LIBRARY_PATH="$ROOT/lib-gpuc:$LD_LIBRARY_PATH" PGX_BUILD=build-gpuc PGX_LIB=lib-gpuc \
      PGX_REQUIRE_GPU=1 tests/run.sh > "$OUTDIR/testsc.log" 2>&1
    summary+=("testsc: $(grep -E '^([0-9]+ passed|interrupted:)' "$OUTDIR/testsc.log" | tail -1) ($(( $(date +%s) - t0 )) s)")
    grep -E '^(FAIL|failed:)' "$OUTDIR/testsc.log" | head -20 | while read -r l; do echo "  $l"; done
    ;;
  tests325|bench325)
    # PETSc 3.25 (CUDA) at the path it was built for, before the Debian runtime on the library path
    if [ ! -f /opt/petsc-3.25-cuda/lib/libpetsc.so.3.25 ]; then
      tar -C / -xJf .gpuhost325/petsc325.tar.xz || { summary+=("$w: cannot unpack .gpuhost325/petsc325.tar.xz"); continue; }
    fi
    # PETSc 3.25 with CUDA refuses to start over an MPI that is not GPU-aware (the packed OpenMPI is not) unless told:
    # every user of this PETSc passes -use_gpu_aware_mpi 0 on such a machine, as the issue's commands do
    export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
    t0=$(date +%s)
    if [ "$w" = tests325 ]; then
      LD_LIBRARY_PATH="$ROOT/lib-gpu325:/opt/petsc-3.25-cuda/lib:$LD_LIBRARY_PATH" PGX_BUILD=build-gpu325 PGX_LIB=lib-gpu325 \
        PGX_REQUIRE_GPU=1 PGX_MPIEXEC=mpiexec tests/run.sh > "$OUTDIR/tests325.log" 2>&1
      summary+=("tests325: $(grep -E '^([0-9]+ passed|interrupted:)' "$OUTDIR/tests325.log" | tail -1) ($(( $(date +%s) - t0 )) s)")
      grep -E '^(FAIL|failed:)' "$OUTDIR/tests325.log" | head -20 | while read -r l; do echo "  $l"; done
    else
      { echo "device: $(head -2 "$OUTDIR/device.txt" | tail -1)"; echo "date: $(date -u +%FT%TZ)"
        echo "command: ${PGX_BENCH_REPS:+PGX_BENCH_REPS=$PGX_BENCH_REPS }${PGX_BENCH_GPUTIME:+PGX_BENCH_GPUTIME=$PGX_BENCH_GPUTIME }${PGX_BENCH_PROBLEMS:+PGX_BENCH_PROBLEMS=$PGX_BENCH_PROBLEMS }${PGX_BENCH_SOLVERS:+PGX_BENCH_SOLVERS=$PGX_BENCH_SOLVERS }bench/cudapetsc/run.sh (tools/gpuhost-run.sh bench325)"; echo; } > "$OUTDIR/bench-cudapetsc.txt"
      LD_LIBRARY_PATH="$ROOT/lib-gpu325:/opt/petsc-3.25-cuda/lib:$LD_LIBRARY_PATH" PGX_BUILD=build-gpu325 PGX_LIB=lib-gpu325 \
        timeout "${PGX_BENCH_TIMEOUT:-500}" bench/cudapetsc/run.sh >> "$OUTDIR/bench-cudapetsc.txt" 2>&1
      summary+=("bench325: exit $? ($(( $(date +%s) - t0 )) s)")
    fi
    ;;
  *)
    bash -c "$w" >> "$OUTDIR/extra.log" 2>&1; summary+=("extra '$w': exit $?")
    ;;
  esac
done
echo "==== summary"; printf '%s\n' "${summary[@]}"
