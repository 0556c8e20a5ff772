/* CUDA kernels of PCAIPS: the product with R = A - P (CSR, one thread per row: R of a stencil matrix has a
   few entries per row; on several ranks its off-diagonal block is added to it from the ghost values; or DIA,
   pgxdia.h's kernel, when R's diagonal block lies on few diagonals), a gather and a fill. Generic in the device
   scalar (double, or thrust::complex<double> in complex builds); the interface's Scalar (the host's type) is
   reinterpreted at the entry points. */
#include <pgx/private/pgxcuda.h>
#include <pgx/private/pgxcudascalar.h>
#include <pgx/private/pgxdia.h>
#include "../aips_kernels.h"
#include <cub/device/device_select.cuh>
#include <algorithm>
#include <climits>

namespace pgx
{
namespace kernels
{
namespace aips
{
namespace cuda
{
namespace
{
using pgx::dev::Dev; /* the device scalar's view of the interface's arrays and scalars */
using pgx::dev::DevScalar;

__global__ void csr_product_kernel(PetscInt n, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ col, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ y, PetscScalar *__restrict__ t)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscScalar s = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * y[col[k]];
    t[i] = s;
  }
}

__global__ void csr_product_add_kernel(PetscInt n, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ col, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ y, PetscScalar *__restrict__ t)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscScalar s = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * y[col[k]];
    t[i] += s;
  }
}

__global__ void fill_kernel(PetscInt n, PetscScalar v, PetscScalar *__restrict__ y)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) y[i] = v;
}
__global__ void gather_kernel(PetscInt n, const PetscInt *__restrict__ pos, const PetscScalar *__restrict__ a, PetscScalar *__restrict__ y)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt p = pos[i];
    y[i]             = p < 0 ? PetscScalar(0) : a[p];
  }
}
/* pattern_maps: one thread a row. R's distinct offsets go to slots[0 .. maxdiag) (-1: empty; -1, 0 and 1 are P's
   offsets, never R's), each inserted once by atomicCAS in the first free slot; cnt[0] |= unsorted, cnt[1] += rows
   without a diagonal, cnt[2] += R's entries, cnt[3] = 1 when R has more than maxdiag offsets */
__device__ inline void insert_offset(int o, int maxdiag, int *slots, int *cnt)
{
  for (int s = 0; s < maxdiag; s++) {
    const int cur = *(volatile int *)(slots + s);
    if (cur == o) return;
    if (cur == -1) {
      const int v = atomicCAS(slots + s, -1, o);
      if (v == -1 || v == o) return;
    }
  }
  cnt[3] = 1;
}

__global__ void pattern_kernel(PetscInt n, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ col, int maxdiag, PetscInt *__restrict__ tripos, int *cnt, int *slots)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscInt prev = -1;
    bool     diag = false, bad = false;
    int      nr   = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt j = col[k];
      if (j <= prev) bad = true;
      prev = j;
      if (j >= i - 1 && j <= i + 1 && j < n) {
        tripos[(j - i + 1) * n + i] = k;
        if (j == i) diag = true;
      } else {
        nr++;
        insert_offset((int)(j - i), maxdiag, slots, cnt);
      }
    }
    if (bad) cnt[0] = 1;
    if (!diag) atomicAdd(cnt + 1, 1);
    const unsigned mask = __activemask();
    const int      sum  = __reduce_add_sync(mask, nr);
    if ((threadIdx.x & 31) == (unsigned)(__ffs(mask) - 1)) atomicAdd(cnt + 2, sum);
  }
}

struct Offsets {
  int o[PGX_DIA_MAXDIAG];
  int nd;
};

__global__ void dia_positions_kernel(PetscInt n, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ col, Offsets off, PetscInt *__restrict__ diapos)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    int d = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) { /* columns increasing: the diagonals come in order */
      const PetscInt j = col[k];
      if (j >= i - 1 && j <= i + 1 && j < n) continue;
      const int o = (int)(j - i);
      while (d < off.nd && off.o[d] < o) d++;
      if (d < off.nd && off.o[d] == o) diapos[(size_t)d * (size_t)n + (size_t)i] = k;
    }
  }
}
/* block_offsets: end[i] = i + 1 where a block of P ends after row i (reference::block_offsets's test), 0 elsewhere */
__global__ void __launch_bounds__(256) block_ends_kernel(PetscInt n, const PetscScalar *__restrict__ dl, const PetscScalar *__restrict__ du, PetscInt *__restrict__ end)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) end[i] = (i == n - 1 || (du[i] == PetscScalar(0) && dl[i + 1] == PetscScalar(0))) ? i + 1 : 0;
}

struct NonZero {
  __device__ __forceinline__ bool operator()(const PetscInt &x) const { return x != 0; }
};
} // namespace

PetscErrorCode block_offsets(PetscInt n, const Scalar *dl, const Scalar *du, PetscInt *offsets, PetscInt *nb)
{
  cudaStream_t stream;
  PetscInt    *d_end = nullptr, *d_sel = nullptr;
  int         *d_num = nullptr, num = 0;
  void        *tmp   = nullptr;
  size_t       bytes = 0;

  PetscFunctionBegin;
  offsets[0] = 0;
  *nb        = 0;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(n < INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "block_offsets: %" PetscInt_FMT " rows, fewer than 2^31 needed", n);
  PetscCall(PGXCUDAGetStream(&stream));
  PGXCallCUDA(cub::DeviceSelect::If(nullptr, bytes, d_end, d_sel, d_num, (int)n, NonZero(), stream));
  PGXCallCUDA(cudaMallocAsync((void **)&d_end, (size_t)n * sizeof(PetscInt), stream));
  PGXCallCUDA(cudaMallocAsync((void **)&d_sel, (size_t)n * sizeof(PetscInt), stream));
  PGXCallCUDA(cudaMallocAsync((void **)&d_num, sizeof(int), stream));
  PGXCallCUDA(cudaMallocAsync(&tmp, bytes ? bytes : 1, stream));
  block_ends_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, Dev(dl), Dev(du), d_end);
  PGXCheckLaunch("pgx::kernels::aips::cuda::block_ends_kernel");
  PGXCallCUDA(cub::DeviceSelect::If(tmp, bytes, d_end, d_sel, d_num, (int)n, NonZero(), stream));
  PGXCallCUDA(cudaMemcpyAsync(&num, d_num, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PGXCallCUDA(cudaStreamSynchronize(stream));
  PetscCheck(num >= 1 && num <= n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "block_offsets: %d block ends selected of %" PetscInt_FMT " rows", num, n);
  PGXCallCUDA(cudaMemcpyAsync(offsets + 1, d_sel, (size_t)num * sizeof(PetscInt), cudaMemcpyDeviceToHost, stream));
  PGXCallCUDA(cudaFreeAsync(d_end, stream));
  PGXCallCUDA(cudaFreeAsync(d_sel, stream));
  PGXCallCUDA(cudaFreeAsync(d_num, stream));
  PGXCallCUDA(cudaFreeAsync(tmp, stream));
  PGXCallCUDA(cudaStreamSynchronize(stream));
  *nb = num;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode pattern_maps(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt maxdiag, PetscInt *tripos, PetscInt info[4], PetscInt *off)
{
  cudaStream_t stream;
  int         *buf, h[4 + PGX_DIA_MAXDIAG];

  PetscFunctionBegin;
  PetscCheck(maxdiag >= 0 && maxdiag <= PGX_DIA_MAXDIAG, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "pattern_maps: maxdiag %" PetscInt_FMT ", at most %d", maxdiag, PGX_DIA_MAXDIAG);
  PetscCheck(n >= 0 && n < INT_MAX / 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "pattern_maps: %" PetscInt_FMT " rows, fewer than 2^30 needed", n);
  PetscCall(PGXCUDAGetStream(&stream));
  PGXCallCUDA(cudaMalloc((void **)&buf, sizeof(int) * (4 + PGX_DIA_MAXDIAG)));
  PGXCallCUDA(cudaMemsetAsync(buf, 0, sizeof(int) * 4, stream));
  PGXCallCUDA(cudaMemsetAsync(buf + 4, 0xff, sizeof(int) * PGX_DIA_MAXDIAG, stream));
  if (n) {
    PGXCallCUDA(cudaMemsetAsync(tripos, 0xff, sizeof(PetscInt) * 3 * (size_t)n, stream));
    pattern_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, rowptr, col, (int)maxdiag, tripos, buf, buf + 4);
    PGXCheckLaunch("pgx::kernels::aips::cuda::pattern_kernel");
  }
  PGXCallCUDA(cudaMemcpyAsync(h, buf, sizeof(h), cudaMemcpyDeviceToHost, stream));
  PGXCallCUDA(cudaStreamSynchronize(stream));
  PGXCallCUDA(cudaFree(buf));
  info[0] = h[0];
  info[1] = h[1];
  info[2] = h[2];
  int nd  = 0;
  while (nd < maxdiag && h[4 + nd] != -1) nd++;
  std::sort(h + 4, h + 4 + nd);
  for (int d = 0; d < nd; d++) off[d] = h[4 + d];
  info[3] = h[3] ? maxdiag + 1 : nd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode dia_positions(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt ndiag, const PetscInt *off, PetscInt *diapos)
{
  cudaStream_t stream;
  Offsets      o;

  PetscFunctionBegin;
  PetscCheck(ndiag >= 0 && ndiag <= PGX_DIA_MAXDIAG, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "dia_positions: %" PetscInt_FMT " diagonals, at most %d", ndiag, PGX_DIA_MAXDIAG);
  o.nd = (int)ndiag;
  for (PetscInt d = 0; d < ndiag; d++) o.o[d] = (int)off[d];
  if (!n || !ndiag) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  PGXCallCUDA(cudaMemsetAsync(diapos, 0xff, sizeof(PetscInt) * (size_t)ndiag * (size_t)n, stream));
  dia_positions_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, rowptr, col, o, diapos);
  PGXCheckLaunch("pgx::kernels::aips::cuda::dia_positions_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode gather(PetscInt n, const PetscInt *pos, const Scalar *a, Scalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  gather_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, pos, Dev(a), Dev(y));
  PGXCheckLaunch("pgx::kernels::aips::cuda::gather_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode csr_product(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const Scalar *val, const Scalar *y, Scalar *t)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  csr_product_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, rowptr, col, Dev(val), Dev(y), Dev(t));
  PGXCheckLaunch("pgx::kernels::aips::cuda::csr_product_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode dia_product(PetscInt n, PetscInt ndiag, const PetscInt *off, const Scalar *val, const Scalar *y, Scalar *t)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(ndiag >= 0 && ndiag <= PGX_DIA_MAXDIAG, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "dia_product: %" PetscInt_FMT " diagonals, at most %d", ndiag, PGX_DIA_MAXDIAG);
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  PGXDIAProductKernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, ndiag, off, Dev(val), Dev(y), Dev(t), 0);
  PGXCheckLaunch("PGXDIAProductKernel (pgx::kernels::aips::cuda::dia_product)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode csr_product_add(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const Scalar *val, const Scalar *y, Scalar *t)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  csr_product_add_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, rowptr, col, Dev(val), Dev(y), Dev(t));
  PGXCheckLaunch("pgx::kernels::aips::cuda::csr_product_add_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode fill(PetscInt n, Scalar v, Scalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  fill_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, DevScalar(v), Dev(y));
  PGXCheckLaunch("pgx::kernels::aips::cuda::fill_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace cuda
} // namespace aips
} // namespace kernels
} // namespace pgx
