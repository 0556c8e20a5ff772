/* PCDILU cuda backend (see dilu_kernels.h for the mathematics).

   Storage: the pattern of A is split once (analysis) into its lower part L and upper part U with respect
   to the elimination order, each stored in the order of its own sweep schedule (position p holds row
   order[p]), so a sweep streams through its half only. Values are gathered into L and U on every numeric
   setup through the src[] maps (no analysis on re-setup). Vectors stay in A's ordering: the permutation is
   fused into the sweeps (row i = order[p]).

   Schedules:
   - multicolor: Jones-Plassmann coloring of the symmetrized graph on the GPU (the same deterministic
     rounds as the reference), rows sorted by color with a stable radix sort; one launch per color per sweep.
   - natural: level sets (computed on the host), rows sorted by level; ONE sync-free launch per sweep: blocks
     take consecutive rows through an atomic ticket (so every dependency is held by a block that started
     earlier), each row spins on the ready flags of its dependencies, then publishes its value and its flag
     (release). An epoch counter makes the flags reusable without clearing them between sweeps.
   E is computed with the same schedule as the forward sweep. Everything runs on PGXCUDAGetStream(). */
#include <pgx/private/pgxcuda.h>
#include "../dilu_kernels.h"
#include <cub/cub.cuh>
#include <cuda/atomic>
#include <vector>
#include <climits>

namespace pgx
{
namespace kernels
{
namespace dilu
{
namespace cuda
{
using pgx::cuda::DeviceArray;

static constexpr unsigned BLOCK = 256;

struct Sweep {
  PetscInt                 nlevels = 0;
  std::vector<PetscInt>    lptr;  /* host: positions of the levels (colors) */
  DeviceArray<PetscInt>    order; /* [n] row at position p */
  DeviceArray<PetscInt>    ptr;   /* [n+1] CSR of this half, in positions */
  DeviceArray<PetscInt>    col;   /* column (row index in A's ordering) */
  DeviceArray<PetscInt>    src;   /* position of the entry in A's values */
  DeviceArray<PetscScalar> val;
  PetscInt                 nnz = 0;
};

struct Data {
  PetscInt                 n = 0, nnz = 0, ncolors = 0;
  bool                     multicolor = false;
  DeviceArray<PetscInt>    rowptr, colidx; /* A's pattern */
  DeviceArray<PetscInt>    rank;           /* elimination position of each row */
  DeviceArray<PetscInt>    color;          /* multicolor: color of each row */
  DeviceArray<PetscInt>    diagsrc;        /* position of a_ii in A's values, or -1 */
  DeviceArray<PetscInt>    lpair;          /* for each L entry (i,j): position of a_ji in A's values, or -1 */
  DeviceArray<PetscScalar> aval;           /* A's values */
  DeviceArray<PetscScalar> E;              /* the DILU diagonal, by row */
  DeviceArray<unsigned>    flags;          /* natural: ready flags, by row */
  DeviceArray<unsigned>    ticket;         /* natural: block ticket */
  DeviceArray<int>         bad;            /* smallest failing row */
  unsigned                 epoch = 0;
  Sweep                    L, U;
};

/* ---------------------------------------------------------------------------------------- helpers */
__device__ __forceinline__ unsigned LoadAcquire(unsigned *p)
{
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> a(*p);
  return a.load(::cuda::memory_order_acquire);
}
__device__ __forceinline__ void StoreRelease(unsigned *p, unsigned v)
{
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> a(*p);
  a.store(v, ::cuda::memory_order_release);
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
__device__ __forceinline__ PetscInt ColorPriorityDev(PetscInt v)
{
  unsigned int h = (unsigned int)v * 0x9E3779B1u + 0x7F4A7C15u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return (PetscInt)(h >> 1);
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
  for (PetscInt k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) atomicAdd(&cnt[colidx[k]], 1);
}
__global__ void KTransposeFill(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *next, PetscInt *tcol)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) tcol[atomicAdd(&next[colidx[k]], 1)] = i;
}
/* One Jones-Plassmann round (see reference::Color): round[v] = round in which v was colored, -1 if not yet */
__global__ void KColorRound(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *tptr, const PetscInt *tcol, PetscInt r, PetscInt *round, PetscInt *color, PetscInt *ncolored, PetscInt *maxcolor)
{
  for (PetscInt v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
    if (round[v] != -1) continue;
    const PetscInt pv  = ColorPriorityDev(v);
    bool           sel = true;
    for (int pass = 0; pass < 2 && sel; pass++) {
      const PetscInt *ptr = pass ? tptr : rowptr, *col = pass ? tcol : colidx;
      for (PetscInt k = ptr[v]; k < ptr[v + 1]; k++) {
        PetscInt u = col[k];
        if (u == v) continue;
        PetscInt ru = ((volatile PetscInt *)round)[u];
        if (ru != -1 && ru != r) continue;
        PetscInt pu = ColorPriorityDev(u);
        if (pu > pv || (pu == pv && u > v)) {
          sel = false;
          break;
        }
      }
    }
    if (!sel) continue;
    PetscInt c = -1;
    for (PetscInt base = 0; c < 0; base += 64) {
      unsigned long long used = 0;
      for (int pass = 0; pass < 2; pass++) {
        const PetscInt *ptr = pass ? tptr : rowptr, *col = pass ? tcol : colidx;
        for (PetscInt k = ptr[v]; k < ptr[v + 1]; k++) {
          PetscInt u = col[k];
          if (u == v) continue;
          PetscInt ru = ((volatile PetscInt *)round)[u];
          if (ru == -1 || ru == r) continue; /* uncolored at the start of this round */
          PetscInt cu = color[u] - base;      /* colored in an earlier round: stable */
          if (cu >= 0 && cu < 64) used |= 1ull << cu;
        }
      }
      if (~used) c = base + __ffsll((long long)~used) - 1;
    }
    color[v] = c;
    ((volatile PetscInt *)round)[v] = r;
    atomicAdd(ncolored, 1);
    atomicMax(maxcolor, c);
  }
}
__global__ void KColorCount(PetscInt n, const PetscInt *color, PetscInt *cnt)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&cnt[color[i]], 1);
}
/* upper order (colors in decreasing order) from the lower one */
__global__ void KUpperFromLower(PetscInt n, const PetscInt *lorder, const PetscInt *color, const PetscInt *llptr, const PetscInt *ulptr, PetscInt ncolors, PetscInt *uorder)
{
  for (PetscInt p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
    PetscInt i = lorder[p], c = color[i];
    uorder[ulptr[ncolors - 1 - c] + (p - llptr[c])] = i;
  }
}
__global__ void KHalfCount(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, const PetscInt *order, bool upper, PetscInt *cnt)
{
  for (PetscInt p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
    PetscInt i = order[p], ri = rank[i], c = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      PetscInt j = colidx[k];
      if (j != i && (upper ? rank[j] > ri : rank[j] < ri)) c++;
    }
    cnt[p] = c;
  }
}
__global__ void KHalfFill(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, const PetscInt *order, bool upper, const PetscInt *ptr, PetscInt *col, PetscInt *src, PetscInt *pair)
{
  for (PetscInt p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
    PetscInt i = order[p], ri = rank[i], q = ptr[p];
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      PetscInt j = colidx[k];
      if (j == i || !(upper ? rank[j] > ri : rank[j] < ri)) continue;
      col[q] = j;
      src[q] = k;
      if (pair) pair[q] = FindPos(colidx, rowptr[j], rowptr[j + 1], i);
      q++;
    }
  }
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
__global__ void KFill(PetscInt n, PetscScalar v, PetscScalar *y)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = v;
}

/* The three row operations, shared by the per-level and the sync-free kernels. Wait(j) makes x[j]
   (E or y) of a dependency final and readable; it returns the value. */
struct RowArgs {
  const PetscInt    *order, *ptr, *col, *pair, *diagsrc;
  const PetscScalar *val, *aval, *r;
  PetscReal          shift;
  PetscScalar       *x; /* E (factor) or y (sweeps) */
  const PetscScalar *E;
  int               *bad;
};

enum RowKind { FACTOR = 0, FORWARD = 1, BACKWARD = 2 };

template <int KIND, class WAIT>
__device__ __forceinline__ void DoRow(const RowArgs &a, PetscInt p, WAIT wait)
{
  const PetscInt i = a.order[p];
  if (KIND == FACTOR) {
    PetscInt    ds   = a.diagsrc[i];
    PetscScalar d    = (ds >= 0 ? a.aval[ds] : 0.0) + a.shift;
    bool        zero = d == 0.0;
    for (PetscInt q = a.ptr[p]; q < a.ptr[p + 1]; q++) {
      PetscInt pr = a.pair[q];
      if (pr < 0) continue;
      PetscScalar Ej = wait(a.col[q]);
      d -= a.val[q] * a.aval[pr] / Ej;
    }
    a.x[i] = d;
    if (zero || d == 0.0 || !isfinite(d)) atomicMin(a.bad, (int)i);
  } else if (KIND == FORWARD) {
    PetscScalar s = a.r[i];
    for (PetscInt q = a.ptr[p]; q < a.ptr[p + 1]; q++) s -= a.val[q] * wait(a.col[q]);
    a.x[i] = s / a.E[i];
  } else {
    PetscScalar s = 0.0;
    for (PetscInt q = a.ptr[p]; q < a.ptr[p + 1]; q++) s += a.val[q] * wait(a.col[q]);
    a.x[i] = a.x[i] - s / a.E[i];
  }
}

/* multicolor: the rows of one color, all independent */
template <int KIND>
__global__ void KLevel(RowArgs a, PetscInt lo, PetscInt hi)
{
  PetscInt p = lo + (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (p >= hi) return;
  const PetscScalar *x = a.x;
  DoRow<KIND>(a, p, [x](PetscInt j) { return x[j]; });
}

/* natural: all levels in one launch, rows in level order, waiting on ready flags */
template <int KIND>
__global__ void KSyncFree(RowArgs a, PetscInt n, unsigned *flags, unsigned epoch, unsigned *ticket)
{
  __shared__ unsigned blk;
  if (threadIdx.x == 0) blk = atomicAdd(ticket, 1u);
  __syncthreads();
  PetscInt p = (PetscInt)blk * (PetscInt)blockDim.x + (PetscInt)threadIdx.x;
  if (p >= n) return;
  PetscScalar *x = a.x;
  DoRow<KIND>(a, p, [x, flags, epoch](PetscInt j) {
    while (LoadAcquire(&flags[j]) != epoch) { }
    return __ldcg(&x[j]);
  });
  __threadfence();
  StoreRelease(&flags[a.order[p]], epoch);
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
    delete *d;
    *d = nullptr;
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
  DeviceArray<char>     tmp;
  DeviceArray<PetscInt> in;

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

/* L or U of d in the order S.order (already set) */
static PetscErrorCode BuildHalf(Data *d, Sweep &S, bool upper, cudaStream_t s)
{
  DeviceArray<PetscInt> cnt;
  PetscInt              n = d->n;

  PetscFunctionBegin;
  PetscCall(cnt.resize(n ? n : 1));
  PetscCall(S.ptr.resize(n + 1));
  if (n) {
    KHalfCount<<<Grid(n), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), d->rank.data(), S.order.data(), upper, cnt.data());
    PGXCheckLaunch("KHalfCount");
  }
  PetscCall(ExclusiveScan(n, cnt.data(), S.ptr.data(), &S.nnz, s));
  PetscCall(S.col.resize(S.nnz ? S.nnz : 1));
  PetscCall(S.src.resize(S.nnz ? S.nnz : 1));
  PetscCall(S.val.resize(S.nnz ? S.nnz : 1));
  if (!upper) PetscCall(d->lpair.resize(S.nnz ? S.nnz : 1));
  if (n) {
    KHalfFill<<<Grid(n), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), d->rank.data(), S.order.data(), upper, S.ptr.data(), S.col.data(), S.src.data(), upper ? nullptr : d->lpair.data());
    PGXCheckLaunch("KHalfFill");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Jones-Plassmann coloring of the symmetrized graph on the GPU */
static PetscErrorCode ColorGPU(Data *d, cudaStream_t s)
{
  PetscInt              n = d->n, nnz = d->nnz, total = 0, h[2];
  DeviceArray<PetscInt> tcnt, tptr, tnext, tcol, round, counters;

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
  /* rounds, a few between host checks */
  PetscCall(round.resize(n));
  PetscCall(d->color.resize(n));
  PGXCallCUDA(cudaMemsetAsync(round.data(), 0xff, n * sizeof(PetscInt), s)); /* -1 */
  PGXCallCUDA(cudaMemsetAsync(d->color.data(), 0xff, n * sizeof(PetscInt), s));
  PetscCall(counters.resize(2)); /* colored, max color */
  h[0] = 0, h[1] = -1;
  PGXCallCUDA(cudaMemcpyAsync(counters.data(), h, 2 * sizeof(PetscInt), cudaMemcpyHostToDevice, s));
  for (PetscInt r = 0; h[0] < n; r += 4) {
    PetscCheck(r < 4 * n + 8, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCDILU cuda coloring did not finish after %" PetscInt_FMT " rounds (%" PetscInt_FMT " of %" PetscInt_FMT " rows colored)", r, h[0], n);
    for (PetscInt q = 0; q < 4; q++) {
      KColorRound<<<Grid(n), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), tptr.data(), tcol.data(), r + q, round.data(), d->color.data(), counters.data(), counters.data() + 1);
      PGXCheckLaunch("KColorRound");
    }
    PGXCallCUDA(cudaMemcpyAsync(h, counters.data(), 2 * sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
  }
  d->ncolors = h[1] + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* lower and upper orders and level pointers from d->color (device) and d->ncolors */
static PetscErrorCode ColorOrders(Data *d, cudaStream_t s)
{
  PetscInt              n = d->n, nc = d->ncolors;
  DeviceArray<PetscInt> keys_out, vals_in, cnt, dl, du;
  DeviceArray<char>     tmp;
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
  /* color sizes -> level pointers (host), upper order reversed by color */
  PetscCall(cnt.resize(nc));
  PGXCallCUDA(cudaMemsetAsync(cnt.data(), 0, nc * sizeof(PetscInt), s));
  KColorCount<<<Grid(n), BLOCK, 0, s>>>(n, d->color.data(), cnt.data());
  PGXCheckLaunch("KColorCount");
  PGXCallCUDA(cudaMemcpyAsync(hc.data(), cnt.data(), nc * sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
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

PetscErrorCode Analyze(Data *d, PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscBool multicolor, const PetscInt *color, PetscInt ncolors, PetscInt *nlower, PetscInt *nupper)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCDILU cuda backend: empty local matrix");
  PetscCall(PGXCUDAGetStream(&s));
  d->n          = n;
  d->nnz        = rowptr[n];
  d->multicolor = multicolor ? true : false;
  PetscCall(d->rowptr.upload(rowptr, n + 1));
  PetscCall(d->colidx.upload(colidx, d->nnz ? d->nnz : 0));
  if (!d->nnz) PetscCall(d->colidx.resize(1));
  if (d->multicolor) {
    if (color) {
      d->ncolors = ncolors;
      PetscCall(d->color.upload(color, n));
    } else PetscCall(ColorGPU(d, s));
    PetscCall(ColorOrders(d, s));
  } else {
    std::vector<PetscInt> order(n), lptr(n + 1);
    PetscInt              nl;
    PetscCall(reference::LevelSets(n, rowptr, colidx, NULL, PETSC_FALSE, order.data(), lptr.data(), &nl));
    d->L.nlevels = nl;
    d->L.lptr.assign(lptr.begin(), lptr.begin() + nl + 1);
    PetscCall(d->L.order.upload(order.data(), n));
    PGXCallCUDA(cudaStreamSynchronize(s)); /* order is reused below */
    PetscCall(reference::LevelSets(n, rowptr, colidx, NULL, PETSC_TRUE, order.data(), lptr.data(), &nl));
    d->U.nlevels = nl;
    d->U.lptr.assign(lptr.begin(), lptr.begin() + nl + 1);
    PetscCall(d->U.order.upload(order.data(), n));
    PetscCall(d->rank.resize(n));
    KIota<<<Grid(n), BLOCK, 0, s>>>(n, d->rank.data());
    PGXCheckLaunch("KIota");
    PGXCallCUDA(cudaStreamSynchronize(s));
  }
  PetscCall(BuildHalf(d, d->L, false, s));
  PetscCall(BuildHalf(d, d->U, true, s));
  PetscCall(d->diagsrc.resize(n));
  KDiagSrc<<<Grid(n), BLOCK, 0, s>>>(n, d->rowptr.data(), d->colidx.data(), d->diagsrc.data());
  PGXCheckLaunch("KDiagSrc");
  PetscCall(d->aval.resize(d->nnz ? d->nnz : 1));
  PetscCall(d->E.resize(n));
  PetscCall(d->flags.resize(n));
  PGXCallCUDA(cudaMemsetAsync(d->flags.data(), 0, n * sizeof(unsigned), s));
  d->epoch = 0;
  PetscCall(d->ticket.resize(1));
  PetscCall(d->bad.resize(1));
  PGXCallCUDA(cudaStreamSynchronize(s));
  if (nlower) *nlower = d->L.nlevels;
  if (nupper) *nupper = d->U.nlevels;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetColors(Data *d, PetscInt *color, PetscInt *ncolors)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCheck(d->multicolor, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "PCDILU cuda: no colors in the natural schedule");
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMemcpyAsync(color, d->color.data(), d->n * sizeof(PetscInt), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  *ncolors = d->ncolors;
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

template <int KIND>
static PetscErrorCode RunSweep(Data *d, const Sweep &S, RowArgs a, cudaStream_t s)
{
  PetscFunctionBegin;
  if (d->multicolor) {
    for (PetscInt l = 0; l < S.nlevels; l++) {
      PetscInt lo = S.lptr[l], hi = S.lptr[l + 1];
      if (hi == lo) continue;
      KLevel<KIND><<<PGXCUDAGridSize(hi - lo, BLOCK), BLOCK, 0, s>>>(a, lo, hi);
      PGXCheckLaunch("PCDILU KLevel");
    }
  } else {
    unsigned epoch;
    PetscCall(NextEpoch(d, s, &epoch));
    KSyncFree<KIND><<<PGXCUDAGridSize(d->n, BLOCK), BLOCK, 0, s>>>(a, d->n, d->flags.data(), epoch, d->ticket.data());
    PGXCheckLaunch("PCDILU KSyncFree");
  }
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
  a.aval    = d->aval.data();
  a.shift   = shift;
  a.x       = d->E.data();
  a.bad     = d->bad.data();
  PetscCall(RunSweep<FACTOR>(d, d->L, a, s));
  PGXCallCUDA(cudaMemcpyAsync(&hbad, d->bad.data(), sizeof(int), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  *badrow = hbad == INT_MAX ? -1 : (PetscInt)hbad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Factor(Data *d, const PetscScalar *val, PetscReal shift, PetscBool skipE, PetscInt *badrow)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  if (d->nnz) PGXCallCUDA(cudaMemcpyAsync(d->aval.data(), val, d->nnz * sizeof(PetscScalar), cudaMemcpyHostToDevice, s));
  PetscCall(Numeric(d, shift, skipE, badrow, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FactorDevice(Data *d, const PetscScalar *d_val, PetscReal shift, PetscInt *badrow)
{
  cudaStream_t s;

  PetscFunctionBegin;
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
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMemcpyAsync(dst->E.data(), src->E.data(), src->n * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Apply(Data *d, const PetscScalar *r, PetscScalar *y)
{
  cudaStream_t s;
  RowArgs      a = {};

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  a.E     = d->E.data();
  a.x     = y;
  a.r     = r;
  a.order = d->L.order.data();
  a.ptr   = d->L.ptr.data();
  a.col   = d->L.col.data();
  a.val   = d->L.val.data();
  PetscCall(RunSweep<FORWARD>(d, d->L, a, s));
  a.order = d->U.order.data();
  a.ptr   = d->U.ptr.data();
  a.col   = d->U.col.data();
  a.val   = d->U.val.data();
  PetscCall(RunSweep<BACKWARD>(d, d->U, a, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FillInf(PetscInt n, PetscScalar *y)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  if (n) {
    KFill<<<Grid(n), BLOCK, 0, s>>>(n, (PetscScalar)INFINITY, y);
    PGXCheckLaunch("KFill");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetE(const Data *d, PetscScalar *E)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMemcpyAsync(E, d->E.data(), d->n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace cuda
} // namespace dilu
} // namespace kernels
} // namespace pgx
