static char help[] = "Solves a 3D Poisson problem (7-point Laplacian on an m^3 grid) with CG preconditioned by PCDILU.\n"
                     "  -m <m> grid size (default 20); try -pc_dilu_ordering multicolor, -pgx_device cuda, -ksp_view\n";
/* Tutorial: load PGX, pick PCDILU, solve, print the iteration count. For symmetric matrices DILU is DIC
   (M symmetric positive definite for M-matrices), so CG works; on this 7-point stencil natural-order DILU is
   exactly ICC(0): compare with -pc_type icc. */
#include <petscksp.h>
#include <pgx.h>

int main(int argc, char **argv)
{
  Mat      A;
  Vec      x, b;
  KSP      ksp;
  PC       pc;
  PetscInt m = 20, rstart, rend, its;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage()); /* registers PCDILU (not needed when loaded with -dll_append) */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));

  /* the 7-point Laplacian, rows distributed over the ranks */
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, m * m * m, m * m * m, 7, NULL, 3, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt i = row % m, j = (row / m) % m, k = row / (m * m);
    PetscCall(MatSetValue(A, row, row, 6.0, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, row, row - 1, -1.0, INSERT_VALUES));
    if (i < m - 1) PetscCall(MatSetValue(A, row, row + 1, -1.0, INSERT_VALUES));
    if (j > 0) PetscCall(MatSetValue(A, row, row - m, -1.0, INSERT_VALUES));
    if (j < m - 1) PetscCall(MatSetValue(A, row, row + m, -1.0, INSERT_VALUES));
    if (k > 0) PetscCall(MatSetValue(A, row, row - m * m, -1.0, INSERT_VALUES));
    if (k < m - 1) PetscCall(MatSetValue(A, row, row + m * m, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));

  /* CG + DILU; the command line may change either */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCDILU));
  PetscCall(PCDILUSetOrdering(pc, PC_DILU_ORDERING_NATURAL));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "3D Poisson %" PetscInt_FMT "^3: CG + %s converged in %" PetscInt_FMT " iterations\n", m, "dilu", its));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
