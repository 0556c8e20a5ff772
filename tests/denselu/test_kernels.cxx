static char help[] = "Dense LU reference kernels: a hand-checked 3x3, pivots and factors equal to LAPACK dgetrf's, solves.\n";
/* Checks: the 3x3 factors and pivots written out below for every block size; Wilkinson's matrix (n = 40) gives U(k,n-1) = 2^k exactly and no
   interchanges; on random matrices of awkward
   sizes and several block sizes the pivots equal dgetrf's (ipiv + 1) and the factors agree to 1e-12
   (relative to max |LU|; except on the cond 1e8 matrix, where only the pivots are compared); solves (1 and 3 right-hand sides, A and A^T) have backward error < 10 and match
   dgetrs to 1e-12; an exactly zero pivot is reported in dgetrf's column (info - 1). */
#include <petscsys.h>
#include <vector>
#include <cmath>
#include <cstring>
#include "../../src/mat/impls/denselu/denselu_kernels.h"
#define PGX_TEST_PLAIN_CHECK
#include "../common/pgxtest.h"

#if defined(PETSC_USE_COMPLEX)
/* Real scalars only: denselu test_kernels (compares with LAPACK dgetrf on real matrices). Its tests are marked 'real'. */
int main(void)
{
  printf("denselu test_kernels: needs real scalars\n");
  return 1;
}
#else
  #include "denselu_matrices.h"

namespace ref = pgx::kernels::denselu::reference;
static int nfail = 0;

static PetscErrorCode Hand3x3(void)
{
  const double a0[9] = {1, 4, 7, 2, 5, 8, 3, 6, 10}; /* [1 2 3; 4 5 6; 7 8 10], column-major */
  const double lu[9] = {7, 1.0 / 7, 4.0 / 7, 8, 6.0 / 7, 0.5, 10, 11.0 / 7, -0.5};
  PetscFunctionBegin;
  for (PetscInt nb = 1; nb <= 4; nb++) {
    double   a[9];
    PetscInt ipiv[3], zc;
    for (int i = 0; i < 9; i++) a[i] = a0[i];
    PetscCall(ref::Factor(3, a, 3, nb, ipiv, &zc));
    CHECK(ipiv[0] == 2 && ipiv[1] == 2 && ipiv[2] == 2, "3x3 nb %d: pivots %d %d %d, expected 2 2 2", (int)nb, (int)ipiv[0], (int)ipiv[1], (int)ipiv[2]);
    CHECK(zc == -1, "3x3: zerocol %d", (int)zc);
    for (int i = 0; i < 9; i++) CHECK(std::fabs(a[i] - lu[i]) < 1e-15, "3x3 nb %d: lu[%d] = %.17g, expected %.17g", (int)nb, i, a[i], lu[i]);
    double b[3] = {6, 15, 25}; /* x = (1,1,1) */
    PetscCall(ref::Solve(3, a, 3, ipiv, PETSC_FALSE, 1, b, 3));
    for (int i = 0; i < 3; i++) CHECK(std::fabs(b[i] - 1.0) < 1e-14, "3x3 solve x[%d] = %.17g", i, b[i]);
    double bt[3] = {12, 15, 19}; /* A^T (1,1,1) */
    PetscCall(ref::Solve(3, a, 3, ipiv, PETSC_TRUE, 1, bt, 3));
    for (int i = 0; i < 3; i++) CHECK(std::fabs(bt[i] - 1.0) < 1e-14, "3x3 transpose solve x[%d] = %.17g", i, bt[i]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompareLapack(const char *kind, PetscInt n, PetscInt nb)
{
  std::vector<double>       a(n * n), lu(n * n), la(n * n);
  std::vector<PetscInt>     ipiv(n);
  std::vector<PetscBLASInt> lpiv(n);
  PetscBLASInt              bn, info, nrhs = 3;
  PetscInt                  zc;

  PetscFunctionBegin;
  DenseLUSeed(1000 + n);
  PetscCall(DenseLUMatrix(kind, n, 1e8, a.data()));
  lu = a, la = a;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(ref::Factor(n, lu.data(), n, nb, ipiv.data(), &zc));
  LAPACKgetrf_(&bn, &bn, la.data(), &bn, lpiv.data(), &info);
  if (!std::strcmp(kind, "singular")) {
    CHECK(zc == DenseLUSingularColumn(n) && info == zc + 1, "%s n %d: zerocol %d, dgetrf info %d", kind, (int)n, (int)zc, (int)info);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  CHECK(zc == -1 && info == 0, "%s n %d nb %d: zerocol %d, info %d", kind, (int)n, (int)nb, (int)zc, (int)info);
  PetscInt npdiff = 0;
  double   d = 0, m = 0;
  for (PetscInt k = 0; k < n; k++) npdiff += (ipiv[k] + 1 != lpiv[k]);
  for (PetscInt i = 0; i < n * n; i++) d = PetscMax(d, std::fabs(lu[i] - la[i])), m = PetscMax(m, std::fabs(la[i]));
  CHECK(npdiff == 0, "%s n %d nb %d: %d pivots differ from dgetrf's", kind, (int)n, (int)nb, (int)npdiff);
  if (std::strcmp(kind, "illcond")) /* ill-conditioned: round-off of other blockings is amplified; pivots still equal */
    CHECK(d <= 1e-12 * m, "%s n %d nb %d: max |LU - LU_lapack| = %g (max |LU| %g)", kind, (int)n, (int)nb, d, m);
  /* solves */
  for (int t = 0; t < 2; t++) {
    std::vector<double> b(n * nrhs), x, xl;
    for (auto &v : b) v = DenseLURand();
    x = b, xl = b;
    PetscCall(ref::Solve(n, lu.data(), n, ipiv.data(), t ? PETSC_TRUE : PETSC_FALSE, nrhs, x.data(), n));
    LAPACKgetrs_(t ? "T" : "N", &bn, &nrhs, la.data(), &bn, lpiv.data(), xl.data(), &bn, &info);
    for (PetscInt r = 0; r < nrhs; r++) {
      double be = DenseLUBackwardError(n, a.data(), x.data() + r * n, b.data() + r * n, t ? 'T' : 'N'), dx = 0, mx = 0;
      CHECK(be < 10, "%s n %d nb %d %s rhs %d: backward error %g", kind, (int)n, (int)nb, t ? "transpose" : "solve", (int)r, be);
      for (PetscInt i = 0; i < n; i++) dx = PetscMax(dx, std::fabs(x[i + r * n] - xl[i + r * n])), mx = PetscMax(mx, std::fabs(xl[i + r * n]));
      if (!std::strcmp(kind, "random")) CHECK(dx <= 1e-10 * mx, "%s n %d: solution differs from dgetrs by %g (max %g)", kind, (int)n, dx, mx);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Wilkinson's example: no interchanges (ties resolved to the first row, as dgetrf), U's last column 2^i exactly */
static PetscErrorCode WilkinsonGrowth(PetscInt n)
{
  std::vector<double>   a(n * n);
  std::vector<PetscInt> ipiv(n);
  PetscInt              zc, bad = 0;

  PetscFunctionBegin;
  DenseLUWilkinson(n, a.data());
  PetscCall(ref::Factor(n, a.data(), n, 7, ipiv.data(), &zc));
  for (PetscInt k = 0; k < n; k++) bad += (ipiv[k] != k) + (a[k + (n - 1) * n] != std::ldexp(1.0, (int)k));
  CHECK(bad == 0 && zc == -1, "wilkinson n %d: %d pivots or growth entries wrong (U(n-1,n-1) = %g, expected 2^%d)", (int)n, (int)bad, a[n * n - 1], (int)(n - 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt sizes[] = {1, 2, 31, 33, 100, 257}, blocks[] = {1, 8, 32, 64, 300};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(Hand3x3());
  for (PetscInt n : sizes)
    for (PetscInt nb : blocks) PetscCall(CompareLapack("random", n, nb));
  PetscCall(CompareLapack("illcond", 100, 16));
  PetscCall(CompareLapack("zerolead", 33, 8));
  PetscCall(CompareLapack("wilkinson", 12, 5));
  PetscCall(WilkinsonGrowth(40));
  PetscCall(CompareLapack("singular", 100, 32));
  PetscCall(CompareLapack("singular", 31, 4));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
#endif /* !PETSC_USE_COMPLEX */
