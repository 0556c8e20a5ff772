static char help[] = "Bad input for the PGX preconditioners: a non-square matrix must give a clear error, never a crash.\n"
                     "  -pc_type dilu|aips, -rows R -cols C\n";
#include <pgx.h>

int main(int argc, char **argv)
{
  Mat      A;
  PC       pc;
  PetscInt rows = 6, cols = 5, rstart, rend;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-rows", &rows, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cols", &cols, NULL));
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, rows, cols, 3, NULL, 3, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    if (i < cols) PetscCall(MatSetValue(A, i, i, 4.0, INSERT_VALUES));
    if (i > 0 && i - 1 < cols) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "set up without error\n"));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
