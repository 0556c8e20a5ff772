/* Tests of PCAIPS.

   -mode dense : PCApply and PCApplyTranspose equal the series computed with explicit dense P and R on a
                 small nonsymmetric matrix with cut tridiagonal blocks (orders 0..3, damping, thresholds);
                 -convert <mattype> converts the matrix first (aijcusparse: PCAIPS gathers P and R on the device)
   -mode ksp   : GMRES and BiCGStab iteration counts on aniso3d (strong direction first) for orders 0..3;
                 prints the table, checks convergence and that order >= 1 beats order 0
   -mode mpi   : (run on 2 ranks) the same GMRES solve on one rank (PETSC_COMM_SELF) and on all ranks gives
                 the same residual history and solution to round-off (the split falls between x-lines, so
                 P is the same; R goes through the parallel matrix)
   -mode pivot : a zero pivot gives PC_FACTOR_NUMERIC_ZEROPIVOT and KSP_DIVERGED_PC_FAILED, no NaN
   -mode format: PCAIPSSetRemainderFormat/GetRemainderFormat and -pc_aips_remainder_format (the default auto, the
                 option overriding a setter, an out-of-range value refused with its message)
   -mode cuda  : the cuda backend's PCApply and PGXPCApplyDevice equal the host backend's (needs a GPU), also after
                 new values with the same pattern (A -> 2A + I); -convert <mattype> converts the matrix first
                 (aijcusparse: the cuda PC gathers P and R from the device values); the cuda PC reads options with
                 the prefix d_ (-d_pc_aips_remainder_format csr|dia)
   Prints "all checks passed" when every check holds; exits non-zero otherwise. */
#include <pgx.h>
#include <pgx/gallery.h>
#include <pgx/private/pgximpl.h>
#include <petscksp.h>
#include <dlfcn.h>
#include "../common/pgxtest.h"

static PetscInt nfail = 0;

static unsigned long long rng = 88172645463325252ULL;
static double             Rand(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

typedef void (*GesvFn)(const PetscBLASInt *, const PetscBLASInt *, PetscScalar *, const PetscBLASInt *, PetscBLASInt *, PetscScalar *, const PetscBLASInt *, PetscBLASInt *);

/* x = M^{-1} b for a dense n x n column-major M (copied), by LAPACK dgesv (zgesv for complex scalars) found in the process */
static PetscErrorCode DenseSolve(PetscInt n, const PetscScalar *M, const PetscScalar *b, PetscScalar *x)
{
  static GesvFn gesv;
  PetscBLASInt  bn, one = 1, info, *ipiv;
  PetscScalar  *W;

  PetscFunctionBegin;
  if (!gesv) gesv = (GesvFn)dlsym(RTLD_DEFAULT, PetscDefined(USE_COMPLEX) ? "zgesv_" : "dgesv_");
  PetscCheck(gesv, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK %s not found in the process (dlsym)", PetscDefined(USE_COMPLEX) ? "zgesv_" : "dgesv_");
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscMalloc2(n * n, &W, n, &ipiv));
  PetscCall(PetscArraycpy(W, M, n * n));
  PetscCall(PetscArraycpy(x, b, n));
  gesv(&bn, &one, W, &bn, ipiv, x, &bn, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK gesv info %d", (int)info);
  PetscCall(PetscFree2(W, ipiv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A small nonsymmetric matrix: a diagonally dominant tridiagonal part cut into blocks at random rows
   (both couplings zero), plus a few random entries elsewhere (R). Dense copies of P and R (column-major). */
static PetscErrorCode SmallMatrix(PetscInt n, Mat *A, PetscScalar *P, PetscScalar *R)
{
  PetscFunctionBegin;
  PetscCall(PetscArrayzero(P, n * n));
  PetscCall(PetscArrayzero(R, n * n));
  for (PetscInt i = 0; i < n; i++) {
    P[i + i * n] = 3 + Rand();
    if (i < n - 1 && Rand() > 0.2) {
      P[i + (i + 1) * n] = 2 * Rand() - 1;
      P[(i + 1) + i * n] = 2 * Rand() - 1;
    }
    for (int e = 0; e < 3; e++) {
      PetscInt j = (PetscInt)(Rand() * n);
      if (j >= i - 1 && j <= i + 1) continue;
      R[i + j * n] = 0.6 * Rand() - 0.3;
    }
  }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 8, NULL, A));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscScalar v = P[i + j * n] + R[i + j * n];
      if (v != 0.0) PetscCall(MatSetValue(*A, i, j, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = omega sum_{k=0..N} (-P^{-1}R)^k P^{-1} r with dense P and R (trans: with P^T and R^T) */
static PetscErrorCode DenseSeries(PetscInt n, const PetscScalar *P, const PetscScalar *R, PetscBool trans, PetscInt N, PetscReal omega, const PetscScalar *r, PetscScalar *y)
{
  PetscScalar *Pt, *Rt, *y0, *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc4(n * n, &Pt, n * n, &Rt, n, &y0, n, &t));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      Pt[i + j * n] = trans ? P[j + i * n] : P[i + j * n];
      Rt[i + j * n] = trans ? R[j + i * n] : R[i + j * n];
    }
  PetscCall(DenseSolve(n, Pt, r, y0));
  PetscCall(PetscArraycpy(y, y0, n));
  for (PetscInt k = 0; k < N; k++) {
    PetscScalar *z;
    PetscCall(PetscMalloc1(n, &z));
    for (PetscInt i = 0; i < n; i++) {
      t[i] = 0;
      for (PetscInt j = 0; j < n; j++) t[i] += Rt[i + j * n] * y[j];
    }
    PetscCall(DenseSolve(n, Pt, t, z));
    for (PetscInt i = 0; i < n; i++) y[i] = y0[i] - z[i];
    PetscCall(PetscFree(z));
  }
  for (PetscInt i = 0; i < n; i++) y[i] *= omega;
  PetscCall(PetscFree4(Pt, Rt, y0, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestDense(void)
{
  const PetscInt n = 47;
  PetscScalar   *P, *R, *r, *ye;
  Mat            A;
  Vec            x, y;
  PC             pc;
  const PetscInt thrs[] = {128, 3};

  PetscFunctionBegin;
  PetscCall(PetscMalloc4(n * n, &P, n * n, &R, n, &r, n, &ye));
  PetscCall(SmallMatrix(n, &A, P, R));
  {
    char      mtype[64];
    PetscBool conv;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-convert", mtype, sizeof(mtype), &conv)); /* e.g. aijcusparse: A's values on the device */
    if (conv) PetscCall(MatConvert(A, mtype, MAT_INPLACE_MATRIX, &A));
  }
  PetscCall(MatCreateVecs(A, &x, &y));
  for (PetscInt i = 0; i < n; i++) r[i] = 2 * Rand() - 1;
  {
    PetscScalar *xa;
    PetscCall(VecGetArray(x, &xa));
    PetscCall(PetscArraycpy(xa, r, n));
    PetscCall(VecRestoreArray(x, &xa));
  }
  for (int t = 0; t < 2; t++)
    for (PetscInt N = 0; N <= 3; N++)
      for (int tr = 0; tr < 2; tr++) {
        const PetscReal    omega = N == 2 ? 0.8 : 1.0;
        const PetscScalar *ya;
        PetscReal          err = 0, nrm = 0;
        PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
        PetscCall(PCSetOperators(pc, A, A));
        PetscCall(PCSetType(pc, PCAIPS));
        PetscCall(PCSetFromOptions(pc));
        PetscCall(PCAIPSSetOrder(pc, N));
        PetscCall(PCAIPSSetDamping(pc, omega));
        PetscCall(PCAIPSSetBlockThreshold(pc, thrs[t]));
        PetscCall(PCSetUp(pc));
        PetscCall(VecSet(y, NAN));
        if (tr) PetscCall(PCApplyTranspose(pc, x, y));
        else PetscCall(PCApply(pc, x, y));
        PetscCall(DenseSeries(n, P, R, (PetscBool)tr, N, omega, r, ye));
        PetscCall(VecGetArrayRead(y, &ya));
        for (PetscInt i = 0; i < n; i++) {
          err = PetscMax(err, PetscAbsScalar(ya[i] - ye[i]));
          nrm = PetscMax(nrm, PetscAbsScalar(ye[i]));
          if (PetscIsInfOrNanScalar(ya[i])) err = PETSC_INFINITY;
        }
        PetscCall(VecRestoreArrayRead(y, &ya));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dense: threshold %d order %d damping %.1f %s: max error %.1e\n", (int)thrs[t], (int)N, (double)omega, tr ? "transpose" : "apply    ", (double)(err / nrm)));
        CHECK(err <= 1e-13 * nrm, "dense: order %d %s differs from the dense series by %g (norm %g)\n", (int)N, tr ? "transpose" : "apply", (double)err, (double)nrm);
        PetscCall(PCDestroy(&pc));
      }
  /* reuse: new values, same pattern (SAME_NONZERO_PATTERN): A -> 2A must halve the output */
  {
    Vec       y2;
    PetscReal err, nrm;
    PetscCall(VecDuplicate(y, &y2));
    PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetType(pc, PCAIPS));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(PCAIPSSetOrder(pc, 2));
    PetscCall(PCApply(pc, x, y));
    PetscCall(MatScale(A, 2.0));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCApply(pc, x, y2));
    PetscCall(VecScale(y2, 2.0));
    PetscCall(VecAXPY(y2, -1.0, y));
    PetscCall(VecNorm(y2, NORM_INFINITY, &err));
    PetscCall(VecNorm(y, NORM_INFINITY, &nrm));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dense: reuse after A -> 2A: error %.1e\n", (double)(err / nrm)));
    CHECK(err <= 1e-13 * nrm, "dense: reuse with SAME_NONZERO_PATTERN: 2 M(2A)^-1 differs from M(A)^-1 by %g\n", (double)err);
    PetscCall(VecDestroy(&y2));
    PetscCall(PCDestroy(&pc));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree4(P, R, r, ye));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solve A x = b (b = A 1) with KSP type and PCAIPS of the given order; returns iterations and reason */
static PetscErrorCode Solve(Mat A, KSPType type, PetscInt order, PetscInt *its, KSPConvergedReason *reason, PetscReal *hist, PetscInt *nhist, Vec *xout)
{
  KSP ksp;
  PC  pc;
  Vec x, b, one;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &one));
  PetscCall(VecSet(one, 1.0));
  PetscCall(MatMult(A, one, b));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCAIPS));
  PetscCall(PCAIPSSetOrder(pc, order));
  if (hist) PetscCall(KSPSetResidualHistory(ksp, hist, *nhist, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  if (hist) {
    const PetscReal *h;
    PetscCall(KSPGetResidualHistory(ksp, &h, nhist));
  }
  if (xout) *xout = x;
  else PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&one));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestKSP(PetscInt m)
{
  Mat            A;
  const KSPType  types[] = {KSPGMRES, KSPBCGS};
  PetscInt       its[2][4];

  PetscFunctionBegin;
  PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "aniso3d", m, &A));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "aniso3d m=%d: iterations to 1e-8\n  order   gmres  bcgs\n", (int)m));
  for (int t = 0; t < 2; t++)
    for (PetscInt N = 0; N <= 3; N++) {
      KSPConvergedReason reason;
      PetscCall(Solve(A, types[t], N, &its[t][N], &reason, NULL, NULL, NULL));
      CHECK(reason > 0, "ksp: %s with order %d did not converge (reason %s)\n", types[t], (int)N, KSPConvergedReasons[reason]);
    }
  for (PetscInt N = 0; N <= 3; N++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %5d   %5d %5d\n", (int)N, (int)its[0][N], (int)its[1][N]));
  for (int t = 0; t < 2; t++)
    for (PetscInt N = 1; N <= 3; N++) CHECK(its[t][N] < its[t][0], "ksp: %s order %d takes %d iterations, not fewer than order 0 (%d)\n", types[t], (int)N, (int)its[t][N], (int)its[t][0]);
  /* odd orders: the preconditioned spectrum 1 - lambda^(N+1) of this red-black-like coupling stays on one
     side of 1, so order 3 must not lose to order 1 (one iteration of round-off slack) */
  for (int t = 0; t < 2; t++) CHECK(its[t][3] <= its[t][1] + 1, "ksp: %s order 3 takes %d iterations, more than order 1 (%d)\n", types[t], (int)its[t][3], (int)its[t][1]);
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMPI(PetscInt m)
{
  PetscMPIInt        rank, size;
  Mat                A, As;
  PetscReal          hp[200], hs[200];
  PetscInt           np = 200, ns = 200, itp, its_;
  KSPConvergedReason rp, rs;
  Vec                xp, xs, x0;
  VecScatter         sc;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "convdiff3d", m, &A));
  {
    PetscInt lo, hi;
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    CHECK(lo % m == 0, "mpi: rank %d starts at row %d, inside an x-line: choose m so that the split falls between lines\n", rank, (int)lo);
  }
  PetscCall(Solve(A, KSPGMRES, 2, &itp, &rp, hp, &np, &xp));
  PetscCall(VecScatterCreateToZero(xp, &sc, &x0));
  PetscCall(VecScatterBegin(sc, xp, x0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, xp, x0, INSERT_VALUES, SCATTER_FORWARD));
  if (rank == 0) {
    PetscReal err, nrm;
    PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, "convdiff3d", m, &As));
    PetscCall(Solve(As, KSPGMRES, 2, &its_, &rs, hs, &ns, &xs));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "mpi: %d ranks: %d iterations; 1 rank: %d iterations\n", size, (int)itp, (int)its_));
    CHECK(rp > 0 && rs > 0 && itp == its_ && np == ns, "mpi: iterations differ: %d ranks %d (reason %d), 1 rank %d (reason %d)\n", size, (int)itp, (int)rp, (int)its_, (int)rs);
    for (PetscInt k = 0; k < PetscMin(np, ns); k++) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %2d %.10e %.10e\n", (int)k, (double)hp[k], (double)hs[k]));
      CHECK(PetscAbsReal(hp[k] - hs[k]) <= 1e-10 * hs[0], "mpi: residual %d differs: %.15e vs %.15e\n", (int)k, (double)hp[k], (double)hs[k]);
    }
    PetscCall(VecAXPY(x0, -1.0, xs));
    PetscCall(VecNorm(x0, NORM_INFINITY, &err));
    PetscCall(VecNorm(xs, NORM_INFINITY, &nrm));
    CHECK(err <= 1e-10 * nrm, "mpi: solutions differ by %g (norm %g)\n", (double)err, (double)nrm);
    PetscCall(VecDestroy(&xs));
    PetscCall(MatDestroy(&As));
  }
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&xp));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestPivot(void)
{
  Mat                A;
  KSP                ksp;
  PC                 pc;
  Vec                x, b;
  KSPConvergedReason reason;
  PCFailedReason     pcr;
  const PetscInt     n = 50;

  PetscFunctionBegin;
  /* a tridiagonal block [1 1 ; 1 1] at rows 20, 21 (cut from its neighbours): its second pivot is 1 - 1 = 0 */
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 4, NULL, &A));
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(MatSetValue(A, i, i, (i == 20 || i == 21) ? 1.0 : 4.0, INSERT_VALUES));
    if (i < n - 1 && i != 19 && i != 21) PetscCall(MatSetValue(A, i, i + 1, 1.0, INSERT_VALUES));
    if (i && i != 20 && i != 22) PetscCall(MatSetValue(A, i, i - 1, 1.0, INSERT_VALUES));
    if (i + 5 < n) PetscCall(MatSetValue(A, i, i + 5, 0.1, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCAIPS));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PCGetFailedReason(pc, &pcr));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pivot: KSP reason %s, PC failed reason %s\n", KSPConvergedReasons[reason], PCFailedReasons[pcr]));
  CHECK(reason == KSP_DIVERGED_PC_FAILED, "pivot: KSP reason %s, expected DIVERGED_PC_FAILED\n", KSPConvergedReasons[reason]);
  CHECK(pcr == PC_FACTOR_NUMERIC_ZEROPIVOT, "pivot: PC failed reason %s, expected FACTOR_NUMERIC_ZEROPIVOT\n", PCFailedReasons[pcr]);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix whose R dominates P: rho(P^-1 R) > 1, PCView must warn */
static PetscErrorCode TestRadius(void)
{
  const PetscInt n = 40;
  PetscScalar   *P, *R;
  Mat            A;
  PC             pc;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n * n, &P, n * n, &R));
  PetscCall(PetscArrayzero(P, n * n));
  PetscCall(PetscArrayzero(R, n * n));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 4, NULL, &A));
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(MatSetValue(A, i, i, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, (i + n / 2) % n, 3.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCAIPS));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree2(P, R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The remainder format's setter, getter and option (host: the format only matters to the cuda backend) */
static PetscErrorCode TestFormat(void)
{
  PC                    pc;
  PCAIPSRemainderFormat fmt;
  PetscErrorCode        ierr;

  PetscFunctionBegin;
  PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
  PetscCall(PCSetType(pc, PCAIPS));
  PetscCall(PCAIPSGetRemainderFormat(pc, &fmt));
  CHECK(fmt == PC_AIPS_REMAINDER_AUTO, "format: default %s, expected auto\n", PCAIPSRemainderFormats[fmt]);
  PetscCall(PCAIPSSetRemainderFormat(pc, PC_AIPS_REMAINDER_DIA));
  PetscCall(PCAIPSGetRemainderFormat(pc, &fmt));
  CHECK(fmt == PC_AIPS_REMAINDER_DIA, "format: set dia, got %s\n", PCAIPSRemainderFormats[fmt]);
  PetscCall(PetscOptionsSetValue(NULL, "-pc_aips_remainder_format", "csr"));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_aips_remainder_format"));
  PetscCall(PCAIPSGetRemainderFormat(pc, &fmt));
  CHECK(fmt == PC_AIPS_REMAINDER_CSR, "format: -pc_aips_remainder_format csr, got %s\n", PCAIPSRemainderFormats[fmt]);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PCAIPSSetRemainderFormat(pc, (PCAIPSRemainderFormat)3);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "format: value 3 gave error %d, expected PETSC_ERR_ARG_OUTOFRANGE\n", (int)ierr);
  PetscCall(PCAIPSGetRemainderFormat(pc, &fmt));
  CHECK(fmt == PC_AIPS_REMAINDER_CSR, "format: a refused value changed the format to %d\n", (int)fmt);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "format: default auto, setter, option and refusal of 3 (error %d) as expected\n", (int)ierr));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if PGX_HAVE_CUDA
/* PCApply on the host and on cuda, and PGXPCApplyDevice, on convdiff3d of an awkward size */
static PetscErrorCode TestCUDA(PetscInt m)
{
  Mat            A;
  Vec            x, yh, yd;
  PetscRandom    rnd;
  const PetscInt thrs[] = {128, 5};

  PetscFunctionBegin;
  PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, "convdiff3d", m, &A));
  {
    char      mtype[64];
    PetscBool conv;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-convert", mtype, sizeof(mtype), &conv)); /* aijcusparse: A's values on the device */
    if (conv) PetscCall(MatConvert(A, mtype, MAT_INPLACE_MATRIX, &A));
  }
#if defined(PETSC_USE_COMPLEX)
  /* complex entries: (0.8 + 0.6i) A + 0.5i I (P and R complex, P still dominant) */
  PetscCall(MatScale(A, 0.8 + 0.6 * PETSC_i));
  PetscCall(MatShift(A, 0.5 * PETSC_i));
#endif
  PetscCall(MatCreateVecs(A, &x, &yh));
  PetscCall(VecDuplicate(yh, &yd));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  for (int t = 0; t < 2; t++)
    for (PetscInt N = 0; N <= 3; N++) {
      PC        ph, pd;
      PetscReal err, nrm, errdev;
      PetscInt  n;
      PetscCall(PCCreate(PETSC_COMM_SELF, &ph));
      PetscCall(PCCreate(PETSC_COMM_SELF, &pd));
      PetscCall(PCSetOperators(ph, A, A));
      PetscCall(PCSetOperators(pd, A, A));
      PetscCall(PCSetType(ph, PCAIPS));
      PetscCall(PCSetType(pd, PCAIPS));
      PetscCall(PCSetOptionsPrefix(ph, "h_"));
      PetscCall(PCSetOptionsPrefix(pd, "d_"));
      PetscCall(PetscOptionsSetValue(NULL, "-h_pgx_device", "host"));
      PetscCall(PetscOptionsSetValue(NULL, "-d_pgx_device", "cuda"));
      PetscCall(PCSetFromOptions(ph));
      PetscCall(PCSetFromOptions(pd));
      PetscCall(PCAIPSSetOrder(ph, N));
      PetscCall(PCAIPSSetOrder(pd, N));
      PetscCall(PCAIPSSetBlockThreshold(ph, thrs[t]));
      PetscCall(PCAIPSSetBlockThreshold(pd, thrs[t]));
      PetscCall(PCAIPSSetDamping(ph, 0.9));
      PetscCall(PCAIPSSetDamping(pd, 0.9));
      PetscCall(VecSet(yh, NAN));
      PetscCall(VecSet(yd, -1.0));
      PetscCall(PCApply(ph, x, yh));
      PetscCall(PCApply(pd, x, yd));
      PetscCall(VecNorm(yh, NORM_INFINITY, &nrm));
      PetscCall(VecAXPY(yd, -1.0, yh));
      PetscCall(VecNorm(yd, NORM_INFINITY, &err));
      /* the device-array entry point */
      {
        const PetscScalar *xa;
        PetscScalar       *d_x, *d_y, *ya;
        PetscCall(VecGetLocalSize(x, &n));
        PetscCall(PGXDeviceMallocArray(n, &d_x));
        PetscCall(PGXDeviceMallocArray(n, &d_y));
        PetscCall(PGXDeviceMemset(d_y, 0xff, n * sizeof(PetscScalar)));
        PetscCall(VecGetArrayRead(x, &xa));
        PetscCall(PGXDeviceCopyArrayToDevice(d_x, xa, n));
        PetscCall(VecRestoreArrayRead(x, &xa));
        PetscCall(PGXPCApplyDevice(pd, d_x, d_y));
        PetscCall(VecGetArrayWrite(yd, &ya));
        PetscCall(PGXDeviceCopyArrayToHost(ya, d_y, n));
        PetscCall(PGXDeviceSynchronize());
        PetscCall(VecRestoreArrayWrite(yd, &ya));
        PetscCall(PGXDeviceFree(&d_x));
        PetscCall(PGXDeviceFree(&d_y));
        PetscCall(VecAXPY(yd, -1.0, yh));
        PetscCall(VecNorm(yd, NORM_INFINITY, &errdev));
      }
      /* the transpose (staged through the device, MatMultTranspose on the host) */
      {
        PetscReal errt, nrmt;
        PetscCall(VecSet(yh, NAN));
        PetscCall(VecSet(yd, -1.0));
        PetscCall(PCApplyTranspose(ph, x, yh));
        PetscCall(PCApplyTranspose(pd, x, yd));
        PetscCall(VecNorm(yh, NORM_INFINITY, &nrmt));
        PetscCall(VecAXPY(yd, -1.0, yh));
        PetscCall(VecNorm(yd, NORM_INFINITY, &errt));
        CHECK(errt <= 1e-12 * nrmt, "cuda: order %d threshold %d: transpose differs from host by %g (norm %g)\n", (int)N, (int)thrs[t], (double)errt, (double)nrmt);
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cuda: n %d threshold %d order %d: |PCApply cuda - host| %.1e, |PGXPCApplyDevice - host| %.1e (|y| %.1e)\n", (int)n, (int)thrs[t], (int)N, (double)err, (double)errdev, (double)nrm));
      CHECK(err <= 1e-12 * nrm && errdev <= 1e-12 * nrm, "cuda: order %d threshold %d: cuda differs from host by %g / %g (norm %g)\n", (int)N, (int)thrs[t], (double)err, (double)errdev, (double)nrm);
      PetscCall(PCDestroy(&ph));
      PetscCall(PCDestroy(&pd));
    }
  /* new values, same pattern (SAME_NONZERO_PATTERN): A -> 2A + I; the cuda PC refreshes R (CSR or DIA) from the new
     values and must again equal the host PC */
  {
    PC        ph, pd;
    PetscReal err[2], nrm[2];
    PetscCall(PCCreate(PETSC_COMM_SELF, &ph));
    PetscCall(PCCreate(PETSC_COMM_SELF, &pd));
    PetscCall(PCSetType(ph, PCAIPS));
    PetscCall(PCSetType(pd, PCAIPS));
    PetscCall(PCSetOptionsPrefix(ph, "h_"));
    PetscCall(PCSetOptionsPrefix(pd, "d_"));
    PetscCall(PCSetFromOptions(ph));
    PetscCall(PCSetFromOptions(pd));
    for (int r = 0; r < 2; r++) {
      if (r) {
        PetscCall(MatScale(A, 2.0));
        PetscCall(MatShift(A, 1.0));
      }
      PetscCall(PCSetOperators(ph, A, A));
      PetscCall(PCSetOperators(pd, A, A));
      PetscCall(VecSet(yh, NAN));
      PetscCall(VecSet(yd, -1.0));
      PetscCall(PCApply(ph, x, yh));
      PetscCall(PCApply(pd, x, yd));
      PetscCall(VecNorm(yh, NORM_INFINITY, &nrm[r]));
      PetscCall(VecAXPY(yd, -1.0, yh));
      PetscCall(VecNorm(yd, NORM_INFINITY, &err[r]));
    }
    PetscCall(PCView(pd, PETSC_VIEWER_STDOUT_SELF));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cuda: refresh A -> 2A + I: |PCApply cuda - host| %.1e before, %.1e after (|y| %.1e, %.1e)\n", (double)err[0], (double)err[1], (double)nrm[0], (double)nrm[1]));
    CHECK(err[0] <= 1e-12 * nrm[0] && err[1] <= 1e-12 * nrm[1], "cuda: refresh: cuda differs from host by %g before, %g after new values (norms %g, %g)\n", (double)err[0], (double)err[1], (double)nrm[0], (double)nrm[1]);
    PetscCall(PCDestroy(&ph));
    PetscCall(PCDestroy(&pd));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&yd));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

int main(int argc, char **argv)
{
  char     mode[32] = "dense";
  PetscInt m        = 16;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  if (!strcmp(mode, "dense")) PetscCall(TestDense());
  else if (!strcmp(mode, "ksp")) PetscCall(TestKSP(m));
  else if (!strcmp(mode, "mpi")) PetscCall(TestMPI(m));
  else if (!strcmp(mode, "pivot")) PetscCall(TestPivot());
  else if (!strcmp(mode, "radius")) PetscCall(TestRadius());
  else if (!strcmp(mode, "format")) PetscCall(TestFormat());
  else if (!strcmp(mode, "cuda")) {
#if PGX_HAVE_CUDA
    PetscCall(TestCUDA(m));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "-mode cuda needs PGX built with CUDA");
#endif
  } else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown -mode %s", mode);
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
