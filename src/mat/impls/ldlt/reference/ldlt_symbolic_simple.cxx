/* The first, straightforward algorithms of the symbolic phase (symbolic::simple in ldlt_kernels.h), kept as the
   specification of the fast ones in ldlt_symbolic.cxx and ldlt_supernodal.cxx: the tests and the hidden option
   -mat_pgx_ldlt_check_symbolic compare their results entry by entry. Column counts and the structure of L come
   from the row subtrees of the elimination tree (O(nnz(L)) steps, the structure column by column); the plan
   searches each row of a supernode in its ancestor's rows and grows its arrays entry by entry. */
#include "../ldlt_kernels.h"
#include <vector>
#include <algorithm>

namespace pgx
{
namespace kernels
{
namespace ldlt
{
namespace symbolic
{
namespace simple
{
PetscErrorCode PermutedLower(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, PetscInt *crowptr, PetscInt **ccol)
{
  std::vector<std::vector<PetscInt>> rows(n);

  PetscFunctionBegin;
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = rowptr[r]; k < rowptr[r + 1]; k++) {
      PetscInt i = iperm[r], j = iperm[col[k]];
      if (i > j) rows[i].push_back(j);
      else if (j > i) rows[j].push_back(i);
    }
  crowptr[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    std::sort(rows[i].begin(), rows[i].end());
    rows[i].erase(std::unique(rows[i].begin(), rows[i].end()), rows[i].end());
    crowptr[i + 1] = crowptr[i] + (PetscInt)rows[i].size();
  }
  PetscCall(PetscMalloc1(crowptr[n] + 1, ccol));
  for (PetscInt i = 0; i < n; i++) std::copy(rows[i].begin(), rows[i].end(), *ccol + crowptr[i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EtreeCounts(PetscInt n, const PetscInt *crowptr, const PetscInt *ccol, PetscInt *parent, PetscInt *colcount)
{
  std::vector<PetscInt> anc(n), mark(n, -1);

  PetscFunctionBegin;
  /* Liu's algorithm with path compression: row i of the lower pattern is column i of the upper one */
  for (PetscInt i = 0; i < n; i++) {
    parent[i] = -1;
    anc[i]    = -1;
    for (PetscInt k = crowptr[i]; k < crowptr[i + 1]; k++) {
      PetscInt j = ccol[k];
      while (j != -1 && j < i) {
        PetscInt next = anc[j];
        anc[j]        = i;
        if (next == -1) parent[j] = i;
        j = next;
      }
    }
  }
  /* column counts from the row subtrees: row i of L holds every node on the tree paths from the j of row i
     of C up to i */
  for (PetscInt j = 0; j < n; j++) colcount[j] = 0;
  for (PetscInt i = 0; i < n; i++) {
    mark[i] = i;
    for (PetscInt k = crowptr[i]; k < crowptr[i + 1]; k++)
      for (PetscInt j = ccol[k]; mark[j] != i; j = parent[j]) {
        mark[j] = i;
        colcount[j]++;
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Structure(PetscInt n, const PetscInt *crowptr, const PetscInt *ccol, const PetscInt *parent, const PetscInt *lcolptr, PetscInt *lrow)
{
  std::vector<PetscInt> mark(n, -1), next(lcolptr, lcolptr + n);

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    mark[i] = i;
    for (PetscInt k = crowptr[i]; k < crowptr[i + 1]; k++)
      for (PetscInt j = ccol[k]; mark[j] != i; j = parent[j]) {
        mark[j]          = i;
        lrow[next[j]++] = i; /* i increases: rows come out sorted */
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SupernodalPlanCreate(PetscInt n, const PetscInt *lcolptr, const PetscInt *lrow, const PetscInt *parent, PetscInt nsuper, const PetscInt *snptr, PetscInt nnzA, const PetscInt *dest, SupernodalPlan *plan)
{
  SupernodalPlan &P    = *plan;
  PetscInt        nnzL = lcolptr[n];

  PetscFunctionBegin;
  P.n      = n;
  P.nnzL   = nnzL;
  P.nnzA   = nnzA;
  P.nsuper = nsuper;
  P.snptr.assign(snptr, snptr + nsuper + 1);
  P.sup.assign(n, -1);
  P.nr.assign(nsuper, 0);
  P.sparent.assign(nsuper, -1);
  P.pofs.assign(nsuper + 1, 0);
  P.flops = 0;
  for (PetscInt s = 0; s < nsuper; s++) {
    PetscInt f = snptr[s], e = snptr[s + 1], nc = e - f;
    PetscCheck(nc > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Empty supernode %" PetscInt_FMT, s);
    for (PetscInt j = f; j < e; j++) P.sup[j] = s;
    P.nr[s] = lcolptr[f + 1] - lcolptr[f] - (nc - 1);
    PetscCheck(P.nr[s] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Supernode %" PetscInt_FMT " has fewer rows than columns", s);
    P.pofs[s + 1] = P.pofs[s] + (PetscInt64)(nc + P.nr[s]) * nc;
    /* the flop count of reference::FactorSupernodal */
    PetscInt m = nc + P.nr[s];
    for (PetscInt t = 0; t < nc; t++) P.flops += (m - t - 1) + 2.0 * (PetscLogDouble)(nc - t - 1) * (m - t);
    P.flops += 1.5 * (PetscLogDouble)P.nr[s] * (P.nr[s] + 1) * nc;
  }
  for (PetscInt s = 0; s < nsuper; s++) {
    PetscInt pj = parent[snptr[s + 1] - 1];
    P.sparent[s] = pj < 0 ? -1 : P.sup[pj];
    PetscCheck(pj < 0 || P.sparent[s] > s, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Supernodal tree: parent %" PetscInt_FMT " of %" PetscInt_FMT " is not later", P.sparent[s], s);
  }
  /* levels of the supernodal tree (a parent comes after its children) */
  P.slevel.assign(nsuper, 0);
  P.sorder.assign(nsuper, 0);
  P.slptr.assign(nsuper + 1, 0);
  PetscCall(symbolic::Levels(nsuper, P.sparent.data(), P.slevel.data(), P.sorder.data(), P.slptr.data(), &P.nslevels));
  P.slptr.resize(P.nslevels + 1);
  /* segments and the relative map: the columns R[b] of one ancestor are contiguous in R (R is sorted and the
     columns of a supernode are consecutive); the rows R[a], a >= b0, are in that ancestor's panel */
  P.segptr.assign(nsuper + 1, 0);
  P.segsn.clear();
  P.segb0.clear();
  P.segrel.clear();
  P.relmap.clear();
  for (PetscInt s = 0; s < nsuper; s++) {
    PetscInt        f = snptr[s], nc = snptr[s + 1] - f, nr = P.nr[s];
    const PetscInt *R = lrow + lcolptr[f] + (nc - 1);
    for (PetscInt b0 = 0; b0 < nr;) {
      PetscInt p = P.sup[R[b0]], fp = snptr[p], ep = snptr[p + 1], ncp = ep - fp, b1 = b0;
      while (b1 < nr && R[b1] < ep) b1++;
      P.segsn.push_back(p);
      P.segb0.push_back(b0);
      P.segrel.push_back((PetscInt64)P.relmap.size());
      const PetscInt *Rp = lrow + lcolptr[fp] + (ncp - 1);
      PetscInt        nrp = P.nr[p], q = 0;
      for (PetscInt a = b0; a < nr; a++) {
        PetscInt i = R[a];
        if (i < ep) P.relmap.push_back(i - fp);
        else {
          while (q < nrp && Rp[q] < i) q++;
          PetscCheck(q < nrp && Rp[q] == i, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " of supernode %" PetscInt_FMT " is not in the structure of its ancestor %" PetscInt_FMT, i, s, p);
          P.relmap.push_back(ncp + q);
        }
      }
      b0 = b1;
    }
    P.segptr[s + 1] = (PetscInt)P.segsn.size();
  }
  /* where each entry of A goes: diagonal j -> (t, t) of its panel; lval position p of column j -> (t+1+k, t) */
  P.pdest.assign(nnzA, -1);
  for (PetscInt k = 0; k < nnzA; k++) {
    PetscInt t = dest[k], j, pos;
    if (t < 0) continue;
    if (t >= nnzL) {
      j   = t - nnzL;
      pos = -1;
    } else {
      j   = (PetscInt)(std::upper_bound(lcolptr, lcolptr + n + 1, t) - lcolptr) - 1; /* column holding position t */
      pos = t - lcolptr[j];
    }
    PetscInt s = P.sup[j], f = snptr[s], m = snptr[s + 1] - f + P.nr[s], c = j - f;
    P.pdest[k] = P.pofs[s] + (c + 1 + pos) + (PetscInt64)c * m;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
template <class T>
static bool Same(const T *a, const T *b, size_t len)
{
  for (size_t k = 0; k < len; k++)
    if (a[k] != b[k]) return false;
  return true;
}
template <class T>
static bool Same(const std::vector<T> &a, const std::vector<T> &b)
{
  return a.size() == b.size() && Same(a.data(), b.data(), a.size());
}

PetscErrorCode Check(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, const PetscInt *parent, const PetscInt *colcount, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt nsuper, const PetscInt *snptr, const PetscInt *dest, const SupernodalPlan *plan, const char **what)
{
  std::vector<PetscInt> crowptr(n + 1), crowptr2(n + 1), sparent(n), scount(n), slcolptr(n + 1), ssnptr(n + 1);
  PetscInt             *ccol, *ccol2, ns, nnzL = lcolptr[n];

  PetscFunctionBegin;
  *what = NULL;
  PetscCall(simple::PermutedLower(n, rowptr, col, iperm, crowptr.data(), &ccol));
  PetscCall(symbolic::PermutedLower(n, rowptr, col, iperm, crowptr2.data(), &ccol2));
  if (!Same(crowptr, crowptr2) || !Same(ccol, ccol2, (size_t)crowptr[n])) *what = "permuted lower pattern of C";
  PetscCall(PetscFree(ccol2));
  if (!*what) {
    PetscCall(simple::EtreeCounts(n, crowptr.data(), ccol, sparent.data(), scount.data()));
    if (!Same(parent, sparent.data(), n)) *what = "elimination tree";
    else if (!Same(colcount, scount.data(), n)) *what = "column counts";
  }
  if (!*what) {
    slcolptr[0] = 0;
    for (PetscInt j = 0; j < n; j++) slcolptr[j + 1] = slcolptr[j] + scount[j];
    if (!Same(lcolptr, slcolptr.data(), n + 1)) *what = "column pointers of L";
  }
  if (!*what) {
    std::vector<PetscInt> slrow(nnzL + 1);
    PetscCall(simple::Structure(n, crowptr.data(), ccol, sparent.data(), slcolptr.data(), slrow.data()));
    if (!Same(lrow, slrow.data(), nnzL)) *what = "structure of L";
  }
  PetscCall(PetscFree(ccol));
  if (!*what) {
    PetscCall(symbolic::Supernodes(n, sparent.data(), scount.data(), ssnptr.data(), &ns));
    if (ns != nsuper || !Same(snptr, ssnptr.data(), ns + 1)) *what = "supernodes";
  }
  if (!*what) {
    std::vector<PetscInt> sdest(rowptr[n] + 1);
    PetscCall(symbolic::ScatterMap(n, rowptr, col, iperm, lcolptr, lrow, sdest.data()));
    if (!Same(dest, sdest.data(), rowptr[n])) *what = "value map of A";
  }
  if (!*what && plan) {
    SupernodalPlan Q;
    PetscCall(simple::SupernodalPlanCreate(n, lcolptr, lrow, parent, nsuper, snptr, rowptr[n], dest, &Q)); /* the first interface: dest alone */
    const SupernodalPlan &P = *plan;
    if (P.n != Q.n || P.nnzL != Q.nnzL || P.nnzA != Q.nnzA || P.nsuper != Q.nsuper || P.nslevels != Q.nslevels || P.flops != Q.flops) *what = "supernodal plan: sizes or flops";
    else if (!Same(P.snptr, Q.snptr) || !Same(P.sup, Q.sup) || !Same(P.nr, Q.nr) || !Same(P.sparent, Q.sparent)) *what = "supernodal plan: supernodes, rows or tree";
    else if (!Same(P.slevel, Q.slevel) || !Same(P.sorder, Q.sorder) || !Same(P.slptr, Q.slptr)) *what = "supernodal plan: levels";
    else if (!Same(P.pofs, Q.pofs)) *what = "supernodal plan: panel offsets";
    else if (!Same(P.segptr, Q.segptr) || !Same(P.segsn, Q.segsn) || !Same(P.segb0, Q.segb0) || !Same(P.segrel, Q.segrel)) *what = "supernodal plan: segments";
    else if (!Same(P.relmap, Q.relmap)) *what = "supernodal plan: relmap";
    else if (!Same(P.pdest, Q.pdest)) *what = "supernodal plan: pdest";
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace simple
} // namespace symbolic
} // namespace ldlt
} // namespace kernels
} // namespace pgx
