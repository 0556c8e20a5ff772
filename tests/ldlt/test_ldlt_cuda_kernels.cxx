/* cuda against reference sparse LDL^T kernels on a seeded random symmetric indefinite matrix of awkward size
   (n = 1037, a random permutation): factors (L, D, perturbation count) and solves with 3 right-hand sides agree
   to 1e3 machine epsilons (relative); host outputs are poisoned with NaN first. With complex scalars the same
   twice: a complex symmetric matrix (LDL^T) and a Hermitian one (LDL^H, real diagonal).
   Supernodal method: cuda::FactorSupernodal with all supernodes small (one thread block each), all large (cuBLAS;
   block sizes 64 and 5) and mixed gives the L and D of reference::FactorSupernodalPlan (the same algorithm on the
   host) and of reference::FactorSupernodal to 1e3 eps, the same perturbed pivot count, and solves with a
   componentwise residual below 1e3 eps; a zero first pivot (static pivoting off) is reported in its column.
   Host code (only the cuda backend's interface is called), built in every configuration; without CUDA it says so. */
#include <pgx/private/pgximpl.h>
#include "../../src/mat/impls/ldlt/ldlt_kernels.h"
#include "../common/pgxtest.h"
#include <vector>
#include <random>
#include <algorithm>
#include <cmath>

static PetscInt nfail = 0;

#if PGX_HAVE_CUDA
namespace sym = pgx::kernels::ldlt::symbolic;
namespace ref = pgx::kernels::ldlt::reference;
namespace cu  = pgx::kernels::ldlt::cuda;

static inline double Diff(PetscScalar a, PetscScalar b)
{
  return PetscIsInfOrNanScalar(a) ? INFINITY : (double)PetscAbsScalar(a - b);
}

/* max_k |(L D op(L)^T z - Pb)_k| / (|L| |D| |L^T| |z|)_k over the right-hand sides, z = P x (the permutation
   convention of ref::Solve: (Pb)_k = b[perm[k]]), L strictly lower by columns with a unit diagonal, op = conj when
   Hermitian */
static double FactorResidual(PetscInt n, const PetscInt *perm, const PetscInt *lcolptr, const PetscInt *lrow, const PetscScalar *l, const PetscScalar *dd, PetscBool herm, PetscInt nrhs, const PetscScalar *B, const PetscScalar *X)
{
  std::vector<PetscScalar> z(n), t(n), y(n);
  std::vector<double>      ta(n), ya(n);
  double                   worst = 0;
  for (PetscInt r = 0; r < nrhs; r++) {
    for (PetscInt k = 0; k < n; k++) z[k] = X[perm[k] + (size_t)r * n];
    for (PetscInt j = 0; j < n; j++) { /* t = D op(L)^T z, ta = |D| |L^T| |z| */
      PetscScalar s  = z[j];
      double      sa = PetscAbsScalar(z[j]);
      for (PetscInt p = lcolptr[j]; p < lcolptr[j + 1]; p++) {
        s += (herm ? PetscConj(l[p]) : l[p]) * z[lrow[p]];
        sa += PetscAbsScalar(l[p] * z[lrow[p]]);
      }
      t[j]  = dd[j] * s;
      ta[j] = PetscAbsScalar(dd[j]) * sa;
    }
    y = t, ya = ta; /* y = L t */
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt p = lcolptr[j]; p < lcolptr[j + 1]; p++) {
        y[lrow[p]] += l[p] * t[j];
        ya[lrow[p]] += PetscAbsScalar(l[p] * t[j]);
      }
    for (PetscInt k = 0; k < n; k++) {
      double res = PetscAbsScalar(y[k] - B[perm[k] + (size_t)r * n]);
      if (std::isnan(res)) return INFINITY;
      if (res > 0) worst = std::max(worst, ya[k] > 0 ? res / ya[k] : INFINITY);
    }
  }
  return worst;
}

static PetscErrorCode Run(PetscBool herm)
{
  const PetscInt                   n = 1037, nrhs = 3;
  std::mt19937                     gen(2024);
  std::uniform_real_distribution<> u(-1.0, 1.0);
  std::vector<std::vector<std::pair<PetscInt, PetscScalar>>> rows(n);

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) { /* band plus random far couplings; diagonal 6 +- 1, a few zero diagonals */
    PetscScalar dv = (i % 97 == 5) ? 0.0 : (i % 2 ? 6.0 : -6.0) + u(gen);
#if defined(PETSC_USE_COMPLEX)
    if (!herm && i % 97 != 5) dv += PetscScalar(0, u(gen)); /* complex symmetric: complex diagonal; Hermitian: real */
#endif
    rows[i].push_back({i, dv});
    for (PetscInt k = 0; k < 3; k++) {
      PetscInt j = (k < 2) ? i + 1 + k : (PetscInt)(gen() % n);
      if (j >= n || j == i) continue;
      PetscScalar v = u(gen);
#if defined(PETSC_USE_COMPLEX)
      v += PetscScalar(0, u(gen));
#endif
      rows[i].push_back({j, v});
      rows[j].push_back({i, herm ? PetscConj(v) : v});
    }
  }
  std::vector<PetscInt>    rowptr(n + 1, 0), col;
  std::vector<PetscScalar> val;
  for (PetscInt i = 0; i < n; i++) {
    std::stable_sort(rows[i].begin(), rows[i].end(), [](const std::pair<PetscInt, PetscScalar> &a, const std::pair<PetscInt, PetscScalar> &b) { return a.first < b.first; });
    for (size_t k = 0; k < rows[i].size(); k++) {
      if (k && rows[i][k].first == rows[i][k - 1].first) {
        val.back() += rows[i][k].second;
        continue;
      }
      col.push_back(rows[i][k].first);
      val.push_back(rows[i][k].second);
    }
    rowptr[i + 1] = (PetscInt)col.size();
  }
  PetscInt nnzA = rowptr[n];
  std::vector<PetscInt> perm(n), iperm(n);
  for (PetscInt i = 0; i < n; i++) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), gen);
  for (PetscInt i = 0; i < n; i++) iperm[perm[i]] = i;
  std::vector<PetscInt> crowptr(n + 1), parent(n), cc(n), lcolptr(n + 1), level(n), order(n), lptr(n + 1), dest(nnzA);
  PetscInt             *ccol, nl;
  PetscCall(sym::PermutedLower(n, rowptr.data(), col.data(), iperm.data(), crowptr.data(), &ccol));
  PetscCall(sym::EtreeCounts(n, crowptr.data(), ccol, parent.data(), cc.data()));
  lcolptr[0] = 0;
  for (PetscInt j = 0; j < n; j++) lcolptr[j + 1] = lcolptr[j] + cc[j];
  PetscInt              nnzL = lcolptr[n];
  std::vector<PetscInt> lrow(nnzL + 1);
  PetscCall(sym::Structure(n, crowptr.data(), ccol, parent.data(), lcolptr.data(), lrow.data()));
  PetscCall(PetscFree(ccol));
  PetscCall(sym::Levels(n, parent.data(), level.data(), order.data(), lptr.data(), &nl));
  PetscCall(sym::ScatterMap(n, rowptr.data(), col.data(), iperm.data(), lcolptr.data(), lrow.data(), dest.data()));

  pgx::kernels::ldlt::PivotRule   rule = {1e-10 * 12, 1e-10 * 12, herm};
  pgx::kernels::ldlt::NumericInfo ri, ci;
  std::vector<PetscScalar>        lr(nnzL + 1), dr(n), lc(nnzL + 1, NAN), dc(n, NAN);
  const char                     *what = herm ? "Hermitian: " : "";
  PetscCall(ref::Load(n, nnzA, val.data(), dest.data(), nnzL, lr.data(), dr.data(), herm));
  PetscCall(ref::FactorColumn(n, lcolptr.data(), lrow.data(), nl, order.data(), lptr.data(), &rule, lr.data(), dr.data(), &ri));

  cu::Data *d;
  PetscCall(cu::Create(&d));
  PetscCall(cu::Analyze(d, n, perm.data(), lcolptr.data(), lrow.data(), nl, order.data(), lptr.data(), nnzA, dest.data()));
  PetscCall(cu::FactorColumn(d, val.data(), &rule, &ci));
  PetscCall(cu::GetFactor(d, lc.data(), dc.data()));
  CHECK(ri.nperturbed == ci.nperturbed && ri.badcol == ci.badcol, "%sperturbed %d vs %d, badcol %d vs %d", what, (int)ri.nperturbed, (int)ci.nperturbed, (int)ri.badcol, (int)ci.badcol);
  double el = 0, ml = 0, ed = 0, md = 0;
  for (PetscInt k = 0; k < nnzL; k++) {
    el = std::max(el, Diff(lc[k], lr[k]));
    ml = std::max(ml, (double)PetscAbsScalar(lr[k]));
  }
  for (PetscInt j = 0; j < n; j++) {
    ed = std::max(ed, Diff(dc[j], dr[j]));
    md = std::max(md, (double)PetscAbsScalar(dr[j]));
  }
  CHECK(el <= 1e3 * PETSC_MACHINE_EPSILON * ml, "%sL differs by %g (max |l| %g)", what, el, ml);
  CHECK(ed <= 1e3 * PETSC_MACHINE_EPSILON * md, "%sD differs by %g (max |d| %g)", what, ed, md);
  if (herm) {
    double im = 0;
    for (PetscInt j = 0; j < n; j++) im = std::max(im, (double)PetscAbsReal(PetscImaginaryPart(dc[j])));
    CHECK(im == 0, "Hermitian: D of the cuda backend is not real (imaginary part up to %g)", im);
  }

  std::vector<PetscScalar> b((size_t)n * nrhs), xr((size_t)n * nrhs), xc((size_t)n * nrhs, NAN), work((size_t)n * nrhs);
  for (auto &v : b) v = u(gen);
  PetscCall(ref::Solve(n, perm.data(), lcolptr.data(), lrow.data(), lr.data(), dr.data(), herm, nrhs, b.data(), xr.data(), work.data()));
  PetscCall(cu::Solve(d, nrhs, b.data(), xc.data()));
  /* the solves of the same factors, judged by their componentwise residual against P^T L D L^T P (the matrix is
     indefinite with perturbed pivots: the two solutions themselves differ by cond * eps) */
  double rr = FactorResidual(n, perm.data(), lcolptr.data(), lrow.data(), lr.data(), dr.data(), herm, nrhs, b.data(), xr.data());
  double rc = FactorResidual(n, perm.data(), lcolptr.data(), lrow.data(), lr.data(), dr.data(), herm, nrhs, b.data(), xc.data());
  CHECK(rr <= 1e3 * PETSC_MACHINE_EPSILON, "%sreference solve: componentwise residual %g", what, rr);
  CHECK(rc <= 1e3 * PETSC_MACHINE_EPSILON, "%scuda solve: componentwise residual %g (reference %g)", what, rc, rr);

  /* supernodal method on the same structure */
  std::vector<PetscInt> snptr(n + 1);
  PetscInt              ns;
  PetscCall(sym::Supernodes(n, parent.data(), cc.data(), snptr.data(), &ns));
  sym::SupernodalPlan P;
  PetscCall(sym::SupernodalPlanCreate(n, lcolptr.data(), lrow.data(), parent.data(), ns, snptr.data(), rowptr.data(), col.data(), iperm.data(), dest.data(), &P));
  std::vector<PetscScalar> ls(nnzL + 1), ds(n), lq(nnzL + 1), dq(n), panels(P.pofs[ns] + 1);
  pgx::kernels::ldlt::NumericInfo si, qi;
  PetscCall(ref::Load(n, nnzA, val.data(), dest.data(), nnzL, ls.data(), ds.data(), herm));
  PetscCall(ref::FactorSupernodal(n, lcolptr.data(), lrow.data(), ns, snptr.data(), &rule, ls.data(), ds.data(), &si));
  const PetscInt cases[][2] = {{PETSC_MAX_INT, 64}, {0, 64}, {0, 5}, {64, 64}, {8, 7}};
  for (auto &cs : cases) {
    PetscCall(ref::FactorSupernodalPlan(&P, lcolptr.data(), lrow.data(), val.data(), cs[0], cs[1], &rule, panels.data(), lq.data(), dq.data(), &qi));
    PetscCall(cu::AnalyzeSupernodal(d, &P, cs[0], cs[1], 0));
    for (auto &v : lc) v = NAN;
    for (auto &v : dc) v = NAN;
    PetscCall(cu::FactorSupernodal(d, val.data(), &rule, &ci));
    PetscCall(cu::GetFactor(d, lc.data(), dc.data()));
    CHECK(si.nperturbed == ci.nperturbed && ci.nperturbed == qi.nperturbed && ci.badcol == -1, "%ssupernodal (large_min %d, nb %d): perturbed %d (reference %d, panels on the host %d), badcol %d", what, (int)cs[0], (int)cs[1], (int)ci.nperturbed, (int)si.nperturbed, (int)qi.nperturbed, (int)ci.badcol);
    double eq = 0, es = 0, fq = 0, fs = 0;
    for (PetscInt k = 0; k < nnzL; k++) {
      eq = std::max(eq, Diff(lc[k], lq[k]));
      es = std::max(es, Diff(lc[k], ls[k]));
    }
    for (PetscInt j = 0; j < n; j++) {
      fq = std::max(fq, Diff(dc[j], dq[j]));
      fs = std::max(fs, Diff(dc[j], ds[j]));
    }
    CHECK(eq <= 1e3 * PETSC_MACHINE_EPSILON * ml && es <= 1e3 * PETSC_MACHINE_EPSILON * ml, "%ssupernodal (large_min %d, nb %d): L differs by %g from the host panels, %g from FactorSupernodal (max |l| %g)", what, (int)cs[0], (int)cs[1], eq, es, ml);
    CHECK(fq <= 1e3 * PETSC_MACHINE_EPSILON * md && fs <= 1e3 * PETSC_MACHINE_EPSILON * md, "%ssupernodal (large_min %d, nb %d): D differs by %g from the host panels, %g from FactorSupernodal (max |d| %g)", what, (int)cs[0], (int)cs[1], fq, fs, md);
    for (auto &v : xc) v = NAN;
    PetscCall(cu::Solve(d, nrhs, b.data(), xc.data()));
    double rs = FactorResidual(n, perm.data(), lcolptr.data(), lrow.data(), lc.data(), dc.data(), herm, nrhs, b.data(), xc.data());
    CHECK(rs <= 1e3 * PETSC_MACHINE_EPSILON, "%ssupernodal (large_min %d, nb %d): cuda solve: componentwise residual %g", what, (int)cs[0], (int)cs[1], rs);
  }
  /* a zero pivot with static pivoting off: the first bad column, as the reference reports it */
  {
    pgx::kernels::ldlt::PivotRule off = {0, 0, herm};
    std::vector<PetscScalar>      zval(val);
    PetscInt                      j0 = -1;
    for (PetscInt k = rowptr[perm[0]]; k < rowptr[perm[0] + 1]; k++)
      if (col[k] == perm[0]) zval[k] = 0, j0 = k; /* C(0,0) = 0: column 0 is a leaf, its pivot is exactly 0 */
    CHECK(j0 >= 0, "no diagonal entry in row %d", (int)perm[0]);
    PetscCall(ref::Load(n, nnzA, zval.data(), dest.data(), nnzL, ls.data(), ds.data(), herm));
    PetscCall(ref::FactorSupernodal(n, lcolptr.data(), lrow.data(), ns, snptr.data(), &off, ls.data(), ds.data(), &si));
    PetscCall(cu::AnalyzeSupernodal(d, &P, 0, 64, 0));
    PetscCall(cu::FactorSupernodal(d, zval.data(), &off, &ci));
    CHECK(si.badcol == 0 && ci.badcol == 0, "%szero pivot: bad column %d (reference %d), expected 0", what, (int)ci.badcol, (int)si.badcol);
  }
  PetscCall(cu::Destroy(&d));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: cuda equals reference (column and supernodal factors, solves; %" PetscInt_FMT " perturbed pivots)\n", herm ? "Hermitian LDL^H" : (PetscDefined(USE_COMPLEX) ? "complex symmetric LDL^T" : "real LDL^T"), ri.nperturbed));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
#if PGX_HAVE_CUDA
  PetscCall(Run(PETSC_FALSE));
  if (PetscDefined(USE_COMPLEX)) PetscCall(Run(PETSC_TRUE));
#else
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "PGX was built without CUDA: nothing to compare\n"));
  nfail = 1;
#endif
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
