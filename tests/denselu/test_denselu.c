static char help[] = "MATSOLVERPGX dense LU through PETSc: MatGetFactor, MatLUFactorSymbolic/Numeric, MatSolve, MatSolveTranspose, MatMatSolve.\n"
                     "  -matrix <random,illcond,cluster,zerolead,wilkinson,singular,nan,nanrefactor,nonsquare,diagdom>  -n <n>  -cond <c>  -nrhs <k>  -view\n";
/* Checks (prints "all checks passed"):
   - MatSolve and MatSolveTranspose: backward error ||Ax-b||_inf / (||A||_inf ||x||_inf n eps) < 10 (-be_tol) (2 right-hand sides each)
   - MatMatSolve equals column-by-column MatSolve (to -mms_tol, default 1e-13, relative)
   - the user's matrix is bitwise unchanged after symbolic, numeric and solves
   - MatLUFactorNumeric again after new values (A <- 2A + I) gives backward error < 10 for the new A
   - singular: MatFactorGetError = MAT_FACTOR_NUMERIC_ZEROPIVOT in the zero column; MatSolve returns Inf
   - nanrefactor: a NaN in a second factorization's values gives PETSC_ERR_FP, MatFactorGetError = MAT_FACTOR_OTHER,
     MatSolve returns Inf, the user's matrix is bitwise unchanged; good values again make the factor usable
   nan and nonsquare end in the PETSc error that the tests assert. */
#include <pgx.h>
#include "../common/pgxtest.h"
#include "denselu_matrices.h"

static PetscInt  nfail   = 0;
static PetscReal mms_tol = 1e-13; /* -mms_tol: MatMatSolve vs column-by-column MatSolve */
static PetscReal be_tol  = 10;    /* -be_tol: largest backward error accepted (issue 14: 10; FP64 level: 1) */

static PetscErrorCode BackwardError(Mat A, Vec x, Vec b, PetscBool transpose, PetscReal *be)
{
  const PetscScalar *aa, *xa, *ba;
  PetscInt           n, lda;
  PetscScalar       *ac;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatDenseGetLDA(A, &lda));
  PetscCall(MatDenseGetArrayRead(A, &aa));
  PetscCall(PetscMalloc1(n * n, &ac));
  for (PetscInt j = 0; j < n; j++) PetscCall(PetscArraycpy(ac + j * n, aa + j * lda, n));
  PetscCall(MatDenseRestoreArrayRead(A, &aa));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(b, &ba));
  *be = DenseLUBackwardError(n, ac, xa, ba, transpose ? 'T' : 'N');
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(PetscFree(ac));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckSolves(Mat A, Mat F, PetscInt nrhs, const char *what)
{
  PetscInt  n;
  Vec       b, x;
  Mat       B, X;
  PetscReal be = 0;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatCreateVecs(A, &x, &b));
  for (int t = 0; t < 2; t++)
    for (int r = 0; r < 2; r++) {
      PetscScalar *ba;
      PetscCall(VecGetArrayWrite(b, &ba));
      for (PetscInt i = 0; i < n; i++) ba[i] = DenseLURandScalar();
      PetscCall(VecRestoreArrayWrite(b, &ba));
      if (t) PetscCall(MatSolveTranspose(F, b, x));
      else PetscCall(MatSolve(F, b, x));
      PetscCall(BackwardError(A, x, b, t ? PETSC_TRUE : PETSC_FALSE, &be));
      CHECK(be < be_tol, "%s: %s backward error %g", what, t ? "MatSolveTranspose" : "MatSolve", (double)be);
    }
  /* MatMatSolve against column-by-column MatSolve; B with a leading dimension larger than n */
  {
    PetscScalar *bd, *xd;
    PetscInt     ldb = n + 3;
    PetscReal    dmax = 0, xmax = 0;
    PetscCall(PetscCalloc1(ldb * nrhs, &bd));
    for (PetscInt j = 0; j < nrhs; j++)
      for (PetscInt i = 0; i < n; i++) bd[i + j * ldb] = DenseLURandScalar();
    PetscCall(MatCreate(PETSC_COMM_SELF, &B));
    PetscCall(MatSetSizes(B, n, nrhs, n, nrhs));
    PetscCall(MatSetType(B, MATSEQDENSE));
    PetscCall(MatDenseSetLDA(B, ldb));
    PetscCall(MatSeqDenseSetPreallocation(B, bd));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, nrhs, NULL, &X));
    PetscCall(MatMatSolve(F, B, X));
    for (PetscInt j = 0; j < nrhs; j++) {
      const PetscScalar *xa;
      Vec                bj;
      PetscCall(MatDenseGetColumnVecRead(B, j, &bj));
      PetscCall(MatSolve(F, bj, x));
      PetscCall(MatDenseRestoreColumnVecRead(B, j, &bj));
      PetscCall(MatDenseGetArrayRead(X, (const PetscScalar **)&xd));
      PetscCall(VecGetArrayRead(x, &xa));
      for (PetscInt i = 0; i < n; i++) dmax = PetscMax(dmax, PetscAbsScalar(xd[i + j * n] - xa[i])), xmax = PetscMax(xmax, PetscAbsScalar(xa[i]));
      PetscCall(VecRestoreArrayRead(x, &xa));
      PetscCall(MatDenseRestoreArrayRead(X, (const PetscScalar **)&xd));
    }
    CHECK(dmax <= mms_tol * xmax, "%s: MatMatSolve differs from column-by-column MatSolve by %g (max |x| %g)", what, (double)dmax, (double)xmax);
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&X));
    PetscCall(PetscFree(bd));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char          kind[64] = "random";
  PetscInt      n = 100, nrhs = 5;
  PetscReal     cond = 1e8;
  PetscBool     view = PETSC_FALSE;
  Mat           A, F, A0, A1;
  MatFactorInfo info;
  PetscScalar  *aa;
  PetscBool     eq;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "test_denselu options", NULL);
  PetscCall(PetscOptionsString("-matrix", "random, illcond, cluster, zerolead, wilkinson, singular, nan, nanrefactor, nonsquare, diagdom", NULL, kind, kind, sizeof(kind), NULL));
  PetscCall(PetscOptionsInt("-n", "order", NULL, n, &n, NULL));
  PetscCall(PetscOptionsReal("-cond", "condition number of illcond and cluster", NULL, cond, &cond, NULL));
  PetscCall(PetscOptionsInt("-nrhs", "right-hand sides of MatMatSolve", NULL, nrhs, &nrhs, NULL));
  PetscCall(PetscOptionsReal("-mms_tol", "relative tolerance of MatMatSolve vs column-by-column MatSolve (refined mixed-precision solves differ within cond * eps)", NULL, mms_tol, &mms_tol, NULL));
  PetscCall(PetscOptionsReal("-be_tol", "largest backward error ||Ax-b||_inf/(||A||_inf ||x||_inf n eps) accepted", NULL, be_tol, &be_tol, NULL));
  PetscCall(PetscOptionsBool("-view", "MatView the factor", NULL, view, &view, NULL));
  PetscOptionsEnd();

  if (!strcmp(kind, "nonsquare")) {
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n - 1, NULL, &A));
    PetscCall(MatGetFactor(A, MATSOLVERPGX, MAT_FACTOR_LU, &F)); /* errors */
    PetscCall(MatDestroy(&F));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 1;
  }
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, NULL, &A));
  PetscCall(MatDenseGetArrayWrite(A, &aa));
  PetscCall(DenseLUMatrix(strcmp(kind, "nan") && strcmp(kind, "nanrefactor") ? kind : "random", n, cond, aa));
  if (!strcmp(kind, "nan")) aa[n / 3 + (n / 2) * n] = NAN;
  PetscCall(MatDenseRestoreArrayWrite(A, &aa));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A0));

  PetscCall(PGXMatGetFactor(A, MATSOLVERPGX, MAT_FACTOR_LU, &F));
  PetscCall(MatFactorInfoInitialize(&info));
  PetscCall(MatLUFactorSymbolic(F, A, NULL, NULL, &info));
  PetscCall(MatLUFactorNumeric(F, A, &info));
  if (!strcmp(kind, "singular")) {
    MatFactorError err;
    PetscInt       row;
    PetscReal      pv;
    Vec            x, b;
    PetscCall(MatFactorGetError(F, &err));
    PetscCall(MatFactorGetErrorZeroPivot(F, &pv, &row));
    CHECK(err == MAT_FACTOR_NUMERIC_ZEROPIVOT && row == DenseLUSingularColumn(n), "singular: factor error %d in column %d, expected %d in %d", (int)err, (int)row, (int)MAT_FACTOR_NUMERIC_ZEROPIVOT, (int)DenseLUSingularColumn(n));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "factor error %s, zero pivot in column %" PetscInt_FMT "\n", err == MAT_FACTOR_NUMERIC_ZEROPIVOT ? "MAT_FACTOR_NUMERIC_ZEROPIVOT" : "other", row));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(MatSolve(F, b, x));
    {
      PetscReal nrm;
      PetscCall(VecNorm(x, NORM_INFINITY, &nrm));
      CHECK(PetscIsInfReal(nrm), "singular: MatSolve on the failed factor gives |x| = %g, not Inf", (double)nrm);
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
  } else if (!strcmp(kind, "nanrefactor")) {
    /* a NaN in the values of a second factorization: PETSC_ERR_FP (caught here), the factor marked failed
       (MAT_FACTOR_OTHER: MatSolve gives Inf), the user's matrix untouched; a third factorization of good values
       makes the factor usable again. The cuda backend finds the NaN on the device and names it from the host. */
    PetscErrorCode ierr;
    MatFactorError err;
    Vec            x, b;
    PetscReal      nrm;
    PetscCall(CheckSolves(A, F, nrhs, "before the NaN"));
    PetscCall(MatDenseGetArray(A, &aa));
    aa[n / 3 + (n / 2) * n] = NAN;
    PetscCall(MatDenseRestoreArray(A, &aa));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A1));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatLUFactorNumeric(F, A, &info);
    PetscCall(PetscPopErrorHandler());
    CHECK(ierr == PETSC_ERR_FP, "nanrefactor: MatLUFactorNumeric returned %d, not PETSC_ERR_FP (%d)", (int)ierr, (int)PETSC_ERR_FP);
    PetscCall(MatFactorGetError(F, &err));
    CHECK(err == MAT_FACTOR_OTHER, "nanrefactor: factor error %d, not MAT_FACTOR_OTHER (%d)", (int)err, (int)MAT_FACTOR_OTHER);
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(MatSolve(F, b, x));
    PetscCall(VecNorm(x, NORM_INFINITY, &nrm));
    CHECK(PetscIsInfReal(nrm), "nanrefactor: MatSolve on the failed factor gives |x| = %g, not Inf", (double)nrm);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    {
      const PetscScalar *a1, *a2;
      PetscCall(MatDenseGetArrayRead(A, &a1));
      PetscCall(MatDenseGetArrayRead(A1, &a2));
      eq = memcmp(a1, a2, sizeof(PetscScalar) * n * n) ? PETSC_FALSE : PETSC_TRUE; /* bitwise: NaN != NaN for MatEqual */
      PetscCall(MatDenseRestoreArrayRead(A1, &a2));
      PetscCall(MatDenseRestoreArrayRead(A, &a1));
    }
    CHECK(eq, "nanrefactor: the user's matrix was modified");
    PetscCall(MatDestroy(&A1));
    PetscCall(MatCopy(A0, A, SAME_NONZERO_PATTERN));
    PetscCall(MatLUFactorNumeric(F, A, &info));
    PetscCall(MatFactorGetError(F, &err));
    CHECK(err == MAT_FACTOR_NOERROR, "nanrefactor: factor error %d after good values again", (int)err);
    PetscCall(CheckSolves(A, F, nrhs, "after the NaN"));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "NaN in a refactorization: PETSC_ERR_FP, factor marked failed, MatSolve gives Inf, then refactored\n"));
  } else {
    PetscCall(CheckSolves(A, F, nrhs, kind));
    PetscCall(MatEqual(A, A0, &eq));
    CHECK(eq, "the user's matrix was modified");
    /* new values, same factor object: numeric again */
    PetscCall(MatScale(A, 2.0));
    PetscCall(MatShift(A, 1.0));
    PetscCall(MatLUFactorNumeric(F, A, &info));
    PetscCall(CheckSolves(A, F, nrhs, "refactored"));
  }
  if (view) { /* a factored matrix is viewed in the ASCII info format (as PCView does) */
    PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(F, PETSC_VIEWER_STDOUT_SELF));
    PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  }
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&A0));
  PetscCall(MatDestroy(&A));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " checks FAILED\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
