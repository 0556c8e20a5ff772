static char help[] = "Sparse LDL^T/Cholesky through PETSc: pgx against cholmod, mumps, umfpack (LU) and petsc.\n"
                     "  -solvers pgx,cholmod,mumps,umfpack,petsc   -poisson 64,100 (3D Poisson m^3)   -elasticity 30 (3 m (m+1)^2 unknowns)\n"
                     "  pgx-column, pgx-supernodal: pgx with -mat_pgx_ldlt_method column or supernodal (both may run in one call)\n"
                     "  -matrices name,... (read from $PGX_MATRICES or ../shared/matrices; missing ones are skipped visibly)\n"
                     "  -reps <1> numeric factorizations timed (median)\n"
                     "Columns: problem, solver, n, nnz(A), nnz(L) (MatGetInfo of the factor), ordering (pgx: the one used; others:\n"
                     "the package's own), symbolic, numeric, solve (s), GFLOP/s of the numeric phase (flops logged by the factorization\n"
                     "/ numeric time, when logged), backward error. After each problem: the numeric-phase speedup of each pgx\n"
                     "variant over each other solver that ran (time of the other / time of pgx).\n";
#include <petscmat.h>
#include <pgx.h>
#include <pgx/gallery.h>
#include "../../tests/ldlt/ldlt_problems.h"

/* put back the -mat_pgx_ldlt_method of the command line after a pgx-<method> run */
static PetscErrorCode RestoreMethod(const char *method, PetscBool hadsaved, const char *saved)
{
  PetscFunctionBegin;
  if (!method[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (hadsaved) PetscCall(PetscOptionsSetValue(NULL, "-mat_pgx_ldlt_method", saved));
  else PetscCall(PetscOptionsClearValue(NULL, "-mat_pgx_ldlt_method"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

/* numeric times of the solvers of the current problem, for the speedup lines */
static char           done_name[16][32];
static PetscLogDouble done_tn[16];
static PetscInt       ndone;

static PetscErrorCode RunOne(const char *name, Mat A, const char *solverspec)
{
  char           solver[64], method[32] = "", saved[64];
  PetscBool      hadsaved = PETSC_FALSE;
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
  /* pgx-column / pgx-supernodal: pgx with that -mat_pgx_ldlt_method (the factor reads it in the symbolic phase) */
  PetscCall(PetscStrncpy(solver, solverspec, sizeof(solver)));
  {
    char *dash;
    PetscCall(PetscStrchr(solver, '-', &dash));
    if (dash) {
      *dash = 0;
      PetscCall(PetscStrncpy(method, dash + 1, sizeof(method)));
      PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_pgx_ldlt_method", saved, sizeof(saved), &hadsaved));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_pgx_ldlt_method", method));
    }
  }
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
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %-14s not available in this PETSc\n", name, solverspec));
    PetscCall(RestoreMethod(method, hadsaved, saved));
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
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %-14s FAILED (%s %d)\n", name, solverspec, ierr ? "error" : "factor error", ierr ? (int)ierr : (int)ferr));
      PetscCall(RestoreMethod(method, hadsaved, saved));
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
  {
    MatInfo        ainfo;
    const char    *ord = "own", *meth = NULL, *backend = NULL;
    char           label[64];
    PetscErrorCode (*summary)(Mat, const char **, const char **, const char **) = NULL;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &ainfo));
    PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatPGXLDLTGetSummary_C", &summary));
    if (summary) PetscCall((*summary)(F, &ord, &meth, &backend));
    else if (!strcmp(solver, MATSOLVERPETSC) || lu) ord = "nd";
    if (meth) PetscCall(PetscSNPrintf(label, sizeof(label), "%s-%s", solver, !strcmp(meth, "supernodal") ? "snode" : meth));
    else PetscCall(PetscStrncpy(label, solver, sizeof(label)));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %-14s n %9" PetscInt_FMT " nnz(A) %10.0f nnz(L) %12.4g ord %-7s symbolic %9.3f numeric %9.3f solve %8.4f GFLOP/s %8.2f berr %8.2e%s%s\n", name, label, n, ainfo.nz_used, finfo.nz_used, ord, ts, tn, tsol, f1 > f0 ? (f1 - f0) / tn / 1e9 : 0.0, nr / (na * nx + nb), backend ? " " : "", backend ? backend : ""));
    if (ndone < 16) {
      PetscCall(PetscStrncpy(done_name[ndone], label, sizeof(done_name[0])));
      done_tn[ndone++] = tn;
    }
  }
  PetscCall(RestoreMethod(method, hadsaved, saved));
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
  PetscBool pgx;
  PetscInt n, nnz;
  MatInfo  info;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  nnz = (PetscInt)info.nz_used;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "== %s: n %" PetscInt_FMT ", nnz(A) %" PetscInt_FMT "\n", name, n, nnz));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  ndone = 0;
  for (PetscInt s = 0; s < ns; s++) PetscCall(RunOne(name, A, solvers[s]));
  for (PetscInt i = 0; i < ndone; i++) {
    PetscCall(PetscStrbeginswith(done_name[i], "pgx", &pgx));
    if (!pgx) continue;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s numeric speedup of %-10s", name, done_name[i]));
    for (PetscInt k = 0; k < ndone; k++)
      if (k != i && done_tn[i] > 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  vs %s %.2fx", done_name[k], done_tn[k] / done_tn[i]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
  }
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
