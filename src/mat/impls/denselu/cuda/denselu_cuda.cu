/* cuda backend of the dense LU (see denselu_kernels.h for the mathematics and the contract).

   Factorization, blocked right-looking, column-major with leading dimension n on the device:
     panel      recursive (PanelRecursive: halves, interchanges, trsm + gemm between them) down to leaves of at
                most leafw (-mat_pgx_lu_leaf, 32) columns, factored by LeafCoopKernel: the m x kb leaf in
                registers across G co-resident blocks (a cooperative launch), one grid synchronization per
                column (every block posts its pivot candidate and that row; all pick the same pivot; swap,
                scaling and rank-1 update on their own rows). When G blocks cannot be resident (or
                -mat_pgx_lu_coop 0) PanelKernel: one thread block in global memory. Both: pivot = first largest
                |a_ij| (idamax), the reference FactorPanel's operations (same pivots up to round-off near ties)
     swaps      LaswpKernel: a block's interchanges as one gather on the <= 2 kb rows they touch
                (denselu_swapplan.h), columns in parallel; left and right of a panel in one launch
     U row      cublas<t>trsm (left, lower, unit)
     trailing   cublasDgemm (FP64) or cublasGemmEx on FP32 data with compute type
                CUBLAS_COMPUTE_32F_FAST_TF32 / _FAST_16F / _FAST_16BF (tensor cores) for the mixed precisions
   Small matrices (n <= nsmall) take the fused path: OnChipLUKernel (denselu_onchip.cuh; n <= 1024: one cooperative
   launch, a block column of 16 in each block's shared memory, one block barrier a column) or, above 1024 or when it
   cannot run, PanelKernel on the whole matrix (one launch, one thread block in global memory). Under AUTO the fused
   path comes first (before cuSOLVER's whole getrf) for a pivoted factorization; nsmall's default is 1024 where the
   on-chip kernel can be launched for that n (and the low precisions pivot partially), else 128 (H100, fifty-first
   session: the on-chip kernel 1.33-1.67x cusolverDnDgetrf at n = 256-1024 on a random matrix, 1.37-1.74x on a
   dominant one with the pivot search kept, and faster than PGX's call of it from n = 32 on; tf32 refined through it
   1.0-1.6x cuSOLVER's FP64 factor + solve on the random matrix at 256-1024, where the blocked path's were
   0.28-0.48x).
   Cluster path (SetPath, -mat_pgx_lu_path cluster, or AUTO up to -mat_pgx_lu_cluster_max): the blocked loop whose
   leaves are factored by LeafClusterKernel, one thread-block cluster of at most 16 blocks (sm_90) with one cluster
   barrier and one round of distributed shared memory loads per column instead of a grid synchronization (about 3.4
   us on the H100, the critical path of the cooperative leaf for n <= 4096); leaves it cannot take fall back to the
   cooperative or one-block kernel.
   cuSOLVER panels (SetPanel, -mat_pgx_lu_panel; pivoted FP64 only): each panel of the blocked loop (with or without
   look-ahead) is factored by cusolverDnDgetrf on its m x kb block instead of the recursion (CusolverPanel; its pivots
   made PGX's by CusolverPivKernel); PATH_CUSOLVER (-mat_pgx_lu_path cusolver, or AUTO up to SetPanel's wholemax)
   factors the whole matrix by one cusolverDnDgetrf. Both give partial pivoting's pivots.
   Tournament pivoting (SetPivoting, -mat_pgx_lu_pivoting tournament; FP32 factorizations of the mixed precisions
   only): each leaf of the recursion is factored by TournamentKernel (one block per chunk of 256 rows selects its
   candidates in registers, no grid synchronization; the last block to finish a pair of siblings merges their lists,
   up to the root, which writes the pivots and L11\U11) and TournamentL21Kernel (the interchanges and L21 = A21
   U11^-1, one thread a row): two launches a leaf instead of one grid synchronization a column.
   Look-ahead (SetLookAhead, -mat_pgx_lu_lookahead, off by default until measured): the next panel's columns
   are updated and factored on PGX's stream while the rest of the trailing update runs on a second stream.

   Solves on the device: the pivots become a permutation perm (P b)[i] = b[perm[i]] at factor time; a
   gather (transpose: scatter) kernel applies it; two cublas<t>trsm do the triangular solves.
   Mixed precision: the refinement driver of denselu_refine.h (acceptance ||r_c||_inf <= sqrt(n) eps ||A||_inf
   ||x_c||_inf, stagnation rule, GMRES-IR, fallback) with CudaOps: plain steps solve with the FP32 factors, the
   residual is a dgemm with the FP64 A kept on the device, GMRES-IR runs in FP64 with the factors promoted to FP64;
   its CGS2 coefficients and norms stay on the device (one device-to-host copy and one synchronization per Arnoldi
   step, for the Givens rotations on the host). When the driver does not converge the backend factors A in FP64
   and solves again; the FP64 factors are then kept for the later solves. Every call is checked (PGXCall*,
   PGXCheckLaunch). */
#include <pgx/private/pgxcuda.h>
#include <cooperative_groups.h>
#include "../denselu_kernels.h"
#include "../denselu_swapplan.h"
#include <vector>
#include <cmath>
#include <climits>
#include <limits>
#include <type_traits>

#define DENSELU_THREADS 512
#define DENSELU_LEAF_THREADS 256  /* threads of a cooperative leaf block */
#define DENSELU_LEAF_GMAX    2048 /* cooperative leaf: most blocks (its candidate buffers are sized for it) */
#define DENSELU_NBMAX        1024 /* largest block size (LaswpKernel's shared memory) */
#define DENSELU_CLUSTER_MAX  16   /* most blocks of a cluster leaf (above 8: a non-portable cluster size) */

namespace pgx
{
namespace kernels
{
namespace denselu
{
namespace cuda
{
struct Data {
  PetscInt                      nbreq = 0, nsmall = -1, n = 0, nb = 0;
  Precision                     prec = PRECISION_DOUBLE, used = PRECISION_DOUBLE;
  const char                   *path = "none";
  bool                          dblvalid = false, lowvalid = false, lupvalid = false; /* lupvalid: LUp holds the current LUs */
  double                        anorm    = 0; /* ||A||_inf (mixed precision) */
  PetscInt                      automin  = 16384; /* PRECISION_AUTO: low precision from this n on, for row diagonally dominant A */
  RefineOptions                 ropt     = RefineOptionsDefault();
  pgx::cuda::DeviceArray<double> A;           /* A in FP64, leading dimension n (kept for residuals and fallback) */
  pgx::cuda::DeviceArray<double> LU;          /* FP64 factors */
  pgx::cuda::DeviceArray<float>  LUs;         /* low-precision factors (FP32 storage) */
  pgx::cuda::DeviceArray<int>    ipiv;        /* pivots of the factors in use (0-based) */
  pgx::cuda::DeviceArray<int>    perm;        /* (P b)[i] = b[perm[i]] */
  pgx::cuda::DeviceArray<int>    flag;        /* [0] first zero pivot column (INT_MAX: none), [1] non-finite entry seen */
  pgx::cuda::DeviceArray<double> X, R, T;     /* solve workspaces (n x nrhs) */
  pgx::cuda::DeviceArray<float>  C, C2;
  pgx::cuda::DeviceArray<float>  x3[2];       /* PRECISION_TF32X3: split operands of Trailing (x3[1]: the look-ahead's s2) */
  pgx::cuda::DeviceArray<double> LUp;         /* low-precision factors promoted to FP64 (GMRES-IR's preconditioner) */
  pgx::cuda::DeviceArray<double> V, W, Hd, Ht; /* GMRES-IR: Krylov basis n x (m+1), work vector, Hessenberg column (m+2), CGS2 pass 2 / y */
  pgx::cuda::DeviceArray<double> Crec, Urec, Rs, Tr; /* GMRES-IR's recycled space (gmres_recycle): C, U (n x kr), Q and R^-1 staged, coefficients (2 kr) */
  pgx::cuda::DeviceArray<double> norms;       /* refinement: ||R_c||_inf, ||X_c||_inf (2 k), ||A||_inf's row sums (n) */
  std::vector<int>              hpiv;         /* host copy of the pivots */
  bool                          lookahead = false; /* blocked path: next panel on PGX's stream, the rest on s2 */
  int                           leafw     = 32;    /* panel recursion stops at leaves of at most this many columns (8, 16, 32) */
  bool                          coop      = true;  /* leaves by the cooperative register kernel when it fits */
  bool                          onchip    = true;  /* fused path: OnChipLUKernel where it fits (SetFusedOnChip), else PanelKernel */
  bool                          ocfits    = false; /* OnChipLUKernel can be launched for the matrix being factored (FactorDeviceDirect) */
  pgx::cuda::DeviceArray<int>   ocsync;          /* OnChipLUKernel: ready, done, count [P] (zeroed before each launch), then the moves [P][2 NB] as int2 (OnChipMovesAt) */
  pgx::cuda::DeviceArray<long long> ocprof;      /* OnChipLUKernel's per-panel profile (PGX_ONCHIP_PROF only) */
  int                           ncoop = 0, nblockleaf = 0; /* leaves by each kernel in the last factorization */
  pgx::cuda::DeviceArray<double> cval;             /* cooperative leaf: candidate rows [2][G][W+1] and row j [2][W] */
  pgx::cuda::DeviceArray<int>    cidx;             /* cooperative leaf: candidate row indices [2][G] */
  int                           trsv     = 2;        /* SetTrsv: one-column solves by TrsvKernel (denselu_trsv.cuh; 1 substitution, 2 inverted tiles), 0 cublas<t>trsm */
  pgx::cuda::DeviceArray<int>    tsync;            /* TrsvKernel: ticket and per-block flags (zeroed before each launch) */
  long long                    *trsvtrace = nullptr; /* TrsvTrace: per-block timings of the next launch (device, 4 per block) */
  int                           trsmleaf = 64;     /* SetTrsmLeaf: FP64 U-row solves split by halves down to this many rows (0: one cublasDtrsm) */
  bool                          swapplan = true;   /* SetSwapPlan: each panel's gather plan made once (SwapPlanKernel), read by its LaswpPlanKernels */
  pgx::cuda::DeviceArray<int>    swplan;           /* the plans: panel at column k in [4 k, 4 (k + kb)) as {dst, src} pairs (no reuse within a factorization) */
  int                           leafrows  = 0;     /* rows per thread of the cooperative leaf (1, 2, 4, 8; 0: R = 1 first, then more) */
  int                           leafrowsused = 0;  /* largest rows per thread a cooperative leaf used in the last factorization */
  bool                          leafswaps = false; /* the leaves apply their interchanges to the panel's other columns (no Laswp in the recursion) */
  bool                          priority  = false; /* factor on the private greatest-priority stream sp (s2 at the least priority) */
  bool                          onsp      = false; /* a factorization is running on sp (WorkStream returns sp, hp) */
  cudaStream_t                  sp        = nullptr; /* priority: the panel stream, ordered with PGX's stream by events */
  cublasHandle_t                hp        = nullptr; /* priority: cuBLAS handle bound to sp */
  cudaEvent_t                   espin = nullptr, espout = nullptr; /* priority: PGX's stream -> sp at the start, sp -> PGX's at the end */
  cudaStream_t                  s2        = nullptr; /* look-ahead: stream of the rest of the trailing update */
  cublasHandle_t                h2        = nullptr; /* look-ahead: cuBLAS handle bound to s2 */
  int                           lasms     = 0;       /* look-ahead: SM count target of h2's kernels (cublasSetSmCountTarget; 0: all) */
  int                           lasmsset  = 0;       /* the target h2 has */
  cudaEvent_t                   epanel = nullptr, erest = nullptr;
  bool                          leftstream = true;   /* look-ahead: the left swaps on s3 (SetLeftSwapStream) */
  cudaStream_t                  s3         = nullptr; /* look-ahead: stream of the interchanges left of each panel (least priority) */
  cudaEvent_t                   eleft      = nullptr; /* s3's last swap done */
  Path                          pathreq   = PATH_AUTO; /* -mat_pgx_lu_path */
  Panel                         panelreq  = PANEL_PGX; /* SetPanel (MATSOLVERPGX sets -mat_pgx_lu_panel) */
  PetscInt                      wholemax  = 0;         /* PANEL_AUTO, PATH_AUTO: the whole pivoted FP64 matrix by cusolverDnDgetrf up to this n */
  PetscInt                      panelmax  = 0;         /* PANEL_AUTO: cuSOLVER's panels up to this n */
  bool                          cspanel   = false;     /* the running factorization's panels by cusolverDnDgetrf */
  int                           ncspanel  = 0;         /* panels of the last factorization by cusolverDnDgetrf */
  cusolverDnHandle_t            hs        = nullptr;   /* cuSOLVER handle of the factorization (its stream set per call) */
  pgx::cuda::DeviceArray<double> cswork;               /* cusolverDnDgetrf's workspace */
  pgx::cuda::DeviceArray<int>    csinfo;               /* cusolverDnDgetrf's info */
  int                           csn       = -1;        /* the n cswork was sized for */
  int                           cst       = 0;         /* ... and the size of its scalar (8: cusolverDnDgetrf, 4: cusolverDnSgetrf) */
  Panel                         lowpanel  = PANEL_PGX; /* SetLowPanel: the FP32 (mixed) factorizations' pivoted panels by cusolverDnSgetrf (CUSOLVER) or PGX's */
  PetscInt                      clustermax = 0;       /* AUTO: cluster path for nsmall < n <= clustermax (0: never) */
  bool                          oncluster = false;    /* the running factorization takes the cluster path */
  int                           nclusterleaf = 0, clusterblocks = 0; /* cluster leaves of the last factorization, largest cluster */
  Pivoting                      pivoting = PIVOTING_PARTIAL; /* of the FP32 (mixed) factorizations: tournament leaves (TournamentLeaf) */
  NoPivot                       nopivreq  = NOPIVOT_NEVER; /* SetNoPivot (MATSOLVERPGX sets -mat_pgx_lu_nopivot, default auto) */
  bool                          nopiv     = false; /* the running factorization skips the pivot search (NoPivLeaf, no interchanges) */
  bool                          nopivused = false; /* the last factorization ran without pivoting and passed its check */
  PetscInt                      nnopivfail = 0;    /* attempts without pivoting that failed their check (factored again with pivoting) */
  /* -mat_pgx_lu_rbt (denselu_rbt.h): U^T A V factored without pivoting, the solves refined against A */
  int                           rbtdepth = 0;      /* 0: off */
  unsigned long long            rbtseed  = 0;
  pgx::cuda::DeviceArray<double> rbtr;             /* RbtDiagonals: 2 depth n values */
  PetscInt                      rbtn     = -1;     /* the n, depth and seed rbtr was made for */
  int                           rbtd     = -1;
  unsigned long long            rbts     = 0;
  bool                          rbt      = false;  /* the factors in use (LU or LUs) are of U^T A V, without pivoting */
  PetscInt                      nrbtfail = 0;      /* transformed factorizations that broke down (factored again with partial pivoting) */
  pgx::cuda::DeviceArray<double> T2;               /* refinement with FP64 butterfly factors: plain steps' workspace (n x nrhs) */
  int                           ntourn   = 0;                /* leaves of the last factorization by the tournament kernels */
  pgx::cuda::DeviceArray<int>    tcand, tcnt, tmoved;        /* tournament: candidate lists [nodes][32], arrival counters [nodes], moved rows [1 + 2 32] */
  pgx::cuda::DeviceArray<double> tsave;                      /* tournament: original values of the moved top rows [32][32] (T = float uses the first half) */
  /* -mat_pgx_lu_graph: the factorization's launches (FactorDevice) captured in a CUDA graph at the second call with the
     same matrix buffer, n and precision, and replayed by later calls; [0] FP64, [1] FP32 (mixed). Any setter drops them */
  struct Graph {
    cudaGraphExec_t exec = nullptr;
    const void     *a    = nullptr; /* the buffer factored (the graph's launches hold its address) */
    PetscInt        n    = -1;
    Precision       prec = PRECISION_DOUBLE;
    bool            nopiv = false;  /* without pivoting (other launches) */
    int             calls = 0;      /* factorizations with this key so far */
    /* what the captured factorization did (restored on replay: the host-side choices are the graph's) */
    const char *path = "none";
    PetscInt    nb   = 0;
    int         ncoop = 0, nblockleaf = 0, leafrowsused = 0, nclusterleaf = 0, clusterblocks = 0, ntourn = 0, ncspanel = 0;
  };
  bool  usegraph  = false;
  Graph graphs[2];
  int   ncaptured = 0;     /* graphs captured since Create */
  bool  replayed  = false; /* the last factorization replayed a graph */
  /* per-phase profile (SetProfile; denselu_profile.h): NULL = off, and then no event is created or recorded */
  struct ProfRec {
    Phase p;
    int   e0, e1; /* indices in evpool */
  };
  Profile                 *prof = nullptr;
  std::vector<cudaEvent_t> evpool; /* timing events, created on demand and reused */
  int                      nev = 0; /* events of evpool recorded since the last collection */
  std::vector<ProfRec>     recs;    /* the pairs recorded since the last collection */
};

/* ------------------------------------------------------------------ kernels */
template <class T>
__device__ inline void ArgMaxCombine(T &best, int &bi, T ob, int oi)
{
  if (ob > best || (ob == best && oi < bi)) best = ob, bi = oi;
}

#include "denselu_onchip.cuh"

template <class T>
__global__ void PanelKernel(int m, int kb, T *p, int lda, int *ipiv, int row0, int *flag)
{
  __shared__ T   sval[DENSELU_THREADS / 32];
  __shared__ int sidx[DENSELU_THREADS / 32];
  __shared__ int spiv;
  const int      lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarp = blockDim.x >> 5;

  for (int j = 0; j < kb && j < m; j++) {
    T  *cj   = p + (size_t)j * lda;
    T   best = (T)-1;
    int bi   = INT_MAX;
    for (int i = j + threadIdx.x; i < m; i += blockDim.x) {
      T v = fabs(cj[i]);
      if (v > best) best = v, bi = i; /* increasing i: strict > keeps the first */
    }
    for (int off = 16; off > 0; off >>= 1) ArgMaxCombine(best, bi, __shfl_down_sync(0xffffffffu, best, off), __shfl_down_sync(0xffffffffu, bi, off));
    if (lane == 0) sval[warp] = best, sidx[warp] = bi;
    __syncthreads();
    if (warp == 0) {
      best = lane < nwarp ? sval[lane] : (T)-1;
      bi   = lane < nwarp ? sidx[lane] : INT_MAX;
      for (int off = 16; off > 0; off >>= 1) ArgMaxCombine(best, bi, __shfl_down_sync(0xffffffffu, best, off), __shfl_down_sync(0xffffffffu, bi, off));
      if (lane == 0) {
        spiv    = bi;
        ipiv[j] = row0 + bi;
      }
    }
    __syncthreads();
    const int piv = spiv;
    if (piv != j)
      for (int c = threadIdx.x; c < kb; c += blockDim.x) {
        T t                      = p[j + (size_t)c * lda];
        p[j + (size_t)c * lda]   = p[piv + (size_t)c * lda];
        p[piv + (size_t)c * lda] = t;
      }
    __syncthreads();
    const T d = cj[j];
    if (d == (T)0) {
      if (threadIdx.x == 0) atomicMin(flag, row0 + j);
      continue; /* uniform: every thread read the same d */
    }
    for (int i = j + 1 + threadIdx.x; i < m; i += blockDim.x) cj[i] = cj[i] / d;
    __syncthreads();
    for (int c = j + 1 + warp; c < kb; c += nwarp) { /* a warp a column: coalesced rows */
      T      *pc = p + (size_t)c * lda;
      const T u  = pc[j];
      for (int i = j + 1 + lane; i < m; i += 32) pc[i] -= cj[i] * u;
    }
    __syncthreads();
  }
}

/* The interchanges k1..k2-1 (ipiv, absolute rows) on ncol columns of a (leading dimension lda), as the gather of
   denselu_swapplan.h: every block builds the plan in shared memory (slots in parallel, the O(kb) sequential part
   on thread 0), then moves C columns (reads first, then writes: the rows of a column may be sources and
   destinations). Logical column q is column q of a for q < skip0, else column q + skipn (one launch for the
   columns left and right of a panel). Shared memory: T vals[2 kb C] then int piv, slot, top, low [kb]. */
template <class T>
__global__ void LaswpKernel(int ncol, int skip0, int skipn, T *a, int lda, int k1, int k2, const int *ipiv, int C)
{
  extern __shared__ __align__(16) unsigned char lsm[];
  const int kb = k2 - k1, ne = 2 * kb;
  T        *vals = (T *)lsm;
  int      *piv = (int *)(vals + (size_t)ne * C), *slot = piv + kb, *top = slot + kb, *low = top + kb;
  for (int t = threadIdx.x; t < kb; t += blockDim.x) piv[t] = ipiv[k1 + t];
  __syncthreads();
  SwapPlanSlots(kb, piv, slot, threadIdx.x, blockDim.x);
  __syncthreads();
  if (threadIdx.x == 0) SwapPlanSequential(k1, kb, piv, slot, top, low);
  __syncthreads();
  const int q0 = blockIdx.x * C, nq = min(C, ncol - q0);
  for (int t = threadIdx.x; t < ne * nq; t += blockDim.x) {
    const int e = t % ne, q = q0 + t / ne, c = q < skip0 ? q : q + skipn;
    int       dst, src;
    if (SwapPlanEntry(k1, kb, piv, slot, top, low, e, &dst, &src)) vals[t] = a[src + (size_t)c * lda];
  }
  __syncthreads();
  for (int t = threadIdx.x; t < ne * nq; t += blockDim.x) {
    const int e = t % ne, q = q0 + t / ne, c = q < skip0 ? q : q + skipn;
    int       dst, src;
    if (SwapPlanEntry(k1, kb, piv, slot, top, low, e, &dst, &src)) a[dst + (size_t)c * lda] = vals[t];
  }
}

/* The gather plan of the interchanges k1..k2-1 (denselu_swapplan.h), made once by one block: plan[e] = {dst, src} for
   the 2 kb entries e, {-1, -1} where nothing moves. LaswpKernel builds the same plan in every one of its blocks (an
   O(kb^2 / threads) search and an O(kb) chain on one thread, before any column moves); LaswpPlanKernel reads it */
__global__ void SwapPlanKernel(int k1, int k2, const int *ipiv, int2 *plan)
{
  __shared__ int piv[DENSELU_NBMAX], slot[DENSELU_NBMAX], top[DENSELU_NBMAX], low[DENSELU_NBMAX];
  const int      kb = k2 - k1;
  for (int t = threadIdx.x; t < kb; t += blockDim.x) piv[t] = ipiv[k1 + t];
  __syncthreads();
  SwapPlanSlots(kb, piv, slot, threadIdx.x, blockDim.x);
  __syncthreads();
  if (threadIdx.x == 0) SwapPlanSequential(k1, kb, piv, slot, top, low);
  __syncthreads();
  for (int e = threadIdx.x; e < 2 * kb; e += blockDim.x) {
    int dst, src;
    plan[e] = SwapPlanEntry(k1, kb, piv, slot, top, low, e, &dst, &src) ? make_int2(dst, src) : make_int2(-1, -1);
  }
}

/* LaswpKernel's gather from SwapPlanKernel's plan (2 kb entries): block b moves the C logical columns from b C, C 2 kb
   <= 16 * 256 entries, each thread its at most 16 in registers (reads first, a barrier, then writes) */
template <class T>
__global__ void __launch_bounds__(256) LaswpPlanKernel(int ncol, int skip0, int skipn, T *a, int lda, int kb, const int2 *plan, int C)
{
  const int ne = 2 * kb, q0 = blockIdx.x * C, nq = min(C, ncol - q0), tot = ne * nq;
  T         v[16];
#pragma unroll
  for (int i = 0; i < 16; i++) {
    const int t = threadIdx.x + i * 256;
    if (t < tot) {
      const int  e = t % ne, q = q0 + t / ne, c = q < skip0 ? q : q + skipn;
      const int2 pl = __ldg(plan + e);
      if (pl.x >= 0) v[i] = a[pl.y + (size_t)c * lda];
    }
  }
  __syncthreads(); /* a column's rows are sources and destinations */
#pragma unroll
  for (int i = 0; i < 16; i++) {
    const int t = threadIdx.x + i * 256;
    if (t < tot) {
      const int  e = t % ne, q = q0 + t / ne, c = q < skip0 ? q : q + skipn;
      const int2 pl = __ldg(plan + e);
      if (pl.x >= 0) a[pl.x + (size_t)c * lda] = v[i];
    }
  }
}

/* The steps the two register leaves (LeafCoopKernel, LeafClusterKernel) share; they differ only in how the blocks
   exchange their candidates (grid memory and grid.sync, or distributed shared memory and cluster.sync). Block blk
   owns rows blk*R*NT + r*NT + threadIdx.x (r < R); thread t keeps their W entries in v[r][]. */
template <class T, int W, int R, int NT>
__device__ __forceinline__ void LeafLoad(T (&v)[R][W], int base, int m, int kb, const T *p, int lda)
{
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int i = base + r * NT;
#pragma unroll
    for (int c = 0; c < W; c++) v[r][c] = (i < m && c < kb) ? p[i + (size_t)c * lda] : (T)0;
  }
}

/* this block's candidate for column j (largest |a_ij|, i >= j, first index on ties): in lane 0 of warp 0 */
template <class T, int W, int R, int NT>
__device__ __forceinline__ void LeafBlockCandidate(const T (&v)[R][W], int base, int j, int m, T *sval, int *sidx, T &best, int &bi)
{
  constexpr int NW = NT / 32;
  const int     lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  best             = (T)-1;
  bi               = INT_MAX;
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int i = base + r * NT;
    if (i >= j && i < m && fabs(v[r][j]) > best) best = fabs(v[r][j]), bi = i; /* increasing i: the first */
  }
  for (int off = 16; off > 0; off >>= 1) ArgMaxCombine(best, bi, __shfl_down_sync(0xffffffffu, best, off), __shfl_down_sync(0xffffffffu, bi, off));
  if (lane == 0) sval[warp] = best, sidx[warp] = bi;
  __syncthreads();
  if (warp == 0) {
    best = lane < NW ? sval[lane] : (T)-1;
    bi   = lane < NW ? sidx[lane] : INT_MAX;
    for (int off = 16; off > 0; off >>= 1) ArgMaxCombine(best, bi, __shfl_down_sync(0xffffffffu, best, off), __shfl_down_sync(0xffffffffu, bi, off));
  }
}

/* rows j and pr exchanged (prow: the pivot row's entries, rj: row j's), then, unless the pivot d = prow[j] is zero
   (returns false: the caller records the column), the scaling of column j and the rank-1 update of this thread's rows */
template <class T, int W, int R, int NT>
__device__ __forceinline__ bool LeafSwapUpdate(T (&v)[R][W], int base, int j, int m, int pr, const T *prow, const T *rj)
{
  const T d = prow[j];
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int i = base + r * NT;
    if (i == j) {
#pragma unroll
      for (int c = 0; c < W; c++) v[r][c] = prow[c];
    } else if (i == pr) {
#pragma unroll
      for (int c = 0; c < W; c++) v[r][c] = rj[c];
    }
  }
  if (d == (T)0) return false; /* uniform: every thread read the same d */
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int i = base + r * NT;
    if (i > j && i < m) {
      const T l = v[r][j] / d;
      v[r][j]   = l;
#pragma unroll
      for (int c = j + 1; c < W; c++) v[r][c] -= l * prow[c];
    }
  }
  return true;
}

template <class T, int W, int R, int NT>
__device__ __forceinline__ void LeafStore(const T (&v)[R][W], int base, int m, int kb, T *p, int lda)
{
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int i = base + r * NT;
    if (i < m)
#pragma unroll
      for (int c = 0; c < W; c++)
        if (c < kb) p[i + (size_t)c * lda] = v[r][c];
  }
}

/* leaf swaps: the leaf's kb interchanges (lpiv) applied to the panel's ol columns left of the leaf and orr right of
   it, as one gather of denselu_swapplan.h per column; block blk of G takes the columns in turn */
template <class T, int W, int NT>
__device__ __forceinline__ void LeafPanelSwaps(int m, int kb, T *p, int lda, int ol, int orr, int blk, int G, int *lpiv, int *lslot, int *ltop, int *llow)
{
  const int nk = min(kb, m), ne = 2 * nk, per = NT / ne, no = ol + orr;
  __syncthreads();
  SwapPlanSlots(nk, lpiv, lslot, threadIdx.x, NT);
  __syncthreads();
  if (threadIdx.x == 0) SwapPlanSequential(0, nk, lpiv, lslot, ltop, llow);
  __syncthreads();
  const int  e = threadIdx.x % ne, qq = threadIdx.x / ne;
  int        dst = 0, src = 0;
  const bool mv = qq < per && SwapPlanEntry(0, nk, lpiv, lslot, ltop, llow, e, &dst, &src);
  for (int q0 = blk * per; q0 < no; q0 += G * per) { /* block-uniform trip count */
    const int q   = q0 + qq;
    T        *col = p + (ptrdiff_t)(q < ol ? q - ol : q - ol + kb) * lda;
    T         val = (T)0;
    if (mv && q < no) val = col[src];
    __syncthreads(); /* a column's rows are sources and destinations: reads first */
    if (mv && q < no) col[dst] = val;
    __syncthreads();
  }
}

/* Cooperative leaf: LU with partial pivoting of the m x kb leaf p (kb <= W, leading dimension lda; row0 = its
   first row in the matrix), the same operations as PanelKernel, with the leaf in registers: block b owns rows
   b*R*NT + r*NT + threadIdx.x (r < R) and thread t keeps their W entries in v[r][]. One grid synchronization per
   column: each block posts its candidate (largest |a_ij|, first index on ties, and that row's W entries) and the
   owner of row j posts row j; after grid.sync every block picks the same pivot row among the G candidates and does
   the swap, the scaling and the rank-1 update of its own rows. The posts alternate between two buffers (column
   parity), so a fast block never overwrites a buffer that a slow one still reads. Cross-block data is read with
   __ldcg (L2, not a stale L1 line).
   Leaf swaps (-mat_pgx_lu_leaf_swaps; ol + or > 0): the leaf's kb interchanges are also applied to the panel's other
   columns, the ol columns left of the leaf (p - ol lda .. p - lda) and the orr right of it (p + kb lda ..), as one
   gather of denselu_swapplan.h per column after the last column (every block knows every pivot; blocks take the
   columns in turn). The recursion then needs no LaswpKernel: every interchange of the panel reaches every panel
   column in the same order as the recursion's swaps, before any operation reads those rows there. */
template <class T, int W, int R>
__global__ void __launch_bounds__(DENSELU_LEAF_THREADS) LeafCoopKernel(int m, int kb, T *p, int lda, int *ipiv, int row0, int *flag, T *cval, int *cidx, int ol, int orr)
{
  namespace cg = cooperative_groups;
  constexpr int NT = DENSELU_LEAF_THREADS, NW = NT / 32;
  __shared__ T   sval[NW], prow[W], rj[W];
  __shared__ int sidx[NW], spiv, swin, lpiv[W], lslot[W], ltop[W], llow[W];
  cg::grid_group grid = cg::this_grid();
  const int      G = gridDim.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int      base = blockIdx.x * NT * R + threadIdx.x;
  T              v[R][W];

  LeafLoad<T, W, R, NT>(v, base, m, kb, p, lda);
#pragma unroll
  for (int j = 0; j < W; j++) {
    if (j >= kb || j >= m) break; /* uniform */
    const int par = j & 1;
    T        *cv = cval + (size_t)par * G * (W + 1), *rowj = cval + (size_t)2 * G * (W + 1) + par * W;
    int      *ci = cidx + par * G;
    T         best;
    int       bi;
    LeafBlockCandidate<T, W, R, NT>(v, base, j, m, sval, sidx, best, bi);
    if (threadIdx.x == 0) {
      spiv = bi;
      __stcg(ci + blockIdx.x, bi);
      __stcg(cv + (size_t)blockIdx.x * (W + 1) + W, best);
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < R; r++) {
      const int i = base + r * NT;
      if (i == spiv)
#pragma unroll
        for (int c = 0; c < W; c++) __stcg(cv + (size_t)blockIdx.x * (W + 1) + c, v[r][c]);
      if (i == j)
#pragma unroll
        for (int c = 0; c < W; c++) __stcg(rowj + c, v[r][c]);
    }
    grid.sync();
    /* the pivot: the best of the G candidates (every block computes the same) */
    if (warp == 0) {
      best   = (T)-1;
      bi     = INT_MAX;
      int bw = 0;
      for (int g = lane; g < G; g += 32) {
        const T   gv = __ldcg(cv + (size_t)g * (W + 1) + W);
        const int gi = __ldcg(ci + g);
        if (gv > best || (gv == best && gi < bi)) best = gv, bi = gi, bw = g;
      }
      for (int off = 16; off > 0; off >>= 1) {
        const T   ob = __shfl_down_sync(0xffffffffu, best, off);
        const int oi = __shfl_down_sync(0xffffffffu, bi, off), ow = __shfl_down_sync(0xffffffffu, bw, off);
        if (ob > best || (ob == best && oi < bi)) best = ob, bi = oi, bw = ow;
      }
      if (lane == 0) spiv = bi, swin = bw;
    }
    __syncthreads();
    for (int c = threadIdx.x; c < W; c += NT) {
      prow[c] = __ldcg(cv + (size_t)swin * (W + 1) + c);
      rj[c]   = __ldcg(rowj + c);
    }
    __syncthreads();
    const int pr = spiv;
    if (blockIdx.x == 0 && threadIdx.x == 0) ipiv[j] = row0 + pr;
    if (threadIdx.x == 0) lpiv[j] = pr; /* read after the loop's last __syncthreads */
    if (!LeafSwapUpdate<T, W, R, NT>(v, base, j, m, pr, prow, rj) && blockIdx.x == 0 && threadIdx.x == 0) atomicMin(flag, row0 + j);
  }
  LeafStore<T, W, R, NT>(v, base, m, kb, p, lda);
  if (ol + orr > 0) LeafPanelSwaps<T, W, NT>(m, kb, p, lda, ol, orr, blockIdx.x, G, lpiv, lslot, ltop, llow); /* uniform */
}

/* Cluster leaf (-mat_pgx_lu_path cluster; sm_90): the LU with partial pivoting of LeafCoopKernel (same operations,
   same rows per block and per thread: block b of the cluster owns rows b*R*NT + r*NT + threadIdx.x, thread t keeps
   their W entries in v[r][]), but the G blocks are ONE thread-block cluster (the grid is the cluster) and the critical
   path of a column is one cluster barrier instead of a grid-wide synchronization: each block posts its candidate
   (largest |a_ij| of its rows, first index on ties, and that row's W entries) and the owner of row j posts row j in
   its OWN shared memory; after cluster.sync() every block gathers the G candidates and row j through distributed
   shared memory in one round (independent loads), and picks the same pivot (largest, then smallest row index: the
   reference's first largest). The posts alternate between two buffers (column parity): a block rewrites the buffer
   of column j at column j + 2, after the barrier of column j + 1, which every block reaches only after its reads of
   column j. A last barrier keeps every block's shared memory alive until the others' reads are done. Leaf swaps (ol +
   orr > 0) as in LeafCoopKernel. Compiled for sm_90 and later only (the host launches it only there). */
template <class T, int W, int R>
__global__ void __launch_bounds__(DENSELU_LEAF_THREADS) LeafClusterKernel(int m, int kb, T *p, int lda, int *ipiv, int row0, int *flag, int ol, int orr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  constexpr int NT = DENSELU_LEAF_THREADS, NW = NT / 32;
  __shared__ T   sval[NW];
  __shared__ int sidx[NW], spiv, swin, lpiv[W], lslot[W], ltop[W], llow[W];
  __shared__ T   pval[2], pcand[2][W], prowj[2][W];  /* posted: this block's candidate and (owner) row j */
  __shared__ int pidx[2];
  __shared__ T   gval[DENSELU_CLUSTER_MAX], grow[DENSELU_CLUSTER_MAX][W], rj[W]; /* gathered from the cluster */
  __shared__ int gidx[DENSELU_CLUSTER_MAX];
  cg::cluster_group cluster = cg::this_cluster();
  const int         G = (int)cluster.num_blocks(), me = (int)cluster.block_rank(), lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int         base = me * NT * R + threadIdx.x;
  T                 v[R][W];

  LeafLoad<T, W, R, NT>(v, base, m, kb, p, lda);
  #pragma unroll
  for (int j = 0; j < W; j++) {
    if (j >= kb || j >= m) break; /* uniform */
    const int par = j & 1;
    T         best;
    int       bi;
    LeafBlockCandidate<T, W, R, NT>(v, base, j, m, sval, sidx, best, bi);
    if (threadIdx.x == 0) {
      spiv      = bi;
      pidx[par] = bi;
      pval[par] = best;
    }
    __syncthreads();
  #pragma unroll
    for (int r = 0; r < R; r++) {
      const int i = base + r * NT;
      if (i == spiv)
  #pragma unroll
        for (int c = 0; c < W; c++) pcand[par][c] = v[r][c];
      if (i == j)
  #pragma unroll
        for (int c = 0; c < W; c++) prowj[par][c] = v[r][c];
    }
    cluster.sync(); /* the posts of column j are visible to the cluster */
    /* one round of distributed shared memory loads: the G candidates (value, row, entries) and row j */
    const int own = j / (NT * R); /* the block holding row j */
    for (int t = threadIdx.x; t < G * W; t += NT) {
      const T *src = cluster.map_shared_rank(&pcand[par][0], (unsigned)(t / W));
      grow[t / W][t % W] = src[t % W];
    }
    if (threadIdx.x < G) {
      gval[threadIdx.x] = *cluster.map_shared_rank(&pval[par], (unsigned)threadIdx.x);
      gidx[threadIdx.x] = *cluster.map_shared_rank(&pidx[par], (unsigned)threadIdx.x);
    }
    if (threadIdx.x >= NT - W) rj[threadIdx.x - (NT - W)] = cluster.map_shared_rank(&prowj[par][0], (unsigned)own)[threadIdx.x - (NT - W)];
    __syncthreads();
    if (warp == 0) { /* G <= 32: one candidate a lane */
      best   = lane < G ? gval[lane] : (T)-1;
      bi     = lane < G ? gidx[lane] : INT_MAX;
      int bw = lane;
      for (int off = 16; off > 0; off >>= 1) {
        const T   ob = __shfl_down_sync(0xffffffffu, best, off);
        const int oi = __shfl_down_sync(0xffffffffu, bi, off), ow = __shfl_down_sync(0xffffffffu, bw, off);
        if (ob > best || (ob == best && oi < bi)) best = ob, bi = oi, bw = ow;
      }
      if (lane == 0) spiv = bi, swin = bw;
    }
    __syncthreads();
    const int pr = spiv;
    const T  *prow = grow[swin];
    if (me == 0 && threadIdx.x == 0) ipiv[j] = row0 + pr;
    if (threadIdx.x == 0) lpiv[j] = pr;
    if (!LeafSwapUpdate<T, W, R, NT>(v, base, j, m, pr, prow, rj) && me == 0 && threadIdx.x == 0) atomicMin(flag, row0 + j);
  }
  LeafStore<T, W, R, NT>(v, base, m, kb, p, lda);
  cluster.sync(); /* no block leaves while another still reads its shared memory */
  if (ol + orr > 0) LeafPanelSwaps<T, W, NT>(m, kb, p, lda, ol, orr, me, G, lpiv, lslot, ltop, llow); /* uniform */
#else
  __trap(); /* never launched before sm_90 (LaunchLeafCluster checks the device) */
#endif
}

/* y(:,c) = x(perm, c) (gather) or y(perm, c) = x(:, c) (scatter), converting the type */
/* ------------------------------------------------------------------ tournament pivoting (denselu_tournament.h) */
#define DENSELU_TSLU_THREADS 256 /* threads of a tournament block: rows t and t + 256 of its chunk (chunks have < 512 rows) */
#define DENSELU_TSLU_R       2

/* The partial-pivoting selection of denselu_tournament.h by one thread block: thread t holds the rows of list
   positions t + r NT (id[r] >= 0: the panel row; -1: none) with their W values in v[r][]. For each column j < w the
   first largest |v_ij| among the rows not yet chosen (ties: the smaller list position) is chosen, out[j] = its panel
   row, selpos[j] = its list position, and the other rows are eliminated with it (unless it is zero). The chosen rows'
   registers end with L11\U11 of the winners in pivot order (the no-pivoting LU of those rows). out, selpos, prow
   (W), wv, wi (NT / 32), ssel: shared memory. */
template <class T, int W, int R, int NT>
__device__ __forceinline__ void TsluSelect(T (&v)[R][W], int (&id)[R], bool (&chosen)[R], int w, int *out, int *selpos, T *prow, T *wv, int *wi, int *ssel)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int j = 0; j < W; j++) {
    if (j >= w) break; /* uniform */
    T   best = (T)-1;
    int bi   = INT_MAX;
#pragma unroll
    for (int r = 0; r < R; r++)
      if (id[r] >= 0 && !chosen[r]) ArgMaxCombine(best, bi, (T)fabs(v[r][j]), (int)threadIdx.x + r * NT);
    for (int off = 16; off > 0; off >>= 1) ArgMaxCombine(best, bi, __shfl_down_sync(0xffffffffu, best, off), __shfl_down_sync(0xffffffffu, bi, off));
    if (lane == 0) wv[warp] = best, wi[warp] = bi;
    __syncthreads();
    if (warp == 0) {
      best = lane < NT / 32 ? wv[lane] : (T)-1;
      bi   = lane < NT / 32 ? wi[lane] : INT_MAX;
      for (int off = 16; off > 0; off >>= 1) ArgMaxCombine(best, bi, __shfl_down_sync(0xffffffffu, best, off), __shfl_down_sync(0xffffffffu, bi, off));
      if (lane == 0) *ssel = bi;
    }
    __syncthreads();
    const int sel = *ssel;
#pragma unroll
    for (int r = 0; r < R; r++)
      if ((int)threadIdx.x + r * NT == sel) {
#pragma unroll
        for (int c = 0; c < W; c++) prow[c] = v[r][c];
        out[j]    = id[r];
        selpos[j] = sel;
        chosen[r] = true;
      }
    __syncthreads();
    const T d = prow[j];
    if (d != (T)0) {
#pragma unroll
      for (int r = 0; r < R; r++)
        if (id[r] >= 0 && !chosen[r]) {
          const T l = v[r][j] / d;
          v[r][j]   = l;
#pragma unroll
          for (int c = j + 1; c < W; c++) v[r][c] -= l * prow[c];
        }
    }
  }
  __syncthreads();
}

/* Tournament of the m x w leaf p (leading dimension lda; w <= W; its first row is row0 of the matrix), one launch:
   block c selects the candidates of chunk c (TournamentChunkRows) into cand; then, up the tree, the last block to
   finish a pair of siblings (atomic counter cnt[parent]; __threadfence before it) merges their lists; a node with
   one child copies its list. The block that computes the root: the interchanges (ipiv, absolute rows), the rows
   below the top that receive a top row (moved: count, then dst[W], src[W]; their original values into save, W
   values a row), L11\U11 of the winners into the top rows, a zero u_jj into flag (atomicMin), and the counters back
   to zero. Nothing else writes p, and every read of p happens before the root's block is reached. */
template <class T, int W>
__global__ void __launch_bounds__(DENSELU_TSLU_THREADS) TournamentKernel(int m, int w, T *p, int lda, int *cand, int *cnt, int *ipiv, int row0, int *flag, T *save, int *moved)
{
  constexpr int NT = DENSELU_TSLU_THREADS, R = DENSELU_TSLU_R;
  __shared__ T   prow[W], wv[NT / 32];
  __shared__ int out[W], selpos[W], wi[NT / 32], ssel, slast, lst[2 * W];
  __shared__ int spiv[W], spos[2 * W], srow[2 * W], sdst[2 * W], ssrc[2 * W], snm;
  T              v[R][W];
  int            id[R];
  bool           chosen[R];
  const int      nc = TournamentChunks(m);
  int            r0, r1;

  TournamentChunkRows(m, blockIdx.x, &r0, &r1);
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int i = r0 + (int)threadIdx.x + r * NT;
    id[r]       = i < r1 ? i : -1;
    chosen[r]   = false;
#pragma unroll
    for (int c = 0; c < W; c++) v[r][c] = (i < r1 && c < w) ? p[i + (size_t)c * lda] : (T)0;
  }
  TsluSelect<T, W, R, NT>(v, id, chosen, w, out, selpos, prow, wv, wi, &ssel);
  int idx = blockIdx.x, count = nc, off = 0; /* off: index of the first node of this level */
  while (count > 1) {
    const int up = (count + 1) / 2, parent = idx / 2, pnode = off + count + parent;
    for (int t = threadIdx.x; t < w; t += NT) cand[(size_t)(off + idx) * W + t] = out[t];
    if (2 * parent + 1 < count) { /* two children: the second to arrive merges */
      __threadfence();
      __syncthreads();
      if (threadIdx.x == 0) slast = atomicAdd(&cnt[pnode], 1) == 1;
      __syncthreads();
      if (!slast) return; /* uniform */
      __threadfence();
      for (int t = threadIdx.x; t < 2 * w; t += NT) lst[t] = ((volatile int *)cand)[(size_t)(off + 2 * parent + t / w) * W + t % w];
      __syncthreads();
#pragma unroll
      for (int r = 0; r < R; r++) {
        const int q = (int)threadIdx.x + r * NT;
        id[r]       = q < 2 * w ? lst[q] : -1;
        chosen[r]   = false;
#pragma unroll
        for (int c = 0; c < W; c++) v[r][c] = (q < 2 * w && c < w) ? p[id[r] + (size_t)c * lda] : (T)0;
      }
      TsluSelect<T, W, R, NT>(v, id, chosen, w, out, selpos, prow, wv, wi, &ssel);
    } /* else one child: out is its list already */
    off += count;
    count = up;
    idx   = parent;
  }
  /* the root: this block's out[] are the winners, its chosen rows hold L11\U11 */
  if (threadIdx.x == 0) {
    TournamentInterchanges(w, out, spiv, spos, srow, &snm, sdst, ssrc);
    moved[0] = snm;
    for (int t = 0; t < snm; t++) moved[1 + t] = sdst[t], moved[1 + W + t] = ssrc[t];
  }
  __syncthreads();
  for (int t = threadIdx.x; t < w; t += NT) ipiv[t] = row0 + spiv[t];
  for (int t = threadIdx.x; t < snm * w; t += NT) save[(t / w) * W + t % w] = p[ssrc[t / w] + (size_t)(t % w) * lda];
  __syncthreads(); /* the top rows' original values are saved: overwrite them */
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int q = (int)threadIdx.x + r * NT;
    for (int j = 0; j < w; j++)
      if (selpos[j] == q) {
#pragma unroll
        for (int c = 0; c < W; c++)
          if (c < w) p[j + (size_t)c * lda] = v[r][c];
#pragma unroll
        for (int c = 0; c < W; c++)
          if (c == j && v[r][c] == (T)0) atomicMin(flag, row0 + j);
      }
  }
  const int nodes = TournamentNodes(nc, NULL);
  for (int t = threadIdx.x; t < nodes; t += NT) cnt[t] = 0;
}

/* After TournamentKernel: row i >= w of the leaf (its source: save when i is a moved row's destination, else row i)
   becomes L21's row x with x U11 = a (x_j = a_j / u_jj, a_c -= x_j u_jc for c > j; a zero u_jj: column j neither
   scaled nor eliminated with). One thread a row (the grid covers the m - w rows). */
template <class T, int W>
__global__ void __launch_bounds__(DENSELU_TSLU_THREADS) TournamentL21Kernel(int m, int w, T *p, int lda, const T *save, const int *moved)
{
  __shared__ T   U[W][W + 1];
  __shared__ int sdst[W], snm;
  for (int t = threadIdx.x; t < W * W; t += blockDim.x) U[t % W][t / W] = (t % W < w && t / W < w) ? p[t % W + (size_t)(t / W) * lda] : (T)0;
  if (threadIdx.x == 0) snm = moved[0];
  for (int t = threadIdx.x; t < W; t += blockDim.x) sdst[t] = moved[1 + t];
  __syncthreads();
  const int i = w + blockIdx.x * blockDim.x + threadIdx.x; /* one row a thread, no loop: U's entries are read from
                                                               shared memory where used, not hoisted into registers */
  if (i < m) {
    int s = -1;
    for (int t = 0; t < snm; t++)
      if (sdst[t] == i) s = t;
    T a[W];
#pragma unroll
    for (int c = 0; c < W; c++) a[c] = c < w ? (s >= 0 ? save[s * W + c] : p[i + (size_t)c * lda]) : (T)0;
#pragma unroll
    for (int j = 0; j < W; j++) {
      const T d = U[j][j];
      if (j < w && d != (T)0) {
        const T l = a[j] / d;
        a[j]      = l;
#pragma unroll
        for (int c = j + 1; c < W; c++) a[c] -= l * U[j][c];
      }
    }
#pragma unroll
    for (int c = 0; c < W; c++)
      if (c < w) p[i + (size_t)c * lda] = a[c];
  }
}

template <class S, class T>
__global__ void PermuteKernel(int n, int ncol, const S *x, int ldx, T *y, int ldy, const int *perm, int scatter)
{
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)n * ncol) return;
  const int i = (int)(t % n), c = (int)(t / n);
  if (scatter) y[perm[i] + (size_t)c * ldy] = (T)x[i + (size_t)c * ldx];
  else y[i + (size_t)c * ldy] = (T)x[perm[i] + (size_t)c * ldx];
}

/* y = (T)x on n x ncol with leading dimensions; add: y += x */
template <class S, class T>
__global__ void CopyKernel(int n, int ncol, const S *x, int ldx, T *y, int ldy, int add)
{
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)n * ncol) return;
  const int i = (int)(t % n), c = (int)(t / n);
  if (add) y[i + (size_t)c * ldy] += (T)x[i + (size_t)c * ldx];
  else y[i + (size_t)c * ldy] = (T)x[i + (size_t)c * ldx];
}

/* out[i] = sum_j |a_ij| (thread per row; consecutive threads read consecutive rows) */
__global__ void RowAbsSumKernel(int n, const double *a, double *out)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0;
  for (int j = 0; j < n; j++) s += fabs(a[i + (size_t)j * n]);
  out[i] = s;
}

/* r[i] <- r[i] - 2 |a_ii| (r: the row sums of |A|): row i is diagonally dominant, |a_ii| >= sum_{j != i} |a_ij|,
   exactly when the result is <= 0 */
__global__ void RowDominanceMarginKernel(int n, const double *a, double *r)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  r[i] -= 2.0 * fabs(a[i + (size_t)i * n]);
}

/* block-wide reductions (blockDim.x a multiple of 32, at most 1024) */
__device__ inline double BlockMax(double v, double *sh)
{
  for (int off = 16; off > 0; off >>= 1) v = fmax(v, __shfl_down_sync(0xffffffffu, v, off));
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : 0.0;
    for (int off = 16; off > 0; off >>= 1) v = fmax(v, __shfl_down_sync(0xffffffffu, v, off));
  }
  return v; /* valid in thread 0 */
}
__device__ inline double BlockSum(double v, double *sh)
{
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : 0.0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  }
  return v; /* valid in thread 0 */
}

/* out[0] = max_i x[i] (one block); NaN propagates (fmax would drop it) */
__global__ void MaxKernel(int n, const double *x, double *out)
{
  __shared__ double sh[32];
  __shared__ int    nan;
  double            v = 0;
  if (threadIdx.x == 0) nan = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (isnan(x[i])) nan = 1;
    v = fmax(v, x[i]);
  }
  v = BlockMax(v, sh);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = nan ? x[0] * NAN : v;
}

/* out[c] = ||R(:,c)||_inf (blockIdx.y 0) and out[k + c] = ||X(:,c)||_inf (blockIdx.y 1), block c; NaN propagates */
__global__ void ColumnInfNormsKernel(int n, int k, const double *r, const double *x, double *out)
{
  __shared__ double sh[32];
  __shared__ int    nan;
  const int         c = blockIdx.x;
  const double     *v = (blockIdx.y ? x : r) + (size_t)c * n;
  double            m = 0;
  if (threadIdx.x == 0) nan = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const double a = fabs(v[i]);
    if (isnan(a)) nan = 1;
    m = fmax(m, a);
  }
  m = BlockMax(m, sh);
  __syncthreads();
  if (threadIdx.x == 0) out[c + blockIdx.y * k] = nan ? (double)NAN : m;
}

/* One block: nrm = ||w||_2 into *hn; v = w / nrm (v = 0 when nrm is 0 or not finite); v may be w */
__global__ void NormalizeKernel(int n, const double *w, double *v, double *hn)
{
  __shared__ double sh[32];
  __shared__ double snrm;
  double            s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += w[i] * w[i];
  s = BlockSum(s, sh);
  if (threadIdx.x == 0) {
    snrm  = sqrt(s);
    hn[0] = snrm;
  }
  __syncthreads();
  const double nrm = snrm, inv = (nrm > 0 && isfinite(nrm)) ? 1.0 / nrm : 0.0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v[i] = w[i] * inv;
}

/* y[i] += x[i], i < m */
__global__ void AddKernel(int m, const double *x, double *y)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) y[i] += x[i];
}

/* The NaN/Inf check of A and the test of NOPIVOT_AUTO in one pass, one block per column j (contiguous): flag[1] = 1 when
   an entry is not finite, flag[2] = 1 when column j is not strictly diagonally dominant (|a_jj| > sum_{i != j} |a_ij|
   fails; NaN fails it too) */
__global__ void FiniteDominanceKernel(int n, const double *a, int *flag)
{
  __shared__ double sh[32];
  const int         j = blockIdx.x;
  const double     *c = a + (size_t)j * n;
  double            s = 0;
  bool              bad = false;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const double v = c[i];
    bad |= !isfinite(v);
    if (i != j) s += fabs(v);
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicExch(flag + 1, 1);
  s = BlockSum(s, sh);
  if (threadIdx.x == 0 && !(fabs(c[j]) > s)) atomicExch(flag + 2, 1);
}

/* cusolverDnDgetrf's pivots of a panel (1-based, local to the panel's first row k) made PGX's (0-based, rows of the
   matrix), in place; its info > 0 (U(info, info) exactly zero) becomes the zero column of flag[0] */
__global__ void CusolverPivKernel(int kb, int *ipiv, int k, const int *info, int *flag)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < kb) ipiv[j] += k - 1;
  if (j == 0 && *info > 0) atomicMin(flag, k + *info - 1);
}

/* flag[0] = INT_MAX (the first zero pivot's column: none), flag[1] = flag[2] = 0 (ResetFlag) */
__global__ void ResetFlagKernel(int *flag)
{
  if (threadIdx.x < 3) flag[threadIdx.x] = threadIdx.x ? 0 : INT_MAX;
}

/* ipiv[i] = i: the pivots of a factorization without pivoting */
__global__ void IotaKernel(int n, int *ipiv)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ipiv[i] = i;
}

/* LU without pivoting of the top w x w block (w <= 32) of a panel (leading dimension lda), one warp: lane i holds row i
   in registers, row j reaches the other lanes by shuffles; l_ij = a_ij / u_jj, then the rank-1 update of the row. The
   rows below the block are finished by L21 = A21 U11^-1 (NoPivLeaf). */
template <class T>
__global__ void __launch_bounds__(32) NoPivLeafKernel(int w, T *p, int lda)
{
  const int i = (int)threadIdx.x;
  T         r[32];
#pragma unroll
  for (int c = 0; c < 32; c++) r[c] = (i < w && c < w) ? p[i + (size_t)c * lda] : T(0);
#pragma unroll
  for (int j = 0; j < 32; j++) {
    if (j < w) { /* the same in every lane */
      const T piv = __shfl_sync(0xffffffffu, r[j], j);
      const T l   = r[j] / piv;
      if (i > j) r[j] = l;
#pragma unroll
      for (int c = j + 1; c < 32; c++) {
        const T u = __shfl_sync(0xffffffffu, r[c], j);
        if (i > j) r[c] -= l * u;
      }
    }
  }
  if (i < w)
    for (int c = 0; c < w; c++) p[i + (size_t)c * lda] = r[c];
}

/* After a factorization without pivoting: flag[2] = 1 unless every |l_ij| <= 1 (i > j) and every u_jj is nonzero and
   finite (a NaN fails both), the condition under which partial pivoting would have kept every diagonal entry (the
   first largest of its column). One block per column j, rows j..n-1. */
template <class T>
__global__ void NoPivCheckKernel(int n, const T *lu, int *flag, bool rbt, T tiny)
{
  const int j   = blockIdx.x;
  const T  *c   = lu + (size_t)j * n;
  bool      bad = false;
  for (int i = j + (int)threadIdx.x; i < n; i += blockDim.x) {
    const T v = c[i];
    if (i == j) bad |= !(fabs(v) > tiny && isfinite(v)); /* tiny: 0, or n eps ||A||_inf for butterfly factors */
    else bad |= rbt ? !isfinite(v) : !(fabs(v) <= T(1)); /* butterfly factors: finite (no bound on |l_ij|: refinement checks) */
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicExch(flag + 2, 1);
}

/* One level of a butterfly (denselu_rbt.h) on an n x m block (dim 0: along the row index, on each of the m columns of
   a; dim 1: along the column index, on each of the m rows), forward or transposed; one thread per pair or lone index */
template <class T>
__global__ void RbtKernel(int n, int m, T *a, int lda, const double *r, int level, bool transposed, int dim)
{
  const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)n * m) return;
  int i, o;
  if (dim == 0) i = (int)(idx % n), o = (int)(idx / n);
  else o = (int)(idx % m), i = (int)(idx / m);
  const int q = RbtPartner(n, level, i);
  if (q < i) return;
  T *xp = dim == 0 ? a + i + (size_t)o * lda : a + o + (size_t)i * lda;
  if (q == i) {
    *xp = (T)(r[i] * (double)*xp);
    return;
  }
  T *xq = dim == 0 ? a + q + (size_t)o * lda : a + o + (size_t)q * lda;
  T  vp = *xp, vq = *xq;
  RbtPair<T>(transposed, r[i], r[q], vp, vq);
  *xp = vp;
  *xq = vq;
}

/* ------------------------------------------------------------------ host helpers */
/* Profile: record the next event of the pool on s (the pool grows on demand) */
static PetscErrorCode ProfRecord(Data *d, cudaStream_t s, int *idx)
{
  PetscFunctionBegin;
  if ((size_t)d->nev == d->evpool.size()) {
    cudaEvent_t e;
    PGXCallCUDA(cudaEventCreate(&e));
    d->evpool.push_back(e);
  }
  PGXCallCUDA(cudaEventRecord(d->evpool[d->nev], s));
  *idx = d->nev++;
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* Profile: a phase on stream s begins (tok: its record, -1 when not profiling: nothing recorded) */
static PetscErrorCode ProfBegin(Data *d, cudaStream_t s, Phase p, int *tok)
{
  int e0;

  PetscFunctionBegin;
  *tok = -1;
  if (!d->prof) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ProfRecord(d, s, &e0));
  d->recs.push_back({p, e0, -1});
  *tok = (int)d->recs.size() - 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode ProfEnd(Data *d, cudaStream_t s, int tok)
{
  PetscFunctionBegin;
  if (tok < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ProfRecord(d, s, &d->recs[tok].e1));
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* Profile: wait for the recorded pairs, add their times to d->prof, and free the pool for reuse */
static PetscErrorCode ProfCollect(Data *d)
{
  PetscFunctionBegin;
  if (!d->prof) PetscFunctionReturn(PETSC_SUCCESS);
  for (const Data::ProfRec &r : d->recs) {
    float ms = 0;
    PetscCheck(r.e1 >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "denselu cuda profile: phase %s was begun and not ended", PhaseName(r.p));
    PGXCallCUDA(cudaEventSynchronize(d->evpool[r.e1]));
    PGXCallCUDA(cudaEventElapsedTime(&ms, d->evpool[r.e0], d->evpool[r.e1]));
    ProfileAdd(d->prof, r.p, (double)ms);
  }
  d->recs.clear();
  d->nev = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LaunchCopyD2F(int n, int ncol, const double *x, int ldx, float *y, int ldy, cudaStream_t s)
{
  PetscFunctionBegin;
  if (!n || !ncol) PetscFunctionReturn(PETSC_SUCCESS);
  CopyKernel<double, float><<<PGXCUDAGridSize((PetscInt)n * ncol, 256), 256, 0, s>>>(n, ncol, x, ldx, y, ldy, 0);
  PGXCheckLaunch("denselu CopyKernel<double,float>");
  PetscFunctionReturn(PETSC_SUCCESS);
}

#include "denselu_trsv.cuh"

/* x <- op(T)^-1 x by one launch of TrsvKernel, T a triangle of the n x n factors lu (leading dimension n):
   which 0: L (unit lower), 1: U, 2: U^T, 3: L^T */
template <class S, class C>
static PetscErrorCode LaunchTrsv(Data *d, int which, const S *lu, C *x, cudaStream_t s)
{
  const int n = (int)d->n, nblk = (n + DENSELU_TRSV_B - 1) / DENSELU_TRSV_B;
  const int rev = which == 1 || which == 3, unit = which == 0 || which == 3;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(d->tsync.resize((size_t)nblk + 1));
  PGXCallCUDA(cudaMemsetAsync(d->tsync.data(), 0, ((size_t)nblk + 1) * sizeof(int), s));
  if (d->trsv == 2) {
    if (which < 2) TrsvKernel<S, C, false, true><<<nblk, DENSELU_TRSV_THREADS, 0, s>>>(n, lu, n, x, rev, unit, d->tsync.data(), d->trsvtrace);
    else TrsvKernel<S, C, true, true><<<nblk, DENSELU_TRSV_THREADS, 0, s>>>(n, lu, n, x, rev, unit, d->tsync.data(), d->trsvtrace);
  } else {
    if (which < 2) TrsvKernel<S, C, false, false><<<nblk, DENSELU_TRSV_THREADS, 0, s>>>(n, lu, n, x, rev, unit, d->tsync.data(), d->trsvtrace);
    else TrsvKernel<S, C, true, false><<<nblk, DENSELU_TRSV_THREADS, 0, s>>>(n, lu, n, x, rev, unit, d->tsync.data(), d->trsvtrace);
  }
  PGXCheckLaunch("denselu TrsvKernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline cublasStatus_t Trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t f, cublasOperation_t o, cublasDiagType_t dg, int m, int n, const double *a, int lda, double *b, int ldb)
{
  const double one = 1.0;
  return cublasDtrsm(h, s, f, o, dg, m, n, &one, a, lda, b, ldb);
}
static inline cublasStatus_t Trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t f, cublasOperation_t o, cublasDiagType_t dg, int m, int n, const float *a, int lda, float *b, int ldb)
{
  const float one = 1.0f;
  return cublasStrsm(h, s, f, o, dg, m, n, &one, a, lda, b, ldb);
}

/* C -= A B: FP64 dgemm, or FP32 data with a tensor-core compute type */
static inline cublasStatus_t TrailingGemm(cublasHandle_t h, Precision prec, int m, int n, int k, const double *a, int lda, const double *b, int ldb, double *c, int ldc)
{
  const double mone = -1.0, one = 1.0;
  return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &mone, a, lda, b, ldb, &one, c, ldc);
}
static inline cublasStatus_t TrailingGemm(cublasHandle_t h, Precision prec, int m, int n, int k, const float *a, int lda, const float *b, int ldb, float *c, int ldc)
{
  const float          mone = -1.0f, one = 1.0f;
  cublasComputeType_t ct   = prec == PRECISION_HALF ? CUBLAS_COMPUTE_32F_FAST_16F : (prec == PRECISION_BF16 ? CUBLAS_COMPUTE_32F_FAST_16BF : CUBLAS_COMPUTE_32F_FAST_TF32);
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &mone, a, CUDA_R_32F, lda, b, CUDA_R_32F, ldb, &one, c, CUDA_R_32F, ldc, ct, CUBLAS_GEMM_DEFAULT);
}

/* PRECISION_TF32X3: a_hi = a rounded to nearest (ties away) to tf32's 10 stored mantissa bits (FP32's 13 low bits
   cleared; a carry into the exponent is right), a_lo = a - a_hi, exact in FP32 */
__device__ __forceinline__ float Tf32Hi(float x)
{
  unsigned u = __float_as_uint(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x; /* Inf, NaN as they are (the glue refuses them before factoring) */
  return __uint_as_float((u + 0x1000u) & 0xffffe000u);
}

/* The operands of C -= A B as ONE tf32 product of depth 3k: A3 = [A_hi A_hi A_lo] (m x 3k, leading dimension m) and
   B3 = [B_hi; B_lo; B_hi] (3k x n, leading dimension 3k), so that A3 B3 = A_hi B_hi + A_hi B_lo + A_lo B_hi (the
   tensor cores' own rounding of A_lo and B_lo to tf32 costs 2^-11 of a term that is 2^-11 of the product). One
   thread an entry of A (the first m k) or of B, in a grid-stride loop */
__global__ void Split3Kernel(int m, int n, int k, const float *__restrict__ a, int lda, const float *__restrict__ b, int ldb, float *__restrict__ a3, float *__restrict__ b3)
{
  const size_t na = (size_t)m * k, nt = na + (size_t)k * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < nt; t += (size_t)gridDim.x * blockDim.x) {
    if (t < na) {
      const int   i = (int)(t % m), j = (int)(t / m);
      const float x = a[i + (size_t)j * lda], hi = Tf32Hi(x);
      a3[i + (size_t)j * m]           = hi;
      a3[i + (size_t)(j + k) * m]     = hi;
      a3[i + (size_t)(j + 2 * k) * m] = x - hi;
    } else {
      const size_t u = t - na;
      const int    i = (int)(u % k), j = (int)(u / k);
      const float  x = b[i + (size_t)j * ldb], hi = Tf32Hi(x);
      float       *c = b3 + (size_t)j * 3 * k;
      c[i]         = hi;
      c[i + k]     = x - hi;
      c[i + 2 * k] = hi;
    }
  }
}

static PetscErrorCode WorkStream(Data *d, cudaStream_t *s, cublasHandle_t *h);

/* C -= A B of the factorization on h's stream: TrailingGemm, or for PRECISION_TF32X3 (FP32 data) Split3Kernel into
   the workspace of h's stream (x3[1] for the look-ahead's s2, x3[0] for the other; sized by FactorDeviceDirect before
   the first launch, as a resize would synchronize and cannot be captured) and one cublasGemmEx of depth 3k with
   CUBLAS_COMPUTE_32F_FAST_TF32 */
template <class T>
static PetscErrorCode Trailing(Data *d, cublasHandle_t h, Precision prec, int m, int n, int k, const T *a, int lda, const T *b, int ldb, T *c, int ldc)
{
  PetscFunctionBegin;
  if constexpr (std::is_same<T, float>::value) {
    if (prec == PRECISION_TF32X3) {
      if (m <= 0 || n <= 0 || k <= 0) PetscFunctionReturn(PETSC_SUCCESS);
      pgx::cuda::DeviceArray<float> &w    = d->x3[h == d->h2 ? 1 : 0];
      const size_t                   half = w.size() / 2;
      cudaStream_t                   s;
      const float                    mone = -1.0f, one = 1.0f;
      PetscCheck((size_t)m * 3 * k <= half && (size_t)3 * k * n <= half, PETSC_COMM_SELF, PETSC_ERR_PLIB, "denselu cuda: the tf32x3 workspace (%zu floats) is too small for a %d x %d x %d product", w.size(), m, n, k);
      if (h == d->h2) s = d->s2;
      else {
        cublasHandle_t hw;
        PetscCall(WorkStream(d, &s, &hw));
        PetscCheck(hw == h, PETSC_COMM_SELF, PETSC_ERR_PLIB, "denselu cuda: a tf32x3 product on a cuBLAS handle of neither the work stream nor s2");
      }
      const size_t nt = (size_t)m * k + (size_t)k * n;
      Split3Kernel<<<(int)PetscMin((nt + 255) / 256, (size_t)8192), 256, 0, s>>>(m, n, k, a, lda, b, ldb, w.data(), w.data() + half);
      PGXCheckLaunch("denselu Split3Kernel (tf32x3)");
      PGXCallCUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, 3 * k, &mone, w.data(), CUDA_R_32F, m, w.data() + half, CUDA_R_32F, 3 * k, &one, c, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PGXCallCUBLAS(TrailingGemm(h, prec, m, n, k, a, lda, b, ldb, c, ldc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B <- L^-1 B, L unit lower kb x kb (ldl), B kb x ncol (ldb), on h's stream: one cublas<t>trsm, or in FP64 with
   SetTrsmLeaf (d->trsmleaf > 0) by halves of multiples of 32 rows down to solves of at most trsmleaf rows, each pair of
   halves joined by one gemm (the bottom half minus L21 times the solved top): a blocked forward substitution whose
   launches are few and large, where cuBLAS's own blocking of a 512-row solve launches many small kernels that each
   wait for SMs behind the look-ahead's gemm. No inverse of L is formed */
template <class T>
static PetscErrorCode TrsmLower(Data *d, cublasHandle_t h, Precision prec, int kb, int ncol, const T *L, int ldl, T *B, int ldb)
{
  PetscFunctionBegin;
  if (kb <= 0 || ncol <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (d->trsmleaf <= 0 || kb <= d->trsmleaf || kb <= 32 || sizeof(T) != sizeof(double)) { /* halves are multiples of 32 rows: none below */
    PGXCallCUBLAS(Trsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, kb, ncol, L, ldl, B, ldb));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const int h1 = ((kb / 2 + 31) / 32) * 32;
  PetscCall(TrsmLower<T>(d, h, prec, h1, ncol, L, ldl, B, ldb));
  PetscCall(Trailing<T>(d, h, prec, kb - h1, ncol, h1, L + h1, ldl, B, ldb, B + h1, ldb));
  PetscCall(TrsmLower<T>(d, h, prec, kb - h1, ncol, L + h1 + (size_t)h1 * ldl, ldl, B + h1, ldb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stream and cuBLAS handle of the factorization's own work: the private greatest-priority stream sp while a
   factorization with -mat_pgx_lu_priority runs on it (FactorDevice), else PGX's */
static PetscErrorCode WorkStream(Data *d, cudaStream_t *s, cublasHandle_t *h)
{
  PetscFunctionBegin;
  if (d->onsp) {
    *s = d->sp;
    *h = d->hp;
  } else {
    PetscCall(PGXCUDAGetStream(s));
    PetscCall(PGXCUDAGetCUBLAS(h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The interchanges k1..k2-1 on ncol logical columns of a (see LaswpKernel: q < skip0 -> column q, else q + skipn) */
template <class T>
static PetscErrorCode Laswp(cudaStream_t s, int ncol, int skip0, int skipn, T *a, int lda, int k1, int k2, const int *ipiv, const char *what, const int2 *plan = nullptr)
{
  const int kb = k2 - k1;

  PetscFunctionBegin;
  if (ncol <= 0 || kb <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(kb <= DENSELU_NBMAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: %d interchanges in one block; at most %d", kb, DENSELU_NBMAX);
  if (plan) { /* SwapPlanKernel's plan: no plan built per block */
    const int C = PetscMax(1, 2048 / kb); /* 2 kb C <= 16 * 256 entries */
    LaswpPlanKernel<T><<<PGXCUDAGridSize(ncol, (unsigned)C), 256, 0, s>>>(ncol, skip0, skipn, a, lda, kb, plan, C);
    PGXCheckLaunch(what);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const int    C    = PetscMax(1, 2048 / kb); /* columns per thread block: 2 kb C values in shared memory */
  const size_t smem = (size_t)2 * kb * C * sizeof(T) + (size_t)4 * kb * sizeof(int);
  LaswpKernel<T><<<PGXCUDAGridSize(ncol, (unsigned)C), 256, smem, s>>>(ncol, skip0, skipn, a, lda, k1, k2, ipiv, C);
  PGXCheckLaunch(what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The plan of panel [k1, k2)'s interchanges (SetSwapPlan; pivoting factorizations): made once on s into its own slice
   of d->swplan, which the panel's LaswpPlanKernels on every stream read (nothing rewrites it in this factorization);
   NULL when the plan is off (each LaswpKernel block builds it) */
static PetscErrorCode SwapPlan(Data *d, cudaStream_t s, int k1, int k2, const int2 **plan)
{
  PetscFunctionBegin;
  *plan = nullptr;
  if (!d->swapplan || d->nopiv || k2 <= k1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck((size_t)4 * k2 <= d->swplan.size(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "denselu cuda: the swap plans hold %zu entries, panel [%d, %d) needs %d", d->swplan.size(), k1, k2, 4 * k2);
  int2 *pl = (int2 *)(d->swplan.data() + (size_t)4 * k1);
  SwapPlanKernel<<<1, 256, 0, s>>>(k1, k2, d->ipiv.data(), pl);
  PGXCheckLaunch("denselu SwapPlanKernel");
  *plan = pl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cooperative leaf LeafCoopKernel<T, W, R> when its G = ceil(m / (NT R)) blocks can all be resident (and the
   device has cooperative launches); *done says whether it ran. ol, orr: the panel columns left and right of the leaf
   that it swaps too (leaf swaps; else 0, 0) */
template <class T, int W, int R>
static PetscErrorCode LaunchLeafCoop(Data *d, cudaStream_t s, int m, int kb, T *p, int lda, int *ipiv, int row0, int ol, int orr, bool *done)
{
  static int maxblocks = -1; /* per instantiation (PGX uses one device per process) */
  const int  G         = (m + DENSELU_LEAF_THREADS * R - 1) / (DENSELU_LEAF_THREADS * R);

  PetscFunctionBegin;
  *done = false;
  if (maxblocks < 0) {
    const cudaDeviceProp *prop;
    int                   b = 0;
    PetscCall(PGXCUDAGetDeviceProperties(&prop));
    PGXCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, LeafCoopKernel<T, W, R>, DENSELU_LEAF_THREADS, 0));
    maxblocks = prop->cooperativeLaunch ? b * prop->multiProcessorCount : 0;
  }
  if (G > maxblocks || G > DENSELU_LEAF_GMAX) PetscFunctionReturn(PETSC_SUCCESS);
  T    *cv   = (T *)d->cval.data();
  int  *ci   = d->cidx.data(), *flag = d->flag.data();
  void *args[] = {(void *)&m, (void *)&kb, (void *)&p, (void *)&lda, (void *)&ipiv, (void *)&row0, (void *)&flag, (void *)&cv, (void *)&ci, (void *)&ol, (void *)&orr};
  PGXCallCUDA(cudaLaunchCooperativeKernel((const void *)LeafCoopKernel<T, W, R>, dim3(G), dim3(DENSELU_LEAF_THREADS), args, 0, s));
  *done             = true;
  d->leafrowsused = PetscMax(d->leafrowsused, R);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fused path's OnChipLUKernel (denselu_onchip.cuh) with block columns of NB on the n x n matrix a (leading dimension
   n) when n <= DENSELU_ONCHIP_NMAX and its P = ceil(n / NB) blocks (a thread per row, the n x NB slice in shared memory)
   can all be resident (cooperative launch); *done says whether it ran. Its buffer d->ocsync is sized by
   FactorDeviceDirect before the first launch. With PGX_ONCHIP_PROF in the environment (a bench hook) the launch is
   timed per panel by the kernel's profile and the averages printed */
/* The layout of Data::ocsync for P panels of NB columns: the moves start at this offset (16-byte aligned after the
   3 P flags) and take 4 NB P ints */
static inline size_t OnChipMovesAt(size_t P)
{
  return 4 * ((3 * P + 3) / 4);
}

/* How many blocks of OnChipLUKernel<T, NB> (with the largest slice) can be resident at once on PGX's device (0: none,
   or no cooperative launch); queried once per instantiation (PGX uses one device per process) */
template <class T, int NB>
static PetscErrorCode OnChipMaxBlocks(int *maxb)
{
  static int   maxblocks = -1;
  const size_t smax      = (size_t)DENSELU_ONCHIP_NMAX * NB * sizeof(T);

  PetscFunctionBegin;
  if (maxblocks < 0) {
    const cudaDeviceProp *prop;
    cudaFuncAttributes    fa;
    int                   b = 0;
    PetscCall(PGXCUDAGetDeviceProperties(&prop));
    PGXCallCUDA(cudaFuncGetAttributes(&fa, OnChipLUKernel<T, NB>)); /* its static shared memory */
    maxblocks = 0;
    if (smax + fa.sharedSizeBytes <= prop->sharedMemPerBlockOptin) {
      PGXCallCUDA(cudaFuncSetAttribute(OnChipLUKernel<T, NB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smax));
      PGXCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, OnChipLUKernel<T, NB>, DENSELU_ONCHIP_THREADS, smax));
      maxblocks = prop->cooperativeLaunch ? b * prop->multiProcessorCount : 0;
    }
  }
  *maxb = maxblocks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether OnChipLUKernel (block columns of DENSELU_ONCHIP_NB) can factor an n x n matrix in T here */
template <class T>
static PetscErrorCode OnChipFits(const Data *d, int n, bool *fits)
{
  int maxb = 0;

  PetscFunctionBegin;
  *fits = false;
  if (!d->onchip || n < 1 || n > DENSELU_ONCHIP_NMAX) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(OnChipMaxBlocks<T, DENSELU_ONCHIP_NB>(&maxb));
  *fits = (n + DENSELU_ONCHIP_NB - 1) / DENSELU_ONCHIP_NB <= maxb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class T, int NB>
static PetscErrorCode LaunchOnChipNB(Data *d, cudaStream_t s, T *a, int n, bool *done)
{
  const int    P = (n + NB - 1) / NB;
  const size_t smem = (size_t)n * NB * sizeof(T), smax = (size_t)DENSELU_ONCHIP_NMAX * NB * sizeof(T);
  int          maxblocks;

  PetscFunctionBegin;
  *done = false;
  PetscCall(OnChipMaxBlocks<T, NB>(&maxblocks));
  if (P > maxblocks || smem > smax) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(d->ocsync.size() >= OnChipMovesAt(P) + (size_t)4 * NB * P, PETSC_COMM_SELF, PETSC_ERR_PLIB, "denselu cuda: OnChipLUKernel's buffer was not sized");
  int       *sync = d->ocsync.data(), *ipiv = d->ipiv.data(), *flag = d->flag.data(), lda = n;
  int2      *mv   = (int2 *)(sync + OnChipMovesAt(P));
  long long *prof = NULL;
  const bool profile = getenv("PGX_ONCHIP_PROF") != NULL;
  if (profile) { /* a bench hook: this call synchronizes anyway */
    if (d->ocprof.size() < (size_t)4 * P) PetscCall(d->ocprof.resize((size_t)4 * P));
    prof = d->ocprof.data();
  }
  PGXCallCUDA(cudaMemsetAsync(sync, 0, (size_t)3 * P * sizeof(int), s));
  void *args[] = {(void *)&n, (void *)&a, (void *)&lda, (void *)&ipiv, (void *)&flag, (void *)&sync, (void *)&mv, (void *)&prof};
  PGXCallCUDA(cudaLaunchCooperativeKernel((const void *)OnChipLUKernel<T, NB>, dim3(P), dim3(DENSELU_ONCHIP_THREADS), args, smem, s));
  *done = true;
  if (profile) {
    std::vector<long long> h((size_t)4 * P);
    double                 ho = 0, up = 0, fa = 0, pu = 0;
    PGXCallCUDA(cudaMemcpyAsync(h.data(), prof, h.size() * sizeof(long long), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    for (int b = 0; b < P; b++) {
      if (b) ho += h[4 * b + 3] - h[4 * (b - 1) + 2], up += h[4 * b + 0] - h[4 * b + 3];
      fa += h[4 * b + 1] - h[4 * b + 0], pu += h[4 * b + 2] - h[4 * b + 1];
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# onchip n %d NB %d: %d panels, %.1f us from block 0's first panel to the last publish; per panel (us): seen after publish %.2f, earlier panel applied %.2f, columns %.2f, moved and published %.2f\n", n, NB, P, 1e-3 * (h[4 * (P - 1) + 2] - h[0]), P > 1 ? 1e-3 * ho / (P - 1) : 0.0, P > 1 ? 1e-3 * up / (P - 1) : 0.0, 1e-3 * fa / P, 1e-3 * pu / P));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* OnChipLUKernel with block columns of DENSELU_ONCHIP_NB (16). Columns of 32 were measured slower (H100, fiftieth
   session: 49-52 us a panel of 32 columns against 20-24 us for 16) */
template <class T>
static PetscErrorCode LaunchOnChip(Data *d, cudaStream_t s, T *a, int n, bool *done)
{
  PetscFunctionBegin;
  *done = false;
  if (!d->onchip || n < 1 || n > DENSELU_ONCHIP_NMAX) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(LaunchOnChipNB<T, DENSELU_ONCHIP_NB>(d, s, a, n, done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Most rows per thread of the cooperative leaf of width W on T: the leaf's W R values per thread must stay in
   registers (at most 512 bytes: double W 8 up to R 8, W 16 up to 4, W 32 up to 2; float W 8 and 16 up to 8, W 32
   up to 4) */
template <class T, int W>
constexpr int LeafRowsMax()
{
  return 512 / (W * (int)sizeof(T)) < 8 ? 512 / (W * (int)sizeof(T)) : 8;
}

/* Rows per thread R of the cooperative leaf of width W chosen at run time (1, 2, 4, 8): the instantiations are
   R <= LeafRowsMax; a larger R is never asked for here (LeafCoopTry caps it), the template arguments only keep the
   set finite */
template <class T, int W>
static PetscErrorCode LaunchLeafCoopR(Data *d, cudaStream_t s, int R, int m, int kb, T *p, int lda, int *ipiv, int row0, int ol, int orr, bool *done)
{
  PetscFunctionBegin;
  switch (R) {
  case 1:
    PetscCall(LaunchLeafCoop<T, W, 1>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, done));
    break;
  case 2:
    PetscCall(LaunchLeafCoop<T, W, 2>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, done));
    break;
  case 4:
    PetscCall(LaunchLeafCoop<T, W, (LeafRowsMax<T, W>() < 4 ? LeafRowsMax<T, W>() : 4)>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, done));
    break;
  default:
    PetscCall(LaunchLeafCoop<T, W, LeafRowsMax<T, W>()>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, done));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cooperative leaf of width W: default rule (d->leafrows 0) R = 1, then the old second choice (W 8: 4; W 16,
   32: 2); with -mat_pgx_lu_leaf_rows R: R (at most LeafRowsMax), then 2 R, ... up to LeafRowsMax while the blocks do
   not fit */
template <class T, int W>
static PetscErrorCode LeafCoopTry(Data *d, cudaStream_t s, int m, int kb, T *p, int lda, int *ipiv, int row0, int ol, int orr, bool *done)
{
  constexpr int rmax = LeafRowsMax<T, W>();

  PetscFunctionBegin;
  if (!d->leafrows) {
    PetscCall(LaunchLeafCoopR<T, W>(d, s, 1, m, kb, p, lda, ipiv, row0, ol, orr, done));
    if (!*done) PetscCall(LaunchLeafCoopR<T, W>(d, s, W <= 8 ? 4 : 2, m, kb, p, lda, ipiv, row0, ol, orr, done));
  } else
    for (int R = PetscMin(d->leafrows, rmax); R <= rmax && !*done; R *= 2) PetscCall(LaunchLeafCoopR<T, W>(d, s, R, m, kb, p, lda, ipiv, row0, ol, orr, done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cluster leaf LeafClusterKernel<T, W, R> when its G = ceil(m / (NT R)) blocks make one cluster of at most
   DENSELU_CLUSTER_MAX blocks that the device can hold (sm_90 and later; cudaOccupancyMaxActiveClusters > 0 for that
   cluster size, queried once per size and instantiation); *done says whether it ran */
template <class T, int W, int R>
static PetscErrorCode LaunchLeafCluster(Data *d, cudaStream_t s, int m, int kb, T *p, int lda, int *ipiv, int row0, int ol, int orr, bool *done)
{
  static int fits[DENSELU_CLUSTER_MAX + 1] = {0}; /* per instantiation and cluster size: 0 unknown, 1 fits, -1 does not */
  static int gmax = -1;                           /* largest cluster size allowed: 0 before sm_90, 8 portable, 16 (PGX uses one device per process) */
  const int  G    = (m + DENSELU_LEAF_THREADS * R - 1) / (DENSELU_LEAF_THREADS * R);
  int       *flag = d->flag.data();

  PetscFunctionBegin;
  *done = false;
  if (gmax < 0) {
    const cudaDeviceProp *prop;
    PetscCall(PGXCUDAGetDeviceProperties(&prop));
    gmax = prop->major >= 9 ? DENSELU_CLUSTER_MAX : 0;
    if (gmax) {
      const cudaError_t e = cudaFuncSetAttribute(LeafClusterKernel<T, W, R>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
      if (e != cudaSuccess) { /* the device refuses non-portable cluster sizes: portable ones (8) only */
        (void)cudaGetLastError();
        gmax = 8;
        PetscCall(PetscInfo(NULL, "denselu cuda: non-portable cluster sizes refused (%s): cluster leaves of at most 8 blocks\n", cudaGetErrorName(e)));
      }
    }
  }
  if (G < 1 || G > gmax) PetscFunctionReturn(PETSC_SUCCESS);
  cudaLaunchConfig_t  cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id               = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = (unsigned)G;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.gridDim              = dim3((unsigned)G);
  cfg.blockDim             = dim3(DENSELU_LEAF_THREADS);
  cfg.dynamicSmemBytes     = 0;
  cfg.stream               = s;
  cfg.attrs                = attr;
  cfg.numAttrs             = 1;
  if (!fits[G]) {
    int               nc = 0;
    const cudaError_t e  = cudaOccupancyMaxActiveClusters(&nc, LeafClusterKernel<T, W, R>, &cfg);
    if (e != cudaSuccess) { /* a cluster size the device cannot take: the leaf goes to the other kernels */
      (void)cudaGetLastError();
      nc = 0;
      PetscCall(PetscInfo(NULL, "denselu cuda: cudaOccupancyMaxActiveClusters refused a cluster of %d blocks (%s)\n", G, cudaGetErrorName(e)));
    }
    fits[G] = nc > 0 ? 1 : -1;
  }
  if (fits[G] < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PGXCallCUDA(cudaLaunchKernelEx(&cfg, LeafClusterKernel<T, W, R>, m, kb, p, lda, ipiv, row0, flag, ol, orr));
  PGXCheckLaunch("denselu LeafClusterKernel");
  *done             = true;
  d->clusterblocks  = PetscMax(d->clusterblocks, G);
  d->leafrowsused   = PetscMax(d->leafrowsused, R);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cluster leaf of width W: rows per thread R = d->leafrows (0: 1), then 2 R, ... up to LeafRowsMax, the first
   whose cluster fits (fewer rows per thread first: more blocks share a column's work; the barrier's cost grows
   little with the cluster size) */
template <class T, int W>
static PetscErrorCode LeafClusterTry(Data *d, cudaStream_t s, int m, int kb, T *p, int lda, int *ipiv, int row0, int ol, int orr, bool *done)
{
  constexpr int rmax = LeafRowsMax<T, W>();

  PetscFunctionBegin;
  *done = false;
  for (int R = PetscMin(d->leafrows ? d->leafrows : 1, rmax); R <= rmax && !*done; R *= 2) {
    switch (R) {
    case 1:
      PetscCall(LaunchLeafCluster<T, W, 1>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, done));
      break;
    case 2:
      PetscCall(LaunchLeafCluster<T, W, (rmax < 2 ? rmax : 2)>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, done));
      break;
    case 4:
      PetscCall(LaunchLeafCluster<T, W, (rmax < 4 ? rmax : 4)>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, done));
      break;
    default:
      PetscCall(LaunchLeafCluster<T, W, rmax>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, done));
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tournament buffers for leaves of up to m rows (before the factorization's first launch: cudaMalloc synchronizes);
   the arrival counters zeroed on s (the root block of each tournament zeroes them again) */
static PetscErrorCode TournamentBuffers(Data *d, cudaStream_t s, int m)
{
  const int nodes = TournamentNodes(TournamentChunks(m > 0 ? m : 1), NULL);

  PetscFunctionBegin;
  if (d->tcand.size() < (size_t)nodes * TSLU_WMAX) PetscCall(d->tcand.resize((size_t)nodes * TSLU_WMAX));
  if (d->tcnt.size() < (size_t)nodes) PetscCall(d->tcnt.resize((size_t)nodes));
  if (d->tmoved.size() < (size_t)1 + 2 * TSLU_WMAX) PetscCall(d->tmoved.resize((size_t)1 + 2 * TSLU_WMAX));
  if (d->tsave.size() < (size_t)TSLU_WMAX * TSLU_WMAX) PetscCall(d->tsave.resize((size_t)TSLU_WMAX * TSLU_WMAX));
  PGXCallCUDA(cudaMemsetAsync(d->tcnt.data(), 0, d->tcnt.size() * sizeof(int), s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class T, int W>
static PetscErrorCode LaunchTournament(Data *d, cudaStream_t s, int m, int kb, T *p, int lda, int *ipiv, int row0)
{
  const int nc = TournamentChunks(m);

  PetscFunctionBegin;
  TournamentKernel<T, W><<<nc, DENSELU_TSLU_THREADS, 0, s>>>(m, kb, p, lda, d->tcand.data(), d->tcnt.data(), ipiv, row0, d->flag.data(), (T *)d->tsave.data(), d->tmoved.data());
  PGXCheckLaunch("denselu TournamentKernel");
  if (m > kb) {
    const int g = (m - kb + DENSELU_TSLU_THREADS - 1) / DENSELU_TSLU_THREADS;
    TournamentL21Kernel<T, W><<<g, DENSELU_TSLU_THREADS, 0, s>>>(m, kb, p, lda, (const T *)d->tsave.data(), d->tmoved.data());
    PGXCheckLaunch("denselu TournamentL21Kernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A leaf (m x kb, kb <= 32, m >= kb) by tournament pivoting: TournamentKernel (one launch: the chunks' candidates and
   the reduction tree; the root block writes the pivots and L11\U11) and TournamentL21Kernel (the interchanges and
   L21 of the rows below); the buffers were sized by TournamentBuffers for at least m rows */
template <class T>
static PetscErrorCode TournamentLeaf(Data *d, cudaStream_t s, int m, int kb, T *p, int lda, int *ipiv, int row0)
{
  const int nodes = TournamentNodes(TournamentChunks(m), NULL);

  PetscFunctionBegin;
  PetscCheck(kb >= 1 && kb <= TSLU_WMAX && m >= kb, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda tournament leaf: m %d, kb %d (need 1 <= kb <= %d, m >= kb)", m, kb, (int)TSLU_WMAX);
  PetscCheck(d->tcand.size() >= (size_t)nodes * TSLU_WMAX && d->tcnt.size() >= (size_t)nodes && d->tsave.size() >= (size_t)TSLU_WMAX * TSLU_WMAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "denselu cuda tournament leaf: buffers not sized for %d rows", m);
  if (kb <= 8) PetscCall(LaunchTournament<T, 8>(d, s, m, kb, p, lda, ipiv, row0));
  else if (kb <= 16) PetscCall(LaunchTournament<T, 16>(d, s, m, kb, p, lda, ipiv, row0));
  else PetscCall(LaunchTournament<T, 32>(d, s, m, kb, p, lda, ipiv, row0));
  d->ntourn++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A leaf (m x kb, kb <= 32) of the panel recursion: the cooperative register kernel (the narrowest W >= kb; rows per
   thread by LeafCoopTry) when enabled and it fits, else PanelKernel (one block, in global memory). ol, orr: the
   panel columns left and right of the leaf that take its interchanges (leaf swaps; 0, 0 otherwise): the cooperative
   kernel swaps them itself, after PanelKernel one LaswpKernel does (row0 is the leaf's first row and column) */
/* A leaf without pivoting (Data::nopiv): the top kb x kb block by NoPivLeafKernel, the m - kb rows below by
   L21 = A21 U11^-1 (cublas<t>trsm, right, upper, non-unit); no interchanges */
template <class T>
static PetscErrorCode NoPivLeaf(Data *d, int m, int kb, T *p, int lda)
{
  cublasHandle_t h;
  cudaStream_t   s;

  PetscFunctionBegin;
  PetscCall(WorkStream(d, &s, &h));
  NoPivLeafKernel<T><<<1, 32, 0, s>>>(PetscMin(kb, m), p, lda);
  PGXCheckLaunch("denselu NoPivLeafKernel");
  if (m > kb) PGXCallCUBLAS(Trsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m - kb, kb, p, lda, p + kb, lda));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class T>
static PetscErrorCode FactorLeaf(Data *d, cudaStream_t s, int m, int kb, T *p, int lda, int *ipiv, int row0, int ol, int orr)
{
  bool done = false;

  PetscFunctionBegin;
  if (d->nopiv) { /* no pivot search: no interchanges, neither in the leaf nor elsewhere */
    PetscCall(NoPivLeaf<T>(d, m, kb, p, lda));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (d->pivoting == PIVOTING_TOURNAMENT && sizeof(T) == sizeof(float)) { /* low precision only: FP64 pivots partially */
    PetscCall(TournamentLeaf<T>(d, s, m, kb, p, lda, ipiv, row0));
    if (ol + orr > 0) { /* as after PanelKernel below */
      T *pc = p - row0 - (ptrdiff_t)ol * lda;
      PetscCall(Laswp<T>(s, ol + orr, ol, kb, pc, lda, row0, row0 + PetscMin(kb, m), ipiv - row0, "denselu LaswpKernel (leaf swaps after the tournament)"));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (d->oncluster) { /* the cluster path: one thread-block cluster, else the leaf kernels below */
    if (kb <= 8) PetscCall(LeafClusterTry<T, 8>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, &done));
    else if (kb <= 16) PetscCall(LeafClusterTry<T, 16>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, &done));
    else if (kb <= 32) PetscCall(LeafClusterTry<T, 32>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, &done));
    if (done) {
      d->nclusterleaf++;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (d->coop && kb <= 8) PetscCall(LeafCoopTry<T, 8>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, &done));
  else if (d->coop && kb <= 16) PetscCall(LeafCoopTry<T, 16>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, &done));
  else if (d->coop && kb <= 32) PetscCall(LeafCoopTry<T, 32>(d, s, m, kb, p, lda, ipiv, row0, ol, orr, &done));
  if (done) d->ncoop++;
  else {
    PanelKernel<T><<<1, DENSELU_THREADS, 0, s>>>(m, kb, p, lda, ipiv, row0, d->flag.data());
    PGXCheckLaunch("denselu PanelKernel (leaf)");
    d->nblockleaf++;
    if (ol + orr > 0) { /* p - row0 - ol lda: row 0 of the panel's first column; ipiv - row0: the pivots' origin */
      T *pc = p - row0 - (ptrdiff_t)ol * lda;
      PetscCall(Laswp<T>(s, ol + orr, ol, kb, pc, lda, row0, row0 + PetscMin(kb, m), ipiv - row0, "denselu LaswpKernel (leaf swaps after PanelKernel)"));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Recursive panel: columns [k, k+kb) of the n x n matrix a (leading dimension n), rows k..n-1. Left half
   recursively, its interchanges on the right half, U12 by trsm, A22 -= L21 U12 by gemm, right half
   recursively, its interchanges on the left half; leaves of at most d->leafw columns go to FactorLeaf.
   Same pivots as the unblocked panel (exact arithmetic), with most of the panel's flops in cuBLAS.
   [pk0, pk0 + pkb): the whole panel's columns. With leaf swaps (d->leafswaps) each leaf applies its interchanges to
   the other columns of the whole panel and the recursion launches no LaswpKernel (see LeafCoopKernel). */
template <class T>
static PetscErrorCode PanelRecursive(Data *d, T *a, int n, int k, int kb, Precision prec, int pk0, int pkb)
{
  cublasHandle_t h;
  cudaStream_t   s;

  int            tok;

  PetscFunctionBegin;
  PetscCall(WorkStream(d, &s, &h));
  if (kb <= d->leafw) {
    const int ol = d->leafswaps ? k - pk0 : 0, orr = d->leafswaps ? pk0 + pkb - (k + kb) : 0;
    PetscCall(ProfBegin(d, s, PHASE_LEAF, &tok));
    PetscCall(FactorLeaf<T>(d, s, n - k, kb, a + k + (size_t)k * n, n, d->ipiv.data() + k, k, ol, orr));
    PetscCall(ProfEnd(d, s, tok));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const int l = kb / 2, r = kb - l, k1 = k + l, m2 = n - k1;
  PetscCall(PanelRecursive<T>(d, a, n, k, l, prec, pk0, pkb));
  if (!d->leafswaps && !d->nopiv) {
    PetscCall(ProfBegin(d, s, PHASE_PANEL_SWAP, &tok));
    PetscCall(Laswp<T>(s, r, r, 0, a + (size_t)k1 * n, n, k, k1, d->ipiv.data(), "denselu LaswpKernel (panel, right half)"));
    PetscCall(ProfEnd(d, s, tok));
  }
  PetscCall(ProfBegin(d, s, PHASE_PANEL_TRSM, &tok));
  PetscCall(TrsmLower<T>(d, h, prec, l, r, a + k + (size_t)k * n, n, a + k + (size_t)k1 * n, n));
  PetscCall(ProfEnd(d, s, tok));
  PetscCall(ProfBegin(d, s, PHASE_PANEL_GEMM, &tok));
  PetscCall(Trailing<T>(d, h, prec, m2, r, l, a + k1 + (size_t)k * n, n, a + k + (size_t)k1 * n, n, a + k1 + (size_t)k1 * n, n));
  PetscCall(ProfEnd(d, s, tok));
  PetscCall(PanelRecursive<T>(d, a, n, k1, r, prec, pk0, pkb));
  if (!d->leafswaps && !d->nopiv) {
    PetscCall(ProfBegin(d, s, PHASE_PANEL_SWAP, &tok));
    PetscCall(Laswp<T>(s, l, l, 0, a + (size_t)k * n, n, k1, k + kb, d->ipiv.data(), "denselu LaswpKernel (panel, left half)"));
    PetscCall(ProfEnd(d, s, tok));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The path a factorization of the n x n matrix on T takes, and whether its panels are cuSOLVER's (*cspanel): the one
   place where -mat_pgx_lu_path, -mat_pgx_lu_panel and their ranges are resolved (FactorDeviceDirect sizes cuSOLVER's
   buffers from it, FactorDeviceWork follows it). cuSOLVER's getrf takes pivoted FP64 only */
/* The largest n of the fused path under AUTO: -mat_pgx_lu_small where set, else 1024 where OnChipLUKernel can be
   launched for the matrix being factored (d->ocfits, FactorDeviceDirect) and, in low precision, pivoting is partial
   (the fused path has no tournament), else 128 */
template <class T>
static PetscInt SmallSize(const Data *d)
{
  if (d->nsmall >= 0) return d->nsmall;
  return d->onchip && d->ocfits && (sizeof(T) == sizeof(double) || d->pivoting == PIVOTING_PARTIAL) ? DENSELU_ONCHIP_NMAX : 128;
}

template <class T>
static Path ResolvePath(const Data *d, int n, bool *cspanel)
{
  const bool pivd = sizeof(T) == sizeof(double) && !d->nopiv;
  Path       path = d->pathreq;
  if (path == PATH_AUTO && !d->nopiv && n <= SmallSize<T>(d)) path = PATH_FUSED;
  if (path == PATH_AUTO && pivd && d->panelreq == PANEL_AUTO && n <= d->wholemax) path = PATH_CUSOLVER;
  if (path == PATH_AUTO) path = n <= d->clustermax ? PATH_CLUSTER : PATH_BLOCKED;
  if (path == PATH_CUSOLVER && !pivd) path = PATH_BLOCKED;
  *cspanel = pivd && path != PATH_FUSED && path != PATH_CUSOLVER && (d->panelreq == PANEL_CUSOLVER || (d->panelreq == PANEL_AUTO && n <= d->panelmax));
  if (sizeof(T) == sizeof(float)) *cspanel = !d->nopiv && path != PATH_FUSED && path != PATH_CUSOLVER && d->lowpanel == PANEL_CUSOLVER && d->pivoting == PIVOTING_PARTIAL; /* SetLowPanel */
  return path;
}

/* cusolverDnDgetrf on the m x kb block at row and column k of the n x n FP64 matrix a (a panel, or with k 0 and kb n
   the whole matrix) on stream s, then its pivots made PGX's and a zero pivot recorded (CusolverPivKernel). The handle
   and the workspace come from CusolverBuffers, before the factorization's first launch */
template <class T>
static PetscErrorCode CusolverPanel(Data *d, cudaStream_t s, T *a, int n, int k, int kb)
{
  int tok;

  PetscFunctionBegin;
  PetscCheck(d->hs && d->csinfo.size() >= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "denselu cuda: cuSOLVER panel without its handle and buffers");
  PetscCall(ProfBegin(d, s, PHASE_LEAF, &tok));
  PGXCallCUSOLVER(cusolverDnSetStream(d->hs, s));
  if constexpr (std::is_same<T, double>::value) PGXCallCUSOLVER(cusolverDnDgetrf(d->hs, n - k, kb, a + k + (size_t)k * n, n, d->cswork.data(), d->ipiv.data() + k, d->csinfo.data()));
  else PGXCallCUSOLVER(cusolverDnSgetrf(d->hs, n - k, kb, a + k + (size_t)k * n, n, (float *)d->cswork.data(), d->ipiv.data() + k, d->csinfo.data()));
  CusolverPivKernel<<<(kb + 255) / 256, 256, 0, s>>>(kb, d->ipiv.data() + k, k, d->csinfo.data(), d->flag.data());
  PGXCheckLaunch("denselu CusolverPivKernel");
  PetscCall(ProfEnd(d, s, tok));
  d->ncspanel++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The handle and the workspace of cusolverDnDgetrf for the panels (n x kb, kb <= DENSELU_NBMAX) and the whole matrix
   of the n x n FP64 matrix a: before the factorization's first launch (cusolverDnCreate and cudaMalloc synchronize);
   queried again only when n changes */
template <class T>
static PetscErrorCode CusolverBuffers(Data *d, T *a, int n)
{
  int l1 = 0, l2 = 0;

  PetscFunctionBegin;
  if (!d->hs) PGXCallCUSOLVER(cusolverDnCreate(&d->hs));
  if (d->csn == n && d->cst == (int)sizeof(T)) PetscFunctionReturn(PETSC_SUCCESS);
  if constexpr (std::is_same<T, double>::value) {
    PGXCallCUSOLVER(cusolverDnDgetrf_bufferSize(d->hs, n, n, a, n, &l1));
    PGXCallCUSOLVER(cusolverDnDgetrf_bufferSize(d->hs, n, PetscMin(n, DENSELU_NBMAX), a, n, &l2));
  } else { /* FP32 panels only (SetLowPanel); the workspace in floats, held by the double array */
    PGXCallCUSOLVER(cusolverDnSgetrf_bufferSize(d->hs, n, PetscMin(n, DENSELU_NBMAX), a, n, &l2));
    l2 = (l2 + 1) / 2;
  }
  const size_t lw = (size_t)PetscMax(1, PetscMax(l1, l2));
  if (d->cswork.size() < lw) PetscCall(d->cswork.resize(lw));
  if (d->csinfo.size() < 1) PetscCall(d->csinfo.resize(1));
  d->csn = n;
  d->cst = (int)sizeof(T);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Panel K = columns [k, k + kb), rows k..n-1, of a blocked path: cusolverDnDgetrf (Data::cspanel: pivoted FP64) or
   PGX's recursion. Either way the panel's own columns are interchanged, and the caller applies the pivots
   d->ipiv[k, k + kb) to the columns outside it */
template <class T>
static PetscErrorCode FactorPanel(Data *d, T *a, int n, int k, int kb, Precision prec)
{
  PetscFunctionBegin;
  if (d->cspanel) {
    cublasHandle_t h;
    cudaStream_t   s;
    PetscCall(WorkStream(d, &s, &h));
    PetscCall(CusolverPanel<T>(d, s, a, n, k, kb));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PanelRecursive<T>(d, a, n, k, kb, prec, k, kb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class T>
static PetscErrorCode FactorLookAhead(Data *d, T *a, Precision prec, int nb);

/* The blocked paths' block size: -mat_pgx_lu_block, else the measured default (see FactorDeviceWork) */
static int BlockSizeFor(const Data *d, int n, bool dbl)
{
  return (int)(d->nbreq > 0 ? d->nbreq : (d->nopiv && dbl && n >= 16384 ? 1024 : (d->nopiv && n >= 8192 ? 512 : (!d->nopiv && dbl && n >= 32768 ? 768 : (!d->nopiv && dbl && n >= 16384 ? 512 : (n >= 4096 ? 256 : 128))))));
}

/* In-place LU of the n x n device matrix a (leading dimension n) on the work stream (WorkStream) */
template <class T>
static PetscErrorCode FactorDeviceWork(Data *d, T *a, Precision prec)
{
  cublasHandle_t h;
  cudaStream_t   s;
  const int      n = (int)d->n;
  int            tok;

  PetscFunctionBegin;
  PetscCall(WorkStream(d, &s, &h));
  const bool dbl  = sizeof(T) == sizeof(double);
  const Path path = ResolvePath<T>(d, n, &d->cspanel);
  d->oncluster    = path == PATH_CLUSTER && !d->nopiv; /* without pivoting the leaves need no cluster */
  if constexpr (std::is_same<T, double>::value) {
    if (path == PATH_CUSOLVER) {
      d->path = "cusolver";
      d->nb   = n;
      PetscCall(CusolverPanel(d, s, a, n, 0, n));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (path == PATH_FUSED) {
    bool onchip;
    d->nb = n;
    PetscCall(ProfBegin(d, s, PHASE_LEAF, &tok));
    PetscCall(LaunchOnChip<T>(d, s, a, n, &onchip));
    if (onchip) PGXCheckLaunch("denselu OnChipLUKernel (fused)");
    else {
      PanelKernel<T><<<1, DENSELU_THREADS, 0, s>>>(n, n, a, n, d->ipiv.data(), 0, d->flag.data());
      PGXCheckLaunch("denselu PanelKernel (fused)");
    }
    d->path = onchip ? "fused on-chip" : "fused";
    PetscCall(ProfEnd(d, s, tok));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  d->path = d->nopiv ? "blocked (no pivoting)" : (d->oncluster ? "cluster" : "blocked");
  /* defaults measured (bench_denselu -blocks). Without pivoting the panel is cheap and the trailing gemm's depth
     decides (H200, twentieth session, dominant matrix, FP64 factor ms: n = 16384 nb 256/512/1024 93/88/84, 32768
     659/580/550; half at 512: 40 and 180 ms); a look-ahead of two panels (the panel after next updated first) was
     measured the same and is not kept. With partial pivoting in FP64 (H200, twenty-third session, random matrix):
     256 up to 8192 (4096: 18.3 against 18.7-18.9 ms with 512; 8192: 44.7-45.0 against 45.7-46.6), 512 from 16384
     (139.8-142.6 against 145.5-145.8 ms), 768 from 32768 (684.8-697.6 against 703.4-717.4 ms with 512, 776-779 with
     256) */
  d->nb          = BlockSizeFor(d, n, dbl);
  const int nb = (int)d->nb;
  if (d->lookahead) {
    d->path = d->nopiv ? "blocked look-ahead (no pivoting)" : (d->oncluster ? "cluster look-ahead" : "blocked look-ahead");
    PetscCall(FactorLookAhead<T>(d, a, prec, nb));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int k = 0; k < n; k += nb) {
    const int kb = PetscMin(nb, n - k), k2 = k + kb, mt = n - k2;
    PetscCall(FactorPanel<T>(d, a, n, k, kb, prec));
    /* the panel's interchanges on the columns left and right of it, one launch */
    if (!d->nopiv) {
      const int2 *plan;
      PetscCall(ProfBegin(d, s, PHASE_SWAP, &tok));
      PetscCall(SwapPlan(d, s, k, k2, &plan));
      PetscCall(Laswp<T>(s, k + mt, k, kb, a, n, k, k2, d->ipiv.data(), "denselu LaswpKernel (left and right)", plan));
      PetscCall(ProfEnd(d, s, tok));
    }
    if (mt > 0) {
      PetscCall(ProfBegin(d, s, PHASE_TRSM, &tok));
      PetscCall(TrsmLower<T>(d, h, prec, kb, mt, a + k + (size_t)k * n, n, a + k + (size_t)k2 * n, n));
      PetscCall(ProfEnd(d, s, tok));
      PetscCall(ProfBegin(d, s, PHASE_GEMM, &tok));
      PetscCall(Trailing<T>(d, h, prec, mt, mt, kb, a + k2 + (size_t)k * n, n, a + k + (size_t)k2 * n, n, a + k2 + (size_t)k2 * n, n));
      PetscCall(ProfEnd(d, s, tok));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* In-place LU of the n x n device matrix a (leading dimension n); pivots into d->ipiv; flag[0] = zero column.
   With d->priority the work runs on the private stream sp of the greatest priority (so that the panel's blocks are
   scheduled before those of the look-ahead gemm on s2, created at the least priority): sp waits for what is queued
   on PGX's stream (espin) and PGX's stream waits for sp at the end (espout), so callers see one stream as before.
   Buffers are sized here, before the factorization's first launch (cudaMalloc would synchronize the device). */
/* A private non-blocking stream of the greatest (or least) priority, its cuBLAS handle and two events */
static PetscErrorCode CreateStream(bool greatest, cudaStream_t *st, cublasHandle_t *h, cudaEvent_t *e1, cudaEvent_t *e2)
{
  int least, great;

  PetscFunctionBegin;
  PGXCallCUDA(cudaDeviceGetStreamPriorityRange(&least, &great));
  PGXCallCUDA(cudaStreamCreateWithPriority(st, cudaStreamNonBlocking, greatest ? great : least));
  PGXCallCUDA(cudaEventCreateWithFlags(e1, cudaEventDisableTiming));
  PGXCallCUDA(cudaEventCreateWithFlags(e2, cudaEventDisableTiming));
  PGXCallCUBLAS(cublasCreate(h));
  PGXCallCUBLAS(cublasSetStream(*h, *st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class T>
static PetscErrorCode FactorDeviceDirect(Data *d, T *a, Precision prec)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(OnChipFits<T>(d, (int)d->n, &d->ocfits)); /* before ResolvePath: auto's fused range depends on it */
  d->ncoop = d->nblockleaf = d->leafrowsused = d->nclusterleaf = d->clusterblocks = d->ntourn = d->ncspanel = 0;
  {
    bool csp;
    if (ResolvePath<T>(d, (int)d->n, &csp) == PATH_CUSOLVER || csp) PetscCall(CusolverBuffers<T>(d, a, (int)d->n));
  }
  if (d->pivoting == PIVOTING_TOURNAMENT && sizeof(T) == sizeof(float)) PetscCall(TournamentBuffers(d, s, (int)d->n));
  if (d->coop) { /* the cooperative leaf's candidate buffers, once (a later resize would synchronize) */
    PetscCall(d->cval.resize((size_t)2 * DENSELU_LEAF_GMAX * 33 + 64));
    PetscCall(d->cidx.resize((size_t)2 * DENSELU_LEAF_GMAX));
  }
  if (d->swapplan && (size_t)4 * d->n > d->swplan.size()) PetscCall(d->swplan.resize((size_t)4 * d->n)); /* every panel's plan, 2 kb {dst, src} pairs */
  if (d->onchip && d->n <= DENSELU_ONCHIP_NMAX) { /* OnChipLUKernel's flags and moves, once, for the largest n it takes */
    const size_t P = DENSELU_ONCHIP_NMAX / DENSELU_ONCHIP_NB;
    if (d->ocsync.size() < OnChipMovesAt(P) + 4 * DENSELU_ONCHIP_NB * P) PetscCall(d->ocsync.resize(OnChipMovesAt(P) + 4 * DENSELU_ONCHIP_NB * P));
  }
  if (std::is_same<T, float>::value && prec == PRECISION_TF32X3) { /* Trailing's split operands: m x 3k and 3k x n, k <= nb, per stream */
    const size_t need = (size_t)6 * d->n * BlockSizeFor(d, (int)d->n, false);
    for (int w = 0; w < (d->lookahead ? 2 : 1); w++)
      if (d->x3[w].size() < need) PetscCall(d->x3[w].resize(need));
  }
  if (!d->priority) {
    PetscCall(FactorDeviceWork<T>(d, a, prec));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!d->sp) PetscCall(CreateStream(true, &d->sp, &d->hp, &d->espin, &d->espout));
  PGXCallCUDA(cudaEventRecord(d->espin, s));
  PGXCallCUDA(cudaStreamWaitEvent(d->sp, d->espin, 0));
  d->onsp              = true;
  PetscErrorCode ierr = FactorDeviceWork<T>(d, a, prec);
  d->onsp             = false;
  PetscCall(ierr);
  PGXCallCUDA(cudaEventRecord(d->espout, d->sp));
  PGXCallCUDA(cudaStreamWaitEvent(s, d->espout, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Drop the captured graphs (a setting changed, or Destroy) */
static PetscErrorCode GraphReset(Data *d)
{
  PetscFunctionBegin;
  for (Data::Graph &g : d->graphs) {
    if (g.exec) PGXCallCUDA(cudaGraphExecDestroy(g.exec));
    g = Data::Graph();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FactorDeviceDirect, or with -mat_pgx_lu_graph (and no profile): the first call with a (buffer, n, precision) runs
   directly (it creates the private streams, sizes the buffers and fills the occupancy caches outside any capture),
   the second is captured on PGX's stream (relaxed mode; the private streams join through their events) and launched,
   later ones replay the graph: one cudaGraphLaunch instead of the host-side launches of every panel */
template <class T>
static PetscErrorCode FactorDevice(Data *d, T *a, Precision prec)
{
  cudaStream_t s;

  PetscFunctionBegin;
  d->replayed = false;
  if (!d->usegraph || d->prof) {
    PetscCall(FactorDeviceDirect<T>(d, a, prec));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PGXCUDAGetStream(&s));
  Data::Graph &g = d->graphs[sizeof(T) == sizeof(double) ? 0 : 1];
  if (g.a != (const void *)a || g.n != d->n || g.prec != prec || g.nopiv != d->nopiv) {
    if (g.exec) PGXCallCUDA(cudaGraphExecDestroy(g.exec));
    g       = Data::Graph();
    g.a     = (const void *)a;
    g.n     = d->n;
    g.prec  = prec;
    g.nopiv = d->nopiv;
  }
  if (!g.exec && g.calls++ == 0) {
    PetscCall(FactorDeviceDirect<T>(d, a, prec));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!g.exec) {
    cudaGraph_t    graph = nullptr;
    PetscErrorCode ierr;
    cudaError_t    cerr;
    PGXCallCUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    ierr = FactorDeviceDirect<T>(d, a, prec);
    cerr = cudaStreamEndCapture(s, &graph); /* ends the capture also after an error above */
    PetscCall(ierr);
    PGXCallCUDA(cerr);
    cerr = cudaGraphInstantiate(&g.exec, graph, 0);
    PGXCallCUDA(cudaGraphDestroy(graph));
    PGXCallCUDA(cerr);
    g.path          = d->path;
    g.nb            = d->nb;
    g.ncoop         = d->ncoop;
    g.nblockleaf    = d->nblockleaf;
    g.leafrowsused  = d->leafrowsused;
    g.nclusterleaf  = d->nclusterleaf;
    g.clusterblocks = d->clusterblocks;
    g.ntourn        = d->ntourn;
    g.ncspanel      = d->ncspanel;
    d->ncaptured++;
  } else {
    d->path          = g.path;
    d->nb            = g.nb;
    d->ncoop         = g.ncoop;
    d->nblockleaf    = g.nblockleaf;
    d->leafrowsused  = g.leafrowsused;
    d->nclusterleaf  = g.nclusterleaf;
    d->clusterblocks = g.clusterblocks;
    d->ntourn        = g.ntourn;
    d->ncspanel      = g.ncspanel;
    d->replayed      = true;
  }
  PGXCallCUDA(cudaGraphLaunch(g.exec, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Blocked factorization with look-ahead, the same operations as FactorDevice's loop in another order. Step k
   on PGX's stream s: factor panel K (overlapping the rest of step k-1's trailing update on s2); record
   epanel; wait for erest (step k-1's rest done: its gemm reads L21 of panel K-1, which the next swaps move);
   swaps of panel K on the columns left of it; update of the next panel's columns only (swaps, trsm, gemm).
   On s2, after epanel: swaps, trsm and gemm on the columns right of the next panel; record erest.
   Columns touched concurrently are disjoint: s2 writes columns >= k2 + nb2, s writes columns < k2 + nb2. */
template <class T>
static PetscErrorCode FactorLookAhead(Data *d, T *a, Precision prec, int nb)
{
  cublasHandle_t h;
  cudaStream_t   s;
  const int      n = (int)d->n;
  int            tok;

  PetscFunctionBegin;
  PetscCall(WorkStream(d, &s, &h));
  if (!d->s2) PetscCall(CreateStream(false, &d->s2, &d->h2, &d->epanel, &d->erest)); /* the least priority: explicit, as the panel's stream may have the greatest */
  if (d->leftstream && !d->nopiv && !d->s3) { /* only Laswp runs there: no cuBLAS handle */
    int least, great;
    PGXCallCUDA(cudaDeviceGetStreamPriorityRange(&least, &great));
    PGXCallCUDA(cudaStreamCreateWithPriority(&d->s3, cudaStreamNonBlocking, least));
    PGXCallCUDA(cudaEventCreateWithFlags(&d->eleft, cudaEventDisableTiming));
  }
  bool leftused = false; /* s3 took work: s waits for it at the end */
  if (d->lasmsset != d->lasms) { /* the rest of the trailing update on at most lasms SMs: the others stay free for the panel */
    PGXCallCUBLAS(cublasSetSmCountTarget(d->h2, d->lasms));
    d->lasmsset = d->lasms;
  }
  /* s2 starts after everything already queued on s (the copy of A, the flag reset) */
  PGXCallCUDA(cudaEventRecord(d->erest, s));
  PGXCallCUDA(cudaStreamWaitEvent(d->s2, d->erest, 0));
  for (int k = 0; k < n; k += nb) {
    const int kb = PetscMin(nb, n - k), k2 = k + kb, mt = n - k2, nb2 = PetscMin(nb, mt), k3 = k2 + nb2, mr = n - k3;
    PetscCall(FactorPanel<T>(d, a, n, k, kb, prec));
    const int2 *plan;
    PetscCall(SwapPlan(d, s, k, k2, &plan)); /* before epanel: s2 and s3 read it */
    PGXCallCUDA(cudaEventRecord(d->epanel, s));
    PetscCall(ProfBegin(d, s, PHASE_WAIT, &tok));
    PGXCallCUDA(cudaStreamWaitEvent(s, d->erest, 0));
    PetscCall(ProfEnd(d, s, tok));
    /* the columns left of the panel and the next panel's, on s; or the left ones on s3, off the critical path: s3
       waits for the panel (its pivots) and for the rest of step k-1 (whose gemm reads the rows of panel K-1's L21
       that these swaps move); the columns left of the panel are read by nothing else until the end */
    if (!d->nopiv && !d->leftstream) {
      PetscCall(ProfBegin(d, s, PHASE_SWAP, &tok));
      PetscCall(Laswp<T>(s, k + nb2, k, kb, a, n, k, k2, d->ipiv.data(), "denselu LaswpKernel (left and next panel)", plan));
      PetscCall(ProfEnd(d, s, tok));
    } else if (!d->nopiv) {
      PetscCall(ProfBegin(d, s, PHASE_SWAP, &tok));
      if (nb2 > 0) PetscCall(Laswp<T>(s, nb2, nb2, 0, a + (size_t)k2 * n, n, k, k2, d->ipiv.data(), "denselu LaswpKernel (next panel)", plan));
      PetscCall(ProfEnd(d, s, tok));
      if (k > 0) {
        PGXCallCUDA(cudaStreamWaitEvent(d->s3, d->epanel, 0));
        PGXCallCUDA(cudaStreamWaitEvent(d->s3, d->erest, 0));
        PetscCall(ProfBegin(d, d->s3, PHASE_LEFT_SWAP, &tok));
        PetscCall(Laswp<T>(d->s3, k, k, 0, a, n, k, k2, d->ipiv.data(), "denselu LaswpKernel (left, own stream)", plan));
        PetscCall(ProfEnd(d, d->s3, tok));
        PGXCallCUDA(cudaEventRecord(d->eleft, d->s3));
        leftused = true;
      }
    }
    if (nb2 > 0) {
      PetscCall(ProfBegin(d, s, PHASE_TRSM, &tok));
      PetscCall(TrsmLower<T>(d, h, prec, kb, nb2, a + k + (size_t)k * n, n, a + k + (size_t)k2 * n, n));
      PetscCall(ProfEnd(d, s, tok));
      PetscCall(ProfBegin(d, s, PHASE_GEMM, &tok));
      PetscCall(Trailing<T>(d, h, prec, mt, nb2, kb, a + k2 + (size_t)k * n, n, a + k + (size_t)k2 * n, n, a + k2 + (size_t)k2 * n, n));
      PetscCall(ProfEnd(d, s, tok));
    }
    /* the rest of the trailing update, on s2 */
    PetscCall(ProfBegin(d, d->s2, PHASE_LA_WAIT, &tok));
    PGXCallCUDA(cudaStreamWaitEvent(d->s2, d->epanel, 0));
    PetscCall(ProfEnd(d, d->s2, tok));
    if (mr > 0) {
      if (!d->nopiv) {
        PetscCall(ProfBegin(d, d->s2, PHASE_LA_SWAP, &tok));
        PetscCall(Laswp<T>(d->s2, mr, mr, 0, a + (size_t)k3 * n, n, k, k2, d->ipiv.data(), "denselu LaswpKernel (look-ahead rest)", plan));
        PetscCall(ProfEnd(d, d->s2, tok));
      }
      PetscCall(ProfBegin(d, d->s2, PHASE_LA_TRSM, &tok));
      PetscCall(TrsmLower<T>(d, d->h2, prec, kb, mr, a + k + (size_t)k * n, n, a + k + (size_t)k3 * n, n));
      PetscCall(ProfEnd(d, d->s2, tok));
      PetscCall(ProfBegin(d, d->s2, PHASE_LA_GEMM, &tok));
      PetscCall(Trailing<T>(d, d->h2, prec, mt, mr, kb, a + k2 + (size_t)k * n, n, a + k + (size_t)k3 * n, n, a + k2 + (size_t)k3 * n, n));
      PetscCall(ProfEnd(d, d->s2, tok));
    }
    PGXCallCUDA(cudaEventRecord(d->erest, d->s2));
  }
  PetscCall(ProfBegin(d, s, PHASE_WAIT, &tok));
  PGXCallCUDA(cudaStreamWaitEvent(s, d->erest, 0)); /* s: everything done */
  if (leftused) PGXCallCUDA(cudaStreamWaitEvent(s, d->eleft, 0));
  PetscCall(ProfEnd(d, s, tok));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a factorization: zero column, host pivots and the permutation; *nopivbad (when not NULL): the check of a
   factorization without pivoting failed (flag[2], meaningful only when d->nopiv) */
static PetscErrorCode FinishFactor(Data *d, PetscInt *zerocol, bool *nopivbad = nullptr)
{
  cudaStream_t     s;
  int              hflag[3];
  const int        n = (int)d->n;
  std::vector<int> perm(n);
  int              tok;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(ProfBegin(d, s, PHASE_FINISH, &tok));
  d->hpiv.resize(n);
  if (n) PGXCallCUDA(cudaMemcpyAsync(d->hpiv.data(), d->ipiv.data(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaMemcpyAsync(hflag, d->flag.data(), 3 * sizeof(int), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  *zerocol = hflag[0] == INT_MAX ? -1 : hflag[0];
  if (nopivbad) *nopivbad = hflag[2] != 0;
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int k = 0; k < n; k++) std::swap(perm[k], perm[d->hpiv[k]]);
  PetscCall(d->perm.upload(perm.data(), n));
  PetscCall(ProfEnd(d, s, tok));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flag = {INT_MAX (no zero pivot), 0, 0} on PGX's stream, without a host synchronization (a copy from a host array
   would need one: measured as part of the fused path's fixed cost at small n) */
static PetscErrorCode ResetFlag(Data *d)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  ResetFlagKernel<<<1, 32, 0, s>>>(d->flag.data());
  PGXCheckLaunch("denselu ResetFlagKernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The butterflies' diagonals on the device for the current n, depth and seed (made by reference::RbtDiagonals) */
static PetscErrorCode RbtPrepare(Data *d)
{
  PetscFunctionBegin;
  if (d->rbtn == d->n && d->rbtd == d->rbtdepth && d->rbts == d->rbtseed) PetscFunctionReturn(PETSC_SUCCESS);
  std::vector<double> r;
  reference::RbtDiagonals(d->n, d->rbtdepth, d->rbtseed, r);
  PetscCall(d->rbtr.upload(r.data(), r.size()));
  d->rbtn = d->n;
  d->rbtd = d->rbtdepth;
  d->rbts = d->rbtseed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The butterfly whose diagonals are r (one side: depth n values) on the n x m block a: dim 0 on each column
   (b <- W b or W^T b), dim 1 on each row (row <- row W, i.e. W^T on the row: transposed) */
template <class T>
static PetscErrorCode RbtApply(Data *d, cudaStream_t s, const double *r, bool transposed, int dim, int m, T *a, int lda)
{
  const int n = (int)d->n, depth = d->rbtdepth;

  PetscFunctionBegin;
  if (!n || !m) PetscFunctionReturn(PETSC_SUCCESS);
  for (int t = 0; t < depth; t++) {
    const int l = transposed ? depth - 1 - t : t;
    RbtKernel<T><<<PGXCUDAGridSize((PetscInt)n * m, 256), 256, 0, s>>>(n, m, a, lda, r + (size_t)l * n, l, transposed, dim);
    PGXCheckLaunch("denselu RbtKernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solves with butterfly factors: the butterfly applied to the right-hand sides before (U^T, or V^T when transposed) and
   to the solution after (V, or U) the triangular solves */
template <class T>
static PetscErrorCode RbtBefore(Data *d, cudaStream_t s, bool tr, int m, T *b, int ldb)
{
  return RbtApply<T>(d, s, d->rbtr.data() + (tr ? (size_t)d->rbtdepth * d->n : 0), true, 0, m, b, ldb);
}
template <class T>
static PetscErrorCode RbtAfter(Data *d, cudaStream_t s, bool tr, int m, T *b, int ldb)
{
  return RbtApply<T>(d, s, d->rbtr.data() + (tr ? 0 : (size_t)d->rbtdepth * d->n), false, 0, m, b, ldb);
}

/* lu <- A (d->A, converted to T), then its factorization in prec; without pivoting when d->nopiv, checked
   (NoPivCheckKernel) and, when the check fails, factored again with partial pivoting (d->nopiv is then false).
   With rbt (-mat_pgx_lu_rbt, tried only when A is not factored without pivoting anyway): lu <- U^T A V, factored
   without pivoting and checked for |u_jj| <= n eps ||A||_inf (FP64's eps, whatever T: an exactly singular A breaks
   down here in FP64, so that partial pivoting reports its zero pivot; in a low precision its refinement does not
   converge and the FP64 fallback reports it), a non-finite u_jj or l_ij (d->rbt: the solves refine against A); a
   breakdown factors A again with partial pivoting, untransformed */
template <class T>
static PetscErrorCode FactorChecked(Data *d, T *lu, Precision prec, PetscInt *zerocol, bool rbt)
{
  cudaStream_t s;
  const int    n = (int)d->n;
  int          tok;
  bool         bad = false;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  rbt    = rbt && d->rbtdepth > 0 && !d->nopiv && n > 1 && d->pathreq != PATH_FUSED;
  d->rbt = false;
  if (rbt) {
    PetscCall(RbtPrepare(d));
    d->nopiv = true;
  }
  for (int attempt = 0; attempt < 2; attempt++) {
    PetscCall(ProfBegin(d, s, PHASE_CONVERT, &tok));
    if (n) {
      if (sizeof(T) == sizeof(double)) PGXCallCUDA(cudaMemcpyAsync(lu, d->A.data(), (size_t)n * n * sizeof(double), cudaMemcpyDeviceToDevice, s));
      else PetscCall(LaunchCopyD2F(n, n, d->A.data(), n, (float *)lu, n, s));
    }
    if (rbt) {
      PetscCall(RbtApply<T>(d, s, d->rbtr.data(), true, 0, n, lu, n));                             /* U^T on the columns */
      PetscCall(RbtApply<T>(d, s, d->rbtr.data() + (size_t)d->rbtdepth * n, true, 1, n, lu, n)); /* V^T on the rows */
    }
    PetscCall(ProfEnd(d, s, tok));
    PetscCall(ResetFlag(d));
    if (d->nopiv && n) {
      IotaKernel<<<PGXCUDAGridSize(n, 256), 256, 0, s>>>(n, d->ipiv.data());
      PGXCheckLaunch("denselu IotaKernel");
    }
    PetscCall(FactorDevice<T>(d, lu, prec));
    if (d->nopiv && n) {
      PetscCall(ProfBegin(d, s, PHASE_CHECK, &tok));
      const T tiny = rbt ? (T)((double)n * std::numeric_limits<double>::epsilon() * d->anorm) : T(0); /* FP64's eps for every precision: a low-precision pivot is not that small unless it is exactly zero */
      NoPivCheckKernel<T><<<n, 256, 0, s>>>(n, lu, d->flag.data(), rbt, tiny);
      PGXCheckLaunch("denselu NoPivCheckKernel");
      PetscCall(ProfEnd(d, s, tok));
    }
    PetscCall(FinishFactor(d, zerocol, &bad));
    if (!d->nopiv || !bad) break;
    d->nopiv = false;
    if (rbt) {
      d->nrbtfail++;
      rbt = false;
      PetscCall(PetscInfo(NULL, "denselu cuda: the %s factorization of the butterfly-transformed U^T A V without pivoting broke down (|u_jj| <= n eps ||A||_inf or not finite, or a non-finite l_ij); factoring A again with partial pivoting\n", sizeof(T) == sizeof(double) ? "FP64" : "low-precision"));
      continue;
    }
    d->nnopivfail++;
    PetscCall(PetscInfo(NULL, "denselu cuda: the %s factorization without pivoting has |l_ij| > 1 or a zero or non-finite u_jj: partial pivoting would interchange rows; factoring again with partial pivoting\n", sizeof(T) == sizeof(double) ? "FP64" : "low-precision"));
  }
  d->rbt       = rbt;
  d->nopivused = d->nopiv && !rbt;
  if (rbt) d->nopiv = false; /* as before the transformation (tried only when A needed pivots): a fallback after an unconverged refinement factors A with partial pivoting at once, not first without */
  if (rbt) PetscCall(PetscInfo(NULL, "denselu cuda: %s factors of U^T A V (random butterflies of depth %d) without pivoting; the solves refine against A\n", sizeof(T) == sizeof(double) ? "FP64" : "low-precision", d->rbtdepth));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FP64 factors in d->LU: of U^T A V when rbt and -mat_pgx_lu_rbt allow (d->rbt), else of P A */
static PetscErrorCode FactorDouble(Data *d, PetscInt *zerocol, bool rbt)
{
  PetscFunctionBegin;
  PetscCall(d->LU.resize((size_t)d->n * d->n));
  PetscCall(FactorChecked<double>(d, d->LU.data(), PRECISION_DOUBLE, zerocol, rbt));
  d->dblvalid = true;
  d->lowvalid = false;
  d->used     = PRECISION_DOUBLE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ interface */
PetscErrorCode Create(Data **d)
{
  PetscFunctionBegin;
  *d = new Data;
  PetscCall((*d)->flag.resize(3));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Destroy(Data **d)
{
  PetscFunctionBegin;
  if (!*d) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GraphReset(*d));
  if ((*d)->h2) PGXCallCUBLAS(cublasDestroy((*d)->h2));
  if ((*d)->epanel) PGXCallCUDA(cudaEventDestroy((*d)->epanel));
  if ((*d)->erest) PGXCallCUDA(cudaEventDestroy((*d)->erest));
  if ((*d)->s2) PGXCallCUDA(cudaStreamDestroy((*d)->s2));
  if ((*d)->eleft) PGXCallCUDA(cudaEventDestroy((*d)->eleft));
  if ((*d)->s3) PGXCallCUDA(cudaStreamDestroy((*d)->s3));
  if ((*d)->hp) PGXCallCUBLAS(cublasDestroy((*d)->hp));
  if ((*d)->espin) PGXCallCUDA(cudaEventDestroy((*d)->espin));
  if ((*d)->espout) PGXCallCUDA(cudaEventDestroy((*d)->espout));
  if ((*d)->sp) PGXCallCUDA(cudaStreamDestroy((*d)->sp));
  if ((*d)->hs) PGXCallCUSOLVER(cusolverDnDestroy((*d)->hs));
  for (cudaEvent_t e : (*d)->evpool) PGXCallCUDA(cudaEventDestroy(e));
  delete *d;
  *d = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetBlockSize(Data *d, PetscInt nb)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  PetscCheck(nb >= 0 && nb <= DENSELU_NBMAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: block size %" PetscInt_FMT " must be in 1..%d (0: default)", nb, DENSELU_NBMAX);
  d->nbreq = nb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetSmallSize(Data *d, PetscInt nsmall)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  d->nsmall = nsmall < 0 ? -1 : nsmall; /* -1: SmallSize's default */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetFusedOnChip(Data *d, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  d->onchip = flg ? true : false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetLeaf(Data *d, PetscInt leafw, PetscBool coop)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  PetscCheck(leafw >= 0 && leafw <= 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: leaf width %" PetscInt_FMT " must be in 1..32 (0: default 32)", leafw);
  d->leafw = leafw > 0 ? (int)leafw : 32;
  d->coop  = coop ? true : false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetLeafInfo(const Data *d, PetscInt *leafw, PetscInt *ncoop, PetscInt *nblock)
{
  PetscFunctionBegin;
  if (leafw) *leafw = d->leafw;
  if (ncoop) *ncoop = d->ncoop;
  if (nblock) *nblock = d->nblockleaf;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetPanelOptions(Data *d, PetscBool priority, PetscInt leafrows, PetscBool leafswaps)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  PetscCheck(leafrows == 0 || leafrows == 1 || leafrows == 2 || leafrows == 4 || leafrows == 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: leaf rows per thread %" PetscInt_FMT " must be 1, 2, 4 or 8 (0: default rule)", leafrows);
  d->priority  = priority ? true : false;
  d->leafrows  = (int)leafrows;
  d->leafswaps = leafswaps ? true : false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetLeafRowsUsed(const Data *d, PetscInt *rows)
{
  PetscFunctionBegin;
  *rows = d->leafrowsused;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetPath(Data *d, Path path, PetscInt clustermax)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  PetscCheck(path >= PATH_AUTO && path <= PATH_CUSOLVER, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: unknown path %d", (int)path);
  PetscCheck(clustermax >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: the cluster path's largest n must be >= 0 (0: never), not %" PetscInt_FMT, clustermax);
  d->pathreq    = path;
  d->clustermax = clustermax;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetPanel(Data *d, Panel panel, PetscInt wholemax, PetscInt panelmax)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  PetscCheck(panel >= PANEL_AUTO && panel <= PANEL_CUSOLVER, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: unknown panel %d", (int)panel);
  PetscCheck(wholemax >= 0 && panelmax >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: the largest n of cuSOLVER's whole factorization (%" PetscInt_FMT ") and of its panels (%" PetscInt_FMT ") must be >= 0 (0: never)", wholemax, panelmax);
  d->panelreq = panel;
  d->wholemax = wholemax;
  d->panelmax = panelmax;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetLowPanel(Data *d, Panel panel)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  PetscCheck(panel == PANEL_PGX || panel == PANEL_CUSOLVER, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: the low-precision panels are PGX's or cuSOLVER's, not %d", (int)panel);
  d->lowpanel = panel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetPanelInfo(const Data *d, PetscInt *ncusolver)
{
  PetscFunctionBegin;
  *ncusolver = d->ncspanel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetGraph(Data *d, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  d->usegraph = flg ? true : false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetGraphInfo(const Data *d, PetscInt *ncaptured, PetscBool *replayed)
{
  PetscFunctionBegin;
  if (ncaptured) *ncaptured = d->ncaptured;
  if (replayed) *replayed = d->replayed ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetClusterInfo(const Data *d, PetscInt *nleaves, PetscInt *maxblocks)
{
  PetscFunctionBegin;
  if (nleaves) *nleaves = d->nclusterleaf;
  if (maxblocks) *maxblocks = d->clusterblocks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetLookAhead(Data *d, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  d->lookahead = flg ? true : false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetLeftSwapStream(Data *d, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  d->leftstream = flg ? true : false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TrsvTrace(Data *d, PetscInt which, std::vector<long long> *out)
{
  cudaStream_t                      s;
  const int                         n = (int)d->n, nblk = (n + DENSELU_TRSV_B - 1) / DENSELU_TRSV_B;
  pgx::cuda::DeviceArray<long long> tr;
  pgx::cuda::DeviceArray<double>    x;
  std::vector<double>               ones(n, 1.0);

  PetscFunctionBegin;
  PetscCheck(d->dblvalid && which >= 0 && which <= 3 && d->trsv > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "denselu cuda: TrsvTrace needs FP64 factors, a triangle 0..3 and the kernel (SetTrsv 1 or 2)");
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(tr.resize((size_t)4 * nblk));
  PetscCall(x.upload(ones.data(), n));
  d->trsvtrace = tr.data();
  PetscErrorCode ierr = LaunchTrsv(d, (int)which, d->LU.data(), x.data(), s);
  d->trsvtrace = nullptr;
  PetscCall(ierr);
  out->resize((size_t)4 * nblk);
  PGXCallCUDA(cudaMemcpyAsync(out->data(), tr.data(), (size_t)4 * nblk * sizeof(long long), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetTrsv(Data *d, PetscInt variant)
{
  PetscFunctionBegin;
  PetscCheck(variant >= 0 && variant <= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: the one-column solve is 0 (cublas<t>trsm), 1 (PGX's kernel, substitution) or 2 (PGX's kernel, inverted diagonal tiles), not %" PetscInt_FMT, variant);
  d->trsv = (int)variant;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetTrsmLeaf(Data *d, PetscInt rows)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  PetscCheck(rows >= 0 && rows <= DENSELU_NBMAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: the triangular solves' leaf must be in 0..%d rows (0: one cuBLAS solve), not %" PetscInt_FMT, DENSELU_NBMAX, rows);
  d->trsmleaf = (int)rows;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetSwapPlan(Data *d, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  d->swapplan = flg ? true : false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetLookAheadSMs(Data *d, PetscInt sms)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  PetscCheck(sms >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: the look-ahead SM count target must be >= 0 (0: all), not %" PetscInt_FMT, sms);
  d->lasms = (int)PetscMin(sms, (PetscInt)INT_MAX);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetPivoting(Data *d, Pivoting p)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  PetscCheck(p == PIVOTING_PARTIAL || p == PIVOTING_TOURNAMENT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: unknown pivoting %d", (int)p);
  d->pivoting = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetRbt(Data *d, PetscInt depth, unsigned long long seed)
{
  PetscFunctionBegin;
  PetscCheck(depth >= 0 && depth <= RBT_DEPTH_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: butterfly depth %" PetscInt_FMT " must be in [0, %d]", depth, (int)RBT_DEPTH_MAX);
  d->rbtdepth = (int)depth;
  d->rbtseed  = seed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetRbtInfo(const Data *d, PetscBool *used, PetscInt *nfail)
{
  PetscFunctionBegin;
  if (used) *used = d->rbt ? PETSC_TRUE : PETSC_FALSE;
  if (nfail) *nfail = d->nrbtfail;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetNoPivot(Data *d, NoPivot p)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  PetscCheck(p == NOPIVOT_AUTO || p == NOPIVOT_NEVER || p == NOPIVOT_ALWAYS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: unknown no-pivot mode %d", (int)p);
  d->nopivreq = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetNoPivotInfo(const Data *d, PetscBool *used, PetscInt *nfail)
{
  PetscFunctionBegin;
  if (used) *used = d->nopivused ? PETSC_TRUE : PETSC_FALSE;
  if (nfail) *nfail = d->nnopivfail;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetTournamentInfo(const Data *d, PetscInt *nleaves)
{
  PetscFunctionBegin;
  *nleaves = d->ntourn;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TournamentPanelTest(PetscInt m, PetscInt w, const PetscScalar *a, PetscInt lda, PetscScalar *lu, PetscInt *ipiv, PetscInt *zerocol)
{
  Data                          *d = nullptr;
  cudaStream_t                   s;
  pgx::cuda::DeviceArray<double> p;
  std::vector<int>               hp(w > 0 ? w : 1);
  int                            hflag[2];

  PetscFunctionBegin;
  PetscCheck(m >= w && w >= 1 && w <= TSLU_WMAX && m <= INT_MAX / 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda TournamentPanelTest: m %" PetscInt_FMT ", w %" PetscInt_FMT, m, w);
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(Create(&d));
  d->n = m;
  PetscCall(d->ipiv.resize(w));
  PetscCall(p.resize((size_t)m * w));
  PGXCallCUDA(cudaMemcpy2DAsync(p.data(), m * sizeof(double), a, lda * sizeof(double), m * sizeof(double), w, cudaMemcpyHostToDevice, s));
  PetscCall(ResetFlag(d));
  PetscCall(TournamentBuffers(d, s, (int)m));
  PetscCall(TournamentLeaf<double>(d, s, (int)m, (int)w, p.data(), (int)m, d->ipiv.data(), 0));
  PGXCallCUDA(cudaMemcpyAsync(lu, p.data(), (size_t)m * w * sizeof(double), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaMemcpyAsync(hp.data(), d->ipiv.data(), w * sizeof(int), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaMemcpyAsync(hflag, d->flag.data(), 2 * sizeof(int), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  for (PetscInt j = 0; j < w; j++) ipiv[j] = hp[j];
  *zerocol = hflag[0] == INT_MAX ? -1 : hflag[0];
  PetscCall(Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetPrecision(Data *d, Precision p)
{
  PetscFunctionBegin;
  PetscCall(GraphReset(d));
  d->prec = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetAutoMin(Data *d, PetscInt automin)
{
  PetscFunctionBegin;
  PetscCheck(automin >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: -mat_pgx_lu_auto_min must be >= 0, not %" PetscInt_FMT, automin);
  d->automin = automin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetProfile(Data *d, Profile *prof)
{
  PetscFunctionBegin;
  PetscCheck(d->recs.empty(), PETSC_COMM_SELF, PETSC_ERR_ORDER, "denselu cuda: SetProfile while phases are being timed");
  d->prof = prof;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PRECISION_AUTO: tf32 (refined in FP64) when n >= automin and A (in d->A) is diagonally dominant by rows, else
   double. Why: on the H100 the mixed solve beats FP64 getrf+getrs only from n ~ 16384 on (diagonally dominant matrix,
   bench/results: 0.95x at 8192, 1.34x at 16384, 1.91x at 32768), and on a matrix that is not dominant it may fail to
   converge and fall back (plain random n = 32768: 0.46x, a lost low-precision factorization plus the FP64 one). Row
   dominance bounds the growth factor by 2, so the low-precision factors are good preconditioners. The test reads A
   once (row sums of |A|, as the acceptance test's ||A||_inf needs anyway) and is skipped below automin. */
static PetscErrorCode AutoPrecision(Data *d, Precision *prec, double *anorm)
{
  cudaStream_t s;
  const int    n = (int)d->n;
  double       h[2] = {0, 0};

  PetscFunctionBegin;
  *prec  = PRECISION_DOUBLE;
  *anorm = -1; /* not computed */
  if (!n || d->n < d->automin) {
    PetscCall(PetscInfo(NULL, "denselu cuda: precision auto: double (n %" PetscInt_FMT " < %" PetscInt_FMT ", -mat_pgx_lu_auto_min)\n", d->n, d->automin));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(d->norms.resize((size_t)n + 2));
  RowAbsSumKernel<<<PGXCUDAGridSize(n, 256), 256, 0, s>>>(n, d->A.data(), d->norms.data());
  PGXCheckLaunch("denselu RowAbsSumKernel (auto)");
  MaxKernel<<<1, 1024, 0, s>>>(n, d->norms.data(), d->norms.data() + n);
  PGXCheckLaunch("denselu MaxKernel (auto)");
  RowDominanceMarginKernel<<<PGXCUDAGridSize(n, 256), 256, 0, s>>>(n, d->A.data(), d->norms.data());
  PGXCheckLaunch("denselu RowDominanceMarginKernel");
  MaxKernel<<<1, 1024, 0, s>>>(n, d->norms.data(), d->norms.data() + n + 1); /* max(0, margins): 0 iff dominant */
  PGXCheckLaunch("denselu MaxKernel (dominance)");
  PGXCallCUDA(cudaMemcpyAsync(h, d->norms.data() + n, 2 * sizeof(double), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  if (h[1] <= 0) *prec = PRECISION_TF32;
  *anorm = h[0];
  PetscCall(PetscInfo(NULL, "denselu cuda: precision auto: %s (n %" PetscInt_FMT " >= %" PetscInt_FMT ", A %s diagonally dominant by rows: largest row excess %g of ||A||_inf %g)\n", *prec == PRECISION_TF32 ? "tf32" : "double", d->n, d->automin, *prec == PRECISION_TF32 ? "is" : "is not", h[1], h[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Factor with A on the device in d->A (leading dimension n): finiteness, ||A||_inf (mixed), the factorization */
static PetscErrorCode FactorLoaded(Data *d, PetscInt *zerocol, PetscBool *finite)
{
  cudaStream_t s;
  int          hflag[3];
  Precision    prec = d->prec;
  const int    n    = (int)d->n;
  int          tok;
  /* the fused path (one kernel), when asked for, keeps its pivot search; elsewhere NOPIVOT_AUTO tests A's column
     dominance in the pass that checks it for NaN/Inf, and a matrix without pivoting takes the blocked path even below
     nsmall (H200, twentieth session: n = 64 and 128 in 0.117 and 0.214 ms against the fused path's 0.161 and 0.408,
     cuSOLVER getrf 0.115 and 0.211) */
  const bool fused   = d->pathreq == PATH_FUSED;
  const bool domtest = n && !fused && d->nopivreq == NOPIVOT_AUTO;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(ResetFlag(d));
  PetscCall(ProfBegin(d, s, PHASE_CHECK, &tok));
  if (n) { /* flag[2] (not dominant) is used only by NOPIVOT_AUTO */
    FiniteDominanceKernel<<<n, 256, 0, s>>>(n, d->A.data(), d->flag.data());
    PGXCheckLaunch("denselu FiniteDominanceKernel");
  }
  PGXCallCUDA(cudaMemcpyAsync(hflag, d->flag.data(), 3 * sizeof(int), cudaMemcpyDeviceToHost, s));
  PetscCall(ProfEnd(d, s, tok));
  PGXCallCUDA(cudaStreamSynchronize(s));
  if (hflag[1]) {
    *finite = PETSC_FALSE;
    PetscCall(ProfCollect(d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  d->nopiv     = n && !fused && (d->nopivreq == NOPIVOT_ALWAYS || (domtest && !hflag[2]));
  d->nopivused = false;
  if (domtest) PetscCall(PetscInfo(NULL, "denselu cuda: A %s strictly diagonally dominant by columns: %s\n", hflag[2] ? "is not" : "is", hflag[2] ? "partial pivoting" : "no pivot search (partial pivoting would interchange no rows; the factors are checked)"));
  else if (d->nopiv) PetscCall(PetscInfo(NULL, "denselu cuda: -mat_pgx_lu_nopivot always: factoring without pivoting, then checking the factors\n"));
  double autonorm = -1; /* ||A||_inf when AutoPrecision computed it */
  if (prec == PRECISION_AUTO) PetscCall(AutoPrecision(d, &prec, &autonorm));
  if (prec != PRECISION_DOUBLE || (d->rbtdepth > 0 && !d->nopiv)) { /* refined solves: ||A||_inf for the acceptance test */
    d->anorm = autonorm >= 0 ? autonorm : 0;
    PetscCall(ProfBegin(d, s, PHASE_CHECK, &tok));
    if (n && autonorm < 0) {
      PetscCall(d->norms.resize((size_t)n + 1));
      RowAbsSumKernel<<<PGXCUDAGridSize(n, 256), 256, 0, s>>>(n, d->A.data(), d->norms.data());
      PGXCheckLaunch("denselu RowAbsSumKernel");
      MaxKernel<<<1, 1024, 0, s>>>(n, d->norms.data(), d->norms.data() + n);
      PGXCheckLaunch("denselu MaxKernel");
      PGXCallCUDA(cudaMemcpyAsync(&d->anorm, d->norms.data() + n, sizeof(double), cudaMemcpyDeviceToHost, s));
    }
    PetscCall(ProfEnd(d, s, tok));
  }
  if (prec == PRECISION_DOUBLE) {
    PetscCall(FactorDouble(d, zerocol, true)); /* synchronizes: d->anorm is on the host */
  } else {
    PetscCall(d->LUs.resize((size_t)n * n));
    PetscCall(FactorChecked<float>(d, d->LUs.data(), prec, zerocol, false)); /* synchronizes: d->anorm is on the host; no butterflies in low precision (see SetRbt) */
    d->lowvalid = true;
    d->used     = prec;
    if (*zerocol >= 0) { /* a zero pivot in low precision decides nothing: factor in FP64 */
      PetscCall(PetscInfo(NULL, "denselu cuda: zero pivot in column %" PetscInt_FMT " of the %s factorization; factoring in FP64\n", *zerocol, prec == PRECISION_HALF ? "half" : (prec == PRECISION_BF16 ? "bf16" : (prec == PRECISION_TF32X3 ? "tf32x3" : "tf32"))));
      PetscCall(FactorDouble(d, zerocol, false));
    }
  }
  PetscCall(ProfCollect(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorBegin(Data *d, PetscInt n, PetscInt *zerocol, PetscBool *finite)
{
  PetscFunctionBegin;
  PetscCheck(n <= INT_MAX / 2, PETSC_COMM_SELF, PETSC_ERR_SUP, "denselu cuda: n = %" PetscInt_FMT " is too large (device pivots and cuBLAS sizes are int)", n);
  d->n        = n;
  d->dblvalid = d->lowvalid = d->lupvalid = false;
  d->rbt      = false;
  *zerocol                  = -1;
  *finite                   = PETSC_TRUE;
  PetscCall(d->A.resize((size_t)n * n));
  PetscCall(d->ipiv.resize(n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Factor(Data *d, PetscInt n, const PetscScalar *a, PetscInt lda, PetscInt *zerocol, PetscBool *finite)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(FactorBegin(d, n, zerocol, finite));
  /* pageable host memory: through pinned staging buffers and host threads when large (pgxcopy.h; one cudaMemcpy2D
     from pageable memory runs at the driver's single-threaded 4-6 GB/s) */
  if (n) PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, d->A.data(), (void *)a, (size_t)n * sizeof(double), (size_t)n, (size_t)lda * sizeof(double), s, PETSC_FALSE));
  PetscCall(FactorLoaded(d, zerocol, finite));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FactorDeviceInput(Data *d, PetscInt n, const PetscScalar *d_a, PetscInt lda, PetscInt *zerocol, PetscBool *finite)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(FactorBegin(d, n, zerocol, finite));
  if (n) PGXCallCUDA(cudaMemcpy2DAsync(d->A.data(), n * sizeof(double), d_a, lda * sizeof(double), n * sizeof(double), n, cudaMemcpyDeviceToDevice, s));
  PetscCall(FactorLoaded(d, zerocol, finite));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetRefineOptions(Data *d, const RefineOptions *o)
{
  PetscFunctionBegin;
  d->ropt = o ? *o : RefineOptionsDefault();
  PetscCheck(d->ropt.gmres_m >= 1 && d->ropt.maxsteps >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cuda: GMRES-IR dimension %" PetscInt_FMT " and refinement steps %" PetscInt_FMT " must be >= 1 and >= 0", d->ropt.gmres_m, d->ropt.maxsteps);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B (n x nrhs, ld n, device) <- (LU)^-1 B (transpose: (LU)^-T B) with the factors lu stored in S, computed in T,
   through the workspace W (ld n): one column by TrsvKernel (d->trsv; S float with T double only so: GMRES-IR's
   preconditioner, exactly the FP32 factors' values), several by cublas<t>trsm (S = T) */
template <class S, class T>
static PetscErrorCode SolveFactors(Data *d, const S *lu, PetscBool transpose, int nrhs, T *b, T *w)
{
  cublasHandle_t h;
  cudaStream_t   s;
  const int      n    = (int)d->n;
  const bool     trsv = nrhs == 1 && d->trsv > 0;
  constexpr bool same = std::is_same<S, T>::value;

  PetscFunctionBegin;
  if (!n || !nrhs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(trsv || same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "denselu cuda: factors in another precision than the right-hand sides need the one-column solve");
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PetscCall(PGXCUDAGetStream(&s));
  const unsigned int g = PGXCUDAGridSize((PetscInt)n * nrhs, 256);
  if (!transpose) {
    PermuteKernel<T, T><<<g, 256, 0, s>>>(n, nrhs, b, n, w, n, d->perm.data(), 0);
    PGXCheckLaunch("denselu PermuteKernel (gather)");
    if (trsv) {
      PetscCall(LaunchTrsv(d, 0, lu, w, s));
      PetscCall(LaunchTrsv(d, 1, lu, w, s));
    } else if constexpr (same) {
      PGXCallCUBLAS(Trsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, n, nrhs, lu, n, w, n));
      PGXCallCUBLAS(Trsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, nrhs, lu, n, w, n));
    }
    CopyKernel<T, T><<<g, 256, 0, s>>>(n, nrhs, w, n, b, n, 0);
    PGXCheckLaunch("denselu CopyKernel");
  } else {
    if (trsv) {
      PetscCall(LaunchTrsv(d, 2, lu, b, s));
      PetscCall(LaunchTrsv(d, 3, lu, b, s));
    } else if constexpr (same) {
      PGXCallCUBLAS(Trsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, nrhs, lu, n, b, n));
      PGXCallCUBLAS(Trsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, n, nrhs, lu, n, b, n));
    }
    PermuteKernel<T, T><<<g, 256, 0, s>>>(n, nrhs, b, n, w, n, d->perm.data(), 1);
    PGXCheckLaunch("denselu PermuteKernel (scatter)");
    CopyKernel<T, T><<<g, 256, 0, s>>>(n, nrhs, w, n, b, n, 0);
    PGXCheckLaunch("denselu CopyKernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The refinement driver's operations (denselu_refine.h) on the device: B = d_b (n x k, ldb), X, R (n x k, ld n) */
struct CudaOps {
  Data                *d;
  PetscBool            tr;
  int                  n, k;
  const double        *B;
  int                  ldb;
  cublasHandle_t       h;
  cudaStream_t         s;
  std::vector<double>  hn; /* host copy of the norms (2 k) */
  int                  tok = -1; /* profile: the phase being timed */

  PetscErrorCode PhaseBegin(Phase p) { return ProfBegin(d, s, p, &tok); }
  PetscErrorCode PhaseEnd(Phase) { return ProfEnd(d, s, tok); }

  PetscInt  N() const { return n; }
  PetscInt  K() const { return k; }
  PetscReal ANorm() const { return d->anorm; }
  PetscErrorCode Norms(PetscReal *rn, PetscReal *xn)
  {
    PetscFunctionBegin;
    ColumnInfNormsKernel<<<dim3(k, 2), 256, 0, s>>>(n, k, d->R.data(), d->X.data(), d->norms.data());
    PGXCheckLaunch("denselu ColumnInfNormsKernel");
    hn.resize(2 * k);
    PGXCallCUDA(cudaMemcpyAsync(hn.data(), d->norms.data(), 2 * k * sizeof(double), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    for (int c = 0; c < k; c++) rn[c] = hn[c], xn[c] = hn[k + c];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode Start(PetscReal *rn, PetscReal *xn)
  {
    PetscFunctionBegin;
    PetscCall(d->norms.resize(PetscMax((size_t)2 * k, (size_t)n + 1)));
    PGXCallCUDA(cudaMemcpy2DAsync(d->R.data(), n * sizeof(double), B, ldb * sizeof(double), n * sizeof(double), k, cudaMemcpyDeviceToDevice, s));
    PGXCallCUDA(cudaMemsetAsync(d->X.data(), 0, (size_t)n * k * sizeof(double), s));
    PetscCall(Norms(rn, xn));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* X(:, c0:c0+nc) += M^-1 R(:, c0:c0+nc) in FP32 (in FP64 with FP64 butterfly factors; M^-1 = V (LU)^-1 U^T with
     butterfly factors, U (LU)^-T V^T transposed) */
  PetscErrorCode PlainColumns(int c0, int nc)
  {
    const size_t off = (size_t)c0 * n;
    PetscFunctionBegin;
    if (d->dblvalid) { /* FP64 butterfly factors */
      double *t = d->T2.data() + off;
      PGXCallCUDA(cudaMemcpyAsync(t, d->R.data() + off, (size_t)n * nc * sizeof(double), cudaMemcpyDeviceToDevice, s));
      PetscCall(RbtBefore<double>(d, s, tr, nc, t, n));
      PetscCall((SolveFactors<double, double>(d, d->LU.data(), tr, nc, t, d->T.data() + off)));
      PetscCall(RbtAfter<double>(d, s, tr, nc, t, n));
      CopyKernel<double, double><<<PGXCUDAGridSize((PetscInt)n * nc, 256), 256, 0, s>>>(n, nc, t, n, d->X.data() + off, n, 1);
      PGXCheckLaunch("denselu CopyKernel (x += t)");
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(LaunchCopyD2F(n, nc, d->R.data() + off, n, d->C.data() + off, n, s));
    if (d->rbt) PetscCall(RbtBefore<float>(d, s, tr, nc, d->C.data() + off, n));
    PetscCall(SolveFactors<float, float>(d, d->LUs.data(), tr, nc, d->C.data() + off, d->C2.data() + off));
    if (d->rbt) PetscCall(RbtAfter<float>(d, s, tr, nc, d->C.data() + off, n));
    CopyKernel<float, double><<<PGXCUDAGridSize((PetscInt)n * nc, 256), 256, 0, s>>>(n, nc, d->C.data() + off, n, d->X.data() + off, n, 1);
    PGXCheckLaunch("denselu CopyKernel (x += c)");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode Plain(const PetscBool *active)
  {
    int na = 0;
    PetscFunctionBegin;
    for (int c = 0; c < k; c++) na += active[c] ? 1 : 0;
    if (na == k) PetscCall(PlainColumns(0, k));
    else
      for (int c = 0; c < k; c++)
        if (active[c]) PetscCall(PlainColumns(c, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode Residual(PetscReal *rn, PetscReal *xn)
  {
    const double mone = -1.0, one = 1.0;
    PetscFunctionBegin;
    PGXCallCUDA(cudaMemcpy2DAsync(d->R.data(), n * sizeof(double), B, ldb * sizeof(double), n * sizeof(double), k, cudaMemcpyDeviceToDevice, s));
    PGXCallCUBLAS(cublasDgemm(h, tr ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, k, n, &mone, d->A.data(), n, d->X.data(), n, &one, d->R.data(), n));
    PetscCall(Norms(rn, xn));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode GmresPrepare(void)
  {
    PetscFunctionBegin;
    if (d->trsv == 0 && !d->lupvalid && !d->dblvalid) { /* once per factorization; the one-column solve reads the FP32 factors directly */
      PetscCall(d->LUp.resize((size_t)n * n));
      CopyKernel<float, double><<<PGXCUDAGridSize((PetscInt)n * n, 256), 256, 0, s>>>(n, n, d->LUs.data(), n, d->LUp.data(), n, 0);
      PGXCheckLaunch("denselu CopyKernel (promote factors)");
      d->lupvalid = true;
    }
    PetscCall(d->V.resize((size_t)n * (d->ropt.gmres_m + 1)));
    PetscCall(d->W.resize(n));
    PetscCall(d->Hd.resize(d->ropt.gmres_m + 2));
    PetscCall(d->Ht.resize(d->ropt.gmres_m + 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* v <- (LU)^-1 v in FP64 with the low-precision factors' values: from the FP32 factors by TrsvKernel, or from
     their FP64 copy LUp by cublasDtrsm */
  PetscErrorCode Precond(double *v)
  {
    PetscFunctionBegin;
    if (d->rbt) PetscCall(RbtBefore<double>(d, s, tr, 1, v, n));
    if (d->dblvalid) PetscCall((SolveFactors<double, double>(d, d->LU.data(), tr, 1, v, d->T.data()))); /* FP64 butterfly factors */
    else if (d->trsv > 0) PetscCall((SolveFactors<float, double>(d, d->LUs.data(), tr, 1, v, d->T.data())));
    else PetscCall((SolveFactors<double, double>(d, d->LUp.data(), tr, 1, v, d->T.data())));
    if (d->rbt) PetscCall(RbtAfter<double>(d, s, tr, 1, v, n));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode GmresStart(PetscInt c, PetscReal *beta)
  {
    double *V = d->V.data();
    PetscFunctionBegin;
    PGXCallCUDA(cudaMemcpyAsync(V, d->R.data() + (size_t)c * n, n * sizeof(double), cudaMemcpyDeviceToDevice, s));
    PetscCall(Precond(V));
    NormalizeKernel<<<1, 1024, 0, s>>>(n, V, V, d->Hd.data());
    PGXCheckLaunch("denselu NormalizeKernel (GMRES start)");
    PGXCallCUDA(cudaMemcpyAsync(beta, d->Hd.data(), sizeof(double), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  int kr = 0; /* columns of the recycled space */
  /* CGS2 against the m orthonormal columns of Q (n x m, device), the coefficients kept on the device: t = Q^T v,
     v -= Q t; t2 = Q^T v, v -= Q t2; t += t2 (t, t2: m entries each). GMRES-IR's Arnoldi step and the projection on
     the recycled space, as the reference backend's CGS2 */
  PetscErrorCode Cgs2(const double *Q, int m, double *v, double *t, double *t2)
  {
    const double one = 1.0, zero = 0.0, mone = -1.0;
    PetscFunctionBegin;
    PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_T, n, m, &one, Q, n, v, 1, &zero, t, 1));
    PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, n, m, &mone, Q, n, t, 1, &one, v, 1));
    PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_T, n, m, &one, Q, n, v, 1, &zero, t2, 1));
    PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, n, m, &mone, Q, n, t2, 1, &one, v, 1));
    AddKernel<<<PGXCUDAGridSize(m, 64), 64, 0, s>>>(m, t2, t);
    PGXCheckLaunch("denselu AddKernel (CGS2)");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* v projected out of the recycled space C: the two coefficient vectors summed into Tr(0:kr) */
  PetscErrorCode ProjectOut(double *v) { return Cgs2(d->Crec.data(), kr, v, d->Tr.data(), d->Tr.data() + kr); }
  PetscErrorCode RecycleKeep(PetscInt j, const PetscReal *Q, const PetscReal *Ri)
  {
    const double one = 1.0, zero = 0.0;
    const int    jj  = (int)j;
    PetscFunctionBegin;
    PetscCall(d->Crec.resize((size_t)n * jj));
    PetscCall(d->Urec.resize((size_t)n * jj));
    PetscCall(d->Rs.resize((size_t)(jj + 1) * jj + (size_t)jj * jj));
    PetscCall(d->Tr.resize(2 * (size_t)jj));
    double *Qd = d->Rs.data(), *Rid = d->Rs.data() + (size_t)(jj + 1) * jj;
    PGXCallCUDA(cudaMemcpyAsync(Qd, Q, (size_t)(jj + 1) * jj * sizeof(double), cudaMemcpyHostToDevice, s));
    PGXCallCUDA(cudaMemcpyAsync(Rid, Ri, (size_t)jj * jj * sizeof(double), cudaMemcpyHostToDevice, s));
    PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, jj, jj + 1, &one, d->V.data(), n, Qd, jj + 1, &zero, d->Crec.data(), n));
    PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, jj, jj, &one, d->V.data(), n, Rid, jj, &zero, d->Urec.data(), n));
    PGXCallCUDA(cudaStreamSynchronize(s)); /* Q and Ri are the driver's host arrays */
    kr = jj;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode RecycleProject(PetscInt c, PetscInt kr_, PetscReal beta, PetscReal *nrm)
  {
    const double one = 1.0, b = beta;
    double      *V = d->V.data();
    PetscFunctionBegin;
    PetscCheck(kr_ == kr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "denselu cuda: recycled space of %d columns, asked for %" PetscInt_FMT, kr, kr_);
    PetscCall(ProjectOut(V));
    PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, n, kr, &b, d->Urec.data(), n, d->Tr.data(), 1, &one, d->X.data() + (size_t)c * n, 1));
    NormalizeKernel<<<1, 1024, 0, s>>>(n, V, V, d->Hd.data());
    PGXCheckLaunch("denselu NormalizeKernel (recycled space)");
    PGXCallCUDA(cudaMemcpyAsync(nrm, d->Hd.data(), sizeof(double), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode RecycleUpdate(PetscInt c, PetscInt, const PetscReal *z)
  {
    const double mone = -1.0, one = 1.0;
    PetscFunctionBegin;
    PGXCallCUDA(cudaMemcpyAsync(d->Tr.data(), z, kr * sizeof(double), cudaMemcpyHostToDevice, s));
    PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, n, kr, &mone, d->Urec.data(), n, d->Tr.data(), 1, &one, d->X.data() + (size_t)c * n, 1));
    PGXCallCUDA(cudaStreamSynchronize(s)); /* z is the driver's host array */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode GmresArnoldi(PetscInt j, PetscReal *hcol, PetscReal *bcol)
  {
    const double one = 1.0, zero = 0.0;
    double      *V = d->V.data(), *w = d->W.data(), *H = d->Hd.data(), *Ht = d->Ht.data();
    const int    j1 = (int)j + 1;
    PetscFunctionBegin;
    PGXCallCUBLAS(cublasDgemv(h, tr ? CUBLAS_OP_T : CUBLAS_OP_N, n, n, &one, d->A.data(), n, V + (size_t)j * n, 1, &zero, w, 1));
    PetscCall(Precond(w));
    if (bcol) {
      PetscCall(ProjectOut(w));
      PGXCallCUDA(cudaMemcpyAsync(bcol, d->Tr.data(), kr * sizeof(double), cudaMemcpyDeviceToHost, s));
    }
    PetscCall(Cgs2(V, j1, w, H, Ht)); /* H = V^T w, w -= V H; Ht = V^T w, w -= V Ht, H += Ht */
    NormalizeKernel<<<1, 1024, 0, s>>>(n, w, V + (size_t)j1 * n, H + j1);
    PGXCheckLaunch("denselu NormalizeKernel (Arnoldi)");
    PGXCallCUDA(cudaMemcpyAsync(hcol, H, (j1 + 1) * sizeof(double), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s)); /* the one synchronization of an Arnoldi step */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode GmresUpdate(PetscInt c, PetscInt j, const PetscReal *y)
  {
    const double one = 1.0;
    PetscFunctionBegin;
    if (!j) PetscFunctionReturn(PETSC_SUCCESS);
    PGXCallCUDA(cudaMemcpyAsync(d->Ht.data(), y, j * sizeof(double), cudaMemcpyHostToDevice, s));
    PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, n, (int)j, &one, d->V.data(), n, d->Ht.data(), 1, &one, d->X.data() + (size_t)c * n, 1));
    PGXCallCUDA(cudaStreamSynchronize(s)); /* y is the driver's host array */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

PetscErrorCode Solve(Data *d, PetscBool transpose, PetscInt nrhs, PetscScalar *d_b, PetscInt ldb, RefineResult *res)
{
  cudaStream_t s;
  const int    n = (int)d->n, k = (int)nrhs;
  const size_t sz = (size_t)n * k;

  PetscFunctionBegin;
  res->steps = res->gmres_steps = res->gmres_its = 0;
  res->converged = res->fellback = PETSC_FALSE;
  res->berr = res->ratio = 0;
  res->stop             = "FP64 factors";
  if (!n || !k) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(d->X.resize(sz));
  PetscCall(d->T.resize(sz));
  if ((d->lowvalid && !d->dblvalid) || (d->dblvalid && d->rbt)) { /* low-precision or FP64 butterfly factors: refined */
    CudaOps ops;
    PetscCall(d->R.resize(sz));
    if (d->dblvalid) PetscCall(d->T2.resize(sz));
    else {
      PetscCall(d->C.resize(sz));
      PetscCall(d->C2.resize(sz));
    }
    ops.d   = d;
    ops.tr  = transpose;
    ops.n   = n;
    ops.k   = k;
    ops.B   = d_b;
    ops.ldb = (int)ldb;
    ops.s   = s;
    PetscCall(PGXCUDAGetCUBLAS(&ops.h));
    PetscCall(Refine(ops, RefineOptionsFor(d->ropt, d->dblvalid ? PRECISION_DOUBLE : d->used), res));
    if (res->converged) {
      PGXCallCUDA(cudaMemcpy2DAsync(d_b, ldb * sizeof(double), d->X.data(), n * sizeof(double), n * sizeof(double), k, cudaMemcpyDeviceToDevice, s));
      PetscCall(ProfCollect(d));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscInt zc;
    PetscCall(FactorDouble(d, &zc, false));
    PetscCheck(zc < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in column %" PetscInt_FMT " of the FP64 fallback of the MATSOLVERPGX dense LU", zc);
    res->fellback = PETSC_TRUE;
  }
  /* FP64 factors */
  {
    int tok;
    PetscCall(ProfBegin(d, s, PHASE_SOLVE, &tok));
    PGXCallCUDA(cudaMemcpy2DAsync(d->X.data(), n * sizeof(double), d_b, ldb * sizeof(double), n * sizeof(double), k, cudaMemcpyDeviceToDevice, s));
    PetscCall(SolveFactors<double, double>(d, d->LU.data(), transpose, k, d->X.data(), d->T.data()));
    PGXCallCUDA(cudaMemcpy2DAsync(d_b, ldb * sizeof(double), d->X.data(), n * sizeof(double), n * sizeof(double), k, cudaMemcpyDeviceToDevice, s));
    PetscCall(ProfEnd(d, s, tok));
  }
  PetscCall(ProfCollect(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolveHost(Data *d, PetscBool transpose, PetscInt nrhs, PetscScalar *b, PetscInt ldb, RefineResult *res)
{
  cudaStream_t                   s;
  pgx::cuda::DeviceArray<double> db;
  const size_t                   n = (size_t)d->n;

  PetscFunctionBegin;
  res->steps = res->gmres_steps = res->gmres_its = 0;
  res->converged = res->fellback = PETSC_FALSE;
  res->berr = res->ratio = 0;
  res->stop             = "FP64 factors";
  if (!n || !nrhs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(db.resize(n * nrhs));
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, db.data(), (void *)b, n * sizeof(double), (size_t)nrhs, (size_t)ldb * sizeof(double), s, PETSC_FALSE));
  PetscCall(Solve(d, transpose, nrhs, db.data(), (PetscInt)n, res));
  PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, db.data(), (void *)b, n * sizeof(double), (size_t)nrhs, (size_t)ldb * sizeof(double), s, PETSC_TRUE)); /* complete on return */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetInfo(const Data *d, const char **path, PetscInt *nb, Precision *used)
{
  PetscFunctionBegin;
  if (path) *path = d->path;
  if (nb) *nb = d->nb;
  if (used) *used = d->used;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetFactors(const Data *d, PetscScalar *lu, PetscInt *ipiv)
{
  cudaStream_t s;
  const size_t n = (size_t)d->n;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  if (d->dblvalid) {
    if (n) PGXCallCUDA(cudaMemcpyAsync(lu, d->LU.data(), n * n * sizeof(double), cudaMemcpyDeviceToHost, s));
  } else {
    std::vector<float> f(n * n);
    if (n) PGXCallCUDA(cudaMemcpyAsync(f.data(), d->LUs.data(), n * n * sizeof(float), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    for (size_t i = 0; i < n * n; i++) lu[i] = f[i];
  }
  PGXCallCUDA(cudaStreamSynchronize(s));
  for (size_t i = 0; i < n; i++) ipiv[i] = d->hpiv[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace cuda
} // namespace denselu
} // namespace kernels
} // namespace pgx
