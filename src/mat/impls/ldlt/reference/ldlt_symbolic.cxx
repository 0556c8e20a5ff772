/* Symbolic phase of the sparse LDL^T (host code shared by the reference and cuda backends): structural rank,
   permuted pattern, elimination tree, column counts, structure of L, level sets, supernodes, value map. */
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
PetscErrorCode StructuralRank(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt *rank)
{
  /* Maximum bipartite matching (rows to columns) by augmenting paths found with an iterative depth-first
     search (Duff's MC21 with a cheap assignment pass first) */
  std::vector<PetscInt> match_col(n, -1), match_row(n, -1), visited(n, -1), stack_r(n), stack_k(n), cheap(n);
  PetscInt              r = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    cheap[i] = rowptr[i];
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++)
      if (match_col[col[k]] < 0) {
        match_col[col[k]] = i;
        match_row[i]      = col[k];
        r++;
        break;
      }
  }
  for (PetscInt i0 = 0; i0 < n; i0++) {
    if (match_row[i0] >= 0) continue;
    PetscInt top = 0, found = -1;
    stack_r[0]   = i0;
    stack_k[0]   = rowptr[i0];
    visited[i0]  = i0;
    while (top >= 0 && found < 0) {
      PetscInt i = stack_r[top];
      /* cheap look for an unmatched column first */
      for (; cheap[i] < rowptr[i + 1]; cheap[i]++)
        if (match_col[col[cheap[i]]] < 0) {
          found = col[cheap[i]];
          break;
        }
      if (found >= 0) break;
      if (stack_k[top] >= rowptr[i + 1]) {
        top--;
        continue;
      }
      PetscInt c = col[stack_k[top]++], i2 = match_col[c];
      if (visited[i2] == i0) continue;
      visited[i2]    = i0;
      stack_r[++top] = i2;
      stack_k[top]   = rowptr[i2];
    }
    if (found < 0) continue;
    /* augment along the stack */
    for (PetscInt t = top, c = found; t >= 0; t--) {
      PetscInt i  = stack_r[t];
      PetscInt cp = match_row[i];
      match_row[i] = c;
      match_col[c] = i;
      c            = cp;
    }
    r++;
  }
  *rank = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PermutedLower(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, PetscInt *crowptr, PetscInt **ccol)
{
  /* Each off-diagonal entry of A gives the lower entry (max, min) of C, perhaps twice (both triangles stored) or
     more (duplicates). 1: the entries by row max (any order within a row); 2: by column min, rows taken in
     increasing order, so that each column comes out sorted and a duplicate follows its twin (dropped); 3: back
     by rows, columns taken in increasing order: rows sorted and unique. */
  PetscInt              nnzA = rowptr[n];
  std::vector<PetscInt> ptr(n + 1, 0), buf(nnzA + 1), cptr(n + 1, 0), cbuf(nnzA + 1), last(n, -1);

  PetscFunctionBegin;
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = rowptr[r]; k < rowptr[r + 1]; k++) {
      PetscInt i = iperm[r], j = iperm[col[k]];
      if (i != j) ptr[PetscMax(i, j) + 1]++;
    }
  for (PetscInt i = 0; i < n; i++) ptr[i + 1] += ptr[i];
  {
    std::vector<PetscInt> next(ptr.begin(), ptr.end() - 1);
    for (PetscInt r = 0; r < n; r++)
      for (PetscInt k = rowptr[r]; k < rowptr[r + 1]; k++) {
        PetscInt i = iperm[r], j = iperm[col[k]];
        if (i > j) buf[next[i]++] = j;
        else if (j > i) buf[next[j]++] = i;
      }
  }
  /* 2: by columns, without duplicates */
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = ptr[i]; k < ptr[i + 1]; k++)
      if (last[buf[k]] != i) {
        last[buf[k]] = i;
        cptr[buf[k] + 1]++;
      }
  for (PetscInt j = 0; j < n; j++) cptr[j + 1] += cptr[j];
  {
    std::vector<PetscInt> next(cptr.begin(), cptr.end() - 1);
    for (PetscInt j = 0; j < n; j++) last[j] = -1;
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = ptr[i]; k < ptr[i + 1]; k++) {
        PetscInt j = buf[k];
        if (last[j] == i) continue;
        last[j]           = i;
        cbuf[next[j]++] = i;
      }
  }
  /* 3: back by rows */
  for (PetscInt i = 0; i <= n; i++) crowptr[i] = 0;
  for (PetscInt k = 0; k < cptr[n]; k++) crowptr[cbuf[k] + 1]++;
  for (PetscInt i = 0; i < n; i++) crowptr[i + 1] += crowptr[i];
  PetscCall(PetscMalloc1(crowptr[n] + 1, ccol));
  {
    std::vector<PetscInt> next(crowptr, crowptr + n);
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt k = cptr[j]; k < cptr[j + 1]; k++) (*ccol)[next[cbuf[k]]++] = j;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EtreeCounts(PetscInt n, const PetscInt *crowptr, const PetscInt *ccol, PetscInt *parent, PetscInt *colcount)
{
  std::vector<PetscInt> anc(n), cptr(n + 1, 0), crow(crowptr[n] + 1), head(n, -1), next(n, -1), post(n), stack(n), first(n, -1), maxfirst(n, -1), prevleaf(n, -1);

  PetscFunctionBegin;
  /* Liu's algorithm with path compression: row i of the lower pattern is column i of the upper one */
  for (PetscInt i = 0; i < n; i++) {
    parent[i] = -1;
    anc[i]    = -1;
    for (PetscInt k = crowptr[i]; k < crowptr[i + 1]; k++) {
      PetscInt j = ccol[k];
      while (j != -1 && j < i) {
        PetscInt nx = anc[j];
        anc[j]      = i;
        if (nx == -1) parent[j] = i;
        j = nx;
      }
    }
  }
  /* the lower pattern by columns (rows i > j of column j, sorted) */
  for (PetscInt k = 0; k < crowptr[n]; k++) cptr[ccol[k] + 1]++;
  for (PetscInt j = 0; j < n; j++) cptr[j + 1] += cptr[j];
  {
    std::vector<PetscInt> nx(cptr.begin(), cptr.end() - 1);
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = crowptr[i]; k < crowptr[i + 1]; k++) crow[nx[ccol[k]]++] = i;
  }
  /* postorder of the tree (children in increasing order; depth first with an explicit stack) */
  for (PetscInt j = n - 1; j >= 0; j--)
    if (parent[j] >= 0) {
      next[j]         = head[parent[j]];
      head[parent[j]] = j;
    }
  {
    PetscInt k = 0;
    for (PetscInt root = 0; root < n; root++) {
      if (parent[root] >= 0) continue;
      PetscInt top = 0;
      stack[0]     = root;
      while (top >= 0) {
        PetscInt p = stack[top], c = head[p];
        if (c == -1) {
          top--;
          post[k++] = p;
        } else {
          head[p]      = next[c]; /* take the child off the list */
          stack[++top] = c;
        }
      }
    }
    PetscCheck(k == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Postorder of the elimination tree: %" PetscInt_FMT " of %" PetscInt_FMT " nodes", k, n);
  }
  /* Gilbert, Ng and Peyton (as in Davis, Direct Methods for Sparse Linear Systems, 4.5): colcount[j] (with the
     diagonal, until the end) is the sum of delta over the subtree of j; delta[j] = 1 for a leaf, -1 for each child,
     +1 for each entry (i, j) of C in the skeleton (j a leaf of the row subtree of i) and -1 at the least common
     ancestor of j and the previous leaf of that row subtree. anc: the ancestors of the disjoint sets. */
  std::vector<PetscInt> &delta = stack, &ancestor = anc;
  for (PetscInt k = 0; k < n; k++) {
    PetscInt j = post[k];
    delta[j]   = first[j] == -1 ? 1 : 0; /* a leaf */
    for (; j != -1 && first[j] == -1; j = parent[j]) first[j] = k;
  }
  for (PetscInt i = 0; i < n; i++) ancestor[i] = i;
  for (PetscInt k = 0; k < n; k++) {
    PetscInt j = post[k];
    if (parent[j] != -1) delta[parent[j]]--;
    for (PetscInt p = cptr[j]; p < cptr[j + 1]; p++) {
      PetscInt i = crow[p]; /* i > j */
      if (first[j] <= maxfirst[i]) continue; /* j is not a leaf of the row subtree of i */
      maxfirst[i]    = first[j];
      PetscInt jprev = prevleaf[i];
      prevleaf[i]    = j;
      delta[j]++; /* (i, j) is in the skeleton */
      if (jprev == -1) continue; /* j is the first leaf */
      PetscInt q = jprev;        /* the least common ancestor of jprev and j: the root of jprev's set */
      while (q != ancestor[q]) q = ancestor[q];
      for (PetscInt s = jprev; s != q;) { /* path compression */
        PetscInt sp = ancestor[s];
        ancestor[s] = q;
        s           = sp;
      }
      delta[q]--; /* the overlap of the two paths from q up */
    }
    if (parent[j] != -1) ancestor[j] = parent[j];
  }
  for (PetscInt j = 0; j < n; j++) colcount[j] = delta[j];
  for (PetscInt j = 0; j < n; j++) /* the children (j < parent[j]) are complete before their parent */
    if (parent[j] != -1) colcount[parent[j]] += colcount[j];
  for (PetscInt j = 0; j < n; j++) colcount[j]--; /* without the diagonal */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Structure(PetscInt n, const PetscInt *crowptr, const PetscInt *ccol, const PetscInt *parent, const PetscInt *lcolptr, PetscInt *lrow)
{
  std::vector<PetscInt> colcount(n), snptr(n + 1), sup(n), sparent, next, end, mark;
  PetscInt              ns;

  PetscFunctionBegin;
  for (PetscInt j = 0; j < n; j++) colcount[j] = lcolptr[j + 1] - lcolptr[j];
  PetscCall(Supernodes(n, parent, colcount.data(), snptr.data(), &ns));
  sparent.resize(ns);
  next.resize(ns);
  end.resize(ns);
  mark.assign(ns, -1);
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt f = snptr[s], e = snptr[s + 1];
    for (PetscInt j = f; j < e; j++) sup[j] = s;
    PetscCheck(colcount[f] >= e - f - 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Supernode %" PetscInt_FMT ": column count %" PetscInt_FMT " < %" PetscInt_FMT, s, colcount[f], e - f - 1);
    next[s] = lcolptr[f] + (e - f - 1); /* R, the rows below the diagonal block, lie at the end of the first column */
    end[s]  = lcolptr[f + 1];
  }
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt pj = parent[snptr[s + 1] - 1];
    sparent[s]  = pj < 0 ? -1 : sup[pj];
  }
  /* row i of L: the supernodes on the paths from sup(j) (j in row i of C) up to sup(i), the walks stopped where
     an earlier one of this row passed; i increases, so each R comes out sorted */
  for (PetscInt i = 0; i < n; i++) {
    PetscInt si = sup[i];
    for (PetscInt k = crowptr[i]; k < crowptr[i + 1]; k++)
      for (PetscInt s = sup[ccol[k]]; s != si; s = sparent[s]) {
        PetscCheck(s >= 0 && s < si, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Entry (%" PetscInt_FMT ",%" PetscInt_FMT ") of C: row %" PetscInt_FMT " is not an ancestor in the elimination tree", i, ccol[k], i);
        if (mark[s] == i) break;
        PetscCheck(next[s] < end[s], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " of L does not fit the column counts", i);
        mark[s]           = i;
        lrow[next[s]++] = i;
      }
  }
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt f = snptr[s], e = snptr[s + 1], nr = end[s] - (lcolptr[f] + (e - f - 1));
    PetscCheck(next[s] == end[s], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Supernode %" PetscInt_FMT ": %" PetscInt_FMT " rows below the diagonal block, %" PetscInt_FMT " expected", s, next[s] - (end[s] - nr), nr);
    const PetscInt *R = lrow + end[s] - nr;
    for (PetscInt j = f; j < e; j++) {
      PetscInt *c = lrow + lcolptr[j];
      PetscCheck(lcolptr[j + 1] - lcolptr[j] == e - 1 - j + nr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Column %" PetscInt_FMT " in supernode %" PetscInt_FMT ": count %" PetscInt_FMT ", %" PetscInt_FMT " expected", j, s, lcolptr[j + 1] - lcolptr[j], e - 1 - j + nr);
      for (PetscInt i = j + 1; i < e; i++) *c++ = i;
      if (j > f) std::copy(R, R + nr, c);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Levels(PetscInt n, const PetscInt *parent, PetscInt *level, PetscInt *order, PetscInt *lptr, PetscInt *nlevels)
{
  PetscInt nl = 0;

  PetscFunctionBegin;
  for (PetscInt j = 0; j < n; j++) level[j] = 0;
  for (PetscInt j = 0; j < n; j++) { /* children come before their parent */
    if (parent[j] >= 0) level[parent[j]] = PetscMax(level[parent[j]], level[j] + 1);
    nl = PetscMax(nl, level[j] + 1);
  }
  for (PetscInt l = 0; l <= nl; l++) lptr[l] = 0;
  for (PetscInt j = 0; j < n; j++) lptr[level[j] + 1]++;
  for (PetscInt l = 0; l < nl; l++) lptr[l + 1] += lptr[l];
  std::vector<PetscInt> next(lptr, lptr + nl);
  for (PetscInt j = 0; j < n; j++) order[next[level[j]]++] = j;
  *nlevels = n ? nl : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Supernodes(PetscInt n, const PetscInt *parent, const PetscInt *colcount, PetscInt *snptr, PetscInt *nsuper)
{
  std::vector<PetscInt> nchild(n, 0);
  PetscInt              ns = 0;

  PetscFunctionBegin;
  for (PetscInt j = 0; j < n; j++)
    if (parent[j] >= 0) nchild[parent[j]]++;
  for (PetscInt j = 0; j < n; j++) {
    if (j == 0 || !(parent[j - 1] == j && nchild[j] == 1 && colcount[j - 1] == colcount[j] + 1)) snptr[ns++] = j;
  }
  snptr[ns] = n;
  *nsuper   = ns;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ScatterMap(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt *dest)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = rowptr[r]; k < rowptr[r + 1]; k++) {
      PetscInt i = iperm[r], j = iperm[col[k]];
      if (i == j) dest[k] = lcolptr[n] + j;
      else if (i < j) dest[k] = -1;
      else {
        const PetscInt *p = std::lower_bound(lrow + lcolptr[j], lrow + lcolptr[j + 1], i);
        PetscCheck(p != lrow + lcolptr[j + 1] && *p == i, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Entry (%" PetscInt_FMT ",%" PetscInt_FMT ") of C missing in the structure of L", i, j);
        dest[k] = (PetscInt)(p - lrow);
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace symbolic
} // namespace ldlt
} // namespace kernels
} // namespace pgx
