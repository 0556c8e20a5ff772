/* PCDILU: diagonal-based incomplete LU (DIC for symmetric A) on the GPU. See the PCDILU man page. */
#pragma once
#include <petscpc.h>

#define PCDILU "dilu"

/* Schedule of the factorization and the triangular sweeps: natural = level sets of A's own ordering
   (exactly sequential DILU); multicolor = color the symmetrized graph and sweep color by color. */
typedef enum {
  PC_DILU_ORDERING_NATURAL,
  PC_DILU_ORDERING_MULTICOLOR
} PCDILUOrdering;
PETSC_EXTERN const char *const PCDILUOrderings[];

PETSC_EXTERN PetscErrorCode PCDILUSetOrdering(PC, PCDILUOrdering);
PETSC_EXTERN PetscErrorCode PCDILUGetOrdering(PC, PCDILUOrdering *);
PETSC_EXTERN PetscErrorCode PCDILUSetShift(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCDILUGetShift(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCDILUSetColorWave(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCDILUGetColorWave(PC, PetscInt *);
