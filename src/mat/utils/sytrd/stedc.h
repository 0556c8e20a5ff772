/* stedc.h: the driver of PGX's divide and conquer tridiagonal eigensolver (stedc.cxx), for PGXSytrd; the
   mathematics is in stedc_kernels.h. */
#pragma once
#include <pgx/sytrd.h>

/* Eigenvalues (ascending, into d) and eigenvectors of the symmetric tridiagonal (d, e) of order n; Z is n x n
   with leading dimension n in the backend's memory (device array for PGX_DEVICE_CUDA, host for
   PGX_DEVICE_HOST). leaf: largest subproblem solved by dsteqr (<= 0: PGX_STEDC_DEFAULT_LEAF); threads: host
   threads of the secular equations (<= 0: the hardware's, at most 16). e is not changed. */
PETSC_INTERN PetscErrorCode PGXStedcRun(PGXDeviceType, PetscInt leaf, PetscInt threads, PetscInt n, PetscReal d[], const PetscReal e[], PetscReal *Z, PGXStedcStats *);
