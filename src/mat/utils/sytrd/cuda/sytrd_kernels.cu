/* CUDA kernels of the Hermitian tridiagonal reduction (sytrd_kernels.h): the GPU one-stage blocked reduction
   of Liu, Zhao, Yu and Huang (2020), real double precision.

   Per panel of b columns on the trailing m x m matrix (device, column-major, ld n, full square kept):
   - column k is brought up to date by one gemv with the interleaved panel storage M = [v0 w0 v1 w1 ...] and
     N = [w0 v0 w1 v1 ...]: A(k:,k) -= M(k:,0:2k) N(k,0:2k)^T (merged; or two gemvs on V and W);
   - the reflector is formed on the device (one block: norm, beta, tau, scaling), no host sync;
   - the symmetric product y = A22(k+1:,k+1:) v is one full gemv over the stored square (SYMV_FULL, the
     paper's choice) or PGX's lower kernel, which reads each element of the lower triangle once and uses it
     for its row and its column (SYMV_LOWER, default: half the bytes);
   - concurrently on a second stream (streams on), the merged correction t = M(k+1:,0:2k)^T v; then
     w = y - N(k+1:,0:2k) t (two gemvs; four when not merged), w = tau w - tau/2 (w^T v) v (one block);
   - the trailing update A22(b:,b:) -= M N^T is one gemm of inner dimension 2b on the full square (rank2b),
     or two gemms V W^T and W V^T on the columns of M at stride 2 (lda = 2n).
   The back-transformation applies blocks of b reflectors as I - V Tb V^T with three gemms (every block's Tb from
   its Gram matrix V^T V first, one thread block per reflector block); for PGXSytrdSolve() it runs by column chunks
   of Z, each downloaded (pinned staging, host threads, a second stream) while the next one is computed. The fused
   panel (one cooperative kernel per panel, the default; sytrd_fused.cuh), the upload and the back-transformation
   (sytrd_common.cuh) are templates on the scalar, shared with the complex backend (hetrd_kernels.cu). */
#include <pgx/private/pgxcuda.h>
#include "../sytrd_kernels.h"
#include "sytrd_common.cuh"
#include "sytrd_fused.cuh"
#include <vector>

namespace pgx
{
namespace kernels
{
namespace sytrd
{
namespace cuda
{
#if !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
struct Work : common::WorkOf<double> {};

static const double one = 1.0, mone = -1.0, zero = 0.0;
constexpr int BLOCK = 256, TILE = 32, TROWS = 8;

/* sum of a block's values (all threads get it) */
__device__ double BlockSum(double v)
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

/* reflector of [alpha; x] (x: len-1 entries below alpha, contiguous): x <- v(1:), alpha <- 1, e <- beta */
__global__ void k_larfg(PetscInt len, double *alpha, double *tau, double *e)
{
  double *x = alpha + 1, s = 0, a = *alpha; /* alpha read before the block's barriers: thread 0 overwrites it below */
  for (PetscInt i = threadIdx.x; i < len - 1; i += BLOCK) s += x[i] * x[i];
  s = BlockSum(s);
  if (s == 0) {
    if (threadIdx.x == 0) *tau = 0, *e = a, *alpha = 1;
    return;
  }
  double beta = -copysign(sqrt(a * a + s), a), scal = 1.0 / (a - beta);
  for (PetscInt i = threadIdx.x; i < len - 1; i += BLOCK) x[i] *= scal;
  if (threadIdx.x == 0) *tau = (beta - a) / beta, *e = beta, *alpha = 1;
}

/* y += A v with A symmetric, L x L, lower triangle read once: tile (I, J), I >= J, adds A_IJ v_J to y_I and
   (off the diagonal tiles) A_IJ^T v_I to y_J; y must be zero on entry */
__global__ void k_symv_lower(PetscInt L, const double *A, PetscInt lda, const double *v, double *y)
{
  /* tile index -> (I, J), I >= J, over T(T+1)/2 tiles */
  PetscInt b = blockIdx.x, I = (PetscInt)((sqrt(8.0 * (double)b + 1.0) - 1.0) / 2.0);
  while (I * (I + 1) / 2 > b) I--;
  while ((I + 1) * (I + 2) / 2 <= b) I++;
  PetscInt J = b - I * (I + 1) / 2, r0 = I * TILE, c0 = J * TILE;
  __shared__ double vI[TILE], vJ[TILE], colsum[TROWS][TILE];
  int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
  if (ty == 0) {
    vI[tx] = r0 + tx < L ? v[r0 + tx] : 0;
    vJ[tx] = c0 + tx < L ? v[c0 + tx] : 0;
  }
  __syncthreads();
  double rowacc = 0, colacc[TILE / TROWS] = {0};
  PetscInt r = r0 + tx;
  for (int k = 0; k < TILE / TROWS; k++) {
    int      cc = ty + k * TROWS;
    PetscInt c  = c0 + cc;
    if (r < L && c < L && (I != J || r >= c)) {
      double a = A[r + c * lda];
      rowacc += a * vJ[cc];
      if (I != J || r > c) colacc[k] = a * vI[tx];
    }
  }
  /* row contributions: y[r] += sum over the tile's columns; column contributions: y[c] += sum over rows */
  if (r < L && rowacc != 0.0) atomicAdd(&y[r], rowacc);
  for (int k = 0; k < TILE / TROWS; k++) {
    double s = colacc[k];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (tx == 0) colsum[ty][k] = s;
  }
  __syncthreads();
  if (threadIdx.x < TILE) {
    int      cc = threadIdx.x, ty2 = cc % TROWS, k2 = cc / TROWS;
    PetscInt c  = c0 + cc;
    if (c < L) atomicAdd(&y[c], colsum[ty2][k2]);
  }
}

/* w <- tau w; w <- w - tau/2 (w^T v) v; stores v and w interleaved into M (cols 2k, 2k+1) and N (2k+1, 2k) */
__global__ void k_finish_w(PetscInt L, const double *tau, double *w, const double *v, double *Mv, double *Mw, double *Nw, double *Nv)
{
  double t = *tau, s = 0;
  for (PetscInt i = threadIdx.x; i < L; i += BLOCK) s += t * w[i] * v[i];
  s            = BlockSum(s);
  double alpha = -0.5 * t * s;
  for (PetscInt i = threadIdx.x; i < L; i += BLOCK) {
    double wi = t * w[i] + alpha * v[i];
    Mv[i] = v[i], Nv[i] = v[i], Mw[i] = wi, Nw[i] = wi;
  }
}

PetscErrorCode upload_symmetric(PetscInt n, const PetscScalar *A, PetscInt lda, PetscScalar *dA)
{
  return common::UploadSymmetric(n, A, lda, dA);
}

PetscErrorCode upload_symmetric_csr(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, PetscScalar *dA)
{
  return common::UploadSymmetricCSR(n, rowptr, colidx, vals, dA);
}

PetscErrorCode create(PetscInt n, const Options &o, Work **w)
{
  PetscFunctionBegin;
  PetscCall(common::CreateWork<double>(n, o, w));
  PetscCall(fused::SetUp<double>(*w)); /* the fused panel, when its blocks can all be resident */
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
static PetscErrorCode Panel(Work *W, cublasHandle_t h, PetscInt m, PetscInt nb, double *A, PetscInt lda, double *e, double *tau)
{
  const int    merged = W->o.merged, streams = W->o.streams;
  const PetscInt ld   = W->n; /* of M and N */
  double      *M = W->M, *N = W->N;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < nb; i++) {
    int ci = (int)i, len = (int)(m - i);
    /* bring column i up to date */
    if (i > 0) {
      if (merged) PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, len, 2 * ci, &mone, M + i, (int)ld, N + i, (int)ld, &one, A + i + i * lda, 1));
      else {
        PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, len, ci, &mone, M + i, (int)(2 * ld), M + i + ld, (int)(2 * ld), &one, A + i + i * lda, 1));
        PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, len, ci, &mone, M + i + ld, (int)(2 * ld), M + i, (int)(2 * ld), &one, A + i + i * lda, 1));
      }
    }
    if (i == m - 1) break;
    PetscInt L = m - i - 1;
    double  *v = A + (i + 1) + i * lda, *A22 = A + (i + 1) + (i + 1) * lda;
    k_larfg<<<1, BLOCK, 0, W->s0>>>(L, v, tau + i, e + i);
    PGXCheckLaunch("k_larfg");
    /* y = A22 v on s1 (or s0), concurrently t = M^T v on s0 */
    cudaStream_t sy = streams ? W->s1 : W->s0;
    if (streams) {
      PGXCallCUDA(cudaEventRecord(W->ev0, W->s0));
      PGXCallCUDA(cudaStreamWaitEvent(W->s1, W->ev0, 0));
      PGXCallCUBLAS(cublasSetStream(h, W->s1));
    }
    if (W->o.symv == SYMV_FULL) PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, (int)L, (int)L, &one, A22, (int)lda, v, 1, &zero, W->y, 1));
    else {
      PetscInt T = (L + TILE - 1) / TILE;
      PGXCallCUDA(cudaMemsetAsync(W->y, 0, (size_t)L * sizeof(double), sy));
      k_symv_lower<<<(unsigned int)(T * (T + 1) / 2), TILE * TROWS, 0, sy>>>(L, A22, lda, v, W->y);
      PGXCheckLaunch("k_symv_lower");
    }
    if (streams) {
      PGXCallCUDA(cudaEventRecord(W->ev1, W->s1));
      PGXCallCUBLAS(cublasSetStream(h, W->s0));
    }
    if (i > 0) {
      if (merged) PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_T, (int)L, 2 * ci, &one, M + i + 1, (int)ld, v, 1, &zero, W->t, 1));
      else {
        PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_T, (int)L, ci, &one, M + i + 1, (int)(2 * ld), v, 1, &zero, W->t, 2));          /* V^T v */
        PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_T, (int)L, ci, &one, M + i + 1 + ld, (int)(2 * ld), v, 1, &zero, W->t + 1, 2)); /* W^T v */
      }
    }
    if (streams) PGXCallCUDA(cudaStreamWaitEvent(W->s0, W->ev1, 0));
    if (i > 0) { /* y -= N t = W (V^T v) + V (W^T v) */
      if (merged) PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, (int)L, 2 * ci, &mone, N + i + 1, (int)ld, W->t, 1, &one, W->y, 1));
      else {
        PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, (int)L, ci, &mone, M + i + 1 + ld, (int)(2 * ld), W->t, 2, &one, W->y, 1));
        PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, (int)L, ci, &mone, M + i + 1, (int)(2 * ld), W->t + 1, 2, &one, W->y, 1));
      }
    }
    k_finish_w<<<1, BLOCK, 0, W->s0>>>(L, tau + i, W->y, v, M + (i + 1) + 2 * i * ld, M + (i + 1) + (2 * i + 1) * ld, N + (i + 1) + 2 * i * ld, N + (i + 1) + (2 * i + 1) * ld);
    PGXCheckLaunch("k_finish_w");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the panels (fused, or the launches of Panel()), the trailing updates and T to the host: sytrd_fused.cuh */
PetscErrorCode reduce(Work *W, PetscScalar *dA, PetscReal *d, PetscReal *e, PetscScalar *tau)
{
  return fused::Reduce(W, dA, d, e, tau, Panel);
}
/* the compact WY back-transformation (sytrd_common.cuh) */
PetscErrorCode apply_q(Work *W, int trans, const PetscScalar *dA, PetscInt k, PetscScalar *dZ)
{
  return common::ApplyQ(W, trans, dA, k, dZ);
}

PetscErrorCode apply_q_download(Work *W, const PetscScalar *dA, PetscInt k, PetscScalar *dZ, PetscScalar *Z, PetscInt ldz, PetscInt nchunks, const PetscScalar *dL)
{
  return common::ApplyQDownload(W, dA, k, dZ, Z, ldz, nchunks, dL);
}

PetscErrorCode generalize(PetscInt n, PetscScalar *dA, PetscScalar *dB, PetscInt nsplit, PetscInt *info)
{
  return common::Generalize(n, dA, dB, nsplit, info);
}
#elif !(defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)) /* complex double: hetrd_kernels.cu */
struct Work {
  int unused;
};
PetscErrorCode create(PetscInt, const Options &, Work **)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of PGXSytrd supports double precision (real or complex) only; use -pgx_device host");
}
PetscErrorCode destroy(Work **w)
{
  *w = nullptr;
  return PETSC_SUCCESS;
}
PetscErrorCode fused_grid(const Work *, int *g)
{
  *g = 0;
  return PETSC_SUCCESS;
}
PetscErrorCode reduce(Work *, PetscScalar *, PetscReal *, PetscReal *, PetscScalar *)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of PGXSytrd supports double precision (real or complex) only");
}
PetscErrorCode apply_q(Work *, int, const PetscScalar *, PetscInt, PetscScalar *)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of PGXSytrd supports double precision (real or complex) only");
}
PetscErrorCode apply_q_download(Work *, const PetscScalar *, PetscInt, PetscScalar *, PetscScalar *, PetscInt, PetscInt, const PetscScalar *)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of PGXSytrd supports double precision (real or complex) only");
}
PetscErrorCode generalize(PetscInt, PetscScalar *, PetscScalar *, PetscInt, PetscInt *)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of PGXSytrd supports double precision (real or complex) only");
}
#endif
} // namespace cuda
} // namespace sytrd
} // namespace kernels
} // namespace pgx
