/* Tests of PGX's root finder for the secular equations of the divide and conquer (stedc_secular.h) and of the
   z-hat and eigenvector kernels built on it (stedc_kernels.h: reference, and with -pgx_device cuda the cuda
   kernels against the reference).
   Problems: a symmetric tridiagonal T (-type random | wilkinson | glued | toeplitz | clustered | graded | tinyz)
   torn in the middle as the driver tears it; its halves solved by LAPACK (PGXTridiagonalEigen); d, z and rho of
   the merge, deflated as the driver deflates (small rho |z_i|, close pairs by rotations). -type tinyz: d random,
   every 5th z just above the deflation tolerance (rho |z_i| = 3 tol), so roots lie within a few ulps of poles.
   Checks, each asserted:
   - interlacing: d_j < lambda_j < d_{j+1} (through tau's sign at the origin), lambda ascending;
   - the eigenvalues agree with LAPACK dlaed4's within 8 eps (max |d| + rho), and tau (lambda - its origin pole)
     with dlaed4's delta at that pole within 1e-10 relative beyond 2 ulps of the pole (roots next to a pole keep
     their relative accuracy);
   - all eigenvalues of the merge (the roots and the deflated poles) agree with LAPACK's eigenvalues of T within
     1e-13 ||T||;
   - S (normalized eigenvectors from z-hat): ||S^T S - I||_max <= k eps and
     ||(D + rho z z^T) S - S L||_max <= 4 k eps (max |d| + rho);
   - at most -maxit iterations a root (default 40; measured at most 25: a glued Wilkinson root next to a cluster
     of tiny-weight poles; most take 2 to 12);
   - cuda (-pgx_device cuda): roots, origins and S (rows in a permuted order, ld k + 3, poisoned with NaN first)
     equal to the reference's: the same origins, lambda within 2 eps (max |d| + rho), tau within 1e-10 relative
     (as against dlaed4), S within 1e-12; the two run the same operations (stedc_secular.h: no fused multiply-adds)
     and are expected bitwise equal (-info prints how many eigenvalues are not).
   Options: -n N (order of T), -seed S, -maxit M. */
#include <pgx/private/pgximpl.h>
#include <pgx/sytrd.h>
#include <petscblaslapack.h>
#include "../../src/mat/utils/sytrd/stedc_kernels.h"
#include "../common/pgxtest.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#define PGXLAPACKlaed4_ PETSCBLASREAL(laed4, LAED4)
BLAS_EXTERN void PGXLAPACKlaed4_(const PetscBLASInt *, const PetscBLASInt *, const PetscReal *, const PetscReal *, PetscReal *, const PetscReal *, PetscReal *, PetscBLASInt *);

namespace K = pgx::kernels::stedc;
static PetscInt nfail = 0;

struct Problem {
  std::vector<PetscReal> d, z, defl; /* the secular equation (ascending d), the deflated poles */
  PetscReal              rho = 0;
  std::vector<PetscReal> T_d, T_e;   /* the tridiagonal it comes from (empty for tinyz) */
};

static PetscErrorCode MakeT(const std::string &type, PetscInt n, std::mt19937_64 &g, std::vector<PetscReal> &d, std::vector<PetscReal> &e)
{
  std::uniform_real_distribution<PetscReal> u(-1, 1);
  PetscFunctionBegin;
  d.assign(n, 0);
  e.assign(n > 0 ? n - 1 : 0, 0);
  for (PetscInt i = 0; i < n; i++) {
    if (type == "random") d[i] = u(g);
    else if (type == "wilkinson") d[i] = PetscAbsReal((PetscReal)((n - 1) / 2) - i); /* one W_n+ */
    else if (type == "glued") d[i] = PetscAbsReal(10.0 - (PetscReal)(i % 21));      /* W21+ blocks glued by 1e-10 */
    else if (type == "toeplitz") d[i] = 2;                                             /* 1-2-1 */
    else if (type == "clustered") d[i] = 1 + 1e-8 * u(g);
    else if (type == "graded") d[i] = (0.75 + 0.25 * u(g)) * PetscPowReal(10.0, -12.0 * i / n);
    else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown -type %s", type.c_str());
  }
  for (PetscInt i = 0; i + 1 < n; i++) {
    if (type == "random") e[i] = u(g);
    else if (type == "wilkinson" || type == "toeplitz") e[i] = 1;
    else if (type == "glued") e[i] = (i % 21 == 20) ? 1e-10 : 1.0;
    else if (type == "clustered") e[i] = 1e-8 * u(g);
    else e[i] = (0.75 + 0.25 * u(g)) * PetscSqrtReal(PetscAbsReal(d[i] * d[i + 1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the driver's deflation (stedc.cxx Deflate) of (D, z, rho), D ascending: small components, then close pairs */
static void Deflate(std::vector<PetscReal> D, std::vector<PetscReal> z, PetscReal rho, Problem &P)
{
  const PetscInt m = (PetscInt)D.size();
  PetscReal      dmax = 0, zmax = 0;
  for (PetscInt i = 0; i < m; i++) dmax = PetscMax(dmax, PetscAbsReal(D[i])), zmax = PetscMax(zmax, PetscAbsReal(z[i]));
  const PetscReal tol = 4 * PETSC_MACHINE_EPSILON * PetscMax(dmax, zmax);
  PetscInt        pj  = -1;
  std::vector<PetscInt> sec;
  for (PetscInt j = 0; j < m; j++) {
    if (rho * PetscAbsReal(z[j]) <= tol) {
      P.defl.push_back(D[j]);
      continue;
    }
    if (pj < 0) {
      pj = j;
      continue;
    }
    PetscReal s = z[pj], c = z[j], tau = std::hypot(c, s), t = D[j] - D[pj];
    c /= tau;
    s = -s / tau;
    if (PetscAbsReal(t * c * s) <= tol) {
      z[j]          = tau;
      z[pj]         = 0;
      PetscReal dp  = D[pj] * c * c + D[j] * s * s;
      D[j]          = D[pj] * s * s + D[j] * c * c;
      D[pj]         = dp;
      P.defl.push_back(dp);
    } else sec.push_back(pj);
    pj = j;
  }
  if (pj >= 0) sec.push_back(pj);
  /* the rotations keep D sorted but for rounding: sort the secular poles */
  std::sort(sec.begin(), sec.end(), [&](PetscInt a, PetscInt b) { return D[a] < D[b]; });
  for (PetscInt i : sec) P.d.push_back(D[i]), P.z.push_back(z[i]);
  P.rho = rho;
}

static PetscErrorCode MakeProblem(const std::string &type, PetscInt n, PetscInt seed, Problem &P)
{
  std::mt19937_64 g((unsigned long)seed);
  PetscFunctionBegin;
  if (type == "tinyz") { /* d: n distinct random poles; z random, every 5th component just above the tolerance */
    std::uniform_real_distribution<PetscReal> u(-1, 1);
    std::vector<PetscReal>                    D(n), z(n);
    for (PetscInt i = 0; i < n; i++) D[i] = u(g), z[i] = u(g);
    std::sort(D.begin(), D.end());
    PetscReal zn = 0;
    for (PetscInt i = 0; i < n; i++) zn += z[i] * z[i];
    for (PetscInt i = 0; i < n; i++) z[i] /= PetscSqrtReal(zn);
    PetscReal rho = 0.7, dmax = 0;
    for (PetscInt i = 0; i < n; i++) dmax = PetscMax(dmax, PetscAbsReal(D[i]));
    const PetscReal tol = 4 * PETSC_MACHINE_EPSILON * PetscMax(dmax, (PetscReal)1);
    for (PetscInt i = 0; i < n; i += 5) z[i] = (i % 2 ? -3 : 3) * tol / rho;
    Deflate(D, z, rho, P);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MakeT(type, n, g, P.T_d, P.T_e));
  /* tear at n1 as the driver: T = diag(T1', T2') + rho u u^T */
  const PetscInt         n1 = n / 2, n2 = n - n1;
  const PetscReal        b  = P.T_e[n1 - 1];
  std::vector<PetscReal> d1(P.T_d.begin(), P.T_d.begin() + n1), e1(P.T_e.begin(), P.T_e.begin() + (n1 - 1)), d2(P.T_d.begin() + n1, P.T_d.end()), e2(P.T_e.begin() + n1, P.T_e.end());
  std::vector<PetscReal> Q1((size_t)n1 * n1), Q2((size_t)n2 * n2);
  d1[n1 - 1] -= PetscAbsReal(b);
  d2[0] -= PetscAbsReal(b);
  e1.resize(PetscMax(n1, (PetscInt)1)), e2.resize(PetscMax(n2, (PetscInt)1));
  PetscCall(PGXTridiagonalEigen(n1, d1.data(), e1.data(), Q1.data(), n1));
  PetscCall(PGXTridiagonalEigen(n2, d2.data(), e2.data(), Q2.data(), n2));
  std::vector<PetscReal> D(n), z(n);
  for (PetscInt j = 0; j < n1; j++) D[j] = d1[j], z[j] = Q1[(n1 - 1) + (size_t)j * n1];
  for (PetscInt j = 0; j < n2; j++) D[n1 + j] = d2[j], z[n1 + j] = (b < 0 ? -1 : 1) * Q2[(size_t)j * n2];
  PetscReal zn = 0;
  for (PetscInt i = 0; i < n; i++) zn += z[i] * z[i];
  for (PetscInt i = 0; i < n; i++) z[i] /= PetscSqrtReal(zn);
  std::vector<PetscInt> o(n);
  std::iota(o.begin(), o.end(), (PetscInt)0);
  std::stable_sort(o.begin(), o.end(), [&](PetscInt a, PetscInt c) { return D[a] < D[c]; });
  std::vector<PetscReal> Ds(n), zs(n);
  for (PetscInt i = 0; i < n; i++) Ds[i] = D[o[i]], zs[i] = z[o[i]];
  Deflate(Ds, zs, PetscAbsReal(b) * zn, P);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Run(const std::string &type, PetscInt n, PetscInt seed, PetscInt maxitok, PGXDeviceType dev)
{
  Problem P;
  PetscFunctionBegin;
  PetscCall(MakeProblem(type, n, seed, P));
  const PetscInt   k = (PetscInt)P.d.size();
  const PetscReal *d = P.d.data(), *z = P.z.data(), rho = P.rho, eps = PETSC_MACHINE_EPSILON;
  PetscReal        dmax = 0;
  for (PetscInt i = 0; i < k; i++) dmax = PetscMax(dmax, PetscAbsReal(d[i]));
  const PetscReal scale = dmax + rho;
  CHECK(k >= 3, "%s: secular order %d too small for a test", type.c_str(), (int)k);
  for (PetscInt i = 0; i + 1 < k; i++) CHECK(d[i] < d[i + 1], "%s: poles not distinct at %d", type.c_str(), (int)i);

  std::vector<PetscReal> lam(k), tau(k), zh(k), S((size_t)k * k), lam4(k), del4(k);
  std::vector<PetscInt>  org(k), it(k);
  K::reference::secular_roots(k, d, z, rho, 0, k, lam.data(), org.data(), tau.data(), it.data());
  K::reference::secular_zhat(k, d, z, org.data(), tau.data(), 0, k, zh.data());
  K::reference::secular_vectors(k, d, zh.data(), org.data(), tau.data(), NULL, 0, k, S.data(), k);

  /* interlacing, iterations */
  PetscInt itmax = 0;
  for (PetscInt j = 0; j < k; j++) {
    itmax = PetscMax(itmax, it[j]);
    CHECK(org[j] == j || (org[j] == j + 1 && j + 1 < k), "%s: root %d has origin %d", type.c_str(), (int)j, (int)org[j]);
    CHECK(org[j] == j ? tau[j] > 0 : tau[j] < 0, "%s: root %d: tau %g on the wrong side of its origin %d", type.c_str(), (int)j, (double)tau[j], (int)org[j]);
    if (j + 1 < k) CHECK(lam[j] <= lam[j + 1], "%s: roots %d, %d not ascending", type.c_str(), (int)j, (int)j + 1);
  }
  CHECK(itmax <= maxitok, "%s: %d iterations for a root (at most %d expected)", type.c_str(), (int)itmax, (int)maxitok);

  /* against dlaed4 */
  PetscReal    errl = 0, errt = 0;
  PetscBLASInt bk = (PetscBLASInt)k;
  for (PetscInt j = 0; j < k; j++) {
    PetscBLASInt jj = (PetscBLASInt)(j + 1), info = 0;
    PGXLAPACKlaed4_(&bk, &jj, d, z, del4.data(), &rho, &lam4[j], &info);
    CHECK(info == 0, "%s: dlaed4 failed on root %d", type.c_str(), (int)j);
    errl = PetscMax(errl, PetscAbsReal(lam[j] - lam4[j]));
    /* relative to tau, beyond the ulps of lambda itself (the roots next to a pole of a tiny z_i are defined
       only to those: both finders stop within their rounding errors) */
    errt = PetscMax(errt, PetscMax(PetscAbsReal(-tau[j] - del4[org[j]]) - 2 * eps * PetscAbsReal(d[org[j]]), 0.0) / PetscAbsReal(tau[j]));
  }
  CHECK(errl <= 8 * eps * scale, "%s: eigenvalues differ from dlaed4's by %g eps (max |d| + rho)", type.c_str(), (double)(errl / (eps * scale)));
  CHECK(errt <= 1e-10, "%s: tau differs from dlaed4's delta at the origin by %g relative", type.c_str(), (double)errt);

  /* all eigenvalues of the merge against LAPACK's of T */
  PetscReal errT = 0;
  if (!P.T_d.empty()) {
    std::vector<PetscReal> all(lam), wd(P.T_d), we(P.T_e), ZZ(1);
    all.insert(all.end(), P.defl.begin(), P.defl.end());
    std::sort(all.begin(), all.end());
    we.resize(PetscMax((PetscInt)1, n));
    PetscCall(PGXTridiagonalEigen(n, wd.data(), we.data(), NULL, n));
    PetscReal tn = 0;
    for (PetscInt i = 0; i < n; i++) tn = PetscMax(tn, PetscAbsReal(P.T_d[i]) + (i > 0 ? PetscAbsReal(P.T_e[i - 1]) : 0) + (i + 1 < n ? PetscAbsReal(P.T_e[i]) : 0));
    CHECK((PetscInt)all.size() == n, "%s: %d eigenvalues for order %d", type.c_str(), (int)all.size(), (int)n);
    for (PetscInt i = 0; i < n && i < (PetscInt)all.size(); i++) errT = PetscMax(errT, PetscAbsReal(all[i] - wd[i]));
    errT /= tn;
    CHECK(errT <= 1e-13, "%s: eigenvalues differ from LAPACK's of T by %g ||T||", type.c_str(), (double)errT);
  }

  /* S: orthogonality and the residual of D + rho z z^T */
  PetscReal orth = 0, res = 0;
  for (PetscInt j = 0; j < k; j++) {
    const PetscReal *sj = S.data() + (size_t)j * k;
    for (PetscInt i = 0; i <= j; i++) {
      const PetscReal *si = S.data() + (size_t)i * k;
      PetscReal        t  = i == j ? -1 : 0;
      for (PetscInt r = 0; r < k; r++) t += si[r] * sj[r];
      orth = PetscMax(orth, PetscAbsReal(t));
    }
    PetscReal zs = 0;
    for (PetscInt r = 0; r < k; r++) zs += z[r] * sj[r];
    for (PetscInt r = 0; r < k; r++) res = PetscMax(res, PetscAbsReal((d[r] - lam[j]) * sj[r] + rho * z[r] * zs));
  }
  res /= scale;
  CHECK(orth <= k * eps, "%s: ||S^T S - I||_max = %g = %g k eps", type.c_str(), (double)orth, (double)(orth / (k * eps)));
  CHECK(res <= 4 * k * eps, "%s: residual of D + rho z z^T %g = %g k eps", type.c_str(), (double)res, (double)(res / (k * eps)));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s n=%d: secular order %d (%d deflated): roots agree with dlaed4, S orthogonal, eigenvalues of T agree with LAPACK\n", type.c_str(), (int)n, (int)k, (int)P.defl.size()));
  PetscCall(PetscInfo(NULL, "%s: at most %d iterations; lambda - dlaed4 %g eps scale; tau %g relative; T %g ||T||; orthogonality %g k eps; residual %g k eps\n", type.c_str(), (int)itmax, (double)(errl / (eps * scale)), (double)errt, (double)errT, (double)(orth / (k * eps)), (double)(res / (k * eps))));

#if PGX_HAVE_CUDA
  if (dev == PGX_DEVICE_CUDA) {
    K::cuda::Scratch *scr = nullptr;
    const PetscInt    off = 5, lds = k + 3;
    PetscReal        *dS  = nullptr;
    std::vector<PetscReal> lc(k), tc(k), Sc((size_t)lds * k, NAN), Sr((size_t)k * k);
    std::vector<PetscInt>  oc(k), cidx(k);
    for (PetscInt r = 0; r < k; r++) cidx[r] = (r * 7 + 3) % k; /* a permutation when gcd(7, k) = 1 */
    if (k % 7 == 0)
      for (PetscInt r = 0; r < k; r++) cidx[r] = k - 1 - r;
    K::reference::secular_vectors(k, d, zh.data(), org.data(), tau.data(), cidx.data(), 0, k, Sr.data(), k);
    PetscCall(K::cuda::create(k + off, &scr));
    PetscCall(PGXDeviceMallocArray((size_t)lds * k, &dS));
    PetscCall(PGXDeviceCopyArrayToDevice(dS, Sc.data(), (size_t)lds * k)); /* NaN poison */
    PetscCall(K::cuda::secular_roots(scr, off, k, d, z, rho, lc.data()));
    PetscCall(K::cuda::secular_download_roots(scr, off, k, oc.data(), tc.data()));
    PetscCall(K::cuda::secular_vectors(scr, off, k, cidx.data(), dS, lds));
    PetscCall(PGXDeviceCopyArrayToHost(Sc.data(), dS, (size_t)lds * k));
    PetscReal dl = 0, dt = 0, dsm = 0;
    PetscInt  no = 0, bit = 0;
    for (PetscInt j = 0; j < k; j++) {
      dl = PetscMax(dl, PetscAbsReal(lc[j] - lam[j]) / (eps * scale));
      no += oc[j] != org[j];
      if (oc[j] == org[j]) dt = PetscMax(dt, PetscMax(PetscAbsReal(tc[j] - tau[j]) - 2 * eps * PetscAbsReal(d[org[j]]), 0.0) / PetscAbsReal(tau[j]));
      bit += lc[j] != lam[j];
      for (PetscInt r = 0; r < k; r++) dsm = PetscMax(dsm, std::isfinite(Sc[r + (size_t)j * lds]) ? PetscAbsReal(Sc[r + (size_t)j * lds] - Sr[r + (size_t)j * k]) : 1e300);
    }
    CHECK(no == 0, "%s: cuda: %d roots with another origin than the reference's", type.c_str(), (int)no);
    CHECK(dl <= 2, "%s: cuda: eigenvalues differ from the reference's by %g eps (max |d| + rho)", type.c_str(), (double)dl);
    CHECK(dt <= 1e-10, "%s: cuda: tau differs from the reference's by %g relative", type.c_str(), (double)dt);
    CHECK(dsm <= 1e-12, "%s: cuda: S differs from the reference's by %g (or is not written)", type.c_str(), (double)dsm);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s n=%d: cuda roots, origins and S agree with the reference\n", type.c_str(), (int)n));
    PetscCall(PetscInfo(NULL, "%s: cuda: %d of %d eigenvalues not bitwise equal to the reference's; max %g ulps, S %g\n", type.c_str(), (int)bit, (int)k, (double)dl, (double)dsm));
    PetscCall(PGXDeviceFree(&dS));
    PetscCall(K::cuda::destroy(&scr));
  }
#else
  (void)dev;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char          devs[16] = "host", types[256] = "random,wilkinson,glued,toeplitz,clustered,graded,tinyz";
  PetscInt      n = 300, seed = 5, maxit = 40;
  PGXDeviceType dev;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pgx_device", devs, sizeof(devs), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-types", types, sizeof(types), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxit", &maxit, NULL));
  PetscCall(PGXDeviceResolve(PETSC_COMM_SELF, !strcmp(devs, "cuda") ? PGX_DEVICE_CUDA : PGX_DEVICE_HOST, &dev));
  {
    std::string all(types), t;
    size_t      p = 0;
    while (p <= all.size()) {
      size_t q = all.find(',', p);
      if (q == std::string::npos) q = all.size();
      t = all.substr(p, q - p);
      if (!t.empty()) PetscCall(Run(t, n, seed, maxit, dev));
      p = q + 1;
    }
  }
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
