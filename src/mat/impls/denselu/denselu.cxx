/* PETSc glue of MATSOLVERPGX's dense LU: MatGetFactor(A, MATSOLVERPGX, MAT_FACTOR_LU, &F) on MATSEQDENSE
   (and MATSEQDENSECUDA). The kernels (denselu_kernels.h) know plain arrays only; this file owns the factor
   object, its options, its view, its log events and PETSc's failure conventions. */
#include <pgx/private/pgximpl.h>
#include <petsc/private/matimpl.h>
#include "denselu_kernels.h"

/* The cuda backend of the dense LU is linked only when PGX is built with CUDA: PGX's own kernels with real scalars
   (kern::cuda), cuSOLVER's zgetrf/zgetrs with complex ones (kern::cudaz) */
#define PGX_DENSELU_HAVE_CUDA PGX_HAVE_CUDA_REAL
#if PGX_HAVE_CUDA && defined(PETSC_USE_COMPLEX)
  #define PGX_DENSELU_HAVE_CUDAZ 1
#else
  #define PGX_DENSELU_HAVE_CUDAZ 0
#endif

namespace kern = pgx::kernels::denselu;

static PetscLogEvent PGX_DenseLUFactor, PGX_DenseLUSolve;

static const char *const PGXDenseLUPrecisions[] = {"double", "tf32", "half", "bf16", "auto", "tf32x3", "PGXDenseLUPrecision", "PRECISION_", NULL};
static const char *const PGXDenseLUPaths[]      = {"auto", "fused", "blocked", "cluster", "cusolver", "PGXDenseLUPath", "PATH_", NULL};
static const char *const PGXDenseLUPanels[]     = {"auto", "pgx", "cusolver", "PGXDenseLUPanel", "PANEL_", NULL};
static const char *const PGXDenseLUPivotings[]  = {"partial", "tournament", "PGXDenseLUPivoting", "PIVOTING_", NULL};
static const char *const PGXDenseLUNoPivots[]   = {"auto", "never", "always", "PGXDenseLUNoPivot", "NOPIVOT_", NULL};

typedef struct {
  PGXDeviceType   devreq;    /* -pgx_device as requested (auto, host, cuda) */
  PGXDeviceType   device;    /* the backend in use (host or cuda) */
  PetscInt        nbreq;     /* -mat_pgx_lu_block (0: the backend's default) */
  PetscInt        nb;        /* block size of the last factorization */
  PetscInt        nsmall;    /* -mat_pgx_lu_small: largest n of the cuda fused path (-1: default) */
  PetscBool       lookahead; /* -mat_pgx_lu_lookahead: cuda blocked path with look-ahead on a second stream */
  PetscInt        leafw;     /* -mat_pgx_lu_leaf: cuda panel recursion's leaf width (0: default 32) */
  PetscBool       coop;      /* -mat_pgx_lu_coop: cuda leaves by the cooperative register kernel when it fits */
  PetscBool       priority;  /* -mat_pgx_lu_priority: cuda factorization on a private greatest-priority stream */
  PetscInt        leafrows;  /* -mat_pgx_lu_leaf_rows: rows per thread of the cooperative leaf (1, 2, 4, 8; 0: default rule) */
  PetscBool       onchip;    /* -mat_pgx_lu_fused_onchip: the fused path by OnChipLUKernel where it fits */
  PetscBool       leafswaps; /* -mat_pgx_lu_leaf_swaps: the leaves swap the rest of their panel (no LaswpKernel in the recursion) */
  PetscBool       leftstream; /* -mat_pgx_lu_left_swap_stream: look-ahead's left swaps on their own stream */
  kern::Path      pathreq;   /* -mat_pgx_lu_path: auto, fused, blocked, cluster (cuda backend) */
  PetscInt        clustermax; /* -mat_pgx_lu_cluster_max: auto takes the cluster path for nsmall < n <= this (0: never) */
  kern::Panel     panelreq;   /* -mat_pgx_lu_panel: who factors the pivoted FP64 panels (auto, pgx, cusolver; cuda backend) */
  PetscInt        wholemax;   /* -mat_pgx_lu_cusolver_max: auto factors the whole pivoted FP64 matrix by cusolverDnDgetrf up to this n (0: never) */
  PetscInt        panelmax;   /* -mat_pgx_lu_panel_max: auto factors the pivoted FP64 panels by cusolverDnDgetrf up to this n (0: never) */
  PetscBool       lowcsp;     /* -mat_pgx_lu_low_panel_cusolver: the pivoted FP32 (mixed) panels by cusolverDnSgetrf (cuda) */
  PetscInt        automin;    /* -mat_pgx_lu_auto_min: precision auto takes tf32 from this n on for row-dominant A (cuda) */
  PetscInt        lasms;     /* -mat_pgx_lu_lookahead_sms: SM count target of the look-ahead stream's cuBLAS calls (0: all) */
  PetscBool       graph;     /* -mat_pgx_lu_graph: cuda factorization captured in a CUDA graph, replayed at the same n */
  kern::Precision precreq;   /* -mat_pgx_lu_precision */
  kern::Pivoting  pivoting;  /* -mat_pgx_lu_pivoting: of the low-precision factorizations (FP64 always partial) */
  kern::NoPivot   nopivot;   /* -mat_pgx_lu_nopivot: skip the pivot search where partial pivoting interchanges no rows (cuda) */
  PetscInt        rbt;       /* -mat_pgx_lu_rbt: depth of the random butterflies (cuda; 0: off) */
  PetscInt        rbtseed;   /* -mat_pgx_lu_rbt_seed */
  kern::RefineOptions ropt;  /* -mat_pgx_lu_refine_*, -mat_pgx_lu_gmres_*: the mixed-precision refinement (denselu_refine.h) */
  kern::Precision precused;  /* precision of the factors in use */
  const char     *path;      /* "blocked" (host) or the cuda backend's path */
  PetscInt        n;         /* order of the matrix */
  PetscScalar    *lu;        /* host backend: the factors, n x n, leading dimension n */
#if !defined(PETSC_USE_COMPLEX)
  kern::reference::Mixed *mixed; /* host backend, mixed precision: the emulated low-precision factors (else NULL) */
#endif
  PetscInt       *ipiv;      /* host backend: 0-based pivots (LAPACK's convention minus one) */
  PetscInt        zerocol;   /* first column with a zero pivot in the last factorization, -1 if none */
  PetscInt        nfactor;   /* numeric factorizations done */
  PetscInt        nsolve;    /* right-hand sides solved */
  PetscInt        nfallback; /* mixed-precision solves that fell back to FP64 */
  PetscLogDouble  tfactor;   /* seconds in the last numeric factorization */
  PetscLogDouble  tsolve;    /* seconds in all solves */
  PetscBool       profile;   /* -mat_pgx_lu_profile: time each phase, report it with PetscInfo */
  kern::Profile   prof;      /* the per-phase times of the last factorization and of the last solve */
#if PGX_DENSELU_HAVE_CUDA
  kern::cuda::Data *d;       /* cuda backend: device factors and workspaces */
#endif
#if PGX_DENSELU_HAVE_CUDAZ
  kern::cudaz::Data *dz;     /* cuda backend with complex scalars (cuSOLVER) */
#endif
} Mat_PGXDenseLU;

/* Whether the host backend factors in (emulated) low precision: real scalars and tf32, half or bf16 requested */
static inline PetscBool PGXDenseLUHostMixed(const Mat_PGXDenseLU *lu)
{
#if defined(PETSC_USE_COMPLEX)
  return PETSC_FALSE;
#else
  return lu->precreq != kern::PRECISION_DOUBLE && lu->precreq != kern::PRECISION_AUTO ? PETSC_TRUE : PETSC_FALSE;
#endif
}

static PetscErrorCode MatFactorGetSolverType_pgx(Mat A, MatSolverType *type)
{
  PetscFunctionBegin;
  *type = MATSOLVERPGX;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatPGXDenseLUReset(Mat F)
{
  Mat_PGXDenseLU *lu = (Mat_PGXDenseLU *)F->data;

  PetscFunctionBegin;
  PetscCall(PetscFree(lu->lu));
  PetscCall(PetscFree(lu->ipiv));
#if !defined(PETSC_USE_COMPLEX)
  delete lu->mixed;
  lu->mixed = NULL;
#endif
#if PGX_DENSELU_HAVE_CUDA
  if (lu->d) PetscCall(kern::cuda::Destroy(&lu->d));
#endif
#if PGX_DENSELU_HAVE_CUDAZ
  if (lu->dz) PetscCall(kern::cudaz::Destroy(&lu->dz));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_PGXDenseLU(Mat F)
{
  PetscFunctionBegin;
  PetscCall(MatPGXDenseLUReset(F));
  PetscCall(PetscFree(F->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_PGXDenseLU(Mat F, PetscViewer viewer)
{
  Mat_PGXDenseLU *lu = (Mat_PGXDenseLU *)F->data;
  PetscBool       isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "PGX dense LU with partial pivoting (MATSOLVERPGX)\n"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "backend: %s, n %" PetscInt_FMT ", %s path, block size %" PetscInt_FMT "\n", PGXDeviceName(lu->nfactor ? lu->device : lu->devreq), lu->n, lu->path, lu->nb));
  if (lu->precreq == kern::PRECISION_DOUBLE || lu->precreq == lu->precused) PetscCall(PetscViewerASCIIPrintf(viewer, "precision: %s\n", PGXDenseLUPrecisions[lu->precused]));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "precision: %s (requested %s%s)\n", PGXDenseLUPrecisions[lu->precused], PGXDenseLUPrecisions[lu->precreq], lu->nfallback ? "; fell back to FP64" : (lu->device == PGX_DEVICE_HOST && !PGXDenseLUHostMixed(lu) && lu->precreq != kern::PRECISION_AUTO ? "; the host backend factors complex matrices in double" : "")));
  if (lu->precreq == kern::PRECISION_AUTO) PetscCall(PetscViewerASCIIPrintf(viewer, "precision auto: %s\n", lu->device == PGX_DEVICE_HOST ? "double on the host backend" : (std::string("tf32 (refined in FP64) from n = ") + std::to_string((long long)lu->automin) + " on when A is diagonally dominant by rows, else double").c_str()));
  if (lu->device == PGX_DEVICE_HOST && lu->precused != kern::PRECISION_DOUBLE) {
    if (kern::reference::PrecisionBits(lu->precused) >= 24) PetscCall(PetscViewerASCIIPrintf(viewer, "host backend: low precision emulated (FP32)\n"));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "host backend: low precision emulated (FP32 rounded to %d significant bits)\n", kern::reference::PrecisionBits(lu->precused)));
  }
  if (lu->precreq != kern::PRECISION_DOUBLE || (lu->rbt && lu->device == PGX_DEVICE_CUDA)) {
    if (lu->ropt.gmres && lu->ropt.gmres_stall) PetscCall(PetscViewerASCIIPrintf(viewer, "refinement: at most %" PetscInt_FMT " steps; GMRES-IR when a plain step reduces the residual less than %g: restart %" PetscInt_FMT ", rtol %g at most, margin %g, stall rule: the residual must fall by %g in %" PetscInt_FMT " iterations%s\n", lu->ropt.maxsteps, (double)lu->ropt.plain_rho, lu->ropt.gmres_m, (double)lu->ropt.gmres_rtol, (double)lu->ropt.gmres_margin, (double)lu->ropt.gmres_stall_rho, lu->ropt.gmres_stall, lu->ropt.gmres_recycle ? "; later steps recycle the first one's Krylov space" : ""));
    else if (lu->ropt.gmres) PetscCall(PetscViewerASCIIPrintf(viewer, "refinement: at most %" PetscInt_FMT " steps; GMRES-IR when a plain step reduces the residual less than %g: restart %" PetscInt_FMT ", rtol %g at most, margin %g, no stall rule%s\n", lu->ropt.maxsteps, (double)lu->ropt.plain_rho, lu->ropt.gmres_m, (double)lu->ropt.gmres_rtol, (double)lu->ropt.gmres_margin, lu->ropt.gmres_recycle ? "; later steps recycle the first one's Krylov space" : ""));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "refinement: at most %" PetscInt_FMT " plain steps, each reducing the residual at least by %g (GMRES-IR off)\n", lu->ropt.maxsteps, (double)lu->ropt.plain_rho));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "factorizations: %" PetscInt_FMT ", last factor time %g s; right-hand sides solved: %" PetscInt_FMT ", solve time %g s\n", lu->nfactor, (double)lu->tfactor, lu->nsolve, (double)lu->tsolve));
  if (lu->nfallback) PetscCall(PetscViewerASCIIPrintf(viewer, "mixed-precision refinement fell back to FP64: %" PetscInt_FMT " times\n", lu->nfallback));
  PetscCall(PetscViewerASCIIPrintf(viewer, "pivoting of the low-precision factorization: %s%s\n", PGXDenseLUPivotings[lu->pivoting], lu->pivoting == kern::PIVOTING_TOURNAMENT ? " (leaves of the panel recursion by tournament pivoting, chunks of 256 rows; FP64: partial)" : ""));
  if (lu->device == PGX_DEVICE_HOST) PetscCall(PetscViewerASCIIPrintf(viewer, "pivot search skipped where no interchange is needed (-mat_pgx_lu_nopivot %s): cuda backend only; the host backend always searches\n", PGXDenseLUNoPivots[lu->nopivot]));
  if (lu->device == PGX_DEVICE_HOST && lu->rbt) PetscCall(PetscViewerASCIIPrintf(viewer, "random butterflies (-mat_pgx_lu_rbt %" PetscInt_FMT "): cuda backend only; the host backend pivots partially\n", lu->rbt));
#if PGX_DENSELU_HAVE_CUDA
  else if (lu->d && lu->nfactor) {
    PetscBool used;
    PetscInt  nfail;
    PetscCall(kern::cuda::GetNoPivotInfo(lu->d, &used, &nfail));
    PetscCall(PetscViewerASCIIPrintf(viewer, "pivot search skipped where no interchange is needed (-mat_pgx_lu_nopivot %s): last factorization %s; attempts without pivoting refactored with pivoting: %" PetscInt_FMT "\n", PGXDenseLUNoPivots[lu->nopivot], used ? "without pivoting (checked: every |l_ij| <= 1, the pivots of partial pivoting)" : "with partial pivoting", nfail));
  }
  if (lu->rbt && lu->d && lu->nfactor) {
    PetscBool used;
    PetscInt  nfail;
    PetscCall(kern::cuda::GetRbtInfo(lu->d, &used, &nfail));
    PetscCall(PetscViewerASCIIPrintf(viewer, "random butterflies (-mat_pgx_lu_rbt %" PetscInt_FMT ", seed %" PetscInt_FMT "): last factorization %s; transformed factorizations that broke down: %" PetscInt_FMT "\n", lu->rbt, lu->rbtseed, used ? "of U^T A V without pivoting (solves refined against A)" : "not transformed", nfail));
  }
  if (lu->device == PGX_DEVICE_CUDA && lu->d && lu->nfactor && lu->pivoting == kern::PIVOTING_TOURNAMENT) {
    PetscInt nt;
    PetscCall(kern::cuda::GetTournamentInfo(lu->d, &nt));
    PetscCall(PetscViewerASCIIPrintf(viewer, "tournament leaves: %" PetscInt_FMT "\n", nt));
  }
#endif
#if PGX_DENSELU_HAVE_CUDA
  if (lu->device == PGX_DEVICE_CUDA && lu->d && lu->nfactor) {
    PetscInt w, nc, nbl;
    PetscCall(kern::cuda::GetLeafInfo(lu->d, &w, &nc, &nbl));
    PetscCall(PetscViewerASCIIPrintf(viewer, "panel leaves: width %" PetscInt_FMT ", %" PetscInt_FMT " by the cooperative kernel, %" PetscInt_FMT " by one thread block%s\n", w, nc, nbl, lu->lookahead ? "; look-ahead" : ""));
    PetscCall(kern::cuda::GetLeafRowsUsed(lu->d, &w));
    PetscCall(PetscViewerASCIIPrintf(viewer, "cooperative leaf rows per thread used: %" PetscInt_FMT "\n", w));
  }
#endif
  if (lu->leafrows) PetscCall(PetscViewerASCIIPrintf(viewer, "panel (cuda): stream priority %s, leaf rows per thread %" PetscInt_FMT ", leaf swaps %s\n", lu->priority ? "on" : "off", lu->leafrows, lu->leafswaps ? "on" : "off"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "panel (cuda): stream priority %s, leaf rows per thread by the default rule, leaf swaps %s\n", lu->priority ? "on" : "off", lu->leafswaps ? "on" : "off"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "path (cuda): %s requested, auto takes the cluster path up to n %" PetscInt_FMT "%s; CUDA graph %s\n", PGXDenseLUPaths[lu->pathreq], lu->clustermax, lu->clustermax ? "" : " (never)", lu->graph ? "on" : "off"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "pivoted low-precision panels (cuda): %s\n", lu->lowcsp ? "cusolverDnSgetrf" : "PGX's"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "pivoted FP64 panels (cuda): %s requested; auto: the whole matrix by cusolverDnDgetrf up to n %" PetscInt_FMT ", its panels up to n %" PetscInt_FMT "\n", PGXDenseLUPanels[lu->panelreq], lu->wholemax, lu->panelmax));
#if PGX_DENSELU_HAVE_CUDA
  if (lu->device == PGX_DEVICE_CUDA && lu->d && lu->nfactor) {
    PetscInt ncs;
    PetscCall(kern::cuda::GetPanelInfo(lu->d, &ncs));
    PetscCall(PetscViewerASCIIPrintf(viewer, "panels factored by cusolverDnDgetrf in the last factorization: %" PetscInt_FMT "\n", ncs));
  }
#endif
  if (lu->lasms) PetscCall(PetscViewerASCIIPrintf(viewer, "look-ahead (cuda): %s; the rest of each trailing update on at most %" PetscInt_FMT " SMs; left swaps %s\n", lu->lookahead ? "on" : "off", lu->lasms, lu->leftstream ? "on their own stream" : "on the panel's stream"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "look-ahead (cuda): %s; the rest of each trailing update on all SMs; left swaps %s\n", lu->lookahead ? "on" : "off", lu->leftstream ? "on their own stream" : "on the panel's stream"));
#if PGX_DENSELU_HAVE_CUDA
  if (lu->device == PGX_DEVICE_CUDA && lu->d && lu->nfactor) {
    PetscInt ncl, gmax;
    PetscCall(kern::cuda::GetClusterInfo(lu->d, &ncl, &gmax));
    PetscCall(PetscViewerASCIIPrintf(viewer, "cluster leaves: %" PetscInt_FMT " (largest cluster %" PetscInt_FMT " blocks)\n", ncl, gmax));
    if (lu->graph) {
      PetscBool replayed;
      PetscCall(kern::cuda::GetGraphInfo(lu->d, &ncl, &replayed));
      PetscCall(PetscViewerASCIIPrintf(viewer, "CUDA graphs captured: %" PetscInt_FMT ", last factorization %s\n", ncl, replayed ? "replayed a captured graph" : "ran directly or was captured"));
    }
  }
#endif
  if (lu->zerocol >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "last factorization failed: zero pivot in column %" PetscInt_FMT "\n", lu->zerocol));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_PGXDenseLU(Mat F, MatInfoType flag, MatInfo *info)
{
  Mat_PGXDenseLU *lu = (Mat_PGXDenseLU *)F->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->block_size        = 1.0;
  info->nz_allocated      = (PetscLogDouble)lu->n * lu->n;
  info->nz_used           = info->nz_allocated;
  info->memory            = 0;
  info->fill_ratio_given  = 1.0;
  info->fill_ratio_needed = 1.0;
  info->factor_mallocs    = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PetscInfo of a mixed-precision solve */
static inline PetscErrorCode MatPGXDenseLUReportRefine(Mat F, const kern::RefineResult *res)
{
  Mat_PGXDenseLU *lu = (Mat_PGXDenseLU *)F->data;

  PetscFunctionBegin;
  if (res->steps) PetscCall(PetscInfo(F, "%s solve: %" PetscInt_FMT " refinement steps (%" PetscInt_FMT " GMRES-IR, %" PetscInt_FMT " GMRES iterations), %s, backward error %g (n eps units), last reduction %g\n", lu->precused == kern::PRECISION_DOUBLE ? "FP64 butterfly (U^T A V without pivoting)" : "mixed-precision", res->steps, res->gmres_steps, res->gmres_its, res->stop, (double)res->berr, (double)res->ratio));
  if (res->fellback) {
    lu->nfallback++;
    lu->precused = kern::PRECISION_DOUBLE;
    PetscCall(PetscInfo(F, "%s (%s) refinement stopped unconverged (%s after %" PetscInt_FMT " steps, %" PetscInt_FMT " GMRES iterations, last reduction %g); fell back to the FP64 factorization\n", lu->precreq == kern::PRECISION_DOUBLE ? "butterfly" : "mixed-precision", PGXDenseLUPrecisions[lu->precreq], res->stop, res->steps, res->gmres_its, (double)res->ratio));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PetscInfo of the per-phase profile (-mat_pgx_lu_profile) of a group */
static inline PetscErrorCode MatPGXDenseLUReportProfile(Mat F, kern::ProfileGroup g)
{
  Mat_PGXDenseLU *lu = (Mat_PGXDenseLU *)F->data;

  PetscFunctionBegin;
  PetscCall(PetscInfo(F, "%s\n", kern::ProfileFormat(&lu->prof, g, PETSC_FALSE).c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x <- A^-1 x or A^-T x for nrhs columns of a host array with leading dimension ldx */
static PetscErrorCode MatPGXDenseLUSolveArray(Mat F, PetscBool transpose, PetscInt nrhs, PetscScalar *x, PetscInt ldx)
{
  Mat_PGXDenseLU *lu = (Mat_PGXDenseLU *)F->data;
  PetscLogDouble  t0, t1, tw = 0;
  PetscBool       fellback = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogEventBegin(PGX_DenseLUSolve, F, 0, 0, 0));
  if (lu->profile) kern::ProfileClear(&lu->prof); /* a fallback adds factor phases: reported with the solve */
  PetscCall(kern::ProfileTic(lu->profile ? &lu->prof : NULL, &tw));
  if (lu->device == PGX_DEVICE_HOST) {
#if !defined(PETSC_USE_COMPLEX)
    if (lu->mixed) {
      kern::RefineResult res;
      PetscCall(kern::reference::MixedSolve(lu->mixed, transpose, nrhs, x, ldx, &lu->ropt, &res));
      PetscCall(PetscLogFlops(2.0 * lu->n * lu->n * nrhs * (res.steps + 1)));
      PetscCall(MatPGXDenseLUReportRefine(F, &res));
      fellback = res.fellback;
    } else
#endif
    {
      PetscLogDouble ts = 0;
      PetscCall(kern::ProfileTic(lu->profile ? &lu->prof : NULL, &ts));
      PetscCall(kern::reference::Solve(lu->n, lu->lu, lu->n, lu->ipiv, transpose, nrhs, x, ldx));
      PetscCall(kern::ProfileToc(lu->profile ? &lu->prof : NULL, kern::PHASE_SOLVE, ts));
      PetscCall(PetscLogFlops(2.0 * lu->n * lu->n * nrhs));
    }
  } else {
#if PGX_DENSELU_HAVE_CUDA
    kern::RefineResult res;
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(kern::cuda::SolveHost(lu->d, transpose, nrhs, x, ldx, &res));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(2.0 * lu->n * lu->n * nrhs * (res.steps + 1)));
    PetscCall(MatPGXDenseLUReportRefine(F, &res));
    fellback = res.fellback;
#elif PGX_DENSELU_HAVE_CUDAZ
    PetscLogDouble ts = 0;
    PetscCall(kern::ProfileTic(lu->profile ? &lu->prof : NULL, &ts));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(kern::cudaz::SolveHost(lu->dz, transpose, nrhs, x, ldx));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(kern::ProfileToc(lu->profile ? &lu->prof : NULL, kern::PHASE_SOLVE, ts));
    PetscCall(PetscLogGpuFlops(2.0 * lu->n * lu->n * nrhs));
#endif
  }
  if (lu->profile) {
    PetscLogDouble tw1;
    PetscCall(PetscTime(&tw1));
    lu->prof.wall[kern::PROFILE_SOLVE] = (tw1 - tw) * 1e3;
    PetscCall(MatPGXDenseLUReportProfile(F, kern::PROFILE_SOLVE));
    if (fellback) { /* the FP64 factorization of the fallback, inside this solve */
      lu->prof.wall[kern::PROFILE_FACTOR] = lu->prof.wall[kern::PROFILE_SOLVE];
      PetscCall(MatPGXDenseLUReportProfile(F, kern::PROFILE_FACTOR));
    }
  }
  PetscCall(PetscLogEventEnd(PGX_DenseLUSolve, F, 0, 0, 0));
  PetscCall(PetscTime(&t1));
  lu->tsolve += t1 - t0;
  lu->nsolve += nrhs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_PGXDenseLU_Private(Mat F, Vec b, Vec x, PetscBool transpose)
{
  PetscScalar *xa;

  PetscFunctionBegin;
  PetscCall(VecCopy(b, x));
  PetscCall(VecGetArray(x, &xa));
  PetscCall(MatPGXDenseLUSolveArray(F, transpose, 1, xa, F->rmap->n));
  PetscCall(VecRestoreArray(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_PGXDenseLU(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(MatSolve_PGXDenseLU_Private(F, b, x, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_PGXDenseLU(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(MatSolve_PGXDenseLU_Private(F, b, x, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolve_PGXDenseLU_Private(Mat F, Mat B, Mat X, PetscBool transpose)
{
  const PetscScalar *ba;
  PetscScalar       *xa;
  PetscInt           n = F->rmap->n, nrhs, ldb, ldx;
  PetscBool          bdense, xdense;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &bdense, MATSEQDENSE, MATSEQDENSECUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)X, &xdense, MATSEQDENSE, MATSEQDENSECUDA, ""));
  PetscCheck(bdense && xdense, PetscObjectComm((PetscObject)F), PETSC_ERR_SUP, "MatMatSolve() with MATSOLVERPGX needs MATSEQDENSE right-hand sides and solutions");
  PetscCall(MatGetSize(B, NULL, &nrhs));
  PetscCall(MatDenseGetLDA(B, &ldb));
  PetscCall(MatDenseGetLDA(X, &ldx));
  PetscCall(MatDenseGetArrayRead(B, &ba));
  PetscCall(MatDenseGetArrayWrite(X, &xa));
  for (PetscInt j = 0; j < nrhs; j++) PetscCall(PetscArraycpy(xa + j * ldx, ba + j * ldb, n));
  PetscCall(MatDenseRestoreArrayRead(B, &ba));
  PetscCall(MatPGXDenseLUSolveArray(F, transpose, nrhs, xa, ldx));
  PetscCall(MatDenseRestoreArrayWrite(X, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolve_PGXDenseLU(Mat F, Mat B, Mat X)
{
  PetscFunctionBegin;
  PetscCall(MatMatSolve_PGXDenseLU_Private(F, B, X, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolveTranspose_PGXDenseLU(Mat F, Mat B, Mat X)
{
  PetscFunctionBegin;
  PetscCall(MatMatSolve_PGXDenseLU_Private(F, B, X, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The error of a matrix with a NaN or Inf entry at (brow, bcol), as kern::reference::CheckFinite() names it (brow < 0:
   the host scan found none although the device did): A's array is restored first, and F is marked failed
   (MAT_FACTOR_OTHER: a later MatSolve() gives Inf, PETSc's convention; on the cuda backend the upload of A has
   already replaced the device copy that an earlier factorization refined against) */
static PetscErrorCode MatPGXDenseLUNonFinite(Mat F, Mat A, const PetscScalar **aa, PetscInt lda, PetscInt brow, PetscInt bcol)
{
  const PetscScalar v = brow >= 0 ? (*aa)[brow + bcol * lda] : 0;

  PetscFunctionBegin;
  PetscCall(MatDenseRestoreArrayRead(A, aa));
  F->factorerrortype = MAT_FACTOR_OTHER;
  PetscCheck(brow >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSOLVERPGX dense LU: the device found a non-finite entry that the host scan did not");
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FP, "MATSOLVERPGX dense LU: the matrix has a non-finite entry (%s) at row %" PetscInt_FMT ", column %" PetscInt_FMT, PetscIsNanReal(PetscRealPart(v)) ? "NaN" : "Inf", brow, bcol);
}

static PetscErrorCode MatLUFactorNumeric_PGXDenseLU(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_PGXDenseLU    *lu = (Mat_PGXDenseLU *)F->data;
  const PetscScalar *aa;
  PetscInt           lda, n = lu->n, brow, bcol, m, nc;
  PetscBool          finite;
  PetscLogDouble     t0, t1, tw = 0;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &nc));
  PetscCheck(m == n && nc == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "MATSOLVERPGX dense LU: the factor was set up for n = %" PetscInt_FMT "; this matrix is %" PetscInt_FMT " x %" PetscInt_FMT, n, m, nc);
  PetscCall(PetscTime(&t0));
  PetscCall(MatDenseGetLDA(A, &lda));
  PetscCall(MatDenseGetArrayRead(A, &aa));
  /* NaN/Inf: detected before factoring (a pivot search would otherwise propagate them silently). The host backend
     scans A here; the cuda backend checks it on the device after the upload (a host pass over A would cost more
     than the GPU factorization at large n: 0.65 s for n = 16384 on one core of the development VM) and the host
     scans only to name the entry of a matrix the device found non-finite (MatPGXDenseLUNonFinite below) */
  if (lu->device == PGX_DEVICE_HOST) {
    PetscCall(kern::reference::CheckFinite(n, aa, lda, &finite, &brow, &bcol));
    if (!finite) PetscCall(MatPGXDenseLUNonFinite(F, A, &aa, lda, brow, bcol));
  }
  PetscCall(PetscLogEventBegin(PGX_DenseLUFactor, F, A, 0, 0));
  if (lu->profile) kern::ProfileReset(&lu->prof, kern::PROFILE_FACTOR);
  PetscCall(kern::ProfileTic(lu->profile ? &lu->prof : NULL, &tw));
  if (lu->device == PGX_DEVICE_HOST && PGXDenseLUHostMixed(lu)) {
#if !defined(PETSC_USE_COMPLEX)
    lu->nb = lu->nbreq > 0 ? lu->nbreq : 32;
    {
      if (!lu->mixed) lu->mixed = new kern::reference::Mixed;
      lu->mixed->prof     = lu->profile ? &lu->prof : NULL;
      lu->mixed->pivoting = lu->pivoting;
      lu->mixed->leafw    = lu->leafw > 0 ? lu->leafw : 32;
      PetscCall(kern::reference::MixedFactor(lu->mixed, n, aa, lda, lu->precreq, lu->nb, &lu->zerocol));
      PetscCall(MatDenseRestoreArrayRead(A, &aa));
      PetscCall(PetscLogFlops(2.0 * n * n * (PetscLogDouble)n / 3.0));
      lu->precused = lu->mixed->used;
      lu->path     = lu->pivoting == kern::PIVOTING_TOURNAMENT ? "blocked tournament (emulated low precision)" : "unblocked (emulated low precision)";
      if (lu->precused == kern::PRECISION_DOUBLE) {
        lu->path = "blocked";
        PetscCall(PetscInfo(F, "zero pivot in the %s factorization; factored in FP64\n", PGXDenseLUPrecisions[lu->precreq]));
      }
    }
#endif
  } else if (lu->device == PGX_DEVICE_HOST) {
    lu->nb = lu->nbreq > 0 ? lu->nbreq : 32;
#if !defined(PETSC_USE_COMPLEX)
    delete lu->mixed;
    lu->mixed = NULL;
#endif
    for (PetscInt j = 0; j < n; j++) PetscCall(PetscArraycpy(lu->lu + j * n, aa + j * lda, n));
    PetscCall(MatDenseRestoreArrayRead(A, &aa));
    PetscCall(kern::reference::FactorProfiled(n, lu->lu, n, lu->nb, lu->ipiv, &lu->zerocol, lu->profile ? &lu->prof : NULL));
    PetscCall(PetscLogFlops(2.0 * n * n * (PetscLogDouble)n / 3.0));
    lu->precused = kern::PRECISION_DOUBLE;
    lu->path     = "blocked";
  } else {
#if PGX_DENSELU_HAVE_CUDA || PGX_DENSELU_HAVE_CUDAZ
    PetscCall(PetscLogGpuTimeBegin());
  #if PGX_DENSELU_HAVE_CUDA
    PetscCall(kern::cuda::Factor(lu->d, n, aa, lda, &lu->zerocol, &finite));
  #else
    PetscCall(kern::cudaz::Factor(lu->dz, n, aa, lda, &lu->zerocol, &finite));
  #endif
    PetscCall(PetscLogGpuTimeEnd());
    if (!finite) { /* nothing was factored: name the entry (a host scan, only now) and fail */
      PetscCall(PetscLogEventEnd(PGX_DenseLUFactor, F, A, 0, 0));
      PetscCall(kern::reference::CheckFinite(n, aa, lda, &finite, &brow, &bcol));
      PetscCall(MatPGXDenseLUNonFinite(F, A, &aa, lda, brow, bcol));
    }
    PetscCall(MatDenseRestoreArrayRead(A, &aa));
    PetscCall(PetscLogGpuFlops(2.0 * n * n * (PetscLogDouble)n / 3.0));
  #if PGX_DENSELU_HAVE_CUDA
    PetscCall(kern::cuda::GetInfo(lu->d, &lu->path, &lu->nb, &lu->precused));
  #else
    lu->path     = "cusolver (complex)";
    lu->nb       = n;
    lu->precused = kern::PRECISION_DOUBLE;
  #endif
#else
    PetscCall(MatDenseRestoreArrayRead(A, &aa));
#endif
  }
  if (lu->profile) {
    PetscLogDouble tw1;
    PetscCall(PetscTime(&tw1));
    lu->prof.wall[kern::PROFILE_FACTOR] = (tw1 - tw) * 1e3;
    PetscCall(MatPGXDenseLUReportProfile(F, kern::PROFILE_FACTOR));
  }
  PetscCall(PetscLogEventEnd(PGX_DenseLUFactor, F, A, 0, 0));
  PetscCall(PetscTime(&t1));
  lu->tfactor = t1 - t0;
  lu->nfactor++;
  F->factorerrortype = MAT_FACTOR_NOERROR;
  if (lu->zerocol >= 0) {
    PetscCheck(!A->erroriffailure && !F->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in column %" PetscInt_FMT " of the MATSOLVERPGX dense LU: the matrix is singular", lu->zerocol);
    PetscCall(PetscInfo(F, "Zero pivot in column %" PetscInt_FMT " of the dense LU: the matrix is singular\n", lu->zerocol));
    F->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    F->factorerror_zeropivot_value = 0.0;
    F->factorerror_zeropivot_row   = lu->zerocol;
  }
  F->ops->solve             = MatSolve_PGXDenseLU;
  F->ops->solvetranspose    = MatSolveTranspose_PGXDenseLU;
  F->ops->matsolve          = MatMatSolve_PGXDenseLU;
  F->ops->matsolvetranspose = MatMatSolveTranspose_PGXDenseLU;
  F->assembled              = PETSC_TRUE;
  F->preallocated           = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorSymbolic_PGXDenseLU(Mat F, Mat A, IS r, IS c, const MatFactorInfo *info)
{
  Mat_PGXDenseLU *lu = (Mat_PGXDenseLU *)F->data;
  PetscInt        m, n;
  PetscBool       flg;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCheck(m == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "MATSOLVERPGX dense LU needs a square matrix; this one is %" PetscInt_FMT " x %" PetscInt_FMT, m, n);
  PetscCall(MatPGXDenseLUReset(F));
  lu->n = n;
  PetscOptionsBegin(PetscObjectComm((PetscObject)F), ((PetscObject)F)->prefix, "PGX dense LU options", "Mat");
  PetscCall(PetscOptionsEnum("-pgx_device", "Where the kernels run: auto, host (reference), cuda", "PGXInitializePackage", PGXDeviceTypes, (PetscEnum)lu->devreq, (PetscEnum *)&lu->devreq, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_block", "Block size of the blocked LU (0: the backend's default: host 32, cuda measured)", "MatGetFactor", lu->nbreq, &lu->nbreq, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_small", "Largest n factored by the fused small-matrix path of the cuda backend under -mat_pgx_lu_path auto (-1: default, 1024 where its on-chip kernel can be launched, else 128)", "MatGetFactor", lu->nsmall, &lu->nsmall, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_leaf", "Leaf width of the cuda panel recursion, 1..32 (0: default 32)", "MatGetFactor", lu->leafw, &lu->leafw, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_fused_onchip", "The cuda fused path (n <= 1024) in one cooperative launch with the matrix in the blocks' shared memory (else one thread block in global memory)", "MatGetFactor", lu->onchip, &lu->onchip, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_coop", "Factor the cuda panel leaves with the cooperative register kernel when its blocks fit (else one thread block)", "MatGetFactor", lu->coop, &lu->coop, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_priority", "Factor on a private stream of the greatest priority, the look-ahead stream at the least (cuda backend)", "MatGetFactor", lu->priority, &lu->priority, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_leaf_rows", "Rows per thread of the cuda cooperative leaf kernel: 1, 2, 4 or 8 (fewer blocks per grid synchronization; 0: default rule)", "MatGetFactor", lu->leafrows, &lu->leafrows, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_leaf_swaps", "Each cuda panel leaf applies its interchanges to the rest of its panel (no swap launch per recursion level)", "MatGetFactor", lu->leafswaps, &lu->leafswaps, NULL));
  PetscCall(PetscOptionsEnum("-mat_pgx_lu_path", "Path of the cuda factorization: auto (with pivoting fused up to -mat_pgx_lu_small, cusolver up to -mat_pgx_lu_cusolver_max (FP64), cluster up to -mat_pgx_lu_cluster_max, else blocked), fused, blocked, cluster (leaves by one thread-block cluster, sm_90)", "MatGetFactor", PGXDenseLUPaths, (PetscEnum)lu->pathreq, (PetscEnum *)&lu->pathreq, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_auto_min", "Smallest n at which -mat_pgx_lu_precision auto factors in tf32 (refined in FP64), when A is diagonally dominant by rows (cuda backend; else double)", "MatGetFactor", lu->automin, &lu->automin, NULL));
  PetscCall(PetscOptionsEnum("-mat_pgx_lu_panel", "Who factors the panels of a pivoted FP64 cuda factorization: auto (cuSOLVER's getrf on the whole matrix up to -mat_pgx_lu_cusolver_max, on the panels up to -mat_pgx_lu_panel_max, else PGX's), pgx, cusolver", "MatGetFactor", PGXDenseLUPanels, (PetscEnum)lu->panelreq, (PetscEnum *)&lu->panelreq, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_cusolver_max", "Largest n at which -mat_pgx_lu_panel auto (with -mat_pgx_lu_path auto) factors a whole pivoted FP64 matrix by cusolverDnDgetrf (0: never)", "MatGetFactor", lu->wholemax, &lu->wholemax, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_low_panel_cusolver", "Whether cusolverDnSgetrf factors the panels of a pivoted low-precision (FP32 storage) cuda factorization with partial pivoting; else PGX's recursion", "MatGetFactor", lu->lowcsp, &lu->lowcsp, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_panel_max", "Largest n at which -mat_pgx_lu_panel auto factors the panels of a pivoted FP64 matrix by cusolverDnDgetrf (0: never)", "MatGetFactor", lu->panelmax, &lu->panelmax, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_cluster_max", "Largest n at which -mat_pgx_lu_path auto takes the cluster path of the cuda backend (0: never)", "MatGetFactor", lu->clustermax, &lu->clustermax, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_graph", "Capture the cuda factorization in a CUDA graph at its second call and replay it in later factorizations of the same size", "MatGetFactor", lu->graph, &lu->graph, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_lookahead", "Factor the next panel while a second stream updates the rest of the trailing matrix (cuda backend)", "MatGetFactor", lu->lookahead, &lu->lookahead, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_left_swap_stream", "Look-ahead: apply each panel's interchanges to the columns left of it on a third stream, off the panel's critical path (cuda backend)", "MatGetFactor", lu->leftstream, &lu->leftstream, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_lookahead_sms", "Most SMs the look-ahead stream's cuBLAS kernels use, leaving the others to the panel (cublasSetSmCountTarget; 0: all)", "MatGetFactor", lu->lasms, &lu->lasms, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_profile", "Time each phase of the factorization and of the solves (cuda: cudaEvent pairs; host: PetscTime) and report the sums with PetscInfo (-info)", "MatGetFactor", lu->profile, &lu->profile, NULL));
  PetscCall(PetscOptionsEnum("-mat_pgx_lu_nopivot", "Skip the pivot search (cuda): auto when A is strictly diagonally dominant by columns (partial pivoting then interchanges no rows; the factors are checked and refactored with pivoting if not), never, always (try on any matrix)", "MatGetFactor", PGXDenseLUNoPivots, (PetscEnum)lu->nopivot, (PetscEnum *)&lu->nopivot, NULL));
  PetscCall(PetscOptionsEnum("-mat_pgx_lu_pivoting", "Pivoting of the low-precision factorizations: partial, tournament (leaves of the panel recursion by tournament pivoting: no grid synchronization per column); FP64 is always partial", "MatGetFactor", PGXDenseLUPivotings, (PetscEnum)lu->pivoting, (PetscEnum *)&lu->pivoting, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_rbt", "Random butterfly transformation of depth 1..4 (cuda, real, FP64 factors; 0: off): U^T A V factored without pivoting, every solve refined against A in FP64, partial pivoting again when the factorization breaks down or the refinement does not converge", "MatGetFactor", lu->rbt, &lu->rbt, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_rbt_seed", "Seed of the random butterflies' diagonals (-mat_pgx_lu_rbt)", "MatGetFactor", lu->rbtseed, &lu->rbtseed, NULL));
  PetscCall(PetscOptionsEnum("-mat_pgx_lu_precision", "Precision of the factorization; lower ones are refined in FP64 (the host backend emulates them); tf32x3: FP32-accurate products from three tf32 products", "MatGetFactor", PGXDenseLUPrecisions, (PetscEnum)lu->precreq, (PetscEnum *)&lu->precreq, &flg));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_refine_steps", "Mixed precision: refinement steps at most (plain and GMRES-IR), then the FP64 fallback", "MatGetFactor", lu->ropt.maxsteps, &lu->ropt.maxsteps, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_refine_gmres", "Mixed precision: switch to GMRES-IR steps when a plain step reduces the residual less than 0.1 (else stop and fall back)", "MatGetFactor", lu->ropt.gmres, &lu->ropt.gmres, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_gmres_restart", "Mixed precision: GMRES iterations at most in one GMRES-IR step (its Krylov dimension)", "MatGetFactor", lu->ropt.gmres_m, &lu->ropt.gmres_m, NULL));
  PetscCall(PetscOptionsReal("-mat_pgx_lu_gmres_rtol", "Mixed precision: the loosest relative preconditioned residual that ends one GMRES-IR step (each step asks for the reduction its column still needs, x 0.01, down to 1e-13)", "MatGetFactor", lu->ropt.gmres_rtol, &lu->ropt.gmres_rtol, NULL));
  PetscCall(PetscOptionsReal("-mat_pgx_lu_gmres_margin", "Mixed precision: a GMRES-IR step asks its Krylov residual for this times the reduction its column still needs (within -mat_pgx_lu_gmres_rtol and 1e-13; 0: -mat_pgx_lu_gmres_rtol alone)", "MatGetFactor", lu->ropt.gmres_margin, &lu->ropt.gmres_margin, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_lu_gmres_stall", "Mixed precision: window of the GMRES-IR stall rule in iterations (0: no stall rule): a step whose preconditioned residual fell less than -mat_pgx_lu_gmres_stall_rho over the window ends the refinement", "MatGetFactor", lu->ropt.gmres_stall, &lu->ropt.gmres_stall, NULL));
  PetscCall(PetscOptionsReal("-mat_pgx_lu_gmres_stall_rho", "Mixed precision: the factor by which the preconditioned residual must fall over the stall rule's window", "MatGetFactor", lu->ropt.gmres_stall_rho, &lu->ropt.gmres_stall_rho, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_gmres_recycle", "Mixed precision: keep the first GMRES-IR step's Krylov space and project the later steps on it first (GCRO), sparing them the iterations that find it again", "MatGetFactor", lu->ropt.gmres_recycle, &lu->ropt.gmres_recycle, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_lu_refine_monitor", "Mixed precision: print each refinement step's residual reduction and each GMRES iteration's preconditioned residual", "MatGetFactor", lu->ropt.monitor, &lu->ropt.monitor, NULL));
  PetscOptionsEnd();
  PetscCheck(lu->ropt.maxsteps >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_refine_steps must be >= 0, not %" PetscInt_FMT, lu->ropt.maxsteps);
  PetscCheck(lu->ropt.gmres_m >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_gmres_restart must be >= 1, not %" PetscInt_FMT, lu->ropt.gmres_m);
  PetscCheck(lu->ropt.gmres_rtol > 0 && lu->ropt.gmres_rtol < 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_gmres_rtol must be in (0, 1), not %g", (double)lu->ropt.gmres_rtol);
  PetscCheck(lu->ropt.gmres_margin >= 0 && lu->ropt.gmres_margin < 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_gmres_margin must be in [0, 1), not %g", (double)lu->ropt.gmres_margin);
  PetscCheck(lu->ropt.gmres_stall >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_gmres_stall must be >= 0 (0: no stall rule), not %" PetscInt_FMT, lu->ropt.gmres_stall);
  PetscCheck(lu->ropt.gmres_stall_rho > 0 && lu->ropt.gmres_stall_rho <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_gmres_stall_rho must be in (0, 1], not %g", (double)lu->ropt.gmres_stall_rho);
  PetscCheck(lu->rbt >= 0 && lu->rbt <= kern::RBT_DEPTH_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_rbt must be in 0..%d (0: off), not %" PetscInt_FMT, (int)kern::RBT_DEPTH_MAX, lu->rbt);
  PetscCheck(lu->rbtseed >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_rbt_seed must be >= 0, not %" PetscInt_FMT, lu->rbtseed);
  PetscCheck(lu->nbreq >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_block must be >= 0 (0: default), not %" PetscInt_FMT, lu->nbreq);
  PetscCheck(lu->leafrows == 0 || lu->leafrows == 1 || lu->leafrows == 2 || lu->leafrows == 4 || lu->leafrows == 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_leaf_rows must be 1, 2, 4 or 8 (0: default rule), not %" PetscInt_FMT, lu->leafrows);
  PetscCheck(lu->lasms >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_lookahead_sms must be >= 0 (0: all), not %" PetscInt_FMT, lu->lasms);
  PetscCheck(lu->automin >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_auto_min must be >= 0, not %" PetscInt_FMT, lu->automin);
  PetscCheck(lu->wholemax >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_cusolver_max must be >= 0 (0: never), not %" PetscInt_FMT, lu->wholemax);
  PetscCheck(lu->panelmax >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_panel_max must be >= 0 (0: never), not %" PetscInt_FMT, lu->panelmax);
  PetscCheck(lu->clustermax >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_cluster_max must be >= 0 (0: never), not %" PetscInt_FMT, lu->clustermax);
  PetscCheck(lu->leafw >= 0 && lu->leafw <= 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_lu_leaf must be in 0..32 (0: default), not %" PetscInt_FMT, lu->leafw);
  PetscCall(PGXDeviceResolve(PetscObjectComm((PetscObject)F), lu->devreq, &lu->device));
#if !PGX_DENSELU_HAVE_CUDA && !PGX_DENSELU_HAVE_CUDAZ
  if (lu->device == PGX_DEVICE_CUDA) {
    PetscCall(PetscInfo(F, "the cuda backend of the dense LU is not built; using the host backend\n"));
    lu->device = PGX_DEVICE_HOST;
  }
#endif
  PetscCall(PetscInfo(F, "panel options: stream priority %s, leaf rows per thread %" PetscInt_FMT "%s, leaf swaps %s (%s)\n", lu->priority ? "on" : "off", lu->leafrows, lu->leafrows ? "" : " (default rule)", lu->leafswaps ? "on" : "off", lu->device == PGX_DEVICE_HOST ? "the host backend has no cuda panel: ignored" : "cuda backend"));
  PetscCall(PetscInfo(F, "path: %s requested, cluster path for n <= %" PetscInt_FMT " under auto, CUDA graph %s (%s)\n", PGXDenseLUPaths[lu->pathreq], lu->clustermax, lu->graph ? "on" : "off", lu->device == PGX_DEVICE_HOST ? "the host backend factors blocked: ignored" : "cuda backend"));
  PetscCall(PetscInfo(F, "pivoted FP64 panels: %s requested, auto: cusolverDnDgetrf on the whole matrix for n <= %" PetscInt_FMT ", on the panels for n <= %" PetscInt_FMT " (%s)\n", PGXDenseLUPanels[lu->panelreq], lu->wholemax, lu->panelmax, lu->device == PGX_DEVICE_HOST ? "the host backend factors its own panels: ignored" : "cuda backend"));
  if (lu->device == PGX_DEVICE_HOST) {
    PetscCall(PetscMalloc1((size_t)n * n, &lu->lu));
    PetscCall(PetscMalloc1(n, &lu->ipiv));
  } else {
#if PGX_DENSELU_HAVE_CUDA
    PetscCall(kern::cuda::Create(&lu->d));
    PetscCall(kern::cuda::SetBlockSize(lu->d, lu->nbreq));
    PetscCall(kern::cuda::SetSmallSize(lu->d, lu->nsmall));
    PetscCall(kern::cuda::SetPrecision(lu->d, lu->precreq));
    PetscCall(kern::cuda::SetAutoMin(lu->d, lu->automin));
    PetscCall(kern::cuda::SetLookAhead(lu->d, lu->lookahead));
    PetscCall(kern::cuda::SetLeftSwapStream(lu->d, lu->leftstream));
    PetscCall(kern::cuda::SetLookAheadSMs(lu->d, lu->lasms));
    PetscCall(kern::cuda::SetPath(lu->d, lu->pathreq, lu->clustermax));
    PetscCall(kern::cuda::SetPanel(lu->d, lu->panelreq, lu->wholemax, lu->panelmax));
    PetscCall(kern::cuda::SetLowPanel(lu->d, lu->lowcsp ? kern::PANEL_CUSOLVER : kern::PANEL_PGX));
    PetscCall(kern::cuda::SetGraph(lu->d, lu->graph));
    PetscCall(kern::cuda::SetLeaf(lu->d, lu->leafw, lu->coop));
    PetscCall(kern::cuda::SetFusedOnChip(lu->d, lu->onchip));
    PetscCall(kern::cuda::SetPanelOptions(lu->d, lu->priority, lu->leafrows, lu->leafswaps));
    PetscCall(kern::cuda::SetPivoting(lu->d, lu->pivoting));
    PetscCall(kern::cuda::SetNoPivot(lu->d, lu->nopivot));
    PetscCall(kern::cuda::SetRbt(lu->d, lu->rbt, (unsigned long long)lu->rbtseed));
    PetscCall(kern::cuda::SetProfile(lu->d, lu->profile ? &lu->prof : NULL));
    PetscCall(kern::cuda::SetRefineOptions(lu->d, &lu->ropt));
#elif PGX_DENSELU_HAVE_CUDAZ
    PetscCall(kern::cudaz::Create(&lu->dz));
    if (lu->precreq != kern::PRECISION_DOUBLE) PetscCall(PetscInfo(F, "precision %s requested: the cuda backend factors complex matrices in double (cuSOLVER's zgetrf)\n", PGXDenseLUPrecisions[lu->precreq]));
#endif
  }
  lu->zerocol                = -1;
  lu->nfactor                = 0;
  F->ops->lufactornumeric    = MatLUFactorNumeric_PGXDenseLU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  MATSOLVERPGX - "pgx": for `MATSEQDENSE` (and `MATSEQDENSECUDA`) matrices, PGX's dense LU with partial
  pivoting, blocked right-looking, on the GPU (cuda backend) or in plain C++ (host reference backend). With a complex
  PETSc the cuda backend is cuSOLVER's zgetrf and zgetrs (FP64; the options below about PGX's panels, paths and
  precisions concern real scalars).

  Use -pc_type lu -pc_factor_mat_solver_type pgx, or MatGetFactor(A, MATSOLVERPGX, MAT_FACTOR_LU, &F).

  Options Database Keys (read with the factor's options prefix):
+ -pgx_device <auto,host,cuda> - where the kernels run
. -mat_pgx_lu_block <nb> - block size of the blocked algorithm (0: the backend's default)
. -mat_pgx_lu_small <n> - largest n of the fused small-matrix path of the cuda backend under auto (default 1024 where
  its on-chip kernel can be launched and, in low precision, pivoting is partial, else 128; measured on an H100: the
  on-chip kernel 1.33-1.67x faster than cusolverDnDgetrf at n = 256-1024 on a random matrix, 1.37-1.74x on a dominant
  one with the pivot search kept)
. -mat_pgx_lu_path <auto,fused,blocked,cluster,cusolver> - path of the cuda factorization: fused (one kernel: up to n
  1024 one cooperative launch with the matrix in its blocks' shared memory, -mat_pgx_lu_fused_onchip; else one thread
  block), blocked, cluster (the blocked loop with its panel leaves factored by one thread-block cluster of up to 16
  blocks on sm_90: one cluster barrier per column instead of a grid synchronization; falls back to the blocked
  path's leaf kernels where a cluster cannot be launched), cusolver (the whole matrix by one cusolverDnDgetrf; FP64
  with pivoting only, else blocked), auto (with pivoting fused up to -mat_pgx_lu_small, then cusolver where
  -mat_pgx_lu_panel auto says so, cluster up to -mat_pgx_lu_cluster_max, else blocked)
. -mat_pgx_lu_panel <auto,pgx,cusolver> - cuda, FP64 with partial pivoting: who factors each panel of the blocked
  paths, PGX's recursion and leaf kernels or cusolverDnDgetrf on the panel (the same pivots; the interchanges
  elsewhere, the trailing updates and the look-ahead stay PGX's); auto: the whole matrix by cusolverDnDgetrf up to
  -mat_pgx_lu_cusolver_max, cuSOLVER's panels up to -mat_pgx_lu_panel_max, PGX's above (factorizations without
  pivoting take PGX's panels; the low precisions': -mat_pgx_lu_low_panel_cusolver)
. -mat_pgx_lu_cusolver_max <n> - largest n at which auto factors a whole pivoted FP64 matrix by cusolverDnDgetrf
  (default 8192, measured on an H200: 1.1-1.6x faster than PGX's pivoted panels there; 0: never)
. -mat_pgx_lu_low_panel_cusolver <bool> - cuda, low precisions (FP32 storage) with partial pivoting: each panel by
  cusolverDnSgetrf (default true) instead of PGX's recursion, whose one grid synchronization per column bounds the
  factorization below n = 16384 (H200, tf32x3 on the random matrix: 1024 0.60x -> 0.86x, 4096 0.79x -> 1.00x, 16384
  1.07x -> 1.14x of cuSOLVER's FP64 getrf + getrs, forty-first session)
. -mat_pgx_lu_panel_max <n> - largest n at which auto factors the pivoted FP64 panels by cusolverDnDgetrf (default 0,
  never: measured no faster than PGX's panels above 8192)
. -mat_pgx_lu_cluster_max <n> - largest n at which auto takes the cluster path (default 4096, measured on an H100: 7-22% faster than blocked from 256 to 4096; 0: never)
. -mat_pgx_lu_graph <bool> - cuda: capture the factorization's launches in a CUDA graph at the second factorization of
  the same size and replay it in the later ones (refactorizations; not with -mat_pgx_lu_profile; default false)
. -mat_pgx_lu_lookahead_sms <n> - cuda look-ahead: the rest of each trailing update runs its cuBLAS kernels on at
  most n SMs (cublasSetSmCountTarget), leaving the others to the panel (0: all, the default)
. -mat_pgx_lu_lookahead - cuda blocked path: factor the next panel while a second stream updates the rest
. -mat_pgx_lu_left_swap_stream <bool> - cuda look-ahead: each panel's interchanges on the columns left of it run on a
  third stream, off the panel's critical path; nothing reads those columns again until the end (default true)
. -mat_pgx_lu_leaf <w> - leaf width of the cuda panel recursion (1..32, default 32)
. -mat_pgx_lu_coop <bool> - cuda leaves by the cooperative register kernel (one grid synchronization a column)
  when its blocks fit on the device, else by one thread block (default true)
. -mat_pgx_lu_fused_onchip <bool> - the cuda fused path (n <= 1024) by one cooperative kernel that holds the matrix
  in its blocks' shared memory, a block column of 16 a block (default true; else one thread block)
. -mat_pgx_lu_priority <bool> - cuda: factor on a private stream of the greatest priority (look-ahead stream at
  the least), ordered with PGX's stream at the start and the end (default false)
. -mat_pgx_lu_leaf_rows <0,1,2,4,8> - cuda: rows per thread of the cooperative leaf, fewer blocks per grid
  synchronization (capped so that a thread's leaf values stay in registers: FP64 leaves of width 32 up to 2, 16 up
  to 4; FP32 leaves twice that; 0: the default rule, one row per thread first)
. -mat_pgx_lu_leaf_swaps <bool> - cuda: each leaf applies its interchanges to the rest of its panel instead of one
  swap launch per level of the panel recursion (same pivots and factors; default false)
. -mat_pgx_lu_profile - time each phase (panel leaves, swaps, trsm, gemm, look-ahead waits, conversions; the
  refinement's residual, low-precision solve and GMRES-IR) and print the sums per phase with -info (cudaEvent pairs
  on the cuda backend: opt-in, as they cost time)
. -mat_pgx_lu_nopivot <auto,never,always> - cuda: skip the pivot search where partial pivoting interchanges no rows.
  auto (the default): when A is strictly diagonally dominant by columns (|a_jj| > sum_{i != j} |a_ij|, tested in
  the pass over A that looks for NaN/Inf), partial pivoting provably keeps every diagonal entry, so the factorization
  without pivoting is the pivoted one; it needs no synchronization per column (the panel leaves: one warp for the top
  block, L21 = A21 U11^-1 below). The factors are then checked (every |l_ij| <= 1, every u_jj nonzero and finite: the
  condition under which partial pivoting would have chosen the diagonal) and, should rounding break it, A is factored
  again with pivoting (-info says so). Under -mat_pgx_lu_path auto such a matrix takes the blocked path at every n
  (the fused small-matrix path, when asked for, keeps its pivot search). never: always search; always: try without
  pivoting on any matrix, at the cost of a second factorization when it needs pivots. The pivots are dgetrf's in every
  case
. -mat_pgx_lu_pivoting <partial,tournament> - pivoting of the low-precision factorizations (tf32, half, bf16):
  partial (the default until measured), or tournament (CALU/TSLU): each leaf of the panel recursion (at most
  -mat_pgx_lu_leaf columns) picks its pivot rows by a tournament, chunks of 256 rows factored independently and a
  reduction tree of the candidates, then the winners' block is factored without pivoting and L21 = A21 U11^-1 (cuda:
  two launches a leaf instead of one grid synchronization a column; the fused path and FP64 keep partial pivoting;
  the host backend emulates it with the same leaves)
. -mat_pgx_lu_rbt <depth> - random butterfly transformation (cuda backend, real scalars; 0, the default: off; 1..4):
  a matrix that partial pivoting would interchange rows of is transformed to U^T A V (U, V recursive butterflies of
  this depth with random diagonals, Parker 1995; MAGMA's dgesv_rbt) and factored WITHOUT pivoting in FP64, so its
  panels need no pivot search; every solve is refined against A in FP64 (the driver of the mixed precisions, the
  -mat_pgx_lu_refine_* and -mat_pgx_lu_gmres_* options), so the backward error is checked, not assumed. This is not
  partial pivoting: the factors are of U^T A V, and their accuracy comes from the refinement. The low precisions
  (-mat_pgx_lu_precision) are not transformed: their factors without pivoting were too inaccurate for the refinement
  (measured). Measured on an H200, random matrices: the FP64 factorization 1.9x faster than cusolverDnDgetrf at
  n = 4096, 1.55x at 16384, 1.3x at 32768 (bench/results, fortieth session). A breakdown of the transformed
  factorization (a pivot |u_jj| <= n eps ||A||_inf, or not finite), or a refinement that does not converge, factors A
  again with partial pivoting (-info says so): an exactly singular matrix still gets PETSc's zero-pivot failure from
  the factorization. The host backend pivots partially
. -mat_pgx_lu_rbt_seed <s> - seed of the butterflies' random diagonals (default 2013)
- -mat_pgx_lu_precision <double,tf32,half,bf16,auto,tf32x3> - factor in lower precision with tensor cores and
  refine in FP64, falling back to FP64 when the refinement stagnates (cuda backend; the host backend emulates
  the low precision, as the specification of the cuda one; auto: on the cuda backend tf32 when n >= -mat_pgx_lu_auto_min
  and A is diagonally dominant by rows, where the mixed solve is both faster and safe, else double; double on the host).
  tf32x3: FP32 factors whose products are each three tf32 tensor-core products (a_hi b_hi + a_hi b_lo + a_lo b_hi, a_hi
  = a rounded to tf32, a_lo = a - a_hi): as accurate as FP32, so matrices that need pivoting refine in a few plain
  steps where tf32 needs long GMRES-IR; its products cost three tf32 ones (the host backend factors in plain FP32)
. -mat_pgx_lu_auto_min <n> - smallest n at which auto factors in tf32 (default 16384: on an H100 the mixed solve is
  0.95x of FP64 getrf+getrs at n = 8192 and 1.34x at 16384 on a diagonally dominant matrix; on a plain random matrix,
  which needs pivoting, it takes 1.3-1.8x of the FP64 solve at n = 4096-16384 on an H200 even where it converges, and
  about twice where it falls back, which the dominance test avoids)

  Notes:
  The pivots are LAPACK dgetrf's (partial pivoting, first largest entry). An exactly singular matrix gives
  PETSc's zero-pivot failure (`MatFactorGetError()` returns `MAT_FACTOR_NUMERIC_ZEROPIVOT`, the column is
  named in -info and in the error under -ksp_error_if_not_converged); a NaN or Inf entry is an error.
  The user's matrix is not modified. Log events PGXDenseLUFactor and PGXDenseLUSolve.
  A mixed-precision solve is accepted when every column has ||b - A x||_inf <= sqrt(n) eps ||A||_inf ||x||_inf
  (LAPACK dsgesv's test: the backward error of FP64 LU); a step that does not reduce the residual tenfold
  switches plain refinement to GMRES-IR (tf32x3: judged from the second plain step on, as the first, from x = 0,
  measures no rate), and ends GMRES-IR in the FP64 fallback (-info says so and why); so do a
  rate that would not reach the test within 20 steps ("too slow") and a GMRES-IR correction whose Krylov residual
  fell less than 2x over 20 iterations ("GMRES-IR stalled", -mat_pgx_lu_gmres_stall), so that a failing attempt
  costs little.

  Level: beginner

.seealso: `PCLU`, `PCFactorSetMatSolverType()`, `MatGetFactor()`, `MATSOLVERPETSC`
M*/
PETSC_INTERN PetscErrorCode MatGetFactor_seqdense_pgx(Mat A, MatFactorType ftype, Mat *F)
{
  Mat             B;
  Mat_PGXDenseLU *lu;
  PetscInt        m, n;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCheck(m == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "MATSOLVERPGX dense LU needs a square matrix; this one is %" PetscInt_FMT " x %" PetscInt_FMT, m, n);
  if (ftype != MAT_FACTOR_LU) {
    PetscCall(PetscInfo(A, "MATSOLVERPGX on dense matrices does only MAT_FACTOR_LU\n"));
    *F = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(PetscStrallocpy("pgxdenselu", &((PetscObject)B)->type_name));
  PetscCall(MatSetUp(B));
  PetscCall(PetscNew(&lu));
  B->data                    = (void *)lu;
  lu->devreq                 = PGX_DEVICE_AUTO;
  lu->device                 = PGX_DEVICE_HOST;
  lu->nsmall                 = -1;
  lu->coop                   = PETSC_TRUE;
  lu->onchip                 = PETSC_TRUE;
  /* measured on the H100 (bench/results/2026-11-24-gpu-s5/call3-denselu.txt, n = 4096 and 16384): look-ahead with
     the panel on the greatest-priority stream and the interchanges inside the leaves is the fastest FP64 and mixed */
  lu->lookahead              = PETSC_TRUE;
  lu->priority               = PETSC_TRUE;
  lu->leafswaps              = PETSC_TRUE;
  lu->leftstream             = PETSC_TRUE; /* measured on an H200 (bench/results, twenty-second session): 0.6-2% faster from n = 8192 on */
  lu->pathreq                = kern::PATH_AUTO;
  lu->automin                = 16384; /* measured on the H100 (bench/results): the mixed solve is 0.95x of FP64 getrf+getrs at 8192, 1.34x at 16384 */
  lu->panelreq               = kern::PANEL_AUTO;
  /* measured on an H200 (bench/results, thirty-third session, random matrix, FP64 factor ms against cuSOLVER's getrf
     in the same run): PGX's own panels 0.56x (1024), 0.68x (2048), 0.72x (4096), 0.85x (8192), 1.01x (16384), 1.05x
     (32768); the whole matrix by cusolverDnDgetrf inside PGX 0.95-0.97x up to 8192 (the NaN pass and the pivots'
     conversion cost the rest), 0.97-0.98x above; cuSOLVER's panels in PGX's look-ahead loop 0.87-0.94x up to 8192 and
     1.01-1.05x above, within the spread of PGX's own panels there: so the whole matrix by cuSOLVER up to 8192, PGX's
     panels above */
  lu->wholemax               = 8192;
  lu->panelmax               = 0;
  lu->lowcsp                 = PETSC_TRUE;
  lu->clustermax             = 4096; /* measured on the H100 (bench/results, sixth session): the cluster path is 7-22% faster than blocked for 256 <= n <= 4096 */
  lu->precreq                = kern::PRECISION_DOUBLE;
  lu->ropt                   = kern::RefineOptionsDefault();
  lu->pivoting               = kern::PIVOTING_PARTIAL; /* tournament once measured faster on the GPU host (bench_denselu -pivotings) */
  lu->nopivot                = kern::NOPIVOT_AUTO;
  lu->rbt                    = 0;
  lu->rbtseed                = 2013;
  lu->precused               = kern::PRECISION_DOUBLE;
  lu->path                   = "blocked";
  lu->zerocol                = -1;
  lu->n                      = n;
  PetscCall(PGXGetDefaultDeviceType(&lu->devreq));
  B->ops->lufactorsymbolic   = MatLUFactorSymbolic_PGXDenseLU;
  B->ops->view               = MatView_PGXDenseLU;
  B->ops->getinfo            = MatGetInfo_PGXDenseLU;
  B->ops->destroy            = MatDestroy_PGXDenseLU;
  B->factortype              = MAT_FACTOR_LU;
  B->canuseordering          = PETSC_FALSE;
  B->assembled               = PETSC_TRUE;
  B->preallocated            = PETSC_TRUE;
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERPGX, &B->solvertype));
  PetscCall(PetscStrallocpy(MATORDERINGEXTERNAL, (char **)&B->preferredordering[MAT_FACTOR_LU]));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_pgx));
  *F = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode PGXRegister_DenseLU(void)
{
  PetscFunctionBegin;
  /* PETSc's own solver types must be registered first (MatInitializePackage() registers them only when it
     runs before any MatSolverTypeRegister()), else -pc_factor_mat_solver_type petsc is lost for SEQDENSE */
  PetscCall(MatInitializePackage());
  PetscCall(PetscLogEventRegister("PGXDenseLUFactor", PGX_CLASSID, &PGX_DenseLUFactor));
  PetscCall(PetscLogEventRegister("PGXDenseLUSolve", PGX_CLASSID, &PGX_DenseLUSolve));
  PetscCall(MatSolverTypeRegister(MATSOLVERPGX, MATSEQDENSE, MAT_FACTOR_LU, PGXMatSolverFn(MatGetFactor_seqdense_pgx)));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSolverTypeRegister(MATSOLVERPGX, MATSEQDENSECUDA, MAT_FACTOR_LU, PGXMatSolverFn(MatGetFactor_seqdense_pgx)));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
