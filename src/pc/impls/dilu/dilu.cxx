/* PCDILU glue: diagonal-based incomplete LU (DIC for symmetric A), host reference and cuda backends.
   Kernels live behind dilu_kernels.h; this file only moves PETSc objects to plain arrays. */
#include <pgx/private/pgximpl.h>
#include <petsc/private/pcimpl.h>
#include "dilu_kernels.h"

namespace K   = pgx::kernels::dilu;
namespace ref = pgx::kernels::dilu::reference;

const char *const PCDILUOrderings[] = {"natural", "multicolor", "PCDILUOrdering", "PC_DILU_ORDERING_", NULL};

static PetscLogEvent PGX_DILUSetUp, PGX_DILUAnalysis, PGX_DILUApply, PGX_DILURichardson;

/* The schedule and data of one matrix (A, or A^T for PCApplyTranspose) on the host */
typedef struct {
  PetscInt     n, nnz;       /* size of the local block and its number of stored entries */
  PetscInt    *rowptr;       /* CSR pattern (A^T: built here; A: copied from the Mat, so it stays valid) */
  PetscInt    *colidx;
  PetscScalar *val;          /* values (A^T only; A's are taken from the Mat at each setup) */
  PetscInt    *perm;         /* A^T only: A^T's entry k is A's entry perm[k] */
  PetscInt     nlower;       /* levels (colors) of the lower sweep */
  PetscInt    *lorder, *llptr;
  PetscInt     nupper;       /* levels (colors) of the upper sweep */
  PetscInt    *uorder, *ulptr;
  ref::Host   *host;         /* host backend: the rows in elimination order, values and E (dilu_kernels.h) */
} PC_DILU_Sweeps;

typedef struct {
  /* options */
  PCDILUOrdering ordering;   /* natural or multicolor (PCDILUSetOrdering()) */
  PetscReal      shift;      /* added to every a_ii before factoring (PCDILUSetShift()) */
  PetscInt       wave;       /* multicolor: wave length of the coloring (PCDILUSetColorWave(), see DILU_COLOR_WAVE) */
  PetscBool      waveset;    /* the wave was set (-info says when the natural ordering ignores it) */
  PGXDeviceType  devreq;     /* -pgx_device as requested (auto, host, cuda) */
  /* set up */
  PGXDeviceType  device;     /* the backend that runs (host or cuda) */
  PetscBool      analyzed;   /* the symbolic part matches the current pattern, ordering and device */
  PCDILUOrdering analyzed_ordering;
  PetscInt       analyzed_wave;
  Mat            local;      /* the factored SEQAIJ matrix: pmat, its diagonal block, or a converted copy */
  PetscBool      localowned; /* local was converted here and is destroyed by Reset */
  PC_DILU_Sweeps A;          /* A's pattern and schedules (host; cuda: A.rowptr/colidx copied when first needed, see EnsureHostPattern()) */
  PC_DILU_Sweeps T;          /* A^T's, built on the first PCApplyTranspose() */
  PetscBool      haveT;      /* T is analyzed for the current pattern */
  PetscBool      Tvalues;    /* T.val holds the current values */
  PetscBool      devvalues;  /* cuda: the last numeric setup read A's values on the device (AIJCUSPARSE) */
  PetscObjectState valstate; /* cuda: the state of local whose values the device copy holds (PGXPCGetDeviceMatrix_C) */
  PetscInt      *pair;       /* position of a_ji for each lower a_ij, or -1 (host) */
  PetscInt      *color;      /* multicolor: color of each row (cuda: downloaded when first needed, see colorsonhost) */
  PetscBool      colorsonhost; /* cuda, multicolor: color[] holds the GPU's colors */
  PetscBool      colorrounds;  /* cuda, multicolor: color by rounds (default) or in one sync-free launch (-pc_dilu_color_rounds) */
  PetscBool      colorcoop;    /* cuda, multicolor, rounds: all rounds in one cooperative launch (default) or a launch per round (-pc_dilu_color_coop) */
  PetscInt      *rank;       /* multicolor: elimination position of each row (NULL for natural) */
  PetscInt       ncolors;    /* multicolor: number of colors */
  PetscScalar   *E;          /* the DILU diagonal (host backend) */
  PetscInt       badrow;     /* local row of the zero or non-finite E_ii, -1 if none */
  PetscScalar    badvalue;   /* that E_ii */
  void          *cu;         /* cuda backend: pgx::kernels::dilu::cuda::Data of A */
  void          *cuT;        /* cuda backend: ... of A^T */
  PGXVecStage    sx, sy;     /* staging of host Vecs to the device */
  PetscLogDouble t_analysis; /* seconds of the last analysis */
  PetscLogDouble t_numeric;  /* seconds of the last numeric setup */
  PetscInt       nanalysis;  /* analyses done (reuse check) */
  PetscInt       smallrows;  /* cuda, multicolor: at most this many rows -> single-block apply (-pc_dilu_single_block_rows) */
  PetscBool      pdl;        /* cuda, multicolor: programmatic dependent launches between colors (-pc_dilu_pdl) */
  PetscBool      permapply;  /* cuda, multicolor, other arrays: r gathered into the color order, y scattered (-pc_dilu_permuted_apply) */
  PetscBool      richardson; /* provide the fused PCApplyRichardson() where it applies (-pc_dilu_richardson) */
  PetscObjectState pstate;   /* Pmat's state at the last numeric setup: the fused steps read A's values as factored */
  PGXVecStage    sb;         /* staging of Richardson's right-hand side (cuda, host Vecs) */
  Vec            rz;         /* Richardson's unfused steps (Pmat changed since the setup): the correction */
} PC_DILU;

static PetscErrorCode SweepsFree(PC_DILU_Sweeps *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(s->rowptr, s->colidx, s->perm));
  PetscCall(PetscFree(s->val));
  PetscCall(PetscFree4(s->lorder, s->llptr, s->uorder, s->ulptr));
  PetscCall(ref::HostDestroy(&s->host));
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CudaDataDestroy(void **p)
{
  PetscFunctionBegin;
#if PGX_HAVE_CUDA
  K::cuda::Data *d = (K::cuda::Data *)*p;
  PetscCall(K::cuda::Destroy(&d));
#endif
  *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_DILU(PC pc)
{
  PC_DILU *dilu = (PC_DILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SweepsFree(&dilu->A));
  PetscCall(SweepsFree(&dilu->T));
  PetscCall(PetscFree3(dilu->pair, dilu->color, dilu->E));
  PetscCall(PetscFree(dilu->rank));
  PetscCall(CudaDataDestroy(&dilu->cu));
  PetscCall(CudaDataDestroy(&dilu->cuT));
  PetscCall(PGXVecStageDestroy(&dilu->sx));
  PetscCall(PGXVecStageDestroy(&dilu->sy));
  PetscCall(PGXVecStageDestroy(&dilu->sb));
  PetscCall(VecDestroy(&dilu->rz));
  if (dilu->localowned) PetscCall(MatDestroy(&dilu->local));
  dilu->local      = NULL;
  dilu->localowned = PETSC_FALSE;
  dilu->analyzed   = PETSC_FALSE;
  dilu->haveT      = PETSC_FALSE;
  dilu->Tvalues    = PETSC_FALSE;
  dilu->badrow     = -1;
  pc->ops->applyrichardson = NULL; /* until the next setup */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The SEQAIJ matrix to factor: pmat (one rank), its diagonal block (MPI), converted when not AIJ */
static PetscErrorCode GetLocalMatrix(PC pc, PetscBool reuse)
{
  PC_DILU    *dilu = (PC_DILU *)pc->data;
  Mat         B;
  PetscMPIInt size;
  PetscBool   isaij, ismpi;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc->pmat), &size));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)pc->pmat, MATMPIAIJ, &ismpi));
  if (size == 1 && !ismpi) B = pc->pmat;
  else PetscCall(MatGetDiagonalBlock(pc->pmat, &B)); /* also an MPIAIJ on one rank */
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATSEQAIJ, &isaij));
  if (!isaij) PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &isaij, MATSEQAIJ, MATSEQAIJCUSPARSE, MATSEQAIJKOKKOS, MATSEQAIJPERM, MATSEQAIJSELL, MATSEQAIJMKL, ""));
  if (isaij) {
    if (dilu->localowned) PetscCall(MatDestroy(&dilu->local));
    dilu->local      = B;
    dilu->localowned = PETSC_FALSE;
  } else {
    MatType type;
    PetscCall(MatGetType(B, &type));
    PetscCall(PetscInfo(pc, "PCDILU: converting the %s matrix to MATSEQAIJ\n", type));
    if (reuse && dilu->localowned && dilu->local) PetscCall(MatConvert(B, MATSEQAIJ, MAT_REUSE_MATRIX, &dilu->local));
    else {
      if (dilu->localowned) PetscCall(MatDestroy(&dilu->local));
      PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &dilu->local));
      dilu->localowned = PETSC_TRUE;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetCSR(Mat B, PetscInt *n, const PetscInt **ia, const PetscInt **ja)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, n, ia, ja, &done));
  PetscCheck(done, PetscObjectComm((PetscObject)B), PETSC_ERR_SUP, "PCDILU: cannot get the CSR structure of the matrix");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreCSR(Mat B, PetscInt *n, const PetscInt **ia, const PetscInt **ja)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, n, ia, ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda: the host copy of A's pattern and of the GPU's colors, which the analysis does not make (for A^T) */
static PetscErrorCode EnsureHostPattern(PC_DILU *dilu)
{
  PetscInt        n, nr;
  const PetscInt *ia, *ja;

  PetscFunctionBegin;
  if (!dilu->A.rowptr) {
    PetscCall(GetCSR(dilu->local, &n, &ia, &ja));
    PetscCheck(n == dilu->A.n && ia[n] == dilu->A.nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCDILU: the host pattern (%" PetscInt_FMT " rows, %" PetscInt_FMT " entries) differs from the analyzed one (%" PetscInt_FMT ", %" PetscInt_FMT ")", n, ia[n], dilu->A.n, dilu->A.nnz);
    PetscCall(PetscMalloc3(n + 1, &dilu->A.rowptr, ia[n], &dilu->A.colidx, 0, &dilu->A.perm));
    PetscCall(PetscArraycpy(dilu->A.rowptr, ia, n + 1));
    PetscCall(PetscArraycpy(dilu->A.colidx, ja, ia[n]));
    PetscCall(RestoreCSR(dilu->local, &nr, &ia, &ja));
  }
#if PGX_HAVE_CUDA
  if (dilu->device == PGX_DEVICE_CUDA && dilu->ordering == PC_DILU_ORDERING_MULTICOLOR && !dilu->colorsonhost) {
    PetscCall(K::cuda::GetColors((K::cuda::Data *)dilu->cu, dilu->color, &dilu->ncolors));
    dilu->colorsonhost = PETSC_TRUE;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host schedules of the matrix in s (pattern already in s) */
static PetscErrorCode SweepsSchedule(PC_DILU *dilu, PC_DILU_Sweeps *s)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc4(s->n, &s->lorder, s->n + 1, &s->llptr, s->n, &s->uorder, s->n + 1, &s->ulptr));
  if (dilu->ordering == PC_DILU_ORDERING_MULTICOLOR) {
    PetscCall(ref::ColorSchedule(s->n, dilu->color, dilu->ncolors, PETSC_FALSE, s->lorder, s->llptr));
    PetscCall(ref::ColorSchedule(s->n, dilu->color, dilu->ncolors, PETSC_TRUE, s->uorder, s->ulptr));
    s->nlower = s->nupper = dilu->ncolors;
  } else {
    PetscCall(ref::LevelSets(s->n, s->rowptr, s->colidx, NULL, PETSC_FALSE, s->lorder, s->llptr, &s->nlower));
    PetscCall(ref::LevelSets(s->n, s->rowptr, s->colidx, NULL, PETSC_TRUE, s->uorder, s->ulptr, &s->nupper));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDILUAnalyze(PC pc)
{
  PC_DILU        *dilu = (PC_DILU *)pc->data;
  PetscInt        n, nr;
  const PetscInt *ia, *ja;
  PetscLogDouble  t0, t1;

  PetscFunctionBegin;
  n = 0;
  PetscCall(PetscLogEventBegin(PGX_DILUAnalysis, pc, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(SweepsFree(&dilu->A));
  PetscCall(SweepsFree(&dilu->T));
  PetscCall(PetscFree3(dilu->pair, dilu->color, dilu->E));
  PetscCall(PetscFree(dilu->rank));
  PetscCall(CudaDataDestroy(&dilu->cu));
  PetscCall(CudaDataDestroy(&dilu->cuT));
  dilu->haveT = dilu->Tvalues = PETSC_FALSE;
  dilu->ncolors               = 0;

  if (dilu->device == PGX_DEVICE_CUDA) {
#if PGX_HAVE_CUDA
    /* the pattern goes to the GPU from PETSc's device copy (AIJCUSPARSE) or from the host CSR, with no host copy
       kept (EnsureHostPattern() makes one for A^T); the colors stay on the GPU until needed */
    K::cuda::Data  *d  = NULL;
    PetscBool       mc = dilu->ordering == PC_DILU_ORDERING_MULTICOLOR ? PETSC_TRUE : PETSC_FALSE;
    const PetscInt *dia = NULL, *dja = NULL;
    PetscLogDouble  tc[3];
    PetscCall(MatGetLocalSize(dilu->local, &n, NULL));
    dilu->A.n = n;
    PetscCall(PetscMalloc3(0, &dilu->pair, n, &dilu->color, n, &dilu->E));
    dilu->colorsonhost = PETSC_FALSE;
    PetscCall(K::cuda::Create(&d));
    dilu->cu = d;
    PetscCall(K::cuda::SetSingleBlockRows(d, dilu->smallrows));
    PetscCall(K::cuda::SetPermutedApply(d, dilu->permapply));
    PetscCall(K::cuda::SetPDL(d, dilu->pdl));
    PetscCall(K::cuda::SetColorWave(d, dilu->wave));
    PetscCall(K::cuda::SetColorRounds(d, dilu->colorrounds));
    PetscCall(K::cuda::SetColorCoop(d, dilu->colorcoop));
    PetscCall(PGXMatGetDevicePattern(dilu->local, &dia, &dja));
    PetscBool ondevice = dia ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscTime(&tc[0]));
    if (ondevice) {
      PetscCall(K::cuda::AnalyzeDevice(d, n, dia, dja, mc, &dilu->A.nnz, &dilu->A.nlower, &dilu->A.nupper));
      PetscCall(PGXMatRestoreDevicePattern(dilu->local, &dia, &dja));
    } else {
      PetscCall(GetCSR(dilu->local, &nr, &ia, &ja));
      dilu->A.nnz = ia[n];
      PetscCall(K::cuda::Analyze(d, n, ia, ja, mc, NULL, 0, &dilu->A.nlower, &dilu->A.nupper));
      PetscCall(RestoreCSR(dilu->local, &nr, &ia, &ja));
    }
    PetscCall(PetscTime(&tc[1]));
    if (mc) PetscCall(K::cuda::GetColors(d, NULL, &dilu->ncolors));
    PetscCall(PetscTime(&tc[2]));
    PetscCall(PetscInfo(pc, "PCDILU: cuda analysis from the pattern on the %s: setup %.2f ms, analysis %.2f ms\n", ondevice ? "device (PETSc's AIJCUSPARSE arrays)" : "host", 1e3 * (tc[0] - t0), 1e3 * (tc[2] - tc[0])));
#endif
  } else {
    PetscCall(GetCSR(dilu->local, &n, &ia, &ja));
    dilu->A.n   = n;
    dilu->A.nnz = ia[n];
    PetscCall(PetscMalloc3(n + 1, &dilu->A.rowptr, ia[n], &dilu->A.colidx, 0, &dilu->A.perm));
    PetscCall(PetscArraycpy(dilu->A.rowptr, ia, n + 1));
    PetscCall(PetscArraycpy(dilu->A.colidx, ja, ia[n]));
    PetscCall(RestoreCSR(dilu->local, &nr, &ia, &ja));
    PetscCall(PetscMalloc3(dilu->A.nnz, &dilu->pair, n, &dilu->color, n, &dilu->E));
    if (dilu->ordering == PC_DILU_ORDERING_MULTICOLOR) {
      PetscCall(ref::Color(n, dilu->A.rowptr, dilu->A.colidx, dilu->wave, dilu->color, &dilu->ncolors));
      PetscCall(PetscMalloc1(n, &dilu->rank));
      PetscCall(ref::RankFromColors(n, dilu->color, dilu->ncolors, dilu->rank));
    }
    PetscCall(ref::FindPairs(n, dilu->A.rowptr, dilu->A.colidx, dilu->rank, dilu->pair));
    PetscCall(SweepsSchedule(dilu, &dilu->A)); /* the level counts of PCView(); the host sweeps go by elimination order */
    PetscCall(ref::HostCreate(&dilu->A.host));
    PetscCall(ref::HostAnalyze(dilu->A.host, n, dilu->A.rowptr, dilu->A.colidx, dilu->rank, dilu->pair));
  }
  dilu->analyzed          = PETSC_TRUE;
  dilu->analyzed_ordering = dilu->ordering;
  dilu->analyzed_wave     = dilu->wave;
  dilu->nanalysis++;
  PetscCall(PetscTime(&t1));
  dilu->t_analysis = t1 - t0;
  if (dilu->ordering == PC_DILU_ORDERING_MULTICOLOR) PetscCall(PetscInfo(pc, "PCDILU: analysis of %" PetscInt_FMT " rows, %" PetscInt_FMT " entries: multicolor, %" PetscInt_FMT " colors (color wave %" PetscInt_FMT ") (%g s)\n", n, dilu->A.nnz, dilu->ncolors, dilu->wave, (double)dilu->t_analysis));
  else {
    PetscCall(PetscInfo(pc, "PCDILU: analysis of %" PetscInt_FMT " rows, %" PetscInt_FMT " entries: natural, %" PetscInt_FMT " lower and %" PetscInt_FMT " upper levels (%g s)\n", n, dilu->A.nnz, dilu->A.nlower, dilu->A.nupper, (double)dilu->t_analysis));
    if (dilu->waveset) PetscCall(PetscInfo(pc, "PCDILU: color wave %" PetscInt_FMT " ignored: it applies to the multicolor ordering only\n", dilu->wave));
  }
  PetscCall(PetscLogEventEnd(PGX_DILUAnalysis, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyRichardson_DILU(PC, Vec, Vec, Vec, PetscReal, PetscReal, PetscReal, PetscInt, PetscBool, PetscInt *, PCRichardsonConvergedReason *);

/* The fused PCApplyRichardson() needs the residual's matrix to be the factored one, whole: Amat == Pmat on one rank
   (on several ranks the factored matrix is the diagonal block, so PETSc's generic loop runs) */
static PetscErrorCode PCDILUSetRichardsonOp(PC pc)
{
  PC_DILU    *dilu = (PC_DILU *)pc->data;
  PetscMPIInt size = 1;

  PetscFunctionBegin;
  if (pc->pmat) PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc->pmat), &size));
  pc->ops->applyrichardson = (dilu->richardson && pc->pmat && pc->mat == pc->pmat && size == 1) ? PCApplyRichardson_DILU : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_DILU(PC pc)
{
  PC_DILU           *dilu = (PC_DILU *)pc->data;
  PGXDeviceType      device;
  const PetscScalar *a;
  PetscLogDouble     t0, t1;
  PetscBool          redo;

  PetscFunctionBegin;
  PetscCall(PGXPCCheckSquare(pc, "PCDILU"));
  PetscCall(PetscLogEventBegin(PGX_DILUSetUp, pc, 0, 0, 0));
  PetscCall(PGXDeviceResolve(PetscObjectComm((PetscObject)pc), dilu->devreq, &device));
  redo = (PetscBool)(!pc->setupcalled || pc->flag != SAME_NONZERO_PATTERN || !dilu->analyzed || device != dilu->device || dilu->ordering != dilu->analyzed_ordering || (dilu->ordering == PC_DILU_ORDERING_MULTICOLOR && dilu->wave != dilu->analyzed_wave));
  PetscCall(GetLocalMatrix(pc, (PetscBool)!redo));
  dilu->device = device;
  if (redo) PetscCall(PCDILUAnalyze(pc));

  PetscCall(PetscTime(&t0));
  dilu->Tvalues = PETSC_FALSE;
  if (dilu->device == PGX_DEVICE_CUDA) {
#if PGX_HAVE_CUDA
    const PetscScalar *da;
    PetscCall(PGXMatGetDeviceValuesRead(dilu->local, &da)); /* AIJCUSPARSE: A's values where PETSc keeps them */
    dilu->devvalues = da ? PETSC_TRUE : PETSC_FALSE;
    if (!da) PetscCall(MatSeqAIJGetArrayRead(dilu->local, &a));
    PetscCall(PetscLogGpuTimeBegin());
    if (da) PetscCall(K::cuda::FactorDevice((K::cuda::Data *)dilu->cu, da, dilu->shift, &dilu->badrow));
    else PetscCall(K::cuda::Factor((K::cuda::Data *)dilu->cu, a, dilu->shift, PETSC_FALSE, &dilu->badrow));
    PetscCall(PetscLogGpuTimeEnd());
    if (!da) PetscCall(MatSeqAIJRestoreArrayRead(dilu->local, &a));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscInfo(pc, "PCDILU: A's values read from %s; numeric factorization %.2f ms\n", da ? "the device (PETSc's AIJCUSPARSE array)" : "the host", 1e3 * (t1 - t0)));
    PetscCall(PetscObjectStateGet((PetscObject)dilu->local, &dilu->valstate));
    PetscCall(PetscLogGpuFlops(3.0 * dilu->A.nnz));
    if (dilu->badrow >= 0) {
      PetscCall(K::cuda::GetE((K::cuda::Data *)dilu->cu, dilu->E));
      dilu->badvalue = dilu->E[dilu->badrow];
    }
#endif
  } else {
    PetscCall(MatSeqAIJGetArrayRead(dilu->local, &a));
    PetscCall(ref::HostFactor(dilu->A.host, a, dilu->shift, dilu->E, &dilu->badrow));
    PetscCall(MatSeqAIJRestoreArrayRead(dilu->local, &a));
    if (dilu->badrow >= 0) dilu->badvalue = dilu->E[dilu->badrow];
    PetscCall(PetscLogFlops(3.0 * dilu->A.nnz));
  }
  PetscCall(PetscTime(&t1));
  dilu->t_numeric = t1 - t0;
  PetscCall(PetscLogEventEnd(PGX_DILUSetUp, pc, 0, 0, 0));

  if (dilu->badrow >= 0) {
    PetscInt rstart;
    PetscCall(MatGetOwnershipRange(pc->pmat, &rstart, NULL));
    PetscCheck(!pc->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "PCDILU: zero or non-finite pivot E_ii = %g in row %" PetscInt_FMT " (the diagonal is missing or zero, or the factorization broke down); try -pc_dilu_shift <s> (PCDILUSetShift())", (double)PetscRealPart(dilu->badvalue), rstart + dilu->badrow);
    PetscCall(PetscInfo(pc, "PCDILU: zero or non-finite pivot E_ii = %g in row %" PetscInt_FMT "\n", (double)PetscRealPart(dilu->badvalue), rstart + dilu->badrow));
    pc->failedreason = PC_FACTOR_NUMERIC_ZEROPIVOT;
  } else if (pc->failedreason == PC_FACTOR_NUMERIC_ZEROPIVOT) pc->failedreason = PC_NOERROR;
  PetscCall(PetscObjectStateGet((PetscObject)pc->pmat, &dilu->pstate));
  PetscCall(PCDILUSetRichardsonOp(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A^T's pattern, schedules (host or cuda) and values, built when first needed */
static PetscErrorCode PCDILUSetUpTranspose(PC pc)
{
  PC_DILU           *dilu = (PC_DILU *)pc->data;
  PC_DILU_Sweeps    *T    = &dilu->T;
  const PetscScalar *a;

  PetscFunctionBegin;
  if (!dilu->haveT) {
    PetscInt n = dilu->A.n, nnz = dilu->A.nnz;
    PetscCall(EnsureHostPattern(dilu));
    T->n   = n;
    T->nnz = nnz;
    PetscCall(PetscMalloc3(n + 1, &T->rowptr, nnz, &T->colidx, nnz, &T->perm));
    PetscCall(PetscMalloc1(nnz, &T->val));
    PetscCall(ref::Transpose(n, dilu->A.rowptr, dilu->A.colidx, T->rowptr, T->colidx, T->perm));
    if (dilu->device == PGX_DEVICE_CUDA) {
#if PGX_HAVE_CUDA
      K::cuda::Data *d  = NULL;
      PetscBool      mc = dilu->ordering == PC_DILU_ORDERING_MULTICOLOR ? PETSC_TRUE : PETSC_FALSE;
      PetscCall(K::cuda::Create(&d));
      dilu->cuT = d;
      PetscCall(K::cuda::SetSingleBlockRows(d, dilu->smallrows));
      PetscCall(K::cuda::SetPermutedApply(d, dilu->permapply));
      PetscCall(K::cuda::SetPDL(d, dilu->pdl));
      PetscCall(K::cuda::Analyze(d, n, T->rowptr, T->colidx, mc, mc ? dilu->color : NULL, dilu->ncolors, &T->nlower, &T->nupper));
#endif
    } else {
      PetscCall(SweepsSchedule(dilu, T));
      PetscCall(ref::HostCreate(&T->host));
      PetscCall(ref::HostAnalyze(T->host, n, T->rowptr, T->colidx, dilu->rank, NULL));
    }
    dilu->haveT   = PETSC_TRUE;
    dilu->Tvalues = PETSC_FALSE;
  }
  if (!dilu->Tvalues) {
    PetscCall(MatSeqAIJGetArrayRead(dilu->local, &a));
    for (PetscInt k = 0; k < T->nnz; k++) T->val[k] = a[T->perm[k]];
    PetscCall(MatSeqAIJRestoreArrayRead(dilu->local, &a));
    if (dilu->device == PGX_DEVICE_CUDA) {
#if PGX_HAVE_CUDA
      PetscInt bad;
      PetscCall(K::cuda::Factor((K::cuda::Data *)dilu->cuT, T->val, dilu->shift, PETSC_TRUE, &bad));
      PetscCall(K::cuda::ShareE((K::cuda::Data *)dilu->cuT, (K::cuda::Data *)dilu->cu));
#endif
    } else PetscCall(ref::HostSetValues(T->host, T->val, dilu->E));
    dilu->Tvalues = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDILUApply_Private(PC pc, Vec x, Vec y, PetscBool transpose)
{
  PC_DILU        *dilu = (PC_DILU *)pc->data;
  PC_DILU_Sweeps *s    = transpose ? &dilu->T : &dilu->A;

  PetscFunctionBegin;
  if (pc->failedreason) { /* PETSc's factor-failure convention: Inf output, the KSP stops with DIVERGED_PC_FAILED */
    PetscCall(PGXVecSetInf(y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (transpose) PetscCall(PCDILUSetUpTranspose(pc));
  PetscCall(PetscLogEventBegin(PGX_DILUApply, pc, x, y, 0));
  if (dilu->device == PGX_DEVICE_CUDA) {
#if PGX_HAVE_CUDA
    const PetscScalar *dx;
    PetscScalar       *dy;
    if (!dilu->sx) PetscCall(PGXVecStageCreate(&dilu->sx));
    if (!dilu->sy) PetscCall(PGXVecStageCreate(&dilu->sy));
    PetscCall(PGXVecGetDeviceArrayRead(x, dilu->sx, &dx));
    PetscCall(PGXVecGetDeviceArrayWrite(y, dilu->sy, &dy));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(K::cuda::Apply((K::cuda::Data *)(transpose ? dilu->cuT : dilu->cu), dx, dy));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(2.0 * s->nnz));
    PetscCall(PGXVecRestoreDeviceArrayWrite(y, dilu->sy, &dy));
    PetscCall(PGXVecRestoreDeviceArrayRead(x, dilu->sx, &dx));
#endif
  } else {
    const PetscScalar *xa;
    PetscScalar       *ya;
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(ref::HostApply(s->host, xa, ya));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCall(PetscLogFlops(2.0 * s->nnz));
  }
  PetscCall(PetscLogEventEnd(PGX_DILUApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_DILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCDILUApply_Private(pc, x, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyTranspose_DILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCDILUApply_Private(pc, x, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCApplyRichardson(): its steps x <- x + M^-1 (b - A x) with A = Pmat (= Amat, one rank), fused (dilu_kernels.h,
   Richardson()): the forward sweep forms each row's residual, the backward sweep adds into x. Like PCSOR's, the
   convergence criteria are ignored: always its steps, PCRICHARDSON_CONVERGED_ITS. */
static PetscErrorCode PCApplyRichardson_DILU(PC pc, Vec b, Vec y, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PC_DILU         *dilu = (PC_DILU *)pc->data;
  PetscObjectState state;
  PetscInt         nnz  = dilu->A.nnz, n = dilu->A.n;

  PetscFunctionBegin;
  PetscCall(PetscInfo(pc, "PCDILU: PCApplyRichardson, %" PetscInt_FMT " steps%s; convergence criteria ignored (rtol %g, abstol %g, dtol %g)\n", its, guesszero ? " from a zero guess" : "", (double)rtol, (double)abstol, (double)dtol));
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  if (pc->failedreason) { /* as PCApply: Inf; KSPSolve_Richardson() casts *reason to KSPConvergedReason, so the KSP stops
                            with KSP_DIVERGED_PC_FAILED after 0 iterations, as PETSc's generic loop does */
    PetscCall(PGXVecSetInf(y));
    *outits = 0;
    *reason = (PCRichardsonConvergedReason)KSP_DIVERGED_PC_FAILED;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(PGX_DILURichardson, pc, b, y, 0));
  PetscCall(PetscObjectStateGet((PetscObject)pc->pmat, &state));
  if (state != dilu->pstate || pc->mat != pc->pmat) { /* Pmat changed without a new setup (a reused preconditioner), or
                                                       a new Amat with the same Pmat (no new setup): M as factored, the
                                                       residual with Amat as now, as PETSc's loop */
    PetscCall(PetscInfo(pc, "PCDILU: Pmat changed since the factorization, or Amat != Pmat: unfused Richardson steps\n"));
    if (!dilu->rz) PetscCall(VecDuplicate(b, &dilu->rz));
    for (PetscInt k = 0; k < its; k++) {
      if (k == 0 && guesszero) PetscCall(PCDILUApply_Private(pc, b, y, PETSC_FALSE));
      else {
        PetscCall(MatMult(pc->mat, y, w));
        PetscCall(VecAYPX(w, -1.0, b));
        PetscCall(PCDILUApply_Private(pc, w, dilu->rz, PETSC_FALSE));
        PetscCall(VecAXPY(y, 1.0, dilu->rz));
      }
    }
  } else if (dilu->device == PGX_DEVICE_CUDA) {
#if PGX_HAVE_CUDA
    const PetscScalar *db, *dx0 = NULL;
    PetscScalar       *dx;
    if (!dilu->sx) PetscCall(PGXVecStageCreate(&dilu->sx));
    if (!dilu->sy) PetscCall(PGXVecStageCreate(&dilu->sy));
    if (!dilu->sb) PetscCall(PGXVecStageCreate(&dilu->sb));
    if (!guesszero) { /* x's guess on the device: a device Vec's own array, or staged into sx's buffer (which stays) */
      PetscCall(PGXVecGetDeviceArrayRead(y, dilu->sx, &dx0));
      const PetscScalar *keep = dx0;
      PetscCall(PGXVecRestoreDeviceArrayRead(y, dilu->sx, &dx0));
      dx0 = keep;
    }
    PetscCall(PGXVecGetDeviceArrayRead(b, dilu->sb, &db));
    PetscCall(PGXVecGetDeviceArrayWrite(y, dilu->sy, &dx));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(K::cuda::Richardson((K::cuda::Data *)dilu->cu, db, guesszero ? dx : dx0, dx, its, guesszero));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops((4.0 * nnz + 3.0 * n) * its - (guesszero && its > 0 ? 2.0 * nnz + n : 0.0)));
    PetscCall(PGXVecRestoreDeviceArrayWrite(y, dilu->sy, &dx));
    PetscCall(PGXVecRestoreDeviceArrayRead(b, dilu->sb, &db));
#endif
  } else {
    const PetscScalar *ba, *a;
    PetscScalar       *xa;
    PetscCall(MatSeqAIJGetArrayRead(dilu->local, &a));
    PetscCall(VecGetArrayRead(b, &ba));
    if (guesszero) PetscCall(VecGetArrayWrite(y, &xa));
    else PetscCall(VecGetArray(y, &xa));
    PetscCall(ref::HostRichardson(dilu->A.host, dilu->A.rowptr, dilu->A.colidx, a, ba, xa, its, guesszero));
    if (guesszero) PetscCall(VecRestoreArrayWrite(y, &xa));
    else PetscCall(VecRestoreArray(y, &xa));
    PetscCall(VecRestoreArrayRead(b, &ba));
    PetscCall(MatSeqAIJRestoreArrayRead(dilu->local, &a));
    PetscCall(PetscLogFlops((4.0 * nnz + 3.0 * n) * its - (guesszero && its > 0 ? 2.0 * nnz + n : 0.0)));
  }
  PetscCall(PetscLogEventEnd(PGX_DILURichardson, pc, b, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device copy of the factored matrix (composed as "PGXPCGetDeviceMatrix_C"): *B is the SEQAIJ matrix it was
   copied from (Pmat or its diagonal block; NULL when there is none: host backend, not set up) and *state B's state
   when its values were copied. The resident KSPs use it for their products instead of a second copy of A. */
static PetscErrorCode PGXPCGetDeviceMatrix_DILU(PC pc, Mat *B, PetscObjectState *state, PetscInt *n, PetscInt *nnz, const PetscInt **rowptr, const PetscInt **colidx, const PetscScalar **val)
{
  PC_DILU *dilu = (PC_DILU *)pc->data;

  PetscFunctionBegin;
  *B = NULL;
#if PGX_HAVE_CUDA
  if (pc->setupcalled && dilu->device == PGX_DEVICE_CUDA && dilu->cu && dilu->local && !pc->failedreason) {
    *B     = dilu->local;
    *state = dilu->valstate;
    PetscCall(K::cuda::GetDeviceMatrix((K::cuda::Data *)dilu->cu, n, nnz, rowptr, colidx, val));
  }
#else
  (void)dilu;
  (void)state;
  (void)n;
  (void)nnz;
  (void)rowptr;
  (void)colidx;
  (void)val;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device-array entry point (composed as "PGXPCApplyDevice_C") */
static PetscErrorCode PGXPCApplyDevice_DILU(PC pc, const PetscScalar *x, PetscScalar *y)
{
  PC_DILU *dilu = (PC_DILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(dilu->device == PGX_DEVICE_CUDA, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PGXPCApplyDevice() needs PCDILU set up with the cuda backend (-pgx_device cuda); this one runs on %s", PGXDeviceName(dilu->device));
#if PGX_HAVE_CUDA
  if (pc->failedreason) PetscCall(K::cuda::FillInf(dilu->A.n, y));
  else {
    PetscCall(PetscLogEventBegin(PGX_DILUApply, pc, 0, 0, 0));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(K::cuda::Apply((K::cuda::Data *)dilu->cu, x, y));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(2.0 * dilu->A.nnz));
    PetscCall(PetscLogEventEnd(PGX_DILUApply, pc, 0, 0, 0));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_DILU(PC pc, PGXOptionItems PetscOptionsObject)
{
  PC_DILU       *dilu = (PC_DILU *)pc->data;
  PCDILUOrdering ord  = dilu->ordering;
  PetscReal      shift = dilu->shift;
  PetscInt       wave  = dilu->wave;
  PetscBool      flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "DILU options");
  PetscCall(PetscOptionsEnum("-pc_dilu_ordering", "Schedule: natural (level sets, exactly sequential DILU) or multicolor", "PCDILUSetOrdering", PCDILUOrderings, (PetscEnum)ord, (PetscEnum *)&ord, &flg));
  if (flg) PetscCall(PCDILUSetOrdering(pc, ord));
  PetscCall(PetscOptionsReal("-pc_dilu_shift", "Shift added to the diagonal before factoring", "PCDILUSetShift", shift, &shift, &flg));
  if (flg) PetscCall(PCDILUSetShift(pc, shift));
  PetscCall(PetscOptionsInt("-pc_dilu_color_wave", "Multicolor: wave length of the coloring, 1..64 (7-point stencils: that many colors; each color is two dependent steps of the apply)", "PCDILUSetColorWave", wave, &wave, &flg));
  if (flg) PetscCall(PCDILUSetColorWave(pc, wave));
  PetscCall(PetscOptionsEnum("-pgx_device", "Where the kernels run: auto, host (reference), cuda", "PGXInitializePackage", PGXDeviceTypes, (PetscEnum)dilu->devreq, (PetscEnum *)&dilu->devreq, NULL));
  if (dilu->devreq != PGX_DEVICE_HOST) PetscCall(PGXCUDAProbeBegin()); /* the first CUDA calls (tenths of a second) on a thread of their own, beside the host work before the setup */
  PetscCall(PetscOptionsBoundedInt("-pc_dilu_single_block_rows", "cuda, multicolor: matrices with at most this many rows apply both sweeps in one single-block kernel (0: never)", "PCDILU", dilu->smallrows, &dilu->smallrows, NULL, 0));
  PetscCall(PetscOptionsBool("-pc_dilu_color_rounds", "cuda, multicolor: compute the coloring by rounds (default), else by one sync-free launch (the same colors)", "PCDILU", dilu->colorrounds, &dilu->colorrounds, NULL));
  PetscCall(PetscOptionsBool("-pc_dilu_color_coop", "cuda, multicolor, rounds: all rounds in one cooperative launch where the device allows (default), else a launch per round (the same colors)", "PCDILU", dilu->colorcoop, &dilu->colorcoop, NULL));
  PetscCall(PetscOptionsBool("-pc_dilu_pdl", "cuda, multicolor: launch each color's sweep kernel as a programmatic dependent launch of the previous one (sm_90 and later; the same bits)", "PCDILU", dilu->pdl, &dilu->pdl, NULL));
  PetscCall(PetscOptionsBool("-pc_dilu_richardson", "Under KSPRICHARDSON (scale 1, no monitors, Amat = Pmat, one rank): fused PCApplyRichardson, the forward sweep forms the residual, the backward sweep adds into x", "PCDILU", dilu->richardson, &dilu->richardson, &flg));
  if (flg && pc->setupcalled) PetscCall(PCDILUSetRichardsonOp(pc));
  PetscCall(PetscOptionsBool("-pc_dilu_permuted_apply", "cuda, multicolor: input/output arrays other than the first ones: gather r into the color order and scatter y around contiguous sweeps (else staging copies)", "PCDILU", dilu->permapply, &dilu->permapply, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_DILU(PC pc, PetscViewer viewer)
{
  PC_DILU    *dilu = (PC_DILU *)pc->data;
  PetscBool   iascii;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  DILU (DIC for symmetric matrices)%s: ordering %s, shift %g\n", size > 1 ? " of each rank's diagonal block" : "", PCDILUOrderings[dilu->ordering], (double)dilu->shift));
  if (!pc->setupcalled || !dilu->analyzed) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  not set up yet; backend requested: %s\n", PGXDeviceTypes[dilu->devreq]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  backend: %s (PGX " PGX_VERSION_STRING ")\n", PGXDeviceName(dilu->device)));
  if (pc->ops->applyrichardson) PetscCall(PetscViewerASCIIPrintf(viewer, "  Richardson: fused PCApplyRichardson (residual in the forward sweep, x += in the backward sweep; -pc_dilu_richardson)\n"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  Richardson: the generic KSPRICHARDSON loop (%s)\n", dilu->richardson ? "Amat != Pmat or several ranks" : "-pc_dilu_richardson false"));
  PetscCall(PGXViewDevice(viewer, dilu->device));
  if (dilu->device == PGX_DEVICE_CUDA) PetscCall(PetscViewerASCIIPrintf(viewer, "  A's values read from: %s\n", dilu->devvalues ? "the device (AIJCUSPARSE)" : "the host"));
  if (dilu->ordering == PC_DILU_ORDERING_MULTICOLOR) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  schedule: multicolor, %" PetscInt_FMT " colors (color wave %" PetscInt_FMT ")%s\n", dilu->ncolors, dilu->analyzed_wave, size > 1 ? " (rank 0)" : ""));
#if PGX_HAVE_CUDA
    if (dilu->device == PGX_DEVICE_CUDA && dilu->cu) {
      PetscBool single;
      PetscInt  path, rounds;
      PetscCall(K::cuda::GetColorPath((K::cuda::Data *)dilu->cu, &path, &rounds));
      if (path == 2) PetscCall(PetscViewerASCIIPrintf(viewer, "  coloring: on the GPU, %" PetscInt_FMT " rounds in one cooperative launch%s\n", rounds, size > 1 ? " (rank 0)" : ""));
      else if (path >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  coloring: on the GPU, %s%s\n", path == 1 ? "a launch per round" : "one sync-free launch", size > 1 ? " (rank 0)" : ""));
      PetscCall(K::cuda::GetSingleBlock((K::cuda::Data *)dilu->cu, &single));
      if (single) PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: both sweeps in one single-block kernel (%" PetscInt_FMT " rows <= -pc_dilu_single_block_rows %" PetscInt_FMT ")%s\n", dilu->A.n, dilu->smallrows, size > 1 ? " (rank 0)" : ""));
      else {
        PetscBool pdl;
        PetscCall(K::cuda::GetPDL((K::cuda::Data *)dilu->cu, &pdl));
        PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: one launch per color (CUDA graph)%s%s%s\n", pdl ? ", each a programmatic dependent launch of the previous" : "", dilu->permapply ? "; other arrays: gathered into the color order" : "; other arrays: staging copies", size > 1 ? " (rank 0)" : ""));
      }
    }
#endif
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "  schedule: natural level sets, %" PetscInt_FMT " lower and %" PetscInt_FMT " upper levels%s\n", dilu->A.nlower, dilu->A.nupper, size > 1 ? " (rank 0)" : ""));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  setup time: analysis %g s, numeric %g s%s\n", (double)dilu->t_analysis, (double)dilu->t_numeric, size > 1 ? " (rank 0)" : ""));
  if (dilu->badrow >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  factorization failed: E_ii = %g in local row %" PetscInt_FMT "\n", (double)PetscRealPart(dilu->badvalue), dilu->badrow));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDILUSetOrdering_DILU(PC pc, PCDILUOrdering ord)
{
  PC_DILU *dilu = (PC_DILU *)pc->data;

  PetscFunctionBegin;
  if (ord != dilu->ordering) pc->setupcalled = PETSC_FALSE; /* the next PCSetUp() redoes the analysis, also with the same matrix */
  dilu->ordering = ord;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDILUSetColorWave_DILU(PC pc, PetscInt wave)
{
  PC_DILU *dilu = (PC_DILU *)pc->data;

  PetscFunctionBegin;
  if (wave != dilu->wave && dilu->ordering == PC_DILU_ORDERING_MULTICOLOR) pc->setupcalled = PETSC_FALSE; /* as for the ordering */
  dilu->wave    = wave;
  dilu->waveset = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDILUGetColorWave_DILU(PC pc, PetscInt *wave)
{
  PetscFunctionBegin;
  *wave = ((PC_DILU *)pc->data)->wave;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDILUGetOrdering_DILU(PC pc, PCDILUOrdering *ord)
{
  PetscFunctionBegin;
  *ord = ((PC_DILU *)pc->data)->ordering;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDILUSetShift_DILU(PC pc, PetscReal shift)
{
  PetscFunctionBegin;
  ((PC_DILU *)pc->data)->shift = shift;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDILUGetShift_DILU(PC pc, PetscReal *shift)
{
  PetscFunctionBegin;
  *shift = ((PC_DILU *)pc->data)->shift;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* for tests: the number of analyses (symbolic setups) this PC has done, composed as "PCDILUGetAnalysisCount_C" */
static PetscErrorCode PCDILUGetAnalysisCount_DILU(PC pc, PetscInt *count)
{
  PetscFunctionBegin;
  *count = ((PC_DILU *)pc->data)->nanalysis;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* for tests: the number of colors of the last analysis (0: natural), composed as "PCDILUGetColorCount_C" */
static PetscErrorCode PCDILUGetColorCount_DILU(PC pc, PetscInt *ncolors)
{
  PC_DILU *dilu = (PC_DILU *)pc->data;

  PetscFunctionBegin;
  *ncolors = dilu->analyzed && dilu->analyzed_ordering == PC_DILU_ORDERING_MULTICOLOR ? dilu->ncolors : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* for tests: a copy of E (n entries of the local block), composed as "PCDILUGetDiagonal_C" */
static PetscErrorCode PCDILUGetDiagonal_DILU(PC pc, PetscScalar *E)
{
  PC_DILU *dilu = (PC_DILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(pc->setupcalled && dilu->analyzed, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCDILU is not set up");
  if (dilu->device == PGX_DEVICE_CUDA) {
#if PGX_HAVE_CUDA
    PetscCall(K::cuda::GetE((K::cuda::Data *)dilu->cu, E));
#endif
  } else PetscCall(PetscArraycpy(E, dilu->E, dilu->A.n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_DILU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_DILU(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUSetOrdering_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetOrdering_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUSetShift_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetShift_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUSetColorWave_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetColorWave_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetAnalysisCount_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetDiagonal_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetColorCount_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PGXPCApplyDevice_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PGXPCGetDeviceMatrix_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCDILUSetOrdering - Sets the schedule of the `PCDILU` factorization and sweeps.

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- ord - `PC_DILU_ORDERING_NATURAL` (level sets of the matrix's own ordering: exactly sequential DILU) or
        `PC_DILU_ORDERING_MULTICOLOR` (DILU of the color-permuted matrix: few sequential steps, usually weaker)

  Options Database Key:
. -pc_dilu_ordering <natural,multicolor> - the ordering

  Level: intermediate

  Note:
  Changing the ordering after `PCSetUp()` redoes the analysis at the next setup, also with the same matrix.

.seealso: `PCDILU`, `PCDILUGetOrdering()`, `PCDILUSetShift()`, `PCDILUSetColorWave()`
@*/
PetscErrorCode PCDILUSetOrdering(PC pc, PCDILUOrdering ord)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, ord, 2);
  PetscCheck(ord == PC_DILU_ORDERING_NATURAL || ord == PC_DILU_ORDERING_MULTICOLOR, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCDILUOrdering %d", (int)ord);
  PetscTryMethod(pc, "PCDILUSetOrdering_C", (PC, PCDILUOrdering), (pc, ord));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCDILUGetOrdering - Gets the schedule of the `PCDILU` factorization and sweeps.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. ord - the ordering

  Level: intermediate

.seealso: `PCDILU`, `PCDILUSetOrdering()`
@*/
PetscErrorCode PCDILUGetOrdering(PC pc, PCDILUOrdering *ord)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(ord, 2);
  PetscUseMethod(pc, "PCDILUGetOrdering_C", (PC, PCDILUOrdering *), (pc, ord));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCDILUSetShift - Sets a shift added to every diagonal entry before the `PCDILU` factorization, as
  PETSc's factor shifts do, for matrices with tiny, zero or negative diagonals.

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- shift - the shift (default 0)

  Options Database Key:
. -pc_dilu_shift <shift> - the shift

  Level: intermediate

.seealso: `PCDILU`, `PCDILUGetShift()`, `PCDILUSetOrdering()`
@*/
PetscErrorCode PCDILUSetShift(PC pc, PetscReal shift)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, shift, 2);
  PetscCheck(!PetscIsInfOrNanReal(shift), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCDILU shift must be finite, not %g", (double)shift);
  PetscTryMethod(pc, "PCDILUSetShift_C", (PC, PetscReal), (pc, shift));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCDILUGetShift - Gets the diagonal shift of `PCDILU`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. shift - the shift

  Level: intermediate

.seealso: `PCDILU`, `PCDILUSetShift()`
@*/
PetscErrorCode PCDILUGetShift(PC pc, PetscReal *shift)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(shift, 2);
  PetscUseMethod(pc, "PCDILUGetShift_C", (PC, PetscReal *), (pc, shift));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCDILUSetColorWave - Sets the wave length w of the coloring of the `PC_DILU_ORDERING_MULTICOLOR` schedule of `PCDILU`.

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- wave - the wave length, 1 to 64 (default 8)

  Options Database Key:
. -pc_dilu_color_wave <w> - the wave length

  Level: advanced

  Notes:
  The rows are colored greedily in the matrix's row order; a row takes the smallest color larger than all colors of
  its earlier neighbors when that is below w, else the smallest free color. On stencils in lexicographic order the
  color is the wavefront level modulo w, so most couplings keep their natural direction: a 7-point stencil gets w
  colors (w = 2: red-black), a 27-point one at least 8. Each color costs two dependent steps of the apply (one per
  sweep, a kernel launch each with the cuda backend), so a shorter wave applies faster; the Krylov iterations change
  with w, not monotonically (CG to rtol 1e-8 on the 7-point 20^3 Laplacian: 26 iterations with w = 2, 31 with 4,
  29 with 8, 24 with the natural ordering). w = 1 is the plain greedy coloring.

  The natural ordering ignores the wave (-info says so). Changing the wave after `PCSetUp()` redoes the analysis
  (the coloring) at the next setup, as a change of ordering does.

.seealso: `PCDILU`, `PCDILUGetColorWave()`, `PCDILUSetOrdering()`
@*/
PetscErrorCode PCDILUSetColorWave(PC pc, PetscInt wave)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, wave, 2);
  PetscCheck(wave >= 1 && wave <= DILU_COLOR_WAVE_MAX, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCDILU color wave %" PetscInt_FMT " is out of range: it must be in [1, %d]", wave, DILU_COLOR_WAVE_MAX);
  PetscTryMethod(pc, "PCDILUSetColorWave_C", (PC, PetscInt), (pc, wave));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCDILUGetColorWave - Gets the wave length of the multicolor coloring of `PCDILU`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. wave - the wave length

  Level: advanced

.seealso: `PCDILU`, `PCDILUSetColorWave()`
@*/
PetscErrorCode PCDILUGetColorWave(PC pc, PetscInt *wave)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(wave, 2);
  PetscUseMethod(pc, "PCDILUGetColorWave_C", (PC, PetscInt *), (pc, wave));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  PCDILU - Diagonal-based incomplete LU: M = (E+L) E^-1 (E+U), with L and U the strictly lower and upper
  parts of A and E the diagonal for which diag(M) = diag(A):
  E_ii = a_ii - sum_{j<i, a_ij != 0, a_ji != 0} a_ij a_ji / E_jj. For symmetric A this is DIC and M is
  symmetric positive definite when A is an M-matrix, so it serves `KSPCG`. Only E is new storage.

  Options Database Keys:
+ -pc_dilu_ordering <natural,multicolor> - natural: level sets of the matrix's own ordering, exactly
    sequential DILU (on 5- and 7-point stencils the same as ILU(0)/ICC(0)); multicolor: DILU of the matrix
    permuted by a distance-1 coloring of its symmetrized graph (computed on the GPU with the cuda backend),
    far fewer sequential steps, usually more iterations (`PCDILUSetOrdering()`). The coloring is greedy in
    the matrix's row order with colors following the wavefront modulo the color wave (default 8), so most
    couplings keep their natural direction. With the cuda backend the natural sweeps run cuSPARSE SpSV on A with E on its diagonal.
. -pc_dilu_shift <shift> - added to the diagonal before factoring (`PCDILUSetShift()`)
. -pc_dilu_color_wave <8> - multicolor: the wave length w of the coloring, 1 to 64; a 7-point stencil gets w colors
    (2: red-black), each color two dependent steps of the apply: shorter waves apply faster; the iterations change
    with w (`PCDILUSetColorWave()`)
. -pc_dilu_single_block_rows <0> - cuda backend, multicolor: a matrix (a rank's block) with at most this many rows
    applies both sweeps in one kernel of one thread block, a barrier between colors instead of a launch per color
    (coarse multigrid levels have few rows and many colors); the same result bit for bit; 0 (default) turns it off.
    Measured on an H100 in GAMG on ex45 100^3 with 8192 (levels of 233 and 7044 rows in 73 and 53 colors) it was
    slower than the per-color launches (a color step in one block costs about what a launch costs), so it is off
. -pc_dilu_permuted_apply <true> - cuda backend, multicolor: when PCApply gets arrays other than those its CUDA graph
    was captured on (device Vecs: GMRES's basis, multigrid smoothers), gather r into the color order, run both sweeps
    on contiguous arrays from a second graph and scatter y; false: copy r and y through staging arrays. The same result
    bit for bit. Measured on an H100 (ex45 100^3, CUDA Vecs): GAMG with dilu smoothing 6% faster, PETSc's CG on the
    first arrays unchanged (there the row-by-row gathers inside the sweeps are faster than a gather and a scatter).
. -pc_dilu_richardson <false> - under `KSPRICHARDSON` (PETSc calls `PCApplyRichardson()` with scale 1, the default or no
    convergence test, no monitors, no null space) a fused step x <- x + M^-1 (b - A x): the forward sweep forms each row's
    residual, the backward sweep adds its result into x, so a step reads A and U once with no separate product or
    vector passes. Only with Amat == Pmat on one rank (else PETSc's generic loop runs). Like `PCSOR`'s, it ignores the
    convergence criteria (-info says so): always the maximum number of iterations. The residual's row sums run in
    another order than `MatMult()`'s: the same iterates to round-off. With the cuda backend the multicolor (and natural
    per-level) sweeps are fused; the natural schedule with cuSPARSE SpSV (the default) runs unfused steps on the device.
    Off by default: on an H100 (GAMG on ex45 100^3 and aniso3d 100^3, dilu on the finest level) it was slower than
    PETSc's loop around `PCApply()`: the residual's rows are read in the color order, and under GMRES the finest
    level's vectors change with every application (one CUDA graph capture per call)
. -pc_dilu_color_rounds <true> - cuda backend, multicolor: color by rounds (one per step of the longest chain of
    earlier neighbors); false: one sync-free launch (slower on 3D stencils, measured); the same colors
. -pc_dilu_color_coop <true> - cuda backend, multicolor, rounds: all rounds in one cooperative launch, a grid
    synchronization between rounds (where the device supports cooperative launches); false: one launch per round;
    the same colors
. -pc_dilu_pdl <true> - cuda backend, multicolor, compute capability 9.0 and later: each color's sweep kernel is a
    programmatic dependent launch of the previous one: it loads its rows' entries while the previous color runs and
    waits only for the values it reads (the apply 20-30% faster on an H200); the same result bit for bit; ignored on
    older devices
- -pgx_device <auto,host,cuda> - where the kernels run (also read with the PC's prefix)

  Level: intermediate

  Notes:
  In parallel (`MATMPIAIJ`) this is the DILU of each rank's diagonal block, like `PCBJACOBI` with one
  block per rank and DILU on each block; couplings between ranks are ignored.

  As a smoother of `PCGAMG`, on the finest level only: -mg_levels_N_ksp_type richardson -mg_levels_N_ksp_max_it 1
  -mg_levels_N_pc_type dilu -mg_levels_N_pc_dilu_ordering multicolor (N the finest level, which -ksp_view shows). On
  an H100 with CUDA Vecs (bench/results/README.md) this took fewer iterations than GAMG's default smoother (Chebyshev
  with Jacobi) in less solve time on the 7-point Laplacian at 100^3 and 128^3 with CG (10 against 13) and on an
  anisotropic diffusion problem; with GMRES at 128^3 the iterations were the same (10). A convection-diffusion
  problem that GAMG's default smoother does not solve converged with DILU on every level (-mg_levels_pc_type dilu).

  `MATSEQAIJ` and `MATMPIAIJ` (and their subtypes) are used in place; other matrix types (`MATSEQBAIJ`,
  `MATSEQSBAIJ`, `MATSEQDENSE`, ...) are converted to `MATSEQAIJ` at each setup (the local block for MPI types).

  When the pattern is unchanged (`SAME_NONZERO_PATTERN`), a new setup only recomputes E; the level sets,
  colors and the device copy of the pattern are kept.

  Real and complex scalars, on the host and with the cuda backend (complex: the DILU of A itself, no conjugation,
  e.g. for complex symmetric Helmholtz operators).

  A missing or zero diagonal entry, or an E_ii that becomes zero or not finite, is a factorization failure:
  `PCGetFailedReason()` gives `PC_FACTOR_NUMERIC_ZEROPIVOT`, `PCApply()` returns Inf, the `KSP` stops with
  `KSP_DIVERGED_PC_FAILED`, and with -ksp_error_if_not_converged the error names the row. -pc_dilu_shift
  often cures it.

  `PCApplyTranspose()` uses M^T = (E+U^T) E^-1 (E+L^T), the DILU of A^T with the same E.
  With the cuda backend, `PGXPCApplyDevice()` applies the preconditioner to device arrays.

.seealso: `PCCreate()`, `PCSetType()`, `PCILU`, `PCICC`, `PCBJACOBI`, `PCDILUSetOrdering()`, `PCDILUSetShift()`, `PCDILUSetColorWave()`, `PGXPCApplyDevice()`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_DILU(PC pc)
{
  PC_DILU *dilu;

  PetscFunctionBegin;
  PetscCall(PetscNew(&dilu));
  pc->data       = (void *)dilu;
  dilu->ordering = PC_DILU_ORDERING_NATURAL;
  dilu->shift    = 0.0;
  dilu->wave     = DILU_COLOR_WAVE;
  dilu->badrow   = -1;
  dilu->smallrows = 0;
  dilu->permapply = PETSC_TRUE;
  dilu->pdl       = PETSC_TRUE;
  dilu->colorrounds = PETSC_TRUE;
  dilu->colorcoop   = PETSC_TRUE;
  dilu->richardson = PETSC_FALSE; /* measured slower than PETSc's loop around PCApply (bench/results, tenth session) */
  PetscCall(PGXGetDefaultDeviceType(&dilu->devreq));

  pc->ops->setup               = PCSetUp_DILU;
  pc->ops->apply               = PCApply_DILU;
  pc->ops->applytranspose      = PCApplyTranspose_DILU;
  pc->ops->reset               = PCReset_DILU;
  pc->ops->destroy             = PCDestroy_DILU;
  pc->ops->setfromoptions      = PCSetFromOptions_DILU;
  pc->ops->view                = PCView_DILU;
  pc->ops->applyrichardson     = NULL;
  pc->ops->applysymmetricleft  = NULL;
  pc->ops->applysymmetricright = NULL;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUSetOrdering_C", PCDILUSetOrdering_DILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetOrdering_C", PCDILUGetOrdering_DILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUSetShift_C", PCDILUSetShift_DILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetShift_C", PCDILUGetShift_DILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUSetColorWave_C", PCDILUSetColorWave_DILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetColorWave_C", PCDILUGetColorWave_DILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetAnalysisCount_C", PCDILUGetAnalysisCount_DILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetDiagonal_C", PCDILUGetDiagonal_DILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCDILUGetColorCount_C", PCDILUGetColorCount_DILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PGXPCApplyDevice_C", PGXPCApplyDevice_DILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PGXPCGetDeviceMatrix_C", PGXPCGetDeviceMatrix_DILU));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXRegister_DILU(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister(PCDILU, PCCreate_DILU));
  PetscCall(PetscLogEventRegister("PGXDILUSetUp", PC_CLASSID, &PGX_DILUSetUp));
  PetscCall(PetscLogEventRegister("PGXDILUAnalysis", PC_CLASSID, &PGX_DILUAnalysis));
  PetscCall(PetscLogEventRegister("PGXDILUApply", PC_CLASSID, &PGX_DILUApply));
  PetscCall(PetscLogEventRegister("PGXDILURichardson", PC_CLASSID, &PGX_DILURichardson));
  PetscFunctionReturn(PETSC_SUCCESS);
}
