/* denselu_tournament.h: the pieces of tournament pivoting (CALU / TSLU, Grigori, Demmel and Xiang 2011) that the
   reference and cuda backends share, so that both choose the same pivots for the same m x w panel.

   Mathematics. Tournament pivoting of an m x w panel P (m >= w; here a leaf of the panel recursion, w <= 32):
     chunks   the rows are cut into nc = max(1, floor(m / TSLU_ROWS)) chunks of TSLU_ROWS consecutive rows, the last
              one taking the rest (TSLU_ROWS .. 2 TSLU_ROWS - 1 rows): a function of m only, not of the device;
     leaves   each chunk picks w candidate rows by LU with partial pivoting of its rows of P (the first largest |p_ij|
              in list order, i.e. row order), the candidates listed in pivot order;
     tree     level L+1 has ceil(c_L / 2) nodes; node i merges the lists of nodes 2i and 2i+1 of level L (that list
              concatenated, the rows' ORIGINAL values of P) by the same partial-pivoting selection; a node with one
              child keeps its child's list; the root's list is the winners r_0..r_{w-1}, in pivot order;
     swaps    the winners go to the top: interchanges ipiv[j] = the position of r_j after the interchanges 0..j-1
              (LAPACK's convention: TournamentInterchanges), applied to the whole rows;
     factor   the top w x w block is factored WITHOUT pivoting (the root's selection did exactly that on the winners:
              the same operations) and the rows below are L21 = A21 U11^-1 (row by row: x_j = a_j / u_jj, then
              a_c -= x_j u_jc for c > j).
   An exactly zero u_jj is reported (first such column) and column j is neither scaled nor eliminated with (as the
   partial-pivoting panel does). The growth of tournament pivoting is bounded (2^{w(h+1)} for a tree of height h, in
   practice like partial pivoting's); the FP64 factorization never uses it (its pivots are LAPACK's). */
#pragma once

#if defined(__CUDACC__)
  #define DENSELU_HD __host__ __device__
#else
  #define DENSELU_HD
#endif

namespace pgx
{
namespace kernels
{
namespace denselu
{
enum { TSLU_ROWS = 256, TSLU_WMAX = 32 };

/* Pivoting of the low-precision factorizations (-mat_pgx_lu_pivoting) */
typedef enum {
  PIVOTING_PARTIAL,
  PIVOTING_TOURNAMENT
} Pivoting;

/* Chunks of an m-row panel and the rows [*r0, *r1) of chunk c */
DENSELU_HD inline int TournamentChunks(int m)
{
  return m / TSLU_ROWS > 1 ? m / TSLU_ROWS : 1;
}
DENSELU_HD inline void TournamentChunkRows(int m, int c, int *r0, int *r1)
{
  const int nc = TournamentChunks(m);
  *r0          = c * TSLU_ROWS;
  *r1          = c == nc - 1 ? m : (c + 1) * TSLU_ROWS;
}
/* Nodes of the tree above nc leaves, all levels together (the leaves included), and the levels */
DENSELU_HD inline int TournamentNodes(int nc, int *levels)
{
  int tot = nc, c = nc, l = 1;
  while (c > 1) c = (c + 1) / 2, tot += c, l++;
  if (levels) *levels = l;
  return tot;
}

/* Interchanges that bring the winners win[0..w) (row indices of the panel, distinct) to rows 0..w-1 in order:
   ipiv[j] = the position of win[j] after the interchanges 0..j-1. Also the rows below the top that receive another
   row: *nmoved pairs (dst[t] >= w, src[t] < w: position dst[t] ends with the original row src[t]; every other row
   i >= w keeps its own). Work arrays: pos, row of 2w entries (the touched positions and their rows). O(w^2). */
DENSELU_HD inline void TournamentInterchanges(int w, const int *win, int *ipiv, int *pos, int *row, int *nmoved, int *dst, int *src)
{
  int nt = 0;
  for (int j = 0; j < w; j++) {
    const int r = win[j];
    int       p = r, tj = -1, tp = -1;
    for (int t = 0; t < nt; t++) {
      if (row[t] == r) p = pos[t], tp = t;
      if (pos[t] == j) tj = t;
    }
    if (tp < 0)
      for (int t = 0; t < nt; t++)
        if (pos[t] == p) tp = t;
    ipiv[j]        = p;
    const int rowj = tj >= 0 ? row[tj] : j; /* the row now at position j */
    if (p == j) continue;
    if (tj < 0) pos[nt] = j, tj = nt++;
    if (tp < 0) pos[nt] = p, tp = nt++;
    row[tj] = r;
    row[tp] = rowj;
  }
  *nmoved = 0;
  for (int t = 0; t < nt; t++)
    if (pos[t] >= w) dst[*nmoved] = pos[t], src[(*nmoved)++] = row[t];
}
} // namespace denselu
} // namespace kernels
} // namespace pgx
