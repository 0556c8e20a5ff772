/* tests/common/pgxtest.h: what every PGX test program shares.

   CHECK(cond, fmt, ...) counts a failed check in the test's own counter 'nfail' and prints
   "CHECK FAILED (file:line): message" on the rank that saw it; the test goes on, and main() ends with
   "all checks passed" or "N checks FAILED" and a non-zero exit. Inside PETSc functions it uses PetscPrintf
   (so it must be used in functions returning PetscErrorCode); define PGX_TEST_PLAIN_CHECK before including
   this header to get a printf version for plain C++ helpers. */
#pragma once
#include <petscsys.h>
#include <stdio.h>

#if defined(PGX_TEST_PLAIN_CHECK)
  #define CHECK(cond, ...) \
    do { \
      if (!(cond)) { \
        printf("CHECK FAILED (%s:%d): ", __FILE__, __LINE__); \
        printf(__VA_ARGS__); \
        printf("\n"); \
        nfail++; \
      } \
    } while (0)
#else
  #define CHECK(cond, ...) \
    do { \
      if (!(cond)) { \
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "CHECK FAILED (%s:%d): ", __FILE__, __LINE__)); \
        PetscCall(PetscPrintf(PETSC_COMM_SELF, __VA_ARGS__)); \
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n")); \
        nfail++; \
      } \
    } while (0)
#endif

/* Eigenvalue k (1-based, k = 1 the largest) of Frank's matrix a_ij = n - max(i,j) + 1 (1-based) of order n:
   1 / (2 (1 - cos x)) with x = (2k-1) pi / (2n+1), evaluated as 1 / (4 sin^2(x/2)), which keeps full relative accuracy
   (1 - cos x loses about eps / x^2 to cancellation: 3e-9 relative for the largest eigenvalue at n = 4096) */
static inline PetscReal PGXFrankEigenvalue(PetscInt n, PetscInt k)
{
  PetscReal s = PetscSinReal((2.0 * k - 1.0) * PETSC_PI / (2.0 * (2.0 * n + 1.0)));
  return 1.0 / (4.0 * s * s);
}
