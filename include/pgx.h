/* pgx.h: the public interface of PGX, a PETSc plugin with GPU preconditioners and solvers.

   Load PGX into any PETSc program with -dll_append /path/to/lib/libpgx.so, or link with -lpgx and call
   PGXInitializePackage() after PetscInitialize(). Then select -pc_type dilu, -pc_type aips, ... */
#pragma once
#include <petscpc.h>
#include <petscmat.h>
#include <pgx/pgxversion.h>
#include <pgx/pgxcompat.h>

/* Where PGX runs its kernels; -pgx_device auto|host|cuda (auto: cuda when built with CUDA and a GPU is visible) */
typedef enum {
  PGX_DEVICE_AUTO,
  PGX_DEVICE_HOST,
  PGX_DEVICE_CUDA
} PGXDeviceType;
PETSC_EXTERN const char *const PGXDeviceTypes[];

PETSC_EXTERN PetscErrorCode PGXInitializePackage(void);
PETSC_EXTERN PetscErrorCode PGXFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PGXGetDefaultDeviceType(PGXDeviceType *);
PETSC_EXTERN PetscErrorCode PGXDeviceResolve(MPI_Comm, PGXDeviceType, PGXDeviceType *);
PETSC_EXTERN PetscErrorCode PGXCUDAIsAvailable(PetscBool *);
PETSC_EXTERN PetscErrorCode PGXCUDAGetDeviceCount(PetscInt *);
PETSC_EXTERN PetscErrorCode PGXCUDAGetUnavailableReason(const char **);
PETSC_EXTERN PetscErrorCode PGXGetVersion(char[], size_t);
PETSC_EXTERN PetscErrorCode PGXDeviceGetName(char[], size_t);

/* MatSolverType of PGX's factorizations: sparse LDL^T (MAT_FACTOR_CHOLESKY on AIJ/SBAIJ) and dense LU
   (MAT_FACTOR_LU on dense): -pc_factor_mat_solver_type pgx */
#define MATSOLVERPGX "pgx"

/* Apply a PGX preconditioner to arrays that live in GPU memory (for GPU-resident Krylov methods) */
PETSC_EXTERN PetscErrorCode PGXPCApplyDevice(PC, const PetscScalar *, PetscScalar *);
PETSC_EXTERN PetscErrorCode PGXPCApplyDeviceDotNorm2(PC, const PetscScalar *, PetscScalar *, PetscScalar *, PetscBool *);

#include <pgx/pcdilu.h>
#include <pgx/pcaips.h>
#include <pgx/kspresident.h>
