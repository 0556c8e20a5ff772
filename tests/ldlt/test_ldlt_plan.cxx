/* The plan of the supernodal numeric phase on panels (symbolic::SupernodalPlanCreate) and its reference twin of the
   cuda algorithm (reference::FactorSupernodalPlan), on the CPU:
   - plan invariants checked by brute force: supernodal parents (the supernode of parent[last column]), levels
     (a parent on a later level), panel offsets, every relmap entry (the panel row it names in the ancestor is the
     row R[a]), every pdest entry (the panel position it names is the (row, column) of C of that entry of A);
   - the supernodal solve on the panels (reference::SolvePanels) equals the column solve on the CSC copy to 1e-6 (relative; the random matrix with a pivot perturbed by 1e-9 is ill-conditioned: 3e-10);
   - the panel algorithm with all supernodes small (one thread block each on the device), all large (blocked,
     BLAS-3; block sizes 64 and 3) and mixed gives the L and D of reference::FactorSupernodal to 1e3 eps
     (relative to the largest entry), the same perturbed pivot count, and the same first zero pivot.
   Problems: 3D Poisson 9^3 in natural order (large fronts), a seeded random symmetric indefinite matrix of awkward
   size with a random permutation (many small supernodes, perturbed pivots; complex builds: complex symmetric,
   and Hermitian with LDL^H), the 4x4 example of the kernel test
   with a zero first pivot. */
#include <petscsys.h>
#include "../../src/mat/impls/ldlt/ldlt_kernels.h"
#include "../common/pgxtest.h"
#include <vector>
#include <random>
#include <algorithm>

namespace K   = pgx::kernels::ldlt;
namespace sym = pgx::kernels::ldlt::symbolic;
namespace ref = pgx::kernels::ldlt::reference;

static PetscInt nfail = 0;

struct Problem {
  const char              *name;
  PetscInt                 n;
  std::vector<PetscInt>    rowptr, col, perm;
  std::vector<PetscScalar> val;
};

static void FromRows(std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> &rows, Problem &P)
{
  P.n = (PetscInt)rows.size();
  P.rowptr.assign(P.n + 1, 0);
  P.col.clear();
  P.val.clear();
  for (PetscInt i = 0; i < P.n; i++) {
    std::sort(rows[i].begin(), rows[i].end(), [](const std::pair<PetscInt, PetscScalar> &x, const std::pair<PetscInt, PetscScalar> &y) { return x.first < y.first; });
    for (size_t k = 0; k < rows[i].size(); k++) {
      if (k && rows[i][k].first == rows[i][k - 1].first) {
        P.val.back() += rows[i][k].second;
        continue;
      }
      P.col.push_back(rows[i][k].first);
      P.val.push_back(rows[i][k].second);
    }
    P.rowptr[i + 1] = (PetscInt)P.col.size();
  }
}

static void Poisson(PetscInt g, Problem &P)
{
  std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> rows(g * g * g);
  for (PetscInt z = 0; z < g; z++)
    for (PetscInt y = 0; y < g; y++)
      for (PetscInt x = 0; x < g; x++) {
        PetscInt i = x + g * (y + g * z);
        rows[i].push_back({i, 6.0});
        if (x > 0) rows[i].push_back({i - 1, -1.0});
        if (x < g - 1) rows[i].push_back({i + 1, -1.0});
        if (y > 0) rows[i].push_back({i - g, -1.0});
        if (y < g - 1) rows[i].push_back({i + g, -1.0});
        if (z > 0) rows[i].push_back({i - g * g, -1.0});
        if (z < g - 1) rows[i].push_back({i + g * g, -1.0});
      }
  FromRows(rows, P);
  P.name = "poisson3d-9 natural";
  P.perm.resize(P.n);
  for (PetscInt i = 0; i < P.n; i++) P.perm[i] = i;
}

static void RandomIndefinite(PetscInt n, PetscBool hermitian, Problem &P)
{
  std::mt19937                                               gen(2024);
  std::uniform_real_distribution<>                           u(-1.0, 1.0);
  std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> rows(n);
  for (PetscInt i = 0; i < n; i++) { /* band plus random far couplings; diagonal +-6 +- 1, a few zero diagonals */
    rows[i].push_back({i, (i % 97 == 5) ? 0.0 : (i % 2 ? 6.0 : -6.0) + u(gen)});
    for (PetscInt k = 0; k < 3; k++) {
      PetscInt j = (k < 2) ? i + 1 + k : (PetscInt)(gen() % n);
      if (j >= n || j == i) continue;
      PetscScalar v = u(gen);
#if defined(PETSC_USE_COMPLEX)
      v += PETSC_i * 0.25 * u(gen); /* complex symmetric, or Hermitian */
#endif
      rows[i].push_back({j, v});
      rows[j].push_back({i, hermitian ? PetscConj(v) : v});
    }
  }
  FromRows(rows, P);
  P.name = hermitian ? "random Hermitian indefinite 1037" : "random indefinite 1037";
  P.perm.resize(n);
  for (PetscInt i = 0; i < n; i++) P.perm[i] = i;
  std::shuffle(P.perm.begin(), P.perm.end(), gen);
}

static void ZeroPivot(Problem &P)
{
  /* A = [0 2 0 0; 2 5 3 0; 0 3 6 1; 0 0 1 0]: the first pivot is zero */
  P.name   = "4x4 zero pivot";
  P.n      = 4;
  P.rowptr = {0, 2, 5, 8, 10};
  P.col    = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
  P.val    = {0, 2, 2, 5, 3, 3, 6, 1, 1, 0};
  P.perm   = {0, 1, 2, 3};
}

static PetscErrorCode RunProblem(const Problem &A, const K::PivotRule &rule)
{
  PetscInt              n = A.n, nnzA = A.rowptr[n], nl, ns;
  std::vector<PetscInt> iperm(n), crowptr(n + 1), parent(n), cc(n), lcolptr(n + 1), level(n), order(n), lptr(n + 1), snptr(n + 1), dest(nnzA);
  PetscInt             *ccol;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) iperm[A.perm[i]] = i;
  PetscCall(sym::PermutedLower(n, A.rowptr.data(), A.col.data(), iperm.data(), crowptr.data(), &ccol));
  PetscCall(sym::EtreeCounts(n, crowptr.data(), ccol, parent.data(), cc.data()));
  lcolptr[0] = 0;
  for (PetscInt j = 0; j < n; j++) lcolptr[j + 1] = lcolptr[j] + cc[j];
  PetscInt              nnzL = lcolptr[n];
  std::vector<PetscInt> lrow(nnzL + 1);
  PetscCall(sym::Structure(n, crowptr.data(), ccol, parent.data(), lcolptr.data(), lrow.data()));
  PetscCall(PetscFree(ccol));
  PetscCall(sym::Levels(n, parent.data(), level.data(), order.data(), lptr.data(), &nl));
  PetscCall(sym::Supernodes(n, parent.data(), cc.data(), snptr.data(), &ns));
  PetscCall(sym::ScatterMap(n, A.rowptr.data(), A.col.data(), iperm.data(), lcolptr.data(), lrow.data(), dest.data()));

  sym::SupernodalPlan P;
  PetscCall(sym::SupernodalPlanCreate(n, lcolptr.data(), lrow.data(), parent.data(), ns, snptr.data(), A.rowptr.data(), A.col.data(), iperm.data(), dest.data(), &P));
  PetscInt maxnc = 0, nlarge64 = 0;
  /* invariants, by brute force */
  {
    PetscInt bad = 0;
    for (PetscInt s = 0; s < ns; s++) {
      PetscInt f = snptr[s], e = snptr[s + 1], nc = e - f, nr = P.nr[s];
      maxnc = PetscMax(maxnc, nc);
      if (sym::SupernodalIsLarge(nc, nr, 64)) nlarge64++;
      if (P.pofs[s + 1] - P.pofs[s] != (PetscInt64)(nc + nr) * nc) bad++;
      if (parent[e - 1] < 0 ? P.sparent[s] != -1 : (P.sparent[s] < 0 || !(snptr[P.sparent[s]] <= parent[e - 1] && parent[e - 1] < snptr[P.sparent[s] + 1]))) bad++;
      if (P.sparent[s] >= 0 && P.slevel[P.sparent[s]] <= P.slevel[s]) bad++;
      const PetscInt *R = lrow.data() + lcolptr[f] + (nc - 1);
      PetscInt        covered = 0;
      for (PetscInt k = P.segptr[s]; k < P.segptr[s + 1]; k++) {
        PetscInt p = P.segsn[k], b0 = P.segb0[k], b1 = k + 1 < P.segptr[s + 1] ? P.segb0[k + 1] : nr, fp = snptr[p], ncp = snptr[p + 1] - fp;
        if (b0 != covered || b1 <= b0) bad++;
        covered = b1;
        for (PetscInt b = b0; b < b1; b++)
          if (R[b] < fp || R[b] >= fp + ncp) bad++;
        for (PetscInt a = b0; a < nr; a++) {
          PetscInt r = P.relmap[P.segrel[k] + a - b0], row = r < ncp ? fp + r : lrow[lcolptr[fp] + (ncp - 1) + (r - ncp)];
          if (row != R[a]) bad++;
        }
      }
      if (covered != nr) bad++;
    }
    for (PetscInt r = 0; r < n; r++)
      for (PetscInt k = A.rowptr[r]; k < A.rowptr[r + 1]; k++) {
        PetscInt i = iperm[r], j = iperm[A.col[k]];
        if (i < j) {
          if (P.pdest[k] != -1) bad++;
          continue;
        }
        PetscInt s = P.sup[j], f = snptr[s], nc = snptr[s + 1] - f, m = nc + P.nr[s];
        PetscInt64 q = P.pdest[k] - P.pofs[s];
        PetscInt   pr = (PetscInt)(q % m), pc = (PetscInt)(q / m);
        PetscInt   row = pr < nc ? f + pr : lrow[lcolptr[f] + (nc - 1) + (pr - nc)];
        if (q < 0 || pc != j - f || row != i) bad++;
      }
    CHECK(bad == 0, "%s: %" PetscInt_FMT " plan entries are wrong", A.name, bad);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: n %" PetscInt_FMT ", nnz(L) %" PetscInt_FMT ", %" PetscInt_FMT " supernodes (largest %" PetscInt_FMT " columns, %" PetscInt_FMT " large with large_min 64), %" PetscInt_FMT " levels of the supernodal tree, relmap %zu entries\n", A.name, n, nnzL + n, ns, maxnc, nlarge64, P.nslevels, P.relmap.size()));

  /* reference FactorSupernodal against the panel algorithm */
  std::vector<PetscScalar> lr(nnzL + 1), dr(n), lp(nnzL + 1), dp(n), panels(P.pofs[ns] + 1);
  K::NumericInfo           ri, pi;
  PetscReal                maxsolve = 0;
  PetscCall(ref::Load(n, nnzA, A.val.data(), dest.data(), nnzL, lr.data(), dr.data(), rule.hermitian));
  PetscCall(ref::FactorSupernodal(n, lcolptr.data(), lrow.data(), ns, snptr.data(), &rule, lr.data(), dr.data(), &ri));
  const PetscInt cases[][2] = {
    {PETSC_MAX_INT, 64},
    {0,             64},
    {0,             3 },
    {3,             2 },
    {64,            64}
  };
  for (auto &cs : cases) {
    for (auto &v : lp) v = NAN;
    for (auto &v : dp) v = NAN;
    PetscCall(ref::FactorSupernodalPlan(&P, lcolptr.data(), lrow.data(), A.val.data(), cs[0], cs[1], &rule, panels.data(), lp.data(), dp.data(), &pi));
    CHECK(pi.badcol == ri.badcol, "%s (large_min %" PetscInt_FMT ", nb %" PetscInt_FMT "): bad column %" PetscInt_FMT ", reference %" PetscInt_FMT, A.name, cs[0], cs[1], pi.badcol, ri.badcol);
    CHECK(pi.flops == ri.flops || ri.badcol >= 0, "%s: flops %g, reference %g", A.name, pi.flops, ri.flops);
    if (ri.badcol >= 0) continue; /* the reference stops there */
    CHECK(pi.nperturbed == ri.nperturbed, "%s (large_min %" PetscInt_FMT ", nb %" PetscInt_FMT "): %" PetscInt_FMT " perturbed pivots, reference %" PetscInt_FMT, A.name, cs[0], cs[1], pi.nperturbed, ri.nperturbed);
    PetscReal el = 0, ml = 0, ed = 0, md = 0;
    for (PetscInt k = 0; k < nnzL; k++) {
      el = PetscMax(el, PetscIsInfOrNanScalar(lp[k]) ? PETSC_INFINITY : PetscAbsScalar(lp[k] - lr[k]));
      ml = PetscMax(ml, PetscAbsScalar(lr[k]));
    }
    for (PetscInt j = 0; j < n; j++) {
      ed = PetscMax(ed, PetscIsInfOrNanScalar(dp[j]) ? PETSC_INFINITY : PetscAbsScalar(dp[j] - dr[j]));
      md = PetscMax(md, PetscAbsScalar(dr[j]));
    }
    CHECK(el <= 1e3 * PETSC_MACHINE_EPSILON * ml, "%s (large_min %" PetscInt_FMT ", nb %" PetscInt_FMT "): L differs by %g (max |l| %g)", A.name, cs[0], cs[1], (double)el, (double)ml);
    CHECK(ed <= 1e3 * PETSC_MACHINE_EPSILON * md, "%s (large_min %" PetscInt_FMT ", nb %" PetscInt_FMT "): D differs by %g (max |d| %g)", A.name, cs[0], cs[1], (double)ed, (double)md);
    /* the supernodal solve on the panels against the column solve on the CSC copy of the same factor, 3 right-hand sides */
    const PetscInt           nrhs = 3;
    std::vector<PetscScalar> b((size_t)n * nrhs), x1((size_t)n * nrhs), x2((size_t)n * nrhs), work((size_t)n * nrhs);
    for (size_t k = 0; k < b.size(); k++) b[k] = 1.0 + (PetscReal)(k % 7) / 7.0;
    PetscCall(ref::SolvePanels(&P, lcolptr.data(), lrow.data(), panels.data(), A.perm.data(), rule.hermitian, nrhs, b.data(), x1.data(), work.data()));
    PetscCall(ref::Solve(n, A.perm.data(), lcolptr.data(), lrow.data(), lp.data(), dp.data(), rule.hermitian, nrhs, b.data(), x2.data(), work.data()));
    PetscReal ex = 0, mx = 0;
    for (size_t k = 0; k < b.size(); k++) {
      ex = PetscMax(ex, PetscIsInfOrNanScalar(x1[k]) ? PETSC_INFINITY : PetscAbsScalar(x1[k] - x2[k]));
      mx = PetscMax(mx, PetscAbsScalar(x2[k]));
    }
    CHECK(ex <= 1e-6 * mx, "%s (large_min %" PetscInt_FMT ", nb %" PetscInt_FMT "): the panel solve differs from the CSC solve by %g (max |x| %g)", A.name, cs[0], cs[1], (double)ex, (double)mx);
    maxsolve = PetscMax(maxsolve, ex / mx);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: panel algorithm equals FactorSupernodal (%" PetscInt_FMT " perturbed pivots, bad column %" PetscInt_FMT ")\n", A.name, ri.nperturbed, ri.badcol));
  if (ri.badcol < 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: panel solve equals the CSC solve (relative difference %.0e)\n", A.name, (double)maxsolve));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Problem        A;
  K::PivotRule   rule = {0, 0, PETSC_FALSE};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  Poisson(9, A);
  PetscCall(RunProblem(A, rule));
  RandomIndefinite(1037, PETSC_FALSE, A);
  rule.small = rule.repl = 1e-10 * 12; /* ~ tol ||A||_inf: some pivots are perturbed */
  PetscCall(RunProblem(A, rule));
  rule.small = rule.repl = 0.5; /* many perturbed pivots */
  PetscCall(RunProblem(A, rule));
  RandomIndefinite(1037, PETSC_TRUE, A); /* LDL^H (in a real build the same as LDL^T) */
  rule.hermitian = PETSC_TRUE;
  PetscCall(RunProblem(A, rule));
  rule.hermitian = PETSC_FALSE;
  ZeroPivot(A);
  rule.small = rule.repl = 0;
  PetscCall(RunProblem(A, rule));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
