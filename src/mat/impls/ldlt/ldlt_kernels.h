/* ldlt_kernels.h: the one kernel interface of MATSOLVERPGX's sparse LDL^T (reference and cuda backends).

   Mathematics. A is n x n, symmetric (A = A^T; real, or complex symmetric) or Hermitian (A = A^H). With a
   fill-reducing permutation P (perm[k] = the row of A that becomes row k of C = P A P^T),
       C = L D L^T    (symmetric)    or    C = L D L^H    (Hermitian),
   L unit lower triangular, D diagonal (real when Hermitian). "op(x)" below is x when symmetric and conj(x) when
   Hermitian. Right-looking column algorithm (Chen and Wang): for each column j, when all its descendants in
   the elimination tree are done,
       d_j = c_jj (as updated),  l_ij = c_ij / d_j  (i in struct(L_*j)),
       c_ik -= l_ij d_j op(l_kj)  for all i >= k in struct(L_*j)   (the updates of column j).
   Columns of one level of the elimination tree (level = 1 + max level of the children, leaves 0) do not
   depend on each other: a level is factored in parallel, its updates applied with atomics. The supernodal
   variant computes the same L and D by dense blocks (columns f..l-1 of a supernode share the structure of
   column f below the diagonal block).

   Static pivoting (no pivots are exchanged): a pivot with |d_j| <= small is replaced by sign(d_j) * repl
   (sign(d) = d/|d|, sign(0) = +1) and counted. With small = repl = 0 nothing is replaced; an exactly zero
   (or non-finite) pivot then stops the factorization and is reported as badcol.

   Storage of L: CSC, strictly lower part, 0-based, rows sorted within each column: lcolptr[n+1],
   lrow[nnzL], lval[nnzL]; D separately (d[n]). Symbolic inputs: the strictly lower pattern of C by rows
   (crowptr[n+1], ccol: sorted columns j < i of row i), i.e. the upper pattern by columns.

   Supernodal numeric phase on panels (SupernodalPlan below; reference::FactorSupernodalPlan and
   cuda::FactorSupernodal are twins). Supernode s (columns f..e-1, nc = e-f, rows R below the diagonal block,
   nr = |R|, m = nc+nr) owns a dense panel P_s, m x nc column major (leading dimension m) at offset pofs[s]: panel
   row r < nc is row f+r of C, row nc+a is R[a]; the upper triangle of its diagonal block is not used. Its parent
   in the supernodal tree is the supernode of parent[e-1]. Supernodes are processed level by level of that tree
   (leaves first). For each: LDL^T of the diagonal block with the pivot rule, L21 = A21 L11^-T D^-1, then the
   update C(R_a,R_b) -= sum_t L21(a,t) d_t op(L21(b,t)) (a >= b) is added into the panels of the ancestors: the
   columns R[b] of one ancestor p form a segment b0 <= b < b1 of R, and relmap gives, for each a >= b0, the panel
   row of R[a] in P_p (no search at run time). Supernodes of one level may update the same ancestor (atomics on
   the device). "Large" supernodes (SupernodalIsLarge) go through dense BLAS-3 (blocked LDL^T of the diagonal
   block with block size nb, trsm, syrkx/gemm into a contribution buffer, scatter-add); the others are factored
   one thread block each, one launch per level, in exactly the operation order of reference::FactorSupernodal.
   A zero/non-finite pivot does not stop the panel algorithm: the smallest such column is reported (the first one
   the sequential FactorSupernodal meets, since a bad column only spoils its ancestors, which come later).

   The symbolic phase (etree, counts, structure, levels, supernodes) is host code shared by both backends.
   Neither backend knows PETSc objects beyond plain arrays and sizes; the glue allocates, kernels fill. */
#pragma once
#include <pgx/private/pgxcompat.h>
#include <vector>
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
  #include <complex>
#endif

namespace pgx
{
namespace kernels
{
namespace ldlt
{
/* The scalar of this interface: PetscScalar as host code sees it. Under nvcc, PETSc's headers make PetscScalar
   thrust::complex<double> in complex builds, a distinct type of the same layout as the host's std::complex<double>;
   declaring the interface with the host's type gives both sides the same functions and the same NumericInfo (the
   cuda backend reinterprets the arrays). In host code Scalar is PetscScalar. */
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
typedef std::complex<PetscReal> Scalar;
#else
typedef PetscScalar Scalar;
#endif

/* Options of the numeric phase */
struct PivotRule {
  PetscReal small;     /* a pivot with |d| <= small is replaced */
  PetscReal repl;      /* by sign(d) * repl */
  PetscBool hermitian; /* LDL^H (conjugate the updates) instead of LDL^T */
};

/* Result of the numeric phase */
struct NumericInfo {
  PetscInt    nperturbed; /* pivots replaced */
  PetscInt    badcol;     /* first column (of C) with an exactly zero or non-finite pivot and no repair; -1 if none */
  Scalar      badvalue;   /* that pivot */
  PetscLogDouble flops;   /* floating point operations of the factorization */
};

namespace symbolic
{
/* Maximum matching size of the pattern of A (CSR, any order, n x n): n unless A is structurally singular */
PetscErrorCode StructuralRank(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt *rank);
/* Lower pattern of C = P A P^T by rows from the full (or either triangle's) CSR pattern of A:
   iperm[old] = new index. crowptr[n+1] (glue-allocated), *ccol allocated here with PetscMalloc1 (sorted, unique;
   two bucket passes, no sort). */
PetscErrorCode PermutedLower(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, PetscInt *crowptr, PetscInt **ccol);
/* Elimination tree (parent[j] = -1 for a root; Liu's algorithm with path compression) and column counts of L
   (strictly lower, colcount[j]) in O(nnz(C) alpha) without the structure (Gilbert, Ng and Peyton: postorder,
   first descendants, least common ancestors of consecutive leaves of each row subtree) */
PetscErrorCode EtreeCounts(PetscInt n, const PetscInt *crowptr, const PetscInt *ccol, PetscInt *parent, PetscInt *colcount);
/* Exact structure of L: lcolptr from colcount, lrow[nnzL] (rows sorted in each column). Built once per fundamental
   supernode (see Supernodes; its rows below the diagonal block R come out sorted from a walk of each row's subtree
   in the supernodal tree, O(sum of |R|)), then written out column by column: column f+t of the supernode is
   f+t+1..e-1 followed by R. */
PetscErrorCode Structure(PetscInt n, const PetscInt *crowptr, const PetscInt *ccol, const PetscInt *parent, const PetscInt *lcolptr, PetscInt *lrow);
/* Level sets of the tree: level[j], columns of level l are order[lptr[l]..lptr[l+1]-1] (increasing), lptr[n+1] */
PetscErrorCode Levels(PetscInt n, const PetscInt *parent, PetscInt *level, PetscInt *order, PetscInt *lptr, PetscInt *nlevels);
/* Fundamental supernodes: columns j and j+1 share a supernode when parent[j] = j+1, j+1 has no other child
   and colcount[j] = colcount[j+1] + 1 (same structure below the diagonal block). Supernode s is columns
   snptr[s]..snptr[s+1]-1; snptr[n+1]. */
PetscErrorCode Supernodes(PetscInt n, const PetscInt *parent, const PetscInt *colcount, PetscInt *snptr, PetscInt *nsuper);
/* For each entry k of A's CSR (original numbering), where its value goes: dest[k] = position in lval
   (lower entries of C), nnzL + j (diagonal j), or -1 (upper entries of C, not read) */
PetscErrorCode ScatterMap(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt *dest);

/* Schedule and maps of the supernodal numeric phase on panels (see the top of this file); built once per pattern */
struct SupernodalPlan {
  PetscInt                n = 0, nnzL = 0, nnzA = 0, nsuper = 0, nslevels = 0;
  std::vector<PetscInt>   snptr;   /* [nsuper+1] first column of each supernode */
  std::vector<PetscInt>   sup;     /* [n] supernode of each column */
  std::vector<PetscInt>   nr;      /* [nsuper] rows below the diagonal block */
  std::vector<PetscInt>   sparent; /* [nsuper] parent in the supernodal tree, -1 for a root */
  std::vector<PetscInt>   slevel, sorder, slptr; /* levels of the supernodal tree: supernodes of level l are sorder[slptr[l]..slptr[l+1]-1] */
  std::vector<PetscInt64> pofs;    /* [nsuper+1] panel offsets (sum of m*nc) */
  std::vector<PetscInt>   segptr;  /* [nsuper+1] the segments of supernode s are segptr[s]..segptr[s+1]-1 */
  std::vector<PetscInt>   segsn;   /* [nseg] the ancestor that a segment updates */
  std::vector<PetscInt>   segb0;   /* [nseg] first index b of R in the segment (it ends where the next one starts, or at nr) */
  std::vector<PetscInt64> segrel;  /* [nseg] offset in relmap: relmap[segrel + a - b0] for b0 <= a < nr */
  std::vector<PetscInt>   relmap;  /* panel row of R[a] in the ancestor's panel */
  std::vector<PetscInt64> pdest;   /* [nnzA] where each entry of A (CSR order) goes in the panels, -1: not read */
  PetscLogDouble          flops = 0; /* floating point operations of the factorization (as reference::FactorSupernodal counts them) */
};
/* Build the plan from the structure of L (lcolptr, lrow), the etree, the supernodes, A's pattern (rowptr, col with
   nnzA = rowptr[n]; iperm as for ScatterMap) and ScatterMap's dest (arrays sized from counts first; relmap filled
   ancestor by ancestor through a row -> panel row table, no searches) */
PetscErrorCode SupernodalPlanCreate(PetscInt n, const PetscInt *lcolptr, const PetscInt *lrow, const PetscInt *parent, PetscInt nsuper, const PetscInt *snptr, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, const PetscInt *dest, SupernodalPlan *plan);
/* The first, straightforward algorithms (reference/ldlt_symbolic_simple.cxx), kept as the specification of the
   fast ones above: the same arguments and exactly the same results (row subtrees column by column in O(nnz(L)),
   the plan by searches), compared entry by entry by the tests and by -mat_pgx_ldlt_check_symbolic. */
namespace simple
{
PetscErrorCode PermutedLower(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, PetscInt *crowptr, PetscInt **ccol);
PetscErrorCode EtreeCounts(PetscInt n, const PetscInt *crowptr, const PetscInt *ccol, PetscInt *parent, PetscInt *colcount);
PetscErrorCode Structure(PetscInt n, const PetscInt *crowptr, const PetscInt *ccol, const PetscInt *parent, const PetscInt *lcolptr, PetscInt *lrow);
PetscErrorCode SupernodalPlanCreate(PetscInt n, const PetscInt *lcolptr, const PetscInt *lrow, const PetscInt *parent, PetscInt nsuper, const PetscInt *snptr, PetscInt nnzA, const PetscInt *dest, SupernodalPlan *plan);
/* Redo the symbolic phase of A's pattern (rowptr, col; iperm[old] = new) with the simple algorithms and compare
   the given results of the fast ones (plan may be NULL): *what = NULL when every entry is the same, else the name
   of the first array that differs */
PetscErrorCode Check(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, const PetscInt *parent, const PetscInt *colcount, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt nsuper, const PetscInt *snptr, const PetscInt *dest, const SupernodalPlan *plan, const char **what);
} // namespace simple
/* Whether supernode (nc columns, nr rows below) takes the dense BLAS-3 path: nc >= large_min or nr >= 8 large_min */
static inline bool SupernodalIsLarge(PetscInt nc, PetscInt nr, PetscInt large_min)
{
  return nc >= large_min || nr >= 8 * large_min;
}
} // namespace symbolic

namespace reference
{
#if !defined(__CUDACC__) /* host code (the device code has its own twins in cuda/) */
/* op(x) of the mathematics above: x, or conj(x) when Hermitian */
static inline PetscScalar Op(PetscScalar x, PetscBool hermitian)
{
  return hermitian ? PetscConj(x) : x;
}

/* The static pivoting rule above for pivot d_j (host backends: the column, supernodal and panel factorizations).
   A replaced pivot is counted; an exactly zero (with repl == 0) or non-finite pivot is recorded as badcol when j
   is the smallest such column so far, left in place, and false is returned (the caller stops or goes on). */
static inline bool ApplyPivotRule(PetscInt j, PetscScalar *dj, const PivotRule *rule, NumericInfo *info)
{
  PetscScalar d  = *dj;
  PetscReal   ad = PetscAbsScalar(d);
  if (rule->hermitian) d = PetscRealPart(d);
  if (PetscIsInfOrNanScalar(d) || (ad == 0 && rule->repl == 0)) {
    if (info->badcol < 0 || j < info->badcol) {
      info->badcol   = j;
      info->badvalue = d;
    }
    return false;
  }
  if (ad <= rule->small && rule->repl > 0) {
    d = ad == 0 ? (PetscScalar)rule->repl : d * (rule->repl / ad);
    info->nperturbed++;
  }
  *dj = d;
  return true;
}
#endif

/* Load the values of A (aval in A's CSR order, dest from ScatterMap) into lval (zeros elsewhere) and d */
PetscErrorCode Load(PetscInt n, PetscInt nnzA, const Scalar *aval, const PetscInt *dest, PetscInt nnzL, Scalar *lval, Scalar *d, PetscBool hermitian);
/* Right-looking column LDL^T in the level order (order, lptr, nlevels from Levels) */
PetscErrorCode FactorColumn(PetscInt n, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt nlevels, const PetscInt *order, const PetscInt *lptr, const PivotRule *rule, Scalar *lval, Scalar *d, NumericInfo *info);
/* Supernodal LDL^T (dense blocks, right-looking over supernodes in column order) on the same storage */
PetscErrorCode FactorSupernodal(PetscInt n, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt nsuper, const PetscInt *snptr, const PivotRule *rule, Scalar *lval, Scalar *d, NumericInfo *info);
/* The panel algorithm of the cuda backend run on the host (same plan, schedule, blocking and operation order, in
   plain loops): loads aval (A's CSR order) into panels[plan.pofs[nsuper]], factors them, writes lval and d (CSC
   storage). large_min and nb as for cuda::AnalyzeSupernodal. Real and complex; Hermitian conjugates the updates. */
PetscErrorCode FactorSupernodalPlan(const symbolic::SupernodalPlan *plan, const PetscInt *lcolptr, const PetscInt *lrow, const Scalar *aval, PetscInt large_min, PetscInt nb, const PivotRule *rule, Scalar *panels, Scalar *lval, Scalar *d, NumericInfo *info);
/* The supernodal solve of the cuda backend on the host: X = P^T (L D op(L)^T)^-1 P B from the factored panels of
   FactorSupernodalPlan (same arguments as Solve otherwise). Forward: level by level of the supernodal tree, each
   supernode solves with its unit lower diagonal block (column by column) and subtracts L21 y_s from the rows R;
   then y /= d; backward, levels in reverse: y_s -= op(L21)^T y_R, then the unit upper op(L11)^T solve, row by row
   from the last. B and X may alias. work[n*nrhs]. */
PetscErrorCode SolvePanels(const symbolic::SupernodalPlan *plan, const PetscInt *lcolptr, const PetscInt *lrow, const Scalar *panels, const PetscInt *perm, PetscBool hermitian, PetscInt nrhs, const Scalar *B, Scalar *X, Scalar *work);
/* X = P^T (L D op(L)^T)^-1 P B for nrhs columns (leading dimension ldb = n): perm as above; B and X may alias.
   work[n*nrhs]. */
PetscErrorCode Solve(PetscInt n, const PetscInt *perm, const PetscInt *lcolptr, const PetscInt *lrow, const Scalar *lval, const Scalar *d, PetscBool hermitian, PetscInt nrhs, const Scalar *B, Scalar *X, Scalar *work);
/* Inertia from D (real parts; Hermitian or real symmetric): counts of positive, negative, zero pivots */
PetscErrorCode Inertia(PetscInt n, const Scalar *d, PetscInt *npos, PetscInt *nneg, PetscInt *nzero);
} // namespace reference

#if PGX_HAVE_CUDA
namespace cuda
{
/* Device data of one factor: structure, level schedule, values */
struct Data;
PetscErrorCode Create(Data **);
PetscErrorCode Destroy(Data **);
/* Upload the symbolic structure (host arrays) */
PetscErrorCode Analyze(Data *, PetscInt n, const PetscInt *perm, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt nlevels, const PetscInt *order, const PetscInt *lptr, PetscInt nnzA, const PetscInt *dest);
/* Load A's values (host array, A's CSR order) and factor with the level-scheduled column algorithm */
PetscErrorCode FactorColumn(Data *, const Scalar *aval, const PivotRule *rule, NumericInfo *info);
/* Supernodal numeric phase (after Analyze): upload the plan, size every buffer (panels, contribution and work
   buffers for the supernodes with SupernodalIsLarge(nc, nr, large_min), diagonal blocks of nb <= 64 columns);
   a PETSC_ERR_MEM error says how many bytes are needed when they do not fit in the free GPU memory (or in
   maxbytes, when maxbytes > 0: for testing that error) */
PetscErrorCode AnalyzeSupernodal(Data *, const symbolic::SupernodalPlan *plan, PetscInt large_min, PetscInt nb, size_t maxbytes);
/* Load A's values and factor on the panels (level by level, batched small supernodes, cuBLAS for large ones),
   then write L and D in the CSC storage of the solves */
PetscErrorCode FactorSupernodal(Data *, const Scalar *aval, const PivotRule *rule, NumericInfo *info);
/* Solve on host arrays (B, X of n*nrhs; staged through the device): the level-scheduled column solve after
   FactorColumn, the supernodal one on the panels (reference::SolvePanels is its host twin) after FactorSupernodal */
PetscErrorCode Solve(Data *, PetscInt nrhs, const Scalar *B, Scalar *X);
/* L and D back to the host (tests, inertia) */
PetscErrorCode GetFactor(const Data *, Scalar *lval, Scalar *d);
} // namespace cuda
#endif
} // namespace ldlt
} // namespace kernels
} // namespace pgx
