/* denselu_onchip.cuh: the fused path's factorization of a small matrix (n <= DENSELU_ONCHIP_NMAX) in one cooperative
   launch, included by denselu_cuda.cu (namespace pgx).

   Partial pivoting as the reference's blocked algorithm (denselu_kernels.h), right-looking, with block columns of
   NB = DENSELU_ONCHIP_NB columns (slices). Slice b is owned by thread block b for the whole factorization (grid =
   ceil(n / NB) co-resident blocks, one per slice) and lives in that block's shared memory (n x NB, column-major);
   thread r of every block owns row r. Block b:
     1. for each earlier panel j < b, as soon as its owner has published it (ready[j]): applies its row interchanges
        to the slice (as one gather of the <= 2 NB rows they move), solves the slice's NB rows of U by L11 of panel j
        (one warp a column, the rows in lanes) and updates the rows below by L21 of panel j (one thread a row, L21
        read from global memory, where panel j's owner wrote it); then counts itself in done[j];
     2. factors its own slice as panel b: per column, each thread's pivot candidate (|a_rj|, its row's logical
        position), a warp argmax, ONE block barrier, every warp's argmax of the warps' candidates; then each thread
        scales and updates its own row. The rows are not moved while the panel is factored: every thread tracks the
        logical position of its row through the interchanges (the row at position jj goes where the pivot was, the
        pivot row to jj), so the first largest |a_ij| in logical order is the pivot, as dgetrf's idamax picks it;
        after the last column the rows move once, and the moves (<= 2 NB {dst, src} pairs) are published with the
        slice, the pivots (ipiv, 0-based absolute rows) and the count;
     3. writes the slice to A, then ready[b] (release);
     4. applies the interchanges of every later panel to its slice in shared memory (LAPACK's L has them), and once
        every block that reads panel b's L has counted itself in done[b], writes those rows to A.
   A block waits only for panels that blocks of smaller index publish, and those never wait for it, so the grid
   cannot deadlock once all its blocks are resident (the cooperative launch guarantees it or fails). An exactly
   zero pivot column is left unscaled and the first one recorded in zflag (atomicMin), as PanelKernel does.
   sync: ready[P], done[P], count[P] (zeroed before the launch); mv: P x 2 NB pairs. prof (NULL: off): per block b the
   global timer (ns) when its earlier panels are applied, its columns factored, its slice published, and when it saw
   panel b - 1 published (4 values a block). */
#define DENSELU_ONCHIP_NB      16
#define DENSELU_ONCHIP_THREADS 1024
#define DENSELU_ONCHIP_NMAX    DENSELU_ONCHIP_THREADS /* a thread per row */
#define ONCHIP_CHUNK           8 /* columns a thread keeps in registers at a time (the update, the final moves) */

/* the global timer (ns; comparable between SMs), for the kernel's optional profile */
__device__ inline long long OnChipClock()
{
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* thread 0 waits until *flag >= v (acquire), then the block */
__device__ inline void OnChipWait(const int *flag, int v)
{
  if (threadIdx.x == 0) {
    int x;
    for (;;) {
      asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(x) : "l"(flag) : "memory");
      if (x >= v) break;
      __nanosleep(32); /* many blocks poll the same flag: leave its L2 line to the writer */
    }
  }
  __syncthreads();
}

/* the moves of panel j (cnt {dst, src} row pairs) on the slice's w columns in shared memory: all reads, then all writes */
template <class T>
__device__ inline void OnChipMoves(T *sl, int n, int w, const int2 *mvj, int cnt)
{
  const int t = (int)threadIdx.x;
  int2      m = make_int2(0, 0);
  T         v = 0;
  const int c = w ? t % w : 0;
  if (t < cnt * w) {
    m = __ldcg(mvj + t / w);
    v = sl[(size_t)c * n + m.y];
  }
  __syncthreads();
  if (t < cnt * w) sl[(size_t)c * n + m.x] = v;
  __syncthreads();
}

template <class T>
__device__ inline void OnChipArgMax(T &v, int &key, int &row)
{
  for (int off = 16; off > 0; off >>= 1) {
    const T   ov = __shfl_xor_sync(0xffffffffu, v, off);
    const int ok = __shfl_xor_sync(0xffffffffu, key, off);
    const int orow = __shfl_xor_sync(0xffffffffu, row, off);
    if (ov > v || (ov == v && ok < key)) v = ov, key = ok, row = orow;
  }
}

template <class T, int NB>
__global__ void __launch_bounds__(DENSELU_ONCHIP_THREADS) OnChipLUKernel(int n, T *a, int lda, int *ipiv, int *zflag, int *sync, int2 *mv, long long *prof)
{
  static_assert(2 * NB * NB <= DENSELU_ONCHIP_THREADS && NB % ONCHIP_CHUNK == 0 && NB <= 32, "OnChipLUKernel: a panel's moves (<= 2 NB rows x NB columns) take one thread each");
  extern __shared__ __align__(16) unsigned char onchip_smem[];
  T             *sl = reinterpret_cast<T *>(onchip_smem); /* the slice, n x NB, leading dimension n */
  __shared__ T   L11[NB * NB];                            /* panel j's unit lower NB x NB block, column-major */
  __shared__ T   cv[2][32];                               /* the warps' pivot candidates (two buffers: one barrier a column) */
  __shared__ int ck[2][32], cr[2][32];
  __shared__ int scnt;
  const int      P = (int)gridDim.x, b = (int)blockIdx.x, r = (int)threadIdx.x, lane = r & 31, warp = r >> 5, nwarp = (int)(blockDim.x >> 5);
  int           *ready = sync, *done = sync + P, *count = sync + 2 * P;
  const int      c0 = b * NB, w = min(NB, n - c0);
  const bool     row = r < n;

  for (int c = 0; c < w; c++)
    if (row) sl[(size_t)c * n + r] = a[r + (size_t)(c0 + c) * lda];
  if (r == 0) scnt = 0;
  __syncthreads();

  /* 1. the earlier panels (full width NB: they lie left of this slice) */
  for (int j = 0; j < b; j++) {
    const int k = j * NB;
    OnChipWait(ready + j, 1);
    if (prof && r == 0 && j == b - 1) prof[4 * b + 3] = OnChipClock();
    OnChipMoves(sl, n, w, mv + (size_t)j * 2 * NB, __ldcg(count + j));
    if (r < NB * NB) L11[r] = __ldcg(a + (k + r % NB) + (size_t)(k + r / NB) * lda);
    __syncthreads();
    if (warp < w) { /* U rows: x = L11^-1 x, column warp of the slice, row lane */
      T x = lane < NB ? sl[(size_t)warp * n + k + lane] : (T)0;
#pragma unroll
      for (int t = 0; t < NB; t++) {
        const T xt = __shfl_sync(0xffffffffu, x, t);
        if (lane > t && lane < NB) x -= L11[t * NB + lane] * xt;
      }
      if (lane < NB) sl[(size_t)warp * n + k + lane] = x;
    }
    __syncthreads();
    if (row && r >= k + NB) { /* trailing rows: a_rc -= sum_t l_rt u_tc, by halves of the columns (registers) */
#pragma unroll
      for (int h = 0; h < NB; h += ONCHIP_CHUNK) {
        T acc[ONCHIP_CHUNK];
#pragma unroll
        for (int c = 0; c < ONCHIP_CHUNK; c++) acc[c] = h + c < w ? sl[(size_t)(h + c) * n + r] : (T)0;
#pragma unroll 4
        for (int t = 0; t < NB; t++) {
          const T l = __ldcg(a + r + (size_t)(k + t) * lda);
#pragma unroll
          for (int c = 0; c < ONCHIP_CHUNK; c++)
            if (h + c < w) acc[c] -= l * sl[(size_t)(h + c) * n + k + t];
        }
#pragma unroll
        for (int c = 0; c < ONCHIP_CHUNK; c++)
          if (h + c < w) sl[(size_t)(h + c) * n + r] = acc[c];
      }
    }
    __syncthreads(); /* every read of panel j's L done */
    if (r == 0) atomicAdd(done + j, 1);
  }

  if (prof && r == 0) prof[4 * b + 0] = OnChipClock();
  /* 2. this slice as panel b: rows c0..n-1, logical position lp (relative to c0) tracked per row */
  const bool act  = row && r >= c0;
  const bool wact = (warp + 1) * 32 > c0 && warp * 32 < n; /* the warp holds a row of the panel */
  int        lp   = r - c0;
  for (int jj = 0; jj < w; jj++) {
    const int buf = jj & 1;
    T         v   = (T)-1;
    int       key = INT_MAX, prow = -1;
    if (!wact) { /* nothing to pick or update: only the barrier */
      if (lane == 0) cv[buf][warp] = v, ck[buf][warp] = key, cr[buf][warp] = prow;
      __syncthreads();
      continue;
    }
    if (act && lp >= jj) v = fabs(sl[(size_t)jj * n + r]), key = lp, prow = r;
    OnChipArgMax(v, key, prow);
    if (lane == 0) cv[buf][warp] = v, ck[buf][warp] = key, cr[buf][warp] = prow;
    __syncthreads();
    v    = lane < nwarp ? cv[buf][lane] : (T)-1;
    key  = lane < nwarp ? ck[buf][lane] : INT_MAX;
    prow = lane < nwarp ? cr[buf][lane] : -1;
    OnChipArgMax(v, key, prow); /* every lane of every warp: the same pivot */
    const T d = sl[(size_t)jj * n + prow];
    if (r == c0) ipiv[c0 + jj] = c0 + key; /* the panel's first row: its warp is active */
    if (act) {
      if (r == prow) lp = jj;
      else if (lp == jj) lp = key;
    }
    if (d == (T)0) { /* uniform: the whole column is zero at and below jj */
      if (r == c0) atomicMin(zflag, c0 + jj);
      continue;
    }
    if (act && lp > jj) {
      const T l = sl[(size_t)jj * n + r] / d;
      sl[(size_t)jj * n + r] = l;
#pragma unroll
      for (int c = 1; c < NB; c++)
        if (jj + c < w) sl[(size_t)(jj + c) * n + r] -= l * sl[(size_t)(jj + c) * n + prow];
    }
  }
  if (prof && r == 0) prof[4 * b + 1] = OnChipClock();
  /* the rows to their logical positions, once (by halves of the columns: registers); the moves for the other slices */
#pragma unroll
  for (int h = 0; h < NB; h += ONCHIP_CHUNK) {
    T vals[ONCHIP_CHUNK];
#pragma unroll
    for (int c = 0; c < ONCHIP_CHUNK; c++) vals[c] = act && h + c < w ? sl[(size_t)(h + c) * n + r] : (T)0;
    __syncthreads();
    if (act) {
#pragma unroll
      for (int c = 0; c < ONCHIP_CHUNK; c++)
        if (h + c < w) sl[(size_t)(h + c) * n + c0 + lp] = vals[c];
    }
    __syncthreads();
  }
  if (act && lp != r - c0) mv[(size_t)b * 2 * NB + atomicAdd(&scnt, 1)] = make_int2(c0 + lp, r);
  __syncthreads();
  /* 3. publish */
  for (int c = 0; c < w; c++)
    if (row) a[r + (size_t)(c0 + c) * lda] = sl[(size_t)c * n + r];
  if (r == 0) count[b] = scnt;
  __syncthreads();
  if (r == 0) {
    __threadfence();
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(ready + b), "r"(1) : "memory");
    if (prof) prof[4 * b + 2] = OnChipClock();
  }
  if (b + 1 == P) return;
  /* 4. the later panels' interchanges (rows >= (b + 1) NB), written once no block reads panel b's L any more */
  for (int j = b + 1; j < P; j++) {
    OnChipWait(ready + j, 1);
    OnChipMoves(sl, n, w, mv + (size_t)j * 2 * NB, __ldcg(count + j));
  }
  OnChipWait(done + b, P - 1 - b);
  for (int c = 0; c < w; c++)
    if (row && r >= c0 + NB) a[r + (size_t)(c0 + c) * lda] = sl[(size_t)c * n + r];
}
