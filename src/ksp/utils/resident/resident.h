/* resident.h: the resident linear-algebra layer of the PGX Krylov methods (private to PGX).

   A PGXResident holds, in the memory of its backend (host arrays for -pgx_device host, device arrays for
   cuda), the rows of the operator this rank owns (the diagonal block and, on several ranks, the
   off-diagonal block with the ghost map of MATMPIAIJ), the preconditioner binding, and the work vectors of
   a Krylov method. The Krylov methods are written once against the PGXResident* operations below; each
   operation runs one kernel of resident_kernels.h and, for the reductions, one MPI_Allreduce.

   Residency: PGXResidentSetOperator() copies the pattern and values once, only the values when the
   nonzero state of the matrix is unchanged, and nothing when its object state is unchanged.
   PGXResidentCopyIn()/CopyOut() move b, x0 and x between PETSc Vecs and the backend; inside a solve only
   scalars (reduction results) reach the host, except the ghost values exchanged between ranks, which pass
   through host buffers. */
#pragma once
#include <pgx/private/pgximpl.h>
#include <petsc/private/kspimpl.h>
#include "resident_kernels.h"
#include <pgx/private/pgxdia.h>

/* How the preconditioner is applied */
typedef enum {
  PGX_RESIDENT_PC_NONE,   /* PCNONE: y = x */
  PGX_RESIDENT_PC_JACOBI, /* PCJACOBI: y = d .* x with the resident kernel; d taken from the PC itself */
  PGX_RESIDENT_PC_DEVICE, /* PCDILU, PCAIPS on cuda: PGXPCApplyDevice() on the device arrays */
  PGX_RESIDENT_PC_HOST    /* PCDILU, PCAIPS with the host backend: PCApply() on Vecs wrapping the host arrays */
} PGXResidentPCKind;

/* The storage the cuda SpMV reads for the diagonal block (-ksp_pgx_spmv_format) */
typedef enum {
  PGX_RESIDENT_SPMV_AUTO, /* DIA when it pays (pgxdia.h: at most PGX_RESIDENT_MAXDIAG diagonals, fill >= 2/3), else CSR */
  PGX_RESIDENT_SPMV_CSR,  /* always CSR */
  PGX_RESIDENT_SPMV_DIA   /* DIA whenever the block has at most PGX_RESIDENT_MAXDIAG diagonals, whatever the fill */
} PGXResidentSpMVFormat;
PETSC_INTERN const char *const PGXResidentSpMVFormats[];
#define PGX_RESIDENT_MAXDIAG PGX_DIA_MAXDIAG

typedef struct _n_PGXResident *PGXResident;
struct _n_PGXResident {
  MPI_Comm                                     comm;
  PGXDeviceType                                device; /* PGX_DEVICE_HOST or PGX_DEVICE_CUDA */
  const pgx::kernels::resident::Backend       *K;      /* the kernels of that backend */
  PetscInt                                     n, N;   /* local and global rows */
  /* the operator */
  Mat                                          A;          /* the Mat last copied (a reference, not owned) */
  PetscObjectState                             Astate;     /* its object state at the copy */
  PetscObjectState                             Anzstate;   /* its nonzero state at the copy */
  PetscInt                                     nnzd, nnzo; /* entries of the diagonal and off-diagonal blocks */
  PetscInt                                     nghost;     /* ghost columns (off-diagonal block width) */
  PetscInt                                    *rowptr_d, *colidx_d, *rowptr_o, *colidx_o; /* backend memory */
  PetscScalar                                 *val_d, *val_o;                             /* backend memory */
  pgx::kernels::resident::CSR                  Ad, Ao; /* views of the arrays above */
  PGXGhost                                     gx;     /* several ranks: the ghost exchange (src/sys/ghost.cxx) */
  PetscInt                                     npattern, nvalues; /* copies of the pattern, refreshes of values */
  PetscBool                                    shared;   /* cuda: rowptr_d, colidx_d, val_d are the PC's device copy of the diagonal block (not owned) */
  /* cuda: a banded (DIA) copy of the diagonal block that the SpMV reads instead of the CSR (pgxdia.h) */
  PGXResidentSpMVFormat                        spmvfmt;                        /* as requested */
  PetscInt                                     ndia;                           /* its diagonals (0: no copy, the SpMV reads the CSR) */
  PetscInt                                     hdoff[PGX_RESIDENT_MAXDIAG];    /* its offsets (host) */
  PetscInt                                    *doff;                           /* its offsets (backend memory) */
  PetscScalar                                 *dval;                           /* its values, ndia * n, column-major by diagonal (backend memory) */
  PetscReal                                    diafill;                        /* stored entries / (ndia * n) */
  PetscInt                                     diapattern, diavalues;          /* npattern, nvalues when it was built */
  PGXResidentSpMVFormat                        diafmt;                         /* spmvfmt when it was built */
  PetscBool                                    diabuilt;                       /* built (or refused) at least once */
  PetscInt                                     diasample;                      /* -ksp_pgx_dia_sample: the offsets' analysis reads every diasample-th row (0: the first prime >= n/4096; 1: all) */
  PetscInt                                     diastride;                      /* the stride the offsets came from (> 1: sampled rows, checked by the first fill) */
  /* the preconditioner */
  PC                                           pc;
  PGXResidentPCKind                            pckind;
  PetscScalar                                 *invdiag;   /* jacobi: backend memory */
  PetscBool                                    pcsums;    /* the last PGXResidentCGStepPCDev(): the PC's last pass summed z'r, ||z||^2 */
  Mat                                          jacmat;    /* jacobi: the Pmat invdiag came from, and its state */
  PetscObjectState                             jacstate;
  Vec                                          px, py;    /* PGX_RESIDENT_PC_HOST: Vecs wrapping host arrays */
  PGXVecStage                                  vstage;    /* cuda: device access to CUDA Vecs (b in, x out) */
  /* work vectors: one block of nwork vectors of n entries, contiguous */
  PetscScalar                                 *work;
  PetscInt                                     nwork, nwork_n;
  PetscScalar                                 *hcoef; /* cuda: staging of MAXPY coefficients (device) */
  PetscScalar                                 *dscal; /* PGX_RESIDENT_NSCAL scalars in backend memory (one-sync CG and GMRES steps) */
  PetscMPIInt                                  size;  /* ranks of comm */
  /* several ranks: how the reductions left in backend memory (the *Dev ones) are summed over the ranks */
  PetscBool                                    redpeer;  /* -pgx_allreduce_peer: on the GPUs (CUDA IPC) where every rank can */
  PetscBool                                    mpifused; /* -ksp_pgx_mpi_fused_products: several ranks, p'Ap in the blocks' products */
  PGXDevReduce                                 dred;     /* cuda: the GPU-to-GPU sums, or NULL */
  PetscBool                                    dredtried; /* PGXDevReduceCreate() was called (collectively) */
  const char                                  *dredwhy;  /* why dred is NULL */
};

PETSC_INTERN PetscErrorCode PGXResidentCreate(MPI_Comm, PGXResident *);
PETSC_INTERN PetscErrorCode PGXResidentDestroy(PGXResident *);
PETSC_INTERN PetscErrorCode PGXResidentSetUp(PGXResident, PGXDeviceType, Mat, PC, const char[]);
PETSC_INTERN PetscErrorCode PGXResidentGetWork(PGXResident, PetscInt, PetscScalar **);
PETSC_INTERN PetscErrorCode PGXResidentView(PGXResident, PetscViewer);
PETSC_INTERN PetscErrorCode PGXResidentCopyIn(PGXResident, Vec, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentCopyOut(PGXResident, const PetscScalar *, Vec);

/* y = A x (A the operator), y = M^-1 x (M the PC; KSP_PCApply semantics), y = B A x or A B x by the KSP's side */
PETSC_INTERN PetscErrorCode PGXResidentMult(PGXResident, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentPCApply(KSP, PGXResident, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentApplyBAorAB(KSP, PGXResident, const PetscScalar *, PetscScalar *, PetscScalar *);
/* KSPInitialResidual: r = B (b - A x) (left) or b - A x (right); t1, t2 work */
PETSC_INTERN PetscErrorCode PGXResidentInitialResidual(KSP, PGXResident, const PetscScalar *x, PetscScalar *t1, PetscScalar *t2, PetscScalar *r, const PetscScalar *b);
/* KSPUnwindPreconditioner: x = B x for right preconditioning; t work */
PETSC_INTERN PetscErrorCode PGXResidentUnwind(KSP, PGXResident, PetscScalar *x, PetscScalar *t);

/* Global reductions (one MPI_Allreduce each) */
PETSC_INTERN PetscErrorCode PGXResidentDot(PGXResident, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentMDot(PGXResident, PetscInt, const PetscScalar *, PetscInt, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentDotNorm2(PGXResident, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscReal *);
PETSC_INTERN PetscErrorCode PGXResidentNorm(PGXResident, const PetscScalar *, PetscReal *);
PETSC_INTERN PetscErrorCode PGXResidentNormalize(PGXResident, PetscScalar *, PetscReal *);
#define PGX_RESIDENT_NSCAL 128
/* Whether the reductions left in backend memory reach every rank without the host waiting for its GPU (one rank; the host
   backend, where they are plain MPI_Allreduce calls; cuda with the GPU-to-GPU sums) */
PETSC_INTERN PetscBool PGXResidentDevReductions(PGXResident);
/* Reductions left in backend memory (PGXResidentScalars(): PGX_RESIDENT_NSCAL slots), KSPCG's guarded step, and the fetch
   of k slots to the host (one synchronization); see resident_kernels.h */
PETSC_INTERN PetscErrorCode PGXResidentScalars(PGXResident, PetscScalar **);
PETSC_INTERN PetscErrorCode PGXResidentMultDotDev(PGXResident, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentDotDev(PGXResident, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentDotNorm2Dev(PGXResident, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentCGStep(PGXResident, PetscScalar, PetscScalar, PetscBool, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentFetch(PGXResident, PetscInt, const PetscScalar *, PetscScalar *);
/* The look-ahead CG (resident_kernels.h): y = x + (num/den) y; x_out = x_in + a p, r -= a w (a = beta/dpi, guarded);
   the fetch of k scalars in two halves through slot 0 or 1 */
PETSC_INTERN PetscErrorCode PGXResidentAYPXDev(PGXResident, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentCGStepDev(PGXResident, const PetscScalar *, const PetscScalar *, const PetscScalar *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *);
/* the look-ahead CG's step, z <- B r and z'r, ||z||^2 into d2[0..1]: with PCNONE or PCJACOBI and fuse, one pass
   (CGStepPointwiseDev); with a device PC and fuse, CGStepDev and PGXPCApplyDeviceDotNorm2() (the sums in the PC's
   last pass where it can: r->pcsums); otherwise CGStepDev, PGXResidentPCApply() and DotNorm2Dev in turn */
PETSC_INTERN PetscErrorCode PGXResidentCGStepPCDev(KSP, PGXResident, PetscBool, const PetscScalar *, const PetscScalar *, const PetscScalar *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscBool      PGXResidentPCPointwise(PGXResident);
PETSC_INTERN PetscErrorCode PGXResidentMultDotAYPXDev(PGXResident, const PetscScalar *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentFetchArm(PGXResident, PetscInt, const PetscScalar *, PetscInt);
PETSC_INTERN PetscErrorCode PGXResidentFetchBegin(PGXResident, PetscInt, const PetscScalar *, PetscInt);
PETSC_INTERN PetscErrorCode PGXResidentFetchEnd(PGXResident, PetscInt, PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentMDotDev(PGXResident, PetscInt, const PetscScalar *, PetscInt, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentMAXPYNegDev(PGXResident, PetscInt, const PetscScalar *, const PetscScalar *, PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentNorm2SqDev(PGXResident, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentScaleInvSqrtDev(PGXResident, const PetscScalar *, PetscScalar *);
/* Local updates */
PETSC_INTERN PetscErrorCode PGXResidentAXPY(PGXResident, PetscScalar, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentAYPX(PGXResident, PetscScalar, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentWAXPY(PGXResident, PetscScalar, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentAXPBYPCZ(PGXResident, PetscScalar, PetscScalar, PetscScalar, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentMAXPY(PGXResident, PetscInt, const PetscScalar *, const PetscScalar *, PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentScale(PGXResident, PetscScalar, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentCopy(PGXResident, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXResidentSet(PGXResident, PetscScalar, PetscScalar *);

/* Shared KSP glue: the first member of the context of each PGX KSP */
typedef struct {
  PGXResident   res;    /* operator, PC binding, work vectors */
  PGXDeviceType devreq; /* -pgx_device as requested */
  PetscScalar  *X;      /* during a solve: the resident iterate (for KSPBuildSolution() from monitors); else NULL */
} KSP_PGXResident;

/* KSPBuildSolution() during a solve: the resident array x copied to v (or to ksp->vec_sol); outside a solve,
   KSPBuildSolutionDefault() */
PETSC_INTERN PetscErrorCode PGXKSPResidentBuildSolution(KSP, KSP_PGXResident *, const PetscScalar *, Vec, Vec *);

PETSC_INTERN PetscErrorCode PGXKSPResidentCreate(KSP, KSP_PGXResident *);
PETSC_INTERN PetscErrorCode PGXKSPResidentSetUp(KSP, KSP_PGXResident *);
PETSC_INTERN PetscErrorCode PGXKSPResidentDestroy(KSP, KSP_PGXResident *);
PETSC_INTERN PetscErrorCode PGXKSPResidentSetFromOptions(KSP, KSP_PGXResident *, PGXOptionItems);
PETSC_INTERN PetscErrorCode PGXKSPResidentView(KSP, KSP_PGXResident *, PetscViewer);

PETSC_INTERN PetscLogEvent PGX_KSPSetUp, PGX_KSPSolve, PGX_KSPSpMV, PGX_KSPPCApply, PGX_KSPOrthog, PGX_KSPCopy;
