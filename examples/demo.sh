#!/usr/bin/env bash
# make demo: each PGX preconditioner beside PETSc's stock choices on generated problems, inside
# UNMODIFIED PETSc tutorials loaded with -dll_append, plus PGX's own tutorials when built.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export LD_LIBRARY_PATH="$ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PGX="-dll_append $ROOT/lib/libpgx.so"
registered=$(build/petsc-tutorials/ksp_ksp_ex2 $PGX -help 2>/dev/null | grep -- '-pc_type' | head -1)
ksptypes=$(build/petsc-tutorials/ksp_ksp_ex2 $PGX -help 2>/dev/null | grep -- '-ksp_type' | head -1)
echo "PGX demo: $(build/tests/sys/pgx_info | head -1)"
echo "GPU: $(build/tests/sys/pgx_info -gpu_reason)"
run() { # title, command...
  local title=$1; shift
  local t0 out its
  t0=$(date +%s%N)
  out=$("$@" -ksp_converged_reason 2>&1)
  its=$(grep -oE 'iterations [0-9]+' <<<"$out" | tail -1)
  printf '  %-44s %-40s %6d ms\n' "$title" "$(grep -oE 'CONVERGED_[A-Z_]+|DIVERGED_[A-Z_]+' <<<"$out" | tail -1) $its" $((($(date +%s%N) - t0) / 1000000))
}
echo
echo "3D Poisson, 7-point, 40^3 (PETSc tutorial ksp/ex45, unmodified), GMRES to rtol 1e-8:"
ex45="build/petsc-tutorials/ksp_ksp_ex45 -da_grid_x 40 -da_grid_y 40 -da_grid_z 40 -ksp_rtol 1e-8"
run "PETSc jacobi" $ex45 -pc_type jacobi
run "PETSc ilu(0)" $ex45 -pc_type ilu
grep -q dilu <<<"$registered" && run "PGX dilu (natural)" $ex45 $PGX -pc_type dilu
grep -q dilu <<<"$registered" && run "PGX dilu (multicolor)" $ex45 $PGX -pc_type dilu -pc_dilu_ordering multicolor
grep -q aips <<<"$registered" && run "PGX aips (order 3, the default)" $ex45 $PGX -pc_type aips
grep -q pgxgmres <<<"$ksptypes" && run "PGX resident gmres + dilu (whole solve)" $ex45 $PGX -ksp_type pgxgmres -pc_type dilu
grep -q pgxgmres <<<"$ksptypes" && run "PGX resident gmres + aips (whole solve)" $ex45 $PGX -ksp_type pgxgmres -pc_type aips
echo
echo "2D Poisson, 5-point, 150^2 (PETSc tutorial ksp/ex2, unmodified), GMRES to rtol 1e-8:"
ex2="build/petsc-tutorials/ksp_ksp_ex2 -m 150 -n 150 -ksp_rtol 1e-8"
run "PETSc jacobi" $ex2 -pc_type jacobi
run "PETSc ilu(0)" $ex2 -pc_type ilu
grep -q dilu <<<"$registered" && run "PGX dilu" $ex2 $PGX -pc_type dilu
grep -q aips <<<"$registered" && run "PGX aips" $ex2 $PGX -pc_type aips
echo
echo "Direct solve of the 2D Poisson matrix, 150^2 (ksp/ex2, unmodified), Cholesky / LDL^T:"
run "PETSc cholesky (native)" $ex2 -ksp_type preonly -pc_type cholesky
run "CHOLMOD" $ex2 -ksp_type preonly -pc_type cholesky -pc_factor_mat_solver_type cholmod
run "PGX LDL^T (pgx)" $ex2 $PGX -ksp_type preonly -pc_type cholesky -pc_factor_mat_solver_type pgx
if [ -x build/tests/denselu/test_ksp ]; then
  echo
  echo "Dense LU with partial pivoting, random 800 x 800 (MATSEQDENSE):"
  run "PETSc lu (LAPACK)" build/tests/denselu/test_ksp -n 800 -pc_factor_mat_solver_type petsc
  run "PGX dense LU (pgx)" build/tests/denselu/test_ksp -n 800
fi
if [ -x build/slepc-tutorials/eps_ex1 ]; then
  echo
  echo "All eigenvalues of the 1D Laplacian, n = 800 (SLEPc eps/ex1, unmodified), dense methods:"
  for t in lapack pgx; do
    t0=$(date +%s%N)
    out=$(build/slepc-tutorials/eps_ex1 $PGX -n 800 -eps_type $t -eps_nev 3 2>&1)
    printf '  %-44s %-40s %6d ms\n' "EPS $t" "$(grep -m1 'Number of converged' <<<"$out" | sed 's/^ *//')" $((($(date +%s%N) - t0) / 1000000))
  done
fi
for t in build/examples/tutorials/ex*; do
  [ -x "$t" ] && [ "${t%.d}" = "$t" ] || continue
  echo; echo "PGX tutorial $(basename "$t"):"; "$t" 2>&1 | sed 's/^/  /'
done
