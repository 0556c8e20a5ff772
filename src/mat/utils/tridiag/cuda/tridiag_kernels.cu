/* CUDA kernels of the batched tridiagonal solver (see ../tridiag_kernels.h for the data layout).

   batch_solve: one thread block per chunk (blocks of one size s, nblk <= CHUNK_THREADS of them).
   Streamed chunks (s > STAGED_MAX): thread j runs the sweeps of block j directly on r and y. Staged chunks:
   1. the chunk's block starts go to shared memory;
   2. all threads gather r into shared memory, sm[k*ld + j] = r[bstart[j] + k], consecutive threads
      reading consecutive rows of a block (coalesced segments of s rows);
   3. thread j < nblk runs the forward and backward sweeps of block j in shared memory, reading its
      interleaved factors (coalesced across the threads of the chunk);
   4. all threads scatter y[bstart[j] + k] = alpha*sm[k*ld + j] + beta*w[...] back in natural order.
   ld = nblk | 1 (odd) keeps the sweeps' shared-memory accesses free of bank conflicts.
   tile_kernel (tiled layout): see its comment below.
   The factors are read once per solve with streaming loads (__ldcs, evict-first), so that L2 keeps the
   sectors of r and y that the gathers and scatters of neighbouring chunks share.

   The kernels are generic in the device scalar (PetscScalar as nvcc sees it: double, or thrust::complex<double> in
   complex builds; pgxcudascalar.h's operations): the same sweeps and scans for both, no conjugation (P^-1 of P
   itself). The interface's Scalar (the host's type) is reinterpreted at the entry points. */
#include <pgx/private/pgxcuda.h>
#include <pgx/private/pgxcudascalar.h>
#include <pgx/private/pgxcudareduce.h>
#include <pgx/private/pgxdia.h>
#include "../tridiag_kernels.h"

namespace pgx
{
namespace kernels
{
namespace tridiag
{
namespace cuda
{
namespace
{
using pgx::dev::Fma;
using pgx::dev::LdCs;
using pgx::dev::ShflDown;
using pgx::dev::ShflUp;
typedef pgx::dev::Shared<PetscScalar>::type SharedScalar; /* __shared__ arrays of the scalar: a plain type */
using pgx::dev::Dev; /* the device scalar's view of the interface's arrays and scalars */
using pgx::dev::DevScalar;

__global__ void __launch_bounds__(CHUNK_THREADS) batch_kernel(const Chunk *__restrict__ chunks, const PetscInt *__restrict__ bstart, const PetscScalar *__restrict__ fl, const PetscScalar *__restrict__ finv, const PetscScalar *__restrict__ fu, PetscScalar alpha, const PetscScalar *__restrict__ r, PetscScalar beta, const PetscScalar *__restrict__ w, PetscScalar *__restrict__ y)
{
  extern __shared__ SharedScalar smraw[];
  PetscScalar *const sm = reinterpret_cast<PetscScalar *>(smraw);
  __shared__ PetscInt st[CHUNK_THREADS];
  const Chunk c  = chunks[blockIdx.x];
  const int   s  = c.size, nb = c.nblk, ld = c.nblk | 1, E = s * nb;
  if (!c.staged) { /* streamed: thread j solves block j in global memory (z goes to y, then y over it) */
    const int j = threadIdx.x;
    if (j >= nb) return;
    const PetscInt i0 = bstart[c.bfirst + j];
    PetscInt       f  = c.fbase + j;
    PetscScalar    z  = 0;
  #pragma unroll 4
    for (int k = 0; k < s; k++, f += c.stride) {
      z         = LdCs(finv + f) * r[i0 + k] - LdCs(fl + f) * z;
      y[i0 + k] = z;
    }
    f -= c.stride;
    if (!c.epilogue) {
  #pragma unroll 4
      for (int k = s - 2; k >= 0; k--) {
        f -= c.stride;
        z         = y[i0 + k] - LdCs(fu + f) * z;
        y[i0 + k] = z;
      }
    } else {
      y[i0 + s - 1] = alpha * z + (w ? beta * w[i0 + s - 1] : PetscScalar(0));
  #pragma unroll 4
      for (int k = s - 2; k >= 0; k--) {
        f -= c.stride;
        z         = y[i0 + k] - LdCs(fu + f) * z;
        y[i0 + k] = alpha * z + (w ? beta * w[i0 + k] : PetscScalar(0));
      }
    }
    return; /* the whole thread block takes this branch: no barrier is skipped by part of it */
  }
  for (int j = threadIdx.x; j < nb; j += blockDim.x) st[j] = bstart[c.bfirst + j];
  __syncthreads();
  for (int e = threadIdx.x; e < E; e += blockDim.x) {
    const int j = e / s, k = e - j * s;
    sm[k * ld + j] = r[st[j] + k];
  }
  __syncthreads();
  const int j = threadIdx.x;
  if (j < nb) {
    PetscInt    f = c.fbase + j;
    PetscScalar z = 0;
#pragma unroll 4
    for (int k = 0; k < s; k++, f += c.stride) {
      z              = LdCs(finv + f) * sm[k * ld + j] - LdCs(fl + f) * z;
      sm[k * ld + j] = z;
    }
    f -= c.stride;
#pragma unroll 4
    for (int k = s - 2; k >= 0; k--) {
      f -= c.stride;
      z              = sm[k * ld + j] - LdCs(fu + f) * z;
      sm[k * ld + j] = z;
    }
  }
  __syncthreads();
  if (!c.epilogue) {
    for (int e = threadIdx.x; e < E; e += blockDim.x) {
      const int jj = e / s, k = e - jj * s;
      y[st[jj] + k] = sm[k * ld + jj];
    }
  } else if (w) {
    for (int e = threadIdx.x; e < E; e += blockDim.x) {
      const int      jj = e / s, k = e - jj * s;
      const PetscInt i  = st[jj] + k;
      y[i]              = alpha * sm[k * ld + jj] + beta * w[i];
    }
  } else {
    for (int e = threadIdx.x; e < E; e += blockDim.x) {
      const int jj = e / s, k = e - jj * s;
      y[st[jj] + k] = alpha * sm[k * ld + jj];
    }
  }
}

/* Tiled layout (see ../tridiag_kernels.h). Thread t of a tile owns the TILE_RPT rows base + t*TILE_RPT + k,
   base = tile start rounded down to a multiple of TILE_RPT (64-byte aligned loads and stores); rows outside
   the tile are masked. The forward sweep z_k = finv_k r_k - fl_k z_{k-1} is the affine recurrence
   z_k = a_k + m_k z_{k-1} (a = finv r, m = -fl); each thread composes its rows' maps, a block-wide scan
   (warp shuffles, then the warps' totals) gives every thread the z entering its rows, and the thread redoes
   its rows sequentially from it (the order of operations of the Thomas sweep). The backward sweep
   y_k = z_k - fu_k y_{k+1} is done the same way from the tile's end. m = 0 at a block's first row (and
   fu = 0 at its last) decouples the blocks; compositions keep a zero factor exactly zero (no 0*Inf). */
template <bool VEC>
__device__ __forceinline__ void load_rows(const PetscScalar *__restrict__ p, PetscInt i0, PetscInt n, PetscScalar v[TILE_RPT])
{
  if (VEC && sizeof(PetscScalar) == sizeof(double)) { /* two rows a 16-byte load (a complex row is one already) */
  #pragma unroll
    for (int q = 0; q < TILE_RPT / 2; q++) {
      const PetscInt i = i0 + 2 * q;
      if (i + 1 < n) {
        const double2 t = __ldg(reinterpret_cast<const double2 *>(p + i));
        v[2 * q]        = pgx::dev::Re(t.x);
        v[2 * q + 1]    = pgx::dev::Re(t.y);
      } else {
        v[2 * q]     = i < n ? p[i] : PetscScalar(0);
        v[2 * q + 1] = 0;
      }
    }
  } else {
  #pragma unroll
    for (int k = 0; k < TILE_RPT; k++) v[k] = i0 + k < n ? p[i0 + k] : PetscScalar(0);
  }
}

/* The fused solve's right-hand side (DIA of ../tridiag_kernels.h, device scalars) */
struct DiaDev {
  PetscInt           nd;
  PetscInt           off[DIA_MAXDIAG];
  const PetscScalar *val, *x;
};

/* The sums of the solution y written, conj(y)'v and |y|^2 (DOT tiles): a partial sum per tile, part[b] and
   part[nb + b], b < nb tiles, and the finishing sum in the tile that counts last (pgxcudareduce.h) into res[0..1] */
struct DotDev {
  const PetscScalar *v;
  PetscScalar       *part, *res;
  unsigned          *count;
  PGXCUDAPublish     pub; /* taken by the launch (pgxcuda.h): the finishing tile also writes it to the host */
};

/* v[k] = p[j0 + k] where j0 + k lies in [0, n), else 0; two rows a 16-byte load where the window is inside and
   aligned (the test is the same for every thread of a tile but those at the ends of the system) */
__device__ __forceinline__ void load_window(const PetscScalar *__restrict__ p, PetscInt j0, PetscInt n, PetscScalar v[TILE_RPT])
{
  if (sizeof(PetscScalar) == sizeof(double) && j0 >= 0 && j0 + TILE_RPT <= n && !(reinterpret_cast<uintptr_t>(p + j0) & 15)) {
  #pragma unroll
    for (int q = 0; q < TILE_RPT / 2; q++) {
      const double2 t = __ldg(reinterpret_cast<const double2 *>(p + j0 + 2 * q));
      v[2 * q]        = pgx::dev::Re(t.x);
      v[2 * q + 1]    = pgx::dev::Re(t.y);
    }
  } else {
  #pragma unroll
    for (int k = 0; k < TILE_RPT; k++) v[k] = j0 + k >= 0 && j0 + k < n ? p[j0 + k] : PetscScalar(0);
  }
}

/* v[k] = (B x)[i0 + k], rows i0 + k < n (else 0): the sum of PGXDIARow() (pgxdia.h), increasing d, a term only where
   i0 + k + off[d] lies in [0, n); the offsets staged in shared memory (soff) */
__device__ __forceinline__ void dia_rows(const DiaDev &B, const PetscInt *soff, PetscInt i0, PetscInt n, PetscScalar v[TILE_RPT])
{
#pragma unroll
  for (int k = 0; k < TILE_RPT; k++) v[k] = 0;
  for (PetscInt d = 0; d < B.nd; d++) {
    const PetscInt o = soff[d];
    PetscScalar    bv[TILE_RPT], xv[TILE_RPT];
    load_window(B.val + (size_t)d * (size_t)n, i0, n, bv);
    load_window(B.x, i0 + o, n, xv);
  #pragma unroll
    for (int k = 0; k < TILE_RPT; k++) {
      const PetscInt j = i0 + k + o;
      if (i0 + k < n && j >= 0 && j < n) v[k] += bv[k] * xv[k];
    }
  }
}

/* y_k = z_k + c * y (c == 0: exactly z_k) */
__device__ __forceinline__ PetscScalar affine(PetscScalar z, PetscScalar c, PetscScalar y)
{
  return c == PetscScalar(0) ? z : Fma(c, y, z);
}

/* FUSE: the right-hand side is B x (DiaDev), formed row by row instead of read from r. DOT: the sums of the rows
   written, conj(y)'v and |y|^2 (DotDev; every chunk a tile of whole blocks, epilogue 1) */
template <bool VEC, int THREADS, bool FUSE, bool DOT>
__global__ void __launch_bounds__(THREADS) tile_kernel(const Chunk *__restrict__ chunks, PetscInt n, const PetscScalar *__restrict__ fl, const PetscScalar *__restrict__ finv, const PetscScalar *__restrict__ fu, PetscScalar alpha, const PetscScalar *__restrict__ r, PetscScalar beta, const PetscScalar *__restrict__ w, PetscScalar *__restrict__ y, const DiaDev dia, const DotDev dot)
{
  constexpr int      NW   = THREADS / 32;
  __shared__ SharedScalar sAraw[NW], sBraw[NW], sCraw[NW], sDraw[NW];
  __shared__ PetscInt     soff[FUSE ? DIA_MAXDIAG : 1];
  if (FUSE) {
    if (threadIdx.x < dia.nd) soff[threadIdx.x] = dia.off[threadIdx.x];
    __syncthreads();
  }
  PetscScalar *const     sA = reinterpret_cast<PetscScalar *>(sAraw), *const sB = reinterpret_cast<PetscScalar *>(sBraw);
  PetscScalar *const     sC = reinterpret_cast<PetscScalar *>(sCraw), *const sD = reinterpret_cast<PetscScalar *>(sDraw);
  const Chunk    c    = chunks[blockIdx.x];
  const PetscInt lo   = c.fbase, hi = c.fbase + c.size;
  const PetscInt i0   = (lo - lo % TILE_RPT) + (PetscInt)threadIdx.x * TILE_RPT;
  const int      lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  PetscScalar    a[TILE_RPT], m[TILE_RPT], u[TILE_RPT], v[TILE_RPT];

  /* all loads first (memory-level parallelism); forward: a = finv r, m = -fl; masked rows: a = 0, m = 1
     (identity) */
  load_rows<true>(finv, i0, n, a);
  load_rows<true>(fl, i0, n, m);
  if (FUSE) dia_rows(dia, soff, i0, n, v);
  else load_rows<VEC>(r, i0, n, v);
  load_rows<true>(fu, i0, n, u);
  PetscScalar wv[TILE_RPT];
  const bool  usew = c.epilogue && w;
  if (usew) load_rows<VEC>(w, i0, n, wv);
  PetscScalar dv[TILE_RPT];
  if (DOT) load_rows<VEC>(dot.v, i0, n, dv);
  PetscScalar A = 0, B = 1;
#pragma unroll
  for (int k = 0; k < TILE_RPT; k++) {
    const bool in = i0 + k >= lo && i0 + k < hi;
    a[k]          = in ? a[k] * v[k] : 0;
    m[k]          = in ? -m[k] : 1;
    A             = affine(a[k], m[k], A);
    B             = m[k] == PetscScalar(0) ? PetscScalar(0) : m[k] * B;
  }
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) { /* inclusive scan over the lanes: (A,B) o (A',B') of the lanes before */
    const PetscScalar Ap = ShflUp(A, o), Bp = ShflUp(B, o);
    if (lane >= o && B != PetscScalar(0)) {
      A = Fma(B, Ap, A);
      B = B * Bp;
    }
  }
  if (lane == 31) {
    sA[wid] = A;
    sB[wid] = B;
  }
  PetscScalar Ae = ShflUp(A, 1), Be = ShflUp(B, 1);
  if (!lane) Ae = 0, Be = 1;
  __syncthreads();
  PetscScalar z = 0; /* z entering the warp: the warps before it, applied to 0 */
  for (int q = 0; q < wid; q++) z = affine(sA[q], sB[q], z);
  z = affine(Ae, Be, z); /* z entering this thread's rows */
#pragma unroll
  for (int k = 0; k < TILE_RPT; k++) a[k] = z = Fma(m[k], z, a[k]);

  /* backward: y_k = z_k + cu_k y_{k+1}, cu = -fu; masked rows: cu = 0 */
  PetscScalar C = 0, D = 1;
#pragma unroll
  for (int k = TILE_RPT - 1; k >= 0; k--) {
    const bool in = i0 + k >= lo && i0 + k < hi;
    u[k]          = in ? -u[k] : 0;
    C             = affine(a[k], u[k], C);
    D             = u[k] == PetscScalar(0) ? PetscScalar(0) : u[k] * D;
  }
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) { /* inclusive scan over the lanes after */
    const PetscScalar Cn = ShflDown(C, o), Dn = ShflDown(D, o);
    if (lane + o < 32 && D != PetscScalar(0)) {
      C = Fma(D, Cn, C);
      D = D * Dn;
    }
  }
  if (!lane) {
    sC[wid] = C;
    sD[wid] = D;
  }
  PetscScalar Ce = ShflDown(C, 1), De = ShflDown(D, 1);
  if (lane == 31) Ce = 0, De = 1;
  __syncthreads();
  PetscScalar yv = 0; /* y after the warp's rows: the warps after it, applied to 0 */
  for (int q = NW - 1; q > wid; q--) yv = affine(sC[q], sD[q], yv);
  yv = affine(Ce, De, yv);
#pragma unroll
  for (int k = TILE_RPT - 1; k >= 0; k--) a[k] = yv = affine(a[k], u[k], yv);

  /* store the tile's rows: alpha y + beta w, or the raw solution for partitions of long blocks */
  if (c.epilogue) {
    if (usew) {
  #pragma unroll
      for (int k = 0; k < TILE_RPT; k++) a[k] = alpha * a[k] + beta * wv[k];
    } else {
  #pragma unroll
      for (int k = 0; k < TILE_RPT; k++) a[k] = alpha * a[k];
    }
  }
  const bool full = i0 >= lo && i0 + TILE_RPT <= hi;
  if (VEC && full && sizeof(PetscScalar) == sizeof(double)) {
  #pragma unroll
    for (int q = 0; q < TILE_RPT / 2; q++) *reinterpret_cast<double2 *>(y + i0 + 2 * q) = make_double2(pgx::dev::Re(a[2 * q]), pgx::dev::Re(a[2 * q + 1]));
  } else {
  #pragma unroll
    for (int k = 0; k < TILE_RPT; k++)
      if (i0 + k >= lo && i0 + k < hi) y[i0 + k] = a[k];
  }
  if (DOT) { /* every thread of the tile reaches here (no early return: the scans' __syncthreads above) */
    PetscScalar s1 = 0, s2 = 0;
  #pragma unroll
    for (int k = 0; k < TILE_RPT; k++)
      if (i0 + k >= lo && i0 + k < hi) {
        s1 += pgx::dev::Conj(a[k]) * dv[k];
        s2 += pgx::dev::AbsSq(a[k]);
      }
    s1 = pgx::dev::BlockSum<THREADS>(s1);
    __syncthreads();
    s2 = pgx::dev::BlockSum<THREADS>(s2);
    if (!threadIdx.x) {
      dot.part[blockIdx.x]             = s1;
      dot.part[gridDim.x + blockIdx.x] = s2;
    }
    pgx::dev::FinishInLastBlock<THREADS>(2, (int)gridDim.x, dot.part, gridDim.x, dot.res, dot.count, false, dot.pub);
  }
}

__global__ void reduced_rhs_kernel(PetscInt nsep, const PetscInt *__restrict__ seprow, const PetscScalar *__restrict__ sepa, const PetscScalar *__restrict__ sepc, const PetscScalar *__restrict__ r, const PetscScalar *__restrict__ y, PetscScalar *__restrict__ rs)
{
  for (PetscInt s = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; s < nsep; s += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt i = seprow[s];
    rs[s]            = r[i] - sepa[s] * y[i - 1] - sepc[s] * y[i + 1];
  }
}

__global__ void correct_kernel(PetscInt nrow, const PetscInt *__restrict__ row, const PetscInt *__restrict__ left, const PetscInt *__restrict__ right, const PetscScalar *__restrict__ G, const PetscScalar *__restrict__ H, PetscInt nsep, const PetscInt *__restrict__ seprow, const PetscScalar *__restrict__ xs, PetscScalar alpha, PetscScalar beta, const PetscScalar *__restrict__ w, PetscScalar *__restrict__ y)
{
  for (PetscInt e = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; e < nrow + nsep; e += (PetscInt)gridDim.x * blockDim.x) {
    PetscInt    i;
    PetscScalar v;
    if (e < nrow) {
      i = row[e];
      v = y[i];
      const PetscInt lf = left[e], rt = right[e];
      if (lf >= 0) v -= G[e] * xs[lf];
      if (rt >= 0) v -= H[e] * xs[rt];
    } else {
      i = seprow[e - nrow];
      v = xs[e - nrow];
    }
    y[i] = alpha * v + (w ? beta * w[i] : PetscScalar(0));
  }
}
} // namespace

/* the one dispatch on the compile-time parameters of the tile kernel (alignment, threads per tile; fuse: the
   right-hand side is dia's B x, r unused; dot: the sums of y, dot.v) */
template <bool FUSE, bool DOT = false>
static PetscErrorCode launch_tiles(const Batch &b, bool vec, PetscScalar alpha, const PetscScalar *r, PetscScalar beta, const PetscScalar *w, PetscScalar *y, const DiaDev &dia, cudaStream_t stream, const DotDev &dot = DotDev{nullptr, nullptr, nullptr, nullptr, PGXCUDAPublish{nullptr, nullptr, 0}})
{
  PetscFunctionBegin;
  PetscCheck(b.nchunks <= 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many tiles (%" PetscInt_FMT ") for one grid", b.nchunks);
  PetscCheck(!(((uintptr_t)b.fl | (uintptr_t)b.finv | (uintptr_t)b.fu) & 15), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Tridiagonal factors not 16-byte aligned");
  const unsigned int g = (unsigned int)b.nchunks;
  if (b.tile_threads == TILE_THREADS) {
    if (vec) tile_kernel<true, TILE_THREADS, FUSE, DOT><<<g, TILE_THREADS, 0, stream>>>(b.chunks, b.n, Dev(b.fl), Dev(b.finv), Dev(b.fu), alpha, r, beta, w, y, dia, dot);
    else tile_kernel<false, TILE_THREADS, FUSE, DOT><<<g, TILE_THREADS, 0, stream>>>(b.chunks, b.n, Dev(b.fl), Dev(b.finv), Dev(b.fu), alpha, r, beta, w, y, dia, dot);
  } else {
    PetscCheck(b.tile_threads == TILE_THREADS_BIG, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unsupported tile of %d threads", b.tile_threads);
    if (vec) tile_kernel<true, TILE_THREADS_BIG, FUSE, DOT><<<g, TILE_THREADS_BIG, 0, stream>>>(b.chunks, b.n, Dev(b.fl), Dev(b.finv), Dev(b.fu), alpha, r, beta, w, y, dia, dot);
    else tile_kernel<false, TILE_THREADS_BIG, FUSE, DOT><<<g, TILE_THREADS_BIG, 0, stream>>>(b.chunks, b.n, Dev(b.fl), Dev(b.finv), Dev(b.fu), alpha, r, beta, w, y, dia, dot);
  }
  PGXCheckLaunch(DOT ? "pgx::kernels::tridiag::cuda::tile_kernel (right-hand side B x, sums of y)" : FUSE ? "pgx::kernels::tridiag::cuda::tile_kernel (right-hand side B x)" : "pgx::kernels::tridiag::cuda::tile_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* t = B x, one thread a row by pgxdia.h's PGXDIARow (the offsets, passed by value, staged in shared memory) */
__global__ void __launch_bounds__(256) dia_product_kernel(PetscInt n, const DiaDev B, PetscScalar *__restrict__ t)
{
  __shared__ PetscInt soff[DIA_MAXDIAG];
  if (threadIdx.x < B.nd) soff[threadIdx.x] = B.off[threadIdx.x];
  __syncthreads();
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) t[i] = PGXDIARow(i, n, B.nd, soff, B.val, B.x);
}

static PetscErrorCode dia_dev(const DIA &B, DiaDev *b)
{
  PetscFunctionBegin;
  PetscCheck(B.ndiag >= 0 && B.ndiag <= DIA_MAXDIAG, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DIA right-hand side with %" PetscInt_FMT " diagonals, at most %d", B.ndiag, DIA_MAXDIAG);
  b->nd = B.ndiag;
  for (int d = 0; d < DIA_MAXDIAG; d++) b->off[d] = d < B.ndiag ? B.off[d] : 0;
  b->val = Dev(B.val);
  b->x   = Dev(B.x);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* factor_natural: thread q runs the host setup's recurrence down block q (rows i0 .. i1-1, consecutive: each thread
   reads whole 32-byte sectors of its rows in turn, from L1 after the first); a refused pivot ends the block and
   lowers *bad to its row */
__global__ void __launch_bounds__(128) factor_natural_kernel(PetscInt n, PetscInt nb, const PetscInt *__restrict__ bstart, const PetscScalar *__restrict__ dl, const PetscScalar *__restrict__ d, const PetscScalar *__restrict__ du, PetscScalar *__restrict__ fl, PetscScalar *__restrict__ finv, PetscScalar *__restrict__ fu, unsigned long long *__restrict__ bad)
{
  using pgx::dev::Abs;
  using pgx::dev::IsFinite;
  for (PetscInt q = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; q < nb; q += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt i0 = bstart[q], i1 = q + 1 < nb ? bstart[q + 1] : n;
    PetscScalar    fup = 0;
    for (PetscInt i = i0; i < i1; i++) {
      const PetscScalar a = i > i0 ? dl[i] : PetscScalar(0), b = d[i], c = i < i1 - 1 ? du[i] : PetscScalar(0);
      const PetscScalar piv    = b - a * fup;
      const double      rowmax = fmax(Abs(b), fmax(Abs(a), Abs(c)));
      if (!IsFinite(piv) || !(Abs(piv) > 1e-13 * rowmax)) {
        atomicMin(bad, (unsigned long long)i);
        break;
      }
      const PetscScalar inv = PetscScalar(1) / piv;
      fl[i]                 = a * inv;
      finv[i]               = inv;
      fu[i] = fup = c * inv;
    }
  }
}

PetscErrorCode factor_natural(PetscInt n, PetscInt nb, const PetscInt *bstart, const Scalar *dl, const Scalar *d, const Scalar *du, Scalar *fl, Scalar *finv, Scalar *fu, PetscInt *badrow)
{
  cudaStream_t        stream;
  unsigned long long *d_bad = nullptr, bad = (unsigned long long)n;

  PetscFunctionBegin;
  *badrow = n;
  if (!nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  PGXCallCUDA(cudaMallocAsync((void **)&d_bad, sizeof(*d_bad), stream));
  PGXCallCUDA(cudaMemcpyAsync(d_bad, &bad, sizeof(bad), cudaMemcpyHostToDevice, stream));
  factor_natural_kernel<<<PGXCUDAGridSize(nb, 128), 128, 0, stream>>>(n, nb, bstart, Dev(dl), Dev(d), Dev(du), Dev(fl), Dev(finv), Dev(fu), d_bad);
  PGXCheckLaunch("pgx::kernels::tridiag::cuda::factor_natural_kernel");
  PGXCallCUDA(cudaMemcpyAsync(&bad, d_bad, sizeof(bad), cudaMemcpyDeviceToHost, stream));
  PGXCallCUDA(cudaFreeAsync(d_bad, stream));
  PGXCallCUDA(cudaStreamSynchronize(stream));
  *badrow = (PetscInt)bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode batch_solve(const Batch &b, Scalar alpha_, const Scalar *r_, Scalar beta_, const Scalar *w_, Scalar *y_)
{
  const PetscScalar  alpha = DevScalar(alpha_), beta = DevScalar(beta_);
  const PetscScalar *r = Dev(r_), *w = Dev(w_);
  PetscScalar       *y = Dev(y_);
  cudaStream_t stream;
  size_t       smem = (size_t)b.smem * sizeof(PetscScalar);

  PetscFunctionBegin;
  if (!b.nchunks) PetscFunctionReturn(PETSC_SUCCESS);
  if (b.tiled) {
    const bool vec = !(((uintptr_t)r | (uintptr_t)y | (uintptr_t)w) & 15); /* r, y, w 16-byte aligned */
    PetscCall(PGXCUDAGetStream(&stream));
    PetscCall(launch_tiles<false>(b, vec, alpha, r, beta, w, y, DiaDev(), stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(b.nchunks <= 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many chunks (%" PetscInt_FMT ") for one grid", b.nchunks);
  PetscCheck(smem <= 40 * 1024, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Tridiagonal batch needs %zu bytes of shared memory per chunk (max 40 KiB)", smem);
  PetscCall(PGXCUDAGetStream(&stream));
  batch_kernel<<<(unsigned int)b.nchunks, CHUNK_THREADS, smem, stream>>>(b.chunks, b.bstart, Dev(b.fl), Dev(b.finv), Dev(b.fu), alpha, r, beta, w, y);
  PGXCheckLaunch("pgx::kernels::tridiag::cuda::batch_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode dia_product(PetscInt n, const DIA &B_, Scalar *t)
{
  cudaStream_t stream;
  DiaDev       B;

  PetscFunctionBegin;
  PetscCall(dia_dev(B_, &B));
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  dia_product_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, B, Dev(t));
  PGXCheckLaunch("pgx::kernels::tridiag::cuda::dia_product_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the DOT tiles' partial sums (2 per tile) and their counter (zero between launches), grown on PGX's stream, freed at
   PetscFinalize */
static PetscScalar *d_dotpart = nullptr;
static unsigned    *d_dotcount = nullptr;
static PetscInt     dotcap     = 0;

static PetscErrorCode DotWorkFree(void)
{
  PetscFunctionBegin;
  if (d_dotpart) PGXCallCUDA(cudaFree(d_dotpart));
  if (d_dotcount) PGXCallCUDA(cudaFree(d_dotcount));
  d_dotpart  = nullptr;
  d_dotcount = nullptr;
  dotcap     = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DotWork(PetscInt ntiles, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (2 * ntiles <= dotcap) PetscFunctionReturn(PETSC_SUCCESS);
  if (!d_dotcount) {
    PGXCallCUDA(cudaMallocAsync((void **)&d_dotcount, sizeof(unsigned), stream));
    PGXCallCUDA(cudaMemsetAsync(d_dotcount, 0, sizeof(unsigned), stream));
    PetscCall(PetscRegisterFinalize(DotWorkFree));
  }
  if (d_dotpart) PGXCallCUDA(cudaFreeAsync(d_dotpart, stream));
  dotcap = 2 * ntiles;
  PGXCallCUDA(cudaMallocAsync((void **)&d_dotpart, sizeof(PetscScalar) * (size_t)dotcap, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode batch_solve_dia(const Batch &b, Scalar alpha_, const DIA &B_, Scalar beta_, const Scalar *w_, Scalar *y_, const Scalar *v_, Scalar *d2_)
{
  const PetscScalar  alpha = DevScalar(alpha_), beta = DevScalar(beta_);
  const PetscScalar *w = Dev(w_), *v = Dev(v_);
  PetscScalar       *y = Dev(y_), *d2 = Dev(d2_);
  cudaStream_t       stream;
  DiaDev             B;

  PetscFunctionBegin;
  PetscCheck(b.tiled, PETSC_COMM_SELF, PETSC_ERR_PLIB, "batch_solve_dia needs the tiled layout");
  PetscCall(dia_dev(B_, &B));
  PetscCheck(B.x != y, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "batch_solve_dia: x must not alias y");
  PetscCheck(!d2 || v, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "batch_solve_dia: the sums need v");
  PetscCall(PGXCUDAGetStream(&stream));
  if (!b.nchunks) {
    if (d2) PGXCallCUDA(cudaMemsetAsync(d2, 0, 2 * sizeof(PetscScalar), stream)); /* no rows: both sums zero */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const bool vec = !(((uintptr_t)y | (uintptr_t)w | (uintptr_t)v) & 15); /* y, w (and v) 16-byte aligned */
  if (d2) {
    DotDev dot;
    PetscCall(DotWork(b.nchunks, stream));
    dot.v     = v;
    dot.part  = d_dotpart;
    dot.res   = d2;
    dot.count = d_dotcount;
    dot.pub   = PGXCUDAPublishTake();
    PetscCall(launch_tiles<true, true>(b, vec, alpha, nullptr, beta, w, y, B, stream, dot));
  } else PetscCall(launch_tiles<true>(b, vec, alpha, nullptr, beta, w, y, B, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode reduced_rhs(const Long &l, const Scalar *r, const Scalar *y, Scalar *rs)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!l.nsep) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  reduced_rhs_kernel<<<PGXCUDAGridSize(l.nsep, 256), 256, 0, stream>>>(l.nsep, l.seprow, Dev(l.sepa), Dev(l.sepc), Dev(r), Dev(y), Dev(rs));
  PGXCheckLaunch("pgx::kernels::tridiag::cuda::reduced_rhs_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode correct(const Long &l, const Scalar *xs, Scalar alpha, Scalar beta, const Scalar *w, Scalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!l.nrow && !l.nsep) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  correct_kernel<<<PGXCUDAGridSize(l.nrow + l.nsep, 256), 256, 0, stream>>>(l.nrow, l.row, l.left, l.right, Dev(l.G), Dev(l.H), l.nsep, l.seprow, Dev(xs), DevScalar(alpha), DevScalar(beta), Dev(w), Dev(y));
  PGXCheckLaunch("pgx::kernels::tridiag::cuda::correct_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace cuda
} // namespace tridiag
} // namespace kernels
} // namespace pgx
