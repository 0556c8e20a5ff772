static char help[] = "MATSOLVERPGX sparse LDL^T: factor, solve, check the backward error and more.\n"
                     "  -problem poisson3d|elasticity|shiftlap|hermlap|helmholtz3d|convdiff3d|rect|structsing -m <m> -shift <s>  or  -matrix <tests/data name>\n"
                     "  (hermlap: complex builds only, the shifted Laplacian plus 0.5 i (E - E^T), E the x-neighbour couplings of even y: Hermitian indefinite)\n"
                     "  -mode solve|transpose|matmat|reuse|inertia|compare   -tol <bound on the backward error>\n"
                     "  -matmat_tol <1e-14: bound on the relative difference of MatMatSolve and column-by-column MatSolve>\n"
                     "  -shift_nonzero <a> (MatFactorInfo MAT_SHIFT_NONZERO)   -sbaij (factor the SEQSBAIJ form)   -perm_type <MatOrderingType passed to the symbolic phase>\n"
                     "  -expect_inertia npos,nneg,nzero (else, with -mode inertia, a dense LAPACK eigenvalue count)\n";
#include <petscmat.h>
#include <petscblaslapack.h>
#include <pgx.h>
#include <pgx/gallery.h>
#include "../common/pgxtest.h"
#include "ldlt_problems.h"

static PetscInt nfail = 0;

static PetscErrorCode SmallMatrix(const char *problem, Mat *A)
{
  PetscFunctionBegin;
  if (!strcmp(problem, "zeropiv")) { /* [0 1; 1 0] (+) [2 1; 1 2]: the first pivot is exactly zero in natural order */
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 4, 4, 2, NULL, A));
    PetscCall(MatSetValue(*A, 0, 1, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, 1, 0, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, 2, 2, 2.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, 2, 3, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, 3, 2, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, 3, 3, 2.0, INSERT_VALUES));
  } else if (!strcmp(problem, "rect")) { /* 4 x 5 */
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 4, 5, 2, NULL, A));
    for (PetscInt i = 0; i < 4; i++) PetscCall(MatSetValue(*A, i, i, 2.0, INSERT_VALUES));
  } else { /* structsing: rows 1 and 2 both couple only to column 0: structural rank 2 of 3 */
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 3, 3, 3, NULL, A));
    PetscCall(MatSetValue(*A, 0, 0, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, 0, 1, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, 0, 2, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, 1, 0, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, 2, 0, 1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) */
static PetscErrorCode BackwardError(Mat A, Vec x, Vec b, PetscBool transpose, PetscReal *berr)
{
  Vec       r;
  PetscReal nr, na, nx, nb;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &r));
  if (transpose) PetscCall(MatMultTranspose(A, x, r));
  else PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_INFINITY, &nr));
  PetscCall(MatNorm(A, NORM_INFINITY, &na));
  PetscCall(VecNorm(x, NORM_INFINITY, &nx));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *berr = nr / (na * nx + nb);
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Eigenvalue signs of a small symmetric (complex: Hermitian) matrix by dense LAPACK (dsyev, zheev) */
static PetscErrorCode DenseInertia(Mat A, PetscInt *npos, PetscInt *nneg, PetscInt *nzero)
{
  Mat                D;
  const PetscScalar *a;
  PetscInt           n;
  PetscBLASInt       bn, info = 0;
  PetscScalar       *work, *copy;
  PetscReal         *w, maxabs = 0;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscMalloc3(n, &w, 8 * n, &work, n * n, &copy));
  PetscCall(MatDenseGetArrayRead(D, &a));
  PetscCall(PetscArraycpy(copy, a, n * n));
  PetscCall(MatDenseRestoreArrayRead(D, &a));
  PetscBLASInt lwork = 8 * bn;
#if defined(PETSC_USE_COMPLEX)
  PetscReal *rwork;
  PetscCall(PetscMalloc1(3 * n, &rwork));
  LAPACKsyev_("N", "U", &bn, copy, &bn, w, work, &lwork, rwork, &info); /* zheev */
  PetscCall(PetscFree(rwork));
#else
  LAPACKsyev_("N", "U", &bn, copy, &bn, w, work, &lwork, &info);
#endif
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "dsyev failed: %d", (int)info);
  for (PetscInt i = 0; i < n; i++) maxabs = PetscMax(maxabs, PetscAbsReal(w[i]));
  *npos = *nneg = *nzero = 0;
  for (PetscInt i = 0; i < n; i++) {
    if (PetscAbsReal(w[i]) <= 1e-12 * maxabs) (*nzero)++;
    else if (w[i] > 0) (*npos)++;
    else (*nneg)++;
  }
  PetscCall(PetscFree3(w, work, copy));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Factor(Mat A, const char *prefix, Mat *F)
{
  MatFactorInfo info;
  IS            perm = NULL, cperm = NULL;
  char          ptype[64];
  PetscBool     hasperm;
  MatFactorError err;

  PetscFunctionBegin;
  PetscCall(MatGetFactor(A, MATSOLVERPGX, MAT_FACTOR_CHOLESKY, F));
  PetscCheck(*F, PETSC_COMM_SELF, PETSC_ERR_SUP, "no pgx factor");
  if (prefix) PetscCall(MatSetOptionsPrefix(*F, prefix));
  PetscCall(MatFactorInfoInitialize(&info));
  {
    PetscReal amount;
    PetscBool shift;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-shift_nonzero", &amount, &shift)); /* MatFactorInfo shift, as -pc_factor_shift_type nonzero sets it */
    if (shift) {
      info.shifttype   = (PetscReal)MAT_SHIFT_NONZERO;
      info.shiftamount = amount;
    }
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-perm_type", ptype, sizeof(ptype), &hasperm));
  if (hasperm) PetscCall(MatGetOrdering(A, ptype, &perm, &cperm));
  PetscCall(MatCholeskyFactorSymbolic(*F, A, perm, &info));
  PetscCall(MatCholeskyFactorNumeric(*F, A, &info));
  PetscCall(ISDestroy(&perm));
  PetscCall(ISDestroy(&cperm));
  PetscCall(MatFactorGetError(*F, &err));
  if (err) {
    PetscReal v;
    PetscInt  row;
    PetscCall(MatFactorGetErrorZeroPivot(*F, &v, &row));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "factor error %s in row %" PetscInt_FMT "\n", err == MAT_FACTOR_NUMERIC_ZEROPIVOT ? "MAT_FACTOR_NUMERIC_ZEROPIVOT" : "other", row));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ViewFactor(Mat F)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(F, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A, F;
  Vec         x, b, u;
  char        problem[64] = "poisson3d", matrix[256] = "", mode[32] = "solve", path[PETSC_MAX_PATH_LEN];
  PetscInt    m = 10, n;
  PetscReal   tol = 1e-12, shift = 0, berr;
  PetscBool   hasmatrix, sbaij = PETSC_FALSE, view = PETSC_FALSE;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-problem", problem, sizeof(problem), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", matrix, sizeof(matrix), &hasmatrix));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-shift", &shift, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-sbaij", &sbaij, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-view_factor", &view, NULL));
  if (hasmatrix) {
    PetscCall(PGXMatrixPath(matrix, path, sizeof(path)));
    PetscCall(PGXMatLoadMatrixMarket(PETSC_COMM_SELF, path, &A));
  } else if (!strcmp(problem, "elasticity")) PetscCall(LDLTElasticity(m, &A));
  else if (!strcmp(problem, "rect") || !strcmp(problem, "structsing") || !strcmp(problem, "zeropiv")) PetscCall(SmallMatrix(problem, &A));
  else if (!strcmp(problem, "shiftlap")) {
    PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, "poisson3d", m, &A));
    PetscCall(MatShift(A, -shift));
  } else if (!strcmp(problem, "hermlap")) {
#if defined(PETSC_USE_COMPLEX)
    PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, "poisson3d", m, &A));
    PetscCall(MatShift(A, -shift));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE)); /* only the existing x-neighbour entries change */
    for (PetscInt i = 0; i + 1 < m * m * m; i++)
      if ((i + 1) % m && ((i / m) % m) % 2 == 0) { /* x-links of even y only: a flux through the plaquettes, no gauge removes it */
        PetscCall(MatSetValue(A, i, i + 1, PetscCMPLX(0, 0.5), ADD_VALUES));
        PetscCall(MatSetValue(A, i + 1, i, PetscCMPLX(0, -0.5), ADD_VALUES));
      }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatSetOption(A, MAT_HERMITIAN, PETSC_TRUE)); /* the factor takes LDL^H from the known flag */
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-problem hermlap needs complex scalars");
#endif
  } else PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, problem, m, &A));
  if (sbaij) {
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatConvert(A, MATSEQSBAIJ, MAT_INPLACE_MATRIX, &A));
  }
  PetscCall(MatGetSize(A, &n, NULL));
  {
    PetscBool eif = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-error_if_failure", &eif, NULL));
    if (eif) PetscCall(MatSetErrorIfFailure(A, PETSC_TRUE));
  }
  PetscCall(Factor(A, NULL, &F));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &u));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 17));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(u, rnd));
  PetscCall(MatMult(A, u, b));

  {
    MatFactorError err;
    PetscCall(MatFactorGetError(F, &err));
    if (err) { /* PETSc's convention: the solve of a failed factorization gives Inf */
      PetscReal nx;
      PetscCall(MatSolve(F, b, x));
      PetscCall(VecNorm(x, NORM_INFINITY, &nx));
      CHECK(PetscIsInfOrNanReal(nx), "the solve of a failed factorization gave a finite vector");
      PetscCall(PetscStrcpy(mode, "none"));
    }
  }
  if (!strcmp(mode, "solve") || !strcmp(mode, "transpose") || !strcmp(mode, "reuse")) {
    PetscCall(MatSolve(F, b, x));
    PetscCall(BackwardError(A, x, b, PETSC_FALSE, &berr));
    CHECK(berr <= tol, "backward error %g > %g", (double)berr, (double)tol);
    if (berr <= tol) PetscCall(PetscPrintf(PETSC_COMM_SELF, "backward error below %g\n", (double)tol));
    if (!strcmp(mode, "transpose")) {
      PetscCall(MatSolveTranspose(F, b, x));
      PetscCall(BackwardError(A, x, b, PETSC_TRUE, &berr));
      CHECK(berr <= tol, "transpose: backward error %g > %g", (double)berr, (double)tol);
    }
    if (!strcmp(mode, "reuse")) { /* new values, same pattern: A <- S A S, S = diag(1, 1.5, 2, 1, ...), numeric phase only */
      Vec           sc;
      MatFactorInfo info;
      PetscScalar  *sa;
      PetscCall(MatCreateVecs(A, &sc, NULL));
      PetscCall(VecGetArray(sc, &sa));
      for (PetscInt i = 0; i < n; i++) sa[i] = 1.0 + 0.5 * (i % 3);
      PetscCall(VecRestoreArray(sc, &sa));
      PetscCall(MatDiagonalScale(A, sc, sc));
      PetscCall(VecDestroy(&sc));
      PetscCall(MatMult(A, u, b));
      PetscCall(MatFactorInfoInitialize(&info));
      PetscCall(MatCholeskyFactorNumeric(F, A, &info));
      PetscCall(MatSolve(F, b, x));
      PetscCall(BackwardError(A, x, b, PETSC_FALSE, &berr));
      CHECK(berr <= tol, "after refactorization: backward error %g > %g", (double)berr, (double)tol);
      PetscCall(VecAXPY(x, -1.0, u));
      PetscReal e, nu;
      PetscCall(VecNorm(x, NORM_INFINITY, &e));
      PetscCall(VecNorm(u, NORM_INFINITY, &nu));
      /* the forward error is bounded by cond(A) times the backward error checked above; the KKT matrices (cond ~1e7)
         reach a few 1e-8 on the GPU, so this checks the magnitude only */
      CHECK(e <= 1e-6 * nu, "after refactorization: error %g", (double)(e / nu));
    }
  } else if (!strcmp(mode, "matmat")) { /* MatMatSolve with 7 columns equals column-by-column MatSolve */
    Mat                B, X;
    const PetscScalar *xa;
    PetscInt           nrhs = 7;
    PetscReal          maxdiff = 0, maxx = 0, mmtol = 1e-14;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-matmat_tol", &mmtol, NULL));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, nrhs, NULL, &B));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, nrhs, NULL, &X));
    PetscCall(MatSetRandom(B, rnd));
    PetscCall(MatMatSolve(F, B, X));
    /* each column of X solves its system as well as MatSolve does (the backward error; on an ill-conditioned matrix
       the GPU's multi-column and one-column solves round differently, amplified by the condition number) */
    for (PetscInt r = 0; r < nrhs; r++) {
      Vec bc, xc;
      PetscCall(MatDenseGetColumnVecRead(B, r, &bc));
      PetscCall(MatDenseGetColumnVecRead(X, r, &xc));
      PetscCall(BackwardError(A, xc, bc, PETSC_FALSE, &berr));
      CHECK(berr <= tol, "MatMatSolve column %" PetscInt_FMT ": backward error %g > %g", r, (double)berr, (double)tol);
      PetscCall(MatDenseRestoreColumnVecRead(X, r, &xc));
      PetscCall(MatDenseRestoreColumnVecRead(B, r, &bc));
    }
    PetscCall(MatDenseGetArrayRead(X, &xa));
    for (PetscInt r = 0; r < nrhs; r++) {
      Vec                bc;
      const PetscScalar *xx;
      PetscCall(MatDenseGetColumnVecRead(B, r, &bc));
      PetscCall(MatSolve(F, bc, x));
      PetscCall(BackwardError(A, x, bc, PETSC_FALSE, &berr));
      CHECK(berr <= tol, "column %" PetscInt_FMT ": backward error %g > %g", r, (double)berr, (double)tol);
      PetscCall(MatDenseRestoreColumnVecRead(B, r, &bc));
      PetscCall(VecGetArrayRead(x, &xx));
      for (PetscInt i = 0; i < n; i++) {
        maxdiff = PetscMax(maxdiff, PetscAbsScalar(xx[i] - xa[i + r * n]));
        maxx    = PetscMax(maxx, PetscAbsScalar(xx[i]));
      }
      PetscCall(VecRestoreArrayRead(x, &xx));
    }
    PetscCall(MatDenseRestoreArrayRead(X, &xa));
    CHECK(maxdiff <= mmtol * maxx, "MatMatSolve differs from MatSolve by %g (relative) > %g (-matmat_tol)", (double)(maxdiff / maxx), (double)mmtol);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "MatMatSolve of %" PetscInt_FMT " columns equals MatSolve column by column\n", nrhs));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&X));
  } else if (!strcmp(mode, "inertia")) {
    PetscInt npos, nneg, nzero, e[3], ne = 3, dpos = -1, dneg = -1, dzero = -1;
    PetscBool given;
    PetscCall(MatGetInertia(F, &nneg, &nzero, &npos));
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-expect_inertia", e, &ne, &given));
    if (given) {
      dpos  = e[0];
      dneg  = e[1];
      dzero = e[2];
    } else PetscCall(DenseInertia(A, &dpos, &dneg, &dzero));
    CHECK(npos == dpos && nneg == dneg && nzero == dzero, "inertia (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") != expected (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ")", npos, nneg, nzero, dpos, dneg, dzero);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "inertia (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ")%s\n", npos, nneg, nzero, given ? "" : " equals the dense LAPACK count"));
  } else if (!strcmp(mode, "compare")) { /* column and supernodal methods give the same solution */
    Mat       F2;
    Vec       x2;
    PetscReal e, nx;
    PetscCall(Factor(A, "s_", &F2));
    PetscCall(VecDuplicate(x, &x2));
    PetscCall(MatSolve(F, b, x));
    PetscCall(MatSolve(F2, b, x2));
    PetscCall(VecNorm(x, NORM_INFINITY, &nx));
    PetscCall(VecAXPY(x2, -1.0, x));
    PetscCall(VecNorm(x2, NORM_INFINITY, &e));
    CHECK(e <= tol * nx, "the two factors' solutions differ by %g (relative)", (double)(e / nx));
    if (view) PetscCall(ViewFactor(F2));
    PetscCall(VecDestroy(&x2));
    PetscCall(MatDestroy(&F2));
  }
  if (view) PetscCall(ViewFactor(F));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&A));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " checks FAILED\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
