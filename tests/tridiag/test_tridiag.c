/* Tests of the batched tridiagonal solver (include/pgx/tridiag.h).

   -mode hand   : 5x5 hand-checked system (blocks of 2 and 3), with and without partitions, and the epilogue
   -mode dense  : random diagonally dominant blocks of mixed sizes (size-1 blocks included, one block of
                  -big rows) against LAPACK's dense gesv per block (the big block: residual and a textbook
                  Thomas solve), for several thresholds (partitions and recursion)
   -mode pivot  : a zero pivot (and a NaN) is reported with its block and row (-pivot_cuda: also by the factorization
                  from P on the device, PGXTridiagSetUpNumericDevice())
   -mode dia    : PGXTridiagSolveDIA() (y = alpha P^{-1} (B x) + beta w, B in DIA) against B x formed here and
                  PGXTridiagSolve(), offsets that reach past both ends, several thresholds; its argument checks
   -mode cuda   : the cuda backend equals the reference on the same random input to 1e-12 (needs a GPU); so does
                  PGXTridiagSolveDIA(), fused into one pass in the tiled layout without long blocks (and there
                  equal to the cuda product followed by the cuda solve); so do the factors formed from P on the
                  device (PGXTridiagSetUpNumericDevice(): there in the tiled layout without long blocks)
   Prints "all checks passed" when every check holds; exits non-zero otherwise. */
#include <pgx/tridiag.h>
#include <pgx/private/pgximpl.h>
#include <petscblaslapack.h>
#include "../common/pgxtest.h"

/* the layout every solver of the run is built with (main runs each mode for both layouts) */
static PGXTridiagLayout layout = PGX_TRIDIAG_LAYOUT_INTERLEAVED;

static PetscInt nfail = 0;

static unsigned long long rng = 88172645463325252ULL;
static double             Rand(void) /* uniform in [0,1) (xorshift64) */
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* uniform in [-1,1), and with complex scalars an imaginary part in [-1,1) too */
static PetscScalar RandScalar(void)
{
  PetscScalar v = 2 * Rand() - 1;
#if defined(PETSC_USE_COMPLEX)
  v += PETSC_i * (2 * Rand() - 1);
#endif
  return v;
}

/* Random blocks (complex entries with complex scalars): sizes from 1..maxsize (a third of them size 1), plus one block of 'big' rows in the middle */
static PetscErrorCode RandomSystem(PetscInt nb, PetscInt maxsize, PetscInt big, PetscInt **offsets, PetscScalar **dl, PetscScalar **d, PetscScalar **du, PetscScalar **r, PetscInt *n)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nb + 1, offsets));
  (*offsets)[0] = 0;
  for (PetscInt b = 0; b < nb; b++) {
    PetscInt s = Rand() < 0.33 ? 1 : 1 + (PetscInt)(Rand() * maxsize);
    if (big && b == nb / 2) s = big;
    (*offsets)[b + 1] = (*offsets)[b] + s;
  }
  *n = (*offsets)[nb];
  PetscCall(PetscMalloc4(*n, dl, *n, d, *n, du, *n, r));
  for (PetscInt i = 0; i < *n; i++) {
    (*dl)[i] = RandScalar();
    (*du)[i] = RandScalar();
    (*d)[i]  = (Rand() < 0.5 ? -1 : 1) * (PetscAbsScalar((*dl)[i]) + PetscAbsScalar((*du)[i]) + 0.1 + Rand());
#if defined(PETSC_USE_COMPLEX)
    { /* a unit phase keeps the dominance */
      const PetscReal th = 6.283185307179586 * Rand();
      (*d)[i] *= PetscCosReal(th) + PETSC_i * PetscSinReal(th);
    }
#endif
    (*r)[i] = RandScalar();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Build(PGXDeviceType type, PetscInt thr, PetscInt nb, const PetscInt *off, const PetscScalar *dl, const PetscScalar *d, const PetscScalar *du, PGXTridiag *T, PGXTridiagPivotInfo *info)
{
  PetscFunctionBegin;
  PetscCall(PGXTridiagCreate(type, T));
  PetscCall(PGXTridiagSetLayout(*T, layout));
  if (thr) PetscCall(PGXTridiagSetThreshold(*T, thr));
  PetscCall(PGXTridiagSetUpSymbolic(*T, nb, off));
  PetscCall(PGXTridiagSetUpNumeric(*T, dl, d, du, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestHand(void)
{
  /* block 0: [2 1; 1 2] y = [3 3] -> y = [1 1]; block 1: [4 1 0; 1 4 1; 0 1 4] y = [6 12 14] -> y = [1 2 3]
     (entries across the cut, dl[2] and du[1], are garbage and must be ignored) */
  const PetscInt    off[] = {0, 2, 5};
  const PetscScalar dl[] = {99, 1, 77, 1, 1}, d[] = {2, 2, 4, 4, 4}, du[] = {1, 55, 1, 1, 99};
  const PetscScalar r[] = {3, 3, 6, 12, 14}, ex[] = {1, 1, 1, 2, 3}, w[] = {1, 2, 3, 4, 5};
  const PetscInt    thrs[] = {0, 2};

  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    PGXTridiag          T;
    PGXTridiagPivotInfo info;
    PGXTridiagInfo      ti;
    PetscScalar         y[5];
    PetscCall(Build(PGX_DEVICE_HOST, thrs[t], 2, off, dl, d, du, &T, &info));
    CHECK(!info.failed, "hand: unexpected pivot failure\n");
    PetscCall(PGXTridiagGetInfo(T, &ti));
    CHECK(ti.nblocks == 2 && ti.minsize == 2 && ti.maxsize == 3 && ti.nlong == (thrs[t] ? 1 : 0), "hand: info nblocks %d min %d max %d nlong %d\n", (int)ti.nblocks, (int)ti.minsize, (int)ti.maxsize, (int)ti.nlong);
    for (int i = 0; i < 5; i++) y[i] = NAN;
    PetscCall(PGXTridiagSolve(T, 1.0, r, 0.0, NULL, y));
    for (int i = 0; i < 5; i++) CHECK(PetscAbsScalar(y[i] - ex[i]) < 1e-14, "hand (threshold %d): y[%d] = %g, expected %g\n", (int)thrs[t], i, (double)y[i], (double)ex[i]);
    /* epilogue: y = -2 P^-1 r + 0.5 w */
    PetscCall(PGXTridiagSolve(T, -2.0, r, 0.5, w, y));
    for (int i = 0; i < 5; i++) CHECK(PetscAbsScalar(y[i] - (-2 * ex[i] + 0.5 * w[i])) < 1e-14, "hand epilogue (threshold %d): y[%d] = %g, expected %g\n", (int)thrs[t], i, (double)y[i], (double)(-2 * ex[i] + 0.5 * w[i]));
    PetscCall(PGXTridiagDestroy(&T));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = P^-1 r for one block by LAPACK dense gesv */
static PetscErrorCode DenseSolve(PetscInt s, const PetscScalar *dl, const PetscScalar *d, const PetscScalar *du, const PetscScalar *r, PetscScalar *x, PetscScalar *A)
{
  PetscBLASInt n, one = 1, lda, info, *ipiv;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(s, &n));
  lda = n;
  PetscCall(PetscMalloc1(s, &ipiv));
  for (PetscInt i = 0; i < s * s; i++) A[i] = 0;
  for (PetscInt i = 0; i < s; i++) { /* column-major */
    A[i + i * s] = d[i];
    if (i) A[i + (i - 1) * s] = dl[i];
    if (i < s - 1) A[i + (i + 1) * s] = du[i];
    x[i] = r[i];
  }
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&n, &one, A, &lda, ipiv, x, &n, &info));
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK gesv info %d", (int)info);
  PetscCall(PetscFree(ipiv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestDense(PetscInt nb, PetscInt maxsize, PetscInt big)
{
  PetscInt       *off, n = 0;
  PetscScalar    *dl, *d, *du, *r, *y, *x, *A, *cp, *z;
  const PetscInt  thrs[] = {0, 2, 7, 33, 1000};
  PetscReal       eps    = PETSC_MACHINE_EPSILON;

  PetscFunctionBegin;
  PetscCall(RandomSystem(nb, maxsize, big, &off, &dl, &d, &du, &r, &n));
  PetscCall(PetscMalloc2(n, &y, n, &x));
  PetscCall(PetscMalloc1(maxsize * maxsize, &A));
  /* reference answer: dense LAPACK per block up to maxsize rows; textbook Thomas for the big block */
  for (PetscInt b = 0; b < nb; b++) {
    const PetscInt st = off[b], s = off[b + 1] - off[b];
    if (s <= maxsize) PetscCall(DenseSolve(s, dl + st, d + st, du + st, r + st, x + st, A));
    else {
      PetscCall(PetscMalloc2(s, &cp, s, &z));
      cp[0] = du[st] / d[st];
      z[0]  = r[st] / d[st];
      for (PetscInt k = 1; k < s; k++) {
        PetscScalar m = d[st + k] - dl[st + k] * cp[k - 1];
        cp[k]         = du[st + k] / m;
        z[k]          = (r[st + k] - dl[st + k] * z[k - 1]) / m;
      }
      x[st + s - 1] = z[s - 1];
      for (PetscInt k = s - 2; k >= 0; k--) x[st + k] = z[k] - cp[k] * x[st + k + 1];
      PetscCall(PetscFree2(cp, z));
    }
  }
  for (size_t t = 0; t < sizeof(thrs) / sizeof(thrs[0]); t++) {
    PGXTridiag          T;
    PGXTridiagPivotInfo info;
    PGXTridiagInfo      ti;
    PetscReal           err = 0, res = 0, rnorm = 0;
    PetscCall(Build(PGX_DEVICE_HOST, thrs[t], nb, off, dl, d, du, &T, &info));
    CHECK(!info.failed, "dense: pivot failure at block %d row %d\n", (int)info.block, (int)info.row);
    PetscCall(PGXTridiagGetInfo(T, &ti));
    for (PetscInt i = 0; i < n; i++) y[i] = NAN;
    PetscCall(PGXTridiagSolve(T, 1.0, r, 0.0, NULL, y));
    for (PetscInt b = 0; b < nb; b++) {
      for (PetscInt i = off[b]; i < off[b + 1]; i++) {
        PetscScalar ri = d[i] * y[i] - r[i];
        if (i > off[b]) ri += dl[i] * y[i - 1];
        if (i < off[b + 1] - 1) ri += du[i] * y[i + 1];
        res   = PetscMax(res, PetscAbsScalar(ri));
        rnorm = PetscMax(rnorm, PetscAbsScalar(r[i]));
        err   = PetscMax(err, PetscAbsScalar(y[i] - x[i]) / (1 + PetscAbsScalar(x[i])));
        if (PetscIsInfOrNanScalar(y[i])) err = PETSC_INFINITY;
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "dense (%s): n %d blocks %d (sizes %d..%d) threshold %d: %d groups, %d long, %d levels; error %.1e residual %.1e\n", PGXTridiagLayouts[layout], (int)n, (int)nb, (int)ti.minsize, (int)ti.maxsize, (int)ti.threshold, (int)ti.ngroups, (int)ti.nlong, (int)ti.nlevels, (double)err, (double)res));
    CHECK(err < 1e3 * eps, "dense (threshold %d): max relative error vs LAPACK %g > 1e3 eps\n", (int)ti.threshold, (double)err);
    CHECK(res < 1e3 * eps * rnorm, "dense (threshold %d): max residual %g\n", (int)ti.threshold, (double)res);
    PetscCall(PGXTridiagDestroy(&T));
  }
  PetscCall(PetscFree(A));
  PetscCall(PetscFree2(y, x));
  PetscCall(PetscFree4(dl, d, du, r));
  PetscCall(PetscFree(off));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool pivotcuda = PETSC_FALSE; /* -pivot_cuda: TestPivot also runs PGXTridiagSetUpNumericDevice() (needs a GPU) */

static PetscErrorCode TestPivot(void)
{
  /* blocks of sizes 1, 3, 2, 6; block 3's second pivot is 0 (d = 1 - 1*1); then a NaN on block 2 */
  const PetscInt off[] = {0, 1, 4, 6, 12};
  PetscScalar    dl[12], d[12], du[12];
  const PetscInt thrs[] = {0, 2};

  PetscFunctionBegin;
  for (int i = 0; i < 12; i++) {
    dl[i] = 1;
    du[i] = 1;
    d[i]  = 4;
  }
  d[6] = 1;
  d[7] = 1; /* pivot 2 of block 3: 1 - 1*(1/1) = 0 at row 7 */
  for (int t = 0; t < 2; t++) {
    PGXTridiag          T;
    PGXTridiagPivotInfo info;
    PetscCall(Build(PGX_DEVICE_HOST, thrs[t], 4, off, dl, d, du, &T, &info));
    if (!thrs[t]) CHECK(info.failed && info.block == 3 && info.row == 7, "pivot: expected failure at block 3 row 7, got failed %d block %d row %d\n", (int)info.failed, (int)info.block, (int)info.row);
    else CHECK(info.failed && info.block == 3, "pivot (threshold 2): expected failure in block 3, got failed %d block %d row %d\n", (int)info.failed, (int)info.block, (int)info.row);
    PetscCall(PGXTridiagDestroy(&T));
  }
  d[6] = 4;
  d[7] = 4;
  d[5] = NAN;
  {
    PGXTridiag          T;
    PGXTridiagPivotInfo info;
    PetscCall(Build(PGX_DEVICE_HOST, 0, 4, off, dl, d, du, &T, &info));
    CHECK(info.failed && info.block == 2 && info.row == 5, "pivot: expected NaN failure at block 2 row 5, got failed %d block %d row %d\n", (int)info.failed, (int)info.block, (int)info.row);
    PetscCall(PGXTridiagDestroy(&T));
  }
  if (pivotcuda) { /* the factors from P on the device: the same reports (the zero pivot, then the NaN), and then a good P */
  #if PGX_HAVE_CUDA
    PetscScalar *d_p;
    PetscCall(PGXDeviceMallocArray(36, &d_p));
    for (int c = 0; c < 3; c++) {
      PGXTridiag          T;
      PGXTridiagPivotInfo info;
      PGXTridiagInfo      ti;
      d[5] = c == 1 ? NAN : 4;
      d[6] = c == 0 ? 1 : 4;
      d[7] = c == 0 ? 1 : 4;
      PetscCall(PGXDeviceCopyArrayToDevice(d_p, dl, 12));
      PetscCall(PGXDeviceCopyArrayToDevice(d_p + 12, d, 12));
      PetscCall(PGXDeviceCopyArrayToDevice(d_p + 24, du, 12));
      PetscCall(PGXTridiagCreate(PGX_DEVICE_CUDA, &T));
      PetscCall(PGXTridiagSetLayout(T, layout));
      PetscCall(PGXTridiagSetUpSymbolic(T, 4, off));
      PetscCall(PGXTridiagSetUpNumericDevice(T, d_p, d_p + 12, d_p + 24, &info));
      PetscCall(PGXTridiagGetInfo(T, &ti));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "pivot (cuda, %s, from P on the device): failed %d block %d row %d, factored on the device %d\n", PGXTridiagLayouts[layout], (int)info.failed, (int)info.block, (int)info.row, (int)ti.numdevice));
      if (c == 0) CHECK(info.failed && info.block == 3 && info.row == 7 && !ti.numdevice, "pivot (cuda): expected failure at block 3 row 7 through the host\n");
      if (c == 1) CHECK(info.failed && info.block == 2 && info.row == 5 && !ti.numdevice, "pivot (cuda): expected NaN failure at block 2 row 5 through the host\n");
      if (c == 2) CHECK(!info.failed && ti.numdevice == (PetscBool)(layout == PGX_TRIDIAG_LAYOUT_TILED), "pivot (cuda): a good P factored on the device in the tiled layout\n");
      PetscCall(PGXTridiagDestroy(&T));
    }
    PetscCall(PGXDeviceFree(&d_p));
  #endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A random DIA matrix B of n rows on the offsets off[] (values zero where row + off is outside [0, n), as pgxdia.h
   stores them) and B x formed the way its contract says (increasing d) */
static const PetscInt diaoff[] = {-1001, -37, -1, 2, 40, 999};
#define NDIAOFF ((PetscInt)(sizeof(diaoff) / sizeof(diaoff[0])))
static PetscErrorCode RandomDIA(PetscInt n, PetscScalar **val, PetscScalar **x, PetscScalar **bx)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc3(NDIAOFF * n, val, n, x, n, bx));
  for (PetscInt d = 0; d < NDIAOFF; d++)
    for (PetscInt i = 0; i < n; i++) (*val)[d * n + i] = i + diaoff[d] >= 0 && i + diaoff[d] < n ? RandScalar() : 0.0;
  for (PetscInt i = 0; i < n; i++) (*x)[i] = RandScalar();
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = 0;
    for (PetscInt d = 0; d < NDIAOFF; d++)
      if (i + diaoff[d] >= 0 && i + diaoff[d] < n) s += (*val)[d * n + i] * (*x)[i + diaoff[d]];
    (*bx)[i] = s;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestDIA(PetscInt nb, PetscInt maxsize, PetscInt big)
{
  PetscInt       *off, n = 0;
  PetscScalar    *dl, *d, *du, *r, *w, *val, *x, *bx, *t, *y1, *y2;
  const PetscInt  thrs[] = {0, 7, 1000};

  PetscFunctionBegin;
  PetscCall(RandomSystem(nb, maxsize, big, &off, &dl, &d, &du, &r, &n));
  PetscCall(RandomDIA(n, &val, &x, &bx));
  PetscCall(PetscMalloc4(n, &w, n, &t, n, &y1, n, &y2));
  for (PetscInt i = 0; i < n; i++) w[i] = RandScalar();
  for (size_t k = 0; k < sizeof(thrs) / sizeof(thrs[0]); k++) {
    PGXTridiag          T;
    PGXTridiagPivotInfo info;
    PetscBool           fused = PETSC_TRUE;
    PetscReal           err = 0, ynorm = 0;
    PetscScalar         alpha = -0.7, beta = 0.3;
    PetscCall(Build(PGX_DEVICE_HOST, thrs[k], nb, off, dl, d, du, &T, &info));
    CHECK(!info.failed, "dia: pivot failure\n");
    PetscCall(PGXTridiagSolve(T, alpha, bx, beta, w, y1));
    for (PetscInt i = 0; i < n; i++) y2[i] = NAN;
    PetscCall(PGXTridiagSolveDIA(T, alpha, NDIAOFF, diaoff, val, x, beta, w, t, y2, &fused));
    for (PetscInt i = 0; i < n; i++) {
      err   = PetscMax(err, PetscIsInfOrNanScalar(y2[i]) ? PETSC_INFINITY : PetscAbsScalar(y2[i] - y1[i]));
      ynorm = PetscMax(ynorm, PetscAbsScalar(y1[i]));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "dia (%s): n %d threshold %d, %d diagonals: fused %d, max |SolveDIA - Solve(B x)| = %g (|y| %g)\n", PGXTridiagLayouts[layout], (int)n, (int)thrs[k], (int)NDIAOFF, (int)fused, (double)err, (double)ynorm));
    CHECK(!fused, "dia: the host backend reported a fused pass\n");
    {
      PetscBool fuses = PETSC_TRUE;
      PetscCall(PGXTridiagSolveDIAFuses(T, &fuses));
      CHECK(!fuses, "dia: PGXTridiagSolveDIAFuses() true on the host backend\n");
    }
    CHECK(err <= 1e-14 * (1 + ynorm), "dia (threshold %d): max difference %g\n", (int)thrs[k], (double)err);
    { /* argument checks: y aliasing x, offsets not increasing, no work array where the pass is not fused */
      const PetscInt bad[] = {3, 3};
      PetscErrorCode ierr;
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = PGXTridiagSolveDIA(T, alpha, NDIAOFF, diaoff, val, x, beta, w, t, x, NULL);
      CHECK(ierr == PETSC_ERR_ARG_IDN, "dia: y aliasing x gave error %d, expected PETSC_ERR_ARG_IDN\n", (int)ierr);
      ierr = PGXTridiagSolveDIA(T, alpha, 2, bad, val, x, beta, w, t, y2, NULL);
      CHECK(ierr == PETSC_ERR_ARG_WRONG, "dia: repeated offsets gave error %d, expected PETSC_ERR_ARG_WRONG\n", (int)ierr);
      ierr = PGXTridiagSolveDIA(T, alpha, NDIAOFF, diaoff, val, x, beta, w, NULL, y2, NULL);
      CHECK(ierr == PETSC_ERR_ARG_NULL, "dia: no work array gave error %d, expected PETSC_ERR_ARG_NULL\n", (int)ierr);
      ierr = PGXTridiagSolveDIA(T, alpha, 33, diaoff, val, x, beta, w, t, y2, NULL);
      CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "dia: 33 diagonals gave error %d, expected PETSC_ERR_ARG_OUTOFRANGE\n", (int)ierr);
      PetscCall(PetscPopErrorHandler());
    }
    PetscCall(PGXTridiagDestroy(&T));
  }
  PetscCall(PetscFree4(w, t, y1, y2));
  PetscCall(PetscFree3(val, x, bx));
  PetscCall(PetscFree4(dl, d, du, r));
  PetscCall(PetscFree(off));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if PGX_HAVE_CUDA
/* PGXTridiagSolveDIA() on cuda against the host backend; fused exactly where the layout is tiled without long blocks,
   and then equal to cuda's product followed by cuda's solve. Odd thresholds put x, w and y at an odd offset (8-byte
   but not 16-byte aligned: the kernel's scalar loads and stores). */
static PetscErrorCode TestCUDADIA(PetscInt nb, PetscInt maxsize, PetscInt big)
{
  PetscInt       *off, n = 0;
  PetscScalar    *dl, *d, *du, *r, *w, *val, *x, *bx, *yh, *yd, *yu, *th;
  PetscScalar    *d_w, *d_val, *d_x, *d_t, *d_y;
  const PetscInt  thrs[] = {0, 7, 1000, 999};

  PetscFunctionBegin;
  PetscCall(RandomSystem(nb, maxsize, big, &off, &dl, &d, &du, &r, &n));
  PetscCall(RandomDIA(n, &val, &x, &bx));
  PetscCall(PetscMalloc5(n, &w, n, &yh, n, &yd, n, &yu, n, &th));
  for (PetscInt i = 0; i < n; i++) w[i] = RandScalar();
  PetscCall(PGXDeviceMallocArray(n + 1, &d_w));
  PetscCall(PGXDeviceMallocArray(NDIAOFF * n, &d_val));
  PetscCall(PGXDeviceMallocArray(n + 1, &d_x));
  PetscCall(PGXDeviceMallocArray(n + 1, &d_t));
  PetscCall(PGXDeviceMallocArray(n + 1, &d_y));
  PetscCall(PGXDeviceCopyArrayToDevice(d_val, val, NDIAOFF * n));
  for (size_t k = 0; k < sizeof(thrs) / sizeof(thrs[0]); k++) {
    const PetscInt      mis = thrs[k] % 2;
    PGXTridiag          Th, Td;
    PGXTridiagPivotInfo ih, id;
    PGXTridiagInfo      ti;
    PetscBool           fused;
    PetscReal           err = 0, erru = 0, ynorm = 0;
    PetscScalar         alpha = -0.7, beta = 0.3;
    PetscCall(Build(PGX_DEVICE_HOST, thrs[k], nb, off, dl, d, du, &Th, &ih));
    PetscCall(Build(PGX_DEVICE_CUDA, thrs[k], nb, off, dl, d, du, &Td, &id));
    PetscCall(PGXTridiagGetInfo(Td, &ti));
    PetscCall(PGXDeviceCopyArrayToDevice(d_w + mis, w, n));
    PetscCall(PGXDeviceCopyArrayToDevice(d_x + mis, x, n));
    PetscCall(PGXTridiagSolveDIA(Th, alpha, NDIAOFF, diaoff, val, x, beta, w, th, yh, NULL));
    PetscCall(PGXDeviceMemset(d_y, 0xff, (n + 1) * sizeof(PetscScalar)));
    PetscCall(PGXTridiagSolveDIA(Td, alpha, NDIAOFF, diaoff, d_val, d_x + mis, beta, d_w + mis, d_t, d_y + mis, &fused));
    PetscCall(PGXDeviceCopyArrayToHost(yd, d_y + mis, n));
    /* against the two steps: B x (formed here) solved by cuda's PGXTridiagSolve (in the interleaved layout the call
       above took cuda's own product and solve, checked against the reference) */
    PetscCall(PGXDeviceCopyArrayToDevice(d_t, bx, n));
    PetscCall(PGXTridiagSolve(Td, alpha, d_t, beta, d_w + mis, d_y + mis));
    PetscCall(PGXDeviceCopyArrayToHost(yu, d_y + mis, n));
    PetscCall(PGXDeviceSynchronize());
    for (PetscInt i = 0; i < n; i++) {
      err   = PetscMax(err, PetscIsInfOrNanScalar(yd[i]) ? PETSC_INFINITY : PetscAbsScalar(yd[i] - yh[i]));
      erru  = PetscMax(erru, PetscIsInfOrNanScalar(yd[i]) ? PETSC_INFINITY : PetscAbsScalar(yd[i] - yu[i]));
      ynorm = PetscMax(ynorm, PetscAbsScalar(yh[i]));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "cuda dia (%s): n %d threshold %d (%d long), offset %d: fused %d, max |cuda - reference| = %g, max |fused - (B x, then the solve)| = %g\n", PGXTridiagLayouts[layout], (int)n, (int)ti.threshold, (int)ti.nlong, (int)mis, (int)fused, (double)err, (double)erru));
    CHECK(fused == (PetscBool)(layout == PGX_TRIDIAG_LAYOUT_TILED && !ti.nlong), "cuda dia: fused %d in the %s layout with %d long blocks\n", (int)fused, PGXTridiagLayouts[layout], (int)ti.nlong);
    {
      PetscBool fuses;
      PetscCall(PGXTridiagSolveDIAFuses(Td, &fuses));
      CHECK(fuses == fused, "cuda dia: PGXTridiagSolveDIAFuses() %d, the solve fused %d\n", (int)fuses, (int)fused);
    }
    CHECK(err <= 1e-12 * (1 + ynorm), "cuda dia (threshold %d): max difference to the reference %g\n", (int)ti.threshold, (double)err);
    CHECK(erru <= 1e-13 * (1 + ynorm), "cuda dia (threshold %d): max difference to the product then the solve %g\n", (int)ti.threshold, (double)erru);
    { /* PGXTridiagSolveDIADotNorm2(): the same y, and conj(y)'w, |y|^2 against sums of the reference y formed here;
         an error where the pass is not fused */
      PetscScalar   *d_d2, d2[2], s1 = 0, s2 = 0;
      PetscReal      a1 = 0, e1, e2;
      PetscErrorCode ierr;
      PetscCall(PGXDeviceMallocArray(2, &d_d2));
      PetscCall(PGXDeviceMemset(d_y, 0xff, (n + 1) * sizeof(PetscScalar)));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = PGXTridiagSolveDIADotNorm2(Td, alpha, NDIAOFF, diaoff, d_val, d_x + mis, beta, d_w + mis, d_y + mis, d_w + mis, d_d2);
      PetscCall(PetscPopErrorHandler());
      if (fused) {
        CHECK(!ierr, "cuda dia sums: error %d on a fused solver\n", (int)ierr);
        PetscCall(PGXDeviceCopyArrayToHost(yu, d_y + mis, n));
        PetscCall(PGXDeviceCopyArrayToHost(d2, d_d2, 2));
        PetscCall(PGXDeviceSynchronize());
        erru = 0;
        for (PetscInt i = 0; i < n; i++) {
          erru = PetscMax(erru, PetscIsInfOrNanScalar(yu[i]) ? PETSC_INFINITY : PetscAbsScalar(yu[i] - yd[i]));
          s1 += PetscConj(yh[i]) * w[i];
          s2 += PetscConj(yh[i]) * yh[i];
          a1 += PetscAbsScalar(yh[i]) * PetscAbsScalar(w[i]);
        }
        e1 = PetscAbsScalar(d2[0] - s1);
        e2 = PetscAbsScalar(d2[1] - s2);
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "cuda dia sums (threshold %d): max |y - SolveDIA's y| = %g, |y'w - reference| = %g, ||y||^2 - reference = %g\n", (int)ti.threshold, (double)erru, (double)e1, (double)e2));
        CHECK(erru <= 1e-14 * (1 + ynorm), "cuda dia sums: y differs from PGXTridiagSolveDIA's by %g\n", (double)erru);
        CHECK(e1 <= 1e-11 * (1 + a1) && e2 <= 1e-11 * (1 + PetscRealPart(s2)), "cuda dia sums: %g and %g from the reference's\n", (double)e1, (double)e2);
      } else CHECK(ierr == PETSC_ERR_SUP, "cuda dia sums: error %d without the fused pass, expected PETSC_ERR_SUP\n", (int)ierr);
      PetscCall(PGXDeviceFree(&d_d2));
    }
    PetscCall(PGXTridiagDestroy(&Th));
    PetscCall(PGXTridiagDestroy(&Td));
  }
  PetscCall(PGXDeviceFree(&d_w));
  PetscCall(PGXDeviceFree(&d_val));
  PetscCall(PGXDeviceFree(&d_x));
  PetscCall(PGXDeviceFree(&d_t));
  PetscCall(PGXDeviceFree(&d_y));
  PetscCall(PetscFree5(w, yh, yd, yu, th));
  PetscCall(PetscFree3(val, x, bx));
  PetscCall(PetscFree4(dl, d, du, r));
  PetscCall(PetscFree(off));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestCUDA(PetscInt nb, PetscInt maxsize, PetscInt big)
{
  PetscInt       *off, n = 0;
  PetscScalar    *dl, *d, *du, *r, *w, *yh, *yd, *yn, *d_r, *d_w, *d_y, *d_p;
  const PetscInt  thrs[] = {0, 2, 7, 33, 1000};

  PetscFunctionBegin;
  PetscCall(RandomSystem(nb, maxsize, big, &off, &dl, &d, &du, &r, &n));
  PetscCall(PetscMalloc4(n, &w, n, &yh, n, &yd, n, &yn));
  for (PetscInt i = 0; i < n; i++) w[i] = RandScalar();
  PetscCall(PGXDeviceMallocArray(3 * n, &d_p)); /* P on the device, for PGXTridiagSetUpNumericDevice() */
  PetscCall(PGXDeviceCopyArrayToDevice(d_p, dl, n));
  PetscCall(PGXDeviceCopyArrayToDevice(d_p + n, d, n));
  PetscCall(PGXDeviceCopyArrayToDevice(d_p + 2 * n, du, n));
  PetscCall(PGXDeviceMallocArray(n + 1, &d_r));
  PetscCall(PGXDeviceMallocArray(n + 1, &d_w));
  PetscCall(PGXDeviceMallocArray(n + 1, &d_y));
  for (size_t t = 0; t < sizeof(thrs) / sizeof(thrs[0]); t++) {
    /* odd thresholds: r, w, y at an odd offset (8-byte but not 16-byte aligned: the tile kernel's scalar path) */
    const PetscInt mis = thrs[t] % 2;
    PetscCall(PGXDeviceCopyArrayToDevice(d_r + mis, r, n));
    PetscCall(PGXDeviceCopyArrayToDevice(d_w + mis, w, n));
    for (int epi = 0; epi < 2; epi++) {
      PGXTridiag          Th, Td;
      PGXTridiagPivotInfo ih, id;
      PGXTridiagInfo      ti;
      PetscReal           err = 0, ynorm = 0;
#if defined(PETSC_USE_COMPLEX)
      PetscScalar alpha = epi ? -0.7 + 0.2 * PETSC_i : 1.0, beta = 0.3 - 0.4 * PETSC_i;
#else
      PetscScalar alpha = epi ? -0.7 : 1.0, beta = 0.3;
#endif
      PetscCall(Build(PGX_DEVICE_HOST, thrs[t], nb, off, dl, d, du, &Th, &ih));
      PetscCall(Build(PGX_DEVICE_CUDA, thrs[t], nb, off, dl, d, du, &Td, &id));
      CHECK(!ih.failed && !id.failed, "cuda: unexpected pivot failure\n");
      PetscCall(PGXTridiagGetInfo(Td, &ti));
      for (PetscInt i = 0; i < n; i++) yh[i] = NAN;
      PetscCall(PGXDeviceMemset(d_y, 0xff, (n + 1) * sizeof(PetscScalar))); /* poison: NaN pattern */
      PetscCall(PGXTridiagSolve(Th, alpha, r, beta, epi ? w : NULL, yh));
      PetscCall(PGXTridiagSolve(Td, alpha, d_r + mis, beta, epi ? d_w + mis : NULL, d_y + mis));
      PetscCall(PGXDeviceCopyArrayToHost(yd, d_y + mis, n));
      PetscCall(PGXDeviceSynchronize());
      PetscInt first = -1;
      for (PetscInt i = 0; i < n; i++) {
        PetscReal e = PetscAbsScalar(yd[i] - yh[i]);
        if (PetscIsInfOrNanScalar(yd[i]) || PetscIsInfOrNanScalar(yh[i])) e = PETSC_INFINITY;
        if (e > err && first < 0 && e > 1e-12 * (1 + PetscAbsScalar(yh[i]))) first = i;
        err   = PetscMax(err, e);
        ynorm = PetscMax(ynorm, PetscAbsScalar(yh[i]));
      }
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "cuda (%s): n %d threshold %d (%d groups, %d chunks, %d long, %d levels) epilogue %d, offset %d: max |cuda - reference| = %g\n", PGXTridiagLayouts[layout], (int)n, (int)ti.threshold, (int)ti.ngroups, (int)ti.nchunks, (int)ti.nlong, (int)ti.nlevels, epi, (int)mis, (double)err));
      CHECK(err <= 1e-12 * (1 + ynorm), "cuda (%s, threshold %d, epilogue %d): max difference %g > 1e-12; first bad row %d: cuda %g reference %g\n", PGXTridiagLayouts[layout], (int)ti.threshold, epi, (double)err, (int)first, first >= 0 ? (double)yd[first] : 0.0, first >= 0 ? (double)yh[first] : 0.0);
      CHECK(!ti.numdevice, "cuda: PGXTridiagSetUpNumeric() reported a device factorization\n");
      { /* the factors formed from P on the device: there in the tiled layout without long blocks, through the host
           otherwise; the solve equals the reference's */
        PGXTridiag     Tn;
        PGXTridiagInfo tn;
        PetscReal      errn = 0;
        PetscCall(PGXTridiagCreate(PGX_DEVICE_CUDA, &Tn));
        PetscCall(PGXTridiagSetLayout(Tn, layout));
        if (thrs[t]) PetscCall(PGXTridiagSetThreshold(Tn, thrs[t]));
        PetscCall(PGXTridiagSetUpSymbolic(Tn, nb, off));
        PetscCall(PGXTridiagSetUpNumericDevice(Tn, d_p, d_p + n, d_p + 2 * n, &id));
        CHECK(!id.failed, "cuda (device numeric): unexpected pivot failure\n");
        PetscCall(PGXTridiagGetInfo(Tn, &tn));
        PetscCall(PGXDeviceMemset(d_y, 0xff, (n + 1) * sizeof(PetscScalar)));
        PetscCall(PGXTridiagSolve(Tn, alpha, d_r + mis, beta, epi ? d_w + mis : NULL, d_y + mis));
        PetscCall(PGXDeviceCopyArrayToHost(yn, d_y + mis, n));
        PetscCall(PGXDeviceSynchronize());
        for (PetscInt i = 0; i < n; i++) errn = PetscMax(errn, PetscIsInfOrNanScalar(yn[i]) ? PETSC_INFINITY : PetscAbsScalar(yn[i] - yh[i]));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "cuda (%s, factors from P on the device: %s): threshold %d epilogue %d: max |cuda - reference| = %g\n", PGXTridiagLayouts[layout], tn.numdevice ? "factored there" : "through the host", (int)ti.threshold, epi, (double)errn));
        CHECK(tn.numdevice == (PetscBool)(layout == PGX_TRIDIAG_LAYOUT_TILED && !ti.nlong), "cuda (%s, %d long blocks): factored on the device %d\n", PGXTridiagLayouts[layout], (int)ti.nlong, (int)tn.numdevice);
        CHECK(errn <= 1e-12 * (1 + ynorm), "cuda (device numeric, %s, threshold %d, epilogue %d): max difference %g > 1e-12\n", PGXTridiagLayouts[layout], (int)ti.threshold, epi, (double)errn);
        PetscCall(PGXTridiagDestroy(&Tn));
      }
      PetscCall(PGXTridiagDestroy(&Th));
      PetscCall(PGXTridiagDestroy(&Td));
    }
  }
  PetscCall(PGXDeviceFree(&d_r));
  PetscCall(PGXDeviceFree(&d_w));
  PetscCall(PGXDeviceFree(&d_y));
  PetscCall(PGXDeviceFree(&d_p));
  PetscCall(PetscFree4(w, yh, yd, yn));
  PetscCall(PetscFree4(dl, d, du, r));
  PetscCall(PetscFree(off));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

int main(int argc, char **argv)
{
  char     mode[32] = "hand";
  PetscInt nb = 3001, maxsize = 61, big = 100000;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nblocks", &nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxsize", &maxsize, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-big", &big, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-pivot_cuda", &pivotcuda, NULL));
  for (int l = 0; l < 2; l++) {
    layout = l ? PGX_TRIDIAG_LAYOUT_TILED : PGX_TRIDIAG_LAYOUT_INTERLEAVED;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "layout %s\n", PGXTridiagLayouts[layout]));
    if (!strcmp(mode, "hand")) PetscCall(TestHand());
    else if (!strcmp(mode, "dense")) PetscCall(TestDense(nb, maxsize, big));
    else if (!strcmp(mode, "pivot")) PetscCall(TestPivot());
    else if (!strcmp(mode, "dia")) PetscCall(TestDIA(nb, maxsize, big));
    else if (!strcmp(mode, "cuda")) {
  #if PGX_HAVE_CUDA
      PetscCall(TestCUDA(nb, maxsize, big));
      PetscCall(TestCUDADIA(nb, maxsize, big));
      if (big) PetscCall(TestCUDADIA(nb, maxsize, 0)); /* no block longer than the tiled layout's threshold: fused */
  #else
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "-mode cuda needs PGX built with CUDA");
  #endif
    } else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown -mode %s", mode);
  }
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
