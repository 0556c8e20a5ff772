static char help[] = "Host (reference) backends of PC dilu and PC aips beside PETSc's own code for the same arithmetic, one core.\n"
                     "  dilu: PCApply (natural, multicolor) vs PETSc ILU(0) MatSolve; numeric PCSetUp vs MatLUFactorNumeric (ILU(0), natural ordering).\n"
                     "  aips: PCApply of order N vs N MatMult + (N+1) tridiagonal solves of P (PGX's host PGXTridiagSolve; LAPACK dgttrs and,\n"
                     "        when P is symmetric positive definite, dpttrs as the anchor).\n"
                     "  Every timing is the median of -reps calls; the timers take turns (one call each per round) so that a busy machine\n"
                     "  slows all of them alike, and each ratio is the median over the rounds of the ratio within a round. Answers: dilu equals the kernel specification (dilu_kernels.h Factor()/Apply()) bitwise;\n"
                     "  aips equals the series computed here with MatMult and LAPACK's dgttrs (1e-10); PGX's tridiagonal solve equals dgttrs.\n"
                     "  -m7 <m>          7-point Laplacian on m^3 (default 100; 0 skips)\n"
                     "  -m27 <m>         27-point stencil on m^3 (default 64; 0 skips)\n"
                     "  -matrices <a,b>  tests/data (or PGX_MATRICES) matrices (default BentPipe2D100,sherman1)\n"
                     "  -negate <a,b>    of those, the ones to use as -A (default sherman1: SPD then)\n"
                     "  -reps <n>        timed calls per timer (default 11)\n"
                     "  -orders <N,...>  aips orders (default 1,2,3,4)\n";
#include <petscksp.h>
#include <petscblaslapack.h>
#include <pgx/private/pgximpl.h>
#include <pgx/gallery.h>
#include <pgx/tridiag.h>
#include "../../src/pc/impls/dilu/dilu_kernels.h"
#include "../../src/pc/impls/aips/aips_kernels.h"
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#if defined(PETSC_USE_COMPLEX)
/* Real scalars only: bench_host (anchors are real LAPACK tridiagonal solvers). Its tests are marked 'real'. */
int main(void)
{
  (void)help; /* the real build's -help text */
  printf("bench_host: needs real scalars\n");
  return 1;
}
#else

#define LAPACKgttrf_ PETSCBLAS(gttrf, GTTRF)
#define LAPACKgttrs_ PETSCBLAS(gttrs, GTTRS)
BLAS_EXTERN void LAPACKgttrf_(const PetscBLASInt *, PetscScalar *, PetscScalar *, PetscScalar *, PetscScalar *, PetscBLASInt *, PetscBLASInt *);
BLAS_EXTERN void LAPACKgttrs_(const char *, const PetscBLASInt *, const PetscBLASInt *, const PetscScalar *, const PetscScalar *, const PetscScalar *, const PetscScalar *, const PetscBLASInt *, PetscScalar *, const PetscBLASInt *, PetscBLASInt *);

namespace ref = pgx::kernels::dilu::reference;

static int nbad = 0;

/* timers that take turns: one call of each per round, medians at the end */
struct Timer {
  std::string                     name;
  std::function<PetscErrorCode()> run;
  std::vector<double>             ms; /* per round */
  double                          median = 0;
};

static PetscErrorCode RunTimers(std::vector<Timer> &timers, PetscInt reps)
{
  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < reps + 1; r++) /* round 0 warms up */
    for (auto &t : timers) {
      PetscLogDouble t0, t1;
      PetscCall(PetscTime(&t0));
      PetscCall(t.run());
      PetscCall(PetscTime(&t1));
      if (r) t.ms.push_back(1e3 * (t1 - t0));
    }
  for (auto &t : timers) {
    std::vector<double> v = t.ms;
    std::sort(v.begin(), v.end());
    t.median = v[v.size() / 2];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* per-round times of sum_k coef_k * timer_k */
static std::vector<double> Rounds(const std::vector<Timer> &timers, const std::vector<std::pair<double, std::string>> &terms)
{
  std::vector<double> r;
  for (auto &term : terms)
    for (auto &t : timers)
      if (t.name == term.second) {
        if (r.empty()) r.assign(t.ms.size(), 0.0);
        for (size_t k = 0; k < t.ms.size(); k++) r[k] += term.first * t.ms[k];
      }
  return r;
}

/* median over the rounds of the ratio of two per-round times: each ratio compares calls made moments apart */
static double RoundRatio(const std::vector<double> &a, const std::vector<double> &b)
{
  std::vector<double> q(a.size());
  for (size_t k = 0; k < a.size(); k++) q[k] = a[k] / b[k];
  std::sort(q.begin(), q.end());
  return q[q.size() / 2];
}

static PetscErrorCode RelDiff(PetscInt n, const PetscScalar *a, const PetscScalar *b, PetscReal *d)
{
  PetscReal num = 0, den = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) num = PetscMax(num, PetscAbsScalar(a[i] - b[i])), den = PetscMax(den, PetscAbsScalar(b[i]));
  *d = (PetscIsInfOrNanReal(num) || den == 0) ? PETSC_MAX_REAL : num / den;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the specification: dilu_kernels.h Factor() and Apply() on A's CSR with their schedules */
static PetscErrorCode SpecDILU(PetscInt n, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, PetscBool mc, const PetscScalar *r, PetscScalar *y)
{
  std::vector<PetscInt>    diag(n), pair(ia[n]), color(n), rank(n), lo(n), lp(n + 1), uo(n), up(n + 1);
  std::vector<PetscScalar> E(n);
  PetscInt                 nc = 0, nl, nu, bad;

  PetscFunctionBeginUser;
  PetscCall(ref::FindDiagonal(n, ia, ja, diag.data()));
  if (mc) {
    PetscCall(ref::Color(n, ia, ja, color.data(), &nc));
    PetscCall(ref::RankFromColors(n, color.data(), nc, rank.data()));
    PetscCall(ref::ColorSchedule(n, color.data(), nc, PETSC_FALSE, lo.data(), lp.data()));
    PetscCall(ref::ColorSchedule(n, color.data(), nc, PETSC_TRUE, uo.data(), up.data()));
    nl = nu = nc;
  } else {
    PetscCall(ref::LevelSets(n, ia, ja, NULL, PETSC_FALSE, lo.data(), lp.data(), &nl));
    PetscCall(ref::LevelSets(n, ia, ja, NULL, PETSC_TRUE, uo.data(), up.data(), &nu));
  }
  const PetscInt *rk = mc ? rank.data() : NULL;
  PetscCall(ref::FindPairs(n, ia, ja, rk, pair.data()));
  PetscCall(ref::Factor(n, ia, ja, a, rk, diag.data(), pair.data(), nl, lo.data(), lp.data(), 0.0, E.data(), &bad));
  PetscCall(ref::Apply(n, ia, ja, a, rk, E.data(), nl, lo.data(), lp.data(), nu, uo.data(), up.data(), r, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreatePC(Mat A, const char *type, PetscInt order, PCDILUOrdering ord, PC *pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCCreate(PETSC_COMM_SELF, pc));
  PetscCall(PCSetType(*pc, type));
  PetscCall(PCSetOperators(*pc, A, A));
  if (!strcmp(type, PCDILU)) PetscCall(PCDILUSetOrdering(*pc, ord));
  else PetscCall(PCAIPSSetOrder(*pc, order));
  PetscCall(PCSetFromOptions(*pc));
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct Row {
  std::string problem, what;
  double      pgx, anchor, target, ratio; /* medians (ms), target, median of the per-round ratios */
};
static std::vector<Row> rows;

static PetscErrorCode Bench(const char *name, Mat A, PetscInt reps, const std::vector<PetscInt> &orders)
{
  PetscInt           n, nr;
  const PetscInt    *ia, *ja;
  const PetscScalar *aa, *ba;
  PetscScalar       *ya;
  PetscBool          done;
  Mat                F, A2;
  IS                 isr, isc;
  MatFactorInfo      info;
  Vec                b, x, y;
  PC                 pcn, pcm, pcn2, pcm2;
  std::vector<PC>    pca(orders.size());
  PetscRandom        rnd;
  PetscLogDouble     t0, t1, t2, t3, t4;
  std::vector<Timer> timers;
  MatInfo            minfo;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &minfo));
  PetscCall(MatCreateVecs(A, &b, &x));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20261123));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(PetscRandomDestroy(&rnd));

  /* PETSc ILU(0), natural ordering (what PCILU does on a MATSEQAIJ) */
  PetscCall(PetscTime(&t0));
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_ILU, &F));
  PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &isr, &isc));
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels = 0;
  info.fill   = 1.0;
  PetscCall(MatILUFactorSymbolic(F, A, isr, isc, &info));
  PetscCall(PetscTime(&t1));
  PetscCall(MatLUFactorNumeric(F, A, &info));
  PetscCall(PetscTime(&t2));
  /* PGX: first setups (analysis + numeric), -pgx_device host */
  PetscCall(CreatePC(A, PCDILU, 0, PC_DILU_ORDERING_NATURAL, &pcn));
  PetscCall(PetscTime(&t3));
  PetscCall(CreatePC(A, PCDILU, 0, PC_DILU_ORDERING_MULTICOLOR, &pcm));
  PetscCall(PetscTime(&t4));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s: n %" PetscInt_FMT ", nnz %.0f\n  first setup (symbolic + numeric, one call): PETSc ILU(0) %.2f + %.2f ms, dilu natural %.2f ms, dilu multicolor %.2f ms\n", name, n, minfo.nz_used, 1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2), 1e3 * (t4 - t3)));
  for (size_t o = 0; o < orders.size(); o++) PetscCall(CreatePC(A, PCAIPS, orders[o], PC_DILU_ORDERING_NATURAL, &pca[o]));
  /* numeric re-setups on a copy, so that the applies' PCs never set up again inside a timed apply */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
  PetscCall(CreatePC(A2, PCDILU, 0, PC_DILU_ORDERING_NATURAL, &pcn2));
  PetscCall(CreatePC(A2, PCDILU, 0, PC_DILU_ORDERING_MULTICOLOR, &pcm2));

  /* P: the tridiagonal part, for PGX's host tridiagonal solver and LAPACK */
  std::vector<PetscScalar> dl(n), d(n), du(n), DL(n), D(n), DU(n), DU2(n), w(n), pd(n), pe(n);
  std::vector<PetscBLASInt> ipiv(n);
  std::vector<PetscInt>     off(n + 1);
  PGXTridiag                T;
  PGXTridiagPivotInfo       piv;
  PetscBLASInt              bn, one = 1, linfo = 0, pinfo = 1;
  PetscBool                 spd = PETSC_TRUE;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  pgx::kernels::aips::reference::extract_tridiagonal(n, ia, ja, aa, dl.data(), d.data(), du.data());
  PetscInt nb = pgx::kernels::aips::reference::block_offsets(n, dl.data(), du.data(), off.data());
  PetscCall(PGXTridiagCreate(PGX_DEVICE_HOST, &T));
  PetscCall(PGXTridiagSetUpSymbolic(T, nb, off.data()));
  PetscCall(PGXTridiagSetUpNumeric(T, dl.data(), d.data(), du.data(), &piv));
  PetscCheck(!piv.failed, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "%s: zero pivot in P at row %" PetscInt_FMT, name, piv.row);
  for (PetscInt i = 0; i < n; i++) {
    D[i] = pd[i] = d[i];
    if (i < n - 1) DL[i] = dl[i + 1], DU[i] = pe[i] = du[i];
    if (i < n - 1 && dl[i + 1] != du[i]) spd = PETSC_FALSE;
  }
  LAPACKgttrf_(&bn, DL.data(), D.data(), DU.data(), DU2.data(), ipiv.data(), &linfo);
  PetscCheck(!linfo, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s: dgttrf info %d", name, (int)linfo);
  if (spd) LAPACKpttrf_(&bn, pd.data(), pe.data(), &pinfo);
  spd = (PetscBool)(spd && !pinfo);

  /* answers */
  {
    std::vector<PetscScalar> ys(n), tmp(n);
    PetscReal                diff;
    PetscCall(VecGetArrayRead(b, &ba));
    for (int mc = 0; mc < 2; mc++) {
      PetscCall(PCApply(mc ? pcm : pcn, b, y));
      PetscCall(SpecDILU(n, ia, ja, aa, (PetscBool)mc, ba, ys.data()));
      PetscCall(VecGetArray(y, &ya));
      const bool same = !memcmp(ya, ys.data(), n * sizeof(PetscScalar));
      PetscCall(VecRestoreArray(y, &ya));
      if (!same) nbad++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  check: dilu %s PCApply %s the specification (Factor()/Apply()) bitwise\n", mc ? "multicolor" : "natural", same ? "equals" : "DIFFERS FROM"));
    }
    PetscCall(MatSolve(F, b, x));
    PetscCall(PCApply(pcn, b, y));
    PetscCall(VecGetArrayRead(x, (const PetscScalar **)&ya));
    {
      const PetscScalar *xa = ya;
      PetscCall(VecGetArray(y, &ya));
      PetscCall(RelDiff(n, ya, xa, &diff));
      PetscCall(VecRestoreArray(y, &ya));
      PetscCall(VecRestoreArrayRead(x, &xa));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  note: dilu natural vs ILU(0) relative difference %.2e (equal in exact arithmetic on 5/7-point stencils only)\n", (double)diff));
    /* tridiagonal solves */
    PetscCall(PGXTridiagSolve(T, 1.0, ba, 0.0, NULL, ys.data()));
    PetscCall(PetscArraycpy(tmp.data(), ba, n));
    LAPACKgttrs_("N", &bn, &one, DL.data(), D.data(), DU.data(), DU2.data(), ipiv.data(), tmp.data(), &bn, &linfo);
    PetscCall(RelDiff(n, ys.data(), tmp.data(), &diff));
    if (!(diff <= 1e-10)) nbad++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  check: PGX tridiagonal solve vs dgttrs %.2e (<= 1e-10 %s)\n", (double)diff, diff <= 1e-10 ? "ok" : "FAILED"));
    /* aips: y0 = P^-1 b, y_{k+1} = y0 - P^-1 (A y_k - P y_k), LAPACK for P^-1 */
    std::vector<PetscScalar> y0(n), yk(n), t(n);
    PetscCall(PetscArraycpy(y0.data(), ba, n));
    LAPACKgttrs_("N", &bn, &one, DL.data(), D.data(), DU.data(), DU2.data(), ipiv.data(), y0.data(), &bn, &linfo);
    PetscInt maxorder = 0;
    for (PetscInt o : orders) maxorder = PetscMax(maxorder, o);
    yk = y0;
    for (PetscInt k = 0; k <= maxorder; k++) {
      for (size_t o = 0; o < orders.size(); o++) {
        if (orders[o] != k) continue;
        PetscCall(PCApply(pca[o], b, y));
        PetscCall(VecGetArray(y, &ya));
        PetscCall(RelDiff(n, ya, yk.data(), &diff));
        PetscCall(VecRestoreArray(y, &ya));
        if (!(diff <= 1e-10)) nbad++;
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  check: aips order %" PetscInt_FMT " vs the series with MatMult and dgttrs %.2e (<= 1e-10 %s)\n", k, (double)diff, diff <= 1e-10 ? "ok" : "FAILED"));
      }
      /* t = A yk - P yk */
      for (PetscInt i = 0; i < n; i++) {
        PetscScalar s = 0;
        for (PetscInt q = ia[i]; q < ia[i + 1]; q++) s += aa[q] * yk[ja[q]];
        t[i] = s;
      }
      pgx::kernels::aips::reference::sub_tridiagonal_product(n, dl.data(), d.data(), du.data(), PETSC_FALSE, yk.data(), t.data());
      LAPACKgttrs_("N", &bn, &one, DL.data(), D.data(), DU.data(), DU2.data(), ipiv.data(), t.data(), &bn, &linfo);
      for (PetscInt i = 0; i < n; i++) yk[i] = y0[i] - t[i];
    }
    PetscCall(VecRestoreArrayRead(b, &ba));
  }
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));

  /* timers */
  PetscCall(VecGetArrayRead(b, &ba));
  timers.push_back({"ilu numeric", [&]() { return MatLUFactorNumeric(F, A, &info); }, {}});
  timers.push_back({"ilu solve", [&]() { return MatSolve(F, b, x); }, {}});
  timers.push_back({"dilu natural setup", [&]() {
                      PetscCall(PetscObjectStateIncrease((PetscObject)A2));
                      return PCSetUp(pcn2);
                    }, {}});
  timers.push_back({"dilu natural apply", [&]() { return PCApply(pcn, b, y); }, {}});
  timers.push_back({"dilu multicolor setup", [&]() {
                      PetscCall(PetscObjectStateIncrease((PetscObject)A2));
                      return PCSetUp(pcm2);
                    }, {}});
  timers.push_back({"dilu multicolor apply", [&]() { return PCApply(pcm, b, y); }, {}});
  timers.push_back({"matmult", [&]() { return MatMult(A, b, y); }, {}});
  timers.push_back({"tridiag pgx", [&]() { return PGXTridiagSolve(T, 1.0, ba, 0.0, NULL, w.data()); }, {}});
  timers.push_back({"tridiag dgttrs", [&]() {
                      PetscCall(PetscArraycpy(w.data(), ba, n));
                      LAPACKgttrs_("N", &bn, &one, DL.data(), D.data(), DU.data(), DU2.data(), ipiv.data(), w.data(), &bn, &linfo);
                      return PETSC_SUCCESS;
                    }, {}});
  if (spd)
    timers.push_back({"tridiag dpttrs", [&]() {
                        PetscCall(PetscArraycpy(w.data(), ba, n));
                        LAPACKpttrs_(&bn, &one, pd.data(), pe.data(), w.data(), &bn, &linfo);
                        return PETSC_SUCCESS;
                      }, {}});
  for (size_t o = 0; o < orders.size(); o++) timers.push_back({"aips order " + std::to_string(orders[o]), [&, o]() { return PCApply(pca[o], b, y); }, {}});
  PetscCall(RunTimers(timers, reps));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  medians of %" PetscInt_FMT " (ms):", reps));
  for (auto &t : timers) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %s %.3f;", t.name.c_str(), t.median));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));

  typedef std::vector<std::pair<double, std::string>> Terms;
  auto add = [&](const std::string &what, const Terms &pgx, const Terms &anchor, double target) {
    std::vector<double> a = Rounds(timers, pgx), b = Rounds(timers, anchor);
    std::vector<double> sa = a, sb = b;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    rows.push_back({name, what, sa[sa.size() / 2], sb[sb.size() / 2], target, RoundRatio(a, b)});
  };
  const std::string tra = spd ? "tridiag dpttrs" : "tridiag dgttrs";
  add("dilu natural apply / ILU(0) MatSolve", {{1, "dilu natural apply"}}, {{1, "ilu solve"}}, 1.25);
  add("dilu multicolor apply / ILU(0) MatSolve", {{1, "dilu multicolor apply"}}, {{1, "ilu solve"}}, 1.5);
  add("dilu natural setup / MatLUFactorNumeric", {{1, "dilu natural setup"}}, {{1, "ilu numeric"}}, 2.0);
  add("dilu multicolor setup / MatLUFactorNumeric", {{1, "dilu multicolor setup"}}, {{1, "ilu numeric"}}, 2.0);
  for (size_t o = 0; o < orders.size(); o++) {
    const PetscInt    N = orders[o];
    const std::string a = "aips order " + std::to_string(N);
    add("aips " + std::to_string(N) + " / (N MatMult + (N+1) PGX tridiag)", {{1, a}}, {{(double)N, "matmult"}, {(double)(N + 1), "tridiag pgx"}}, 1.5);
    add("aips " + std::to_string(N) + " / (N MatMult + (N+1) LAPACK " + (spd ? "pttrs" : "gttrs") + ")", {{1, a}}, {{(double)N, "matmult"}, {(double)(N + 1), tra}}, 1.5);
  }
  add("(info) PGX tridiag / LAPACK tridiag", {{1, "tridiag pgx"}}, {{1, tra}}, 0);

  PetscCall(PGXTridiagDestroy(&T));
  PetscCall(PCDestroy(&pcn));
  PetscCall(PCDestroy(&pcm));
  PetscCall(PCDestroy(&pcn2));
  PetscCall(PCDestroy(&pcm2));
  for (auto &pc : pca) PetscCall(PCDestroy(&pc));
  PetscCall(ISDestroy(&isr));
  PetscCall(ISDestroy(&isc));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&A2));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  m7 = 100, m27 = 64, reps = 11, ord[16], nord = 16;
  char      mats[1024] = "BentPipe2D100,sherman1", neg[1024] = "sherman1";
  PetscBool flg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m7", &m7, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m27", &m27, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrices", mats, sizeof(mats), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-negate", neg, sizeof(neg), NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-orders", ord, &nord, &flg));
  std::vector<PetscInt> orders = {1, 2, 3, 4};
  if (flg) orders.assign(ord, ord + nord);
  PetscCheck(reps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be >= 1", reps);
  PetscCall(PetscOptionsSetValue(NULL, "-pgx_device", "host"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench/host: PGX host backends vs PETSc %d.%d.%d, one process, %" PetscInt_FMT " timed calls per timer (medians)\n", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, reps));

  std::vector<std::pair<std::string, Mat>> probs;
  if (m7 > 0) {
    Mat A;
    PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, "poisson3d", m7, &A));
    probs.push_back({"poisson3d-" + std::to_string(m7), A});
  }
  if (m27 > 0) {
    Mat A;
    PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, "poisson3d27", m27, &A));
    probs.push_back({"poisson3d27-" + std::to_string(m27), A});
  }
  for (char *tok = strtok(mats, ","); tok; tok = strtok(NULL, ",")) {
    char path[PETSC_MAX_PATH_LEN];
    Mat  A;
    if (!*tok) continue;
    PetscCall(PGXMatrixPath(tok, path, sizeof(path)));
    PetscCall(PGXMatLoadMatrixMarket(PETSC_COMM_SELF, path, &A));
    std::string label = tok;
    if (strstr(neg, tok)) {
      PetscCall(MatScale(A, -1.0));
      label = "-" + label;
    }
    probs.push_back({label, A});
  }
  for (auto &p : probs) {
    PetscCall(Bench(p.first.c_str(), p.second, reps, orders));
    PetscCall(MatDestroy(&p.second));
  }

  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nratio: the median over the rounds of PGX's time / the anchor's time in the same round (ms columns: medians)\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %-50s %10s %10s %7s %7s %s\n", "problem", "PGX host / anchor", "PGX ms", "anchor ms", "ratio", "target", "met"));
  int nmet = 0, nnot = 0;
  for (auto &r : rows) {
    const double ratio = r.ratio;
    const char  *met   = r.target <= 0 ? "" : (ratio <= r.target ? "met" : "NOT MET");
    if (r.target > 0) (ratio <= r.target ? nmet : nnot)++;
    if (r.target > 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %-50s %10.3f %10.3f %7.2f %7.2f %s\n", r.problem.c_str(), r.what.c_str(), r.pgx, r.anchor, ratio, r.target, met));
    else PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %-50s %10.3f %10.3f %7.2f %7s\n", r.problem.c_str(), r.what.c_str(), r.pgx, r.anchor, ratio, "-"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\ntargets met: %d, not met: %d\n", nmet, nnot));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, nbad ? "%d answers WRONG\n" : "all answers verified\n", nbad));
  PetscCall(PetscFinalize());
  return nbad ? 1 : 0;
}
#endif /* !PETSC_USE_COMPLEX */
