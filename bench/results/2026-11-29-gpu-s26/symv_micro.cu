/* symv_micro: the lower symmetric product y = A v of the fused panel's phase B, alone, by several kernels, beside
   cublasDsymv and a device-to-device copy (issue 9; a measurement tool, not part of the library).
     tile64  the fused panel's phase B today (64 x 64 tiles, 256 threads, block barriers, one warp sum a column)
     warpR   each warp takes (32 R) x (32 R) tiles of the lower triangle round-robin, no block barrier: lane l holds
             rows l, l + 32, ... of the tile; the row sums stay in the lane, the column sums of each 32 columns are
             reduced across the warp by a butterfly reduce-scatter (31 shuffles for 32 columns; lane k ends with
             column k), one atomic a row and a column per tile
   Build (here): nvcc -O3 -arch=sm_90 -o symv_micro bench/sytrd/symv_micro.cu -lcublas
   Run: symv_micro [L ...] ; every kernel's y is compared with cublasDsymv's. */
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CB(x) do { cublasStatus_t e_ = (x); if (e_ != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "%s: %d\n", #x, (int)e_); exit(1); } } while (0)

__device__ inline double WarpSum(double v)
{
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__device__ inline void TileIJ(long b, long &I, long &J)
{
  I = (long)((sqrt(8.0 * (double)b + 1.0) - 1.0) / 2.0);
  while (I * (I + 1) / 2 > b) I--;
  while ((I + 1) * (I + 2) / 2 <= b) I++;
  J = b - I * (I + 1) / 2;
}

/* today's phase B (k_panel), with v given */
__global__ void __launch_bounds__(256) k_tile64(int L, const double *A22, long lda, const double *v, double *y)
{
  constexpr int NT = 256, NW = 8, TS = 64, TY = NT / TS, CPT = TS / TY;
  __shared__ double vI[TS], vJ[TS], cs[NW][CPT], rs[TY][TS];
  const int  lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const long T = (L + TS - 1) / TS, ntiles = T * (T + 1) / 2;
  const int  ttx = threadIdx.x % TS, tty = threadIdx.x / TS;
  for (long b = blockIdx.x; b < ntiles; b += gridDim.x) {
    long I, J;
    TileIJ(b, I, J);
    const long r0 = I * TS, c0 = J * TS;
    __syncthreads();
    if (threadIdx.x < TS) {
      const long k    = r0 + threadIdx.x;
      vI[threadIdx.x] = k < L ? __ldcg(v + k) : 0.0;
    } else if (threadIdx.x < 2 * TS) {
      const long k         = c0 + threadIdx.x - TS;
      vJ[threadIdx.x - TS] = k < L ? __ldcg(v + k) : 0.0;
    }
    __syncthreads();
    const long r   = r0 + ttx;
    const bool rin = r < L;
    double     a[CPT], rowacc = 0;
#pragma unroll
    for (int k = 0; k < CPT; k++) {
      const long c = c0 + tty * CPT + k;
      a[k]         = (rin && c < L && (I != J || r >= c)) ? A22[r + c * lda] : 0.0;
    }
    const double vi = vI[ttx];
#pragma unroll
    for (int k = 0; k < CPT; k++) {
      const long c = c0 + tty * CPT + k;
      rowacc += a[k] * vJ[tty * CPT + k];
      double cv = (I != J || r > c) ? a[k] * vi : 0.0;
      cv        = WarpSum(cv);
      if (lane == 0) cs[warp][k] = cv;
    }
    rs[tty][ttx] = rowacc;
    __syncthreads();
    if (threadIdx.x < TS) {
      double s = 0;
      for (int q = 0; q < TY; q++) s += rs[q][threadIdx.x];
      if (r0 + threadIdx.x < L && s != 0) atomicAdd(y + r0 + threadIdx.x, s);
    } else if (threadIdx.x < 2 * TS) {
      const int    cc = threadIdx.x - TS, q = cc / CPT, k = cc % CPT;
      const double s  = cs[2 * q][k] + cs[2 * q + 1][k];
      if (c0 + cc < L && s != 0) atomicAdd(y + c0 + cc, s);
    }
  }
}

/* butterfly reduce-scatter: c[k] of every lane summed over the warp, lane k gets the sum of index k */
template <int H>
__device__ __forceinline__ void ReduceStage(double (&c)[32], int lane)
{
  const bool up = lane & H;
#pragma unroll
  for (int k = 0; k < H; k++) {
    const double send = up ? c[k] : c[k + H], keep = up ? c[k + H] : c[k];
    c[k]              = keep + __shfl_xor_sync(0xffffffffu, send, H);
  }
}
__device__ __forceinline__ double ReduceScatter32(double (&c)[32], int lane)
{
  ReduceStage<16>(c, lane);
  ReduceStage<8>(c, lane);
  ReduceStage<4>(c, lane);
  ReduceStage<2>(c, lane);
  ReduceStage<1>(c, lane);
  return c[0];
}

/* one warp, one (32 R) x (32 R) tile at (r0, c0); MASK: a diagonal or edge tile */
template <int R, bool MASK>
__device__ __forceinline__ void WarpTile(int L, const double *__restrict__ A, long lda, const double *__restrict__ v, double *y, long r0, long c0, bool diag, int lane)
{
  double vi[R], racc[R];
#pragma unroll
  for (int q = 0; q < R; q++) {
    const long r = r0 + lane + 32 * q;
    vi[q]        = (!MASK || r < L) ? __ldg(v + r) : 0.0;
    racc[q]      = 0;
  }
#pragma unroll
  for (int g = 0; g < R; g++) {
    const long cg0 = c0 + 32 * g;
    const double vj = (!MASK || cg0 + lane < L) ? __ldg(v + cg0 + lane) : 0.0;
    double       cp[32];
#pragma unroll
    for (int k = 0; k < 32; k++) {
      const long   c  = cg0 + k;
      const double vc = __shfl_sync(0xffffffffu, vj, k);
      double       s  = 0;
#pragma unroll
      for (int q = 0; q < R; q++) {
        const long r = r0 + lane + 32 * q;
        double     a;
        if (MASK) a = (r < L && c < L && (!diag || r >= c)) ? A[r + c * lda] : 0.0;
        else a = A[r + c * lda];
        racc[q] += a * vc;
        if (MASK && diag && r == c) a = 0.0;
        s += a * vi[q];
      }
      cp[k] = s;
    }
    const double cs = ReduceScatter32(cp, lane);
    if ((!MASK || cg0 + lane < L) && cs != 0) atomicAdd(y + cg0 + lane, cs);
  }
#pragma unroll
  for (int q = 0; q < R; q++) {
    const long r = r0 + lane + 32 * q;
    if ((!MASK || r < L) && racc[q] != 0) atomicAdd(y + r, racc[q]);
  }
}

template <int R, int MINB>
__global__ void __launch_bounds__(256, MINB) k_warp(int L, const double *__restrict__ A, long lda, const double *__restrict__ v, double *y)
{
  constexpr int TS = 32 * R;
  const int     lane = threadIdx.x & 31;
  const long    gw = (long)blockIdx.x * 8 + (threadIdx.x >> 5), nw = (long)gridDim.x * 8;
  const long    T = (L + TS - 1) / TS, ntiles = T * (T + 1) / 2;
  for (long b = gw; b < ntiles; b += nw) {
    long I, J;
    TileIJ(b, I, J);
    const long r0 = I * TS, c0 = J * TS;
    const bool diag = I == J, edge = r0 + TS > L;
    if (diag || edge) WarpTile<R, true>(L, A, lda, v, y, r0, c0, diag, lane);
    else WarpTile<R, false>(L, A, lda, v, y, r0, c0, false, lane);
  }
}

int main(int argc, char **argv)
{
  std::vector<int> Ls;
  for (int i = 1; i < argc; i++) Ls.push_back(atoi(argv[i]));
  if (Ls.empty()) Ls = {2048, 4096, 8192, 16384};
  const int n = *std::max_element(Ls.begin(), Ls.end());
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  double *A, *v, *y, *yr, *cpy;
  const size_t lda = n;
  CK(cudaMalloc(&A, lda * n * sizeof(double)));
  CK(cudaMalloc(&cpy, (size_t)n * (n + 1) / 2 * sizeof(double)));
  CK(cudaMalloc(&v, n * sizeof(double)));
  CK(cudaMalloc(&y, n * sizeof(double)));
  CK(cudaMalloc(&yr, n * sizeof(double)));
  {
    std::vector<double> h(lda * (size_t)n / 16 + 1);
    srand(1);
    for (auto &x : h) x = rand() / (double)RAND_MAX - 0.5;
    for (int k = 0; k < 16; k++) CK(cudaMemcpy(A + k * (lda * (size_t)n / 16), h.data(), lda * (size_t)n / 16 * sizeof(double), cudaMemcpyHostToDevice));
    std::vector<double> hv(n);
    for (auto &x : hv) x = rand() / (double)RAND_MAX - 0.5;
    CK(cudaMemcpy(v, hv.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  }
  cublasHandle_t h;
  CB(cublasCreate(&h));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const int SM = prop.multiProcessorCount;
  auto timeit = [&](auto f) {
    std::vector<float> t;
    for (int r = 0; r < 12; r++) {
      CK(cudaMemset(y, 0, n * sizeof(double)));
      CK(cudaEventRecord(e0));
      f();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin() + 2, t.end());
    return (double)t[2 + (t.size() - 2) / 2];
  };
  printf("%6s %-22s %10s %10s %8s %10s\n", "L", "kernel", "ms", "GB/s read", "x copy", "max|dy|");
  for (int L : Ls) {
    const double bytes = (double)L * (L + 1) / 2 * 8;
    const double one   = 1, zero = 0;
    const double tc    = timeit([&]() { CK(cudaMemcpyAsync(cpy, A, (size_t)L * (L + 1) / 2 * 8, cudaMemcpyDeviceToDevice)); });
    const double cbw   = 2 * bytes / tc / 1e6;
    printf("%6d %-22s %10.4f %10.0f %8s %10s   (copy bandwidth, read + write)\n", L, "cudaMemcpy", tc, cbw, "", "");
    const double ts = timeit([&]() { CB(cublasDsymv(h, CUBLAS_FILL_MODE_LOWER, L, &one, A, lda, v, 1, &zero, y, 1)); });
    CK(cudaMemcpy(yr, y, L * sizeof(double), cudaMemcpyDeviceToDevice));
    std::vector<double> ref(L), got(L);
    CK(cudaMemcpy(ref.data(), yr, L * sizeof(double), cudaMemcpyDeviceToHost));
    double rmax = 0;
    for (double x : ref) rmax = std::max(rmax, fabs(x));
    auto report = [&](const char *name, double t) {
      CK(cudaMemcpy(got.data(), y, L * sizeof(double), cudaMemcpyDeviceToHost));
      double d = 0;
      for (int i = 0; i < L; i++) d = std::max(d, fabs(got[i] - ref[i]));
      printf("%6d %-22s %10.4f %10.0f %8.2f %10.1e\n", L, name, t, bytes / t / 1e6, bytes / t / 1e6 / cbw, d / rmax);
    };
    report("cublasDsymv", ts);
    const double tg = timeit([&]() { CB(cublasDgemv(h, CUBLAS_OP_N, L, L, &one, A, lda, v, 1, &zero, y, 1)); });
    printf("%6d %-22s %10.4f %10.0f %8.2f %10s   (full matrix: %.0f GB/s read)\n", L, "cublasDgemv (full)", tg, bytes / tg / 1e6, bytes / tg / 1e6 / cbw, "-", 2 * bytes / tg / 1e6);
    for (int bpsm : {3}) {
      double t = timeit([&]() { k_tile64<<<SM * bpsm, 256>>>(L, A, lda, v, y); });
      report("tile64 (today) x3", t);
    }
    auto run = [&](const char *nm, auto kern, int bpsm) {
      char   name[64];
      double t = timeit([&]() { kern<<<SM * bpsm, 256>>>(L, A, lda, v, y); });
      snprintf(name, sizeof name, "%s x%d", nm, bpsm);
      report(name, t);
    };
    run("warp1 (32x32)", k_warp<1, 2>, 2);
    run("warp1 (32x32)", k_warp<1, 2>, 4);
    run("warp2 (64x64)", k_warp<2, 1>, 1);
    run("warp2 (64x64)", k_warp<2, 1>, 2);
    run("warp4 (128x128)", k_warp<4, 1>, 1);
    run("warp4 (128x128)", k_warp<4, 1>, 2);
  }
  return 0;
}
