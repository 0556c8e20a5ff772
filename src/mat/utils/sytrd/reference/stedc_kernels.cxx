/* Reference (host) kernels of the divide and conquer tridiagonal eigensolver (stedc_kernels.h): loops and the
   host BLAS dgemm. */
#include "../stedc_kernels.h"
#include "../stedc_secular.h"
#include <petscblaslapack.h>
#include <cmath>
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

/* the LANES partial sums of the cuda warp (lane l: i = l, l + LANES, ...), combined by the same butterfly */
static secular::Sums SecularSums(PetscInt k, const PetscReal *d, const PetscReal *z, const secular::Root &r)
{
  secular::Sums s[secular::LANES], t[secular::LANES];
  for (PetscInt i = 0; i < k; i++) secular::Accumulate(s[i % secular::LANES], d, z, i, r);
  for (int off = secular::LANES / 2; off > 0; off /= 2) {
    for (int l = 0; l < secular::LANES; l++) t[l] = secular::Combine(s[l], s[l ^ off]);
    for (int l = 0; l < secular::LANES; l++) s[l] = t[l];
  }
  return s[0];
}

void secular_roots(PetscInt k, const PetscReal *d, const PetscReal *z, PetscReal rho, PetscInt j0, PetscInt j1, PetscReal *lam, PetscInt *org, PetscReal *tau, PetscInt *iters)
{
  PetscReal zz = 0;
  for (PetscInt i = 0; i < k; i++) zz += z[i] * z[i];
  for (PetscInt j = j0; j < j1; j++) {
    secular::Root r;
    secular::Start(r, j, k, d, rho, zz);
    while (!secular::Step(r, SecularSums(k, d, z, r), k, d, z, rho)) { }
    lam[j] = d[r.o] + r.tau;
    org[j] = r.o;
    tau[j] = r.tau;
    if (iters) iters[j] = r.it;
  }
}

void secular_zhat(PetscInt k, const PetscReal *d, const PetscReal *z, const PetscInt *org, const PetscReal *tau, PetscInt i0, PetscInt i1, PetscReal *zh)
{
  for (PetscInt i = i0; i < i1; i++) {
    const PetscReal di = d[i];
    PetscReal       w  = -((di - d[org[i]]) - tau[i]);
    for (PetscInt j = 0; j < k; j++)
      if (j != i) w *= ((di - d[org[j]]) - tau[j]) / (di - d[j]);
    zh[i] = std::copysign(std::sqrt(std::fabs(w)), z[i]);
  }
}

void secular_vectors(PetscInt k, const PetscReal *d, const PetscReal *zh, const PetscInt *org, const PetscReal *tau, const PetscInt *cidx, PetscInt j0, PetscInt j1, PetscReal *S, PetscInt lds)
{
  for (PetscInt j = j0; j < j1; j++) {
    const PetscReal dj = d[org[j]], tj = tau[j];
    PetscReal       s[secular::LANES] = {0}, t[secular::LANES], *c = S + (size_t)j * lds;
    for (PetscInt r = 0; r < k; r++) {
      PetscInt  i = cidx ? cidx[r] : r;
      PetscReal v = zh[i] / ((d[i] - dj) - tj);
      s[r % secular::LANES] += secular::Mul(v, v);
      c[r] = v;
    }
    for (int off = secular::LANES / 2; off > 0; off /= 2) {
      for (int l = 0; l < secular::LANES; l++) t[l] = s[l] + s[l ^ off];
      for (int l = 0; l < secular::LANES; l++) s[l] = t[l];
    }
    const PetscReal sc = 1 / std::sqrt(s[0]);
    for (PetscInt r = 0; r < k; r++) c[r] *= sc;
  }
}
} // namespace reference
} // namespace stedc
} // namespace kernels
} // namespace pgx
