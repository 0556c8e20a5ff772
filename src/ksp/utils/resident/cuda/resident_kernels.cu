/* CUDA backend of the resident linear-algebra kernels (see ../resident_kernels.h for the contract).

   SpMV: one warp per row (vector CSR), the warp's partial products summed by shuffles. Reductions (Dot,
   Norm2Sq, DotNorm2, MDot) are deterministic: a first kernel writes one partial sum per thread block (a fixed
   number of blocks, grid-stride loops) and the block that finishes last sums the partials in a fixed order
   (FinishInLastBlock), and only the results (k scalars) are copied to the host. MDot computes all k products of a Gram-Schmidt step in
   one launch (blockIdx.y = column); MAXPY applies all k columns in one launch (the coefficients travel as a
   kernel argument, MAXK per launch). Everything runs on PGX's stream. */
#include <pgx/private/pgxcuda.h>
#include <pgx/private/pgxcudascalar.h>
#include <pgx/private/pgxcudareduce.h>
#include "../resident_kernels.h"
#include <pgx/private/pgxdia.h>

namespace pgx
{
namespace kernels
{
namespace resident
{
namespace cuda
{
namespace
{
/* the interface's arrays (Scalar, the host's type) as the device scalar's (PetscScalar under nvcc), same layout */
using pgx::dev::Dev;

constexpr int BLOCK   = 256; /* threads of the vector and reduction kernels */
constexpr int NPART   = 1024; /* blocks (partial sums) of a reduction, at most: a resident grid of the H200 (132 SMs) */
constexpr int NPART_MDOT = 256; /* blocks of each column of MDot's reduction (k columns: k times as many blocks) */
constexpr int NRESULT = 2 * MAXK;

struct Coef {
  PetscScalar a[MAXK];
};

/* Device workspace of the reductions: partial sums and results; allocated once, freed at PetscFinalize */
PetscScalar *d_part = nullptr, *d_res = nullptr, *h_res = nullptr; /* h_res: pinned, for the results' copies */
unsigned    *d_count = nullptr;                                    /* per result: blocks done (FinishInLastBlock) */
PetscScalar *h_slot = nullptr;                                     /* pinned: the two FetchBegin slots */
PetscScalar *h_pub = nullptr, *d_pub = nullptr;                    /* mapped pinned: the two slots the kernels publish to (FetchArm); d_pub its device address */
PetscInt     pub_slot[2] = {0, 0};                                 /* slot s's last FetchBegin: 1 published by its kernel (read h_pub), 0 copied (h_slot) */
PetscInt     armed_slot  = -1;                                     /* FetchArm's slot until FetchBegin */
cudaEvent_t  ev_slot[2] = {nullptr, nullptr};                      /* each slot's copy done */

PetscErrorCode FreeWorkspace(void)
{
  PetscFunctionBegin;
  if (d_part) PGXCallCUDA(cudaFree(d_part));
  if (d_res) PGXCallCUDA(cudaFree(d_res));
  if (d_count) PGXCallCUDA(cudaFree(d_count));
  d_count = nullptr;
  if (h_res) PGXCallCUDA(cudaFreeHost(h_res));
  if (h_slot) PGXCallCUDA(cudaFreeHost(h_slot));
  if (h_pub) PGXCallCUDA(cudaFreeHost(h_pub));
  h_pub = d_pub = nullptr;
  for (int i = 0; i < 2; i++)
    if (ev_slot[i]) PGXCallCUDA(cudaEventDestroy(ev_slot[i]));
  d_part = d_res = h_res = h_slot = nullptr;
  ev_slot[0] = ev_slot[1] = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Workspace(void)
{
  PetscFunctionBegin;
  if (!d_part) {
    PGXCallCUDA(cudaMalloc((void **)&d_part, sizeof(PetscScalar) * NPART * NRESULT));
    PGXCallCUDA(cudaMalloc((void **)&d_res, sizeof(PetscScalar) * NRESULT));
    PGXCallCUDA(cudaMalloc((void **)&d_count, sizeof(unsigned) * NRESULT));
    PGXCallCUDA(cudaMemset(d_count, 0, sizeof(unsigned) * NRESULT));
    PGXCallCUDA(cudaDeviceSynchronize()); /* the zeroed counters before PGX's non-blocking stream reads them */
    PGXCallCUDA(cudaMallocHost((void **)&h_res, sizeof(PetscScalar) * NRESULT));
    PGXCallCUDA(cudaMallocHost((void **)&h_slot, sizeof(PetscScalar) * 2 * PGX_RESIDENT_FETCHMAX));
    PGXCallCUDA(cudaHostAlloc((void **)&h_pub, sizeof(PetscScalar) * 2 * PGX_RESIDENT_FETCHMAX, cudaHostAllocMapped | cudaHostAllocPortable));
    PGXCallCUDA(cudaHostGetDevicePointer((void **)&d_pub, h_pub, 0));
    for (int i = 0; i < 2; i++) PGXCallCUDA(cudaEventCreateWithFlags(&ev_slot[i], cudaEventDisableTiming));
    PetscCall(PetscRegisterFinalize(FreeWorkspace));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device scalar's shuffles, loads through L2, real and imaginary parts, conjugate, |x|^2: pgxcudascalar.h */
using pgx::dev::AbsSq;
using pgx::dev::Conj;
using pgx::dev::Im;
using pgx::dev::LdCg;
using pgx::dev::Re;
using pgx::dev::ShflDown;

/* The block sums and the finishing sum in the last block (pgxcudareduce.h), on BLOCK threads; a reduction's partials
   lie NPART apart, part[r * NPART + b] */
__device__ __forceinline__ PetscScalar BlockSum(PetscScalar v)
{
  return pgx::dev::BlockSum<BLOCK>(v);
}
__device__ __forceinline__ void FinishInLastBlock(int nres, int nb, const PetscScalar *part, PetscScalar *res, unsigned *count, bool add = false, const PGXCUDAPublish pub = PGXCUDAPublish{nullptr, nullptr, 0})
{
  pgx::dev::FinishInLastBlock<BLOCK>(nres, nb, part, NPART, res, count, add, pub);
}

/* (A x)_row by the SUB lanes of a row group (lane 0 gets the sum); every lane of the warp calls it, valid row or not,
   because all of them take part in the shuffles. The one row loop of spmv_kernel and spmv_add_dot_kernel. */
template <int SUB>
__device__ __forceinline__ PetscScalar RowProduct(PetscInt row, PetscInt nrows, int lane, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ colidx, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x)
{
  PetscScalar s = 0;
  if (row < nrows)
    for (PetscInt k = rowptr[row] + lane; k < rowptr[row + 1]; k += SUB) s += val[k] * x[colidx[k]];
  for (int off = SUB / 2; off > 0; off /= 2) s += ShflDown(s, off, SUB);
  return s;
}

/* y = A x (add: y += A x), SUB threads per row (coalesced reads of a row's entries, shuffle reduction): SUB is
   chosen from the average row length, so a 7-point row is read by 4 threads, not by a whole warp of which 25
   would idle (with one warp per row, a million rows took ~120 waves of latency-bound warps) */
template <int SUB>
__global__ void __launch_bounds__(BLOCK) spmv_kernel(PetscInt nrows, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ colidx, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, int add)
{
  const PetscInt    t    = (PetscInt)blockIdx.x * BLOCK + threadIdx.x;
  const PetscInt    row  = t / SUB;
  const int         lane = (int)(t % SUB);
  const PetscScalar s    = RowProduct<SUB>(row, nrows, lane, rowptr, colidx, val, x); /* no early return: see RowProduct */
  if (row < nrows && !lane) y[row] = add ? y[row] + s : s;
}

/* y = A x on A's DIA copy and the partial sums of Dot(x, y) (as dot_partial's kind 0 forms them) in part[block]:
   the CG's w = A p and p'w in one pass over p and w */
__global__ void __launch_bounds__(BLOCK) dia_spmv_dot_kernel(PetscInt n, PetscInt ndiag, const PetscInt *__restrict__ off, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ part, PetscScalar *res, unsigned *count)
{
  __shared__ PetscInt soff[PGX_DIA_MAXDIAG];
  PGXDIAStageOffsets(ndiag, off, soff);
  PetscScalar a = 0;
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * BLOCK) {
    const PetscScalar s = PGXDIARow(i, n, ndiag, soff, val, x);
    y[i]                = s;
    a += Conj(s) * x[i];
  }
  a = BlockSum(a);
  if (!threadIdx.x) part[blockIdx.x] = a;
  FinishInLastBlock(1, (int)gridDim.x, part, res, count);
}

/* the DIA values of the CSR block (dval zeroed before): one thread a row, each entry to the slot of its diagonal; an
   entry on no listed diagonal sets *bad (the glue analyzed this pattern, so it does not happen) */
__global__ void __launch_bounds__(BLOCK) dia_fill_kernel(PetscInt n, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ colidx, const PetscScalar *__restrict__ val, PetscInt ndiag, const PetscInt *__restrict__ off, PetscScalar *__restrict__ dval, int *bad)
{
  __shared__ PetscInt soff[PGX_DIA_MAXDIAG];
  PGXDIAStageOffsets(ndiag, off, soff);
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * BLOCK) {
    PetscInt d = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt o = colidx[k] - i;
      while (d < ndiag && soff[d] < o) d++;
      if (d < ndiag && soff[d] == o) dval[(size_t)d * (size_t)n + (size_t)i] = val[k];
      else *bad = 1;
    }
  }
}

/* The reductions' grid-stride loops take UNROLL strides at a time, a stride past n adding a zero term (the sum
   unchanged): the loads of UNROLL terms are issued before their additions, which then run in the order of the
   plain loop (the same sums, bitwise). With RedGrid's n / (BLOCK * UNROLL) blocks each thread loads once. Measured
   on the H200 at 100^3 (16 MB): the plain loop read 1.3 TB/s; UNROLL strides with a remainder loop of single loads
   took 10.0 us with 256 blocks and 11.4 us with 977, the remainder's serial loads setting the time. */
constexpr int UNROLL = 4;

/* kind 0: conj(y) x; 1: |x|^2; 2: conj(t) s and |t|^2 (two sums) */
__global__ void __launch_bounds__(BLOCK) dot_partial(PetscInt n, const PetscScalar *__restrict__ x, const PetscScalar *__restrict__ y, int kind, PetscScalar *__restrict__ part, PetscScalar *res, unsigned *count, const PGXCUDAPublish pub)
{
  PetscScalar    a = 0, b = 0;
  const PetscInt st = (PetscInt)gridDim.x * BLOCK;
  PetscInt       i  = (PetscInt)blockIdx.x * BLOCK + threadIdx.x;
  for (; i < n; i += UNROLL * st) {
    PetscScalar xv[UNROLL], yv[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      const bool in = i + u * st < n;
      xv[u]         = in ? x[i + u * st] : PetscScalar(0);
      yv[u]         = in && kind != 1 ? y[i + u * st] : PetscScalar(0);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      if (kind == 0) a += Conj(yv[u]) * xv[u];
      else if (kind == 1) a += AbsSq(xv[u]);
      else {
        a += Conj(yv[u]) * xv[u];
        b += AbsSq(yv[u]);
      }
    }
  }
  a = BlockSum(a);
  if (kind == 2) {
    __syncthreads();
    b = BlockSum(b);
  }
  if (!threadIdx.x) {
    part[blockIdx.x] = a;
    if (kind == 2) part[NPART + blockIdx.x] = b;
  }
  FinishInLastBlock(kind == 2 ? 2 : 1, (int)gridDim.x, part, res, count, false, pub);
}

/* column j of V against w: partial sums part[j*NPART + block] */
__global__ void __launch_bounds__(BLOCK) mdot_partial(PetscInt n, const PetscScalar *__restrict__ V, PetscInt ldv, const PetscScalar *__restrict__ w, PetscScalar *__restrict__ part, PetscScalar *res, unsigned *count)
{
  const PetscScalar *v  = V + (size_t)blockIdx.y * ldv;
  PetscScalar        a  = 0;
  const PetscInt     st = (PetscInt)gridDim.x * BLOCK;
  PetscInt           i  = (PetscInt)blockIdx.x * BLOCK + threadIdx.x;
  for (; i < n; i += UNROLL * st) { /* as dot_partial: the loads first (none past n), the sum in order */
    PetscScalar vv[UNROLL], wv[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      const bool in = i + u * st < n;
      vv[u]         = in ? v[i + u * st] : PetscScalar(0);
      wv[u]         = in ? w[i + u * st] : PetscScalar(0);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) a += Conj(vv[u]) * wv[u];
  }
  a = BlockSum(a);
  if (!threadIdx.x) part[(size_t)blockIdx.y * NPART + blockIdx.x] = a;
  FinishInLastBlock(1, (int)gridDim.x, part + (size_t)blockIdx.y * NPART, res + blockIdx.y, count + blockIdx.y);
}

__global__ void maxpy_kernel(PetscInt n, int k, Coef c, const PetscScalar *__restrict__ V, PetscInt ldv, PetscScalar *__restrict__ y)
{
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * BLOCK) {
    PetscScalar s = y[i];
    for (int j = 0; j < k; j++) s += c.a[j] * V[(size_t)j * ldv + i];
    y[i] = s;
  }
}

/* MAXPY with the coefficients -d[j] read in device memory (the same sum, in the same order, as maxpy_kernel) */
__global__ void maxpy_neg_dev_kernel(PetscInt n, int k, const PetscScalar *__restrict__ d, const PetscScalar *__restrict__ V, PetscInt ldv, PetscScalar *__restrict__ y)
{
  __shared__ PetscScalar c[MAXK];
  for (int j = threadIdx.x; j < k; j += BLOCK) c[j] = -d[j];
  __syncthreads();
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * BLOCK) {
    PetscScalar s = y[i];
    for (int j = 0; j < k; j++) s += c[j] * V[(size_t)j * ldv + i];
    y[i] = s;
  }
}

/* op 0: y += a x; 1: y = x + a y; 2: w = a x + y; 3: z = a x + b y + c z; 4: x *= a; 5: x = a; 6: y = d .* x */
__global__ void axpy_family(PetscInt n, int op, PetscScalar a, PetscScalar b, PetscScalar c, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * BLOCK) {
    switch (op) {
    case 0: z[i] += a * x[i]; break;
    case 1: z[i] = x[i] + a * z[i]; break;
    case 2: z[i] = a * x[i] + y[i]; break;
    case 3: z[i] = a * x[i] + b * y[i] + c * z[i]; break;
    case 4: z[i] *= a; break;
    case 5: z[i] = a; break;
    case 6: z[i] = y[i] * x[i]; break;
    }
  }
}

__global__ void gather_kernel(PetscInt m, const PetscInt *__restrict__ idx, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ buf)
{
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < m; i += (PetscInt)gridDim.x * BLOCK) buf[i] = x[idx[i]];
}

unsigned int VecGrid(PetscInt n)
{
  unsigned int g = PGXCUDAGridSize(n, BLOCK);
  return g > 65535u ? 65535u : g;
}

PetscErrorCode Elementwise(PetscInt n, int op, PetscScalar a, PetscScalar b, PetscScalar c, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  axpy_family<<<VecGrid(n), BLOCK, 0, s>>>(n, op, a, b, c, x, y, z);
  PGXCheckLaunch("axpy_family");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The grid of a reduction over n entries: as many blocks as give each thread UNROLL entries (one round of loads),
   at most NPART */
unsigned int RedGrid(PetscInt n)
{
  const PetscInt per = (PetscInt)BLOCK * UNROLL, nb = (n + per - 1) / per;
  return (unsigned int)PetscMax(1, PetscMin((PetscInt)NPART, nb));
}

/* a reduction of kind over x, y, its results (2 for kind 2, else 1) left in device memory at d */
PetscErrorCode ReduceDev(PetscInt n, const PetscScalar *x, const PetscScalar *y, int kind, PetscScalar *d)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s)); /* first: it selects PGX's device */
  PetscCall(Workspace());
  dot_partial<<<RedGrid(n), BLOCK, 0, s>>>(n, x, y, kind, d_part, d, d_count, PGXCUDAPublishTake());
  PGXCheckLaunch("dot_partial");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* k (<= NRESULT) results at d (device) to h (host) through the pinned buffer; synchronizes PGX's stream */
PetscErrorCode ToHost(PetscInt k, const PetscScalar *d, PetscScalar *h)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(Workspace());
  PGXCallCUDA(cudaMemcpyAsync(h_res, d, sizeof(PetscScalar) * k, cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  for (PetscInt i = 0; i < k; i++) h[i] = h_res[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same reduction, its results on the host */
PetscErrorCode Reduce(PetscInt n, const PetscScalar *x, const PetscScalar *y, int kind, PetscScalar *h)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s)); /* first: it selects PGX's device */
  PetscCall(Workspace());          /* before d_res is read: it is passed by value below */
  PetscCall(ReduceDev(n, x, y, kind, d_res));
  PetscCall(ToHost(kind == 2 ? 2 : 1, d_res, h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPCG's x += a p, r += (-a) w with a = beta / dpi read on the device; nothing when the step is not taken */
__global__ void cg_step_kernel(PetscInt n, PetscScalar beta, PetscScalar dpiold, int checksign, const PetscScalar *__restrict__ dpi, const PetscScalar *__restrict__ p, const PetscScalar *__restrict__ w, PetscScalar *__restrict__ x, PetscScalar *__restrict__ r)
{
  const PetscScalar d = *dpi;
  if (!CGStepTaken(Re(d), Im(d), Re(dpiold), checksign != 0)) return;
  const PetscScalar a = beta / d, ma = -a;
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * BLOCK) {
    x[i] += a * p[i];
    r[i] += ma * w[i];
  }
}
/* y = x + (num / den) y: b formed once per thread exactly as the host forms it (one IEEE division) */
__global__ void aypx_dev_kernel(PetscInt n, const PetscScalar *__restrict__ num, const PetscScalar *__restrict__ den, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  const PetscScalar b = *num / *den;
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * BLOCK) y[i] = x[i] + b * y[i];
}

/* x *= 1 / t with t = sqrt(Re d[0]) read on the device, unless t is 0 or 1 (as the host's normalization) */
__global__ void scale_invsqrt_dev_kernel(PetscInt n, const PetscScalar *__restrict__ d, PetscScalar *__restrict__ x)
{
  const PetscReal t = sqrt(Re(*d));
  if (t == 0 || t == 1) return;
  const PetscScalar a = (PetscReal)1 / t;
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * BLOCK) x[i] *= a;
}

/* cg_step_kernel with beta and dpiold read on the device (dpiold NULL: no sign check) and x from xin to xout */
__global__ void cg_step_dev_kernel(PetscInt n, const PetscScalar *__restrict__ beta, const PetscScalar *__restrict__ dpi, const PetscScalar *__restrict__ dpiold, const PetscScalar *__restrict__ p, const PetscScalar *__restrict__ w, const PetscScalar *__restrict__ xin, PetscScalar *__restrict__ xout, PetscScalar *__restrict__ r)
{
  const PetscScalar d = *dpi;
  if (!CGStepTaken(Re(d), Im(d), dpiold ? Re(*dpiold) : 0, dpiold != nullptr)) return;
  const PetscScalar a = *beta / d, ma = -a;
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * BLOCK) {
    xout[i] = xin[i] + a * p[i];
    r[i] += ma * w[i];
  }
}
/* cg_step_dev_kernel, then z = dg .* r (dg NULL: z = r), then the partial sums of conj(z)'r and |z|^2 (dot_partial's
   kind 2 on r and z) with the finishing sum in the last block: the look-ahead CG's step, a pointwise preconditioner
   and the next z'r and ||z||^2 in one pass (r read once, z not read back) */
__global__ void __launch_bounds__(BLOCK) cg_step_pointwise_dev_kernel(PetscInt n, const PetscScalar *__restrict__ beta, const PetscScalar *__restrict__ dpi, const PetscScalar *__restrict__ dpiold, const PetscScalar *__restrict__ p, const PetscScalar *__restrict__ w, const PetscScalar *__restrict__ xin, PetscScalar *__restrict__ xout, PetscScalar *__restrict__ r, const PetscScalar *__restrict__ dg, PetscScalar *__restrict__ z, PetscScalar *__restrict__ part, PetscScalar *res, unsigned *count, const PGXCUDAPublish pub)
{
  const PetscScalar d     = *dpi;
  const bool        taken = CGStepTaken(Re(d), Im(d), dpiold ? Re(*dpiold) : 0, dpiold != nullptr);
  const PetscScalar a     = taken ? *beta / d : PetscScalar(0), ma = -a;
  const PetscInt    st = (PetscInt)gridDim.x * BLOCK;
  PetscScalar       s1 = 0, s2 = 0;
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += UNROLL * st) { /* as dot_partial's loop */
    PetscScalar rv[UNROLL], wv[UNROLL], pv[UNROLL], xv[UNROLL], dv[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      const PetscInt j  = i + u * st;
      const bool     in = j < n;
      rv[u]             = in ? r[j] : PetscScalar(0);
      wv[u]             = in && taken ? w[j] : PetscScalar(0);
      pv[u]             = in && taken ? p[j] : PetscScalar(0);
      xv[u]             = in && taken ? xin[j] : PetscScalar(0);
      dv[u]             = in && dg ? dg[j] : PetscScalar(0);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      const PetscInt j  = i + u * st;
      const bool     in = j < n;
      PetscScalar    ri = rv[u];
      if (taken) {
        ri += ma * wv[u];
        if (in) {
          xout[j] = xv[u] + a * pv[u];
          r[j]    = ri;
        }
      }
      const PetscScalar zi = dg ? dv[u] * ri : ri;
      if (in) z[j] = zi;
      s1 += Conj(zi) * ri; /* past n: ri = zi = 0, a zero term */
      s2 += AbsSq(zi);
    }
  }
  s1 = BlockSum(s1);
  __syncthreads();
  s2 = BlockSum(s2);
  if (!threadIdx.x) {
    part[blockIdx.x]         = s1;
    part[NPART + blockIdx.x] = s2;
  }
  FinishInLastBlock(2, (int)gridDim.x, part, res, count, false, pub);
}

/* dia_spmv_dot_kernel on p_new = z + (num/den) p_old (p_old NULL: z), each row forming its neighbours' p_new
   itself (the AYPX of the CG's direction folded into its product); p_new written for the rows this thread owns */
__global__ void __launch_bounds__(BLOCK) dia_aypx_spmv_dot_kernel(PetscInt n, PetscInt ndiag, const PetscInt *__restrict__ off, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ z, const PetscScalar *__restrict__ pold, const PetscScalar *__restrict__ num, const PetscScalar *__restrict__ den, PetscScalar *__restrict__ pnew, PetscScalar *__restrict__ y, PetscScalar *__restrict__ part, PetscScalar *res, unsigned *count)
{
  __shared__ PetscInt soff[PGX_DIA_MAXDIAG];
  PGXDIAStageOffsets(ndiag, off, soff);
  const PetscScalar b = pold ? *num / *den : 0;
  PetscScalar       a = 0;
  for (PetscInt i = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * BLOCK) {
    PetscScalar s = 0;
    for (PetscInt q = 0; q < ndiag; q++) {
      const PetscInt j = i + soff[q];
      if (j >= 0 && j < n) s += val[(size_t)q * (size_t)n + (size_t)i] * (pold ? z[j] + b * pold[j] : z[j]);
    }
    const PetscScalar pi = pold ? z[i] + b * pold[i] : z[i];
    pnew[i]              = pi;
    y[i]                 = s;
    a += Conj(s) * pi;
  }
  a = BlockSum(a);
  if (!threadIdx.x) part[blockIdx.x] = a;
  FinishInLastBlock(1, (int)gridDim.x, part, res, count);
}

/* p_new[idx[k]] = z + (num/den) p_old (p_old NULL: z) at the m listed rows only, each formed exactly as
   dia_aypx_spmv_dot_kernel forms it (the same expression, so the same bits): the entries the ghost exchange sends,
   ready before the fused product of the diagonal block writes all of p_new */
__global__ void aypx_idx_dev_kernel(PetscInt m, const PetscInt *__restrict__ idx, const PetscScalar *__restrict__ z, const PetscScalar *__restrict__ pold, const PetscScalar *__restrict__ num, const PetscScalar *__restrict__ den, PetscScalar *__restrict__ pnew)
{
  const PetscScalar b = pold ? *num / *den : 0;
  for (PetscInt k = (PetscInt)blockIdx.x * BLOCK + threadIdx.x; k < m; k += (PetscInt)gridDim.x * BLOCK) {
    const PetscInt i = idx[k];
    pnew[i]          = pold ? z[i] + b * pold[i] : z[i];
  }
}

/* y += A x (the off-diagonal block on the ghost values x) and res[0] += sum_i conj((A x)_i) p_i (the off-diagonal part of
   p'A p), SUB threads a row by spmv_kernel's RowProduct, grid-stride over at most NPART blocks, the finishing sum added to res */
template <int SUB>
__global__ void __launch_bounds__(BLOCK) spmv_add_dot_kernel(PetscInt nrows, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ colidx, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *__restrict__ p, PetscScalar *__restrict__ y, PetscScalar *__restrict__ part, PetscScalar *res, unsigned *count)
{
  PetscScalar a = 0;
  for (PetscInt base = (PetscInt)blockIdx.x * BLOCK; base < nrows * (PetscInt)SUB; base += (PetscInt)gridDim.x * BLOCK) {
    const PetscInt    t    = base + threadIdx.x;
    const PetscInt    row  = t / SUB;
    const int         lane = (int)(t % SUB);
    const PetscScalar s    = RowProduct<SUB>(row, nrows, lane, rowptr, colidx, val, x);
    if (row < nrows && !lane && rowptr[row + 1] > rowptr[row]) {
      y[row] = y[row] + s;
      a += Conj(s) * p[row];
    }
  }
  a = BlockSum(a);
  if (!threadIdx.x) part[blockIdx.x] = a;
  FinishInLastBlock(1, (int)gridDim.x, part, res, count, true);
}
} // namespace

/* the glue's DIA copy fits the device kernels: a square block, at most PGX_DIA_MAXDIAG diagonals */
static PetscErrorCode CheckDIA(const CSR &A, PetscInt ndiag)
{
  PetscFunctionBegin;
  PetscCheck(ndiag <= PGX_DIA_MAXDIAG && A.nrows == A.ncols, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DIA copy of a %" PetscInt_FMT " x %" PetscInt_FMT " block with %" PetscInt_FMT " diagonals (at most %d, square)", A.nrows, A.ncols, ndiag, PGX_DIA_MAXDIAG);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* threads per row of the CSR kernels: the largest power of two <= the average row length, in [1, 32] */
static int RowLanes(const CSR &A)
{
  int sub = 1;
  while (sub < 32 && 2 * (PetscInt)sub * A.nrows <= A.nnz) sub *= 2;
  return sub;
}

PetscErrorCode SpMVGeneric(const CSR &A, const PetscScalar *x, PetscScalar *y, int add)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (A.nrows <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  if (A.ndiag > 0) { /* the banded copy: one thread a row, no column indices */
    PetscCall(CheckDIA(A, A.ndiag));
    PGXDIAProductKernel<<<PGXCUDAGridSize(A.nrows, 256), 256, 0, s>>>(A.nrows, A.ndiag, A.doff, Dev(A.dval), x, y, add);
    PGXCheckLaunch("PGXDIAProductKernel");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const int      sub  = RowLanes(A);
  const unsigned grid = PGXCUDAGridSize(A.nrows * (PetscInt)sub, BLOCK);
  switch (sub) {
  case 1: spmv_kernel<1><<<grid, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, y, add); break;
  case 2: spmv_kernel<2><<<grid, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, y, add); break;
  case 4: spmv_kernel<4><<<grid, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, y, add); break;
  case 8: spmv_kernel<8><<<grid, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, y, add); break;
  case 16: spmv_kernel<16><<<grid, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, y, add); break;
  default: spmv_kernel<32><<<grid, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, y, add); break;
  }
  PGXCheckLaunch("spmv_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SpMV(const CSR &A, const PetscScalar *x, PetscScalar *y)
{
  return SpMVGeneric(A, x, y, 0);
}

PetscErrorCode SpMVAdd(const CSR &A, const PetscScalar *x, PetscScalar *y)
{
  return SpMVGeneric(A, x, y, 1);
}

PetscErrorCode Dot(PetscInt n, const PetscScalar *x, const PetscScalar *y, PetscScalar *r)
{
  return Reduce(n, x, y, 0, r);
}

PetscErrorCode Norm2Sq(PetscInt n, const PetscScalar *x, PetscReal *r)
{
  PetscScalar v = 0;

  PetscFunctionBegin;
  PetscCall(Reduce(n, x, x, 1, &v));
  *r = PetscRealPart(v);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DotNorm2(PetscInt n, const PetscScalar *s_, const PetscScalar *t, PetscScalar *d, PetscReal *t2)
{
  PetscScalar v[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(Reduce(n, s_, t, 2, v));
  *d  = v[0];
  *t2 = PetscRealPart(v[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MDotDev(PetscInt, PetscInt, const PetscScalar *, PetscInt, const PetscScalar *, PetscScalar *);

/* MDotDev in chunks of NRESULT products, each brought to the host */
PetscErrorCode MDot(PetscInt n, PetscInt k, const PetscScalar *V, PetscInt ldv, const PetscScalar *w, PetscScalar *r)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s)); /* first: it selects PGX's device */
  PetscCall(Workspace());          /* before d_res is read: it is passed by value below */
  for (PetscInt j0 = 0; j0 < k; j0 += NRESULT) {
    const PetscInt kk = PetscMin(NRESULT, k - j0);
    PetscCall(MDotDev(n, kk, V + (size_t)j0 * ldv, ldv, w, d_res));
    PetscCall(ToHost(kk, d_res, r + j0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MAXPY(PetscInt n, PetscInt k, const PetscScalar *a, const PetscScalar *V, PetscInt ldv, PetscScalar *y)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  for (PetscInt j0 = 0; j0 < k; j0 += MAXK) {
    const int kk = (int)PetscMin(MAXK, k - j0);
    Coef      c;
    for (int j = 0; j < kk; j++) c.a[j] = a[j0 + j];
    maxpy_kernel<<<VecGrid(n), BLOCK, 0, s>>>(n, kk, c, V + (size_t)j0 * ldv, ldv, y);
    PGXCheckLaunch("maxpy_kernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AXPY(PetscInt n, PetscScalar a, const PetscScalar *x, PetscScalar *y)
{
  return Elementwise(n, 0, a, 0, 0, x, nullptr, y);
}
PetscErrorCode AYPX(PetscInt n, PetscScalar b, const PetscScalar *x, PetscScalar *y)
{
  return Elementwise(n, 1, b, 0, 0, x, nullptr, y);
}
PetscErrorCode WAXPY(PetscInt n, PetscScalar a, const PetscScalar *x, const PetscScalar *y, PetscScalar *w)
{
  return Elementwise(n, 2, a, 0, 0, x, y, w);
}
PetscErrorCode AXPBYPCZ(PetscInt n, PetscScalar a, PetscScalar b, PetscScalar c, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  return Elementwise(n, 3, a, b, c, x, y, z);
}
PetscErrorCode Scale(PetscInt n, PetscScalar a, PetscScalar *x)
{
  return Elementwise(n, 4, a, 0, 0, nullptr, nullptr, x);
}
PetscErrorCode Set(PetscInt n, PetscScalar a, PetscScalar *x)
{
  return Elementwise(n, 5, a, 0, 0, nullptr, nullptr, x);
}
PetscErrorCode PointwiseMult(PetscInt n, const PetscScalar *d, const PetscScalar *x, PetscScalar *y)
{
  return Elementwise(n, 6, 0, 0, 0, x, d, y);
}
PetscErrorCode Copy(PetscInt n, const PetscScalar *x, PetscScalar *y)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (x == y || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMemcpyAsync(y, x, sizeof(PetscScalar) * n, cudaMemcpyDeviceToDevice, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Gather(PetscInt m, const PetscInt *idx, const PetscScalar *x, PetscScalar *buf)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (m <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  gather_kernel<<<VecGrid(m), BLOCK, 0, s>>>(m, idx, x, buf);
  PGXCheckLaunch("gather_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DotDev(PetscInt n, const PetscScalar *x, const PetscScalar *y, PetscScalar *d)
{
  return ReduceDev(n, x, y, 0, d);
}

PetscErrorCode DotNorm2Dev(PetscInt n, const PetscScalar *s_, const PetscScalar *t, PetscScalar *d2)
{
  return ReduceDev(n, s_, t, 2, d2);
}

PetscErrorCode CGStep(PetscInt n, PetscScalar beta, PetscScalar dpiold, PetscBool checksign, const PetscScalar *dpi, const PetscScalar *p, const PetscScalar *w, PetscScalar *x, PetscScalar *r)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  cg_step_kernel<<<VecGrid(n), BLOCK, 0, s>>>(n, beta, dpiold, checksign ? 1 : 0, dpi, p, w, x, r);
  PGXCheckLaunch("cg_step_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Fetch(PetscInt k, const PetscScalar *d, PetscScalar *h)
{
  PetscFunctionBegin;
  PetscCheck(k >= 0 && k <= NRESULT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "resident cuda Fetch: %" PetscInt_FMT " scalars, at most %d", k, NRESULT);
  PetscCall(ToHost(k, d, h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MDotDev(PetscInt n, PetscInt k, const PetscScalar *V, PetscInt ldv, const PetscScalar *w, PetscScalar *d)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s)); /* first: it selects PGX's device */
  PetscCall(Workspace());
  for (PetscInt j0 = 0; j0 < k; j0 += NRESULT) {
    const PetscInt kk = PetscMin(NRESULT, k - j0);
    mdot_partial<<<dim3(NPART_MDOT, (unsigned int)kk), BLOCK, 0, s>>>(n, V + (size_t)j0 * ldv, ldv, w, d_part, d + j0, d_count);
    PGXCheckLaunch("mdot_partial");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MAXPYNegDev(PetscInt n, PetscInt k, const PetscScalar *d, const PetscScalar *V, PetscInt ldv, PetscScalar *y)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  for (PetscInt j0 = 0; j0 < k; j0 += MAXK) {
    const int kk = (int)PetscMin(MAXK, k - j0);
    maxpy_neg_dev_kernel<<<VecGrid(n), BLOCK, 0, s>>>(n, kk, d + j0, V + (size_t)j0 * ldv, ldv, y);
    PGXCheckLaunch("maxpy_neg_dev_kernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Norm2SqDev(PetscInt n, const PetscScalar *x, PetscScalar *d)
{
  return ReduceDev(n, x, x, 1, d);
}

/* w = A p and p'w: on a DIA copy one kernel (one partial sum per block, at most NPART * NRESULT blocks) and the
   finishing sum in its last block; on CSR the SpMV and DotDev */
PetscErrorCode SpMVDotDev(const CSR &A, const PetscScalar *x, PetscScalar *y, PetscScalar *d)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (A.ndiag <= 0 || A.nrows <= 0) {
    PetscCall(SpMV(A, x, y));
    PetscCall(DotDev(A.nrows, x, y, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CheckDIA(A, A.ndiag));
  PetscCall(PGXCUDAGetStream(&s)); /* first: it selects PGX's device */
  PetscCall(Workspace());
  unsigned int nb = PGXCUDAGridSize(A.nrows, BLOCK);
  if (nb > (unsigned int)(NPART * NRESULT)) nb = (unsigned int)(NPART * NRESULT);
  dia_spmv_dot_kernel<<<nb, BLOCK, 0, s>>>(A.nrows, A.ndiag, A.doff, Dev(A.dval), x, y, d_part, d, d_count);
  PGXCheckLaunch("dia_spmv_dot_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ void inv_diag_kernel(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscScalar *val, PetscScalar *inv, unsigned long long *nbad)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  PetscScalar d = 0;
  for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++)
    if (colidx[k] == i) d = val[k];
  if (d == PetscScalar(0)) atomicAdd(nbad, 1ull);
  else inv[i] = PetscScalar(1.0) / d;
}

/* PCJACOBI's inverse diagonal from A's CSR on the device (one thread a row), and the rows without a usable one */
PetscErrorCode InvDiag(const CSR &A, PetscScalar *inv, PetscInt *nbad)
{
  cudaStream_t        s;
  unsigned long long *dbad = nullptr, bad = 0;

  PetscFunctionBegin;
  *nbad = 0;
  if (A.nrows <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMallocAsync((void **)&dbad, sizeof(*dbad), s));
  PGXCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(*dbad), s));
  inv_diag_kernel<<<VecGrid(A.nrows), BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), inv, dbad);
  PGXCheckLaunch("inv_diag_kernel");
  PGXCallCUDA(cudaMemcpyAsync(&bad, dbad, sizeof(bad), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaFreeAsync(dbad, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  *nbad = (PetscInt)bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's DIA values from its CSR on the device (no host pass): zero, scatter, and a check that every entry found its
   diagonal */
PetscErrorCode DIAFill(const CSR &A, PetscInt ndiag, const PetscInt *doff, PetscScalar *dval, PetscBool *miss)
{
  cudaStream_t s;
  int         *dbad = nullptr, bad = 0;

  PetscFunctionBegin;
  if (A.nrows <= 0 || ndiag <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CheckDIA(A, ndiag));
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMallocAsync((void **)&dbad, sizeof(int), s));
  PGXCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(int), s));
  PGXCallCUDA(cudaMemsetAsync(dval, 0, sizeof(PetscScalar) * (size_t)ndiag * (size_t)A.nrows, s));
  dia_fill_kernel<<<VecGrid(A.nrows), BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), ndiag, doff, dval, dbad);
  PGXCheckLaunch("dia_fill_kernel");
  PGXCallCUDA(cudaMemcpyAsync(&bad, dbad, sizeof(int), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaFreeAsync(dbad, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  if (miss) *miss = bad ? PETSC_TRUE : PETSC_FALSE;
  else PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DIA fill: an entry of the block lies on no analyzed diagonal (pattern changed?)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AYPXDev(PetscInt n, const PetscScalar *num, const PetscScalar *den, const PetscScalar *x, PetscScalar *y)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  aypx_dev_kernel<<<VecGrid(n), BLOCK, 0, s>>>(n, num, den, x, y);
  PGXCheckLaunch("aypx_dev_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ScaleInvSqrtDev(PetscInt n, const PetscScalar *d, PetscScalar *x)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  scale_invsqrt_dev_kernel<<<VecGrid(n), BLOCK, 0, s>>>(n, d, x);
  PGXCheckLaunch("scale_invsqrt_dev_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGStepDev(PetscInt n, const PetscScalar *beta, const PetscScalar *dpi, const PetscScalar *dpiold, const PetscScalar *p, const PetscScalar *w, const PetscScalar *xin, PetscScalar *xout, PetscScalar *r)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  cg_step_dev_kernel<<<VecGrid(n), BLOCK, 0, s>>>(n, beta, dpi, dpiold, p, w, xin, xout, r);
  PGXCheckLaunch("cg_step_dev_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the look-ahead CG's p = z + b p and w = A p, p'w: one pass on a DIA copy, else AYPXDev (or Copy) and SpMVDotDev */
PetscErrorCode SpMVDotAYPXDev(const CSR &A, const PetscScalar *z, const PetscScalar *pold, const PetscScalar *num, const PetscScalar *den, PetscScalar *pnew, PetscScalar *y, PetscScalar *d)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (A.ndiag <= 0 || A.nrows <= 0) {
    if (pold) {
      PetscCall(Copy(A.nrows, pold, pnew));
      PetscCall(AYPXDev(A.nrows, num, den, z, pnew));
    } else PetscCall(Copy(A.nrows, z, pnew));
    PetscCall(SpMVDotDev(A, pnew, y, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CheckDIA(A, A.ndiag));
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(Workspace());
  unsigned int nb = PGXCUDAGridSize(A.nrows, BLOCK);
  if (nb > (unsigned int)(NPART * NRESULT)) nb = (unsigned int)(NPART * NRESULT);
  dia_aypx_spmv_dot_kernel<<<nb, BLOCK, 0, s>>>(A.nrows, A.ndiag, A.doff, Dev(A.dval), z, pold, num, den, pnew, y, d_part, d, d_count);
  PGXCheckLaunch("dia_aypx_spmv_dot_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGStepPointwiseDev(PetscInt n, const PetscScalar *beta, const PetscScalar *dpi, const PetscScalar *dpiold, const PetscScalar *p, const PetscScalar *w, const PetscScalar *xin, PetscScalar *xout, PetscScalar *r, const PetscScalar *dg, PetscScalar *z, PetscScalar *d2)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s)); /* first: it selects PGX's device */
  PetscCall(Workspace());
  cg_step_pointwise_dev_kernel<<<RedGrid(n), BLOCK, 0, s>>>(n, beta, dpi, dpiold, p, w, xin, xout, r, dg, z, d_part, d2, d_count, PGXCUDAPublishTake());
  PGXCheckLaunch("cg_step_pointwise_dev_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the next reduction that supports it (dot_partial, the pointwise CG step, the tridiagonal solver's tiles with sums)
   writes d[0..k) to mapped slot `slot` from its finishing block: no copy on the stream (pgxcuda.h's PGXCUDAPublish);
   FetchBegin of the same slot then finds it taken */
PetscErrorCode FetchArm(PetscInt k, const PetscScalar *d, PetscInt slot)
{
  PetscFunctionBegin;
  PetscCheck(k >= 0 && k <= PGX_RESIDENT_FETCHMAX && (slot == 0 || slot == 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "resident FetchArm: %" PetscInt_FMT " scalars into slot %" PetscInt_FMT " (at most %d, slot 0 or 1)", k, slot, PGX_RESIDENT_FETCHMAX);
  PetscCall(Workspace());
  (void)PGXCUDAPublishDisarm();
  if (k) {
    PGXCUDAPublishArm(d, d_pub + slot * PGX_RESIDENT_FETCHMAX, (int)k);
    armed_slot = slot;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an event behind the kernel that published d[0..k) (FetchArm, taken since), or else the copy of d[0..k) into
   pinned slot `slot` and the event; the host is not blocked */
PetscErrorCode FetchBegin(PetscInt k, const PetscScalar *d, PetscInt slot)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCheck(k >= 0 && k <= PGX_RESIDENT_FETCHMAX && (slot == 0 || slot == 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "resident FetchBegin: %" PetscInt_FMT " scalars into slot %" PetscInt_FMT " (at most %d, slot 0 or 1)", k, slot, PGX_RESIDENT_FETCHMAX);
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(Workspace());
  const PetscBool taken = (PetscBool)(armed_slot == slot && !PGXCUDAPublishDisarm());
  armed_slot            = -1;
  pub_slot[slot]        = taken ? 1 : 0;
  if (k && !taken) PGXCallCUDA(cudaMemcpyAsync(h_slot + slot * PGX_RESIDENT_FETCHMAX, d, sizeof(PetscScalar) * k, cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaEventRecord(ev_slot[slot], s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FetchEnd(PetscInt k, PetscInt slot, PetscScalar *h)
{
  PetscFunctionBegin;
  PetscCheck(k >= 0 && k <= PGX_RESIDENT_FETCHMAX && (slot == 0 || slot == 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "resident FetchEnd: %" PetscInt_FMT " scalars from slot %" PetscInt_FMT " (at most %d, slot 0 or 1)", k, slot, PGX_RESIDENT_FETCHMAX);
  PetscCheck(h_slot, PETSC_COMM_SELF, PETSC_ERR_ORDER, "resident FetchEnd before any FetchBegin");
  PGXCallCUDA(cudaEventSynchronize(ev_slot[slot]));
  const PetscScalar *src = (pub_slot[slot] ? h_pub : h_slot) + slot * PGX_RESIDENT_FETCHMAX; /* complete: the event */
  for (PetscInt i = 0; i < k; i++) h[i] = src[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p_new = z + (num/den) p_old (or z) at the m rows idx only (the rows the ghost exchange sends) */
PetscErrorCode AYPXIdxDev(PetscInt m, const PetscInt *idx, const PetscScalar *z, const PetscScalar *pold, const PetscScalar *num, const PetscScalar *den, PetscScalar *pnew)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (m <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  aypx_idx_dev_kernel<<<VecGrid(m), BLOCK, 0, s>>>(m, idx, z, pold, num, den, pnew);
  PGXCheckLaunch("aypx_idx_dev_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y += A x and d[0] += p'(A x) over A's rows (the off-diagonal block after SpMVDotDev or SpMVDotAYPXDev of the
   diagonal block): one pass, the sum deterministic (partials per block, finished in the last block) */
PetscErrorCode SpMVAddDotDev(const CSR &A, const PetscScalar *x, const PetscScalar *p, PetscScalar *y, PetscScalar *d)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (A.nrows <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s)); /* first: it selects PGX's device */
  PetscCall(Workspace());
  const int    sub = RowLanes(A);
  unsigned int nb  = PGXCUDAGridSize(A.nrows * (PetscInt)sub, BLOCK);
  if (nb > (unsigned int)NPART) nb = (unsigned int)NPART;
  switch (sub) {
  case 1: spmv_add_dot_kernel<1><<<nb, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, p, y, d_part, d, d_count); break;
  case 2: spmv_add_dot_kernel<2><<<nb, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, p, y, d_part, d, d_count); break;
  case 4: spmv_add_dot_kernel<4><<<nb, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, p, y, d_part, d, d_count); break;
  case 8: spmv_add_dot_kernel<8><<<nb, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, p, y, d_part, d, d_count); break;
  case 16: spmv_add_dot_kernel<16><<<nb, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, p, y, d_part, d, d_count); break;
  default: spmv_add_dot_kernel<32><<<nb, BLOCK, 0, s>>>(A.nrows, A.rowptr, A.colidx, Dev(A.val), x, p, y, d_part, d, d_count); break;
  }
  PGXCheckLaunch("spmv_add_dot_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The table of the interface (Backend, declared with Scalar) filled with the functions above (declared with the device
   scalar): Adapt<host type, f>::call takes the interface's arguments and passes them on to f converted (Conv: a scalar
   by value, arrays reinterpreted; everything else as it is). In real builds Scalar is PetscScalar and Conv the
   identity. */
template <typename D, typename H>
struct Conv {
  static D go(H h) { return h; }
};
#if defined(PETSC_USE_COMPLEX)
template <>
struct Conv<PetscScalar, Scalar> {
  static PetscScalar go(Scalar h) { return PetscScalar(h.real(), h.imag()); }
};
template <>
struct Conv<const PetscScalar *, const Scalar *> {
  static const PetscScalar *go(const Scalar *h) { return reinterpret_cast<const PetscScalar *>(h); }
};
template <>
struct Conv<PetscScalar *, Scalar *> {
  static PetscScalar *go(Scalar *h) { return reinterpret_cast<PetscScalar *>(h); }
};
#endif
template <typename H, auto F>
struct Adapt;
template <typename... H, typename... D, PetscErrorCode (*F)(D...)>
struct Adapt<PetscErrorCode (*)(H...), F> {
  static PetscErrorCode call(H... h) { return F(Conv<D, H>::go(h)...); }
};
#define PGX_RESIDENT_ADAPT(f) Adapt<decltype(Backend::f), f>::call

const Backend backend = {"cuda", PGX_RESIDENT_ADAPT(SpMV), PGX_RESIDENT_ADAPT(SpMVAdd), PGX_RESIDENT_ADAPT(Dot), PGX_RESIDENT_ADAPT(MDot), PGX_RESIDENT_ADAPT(DotNorm2), PGX_RESIDENT_ADAPT(Norm2Sq), PGX_RESIDENT_ADAPT(AXPY), PGX_RESIDENT_ADAPT(AYPX), PGX_RESIDENT_ADAPT(WAXPY), PGX_RESIDENT_ADAPT(AXPBYPCZ), PGX_RESIDENT_ADAPT(MAXPY), PGX_RESIDENT_ADAPT(Scale), PGX_RESIDENT_ADAPT(Copy), PGX_RESIDENT_ADAPT(Set), PGX_RESIDENT_ADAPT(PointwiseMult), PGX_RESIDENT_ADAPT(Gather), PGX_RESIDENT_ADAPT(DotDev), PGX_RESIDENT_ADAPT(DotNorm2Dev), PGX_RESIDENT_ADAPT(CGStep), PGX_RESIDENT_ADAPT(Fetch), PGX_RESIDENT_ADAPT(MDotDev), PGX_RESIDENT_ADAPT(MAXPYNegDev), PGX_RESIDENT_ADAPT(Norm2SqDev), PGX_RESIDENT_ADAPT(SpMVDotDev), PGX_RESIDENT_ADAPT(DIAFill), PGX_RESIDENT_ADAPT(AYPXDev), PGX_RESIDENT_ADAPT(CGStepDev), PGX_RESIDENT_ADAPT(SpMVDotAYPXDev), PGX_RESIDENT_ADAPT(FetchBegin), PGX_RESIDENT_ADAPT(FetchEnd), PGX_RESIDENT_ADAPT(AYPXIdxDev), PGX_RESIDENT_ADAPT(SpMVAddDotDev), PGX_RESIDENT_ADAPT(CGStepPointwiseDev), PGX_RESIDENT_ADAPT(FetchArm), PGX_RESIDENT_ADAPT(ScaleInvSqrtDev), PGX_RESIDENT_ADAPT(InvDiag)};
#undef PGX_RESIDENT_ADAPT
} // namespace cuda
} // namespace resident
} // namespace kernels
} // namespace pgx
