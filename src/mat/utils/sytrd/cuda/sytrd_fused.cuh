/* The fused panel of the Hermitian tridiagonal reduction (Options::fused) and the reduction's driver (the panels, the
   trailing updates, T to the host), templated on the device scalar T (double, or thrust::complex<double>). The fused
   panel: one cooperative launch per panel, every block resident, three grid synchronizations
   per column instead of the ~10 dependent launches of the launch sequence. Used by the real (sytrd_kernels.cu) and the
   complex (hetrd_kernels.cu) backends. Per column i (rows relative to the panel's trailing matrix, M = [v0 w0 v1 w1
   ...], N = [w0 v0 w1 v1 ...], both ld n; ^H is ^T for real scalars and conj() the identity):
   A  rows r >= i, 32 per row tile (lane = row, the 8 warps share the 2i columns): first w_{i-1}(r) = tau y'(r) +
      alpha v_{i-1}(r) is finished and stored into M and N (the previous column's last step); then
      x(r) = A(r,i) - M(r,0:2i) conj(N(i,0:2i))^T (N's row i from the stored rows and, for its last two entries,
      w_{i-1}(i) and v_{i-1}(i) recomputed by every block), stored into A(r,i) (the diagonal entry made real); the sum
      of |x(i+2:)|^2 and tx = M(i+2:,0:2i)^H x(i+2:) are accumulated (per block, then one atomic per block), y(i+1:)
      zeroed.
   B  every block forms the same beta (real), tau and scale from the sums (LAPACK xlarfg); y = A22 v with v = [1;
      scale x(i+2:)] formed on the fly, by 64 x 64 tiles of the lower triangle (each element read once, used for its
      row and, conjugated, for its column; atomics into y; the diagonal read as real, as xhemv does).
   C  rows r >= i+1: t = conj(M(i+1,:))^T + scale tx; y'(r) = y(r) - N(r,0:2i) t; v(r) into M, N and A (A(i+1,i) =
      beta); y' kept in y; the dot y'^H v accumulated (alpha = -|tau|^2/2 y'^H v for the next column's first step).
   After the last column the final w is stored. Cross-block data are read through L2 (__ldcg). The operations are
   those of the launch sequence (merged gemvs, lower product), in another summation order.

   The tiles of the product go to the blocks round-robin (tile g, g + G, ...). A variant giving each block a
   contiguous range of tiles and keeping its row sums across a block row (half the atomics) was measured 1.6x slower
   on the H100 at n = 8192 and 16384 (bench/results/2026-11-24-gpu-s5/call4-sytrd-ab.txt) and removed. */
#pragma once
#include "sytrd_common.cuh"
#include <cooperative_groups.h>
#include <type_traits>

namespace pgx
{
namespace kernels
{
namespace sytrd
{
namespace cuda
{
namespace fused
{
using namespace common;
constexpr int NT = 256, NW = NT / 32, TS = 64, TY = NT / TS, CPT = TS / TY; /* CPT: columns of a tile per thread */

template <typename T>
struct Args {
  int      m, nb, c2max;
  PetscInt lda, ld;
  T       *A, *M, *N, *y, *tau;
  double  *e;
  T       *acc; /* sums of squares (real parts), dot products and M^H x, by column parity */
};

template <typename T>
__global__ void __launch_bounds__(NT) k_panel(Args<T> p)
{
  namespace cg           = cooperative_groups;
  typedef typename Shared<T>::type S;
  constexpr bool   cplx = !std::is_same<T, double>::value;
  cg::grid_group   grid = cg::this_grid();
  extern __shared__ __align__(16) double smraw[];
  T                       *sN = reinterpret_cast<T *>(smraw), *sT = sN + p.c2max, *sTx = sN + 2 * p.c2max;
  __shared__ S             red[NW][33], sx[32], vI[TS], vJ[TS], cs[NW][CPT], rs[TY][TS];
  const int                lane = threadIdx.x & 31, warp = threadIdx.x >> 5, m = p.m;
  const PetscInt           lda = p.lda, ld = p.ld;
  T *const                 A = p.A, *const M = p.M, *const N = p.N, *const y = p.y;
  T                        tauprev = T(0.0), alphaprev = T(0.0);
  bool                     finishlast = false;

  for (int i = 0; i < p.nb; i++) {
    const int par = i & 1, c2 = 2 * i;
    T        *ss = p.acc + par, *dot = p.acc + 2 + par, *tx = p.acc + 4 + (size_t)par * p.c2max;
    /* ---- phase A */
    if (i > 0) {
      tauprev   = LdCg(p.tau + i - 1);
      alphaprev = -0.5 * tauprev * Conj(tauprev) * LdCg(p.acc + 2 + ((i - 1) & 1));
    }
    if (blockIdx.x == 0) { /* buffers of the next uses (their previous readers are past a grid sync) */
      T *txn = p.acc + 4 + (size_t)((i + 1) & 1) * p.c2max;
      for (int c = threadIdx.x; c < p.c2max; c += NT) txn[c] = T(0.0);
      if (threadIdx.x == 0) p.acc[(i + 1) & 1] = T(0.0), p.acc[2 + par] = T(0.0);
    }
    for (int c = threadIdx.x; c < c2; c += NT) {
      sTx[c] = T(0.0);
      if (c < c2 - 2) sN[c] = Conj(LdCg(N + i + c * ld));
    }
    if (i > 0 && threadIdx.x == 0) {
      const T vi = LdCg(M + i + (c2 - 2) * ld);
      sN[c2 - 2] = Conj(tauprev * LdCg(y + i) + alphaprev * vi);
      sN[c2 - 1] = Conj(vi);
    }
    __syncthreads();
    double    ssacc = 0;
    const int len = m - i, nrt = (len + 31) / 32;
    for (int rt = blockIdx.x; rt < nrt; rt += gridDim.x) {
      const int  r = i + rt * 32 + lane;
      const bool valid = r < m;
      T          wr = T(0.0), part = T(0.0);
      if (valid && i > 0) wr = tauprev * LdCg(y + r) + alphaprev * LdCg(M + r + (c2 - 2) * ld);
      if (valid)
        for (int c = warp; c < c2; c += NW) part += (c == c2 - 1 ? wr : LdCg(M + r + c * ld)) * sN[c];
      As<T>(red[warp][lane]) = part;
      __syncthreads();
      if (warp == 0) {
        T x = T(0.0);
        if (valid) {
          x = LdCg(A + r + (PetscInt)i * lda);
          for (int w = 0; w < NW; w++) x -= As<T>(red[w][lane]);
          if (cplx && r == i) x = T(Re(x)); /* the diagonal entry made real, as the reflector kernel of the launches does */
          A[r + (PetscInt)i * lda] = x;
          if (i > 0) M[r + (c2 - 1) * ld] = wr, N[r + (c2 - 2) * ld] = wr;
          if (r >= i + 1) y[r] = T(0.0);
          if constexpr (cplx) {
            if (r >= i + 2) ssacc += Norm(x);
          } else if (r >= i + 2) ssacc += x * x; /* (a fused multiply-add: the real kernel's code as bench/results measured it) */
        }
        As<T>(sx[lane]) = (valid && r >= i + 2) ? x : T(0.0);
      }
      __syncthreads();
      for (int c = warp; c < c2; c += NW) {
        T v = T(0.0);
        if (valid) v = Conj(c == c2 - 1 ? wr : LdCg(M + r + c * ld)) * As<T>(sx[lane]);
        v = WarpSum(v);
        if (lane == 0) sTx[c] += v;
      }
      __syncthreads();
    }
    if (warp == 0) {
      ssacc = WarpSum(ssacc);
      if (lane == 0 && ssacc != 0) atomicAdd(reinterpret_cast<double *>(ss), ssacc);
    }
    for (int c = threadIdx.x; c < c2; c += NT)
      if (sTx[c] != T(0.0)) AtomicAdd(tx + c, sTx[c]);
    grid.sync();
    const int L = m - i - 1;
    if (L <= 0) break; /* uniform: the last column of the last panel has no reflector */
    /* ---- phase B */
    const double s = __ldcg(reinterpret_cast<const double *>(ss));
    const T      ax = LdCg(A + (i + 1) + (PetscInt)i * lda);
    T            beta = ax, tau = T(0.0), scal = T(0.0);
    const bool   refl = s != 0 || Im(ax) != 0; /* uniform */
    if (refl) {
      const double b = -copysign(sqrt(Norm(ax) + s), Re(ax));
      beta           = T(b);
      scal           = 1.0 / (ax - b);
      tau            = (b - ax) / b;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) p.tau[i] = tau, p.e[i] = Re(beta);
    if (refl) {
      const T       *A22 = A + (i + 1) + (PetscInt)(i + 1) * lda, *xc = A + (i + 1) + (PetscInt)i * lda;
      const PetscInt Tn = (L + TS - 1) / TS, ntiles = Tn * (Tn + 1) / 2;
      const int      ttx = threadIdx.x % TS, tty = threadIdx.x / TS;
      for (PetscInt b = blockIdx.x; b < ntiles; b += gridDim.x) {
        PetscInt I = (PetscInt)((sqrt(8.0 * (double)b + 1.0) - 1.0) / 2.0);
        while (I * (I + 1) / 2 > b) I--;
        while ((I + 1) * (I + 2) / 2 <= b) I++;
        const PetscInt J = b - I * (I + 1) / 2, r0 = I * TS, c0 = J * TS;
        __syncthreads(); /* vI, vJ, cs, rs of the previous tile are consumed */
        if (threadIdx.x < TS) {
          const PetscInt k      = r0 + threadIdx.x;
          As<T>(vI[threadIdx.x]) = k < L ? (k == 0 ? T(1.0) : scal * LdCg(xc + k)) : T(0.0);
        } else if (threadIdx.x < 2 * TS) {
          const PetscInt k           = c0 + threadIdx.x - TS;
          As<T>(vJ[threadIdx.x - TS]) = k < L ? (k == 0 ? T(1.0) : scal * LdCg(xc + k)) : T(0.0);
        }
        __syncthreads();
        const PetscInt r   = r0 + ttx;
        const bool     rin = r < L;
        T              a[CPT], rowacc = T(0.0);
#pragma unroll
        for (int k = 0; k < CPT; k++) {
          const PetscInt c = c0 + tty * CPT + k;
          a[k]             = (rin && c < L && (I != J || r >= c)) ? A22[r + c * lda] : T(0.0);
          if (cplx && I == J && r == c) a[k] = T(Re(a[k])); /* the diagonal as real, as xhemv reads it */
        }
        const T vi = As<T>(vI[ttx]);
#pragma unroll
        for (int k = 0; k < CPT; k++) {
          const PetscInt c = c0 + tty * CPT + k;
          rowacc += a[k] * As<T>(vJ[tty * CPT + k]);
          T cv = (I != J || r > c) ? Conj(a[k]) * vi : T(0.0);
          cv   = WarpSum(cv);
          if (lane == 0) As<T>(cs[warp][k]) = cv;
        }
        As<T>(rs[tty][ttx]) = rowacc;
        __syncthreads();
        if (threadIdx.x < TS) { /* row sums */
          T v = T(0.0);
          for (int q = 0; q < TY; q++) v += As<T>(rs[q][threadIdx.x]);
          if (r0 + threadIdx.x < L && v != T(0.0)) AtomicAdd(y + i + 1 + r0 + threadIdx.x, v);
        } else if (threadIdx.x < 2 * TS) { /* column sums (a diagonal tile's strict lower part only, masked above) */
          const int cc = threadIdx.x - TS, q = cc / CPT, k = cc % CPT;
          /* column cc is held by tile-thread row group q: warps 2q and 2q + 1 (rows 0..31, 32..63) */
          const T v = As<T>(cs[2 * q][k]) + As<T>(cs[2 * q + 1][k]);
          if (c0 + cc < L && v != T(0.0)) AtomicAdd(y + i + 1 + c0 + cc, v);
        }
      }
    }
    grid.sync();
    /* ---- phase C */
    for (int c = threadIdx.x; c < c2; c += NT) sT[c] = Conj(LdCg(M + (i + 1) + c * ld)) + scal * LdCg(tx + c);
    __syncthreads();
    T         dotacc = T(0.0);
    const int nrt2   = (L + 31) / 32;
    for (int rt = blockIdx.x; rt < nrt2; rt += gridDim.x) {
      const int  r = i + 1 + rt * 32 + lane;
      const bool valid = r < m;
      T          part = T(0.0);
      if (valid)
        for (int c = warp; c < c2; c += NW) part += LdCg(N + r + c * ld) * sT[c];
      As<T>(red[warp][lane]) = part;
      __syncthreads();
      if (warp == 0 && valid) {
        T yp = LdCg(y + r);
        for (int w = 0; w < NW; w++) yp -= As<T>(red[w][lane]);
        const T vr               = r == i + 1 ? T(1.0) : scal * LdCg(A + r + (PetscInt)i * lda);
        y[r]                     = yp;
        M[r + c2 * ld]           = vr;
        N[r + (c2 + 1) * ld]     = vr;
        A[r + (PetscInt)i * lda] = r == i + 1 ? beta : vr;
        dotacc += Conj(yp) * vr;
      }
      __syncthreads();
    }
    if (warp == 0) {
      dotacc = WarpSum(dotacc);
      if (lane == 0 && dotacc != T(0.0)) AtomicAdd(dot, dotacc);
    }
    finishlast = i == p.nb - 1;
    grid.sync();
  }
  if (finishlast) { /* w of the panel's last reflector (rows >= nb) */
    const int i = p.nb, c2 = 2 * i;
    const T   t = LdCg(p.tau + i - 1), al = -0.5 * t * Conj(t) * LdCg(p.acc + 2 + ((i - 1) & 1));
    for (int r = i + blockIdx.x * NT + threadIdx.x; r < m; r += gridDim.x * NT) {
      const T wr           = t * LdCg(y + r) + al * LdCg(M + r + (c2 - 2) * ld);
      M[r + (c2 - 1) * ld] = wr, N[r + (c2 - 2) * ld] = wr;
    }
  }
}

template <typename T>
inline size_t SharedBytes(int b)
{
  return (size_t)3 * 2 * (b + 1) * sizeof(T);
}

/* create(): the fused panel's grid (W->fgrid blocks, 0 when it cannot run) and its sums (W->acc) */
template <typename T, typename WorkT>
PetscErrorCode SetUp(WorkT *W)
{
  const Options &o = W->o;

  PetscFunctionBegin;
  W->fgrid = 0;
  if (o.fused > 0 && o.symv == SYMV_LOWER && o.merged) { /* the fused panel, when its blocks can all be resident */
    const cudaDeviceProp *prop;
    int                   occ = 0;
    PetscCall(PGXCUDAGetDeviceProperties(&prop));
    /* the compiler's registers (real: 78 on sm_90, 3 resident blocks per multiprocessor); an instance bounded to 64
       registers for 4 blocks spilled and ran 4-9% slower (bench/results/2026-11-24-gpu-s5/call5-sytrd-bpsm.txt) */
    PGXCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_panel<T>, NT, SharedBytes<T>(o.b)));
    if (prop->cooperativeLaunch && occ > 0) {
      W->fgrid = prop->multiProcessorCount * PetscMin(occ, o.fused);
      PGXCallCUDA(cudaMalloc((void **)&W->acc, (size_t)(4 + 4 * (o.b + 1)) * sizeof(T)));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one panel by the fused kernel (W->fgrid blocks, cooperative, on W->s0) */
template <typename T, typename WorkT>
PetscErrorCode Panel(WorkT *W, PetscInt m, PetscInt nb, T *A, PetscInt lda, double *e, T *tau)
{
  Args<T> a;

  PetscFunctionBegin;
  a.m     = (int)m;
  a.nb    = (int)nb;
  a.c2max = 2 * (W->o.b + 1);
  a.lda   = lda;
  a.ld    = W->n;
  a.A     = A;
  a.M     = W->M;
  a.N     = W->N;
  a.y     = W->y;
  a.tau   = tau;
  a.e     = e;
  a.acc   = W->acc;
  PGXCallCUDA(cudaMemsetAsync(W->acc, 0, (size_t)(4 + 2 * a.c2max) * sizeof(T), W->s0));
  void *args[] = {(void *)&a};
  PGXCallCUDA(cudaLaunchCooperativeKernel((const void *)k_panel<T>, dim3(W->fgrid), dim3(NT), args, SharedBytes<T>(W->o.b), W->s0));
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::fused::k_panel");
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* A(k+1, k) <- e[k] for the panel's columns */
template <typename T>
__global__ void SetSubdiagKernel(PetscInt nb, T *A, PetscInt lda, const double *e)
{
  PetscInt k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nb) A[k + 1 + k * lda] = T(e[k]);
}

/* d = Re diag(A); complex: the diagonal of A made real too (it is, up to round-off, for a Hermitian matrix) */
template <typename T>
__global__ void DiagKernel(PetscInt n, T *A, double *d)
{
  PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  if (i < n) {
    const double r = Re(A[i + i * n]);
    d[i]           = r;
    if constexpr (!std::is_same<T, double>::value) A[i + i * n] = T(r);
  }
}

/* reduce() of sytrd_kernels.h, both backends: per panel of b columns the fused kernel (W->fgrid > 0) or the
   backend's launch sequence (launches(W, h, m, nb, A, lda, e, tau)), then the trailing update A22 -= M N^H (rank2b:
   one gemm of inner dimension 2b, else two of b on the columns of M at stride 2): the full square for the full product
   (it reads the strict upper triangle), else only the columns' lower parts, by column blocks of 1024 (the rectangle
   from the block's diagonal down); d, e and tau come back to the host */
template <typename T, typename WorkT, typename Launches>
PetscErrorCode Reduce(WorkT *W, T *dA, PetscReal *d, PetscReal *e, T *tau, Launches launches)
{
  cublasHandle_t h;
  PetscInt       n = W->n, b = W->o.b, j = 0;
  constexpr int  UPD_COLS = 1024;
  const int      full     = W->o.symv == SYMV_FULL;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  PGXCallCUBLAS(cublasSetStream(h, W->s0));
  while (n - j > 1) {
    PetscInt m = n - j, nb = m > b + 1 ? b : m;
    T       *A = dA + j + j * n;
    if (W->fgrid > 0) PetscCall(fused::Panel(W, m, nb, A, n, W->e + j, W->tau + j));
    else PetscCall(launches(W, h, m, nb, A, n, W->e + j, W->tau + j));
    if (nb < m) {
      const int mt = (int)(m - nb), cw = full ? mt : UPD_COLS;
      for (int c0 = 0; c0 < mt; c0 += cw) {
        const int cb = PetscMin(cw, mt - c0), rb = full ? mt : mt - c0, r0 = full ? 0 : c0;
        T        *C = A + nb + r0 + (nb + c0) * n;
        if (W->o.rank2b) PGXCallCUBLAS(cublasXgemm(h, CUBLAS_OP_N, Traits<T>::OpH, rb, cb, 2 * (int)nb, -1.0, W->M + nb + r0, (int)n, W->N + nb + c0, (int)n, 1.0, C, (int)n));
        else {
          PGXCallCUBLAS(cublasXgemm(h, CUBLAS_OP_N, Traits<T>::OpH, rb, cb, (int)nb, -1.0, W->M + nb + r0, (int)(2 * n), W->M + nb + c0 + n, (int)(2 * n), 1.0, C, (int)n));
          PGXCallCUBLAS(cublasXgemm(h, CUBLAS_OP_N, Traits<T>::OpH, rb, cb, (int)nb, -1.0, W->M + nb + r0 + n, (int)(2 * n), W->M + nb + c0, (int)(2 * n), 1.0, C, (int)n));
        }
      }
    }
    PetscInt ns = PetscMin(nb, m - 1);
    SetSubdiagKernel<T><<<PGXCUDAGridSize(ns, 128), 128, 0, W->s0>>>(ns, A, n, W->e + j);
    PGXCheckLaunch("pgx::kernels::sytrd::cuda::fused::SetSubdiagKernel");
    j += nb;
  }
  if (n > 0) {
    DiagKernel<T><<<PGXCUDAGridSize(n, 256), 256, 0, W->s0>>>(n, dA, W->d);
    PGXCheckLaunch("pgx::kernels::sytrd::cuda::fused::DiagKernel");
  }
  PGXCallCUDA(cudaMemcpyAsync(d, W->d, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, W->s0));
  if (n > 1) {
    PGXCallCUDA(cudaMemcpyAsync(e, W->e, (size_t)(n - 1) * sizeof(double), cudaMemcpyDeviceToHost, W->s0));
    PGXCallCUDA(cudaMemcpyAsync(tau, W->tau, (size_t)(n - 1) * sizeof(T), cudaMemcpyDeviceToHost, W->s0));
  }
  PGXCallCUDA(cudaStreamSynchronize(W->s0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace fused
} // namespace cuda
} // namespace sytrd
} // namespace kernels
} // namespace pgx
