/* PCAIPS: Neumann-series preconditioner on the tridiagonal part of the matrix (after Yuldashev, Repin and
   Spele's AIPS). A = P + R with P the tridiagonal part of the local diagonal block;
       y0 = P^{-1} r,  y_{k+1} = y0 - P^{-1} (R y_k)  (k < N),  y = omega y_N.
   The tridiagonal solves go to the batched solver of src/mat/utils/tridiag; R y = A y - P y goes through
   the (parallel) matrix, so on MPI the series is a global Neumann series, not block Jacobi. */
#include <pgx/private/pgximpl.h>
#include <pgx/tridiag.h>
#include <pgx/private/pgxdia.h>
#include <petsc/private/pcimpl.h>
#include "aips_kernels.h"

namespace K = pgx::kernels::aips;

static PetscLogEvent PGX_AIPSSetUp, PGX_AIPSApply, PGX_AIPSTridiagSolve, PGX_AIPSEstimate;
/* PGXAIPSSetUp's parts: P (and, from device values, R) extracted; the tridiagonal solver's symbolic and numeric
   setup; the rest (work vectors, R from host values, the ghost exchange) */
static PetscLogEvent PGX_AIPSSetUpExtract, PGX_AIPSSetUpTriSymbolic, PGX_AIPSSetUpTriNumeric, PGX_AIPSSetUpRest;

/* Default order, from the measurements in bench/aips (see the PCAIPS man page) */
#define PC_AIPS_DEFAULT_ORDER 3
/* R's diagonal block in DIA (cuda): at most this many diagonals (PGX_DIA_MAXDIAG of pgxdia.h's device kernel), and
   with auto at least this fill (DIA's 8 bytes a padded entry against CSR's 12 an entry) */
#define PC_AIPS_DIA_MAXDIAG 32
#define PC_AIPS_DIA_MINFILL (2.0 / 3.0)

const char *const PCAIPSRemainderFormats[] = {"auto", "csr", "dia", "PCAIPSRemainderFormat", "PC_AIPS_REMAINDER_", NULL};

typedef struct {
  /* options */
  PetscInt      order;     /* N: number of R products (0: y = omega P^{-1} r) */
  PetscReal     damping;   /* omega */
  PetscInt      threshold; /* blocks longer than this are solved by partitions (tridiagonal solver) */
  PetscBool     estimate;  /* estimate rho(P^{-1} R) at setup (-pc_aips_estimate_radius) */
  PGXDeviceType devreq;    /* -pgx_device as requested (auto: the package default) */
  PCAIPSRemainderFormat rformat; /* cuda: storage of R's diagonal block on the device (-pc_aips_remainder_format) */
  PetscBool     fuse;      /* cuda: each product with R formed inside the tridiagonal solve that takes it (-pc_aips_fused_remainder) */
  /* setup */
  PGXDeviceType       dev;     /* resolved backend */
  PetscInt            n;       /* local rows */
  PetscInt            nblocks; /* local blocks of P */
  PetscInt           *offsets; /* nblocks+1 block offsets */
  PetscScalar        *dl, *d, *du; /* P (host), n entries each */
  PetscBool           hostP;         /* dl, d, du hold P's current values (false: P is on the device only, d_tri; PCAIPSHostP()
                                        brings it where the host needs it) */
  PGXTridiag          T;        /* solver for P */
  PGXTridiag          Tt;       /* solver for P^T (built at the first transpose apply) */
  PetscBool           Ttvalid;  /* Tt matches the current P */
  PGXTridiagPivotInfo pivot;    /* zero-pivot report of the last numeric setup */
  PetscBool           seq;      /* one rank: the whole series can run on the device */
  PetscReal           radius;   /* estimate of rho(P^{-1} R), -1 when not computed */
  Vec                 y0, t;    /* work: P^{-1} r and R y_k */
  /* cuda backend */
  PGXVecStage  sr, sw, sy;      /* staging of Vecs to device arrays */
  /* R = A - P's diagonal block on the device, one copy: CSR (d_rowptr, d_col, d_val) or, when ndiag > 0, DIA
     (pgxdia.h: d_diaoff, d_val holding ndiag n values column-major by diagonal) */
  PetscInt    *d_rowptr, *d_col;
  PetscScalar *d_val, *d_y0, *d_t;
  PetscInt     ndiag;                         /* > 0: R's diagonal block in DIA with these many diagonals */
  PetscInt     diaoff[PC_AIPS_DIA_MAXDIAG];   /* their offsets (column - row), increasing (host) */
  PetscInt    *d_diaoff;                      /* the same on the device */
  PetscReal    diafill;                       /* R's entries / (ndiag n) */
  PetscInt     nrval;                         /* values of R's diagonal block on the device: nrem (CSR) or ndiag n (DIA) */
  PetscInt     rsource;                       /* R's device storage built from: 0 nothing yet, 1 host values, 2 device values (maps) */
  PetscBool    devvalues; /* the last setup read A's values on the device (AIJCUSPARSE): P and R gathered there */
  PetscInt     nrem;      /* entries of R's diagonal block */
  PetscInt     nodiag;    /* rows without a diagonal entry (counted when the maps are built) */
  PetscInt    *d_tripos, *d_rpos; /* device value maps (pgx::kernels::aips::reference::value_maps; d_rpos: R's, ordered
                                     as R's device values, -1 for DIA's padding), NULL until used */
  PetscScalar *d_tri;     /* P gathered on the device: dl, d, du (3 n) */
  /* cuda backend, several ranks: R's off-diagonal block (that of A) on the device, its ghost values exchanged
     through host buffers (only the entries other ranks need leave the device) */
  PetscInt        *d_orow, *d_ocol, nnzo;
  PetscScalar     *d_oval;
  PetscObjectState onzstate; /* nonzero state of pmat when the exchange was built */
  PGXGhost         ghost;    /* the ghost exchange (src/sys/ghost.cxx) */
  PetscInt         nfused, nunfused; /* products with R of the device applies: fused into the solve, or not */
  PetscInt         nsums;            /* device applies whose last solve also summed y'x and |y|^2 (PGXPCApplyDeviceDotNorm2) */
  /* cuda on one rank, A on the host (no AIJCUSPARSE): A's local block copied to the device, its pattern once per
     pattern and its values at every setup, so that P and R are extracted there as from AIJCUSPARSE's values
     (-pc_aips_device_setup); the resident KSPs read their products from this copy (PGXPCGetDeviceMatrix_C) */
  PetscBool        devsetup;          /* -pc_aips_device_setup */
  Mat              acopy;             /* the matrix copied (referenced), NULL when there is no copy */
  PetscObjectState avalstate;         /* acopy's state when its values were copied */
  PetscInt        *d_ia, *d_ja, annz; /* the copy: row offsets, column indices, entries */
  PetscScalar     *d_aa;
} PC_AIPS;

/* frees the off-diagonal block and the ghost exchange (cuda, several ranks) */
static PetscErrorCode PCAIPSGhostsFree(PC_AIPS *aips)
{
  PetscFunctionBegin;
  if (aips->d_orow) PetscCall(PGXDeviceFree(&aips->d_orow));
  if (aips->d_ocol) PetscCall(PGXDeviceFree(&aips->d_ocol));
  if (aips->d_oval) PetscCall(PGXDeviceFree(&aips->d_oval));
  PetscCall(PGXGhostDestroy(&aips->ghost));
  aips->nnzo     = 0;
  aips->onzstate = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* frees R's diagonal block on the device (CSR or DIA) and its value map (cuda) */
static PetscErrorCode PCAIPSRemainderFree(PC_AIPS *aips)
{
  PetscFunctionBegin;
  if (aips->d_rowptr) PetscCall(PGXDeviceFree(&aips->d_rowptr));
  if (aips->d_col) PetscCall(PGXDeviceFree(&aips->d_col));
  if (aips->d_val) PetscCall(PGXDeviceFree(&aips->d_val));
  if (aips->d_rpos) PetscCall(PGXDeviceFree(&aips->d_rpos));
  if (aips->d_diaoff) PetscCall(PGXDeviceFree(&aips->d_diaoff));
  aips->ndiag   = 0;
  aips->diafill = 0;
  aips->nrem    = 0;
  aips->nrval   = 0;
  aips->rsource = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* frees the device copy of A's local block (cuda, one rank, A on the host) */
static PetscErrorCode PCAIPSDeviceCopyFree(PC_AIPS *aips)
{
  PetscFunctionBegin;
  if (aips->d_ia) PetscCall(PGXDeviceFree(&aips->d_ia));
  if (aips->d_ja) PetscCall(PGXDeviceFree(&aips->d_ja));
  if (aips->d_aa) PetscCall(PGXDeviceFree(&aips->d_aa));
  PetscCall(MatDestroy(&aips->acopy));
  aips->annz      = 0;
  aips->avalstate = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* R's diagonal block (nnz entries, m rows) goes to DIA on the nd offsets off[] (sorted; off may be aips->diaoff) */
static PetscErrorCode PCAIPSRemainderSetDIA(PC pc, PetscInt m, PetscInt nnz, PetscInt nd, const PetscInt off[])
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  aips->ndiag   = nd;
  aips->diafill = (PetscReal)nnz / ((PetscReal)nd * (PetscReal)m);
  for (PetscInt d = 0; d < nd; d++) aips->diaoff[d] = off[d];
  PetscCall(PetscInfo(pc, "PCAIPS: R's diagonal block in DIA: %" PetscInt_FMT " diagonals, fill %.3f (offsets %" PetscInt_FMT " .. %" PetscInt_FMT ")\n", nd, (double)aips->diafill, aips->diaoff[0], aips->diaoff[nd - 1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda: the storage of R's diagonal block, from its pattern (rp, rc: R's diagonal block as CSR on the host, as
   split_remainder or value_maps give it) and -pc_aips_remainder_format: sets aips->ndiag (0: CSR), diaoff, diafill */
static PetscErrorCode PCAIPSRemainderChooseFormat(PC pc, PetscInt m, const PetscInt *rp, const PetscInt *rc)
{
  PC_AIPS  *aips = (PC_AIPS *)pc->data;
  PetscInt  nd;
  PetscReal minfill = aips->rformat == PC_AIPS_REMAINDER_DIA ? 0.0 : PC_AIPS_DIA_MINFILL;

  PetscFunctionBegin;
  aips->ndiag   = 0;
  aips->diafill = 0;
  if (aips->rformat == PC_AIPS_REMAINDER_CSR) PetscFunctionReturn(PETSC_SUCCESS);
  if (!rp[m]) {
    PetscCall(PetscInfo(pc, "PCAIPS: R's diagonal block has no entries; CSR kept\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; i < m; i++) /* pgxdia.h's contract, and one DIA slot per entry: sorted, distinct columns */
    for (PetscInt k = rp[i] + 1; k < rp[i + 1]; k++)
      if (rc[k] <= rc[k - 1]) {
        PetscCall(PetscInfo(pc, "PCAIPS: row %" PetscInt_FMT " of R holds unsorted or repeated columns; R kept in CSR\n", i));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
  PetscCall(PGXDIAAnalyze(m, rp, rc, PC_AIPS_DIA_MAXDIAG, minfill, &nd, aips->diaoff));
  if (!nd) {
    PetscCall(PGXDIAAnalyze(m, rp, rc, PC_AIPS_DIA_MAXDIAG, 0.0, &nd, aips->diaoff)); /* why: too many diagonals, or too little fill */
    if (!nd) PetscCall(PetscInfo(pc, "PCAIPS: R's diagonal block has more than %d diagonals; R kept in CSR (-pc_aips_remainder_format %s)\n", PC_AIPS_DIA_MAXDIAG, PCAIPSRemainderFormats[aips->rformat]));
    else PetscCall(PetscInfo(pc, "PCAIPS: R's diagonal block lies on %" PetscInt_FMT " diagonals with fill %.3f, below %.3f: DIA does not pay, R kept in CSR (-pc_aips_remainder_format dia forces DIA)\n", nd, (double)rp[m] / ((double)nd * (double)m), (double)PC_AIPS_DIA_MINFILL));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCAIPSRemainderSetDIA(pc, m, rp[m], nd, aips->diaoff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if PGX_HAVE_CUDA
/* The maps of the setup from device values built on the device from A's device pattern (PETSc's AIJCUSPARSE row
   offsets and column indices), when R's diagonal block goes to DIA: P's positions (tripos), R's DIA positions and
   its offsets, without the host passes over the pattern. The same choice as PCAIPSRemainderChooseFormat(); where it
   would keep CSR, or the pattern is not on the device, or a row's columns are not increasing, nothing is built here
   (aips->d_tripos stays NULL) and the caller builds the maps on the host. tsu[2..4]: -info's times. */
static PetscErrorCode PCAIPSDeviceMaps(PC pc, Mat Ad, PetscInt m, PetscLogDouble tsu[])
{
  PC_AIPS        *aips = (PC_AIPS *)pc->data;
  const PetscInt *dia = NULL, *dja = NULL;
  PetscInt        info[4], off[PGX_DIA_MAXDIAG], nd;
  PetscInt       *tripos = NULL;
  PetscReal       minfill = aips->rformat == PC_AIPS_REMAINDER_DIA ? 0.0 : PC_AIPS_DIA_MINFILL;

  PetscBool       own = (PetscBool)(aips->d_ia != NULL); /* the pattern of PCAIPS's own device copy of A */

  PetscFunctionBegin;
  if (own) {
    dia = aips->d_ia;
    dja = aips->d_ja;
  } else PetscCall(PGXMatGetDevicePattern(Ad, &dia, &dja));
  if (!dia) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXDeviceMallocArray(PetscMax(3 * m, 1), &tripos));
  PetscCall(K::cuda::pattern_maps(m, dia, dja, PC_AIPS_DIA_MAXDIAG, tripos, info, off));
  nd = info[3];
  PetscCall(PetscTime(&tsu[2]));
  if (info[0] || !PGXDIAPays(info[2], nd, m, PC_AIPS_DIA_MAXDIAG, minfill)) { /* PCAIPSRemainderChooseFormat()'s rule */
    PetscCall(PetscInfo(pc, "PCAIPS: the maps from the device pattern decline (%s); the host builds them\n", info[0] ? "a row's columns are not increasing" : "R is not kept in DIA"));
    PetscCall(PGXDeviceFree(&tripos));
    if (!own) PetscCall(PGXMatRestoreDevicePattern(Ad, &dia, &dja));
    tsu[2] = tsu[1];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCAIPSRemainderFree(aips)); /* R built from host values before, if at all */
  aips->nrem = info[2];
  PetscCall(PCAIPSRemainderSetDIA(pc, m, info[2], nd, off));
  PetscCall(PetscIntMultError(nd, m, &aips->nrval));
  aips->d_tripos = tripos;
  PetscCall(PGXDeviceMallocArray(PetscMax(3 * m, 1), &aips->d_tri));
  PetscCall(PGXDeviceMallocArray(aips->nrval, &aips->d_rpos));
  PetscCall(PGXDeviceMallocArray(aips->nrval, &aips->d_val));
  PetscCall(PGXDeviceMallocArray(nd, &aips->d_diaoff));
  PetscCall(PGXDeviceCopyArrayToDevice(aips->d_diaoff, aips->diaoff, nd));
  PetscCall(PetscTime(&tsu[3]));
  PetscCall(K::cuda::dia_positions(m, dia, dja, nd, aips->diaoff, aips->d_rpos));
  PetscCall(PGXDeviceSynchronize()); /* the kernel has read PETSc's pattern before it is handed back */
  if (!own) PetscCall(PGXMatRestoreDevicePattern(Ad, &dia, &dja));
  PetscCall(PetscTime(&tsu[4]));
  aips->rsource = 2;
  aips->nodiag  = info[1];
  PetscCall(PetscInfo(pc, "PCAIPS: P's and R's maps built on the device from A's device pattern (%s)\n", own ? "PCAIPS's copy" : "AIJCUSPARSE's"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda, one rank, A on the host: A's local block on the device, its pattern when there is none yet (a new pattern
   resets the PC), its values at every setup; *da its device values */
static PetscErrorCode PCAIPSCopyToDevice(PC pc, Mat Ad, PetscInt m, const PetscInt *ia, const PetscInt *ja, const PetscScalar **da)
{
  PC_AIPS           *aips = (PC_AIPS *)pc->data;
  const PetscScalar *a;
  PetscObjectState   st;
  PetscLogDouble     t[4];
  PetscBool          pattern = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t[0]));
  t[1] = t[2] = t[0];
  if (!aips->d_aa || aips->acopy != Ad || aips->annz != ia[m]) {
    pattern = PETSC_TRUE;
    PetscCall(PCAIPSDeviceCopyFree(aips));
    if (aips->d_tripos) PetscCall(PGXDeviceFree(&aips->d_tripos)); /* maps of another copy's pattern */
    if (aips->d_tri) PetscCall(PGXDeviceFree(&aips->d_tri));
    aips->annz = ia[m];
    PetscCall(PGXDeviceMallocArray(m + 1, &aips->d_ia));
    PetscCall(PGXDeviceMallocArray(PetscMax(ia[m], 1), &aips->d_ja));
    PetscCall(PGXDeviceMallocArray(PetscMax(ia[m], 1), &aips->d_aa));
    PetscCall(PetscTime(&t[1]));
    PetscCall(PGXDeviceCopyArrayToDevice(aips->d_ia, ia, m + 1));
    if (ia[m]) PetscCall(PGXDeviceCopyArrayToDevice(aips->d_ja, ja, ia[m]));
    PetscCall(PetscObjectReference((PetscObject)Ad));
    aips->acopy = Ad;
    PetscCall(PetscTime(&t[2]));
  }
  PetscCall(MatSeqAIJGetArrayRead(Ad, &a));
  if (ia[m]) PetscCall(PGXDeviceCopyArrayToDevice(aips->d_aa, a, ia[m]));
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &a));
  PetscCall(PetscTime(&t[3]));
  if (pattern) PetscCall(PetscInfo(pc, "PCAIPS: A copied to the device: allocation %.1f ms, pattern %.1f ms (%.1f MB), values %.1f ms (%.1f MB)\n", 1e3 * (t[1] - t[0]), 1e3 * (t[2] - t[1]), 1e-6 * (double)((m + 1 + ia[m]) * sizeof(PetscInt)), 1e3 * (t[3] - t[2]), 1e-6 * (double)(ia[m] * sizeof(PetscScalar))));
  else PetscCall(PetscInfo(pc, "PCAIPS: A's values copied to the device: %.1f ms (%.1f MB)\n", 1e3 * (t[3] - t[2]), 1e-6 * (double)(ia[m] * sizeof(PetscScalar))));
  PetscCall(PetscObjectStateGet((PetscObject)Ad, &st));
  aips->avalstate = st;
  *da             = aips->d_aa;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The device copy of A's local block (composed as "PGXPCGetDeviceMatrix_C", as PCDILU's): *B the matrix copied and
   *state its state when its values were copied, NULL when there is none (host backend, several ranks, AIJCUSPARSE,
   -pc_aips_device_setup 0, not set up, or a failed setup). The resident KSPs read their products from it. */
static PetscErrorCode PGXPCGetDeviceMatrix_AIPS(PC pc, Mat *B, PetscObjectState *state, PetscInt *n, PetscInt *nnz, const PetscInt **rowptr, const PetscInt **colidx, const PetscScalar **val)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  *B = NULL;
  if (pc->setupcalled && aips->d_aa && aips->acopy && !pc->failedreason) {
    *B      = aips->acopy;
    *state  = aips->avalstate;
    *n      = aips->n;
    *nnz    = aips->annz;
    *rowptr = aips->d_ia;
    *colidx = aips->d_ja;
    *val    = aips->d_aa;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_AIPS(PC pc)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscFree(aips->offsets));
  PetscCall(PetscFree3(aips->dl, aips->d, aips->du));
  PetscCall(PGXTridiagDestroy(&aips->T));
  PetscCall(PGXTridiagDestroy(&aips->Tt));
  PetscCall(VecDestroy(&aips->y0));
  PetscCall(VecDestroy(&aips->t));
  PetscCall(PGXVecStageDestroy(&aips->sr));
  PetscCall(PGXVecStageDestroy(&aips->sw));
  PetscCall(PGXVecStageDestroy(&aips->sy));
  PetscCall(PCAIPSRemainderFree(aips));
  if (aips->d_y0) PetscCall(PGXDeviceFree(&aips->d_y0));
  if (aips->d_t) PetscCall(PGXDeviceFree(&aips->d_t));
  if (aips->d_tripos) PetscCall(PGXDeviceFree(&aips->d_tripos));
  if (aips->d_tri) PetscCall(PGXDeviceFree(&aips->d_tri));
  PetscCall(PCAIPSGhostsFree(aips));
  PetscCall(PCAIPSDeviceCopyFree(aips));
  aips->devvalues = PETSC_FALSE;
  aips->n        = 0;
  aips->nblocks  = 0;
  aips->Ttvalid  = PETSC_FALSE;
  aips->radius   = -1;
  aips->pivot.failed = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = alpha P^{-1} r + beta w (trans: P^{-T}) for Vecs, on either backend (cuda: staged through the device) */
static PetscErrorCode PCAIPSSolveVec(PC pc, PetscBool trans, PetscScalar alpha, Vec r, PetscScalar beta, Vec w, Vec y)
{
  PC_AIPS    *aips = (PC_AIPS *)pc->data;
  PGXTridiag  T    = trans ? aips->Tt : aips->T;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_AIPSTridiagSolve, pc, r, y, 0));
  if (aips->dev == PGX_DEVICE_HOST) {
    const PetscScalar *ra, *wa = NULL;
    PetscScalar       *ya;
    PetscCall(VecGetArrayRead(r, &ra));
    if (w) PetscCall(VecGetArrayRead(w, &wa));
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(PGXTridiagSolve(T, alpha, ra, beta, wa, ya));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    if (w) PetscCall(VecRestoreArrayRead(w, &wa));
    PetscCall(VecRestoreArrayRead(r, &ra));
  } else {
    const PetscScalar *ra, *wa = NULL;
    PetscScalar       *ya;
    PetscCall(PGXVecGetDeviceArrayRead(r, aips->sr, &ra));
    if (w) PetscCall(PGXVecGetDeviceArrayRead(w, aips->sw, &wa));
    PetscCall(PGXVecGetDeviceArrayWrite(y, aips->sy, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(PGXTridiagSolve(T, alpha, ra, beta, wa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PGXVecRestoreDeviceArrayWrite(y, aips->sy, &ya));
    if (w) PetscCall(PGXVecRestoreDeviceArrayRead(w, aips->sw, &wa));
    PetscCall(PGXVecRestoreDeviceArrayRead(r, aips->sr, &ra));
  }
  PetscCall(PetscLogFlops(5.0 * aips->n));
  PetscCall(PetscLogEventEnd(PGX_AIPSTridiagSolve, pc, r, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P on the host (dl, d, du) where the last setup left it on the device only (d_tri): for the host's products with P
   and the transpose's factorization */
static PetscErrorCode PCAIPSHostP(PC pc)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  if (aips->hostP) PetscFunctionReturn(PETSC_SUCCESS);
#if PGX_HAVE_CUDA
  PetscCheck(aips->d_tri, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCAIPS: P is neither on the host nor on the device");
  PetscCall(PGXDeviceCopyArrayToHost(aips->dl, aips->d_tri, aips->n));
  PetscCall(PGXDeviceCopyArrayToHost(aips->d, aips->d_tri + aips->n, aips->n));
  PetscCall(PGXDeviceCopyArrayToHost(aips->du, aips->d_tri + 2 * aips->n, aips->n));
  aips->hostP = PETSC_TRUE;
  PetscCall(PetscInfo(pc, "PCAIPS: P brought to the host\n"));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* t = R y = A y - P y (trans: R^T y = A^T y - P^T y), through the parallel matrix */
static PetscErrorCode PCAIPSRemainderProduct(PC pc, PetscBool trans, Vec y, Vec t)
{
  PC_AIPS           *aips = (PC_AIPS *)pc->data;
  const PetscScalar *ya;
  PetscScalar       *ta;

  PetscFunctionBegin;
  PetscCall(PCAIPSHostP(pc));
  if (trans) PetscCall(MatMultTranspose(pc->pmat, y, t));
  else PetscCall(MatMult(pc->pmat, y, t));
  PetscCall(VecGetArrayRead(y, &ya));
  PetscCall(VecGetArray(t, &ta));
  K::reference::sub_tridiagonal_product(aips->n, aips->dl, aips->d, aips->du, trans, ya, ta);
  PetscCall(VecRestoreArray(t, &ta));
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(PetscLogFlops(5.0 * aips->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host series' work vectors y0 and t, made when first needed: the all-device series has none (two vectors of n
   entries, whose pages the host touches first, cost 10-20 ms at 1-2M rows) */
static PetscErrorCode PCAIPSWorkVecs(PC pc)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  if (!aips->y0) PetscCall(MatCreateVecs(pc->pmat, &aips->y0, &aips->t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The series on Vecs (host backend; cuda backend on MPI, and transposes) */
static PetscErrorCode PCAIPSApplyVec(PC pc, PetscBool trans, Vec x, Vec y)
{
  PC_AIPS    *aips = (PC_AIPS *)pc->data;
  PetscScalar omega = aips->damping;

  PetscFunctionBegin;
  if (!aips->order) {
    PetscCall(PCAIPSSolveVec(pc, trans, omega, x, 0.0, NULL, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCAIPSWorkVecs(pc));
  PetscCall(PCAIPSSolveVec(pc, trans, 1.0, x, 0.0, NULL, aips->y0));
  for (PetscInt k = 1; k <= aips->order; k++) {
    const PetscBool last = (PetscBool)(k == aips->order);
    PetscCall(PCAIPSRemainderProduct(pc, trans, k == 1 ? aips->y0 : y, aips->t));
    PetscCall(PCAIPSSolveVec(pc, trans, last ? -omega : -1.0, aips->t, last ? omega : 1.0, aips->y0, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda, several ranks: the off-diagonal block of pmat on the device (values every setup, pattern and the ghost
   exchange when the nonzero state changed) */
static PetscErrorCode PCAIPSSetUpGhosts(PC pc)
{
  PC_AIPS           *aips = (PC_AIPS *)pc->data;
  Mat                Ao;
  const PetscInt    *ia, *ja;
  const PetscScalar *oa;
  PetscInt           nr;
  PetscBool          done;
  PetscObjectState   nz;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(pc->pmat, NULL, &Ao, NULL));
  PetscCall(MatGetNonzeroState(pc->pmat, &nz));
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCheck(done && nr == aips->n, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "MatGetRowIJ() failed on the local off-diagonal block");
  if (!aips->ghost || nz != aips->onzstate) {
    PetscCall(PCAIPSGhostsFree(aips));
    aips->nnzo = ia[nr];
#if PGX_HAVE_CUDA
    PetscCall(PGXGhostCreate(pc->pmat, PGX_DEVICE_CUDA, K::cuda::gather, &aips->ghost));
#else
    SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "PCAIPS: the device ghost exchange needs the cuda backend");
#endif
    PetscCall(PGXDeviceMallocArray(nr + 1, &aips->d_orow));
    PetscCall(PGXDeviceMallocArray(PetscMax(aips->nnzo, 1), &aips->d_ocol));
    PetscCall(PGXDeviceMallocArray(PetscMax(aips->nnzo, 1), &aips->d_oval));
    PetscCall(PGXDeviceCopyArrayToDevice(aips->d_orow, ia, nr + 1));
    if (aips->nnzo) PetscCall(PGXDeviceCopyArrayToDevice(aips->d_ocol, ja, aips->nnzo));
    aips->onzstate = nz;
  }
  PetscCall(MatSeqAIJGetArrayRead(Ao, &oa));
  if (aips->nnzo) PetscCall(PGXDeviceCopyArrayToDevice(aips->d_oval, oa, aips->nnzo));
  PetscCall(MatSeqAIJRestoreArrayRead(Ao, &oa));
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if PGX_HAVE_CUDA
/* t = R y on device arrays: R's diagonal block (CSR or DIA), plus (several ranks) its off-diagonal block on the ghost values of y,
   exchanged (PGXGhost: GPU to GPU, or through host buffers) while the diagonal block runs */
static PetscErrorCode PCAIPSRemainderDevice(PC pc, const PetscScalar *y, PetscScalar *t)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  if (aips->ghost) PetscCall(PGXGhostBegin(aips->ghost, y));
  if (aips->ndiag) PetscCall(K::cuda::dia_product(aips->n, aips->ndiag, aips->d_diaoff, aips->d_val, y, t));
  else PetscCall(K::cuda::csr_product(aips->n, aips->d_rowptr, aips->d_col, aips->d_val, y, t));
  if (aips->ghost) {
    const PetscScalar *g;
    PetscCall(PGXGhostEnd(aips->ghost, &g));
    PetscCall(K::cuda::csr_product_add(aips->n, aips->d_orow, aips->d_ocol, aips->d_oval, g, t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The series on device arrays (cuda backend): R is held on the device (several ranks: with a ghost exchange per
   product). d2 (device, or NULL): the last fused solve also sums conj(y)'x and |y|^2 into it, *done says whether it
   did (only fused solves do: R in DIA, one rank, a tiled solver without long blocks, order >= 1) */
static PetscErrorCode PCAIPSApplyDeviceSums(PC pc, const PetscScalar *x, PetscScalar *y, PetscScalar *d2, PetscBool *done)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  if (done) *done = PETSC_FALSE;
  PetscCheck(aips->dev == PGX_DEVICE_CUDA, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PGXPCApplyDevice() on PCAIPS needs the cuda backend (-pgx_device cuda); this PC runs on %s", PGXDeviceName(aips->dev));
#if PGX_HAVE_CUDA
  const PetscScalar omega = aips->damping;
  if (aips->pivot.failed) {
    PetscCall(K::cuda::fill(aips->n, PETSC_INFINITY, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(PGX_AIPSApply, pc, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (!aips->order) PetscCall(PGXTridiagSolve(aips->T, omega, x, 0.0, NULL, y));
  else {
    /* fused: y_{k+1} = y0 - P^{-1} (R y_k) in one pass (R's diagonal block in DIA, one rank, a tiled solver without
       long blocks). The pass reads y_k's neighbours while it writes y_{k+1}, so the iterates alternate between y
       and d_t, the last one landing in y */
    const PetscScalar *src  = aips->d_y0;
    PetscBool          fuse = PETSC_FALSE;
    if (aips->fuse && aips->ndiag && !aips->ghost) PetscCall(PGXTridiagSolveDIAFuses(aips->T, &fuse));
    PetscCall(PGXTridiagSolve(aips->T, 1.0, x, 0.0, NULL, aips->d_y0));
    for (PetscInt k = 1; k <= aips->order; k++) {
      const PetscBool last = (PetscBool)(k == aips->order);
      if (fuse) {
        PetscScalar *out = (aips->order - k) % 2 ? aips->d_t : y;
        if (last && d2) {
          PetscCall(PGXTridiagSolveDIADotNorm2(aips->T, -omega, aips->ndiag, aips->diaoff, aips->d_val, src, omega, aips->d_y0, out, x, d2));
          *done = PETSC_TRUE;
          aips->nsums++;
        } else PetscCall(PGXTridiagSolveDIA(aips->T, last ? -omega : -1.0, aips->ndiag, aips->diaoff, aips->d_val, src, last ? omega : 1.0, aips->d_y0, NULL, out, NULL));
        src = out;
        aips->nfused++;
      } else {
        PetscCall(PCAIPSRemainderDevice(pc, src, aips->d_t));
        PetscCall(PGXTridiagSolve(aips->T, last ? -omega : -1.0, aips->d_t, last ? omega : 1.0, aips->d_y0, y));
        src = y;
        aips->nunfused++;
      }
    }
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(PGX_AIPSApply, pc, 0, 0, 0));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAIPSApplyDevice_AIPS(PC pc, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(PCAIPSApplyDeviceSums(pc, x, y, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_AIPS(PC pc, Vec x, Vec y)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  if (aips->pivot.failed) {
    PetscCall(PetscInfo(pc, "PCAIPS: zero pivot in block %" PetscInt_FMT " row %" PetscInt_FMT "; output set to Inf\n", aips->pivot.block, aips->pivot.row));
    PetscCall(PGXVecSetInf(y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (aips->dev == PGX_DEVICE_CUDA) {
    const PetscScalar *xa;
    PetscScalar       *ya;
    PetscCall(PGXVecGetDeviceArrayRead(x, aips->sr, &xa));
    PetscCall(PGXVecGetDeviceArrayWrite(y, aips->sy, &ya));
    PetscCall(PCAIPSApplyDevice_AIPS(pc, xa, ya));
    PetscCall(PGXVecRestoreDeviceArrayWrite(y, aips->sy, &ya));
    PetscCall(PGXVecRestoreDeviceArrayRead(x, aips->sr, &xa));
  } else {
    PetscCall(PetscLogEventBegin(PGX_AIPSApply, pc, x, y, 0));
    PetscCall(PCAIPSApplyVec(pc, PETSC_FALSE, x, y));
    PetscCall(PetscLogEventEnd(PGX_AIPSApply, pc, x, y, 0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solver for P^T: the same blocks, sub- and super-diagonals exchanged */
static PetscErrorCode PCAIPSSetUpTranspose(PC pc)
{
  PC_AIPS     *aips = (PC_AIPS *)pc->data;
  PetscScalar *tl, *tu;

  PetscFunctionBegin;
  if (aips->Ttvalid) PetscFunctionReturn(PETSC_SUCCESS);
  if (!aips->Tt) {
    PetscCall(PGXTridiagCreate(aips->dev, &aips->Tt));
    PetscCall(PGXTridiagSetThreshold(aips->Tt, aips->threshold));
    PetscCall(PGXTridiagSetUpSymbolic(aips->Tt, aips->nblocks, aips->offsets));
  }
  PetscCall(PCAIPSHostP(pc));
  PetscCall(PetscMalloc2(aips->n, &tl, aips->n, &tu));
  for (PetscInt i = 0; i < aips->n; i++) {
    tl[i] = i ? aips->du[i - 1] : 0;
    tu[i] = i < aips->n - 1 ? aips->dl[i + 1] : 0;
  }
  PetscCall(PGXTridiagSetUpNumeric(aips->Tt, tl, aips->d, tu, &aips->pivot));
  PetscCall(PetscFree2(tl, tu));
  aips->Ttvalid = (PetscBool)!aips->pivot.failed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyTranspose_AIPS(PC pc, Vec x, Vec y)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  if (!aips->pivot.failed) PetscCall(PCAIPSSetUpTranspose(pc));
  if (aips->pivot.failed) {
    PetscCall(PGXVecSetInf(y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(PGX_AIPSApply, pc, x, y, 0));
  PetscCall(PCAIPSApplyVec(pc, PETSC_TRUE, x, y));
  PetscCall(PetscLogEventEnd(PGX_AIPSApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Power iteration on P^{-1} R: the geometric mean growth over the last 10 of 40 steps */
static PetscErrorCode PCAIPSEstimateRadius(PC pc)
{
  PC_AIPS    *aips = (PC_AIPS *)pc->data;
  Vec         v, w;
  PetscRandom rnd;
  PetscReal   nrm, logsum = 0;
  const int   its = 40, avg = 10;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_AIPSEstimate, pc, 0, 0, 0));
  PetscCall(PCAIPSWorkVecs(pc));
  PetscCall(MatCreateVecs(pc->pmat, &v, &w));
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)pc), &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20240611));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(v, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecNormalize(v, NULL));
  aips->radius = 0;
  for (int k = 0; k < its; k++) {
    PetscCall(PCAIPSRemainderProduct(pc, PETSC_FALSE, v, aips->t));
    PetscCall(PCAIPSSolveVec(pc, PETSC_FALSE, 1.0, aips->t, 0.0, NULL, w));
    PetscCall(VecNorm(w, NORM_2, &nrm));
    if (nrm == 0) { /* P^{-1} R v = 0: nilpotent on v (e.g. R = 0) */
      logsum = -PETSC_INFINITY;
      break;
    }
    if (k >= its - avg) logsum += PetscLogReal(nrm);
    PetscCall(VecScale(w, 1.0 / nrm));
    PetscCall(VecCopy(w, v));
  }
  aips->radius = PetscIsInfReal(logsum) ? 0 : PetscExpReal(logsum / avg);
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&w));
  PetscCall(PetscInfo(pc, "PCAIPS: estimated spectral radius of P^-1 R %g\n", (double)aips->radius));
  PetscCall(PetscLogEventEnd(PGX_AIPSEstimate, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_AIPS(PC pc)
{
  PC_AIPS           *aips = (PC_AIPS *)pc->data;
  Mat                Ad;
  PetscBool          isseq, ismpi, done, newlayout;
  PetscInt           nr, m, nb;
  const PetscInt    *ia, *ja;
  const PetscScalar *aa;
  PetscInt          *off;
  PGXDeviceType      req;
  PetscMPIInt        size;
  MPI_Comm           comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscCall(PGXPCCheckSquare(pc, "PCAIPS"));
  PetscCall(PetscLogEventBegin(PGX_AIPSSetUp, pc, 0, 0, 0));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)pc->pmat, MATSEQAIJ, &isseq));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)pc->pmat, MATMPIAIJ, &ismpi));
  PetscCheck(isseq || ismpi, comm, PETSC_ERR_SUP, "PCAIPS needs a MATSEQAIJ or MATMPIAIJ matrix, not %s", ((PetscObject)pc->pmat)->type_name);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (ismpi) PetscCall(MatGetDiagonalBlock(pc->pmat, &Ad));
  else Ad = pc->pmat;
  PetscCall(MatGetLocalSize(pc->pmat, &m, NULL));

  req = aips->devreq;
  if (req == PGX_DEVICE_AUTO) PetscCall(PGXGetDefaultDeviceType(&req));
  PetscCall(PGXDeviceResolve(comm, req, &req));
  if (pc->setupcalled && req != aips->dev) PetscCall(PCReset_AIPS(pc));
  if (pc->setupcalled && (pc->flag != SAME_NONZERO_PATTERN || m != aips->n)) PetscCall(PCReset_AIPS(pc));
  aips->dev = req;
  aips->seq = (PetscBool)(size == 1);

  /* P: the tridiagonal part of the local diagonal block */
  PetscCall(PetscLogEventBegin(PGX_AIPSSetUpExtract, pc, 0, 0, 0));
  if (!aips->d) {
    aips->n = m;
    PetscCall(PetscMalloc3(m, &aips->dl, m, &aips->d, m, &aips->du));
  }
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCheck(done && nr == m, comm, PETSC_ERR_PLIB, "MatGetRowIJ() failed on the local diagonal block");
  /* cuda on one rank with AIJCUSPARSE: A's values stay where PETSc keeps them; P and R are gathered there through
     maps built from the pattern (once per pattern); P's blocks are found and factored there (PGXTridiagSetUpNumericDevice()) */
  const PetscScalar *da = NULL;
  PetscInt           missing = 0;
  aa                         = NULL;
#if PGX_HAVE_CUDA
  PetscLogDouble tsu[6] = {0, 0, 0, 0, 0, 0}; /* -info: where the setup from device values goes */
  PetscCall(PetscTime(&tsu[0]));
  if (aips->dev == PGX_DEVICE_CUDA && aips->seq) {
    PetscCall(PGXMatGetDeviceValuesRead(Ad, &da));
    if (!da && aips->devsetup) PetscCall(PCAIPSCopyToDevice(pc, Ad, m, ia, ja, &da));
    else if (aips->acopy) PetscCall(PCAIPSDeviceCopyFree(aips)); /* AIJCUSPARSE's values now, or the option off */
  }
  PetscCall(PetscTime(&tsu[1]));
  tsu[2] = tsu[3] = tsu[4] = tsu[1];
  if (da && !aips->d_tripos && aips->rformat != PC_AIPS_REMAINDER_CSR) PetscCall(PCAIPSDeviceMaps(pc, Ad, m, tsu));
  if (da && !aips->d_tripos) { /* the maps on the host (PCAIPSDeviceMaps() declined) */
    PetscInt *tripos, *rp, *rc = NULL, *rpos = NULL;
    PetscCall(PetscMalloc2(3 * m, &tripos, m + 1, &rp));
    if (K::reference::value_maps(m, ia, ja, tripos, rp, NULL, NULL)) {
      PetscCall(PCAIPSRemainderFree(aips)); /* R built from host values before, if at all */
      PetscCall(PetscMalloc2(PetscMax(rp[m], 1), &rc, PetscMax(rp[m], 1), &rpos));
      (void)K::reference::value_maps(m, ia, ja, NULL, rp, rc, rpos);
      aips->nrem = rp[m];
      PetscCall(PetscTime(&tsu[2]));
      PetscCall(PCAIPSRemainderChooseFormat(pc, m, rp, rc));
      PetscCall(PGXDeviceMallocArray(PetscMax(3 * m, 1), &aips->d_tripos));
      PetscCall(PGXDeviceMallocArray(PetscMax(3 * m, 1), &aips->d_tri));
      PetscCall(PGXDeviceCopyArrayToDevice(aips->d_tripos, tripos, 3 * m));
      if (aips->ndiag) { /* DIA: diapos[d m + i] = position of R(i, i + off[d]) in A's values, -1 where R has none */
        const PetscInt nd = aips->ndiag;
        PetscInt      *diapos;
        PetscCall(PetscIntMultError(nd, m, &aips->nrval)); /* ndiag n values: checked against PetscInt overflow */
        PetscCall(PetscMalloc1(aips->nrval, &diapos));
        PetscCall(PGXDIAScatter<PetscInt>(m, rp, rc, rpos, -1, nd, aips->diaoff, diapos));
        PetscCall(PetscTime(&tsu[3]));
        PetscCall(PGXDeviceMallocArray(aips->nrval, &aips->d_rpos));
        PetscCall(PGXDeviceMallocArray(aips->nrval, &aips->d_val));
        PetscCall(PGXDeviceMallocArray(nd, &aips->d_diaoff));
        PetscCall(PGXDeviceCopyArrayToDevice(aips->d_rpos, diapos, aips->nrval));
        PetscCall(PGXDeviceCopyArrayToDevice(aips->d_diaoff, aips->diaoff, nd));
        PetscCall(PGXDeviceSynchronize());
        PetscCall(PetscFree(diapos));
      } else {
        PetscCall(PetscTime(&tsu[3]));
        aips->nrval = rp[m];
        PetscCall(PGXDeviceMallocArray(PetscMax(rp[m], 1), &aips->d_rpos));
        PetscCall(PGXDeviceMallocArray(m + 1, &aips->d_rowptr));
        PetscCall(PGXDeviceMallocArray(PetscMax(rp[m], 1), &aips->d_col));
        PetscCall(PGXDeviceMallocArray(PetscMax(rp[m], 1), &aips->d_val));
        PetscCall(PGXDeviceCopyArrayToDevice(aips->d_rowptr, rp, m + 1));
        if (rp[m]) {
          PetscCall(PGXDeviceCopyArrayToDevice(aips->d_rpos, rpos, rp[m]));
          PetscCall(PGXDeviceCopyArrayToDevice(aips->d_col, rc, rp[m]));
        }
      }
      PetscCall(PetscTime(&tsu[4]));
      aips->rsource = 2;
      for (PetscInt i = 0; i < m; i++)
        if (tripos[m + i] < 0) missing++;
      aips->nodiag = missing;
      PetscCall(PetscFree2(rc, rpos));
    } else {
      da = NULL; /* a column twice in a row: the host extraction sums them */
      PetscCall(PetscInfo(pc, "PCAIPS: a row of A holds a column twice; A's values read on the host\n"));
    }
    PetscCall(PetscFree2(tripos, rp));
  } else if (da) missing = aips->nodiag; /* counted with the maps: the pattern is unchanged */
  if (da) {
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(K::cuda::gather(3 * m, aips->d_tripos, da, aips->d_tri));
    PetscCall(K::cuda::gather(aips->nrval, aips->d_rpos, da, aips->d_val)); /* CSR, or DIA with zeros where pos < 0 */
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PGXDeviceSynchronize());
    PetscCall(PetscTime(&tsu[5]));
    PetscCall(PetscInfo(pc, "PCAIPS: setup from device values: A's device values %.1f ms, maps from the pattern %.1f ms, R's format %.1f ms, maps uploaded %.1f ms, P and R gathered %.1f ms\n", 1e3 * (tsu[1] - tsu[0]), 1e3 * (tsu[2] - tsu[1]), 1e3 * (tsu[3] - tsu[2]), 1e3 * (tsu[4] - tsu[3]), 1e3 * (tsu[5] - tsu[4])));
  }
#endif
  aips->devvalues = da ? PETSC_TRUE : PETSC_FALSE;
  aips->hostP     = PETSC_FALSE; /* P stays on the device from device values: its blocks found and factored there */
  if (!da) {
    PetscCall(MatSeqAIJGetArrayRead(Ad, &aa));
    missing     = K::reference::extract_tridiagonal(m, ia, ja, aa, aips->dl, aips->d, aips->du);
    aips->hostP = PETSC_TRUE;
  }
  PetscCall(PetscLogEventEnd(PGX_AIPSSetUpExtract, pc, 0, 0, 0));
  PetscCall(PetscInfo(pc, "PCAIPS: A's values read from %s\n", da ? (aips->acopy ? "the device (PCAIPS's copy of A)" : "the device (PETSc's AIJCUSPARSE array)") : "the host"));
  if (missing) PetscCall(PetscInfo(pc, "PCAIPS: %" PetscInt_FMT " rows without a diagonal entry\n", missing));
  /* blocks: redo the layout when the cuts moved (values may turn zero with the same pattern) */
  PetscCall(PetscMalloc1(m + 1, &off));
#if PGX_HAVE_CUDA
  if (da) PetscCall(K::cuda::block_offsets(m, aips->d_tri, aips->d_tri + 2 * m, off, &nb));
  else
#endif
    nb = K::reference::block_offsets(m, aips->dl, aips->du, off);
  newlayout = (PetscBool)(!aips->T || !aips->offsets || nb != aips->nblocks);
  if (!newlayout)
    for (PetscInt b = 0; b <= nb; b++)
      if (off[b] != aips->offsets[b]) {
        newlayout = PETSC_TRUE;
        break;
      }
  if (newlayout) {
    PetscCall(PetscLogEventBegin(PGX_AIPSSetUpTriSymbolic, pc, 0, 0, 0));
    PetscCall(PetscFree(aips->offsets));
    aips->offsets = off;
    aips->nblocks = nb;
    PetscCall(PGXTridiagDestroy(&aips->T));
    PetscCall(PGXTridiagDestroy(&aips->Tt));
    PetscCall(PGXTridiagCreate(aips->dev, &aips->T));
    PetscCall(PGXTridiagSetThreshold(aips->T, aips->threshold));
    PetscCall(PGXTridiagSetUpSymbolic(aips->T, nb, aips->offsets));
    PetscCall(PetscLogEventEnd(PGX_AIPSSetUpTriSymbolic, pc, 0, 0, 0));
  } else PetscCall(PetscFree(off));
  aips->Ttvalid = PETSC_FALSE;
  PetscCall(PetscLogEventBegin(PGX_AIPSSetUpTriNumeric, pc, 0, 0, 0));
#if PGX_HAVE_CUDA
  if (da) {
    PGXTridiagInfo ti;
    PetscBool      info;
    PetscCall(PGXTridiagSetUpNumericDevice(aips->T, aips->d_tri, aips->d_tri + m, aips->d_tri + 2 * m, &aips->pivot));
    PetscCall(PetscInfoEnabled(PC_CLASSID, &info));
    if (info) { /* PGXTridiagGetInfo() visits every block */
      PetscCall(PGXTridiagGetInfo(aips->T, &ti));
      PetscCall(PetscInfo(pc, "PCAIPS: P's %" PetscInt_FMT " blocks found on the device and factored %s\n", nb, ti.numdevice ? "there" : "through the host (a long block, or a refused pivot)"));
    }
  } else
#endif
    PetscCall(PGXTridiagSetUpNumeric(aips->T, aips->dl, aips->d, aips->du, &aips->pivot));
  PetscCall(PetscLogEventEnd(PGX_AIPSSetUpTriNumeric, pc, 0, 0, 0));
  pc->failedreason = PC_NOERROR;
  if (aips->pivot.failed) {
    pc->failedreason = PC_FACTOR_NUMERIC_ZEROPIVOT;
    PetscCall(PetscInfo(pc, "PCAIPS: zero or tiny pivot %g in tridiagonal block %" PetscInt_FMT " at local row %" PetscInt_FMT "\n", (double)PetscRealPart(aips->pivot.pivot), aips->pivot.block, aips->pivot.row));
  }

  /* work vectors, and R on the device for the all-device series */
  PetscCall(PetscLogEventBegin(PGX_AIPSSetUpRest, pc, 0, 0, 0));
  PetscLogDouble trest[2];
  PetscCall(PetscTime(&trest[0]));
  if (aips->dev == PGX_DEVICE_CUDA) {
    if (!aips->sr) {
      PetscCall(PGXVecStageCreate(&aips->sr));
      PetscCall(PGXVecStageCreate(&aips->sw));
      PetscCall(PGXVecStageCreate(&aips->sy));
    }
    if (!aips->devvalues) { /* R's diagonal block from the host values (several ranks: the off-diagonal block below) */
      PetscInt    *rp, *rc;
      PetscScalar *rv, *dv = NULL;
      PetscCall(PetscMalloc1(m + 1, &rp));
      K::reference::split_remainder(m, ia, ja, aa, rp, NULL, NULL);
      PetscCall(PetscMalloc2(rp[m], &rc, rp[m], &rv));
      K::reference::split_remainder(m, ia, ja, aa, rp, rc, rv);
      if (aips->rsource != 1 || aips->nrem != rp[m]) { /* a new pattern, or R came from the device values before */
        PetscCall(PCAIPSRemainderFree(aips));
        if (aips->d_tripos) PetscCall(PGXDeviceFree(&aips->d_tripos)); /* the device maps, rebuilt when device values come back */
        if (aips->d_tri) PetscCall(PGXDeviceFree(&aips->d_tri));
        aips->nrem = rp[m];
        PetscCall(PCAIPSRemainderChooseFormat(pc, m, rp, rc));
        if (aips->ndiag) {
          PetscCall(PetscIntMultError(aips->ndiag, m, &aips->nrval));
          PetscCall(PGXDeviceMallocArray(aips->ndiag, &aips->d_diaoff));
          PetscCall(PGXDeviceMallocArray(aips->nrval, &aips->d_val));
          PetscCall(PGXDeviceCopyArrayToDevice(aips->d_diaoff, aips->diaoff, aips->ndiag));
        } else {
          aips->nrval = rp[m];
          PetscCall(PGXDeviceMallocArray(m + 1, &aips->d_rowptr));
          PetscCall(PGXDeviceMallocArray(PetscMax(rp[m], 1), &aips->d_col));
          PetscCall(PGXDeviceMallocArray(PetscMax(rp[m], 1), &aips->d_val));
          PetscCall(PGXDeviceCopyArrayToDevice(aips->d_rowptr, rp, m + 1));
          if (rp[m]) PetscCall(PGXDeviceCopyArrayToDevice(aips->d_col, rc, rp[m]));
        }
        aips->rsource = 1;
      }
      if (aips->ndiag) { /* DIA values filled on the host, one copy */
        PetscCall(PetscMalloc1(aips->nrval, &dv));
        PetscCall(PGXDIAFill(m, rp, rc, rv, aips->ndiag, aips->diaoff, dv));
        PetscCall(PGXDeviceCopyArrayToDevice(aips->d_val, dv, aips->nrval));
      } else if (rp[m]) PetscCall(PGXDeviceCopyArrayToDevice(aips->d_val, rv, rp[m]));
      PetscCall(PGXDeviceSynchronize());
      PetscCall(PetscFree(dv));
      PetscCall(PetscFree2(rc, rv));
      PetscCall(PetscFree(rp));
    }
    if (!aips->seq) PetscCall(PCAIPSSetUpGhosts(pc));
    if (!aips->d_y0) {
      PetscCall(PGXDeviceMallocArray(PetscMax(m, 1), &aips->d_y0));
      PetscCall(PGXDeviceMallocArray(PetscMax(m, 1), &aips->d_t));
    }
  }
  if (aa) PetscCall(MatSeqAIJRestoreArrayRead(Ad, &aa));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCall(PetscTime(&trest[1]));
  PetscCall(PetscInfo(pc, "PCAIPS: the rest of the setup (R from host values, the device work arrays): %.1f ms\n", 1e3 * (trest[1] - trest[0])));
  PetscCall(PetscLogEventEnd(PGX_AIPSSetUpRest, pc, 0, 0, 0));

  aips->radius = -1;
  {
    PetscBool anyfailed = aips->pivot.failed;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &anyfailed, 1, PGX_MPI_BOOL, MPI_LOR, comm));
    if (aips->estimate && !anyfailed) PetscCall(PCAIPSEstimateRadius(pc));
  }
  PetscCall(PetscLogEventEnd(PGX_AIPSSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_AIPS(PC pc, PGXOptionItems PetscOptionsObject)
{
  PC_AIPS  *aips = (PC_AIPS *)pc->data;
  PetscInt  order = aips->order, thr = aips->threshold;
  PetscReal omega = aips->damping;
  PetscBool flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "AIPS options");
  PetscCall(PetscOptionsInt("-pc_aips_order", "Order N of the Neumann series (number of products with R)", "PCAIPSSetOrder", order, &order, &flg));
  if (flg) PetscCall(PCAIPSSetOrder(pc, order));
  PetscCall(PetscOptionsReal("-pc_aips_damping", "Damping omega: y = omega * series", "PCAIPSSetDamping", omega, &omega, &flg));
  if (flg) PetscCall(PCAIPSSetDamping(pc, omega));
  PetscCall(PetscOptionsInt("-pc_aips_block_threshold", "Tridiagonal blocks longer than this are solved by partitions", "PCAIPSSetBlockThreshold", thr, &thr, &flg));
  if (flg) PetscCall(PCAIPSSetBlockThreshold(pc, thr));
  {
    PCAIPSRemainderFormat fmt = aips->rformat;
    PetscCall(PetscOptionsEnum("-pc_aips_remainder_format", "Storage of R's diagonal block on the GPU: auto (DIA when it pays), csr, dia (DIA whenever R lies on at most 32 diagonals)", "PCAIPSSetRemainderFormat", PCAIPSRemainderFormats, (PetscEnum)fmt, (PetscEnum *)&fmt, &flg));
    if (flg) PetscCall(PCAIPSSetRemainderFormat(pc, fmt));
  }
  PetscCall(PetscOptionsBool("-pc_aips_fused_remainder", "cuda: form each product with R inside the tridiagonal solve that takes it, one pass (one rank, R in DIA, the tiled layout without long blocks)", "PCAIPS", aips->fuse, &aips->fuse, NULL));
  PetscCall(PetscOptionsBool("-pc_aips_device_setup", "cuda on one rank with A on the host: copy A's block to the device and extract P and R there (the resident KSPs share the copy); else on the host", "PCAIPS", aips->devsetup, &aips->devsetup, NULL));
  PetscCall(PetscOptionsBool("-pc_aips_estimate_radius", "Estimate the spectral radius of P^-1 R at setup (power iteration; shown by PCView)", "PCAIPS", aips->estimate, &aips->estimate, NULL));
  PetscCall(PetscOptionsEnum("-pgx_device", "Where the kernels run: auto, host (reference), cuda", "PGXInitializePackage", PGXDeviceTypes, (PetscEnum)aips->devreq, (PetscEnum *)&aips->devreq, NULL));
  if (aips->devreq != PGX_DEVICE_HOST) PetscCall(PGXCUDAProbeBegin()); /* the first CUDA calls (tenths of a second) on a thread of their own, beside the host work before the setup */
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_AIPS(PC pc, PetscViewer viewer)
{
  PC_AIPS  *aips = (PC_AIPS *)pc->data;
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  Neumann series of order %" PetscInt_FMT ", damping %g\n", aips->order, (double)aips->damping));
  if (!pc->setupcalled || !aips->T) {
    if (aips->threshold) PetscCall(PetscViewerASCIIPrintf(viewer, "  block threshold %" PetscInt_FMT "\n", aips->threshold));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  block threshold: the tridiagonal solver's default\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    MPI_Comm       comm = PetscObjectComm((PetscObject)pc);
    PGXTridiagInfo ti;
    PetscInt       sums[3], mins, maxs, maxg, maxlev;
    PetscCall(PGXTridiagGetInfo(aips->T, &ti));
    sums[0] = ti.nblocks;
    sums[1] = ti.n;
    sums[2] = ti.nlong;
    mins    = ti.nblocks ? ti.minsize : PETSC_INT_MAX;
    maxs    = ti.maxsize;
    maxg    = ti.ngroups;
    maxlev  = ti.nlevels;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sums, 3, MPIU_INT, MPI_SUM, comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &mins, 1, MPIU_INT, MPI_MIN, comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &maxs, 1, MPIU_INT, MPI_MAX, comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &maxg, 1, MPIU_INT, MPI_MAX, comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &maxlev, 1, MPIU_INT, MPI_MAX, comm));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  tridiagonal part P: %" PetscInt_FMT " blocks, size min %" PetscInt_FMT " max %" PetscInt_FMT " mean %.2f\n", sums[0], sums[0] ? mins : 0, maxs, sums[0] ? (double)sums[1] / sums[0] : 0.0));
    if (ti.layout == PGX_TRIDIAG_LAYOUT_TILED) PetscCall(PetscViewerASCIIPrintf(viewer, "  batched solver: tiled layout, %" PetscInt_FMT " tiles (rank 0), block threshold %" PetscInt_FMT ", %" PetscInt_FMT " blocks longer than the threshold, %" PetscInt_FMT " level(s)\n", ti.nchunks, ti.threshold, sums[2], maxlev));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  batched solver: interleaved layout, %" PetscInt_FMT " groups of equal size (max per rank), block threshold %" PetscInt_FMT ", %" PetscInt_FMT " blocks longer than the threshold, %" PetscInt_FMT " level(s)\n", maxg, ti.threshold, sums[2], maxlev));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  backend: %s (PGX " PGX_VERSION_STRING ")\n", PGXDeviceName(aips->dev)));
    if (aips->dev == PGX_DEVICE_CUDA && aips->seq) PetscCall(PetscViewerASCIIPrintf(viewer, "  A's values read from: %s\n", aips->devvalues ? (aips->acopy ? "the device (PCAIPS's copy of A, -pc_aips_device_setup; shared with the resident KSPs)" : "the device (AIJCUSPARSE)") : "the host"));
    if (aips->dev == PGX_DEVICE_CUDA) {
      PetscMPIInt size;
      PetscInt    ndia = aips->ndiag ? 1 : 0;
      char        where[128] = "";
      PetscCallMPI(MPI_Comm_size(comm, &size));
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ndia, 1, MPIU_INT, MPI_SUM, comm));
      if (size > 1) PetscCall(PetscSNPrintf(where, sizeof(where), " on rank 0; diagonal blocks in DIA on %" PetscInt_FMT " of %d ranks, off-diagonal blocks in CSR", ndia, (int)size));
      if (aips->ndiag) PetscCall(PetscViewerASCIIPrintf(viewer, "  remainder R: DIA, %" PetscInt_FMT " diagonals (fill %.2f)%s\n", aips->ndiag, (double)aips->diafill, where));
      else PetscCall(PetscViewerASCIIPrintf(viewer, "  remainder R: CSR%s\n", where));
      if (aips->order) PetscCall(PetscViewerASCIIPrintf(viewer, "  products with R fused into the tridiagonal solve (-pc_aips_fused_remainder %s): %" PetscInt_FMT " of %" PetscInt_FMT " device products%s\n", aips->fuse ? "1" : "0", aips->nfused, aips->nfused + aips->nunfused, size > 1 ? " on rank 0" : ""));
      if (aips->nsums) PetscCall(PetscViewerASCIIPrintf(viewer, "  applications whose last solve also summed y'x and ||y||^2 (a resident CG's z'r, ||z||): %" PetscInt_FMT "%s\n", aips->nsums, size > 1 ? " on rank 0" : ""));
    }
    if (aips->dev == PGX_DEVICE_CUDA && !aips->seq) {
      PetscInt    nsend, nghost;
      const char *path;
      PetscCall(PGXGhostGetSizes(aips->ghost, &nsend, &nghost));
      PetscCall(PGXGhostGetPath(aips->ghost, &path));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  products with R on the device; ghost exchange per product %s (rank 0: %" PetscInt_FMT " values out, %" PetscInt_FMT " in)\n", path, nsend, nghost));
    }
    PetscCall(PGXViewDevice(viewer, aips->dev));
    if (aips->radius >= 0) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "  estimated spectral radius of P^-1 R: %.4g\n", (double)aips->radius));
      if (aips->radius >= 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  WARNING: spectral radius >= 1: the Neumann series diverges as the order grows; use a low order or damping\n"));
    }
    if (aips->pivot.failed) PetscCall(PetscViewerASCIIPrintf(viewer, "  zero pivot %g in block %" PetscInt_FMT " at local row %" PetscInt_FMT "\n", (double)PetscRealPart(aips->pivot.pivot), aips->pivot.block, aips->pivot.row));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAIPSSetOrder_AIPS(PC pc, PetscInt order)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  aips->order = order;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCAIPSGetOrder_AIPS(PC pc, PetscInt *order)
{
  PetscFunctionBegin;
  *order = ((PC_AIPS *)pc->data)->order;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCAIPSSetDamping_AIPS(PC pc, PetscReal omega)
{
  PetscFunctionBegin;
  ((PC_AIPS *)pc->data)->damping = omega;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCAIPSGetDamping_AIPS(PC pc, PetscReal *omega)
{
  PetscFunctionBegin;
  *omega = ((PC_AIPS *)pc->data)->damping;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCAIPSSetBlockThreshold_AIPS(PC pc, PetscInt thr)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  if (thr != aips->threshold && pc->setupcalled) { /* the layout changes: redo the setup */
    PetscCall(PCReset_AIPS(pc));
    pc->setupcalled = 0;
  }
  aips->threshold = thr;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCAIPSGetBlockThreshold_AIPS(PC pc, PetscInt *thr)
{
  PetscFunctionBegin;
  *thr = ((PC_AIPS *)pc->data)->threshold;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAIPSSetRemainderFormat_AIPS(PC pc, PCAIPSRemainderFormat fmt)
{
  PC_AIPS *aips = (PC_AIPS *)pc->data;

  PetscFunctionBegin;
  if (fmt != aips->rformat && pc->setupcalled) { /* R's device storage changes: redo the setup */
    PetscCall(PCReset_AIPS(pc));
    pc->setupcalled = 0;
  }
  aips->rformat = fmt;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCAIPSGetRemainderFormat_AIPS(PC pc, PCAIPSRemainderFormat *fmt)
{
  PetscFunctionBegin;
  *fmt = ((PC_AIPS *)pc->data)->rformat;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_AIPS(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_AIPS(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSSetOrder_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSGetOrder_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSSetDamping_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSGetDamping_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSSetBlockThreshold_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSGetBlockThreshold_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSSetRemainderFormat_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSGetRemainderFormat_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PGXPCApplyDevice_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PGXPCApplyDeviceDotNorm2_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PGXPCGetDeviceMatrix_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  PCAIPS - Neumann-series preconditioner on the tridiagonal part of the matrix, after the AIPS
  preconditioner of Yuldashev, Repin and Spele for reservoir-simulation matrices.

  The matrix is split A = P + R, with P the tridiagonal part of the local diagonal block
  (a_{i,i-1}, a_{ii}, a_{i,i+1}); P falls apart into independent tridiagonal blocks wherever both
  a_{i,i+1} and a_{i+1,i} are zero, and never crosses a rank boundary. The preconditioner is the
  truncated Neumann series for A^{-1} = (I + P^{-1} R)^{-1} P^{-1},
.vb
    y0 = P^{-1} r,   y_{k+1} = y0 - P^{-1} (R y_k)   (k < N),   y = omega y_N
.ve
  so order N costs N products with R and N+1 tridiagonal solves. R y is computed as A y - P y with the
  (parallel) matrix, so on several ranks the series couples the ranks: it is a global Neumann series,
  not block Jacobi. The tridiagonal solves use PGX's batched solver with precomputed Thomas factors: on
  the GPU the rows are cut into tiles of whole blocks solved by parallel scans (coalesced, n/8 threads
  whatever the block sizes); on the host the blocks are grouped by size and interleaved. Blocks longer
  than the threshold are cut into partitions coupled by a reduced system.

  The series converges when the spectral radius of P^{-1} R is below 1: the strong couplings must lie
  inside the tridiagonal part (order the unknowns with the strong direction first).

  Real and complex scalars, on the host and on the GPU (the cuda kernels are generic in the scalar).

  Options Database Keys:
+ -pc_aips_order <N>             - order of the series, `PCAIPSSetOrder()` (default 3)
. -pc_aips_damping <omega>       - damping, `PCAIPSSetDamping()` (default 1)
. -pc_aips_block_threshold <n>   - blocks longer than this are solved by partitions, `PCAIPSSetBlockThreshold()` (default 0: the solver's)
. -pc_aips_estimate_radius       - estimate rho(P^{-1} R) by power iteration at setup; `PCView()` prints it with a warning when it is >= 1
. -pc_aips_remainder_format <auto,csr,dia> - cuda: storage of R's diagonal block on the GPU, `PCAIPSSetRemainderFormat()` (default auto)
. -pc_aips_fused_remainder <true,false> - cuda: each product with R formed inside the tridiagonal solve that takes it (default true)
. -pc_aips_device_setup <true,false> - cuda on one rank with A on the host: A's block copied to the device and P and R extracted there, the copy shared with the resident KSPs (default true)
- -pgx_device <auto,host,cuda>   - backend (also read with the PC's prefix)

  Level: intermediate

  Notes:
  The default order 3 comes from bench/aips. Iterations of GMRES(30) to 1e-8 for orders 0/1/2/3 on the
  gallery problems were 240/102/128/69 and 458/175/225/116 on aniso3d (m = 32, 48; host), 505/233/312/167
  on aniso3d m = 64 and 308/153/179/65 on convdiff3d m = 64 (cuda, H100). Odd orders beat even ones: on
  these stencils the coupling between grid lines is bipartite, so the eigenvalues of P^{-1} R come in pairs
  +-lambda and the preconditioned spectrum 1 - lambda^(N+1) stays on one side of 1 only for odd N. With the
  cuda backend an order-N apply costs about N R products plus N+1 tridiagonal solves (0.045 ms for order 3
  at n = 262144 on an H100), so the solve time follows the iterations: order 3 gave the shortest solves
  (1.7 s against 2.3 s for order 1 on aniso3d, 0.69 s against 1.39 s on convdiff3d, m = 64, bench/results/).
  On the host backend order 1 was slightly faster on aniso3d (1.6 s against 1.9 s at m = 48); use
  -pc_aips_order 1 there when each apply is expensive. Even orders are rarely worth it.

  A zero, tiny or non-finite pivot of a tridiagonal block (no pivoting is done) sets the PC's failed
  reason to `PC_FACTOR_NUMERIC_ZEROPIVOT`; the apply then returns Inf and the `KSP` stops with
  `KSP_DIVERGED_PC_FAILED`. `-info` names the block and row.

  Supports `MATSEQAIJ` and `MATMPIAIJ`. With -pgx_device cuda the whole series runs on the GPU (R held
  on the device) and `PGXPCApplyDevice()` applies it to device arrays; on several ranks each product with R
  adds the off-diagonal block's part from the ghost values, exchanged through host buffers (only the entries
  other ranks need leave the device) while the diagonal block's part runs. The transposed apply runs its
  products with R on the host matrix.

  With -pgx_device cuda on one rank and A on the host (a PETSc without CUDA), the setup copies A's block to the
  device (its pattern once, its values at every setup) and extracts P and R there; P's blocks are found and (blocks of
  at most 4089 rows, the tiled layout) factored there too, so that P comes to the host only for a transposed apply or a
  refused pivot's report. `KSPPGXCG`, `KSPPGXGMRES` and `KSPPGXBCGS` take their products from that copy,
  so A is on the GPU once. -pc_aips_device_setup 0 extracts P and R on the host instead and keeps no copy of A.

  With -pgx_device cuda, R's local diagonal block is held on the GPU in one of two formats: CSR (a column
  index and a value per entry) or DIA (the values of each of its few diagonals, no indices: 8 bytes an entry
  read contiguously instead of 12 read by rows). For a 7-point stencil R lies on 4 diagonals (offsets -n^2,
  -n, n, n^2). The default, auto, takes DIA when R has at most 32 distinct diagonals and its entries fill at
  least 2/3 of their padded storage; dia takes it whenever there are at most 32 diagonals (padding with zeros
  as needed); csr always keeps CSR. `-info` says why a request for DIA fell back to CSR, and `PCView()` shows
  the format. On several ranks the off-diagonal block stays in CSR. The host backend always uses the matrix.

  With R in DIA on one rank and the tiled layout (no block longer than the threshold), the products t = R y_k
  are not stored: the tridiagonal solve that takes each forms the rows of R y_k as it reads them
  (`PGXTridiagSolveDIA()`), one pass and one launch fewer per product, the same sums in the same order.
  -pc_aips_fused_remainder 0 keeps the product and the solve apart; `PCView()` counts the fused products.

.seealso: `PCAIPSSetOrder()`, `PCAIPSSetDamping()`, `PCAIPSSetBlockThreshold()`, `PCAIPSSetRemainderFormat()`, `PCJACOBI`, `PCBJACOBI`, `PGXPCApplyDevice()`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_AIPS(PC pc)
{
  PC_AIPS *aips;

  PetscFunctionBegin;
  PetscCall(PetscNew(&aips));
  pc->data        = (void *)aips;
  aips->order     = PC_AIPS_DEFAULT_ORDER;
  aips->damping   = 1.0;
  aips->threshold = 0; /* the tridiagonal solver's default for its layout */
  aips->devreq    = PGX_DEVICE_AUTO;
  aips->rformat   = PC_AIPS_REMAINDER_AUTO;
  aips->fuse      = PETSC_TRUE;
  aips->devsetup  = PETSC_TRUE;
  aips->dev       = PGX_DEVICE_HOST;
  aips->radius    = -1;

  pc->ops->apply          = PCApply_AIPS;
  pc->ops->applytranspose = PCApplyTranspose_AIPS;
  pc->ops->setup          = PCSetUp_AIPS;
  pc->ops->reset          = PCReset_AIPS;
  pc->ops->destroy        = PCDestroy_AIPS;
  pc->ops->setfromoptions = PCSetFromOptions_AIPS;
  pc->ops->view           = PCView_AIPS;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSSetOrder_C", PCAIPSSetOrder_AIPS));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSGetOrder_C", PCAIPSGetOrder_AIPS));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSSetDamping_C", PCAIPSSetDamping_AIPS));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSGetDamping_C", PCAIPSGetDamping_AIPS));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSSetBlockThreshold_C", PCAIPSSetBlockThreshold_AIPS));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSGetBlockThreshold_C", PCAIPSGetBlockThreshold_AIPS));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSSetRemainderFormat_C", PCAIPSSetRemainderFormat_AIPS));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAIPSGetRemainderFormat_C", PCAIPSGetRemainderFormat_AIPS));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PGXPCApplyDevice_C", PCAIPSApplyDevice_AIPS));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PGXPCApplyDeviceDotNorm2_C", PCAIPSApplyDeviceSums));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PGXPCGetDeviceMatrix_C", PGXPCGetDeviceMatrix_AIPS));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAIPSSetOrder - Sets the order N of the Neumann series (N products with R, N+1 tridiagonal solves).

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- order - N >= 0 (0: y = omega P^{-1} r, block-tridiagonal Jacobi; default 3)

  Options Database Key:
. -pc_aips_order <N> - the order

  Level: intermediate

.seealso: `PCAIPS`, `PCAIPSGetOrder()`, `PCAIPSSetDamping()`
@*/
PetscErrorCode PCAIPSSetOrder(PC pc, PetscInt order)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, order, 2);
  PetscCheck(order >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCAIPS order %" PetscInt_FMT " must be >= 0", order);
  PetscTryMethod(pc, "PCAIPSSetOrder_C", (PC, PetscInt), (pc, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAIPSGetOrder - Gets the order of the Neumann series.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. order - the order

  Level: intermediate

.seealso: `PCAIPS`, `PCAIPSSetOrder()`
@*/
PetscErrorCode PCAIPSGetOrder(PC pc, PetscInt *order)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(order, 2);
  PetscUseMethod(pc, "PCAIPSGetOrder_C", (PC, PetscInt *), (pc, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAIPSSetDamping - Sets the damping omega: the preconditioner is omega times the truncated series.

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- omega - the damping (> 0, default 1)

  Options Database Key:
. -pc_aips_damping <omega> - the damping

  Level: intermediate

.seealso: `PCAIPS`, `PCAIPSGetDamping()`, `PCAIPSSetOrder()`
@*/
PetscErrorCode PCAIPSSetDamping(PC pc, PetscReal omega)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, omega, 2);
  PetscCheck(omega > 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCAIPS damping %g must be > 0", (double)omega);
  PetscTryMethod(pc, "PCAIPSSetDamping_C", (PC, PetscReal), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAIPSGetDamping - Gets the damping omega.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. omega - the damping

  Level: intermediate

.seealso: `PCAIPS`, `PCAIPSSetDamping()`
@*/
PetscErrorCode PCAIPSGetDamping(PC pc, PetscReal *omega)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(omega, 2);
  PetscUseMethod(pc, "PCAIPSGetDamping_C", (PC, PetscReal *), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAIPSSetBlockThreshold - Tridiagonal blocks with more rows than this are not solved by one GPU thread
  but cut into partitions of at most this many rows, coupled through a reduced system, so that one long
  block does not serialize the solve.

  Logically Collective

  Input Parameters:
+ pc        - the preconditioner context
- threshold - 0 (default: the solver's own, 256 for the interleaved layout, 4089 = `PGX_TRIDIAG_TILE_ROWS` for the tiled one) or between 2 and 4096

  Options Database Key:
. -pc_aips_block_threshold <n> - the threshold

  Level: advanced

  Note:
  The tiled layout (the default on the GPU) solves blocks of up to `PGX_TRIDIAG_TILE_ROWS` rows in parallel
  within a tile, and caps the threshold there; bench/tridiag sweeps the threshold on one long block.

.seealso: `PCAIPS`, `PCAIPSGetBlockThreshold()`
@*/
PetscErrorCode PCAIPSSetBlockThreshold(PC pc, PetscInt threshold)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, threshold, 2);
  PetscCheck(threshold == 0 || (threshold >= 2 && threshold <= PGX_TRIDIAG_MAX_THRESHOLD), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCAIPS block threshold %" PetscInt_FMT " must be 0 (default) or in [2, %d]", threshold, PGX_TRIDIAG_MAX_THRESHOLD);
  PetscTryMethod(pc, "PCAIPSSetBlockThreshold_C", (PC, PetscInt), (pc, threshold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAIPSGetBlockThreshold - Gets the block threshold of the tridiagonal solver.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. threshold - the threshold

  Level: advanced

.seealso: `PCAIPS`, `PCAIPSSetBlockThreshold()`
@*/
PetscErrorCode PCAIPSGetBlockThreshold(PC pc, PetscInt *threshold)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(threshold, 2);
  PetscUseMethod(pc, "PCAIPSGetBlockThreshold_C", (PC, PetscInt *), (pc, threshold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAIPSSetRemainderFormat - Sets the storage of the remainder R = A - P's local diagonal block on the GPU
  (cuda backend): CSR, or DIA (the values of each diagonal, no column indices) when R lies on few diagonals.

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- fmt - `PC_AIPS_REMAINDER_AUTO` (default: DIA when R has at most 32 diagonals filled to at least 2/3),
        `PC_AIPS_REMAINDER_CSR` (always CSR) or `PC_AIPS_REMAINDER_DIA` (DIA whenever R has at most 32 diagonals)

  Options Database Key:
. -pc_aips_remainder_format <auto,csr,dia> - the format

  Level: advanced

  Notes:
  The host backend is not affected. When DIA is not taken, `-info` says why. `PCView()` shows the format in use.
  Changing the format after the setup redoes it at the next `PCSetUp()`.

.seealso: `PCAIPS`, `PCAIPSGetRemainderFormat()`, `PCAIPSSetOrder()`
@*/
PetscErrorCode PCAIPSSetRemainderFormat(PC pc, PCAIPSRemainderFormat fmt)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, fmt, 2);
  PetscCheck(fmt >= PC_AIPS_REMAINDER_AUTO && fmt <= PC_AIPS_REMAINDER_DIA, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCAIPS remainder format %d is not one of auto (0), csr (1), dia (2)", (int)fmt);
  PetscTryMethod(pc, "PCAIPSSetRemainderFormat_C", (PC, PCAIPSRemainderFormat), (pc, fmt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAIPSGetRemainderFormat - Gets the requested storage of the remainder R on the GPU.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. fmt - the format requested (`PCView()` shows the one in use)

  Level: advanced

.seealso: `PCAIPS`, `PCAIPSSetRemainderFormat()`
@*/
PetscErrorCode PCAIPSGetRemainderFormat(PC pc, PCAIPSRemainderFormat *fmt)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(fmt, 2);
  PetscUseMethod(pc, "PCAIPSGetRemainderFormat_C", (PC, PCAIPSRemainderFormat *), (pc, fmt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXRegister_AIPS(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister(PCAIPS, PCCreate_AIPS));
  PetscCall(PetscLogEventRegister("PGXAIPSSetUp", PC_CLASSID, &PGX_AIPSSetUp));
  PetscCall(PetscLogEventRegister("PGXAIPSApply", PC_CLASSID, &PGX_AIPSApply));
  PetscCall(PetscLogEventRegister("PGXAIPSTriSolve", PC_CLASSID, &PGX_AIPSTridiagSolve));
  PetscCall(PetscLogEventRegister("PGXAIPSEstimate", PC_CLASSID, &PGX_AIPSEstimate));
  PetscCall(PetscLogEventRegister("PGXAIPSSetUpExtr", PC_CLASSID, &PGX_AIPSSetUpExtract));
  PetscCall(PetscLogEventRegister("PGXAIPSSetUpTriS", PC_CLASSID, &PGX_AIPSSetUpTriSymbolic));
  PetscCall(PetscLogEventRegister("PGXAIPSSetUpTriN", PC_CLASSID, &PGX_AIPSSetUpTriNumeric));
  PetscCall(PetscLogEventRegister("PGXAIPSSetUpRest", PC_CLASSID, &PGX_AIPSSetUpRest));
  PetscFunctionReturn(PETSC_SUCCESS);
}
