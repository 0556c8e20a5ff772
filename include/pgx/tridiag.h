/* tridiag.h: PGX's batched tridiagonal solver (internal interface, used by PCAIPS, tests and benchmarks).

   A PGXTridiag solves P y = r where P is block diagonal with tridiagonal blocks of any sizes:
   block b owns rows offsets[b] .. offsets[b+1]-1; row i of the system is
       dl[i] y[i-1] + d[i] y[i] + du[i] y[i+1] = r[i]
   (dl of a block's first row and du of its last row are ignored).

   Setup (host arrays, both backends):
   - PGXTridiagSetUpSymbolic(T, nblocks, offsets): groups the blocks by size (load balance; within windows
     of 2^18 rows, for locality of r and y in L2), lays each group out interleaved (element k of every block of a group contiguous), and cuts every block longer
     than the threshold into partitions of at most 'threshold' rows separated by single rows; the
     separators form a smaller tridiagonal system (the Schur complement) solved recursively by a child
     PGXTridiag (a partition method), so one huge block does not serialize the solve.
   - PGXTridiagSetUpNumeric(T, dl, d, du, &info): the elimination without pivoting (Thomas factors:
     forward multipliers, inverse pivots and modified super-diagonal, interleaved), the partitions'
     spikes and the factored reduced system. A zero, tiny (|pivot| <= 1e-13 max|row|) or non-finite
     pivot is reported in info (block, row, pivot); it is not an error.
   Solve (arrays in the backend's memory: host for PGX_DEVICE_HOST, device for PGX_DEVICE_CUDA):
       y = alpha P^{-1} r + beta w          (w may be NULL: y = alpha P^{-1} r); r and y must not alias.
   The permutation from natural to interleaved order and back is part of the solve's kernels. */
#pragma once
#include <pgx.h>

typedef struct _n_PGXTridiag *PGXTridiag;

/* Pivot failure found by the numeric setup */
typedef struct {
  PetscBool   failed; /* a zero, tiny or non-finite pivot was met */
  PetscInt    block;  /* the block (index in the offsets given to SetUpSymbolic) */
  PetscInt    row;    /* the row of the system (0-based, counted over all blocks) */
  PetscScalar pivot;  /* the offending pivot */
} PGXTridiagPivotInfo;

/* Layout statistics for views and benchmarks */
typedef struct {
  PetscInt  n;          /* rows */
  PetscInt  nblocks;    /* blocks given */
  PetscInt  minsize, maxsize;
  PetscReal meansize;
  PetscInt  ngroups;    /* groups of equal block size (per row window) in the batch (level 0) */
  PetscInt  nchunks;    /* thread blocks of the batch kernel (level 0) */
  PetscInt  nlong;      /* blocks longer than the threshold (solved by partitions) */
  PetscInt  nlevels;    /* 1 + depth of the reduced systems */
  PetscInt  threshold;
} PGXTridiagInfo;

/* Default threshold: not yet measured on the GPU (bench/tridiag's one-block case sweeps it). 256 keeps the
   grid lines of the benchmark problems (m <= 256) whole, solved by one streaming thread each; a single
   block of 256 rows costs one thread 512 dependent steps (tens of microseconds) at worst. */
#define PGX_TRIDIAG_DEFAULT_THRESHOLD 256
#define PGX_TRIDIAG_MAX_THRESHOLD     4096

PETSC_EXTERN PetscErrorCode PGXTridiagCreate(PGXDeviceType, PGXTridiag *);
PETSC_EXTERN PetscErrorCode PGXTridiagDestroy(PGXTridiag *);
PETSC_EXTERN PetscErrorCode PGXTridiagSetThreshold(PGXTridiag, PetscInt);
PETSC_EXTERN PetscErrorCode PGXTridiagSetUpSymbolic(PGXTridiag, PetscInt, const PetscInt[]);
PETSC_EXTERN PetscErrorCode PGXTridiagSetUpNumeric(PGXTridiag, const PetscScalar[], const PetscScalar[], const PetscScalar[], PGXTridiagPivotInfo *);
PETSC_EXTERN PetscErrorCode PGXTridiagSolve(PGXTridiag, PetscScalar, const PetscScalar[], PetscScalar, const PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode PGXTridiagGetInfo(PGXTridiag, PGXTridiagInfo *);
PETSC_EXTERN PetscErrorCode PGXTridiagGetDeviceType(PGXTridiag, PGXDeviceType *);
/* Bytes the solve moves through DRAM in the model used by the benchmarks: 3 factors + r + y per row
   (+ w when given), the block starts and chunk table, and the reduced systems */
PETSC_EXTERN PetscErrorCode PGXTridiagGetSolveBytes(PGXTridiag, PetscBool, PetscLogDouble *);
