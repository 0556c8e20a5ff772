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
   The factors are read once per solve with streaming loads (__ldcs, evict-first), so that L2 keeps the
   sectors of r and y that the gathers and scatters of neighbouring chunks share. */
#include <pgx/private/pgxcuda.h>
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
__global__ void __launch_bounds__(CHUNK_THREADS) batch_kernel(const Chunk *__restrict__ chunks, const PetscInt *__restrict__ bstart, const PetscScalar *__restrict__ fl, const PetscScalar *__restrict__ finv, const PetscScalar *__restrict__ fu, PetscScalar alpha, const PetscScalar *__restrict__ r, PetscScalar beta, const PetscScalar *__restrict__ w, PetscScalar *__restrict__ y)
{
  extern __shared__ PetscScalar sm[];
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
      z         = __ldcs(finv + f) * r[i0 + k] - __ldcs(fl + f) * z;
      y[i0 + k] = z;
    }
    f -= c.stride;
    if (!c.epilogue) {
  #pragma unroll 4
      for (int k = s - 2; k >= 0; k--) {
        f -= c.stride;
        z         = y[i0 + k] - __ldcs(fu + f) * z;
        y[i0 + k] = z;
      }
    } else {
      y[i0 + s - 1] = alpha * z + (w ? beta * w[i0 + s - 1] : 0);
  #pragma unroll 4
      for (int k = s - 2; k >= 0; k--) {
        f -= c.stride;
        z         = y[i0 + k] - __ldcs(fu + f) * z;
        y[i0 + k] = alpha * z + (w ? beta * w[i0 + k] : 0);
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
      z              = __ldcs(finv + f) * sm[k * ld + j] - __ldcs(fl + f) * z;
      sm[k * ld + j] = z;
    }
    f -= c.stride;
#pragma unroll 4
    for (int k = s - 2; k >= 0; k--) {
      f -= c.stride;
      z              = sm[k * ld + j] - __ldcs(fu + f) * z;
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
    y[i] = alpha * v + (w ? beta * w[i] : 0);
  }
}
} // namespace

PetscErrorCode batch_solve(const Batch &b, PetscScalar alpha, const PetscScalar *r, PetscScalar beta, const PetscScalar *w, PetscScalar *y)
{
  cudaStream_t stream;
  size_t       smem = (size_t)b.smem * sizeof(PetscScalar);

  PetscFunctionBegin;
  if (!b.nchunks) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(b.nchunks <= 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many chunks (%" PetscInt_FMT ") for one grid", b.nchunks);
  PetscCheck(smem <= 40 * 1024, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Tridiagonal batch needs %zu bytes of shared memory per chunk (max 40 KiB)", smem);
  PetscCall(PGXCUDAGetStream(&stream));
  batch_kernel<<<(unsigned int)b.nchunks, CHUNK_THREADS, smem, stream>>>(b.chunks, b.bstart, b.fl, b.finv, b.fu, alpha, r, beta, w, y);
  PGXCheckLaunch("pgx::kernels::tridiag::cuda::batch_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode reduced_rhs(const Long &l, const PetscScalar *r, const PetscScalar *y, PetscScalar *rs)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!l.nsep) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  reduced_rhs_kernel<<<PGXCUDAGridSize(l.nsep, 256), 256, 0, stream>>>(l.nsep, l.seprow, l.sepa, l.sepc, r, y, rs);
  PGXCheckLaunch("pgx::kernels::tridiag::cuda::reduced_rhs_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode correct(const Long &l, const PetscScalar *xs, PetscScalar alpha, PetscScalar beta, const PetscScalar *w, PetscScalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!l.nrow && !l.nsep) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  correct_kernel<<<PGXCUDAGridSize(l.nrow + l.nsep, 256), 256, 0, stream>>>(l.nrow, l.row, l.left, l.right, l.G, l.H, l.nsep, l.seprow, xs, alpha, beta, w, y);
  PGXCheckLaunch("pgx::kernels::tridiag::cuda::correct_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace cuda
} // namespace tridiag
} // namespace kernels
} // namespace pgx
