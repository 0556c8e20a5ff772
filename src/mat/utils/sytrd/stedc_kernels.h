/* stedc_kernels.h: the matrix kernels of PGX's divide and conquer eigensolver for a real symmetric tridiagonal
   T (Cuppen's method, as LAPACK dstedc/dlaed0 and MAGMA's dstedx organise it), declared once and implemented
   per backend (reference/: host loops and host BLAS dgemm; cuda/: cuBLAS and small kernels on PGX's stream).

   Mathematics (the driver, stedc.cxx, does all of this on the host except the matrix work below). T of order
   m is torn at n1 = m/2: with b = T(n1, n1-1), rho = |b|, s = sign(b),
       T = diag(T1 - rho e_{n1-1} e_{n1-1}^T, T2 - rho e_0 e_0^T) + rho u u^T,   u = [e_{n1-1}; s e_0],
   recursively down to leaves of at most `leaf` rows (LAPACK dsteqr on the host). With the halves solved,
   Ti' = Qi Di Qi^T, the merge is T = Q (D + rho z z^T) Q^T with Q = diag(Q1, Q2), z = Q^T u (the last row of
   Q1 and s times the first row of Q2). Deflation (as LAPACK dlaed2 describes it): components with
   rho |z_i| <= tol are eigenpairs already (column i of Q); two close diagonal entries are made one by a
   Givens rotation of the pair of columns of Q (a chain of rotations, applied in order). The k remaining
   eigenvalues are the roots of the secular equation (LAPACK dlaed4), and the eigenvectors of D + rho z z^T
   are S(:,j) = zh ./ (d - lambda_j), normalized, with zh recomputed from the roots (Gu and Eisenstat) so
   that S is numerically orthogonal. The merged eigenvectors are Q S: THE gemm of the method.

   Column types (dlaed2's): after the rotations a column of Q is nonzero in the upper n1 rows only (type 1),
   in both halves (type 2) or in the lower n2 rows only (type 3). The driver gathers the undeflated columns
   ordered [type 1, type 2, type 3] into Qup (n1 rows, types 1 and 2) and Qlo (n2 rows, types 2 and 3) and
   orders the rows of S the same way, so the product is two gemms: Q S = [Qup S(0:k1+k2,:); Qlo S(k1:k,:)].

   The secular equations on the device (the cuda backend's default, -eps_pgx_stedc_secular device): the roots
   by PGX's root finder (stedc_secular.h: each root as lambda_j = d_o + tau_j about its nearer pole o), then
       zh_i = sign(z_i) sqrt( (lambda_i - d_i) prod_{j != i} (d_i - lambda_j) / (d_i - d_j) )
   (a product of ratios, each near 1 in magnitude: no overflow; d_i - lambda_j = (d_i - d_o) - tau_j) and
   S(:, j) = zh ./ (d - lambda_j), normalized. The reference kernels below are the same computation in host
   loops (the specification of the cuda ones, and a host path of its own); the host's default stays LAPACK
   dlaed4 in the driver.

   Storage: all matrices are column-major with a leading dimension, in the backend's memory (host arrays for
   the reference, device arrays for cuda); index lists and rotations are host arrays. The driver owns every
   buffer; the kernels allocate nothing except, on cuda, what they upload (index lists, rotations) into the
   scratch given to them.

   Input contract: sizes >= 0; a kernel with an empty range does nothing; source and destination of a gather
   do not overlap. Real (PetscReal) only: T and its eigenvectors are real also for complex Hermitian A. */
#pragma once
#include <petscsys.h>

namespace pgx
{
namespace kernels
{
namespace stedc
{
/* A Givens rotation of columns i and j: (x_i, x_j) <- (c x_i + s x_j, c x_j - s x_i) */
struct Rotation {
  PetscInt  i, j;
  PetscReal c, s;
};

namespace reference
{
/* dst(0:m-1, p) = src(0:m-1, idx[p]) for p = 0..ncol-1 */
void gather_columns(PetscInt m, PetscInt ncol, const PetscInt *idx, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd);
/* the rotations rot[0..nrot-1], in order, on rows 0..m-1 of Q */
void rotate_columns(PetscInt m, PetscInt nrot, const Rotation *rot, PetscReal *Q, PetscInt ldq);
/* C (m x n) = A (m x k) B (k x n); C = 0 when k = 0 */
void gemm(PetscInt m, PetscInt n, PetscInt k, const PetscReal *A, PetscInt lda, const PetscReal *B, PetscInt ldb, PetscReal *C, PetscInt ldc);
/* dst (m x n, ldd) = src (m x n, lds): the copies between the host and the backend's memory (here both host) */
void copy(PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd);
/* A (m x n) = 0 */
void zero(PetscInt m, PetscInt n, PetscReal *A, PetscInt lda);
/* The secular equation of diag(d) + rho z z^T (k >= 1, d ascending and distinct, rho > 0, z_i != 0): roots
   j0..j1-1 into lam[j], their origin poles org[j] and offsets tau[j] (lam[j] = d[org[j]] + tau[j]); iters (or
   NULL): the iterations of each root */
void secular_roots(PetscInt k, const PetscReal *d, const PetscReal *z, PetscReal rho, PetscInt j0, PetscInt j1, PetscReal *lam, PetscInt *org, PetscReal *tau, PetscInt *iters);
/* z-hat (Gu-Eisenstat), rows i0..i1-1, from all k roots (org, tau); the signs of z */
void secular_zhat(PetscInt k, const PetscReal *d, const PetscReal *z, const PetscInt *org, const PetscReal *tau, PetscInt i0, PetscInt i1, PetscReal *zh);
/* columns j0..j1-1 of S (k x k, ld lds): S(r, j) = v_j(cidx[r]) with v_j = zh ./ (d - lambda_j) normalized (cidx
   NULL: the identity) */
void secular_vectors(PetscInt k, const PetscReal *d, const PetscReal *zh, const PetscInt *org, const PetscReal *tau, const PetscInt *cidx, PetscInt j0, PetscInt j1, PetscReal *S, PetscInt lds);
} // namespace reference

#if PGX_HAVE_CUDA
namespace cuda
{
/* Device scratch of the uploads: at least n PetscInt for an index list and n rotations; for the secular
   equations n each of d, z, cidx, the roots (org, tau) and z-hat, used at an offset `off` (the merges of one
   level use disjoint ranges of the rows 0..n-1) */
struct Scratch;
PetscErrorCode create(PetscInt n, Scratch **);
PetscErrorCode destroy(Scratch **);
/* as the reference, on device arrays; idx and rot are host arrays (uploaded into the scratch) */
PetscErrorCode gather_columns(Scratch *, PetscInt m, PetscInt ncol, const PetscInt *idx, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd);
PetscErrorCode rotate_columns(Scratch *, PetscInt m, PetscInt nrot, const Rotation *rot, PetscReal *Q, PetscInt ldq);
PetscErrorCode gemm(PetscInt m, PetscInt n, PetscInt k, const PetscReal *A, PetscInt lda, const PetscReal *B, PetscInt ldb, PetscReal *C, PetscInt ldc);
/* host src -> device dst, and device src -> host dst (both return when the host array may be reused / read) */
PetscErrorCode upload(PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd);
PetscErrorCode download(PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd);
PetscErrorCode zero(PetscInt m, PetscInt n, PetscReal *A, PetscInt lda);
/* The reference's secular_roots for all k roots, one warp per root: d and z (host) are uploaded into the scratch
   at off, the roots stay there (for secular_vectors) and lam (host, k) is downloaded (returns when it is there) */
PetscErrorCode secular_roots(Scratch *, PetscInt off, PetscInt k, const PetscReal *d, const PetscReal *z, PetscReal rho, PetscReal *lam);
/* After secular_roots at the same off: z-hat, then S (device, k x k, ld lds) with the rows ordered by cidx (host,
   uploaded; NULL: the identity); queued on PGX's stream (S is ready for a gemm on it) */
PetscErrorCode secular_vectors(Scratch *, PetscInt off, PetscInt k, const PetscInt *cidx, PetscReal *S, PetscInt lds);
/* the roots' origins and offsets at off (host org, tau: k each), for the tests */
PetscErrorCode secular_download_roots(Scratch *, PetscInt off, PetscInt k, PetscInt *org, PetscReal *tau);
} // namespace cuda
#endif
} // namespace stedc
} // namespace kernels
} // namespace pgx
