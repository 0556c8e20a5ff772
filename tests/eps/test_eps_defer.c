/* EPSPGX allocates SLEPc's basis V (n columns, n^2 scalars) only when the eigenvectors are first asked for, not in
   EPSSetUp. On a Hermitian matrix (Frank's, a_ij = n - max(i,j) + 1 (1-based); with complex scalars plus the
   Hermitian imaginary part i sin(i-j)/2) this checks, for each solve:
   - every eigenvalue equals EPSLAPACK's on the same matrix (its own EPS, options prefix ref_) to 1e-12 of the largest
     magnitude (both sorted), and nconv = n;
   - SLEPc sees a basis of n columns with nconv active ones (BVGetSizes, BVGetActiveColumns of EPSGetBV);
   - where the basis lives: with PETSc's malloc tracing (-malloc_debug) the tracked memory of each rank grows by at
     least its rows times n scalars at the first request for eigenvectors when the basis was deferred, and by less than
     half of that when it was already allocated; -expect1/-expect2 deferred|allocated say which each solve must see;
   - the eigenvectors: ||A x - lambda x|| / ||A||_F < 1e-12, | ||x|| - 1 | < 1e-12, EPSComputeError (backward) < 1e-12
     for every pair, x_0 orthogonal to x_1 to 1e-12; with -first error the first request is EPSComputeError (which
     takes its work vectors before it asks for the eigenvector), else EPSGetEigenvector.
   Options: -n N (default 200); -aij (the matrix as MATAIJ); -vectors1 <bool> (default 1): ask for the eigenvectors
   after the first solve; -second none|same|reset: then solve again, with the same EPS, 2A (EPSSetOperators, same
   size: the basis kept) or, after EPSReset, Frank's matrix of order 3n/4+1 (a new basis), with its eigenvectors;
   -initial_space, -deflation_space: give one vector (e_1) before the first solve (SLEPc writes it into the basis in
   EPSSetUp, so it is allocated there); -invariant before|after: EPSGetInvariantSubspace before the first request for
   eigenvectors (an error with a deferred basis) or after it (each vector an eigenvector: residual of its Rayleigh
   quotient < 1e-12 of ||A||_F). Prints "all checks passed" or the failed checks. */
#include <slepceps.h>
#include <pgx/pgxcompat.h>
#include "../common/pgxtest.h"

static PetscInt nfail = 0;

/* Frank's matrix of order n times scale; with complex scalars plus i scale sin(i-j)/2 (Hermitian) */
static PetscErrorCode BuildMatrix(PetscInt n, PetscBool aij, PetscReal scale, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreateDense(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscScalar v = (PetscScalar)(n - PetscMax(i, j));
#if defined(PETSC_USE_COMPLEX)
      v += PETSC_i * 0.5 * PetscSinReal((PetscReal)(i - j));
#endif
      PetscCall(MatSetValue(*A, i, j, scale * v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  if (aij) PetscCall(MatConvert(*A, MATAIJ, MAT_INPLACE_MATRIX, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int cmpreal(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* All eigenvalues of A, ascending, by EPSLAPACK */
static PetscErrorCode ReferenceEigenvalues(Mat A, PetscReal *lam)
{
  EPS      ref;
  PetscInt n, nconv;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(EPSCreate(PETSC_COMM_WORLD, &ref));
  PetscCall(EPSSetOptionsPrefix(ref, "ref_"));
  PetscCall(EPSSetOperators(ref, A, NULL));
  PetscCall(EPSSetProblemType(ref, EPS_HEP));
  PetscCall(EPSSetType(ref, EPSLAPACK));
  PetscCall(EPSSetDimensions(ref, n, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSolve(ref));
  PetscCall(EPSGetConverged(ref, &nconv));
  CHECK(nconv == n, "EPSLAPACK: %d eigenvalues, expected %d", (int)nconv, (int)n);
  for (PetscInt i = 0; i < PetscMin(n, nconv); i++) {
    PetscScalar k;
    PetscCall(EPSGetEigenvalue(ref, i, &k, NULL));
    lam[i] = PetscRealPart(k);
  }
  qsort(lam, PetscMin(n, nconv), sizeof(PetscReal), cmpreal);
  PetscCall(EPSDestroy(&ref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solve `which` of eps on A: eigenvalues against EPSLAPACK's, the basis SLEPc sees (n + extra columns); then, with
   vectors, the eigenvectors and where the basis lived (expect: "deferred", "allocated" or "" for no memory check) */
static PetscErrorCode SolveAndCheck(EPS eps, Mat A, int which, PetscInt extra, PetscBool vectors, const char *expect, const char *first, const char *invariant)
{
  PetscInt   n, nloc, nconv, m, l, k;
  PetscReal *ref, *got, big = 0, nrm;
  BV         V;
  Vec        x, x0, r;
  PetscBool  tracked;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatGetLocalSize(A, &nloc, NULL));
  PetscCall(EPSSolve(eps));
  PetscCall(EPSGetConverged(eps, &nconv));
  CHECK(nconv == n, "solve %d: %d eigenpairs returned, expected %d", which, (int)nconv, (int)n);
  PetscCall(PetscMalloc2(n, &ref, n, &got));
  PetscCall(ReferenceEigenvalues(A, ref));
  for (PetscInt i = 0; i < PetscMin(n, nconv); i++) {
    PetscScalar kr;
    PetscCall(EPSGetEigenvalue(eps, i, &kr, NULL));
    got[i] = PetscRealPart(kr);
  }
  qsort(got, PetscMin(n, nconv), sizeof(PetscReal), cmpreal);
  for (PetscInt i = 0; i < n; i++) big = PetscMax(big, PetscAbsReal(ref[i]));
  for (PetscInt i = 0; i < PetscMin(n, nconv); i++) CHECK(PetscAbsReal(got[i] - ref[i]) <= 1e-12 * big, "solve %d: eigenvalue %d is %.17g, EPSLAPACK's %.17g", which, (int)i, (double)got[i], (double)ref[i]);
  PetscCall(PetscFree2(ref, got));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve %d: %d eigenvalues equal to EPSLAPACK's\n", which, (int)nconv));

  /* the basis SLEPc sees: n columns (n + 1 after a deflation vector: SLEPc turns its constraint column into a regular
     one at the end of EPSSolve; the next EPSSetUp resizes it), the first nconv active; its storage is not observable
     through BV's API */
  PetscCall(EPSGetBV(eps, &V));
  PetscCall(BVGetSizes(V, NULL, NULL, &m));
  PetscCall(BVGetActiveColumns(V, &l, &k));
  CHECK(m == n + extra && l == 0 && k == nconv, "solve %d: the basis has %d columns, active %d..%d; expected %d, 0..%d", which, (int)m, (int)l, (int)k, (int)(n + extra), (int)nconv);

  if (invariant && !strcmp(invariant, "before")) { /* a deferred basis cannot give it: this fails with EPSPGX's message */
    Vec *v;
    PetscCall(MatCreateVecs(A, &x, NULL));
    PetscCall(VecDuplicateVecs(x, nconv, &v));
    PetscCall(EPSGetInvariantSubspace(eps, v));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve %d: EPSGetInvariantSubspace before the eigenvectors returned\n", which));
    PetscCall(VecDestroyVecs(nconv, &v));
    PetscCall(VecDestroy(&x));
  }
  if (!vectors) PetscFunctionReturn(PETSC_SUCCESS);

  {
    PetscBool basic, eachcall, initnan;
    PetscCall(PetscMallocGetDebug(&basic, &eachcall, &initnan));
    tracked = basic;
  }
  PetscCall(MatCreateVecs(A, &x, &r));
  PetscCall(VecDuplicate(x, &x0));
  PetscCall(MatNorm(A, NORM_FROBENIUS, &nrm));
  {
    PetscLogDouble before, after, grew, need = (PetscLogDouble)nloc * n * sizeof(PetscScalar);
    PetscReal      err;
    PetscInt       bad = 0;
    PetscCall(PetscMallocGetCurrentUsage(&before));
    if (first && !strcmp(first, "error")) PetscCall(EPSComputeError(eps, 0, EPS_ERROR_BACKWARD, &err));
    else PetscCall(EPSGetEigenvector(eps, 0, x, NULL));
    PetscCall(PetscMallocGetCurrentUsage(&after));
    grew = after - before;
    if (expect && expect[0]) {
      PetscBool deferred = (PetscBool)!strcmp(expect, "deferred");
      CHECK(tracked, "solve %d: PETSc's memory is not tracked: run with -malloc_debug to check where the basis lives", which);
      if (!tracked) bad = 1;
      else if (deferred) bad = grew >= need ? 0 : 1;
      else bad = grew < need / 2 ? 0 : 1;
      if (bad && tracked) PetscCall(PetscPrintf(PETSC_COMM_SELF, "CHECK FAILED: solve %d: the first request for eigenvectors grew the tracked memory by %g bytes; the basis %s (its local rows: %g bytes)\n", which, (double)grew, deferred ? "should have been allocated then" : "should have been there already", (double)need));
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
      nfail += bad;
      if (!bad) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve %d: %s\n", which, deferred ? "the basis was allocated at the first request for eigenvectors" : "the basis was allocated before the first request for eigenvectors"));
    }
  }
  {
    PetscReal worst = 0, worsterr = 0, worstnorm = 0, dot = 0;
    for (PetscInt i = 0; i < nconv; i++) {
      PetscScalar kr;
      PetscReal   res, xn, err;
      PetscCall(EPSGetEigenpair(eps, i, &kr, NULL, x, NULL));
      PetscCall(MatMult(A, x, r));
      PetscCall(VecAXPY(r, -kr, x));
      PetscCall(VecNorm(r, NORM_2, &res));
      PetscCall(VecNorm(x, NORM_2, &xn));
      PetscCall(EPSComputeError(eps, i, EPS_ERROR_BACKWARD, &err));
      worst     = PetscMax(worst, res / nrm);
      worstnorm = PetscMax(worstnorm, PetscAbsReal(xn - 1));
      worsterr  = PetscMax(worsterr, err);
      if (i == 0) PetscCall(VecCopy(x, x0));
      if (i == 1) {
        PetscScalar d;
        PetscCall(VecDot(x, x0, &d));
        dot = PetscAbsScalar(d);
      }
    }
    CHECK(worst < 1e-12, "solve %d: largest ||A x - lambda x|| / ||A||_F %g", which, (double)worst);
    CHECK(worstnorm < 1e-12, "solve %d: largest | ||x|| - 1 | %g", which, (double)worstnorm);
    CHECK(worsterr < 1e-12, "solve %d: largest EPSComputeError (backward) %g", which, (double)worsterr);
    CHECK(dot < 1e-12, "solve %d: |x_1' x_0| %g", which, (double)dot);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve %d: %d eigenvectors checked (residual, norm, EPSComputeError)\n", which, (int)nconv));
  }
  if (invariant && !strcmp(invariant, "after")) { /* the basis holds the eigenvectors: an invariant subspace */
    Vec      *v;
    PetscReal worst = 0;
    PetscCall(VecDuplicateVecs(x, nconv, &v));
    PetscCall(EPSGetInvariantSubspace(eps, v));
    for (PetscInt i = 0; i < nconv; i++) {
      PetscScalar rho;
      PetscReal   res;
      PetscCall(MatMult(A, v[i], r));
      PetscCall(VecDot(r, v[i], &rho)); /* v' A v, ||v|| = 1 */
      PetscCall(VecAXPY(r, -rho, v[i]));
      PetscCall(VecNorm(r, NORM_2, &res));
      worst = PetscMax(worst, res / nrm);
    }
    CHECK(worst < 1e-12, "solve %d: EPSGetInvariantSubspace: largest ||A v - rho v|| / ||A||_F %g", which, (double)worst);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve %d: EPSGetInvariantSubspace gives eigenvectors\n", which));
    PetscCall(VecDestroyVecs(nconv, &v));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat       A, A2;
  EPS       eps;
  PetscInt  n = 200;
  PetscBool aij = PETSC_FALSE, vectors1 = PETSC_TRUE, inispace = PETSC_FALSE, deflspace = PETSC_FALSE;
  char      second[16] = "none", expect1[16] = "", expect2[16] = "", first[16] = "vector", invariant[16] = "";

  PetscFunctionBeginUser;
  PetscCall(SlepcInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-aij", &aij, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-vectors1", &vectors1, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-initial_space", &inispace, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-deflation_space", &deflspace, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-second", second, sizeof(second), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-expect1", expect1, sizeof(expect1), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-expect2", expect2, sizeof(expect2), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-first", first, sizeof(first), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-invariant", invariant, sizeof(invariant), NULL));

  PetscCall(BuildMatrix(n, aij, 1.0, &A));
  PetscCall(EPSCreate(PETSC_COMM_WORLD, &eps));
  PetscCall(EPSSetOperators(eps, A, NULL));
  PetscCall(EPSSetProblemType(eps, EPS_HEP));
  PetscCall(EPSSetFromOptions(eps));
  if (inispace || deflspace) { /* e_1 */
    Vec e;
    PetscCall(MatCreateVecs(A, &e, NULL));
    PetscCall(VecSetValue(e, 0, 1.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(e));
    PetscCall(VecAssemblyEnd(e));
    if (inispace) PetscCall(EPSSetInitialSpace(eps, 1, &e));
    if (deflspace) PetscCall(EPSSetDeflationSpace(eps, 1, &e));
    PetscCall(VecDestroy(&e));
  }
  PetscCall(SolveAndCheck(eps, A, 1, deflspace ? 1 : 0, vectors1, expect1, first, invariant));

  if (!strcmp(second, "same")) { /* the same EPS, a new operator of the same size: EPSSetUp again, V kept */
    PetscCall(BuildMatrix(n, aij, 2.0, &A2));
    PetscCall(EPSSetOperators(eps, A2, NULL));
    PetscCall(SolveAndCheck(eps, A2, 2, 0, PETSC_TRUE, expect2, first, NULL));
    PetscCall(MatDestroy(&A2));
  } else if (!strcmp(second, "reset")) { /* EPSReset destroys V; another size */
    PetscCall(EPSReset(eps));
    PetscCall(BuildMatrix(3 * n / 4 + 1, aij, 1.0, &A2));
    PetscCall(EPSSetOperators(eps, A2, NULL));
    PetscCall(SolveAndCheck(eps, A2, 2, 0, PETSC_TRUE, expect2, first, NULL));
    PetscCall(MatDestroy(&A2));
  } else PetscCheck(!strcmp(second, "none"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-second none|same|reset, got %s", second);

  {
    PetscInt tot = nfail;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &tot, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    if (tot) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", (int)tot));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
    nfail = tot;
  }
  PetscCall(EPSDestroy(&eps));
  PetscCall(MatDestroy(&A));
  PetscCall(SlepcFinalize());
  return nfail ? 1 : 0;
}
