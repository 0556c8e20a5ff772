/* PCDILU host reference backend: plain sequential C++, the specification of the kernels
   (see dilu_kernels.h). Factor() and Apply() visit the rows level by level, exactly as the parallel
   backends schedule them, so the level sets themselves are exercised by the kernel tests; the host
   backend that PCDILU runs (Host*, at the end) does the same arithmetic on data laid out in elimination
   order, and the tests check that it gives the same bits. */
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

PetscErrorCode Color(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt wave, PetscInt *color, PetscInt *ncolors)
{
  std::vector<PetscInt> tptr(n + 1), tcol(rowptr[n]), tperm(rowptr[n]), stamp;
  PetscInt              maxcolor = -1;

  PetscFunctionBegin;
  PetscCheck(wave >= 1 && wave <= DILU_COLOR_WAVE_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCDILU coloring: wave %" PetscInt_FMT " is not in [1, %d]", wave, DILU_COLOR_WAVE_MAX);
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
    if ((PetscInt)stamp.size() < deg + wave + 1) stamp.resize(deg + wave + 1, -1);
    for (PetscInt t = ml + 1; t < wave; t++) /* the next color of the wave, if free */
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

PetscErrorCode Color(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *color, PetscInt *ncolors)
{
  PetscFunctionBegin;
  PetscCall(Color(n, rowptr, colidx, DILU_COLOR_WAVE, color, ncolors));
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
PetscErrorCode Richardson(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *val, const PetscInt *rank, const PetscScalar *E, PetscInt nlower, const PetscInt *lorder, const PetscInt *llptr, PetscInt nupper, const PetscInt *uorder, const PetscInt *ulptr, const PetscScalar *b, PetscScalar *x, PetscInt its, PetscBool guesszero, PetscScalar *z)
{
  PetscFunctionBegin;
  for (PetscInt step = 0; step < its; step++) {
    const bool zero = guesszero && step == 0; /* x = 0: t = b, x = y */
    /* forward: t_i = b_i - (A x)_i over the whole row, then (E + L) z = t */
    for (PetscInt l = 0; l < nlower; l++) {
      for (PetscInt p = llptr[l]; p < llptr[l + 1]; p++) {
        PetscInt    i = lorder[p];
        PetscScalar t = b[i];
        if (!zero)
          for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) t -= val[k] * x[colidx[k]];
        for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
          PetscInt j = colidx[k];
          if (j != i && Before(rank, j, i)) t -= val[k] * z[j];
        }
        z[i] = t / E[i];
      }
    }
    /* backward: y_i = z_i - E_ii^-1 sum_{upper j} a_ij y_j in z, x_i += y_i */
    for (PetscInt l = 0; l < nupper; l++) {
      for (PetscInt p = ulptr[l]; p < ulptr[l + 1]; p++) {
        PetscInt    i = uorder[p];
        PetscScalar s = 0.0;
        for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
          PetscInt j = colidx[k];
          if (j != i && Before(rank, i, j)) s += val[k] * z[j];
        }
        z[i] -= s / E[i];
        if (zero) x[i] = z[i];
        else x[i] += z[i];
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the host backend (see dilu_kernels.h) */
struct Host {
  PetscInt                 n       = 0;
  bool                     natural = true;    /* rank = identity in Factor()'s terms (badrow) */
  std::vector<PetscInt>    perm, rank;        /* perm[p] = row at position p, rank = perm^-1 */
  std::vector<PetscInt>    lptr, lcol, lpair; /* lower entries of each position: column (as a position), position of a_ji among the upper entries (-1: A stores no a_ji) */
  std::vector<PetscInt>    uptr, ucol;        /* upper entries, the same way */
  std::vector<PetscInt>    dst;               /* A's entry k goes to val[dst[k]]: lower entries, then upper entries, then diagonals */
  std::vector<PetscScalar> val;               /* the values in elimination order: lval = val, uval = val + lptr[n], dval = uval + uptr[n] */
  std::vector<PetscScalar> E, work;           /* E and the vector being solved for, in elimination order */
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

/* Natural: rank by wavefront, level(i) = 1 + max level(j) over the rows j < i coupled to i (a_ij or a_ji
   stored), rows in row order within a level. Both sweeps may go in that order (the backward one in
   reverse), and consecutive rows of a level are independent, so their divisions overlap instead of each
   waiting for the previous row's. */
static void WavefrontRank(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *rank)
{
  std::vector<PetscInt> level(n, 0), start;
  PetscInt              nl = 0;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt j = colidx[k];
      if (j < i) level[i] = std::max(level[i], level[j] + 1);
    }
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) { /* a_ij with j > i: row j comes after row i */
      const PetscInt j = colidx[k];
      if (j > i) level[j] = std::max(level[j], level[i] + 1);
    }
    nl = std::max(nl, level[i] + 1);
  }
  start.assign(nl + 1, 0);
  for (PetscInt i = 0; i < n; i++) start[level[i] + 1]++;
  for (PetscInt l = 0; l < nl; l++) start[l + 1] += start[l];
  for (PetscInt i = 0; i < n; i++) rank[i] = start[level[i]]++;
}

PetscErrorCode HostAnalyze(Host *h, PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, const PetscInt *pair)
{
  PetscFunctionBegin;
  h->n       = n;
  h->natural = !rank;
  h->rank.resize(n);
  h->perm.resize(n);
  if (rank) h->rank.assign(rank, rank + n);
  else WavefrontRank(n, rowptr, colidx, h->rank.data());
  for (PetscInt i = 0; i < n; i++) h->perm[h->rank[i]] = i;
  const PetscInt *pos = h->rank.data();
  /* lower: rank[j] < rank[i] (natural: j < i, which the wavefront rank keeps) */
  auto lower = [&](PetscInt i, PetscInt j) { return rank ? rank[j] < rank[i] : j < i; };
  h->lptr.assign(n + 1, 0);
  h->uptr.assign(n + 1, 0);
  for (PetscInt p = 0; p < n; p++) {
    const PetscInt i = h->perm[p];
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt j = colidx[k];
      if (j == i) continue;
      if (lower(i, j)) h->lptr[p + 1]++;
      else h->uptr[p + 1]++;
    }
  }
  for (PetscInt p = 0; p < n; p++) {
    h->lptr[p + 1] += h->lptr[p];
    h->uptr[p + 1] += h->uptr[p];
  }
  const PetscInt nl = h->lptr[n], nu = h->uptr[n];
  h->lcol.resize(nl);
  h->ucol.resize(nu);
  h->lpair.assign(nl, -1);
  h->dst.assign(rowptr[n], -1);
  for (PetscInt p = 0; p < n; p++) {
    const PetscInt i = h->perm[p];
    PetscInt       l = h->lptr[p], u = h->uptr[p];
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt j = colidx[k];
      if (j == i) h->dst[k] = nl + nu + p;
      else if (lower(i, j)) h->lcol[l] = pos[j], h->dst[k] = l++;
      else h->ucol[u] = pos[j], h->dst[k] = nl + u++;
    }
  }
  if (pair) /* a_ji is an upper entry of the earlier row j */
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++)
        if (h->dst[k] >= 0 && h->dst[k] < nl && pair[k] >= 0) h->lpair[h->dst[k]] = h->dst[pair[k]] - nl;
  h->val.assign(nl + nu + n, 0.0);
  h->E.resize(n);
  h->work.resize(n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's values into elimination order, reading A in its own order (one stream) */
static void HostCopyValues(Host *h, const PetscScalar *val)
{
  PetscScalar    *v   = h->val.data();
  const PetscInt *dst = h->dst.data(), nnz = (PetscInt)h->dst.size();
  for (PetscInt k = 0; k < nnz; k++) v[dst[k]] = val[k];
}

PetscErrorCode HostFactor(Host *h, const PetscScalar *val, PetscReal shift, PetscScalar *E, PetscInt *badrow)
{
  const PetscInt     n = h->n, *lptr = h->lptr.data(), *lcol = h->lcol.data(), *lpair = h->lpair.data(), *perm = h->perm.data();
  const PetscScalar *lval = h->val.data(), *uval = lval + lptr[n], *dval = uval + h->uptr[n];
  PetscScalar       *Ep  = h->E.data();
  PetscInt           bad = -1, badrank = -1;

  PetscFunctionBegin;
  HostCopyValues(h, val);
  for (PetscInt p = 0; p < n; p++) { /* Factor(): the terms of row i in its CSR order; a missing diagonal reads 0 */
    PetscScalar d    = dval[p] + shift;
    const bool  zero = d == 0.0;
    for (PetscInt k = lptr[p]; k < lptr[p + 1]; k++)
      if (lpair[k] >= 0) d -= lval[k] * uval[lpair[k]] / Ep[lcol[k]];
    Ep[p] = d;
    if (zero || d == 0.0 || PetscIsInfOrNanScalar(d)) { /* the first failure in elimination order, as Factor() */
      const PetscInt i = perm[p], ri = h->natural ? i : h->rank[i];
      if (bad < 0 || ri < badrank) bad = i, badrank = ri;
    }
  }
  for (PetscInt i = 0; i < n; i++) E[i] = Ep[h->rank[i]];
  *badrow = bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HostSetValues(Host *h, const PetscScalar *val, const PetscScalar *E)
{
  PetscFunctionBegin;
  HostCopyValues(h, val);
  for (PetscInt i = 0; i < h->n; i++) h->E[h->rank[i]] = E[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HostApply(Host *h, const PetscScalar *r, PetscScalar *y)
{
  const PetscInt     n = h->n, *lptr = h->lptr.data(), *lcol = h->lcol.data(), *uptr = h->uptr.data(), *ucol = h->ucol.data(), *rank = h->rank.data();
  const PetscScalar *lval = h->val.data(), *uval = lval + lptr[n], *E = h->E.data();
  PetscScalar       *w    = h->work.data();

  PetscFunctionBegin;
  /* r into elimination order, in row order: r read in one stream, w written in one stream per level or color */
  for (PetscInt i = 0; i < n; i++) w[rank[i]] = r[i];
  for (PetscInt p = 0; p < n; p++) { /* forward: (E + L) z = r, z in w */
    PetscScalar s = w[p];
    for (PetscInt k = lptr[p]; k < lptr[p + 1]; k++) s -= lval[k] * w[lcol[k]];
    w[p] = s / E[p];
  }
  for (PetscInt p = n - 1; p >= 0; p--) { /* backward: y_i = z_i - E_ii^-1 sum_{upper j} a_ij y_j */
    PetscScalar s = 0.0;
    for (PetscInt k = uptr[p]; k < uptr[p + 1]; k++) s += uval[k] * w[ucol[k]];
    w[p] -= s / E[p];
  }
  for (PetscInt i = 0; i < n; i++) y[i] = w[rank[i]];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HostRichardson(Host *h, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *val, const PetscScalar *b, PetscScalar *x, PetscInt its, PetscBool guesszero)
{
  const PetscInt     n = h->n, *lptr = h->lptr.data(), *lcol = h->lcol.data(), *uptr = h->uptr.data(), *ucol = h->ucol.data(), *perm = h->perm.data();
  const PetscScalar *lval = h->val.data(), *uval = lval + lptr[n], *E = h->E.data();
  PetscScalar       *w    = h->work.data();

  PetscFunctionBegin;
  for (PetscInt step = 0; step < its; step++) {
    const bool zero = guesszero && step == 0;
    for (PetscInt p = 0; p < n; p++) { /* forward: the row's residual (A's CSR order, x in A's ordering), then (E + L) z = t */
      const PetscInt i = perm[p];
      PetscScalar    t = b[i];
      if (!zero)
        for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) t -= val[k] * x[colidx[k]];
      for (PetscInt k = lptr[p]; k < lptr[p + 1]; k++) t -= lval[k] * w[lcol[k]];
      w[p] = t / E[p];
    }
    for (PetscInt p = n - 1; p >= 0; p--) { /* backward, then x += y */
      PetscScalar s = 0.0;
      for (PetscInt k = uptr[p]; k < uptr[p + 1]; k++) s += uval[k] * w[ucol[k]];
      w[p] -= s / E[p];
      if (zero) x[perm[p]] = w[p];
      else x[perm[p]] += w[p];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace reference
} // namespace dilu
} // namespace kernels
} // namespace pgx
