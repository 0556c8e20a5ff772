/* Reference backend of the sparse LDL^T: plain sequential C++, the specification of ldlt_kernels.h. */
#include "../ldlt_kernels.h"
#include <vector>

namespace pgx
{
namespace kernels
{
namespace ldlt
{
namespace reference
{
PetscErrorCode Load(PetscInt n, PetscInt nnzA, const PetscScalar *aval, const PetscInt *dest, PetscInt nnzL, PetscScalar *lval, PetscScalar *d, PetscBool hermitian)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < nnzL; k++) lval[k] = 0;
  for (PetscInt j = 0; j < n; j++) d[j] = 0;
  for (PetscInt k = 0; k < nnzA; k++) {
    if (dest[k] < 0) continue;
    if (dest[k] >= nnzL) d[dest[k] - nnzL] += aval[k];
    else lval[dest[k]] += aval[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FactorColumn(PetscInt n, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt nlevels, const PetscInt *order, const PetscInt *lptr, const PivotRule *rule, PetscScalar *lval, PetscScalar *d, NumericInfo *info)
{
  PetscLogDouble flops = 0;

  PetscFunctionBegin;
  info->nperturbed = 0;
  info->badcol     = -1;
  info->badvalue   = 0;
  for (PetscInt l = 0; l < nlevels; l++) {
    for (PetscInt t = lptr[l]; t < lptr[l + 1]; t++) { /* independent columns: parallel on a GPU */
      PetscInt j = order[t], p0 = lcolptr[j], p1 = lcolptr[j + 1];
      if (!ApplyPivotRule(j, &d[j], rule, info)) {
        info->flops = flops;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      PetscScalar dj = d[j];
      for (PetscInt p = p0; p < p1; p++) lval[p] /= dj;
      /* updates of column j: c_ik -= l_ij d_j op(l_kj), i >= k in struct(L_*j) */
      for (PetscInt pb = p0; pb < p1; pb++) {
        PetscInt    k = lrow[pb], q = lcolptr[k];
        PetscScalar f = dj * Op(lval[pb], rule->hermitian);
        d[k] -= lval[pb] * f;
        for (PetscInt pa = pb + 1; pa < p1; pa++) {
          PetscInt i = lrow[pa];
          while (lrow[q] != i) q++; /* struct(L_*j) minus k is inside struct(L_*k) */
          lval[q] -= lval[pa] * f;
        }
      }
      flops += (p1 - p0) + (PetscLogDouble)(p1 - p0) * (p1 - p0 + 1) * 2.0;
    }
  }
  info->flops = flops;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FactorSupernodal(PetscInt n, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt nsuper, const PetscInt *snptr, const PivotRule *rule, PetscScalar *lval, PetscScalar *d, NumericInfo *info)
{
  std::vector<PetscScalar> B;
  PetscLogDouble           flops = 0;

  PetscFunctionBegin;
  info->nperturbed = 0;
  info->badcol     = -1;
  info->badvalue   = 0;
  for (PetscInt s = 0; s < nsuper; s++) {
    PetscInt        f = snptr[s], e = snptr[s + 1], nc = e - f;
    PetscInt        nr = lcolptr[f + 1] - lcolptr[f] - (nc - 1), m = nc + nr;
    const PetscInt *R  = lrow + lcolptr[f] + (nc - 1); /* rows below the diagonal block */
    /* dense block B (m x nc, column major): rows f..e-1 then R */
    B.assign((size_t)m * nc, 0);
    for (PetscInt t = 0; t < nc; t++) {
      B[t + t * m] = d[f + t];
      for (PetscInt k = 0, p = lcolptr[f + t]; p < lcolptr[f + t + 1]; k++, p++) B[t + 1 + k + t * m] = lval[p];
    }
    /* dense LDL^T of the block column */
    for (PetscInt t = 0; t < nc; t++) {
      if (!ApplyPivotRule(f + t, &B[t + t * m], rule, info)) {
        info->flops = flops;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      PetscScalar dt = B[t + t * m];
      for (PetscInt u = t + 1; u < m; u++) B[u + t * m] /= dt;
      for (PetscInt t2 = t + 1; t2 < nc; t2++) {
        PetscScalar g = dt * Op(B[t2 + t * m], rule->hermitian);
        for (PetscInt u = t2; u < m; u++) B[u + t2 * m] -= B[u + t * m] * g;
      }
      flops += (m - t - 1) + 2.0 * (PetscLogDouble)(nc - t - 1) * (m - t);
    }
    for (PetscInt t = 0; t < nc; t++) {
      d[f + t] = B[t + t * m];
      for (PetscInt k = 0, p = lcolptr[f + t]; p < lcolptr[f + t + 1]; k++, p++) lval[p] = B[t + 1 + k + t * m];
    }
    /* updates of the ancestors: C(R_a, R_b) -= sum_t L(R_a,t) d_t op(L(R_b,t)), a >= b */
    for (PetscInt b = 0; b < nr; b++) {
      PetscInt k = R[b], q = lcolptr[k];
      for (PetscInt a = b; a < nr; a++) {
        PetscScalar w = 0;
        for (PetscInt t = 0; t < nc; t++) w += B[nc + a + t * m] * B[t + t * m] * Op(B[nc + b + t * m], rule->hermitian);
        if (a == b) d[k] -= w;
        else {
          while (lrow[q] != R[a]) q++;
          lval[q] -= w;
        }
      }
    }
    flops += 1.5 * (PetscLogDouble)nr * (nr + 1) * nc;
  }
  info->flops = flops;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Solve(PetscInt n, const PetscInt *perm, const PetscInt *lcolptr, const PetscInt *lrow, const PetscScalar *lval, const PetscScalar *d, PetscBool hermitian, PetscInt nrhs, const PetscScalar *B, PetscScalar *X, PetscScalar *work)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < nrhs; r++) {
    PetscScalar       *y = work + (size_t)r * n;
    const PetscScalar *b = B + (size_t)r * n;
    for (PetscInt k = 0; k < n; k++) y[k] = b[perm ? perm[k] : k];
  }
  /* L y = Pb, all right-hand sides column by column */
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt r = 0; r < nrhs; r++) {
      PetscScalar *y = work + (size_t)r * n, yj = y[j];
      if (yj != (PetscScalar)0)
        for (PetscInt p = lcolptr[j]; p < lcolptr[j + 1]; p++) y[lrow[p]] -= lval[p] * yj;
    }
  for (PetscInt r = 0; r < nrhs; r++)
    for (PetscInt j = 0; j < n; j++) work[j + (size_t)r * n] /= d[j];
  /* op(L)^T z = y */
  for (PetscInt j = n - 1; j >= 0; j--)
    for (PetscInt r = 0; r < nrhs; r++) {
      PetscScalar *y = work + (size_t)r * n, s = y[j];
      for (PetscInt p = lcolptr[j]; p < lcolptr[j + 1]; p++) s -= Op(lval[p], hermitian) * y[lrow[p]];
      y[j] = s;
    }
  for (PetscInt r = 0; r < nrhs; r++) {
    const PetscScalar *y = work + (size_t)r * n;
    PetscScalar       *x = X + (size_t)r * n;
    for (PetscInt k = 0; k < n; k++) x[perm ? perm[k] : k] = y[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Inertia(PetscInt n, const PetscScalar *d, PetscInt *npos, PetscInt *nneg, PetscInt *nzero)
{
  PetscFunctionBegin;
  *npos = *nneg = *nzero = 0;
  for (PetscInt j = 0; j < n; j++) {
    PetscReal v = PetscRealPart(d[j]);
    if (v > 0) (*npos)++;
    else if (v < 0) (*nneg)++;
    else (*nzero)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace reference
} // namespace ldlt
} // namespace kernels
} // namespace pgx
