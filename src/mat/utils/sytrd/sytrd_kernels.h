/* sytrd_kernels.h: the kernels of PGX's dense Hermitian tridiagonal reduction, declared once and implemented
   per backend (reference/: plain sequential C++, the specification; cuda/: the GPU one-stage reduction of
   Liu, Zhao, Yu and Huang, 2020: sytrd_kernels.cu for real double, hetrd_kernels.cu for complex double (the launch
   sequence with cuBLAS Z-calls); the fused panel, the upload and the back-transformation are templates on the
   scalar shared by both, cuda/sytrd_fused.cuh and cuda/sytrd_common.cuh).

   Mathematics. A is an n x n Hermitian (real symmetric) matrix. One-stage blocked Householder
   tridiagonalization computes
       A = Q T Q^H,   Q = H_0 H_1 ... H_{n-2},   H_i = I - tau_i v_i v_i^H,
   with T real symmetric tridiagonal (diagonal d, subdiagonal e). Reflector i annihilates column i below the
   subdiagonal: v_i has v_i(0:i) = 0, v_i(i+1) = 1 and v_i(i+2:n-1) free; tau_i is real for real A and
   complex for complex A (the subdiagonal e_i = beta_i is made real, as LAPACK's zlarfg does); tau_i = 0 where
   the column is already reduced (H_i = I).

   Blocking (panel width b): the reduction runs over panels of b columns. For the panel starting at column j,
   on the trailing m x m matrix A22 = A(j:n-1, j:n-1) (m = n - j), the panel step produces the b reflectors
   V = [v_0 .. v_{b-1}] (m x b, unit lower trapezoidal, rows relative to j) and W (m x b) such that
       H_{b-1}^H ... H_0^H A22 H_0 ... H_{b-1} = A22 - V W^H - W V^H   on the rows and columns b..m-1,
   where column k of W is, with w = tau_k (A22 v_k - V W(:,0:k)^H v_k - W V(:,0:k)^H v_k),
       W(:,k) = w - (tau_k / 2) (w^H v_k) v_k.
   Within the panel only the panel's own columns are updated (each column k just before its reflector is
   formed: A(k:m-1, k) -= V(k:m-1,0:k) W(k,0:k)^H + W(k:m-1,0:k) V(k,0:k)^H); the trailing matrix A22(b:m-1,
   b:m-1) is left as it was and read by the symmetric product A22 v_k. The update step then applies the
   rank-2b change A22(b:, b:) -= V W^H + W V^H. The last panel (m <= b + 1) takes all remaining m columns
   (the last one is only brought up to date: it has no reflector) and needs no update.

   Storage (LAPACK dsytrd/zhetrd with uplo = 'L', dlatrd/zlatrd for the panel): column-major with leading
   dimension lda; only the lower triangle of A is read and written (the strict upper triangle is neither read
   nor changed by the reference; the cuda backend may use it as workspace for the full product and restores
   nothing there). On return the diagonal holds d, the subdiagonal holds e, and A(i+2:n-1, i) holds
   v_i(i+2:n-1). d and e are also returned as real arrays, tau as n-1 scalars (tau[n-1] is not written).

   Q application (compact WY, LAPACK dlarft/dlarfb, forward, columnwise): reflectors i..i+k-1 are applied as
   one block H_i ... H_{i+k-1} = I - V Tb V^H with Tb upper triangular k x k,
       Tb(c,c) = tau_{i+c},   Tb(0:c-1, c) = -tau_{i+c} Tb(0:c-1,0:c-1) V(:,0:c-1)^H v_{i+c},
   so that Z <- Q Z runs the blocks last to first with Z -= V (Tb (V^H Z)), and Z <- Q^H Z runs them first to
   last with Tb^H. Forming Q is Q applied to the identity.

   Generalized problems A x = lambda B x with B Hermitian positive definite (LAPACK xpotrf + xhegst, itype 1):
   B = L L^H (Cholesky, L lower with a real positive diagonal), C = L^-1 A L^-H is Hermitian with the same
   eigenvalues, and an eigenvector y of C gives x = L^-H y. With Y unitary, X = L^-H Y is B-orthonormal, X^H B X = I
   (what LAPACK's xsygvd and SLEPc's EPSLAPACK return). C is formed by two triangular solves, L^-1 A and then (L^-1
   A) L^-H, and made exactly Hermitian afterwards: its lower triangle kept (diagonal real) and mirrored.

   Input contract: n >= 0, lda >= max(1, n), 1 <= b; W has at least n*b entries; the matrix entries are
   finite (no scaling against overflow or underflow is done beyond that of the Householder norms). */
#pragma once
#include <petscsys.h>
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
  #include <complex>
#endif

namespace pgx
{
namespace kernels
{
namespace sytrd
{
/* The scalar of the cuda interface: PetscScalar as host code sees it. Under nvcc, PETSc's headers make PetscScalar
   thrust::complex<double> in complex builds, a distinct type of the same layout as the host's std::complex<double>;
   declaring the interface with the host's type gives both sides the same functions (hetrd_kernels.cu reinterprets
   the arrays). In host code, and in real builds, Scalar is PetscScalar. */
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
typedef std::complex<PetscReal> Scalar;
#else
typedef PetscScalar Scalar;
#endif

namespace reference
{
/* Householder reflector (LAPACK xlarfg): given alpha and x (len-1 entries, stride 1), finds beta (real), tau
   and v = [1; x/(alpha-beta)] with H^H [alpha; x] = [beta; 0]; x is overwritten by v(1:), alpha by beta. */
void larfg(PetscInt len, PetscScalar *alpha, PetscScalar *x, PetscScalar *tau);

/* Panel step on the trailing m x m matrix A (lower storage): reduces columns 0..nb-1 (nb <= m; nb = m brings
   the last column up to date without a reflector), writes e and tau of the columns below m - 1, the reflectors into A (with A(k+1,k) set to 1, not to e_k) and W (m x nb, ldw). */
void panel(PetscInt m, PetscInt nb, PetscScalar *A, PetscInt lda, PetscReal *e, PetscScalar *tau, PetscScalar *W, PetscInt ldw);

/* Update step: A(nb:m-1, nb:m-1) -= V W^H + W V^H on the lower triangle, V taken from A's first nb columns
   (as left by panel, unit subdiagonal included); the diagonal is kept real. */
void update(PetscInt m, PetscInt nb, PetscScalar *A, PetscInt lda, const PetscScalar *W, PetscInt ldw);

/* The whole reduction with panel width b (W: n*b scratch): A, d (n), e (n-1), tau (n-1) as described above */
void reduce(PetscInt n, PetscInt b, PetscScalar *A, PetscInt lda, PetscReal *d, PetscReal *e, PetscScalar *tau, PetscScalar *W);

/* Z (n x k, ldz) <- Q Z (trans = 0) or Q^H Z (trans = 1), with the reflectors of a reduced A and tau, in
   blocks of b reflectors (compact WY). work: at least b*b + b*k scalars. */
void apply_q(PetscInt n, PetscInt b, int trans, const PetscScalar *A, PetscInt lda, const PetscScalar *tau, PetscInt k, PetscScalar *Z, PetscInt ldz, PetscScalar *work);

/* The triangular factor Tb (k x k, ldt) of reflectors i..i+k-1 (LAPACK xlarft, forward, columnwise) */
void larft(PetscInt n, PetscInt i, PetscInt k, const PetscScalar *A, PetscInt lda, const PetscScalar *tau, PetscScalar *Tb, PetscInt ldt);

/* Cholesky B = L L^H in place (the lower triangle of B, ldb, is read and overwritten by L; the strict upper one is
   not touched). Returns 0, or k >= 1 when the leading minor of order k is not positive (or not finite): B is then
   not positive definite and its columns from k on are unspecified. */
PetscInt potrf(PetscInt n, PetscScalar *B, PetscInt ldb);

/* A (n x n full square, lda; both triangles read) <- L^-1 A L^-H, the lower triangle with a real diagonal mirrored
   into the strict upper one (L lower from potrf, ldl) */
void hegst(PetscInt n, PetscScalar *A, PetscInt lda, const PetscScalar *L, PetscInt ldl);

/* Z (n x k, ldz) <- L^-H Z: the eigenvectors of the pair from those of C */
void trsm_lh(PetscInt n, PetscInt k, const PetscScalar *L, PetscInt ldl, PetscScalar *Z, PetscInt ldz);
} // namespace reference

#if PGX_HAVE_CUDA
namespace cuda
{
/* Symmetric product used by the panel's A22 v: FULL is one gemv over the whole m x m trailing square (the
   paper's choice: the strict upper triangle is kept equal to the conjugate of the lower one, which the
   update maintains by updating the full square); LOWER reads each stored lower element once and uses it for
   the row and the column contribution (PGX's own kernel). */
enum Symv {
  SYMV_LOWER = 0,
  SYMV_FULL  = 1
};

/* Ablation switches of the GPU reduction (all on by default): merged panel gemvs, the rank-2b update as
   one gemm on interleaved [v1 w1 v2 w2 ...] storage (else two rank-b gemms), several streams */
struct Options {
  int  b       = 64;
  Symv symv    = SYMV_LOWER;
  int  merged  = 1;
  int  rank2b  = 1;
  int  streams = 1;
  int  bback   = 256; /* reflectors per compact WY block of the back-transformation (0: b) */
  int  fused   = 3; /* > 0: the fused panel (one cooperative launch per panel, needs SYMV_LOWER and merged) with
                       at most this many blocks per multiprocessor; 0: the paper's sequence of launches */
};

/* Device state of one reduction (allocated by reduce, freed by destroy). dA: the matrix (n x n, lda = n). */
struct Work;
PetscErrorCode create(PetscInt n, const Options &, Work **);
PetscErrorCode destroy(Work **);
/* blocks of the fused panel's cooperative launch (0: the launch sequence runs) */
PetscErrorCode fused_grid(const Work *, int *);
/* Reduces the device matrix dA (n x n, ld n, full square uploaded); d, e, tau (host) are filled */
PetscErrorCode reduce(Work *, Scalar *dA, PetscReal *d, PetscReal *e, Scalar *tau);
/* dA (n x n, ld n, device) <- the host matrix A (ld lda) with its strict upper triangle replaced by the mirror of
   its lower one (what the reduction reads); synchronous */
PetscErrorCode upload_symmetric(PetscInt n, const Scalar *A, PetscInt lda, Scalar *dA);
/* dA (n x n, ld n, device) <- the matrix of the CSR arrays (host): zeroed, the entries with column <= row scattered
   into the lower triangle, the upper one mirrored from it; only the CSR arrays cross to the device */
PetscErrorCode upload_symmetric_csr(PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, const Scalar *vals, Scalar *dA);
/* dZ (n x k, ld n, device) <- Q dZ or Q^H dZ with the reflectors in dA and the tau that reduce() left on the device */
PetscErrorCode apply_q(Work *, int trans, const Scalar *dA, PetscInt k, Scalar *dZ);
/* Z (host, n x k, ldz) <- Q dZ: dZ <- Q dZ by nchunks chunks of columns (Z = Q Z_T is independent per column), each
   chunk downloaded into Z (pinned staging filled by host threads, on a second stream) while the next one computes.
   With dL (the Cholesky factor of generalize(), device, ld n; or NULL) each chunk is also solved with L^H before its
   download: Z = L^-H Q Z_T */
PetscErrorCode apply_q_download(Work *, const Scalar *dA, PetscInt k, Scalar *dZ, Scalar *Z, PetscInt ldz, PetscInt nchunks, const Scalar *dL);
/* The generalized problem's transformation on the device (n x n, ld n, full squares): dB (its lower triangle read)
   <- its Cholesky factor L by PGX's Cholesky on cuBLAS (no cuSOLVER; orders above nsplit in recursive halves, blocks
   of at most nsplit right-looking by 64 columns); *info = 0, or the order k >= 1 of the first leading minor of B that
   is not positive (dA is then left as it was). Otherwise dA <- L^-1 dA L^-H by two cuBLAS triangular solves, its
   lower triangle (diagonal made real) mirrored into the upper one. Synchronous. */
PetscErrorCode generalize(PetscInt n, Scalar *dA, Scalar *dB, PetscInt nsplit, PetscInt *info);
/* dst (device) <- src (device, real), count entries, on PGX's stream: the real eigenvectors of T as the complex Z_T
   that the back-transformation of a complex Hermitian A works on (complex builds only) */
PetscErrorCode real_to_scalar(size_t count, const PetscReal *src, Scalar *dst);
} // namespace cuda
#endif
} // namespace sytrd
} // namespace kernels
} // namespace pgx
