static char help[] = "Dense LU reference kernels: a hand-checked 3x3, pivots and factors equal to LAPACK dgetrf's, solves.\n";
/* Checks: the 3x3 factors and pivots written out below for every block size; Wilkinson's matrix (n = 40) gives U(k,n-1) = 2^k exactly and no
   interchanges; on random matrices of awkward
   sizes and several block sizes the pivots equal dgetrf's (ipiv + 1) and the factors agree to 1e-12
   (relative to max |LU|; except on the cond 1e8 matrix, where only the pivots are compared); solves (1 and 3 right-hand sides, A and A^T) have backward error < 10 and match
   dgetrs to 1e-12; an exactly zero pivot is reported in dgetrf's column (info - 1).
   Refinement driver (denselu_refine.h) with scripted residuals: the acceptance test, the switch to GMRES-IR, the
   stop on stagnation, on a non-finite residual, when the rate predicts the step limit ("too slow") and when a GMRES-IR
   correction stalls (scripted Arnoldi columns: 10 iterations, no update), frozen converged columns.
   Mixed precision on the host (emulated tf32/half/bf16): accepted solutions have backward error <= 1/sqrt(n)
   (issue 14's units; the driver's test), fallbacks happen within 4 steps and 20 GMRES iterations and give FP64 LU's backward error (< 1);
   RoundToBits is exact on hand-checked values.
   Swap plan (denselu_swapplan.h, the cuda LaswpKernel's gather): equal to the sequential interchanges on seeded
   pivot sequences with repeated rows below the block, rows inside it, no interchange, and kb 1..1024. */
#include <petscsys.h>
#include <vector>
#include <cmath>
#include <cstring>
#include "../../src/mat/impls/denselu/denselu_kernels.h"
#include <string>
#include "../../src/mat/impls/denselu/denselu_swapplan.h"
#define PGX_TEST_PLAIN_CHECK
#include "../common/pgxtest.h"

#if defined(PETSC_USE_COMPLEX)
/* Real scalars only: denselu test_kernels (compares with LAPACK dgetrf on real matrices). Its tests are marked 'real'. */
int main(void)
{
  (void)help; /* the real build's -help text */
  printf("denselu test_kernels: needs real scalars\n");
  return 1;
}
#else
  #include "denselu_matrices.h"

namespace ref = pgx::kernels::denselu::reference;
static int nfail = 0;

static PetscErrorCode Hand3x3(void)
{
  const double a0[9] = {1, 4, 7, 2, 5, 8, 3, 6, 10}; /* [1 2 3; 4 5 6; 7 8 10], column-major */
  const double lu[9] = {7, 1.0 / 7, 4.0 / 7, 8, 6.0 / 7, 0.5, 10, 11.0 / 7, -0.5};
  PetscFunctionBegin;
  for (PetscInt nb = 1; nb <= 4; nb++) {
    double   a[9];
    PetscInt ipiv[3], zc;
    for (int i = 0; i < 9; i++) a[i] = a0[i];
    PetscCall(ref::Factor(3, a, 3, nb, ipiv, &zc));
    CHECK(ipiv[0] == 2 && ipiv[1] == 2 && ipiv[2] == 2, "3x3 nb %d: pivots %d %d %d, expected 2 2 2", (int)nb, (int)ipiv[0], (int)ipiv[1], (int)ipiv[2]);
    CHECK(zc == -1, "3x3: zerocol %d", (int)zc);
    for (int i = 0; i < 9; i++) CHECK(std::fabs(a[i] - lu[i]) < 1e-15, "3x3 nb %d: lu[%d] = %.17g, expected %.17g", (int)nb, i, a[i], lu[i]);
    double b[3] = {6, 15, 25}; /* x = (1,1,1) */
    PetscCall(ref::Solve(3, a, 3, ipiv, PETSC_FALSE, 1, b, 3));
    for (int i = 0; i < 3; i++) CHECK(std::fabs(b[i] - 1.0) < 1e-14, "3x3 solve x[%d] = %.17g", i, b[i]);
    double bt[3] = {12, 15, 19}; /* A^T (1,1,1) */
    PetscCall(ref::Solve(3, a, 3, ipiv, PETSC_TRUE, 1, bt, 3));
    for (int i = 0; i < 3; i++) CHECK(std::fabs(bt[i] - 1.0) < 1e-14, "3x3 transpose solve x[%d] = %.17g", i, bt[i]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompareLapack(const char *kind, PetscInt n, PetscInt nb)
{
  std::vector<double>       a(n * n), lu(n * n), la(n * n);
  std::vector<PetscInt>     ipiv(n);
  std::vector<PetscBLASInt> lpiv(n);
  PetscBLASInt              bn, info, nrhs = 3;
  PetscInt                  zc;

  PetscFunctionBegin;
  DenseLUSeed(1000 + n);
  PetscCall(DenseLUMatrix(kind, n, 1e8, a.data()));
  lu = a, la = a;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(ref::Factor(n, lu.data(), n, nb, ipiv.data(), &zc));
  LAPACKgetrf_(&bn, &bn, la.data(), &bn, lpiv.data(), &info);
  if (!std::strcmp(kind, "singular")) {
    CHECK(zc == DenseLUSingularColumn(n) && info == zc + 1, "%s n %d: zerocol %d, dgetrf info %d", kind, (int)n, (int)zc, (int)info);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  CHECK(zc == -1 && info == 0, "%s n %d nb %d: zerocol %d, info %d", kind, (int)n, (int)nb, (int)zc, (int)info);
  PetscInt npdiff = 0;
  double   d = 0, m = 0;
  for (PetscInt k = 0; k < n; k++) npdiff += (ipiv[k] + 1 != lpiv[k]);
  for (PetscInt i = 0; i < n * n; i++) d = PetscMax(d, std::fabs(lu[i] - la[i])), m = PetscMax(m, std::fabs(la[i]));
  CHECK(npdiff == 0, "%s n %d nb %d: %d pivots differ from dgetrf's", kind, (int)n, (int)nb, (int)npdiff);
  if (std::strcmp(kind, "illcond")) /* ill-conditioned: round-off of other blockings is amplified; pivots still equal */
    CHECK(d <= 1e-12 * m, "%s n %d nb %d: max |LU - LU_lapack| = %g (max |LU| %g)", kind, (int)n, (int)nb, d, m);
  /* solves */
  for (int t = 0; t < 2; t++) {
    std::vector<double> b(n * nrhs), x, xl;
    for (auto &v : b) v = DenseLURand();
    x = b, xl = b;
    PetscCall(ref::Solve(n, lu.data(), n, ipiv.data(), t ? PETSC_TRUE : PETSC_FALSE, nrhs, x.data(), n));
    LAPACKgetrs_(t ? "T" : "N", &bn, &nrhs, la.data(), &bn, lpiv.data(), xl.data(), &bn, &info);
    for (PetscInt r = 0; r < nrhs; r++) {
      double be = DenseLUBackwardError(n, a.data(), x.data() + r * n, b.data() + r * n, t ? 'T' : 'N'), dx = 0, mx = 0;
      CHECK(be < 10, "%s n %d nb %d %s rhs %d: backward error %g", kind, (int)n, (int)nb, t ? "transpose" : "solve", (int)r, be);
      for (PetscInt i = 0; i < n; i++) dx = PetscMax(dx, std::fabs(x[i + r * n] - xl[i + r * n])), mx = PetscMax(mx, std::fabs(xl[i + r * n]));
      if (!std::strcmp(kind, "random")) CHECK(dx <= 1e-10 * mx, "%s n %d: solution differs from dgetrs by %g (max %g)", kind, (int)n, dx, mx);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Wilkinson's example: no interchanges (ties resolved to the first row, as dgetrf), U's last column 2^i exactly */
static PetscErrorCode WilkinsonGrowth(PetscInt n)
{
  std::vector<double>   a(n * n);
  std::vector<PetscInt> ipiv(n);
  PetscInt              zc, bad = 0;

  PetscFunctionBegin;
  DenseLUWilkinson(n, a.data());
  PetscCall(ref::Factor(n, a.data(), n, 7, ipiv.data(), &zc));
  for (PetscInt k = 0; k < n; k++) bad += (ipiv[k] != k) + (a[k + (n - 1) * n] != std::ldexp(1.0, (int)k));
  CHECK(bad == 0 && zc == -1, "wilkinson n %d: %d pivots or growth entries wrong (U(n-1,n-1) = %g, expected 2^%d)", (int)n, (int)bad, a[n * n - 1], (int)(n - 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Scripted residual norms: rs[step][c] (step 0: ||b||); xn = 1, ||A|| = 1, n = 4 (tol = 2 eps) */
struct MockOps {
  std::vector<std::vector<PetscReal>> rs;
  PetscInt                            step = 0, nplain = 0, ngmres = 0, k = 1, nstart = 0;
  std::vector<PetscInt>               plain_active; /* active mask of the last Plain, as a bit set */
  std::string                         phases;       /* the profile hooks called: R(esidual) L(ow solve) G(mres), closed by '.' */
  int                                 open = -1, badpair = 0, badcall = 0; /* phase open; pairs that do not match; calls outside their phase */
  PetscErrorCode PhaseBegin(pgx::kernels::denselu::Phase p)
  {
    if (open >= 0) badpair++;
    open = (int)p;
    phases += p == pgx::kernels::denselu::PHASE_RESIDUAL ? 'R' : (p == pgx::kernels::denselu::PHASE_LOWSOLVE ? 'L' : (p == pgx::kernels::denselu::PHASE_GMRES ? 'G' : '?'));
    return PETSC_SUCCESS;
  }
  PetscErrorCode PhaseEnd(pgx::kernels::denselu::Phase p)
  {
    if (open != (int)p) badpair++;
    open = -1;
    phases += '.';
    return PETSC_SUCCESS;
  }
  PetscInt  N() const { return 4; }
  PetscInt  K() const { return k; }
  PetscReal ANorm() const { return 1.0; }
  PetscErrorCode Start(PetscReal *rn, PetscReal *xn)
  {
    if (open != pgx::kernels::denselu::PHASE_RESIDUAL) badcall++;
    for (PetscInt c = 0; c < k; c++) rn[c] = rs[0][c], xn[c] = 1.0;
    if (!nstart++) step = 0; /* a second Start (the first plain step discarded) keeps the script's step */
    return PETSC_SUCCESS;
  }
  PetscErrorCode Plain(const PetscBool *active)
  {
    PetscInt bits = 0;
    if (open != pgx::kernels::denselu::PHASE_LOWSOLVE) badcall++;
    for (PetscInt c = 0; c < k; c++) bits |= active[c] ? 1 << c : 0;
    plain_active.push_back(bits);
    nplain++;
    return PETSC_SUCCESS;
  }
  PetscErrorCode Residual(PetscReal *rn, PetscReal *xn)
  {
    if (open != pgx::kernels::denselu::PHASE_RESIDUAL) badcall++;
    step++;
    for (PetscInt c = 0; c < k; c++) rn[c] = rs[PetscMin(step, (PetscInt)rs.size() - 1)][c], xn[c] = 1.0;
    return PETSC_SUCCESS;
  }
  PetscErrorCode GmresPrepare(void)
  {
    if (open != pgx::kernels::denselu::PHASE_GMRES) badcall++;
    return PETSC_SUCCESS;
  }
  PetscErrorCode GmresStart(PetscInt c, PetscReal *beta)
  {
    if (open != pgx::kernels::denselu::PHASE_GMRES) badcall++;
    ngmres++;
    *beta = hdiag > 0 ? 1.0 : 0.0; /* hdiag 0: no correction, the script decides the residuals */
    return PETSC_SUCCESS;
  }
  /* hdiag > 0: Arnoldi columns h = (0, .., 0, hdiag, 1): each Givens rotation reduces |g| by about
     1 / hypot(hdiag', 1) (hdiag 10: ~10x per iteration; hdiag 1: slower and slower, the stall rule's case) */
  PetscReal hdiag = 0;
  PetscInt  narnoldi = 0, nupdate = 0;
  /* recycling: what the driver kept (j columns; keeperr = max |Q - Hbar Ri| and max |Q^T Q - I| for the mock's Hbar),
     the projections (projnrm: the norm the projection leaves, scripted) and the U updates */
  PetscInt  nkeep = 0, keptj = 0, nproject = 0, nrupdate = 0;
  PetscReal keeperr = 0, projnrm = 1;
  PetscErrorCode RecycleKeep(PetscInt j, const PetscReal *Q, const PetscReal *Ri)
  {
    nkeep++;
    keptj = j;
    for (PetscInt col = 0; col < j; col++)
      for (PetscInt i = 0; i <= j; i++) {
        PetscReal hr = 0, qq = 0; /* (Hbar Ri)(i, col), Hbar(i, l) = hdiag (i == l), 1 (i == l + 1); (Q^T Q)(col, i) */
        for (PetscInt l = 0; l <= col; l++) hr += (i == l ? hdiag : (i == l + 1 ? 1.0 : 0.0)) * Ri[l + col * j];
        keeperr = PetscMax(keeperr, std::fabs(Q[i + col * (j + 1)] - hr));
        if (i < j) {
          for (PetscInt l = 0; l <= j; l++) qq += Q[l + col * (j + 1)] * Q[l + i * (j + 1)];
          keeperr = PetscMax(keeperr, std::fabs(qq - (i == col ? 1.0 : 0.0)));
        }
      }
    return PETSC_SUCCESS;
  }
  PetscErrorCode RecycleProject(PetscInt, PetscInt kr, PetscReal, PetscReal *nrm)
  {
    if (kr != keptj) badcall++;
    nproject++;
    *nrm = projnrm;
    return PETSC_SUCCESS;
  }
  PetscErrorCode RecycleUpdate(PetscInt, PetscInt kr, const PetscReal *)
  {
    if (kr != keptj) badcall++;
    nrupdate++;
    return PETSC_SUCCESS;
  }
  PetscErrorCode GmresArnoldi(PetscInt j, PetscReal *h, PetscReal *)
  {
    for (PetscInt i = 0; i < j; i++) h[i] = 0;
    h[j]     = hdiag;
    h[j + 1] = 1;
    narnoldi++;
    return PETSC_SUCCESS;
  }
  PetscErrorCode GmresUpdate(PetscInt, PetscInt, const PetscReal *)
  {
    nupdate++;
    return PETSC_SUCCESS;
  }
};

static PetscErrorCode Driver(const char *what, std::vector<std::vector<PetscReal>> rs, PetscInt k, PetscBool gmres, PetscInt steps, PetscInt gsteps, PetscBool conv, const char *stop, PetscInt last_plain_mask = -1, const char *phases = NULL, PetscReal hdiag = 0, PetscInt its = -1, PetscInt updates = -1, PetscReal margin = 0, PetscInt plain_min = 1)
{
  namespace dl = pgx::kernels::denselu;
  MockOps           ops;
  dl::RefineOptions o = dl::RefineOptionsDefault();
  dl::RefineResult  r;

  PetscFunctionBegin;
  ops.rs    = rs;
  ops.k     = k;
  ops.hdiag = hdiag;
  o.gmres   = gmres;
  o.gmres_margin = margin;
  o.plain_min    = plain_min;
  PetscCall(dl::Refine(ops, o, &r));
  if (its >= 0) CHECK(r.gmres_its == its && ops.narnoldi == its, "driver %s: %d GMRES iterations (%d Arnoldi steps), expected %d", what, (int)r.gmres_its, (int)ops.narnoldi, (int)its);
  if (updates >= 0) CHECK(ops.nupdate == updates, "driver %s: %d GMRES-IR updates of X, expected %d", what, (int)ops.nupdate, (int)updates);
  CHECK(r.steps == steps && r.gmres_steps == gsteps && r.converged == conv && !std::strcmp(r.stop, stop), "driver %s: %d steps (%d GMRES-IR), converged %d, stop %s; expected %d (%d), %d, %s", what, (int)r.steps, (int)r.gmres_steps, (int)r.converged, r.stop, (int)steps, (int)gsteps, (int)conv, stop);
  if (last_plain_mask >= 0) CHECK(!ops.plain_active.empty() && ops.plain_active.back() == last_plain_mask, "driver %s: last plain step on columns %d, expected %d", what, ops.plain_active.empty() ? -1 : (int)ops.plain_active.back(), (int)last_plain_mask);
  CHECK(!ops.badpair && !ops.badcall && ops.open < 0, "driver %s: profile phases %s: %d unmatched begin/end, %d operations outside their phase", what, ops.phases.c_str(), ops.badpair, ops.badcall);
  if (phases) CHECK(ops.phases == phases, "driver %s: profile phases %s, expected %s", what, ops.phases.c_str(), phases);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DriverRules(void)
{
  const PetscReal e = PETSC_MACHINE_EPSILON, nan = NAN;
  PetscFunctionBegin;
  /* plain steps each reducing > 10x until ||r|| <= 2 eps: converged, no GMRES-IR */
  PetscCall(Driver("plain", {{1}, {1e-3}, {1e-7}, {1e-11}, {1.5 * e}}, 1, PETSC_TRUE, 4, 0, PETSC_TRUE, "converged"));
  /* the acceptance test is sqrt(n) eps ||A|| ||x|| = 2 eps: 2.5 eps is not accepted, then stagnation */
  PetscCall(Driver("threshold", {{1}, {1e-3}, {1e-9}, {2.5 * e}, {2.4 * e}}, 1, PETSC_FALSE, 4, 0, PETSC_FALSE, "stagnated"));
  /* a plain step reducing only 2x switches to GMRES-IR, which converges */
  PetscCall(Driver("to gmres", {{1}, {1e-3}, {5e-4}, {1e-9}, {1e-17}}, 1, PETSC_TRUE, 4, 2, PETSC_TRUE, "converged", -1, "R.L.R.L.R.G.R.G.R."));
  /* a GMRES-IR step reducing only 2x ends the refinement: fallback after 3 steps */
  PetscCall(Driver("gmres stagnates", {{1}, {1e-3}, {5e-4}, {3e-4}}, 1, PETSC_TRUE, 3, 1, PETSC_FALSE, "stagnated"));
  /* without GMRES-IR the slow plain step ends it */
  PetscCall(Driver("no gmres", {{1}, {1e-3}, {5e-4}}, 1, PETSC_FALSE, 2, 0, PETSC_FALSE, "stagnated"));
  /* growth stops at once */
  PetscCall(Driver("growth", {{1}, {10}}, 1, PETSC_FALSE, 1, 0, PETSC_FALSE, "stagnated"));
  PetscCall(Driver("nan", {{1}, {1e-3}, {nan}}, 1, PETSC_TRUE, 2, 0, PETSC_FALSE, "not finite"));
  /* 12x per step from 1e10 does not reach 2 eps in 20 steps: after step 1 the rate predicts 24 more (1e10/12 / 2 eps
     = 1.9e25 = 12^23.5), so it stops at once ("too slow") instead of at the step limit */
  {
    std::vector<std::vector<PetscReal>> rs = {{1e10}};
    for (int i = 1; i <= 22; i++) rs.push_back({rs.back()[0] / 12});
    PetscCall(Driver("too slow", rs, 1, PETSC_FALSE, 1, 0, PETSC_FALSE, "too slow"));
  }
  /* 1e-3 then 12x per step from 1: after step 1, log(1e-3 / 2 eps) / log(1000) = 4.2: go on; after step 2 (12x) the
     rate predicts ceil(log(8.3e-5 / 2 eps) / log 12) = 11 more, 13 <= 20: go on, and so on: converges after 13 steps */
  {
    std::vector<std::vector<PetscReal>> rs = {{1}, {1e-3}};
    for (int i = 2; i <= 16; i++) rs.push_back({rs.back()[0] / 12});
    PetscCall(Driver("slow but enough", rs, 1, PETSC_FALSE, 13, 0, PETSC_TRUE, "converged"));
  }
  /* GMRES-IR whose Krylov residual falls about 10x per iteration (0.0995x): 8 iterations reach gmres_rtol 1e-8, no
     stall */
  PetscCall(Driver("gmres fast", {{1}, {1e-3}, {5e-4}, {1e-17}}, 1, PETSC_TRUE, 3, 1, PETSC_TRUE, "converged", -1, NULL, 10.0, 8, 1));
  /* with -mat_pgx_lu_gmres_margin 0.01 the tolerance is the reduction the column still needs times the margin,
     rtol = max(1e-13, min(gmres_rtol 1e-8, 0.01 / s)), s = ||r|| / (2 eps): s = 5e-4 / 4.4e-16 = 1.1e12, so
     rtol = 1e-13: 13 iterations */
  PetscCall(Driver("margin floor", {{1}, {1e-3}, {5e-4}, {1e-17}}, 1, PETSC_TRUE, 3, 1, PETSC_TRUE, "converged", -1, NULL, 10.0, 13, 1, 0.01));
  /* s = 4.44e-8 / 4.44e-16 = 1e8: rtol = 1e-10, 10 iterations (0.0995^10 = 9.5e-11; 9 give 9.5e-10) */
  PetscCall(Driver("margin", {{1e-7}, {4.44e-8}, {1e-17}}, 1, PETSC_TRUE, 2, 1, PETSC_TRUE, "converged", -1, "R.L.R.G.R.", 10.0, 10, 1, 0.01));
  /* s = 5e-12 / 4.4e-16 = 11260: 0.01 / s = 8.9e-7 is looser than gmres_rtol: 1e-8, 8 iterations */
  PetscCall(Driver("margin rtol", {{1e-11}, {5e-12}, {1e-17}}, 1, PETSC_TRUE, 2, 1, PETSC_TRUE, "converged", -1, "R.L.R.G.R.", 10.0, 8, 1, 0.01));
  /* plain_min 2 (tf32x3's FP32-accurate factors): the first step's ratio (1.7: relative to ||B||, from X = 0) decides
     nothing; the second and later reduce 1000x: plain steps only, converged after 5 */
  PetscCall(Driver("plain_min 2", {{1}, {1.7}, {1.7e-3}, {1.7e-6}, {1.7e-9}, {1e-17}}, 1, PETSC_TRUE, 5, 0, PETSC_TRUE, "converged", -1, "R.L.R.L.R.L.R.L.R.L.R.", 0, -1, -1, 0, 2));
  /* plain_min 2, and the second step reduces only 2x: GMRES-IR from step 3 */
  PetscCall(Driver("plain_min 2, then gmres", {{1}, {1.7}, {0.85}, {1e-17}}, 1, PETSC_TRUE, 3, 1, PETSC_TRUE, "converged", -1, "R.L.R.L.R.G.R.", 10.0, 8, 1, 0, 2));
  /* plain_min 2 does not keep a non-finite first step going */
  PetscCall(Driver("plain_min 2, nan", {{1}, {nan}}, 1, PETSC_TRUE, 1, 0, PETSC_FALSE, "not finite", -1, NULL, 0, -1, -1, 0, 2));
  /* a first plain step that makes the residual 10x larger is kept: GMRES-IR from there (one R phase per step) */
  PetscCall(Driver("plain grows", {{1}, {10}, {1e-17}}, 1, PETSC_TRUE, 2, 1, PETSC_TRUE, "converged", -1, "R.L.R.G.R.", 10.0, 8, 1));
  /* GMRES-IR whose Krylov residual hardly falls (h = (0.., 0.1, 1): |g_j| ~ 0.99 beta): after 20 iterations it is
     still above |g_0| / 2 (the stall rule's window: 20 iterations, factor 0.5): the correction is abandoned (no
     update of X, no residual), the refinement ends: 3 steps (plain, plain, GMRES-IR), 20 iterations instead of up
     to 100 */
  PetscCall(Driver("gmres stalls", {{1}, {1e-3}, {5e-4}, {1e-17}}, 1, PETSC_TRUE, 3, 1, PETSC_FALSE, "GMRES-IR stalled", -1, "R.L.R.L.R.G.", 0.1, 20, 0));
  /* b = 0: converged at once, no step */
  PetscCall(Driver("zero rhs", {{0}}, 1, PETSC_TRUE, 0, 0, PETSC_TRUE, "converged"));
  /* two columns: column 0 converges at step 1 and is frozen (later plain steps on column 1 only, mask 2); its
     residual may then stay put without counting as stagnation */
  PetscCall(Driver("frozen column", {{1, 1}, {1e-17, 1e-3}, {1e-17, 1e-7}, {1e-17, 1e-17}}, 2, PETSC_TRUE, 3, 0, PETSC_TRUE, "converged", 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Recycling in the driver: two GMRES-IR steps whose Krylov residual falls ~10x an iteration (8 iterations each to
   gmres_rtol 1e-8). The first step's space is kept (8 columns; its Q orthonormal and equal to Hbar R^-1 for the mock's
   Arnoldi columns); the second is projected on it first, then runs its own 8 iterations and subtracts U B y. When the
   projection leaves less than gmres_rtol of the residual (projnrm 1e-9) the second step ends there: no iteration, no
   update. With recycling off nothing is kept or projected. */
static PetscErrorCode DriverRecycle(void)
{
  namespace dl = pgx::kernels::denselu;
  const struct {
    const char *what;
    PetscBool   recycle;
    PetscReal   projnrm;
    PetscInt    keep, project, its, updates, rupdates;
  } cases[] = {
    {"recycle", PETSC_TRUE, 1.0, 1, 1, 16, 2, 1},
    {"recycle, projection enough", PETSC_TRUE, 1e-9, 1, 1, 8, 1, 0},
    {"no recycle", PETSC_FALSE, 1e-9, 0, 0, 16, 2, 0},
  };

  PetscFunctionBegin;
  for (const auto &t : cases) {
    MockOps           ops;
    dl::RefineOptions o = dl::RefineOptionsDefault();
    dl::RefineResult  r;
    ops.rs              = {{1}, {1e-3}, {5e-4}, {1e-9}, {1e-17}};
    ops.hdiag           = 10;
    ops.projnrm         = t.projnrm;
    o.gmres_recycle     = t.recycle;
    PetscCall(dl::Refine(ops, o, &r));
    CHECK(r.converged && r.steps == 4 && r.gmres_steps == 2, "driver %s: %d steps (%d GMRES-IR), converged %d", t.what, (int)r.steps, (int)r.gmres_steps, (int)r.converged);
    CHECK(ops.nkeep == t.keep && (t.keep == 0 || ops.keptj == 8) && ops.nproject == t.project && r.gmres_its == t.its && ops.nupdate == t.updates && ops.nrupdate == t.rupdates && !ops.badcall,
          "driver %s: kept %d spaces (%d columns), %d projections, %d GMRES iterations, %d V updates, %d U updates, %d bad calls; expected %d (8), %d, %d, %d, %d, 0", t.what, (int)ops.nkeep, (int)ops.keptj, (int)ops.nproject, (int)r.gmres_its, (int)ops.nupdate, (int)ops.nrupdate, ops.badcall, (int)t.keep, (int)t.project, (int)t.its, (int)t.updates, (int)t.rupdates);
    CHECK(ops.keeperr <= 1e-14, "driver %s: the kept Q differs from Hbar R^-1 or is not orthonormal by %g", t.what, ops.keeperr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Rounding(void)
{
  PetscFunctionBegin;
  CHECK(ref::RoundToBits(1.0f + 1.0f / 4096, 11) == 1.0f, "RoundToBits(1 + 2^-12, 11) = %.9g", (double)ref::RoundToBits(1.0f + 1.0f / 4096, 11));
  CHECK(ref::RoundToBits(1.0f + 3.0f / 4096, 11) == 1.0f + 1.0f / 1024, "RoundToBits(1 + 3 2^-12, 11) = %.9g", (double)ref::RoundToBits(1.0f + 3.0f / 4096, 11));
  CHECK(ref::RoundToBits(1.0f + 1.0f / 2048, 11) == 1.0f, "ties to even: RoundToBits(1 + 2^-11, 11) = %.9g", (double)ref::RoundToBits(1.0f + 1.0f / 2048, 11));
  CHECK(ref::RoundToBits(-1.0f - 3.0f / 2048, 11) == -1.0f - 4.0f / 2048, "ties to even: RoundToBits(-(1 + 3 2^-11), 11) = %.9g", (double)ref::RoundToBits(-1.0f - 3.0f / 2048, 11));
  CHECK(ref::RoundToBits(255.9f, 8) == 256.0f, "RoundToBits(255.9, 8) = %.9g", (double)ref::RoundToBits(255.9f, 8));
  CHECK(ref::PrecisionBits(pgx::kernels::denselu::PRECISION_BF16) == 8 && ref::PrecisionBits(pgx::kernels::denselu::PRECISION_TF32) == 11, "PrecisionBits");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* expect_fallback: 1 must (within 4 steps), 0 must not, -1 either */
static PetscErrorCode MixedHost(pgx::kernels::denselu::Precision prec, const char *name, const char *kind, PetscInt n, double cond, int expect_fallback, PetscInt nrhs, PetscBool transpose)
{
  namespace dl = pgx::kernels::denselu;
  std::vector<double> a(n * n), b(n * nrhs), x;
  PetscInt            zc;
  dl::RefineResult    rr;
  ref::Mixed          mx;

  PetscFunctionBegin;
  DenseLUSeed(5000 + n);
  PetscCall(DenseLUMatrix(kind, n, cond, a.data()));
  for (auto &v : b) v = DenseLURand();
  for (PetscInt i = 0; i < n; i++) b[i + (nrhs - 1) * n] = nrhs > 1 ? 0.0 : b[i + (nrhs - 1) * n]; /* several: the last b is 0 */
  x = b;
  PetscCall(ref::MixedFactor(&mx, n, a.data(), n, prec, 16, &zc));
  CHECK(zc == -1 && mx.used == prec, "%s %s: zerocol %d, precision in use %d", name, kind, (int)zc, (int)mx.used);
  PetscCall(ref::MixedSolve(&mx, transpose, nrhs, x.data(), n, NULL, &rr));
  double be = 0;
  for (PetscInt c = 0; c < nrhs; c++) be = PetscMax(be, DenseLUBackwardError(n, a.data(), x.data() + c * n, b.data() + c * n, transpose ? 'T' : 'N'));
  CHECK(be < 1, "%s %s cond %g n %d: backward error %g after %d steps (fallback %d, %s)", name, kind, cond, (int)n, be, (int)rr.steps, (int)rr.fellback, rr.stop);
  CHECK(rr.converged || rr.fellback, "%s %s: neither converged nor fell back", name, kind);
  if (rr.converged) CHECK(be <= 1.0 / std::sqrt((double)n) && rr.berr <= 1.0 / std::sqrt((double)n), "%s %s: accepted with backward error %g (driver %g) > 1/sqrt(n)", name, kind, be, rr.berr);
  if (expect_fallback >= 0) CHECK((int)rr.fellback == expect_fallback, "%s %s cond %g: fallback %d, expected %d (%d steps, %s)", name, kind, cond, (int)rr.fellback, expect_fallback, (int)rr.steps, rr.stop);
  if (rr.fellback) CHECK(rr.steps <= 4 && rr.gmres_its <= 30 && mx.used == dl::PRECISION_DOUBLE, "%s %s: fallback after %d steps (expected <= 4), %d GMRES iterations (expected <= 30: the stall rule's window of 20 and a few), precision in use %d", name, kind, (int)rr.steps, (int)rr.gmres_its, (int)mx.used);
  if (nrhs > 1 && !rr.fellback) {
    double m = 0;
    for (PetscInt i = 0; i < n; i++) m = PetscMax(m, std::fabs(x[i + (nrhs - 1) * n]));
    CHECK(m == 0, "%s %s: b = 0 gives |x| = %g", name, kind, m);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "host %s %s cond %g n %d nrhs %d%s: %d steps (%d GMRES-IR, %d GMRES its), %s, %s\n", name, kind, cond, (int)n, (int)nrhs, transpose ? " transpose" : "", (int)rr.steps, (int)rr.gmres_steps, (int)rr.gmres_its, rr.stop, rr.fellback ? "fell back to FP64" : "no fallback"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MixedHostAll(void)
{
  namespace dl = pgx::kernels::denselu;
  PetscFunctionBegin;
  PetscCall(MixedHost(dl::PRECISION_TF32, "tf32", "diagdom", 200, 0, 0, 1, PETSC_FALSE));
  PetscCall(MixedHost(dl::PRECISION_BF16, "bf16", "diagdom", 200, 0, 0, 3, PETSC_TRUE));
  PetscCall(MixedHost(dl::PRECISION_HALF, "half", "random", 150, 0, -1, 2, PETSC_FALSE));
  PetscCall(MixedHost(dl::PRECISION_BF16, "bf16", "random", 150, 0, -1, 1, PETSC_TRUE));
  PetscCall(MixedHost(dl::PRECISION_TF32, "tf32", "cluster", 150, 1e6, 0, 1, PETSC_FALSE));
  PetscCall(MixedHost(dl::PRECISION_TF32, "tf32", "illcond", 120, 1e14, 1, 1, PETSC_FALSE));
  PetscCall(MixedHost(dl::PRECISION_BF16, "bf16", "illcond", 120, 1e10, 1, 2, PETSC_TRUE));
  PetscCall(MixedHost(dl::PRECISION_TF32X3, "tf32x3", "random", 150, 0, 0, 2, PETSC_TRUE)); /* the emulation of tf32x3: plain FP32 */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The gather of the plan against the sequential interchanges k1..k2-1 on the row indices 0..n-1 */
static PetscErrorCode SwapPlan(PetscInt n, PetscInt k1, PetscInt kb, int mode)
{
  namespace dl = pgx::kernels::denselu;
  std::vector<int> ipiv(n), seq(n), plan(n), slot(kb), top(kb), low(kb);
  PetscInt         bad = 0, moved = 0;

  PetscFunctionBegin;
  DenseLUSeed(900 + n + 7 * kb + mode);
  for (PetscInt k = 0; k < n; k++) {
    const double u = 0.5 * (DenseLURand() + 1); /* [0,1) */
    PetscInt     p = k;
    if (mode == 0) p = k + (PetscInt)(u * (n - k));                                        /* anywhere below */
    else if (mode == 1) p = PetscMax(k, n - 1 - (PetscInt)(u * 3));                         /* a few rows, repeated */
    else if (mode == 2) p = PetscMin(n - 1, k + (PetscInt)(u * 4));                         /* mostly inside the block */
    ipiv[k] = (int)PetscMin(p, n - 1);
  }
  for (PetscInt i = 0; i < n; i++) seq[i] = plan[i] = (int)i;
  for (PetscInt k = k1; k < k1 + kb; k++) std::swap(seq[k], seq[ipiv[k]]);
  dl::SwapPlanSlots((int)kb, ipiv.data() + k1, slot.data(), 0, 1);
  dl::SwapPlanSequential((int)k1, (int)kb, ipiv.data() + k1, slot.data(), top.data(), low.data());
  std::vector<int> old = plan;
  for (PetscInt e = 0; e < 2 * kb; e++) {
    int dst, src;
    if (dl::SwapPlanEntry((int)k1, (int)kb, ipiv.data() + k1, slot.data(), top.data(), low.data(), (int)e, &dst, &src)) plan[dst] = old[src], moved++;
  }
  for (PetscInt i = 0; i < n; i++) bad += plan[i] != seq[i];
  CHECK(bad == 0, "swap plan n %d k1 %d kb %d mode %d: %d rows differ from the sequential interchanges", (int)n, (int)k1, (int)kb, mode, (int)bad);
  CHECK(moved <= 2 * kb, "swap plan: %d moves", (int)moved);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SwapPlans(void)
{
  PetscFunctionBegin;
  for (int mode = 0; mode < 4; mode++) {
    PetscCall(SwapPlan(10, 0, 10, mode));
    PetscCall(SwapPlan(100, 0, 1, mode));
    PetscCall(SwapPlan(100, 37, 16, mode));
    PetscCall(SwapPlan(300, 64, 64, mode));
    PetscCall(SwapPlan(700, 256, 256, mode));
    PetscCall(SwapPlan(3000, 1024, 1024, mode));
    PetscCall(SwapPlan(129, 128, 1, mode));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The profile's host logic (denselu_profile.h): names, streams, sums, the report line; and the reference Factor's
   timing (every phase of the blocked loop counted once per block, factors unchanged) */
static PetscErrorCode ProfileLogic(void)
{
  namespace dl = pgx::kernels::denselu;
  dl::Profile pr;
  std::string line;
  int         names = 0;

  PetscFunctionBegin;
  dl::ProfileClear(&pr);
  for (int p = 0; p < dl::PHASE_COUNT; p++) names += std::strcmp(dl::PhaseName((dl::Phase)p), "unknown") != 0;
  CHECK(names == dl::PHASE_COUNT && !std::strcmp(dl::PhaseName(dl::PHASE_LEAF), "panel leaves") && !std::strcmp(dl::PhaseName(dl::PHASE_LA_GEMM), "la gemm"), "profile: phase names");
  dl::ProfileAdd(&pr, dl::PHASE_LEAF, 2.0);
  dl::ProfileAdd(&pr, dl::PHASE_LEAF, 1.5);
  dl::ProfileAdd(&pr, dl::PHASE_GEMM, 1.0);
  dl::ProfileAdd(&pr, dl::PHASE_LA_GEMM, 4.0);
  dl::ProfileAdd(&pr, dl::PHASE_RESIDUAL, 0.25);
  pr.wall[dl::PROFILE_FACTOR] = 4.5;
  CHECK(dl::ProfileStreamSum(&pr, dl::PROFILE_FACTOR, 0) == 4.5 && dl::ProfileStreamSum(&pr, dl::PROFILE_FACTOR, 1) == 4.0 && dl::ProfileStreamSum(&pr, dl::PROFILE_SOLVE, 0) == 0.25, "profile: stream sums %g %g %g", dl::ProfileStreamSum(&pr, dl::PROFILE_FACTOR, 0), dl::ProfileStreamSum(&pr, dl::PROFILE_FACTOR, 1), dl::ProfileStreamSum(&pr, dl::PROFILE_SOLVE, 0));
  CHECK(dl::ProfileWithinWall(&pr, dl::PROFILE_FACTOR, 0.0), "profile: 4.5 and 4.0 ms within 4.5 ms");
  pr.wall[dl::PROFILE_FACTOR] = 4.4;
  CHECK(!dl::ProfileWithinWall(&pr, dl::PROFILE_FACTOR, 0.05) && dl::ProfileWithinWall(&pr, dl::PROFILE_FACTOR, 0.1), "profile: slack");
  line = dl::ProfileFormat(&pr, dl::PROFILE_FACTOR, PETSC_FALSE);
  CHECK(line == "dense LU profile (factor): wall 4.400 ms, stream 4.500 ms, look-ahead stream 4.000 ms; panel leaves 3.500 ms (2), gemm 1.000 ms (1), la gemm 4.000 ms (1)", "profile: line '%s'", line.c_str());
  line = dl::ProfileFormat(&pr, dl::PROFILE_SOLVE, PETSC_TRUE);
  CHECK(line == "dense LU profile (solve): wall 0.000 ms, stream 0.250 ms; residual 0.250 ms (1), low solve 0.000 ms (0), gmres 0.000 ms (0), fp64 solve 0.000 ms (0)", "profile: line '%s'", line.c_str());
  dl::ProfileReset(&pr, dl::PROFILE_FACTOR);
  CHECK(dl::ProfileStreamSum(&pr, dl::PROFILE_FACTOR, 0) == 0 && pr.count[dl::PHASE_LEAF] == 0 && pr.count[dl::PHASE_RESIDUAL] == 1, "profile: reset of one group");
  {
    const PetscInt        n = 100, nb = 16;
    std::vector<double>   a(n * n), b, lu1, lu2;
    std::vector<PetscInt> p1(n), p2(n);
    PetscInt              z1, z2, diff = 0;
    DenseLUSeed(5);
    PetscCall(DenseLUMatrix("random", n, 0, a.data()));
    lu1 = lu2 = a;
    dl::ProfileClear(&pr);
    PetscCall(ref::Factor(n, lu1.data(), n, nb, p1.data(), &z1));
    PetscCall(ref::FactorProfiled(n, lu2.data(), n, nb, p2.data(), &z2, &pr));
    for (PetscInt i = 0; i < n * n; i++) diff += lu1[i] != lu2[i];
    for (PetscInt i = 0; i < n; i++) diff += p1[i] != p2[i];
    CHECK(diff == 0 && z1 == z2, "profile: FactorProfiled differs from Factor in %d entries", (int)diff);
    for (dl::Phase p : {dl::PHASE_LEAF, dl::PHASE_SWAP, dl::PHASE_TRSM, dl::PHASE_GEMM}) CHECK(pr.count[p] == (n + nb - 1) / nb && pr.ms[p] >= 0, "profile: reference %s counted %d times (expected %d)", dl::PhaseName(p), (int)pr.count[p], (int)((n + nb - 1) / nb));
    CHECK(pr.count[dl::PHASE_WAIT] == 0 && pr.count[dl::PHASE_LA_GEMM] == 0, "profile: reference has no look-ahead phases");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tournament pivoting (denselu_tournament.h) */
/* Graded: random with column j scaled by 10^(-6 j / n) and row i by 10^(-6 i / n) (pivots not at the top) */
static void Graded(PetscInt m, PetscInt n, std::vector<double> &a)
{
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < m; i++) a[i + j * m] = DenseLURand() * std::pow(10.0, -6.0 * j / n) * std::pow(10.0, -6.0 * ((m - 1 - i) % m) / m);
}

/* max |(P A - L U)_ij| / max |a_ij| of the m x w panel factors lu (the panel's layout, leading dimension m) */
static double PanelResidual(PetscInt m, PetscInt w, const std::vector<double> &a, const std::vector<double> &lu, const PetscInt *ipiv, double *growth)
{
  std::vector<double> pa(a);
  double              amax = 0, r = 0, umax = 0;
  for (PetscInt j = 0; j < w; j++)
    if (ipiv[j] != j)
      for (PetscInt c = 0; c < w; c++) std::swap(pa[j + c * m], pa[ipiv[j] + c * m]);
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt c = 0; c < w; c++) {
      double s = 0;
      for (PetscInt k = 0; k <= PetscMin(i, c); k++) s += (k == i ? 1.0 : lu[i + k * m]) * lu[k + c * m];
      amax = PetscMax(amax, std::fabs(a[i + c * m]));
      r    = PetscMax(r, std::fabs(pa[i + c * m] - s));
      if (i <= c) umax = PetscMax(umax, std::fabs(lu[i + c * m]));
    }
  *growth = amax > 0 ? umax / amax : 0;
  return amax > 0 ? r / amax : r;
}

static PetscErrorCode TournamentInterchangesCheck(void)
{
  namespace dl = pgx::kernels::denselu;
  PetscFunctionBegin;
  for (int trial = 0; trial < 200; trial++) {
    const int        w = 1 + trial % 32, m = w + (trial * 7) % 90;
    std::vector<int> win, perm(m), ipiv(w), pos(2 * w), row(2 * w), dst(2 * w), src(2 * w);
    int              nm;
    for (int i = 0; i < m; i++) perm[i] = i;
    for (int i = m - 1; i > 0; i--) std::swap(perm[i], perm[(int)((DenseLURand() + 1) / 2 * (i + 1)) % (i + 1)]);
    win.assign(perm.begin(), perm.begin() + w); /* w distinct rows */
    dl::TournamentInterchanges(w, win.data(), ipiv.data(), pos.data(), row.data(), &nm, dst.data(), src.data());
    std::vector<int> rows(m);
    for (int i = 0; i < m; i++) rows[i] = i;
    for (int j = 0; j < w; j++) std::swap(rows[j], rows[ipiv[j]]);
    int bad = 0;
    for (int j = 0; j < w; j++) bad += rows[j] != win[j] || ipiv[j] < j;
    std::vector<int> expect(rows);
    for (int i = w; i < m; i++) {
      int s2 = i;
      for (int t = 0; t < nm; t++)
        if (dst[t] == i) s2 = src[t], bad += src[t] >= w;
      bad += expect[i] != s2;
    }
    CHECK(!bad, "TournamentInterchanges w %d m %d: %d mismatches", w, m, bad);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One m x w panel: FP64 tournament; backward error, growth; one chunk (m < 512): the pivots and factors of partial pivoting */
static PetscErrorCode TournamentPanelCase(const char *kind, PetscInt m, PetscInt w)
{
  std::vector<double>   a((size_t)m * w), lu, pp;
  std::vector<PetscInt> ipiv(w), ipp(w);
  PetscInt              zc, zcp;
  double                g;

  PetscFunctionBegin;
  DenseLUSeed(777 + m * 33 + w);
  if (!std::strcmp(kind, "graded")) Graded(m, w, a);
  else {
    for (auto &v : a) v = DenseLURand();
    if (!std::strcmp(kind, "zerolead"))
      for (PetscInt j = 0; j < w; j++)
        for (PetscInt i = 0; i < PetscMin(m, 2 * w); i++) a[i + j * m] = i == j ? 0.0 : a[i + j * m]; /* zero diagonal on top */
  }
  lu = a;
  PetscCall(ref::TournamentPanel(m, w, lu.data(), m, ipiv.data(), &zc));
  const double r = PanelResidual(m, w, a, lu, ipiv.data(), &g);
  CHECK(zc == -1, "tournament %s %d x %d: zero pivot %d", kind, (int)m, (int)w, (int)zc);
  CHECK(r <= 100 * w * PETSC_MACHINE_EPSILON * PetscMax(1.0, g), "tournament %s %d x %d: max|PA - LU| / max|A| = %g (growth %g)", kind, (int)m, (int)w, r, g);
  double lmax = 0;
  for (PetscInt j = 0; j < w; j++)
    for (PetscInt i = j + 1; i < m; i++) lmax = PetscMax(lmax, std::fabs(lu[i + j * m]));
  CHECK(g <= 64.0 && lmax <= 64.0, "tournament %s %d x %d: growth max|U| / max|A| = %g, max|L| = %g (bound 64 here)", kind, (int)m, (int)w, g, lmax);
  if (m < 2 * pgx::kernels::denselu::TSLU_ROWS) { /* one chunk: the tournament is partial pivoting */
    pp = a;
    PetscCall(ref::FactorPanel(m, w, pp.data(), m, ipp.data(), &zcp));
    double d = 0, mx = 0;
    for (size_t i = 0; i < pp.size(); i++) d = PetscMax(d, std::fabs(pp[i] - lu[i])), mx = PetscMax(mx, std::fabs(pp[i]));
    CHECK(ipp == ipiv && d <= 1e-13 * mx, "tournament %s %d x %d (one chunk): pivots %s partial pivoting's, factors differ by %g", kind, (int)m, (int)w, ipp == ipiv ? "equal" : "differ from", d);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The emulated low-precision LU with tournament leaves: max|PA - LU| / max|A| <= sqrt(n) u growth (u = 2^-bits: every
   stored result is rounded; wrong pivots or factors give O(1) or more), growth max|U| / max|A| <= gmax */
static PetscErrorCode TournamentFactorCase(const char *kind, PetscInt n, PetscInt nb, PetscInt leafw, pgx::kernels::denselu::Precision prec, double gmax)
{
  std::vector<double>   a((size_t)n * n), lu;
  std::vector<PetscInt> ipiv(n);
  PetscInt              zc;
  double                g;

  PetscFunctionBegin;
  DenseLUSeed(4242 + n);
  if (!std::strcmp(kind, "graded")) Graded(n, n, a);
  else PetscCall(DenseLUMatrix(kind, n, 0, a.data()));
  lu = a;
  PetscCall(ref::FactorTournament(n, lu.data(), n, nb, leafw, prec, ipiv.data(), &zc));
  const double r = PanelResidual(n, n, a, lu, ipiv.data(), &g), tol = std::sqrt((double)n) * std::ldexp(1.0, -ref::PrecisionBits(prec)) * g;
  CHECK(zc == -1 && r <= tol && g <= gmax, "tournament LU %s n %d nb %d leaf %d: zero pivot %d, max|PA - LU| / max|A| = %g (bound %g), growth %g (bound %g)", kind, (int)n, (int)nb, (int)leafw, (int)zc, r, tol, g, gmax);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "tournament LU %s n %d nb %d leaf %d: max|PA - LU| / max|A| %.1e, growth %.1f\n", kind, (int)n, (int)nb, (int)leafw, r, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TournamentAll(void)
{
  namespace dl = pgx::kernels::denselu;
  const PetscInt ms[] = {1, 5, 31, 32, 33, 255, 256, 511, 512, 767, 1300}, ws[] = {1, 7, 16, 32};
  std::vector<PetscInt> leaves;

  PetscFunctionBegin;
  PetscCall(TournamentInterchangesCheck());
  CHECK(dl::TournamentChunks(511) == 1 && dl::TournamentChunks(512) == 2 && dl::TournamentChunks(1300) == 5, "TournamentChunks");
  {
    int r0, r1, lv;
    dl::TournamentChunkRows(1300, 4, &r0, &r1);
    CHECK(r0 == 1024 && r1 == 1300 && dl::TournamentNodes(5, &lv) == 11 && lv == 4, "chunk 4 of 1300 rows [%d, %d), 5 leaves: %d nodes, %d levels", r0, r1, dl::TournamentNodes(5, NULL), lv);
  }
  ref::TournamentLeaves(300, 128, 32, leaves); /* 128: 4 x 32; 128: 4 x 32; 44: 22, 22 */
  CHECK(leaves.size() == 20 && leaves[16] == 256 && leaves[17] == 22 && leaves[18] == 278 && leaves[19] == 22, "TournamentLeaves(300, 128, 32): %d entries", (int)leaves.size());
  for (PetscInt m : ms)
    for (PetscInt w : ws)
      if (m >= w) {
        PetscCall(TournamentPanelCase("random", m, w));
        PetscCall(TournamentPanelCase("graded", m, w));
        if (m >= 2 * w) PetscCall(TournamentPanelCase("zerolead", m, w));
      }
  PetscCall(TournamentFactorCase("random", 300, 128, 32, dl::PRECISION_TF32, 100));
  PetscCall(TournamentFactorCase("graded", 300, 64, 16, dl::PRECISION_TF32, 100));
  PetscCall(TournamentFactorCase("zerolead", 257, 32, 32, dl::PRECISION_BF16, 100));
  PetscCall(TournamentFactorCase("random", 700, 256, 32, dl::PRECISION_HALF, 100));
  PetscCall(TournamentFactorCase("graded", 1100, 128, 32, dl::PRECISION_TF32, 100));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Random butterflies (denselu_rbt.h, the reference): the pairs of hand-checked levels, W^T the transpose of W
   (<W x, y> = <x, W^T y>), RbtMatrix = U^T A V formed from explicit U and V, the diagonals' range and determinism, and a
   solve x = V (A_r^-1 (U^T b)) by FactorNoPivot (no refinement) with a backward error below 1e3 on random matrices
   (A and A^T); FactorNoPivot equals Factor on a diagonally dominant matrix (no interchanges) */
static PetscErrorCode RbtAll(void)
{
  namespace dl = pgx::kernels::denselu;
  PetscFunctionBegin;
  /* n 7: level 0 pairs 0-3 1-4 2-5, 6 alone; level 1: [0,3) pairs 0-1, 2 alone; [3,7) pairs 3-5 4-6 */
  CHECK(dl::RbtPartner(7, 0, 0) == 3 && dl::RbtPartner(7, 0, 5) == 2 && dl::RbtPartner(7, 0, 6) == 6, "RbtPartner level 0 of 7");
  CHECK(dl::RbtPartner(7, 1, 0) == 1 && dl::RbtPartner(7, 1, 2) == 2 && dl::RbtPartner(7, 1, 3) == 5 && dl::RbtPartner(7, 1, 6) == 4, "RbtPartner level 1 of 7");
  CHECK(dl::RbtPartner(1, 0, 0) == 0 && dl::RbtPartner(2, 3, 1) == 1, "RbtPartner of lone indices");
  {
    std::vector<double> r1, r2, r3;
    ref::RbtDiagonals(50, 2, 7, r1);
    ref::RbtDiagonals(50, 2, 7, r2);
    ref::RbtDiagonals(50, 2, 8, r3);
    double lo = 2, hi = 0;
    for (double v : r1) lo = std::min(lo, v), hi = std::max(hi, v);
    CHECK(r1.size() == 200 && r1 == r2 && r1 != r3, "RbtDiagonals: size %d, deterministic per seed", (int)r1.size());
    CHECK(lo >= std::exp(-0.05) && hi <= std::exp(0.05) && hi - lo > 0.05, "RbtDiagonals: values in [%g, %g]", lo, hi);
  }
  for (PetscInt n : {1, 2, 7, 64, 101})
    for (PetscInt depth : {1, 2, 3}) {
      std::vector<double> r, x(n), y(n), wx, wty;
      ref::RbtDiagonals(n, depth, 11, r);
      DenseLUSeed(900 + n);
      for (PetscInt i = 0; i < n; i++) x[i] = DenseLURand(), y[i] = DenseLURand();
      wx  = x;
      wty = y;
      ref::RbtVectors(n, depth, r.data(), PETSC_FALSE, 1, wx.data(), n);
      ref::RbtVectors(n, depth, r.data(), PETSC_TRUE, 1, wty.data(), n);
      double s1 = 0, s2 = 0, sa = 0;
      for (PetscInt i = 0; i < n; i++) s1 += wx[i] * y[i], s2 += x[i] * wty[i], sa += std::fabs(x[i] * y[i]);
      CHECK(std::fabs(s1 - s2) <= 1e-14 * sa * depth, "RbtVectors n %d depth %d: <W x, y> %.17g, <x, W^T y> %.17g", (int)n, (int)depth, s1, s2);
    }
  {
    const PetscInt      n = 37, depth = 2;
    std::vector<double> r, a(n * n), ar, U(n * n, 0.0), V(n * n, 0.0), t(n * n, 0.0), e(n * n, 0.0);
    ref::RbtDiagonals(n, depth, 5, r);
    DenseLUSeed(37);
    DenseLURandom(n, a.data());
    ar = a;
    ref::RbtMatrix(n, depth, r.data(), ar.data(), n);
    for (PetscInt i = 0; i < n; i++) U[i + i * n] = V[i + i * n] = 1;
    ref::RbtVectors(n, depth, r.data(), PETSC_FALSE, n, U.data(), n);         /* U = W_u I */
    ref::RbtVectors(n, depth, r.data() + depth * n, PETSC_FALSE, n, V.data(), n); /* V = W_v I */
    for (PetscInt j = 0; j < n; j++) /* t = A V */
      for (PetscInt k = 0; k < n; k++)
        for (PetscInt i = 0; i < n; i++) t[i + j * n] += a[i + k * n] * V[k + j * n];
    for (PetscInt j = 0; j < n; j++) /* e = U^T t */
      for (PetscInt i = 0; i < n; i++)
        for (PetscInt k = 0; k < n; k++) e[i + j * n] += U[k + i * n] * t[k + j * n];
    double dm = 0;
    for (PetscInt i = 0; i < n * n; i++) dm = std::max(dm, std::fabs(e[i] - ar[i]));
    CHECK(dm <= 1e-13, "RbtMatrix n %d: max |U^T A V - RbtMatrix(A)| = %g", (int)n, dm);
  }
  for (PetscInt n : {100, 257})
    for (PetscBool tr : {PETSC_FALSE, PETSC_TRUE}) {
      const PetscInt        depth = 2;
      std::vector<double>   r, a(n * n), lu, b(n), x;
      std::vector<PetscInt> iota(n);
      PetscInt              zc;
      for (PetscInt i = 0; i < n; i++) iota[i] = i;
      ref::RbtDiagonals(n, depth, 2013, r);
      DenseLUSeed(4000 + n);
      DenseLURandom(n, a.data());
      for (auto &v : b) v = DenseLURand();
      lu = a;
      ref::RbtMatrix(n, depth, r.data(), lu.data(), n);
      PetscCall(ref::FactorNoPivot(n, lu.data(), n, &zc));
      x = b;
      ref::RbtVectors(n, depth, r.data() + (tr ? depth * n : 0), PETSC_TRUE, 1, x.data(), n); /* U^T b (V^T b) */
      PetscCall(ref::Solve(n, lu.data(), n, iota.data(), tr, 1, x.data(), n));
      ref::RbtVectors(n, depth, r.data() + (tr ? 0 : depth * n), PETSC_FALSE, 1, x.data(), n); /* V y (U y) */
      const double be = DenseLUBackwardError(n, a.data(), x.data(), b.data(), tr ? 'T' : 'N');
      CHECK(zc < 0 && be < 1e3, "RBT solve n %d%s: zerocol %d, backward error %g", (int)n, tr ? " transpose" : "", (int)zc, be);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "rbt depth 2 random n %d%s, unrefined: backward error %s\n", (int)n, tr ? " transpose" : "", be < 1e3 ? "< 1e3" : ">= 1e3"));
    }
  {
    const PetscInt        n = 60;
    std::vector<double>   a(n * n), l1, l2;
    std::vector<PetscInt> piv(n);
    PetscInt              z1, z2;
    DenseLUSeed(60);
    PetscCall(DenseLUMatrix("diagdom", n, 0, a.data()));
    l1 = l2 = a;
    PetscCall(ref::Factor(n, l1.data(), n, 16, piv.data(), &z1));
    PetscCall(ref::FactorNoPivot(n, l2.data(), n, &z2));
    double dm = 0;
    for (PetscInt i = 0; i < n * n; i++) dm = std::max(dm, std::fabs(l1[i] - l2[i]));
    bool noswap = true;
    for (PetscInt i = 0; i < n; i++) noswap = noswap && piv[i] == i;
    CHECK(noswap && z1 < 0 && z2 < 0 && dm <= 1e-12 * n, "FactorNoPivot on diagdom: max diff to Factor %g", dm);
  }
  {
    double   a[4] = {0, 1, 1, 0}; /* [0 1; 1 0]: zero leading pivot without pivoting */
    PetscInt zc;
    PetscCall(ref::FactorNoPivot(2, a, 2, &zc));
    CHECK(zc == 0, "FactorNoPivot [0 1; 1 0]: zerocol %d, expected 0", (int)zc);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt sizes[] = {1, 2, 31, 33, 100, 257}, blocks[] = {1, 8, 32, 64, 300};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(Hand3x3());
  for (PetscInt n : sizes)
    for (PetscInt nb : blocks) PetscCall(CompareLapack("random", n, nb));
  PetscCall(CompareLapack("illcond", 100, 16));
  PetscCall(CompareLapack("zerolead", 33, 8));
  PetscCall(CompareLapack("wilkinson", 12, 5));
  PetscCall(WilkinsonGrowth(40));
  PetscCall(CompareLapack("singular", 100, 32));
  PetscCall(CompareLapack("singular", 31, 4));
  PetscCall(SwapPlans());
  PetscCall(DriverRules());
  PetscCall(DriverRecycle());
  PetscCall(ProfileLogic());
  PetscCall(Rounding());
  PetscCall(MixedHostAll());
  PetscCall(TournamentAll());
  PetscCall(RbtAll());
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
#endif /* !PETSC_USE_COMPLEX */
