/* Tests of PGX's divide and conquer tridiagonal eigensolver (PGXTridiagonalEigenDC) against LAPACK dstedc.
   -type random    : d, e uniform in [-1, 1]
   -type graded    : d_i = r_i 10^(-12 i/n), e_i = s_i sqrt(|d_i d_{i+1}|) (r, s random in [0.5, 1])
   -type wilkinson : glued Wilkinson W21+ blocks (d = |10 - j|, e = 1, glue 1e-10 between blocks): close pairs
   -type frank     : T of the Frank matrix a_ij = n - max(i,j) + 1 (reduced by PGXSytrd, reference)
   -type repeated  : d_i = i mod 4, e = 0 except every 7th = 1e-3: multiple eigenvalues, mass deflation
   -type constant  : d = 1, e = 1e-20: one eigenvalue of multiplicity n within roundoff
   -type toeplitz  : d = 2, e = -1
   -type clustered : d = 1 + 1e-8 r_i, e = 1e-8 s_i: all n eigenvalues within 4e-8 of 1 (close poles, many pair deflations)
   Checks, for each backend asked (-pgx_device host: reference; cuda: cuda, and cuda against reference):
   eigenvalues within 1e-12 ||T||_1 (-wtol) of dstedc's, ||T Z - Z L||_F / ||T||_1 and ||Z^T Z - I||_F below 1e-12 sqrt(n),
   the same for ldz > n, and with -min_deflated K that at least K eigenpairs deflated (the test of deflation
   cannot pass without it). With -compare_threads a,b,c each backend runs again with each number of host
   threads, and the eigenvalues and eigenvectors must be bitwise equal to those of the first number (memcmp).
   Options: -n N, -leaf L (subproblems solved directly), -threads T (host threads of the checked runs; 0: the
   default), -seed S, -secular auto|host|device (where the merges' secular equations are solved:
   PGXTridiagonalEigenDCSecular; auto: device on cuda, LAPACK dlaed4 on the host; device on the host backend is
   the reference kernels of the device path). */
#include <string.h>
#include <pgx/sytrd.h>
#include "../common/pgxtest.h"

static PetscInt        nfail   = 0;
static PGXStedcSecular secular = PGX_STEDC_SECULAR_AUTO; /* -secular: where the merges' secular equations are solved */
static PetscReal       wtol    = 1e-12;                  /* -wtol: eigenvalues against dstedc's, relative to ||T||_1 */

static PetscErrorCode MakeT(const char *type, PetscInt n, PetscInt seed, PetscReal *d, PetscReal *e)
{
  PetscRandom r;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(r, (unsigned long)seed));
  PetscCall(PetscRandomSeed(r));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal a, b;
    PetscCall(PetscRandomGetValueReal(r, &a));
    PetscCall(PetscRandomGetValueReal(r, &b));
    if (!strcmp(type, "random")) {
      d[i] = a;
      if (i < n - 1) e[i] = b;
    } else if (!strcmp(type, "graded")) {
      d[i] = (0.75 + 0.25 * a) * PetscPowReal(10.0, -12.0 * i / n);
    } else if (!strcmp(type, "wilkinson")) {
      d[i] = PetscAbsReal(10.0 - (PetscReal)(i % 21));
      if (i < n - 1) e[i] = (i % 21 == 20) ? 1e-10 : 1.0;
    } else if (!strcmp(type, "repeated")) {
      d[i] = (PetscReal)(i % 4);
      if (i < n - 1) e[i] = (i % 7 == 6) ? 1e-3 : 0.0;
    } else if (!strcmp(type, "constant")) {
      d[i] = 1;
      if (i < n - 1) e[i] = 1e-20;
    } else if (!strcmp(type, "clustered")) {
      d[i] = 1 + 1e-8 * a;
      if (i < n - 1) e[i] = 1e-8 * b;
    } else if (!strcmp(type, "toeplitz")) {
      d[i] = 2;
      if (i < n - 1) e[i] = -1;
    } else if (strcmp(type, "frank")) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown -type %s", type);
  }
  if (!strcmp(type, "graded"))
    for (PetscInt i = 0; i < n - 1; i++) {
      PetscReal b;
      PetscCall(PetscRandomGetValueReal(r, &b));
      e[i] = (0.75 + 0.25 * b) * PetscSqrtReal(PetscAbsReal(d[i] * d[i + 1]));
    }
  PetscCall(PetscRandomDestroy(&r));
  if (!strcmp(type, "frank")) {
    PetscScalar     *A;
    PGXSytrd         S;
    const PetscReal *dd, *ee;
    PetscCall(PetscMalloc1(n * n, &A));
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) A[i + j * n] = (PetscScalar)(n - PetscMax(i, j));
    PetscCall(PGXSytrdCreate(PGX_DEVICE_HOST, &S));
    PetscCall(PGXSytrdSetMatrix(S, n, A, n));
    PetscCall(PGXSytrdReduce(S));
    PetscCall(PGXSytrdGetTridiagonal(S, &dd, &ee));
    for (PetscInt i = 0; i < n; i++) d[i] = dd[i];
    for (PetscInt i = 0; i < n - 1; i++) e[i] = ee[i];
    PetscCall(PGXSytrdDestroy(&S));
    PetscCall(PetscFree(A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||T Z - Z L||_F / ||T||_1 and ||Z^T Z - I||_F (Z: n x n, ldz) */
static void Residuals(PetscInt n, const PetscReal *d, const PetscReal *e, PetscReal tnorm, const PetscReal *w, const PetscReal *Z, PetscInt ldz, PetscReal *res, PetscReal *orth)
{
  PetscReal r = 0, o = 0;
  for (PetscInt j = 0; j < n; j++) {
    const PetscReal *z = Z + j * ldz;
    for (PetscInt i = 0; i < n; i++) {
      PetscReal s = (d[i] - w[j]) * z[i];
      if (i > 0) s += e[i - 1] * z[i - 1];
      if (i < n - 1) s += e[i] * z[i + 1];
      r += s * s;
    }
    for (PetscInt i = 0; i <= j; i++) {
      const PetscReal *y = Z + i * ldz;
      PetscReal        t = (i == j) ? -1.0 : 0.0;
      for (PetscInt k = 0; k < n; k++) t += y[k] * z[k];
      o += (i == j ? 1 : 2) * t * t;
    }
  }
  *res  = PetscSqrtReal(r) / (tnorm > 0 ? tnorm : 1);
  *orth = PetscSqrtReal(o);
}

static PetscErrorCode RunOne(const char *label, PGXDeviceType dev, PetscInt leaf, PetscInt threads, PetscInt n, PetscInt ldz, const PetscReal *d, const PetscReal *e, PetscReal tnorm, const PetscReal *wl, PetscReal *w, PetscReal *Z, PetscInt mindefl)
{
  PetscReal    *dd, *ee, res, orth, errw = 0, tol = 1e-12 * PetscSqrtReal((PetscReal)n);
  PGXStedcStats st;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n, &dd, n, &ee));
  for (PetscInt i = 0; i < n; i++) dd[i] = d[i];
  for (PetscInt i = 0; i < n - 1; i++) ee[i] = e[i];
  for (PetscInt i = 0; i < n * ldz; i++) Z[i] = -1.0; /* poison: every entry of the n x n block must be written */
  PetscCall(PGXTridiagonalEigenDCSecular(dev, secular, leaf, threads, n, dd, ee, Z, ldz, &st));
  for (PetscInt i = 0; i < n - 1; i++) CHECK(ee[i] == e[i], "%s: e changed", label);
  for (PetscInt i = 0; i < n; i++) w[i] = dd[i];
  for (PetscInt i = 0; i < n; i++) errw = PetscMax(errw, PetscAbsReal(w[i] - wl[i]));
  for (PetscInt i = 0; i + 1 < n; i++) CHECK(w[i] <= w[i + 1], "%s: eigenvalues not ascending at %d", label, (int)i);
  Residuals(n, d, e, tnorm, w, Z, ldz, &res, &orth);
  CHECK(errw <= wtol * tnorm, "%s: eigenvalues differ from dstedc's by %g (||T|| %g)", label, (double)errw, (double)tnorm);
  CHECK(res < tol, "%s: ||T Z - Z L||/||T|| = %g > %g", label, (double)res, (double)tol);
  CHECK(orth < tol, "%s: ||Z^T Z - I|| = %g > %g", label, (double)orth, (double)tol);
  CHECK(st.deflated >= mindefl, "%s: %d eigenpairs deflated, fewer than %d", label, (int)st.deflated, (int)mindefl);
  CHECK(n <= leaf || st.merges > 0, "%s: no merge at n = %d, leaf %d", label, (int)n, (int)leaf);
  PetscCall(PetscInfo(NULL, "%s: eigenvalue error %g, residual %g, orthogonality %g; %d leaves, %d merges, secular %d, deflated %d\n", label, (double)errw, (double)res, (double)orth, (int)st.leaves, (int)st.merges, (int)st.secular, (int)st.deflated));
  PetscCall(PetscFree2(dd, ee));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the divide and conquer with each thread count of tc[0..ntc-1]: eigenvalues and eigenvectors bitwise equal to
   those of tc[0] */
static PetscErrorCode CompareThreads(PGXDeviceType dev, PetscInt leaf, PetscInt n, const PetscReal *d, const PetscReal *e, const PetscInt *tc, PetscInt ntc)
{
  PetscReal *dd, *ee, *w0, *Z0, *Z;

  PetscFunctionBegin;
  PetscCall(PetscMalloc5(n, &dd, n, &ee, n, &w0, n * n, &Z0, n * n, &Z));
  for (PetscInt t = 0; t < ntc; t++) {
    PGXStedcStats st;
    for (PetscInt i = 0; i < n; i++) dd[i] = d[i];
    for (PetscInt i = 0; i < n - 1; i++) ee[i] = e[i];
    for (PetscInt i = 0; i < n * n; i++) Z[i] = -1.0;
    PetscCall(PGXTridiagonalEigenDCSecular(dev, secular, leaf, tc[t], n, dd, ee, Z, n, &st));
    if (!t) {
      PetscCall(PetscArraycpy(w0, dd, n));
      PetscCall(PetscArraycpy(Z0, Z, n * n));
      CHECK(n <= PetscMax(leaf, 1) || st.merges > 0, "no merge at n = %d", (int)n);
      continue;
    }
    PetscReal dw = 0, dz = 0;
    for (PetscInt i = 0; i < n; i++) dw = PetscMax(dw, PetscAbsReal(dd[i] - w0[i]));
    for (PetscInt i = 0; i < n * n; i++) dz = PetscMax(dz, PetscAbsReal(Z[i] - Z0[i]));
    CHECK(!memcmp(dd, w0, n * sizeof(PetscReal)), "%s: eigenvalues with %d threads differ from those with %d: max difference %g", (dev == PGX_DEVICE_CUDA ? "cuda" : "reference"), (int)tc[t], (int)tc[0], (double)dw);
    CHECK(!memcmp(Z, Z0, n * n * sizeof(PetscReal)), "%s: eigenvectors with %d threads differ from those with %d: max difference %g", (dev == PGX_DEVICE_CUDA ? "cuda" : "reference"), (int)tc[t], (int)tc[0], (double)dz);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: eigenvalues and eigenvectors bitwise equal with %d", (dev == PGX_DEVICE_CUDA ? "cuda" : "reference"), (int)tc[0]));
  for (PetscInt t = 1; t < ntc; t++) PetscCall(PetscPrintf(PETSC_COMM_SELF, ", %d", (int)tc[t]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, " host threads\n"));
  PetscCall(PetscFree5(dd, ee, w0, Z0, Z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char          type[32] = "random", devs[16] = "host";
  PetscInt      n = 200, leaf = 0, seed = 3, mindefl = 0, threads = 0, tc[8], ntc = 8;
  PetscBool     cmp;
  PetscReal    *d, *e, *wl, *el, *Zl, *w, *w2, *Z, tnorm = 0, res, orth, errw = 0;
  PGXDeviceType dev;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pgx_device", devs, sizeof(devs), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-leaf", &leaf, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-min_deflated", &mindefl, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-threads", &threads, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-compare_threads", tc, &ntc, &cmp));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-secular", PGXStedcSeculars, (PetscEnum *)&secular, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-wtol", &wtol, NULL));
  PetscCall(PGXDeviceResolve(PETSC_COMM_SELF, !strcmp(devs, "cuda") ? PGX_DEVICE_CUDA : PGX_DEVICE_HOST, &dev));
  PetscCall(PetscMalloc5(n, &d, n, &e, n, &wl, n, &el, n * n, &Zl));
  PetscCall(PetscMalloc3(n, &w, n, &w2, n * (n + 3), &Z));
  PetscCall(MakeT(type, n, seed, d, e));
  for (PetscInt j = 0; j < n; j++) tnorm = PetscMax(tnorm, PetscAbsReal(d[j]) + (j > 0 ? PetscAbsReal(e[j - 1]) : 0) + (j < n - 1 ? PetscAbsReal(e[j]) : 0));
  /* LAPACK dstedc: the eigenvalues to compare with, and its own residuals for the record */
  for (PetscInt i = 0; i < n; i++) wl[i] = d[i];
  for (PetscInt i = 0; i < n - 1; i++) el[i] = e[i];
  PetscCall(PGXTridiagonalEigen(n, wl, el, Zl, n));
  Residuals(n, d, e, tnorm, wl, Zl, n, &res, &orth);
  PetscCall(PetscInfo(NULL, "dstedc: residual %g, orthogonality %g\n", (double)res, (double)orth));

  PetscCall(RunOne("reference", PGX_DEVICE_HOST, leaf, threads, n, n, d, e, tnorm, wl, w, Z, mindefl));
  PetscCall(RunOne("reference ldz=n+3", PGX_DEVICE_HOST, leaf, threads, n, n + 3, d, e, tnorm, wl, w, Z, mindefl));
  if (dev == PGX_DEVICE_CUDA) {
    PetscCall(RunOne("cuda", PGX_DEVICE_CUDA, leaf, threads, n, n, d, e, tnorm, wl, w2, Z, mindefl));
    PetscCall(RunOne("cuda ldz=n+3", PGX_DEVICE_CUDA, leaf, threads, n, n + 3, d, e, tnorm, wl, w2, Z, mindefl));
    for (PetscInt i = 0; i < n; i++) errw = PetscMax(errw, PetscAbsReal(w[i] - w2[i]));
    CHECK(errw <= 1e-13 * tnorm, "cuda and reference eigenvalues differ by %g", (double)errw);
  }
  if (cmp && ntc > 1) {
    PetscCall(CompareThreads(PGX_DEVICE_HOST, leaf, n, d, e, tc, ntc));
    if (dev == PGX_DEVICE_CUDA) PetscCall(CompareThreads(PGX_DEVICE_CUDA, leaf, n, d, e, tc, ntc));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s n=%d: %s eigenpairs agree with dstedc, residual and orthogonality < 1e-12 sqrt(n)\n", type, (int)n, dev == PGX_DEVICE_CUDA ? "cuda and reference" : "reference"));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFree5(d, e, wl, el, Zl));
  PetscCall(PetscFree3(w, w2, Z));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
