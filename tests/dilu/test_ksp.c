static char help[] = "KSP with PCDILU (or any PC) on a generated problem or a Matrix Market matrix.\n"
                     "  -problem poisson2d|poisson3d|poisson3d27|aniso3d|convdiff3d|helmholtz3d|random|zerodiag -m <m>\n"
                     "  -matrix <name of a ../shared/matrices matrix>   -negate (use -A)\n"
                     "Prints the iteration count and the converged reason (stable across backends and ranks).\n";
#include <petscksp.h>
#include <pgx.h>
#include "dilu_problems.h"

int main(int argc, char **argv)
{
  Mat                A;
  Vec                x, b, u;
  KSP                ksp;
  char               problem[64] = "poisson3d", matrix[256] = "", path[PETSC_MAX_PATH_LEN], prefix[64] = "";
  PetscInt           m = 16, its;
  PetscBool          negate = PETSC_FALSE, hasmatrix;
  KSPConvergedReason reason;
  PetscReal          err, nrm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-problem", problem, sizeof(problem), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", matrix, sizeof(matrix), &hasmatrix));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-negate", &negate, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-prefix", prefix, sizeof(prefix), NULL)); /* options prefix of the KSP */
  if (hasmatrix) {
    PetscCall(DILUTestMatrixPath(matrix, path, sizeof(path)));
    PetscCall(DILUTestLoadMM(PETSC_COMM_WORLD, path, &A));
    if (negate) PetscCall(MatScale(A, -1.0));
  } else PetscCall(DILUTestProblem(PETSC_COMM_WORLD, problem, m, &A));
  {
    char      mtype[64];
    PetscBool conv;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-convert", mtype, sizeof(mtype), &conv)); /* e.g. baij, sbaij, mpiaij */
    if (conv) PetscCall(MatConvert(A, mtype, MAT_INPLACE_MATRIX, &A));
  }
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &u));
  PetscCall(VecSet(u, 1.0));
  PetscCall(MatMult(A, u, b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  if (prefix[0]) PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCDILU));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(VecAXPY(x, -1.0, u));
  PetscCall(VecNorm(x, NORM_2, &err));
  PetscCall(VecNorm(u, NORM_2, &nrm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: iterations %" PetscInt_FMT ", %s\n", hasmatrix ? matrix : problem, its, KSPConvergedReasons[reason]));
  if (reason > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error %s\n", err / nrm < 1e-4 ? "small" : "LARGE"));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
