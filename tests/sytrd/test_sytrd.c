/* Tests of the dense Hermitian tridiagonal reduction PGXSytrd (reference, and cuda against reference).
   -mode hand    : a 3x3 matrix reduced by hand (d, e, tau, v written out), panel widths 1, 2 and 64
   -mode lapack  : random symmetric n x n reduced like LAPACK dsytrd/zhetrd ('L'): same A, d, e, tau to 1e-12
   -mode frank   : Frank matrix a_ij = n - max(i,j) + 1, all eigenvalues against the closed form
                   lambda_k = 1 / (2 (1 - cos((2k-1) pi / (2n+1)))) to 1e-10 relative (PGXFrankEigenvalue: in the
                   form 1 / (4 sin^2(...)), without the cancellation of 1 - cos)
   -mode random  : random Hermitian: ||A Z - Z L||/||A||, ||Z^H Z - I|| < 1e-12 sqrt(n), ||Q T Q^H - A||/||A||,
                   Q^H (Q X) = X, eigenvalues-only run equals the eigenvalues with vectors
   -mode cuda    : cuda against reference on the same input: |T| entrywise, Q T Q^H = A and eigenpairs, for
                   each symmetric product and ablation (complex scalars: a random complex Hermitian A, the launch
                   sequence in every variant)
   -mode generalized : A x = lambda B x with B Hermitian positive definite (PGXSytrdSetMatrixB), on -pgx_device
                   host or cuda (then also against the host): see TestGeneralized
   Options: -n N, -b B (panel width), -seed S, -tridiag auto|stedc|stemr|dc (the eigensolver of T in random and
   cuda modes; auto with vectors is dc on cuda, dstemr on the host), -chol_split N (generalized mode: the order above
   which the cuda backend's Cholesky of B recurses on halves, PGXSytrdSetCholeskySplit). */
#include <pgx/sytrd.h>
#include <petscblaslapack.h>
#include "../common/pgxtest.h"

static PetscInt              nfail = 0;
static char                  lastmsg[1024]; /* the first message of the last error (KeepMessage) */

/* An error handler that keeps the initial error's message and returns its code (PetscErrorMessage's signature differs
   between PETSc versions) */
static PetscErrorCode KeepMessage(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL) PetscStrncpy(lastmsg, mess ? mess : "", sizeof(lastmsg));
  return n;
}
static PGXTridiagEigenMethod tev   = PGX_TRIDIAG_EIGEN_AUTO; /* -tridiag */
static PetscInt              backchunks = PGX_SYTRD_DEFAULT_BACK_CHUNKS; /* -back_chunks (cuda) */
static PetscInt              cholsplit  = PGX_SYTRD_DEFAULT_CHOL_SPLIT;  /* -chol_split (cuda, generalized) */

/* LAPACK's own reduction: dsytrd for real scalars, zhetrd for complex ones */
#if defined(PETSC_USE_COMPLEX)
  #define PGXLAPACKsytrd_ PETSCBLAS(hetrd, HETRD)
  #define PGXLAPACKsytrdName "zhetrd"
#else
  #define PGXLAPACKsytrd_ PETSCBLAS(sytrd, SYTRD)
  #define PGXLAPACKsytrdName "dsytrd"
#endif
BLAS_EXTERN void PGXLAPACKsytrd_(const char *, const PetscBLASInt *, PetscScalar *, const PetscBLASInt *, PetscReal *, PetscReal *, PetscScalar *, PetscScalar *, const PetscBLASInt *, PetscBLASInt *);

/* PETSc's random generator with values in [-1, 1] (real and imaginary parts with complex scalars), seeded */
static PetscErrorCode RandomStream(PetscInt seed, PetscRandom *r)
{
  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, r));
  PetscCall(PetscRandomSetInterval(*r, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(*r, (unsigned long)seed));
  PetscCall(PetscRandomSeed(*r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* random Hermitian matrix (full square, entries in [-1,1]), real diagonal */
static PetscErrorCode RandomHermitian(PetscInt n, PetscInt seed, PetscScalar *A)
{
  PetscRandom r;

  PetscFunctionBegin;
  PetscCall(RandomStream(seed, &r));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = j; i < n; i++) {
      PetscScalar v;
      PetscCall(PetscRandomGetValue(r, &v));
      if (i == j) v = PetscRealPart(v);
      A[i + j * n] = v;
      A[j + i * n] = PetscConj(v);
    }
  PetscCall(PetscRandomDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal FrobDiff(PetscInt n, PetscInt m, const PetscScalar *X, const PetscScalar *Y)
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < n * m; i++) s += PetscRealPart((X[i] - (Y ? Y[i] : 0)) * PetscConj(X[i] - (Y ? Y[i] : 0)));
  return PetscSqrtReal(s);
}

/* B = Q T Q^H with T from d, e */
static PetscErrorCode QTQ(PetscInt n, const PetscScalar *Q, const PetscReal *d, const PetscReal *e, PetscScalar *B)
{
  PetscScalar *QT;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n * n, &QT));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar s = Q[i + j * n] * d[j];
      if (j > 0) s += Q[i + (j - 1) * n] * e[j - 1];
      if (j < n - 1) s += Q[i + (j + 1) * n] * e[j];
      QT[i + j * n] = s;
    }
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar s = 0;
      for (PetscInt k = 0; k < n; k++) s += QT[i + k * n] * PetscConj(Q[j + k * n]);
      B[i + j * n] = s;
    }
  PetscCall(PetscFree(QT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestHand(void)
{
  /* A = [4 1 2; 1 2 0; 2 0 3]: x = (1,2), beta = -sqrt(5), tau = 1 + 1/sqrt(5), v = (1, 2/(1+sqrt(5)));
     H A22 H = [14 -2; -2 11]/5, so d = (4, 2.8, 2.2), e = (-sqrt(5), -0.4), tau_1 = 0 */
  PetscScalar     A[9] = {4, 1, 2, 1, 2, 0, 2, 0, 3};
  const PetscReal s5 = PetscSqrtReal(5.0), dx[3] = {4, 2.8, 2.2}, ex[2] = {-s5, -0.4}, taux = 1 + 1 / s5, vx = 2 / (1 + s5);
  PetscInt        bs[3] = {1, 2, 64};

  PetscFunctionBegin;
  for (PetscInt k = 0; k < 3; k++) {
    PGXSytrd           S;
    const PetscReal   *d, *e;
    const PetscScalar *R, *tau;
    PetscInt           ld;
    PetscScalar        Q[9] = {0}, B[9] = {0}; /* initialized: g++ -O3 cannot see that QTQ fills B */
    PetscCall(PGXSytrdCreate(PGX_DEVICE_HOST, &S));
    PetscCall(PGXSytrdSetBlockSize(S, bs[k]));
    PetscCall(PGXSytrdSetMatrix(S, 3, A, 3));
    PetscCall(PGXSytrdReduce(S));
    PetscCall(PGXSytrdGetTridiagonal(S, &d, &e));
    PetscCall(PGXSytrdGetReflectors(S, &R, &ld, &tau));
    for (PetscInt i = 0; i < 3; i++) CHECK(PetscAbsReal(d[i] - dx[i]) < 1e-14, "b=%d d[%d] = %.16g, expected %.16g", (int)bs[k], (int)i, (double)d[i], (double)dx[i]);
    for (PetscInt i = 0; i < 2; i++) CHECK(PetscAbsReal(e[i] - ex[i]) < 1e-14, "b=%d e[%d] = %.16g, expected %.16g", (int)bs[k], (int)i, (double)e[i], (double)ex[i]);
    CHECK(PetscAbsScalar(tau[0] - taux) < 1e-14 && tau[1] == 0.0, "b=%d tau = (%g, %g), expected (%g, 0)", (int)bs[k], (double)PetscRealPart(tau[0]), (double)PetscRealPart(tau[1]), (double)taux);
    CHECK(PetscAbsScalar(R[2] - vx) < 1e-14 && R[1] == ex[0], "b=%d stored v = %g (expected %g), subdiagonal %g", (int)bs[k], (double)PetscRealPart(R[2]), (double)vx, (double)PetscRealPart(R[1]));
    PetscCall(PGXSytrdFormQ(S, Q, 3));
    PetscCall(QTQ(3, Q, d, e, B));
    CHECK(FrobDiff(3, 3, A, B) < 1e-14 * 6, "b=%d ||Q T Q^T - A|| = %g", (int)bs[k], (double)FrobDiff(3, 3, A, B));
    PetscCall(PGXSytrdDestroy(&S));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestLapack(PetscInt n, PetscInt b, PetscInt seed)
{
  PetscScalar       *A, *L, *tl, lwq;
  PetscReal         *dl, *el, err = 0;
  PetscBLASInt       bn, lwork = -1, info;
  PGXSytrd           S;
  const PetscReal   *d, *e;
  const PetscScalar *R, *tau;
  PetscInt           ld;

  PetscFunctionBegin;
  PetscCall(PetscMalloc5(n * n, &A, n * n, &L, n, &dl, n, &el, n, &tl));
  PetscCall(RandomHermitian(n, seed, A));
  PetscCall(PetscArraycpy(L, A, n * n));
  PetscCall(PetscBLASIntCast(n, &bn));
  PGXLAPACKsytrd_("L", &bn, L, &bn, dl, el, tl, &lwq, &lwork, &info);
  lwork = (PetscBLASInt)PetscRealPart(lwq);
  {
    PetscScalar *work;
    PetscCall(PetscMalloc1(lwork, &work));
    PGXLAPACKsytrd_("L", &bn, L, &bn, dl, el, tl, work, &lwork, &info);
    PetscCall(PetscFree(work));
  }
  CHECK(info == 0, "%s info %d", PGXLAPACKsytrdName, (int)info);
  PetscCall(PGXSytrdCreate(PGX_DEVICE_HOST, &S));
  PetscCall(PGXSytrdSetBlockSize(S, b));
  PetscCall(PGXSytrdSetMatrix(S, n, A, n));
  PetscCall(PGXSytrdReduce(S));
  PetscCall(PGXSytrdGetTridiagonal(S, &d, &e));
  PetscCall(PGXSytrdGetReflectors(S, &R, &ld, &tau));
  for (PetscInt i = 0; i < n; i++) err = PetscMax(err, PetscAbsReal(d[i] - dl[i]));
  for (PetscInt i = 0; i < n - 1; i++) err = PetscMax(err, PetscMax(PetscAbsReal(e[i] - el[i]), PetscAbsScalar(tau[i] - tl[i])));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = j; i < n; i++) err = PetscMax(err, PetscAbsScalar(R[i + j * ld] - L[i + j * n]));
  CHECK(err < 1e-12, "n=%d b=%d: max difference from LAPACK %s %g", (int)n, (int)b, PGXLAPACKsytrdName, (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "lapack n=%d b=%d: agrees with LAPACK %s to 1e-12\n", (int)n, (int)b, PGXLAPACKsytrdName));
  PetscCall(PGXSytrdDestroy(&S));
  PetscCall(PetscFree5(A, L, dl, el, tl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestFrank(PetscInt n, PetscInt b)
{
  PetscScalar *A;
  PetscReal   *w, err = 0;
  PGXSytrd     S;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n * n, &A, n, &w));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) A[i + j * n] = (PetscScalar)(n - PetscMax(i, j)); /* 0-based: n - max + 1 - 1 */
  PetscCall(PGXSytrdCreate(PGX_DEVICE_HOST, &S));
  PetscCall(PGXSytrdSetBlockSize(S, b));
  PetscCall(PGXSytrdSetMatrix(S, n, A, n));
  PetscCall(PGXSytrdSolve(S, w, NULL, 0));
  for (PetscInt k = 1; k <= n; k++) { /* w ascending: the k-th largest is w[n-k] */
    PetscReal lam = PGXFrankEigenvalue(n, k);
    err           = PetscMax(err, PetscAbsReal(w[n - k] - lam) / lam);
  }
  CHECK(err < 1e-10, "Frank n=%d b=%d: max relative eigenvalue error %g", (int)n, (int)b, (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "frank n=%d b=%d: all eigenvalues to 1e-10 relative\n", (int)n, (int)b));
  PetscCall(PGXSytrdDestroy(&S));
  PetscCall(PetscFree2(A, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* residual checks of eigenpairs (w, Z) of A */
static PetscErrorCode CheckEigen(const char *what, PetscInt n, const PetscScalar *A, const PetscReal *w, const PetscScalar *Z)
{
  PetscReal na = FrobDiff(n, n, A, NULL), res = 0, orth = 0, tol = 1e-12 * PetscSqrtReal((PetscReal)n);

  PetscFunctionBegin;
  for (PetscInt j = 0; j < n; j++) {
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar s = -w[j] * Z[i + j * n], o = 0;
      for (PetscInt k = 0; k < n; k++) s += A[i + k * n] * Z[k + j * n];
      res += PetscRealPart(s * PetscConj(s));
      for (PetscInt k = 0; k < n; k++) o += PetscConj(Z[k + i * n]) * Z[k + j * n];
      if (i == j) o -= 1;
      orth += PetscRealPart(o * PetscConj(o));
    }
  }
  res  = PetscSqrtReal(res) / na;
  orth = PetscSqrtReal(orth);
  CHECK(res < tol, "%s: ||A Z - Z L||/||A|| = %g > %g", what, (double)res, (double)tol);
  CHECK(orth < tol, "%s: ||Z^H Z - I|| = %g > %g", what, (double)orth, (double)tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestRandom(PetscInt n, PetscInt b, PetscInt seed)
{
  PetscScalar       *A, *Z, *Q, *B, *X, *Y;
  PetscReal         *w, *w2, err;
  PGXSytrd           S;
  const PetscReal   *d, *e;

  PetscFunctionBegin;
  PetscCall(PetscMalloc6(n * n, &A, n * n, &Z, n * n, &Q, n * n, &B, n, &w, n, &w2));
  PetscCall(PetscMalloc2(n * 3, &X, n * 3, &Y));
  PetscCall(RandomHermitian(n, seed, A));
  PetscCall(PGXSytrdCreate(PGX_DEVICE_HOST, &S));
  PetscCall(PGXSytrdSetBlockSize(S, b));
  PetscCall(PGXSytrdSetTridiagonalEigenMethod(S, tev));
  PetscCall(PGXSytrdSetMatrix(S, n, A, n));
  PetscCall(PGXSytrdReduce(S));
  PetscCall(PGXSytrdGetTridiagonal(S, &d, &e));
  PetscCall(PGXSytrdFormQ(S, Q, n));
  PetscCall(QTQ(n, Q, d, e, B));
  err = FrobDiff(n, n, A, B) / FrobDiff(n, n, A, NULL);
  CHECK(err < 1e-13, "n=%d b=%d: ||Q T Q^H - A||/||A|| = %g", (int)n, (int)b, (double)err);
  /* Q^H (Q X) = X on 3 random vectors */
  for (PetscInt i = 0; i < 3 * n; i++) X[i] = Y[i] = A[i];
  PetscCall(PGXSytrdApplyQ(S, PETSC_FALSE, 3, Y, n));
  PetscCall(PGXSytrdApplyQ(S, PETSC_TRUE, 3, Y, n));
  err = FrobDiff(n, 3, X, Y) / FrobDiff(n, 3, X, NULL);
  CHECK(err < 1e-13, "n=%d b=%d: ||Q^H Q X - X||/||X|| = %g", (int)n, (int)b, (double)err);
  PetscCall(PGXSytrdSolve(S, w, Z, n));
  PetscCall(CheckEigen("random", n, A, w, Z));
  PetscCall(PGXSytrdSolve(S, w2, NULL, 0)); /* eigenvalues only, on the same reduction: the kept ones */
  err = 0;
  for (PetscInt i = 0; i < n; i++) err = PetscMax(err, PetscAbsReal(w[i] - w2[i]));
  CHECK(err == 0, "n=%d: the kept eigenvalues differ by %g", (int)n, (double)err);
  { /* T's eigenvalues alone (dstedc's QR path) */
    PetscReal *ee;
    PetscCall(PetscMalloc1(n, &ee));
    for (PetscInt i = 0; i < n; i++) w2[i] = d[i], ee[i] = i < n - 1 ? e[i] : 0;
    PetscCall(PGXTridiagonalEigen(n, w2, ee, NULL, n));
    PetscCall(PetscFree(ee));
  }
  err = 0;
  for (PetscInt i = 0; i < n; i++) err = PetscMax(err, PetscAbsReal(w[i] - w2[i]));
  CHECK(err < 1e-12 * n, "n=%d: eigenvalues without vectors differ by %g", (int)n, (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "random n=%d b=%d: Q T Q^H = A, residual and orthogonality < 1e-12 sqrt(n)\n", (int)n, (int)b));
  PetscCall(PGXSytrdDestroy(&S));
  PetscCall(PetscFree6(A, Z, Q, B, w, w2));
  PetscCall(PetscFree2(X, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestCuda(PetscInt n, PetscInt b, PetscInt seed)
{
  PetscScalar       *A, *Q, *B, *Z;
  PetscReal         *w, *wr;
  PGXSytrd           R, S;
  const PetscReal   *dr, *er, *d, *e;
  /* 0: the default (fused panel, lower product); 1-5: the launch sequence's ablations (fused needs the lower product
     and merged gemvs: 1, 2 and 5 fall back to the launches); 6: launches with the defaults; 7: fused, one block per SM */
  const char        *names[8] = {"fused", "full", "separate-gemvs", "fused-two-rank-b", "one-stream", "all-off", "launches", "fused-1-block-per-SM"};
  const PGXSytrdPanel expect[8] = {PGX_SYTRD_PANEL_FUSED, PGX_SYTRD_PANEL_LAUNCHES, PGX_SYTRD_PANEL_LAUNCHES, PGX_SYTRD_PANEL_FUSED, PGX_SYTRD_PANEL_FUSED, PGX_SYTRD_PANEL_LAUNCHES, PGX_SYTRD_PANEL_LAUNCHES, PGX_SYTRD_PANEL_FUSED};

  PetscFunctionBegin;
  PetscCall(PetscMalloc6(n * n, &A, n * n, &Q, n * n, &B, n * n, &Z, n, &w, n, &wr));
  PetscCall(RandomHermitian(n, seed, A));
  PetscCall(PGXSytrdCreate(PGX_DEVICE_HOST, &R));
  PetscCall(PGXSytrdSetBlockSize(R, b));
  PetscCall(PGXSytrdSetMatrix(R, n, A, n));
  PetscCall(PGXSytrdReduce(R));
  PetscCall(PGXSytrdGetTridiagonal(R, &dr, &er));
  PetscCall(PGXSytrdSolve(R, wr, NULL, 0));
  for (PetscInt v = 0; v < 8; v++) {
    PetscReal     errt = 0, erra, errw = 0, tmax = 0, tol;
    PGXSytrdPanel used, want;
    PetscInt      blocks;
    PetscCall(PGXSytrdCreate(PGX_DEVICE_CUDA, &S));
    PetscCall(PGXSytrdSetBlockSize(S, b));
    PetscCall(PGXSytrdSetBackChunks(S, backchunks));
    PetscCall(PGXSytrdSetTridiagonalEigenMethod(S, tev));
    PetscCall(PGXSytrdSetSymv(S, v == 1 || v == 5 ? PGX_SYTRD_SYMV_FULL : PGX_SYTRD_SYMV_LOWER));
    PetscCall(PGXSytrdSetAblation(S, (PetscBool)(v != 2 && v != 5), (PetscBool)(v != 3 && v != 5), (PetscBool)(v != 4 && v != 5)));
    PetscCall(PGXSytrdSetPanel(S, v == 6 ? PGX_SYTRD_PANEL_LAUNCHES : PGX_SYTRD_PANEL_FUSED, v == 7 ? 1 : PETSC_DECIDE));
    PetscCall(PGXSytrdSetMatrix(S, n, A, n));
    PetscCall(PGXSytrdReduce(S));
    PetscCall(PGXSytrdGetPanel(S, &used, &blocks));
    want = expect[v]; /* real and complex alike */
    CHECK(used == want && (used == PGX_SYTRD_PANEL_FUSED) == (blocks > 0), "cuda %s: the %s panel ran (%d blocks), expected the %s one", names[v], PGXSytrdPanels[used], (int)blocks, PGXSytrdPanels[want]);
    PetscCall(PGXSytrdGetTridiagonal(S, &d, &e));
    /* T is determined by A only up to round-off amplified along the reduction (as in Lanczos): compare relative to
       max |T|; the backward-stability checks are Q T Q^H = A and the eigenvalues below */
    for (PetscInt i = 0; i < n; i++) tmax = PetscMax(tmax, PetscAbsReal(dr[i]));
    for (PetscInt i = 0; i < n - 1; i++) tmax = PetscMax(tmax, PetscAbsReal(er[i]));
    tol = 1e3 * PETSC_MACHINE_EPSILON * n * tmax;
    for (PetscInt i = 0; i < n; i++) errt = PetscMax(errt, PetscAbsReal(d[i] - dr[i]));
    for (PetscInt i = 0; i < n - 1; i++) errt = PetscMax(errt, PetscAbsReal(PetscAbsReal(e[i]) - PetscAbsReal(er[i])));
    CHECK(errt < tol, "cuda %s: |T| differs from the reference by %g (tol %g)", names[v], (double)errt, (double)tol);
    PetscCall(PGXSytrdFormQ(S, Q, n));
    PetscCall(QTQ(n, Q, d, e, B));
    erra = FrobDiff(n, n, A, B) / FrobDiff(n, n, A, NULL);
    CHECK(erra < 1e-13, "cuda %s: ||Q T Q^H - A||/||A|| = %g", names[v], (double)erra);
    PetscCall(PGXSytrdSolve(S, w, Z, n));
    for (PetscInt i = 0; i < n; i++) errw = PetscMax(errw, PetscAbsReal(w[i] - wr[i]));
    CHECK(errw < tol, "cuda %s: eigenvalues differ from the reference by %g", names[v], (double)errw);
    PetscCall(CheckEigen(names[v], n, A, w, Z));
    PetscCall(PGXSytrdDestroy(&S));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "cuda n=%d b=%d: T, Q T Q^H and eigenpairs agree with the reference for 8 variants (%s)\n", (int)n, (int)b, PetscDefined(USE_COMPLEX) ? "complex Hermitian" : "real symmetric"));
  PetscCall(PGXSytrdDestroy(&R));
  PetscCall(PetscFree6(A, Q, B, Z, w, wr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A random lower triangular G with a positive real diagonal in [1, 2] and strictly lower entries in [-1, 1] / n: B =
   G G^H is Hermitian positive definite and well conditioned, and its Cholesky factor is G itself */
static PetscErrorCode RandomFactor(PetscInt n, PetscInt seed, PetscScalar *G)
{
  PetscRandom r;

  PetscFunctionBegin;
  PetscCall(RandomStream(seed, &r));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar v;
      PetscCall(PetscRandomGetValue(r, &v));
      G[i + j * n] = i < j ? 0 : (i == j ? 1.5 + 0.5 * PetscRealPart(v) : v / (PetscReal)n);
    }
  PetscCall(PetscRandomDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C = G M G^H (n x n, all full squares) */
static void Congruence(PetscInt n, const PetscScalar *G, const PetscScalar *M, PetscScalar *T, PetscScalar *C)
{
  for (PetscInt j = 0; j < n; j++) /* T = M G^H */
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar s = 0;
      for (PetscInt k = 0; k <= j; k++) s += M[i + k * n] * PetscConj(G[j + k * n]);
      T[i + j * n] = s;
    }
  for (PetscInt j = 0; j < n; j++) /* C = G T */
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar s = 0;
      for (PetscInt k = 0; k <= i; k++) s += G[i + k * n] * T[k + j * n];
      C[i + j * n] = s;
    }
}

/* residual ||A X - B X L||_F / ((||A||_F + max|l| ||B||_F) ||X||_F) and B-orthonormality ||X^H B X - I||_F of the
   eigenpairs (w, X) of the pair (A, B) */
static PetscErrorCode CheckPair(const char *what, PetscInt n, const PetscScalar *A, const PetscScalar *B, const PetscReal *w, const PetscScalar *X)
{
  PetscReal    res = 0, orth = 0, wmax = 0, tol = 1e-12 * PetscSqrtReal((PetscReal)n);
  PetscScalar *BX;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n * n, &BX));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar s = 0;
      for (PetscInt k = 0; k < n; k++) s += B[i + k * n] * X[k + j * n];
      BX[i + j * n] = s;
    }
  for (PetscInt j = 0; j < n; j++) {
    wmax = PetscMax(wmax, PetscAbsReal(w[j]));
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar r = -w[j] * BX[i + j * n], o = i == j ? -1.0 : 0.0;
      for (PetscInt k = 0; k < n; k++) r += A[i + k * n] * X[k + j * n];
      for (PetscInt k = 0; k < n; k++) o += PetscConj(X[k + i * n]) * BX[k + j * n];
      res += PetscRealPart(r * PetscConj(r));
      orth += PetscRealPart(o * PetscConj(o));
    }
  }
  res  = PetscSqrtReal(res) / ((FrobDiff(n, n, A, NULL) + wmax * FrobDiff(n, n, B, NULL)) * FrobDiff(n, n, X, NULL));
  orth = PetscSqrtReal(orth);
  CHECK(res < tol, "%s: ||A X - B X L|| / ((||A|| + max|l| ||B||) ||X||) = %g > %g", what, (double)res, (double)tol);
  CHECK(orth < tol, "%s: ||X^H B X - I|| = %g > %g", what, (double)orth, (double)tol);
  PetscCall(PetscFree(BX));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Generalized problems A x = lambda B x on the backend of -pgx_device (default host; cuda also against the host):
   (1) A = G F G^H, B = G G^H with F Frank's matrix: the eigenvalues are Frank's (closed form, 1e-10 relative);
   (2) random Hermitian A, B = G G^H: residual and B-orthonormality < 1e-12 sqrt(n), B given densely and as CSR
   (the same eigenvalues bitwise on the host), eigenvalues-only equal to those with vectors; (3) B not positive
   definite (a negative diagonal entry at row n/2): PETSC_ERR_MAT_CH_ZRPVT naming the leading minor n/2 + 1, and the
   object left a standard problem with A unchanged (its eigenvalues those of A) */
static PetscErrorCode TestGeneralized(PetscInt n, PetscInt b, PetscInt seed)
{
  PetscScalar   *A, *B, *G, *T, *F, *X;
  PetscReal     *w, *w2, *wh, err = 0;
  PGXSytrd       S;
  PGXDeviceType  dev = PGX_DEVICE_HOST;
  PetscBool      flg;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-pgx_device", PGXDeviceTypes, (PetscEnum *)&dev, NULL));
  PetscCheck(dev == PGX_DEVICE_HOST || dev == PGX_DEVICE_CUDA, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mode generalized needs -pgx_device host or cuda");
  PetscCall(PetscMalloc6(n * n, &A, n * n, &B, n * n, &G, n * n, &T, n * n, &F, n * n, &X));
  PetscCall(PetscMalloc3(n, &w, n, &w2, n, &wh));
  PetscCall(RandomFactor(n, seed + 1, G));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) F[i + j * n] = i == j ? 1.0 : 0.0;
  Congruence(n, G, F, T, B); /* B = G G^H */
  /* (1) Frank through the congruence */
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) F[i + j * n] = (PetscScalar)(n - PetscMax(i, j));
  Congruence(n, G, F, T, A);
  PetscCall(PGXSytrdCreate(dev, &S));
  PetscCall(PGXSytrdSetCholeskySplit(S, cholsplit));
  PetscCall(PGXSytrdSetBlockSize(S, b));
  PetscCall(PGXSytrdSetTridiagonalEigenMethod(S, tev));
  PetscCall(PGXSytrdSetMatrix(S, n, A, n));
  PetscCall(PGXSytrdSetMatrixB(S, n, B, n));
  PetscCall(PGXSytrdIsGeneralized(S, &flg));
  CHECK(flg, "PGXSytrdIsGeneralized is false after PGXSytrdSetMatrixB");
  PetscCall(PGXSytrdSolve(S, w, X, n));
  for (PetscInt k = 1; k <= n; k++) {
    PetscReal lam = PGXFrankEigenvalue(n, k);
    err           = PetscMax(err, PetscAbsReal(w[n - k] - lam) / lam);
  }
  CHECK(err < 1e-10, "generalized Frank n=%d: max relative eigenvalue error %g", (int)n, (double)err);
  PetscCall(CheckPair("generalized Frank", n, A, B, w, X));
  PetscCall(PGXSytrdDestroy(&S));
  /* (2) random A, B dense and CSR */
  PetscCall(RandomHermitian(n, seed, A));
  PetscCall(PGXSytrdCreate(dev, &S));
  PetscCall(PGXSytrdSetCholeskySplit(S, cholsplit));
  PetscCall(PGXSytrdSetBlockSize(S, b));
  PetscCall(PGXSytrdSetTridiagonalEigenMethod(S, tev));
  PetscCall(PGXSytrdSetMatrix(S, n, A, n));
  PetscCall(PGXSytrdSetMatrixB(S, n, B, n));
  PetscCall(PGXSytrdSolve(S, w, X, n));
  PetscCall(CheckPair("generalized random", n, A, B, w, X));
  {
    PGXSytrdTimes t;
    PetscCall(PGXSytrdGetTimes(S, &t));
    CHECK(t.generalize > 0, "the generalized transformation's time is %g", (double)t.generalize);
  }
  PetscCall(PGXSytrdDestroy(&S));
  {
    PetscInt    *rp, *ci, nz = 0;
    PetscScalar *v;
    PetscCall(PetscMalloc3(n + 1, &rp, n * n, &ci, n * n, &v));
    rp[0] = 0;
    for (PetscInt i = 0; i < n; i++) { /* the lower triangle and some of the upper one (ignored), columns descending */
      for (PetscInt j = PetscMin(n - 1, i + 2); j >= 0; j--)
        if (B[i + j * n] != (PetscScalar)0 || j == i) ci[nz] = j, v[nz++] = j <= i ? B[i + j * n] : 1e3;
      rp[i + 1] = nz;
    }
    PetscCall(PGXSytrdCreate(dev, &S));
    PetscCall(PGXSytrdSetCholeskySplit(S, cholsplit));
  PetscCall(PGXSytrdSetCholeskySplit(S, cholsplit));
    PetscCall(PGXSytrdSetBlockSize(S, b));
    PetscCall(PGXSytrdSetTridiagonalEigenMethod(S, tev));
    PetscCall(PGXSytrdSetMatrix(S, n, A, n));
    PetscCall(PGXSytrdSetMatrixBCSR(S, n, rp, ci, v));
    PetscCall(PGXSytrdSolve(S, w2, T, n)); /* with vectors, as the dense run: the same eigensolver of T */
    err = 0;
    for (PetscInt i = 0; i < n; i++) err = PetscMax(err, PetscAbsReal(w[i] - w2[i]));
    CHECK(dev == PGX_DEVICE_HOST ? err == 0 : err < 1e-12 * n * PetscAbsReal(w[n - 1]), "B as CSR: eigenvalues differ from B dense by %g", (double)err);
    PetscCall(PGXSytrdDestroy(&S));
    PetscCall(PetscFree3(rp, ci, v));
  }
  if (dev == PGX_DEVICE_CUDA) { /* against the host */
    PetscCall(PGXSytrdCreate(PGX_DEVICE_HOST, &S));
    PetscCall(PGXSytrdSetBlockSize(S, b));
    PetscCall(PGXSytrdSetMatrix(S, n, A, n));
    PetscCall(PGXSytrdSetMatrixB(S, n, B, n));
    PetscCall(PGXSytrdSolve(S, wh, NULL, 0));
    PetscCall(PGXSytrdDestroy(&S));
    err = 0;
    for (PetscInt i = 0; i < n; i++) err = PetscMax(err, PetscAbsReal(w[i] - wh[i]));
    CHECK(err < 1e-12 * n * PetscAbsReal(w[n - 1]), "cuda: generalized eigenvalues differ from the reference by %g", (double)err);
  }
  /* (3) B not positive definite: the error, and nothing changed */
  if (n >= 2) {
    PetscErrorCode ierr;
    const PetscInt bad = n / 2;
    B[bad + bad * n] = -1.0;
    PetscCall(PGXSytrdCreate(dev, &S));
    PetscCall(PGXSytrdSetCholeskySplit(S, cholsplit));
  PetscCall(PGXSytrdSetCholeskySplit(S, cholsplit));
    PetscCall(PGXSytrdSetBlockSize(S, b));
    PetscCall(PGXSytrdSetMatrix(S, n, A, n));
    lastmsg[0] = 0;
    PetscCall(PetscPushErrorHandler(KeepMessage, NULL));
    ierr = PGXSytrdSetMatrixB(S, n, B, n);
    PetscCall(PetscPopErrorHandler());
    CHECK(ierr == PETSC_ERR_MAT_CH_ZRPVT, "B not positive definite: error %d, expected PETSC_ERR_MAT_CH_ZRPVT (%d)", (int)ierr, (int)PETSC_ERR_MAT_CH_ZRPVT);
    { /* the message names the first failing minor (on cuda: recorded by the diagonal block that fails, wherever the recursion put it) */
      char *found = NULL, want[64];
      PetscCall(PetscSNPrintf(want, sizeof(want), "leading minor of order %d of %d", (int)bad + 1, (int)n));
      PetscCall(PetscStrstr(lastmsg, want, &found));
      CHECK(found, "B not positive definite: the message \"%s\" does not say \"%s\"", lastmsg, want);
    }
    PetscCall(PGXSytrdIsGeneralized(S, &flg));
    CHECK(!flg, "PGXSytrdIsGeneralized is true after a failed PGXSytrdSetMatrixB");
    PetscCall(PGXSytrdSolve(S, w2, NULL, 0)); /* A's own eigenvalues: A was not changed */
    PetscCall(PGXSytrdDestroy(&S));
    PetscCall(PGXSytrdCreate(PGX_DEVICE_HOST, &S));
    PetscCall(PGXSytrdSetBlockSize(S, b));
    PetscCall(PGXSytrdSetMatrix(S, n, A, n));
    PetscCall(PGXSytrdSolve(S, wh, NULL, 0));
    PetscCall(PGXSytrdDestroy(&S));
    err = 0;
    for (PetscInt i = 0; i < n; i++) err = PetscMax(err, PetscAbsReal(wh[i] - w2[i]));
    CHECK(err < 1e-12 * n, "after the failed B, the eigenvalues differ from A's by %g", (double)err);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "B not positive definite (leading minor %d): PETSC_ERR_MAT_CH_ZRPVT, A unchanged\n", (int)bad + 1));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "generalized n=%d b=%d (%s): Frank's eigenvalues through G F G^H to 1e-10, residual and B-orthonormality < 1e-12 sqrt(n), B as CSR\n", (int)n, (int)b, PGXDeviceTypes[dev]));
  if (dev == PGX_DEVICE_CUDA) PetscCall(PetscPrintf(PETSC_COMM_SELF, "cuda Cholesky of B: recursive halves above order %d\n", (int)cholsplit));
  PetscCall(PetscFree6(A, B, G, T, F, X));
  PetscCall(PetscFree3(w, w2, wh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char     mode[32] = "hand";
  PetscInt n = 100, b = PGX_SYTRD_DEFAULT_BLOCK, seed = 7;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-b", &b, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-back_chunks", &backchunks, NULL)); /* cuda: PGXSytrdSetBackChunks */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-chol_split", &cholsplit, NULL));    /* cuda: PGXSytrdSetCholeskySplit */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-tridiag", PGXTridiagEigenMethods, (PetscEnum *)&tev, NULL));
  { /* PGXSytrdSetBackChunks / PGXSytrdGetBackChunks: the value set, and PETSC_DECIDE as the default */
    PGXSytrd S;
    PetscInt c;
    PetscCall(PGXSytrdCreate(PGX_DEVICE_HOST, &S));
    PetscCall(PGXSytrdGetBackChunks(S, &c));
    CHECK(c == PGX_SYTRD_DEFAULT_BACK_CHUNKS, "back-transformation chunks %d by default, expected %d", (int)c, PGX_SYTRD_DEFAULT_BACK_CHUNKS);
    PetscCall(PGXSytrdSetBackChunks(S, backchunks == 5 ? 6 : 5));
    PetscCall(PGXSytrdGetBackChunks(S, &c));
    CHECK(c == (backchunks == 5 ? 6 : 5), "back-transformation chunks %d after setting %d", (int)c, backchunks == 5 ? 6 : 5);
    PetscCall(PGXSytrdSetBackChunks(S, PETSC_DECIDE));
    PetscCall(PGXSytrdGetBackChunks(S, &c));
    CHECK(c == PGX_SYTRD_DEFAULT_BACK_CHUNKS, "back-transformation chunks %d after PETSC_DECIDE", (int)c);
    PetscCall(PGXSytrdGetCholeskySplit(S, &c)); /* PGXSytrdSetCholeskySplit / Get: the same contract */
    CHECK(c == PGX_SYTRD_DEFAULT_CHOL_SPLIT, "Cholesky split %d by default, expected %d", (int)c, PGX_SYTRD_DEFAULT_CHOL_SPLIT);
    PetscCall(PGXSytrdSetCholeskySplit(S, 77));
    PetscCall(PGXSytrdGetCholeskySplit(S, &c));
    CHECK(c == 77, "Cholesky split %d after setting 77", (int)c);
    PetscCall(PGXSytrdSetCholeskySplit(S, PETSC_DECIDE));
    PetscCall(PGXSytrdGetCholeskySplit(S, &c));
    CHECK(c == PGX_SYTRD_DEFAULT_CHOL_SPLIT, "Cholesky split %d after PETSC_DECIDE", (int)c);
    PetscCall(PGXSytrdDestroy(&S));
  }
  if (!strcmp(mode, "hand")) PetscCall(TestHand());
  else if (!strcmp(mode, "lapack")) PetscCall(TestLapack(n, b, seed));
  else if (!strcmp(mode, "frank")) PetscCall(TestFrank(n, b));
  else if (!strcmp(mode, "random")) PetscCall(TestRandom(n, b, seed));
  else if (!strcmp(mode, "cuda")) PetscCall(TestCuda(n, b, seed));
  else if (!strcmp(mode, "generalized")) PetscCall(TestGeneralized(n, b, seed));
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown -mode %s", mode);
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
