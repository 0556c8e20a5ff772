/* Reference (host) kernels of the divide and conquer tridiagonal eigensolver (stedc_kernels.h): loops and the
   host BLAS dgemm. */
#include "../stedc_kernels.h"
#include <petscblaslapack.h>
#include <cstring>

#define PGXBLASrealgemm_ PETSCBLASREAL(gemm, GEMM)
BLAS_EXTERN void PGXBLASrealgemm_(const char *, const char *, const PetscBLASInt *, const PetscBLASInt *, const PetscBLASInt *, const PetscReal *, const PetscReal *, const PetscBLASInt *, const PetscReal *, const PetscBLASInt *, const PetscReal *, PetscReal *, const PetscBLASInt *);

namespace pgx
{
namespace kernels
{
namespace stedc
{
namespace reference
{
void gather_columns(PetscInt m, PetscInt ncol, const PetscInt *idx, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  for (PetscInt p = 0; p < ncol; p++) std::memcpy(dst + (size_t)p * ldd, src + (size_t)idx[p] * lds, (size_t)m * sizeof(PetscReal));
}

void rotate_columns(PetscInt m, PetscInt nrot, const Rotation *rot, PetscReal *Q, PetscInt ldq)
{
  for (PetscInt t = 0; t < nrot; t++) {
    PetscReal *x = Q + (size_t)rot[t].i * ldq, *y = Q + (size_t)rot[t].j * ldq, c = rot[t].c, s = rot[t].s;
    for (PetscInt r = 0; r < m; r++) {
      PetscReal a = x[r], b = y[r];
      x[r]        = c * a + s * b;
      y[r]        = c * b - s * a;
    }
  }
}

void gemm(PetscInt m, PetscInt n, PetscInt k, const PetscReal *A, PetscInt lda, const PetscReal *B, PetscInt ldb, PetscReal *C, PetscInt ldc)
{
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    zero(m, n, C, ldc);
    return;
  }
  /* the sizes fit a PetscBLASInt: the driver checked n */
  PetscBLASInt bm = (PetscBLASInt)m, bn = (PetscBLASInt)n, bk = (PetscBLASInt)k, blda = (PetscBLASInt)lda, bldb = (PetscBLASInt)ldb, bldc = (PetscBLASInt)ldc;
  PetscReal    one = 1, zz = 0;
  PGXBLASrealgemm_("N", "N", &bm, &bn, &bk, &one, A, &blda, B, &bldb, &zz, C, &bldc);
}

void copy(PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  for (PetscInt j = 0; j < n; j++) std::memcpy(dst + (size_t)j * ldd, src + (size_t)j * lds, (size_t)m * sizeof(PetscReal));
}

void zero(PetscInt m, PetscInt n, PetscReal *A, PetscInt lda)
{
  for (PetscInt j = 0; j < n; j++) std::memset(A + (size_t)j * lda, 0, (size_t)m * sizeof(PetscReal));
}
} // namespace reference
} // namespace stedc
} // namespace kernels
} // namespace pgx
