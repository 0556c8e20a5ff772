/* dilu_kernels.h: the one kernel interface of PCDILU (reference and cuda backends).

   DILU of a square matrix A = L + D + U with respect to an elimination order: M = (E+L) E^-1 (E+U),
   E diagonal with diag(M) = diag(A):
       E_ii = a_ii + shift - sum_{j before i, a_ij != 0, a_ji != 0} a_ij a_ji / E_jj.
   The elimination order is given by rank[]: row i comes before row j when rank[i] < rank[j]. Entry
   (i,j) is "lower" when rank[j] < rank[i] and "upper" when rank[j] > rank[i]. With rank = identity
   this is the DILU of A's own ordering (schedule natural); with rank = position after sorting the rows
   by color it is the DILU of P A P^T applied to vectors in A's ordering (schedule multicolor). Vectors
   are always in A's ordering: no permuted copies.

   Apply: forward (E+L) z = r, backward (E+U) y = E z, i.e. y = z - E^-1 U y.
   Transpose: M^T = (E+U^T) E^-1 (E+L^T) is the DILU of A^T with the same rank and the same E, so
   M^-T r = Apply() on A^T's CSR (with A^T's own sweep schedules) and A's E.

   A schedule of one sweep: rows order[lptr[l]] .. order[lptr[l+1]-1] form level l; they depend only
   on rows of earlier levels (lower sweep: on their lower neighbors; upper sweep: upper neighbors).

   CSR inputs: 0-based, square n x n, columns sorted within each row (PETSc AIJ), no duplicates.
   The host reference backend is plain sequential C++ and is the specification. The cuda backend keeps
   its device data in an opaque Data object (analysis once, values and E on every numeric setup).
   Neither backend knows PETSc objects beyond plain arrays and sizes. */
#pragma once
#include <pgx/private/pgxcompat.h>
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
  #include <complex>
#endif

namespace pgx
{
namespace kernels
{
namespace dilu
{
/* The scalar of this interface: PetscScalar as host code sees it. Under nvcc, PETSc's headers make PetscScalar
   thrust::complex<double> in complex builds, a distinct type of the same layout as the host's std::complex<double>;
   declaring the interface with the host's type gives both sides the same functions (the cuda backend reinterprets
   the arrays as its device scalar). In host code, and in real builds, Scalar is PetscScalar. */
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
typedef std::complex<PetscReal> Scalar;
#else
typedef PetscScalar Scalar;
#endif

/* The multicolor schedule's coloring with wave length w (both backends compute the same colors): greedy in
   A's row order, row v taking, among the colors not used by its lower neighbors (index < v, in A or A^T), the
   smallest color larger than all of theirs when that is < w, else the smallest one. On stencils in
   lexicographic order this gives color = (wavefront level) mod w: most couplings keep their natural direction
   (in the lower factor when they are there in natural order), which costs far fewer iterations than a
   random-priority (Jones-Plassmann) coloring with as many colors. On a 7-point stencil w colors (w = 2:
   red-black); the apply costs two dependent steps per color; the Krylov iterations change with w (not monotonically).
   w = 1 is the plain greedy coloring (smallest free color). PCDILU's -pc_dilu_color_wave, default
   DILU_COLOR_WAVE, at most DILU_COLOR_WAVE_MAX (the cuda coloring keeps the first 64 colors in one word). */
#define DILU_COLOR_WAVE     8
#define DILU_COLOR_WAVE_MAX 64

namespace reference
{
/* ------------------------------------------------------------------ analysis (pattern only) */
/* diag[i] = position of a_ii in colidx, or -1 when row i stores no diagonal entry */
PetscErrorCode FindDiagonal(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *diag);
/* For each lower entry k = (i,j) (rank[j] < rank[i]): pair[k] = position of (j,i), or -1 when A does not
   store a_ji; pair[k] = -1 for the other entries. rank = NULL means the identity. */
PetscErrorCode FindPairs(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, PetscInt *pair);
/* Distance-1 coloring of the symmetrized graph of A (diagonal ignored) with wave length wave (1..DILU_COLOR_WAVE_MAX),
   see DILU_COLOR_WAVE. Sequential here; the cuda backend computes the same colors in rounds (a row is colored in
   the round after all its lower neighbors, i.e. rounds = level sets of the lower dependency graph). */
PetscErrorCode Color(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt wave, PetscInt *color, PetscInt *ncolors);
/* the same with the default wave DILU_COLOR_WAVE */
PetscErrorCode Color(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *color, PetscInt *ncolors);
/* rank[i] = position of row i after a stable sort of the rows by color */
PetscErrorCode RankFromColors(PetscInt n, const PetscInt *color, PetscInt ncolors, PetscInt *rank);
/* Level sets of the lower (upper = PETSC_FALSE) or upper (PETSC_TRUE) dependency graph w.r.t. rank
   (NULL: identity): order[n], lptr[n+1] (only nlevels+1 entries used) */
PetscErrorCode LevelSets(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, PetscBool upper, PetscInt *order, PetscInt *lptr, PetscInt *nlevels);
/* The multicolor schedule: colors in increasing (lower sweep) or decreasing (upper sweep) order */
PetscErrorCode ColorSchedule(PetscInt n, const PetscInt *color, PetscInt ncolors, PetscBool upper, PetscInt *order, PetscInt *lptr);
/* CSR transpose: at_rowptr[n+1], at_colidx[nnz] (sorted), perm[nnz]: A^T's entry k is A's entry perm[k] */
PetscErrorCode Transpose(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscInt *at_rowptr, PetscInt *at_colidx, PetscInt *perm);

/* ------------------------------------------------------------------ numeric */
/* E in the lower schedule. badrow = the row whose E_ii is zero or not finite, or whose a_ii + shift is zero
   (a missing or zero diagonal), that comes first in the elimination order (smallest rank; the later
   failures are usually its consequences), as a row of A (original numbering); -1 if none. */
PetscErrorCode Factor(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const Scalar *val, const PetscInt *rank, const PetscInt *diag, const PetscInt *pair, PetscInt nlevels, const PetscInt *order, const PetscInt *lptr, PetscReal shift, Scalar *E, PetscInt *badrow);
/* y = M^-1 r (r and y may be the same array) */
PetscErrorCode Apply(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const Scalar *val, const PetscInt *rank, const Scalar *E, PetscInt nlower, const PetscInt *lorder, const PetscInt *llptr, PetscInt nupper, const PetscInt *uorder, const PetscInt *ulptr, const Scalar *r, Scalar *y);

/* Richardson steps with M as preconditioner, x <- x + M^-1 (b - A x), its times (PCApplyRichardson), fused:
   the forward sweep forms the residual of each row itself before its row operation,
       t_i = b_i - sum_k a_ik x_k   (the whole row of A, in its CSR order, x in A's ordering),
       z_i = (t_i - sum_{lower j} a_ij z_j) / E_ii,
   and the backward sweep adds its result to x instead of writing it out:
       y_i = z_i - E_ii^-1 sum_{upper j} a_ij y_j,   x_i += y_i,
   so a step reads A once (forward) and U once (backward), with no separate product and vector passes. The
   forward sweep reads only the x of the step before (x changes in the backward sweep). guesszero: x starts at 0
   and the first step uses t = b (no product) and writes x_i = y_i. The residual's sum runs in A's CSR order
   (PETSc's MatMult sums from 0 and then subtracts from b: the same to round-off). z: work array of n. */
PetscErrorCode Richardson(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const Scalar *val, const PetscInt *rank, const Scalar *E, PetscInt nlower, const PetscInt *lorder, const PetscInt *llptr, PetscInt nupper, const PetscInt *uorder, const PetscInt *ulptr, const Scalar *b, Scalar *x, PetscInt its, PetscBool guesszero, Scalar *z);

/* ------------------------------------------------------------------ the host backend's data
   Factor() and Apply() above state the arithmetic on A's CSR with per-entry tests; the host backend runs
   the same arithmetic, bit for bit (each row's terms in the same order), on data laid out once per
   analysis:
   - the rows in an elimination order: position p holds row perm[p]. Multicolor: by rank (colors).
     Natural: by wavefront (level of a row = 1 + the largest level of the earlier rows coupled to it in
     A or A^T), row order within a level: the rows a row depends on still come first, and consecutive rows
     are mostly independent, so the divisions by E overlap (in plain row order each row would wait for the
     previous row's division);
   - each position's lower and upper entries contiguous in their CSR order, columns given as positions,
     values copied from A at each numeric setup (reading A in its own order); for each lower entry the
     position of its pair a_ji among the upper entries; E in elimination order.
   The forward sweep visits positions 0..n-1 and the backward one n-1..0: every row comes after all the
   rows it depends on, and a row's result does not depend on which independent rows came first, so this
   equals the level-by-level schedules of Factor() and Apply(). An apply gathers r into elimination order
   (one work vector, allocated by the analysis), sweeps there in place and scatters y back: the sweeps
   stream through memory instead of visiting every cache line once per level or color. */
struct Host;

PetscErrorCode HostCreate(Host **);
PetscErrorCode HostDestroy(Host **);
/* The layout of A's pattern (or A^T's) for rank (NULL: natural). pair: FindPairs() with the same rank, or
   NULL when E will come from HostSetValues(). */
PetscErrorCode HostAnalyze(Host *h, PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const PetscInt *rank, const PetscInt *pair);
/* Copy the values (nnz, in the analyzed CSR's order) and compute E (returned in A's row order) with
   badrow as in Factor(); needs HostAnalyze() with pair */
PetscErrorCode HostFactor(Host *h, const Scalar *val, PetscReal shift, Scalar *E, PetscInt *badrow);
/* Copy the values and take E (in A's row order) from elsewhere: A's E for A^T's data */
PetscErrorCode HostSetValues(Host *h, const Scalar *val, const Scalar *E);
/* y = M^-1 r, as Apply() (r and y may be the same array) */
PetscErrorCode HostApply(Host *h, const Scalar *r, Scalar *y);
/* Richardson() on the host layout, bit for bit: rowptr, colidx, val are the analyzed CSR of A (its own
   ordering, the values the factorization read) for the residual; b and x (x != b) in A's ordering */
PetscErrorCode HostRichardson(Host *h, const PetscInt *rowptr, const PetscInt *colidx, const Scalar *val, const Scalar *b, Scalar *x, PetscInt its, PetscBool guesszero);
} // namespace reference

namespace cuda
{
/* Device data of one matrix: the pattern split into schedule-ordered L and U parts, values, E, flags */
struct Data;

PetscErrorCode Create(Data **);
PetscErrorCode Destroy(Data **);
/* The wave length of the GPU coloring (see DILU_COLOR_WAVE; 1..DILU_COLOR_WAVE_MAX, default DILU_COLOR_WAVE);
   used by the next Analyze() */
PetscErrorCode SetColorWave(Data *d, PetscInt wave);
/* Analysis from the host CSR pattern. multicolor: colors computed on the GPU (SetColorWave()) unless rank is given
   (rank, e.g. of A when d holds A^T, with ncolors colors in color[]); natural: level sets.
   Outputs (may be NULL): the number of lower and upper levels (multicolor: colors). */
PetscErrorCode Analyze(Data *d, PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscBool multicolor, const PetscInt *color, PetscInt ncolors, PetscInt *nlower, PetscInt *nupper);
/* The same from the pattern in device memory (e.g. PETSc's AIJCUSPARSE arrays, full rows, PetscInt indices), copied
   on the device; the colors are computed on the GPU. Output: nnz (read from drowptr[n]). */
PetscErrorCode AnalyzeDevice(Data *d, PetscInt n, const PetscInt *drowptr, const PetscInt *dcolidx, PetscBool multicolor, PetscInt *nnz, PetscInt *nlower, PetscInt *nupper);
/* Multicolor coloring of the next Analyze(): by rounds of launches (flg, the default), or in one sync-free launch */
PetscErrorCode SetColorRounds(Data *d, PetscBool flg);
/* Rounds (SetColorRounds): all in one cooperative launch with a grid synchronization between rounds where the device
   allows (flg, the default), else one launch per round; the same colors */
PetscErrorCode SetColorCoop(Data *d, PetscBool flg);
/* How the last coloring ran: path 0 sync-free, 1 a launch per round, 2 one cooperative launch (rounds: its rounds),
   -1 none (colors uploaded, or natural) */
PetscErrorCode GetColorPath(Data *d, PetscInt *path, PetscInt *rounds);
/* The colors found by Analyze (host array of n, or NULL for the count only; multicolor only) */
PetscErrorCode GetColors(Data *d, PetscInt *color, PetscInt *ncolors);
/* Upload the values (host array, nnz of the analyzed pattern) and compute E unless skipE (then E
   must come from ShareE). badrow as in the reference. */
PetscErrorCode Factor(Data *d, const Scalar *val, PetscReal shift, PetscBool skipE, PetscInt *badrow);
/* The same with the values already on the device (nnz of them, in A's CSR order): no host transfer */
PetscErrorCode FactorDevice(Data *d, const Scalar *d_val, PetscReal shift, PetscInt *badrow);
/* Copy E from another Data with the same n (A's E into A^T's data); natural: also E into the SpSV
   matrix's diagonal (dst == src: only that) */
PetscErrorCode ShareE(Data *dst, const Data *src);
/* y = M^-1 r on device arrays (may be the same array) */
PetscErrorCode Apply(Data *d, const Scalar *r, Scalar *y);
/* its Richardson steps x <- x + M^-1 (b - A x) on device arrays, as the reference's Richardson() (to round-off:
   the row sums run in another order), A the device copy of the factored matrix (its values as of the last
   Factor/FactorDevice). x0: the initial guess (ignored when guesszero; may be x, else copied into x first); b must
   not be x. Multicolor, and natural with per-level sweeps: fused (the forward sweep forms each row's residual, the
   backward sweep adds into x: A and U are read once a step), replayed from a CUDA graph keyed on (b, x, its), one
   for a zero and one for a nonzero guess; natural with SpSV (the default): unfused steps, a residual kernel, Apply()
   and an axpy. */
PetscErrorCode Richardson(Data *d, const Scalar *b, const Scalar *x0, Scalar *x, PetscInt its, PetscBool guesszero);
/* natural schedule, the apply's sweeps: cuSPARSE SpSV on A's values with E on the diagonal (default; needs
   a stored diagonal in every row, else the per-level sweeps run) or one launch per level */
enum { NATURAL_SPSV = 0, NATURAL_LEVELS = 1 };
PetscErrorCode SetNaturalSweeps(Data *d, PetscInt sweeps);
/* the sweeps the apply actually runs (NATURAL_LEVELS for multicolor) */
PetscErrorCode GetNaturalSweeps(const Data *d, PetscInt *sweeps);
/* replay per-level (per-color) launches (the apply unless it runs SpSV, and E's computation) from CUDA
   graphs (default, PETSC_TRUE) or launch directly */
PetscErrorCode SetGraph(Data *d, PetscBool graph);
/* multicolor: a matrix of at most nmax rows runs both sweeps of the apply in one kernel of one thread block,
   color after color with a barrier between colors, instead of one launch per color (coarse multigrid levels:
   many colors, few rows); same bits as the per-color launches. Default 0: never (PCDILU says why). */
PetscErrorCode SetSingleBlockRows(Data *d, PetscInt nmax);
/* multicolor (per-color launches from CUDA graphs), calls whose r and y are not the arrays the apply graph was
   captured on (device Vecs: GMRES's basis, multigrid smoothers): gather r into the color order once, run the sweeps
   on rank-space arrays from a graph on fixed arrays and scatter y once (default PETSC_TRUE), or copy r and y through
   staging arrays around the row-by-row sweeps (PETSC_FALSE). Same bits either way. */
PetscErrorCode SetPermutedApply(Data *d, PetscBool perm);
/* multicolor sweeps: launch each color's kernel as a programmatic dependent launch of the previous one (compute
   capability 9.0 and later; ignored below): every color after the apply's first loads its rows' entries, E and r
   before it waits for the previous color, and lets the next color launch as soon as it may start. Default
   PETSC_FALSE here (PCDILU's -pc_dilu_pdl defaults to true). Same bits either way. GetPDL: whether it is in effect. */
PetscErrorCode SetPDL(Data *d, PetscBool pdl);
PetscErrorCode GetPDL(const Data *d, PetscBool *pdl);
/* the device copy of A that the factorization read (A's CSR in its own ordering, values as of the last
   Factor/FactorDevice): the resident KSPs use it for their products instead of a second copy */
PetscErrorCode GetDeviceMatrix(const Data *d, PetscInt *n, PetscInt *nnz, const PetscInt **rowptr, const PetscInt **colidx, const Scalar **val);
/* whether the apply runs that single-block kernel */
PetscErrorCode GetSingleBlock(const Data *d, PetscBool *single);
/* y = Inf (the factor-failure convention) */
PetscErrorCode FillInf(PetscInt n, Scalar *y);
/* E to the host (tests) */
PetscErrorCode GetE(const Data *d, Scalar *E);
} // namespace cuda
} // namespace dilu
} // namespace kernels
} // namespace pgx
