/* denselu_trsv.cuh: the dense LU's solves with one right-hand side, one triangle per launch (included by
   denselu_cuda.cu only).

   x <- op(T)^-1 x for a triangle T of the n x n column-major factors (storage type S: double, or float for the
   low-precision factors), computed in C (double; float with float factors): L (unit lower), U (upper), U^T, L^T.
   cublas<t>trsm with one column is what the solves used before: at n = 16384 its two triangles take 1.94 ms for the
   2.1 GB of FP64 factors. This kernel reads every entry of the triangle once and is bound by the latency of its chain
   of 64-row blocks (about 2.5 us a block on an H200): 1.38 ms there (bench/results, thirty-fourth session).

   Every variant is a forward substitution in a logical order: logical index p is physical row/column
   i(p) = rev ? n-1-p : p (rev for U and L^T, whose substitution runs from the last row up), and the logical matrix
   M(p,q), q < p, is a[i(p) + i(q) lda] (L, U: TRANS false) or a[i(q) + i(p) lda] (U^T, L^T: TRANS true).

   Block r of the grid (r taken from a ticket, so that every block it waits for has started: no deadlock whatever
   the residency) owns the 64 logical rows [64 r, 64 r + 64):
     1. reads its right-hand side and its 64 x 64 diagonal tile into shared memory; INV (and r >= 16): inverts the
        tile in place (about 30 us, done while the blocks above are solved; the first 16 blocks, whose turn comes
        sooner, solve theirs by substitution);
     2. for each chunk c < r of 64 logical columns, as soon as block c has published x there (its flag), adds
        M(rows, chunk) x(chunk) to its partial sums: 256 threads read the 64 x 64 tile, coalesced (TRANS false: a
        thread per row and quarter of the chunk, the warp's 16 values of x loaded once and shared by shuffles; TRANS
        true: a warp per 8 rows, a lane per 2 columns), the tile of the next chunk loaded before the flag is waited for;
     3. x of its rows = the inverted tile times (b - sums) (a thread per row and quarter), or by substitution in one
        warp (64 dependent steps, x_k broadcast by a shuffle); writes x, fences, and sets its flag.
   Entries at logical rows >= n (the last block) are skipped. The flags and the ticket (sync[0], flags sync[1..nblk])
   are zeroed by the caller before each launch. The partial sums and the tile's solve are in C; the order of the sums
   differs from cuBLAS's, so the solutions agree with trsm's to round-off (tests/denselu/test_cuda_kernels -trsv).
   trace (bench only; NULL otherwise): per block, the prologue's SM cycles, the SM cycles from its last chunk to its
   flag, the global timer at its flag, its grid index. */
#pragma once

#define DENSELU_TRSV_B       64
#define DENSELU_TRSV_THREADS 256
#define DENSELU_TRSV_SUBST   16 /* INV: the first blocks solve their tile by substitution (their turn comes before an inversion would end) */

__device__ __forceinline__ int DenseLUTrsvFlag(const int *f)
{
  return *(const volatile int *)f;
}

/* trace: block r's prologue cycles t0, its cycles from its last chunk (t1) to now, the global timer now, its grid index */
__device__ __forceinline__ void DenseLUTrsvTrace(long long *trace, int r, long long t0, long long t1)
{
  unsigned long long g;
  const long long    t2 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  trace[4 * r] = t0, trace[4 * r + 1] = t2 - t1, trace[4 * r + 2] = (long long)g, trace[4 * r + 3] = blockIdx.x;
}

template <class S, class C, bool TRANS, bool INV>
__global__ void __launch_bounds__(DENSELU_TRSV_THREADS, 3) TrsvKernel(int n, const S *__restrict__ a, int lda, C *x, int rev, int unit, int *sync, long long *trace)
{
  constexpr int B = DENSELU_TRSV_B;
  __shared__ C  dsh[B][B + 1]; /* the logical diagonal tile, dsh[p][q] (INV: its inverse, once inverted) */
  __shared__ C  dinv[B];       /* 1 / dsh[p][p] (1 when unit or outside) */
  __shared__ C  part[4][B];    /* partial sums: TRANS false [quarter][row], TRANS true [0][row]; INV: [0] the right-hand side of the tile */
  __shared__ C  bsh[B];        /* the block's right-hand side, read at the start (off the critical path) */
  __shared__ int s_r, s_avail[2];
  const int      tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  int           *flags = sync + 1;

  long long      t0 = 0, t1 = 0;
  if (trace && tid == 0) t0 = clock64();
  if (tid == 0) s_r = atomicAdd(sync, 1);
  __syncthreads();
  const int  r = s_r, p0 = r * B;
  const bool inv = INV && r >= DENSELU_TRSV_SUBST; /* block-uniform */
  auto       phys = [=](int p) { return rev ? n - 1 - p : p; };
  if (tid < B) bsh[tid] = p0 + tid < n ? x[phys(p0 + tid)] : (C)0;

  /* 1. the diagonal tile */
  for (int idx = tid; idx < B * B; idx += DENSELU_TRSV_THREADS) {
    const int f = idx & (B - 1), s = idx >> 6; /* f: the contiguous index */
    const int p = TRANS ? p0 + s : p0 + f, q = TRANS ? p0 + f : p0 + s;
    C         v = 0;
    if (p < n && q < n && q <= p) v = (C)(TRANS ? a[phys(q) + (size_t)phys(p) * lda] : a[phys(p) + (size_t)phys(q) * lda]);
    if (p == q && (unit || p >= n)) v = 1;
    dsh[p - p0][q - p0] = v;
  }
  __syncthreads();
  if (inv) {
    /* the tile inverted in place, row by row (X = D^-1: X(i,j) = -(sum_{j<=k<i} D(i,k) X(k,j)) / D(i,i), X(i,i) =
       1 / D(i,i)); rows < i already hold X. A thread per (column j, quarter of k); off the critical path: the block
       does it before it waits for anything */
    const int j = tid >> 2, qk = tid & 3;
    for (int i = 0; i < B; i++) {
      C s = 0;
      if (j < i)
        for (int k = j + qk; k < i; k += 4) s += dsh[i][k] * dsh[k][j];
      s += __shfl_xor_sync(0xffffffffu, s, 1);
      s += __shfl_xor_sync(0xffffffffu, s, 2);
      const C rd = (C)1 / dsh[i][i];
      __syncthreads(); /* every read of row i done */
      if (qk == 0 && j <= i) dsh[i][j] = j == i ? rd : -s * rd;
      __syncthreads();
    }
  } else if (tid < B) dinv[tid] = (C)1 / dsh[tid][tid];
  if (trace && tid == 0) t0 = clock64() - t0; /* the prologue's cycles */

  /* 2. the chunks left of the diagonal */
  C acc[TRANS ? 8 : 1];
#pragma unroll
  for (int k = 0; k < (TRANS ? 8 : 1); k++) acc[k] = 0;
  if (r > 0) {
    S         pre[16];
    const int tx = tid & (B - 1), ty = tid >> 6;
    /* TRANS false: row p0 + tx, columns 16 ty .. 16 ty + 15 of each chunk; TRANS true: rows p0 + 8 warp + k, columns
       lane and lane + 32 of each chunk */
    auto load = [&](int c) {
      if (!TRANS) {
        const int p = p0 + tx;
        if (p < n) {
          const S *col = a + phys(p);
#pragma unroll
          for (int k = 0; k < 16; k++) pre[k] = col[(size_t)phys(c * B + 16 * ty + k) * lda];
        } else {
#pragma unroll
          for (int k = 0; k < 16; k++) pre[k] = 0;
        }
      } else {
        const int q0 = phys(c * B + lane), q1 = phys(c * B + lane + 32);
#pragma unroll
        for (int k = 0; k < 8; k++) {
          const int p = p0 + 8 * warp + k;
          if (p < n) {
            const S *row = a + (size_t)phys(p) * lda;
            pre[2 * k] = row[q0], pre[2 * k + 1] = row[q1];
          } else pre[2 * k] = pre[2 * k + 1] = 0;
        }
      }
    };
    load(0);
    int avail = 0, par = 0;
    for (int c = 0; c < r; c++) {
      if (c >= avail) { /* wait for block c, and take every later one already published (s_avail double-buffered:
                           one barrier per wait) */
        if (tid == 0) {
          int av = c;
          while (!DenseLUTrsvFlag(flags + av)) { }
          av++;
          while (av < r && DenseLUTrsvFlag(flags + av)) av++;
          __threadfence();
          s_avail[par] = av;
        }
        __syncthreads();
        avail = s_avail[par];
        par ^= 1;
      }
      S cur[16];
#pragma unroll
      for (int k = 0; k < 16; k++) cur[k] = pre[k];
      if (c + 1 < r) load(c + 1);
      if (!TRANS) { /* the warp's 16 values of x by one load, shared by shuffles (not 16 loads of one address per warp) */
        const C xv = lane < 16 ? __ldcg(x + phys(c * B + 16 * ty + lane)) : (C)0;
#pragma unroll
        for (int k = 0; k < 16; k++) acc[0] += (C)cur[k] * __shfl_sync(0xffffffffu, xv, k);
      } else {
        const C x0 = __ldcg(x + phys(c * B + lane)), x1 = __ldcg(x + phys(c * B + lane + 32));
#pragma unroll
        for (int k = 0; k < 8; k++) acc[k] += (C)cur[2 * k] * x0 + (C)cur[2 * k + 1] * x1;
      }
    }
  }
  if (trace && tid == 0) t1 = clock64();
  if (!TRANS) part[tid >> 6][tid & (B - 1)] = acc[0];
  else {
#pragma unroll
    for (int k = 0; k < 8; k++) {
      C v = acc[k];
#pragma unroll
      for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
      if (lane == 0) part[0][8 * warp + k] = v;
    }
  }
  __syncthreads();

  /* 3. the diagonal tile */
  if (inv) { /* x = X v: a thread per (row, quarter of the tile's columns) */
    if (tid < B) {
      const int p = p0 + tid;
      part[0][tid] = p < n ? bsh[tid] - (TRANS ? part[0][tid] : part[0][tid] + part[1][tid] + part[2][tid] + part[3][tid]) : (C)0;
    }
    __syncthreads();
    const int i = tid >> 2, qk = tid & 3;
    C         s = 0;
#pragma unroll
    for (int m = 0; m < B / 4; m++) s += dsh[i][qk + 4 * m] * part[0][qk + 4 * m]; /* X(i, q) = 0 for q > i */
    s += __shfl_xor_sync(0xffffffffu, s, 1);
    s += __shfl_xor_sync(0xffffffffu, s, 2);
    if (qk == 0 && p0 + i < n) x[phys(p0 + i)] = s;
    __threadfence();
    __syncthreads();
    if (tid == 0) *(volatile int *)(flags + r) = 1;
    if (trace && tid == 0) DenseLUTrsvTrace(trace, r, t0, t1);
    return;
  }
  if (warp == 0) { /* by substitution in one warp: lane holds rows lane and lane + 32 */
    const int pa = p0 + lane, pb = p0 + lane + 32;
    C         va = 0, vb = 0;
    if (pa < n) va = bsh[lane] - (TRANS ? part[0][lane] : part[0][lane] + part[1][lane] + part[2][lane] + part[3][lane]);
    if (pb < n) vb = bsh[lane + 32] - (TRANS ? part[0][lane + 32] : part[0][lane + 32] + part[1][lane + 32] + part[2][lane + 32] + part[3][lane + 32]);
#pragma unroll
    for (int k = 0; k < 32; k++) {
      const C xk = __shfl_sync(0xffffffffu, va * dinv[k], k);
      if (lane == k) va = xk;
      if (lane > k) va -= dsh[lane][k] * xk;
      vb -= dsh[lane + 32][k] * xk;
    }
#pragma unroll
    for (int k = 0; k < 32; k++) {
      const C xk = __shfl_sync(0xffffffffu, vb * dinv[32 + k], k);
      if (lane == k) vb = xk;
      if (lane > k) vb -= dsh[lane + 32][32 + k] * xk;
    }
    if (pa < n) x[phys(pa)] = va;
    if (pb < n) x[phys(pb)] = vb;
    __threadfence();
    __syncwarp();
    if (lane == 0) *(volatile int *)(flags + r) = 1;
    if (trace && lane == 0) DenseLUTrsvTrace(trace, r, t0, t1);
  }
}
