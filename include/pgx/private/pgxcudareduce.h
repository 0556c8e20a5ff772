/* pgxcudareduce.h: the block sums and the one-launch finishing of a grid-wide reduction, shared by the kernels that
   reduce while they do other work (the resident Krylov layer's products and steps, the tridiagonal solver's tiles
   with the sums of their solution). Included by .cu files only, after pgxcudascalar.h.

   BlockSum<THREADS>(v): the sum of v over a block of THREADS threads (THREADS a multiple of 32, at most 1024),
   valid in thread 0; a second call in the same kernel needs a __syncthreads() before it.
   FinishInLastBlock<THREADS>(nres, nb, part, stride, res, count, add): once thread 0 of each block has written the
   block's partial sums part[r * stride + blockIdx.x], r < nres, the block that counts last (count: blocks done,
   zero before, reset after) sums the nb partials of each result: thread t adds partials t, t + THREADS, ..., then
   BlockSum; res[r] = that sum (add: res[r] += it). One launch per reduction, no finishing kernel. pub (k > 0): then
   thread 0 of that block writes pub.src[0..k) (PetscScalar, device memory: these results and any written before the
   kernel) to pub.dst (mapped pinned host memory) and fences them to the system (pgxcuda.h's PGXCUDAPublish). */
#pragma once
#if !defined(__CUDACC__)
  #error "pgxcudareduce.h is for CUDA sources"
#endif
#include <pgx/private/pgxcudascalar.h>
#include <pgx/private/pgxcuda.h>

namespace pgx
{
namespace dev
{
__device__ __forceinline__ PetscScalar WarpSumScalar(PetscScalar v)
{
  for (int o = 16; o > 0; o >>= 1) v += ShflDown(v, o);
  return v;
}

template <int THREADS>
__device__ inline PetscScalar BlockSum(PetscScalar v)
{
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "BlockSum: whole warps, at most 1024 threads");
  __shared__ PetscScalar sm[THREADS / 32];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  v = WarpSumScalar(v);
  __syncthreads();
  if (!lane) sm[w] = v;
  __syncthreads();
  v = threadIdx.x < THREADS / 32 ? sm[threadIdx.x] : 0;
  if (w == 0) v = WarpSumScalar(v);
  return v;
}

template <int THREADS>
__device__ void FinishInLastBlock(int nres, int nb, const PetscScalar *part, size_t stride, PetscScalar *res, unsigned *count, bool add = false, const PGXCUDAPublish pub = PGXCUDAPublish{nullptr, nullptr, 0})
{
  __shared__ bool last;
  __syncthreads();
  if (!threadIdx.x) {
    __threadfence(); /* this block's partials, written by this thread, before its count */
    last = atomicAdd(count, 1u) == (unsigned)(gridDim.x - 1);
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int r = 0; r < nres; r++) {
    PetscScalar a = 0;
    for (int b = threadIdx.x; b < nb; b += THREADS) a += LdCg(&part[(size_t)r * stride + b]);
    a = BlockSum<THREADS>(a);
    if (!threadIdx.x) res[r] = add ? res[r] + a : a;
  }
  if (!threadIdx.x) {
    *count = 0;
    if (pub.k > 0) { /* res written by this thread above: its own writes, read back through L2 */
      const PetscScalar *src = reinterpret_cast<const PetscScalar *>(pub.src);
      PetscScalar       *dst = reinterpret_cast<PetscScalar *>(pub.dst);
      __threadfence();
      for (int i = 0; i < pub.k; i++) dst[i] = LdCg(src + i);
      __threadfence_system();
    }
  }
}
} // namespace dev
} // namespace pgx
