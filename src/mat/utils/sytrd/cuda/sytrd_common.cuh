/* What the real (sytrd_kernels.cu) and the complex (hetrd_kernels.cu) cuda backends of the Hermitian tridiagonal
   reduction share, templated on the device scalar T (double, or thrust::complex<double>, PETSc's PetscScalar under
   nvcc): the upload of the operator as a full square (dense or CSR lower triangle, mirrored to the strict upper
   triangle with conjugation), and the compact WY back-transformation: blocks of b reflectors as I - V Tb V^H, Tb from
   the Gram matrix V^H V (LAPACK xlarft), Z <- Q Z (or Q^H Z) with Y = V^H Z, Y = Tb Y (Tb^H Y), Z -= V Y, optionally by
   column chunks of Z, each downloaded on a second stream while the next one is computed.

   Also the device state of a reduction (WorkOf<T>, each backend's Work), its creation and destruction. Included by
   those two files only (at file scope). */
#pragma once
#include <pgx/private/pgxcuda.h>
#include "../sytrd_kernels.h"
#include <pgx/private/pgxcudascalar.h>
#include <type_traits>

namespace pgx
{
namespace kernels
{
namespace sytrd
{
namespace cuda
{
namespace common
{
/* the scalar's small operations (Re, Im, Conj, Norm, LdCg, WarpSum, AtomicAdd, Shared<T>, As<T>): pgxcudascalar.h */
using namespace pgx::dev;

template <typename T>
struct Traits;
template <>
struct Traits<double> {
  static constexpr cublasOperation_t OpH = CUBLAS_OP_T;
};
template <>
struct Traits<Cx> {
  static constexpr cublasOperation_t OpH = CUBLAS_OP_C;
};

/* cuBLAS's gemm and trmm for either scalar (named as cuBLAS's "X" routines, so that a failure's message says which) */
inline cublasStatus_t cublasXgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, double alpha, const double *A, int lda, const double *B, int ldb, double beta, double *C, int ldc)
{
  return cublasDgemm(h, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
inline cublasStatus_t cublasXgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, double alpha, const Cx *A, int lda, const Cx *B, int ldb, double beta, Cx *C, int ldc)
{
  const cuDoubleComplex a = {alpha, 0.0}, c = {beta, 0.0};
  return cublasZgemm(h, ta, tb, m, n, k, &a, reinterpret_cast<const cuDoubleComplex *>(A), lda, reinterpret_cast<const cuDoubleComplex *>(B), ldb, &c, reinterpret_cast<cuDoubleComplex *>(C), ldc);
}
inline cublasStatus_t cublasXtrmm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t t, cublasDiagType_t diag, int m, int n, const double *A, int lda, double *B, int ldb)
{
  const double one = 1.0;
  return cublasDtrmm(h, side, uplo, t, diag, m, n, &one, A, lda, B, ldb, B, ldb);
}
inline cublasStatus_t cublasXtrmm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t t, cublasDiagType_t diag, int m, int n, const Cx *A, int lda, Cx *B, int ldb)
{
  const cuDoubleComplex one = {1.0, 0.0};
  return cublasZtrmm(h, side, uplo, t, diag, m, n, &one, reinterpret_cast<const cuDoubleComplex *>(A), lda, reinterpret_cast<cuDoubleComplex *>(B), ldb, reinterpret_cast<cuDoubleComplex *>(B), ldb);
}

inline cublasStatus_t cublasXtrsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t t, cublasDiagType_t diag, int m, int n, const double *A, int lda, double *B, int ldb)
{
  const double one = 1.0;
  return cublasDtrsm(h, side, uplo, t, diag, m, n, &one, A, lda, B, ldb);
}
inline cublasStatus_t cublasXtrsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t t, cublasDiagType_t diag, int m, int n, const Cx *A, int lda, Cx *B, int ldb)
{
  const cuDoubleComplex one = {1.0, 0.0};
  return cublasZtrsm(h, side, uplo, t, diag, m, n, &one, reinterpret_cast<const cuDoubleComplex *>(A), lda, reinterpret_cast<cuDoubleComplex *>(B), ldb);
}
/* B22 -= B21 B21^H on the lower triangle (cuBLAS's syrkx / herkx with both factors B21) */
inline cublasStatus_t cublasXherkxMinus(cublasHandle_t h, int m, int k, const double *B21, int ld, double *B22)
{
  const double mone = -1.0, one = 1.0;
  return cublasDsyrkx(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, m, k, &mone, B21, ld, B21, ld, &one, B22, ld);
}
inline cublasStatus_t cublasXherkxMinus(cublasHandle_t h, int m, int k, const Cx *B21, int ld, Cx *B22)
{
  const cuDoubleComplex mone = {-1.0, 0.0};
  const double          one  = 1.0;
  return cublasZherkx(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, m, k, &mone, reinterpret_cast<const cuDoubleComplex *>(B21), ld, reinterpret_cast<const cuDoubleComplex *>(B21), ld, &one, reinterpret_cast<cuDoubleComplex *>(B22), ld);
}

/* The device state of one reduction: each backend's Work (sytrd_kernels.h) is this for its scalar */
template <typename T>
struct WorkOf {
  PetscInt     n = 0;
  Options      o;
  T           *M = nullptr, *N = nullptr, *y = nullptr, *t = nullptr, *tau = nullptr;
  double      *e = nullptr, *d = nullptr;
  T           *acc   = nullptr; /* fused panel: sums of squares, dot products and M^H x, by column parity */
  int          fgrid = 0;       /* fused panel: blocks of the cooperative launch (0: the launch sequence runs) */
  cudaStream_t s0 = nullptr, s1 = nullptr; /* s0: PGX's stream; s1: the symmetric product of the launches */
  cudaEvent_t  ev0 = nullptr, ev1 = nullptr;
};

/* create(): W's streams, events and arrays (the fused panel's are fused::SetUp()'s) */
template <typename T, typename WorkT>
PetscErrorCode CreateWork(PetscInt n, const Options &o, WorkT **w)
{
  PetscFunctionBegin;
  PetscCheck(o.b >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Panel width %d", o.b);
  *w        = new WorkT;
  WorkT *W  = *w;
  W->n      = n;
  W->o      = o;
  size_t nn = (size_t)PetscMax(n, 1);
  PetscCall(PGXCUDAGetStream(&W->s0));
  PGXCallCUDA(cudaStreamCreateWithFlags(&W->s1, cudaStreamNonBlocking));
  PGXCallCUDA(cudaEventCreateWithFlags(&W->ev0, cudaEventDisableTiming));
  PGXCallCUDA(cudaEventCreateWithFlags(&W->ev1, cudaEventDisableTiming));
  PGXCallCUDA(cudaMalloc((void **)&W->M, nn * 2 * (o.b + 1) * sizeof(T))); /* the last panel may have b + 1 columns */
  PGXCallCUDA(cudaMalloc((void **)&W->N, nn * 2 * (o.b + 1) * sizeof(T)));
  PGXCallCUDA(cudaMalloc((void **)&W->y, nn * sizeof(T)));
  PGXCallCUDA(cudaMalloc((void **)&W->t, 2 * (size_t)(o.b + 1) * sizeof(T)));
  PGXCallCUDA(cudaMalloc((void **)&W->tau, nn * sizeof(T)));
  PGXCallCUDA(cudaMalloc((void **)&W->e, nn * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&W->d, nn * sizeof(double)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename WorkT>
PetscErrorCode DestroyWork(WorkT **w)
{
  PetscFunctionBegin;
  if (!*w) PetscFunctionReturn(PETSC_SUCCESS);
  WorkT *W = *w;
  for (void *p : {(void *)W->M, (void *)W->N, (void *)W->y, (void *)W->t, (void *)W->tau, (void *)W->e, (void *)W->d, (void *)W->acc})
    if (p) PGXCallCUDA(cudaFree(p));
  if (W->ev0) PGXCallCUDA(cudaEventDestroy(W->ev0));
  if (W->ev1) PGXCallCUDA(cudaEventDestroy(W->ev1));
  if (W->s1) PGXCallCUDA(cudaStreamDestroy(W->s1));
  delete W;
  *w = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dA[i + j n] = conj(dA[j + i n]) for i < j, by 32 x 32 tiles through shared memory (coalesced reads and writes) */
template <typename T>
__global__ void MirrorLowerKernel(PetscInt n, T *dA)
{
  __shared__ T   tile[32][33];
  const PetscInt bi = (PetscInt)blockIdx.x * 32, bj = (PetscInt)blockIdx.y * 32; /* target tile: rows bi.., columns bj.. */
  if (bi > bj + 31) return;                                                       /* wholly below the diagonal */
  /* source: rows bj.., columns bi.. (the transposed tile), read along its columns */
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {
    const PetscInt r = bj + threadIdx.x, c = bi + k;
    if (r < n && c < n) tile[k][threadIdx.x] = dA[r + c * n];
  }
  __syncthreads();
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {
    const PetscInt r = bi + threadIdx.x, c = bj + k; /* target entry (r, c) = conj(source (c, r)) = conj(tile[r - bi][c - bj]) */
    if (r < n && c < n && r < c) dA[r + c * n] = Conj(tile[threadIdx.x][k]);
  }
}

/* dA(i, j) = a_ij for the CSR entries with j <= i: one warp a row (rows of a sparse operator are short) */
template <typename T>
__global__ void ScatterLowerCSRKernel(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const T *vals, T *dA)
{
  const PetscInt i = ((PetscInt)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int      l = threadIdx.x % 32;
  if (i >= n) return;
  for (PetscInt k = rowptr[i] + l; k < rowptr[i + 1]; k += 32) {
    const PetscInt j = colidx[k];
    if (j <= i) dA[i + j * n] = vals[k];
  }
}

/* dA (n x n, ld n) <- the lower triangle of A (host, ld lda), mirrored */
template <typename T>
PetscErrorCode UploadSymmetric(PetscInt n, const T *A, PetscInt lda, T *dA)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  /* large matrices through pinned staging filled by host threads (-pgx_device_copy_*), ordered on s */
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, dA, (void *)A, (size_t)n * sizeof(T), (size_t)n, (size_t)lda * sizeof(T), s, PETSC_FALSE));
  const unsigned nt = (unsigned)((n + 31) / 32);
  MirrorLowerKernel<T><<<dim3(nt, nt), dim3(32, 8), 0, s>>>(n, dA);
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::MirrorLowerKernel");
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dA (n x n, ld n) <- the CSR matrix's lower triangle (host arrays), mirrored; the rest zero */
template <typename T>
PetscErrorCode UploadSymmetricCSR(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const T *vals, T *dA)
{
  cudaStream_t                     s;
  pgx::cuda::DeviceArray<PetscInt> drp, dci;
  pgx::cuda::DeviceArray<T>        dv;
  const PetscInt                   nnz = n > 0 ? rowptr[n] : 0;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMemsetAsync(dA, 0, (size_t)n * n * sizeof(T), s));
  PetscCall(drp.resize((size_t)n + 1));
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, drp.data(), (void *)rowptr, ((size_t)n + 1) * sizeof(PetscInt), 1, ((size_t)n + 1) * sizeof(PetscInt), s, PETSC_FALSE));
  if (nnz) {
    PetscCall(dci.resize((size_t)nnz));
    PetscCall(dv.resize((size_t)nnz));
    PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, dci.data(), (void *)colidx, (size_t)nnz * sizeof(PetscInt), 1, (size_t)nnz * sizeof(PetscInt), s, PETSC_FALSE));
    PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, dv.data(), (void *)vals, (size_t)nnz * sizeof(T), 1, (size_t)nnz * sizeof(T), s, PETSC_FALSE));
    ScatterLowerCSRKernel<T><<<PGXCUDAGridSize(n * 32, 256), 256, 0, s>>>(n, drp.data(), dci.data(), dv.data(), dA);
    PGXCheckLaunch("pgx::kernels::sytrd::cuda::ScatterLowerCSRKernel");
  }
  const unsigned nt = (unsigned)((n + 31) / 32);
  MirrorLowerKernel<T><<<dim3(nt, nt), dim3(32, 8), 0, s>>>(n, dA);
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::MirrorLowerKernel (CSR)");
  PGXCallCUDA(cudaStreamSynchronize(s)); /* before the device copies of the CSR arrays are freed */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dA[i + i n] = Re(dA[i + i n]): the diagonal of a Hermitian matrix formed by products made exactly real */
template <typename T>
__global__ void RealDiagonalKernel(PetscInt n, T *dA)
{
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) dA[i + i * n] = T(Re(dA[i + i * n]));
}

/* Cholesky columns of the generalized problem's B: the diagonal blocks' width (the static shared memory of
   PotrfDiagKernel: 64 x 65 doubles or 32 x 33 complex doubles) */
template <typename T>
struct CholBlock;
template <>
struct CholBlock<double> {
  static constexpr int NB = 64;
};
template <>
struct CholBlock<Cx> {
  static constexpr int NB = 32;
};

/* The nb x nb diagonal block A (lower triangle, ld lda; nb <= NB) factored in place, A = L L^H, by one thread block in
   shared memory (right-looking by columns). The first pivot that is not positive or not finite sets *info to its
   order j0 + k + 1 when *info is still 0, and ends the block: the blocks after it then see non-finite values, and
   *info keeps the first failure (one check of *info after the whole factorization). */
template <typename T, int NB>
__global__ void __launch_bounds__(256) PotrfDiagKernel(int nb, T *A, PetscInt lda, PetscInt j0, int *info)
{
  __shared__ T    a[NB][NB + 1];
  __shared__ bool bad;
  const int       t = threadIdx.x;
  for (int q = t; q < nb * nb; q += blockDim.x) {
    const int i = q % nb, j = q / nb;
    if (i >= j) a[i][j] = A[i + (PetscInt)j * lda];
  }
  if (t == 0) bad = false;
  __syncthreads();
  for (int k = 0; k < nb; k++) {
    if (t == 0) {
      const double d = Re(a[k][k]);
      if (!(d > 0) || !isfinite(d)) {
        bad = true;
        if (*info == 0) *info = (int)(j0 + k + 1);
      } else a[k][k] = T(sqrt(d));
    }
    __syncthreads();
    if (bad) break;
    for (int i = k + 1 + t; i < nb; i += blockDim.x) a[i][k] = a[i][k] / a[k][k];
    __syncthreads();
    const int w = nb - k - 1; /* the trailing w x w lower triangle: a(i, j) -= a(i, k) conj(a(j, k)) */
    for (int q = t; q < w * w; q += blockDim.x) {
      const int i = k + 1 + q % w, j = k + 1 + q / w;
      if (i >= j) a[i][j] = a[i][j] - a[i][k] * Conj(a[j][k]);
    }
    __syncthreads();
  }
  for (int q = t; q < nb * nb; q += blockDim.x) {
    const int i = q % nb, j = q / nb;
    if (i >= j) A[i + (PetscInt)j * lda] = a[i][j];
  }
}

/* The n0 x n0 lower triangle A (ld lda; its first row and column are B's j0) factored in place, A = L L^H: above
   nsplit columns by recursive halves (L11 of the first half, a multiple of NB columns; L21 = A21 L11^-H by trsm;
   A22 -= L21 L21^H by syrkx / herkx; L22 of the rest), which makes the top levels' trsm and rank-k updates as wide as
   the matrix; at most nsplit columns right-looking by NB-column blocks (each diagonal block by PotrfDiagKernel, the
   columns below by trsm, the trailing triangle by a rank-NB update), which loads fewer distinct cuBLAS kernels into a
   fresh process. The diagonal blocks run in column order on s, so *dinfo keeps the first failing minor. */
template <typename T>
PetscErrorCode Potrf(cublasHandle_t h, cudaStream_t s, PetscInt n0, T *A, PetscInt lda, PetscInt j0, PetscInt nsplit, int *dinfo)
{
  constexpr int NB = CholBlock<T>::NB;

  PetscFunctionBegin;
  if (n0 > PetscMax(nsplit, (PetscInt)NB)) {
    const PetscInt n1 = (n0 / 2 + NB - 1) / NB * NB, m = n0 - n1; /* NB <= n1 < n0 */
    T             *A21 = A + n1, *A22 = A + n1 + n1 * lda;
    PetscCall(Potrf(h, s, n1, A, lda, j0, nsplit, dinfo));
    PGXCallCUBLAS(cublasXtrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, Traits<T>::OpH, CUBLAS_DIAG_NON_UNIT, (int)m, (int)n1, A, (int)lda, A21, (int)lda)); /* L21 = A21 L11^-H */
    PGXCallCUBLAS(cublasXherkxMinus(h, (int)m, (int)n1, A21, (int)lda, A22));                                                                                  /* A22 -= L21 L21^H */
    PetscCall(Potrf(h, s, m, A22, lda, j0 + n1, nsplit, dinfo));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt k = 0; k < n0; k += NB) {
    const int      nb = (int)PetscMin((PetscInt)NB, n0 - k);
    const PetscInt m  = n0 - k - nb;
    T             *L11 = A + k + k * lda, *B21 = L11 + nb, *B22 = A + (k + nb) + (k + nb) * lda;
    PotrfDiagKernel<T, NB><<<1, 256, 0, s>>>(nb, L11, lda, j0 + k, dinfo);
    PGXCheckLaunch("pgx::kernels::sytrd::cuda::PotrfDiagKernel");
    if (m > 0) {
      PGXCallCUBLAS(cublasXtrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, Traits<T>::OpH, CUBLAS_DIAG_NON_UNIT, (int)m, nb, L11, (int)lda, B21, (int)lda)); /* L21 = B21 L11^-H */
      PGXCallCUBLAS(cublasXherkxMinus(h, (int)m, nb, B21, (int)lda, B22));                                                                                  /* B22 -= L21 L21^H */
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* generalize() of sytrd_kernels.h: B = L L^H by PGX's Cholesky on cuBLAS (Potrf: cuBLAS and one kernel, so that a
   generalized problem does not load cuSOLVER, about 0.3 s of a program's start on an H200), then A <- L^-1 A L^-H by
   two cuBLAS triangular solves, made exactly Hermitian (lower triangle kept, diagonal made real for complex scalars,
   mirrored). LAPACK xhegst's blocked algorithm on cuBLAS, half the flops of the two solves, was measured and not
   kept: in fresh processes (SLEPc's ex13, n = 1600 to 16384, H200) it took 0.01-0.04 s longer, the load of its
   additional cuBLAS kernels outweighing the flops saved. */
template <typename T>
PetscErrorCode Generalize(PetscInt n, T *dA, T *dB, PetscInt nsplit, PetscInt *info)
{
  cudaStream_t   s;
  cublasHandle_t h;
  int            hinfo = 0;

  PetscFunctionBegin;
  *info = 0;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(n <= INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The generalized reduction takes orders up to %d (cuBLAS's 32-bit sizes), got %" PetscInt_FMT, INT_MAX, n);
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  PGXCallCUBLAS(cublasSetStream(h, s));
  {
    pgx::cuda::DeviceArray<int> dinfo;
    PetscCall(dinfo.resize(1));
    PGXCallCUDA(cudaMemsetAsync(dinfo.data(), 0, sizeof(int), s));
    PetscCall(Potrf(h, s, n, dB, n, 0, nsplit, dinfo.data()));
    PGXCallCUDA(cudaMemcpyAsync(&hinfo, dinfo.data(), sizeof(int), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s)); /* hinfo read; dinfo freed */
  }
  if (hinfo > 0) {
    *info = hinfo;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PGXCallCUBLAS(cublasXtrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, (int)n, (int)n, dB, (int)n, dA, (int)n));          /* L^-1 A */
  PGXCallCUBLAS(cublasXtrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, Traits<T>::OpH, CUBLAS_DIAG_NON_UNIT, (int)n, (int)n, dB, (int)n, dA, (int)n)); /* (L^-1 A) L^-H */
  if constexpr (!std::is_same<T, double>::value) {
    RealDiagonalKernel<T><<<PGXCUDAGridSize(n, 256), 256, 0, s>>>(n, dA);
    PGXCheckLaunch("pgx::kernels::sytrd::cuda::RealDiagonalKernel");
  }
  const unsigned nt = (unsigned)((n + 31) / 32);
  MirrorLowerKernel<T><<<dim3(nt, nt), dim3(32, 8), 0, s>>>(n, dA);
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::MirrorLowerKernel (generalized)");
  PGXCallCUDA(cudaStreamSynchronize(s)); /* synchronous (sytrd_kernels.h): the phase's time and -log_view event end with its work */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* V (L x kb, ld L) of reflectors i..i+kb-1, rows i+1..n-1: 0 above the unit, 1, then the stored entries */
template <typename T>
__global__ void BuildVKernel(PetscInt n, PetscInt i, PetscInt kb, const T *A, PetscInt lda, T *V)
{
  PetscInt L = n - i - 1, idx = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  if (idx >= L * kb) return;
  PetscInt r = idx % L, c = idx / L, row = i + 1 + r;
  V[idx]     = row < i + c + 1 ? T(0.0) : (row == i + c + 1 ? T(1.0) : A[row + (i + c) * lda]);
}

/* Tb (kb x kb, upper, column-major) of reflectors i..i+kb-1 from their Gram matrix G = V^H V and tau (device):
   Tb(c,c) = tau_c, Tb(0:c,c) = -tau_c Tb(0:c,0:c) G(0:c,c), column after column (LAPACK xlarft, forward,
   columnwise). One thread block per reflector block (blockIdx.x = blk: reflectors blk b .. blk b + kb - 1 of nr, G
   and Tb at blk b^2, ld kb): the serial recurrence of every block runs at once, not one block after the other. */
template <typename T>
__global__ void LarftKernel(int b, PetscInt nr, const T *Gall, const T *tauall, T *Tall)
{
  const PetscInt i  = (PetscInt)blockIdx.x * b;
  const int      kb = (int)(nr - i < b ? nr - i : b);
  const T       *G = Gall + (size_t)blockIdx.x * b * b, *tau = tauall + i;
  T             *Tb = Tall + (size_t)blockIdx.x * b * b;
  for (int c = 0; c < kb; c++) {
    const T tc = tau[c];
    for (int r = threadIdx.x; r < kb; r += blockDim.x) {
      T v = T(0.0);
      if (r < c) {
        T sum = T(0.0);
        for (int q = r; q < c; q++) sum += Tb[r + (size_t)q * kb] * G[q + (size_t)c * kb];
        v = -tc * sum;
      } else if (r == c) v = tc;
      Tb[r + (size_t)c * kb] = v;
    }
    __syncthreads(); /* column c is read by the next columns */
  }
}

/* The back-transformation's blocks: nblk blocks of b reflectors (the last one kb = nr - i), block blk from i = blk b */
template <typename T>
struct BackBlocks {
  PetscInt                  n, b, nblk;
  pgx::cuda::DeviceArray<T> V, G, Tall, Y;
};

/* Tb of every block (Tall: nblk b^2, block blk's Tb at blk b^2, ld kb), from V and G = V^H V per block; Y for ky columns */
template <typename T, typename WorkT>
PetscErrorCode BackSetUp(WorkT *W, cublasHandle_t h, const T *dA, PetscInt ky, BackBlocks<T> *B)
{
  const PetscInt n = W->n, nr = n - 1;

  PetscFunctionBegin;
  B->n    = n;
  B->b    = PetscMin(W->o.bback > 0 ? W->o.bback : W->o.b, nr);
  B->nblk = (nr + B->b - 1) / B->b;
  PetscCall(B->V.resize((size_t)n * B->b));
  PetscCall(B->G.resize((size_t)B->nblk * B->b * B->b));
  PetscCall(B->Tall.resize((size_t)B->nblk * B->b * B->b));
  PetscCall(B->Y.resize((size_t)B->b * ky));
  for (PetscInt blk = 0; blk < B->nblk; blk++) {
    const PetscInt i = blk * B->b, kb = PetscMin(B->b, nr - i), L = n - i - 1;
    BuildVKernel<T><<<PGXCUDAGridSize(L * kb, 256), 256, 0, W->s0>>>(n, i, kb, dA, n, B->V.data());
    PGXCheckLaunch("pgx::kernels::sytrd::cuda::BuildVKernel");
    PGXCallCUBLAS(cublasXgemm(h, Traits<T>::OpH, CUBLAS_OP_N, (int)kb, (int)kb, (int)L, 1.0, B->V.data(), (int)L, B->V.data(), (int)L, 0.0, B->G.data() + (size_t)blk * B->b * B->b, (int)kb));
  }
  LarftKernel<T><<<(unsigned)B->nblk, 256, 0, W->s0>>>((int)B->b, nr, B->G.data(), W->tau, B->Tall.data()); /* tau as reduce() left it on the device */
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::LarftKernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Z (n x k, ld n) <- Q Z (trans 0: the blocks last to first) or Q^H Z, all on W->s0: per block V is rebuilt (cheap: a
   copy of the block's reflectors), then Y = V^H Z, Y = Tb Y (or Tb^H Y), Z -= V Y */
template <typename T, typename WorkT>
PetscErrorCode BackApply(WorkT *W, cublasHandle_t h, const T *dA, int trans, BackBlocks<T> *B, PetscInt k, T *dZ)
{
  const PetscInt n = B->n, nr = n - 1;
  T             *V = B->V.data(), *Y = B->Y.data();

  PetscFunctionBegin;
  for (PetscInt s = 0; s < B->nblk; s++) {
    const PetscInt blk = trans ? s : B->nblk - 1 - s, i = blk * B->b, kb = PetscMin(B->b, nr - i), L = n - i - 1;
    const T       *Tb = B->Tall.data() + (size_t)blk * B->b * B->b;
    T             *Zi = dZ + i + 1;
    BuildVKernel<T><<<PGXCUDAGridSize(L * kb, 256), 256, 0, W->s0>>>(n, i, kb, dA, n, V);
    PGXCheckLaunch("pgx::kernels::sytrd::cuda::BuildVKernel");
    PGXCallCUBLAS(cublasXgemm(h, Traits<T>::OpH, CUBLAS_OP_N, (int)kb, (int)k, (int)L, 1.0, V, (int)L, Zi, (int)n, 0.0, Y, (int)kb));
    PGXCallCUBLAS(cublasXtrmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, trans ? Traits<T>::OpH : CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, (int)kb, (int)k, Tb, (int)kb, Y, (int)kb));
    PGXCallCUBLAS(cublasXgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)L, (int)k, (int)kb, -1.0, V, (int)L, Y, (int)kb, 1.0, Zi, (int)n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Z <- Q Z or Q^H Z on the device (apply_q of sytrd_kernels.h) */
template <typename T, typename WorkT>
PetscErrorCode ApplyQ(WorkT *W, int trans, const T *dA, PetscInt k, T *dZ)
{
  cublasHandle_t h;
  BackBlocks<T>  B;

  PetscFunctionBegin;
  if (W->n - 1 <= 0 || k <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  PGXCallCUBLAS(cublasSetStream(h, W->s0));
  /* blocks of W->o.bback reflectors (wider than the panel: each block streams Z once, in and out), everything on the
     device: no host synchronization between the blocks */
  PetscCall(BackSetUp(W, h, dA, k, &B));
  PetscCall(BackApply(W, h, dA, trans, &B, k, dZ));
  /* the work arrays are freed on return: wait for the queued work that reads them */
  PGXCallCUDA(cudaStreamSynchronize(W->s0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Z <- Q Z by column chunks, each downloaded into the host's Z (ld ldz) while the next one is computed
   (apply_q_download of sytrd_kernels.h) */
template <typename T, typename WorkT>
PetscErrorCode ApplyQDownload(WorkT *W, const T *dA, PetscInt k, T *dZ, T *Z, PetscInt ldz, PetscInt nchunks, const T *dL)
{
  cublasHandle_t h = nullptr;
  BackBlocks<T>  B;
  const PetscInt n = W->n;
  PetscInt       kc, p0 = 0, pk = 0;

  PetscFunctionBegin;
  if (n <= 0 || k <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  nchunks = PetscMax(1, PetscMin(nchunks, k));
  kc      = (k + nchunks - 1) / nchunks;
  if (n - 1 > 0 || dL) {
    PetscCall(PGXCUDAGetCUBLAS(&h));
    PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    PGXCallCUBLAS(cublasSetStream(h, W->s0));
  }
  if (n - 1 > 0) PetscCall(BackSetUp(W, h, dA, kc, &B));
  /* chunk c: its columns computed on s0, then ev[c % 2] recorded; its download waits for that event on s1 and is run
     (host threads, pinned staging) after chunk c + 1 is queued on s0, so that the GPU computes while the link copies */
  for (PetscInt c = 0, c0 = 0; c0 < k; c++, c0 += kc) {
    const PetscInt kk = PetscMin(kc, k - c0);
    cudaEvent_t    ev = c % 2 ? W->ev1 : W->ev0;
    if (n - 1 > 0) PetscCall(BackApply(W, h, dA, 0, &B, kk, dZ + (size_t)c0 * n));
    if (dL) PGXCallCUBLAS(cublasXtrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, Traits<T>::OpH, CUBLAS_DIAG_NON_UNIT, (int)n, (int)kk, dL, (int)n, dZ + (size_t)c0 * n, (int)n)); /* L^-H (Q Z_T) */
    PGXCallCUDA(cudaEventRecord(ev, W->s0));
    if (pk) PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, dZ + (size_t)p0 * n, Z + (size_t)p0 * ldz, (size_t)n * sizeof(T), (size_t)pk, (size_t)ldz * sizeof(T), W->s1, PETSC_TRUE));
    PGXCallCUDA(cudaStreamWaitEvent(W->s1, ev, 0)); /* the next download (of this chunk) after its computation */
    p0 = c0;
    pk = kk;
  }
  PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, dZ + (size_t)p0 * n, Z + (size_t)p0 * ldz, (size_t)n * sizeof(T), (size_t)pk, (size_t)ldz * sizeof(T), W->s1, PETSC_TRUE));
  /* the work arrays are freed on return: wait for the queued work that reads them */
  PGXCallCUDA(cudaStreamSynchronize(W->s0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace common
} // namespace cuda
} // namespace sytrd
} // namespace kernels
} // namespace pgx
