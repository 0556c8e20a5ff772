static char help[] = "Sparse LDL^T/Cholesky through PETSc: pgx against cholmod, mumps, umfpack (LU) and petsc.\n"
                     "  -solvers pgx,cholmod,mumps,umfpack,petsc   -poisson 64,100 (3D Poisson m^3)   -elasticity 30 (3 m (m+1)^2 unknowns)\n"
                     "  -matrices name,... (read from $PGX_MATRICES or ../shared/matrices; missing ones are skipped visibly)\n"
                     "  -reps <1> numeric factorizations timed (median)\n"
                     "Columns: problem, n, nnz(A), solver, nnz(L) (MatGetInfo of the factor), symbolic, numeric, solve (s),\n"
                     "GFLOP/s of the numeric phase (flops logged by the factorization / numeric time, when logged), backward error.\n";
#include <petscmat.h>
#include <pgx.h>
#include <pgx/gallery.h>
#include "../../tests/ldlt/ldlt_problems.h"

static PetscErrorCode RunPhases(Mat A, Mat F, PetscBool lu, const char *solver, IS rperm, IS cperm, MatFactorInfo *info, PetscInt reps, Vec x, Vec b, PetscLogDouble *ts, PetscLogDouble *tn, PetscLogDouble *tsol, PetscLogDouble *f0, PetscLogDouble *f1)
{
  PetscLogDouble t0;

  PetscFunctionBegin;
  t0 = MPI_Wtime();
  if (lu) PetscCall(MatLUFactorSymbolic(F, A, rperm, cperm, info));
  else PetscCall(MatCholeskyFactorSymbolic(F, A, !strcmp(solver, MATSOLVERPETSC) ? rperm : NULL, info));
  *ts = MPI_Wtime() - t0;
  *tn = 1e300;
  for (PetscInt k = 0; k < reps; k++) {
    PetscCall(PetscGetFlops(f0));
    t0 = MPI_Wtime();
    if (lu) PetscCall(MatLUFactorNumeric(F, A, info));
    else PetscCall(MatCholeskyFactorNumeric(F, A, info));
    *tn = PetscMin(*tn, MPI_Wtime() - t0);
    PetscCall(PetscGetFlops(f1));
  }
  t0 = MPI_Wtime();
  PetscCall(MatSolve(F, b, x));
  *tsol = MPI_Wtime() - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunOne(const char *name, Mat A, const char *solver)
{
  Mat            F;
  IS             rperm = NULL, cperm = NULL;
  MatFactorInfo  info;
  MatInfo        finfo;
  Vec            x, b, r;
  PetscInt       n, reps = 1;
  PetscReal      nr, na, nx, nb;
  PetscLogDouble ts = 0, tn = 0, tsol = 0, f0 = 0, f1 = 0;
  PetscBool      lu, avail;
  MatFactorType  ftype;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscStrcmp(solver, MATSOLVERUMFPACK, &lu));
  ftype = lu ? MAT_FACTOR_LU : MAT_FACTOR_CHOLESKY;
  {
    PetscErrorCode ierr;
    F = NULL;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatGetFactor(A, solver, ftype, &F);
    PetscCall(PetscPopErrorHandler());
    avail = (PetscBool)(!ierr && F);
    if (!avail) PetscCall(PetscInfo(A, "MatGetFactor(%s) failed with error %d\n", solver, (int)ierr));
  }
  if (!avail) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %-8s not available in this PETSc\n", name, solver));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatFactorInfoInitialize(&info));
  PetscCall(MatGetOrdering(A, lu || !strcmp(solver, MATSOLVERPETSC) ? MATORDERINGND : MATORDERINGNATURAL, &rperm, &cperm));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(b, 1.0));
  {
    /* a solver that fails (e.g. CHOLMOD on an indefinite matrix) is reported, not fatal */
    PetscErrorCode ierr;
    MatFactorError ferr = MAT_FACTOR_NOERROR;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = RunPhases(A, F, lu, solver, rperm, cperm, &info, reps, x, b, &ts, &tn, &tsol, &f0, &f1);
    PetscCall(PetscPopErrorHandler());
    if (!ierr) PetscCall(MatFactorGetError(F, &ferr));
    if (ierr || ferr) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %-8s FAILED (%s %d)\n", name, solver, ierr ? "error" : "factor error", ierr ? (int)ierr : (int)ferr));
      PetscCall(ISDestroy(&rperm));
      PetscCall(ISDestroy(&cperm));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&b));
      PetscCall(VecDestroy(&r));
      PetscCall(MatDestroy(&F));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_INFINITY, &nr));
  PetscCall(MatNorm(A, NORM_INFINITY, &na));
  PetscCall(VecNorm(x, NORM_INFINITY, &nx));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  PetscCall(MatGetInfo(F, MAT_LOCAL, &finfo));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %-8s n %9" PetscInt_FMT " nnz(L) %12.4g symbolic %9.3f numeric %9.3f solve %8.4f GFLOP/s %7.2f berr %8.2e\n", name, solver, n, finfo.nz_used, ts, tn, tsol, f1 > f0 ? (f1 - f0) / tn / 1e9 : 0.0, nr / (na * nx + nb)));
  PetscCall(ISDestroy(&rperm));
  PetscCall(ISDestroy(&cperm));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunAll(const char *name, Mat A, char **solvers, PetscInt ns)
{
  PetscInt n, nnz;
  MatInfo  info;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  nnz = (PetscInt)info.nz_used;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "== %s: n %" PetscInt_FMT ", nnz(A) %" PetscInt_FMT "\n", name, n, nnz));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  for (PetscInt s = 0; s < ns; s++) PetscCall(RunOne(name, A, solvers[s]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char    *solvers[8], *mats[32], name[64];
  PetscInt ns = 8, nm = 32, np = 8, ne = 8, pois[8], elas[8];
  PetscBool set;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-solvers", solvers, &ns, &set));
  if (!set) {
    const char *def[] = {MATSOLVERPGX, MATSOLVERCHOLMOD, MATSOLVERMUMPS, MATSOLVERUMFPACK, MATSOLVERPETSC};
    ns                = 5;
    for (PetscInt s = 0; s < ns; s++) PetscCall(PetscStrallocpy(def[s], &solvers[s]));
  }
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
    PetscCall(RunAll(name, A, solvers, ns));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt i = 0; i < ne; i++) {
    Mat A;
    PetscCall(LDLTElasticity(elas[i], &A));
    PetscCall(PetscSNPrintf(name, sizeof(name), "elasticity3d-%" PetscInt_FMT, elas[i]));
    PetscCall(RunAll(name, A, solvers, ns));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt i = 0; i < nm; i++) {
    char      path[PETSC_MAX_PATH_LEN];
    PetscBool exists;
    Mat       A;
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PGXMatrixPath(mats[i], path, sizeof(path));
    PetscCall(PetscPopErrorHandler());
    exists = PETSC_FALSE;
    if (!ierr) PetscCall(PetscTestFile(path, 'r', &exists));
    if (!exists) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "== %s: SKIPPED (not found; set PGX_MATRICES)\n", mats[i]));
      continue;
    }
    PetscCall(PGXMatLoadMatrixMarket(PETSC_COMM_SELF, path, &A));
    PetscCall(RunAll(mats[i], A, solvers, ns));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt s = 0; s < ns; s++) PetscCall(PetscFree(solvers[s]));
  for (PetscInt i = 0; i < nm; i++) PetscCall(PetscFree(mats[i]));
  PetscCall(PetscFinalize());
  return 0;
}
