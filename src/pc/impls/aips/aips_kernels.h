/* aips_kernels.h: the kernels of PCAIPS besides the tridiagonal solve (src/mat/utils/tridiag/):
   extraction of the tridiagonal part P of a CSR matrix, the product with P, and (cuda) the product with
   R = A - P stored as CSR or DIA and a fill. Declared once, implemented per backend. */
#pragma once
#include <petscsys.h>
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
  #include <complex>
#endif

namespace pgx
{
namespace kernels
{
namespace aips
{
/* The scalar of the cuda interface: PetscScalar as host code sees it (std::complex<double> in complex builds, where
   nvcc sees thrust::complex<double>, of the same layout; the cuda backend reinterprets the arrays). */
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
typedef std::complex<PetscReal> Scalar;
#else
typedef PetscScalar Scalar;
#endif

namespace reference
{
/* P of the n x n CSR matrix (local column indices; columns outside [0,n) are ignored):
   dl[i] = a(i,i-1), d[i] = a(i,i), du[i] = a(i,i+1) (0 where absent; dl[0] = du[n-1] = 0).
   Returns the number of rows whose diagonal entry is missing. */
PetscInt extract_tridiagonal(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscScalar *val, PetscScalar *dl, PetscScalar *d, PetscScalar *du);
/* Block offsets of P: a block ends after row i when du[i] == 0 and dl[i+1] == 0. offsets has room for
   n+1 entries; returns the number of blocks. */
PetscInt block_offsets(PetscInt n, const PetscScalar *dl, const PetscScalar *du, PetscInt *offsets);
/* t -= P y (trans: t -= P^T y) */
void sub_tridiagonal_product(PetscInt n, const PetscScalar *dl, const PetscScalar *d, const PetscScalar *du, PetscBool trans, const PetscScalar *y, PetscScalar *t);
/* R = A - P as CSR (the entries of P dropped): counts the entries (rowptr filled) when col is NULL */
void split_remainder(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscScalar *val, PetscInt *rrowptr, PetscInt *rcol, PetscScalar *rval);
/* Where extract_tridiagonal and split_remainder find their values in A's value array, from the pattern only,
   so that a backend holding A's values (AIJCUSPARSE) gathers P and R there: tripos[i], tripos[n+i],
   tripos[2n+i] = position of a(i,i-1), a(i,i), a(i,i+1) (-1 where absent); rpos[k] = position of R's k-th entry
   (R's rowptr/col as split_remainder gives them; rpos NULL: rrowptr only). Returns PETSC_FALSE when a row holds
   a column twice (the extraction would sum them: no map). */
PetscBool value_maps(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt *tripos, PetscInt *rrowptr, PetscInt *rcol, PetscInt *rpos);
} // namespace reference

namespace cuda
{
/* t = R y for R in CSR (device arrays) */
PetscErrorCode csr_product(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const Scalar *val, const Scalar *y, Scalar *t);
/* t = R y for R in DIA (device arrays; include/pgx/private/pgxdia.h): ndiag <= 32 offsets off[d] (column minus
   row, increasing) and values val[d * n + i] = R(i, i + off[d]) (0 where R has no entry), so that
       t[i] = sum over d = 0 .. ndiag-1 with 0 <= i + off[d] < n of val[d * n + i] * y[i + off[d]],
   summed in increasing d (increasing column: the order of csr_product on sorted columns, with zero terms added) */
PetscErrorCode dia_product(PetscInt n, PetscInt ndiag, const PetscInt *off, const Scalar *val, const Scalar *y, Scalar *t);
/* t += B g for B in CSR (device arrays): several ranks, the off-diagonal block of R (= of A) on the ghost values g */
PetscErrorCode csr_product_add(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const Scalar *val, const Scalar *g, Scalar *t);
/* reference::block_offsets on the device: dl, du device arrays of n entries; offsets (host, n + 1 entries) and *nb as
   the reference gives them (the block ends, in increasing order, selected on the device; nb + 1 entries come back) */
PetscErrorCode block_offsets(PetscInt n, const Scalar *dl, const Scalar *du, PetscInt *offsets, PetscInt *nb);
/* y[i] = v */
PetscErrorCode fill(PetscInt n, Scalar v, Scalar *y);
/* y[i] = pos[i] < 0 ? 0 : a[pos[i]] (device arrays) */
PetscErrorCode gather(PetscInt n, const PetscInt *pos, const Scalar *a, Scalar *y);
/* reference::value_maps's tripos on the device from A's device pattern (rowptr, col: n rows), one thread a row, and
   what the choice of R's storage needs, returned on the host: info[0] = 1 when a row's columns are not strictly
   increasing (unsorted or repeated: the caller then builds the maps on the host), info[1] = rows without a diagonal
   entry, info[2] = R's entries, info[3] = R's distinct offsets (column - row; maxdiag + 1 when there are more than
   maxdiag), and off[0 .. min(info[3], maxdiag)) those offsets, sorted (maxdiag <= 32). tripos: 3 n device entries. */
PetscErrorCode pattern_maps(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt maxdiag, PetscInt *tripos, PetscInt info[4], PetscInt *off);
/* PGXDIAScatter's map on the device: diapos[d n + i] = position (in A's values) of R(i, i + off[d]), -1 where R has no
   entry; off: the ndiag sorted offsets (host array; every offset of R among them) */
PetscErrorCode dia_positions(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt ndiag, const PetscInt *off, PetscInt *diapos);
} // namespace cuda
} // namespace aips
} // namespace kernels
} // namespace pgx
