/* resident_kernels.h: the kernels of the resident linear-algebra layer of the PGX Krylov methods (pgxcg,
   pgxbcgs, pgxgmres), declared once and implemented per backend (reference/: plain sequential C++ on host
   arrays, the specification; cuda/: the same on device arrays).

   Mathematics. Each rank owns n consecutive rows of A and of every vector. Its rows of A are two CSR blocks:
   the diagonal block A_d (n x n, the columns this rank owns, local numbering) and the off-diagonal block A_o
   (n x g, the g ghost columns owned by other ranks, numbered 0..g-1 in the order of the ghost map), so that
       y = A x  is  y = A_d x_local + A_o x_ghost          (SpMV, then SpMVAdd on the ghost values).
   One rank has g = 0. Vector kernels (n local entries; the reductions return this rank's partial sums, the
   glue adds them over the ranks with one MPI_Allreduce per call):
       Dot       r = sum_i conj(y_i) x_i                         (PETSc's VecDot(x, y))
       MDot      r_j = sum_i conj(V_ij) w_i,  j < k              (VecMDot: all k products in one pass)
       DotNorm2  d = sum conj(t_i) s_i,  t2 = sum |t_i|^2         (VecDotNorm2)
       Norm2Sq   r = sum |x_i|^2                                  (the glue takes the root after the sum)
       AXPY y += a x;  AYPX y = x + b y;  WAXPY w = a x + y;  AXPBYPCZ z = a x + b y + c z
       MAXPY     y += sum_j a_j V_j,  j < k                      (a on the host: k scalars)
       Scale x *= a; Copy y = x; Set x = a; PointwiseMult y = d .* x   (Jacobi: d = 1/diag(A))
       Gather    buf_i = x[idx_i], i < m                          (the entries other ranks need as ghosts)
   One-rank variants whose results stay in the backend's memory (device for cuda), so that a CG step needs one
   host synchronization instead of two:
       DotDev    d[0] = Dot(x, y);  DotNorm2Dev  d2[0], d2[1] = DotNorm2(s, t)   (same sums as Dot, DotNorm2)
       CGStep    with a = beta / dpi[0]:  x += a p;  r += (-a) w   (KSPCG's two AXPYs), skipped entirely when
                 CGStepTaken() says KSPCG would stop before them (dpi not finite, zero, or of the other sign
                 than dpiold when checksign), so that x and r stay as KSPCG leaves them
       MDotDev   d[j] = MDot(V, w)[j];  Norm2SqDev  d[0] = |x|^2
       DIAFill   dval (ndiag * nrows, column-major by diagonal) = the DIA values of the square CSR block A for the
                 offsets doff (pgxdia.h), zero elsewhere (backend memory); an entry of A on none of them sets *miss
                 (offsets from sampled rows: the caller analyzes the whole pattern), or is an error when miss is NULL
       InvDiag   inv[i] = 1 / a_ii of the square CSR block A (PCJACOBI's default diagonal, bitwise PETSc's reciprocal);
                 *nbad = the rows whose diagonal is not stored or is zero (inv is then unspecified there; the caller
                 takes PETSc's own PC instead). Synchronizes.
       SpMVDotDev  y = A x and d[0] = Dot(x, y) (the CG's w = A p and p'w; cuda on a DIA copy: one pass, the sum of
                 p'w in another order than DotDev's)
       MAXPYNegDev  y += sum_j (-d[j]) V_j   (MAXPY with the negated coefficients, read in backend memory: GMRES)
       Fetch     h[0..k) = d[0..k) (to the host; the one synchronization)
   The look-ahead CG (pgxcg: the next iteration is queued before the host has read this one's scalars), whose
   scalars all stay in backend memory, one pointer each:
       AYPXDev   y = x + (num[0] / den[0]) y   (the same quotient and update as AYPX with b = num / den on the host)
       CGStepDev with a = beta[0] / dpi[0]:  xout = xin + a p;  r += (-a) w, skipped entirely (xout and r untouched)
                 when CGStepTaken() says KSPCG would stop (checksign: dpiold != NULL, against dpiold[0])
       SpMVDotAYPXDev  p_new = z + (num[0] / den[0]) p_old (p_old NULL: p_new = z), then y = A p_new and d[0] =
                 Dot(p_new, y): AYPXDev and SpMVDotDev in one pass on cuda's DIA copy (each row forms the p_new of its
                 neighbours itself); p_new and y must differ from z and p_old
       CGStepPointwiseDev  CGStepDev, then z = d .* r (d NULL: z = r), then d2[0], d2[1] = DotNorm2(r, z): the step,
                 a pointwise preconditioner (PCJACOBI, PCNONE) and the next z'r and ||z||^2 in one pass on cuda (the
                 same arithmetic per entry as the three calls; the sums in another order than DotNorm2Dev's)
       FetchBegin / FetchEnd   the Fetch in two halves: Begin queues the copy of d[0..k) (k <= PGX_RESIDENT_FETCHMAX)
                 into slot (0 or 1) and returns; End waits for that copy and gives h[0..k)
       FetchArm  before the reduction that finishes d[0..k): on cuda that reduction's finishing block writes d[0..k)
                 to the slot's mapped host memory itself, and the FetchBegin of the slot after it queues no copy
                 (nothing on the reference backend; a FetchBegin with no reduction in between copies as before)
   The look-ahead GMRES (pgxgmres: the next product is queued before the host has read a step's scalars):
       ScaleInvSqrtDev  t = sqrt(Re d[0]); x *= 1 / t unless t is 0 or 1: the normalization of the new basis
                 vector with ||w||^2 read in backend memory, the same arithmetic as the host's Scale by 1 / t
   The same on several ranks (the diagonal block by SpMVDotAYPXDev or SpMVDotDev, then the off-diagonal block):
       AYPXIdxDev  p_new[idx[k]] = z + (num[0] / den[0]) p_old (p_old NULL: z) for k < m only, each entry formed as
                 SpMVDotAYPXDev forms it (the entries the ghost exchange sends, before the fused product writes p_new)
       SpMVAddDotDev  y += A x and d[0] += sum_i conj((A x)_i) p_i over the rows of A with entries (the off-diagonal
                 block's part of p'A p, added to the diagonal block's)
   V is a block of k vectors stored one after the other with leading dimension ldv >= n (column j at
   V + j*ldv): the GMRES basis, so that a Gram-Schmidt step is one MDot and one MAXPY.

   Input contract: CSR 0-based, rowptr[0] = 0, columns sorted within each row (PETSc AIJ), column indices of
   A_d in [0, n) and of A_o in [0, g). Pointers are host arrays for the reference backend and device arrays
   for cuda; scalars (a, b, c, a_j) and reduction results are host values in both. Aliasing: x and y of the
   SpMVs must differ; the vector kernels allow an output to alias an input only where the formula reads each
   entry before writing it (AYPX, AXPY, Scale, PointwiseMult with y = x). Neither backend knows PETSc
   objects beyond plain arrays and sizes. */
#pragma once
#include <pgx/private/pgxcompat.h>
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
  #include <complex>
#endif

namespace pgx
{
namespace kernels
{
namespace resident
{
/* The scalar of this interface: PetscScalar as host code sees it. Under nvcc, PETSc's headers make PetscScalar
   thrust::complex<double> in complex builds, a distinct type of the same layout as the host's std::complex<double>;
   declaring the interface with the host's type gives both sides the same table and functions (the cuda backend
   converts the arguments to its device scalar). In host code, and in real builds, Scalar is PetscScalar. */
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
typedef std::complex<PetscReal> Scalar;
#else
typedef PetscScalar Scalar;
#endif

/* A CSR block as the kernels see it (arrays owned by the glue, host or device). The cuda backend may also be given
   a banded copy of a square block (include/pgx/private/pgxdia.h: ndiag > 0 offsets doff and values dval, column-major
   by diagonal, device arrays), which its SpMV then reads instead of the CSR arrays (the same sums, in the same
   order of columns); the reference backend always reads the CSR. */
struct CSR {
  PetscInt           nrows, ncols, nnz;
  const PetscInt    *rowptr, *colidx;
  const Scalar *val;
  PetscInt           ndiag;
  const PetscInt    *doff;
  const Scalar *dval;
};

#if defined(__CUDACC__)
  #define PGX_RESIDENT_HD __host__ __device__
#else
  #define PGX_RESIDENT_HD
#endif
/* Whether KSPCG would apply the step of p'Ap = dpi (real and imaginary parts): KSPCheckDot() (finite), then
   its breakdown test (dpi == 0, or a sign change against dpiold from the second iteration on) */
#define PGX_RESIDENT_FETCHMAX 128 /* scalars of one FetchBegin: a GMRES step's products and norm (PGX_RESIDENT_NSCAL) */
inline PGX_RESIDENT_HD bool CGStepTaken(PetscReal re, PetscReal im, PetscReal reold, bool checksign)
{
  const bool finite = (re - re == 0) && (im - im == 0);
  const int  s = re > 0 ? 1 : (re < 0 ? -1 : 0), so = reold > 0 ? 1 : (reold < 0 ? -1 : 0);
  return finite && !(re == 0 && im == 0) && !(checksign && s * so < 0);
}

/* One backend: the kernels above as a table, so the glue dispatches once (Backend of the reference kernels
   or of the cuda kernels) and the Krylov methods are written once. */
struct Backend {
  const char *name;
  PetscErrorCode (*SpMV)(const CSR &, const Scalar *x, Scalar *y);
  PetscErrorCode (*SpMVAdd)(const CSR &, const Scalar *x, Scalar *y);
  PetscErrorCode (*Dot)(PetscInt n, const Scalar *x, const Scalar *y, Scalar *r);
  PetscErrorCode (*MDot)(PetscInt n, PetscInt k, const Scalar *V, PetscInt ldv, const Scalar *w, Scalar *r);
  PetscErrorCode (*DotNorm2)(PetscInt n, const Scalar *s, const Scalar *t, Scalar *d, PetscReal *t2);
  PetscErrorCode (*Norm2Sq)(PetscInt n, const Scalar *x, PetscReal *r);
  PetscErrorCode (*AXPY)(PetscInt n, Scalar a, const Scalar *x, Scalar *y);
  PetscErrorCode (*AYPX)(PetscInt n, Scalar b, const Scalar *x, Scalar *y);
  PetscErrorCode (*WAXPY)(PetscInt n, Scalar a, const Scalar *x, const Scalar *y, Scalar *w);
  PetscErrorCode (*AXPBYPCZ)(PetscInt n, Scalar a, Scalar b, Scalar c, const Scalar *x, const Scalar *y, Scalar *z);
  PetscErrorCode (*MAXPY)(PetscInt n, PetscInt k, const Scalar *a, const Scalar *V, PetscInt ldv, Scalar *y);
  PetscErrorCode (*Scale)(PetscInt n, Scalar a, Scalar *x);
  PetscErrorCode (*Copy)(PetscInt n, const Scalar *x, Scalar *y);
  PetscErrorCode (*Set)(PetscInt n, Scalar a, Scalar *x);
  PetscErrorCode (*PointwiseMult)(PetscInt n, const Scalar *d, const Scalar *x, Scalar *y);
  PetscErrorCode (*Gather)(PetscInt m, const PetscInt *idx, const Scalar *x, Scalar *buf);
  PetscErrorCode (*DotDev)(PetscInt n, const Scalar *x, const Scalar *y, Scalar *d);
  PetscErrorCode (*DotNorm2Dev)(PetscInt n, const Scalar *s, const Scalar *t, Scalar *d2);
  PetscErrorCode (*CGStep)(PetscInt n, Scalar beta, Scalar dpiold, PetscBool checksign, const Scalar *dpi, const Scalar *p, const Scalar *w, Scalar *x, Scalar *r);
  PetscErrorCode (*Fetch)(PetscInt k, const Scalar *d, Scalar *h);
  PetscErrorCode (*MDotDev)(PetscInt n, PetscInt k, const Scalar *V, PetscInt ldv, const Scalar *w, Scalar *d);
  PetscErrorCode (*MAXPYNegDev)(PetscInt n, PetscInt k, const Scalar *d, const Scalar *V, PetscInt ldv, Scalar *y);
  PetscErrorCode (*Norm2SqDev)(PetscInt n, const Scalar *x, Scalar *d);
  PetscErrorCode (*SpMVDotDev)(const CSR &, const Scalar *x, Scalar *y, Scalar *d);
  PetscErrorCode (*DIAFill)(const CSR &, PetscInt ndiag, const PetscInt *doff, Scalar *dval, PetscBool *miss);
  PetscErrorCode (*AYPXDev)(PetscInt n, const Scalar *num, const Scalar *den, const Scalar *x, Scalar *y);
  PetscErrorCode (*CGStepDev)(PetscInt n, const Scalar *beta, const Scalar *dpi, const Scalar *dpiold, const Scalar *p, const Scalar *w, const Scalar *xin, Scalar *xout, Scalar *r);
  PetscErrorCode (*SpMVDotAYPXDev)(const CSR &, const Scalar *z, const Scalar *pold, const Scalar *num, const Scalar *den, Scalar *pnew, Scalar *y, Scalar *d);
  PetscErrorCode (*FetchBegin)(PetscInt k, const Scalar *d, PetscInt slot);
  PetscErrorCode (*FetchEnd)(PetscInt k, PetscInt slot, Scalar *h);
  PetscErrorCode (*AYPXIdxDev)(PetscInt m, const PetscInt *idx, const Scalar *z, const Scalar *pold, const Scalar *num, const Scalar *den, Scalar *pnew);
  PetscErrorCode (*SpMVAddDotDev)(const CSR &, const Scalar *x, const Scalar *p, Scalar *y, Scalar *d);
  PetscErrorCode (*CGStepPointwiseDev)(PetscInt n, const Scalar *beta, const Scalar *dpi, const Scalar *dpiold, const Scalar *p, const Scalar *w, const Scalar *xin, Scalar *xout, Scalar *r, const Scalar *d, Scalar *z, Scalar *d2);
  PetscErrorCode (*FetchArm)(PetscInt k, const Scalar *d, PetscInt slot);
  PetscErrorCode (*ScaleInvSqrtDev)(PetscInt n, const Scalar *d, Scalar *x);
  PetscErrorCode (*InvDiag)(const CSR &, Scalar *inv, PetscInt *nbad);
};

namespace reference
{
extern const Backend backend;
PetscErrorCode SpMV(const CSR &, const Scalar *, Scalar *);
PetscErrorCode SpMVAdd(const CSR &, const Scalar *, Scalar *);
PetscErrorCode Dot(PetscInt, const Scalar *, const Scalar *, Scalar *);
PetscErrorCode MDot(PetscInt, PetscInt, const Scalar *, PetscInt, const Scalar *, Scalar *);
PetscErrorCode DotNorm2(PetscInt, const Scalar *, const Scalar *, Scalar *, PetscReal *);
PetscErrorCode Norm2Sq(PetscInt, const Scalar *, PetscReal *);
PetscErrorCode AXPY(PetscInt, Scalar, const Scalar *, Scalar *);
PetscErrorCode AYPX(PetscInt, Scalar, const Scalar *, Scalar *);
PetscErrorCode WAXPY(PetscInt, Scalar, const Scalar *, const Scalar *, Scalar *);
PetscErrorCode AXPBYPCZ(PetscInt, Scalar, Scalar, Scalar, const Scalar *, const Scalar *, Scalar *);
PetscErrorCode MAXPY(PetscInt, PetscInt, const Scalar *, const Scalar *, PetscInt, Scalar *);
PetscErrorCode Scale(PetscInt, Scalar, Scalar *);
PetscErrorCode Copy(PetscInt, const Scalar *, Scalar *);
PetscErrorCode Set(PetscInt, Scalar, Scalar *);
PetscErrorCode PointwiseMult(PetscInt, const Scalar *, const Scalar *, Scalar *);
PetscErrorCode Gather(PetscInt, const PetscInt *, const Scalar *, Scalar *);
PetscErrorCode DotDev(PetscInt, const Scalar *, const Scalar *, Scalar *);
PetscErrorCode DotNorm2Dev(PetscInt, const Scalar *, const Scalar *, Scalar *);
PetscErrorCode CGStep(PetscInt, Scalar, Scalar, PetscBool, const Scalar *, const Scalar *, const Scalar *, Scalar *, Scalar *);
PetscErrorCode Fetch(PetscInt, const Scalar *, Scalar *);
PetscErrorCode MDotDev(PetscInt, PetscInt, const Scalar *, PetscInt, const Scalar *, Scalar *);
PetscErrorCode MAXPYNegDev(PetscInt, PetscInt, const Scalar *, const Scalar *, PetscInt, Scalar *);
PetscErrorCode Norm2SqDev(PetscInt, const Scalar *, Scalar *);
PetscErrorCode SpMVDotDev(const CSR &, const Scalar *, Scalar *, Scalar *);
PetscErrorCode DIAFill(const CSR &, PetscInt, const PetscInt *, Scalar *, PetscBool *);
PetscErrorCode AYPXDev(PetscInt, const Scalar *, const Scalar *, const Scalar *, Scalar *);
PetscErrorCode CGStepDev(PetscInt, const Scalar *, const Scalar *, const Scalar *, const Scalar *, const Scalar *, const Scalar *, Scalar *, Scalar *);
PetscErrorCode SpMVDotAYPXDev(const CSR &, const Scalar *, const Scalar *, const Scalar *, const Scalar *, Scalar *, Scalar *, Scalar *);
PetscErrorCode FetchBegin(PetscInt, const Scalar *, PetscInt);
PetscErrorCode FetchEnd(PetscInt, PetscInt, Scalar *);
PetscErrorCode AYPXIdxDev(PetscInt, const PetscInt *, const Scalar *, const Scalar *, const Scalar *, const Scalar *, Scalar *);
PetscErrorCode SpMVAddDotDev(const CSR &, const Scalar *, const Scalar *, Scalar *, Scalar *);
PetscErrorCode CGStepPointwiseDev(PetscInt, const Scalar *, const Scalar *, const Scalar *, const Scalar *, const Scalar *, const Scalar *, Scalar *, Scalar *, const Scalar *, Scalar *, Scalar *);
PetscErrorCode FetchArm(PetscInt, const Scalar *, PetscInt);
PetscErrorCode ScaleInvSqrtDev(PetscInt, const Scalar *, Scalar *);
PetscErrorCode InvDiag(const CSR &, Scalar *, PetscInt *);
} // namespace reference

namespace cuda
{
/* Same contract on device arrays (built only with CUDA). SpMV: one warp per row (vector CSR). MDot: one
   kernel for all k products (each block reduces a slice of rows for every j, then one pass over the
   blocks), MAXPY: one kernel (a_j staged to the device, k <= MAXK per launch). Reductions come back as
   k scalars; nothing else leaves the device. */
constexpr PetscInt MAXK = 64;
extern const Backend backend;
} // namespace cuda
} // namespace resident
} // namespace kernels
} // namespace pgx
