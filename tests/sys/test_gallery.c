static char help[] = "Checks the gallery problems and the Matrix Market reader against known sizes and properties.\n";
#include <pgx.h>
#include <pgx/gallery.h>
#include "../common/pgxtest.h"

static PetscInt nfail = 0;

static PetscErrorCode Check(Mat A, const char *what, PetscInt n, PetscInt nnz, PetscBool sym)
{
  MatInfo   info;
  PetscInt  M, N;
  PetscBool issym;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(MatIsSymmetric(A, 0.0, &issym));
  CHECK(M == n && N == n, "%s: size %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT, what, M, N, n);
  CHECK((PetscInt)info.nz_used == nnz, "%s: nnz %g, expected %" PetscInt_FMT, what, info.nz_used, nnz);
  CHECK(issym == sym, "%s: symmetric %d, expected %d", what, (int)issym, (int)sym);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-16s n %8" PetscInt_FMT " nnz %9" PetscInt_FMT " symmetric %d\n", what, n, (PetscInt)info.nz_used, (int)issym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat       A, B;
  char      path[PETSC_MAX_PATH_LEN];
  Vec       x, y;
  PetscReal nrm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "laplace1d", 17, &A));
  PetscCall(Check(A, "laplace1d 17", 17, 3 * 17 - 2, PETSC_TRUE));
  PetscCall(MatDestroy(&A));
  PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "poisson2d", 9, &A));
  PetscCall(Check(A, "poisson2d 9", 81, 5 * 81 - 4 * 9, PETSC_TRUE));
  PetscCall(MatDestroy(&A));
  PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "poisson3d27", 6, &A));
  PetscCall(Check(A, "poisson3d27 6", 216, 16 * 16 * 16, PETSC_TRUE));
  PetscCall(MatDestroy(&A));
  PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "aniso3d", 8, &A));
  PetscCall(Check(A, "aniso3d 8", 512, 7 * 512 - 6 * 64, PETSC_TRUE));
  PetscCall(MatDestroy(&A));
  PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "convdiff3d", 8, &A));
  PetscCall(Check(A, "convdiff3d 8", 512, 7 * 512 - 6 * 64, PETSC_FALSE));
  /* row sums of an interior row: diffusion and upwind convection both sum to zero */
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, y));
  {
    PetscScalar v;
    PetscInt    row = 3 + 8 * (3 + 8 * 3), lo, hi;
    PetscCall(VecGetOwnershipRange(y, &lo, &hi));
    if (row >= lo && row < hi) {
      PetscCall(VecGetValues(y, 1, &row, &v));
      CHECK(PetscAbsScalar(v) < 1e-12, "convdiff3d interior row sum %g", (double)PetscAbsScalar(v));
    }
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));

  /* Matrix Market: the 7-point Laplacian 10^3 from the SuiteSparse set equals our poisson3d */
  PetscCall(PGXMatrixPath("Laplace3D10", path, sizeof(path)));
  PetscCall(PGXMatLoadMatrixMarket(PETSC_COMM_WORLD, path, &A));
  PetscCall(Check(A, "Laplace3D10", 1000, 6400, PETSC_TRUE));
  PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "poisson3d", 10, &B));
  PetscCall(MatAXPY(B, -1.0, A, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(B, NORM_FROBENIUS, &nrm));
  CHECK(nrm == 0.0, "Laplace3D10 differs from gallery poisson3d 10 by %g", (double)nrm);
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PGXMatrixPath("bcsstk16", path, sizeof(path)));
  PetscCall(PGXMatLoadMatrixMarket(PETSC_COMM_WORLD, path, &A));
  PetscCall(Check(A, "bcsstk16", 4884, 290378, PETSC_TRUE));
  PetscCall(MatDestroy(&A));
  PetscCall(PGXMatrixPath("BentPipe2D100", path, sizeof(path)));
  PetscCall(PGXMatLoadMatrixMarket(PETSC_COMM_WORLD, path, &A));
  PetscCall(Check(A, "BentPipe2D100", 10000, 49600, PETSC_FALSE));
  PetscCall(MatDestroy(&A));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " checks failed\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
