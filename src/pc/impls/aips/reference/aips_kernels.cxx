/* Reference (host) kernels of PCAIPS */
#include "../aips_kernels.h"

namespace pgx
{
namespace kernels
{
namespace aips
{
namespace reference
{
PetscInt extract_tridiagonal(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscScalar *val, PetscScalar *dl, PetscScalar *d, PetscScalar *du)
{
  PetscInt missing = 0;
  for (PetscInt i = 0; i < n; i++) {
    bool hasdiag = false;
    dl[i] = d[i] = du[i] = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt j = col[k];
      if (j == i - 1) dl[i] += val[k];
      else if (j == i) {
        d[i] += val[k];
        hasdiag = true;
      } else if (j == i + 1 && j < n) du[i] += val[k];
    }
    if (!hasdiag) missing++;
  }
  return missing;
}

PetscInt block_offsets(PetscInt n, const PetscScalar *dl, const PetscScalar *du, PetscInt *offsets)
{
  PetscInt nb = 0;
  offsets[0]  = 0;
  for (PetscInt i = 0; i < n; i++)
    if (i == n - 1 || (du[i] == 0.0 && dl[i + 1] == 0.0)) offsets[++nb] = i + 1;
  return nb;
}

void sub_tridiagonal_product(PetscInt n, const PetscScalar *dl, const PetscScalar *d, const PetscScalar *du, PetscBool trans, const PetscScalar *y, PetscScalar *t)
{
  if (!trans) {
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar v = d[i] * y[i];
      if (i) v += dl[i] * y[i - 1];
      if (i < n - 1) v += du[i] * y[i + 1];
      t[i] -= v;
    }
  } else { /* (P^T)_{i,i-1} = P_{i-1,i} = du[i-1], (P^T)_{i,i+1} = P_{i+1,i} = dl[i+1] */
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar v = d[i] * y[i];
      if (i) v += du[i - 1] * y[i - 1];
      if (i < n - 1) v += dl[i + 1] * y[i + 1];
      t[i] -= v;
    }
  }
}

void split_remainder(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscScalar *val, PetscInt *rrowptr, PetscInt *rcol, PetscScalar *rval)
{
  PetscInt nz = 0;
  rrowptr[0]  = 0;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt j = col[k];
      if (j >= i - 1 && j <= i + 1 && j < n) continue;
      if (rcol) {
        rcol[nz] = j;
        rval[nz] = val[k];
      }
      nz++;
    }
    rrowptr[i + 1] = nz;
  }
}
PetscBool value_maps(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt *tripos, PetscInt *rrowptr, PetscInt *rcol, PetscInt *rpos)
{
  PetscInt nz = 0;
  rrowptr[0]  = 0;
  if (tripos)
    for (PetscInt i = 0; i < 3 * n; i++) tripos[i] = -1;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt j = col[k];
      if (tripos && j >= i - 1 && j <= i + 1 && j < n) {
        PetscInt *slot = &tripos[(j - i + 1) * n + i];
        if (*slot >= 0) return PETSC_FALSE;
        *slot = k;
      }
      if (j >= i - 1 && j <= i + 1 && j < n) continue;
      if (rpos) {
        rcol[nz] = j;
        rpos[nz] = k;
      }
      nz++;
    }
    rrowptr[i + 1] = nz;
  }
  return PETSC_TRUE;
}
} // namespace reference
} // namespace aips
} // namespace kernels
} // namespace pgx
