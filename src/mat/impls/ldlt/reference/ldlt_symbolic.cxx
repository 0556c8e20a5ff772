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
