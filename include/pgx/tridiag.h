/* tridiag.h: PGX's batched tridiagonal solver (internal interface, used by PCAIPS, tests and benchmarks).

   A PGXTridiag solves P y = r where P is block diagonal with tridiagonal blocks of any sizes:
   block b owns rows offsets[b] .. offsets[b+1]-1; row i of the system is
       dl[i] y[i-1] + d[i] y[i] + du[i] y[i+1] = r[i]
   (dl of a block's first row and du of its last row are ignored).

   Setup (host arrays, both backends):
   - PGXTridiagSetUpSymbolic(T, nblocks, offsets): lays the batch out (see the layouts below: interleaved
     groups of equal size, or tiles in natural order), and cuts every block longer
     than the threshold into partitions of at most 'threshold' rows separated by single rows; the
     separators form a smaller tridiagonal system (the Schur complement) solved recursively by a child
     PGXTridiag (a partition method), so one huge block does not serialize the solve.
   - PGXTridiagSetUpNumericDevice(T, dl, d, du, &info): the same from P in device memory (cuda backend), factored
     there in the tiled layout without long blocks, through the host otherwise.
   - PGXTridiagSetUpNumeric(T, dl, d, du, &info): the elimination without pivoting (Thomas factors:
     forward multipliers, inverse pivots and modified super-diagonal, in the layout's order), the
     partitions' spikes and the factored reduced system. A zero, tiny (|pivot| <= 1e-13 max|row|) or non-finite
     pivot is reported in info (block, row, pivot); it is not an error.
   Solve (arrays in the backend's memory: host for PGX_DEVICE_HOST, device for PGX_DEVICE_CUDA):
       y = alpha P^{-1} r + beta w          (w may be NULL: y = alpha P^{-1} r); r and y must not alias.
   In the interleaved layout the permutation from natural to interleaved order and back is part of the
   solve's kernels; the tiled layout keeps the natural order. */
#pragma once
#include <pgx.h>

typedef struct _n_PGXTridiag *PGXTridiag;

/* Layouts of the batch (PGXTridiagSetLayout()):
   - INTERLEAVED: the blocks sorted into groups of equal size (within windows of 2^18 rows), each group
     interleaved, one GPU thread per block; blocks longer than the threshold (default
     PGX_TRIDIAG_DEFAULT_THRESHOLD) are cut into partitions.
   - TILED: the factors in natural row order, cut into tiles of whole blocks of at most
     PGX_TRIDIAG_TILE_ROWS rows; a thread block solves a tile with 8 rows per thread and two parallel scans
     of the affine recurrences of the forward and backward sweeps (the zero couplings at the block ends
     decouple the blocks), so every load is coalesced and the parallelism is n/8 threads whatever the
     block sizes. Blocks longer than the threshold (default and maximum PGX_TRIDIAG_TILE_ROWS) are cut into
     partitions.
   - AUTO: TILED on the cuda backend (measured on the H100: faster on every batch shape of bench/tridiag,
     see bench/results/), INTERLEAVED on the host (the specification). */
typedef enum {
  PGX_TRIDIAG_LAYOUT_AUTO,
  PGX_TRIDIAG_LAYOUT_INTERLEAVED,
  PGX_TRIDIAG_LAYOUT_TILED
} PGXTridiagLayout;
PETSC_EXTERN const char *const PGXTridiagLayouts[];


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
  PetscInt  ngroups;    /* groups of equal block size (per row window) in the batch (level 0; 0 when tiled) */
  PetscInt  nchunks;    /* thread blocks of the batch kernel (level 0): chunks or tiles */
  PetscInt  nlong;      /* blocks longer than the threshold (solved by partitions) */
  PetscInt  nlevels;    /* 1 + depth of the reduced systems */
  PetscInt  threshold;  /* the threshold in effect */
  PGXTridiagLayout layout; /* the layout in effect (not AUTO) */
  PetscBool numdevice;     /* the last numeric setup factored on the device (PGXTridiagSetUpNumericDevice()) */
} PGXTridiagInfo;

/* Default threshold of the interleaved layout (a block of 256 rows costs one thread 512 dependent steps) */
#define PGX_TRIDIAG_DEFAULT_THRESHOLD 256
#define PGX_TRIDIAG_MAX_THRESHOLD     4096
/* Longest block a tile of the tiled layout holds (512 threads x 8 rows, less 7 for the 64-byte alignment
   of the tile; tiles of 256 x 8 are used when every block has at most 2041 rows) */
#define PGX_TRIDIAG_TILE_ROWS 4089

PETSC_EXTERN PetscErrorCode PGXTridiagCreate(PGXDeviceType, PGXTridiag *);
PETSC_EXTERN PetscErrorCode PGXTridiagDestroy(PGXTridiag *);
PETSC_EXTERN PetscErrorCode PGXTridiagSetThreshold(PGXTridiag, PetscInt);
PETSC_EXTERN PetscErrorCode PGXTridiagSetLayout(PGXTridiag, PGXTridiagLayout);
PETSC_EXTERN PetscErrorCode PGXTridiagSetUpSymbolic(PGXTridiag, PetscInt, const PetscInt[]);
PETSC_EXTERN PetscErrorCode PGXTridiagSetUpNumeric(PGXTridiag, const PetscScalar[], const PetscScalar[], const PetscScalar[], PGXTridiagPivotInfo *);
PETSC_EXTERN PetscErrorCode PGXTridiagSetUpNumericDevice(PGXTridiag, const PetscScalar[], const PetscScalar[], const PetscScalar[], PGXTridiagPivotInfo *);
PETSC_EXTERN PetscErrorCode PGXTridiagSolve(PGXTridiag, PetscScalar, const PetscScalar[], PetscScalar, const PetscScalar[], PetscScalar[]);
/* y = alpha P^{-1} (B x) + beta w with B in DIA storage (pgx/private/pgxdia.h: ndiag increasing offsets, val[d n + i]
   = B(i, i + off[d])); on cuda with the tiled layout and no long blocks one pass forms B x as the solve reads it
   (*fused true), otherwise t = B x first (t: n entries of work; may be NULL where fused) */
PETSC_EXTERN PetscErrorCode PGXTridiagSolveDIAFuses(PGXTridiag, PetscBool *);
PETSC_EXTERN PetscErrorCode PGXTridiagSolveDIA(PGXTridiag, PetscScalar, PetscInt, const PetscInt[], const PetscScalar[], const PetscScalar[], PetscScalar, const PetscScalar[], PetscScalar[], PetscScalar[], PetscBool *);
/* the fused pass of PGXTridiagSolveDIA that also leaves d2[0] = sum conj(y_i) v_i, d2[1] = sum |y_i|^2 in device memory */
PETSC_EXTERN PetscErrorCode PGXTridiagSolveDIADotNorm2(PGXTridiag, PetscScalar, PetscInt, const PetscInt[], const PetscScalar[], const PetscScalar[], PetscScalar, const PetscScalar[], PetscScalar[], const PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode PGXTridiagGetInfo(PGXTridiag, PGXTridiagInfo *);
PETSC_EXTERN PetscErrorCode PGXTridiagGetDeviceType(PGXTridiag, PGXDeviceType *);
/* Bytes the solve moves through DRAM in the model used by the benchmarks: 3 factors + r + y per row
   (+ w when given), the block starts and chunk table, and the reduced systems */
PETSC_EXTERN PetscErrorCode PGXTridiagGetSolveBytes(PGXTridiag, PetscBool, PetscLogDouble *);
