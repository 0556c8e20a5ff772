/* tests/denselu/denselu_matrices.h: seeded test matrices for the dense LU tests (reference, PETSc-level and
   cuda tests use the same generators, so the same seeds give the same inputs). Column-major, lda = n.
     random    entries uniform in [-1,1)
     illcond   U diag(s) V^T, s graded geometrically from 1 to 1/cond, U and V orthogonal (Q of the
               Householder QR (LAPACK geqrf/orgqr) of random matrices)
     cluster   U diag(s) V^T with s = 1 except the last, 1/cond (LAPACK dlatms mode 2): ill-conditioned in one
               direction only, where GMRES-IR with a low-precision factor converges in a few iterations
     zerolead  random with a_00 = 0 (the first step must pivot)
     wilkinson a_ii = 1, a_ij = -1 (i > j), last column 1: growth factor 2^(n-1), exact in binary
     singular  random with column zc = n/2 + 3 (clamped) zero: an exactly zero pivot in that column
     diagdom   random plus n on the diagonal (no interchanges), the well-conditioned benchmark matrix */
#pragma once
#include <petscsys.h>
#include <petscblaslapack.h>
#include <math.h>
#include <string.h>

static unsigned long long denselu_seed = 20241123ULL;
static inline void DenseLUSeed(unsigned long long s) { denselu_seed = s; }
static inline double DenseLURand(void) /* uniform in [-1,1) */
{
  denselu_seed = denselu_seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(denselu_seed >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static inline PetscInt DenseLUSingularColumn(PetscInt n) { return n / 2 + 3 < n ? n / 2 + 3 : n - 1; }

/* entries uniform in [-1,1) (complex builds: real and imaginary parts, from the same stream) */
static inline PetscScalar DenseLURandScalar(void)
{
#if defined(PETSC_USE_COMPLEX)
  PetscReal re = DenseLURand();
  return PetscCMPLX(re, DenseLURand());
#else
  return DenseLURand();
#endif
}

static inline void DenseLURandom(PetscInt n, PetscScalar *a)
{
  for (PetscInt i = 0; i < n * n; i++) a[i] = DenseLURandScalar();
}

/* q <- an orthogonal (complex: unitary) n x n matrix, the Q of LAPACK's QR of a random matrix */
static inline PetscErrorCode DenseLUOrthogonal(PetscInt n, PetscScalar *q)
{
  PetscBLASInt bn, info, lwork;
  PetscScalar *tau, *work;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(n, &bn));
  lwork = 64 * (bn > 1 ? bn : 1);
  PetscCall(PetscMalloc2(n, &tau, lwork, &work));
  DenseLURandom(n, q);
  LAPACKgeqrf_(&bn, &bn, q, &bn, tau, work, &lwork, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "geqrf info %d", (int)info);
  LAPACKorgqr_(&bn, &bn, &bn, q, &bn, tau, work, &lwork, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "orgqr info %d", (int)info);
  PetscCall(PetscFree2(tau, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode DenseLUIllConditioned(PetscInt n, double cond, PetscBool cluster, PetscScalar *a)
{
  PetscScalar *u, *v;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n * n, &u, n * n, &v));
  PetscCall(DenseLUOrthogonal(n, u));
  PetscCall(DenseLUOrthogonal(n, v));
  for (PetscInt k = 0; k < n; k++) { /* u(:,k) *= s_k */
    double s = cluster ? (k == n - 1 ? 1.0 / cond : 1.0) : (n > 1 ? pow(cond, -(double)k / (double)(n - 1)) : 1.0);
    for (PetscInt i = 0; i < n; i++) u[i + k * n] *= s;
  }
  for (PetscInt j = 0; j < n; j++) /* a = u v^H */
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar t = 0;
      for (PetscInt k = 0; k < n; k++) t += u[i + k * n] * PetscConj(v[j + k * n]);
      a[i + j * n] = t;
    }
  PetscCall(PetscFree2(u, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline void DenseLUWilkinson(PetscInt n, PetscScalar *a)
{
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) a[i + j * n] = (j == n - 1 || i == j) ? 1.0 : (i > j ? -1.0 : 0.0);
}

/* kind: random, illcond, cluster, zerolead, wilkinson, singular, diagdom */
static inline PetscErrorCode DenseLUMatrix(const char *kind, PetscInt n, double cond, PetscScalar *a)
{
  PetscFunctionBegin;
  if (!strcmp(kind, "random")) DenseLURandom(n, a);
  else if (!strcmp(kind, "illcond")) PetscCall(DenseLUIllConditioned(n, cond, PETSC_FALSE, a));
  else if (!strcmp(kind, "cluster")) PetscCall(DenseLUIllConditioned(n, cond, PETSC_TRUE, a));
  else if (!strcmp(kind, "zerolead")) {
    DenseLURandom(n, a);
    a[0] = 0.0;
  } else if (!strcmp(kind, "wilkinson")) DenseLUWilkinson(n, a);
  else if (!strcmp(kind, "singular")) {
    DenseLURandom(n, a);
    for (PetscInt i = 0; i < n; i++) a[i + DenseLUSingularColumn(n) * n] = 0.0;
  } else if (!strcmp(kind, "diagdom")) {
    DenseLURandom(n, a);
    for (PetscInt i = 0; i < n; i++) a[i + i * n] += (double)n;
  } else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "unknown test matrix %s", kind);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||A x - b||_inf / (||A||_inf ||x||_inf n eps) for one column (op = 'T': A^T x - b) */
static inline double DenseLUBackwardError(PetscInt n, const PetscScalar *a, const PetscScalar *x, const PetscScalar *b, char op)
{
  double rmax = 0, anorm = 0, xnorm = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar r = -b[i];
    double      s = 0;
    for (PetscInt j = 0; j < n; j++) {
      PetscScalar aij = op == 'T' ? a[j + i * n] : a[i + j * n];
      r += aij * x[j], s += PetscAbsScalar(aij);
    }
    rmax  = PetscAbsScalar(r) > rmax ? PetscAbsScalar(r) : rmax;
    anorm = s > anorm ? s : anorm;
    xnorm = PetscAbsScalar(x[i]) > xnorm ? PetscAbsScalar(x[i]) : xnorm;
  }
  if (n == 0 || anorm == 0 || xnorm == 0) return rmax;
  return rmax / (anorm * xnorm * (double)n * PETSC_MACHINE_EPSILON);
}
