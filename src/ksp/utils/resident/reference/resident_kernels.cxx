/* Reference backend of the resident linear-algebra kernels: plain sequential loops on host arrays, the
   specification of ../resident_kernels.h. Sums run in index order. */
#include "../resident_kernels.h"
#include <pgx/private/pgxdia.h>

namespace pgx
{
namespace kernels
{
namespace resident
{
namespace reference
{
PetscErrorCode SpMV(const CSR &A, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < A.nrows; i++) {
    PetscScalar s = 0;
    for (PetscInt k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) s += A.val[k] * x[A.colidx[k]];
    y[i] = s;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SpMVAdd(const CSR &A, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < A.nrows; i++) {
    PetscScalar s = y[i];
    for (PetscInt k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) s += A.val[k] * x[A.colidx[k]];
    y[i] = s;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Dot(PetscInt n, const PetscScalar *x, const PetscScalar *y, PetscScalar *r)
{
  PetscScalar s = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) s += PetscConj(y[i]) * x[i];
  *r = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MDot(PetscInt n, PetscInt k, const PetscScalar *V, PetscInt ldv, const PetscScalar *w, PetscScalar *r)
{
  PetscFunctionBegin;
  for (PetscInt j = 0; j < k; j++) PetscCall(Dot(n, w, V + j * ldv, &r[j]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DotNorm2(PetscInt n, const PetscScalar *s, const PetscScalar *t, PetscScalar *d, PetscReal *t2)
{
  PetscScalar a = 0;
  PetscReal   b = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    a += PetscConj(t[i]) * s[i];
    b += PetscRealPart(PetscConj(t[i]) * t[i]);
  }
  *d  = a;
  *t2 = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Norm2Sq(PetscInt n, const PetscScalar *x, PetscReal *r)
{
  PetscReal s = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) s += PetscRealPart(PetscConj(x[i]) * x[i]);
  *r = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AXPY(PetscInt n, PetscScalar a, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) y[i] += a * x[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AYPX(PetscInt n, PetscScalar b, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) y[i] = x[i] + b * y[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode WAXPY(PetscInt n, PetscScalar a, const PetscScalar *x, const PetscScalar *y, PetscScalar *w)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) w[i] = a * x[i] + y[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AXPBYPCZ(PetscInt n, PetscScalar a, PetscScalar b, PetscScalar c, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) z[i] = a * x[i] + b * y[i] + c * z[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MAXPY(PetscInt n, PetscInt k, const PetscScalar *a, const PetscScalar *V, PetscInt ldv, PetscScalar *y)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = y[i];
    for (PetscInt j = 0; j < k; j++) s += a[j] * V[j * ldv + i];
    y[i] = s;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Scale(PetscInt n, PetscScalar a, PetscScalar *x)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) x[i] *= a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Copy(PetscInt n, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  if (x != y) for (PetscInt i = 0; i < n; i++) y[i] = x[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Set(PetscInt n, PetscScalar a, PetscScalar *x)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) x[i] = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PointwiseMult(PetscInt n, const PetscScalar *d, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) y[i] = d[i] * x[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Gather(PetscInt m, const PetscInt *idx, const PetscScalar *x, PetscScalar *buf)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < m; i++) buf[i] = x[idx[i]];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DotDev(PetscInt n, const PetscScalar *x, const PetscScalar *y, PetscScalar *d)
{
  return Dot(n, x, y, d);
}

PetscErrorCode DotNorm2Dev(PetscInt n, const PetscScalar *s, const PetscScalar *t, PetscScalar *d2)
{
  PetscReal t2;

  PetscFunctionBegin;
  PetscCall(DotNorm2(n, s, t, &d2[0], &t2));
  d2[1] = t2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGStep(PetscInt n, PetscScalar beta, PetscScalar dpiold, PetscBool checksign, const PetscScalar *dpi, const PetscScalar *p, const PetscScalar *w, PetscScalar *x, PetscScalar *r)
{
  PetscFunctionBegin;
  if (!CGStepTaken(PetscRealPart(*dpi), PetscImaginaryPart(*dpi), PetscRealPart(dpiold), checksign ? true : false)) PetscFunctionReturn(PETSC_SUCCESS);
  const PetscScalar a = beta / *dpi;
  PetscCall(AXPY(n, a, p, x));
  PetscCall(AXPY(n, -a, w, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Fetch(PetscInt k, const PetscScalar *d, PetscScalar *h)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < k; i++) h[i] = d[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x *= 1 / sqrt(Re d[0]) unless that root is 0 or 1: the glue's normalization (1 / t formed as it forms it) */
PetscErrorCode ScaleInvSqrtDev(PetscInt n, const PetscScalar *d, PetscScalar *x)
{
  const PetscReal t = PetscSqrtReal(PetscRealPart(d[0]));

  if (t == 0.0 || t == 1.0) return PETSC_SUCCESS;
  return Scale(n, 1.0 / t, x);
}

/* y = x + (num / den) y: the quotient formed as the glue forms b = beta / betaold, then AYPX */
PetscErrorCode AYPXDev(PetscInt n, const PetscScalar *num, const PetscScalar *den, const PetscScalar *x, PetscScalar *y)
{
  const PetscScalar b = *num / *den;

  return AYPX(n, b, x, y);
}

/* CGStep with x read from xin and written to xout (the look-ahead CG keeps the previous iterate), all scalars in memory */
PetscErrorCode CGStepDev(PetscInt n, const PetscScalar *beta, const PetscScalar *dpi, const PetscScalar *dpiold, const PetscScalar *p, const PetscScalar *w, const PetscScalar *xin, PetscScalar *xout, PetscScalar *r)
{
  PetscFunctionBegin;
  if (!CGStepTaken(PetscRealPart(*dpi), PetscImaginaryPart(*dpi), dpiold ? PetscRealPart(*dpiold) : 0, dpiold ? true : false)) PetscFunctionReturn(PETSC_SUCCESS);
  const PetscScalar a = *beta / *dpi, ma = -a;
  for (PetscInt i = 0; i < n; i++) {
    xout[i] = xin[i] + a * p[i];
    r[i] += ma * w[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p_new = z + (num/den) p_old (or z), then SpMVDotDev on p_new */
PetscErrorCode SpMVDotAYPXDev(const CSR &A, const PetscScalar *z, const PetscScalar *pold, const PetscScalar *num, const PetscScalar *den, PetscScalar *pnew, PetscScalar *y, PetscScalar *d)
{
  PetscFunctionBegin;
  if (pold) {
    const PetscScalar b = *num / *den;
    for (PetscInt i = 0; i < A.nrows; i++) pnew[i] = z[i] + b * pold[i];
  } else PetscCall(Copy(A.nrows, z, pnew));
  PetscCall(SpMVDotDev(A, pnew, y, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the two fetch slots: on the host the copy is done at Begin */
static PetscScalar fetch_slot[2][PGX_RESIDENT_FETCHMAX];

PetscErrorCode FetchBegin(PetscInt k, const PetscScalar *d, PetscInt slot)
{
  PetscFunctionBegin;
  PetscCheck(k >= 0 && k <= PGX_RESIDENT_FETCHMAX && (slot == 0 || slot == 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "resident FetchBegin: %" PetscInt_FMT " scalars into slot %" PetscInt_FMT " (at most %d, slot 0 or 1)", k, slot, PGX_RESIDENT_FETCHMAX);
  for (PetscInt i = 0; i < k; i++) fetch_slot[slot][i] = d[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the host's scalars need no publishing: FetchBegin copies them */
PetscErrorCode FetchArm(PetscInt k, const PetscScalar *d, PetscInt slot)
{
  PetscFunctionBegin;
  (void)d;
  PetscCheck(k >= 0 && k <= PGX_RESIDENT_FETCHMAX && (slot == 0 || slot == 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "resident FetchArm: %" PetscInt_FMT " scalars into slot %" PetscInt_FMT " (at most %d, slot 0 or 1)", k, slot, PGX_RESIDENT_FETCHMAX);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FetchEnd(PetscInt k, PetscInt slot, PetscScalar *h)
{
  PetscFunctionBegin;
  PetscCheck(k >= 0 && k <= PGX_RESIDENT_FETCHMAX && (slot == 0 || slot == 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "resident FetchEnd: %" PetscInt_FMT " scalars from slot %" PetscInt_FMT " (at most %d, slot 0 or 1)", k, slot, PGX_RESIDENT_FETCHMAX);
  for (PetscInt i = 0; i < k; i++) h[i] = fetch_slot[slot][i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MDotDev(PetscInt n, PetscInt k, const PetscScalar *V, PetscInt ldv, const PetscScalar *w, PetscScalar *d)
{
  return MDot(n, k, V, ldv, w, d);
}

PetscErrorCode MAXPYNegDev(PetscInt n, PetscInt k, const PetscScalar *d, const PetscScalar *V, PetscInt ldv, PetscScalar *y)
{
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = y[i];
    for (PetscInt j = 0; j < k; j++) s += (-d[j]) * V[j * ldv + i];
    y[i] = s;
  }
  return PETSC_SUCCESS;
}

PetscErrorCode Norm2SqDev(PetscInt n, const PetscScalar *x, PetscScalar *d)
{
  PetscReal r;

  PetscFunctionBegin;
  PetscCall(Norm2Sq(n, x, &r));
  d[0] = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SpMVDotDev(const CSR &A, const PetscScalar *x, PetscScalar *y, PetscScalar *d)
{
  PetscFunctionBegin;
  PetscCall(SpMV(A, x, y));
  PetscCall(DotDev(A.nrows, x, y, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode InvDiag(const CSR &A, PetscScalar *inv, PetscInt *nbad)
{
  PetscFunctionBegin;
  *nbad = 0;
  for (PetscInt i = 0; i < A.nrows; i++) {
    PetscScalar d = 0;
    for (PetscInt k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
      if (A.colidx[k] == i) d = A.val[k];
    if (d == PetscScalar(0)) (*nbad)++;
    else inv[i] = PetscScalar(1.0) / d;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DIAFill(const CSR &A, PetscInt ndiag, const PetscInt *doff, PetscScalar *dval, PetscBool *miss)
{
  PetscBool bad = PETSC_FALSE;

  PetscFunctionBegin;
  for (size_t k = 0; k < (size_t)ndiag * (size_t)A.nrows; k++) dval[k] = 0;
  for (PetscInt i = 0; i < A.nrows; i++) {
    PetscInt d = 0;
    for (PetscInt k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) { /* columns sorted: the diagonals in increasing order */
      const PetscInt o = A.colidx[k] - i;
      while (d < ndiag && doff[d] < o) d++;
      if (d < ndiag && doff[d] == o) dval[(size_t)d * (size_t)A.nrows + (size_t)i] = A.val[k];
      else bad = PETSC_TRUE;
    }
  }
  if (miss) *miss = bad;
  else PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DIA fill: an entry of the block lies on no analyzed diagonal (pattern changed?)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p_new = z + (num/den) p_old (or z) at the rows idx[0..m) only */
PetscErrorCode AYPXIdxDev(PetscInt m, const PetscInt *idx, const PetscScalar *z, const PetscScalar *pold, const PetscScalar *num, const PetscScalar *den, PetscScalar *pnew)
{
  const PetscScalar b = pold ? *num / *den : 0;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < m; k++) {
    const PetscInt i = idx[k];
    pnew[i]          = pold ? z[i] + b * pold[i] : z[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y += A x and d[0] += sum_i conj((A x)_i) p_i over the rows with entries (the off-diagonal block's part of p'A p) */
PetscErrorCode SpMVAddDotDev(const CSR &A, const PetscScalar *x, const PetscScalar *p, PetscScalar *y, PetscScalar *d)
{
  PetscScalar a = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < A.nrows; i++) {
    if (A.rowptr[i + 1] == A.rowptr[i]) continue;
    PetscScalar s = 0;
    for (PetscInt k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) s += A.val[k] * x[A.colidx[k]];
    y[i] = y[i] + s;
    a += PetscConj(s) * p[i];
  }
  d[0] += a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CGStepDev, the pointwise preconditioner, DotNorm2Dev: the three calls in turn (the specification of the fused pass) */
PetscErrorCode CGStepPointwiseDev(PetscInt n, const PetscScalar *beta, const PetscScalar *dpi, const PetscScalar *dpiold, const PetscScalar *p, const PetscScalar *w, const PetscScalar *xin, PetscScalar *xout, PetscScalar *r, const PetscScalar *d, PetscScalar *z, PetscScalar *d2)
{
  PetscFunctionBegin;
  PetscCall(CGStepDev(n, beta, dpi, dpiold, p, w, xin, xout, r));
  if (d) PetscCall(PointwiseMult(n, d, r, z));
  else PetscCall(Copy(n, r, z));
  PetscCall(DotNorm2Dev(n, r, z, d2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const Backend backend = {"host (reference)", SpMV, SpMVAdd, Dot, MDot, DotNorm2, Norm2Sq, AXPY, AYPX, WAXPY, AXPBYPCZ, MAXPY, Scale, Copy, Set, PointwiseMult, Gather, DotDev, DotNorm2Dev, CGStep, Fetch, MDotDev, MAXPYNegDev, Norm2SqDev, SpMVDotDev, DIAFill, AYPXDev, CGStepDev, SpMVDotAYPXDev, FetchBegin, FetchEnd, AYPXIdxDev, SpMVAddDotDev, CGStepPointwiseDev, FetchArm, ScaleInvSqrtDev, InvDiag};
} // namespace reference
} // namespace resident
} // namespace kernels
} // namespace pgx
