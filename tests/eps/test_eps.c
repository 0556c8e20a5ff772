/* EPSPGX on the Frank matrix a_ij = n - max(i,j) + 1 (1-based), whose eigenvalues are known in closed form,
   lambda_k = 1 / (2 (1 - cos((2k-1) pi / (2n+1)))), k = 1..n. Every option reaches EPSSetFromOptions
   (-eps_type, -eps_nev, -eps_smallest_real, -eps_interval a,b -eps_all, ...). Checks: every returned
   eigenvalue is the expected one (the largest, the smallest, or the ones in the interval, in order) to 1e-10
   relative; EPSComputeError (relative) < 1e-10 for every returned pair; with -eps_all the count equals the
   number of closed-form eigenvalues in the interval. Prints the count and "all checks passed".
   -n N (default 100), -expect largest|smallest|interval (default largest), -expect_tridiag_solves K: T was solved
   K times (PETSc's log of PGXSytrdTridiag) once the eigenvectors were used (1: EPSSolve's solve was reused).
   -print_hash: prints a 64-bit FNV-1a hash of the bits of the returned eigenvalues and eigenvectors (each rank's
   rows, in rank order), for comparisons of runs that must agree bitwise (tests/eps/threads_bitwise.sh). */
#include <slepceps.h>
#include "../common/pgxtest.h"

static PetscInt nfail = 0;

/* FNV-1a over bytes */
static unsigned long long Fnv(unsigned long long h, const void *p, size_t len)
{
  const unsigned char *c = (const unsigned char *)p;
  for (size_t i = 0; i < len; i++) h = (h ^ c[i]) * 1099511628211ULL;
  return h;
}

static int cmpdesc(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return x < y ? 1 : (x > y ? -1 : 0);
}

int main(int argc, char **argv)
{
  Mat       A;
  EPS       eps;
  PetscInt  n = 100, rstart, rend, nconv, nev, first = 0, count;
  PetscReal *lam, inta, intb;
  char      expect[32] = "largest";
  PetscBool gen = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(SlepcInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-expect", expect, sizeof(expect), NULL));
  PetscCall(MatCreateDense(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++)
    for (PetscInt j = 0; j < n; j++) PetscCall(MatSetValue(A, i, j, (PetscScalar)(n - PetscMax(i, j)), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  {
    PetscBool aij = PETSC_FALSE; /* -aij: the same matrix as MATAIJ (EPSPGX hands sparse operators over as CSR) */
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-aij", &aij, NULL));
    if (aij) PetscCall(MatConvert(A, MATAIJ, MAT_INPLACE_MATRIX, &A));
  }

  PetscCall(EPSCreate(PETSC_COMM_WORLD, &eps));
  {
    Mat B = NULL;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-generalized", &gen, NULL)); /* B = I: for the error test */
    if (gen) {
      PetscCall(MatCreateConstantDiagonal(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 1.0, &B));
      PetscCall(MatConvert(B, MATAIJ, MAT_INPLACE_MATRIX, &B));
    }
    PetscCall(EPSSetOperators(eps, A, B));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(EPSSetProblemType(eps, gen ? EPS_GHEP : EPS_HEP));
  PetscCall(EPSSetFromOptions(eps));
  PetscCall(EPSSolve(eps));
  PetscCall(EPSGetConverged(eps, &nconv));
  PetscCall(EPSGetDimensions(eps, &nev, NULL, NULL));
  PetscCall(EPSGetInterval(eps, &inta, &intb));

  /* the closed form, descending */
  PetscCall(PetscMalloc1(n, &lam));
  for (PetscInt k = 1; k <= n; k++) lam[k - 1] = 1.0 / (2.0 * (1.0 - PetscCosReal((2.0 * k - 1.0) * PETSC_PI / (2.0 * n + 1.0))));
  qsort(lam, n, sizeof(PetscReal), cmpdesc);
  count = n;
  if (!strcmp(expect, "smallest")) { /* ascending */
    for (PetscInt i = 0; i < n / 2; i++) {
      PetscReal t = lam[i];
      lam[i] = lam[n - 1 - i], lam[n - 1 - i] = t;
    }
  } else if (!strcmp(expect, "interval")) { /* ascending, inside [inta, intb] */
    for (PetscInt i = 0; i < n / 2; i++) {
      PetscReal t = lam[i];
      lam[i] = lam[n - 1 - i], lam[n - 1 - i] = t;
    }
    while (first < n && lam[first] < inta) first++;
    count = 0;
    while (first + count < n && lam[first + count] <= intb) count++;
    CHECK(nconv == count, "interval [%g, %g]: %d eigenvalues returned, %d expected", (double)inta, (double)intb, (int)nconv, (int)count);
  }
  CHECK(nconv >= PetscMin(nev, count), "%d converged, fewer than nev = %d", (int)nconv, (int)nev);
  for (PetscInt i = 0; i < PetscMin(nconv, count); i++) {
    PetscScalar kr;
    PetscReal   err;
    PetscCall(EPSGetEigenpair(eps, i, &kr, NULL, NULL, NULL));
    PetscCall(EPSComputeError(eps, i, EPS_ERROR_BACKWARD, &err)); /* ||A x - k x|| / ((||A|| + |k|) ||x||): the small
                                                                      eigenvalues of Frank's matrix make the relative error eps ||A|| / |k| */
    CHECK(PetscAbsReal(PetscRealPart(kr) - lam[first + i]) <= 1e-10 * lam[first + i], "eigenvalue %d: %.15g, expected %.15g", (int)i, (double)PetscRealPart(kr), (double)lam[first + i]);
    CHECK(err < 1e-12, "eigenpair %d: backward error %g", (int)i, (double)err);
  }
  {
    PetscInt  want = -1;
    PetscBool flg;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-expect_tridiag_solves", &want, &flg));
    if (flg) {
      PetscLogEvent      ev;
      PetscEventPerfInfo info;
      PetscMPIInt        rank;
      int                count = 0;
      PetscCall(PetscLogEventGetId("PGXSytrdTridiag", &ev));
      PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
      /* the solving rank is rank 0; the others never begin the event (their count may be uninitialized: seen as 33
         on the GPU host; PETSc 3.25 has no record of it there and PetscLogEventGetPerfInfo fails), so rank 0 asks */
      if (!rank) {
        PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
        count = info.count;
      }
      PetscCallMPI(MPI_Bcast(&count, 1, MPI_INT, 0, PETSC_COMM_WORLD));
      CHECK(count == want, "T solved %d times, expected %d", count, (int)want);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "T solved %d times\n", count));
    }
  }
  {
    PetscBool hash = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-print_hash", &hash, NULL));
    if (hash) {
      unsigned long long h = 14695981039346656037ULL, *all = NULL;
      PetscMPIInt        size, rank;
      Vec                x;
      PetscCall(MatCreateVecs(A, &x, NULL));
      for (PetscInt i = 0; i < nconv; i++) {
        PetscScalar        kr;
        const PetscScalar *xa;
        PetscInt           nl;
        PetscCall(EPSGetEigenpair(eps, i, &kr, NULL, x, NULL));
        PetscCall(VecGetLocalSize(x, &nl));
        PetscCall(VecGetArrayRead(x, &xa));
        h = Fnv(h, &kr, sizeof(kr));
        h = Fnv(h, xa, (size_t)nl * sizeof(PetscScalar));
        PetscCall(VecRestoreArrayRead(x, &xa));
      }
      PetscCall(VecDestroy(&x));
      PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
      PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
      if (!rank) PetscCall(PetscMalloc1(size, &all));
      PetscCallMPI(MPI_Gather(&h, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, PETSC_COMM_WORLD));
      if (!rank) {
        h = 14695981039346656037ULL;
        h = Fnv(h, all, (size_t)size * sizeof(*all));
        PetscCall(PetscFree(all));
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "hash of the eigenpairs: %016llx\n", h));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Frank n=%d: %d eigenpairs returned (%s), checked against the closed form\n", (int)n, (int)nconv, expect));
  {
    PetscInt tot = nfail;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &tot, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    if (tot) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", (int)tot));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
    nfail = tot;
  }
  PetscCall(PetscFree(lam));
  PetscCall(EPSDestroy(&eps));
  PetscCall(MatDestroy(&A));
  PetscCall(SlepcFinalize());
  return nfail ? 1 : 0;
}
