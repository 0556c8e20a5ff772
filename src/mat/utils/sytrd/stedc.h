/* stedc.h: the driver of PGX's divide and conquer tridiagonal eigensolver (stedc.cxx), for PGXSytrd; the
   mathematics is in stedc_kernels.h. */
#pragma once
#include <pgx/sytrd.h>

/* Eigenvalues (ascending, into d) and eigenvectors of the symmetric tridiagonal (d, e) of order n; Z is n x n
   with leading dimension n in the backend's memory (device array for PGX_DEVICE_CUDA, host for
   PGX_DEVICE_HOST). leaf: largest subproblem solved by dsteqr (<= 0: PGX_STEDC_DEFAULT_LEAF); threads: host
   threads, the caller's included (<= 0: PGXStedcDefaultThreads(); at most PGX_STEDC_MAX_THREADS); the results
   are bitwise the same for any number (for either place of the secular equations: PGXStedcSecular). e is not
   changed. -info prints the seconds of each phase by level. */
PETSC_INTERN PetscErrorCode PGXStedcRun(PGXDeviceType, PGXStedcSecular, PetscInt leaf, PetscInt threads, PetscInt n, PetscReal d[], const PetscReal e[], PetscReal *Z, PGXStedcStats *);
/* The default number of host threads: the hardware's (std::thread::hardware_concurrency()), no more than the
   CPUs this process may run on (its affinity mask: an MPI launcher may bind it to one core), at most
   PGX_STEDC_MAX_THREADS */
PETSC_INTERN PetscErrorCode PGXStedcDefaultThreads(PetscInt *);
