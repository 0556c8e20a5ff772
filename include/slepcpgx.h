/* slepcpgx.h: PGX for SLEPc. EPSPGX ("pgx") solves standard Hermitian eigenproblems densely: the operator's
   matrix is gathered, reduced to tridiagonal form (PGXSytrd: one-stage blocked Householder, on the GPU with
   the cuda backend), T is solved by LAPACK's dstedc and the eigenvectors are back-transformed.
   Load with -dll_append /path/to/lib/libpgx.so -eps_type pgx, or link -lpgx and call PGXInitializePackage()
   after SlepcInitialize(). PETSc-only programs do not include this header. */
#pragma once
#include <slepceps.h>
#include <pgx.h>
#include <pgx/sytrd.h>

#define EPSPGX "pgx"

PETSC_EXTERN PetscErrorCode EPSPGXSetBlockSize(EPS, PetscInt);
PETSC_EXTERN PetscErrorCode EPSPGXGetBlockSize(EPS, PetscInt *);
PETSC_EXTERN PetscErrorCode EPSPGXSetSymv(EPS, PGXSytrdSymv);
PETSC_EXTERN PetscErrorCode EPSPGXGetSymv(EPS, PGXSytrdSymv *);
PETSC_EXTERN PetscErrorCode EPSPGXGetTimes(EPS, PGXSytrdTimes *);
