static const char help[] = "PCDILU benchmark (issue 3, item 4): PGX DILU (cuda backend) against cuSPARSE on the same matrix.\n"
                           "Per problem: one cuSPARSE SpMV; cuSPARSE ILU(0) (csrilu02 + two SpSV) setup and apply; PGX DILU natural and\n"
                           "multicolor analysis, numeric (re-)setup on device values and apply, apply/SpMV, ILU(0)-SpSV/apply; every answer\n"
                           "verified (PGX cuda against the host reference kernels, SpMV against MatMult, cuSPARSE ILU(0) against PETSc's);\n"
                           "then iteration counts to rtol 1e-8 (CG for symmetric, BiCGStab otherwise) with PGX dilu natural / multicolor\n"
                           "(cuda), PETSc ILU(0) and Jacobi (host).\n"
                           "Options: -m7 <128> -m27 <100> -maniso <64> -mconv <64> (0 skips), -matrices <BentPipe2D100,bcsstk16>,\n"
                           "  -reps <50> timed repetitions (median), -its <1> (0: skip the iteration counts), -max_it <1000>, -o <file>,\n"
                           "  -waves <w1,w2,...> (e.g. 2,4,8; default none): multicolor per color wave (-pc_dilu_color_wave): colors, analysis,\n"
                           "  apply and apply/SpMV (verified against the reference with the same wave) and iterations (cuda PCDILU)\n";
/* Runs in a PETSc without CUDA: matrices and KSP vectors live on the host; PGX's cuda backend stages them.
   Timings of kernels use cudaEvents on PGX's stream around each repetition, after a warm-up; medians. */
#define DISABLE_CUSPARSE_DEPRECATED 1 /* csrilu02 is the issue's named anchor */
#include <pgx/private/pgxcuda.h>
#include <petscksp.h>
#include <vector>
#include <functional>
#include <algorithm>
#include <string>
#include <cmath>
#include <ctime>
#include "../../src/pc/impls/dilu/dilu_kernels.h"
#include "../../tests/dilu/dilu_problems.h"
#include "../common/pgxbench.h"

namespace K   = pgx::kernels::dilu;
namespace ref = pgx::kernels::dilu::reference;

static PetscInt nverify_fail = 0;


static double RelDiff(const std::vector<PetscScalar> &a, const std::vector<PetscScalar> &b)
{
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); i++) {
    double d = std::fabs((double)(a[i] - b[i]));
    if (!std::isfinite(d)) return INFINITY;
    num = std::max(num, d), den = std::max(den, std::fabs((double)b[i]));
  }
  return den > 0 ? num / den : num;
}

/* componentwise backward error of y for M y = r, M = (E+L) E^-1 (E+U) (rank NULL: identity):
   max_i |(M y)_i - r_i| / ((|E+L| |E|^-1 |E+U| |y|)_i + |r_i|) */
static double BackwardError(PetscInt n, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, const PetscInt *rank, const std::vector<PetscScalar> &E, const std::vector<PetscScalar> &y, const std::vector<PetscScalar> &r)
{
  std::vector<double> z(n), zb(n);
  double              berr = 0;
  auto                before = [&](PetscInt j, PetscInt i) { return rank ? rank[j] < rank[i] : j < i; };
  for (PetscInt i = 0; i < n; i++) { /* z = E^-1 (E+U) y */
    double u = E[i] * y[i], ub = std::abs(E[i] * y[i]);
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++)
      if (ja[k] != i && before(i, ja[k])) u += a[k] * y[ja[k]], ub += std::abs(a[k] * y[ja[k]]);
    z[i] = u / E[i], zb[i] = ub / std::abs(E[i]);
  }
  for (PetscInt i = 0; i < n; i++) { /* (E+L) z - r */
    double t = E[i] * z[i], tb = std::abs(E[i]) * zb[i];
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++)
      if (ja[k] != i && before(ja[k], i)) t += a[k] * z[ja[k]], tb += std::abs(a[k]) * zb[ja[k]];
    double den = tb + std::abs(r[i]), e = std::abs(t - r[i]);
    berr = std::max(berr, den > 0 ? e / den : e);
    if (!(e == e)) return INFINITY;
  }
  return berr;
}

/* multicolor with one color wave (-waves) */
struct WaveResult {
  PetscInt wave = 0, ncolors = 0, its = -1;
  double   analysis = 0, apply = 0, err = 0;
};

struct Row {
  std::vector<WaveResult> waves;
  std::string name;
  PetscInt    n = 0, nnz = 0;
  double      spmv = 0, ilu_setup = 0, ilu_apply = 0;
  PetscInt    levels[2] = {0, 0};
  double      analysis[2] = {0, 0}, numeric[2] = {0, 0}, apply[2] = {0, 0}, err[2] = {0, 0};
  double      apply_perlevel = 0; /* natural schedule with one launch per level (CUDA graph) instead of cuSPARSE SpSV */
  double      apply_lvldir   = 0; /* the same with direct launches */
  double      refresh        = 0; /* natural: the part of the numeric setup that refreshes the SpSV matrix (E into its diagonal, updateMatrix) */
  double      apply_direct   = 0; /* multicolor with direct launches instead of the CUDA graph */
  double      apply_pdl      = 0; /* multicolor, each color a programmatic dependent launch of the previous (SetPDL) */
  double      apply_pdl_dir  = 0; /* the same, direct launches */
  double      ilu_err = 0, spmv_err = 0;
  PetscInt    its[4] = {-1, -1, -1, -1};
  const char *krylov = "";
};

static double WallMs(PetscLogDouble t0)
{
  PetscLogDouble t1;
  PetscTime(&t1);
  return 1e3 * (t1 - t0);
}

/* PGX DILU through the kernel interface, one schedule; verified against the host reference */
static PetscErrorCode BenchDILU(PetscInt n, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, const PetscScalar *d_val, const PetscScalar *d_x, PetscScalar *d_y, const std::vector<PetscScalar> &hx, bool mc, PetscInt reps, cudaStream_t s, Row &row)
{
  K::cuda::Data *d = NULL;
  PetscLogDouble t0;
  PetscInt       nl, nu, bad, idx = mc ? 1 : 0;

  PetscFunctionBeginUser;
  PetscCall(K::cuda::Create(&d));
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscCall(PetscTime(&t0));
  PetscCall(K::cuda::Analyze(d, n, ia, ja, mc ? PETSC_TRUE : PETSC_FALSE, NULL, 0, &nl, &nu));
  row.analysis[idx] = WallMs(t0);
  row.levels[idx]   = nl;
  /* numeric setup from device values (what a re-setup after new values costs on the GPU) */
  PetscCall(PGXBenchMedian(std::max<PetscInt>(reps / 5, 3), [&]() { return K::cuda::FactorDevice(d, d_val, 0.0, &bad); }, &row.numeric[idx]));
  if (!mc) PetscCall(PGXBenchMedian(std::max<PetscInt>(reps / 5, 3), [&]() { return K::cuda::ShareE(d, d); }, &row.refresh));
  if (bad >= 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s %s: zero or non-finite pivot in row %" PetscInt_FMT " (apply times are still measured)\n", row.name.c_str(), mc ? "multicolor" : "natural", bad));
  PetscCall(PGXBenchMedian(reps, [&]() { return K::cuda::Apply(d, d_x, d_y); }, &row.apply[idx]));
  if (mc) { /* the same launches without the CUDA graph: what the graph saves */
    PetscCall(K::cuda::SetGraph(d, PETSC_FALSE));
    PetscCall(PGXBenchMedian(reps, [&]() { return K::cuda::Apply(d, d_x, d_y); }, &row.apply_direct));
    PetscCall(K::cuda::SetGraph(d, PETSC_TRUE));
    /* programmatic dependent launches between the colors (-pc_dilu_pdl), from the graph and direct; the same bits */
    std::vector<PetscScalar> y0(n), y1(n), y2(n);
    PGXCallCUDA(cudaMemcpyAsync(y0.data(), d_y, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PetscCall(K::cuda::SetPDL(d, PETSC_TRUE));
    PetscCall(PGXBenchMedian(reps, [&]() { return K::cuda::Apply(d, d_x, d_y); }, &row.apply_pdl));
    PGXCallCUDA(cudaMemcpyAsync(y1.data(), d_y, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PetscCall(K::cuda::SetGraph(d, PETSC_FALSE));
    PetscCall(PGXBenchMedian(reps, [&]() { return K::cuda::Apply(d, d_x, d_y); }, &row.apply_pdl_dir));
    PGXCallCUDA(cudaMemcpyAsync(y2.data(), d_y, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    PetscCall(K::cuda::SetGraph(d, PETSC_TRUE));
    PetscCall(K::cuda::SetPDL(d, PETSC_FALSE));
    if (y1 != y0 || y2 != y0) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  VERIFY FAILED %s: the multicolor apply with programmatic dependent launches (graph %s, direct %s) differs from the apply's bits\n", row.name.c_str(), y1 == y0 ? "same" : "differs", y2 == y0 ? "same" : "differs"));
      nverify_fail++;
    }
  }
  if (!mc) { /* the same sweeps with one launch per level (replayed from a CUDA graph, then direct) instead of SpSV */
    std::vector<PetscScalar> y1(n), y2(n), y3(n);
    PetscInt                 sw;
    PetscCall(K::cuda::GetNaturalSweeps(d, &sw));
    if (sw != K::cuda::NATURAL_SPSV) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s natural: the apply does not run cuSPARSE SpSV (no diagonal in some row)\n", row.name.c_str()));
    PGXCallCUDA(cudaMemcpyAsync(y1.data(), d_y, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PetscCall(K::cuda::SetNaturalSweeps(d, K::cuda::NATURAL_LEVELS));
    PetscCall(PGXBenchMedian(std::max<PetscInt>(reps / 5, 3), [&]() { return K::cuda::Apply(d, d_x, d_y); }, &row.apply_perlevel));
    PGXCallCUDA(cudaMemcpyAsync(y2.data(), d_y, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PetscCall(K::cuda::SetGraph(d, PETSC_FALSE));
    PetscCall(PGXBenchMedian(std::max<PetscInt>(reps / 5, 3), [&]() { return K::cuda::Apply(d, d_x, d_y); }, &row.apply_lvldir));
    PGXCallCUDA(cudaMemcpyAsync(y3.data(), d_y, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    PetscCall(K::cuda::SetGraph(d, PETSC_TRUE));
    PetscCall(K::cuda::SetNaturalSweeps(d, K::cuda::NATURAL_SPSV));
    if (!(RelDiff(y2, y1) <= 1e-9) || !(RelDiff(y3, y1) <= 1e-9)) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  VERIFY FAILED %s: per-level (graph %g, direct %g) and SpSV natural sweeps differ\n", row.name.c_str(), RelDiff(y2, y1), RelDiff(y3, y1)));
      nverify_fail++;
    }
  }
  /* verify: the host reference with the same colors */
  {
    std::vector<PetscInt>    diag(n), pair(ia[n]), lorder(n), llptr(n + 1), uorder(n), ulptr(n + 1), color, rank;
    std::vector<PetscScalar> E(n), y(n), yd(n, NAN), Ed(n, NAN);
    PetscInt                 rl = 0, ru = 0, rbad, nc = 0;
    PetscCall(ref::FindDiagonal(n, ia, ja, diag.data()));
    if (mc) {
      color.resize(n), rank.resize(n);
      PetscCall(K::cuda::GetColors(d, color.data(), &nc));
      PetscCall(ref::RankFromColors(n, color.data(), nc, rank.data()));
      PetscCall(ref::ColorSchedule(n, color.data(), nc, PETSC_FALSE, lorder.data(), llptr.data()));
      PetscCall(ref::ColorSchedule(n, color.data(), nc, PETSC_TRUE, uorder.data(), ulptr.data()));
      rl = ru = nc;
      /* the GPU coloring must be proper and equal to the reference coloring */
      std::vector<PetscInt> rcolor(n);
      PetscInt              rnc;
      PetscCall(ref::Color(n, ia, ja, rcolor.data(), &rnc));
      if (rnc != nc || rcolor != color) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  VERIFY FAILED %s: GPU coloring (%" PetscInt_FMT " colors) differs from the reference (%" PetscInt_FMT ")\n", row.name.c_str(), nc, rnc));
        nverify_fail++;
      }
    } else {
      PetscCall(ref::LevelSets(n, ia, ja, NULL, PETSC_FALSE, lorder.data(), llptr.data(), &rl));
      PetscCall(ref::LevelSets(n, ia, ja, NULL, PETSC_TRUE, uorder.data(), ulptr.data(), &ru));
      if (rl != nl || ru != nu) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  VERIFY FAILED %s: GPU level sets %" PetscInt_FMT "/%" PetscInt_FMT ", reference %" PetscInt_FMT "/%" PetscInt_FMT "\n", row.name.c_str(), nl, nu, rl, ru));
        nverify_fail++;
      }
    }
    PetscCall(ref::FindPairs(n, ia, ja, mc ? rank.data() : NULL, pair.data()));
    PetscCall(ref::Factor(n, ia, ja, a, mc ? rank.data() : NULL, diag.data(), pair.data(), rl, lorder.data(), llptr.data(), 0.0, E.data(), &rbad));
    PetscCall(ref::Apply(n, ia, ja, a, mc ? rank.data() : NULL, E.data(), rl, lorder.data(), llptr.data(), ru, uorder.data(), ulptr.data(), hx.data(), y.data()));
    PetscCall(K::cuda::Apply(d, d_x, d_y));
    PGXCallCUDA(cudaMemcpyAsync(yd.data(), d_y, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    PetscCall(K::cuda::GetE(d, Ed.data()));
    /* E must match closely; the apply either matches (relative difference) or, where the factor is
       ill-conditioned and the summation order differs (cuSPARSE SpSV), has a small componentwise backward
       error for M y = r computed from the reference E */
    row.err[idx] = std::max(std::min(RelDiff(yd, y), BackwardError(n, ia, ja, a, mc ? rank.data() : NULL, E, yd, hx)), RelDiff(Ed, E));
    if (!(row.err[idx] <= 1e-9) || rbad != bad) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  VERIFY FAILED %s %s: cuda vs reference %g (bad row cuda %" PetscInt_FMT ", reference %" PetscInt_FMT ")\n", row.name.c_str(), mc ? "multicolor" : "natural", row.err[idx], bad, rbad));
      nverify_fail++;
    }
  }
  PetscCall(K::cuda::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* multicolor with color wave w through the kernel interface: analysis (wall), apply (median), verified against the
   reference (GPU colors == reference::Color with w; apply vs Apply() with those colors, relative or backward error) */
static PetscErrorCode BenchWave(PetscInt n, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, const PetscScalar *d_val, const PetscScalar *d_x, PetscScalar *d_y, const std::vector<PetscScalar> &hx, PetscInt w, PetscInt reps, cudaStream_t s, const std::string &name, WaveResult &res)
{
  K::cuda::Data           *d = NULL;
  PetscLogDouble           t0;
  PetscInt                 nl, nu, bad, rbad, nc = 0, rnc = -1;
  std::vector<PetscInt>    color(n), rcolor(n), rank(n), diag(n), pair(ia[n]), lorder(n), llptr(n + 1), uorder(n), ulptr(n + 1);
  std::vector<PetscScalar> E(n), y(n), yd(n, NAN);

  PetscFunctionBeginUser;
  res.wave = w;
  PetscCall(K::cuda::Create(&d));
  PetscCall(K::cuda::SetColorWave(d, w));
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscCall(PetscTime(&t0));
  PetscCall(K::cuda::Analyze(d, n, ia, ja, PETSC_TRUE, NULL, 0, &nl, &nu));
  res.analysis = WallMs(t0);
  PetscCall(K::cuda::FactorDevice(d, d_val, 0.0, &bad));
  PetscCall(PGXBenchMedian(reps, [&]() { return K::cuda::Apply(d, d_x, d_y); }, &res.apply));
  PetscCall(K::cuda::GetColors(d, color.data(), &nc));
  res.ncolors = nc;
  PetscCall(ref::Color(n, ia, ja, w, rcolor.data(), &rnc));
  if (rnc != nc || rcolor != color) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  VERIFY FAILED %s color wave %" PetscInt_FMT ": GPU coloring (%" PetscInt_FMT " colors) differs from the reference (%" PetscInt_FMT ")\n", name.c_str(), w, nc, rnc));
    nverify_fail++;
  }
  PetscCall(ref::FindDiagonal(n, ia, ja, diag.data()));
  PetscCall(ref::RankFromColors(n, color.data(), nc, rank.data()));
  PetscCall(ref::ColorSchedule(n, color.data(), nc, PETSC_FALSE, lorder.data(), llptr.data()));
  PetscCall(ref::ColorSchedule(n, color.data(), nc, PETSC_TRUE, uorder.data(), ulptr.data()));
  PetscCall(ref::FindPairs(n, ia, ja, rank.data(), pair.data()));
  PetscCall(ref::Factor(n, ia, ja, a, rank.data(), diag.data(), pair.data(), nc, lorder.data(), llptr.data(), 0.0, E.data(), &rbad));
  PetscCall(ref::Apply(n, ia, ja, a, rank.data(), E.data(), nc, lorder.data(), llptr.data(), nc, uorder.data(), ulptr.data(), hx.data(), y.data()));
  PetscCall(K::cuda::Apply(d, d_x, d_y));
  PGXCallCUDA(cudaMemcpyAsync(yd.data(), d_y, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  res.err = std::min(RelDiff(yd, y), BackwardError(n, ia, ja, a, rank.data(), E, yd, hx));
  if (!(res.err <= 1e-9) || rbad != bad) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  VERIFY FAILED %s color wave %" PetscInt_FMT ": cuda vs reference %g (bad row cuda %" PetscInt_FMT ", reference %" PetscInt_FMT ")\n", name.c_str(), w, res.err, bad, rbad));
    nverify_fail++;
  }
  PetscCall(K::cuda::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuSPARSE: SpMV, ILU(0) (csrilu02) + SpSV lower (unit) and upper */
static PetscErrorCode BenchCUSPARSE(Mat A, PetscInt n, PetscInt nnz, const int *d_rowptr, const int *d_col, const PetscScalar *d_val, PetscScalar *d_x, PetscScalar *d_y, const std::vector<PetscScalar> &hx, PetscInt reps, cudaStream_t s, Row &row)
{
  cusparseHandle_t     h;
  cusparseSpMatDescr_t mA, mL, mU;
  cusparseDnVecDescr_t vx, vy, vt;
  cusparseMatDescr_t   descr;
  csrilu02Info_t       info;
  cusparseSpSVDescr_t  sL, sU;
  const double         one = 1.0, zero = 0.0;
  size_t               bytes = 0, bL = 0, bU = 0;
  int                  bufsize = 0, pos;
  pgx::cuda::DeviceArray<char>        buf, ibuf, lbuf, ubuf;
  pgx::cuda::DeviceArray<PetscScalar> lu, t;
  PetscLogDouble                      t0;

  PetscFunctionBeginUser;
  PetscCall(PGXCUDAGetCUSPARSE(&h));
  PGXCallCUSPARSE(cusparseSetStream(h, s));
  PGXCallCUSPARSE(cusparseCreateCsr(&mA, n, n, nnz, (void *)d_rowptr, (void *)d_col, (void *)d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  PGXCallCUSPARSE(cusparseCreateDnVec(&vx, n, d_x, CUDA_R_64F));
  PGXCallCUSPARSE(cusparseCreateDnVec(&vy, n, d_y, CUDA_R_64F));
  PGXCallCUSPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mA, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, &bytes));
  PetscCall(buf.resize(bytes ? bytes : 1));
  PetscCall(PGXBenchMedian(reps, [&]() -> PetscErrorCode {
    PetscFunctionBeginUser;
    PGXCallCUSPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mA, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, buf.data()));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, &row.spmv));
  { /* verify against MatMult */
    Vec                 x, y;
    std::vector<PetscScalar> yd(n, NAN), yh(n);
    PetscScalar        *xa;
    const PetscScalar  *ya;
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecGetArray(x, &xa));
    for (PetscInt i = 0; i < n; i++) xa[i] = hx[i];
    PetscCall(VecRestoreArray(x, &xa));
    PetscCall(MatMult(A, x, y));
    PetscCall(VecGetArrayRead(y, &ya));
    for (PetscInt i = 0; i < n; i++) yh[i] = ya[i];
    PetscCall(VecRestoreArrayRead(y, &ya));
    PGXCallCUDA(cudaMemcpyAsync(yd.data(), d_y, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    row.spmv_err = RelDiff(yd, yh);
    if (!(row.spmv_err <= 1e-12)) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  VERIFY FAILED %s: cuSPARSE SpMV vs MatMult %g\n", row.name.c_str(), row.spmv_err));
      nverify_fail++;
    }
    /* ILU(0) reference: PETSc's host ILU(0) in the natural ordering, applied to the same x */
    PC pc;
    PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
    PetscCall(PCSetType(pc, PCILU));
    PetscCall(PCFactorSetMatOrderingType(pc, MATORDERINGNATURAL));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetUp(pc));
    PetscCall(PCApply(pc, x, y));
    PetscCall(VecGetArrayRead(y, &ya));
    for (PetscInt i = 0; i < n; i++) yh[i] = ya[i];
    PetscCall(VecRestoreArrayRead(y, &ya));
    PetscCall(PCDestroy(&pc));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));

    /* cuSPARSE ILU(0): setup = copy values + csrilu02 analysis + factor + SpSV analysis of both triangles */
    PetscCall(lu.resize(nnz));
    PetscCall(t.resize(n));
    PGXCallCUSPARSE(cusparseCreateMatDescr(&descr));
    PGXCallCUSPARSE(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO));
    PGXCallCUSPARSE(cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL));
    PGXCallCUSPARSE(cusparseCreateCsrilu02Info(&info));
    PGXCallCUSPARSE(cusparseSpSV_createDescr(&sL));
    PGXCallCUSPARSE(cusparseSpSV_createDescr(&sU));
    PGXCallCUSPARSE(cusparseCreateCsr(&mL, n, n, nnz, (void *)d_rowptr, (void *)d_col, lu.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    PGXCallCUSPARSE(cusparseCreateCsr(&mU, n, n, nnz, (void *)d_rowptr, (void *)d_col, lu.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    {
      cusparseFillMode_t fl = CUSPARSE_FILL_MODE_LOWER, fu = CUSPARSE_FILL_MODE_UPPER;
      cusparseDiagType_t dl = CUSPARSE_DIAG_TYPE_UNIT, du = CUSPARSE_DIAG_TYPE_NON_UNIT;
      PGXCallCUSPARSE(cusparseSpMatSetAttribute(mL, CUSPARSE_SPMAT_FILL_MODE, &fl, sizeof(fl)));
      PGXCallCUSPARSE(cusparseSpMatSetAttribute(mL, CUSPARSE_SPMAT_DIAG_TYPE, &dl, sizeof(dl)));
      PGXCallCUSPARSE(cusparseSpMatSetAttribute(mU, CUSPARSE_SPMAT_FILL_MODE, &fu, sizeof(fu)));
      PGXCallCUSPARSE(cusparseSpMatSetAttribute(mU, CUSPARSE_SPMAT_DIAG_TYPE, &du, sizeof(du)));
    }
    PGXCallCUSPARSE(cusparseCreateDnVec(&vt, n, t.data(), CUDA_R_64F));
    PGXCallCUDA(cudaStreamSynchronize(s));
    PetscCall(PetscTime(&t0));
    PGXCallCUDA(cudaMemcpyAsync(lu.data(), d_val, nnz * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, s));
    PGXCallCUSPARSE(cusparseDcsrilu02_bufferSize(h, n, nnz, descr, lu.data(), d_rowptr, d_col, info, &bufsize));
    PetscCall(ibuf.resize(bufsize ? bufsize : 1));
    PGXCallCUSPARSE(cusparseDcsrilu02_analysis(h, n, nnz, descr, lu.data(), d_rowptr, d_col, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, ibuf.data()));
    PGXCallCUSPARSE(cusparseDcsrilu02(h, n, nnz, descr, lu.data(), d_rowptr, d_col, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, ibuf.data()));
    PGXCallCUSPARSE(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mL, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL, &bL));
    PGXCallCUSPARSE(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mU, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU, &bU));
    PetscCall(lbuf.resize(bL ? bL : 1));
    PetscCall(ubuf.resize(bU ? bU : 1));
    PGXCallCUSPARSE(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mL, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL, lbuf.data()));
    PGXCallCUSPARSE(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mU, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU, ubuf.data()));
    PGXCallCUDA(cudaStreamSynchronize(s));
    row.ilu_setup = WallMs(t0);
    {
      cusparseStatus_t st = cusparseXcsrilu02_zeroPivot(h, info, &pos);
      if (st == CUSPARSE_STATUS_ZERO_PIVOT) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s: cuSPARSE ILU(0) zero pivot at row %d\n", row.name.c_str(), pos));
    }
    PetscCall(PGXBenchMedian(reps, [&]() -> PetscErrorCode {
      PetscFunctionBeginUser;
      PGXCallCUSPARSE(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mL, vx, vt, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sL));
      PGXCallCUSPARSE(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mU, vt, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sU));
      PetscFunctionReturn(PETSC_SUCCESS);
    }, &row.ilu_apply));
    PGXCallCUDA(cudaMemcpyAsync(yd.data(), d_y, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    row.ilu_err = RelDiff(yd, yh);
    if (!(row.ilu_err <= 1e-6)) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  VERIFY FAILED %s: cuSPARSE ILU(0) apply vs PETSc ILU(0) %g\n", row.name.c_str(), row.ilu_err));
      nverify_fail++;
    }
    PGXCallCUSPARSE(cusparseDestroySpMat(mL));
    PGXCallCUSPARSE(cusparseDestroySpMat(mU));
    PGXCallCUSPARSE(cusparseDestroyDnVec(vt));
    PGXCallCUSPARSE(cusparseSpSV_destroyDescr(sL));
    PGXCallCUSPARSE(cusparseSpSV_destroyDescr(sU));
    PGXCallCUSPARSE(cusparseDestroyCsrilu02Info(info));
    PGXCallCUSPARSE(cusparseDestroyMatDescr(descr));
  }
  PGXCallCUSPARSE(cusparseDestroySpMat(mA));
  PGXCallCUSPARSE(cusparseDestroyDnVec(vx));
  PGXCallCUSPARSE(cusparseDestroyDnVec(vy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Iterations of CG (symmetric) or BiCGStab to rtol 1e-8 from x = 0, b = 1, the PC set by setpc; -1 = not converged
   within max_it */
static PetscErrorCode SolveIterations(Mat A, Vec x, Vec b, PetscBool symmetric, PetscInt max_it, const std::function<PetscErrorCode(PC)> &setpc, PetscInt *its)
{
  KSP                ksp;
  PC                 pc;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, symmetric ? KSPCG : KSPBCGS));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, max_it));
  PetscCall(KSPSetOptionsPrefix(ksp, "bench_"));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(setpc(pc));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, its));
  if (reason <= 0) *its = -1;
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCDILU (cuda) with an ordering and, for multicolor, a color wave (0: the default) */
static PetscErrorCode SetDILU(PC pc, PCDILUOrdering ord, PetscInt wave)
{
  PetscFunctionBeginUser;
  PetscCall(PCSetType(pc, PCDILU));
  PetscCall(PCDILUSetOrdering(pc, ord));
  if (wave > 0) PetscCall(PCDILUSetColorWave(pc, wave));
  PetscCall(PetscOptionsSetValue(NULL, "-bench_pgx_device", "cuda"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* iteration counts: dilu natural and multicolor, ILU(0), Jacobi, then multicolor with each color wave */
static PetscErrorCode Iterations(Mat A, PetscBool symmetric, PetscInt max_it, Row &row)
{
  Vec x, b;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  row.krylov = symmetric ? "cg" : "bcgs";
  PetscCall(SolveIterations(A, x, b, symmetric, max_it, [](PC pc) { return SetDILU(pc, PC_DILU_ORDERING_NATURAL, 0); }, &row.its[0]));
  PetscCall(SolveIterations(A, x, b, symmetric, max_it, [](PC pc) { return SetDILU(pc, PC_DILU_ORDERING_MULTICOLOR, 0); }, &row.its[1]));
  PetscCall(SolveIterations(A, x, b, symmetric, max_it, [](PC pc) -> PetscErrorCode {
    PetscFunctionBeginUser;
    PetscCall(PCSetType(pc, PCILU));
    PetscCall(PCFactorSetMatOrderingType(pc, MATORDERINGNATURAL));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, &row.its[2]));
  PetscCall(SolveIterations(A, x, b, symmetric, max_it, [](PC pc) { return PCSetType(pc, PCJACOBI); }, &row.its[3]));
  for (WaveResult &w : row.waves) PetscCall(SolveIterations(A, x, b, symmetric, max_it, [&w](PC pc) { return SetDILU(pc, PC_DILU_ORDERING_MULTICOLOR, w.wave); }, &w.its));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static std::vector<PetscInt> waves; /* -waves */

static PetscErrorCode RunOne(const char *name, Mat A, PetscBool symmetric, PetscInt reps, PetscBool its, PetscInt max_it, std::vector<Row> &rows)
{
  Row                row;
  PetscInt           n, nr;
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  PetscBool          done;
  cudaStream_t       s;
  pgx::cuda::DeviceArray<int>         d_rowptr, d_col; /* cuSPARSE: 32-bit indices whatever PetscInt is */
  pgx::cuda::DeviceArray<PetscScalar> d_val, d_x, d_y;
  std::vector<PetscScalar>            hx;
  std::vector<PetscInt>               rowptr, col;
  std::vector<int>                    rowptr32, col32;

  PetscFunctionBeginUser;
  row.name = name;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "no CSR");
  rowptr.assign(ia, ia + n + 1);
  col.assign(ja, ja + ia[n]);
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  row.n   = n;
  row.nnz = rowptr[n];
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  hx.resize(n);
  for (PetscInt i = 0; i < n; i++) hx[i] = std::sin(0.37 * (double)i) + 0.1;
  PetscCheck(row.nnz < 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %" PetscInt_FMT " entries do not fit the 32-bit cuSPARSE indices used here", name, row.nnz);
  rowptr32.assign(rowptr.begin(), rowptr.end());
  col32.assign(col.begin(), col.end());
  PetscCall(d_rowptr.upload(rowptr32.data(), n + 1));
  PetscCall(d_col.upload(col32.data(), row.nnz));
  PetscCall(d_val.upload(a, row.nnz));
  PetscCall(d_x.upload(hx.data(), n));
  PetscCall(d_y.resize(n));
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscCall(BenchCUSPARSE(A, n, row.nnz, d_rowptr.data(), d_col.data(), d_val.data(), d_x.data(), d_y.data(), hx, reps, s, row));
  PetscCall(BenchDILU(n, rowptr.data(), col.data(), a, d_val.data(), d_x.data(), d_y.data(), hx, false, reps, s, row));
  PetscCall(BenchDILU(n, rowptr.data(), col.data(), a, d_val.data(), d_x.data(), d_y.data(), hx, true, reps, s, row));
  for (PetscInt w : waves) {
    WaveResult res;
    PetscCall(BenchWave(n, rowptr.data(), col.data(), a, d_val.data(), d_x.data(), d_y.data(), hx, w, reps, s, row.name, res));
    row.waves.push_back(res);
  }
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  if (its) PetscCall(Iterations(A, symmetric, max_it, row));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  done %s: n %" PetscInt_FMT ", nnz %" PetscInt_FMT "\n", name, row.n, row.nnz));
  rows.push_back(row);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static std::string cmdline;

static PetscErrorCode Print(FILE *f, const std::vector<Row> &rows, PetscInt reps)
{
  char   dev[256], date[64];
  time_t now = time(NULL);

  PetscFunctionBeginUser;
  PetscCall(PGXDeviceGetName(dev, sizeof(dev)));
  strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\nPCDILU benchmark on %s, %s (FP64, medians of %" PetscInt_FMT " runs; times in ms)\ncommand: %s\n"
                                             "host solvers (PETSc ILU(0), Jacobi, the KSPs): 1 rank, 1 thread\n", dev, date, reps, cmdline.c_str()));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "nat = natural schedule (level sets; E per level from a CUDA graph), mc = multicolor; ana = analysis (wall, incl. host level sets / GPU coloring and pattern upload);\n"
                                             "num = numeric re-setup from device values; apply = both sweeps; /SpMV = apply / one cuSPARSE SpMV; ILU/x = cuSPARSE ILU(0) two-SpSV apply / PGX apply;\n"
                                             "natural apply = cuSPARSE SpSV on A with E on the diagonal; lvl-ap/lvl-dir = natural apply with one launch per level from a CUDA graph / direct;\n"
                                             "dir-ap = multicolor apply launched directly instead of from the CUDA graph; pdl-ap/pdl-dir = multicolor apply with each color a programmatic\n"
                                             "dependent launch of the previous (-pc_dilu_pdl), from the graph / direct; nat refresh (of num) = E into the SpSV matrix + cusparseSpSV_updateMatrix\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%-16s %9s %10s | %7s | %8s %7s | %5s %8s %7s %7s %6s %6s %7s %7s %7s %7s | %5s %8s %7s %7s %6s %6s %7s %7s %7s %7s | %8s\n", "problem", "n", "nnz", "SpMV", "ILU0set", "ILU0ap", "nlev", "ana", "num", "apply", "/SpMV", "num/Sp", "ILU/x", "lvl-ap", "lvl-dir", "refresh", "ncol", "ana", "num", "apply", "/SpMV", "num/Sp", "ILU/x", "dir-ap", "pdl-ap", "pdl-dir", "maxerr"));
  for (const Row &r : rows) {
    double err = std::max(std::max(r.err[0], r.err[1]), std::max(r.ilu_err, r.spmv_err));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%-16s %9" PetscInt_FMT " %10" PetscInt_FMT " | %7.4f | %8.3f %7.4f | %5" PetscInt_FMT " %8.2f %7.4f %7.4f %6.2f %6.2f %7.2f %7.4f %7.4f %7.4f | %5" PetscInt_FMT " %8.2f %7.4f %7.4f %6.2f %6.2f %7.2f %7.4f %7.4f %7.4f | %8.1e\n", r.name.c_str(), r.n, r.nnz, r.spmv, r.ilu_setup, r.ilu_apply, r.levels[0], r.analysis[0], r.numeric[0], r.apply[0], r.apply[0] / r.spmv, r.numeric[0] / r.spmv, r.ilu_apply / r.apply[0], r.apply_perlevel, r.apply_lvldir, r.refresh, r.levels[1], r.analysis[1], r.numeric[1], r.apply[1], r.apply[1] / r.spmv, r.numeric[1] / r.spmv, r.ilu_apply / r.apply[1], r.apply_direct, r.apply_pdl, r.apply_pdl_dir, err));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\nIterations to rtol 1e-8 (-1: not converged within max_it)\n%-16s %6s | %8s %8s %8s %8s | %8s\n", "problem", "KSP", "dilu-nat", "dilu-mc", "ilu0", "jacobi", "mc/nat"));
  for (const Row &r : rows) {
    if (r.its[0] == -1 && r.its[3] == -1 && !r.krylov[0]) continue;
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%-16s %6s | %8" PetscInt_FMT " %8" PetscInt_FMT " %8" PetscInt_FMT " %8" PetscInt_FMT " | %8.2f\n", r.name.c_str(), r.krylov, r.its[0], r.its[1], r.its[2], r.its[3], r.its[0] > 0 && r.its[1] > 0 ? (double)r.its[1] / r.its[0] : -1.0));
  }
  if (!waves.empty()) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\nMulticolor per color wave (-pc_dilu_color_wave; the table above: the default 8): colors, analysis (wall), apply (median), apply / SpMV,\n"
                                               "iterations to rtol 1e-8 with PCDILU multicolor (cuda; -1: not converged or -its 0), iterations x apply (ms, the sweeps' part of a solve)\n"
                                               "%-16s %5s | %5s %8s %8s %6s | %6s %9s | %8s\n", "problem", "wave", "ncol", "ana", "apply", "/SpMV", "its", "its*apply", "err"));
    for (const Row &r : rows)
      for (const WaveResult &w : r.waves) PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%-16s %5" PetscInt_FMT " | %5" PetscInt_FMT " %8.2f %8.4f %6.2f | %6" PetscInt_FMT " %9.3f | %8.1e\n", r.name.c_str(), w.wave, w.ncolors, w.analysis, w.apply, w.apply / r.spmv, w.its, w.its > 0 ? w.its * w.apply : -1.0, w.err));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\nTargets (issue 3): mc apply /SpMV <= 2 on 7-pt and 27-pt; nat ILU/x >= 5; num/Sp <= 10; dilu-nat == sequential DILU (== ilu0 on 7-pt); mc/nat <= 1.5\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "verification: %s\n", nverify_fail ? "FAILED (see VERIFY FAILED lines)" : "all answers verified"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt         m7 = 128, m27 = 100, maniso = 64, mconv = 64, reps = 50, max_it = 1000, nmat = 8;
  PetscBool        its = PETSC_TRUE, flg;
  char            *mats[8], out[PETSC_MAX_PATH_LEN] = "";
  std::vector<Row> rows;
  PetscBool        avail;

  for (int a = 0; a < argc; a++) cmdline += (a ? " " : "") + std::string(argv[a]);
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m7", &m7, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m27", &m27, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-maniso", &maniso, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mconv", &mconv, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-max_it", &max_it, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-its", &its, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-matrices", mats, &nmat, &flg));
  {
    PetscInt  w[16], nw = 16;
    PetscBool wflg;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-waves", w, &nw, &wflg));
    for (PetscInt k = 0; wflg && k < nw; k++) {
      PetscCheck(w[k] >= 1 && w[k] <= DILU_COLOR_WAVE_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-waves: color wave %" PetscInt_FMT " is not in [1, %d]", w[k], DILU_COLOR_WAVE_MAX);
      waves.push_back(w[k]);
    }
  }
  if (!flg) {
    nmat = 2;
    PetscCall(PetscStrallocpy("bcsstk16", &mats[0]));
    PetscCall(PetscStrallocpy("BentPipe2D100", &mats[1]));
  }
  PetscCall(PGXCUDAIsAvailable(&avail));
  PetscCheck(avail, PETSC_COMM_WORLD, PETSC_ERR_SUP_SYS, "bench_dilu needs the cuda backend and a GPU");
  reps = PetscMax(reps, 3);

  struct {
    const char *name;
    PetscInt    m;
    PetscBool   sym;
  } gen[4] = {
    {"poisson3d",   m7,     PETSC_TRUE },
    {"poisson3d27", m27,    PETSC_TRUE },
    {"aniso3d",     maniso, PETSC_TRUE },
    {"convdiff3d",  mconv,  PETSC_FALSE}
  };
  for (int g = 0; g < 4; g++) {
    Mat  A;
    char label[64];
    if (gen[g].m <= 0) continue;
    PetscCall(PetscSNPrintf(label, sizeof(label), "%s-%" PetscInt_FMT, gen[g].name, gen[g].m));
    PetscCall(DILUTestProblem(PETSC_COMM_SELF, gen[g].name, gen[g].m, &A));
    PetscCall(RunOne(label, A, gen[g].sym, reps, its, max_it, rows));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt k = 0; k < nmat; k++) {
    Mat       A;
    char      path[PETSC_MAX_PATH_LEN];
    PetscBool sym;
    PetscCall(DILUTestMatrixPath(mats[k], path, sizeof(path)));
    PetscCall(DILUTestLoadMM(PETSC_COMM_SELF, path, &A));
    PetscCall(MatIsSymmetric(A, 0.0, &sym));
    PetscCall(RunOne(mats[k], A, sym, reps, its, max_it, rows));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFree(mats[k]));
  }
  PetscCall(Print(stdout, rows, reps));
  if (out[0]) {
    FILE *f;
    PetscCall(PetscFOpen(PETSC_COMM_SELF, out, "w", &f));
    PetscCall(Print(f, rows, reps));
    PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  }
  PetscCall(PetscFinalize());
  return nverify_fail ? 1 : 0;
}
