/* The fast symbolic phase of the sparse LDL^T (ldlt_symbolic.cxx: permuted pattern by bucket passes, column counts by
   Gilbert-Ng-Peyton, structure of L by supernodes; ldlt_supernodal.cxx: the plan) against the first, simple
   algorithms (symbolic::simple: row subtrees column by column, the plan by searches), entry by entry through
   symbolic::simple::Check, which redoes everything from A's pattern and the permutation:
   - seeded random sparse patterns of awkward sizes (a band plus far couplings; a forest of disconnected pieces;
     a pattern with only the upper triangle stored and duplicated entries; a dense block), in natural order and
     under random permutations;
   - 3D Poisson 7-point in natural order (large supernodes) and under a random permutation (small ones), a 2D
     9-point grid; the corner cases n = 0, n = 1, a diagonal matrix;
   - and that Check can fail: a structure with one row changed, a plan with one relmap entry changed, a
     permutation other than the one the results came from are each reported, by name.
   The column counts of the 4x4 example of test_ldlt_kernels and a path graph are also checked by hand. */
#include <petscsys.h>
#include "../../src/mat/impls/ldlt/ldlt_kernels.h"
#include "../common/pgxtest.h"
#include <vector>
#include <random>
#include <algorithm>
#include <string>

namespace sym = pgx::kernels::ldlt::symbolic;

static PetscInt nfail = 0;

struct Pattern {
  std::string           name;
  PetscInt              n = 0;
  std::vector<PetscInt> rowptr, col;
};

/* CSR from lists of (row, col) entries; keeps duplicates when dup (the symbolic phase must drop them) */
static void FromEntries(PetscInt n, std::vector<std::vector<PetscInt>> &rows, bool dup, Pattern &A)
{
  A.n = n;
  A.rowptr.assign(n + 1, 0);
  A.col.clear();
  for (PetscInt i = 0; i < n; i++) {
    std::sort(rows[i].begin(), rows[i].end());
    if (!dup) rows[i].erase(std::unique(rows[i].begin(), rows[i].end()), rows[i].end());
    A.col.insert(A.col.end(), rows[i].begin(), rows[i].end());
    A.rowptr[i + 1] = (PetscInt)A.col.size();
  }
}

static void Symmetric(std::vector<std::vector<PetscInt>> &rows, PetscInt i, PetscInt j)
{
  rows[i].push_back(j);
  rows[j].push_back(i);
}

static void Random(PetscInt n, unsigned seed, PetscInt nfar, Pattern &A)
{
  std::mt19937                       gen(seed);
  std::vector<std::vector<PetscInt>> rows(n);
  for (PetscInt i = 0; i < n; i++) {
    rows[i].push_back(i);
    if (i + 1 < n && gen() % 3) Symmetric(rows, i, i + 1);
    for (PetscInt k = 0; k < nfar; k++) Symmetric(rows, i, (PetscInt)(gen() % n));
  }
  FromEntries(n, rows, false, A);
  A.name = "random " + std::to_string(n) + " seed " + std::to_string(seed);
}

static void Forest(PetscInt n, unsigned seed, Pattern &A)
{
  /* pieces of 1..40 rows, each a random sparse block: the elimination tree is a forest */
  std::mt19937                       gen(seed);
  std::vector<std::vector<PetscInt>> rows(n);
  for (PetscInt i0 = 0; i0 < n;) {
    PetscInt len = PetscMin(n - i0, 1 + (PetscInt)(gen() % 40));
    for (PetscInt i = i0; i < i0 + len; i++) {
      rows[i].push_back(i);
      for (PetscInt k = 0; k < 2; k++) Symmetric(rows, i, i0 + (PetscInt)(gen() % len));
    }
    i0 += len;
  }
  FromEntries(n, rows, false, A);
  A.name = "forest " + std::to_string(n);
}

static void UpperWithDuplicates(PetscInt n, unsigned seed, Pattern &A)
{
  std::mt19937                       gen(seed);
  std::vector<std::vector<PetscInt>> rows(n);
  for (PetscInt i = 0; i < n; i++) {
    rows[i].push_back(i);
    for (PetscInt k = 0; k < 4; k++) {
      PetscInt j = i + (PetscInt)(gen() % 12);
      if (j < n) {
        rows[i].push_back(j);
        if (k == 0) rows[i].push_back(j); /* a duplicate */
      }
    }
  }
  FromEntries(n, rows, true, A);
  A.name = "upper triangle with duplicates " + std::to_string(n);
}

static void Dense(PetscInt n, Pattern &A)
{
  std::vector<std::vector<PetscInt>> rows(n);
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) rows[i].push_back(j);
  FromEntries(n, rows, false, A);
  A.name = "dense " + std::to_string(n);
}

static void Grid(PetscInt g, PetscInt dim, Pattern &A)
{
  PetscInt                           n = dim == 3 ? g * g * g : g * g;
  std::vector<std::vector<PetscInt>> rows(n);
  for (PetscInt i = 0; i < n; i++) {
    PetscInt x = i % g, y = (i / g) % g, z = i / (g * g);
    rows[i].push_back(i);
    if (dim == 3) { /* 7-point */
      if (x + 1 < g) Symmetric(rows, i, i + 1);
      if (y + 1 < g) Symmetric(rows, i, i + g);
      if (z + 1 < g) Symmetric(rows, i, i + g * g);
    } else { /* 9-point */
      if (x + 1 < g) Symmetric(rows, i, i + 1);
      if (y + 1 < g) Symmetric(rows, i, i + g);
      if (x + 1 < g && y + 1 < g) Symmetric(rows, i, i + g + 1);
      if (x > 0 && y + 1 < g) Symmetric(rows, i, i + g - 1);
    }
  }
  FromEntries(n, rows, false, A);
  A.name = (dim == 3 ? "poisson3d-" : "grid2d-9pt-") + std::to_string(g);
}

static void Diagonal(PetscInt n, Pattern &A)
{
  std::vector<std::vector<PetscInt>> rows(n);
  for (PetscInt i = 0; i < n; i++) rows[i].push_back(i);
  FromEntries(n, rows, false, A);
  A.name = "diagonal " + std::to_string(n);
}

/* the fast symbolic phase, as the glue runs it */
struct Symbolic {
  std::vector<PetscInt> parent, colcount, lcolptr, lrow, snptr, dest;
  PetscInt              nsuper = 0;
  sym::SupernodalPlan   plan;
};

static PetscErrorCode RunFast(const Pattern &A, const std::vector<PetscInt> &iperm, Symbolic &S)
{
  PetscInt              n = A.n;
  std::vector<PetscInt> crowptr(n + 1);
  PetscInt             *ccol;

  PetscFunctionBegin;
  S.parent.assign(n, -2);
  S.colcount.assign(n, -2);
  S.lcolptr.assign(n + 1, 0);
  S.snptr.assign(n + 1, -2);
  S.dest.assign(A.rowptr[n] + 1, -2);
  PetscCall(sym::PermutedLower(n, A.rowptr.data(), A.col.data(), iperm.data(), crowptr.data(), &ccol));
  PetscCall(sym::EtreeCounts(n, crowptr.data(), ccol, S.parent.data(), S.colcount.data()));
  for (PetscInt j = 0; j < n; j++) S.lcolptr[j + 1] = S.lcolptr[j] + S.colcount[j];
  S.lrow.assign(S.lcolptr[n] + 1, -2);
  PetscCall(sym::Structure(n, crowptr.data(), ccol, S.parent.data(), S.lcolptr.data(), S.lrow.data()));
  PetscCall(PetscFree(ccol));
  PetscCall(sym::Supernodes(n, S.parent.data(), S.colcount.data(), S.snptr.data(), &S.nsuper));
  PetscCall(sym::ScatterMap(n, A.rowptr.data(), A.col.data(), iperm.data(), S.lcolptr.data(), S.lrow.data(), S.dest.data()));
  PetscCall(sym::SupernodalPlanCreate(n, S.lcolptr.data(), S.lrow.data(), S.parent.data(), S.nsuper, S.snptr.data(), A.rowptr.data(), A.col.data(), iperm.data(), S.dest.data(), &S.plan));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(const Pattern &A, bool shuffle, unsigned seed)
{
  PetscInt              n = A.n;
  std::vector<PetscInt> perm(n), iperm(n);
  Symbolic              S;
  const char           *what;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) perm[i] = i;
  if (shuffle) {
    std::mt19937 gen(seed);
    std::shuffle(perm.begin(), perm.end(), gen);
  }
  for (PetscInt i = 0; i < n; i++) iperm[perm[i]] = i;
  PetscCall(RunFast(A, iperm, S));
  PetscCall(sym::simple::Check(n, A.rowptr.data(), A.col.data(), iperm.data(), S.parent.data(), S.colcount.data(), S.lcolptr.data(), S.lrow.data(), S.nsuper, S.snptr.data(), S.dest.data(), &S.plan, &what));
  CHECK(!what, "%s%s: the %s differs from that of the simple algorithms", A.name.c_str(), shuffle ? " (permuted)" : "", what);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s%s: n %" PetscInt_FMT ", nnz(L) %" PetscInt_FMT ", %" PetscInt_FMT " supernodes, relmap %zu: %s\n", A.name.c_str(), shuffle ? " (permuted)" : "", n, S.lcolptr[n] + n, S.nsuper, S.plan.relmap.size(), what ? "DIFFERENT" : "same as the simple algorithms"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Check must see a change: in the structure, in the plan, in the permutation */
static PetscErrorCode CheckCanFail(void)
{
  Pattern               A;
  PetscInt              n;
  std::vector<PetscInt> iperm, iperm2;
  Symbolic              S;
  const char           *what;

  PetscFunctionBegin;
  Random(301, 7, 1, A);
  n = A.n;
  iperm.resize(n);
  for (PetscInt i = 0; i < n; i++) iperm[i] = (i * 37) % n; /* 37 and 301 are coprime: a permutation */
  PetscCall(RunFast(A, iperm, S));
  PetscCall(sym::simple::Check(n, A.rowptr.data(), A.col.data(), iperm.data(), S.parent.data(), S.colcount.data(), S.lcolptr.data(), S.lrow.data(), S.nsuper, S.snptr.data(), S.dest.data(), &S.plan, &what));
  CHECK(!what, "unchanged: %s reported", what);
  {
    PetscInt j = 0;
    while (j < n && S.lcolptr[j + 1] - S.lcolptr[j] < 2) j++;
    CHECK(j < n, "no column with two rows");
    S.lrow[S.lcolptr[j + 1] - 1]--; /* the last row of column j moved up by one */
    PetscCall(sym::simple::Check(n, A.rowptr.data(), A.col.data(), iperm.data(), S.parent.data(), S.colcount.data(), S.lcolptr.data(), S.lrow.data(), S.nsuper, S.snptr.data(), S.dest.data(), &S.plan, &what));
    CHECK(what && !strcmp(what, "structure of L"), "changed structure: %s reported", what ? what : "nothing");
    S.lrow[S.lcolptr[j + 1] - 1]++;
  }
  CHECK(!S.plan.relmap.empty(), "empty relmap");
  S.plan.relmap[S.plan.relmap.size() / 2]++;
  PetscCall(sym::simple::Check(n, A.rowptr.data(), A.col.data(), iperm.data(), S.parent.data(), S.colcount.data(), S.lcolptr.data(), S.lrow.data(), S.nsuper, S.snptr.data(), S.dest.data(), &S.plan, &what));
  CHECK(what && !strcmp(what, "supernodal plan: relmap"), "changed relmap: %s reported", what ? what : "nothing");
  S.plan.relmap[S.plan.relmap.size() / 2]--;
  iperm2.resize(n);
  for (PetscInt i = 0; i < n; i++) iperm2[i] = (i * 38) % n; /* another permutation */
  PetscCall(sym::simple::Check(n, A.rowptr.data(), A.col.data(), iperm2.data(), S.parent.data(), S.colcount.data(), S.lcolptr.data(), S.lrow.data(), S.nsuper, S.snptr.data(), S.dest.data(), &S.plan, &what));
  CHECK(what != NULL, "another permutation: nothing reported");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Check reports a changed structure, a changed relmap and another permutation\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* column counts by hand: the 4x4 example of test_ldlt_kernels (natural order: a path, counts 1 1 1 0) and the
   arrow matrix with the dense row last (counts 1 ... 1 0) and first (n-1, n-2, ..., 0: full fill) */
static PetscErrorCode Counts(void)
{
  const PetscInt        n = 6;
  std::vector<PetscInt> crowptr(n + 1), parent(n), cc(n), iperm(n);
  PetscInt             *ccol;
  Pattern               A;

  PetscFunctionBegin;
  {
    const PetscInt rowptr[5] = {0, 2, 5, 8, 10}, col[10] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3}, ip[4] = {0, 1, 2, 3};
    PetscInt       cr[5], p[4], c[4];
    PetscCall(sym::PermutedLower(4, rowptr, col, ip, cr, &ccol));
    PetscCall(sym::EtreeCounts(4, cr, ccol, p, c));
    PetscCall(PetscFree(ccol));
    CHECK(p[0] == 1 && p[1] == 2 && p[2] == 3 && p[3] == -1 && c[0] == 1 && c[1] == 1 && c[2] == 1 && c[3] == 0, "4x4: etree or counts");
  }
  std::vector<std::vector<PetscInt>> rows(n);
  for (PetscInt i = 0; i < n; i++) {
    rows[i].push_back(i);
    if (i < n - 1) Symmetric(rows, i, n - 1);
  }
  FromEntries(n, rows, false, A);
  for (PetscInt last = 1; last >= 0; last--) {
    for (PetscInt i = 0; i < n; i++) iperm[i] = last ? i : (i + 1) % n; /* the dense row first: old n-1 -> new 0 */
    PetscCall(sym::PermutedLower(n, A.rowptr.data(), A.col.data(), iperm.data(), crowptr.data(), &ccol));
    PetscCall(sym::EtreeCounts(n, crowptr.data(), ccol, parent.data(), cc.data()));
    PetscCall(PetscFree(ccol));
    for (PetscInt j = 0; j < n; j++) CHECK(cc[j] == (last ? (j < n - 1 ? 1 : 0) : n - 1 - j), "arrow (dense row %s): colcount[%" PetscInt_FMT "] = %" PetscInt_FMT, last ? "last" : "first", j, cc[j]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "column counts of the 4x4 path and the arrow matrices as written out\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Pattern A;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Counts());
  const PetscInt sizes[] = {613, 1037};
  for (PetscInt k = 0; k < 2; k++) {
    for (unsigned seed = 1; seed <= 3; seed++) {
      Random(sizes[k], seed, seed == 3 ? 2 : 1, A);
      PetscCall(Compare(A, false, 0));
      PetscCall(Compare(A, true, 100 + seed));
    }
  }
  Forest(1500, 5, A);
  PetscCall(Compare(A, false, 0));
  PetscCall(Compare(A, true, 11));
  UpperWithDuplicates(999, 3, A);
  PetscCall(Compare(A, false, 0));
  PetscCall(Compare(A, true, 12));
  Dense(67, A);
  PetscCall(Compare(A, false, 0));
  PetscCall(Compare(A, true, 13));
  Grid(11, 3, A);
  PetscCall(Compare(A, false, 0));
  PetscCall(Compare(A, true, 14));
  Grid(37, 2, A);
  PetscCall(Compare(A, false, 0));
  PetscCall(Compare(A, true, 15));
  for (PetscInt n = 0; n <= 1; n++) {
    Diagonal(n, A);
    PetscCall(Compare(A, false, 0));
  }
  Diagonal(100, A);
  PetscCall(Compare(A, true, 16));
  PetscCall(CheckCanFail());
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
