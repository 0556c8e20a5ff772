static char help[] = "PCDILU reference kernels against a plain sequential DILU written here.\n";
/* Checks: a hand-computed 5x5 E; level sets and colorings are valid schedules; natural schedule ==
   sequential DILU (1e-14); multicolor == sequential DILU of the explicitly permuted matrix P A P^T;
   transpose apply on A^T's CSR with A's E is the adjoint of apply; zero pivots are reported by row; the color
   wave (7-point: colors = wavefront mod w; default 8; bad waves refused; multicolor DILU with waves 1, 2, 4). */
#include <petscsys.h>
#include <vector>
#include <tuple>
#include <cmath>
#include <cstring>
#include <algorithm>
#include "../../src/pc/impls/dilu/dilu_kernels.h"
#define PGX_TEST_PLAIN_CHECK
#include "../common/pgxtest.h"
#define PGX_TEST_SEED 2024
#include "dilu_csr.h"

namespace ref = pgx::kernels::dilu::reference;

static int nfail = 0;


/* nonsymmetric pattern (some pairs one-sided), diagonally dominant, optionally a zero diagonal */
static Csr RandomMatrix(PetscInt n, PetscInt perrow)
{
  std::vector<std::tuple<PetscInt, PetscInt, PetscScalar>> t;
  for (PetscInt i = 0; i < n; i++) {
    double s = 0;
    for (PetscInt q = 0; q < perrow; q++) {
      PetscInt j = (PetscInt)(Rand() * n);
      if (j == i) continue;
      double v = Rand() - 0.7;
      t.push_back({i, j, v}), s += std::fabs(v);
      if (Rand() < 0.6) t.push_back({j, i, Rand() - 0.7}); /* most pairs two-sided, some one-sided */
    }
    t.push_back({i, i, 2.0 * s + 1.0 + Rand()});
  }
  /* make the diagonal dominant after adding the mirrored entries */
  Csr A = FromTriplets(n, t);
  for (PetscInt i = 0; i < n; i++) {
    double s = 0;
    for (PetscInt k = A.ptr[i]; k < A.ptr[i + 1]; k++)
      if (A.col[k] != i) s += std::fabs(A.val[k]);
    for (PetscInt k = A.ptr[i]; k < A.ptr[i + 1]; k++)
      if (A.col[k] == i) A.val[k] = s + 0.5 + Rand();
  }
  return A;
}

static Csr Poisson3d(PetscInt m)
{
  std::vector<std::tuple<PetscInt, PetscInt, PetscScalar>> t;
  for (PetscInt k = 0; k < m; k++)
    for (PetscInt j = 0; j < m; j++)
      for (PetscInt i = 0; i < m; i++) {
        PetscInt r = i + m * (j + m * k);
        t.push_back({r, r, 6.0});
        if (i > 0) t.push_back({r, r - 1, -1.0});
        if (i < m - 1) t.push_back({r, r + 1, -1.0});
        if (j > 0) t.push_back({r, r - m, -1.0});
        if (j < m - 1) t.push_back({r, r + m, -1.0});
        if (k > 0) t.push_back({r, r - m * m, -1.0});
        if (k < m - 1) t.push_back({r, r + m * m, -1.0});
      }
  return FromTriplets(m * m * m, t);
}

/* The plain sequential DILU of A in its own ordering: E, then y = M^-1 r */
static void SequentialDILU(const Csr &A, const std::vector<PetscScalar> &r, std::vector<PetscScalar> &E, std::vector<PetscScalar> &y)
{
  PetscInt n = A.n;
  E.assign(n, 0.0);
  y.assign(n, 0.0);
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar d = A.at(i, i);
    for (PetscInt k = A.ptr[i]; k < A.ptr[i + 1]; k++) {
      PetscInt j = A.col[k];
      if (j < i && A.has(j, i)) d -= A.val[k] * A.at(j, i) / E[j];
    }
    E[i] = d;
  }
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = r[i];
    for (PetscInt k = A.ptr[i]; k < A.ptr[i + 1]; k++)
      if (A.col[k] < i) s -= A.val[k] * y[A.col[k]];
    y[i] = s / E[i];
  }
  for (PetscInt i = n - 1; i >= 0; i--) {
    PetscScalar s = 0;
    for (PetscInt k = A.ptr[i]; k < A.ptr[i + 1]; k++)
      if (A.col[k] > i) s += A.val[k] * y[A.col[k]];
    y[i] -= s / E[i];
  }
}

static double RelErr(const std::vector<PetscScalar> &a, const std::vector<PetscScalar> &b)
{
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); i++) num = std::max(num, (double)std::fabs(a[i] - b[i])), den = std::max(den, (double)std::fabs(b[i]));
  return (std::isfinite(num) && den > 0) ? num / den : 1e300;
}

/* Checks that sched (order, lptr) is a valid schedule of the lower/upper sweep w.r.t. rank */
static void CheckSchedule(const char *what, const Csr &A, const PetscInt *rank, bool upper, PetscInt nl, const std::vector<PetscInt> &order, const std::vector<PetscInt> &lptr)
{
  std::vector<PetscInt> level(A.n, -1);
  CHECK(lptr[0] == 0 && lptr[nl] == A.n, "%s: level pointers cover %d of %d rows", what, (int)lptr[nl], (int)A.n);
  for (PetscInt l = 0; l < nl; l++)
    for (PetscInt p = lptr[l]; p < lptr[l + 1]; p++) level[order[p]] = l;
  bool ok = true;
  for (PetscInt i = 0; i < A.n && ok; i++) {
    if (level[i] < 0) ok = false;
    for (PetscInt k = A.ptr[i]; k < A.ptr[i + 1] && ok; k++) {
      PetscInt j = A.col[k];
      if (j == i) continue;
      bool before = rank ? rank[j] < rank[i] : j < i;
      if (upper ? !before : before) ok = level[j] < level[i];
    }
  }
  CHECK(ok, "%s: a row depends on a row of the same or a later level", what);
}

struct Analysis {
  std::vector<PetscInt> diag, pair, rank, lorder, llptr, uorder, ulptr, color;
  PetscInt              nl = 0, nu = 0, ncolors = 0;
};

static void Analyze(const Csr &A, bool multicolor, Analysis &a, PetscInt wave = DILU_COLOR_WAVE)
{
  PetscInt n = A.n;
  a.diag.resize(n), a.pair.resize(A.col.size()), a.lorder.resize(n), a.llptr.resize(n + 1), a.uorder.resize(n), a.ulptr.resize(n + 1);
  PetscCallAbort(PETSC_COMM_SELF, ref::FindDiagonal(n, A.ptr.data(), A.col.data(), a.diag.data()));
  if (multicolor) {
    a.color.resize(n), a.rank.resize(n);
    PetscCallAbort(PETSC_COMM_SELF, ref::Color(n, A.ptr.data(), A.col.data(), wave, a.color.data(), &a.ncolors));
    PetscCallAbort(PETSC_COMM_SELF, ref::RankFromColors(n, a.color.data(), a.ncolors, a.rank.data()));
    PetscCallAbort(PETSC_COMM_SELF, ref::ColorSchedule(n, a.color.data(), a.ncolors, PETSC_FALSE, a.lorder.data(), a.llptr.data()));
    PetscCallAbort(PETSC_COMM_SELF, ref::ColorSchedule(n, a.color.data(), a.ncolors, PETSC_TRUE, a.uorder.data(), a.ulptr.data()));
    a.nl = a.nu = a.ncolors;
  } else {
    PetscCallAbort(PETSC_COMM_SELF, ref::LevelSets(n, A.ptr.data(), A.col.data(), NULL, PETSC_FALSE, a.lorder.data(), a.llptr.data(), &a.nl));
    PetscCallAbort(PETSC_COMM_SELF, ref::LevelSets(n, A.ptr.data(), A.col.data(), NULL, PETSC_TRUE, a.uorder.data(), a.ulptr.data(), &a.nu));
  }
  PetscCallAbort(PETSC_COMM_SELF, ref::FindPairs(n, A.ptr.data(), A.col.data(), multicolor ? a.rank.data() : NULL, a.pair.data()));
}

static void TestHand5x5(void)
{
  /* tridiag(-1, 4, -1) plus a one-sided a_40 = 1 (no a_04: must not enter E) */
  std::vector<std::tuple<PetscInt, PetscInt, PetscScalar>> t;
  for (PetscInt i = 0; i < 5; i++) {
    t.push_back({i, i, 4.0});
    if (i) t.push_back({i, i - 1, -1.0}), t.push_back({i - 1, i, -1.0});
  }
  t.push_back({4, 0, 1.0});
  Csr       A = FromTriplets(5, t);
  Analysis  a;
  PetscInt  bad;
  PetscScalar E[5];
  const double expect[5] = {4.0, 15.0 / 4.0, 56.0 / 15.0, 209.0 / 56.0, 780.0 / 209.0};
  Analyze(A, false, a);
  CHECK(a.nl == 5 && a.nu == 5, "5x5: %d lower and %d upper levels, expected 5 and 5", (int)a.nl, (int)a.nu);
  PetscCallAbort(PETSC_COMM_SELF, ref::Factor(5, A.ptr.data(), A.col.data(), A.val.data(), NULL, a.diag.data(), a.pair.data(), a.nl, a.lorder.data(), a.llptr.data(), 0.0, E, &bad));
  CHECK(bad == -1, "5x5: reported bad row %d", (int)bad);
  for (int i = 0; i < 5; i++) CHECK(PetscAbsScalar(E[i] - expect[i]) <= 4 * PETSC_MACHINE_EPSILON * expect[i], "5x5: E[%d] = %.17g, expected %.17g", i, (double)PetscRealPart(E[i]), expect[i]);
  /* with shift 1: E_0 = 5, E_1 = 5 - 1/5 = 24/5 */
  PetscCallAbort(PETSC_COMM_SELF, ref::Factor(5, A.ptr.data(), A.col.data(), A.val.data(), NULL, a.diag.data(), a.pair.data(), a.nl, a.lorder.data(), a.llptr.data(), 1.0, E, &bad));
  CHECK(PetscAbsScalar(E[1] - 24.0 / 5.0) <= 4 * PETSC_MACHINE_EPSILON * 5, "5x5 shift 1: E[1] = %.17g, expected 4.8", (double)PetscRealPart(E[1]));
  printf("5x5 hand-checked E: done\n");
}

static void TestAgainstSequential(const char *name, const Csr &A, bool multicolor, PetscInt wave = DILU_COLOR_WAVE)
{
  PetscInt                 n = A.n, bad;
  Analysis                 a;
  std::vector<PetscScalar> r(n), E(n, NAN), y(n, NAN), Es, ys;
  for (auto &v : r) v = Rand() - 0.5;
  Analyze(A, multicolor, a, wave);
  const PetscInt *rank = multicolor ? a.rank.data() : NULL;
  CheckSchedule(name, A, rank, false, a.nl, a.lorder, a.llptr);
  CheckSchedule(name, A, rank, true, a.nu, a.uorder, a.ulptr);
  PetscCallAbort(PETSC_COMM_SELF, ref::Factor(n, A.ptr.data(), A.col.data(), A.val.data(), rank, a.diag.data(), a.pair.data(), a.nl, a.lorder.data(), a.llptr.data(), 0.0, E.data(), &bad));
  CHECK(bad == -1, "%s: bad row %d", name, (int)bad);
  PetscCallAbort(PETSC_COMM_SELF, ref::Apply(n, A.ptr.data(), A.col.data(), A.val.data(), rank, E.data(), a.nl, a.lorder.data(), a.llptr.data(), a.nu, a.uorder.data(), a.ulptr.data(), r.data(), y.data()));
  { /* the host backend's layout: the same bits as Factor() and Apply(), also with r and y the same array */
    ref::Host               *h;
    PetscInt                 badh = -2;
    std::vector<PetscScalar> Eh(n, NAN), yh(n, NAN), yi(r);
    PetscCallAbort(PETSC_COMM_SELF, ref::HostCreate(&h));
    PetscCallAbort(PETSC_COMM_SELF, ref::HostAnalyze(h, n, A.ptr.data(), A.col.data(), rank, a.pair.data()));
    PetscCallAbort(PETSC_COMM_SELF, ref::HostFactor(h, A.val.data(), 0.0, Eh.data(), &badh));
    PetscCallAbort(PETSC_COMM_SELF, ref::HostApply(h, r.data(), yh.data()));
    PetscCallAbort(PETSC_COMM_SELF, ref::HostApply(h, yi.data(), yi.data()));
    CHECK(badh == bad && !memcmp(Eh.data(), E.data(), n * sizeof(PetscScalar)), "%s %s: host layout's E differs from Factor()'s (bad row %d vs %d)", name, multicolor ? "multicolor" : "natural", (int)badh, (int)bad);
    CHECK(!memcmp(yh.data(), y.data(), n * sizeof(PetscScalar)) && !memcmp(yi.data(), y.data(), n * sizeof(PetscScalar)), "%s %s: host layout's apply differs from Apply() in some bit", name, multicolor ? "multicolor" : "natural");
    PetscCallAbort(PETSC_COMM_SELF, ref::HostDestroy(&h));
    printf("%s %s: host layout equals Factor() and Apply() bitwise\n", name, multicolor ? "multicolor" : "natural");
  }
  if (!multicolor) {
    SequentialDILU(A, r, Es, ys);
    double eE = RelErr(E, Es), ey = RelErr(y, ys);
    CHECK(eE <= 1e-14 && ey <= 1e-14, "%s natural: |E - E_seq| = %g, |y - y_seq| = %g (relative), expected <= 1e-14", name, eE, ey);
    printf("%s natural: n %d, %d lower / %d upper levels, matches sequential DILU\n", name, (int)n, (int)a.nl, (int)a.nu);
  } else {
    /* the coloring is proper: no stored entry joins two rows of one color */
    bool proper = true;
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = A.ptr[i]; k < A.ptr[i + 1]; k++)
        if (A.col[k] != i && a.color[A.col[k]] == a.color[i]) proper = false;
    CHECK(proper, "%s: coloring is not proper", name);
    /* B = P A P^T with P sorting by rank; sequential DILU of B on P r, then back */
    std::vector<PetscInt> inv(n);
    for (PetscInt i = 0; i < n; i++) inv[a.rank[i]] = i;
    std::vector<std::tuple<PetscInt, PetscInt, PetscScalar>> t;
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = A.ptr[i]; k < A.ptr[i + 1]; k++) t.push_back({a.rank[i], a.rank[A.col[k]], A.val[k]});
    Csr                      B = FromTriplets(n, t);
    std::vector<PetscScalar> pr(n), yp(n), Ep(n);
    for (PetscInt i = 0; i < n; i++) pr[a.rank[i]] = r[i];
    SequentialDILU(B, pr, Es, ys);
    for (PetscInt i = 0; i < n; i++) yp[i] = ys[a.rank[i]], Ep[i] = Es[a.rank[i]];
    double eE = RelErr(E, Ep), ey = RelErr(y, yp);
    CHECK(eE <= 1e-13 && ey <= 1e-13, "%s multicolor: |E - E_seq(PAP^T)| = %g, |y - y_seq| = %g, expected <= 1e-13", name, eE, ey);
    printf("%s multicolor (color wave %d): n %d, %d colors, matches sequential DILU of P A P^T\n", name, (int)wave, (int)n, (int)a.ncolors);
  }

  /* transpose: M^-T on A^T's CSR with the same E; <M^-T s, r> = <s, M^-1 r> */
  {
    std::vector<PetscInt>    tptr(n + 1), tcol(A.col.size()), tperm(A.col.size());
    std::vector<PetscScalar> s(n), z(n, NAN);
    PetscCallAbort(PETSC_COMM_SELF, ref::Transpose(n, A.ptr.data(), A.col.data(), tptr.data(), tcol.data(), tperm.data()));
    Csr AT;
    AT.n = n, AT.ptr = tptr, AT.col = tcol, AT.val.resize(tcol.size());
    for (size_t k = 0; k < tcol.size(); k++) AT.val[k] = A.val[tperm[k]];
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = A.ptr[i]; k < A.ptr[i + 1]; k++) CHECK(AT.at(A.col[k], i) == A.val[k], "%s: transpose wrong at (%d,%d)", name, (int)i, (int)A.col[k]);
    Analysis at;
    Analyze(AT, false, at);
    if (multicolor) { /* the same elimination order (A's colors) for A^T */
      PetscCallAbort(PETSC_COMM_SELF, ref::ColorSchedule(n, a.color.data(), a.ncolors, PETSC_FALSE, at.lorder.data(), at.llptr.data()));
      PetscCallAbort(PETSC_COMM_SELF, ref::ColorSchedule(n, a.color.data(), a.ncolors, PETSC_TRUE, at.uorder.data(), at.ulptr.data()));
      at.nl = at.nu = a.ncolors;
    }
    CheckSchedule(name, AT, rank, false, at.nl, at.lorder, at.llptr);
    CheckSchedule(name, AT, rank, true, at.nu, at.uorder, at.ulptr);
    for (auto &v : s) v = Rand() - 0.5;
    PetscCallAbort(PETSC_COMM_SELF, ref::Apply(n, AT.ptr.data(), AT.col.data(), AT.val.data(), rank, E.data(), at.nl, at.lorder.data(), at.llptr.data(), at.nu, at.uorder.data(), at.ulptr.data(), s.data(), z.data()));
    { /* host layout of A^T with A's E: Apply()'s bits */
      ref::Host               *h;
      std::vector<PetscScalar> zh(n, NAN);
      PetscCallAbort(PETSC_COMM_SELF, ref::HostCreate(&h));
      PetscCallAbort(PETSC_COMM_SELF, ref::HostAnalyze(h, n, AT.ptr.data(), AT.col.data(), rank, NULL));
      PetscCallAbort(PETSC_COMM_SELF, ref::HostSetValues(h, AT.val.data(), E.data()));
      PetscCallAbort(PETSC_COMM_SELF, ref::HostApply(h, s.data(), zh.data()));
      CHECK(!memcmp(zh.data(), z.data(), n * sizeof(PetscScalar)), "%s %s: host layout's transpose apply differs from Apply() on A^T in some bit", name, multicolor ? "multicolor" : "natural");
      PetscCallAbort(PETSC_COMM_SELF, ref::HostDestroy(&h));
    }
    PetscScalar lhs = 0, rhs = 0;
    double      scale = 0;
    for (PetscInt i = 0; i < n; i++) lhs += z[i] * r[i], rhs += s[i] * y[i], scale += PetscAbsScalar(z[i] * r[i]) + PetscAbsScalar(s[i] * y[i]);
    CHECK(PetscAbsScalar(lhs - rhs) <= 1e-13 * scale, "%s %s: <M^-T s, r> = %.17g but <s, M^-1 r> = %.17g", name, multicolor ? "multicolor" : "natural", (double)PetscRealPart(lhs), (double)PetscRealPart(rhs));
    /* also E of A^T equals E of A */
    std::vector<PetscScalar> ET(n);
    PetscCallAbort(PETSC_COMM_SELF, ref::FindPairs(n, AT.ptr.data(), AT.col.data(), rank, at.pair.data()));
    PetscCallAbort(PETSC_COMM_SELF, ref::Factor(n, AT.ptr.data(), AT.col.data(), AT.val.data(), rank, at.diag.data(), at.pair.data(), at.nl, at.lorder.data(), at.llptr.data(), 0.0, ET.data(), &bad));
    CHECK(RelErr(ET, E) <= 1e-13, "%s: E of A^T differs from E of A by %g", name, RelErr(ET, E));
  }
}

/* The color wave: on the 7-point stencil (lexicographic order) the color is (i + j + k) mod w, w colors (at most
   the 3(m-1)+1 wavefront levels); w = 1 is the plain greedy coloring (red-black here); the default is 8; waves
   outside [1, 64] are refused. On the random matrix: proper colorings, a wave of 1 is the smallest-free greedy. */
static void TestWave(void)
{
  const PetscInt m = 9, n = m * m * m;
  Csr            P = Poisson3d(m);
  for (PetscInt w : {1, 2, 3, 4, 8, 16, 64}) {
    std::vector<PetscInt> color(n, -1);
    PetscInt              nc = -1, expect = std::min<PetscInt>(w == 1 ? 2 : w, 3 * (m - 1) + 1);
    bool                  wavefront = true;
    PetscCallAbort(PETSC_COMM_SELF, ref::Color(n, P.ptr.data(), P.col.data(), w, color.data(), &nc));
    for (PetscInt k = 0; k < m; k++)
      for (PetscInt j = 0; j < m; j++)
        for (PetscInt i = 0; i < m; i++) wavefront = wavefront && color[i + m * (j + m * k)] == (i + j + k) % (w == 1 ? 2 : w);
    CHECK(nc == expect && wavefront, "poisson3d-%d color wave %d: %d colors (expected %d), color %s (i+j+k) mod %d", (int)m, (int)w, (int)nc, (int)expect, wavefront ? "=" : "!=", (int)(w == 1 ? 2 : w));
    printf("poisson3d-%d color wave %d: %d colors, color = (i+j+k) mod %d\n", (int)m, (int)w, (int)nc, (int)(w == 1 ? 2 : w));
  }
  { /* the default wave is 8: the 5-argument Color() and wave 8 give the same colors */
    std::vector<PetscInt> c0(n), c8(n);
    PetscInt              n0, n8;
    PetscCallAbort(PETSC_COMM_SELF, ref::Color(n, P.ptr.data(), P.col.data(), c0.data(), &n0));
    PetscCallAbort(PETSC_COMM_SELF, ref::Color(n, P.ptr.data(), P.col.data(), 8, c8.data(), &n8));
    CHECK(DILU_COLOR_WAVE == 8 && n0 == 8 && n8 == 8 && c0 == c8, "default color wave: %d colors, wave 8: %d colors", (int)n0, (int)n8);
  }
  for (PetscInt w : {0, 65, -1}) { /* refused, color untouched */
    std::vector<PetscInt> color(n, -7);
    PetscInt              nc = -7;
    PetscErrorCode        ierr;
    PetscCallAbort(PETSC_COMM_SELF, PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = ref::Color(n, P.ptr.data(), P.col.data(), w, color.data(), &nc);
    PetscCallAbort(PETSC_COMM_SELF, PetscPopErrorHandler());
    CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE && nc == -7 && color[0] == -7, "color wave %d: error %d (expected %d), outputs touched", (int)w, (int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE);
  }
  printf("color wave: 7-point colors as the wavefront mod w, default 8, 0 / 65 / -1 refused\n");
}

static void TestZeroPivot(void)
{
  Csr      A = Poisson3d(5);
  Analysis a;
  PetscInt bad;
  /* zero the diagonal of row 17 and remove the one of row 40 */
  for (PetscInt k = A.ptr[17]; k < A.ptr[18]; k++)
    if (A.col[k] == 17) A.val[k] = 0.0;
  for (bool mc : {false, true}) {
    Analyze(A, mc, a);
    std::vector<PetscScalar> E(A.n);
    PetscCallAbort(PETSC_COMM_SELF, ref::Factor(A.n, A.ptr.data(), A.col.data(), A.val.data(), mc ? a.rank.data() : NULL, a.diag.data(), a.pair.data(), a.nl, a.lorder.data(), a.llptr.data(), 0.0, E.data(), &bad));
    if (!mc) CHECK(bad == 17, "zero pivot (natural): reported row %d, expected 17", (int)bad);
    else CHECK(bad >= 0 && bad <= 17, "zero pivot (multicolor): reported row %d, expected a row <= 17", (int)bad);
    { /* the host layout reports the same row and the same E */
      ref::Host               *h;
      PetscInt                 badh = -2;
      std::vector<PetscScalar> Eh(A.n);
      PetscCallAbort(PETSC_COMM_SELF, ref::HostCreate(&h));
      PetscCallAbort(PETSC_COMM_SELF, ref::HostAnalyze(h, A.n, A.ptr.data(), A.col.data(), mc ? a.rank.data() : NULL, a.pair.data()));
      PetscCallAbort(PETSC_COMM_SELF, ref::HostFactor(h, A.val.data(), 0.0, Eh.data(), &badh));
      CHECK(badh == bad && !memcmp(Eh.data(), E.data(), A.n * sizeof(PetscScalar)), "zero pivot (%s): host layout reports row %d, Factor() row %d", mc ? "multicolor" : "natural", (int)badh, (int)bad);
      PetscCallAbort(PETSC_COMM_SELF, ref::HostDestroy(&h));
    }
    /* a shift cures it */
    PetscCallAbort(PETSC_COMM_SELF, ref::Factor(A.n, A.ptr.data(), A.col.data(), A.val.data(), mc ? a.rank.data() : NULL, a.diag.data(), a.pair.data(), a.nl, a.lorder.data(), a.llptr.data(), 1.0, E.data(), &bad));
    CHECK(bad == -1, "zero pivot with shift 1: reported row %d", (int)bad);
  }
  printf("zero pivot: reported\n");
}

/* Richardson(): (1) 5x5 hand-checked, one step from a zero guess is M^-1 b and a second step from the exact solution
   changes nothing; (2) its = 1, 2, 5 from a zero and a random guess equal the unfused steps (residual, Apply(), x += y)
   to 1e-13, and HostRichardson() equals Richardson() in every bit */
static void TestRichardson(const char *name, const Csr &A, bool multicolor)
{
  PetscInt                 n = A.n, bad;
  Analysis                 a;
  std::vector<PetscScalar> E(n), b(n), x0(n), z(n), r(n), y(n);
  Analyze(A, multicolor, a);
  const PetscInt *rank = multicolor ? a.rank.data() : NULL;
  PetscCallAbort(PETSC_COMM_SELF, ref::Factor(n, A.ptr.data(), A.col.data(), A.val.data(), rank, a.diag.data(), a.pair.data(), a.nl, a.lorder.data(), a.llptr.data(), 0.0, E.data(), &bad));
  for (auto &v : b) v = Rand() - 0.5;
  for (auto &v : x0) v = Rand() - 0.5;
  ref::Host *h;
  PetscCallAbort(PETSC_COMM_SELF, ref::HostCreate(&h));
  PetscCallAbort(PETSC_COMM_SELF, ref::HostAnalyze(h, n, A.ptr.data(), A.col.data(), rank, a.pair.data()));
  {
    std::vector<PetscScalar> Eh(n);
    PetscCallAbort(PETSC_COMM_SELF, ref::HostFactor(h, A.val.data(), 0.0, Eh.data(), &bad));
  }
  const PetscInt steps[] = {1, 2, 5};
  for (PetscInt its : steps) {
    for (int gz = 0; gz < 2; gz++) {
      std::vector<PetscScalar> x(x0), xu(x0), xh(x0);
      if (gz) std::fill(x.begin(), x.end(), NAN), std::fill(xh.begin(), xh.end(), NAN), std::fill(xu.begin(), xu.end(), 0.0); /* a zero guess never reads x */
      PetscCallAbort(PETSC_COMM_SELF, ref::Richardson(n, A.ptr.data(), A.col.data(), A.val.data(), rank, E.data(), a.nl, a.lorder.data(), a.llptr.data(), a.nu, a.uorder.data(), a.ulptr.data(), b.data(), x.data(), its, (PetscBool)gz, z.data()));
      PetscCallAbort(PETSC_COMM_SELF, ref::HostRichardson(h, A.ptr.data(), A.col.data(), A.val.data(), b.data(), xh.data(), its, (PetscBool)gz));
      for (PetscInt k = 0; k < its; k++) { /* unfused, as PETSc's loop: r = b - A x, y = M^-1 r, x += y */
        for (PetscInt i = 0; i < n; i++) {
          PetscScalar ax = 0;
          for (PetscInt q = A.ptr[i]; q < A.ptr[i + 1]; q++) ax += A.val[q] * xu[A.col[q]];
          r[i] = b[i] - ax;
        }
        PetscCallAbort(PETSC_COMM_SELF, ref::Apply(n, A.ptr.data(), A.col.data(), A.val.data(), rank, E.data(), a.nl, a.lorder.data(), a.llptr.data(), a.nu, a.uorder.data(), a.ulptr.data(), r.data(), y.data()));
        for (PetscInt i = 0; i < n; i++) xu[i] += y[i];
      }
      double e = RelErr(x, xu);
      CHECK(e <= 1e-13, "%s %s Richardson its %d guess %s: fused differs from unfused by %g (relative), expected <= 1e-13", name, multicolor ? "multicolor" : "natural", (int)its, gz ? "zero" : "nonzero", e);
      CHECK(!memcmp(x.data(), xh.data(), n * sizeof(PetscScalar)), "%s %s Richardson its %d guess %s: HostRichardson differs from Richardson() in some bit", name, multicolor ? "multicolor" : "natural", (int)its, gz ? "zero" : "nonzero");
    }
  }
  PetscCallAbort(PETSC_COMM_SELF, ref::HostDestroy(&h));
  printf("%s %s: Richardson equals the unfused steps, host layout bitwise\n", name, multicolor ? "multicolor" : "natural");
}

static void TestRichardsonHand(void)
{
  /* tridiag(-1, 4, -1), 5x5: E = 4, 15/4, 56/15, 209/56, 780/209 (TestHand5x5); b = e_0: M^-1 b by hand */
  std::vector<std::tuple<PetscInt, PetscInt, PetscScalar>> t;
  for (PetscInt i = 0; i < 5; i++) {
    t.push_back({i, i, 4.0});
    if (i) t.push_back({i, i - 1, -1.0}), t.push_back({i - 1, i, -1.0});
  }
  Csr         A = FromTriplets(5, t);
  Analysis    a;
  PetscInt    bad;
  PetscScalar E[5], z[5], b[5] = {1, 0, 0, 0, 0}, x[5] = {NAN, NAN, NAN, NAN, NAN}, xs[5];
  Analyze(A, false, a);
  PetscCallAbort(PETSC_COMM_SELF, ref::Factor(5, A.ptr.data(), A.col.data(), A.val.data(), NULL, a.diag.data(), a.pair.data(), a.nl, a.lorder.data(), a.llptr.data(), 0.0, E, &bad));
  /* forward: z_0 = 1/4, z_i = z_{i-1} / E_i; backward: y_4 = z_4, y_i = z_i + y_{i+1} / E_i. For a tridiagonal matrix DILU
     is exact LU, so one step from zero gives A^-1 e_0 = (209, 56, 15, 4, 1) / 780 */
  const double expect[5] = {209.0 / 780, 56.0 / 780, 15.0 / 780, 4.0 / 780, 1.0 / 780};
  PetscCallAbort(PETSC_COMM_SELF, ref::Richardson(5, A.ptr.data(), A.col.data(), A.val.data(), NULL, E, a.nl, a.lorder.data(), a.llptr.data(), a.nu, a.uorder.data(), a.ulptr.data(), b, x, 1, PETSC_TRUE, z));
  for (int i = 0; i < 5; i++) CHECK(PetscAbsScalar(x[i] - expect[i]) <= 8 * PETSC_MACHINE_EPSILON * expect[0], "5x5 Richardson: x[%d] = %.17g, expected %.17g", i, (double)PetscRealPart(x[i]), expect[i]);
  /* a second step from there: the residual is round-off, x moves by round-off only */
  for (int i = 0; i < 5; i++) xs[i] = x[i];
  PetscCallAbort(PETSC_COMM_SELF, ref::Richardson(5, A.ptr.data(), A.col.data(), A.val.data(), NULL, E, a.nl, a.lorder.data(), a.llptr.data(), a.nu, a.uorder.data(), a.ulptr.data(), b, x, 1, PETSC_FALSE, z));
  for (int i = 0; i < 5; i++) CHECK(PetscAbsScalar(x[i] - xs[i]) <= 8 * PETSC_MACHINE_EPSILON * expect[0], "5x5 Richardson, second step: x[%d] moved from %.17g to %.17g", i, (double)PetscRealPart(xs[i]), (double)PetscRealPart(x[i]));
  printf("5x5 hand-checked Richardson: done\n");
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  TestHand5x5();
  Csr R = RandomMatrix(517, 4), P = Poisson3d(9);
  TestAgainstSequential("random517", R, false);
  TestAgainstSequential("random517", R, true);
  TestAgainstSequential("poisson3d-9", P, false);
  TestAgainstSequential("poisson3d-9", P, true);
  TestAgainstSequential("random517", R, true, 2);
  TestAgainstSequential("random517", R, true, 1);
  TestAgainstSequential("poisson3d-9", P, true, 2);
  TestAgainstSequential("poisson3d-9", P, true, 4);
  TestWave();
  TestZeroPivot();
  TestRichardsonHand();
  TestRichardson("random517", R, false);
  TestRichardson("random517", R, true);
  TestRichardson("poisson3d-9", P, false);
  TestRichardson("poisson3d-9", P, true);
  if (nfail) printf("%d checks FAILED\n", nfail);
  else printf("all checks passed\n");
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
