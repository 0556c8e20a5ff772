/* pgximpl.h: PGX internals shared by the glue of every capability (no CUDA headers here).

   Device layer, as seen from host code:
   - PGXDeviceResolve() turns -pgx_device auto into host or cuda, and refuses cuda without a GPU.
   - PGXDeviceMalloc/Free/CopyToDevice/CopyToHost/Memset: device memory for the glue's persistent
     buffers. Store every pointer in the object's context at once, so Reset frees it on any error path.
   - PGXVecStage: device pointers for a PETSc Vec. A Vec whose array lives on the host is staged through
     a device buffer owned by the stage; a Vec whose array already lives on the device (a CUDA-enabled
     PETSc) is used in place.
   The functions are defined in every build; without CUDA they raise PETSC_ERR_SUP_SYS. */
#pragma once
#include <pgx.h>
#include <pgx/pgxcompat.h>
#include <petsc/private/petscimpl.h>

PETSC_EXTERN PetscClassId PGX_CLASSID;

/* Log events, registered once in PGXInitializePackage() */
PETSC_EXTERN PetscLogEvent PGX_DeviceInit, PGX_CopyToDevice, PGX_CopyToHost, PGX_GhostBegin, PGX_GhostEnd;

/* Each capability registers its types and events here; called by PGXInitializePackage() */
PETSC_INTERN PetscErrorCode PGXRegister_DILU(void);
PETSC_INTERN PetscErrorCode PGXRegister_AIPS(void);
PETSC_INTERN PetscErrorCode PGXRegister_EPS(void); /* only in builds with SLEPc (PGX_HAVE_SLEPC) */
PETSC_INTERN PetscErrorCode PGXRegister_KSP(void);
PETSC_INTERN PetscErrorCode PGXRegister_DenseLU(void);
PETSC_INTERN PetscErrorCode PGXRegister_LDLT(void);

/* Device memory (host-callable) */
PETSC_EXTERN PetscErrorCode PGXDeviceMalloc(size_t, void **);
PETSC_EXTERN PetscErrorCode PGXDeviceFree(void *); /* takes the address of the pointer: PGXDeviceFree(&ctx->d_x); NULLs it */
PETSC_EXTERN PetscErrorCode PGXDeviceCopyToDevice(void *, const void *, size_t);
PETSC_EXTERN PetscErrorCode PGXDeviceCopyToHost(void *, const void *, size_t);
PETSC_EXTERN PetscErrorCode PGXDeviceMemset(void *, int, size_t);
PETSC_EXTERN PetscErrorCode PGXDeviceSynchronize(void);
/* Page-locked host memory (fast, DMA-able copies to and from the device); without CUDA plain PetscMalloc */
PETSC_EXTERN PetscErrorCode PGXHostMallocPinned(size_t, void **);
PETSC_EXTERN PetscErrorCode PGXHostFreePinned(void *); /* takes the address of the pointer; NULLs it */

/* Typed helpers */
#define PGXDeviceMallocArray(n, p)            PGXDeviceMalloc((size_t)(n) * sizeof(**(p)), (void **)(p))
#define PGXDeviceCopyArrayToDevice(d, h, n)   PGXDeviceCopyToDevice((void *)(d), (const void *)(h), (size_t)(n) * sizeof(*(h)))
#define PGXDeviceCopyArrayToHost(h, d, n)     PGXDeviceCopyToHost((void *)(h), (const void *)(d), (size_t)(n) * sizeof(*(h)))

/* Vec <-> device arrays */
typedef struct _n_PGXVecStage *PGXVecStage;
PETSC_EXTERN PetscErrorCode PGXVecStageCreate(PGXVecStage *);
PETSC_EXTERN PetscErrorCode PGXVecStageDestroy(PGXVecStage *);
PETSC_EXTERN PetscErrorCode PGXVecGetDeviceArrayRead(Vec, PGXVecStage, const PetscScalar **);
PETSC_EXTERN PetscErrorCode PGXVecRestoreDeviceArrayRead(Vec, PGXVecStage, const PetscScalar **);
PETSC_EXTERN PetscErrorCode PGXVecGetDeviceArrayWrite(Vec, PGXVecStage, PetscScalar **);
PETSC_EXTERN PetscErrorCode PGXVecRestoreDeviceArrayWrite(Vec, PGXVecStage, PetscScalar **);
/* A MATSEQAIJCUSPARSE's device values (host CSR order), or NULL for matrices whose values live on the host */
PETSC_EXTERN PetscErrorCode PGXMatGetDeviceValuesRead(Mat, const PetscScalar **);
/* A MATSEQAIJCUSPARSE's device row offsets and column indices (32-bit PetscInt, PETSc with CUDA), or NULL (use the
   host CSR); PGX's stream ordered after PETSc's work */
PETSC_EXTERN PetscErrorCode PGXMatGetDevicePattern(Mat, const PetscInt **, const PetscInt **);
PETSC_EXTERN PetscErrorCode PGXMatRestoreDevicePattern(Mat, const PetscInt **, const PetscInt **);

/* The ghost exchange of a MATMPIAIJ product on device or host arrays (src/sys/ghost.cxx): resident KSPs, PCAIPS */
typedef struct _n_PGXGhost *PGXGhost;
PETSC_EXTERN PetscErrorCode PGXGhostCreate(Mat, PGXDeviceType, PetscErrorCode (*)(PetscInt, const PetscInt *, const PetscScalar *, PetscScalar *), PGXGhost *);
PETSC_EXTERN PetscErrorCode PGXGhostBegin(PGXGhost, const PetscScalar *);
PETSC_EXTERN PetscErrorCode PGXGhostEnd(PGXGhost, const PetscScalar **);
PETSC_EXTERN PetscErrorCode PGXGhostGetSizes(PGXGhost, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode PGXGhostGetSendIndices(PGXGhost, PetscInt *, const PetscInt **);
PETSC_EXTERN PetscErrorCode PGXGhostDestroy(PGXGhost *);
PETSC_EXTERN PetscErrorCode PGXGhostGetPath(PGXGhost, const char **);
/* Its GPU-to-GPU path for ranks of one node (src/sys/cuda/ghostpeer.cu; CUDA IPC): create (collective; NULL where any
   rank cannot take it, with the reason), then per exchange Prepare (before the gather), Start (after it), Finish */
typedef struct _n_PGXGhostPeer *PGXGhostPeer;
PETSC_INTERN PetscErrorCode PGXGhostPeerCreate(MPI_Comm, PetscBool, PetscMPIInt, const PetscMPIInt *, const PetscInt *, PetscMPIInt, const PetscMPIInt *, const PetscInt *, void *, void *, PGXGhostPeer *, const char **);
PETSC_INTERN PetscErrorCode PGXGhostPeerPrepare(PGXGhostPeer);
PETSC_INTERN PetscErrorCode PGXGhostPeerStart(PGXGhostPeer);
PETSC_INTERN PetscErrorCode PGXGhostPeerFinish(PGXGhostPeer);
PETSC_INTERN PetscErrorCode PGXGhostPeerDestroy(PGXGhostPeer *);
/* Its push variant (-pgx_ghost_push; ranks on GPUs of their own): senders store into their receivers' ghost arrays and
   raise flags in device memory, End waits on the GPU; no MPI message and no host wait per exchange */
typedef struct _n_PGXGhostPush *PGXGhostPush;
PETSC_INTERN PetscErrorCode PGXGhostPushCreate(MPI_Comm, PetscBool, PetscMPIInt, const PetscMPIInt *, const PetscInt *, PetscMPIInt, const PetscMPIInt *, const PetscInt *, const PetscInt *, PetscScalar *, PGXGhostPush *, const char **);
PETSC_INTERN PetscErrorCode PGXGhostPushBegin(PGXGhostPush, const PetscScalar *);
PETSC_INTERN PetscErrorCode PGXGhostPushEnd(PGXGhostPush);
PETSC_INTERN PetscErrorCode PGXGhostPushDestroy(PGXGhostPush *);
/* Sums over the ranks of scalars in device memory without the host (src/sys/cuda/devreduce.cu; CUDA IPC mailboxes, for
   ranks of one node on GPUs of their own): create (collective; NULL where any rank cannot take it, with the reason),
   Sum (queued on PGX's stream, k scalars in place, any k: PGX_DEVREDUCE_MAXK per kernel), Destroy (collective) */
#define PGX_DEVREDUCE_MAXK 32
typedef struct _n_PGXDevReduce *PGXDevReduce;
PETSC_INTERN PetscErrorCode PGXDevReduceCreate(MPI_Comm, PGXDevReduce *, const char **);
PETSC_INTERN PetscErrorCode PGXDevReduceSum(PGXDevReduce, PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode PGXDevReduceGetCount(PGXDevReduce, PetscInt *);
PETSC_INTERN PetscErrorCode PGXDevReduceDestroy(PGXDevReduce *);

/* Rank-to-device mapping (src/sys/device.cxx): -pgx_device_id, else PETSc's device, else local rank % count */
PETSC_EXTERN PetscErrorCode PGXDeviceSelect(PetscInt, PetscInt, PetscInt, PetscInt, PetscInt *, const char **);
PETSC_EXTERN PetscErrorCode PGXGetDeviceIdOption(PetscInt *);
PETSC_EXTERN PetscErrorCode PGXCUDAProbeBegin(void); /* the first CUDA calls on a thread, overlapping host work */
PETSC_EXTERN PetscErrorCode PGXCUDAProbeJoin(void);  /* waits for a running probe (before a fork) */
/* Each PGX object's View: on every rank, the device that rank uses (cuda backend) */
PETSC_EXTERN PetscErrorCode PGXViewDevice(PetscViewer, PGXDeviceType);

/* PGX_HAVE_CUDA_REAL: the cuda backends written for real scalars only are built (PGX with CUDA against a real PETSc).
   With a complex PETSc only the CUDA code that supports complex scalars is built (the device layer, the sparse LDL^T,
   the Hermitian reduction of EPS pgx, PCDILU, PCAIPS with its tridiagonal solver and the resident KSPs, whose glue
   tests PGX_HAVE_CUDA); the dense LU's glue tests PGX_HAVE_CUDA_REAL for PGX's own kernels and, with complex scalars,
   takes its cuSOLVER backend (src/mat/impls/denselu/cudaz). */
#if PGX_HAVE_CUDA
/* The CUDA libraries that PGX loads at their first use (pgxcudalibs.h): PGXCUDALibCheck loads lib if it is not yet
   loaded and returns PETSC_SUCCESS when it and every function PGX calls in it are there, else a PETSc error with the
   loader's message. It needs no GPU. */
typedef enum {
  PGX_CUDALIB_CUBLAS   = 0,
  PGX_CUDALIB_CUSPARSE = 1,
  PGX_CUDALIB_CUSOLVER = 2
} PGXCUDALib;
PETSC_EXTERN PetscErrorCode PGXCUDALibCheck(PGXCUDALib);
/* PGXCUDALibInitialize: PGXCUDALibCheck, then PGX's handle of lib on PGX's stream (needs a GPU). Setup routines call it
   for the libraries their solve will use, so that the load and the handle's creation are paid in the setup (and a
   missing library is reported there), not in the solve. */
PETSC_EXTERN PetscErrorCode PGXCUDALibInitialize(PGXCUDALib);
#endif

#if PGX_HAVE_CUDA && !defined(PETSC_USE_COMPLEX)
  #define PGX_HAVE_CUDA_REAL 1
#else
  #define PGX_HAVE_CUDA_REAL 0
#endif

/* Backend names for View and -log_view */
static inline const char *PGXDeviceName(PGXDeviceType t)
{
  return t == PGX_DEVICE_CUDA ? "cuda" : (t == PGX_DEVICE_HOST ? "host (reference)" : "auto");
}

/* Checks shared by the PC glue: the preconditioning matrix is square with square local blocks */
PETSC_EXTERN PetscErrorCode PGXPCCheckSquare(PC, const char[]);
