/* denselu_onchip.cuh: the fused path's factorization of a small matrix (n <= DENSELU_ONCHIP_NMAX) in one cooperative
   launch, included by denselu_cuda.cu (namespace pgx).

   Partial pivoting as the reference's blocked algorithm (denselu_kernels.h), right-looking, with block columns of
   NB = DENSELU_ONCHIP_NB columns (slices). Slice b is owned by thread block b for the whole factorization (grid =
   ceil(n / NB) co-resident blocks, one per slice) and lives in that block's shared memory (n x NB, column-major);
   thread r of every block owns row r. Block b:
     1. for each earlier panel j < b, as soon as its owner has published it (ready[j]): loads its rows of panel j's L21
        from A into registers (the loads overlap the next two steps), applies its row interchanges to the slice (as one
        gather of the <= 2 NB rows they move), solves the slice's NB rows of U by L11 of panel j (one warp a column,
        the rows in lanes) and updates the rows below by L21 (one thread a row); then counts itself in done[j];
     2. factors its own slice as panel b, each thread's row in its registers: per column, each thread's pivot
        candidate (|a_rj|, its row's logical position), a warp argmax (redux.sync on the value's bits, then the first
        logical position), the warp's winner writes its row to the warp's candidate slot, ONE block barrier, every
        warp's argmax of the warps' candidates; then each thread scales and updates its own row by the winning slot.
        The rows are not moved while the panel is factored: every thread tracks the logical position of its row
        through the interchanges (the row at position jj goes where the pivot was, the pivot row to jj), so the first
        largest |a_ij| in logical order is the pivot, as dgetrf's idamax picks it; after the last column each row is
        written once to its logical position (slice and A), and the moves (<= 2 NB {dst, src} pairs) are published
        with the pivots (ipiv, 0-based absolute rows) and the count;
     3. ready[b] (release);
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
#define ONCHIP_UCHUNK          4 /* columns of an earlier panel's update a thread keeps in registers at a time (beside its NB of L21) */

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

/* The warp's pivot candidate: the largest v (>= 0; its bits ordered as unsigned integers, so three redux.sync in
   double, two in float, and no shuffles), the first of equal v by key (the row's logical position << 16 | its row;
   UINT_MAX for a lane without a candidate, which has v = 0). Every lane gets the winner's v and key. */
template <class T>
__device__ inline void OnChipArgMax(T &v, unsigned &key)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 /* no redux.sync: shuffles */
  for (int off = 16; off > 0; off >>= 1) {
    const T        ov = __shfl_xor_sync(0xffffffffu, v, off);
    const unsigned ok = __shfl_xor_sync(0xffffffffu, key, off);
    if (ov > v || (ov == v && ok < key)) v = ov, key = ok;
  }
#else
  if constexpr (sizeof(T) == 8) {
    const unsigned long long bits = (unsigned long long)__double_as_longlong((double)v);
    const unsigned           hi = (unsigned)(bits >> 32), lo = (unsigned)bits;
    const unsigned           mhi = __reduce_max_sync(0xffffffffu, hi);
    const unsigned           mlo = __reduce_max_sync(0xffffffffu, hi == mhi ? lo : 0u);
    key = __reduce_min_sync(0xffffffffu, hi == mhi && lo == mlo ? key : 0xffffffffu);
    v   = (T)__longlong_as_double((long long)(((unsigned long long)mhi << 32) | mlo));
  } else {
    const unsigned bits = __float_as_uint((float)v), m = __reduce_max_sync(0xffffffffu, bits);
    key = __reduce_min_sync(0xffffffffu, bits == m ? key : 0xffffffffu);
    v   = (T)__uint_as_float(m);
  }
#endif
}

template <class T, int NB>
__global__ void __launch_bounds__(DENSELU_ONCHIP_THREADS) OnChipLUKernel(int n, T *a, int lda, int *ipiv, int *zflag, int *sync, int2 *mv, long long *prof)
{
  static_assert(2 * NB * NB <= DENSELU_ONCHIP_THREADS && NB <= 32, "OnChipLUKernel: a panel's moves (<= 2 NB rows x NB columns) take one thread each");
  extern __shared__ __align__(16) unsigned char onchip_smem[];
  T             *sl = reinterpret_cast<T *>(onchip_smem); /* the slice, n x NB, leading dimension n */
  __shared__ T   L11[NB * NB];                            /* panel j's unit lower NB x NB block, column-major */
  __shared__ __align__(16) T crow[2][32][NB];             /* the warps' pivot candidates' rows (two buffers: one barrier a column) */
  __shared__ T        cv[2][32];                           /* their |pivot| and key (OnChipArgMax) */
  __shared__ unsigned ck[2][32];
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
    const bool trail = row && r >= k + NB;
    T          l[NB]; /* this row's L21 of panel j (in final row order in A), loaded while the moves and U's rows run */
#pragma unroll
    for (int t = 0; t < NB; t++) l[t] = trail ? __ldcg(a + r + (size_t)(k + t) * lda) : (T)0;
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
    if (trail) { /* trailing rows: a_rc -= sum_t l_rt u_tc, ONCHIP_UCHUNK columns at a time (registers) */
#pragma unroll
      for (int h = 0; h < NB; h += ONCHIP_UCHUNK) {
        T acc[ONCHIP_UCHUNK];
#pragma unroll
        for (int c = 0; c < ONCHIP_UCHUNK; c++) acc[c] = h + c < w ? sl[(size_t)(h + c) * n + r] : (T)0;
#pragma unroll
        for (int t = 0; t < NB; t++) {
#pragma unroll
          for (int c = 0; c < ONCHIP_UCHUNK; c++)
            if (h + c < w) acc[c] -= l[t] * sl[(size_t)(h + c) * n + k + t];
        }
#pragma unroll
        for (int c = 0; c < ONCHIP_UCHUNK; c++)
          if (h + c < w) sl[(size_t)(h + c) * n + r] = acc[c];
      }
    }
    __syncthreads(); /* every read of panel j's L done */
    if (r == 0) atomicAdd(done + j, 1);
  }

  if (prof && r == 0) prof[4 * b + 0] = OnChipClock();
  /* 2. this slice as panel b: rows c0..n-1, each in its thread's registers (x), logical position lp (relative to c0)
     tracked per row; each warp's pivot candidate publishes its row (crow) with its key before the barrier */
  const bool act  = row && r >= c0;
  const bool wact = (warp + 1) * 32 > c0 && warp * 32 < n; /* the warp holds a row of the panel */
  int        lp   = r - c0;
  T          x[NB];
#pragma unroll
  for (int c = 0; c < NB; c++) x[c] = act && c < w ? sl[(size_t)c * n + r] : (T)0;
  if (!wact) { /* nothing to pick or update: only the barriers */
    if (lane == 0)
      for (int jj = 0; jj < w; jj++) cv[jj & 1][warp] = (T)0, ck[jj & 1][warp] = 0xffffffffu;
    for (int jj = 0; jj < w; jj++) __syncthreads();
  } else {
#pragma unroll
    for (int jj = 0; jj < NB; jj++) {
      if (jj >= w) break;
      const int buf = jj & 1;
      const bool cand = act && lp >= jj;
      T          v    = cand ? (T)fabs(x[jj]) : (T)0;
      unsigned   key  = cand ? ((unsigned)lp << 16 | (unsigned)r) : 0xffffffffu;
      OnChipArgMax(v, key);
      if (cand && (key & 0xffffu) == (unsigned)r) { /* this warp's candidate: its row from column jj on */
#pragma unroll
        for (int c = jj; c < NB; c++) crow[buf][warp][c] = x[c];
      }
      if (lane == 0) cv[buf][warp] = v, ck[buf][warp] = key;
      __syncthreads();
      v   = lane < nwarp ? cv[buf][lane] : (T)0;
      key = lane < nwarp ? ck[buf][lane] : 0xffffffffu;
      OnChipArgMax(v, key); /* every lane of every warp: the same pivot */
      const int kp = (int)(key >> 16), prow = (int)(key & 0xffffu);
      const T  *pr = crow[buf][prow >> 5];
      const T   d  = pr[jj];
      if (r == c0) ipiv[c0 + jj] = c0 + kp; /* the panel's first row: its warp is active */
      if (act) {
        if (r == prow) lp = jj;
        else if (lp == jj) lp = kp;
      }
      if (d == (T)0) { /* uniform: the whole column is zero at and below jj */
        if (r == c0) atomicMin(zflag, c0 + jj);
        continue;
      }
      if (act && lp > jj) {
        const T l = x[jj] / d;
        x[jj]     = l;
#pragma unroll
        for (int c = jj + 1; c < NB; c++) x[c] -= l * pr[c]; /* x[c] = pr[c] = 0 for c >= w */
      }
    }
  }
  if (prof && r == 0) prof[4 * b + 1] = OnChipClock();
  /* the rows to their logical positions, in the slice and in A (nothing reads the slice's rows >= c0 since they were
     loaded into x); the moves for the other slices */
  if (act) {
#pragma unroll
    for (int c = 0; c < NB; c++)
      if (c < w) sl[(size_t)c * n + c0 + lp] = x[c], a[c0 + lp + (size_t)(c0 + c) * lda] = x[c];
    if (lp != r - c0) mv[(size_t)b * 2 * NB + atomicAdd(&scnt, 1)] = make_int2(c0 + lp, r);
  } else if (row) {
    for (int c = 0; c < w; c++) a[r + (size_t)(c0 + c) * lda] = sl[(size_t)c * n + r];
  }
  __syncthreads();
  /* 3. publish */
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
