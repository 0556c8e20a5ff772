/* sytrd.h: PGX's dense Hermitian tridiagonal reduction and eigensolver (a component used by EPSPGX, usable
   by others). See src/mat/utils/sytrd/sytrd_kernels.h for the mathematics and the storage conventions.

   A PGXSytrd holds one n x n Hermitian matrix (host arrays at this interface, lower triangle read):
     PGXSytrdSetMatrix(S, n, A, lda)   copies A (on the cuda backend: uploads it)
     PGXSytrdReduce(S)                  A = Q T Q^H, one-stage blocked Householder of panel width b
     PGXSytrdGetTridiagonal(S, &d, &e)  T: diagonal d (n), subdiagonal e (n-1), real, host
     PGXSytrdApplyQ(S, trans, k, Z, ldz)    Z <- Q Z or Q^H Z (host n x k), compact WY blocks of b
     PGXSytrdFormQ(S, Q, ldq)            Q explicitly (host n x n)
     PGXSytrdGetReflectors(S, &A, &lda, &tau) the reduced matrix in LAPACK dsytrd/zhetrd ('L') layout (host)
     PGXSytrdSolveTridiagonal(S, vectors)  the eigenvalues of T and, with vectors, its eigenvectors Z_T, kept in
                                         the object (on the device for the divide and conquer of the cuda backend)
     PGXSytrdSolve(S, w, Z, ldz)         all eigenvalues w (ascending) of A and, when Z is not NULL, the
                                         eigenvectors Z = Q Z_T (T solved once: the kept solution is reused)
   Generalized problems A x = lambda B x, B Hermitian positive definite: after PGXSytrdSetMatrix (or ...CSR),
     PGXSytrdSetMatrixB(S, n, B, ldb)   (or PGXSytrdSetMatrixBCSR) factors B = L L^H and replaces A by
                                         L^-1 A L^-H (same eigenvalues); PGXSytrdSolve's Z is then L^-H Q Z_T, the
                                         B-orthonormal eigenvectors of the pair (Q, T and ApplyQ stay those of C)
   Times of the phases (reduction, tridiagonal eigensolve, back-transformation, and the Cholesky factorization
   and transformation of a generalized problem) are kept for views. */
#pragma once
#include <pgx.h>

typedef struct _n_PGXSytrd *PGXSytrd;

/* The symmetric product of the cuda panel: LOWER reads each stored element once (default), FULL is one
   gemv over the whole stored square (the paper's choice); the reference ignores it */
typedef enum {
  PGX_SYTRD_SYMV_LOWER,
  PGX_SYTRD_SYMV_FULL
} PGXSytrdSymv;
PETSC_EXTERN const char *const PGXSytrdSymvs[];

/* The panel of the cuda reduction: FUSED is one cooperative kernel per panel (three grid synchronizations per
   column, the lower product inside it; default), LAUNCHES the paper's sequence of cuBLAS calls and small kernels
   per column (about ten dependent launches; the ablations of PGXSytrdSetAblation() and the full product apply
   to it). FUSED falls back to LAUNCHES when the product is FULL, the gemvs are not merged, or the device cannot
   keep the blocks resident. The reference ignores it. */
typedef enum {
  PGX_SYTRD_PANEL_FUSED,
  PGX_SYTRD_PANEL_LAUNCHES
} PGXSytrdPanel;
PETSC_EXTERN const char *const PGXSytrdPanels[];

/* The tridiagonal eigensolver of PGXSytrdSolve(): STEDC and STEMR are LAPACK on the host (dstedc with vectors is
   O(n^3) in the host's BLAS: 98% of the solve at n = 4096 with a reference BLAS on the GPU host; dstemr is MRRR,
   O(n^2) with vectors, no BLAS 3); DC is PGX's divide and conquer whose eigenvector gemms run in the backend
   (cuBLAS on the cuda backend, the eigenvectors staying on the device for the back-transformation). AUTO is
   dstedc (its O(n^2) QR path) for eigenvalues only; with vectors see PGXTridiagEigenMethodResolve(). */
typedef enum {
  PGX_TRIDIAG_EIGEN_AUTO,
  PGX_TRIDIAG_EIGEN_STEDC,
  PGX_TRIDIAG_EIGEN_STEMR,
  PGX_TRIDIAG_EIGEN_DC
} PGXTridiagEigenMethod;
PETSC_EXTERN const char *const PGXTridiagEigenMethods[];

/* Where the divide and conquer solves the secular equations of its merges and forms their eigenvectors S: HOST is
   LAPACK dlaed4 on the host threads (S uploaded to the backend for the gemm), DEVICE is PGX's root finder, z-hat
   and S in the backend (on cuda in device memory; on the host backend its reference kernels). AUTO: DEVICE on
   cuda, HOST on the host. */
typedef enum {
  PGX_STEDC_SECULAR_AUTO,
  PGX_STEDC_SECULAR_HOST,
  PGX_STEDC_SECULAR_DEVICE
} PGXStedcSecular;
PETSC_EXTERN const char *const PGXStedcSeculars[];

/* largest subproblem of the divide and conquer solved directly (LAPACK dsteqr) */
#define PGX_STEDC_DEFAULT_LEAF 32
/* most host threads of the divide and conquer (the default is the cores available, at most this) */
#define PGX_STEDC_MAX_THREADS 16

/* Statistics of one divide and conquer run */
typedef struct {
  PetscInt       merges, leaves;
  PetscInt       secular;  /* sum over the merges of the secular orders k */
  PetscInt       deflated; /* sum over the merges of the deflated eigenpairs */
  PetscLogDouble flops;    /* of the eigenvector gemms */
  PetscLogDouble thost;    /* seconds of host work at the merges (deflation, secular equations, S, sorting) */
} PGXStedcStats;

#define PGX_SYTRD_DEFAULT_BLOCK 64
#define PGX_SYTRD_DEFAULT_BACK_BLOCK 256
#define PGX_SYTRD_DEFAULT_BACK_CHUNKS 8
/* B's Cholesky (generalized problems, cuda backend): orders above this split in recursive halves (PGXSytrdSetCholeskySplit) */
#define PGX_SYTRD_DEFAULT_CHOL_SPLIT 4096

typedef struct {
  PetscLogDouble reduce, tridiag, back; /* seconds of the last reduction, tridiagonal solve, back-transformation */
  PetscLogDouble generalize;            /* seconds of B = L L^H and A <- L^-1 A L^-H (0 for a standard problem) */
} PGXSytrdTimes;

PETSC_EXTERN PetscErrorCode PGXSytrdCreate(PGXDeviceType, PGXSytrd *);
PETSC_EXTERN PetscErrorCode PGXSytrdDestroy(PGXSytrd *);
PETSC_EXTERN PetscErrorCode PGXSytrdSetBlockSize(PGXSytrd, PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdGetBlockSize(PGXSytrd, PetscInt *);
PETSC_EXTERN PetscErrorCode PGXSytrdSetBackBlockSize(PGXSytrd, PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdSetBackChunks(PGXSytrd, PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdGetBackChunks(PGXSytrd, PetscInt *);
PETSC_EXTERN PetscErrorCode PGXSytrdSetCholeskySplit(PGXSytrd, PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdGetCholeskySplit(PGXSytrd, PetscInt *);
PETSC_EXTERN PetscErrorCode PGXSytrdSetSymv(PGXSytrd, PGXSytrdSymv);
PETSC_EXTERN PetscErrorCode PGXSytrdGetSymv(PGXSytrd, PGXSytrdSymv *);
PETSC_EXTERN PetscErrorCode PGXSytrdSetPanel(PGXSytrd, PGXSytrdPanel, PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdGetPanel(PGXSytrd, PGXSytrdPanel *, PetscInt *);
/* cuda ablations (bench/sytrd): merged panel gemvs, rank-2b update, several streams (all PETSC_TRUE by default) */
PETSC_EXTERN PetscErrorCode PGXSytrdSetAblation(PGXSytrd, PetscBool, PetscBool, PetscBool);
PETSC_EXTERN PetscErrorCode PGXSytrdGetDeviceType(PGXSytrd, PGXDeviceType *);
PETSC_EXTERN PetscErrorCode PGXSytrdSetMatrix(PGXSytrd, PetscInt, const PetscScalar[], PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdSetMatrixCSR(PGXSytrd, PetscInt, const PetscInt[], const PetscInt[], const PetscScalar[]);
PETSC_EXTERN PetscErrorCode PGXSytrdSetMatrixB(PGXSytrd, PetscInt, const PetscScalar[], PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdSetMatrixBCSR(PGXSytrd, PetscInt, const PetscInt[], const PetscInt[], const PetscScalar[]);
PETSC_EXTERN PetscErrorCode PGXSytrdIsGeneralized(PGXSytrd, PetscBool *);
PETSC_EXTERN PetscErrorCode PGXSytrdReduce(PGXSytrd);
PETSC_EXTERN PetscErrorCode PGXSytrdGetTridiagonal(PGXSytrd, const PetscReal *[], const PetscReal *[]);
PETSC_EXTERN PetscErrorCode PGXSytrdGetReflectors(PGXSytrd, const PetscScalar *[], PetscInt *, const PetscScalar *[]);
PETSC_EXTERN PetscErrorCode PGXSytrdApplyQ(PGXSytrd, PetscBool, PetscInt, PetscScalar[], PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdFormQ(PGXSytrd, PetscScalar[], PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdSolveTridiagonal(PGXSytrd, PetscBool);
PETSC_EXTERN PetscErrorCode PGXSytrdSolve(PGXSytrd, PetscReal[], PetscScalar[], PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdGetTimes(PGXSytrd, PGXSytrdTimes *);
/* Eigenvalues (ascending, into d) and optionally eigenvectors Z (n x n real, ldz) of a real symmetric
   tridiagonal matrix (d, e; e is destroyed): LAPACK dstedc on the host */
PETSC_EXTERN PetscErrorCode PGXTridiagonalEigen(PetscInt, PetscReal[], PetscReal[], PetscReal[], PetscInt);
PETSC_EXTERN PetscErrorCode PGXTridiagonalEigenMethod(PGXTridiagEigenMethod, PetscInt, PetscReal[], PetscReal[], PetscReal[], PetscInt);
/* Divide and conquer on the host (PGX_DEVICE_HOST: reference kernels) or with cuBLAS (PGX_DEVICE_CUDA), Z on the
   host; arguments type, leaf, threads, n, d, e, Z, ldz, stats: leaf <= 0: PGX_STEDC_DEFAULT_LEAF; threads: host
   threads (<= 0: the cores available, at most PGX_STEDC_MAX_THREADS; the results are bitwise the same for any
   number); e is not changed; stats may be NULL */
PETSC_EXTERN PetscErrorCode PGXTridiagonalEigenDC(PGXDeviceType, PetscInt, PetscInt, PetscInt, PetscReal[], PetscReal[], PetscReal[], PetscInt, PGXStedcStats *);
/* the same with the secular equations' place chosen (PGXTridiagonalEigenDC: PGX_STEDC_SECULAR_AUTO) */
PETSC_EXTERN PetscErrorCode PGXTridiagonalEigenDCSecular(PGXDeviceType, PGXStedcSecular, PetscInt, PetscInt, PetscInt, PetscReal[], PetscReal[], PetscReal[], PetscInt, PGXStedcStats *);
/* The method that AUTO means for a backend, with or without eigenvectors (the default is one line there) */
PETSC_EXTERN PetscErrorCode PGXTridiagEigenMethodResolve(PGXTridiagEigenMethod, PGXDeviceType, PetscBool, PGXTridiagEigenMethod *);
PETSC_EXTERN PetscErrorCode PGXSytrdSetTridiagonalEigenMethod(PGXSytrd, PGXTridiagEigenMethod);
PETSC_EXTERN PetscErrorCode PGXSytrdGetTridiagonalEigenMethod(PGXSytrd, PGXTridiagEigenMethod *);
/* host threads of the divide and conquer (PGX_TRIDIAG_EIGEN_DC); 0 (default): the cores available, at most 16 */
PETSC_EXTERN PetscErrorCode PGXSytrdSetThreads(PGXSytrd, PetscInt);
PETSC_EXTERN PetscErrorCode PGXSytrdGetThreads(PGXSytrd, PetscInt *);
/* where the divide and conquer solves its secular equations (default PGX_STEDC_SECULAR_AUTO) */
PETSC_EXTERN PetscErrorCode PGXSytrdSetStedcSecular(PGXSytrd, PGXStedcSecular);
