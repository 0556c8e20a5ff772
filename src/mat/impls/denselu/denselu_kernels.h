/* denselu_kernels.h: the one kernel interface of the dense LU of MATSOLVERPGX (reference and cuda backends).

   Mathematics. For a square n x n matrix A, LU with partial pivoting computes P A = L U, L unit lower
   triangular, U upper triangular, P a permutation given as a sequence of row interchanges: at step k
   (k = 0..n-1) rows k and ipiv[k] >= k are swapped, where ipiv[k] is the FIRST row i >= k at which
   |a_ik| (of the partially eliminated matrix) is largest. This is LAPACK's dgetrf convention except that
   ipiv is 0-based here (LAPACK's ipiv[k] = ours + 1). On matrices without ties in the pivot search the
   pivots are the same as dgetrf's.

   Blocked right-looking algorithm with block size nb: for each block column K = [k, k+kb):
     1. panel: unblocked LU with partial pivoting of the n-k x kb panel A(k:n, K) (column by column:
        pivot search, swap inside the panel, scale below the diagonal by 1/pivot, rank-1 update of the
        remaining panel columns);
     2. the panel's interchanges applied to the columns left (0:k) and right (k+kb:n) of the panel;
     3. U block row: A(K, k+kb:n) <- L(K,K)^-1 A(K, k+kb:n)   (unit lower triangular solve);
     4. trailing update: A(k+kb:n, k+kb:n) -= L(k+kb:n, K) U(K, k+kb:n).
   The result overwrites A: U on and above the diagonal, L's multipliers below (its unit diagonal not stored).
   An exactly zero pivot (the panel column is zero at and below the diagonal) leaves that column unscaled
   and the factorization goes on, as dgetrf does; the first such column is reported (zerocol, else -1).

   Solves with the factors, nrhs right-hand sides B (n x nrhs, leading dimension ldb), overwritten by X:
     NoTranspose: A X = B      ->  apply the interchanges k = 0..n-1 to B, L Y = B, U X = Y;
     Transpose:   A^T X = B    ->  U^T Y = B, L^T Z = Y, apply the interchanges k = n-1..0 to Z.

   Mixed precision (-mat_pgx_lu_precision tf32/half/bf16): A is factored in low precision (FP32 storage, products
   in tf32/half/bf16 on the tensor cores of the cuda backend; the reference emulates them by rounding every stored
   result of an FP32 factorization to 11 (tf32, half) or 8 (bf16) significant bits) and each solve is refined in
   FP64 by the driver of denselu_refine.h (its header states the acceptance test and the stagnation rule); when the
   refinement does not converge the backend factors A in FP64, solves with it and keeps those factors.

   Pivoting of the low-precision factorizations (-mat_pgx_lu_pivoting partial|tournament; the FP64 factorization, and
   so the fallback, always pivots partially): tournament replaces the partial-pivoting leaves of the panel recursion
   (leaves of at most leafw <= 32 columns: [k, k+kb) of each block column split in halves, TournamentLeaves) by
   tournament pivoting of the leaf (denselu_tournament.h: chunks of 256 rows pick candidates with no grid
   synchronization, a reduction tree picks the winners, the top leafw x leafw block is factored without pivoting and
   the rows below by L21 = A21 U11^-1). The pivots then differ from partial pivoting's (the growth is bounded and the
   refinement makes up for the rest); the reference factors by the same leaves (FactorTournament), so that the cuda
   and reference pivots agree up to rounding. The fused small-matrix path of the cuda backend keeps partial pivoting.

   Storage contract: column-major as PETSc's MATSEQDENSE, entry (i,j) at a[i + j*lda], lda >= max(1,n);
   the glue factors a private copy (the user's matrix is never touched). Entries must be finite: the glue
   checks A for NaN/Inf before calling Factor. Real double scalars only (as PGX).
   The reference backend is plain sequential C++ and is the specification; the cuda backend computes the
   same factorization on the device (same pivots up to round-off near ties). Neither knows PETSc objects. */
#pragma once
#include <pgx/private/pgxcompat.h>
#include "denselu_refine.h"
#include "denselu_tournament.h"
#include "denselu_rbt.h"
#include <vector>
#include <complex>

namespace pgx
{
namespace kernels
{
namespace denselu
{
/* Precision of the factorization (-mat_pgx_lu_precision). Anything but DOUBLE factors in lower precision
   on the device and refines in double; the reference backend always factors in double.
   TF32X3 (appended after AUTO so that the older values keep their numbers) stores FP32 and forms every product of the
   factorization from three tf32 tensor-core products, a_hi b_hi + a_hi b_lo + a_lo b_hi with a_hi = a rounded to
   tf32's 11 significant bits and a_lo = a - a_hi (exact in FP32); the dropped a_lo b_lo is 2^-22 |a b|, so the
   factors are as accurate as an FP32 factorization's (the reference emulates it as plain FP32: 24 bits) at three
   times tf32's product cost, which on an H100/H200 is still about twice FP32's or FP64's (495 TFLOP/s dense tf32
   against 67). Its point: factors that refine in a few steps on matrices where tf32's 2^-11 needs long GMRES-IR. */
typedef enum {
  PRECISION_DOUBLE,
  PRECISION_TF32,
  PRECISION_HALF,
  PRECISION_BF16,
  PRECISION_AUTO,
  PRECISION_TF32X3
} Precision;

/* Path of the cuda factorization (-mat_pgx_lu_path; issue 14, small and medium n):
   FUSED    the whole matrix in one launch: OnChipLUKernel (n <= 1024, one cooperative launch, the matrix in the blocks'
            shared memory) where it can be launched, else PanelKernel (one thread block)
   BLOCKED  the blocked right-looking loop (panel recursion, leaves by the cooperative kernel or one block)
   CLUSTER  the same loop, its leaves factored by ONE thread-block cluster (sm_90: up to 16 blocks, the leaf in
            registers, pivot candidates exchanged through distributed shared memory, one cluster barrier per column
            instead of a grid-wide synchronization); a leaf whose cluster cannot be launched (device before sm_90,
            too many rows, no resident cluster) falls back to the BLOCKED path's leaf kernels
   AUTO     with pivoting FUSED for n <= nsmall (default 1024 where OnChipLUKernel can be launched, else 128), then
            (pivoted FP64) the whole matrix by cusolverDnDgetrf up to wholemax, CLUSTER up to clustermax, else BLOCKED
   The reference backend has one path (blocked); it accepts and reports the option. */
/* Skipping the pivot search (-mat_pgx_lu_nopivot; cuda backend): when A is strictly diagonally dominant by columns,
   |a_jj| > sum_{i != j} |a_ij| for every j, partial pivoting interchanges no rows (the diagonal entry is the unique
   largest of its column, and every Schur complement stays strictly dominant by columns), so the factorization
   without pivoting IS the partially pivoted one and needs no pivot search, hence no synchronization per column.
   The cuda backend then factors each panel's leaves without pivoting (the top w x w block by one warp, the rows below
   by L21 = A21 U11^-1) and checks the factors afterwards: every |l_ij| <= 1 and every u_jj nonzero and finite, which
   is exactly the condition under which partial pivoting (first largest entry) would have chosen the diagonal at
   every step. When rounding breaks it (or for ALWAYS on a matrix that needs pivots) A is factored again with
   partial pivoting, with a line in -info. So the pivots are dgetrf's either way.
   AUTO   without pivoting when the one pass over A that checks it for NaN/Inf also finds it strictly dominant by
          columns (the default)
   NEVER  always partial pivoting
   ALWAYS try without pivoting on any matrix (a matrix that needs pivots costs a failed attempt and the pivoted one)
   The fused path, when asked for (PATH_FUSED), keeps its pivot search; under PATH_AUTO a matrix factored without
   pivoting takes the blocked path at every n (below nsmall too). The reference backend always pivots (the same pivots). */
typedef enum {
  NOPIVOT_AUTO,
  NOPIVOT_NEVER,
  NOPIVOT_ALWAYS
} NoPivot;
typedef enum {
  PATH_AUTO,
  PATH_FUSED,
  PATH_BLOCKED,
  PATH_CLUSTER,
  PATH_CUSOLVER
} Path;
/* Who factors each panel of the blocked paths when the factorization pivots (-mat_pgx_lu_panel; cuda backend, FP64
   only: the low-precision factorizations and the factorizations without pivoting keep PGX's panel):
   PGX       the panel recursion with PGX's leaf kernels (above)
   CUSOLVER  cusolverDnDgetrf on the m x kb panel (partial pivoting, first largest |a_ij|: the same pivots up to
             round-off near ties), its panel-local 1-based pivots made PGX's; the interchanges outside the panel, the
             U rows, the trailing update and the look-ahead stay PGX's
   AUTO      CUSOLVER for pivoted FP64 factorizations with panelmin <= n <= panelmax (SetPanel), else PGX
   PATH_CUSOLVER (-mat_pgx_lu_path cusolver) factors the whole matrix by one cusolverDnDgetrf (FP64 with pivoting;
   otherwise the blocked path): the anchor inside PGX, and what AUTO may choose where it is the fastest. */
typedef enum {
  PANEL_AUTO,
  PANEL_PGX,
  PANEL_CUSOLVER
} Panel;

/* The refinement's options for factors in precision p, the one place where a precision changes them: tf32x3's
   FP32-accurate factors judge the switch to GMRES-IR from the second plain step on (RefineOptions::plain_min) */
static inline RefineOptions RefineOptionsFor(RefineOptions o, Precision p)
{
  if (p == PRECISION_TF32X3) o.plain_min = 2;
  return o;
}

namespace reference
{
/* In-place blocked LU of a (n x n, leading dimension lda) with block size nb >= 1; ipiv[n] as above;
   zerocol = first column with an exactly zero pivot, or -1 */
PetscErrorCode Factor(PetscInt n, PetscScalar *a, PetscInt lda, PetscInt nb, PetscInt *ipiv, PetscInt *zerocol);
/* The same, timing its phases (panel as PHASE_LEAF, swaps, trsm, gemm) into prof with PetscTime when prof is not NULL */
PetscErrorCode FactorProfiled(PetscInt n, PetscScalar *a, PetscInt lda, PetscInt nb, PetscInt *ipiv, PetscInt *zerocol, Profile *prof);
/* The unblocked panel step 1 on the m x kb panel p (leading dimension lda) whose first row is row k of
   the matrix: ipiv[0..kb) are written relative to the panel's first row (add k for the matrix's rows) */
PetscErrorCode FactorPanel(PetscInt m, PetscInt kb, PetscScalar *p, PetscInt lda, PetscInt *ipiv, PetscInt *zerocol);
/* Row interchanges k1..k2-1 (ipiv as above) on the ncol columns of b (leading dimension ldb), forward
   (k increasing) or backward */
PetscErrorCode ApplyPivots(PetscInt ncol, PetscScalar *b, PetscInt ldb, PetscInt k1, PetscInt k2, const PetscInt *ipiv, PetscBool backward);
/* B <- A^-1 B (transpose: A^-T B) with the factors of Factor; B is n x nrhs with leading dimension ldb */
PetscErrorCode Solve(PetscInt n, const PetscScalar *lu, PetscInt lda, const PetscInt *ipiv, PetscBool transpose, PetscInt nrhs, PetscScalar *b, PetscInt ldb);
/* Whether all n x n entries are finite; the first offending (row, col) otherwise */
PetscErrorCode CheckFinite(PetscInt n, const PetscScalar *a, PetscInt lda, PetscBool *finite, PetscInt *row, PetscInt *col);
/* Significant bits of the products of a precision (tf32, half: 11; bf16: 8; tf32x3: 24 (FP32); double, auto: 53) */
int PrecisionBits(Precision);
/* x rounded to nearest (ties to even) with 'bits' significant bits (bits >= 24: x) */
float RoundToBits(float x, int bits);
/* ||A||_inf (largest row sum of |a_ij|) */
PetscReal NormInf(PetscInt n, const PetscScalar *a, PetscInt lda);

/* Tournament pivoting (denselu_tournament.h) of the m x w panel p (leading dimension lda, m >= w, 1 <= w <= 32) in
   FP64: winners swapped to the top (ipiv relative to the panel's first row), U11 and L11 without pivoting, L21 =
   A21 U11^-1; zerocol = first column with an exactly zero u_jj, else -1. The specification of the cuda kernels. */
PetscErrorCode TournamentPanel(PetscInt m, PetscInt w, PetscScalar *p, PetscInt lda, PetscInt *ipiv, PetscInt *zerocol);
/* The leaves of the cuda panel recursion for block size nb and leaf width leafw: pairs (first column, width) */
void TournamentLeaves(PetscInt n, PetscInt nb, PetscInt leafw, std::vector<PetscInt> &leaves);
/* The emulated low-precision LU (prec: tf32, half, bf16; FP32 with every stored result rounded to its bits) by the
   leaves of TournamentLeaves, each by tournament pivoting; a is overwritten by the factors (promoted to double) */
PetscErrorCode FactorTournament(PetscInt n, PetscScalar *a, PetscInt lda, PetscInt nb, PetscInt leafw, Precision prec, PetscInt *ipiv, PetscInt *zerocol);

#if !defined(PETSC_USE_COMPLEX)
/* The random butterfly transformation (denselu_rbt.h; real scalars), the specification of the cuda backend's: */
/* the 2 depth n diagonal values [U's levels][V's levels] from seed (0 <= depth <= RBT_DEPTH_MAX) */
void RbtDiagonals(PetscInt n, PetscInt depth, unsigned long long seed, std::vector<double> &r);
/* b <- W b (forward) or W^T b (transposed) for the ncol columns of b (leading dimension ldb), W the butterfly of
   depth levels whose diagonals are r (depth n values: U's or V's half of RbtDiagonals) */
void RbtVectors(PetscInt n, PetscInt depth, const double *r, PetscBool transposed, PetscInt ncol, PetscScalar *b, PetscInt ldb);
/* a <- U^T a V (r: the 2 depth n values of RbtDiagonals) */
void RbtMatrix(PetscInt n, PetscInt depth, const double *r, PetscScalar *a, PetscInt lda);
/* Unblocked LU WITHOUT pivoting (of U^T A V): a overwritten by L (unit, below) and U; zerocol = the first column with
   an exactly zero u_jj (left unscaled, as Factor does), else -1 */
PetscErrorCode FactorNoPivot(PetscInt n, PetscScalar *a, PetscInt lda, PetscInt *zerocol);

/* Mixed precision on the host, the specification of the cuda backend's: low-precision factors (emulated, see
   above), refinement by denselu_refine.h's driver, fallback to FP64 (reference Factor with block size nb) */
struct Mixed {
  PetscInt              n    = 0, nb = 32;
  Precision             prec = PRECISION_TF32; /* requested */
  Precision             used = PRECISION_DOUBLE; /* in use: prec, or DOUBLE after a fallback */
  PetscReal             anorm = 0;             /* ||A||_inf */
  std::vector<double>   A;                     /* A in FP64 (residuals, fallback) */
  std::vector<float>    LUs;                   /* low-precision factors */
  std::vector<double>   LUp;                   /* LUs promoted to FP64 (GMRES-IR's preconditioner) */
  std::vector<double>   LU;                    /* FP64 factors (after a fallback) */
  std::vector<PetscInt> ipiv;                  /* pivots of the factors in use */
  Pivoting              pivoting = PIVOTING_PARTIAL; /* of the low-precision factorization (tournament: leaves of TournamentLeaves(n, nb, leafw)) */
  PetscInt              leafw    = 32;               /* leaf width of the tournament (1..32) */
  Profile              *prof = nullptr;        /* per-phase profile (not owned; NULL: off) */
};
/* Factor a (n x n, lda) in the precision prec (not DOUBLE/AUTO); zerocol of the low-precision factorization:
   a zero pivot there makes it factor in FP64 at once (zerocol then of the FP64 factorization) */
PetscErrorCode MixedFactor(Mixed *, PetscInt n, const PetscScalar *a, PetscInt lda, Precision prec, PetscInt nb, PetscInt *zerocol);
/* B (n x nrhs, ldb) <- op(A)^-1 B: refined with the low-precision factors (opt: the driver's parameters, NULL:
   defaults), or with the FP64 factors once a fallback happened (res->fellback is set by the solve that falls back;
   later solves use FP64 directly, res->steps = 0). A zero pivot of the fallback factorization is an error. */
PetscErrorCode MixedSolve(Mixed *, PetscBool transpose, PetscInt nrhs, PetscScalar *b, PetscInt ldb, const RefineOptions *opt, RefineResult *res);
#endif
} // namespace reference

namespace cuda
{
/* Device data of one factorization: the factors (double; and the low-precision copy), pivots, workspaces */
struct Data;

PetscErrorCode Create(Data **);
PetscErrorCode Destroy(Data **);
/* Block size of the blocked path (0: the backend's default; at most 1024) and the largest n factored by the fused
   small-matrix path (-1: the backend's default) */
PetscErrorCode SetBlockSize(Data *, PetscInt nb);
PetscErrorCode SetSmallSize(Data *, PetscInt nsmall);
PetscErrorCode SetPrecision(Data *, Precision);
/* PRECISION_AUTO factors in tf32 (refined in FP64) when n >= automin (default 16384) and A is diagonally dominant by
   rows (one pass over A on the device), else in double */
PetscErrorCode SetAutoMin(Data *, PetscInt automin);
/* Pivoting of the low-precision factorizations (default PIVOTING_PARTIAL): tournament factors the leaves of the
   blocked and cluster paths by TournamentKernel (candidates per chunk of 256 rows, the reduction tree finished by the
   last block to arrive: one launch) and TournamentL21Kernel (the swaps and L21 = A21 U11^-1: one launch); the fused
   path and the FP64 factorization keep partial pivoting */
PetscErrorCode SetPivoting(Data *, Pivoting);
/* Whether to skip the pivot search on matrices that provably need none (NoPivot above). The default of this
   interface is NOPIVOT_NEVER (the kernel tests exercise the pivoting leaves on dominant matrices too); MATSOLVERPGX
   sets -mat_pgx_lu_nopivot, whose default is NOPIVOT_AUTO */
PetscErrorCode SetNoPivot(Data *, NoPivot);
/* Random butterfly transformation (-mat_pgx_lu_rbt; denselu_rbt.h): with depth > 0, a matrix that is not factored
   without pivoting anyway (NoPivot) is transformed to U^T A V (the butterflies' diagonals from seed by
   reference::RbtDiagonals), factored in FP64 WITHOUT pivoting (the blocked path's no-pivot leaves) and checked: a u_jj with |u_jj| <= n eps ||A||_inf (FP64's eps, in every precision) or not finite, or a non-finite
   l_ij, is a breakdown, and A is factored again with partial pivoting, untransformed (so an exactly singular A gets
   its zero pivot reported by the factorization, as without the transformation). Every solve with such factors is refined against A in FP64 by denselu_refine.h's driver, FP64
   factors included, with M^-1 = V (LU)^-1 U^T (transposed: U (LU)^-T V^T); a refinement that does not converge
   factors A in FP64 with partial pivoting (res->fellback), as a mixed precision does. The fused path keeps its pivot
   search (no transformation), and so do the low precisions: their factors of U^T A V without pivoting were too
   inaccurate for the refinement (tf32, random matrices, n = 1024..32768 on an H200: the refinement stagnated and fell
   back to FP64; bench/results, fortieth session; tf32x3's FP32-accurate factors of U^T A V too: GMRES-IR of 8 to 161
   iterations, some fallbacks, 0.38-0.95x of cuSOLVER's getrf + getrs against 0.60-1.26x pivoted, forty-first session),
   so they pivot partially as without the option (the solve code
   handles transformed low-precision factors all the same). depth 0 (the default): off */
PetscErrorCode SetRbt(Data *, PetscInt depth, unsigned long long seed);
/* The last factorization: *used = whether its factors in use are of U^T A V; *nfail = transformed factorizations since
   Create that broke down and were done again with partial pivoting */
PetscErrorCode GetRbtInfo(const Data *, PetscBool *used, PetscInt *nfail);
/* The last factorization: *used = whether it ran without pivoting (and passed its check); *nfail = factorizations
   since Create whose attempt without pivoting failed the check and were done again with partial pivoting */
PetscErrorCode GetNoPivotInfo(const Data *, PetscBool *used, PetscInt *nfail);
/* Tests: the tournament kernels in FP64 on one m x w panel (host arrays a, lda; out: lu (m x w, leading dimension
   m), ipiv relative to the panel, zerocol), to be compared with reference::TournamentPanel */
PetscErrorCode TournamentPanelTest(PetscInt m, PetscInt w, const PetscScalar *a, PetscInt lda, PetscScalar *lu, PetscInt *ipiv, PetscInt *zerocol);
/* How many leaves of the last factorization the tournament kernels factored */
PetscErrorCode GetTournamentInfo(const Data *, PetscInt *nleaves);
/* Per-phase profile (denselu_profile.h): with prof, Factor and Solve bracket each phase with a cudaEvent pair on its
   stream and add the times to prof when they return (Factor/Solve then wait for their events); NULL (the default):
   no event is created or recorded */
PetscErrorCode SetProfile(Data *, Profile *prof);
/* Blocked path: factor the next panel on PGX's stream while the rest of the trailing update runs on a second
   stream (same operations, so the same factors) */
PetscErrorCode SetLookAhead(Data *, PetscBool);
/* Look-ahead: each panel's interchanges on the columns left of it run on a third stream (the least priority), off the
   panel's critical path (on by default; off: with the next panel's interchanges on PGX's stream, as before). The same
   interchanges on the same columns, so the same factors and pivots */
PetscErrorCode SetLeftSwapStream(Data *, PetscBool);
/* Panel recursion: leaves of at most leafw columns (1..32; 0: 32), factored by the cooperative register kernel
   when coop and its blocks fit on the device, else by one thread block in global memory */
PetscErrorCode SetLeaf(Data *, PetscInt leafw, PetscBool coop);
/* The fused path's kernel (PATH_FUSED): OnChipLUKernel (flg, the default; cuda/denselu_onchip.cuh: n <= 1024, one
   cooperative launch, block columns of 16 each held by one thread block in shared memory, one block barrier a column,
   the same pivots) where its blocks fit on the device, else (or PETSC_FALSE) PanelKernel, one thread block on the
   matrix in global memory. GetInfo's path says which ran: "fused on-chip" or "fused" */
PetscErrorCode SetFusedOnChip(Data *, PetscBool flg);
/* The panel's critical path (issue 14; all off/0 by default, the bench compares them):
   priority  - factor on a private stream of the greatest priority, ordered with PGX's stream by events at the start
               and the end of the factorization (callers see PGX's stream as before); the look-ahead stream s2 has
               the least priority, so the panel's blocks are scheduled before the trailing gemm's
   leafrows  - rows per thread R of the cooperative leaf (1, 2, 4, 8; capped so that a thread's W R values of a leaf
               of width W stay in registers, W R sizeof(T) <= 512 bytes: FP64 W 8 up to R 8, W 16 up to 4, W 32 up
               to 2; FP32 (mixed) W 8 and 16 up to 8, W 32 up to 4): G = ceil(m / (256 R)) blocks take part in each grid
               synchronization; 0: the default rule (R = 1, else 4 for W 8, 2 for W 16 and 32); when G blocks of R
               do not fit, 2 R, ... are tried, then the one-block kernel
   leafswaps - every leaf applies its interchanges to the other columns of its whole panel (in the cooperative
               kernel, after its last column; after the one-block kernel, one LaswpKernel) instead of one LaswpKernel
               per recursion level and half: the same interchanges in the same order on every column, so the same
               factors and pivots */
PetscErrorCode SetPanelOptions(Data *, PetscBool priority, PetscInt leafrows, PetscBool leafswaps);
/* The largest rows per thread a cooperative leaf used in the last factorization (0: none ran) */
PetscErrorCode GetLeafRowsUsed(const Data *, PetscInt *rows);
/* The leaf width, and how many leaves of the last factorization each kernel factored */
PetscErrorCode GetLeafInfo(const Data *, PetscInt *leafw, PetscInt *ncoop, PetscInt *nblock);
/* Upload A (host, column-major, lda) and factor it on the device. zerocol as in the reference (FP64
   factorization). finite = PETSC_FALSE when A holds a NaN/Inf (then nothing is factored).
   used: the precision actually in use after the call (mixed runs test their factors on a refinement solve
   of the first right-hand side and may fall back to DOUBLE: see Solve). */
PetscErrorCode Factor(Data *, PetscInt n, const PetscScalar *a, PetscInt lda, PetscInt *zerocol, PetscBool *finite);
/* The same from A already on the device (d_a, leading dimension lda): no host-to-device copy */
PetscErrorCode FactorDeviceInput(Data *, PetscInt n, const PetscScalar *d_a, PetscInt lda, PetscInt *zerocol, PetscBool *finite);
/* The path (-mat_pgx_lu_path) and the largest n at which AUTO takes the cluster path (-mat_pgx_lu_cluster_max; 0:
   never, the default until measured) */
PetscErrorCode SetPath(Data *, Path path, PetscInt clustermax);
/* Who factors the pivoted FP64 panels (Panel above); AUTO takes cuSOLVER's panel for panelmin <= n <= panelmax
   (panelmax 0: never) */
PetscErrorCode SetPanel(Data *, Panel panel, PetscInt panelmin, PetscInt panelmax);
/* Who factors the pivoted panels of the FP32 (mixed-precision) factorizations with partial pivoting: PANEL_PGX (the
   default: PGX's recursion and leaves) or PANEL_CUSOLVER (cusolverDnSgetrf on each m x kb panel, its pivots made
   PGX's, as SetPanel's FP64 panels) */
PetscErrorCode SetLowPanel(Data *, Panel panel);
/* How many panels of the last factorization cusolverDnDgetrf factored */
PetscErrorCode GetPanelInfo(const Data *, PetscInt *ncusolver);
/* Look-ahead: the rest of each trailing update (second stream) runs its cuBLAS kernels on at most sms SMs
   (cublasSetSmCountTarget; 0: all), leaving the others to the panel and the next panel's update */
PetscErrorCode SetLookAheadSMs(Data *, PetscInt sms);
/* Each panel's interchanges on the columns outside it: the gather plan (denselu_swapplan.h) made once per panel by one
   thread block and read by every swap launch of that panel (on by default), or built again in every block of every swap
   launch (off: the old kernel). The same moves, so the same factors bitwise */
PetscErrorCode SetSwapPlan(Data *, PetscBool);
/* The FP64 factorization's solves for the U rows (the panel recursion's, the next panel's, the rest's): split by
   halves of multiples of 32 rows down to cublasDtrsm of at most max(rows, 32) rows, the halves joined by cuBLAS gemms (a blocked
   forward substitution: the same pivots, the factors to round-off; default 64, measured on an H200: random matrix 1.8-3.4%
   faster from 4096 to 32768), or one cublasDtrsm (rows 0) */
PetscErrorCode SetTrsmLeaf(Data *, PetscInt rows);
/* Solves with one right-hand side (MatSolve, MatSolveTranspose, the refinement's plain steps with one column and every
   GMRES-IR preconditioner application; variant): 1 and 2 launch PGX's own kernel once per triangle
   (cuda/denselu_trsv.cuh: 64-row blocks that wait for the blocks above them by flags, every factor entry read once),
   solving each 64 x 64 diagonal tile by substitution (1), or by the tile's inverse, formed by the block while it waits,
   from the 17th block on (2, the default: 1.1-1.6x faster than cublasDtrsm from n = 1024 to 32768 on an H200);
   0 calls cublas<t>trsm. With 1 and 2, GMRES-IR reads the FP32 factors directly instead of a FP64 copy (the same
   values: no n x n FP64 copy is made). Several right-hand sides always take cublas<t>trsm */
PetscErrorCode SetTrsv(Data *, PetscInt variant);
/* Bench: one launch on the FP64 factors (triangle which: 0 L, 1 U, 2 U^T, 3 L^T) with per-block timings, 4 per block
   in the order of the blocks' rows: SM cycles from its start to its last chunk, SM cycles from there to its flag, the
   global timer (ns) at its flag, the grid index it ran as */
PetscErrorCode TrsvTrace(Data *, PetscInt which, std::vector<long long> *out);
/* CUDA graph (-mat_pgx_lu_graph; off by default): the factorization's launches are captured at the second
   factorization of the same n and precision (into the same device buffer) and replayed by the later ones (one
   cudaGraphLaunch: no host-side launch per panel). Not with a profile (its events are timed). Any setter (block size,
   path, panel options, ...) drops the captured graphs. */
PetscErrorCode SetGraph(Data *, PetscBool);
/* Graphs captured since Create, and whether the last factorization replayed one */
PetscErrorCode GetGraphInfo(const Data *, PetscInt *ncaptured, PetscBool *replayed);
/* How many leaves of the last factorization one thread-block cluster factored, and the largest cluster (blocks) */
PetscErrorCode GetClusterInfo(const Data *, PetscInt *nleaves, PetscInt *maxblocks);
/* Parameters of the mixed-precision refinement (default: RefineOptionsDefault()) */
PetscErrorCode SetRefineOptions(Data *, const RefineOptions *);
/* Device arrays: B (n x nrhs, leading dimension ldb) overwritten by A^-1 B or A^-T B. With a mixed
   precision factorization the solve is refined in FP64 by denselu_refine.h's driver (residuals with the FP64 A
   kept on the device); when that does not converge the backend factors A in FP64 and solves again
   (res->fellback, which the glue reports with PetscInfo); the FP64 factors are kept for the later solves. */
PetscErrorCode Solve(Data *, PetscBool transpose, PetscInt nrhs, PetscScalar *d_b, PetscInt ldb, RefineResult *res);
/* Host arrays (the glue's path for host Vecs): staged through a device buffer */
PetscErrorCode SolveHost(Data *, PetscBool transpose, PetscInt nrhs, PetscScalar *b, PetscInt ldb, RefineResult *res);
/* What the last Factor did: the path ("fused", "blocked", "blocked look-ahead", "cluster", "cluster look-ahead"), the block size used, the precision in use */
PetscErrorCode GetInfo(const Data *, const char **path, PetscInt *nb, Precision *used);
/* The factors and pivots to the host (tests): lu (n x n, leading dimension n), ipiv (0-based) */
PetscErrorCode GetFactors(const Data *, PetscScalar *lu, PetscInt *ipiv);
} // namespace cuda

#if defined(PETSC_USE_COMPLEX)
/* The cuda backend with complex scalars (a complex PETSc and PGX built with CUDA; src/mat/impls/denselu/cudaz):
   cuSOLVER's zgetrf (partial pivoting on |re| + |im|, LAPACK's izamax) and zgetrs on the device. A is uploaded
   once per factorization and checked for NaN/Inf on the device (a non-finite A is reported; its factors are never
   used). FP64 only: the real backend's panels, paths, look-ahead and mixed precisions are PGX's own kernels, written
   for real scalars. */
namespace cudaz
{
/* The scalar of this interface: PetscScalar as host code sees it (std::complex<double>); under nvcc PETSc's headers
   make PetscScalar thrust::complex<double>, of the same layout (as in ldlt_kernels.h) */
  #if defined(__CUDACC__)
typedef std::complex<PetscReal> Scalar;
  #else
typedef PetscScalar Scalar;
  #endif
struct Data;
PetscErrorCode Create(Data **);
PetscErrorCode Destroy(Data **);
/* Upload A (host, column-major, lda) and factor it. finite = PETSC_FALSE when A holds a NaN/Inf (the factors are then
   not to be used; the glue fails the factorization); zerocol = first column with an exactly zero pivot (U(j, j) = 0, cuSOLVER's info - 1), or -1 */
PetscErrorCode Factor(Data *, PetscInt n, const Scalar *a, PetscInt lda, PetscInt *zerocol, PetscBool *finite);
/* x <- A^-1 x (transpose: A^-T x, not the conjugate transpose) for nrhs columns of the host array x (leading
   dimension ldx) */
PetscErrorCode SolveHost(Data *, PetscBool transpose, PetscInt nrhs, Scalar *x, PetscInt ldx);
} // namespace cudaz
#endif
} // namespace denselu
} // namespace kernels
} // namespace pgx
