/* Supernodal numeric phase on panels (see ldlt_kernels.h): the host-side plan (supernodal tree, its levels, panel
   offsets, where each entry of A goes, where each update goes), shared by the cuda backend, and the reference
   twin of cuda::FactorSupernodal, which runs the device algorithm's schedule, blocking and maps in plain loops. */
#include "../ldlt_kernels.h"
#include <algorithm>
#include <vector>

namespace pgx
{
namespace kernels
{
namespace ldlt
{
namespace symbolic
{
PetscErrorCode SupernodalPlanCreate(PetscInt n, const PetscInt *lcolptr, const PetscInt *lrow, const PetscInt *parent, PetscInt nsuper, const PetscInt *snptr, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, const PetscInt *dest, SupernodalPlan *plan)
{
  SupernodalPlan &P    = *plan;
  PetscInt        nnzL = lcolptr[n], nnzA = rowptr[n];

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
  PetscCall(Levels(nsuper, P.sparent.data(), P.slevel.data(), P.sorder.data(), P.slptr.data(), &P.nslevels));
  P.slptr.resize(P.nslevels + 1);
  /* segments and the relative map: the columns R[b] of one ancestor are contiguous in R (R is sorted and the
     columns of a supernode are consecutive); the rows R[a], a >= b0, are in that ancestor's panel. First the
     segments (sizes counted, then filled), then relmap ancestor by ancestor: rowpos[i] = panel row of row i in the
     ancestor (stamp[i] = that ancestor), one pass over its rows, then one lookup per relmap entry. */
  PetscInt   nseg = 0;
  PetscInt64 nrel = 0;
  P.segptr.assign(nsuper + 1, 0);
  for (PetscInt s = 0; s < nsuper; s++) {
    PetscInt        f = snptr[s], nc = snptr[s + 1] - f, nr = P.nr[s];
    const PetscInt *R = lrow + lcolptr[f] + (nc - 1);
    for (PetscInt b0 = 0; b0 < nr;) {
      PetscInt ep = snptr[P.sup[R[b0]] + 1], b1 = b0;
      while (b1 < nr && R[b1] < ep) b1++;
      nseg++;
      nrel += nr - b0;
      b0 = b1;
    }
    P.segptr[s + 1] = nseg;
  }
  P.segsn.resize(nseg);
  P.segb0.resize(nseg);
  P.segrel.resize(nseg);
  P.relmap.resize(nrel);
  std::vector<PetscInt> segsrc(nseg), tptr(nsuper + 1, 0), tseg(nseg);
  nrel = 0;
  for (PetscInt s = 0; s < nsuper; s++) {
    PetscInt        f = snptr[s], nc = snptr[s + 1] - f, nr = P.nr[s], k = P.segptr[s];
    const PetscInt *R = lrow + lcolptr[f] + (nc - 1);
    for (PetscInt b0 = 0; b0 < nr; k++) {
      PetscInt p = P.sup[R[b0]], ep = snptr[p + 1], b1 = b0;
      while (b1 < nr && R[b1] < ep) b1++;
      P.segsn[k]  = p;
      P.segb0[k]  = b0;
      P.segrel[k] = nrel;
      segsrc[k]   = s;
      tptr[p + 1]++;
      nrel += nr - b0;
      b0 = b1;
    }
  }
  for (PetscInt p = 0; p < nsuper; p++) tptr[p + 1] += tptr[p];
  {
    std::vector<PetscInt> next(tptr.begin(), tptr.end() - 1);
    for (PetscInt k = 0; k < nseg; k++) tseg[next[P.segsn[k]]++] = k;
  }
  {
    std::vector<PetscInt> rowpos(n), stamp(n, -1);
    for (PetscInt p = 0; p < nsuper; p++) {
      if (tptr[p] == tptr[p + 1]) continue;
      PetscInt        fp = snptr[p], ep = snptr[p + 1], ncp = ep - fp, nrp = P.nr[p];
      const PetscInt *Rp = lrow + lcolptr[fp] + (ncp - 1);
      for (PetscInt c = fp; c < ep; c++) {
        rowpos[c] = c - fp;
        stamp[c]  = p;
      }
      for (PetscInt q = 0; q < nrp; q++) {
        rowpos[Rp[q]] = ncp + q;
        stamp[Rp[q]]  = p;
      }
      for (PetscInt t = tptr[p]; t < tptr[p + 1]; t++) {
        PetscInt        k = tseg[t], s = segsrc[k], f = snptr[s], nc = snptr[s + 1] - f, nr = P.nr[s], b0 = P.segb0[k];
        const PetscInt *R   = lrow + lcolptr[f] + (nc - 1);
        PetscInt       *rel = P.relmap.data() + P.segrel[k] - b0;
        for (PetscInt a = b0; a < nr; a++) {
          PetscInt i = R[a];
          PetscCheck(stamp[i] == p, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " of supernode %" PetscInt_FMT " is not in the structure of its ancestor %" PetscInt_FMT, i, s, p);
          rel[a] = rowpos[i];
        }
      }
    }
  }
  /* where each entry of A goes: diagonal j -> (t, t) of its panel; lval position p of column j -> (t+1+k, t) */
  P.pdest.assign(nnzA, -1);
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = rowptr[r]; k < rowptr[r + 1]; k++) {
      PetscInt t = dest[k], j = iperm[col[k]], pos;
      if (t < 0) continue;
      if (t >= nnzL) {
        PetscCheck(t - nnzL == j, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Value map: diagonal entry %" PetscInt_FMT " of A goes to %" PetscInt_FMT, k, t);
        pos = -1;
      } else {
        PetscCheck(lcolptr[j] <= t && t < lcolptr[j + 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Value map: entry %" PetscInt_FMT " of A is not in column %" PetscInt_FMT " of L", k, j);
        pos = t - lcolptr[j];
      }
      PetscInt s = P.sup[j], f = snptr[s], m = snptr[s + 1] - f + P.nr[s], c = j - f;
      P.pdest[k] = P.pofs[s] + (c + 1 + pos) + (PetscInt64)c * m;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace symbolic

namespace reference
{
PetscErrorCode FactorSupernodalPlan(const symbolic::SupernodalPlan *plan, const PetscInt *lcolptr, const PetscInt *lrow, const PetscScalar *aval, PetscInt large_min, PetscInt nb, const PivotRule *rule, PetscScalar *panels, PetscScalar *lval, PetscScalar *d, NumericInfo *info)
{
  const symbolic::SupernodalPlan &P = *plan;
  PetscBool                        h = rule->hermitian;
  std::vector<PetscScalar>         W, C;

  PetscFunctionBegin;
  PetscCheck(nb >= 1 && nb <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Block size %" PetscInt_FMT " must be in [1, 64]", nb);
  info->nperturbed = 0;
  info->badcol     = -1;
  info->badvalue   = 0;
  info->flops      = P.flops;
  for (PetscInt64 k = 0; k < P.pofs[P.nsuper]; k++) panels[k] = 0;
  for (PetscInt k = 0; k < P.nnzA; k++)
    if (P.pdest[k] >= 0) panels[P.pdest[k]] += aval[k];
  for (PetscInt l = 0; l < P.nslevels; l++) {
    for (PetscInt i = P.slptr[l]; i < P.slptr[l + 1]; i++) { /* independent supernodes: one launch on the device */
      PetscInt        s = P.sorder[i], f = P.snptr[s], nc = P.snptr[s + 1] - f, nr = P.nr[s], m = nc + nr;
      PetscScalar    *A = panels + P.pofs[s];
      const PetscInt *R = lrow + lcolptr[f] + (nc - 1);
      if (!symbolic::SupernodalIsLarge(nc, nr, large_min)) {
        /* one thread block: the operation order of FactorSupernodal */
        for (PetscInt t = 0; t < nc; t++) {
          (void)ApplyPivotRule(f + t, &A[t + t * m], rule, info); /* a bad pivot is recorded and left: the panel goes on, as the GPU does */
          PetscScalar dt = A[t + t * m];
          for (PetscInt u = t + 1; u < m; u++) A[u + t * m] /= dt;
          for (PetscInt t2 = t + 1; t2 < nc; t2++) {
            PetscScalar g = dt * Op(A[t2 + t * m], h);
            for (PetscInt u = t2; u < m; u++) A[u + t2 * m] -= A[u + t * m] * g;
          }
        }
        for (PetscInt k = P.segptr[s]; k < P.segptr[s + 1]; k++) {
          PetscInt     p = P.segsn[k], b0 = P.segb0[k], b1 = k + 1 < P.segptr[s + 1] ? P.segb0[k + 1] : nr, fp = P.snptr[p], mp = P.snptr[p + 1] - fp + P.nr[p];
          PetscScalar *T = panels + P.pofs[p];
          for (PetscInt b = b0; b < b1; b++)
            for (PetscInt a = b; a < nr; a++) {
              PetscScalar w = 0;
              for (PetscInt t = 0; t < nc; t++) w += A[nc + a + t * m] * A[t + t * m] * Op(A[nc + b + t * m], h);
              T[P.relmap[P.segrel[k] + a - b0] + (PetscInt64)(R[b] - fp) * mp] -= w;
            }
        }
        continue;
      }
      /* dense BLAS-3 path: blocked LDL^T of the diagonal block, right-looking inside the panel */
      for (PetscInt k0 = 0; k0 < nc; k0 += nb) {
        PetscInt kb = PetscMin(nb, nc - k0), r0 = k0 + kb, mr = m - r0;
        /* diagonal block kb x kb (one thread block on the device) */
        for (PetscInt t = k0; t < r0; t++) {
          (void)ApplyPivotRule(f + t, &A[t + t * m], rule, info); /* a bad pivot is recorded and left: the panel goes on, as the GPU does */
          PetscScalar dt = A[t + t * m];
          for (PetscInt u = t + 1; u < r0; u++) A[u + t * m] /= dt;
          for (PetscInt t2 = t + 1; t2 < r0; t2++) {
            PetscScalar g = dt * Op(A[t2 + t * m], h);
            for (PetscInt u = t2; u < r0; u++) A[u + t2 * m] -= A[u + t * m] * g;
          }
        }
        if (!mr) continue;
        /* trsm: X op(L11)^T = A(r0:m, k0:r0); W = X; A(r0:m, k0:r0) = X D^-1 */
        for (PetscInt t = k0; t < r0; t++)
          for (PetscInt tp = k0; tp < t; tp++) {
            PetscScalar l = Op(A[t + tp * m], h);
            for (PetscInt u = r0; u < m; u++) A[u + t * m] -= A[u + tp * m] * l;
          }
        W.assign((size_t)mr * kb, 0);
        for (PetscInt t = 0; t < kb; t++)
          for (PetscInt u = 0; u < mr; u++) W[u + t * mr] = A[r0 + u + (k0 + t) * m];
        for (PetscInt t = k0; t < r0; t++)
          for (PetscInt u = r0; u < m; u++) A[u + t * m] /= A[t + t * m];
        /* trailing columns r0..nc-1: syrkx (rows r0..nc-1, lower) and gemm (rows nc..m-1) */
        for (PetscInt c = r0; c < nc; c++)
          for (PetscInt u = c; u < m; u++) {
            PetscScalar w = 0;
            for (PetscInt t = 0; t < kb; t++) w += A[u + (k0 + t) * m] * Op(W[(c - r0) + t * mr], h);
            A[u + c * m] -= w;
          }
      }
      if (!nr) continue;
      /* contribution C = L21 D op(L21)^T (lower, nr x nr) through Wd = L21 D, then the scatter-add */
      W.assign((size_t)nr * nc, 0);
      for (PetscInt t = 0; t < nc; t++)
        for (PetscInt a = 0; a < nr; a++) W[a + t * nr] = A[nc + a + t * m] * A[t + t * m];
      C.assign((size_t)nr * nr, 0);
      for (PetscInt b = 0; b < nr; b++)
        for (PetscInt a = b; a < nr; a++) {
          PetscScalar w = 0;
          for (PetscInt t = 0; t < nc; t++) w += A[nc + a + t * m] * Op(W[b + t * nr], h);
          C[a + b * nr] = w;
        }
      for (PetscInt k = P.segptr[s]; k < P.segptr[s + 1]; k++) {
        PetscInt     p = P.segsn[k], b0 = P.segb0[k], b1 = k + 1 < P.segptr[s + 1] ? P.segb0[k + 1] : nr, fp = P.snptr[p], mp = P.snptr[p + 1] - fp + P.nr[p];
        PetscScalar *T = panels + P.pofs[p];
        for (PetscInt b = b0; b < b1; b++)
          for (PetscInt a = b; a < nr; a++) T[P.relmap[P.segrel[k] + a - b0] + (PetscInt64)(R[b] - fp) * mp] -= C[a + b * nr];
      }
    }
  }
  /* panels to the CSC storage of L and D */
  for (PetscInt s = 0; s < P.nsuper; s++) {
    PetscInt           f = P.snptr[s], nc = P.snptr[s + 1] - f, m = nc + P.nr[s];
    const PetscScalar *A = panels + P.pofs[s];
    for (PetscInt t = 0; t < nc; t++) {
      d[f + t] = A[t + t * m];
      for (PetscInt k = 0, p = lcolptr[f + t]; p < lcolptr[f + t + 1]; k++, p++) lval[p] = A[t + 1 + k + t * m];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode SolvePanels(const symbolic::SupernodalPlan *plan, const PetscInt *lcolptr, const PetscInt *lrow, const PetscScalar *panels, const PetscInt *perm, PetscBool hermitian, PetscInt nrhs, const PetscScalar *B, PetscScalar *X, PetscScalar *work)
{
  const symbolic::SupernodalPlan &P = *plan;
  PetscInt                        n = P.n;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < nrhs; r++)
    for (PetscInt k = 0; k < n; k++) work[k + (size_t)r * n] = B[(perm ? perm[k] : k) + (size_t)r * n];
  for (PetscInt l = 0; l < P.nslevels; l++)
    for (PetscInt i = P.slptr[l]; i < P.slptr[l + 1]; i++) {
      PetscInt           s = P.sorder[i], f = P.snptr[s], nc = P.snptr[s + 1] - f, nr = P.nr[s], m = nc + nr;
      const PetscScalar *A = panels + P.pofs[s];
      const PetscInt    *R = lrow + lcolptr[f] + (nc - 1);
      for (PetscInt r = 0; r < nrhs; r++) {
        PetscScalar *y = work + (size_t)r * n;
        for (PetscInt t = 0; t < nc; t++) {
          PetscScalar yt = y[f + t];
          for (PetscInt u = t + 1; u < nc; u++) y[f + u] -= A[u + t * m] * yt;
        }
        for (PetscInt a = 0; a < nr; a++) {
          PetscScalar w = 0;
          for (PetscInt t = 0; t < nc; t++) w += A[nc + a + t * m] * y[f + t];
          y[R[a]] -= w;
        }
      }
    }
  for (PetscInt s = 0; s < P.nsuper; s++) {
    PetscInt           f = P.snptr[s], nc = P.snptr[s + 1] - f, m = nc + P.nr[s];
    const PetscScalar *A = panels + P.pofs[s];
    for (PetscInt r = 0; r < nrhs; r++)
      for (PetscInt t = 0; t < nc; t++) work[f + t + (size_t)r * n] /= A[t + t * m];
  }
  for (PetscInt l = P.nslevels - 1; l >= 0; l--)
    for (PetscInt i = P.slptr[l]; i < P.slptr[l + 1]; i++) {
      PetscInt           s = P.sorder[i], f = P.snptr[s], nc = P.snptr[s + 1] - f, nr = P.nr[s], m = nc + nr;
      const PetscScalar *A = panels + P.pofs[s];
      const PetscInt    *R = lrow + lcolptr[f] + (nc - 1);
      for (PetscInt r = 0; r < nrhs; r++) {
        PetscScalar *y = work + (size_t)r * n;
        for (PetscInt t = 0; t < nc; t++) {
          PetscScalar w = 0;
          for (PetscInt a = 0; a < nr; a++) w += Op(A[nc + a + t * m], hermitian) * y[R[a]];
          y[f + t] -= w;
        }
        for (PetscInt u = nc - 1; u > 0; u--) {
          PetscScalar yu = y[f + u];
          for (PetscInt t = 0; t < u; t++) y[f + t] -= Op(A[u + t * m], hermitian) * yu;
        }
      }
    }
  for (PetscInt r = 0; r < nrhs; r++)
    for (PetscInt k = 0; k < n; k++) X[(perm ? perm[k] : k) + (size_t)r * n] = work[k + (size_t)r * n];
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace reference
} // namespace ldlt
} // namespace kernels
} // namespace pgx
