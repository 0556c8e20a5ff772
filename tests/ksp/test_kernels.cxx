static char help[] = "Resident Krylov layer: the reference kernels on hand-checked 5x5 inputs; the DIA analysis and fill of pgxdia.h.\n";
/* A = tridiag(-1, 2, -1) (5x5), x = (1..5): A x = (0, 0, 0, 0, 6). Off-diagonal block B (5x2 ghost columns)
   with B(0,1) = 3, B(4,0) = -2, ghosts g = (10, 20): A x + B g = (60, 0, 0, 0, -14). Vector kernels with the
   values written out; MDot/MAXPY on a block of two columns with leading dimension 6 (> n). */
#include <petscsys.h>
#include <cmath>
#include "../../src/ksp/utils/resident/resident_kernels.h"
#include <pgx/private/pgxdia.h>
#define PGX_TEST_PLAIN_CHECK
#include "../common/pgxtest.h"

namespace R = pgx::kernels::resident;

static int nfail = 0;

static void Expect(const char *what, const PetscScalar *got, const double *want, int n)
{
  for (int i = 0; i < n; i++) CHECK(PetscAbsScalar(got[i] - want[i]) <= 1e-15 * (1 + std::fabs(want[i])), "%s[%d] = %g, expected %g", what, i, (double)PetscRealPart(got[i]), want[i]);
}

int main(int argc, char **argv)
{
  const R::Backend &K = R::reference::backend;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  { /* pgxdia.h on the 5x5 A = tridiag(-1, 2, -1) with A(0,4) = 7 added: offsets -1, 0, 1, 4; fill 14 / 20 = 0.7 */
    const PetscInt    ap[] = {0, 3, 6, 9, 12, 14}, aj[] = {0, 1, 4, 0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4};
    const PetscScalar av[] = {2, -1, 7, -1, 2, -1, -1, 2, -1, -1, 2, -1, -1, 2};
    PetscInt          nd = -1, off[PGX_DIA_MAXDIAG];
    PetscScalar       val[20];

    PetscCall(PGXDIAAnalyze(5, ap, aj, PGX_DIA_MAXDIAG, 2.0 / 3.0, &nd, off));
    CHECK(nd == 4 && off[0] == -1 && off[1] == 0 && off[2] == 1 && off[3] == 4, "DIA offsets: %d diagonals (%d %d %d %d), expected 4 (-1 0 1 4)", (int)nd, (int)off[0], (int)off[1], (int)off[2], (int)off[3]);
    PetscCall(PGXDIAFill(5, ap, aj, av, nd, off, val));
    const double ev[] = {0, -1, -1, -1, -1, 2, 2, 2, 2, 2, -1, -1, -1, -1, 0, 7, 0, 0, 0, 0};
    Expect("DIA values", val, ev, 20);
    PetscCall(PGXDIAAnalyze(5, ap, aj, 3, 2.0 / 3.0, &nd, off));
    CHECK(nd == 0, "DIA with at most 3 diagonals: %d, expected 0 (refused)", (int)nd);
    PetscCall(PGXDIAAnalyze(5, ap, aj, PGX_DIA_MAXDIAG, 0.75, &nd, off));
    CHECK(nd == 0, "DIA with fill 0.7 < 0.75: %d diagonals, expected 0 (refused)", (int)nd);
    PetscCall(PGXDIAAnalyze(5, ap, aj, PGX_DIA_MAXDIAG, 0.0, &nd, off));
    CHECK(nd == 4, "DIA whatever the fill: %d diagonals, expected 4", (int)nd);
  }
  {
    const PetscInt    ap[] = {0, 2, 5, 8, 11, 13}, aj[] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4};
    const PetscScalar av[] = {2, -1, -1, 2, -1, -1, 2, -1, -1, 2, -1, -1, 2};
    const PetscInt    bp[] = {0, 1, 1, 1, 1, 2}, bj[] = {1, 0};
    const PetscScalar bv[] = {3, -2};
    R::CSR            A = {5, 5, 13, ap, aj, av, 0, nullptr, nullptr}, B = {5, 2, 2, bp, bj, bv, 0, nullptr, nullptr};
    PetscScalar       x[] = {1, 2, 3, 4, 5}, g[] = {10, 20}, y[5], w[5], r[2], d;
    PetscReal         t2;
    /* V: two columns (1,1,1,1,1) and (1,0,-1,0,1), ld 6 (the sixth entry must be ignored) */
    PetscScalar V[12] = {1, 1, 1, 1, 1, 99, 1, 0, -1, 0, 1, 99};

    PetscCall(K.SpMV(A, x, y));
    const double e1[] = {0, 0, 0, 0, 6};
    Expect("SpMV", y, e1, 5);
    PetscCall(K.SpMVAdd(B, g, y));
    const double e2[] = {60, 0, 0, 0, -14};
    Expect("SpMVAdd", y, e2, 5);
    PetscCall(K.Dot(5, x, x, &d));
    CHECK(d == 55, "Dot = %g, expected 55", (double)PetscRealPart(d));
    PetscCall(K.Norm2Sq(5, x, &t2));
    CHECK(t2 == 55, "Norm2Sq = %g, expected 55", (double)t2);
    PetscCall(K.MDot(5, 2, V, 6, x, r));
    CHECK(r[0] == 15 && r[1] == 3, "MDot = (%g, %g), expected (15, 3)", (double)PetscRealPart(r[0]), (double)PetscRealPart(r[1]));
    PetscCall(K.DotNorm2(5, x, V + 6, &d, &t2));
    CHECK(d == 3 && t2 == 3, "DotNorm2 = (%g, %g), expected (3, 3)", (double)PetscRealPart(d), (double)t2);
    for (int i = 0; i < 5; i++) w[i] = x[i];
    const PetscScalar a[] = {2, -1};
    PetscCall(K.MAXPY(5, 2, a, V, 6, w));
    const double e3[] = {2, 4, 6, 6, 6};
    Expect("MAXPY", w, e3, 5);
    PetscCall(K.AXPY(5, 0.5, x, w)); /* w = (2.5, 5, 7.5, 8, 8.5) */
    const double e4[] = {2.5, 5, 7.5, 8, 8.5};
    Expect("AXPY", w, e4, 5);
    PetscCall(K.AYPX(5, 2, x, w)); /* w = x + 2 w = (6, 12, 18, 20, 22) */
    const double e5[] = {6, 12, 18, 20, 22};
    Expect("AYPX", w, e5, 5);
    { /* the look-ahead CG's kernels: b = num/den = 2 read in memory; a = beta/dpi = 0.5; a sign change: not taken */
      PetscScalar sc[] = {4, 2, 8, -1}, u[5] = {6, 12, 18, 20, 22}, xo[5] = {0, 0, 0, 0, 0}, rr[5] = {1, 1, 1, 1, 1}, h[2];
      PetscCall(K.AYPXDev(5, &sc[0], &sc[1], x, u)); /* u = x + 2 u = (13, 26, 39, 44, 49) */
      const double e6[] = {13, 26, 39, 44, 49};
      Expect("AYPXDev", u, e6, 5);
      PetscCall(K.CGStepDev(5, &sc[0], &sc[2], NULL, x, x, u, xo, rr)); /* xo = u + 0.5 x, rr = 1 - 0.5 x */
      const double e7[] = {13.5, 27, 40.5, 46, 51.5}, e8[] = {0.5, 0, -0.5, -1, -1.5};
      Expect("CGStepDev x", xo, e7, 5);
      Expect("CGStepDev r", rr, e8, 5);
      PetscCall(K.CGStepDev(5, &sc[0], &sc[2], &sc[3], x, x, u, xo, rr)); /* dpi 8 after dpiold -1: untouched */
      Expect("CGStepDev (not taken) x", xo, e7, 5);
      Expect("CGStepDev (not taken) r", rr, e8, 5);
      PetscCall(K.FetchBegin(2, sc, 0));
      PetscCall(K.FetchBegin(2, sc + 2, 1));
      PetscCall(K.FetchEnd(2, 0, h));
      CHECK(h[0] == 4 && h[1] == 2, "FetchEnd slot 0 = (%g, %g), expected (4, 2)", (double)PetscRealPart(h[0]), (double)PetscRealPart(h[1]));
      PetscCall(K.FetchEnd(2, 1, h));
      CHECK(h[0] == 8 && h[1] == -1, "FetchEnd slot 1 = (%g, %g), expected (8, -1)", (double)PetscRealPart(h[0]), (double)PetscRealPart(h[1]));
      /* the look-ahead GMRES's normalization: ||w||^2 = 4 read in memory halves x; 0 and 1 leave it as it is */
      PetscScalar v[5] = {2, -4, 6, 8, 10}, n2[3] = {4, 0, 1};
      const double e9[] = {1, -2, 3, 4, 5};
      PetscCall(K.ScaleInvSqrtDev(5, &n2[0], v));
      Expect("ScaleInvSqrtDev", v, e9, 5);
      PetscCall(K.ScaleInvSqrtDev(5, &n2[1], v));
      Expect("ScaleInvSqrtDev (zero norm)", v, e9, 5);
      PetscCall(K.ScaleInvSqrtDev(5, &n2[2], v));
      Expect("ScaleInvSqrtDev (unit norm)", v, e9, 5);
    }
    PetscCall(K.WAXPY(5, -1, x, w, y)); /* y = w - x = (5, 10, 15, 16, 17) */
    const double e6[] = {5, 10, 15, 16, 17};
    Expect("WAXPY", y, e6, 5);
    PetscCall(K.AXPBYPCZ(5, 1, -1, 2, x, V, y)); /* y = x - 1 + 2 y = (10, 21, 32, 35, 38) */
    const double e7[] = {10, 21, 32, 35, 38};
    Expect("AXPBYPCZ", y, e7, 5);
    PetscCall(K.PointwiseMult(5, x, V + 6, y)); /* y = x .* (1,0,-1,0,1) = (1, 0, -3, 0, 5) */
    const double e8[] = {1, 0, -3, 0, 5};
    Expect("PointwiseMult", y, e8, 5);
    PetscCall(K.Scale(5, -2, y));
    const double e9[] = {-2, 0, 6, 0, -10};
    Expect("Scale", y, e9, 5);
    PetscCall(K.Copy(5, x, y));
    const double e10[] = {1, 2, 3, 4, 5};
    Expect("Copy", y, e10, 5);
    PetscCall(K.Set(5, 7, y));
    const double e11[] = {7, 7, 7, 7, 7};
    Expect("Set", y, e11, 5);
    const PetscInt idx[] = {4, 0, 4};
    PetscCall(K.Gather(3, idx, x, y));
    const double e12[] = {5, 1, 5};
    Expect("Gather", y, e12, 3);
  }
  if (!nfail) printf("all checks passed\n");
  else printf("%d checks FAILED\n", nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
