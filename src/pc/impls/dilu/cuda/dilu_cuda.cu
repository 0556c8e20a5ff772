/* PCDILU cuda backend (see dilu_kernels.h for the mathematics).

   Storage: the pattern of A is split once (analysis) into its lower part L and upper part U with respect
   to the elimination order, each stored in the order of its own sweep schedule (position p holds row
   order[p]), so a sweep streams through its half only. Values are gathered into L and U on every numeric
   setup through the src[] maps (no analysis on re-setup). Vectors stay in A's ordering: the permutation is
   fused into the sweeps (row i = order[p]).

   Schedules:
   - multicolor: the coloring of the symmetrized graph on the GPU in rounds, all in one cooperative launch (the same
     colors as the reference with the same wave length, see DILU_COLOR_WAVE and SetColorWave), rows sorted by color with a stable radix sort (rank = position in that
     order); one launch per color per sweep. The sweeps and E work in rank space (E, the work vector and the
     halves' columns indexed by rank), so the rows of a color touch contiguous memory; r is read and the
     result written in A's ordering by the first and last sweep.
   - natural: level sets (computed on the GPU by a sync-free longest-path sweep: blocks take consecutive rows
     through an atomic ticket, each row spins on the ready flags of its dependencies), rows sorted by level
     with a stable radix sort. E is computed level by level (one launch per level, replayed from a CUDA
     graph). The apply runs cuSPARSE SpSV on one copy of A's values with E written into the diagonal slots
     (EA): forward (E+L) z = r is SpSV lower non-unit on EA, backward (E+U) y = E z is SpSV upper non-unit
     on EA after z := E z. The analyses of SpSV are done once; a numeric setup rewrites EA and calls
     cusparseSpSV_updateMatrix. (Measured on the H100: SpSV beats per-level launches, a CUDA graph of them
     and sync-free kernels on 3D stencils; per-level launches stay as an alternative, SetNaturalSweeps().)
     Without a stored diagonal in every row SpSV cannot be used; the per-level sweeps run then.
   Everything runs on PGXCUDAGetStream(). */
#include <pgx/private/pgxcuda.h>
#include <pgx/private/pgxcudascalar.h>
#include <petscpc.h>
#include "../dilu_kernels.h"
#include <cub/cub.cuh>
#include <cuda/atomic>
#include <cooperative_groups.h>
#include <vector>
#include <climits>
#include <cstdlib>

namespace pgx
{
namespace kernels
{
namespace dilu
{
namespace cuda
{

static constexpr unsigned BLOCK = 256;

/* The device scalar is PetscScalar as nvcc sees it: double, or thrust::complex<double> in complex builds (the
   interface's Scalar is the host's std::complex<double> there, of the same layout: Dev() reinterprets). DILU's
   arithmetic is the same for both (no conjugation: M = (E+L) E^-1 (E+U) of A itself). */
using pgx::dev::Dev;
#if defined(PETSC_USE_COMPLEX)
static constexpr cudaDataType_t CUDA_SCALAR = CUDA_C_64F;
#else
static constexpr cudaDataType_t CUDA_SCALAR = CUDA_R_64F;
#endif
using pgx::dev::IsFinite; /* pgxcudascalar.h */
using pgx::dev::ShflDown;

/* a CUDA graph of a fixed sequence of launches, replayed while its keys (the pointers and scalars the
   launches take) stay the same */
struct Graph {
  cudaGraphExec_t exec = nullptr;
  const void     *k1   = nullptr;
  const void     *k2   = nullptr;
  PetscReal       k3   = 0;
  void            reset()
  {
    if (exec) (void)cudaGraphExecDestroy(exec);
    exec = nullptr;
  }
  ~Graph() { reset(); }
};

/* Device arrays of PCDILU (its data and the analysis' scratch, all used on PGX's stream): stream-ordered allocations
   from a memory pool of PCDILU's own, which keeps what is freed until an analysis or a Destroy() ends (TrimScratch()),
   so the analysis' scratch and the arrays that stay are carved from memory the pool already holds, instead of a
   cudaMalloc and a synchronizing cudaFree each (on an H100 those cost more than the analysis' kernels). Without memory
   pools on the device: cudaMalloc and cudaFree. */
static int          scratch_pools = -1; /* unknown, 0 no pools, 1 pools */
static cudaMemPool_t scratch_pool = nullptr;
static PetscErrorCode ScratchInit(void)
{
  PetscFunctionBegin;
  if (scratch_pools < 0) {
    int dev = 0, ok = 0;
    PGXCallCUDA(cudaGetDevice(&dev));
    PGXCallCUDA(cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, dev));
    if (ok) {
      cudaMemPoolProps props = {};
      uint64_t         keep  = ~(uint64_t)0;
      props.allocType        = cudaMemAllocationTypePinned;
      props.location.type    = cudaMemLocationTypeDevice;
      props.location.id      = dev;
      PGXCallCUDA(cudaMemPoolCreate(&scratch_pool, &props));
      PGXCallCUDA(cudaMemPoolSetAttribute(scratch_pool, cudaMemPoolAttrReleaseThreshold, &keep)); /* until TrimScratch() */
    }
    scratch_pools = ok ? 1 : 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* give the pool's free memory back (after the stream's work is done) */
static PetscErrorCode TrimScratch(cudaStream_t s)
{
  PetscFunctionBegin;
  if (scratch_pools == 1) {
    PGXCallCUDA(cudaStreamSynchronize(s));
    PGXCallCUDA(cudaMemPoolTrimTo(scratch_pool, 0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
template <class T>
class PoolArray {
public:
  PoolArray() = default;
  PoolArray(const PoolArray &)            = delete;
  PoolArray &operator=(const PoolArray &) = delete;
  ~PoolArray() { release(); }
  /* (re)allocate for n elements on PGX's stream; contents are not kept */
  PetscErrorCode resize(size_t n)
  {
    PetscFunctionBegin;
    if (n != n_) {
      release();
      PetscCall(ScratchInit());
      PetscCall(PGXCUDAGetStream(&s_));
      if (n) {
        if (scratch_pools == 1) PGXCallCUDA(cudaMallocFromPoolAsync((void **)&p_, n * sizeof(T), scratch_pool, s_));
        else PGXCallCUDA(cudaMalloc((void **)&p_, n * sizeof(T)));
      }
      n_ = n;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode upload(const T *h, size_t n)
  {
    PetscFunctionBegin;
    PetscCall(resize(n));
    if (n) PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, p_, (void *)h, n * sizeof(T), 1, n * sizeof(T), s_, PETSC_FALSE)); /* large ones staged (pgxcopy.h) */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  T     *data() const { return p_; }
  size_t size() const { return n_; }

private:
  void release()
  {
    if (p_) (void)(scratch_pools == 1 ? cudaFreeAsync(p_, s_) : cudaFree(p_));
    p_ = nullptr;
    n_ = 0;
  }
  T           *p_ = nullptr;
  size_t       n_ = 0;
  cudaStream_t s_ = nullptr;
};

struct Sweep {
  PetscInt                 nlevels = 0;
  std::vector<PetscInt>    lptr;  /* host: positions of the levels (colors) */
  PoolArray<PetscInt>    order; /* [n] row at position p */
  PoolArray<PetscInt>    ptr;   /* [n+1] CSR of this half, in positions */
  PoolArray<PetscInt>    col;   /* column (row index in A's ordering) */
  PoolArray<PetscInt>    src;   /* position of the entry in A's values */
  PoolArray<PetscScalar> val;
  PetscInt                 nnz = 0;
};

struct Data {
  PetscInt                 n = 0, nnz = 0, ncolors = 0;
  PetscInt                 wave       = DILU_COLOR_WAVE; /* multicolor: wave length of the coloring (SetColorWave()) */
  bool                     colorrounds = true;           /* multicolor: color by rounds (default; faster than the sync-free launch on 3D stencils), else sync-free (SetColorRounds()) */
  bool                     colorcoop   = true;           /* multicolor, rounds: all rounds in one cooperative launch where the device allows (default), else one launch per round (SetColorCoop()) */
  PetscInt                 colorpath   = -1;             /* multicolor: how the last coloring ran (0 sync-free, 1 launches per round, 2 cooperative), for GetColorPath() */
  PetscInt                 colorrnds   = 0;              /* multicolor: its rounds (cooperative) */
  bool                     multicolor = false;
  PetscInt                 sweeps     = NATURAL_SPSV; /* natural: how the apply runs (SetNaturalSweeps()) */
  PoolArray<PetscInt>    rowptr, colidx; /* A's pattern */
  PoolArray<PetscInt>    rank;           /* elimination position of each row */
  PoolArray<PetscInt>    color;          /* multicolor: color of each row */
  PoolArray<PetscInt>    diagsrc;        /* position of a_ii in A's values, or -1 */
  PoolArray<PetscInt>    lpair;          /* for each L entry (i,j): position of a_ji in A's values, or -1 */
  PoolArray<PetscScalar> aval;           /* A's values */
  PoolArray<PetscScalar> E;              /* the DILU diagonal, by row (natural) or by rank (multicolor) */
  PoolArray<unsigned>    flags;          /* natural: ready flags, by row */
  PoolArray<unsigned>    ticket;         /* natural: [0] block ticket, [1] set when a wait gave up */
  PoolArray<int>         bad;            /* smallest failing row */
  unsigned                 epoch = 0;
  Sweep                    L, U;
  /* per-level (per-color) launches captured in CUDA graphs: the apply (keys r, y; replayed while the input
     and output arrays stay the same, as the staging buffers do) and the factorization (key: the shift) */
  bool     usegraph = true;
  Graph    gapply, gfactor;
  PetscInt nfactor = 0; /* factorizations since the analysis (the first launches directly, see Numeric()) */
  /* a second apply graph on fixed arrays (rs -> ys) for calls whose r, y differ from gapply's: device Vecs give a
     new pair per call (GMRES's basis, Chebyshev's work vectors); two device copies cost far less than a capture */
  Graph                    gstaged;
  PoolArray<PetscScalar> rs, ys;
  /* multicolor, calls whose r, y differ from gapply's (SetPermutedApply, default): instead of gstaged's two copies,
     r is gathered into the color order once (rs), the sweeps read and write only rank-space arrays from a graph on
     fixed arrays (gperm), and one scatter writes y. (On gapply's own arrays the row-by-row gathers inside the sweeps
     are faster: measured on an H100, bench/results/README.md.) */
  bool  permapply = true;
  Graph gperm;
  /* Richardson (multicolor): its steps captured in one graph (keys b, x and its), one for a nonzero guess and one for a
     zero guess (multigrid's pre- and post-smoother are one KSP on the same vectors, one from zero and one not: each
     keeps its graph); natural: rr the work vector of the fused per-level steps, or rr and rc the residual and the correction
     of the unfused steps (SpSV) */
  Graph                    grich, grich0;
  PoolArray<PetscScalar> rr, rc;
  /* multicolor sweeps: each color's kernel a programmatic dependent launch of the previous one (SetPDL; sm_90) */
  bool pdl = false;
  /* multicolor: the backward sweep's first level (the last color) has no entries (ApplyLaunches skips its launch) */
  bool uskip0 = false;
  /* multicolor, n <= smallrows: the apply is one kernel of one thread block (KApplySmall; no graph, no staging) */
  PetscInt              smallrows = 0;
  PoolArray<PetscInt> llptr, ulptr; /* device copies of L.lptr and U.lptr */
  /* natural: cuSPARSE SpSV on EA = A's values with E in the diagonal slots */
  bool                     spsv = false; /* set up (every row stores its diagonal) */
  PoolArray<PetscScalar> EA, work;
  PoolArray<char>        bufL, bufU;
  cusparseSpMatDescr_t     mL = nullptr, mU = nullptr; /* SpSV's own descriptors (fill mode, diag type) */
  cusparseDnVecDescr_t     vr = nullptr, vw = nullptr, vy = nullptr;
  cusparseSpSVDescr_t      sL = nullptr, sU = nullptr;
  void                     FreeSpSV()
  {
    if (mL) (void)cusparseDestroySpMat(mL);
    if (mU) (void)cusparseDestroySpMat(mU);
    if (vr) (void)cusparseDestroyDnVec(vr);
    if (vw) (void)cusparseDestroyDnVec(vw);
    if (vy) (void)cusparseDestroyDnVec(vy);
    if (sL) (void)cusparseSpSV_destroyDescr(sL);
    if (sU) (void)cusparseSpSV_destroyDescr(sU);
    mL = mU = nullptr, vr = vw = vy = nullptr, sL = sU = nullptr;
    spsv = false;
  }
  ~Data() { FreeSpSV(); }
};

/* ---------------------------------------------------------------------------------------- helpers */
__device__ __forceinline__ unsigned LoadAcquire(unsigned *p)
{
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> a(*p);
  return a.load(::cuda::memory_order_acquire);
}
/* spin until the flag of row j shows this epoch; a wait of ~2^24 polls (far beyond any legitimate wait, which
   is bounded by one sweep) gives up and raises ticket[1], so a schedule bug shows up as an error, not a hang */
__device__ __forceinline__ void WaitFlag(unsigned *flags, PetscInt j, unsigned epoch, unsigned *ticket)
{
  unsigned long long spins = 0;
  while (LoadAcquire(&flags[j]) != epoch) {
    if (++spins > (1ull << 24)) {
      atomicExch(&ticket[1], 1u);
      break;
    }
  }
}
__device__ __forceinline__ void StoreRelease(unsigned *p, unsigned v)
{
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> a(*p);
  a.store(v, ::cuda::memory_order_release);
}
__device__ __forceinline__ PetscInt AtomicAddIdx(PetscInt *p, PetscInt v) /* 32- or 64-bit PetscInt */
{
  if constexpr (sizeof(PetscInt) == 8) return (PetscInt)atomicAdd((unsigned long long *)p, (unsigned long long)v);
  else return (PetscInt)atomicAdd((int *)p, (int)v);
}
__device__ __forceinline__ void AtomicMaxIdx(PetscInt *p, PetscInt v)
{
  if constexpr (sizeof(PetscInt) == 8) atomicMax((long long *)p, (long long)v);
  else atomicMax((int *)p, (int)v);
}
__device__ __forceinline__ PetscInt FindPos(const PetscInt *colidx, PetscInt lo, PetscInt hi, PetscInt c)
{
  PetscInt l = lo, h = hi;
  while (l < h) {
    PetscInt mid = l + (h - l) / 2;
    if (colidx[mid] < c) l = mid + 1;
    else h = mid;
  }
  return (l < hi && colidx[l] == c) ? l : -1;
}
/* ---------------------------------------------------------------------------------------- analysis kernels */
__global__ void KIota(PetscInt n, PetscInt *a)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = i;
}
__global__ void KScatterRank(PetscInt n, const PetscInt *order, PetscInt *rank)
{
  for (PetscInt p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) rank[order[p]] = p;
}
__global__ void KColumnCount(PetscInt nnz, const PetscInt *colidx, PetscInt *cnt)
{
  for (PetscInt k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) AtomicAddIdx(&cnt[colidx[k]], 1);
}
__global__ void KTransposeFill(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *next, PetscInt *tcol)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) tcol[AtomicAddIdx(&next[colidx[k]], 1)] = i;
}
/* The greedy color of row v (see reference::Color): the next color of the wave after ml (the largest color of v's
   earlier neighbors) if free, else the smallest color no earlier neighbor (row v of A and of A^T) has. The earlier
   neighbors' colors must be final; they are read past L1 (__ldcg), since other blocks wrote them during this launch. */
__device__ PetscInt PickColor(PetscInt v, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *tptr, const PetscInt *tcol, PetscInt wave, PetscInt ml, const PetscInt *color)
{
  PetscInt c = -1;
  for (PetscInt base = 0; c < 0; base += 64) {
    unsigned long long used = 0;
    for (int pass = 0; pass < 2; pass++) {
      const PetscInt *ptr = pass ? tptr : rowptr, *col = pass ? tcol : colidx;
      for (PetscInt k = ptr[v]; k < ptr[v + 1]; k++) {
        PetscInt u = col[k];
        if (u >= v) continue;
        PetscInt cu = __ldcg(&color[u]) - base;
        if (cu >= 0 && cu < 64) used |= 1ull << cu;
      }
    }
    if (base == 0) /* the next color of the wave, if free (wave <= 64: within the first word) */
      for (PetscInt t = ml + 1; t < wave && c < 0; t++)
        if (!((used >> t) & 1ull)) c = t;
    if (c < 0 && ~used) c = base + __ffsll((long long)~used) - 1;
  }
  return c;
}

/* One round of the coloring with wave length wave (see reference::Color and DILU_COLOR_WAVE): round[v] = round
   in which v was colored, -1 if not yet. v is colored in round r when all its lower neighbors (index < v) were
   colored in earlier rounds; it sees exactly the colors the sequential greedy sees, so the result is the same. */
__global__ void KColorRound(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *tptr, const PetscInt *tcol, PetscInt wave, PetscInt r, PetscInt *round, PetscInt *color, PetscInt *ncolored, PetscInt *maxcolor)
{
  for (PetscInt v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
    if (((volatile PetscInt *)round)[v] != -1) continue;
    bool     sel = true;
    PetscInt ml  = -1;
    for (int pass = 0; pass < 2 && sel; pass++) {
      const PetscInt *ptr = pass ? tptr : rowptr, *col = pass ? tcol : colidx;
      for (PetscInt k = ptr[v]; k < ptr[v + 1]; k++) {
        PetscInt u = col[k];
        if (u >= v) continue;
        PetscInt ru = ((volatile PetscInt *)round)[u];
        if (ru == -1 || ru == r) { /* not colored before this round */
          sel = false;
          break;
        }
        ml = color[u] > ml ? color[u] : ml;
      }
    }
    if (!sel) continue;
    PetscInt c = PickColor(v, rowptr, colidx, tptr, tcol, wave, ml, color); /* colored in earlier rounds: stable */
    color[v]   = c;
    __threadfence();
    ((volatile PetscInt *)round)[v] = r;
    AtomicAddIdx(ncolored, 1);
    AtomicMaxIdx(maxcolor, c);
  }
}
static_assert(DILU_COLOR_WAVE >= 1 && DILU_COLOR_WAVE <= DILU_COLOR_WAVE_MAX && DILU_COLOR_WAVE_MAX <= 64, "KColorRound keeps the wave's colors in one 64-bit word");

/* The rounds of KColorRound without a launch per round. cnt[v] = the entries u < v of row v of A and of A^T (the
   earlier neighbors v waits for); rows with none form the first frontier. */
__global__ void KColorLowerCount(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *tptr, const PetscInt *tcol, PetscInt *cnt, PetscInt *front, PetscInt *nfront)
{
  for (PetscInt v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
    PetscInt c = 0;
    for (PetscInt k = rowptr[v]; k < rowptr[v + 1]; k++) c += colidx[k] < v;
    for (PetscInt k = tptr[v]; k < tptr[v + 1]; k++) c += tcol[k] < v;
    cnt[v] = c;
    if (!c) front[AtomicAddIdx(nfront, 1)] = v;
  }
}
/* All rounds in one cooperative launch, a grid synchronization between rounds (a launch per round costs ~30-40 us
   on an H100; a 3D stencil needs about nx + ny + nz rounds). Round r colors the rows of frontier r % 3 of the ring
   fronts[3][n] (sizes nf[3]): all their earlier neighbors were colored in earlier rounds, so each sees exactly the
   colors the sequential greedy sees (the same colors as KColorRound's rounds). A round's time is the latency of one
   row's dependent loads, so COLOR_LANES lanes share a row: each reads some of its entries (row v of A, then of A^T)
   and the lanes combine the largest earlier color and the set of colors below 64 by shuffles; the color is
   PickColor's (which the first lane calls itself only when all 64 are taken). A colored row releases its later
   neighbors (w in row v of A is an earlier-neighbor entry of row w of A^T, and w in row v of A^T one of row w of A, so
   w is released once per entry KColorLowerCount counted); the last release puts w in frontier (r + 1) % 3. Thread 0
   empties frontier (r + 2) % 3, which every thread read before the last synchronization. Colors and frontiers
   written in this launch are read past L1 (__ldcg). out: [0] rows colored, [1] largest color, [2] rounds.
   (Measured slower and removed: a group going on at once with a row its releases made ready, in the same round;
   225-285 rounds instead of 298-382, but 60-100 ms instead of 3-4 ms at ex45 100^3-128^3: one group then walks a
   long chain row after row. Also slower, on branch colorchain: up to 1-8 phases local to each block within a round,
   a block coloring the rows its own releases made ready with a block barrier between phases and fences around the
   releases; the rounds fall to 149/100/60/34 at ex45 100^3 but the coloring takes 3.6-3.7/3.9/5.4-5.5/8.5-8.8 ms
   against 2.8 ms, one H200, nineteenth session.) */
#define COLOR_LANES 16
__global__ void __launch_bounds__(BLOCK) KColorCoop(const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *tptr, const PetscInt *tcol, PetscInt wave, PetscInt n, PetscInt *cnt, PetscInt *fronts, PetscInt *nf, PetscInt *color, PetscInt *out)
{
  cooperative_groups::grid_group grid   = cooperative_groups::this_grid();
  const PetscInt                 tid    = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  const PetscInt                 grp    = tid / COLOR_LANES, ngrp = (PetscInt)gridDim.x * blockDim.x / COLOR_LANES;
  const int                      lane   = (int)(threadIdx.x % COLOR_LANES);
  const unsigned                 gmask  = ((1u << COLOR_LANES) - 1u) << ((threadIdx.x & 31u) & ~(unsigned)(COLOR_LANES - 1));
  PetscInt                       done = 0, cmax = -1, r = 0;

  static_assert(BLOCK % 32 == 0 && 32 % COLOR_LANES == 0, "KColorCoop: lane groups within a warp");
  for (;; r++) {
    const int       a = (int)(r % 3), b = (int)((r + 1) % 3), c3 = (int)((r + 2) % 3);
    const PetscInt  m     = __ldcg(&nf[a]);
    const PetscInt *front = fronts + a * n;
    PetscInt       *next  = fronts + b * n;
    if (!m) break; /* the same value in every thread: all leave together */
    if (tid == 0) nf[c3] = 0;
    for (PetscInt i = grp; i < m; i += ngrp) { /* the same i in all lanes of a group */
      const PetscInt     v = __ldcg(&front[i]), a0 = rowptr[v], na = rowptr[v + 1] - a0, t0 = tptr[v], tot = na + tptr[v + 1] - t0;
      PetscInt           ml   = -1, c = -1;
      unsigned long long used = 0;
      for (PetscInt k = lane; k < tot; k += COLOR_LANES) {
        const PetscInt u = k < na ? colidx[a0 + k] : tcol[t0 + k - na];
        if (u < v) {
          const PetscInt cu = __ldcg(&color[u]);
          ml                = cu > ml ? cu : ml;
          if (cu < 64) used |= 1ull << cu;
        }
      }
      for (int o = COLOR_LANES / 2; o > 0; o /= 2) {
        const PetscInt           om = __shfl_xor_sync(gmask, ml, o, COLOR_LANES);
        const unsigned long long ou = __shfl_xor_sync(gmask, used, o, COLOR_LANES);
        ml                          = om > ml ? om : ml;
        used |= ou;
      }
      if (~used) { /* PickColor with the first 64 colors: the next color of the wave if free, else the smallest free */
        for (PetscInt t = ml + 1; t < wave && c < 0; t++)
          if (!((used >> t) & 1ull)) c = t;
        if (c < 0) c = __ffsll((long long)~used) - 1;
      } else if (lane == 0) c = PickColor(v, rowptr, colidx, tptr, tcol, wave, ml, color);
      if (lane == 0) {
        color[v] = c;
        done++;
        cmax = c > cmax ? c : cmax;
      }
      for (PetscInt k = lane; k < tot; k += COLOR_LANES) {
        const PetscInt w = k < na ? colidx[a0 + k] : tcol[t0 + k - na];
        if (w > v && AtomicAddIdx(&cnt[w], -1) == 1) { /* one atomic on the frontier's size per warp, not per row */
          cooperative_groups::coalesced_group g = cooperative_groups::coalesced_threads();
          PetscInt                            at = 0;
          if (g.thread_rank() == 0) at = AtomicAddIdx(&nf[b], (PetscInt)g.size());
          next[g.shfl(at, 0) + (PetscInt)g.thread_rank()] = w;
        }
      }
    }
    grid.sync();
  }
  for (int o = 16; o > 0; o /= 2) {
    PetscInt od = __shfl_down_sync(0xffffffffu, done, o), om = __shfl_down_sync(0xffffffffu, cmax, o);
    done += od;
    cmax = om > cmax ? om : cmax;
  }
  if ((threadIdx.x & 31) == 0 && done) {
    AtomicAddIdx(&out[0], done);
    AtomicMaxIdx(&out[1], cmax);
  }
  if (tid == 0) out[2] = r;
}

/* The same greedy coloring in one sync-free launch: rows in index order (blocks take their rows by ticket, so every
   earlier row belongs to a block that already runs), each row waits for the flags of its earlier neighbors (rows of
   A and of A^T) and then sees exactly the colors the sequential greedy sees. The critical path is the longest chain
   of earlier neighbors (about nx + ny + nz on a 3D stencil), one flag latency each, instead of one launch per round. */
__global__ void KColorSyncFree(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *tptr, const PetscInt *tcol, PetscInt wave, PetscInt *color, PetscInt *maxcolor, unsigned *flags, unsigned epoch, unsigned *ticket)
{
  __shared__ unsigned blk;
  if (threadIdx.x == 0) blk = atomicAdd(ticket, 1u);
  __syncthreads();
  PetscInt v = (PetscInt)blk * (PetscInt)blockDim.x + (PetscInt)threadIdx.x;
  if (v >= n) return;
  PetscInt ml = -1, c = -1;
  for (int pass = 0; pass < 2; pass++) {
    const PetscInt *ptr = pass ? tptr : rowptr, *col = pass ? tcol : colidx;
    for (PetscInt k = ptr[v]; k < ptr[v + 1]; k++) {
      PetscInt u = col[k];
      if (u >= v) continue;
      WaitFlag(flags, u, epoch, ticket);
      PetscInt cu = __ldcg(&color[u]);
      ml          = cu > ml ? cu : ml;
    }
  }
  c        = PickColor(v, rowptr, colidx, tptr, tcol, wave, ml, color); /* every flag was seen above */
  color[v] = c;
  __threadfence();
  StoreRelease(&flags[v], epoch);
  AtomicMaxIdx(maxcolor, c);
}
__global__ void KColorCount(PetscInt n, const PetscInt *color, PetscInt *cnt)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) AtomicAddIdx(&cnt[color[i]], 1);
}
/* start[c] = first position of color c in the sorted colors (left -1 for a color no row has) */
__global__ void KColorStarts(PetscInt n, const PetscInt *sorted, PetscInt *start)
{
  for (PetscInt p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
    const PetscInt c = sorted[p];
    if (p == 0 || sorted[p - 1] != c) start[c] = p;
  }
}
/* upper order (colors in decreasing order) from the lower one */
__global__ void KUpperFromLower(PetscInt n, const PetscInt *lorder, const PetscInt *color, const PetscInt *llptr, const PetscInt *ulptr, PetscInt ncolors, PetscInt *uorder)
{
  for (PetscInt p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
    PetscInt i = lorder[p], c = color[i];
    uorder[ulptr[ncolors - 1 - c] + (p - llptr[c])] = i;
  }
}
/* Both halves in one pass over A's rows in A's order (coalesced reads of the pattern): row i's entries j with
   rank[j] < rank[i] go to L at L's position lpos[i], those with rank[j] > rank[i] to U at upos[i], each in the order
   of row i (the same halves as one pass per half over the positions). Count, then fill. */
__global__ void KHalvesCount(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, const PetscInt *lpos, const PetscInt *upos, PetscInt *cntL, PetscInt *cntU)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    PetscInt ri = rank[i], cl = 0, cu = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      PetscInt j = colidx[k];
      if (j == i) continue;
      PetscInt rj = rank[j];
      cl += rj < ri;
      cu += rj > ri;
    }
    cntL[lpos[i]] = cl;
    cntU[upos[i]] = cu;
  }
}
/* mapcols (multicolor, see RowArgs::perm): columns written as ranks; pairL: for each L entry (i,j) the position of a_ji */
__global__ void KHalvesFill(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, const PetscInt *lpos, const PetscInt *upos, const PetscInt *ptrL, const PetscInt *ptrU, bool mapcols, PetscInt *colL, PetscInt *srcL, PetscInt *pairL, PetscInt *colU, PetscInt *srcU)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    PetscInt ri = rank[i], ql = ptrL[lpos[i]], qu = ptrU[upos[i]];
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      PetscInt j = colidx[k];
      if (j == i) continue;
      PetscInt rj = rank[j];
      if (rj < ri) {
        colL[ql]  = mapcols ? rj : j;
        srcL[ql]  = k;
        pairL[ql] = FindPos(colidx, rowptr[j], rowptr[j + 1], i);
        ql++;
      } else {
        colU[qu] = mapcols ? rj : j;
        srcU[qu] = k;
        qu++;
      }
    }
  }
}
/* e[order[p]] = ep[p] */
__global__ void KUnpermute(PetscInt n, const PetscInt *order, const PetscScalar *ep, PetscScalar *e)
{
  for (PetscInt p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) e[order[p]] = ep[p];
}
__global__ void KDiagSrc(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *diagsrc)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) diagsrc[i] = FindPos(colidx, rowptr[i], rowptr[i + 1], i);
}

/* ---------------------------------------------------------------------------------------- numeric kernels */
__global__ void KGather(PetscInt m, const PetscInt *src, const PetscScalar *aval, PetscScalar *val)
{
  for (PetscInt q = blockIdx.x * blockDim.x + threadIdx.x; q < m; q += gridDim.x * blockDim.x) val[q] = aval[src[q]];
}
/* Richardson's unfused steps (natural): r = b - A x (A's CSR, one thread per row, the reference's order) and x += y */
__global__ void KResidual(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *aval, const PetscScalar *b, const PetscScalar *x, PetscScalar *r)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    PetscScalar t = b[i];
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) t -= aval[k] * x[colidx[k]];
    r[i] = t;
  }
}
__global__ void KAxpy(PetscInt n, const PetscScalar *y, PetscScalar *x)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] += y[i];
}
__global__ void KFill(PetscInt n, PetscScalar v, PetscScalar *y)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = v;
}

/* the arguments of the per-level kernels */
struct RowArgs {
  const PetscInt    *order, *ptr, *col, *pair, *diagsrc;
  const PetscInt    *rank; /* factor: elimination position of each row (a failure is reported by its rank) */
  const PetscScalar *val, *aval, *r;
  PetscReal          shift;
  PetscScalar       *x; /* E (factor) or y (sweeps) */
  const PetscScalar *E;
  int               *bad; /* factor: smallest rank of a failing row */
  /* multicolor (perm): x, E and col are in rank space (position in the color order), so the rows of a color
     read and write them contiguously; position p of this half is rank p + off; the backward sweep also
     writes the result in A's ordering to y */
  bool         perm;
  PetscInt     off;
  PetscScalar *y;
  bool         rperm; /* sweeps: r is already in rank space (the permuted apply); the backward sweep leaves y alone */
  bool         ylast; /* forward sweep, multicolor, the last color when the backward sweep skips it (Data::uskip0):
                         y_i = x_i here, which is what that backward level would have written */
  /* Richardson (FWD_RES, BWD_ADD): A's CSR in its own ordering (with aval) for each row's residual b - A xs, r = b,
     and the iterate xs in A's ordering, read by the forward sweep and increased by the backward sweep */
  const PetscInt *arow, *acol;
  PetscScalar    *xs;
};

/* The row operations: the factorization, the apply's two sweeps, and Richardson's fused sweeps (FWD_RES: the row's
   residual t_i = b_i - sum_k a_ik xs_k over A's whole row, then the forward row operation on t; BWD_ADD: the backward
   row operation, then xs_i += y_i) */
enum RowKind { FACTOR = 0, FORWARD = 1, BACKWARD = 2, FWD_RES = 3, BWD_ADD = 4 };

/* One row operation at position p of the current level (color): sub threads per row (coalesced reads of the
   row's entries, shuffle reduction of width sub; every lane of the warp calls this, active or not). */
template <int KIND>
__device__ __forceinline__ void RowOp(const RowArgs &a, PetscInt p, int lane, bool active, int sub)
{
  PetscInt    i = 0;
  PetscScalar s = 0.0, t = 0.0;
  if (active) {
    i = a.order[p];
    if (KIND == FACTOR) { /* one thread per row (sub == 1) subtracting in the reference's order: E is bitwise the reference's */
      PetscInt ds = a.diagsrc[i];
      s           = (ds >= 0 ? a.aval[ds] : 0.0) + a.shift;
      for (PetscInt q = a.ptr[p]; q < a.ptr[p + 1]; q++) {
        PetscInt pr = a.pair[q];
        if (pr >= 0) s -= a.val[q] * a.aval[pr] / a.x[a.col[q]];
      }
    } else {
      for (PetscInt q = a.ptr[p] + lane; q < a.ptr[p + 1]; q += sub) s += a.val[q] * a.x[a.col[q]];
      if (KIND == FWD_RES)
        for (PetscInt q = a.arow[i] + lane; q < a.arow[i + 1]; q += sub) t += a.aval[q] * a.xs[a.acol[q]];
    }
  }
  if (KIND != FACTOR)
    for (int off = sub / 2; off > 0; off /= 2) s += ShflDown(s, off, sub);
  if (KIND == FWD_RES)
    for (int off = sub / 2; off > 0; off /= 2) t += ShflDown(t, off, sub);
  if (!active || lane) return;
  const PetscInt xi = a.perm ? p + a.off : i;
  if (KIND == FACTOR) {
    PetscInt    ds = a.diagsrc[i];
    PetscScalar d0 = (ds >= 0 ? a.aval[ds] : 0.0) + a.shift, d = s;
    a.x[xi]        = d;
    if (d0 == 0.0 || d == 0.0 || !IsFinite(d)) atomicMin(a.bad, (int)a.rank[i]);
  } else if (KIND == FORWARD) {
    const PetscScalar v = (a.r[a.rperm ? xi : i] - s) / a.E[xi];
    a.x[xi]             = v;
    if (a.ylast) a.y[i] = v;
  }
  else if (KIND == FWD_RES) a.x[xi] = ((a.r[i] - t) - s) / a.E[xi];
  else {
    PetscScalar v = a.x[xi] - s / a.E[xi];
    a.x[xi]       = v;
    if (KIND == BWD_ADD) a.xs[i] += v;
    else if (a.perm && !a.rperm) a.y[i] = v;
  }
}

/* the rows of one level (color), all independent; SUB threads per row, chosen from the half's average row length
   by LaunchLevel() */
template <int KIND, int SUB>
__global__ void KLevel(RowArgs a, PetscInt lo, PetscInt hi)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  /* launched as a programmatic dependent of the previous color (SetPDL): wait here until it has completed and its
     writes are visible (a no-op for an ordinary launch) */
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  const PetscInt t = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  const PetscInt p = lo + t / SUB;
  RowOp<KIND>(a, p, (int)(t % SUB), p < hi, SUB);
}

/* The apply's row operation (FORWARD, BACKWARD) of KLevel, split for a programmatic dependent launch (SetPDL): what
   no earlier color writes (the row's position in this half, its entries' columns and values, E, and for the forward
   sweep r) is loaded before griddepcontrol.wait, while the previous color still runs; only x (the previous colors'
   results) is read after it. Then the kernel lets the next color launch (griddepcontrol.launch_dependents), whose
   early part in turn overlaps this one. The sums run in KLevel's order (each lane its entries q = ptr[p] + lane,
   + sub, ..., then the shuffles), so the bits are KLevel's.
   Safe because the first color of the apply's chain is launched by KLevel (whose first instruction is the wait):
   the launch of color l >= 1 follows color l-1's wait, which followed the completion of color l-2 and, through
   color 0's wait, of everything before the chain (r, E and the halves' values included). */
static constexpr int PRE_ENTRIES = 4; /* a lane's entries held in registers across the wait (more: read after it) */
template <int KIND, int SUB>
__global__ void KLevelPre(RowArgs a, PetscInt lo, PetscInt hi)
{
  static_assert(KIND == FORWARD || KIND == BACKWARD, "KLevelPre: the apply's sweeps only");
  const PetscInt t = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  const PetscInt p = lo + t / SUB;
  const int      lane = (int)(t % SUB);
  const bool     active = p < hi;
  PetscInt       i = 0, xi = 0, q0 = 0, q1 = 0, c[PRE_ENTRIES];
  PetscScalar    v[PRE_ENTRIES], Ei = 1.0, ri = 0.0, s = 0.0;
  if (active) {
    i  = a.order[p];
    xi = a.perm ? p + a.off : i;
    q0 = a.ptr[p] + lane;
    q1 = a.ptr[p + 1];
#pragma unroll
    for (int k = 0; k < PRE_ENTRIES; k++) {
      const PetscInt q = q0 + (PetscInt)k * SUB;
      c[k]             = q < q1 ? a.col[q] : 0;
      v[k]             = q < q1 ? a.val[q] : 0.0;
    }
    if (lane == 0) {
      Ei = a.E[xi];
      if (KIND == FORWARD) ri = a.r[a.rperm ? xi : i];
    }
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  if (active) {
#pragma unroll
    for (int k = 0; k < PRE_ENTRIES; k++)
      if (q0 + (PetscInt)k * SUB < q1) s += v[k] * a.x[c[k]];
    for (PetscInt q = q0 + (PetscInt)PRE_ENTRIES * SUB; q < q1; q += SUB) s += a.val[q] * a.x[a.col[q]];
  }
  for (int off = SUB / 2; off > 0; off /= 2) s += ShflDown(s, off, SUB);
  if (!active || lane) return;
  if (KIND == FORWARD) {
    const PetscScalar v = (ri - s) / Ei;
    a.x[xi]             = v;
    if (a.ylast) a.y[i] = v;
  } else {
    PetscScalar w = a.x[xi] - s / Ei;
    a.x[xi]       = w;
    if (a.perm && !a.rperm) a.y[i] = w;
  }
}

/* multicolor apply of a small matrix: both sweeps, color after color, in one thread block (a barrier between
   colors instead of a launch per color). The row operations are those of KLevel with the same threads per row,
   so the result has the same bits as the per-color launches. */
static constexpr unsigned SMALLBLOCK = 1024;
template <int FK, int BK> /* FORWARD, BACKWARD (the apply) or FWD_RES, BWD_ADD (a Richardson step) */
__global__ void __launch_bounds__(SMALLBLOCK) KApplySmall(RowArgs aL, RowArgs aU, const PetscInt *llptr, const PetscInt *ulptr, PetscInt ncolors, int subL, int subU)
{
  for (PetscInt l = 0; l < ncolors; l++) {
    const PetscInt lo = llptr[l], hi = llptr[l + 1];
    for (PetscInt base = lo; base < hi; base += (PetscInt)(blockDim.x / subL)) {
      const PetscInt p = base + (PetscInt)(threadIdx.x / subL);
      RowOp<FK>(aL, p, (int)(threadIdx.x % subL), p < hi, subL);
    }
    __syncthreads();
  }
  for (PetscInt l = 0; l < ncolors; l++) {
    const PetscInt lo = ulptr[l], hi = ulptr[l + 1];
    RowArgs        a  = aU;
    a.off             = llptr[ncolors - 1 - l] - lo; /* U's color block -> its ranks, as RunSweep */
    for (PetscInt base = lo; base < hi; base += (PetscInt)(blockDim.x / subU)) {
      const PetscInt p = base + (PetscInt)(threadIdx.x / subU);
      RowOp<BK>(a, p, (int)(threadIdx.x % subU), p < hi, subU);
    }
    __syncthreads();
  }
}

/* one level kernel, as a programmatic dependent launch of the previous kernel in the stream when pdl (sm_90: its
   launch overlaps the previous color's tail; the kernel waits for it with griddepcontrol.wait) */
template <int KIND, int SUB>
static void LaunchK(unsigned grid, cudaStream_t s, bool pdl, bool pre, const RowArgs &a, PetscInt lo, PetscInt hi)
{
  if (!pdl) {
    KLevel<KIND, SUB><<<grid, BLOCK, 0, s>>>(a, lo, hi);
    return;
  }
  cudaLaunchConfig_t  cfg = {};
  cudaLaunchAttribute at[1];
  at[0].id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.gridDim                                      = dim3(grid);
  cfg.blockDim                                     = dim3(BLOCK);
  cfg.dynamicSmemBytes                             = 0;
  cfg.stream                                       = s;
  cfg.attrs                                        = at;
  cfg.numAttrs                                     = 1;
  if constexpr (KIND == FORWARD || KIND == BACKWARD)
    if (pre) {
      (void)cudaLaunchKernelEx(&cfg, KLevelPre<KIND, SUB>, a, lo, hi); /* an error is left for PGXCheckLaunch */
      return;
    }
  (void)cudaLaunchKernelEx(&cfg, KLevel<KIND, SUB>, a, lo, hi);
}

/* the one place that maps the threads-per-row choice to a kernel instance */
template <int KIND>
static PetscErrorCode LaunchLevel(const RowArgs &a, PetscInt lo, PetscInt hi, int sub, cudaStream_t s, bool pdl, bool pre = false)
{
  PetscFunctionBegin;
  unsigned grid = PGXCUDAGridSize((hi - lo) * (PetscInt)sub, BLOCK);
  switch (sub) {
  case 1: LaunchK<KIND, 1>(grid, s, pdl, pre, a, lo, hi); break;
  case 2: LaunchK<KIND, 2>(grid, s, pdl, pre, a, lo, hi); break;
  case 4: LaunchK<KIND, 4>(grid, s, pdl, pre, a, lo, hi); break;
  case 8: LaunchK<KIND, 8>(grid, s, pdl, pre, a, lo, hi); break;
  case 16: LaunchK<KIND, 16>(grid, s, pdl, pre, a, lo, hi); break;
  default: LaunchK<KIND, 32>(grid, s, pdl, pre, a, lo, hi); break;
  }
  PGXCheckLaunch("PCDILU KLevel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* threads per row: the largest power of two <= the average row length (of nnz entries in n rows), in [1, 32] */
static inline int ThreadsPerRow(PetscInt nnz, PetscInt n)
{
  PetscInt avg = n ? nnz / n : 0;
  int      sub = 1;
  while (sub < 32 && 2 * sub <= avg) sub *= 2;
  return sub;
}
/* ... of a half */
static inline int ThreadsPerRow(const Sweep &S, PetscInt n)
{
  return ThreadsPerRow(S.nnz, n);
}

/* level of each row in the lower (upper) dependency graph of the natural order: a longest-path DAG sweep,
   sync-free like the sweeps (rows in index order, reversed for upper; dependencies come earlier) */
__global__ void KLevelsSyncFree(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, bool upper, PetscInt *level, PetscInt *maxlevel, unsigned *flags, unsigned epoch, unsigned *ticket)
{
  __shared__ unsigned blk;
  if (threadIdx.x == 0) blk = atomicAdd(ticket, 1u);
  __syncthreads();
  PetscInt p = (PetscInt)blk * (PetscInt)blockDim.x + (PetscInt)threadIdx.x;
  if (p >= n) return;
  PetscInt i = upper ? n - 1 - p : p, l = 0;
  for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
    PetscInt j = colidx[k];
    if (upper ? j <= i : j >= i) continue;
    WaitFlag(flags, j, epoch, ticket);
    PetscInt lj = __ldcg(&level[j]);
    l           = lj + 1 > l ? lj + 1 : l;
  }
  level[i] = l;
  __threadfence();
  StoreRelease(&flags[i], epoch);
  AtomicMaxIdx(maxlevel, l);
}

/* ---------------------------------------------------------------------------------------- host side */
PetscErrorCode Create(Data **d)
{
  PetscFunctionBegin;
  *d = new Data();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Destroy(Data **d)
{
  PetscFunctionBegin;
  if (d && *d) {
    cudaStream_t s;
    PetscCall(PGXCUDAGetStream(&s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    delete *d; /* its arrays back to the pool, then the pool's free memory back to the device */
    *d = nullptr;
    PetscCall(TrimScratch(s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* grid of a grid-stride loop over n items */
static inline unsigned Grid(PetscInt n)
{
  unsigned g = PGXCUDAGridSize(n, BLOCK);
  return g > 1048576u ? 1048576u : g;
}

/* exclusive scan of cnt[0..m) into out[0..m] (out[m] = total); returns the total */
static PetscErrorCode ExclusiveScan(PetscInt m, const PetscInt *cnt, PetscInt *out, PetscInt *total, cudaStream_t s)
{
  size_t                bytes = 0;
  PoolArray<char>     tmp;
  PoolArray<PetscInt> in;

  PetscFunctionBegin;
  PetscCall(in.resize(m + 1));
  PGXCallCUDA(cudaMemsetAsync(in.data(), 0, (m + 1) * sizeof(PetscInt), s));
  if (m) PGXCallCUDA(cudaMemcpyAsync(in.data(), cnt, m * sizeof(PetscInt), cudaMemcpyDeviceToDevice, s));
  PGXCallCUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in.data(), out, (int)(m + 1), s));
  PetscCall(tmp.resize(bytes ? bytes : 1));
  PGXCallCUDA(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, in.data(), out, (int)(m + 1), s));
  PGXCallCUDA(cudaMemcpyAsync(total, out + m, sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* L and U of d in the orders d->L.order and d->U.order (already set; n > 0): one count and one fill over A's rows for
   both halves, their two scans, one synchronization for both sizes (was: a count, a scan with its synchronization and
   a fill per half over the positions, then a pass mapping the columns to ranks). mapcols (multicolor): columns as
   ranks (see RowArgs::perm); d->rank is then L's position of each row. */
static PetscErrorCode BuildHalves(Data *d, bool mapcols, cudaStream_t s)
{
  const PetscInt        n = d->n;
  PetscInt              h[2] = {0, 0};
  size_t                bytes = 0;
  PoolArray<PetscInt> cnt, pos, tot;
  PoolArray<char>     tmp;

  PetscFunctionBegin;
  PetscCall(cnt.resize(2 * (n + 1)));
  PetscCall(pos.resize(mapcols ? n : 2 * n));
  PetscCall(tot.resize(2));
  PetscCall(d->L.ptr.resize(n + 1));
  PetscCall(d->U.ptr.resize(n + 1));
  PetscInt *cntL = cnt.data(), *cntU = cnt.data() + n + 1, *upos = pos.data(), *lpos = mapcols ? d->rank.data() : pos.data() + n;
  KScatterRank<<<Grid(n), BLOCK, 0, s>>>(n, d->U.order.data(), upos);
  PGXCheckLaunch("KScatterRank (U)");
  if (!mapcols) {
    KScatterRank<<<Grid(n), BLOCK, 0, s>>>(n, d->L.order.data(), lpos);
    PGXCheckLaunch("KScatterRank (L)");
  }
  PGXCallCUDA(cudaMemsetAsync(cntL + n, 0, sizeof(PetscInt), s));
  PGXCallCUDA(cudaMemsetAsync(cntU + n, 0, sizeof(PetscInt), s));
  KHalvesCount<<<Grid(n), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), d->rank.data(), lpos, upos, cntL, cntU);
  PGXCheckLaunch("KHalvesCount");
  PGXCallCUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, cntL, d->L.ptr.data(), (int)(n + 1), s));
  PetscCall(tmp.resize(bytes ? bytes : 1));
  PGXCallCUDA(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, cntL, d->L.ptr.data(), (int)(n + 1), s));
  PGXCallCUDA(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, cntU, d->U.ptr.data(), (int)(n + 1), s));
  PGXCallCUDA(cudaMemcpyAsync(tot.data(), d->L.ptr.data() + n, sizeof(PetscInt), cudaMemcpyDeviceToDevice, s));
  PGXCallCUDA(cudaMemcpyAsync(tot.data() + 1, d->U.ptr.data() + n, sizeof(PetscInt), cudaMemcpyDeviceToDevice, s));
  PGXCallCUDA(cudaMemcpyAsync(h, tot.data(), 2 * sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  d->L.nnz = h[0];
  d->U.nnz = h[1];
  PetscCall(d->L.col.resize(h[0] ? h[0] : 1));
  PetscCall(d->L.src.resize(h[0] ? h[0] : 1));
  PetscCall(d->L.val.resize(h[0] ? h[0] : 1));
  PetscCall(d->lpair.resize(h[0] ? h[0] : 1));
  PetscCall(d->U.col.resize(h[1] ? h[1] : 1));
  PetscCall(d->U.src.resize(h[1] ? h[1] : 1));
  PetscCall(d->U.val.resize(h[1] ? h[1] : 1));
  KHalvesFill<<<Grid(n), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), d->rank.data(), lpos, upos, d->L.ptr.data(), d->U.ptr.data(), mapcols, d->L.col.data(), d->L.src.data(), d->lpair.data(), d->U.col.data(), d->U.src.data());
  PGXCheckLaunch("KHalvesFill");
  PetscFunctionReturn(PETSC_SUCCESS); /* cnt, pos, tot and tmp are freed in stream order (PoolArray) */
}

static PetscErrorCode NextEpoch(Data *, cudaStream_t, unsigned *);
static PetscErrorCode CheckHang(Data *, cudaStream_t, const char *);

/* The wave coloring of the symmetrized graph on the GPU (d->wave; the reference's colors, by KColorSyncFree or by
   rounds of KColorRound) */
static PetscErrorCode ColorGPU(Data *d, cudaStream_t s)
{
  PetscInt              n = d->n, nnz = d->nnz, total = 0, h[2];
  PoolArray<PetscInt> tcnt, tptr, tnext, tcol, round, counters;

  PetscFunctionBegin;
  /* A^T's pattern (column order within a row does not matter for the coloring) */
  PetscCall(tcnt.resize(n));
  PGXCallCUDA(cudaMemsetAsync(tcnt.data(), 0, n * sizeof(PetscInt), s));
  if (nnz) {
    KColumnCount<<<Grid(nnz), BLOCK, 0, s>>>(nnz, d->colidx.data(), tcnt.data());
    PGXCheckLaunch("KColumnCount");
  }
  PetscCall(tptr.resize(n + 1));
  PetscCall(ExclusiveScan(n, tcnt.data(), tptr.data(), &total, s));
  PetscCheck(total == nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCDILU cuda coloring: transpose has %" PetscInt_FMT " entries, expected %" PetscInt_FMT, total, nnz);
  PetscCall(tnext.resize(n));
  PGXCallCUDA(cudaMemcpyAsync(tnext.data(), tptr.data(), n * sizeof(PetscInt), cudaMemcpyDeviceToDevice, s));
  PetscCall(tcol.resize(nnz ? nnz : 1));
  KTransposeFill<<<Grid(n), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), tnext.data(), tcol.data());
  PGXCheckLaunch("KTransposeFill");
  /* rounds in one launch of KColorCoop (default), rounds of KColorRound launches (-pc_dilu_color_coop 0, or a device
     without cooperative launches), or one sync-free launch of KColorSyncFree (-pc_dilu_color_rounds 0): the same colors.
     Measured on an H100 (ex45, 7-point): cooperative 3.0 ms at 100^3 (298 rounds), 3.9 ms at 128^3 (382 rounds); a launch
     per round 7.5-8.6 and 15 ms; sync-free 16 and 33 ms (each row waits for the row before it: the chain along x is
     serial inside a block) */
  PetscCall(d->color.resize(n));
  PetscCall(counters.resize(2)); /* colored, max color */
  h[0] = 0, h[1] = -1;
  PGXCallCUDA(cudaMemcpyAsync(counters.data(), h, 2 * sizeof(PetscInt), cudaMemcpyHostToDevice, s));
  d->colorrnds = 0;
  if (d->colorrounds && d->colorcoop && n) { /* all rounds in one cooperative launch, where all its blocks fit */
    static int            maxblocks = -1; /* one device per process */
    const cudaDeviceProp *prop;
    if (maxblocks < 0) {
      int b = 0;
      PetscCall(PGXCUDAGetDeviceProperties(&prop));
      PGXCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, KColorCoop, BLOCK, 0));
      int bpsm = 8; /* blocks per SM (at most): 2, 4 and 8 measured within 10% of each other on ex45 100^3 and 128^3 (H100, calls 2-3 of the fourteenth session) */
      if (const char *e = getenv("PGX_DILU_COLOR_BLOCKS_PER_SM")) bpsm = atoi(e); /* measurement knob */
      maxblocks = prop->cooperativeLaunch ? PetscMax(1, PetscMin(b, bpsm)) * prop->multiProcessorCount : 0;
    }
    if (maxblocks > 0) {
      PoolArray<PetscInt> work;
      PetscInt              G = PetscMin((PetscInt)maxblocks, (n + (PetscInt)BLOCK - 1) / (PetscInt)BLOCK), h3[3] = {0, -1, 0};
      PetscCall(work.resize(4 * n)); /* cnt, then the ring of three frontiers */
      PetscCall(counters.resize(6)); /* out[3], nf[3] */
      PGXCallCUDA(cudaMemsetAsync(counters.data(), 0, 6 * sizeof(PetscInt), s));
      PGXCallCUDA(cudaMemcpyAsync(counters.data(), h3, 3 * sizeof(PetscInt), cudaMemcpyHostToDevice, s));
      KColorLowerCount<<<Grid(n), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), tptr.data(), tcol.data(), work.data(), work.data() + n, counters.data() + 3);
      PGXCheckLaunch("KColorLowerCount");
      {
        const PetscInt *rp = d->rowptr.data(), *ci = d->colidx.data(), *tp = tptr.data(), *tc = tcol.data();
        PetscInt        wv = d->wave, nn = n, *cnt = work.data(), *fr = work.data() + n, *nf = counters.data() + 3, *col = d->color.data(), *out = counters.data();
        void           *args[] = {(void *)&rp, (void *)&ci, (void *)&tp, (void *)&tc, (void *)&wv, (void *)&nn, (void *)&cnt, (void *)&fr, (void *)&nf, (void *)&col, (void *)&out};
        PGXCallCUDA(cudaLaunchCooperativeKernel((const void *)KColorCoop, dim3((unsigned)G), dim3(BLOCK), args, 0, s));
      }
      PGXCallCUDA(cudaMemcpyAsync(h3, counters.data(), 3 * sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
      PGXCallCUDA(cudaStreamSynchronize(s));
      PetscCheck(h3[0] == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCDILU cuda coloring colored %" PetscInt_FMT " of %" PetscInt_FMT " rows in %" PetscInt_FMT " rounds", h3[0], n, h3[2]);
      d->ncolors    = h3[1] + 1;
      d->colorpath  = 2;
      d->colorrnds  = h3[2];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  d->colorpath = d->colorrounds ? 1 : 0;
  if (!d->colorrounds) {
    unsigned epoch;
    PetscCall(NextEpoch(d, s, &epoch));
    KColorSyncFree<<<PGXCUDAGridSize(n, BLOCK), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), tptr.data(), tcol.data(), d->wave, d->color.data(), counters.data() + 1, d->flags.data(), epoch, d->ticket.data());
    PGXCheckLaunch("KColorSyncFree");
    PGXCallCUDA(cudaMemcpyAsync(h, counters.data(), 2 * sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
    PetscCall(CheckHang(d, s, "coloring"));
  } else {
    PetscCall(round.resize(n));
    PGXCallCUDA(cudaMemsetAsync(round.data(), 0xff, n * sizeof(PetscInt), s)); /* -1 */
    PGXCallCUDA(cudaMemsetAsync(d->color.data(), 0xff, n * sizeof(PetscInt), s));
    for (PetscInt r = 0; h[0] < n; r += 8) { /* rounds, a few between host checks */
      PetscCheck(r < 4 * n + 8, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCDILU cuda coloring did not finish after %" PetscInt_FMT " rounds (%" PetscInt_FMT " of %" PetscInt_FMT " rows colored)", r, h[0], n);
      for (PetscInt q = 0; q < 8; q++) {
        KColorRound<<<Grid(n), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), tptr.data(), tcol.data(), d->wave, r + q, round.data(), d->color.data(), counters.data(), counters.data() + 1);
        PGXCheckLaunch("KColorRound");
      }
      PGXCallCUDA(cudaMemcpyAsync(h, counters.data(), 2 * sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
      PGXCallCUDA(cudaStreamSynchronize(s));
    }
  }
  d->ncolors = h[1] + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* lower and upper orders and level pointers from d->color (device) and d->ncolors */
static PetscErrorCode ColorOrders(Data *d, cudaStream_t s)
{
  PetscInt              n = d->n, nc = d->ncolors;
  PoolArray<PetscInt> keys_out, vals_in, cnt, dl, du;
  PoolArray<char>     tmp;
  size_t                bytes = 0;
  int                   bits  = 1;
  std::vector<PetscInt> hc(nc);

  PetscFunctionBegin;
  while ((1 << bits) < nc + 1 && bits < 31) bits++;
  PetscCall(keys_out.resize(n));
  PetscCall(vals_in.resize(n));
  PetscCall(d->L.order.resize(n));
  PetscCall(d->U.order.resize(n));
  KIota<<<Grid(n), BLOCK, 0, s>>>(n, vals_in.data());
  PGXCheckLaunch("KIota");
  PGXCallCUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, d->color.data(), keys_out.data(), vals_in.data(), d->L.order.data(), (int)n, 0, bits, s));
  PetscCall(tmp.resize(bytes ? bytes : 1));
  PGXCallCUDA(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, d->color.data(), keys_out.data(), vals_in.data(), d->L.order.data(), (int)n, 0, bits, s));
  /* color sizes -> level pointers (host), upper order reversed by color; the sizes from where each color starts in
     the sorted colors (no atomics: a histogram of n rows into a few counters serializes on them) */
  PetscCall(cnt.resize(nc));
  PGXCallCUDA(cudaMemsetAsync(cnt.data(), 0xff, nc * sizeof(PetscInt), s)); /* -1: no row of that color */
  KColorStarts<<<Grid(n), BLOCK, 0, s>>>(n, keys_out.data(), cnt.data());
  PGXCheckLaunch("KColorStarts");
  PGXCallCUDA(cudaMemcpyAsync(hc.data(), cnt.data(), nc * sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  for (PetscInt c = nc - 1, next = n; c >= 0; c--) { /* starts -> sizes */
    const PetscInt start = hc[c] < 0 ? next : hc[c];
    hc[c]                = next - start;
    next                 = start;
  }
  d->L.lptr.assign(nc + 1, 0);
  d->U.lptr.assign(nc + 1, 0);
  for (PetscInt c = 0; c < nc; c++) d->L.lptr[c + 1] = d->L.lptr[c] + hc[c];
  for (PetscInt l = 0; l < nc; l++) d->U.lptr[l + 1] = d->U.lptr[l] + hc[nc - 1 - l];
  d->L.nlevels = d->U.nlevels = nc;
  PetscCall(dl.upload(d->L.lptr.data(), nc + 1));
  PetscCall(du.upload(d->U.lptr.data(), nc + 1));
  KUpperFromLower<<<Grid(n), BLOCK, 0, s>>>(n, d->L.order.data(), d->color.data(), dl.data(), du.data(), nc, d->U.order.data());
  PGXCheckLaunch("KUpperFromLower");
  /* rank = position in the lower order */
  PetscCall(d->rank.resize(n));
  KScatterRank<<<Grid(n), BLOCK, 0, s>>>(n, d->L.order.data(), d->rank.data());
  PGXCheckLaunch("KScatterRank");
  PGXCallCUDA(cudaStreamSynchronize(s)); /* dl, du, keys_out, tmp are freed on return */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the next epoch of the ready flags (natural schedule) */
static PetscErrorCode NextEpoch(Data *d, cudaStream_t s, unsigned *epoch)
{
  PetscFunctionBegin;
  if (d->epoch >= 0xFFFFFFF0u) {
    PGXCallCUDA(cudaMemsetAsync(d->flags.data(), 0, d->n * sizeof(unsigned), s));
    d->epoch = 0;
  }
  *epoch = ++d->epoch;
  PGXCallCUDA(cudaMemsetAsync(d->ticket.data(), 0, sizeof(unsigned), s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after a synchronization: did a sync-free wait give up? (a schedule bug; never expected) */
static PetscErrorCode CheckHang(Data *d, cudaStream_t s, const char *what)
{
  unsigned h = 0;

  PetscFunctionBegin;
  PGXCallCUDA(cudaMemcpyAsync(&h, d->ticket.data() + 1, sizeof(unsigned), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscCheck(!h, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCDILU cuda: a sync-free %s waited too long for a dependency (a scheduling bug: please report it); results are invalid", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* natural: level sets of the lower (upper) sweep on the GPU, rows sorted by level (stable: index order
   within a level, as the reference) */
static PetscErrorCode LevelSetsGPU(Data *d, bool upper, Sweep &S, cudaStream_t s)
{
  PetscInt              n = d->n, hmax = 0, nl, total;
  PoolArray<PetscInt> level, maxl, keys_out, vals_in, cnt, dlptr;
  PoolArray<char>     tmp;
  size_t                bytes = 0;
  int                   bits  = 1;
  unsigned              epoch;

  PetscFunctionBegin;
  PetscCall(level.resize(n));
  PetscCall(maxl.resize(1));
  PGXCallCUDA(cudaMemsetAsync(maxl.data(), 0, sizeof(PetscInt), s));
  PetscCall(NextEpoch(d, s, &epoch));
  KLevelsSyncFree<<<PGXCUDAGridSize(n, BLOCK), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), upper, level.data(), maxl.data(), d->flags.data(), epoch, d->ticket.data());
  PGXCheckLaunch("KLevelsSyncFree");
  PGXCallCUDA(cudaMemcpyAsync(&hmax, maxl.data(), sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
  PetscCall(CheckHang(d, s, "level-set computation"));
  nl = hmax + 1;
  while ((1LL << bits) < (long long)nl + 1 && bits < (int)(8 * sizeof(PetscInt))) bits++;
  PetscCall(keys_out.resize(n));
  PetscCall(vals_in.resize(n));
  PetscCall(S.order.resize(n));
  KIota<<<Grid(n), BLOCK, 0, s>>>(n, vals_in.data());
  PGXCheckLaunch("KIota");
  PGXCallCUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, level.data(), keys_out.data(), vals_in.data(), S.order.data(), (int)n, 0, bits, s));
  PetscCall(tmp.resize(bytes ? bytes : 1));
  PGXCallCUDA(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, level.data(), keys_out.data(), vals_in.data(), S.order.data(), (int)n, 0, bits, s));
  PetscCall(cnt.resize(nl));
  PGXCallCUDA(cudaMemsetAsync(cnt.data(), 0, nl * sizeof(PetscInt), s));
  KColorCount<<<Grid(n), BLOCK, 0, s>>>(n, level.data(), cnt.data()); /* histogram of the levels */
  PGXCheckLaunch("KColorCount (levels)");
  PetscCall(dlptr.resize(nl + 1));
  PetscCall(ExclusiveScan(nl, cnt.data(), dlptr.data(), &total, s));
  PetscCheck(total == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCDILU cuda level sets cover %" PetscInt_FMT " of %" PetscInt_FMT " rows", total, n);
  S.nlevels = nl;
  S.lptr.resize(nl + 1);
  PGXCallCUDA(cudaMemcpyAsync(S.lptr.data(), dlptr.data(), (nl + 1) * sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ void KCountMissingDiag(PetscInt n, const PetscInt *diagsrc, PetscInt *missing)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (diagsrc[i] < 0) AtomicAddIdx(missing, 1);
}
/* EA = A's values with E in the diagonal slots */
__global__ void KWriteDiag(PetscInt n, const PetscInt *diagsrc, const PetscScalar *E, PetscScalar *EA)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) EA[diagsrc[i]] = E[i];
}
__global__ void KScaleE(PetscInt n, const PetscScalar *E, PetscScalar *w)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) w[i] *= E[i];
}

/* natural: cuSPARSE SpSV descriptors and analyses on EA (d->diagsrc set); d->spsv stays false when a row
   stores no diagonal (SpSV needs the slot; the per-level sweeps serve such matrices) */
static PetscErrorCode SetUpSpSV(Data *d, cudaStream_t s)
{
  PetscInt              n = d->n, nnz = d->nnz, missing = 0;
  PoolArray<PetscInt> cnt;
  cusparseHandle_t      h;
  cusparseIndexType_t   it  = sizeof(PetscInt) == 8 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  const PetscScalar     one = 1.0; /* alpha of the scalar type (CUDA_SCALAR) */
  size_t                bl = 0, bu = 0;
  cusparseFillMode_t    fl = CUSPARSE_FILL_MODE_LOWER, fu = CUSPARSE_FILL_MODE_UPPER;
  cusparseDiagType_t    dt = CUSPARSE_DIAG_TYPE_NON_UNIT;

  PetscFunctionBegin;
  d->FreeSpSV();
  if (!n || !nnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(cnt.resize(1));
  PGXCallCUDA(cudaMemsetAsync(cnt.data(), 0, sizeof(PetscInt), s));
  KCountMissingDiag<<<Grid(n), BLOCK, 0, s>>>(n, d->diagsrc.data(), cnt.data());
  PGXCheckLaunch("KCountMissingDiag");
  PGXCallCUDA(cudaMemcpyAsync(&missing, cnt.data(), sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  if (missing) {
    PetscCall(PetscInfo(NULL, "PCDILU cuda: %" PetscInt_FMT " rows store no diagonal entry; natural sweeps by level launches instead of cuSPARSE SpSV\n", missing));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PGXCUDAGetCUSPARSE(&h));
  PetscCall(d->EA.resize(nnz));
  PetscCall(d->work.resize(n));
  KFill<<<Grid(nnz), BLOCK, 0, s>>>(nnz, 1.0, d->EA.data()); /* placeholder values until the first numeric setup */
  PGXCheckLaunch("KFill EA");
  KFill<<<Grid(n), BLOCK, 0, s>>>(n, 0.0, d->work.data());
  PGXCheckLaunch("KFill work");
  PGXCallCUSPARSE(cusparseCreateCsr(&d->mL, n, n, nnz, d->rowptr.data(), d->colidx.data(), d->EA.data(), it, it, CUSPARSE_INDEX_BASE_ZERO, CUDA_SCALAR));
  PGXCallCUSPARSE(cusparseCreateCsr(&d->mU, n, n, nnz, d->rowptr.data(), d->colidx.data(), d->EA.data(), it, it, CUSPARSE_INDEX_BASE_ZERO, CUDA_SCALAR));
  PGXCallCUSPARSE(cusparseSpMatSetAttribute(d->mL, CUSPARSE_SPMAT_FILL_MODE, &fl, sizeof(fl)));
  PGXCallCUSPARSE(cusparseSpMatSetAttribute(d->mL, CUSPARSE_SPMAT_DIAG_TYPE, &dt, sizeof(dt)));
  PGXCallCUSPARSE(cusparseSpMatSetAttribute(d->mU, CUSPARSE_SPMAT_FILL_MODE, &fu, sizeof(fu)));
  PGXCallCUSPARSE(cusparseSpMatSetAttribute(d->mU, CUSPARSE_SPMAT_DIAG_TYPE, &dt, sizeof(dt)));
  PGXCallCUSPARSE(cusparseCreateDnVec(&d->vr, n, d->work.data(), CUDA_SCALAR));
  PGXCallCUSPARSE(cusparseCreateDnVec(&d->vw, n, d->work.data(), CUDA_SCALAR));
  PGXCallCUSPARSE(cusparseCreateDnVec(&d->vy, n, d->work.data(), CUDA_SCALAR));
  PGXCallCUSPARSE(cusparseSpSV_createDescr(&d->sL));
  PGXCallCUSPARSE(cusparseSpSV_createDescr(&d->sU));
  PGXCallCUSPARSE(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mL, d->vr, d->vw, CUDA_SCALAR, CUSPARSE_SPSV_ALG_DEFAULT, d->sL, &bl));
  PGXCallCUSPARSE(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mU, d->vw, d->vy, CUDA_SCALAR, CUSPARSE_SPSV_ALG_DEFAULT, d->sU, &bu));
  PetscCall(d->bufL.resize(bl ? bl : 1));
  PetscCall(d->bufU.resize(bu ? bu : 1));
  PGXCallCUSPARSE(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mL, d->vr, d->vw, CUDA_SCALAR, CUSPARSE_SPSV_ALG_DEFAULT, d->sL, d->bufL.data()));
  PGXCallCUSPARSE(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mU, d->vw, d->vy, CUDA_SCALAR, CUSPARSE_SPSV_ALG_DEFAULT, d->sU, d->bufU.data()));
  d->spsv = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* natural: E into EA's diagonal slots, and the SpSV analyses told about the new values (no new analysis) */
static PetscErrorCode RefreshSpSV(Data *d, cudaStream_t s)
{
  cusparseHandle_t h;

  PetscFunctionBegin;
  if (!d->spsv) PetscFunctionReturn(PETSC_SUCCESS);
  PGXCallCUDA(cudaMemcpyAsync(d->EA.data(), d->aval.data(), d->nnz * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, s));
  KWriteDiag<<<Grid(d->n), BLOCK, 0, s>>>(d->n, d->diagsrc.data(), d->E.data(), d->EA.data());
  PGXCheckLaunch("KWriteDiag");
  PetscCall(PGXCUDAGetCUSPARSE(&h));
  PGXCallCUSPARSE(cusparseSpSV_updateMatrix(h, d->sL, d->EA.data(), CUSPARSE_SPSV_UPDATE_GENERAL));
  PGXCallCUSPARSE(cusparseSpSV_updateMatrix(h, d->sU, d->EA.data(), CUSPARSE_SPSV_UPDATE_GENERAL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the analysis from the pattern on the host (rowptr, colidx) or on the device (drowptr, dcolidx) */
static PetscErrorCode AnalyzeImpl(Data *d, PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *drowptr, const PetscInt *dcolidx, PetscBool multicolor, const PetscInt *color, PetscInt ncolors, PetscInt *nlower, PetscInt *nupper)
{
  cudaStream_t s;

  PetscFunctionBegin;
  d->gapply.reset();
  d->gfactor.reset();
  d->nfactor = 0;
  d->gstaged.reset();
  d->gperm.reset();
  d->grich.reset();
  d->grich0.reset();
  d->FreeSpSV();
  d->multicolor = multicolor ? true : false;
  d->uskip0     = false;
  d->n          = n;
  if (n == 0) { /* a rank without rows */
    if (nlower) *nlower = 0;
    if (nupper) *nupper = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PGXCUDAGetStream(&s));
  PetscInt u0ptr[2] = {-1, -1}; /* multicolor: U's first level in U's entries (Data::uskip0) */
  /* -info: the time of each phase (a synchronization after each; none without -info) */
  PetscBool      prof = PETSC_FALSE;
  PetscLogDouble tp[6] = {0, 0, 0, 0, 0, 0};
  PetscCall(PetscInfoEnabled(PC_CLASSID, &prof));
  auto mark = [&](int i) -> PetscErrorCode {
    PetscFunctionBegin;
    if (prof) {
      PGXCallCUDA(cudaStreamSynchronize(s));
      PetscCall(PetscTime(&tp[i]));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  PetscCall(mark(0));
  if (drowptr) { /* device to device: no host copy of the pattern */
    PGXCallCUDA(cudaMemcpyAsync(&d->nnz, drowptr + n, sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    PetscCall(d->rowptr.resize(n + 1));
    PGXCallCUDA(cudaMemcpyAsync(d->rowptr.data(), drowptr, (n + 1) * sizeof(PetscInt), cudaMemcpyDeviceToDevice, s));
    PetscCall(d->colidx.resize(d->nnz ? d->nnz : 1));
    if (d->nnz) PGXCallCUDA(cudaMemcpyAsync(d->colidx.data(), dcolidx, d->nnz * sizeof(PetscInt), cudaMemcpyDeviceToDevice, s));
  } else {
    d->nnz = rowptr[n];
    PetscCall(d->rowptr.upload(rowptr, n + 1));
    PetscCall(d->colidx.upload(colidx, d->nnz ? d->nnz : 0));
    if (!d->nnz) PetscCall(d->colidx.resize(1));
  }
  PetscCall(d->flags.resize(n));
  PGXCallCUDA(cudaMemsetAsync(d->flags.data(), 0, n * sizeof(unsigned), s));
  d->epoch = 0;
  PetscCall(d->ticket.resize(2));
  PGXCallCUDA(cudaMemsetAsync(d->ticket.data(), 0, 2 * sizeof(unsigned), s));
  PetscCall(mark(1));
  if (d->multicolor) {
    if (color) {
      d->ncolors = ncolors;
      PetscCall(d->color.upload(color, n));
    } else PetscCall(ColorGPU(d, s));
    PetscCall(mark(2));
    PetscCall(ColorOrders(d, s));
  } else {
    PetscCall(LevelSetsGPU(d, false, d->L, s));
    PetscCall(LevelSetsGPU(d, true, d->U, s));
    PetscCall(d->rank.resize(n));
    KIota<<<Grid(n), BLOCK, 0, s>>>(n, d->rank.data());
    PGXCheckLaunch("KIota");
    PetscCall(mark(2));
  }
  PetscCall(mark(3));
  PetscCall(BuildHalves(d, d->multicolor, s));
  if (d->multicolor) { /* rank space (see RowArgs::perm): a work vector by rank */
    PetscCall(d->work.resize(n));
    PetscCall(d->llptr.upload(d->L.lptr.data(), d->L.nlevels + 1));
    PetscCall(d->ulptr.upload(d->U.lptr.data(), d->U.nlevels + 1));
    /* where U's first level starts and ends in U's entries (read after the synchronization below) */
    if (d->U.nlevels == d->ncolors && d->L.nlevels == d->ncolors && d->ncolors > 1) {
      PGXCallCUDA(cudaMemcpyAsync(&u0ptr[0], d->U.ptr.data() + d->U.lptr[0], sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
      PGXCallCUDA(cudaMemcpyAsync(&u0ptr[1], d->U.ptr.data() + d->U.lptr[1], sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
    }
  }
  PetscCall(mark(4));
  PetscCall(d->diagsrc.resize(n));
  KDiagSrc<<<Grid(n), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), d->diagsrc.data());
  PGXCheckLaunch("KDiagSrc");
  PetscCall(d->aval.resize(d->nnz ? d->nnz : 1));
  PetscCall(d->E.resize(n));
  PetscCall(d->bad.resize(1));
  if (!d->multicolor) PetscCall(SetUpSpSV(d, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  d->uskip0 = d->multicolor && u0ptr[0] >= 0 && u0ptr[0] == u0ptr[1];
  PetscCall(TrimScratch(s)); /* the analysis' scratch memory back to the device */
  if (prof) {
    PetscCall(PetscTime(&tp[5]));
    char what[64];
    if (!d->multicolor) PetscCall(PetscSNPrintf(what, sizeof(what), "level sets"));
    else if (color) PetscCall(PetscSNPrintf(what, sizeof(what), "colors uploaded"));
    else if (d->colorpath == 2) PetscCall(PetscSNPrintf(what, sizeof(what), "coloring (one cooperative launch, %" PetscInt_FMT " rounds)", d->colorrnds));
    else PetscCall(PetscSNPrintf(what, sizeof(what), "coloring (%s)", d->colorpath == 1 ? "a launch per round" : "sync-free"));
    PetscCall(PetscInfo(NULL, "PCDILU cuda analysis of %" PetscInt_FMT " rows: pattern upload %.2f ms, %s %.2f ms, orders %.2f ms, halves %.2f ms, rest %.2f ms\n", n, 1e3 * (tp[1] - tp[0]), what, 1e3 * (tp[2] - tp[1]), 1e3 * (tp[3] - tp[2]), 1e3 * (tp[4] - tp[3]), 1e3 * (tp[5] - tp[4])));
  }
  if (nlower) *nlower = d->L.nlevels;
  if (nupper) *nupper = d->U.nlevels;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Analyze(Data *d, PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscBool multicolor, const PetscInt *color, PetscInt ncolors, PetscInt *nlower, PetscInt *nupper)
{
  PetscFunctionBegin;
  PetscCall(AnalyzeImpl(d, n, rowptr, colidx, nullptr, nullptr, multicolor, color, ncolors, nlower, nupper));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AnalyzeDevice(Data *d, PetscInt n, const PetscInt *drowptr, const PetscInt *dcolidx, PetscBool multicolor, PetscInt *nnz, PetscInt *nlower, PetscInt *nupper)
{
  PetscFunctionBegin;
  PetscCheck(n == 0 || (drowptr && dcolidx), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PCDILU cuda: no device pattern");
  PetscCall(AnalyzeImpl(d, n, nullptr, nullptr, drowptr, dcolidx, multicolor, nullptr, 0, nlower, nupper));
  *nnz = n ? d->nnz : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetColorRounds(Data *d, PetscBool flg)
{
  PetscFunctionBegin;
  d->colorrounds = flg ? true : false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetColorCoop(Data *d, PetscBool flg)
{
  PetscFunctionBegin;
  d->colorcoop = flg ? true : false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetColorPath(Data *d, PetscInt *path, PetscInt *rounds)
{
  PetscFunctionBegin;
  if (path) *path = d->colorpath;
  if (rounds) *rounds = d->colorrnds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetColors(Data *d, PetscInt *color, PetscInt *ncolors)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCheck(d->multicolor, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "PCDILU cuda: no colors in the natural schedule");
  *ncolors = d->ncolors;
  if (!d->n || !color) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMemcpyAsync(color, d->color.data(), d->n * sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  *ncolors = d->ncolors;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one launch per level (color). With programmatic dependent launches, chained says whether an earlier launch of
   this chain (the apply's forward sweep, for its backward sweep) precedes the first one: every launch after the
   chain's first runs KLevelPre (the apply's sweeps), the first KLevel, which reads nothing before its wait. */
template <int KIND>
static PetscErrorCode RunSweep(Data *d, const Sweep &S, RowArgs a, cudaStream_t s, bool chained = false, PetscInt first = 0, bool ylast = false)
{
  const bool pdl = d->pdl && d->multicolor && KIND != FACTOR;

  PetscFunctionBegin;
  for (PetscInt l = first; l < S.nlevels; l++) {
    PetscInt lo = S.lptr[l], hi = S.lptr[l + 1];
    if (hi == lo) continue;
    a.ylast = ylast && l == S.nlevels - 1;
    if (a.perm && &S == &d->U) a.off = d->L.lptr[d->ncolors - 1 - l] - lo; /* U's color block -> its ranks */
    else a.off = 0;
    PetscCall(LaunchLevel<KIND>(a, lo, hi, KIND == FACTOR ? 1 : (KIND == FWD_RES ? ThreadsPerRow(d->nnz, d->n) : ThreadsPerRow(S, d->n)), s, pdl, pdl && chained));
    chained = true;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* run launches() from the graph g (captured on first use or when the keys change); without graphs, or when
   capture fails (then graphs are off for good), launch directly */
template <class F>
static PetscErrorCode Replay(Data *d, Graph &g, const void *k1, const void *k2, PetscReal k3, cudaStream_t s, F launches)
{
  PetscFunctionBegin;
  if (d->usegraph && !(g.exec && g.k1 == k1 && g.k2 == k2 && g.k3 == k3)) {
    cudaGraph_t    graph = nullptr;
    cudaError_t    e;
    PetscErrorCode ierr;
    g.reset();
    PGXCallCUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    ierr = launches();
    e    = cudaStreamEndCapture(s, &graph);
    if (!ierr && e == cudaSuccess && graph) e = cudaGraphInstantiate(&g.exec, graph, 0);
    if (graph) (void)cudaGraphDestroy(graph);
    if (ierr || e != cudaSuccess || !g.exec) {
      (void)cudaGetLastError();
      g.exec      = nullptr;
      d->usegraph = false;
      PetscCall(PetscInfo(NULL, "PCDILU cuda: CUDA graph capture failed (%s); using direct launches\n", cudaGetErrorString(e)));
    } else g.k1 = k1, g.k2 = k2, g.k3 = k3;
  }
  if (d->usegraph && g.exec) PGXCallCUDA(cudaGraphLaunch(g.exec, s));
  else PetscCall(launches());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* values in d->aval: gather L and U, then E (unless skipE) */
static PetscErrorCode Numeric(Data *d, PetscReal shift, PetscBool skipE, PetscInt *badrow, cudaStream_t s)
{
  int     hbad = INT_MAX;
  RowArgs a    = {};

  PetscFunctionBegin;
  if (d->L.nnz) {
    KGather<<<Grid(d->L.nnz), BLOCK, 0, s>>>(d->L.nnz, d->L.src.data(), d->aval.data(), d->L.val.data());
    PGXCheckLaunch("KGather L");
  }
  if (d->U.nnz) {
    KGather<<<Grid(d->U.nnz), BLOCK, 0, s>>>(d->U.nnz, d->U.src.data(), d->aval.data(), d->U.val.data());
    PGXCheckLaunch("KGather U");
  }
  *badrow = -1;
  if (skipE) {
    PGXCallCUDA(cudaStreamSynchronize(s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PGXCallCUDA(cudaMemcpyAsync(d->bad.data(), &hbad, sizeof(int), cudaMemcpyHostToDevice, s));
  a.order   = d->L.order.data();
  a.ptr     = d->L.ptr.data();
  a.col     = d->L.col.data();
  a.val     = d->L.val.data();
  a.pair    = d->lpair.data();
  a.diagsrc = d->diagsrc.data();
  a.rank    = d->rank.data();
  a.aval    = d->aval.data();
  a.shift   = shift;
  a.x       = d->E.data();
  a.bad     = d->bad.data();
  a.perm    = d->multicolor;
  /* the first factorization launches directly (a capture costs more than it saves once); later ones replay a graph */
  if (d->nfactor++ == 0) PetscCall(RunSweep<FACTOR>(d, d->L, a, s));
  else PetscCall(Replay(d, d->gfactor, nullptr, nullptr, shift, s, [&]() { return RunSweep<FACTOR>(d, d->L, a, s); }));
  PetscCall(RefreshSpSV(d, s));
  PGXCallCUDA(cudaMemcpyAsync(&hbad, d->bad.data(), sizeof(int), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  *badrow = -1;
  if (hbad != INT_MAX) { /* the rank of the first failure in the elimination order -> its row */
    if (d->multicolor) { /* rank = position in the lower (color) order */
      PetscInt row;
      PGXCallCUDA(cudaMemcpyAsync(&row, d->L.order.data() + hbad, sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
      PGXCallCUDA(cudaStreamSynchronize(s));
      *badrow = row;
    } else *badrow = (PetscInt)hbad; /* rank = identity */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Factor(Data *d, const Scalar *val, PetscReal shift, PetscBool skipE, PetscInt *badrow)
{
  cudaStream_t s;

  PetscFunctionBegin;
  *badrow = -1;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  if (d->nnz) PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, d->aval.data(), (void *)val, d->nnz * sizeof(PetscScalar), 1, d->nnz * sizeof(PetscScalar), s, PETSC_FALSE)); /* staged when large */
  PetscCall(Numeric(d, shift, skipE, badrow, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FactorDevice(Data *d, const Scalar *d_val_, PetscReal shift, PetscInt *badrow)
{
  const PetscScalar *d_val = Dev(d_val_);
  cudaStream_t       s;

  PetscFunctionBegin;
  *badrow = -1;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  if (d->nnz && d_val != d->aval.data()) PGXCallCUDA(cudaMemcpyAsync(d->aval.data(), d_val, d->nnz * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, s));
  PetscCall(Numeric(d, shift, PETSC_FALSE, badrow, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ShareE(Data *dst, const Data *src)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCheck(dst->n == src->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCDILU cuda ShareE: sizes %" PetscInt_FMT " and %" PetscInt_FMT " differ", dst->n, src->n);
  if (!src->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  if (dst != src) PGXCallCUDA(cudaMemcpyAsync(dst->E.data(), src->E.data(), src->n * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, s));
  PetscCall(RefreshSpSV(dst, s)); /* (dst == src: only this, which the benchmark times) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the apply by per-level (per-color) launches; rperm (multicolor): r is already in the color order and y is not
   written (the result stays in work, in rank space) */
static PetscErrorCode ApplyLaunches(Data *d, const PetscScalar *r, PetscScalar *y, cudaStream_t s, bool rperm = false)
{
  RowArgs a = {};

  PetscFunctionBegin;
  a.E     = d->E.data();
  a.x     = d->multicolor ? d->work.data() : y;
  a.r     = r;
  a.perm  = d->multicolor;
  a.rperm = rperm;
  a.y     = y;
  a.order = d->L.order.data();
  a.ptr   = d->L.ptr.data();
  a.col   = d->L.col.data();
  a.val   = d->L.val.data();
  /* multicolor: the backward sweep's first level (the last color) has no entries, so its rows keep the forward
     sweep's values; the forward sweep writes them to y (unless rperm) and that launch is skipped */
  const bool skip0 = d->multicolor && d->uskip0;
  PetscCall(RunSweep<FORWARD>(d, d->L, a, s, false, 0, skip0 && !rperm));
  a.order = d->U.order.data();
  a.ptr   = d->U.ptr.data();
  a.col   = d->U.col.data();
  a.val   = d->U.val.data();
  PetscCall(RunSweep<BACKWARD>(d, d->U, a, s, true, skip0 ? 1 : 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the permuted apply: gather r into the color order, replay the sweeps on fixed arrays, scatter y (r == y is fine:
   r is read completely before y is written) */
static PetscErrorCode ApplyPermuted(Data *d, const PetscScalar *r, PetscScalar *y, cudaStream_t s)
{
  PetscFunctionBegin;
  PetscCall(d->rs.resize(d->n));
  KGather<<<Grid(d->n), BLOCK, 0, s>>>(d->n, d->L.order.data(), r, d->rs.data());
  PGXCheckLaunch("PCDILU KGather (r into the color order)");
  PetscCall(Replay(d, d->gperm, d->rs.data(), d->work.data(), 0, s, [&]() { return ApplyLaunches(d, d->rs.data(), nullptr, s, true); }));
  KUnpermute<<<Grid(d->n), BLOCK, 0, s>>>(d->n, d->L.order.data(), d->work.data(), y);
  PGXCheckLaunch("PCDILU KUnpermute (y from the color order)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* natural: (E+L) w = r; w := E w; (E+U) y = w, by cuSPARSE SpSV on EA (w in d->work, so r == y is fine) */
static PetscErrorCode ApplySpSV(Data *d, const PetscScalar *r, PetscScalar *y, cudaStream_t s)
{
  cusparseHandle_t h;
  const PetscScalar one = 1.0;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetCUSPARSE(&h));
  PGXCallCUSPARSE(cusparseDnVecSetValues(d->vr, (void *)r));
  PGXCallCUSPARSE(cusparseDnVecSetValues(d->vy, (void *)y));
  PGXCallCUSPARSE(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mL, d->vr, d->vw, CUDA_SCALAR, CUSPARSE_SPSV_ALG_DEFAULT, d->sL));
  KScaleE<<<Grid(d->n), BLOCK, 0, s>>>(d->n, d->E.data(), d->work.data());
  PGXCheckLaunch("KScaleE");
  PGXCallCUSPARSE(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mU, d->vw, d->vy, CUDA_SCALAR, CUSPARSE_SPSV_ALG_DEFAULT, d->sU));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static bool UseSmall(const Data *d)
{
  return d->multicolor && d->n <= d->smallrows && d->L.nlevels == d->ncolors && d->U.nlevels == d->ncolors && d->ncolors > 0;
}

/* multicolor, small matrix: one launch of one block for both sweeps */
static PetscErrorCode ApplySmall(Data *d, const PetscScalar *r, PetscScalar *y, cudaStream_t s)
{
  RowArgs aL = {}, aU;

  PetscFunctionBegin;
  aL.E     = d->E.data();
  aL.x     = d->work.data();
  aL.r     = r;
  aL.perm  = true;
  aL.y     = y;
  aU       = aL;
  aL.order = d->L.order.data();
  aL.ptr   = d->L.ptr.data();
  aL.col   = d->L.col.data();
  aL.val   = d->L.val.data();
  aU.order = d->U.order.data();
  aU.ptr   = d->U.ptr.data();
  aU.col   = d->U.col.data();
  aU.val   = d->U.val.data();
  KApplySmall<FORWARD, BACKWARD><<<1, SMALLBLOCK, 0, s>>>(aL, aU, d->llptr.data(), d->ulptr.data(), d->ncolors, ThreadsPerRow(d->L, d->n), ThreadsPerRow(d->U, d->n));
  PGXCheckLaunch("PCDILU KApplySmall");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ApplyDev(Data *d, const PetscScalar *r, PetscScalar *y)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  if (!d->multicolor && d->spsv && d->sweeps == NATURAL_SPSV) PetscCall(ApplySpSV(d, r, y, s));
  else if (UseSmall(d)) PetscCall(ApplySmall(d, r, y, s));
  else if (d->usegraph && d->gapply.exec && (d->gapply.k1 != r || d->gapply.k2 != y) && d->multicolor && d->permapply) PetscCall(ApplyPermuted(d, r, y, s));
  else if (d->usegraph && d->gapply.exec && (d->gapply.k1 != r || d->gapply.k2 != y)) {
    /* arrays other than those of the first graph: through the staged graph, not a new capture per call */
    PetscCall(d->rs.resize(d->n));
    PetscCall(d->ys.resize(d->n));
    const PetscScalar *rs = d->rs.data();
    PetscScalar       *ys = d->ys.data();
    PGXCallCUDA(cudaMemcpyAsync(d->rs.data(), r, (size_t)d->n * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, s));
    PetscCall(Replay(d, d->gstaged, rs, ys, 0, s, [&]() { return ApplyLaunches(d, rs, ys, s); }));
    PGXCallCUDA(cudaMemcpyAsync(y, ys, (size_t)d->n * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, s));
  } else PetscCall(Replay(d, d->gapply, r, y, 0, s, [&]() { return ApplyLaunches(d, r, y, s); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one fused Richardson step by per-color (per-level) launches: forward with each row's residual b - A x, backward
   adding into x; z and y in the rank-space work vector (multicolor) or in rr by row (natural) */
static PetscErrorCode RichardsonLaunches(Data *d, const PetscScalar *b, PetscScalar *x, cudaStream_t s)
{
  RowArgs a = {};

  PetscFunctionBegin;
  a.E     = d->E.data();
  a.x     = d->multicolor ? d->work.data() : d->rr.data();
  a.r     = b;
  a.perm  = d->multicolor;
  a.arow  = d->rowptr.data();
  a.acol  = d->colidx.data();
  a.aval  = d->aval.data();
  a.xs    = x;
  a.order = d->L.order.data();
  a.ptr   = d->L.ptr.data();
  a.col   = d->L.col.data();
  a.val   = d->L.val.data();
  PetscCall(RunSweep<FWD_RES>(d, d->L, a, s));
  a.order = d->U.order.data();
  a.ptr   = d->U.ptr.data();
  a.col   = d->U.col.data();
  a.val   = d->U.val.data();
  PetscCall(RunSweep<BWD_ADD>(d, d->U, a, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one step (fused unless first) of the single-block kernel (multicolor, small matrix) */
static PetscErrorCode RichardsonSmall(Data *d, const PetscScalar *b, PetscScalar *x, bool first, cudaStream_t s)
{
  RowArgs aL = {}, aU;

  PetscFunctionBegin;
  aL.E     = d->E.data();
  aL.x     = d->work.data();
  aL.r     = b;
  aL.perm  = true;
  aL.y     = x;
  aL.arow  = d->rowptr.data();
  aL.acol  = d->colidx.data();
  aL.aval  = d->aval.data();
  aL.xs    = x;
  aU       = aL;
  aL.order = d->L.order.data();
  aL.ptr   = d->L.ptr.data();
  aL.col   = d->L.col.data();
  aL.val   = d->L.val.data();
  aU.order = d->U.order.data();
  aU.ptr   = d->U.ptr.data();
  aU.col   = d->U.col.data();
  aU.val   = d->U.val.data();
  if (first) KApplySmall<FORWARD, BACKWARD><<<1, SMALLBLOCK, 0, s>>>(aL, aU, d->llptr.data(), d->ulptr.data(), d->ncolors, ThreadsPerRow(d->L, d->n), ThreadsPerRow(d->U, d->n));
  else KApplySmall<FWD_RES, BWD_ADD><<<1, SMALLBLOCK, 0, s>>>(aL, aU, d->llptr.data(), d->ulptr.data(), d->ncolors, ThreadsPerRow(d->nnz, d->n), ThreadsPerRow(d->U, d->n));
  PGXCheckLaunch("PCDILU KApplySmall (Richardson)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* its steps by per-color (per-level) launches; a zero guess: the first step is the apply, which writes x */
static PetscErrorCode RichardsonSteps(Data *d, const PetscScalar *b, PetscScalar *x, PetscInt its, PetscBool guesszero, cudaStream_t s)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < its; k++) {
    if (guesszero && k == 0) PetscCall(ApplyLaunches(d, b, x, s));
    else PetscCall(RichardsonLaunches(d, b, x, s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Apply(Data *d, const Scalar *r, Scalar *y)
{
  PetscFunctionBegin;
  PetscCall(ApplyDev(d, Dev(r), Dev(y)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Richardson(Data *d, const Scalar *b_, const Scalar *x0_, Scalar *x_, PetscInt its, PetscBool guesszero)
{
  const PetscScalar *b = Dev(b_), *x0 = Dev(x0_);
  PetscScalar       *x = Dev(x_);
  cudaStream_t       s;

  PetscFunctionBegin;
  if (!d->n || its <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(b != x, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "PCDILU cuda Richardson: b and x must be different arrays");
  PetscCall(PGXCUDAGetStream(&s));
  if (!guesszero && x0 != x) PGXCallCUDA(cudaMemcpyAsync(x, x0, (size_t)d->n * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, s));
  if (d->multicolor && UseSmall(d)) {
    for (PetscInt k = 0; k < its; k++) PetscCall(RichardsonSmall(d, b, x, guesszero && k == 0, s));
  } else if (d->multicolor || !(d->spsv && d->sweeps == NATURAL_SPSV)) { /* fused, per color or per level */
    if (!d->multicolor) PetscCall(d->rr.resize(d->n));
    PetscCall(Replay(d, guesszero ? d->grich0 : d->grich, b, x, (PetscReal)its, s, [&]() { return RichardsonSteps(d, b, x, its, guesszero, s); }));
  } else { /* natural with cuSPARSE SpSV: unfused steps through Apply() on fixed arrays */
    PetscCall(d->rr.resize(d->n));
    PetscCall(d->rc.resize(d->n));
    for (PetscInt k = 0; k < its; k++) {
      if (guesszero && k == 0) {
        PetscCall(ApplyDev(d, b, x));
        continue;
      }
      KResidual<<<Grid(d->n), BLOCK, 0, s>>>(d->n, d->rowptr.data(), d->colidx.data(), d->aval.data(), b, x, d->rr.data());
      PGXCheckLaunch("PCDILU KResidual");
      PetscCall(ApplyDev(d, d->rr.data(), d->rc.data()));
      KAxpy<<<Grid(d->n), BLOCK, 0, s>>>(d->n, d->rc.data(), x);
      PGXCheckLaunch("PCDILU KAxpy");
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetDeviceMatrix(const Data *d, PetscInt *n, PetscInt *nnz, const PetscInt **rowptr, const PetscInt **colidx, const Scalar **val)
{
  PetscFunctionBegin;
  *n      = d->n;
  *nnz    = d->nnz;
  *rowptr = d->rowptr.data();
  *colidx = d->colidx.data();
  *val    = reinterpret_cast<const Scalar *>(d->aval.data());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetColorWave(Data *d, PetscInt wave)
{
  PetscFunctionBegin;
  PetscCheck(wave >= 1 && wave <= DILU_COLOR_WAVE_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCDILU cuda coloring: wave %" PetscInt_FMT " is not in [1, %d]", wave, DILU_COLOR_WAVE_MAX);
  d->wave = wave;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetPDL(Data *d, PetscBool pdl)
{
  const cudaDeviceProp *prop;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetDeviceProperties(&prop));
  d->pdl = pdl && prop->major >= 9;
  d->gapply.reset();
  d->gstaged.reset();
  d->gperm.reset();
  d->grich.reset();
  d->grich0.reset();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetPDL(const Data *d, PetscBool *pdl)
{
  PetscFunctionBegin;
  *pdl = d->pdl ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetPermutedApply(Data *d, PetscBool perm)
{
  PetscFunctionBegin;
  d->permapply = perm ? true : false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetSingleBlockRows(Data *d, PetscInt nmax)
{
  PetscFunctionBegin;
  PetscCheck(nmax >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCDILU cuda: the single-block row limit must be >= 0, not %" PetscInt_FMT, nmax);
  d->smallrows = nmax;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetSingleBlock(const Data *d, PetscBool *single)
{
  PetscFunctionBegin;
  *single = UseSmall(d) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetGraph(Data *d, PetscBool graph)
{
  PetscFunctionBegin;
  d->usegraph = graph ? true : false;
  if (!graph) {
    d->gapply.reset();
    d->gstaged.reset();
  d->gperm.reset();
  d->grich.reset();
  d->grich0.reset();
    d->gfactor.reset();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetNaturalSweeps(Data *d, PetscInt sweeps)
{
  PetscFunctionBegin;
  PetscCheck(sweeps == NATURAL_SPSV || sweeps == NATURAL_LEVELS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCDILU cuda: unknown natural sweeps %" PetscInt_FMT, sweeps);
  d->sweeps = sweeps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetNaturalSweeps(const Data *d, PetscInt *sweeps)
{
  PetscFunctionBegin;
  *sweeps = (!d->multicolor && d->spsv && d->sweeps == NATURAL_SPSV) ? NATURAL_SPSV : NATURAL_LEVELS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FillInf(PetscInt n, Scalar *y)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  if (n) {
    KFill<<<Grid(n), BLOCK, 0, s>>>(n, (PetscScalar)INFINITY, Dev(y));
    PGXCheckLaunch("KFill");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetE(const Data *d, Scalar *E)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  if (d->multicolor) { /* by rank -> by row */
    PoolArray<PetscScalar> e;
    PetscCall(e.resize(d->n));
    KUnpermute<<<Grid(d->n), BLOCK, 0, s>>>(d->n, d->L.order.data(), d->E.data(), e.data());
    PGXCheckLaunch("KUnpermute");
    PGXCallCUDA(cudaMemcpyAsync(E, e.data(), d->n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
  } else {
    PGXCallCUDA(cudaMemcpyAsync(E, d->E.data(), d->n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace cuda
} // namespace dilu
} // namespace kernels
} // namespace pgx
