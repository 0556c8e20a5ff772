/* EPSPGX on the Frank matrix a_ij = n - max(i,j) + 1 (1-based), whose eigenvalues are known in closed form,
   lambda_k = 1 / (2 (1 - cos((2k-1) pi / (2n+1)))) = 1 / (4 sin^2((2k-1) pi / (2 (2n+1)))), k = 1..n (evaluated in
   the second form: 1 - cos(x) loses about eps / x^2 relative to cancellation, 3e-9 for the largest at n = 4096). Every
   option reaches EPSSetFromOptions
   (-eps_type, -eps_nev, -eps_smallest_real, -eps_interval a,b -eps_all, ...). Checks: every returned
   eigenvalue is the expected one (the largest, the smallest, or the ones in the interval, in order) to 1e-10
   relative; EPSComputeError (relative) < 1e-10 for every returned pair; with -eps_all the count equals the
   number of closed-form eigenvalues in the interval. Prints the count and "all checks passed".
   -n N (default 100), -phase (complex scalars: the complex Hermitian D F D^H, D = diag(exp(0.7 i k)), same eigenvalues),
   -expect largest|smallest|interval (default largest), -expect_tridiag_solves K: T was solved
   K times (PETSc's log of PGXSytrdTridiag) once the eigenvectors were used (1: EPSSolve's solve was reused).
   -error_stride S: the backward error of every S-th pair and of the last one only (default 1: all; benchmarks).
   -eig_tol T (default 1e-10) relative to each eigenvalue, or with -eig_tol_norm relative to the largest (|lambda -
   lambda_k| <= T lambda_1: what a backward-stable solver guarantees; Frank's small eigenvalues are ill-conditioned,
   eps ||A|| / lambda_k relative, about 6e-9 at n = 4096).
   -generalized: the generalized problem (EPS_GHEP) G F G^T x = lambda G G^T x, with G = I + g S (S the ones of the
   subdiagonal, g from -bfactor, default 0: B = I) and F Frank's matrix: the eigenvalues are Frank's again (F G^T x =
   lambda G^T x), B = G G^T is tridiagonal (MATAIJ), and every checked eigenvector is B-normalized (x^T B x = 1 to
   1e-10). -resolve_b_scale s (with -generalized): then B's values are scaled by s in the same Mat (MatScale, as a user
   reassembling B would change them), EPSSetOperators is called again with the same A and B, and the second solve's
   eigenvalues must be Frank's divided by s, its eigenvectors B-normalized with the new B, its backward errors small.
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

/* x^H B x of eigenvector i of eps (1 when B-normalized) */
static PetscErrorCode BNorm2(EPS eps, Mat B, PetscInt i, PetscScalar *xbx)
{
  Vec x, bx;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(B, &x, &bx));
  PetscCall(EPSGetEigenvector(eps, i, x, NULL));
  PetscCall(MatMult(B, x, bx));
  PetscCall(VecDot(bx, x, xbx));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&bx));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat       A;
  EPS       eps;
  PetscInt  n = 100, rstart, rend, nconv, nev, first = 0, count;
  PetscReal *lam, inta, intb;
  char      expect[32] = "largest";
  PetscBool gen = PETSC_FALSE;
  PetscReal g   = 0; /* -bfactor: G = I + g S */
  Mat       B   = NULL;

  PetscFunctionBeginUser;
  PetscCall(SlepcInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-expect", expect, sizeof(expect), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-generalized", &gen, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bfactor", &g, NULL));
  PetscCheck(gen || g == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-bfactor needs -generalized");
  PetscCall(MatCreateDense(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  {
    PetscBool phase = PETSC_FALSE; /* -phase (complex scalars): D F D^H with D = diag(exp(0.7 i k)), a complex Hermitian matrix
                                      unitarily similar to Frank's, so with the same eigenvalues */
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-phase", &phase, NULL));
    PetscCheck(!phase || PetscDefined(USE_COMPLEX), PETSC_COMM_WORLD, PETSC_ERR_SUP, "-phase needs complex scalars");
    PetscCheck(!phase || g == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-phase and -bfactor cannot be combined");
    for (PetscInt i = rstart; i < rend; i++)
      for (PetscInt j = 0; j < n; j++) {
        PetscScalar v = (PetscScalar)(n - PetscMax(i, j));
        if (g != 0) { /* (G F G^T)_ij = F_ij + g F_{i-1,j} + g F_{i,j-1} + g^2 F_{i-1,j-1} */
          if (i > 0) v += g * (PetscReal)(n - PetscMax(i - 1, j));
          if (j > 0) v += g * (PetscReal)(n - PetscMax(i, j - 1));
          if (i > 0 && j > 0) v += g * g * (PetscReal)(n - PetscMax(i - 1, j - 1));
        }
#if defined(PETSC_USE_COMPLEX)
        if (phase) v *= PetscExpScalar(PETSC_i * (PetscReal)(0.7 * (double)(i - j)));
#endif
        PetscCall(MatSetValue(A, i, j, v, INSERT_VALUES));
      }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  {
    PetscBool aij = PETSC_FALSE; /* -aij: the same matrix as MATAIJ (EPSPGX hands sparse operators over as CSR) */
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-aij", &aij, NULL));
    if (aij) PetscCall(MatConvert(A, MATAIJ, MAT_INPLACE_MATRIX, &A));
  }

  PetscCall(EPSCreate(PETSC_COMM_WORLD, &eps));
  if (gen) { /* B = G G^T: 1 + g^2 on the diagonal (1 in row 0), g beside it */
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 2, NULL, &B));
    for (PetscInt i = rstart; i < rend; i++) {
      PetscCall(MatSetValue(B, i, i, i ? 1 + g * g : 1.0, INSERT_VALUES));
      if (g != 0 && i > 0) PetscCall(MatSetValue(B, i, i - 1, g, INSERT_VALUES));
      if (g != 0 && i < n - 1) PetscCall(MatSetValue(B, i, i + 1, g, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(EPSSetOperators(eps, A, B));
  PetscCall(EPSSetProblemType(eps, gen ? EPS_GHEP : EPS_HEP));
  PetscCall(EPSSetFromOptions(eps));
  PetscCall(EPSSolve(eps));
  PetscCall(EPSGetConverged(eps, &nconv));
  PetscCall(EPSGetDimensions(eps, &nev, NULL, NULL));
  PetscCall(EPSGetInterval(eps, &inta, &intb));

  /* the closed form, descending */
  PetscCall(PetscMalloc1(n, &lam));
  for (PetscInt k = 1; k <= n; k++) lam[k - 1] = PGXFrankEigenvalue(n, k);
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
  {
    PetscInt  stride = 1, ncheck = PetscMin(nconv, count); /* -error_stride s: the backward error of every s-th pair and the last (benchmarks: each costs a product with A on the host) */
    PetscReal tol = 1e-10, scale = 0;                       /* -eig_tol t (default 1e-10), relative to each eigenvalue, or with -eig_tol_norm to the largest */
    PetscBool tolnorm = PETSC_FALSE;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-error_stride", &stride, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-eig_tol", &tol, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-eig_tol_norm", &tolnorm, NULL));
    if (tolnorm) scale = PGXFrankEigenvalue(n, 1);
    PetscCheck(stride >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-error_stride %d must be at least 1", (int)stride);
    for (PetscInt i = 0; i < ncheck; i++) {
      PetscScalar kr;
      PetscReal   err;
      PetscCall(EPSGetEigenvalue(eps, i, &kr, NULL));
      CHECK(PetscAbsReal(PetscRealPart(kr) - lam[first + i]) <= tol * (tolnorm ? scale : lam[first + i]), "eigenvalue %d: %.15g, expected %.15g", (int)i, (double)PetscRealPart(kr), (double)lam[first + i]);
      if (i % stride && i != ncheck - 1) continue;
      PetscCall(EPSGetEigenpair(eps, i, &kr, NULL, NULL, NULL));
      PetscCall(EPSComputeError(eps, i, EPS_ERROR_BACKWARD, &err)); /* ||A x - k x|| / ((||A|| + |k|) ||x||): the small
                                                                        eigenvalues of Frank's matrix make the relative error eps ||A|| / |k| */
      CHECK(err < 1e-12, "eigenpair %d: backward error %g", (int)i, (double)err);
      if (gen) { /* B-normalized: x^T B x = 1 */
        PetscScalar xbx;
        PetscCall(BNorm2(eps, B, i, &xbx));
        CHECK(PetscAbsScalar(xbx - 1.0) < 1e-10, "eigenvector %d: x^H B x = %g, not 1", (int)i, (double)PetscRealPart(xbx));
      }
    }
  }
  {
    PetscReal bs = 0; /* -resolve_b_scale: B's values changed in place, the same EPS solved again */
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-resolve_b_scale", &bs, NULL));
    if (bs != 0) {
      PetscInt nconv2, ncheck;
      PetscCheck(gen && bs > 0 && strcmp(expect, "interval"), PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-resolve_b_scale needs -generalized, a positive scale and -expect largest or smallest");
      PetscCall(MatScale(B, bs));
      PetscCall(EPSSetOperators(eps, A, B));
      PetscCall(EPSSolve(eps));
      PetscCall(EPSGetConverged(eps, &nconv2));
      CHECK(nconv2 == nconv, "second solve (B scaled by %g): %d converged, the first solve %d", (double)bs, (int)nconv2, (int)nconv);
      ncheck = PetscMin(nconv2, count);
      for (PetscInt i = 0; i < ncheck; i++) {
        PetscScalar kr;
        PetscReal   err, want = lam[first + i] / bs;
        PetscScalar xbx;
        PetscCall(EPSGetEigenpair(eps, i, &kr, NULL, NULL, NULL));
        CHECK(PetscAbsReal(PetscRealPart(kr) - want) <= 1e-10 * want, "second solve: eigenvalue %d is %.15g, expected %.15g", (int)i, (double)PetscRealPart(kr), (double)want);
        PetscCall(EPSComputeError(eps, i, EPS_ERROR_BACKWARD, &err));
        CHECK(err < 1e-12, "second solve: eigenpair %d: backward error %g", (int)i, (double)err);
        PetscCall(BNorm2(eps, B, i, &xbx));
        CHECK(PetscAbsScalar(xbx - 1.0) < 1e-10, "second solve: eigenvector %d: x^H B x = %g with the scaled B, not 1", (int)i, (double)PetscRealPart(xbx));
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "second solve with B scaled by %.2f in place: %d eigenpairs checked (Frank's / %.2f, B-normalized)\n", (double)bs, (int)ncheck, (double)bs));
    }
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
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Frank n=%d: %d eigenpairs returned (%s), checked against the closed form%s\n", (int)n, (int)nconv, expect, gen ? " (generalized: G F G^T, B = G G^T; eigenvectors B-normalized)" : ""));
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
  PetscCall(MatDestroy(&B));
  PetscCall(SlepcFinalize());
  return nfail ? 1 : 0;
}
