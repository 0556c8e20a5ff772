#!/usr/bin/env bash
# bench/sytrd/hermitian.sh: EPS pgx on complex Hermitian matrices, end to end, in a build against a complex PETSc/SLEPc
# (make gpuhostc: build-gpuc/, lib-gpuc/; on the GPU host after tools/gpuhost-run.sh has unpacked the complex runtime).
# The matrix: tests/eps/test_eps -phase, D F D^H with F Frank's matrix and D = diag(exp(0.7 i k)) (complex Hermitian,
# Frank's closed-form eigenvalues), all n eigenpairs asked for (-eps_nev n), each run checked by test_eps (every
# eigenvalue within 1e-12 of the largest one, |lambda - lambda_k| <= 1e-12 lambda_1: Frank's small eigenvalues are
# ill-conditioned, so 1e-10 relative to each, test_eps's default, holds only up to n ~ 1000 for any backward-stable
# solver; the backward error of every 256th pair and of the last below 1e-12: "all checks passed"; each error costs a
# product with A on the host, after the timed events).
# Solvers: EPS pgx with the cuda backend (the complex reduction with its defaults: fused panel; the divide and conquer's gemms
# on the GPU, the complex back-transformation), EPS pgx with the host reference backend, SLEPc's EPSLAPACK (zheev
# through SLEPc's DS, on the host with the runtime's BLAS). Columns from -log_view (seconds, rank 0): EPSSolve, PGX's
# reduction, tridiagonal solve and back-transformation events (the back-transformation runs when the eigenvectors are
# first asked for, after EPSSolve: "solve+vectors" adds it).
#   PGX_BUILD (default build), PGX_LIB (default lib), PGX_BENCH_SIZES (default "1024 2048 4096 8192"),
#   PGX_BENCH_HOST_MAX (largest n for the host reference backend, default 1024), PGX_BENCH_LAPACK_MAX (default 2048),
#   PGX_BENCH_CAP (seconds per run, default 200)
set -u
B=${PGX_BUILD:-build} L=${PGX_LIB:-lib}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
PROG=$B/tests/eps/test_eps
[ -x "$PROG" ] || { echo "hermitian.sh: $PROG not built"; exit 1; }
"$B/tests/sys/pgx_info" 2>/dev/null | grep -q "PetscScalar complex" || { echo "hermitian.sh: skipped: $B is not a complex-scalar build"; exit 0; }
SIZES=${PGX_BENCH_SIZES:-1024 2048 4096 8192}
HOSTMAX=${PGX_BENCH_HOST_MAX:-1024} LAPACKMAX=${PGX_BENCH_LAPACK_MAX:-2048} CAP=${PGX_BENCH_CAP:-200}
ev() { awk -v e="$1" '$1 == e {print $4; f = 1} END {if (!f) print "-"}' <<<"$2"; }
printf '%-6s %-9s %10s %10s %10s %10s %14s  %s\n' n solver EPSSolve reduce tridiag back solve+vectors result
for n in $SIZES; do
  for s in pgx-cuda pgx-host lapack; do
    case $s in
    pgx-cuda) opts="-dll_append $ROOT/$L/libpgx.so -eps_type pgx -pgx_device cuda" ;;
    pgx-host) [ "$n" -le "$HOSTMAX" ] || continue; opts="-dll_append $ROOT/$L/libpgx.so -eps_type pgx -pgx_device host" ;;
    lapack) [ "$n" -le "$LAPACKMAX" ] || continue; opts="-eps_type lapack" ;;
    esac
    # shellcheck disable=SC2086
    out=$(timeout "$CAP" "$PROG" -n "$n" -phase -eps_nev "$n" -error_stride 256 -eig_tol 1e-12 -eig_tol_norm $opts -log_view 2>&1)
    rc=$?
    if grep -q "all checks passed" <<<"$out"; then res=checked; else res="FAILED (exit $rc): $(grep -m1 -E 'FAIL|Error|error' <<<"$out")"; fi
    es=$(ev EPSSolve "$out") red=$(ev PGXSytrdReduce "$out") tri=$(ev PGXSytrdTridiag "$out") back=$(ev PGXSytrdBack "$out")
    tot=$(awk -v a="$es" -v b="$back" 'BEGIN {if (a == "-") print "-"; else printf "%.4g", a + (b == "-" ? 0 : b)}')
    printf '%-6s %-9s %10s %10s %10s %10s %14s  %s\n' "$n" "$s" "$es" "$red" "$tri" "$back" "$tot" "$res"
  done
done
