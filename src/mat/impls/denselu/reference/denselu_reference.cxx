/* Reference backend of the dense LU (the specification; see denselu_kernels.h). Plain sequential C++. */
#include "../denselu_kernels.h"
#include <cmath>

namespace pgx
{
namespace kernels
{
namespace denselu
{
namespace reference
{
PetscErrorCode FactorPanel(PetscInt m, PetscInt kb, PetscScalar *p, PetscInt lda, PetscInt *ipiv, PetscInt *zerocol)
{
  PetscFunctionBegin;
  *zerocol = -1;
  for (PetscInt j = 0; j < kb && j < m; j++) {
    PetscScalar *cj = p + j * lda;
    /* pivot search: the first row with the largest magnitude (LAPACK's idamax) */
    PetscInt  piv  = j;
    PetscReal vmax = std::fabs(cj[j]);
    for (PetscInt i = j + 1; i < m; i++) {
      const PetscReal v = std::fabs(cj[i]);
      if (v > vmax) vmax = v, piv = i;
    }
    ipiv[j] = piv;
    if (piv != j)
      for (PetscInt c = 0; c < kb; c++) {
        PetscScalar t      = p[j + c * lda];
        p[j + c * lda]     = p[piv + c * lda];
        p[piv + c * lda]   = t;
      }
    const PetscScalar d = cj[j];
    if (d == 0.0) {
      if (*zerocol < 0) *zerocol = j;
      continue; /* nothing to eliminate in this column */
    }
    for (PetscInt i = j + 1; i < m; i++) cj[i] /= d;
    /* rank-1 update of the panel's remaining columns */
    for (PetscInt c = j + 1; c < kb; c++) {
      PetscScalar      *cc = p + c * lda;
      const PetscScalar u  = cc[j];
      if (u != 0.0)
        for (PetscInt i = j + 1; i < m; i++) cc[i] -= cj[i] * u;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ApplyPivots(PetscInt ncol, PetscScalar *b, PetscInt ldb, PetscInt k1, PetscInt k2, const PetscInt *ipiv, PetscBool backward)
{
  PetscFunctionBegin;
  for (PetscInt c = 0; c < ncol; c++) {
    PetscScalar *bc = b + c * ldb;
    if (!backward) {
      for (PetscInt k = k1; k < k2; k++)
        if (ipiv[k] != k) {
          const PetscScalar t = bc[k];
          bc[k]               = bc[ipiv[k]];
          bc[ipiv[k]]         = t;
        }
    } else {
      for (PetscInt k = k2 - 1; k >= k1; k--)
        if (ipiv[k] != k) {
          const PetscScalar t = bc[k];
          bc[k]               = bc[ipiv[k]];
          bc[ipiv[k]]         = t;
        }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Factor(PetscInt n, PetscScalar *a, PetscInt lda, PetscInt nb, PetscInt *ipiv, PetscInt *zerocol)
{
  PetscFunctionBegin;
  PetscCheck(n >= 0 && lda >= (n > 1 ? n : 1) && nb >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu reference Factor: n %" PetscInt_FMT ", lda %" PetscInt_FMT ", block %" PetscInt_FMT, n, lda, nb);
  *zerocol = -1;
  for (PetscInt k = 0; k < n; k += nb) {
    const PetscInt kb = PetscMin(nb, n - k), k2 = k + kb;
    PetscInt       zc;
    /* 1. panel */
    PetscCall(FactorPanel(n - k, kb, a + k + k * lda, lda, ipiv + k, &zc));
    if (zc >= 0 && *zerocol < 0) *zerocol = k + zc;
    for (PetscInt j = k; j < k2; j++) ipiv[j] += k;
    /* 2. interchanges left and right of the panel */
    PetscCall(ApplyPivots(k, a, lda, k, k2, ipiv, PETSC_FALSE));
    PetscCall(ApplyPivots(n - k2, a + k2 * lda, lda, k, k2, ipiv, PETSC_FALSE));
    /* 3. U block row: L(K,K)^-1 A(K, k2:n), unit lower, column by column */
    for (PetscInt c = k2; c < n; c++) {
      PetscScalar *ac = a + c * lda;
      for (PetscInt j = k; j < k2; j++) {
        const PetscScalar u = ac[j];
        if (u != 0.0)
          for (PetscInt i = j + 1; i < k2; i++) ac[i] -= a[i + j * lda] * u;
      }
    }
    /* 4. trailing update A22 -= L21 U12 */
    for (PetscInt c = k2; c < n; c++) {
      PetscScalar *ac = a + c * lda;
      for (PetscInt j = k; j < k2; j++) {
        const PetscScalar  u  = ac[j];
        const PetscScalar *lj = a + j * lda;
        if (u != 0.0)
          for (PetscInt i = k2; i < n; i++) ac[i] -= lj[i] * u;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Solve(PetscInt n, const PetscScalar *lu, PetscInt lda, const PetscInt *ipiv, PetscBool transpose, PetscInt nrhs, PetscScalar *b, PetscInt ldb)
{
  PetscFunctionBegin;
  if (!transpose) {
    PetscCall(ApplyPivots(nrhs, b, ldb, 0, n, ipiv, PETSC_FALSE));
    for (PetscInt r = 0; r < nrhs; r++) {
      PetscScalar *x = b + r * ldb;
      for (PetscInt j = 0; j < n; j++) { /* L y = b, column oriented */
        const PetscScalar  xj = x[j];
        const PetscScalar *lj = lu + j * lda;
        if (xj != 0.0)
          for (PetscInt i = j + 1; i < n; i++) x[i] -= lj[i] * xj;
      }
      for (PetscInt j = n - 1; j >= 0; j--) { /* U x = y */
        const PetscScalar *uj = lu + j * lda;
        x[j] /= uj[j];
        const PetscScalar xj = x[j];
        if (xj != 0.0)
          for (PetscInt i = 0; i < j; i++) x[i] -= uj[i] * xj;
      }
    }
  } else {
    for (PetscInt r = 0; r < nrhs; r++) {
      PetscScalar *x = b + r * ldb;
      for (PetscInt j = 0; j < n; j++) { /* U^T y = b: row j of U^T is column j of U */
        const PetscScalar *uj = lu + j * lda;
        PetscScalar        s  = x[j];
        for (PetscInt i = 0; i < j; i++) s -= uj[i] * x[i];
        x[j] = s / uj[j];
      }
      for (PetscInt j = n - 1; j >= 0; j--) { /* L^T z = y */
        const PetscScalar *lj = lu + j * lda;
        PetscScalar        s  = x[j];
        for (PetscInt i = j + 1; i < n; i++) s -= lj[i] * x[i];
        x[j] = s;
      }
    }
    PetscCall(ApplyPivots(nrhs, b, ldb, 0, n, ipiv, PETSC_TRUE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckFinite(PetscInt n, const PetscScalar *a, PetscInt lda, PetscBool *finite, PetscInt *row, PetscInt *col)
{
  PetscFunctionBegin;
  *finite = PETSC_TRUE;
  *row = *col = -1;
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++)
      if (PetscIsInfOrNanScalar(a[i + j * lda])) {
        *finite = PETSC_FALSE;
        *row    = i;
        *col    = j;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace reference
} // namespace denselu
} // namespace kernels
} // namespace pgx
