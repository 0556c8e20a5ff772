/* CUDA kernels of the Hermitian tridiagonal reduction (sytrd_kernels.h) for complex double scalars: the launch
   sequence of the one-stage blocked reduction (LAPACK zhetrd/zlatrd, lower) with cuBLAS Z-calls, and the compact
   WY back-transformation. The fused panel (one cooperative kernel per panel, the default where its blocks can be
   resident) is the real backend's, templated on the scalar in sytrd_fused.cuh; this file has the launch sequence.

   Per panel of b columns on the trailing m x m matrix (device, column-major, ld n), with the interleaved panel
   storage M = [v0 w0 v1 w1 ...], N = [w0 v0 w1 v1 ...] (the operations of the real file with the conjugations
   of the reference, sytrd/reference/sytrd_kernels.cxx):
   - column k is brought up to date: A(k:,k) -= M(k:,0:2k) conj(N(k,0:2k))^T, one zgemm of one column with B = N's
     row k taken as OP_C (merged; or two on V and W), and its diagonal entry made real;
   - the reflector (zlarfg: beta real, tau complex) is formed on the device by one block;
   - y = A22 v: cublasZhemv on the lower triangle (SYMV_LOWER) or one zgemv over the full square, whose strict upper
     triangle is kept equal to the conjugate of the lower one (SYMV_FULL, the paper's choice);
   - concurrently (streams on), t = M(k+1:,0:2k)^H v; then y -= N t, and w = tau y - tau/2 ((tau y)^H v) v;
   - the trailing update A22 -= M N^H (= V W^H + W V^H) is one zgemm of inner dimension 2b (rank2b) or two of b.
   The upload and the back-transformation (blocks of reflectors as I - V Tb V^H, zlarft: Tb from the Gram matrix
   V^H V; Z <- Q Z with Y = V^H Z, Y = Tb Y, Z -= V Y, Tb^H for Q^H) are the real backend's, templated on the scalar
   in sytrd_common.cuh. PetscScalar is thrust::complex<double> here (PETSc's headers
   under nvcc), the layout of cuDoubleComplex and of the host's std::complex<double> (the interface's Scalar, see
   sytrd_kernels.h: the arrays are reinterpreted). */
#include <pgx/private/pgxcuda.h>
#include "../sytrd_kernels.h"
#include "sytrd_common.cuh"
#include "sytrd_fused.cuh"

namespace pgx
{
namespace kernels
{
namespace sytrd
{
namespace cuda
{
#if defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
typedef PetscScalar Cx;

struct Work : common::WorkOf<Cx> {};

constexpr int BLOCK = 256;

static inline cuDoubleComplex *BL(Cx *p)
{
  return reinterpret_cast<cuDoubleComplex *>(p);
}
static const cuDoubleComplex cone = {1.0, 0.0}, cmone = {-1.0, 0.0}, czero = {0.0, 0.0};

/* sum of a block's values (all threads get it) */
__device__ double BlockSumR(double v)
{
  __shared__ double red[BLOCK / 32];
  __shared__ double total;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    double s = 0;
    for (int i = 0; i < BLOCK / 32; i++) s += red[i];
    total = s;
  }
  __syncthreads();
  double r = total;
  __syncthreads();
  return r;
}

__device__ Cx BlockSumC(Cx v)
{
  double re = BlockSumR(v.real()), im = BlockSumR(v.imag());
  return Cx(re, im);
}

/* the diagonal entry A(i,i) = diag[0] made real, then the reflector of [alpha; x] (alpha = diag[1], x below it:
   len-1 entries) as the reference's larfg: x <- v(1:), alpha <- 1, e <- beta (real), tau complex */
__global__ void k_larfg(PetscInt len, Cx *diag, Cx *tau, double *e)
{
  Cx    *alpha = diag + 1, *x = alpha + 1;
  Cx     a     = *alpha; /* read before the block's barriers: thread 0 overwrites it below */
  double s     = 0;
  for (PetscInt i = threadIdx.x; i < len - 1; i += BLOCK) s += thrust::norm(x[i]);
  s = BlockSumR(s);
  if (threadIdx.x == 0) *diag = Cx(diag->real(), 0.0);
  if (len <= 0 || (s == 0 && a.imag() == 0)) {
    if (threadIdx.x == 0) *tau = Cx(0.0, 0.0), *e = a.real(), *alpha = Cx(1.0, 0.0);
    return;
  }
  double beta = -copysign(hypot(hypot(a.real(), a.imag()), sqrt(s)), a.real());
  Cx     scal = Cx(1.0, 0.0) / (a - beta);
  for (PetscInt i = threadIdx.x; i < len - 1; i += BLOCK) x[i] *= scal;
  if (threadIdx.x == 0) *tau = (Cx(beta, 0.0) - a) / beta, *e = beta, *alpha = Cx(1.0, 0.0);
}

/* w <- tau w; w <- w - tau/2 (w^H v) v; stores v and w interleaved into M (cols 2k, 2k+1) and N (2k+1, 2k) */
__global__ void k_finish_w(PetscInt L, const Cx *tau, Cx *w, const Cx *v, Cx *Mv, Cx *Mw, Cx *Nw, Cx *Nv)
{
  Cx t = *tau, s = Cx(0.0, 0.0);
  for (PetscInt i = threadIdx.x; i < L; i += BLOCK) s += thrust::conj(t * w[i]) * v[i];
  s        = BlockSumC(s);
  Cx alpha = -0.5 * t * s;
  for (PetscInt i = threadIdx.x; i < L; i += BLOCK) {
    Cx wi = t * w[i] + alpha * v[i];
    Mv[i] = v[i], Nv[i] = v[i], Mw[i] = wi, Nw[i] = wi;
  }
}

/* Z (real, count entries) -> complex */
__global__ void k_real_to_complex(size_t count, const double *src, Cx *dst)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) dst[i] = Cx(src[i], 0.0);
}

PetscErrorCode upload_symmetric(PetscInt n, const Scalar *A, PetscInt lda, Scalar *dA)
{
  return common::UploadSymmetric(n, reinterpret_cast<const Cx *>(A), lda, reinterpret_cast<Cx *>(dA));
}

PetscErrorCode upload_symmetric_csr(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const Scalar *vals, Scalar *dA)
{
  return common::UploadSymmetricCSR(n, rowptr, colidx, reinterpret_cast<const Cx *>(vals), reinterpret_cast<Cx *>(dA));
}

PetscErrorCode create(PetscInt n, const Options &o, Work **w)
{
  PetscFunctionBegin;
  PetscCall(common::CreateWork<Cx>(n, o, w));
  PetscCall(fused::SetUp<Cx>(*w)); /* the fused panel, when its blocks can all be resident */
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode fused_grid(const Work *W, int *g)
{
  *g = W ? W->fgrid : 0;
  return PETSC_SUCCESS;
}

PetscErrorCode destroy(Work **w)
{
  return common::DestroyWork(w);
}
/* one panel: columns 0..nb-1 of the trailing m x m matrix A (ld lda); e, tau: device, panel-relative */
static PetscErrorCode Panel(Work *W, cublasHandle_t h, PetscInt m, PetscInt nb, Cx *A, PetscInt lda, double *e, Cx *tau)
{
  const int      merged = W->o.merged, streams = W->o.streams;
  const PetscInt ld     = W->n; /* of M and N */
  Cx            *M = W->M, *N = W->N;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < nb; i++) {
    int ci = (int)i, len = (int)(m - i);
    /* bring column i up to date: A(i:,i) -= V(i:,:) W(i,:)^H + W(i:,:) V(i,:)^H (B = a row taken as OP_C) */
    if (i > 0) {
      if (merged) PGXCallCUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, len, 1, 2 * ci, &cmone, BL(M + i), (int)ld, BL(N + i), (int)ld, &cone, BL(A + i + i * lda), (int)lda));
      else {
        PGXCallCUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, len, 1, ci, &cmone, BL(M + i), (int)(2 * ld), BL(M + i + ld), (int)(2 * ld), &cone, BL(A + i + i * lda), (int)lda));
        PGXCallCUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, len, 1, ci, &cmone, BL(M + i + ld), (int)(2 * ld), BL(M + i), (int)(2 * ld), &cone, BL(A + i + i * lda), (int)lda));
      }
    }
    if (i == m - 1) break;
    PetscInt L = m - i - 1;
    Cx      *v = A + (i + 1) + i * lda, *A22 = A + (i + 1) + (i + 1) * lda;
    k_larfg<<<1, BLOCK, 0, W->s0>>>(L, A + i + i * lda, tau + i, e + i);
    PGXCheckLaunch("k_larfg (complex)");
    /* y = A22 v on s1 (or s0), concurrently t = M^H v on s0 */
    if (streams) {
      PGXCallCUDA(cudaEventRecord(W->ev0, W->s0));
      PGXCallCUDA(cudaStreamWaitEvent(W->s1, W->ev0, 0));
      PGXCallCUBLAS(cublasSetStream(h, W->s1));
    }
    if (W->o.symv == SYMV_FULL) PGXCallCUBLAS(cublasZgemv(h, CUBLAS_OP_N, (int)L, (int)L, &cone, BL(A22), (int)lda, BL(v), 1, &czero, BL(W->y), 1));
    else PGXCallCUBLAS(cublasZhemv(h, CUBLAS_FILL_MODE_LOWER, (int)L, &cone, BL(A22), (int)lda, BL(v), 1, &czero, BL(W->y), 1));
    if (streams) {
      PGXCallCUDA(cudaEventRecord(W->ev1, W->s1));
      PGXCallCUBLAS(cublasSetStream(h, W->s0));
    }
    if (i > 0) {
      if (merged) PGXCallCUBLAS(cublasZgemv(h, CUBLAS_OP_C, (int)L, 2 * ci, &cone, BL(M + i + 1), (int)ld, BL(v), 1, &czero, BL(W->t), 1));
      else {
        PGXCallCUBLAS(cublasZgemv(h, CUBLAS_OP_C, (int)L, ci, &cone, BL(M + i + 1), (int)(2 * ld), BL(v), 1, &czero, BL(W->t), 2));          /* V^H v */
        PGXCallCUBLAS(cublasZgemv(h, CUBLAS_OP_C, (int)L, ci, &cone, BL(M + i + 1 + ld), (int)(2 * ld), BL(v), 1, &czero, BL(W->t + 1), 2)); /* W^H v */
      }
    }
    if (streams) PGXCallCUDA(cudaStreamWaitEvent(W->s0, W->ev1, 0));
    if (i > 0) { /* y -= N t = W (V^H v) + V (W^H v) */
      if (merged) PGXCallCUBLAS(cublasZgemv(h, CUBLAS_OP_N, (int)L, 2 * ci, &cmone, BL(N + i + 1), (int)ld, BL(W->t), 1, &cone, BL(W->y), 1));
      else {
        PGXCallCUBLAS(cublasZgemv(h, CUBLAS_OP_N, (int)L, ci, &cmone, BL(M + i + 1 + ld), (int)(2 * ld), BL(W->t), 2, &cone, BL(W->y), 1));
        PGXCallCUBLAS(cublasZgemv(h, CUBLAS_OP_N, (int)L, ci, &cmone, BL(M + i + 1), (int)(2 * ld), BL(W->t + 1), 2, &cone, BL(W->y), 1));
      }
    }
    k_finish_w<<<1, BLOCK, 0, W->s0>>>(L, tau + i, W->y, v, M + (i + 1) + 2 * i * ld, M + (i + 1) + (2 * i + 1) * ld, N + (i + 1) + 2 * i * ld, N + (i + 1) + (2 * i + 1) * ld);
    PGXCheckLaunch("k_finish_w (complex)");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the panels (fused, or the launches of Panel()), the trailing updates and T to the host: sytrd_fused.cuh */
PetscErrorCode reduce(Work *W, Scalar *hdA, PetscReal *d, PetscReal *e, Scalar *tau)
{
  return fused::Reduce(W, reinterpret_cast<Cx *>(hdA), d, e, reinterpret_cast<Cx *>(tau), Panel);
}
/* the compact WY back-transformation (sytrd_common.cuh) */
PetscErrorCode apply_q(Work *W, int trans, const Scalar *dA, PetscInt k, Scalar *dZ)
{
  return common::ApplyQ(W, trans, reinterpret_cast<const Cx *>(dA), k, reinterpret_cast<Cx *>(dZ));
}

PetscErrorCode apply_q_download(Work *W, const Scalar *dA, PetscInt k, Scalar *dZ, Scalar *Z, PetscInt ldz, PetscInt nchunks, const Scalar *dL)
{
  return common::ApplyQDownload(W, reinterpret_cast<const Cx *>(dA), k, reinterpret_cast<Cx *>(dZ), reinterpret_cast<Cx *>(Z), ldz, nchunks, reinterpret_cast<const Cx *>(dL));
}

PetscErrorCode generalize(PetscInt n, Scalar *dA, Scalar *dB, PetscInt nsplit, PetscInt *info)
{
  return common::Generalize(n, reinterpret_cast<Cx *>(dA), reinterpret_cast<Cx *>(dB), nsplit, info);
}

PetscErrorCode real_to_scalar(size_t count, const PetscReal *src, Scalar *hdst)
{
  Cx          *dst = reinterpret_cast<Cx *>(hdst);
  cudaStream_t s;

  PetscFunctionBegin;
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  k_real_to_complex<<<PGXCUDAGridSize((PetscInt)PetscMin(count, (size_t)1 << 30), 256), 256, 0, s>>>(count, src, dst);
  PGXCheckLaunch("k_real_to_complex");
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
} // namespace cuda
} // namespace sytrd
} // namespace kernels
} // namespace pgx
