/* denselu_swapplan.h: the interchanges k1..k2-1 of a block (row k <-> row ipiv[k], k increasing) as one gather
   dst[e] <- src[e] on the at most 2 kb rows they touch (kb = k2 - k1): the cuda backend applies it to many columns
   in parallel (LaswpKernel) instead of kb dependent swaps per column. Host and device code (the cuda kernel runs
   SwapPlanSequential on one thread of each block; tests/denselu/test_kernels.cxx checks it against the sequential
   swaps on the host).

   Plan: slot[t] (t < kb) = the first t' <= t with ipiv[k1+t'] == ipiv[k1+t] (rows below the block, p >= k2, may be
   chosen at several steps; their content is tracked in the slot of the first). top[t] = the row whose content ends
   in row k1+t; low[s] = the row whose content ends in row ipiv[k1+s] for the first slots s with ipiv >= k2. The
   gather: entry e < kb: dst k1+e, src top[e]; entry kb+s: dst ipiv[k1+s], src low[s] when s is a first slot with
   ipiv[k1+s] >= k2; other entries (and src == dst) move nothing. */
#pragma once

#if defined(__CUDACC__)
  #define PGX_HD __host__ __device__
#else
  #define PGX_HD
#endif

namespace pgx
{
namespace kernels
{
namespace denselu
{
/* slot[t] for t = t0, t0 + dt, ... < kb (the device splits this O(kb^2) part over its threads); piv = ipiv + k1 */
PGX_HD inline void SwapPlanSlots(int kb, const int *piv, int *slot, int t0, int dt)
{
  for (int t = t0; t < kb; t += dt) {
    int s = t;
    for (int u = 0; u < t; u++)
      if (piv[u] == piv[t]) {
        s = u;
        break;
      }
    slot[t] = s;
  }
}

/* top[kb], low[kb] from the slots (sequential, O(kb)) */
PGX_HD inline void SwapPlanSequential(int k1, int kb, const int *piv, const int *slot, int *top, int *low)
{
  const int k2 = k1 + kb;
  for (int t = 0; t < kb; t++) top[t] = k1 + t, low[t] = piv[t];
  for (int t = 0; t < kb; t++) {
    const int p = piv[t];
    if (p == k1 + t) continue;
    int *other = p < k2 ? &top[p - k1] : &low[slot[t]];
    int  x     = top[t];
    top[t]     = *other;
    *other     = x;
  }
}

/* entry e of the gather (0 <= e < 2 kb): whether it moves anything, and its rows */
PGX_HD inline bool SwapPlanEntry(int k1, int kb, const int *piv, const int *slot, const int *top, const int *low, int e, int *dst, int *src)
{
  if (e < kb) {
    *dst = k1 + e;
    *src = top[e];
  } else {
    const int s = e - kb;
    if (piv[s] < k1 + kb || slot[s] != s) return false;
    *dst = piv[s];
    *src = low[s];
  }
  return *dst != *src;
}
} // namespace denselu
} // namespace kernels
} // namespace pgx
