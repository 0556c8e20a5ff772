/* PCDILU host reference backend: plain sequential C++, the specification of the kernels
   (see dilu_kernels.h). Every sweep visits the rows level by level, exactly as the parallel backends
   schedule them, so the level sets themselves are exercised by the host tests. */
#include "../dilu_kernels.h"
#include <vector>
#include <algorithm>

namespace pgx
{
namespace kernels
{
namespace dilu
{
namespace reference
{
static inline bool Before(const PetscInt *rank, PetscInt j, PetscInt i)
{
  return rank ? rank[j] < rank[i] : j < i;
}

PetscErrorCode FindDiagonal(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *diag)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt *lo = colidx + rowptr[i], *hi = colidx + rowptr[i + 1];
    const PetscInt *p  = std::lower_bound(lo, hi, i);
    diag[i]            = (p != hi && *p == i) ? (PetscInt)(p - colidx) : -1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FindPairs(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, PetscInt *pair)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      PetscInt j = colidx[k];
      pair[k]    = -1;
      if (j == i || !Before(rank, j, i)) continue;
      const PetscInt *lo = colidx + rowptr[j], *hi = colidx + rowptr[j + 1];
      const PetscInt *p  = std::lower_bound(lo, hi, i);
      if (p != hi && *p == i) pair[k] = (PetscInt)(p - colidx);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Transpose(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *at_rowptr, PetscInt *at_colidx, PetscInt *perm)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i <= n; i++) at_rowptr[i] = 0;
  for (PetscInt k = 0; k < rowptr[n]; k++) at_rowptr[colidx[k] + 1]++;
  for (PetscInt i = 0; i < n; i++) at_rowptr[i + 1] += at_rowptr[i];
  std::vector<PetscInt> next(at_rowptr, at_rowptr + n);
  for (PetscInt i = 0; i < n; i++) { /* rows in increasing order: A^T's columns come out sorted */
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      PetscInt q   = next[colidx[k]]++;
      at_colidx[q] = i;
      perm[q]      = k;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Color(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *color, PetscInt *ncolors)
{
  std::vector<PetscInt> tptr(n + 1), tcol(rowptr[n]), tperm(rowptr[n]), stamp;
  PetscInt              maxcolor = -1;

  PetscFunctionBegin;
  PetscCall(Transpose(n, rowptr, colidx, tptr.data(), tcol.data(), tperm.data()));
  for (PetscInt v = 0; v < n; v++) {
    PetscInt ml = -1, deg = 0, c = -1;
    /* colors of the lower neighbors (row v of A and of A^T, index < v): stamp[c] == v marks c as used */
    for (int pass = 0; pass < 2; pass++) {
      const PetscInt *ptr = pass ? tptr.data() : rowptr, *col = pass ? tcol.data() : colidx;
      for (PetscInt k = ptr[v]; k < ptr[v + 1]; k++) {
        PetscInt u = col[k];
        if (u >= v) continue;
        if ((PetscInt)stamp.size() <= color[u]) stamp.resize(color[u] + 1, -1);
        stamp[color[u]] = v;
        ml              = std::max(ml, color[u]);
        deg++;
      }
    }
    if ((PetscInt)stamp.size() < deg + DILU_COLOR_WAVE + 1) stamp.resize(deg + DILU_COLOR_WAVE + 1, -1);
    for (PetscInt t = ml + 1; t < DILU_COLOR_WAVE; t++) /* the next color of the wave, if free */
      if (stamp[t] != v) {
        c = t;
        break;
      }
    if (c < 0) /* else the smallest free color */
      for (c = 0; stamp[c] == v; c++) { }
    color[v] = c;
    maxcolor = std::max(maxcolor, c);
  }
  *ncolors = maxcolor + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RankFromColors(PetscInt n, const PetscInt *color, PetscInt ncolors, PetscInt *rank)
{
  std::vector<PetscInt> start(ncolors + 1, 0);

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) start[color[i] + 1]++;
  for (PetscInt c = 0; c < ncolors; c++) start[c + 1] += start[c];
  for (PetscInt i = 0; i < n; i++) rank[i] = start[color[i]]++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ColorSchedule(PetscInt n, const PetscInt *color, PetscInt ncolors, PetscBool upper, PetscInt *order, PetscInt *lptr)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l <= ncolors; l++) lptr[l] = 0;
  for (PetscInt i = 0; i < n; i++) lptr[(upper ? ncolors - 1 - color[i] : color[i]) + 1]++;
  for (PetscInt l = 0; l < ncolors; l++) lptr[l + 1] += lptr[l];
  std::vector<PetscInt> next(lptr, lptr + ncolors);
  for (PetscInt i = 0; i < n; i++) order[next[upper ? ncolors - 1 - color[i] : color[i]]++] = i;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode LevelSets(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, PetscBool upper, PetscInt *order, PetscInt *lptr, PetscInt *nlevels)
{
  std::vector<PetscInt> level(n, 0), byrank(n);
  PetscInt              nl = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) byrank[rank ? rank[i] : i] = i;
  for (PetscInt t = 0; t < n; t++) {
    PetscInt i = byrank[upper ? n - 1 - t : t], l = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      PetscInt j = colidx[k];
      if (j == i) continue;
      if (upper ? Before(rank, i, j) : Before(rank, j, i)) l = std::max(l, level[j] + 1);
    }
    level[i] = l;
    nl       = std::max(nl, l + 1);
  }
  for (PetscInt l = 0; l <= nl; l++) lptr[l] = 0;
  for (PetscInt i = 0; i < n; i++) lptr[level[i] + 1]++;
  for (PetscInt l = 0; l < nl; l++) lptr[l + 1] += lptr[l];
  std::vector<PetscInt> next(lptr, lptr + nl);
  for (PetscInt i = 0; i < n; i++) order[next[level[i]]++] = i;
  *nlevels = nl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Factor(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *val, const PetscInt *rank, const PetscInt *diag, const PetscInt *pair, PetscInt nlevels, const PetscInt *order, const PetscInt *lptr, PetscReal shift, PetscScalar *E, PetscInt *badrow)
{
  PetscInt bad = -1, badrank = -1;

  PetscFunctionBegin;
  for (PetscInt l = 0; l < nlevels; l++) {
    for (PetscInt p = lptr[l]; p < lptr[l + 1]; p++) {
      PetscInt    i = order[p];
      PetscScalar d    = (diag[i] >= 0 ? val[diag[i]] : 0.0) + shift;
      bool        zero = d == 0.0; /* a missing or zero (shifted) diagonal is a failure even when E_ii would not be 0 */
      for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
        if (pair[k] < 0) continue;
        d -= val[k] * val[pair[k]] / E[colidx[k]];
      }
      E[i] = d;
      if (zero || d == 0.0 || PetscIsInfOrNanScalar(d)) { /* the first failure in the elimination order: later ones may only be its consequences */
        PetscInt ri = rank ? rank[i] : i;
        if (bad < 0 || ri < badrank) bad = i, badrank = ri;
      }
    }
  }
  *badrow = bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Apply(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *val, const PetscInt *rank, const PetscScalar *E, PetscInt nlower, const PetscInt *lorder, const PetscInt *llptr, PetscInt nupper, const PetscInt *uorder, const PetscInt *ulptr, const PetscScalar *r, PetscScalar *y)
{
  PetscFunctionBegin;
  /* forward: (E + L) z = r, z in y */
  for (PetscInt l = 0; l < nlower; l++) {
    for (PetscInt p = llptr[l]; p < llptr[l + 1]; p++) {
      PetscInt    i = lorder[p];
      PetscScalar s = r[i];
      for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
        PetscInt j = colidx[k];
        if (j != i && Before(rank, j, i)) s -= val[k] * y[j];
      }
      y[i] = s / E[i];
    }
  }
  /* backward: (E + U) y = E z, i.e. y_i = z_i - E_ii^-1 sum_{upper j} a_ij y_j, in place */
  for (PetscInt l = 0; l < nupper; l++) {
    for (PetscInt p = ulptr[l]; p < ulptr[l + 1]; p++) {
      PetscInt    i = uorder[p];
      PetscScalar s = 0.0;
      for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
        PetscInt j = colidx[k];
        if (j != i && Before(rank, i, j)) s += val[k] * y[j];
      }
      y[i] -= s / E[i];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* ------------------------------------------------------------------ the host backend (see dilu_kernels.h) */
struct Host {
  PetscInt                 n = 0;
  std::vector<PetscInt>    perm, rank;             /* perm[p] = row at position p, rank = perm^-1 (both empty: natural) */
  std::vector<PetscInt>    lptr, lcol, lsrc, lpair; /* lower entries of each position: column (as a position), source in A's values, position of a_ji among the upper entries (-1: A stores no a_ji) */
  std::vector<PetscInt>    uptr, ucol, usrc;        /* upper entries, the same way */
  std::vector<PetscInt>    dsrc;                    /* source of a_ii in A's values, -1 when missing */
  std::vector<PetscScalar> lval, uval, E;           /* values and E in elimination order */
  std::vector<PetscScalar> work;                    /* multicolor: r and y in elimination order */
};

PetscErrorCode HostCreate(Host **h)
{
  PetscFunctionBegin;
  *h = new Host();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HostDestroy(Host **h)
{
  PetscFunctionBegin;
  delete *h;
  *h = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HostAnalyze(Host *h, PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, const PetscInt *diag, const PetscInt *pair)
{
  PetscFunctionBegin;
  h->n = n;
  h->perm.clear();
  h->rank.clear();
  if (rank) {
    h->rank.assign(rank, rank + n);
    h->perm.resize(n);
    for (PetscInt i = 0; i < n; i++) h->perm[rank[i]] = i;
  }
  auto row = [&](PetscInt p) { return rank ? h->perm[p] : p; };
  auto pos = [&](PetscInt j) { return rank ? rank[j] : j; };
  h->lptr.assign(n + 1, 0);
  h->uptr.assign(n + 1, 0);
  for (PetscInt p = 0; p < n; p++) {
    const PetscInt i = row(p);
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt j = colidx[k];
      if (j == i) continue;
      if (pos(j) < p) h->lptr[p + 1]++;
      else h->uptr[p + 1]++;
    }
  }
  for (PetscInt p = 0; p < n; p++) {
    h->lptr[p + 1] += h->lptr[p];
    h->uptr[p + 1] += h->uptr[p];
  }
  const PetscInt nl = h->lptr[n], nu = h->uptr[n];
  h->lcol.resize(nl);
  h->lsrc.resize(nl);
  h->ucol.resize(nu);
  h->usrc.resize(nu);
  h->dsrc.assign(n, -1);
  std::vector<PetscInt> uindex(pair ? rowptr[n] : 0, -1); /* A's entry -> its place among the upper entries */
  for (PetscInt p = 0; p < n; p++) {
    const PetscInt i = row(p);
    PetscInt       l = h->lptr[p], u = h->uptr[p];
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt j = colidx[k];
      if (j == i) continue;
      if (pos(j) < p) h->lcol[l] = pos(j), h->lsrc[l++] = k;
      else {
        if (pair) uindex[k] = u;
        h->ucol[u] = pos(j), h->usrc[u++] = k;
      }
    }
    if (diag) h->dsrc[p] = diag[i];
  }
  h->lpair.assign(nl, -1);
  if (pair)
    for (PetscInt l = 0; l < nl; l++)
      if (pair[h->lsrc[l]] >= 0) h->lpair[l] = uindex[pair[h->lsrc[l]]];
  h->lval.resize(nl);
  h->uval.resize(nu);
  h->E.resize(n);
  h->work.resize(rank ? n : 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void HostCopyValues(Host *h, const PetscScalar *val)
{
  for (size_t l = 0; l < h->lval.size(); l++) h->lval[l] = val[h->lsrc[l]];
  for (size_t u = 0; u < h->uval.size(); u++) h->uval[u] = val[h->usrc[u]];
}

PetscErrorCode HostFactor(Host *h, const PetscScalar *val, PetscReal shift, PetscScalar *E, PetscInt *badrow)
{
  const PetscInt    *lptr = h->lptr.data(), *lcol = h->lcol.data(), *lpair = h->lpair.data(), *perm = h->perm.empty() ? NULL : h->perm.data();
  const PetscScalar *lval = h->lval.data(), *uval = h->uval.data();
  PetscScalar       *Ep   = h->E.data();
  PetscInt           bad  = -1;

  PetscFunctionBegin;
  HostCopyValues(h, val);
  for (PetscInt p = 0; p < h->n; p++) { /* Factor(): the terms of row i in its CSR order */
    const PetscInt i    = perm ? perm[p] : p;
    PetscScalar    d    = (h->dsrc[p] >= 0 ? val[h->dsrc[p]] : 0.0) + shift;
    const bool     zero = d == 0.0;
    for (PetscInt k = lptr[p]; k < lptr[p + 1]; k++)
      if (lpair[k] >= 0) d -= lval[k] * uval[lpair[k]] / Ep[lcol[k]];
    Ep[p] = E[i] = d;
    if (bad < 0 && (zero || d == 0.0 || PetscIsInfOrNanScalar(d))) bad = i; /* positions go by rank: the first is the one Factor() reports */
  }
  *badrow = bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HostSetValues(Host *h, const PetscScalar *val, const PetscScalar *E)
{
  PetscFunctionBegin;
  HostCopyValues(h, val);
  for (PetscInt p = 0; p < h->n; p++) h->E[p] = E[h->perm.empty() ? p : h->perm[p]];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Apply()'s sweeps in elimination order: r and y indexed by position (may be the same array) */
static void HostSweeps(const Host *h, const PetscScalar *r, PetscScalar *y)
{
  const PetscInt     n = h->n, *lptr = h->lptr.data(), *lcol = h->lcol.data(), *uptr = h->uptr.data(), *ucol = h->ucol.data();
  const PetscScalar *lval = h->lval.data(), *uval = h->uval.data(), *E = h->E.data();

  for (PetscInt p = 0; p < n; p++) { /* forward: (E + L) z = r, z in y */
    PetscScalar s = r[p];
    for (PetscInt k = lptr[p]; k < lptr[p + 1]; k++) s -= lval[k] * y[lcol[k]];
    y[p] = s / E[p];
  }
  for (PetscInt p = n - 1; p >= 0; p--) { /* backward: y_i = z_i - E_ii^-1 sum_{upper j} a_ij y_j */
    PetscScalar s = 0.0;
    for (PetscInt k = uptr[p]; k < uptr[p + 1]; k++) s += uval[k] * y[ucol[k]];
    y[p] -= s / E[p];
  }
}

PetscErrorCode HostApply(Host *h, const PetscScalar *r, PetscScalar *y)
{
  PetscFunctionBegin;
  if (h->perm.empty()) HostSweeps(h, r, y);
  else { /* rows in row order: r read and y written in one stream each, the work vector in one stream per color */
    const PetscInt *rank = h->rank.data();
    PetscScalar    *w    = h->work.data();
    for (PetscInt i = 0; i < h->n; i++) w[rank[i]] = r[i];
    HostSweeps(h, w, w);
    for (PetscInt i = 0; i < h->n; i++) y[i] = w[rank[i]];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace reference
} // namespace dilu
} // namespace kernels
} // namespace pgx
