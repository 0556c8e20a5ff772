/* The resident linear-algebra layer of the PGX Krylov methods (see resident.h): the operator's blocks and
   the work vectors in the memory of one backend, the operations the Krylov methods are written against
   (each one kernel of resident_kernels.h, plus one MPI_Allreduce for a reduction), the preconditioner
   binding, and the glue shared by KSPPGXCG, KSPPGXBCGS and KSPPGXGMRES. */
#include "resident.h"
#include <pgx/kspresident.h>
#include <pgx/private/pgxdia.h>

namespace K = pgx::kernels::resident;

PetscLogEvent PGX_KSPSetUp, PGX_KSPSolve, PGX_KSPSpMV, PGX_KSPPCApply, PGX_KSPOrthog, PGX_KSPCopy;
const char *const PGXResidentSpMVFormats[] = {"auto", "csr", "dia", "PGXResidentSpMVFormat", "PGX_RESIDENT_SPMV_", NULL};

/* ------------------------------------------------------------------------------------ backend memory */
static PetscErrorCode BAlloc(PGXResident r, size_t bytes, void **p)
{
  PetscFunctionBegin;
  *p = NULL;
  if (!bytes) bytes = sizeof(PetscScalar);
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PGXDeviceMalloc(bytes, p));
  else PetscCall(PetscCalloc(bytes, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class T>
static PetscErrorCode BFree(PGXResident r, T **p)
{
  PetscFunctionBegin;
  if (*p) {
    if (r->device == PGX_DEVICE_CUDA) PetscCall(PGXDeviceFree((void *)p));
    else PetscCall(PetscFree(*p));
  }
  *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* host -> backend, backend -> host. On the GPU these are the device layer's copies: b in and x out of a large system
   (8 MB at 1M unknowns) go through its pinned staging filled by host threads (-pgx_device_copy_*, pgxcopy.h), not
   through the driver's single-threaded staging of pageable memory */
static PetscErrorCode BPut(PGXResident r, void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PGXDeviceCopyToDevice(dst, src, bytes));
  else PetscCall(PetscMemcpy(dst, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BGet(PGXResident r, void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PGXDeviceCopyToHost(dst, src, bytes));
  else PetscCall(PetscMemcpy(dst, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LogFlops(PGXResident r, PetscLogDouble f)
{
  PetscFunctionBegin;
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuFlops(f));
  else PetscCall(PetscLogFlops(f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ create, destroy */
PetscErrorCode PGXResidentCreate(MPI_Comm comm, PGXResident *r)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(r));
  (*r)->comm   = comm;
  (*r)->device = PGX_DEVICE_HOST;
  (*r)->K      = &K::reference::backend;
  (*r)->redpeer = PETSC_TRUE;
  (*r)->mpifused = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(comm, &(*r)->size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Drops the DIA copy of the diagonal block (the SpMV reads the CSR until it is built again) */
static PetscErrorCode ResidentDIAFree(PGXResident r)
{
  PetscFunctionBegin;
  PetscCall(BFree(r, &r->doff));
  PetscCall(BFree(r, &r->dval));
  r->ndia     = 0;
  r->diabuilt = PETSC_FALSE;
  r->Ad.ndiag = 0;
  r->Ad.doff  = NULL;
  r->Ad.dval  = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees everything in backend memory and the operator's copy (kept: nothing) */
static PetscErrorCode PGXResidentReset(PGXResident r)
{
  PetscFunctionBegin;
  if (r->shared) { /* the PC's arrays */
    r->rowptr_d = r->colidx_d = NULL;
    r->val_d                  = NULL;
    r->shared                 = PETSC_FALSE;
  }
  PetscCall(BFree(r, &r->rowptr_d));
  PetscCall(BFree(r, &r->colidx_d));
  PetscCall(BFree(r, &r->val_d));
  PetscCall(BFree(r, &r->rowptr_o));
  PetscCall(BFree(r, &r->colidx_o));
  PetscCall(BFree(r, &r->val_o));
  PetscCall(ResidentDIAFree(r));
  PetscCall(BFree(r, &r->invdiag));
  PetscCall(BFree(r, &r->work));
  PetscCall(BFree(r, &r->hcoef));
  PetscCall(BFree(r, &r->dscal));
  PetscCall(PGXGhostDestroy(&r->gx));
  PetscCall(PGXDevReduceDestroy(&r->dred));
  r->dredtried = PETSC_FALSE;
  PetscCall(VecDestroy(&r->px));
  PetscCall(VecDestroy(&r->py));
  if (r->vstage) PetscCall(PGXVecStageDestroy(&r->vstage));
  PetscCall(MatDestroy(&r->A));
  PetscCall(MatDestroy(&r->jacmat));
  r->nwork = r->nwork_n = 0;
  r->nnzd = r->nnzo = r->nghost = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentDestroy(PGXResident *r)
{
  PetscFunctionBegin;
  if (!*r) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXResidentReset(*r));
  PetscCall(PetscFree(*r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ operator */
static PetscErrorCode CopyBlock(PGXResident r, Mat B, PetscBool pattern, PetscInt **rowptr, PetscInt **colidx, PetscScalar **val, PetscInt *nnz, K::CSR *csr, PetscInt ncols)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  PetscInt           nr;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the CSR of the local block");
  if (pattern) {
    PetscCall(BFree(r, rowptr));
    PetscCall(BFree(r, colidx));
    PetscCall(BFree(r, val));
    *nnz = ia[nr];
    PetscCall(BAlloc(r, (size_t)(nr + 1) * sizeof(PetscInt), (void **)rowptr));
    PetscCall(BAlloc(r, (size_t)ia[nr] * sizeof(PetscInt), (void **)colidx));
    PetscCall(BAlloc(r, (size_t)ia[nr] * sizeof(PetscScalar), (void **)val));
    PetscCall(BPut(r, *rowptr, ia, (size_t)(nr + 1) * sizeof(PetscInt)));
    PetscCall(BPut(r, *colidx, ja, (size_t)ia[nr] * sizeof(PetscInt)));
  }
  PetscCall(MatSeqAIJGetArrayRead(B, &a));
  PetscCall(BPut(r, *val, a, (size_t)ia[nr] * sizeof(PetscScalar)));
  PetscCall(MatSeqAIJRestoreArrayRead(B, &a));
  csr->nrows = nr;
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  csr->ncols  = ncols;
  csr->nnz    = *nnz;
  csr->rowptr = *rowptr;
  csr->colidx = *colidx;
  csr->val    = *val;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda: the PC's device copy of the operator's diagonal block Ad ("PGXPCGetDeviceMatrix_C": PCDILU, PCAIPS), *use
   when the PC holds Ad itself at its current state with n rows */
static PetscErrorCode PCDeviceMatrix(PGXResident r, PC pc, Mat Ad, PetscInt nrows, PetscBool *use, PetscInt *nnz, const PetscInt **rowptr, const PetscInt **colidx, const PetscScalar **val)
{
  Mat              B   = NULL;
  PetscObjectState st  = 0, bst = 0;
  PetscInt         n   = 0;

  PetscFunctionBegin;
  *use = PETSC_FALSE;
  if (r->device != PGX_DEVICE_CUDA || !pc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscTryMethod(pc, "PGXPCGetDeviceMatrix_C", (PC, Mat *, PetscObjectState *, PetscInt *, PetscInt *, const PetscInt **, const PetscInt **, const PetscScalar **), (pc, &B, &bst, &n, nnz, rowptr, colidx, val));
  if (B) PetscCall(PetscObjectStateGet((PetscObject)Ad, &st));
  *use = (PetscBool)(B && B == Ad && bst == st && n == nrows);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies A once; only its values when its nonzero state is unchanged; nothing when its state is unchanged. The
   diagonal block is not copied when the PC (set up before, PGXResidentSetUp) holds a device copy of it to share. */
static PetscErrorCode PGXResidentSetOperator(PGXResident r, Mat A, PC pc, const char ktype[])
{
  PetscObjectState st, nz;
  PetscBool        isseq, ismpi, pattern;
  Mat              Ad = NULL, Ao = NULL;
  const PetscInt  *garray = NULL;
  PetscInt         n, nc, M, N;
  PetscBool        copied = PETSC_FALSE; /* the diagonal block copied here (else the PC's device copy is read) */

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &st));
  PetscCall(MatGetNonzeroState(A, &nz));
  if (A == r->A && st == r->Astate) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &isseq));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
  PetscCheck(isseq || ismpi, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "KSP type %s keeps the operator resident as CSR and needs a MATSEQAIJ or MATMPIAIJ matrix (MATAIJ); this one is %s (convert it with MatConvert(A, MATAIJ, ...))", ktype, ((PetscObject)A)->type_name);
  PetscCall(MatGetLocalSize(A, &n, &nc));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCheck(n == nc && M == N, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_SIZ, "KSP type %s needs a square operator with square local blocks; this one is %" PetscInt_FMT " x %" PetscInt_FMT " with local %" PetscInt_FMT " x %" PetscInt_FMT, ktype, M, N, n, nc);
  pattern = (PetscBool)(A != r->A || nz != r->Anzstate || !r->rowptr_d);
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  else Ad = A;
  if (pattern) {
    PetscCall(PGXGhostDestroy(&r->gx));
    PetscCall(VecDestroy(&r->px));
    PetscCall(VecDestroy(&r->py));
    r->n = n;
    r->N = N;
    r->nghost = 0;
    r->nnzo   = 0;
    PetscCall(BFree(r, &r->rowptr_o));
    PetscCall(BFree(r, &r->colidx_o));
    PetscCall(BFree(r, &r->val_o));
    PetscCall(PetscMemzero(&r->Ao, sizeof(r->Ao)));
  }
  /* the diagonal block: shared with the PC (PGXResidentSharePC decides after the PC is bound), or copied */
  if (!r->shared) {
    PetscBool          use = PETSC_FALSE;
    PetscInt           nnz;
    const PetscInt    *rp, *ci;
    const PetscScalar *v;
    PetscCall(PCDeviceMatrix(r, pc, Ad, n, &use, &nnz, &rp, &ci, &v));
    if (!use) {
      PetscCall(CopyBlock(r, Ad, pattern, &r->rowptr_d, &r->colidx_d, &r->val_d, &r->nnzd, &r->Ad, n));
      copied = PETSC_TRUE;
    } else if (pattern) { /* PGXResidentSharePC adopts the PC's copy; the own one (of another pattern) goes now */
      PetscCall(BFree(r, &r->rowptr_d));
      PetscCall(BFree(r, &r->colidx_d));
      PetscCall(BFree(r, &r->val_d));
    }
  }
  if (ismpi) {
    PetscInt ng;
    PetscCall(MatGetSize(Ao, NULL, &ng));
    if (pattern) {
      r->nghost = ng;
      PetscCall(PGXGhostCreate(A, r->device, r->K->Gather, &r->gx));
    }
    PetscCall(CopyBlock(r, Ao, pattern, &r->rowptr_o, &r->colidx_o, &r->val_o, &r->nnzo, &r->Ao, ng));
  }
  if (pattern) r->npattern++;
  else r->nvalues++;
  PetscCall(PetscObjectReference((PetscObject)A));
  PetscCall(MatDestroy(&r->A));
  r->A        = A;
  r->Astate   = st;
  r->Anzstate = nz;
  if (copied || ismpi) PetscCall(PetscInfo(A, "%s: %s of the operator (%" PetscInt_FMT " local rows, %" PetscInt_FMT " + %" PetscInt_FMT " entries, %" PetscInt_FMT " ghosts) to the %s backend%s\n", ktype, pattern ? "copied pattern and values" : "refreshed the values", n, r->nnzd, r->nnzo, r->nghost, r->K->name, copied ? "" : " (the off-diagonal block; the diagonal block is the PC's device copy)"));
  else PetscCall(PetscInfo(A, "%s: the operator's diagonal block (%" PetscInt_FMT " local rows) is read from the PC's device copy: nothing copied\n", ktype, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda: the diagonal block of the operator read from the PC's device copy of it (PCDILU: "PGXPCGetDeviceMatrix_C")
   when the PC holds the same Mat at its current state, so that A is on the device once; otherwise (or when that
   stops being true) the resident copy of its own */
static PetscErrorCode PGXResidentSharePC(PGXResident r)
{
  Mat                Ad = NULL;
  PetscInt           nnz = 0;
  const PetscInt    *rowptr = NULL, *colidx = NULL;
  const PetscScalar *val = NULL;
  PetscBool          ismpi, use = PETSC_FALSE;

  PetscFunctionBegin;
  if (r->device != PGX_DEVICE_CUDA || !r->A) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)r->A, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(r->A, &Ad, NULL, NULL));
  else Ad = r->A;
  if (r->pc && r->pckind == PGX_RESIDENT_PC_DEVICE) PetscCall(PCDeviceMatrix(r, r->pc, Ad, r->n, &use, &nnz, &rowptr, &colidx, &val));
  if (use) {
    if (!r->shared) { /* drop the own copy, if any */
      PetscCall(BFree(r, &r->rowptr_d));
      PetscCall(BFree(r, &r->colidx_d));
      PetscCall(BFree(r, &r->val_d));
      PetscCall(PetscInfo(r->A, "resident operator: the diagonal block is the PC's device copy (%" PetscInt_FMT " rows, %" PetscInt_FMT " entries); no copy of its own\n", r->n, nnz));
    }
    r->shared     = PETSC_TRUE;
    r->rowptr_d   = (PetscInt *)rowptr;
    r->colidx_d   = (PetscInt *)colidx;
    r->val_d      = (PetscScalar *)val;
    r->nnzd       = nnz;
    r->Ad.nrows   = r->n;
    r->Ad.ncols   = r->n;
    r->Ad.nnz     = nnz;
    r->Ad.rowptr  = rowptr;
    r->Ad.colidx  = colidx;
    r->Ad.val     = val;
  } else if (r->shared || !r->val_d) { /* the PC no longer holds it (or never did): a copy of our own */
    if (r->shared) r->rowptr_d = r->colidx_d = NULL, r->val_d = NULL;
    r->shared = PETSC_FALSE;
    PetscCall(CopyBlock(r, Ad, PETSC_TRUE, &r->rowptr_d, &r->colidx_d, &r->val_d, &r->nnzd, &r->Ad, r->n));
    PetscCall(PetscInfo(r->A, "resident operator: the PC's device copy does not match the operator; copied the diagonal block\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ preconditioner */
static PetscErrorCode PGXResidentSetPC(PGXResident r, PC pc, const char ktype[])
{
  PetscBool isnone, isjac, isdilu, isaips;
  Mat       P;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCNONE, &isnone));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCJACOBI, &isjac));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCDILU, &isdilu));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCAIPS, &isaips));
  PetscCheck(isnone || isjac || isdilu || isaips, r->comm, PETSC_ERR_SUP, "KSP type %s keeps the whole solve resident and applies only the preconditioners that work on resident arrays: none, jacobi, dilu, aips; this PC is %s (use -pc_type none|jacobi|dilu|aips, or a PETSc KSP type for other PCs)", ktype, ((PetscObject)pc)->type_name ? ((PetscObject)pc)->type_name : "not set");
  r->pc = pc;
  if (isnone) r->pckind = PGX_RESIDENT_PC_NONE;
  else if (isjac) r->pckind = PGX_RESIDENT_PC_JACOBI;
  else r->pckind = r->device == PGX_DEVICE_CUDA ? PGX_RESIDENT_PC_DEVICE : PGX_RESIDENT_PC_HOST;
  if (r->pckind == PGX_RESIDENT_PC_HOST && !r->px) {
    PetscCall(VecCreateMPIWithArray(r->comm, 1, r->n, r->N, NULL, &r->px));
    PetscCall(VecCreateMPIWithArray(r->comm, 1, r->n, r->N, NULL, &r->py));
  }
  if (r->pckind == PGX_RESIDENT_PC_JACOBI) {
    PetscObjectState st;
    PetscCall(PCGetOperators(pc, NULL, &P));
    PetscCall(PetscObjectStateGet((PetscObject)P, &st));
    if (P != r->jacmat || st != r->jacstate || !r->invdiag) {
      Vec                one, d;
      const PetscScalar *a;
      PetscBool          fast = PETSC_FALSE;
      PetscCall(BFree(r, &r->invdiag));
      PetscCall(BAlloc(r, (size_t)r->n * sizeof(PetscScalar), (void **)&r->invdiag));
#if !defined(PETSC_USE_COMPLEX)
      { /* the default diagonal of the operator itself: 1 / a_ii from the resident copy of the diagonal block (what
           PETSc's PCSetUp_Jacobi computes, MatGetDiagonal and VecReciprocal, bit for bit), without the host pass of
           PETSc's setup and apply (about 20-30 ms at 1M rows); any row without a nonzero diagonal: PETSc's own PC */
        PCJacobiType jt;
        PetscBool    useabs;
        PetscInt     nbad = 0;
        PetscCall(PCJacobiGetType(pc, &jt));
        PetscCall(PCJacobiGetUseAbs(pc, &useabs));
        if (P == r->A && jt == PC_JACOBI_DIAGONAL && !useabs && r->Ad.nrows == r->n && r->Ad.ncols == r->n) {
          PetscCall(r->K->InvDiag(r->Ad, r->invdiag, &nbad));
          fast = (PetscBool)(nbad == 0);
          PetscCall(PetscInfo(pc, "resident PCJACOBI: %s\n", fast ? "the inverse diagonal from the resident operator" : "a row without a nonzero diagonal; the inverse diagonal from PETSc's PC"));
        }
      }
#endif
      if (!fast) { /* The PC's own diagonal (any -pc_jacobi_type): its apply to the vector of ones, exact */
        PetscCall(MatCreateVecs(P, &one, &d));
        PetscCall(VecSet(one, 1.0));
        PetscCall(PCApply(pc, one, d));
        PetscCall(VecGetArrayRead(d, &a));
        PetscCall(BPut(r, r->invdiag, a, (size_t)r->n * sizeof(PetscScalar)));
        PetscCall(VecRestoreArrayRead(d, &a));
        PetscCall(VecDestroy(&one));
        PetscCall(VecDestroy(&d));
      }
      PetscCall(PetscObjectReference((PetscObject)P));
      PetscCall(MatDestroy(&r->jacmat));
      r->jacmat   = P;
      r->jacstate = st;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda: the banded (DIA) copy of the diagonal block that the SpMV reads instead of the CSR, when -ksp_pgx_spmv_format
   allows it and the block has few diagonals (pgxdia.h); its offsets again when the pattern was copied again, its
   values again when the values were refreshed, nothing otherwise. The offsets from the Mat's host pattern, the values
   on the device from the resident CSR of the block (no host pass over the values). */
/* The offsets of the diagonal block's DIA copy from its host pattern (every stride-th row), and the copy allocated */
static PetscErrorCode ResidentDIAOffsets(PGXResident r, PetscInt stride)
{
  Mat             Ad;
  PetscBool       ismpi, done;
  const PetscInt *ia, *ja;
  PetscInt        nr, nd = 0;

  PetscFunctionBegin;
  PetscCall(ResidentDIAFree(r));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)r->A, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(r->A, &Ad, NULL, NULL));
  else Ad = r->A;
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCheck(done && nr == r->n, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the CSR of the local diagonal block");
  PetscCall(PGXDIAAnalyzeRows(nr, ia, ja, PGX_RESIDENT_MAXDIAG, r->spmvfmt == PGX_RESIDENT_SPMV_DIA ? 0.0 : 2.0 / 3.0, stride, &nd, r->hdoff));
  r->ndia       = nd;
  r->diafill    = nd ? (PetscReal)ia[nr] / ((PetscReal)nd * (PetscReal)nr) : 0.0;
  r->diastride  = stride;
  if (nd) {
    PetscCall(BAlloc(r, (size_t)nd * sizeof(PetscInt), (void **)&r->doff));
    PetscCall(BAlloc(r, (size_t)nd * (size_t)nr * sizeof(PetscScalar), (void **)&r->dval));
    PetscCall(BPut(r, r->doff, r->hdoff, (size_t)nd * sizeof(PetscInt)));
    if (stride > 1) PetscCall(PetscInfo(r->A, "resident operator: the SpMV reads a DIA copy of the diagonal block (%" PetscInt_FMT " diagonals, fill %g; offsets from every %" PetscInt_FMT "th row, checked by the fill)\n", nd, (double)r->diafill, stride));
    else PetscCall(PetscInfo(r->A, "resident operator: the SpMV reads a DIA copy of the diagonal block (%" PetscInt_FMT " diagonals, fill %g; offsets from every row)\n", nd, (double)r->diafill));
  } else PetscCall(PetscInfo(r->A, "resident operator: the diagonal block has more than %d diagonals%s; the SpMV reads the CSR\n", PGX_RESIDENT_MAXDIAG, r->spmvfmt == PGX_RESIDENT_SPMV_AUTO ? " or too sparse a band for DIA to pay" : ""));
  r->diapattern = r->npattern;
  r->diafmt     = r->spmvfmt;
  r->diabuilt   = PETSC_TRUE;
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda: the DIA copy of the diagonal block, when it has at most PGX_RESIDENT_MAXDIAG diagonals and DIA pays (or
   -ksp_pgx_spmv_format dia). The offsets come from every stride-th row of the host pattern (the first prime >= n/4096:
   a few thousand rows, where reading all of a 1M-row block took tens of ms); the fill on the device then finds any entry on an
   offset the sampled rows missed, and the whole pattern is analyzed again in that case, so the copy is always A's. */
static PetscErrorCode PGXResidentSetUpDIA(PGXResident r)
{
  PetscBool pattern, miss = PETSC_FALSE;

  PetscFunctionBegin;
  if (r->device != PGX_DEVICE_CUDA || !r->A || r->spmvfmt == PGX_RESIDENT_SPMV_CSR) {
    PetscCall(ResidentDIAFree(r));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  pattern = (PetscBool)(!r->diabuilt || r->diapattern != r->npattern || r->diafmt != r->spmvfmt);
  if (!pattern && r->diavalues == r->nvalues) PetscFunctionReturn(PETSC_SUCCESS);
  if (pattern) {
    PetscInt stride = r->diasample;
    if (!stride) { /* the first prime >= n/4096: a stride that shares no factor with a grid's sides (128^3: every 512th
                      row of a 128 x 128 x 128 grid lies on x = 0 and misses the offset -1) */
      stride = PetscMax(1, r->n / 4096);
      for (PetscBool prime = PETSC_FALSE; stride > 2 && !prime; stride += prime ? 0 : 1) {
        prime = PETSC_TRUE;
        for (PetscInt q = 2; q * q <= stride && prime; q++)
          if (stride % q == 0) prime = PETSC_FALSE;
      }
    }
    PetscCall(ResidentDIAOffsets(r, stride));
  }
  /* the values from the backend's CSR of the block (its own copy or the PC's, current after PGXResidentSharePC) */
  if (r->ndia) PetscCall(r->K->DIAFill(r->Ad, r->ndia, r->doff, r->dval, pattern && r->diastride > 1 ? &miss : NULL));
  if (miss) { /* an offset that no sampled row has: the whole pattern (a value refresh keeps the checked pattern) */
    PetscCall(PetscInfo(r->A, "resident operator: the DIA fill found an entry on an offset that the rows sampled (every %" PetscInt_FMT "th) do not have; the offsets from every row\n", r->diastride));
    PetscCall(ResidentDIAOffsets(r, 1));
    if (r->ndia) PetscCall(r->K->DIAFill(r->Ad, r->ndia, r->doff, r->dval, NULL));
  }
  r->diavalues = r->nvalues;
  r->Ad.ndiag  = r->ndia;
  r->Ad.doff   = r->doff;
  r->Ad.dval   = r->dval;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Binds the backend, the operator and the PC; called by KSPSetUp and at the start of every solve (cheap when
   nothing changed) */
PetscErrorCode PGXResidentSetUp(PGXResident r, PGXDeviceType device, Mat A, PC pc, const char ktype[])
{
  PetscFunctionBegin;
  if (device != r->device) { /* a new backend: everything is copied again */
    PetscCall(PGXResidentReset(r));
    r->device = device;
  }
#if PGX_HAVE_CUDA
  r->K = device == PGX_DEVICE_CUDA ? &K::cuda::backend : &K::reference::backend;
#else
  PetscCheck(device != PGX_DEVICE_CUDA, r->comm, PETSC_ERR_SUP_SYS, "PGX was built without CUDA");
  r->K = &K::reference::backend;
#endif
  PetscLogDouble t[6]; /* -info: where the setup goes */
  PetscCall(PetscTime(&t[0]));
  if (device == PGX_DEVICE_CUDA) { /* a PC that holds A on the device set up first, so that A goes there once */
    PetscErrorCode (*f)(void) = NULL;
    PetscCall(PetscObjectQueryFunction((PetscObject)pc, "PGXPCGetDeviceMatrix_C", &f));
    if (f) PetscCall(PCSetUp(pc));
  }
  PetscCall(PetscTime(&t[1]));
  PetscCall(PGXResidentSetOperator(r, A, pc, ktype));
  PetscCall(PetscTime(&t[2]));
  PetscCall(PGXResidentSetPC(r, pc, ktype));
  PetscCall(PetscTime(&t[3]));
  PetscCall(PGXResidentSharePC(r));
  PetscCall(PetscTime(&t[4]));
  PetscCall(PGXResidentSetUpDIA(r));
  PetscCall(PetscTime(&t[5]));
  if (t[5] - t[0] > 1e-3) PetscCall(PetscInfo(NULL, "PGX resident setup (%s): the PC first %.1f ms, operator %.1f ms, PC bound %.1f ms, PC's copy shared %.1f ms, DIA %.1f ms\n", ktype, 1e3 * (t[1] - t[0]), 1e3 * (t[2] - t[1]), 1e3 * (t[3] - t[2]), 1e3 * (t[4] - t[3]), 1e3 * (t[5] - t[4])));
  if (r->size > 1 && r->device == PGX_DEVICE_CUDA && !r->dredtried) { /* collective: every rank sets up the same backend */
    r->dredtried = PETSC_TRUE;
    r->dredwhy   = "-pgx_allreduce_peer 0";
    if (r->redpeer) PetscCall(PGXDevReduceCreate(r->comm, &r->dred, &r->dredwhy));
    if (!r->dred) PetscCall(PetscInfo(NULL, "PGX resident: reductions in device memory summed through the host (%s)\n", r->dredwhy));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool PGXResidentDevReductions(PGXResident r)
{
  return (PetscBool)(r->size == 1 || r->device == PGX_DEVICE_HOST || r->dred);
}

/* Several ranks: d[0..k) in backend memory, this rank's partial sums, become the sums over the ranks (in backend memory).
   Callers use the reductions left in backend memory only where PGXResidentDevReductions() holds. */
static PetscErrorCode AllreduceDev(PGXResident r, PetscInt k, PetscScalar *d)
{
  PetscFunctionBegin;
  if (r->size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(PGXResidentDevReductions(r), r->comm, PETSC_ERR_PLIB, "PGX resident: a reduction in device memory on several ranks without the GPU-to-GPU sums (%s)", r->dredwhy ? r->dredwhy : "not set up");
  if (r->device == PGX_DEVICE_HOST) { /* host memory */
    PetscScalar l[PGX_RESIDENT_NSCAL];
    PetscCheck(k <= PGX_RESIDENT_NSCAL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PGX resident: %" PetscInt_FMT " scalars in one reduction", k);
    PetscCall(PetscArraycpy(l, d, k));
    PetscCall(MPIU_Allreduce(l, d, (PetscMPIInt)k, MPIU_SCALAR, MPIU_SUM, r->comm));
  } else PetscCall(PGXDevReduceSum(r->dred, k, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A block of nvec work vectors of the local length, contiguous (vector j at (*work) + j*n) */
PetscErrorCode PGXResidentGetWork(PGXResident r, PetscInt nvec, PetscScalar **work)
{
  PetscFunctionBegin;
  if (nvec > r->nwork || r->n != r->nwork_n || !r->work) {
    PetscCall(BFree(r, &r->work));
    PetscCall(BAlloc(r, (size_t)nvec * (size_t)r->n * sizeof(PetscScalar), (void **)&r->work));
    r->nwork   = nvec;
    r->nwork_n = r->n;
  }
  *work = r->work;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentView(PGXResident r, PetscViewer viewer)
{
  const char *pcname = r->pc ? ((PetscObject)r->pc)->type_name : "none";
  const char *how[]  = {"identity", "resident kernel y = d .* x", "PGXPCApplyDevice() on device arrays", "PCApply() on Vecs wrapping the host arrays"};

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "  PGX resident solve, backend: %s\n", r->device == PGX_DEVICE_CUDA ? "cuda" : "host (reference)"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  resident operator: %" PetscInt_FMT " local rows, %" PetscInt_FMT " diagonal-block + %" PetscInt_FMT " off-diagonal-block entries, %" PetscInt_FMT " ghosts\n", r->n, r->nnzd, r->nnzo, r->nghost));
  if (r->gx) {
    PetscInt    nsend, nghost;
    const char *path;
    PetscCall(PGXGhostGetSizes(r->gx, &nsend, &nghost));
    PetscCall(PGXGhostGetPath(r->gx, &path));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  ghost exchange per product: %" PetscInt_FMT " values out, %" PetscInt_FMT " in, %s\n", nsend, nghost, path));
  }
  if (r->size > 1) {
    if (r->device == PGX_DEVICE_HOST) PetscCall(PetscViewerASCIIPrintf(viewer, "  reductions: MPI_Allreduce on the host\n"));
    else if (r->dred) {
      PetscInt cnt;
      PetscCall(PGXDevReduceGetCount(r->dred, &cnt));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  reductions in device memory: summed GPU to GPU (CUDA IPC), %" PetscInt_FMT " so far\n", cnt));
    } else if (r->dredtried) PetscCall(PetscViewerASCIIPrintf(viewer, "  reductions in device memory: summed through the host (%s): MPI_Allreduce after each product, the one-synchronization loops not used\n", r->dredwhy));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  operator copies: %" PetscInt_FMT " of the pattern, %" PetscInt_FMT " value refreshes\n", r->npattern, r->nvalues));
  if (r->shared) PetscCall(PetscViewerASCIIPrintf(viewer, "  the diagonal block is the preconditioner's device copy (one copy of A on the GPU)\n"));
  if (r->device == PGX_DEVICE_CUDA) {
    if (r->ndia) PetscCall(PetscViewerASCIIPrintf(viewer, "  SpMV of the diagonal block: DIA copy, %" PetscInt_FMT " diagonals (fill %.3g, %.1f MB beside the CSR; -ksp_pgx_spmv_format %s)\n", r->ndia, (double)r->diafill, (double)r->ndia * (double)r->n * sizeof(PetscScalar) / 1048576.0, PGXResidentSpMVFormats[r->spmvfmt]));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  SpMV of the diagonal block: CSR (-ksp_pgx_spmv_format %s)\n", PGXResidentSpMVFormats[r->spmvfmt]));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  preconditioner %s applied by %s\n", pcname, how[r->pckind]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda backend and a Vec whose current values live on the device (VECCUDA of a CUDA PETSc): copied device to
   device, ordered after PETSc's pending work on it (and PETSc's later work after the copy), no host copy */
static PetscErrorCode IsDeviceVec(PGXResident r, Vec v, PetscBool *dev)
{
  PetscFunctionBegin;
  *dev = PETSC_FALSE;
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscObjectTypeCompareAny((PetscObject)v, dev, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
  if (*dev && !r->vstage) PetscCall(PGXVecStageCreate(&r->vstage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentCopyIn(PGXResident r, Vec v, PetscScalar *d)
{
  const PetscScalar *a;
  PetscBool          dev;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_KSPCopy, 0, 0, 0, 0));
  PetscCall(IsDeviceVec(r, v, &dev));
  if (dev) {
    PetscCall(PGXVecGetDeviceArrayRead(v, r->vstage, &a));
    PetscCall(r->K->Copy(r->n, a, d));
    PetscCall(PGXVecRestoreDeviceArrayRead(v, r->vstage, &a));
  } else {
    PetscCall(VecGetArrayRead(v, &a));
    PetscCall(BPut(r, d, a, (size_t)r->n * sizeof(PetscScalar)));
    PetscCall(VecRestoreArrayRead(v, &a));
  }
  PetscCall(PetscLogEventEnd(PGX_KSPCopy, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentCopyOut(PGXResident r, const PetscScalar *d, Vec v)
{
  PetscScalar *a;
  PetscBool    dev;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_KSPCopy, 0, 0, 0, 0));
  PetscCall(IsDeviceVec(r, v, &dev));
  if (dev) {
    PetscCall(PGXVecGetDeviceArrayWrite(v, r->vstage, &a));
    PetscCall(r->K->Copy(r->n, d, a));
    PetscCall(PGXVecRestoreDeviceArrayWrite(v, r->vstage, &a));
  } else {
    PetscCall(VecGetArrayWrite(v, &a));
    PetscCall(BGet(r, a, d, (size_t)r->n * sizeof(PetscScalar)));
    PetscCall(VecRestoreArrayWrite(v, &a));
  }
  PetscCall(PetscLogEventEnd(PGX_KSPCopy, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ operations */
PetscErrorCode PGXResidentMult(PGXResident r, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_KSPSpMV, 0, 0, 0, 0));
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuTimeBegin());
  if (r->gx) PetscCall(PGXGhostBegin(r->gx, x)); /* overlapped with the diagonal block */
  PetscCall(r->K->SpMV(r->Ad, x, y));
  if (r->gx) {
    const PetscScalar *g;
    PetscCall(PGXGhostEnd(r->gx, &g));
    PetscCall(r->K->SpMVAdd(r->Ao, g, y));
  }
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuTimeEnd());
  PetscCall(LogFlops(r, 2.0 * (r->nnzd + r->nnzo)));
  PetscCall(PetscLogEventEnd(PGX_KSPSpMV, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks, -ksp_pgx_mpi_fused_products: p = z + (num/den) pold (pold NULL: z) formed first at the entries the
   ghost exchange sends, then everywhere inside the diagonal block's product (the same expression, so the same bits),
   which also carries its part of d[0] = p'w (one pass on cuda's DIA copy); the off-diagonal block adds its product
   and the rest of the sum, so that no pass over p and w is spent on the update or the dot */
static PetscErrorCode MultDotAYPXMPI(PGXResident r, const PetscScalar *z, const PetscScalar *pold, const PetscScalar *num, const PetscScalar *den, PetscScalar *x, PetscScalar *y, PetscScalar *d)
{
  const PetscScalar *g;
  const PetscInt    *idx;
  PetscInt           ns;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_KSPSpMV, 0, 0, 0, 0));
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuTimeBegin());
  PetscCall(PGXGhostGetSendIndices(r->gx, &ns, &idx));
  PetscCall(r->K->AYPXIdxDev(ns, idx, z, pold, num, den, x));
  PetscCall(PGXGhostBegin(r->gx, x)); /* overlapped with the diagonal block */
  PetscCall(r->K->SpMVDotAYPXDev(r->Ad, z, pold, num, den, x, y, d));
  PetscCall(PGXGhostEnd(r->gx, &g));
  PetscCall(r->K->SpMVAddDotDev(r->Ao, g, x, y, d));
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuTimeEnd());
  PetscCall(LogFlops(r, 2.0 * (PetscLogDouble)(r->nnzd + r->nnzo) + 2.0 * (PetscLogDouble)r->n + (pold ? 2.0 * (PetscLogDouble)r->n : 0.0)));
  PetscCall(PetscLogEventEnd(PGX_KSPSpMV, 0, 0, 0, 0));
  PetscCall(AllreduceDev(r, 1, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x and d[0] = x'y left in backend memory (the CG's w = A p and p'Ap; on one rank one pass on cuda's DIA copy, on
   several the product with its ghost exchange, then the product's reduction) */
PetscErrorCode PGXResidentMultDotDev(PGXResident r, const PetscScalar *x, PetscScalar *y, PetscScalar *d)
{
  PetscFunctionBegin;
  if (r->gx) {
    PetscCall(PGXResidentMult(r, x, y));
    PetscCall(PGXResidentDotDev(r, x, y, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(PGX_KSPSpMV, 0, 0, 0, 0));
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuTimeBegin());
  PetscCall(r->K->SpMVDotDev(r->Ad, x, y, d));
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuTimeEnd());
  PetscCall(LogFlops(r, 2.0 * (PetscLogDouble)r->nnzd + 2.0 * (PetscLogDouble)r->n));
  PetscCall(PetscLogEventEnd(PGX_KSPSpMV, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentPCApply(KSP ksp, PGXResident r, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_KSPPCApply, 0, 0, 0, 0));
  switch (r->pckind) {
  case PGX_RESIDENT_PC_NONE:
    PetscCall(r->K->Copy(r->n, x, y));
    break;
  case PGX_RESIDENT_PC_JACOBI:
    PetscCall(r->K->PointwiseMult(r->n, r->invdiag, x, y));
    PetscCall(LogFlops(r, r->n));
    break;
  case PGX_RESIDENT_PC_DEVICE:
    PetscCall(PGXPCApplyDevice(r->pc, x, y));
    break;
  case PGX_RESIDENT_PC_HOST:
    PetscCall(VecPlaceArray(r->px, x));
    PetscCall(VecPlaceArray(r->py, y));
    PetscCall(KSP_PCApply(ksp, r->px, r->py));
    PetscCall(VecResetArray(r->px));
    PetscCall(VecResetArray(r->py));
    break;
  }
  PetscCall(PetscLogEventEnd(PGX_KSPPCApply, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentApplyBAorAB(KSP ksp, PGXResident r, const PetscScalar *x, PetscScalar *y, PetscScalar *w)
{
  PetscFunctionBegin;
  if (ksp->pc_side == PC_LEFT) {
    PetscCall(PGXResidentMult(r, x, w));
    PetscCall(PGXResidentPCApply(ksp, r, w, y));
  } else {
    PetscCall(PGXResidentPCApply(ksp, r, x, w));
    PetscCall(PGXResidentMult(r, w, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentInitialResidual(KSP ksp, PGXResident r, const PetscScalar *x, PetscScalar *t1, PetscScalar *t2, PetscScalar *res, const PetscScalar *b)
{
  PetscFunctionBegin;
  if (!ksp->guess_zero) {
    PetscCall(PGXResidentMult(r, x, t1));
    PetscCall(PGXResidentCopy(r, b, t2));
    PetscCall(PGXResidentAXPY(r, -1.0, t1, t2));
  } else PetscCall(PGXResidentCopy(r, b, t2));
  if (ksp->pc_side == PC_LEFT) PetscCall(PGXResidentPCApply(ksp, r, t2, res));
  else PetscCall(PGXResidentCopy(r, t2, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentUnwind(KSP ksp, PGXResident r, PetscScalar *x, PetscScalar *t)
{
  PetscFunctionBegin;
  if (ksp->pc_side == PC_RIGHT) {
    PetscCall(PGXResidentPCApply(ksp, r, x, t));
    PetscCall(PGXResidentCopy(r, t, x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentDot(PGXResident r, const PetscScalar *x, const PetscScalar *y, PetscScalar *v)
{
  PetscScalar l;

  PetscFunctionBegin;
  PetscCall(r->K->Dot(r->n, x, y, &l));
  PetscCall(LogFlops(r, 2.0 * r->n));
  PetscCall(MPIU_Allreduce(&l, v, 1, MPIU_SCALAR, MPIU_SUM, r->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentMDot(PGXResident r, PetscInt k, const PetscScalar *V, PetscInt ldv, const PetscScalar *w, PetscScalar *v)
{
  PetscScalar  buf[64], *l = buf;

  PetscFunctionBegin;
  if (k > 64) PetscCall(PetscMalloc1(k, &l));
  PetscCall(r->K->MDot(r->n, k, V, ldv, w, l));
  PetscCall(LogFlops(r, 2.0 * r->n * k));
  PetscCall(MPIU_Allreduce(l, v, (PetscMPIInt)k, MPIU_SCALAR, MPIU_SUM, r->comm));
  if (l != buf) PetscCall(PetscFree(l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentDotNorm2(PGXResident r, const PetscScalar *s, const PetscScalar *t, PetscScalar *d, PetscReal *t2)
{
  PetscScalar l[2], g[2];
  PetscReal   tl;

  PetscFunctionBegin;
  PetscCall(r->K->DotNorm2(r->n, s, t, &l[0], &tl));
  l[1] = tl;
  PetscCall(LogFlops(r, 4.0 * r->n));
  PetscCall(MPIU_Allreduce(l, g, 2, MPIU_SCALAR, MPIU_SUM, r->comm));
  *d  = g[0];
  *t2 = PetscRealPart(g[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentScalars(PGXResident r, PetscScalar **d)
{
  PetscFunctionBegin;
  if (!r->dscal) PetscCall(BAlloc(r, PGX_RESIDENT_NSCAL * sizeof(PetscScalar), (void **)&r->dscal));
  *d = r->dscal;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentDotDev(PGXResident r, const PetscScalar *x, const PetscScalar *y, PetscScalar *d)
{
  PetscFunctionBegin;
  PetscCall(r->K->DotDev(r->n, x, y, d));
  PetscCall(LogFlops(r, 2.0 * r->n));
  PetscCall(AllreduceDev(r, 1, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentDotNorm2Dev(PGXResident r, const PetscScalar *s, const PetscScalar *t, PetscScalar *d2)
{
  PetscFunctionBegin;
  PetscCall(r->K->DotNorm2Dev(r->n, s, t, d2));
  PetscCall(LogFlops(r, 4.0 * r->n));
  PetscCall(AllreduceDev(r, 2, d2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentCGStep(PGXResident r, PetscScalar beta, PetscScalar dpiold, PetscBool checksign, const PetscScalar *dpi, const PetscScalar *p, const PetscScalar *w, PetscScalar *x, PetscScalar *rr)
{
  PetscFunctionBegin;
  PetscCall(r->K->CGStep(r->n, beta, dpiold, checksign, dpi, p, w, x, rr));
  PetscCall(LogFlops(r, 4.0 * r->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentMDotDev(PGXResident r, PetscInt k, const PetscScalar *V, PetscInt ldv, const PetscScalar *w, PetscScalar *d)
{
  PetscFunctionBegin;
  PetscCall(r->K->MDotDev(r->n, k, V, ldv, w, d));
  PetscCall(LogFlops(r, 2.0 * r->n * k));
  PetscCall(AllreduceDev(r, k, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentMAXPYNegDev(PGXResident r, PetscInt k, const PetscScalar *d, const PetscScalar *V, PetscInt ldv, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(r->K->MAXPYNegDev(r->n, k, d, V, ldv, y));
  PetscCall(LogFlops(r, 2.0 * r->n * k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentNorm2SqDev(PGXResident r, const PetscScalar *x, PetscScalar *d)
{
  PetscFunctionBegin;
  PetscCall(r->K->Norm2SqDev(r->n, x, d));
  PetscCall(LogFlops(r, 2.0 * r->n));
  PetscCall(AllreduceDev(r, 1, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x /= sqrt(Re d[0]) unless that is 0 or 1, d[0] read in backend memory (PGXResidentNormalize() with the norm squared
   left there by PGXResidentNorm2SqDev(), summed over the ranks) */
PetscErrorCode PGXResidentScaleInvSqrtDev(PGXResident r, const PetscScalar *d, PetscScalar *x)
{
  PetscFunctionBegin;
  PetscCall(r->K->ScaleInvSqrtDev(r->n, d, x));
  PetscCall(LogFlops(r, r->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentFetch(PGXResident r, PetscInt k, const PetscScalar *d, PetscScalar *h)
{
  PetscFunctionBegin;
  PetscCall(r->K->Fetch(k, d, h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentAYPXDev(PGXResident r, const PetscScalar *num, const PetscScalar *den, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(r->K->AYPXDev(r->n, num, den, x, y));
  PetscCall(LogFlops(r, 2.0 * r->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentCGStepDev(PGXResident r, const PetscScalar *beta, const PetscScalar *dpi, const PetscScalar *dpiold, const PetscScalar *p, const PetscScalar *w, const PetscScalar *xin, PetscScalar *xout, PetscScalar *rr)
{
  PetscFunctionBegin;
  PetscCall(r->K->CGStepDev(r->n, beta, dpi, dpiold, p, w, xin, xout, rr));
  PetscCall(LogFlops(r, 4.0 * r->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCNONE and PCJACOBI apply entry by entry: a kernel can fold them into the pass before */
PetscBool PGXResidentPCPointwise(PGXResident r)
{
  return (PetscBool)(r->pckind == PGX_RESIDENT_PC_NONE || r->pckind == PGX_RESIDENT_PC_JACOBI);
}

PetscErrorCode PGXResidentCGStepPCDev(KSP ksp, PGXResident r, PetscBool fuse, const PetscScalar *beta, const PetscScalar *dpi, const PetscScalar *dpiold, const PetscScalar *p, const PetscScalar *w, const PetscScalar *xin, PetscScalar *xout, PetscScalar *rr, PetscScalar *z, PetscScalar *d2)
{
  PetscFunctionBegin;
  r->pcsums = PETSC_FALSE;
  if (fuse && r->pckind == PGX_RESIDENT_PC_DEVICE) {
    PetscCall(PGXResidentCGStepDev(r, beta, dpi, dpiold, p, w, xin, xout, rr));
    PetscCall(PetscLogEventBegin(PGX_KSPPCApply, 0, 0, 0, 0));
    PetscCall(PGXPCApplyDeviceDotNorm2(r->pc, rr, z, d2, &r->pcsums));
    PetscCall(PetscLogEventEnd(PGX_KSPPCApply, 0, 0, 0, 0));
    if (r->pcsums) {
      PetscCall(LogFlops(r, 4.0 * r->n));
      PetscCall(AllreduceDev(r, 2, d2));
    } else PetscCall(PGXResidentDotNorm2Dev(r, rr, z, d2));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!fuse || !PGXResidentPCPointwise(r)) {
    PetscCall(PGXResidentCGStepDev(r, beta, dpi, dpiold, p, w, xin, xout, rr));
    PetscCall(PGXResidentPCApply(ksp, r, rr, z));
    PetscCall(PGXResidentDotNorm2Dev(r, rr, z, d2));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* one pass, logged as the PC's application (the step and the sums inside it; the flops of all three) */
  PetscCall(PetscLogEventBegin(PGX_KSPPCApply, 0, 0, 0, 0));
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuTimeBegin());
  PetscCall(r->K->CGStepPointwiseDev(r->n, beta, dpi, dpiold, p, w, xin, xout, rr, r->pckind == PGX_RESIDENT_PC_JACOBI ? r->invdiag : NULL, z, d2));
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuTimeEnd());
  PetscCall(LogFlops(r, (r->pckind == PGX_RESIDENT_PC_JACOBI ? 9.0 : 8.0) * r->n));
  PetscCall(PetscLogEventEnd(PGX_KSPPCApply, 0, 0, 0, 0));
  PetscCall(AllreduceDev(r, 2, d2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p_new = z + (num/den) p_old (p_old NULL: z), w = A p_new, d = p_new'w (one rank: one pass; several: a copy, the update,
   the product and the dot, or with -ksp_pgx_mpi_fused_products MultDotAYPXMPI) */
PetscErrorCode PGXResidentMultDotAYPXDev(PGXResident r, const PetscScalar *z, const PetscScalar *pold, const PetscScalar *num, const PetscScalar *den, PetscScalar *pnew, PetscScalar *w, PetscScalar *d)
{
  PetscFunctionBegin;
  if (r->gx && !r->mpifused) { /* -ksp_pgx_mpi_fused_products 0: a copy, the update, the product, the dot */
    if (pold) {
      PetscCall(PGXResidentCopy(r, pold, pnew));
      PetscCall(PGXResidentAYPXDev(r, num, den, z, pnew));
    } else PetscCall(PGXResidentCopy(r, z, pnew));
    PetscCall(PGXResidentMultDotDev(r, pnew, w, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (r->gx) {
    PetscCall(MultDotAYPXMPI(r, z, pold, num, den, pnew, w, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(PGX_KSPSpMV, 0, 0, 0, 0));
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuTimeBegin());
  PetscCall(r->K->SpMVDotAYPXDev(r->Ad, z, pold, num, den, pnew, w, d));
  if (r->device == PGX_DEVICE_CUDA) PetscCall(PetscLogGpuTimeEnd());
  PetscCall(LogFlops(r, 2.0 * (PetscLogDouble)r->nnzd + 2.0 * (PetscLogDouble)r->n + (pold ? 2.0 * (PetscLogDouble)r->n : 0.0)));
  PetscCall(PetscLogEventEnd(PGX_KSPSpMV, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one rank only: on several the scalars are summed over the ranks after the reduction that would publish them */
PetscErrorCode PGXResidentFetchArm(PGXResident r, PetscInt k, const PetscScalar *d, PetscInt slot)
{
  PetscFunctionBegin;
  if (r->size == 1) PetscCall(r->K->FetchArm(k, d, slot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentFetchBegin(PGXResident r, PetscInt k, const PetscScalar *d, PetscInt slot)
{
  PetscFunctionBegin;
  PetscCall(r->K->FetchBegin(k, d, slot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentFetchEnd(PGXResident r, PetscInt k, PetscInt slot, PetscScalar *h)
{
  PetscFunctionBegin;
  PetscCall(r->K->FetchEnd(k, slot, h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentNorm(PGXResident r, const PetscScalar *x, PetscReal *nrm)
{
  PetscReal l, g;

  PetscFunctionBegin;
  PetscCall(r->K->Norm2Sq(r->n, x, &l));
  PetscCall(LogFlops(r, 2.0 * r->n));
  PetscCall(MPIU_Allreduce(&l, &g, 1, MPIU_REAL, MPIU_SUM, r->comm));
  *nrm = PetscSqrtReal(g);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VecNormalize: x /= ||x|| unless ||x|| = 0 */
PetscErrorCode PGXResidentNormalize(PGXResident r, PetscScalar *x, PetscReal *nrm)
{
  PetscFunctionBegin;
  PetscCall(PGXResidentNorm(r, x, nrm));
  if (*nrm == 0.0) PetscCall(PetscInfo(NULL, "Vector of zero norm can not be normalized; returning only the zero norm\n"));
  else if (*nrm != 1.0) PetscCall(PGXResidentScale(r, 1.0 / *nrm, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentAXPY(PGXResident r, PetscScalar a, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(r->K->AXPY(r->n, a, x, y));
  PetscCall(LogFlops(r, 2.0 * r->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentAYPX(PGXResident r, PetscScalar b, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(r->K->AYPX(r->n, b, x, y));
  PetscCall(LogFlops(r, 2.0 * r->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentWAXPY(PGXResident r, PetscScalar a, const PetscScalar *x, const PetscScalar *y, PetscScalar *w)
{
  PetscFunctionBegin;
  PetscCall(r->K->WAXPY(r->n, a, x, y, w));
  PetscCall(LogFlops(r, 2.0 * r->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentAXPBYPCZ(PGXResident r, PetscScalar a, PetscScalar b, PetscScalar c, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(r->K->AXPBYPCZ(r->n, a, b, c, x, y, z));
  PetscCall(LogFlops(r, 5.0 * r->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentMAXPY(PGXResident r, PetscInt k, const PetscScalar *a, const PetscScalar *V, PetscInt ldv, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(r->K->MAXPY(r->n, k, a, V, ldv, y));
  PetscCall(LogFlops(r, 2.0 * r->n * k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentScale(PGXResident r, PetscScalar a, PetscScalar *x)
{
  PetscFunctionBegin;
  PetscCall(r->K->Scale(r->n, a, x));
  PetscCall(LogFlops(r, r->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentCopy(PGXResident r, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(r->K->Copy(r->n, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXResidentSet(PGXResident r, PetscScalar a, PetscScalar *x)
{
  PetscFunctionBegin;
  PetscCall(r->K->Set(r->n, a, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ shared KSP glue */
PetscErrorCode PGXKSPResidentCreate(KSP ksp, KSP_PGXResident *b)
{
  PetscFunctionBegin;
  PetscCall(PGXResidentCreate(PetscObjectComm((PetscObject)ksp), &b->res));
  PetscCall(PGXGetDefaultDeviceType(&b->devreq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXKSPResidentSetUp(KSP ksp, KSP_PGXResident *b)
{
  PGXDeviceType dev;
  Mat           A;

  PetscFunctionBegin;
  PetscCheck(!ksp->dscale, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "KSP type %s does not support diagonal scaling (KSPSetDiagonalScale)", ((PetscObject)ksp)->type_name);
  PetscCheck(ksp->pc_side != PC_SYMMETRIC, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "KSP type %s does not support symmetric preconditioning", ((PetscObject)ksp)->type_name);
  PetscCall(PetscLogEventBegin(PGX_KSPSetUp, ksp, 0, 0, 0));
  PetscCall(PGXDeviceResolve(PetscObjectComm((PetscObject)ksp), b->devreq, &dev));
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(PGXResidentSetUp(b->res, dev, A, ksp->pc, ((PetscObject)ksp)->type_name));
  PetscCall(PetscLogEventEnd(PGX_KSPSetUp, ksp, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXKSPResidentDestroy(KSP ksp, KSP_PGXResident *b)
{
  PetscFunctionBegin;
  PetscCall(PGXResidentDestroy(&b->res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXKSPResidentSetFromOptions(KSP ksp, KSP_PGXResident *b, PGXOptionItems PetscOptionsObject)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsEnum("-pgx_device", "Where the resident solve runs: auto, host (reference), cuda", "PGXInitializePackage", PGXDeviceTypes, (PetscEnum)b->devreq, (PetscEnum *)&b->devreq, NULL));
  if (b->devreq != PGX_DEVICE_HOST) PetscCall(PGXCUDAProbeBegin()); /* the first CUDA calls (tenths of a second) on a thread of their own, beside the host work before the setup */
  PetscCall(PetscOptionsBool("-ksp_pgx_mpi_fused_products", "Several ranks: p'Ap summed inside the products of the diagonal and off-diagonal blocks, and pgxcg's new direction formed inside the diagonal block's product (else a copy, an update, the product and a dot; the same iterations; within the noise of the default on two H200s)", "KSPPGXCG", b->res->mpifused, &b->res->mpifused, NULL));
  PetscCall(PetscOptionsBool("-pgx_allreduce_peer", "Several ranks, cuda: the reductions of the one-synchronization loops summed GPU to GPU (CUDA IPC) where every rank has a GPU of its own on one node, else through the host", "KSPPGXCG", b->res->redpeer, &b->res->redpeer, NULL));
  PetscCall(PetscOptionsInt("-ksp_pgx_dia_sample", "cuda, DIA copy: the offsets' analysis reads every n-th row of the host pattern, the fill on the device checks them and the whole pattern is read when it finds an offset they miss (0: the first prime >= n/4096; 1: every row)", "KSPPGXCG", b->res->diasample, &b->res->diasample, NULL));
  PetscCheck(b->res->diasample >= 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_pgx_dia_sample %" PetscInt_FMT " must be 0 (default) or a row stride >= 1", b->res->diasample);
  PetscCall(PetscOptionsEnum("-ksp_pgx_spmv_format", "cuda: the storage the SpMV reads for the diagonal block: auto (DIA when the block has at most 32 diagonals, filled to 2/3 at least), csr, dia (DIA at up to 32 diagonals whatever the fill)", "KSPPGXCG", PGXResidentSpMVFormats, (PetscEnum)b->res->spmvfmt, (PetscEnum *)&b->res->spmvfmt, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXKSPResidentBuildSolution(KSP ksp, KSP_PGXResident *b, const PetscScalar *x, Vec v, Vec *V)
{
  PetscFunctionBegin;
  if (!v) v = ksp->vec_sol;
  PetscCall(PGXResidentCopyOut(b->res, x, v));
  if (V) *V = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXKSPResidentView(KSP ksp, KSP_PGXResident *b, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(PGXResidentView(b->res, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ registration */
PETSC_EXTERN PetscErrorCode KSPCreate_PGXCG(KSP);
PETSC_EXTERN PetscErrorCode KSPCreate_PGXBCGS(KSP);
PETSC_EXTERN PetscErrorCode KSPCreate_PGXGMRES(KSP);

PetscErrorCode PGXRegister_KSP(void)
{
  PetscFunctionBegin;
  PetscCall(KSPRegister(KSPPGXCG, KSPCreate_PGXCG));
  PetscCall(KSPRegister(KSPPGXBCGS, KSPCreate_PGXBCGS));
  PetscCall(KSPRegister(KSPPGXGMRES, KSPCreate_PGXGMRES));
  PetscCall(PetscLogEventRegister("PGXKSPSetUp", KSP_CLASSID, &PGX_KSPSetUp));
  PetscCall(PetscLogEventRegister("PGXKSPSolve", KSP_CLASSID, &PGX_KSPSolve));
  PetscCall(PetscLogEventRegister("PGXKSPSpMV", KSP_CLASSID, &PGX_KSPSpMV));
  PetscCall(PetscLogEventRegister("PGXKSPPCApply", KSP_CLASSID, &PGX_KSPPCApply));
  PetscCall(PetscLogEventRegister("PGXKSPOrthog", KSP_CLASSID, &PGX_KSPOrthog));
  PetscCall(PetscLogEventRegister("PGXKSPCopy", KSP_CLASSID, &PGX_KSPCopy));
  PetscFunctionReturn(PETSC_SUCCESS);
}
