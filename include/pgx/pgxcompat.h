/* pgxcompat.h: the PETSc API differences that a plugin meets between 3.18 (Debian 12) and the current release.
   Every PGX source includes this (through pgximpl.h) instead of testing PETSC_VERSION_* itself. */
#pragma once
#include <petscversion.h>
#include <petscsys.h>
#include <petscmat.h>

#if !PETSC_VERSION_GE(3, 18, 0)
  #error "PGX needs PETSc 3.18 or later"
#endif
#if !defined(PETSC_USE_REAL_DOUBLE)
  #error "PGX supports double precision only for now: configure PETSc with --with-precision=double"
#endif

/* 3.19: PETSC_SUCCESS (PetscFunctionReturn(PETSC_SUCCESS)) */
#if !defined(PETSC_SUCCESS)
  #define PETSC_SUCCESS ((PetscErrorCode)0)
#endif

/* 3.23: PetscOptionItems becomes a pointer type; the setfromoptions methods take it by value.
   Write: static PetscErrorCode PCSetFromOptions_X(PC pc, PGXOptionItems PetscOptionsObject) */
#if PETSC_VERSION_GE(3, 23, 0)
typedef PetscOptionItems PGXOptionItems;
#else
typedef PetscOptionItems *PGXOptionItems;
#endif

/* 3.20: PetscValidPointer() is renamed PetscAssertPointer() (the old name later disappears) */
#if !PETSC_VERSION_GE(3, 20, 0)
  #define PetscAssertPointer(h, arg) PetscValidPointer(h, arg)
#endif

/* 3.22: PETSC_MAX_INT/PETSC_MIN_INT are renamed PETSC_INT_MAX/PETSC_INT_MIN */
#if !PETSC_VERSION_GE(3, 22, 0)
  #define PETSC_INT_MAX PETSC_MAX_INT
  #define PETSC_INT_MIN PETSC_MIN_INT
#endif

/* 3.21: MatSolverTypeRegister takes a MatSolverFn *; before, a MatSolverFunction */
#if PETSC_VERSION_GE(3, 21, 0)
  #define PGXMatSolverFn(f) ((MatSolverFn *)(f))
#else
  #define PGXMatSolverFn(f) ((MatSolverFunction)(f))
#endif

/* 3.22: "leave unchanged" for KSPSetTolerances() and friends is PETSC_CURRENT; PETSC_DEFAULT is deprecated */
#if PETSC_VERSION_GE(3, 22, 0)
  #define PGX_CURRENT PETSC_CURRENT
#else
  #define PGX_CURRENT PETSC_DEFAULT
#endif

/* 3.22: VecSetInf() is deprecated for VecFlag() (and gone from the 3.25 library): PGXVecSetInf() marks a failed
   preconditioner's output the way PETSc's own PCs do, so that the Krylov method reports DIVERGED_PC_FAILED */
#if PETSC_VERSION_GE(3, 22, 0)
  #define PGXVecSetInf(v) VecFlag((v), 1)
#else
  #define PGXVecSetInf(v) VecSetInf(v)
#endif

/* 3.24: MPIU_BOOL is deprecated for MPI_C_BOOL (PetscBool became C's bool); each is the MPI type of that
   version's PetscBool */
#if PETSC_VERSION_GE(3, 24, 0)
  #define PGX_MPI_BOOL MPI_C_BOOL
#else
  #define PGX_MPI_BOOL MPIU_BOOL
#endif

/* 3.20: MatGetFactor() may return a NULL factor instead of raising an error; PGXMatGetFactor() raises in both. */
static inline PetscErrorCode PGXMatGetFactor(Mat A, MatSolverType stype, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(MatGetFactor(A, stype, ftype, F));
  PetscCheck(*F, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "MatGetFactor() gave no factor of type %s for this matrix", stype);
  PetscFunctionReturn(PETSC_SUCCESS);
}
