static char help[] = "Solve A x = b with a KSP on a MATSEQDENSE matrix, factored by PGX's dense LU:\n"
                     "  -pc_type lu -pc_factor_mat_solver_type pgx   (set by this program; override with options)\n"
                     "  -matrix <random,illcond,cluster,zerolead,wilkinson,singular,nan>  -n <n>  -cond <c>  -prefix <p>\n"
                     "  -bjacobi : the same matrix as MATMPIDENSE on all ranks, GMRES with block Jacobi whose blocks\n"
                     "             (MATSEQDENSE) are factored by PGX (-sub_pc_type lu -sub_pc_factor_mat_solver_type pgx)\n";
/* Prints the converged reason and iteration count, and "error small" when ||x - x*||_inf / ||x*||_inf <= tol
   (tol: 1e-10, or cond * 1e-14 for -matrix illcond and cluster). The matrix is dense: any PETSc solver type for dense
   LU (petsc, pgx) can be compared with the same command. */
#include <pgx.h>
#include <petscksp.h>
#include "denselu_matrices.h"

int main(int argc, char **argv)
{
  char               kind[64] = "random", prefix[64] = "";
  PetscInt           n        = 100, its;
  PetscReal          cond = 1e8, err = 0, xnorm = 1, tol;
  Mat                A;
  Vec                x, b, xe;
  KSP                ksp;
  PC                 pc;
  PetscScalar       *aa;
  KSPConvergedReason reason;
  PetscBool          bjacobi = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "test_ksp options", NULL);
  PetscCall(PetscOptionsString("-matrix", "random, illcond, cluster, zerolead, wilkinson, singular, nan", NULL, kind, kind, sizeof(kind), NULL));
  PetscCall(PetscOptionsInt("-n", "order", NULL, n, &n, NULL));
  PetscCall(PetscOptionsReal("-cond", "condition number of illcond and cluster", NULL, cond, &cond, NULL));
  PetscCall(PetscOptionsString("-prefix", "options prefix of the KSP", NULL, prefix, prefix, sizeof(prefix), NULL));
  PetscCall(PetscOptionsBool("-bjacobi", "MATMPIDENSE on all ranks, block Jacobi with PGX's dense LU on the blocks", NULL, bjacobi, &bjacobi, NULL));
  PetscOptionsEnd();

  /* the matrix: dense, column-major, filled through its array; with -bjacobi every rank builds the whole matrix and
     sets its own rows of a MATMPIDENSE */
  if (bjacobi) {
    PetscScalar *full;
    PetscInt     rs, re;
    PetscCall(PetscMalloc1(n * n, &full));
    PetscCall(DenseLUMatrix(kind, n, cond, full));
    PetscCall(MatCreateDense(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, NULL, &A));
    PetscCall(MatGetOwnershipRange(A, &rs, &re));
    for (PetscInt i = rs; i < re; i++)
      for (PetscInt j = 0; j < n; j++) PetscCall(MatSetValue(A, i, j, full[i + j * n], INSERT_VALUES));
    PetscCall(PetscFree(full));
  } else {
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, NULL, &A));
    PetscCall(MatDenseGetArrayWrite(A, &aa));
    PetscCall(DenseLUMatrix(strcmp(kind, "nan") ? kind : "random", n, cond, aa));
    if (!strcmp(kind, "nan")) aa[n / 3 + (n / 2) * n] = NAN;
    PetscCall(MatDenseRestoreArrayWrite(A, &aa));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  /* b = A x* with x* = (1, ..., 1) */
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &xe));
  PetscCall(VecSet(xe, 1.0));
  PetscCall(MatMult(A, xe, b));

  /* LU with MATSOLVERPGX; -bjacobi: GMRES with block Jacobi, each rank's MATSEQDENSE block factored by PGX */
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  if (prefix[0]) PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPGetPC(ksp, &pc));
  if (bjacobi) {
    PetscCall(KSPSetType(ksp, KSPGMRES));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(PCSetType(pc, PCBJACOBI));
    PetscCall(PetscOptionsSetValue(NULL, "-sub_pc_type", "lu"));
    PetscCall(PetscOptionsSetValue(NULL, "-sub_pc_factor_mat_solver_type", MATSOLVERPGX));
  } else {
    PetscCall(PCSetType(pc, PCLU));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERPGX));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));

  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "Linear solve converged due to %s iterations %" PetscInt_FMT "\n", KSPConvergedReasons[reason], its));
  tol = bjacobi ? 1e-8 : ((strcmp(kind, "illcond") && strcmp(kind, "cluster")) ? 1e-10 : cond * 1e-14);
  if (reason > 0) {
    PetscCall(VecAXPY(x, -1.0, xe));
    PetscCall(VecNorm(x, NORM_INFINITY, &err));
    PetscCall(VecNorm(xe, NORM_INFINITY, &xnorm));
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "error %s\n", err <= tol * xnorm ? "small" : "LARGE"));
    if (err > tol * xnorm) PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "relative error %g > %g\n", (double)(err / xnorm), (double)tol));
  }
  /* block Jacobi's solve must succeed (same_its.sh compares its iterations across backends) */
  PetscCheck(!bjacobi || (reason > 0 && err <= tol * xnorm), PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "block Jacobi with PGX's dense LU: %s, relative error %g", KSPConvergedReasons[reason], reason > 0 ? (double)(err / xnorm) : -1.0);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xe));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
