/* CUDA kernels of the Hermitian tridiagonal reduction (sytrd_kernels.h) for complex double scalars: the launch
   sequence of the one-stage blocked reduction (LAPACK zhetrd/zlatrd, lower) with cuBLAS Z-calls, and the compact
   WY back-transformation. The real double backend (sytrd_kernels.cu) has, beside the same sequence, the fused
   panel; here the panel is always the launch sequence (Options::fused is ignored, fused_grid() gives 0).

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
   The back-transformation: blocks of reflectors as I - V Tb V^H (zlarft: Tb from the Gram matrix V^H V), Z <- Q Z
   with Y = V^H Z, Y = Tb Y, Z -= V Y (Tb^H for Q^H). PetscScalar is thrust::complex<double> here (PETSc's headers
   under nvcc), the layout of cuDoubleComplex and of the host's std::complex<double> (the interface's Scalar, see
   sytrd_kernels.h: the arrays are reinterpreted). */
#include <pgx/private/pgxcuda.h>
#include "../sytrd_kernels.h"

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

struct Work {
  PetscInt     n = 0;
  Options      o;
  Cx          *M = nullptr, *N = nullptr, *y = nullptr, *t = nullptr, *tau = nullptr;
  double      *e = nullptr, *d = nullptr;
  cudaStream_t s0 = nullptr, s1 = nullptr; /* s0: PGX's stream; s1: the Hermitian product */
  cudaEvent_t  ev0 = nullptr, ev1 = nullptr;
};

constexpr int BLOCK = 256;

static inline const cuDoubleComplex *BL(const Cx *p)
{
  return reinterpret_cast<const cuDoubleComplex *>(p);
}
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

/* A(k+1, k) <- e[k] for the panel's columns */
__global__ void k_set_subdiag(PetscInt nb, Cx *A, PetscInt lda, const double *e)
{
  PetscInt k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nb) A[k + 1 + k * lda] = Cx(e[k], 0.0);
}

/* d = Re diag(A), the diagonal made real */
__global__ void k_diag(PetscInt n, Cx *A, double *d)
{
  PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  if (i < n) {
    double r          = A[i + i * n].real();
    d[i]              = r;
    A[i + i * n] = Cx(r, 0.0);
  }
}

/* V (L x kb, ld L) of reflectors i..i+kb-1, rows i+1..n-1: 0 above the unit, 1, then the stored entries */
__global__ void k_build_v(PetscInt n, PetscInt i, PetscInt kb, const Cx *A, PetscInt lda, Cx *V)
{
  PetscInt L = n - i - 1, idx = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  if (idx >= L * kb) return;
  PetscInt r = idx % L, c = idx / L, row = i + 1 + r;
  V[idx]     = row < i + c + 1 ? Cx(0.0, 0.0) : (row == i + c + 1 ? Cx(1.0, 0.0) : A[row + (i + c) * lda]);
}

/* Tb of each block of b reflectors from G = V^H V (zlarft, forward, columnwise): Tb(c,c) = tau_c,
   Tb(0:c,c) = -tau_c Tb(0:c,0:c) G(0:c,c); one thread block per reflector block */
__global__ void k_larft(int b, PetscInt nr, const Cx *Gall, const Cx *tauall, Cx *Tall)
{
  const PetscInt i  = (PetscInt)blockIdx.x * b;
  const int      kb = (int)(nr - i < b ? nr - i : b);
  const Cx      *G = Gall + (size_t)blockIdx.x * b * b, *tau = tauall + i;
  Cx            *Tb = Tall + (size_t)blockIdx.x * b * b;
  for (int c = 0; c < kb; c++) {
    const Cx tc = tau[c];
    for (int r = threadIdx.x; r < kb; r += blockDim.x) {
      Cx v = Cx(0.0, 0.0);
      if (r < c) {
        Cx sum = Cx(0.0, 0.0);
        for (int q = r; q < c; q++) sum += Tb[r + (size_t)q * kb] * G[q + (size_t)c * kb];
        v = -tc * sum;
      } else if (r == c) v = tc;
      Tb[r + (size_t)c * kb] = v;
    }
    __syncthreads();
  }
}

/* Z (real, count entries) -> complex */
__global__ void k_real_to_complex(size_t count, const double *src, Cx *dst)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) dst[i] = Cx(src[i], 0.0);
}

namespace
{
/* dA[i + j n] = conj(dA[j + i n]) for i < j, by 32 x 32 tiles through shared memory */
__global__ void MirrorLowerKernel(PetscInt n, Cx *dA)
{
  __shared__ Cx  tile[32][33];
  const PetscInt bi = (PetscInt)blockIdx.x * 32, bj = (PetscInt)blockIdx.y * 32;
  if (bi > bj + 31) return;
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {
    const PetscInt r = bj + threadIdx.x, c = bi + k;
    if (r < n && c < n) tile[k][threadIdx.x] = dA[r + c * n];
  }
  __syncthreads();
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {
    const PetscInt r = bi + threadIdx.x, c = bj + k;
    if (r < n && c < n && r < c) dA[r + c * n] = thrust::conj(tile[threadIdx.x][k]);
  }
}

/* dA(i, j) = a_ij for the CSR entries with j <= i: one warp a row */
__global__ void ScatterLowerCSRKernel(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const Cx *vals, Cx *dA)
{
  const PetscInt i = ((PetscInt)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int      l = threadIdx.x % 32;
  if (i >= n) return;
  for (PetscInt k = rowptr[i] + l; k < rowptr[i + 1]; k += 32) {
    const PetscInt j = colidx[k];
    if (j <= i) dA[i + j * n] = vals[k];
  }
}
} // namespace

PetscErrorCode upload_symmetric(PetscInt n, const Scalar *hA, PetscInt lda, Scalar *hdA)
{
  const Cx *A  = reinterpret_cast<const Cx *>(hA);
  Cx       *dA = reinterpret_cast<Cx *>(hdA);
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, dA, (void *)A, (size_t)n * sizeof(Cx), (size_t)n, (size_t)lda * sizeof(Cx), s, PETSC_FALSE));
  const unsigned nt = (unsigned)((n + 31) / 32);
  MirrorLowerKernel<<<dim3(nt, nt), dim3(32, 8), 0, s>>>(n, dA);
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::MirrorLowerKernel (complex)");
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode upload_symmetric_csr(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const Scalar *hvals, Scalar *hdA)
{
  const Cx *vals = reinterpret_cast<const Cx *>(hvals);
  Cx       *dA   = reinterpret_cast<Cx *>(hdA);
  cudaStream_t                     s;
  pgx::cuda::DeviceArray<PetscInt> drp, dci;
  pgx::cuda::DeviceArray<Cx>       dv;
  const PetscInt                      nnz = n > 0 ? rowptr[n] : 0;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMemsetAsync(dA, 0, (size_t)n * n * sizeof(Cx), s));
  PetscCall(drp.resize((size_t)n + 1));
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, drp.data(), (void *)rowptr, ((size_t)n + 1) * sizeof(PetscInt), 1, ((size_t)n + 1) * sizeof(PetscInt), s, PETSC_FALSE));
  if (nnz) {
    PetscCall(dci.resize((size_t)nnz));
    PetscCall(dv.resize((size_t)nnz));
    PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, dci.data(), (void *)colidx, (size_t)nnz * sizeof(PetscInt), 1, (size_t)nnz * sizeof(PetscInt), s, PETSC_FALSE));
    PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, dv.data(), (void *)vals, (size_t)nnz * sizeof(Cx), 1, (size_t)nnz * sizeof(Cx), s, PETSC_FALSE));
    ScatterLowerCSRKernel<<<PGXCUDAGridSize(n * 32, 256), 256, 0, s>>>(n, drp.data(), dci.data(), dv.data(), dA);
    PGXCheckLaunch("pgx::kernels::sytrd::cuda::ScatterLowerCSRKernel (complex)");
  }
  const unsigned nt = (unsigned)((n + 31) / 32);
  MirrorLowerKernel<<<dim3(nt, nt), dim3(32, 8), 0, s>>>(n, dA);
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::MirrorLowerKernel (complex, CSR)");
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
  PGXCallCUDA(cudaMalloc((void **)&W->M, nn * 2 * (o.b + 1) * sizeof(Cx)));
  PGXCallCUDA(cudaMalloc((void **)&W->N, nn * 2 * (o.b + 1) * sizeof(Cx)));
  PGXCallCUDA(cudaMalloc((void **)&W->y, nn * sizeof(Cx)));
  PGXCallCUDA(cudaMalloc((void **)&W->t, 2 * (size_t)(o.b + 1) * sizeof(Cx)));
  PGXCallCUDA(cudaMalloc((void **)&W->tau, nn * sizeof(Cx)));
  PGXCallCUDA(cudaMalloc((void **)&W->e, nn * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&W->d, nn * sizeof(double)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode fused_grid(const Work *, int *g)
{
  *g = 0; /* the fused panel is real double only */
  return PETSC_SUCCESS;
}

PetscErrorCode destroy(Work **w)
{
  PetscFunctionBegin;
  if (!*w) PetscFunctionReturn(PETSC_SUCCESS);
  Work *W = *w;
  for (void *p : {(void *)W->M, (void *)W->N, (void *)W->y, (void *)W->t, (void *)W->tau, (void *)W->e, (void *)W->d})
    if (p) PGXCallCUDA(cudaFree(p));
  if (W->ev0) PGXCallCUDA(cudaEventDestroy(W->ev0));
  if (W->ev1) PGXCallCUDA(cudaEventDestroy(W->ev1));
  if (W->s1) PGXCallCUDA(cudaStreamDestroy(W->s1));
  delete W;
  *w = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
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

PetscErrorCode reduce(Work *W, Scalar *hdA, PetscReal *d, PetscReal *e, Scalar *tau)
{
  Cx            *dA = reinterpret_cast<Cx *>(hdA);
  cublasHandle_t h;
  PetscInt       n = W->n, b = W->o.b, j = 0;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  PGXCallCUBLAS(cublasSetStream(h, W->s0));
  while (n - j > 1) {
    PetscInt m = n - j, nb = m > b + 1 ? b : m;
    Cx      *A = dA + j + j * n;
    PetscCall(Panel(W, h, m, nb, A, n, W->e + j, W->tau + j));
    if (nb < m) {
      /* A22 -= M N^H: the full square for the full product, else only the lower part by column blocks */
      const int mt = (int)(m - nb), cw = W->o.symv == SYMV_FULL ? mt : 1024;
      for (int c0 = 0; c0 < mt; c0 += cw) {
        const int cb = PetscMin(cw, mt - c0), rb = W->o.symv == SYMV_FULL ? mt : mt - c0, r0 = W->o.symv == SYMV_FULL ? 0 : c0;
        Cx       *C = A + nb + r0 + (nb + c0) * n;
        if (W->o.rank2b) PGXCallCUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, rb, cb, 2 * (int)nb, &cmone, BL(W->M + nb + r0), (int)n, BL(W->N + nb + c0), (int)n, &cone, BL(C), (int)n));
        else {
          PGXCallCUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, rb, cb, (int)nb, &cmone, BL(W->M + nb + r0), (int)(2 * n), BL(W->M + nb + c0 + n), (int)(2 * n), &cone, BL(C), (int)n));
          PGXCallCUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, rb, cb, (int)nb, &cmone, BL(W->M + nb + r0 + n), (int)(2 * n), BL(W->M + nb + c0), (int)(2 * n), &cone, BL(C), (int)n));
        }
      }
    }
    PetscInt ns = PetscMin(nb, m - 1);
    k_set_subdiag<<<PGXCUDAGridSize(ns, 128), 128, 0, W->s0>>>(ns, A, n, W->e + j);
    PGXCheckLaunch("k_set_subdiag (complex)");
    j += nb;
  }
  if (n > 0) {
    k_diag<<<PGXCUDAGridSize(n, 256), 256, 0, W->s0>>>(n, dA, W->d);
    PGXCheckLaunch("k_diag (complex)");
  }
  PGXCallCUDA(cudaMemcpyAsync(d, W->d, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, W->s0));
  if (n > 1) {
    PGXCallCUDA(cudaMemcpyAsync(e, W->e, (size_t)(n - 1) * sizeof(double), cudaMemcpyDeviceToHost, W->s0));
    PGXCallCUDA(cudaMemcpyAsync(tau, W->tau, (size_t)(n - 1) * sizeof(Cx), cudaMemcpyDeviceToHost, W->s0));
  }
  PGXCallCUDA(cudaStreamSynchronize(W->s0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The back-transformation's blocks: nblk blocks of b reflectors (the last one kb = nr - i), block blk from i = blk b */
struct BackBlocks {
  PetscInt                   n, b, nblk;
  pgx::cuda::DeviceArray<Cx> V, G, T, Y;
};

static PetscErrorCode BackSetUp(Work *W, cublasHandle_t h, const Cx *dA, PetscInt ky, BackBlocks *B)
{
  const PetscInt n = W->n, nr = n - 1;

  PetscFunctionBegin;
  B->n    = n;
  B->b    = PetscMin(W->o.bback > 0 ? W->o.bback : W->o.b, nr);
  B->nblk = (nr + B->b - 1) / B->b;
  PetscCall(B->V.resize((size_t)n * B->b));
  PetscCall(B->G.resize((size_t)B->nblk * B->b * B->b));
  PetscCall(B->T.resize((size_t)B->nblk * B->b * B->b));
  PetscCall(B->Y.resize((size_t)B->b * ky));
  for (PetscInt blk = 0; blk < B->nblk; blk++) {
    const PetscInt i = blk * B->b, kb = PetscMin(B->b, nr - i), L = n - i - 1;
    k_build_v<<<PGXCUDAGridSize(L * kb, 256), 256, 0, W->s0>>>(n, i, kb, dA, n, B->V.data());
    PGXCheckLaunch("k_build_v (complex)");
    PGXCallCUBLAS(cublasZgemm(h, CUBLAS_OP_C, CUBLAS_OP_N, (int)kb, (int)kb, (int)L, &cone, BL(B->V.data()), (int)L, BL(B->V.data()), (int)L, &czero, BL(B->G.data() + (size_t)blk * B->b * B->b), (int)kb));
  }
  k_larft<<<(unsigned)B->nblk, 256, 0, W->s0>>>((int)B->b, nr, B->G.data(), W->tau, B->T.data());
  PGXCheckLaunch("k_larft (complex)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BackApply(Work *W, cublasHandle_t h, const Cx *dA, int trans, BackBlocks *B, PetscInt k, Cx *dZ)
{
  const PetscInt n = B->n, nr = n - 1;
  Cx            *V = B->V.data(), *Y = B->Y.data();

  PetscFunctionBegin;
  for (PetscInt s = 0; s < B->nblk; s++) {
    const PetscInt blk = trans ? s : B->nblk - 1 - s, i = blk * B->b, kb = PetscMin(B->b, nr - i), L = n - i - 1;
    const Cx      *Tb = B->T.data() + (size_t)blk * B->b * B->b;
    Cx            *Zi = dZ + i + 1;
    k_build_v<<<PGXCUDAGridSize(L * kb, 256), 256, 0, W->s0>>>(n, i, kb, dA, n, V);
    PGXCheckLaunch("k_build_v (complex)");
    PGXCallCUBLAS(cublasZgemm(h, CUBLAS_OP_C, CUBLAS_OP_N, (int)kb, (int)k, (int)L, &cone, BL(V), (int)L, BL(Zi), (int)n, &czero, BL(Y), (int)kb));
    PGXCallCUBLAS(cublasZtrmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, trans ? CUBLAS_OP_C : CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, (int)kb, (int)k, &cone, BL(Tb), (int)kb, BL(Y), (int)kb, BL(Y), (int)kb));
    PGXCallCUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)L, (int)k, (int)kb, &cmone, BL(V), (int)L, BL(Y), (int)kb, &cone, BL(Zi), (int)n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode apply_q(Work *W, int trans, const Scalar *hdA, PetscInt k, Scalar *hdZ)
{
  const Cx      *dA = reinterpret_cast<const Cx *>(hdA);
  Cx            *dZ = reinterpret_cast<Cx *>(hdZ);
  cublasHandle_t h;
  BackBlocks     B;

  PetscFunctionBegin;
  if (W->n - 1 <= 0 || k <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  PGXCallCUBLAS(cublasSetStream(h, W->s0));
  PetscCall(BackSetUp(W, h, dA, k, &B));
  PetscCall(BackApply(W, h, dA, trans, &B, k, dZ));
  PGXCallCUDA(cudaStreamSynchronize(W->s0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode apply_q_download(Work *W, const Scalar *hdA, PetscInt k, Scalar *hdZ, Scalar *hZ, PetscInt ldz, PetscInt nchunks)
{
  const Cx      *dA = reinterpret_cast<const Cx *>(hdA);
  Cx            *dZ = reinterpret_cast<Cx *>(hdZ), *Z = reinterpret_cast<Cx *>(hZ);
  cublasHandle_t h = nullptr;
  BackBlocks     B;
  const PetscInt n = W->n;
  PetscInt       kc, p0 = 0, pk = 0;

  PetscFunctionBegin;
  if (n <= 0 || k <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  nchunks = PetscMax(1, PetscMin(nchunks, k));
  kc      = (k + nchunks - 1) / nchunks;
  if (n - 1 > 0) {
    PetscCall(PGXCUDAGetCUBLAS(&h));
    PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    PGXCallCUBLAS(cublasSetStream(h, W->s0));
    PetscCall(BackSetUp(W, h, dA, kc, &B));
  }
  /* as the real backend: chunk c computed on s0, downloaded on s1 after chunk c + 1 is queued */
  for (PetscInt c = 0, c0 = 0; c0 < k; c++, c0 += kc) {
    const PetscInt kk = PetscMin(kc, k - c0);
    cudaEvent_t    ev = c % 2 ? W->ev1 : W->ev0;
    if (n - 1 > 0) PetscCall(BackApply(W, h, dA, 0, &B, kk, dZ + (size_t)c0 * n));
    PGXCallCUDA(cudaEventRecord(ev, W->s0));
    if (pk) PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, dZ + (size_t)p0 * n, Z + (size_t)p0 * ldz, (size_t)n * sizeof(Cx), (size_t)pk, (size_t)ldz * sizeof(Cx), W->s1, PETSC_TRUE));
    PGXCallCUDA(cudaStreamWaitEvent(W->s1, ev, 0));
    p0 = c0;
    pk = kk;
  }
  PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, dZ + (size_t)p0 * n, Z + (size_t)p0 * ldz, (size_t)n * sizeof(Cx), (size_t)pk, (size_t)ldz * sizeof(Cx), W->s1, PETSC_TRUE));
  PGXCallCUDA(cudaStreamSynchronize(W->s0));
  PetscFunctionReturn(PETSC_SUCCESS);
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
