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
