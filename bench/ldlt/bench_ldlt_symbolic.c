static char help[] = "The symbolic phase of MATSOLVERPGX's LDL^T alone (no numeric factorization): ordering, etree, counts, structure,\n"
                     "supernodes and (with -mat_pgx_ldlt_method supernodal -mat_pgx_ldlt_panels, or on cuda) the supernodal plan.\n"
                     "  -poisson 48,64 (3D Poisson m^3)   -elasticity 30   -matrices name,... (missing ones: SKIPPED)   -reps <1> (best of)\n"
                     "Prints per problem n, nnz(L) (with the diagonal) and the best symbolic time; -info gives the time of each part.\n";
#include <petscmat.h>
#include <pgx.h>
#include <pgx/gallery.h>
#include "../../tests/ldlt/ldlt_problems.h"

static PetscErrorCode RunSymbolic(const char *name, Mat A)
{
  PetscInt       n, reps = 1;
  PetscLogDouble best = 1e300;
  MatInfo        finfo;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  for (PetscInt r = 0; r < reps; r++) {
    Mat            F;
    MatFactorInfo  info;
    PetscLogDouble t0;
    PetscCall(MatGetFactor(A, MATSOLVERPGX, MAT_FACTOR_CHOLESKY, &F));
    PetscCall(MatFactorInfoInitialize(&info));
    t0 = MPI_Wtime();
    PetscCall(MatCholeskyFactorSymbolic(F, A, NULL, &info));
    best = PetscMin(best, MPI_Wtime() - t0);
    PetscCall(MatGetInfo(F, MAT_LOCAL, &finfo));
    PetscCall(MatDestroy(&F));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s n %9" PetscInt_FMT " nnz(L) %12.0f symbolic %8.3f s\n", name, n, finfo.nz_used, best));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char     *mats[32], name[64];
  PetscInt  nm = 32, np = 8, ne = 8, pois[8], elas[8];
  PetscBool set;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-poisson", pois, &np, &set));
  if (!set) np = 0;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-elasticity", elas, &ne, &set));
  if (!set) ne = 0;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-matrices", mats, &nm, &set));
  if (!set) nm = 0;
  for (PetscInt i = 0; i < np; i++) {
    Mat A;
    PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, "poisson3d", pois[i], &A));
    PetscCall(PetscSNPrintf(name, sizeof(name), "poisson3d-%" PetscInt_FMT, pois[i]));
    PetscCall(RunSymbolic(name, A));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt i = 0; i < ne; i++) {
    Mat A;
    PetscCall(LDLTElasticity(elas[i], &A));
    PetscCall(PetscSNPrintf(name, sizeof(name), "elasticity3d-%" PetscInt_FMT, elas[i]));
    PetscCall(RunSymbolic(name, A));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt i = 0; i < nm; i++) {
    char           path[PETSC_MAX_PATH_LEN];
    PetscBool      exists = PETSC_FALSE;
    PetscErrorCode ierr;
    Mat            A;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PGXMatrixPath(mats[i], path, sizeof(path));
    PetscCall(PetscPopErrorHandler());
    if (!ierr) PetscCall(PetscTestFile(path, 'r', &exists));
    if (!exists) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s SKIPPED (not found; set PGX_MATRICES)\n", mats[i]));
      PetscCall(PetscFree(mats[i]));
      continue;
    }
    PetscCall(PGXMatLoadMatrixMarket(PETSC_COMM_SELF, path, &A));
    PetscCall(RunSymbolic(mats[i], A));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFree(mats[i]));
  }
  PetscCall(PetscFinalize());
  return 0;
}
