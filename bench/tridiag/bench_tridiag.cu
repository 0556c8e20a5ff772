/* bench/tridiag: PGX's batched tridiagonal solve against cuSPARSE on the GPU.

   Cases (each verified: max |P y - r| / max |r| over all blocks, computed on the host):
   - paper-1..5  batches drawn to match the AIPS paper's matrices: n = 0.77M, 1.44M, 2.2M, 2.9M, 4.6M, block
                 sizes in 1..34, 39, 55, 121, 27. The paper gives 221k blocks for the first and 1.17M for the
                 last (mean size 3.5 and 3.9); sizes are drawn from a truncated geometric distribution on
                 1..max with that mean (3.7 for the middle three, whose counts are not given), fixed seed,
                 and one block of the maximum size is always present.
   - aniso3d-m, convdiff3d-m: P of the benchmark problems (one block per x-line: n = m^3, m^2 blocks of m)
   - uniform-32, uniform-2048: n = 2^24 in equal blocks (the anchors' sizes)
   - one-block: a single block of 2^22 rows, PGX tiled and interleaved with several thresholds (the
                long-block path; choose the default threshold from it)
   Solvers: PGX (PGXTridiagSolve, r -> y); cusparseDgtsv2 and cusparseDgtsv2_nopivot on the whole P as one
   system of size n (zeros at the cuts); cusparseDgtsv2StridedBatch and cusparseDgtsvInterleavedBatch
   (algorithm 0) on the blocks PADDED to the largest block size (identity rows in the padding).
   Times: median of -reps calls timed with cudaEvents on PGX's stream after a warm-up; cuSPARSE solves
   in place, so the right-hand side (and for InterleavedBatch the coefficients, which it overwrites) is
   restored before each call, outside the timed interval.
   Byte model ("effective bandwidth", the same for every solver): 40 bytes per unknown of P, i.e. reading
   dl, d, du, r and writing y once (padding not counted). PGX's own traffic model (3 factors + r + y per
   row, block starts, chunk table, reduced systems) is printed beside it. The copy bandwidth is measured
   with cudaMemcpy device-to-device (read + write).

   Options: -cases paper,problems,uniform,oneblock (default all) -m 128 (problem size) -reps 20
            -threshold 0 (0: the layout's default) -pad_limit_gb 12 (skip padded solvers above this memory)
   Every case also runs PGX with each layout (tiled, interleaved) forced, for the choice of the default. */
#include <pgx/private/pgxcuda.h>
#include <pgx/tridiag.h>
#include <pgx/gallery.h>
#include <vector>
#include <string>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include "../common/pgxbench.h"

struct Case {
  std::string           name;
  std::vector<PetscInt> off;
  std::vector<double>   dl, d, du, r;
  PetscInt              n() const { return off.back(); }
  PetscInt              nb() const { return (PetscInt)off.size() - 1; }
  PetscInt              maxs() const
  {
    PetscInt m = 0;
    for (size_t b = 0; b + 1 < off.size(); b++) m = std::max(m, off[b + 1] - off[b]);
    return m;
  }
};

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double             Rand()
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* random diagonally dominant values; zeros across the cuts */
static void FillValues(Case &c)
{
  const PetscInt n = c.n();
  c.dl.assign(n, 0);
  c.d.assign(n, 0);
  c.du.assign(n, 0);
  c.r.assign(n, 0);
  for (PetscInt b = 0; b < c.nb(); b++)
    for (PetscInt i = c.off[b]; i < c.off[b + 1]; i++) {
      if (i > c.off[b]) c.dl[i] = 2 * Rand() - 1;
      if (i < c.off[b + 1] - 1) c.du[i] = 2 * Rand() - 1;
      c.d[i] = std::fabs(c.dl[i]) + std::fabs(c.du[i]) + 0.5 + Rand();
      c.r[i] = 2 * Rand() - 1;
    }
}

/* mean of the geometric distribution P(s) ~ q^(s-1) truncated to 1..M */
static double TruncGeomMean(double q, int M)
{
  double s = 0, w = 0, p = 1;
  for (int k = 1; k <= M; k++, p *= q) {
    s += k * p;
    w += p;
  }
  return s / w;
}

static Case PaperCase(const char *name, PetscInt n, int M, double mean)
{
  Case   c;
  double lo = 0, hi = 0.999999;
  for (int it = 0; it < 100; it++) {
    double q = 0.5 * (lo + hi);
    if (TruncGeomMean(q, M) < mean) lo = q;
    else hi = q;
  }
  const double q = 0.5 * (lo + hi);
  std::vector<double> cdf(M + 1, 0);
  double              p = 1, w = 0;
  for (int k = 1; k <= M; k++, p *= q) cdf[k] = (w += p);
  for (int k = 1; k <= M; k++) cdf[k] /= w;
  c.name = name;
  c.off.push_back(0);
  bool big = false;
  while (c.off.back() < n) {
    double   u = Rand();
    PetscInt s = (PetscInt)(std::lower_bound(cdf.begin() + 1, cdf.end(), u) - cdf.begin());
    if (s > M) s = M;
    if (!big && c.off.back() > n / 2) s = M, big = true;
    s = std::min<PetscInt>(s, n - c.off.back());
    c.off.push_back(c.off.back() + s);
  }
  FillValues(c);
  return c;
}

static Case UniformCase(const char *name, PetscInt n, PetscInt s)
{
  Case c;
  c.name = name;
  c.off.push_back(0);
  while (c.off.back() < n) c.off.push_back(std::min(n, c.off.back() + s));
  FillValues(c);
  return c;
}

/* P of a gallery problem: tridiagonal part of the matrix, cut where both couplings vanish */
static PetscErrorCode ProblemCase(const char *prob, PetscInt m, Case &c)
{
  Mat                A;
  PetscInt           n;
  const PetscInt    *ia, *ja;
  const PetscScalar *aa;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, prob, m, &A));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  c.name = std::string(prob) + "-" + std::to_string(m);
  c.dl.assign(n, 0);
  c.d.assign(n, 0);
  c.du.assign(n, 0);
  c.r.assign(n, 0);
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++) {
      if (ja[k] == i - 1) c.dl[i] = aa[k];
      if (ja[k] == i) c.d[i] = aa[k];
      if (ja[k] == i + 1) c.du[i] = aa[k];
    }
    c.r[i] = 2 * Rand() - 1;
  }
  c.off.assign(1, 0);
  for (PetscInt i = 0; i < n; i++)
    if (i == n - 1 || (c.du[i] == 0 && c.dl[i + 1] == 0)) c.off.push_back(i + 1);
  for (PetscInt b = 0; b + 1 < (PetscInt)c.off.size(); b++) { /* zeros at the cuts, as cuSPARSE needs */
    c.dl[c.off[b]]         = 0;
    c.du[c.off[b + 1] - 1] = 0;
  }
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double Residual(const Case &c, const std::vector<double> &y)
{
  double res = 0, rn = 0;
  for (PetscInt b = 0; b < c.nb(); b++)
    for (PetscInt i = c.off[b]; i < c.off[b + 1]; i++) {
      double v = c.d[i] * y[i] - c.r[i];
      if (i > c.off[b]) v += c.dl[i] * y[i - 1];
      if (i < c.off[b + 1] - 1) v += c.du[i] * y[i + 1];
      if (!std::isfinite(y[i])) return INFINITY;
      res = std::max(res, std::fabs(v));
      rn  = std::max(rn, std::fabs(c.r[i]));
    }
  return res / rn;
}


/* cudaMemcpy D2D bandwidth (read + write) of n doubles */
static PetscErrorCode CopyBandwidth(size_t n, double *gbs)
{
  pgx::cuda::DeviceArray<double>   a, b;
  cudaStream_t                     s;
  double                           ms;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(a.resize(n));
  PetscCall(b.resize(n));
  PGXCallCUDA(cudaMemsetAsync(a.data(), 0, n * 8, s));
  PetscCall(PGXBenchMedianPrep(10, [] { return PETSC_SUCCESS; }, [&]() -> PetscErrorCode { PGXCallCUDA(cudaMemcpyAsync(b.data(), a.data(), n * 8, cudaMemcpyDeviceToDevice, s)); return PETSC_SUCCESS; }, &ms));
  *gbs = 2.0 * n * 8 / (ms * 1e-3) / 1e9;
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct Row {
  std::string name;
  double      ms, res;
  bool        skipped;
  std::string note;
};

static double copybw = 0;
static std::vector<double> sp_gtsv2, sp_inter, pgx_frac;

static void PrintRows(const Case &c, const std::vector<Row> &rows, double pgxbytes)
{
  const double eff = 40.0 * c.n();
  printf("case %s: n %d, %d blocks, sizes 1..%d (mean %.2f); 40 B/unknown = %.1f MB; PGX model %.1f MB\n", c.name.c_str(), (int)c.n(), (int)c.nb(), (int)c.maxs(), (double)c.n() / c.nb(), eff / 1e6, pgxbytes / 1e6);
  printf("  %-34s %10s %10s %7s %12s %10s\n", "solver", "time[ms]", "GB/s(eff)", "%copy", "PGX speedup", "residual");
  const double tp = rows[0].ms;
  for (auto &r : rows) {
    if (r.skipped) {
      printf("  %-34s %10s   (%s)\n", r.name.c_str(), "skipped", r.note.c_str());
      continue;
    }
    const double gbs = eff / (r.ms * 1e-3) / 1e9;
    printf("  %-34s %10.4f %10.1f %6.1f%% %11.2fx %10.1e %s\n", r.name.c_str(), r.ms, gbs, 100 * gbs / copybw, r.ms / tp, r.res, r.res < 1e-10 ? "ok" : "WRONG");
  }
}

static std::vector<double> all_frac, all_frac_sm;
static std::vector<std::string> all_names;

/* PGX solve of a case with the given layout: time, residual, byte model */
static PetscErrorCode RunPGX(const Case &c, int reps, PetscInt thr, PGXTridiagLayout layout, pgx::cuda::DeviceArray<double> &d_r, pgx::cuda::DeviceArray<double> &d_y, Row &row, PetscLogDouble *pgxbytes)
{
  const PetscInt      n = c.n(), nb = c.nb();
  PGXTridiag          T;
  PGXTridiagPivotInfo info;
  PGXTridiagInfo      ti;
  cudaStream_t        s;
  std::vector<double> y(n);

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(PGXTridiagCreate(PGX_DEVICE_CUDA, &T));
  PetscCall(PGXTridiagSetLayout(T, layout));
  PetscCall(PGXTridiagSetThreshold(T, thr));
  PetscCall(PGXTridiagSetUpSymbolic(T, nb, c.off.data()));
  PetscCall(PGXTridiagSetUpNumeric(T, c.dl.data(), c.d.data(), c.du.data(), &info));
  PetscCheck(!info.failed, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PGX pivot failure in block %d", (int)info.block);
  PetscCall(PGXTridiagGetInfo(T, &ti));
  PetscCall(PGXTridiagGetSolveBytes(T, PETSC_FALSE, pgxbytes));
  PGXCallCUDA(cudaMemsetAsync(d_y.data(), 0xff, n * 8, s));
  PetscCall(PGXBenchMedianPrep(reps, [] { return PETSC_SUCCESS; }, [&] { return PGXTridiagSolve(T, 1.0, d_r.data(), 0.0, nullptr, d_y.data()); }, &row.ms));
  PetscCall(PGXDeviceCopyArrayToHost(y.data(), d_y.data(), n));
  row.res     = Residual(c, y);
  row.skipped = false;
  row.name    = std::string("PGX ") + PGXTridiagLayouts[ti.layout] + (layout == PGX_TRIDIAG_LAYOUT_AUTO ? " (default)" : "") + ", thr " + std::to_string(ti.threshold);
  PetscCall(PGXTridiagDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCase(const Case &c, int reps, PetscInt thr, double padlimit, bool paper)
{
  const PetscInt       n = c.n(), nb = c.nb(), M = c.maxs();
  cusparseHandle_t     h;
  cudaStream_t         s;
  std::vector<Row>     rows;
  std::vector<double>  y(n);
  PetscLogDouble       pgxbytes = 0;
  pgx::cuda::DeviceArray<double> d_dl, d_d, d_du, d_r, d_y;
  pgx::cuda::DeviceArray<char>   buf;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetCUSPARSE(&h));
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(d_dl.upload(c.dl.data(), n));
  PetscCall(d_d.upload(c.d.data(), n));
  PetscCall(d_du.upload(c.du.data(), n));
  PetscCall(d_r.upload(c.r.data(), n));
  PetscCall(d_y.resize(n));

  { /* PGX with the default layout (row 0: the speedups are against it) */
    Row row;
    PetscCall(RunPGX(c, reps, thr, PGX_TRIDIAG_LAYOUT_AUTO, d_r, d_y, row, &pgxbytes));
    rows.push_back(row);
  }
  for (int piv = 1; piv >= 0; piv--) { /* gtsv2 / gtsv2_nopivot on the whole P */
    Row    row;
    size_t bs;
    if (piv) PGXCallCUSPARSE(cusparseDgtsv2_bufferSizeExt(h, (int)n, 1, d_dl.data(), d_d.data(), d_du.data(), d_y.data(), (int)n, &bs));
    else PGXCallCUSPARSE(cusparseDgtsv2_nopivot_bufferSizeExt(h, (int)n, 1, d_dl.data(), d_d.data(), d_du.data(), d_y.data(), (int)n, &bs));
    PetscCall(buf.resize(bs + 1));
    auto prep = [&]() -> PetscErrorCode {
      PGXCallCUDA(cudaMemcpyAsync(d_y.data(), d_r.data(), n * 8, cudaMemcpyDeviceToDevice, s));
      return PETSC_SUCCESS;
    };
    auto run = [&]() -> PetscErrorCode {
      if (piv) PGXCallCUSPARSE(cusparseDgtsv2(h, (int)n, 1, d_dl.data(), d_d.data(), d_du.data(), d_y.data(), (int)n, buf.data()));
      else PGXCallCUSPARSE(cusparseDgtsv2_nopivot(h, (int)n, 1, d_dl.data(), d_d.data(), d_du.data(), d_y.data(), (int)n, buf.data()));
      return PETSC_SUCCESS;
    };
    PetscCall(PGXBenchMedianPrep(reps, prep, run, &row.ms));
    PetscCall(PGXDeviceCopyArrayToHost(y.data(), d_y.data(), n));
    row.res     = Residual(c, y);
    row.skipped = false;
    row.name    = piv ? "cusparseDgtsv2 (one system, pivoting)" : "cusparseDgtsv2_nopivot (one system)";
    rows.push_back(row);
  }
  { /* padded batches */
    const size_t padn  = (size_t)nb * M;
    const double gb    = padn * 8.0 * 8 / 1e9; /* 4 arrays + 4 pristine copies */
    Row          rs, ri;
    rs.name = "cusparseDgtsv2StridedBatch (padded)";
    ri.name = "cusparseDgtsvInterleavedBatch a0 (padded)";
    if (gb > padlimit || padn > 2147483647 || M < 3) {
      rs.skipped = ri.skipped = true;
      rs.note = ri.note = M < 3 ? "blocks too small" : "padded layout above -pad_limit_gb";
      rows.push_back(rs);
      rows.push_back(ri);
    } else {
      for (int inter = 0; inter < 2; inter++) {
        std::vector<double>            pl(padn, 0), pd(padn, 1), pu(padn, 0), pr(padn, 0);
        pgx::cuda::DeviceArray<double> a, b, cc, x, a0, b0, c0, x0;
        size_t                         bs;
        Row                           &row = inter ? ri : rs;
        for (PetscInt blk = 0; blk < nb; blk++)
          for (PetscInt k = 0; k < c.off[blk + 1] - c.off[blk]; k++) {
            const size_t p = inter ? (size_t)k * nb + blk : (size_t)blk * M + k;
            const PetscInt i = c.off[blk] + k;
            pl[p] = c.dl[i];
            pd[p] = c.d[i];
            pu[p] = c.du[i];
            pr[p] = c.r[i];
          }
        PetscCall(a0.upload(pl.data(), padn));
        PetscCall(b0.upload(pd.data(), padn));
        PetscCall(c0.upload(pu.data(), padn));
        PetscCall(x0.upload(pr.data(), padn));
        PetscCall(a.resize(padn));
        PetscCall(b.resize(padn));
        PetscCall(cc.resize(padn));
        PetscCall(x.resize(padn));
        PGXCallCUDA(cudaMemcpyAsync(a.data(), a0.data(), padn * 8, cudaMemcpyDeviceToDevice, s));
        PGXCallCUDA(cudaMemcpyAsync(b.data(), b0.data(), padn * 8, cudaMemcpyDeviceToDevice, s));
        PGXCallCUDA(cudaMemcpyAsync(cc.data(), c0.data(), padn * 8, cudaMemcpyDeviceToDevice, s));
        if (inter) PGXCallCUSPARSE(cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, (int)M, a.data(), b.data(), cc.data(), x.data(), (int)nb, &bs));
        else PGXCallCUSPARSE(cusparseDgtsv2StridedBatch_bufferSizeExt(h, (int)M, a.data(), b.data(), cc.data(), x.data(), (int)nb, (int)M, &bs));
        PetscCall(buf.resize(bs + 1));
        auto prep = [&]() -> PetscErrorCode {
          PGXCallCUDA(cudaMemcpyAsync(x.data(), x0.data(), padn * 8, cudaMemcpyDeviceToDevice, s));
          if (inter) { /* InterleavedBatch overwrites the coefficients */
            PGXCallCUDA(cudaMemcpyAsync(a.data(), a0.data(), padn * 8, cudaMemcpyDeviceToDevice, s));
            PGXCallCUDA(cudaMemcpyAsync(b.data(), b0.data(), padn * 8, cudaMemcpyDeviceToDevice, s));
            PGXCallCUDA(cudaMemcpyAsync(cc.data(), c0.data(), padn * 8, cudaMemcpyDeviceToDevice, s));
          }
          return PETSC_SUCCESS;
        };
        auto run = [&]() -> PetscErrorCode {
          if (inter) PGXCallCUSPARSE(cusparseDgtsvInterleavedBatch(h, 0, (int)M, a.data(), b.data(), cc.data(), x.data(), (int)nb, buf.data()));
          else PGXCallCUSPARSE(cusparseDgtsv2StridedBatch(h, (int)M, a.data(), b.data(), cc.data(), x.data(), (int)nb, (int)M, buf.data()));
          return PETSC_SUCCESS;
        };
        PetscCall(PGXBenchMedianPrep(reps, prep, run, &row.ms));
        PetscCall(PGXDeviceCopyArrayToHost(pr.data(), x.data(), padn));
        for (PetscInt blk = 0; blk < nb; blk++)
          for (PetscInt k = 0; k < c.off[blk + 1] - c.off[blk]; k++) y[c.off[blk] + k] = pr[inter ? (size_t)k * nb + blk : (size_t)blk * M + k];
        row.res     = Residual(c, y);
        row.skipped = false;
      }
      rows.push_back(rs);
      rows.push_back(ri);
    }
  }
  for (PGXTridiagLayout l : {PGX_TRIDIAG_LAYOUT_TILED, PGX_TRIDIAG_LAYOUT_INTERLEAVED}) { /* both layouts, for the choice of the default */
    Row            row;
    PetscLogDouble b;
    PetscCall(RunPGX(c, reps, thr, l, d_r, d_y, row, &b));
    rows.push_back(row);
  }
  PrintRows(c, rows, pgxbytes);
  { /* a copy moving the same bytes as the solve (20 B per unknown read, 20 written): the fixed costs of a
       small transfer (launch, ramp-up, tail) are in it too */
    double bw;
    PetscCall(CopyBandwidth((size_t)(2.5 * n), &bw));
    printf("  size-matched copy (%.1f MB read + written): %.0f GB/s; PGX default at %.1f%% of it\n", 40.0 * n / 1e6, bw, 100 * 40.0 * n / (rows[0].ms * 1e-3) / 1e9 / bw);
    all_frac_sm.push_back(40.0 * n / (rows[0].ms * 1e-3) / 1e9 / bw);
  }
  all_frac.push_back(40.0 * n / (rows[0].ms * 1e-3) / 1e9 / copybw);
  all_names.push_back(c.name);
  if (paper) {
    sp_gtsv2.push_back(rows[1].ms / rows[0].ms);
    if (!rows[4].skipped) sp_inter.push_back(rows[4].ms / rows[0].ms);
    pgx_frac.push_back(40.0 * n / (rows[0].ms * 1e-3) / 1e9 / copybw);
  }
  printf("\n");
  fflush(stdout);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OneBlock(int reps)
{
  Case                c = UniformCase("one-block", (PetscInt)1 << 22, (PetscInt)1 << 22);
  const PetscInt      n = c.n();
  const PetscInt      thrs_tiled[] = {64, 256, 1024, 2041, PGX_TRIDIAG_TILE_ROWS}, thrs_inter[] = {32, 128};
  std::vector<double> y(n);
  pgx::cuda::DeviceArray<double> d_r, d_y;

  PetscFunctionBegin;
  PetscCall(d_r.upload(c.r.data(), n));
  PetscCall(d_y.resize(n));
  printf("case one-block: a single block of %d rows (the long-block path): PGX by threshold\n", (int)n);
  printf("  %-12s %-10s %10s %10s %7s %8s %10s\n", "layout", "threshold", "time[ms]", "GB/s(eff)", "%copy", "levels", "residual");
  for (PGXTridiagLayout l : {PGX_TRIDIAG_LAYOUT_TILED, PGX_TRIDIAG_LAYOUT_INTERLEAVED})
  for (PetscInt thr : l == PGX_TRIDIAG_LAYOUT_TILED ? std::vector<PetscInt>(thrs_tiled, thrs_tiled + 5) : std::vector<PetscInt>(thrs_inter, thrs_inter + 2)) {
    PGXTridiag          T;
    PGXTridiagPivotInfo info;
    PGXTridiagInfo      ti;
    double              ms;
    PetscCall(PGXTridiagCreate(PGX_DEVICE_CUDA, &T));
    PetscCall(PGXTridiagSetLayout(T, l));
    PetscCall(PGXTridiagSetThreshold(T, thr));
    PetscCall(PGXTridiagSetUpSymbolic(T, 1, c.off.data()));
    PetscCall(PGXTridiagSetUpNumeric(T, c.dl.data(), c.d.data(), c.du.data(), &info));
    PetscCall(PGXTridiagGetInfo(T, &ti));
    PetscCall(PGXBenchMedianPrep(reps, [] { return PETSC_SUCCESS; }, [&] { return PGXTridiagSolve(T, 1.0, d_r.data(), 0.0, nullptr, d_y.data()); }, &ms));
    PetscCall(PGXDeviceCopyArrayToHost(y.data(), d_y.data(), n));
    const double res = Residual(c, y), gbs = 40.0 * n / (ms * 1e-3) / 1e9;
    printf("  %-12s %-10d %10.4f %10.1f %6.1f%% %8d %10.1e %s\n", PGXTridiagLayouts[l], (int)ti.threshold, ms, gbs, 100 * gbs / copybw, (int)ti.nlevels, res, res < 1e-10 ? "ok" : "WRONG");
    PetscCall(PGXTridiagDestroy(&T));
  }
  printf("\n");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double GeoMean(const std::vector<double> &v)
{
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 0 : std::exp(s / v.size());
}

int main(int argc, char **argv)
{
  char      cases[256] = "paper,problems,uniform,oneblock";
  PetscInt  m = 128, reps = 20, thr = 0;
  PetscReal padlimit = 12;
  char      dev[256];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-cases", cases, sizeof(cases), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-threshold", &thr, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-pad_limit_gb", &padlimit, NULL));
  {
    PGXDeviceType t;
    PetscCall(PGXDeviceResolve(PETSC_COMM_SELF, PGX_DEVICE_CUDA, &t)); /* a clear error without a GPU */
  }
  PetscCall(PGXDeviceGetName(dev, sizeof(dev)));
  PetscCall(CopyBandwidth((size_t)1 << 27, &copybw)); /* 1 GiB */
  printf("bench/tridiag on %s: copy bandwidth (cudaMemcpy D2D, read+write) %.0f GB/s; median of %d calls\n\n", dev, copybw, (int)reps);
  if (strstr(cases, "paper")) {
    const char    *names[] = {"paper-1", "paper-2", "paper-3", "paper-4", "paper-5"};
    const PetscInt ns[]    = {770000, 1440000, 2200000, 2900000, 4600000};
    const int      Ms[]    = {34, 39, 55, 121, 27};
    const double   means[] = {770000.0 / 221000, 3.7, 3.7, 3.7, 4600000.0 / 1170000};
    for (int i = 0; i < 5; i++) PetscCall(RunCase(PaperCase(names[i], ns[i], Ms[i], means[i]), (int)reps, thr, padlimit, true));
  }
  if (strstr(cases, "problems")) {
    Case c;
    PetscCall(ProblemCase("aniso3d", m, c));
    PetscCall(RunCase(c, (int)reps, thr, padlimit, false));
    PetscCall(ProblemCase("convdiff3d", m, c));
    PetscCall(RunCase(c, (int)reps, thr, padlimit, false));
  }
  if (strstr(cases, "uniform")) {
    PetscCall(RunCase(UniformCase("uniform-32", (PetscInt)1 << 24, 32), (int)reps, thr, padlimit, false));
    PetscCall(RunCase(UniformCase("uniform-2048", (PetscInt)1 << 24, 2048), (int)reps, thr, padlimit, false));
  }
  if (strstr(cases, "oneblock")) PetscCall(OneBlock((int)reps));
  if (!all_frac.empty()) {
    printf("PGX default solve, %% of copy bandwidth per case:");
    for (size_t i = 0; i < all_frac.size(); i++) printf(" %s %.0f%%", all_names[i].c_str(), 100 * all_frac[i]);
    printf("\nPGX default solve, %% of a size-matched copy per case:");
    for (size_t i = 0; i < all_frac_sm.size(); i++) printf(" %s %.0f%%", all_names[i].c_str(), 100 * all_frac_sm[i]);
    printf("\n");
  }
  if (!sp_gtsv2.empty()) {
    const double g = GeoMean(sp_gtsv2), in = GeoMean(sp_inter);
    double       fmin = *std::min_element(pgx_frac.begin(), pgx_frac.end());
    printf("paper-like batches (geometric means): PGX is %.2fx faster than gtsv2 (target >= 3: %s), %.2fx faster than gtsvInterleavedBatch (target >= 2: %s); PGX reaches >= %.0f%% of copy bandwidth (target >= 70%%: %s)\n", g, g >= 3 ? "met" : "NOT met", in, in >= 2 ? "met" : "NOT met", 100 * fmin, fmin >= 0.7 ? "met" : "NOT met");
  }
  PetscCall(PetscFinalize());
  return 0;
}
