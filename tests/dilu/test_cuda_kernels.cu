static char help[] = "PCDILU cuda kernels against the host reference kernels (needs a GPU).\n"
                     "Random nonsymmetric n = 3001 and 7-point 23^3 (not powers of two, larger than a warp), both schedules:\n"
                     "colors, E, apply (poisoned outputs, repeated: same bits, in place; natural: SpSV and per-level sweeps), re-setup from device values,\n"
                     "zero-pivot row, transpose data with shared E; color waves 1, 2, 4, 64: GPU colors == reference colors;\n"
                     "Richardson (fused multicolor and natural per-level, unfused natural SpSV) against the reference. Tolerance: 1e-12 relative (about 4500 eps).\n";
#include <pgx/private/pgxcuda.h>
#include <vector>
#include <tuple>
#include <cmath>
#include <algorithm>
#include "../../src/pc/impls/dilu/dilu_kernels.h"
#define PGX_TEST_PLAIN_CHECK
#include "../common/pgxtest.h"
#define PGX_TEST_SEED 77
#include "dilu_csr.h"

namespace K   = pgx::kernels::dilu;
namespace ref = pgx::kernels::dilu::reference;

static int nfail = 0;

static const double TOL = 1e-12;

static Csr RandomMatrix(PetscInt n)
{
  std::vector<std::tuple<PetscInt, PetscInt, PetscScalar>> t;
  for (PetscInt i = 0; i < n; i++) {
    for (int q = 0; q < 5; q++) {
      PetscInt j = (PetscInt)(Rand() * n);
      if (j == i) continue;
      t.push_back({i, j, Rand() - 0.7});
      if (Rand() < 0.6) t.push_back({j, i, Rand() - 0.7});
    }
    t.push_back({i, i, 0.0});
  }
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
        t.push_back({r, r, 6.0 + 0.01 * Rand()});
        if (i > 0) t.push_back({r, r - 1, -1.0 - 0.1 * Rand()});
        if (i < m - 1) t.push_back({r, r + 1, -1.0});
        if (j > 0) t.push_back({r, r - m, -1.0});
        if (j < m - 1) t.push_back({r, r + m, -1.0 + 0.1 * Rand()});
        if (k > 0) t.push_back({r, r - m * m, -1.0});
        if (k < m - 1) t.push_back({r, r + m * m, -1.0});
      }
  return FromTriplets(m * m * m, t);
}

static double RelErr(const std::vector<PetscScalar> &a, const std::vector<PetscScalar> &b)
{
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); i++) {
    double d = std::fabs(a[i] - b[i]);
    if (!std::isfinite(d)) return INFINITY;
    num = std::max(num, d), den = std::max(den, std::fabs(b[i]));
  }
  return den > 0 ? num / den : num;
}

/* host reference of everything for one schedule (colors given for multicolor) */
struct Ref {
  std::vector<PetscInt>    diag, pair, rank, lorder, llptr, uorder, ulptr;
  PetscInt                 nl = 0, nu = 0;
  std::vector<PetscScalar> E;
  PetscInt                 bad = -1;
};

static PetscErrorCode RefSetup(const Csr &A, const std::vector<PetscInt> *color, PetscInt ncolors, Ref &r)
{
  PetscInt n = A.n;

  PetscFunctionBeginUser;
  r.diag.resize(n), r.pair.resize(A.col.size()), r.lorder.resize(n), r.llptr.resize(n + 1), r.uorder.resize(n), r.ulptr.resize(n + 1), r.E.assign(n, 0);
  PetscCall(ref::FindDiagonal(n, A.ptr.data(), A.col.data(), r.diag.data()));
  if (color) {
    r.rank.resize(n);
    PetscCall(ref::RankFromColors(n, color->data(), ncolors, r.rank.data()));
    PetscCall(ref::ColorSchedule(n, color->data(), ncolors, PETSC_FALSE, r.lorder.data(), r.llptr.data()));
    PetscCall(ref::ColorSchedule(n, color->data(), ncolors, PETSC_TRUE, r.uorder.data(), r.ulptr.data()));
    r.nl = r.nu = ncolors;
  } else {
    PetscCall(ref::LevelSets(n, A.ptr.data(), A.col.data(), NULL, PETSC_FALSE, r.lorder.data(), r.llptr.data(), &r.nl));
    PetscCall(ref::LevelSets(n, A.ptr.data(), A.col.data(), NULL, PETSC_TRUE, r.uorder.data(), r.ulptr.data(), &r.nu));
  }
  PetscCall(ref::FindPairs(n, A.ptr.data(), A.col.data(), color ? r.rank.data() : NULL, r.pair.data()));
  PetscCall(ref::Factor(n, A.ptr.data(), A.col.data(), A.val.data(), color ? r.rank.data() : NULL, r.diag.data(), r.pair.data(), r.nl, r.lorder.data(), r.llptr.data(), 0.0, r.E.data(), &r.bad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RefApply(const Csr &A, const Ref &r, const std::vector<PetscScalar> &x, std::vector<PetscScalar> &y, const std::vector<PetscScalar> *E = nullptr)
{
  PetscFunctionBeginUser;
  y.assign(A.n, 0);
  PetscCall(ref::Apply(A.n, A.ptr.data(), A.col.data(), A.val.data(), r.rank.empty() ? NULL : r.rank.data(), E ? E->data() : r.E.data(), r.nl, r.lorder.data(), r.llptr.data(), r.nu, r.uorder.data(), r.ulptr.data(), x.data(), y.data()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CudaApply(K::cuda::Data *d, PetscInt n, const std::vector<PetscScalar> &x, std::vector<PetscScalar> &y, bool inplace)
{
  PetscScalar *dx = NULL, *dy = NULL;

  PetscFunctionBeginUser;
  PetscCall(PGXDeviceMallocArray(n, &dx));
  PetscCall(PGXDeviceMallocArray(n, &dy));
  PetscCall(PGXDeviceCopyArrayToDevice(dx, x.data(), n));
  PetscCall(PGXDeviceMemset(dy, 0xff, n * sizeof(PetscScalar))); /* NaN poison */
  PetscCall(K::cuda::Apply(d, dx, inplace ? dx : dy));
  y.assign(n, -1.0);
  PetscCall(PGXDeviceCopyArrayToHost(y.data(), inplace ? dx : dy, n));
  PetscCall(PGXDeviceFree(&dx));
  PetscCall(PGXDeviceFree(&dy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestOne(const char *name, Csr A, bool mc)
{
  PetscInt                 n = A.n, nl, nu, bad, nc = 0;
  K::cuda::Data           *d = NULL;
  std::vector<PetscInt>    color(n, -7);
  std::vector<PetscScalar> x(n), y, yr, Ed(n, NAN);
  Ref                      r;
  const char              *sched = mc ? "multicolor" : "natural";

  PetscFunctionBeginUser;
  for (auto &v : x) v = Rand() - 0.5;
  PetscCall(K::cuda::Create(&d));
  PetscCall(K::cuda::Analyze(d, n, A.ptr.data(), A.col.data(), mc ? PETSC_TRUE : PETSC_FALSE, NULL, 0, &nl, &nu));
  if (mc) {
    std::vector<PetscInt> rc(n);
    PetscInt              rnc;
    PetscCall(K::cuda::GetColors(d, color.data(), &nc));
    PetscCall(ref::Color(n, A.ptr.data(), A.col.data(), rc.data(), &rnc));
    CHECK(nc == rnc && color == rc, "%s: GPU coloring (%d colors) differs from the reference coloring (%d colors)", name, (int)nc, (int)rnc);
    CHECK(nl == nc && nu == nc, "%s: %d/%d levels reported for %d colors", name, (int)nl, (int)nu, (int)nc);
    PetscCall(RefSetup(A, &color, nc, r));
  } else {
    PetscCall(RefSetup(A, NULL, 0, r));
    CHECK(nl == r.nl && nu == r.nu, "%s natural: %d/%d levels, reference %d/%d", name, (int)nl, (int)nu, (int)r.nl, (int)r.nu);
  }
  PetscCall(K::cuda::Factor(d, A.val.data(), 0.0, PETSC_FALSE, &bad));
  PetscCall(K::cuda::GetE(d, Ed.data()));
  CHECK(bad == r.bad, "%s %s: bad row %d, reference %d", name, sched, (int)bad, (int)r.bad);
  CHECK(RelErr(Ed, r.E) <= TOL, "%s %s: E differs from the reference by %g", name, sched, RelErr(Ed, r.E));
  PetscCall(RefApply(A, r, x, yr));
  std::vector<PetscScalar> first;
  for (int rep = 0; rep < 3; rep++) { /* repeated applies (graph replays, SpSV) give the same bits */
    PetscCall(CudaApply(d, n, x, y, false));
    CHECK(RelErr(y, yr) <= TOL, "%s %s apply %d: differs from the reference by %g", name, sched, rep, RelErr(y, yr));
    if (rep == 0) first = y;
    else CHECK(y == first, "%s %s apply %d: not the same bits as the first apply", name, sched, rep);
  }
  PetscCall(CudaApply(d, n, x, y, true));
  CHECK(RelErr(y, yr) <= TOL, "%s %s in-place apply: differs from the reference by %g", name, sched, RelErr(y, yr));
  if (mc) { /* in place, the pair differs from the apply graph's: gathered into the color order (default) or staged, the same bits */
    std::vector<PetscScalar> staged;
    PetscCall(K::cuda::SetPermutedApply(d, PETSC_FALSE));
    PetscCall(CudaApply(d, n, x, staged, true));
    PetscCall(K::cuda::SetPermutedApply(d, PETSC_TRUE));
    PetscCall(CudaApply(d, n, x, y, true));
    CHECK(y == staged && y == first, "%s multicolor, other arrays: the gathered and the staged applies differ, or differ from the first apply's bits", name);
    /* programmatic dependent launches between the colors: the same bits, on the graph's arrays and on others */
    PetscCall(K::cuda::SetPDL(d, PETSC_TRUE));
    PetscCall(CudaApply(d, n, x, y, false));
    CHECK(y == first, "%s multicolor, programmatic dependent launches: not the same bits as the first apply", name);
    PetscCall(CudaApply(d, n, x, y, true));
    CHECK(y == first, "%s multicolor, programmatic dependent launches in place: not the same bits as the first apply", name);
    PetscCall(K::cuda::SetGraph(d, PETSC_FALSE)); /* the same launches directly (KLevelPre's loads before the wait) */
    PetscCall(CudaApply(d, n, x, y, false));
    CHECK(y == first, "%s multicolor, programmatic dependent launches, direct: not the same bits as the first apply", name);
    PetscCall(CudaApply(d, n, x, y, true));
    CHECK(y == first, "%s multicolor, programmatic dependent launches, direct, in place: not the same bits as the first apply", name);
    PetscCall(K::cuda::SetGraph(d, PETSC_TRUE));
    PetscCall(K::cuda::SetPDL(d, PETSC_FALSE));
  }
  if (mc) { /* direct launches instead of the CUDA graph */
    PetscCall(K::cuda::SetGraph(d, PETSC_FALSE));
    PetscCall(CudaApply(d, n, x, y, false));
    CHECK(y == first, "%s multicolor, direct launches: not the same bits as the graph replay", name);
    PetscCall(K::cuda::SetGraph(d, PETSC_TRUE));
    /* the single-block apply (both sweeps in one kernel) and the per-color launches give the same bits */
    PetscBool single;
    PetscCall(K::cuda::SetSingleBlockRows(d, 0));
    PetscCall(K::cuda::GetSingleBlock(d, &single));
    CHECK(!single, "%s multicolor: single-block apply with a row limit of 0", name);
    PetscCall(CudaApply(d, n, x, y, false));
    CHECK(y == first, "%s multicolor, per-color launches: not the same bits as the first apply", name);
    PetscCall(K::cuda::SetSingleBlockRows(d, n));
    PetscCall(K::cuda::GetSingleBlock(d, &single));
    CHECK(single, "%s multicolor: no single-block apply with a row limit of n", name);
    PetscCall(CudaApply(d, n, x, y, false));
    CHECK(y == first, "%s multicolor, single-block apply: not the same bits as the first apply", name);
    PetscCall(CudaApply(d, n, x, y, true));
    CHECK(RelErr(y, yr) <= TOL, "%s multicolor, single-block apply in place: differs from the reference by %g", name, RelErr(y, yr));
    PetscCall(K::cuda::SetSingleBlockRows(d, 0));
  }
  if (!mc) { /* one launch per level instead of cuSPARSE SpSV; E by direct launches instead of the graph */
    PetscInt sw;
    PetscCall(K::cuda::GetNaturalSweeps(d, &sw));
    CHECK(sw == K::cuda::NATURAL_SPSV, "%s natural: the apply does not run cuSPARSE SpSV (sweeps %d)", name, (int)sw);
    PetscCall(K::cuda::SetNaturalSweeps(d, K::cuda::NATURAL_LEVELS));
    PetscCall(CudaApply(d, n, x, y, true));
    CHECK(RelErr(y, yr) <= TOL, "%s natural, one launch per level, in place: differs from the reference by %g", name, RelErr(y, yr));
    PetscCall(K::cuda::SetGraph(d, PETSC_FALSE));
    PetscCall(CudaApply(d, n, x, y, false));
    CHECK(RelErr(y, yr) <= TOL, "%s natural, one launch per level: differs from the reference by %g", name, RelErr(y, yr));
    PetscCall(K::cuda::Factor(d, A.val.data(), 0.0, PETSC_FALSE, &bad));
    PetscCall(K::cuda::GetE(d, Ed.data()));
    CHECK(RelErr(Ed, r.E) <= TOL, "%s natural, direct launches: E differs from the reference by %g", name, RelErr(Ed, r.E));
    PetscCall(K::cuda::SetGraph(d, PETSC_TRUE));
    PetscCall(K::cuda::SetNaturalSweeps(d, K::cuda::NATURAL_SPSV));
    PetscCall(K::cuda::Factor(d, A.val.data(), 0.0, PETSC_FALSE, &bad));
    PetscCall(CudaApply(d, n, x, y, false));
    CHECK(RelErr(y, yr) <= TOL, "%s natural, SpSV after a second factorization: differs from the reference by %g", name, RelErr(y, yr));
  }

  /* re-setup from device values (scaled and shifted), no new analysis */
  {
    Csr          B = A;
    PetscScalar *dv = NULL;
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = B.ptr[i]; k < B.ptr[i + 1]; k++) B.val[k] = 2.0 * B.val[k] + (B.col[k] == i ? 1.0 : 0.0);
    Ref rb;
    PetscCall(RefSetup(B, mc ? &color : NULL, nc, rb));
    PetscCall(PGXDeviceMallocArray(B.val.size(), &dv));
    PetscCall(PGXDeviceCopyArrayToDevice(dv, B.val.data(), B.val.size()));
    PetscCall(K::cuda::FactorDevice(d, dv, 0.0, &bad));
    PetscCall(PGXDeviceFree(&dv));
    PetscCall(RefApply(B, rb, x, yr));
    PetscCall(CudaApply(d, n, x, y, false));
    CHECK(bad == -1 && RelErr(y, yr) <= TOL, "%s %s re-setup: bad %d, differs from the reference by %g", name, sched, (int)bad, RelErr(y, yr));
  }

  /* transpose: A^T's data with A's colors, values, E shared */
  {
    Csr                   T;
    std::vector<PetscInt> perm(A.col.size());
    K::cuda::Data        *dt = NULL;
    T.n = n, T.ptr.resize(n + 1), T.col.resize(A.col.size()), T.val.resize(A.col.size());
    PetscCall(ref::Transpose(n, A.ptr.data(), A.col.data(), T.ptr.data(), T.col.data(), perm.data()));
    for (size_t k = 0; k < perm.size(); k++) T.val[k] = A.val[perm[k]];
    PetscCall(K::cuda::Factor(d, A.val.data(), 0.0, PETSC_FALSE, &bad)); /* back to A's values */
    PetscCall(K::cuda::Create(&dt));
    PetscCall(K::cuda::Analyze(dt, n, T.ptr.data(), T.col.data(), mc ? PETSC_TRUE : PETSC_FALSE, mc ? color.data() : NULL, nc, &nl, &nu));
    PetscCall(K::cuda::Factor(dt, T.val.data(), 0.0, PETSC_TRUE, &bad));
    PetscCall(K::cuda::ShareE(dt, d));
    Ref rt;
    PetscCall(RefSetup(T, mc ? &color : NULL, nc, rt));
    PetscCall(RefApply(T, rt, x, yr, &r.E));
    PetscCall(CudaApply(dt, n, x, y, false));
    CHECK(RelErr(y, yr) <= TOL, "%s %s transpose: differs from the reference by %g", name, sched, RelErr(y, yr));
    PetscCall(K::cuda::Destroy(&dt));
  }
  PetscCall(K::cuda::Destroy(&d));
  printf("%s %s: checked (%d %s)\n", name, sched, (int)(mc ? nc : r.nl), mc ? "colors" : "levels");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The color wave (SetColorWave): the GPU coloring equals reference::Color with the same wave (1, 2, 4, 64), the 7-point
   stencil gets min(w, wavefront levels) colors (w = 1: 2), and E and the apply with those colors match the reference;
   waves 0 and 65 are refused */
static PetscErrorCode TestWaves(const char *name, const Csr &A, PetscInt stencil_m)
{
  PetscInt                 n = A.n;
  std::vector<PetscScalar> x(n), y, yr, Ed(n, NAN);

  PetscFunctionBeginUser;
  for (auto &v : x) v = Rand() - 0.5;
  for (PetscInt w : {1, 2, 4, 64}) {
    K::cuda::Data        *d = NULL;
    std::vector<PetscInt> color(n, -7), rc(n);
    PetscInt              nc = -1, rnc = -1, nl, nu, bad;
    Ref                   r;
    PetscCall(ref::Color(n, A.ptr.data(), A.col.data(), w, rc.data(), &rnc));
    /* the coloring by a launch per round (mode 1), from the pattern in device memory (2) and in one sync-free launch (0)
       give the same colors as the default (3: rounds in one cooperative launch, host pattern), checked last and used below */
    for (int mode : {1, 2, 0, 3}) {
      PetscInt                       nnz = -1, cnt = -5;
      pgx::cuda::DeviceArray<PetscInt> dptr, dcol;
      if (d) PetscCall(K::cuda::Destroy(&d));
      std::fill(color.begin(), color.end(), -7);
      PetscCall(K::cuda::Create(&d));
      PetscCall(K::cuda::SetColorWave(d, w));
      PetscCall(K::cuda::SetColorRounds(d, mode == 0 ? PETSC_FALSE : PETSC_TRUE));
      PetscCall(K::cuda::SetColorCoop(d, mode == 1 ? PETSC_FALSE : PETSC_TRUE));
      if (mode == 2) {
        PetscCall(dptr.upload(A.ptr.data(), n + 1));
        PetscCall(dcol.upload(A.col.data(), A.ptr[n]));
        PetscCall(K::cuda::AnalyzeDevice(d, n, dptr.data(), dcol.data(), PETSC_TRUE, &nnz, &nl, &nu));
        CHECK(nnz == A.ptr[n], "%s color wave %d: AnalyzeDevice read %d entries, expected %d", name, (int)w, (int)nnz, (int)A.ptr[n]);
      } else PetscCall(K::cuda::Analyze(d, n, A.ptr.data(), A.col.data(), PETSC_TRUE, NULL, 0, &nl, &nu));
      PetscCall(K::cuda::GetColors(d, NULL, &cnt));
      PetscCall(K::cuda::GetColors(d, color.data(), &nc));
      CHECK(cnt == nc, "%s color wave %d: GetColors without an array counted %d colors, with one %d", name, (int)w, (int)cnt, (int)nc);
      CHECK(nc == rnc && color == rc && nl == nc && nu == nc, "%s color wave %d (%s): GPU coloring (%d colors, %d/%d levels) differs from the reference coloring (%d colors)", name, (int)w, mode == 1 ? "a launch per round" : (mode == 2 ? "device pattern" : (mode == 3 ? "cooperative rounds" : "sync-free")), (int)nc, (int)nl, (int)nu, (int)rnc);
      {
        PetscInt path = -5, rounds = -5;
        PetscCall(K::cuda::GetColorPath(d, &path, &rounds));
        CHECK(path == (mode == 0 ? 0 : (mode == 1 ? 1 : 2)), "%s color wave %d: mode %d colored by path %d", name, (int)w, mode, (int)path);
        if (stencil_m && path == 2) CHECK(rounds == 3 * (stencil_m - 1) + 1, "%s color wave %d: %d cooperative rounds, expected %d (the longest chain of earlier neighbors)", name, (int)w, (int)rounds, (int)(3 * (stencil_m - 1) + 1));
      }
    }
    if (stencil_m) {
      PetscInt expect = std::min<PetscInt>(w == 1 ? 2 : w, 3 * (stencil_m - 1) + 1);
      CHECK(nc == expect, "%s color wave %d: %d colors, expected %d", name, (int)w, (int)nc, (int)expect);
    }
    PetscCall(RefSetup(A, &color, nc, r));
    PetscCall(K::cuda::Factor(d, A.val.data(), 0.0, PETSC_FALSE, &bad));
    PetscCall(K::cuda::GetE(d, Ed.data()));
    CHECK(bad == r.bad && RelErr(Ed, r.E) <= TOL, "%s color wave %d: bad row %d (reference %d), E differs from the reference by %g", name, (int)w, (int)bad, (int)r.bad, RelErr(Ed, r.E));
    PetscCall(RefApply(A, r, x, yr));
    PetscCall(CudaApply(d, n, x, y, false));
    CHECK(RelErr(y, yr) <= TOL, "%s color wave %d: apply differs from the reference by %g", name, (int)w, RelErr(y, yr));
    PetscCall(K::cuda::Destroy(&d));
    printf("%s color wave %d: %d colors, GPU coloring, E and apply equal the reference\n", name, (int)w, (int)nc);
  }
  {
    K::cuda::Data *d = NULL;
    PetscCall(K::cuda::Create(&d));
    for (PetscInt w : {0, 65}) {
      PetscErrorCode ierr;
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = K::cuda::SetColorWave(d, w);
      PetscCall(PetscPopErrorHandler());
      CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "%s: SetColorWave(%d) gave error %d, expected %d", name, (int)w, (int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE);
    }
    PetscCall(K::cuda::Destroy(&d));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestZeroPivot(void)
{
  Csr A = Poisson3d(9);
  PetscFunctionBeginUser;
  for (PetscInt k = A.ptr[100]; k < A.ptr[101]; k++)
    if (A.col[k] == 100) A.val[k] = 0.0;
  for (int mc = 0; mc < 2; mc++) {
    K::cuda::Data        *d = NULL;
    PetscInt              bad, nl, nu, nc = 0;
    std::vector<PetscInt> color(A.n);
    Ref                   r;
    PetscScalar          *dy = NULL;
    std::vector<PetscScalar> h(A.n);
    PetscCall(K::cuda::Create(&d));
    PetscCall(K::cuda::Analyze(d, A.n, A.ptr.data(), A.col.data(), mc ? PETSC_TRUE : PETSC_FALSE, NULL, 0, &nl, &nu));
    if (mc) PetscCall(K::cuda::GetColors(d, color.data(), &nc));
    PetscCall(RefSetup(A, mc ? &color : NULL, nc, r));
    PetscCall(K::cuda::Factor(d, A.val.data(), 0.0, PETSC_FALSE, &bad));
    CHECK(bad == 100 && r.bad == 100, "zero diagonal in row 100 (%s): cuda reports %d, reference %d", mc ? "multicolor" : "natural", (int)bad, (int)r.bad);
    PetscCall(K::cuda::Factor(d, A.val.data(), 1.0, PETSC_FALSE, &bad));
    CHECK(bad == -1, "shift 1 should cure the zero diagonal, cuda reports row %d", (int)bad);
    PetscCall(PGXDeviceMallocArray(A.n, &dy));
    PetscCall(K::cuda::FillInf(A.n, dy));
    PetscCall(PGXDeviceCopyArrayToHost(h.data(), dy, A.n));
    CHECK(std::isinf(h[0]) && std::isinf(h[A.n - 1]), "FillInf did not write Inf");
    PetscCall(PGXDeviceFree(&dy));
    PetscCall(K::cuda::Destroy(&d));
  }
  printf("zero pivot: checked\n");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Richardson(): cuda against the reference Richardson() for its 1 and 3 from a zero and a nonzero guess, x0 another
   array (poisoned x) and x0 == x; repeated (graph replays) the same bits; multicolor: direct launches, programmatic
   dependent launches and the single-block kernel the same bits; natural: SpSV and per-level sweeps to TOL */
static PetscErrorCode CudaRichardson(K::cuda::Data *d, PetscInt n, const std::vector<PetscScalar> &b, const std::vector<PetscScalar> &x0, PetscInt its, PetscBool gz, bool inplace, std::vector<PetscScalar> &x)
{
  PetscScalar *db = NULL, *dx0 = NULL, *dx = NULL;

  PetscFunctionBeginUser;
  PetscCall(PGXDeviceMallocArray(n, &db));
  PetscCall(PGXDeviceMallocArray(n, &dx0));
  PetscCall(PGXDeviceMallocArray(n, &dx));
  PetscCall(PGXDeviceCopyArrayToDevice(db, b.data(), n));
  PetscCall(PGXDeviceCopyArrayToDevice(dx0, x0.data(), n));
  PetscCall(PGXDeviceMemset(dx, 0xff, n * sizeof(PetscScalar))); /* NaN poison: a zero guess never reads x */
  if (inplace && !gz) PetscCall(PGXDeviceCopyArrayToDevice(dx, x0.data(), n));
  PetscCall(K::cuda::Richardson(d, db, inplace ? dx : dx0, dx, its, gz));
  x.assign(n, -1.0);
  PetscCall(PGXDeviceCopyArrayToHost(x.data(), dx, n));
  PetscCall(PGXDeviceFree(&db));
  PetscCall(PGXDeviceFree(&dx0));
  PetscCall(PGXDeviceFree(&dx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestRichardson(const char *name, const Csr &A, bool mc)
{
  PetscInt                 n = A.n, bad, nc = 0;
  K::cuda::Data           *d = NULL;
  std::vector<PetscInt>    color(n);
  std::vector<PetscScalar> b(n), x0(n), z(n), xr, x, first;
  Ref                      r;
  const char              *sched = mc ? "multicolor" : "natural";

  PetscFunctionBeginUser;
  for (auto &v : b) v = Rand() - 0.5;
  for (auto &v : x0) v = Rand() - 0.5;
  PetscCall(K::cuda::Create(&d));
  PetscCall(K::cuda::Analyze(d, n, A.ptr.data(), A.col.data(), mc ? PETSC_TRUE : PETSC_FALSE, NULL, 0, NULL, NULL));
  if (mc) PetscCall(K::cuda::GetColors(d, color.data(), &nc));
  PetscCall(RefSetup(A, mc ? &color : NULL, nc, r));
  PetscCall(K::cuda::Factor(d, A.val.data(), 0.0, PETSC_FALSE, &bad));
  const PetscInt steps[] = {1, 3};
  for (PetscInt its : steps) {
    for (int gz = 0; gz < 2; gz++) {
      xr = x0;
      PetscCall(ref::Richardson(n, A.ptr.data(), A.col.data(), A.val.data(), r.rank.empty() ? NULL : r.rank.data(), r.E.data(), r.nl, r.lorder.data(), r.llptr.data(), r.nu, r.uorder.data(), r.ulptr.data(), b.data(), xr.data(), its, (PetscBool)gz, z.data()));
      for (int rep = 0; rep < 2; rep++) {
        PetscCall(CudaRichardson(d, n, b, x0, its, (PetscBool)gz, false, x));
        CHECK(RelErr(x, xr) <= TOL, "%s %s Richardson its %d guess %s (%d): differs from the reference by %g", name, sched, (int)its, gz ? "zero" : "nonzero", rep, RelErr(x, xr));
        if (rep == 0) first = x;
        else CHECK(x == first, "%s %s Richardson its %d guess %s: a replay gives other bits", name, sched, (int)its, gz ? "zero" : "nonzero");
      }
      PetscCall(CudaRichardson(d, n, b, x0, its, (PetscBool)gz, true, x));
      CHECK(mc ? x == first : RelErr(x, xr) <= TOL, "%s %s Richardson its %d guess %s, x0 == x: differs (relative %g)", name, sched, (int)its, gz ? "zero" : "nonzero", RelErr(x, xr));
      if (mc) {
        PetscBool single;
        PetscCall(K::cuda::SetGraph(d, PETSC_FALSE));
        PetscCall(CudaRichardson(d, n, b, x0, its, (PetscBool)gz, false, x));
        CHECK(x == first, "%s multicolor Richardson its %d guess %s, direct launches: other bits than the graph", name, (int)its, gz ? "zero" : "nonzero");
        PetscCall(K::cuda::SetGraph(d, PETSC_TRUE));
        PetscCall(K::cuda::SetPDL(d, PETSC_TRUE));
        PetscCall(CudaRichardson(d, n, b, x0, its, (PetscBool)gz, false, x));
        CHECK(x == first, "%s multicolor Richardson its %d guess %s, programmatic dependent launches: other bits", name, (int)its, gz ? "zero" : "nonzero");
        PetscCall(K::cuda::SetPDL(d, PETSC_FALSE));
        PetscCall(K::cuda::SetSingleBlockRows(d, n));
        PetscCall(K::cuda::GetSingleBlock(d, &single));
        PetscCall(CudaRichardson(d, n, b, x0, its, (PetscBool)gz, false, x));
        CHECK(single && x == first, "%s multicolor Richardson its %d guess %s, single-block kernel (%s): other bits", name, (int)its, gz ? "zero" : "nonzero", single ? "on" : "OFF");
        PetscCall(K::cuda::SetSingleBlockRows(d, 0));
      } else {
        PetscCall(K::cuda::SetNaturalSweeps(d, K::cuda::NATURAL_LEVELS));
        PetscCall(CudaRichardson(d, n, b, x0, its, (PetscBool)gz, false, x));
        CHECK(RelErr(x, xr) <= TOL, "%s natural Richardson its %d guess %s, per-level sweeps: differs from the reference by %g", name, (int)its, gz ? "zero" : "nonzero", RelErr(x, xr));
        PetscCall(K::cuda::SetNaturalSweeps(d, K::cuda::NATURAL_SPSV));
      }
    }
  }
  PetscCall(K::cuda::Destroy(&d));
  printf("%s %s: Richardson equals the reference\n", name, sched);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscBool avail;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PGXCUDAIsAvailable(&avail));
  PetscCheck(avail, PETSC_COMM_WORLD, PETSC_ERR_SUP_SYS, "this test needs a GPU");
  Csr R = RandomMatrix(3001), P = Poisson3d(23);
  PetscCall(TestOne("random3001", R, false));
  PetscCall(TestOne("random3001", R, true));
  PetscCall(TestOne("poisson3d-23", P, false));
  PetscCall(TestOne("poisson3d-23", P, true));
  PetscCall(TestWaves("random3001", R, 0));
  PetscCall(TestWaves("poisson3d-23", P, 23));
  PetscCall(TestZeroPivot());
  PetscCall(TestRichardson("random3001", R, false));
  PetscCall(TestRichardson("random3001", R, true));
  PetscCall(TestRichardson("poisson3d-23", P, false));
  PetscCall(TestRichardson("poisson3d-23", P, true));
  if (nfail) printf("%d checks FAILED\n", nfail);
  else printf("all checks passed\n");
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
