#!/usr/bin/env bash
# bench/dilu/helmholtz.sh: PCDILU on a complex Helmholtz problem, end to end, in a build against a complex PETSc
# (make gpuhostc: build-gpuc/, lib-gpuc/; on the GPU host after tools/gpuhost-run.sh has unpacked the complex runtime).
# The problem: tests/dilu/test_ksp -problem helmholtz3d -m M (the 7-point Laplacian minus k^2 h^2 (1 + 0.1i) on the
# diagonal, k^2 h^2 = 1: complex symmetric, indefinite real part), b = A 1, GMRES(30) to rtol 1e-8 on PETSc's host
# Vecs (Debian's PETSc has no CUDA: the host runs GMRES, PGX's cuda PC copies r in and z out at each application).
# Every run is checked: test_ksp prints "error small" when ||x - 1|| / ||1|| < 1e-4 (else the row says FAILED).
# Solvers: PETSc's ILU(0) on 1 rank (the anchor of the ratios), PETSc's block Jacobi + ILU(0) on NP ranks (mpiexec),
# PGX dilu with the host reference backend, PGX dilu cuda with the natural (cuSPARSE SpSV) and multicolor schedules
# under PETSc's GMRES, and the same two under PGX's resident pgxgmres (the whole solve on the GPU: b in, x out); PGX
# aips (order 3, cuda) under PETSc's GMRES and under pgxgmres (on this operator rho(P^-1 R) is above 1, so the series
# is a polynomial preconditioner, not a convergent expansion: the rows say what it gives).
# Columns from -log_view (seconds, rank 0's max): KSPSolve, PCSetUp, PCApply; the ratio is ILU(0)'s KSPSolve over the
# row's.
#   PGX_BUILD (default build), PGX_LIB (default lib), PGX_BENCH_SIZES (default "64 100"), PGX_BENCH_NP (default 16),
#   PGX_BENCH_CAP (seconds per run, default 300), PGX_BENCH_ROWS (a regex: only the rows whose name matches; without
#   petsc-ilu among them the ratio column is "-")
set -u
B=${PGX_BUILD:-build} L=${PGX_LIB:-lib}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
PROG=$B/tests/dilu/test_ksp
[ -x "$PROG" ] || { echo "helmholtz.sh: $PROG not built"; exit 1; }
"$B/tests/sys/pgx_info" 2>/dev/null | grep -q "PetscScalar complex" || { echo "helmholtz.sh: skipped: $B is not a complex-scalar build"; exit 0; }
SIZES=${PGX_BENCH_SIZES:-64 100} NP=${PGX_BENCH_NP:-16} CAP=${PGX_BENCH_CAP:-300}
ev() { awk -v e="$1" '$1 == e {print $4; f = 1} END {if (!f) print "-"}' <<<"$2"; }
printf '%-5s %-22s %6s %10s %10s %10s %8s  %s\n' m solver its KSPSolve PCSetUp PCApply "x ILU" result
for m in $SIZES; do
  base=
  for s in petsc-ilu petsc-bjacobi-np pgx-dilu-host pgx-dilu-cuda pgx-dilu-cuda-mc pgxgmres-dilu-cuda pgxgmres-dilu-cuda-mc pgx-aips-cuda pgxgmres-aips-cuda; do
    pre=() np=1 ksp=gmres
    if [ -n "${PGX_BENCH_ROWS:-}" ] && ! [[ $s =~ $PGX_BENCH_ROWS ]]; then continue; fi
    case $s in
    petsc-ilu) opts="-pc_type ilu" ;;
    petsc-bjacobi-np) opts="-pc_type bjacobi -sub_pc_type ilu"; np=$NP; pre=(mpiexec -n "$NP") ;;
    pgx-dilu-host) opts="-pc_type dilu -pgx_device host" ;;
    pgx-dilu-cuda) opts="-pc_type dilu -pgx_device cuda" ;;
    pgx-dilu-cuda-mc) opts="-pc_type dilu -pc_dilu_ordering multicolor -pgx_device cuda" ;;
    pgxgmres-dilu-cuda) opts="-pc_type dilu -pgx_device cuda"; ksp=pgxgmres ;;
    pgxgmres-dilu-cuda-mc) opts="-pc_type dilu -pc_dilu_ordering multicolor -pgx_device cuda"; ksp=pgxgmres ;;
    pgx-aips-cuda) opts="-pc_type aips -pgx_device cuda" ;;
    pgxgmres-aips-cuda) opts="-pc_type aips -pgx_device cuda"; ksp=pgxgmres ;;
    esac
    # shellcheck disable=SC2086
    out=$(timeout "$CAP" "${pre[@]}" "$PROG" -problem helmholtz3d -m "$m" -ksp_type $ksp -ksp_converged_reason $opts -log_view 2>&1)
    rc=$?
    its=$(sed -n 's/.*iterations \([0-9]*\), CONVERGED.*/\1/p' <<<"$out" | tail -1)
    if grep -q "error small" <<<"$out"; then res=checked; else res="FAILED (exit $rc): $(grep -m1 -E 'DIVERGED|Error|error' <<<"$out")"; fi
    ks=$(ev KSPSolve "$out") su=$(ev PCSetUp "$out") ap=$(ev PCApply "$out")
    [ "$s" = petsc-ilu ] && base=$ks
    ratio=$(awk -v a="$base" -v b="$ks" 'BEGIN {if (a == "" || a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b}')
    name=$s; [ "$np" -gt 1 ] && name="petsc-bjacobi-ilu-np$np"
    printf '%-5s %-22s %6s %10s %10s %10s %8s  %s\n' "$m" "$name" "${its:--}" "$ks" "$su" "$ap" "$ratio" "$res"
  done
done
