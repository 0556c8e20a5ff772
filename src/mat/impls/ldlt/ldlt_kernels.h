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

   The symbolic phase (etree, counts, structure, levels, supernodes) is host code shared by both backends.
   Neither backend knows PETSc objects beyond plain arrays and sizes; the glue allocates, kernels fill. */
#pragma once
#include <pgx/private/pgxcompat.h>

namespace pgx
{
namespace kernels
{
namespace ldlt
{
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
  PetscScalar badvalue;   /* that pivot */
  PetscLogDouble flops;   /* floating point operations of the factorization */
};

namespace symbolic
{
/* Maximum matching size of the pattern of A (CSR, any order, n x n): n unless A is structurally singular */
PetscErrorCode StructuralRank(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt *rank);
/* Lower pattern of C = P A P^T by rows from the full (or either triangle's) CSR pattern of A:
   iperm[old] = new index. crowptr[n+1] (glue-allocated), *ccol allocated here with PetscMalloc1 (sorted, unique). */
PetscErrorCode PermutedLower(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscInt *iperm, PetscInt *crowptr, PetscInt **ccol);
/* Elimination tree (parent[j] = -1 for a root) and column counts of L (strictly lower, colcount[j]) */
PetscErrorCode EtreeCounts(PetscInt n, const PetscInt *crowptr, const PetscInt *ccol, PetscInt *parent, PetscInt *colcount);
/* Exact structure of L: lcolptr from colcount, lrow[nnzL] (rows sorted in each column) */
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
} // namespace symbolic

namespace reference
{
/* Load the values of A (aval in A's CSR order, dest from ScatterMap) into lval (zeros elsewhere) and d */
PetscErrorCode Load(PetscInt n, PetscInt nnzA, const PetscScalar *aval, const PetscInt *dest, PetscInt nnzL, PetscScalar *lval, PetscScalar *d, PetscBool hermitian);
/* Right-looking column LDL^T in the level order (order, lptr, nlevels from Levels) */
PetscErrorCode FactorColumn(PetscInt n, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt nlevels, const PetscInt *order, const PetscInt *lptr, const PivotRule *rule, PetscScalar *lval, PetscScalar *d, NumericInfo *info);
/* Supernodal LDL^T (dense blocks, right-looking over supernodes in column order) on the same storage */
PetscErrorCode FactorSupernodal(PetscInt n, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt nsuper, const PetscInt *snptr, const PivotRule *rule, PetscScalar *lval, PetscScalar *d, NumericInfo *info);
/* X = P^T (L D op(L)^T)^-1 P B for nrhs columns (leading dimension ldb = n): perm as above; B and X may alias.
   work[n*nrhs]. */
PetscErrorCode Solve(PetscInt n, const PetscInt *perm, const PetscInt *lcolptr, const PetscInt *lrow, const PetscScalar *lval, const PetscScalar *d, PetscBool hermitian, PetscInt nrhs, const PetscScalar *B, PetscScalar *X, PetscScalar *work);
/* Inertia from D (real parts; Hermitian or real symmetric): counts of positive, negative, zero pivots */
PetscErrorCode Inertia(PetscInt n, const PetscScalar *d, PetscInt *npos, PetscInt *nneg, PetscInt *nzero);
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
PetscErrorCode FactorColumn(Data *, const PetscScalar *aval, const PivotRule *rule, NumericInfo *info);
/* Solve on host arrays (B, X of n*nrhs; staged through the device) */
PetscErrorCode Solve(Data *, PetscInt nrhs, const PetscScalar *B, PetscScalar *X);
/* L and D back to the host (tests, inertia) */
PetscErrorCode GetFactor(const Data *, PetscScalar *lval, PetscScalar *d);
} // namespace cuda
#endif
} // namespace ldlt
} // namespace kernels
} // namespace pgx
