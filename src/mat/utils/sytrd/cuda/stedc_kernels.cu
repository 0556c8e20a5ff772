/* CUDA kernels of the divide and conquer tridiagonal eigensolver (stedc_kernels.h), real double precision (also in
   complex builds: T is real), all on PGX's stream: column gathers and rotation chains (one small kernel each), cuBLAS
   dgemm, 2D copies. */
#include <pgx/private/pgxcuda.h>
#include "../stedc_kernels.h"
#include "../stedc_secular.h"

namespace pgx
{
namespace kernels
{
namespace stedc
{
namespace cuda
{
#if defined(PETSC_USE_REAL_DOUBLE) /* real or complex builds: T and its eigenvectors are real */
struct Scratch {
  PetscInt  n   = 0;
  PetscInt *idx = nullptr; /* n indices */
  Rotation *rot = nullptr; /* n rotations */
  /* the secular equations (n each, used at an offset): poles, z, row order, roots (origin, offset), z-hat, lambda */
  double   *d = nullptr, *z = nullptr, *tau = nullptr, *zh = nullptr, *lam = nullptr;
  PetscInt *cidx = nullptr, *org = nullptr;
};

constexpr int BLOCK = 256;

PetscErrorCode create(PetscInt n, Scratch **s)
{
  PetscFunctionBegin;
  *s      = new Scratch;
  (*s)->n = n;
  if (n > 0) {
    PetscErrorCode ierr = PGXDeviceMallocArray(n, &(*s)->idx);
    if (!ierr) ierr = PGXDeviceMallocArray(n, &(*s)->rot);
    if (!ierr) ierr = PGXDeviceMallocArray(n, &(*s)->d);
    if (!ierr) ierr = PGXDeviceMallocArray(n, &(*s)->z);
    if (!ierr) ierr = PGXDeviceMallocArray(n, &(*s)->tau);
    if (!ierr) ierr = PGXDeviceMallocArray(n, &(*s)->zh);
    if (!ierr) ierr = PGXDeviceMallocArray(n, &(*s)->lam);
    if (!ierr) ierr = PGXDeviceMallocArray(n, &(*s)->cidx);
    if (!ierr) ierr = PGXDeviceMallocArray(n, &(*s)->org);
    if (ierr) PetscCall(destroy(s));
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode destroy(Scratch **s)
{
  PetscFunctionBegin;
  if (!*s) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXDeviceFree(&(*s)->idx));
  PetscCall(PGXDeviceFree(&(*s)->rot));
  PetscCall(PGXDeviceFree(&(*s)->d));
  PetscCall(PGXDeviceFree(&(*s)->z));
  PetscCall(PGXDeviceFree(&(*s)->tau));
  PetscCall(PGXDeviceFree(&(*s)->zh));
  PetscCall(PGXDeviceFree(&(*s)->lam));
  PetscCall(PGXDeviceFree(&(*s)->cidx));
  PetscCall(PGXDeviceFree(&(*s)->org));
  delete *s;
  *s = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst(r, p) = src(r, idx[p]): x over rows, y (grid-stride) over columns */
__global__ void k_gather(PetscInt m, PetscInt ncol, const PetscInt *idx, const double *src, PetscInt lds, double *dst, PetscInt ldd)
{
  PetscInt r = (PetscInt)blockIdx.x * BLOCK + threadIdx.x;
  if (r >= m) return;
  for (PetscInt p = blockIdx.y; p < ncol; p += gridDim.y) dst[r + (size_t)p * ldd] = src[r + (size_t)idx[p] * lds];
}

/* one thread per row applies the whole chain of rotations in order */
__global__ void k_rotate(PetscInt m, PetscInt nrot, const Rotation *rot, double *Q, PetscInt ldq)
{
  PetscInt r = (PetscInt)blockIdx.x * BLOCK + threadIdx.x;
  if (r >= m) return;
  for (PetscInt t = 0; t < nrot; t++) {
    const Rotation g = rot[t];
    double        *x = Q + r + (size_t)g.i * ldq, *y = Q + r + (size_t)g.j * ldq;
    double         a = *x, b = *y;
    *x               = g.c * a + g.s * b;
    *y               = g.c * b - g.s * a;
  }
}

namespace sec = pgx::kernels::stedc::secular;
constexpr int WARPS = 4; /* warps per block of the secular kernels */

/* the butterfly of the reference's SecularSums (every lane gets the same sums) */
__device__ __forceinline__ sec::Sums WarpCombine(sec::Sums s)
{
  for (int off = sec::LANES / 2; off > 0; off /= 2) {
    sec::Sums o;
    o.neg = __shfl_xor_sync(0xffffffffu, s.neg, off);
    o.pos = __shfl_xor_sync(0xffffffffu, s.pos, off);
    o.dr  = __shfl_xor_sync(0xffffffffu, s.dr, off);
    o.err = __shfl_xor_sync(0xffffffffu, s.err, off);
    s      = sec::Combine(s, o);
  }
  return s;
}

/* one warp per root j: the lanes form the sums, every lane runs the same (uniform) iteration */
__global__ void __launch_bounds__(WARPS * 32) k_secular_roots(PetscInt k, const double *d, const double *z, double rho, double zz, double *lam, PetscInt *org, double *tau)
{
  const PetscInt j    = (PetscInt)blockIdx.x * WARPS + threadIdx.x / 32;
  const int      lane = threadIdx.x % 32;
  if (j >= k) return; /* whole warps */
  sec::Root r;
  sec::Start(r, j, k, d, rho, zz);
  for (;;) {
    sec::Sums s;
    for (PetscInt i = lane; i < k; i += sec::LANES) sec::Accumulate(s, d, z, i, r);
    if (sec::Step(r, WarpCombine(s), k, d, z, rho)) break;
  }
  if (lane == 0) {
    lam[j] = d[r.o] + r.tau;
    org[j] = r.o;
    tau[j] = r.tau;
  }
}

/* z-hat: one thread per row i, the product over the roots in the reference's order */
__global__ void k_secular_zhat(PetscInt k, const double *d, const double *z, const PetscInt *org, const double *tau, double *zh)
{
  const PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x;
  if (i >= k) return;
  const double di = d[i];
  double       w  = -((di - d[org[i]]) - tau[i]);
  for (PetscInt j = 0; j < k; j++)
    if (j != i) w *= ((di - d[org[j]]) - tau[j]) / (di - d[j]);
  zh[i] = copysign(sqrt(fabs(w)), z[i]);
}

/* one warp per column j of S: the norm (lanes strided over the rows, the reference's butterfly), then the column */
__global__ void __launch_bounds__(WARPS * 32) k_secular_vectors(PetscInt k, const double *d, const double *zh, const PetscInt *org, const double *tau, const PetscInt *cidx, double *S, PetscInt lds)
{
  const PetscInt j    = (PetscInt)blockIdx.x * WARPS + threadIdx.x / 32;
  const int      lane = threadIdx.x % 32;
  if (j >= k) return;
  const double dj = d[org[j]], tj = tau[j];
  double       s  = 0;
  for (PetscInt r = lane; r < k; r += sec::LANES) {
    const PetscInt i = cidx ? cidx[r] : r;
    const double   v = zh[i] / ((d[i] - dj) - tj);
    s                = s + sec::Mul(v, v);
  }
  for (int off = sec::LANES / 2; off > 0; off /= 2) s = s + __shfl_xor_sync(0xffffffffu, s, off);
  const double sc = 1 / sqrt(s);
  double      *c  = S + (size_t)j * lds;
  for (PetscInt r = lane; r < k; r += sec::LANES) {
    const PetscInt i = cidx ? cidx[r] : r;
    c[r]             = __dmul_rn(zh[i] / ((d[i] - dj) - tj), sc);
  }
}

PetscErrorCode secular_roots(Scratch *s, PetscInt off, PetscInt k, const PetscReal *d, const PetscReal *z, PetscReal rho, PetscReal *lam)
{
  cudaStream_t st;
  double       zz = 0;

  PetscFunctionBegin;
  if (k <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(off >= 0 && off + k <= s->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "secular equation of order %" PetscInt_FMT " at %" PetscInt_FMT " exceeds the scratch of %" PetscInt_FMT, k, off, s->n);
  for (PetscInt i = 0; i < k; i++) zz += z[i] * z[i]; /* as the reference */
  PetscCall(PGXCUDAGetStream(&st));
  PGXCallCUDA(cudaMemcpyAsync(s->d + off, d, (size_t)k * sizeof(double), cudaMemcpyHostToDevice, st));
  PGXCallCUDA(cudaMemcpyAsync(s->z + off, z, (size_t)k * sizeof(double), cudaMemcpyHostToDevice, st));
  k_secular_roots<<<PGXCUDAGridSize(k, WARPS), WARPS * 32, 0, st>>>(k, s->d + off, s->z + off, rho, zz, s->lam + off, s->org + off, s->tau + off);
  PGXCheckLaunch("k_secular_roots");
  PGXCallCUDA(cudaMemcpyAsync(lam, s->lam + off, (size_t)k * sizeof(double), cudaMemcpyDeviceToHost, st));
  PGXCallCUDA(cudaStreamSynchronize(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode secular_vectors(Scratch *s, PetscInt off, PetscInt k, const PetscInt *cidx, PetscReal *S, PetscInt lds)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (k <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(off >= 0 && off + k <= s->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "secular equation of order %" PetscInt_FMT " at %" PetscInt_FMT " exceeds the scratch of %" PetscInt_FMT, k, off, s->n);
  PetscCall(PGXCUDAGetStream(&st));
  if (cidx) PGXCallCUDA(cudaMemcpyAsync(s->cidx + off, cidx, (size_t)k * sizeof(PetscInt), cudaMemcpyHostToDevice, st));
  k_secular_zhat<<<PGXCUDAGridSize(k, BLOCK), BLOCK, 0, st>>>(k, s->d + off, s->z + off, s->org + off, s->tau + off, s->zh + off);
  PGXCheckLaunch("k_secular_zhat");
  k_secular_vectors<<<PGXCUDAGridSize(k, WARPS), WARPS * 32, 0, st>>>(k, s->d + off, s->zh + off, s->org + off, s->tau + off, cidx ? s->cidx + off : nullptr, S, lds);
  PGXCheckLaunch("k_secular_vectors");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode secular_download_roots(Scratch *s, PetscInt off, PetscInt k, PetscInt *org, PetscReal *tau)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (k <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(off >= 0 && off + k <= s->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "roots %" PetscInt_FMT " at %" PetscInt_FMT " exceed the scratch of %" PetscInt_FMT, k, off, s->n);
  PetscCall(PGXCUDAGetStream(&st));
  PGXCallCUDA(cudaMemcpyAsync(org, s->org + off, (size_t)k * sizeof(PetscInt), cudaMemcpyDeviceToHost, st));
  PGXCallCUDA(cudaMemcpyAsync(tau, s->tau + off, (size_t)k * sizeof(double), cudaMemcpyDeviceToHost, st));
  PGXCallCUDA(cudaStreamSynchronize(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode gather_columns(Scratch *s, PetscInt m, PetscInt ncol, const PetscInt *idx, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (m <= 0 || ncol <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(ncol <= s->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gather of %" PetscInt_FMT " columns exceeds the scratch of %" PetscInt_FMT, ncol, s->n);
  PetscCall(PGXCUDAGetStream(&st));
  /* pageable host memory: the call returns once idx is staged, so the host may reuse it */
  PGXCallCUDA(cudaMemcpyAsync(s->idx, idx, (size_t)ncol * sizeof(PetscInt), cudaMemcpyHostToDevice, st));
  dim3 grid(PGXCUDAGridSize(m, BLOCK), (unsigned int)PetscMin(ncol, (PetscInt)65535));
  k_gather<<<grid, BLOCK, 0, st>>>(m, ncol, s->idx, src, lds, dst, ldd);
  PGXCheckLaunch("k_gather");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode rotate_columns(Scratch *s, PetscInt m, PetscInt nrot, const Rotation *rot, PetscReal *Q, PetscInt ldq)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (m <= 0 || nrot <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(nrot <= s->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " rotations exceed the scratch of %" PetscInt_FMT, nrot, s->n);
  PetscCall(PGXCUDAGetStream(&st));
  PGXCallCUDA(cudaMemcpyAsync(s->rot, rot, (size_t)nrot * sizeof(Rotation), cudaMemcpyHostToDevice, st));
  k_rotate<<<PGXCUDAGridSize(m, BLOCK), BLOCK, 0, st>>>(m, nrot, s->rot, Q, ldq);
  PGXCheckLaunch("k_rotate");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode gemm(PetscInt m, PetscInt n, PetscInt k, const PetscReal *A, PetscInt lda, const PetscReal *B, PetscInt ldb, PetscReal *C, PetscInt ldc)
{
  cublasHandle_t h;
  const double   one = 1.0, zz = 0.0;

  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (k <= 0) {
    PetscCall(zero(m, n, C, ldc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &one, A, (int)lda, B, (int)ldb, &zz, C, (int)ldc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode upload(PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&st));
  PGXCallCUDA(cudaMemcpy2DAsync(dst, (size_t)ldd * sizeof(double), src, (size_t)lds * sizeof(double), (size_t)m * sizeof(double), (size_t)n, cudaMemcpyHostToDevice, st));
  /* the driver rewrites src right after: wait for the copy */
  PGXCallCUDA(cudaStreamSynchronize(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode download(PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&st));
  PGXCallCUDA(cudaMemcpy2DAsync(dst, (size_t)ldd * sizeof(double), src, (size_t)lds * sizeof(double), (size_t)m * sizeof(double), (size_t)n, cudaMemcpyDeviceToHost, st));
  PGXCallCUDA(cudaStreamSynchronize(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode zero(PetscInt m, PetscInt n, PetscReal *A, PetscInt lda)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&st));
  PGXCallCUDA(cudaMemset2DAsync(A, (size_t)lda * sizeof(double), 0, (size_t)m * sizeof(double), (size_t)n, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
struct Scratch {
  int unused;
};
PetscErrorCode create(PetscInt, Scratch **)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of the divide and conquer eigensolver supports double precision only; use -pgx_device host");
}
PetscErrorCode destroy(Scratch **s)
{
  *s = nullptr;
  return PETSC_SUCCESS;
}
PetscErrorCode gather_columns(Scratch *, PetscInt, PetscInt, const PetscInt *, const PetscReal *, PetscInt, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "double precision only");
}
PetscErrorCode rotate_columns(Scratch *, PetscInt, PetscInt, const Rotation *, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "double precision only");
}
PetscErrorCode gemm(PetscInt, PetscInt, PetscInt, const PetscReal *, PetscInt, const PetscReal *, PetscInt, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "double precision only");
}
PetscErrorCode upload(PetscInt, PetscInt, const PetscReal *, PetscInt, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "double precision only");
}
PetscErrorCode download(PetscInt, PetscInt, const PetscReal *, PetscInt, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "double precision only");
}
PetscErrorCode zero(PetscInt, PetscInt, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "double precision only");
}
PetscErrorCode secular_roots(Scratch *, PetscInt, PetscInt, const PetscReal *, const PetscReal *, PetscReal, PetscReal *)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "double precision only");
}
PetscErrorCode secular_vectors(Scratch *, PetscInt, PetscInt, const PetscInt *, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "double precision only");
}
PetscErrorCode secular_download_roots(Scratch *, PetscInt, PetscInt, PetscInt *, PetscReal *)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "double precision only");
}
#endif
} // namespace cuda
} // namespace stedc
} // namespace kernels
} // namespace pgx
