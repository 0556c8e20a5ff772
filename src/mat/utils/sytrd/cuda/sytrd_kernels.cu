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
   The back-transformation applies blocks of b reflectors as I - V Tb V^T with three gemms (Tb from the
   Gram matrix V^T V, formed on the host: b x b). */
#include <pgx/private/pgxcuda.h>
#include "../sytrd_kernels.h"
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
struct Work {
  PetscInt     n = 0;
  Options      o;
  double      *M = nullptr, *N = nullptr, *y = nullptr, *t = nullptr, *tau = nullptr, *e = nullptr, *d = nullptr;
  cudaStream_t s0 = nullptr, s1 = nullptr; /* s0: PGX's stream; s1: the symmetric product */
  cudaEvent_t  ev0 = nullptr, ev1 = nullptr;
};

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
  double *x = alpha + 1, s = 0;
  for (PetscInt i = threadIdx.x; i < len - 1; i += BLOCK) s += x[i] * x[i];
  s        = BlockSum(s);
  double a = *alpha;
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

/* A(k+1, k) <- e[k] for the panel's columns */
__global__ void k_set_subdiag(PetscInt nb, double *A, PetscInt lda, const double *e)
{
  PetscInt k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nb) A[k + 1 + k * lda] = e[k];
}

/* V (L x kb, ld L) of reflectors i..i+kb-1, rows i+1..n-1: 0 above the unit, 1, then the stored entries */
__global__ void k_build_v(PetscInt n, PetscInt i, PetscInt kb, const double *A, PetscInt lda, double *V)
{
  PetscInt L = n - i - 1, idx = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  if (idx >= L * kb) return;
  PetscInt r = idx % L, c = idx / L, row = i + 1 + r;
  V[idx]     = row < i + c + 1 ? 0.0 : (row == i + c + 1 ? 1.0 : A[row + (i + c) * lda]);
}

namespace
{
/* dA[i + j n] = dA[j + i n] for i < j, by 32 x 32 tiles through shared memory (coalesced reads and writes) */
__global__ void MirrorLowerKernel(PetscInt n, PetscScalar *dA)
{
  __shared__ PetscScalar tile[32][33];
  const PetscInt bi = (PetscInt)blockIdx.x * 32, bj = (PetscInt)blockIdx.y * 32; /* target tile: rows bi.., columns bj.. */
  if (bi > bj + 31) return;                                                       /* wholly below the diagonal */
  /* source: rows bj.., columns bi.. (the transposed tile), read along its columns */
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {
    const PetscInt r = bj + threadIdx.x, c = bi + k;
    if (r < n && c < n) tile[k][threadIdx.x] = dA[r + c * n];
  }
  __syncthreads();
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {
    const PetscInt r = bi + threadIdx.x, c = bj + k; /* target entry (r, c) = source (c, r) = tile[r - bi][c - bj] */
    if (r < n && c < n && r < c) dA[r + c * n] = tile[threadIdx.x][k];
  }
}
} // namespace

PetscErrorCode upload_symmetric(PetscInt n, const PetscScalar *A, PetscInt lda, PetscScalar *dA)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMemcpy2DAsync(dA, (size_t)n * sizeof(PetscScalar), A, (size_t)lda * sizeof(PetscScalar), (size_t)n * sizeof(PetscScalar), (size_t)n, cudaMemcpyHostToDevice, s));
  const unsigned nt = (unsigned)((n + 31) / 32);
  MirrorLowerKernel<<<dim3(nt, nt), dim3(32, 8), 0, s>>>(n, dA);
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::MirrorLowerKernel");
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode create(PetscInt n, const Options &o, Work **w)
{
  PetscFunctionBegin;
  PetscCheck(o.b >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Panel width %d", o.b);
  *w      = new Work;
  Work *W = *w;
  W->n    = n;
  W->o    = o;
  size_t nn = (size_t)PetscMax(n, 1);
  PetscCall(PGXCUDAGetStream(&W->s0));
  PGXCallCUDA(cudaStreamCreateWithFlags(&W->s1, cudaStreamNonBlocking));
  PGXCallCUDA(cudaEventCreateWithFlags(&W->ev0, cudaEventDisableTiming));
  PGXCallCUDA(cudaEventCreateWithFlags(&W->ev1, cudaEventDisableTiming));
  PGXCallCUDA(cudaMalloc((void **)&W->M, nn * 2 * (o.b + 1) * sizeof(double))); /* the last panel may have b + 1 columns */
  PGXCallCUDA(cudaMalloc((void **)&W->N, nn * 2 * (o.b + 1) * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&W->y, nn * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&W->t, 2 * (size_t)o.b * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&W->tau, nn * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&W->e, nn * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&W->d, nn * sizeof(double)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode destroy(Work **w)
{
  PetscFunctionBegin;
  if (!*w) PetscFunctionReturn(PETSC_SUCCESS);
  Work *W = *w;
  for (double *p : {W->M, W->N, W->y, W->t, W->tau, W->e, W->d})
    if (p) PGXCallCUDA(cudaFree(p));
  if (W->ev0) PGXCallCUDA(cudaEventDestroy(W->ev0));
  if (W->ev1) PGXCallCUDA(cudaEventDestroy(W->ev1));
  if (W->s1) PGXCallCUDA(cudaStreamDestroy(W->s1));
  delete W;
  *w = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
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

PetscErrorCode reduce(Work *W, PetscScalar *dA, PetscReal *d, PetscReal *e, PetscScalar *tau)
{
  cublasHandle_t h;
  PetscInt       n = W->n, b = W->o.b, j = 0;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  while (n - j > 1) {
    PetscInt m = n - j, nb = m > b + 1 ? b : m;
    double  *A = dA + j + j * n;
    PetscCall(Panel(W, h, m, nb, A, n, W->e + j, W->tau + j));
    if (nb < m) {
      int mt = (int)(m - nb);
      if (W->o.rank2b) PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, mt, mt, 2 * (int)nb, &mone, W->M + nb, (int)n, W->N + nb, (int)n, &one, A + nb + nb * n, (int)n));
      else {
        PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, mt, mt, (int)nb, &mone, W->M + nb, (int)(2 * n), W->M + nb + n, (int)(2 * n), &one, A + nb + nb * n, (int)n));
        PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, mt, mt, (int)nb, &mone, W->M + nb + n, (int)(2 * n), W->M + nb, (int)(2 * n), &one, A + nb + nb * n, (int)n));
      }
    }
    PetscInt ns = PetscMin(nb, m - 1);
    k_set_subdiag<<<PGXCUDAGridSize(ns, 128), 128, 0, W->s0>>>(ns, A, n, W->e + j);
    PGXCheckLaunch("k_set_subdiag");
    j += nb;
  }
  if (n > 0) PGXCallCUBLAS(cublasDcopy(h, (int)n, dA, (int)(n + 1), W->d, 1));
  PGXCallCUDA(cudaMemcpyAsync(d, W->d, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, W->s0));
  if (n > 1) {
    PGXCallCUDA(cudaMemcpyAsync(e, W->e, (size_t)(n - 1) * sizeof(double), cudaMemcpyDeviceToHost, W->s0));
    PGXCallCUDA(cudaMemcpyAsync(tau, W->tau, (size_t)(n - 1) * sizeof(double), cudaMemcpyDeviceToHost, W->s0));
  }
  PGXCallCUDA(cudaStreamSynchronize(W->s0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode apply_q(Work *W, int trans, const PetscScalar *dA, const PetscScalar *tau, PetscInt k, PetscScalar *dZ)
{
  cublasHandle_t h;
  PetscInt       n = W->n, b = W->o.b, nr = n - 1;
  double        *V = nullptr, *G = nullptr, *Tb = nullptr, *Y = nullptr;

  PetscFunctionBegin;
  if (nr <= 0 || k <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  pgx::cuda::DeviceArray<double> dV, dG, dT, dY;
  PetscCall(dV.resize((size_t)n * b));
  PetscCall(dG.resize((size_t)b * b));
  PetscCall(dT.resize((size_t)b * b));
  PetscCall(dY.resize((size_t)b * k));
  V = dV.data(), G = dG.data(), Tb = dT.data(), Y = dY.data();
  std::vector<double> hG((size_t)b * b), hT((size_t)b * b);
  PetscInt nblk = (nr + b - 1) / b;
  for (PetscInt s = 0; s < nblk; s++) {
    PetscInt blk = trans ? s : nblk - 1 - s, i = blk * b, kb = PetscMin(b, nr - i), L = n - i - 1;
    k_build_v<<<PGXCUDAGridSize(L * kb, 256), 256, 0, W->s0>>>(n, i, kb, dA, n, V);
    PGXCheckLaunch("k_build_v");
    /* Tb from the Gram matrix G = V^T V (host, kb x kb): Tb(0:c,c) = -tau_c Tb(0:c,0:c) G(0:c,c) */
    PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)kb, (int)kb, (int)L, &one, V, (int)L, V, (int)L, &zero, G, (int)kb));
    PGXCallCUDA(cudaMemcpyAsync(hG.data(), G, (size_t)kb * kb * sizeof(double), cudaMemcpyDeviceToHost, W->s0));
    PGXCallCUDA(cudaStreamSynchronize(W->s0));
    for (PetscInt c = 0; c < kb; c++) {
      for (PetscInt r = 0; r < c; r++) {
        double sum = 0;
        for (PetscInt q = r; q < c; q++) sum += hT[r + q * kb] * hG[q + c * kb];
        hT[r + c * kb] = -tau[i + c] * sum;
      }
      hT[c + c * kb] = tau[i + c];
      for (PetscInt r = c + 1; r < kb; r++) hT[r + c * kb] = 0;
    }
    PGXCallCUDA(cudaMemcpyAsync(Tb, hT.data(), (size_t)kb * kb * sizeof(double), cudaMemcpyHostToDevice, W->s0));
    /* Y = V^T Z; Y = Tb Y (or Tb^T Y); Z -= V Y */
    double *Zi = dZ + i + 1;
    PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)kb, (int)k, (int)L, &one, V, (int)L, Zi, (int)n, &zero, Y, (int)kb));
    PGXCallCUBLAS(cublasDtrmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, trans ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, (int)kb, (int)k, &one, Tb, (int)kb, Y, (int)kb, Y, (int)kb));
    PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)L, (int)k, (int)kb, &mone, V, (int)L, Y, (int)kb, &one, Zi, (int)n));
    /* hT is reused by the next block: wait until the copy has left it */
    PGXCallCUDA(cudaStreamSynchronize(W->s0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
struct Work {
  int unused;
};
PetscErrorCode create(PetscInt, const Options &, Work **)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of PGXSytrd supports real double precision only; use -pgx_device host");
}
PetscErrorCode destroy(Work **w)
{
  *w = nullptr;
  return PETSC_SUCCESS;
}
PetscErrorCode reduce(Work *, PetscScalar *, PetscReal *, PetscReal *, PetscScalar *)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of PGXSytrd supports real double precision only");
}
PetscErrorCode apply_q(Work *, int, const PetscScalar *, const PetscScalar *, PetscInt, PetscScalar *)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of PGXSytrd supports real double precision only");
}
#endif
} // namespace cuda
} // namespace sytrd
} // namespace kernels
} // namespace pgx
