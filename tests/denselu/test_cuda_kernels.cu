static char help[] = "Dense LU: the cuda backend against the reference on the same seeded matrices.\n";
/* Checks, on random and ill-conditioned (cond 1e6) matrices of sizes around the fused/blocked switch
   (nsmall = 128: n = 100, 127, 128, 129, 257, 700) and block sizes 32 and 64:
   - the same with look-ahead (n = 129, 257, 700 and the singular matrix);
   - leaf widths 5, 8, 12, 16, 32, the cooperative and the one-block leaf kernels (GetLeafInfo says which ran),
     block sizes 8, 48, 64, 256, 1024, n up to 1500 (cooperative leaves of several blocks);
   - outputs poisoned first (NaN factors, -1 pivots) so unwritten entries show;
   - pivots equal the reference's (0-based, dgetrf's minus one);
   - factors agree to 1e-12 relative to max |LU| (random) - round-off of a different operation order;
   - Solve and transpose Solve (3 right-hand sides) have backward error < 10;
   - the zero pivot of the singular matrix is found in the same column;
   - mixed precision (tf32 on cond 1e6, bf16 on 1e2, half on 1e3, tf32/bf16 on diagdom n = 1000; GMRES-IR where plain
     refinement is slow) is accepted without fallback with the driver's backward error <= 1/sqrt(n) (issue 14's units)
     and the host-computed one < 1; on cond 1e14 it falls back to FP64 (reported) within 4 refinement steps; on the
     random n = 1000 either, with backward error < 1;
   - the per-phase profile (SetProfile; n = 1500, nb 256: 6 block steps, 8 leaves each; double and tf32, with and
     without look-ahead): the same pivots and factors as without it, every phase of the path counted (exact counts
     where the schedule fixes them), look-ahead phases only with look-ahead, each stream's sum <= the wall time of
     the call (+ 0.05 ms: cudaEvent resolution); the refinement's phases of a tf32 solve. Prints one line per configuration.
   - no pivot search (SetNoPivot; NoPivotCompare below): on matrices strictly diagonally dominant by columns (diagdom,
     n = 1 .. 1500, block sizes 32 .. 1024, with and without look-ahead; below nsmall too) NOPIVOT_AUTO factors
     without pivoting (GetNoPivotInfo), with the reference's pivots (none) and factors within 1e-12 relative, backward
     error < 10; the fused path, when asked for, keeps its pivot search; NOPIVOT_ALWAYS on random, zero-leading and singular matrices fails its check
     once and factors again with partial pivoting (the reference's pivots and zero column); NOPIVOT_NEVER and
     NOPIVOT_AUTO on a random matrix pivot; tf32 on diagdom without pivoting is refined to backward error < 1.
   -tournament: only the tournament pivoting checks (TournamentPanels, TournamentFactor below).
   -trsv: only the one-column solve checks (TrsvCompare below: PGX's kernel, both variants, against cublasDtrsm).
   -onchip: only the fused path's OnChipLUKernel (OnChipCompare below) against the reference.
   -tf32x3: only the tf32x3 checks (Tf32x3Compare below: FP32-accurate factors from three tf32 products, plain
   refinement). */
#include <petscsys.h>
#include <petsctime.h>
#include <vector>
#include <cmath>
#include <cstring>
#include <cfloat>
#include <algorithm>
#include "../../src/mat/impls/denselu/denselu_kernels.h"
#define PGX_TEST_PLAIN_CHECK
#include "../common/pgxtest.h"
#include "denselu_matrices.h"

namespace ref = pgx::kernels::denselu::reference;
namespace cu  = pgx::kernels::denselu::cuda;
namespace dl  = pgx::kernels::denselu;
static int nfail = 0;
#include "denselu_cuda_checks.h"

/* The cuda factors of d against the reference's (lr, pr): the same pivots, and (values) the factors within 1e-12
   relative to max |LU_ref| (round-off of a different operation order); unwritten (NaN) entries count as infinite */
static PetscErrorCode CheckFactors(cu::Data *d, PetscInt n, const std::vector<double> &lr, const std::vector<PetscInt> &pr, PetscBool values, const char *what)
{
  std::vector<double>   lc(n * n, NAN);
  std::vector<PetscInt> pc(n, -1);
  PetscInt              np;
  double                dm, m;

  PetscFunctionBegin;
  PetscCall(cu::GetFactors(d, lc.data(), pc.data()));
  np = DenseLUPivotDiffs(n, pr.data(), pc.data());
  DenseLUMaxDiff(n * n, lc.data(), lr.data(), &dm, &m);
  CHECK(np == 0, "%s: %d pivots differ from the reference", what, (int)np);
  if (values) CHECK(dm <= 1e-12 * m, "%s: max |LU_cuda - LU_ref| = %g (max %g)", what, dm, m);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(const char *kind, PetscInt n, PetscInt nb, double cond, PetscBool lookahead = PETSC_FALSE, PetscInt leafw = 0, PetscBool coop = PETSC_TRUE, PetscInt nsmall = 128)
{
  std::vector<double>   a(n * n), lr(n * n);
  std::vector<PetscInt> pr(n);
  PetscInt              zr, zc;
  PetscBool             finite;
  cu::Data             *d;
  char                  what[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s n %d nb %d leaf %d coop %d look-ahead %d", kind, (int)n, (int)nb, (int)leafw, (int)coop, (int)lookahead));
  DenseLUSeed(3000 + n);
  PetscCall(DenseLUMatrix(kind, n, cond, a.data()));
  lr = a;
  PetscCall(ref::Factor(n, lr.data(), n, nb, pr.data(), &zr));
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetBlockSize(d, nb));
  PetscCall(cu::SetSmallSize(d, nsmall));
  PetscCall(cu::SetLookAhead(d, lookahead));
  PetscCall(cu::SetLeaf(d, leafw, coop));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
  CHECK(finite && zc == zr, "%s n %d: cuda zerocol %d finite %d, reference zerocol %d", kind, (int)n, (int)zc, (int)finite, (int)zr);
  PetscCall(CheckFactors(d, n, lr, pr, std::strcmp(kind, "random") ? PETSC_FALSE : PETSC_TRUE, what));
  {
    PetscInt w, nc, nbl;
    PetscCall(cu::GetLeafInfo(d, &w, &nc, &nbl));
    if (n > nsmall) CHECK(w == (leafw ? leafw : 32) && (coop ? nc > 0 && nbl == 0 : nc == 0 && nbl > 0), "%s n %d leaf %d coop %d: leaf width %d, %d cooperative leaves, %d one-block leaves", kind, (int)n, (int)leafw, (int)coop, (int)w, (int)nc, (int)nbl);
  }
  if (zr < 0) PetscCall(DenseLUCheckSolves(d, n, a, 3, 10, PETSC_FALSE, what));
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* NoPivot modes: mode on matrix kind; expect_used: the last factorization ran without pivoting; expect_fail: attempts
   without pivoting that failed their check. The pivots (and zero column) must be the reference's (partial pivoting)
   either way, the factors within 1e-12 (random, diagdom) of them, the solves' backward errors < 10 (< 1 refined). */
static PetscErrorCode NoPivotCompare(const char *kind, PetscInt n, PetscInt nb, PetscBool lookahead, dl::NoPivot mode, PetscBool expect_used, PetscInt expect_fail, dl::Precision prec = dl::PRECISION_DOUBLE, PetscInt nsmall = 128, dl::Path path = dl::PATH_AUTO)
{
  std::vector<double>   a(n * n), lr(n * n);
  std::vector<PetscInt> pr(n);
  PetscInt              zr, zc, nrefactored; /* not 'nfail': that is CHECK's counter */
  PetscBool             finite, used;
  cu::Data             *d;
  const char           *modes[] = {"auto", "never", "always"};
  char                  what[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(what, sizeof(what), "nopivot %s %s n %d nb %d look-ahead %d", modes[mode], kind, (int)n, (int)nb, (int)lookahead));
  DenseLUSeed(5000 + n);
  PetscCall(DenseLUMatrix(kind, n, 0, a.data()));
  lr = a;
  PetscCall(ref::Factor(n, lr.data(), n, nb, pr.data(), &zr));
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetBlockSize(d, nb));
  PetscCall(cu::SetSmallSize(d, nsmall));
  PetscCall(cu::SetLookAhead(d, lookahead));
  PetscCall(cu::SetPanelOptions(d, PETSC_TRUE, 0, PETSC_TRUE));
  PetscCall(cu::SetPrecision(d, prec));
  PetscCall(cu::SetNoPivot(d, mode));
  PetscCall(cu::SetPath(d, path, 0));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
  PetscCall(cu::GetNoPivotInfo(d, &used, &nrefactored));
  CHECK(used == expect_used && nrefactored == expect_fail, "nopivot %s %s n %d nb %d look-ahead %d: without pivoting %d (expected %d), failed checks %d (expected %d)", modes[mode], kind, (int)n, (int)nb, (int)lookahead, (int)used, (int)expect_used, (int)nrefactored, (int)expect_fail);
  CHECK(finite && zc == zr, "nopivot %s %s n %d: cuda zerocol %d finite %d, reference zerocol %d", modes[mode], kind, (int)n, (int)zc, (int)finite, (int)zr);
  if (prec == dl::PRECISION_DOUBLE) PetscCall(CheckFactors(d, n, lr, pr, (!std::strcmp(kind, "random") || !std::strcmp(kind, "diagdom")) ? PETSC_TRUE : PETSC_FALSE, what));
  if (zr < 0) PetscCall(DenseLUCheckSolves(d, n, a, 2, prec == dl::PRECISION_DOUBLE ? 10 : 1, prec == dl::PRECISION_DOUBLE ? PETSC_FALSE : PETSC_TRUE, what));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "nopivot %s %s n %d nb %d look-ahead %d: without pivoting %d, failed checks %d\n", modes[mode], kind, (int)n, (int)nb, (int)lookahead, (int)used, (int)nrefactored));
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The componentwise backward error of LU factors with pivots (LAPACK's sequential interchanges, 0-based):
   max_ij |(P A)_ij - (L U)_ij| / (|L| |U|)_ij */
static double FactorBackwardError(PetscInt n, const std::vector<double> &a, const std::vector<double> &lu, const std::vector<PetscInt> &piv)
{
  std::vector<double> pa = a;
  for (PetscInt k = 0; k < n; k++)
    if (piv[k] != k)
      for (PetscInt j = 0; j < n; j++) std::swap(pa[k + j * n], pa[piv[k] + j * n]);
  double be = 0;
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      double s = 0, sa = 0;
      for (PetscInt k = 0; k <= PetscMin(i, j); k++) {
        const double l = k == i ? 1.0 : lu[i + k * n], u = lu[k + j * n];
        s += l * u;
        sa += std::fabs(l) * std::fabs(u);
      }
      const double e = std::fabs(pa[i + j * n] - s);
      if (sa > 0) be = std::max(be, e / sa);
      else if (e > 0) be = INFINITY;
    }
  return be;
}

/* Random butterflies (SetRbt): kind transformed with depth levels and factored without pivoting in prec. expect_used:
   the factors in use are of U^T A V; expect_fail: transformed factorizations that broke down (factored again with partial
   pivoting). FP64 factors: a componentwise backward error below n eps against the reference's U^T A V (RbtMatrix; the
   factors themselves differ from FactorNoPivot's by more than round-off, since without pivoting the element growth
   amplifies a different operation order); the pivots are the identity. Solves (1 and 3 right-hand sides, A and A^T)
   refined against A: backward error < 1, without a fallback (else, with a breakdown, the reference's zero column). */
static PetscErrorCode RbtCompare(const char *kind, PetscInt n, PetscInt nb, PetscInt depth, dl::Precision prec, PetscBool lookahead, PetscBool expect_used, PetscInt expect_fail, dl::Path path = dl::PATH_AUTO)
{
  std::vector<double>   a(n * n), lr(n * n), ar(n * n), r;
  std::vector<PetscInt> pr(n);
  PetscInt              zr, zc, zn, nbroke;
  PetscBool             finite, used, npused;
  cu::Data             *d;
  char                  what[160];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(what, sizeof(what), "rbt %d %s n %d nb %d prec %d look-ahead %d", (int)depth, kind, (int)n, (int)nb, (int)prec, (int)lookahead));
  DenseLUSeed(7000 + n);
  PetscCall(DenseLUMatrix(kind, n, 1e8, a.data())); /* cond: illcond's only */
  lr = a;
  PetscCall(ref::Factor(n, lr.data(), n, 32, pr.data(), &zr));
  ar = a;
  ref::RbtDiagonals(n, depth, 99, r);
  ref::RbtMatrix(n, depth, r.data(), ar.data(), n);
  const std::vector<double> ar0 = ar; /* U^T A V */
  PetscCall(ref::FactorNoPivot(n, ar.data(), n, &zn));
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetBlockSize(d, nb));
  PetscCall(cu::SetSmallSize(d, 64));
  PetscCall(cu::SetLookAhead(d, lookahead));
  PetscCall(cu::SetPrecision(d, prec));
  PetscCall(cu::SetNoPivot(d, dl::NOPIVOT_AUTO));
  PetscCall(cu::SetPath(d, path, 0));
  PetscCall(cu::SetRbt(d, depth, 99));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
  PetscCall(cu::GetRbtInfo(d, &used, &nbroke));
  PetscCall(cu::GetNoPivotInfo(d, &npused, NULL));
  CHECK(used == expect_used && nbroke == expect_fail, "%s: butterfly factors %d (expected %d), breakdowns %d (expected %d)", what, (int)used, (int)expect_used, (int)nbroke, (int)expect_fail);
  CHECK(finite && (used ? zc < 0 : zc == zr), "%s: cuda zerocol %d finite %d, reference (partial pivoting) zerocol %d", what, (int)zc, (int)finite, (int)zr);
  if (used && prec == dl::PRECISION_DOUBLE) {
    std::vector<double>   lc(n * n, NAN);
    std::vector<PetscInt> pc(n, -1), iota(n);
    double                dm, m;
    for (PetscInt i = 0; i < n; i++) iota[i] = i;
    PetscCall(cu::GetFactors(d, lc.data(), pc.data()));
    /* componentwise backward error of the cuda factors against the reference's U^T A V: max_ij |U^T A V - L U|_ij /
       (|L| |U|)_ij, below n eps (gamma_n's bound); a transformation other than the reference's fails it by far */
    const double be = FactorBackwardError(n, ar0, lc, iota);
    DenseLUMaxDiff(n * n, lc.data(), ar.data(), &dm, &m);
    CHECK(DenseLUPivotDiffs(n, iota.data(), pc.data()) == 0, "%s: the pivots of the butterfly factors are not the identity", what);
    CHECK(zn < 0 && be <= (double)n * DBL_EPSILON, "%s: componentwise backward error of the cuda factors against the reference's U^T A V %g (n eps = %g), reference zerocol %d", what, be, (double)n * DBL_EPSILON, (int)zn);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: componentwise backward error %.2g n eps; max |LU_cuda - LU_ref| / max |LU_ref| = %.1e (no pivoting: the growth amplifies the different rounding)\n", what, be / ((double)n * DBL_EPSILON), dm / m));
  }
  if (zc < 0) {
    for (PetscInt nrhs : {1, 3}) PetscCall(DenseLUCheckSolves(d, n, a, nrhs, 1, used && prec == dl::PRECISION_DOUBLE ? PETSC_TRUE : PETSC_FALSE, what));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: butterfly factors %d, breakdowns %d, no pivot search (dominant) %d\n", what, (int)used, (int)nbroke, (int)npused));
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PRECISION_TF32X3 against tf32 on the same matrix, path and schedule: the factors' componentwise backward error
   (FactorBackwardError) is FP32's, below n 2^-24 (gamma_n for FP32 storage and products), and at least 30x smaller
   than tf32's (whose products keep 11 bits); a refined solve of A x = b (and A^T) converges in at most maxsteps plain
   steps without GMRES-IR and without a fallback, backward error < 1 */
static PetscErrorCode Tf32x3Compare(const char *kind, PetscInt n, PetscInt nb, PetscBool lookahead, dl::NoPivot np, PetscInt maxsteps, dl::Panel lowpanel = dl::PANEL_PGX)
{
  std::vector<double>   a(n * n), b(n), x;
  double                be[2];
  PetscInt              zc;
  PetscBool             finite;
  dl::RefineResult      rr;
  char                  what[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(what, sizeof(what), "tf32x3 %s n %d nb %d look-ahead %d nopivot %d%s", kind, (int)n, (int)nb, (int)lookahead, (int)np, lowpanel == dl::PANEL_CUSOLVER ? " cusolverDnSgetrf panels" : ""));
  DenseLUSeed(8100 + n);
  PetscCall(DenseLUMatrix(kind, n, 1e6, a.data()));
  for (auto &v : b) v = DenseLURand();
  for (int t = 0; t < 2; t++) {
    const dl::Precision   prec = t ? dl::PRECISION_TF32 : dl::PRECISION_TF32X3;
    std::vector<double>   lu(n * n, NAN);
    std::vector<PetscInt> piv(n, -1);
    cu::Data             *d;
    PetscCall(cu::Create(&d));
    PetscCall(cu::SetBlockSize(d, nb));
    PetscCall(cu::SetSmallSize(d, 64));
    PetscCall(cu::SetLookAhead(d, lookahead));
    PetscCall(cu::SetNoPivot(d, np));
    PetscCall(cu::SetPrecision(d, prec));
    PetscCall(cu::SetLowPanel(d, lowpanel));
    PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
    CHECK(finite && zc < 0, "%s (%s): zerocol %d finite %d", what, t ? "tf32" : "tf32x3", (int)zc, (int)finite);
    {
      PetscInt ncs;
      PetscBool npused;
      PetscCall(cu::GetPanelInfo(d, &ncs));
      PetscCall(cu::GetNoPivotInfo(d, &npused, NULL));
      const PetscInt expect = lowpanel == dl::PANEL_CUSOLVER && !npused ? (n + nb - 1) / nb : 0;
      CHECK(ncs == expect, "%s (%s): %d panels by cusolverDnSgetrf, expected %d", what, t ? "tf32" : "tf32x3", (int)ncs, (int)expect);
    }
    PetscCall(cu::GetFactors(d, lu.data(), piv.data()));
    be[t] = FactorBackwardError(n, a, lu, piv);
    if (!t) {
      for (PetscBool tr : {PETSC_FALSE, PETSC_TRUE}) {
        x = b;
        PetscCall(cu::SolveHost(d, tr, 1, x.data(), n, &rr));
        const double bw = DenseLUBackwardError(n, a.data(), x.data(), b.data(), tr ? 'T' : 'N');
        CHECK(rr.converged && !rr.fellback && rr.gmres_steps == 0 && rr.steps <= maxsteps && bw < 1, "%s%s: converged %d, fallback %d, %d steps (%d GMRES-IR; expected at most %d plain), backward error %g", what, tr ? " transpose" : "", (int)rr.converged, (int)rr.fellback, (int)rr.steps, (int)rr.gmres_steps, (int)maxsteps, bw);
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s%s: %d plain refinement steps, backward error %s\n", what, tr ? " transpose" : "", (int)rr.steps, bw < 1 ? "< 1" : ">= 1"));
      }
    }
    PetscCall(cu::Destroy(&d));
  }
  const double u32 = std::ldexp(1.0, -24);
  CHECK(be[0] <= (double)n * u32 && 30 * be[0] <= be[1], "%s: componentwise backward error of the factors %g (n 2^-24 = %g), tf32's %g (expected >= 30x)", what, be[0], (double)n * u32, be[1]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: factors' componentwise backward error %.2g n 2^-24, tf32's %.3gx larger\n", what, be[0] / ((double)n * u32), be[1] / be[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* expect_fallback: 1 must fall back (within 4 steps), 0 must not, -1 either (reported). The backward error
   ||Ax-b||_inf/(||A||_inf ||x||_inf n eps) is below 1 always (accepted: the driver's test is 1/sqrt(n) in these
   units; fallback: FP64 LU) */
static PetscErrorCode Mixed(dl::Precision prec, const char *name, const char *kind, PetscInt n, double cond, int expect_fallback, PetscBool transpose = PETSC_FALSE)
{
  std::vector<double> a(n * n), b(n), x;
  PetscInt            zc;
  PetscBool           finite;
  dl::RefineResult    rr;
  cu::Data           *d;

  PetscFunctionBegin;
  DenseLUSeed(5000 + n);
  PetscCall(DenseLUMatrix(kind, n, cond, a.data()));
  for (auto &v : b) v = DenseLURand();
  x = b;
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetPrecision(d, prec));
  PetscCall(cu::SetSmallSize(d, 64));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
  PetscCall(cu::SolveHost(d, transpose, 1, x.data(), n, &rr));
  double be = DenseLUBackwardError(n, a.data(), x.data(), b.data(), transpose ? 'T' : 'N');
  CHECK(be < 1, "%s %s cond %g n %d: backward error %g after %d refinement steps (fallback %d, %s)", name, kind, cond, (int)n, be, (int)rr.steps, (int)rr.fellback, rr.stop);
  CHECK(rr.converged || rr.fellback, "%s %s: neither converged nor fell back", name, kind);
  if (rr.converged) CHECK(rr.berr <= 1.0 / std::sqrt((double)n), "%s %s: accepted with the driver's backward error %g > 1/sqrt(n)", name, kind, rr.berr);
  if (expect_fallback >= 0) CHECK((int)rr.fellback == expect_fallback, "%s %s cond %g: fallback %d, expected %d (%d steps, %s)", name, kind, cond, (int)rr.fellback, expect_fallback, (int)rr.steps, rr.stop);
  if (rr.fellback) CHECK(rr.steps <= 4, "%s %s cond %g: stagnation detected after %d steps, expected <= 4", name, kind, cond, (int)rr.steps);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %s cond %g n %d%s: %d refinement steps (%d GMRES-IR, %d GMRES its), %s, backward error %s\n", name, kind, cond, (int)n, transpose ? " transpose" : "", (int)rr.steps, (int)rr.gmres_steps, (int)rr.gmres_its, rr.fellback ? "fell back to FP64" : "no fallback", be < 1 ? "< 1" : ">= 1"));
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The per-phase profile on the device (see the header comment) */
static PetscErrorCode Profiled(dl::Precision prec, PetscBool lookahead)
{
  const PetscInt        n = 1500, nb = 256, nsteps = (n + nb - 1) / nb;
  const char           *name = prec == dl::PRECISION_DOUBLE ? "double" : "tf32";
  std::vector<double>   a(n * n), lu0(n * n), lu1(n * n), b(n), x;
  std::vector<PetscInt> p0(n), p1(n);
  PetscInt              zc, np = 0;
  PetscBool             finite;
  dl::RefineResult      rr;
  dl::Profile           pr;
  cu::Data             *d;
  PetscLogDouble        t0, t1;
  double                dm = 0, m = 0;

  PetscFunctionBegin;
  DenseLUSeed(9000 + n);
  PetscCall(DenseLUMatrix("diagdom", n, 0, a.data()));
  for (auto &v : b) v = DenseLURand();
  x = b;
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetPrecision(d, prec));
  PetscCall(cu::SetBlockSize(d, nb));
  PetscCall(cu::SetLookAhead(d, lookahead));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite)); /* unprofiled */
  PetscCall(cu::GetFactors(d, lu0.data(), p0.data()));
  dl::ProfileClear(&pr);
  PetscCall(cu::SetProfile(d, &pr));
  PetscCall(PetscTime(&t0));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite)); /* returns after its events completed */
  PetscCall(PetscTime(&t1));
  pr.wall[dl::PROFILE_FACTOR] = (t1 - t0) * 1e3;
  PetscCall(cu::GetFactors(d, lu1.data(), p1.data()));
  np = DenseLUPivotDiffs(n, p0.data(), p1.data());
  DenseLUMaxDiff(n * n, lu1.data(), lu0.data(), &dm, &m);
  CHECK(finite && zc == -1 && np == 0 && dm <= 1e-12 * m, "profile %s look-ahead %d: %d pivots differ, max |LU - LU_unprofiled| %g (max %g)", name, (int)lookahead, (int)np, dm, m);
  CHECK(pr.count[dl::PHASE_LEAF] == 8 * nsteps && pr.count[dl::PHASE_SWAP] == nsteps && pr.count[dl::PHASE_CHECK] == (prec == dl::PRECISION_DOUBLE ? 1 : 2) && pr.count[dl::PHASE_FINISH] == 1, "profile %s look-ahead %d: counts leaves %d swaps %d check %d finish %d", name, (int)lookahead, (int)pr.count[dl::PHASE_LEAF], (int)pr.count[dl::PHASE_SWAP], (int)pr.count[dl::PHASE_CHECK], (int)pr.count[dl::PHASE_FINISH]);
  CHECK(pr.count[dl::PHASE_PANEL_SWAP] > 0 && pr.count[dl::PHASE_PANEL_TRSM] > 0 && pr.count[dl::PHASE_PANEL_GEMM] > 0 && pr.count[dl::PHASE_TRSM] > 0 && pr.count[dl::PHASE_GEMM] > 0 && pr.count[dl::PHASE_CONVERT] == 1, "profile %s look-ahead %d: a phase of the path was not timed", name, (int)lookahead);
  if (lookahead) CHECK(pr.count[dl::PHASE_WAIT] == nsteps + 1 && pr.count[dl::PHASE_LA_WAIT] == nsteps && pr.count[dl::PHASE_LA_GEMM] == nsteps - 2 && pr.count[dl::PHASE_LEFT_SWAP] == nsteps - 1, "profile %s look-ahead: waits %d, la waits %d, la gemms %d, left swaps on their stream %d", name, (int)pr.count[dl::PHASE_WAIT], (int)pr.count[dl::PHASE_LA_WAIT], (int)pr.count[dl::PHASE_LA_GEMM], (int)pr.count[dl::PHASE_LEFT_SWAP]);
  else CHECK(pr.count[dl::PHASE_WAIT] == 0 && pr.count[dl::PHASE_LA_WAIT] == 0 && pr.count[dl::PHASE_LA_SWAP] == 0 && pr.count[dl::PHASE_LEFT_SWAP] == 0 && dl::ProfileStreamSum(&pr, dl::PROFILE_FACTOR, 1) == 0, "profile %s: look-ahead phases timed without look-ahead", name);
  for (int p = 0; p < dl::PHASE_COUNT; p++) CHECK(pr.ms[p] >= 0 && std::isfinite(pr.ms[p]), "profile: phase %s %g ms", dl::PhaseName((dl::Phase)p), pr.ms[p]);
  CHECK(dl::ProfileWithinWall(&pr, dl::PROFILE_FACTOR, 0.05), "profile %s look-ahead %d: stream sums %g, %g ms > wall %g ms", name, (int)lookahead, dl::ProfileStreamSum(&pr, dl::PROFILE_FACTOR, 0), dl::ProfileStreamSum(&pr, dl::PROFILE_FACTOR, 1), pr.wall[dl::PROFILE_FACTOR]);
  CHECK(dl::ProfileStreamSum(&pr, dl::PROFILE_FACTOR, 0) > 0, "profile: nothing timed");
  /* a solve: FP64, or the refinement's phases */
  PetscCall(PetscTime(&t0));
  PetscCall(cu::SolveHost(d, PETSC_FALSE, 1, x.data(), n, &rr));
  PetscCall(PetscTime(&t1));
  pr.wall[dl::PROFILE_SOLVE] = (t1 - t0) * 1e3;
  if (prec == dl::PRECISION_DOUBLE) CHECK(pr.count[dl::PHASE_SOLVE] == 1 && pr.count[dl::PHASE_RESIDUAL] == 0, "profile double: solve counts %d, residual %d", (int)pr.count[dl::PHASE_SOLVE], (int)pr.count[dl::PHASE_RESIDUAL]);
  else CHECK(rr.converged && pr.count[dl::PHASE_RESIDUAL] == rr.steps + 1 && pr.count[dl::PHASE_LOWSOLVE] >= 1 && pr.count[dl::PHASE_SOLVE] == 0, "profile tf32: converged %d, residuals %d (steps %d), low solves %d", (int)rr.converged, (int)pr.count[dl::PHASE_RESIDUAL], (int)rr.steps, (int)pr.count[dl::PHASE_LOWSOLVE]);
  CHECK(dl::ProfileWithinWall(&pr, dl::PROFILE_SOLVE, 0.05), "profile %s: solve stream sum %g ms > wall %g ms", name, dl::ProfileStreamSum(&pr, dl::PROFILE_SOLVE, 0), pr.wall[dl::PROFILE_SOLVE]);
  PetscCall(cu::SetProfile(d, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "profile %s look-ahead %d: phases timed, stream sums within the wall time\n", name, (int)lookahead));
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -tournament: the tournament kernels (FP64, TournamentPanelTest) against reference::TournamentPanel on m x w panels
   (poisoned outputs; sizes around the chunk size 256 and up to 6 chunks, widths 1..32): the same pivots and zero
   column, factors within 1e-12 max|LU|; then tf32 factorizations with tournament leaves (blocked path, with and without
   look-ahead and leaf swaps): every leaf by the tournament kernels (GetTournamentInfo = TournamentLeaves' count),
   max|PA - LU| / max|A| <= 4 sqrt(n) 2^-11 growth, and the refined solve's backward error < 1 */
static PetscErrorCode TournamentPanels(void)
{
  int npanels = 0;
  PetscFunctionBegin;
  for (PetscInt m : {1, 7, 32, 33, 255, 256, 257, 511, 512, 513, 1000, 1536, 1600})
    for (PetscInt w : {1, 5, 8, 16, 17, 32})
      for (int kind = 0; kind < 2; kind++) {
        if (m < w || (kind == 1 && m < 2 * w)) continue;
        std::vector<double>   a(m * w), lc(m * w, NAN);
        std::vector<PetscInt> pr(w), pc(w, -1);
        PetscInt              zr, zc;
        DenseLUSeed(99 + m * 40 + w + kind);
        for (auto &v : a) v = DenseLURand();
        if (kind == 1) /* zero diagonal on top: the tournament must pick rows from below */
          for (PetscInt j = 0; j < w; j++) a[j + j * m] = 0;
        std::vector<double> lr(a.begin(), a.end());
        PetscCall(ref::TournamentPanel(m, w, lr.data(), m, pr.data(), &zr));
        PetscCall(cu::TournamentPanelTest(m, w, a.data(), m, lc.data(), pc.data(), &zc));
        double d, mx;
        DenseLUMaxDiff((PetscInt)lr.size(), lc.data(), lr.data(), &d, &mx);
        CHECK(pr == pc && zr == zc, "tournament panel %d x %d (kind %d): pivots %s, zero column %d (reference %d)", (int)m, (int)w, kind, pr == pc ? "equal" : "differ", (int)zc, (int)zr);
        CHECK(d <= 1e-12 * mx, "tournament panel %d x %d (kind %d): factors differ by %g (max|LU| %g)", (int)m, (int)w, kind, d, mx);
        npanels++;
      }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "tournament panels against the reference: same pivots, factors within 1e-12 (%d panels)\n", npanels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TournamentFactor(const char *kind, PetscInt n, PetscInt nb, PetscBool lookahead, PetscBool leafswaps)
{
  std::vector<double>   a(n * n), lu(n * n, NAN), b(n);
  std::vector<PetscInt> piv(n, -1), leaves;
  PetscInt              zc, nt;
  PetscBool             finite;
  dl::RefineResult      rr;
  cu::Data             *d;

  PetscFunctionBegin;
  DenseLUSeed(31 + n);
  PetscCall(DenseLUMatrix(kind, n, 0, a.data()));
  for (auto &v : b) v = DenseLURand();
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetBlockSize(d, nb));
  PetscCall(cu::SetSmallSize(d, 64));
  PetscCall(cu::SetPath(d, dl::PATH_BLOCKED, 0));
  PetscCall(cu::SetLookAhead(d, lookahead));
  PetscCall(cu::SetPanelOptions(d, PETSC_FALSE, 0, leafswaps));
  PetscCall(cu::SetPrecision(d, dl::PRECISION_TF32));
  PetscCall(cu::SetPivoting(d, dl::PIVOTING_TOURNAMENT));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
  PetscCall(cu::GetTournamentInfo(d, &nt));
  ref::TournamentLeaves(n, nb, 32, leaves);
  CHECK(zc == -1 && finite && nt == (PetscInt)leaves.size() / 2, "tournament tf32 %s n %d: zero column %d, %d tournament leaves (expected %d)", kind, (int)n, (int)zc, (int)nt, (int)leaves.size() / 2);
  PetscCall(cu::GetFactors(d, lu.data(), piv.data()));
  std::vector<double> pa(a.begin(), a.end());
  for (PetscInt j = 0; j < n; j++)
    if (piv[j] >= j && piv[j] < n)
      for (PetscInt c = 0; c < n; c++) std::swap(pa[j + c * n], pa[piv[j] + c * n]);
  double r = 0, amax = 0, umax = 0;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt c = 0; c < n; c++) {
      double sum = 0;
      for (PetscInt k = 0; k <= PetscMin(i, c); k++) sum += (k == i ? 1.0 : lu[i + k * n]) * lu[k + c * n];
      r    = PetscMax(r, std::isnan(sum) ? INFINITY : std::fabs(pa[i + c * n] - sum));
      amax = PetscMax(amax, std::fabs(a[i + c * n]));
      if (i <= c) umax = PetscMax(umax, std::fabs(lu[i + c * n]));
    }
  const double g = umax / amax, tol = 4 * std::sqrt((double)n) * std::ldexp(1.0, -11) * g;
  CHECK(r / amax <= tol, "tournament tf32 %s n %d: max|PA - LU| / max|A| = %g > %g (growth %g)", kind, (int)n, r / amax, tol, g);
  std::vector<double> x(b.begin(), b.end());
  PetscCall(cu::SolveHost(d, PETSC_FALSE, 1, x.data(), n, &rr));
  const double be = DenseLUBackwardError(n, a.data(), x.data(), b.data(), 'N');
  CHECK(be < 1, "tournament tf32 %s n %d: backward error %g (%s)", kind, (int)n, be, rr.stop);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "tournament tf32 %s n %d nb %d look-ahead %d leaf swaps %d: %d leaves, max|PA - LU| / max|A| %.1e (growth %.1f), refined solve %s%s\n", kind, (int)n, (int)nb, (int)lookahead, (int)leafswaps, (int)nt, r / amax, g, rr.stop, rr.fellback ? ", fell back" : ""));
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The one-column solves (SetTrsv; denselu_trsv.cuh: inverted tiles, substitution) against cublasDtrsm's on the same
   FP64 factors: for the solve and the transpose solve, every backward error < 10 and each kernel's solution within tol
   ||x||_inf of trsm's (round-off of another order of the sums, times the condition); sizes around the kernel's 64-row
   blocks. With a mixed precision (GMRES-IR on the FP32 factors read by the kernel, or on their FP64 copy through
   trsm): all accepted without fallback, with the driver's backward error <= 1/sqrt(n), the same refinement steps, and
   GMRES iterations within 2 of trsm's */
static PetscErrorCode TrsvCompare(const char *kind, PetscInt n, double cond, double tol, dl::Precision prec = dl::PRECISION_DOUBLE)
{
  const char         *vname[] = {"trsm", "substitution", "inverse"};
  std::vector<double> a(n * n), b(n), x[3];
  PetscInt            zc;
  PetscBool           finite;
  dl::RefineResult    rr[3];
  cu::Data           *d;

  PetscFunctionBegin;
  DenseLUSeed(7000 + n);
  PetscCall(DenseLUMatrix(kind, n, cond, a.data()));
  for (auto &v : b) v = DenseLURand();
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetPrecision(d, prec));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
  CHECK(finite && zc < 0, "trsv %s n %d: factorization zerocol %d finite %d", kind, (int)n, (int)zc, (int)finite);
  for (int t = 0; t < 2; t++) {
    double dx[3] = {0, 0, 0}, xm = 0, be[3];
    for (int k = 0; k < 3; k++) {
      x[k] = b;
      PetscCall(cu::SetTrsv(d, k));
      PetscCall(cu::SolveHost(d, t ? PETSC_TRUE : PETSC_FALSE, 1, x[k].data(), n, &rr[k]));
      be[k] = DenseLUBackwardError(n, a.data(), x[k].data(), b.data(), t ? 'T' : 'N');
      CHECK(be[k] < 10, "trsv %s n %d %s (%s): backward error %g", kind, (int)n, t ? "transpose" : "solve", vname[k], be[k]);
      if (prec != dl::PRECISION_DOUBLE) CHECK(rr[k].converged && !rr[k].fellback && rr[k].berr <= 1.0 / std::sqrt((double)n), "trsv %s n %d %s (%s): refinement converged %d, fell back %d, backward error %g", kind, (int)n, t ? "transpose" : "solve", vname[k], (int)rr[k].converged, (int)rr[k].fellback, rr[k].berr);
    }
    for (int k = 1; k < 3; k++) {
      DenseLUMaxDiff(n, x[k].data(), x[0].data(), &dx[k], &xm);
      CHECK(dx[k] <= tol * xm, "trsv %s n %d %s: max |x_%s - x_trsm| = %g, %g of max |x|", kind, (int)n, t ? "transpose" : "solve", vname[k], dx[k], dx[k] / xm);
      if (prec != dl::PRECISION_DOUBLE) CHECK(rr[k].steps == rr[0].steps && std::abs((int)(rr[k].gmres_its - rr[0].gmres_its)) <= 2, "trsv %s n %d %s: %d steps %d GMRES its (%s), %d steps %d its (trsm)", kind, (int)n, t ? "transpose" : "solve", (int)rr[k].steps, (int)rr[k].gmres_its, vname[k], (int)rr[0].steps, (int)rr[0].gmres_its);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "trsv %s n %d %s%s: backward errors %.2g (inverse) %.2g (substitution) %.2g (trsm), differences %.2g %.2g of max|x|%s\n", kind, (int)n, prec == dl::PRECISION_DOUBLE ? "" : "tf32 ", t ? "transpose" : "solve", be[2], be[1], be[0], dx[2] / xm, dx[1] / xm, prec == dl::PRECISION_DOUBLE ? "" : (", GMRES its " + std::to_string((long long)rr[2].gmres_its) + ", " + std::to_string((long long)rr[1].gmres_its) + ", " + std::to_string((long long)rr[0].gmres_its)).c_str()));
  }
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fused path's OnChipLUKernel (SetFusedOnChip; -onchip): PATH_FUSED on kind, n, in precision prec. FP64: the
   reference's pivots (ties included: the Wilkinson matrix's column ties go to the first row), zero column, factors
   within 1e-12 relative (random, diagdom), solves' backward error < 10 (not Wilkinson's: growth 2^(n-1)); tf32: refined solves without fallback, backward
   error < 1. GetInfo's path must be "fused on-chip" (expect_onchip: n <= 1024 with the kernel on) or "fused" */
static PetscErrorCode OnChipCompare(const char *kind, PetscInt n, double cond, PetscBool onchip, PetscBool expect_onchip, dl::Precision prec = dl::PRECISION_DOUBLE)
{
  std::vector<double>   a(n * n), lr(n * n);
  std::vector<PetscInt> pr(n);
  PetscInt              zr, zc, nbu;
  PetscBool             finite;
  cu::Data             *d;
  const char           *path;
  char                  what[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(what, sizeof(what), "on-chip %s n %d onchip %d%s", kind, (int)n, (int)onchip, prec == dl::PRECISION_DOUBLE ? "" : " tf32"));
  DenseLUSeed(7000 + n);
  PetscCall(DenseLUMatrix(kind, n, cond, a.data()));
  lr = a;
  PetscCall(ref::Factor(n, lr.data(), n, 32, pr.data(), &zr));
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetPath(d, dl::PATH_FUSED, 0));
  PetscCall(cu::SetFusedOnChip(d, onchip));
  PetscCall(cu::SetPrecision(d, prec));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
  PetscCall(cu::GetInfo(d, &path, &nbu, NULL));
  CHECK(!std::strcmp(path, expect_onchip ? "fused on-chip" : "fused"), "%s: path %s", what, path);
  if (prec == dl::PRECISION_DOUBLE) {
    CHECK(finite && zc == zr, "%s: cuda zerocol %d finite %d, reference zerocol %d", what, (int)zc, (int)finite, (int)zr);
    PetscCall(CheckFactors(d, n, lr, pr, (!std::strcmp(kind, "random") || !std::strcmp(kind, "diagdom")) ? PETSC_TRUE : PETSC_FALSE, what));
    if (zr < 0 && std::strcmp(kind, "wilkinson")) PetscCall(DenseLUCheckSolves(d, n, a, 3, 10, PETSC_FALSE, what)); /* Wilkinson's growth 2^(n-1) spoils any partially pivoted solve: its pivots are the check */
  } else PetscCall(DenseLUCheckSolves(d, n, a, 2, 1, PETSC_TRUE, what));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: path %s, zero column %d\n", what, path, (int)zc));
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt sizes[] = {1, 33, 100, 127, 128, 129, 257, 700};

  PetscFunctionBeginUser;
  PetscBool      tournament = PETSC_FALSE, trsv = PETSC_FALSE;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-tournament", &tournament, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-trsv", &trsv, NULL));
  PetscBool rbt = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-rbt", &rbt, NULL));
  if (rbt) { /* only the random butterfly checks */
    PetscCall(RbtCompare("random", 300, 64, 2, dl::PRECISION_DOUBLE, PETSC_FALSE, PETSC_TRUE, 0));
    PetscCall(RbtCompare("random", 301, 32, 3, dl::PRECISION_DOUBLE, PETSC_TRUE, PETSC_TRUE, 0)); /* odd lengths at every level */
    PetscCall(RbtCompare("random", 1000, 128, 2, dl::PRECISION_DOUBLE, PETSC_TRUE, PETSC_TRUE, 0));
    PetscCall(RbtCompare("zerolead", 257, 64, 1, dl::PRECISION_DOUBLE, PETSC_TRUE, PETSC_TRUE, 0));
    PetscCall(RbtCompare("illcond", 400, 64, 2, dl::PRECISION_DOUBLE, PETSC_TRUE, PETSC_TRUE, 0));
    PetscCall(RbtCompare("random", 1000, 128, 2, dl::PRECISION_TF32, PETSC_TRUE, PETSC_FALSE, 0)); /* low precision: not transformed */
    PetscCall(RbtCompare("singular", 300, 64, 2, dl::PRECISION_DOUBLE, PETSC_TRUE, PETSC_FALSE, 1)); /* breakdown: partial pivoting finds column 153 */
    PetscCall(RbtCompare("diagdom", 300, 64, 2, dl::PRECISION_DOUBLE, PETSC_TRUE, PETSC_FALSE, 0)); /* dominant: no pivot search, no transformation */
    PetscCall(RbtCompare("random", 100, 64, 2, dl::PRECISION_DOUBLE, PETSC_FALSE, PETSC_FALSE, 0, dl::PATH_FUSED)); /* the fused path keeps its pivot search */
    PetscCall(RbtCompare("random", 1, 64, 2, dl::PRECISION_DOUBLE, PETSC_FALSE, PETSC_FALSE, 0));
    if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", nfail));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
    PetscCall(PetscFinalize());
    return nfail ? 1 : 0;
  }
  PetscBool x3 = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-tf32x3", &x3, NULL));
  if (x3) { /* only the tf32x3 checks: the recursive panels' products, the blocked loop with and without look-ahead, the leaves without pivoting */
    PetscCall(Tf32x3Compare("random", 1000, 128, PETSC_FALSE, dl::NOPIVOT_NEVER, 4));
    PetscCall(Tf32x3Compare("random", 1000, 128, PETSC_TRUE, dl::NOPIVOT_NEVER, 4));
    PetscCall(Tf32x3Compare("random", 777, 256, PETSC_TRUE, dl::NOPIVOT_NEVER, 4));
    PetscCall(Tf32x3Compare("zerolead", 600, 64, PETSC_TRUE, dl::NOPIVOT_NEVER, 4));
    PetscCall(Tf32x3Compare("diagdom", 1000, 128, PETSC_TRUE, dl::NOPIVOT_AUTO, 3));
    /* the pivoted FP32 panels by cusolverDnSgetrf (SetLowPanel; MATSOLVERPGX's default): every panel, the same checks */
    PetscCall(Tf32x3Compare("random", 1000, 128, PETSC_TRUE, dl::NOPIVOT_NEVER, 4, dl::PANEL_CUSOLVER));
    PetscCall(Tf32x3Compare("random", 777, 256, PETSC_FALSE, dl::NOPIVOT_NEVER, 4, dl::PANEL_CUSOLVER));
    PetscCall(Tf32x3Compare("zerolead", 600, 64, PETSC_TRUE, dl::NOPIVOT_NEVER, 4, dl::PANEL_CUSOLVER));
    PetscCall(Tf32x3Compare("diagdom", 1000, 128, PETSC_TRUE, dl::NOPIVOT_AUTO, 3, dl::PANEL_CUSOLVER)); /* no pivot search: no panels */
    if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", nfail));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
    PetscCall(PetscFinalize());
    return nfail ? 1 : 0;
  }
  PetscBool onchip = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-onchip", &onchip, NULL));
  if (onchip) { /* only the fused path's kernels: sizes around its block columns of 16 and its limit 1024 */
    for (PetscInt n : {1, 2, 15, 16, 17, 31, 33, 100, 255, 256, 257, 500, 1000, 1023, 1024}) PetscCall(OnChipCompare("random", n, 0, PETSC_TRUE, PETSC_TRUE));
    PetscCall(OnChipCompare("random", 1025, 0, PETSC_TRUE, PETSC_FALSE)); /* above its limit: PanelKernel */
    PetscCall(OnChipCompare("random", 300, 0, PETSC_FALSE, PETSC_FALSE));  /* turned off: PanelKernel */
    PetscCall(OnChipCompare("zerolead", 129, 0, PETSC_TRUE, PETSC_TRUE));
    PetscCall(OnChipCompare("wilkinson", 60, 0, PETSC_TRUE, PETSC_TRUE)); /* ties in every pivot search: the first row */
    PetscCall(OnChipCompare("singular", 100, 0, PETSC_TRUE, PETSC_TRUE)); /* zero column 53: left unscaled */
    PetscCall(OnChipCompare("singular", 1000, 0, PETSC_TRUE, PETSC_TRUE));
    PetscCall(OnChipCompare("illcond", 700, 1e8, PETSC_TRUE, PETSC_TRUE));
    PetscCall(OnChipCompare("diagdom", 513, 0, PETSC_TRUE, PETSC_TRUE));
    PetscCall(OnChipCompare("cluster", 300, 1e6, PETSC_TRUE, PETSC_TRUE, dl::PRECISION_TF32)); /* FP32 factors by the same kernel, refined */
    PetscCall(OnChipCompare("diagdom", 1000, 0, PETSC_TRUE, PETSC_TRUE, dl::PRECISION_TF32));
    if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", nfail));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
    PetscCall(PetscFinalize());
    return nfail ? 1 : 0;
  }
  if (trsv) { /* only the one-column solve checks */
    for (PetscInt n : {1, 2, 31, 63, 64, 65, 127, 129, 200, 1000, 2049, 4100}) PetscCall(TrsvCompare("random", n, 0, 1e-9));
    PetscCall(TrsvCompare("illcond", 1100, 1e8, 1e-5)); /* 18 blocks: the 17th and 18th by inverted tiles */
    PetscCall(TrsvCompare("zerolead", 777, 0, 1e-9));
    PetscCall(TrsvCompare("cluster", 700, 1e6, 1e-6, dl::PRECISION_TF32));
    PetscCall(TrsvCompare("diagdom", 3000, 0, 1e-12, dl::PRECISION_TF32));
    if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", nfail));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
    PetscCall(PetscFinalize());
    return nfail ? 1 : 0;
  }
  if (tournament) { /* only the tournament pivoting checks */
    PetscCall(TournamentPanels());
    PetscCall(TournamentFactor("random", 1000, 128, PETSC_FALSE, PETSC_FALSE));
    PetscCall(TournamentFactor("diagdom", 1300, 256, PETSC_TRUE, PETSC_TRUE));
    PetscCall(TournamentFactor("zerolead", 700, 64, PETSC_TRUE, PETSC_FALSE));
    if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", nfail));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
    PetscCall(PetscFinalize());
    return nfail ? 1 : 0;
  }
  for (PetscInt n : sizes)
    for (PetscInt nb : {32, 64}) PetscCall(Compare("random", n, nb, 0));
  for (PetscInt n : {129, 257, 700}) /* look-ahead: the same operations in another order: the same checks */
    for (PetscInt nb : {32, 64}) PetscCall(Compare("random", n, nb, 0, PETSC_TRUE));
  PetscCall(Compare("singular", 257, 32, 0, PETSC_TRUE));
  /* leaf widths 8, 16, 32 (leaves of 4..32 columns: the W = 8, 16, 32 cooperative kernels), the one-block leaf,
     block sizes 48 (not a power of two), 256 and 1024, several cooperative blocks (m > 256 rows) */
  for (PetscInt leaf : {8, 16, 32})
    for (PetscInt nb : {48, 256}) PetscCall(Compare("random", 700, nb, 0, PETSC_FALSE, leaf));
  PetscCall(Compare("random", 700, 64, 0, PETSC_FALSE, 32, PETSC_FALSE));
  PetscCall(Compare("random", 700, 64, 0, PETSC_TRUE, 16, PETSC_FALSE));
  PetscCall(Compare("random", 1500, 256, 0, PETSC_TRUE, 32));
  PetscCall(Compare("random", 1100, 1024, 0, PETSC_FALSE, 12));
  PetscCall(Compare("random", 33, 8, 0, PETSC_FALSE, 5, PETSC_TRUE, 16)); /* blocked below the fused default */
  PetscCall(Compare("zerolead", 300, 64, 0, PETSC_TRUE, 8));
  PetscCall(Compare("singular", 300, 64, 0, PETSC_FALSE, 16));
  PetscCall(Compare("singular", 300, 64, 0, PETSC_FALSE, 16, PETSC_FALSE));
  PetscCall(Compare("illcond", 257, 32, 1e6));
  PetscCall(Compare("zerolead", 129, 32, 0));
  PetscCall(Compare("singular", 257, 32, 0));
  PetscCall(Compare("singular", 100, 32, 0));
  /* cond 1e6 in one direction: GMRES-IR reaches FP64 accuracy. Graded 1e6 (hundreds of singular values below the
     tf32 factor's error) needs more GMRES iterations than a correction allows: fallback or not, reported */
  PetscCall(Mixed(dl::PRECISION_TF32, "tf32", "cluster", 300, 1e6, 0));
  PetscCall(Mixed(dl::PRECISION_HALF, "half", "cluster", 300, 1e6, -1));
  PetscCall(Mixed(dl::PRECISION_TF32, "tf32", "illcond", 300, 1e6, -1));
  PetscCall(Mixed(dl::PRECISION_BF16, "bf16", "illcond", 300, 1e2, 0));
  PetscCall(Mixed(dl::PRECISION_HALF, "half", "illcond", 300, 1e3, 0));
  PetscCall(Mixed(dl::PRECISION_TF32, "tf32", "illcond", 300, 1e14, 1));
  PetscCall(Mixed(dl::PRECISION_HALF, "half", "illcond", 300, 1e14, 1));
  PetscCall(Mixed(dl::PRECISION_TF32, "tf32", "diagdom", 1000, 0, 0));
  PetscCall(Mixed(dl::PRECISION_BF16, "bf16", "diagdom", 1000, 0, 0, PETSC_TRUE));
  PetscCall(Mixed(dl::PRECISION_TF32, "tf32", "random", 1000, 0, -1));
  PetscCall(Mixed(dl::PRECISION_BF16, "bf16", "random", 1000, 0, -1, PETSC_TRUE));
  for (dl::Precision prec : {dl::PRECISION_DOUBLE, dl::PRECISION_TF32})
    for (PetscBool la : {PETSC_FALSE, PETSC_TRUE}) PetscCall(Profiled(prec, la));
  for (PetscBool la : {PETSC_FALSE, PETSC_TRUE}) {
    PetscCall(NoPivotCompare("diagdom", 129, 32, la, dl::NOPIVOT_AUTO, PETSC_TRUE, 0));
    PetscCall(NoPivotCompare("diagdom", 257, 64, la, dl::NOPIVOT_AUTO, PETSC_TRUE, 0));
    PetscCall(NoPivotCompare("diagdom", 700, 48, la, dl::NOPIVOT_AUTO, PETSC_TRUE, 0));
    PetscCall(NoPivotCompare("diagdom", 1500, 256, la, dl::NOPIVOT_AUTO, PETSC_TRUE, 0));
  }
  PetscCall(NoPivotCompare("diagdom", 1300, 1024, PETSC_TRUE, dl::NOPIVOT_AUTO, PETSC_TRUE, 0)); /* the largest block size (FP64 default from n = 16384) */
  PetscCall(NoPivotCompare("diagdom", 33, 8, PETSC_FALSE, dl::NOPIVOT_AUTO, PETSC_TRUE, 0, dl::PRECISION_DOUBLE, 16)); /* blocked below the fused default */
  PetscCall(NoPivotCompare("diagdom", 100, 32, PETSC_TRUE, dl::NOPIVOT_AUTO, PETSC_TRUE, 0)); /* below nsmall: blocked, without pivoting */
  PetscCall(NoPivotCompare("diagdom", 1, 32, PETSC_TRUE, dl::NOPIVOT_AUTO, PETSC_TRUE, 0));
  PetscCall(NoPivotCompare("diagdom", 100, 32, PETSC_TRUE, dl::NOPIVOT_AUTO, PETSC_FALSE, 0, dl::PRECISION_DOUBLE, 128, dl::PATH_FUSED)); /* the fused path asked for: pivot search */
  PetscCall(NoPivotCompare("diagdom", 700, 64, PETSC_TRUE, dl::NOPIVOT_NEVER, PETSC_FALSE, 0));
  PetscCall(NoPivotCompare("diagdom", 700, 64, PETSC_TRUE, dl::NOPIVOT_ALWAYS, PETSC_TRUE, 0));
  PetscCall(NoPivotCompare("random", 700, 64, PETSC_TRUE, dl::NOPIVOT_AUTO, PETSC_FALSE, 0));
  PetscCall(NoPivotCompare("random", 700, 64, PETSC_TRUE, dl::NOPIVOT_ALWAYS, PETSC_FALSE, 1));
  PetscCall(NoPivotCompare("zerolead", 300, 64, PETSC_FALSE, dl::NOPIVOT_ALWAYS, PETSC_FALSE, 1));
  PetscCall(NoPivotCompare("singular", 300, 64, PETSC_TRUE, dl::NOPIVOT_ALWAYS, PETSC_FALSE, 1));
  PetscCall(NoPivotCompare("diagdom", 1000, 128, PETSC_TRUE, dl::NOPIVOT_AUTO, PETSC_TRUE, 0, dl::PRECISION_TF32));
  PetscCall(NoPivotCompare("diagdom", 1000, 128, PETSC_TRUE, dl::NOPIVOT_AUTO, PETSC_TRUE, 0, dl::PRECISION_HALF));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
