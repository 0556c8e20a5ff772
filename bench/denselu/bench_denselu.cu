static const char help[] = "Dense LU benchmark (issue 14): PGX's dense LU (cuda backend; double and each mixed precision) against\n"
                           "cusolverDnDgetrf+getrs, cuSOLVER's refinement solvers (DXgesv = TF32, DHgesv, DBgesv) called directly,\n"
                           "and PETSc's LAPACK LU (dgetrf+dgetrs on the host), on a well-conditioned matrix (diagdom: random in\n"
                           "[-1,1) plus n on the diagonal) and a harder one (random).\n"
                           "Columns: n, matrix, solver, factor ms, GFLOP/s (2/3 n^3 over the factor time), solve ms (one right-hand\n"
                           "side; mixed: the refinement, and the FP64 factorization too when it falls back), backward error\n"
                           "||Ax-b||_inf/(||A||_inf ||x||_inf n eps), f/getrf = cuSOLVER getrf time / this factor time, tot/cus =\n"
                           "cuSOLVER getrf+getrs time / this factor+solve time (> 1: faster than cuSOLVER), refinement steps, notes.\n"
                           "PGX double is run for every configuration of the sweep (-blocks x -leaves x -lookahead x -coop); the mixed\n"
                           "precisions with -mixed_block and the first value of the other lists. The panel options (-priority x\n"
                           "-leafrows x -leafswaps) are swept for every precision, each configuration one row (notes: prio, rows, lsw).\n"
                           "Options: -sizes 1024,...  -matrices diagdom,random  -reps <3>  -blocks 0,128,256,512 (0: PGX's default)\n"
                           "  -leaves 32  -lookahead 0,1  -coop 1  -small <-1> (fused-path switch)  -onchip 1 (fused path kernel)  -precisions double,tf32,half,bf16 (and tf32x3)\n"
                           "  -petsc_precisions double (rows 'pgx <p> via PETSc', p in double,tf32,half,bf16,auto: MatLUFactorNumeric and MatSolve through PETSc from a host\n"
                           "  MATSEQDENSE, wall-clock: what a user's call costs; none: no such rows)\n"
                           "  -mixed_block <0>  -irs <1> (cuSOLVER X/H/Bgesv rows)  -lapack_nmax <0>  -time_limit <s> (skip the\n"
                           "  remaining sizes once exceeded)  -o <file>  -profile (per-phase ms of one more profiled factor and solve,\n"
                           "  as two '#' lines under each PGX row)  -priority 0,1 (panel on a greatest-priority stream)  -leafrows 0,1,2,4,8\n"
                           "  (rows per thread of the cooperative leaf; 0: default rule)  -leafswaps 0,1 (leaves swap the rest of the panel)\n"
                           "  -paths auto,blocked,cluster,fused,cusolver (-mat_pgx_lu_path, swept for every precision; default auto)  -cluster_max <0>\n"
                           "  -panels pgx,cusolver,auto (-mat_pgx_lu_panel: pivoted FP64 panels by PGX or cusolverDnDgetrf; default pgx)  -cusolver_max <0>  -panel_max <0>\n"
                           "  -la_sms 0,100,116 (-mat_pgx_lu_lookahead_sms: the look-ahead stream's SM count targets, swept)\n"
                           "  -pivotings partial,tournament (-mat_pgx_lu_pivoting of the mixed precisions, swept; double: partial)\n"
                           "  -nopivots auto,never,always (-mat_pgx_lu_nopivot, swept for every precision; default auto: no pivot search\n"
                           "  when A is strictly diagonally dominant by columns, as diagdom is; 'nopiv <mode>' in the row's name)\n"
                           "  -rbts 0,2 (-mat_pgx_lu_rbt: random butterfly depths, swept for every precision; 0 off; 'rbt <d>' in the row's name:\n"
                           "  U^T A V factored without pivoting, each solve refined against A in FP64, so the solve time includes the refinement)\n"
                           "  (-mat_pgx_lu_cluster_max: the largest n of the cluster path under auto)  -graph 0,1 (-mat_pgx_lu_graph: the\n"
                           "  factorization replayed from a CUDA graph: the two warm-ups run it directly and capture it)\n";
/* Timing: A is uploaded once; every timed factorization starts from a device-to-device copy of it (PGX:
   FactorDeviceInput, which also copies A into its factor array and checks A for NaN/Inf; cuSOLVER: the copy into
   its work array), so neither time includes a host-to-device copy. Medians of -reps runs after two warm-ups
   (cudaEvents on PGX's stream, host synchronizations inside the calls included). Backward errors are computed on
   the device (dgemv with the original A). */
#include <pgx.h>
#include <pgx/private/pgxcuda.h>
#include <petscblaslapack.h>
#include <petsctime.h>
#include <vector>
#include <algorithm>
#include <string>
#include <cmath>
#include <ctime>
#include "../../src/mat/impls/denselu/denselu_kernels.h"
#include "../../tests/denselu/denselu_matrices.h"
#include "../common/pgxbench.h"

namespace cu = pgx::kernels::denselu::cuda;
namespace dl = pgx::kernels::denselu;

typedef cusolverStatus_t (*IRSolver)(cusolverDnHandle_t, cusolver_int_t, cusolver_int_t, double *, cusolver_int_t, cusolver_int_t *, double *, cusolver_int_t, double *, cusolver_int_t, void *, size_t, cusolver_int_t *, cusolver_int_t *);
typedef cusolverStatus_t (*IRBuffer)(cusolverDnHandle_t, cusolver_int_t, cusolver_int_t, double *, cusolver_int_t, cusolver_int_t *, double *, cusolver_int_t, double *, cusolver_int_t, void *, size_t *);

static FILE *out = NULL;
static int   nwrong = 0; /* rows whose backward error is above DENSELU_BENCH_BE_MAX (marked WRONG; the bench then fails) */
#define DENSELU_BENCH_BE_MAX 10.0 /* the summary line writes it out as 10 (PETSc's %g would print "10.") */
static PetscBool profile = PETSC_FALSE; /* -profile: a profiled factorization and solve after each PGX row */

/* What one (n, matrix) group shares: A on the host and the device, b, ||A||_inf, cuSOLVER's times */
struct Problem {
  PetscInt            n;
  const char         *mat;
  std::vector<double> a, b;
  double              anorm = 0, cus_f = 0, cus_total = 0;
  double             *dA0 = nullptr, *dr = nullptr;
};

static PetscErrorCode Row(const Problem &P, const char *solver, double fms, double sms, double be, PetscInt its, const std::string &note)
{
  const double n = (double)P.n, gf = fms > 0 ? 2.0 / 3.0 * n * n * n / (fms * 1e6) : 0;
  const bool   wrong = !(be <= DENSELU_BENCH_BE_MAX); /* NaN too */
  PetscFunctionBegin;
  nwrong += wrong ? 1 : 0;
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, out, "%6d  %-8s  %-20s  %10.3f  %9.1f  %9.3f  %9.3g  %7.2f  %7.2f  %4d  %s%s\n", (int)P.n, P.mat, solver, fms, gf, sms, be, fms > 0 ? P.cus_f / fms : 0.0, fms + sms > 0 ? P.cus_total / (fms + sms) : 0.0, (int)its, wrong ? "WRONG (backward error above 10) " : "", note.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||b - A x||_inf / (||A||_inf ||x||_inf n eps) with the device copy of A; x on the host */
static PetscErrorCode BackwardError(Problem &P, const std::vector<double> &x, double *be)
{
  const int           n = (int)P.n;
  const double        mone = -1.0, one = 1.0;
  cublasHandle_t      h;
  cudaStream_t        s;
  std::vector<double> r(n);
  pgx::cuda::DeviceArray<double> dx;
  double              rmax = 0, xmax = 0;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(dx.upload(x.data(), n));
  PGXCallCUDA(cudaMemcpyAsync(P.dr, P.b.data(), n * sizeof(double), cudaMemcpyHostToDevice, s));
  PGXCallCUBLAS(cublasDgemv(h, CUBLAS_OP_N, n, n, &mone, P.dA0, n, dx.data(), 1, &one, P.dr, 1));
  PGXCallCUDA(cudaMemcpyAsync(r.data(), P.dr, n * sizeof(double), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  for (int i = 0; i < n; i++) rmax = PetscMax(rmax, std::fabs(r[i])), xmax = PetscMax(xmax, std::fabs(x[i]));
  *be = (P.anorm > 0 && xmax > 0) ? rmax / (P.anorm * xmax * n * PETSC_MACHINE_EPSILON) : (rmax > 0 ? INFINITY : 0);
  if (!std::isfinite(*be)) *be = INFINITY;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BenchCusolver(Problem &P, PetscInt reps, PetscBool irs)
{
  const int          n  = (int)P.n;
  const size_t       nn = (size_t)n * n;
  cusolverDnHandle_t sh;
  cudaStream_t       s;
  double            *dA, *dB, *dX, *dWork, fms, sms, be;
  int               *dPiv, *dInfo, lwork = 0, info = 0;
  std::vector<double> x(n);

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetCUSOLVER(&sh));
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMalloc((void **)&dA, nn * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&dB, n * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&dX, n * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&dPiv, n * sizeof(int)));
  PGXCallCUDA(cudaMalloc((void **)&dInfo, sizeof(int)));
  PGXCallCUSOLVER(cusolverDnDgetrf_bufferSize(sh, n, n, dA, n, &lwork));
  PGXCallCUDA(cudaMalloc((void **)&dWork, (size_t)PetscMax(lwork, 1) * sizeof(double)));
  PetscCall(PGXBenchMedian(reps, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PGXCallCUDA(cudaMemcpyAsync(dA, P.dA0, nn * sizeof(double), cudaMemcpyDeviceToDevice, s));
    PGXCallCUSOLVER(cusolverDnDgetrf(sh, n, n, dA, n, dWork, dPiv, dInfo));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, &fms));
  PetscCall(PGXBenchMedianPrep(reps, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PGXCallCUDA(cudaMemcpyAsync(dB, P.b.data(), n * sizeof(double), cudaMemcpyHostToDevice, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PGXCallCUSOLVER(cusolverDnDgetrs(sh, CUBLAS_OP_N, n, 1, dA, n, dPiv, dB, n, dInfo));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, &sms));
  PGXCallCUDA(cudaMemcpyAsync(x.data(), dB, n * sizeof(double), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaMemcpyAsync(&info, dInfo, sizeof(int), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  P.cus_f     = fms;
  P.cus_total = fms + sms;
  PetscCall(BackwardError(P, x, &be));
  PetscCall(Row(P, "cusolver getrf", fms, sms, be, 0, info ? "info " + std::to_string(info) : ""));
  PGXCallCUDA(cudaFree(dWork));

  /* cuSOLVER's refinement solvers: factor and solve in one call (reported in the factor column) */
  if (irs) {
    const char *names[] = {"cusolver DXgesv", "cusolver DHgesv", "cusolver DBgesv"};
    IRSolver    f[]     = {cusolverDnDXgesv, cusolverDnDHgesv, cusolverDnDBgesv};
    IRBuffer    fb[]    = {cusolverDnDXgesv_bufferSize, cusolverDnDHgesv_bufferSize, cusolverDnDBgesv_bufferSize};
    for (int q = 0; q < 3; q++) {
      size_t bytes = 0;
      void  *dW;
      int    iter  = 0;
      PGXCallCUSOLVER(fb[q](sh, n, 1, dA, n, dPiv, dB, n, dX, n, NULL, &bytes));
      PGXCallCUDA(cudaMalloc(&dW, PetscMax(bytes, (size_t)1)));
      PetscCall(PGXBenchMedianPrep(reps, [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        PGXCallCUDA(cudaMemcpyAsync(dB, P.b.data(), n * sizeof(double), cudaMemcpyHostToDevice, s));
        PetscFunctionReturn(PETSC_SUCCESS);
      }, [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        PGXCallCUDA(cudaMemcpyAsync(dA, P.dA0, nn * sizeof(double), cudaMemcpyDeviceToDevice, s));
        PGXCallCUSOLVER(f[q](sh, n, 1, dA, n, dPiv, dB, n, dX, n, dW, bytes, &iter, dInfo));
        PetscFunctionReturn(PETSC_SUCCESS);
      }, &fms));
      PGXCallCUDA(cudaMemcpyAsync(x.data(), dX, n * sizeof(double), cudaMemcpyDeviceToHost, s));
      PGXCallCUDA(cudaStreamSynchronize(s));
      PetscCall(BackwardError(P, x, &be));
      PetscCall(Row(P, names[q], fms, 0, be, iter, iter < 0 ? "fell back to FP64" : ""));
      PGXCallCUDA(cudaFree(dW));
    }
  }
  PGXCallCUDA(cudaFree(dA));
  PGXCallCUDA(cudaFree(dB));
  PGXCallCUDA(cudaFree(dX));
  PGXCallCUDA(cudaFree(dPiv));
  PGXCallCUDA(cudaFree(dInfo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

enum { RBT_SWEEP = 5 };
static dl::Panel g_lowpanel = dl::PANEL_CUSOLVER; /* -low_panel_cusolver (default true, as MATSOLVERPGX's -mat_pgx_lu_low_panel_cusolver): SetLowPanel */
static PetscBool g_onchip = PETSC_TRUE; /* -onchip: SetFusedOnChip (the fused path's kernel) */
static dl::RefineOptions g_ropt = dl::RefineOptionsDefault(); /* -refine_steps, -gmres_m, -gmres_rtol, -gmres_stall, -gmres_stall_rho, -refine_monitor */

struct Config {
  PetscInt  nb, leaf, small;
  PetscBool lookahead, coop;
  PetscBool priority;  /* -priority: SetPanelOptions */
  PetscInt  leafrows;  /* -leafrows */
  PetscBool leafswaps; /* -leafswaps */
  dl::Path  path;       /* -paths */
  PetscInt  clustermax; /* -cluster_max */
  PetscBool graph;      /* -graph */
  PetscInt  lasms;      /* -la_sms: SetLookAheadSMs */
  dl::Pivoting pivoting = dl::PIVOTING_PARTIAL; /* -pivotings (mixed precisions): SetPivoting */
  dl::NoPivot  nopiv    = dl::NOPIVOT_AUTO;     /* -nopivots: SetNoPivot */
  PetscInt     rbt      = 0;                    /* -rbts: SetRbt (depth; 0 off) */
  PetscBool    leftstream = PETSC_TRUE;         /* -leftstream: SetLeftSwapStream */
  PetscBool    swapplan   = PETSC_TRUE;         /* -swapplan: SetSwapPlan */
  PetscInt     trsmleaf   = 64;                 /* -trsm_leaf: SetTrsmLeaf */
  PetscInt     trsv       = 2;                  /* -trsv: SetTrsv */
  PetscBool    trsvtrace  = PETSC_FALSE;        /* -trsv_trace: TrsvTrace after the row */
  dl::Panel    panel      = dl::PANEL_PGX;      /* -panels: SetPanel */
  PetscInt     wholemax = 0, panelmax = 0;      /* -cusolver_max, -panel_max: SetPanel (auto) */
};

static PetscErrorCode BenchPGX(Problem &P, PetscInt reps, dl::Precision prec, const char *name, const Config &cf)
{
  const int                      n = (int)P.n;
  cu::Data                      *d;
  PetscInt                       zc = -1, its = 0, w, nc, nbl;
  PetscBool                      finite = PETSC_TRUE;
  dl::RefineResult               rr;
  double                         fms, sms, be;
  std::vector<double>            x(n);
  pgx::cuda::DeviceArray<double> db;
  cudaStream_t                   s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(db.resize(n));
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetPrecision(d, prec));
  PetscCall(cu::SetBlockSize(d, cf.nb));
  PetscCall(cu::SetSmallSize(d, cf.small));
  PetscCall(cu::SetLookAhead(d, cf.lookahead));
  PetscCall(cu::SetLeaf(d, cf.leaf, cf.coop));
  PetscCall(cu::SetFusedOnChip(d, g_onchip));
  PetscCall(cu::SetPanelOptions(d, cf.priority, cf.leafrows, cf.leafswaps));
  PetscCall(cu::SetLeftSwapStream(d, cf.leftstream));
  PetscCall(cu::SetPath(d, cf.path, cf.clustermax));
  PetscCall(cu::SetGraph(d, cf.graph));
  PetscCall(cu::SetLookAheadSMs(d, cf.lasms));
  PetscCall(cu::SetSwapPlan(d, cf.swapplan));
  PetscCall(cu::SetTrsmLeaf(d, cf.trsmleaf));
  PetscCall(cu::SetTrsv(d, cf.trsv));
  PetscCall(cu::SetPivoting(d, cf.pivoting));
  PetscCall(cu::SetNoPivot(d, cf.nopiv));
  PetscCall(cu::SetRbt(d, cf.rbt, 2013));
  PetscCall(cu::SetPanel(d, cf.panel, cf.wholemax, cf.panelmax));
  PetscCall(cu::SetLowPanel(d, g_lowpanel));
  PetscCall(cu::SetRefineOptions(d, &g_ropt));
  PetscCall(PGXBenchMedian(reps, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PetscCall(cu::FactorDeviceInput(d, n, P.dA0, n, &zc, &finite));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, &fms));
  /* mixed: a solve after a fresh factorization each time (a fallback replaces the low-precision factors) */
  PetscCall(PGXBenchMedianPrep(reps, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    if (prec != dl::PRECISION_DOUBLE || cf.rbt) PetscCall(cu::FactorDeviceInput(d, n, P.dA0, n, &zc, &finite));
    PGXCallCUDA(cudaMemcpyAsync(db.data(), P.b.data(), n * sizeof(double), cudaMemcpyHostToDevice, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PetscCall(cu::Solve(d, PETSC_FALSE, 1, db.data(), n, &rr));
    its = rr.steps;
    PetscFunctionReturn(PETSC_SUCCESS);
  }, &sms));
  PGXCallCUDA(cudaMemcpyAsync(x.data(), db.data(), n * sizeof(double), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscCall(BackwardError(P, x, &be));
  const char *path;
  PetscInt    nb;
  PetscCall(cu::GetInfo(d, &path, &nb, NULL));
  PetscCall(cu::GetLeafInfo(d, &w, &nc, &nbl));
  std::string note = std::string(path) + " nb " + std::to_string((long long)nb);
  if (std::string(path).compare(0, 5, "fused") != 0) {
    PetscInt ru;
    PetscCall(cu::GetLeafRowsUsed(d, &ru));
    note += " leaf " + std::to_string((long long)w) + " (" + std::to_string((long long)nc) + " coop, " + std::to_string((long long)nbl) + " 1-block)";
    PetscInt ncl, gmax;
    PetscCall(cu::GetClusterInfo(d, &ncl, &gmax));
    if (ncl) note += " " + std::to_string((long long)ncl) + " cluster leaves (<= " + std::to_string((long long)gmax) + " blocks)";
    PetscInt ncs;
    PetscCall(cu::GetPanelInfo(d, &ncs));
    if (ncs) note += " " + std::to_string((long long)ncs) + " cusolver panels";
    if (cf.graph) {
      PetscBool replayed;
      PetscCall(cu::GetGraphInfo(d, NULL, &replayed));
      note += replayed ? " graph replayed" : " graph not replayed";
    }
    if (cf.lasms) note += " la_sms " + std::to_string((long long)cf.lasms);
    if (cf.lookahead && !cf.leftstream) note += " left swaps on s";
    if (!cf.swapplan) note += " plan per block";
    if (cf.trsmleaf != 64) note += " trsm leaf " + std::to_string((long long)cf.trsmleaf);
    note += " prio " + std::to_string((int)cf.priority) + " rows " + std::to_string((long long)cf.leafrows) + " (used " + std::to_string((long long)ru) + ") lsw " + std::to_string((int)cf.leafswaps);
  }
  if (prec != dl::PRECISION_DOUBLE) {
    PetscInt nt;
    PetscCall(cu::GetTournamentInfo(d, &nt));
    note += cf.pivoting == dl::PIVOTING_TOURNAMENT ? " pivoting tournament (" + std::to_string((long long)nt) + " leaves)" : std::string(" pivoting partial");
  }
  if (cf.rbt) {
    PetscBool used;
    PetscInt  nbroke;
    PetscCall(cu::GetRbtInfo(d, &used, &nbroke));
    note += std::string(", rbt ") + std::to_string((long long)cf.rbt) + (used ? " (U^T A V without pivoting)" : " (not transformed)") + (nbroke ? ", " + std::to_string((long long)nbroke) + " breakdowns" : "");
  }
  if (prec != dl::PRECISION_DOUBLE || cf.rbt) note += std::string(", ") + rr.stop + (rr.gmres_steps ? ", " + std::to_string((long long)rr.gmres_steps) + " GMRES-IR steps " + std::to_string((long long)rr.gmres_its) + " its" : "") + (rr.fellback ? ", fell back to FP64" : "");
  {
    PetscBool used;
    PetscInt  nfail;
    PetscCall(cu::GetNoPivotInfo(d, &used, &nfail));
    if (nfail) note += ", " + std::to_string((long long)nfail) + " attempts without pivoting refactored with pivoting";
  }
  if (cf.trsv != 2) note += cf.trsv ? ", 1-column solves: tiles by substitution" : ", 1-column solves by cublas<t>trsm";
  if (zc >= 0 || !finite) note += ", zero pivot or non-finite";
  PetscCall(Row(P, name, fms, sms, be, its, note));
  if (cf.trsvtrace && cf.trsv && prec == dl::PRECISION_DOUBLE) { /* where the kernel's time goes, per triangle */
    int khz = 0, dev = 0;
    PGXCallCUDA(cudaGetDevice(&dev));
    PGXCallCUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    for (PetscInt which = 0; which < 4; which++) {
      std::vector<long long> t;
      PetscCall(cu::TrsvTrace(d, which, &t));
      const size_t nb = t.size() / 4;
      std::vector<double> step, crit, wait;
      for (size_t r = 0; r < nb; r++) {
        crit.push_back((double)t[4 * r + 1] * 1e6 / khz);
        wait.push_back((double)t[4 * r] * 1e6 / khz);
        if (r) step.push_back((double)(t[4 * r + 2] - t[4 * (r - 1) + 2]));
      }
      auto q = [](std::vector<double> v, double f) { if (v.empty()) return 0.0; std::sort(v.begin(), v.end()); return v[(size_t)(f * (v.size() - 1))]; };
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, out, "#   trsv %s: %d blocks, flags span %.1f us; step ns p10/50/90 %.0f/%.0f/%.0f; after the last chunk ns p50/90 %.0f/%.0f; prologue us of block 0/16/last %.2f/%.2f/%.2f\n", which == 0 ? "L" : which == 1 ? "U" : which == 2 ? "U^T" : "L^T", (int)nb, nb ? (t[4 * (nb - 1) + 2] - t[2]) * 1e-3 : 0.0, q(step, 0.1), q(step, 0.5), q(step, 0.9), q(crit, 0.5), q(crit, 0.9), nb ? wait[0] * 1e-3 : 0.0, nb > 16 ? wait[16] * 1e-3 : 0.0, nb ? wait[nb - 1] * 1e-3 : 0.0));
    }
  }
  if (profile) { /* one more factorization and solve, profiled (the events cost time: not in the timed runs above) */
    dl::Profile    pr;
    PetscLogDouble t0, t1;
    dl::ProfileClear(&pr);
    PetscCall(cu::SetProfile(d, &pr));
    PetscCall(PetscTime(&t0));
    PetscCall(cu::FactorDeviceInput(d, n, P.dA0, n, &zc, &finite));
    PetscCall(PetscTime(&t1));
    pr.wall[dl::PROFILE_FACTOR] = (t1 - t0) * 1e3;
    PGXCallCUDA(cudaMemcpyAsync(db.data(), P.b.data(), n * sizeof(double), cudaMemcpyHostToDevice, s));
    PGXCallCUDA(cudaStreamSynchronize(s));
    PetscCall(PetscTime(&t0));
    PetscCall(cu::Solve(d, PETSC_FALSE, 1, db.data(), n, &rr));
    PGXCallCUDA(cudaStreamSynchronize(s));
    PetscCall(PetscTime(&t1));
    pr.wall[dl::PROFILE_SOLVE] = (t1 - t0) * 1e3;
    PetscCall(cu::SetProfile(d, NULL));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, out, "#   %s\n#   %s\n", dl::ProfileFormat(&pr, dl::PROFILE_FACTOR, PETSC_FALSE).c_str(), dl::ProfileFormat(&pr, dl::PROFILE_SOLVE, PETSC_FALSE).c_str()));
  }
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PGX as a PETSc user calls it (-petsc_precisions): MATSOLVERPGX on a host MATSEQDENSE with -pgx_device cuda and
   the library's default options; factor ms = MatLUFactorNumeric() (the NaN/Inf check, the upload of A, the
   factorization), solve ms = MatSolve() of one right-hand side (its copies; mixed: the refinement, after a fresh
   factorization each time as in the rows above). The gap to the 'pgx <precision>' row, which starts from a device
   copy of A, is what the host side adds. */
static PetscErrorCode BenchPETSc(Problem &P, PetscInt reps, const std::string &pr)
{
  const PetscInt      n = P.n;
  Mat                 A, F;
  Vec                 b, x;
  MatFactorInfo       info;
  PetscScalar        *aa;
  const PetscScalar  *xa;
  double              fms, sms, be;
  std::vector<double> xh(n);

  PetscFunctionBegin;
  PetscCall(PGXInitializePackage());
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, NULL, &A));
  PetscCall(MatDenseGetArrayWrite(A, &aa));
  PetscCall(PetscArraycpy(aa, P.a.data(), (size_t)n * n));
  PetscCall(MatDenseRestoreArrayWrite(A, &aa));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecGetArrayWrite(b, &aa));
  PetscCall(PetscArraycpy(aa, P.b.data(), n));
  PetscCall(VecRestoreArrayWrite(b, &aa));
  PetscCall(PetscOptionsSetValue(NULL, "-pgx_device", "cuda"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_pgx_lu_precision", pr.c_str()));
  PetscCall(PGXMatGetFactor(A, MATSOLVERPGX, MAT_FACTOR_LU, &F));
  PetscCall(MatFactorInfoInitialize(&info));
  PetscCall(MatLUFactorSymbolic(F, A, NULL, NULL, &info));
  PetscCall(PetscOptionsClearValue(NULL, "-pgx_device"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_pgx_lu_precision"));
  PetscCall(PGXBenchWallMedianPrep(reps, nullptr, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PetscCall(MatLUFactorNumeric(F, A, &info));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, &fms));
  PetscCall(PGXBenchWallMedianPrep(reps, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    if (pr != "double") PetscCall(MatLUFactorNumeric(F, A, &info));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PetscCall(MatSolve(F, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, &sms));
  PetscCall(VecGetArrayRead(x, &xa));
  for (PetscInt i = 0; i < n; i++) xh[i] = PetscRealPart(xa[i]);
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(BackwardError(P, xh, &be));
  PetscCall(Row(P, ("pgx " + pr + " via PETSc").c_str(), fms, sms, be, 0, "MatLUFactorNumeric of a host MATSEQDENSE (check, upload, factor); MatSolve (copies, solve)"));
  PetscCall(MatDestroy(&F));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BenchLapack(Problem &P)
{
  const PetscInt            n = P.n;
  std::vector<double>       lu = P.a, x = P.b;
  std::vector<PetscBLASInt> piv(n);
  PetscBLASInt              bn, info, one = 1;
  PetscLogDouble            t0, t1, t2;
  double                    be;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscTime(&t0));
  LAPACKgetrf_(&bn, &bn, lu.data(), &bn, piv.data(), &info);
  PetscCall(PetscTime(&t1));
  LAPACKgetrs_("N", &bn, &one, lu.data(), &bn, piv.data(), x.data(), &bn, &info);
  PetscCall(PetscTime(&t2));
  PetscCall(BackwardError(P, x, &be));
  PetscCall(Row(P, "petsc lapack", (t1 - t0) * 1e3, (t2 - t1) * 1e3, be, 0, "host"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* comma-separated words of a string option */
static std::vector<std::string> Split(const char *list)
{
  std::vector<std::string> w;
  std::string              m(list);
  size_t                   p = 0;
  while (p <= m.size()) {
    size_t q = m.find(',', p);
    std::string one = m.substr(p, q == std::string::npos ? std::string::npos : q - p);
    if (!one.empty()) w.push_back(one);
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return w;
}

/* An integer-array option that keeps its default when absent (PETSc sets the count to 0 then); room: the array's size */
static PetscErrorCode IntArrayOption(PGXOptionItems PetscOptionsObject, const char name[], const char text[], PetscInt a[], PetscInt room, PetscInt *n)
{
  PetscInt  def = *n;
  PetscBool set;

  PetscFunctionBegin;
  *n = room;
  PetscCall(PetscOptionsIntArray(name, text, NULL, a, n, &set));
  if (!set) *n = def;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  sizes[16] = {1024, 2048, 4096, 8192, 16384}, nsizes = 5, reps = 3, lapack_nmax = 0, small = -1, mixed_block = 0;
  PetscInt  blocks[16] = {0, 128, 256, 512}, nblocks = 4, leaves[8] = {32}, nleaves = 1, las[2] = {0, 1}, nlas = 2, coops[2] = {1}, ncoops = 1;
  PetscInt  clustermax = 0, graphs[2] = {0}, ngraphs = 1, lasmsv[8] = {0}, nlasms = 1, splans[2] = {1}, nsplans = 1, tleaves[8] = {64}, ntleaves = 1, trsvs[3] = {2}, ntrsvs = 1;
  PetscBool trsvtrace = PETSC_FALSE;
  PetscInt  prios[2] = {1}, nprios = 1, lrows[5] = {0}, nlrows = 1, lswaps[2] = {1}, nlswaps = 1, lstreams[2] = {1}, nlstreams = 1; /* the library defaults */
  PetscReal time_limit = 0;
  char      pivs[128] = "partial", paths[128] = "auto", mats[128] = "diagdom,random", precs[128] = "double,tf32,half,bf16", fname[PETSC_MAX_PATH_LEN] = "";
  char      pprecs[128] = "double", nopivs[128] = "auto", panels[128] = "pgx";
  PetscInt  rbts[RBT_SWEEP] = {0}, nrbts = 1;
  PetscInt  wholemax = 0, panelmax = 0;
  PetscBool flg, irs = PETSC_TRUE;
  PetscLogDouble tstart, tnow;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_denselu options", NULL);
  PetscCall(IntArrayOption(PetscOptionsObject, "-sizes", "matrix orders", sizes, 16, &nsizes));
  PetscCall(PetscOptionsInt("-reps", "timed repetitions (median)", NULL, reps, &reps, NULL));
  PetscCall(IntArrayOption(PetscOptionsObject, "-blocks", "PGX double: block sizes to sweep (0: PGX's default)", blocks, 16, &nblocks));
  PetscCall(IntArrayOption(PetscOptionsObject, "-leaves", "PGX double: leaf widths to sweep (1..32)", leaves, 8, &nleaves));
  PetscCall(IntArrayOption(PetscOptionsObject, "-lookahead", "PGX double: look-ahead off (0) / on (1) to sweep", las, 2, &nlas));
  PetscCall(IntArrayOption(PetscOptionsObject, "-coop", "PGX double: cooperative leaf kernel off (0) / on (1) to sweep", coops, 2, &ncoops));
  PetscCall(IntArrayOption(PetscOptionsObject, "-priority", "PGX: panel on a private greatest-priority stream off (0) / on (1) to sweep", prios, 2, &nprios));
  PetscCall(IntArrayOption(PetscOptionsObject, "-leafrows", "PGX: rows per thread of the cooperative leaf to sweep (0: default rule; 1, 2, 4, 8)", lrows, 5, &nlrows));
  PetscCall(IntArrayOption(PetscOptionsObject, "-leafswaps", "PGX: leaves swap the rest of their panel off (0) / on (1) to sweep", lswaps, 2, &nlswaps));
  PetscCall(IntArrayOption(PetscOptionsObject, "-leftstream", "PGX look-ahead: left swaps on their own stream (1) or on the panel's (0) to sweep", lstreams, 2, &nlstreams));
  PetscCall(PetscOptionsString("-paths", "PGX: paths to sweep (auto, fused, blocked, cluster, cusolver: -mat_pgx_lu_path)", NULL, paths, paths, sizeof(paths), NULL));
  PetscCall(PetscOptionsString("-panels", "PGX: who factors the pivoted FP64 panels, to sweep (pgx, cusolver, auto: -mat_pgx_lu_panel; rows other than pgx are named 'csp' and 'psel')", NULL, panels, panels, sizeof(panels), NULL));
  PetscCall(PetscOptionsInt("-cusolver_max", "PGX, panel auto: largest n of the whole matrix by cusolverDnDgetrf (-mat_pgx_lu_cusolver_max)", NULL, wholemax, &wholemax, NULL));
  PetscCall(PetscOptionsInt("-panel_max", "PGX, panel auto: largest n of cuSOLVER's panels (-mat_pgx_lu_panel_max)", NULL, panelmax, &panelmax, NULL));
  PetscCall(PetscOptionsInt("-cluster_max", "PGX: largest n of the cluster path under auto (-mat_pgx_lu_cluster_max; 0: never)", NULL, clustermax, &clustermax, NULL));
  PetscCall(IntArrayOption(PetscOptionsObject, "-trsm_leaf", "PGX FP64: U-row solves split by halves down to this many rows, to sweep (64: the default; 0: one cublasDtrsm)", tleaves, 8, &ntleaves));
  PetscCall(IntArrayOption(PetscOptionsObject, "-trsv", "PGX: one-column solves to sweep (SetTrsv): PGX's kernel with inverted diagonal tiles (2, the default) or substitution (1), cublas<t>trsm (0)", trsvs, 3, &ntrsvs));
  PetscCall(PetscOptionsBool("-trsv_trace", "PGX FP64 rows with the one-column kernel: a line per triangle of per-block timings (TrsvTrace)", NULL, trsvtrace, &trsvtrace, NULL));
  PetscCall(IntArrayOption(PetscOptionsObject, "-swapplan", "PGX: each panel's swap plan made once (1) or in every swap block (0) to sweep", splans, 2, &nsplans));
  PetscCall(IntArrayOption(PetscOptionsObject, "-la_sms", "PGX: SM count targets of the look-ahead stream to sweep (-mat_pgx_lu_lookahead_sms; 0: all)", lasmsv, 8, &nlasms));
  PetscCall(PetscOptionsString("-pivotings", "PGX mixed precisions: pivotings to sweep (partial, tournament: -mat_pgx_lu_pivoting)", NULL, pivs, pivs, sizeof(pivs), NULL));
  PetscCall(IntArrayOption(PetscOptionsObject, "-rbts", "PGX: random butterfly depths to sweep (-mat_pgx_lu_rbt; 0: off; rows other than 0 are named 'rbt <depth>')", rbts, RBT_SWEEP, &nrbts));
  PetscCall(PetscOptionsString("-nopivots", "PGX: -mat_pgx_lu_nopivot modes to sweep (auto, never, always; rows other than auto are named 'nopiv <mode>')", NULL, nopivs, nopivs, sizeof(nopivs), NULL));
  PetscCall(IntArrayOption(PetscOptionsObject, "-graph", "PGX: factorization replayed from a CUDA graph off (0) / on (1) to sweep", graphs, 2, &ngraphs));
  PetscCall(PetscOptionsBool("-onchip", "PGX: the fused path by OnChipLUKernel where it fits (SetFusedOnChip)", NULL, g_onchip, &g_onchip, NULL));
  PetscCall(PetscOptionsInt("-small", "PGX: largest n of the fused path (-1: default)", NULL, small, &small, NULL));
  PetscCall(PetscOptionsString("-precisions", "PGX precisions: double,tf32,half,bf16,tf32x3", NULL, precs, precs, sizeof(precs), NULL));
  PetscCall(PetscOptionsString("-petsc_precisions", "PGX through PETSc (MatLUFactorNumeric/MatSolve of a host MATSEQDENSE): precisions of these rows (none: no rows)", NULL, pprecs, pprecs, sizeof(pprecs), NULL));
  PetscCall(PetscOptionsInt("-mixed_block", "PGX mixed precisions: block size (0: default)", NULL, mixed_block, &mixed_block, NULL));
  PetscCall(PetscOptionsBool("-irs", "cuSOLVER's DXgesv, DHgesv, DBgesv rows", NULL, irs, &irs, NULL));
  PetscCall(PetscOptionsInt("-lapack_nmax", "largest n for PETSc's LAPACK LU on the host (0: none)", NULL, lapack_nmax, &lapack_nmax, NULL));
  PetscCall(PetscOptionsString("-matrices", "diagdom (well-conditioned), random (harder)", NULL, mats, mats, sizeof(mats), NULL));
  PetscCall(PetscOptionsBool("-profile", "after each PGX row, a profiled factorization and solve: per-phase times (ms) on a line under it", NULL, profile, &profile, NULL));
  PetscCall(PetscOptionsReal("-time_limit", "seconds: sizes not started by then are skipped (0: no limit)", NULL, time_limit, &time_limit, NULL));
  PetscCall(PetscOptionsString("-o", "also write the table to this file", NULL, fname, fname, sizeof(fname), &flg));
  PetscCall(PetscOptionsInt("-refine_steps", "PGX mixed precisions: refinement steps at most (-mat_pgx_lu_refine_steps)", NULL, g_ropt.maxsteps, &g_ropt.maxsteps, NULL));
  PetscCall(PetscOptionsInt("-gmres_m", "PGX mixed precisions: GMRES iterations at most in one GMRES-IR step (-mat_pgx_lu_gmres_restart)", NULL, g_ropt.gmres_m, &g_ropt.gmres_m, NULL));
  PetscCall(PetscOptionsReal("-gmres_rtol", "PGX mixed precisions: relative residual ending one GMRES-IR step (-mat_pgx_lu_gmres_rtol)", NULL, g_ropt.gmres_rtol, &g_ropt.gmres_rtol, NULL));
  PetscCall(PetscOptionsReal("-gmres_margin", "PGX mixed precisions: GMRES-IR's tolerance as this times the reduction still needed (-mat_pgx_lu_gmres_margin; 0: -gmres_rtol alone)", NULL, g_ropt.gmres_margin, &g_ropt.gmres_margin, NULL));
  PetscCall(PetscOptionsInt("-gmres_stall", "PGX mixed precisions: the stall rule's window (-mat_pgx_lu_gmres_stall; 0: off)", NULL, g_ropt.gmres_stall, &g_ropt.gmres_stall, NULL));
  PetscCall(PetscOptionsReal("-gmres_stall_rho", "PGX mixed precisions: the stall rule's factor (-mat_pgx_lu_gmres_stall_rho)", NULL, g_ropt.gmres_stall_rho, &g_ropt.gmres_stall_rho, NULL));
  PetscCall(PetscOptionsBool("-gmres_recycle", "PGX mixed precisions: later GMRES-IR steps recycle the first one's Krylov space (-mat_pgx_lu_gmres_recycle)", NULL, g_ropt.gmres_recycle, &g_ropt.gmres_recycle, NULL));
  {
    PetscBool lpc = PETSC_TRUE;
    PetscCall(PetscOptionsBool("-low_panel_cusolver", "PGX mixed precisions: pivoted FP32 panels by cusolverDnSgetrf (SetLowPanel; 0: PGX's, as -mat_pgx_lu_low_panel_cusolver 0)", NULL, lpc, &lpc, NULL));
    g_lowpanel = lpc ? dl::PANEL_CUSOLVER : dl::PANEL_PGX;
  }
  PetscCall(PetscOptionsBool("-refine_monitor", "PGX mixed precisions: print the refinement's steps and GMRES iterations (-mat_pgx_lu_refine_monitor)", NULL, g_ropt.monitor, &g_ropt.monitor, NULL));
  PetscOptionsEnd();
  PetscCall(PetscTime(&tstart));
  out = PETSC_STDOUT;
  if (fname[0]) PetscCall(PetscFOpen(PETSC_COMM_SELF, fname, "w", &out));
  {
    char        name[256], date[64];
    std::string cmd;
    time_t      t = time(NULL);
    PetscCall(PGXDeviceGetName(name, sizeof(name)));
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    for (int i = 0; i < argc; i++) cmd += std::string(i ? " " : "") + argv[i];
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, out, "# bench_denselu on %s\n# date: %s\n# command: %s\n", name, date, cmd.c_str()));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, out, "#    n  matrix    solver                 factor ms    GFLOP/s   solve ms   backward  f/getrf  tot/cus   its  notes\n"));
  const std::vector<std::string> matlist = Split(mats), preclist = Split(precs), pathlist = Split(paths);
  std::vector<dl::Path>          pathv;
  for (const std::string &w : pathlist) {
    const dl::Path pv = w == "auto" ? dl::PATH_AUTO : w == "fused" ? dl::PATH_FUSED : w == "blocked" ? dl::PATH_BLOCKED : w == "cluster" ? dl::PATH_CLUSTER : w == "cusolver" ? dl::PATH_CUSOLVER : (dl::Path)-1;
    PetscCheck(pv != (dl::Path)-1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-paths: unknown %s (auto, fused, blocked, cluster, cusolver)", w.c_str());
    pathv.push_back(pv);
  }
  std::vector<dl::Panel> panelv;
  for (const std::string &w : Split(panels)) {
    PetscCheck(w == "pgx" || w == "cusolver" || w == "auto", PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-panels: unknown %s (pgx, cusolver, auto)", w.c_str());
    panelv.push_back(w == "pgx" ? dl::PANEL_PGX : w == "cusolver" ? dl::PANEL_CUSOLVER : dl::PANEL_AUTO);
  }
  std::vector<dl::Pivoting> pivv;
  for (const std::string &w : Split(pivs)) {
    PetscCheck(w == "partial" || w == "tournament", PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-pivotings: unknown %s (partial, tournament)", w.c_str());
    pivv.push_back(w == "partial" ? dl::PIVOTING_PARTIAL : dl::PIVOTING_TOURNAMENT);
  }
  std::vector<dl::NoPivot> npv;
  for (const std::string &w : Split(nopivs)) {
    PetscCheck(w == "auto" || w == "never" || w == "always", PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-nopivots: unknown %s (auto, never, always)", w.c_str());
    npv.push_back(w == "auto" ? dl::NOPIVOT_AUTO : w == "never" ? dl::NOPIVOT_NEVER : dl::NOPIVOT_ALWAYS);
  }
  for (PetscInt i = 0; i < nsizes; i++) {
    PetscCall(PetscTime(&tnow));
    if (time_limit > 0 && tnow - tstart > time_limit) {
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, out, "# time limit %g s reached: sizes from %d on skipped\n", (double)time_limit, (int)sizes[i]));
      break;
    }
    for (const std::string &mat : matlist) {
      Problem      P;
      cudaStream_t s;
      const size_t nn = (size_t)sizes[i] * sizes[i];
      P.n   = sizes[i];
      P.mat = mat.c_str();
      P.a.resize(nn);
      P.b.resize(P.n);
      DenseLUSeed(777 + P.n);
      PetscCall(DenseLUMatrix(P.mat, P.n, 0, P.a.data()));
      for (auto &v : P.b) v = DenseLURand();
      {
        std::vector<double> rs(P.n, 0.0);
        for (PetscInt j = 0; j < P.n; j++)
          for (PetscInt r = 0; r < P.n; r++) rs[r] += std::fabs(P.a[r + (size_t)j * P.n]);
        for (double v : rs) P.anorm = PetscMax(P.anorm, v);
      }
      PetscCall(PGXCUDAGetStream(&s));
      PGXCallCUDA(cudaMalloc((void **)&P.dA0, nn * sizeof(double)));
      PGXCallCUDA(cudaMalloc((void **)&P.dr, P.n * sizeof(double)));
      PGXCallCUDA(cudaMemcpyAsync(P.dA0, P.a.data(), nn * sizeof(double), cudaMemcpyHostToDevice, s));
      PGXCallCUDA(cudaStreamSynchronize(s));
      PetscCall(BenchCusolver(P, reps, irs));
      for (const std::string &pr : preclist) {
        dl::Precision prec = pr == "double" ? dl::PRECISION_DOUBLE : pr == "tf32" ? dl::PRECISION_TF32 : pr == "half" ? dl::PRECISION_HALF : pr == "bf16" ? dl::PRECISION_BF16 : pr == "tf32x3" ? dl::PRECISION_TF32X3 : dl::PRECISION_AUTO;
        PetscCheck(prec != dl::PRECISION_AUTO, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-precisions: unknown %s", pr.c_str());
        for (const dl::NoPivot np : npv)
        for (PetscInt irb = 0; irb < nrbts; irb++)
        for (const dl::Path pth : pathv)
        for (const dl::Panel pnl : panelv)
        for (PetscInt ig = 0; ig < ngraphs; ig++) {
        const PetscBool   gr = graphs[ig] ? PETSC_TRUE : PETSC_FALSE;
        const std::string name = "pgx " + pr + (pth == dl::PATH_AUTO ? std::string("") : std::string(" ") + (pth == dl::PATH_FUSED ? "fused" : pth == dl::PATH_BLOCKED ? "blocked" : pth == dl::PATH_CLUSTER ? "cluster" : "cusolver")) + (pnl == dl::PANEL_PGX ? "" : pnl == dl::PANEL_CUSOLVER ? " csp" : " psel") + (gr ? " g" : "") + (np == dl::NOPIVOT_AUTO ? "" : np == dl::NOPIVOT_NEVER ? " nopiv never" : " nopiv always") + (rbts[irb] ? " rbt " + std::to_string((long long)rbts[irb]) : std::string(""));
        for (PetscInt ils = 0; ils < nlstreams; ils++)
        for (PetscInt isp = 0; isp < nsplans; isp++)
        for (PetscInt itl = 0; itl < ntleaves; itl++)
        for (PetscInt itv = 0; itv < ntrsvs; itv++)
        for (PetscInt iq = 0; iq < nlasms; iq++)
        for (PetscInt ip = 0; ip < nprios; ip++)
          for (PetscInt ir = 0; ir < nlrows; ir++)
            for (PetscInt is = 0; is < nlswaps; is++) {
              const PetscBool pri = prios[ip] ? PETSC_TRUE : PETSC_FALSE, lsw = lswaps[is] ? PETSC_TRUE : PETSC_FALSE;
              if (prec == dl::PRECISION_DOUBLE) {
                for (PetscInt ib = 0; ib < nblocks; ib++)
                  for (PetscInt il = 0; il < nleaves; il++)
                    for (PetscInt ia = 0; ia < nlas; ia++)
                      for (PetscInt ic = 0; ic < ncoops; ic++) {
                        Config cf = {blocks[ib], leaves[il], small, las[ia] ? PETSC_TRUE : PETSC_FALSE, coops[ic] ? PETSC_TRUE : PETSC_FALSE, pri, lrows[ir], lsw, pth, clustermax, gr, lasmsv[iq]};
                        cf.nopiv      = np;
                        cf.rbt        = rbts[irb];
                        cf.panel      = pnl;
                        cf.wholemax   = wholemax;
                        cf.panelmax   = panelmax;
                        cf.leftstream = lstreams[ils] ? PETSC_TRUE : PETSC_FALSE;
                  cf.swapplan   = splans[isp] ? PETSC_TRUE : PETSC_FALSE;
                  cf.trsmleaf   = tleaves[itl];
                  cf.trsv       = trsvs[itv];
                  cf.trsvtrace  = trsvtrace;
                        PetscCall(BenchPGX(P, reps, prec, name.c_str(), cf));
                      }
              } else {
                for (const dl::Pivoting pv : pivv) {
                  Config cf = {mixed_block, leaves[0], small, las[0] ? PETSC_TRUE : PETSC_FALSE, coops[0] ? PETSC_TRUE : PETSC_FALSE, pri, lrows[ir], lsw, pth, clustermax, gr, lasmsv[iq], pv};
                  cf.nopiv      = np;
                  cf.rbt        = rbts[irb];
                  cf.panel      = pnl;
                  cf.wholemax   = wholemax;
                  cf.panelmax   = panelmax;
                  cf.leftstream = lstreams[ils] ? PETSC_TRUE : PETSC_FALSE;
                  cf.swapplan   = splans[isp] ? PETSC_TRUE : PETSC_FALSE;
                  cf.trsmleaf   = tleaves[itl];
                  cf.trsv       = trsvs[itv];
                  cf.trsvtrace  = trsvtrace;
                  PetscCall(BenchPGX(P, reps, prec, name.c_str(), cf));
                }
              }
            }
        }
      }
      for (const std::string &pr : Split(pprecs)) {
        PetscCheck(pr == "none" || pr == "double" || pr == "tf32" || pr == "half" || pr == "bf16" || pr == "auto" || pr == "tf32x3", PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-petsc_precisions: unknown %s (double, tf32, half, bf16, auto, tf32x3, none)", pr.c_str());
        if (pr != "none") PetscCall(BenchPETSc(P, reps, pr));
      }
      if (P.n <= lapack_nmax) PetscCall(BenchLapack(P));
      PGXCallCUDA(cudaFree(P.dA0));
      PGXCallCUDA(cudaFree(P.dr));
    }
  }
  PetscCall(PetscTime(&tnow));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, out, "# rows with a backward error above 10: %d\n# total %.1f s\n", nwrong, (double)(tnow - tstart)));
  if (fname[0]) PetscCall(PetscFClose(PETSC_COMM_SELF, out));
  PetscCall(PetscFinalize());
  return nwrong ? 1 : 0;
}
