/* denselu_rbt.h: the random butterfly transformation (RBT) of the dense LU (-mat_pgx_lu_rbt), the pieces that the
   reference and cuda backends share so that both transform A the same way.

   Why. Partial pivoting costs the pivoted panel a pivot search and a synchronization per column; on a matrix that
   needs pivots this keeps the FP64 factorization at cuSOLVER's speed (issue 14). Parker (1995) and Baboulin, Dongarra,
   Herrmann and Tomov (2013, MAGMA's dgesv_rbt) make the pivoting unnecessary in practice: with random butterflies U and
   V the matrix A_r = U^T A V is factored WITHOUT pivoting, and the solution of A x = b is x = V A_r^-1 U^T b, refined
   in FP64 against A itself (iterative refinement, GMRES-IR when a plain step stalls), so the accuracy is checked, not
   assumed. A matrix whose factorization of A_r breaks down or whose refinement does not converge is factored again
   with partial pivoting (no transformation).

   Mathematics. One level l (0 <= l < depth) of a transformation of length n: the index range is cut by recursive
   halving into 2^l segments (a segment [s, s + m) splits into [s, s + floor(m/2)) and the rest); inside a segment
   with h = floor(m/2), index s + i is paired with s + h + i (0 <= i < h) and, when m is odd, s + 2h stays alone. With
   a random diagonal r (one value per index and level), the level is L_l = H_l diag(r_l), H_l the pair Hadamard
   [1 1; 1 -1] / sqrt(2) on every pair (1 on a lone index):
     forward     y_p = (r_p x_p + r_q x_q) / sqrt2,   y_q = (r_p x_p - r_q x_q) / sqrt2,   lone: y_p = r_p x_p
     transposed  y_p = r_p (x_p + x_q) / sqrt2,       y_q = r_q (x_p - x_q) / sqrt2,       lone: y_p = r_p x_p
   (p < q a pair). The butterfly is W = L_{depth-1} ... L_0 (apply level 0 first), W^T = L_0^T ... L_{depth-1}^T (apply
   level depth-1 first). Its values r = exp((u - 1/2) / 10), u uniform in [0, 1) (as MAGMA's), keep every level within
   a factor 1.11 of orthogonal. For any n (odd lengths too) and depth >= 0 (depth 0: identity).
     A_r = U^T A V                U^T applied to every column of A, V^T to every row (row <- row V)
     solve A x = b                x = V (A_r^-1 (U^T b))
     solve A^T x = b              x = U (A_r^-T (V^T b))
   The diagonals: RbtDiagonals (reference backend), 2 depth n values [U's levels 0..depth-1][V's levels], from a seed
   (splitmix64), the same on every backend and run. */
#pragma once

#if defined(__CUDACC__)
  #define DENSELU_RBT_HD __host__ __device__
#else
  #define DENSELU_RBT_HD
#endif

namespace pgx
{
namespace kernels
{
namespace denselu
{
enum { RBT_DEPTH_MAX = 4 };

/* The partner of index i (0 <= i < n) at level l: i + h (i leads the pair), i - h (i follows), or i (alone) */
DENSELU_RBT_HD inline int RbtPartner(int n, int level, int i)
{
  int s = 0, m = n;
  for (int t = 0; t < level; t++) {
    const int h = m / 2;
    if (i - s < h) m = h;
    else {
      s += h;
      m -= h;
    }
  }
  const int h = m / 2, o = i - s;
  if (o < h) return i + h;
  if (o < 2 * h) return i - h;
  return i;
}

/* One pair (p < q, values xp, xq, diagonal values rp, rq) of a level, forward or transposed (see above) */
template <class T>
DENSELU_RBT_HD inline void RbtPair(bool transposed, double rp, double rq, T &xp, T &xq)
{
  const double c = 0.70710678118654752440;
  const double a = (double)xp, b = (double)xq;
  if (transposed) {
    xp = (T)(rp * (a + b) * c);
    xq = (T)(rq * (a - b) * c);
  } else {
    xp = (T)((rp * a + rq * b) * c);
    xq = (T)((rp * a - rq * b) * c);
  }
}
} // namespace denselu
} // namespace kernels
} // namespace pgx
