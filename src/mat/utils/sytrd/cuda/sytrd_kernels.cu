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
   of Z, each downloaded (pinned staging, host threads, a second stream) while the next one is computed. */
#include <pgx/private/pgxcuda.h>
#include "../sytrd_kernels.h"
#include <vector>
#include <cooperative_groups.h>

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
  double      *acc   = nullptr; /* fused panel: sums of squares, dot products and M^T x, by column parity */
  int          fgrid = 0;       /* fused panel: blocks of the cooperative launch (0: the launch sequence runs) */
  cudaStream_t s0 = nullptr, s1 = nullptr; /* s0: PGX's stream; s1: the symmetric product */
  cudaEvent_t  ev0 = nullptr, ev1 = nullptr;
};

static const double one = 1.0, mone = -1.0, zero = 0.0;
constexpr int BLOCK = 256, TILE = 32, TROWS = 8;
constexpr int UPD_COLS = 1024; /* column block of the lower-only trailing update */

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

/* dA(i, j) = a_ij for the CSR entries with j <= i: one warp a row (rows of a sparse operator are short) */
__global__ void ScatterLowerCSRKernel(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, PetscScalar *dA)
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

/* ---- The fused panel (Options::fused): one cooperative launch per panel, every block resident, three grid
   synchronizations per column instead of the ~10 dependent launches of Panel(). Per column i (rows relative to
   the panel's trailing matrix, M = [v0 w0 v1 w1 ...], N = [w0 v0 w1 v1 ...], both ld n):
   A  rows r >= i, 32 per row tile (lane = row, the 8 warps share the 2i columns): first w_{i-1}(r) = tau y'(r) +
      alpha v_{i-1}(r) is finished and stored into M and N (the previous column's last step); then
      x(r) = A(r,i) - M(r,0:2i) N(i,0:2i)^T (N's row i from the stored rows and, for its last two entries, w_{i-1}(i)
      and v_{i-1}(i) recomputed by every block), stored into A(r,i); the sum of squares of x(i+2:) and
      tx = M(i+2:,0:2i)^T x(i+2:) are accumulated (per block, then one atomic per block), y(i+1:) zeroed.
   B  every block forms the same beta, tau and scale from the sums (LAPACK dlarfg); y = A22 v with v = [1;
      scale x(i+2:)] formed on the fly, by 64 x 64 tiles of the lower triangle (each element read once, used
      for its row and its column, atomics into y).
   C  rows r >= i+1: t = M(i+1,:)^T + scale tx; y'(r) = y(r) - N(r,0:2i) t; v(r) into M, N and A (A(i+1,i) = beta);
      y' kept in y; the dot y'^T v accumulated (alpha = -tau^2/2 y'^T v for the next column's first step).
   After the last column the final w is stored. Cross-block data are read through L2 (__ldcg). The operations
   are those of Panel() (merged gemvs, lower symv), in another summation order. */
namespace fused
{
constexpr int NT = 256, NW = NT / 32, TS = 64, TY = NT / TS, CPT = TS / TY; /* CPT: columns of a tile per thread */

struct Args {
  int      m, nb, c2max;
  PetscInt lda, ld;
  double  *A, *M, *N, *y, *tau, *e, *acc;
};

__device__ inline double WarpSum(double v)
{
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

/* The tiles of the product go to the blocks round-robin (tile g, g + G, ...). A variant giving each block a
   contiguous range of tiles and keeping its row sums across a block row (half the atomics) was measured 1.6x slower
   on the H100 at n = 8192 and 16384 (bench/results/2026-11-24-gpu-s5/call4-sytrd-ab.txt) and removed. */
__global__ void __launch_bounds__(NT) k_panel(Args p)
{
  namespace cg = cooperative_groups;
  cg::grid_group   grid = cg::this_grid();
  extern __shared__ double sm[];
  double          *sN = sm, *sT = sm + p.c2max, *sTx = sm + 2 * p.c2max;
  __shared__ double red[NW][33], sx[32], vI[TS], vJ[TS], cs[NW][CPT], rs[TY][TS];
  const int        lane = threadIdx.x & 31, warp = threadIdx.x >> 5, m = p.m;
  const PetscInt   lda = p.lda, ld = p.ld;
  double *const    A = p.A, *const M = p.M, *const N = p.N, *const y = p.y;
  double           tauprev = 0, alphaprev = 0;
  bool             finishlast = false;

  for (int i = 0; i < p.nb; i++) {
    const int par = i & 1, c2 = 2 * i;
    double   *ss = p.acc + par, *dot = p.acc + 2 + par, *tx = p.acc + 4 + (size_t)par * p.c2max;
    /* ---- phase A */
    if (i > 0) {
      tauprev   = __ldcg(p.tau + i - 1);
      alphaprev = -0.5 * tauprev * tauprev * __ldcg(p.acc + 2 + ((i - 1) & 1));
    }
    if (blockIdx.x == 0) { /* buffers of the next uses (their previous readers are past a grid sync) */
      double *txn = p.acc + 4 + (size_t)((i + 1) & 1) * p.c2max;
      for (int c = threadIdx.x; c < p.c2max; c += NT) txn[c] = 0;
      if (threadIdx.x == 0) p.acc[(i + 1) & 1] = 0, p.acc[2 + par] = 0;
    }
    for (int c = threadIdx.x; c < c2; c += NT) {
      sTx[c] = 0;
      if (c < c2 - 2) sN[c] = __ldcg(N + i + c * ld);
    }
    if (i > 0 && threadIdx.x == 0) {
      const double vi = __ldcg(M + i + (c2 - 2) * ld);
      sN[c2 - 2]      = tauprev * __ldcg(y + i) + alphaprev * vi;
      sN[c2 - 1]      = vi;
    }
    __syncthreads();
    double    ssacc = 0;
    const int len = m - i, nrt = (len + 31) / 32;
    for (int rt = blockIdx.x; rt < nrt; rt += gridDim.x) {
      const int  r = i + rt * 32 + lane;
      const bool valid = r < m;
      double     wr = 0, part = 0;
      if (valid && i > 0) wr = tauprev * __ldcg(y + r) + alphaprev * __ldcg(M + r + (c2 - 2) * ld);
      if (valid)
        for (int c = warp; c < c2; c += NW) part += (c == c2 - 1 ? wr : __ldcg(M + r + c * ld)) * sN[c];
      red[warp][lane] = part;
      __syncthreads();
      if (warp == 0) {
        double x = 0;
        if (valid) {
          x = __ldcg(A + r + (PetscInt)i * lda);
          for (int w = 0; w < NW; w++) x -= red[w][lane];
          A[r + (PetscInt)i * lda] = x;
          if (i > 0) M[r + (c2 - 1) * ld] = wr, N[r + (c2 - 2) * ld] = wr;
          if (r >= i + 1) y[r] = 0;
          if (r >= i + 2) ssacc += x * x;
        }
        sx[lane] = (valid && r >= i + 2) ? x : 0;
      }
      __syncthreads();
      for (int c = warp; c < c2; c += NW) {
        double v = 0;
        if (valid) v = (c == c2 - 1 ? wr : __ldcg(M + r + c * ld)) * sx[lane];
        v = WarpSum(v);
        if (lane == 0) sTx[c] += v;
      }
      __syncthreads();
    }
    if (warp == 0) {
      ssacc = WarpSum(ssacc);
      if (lane == 0 && ssacc != 0) atomicAdd(ss, ssacc);
    }
    for (int c = threadIdx.x; c < c2; c += NT)
      if (sTx[c] != 0) atomicAdd(tx + c, sTx[c]);
    grid.sync();
    const int L = m - i - 1;
    if (L <= 0) break; /* uniform: the last column of the last panel has no reflector */
    /* ---- phase B */
    const double s = __ldcg(ss), ax = __ldcg(A + (i + 1) + (PetscInt)i * lda);
    double       beta = ax, tau = 0, scal = 0;
    if (s != 0) {
      beta = -copysign(sqrt(ax * ax + s), ax);
      scal = 1.0 / (ax - beta);
      tau  = (beta - ax) / beta;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) p.tau[i] = tau, p.e[i] = beta;
    if (s != 0) { /* uniform */
      const double  *A22 = A + (i + 1) + (PetscInt)(i + 1) * lda, *xc = A + (i + 1) + (PetscInt)i * lda;
      const PetscInt T = (L + TS - 1) / TS, ntiles = T * (T + 1) / 2;
      const int      ttx = threadIdx.x % TS, tty = threadIdx.x / TS;
      for (PetscInt b = blockIdx.x; b < ntiles; b += gridDim.x) {
        PetscInt I = (PetscInt)((sqrt(8.0 * (double)b + 1.0) - 1.0) / 2.0);
        while (I * (I + 1) / 2 > b) I--;
        while ((I + 1) * (I + 2) / 2 <= b) I++;
        const PetscInt J = b - I * (I + 1) / 2, r0 = I * TS, c0 = J * TS;
        __syncthreads(); /* vI, vJ, cs, rs of the previous tile are consumed */
        if (threadIdx.x < TS) {
          const PetscInt k = r0 + threadIdx.x;
          vI[threadIdx.x]  = k < L ? (k == 0 ? 1.0 : scal * __ldcg(xc + k)) : 0.0;
        } else if (threadIdx.x < 2 * TS) {
          const PetscInt k     = c0 + threadIdx.x - TS;
          vJ[threadIdx.x - TS] = k < L ? (k == 0 ? 1.0 : scal * __ldcg(xc + k)) : 0.0;
        }
        __syncthreads();
        const PetscInt r   = r0 + ttx;
        const bool     rin = r < L;
        double         a[CPT], rowacc = 0;
#pragma unroll
        for (int k = 0; k < CPT; k++) {
          const PetscInt c = c0 + tty * CPT + k;
          a[k]             = (rin && c < L && (I != J || r >= c)) ? A22[r + c * lda] : 0.0;
        }
        const double vi = vI[ttx];
#pragma unroll
        for (int k = 0; k < CPT; k++) {
          const PetscInt c = c0 + tty * CPT + k;
          rowacc += a[k] * vJ[tty * CPT + k];
          double cv = (I != J || r > c) ? a[k] * vi : 0.0;
          cv        = WarpSum(cv);
          if (lane == 0) cs[warp][k] = cv;
        }
        rs[tty][ttx] = rowacc;
        __syncthreads();
        if (threadIdx.x < TS) { /* row sums */
          double v = 0;
          for (int q = 0; q < TY; q++) v += rs[q][threadIdx.x];
          if (r0 + threadIdx.x < L && v != 0) atomicAdd(y + i + 1 + r0 + threadIdx.x, v);
        } else if (threadIdx.x < 2 * TS) { /* column sums (a diagonal tile's strict lower part only, masked above) */
          const int cc = threadIdx.x - TS, q = cc / CPT, k = cc % CPT;
          /* column cc is held by tile-thread row group q: warps 2q and 2q + 1 (rows 0..31, 32..63) */
          const double v = cs[2 * q][k] + cs[2 * q + 1][k];
          if (c0 + cc < L && v != 0) atomicAdd(y + i + 1 + c0 + cc, v);
        }
      }
    }
    grid.sync();
    /* ---- phase C */
    for (int c = threadIdx.x; c < c2; c += NT) sT[c] = __ldcg(M + (i + 1) + c * ld) + scal * __ldcg(tx + c);
    __syncthreads();
    double    dotacc = 0;
    const int nrt2   = (L + 31) / 32;
    for (int rt = blockIdx.x; rt < nrt2; rt += gridDim.x) {
      const int  r = i + 1 + rt * 32 + lane;
      const bool valid = r < m;
      double     part = 0;
      if (valid)
        for (int c = warp; c < c2; c += NW) part += __ldcg(N + r + c * ld) * sT[c];
      red[warp][lane] = part;
      __syncthreads();
      if (warp == 0 && valid) {
        double yp = __ldcg(y + r);
        for (int w = 0; w < NW; w++) yp -= red[w][lane];
        const double vr = r == i + 1 ? 1.0 : scal * __ldcg(A + r + (PetscInt)i * lda);
        y[r]              = yp;
        M[r + c2 * ld]    = vr;
        N[r + (c2 + 1) * ld] = vr;
        A[r + (PetscInt)i * lda] = r == i + 1 ? beta : vr;
        dotacc += yp * vr;
      }
      __syncthreads();
    }
    if (warp == 0) {
      dotacc = WarpSum(dotacc);
      if (lane == 0 && dotacc != 0) atomicAdd(dot, dotacc);
    }
    finishlast = i == p.nb - 1;
    grid.sync();
  }
  if (finishlast) { /* w of the panel's last reflector (rows >= nb) */
    const int    i = p.nb, c2 = 2 * i;
    const double t = __ldcg(p.tau + i - 1), al = -0.5 * t * t * __ldcg(p.acc + 2 + ((i - 1) & 1));
    for (int r = i + blockIdx.x * NT + threadIdx.x; r < m; r += gridDim.x * NT) {
      const double wr = t * __ldcg(y + r) + al * __ldcg(M + r + (c2 - 2) * ld);
      M[r + (c2 - 1) * ld] = wr, N[r + (c2 - 2) * ld] = wr;
    }
  }
}

static size_t SharedBytes(int b)
{
  return (size_t)3 * 2 * (b + 1) * sizeof(double);
}
} // namespace fused

/* one panel by the fused kernel (W->fgrid blocks, cooperative) */
static PetscErrorCode PanelFused(Work *W, PetscInt m, PetscInt nb, double *A, PetscInt lda, double *e, double *tau)
{
  fused::Args a;
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
  PGXCallCUDA(cudaMemsetAsync(W->acc, 0, (size_t)(4 + 2 * a.c2max) * sizeof(double), W->s0));
  void *args[] = {(void *)&a};
  PGXCallCUDA(cudaLaunchCooperativeKernel((const void *)fused::k_panel, dim3(W->fgrid), dim3(fused::NT), args, fused::SharedBytes(W->o.b), W->s0));
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::fused::k_panel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode upload_symmetric(PetscInt n, const PetscScalar *A, PetscInt lda, PetscScalar *dA)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  /* large matrices through pinned staging filled by host threads (-pgx_device_copy_*), ordered on s */
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, dA, (void *)A, (size_t)n * sizeof(PetscScalar), (size_t)n, (size_t)lda * sizeof(PetscScalar), s, PETSC_FALSE));
  const unsigned nt = (unsigned)((n + 31) / 32);
  MirrorLowerKernel<<<dim3(nt, nt), dim3(32, 8), 0, s>>>(n, dA);
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::MirrorLowerKernel");
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode upload_symmetric_csr(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *vals, PetscScalar *dA)
{
  cudaStream_t                        s;
  pgx::cuda::DeviceArray<PetscInt>    drp, dci;
  pgx::cuda::DeviceArray<PetscScalar> dv;
  const PetscInt                      nnz = n > 0 ? rowptr[n] : 0;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMemsetAsync(dA, 0, (size_t)n * n * sizeof(PetscScalar), s));
  PetscCall(drp.resize((size_t)n + 1));
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, drp.data(), (void *)rowptr, ((size_t)n + 1) * sizeof(PetscInt), 1, ((size_t)n + 1) * sizeof(PetscInt), s, PETSC_FALSE));
  if (nnz) {
    PetscCall(dci.resize((size_t)nnz));
    PetscCall(dv.resize((size_t)nnz));
    PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, dci.data(), (void *)colidx, (size_t)nnz * sizeof(PetscInt), 1, (size_t)nnz * sizeof(PetscInt), s, PETSC_FALSE));
    PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, dv.data(), (void *)vals, (size_t)nnz * sizeof(PetscScalar), 1, (size_t)nnz * sizeof(PetscScalar), s, PETSC_FALSE));
    ScatterLowerCSRKernel<<<PGXCUDAGridSize(n * 32, 256), 256, 0, s>>>(n, drp.data(), dci.data(), dv.data(), dA);
    PGXCheckLaunch("pgx::kernels::sytrd::cuda::ScatterLowerCSRKernel");
  }
  const unsigned nt = (unsigned)((n + 31) / 32);
  MirrorLowerKernel<<<dim3(nt, nt), dim3(32, 8), 0, s>>>(n, dA);
  PGXCheckLaunch("pgx::kernels::sytrd::cuda::MirrorLowerKernel (CSR)");
  PGXCallCUDA(cudaStreamSynchronize(s)); /* before the device copies of the CSR arrays are freed */
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
  if (o.fused > 0 && o.symv == SYMV_LOWER && o.merged) { /* the fused panel, when its blocks can all be resident */
    const cudaDeviceProp *prop;
    int                   occ = 0;
    PetscCall(PGXCUDAGetDeviceProperties(&prop));
    /* the compiler's registers (78 on sm_90: 3 resident blocks per multiprocessor); an instance bounded to 64
       registers for 4 blocks spilled and ran 4-9% slower (bench/results/2026-11-24-gpu-s5/call5-sytrd-bpsm.txt) */
    PGXCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fused::k_panel, fused::NT, fused::SharedBytes(o.b)));
    if (prop->cooperativeLaunch && occ > 0) {
      W->fgrid = prop->multiProcessorCount * PetscMin(occ, o.fused);
      PGXCallCUDA(cudaMalloc((void **)&W->acc, (size_t)(4 + 4 * (o.b + 1)) * sizeof(double)));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode fused_grid(const Work *W, int *g)
{
  *g = W ? W->fgrid : 0;
  return PETSC_SUCCESS;
}

PetscErrorCode destroy(Work **w)
{
  PetscFunctionBegin;
  if (!*w) PetscFunctionReturn(PETSC_SUCCESS);
  Work *W = *w;
  for (double *p : {W->M, W->N, W->y, W->t, W->tau, W->e, W->d, W->acc})
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
    if (W->fgrid > 0) PetscCall(PanelFused(W, m, nb, A, n, W->e + j, W->tau + j));
    else PetscCall(Panel(W, h, m, nb, A, n, W->e + j, W->tau + j));
    if (nb < m) {
      /* A22 -= M N^T: the full square for the full product (it reads the strict upper triangle), else only the
         columns' lower parts, by column blocks of UPD_COLS (the rectangle from the block's diagonal down) */
      const int mt = (int)(m - nb), cw = W->o.symv == SYMV_FULL ? mt : UPD_COLS;
      for (int c0 = 0; c0 < mt; c0 += cw) {
        const int cb = PetscMin(cw, mt - c0), rb = W->o.symv == SYMV_FULL ? mt : mt - c0, r0 = W->o.symv == SYMV_FULL ? 0 : c0;
        double   *C = A + nb + r0 + (nb + c0) * n;
        if (W->o.rank2b) PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, rb, cb, 2 * (int)nb, &mone, W->M + nb + r0, (int)n, W->N + nb + c0, (int)n, &one, C, (int)n));
        else {
          PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, rb, cb, (int)nb, &mone, W->M + nb + r0, (int)(2 * n), W->M + nb + c0 + n, (int)(2 * n), &one, C, (int)n));
          PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, rb, cb, (int)nb, &mone, W->M + nb + r0 + n, (int)(2 * n), W->M + nb + c0, (int)(2 * n), &one, C, (int)n));
        }
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

/* Tb (kb x kb, upper, column-major) of reflectors i..i+kb-1 from their Gram matrix G = V^T V and tau (device):
   Tb(c,c) = tau_c, Tb(0:c,c) = -tau_c Tb(0:c,0:c) G(0:c,c), column after column (LAPACK dlarft). One thread block
   per reflector block (blockIdx.x = blk: reflectors blk b .. blk b + kb - 1 of nr, G and Tb at blk b^2, ld kb): the
   serial recurrence of every block runs at once, not one block after the other. */
__global__ void k_larft(int b, PetscInt nr, const double *Gall, const double *tauall, double *Tall)
{
  const PetscInt i  = (PetscInt)blockIdx.x * b;
  const int      kb = (int)(nr - i < b ? nr - i : b);
  const double  *G = Gall + (size_t)blockIdx.x * b * b, *tau = tauall + i;
  double        *Tb = Tall + (size_t)blockIdx.x * b * b;
  for (int c = 0; c < kb; c++) {
    const double tc = tau[c];
    for (int r = threadIdx.x; r < kb; r += blockDim.x) {
      double v = 0;
      if (r < c) {
        double sum = 0;
        for (int q = r; q < c; q++) sum += Tb[r + (size_t)q * kb] * G[q + (size_t)c * kb];
        v = -tc * sum;
      } else if (r == c) v = tc;
      Tb[r + (size_t)c * kb] = v;
    }
    __syncthreads(); /* column c is read by the next columns */
  }
}

/* The back-transformation's blocks: nblk blocks of b reflectors (the last one kb = nr - i), block blk from i = blk b */
struct BackBlocks {
  PetscInt                       n, b, nblk;
  pgx::cuda::DeviceArray<double> V, G, T, Y;
};

/* Tb of every block (T: nblk b^2, block blk's Tb at blk b^2, ld kb), from V and G = V^T V per block; Y for ky columns */
static PetscErrorCode BackSetUp(Work *W, cublasHandle_t h, const double *dA, PetscInt ky, BackBlocks *B)
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
    PGXCheckLaunch("k_build_v");
    PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)kb, (int)kb, (int)L, &one, B->V.data(), (int)L, B->V.data(), (int)L, &zero, B->G.data() + (size_t)blk * B->b * B->b, (int)kb));
  }
  k_larft<<<(unsigned)B->nblk, 256, 0, W->s0>>>((int)B->b, nr, B->G.data(), W->tau, B->T.data()); /* tau as reduce() left it on the device */
  PGXCheckLaunch("k_larft");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Z (n x k, ld n) <- Q Z (trans 0: the blocks last to first) or Q^H Z, all on W->s0: per block V is rebuilt (cheap: a
   copy of the block's reflectors), then Y = V^T Z, Y = Tb Y (or Tb^T Y), Z -= V Y */
static PetscErrorCode BackApply(Work *W, cublasHandle_t h, const double *dA, int trans, BackBlocks *B, PetscInt k, double *dZ)
{
  const PetscInt n = B->n, nr = n - 1;
  double        *V = B->V.data(), *Y = B->Y.data();

  PetscFunctionBegin;
  for (PetscInt s = 0; s < B->nblk; s++) {
    const PetscInt blk = trans ? s : B->nblk - 1 - s, i = blk * B->b, kb = PetscMin(B->b, nr - i), L = n - i - 1;
    const double  *Tb = B->T.data() + (size_t)blk * B->b * B->b;
    double        *Zi = dZ + i + 1;
    k_build_v<<<PGXCUDAGridSize(L * kb, 256), 256, 0, W->s0>>>(n, i, kb, dA, n, V);
    PGXCheckLaunch("k_build_v");
    PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)kb, (int)k, (int)L, &one, V, (int)L, Zi, (int)n, &zero, Y, (int)kb));
    PGXCallCUBLAS(cublasDtrmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, trans ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, (int)kb, (int)k, &one, Tb, (int)kb, Y, (int)kb, Y, (int)kb));
    PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)L, (int)k, (int)kb, &mone, V, (int)L, Y, (int)kb, &one, Zi, (int)n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode apply_q(Work *W, int trans, const PetscScalar *dA, PetscInt k, PetscScalar *dZ)
{
  cublasHandle_t h;
  BackBlocks     B;

  PetscFunctionBegin;
  if (W->n - 1 <= 0 || k <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  /* blocks of W->o.bback reflectors (wider than the panel: each block streams Z once, in and out), everything on the
     device: no host synchronization between the blocks */
  PetscCall(BackSetUp(W, h, dA, k, &B));
  PetscCall(BackApply(W, h, dA, trans, &B, k, dZ));
  /* the work arrays are freed on return: wait for the queued work that reads them */
  PGXCallCUDA(cudaStreamSynchronize(W->s0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode apply_q_download(Work *W, const PetscScalar *dA, PetscInt k, PetscScalar *dZ, PetscScalar *Z, PetscInt ldz, PetscInt nchunks)
{
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
    PetscCall(BackSetUp(W, h, dA, kc, &B));
  }
  /* chunk c: its columns computed on s0, then ev[c % 2] recorded; its download waits for that event on s1 and is run
     (host threads, pinned staging) after chunk c + 1 is queued on s0, so that the GPU computes while the link copies */
  for (PetscInt c = 0, c0 = 0; c0 < k; c++, c0 += kc) {
    const PetscInt kk = PetscMin(kc, k - c0);
    cudaEvent_t    ev = c % 2 ? W->ev1 : W->ev0;
    if (n - 1 > 0) PetscCall(BackApply(W, h, dA, 0, &B, kk, dZ + (size_t)c0 * n));
    PGXCallCUDA(cudaEventRecord(ev, W->s0));
    if (pk) PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, dZ + (size_t)p0 * n, Z + (size_t)p0 * ldz, (size_t)n * sizeof(double), (size_t)pk, (size_t)ldz * sizeof(double), W->s1, PETSC_TRUE));
    PGXCallCUDA(cudaStreamWaitEvent(W->s1, ev, 0)); /* the next download (of this chunk) after its computation */
    p0 = c0;
    pk = kk;
  }
  PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, dZ + (size_t)p0 * n, Z + (size_t)p0 * ldz, (size_t)n * sizeof(double), (size_t)pk, (size_t)ldz * sizeof(double), W->s1, PETSC_TRUE));
  /* the work arrays are freed on return: wait for the queued work that reads them */
  PGXCallCUDA(cudaStreamSynchronize(W->s0));
  PetscFunctionReturn(PETSC_SUCCESS);
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
PetscErrorCode apply_q_download(Work *, const PetscScalar *, PetscInt, PetscScalar *, PetscScalar *, PetscInt, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of PGXSytrd supports double precision (real or complex) only");
}
#endif
} // namespace cuda
} // namespace sytrd
} // namespace kernels
} // namespace pgx
