/* PCAIPS: Neumann-series preconditioner on the tridiagonal part of A. See the PCAIPS man page. */
#pragma once
#include <petscpc.h>

#define PCAIPS "aips"

PETSC_EXTERN PetscErrorCode PCAIPSSetOrder(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCAIPSGetOrder(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCAIPSSetDamping(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCAIPSGetDamping(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCAIPSSetBlockThreshold(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCAIPSGetBlockThreshold(PC, PetscInt *);

/* Storage of R = A - P's local diagonal block on the GPU (cuda backend): auto (DIA when it pays), csr, dia */
typedef enum {
  PC_AIPS_REMAINDER_AUTO,
  PC_AIPS_REMAINDER_CSR,
  PC_AIPS_REMAINDER_DIA
} PCAIPSRemainderFormat;
PETSC_EXTERN const char *const PCAIPSRemainderFormats[];
PETSC_EXTERN PetscErrorCode    PCAIPSSetRemainderFormat(PC, PCAIPSRemainderFormat);
PETSC_EXTERN PetscErrorCode    PCAIPSGetRemainderFormat(PC, PCAIPSRemainderFormat *);
