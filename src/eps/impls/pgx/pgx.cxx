/* EPSPGX: dense Hermitian eigensolver for SLEPc through PGX's tridiagonal reduction (PGXSytrd).
   The operator's matrix is gathered on rank 0 (a sparse AIJ operator as CSR, densified by PGXSytrd where the
   reduction runs; any other type converted to a sequential dense matrix), which alone reduces it (reference
   or cuda backend) and solves T (PGX's divide and conquer with its gemms on the GPU, or LAPACK dstemr/dstedc on
   the host); the eigenvalues are broadcast. EPSSolve solves T once, with its eigenvectors (kept by PGXSytrd, on
   the device for the divide and conquer) unless -eps_pgx_tridiag_vectors 0; the back-transformation Z = Q Z_T
   runs when the eigenvectors are first asked for (EPSGetEigenpair, EPSComputeError...), and rank 0 scatters
   their rows. SLEPc's basis V, which only holds those eigenvectors, gets its storage (n^2 scalars) then too, not in
   EPSSetUp (EPSPGXAllocateSolution): an eigenvalue-only run never allocates it. */
#include <slepcpgx.h>
#include <slepc/private/epsimpl.h>
#include <slepc/private/bvimpl.h> /* the deferred basis: its type's pending create (EPSPGXAllocateSolution) */
#include <pgx/private/pgximpl.h>
#include <vector>
#include <algorithm>

typedef struct {
  PetscInt       b;        /* panel width (-eps_pgx_block) */
  PGXSytrdSymv   symv;     /* symmetric product of the cuda panel (-eps_pgx_symv) */
  PGXSytrdPanel  panel;    /* the cuda panel (-eps_pgx_panel) */
  PetscInt       bback;    /* reflectors per block of the cuda back-transformation (-eps_pgx_back_block) */
  PetscInt       backchunks; /* column chunks of the cuda back-transformation's overlapped download (-eps_pgx_back_chunks) */
  PetscInt       cholsplit; /* cuda: B's Cholesky splits orders above this in recursive halves (-eps_pgx_chol_split) */
  PetscInt       panelgrid; /* blocks of the last cuda reduction's fused panel (0: the launches ran) */
  PGXTridiagEigenMethod tev; /* tridiagonal eigensolver (-eps_pgx_tridiag) */
  PetscBool      tvectors; /* EPSSolve solves T with its eigenvectors (-eps_pgx_tridiag_vectors) */
  PetscInt       threads;  /* host threads of the divide and conquer (-eps_pgx_threads; 0: the default) */
  PGXStedcSecular secular; /* where the divide and conquer solves its secular equations (-eps_pgx_stedc_secular) */
  PGXDeviceType  devreq;   /* -pgx_device as requested */
  PGXDeviceType  device;   /* resolved at setup */
  Mat            Ad;       /* the gathered operator (sequential dense, n x n), or NULL when As holds it */
  Mat            As;       /* the gathered operator when sparse (MATSEQAIJ): handed over as CSR, densified by PGXSytrd */
  Mat            Bd, Bs;   /* B of a generalized problem (EPS_GHEP), gathered as A is: dense, or CSR (MATSEQAIJ) */
  PetscBool      gatherdense; /* -eps_pgx_gather_dense: gather sparse operators densely too (the way before As) */
  PGXSytrd       S;        /* the reduction of Ad */
  PetscInt      *order;    /* nconv: order[i] = index in the ascending spectrum of the i-th returned eigenvalue */
  PetscLogDouble tgather;  /* seconds spent gathering the matrix */
  PGXSytrdTimes  times;    /* reduction, tridiagonal solve, back-transformation of the last solve */
} EPS_PGX;

/* The sequential matrix M (the whole matrix) kept for the solve: a copy of a MATSEQAIJ into *Ms (handed to PGXSytrd as
   CSR, so that it is densified where the reduction runs: n^2 values never exist on the host with the cuda backend), or
   a dense conversion of any other type into *Md */
static PetscErrorCode EPSPGXGatherLocal(EPS eps, Mat M, Mat *Md, Mat *Ms)
{
  EPS_PGX  *ctx = (EPS_PGX *)eps->data;
  PetscBool isaij;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)M, MATSEQAIJ, &isaij));
  if (isaij && !ctx->gatherdense) PetscCall(MatDuplicate(M, MAT_COPY_VALUES, Ms));
  else PetscCall(MatConvert(M, MATSEQDENSE, MAT_INITIAL_MATRIX, Md));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Matrix k of the ST (0: A, 1: B) gathered on rank 0 (or the only rank) into *Md or *Ms */
static PetscErrorCode EPSPGXGather(EPS eps, PetscInt k, Mat *Md, Mat *Ms)
{
  Mat         M;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(STGetMatrix(eps->st, k, &M));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)eps), &size));
  if (size == 1) PetscCall(EPSPGXGatherLocal(eps, M, Md, Ms));
  else { /* rank 0 alone gathers (and solves): the other ranks ask for an empty submatrix */
    IS          is;
    Mat        *sub;
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)eps), &rank));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, rank ? 0 : eps->n, 0, 1, &is));
    PetscCall(MatCreateSubMatrices(M, 1, &is, &is, MAT_INITIAL_MATRIX, &sub));
    PetscCall(ISDestroy(&is));
    if (!rank) PetscCall(EPSPGXGatherLocal(eps, sub[0], Md, Ms));
    PetscCall(MatDestroySubMatrices(1, &sub));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SLEPc's default type of a basis without one, which EPSAllocateSolution would give it (BVMAT since SLEPc 3.20) */
#if SLEPC_VERSION_LT(3, 20, 0)
  #define EPSPGX_BV_DEFAULT BVSVEC
#else
  #define EPSPGX_BV_DEFAULT BVMAT
#endif

/* Whether eps->V has its sizes but no storage yet: its type's create still pending (EPSPGXAllocateSolution). A BV's
   create is pending only while it has no sizes (BVSetType keeps it, BVSetSizes/BVSetSizesFromVec run it), so a BV with
   columns and a pending create is one deferred here. */
static PetscBool EPSPGXBasisDeferred(EPS eps)
{
  return (eps->V && eps->V->m > 0 && eps->V->ops->create) ? PETSC_TRUE : PETSC_FALSE;
}

/* The only operation of a deferred basis: reading a column (BVGetColumn, BVCopyVec: EPSGetInvariantSubspace, or a BV
   taken with EPSGetBV) before the eigenvectors were asked for says why it cannot, where it would otherwise fail with
   "No method getcolumn". EPSGetInvariantSubspace calls no EPS method that could fill V first. */
static PetscErrorCode BVGetColumn_PGXDeferred(BV bv, PetscInt j, Vec *v)
{
  PetscFunctionBegin;
  (void)v;
  SETERRQ(PetscObjectComm((PetscObject)bv), PETSC_ERR_ORDER, "EPSPGX allocates and fills its basis (column %" PetscInt_FMT " asked for) only when the eigenvectors are first asked for: call EPSGetEigenpair(), EPSGetEigenvector() or EPSComputeError() before EPSGetInvariantSubspace() or reading the columns of EPSGetBV()", j);
}

/* Gives the basis deferred by EPSPGXAllocateSolution its storage: runs its type's create, as BVSetSizesFromVec would
   have (its ops are then the type's); nothing when V is not deferred. Collective. */
static PetscErrorCode EPSPGXAllocateBasis(EPS eps)
{
  BV             V = eps->V;
  PetscErrorCode (*create)(BV);
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  if (!EPSPGXBasisDeferred(eps)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&t0));
  create            = V->ops->create;
  V->ops->getcolumn = NULL; /* BVGetColumn_PGXDeferred: the type's create sets its own */
  PetscCall(PetscLogEventBegin(BV_Create, V, 0, 0, 0));
  PetscCall((*create)(V));
  PetscCall(PetscLogEventEnd(BV_Create, V, 0, 0, 0));
  V->ops->create = NULL;
  V->defersfo    = PETSC_FALSE;
  PetscCall(PetscObjectStateIncrease((PetscObject)V));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(eps, "EPSPGX: basis V of %" PetscInt_FMT " columns allocated for the eigenvectors in %g s\n", V->m, t1 - t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* EPSAllocateSolution(eps, 0) without the basis' storage where it can wait. SLEPc's gives V its n columns (n^2 scalars,
   zeroed on the host: 1.2 s of a 1.7 s EPSSetUp at n = 16384), which only the eigenvectors need: EPSSolve only sets
   V's active columns, EPSView prints its sizes, EPSGetEigenvector, EPSComputeError and EPSVectorsView go through
   EPSComputeVectors first. So V gets its sizes (and SLEPc its eigenvalue arrays) here, while the create of its type,
   which allocates, stays pending as BVSetType leaves it for a BV without sizes, until EPSPGXAllocateBasis runs it from
   EPSComputeVectors_PGX. Eager where EPSSetUp writes into V after this: initial vectors (EPSSetInitialSpace) and
   deflation vectors (EPSSetDeflationSpace). *what says which for -info. */
static PetscErrorCode EPSPGXAllocateSolution(EPS eps, const char **what)
{
  PetscInt oldsize;

  PetscFunctionBegin;
  if (eps->nini < 0 || eps->nds < 0) {
    PetscCall(EPSPGXAllocateBasis(eps)); /* deferred by an earlier setup */
    PetscCall(EPSAllocateSolution(eps, 0));
    *what = "basis V allocated (initial or deflation vectors to insert)";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!eps->V) PetscCall(EPSGetBV(eps, &eps->V));
  if (!((PetscObject)eps->V)->type_name) PetscCall(BVSetType(eps->V, EPSPGX_BV_DEFAULT));
  PetscCall(BVGetSizes(eps->V, NULL, NULL, &oldsize));
  if (!oldsize && eps->V->ops->create) { /* no sizes yet (the first setup, or the first after EPSReset): its create is pending */
    PetscErrorCode (*create)(BV) = eps->V->ops->create;
    PetscErrorCode ierr;
    eps->V->ops->create    = NULL; /* BVSetSizesFromVec (in EPSAllocateSolution) runs a pending create only */
    ierr                   = EPSAllocateSolution(eps, 0);
    eps->V->ops->create    = create;
    eps->V->ops->getcolumn = BVGetColumn_PGXDeferred;
    PetscCall(ierr);
  } else {
    if (oldsize != eps->ncv) PetscCall(EPSPGXAllocateBasis(eps)); /* BVResize needs the storage (not seen: EPSSetOperators resets V when n changes) */
    PetscCall(EPSAllocateSolution(eps, 0)); /* the same columns: V as it was, deferred or allocated */
  }
  *what = EPSPGXBasisDeferred(eps) ? "basis V deferred (its storage allocated when eigenvectors are first asked for)" : "basis V allocated (by an earlier request for eigenvectors, or given with its storage)";
  if (EPSPGXBasisDeferred(eps)) {
    /* EPSComputeError takes its work vectors (EPSSetWorkVecs) from a column of V before it asks for the eigenvector:
       made here from the operator's vectors (the type of V's columns), so that it finds them */
#if defined(PETSC_USE_COMPLEX)
    const PetscInt nw = 3;
#else
    const PetscInt nw = 5;
#endif
    if (eps->nwork < nw) {
      Vec t;
      PetscCall(VecDestroyVecs(eps->nwork, &eps->work));
      PetscCall(STMatCreateVecs(eps->st, &t, NULL));
      PetscCall(VecDuplicateVecs(t, nw, &eps->work));
      PetscCall(VecDestroy(&t));
      eps->nwork = nw;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The gathered matrix (dense Md, or CSR Ms when Md is NULL) handed to S by setd or setcsr: PGXSytrdSetMatrix(CSR) for
   the operator, PGXSytrdSetMatrixB(CSR) for B (what: its name in a message) */
static PetscErrorCode EPSPGXHandOver(PGXSytrd S, PetscInt n, Mat Md, Mat Ms, PetscErrorCode (*setd)(PGXSytrd, PetscInt, const PetscScalar[], PetscInt), PetscErrorCode (*setcsr)(PGXSytrd, PetscInt, const PetscInt[], const PetscInt[], const PetscScalar[]), const char *what)
{
  const PetscScalar *a;

  PetscFunctionBegin;
  if (Md) {
    PetscInt lda;
    PetscCall(MatDenseGetLDA(Md, &lda));
    PetscCall(MatDenseGetArrayRead(Md, &a));
    PetscCall(setd(S, n, a, lda));
    PetscCall(MatDenseRestoreArrayRead(Md, &a));
  } else {
    const PetscInt *ia, *ja;
    PetscInt        nr;
    PetscBool       done;
    PetscCall(MatGetRowIJ(Ms, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
    PetscCheck(done && nr == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "EPSPGX: MatGetRowIJ of the gathered %s failed", what);
    PetscCall(MatSeqAIJGetArrayRead(Ms, &a));
    PetscCall(setcsr(S, n, ia, ja, a));
    PetscCall(MatSeqAIJRestoreArrayRead(Ms, &a));
    PetscCall(MatRestoreRowIJ(Ms, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 solves alone: its error ierr is made every rank's (the others raise an error that points to rank 0's message),
   so that no rank waits in a broadcast for a rank that has failed (a cuda failure, B not positive definite) */
static PetscErrorCode EPSPGXShareError(EPS eps, PetscErrorCode ierr)
{
  int e = (int)ierr;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Bcast(&e, 1, MPI_INT, 0, PetscObjectComm((PetscObject)eps)));
  PetscCheck(!e || ierr, PETSC_COMM_SELF, (PetscErrorCode)e, "EPSPGX: the solve on rank 0 failed (rank 0's error message says why)");
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSSetUp_PGX(EPS eps)
{
  EPS_PGX       *ctx = (EPS_PGX *)eps->data;
  PetscBool      isshift;
  PetscLogDouble t0, t1, ta, tb;
  const char    *basis;

  PetscFunctionBegin;
  if (eps->isgeneralized) PetscCheck(eps->problem_type == EPS_GHEP, PetscObjectComm((PetscObject)eps), PETSC_ERR_SUP, "EPSPGX solves generalized problems with A Hermitian and B Hermitian positive definite (EPS_GHEP) only; set EPSSetProblemType(eps,EPS_GHEP) or -eps_gen_hermitian");
  else PetscCheck(eps->problem_type == EPS_HEP, PetscObjectComm((PetscObject)eps), PETSC_ERR_SUP, "EPSPGX solves standard Hermitian problems (EPS_HEP) only; set EPSSetProblemType(eps,EPS_HEP) or -eps_hermitian for a symmetric (Hermitian) matrix");
  PetscCall(PetscObjectTypeCompare((PetscObject)eps->st, STSHIFT, &isshift));
  PetscCheck(isshift, PetscObjectComm((PetscObject)eps), PETSC_ERR_SUP, "EPSPGX does not support spectral transformations other than STSHIFT (got %s)", ((PetscObject)eps->st)->type_name);
  eps->ncv = eps->n;
  if (eps->mpd != PETSC_DEFAULT) PetscCall(PetscInfo(eps, "Warning: parameter mpd ignored\n"));
  if (eps->max_it == PETSC_DEFAULT) eps->max_it = 1;
  if (!eps->which) eps->which = EPS_LARGEST_MAGNITUDE; /* SLEPc's default for a solver without inversion */
  EPSCheckUnsupported(eps, EPS_FEATURE_BALANCE | EPS_FEATURE_ARBITRARY | EPS_FEATURE_REGION | EPS_FEATURE_STOPPING);
  EPSCheckIgnored(eps, EPS_FEATURE_EXTRACTION | EPS_FEATURE_CONVERGENCE);
  PetscCall(PetscTime(&ta));
  PetscCall(EPSPGXAllocateSolution(eps, &basis)); /* the eigenvalue arrays; the basis V's storage deferred when it can be */
  PetscCall(PetscTime(&tb));
  PetscCall(PGXDeviceResolve(PetscObjectComm((PetscObject)eps), ctx->devreq, &ctx->device)); /* real and complex scalars */
#if PGX_HAVE_CUDA
  /* the reduction, the divide and conquer and the back-transformation call cuBLAS, which PGX loads at its first use:
     load it and make PGX's handle here (50-110 ms on an H200), so that the solve proper holds none of it and a missing
     library is reported before the gather */
  if (ctx->device == PGX_DEVICE_CUDA) PetscCall(PGXCUDALibInitialize(PGX_CUDALIB_CUBLAS));
#endif
  if (eps->isgeneralized) {
    /* B is factored by PGXSytrd, not by the ST: its KSP (which STSetUp would set up on B, an LU factorization by
       default) does nothing, as EPSLAPACK does it */
    KSP ksp;
    PC  pc;
    PetscCall(STGetKSP(eps->st, &ksp));
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCNONE));
  }
  /* gather the operator's matrix (without the shift: STSHIFT's shift is ignored, as by EPSLAPACK) */
  PetscCall(PetscTime(&t0));
  PetscCall(MatDestroy(&ctx->Ad));
  PetscCall(MatDestroy(&ctx->As));
  PetscCall(MatDestroy(&ctx->Bd));
  PetscCall(MatDestroy(&ctx->Bs));
  PetscCall(EPSPGXGather(eps, 0, &ctx->Ad, &ctx->As));
  if (eps->isgeneralized) PetscCall(EPSPGXGather(eps, 1, &ctx->Bd, &ctx->Bs));
  PetscCall(PetscTime(&t1));
  ctx->tgather = t1 - t0;
  PetscCall(PetscInfo(eps, "EPSPGX setup of order %" PetscInt_FMT ": %s, %g s; device %g s, gather %g s\n", eps->n, basis, tb - ta, t0 - tb, t1 - t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The order of the returned eigenvalues, as EPSLAPACK sorts them (SLEPc's basic sorting by 'which') */
static PetscErrorCode EPSSetUpSort_PGX(EPS eps)
{
  SlepcSC sc = eps->sc;

  PetscFunctionBegin;
  sc->map    = NULL;
  sc->mapobj = NULL;
  sc->rg     = NULL;
  switch (eps->which) {
  case EPS_LARGEST_MAGNITUDE: sc->comparison = SlepcCompareLargestMagnitude; sc->comparisonctx = NULL; break;
  case EPS_SMALLEST_MAGNITUDE: sc->comparison = SlepcCompareSmallestMagnitude; sc->comparisonctx = NULL; break;
  case EPS_LARGEST_REAL: sc->comparison = SlepcCompareLargestReal; sc->comparisonctx = NULL; break;
  case EPS_SMALLEST_REAL: sc->comparison = SlepcCompareSmallestReal; sc->comparisonctx = NULL; break;
  case EPS_LARGEST_IMAGINARY: sc->comparison = SlepcCompareLargestImaginary; sc->comparisonctx = NULL; break;
  case EPS_SMALLEST_IMAGINARY: sc->comparison = SlepcCompareSmallestImaginary; sc->comparisonctx = NULL; break;
  case EPS_TARGET_MAGNITUDE: sc->comparison = SlepcCompareTargetMagnitude; sc->comparisonctx = &eps->target; break;
  case EPS_TARGET_REAL: sc->comparison = SlepcCompareTargetReal; sc->comparisonctx = &eps->target; break;
  case EPS_TARGET_IMAGINARY: sc->comparison = SlepcCompareTargetReal; /* real eigenvalues */ sc->comparisonctx = &eps->target; break;
  case EPS_ALL: sc->comparison = SlepcCompareSmallestReal; sc->comparisonctx = NULL; break;
  case EPS_WHICH_USER: break; /* set by EPSSetEigenvalueComparison() */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The eigenvalues are those of the matrix itself (the operator's shift is not applied): nothing to undo */
static PetscErrorCode EPSBackTransform_PGX(EPS eps)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSSolve_PGX(EPS eps)
{
  EPS_PGX           *ctx = (EPS_PGX *)eps->data;
  PetscInt           n = eps->n, first = 0, count = n;
  std::vector<PetscReal> w(n);
  PetscLogDouble     tp[6] = {0, 0, 0, 0, 0, 0}; /* -info: where EPSSolve's time goes */

  PetscFunctionBegin;
  PetscCall(PetscTime(&tp[0]));
  PetscCall(PGXSytrdDestroy(&ctx->S));
  /* rank 0 (or the only rank) solves; the eigenvalues are broadcast, and so is the error of a failed solve */
  auto solve0 = [&]() -> PetscErrorCode {
    PetscCall(PGXSytrdCreate(ctx->device, &ctx->S));
    PetscCall(PGXSytrdSetBlockSize(ctx->S, ctx->b));
    PetscCall(PGXSytrdSetSymv(ctx->S, ctx->symv));
    PetscCall(PGXSytrdSetPanel(ctx->S, ctx->panel, PETSC_DECIDE));
    PetscCall(PGXSytrdSetBackBlockSize(ctx->S, ctx->bback));
    PetscCall(PGXSytrdSetBackChunks(ctx->S, ctx->backchunks));
    PetscCall(PGXSytrdSetCholeskySplit(ctx->S, ctx->cholsplit));
    PetscCall(PGXSytrdSetTridiagonalEigenMethod(ctx->S, ctx->tev));
    PetscCall(PGXSytrdSetThreads(ctx->S, ctx->threads));
    PetscCall(PGXSytrdSetStedcSecular(ctx->S, ctx->secular));
    PetscCall(PetscTime(&tp[1]));
    PetscCall(EPSPGXHandOver(ctx->S, n, ctx->Ad, ctx->As, PGXSytrdSetMatrix, PGXSytrdSetMatrixCSR, "operator"));
    /* a generalized problem: B = L L^H, A <- L^-1 A L^-H in the backend (B not positive definite is an error there) */
    if (ctx->Bd || ctx->Bs) PetscCall(EPSPGXHandOver(ctx->S, n, ctx->Bd, ctx->Bs, PGXSytrdSetMatrixB, PGXSytrdSetMatrixBCSR, "B"));
    PetscCall(PetscTime(&tp[2]));
    /* T is solved once: with its eigenvectors when they may be asked for (EPSComputeVectors reuses them) */
    PetscCall(PGXSytrdSolveTridiagonal(ctx->S, ctx->tvectors));
    PetscCall(PetscTime(&tp[3]));
    PetscCall(PGXSytrdSolve(ctx->S, w.data(), NULL, 0));
    PetscCall(PetscTime(&tp[4]));
    PetscCall(PGXSytrdGetTimes(ctx->S, &ctx->times));
    PetscCall(PGXSytrdGetPanel(ctx->S, NULL, &ctx->panelgrid));
    return PETSC_SUCCESS;
  };
  PetscCall(EPSPGXShareError(eps, (ctx->Ad || ctx->As) ? solve0() : PETSC_SUCCESS));
  if (n) {
    PetscMPIInt nn;
    PetscCall(PetscMPIIntCast(n, &nn));
    PetscCallMPI(MPI_Bcast(w.data(), nn, MPIU_REAL, 0, PetscObjectComm((PetscObject)eps)));
  }
  PetscCallMPI(MPI_Bcast(&ctx->times, 4, MPI_DOUBLE, 0, PetscObjectComm((PetscObject)eps)));
  if (eps->which == EPS_ALL && eps->inta != eps->intb) { /* the eigenvalues in [inta, intb] */
    while (first < n && w[first] < eps->inta) first++;
    count = 0;
    while (first + count < n && w[first + count] <= eps->intb) count++;
  }
  /* returned already in the order of SLEPc's sorting criterion: EPSSolve's SlepcSortEigenvalues is an insertion sort,
     which costs n^2/2 comparisons when it must reverse the whole ascending spectrum (-eps_largest_magnitude, the
     default: 3.8 s of EPSSolve at n = 16384 on the GPU host, more than the reduction), and n when nothing moves */
  {
    PetscErrorCode cerr = PETSC_SUCCESS;
    PetscCall(PetscFree(ctx->order));
    PetscCall(PetscMalloc1(count, &ctx->order));
    for (PetscInt i = 0; i < count; i++) ctx->order[i] = first + i;
    std::stable_sort(ctx->order, ctx->order + count, [&](PetscInt a, PetscInt b) {
      PetscInt r = 0;
      if (cerr == PETSC_SUCCESS) cerr = SlepcSCCompare(eps->sc, w[a], 0.0, w[b], 0.0, &r);
      return r < 0;
    });
    PetscCall(cerr);
    for (PetscInt i = 0; i < count; i++) {
      eps->eigr[i]   = w[ctx->order[i]];
      eps->eigi[i]   = 0;
      eps->errest[i] = 0;
    }
  }
  eps->nconv  = count;
  eps->its    = 1;
  eps->reason = EPS_CONVERGED_TOL;
  PetscCall(PetscTime(&tp[5]));
  if (ctx->S) PetscCall(PetscInfo(eps, "EPSPGX solve of order %" PetscInt_FMT ": %g s; create %g, set matrix %g (B's Cholesky and L^-1 A L^-H %g), reduction and T %g (reduction %g, T %g), eigenvalues %g, broadcast and order %g\n", n, tp[5] - tp[0], tp[1] - tp[0], tp[2] - tp[1], ctx->times.generalize, tp[3] - tp[2], ctx->times.reduce, ctx->times.tridiag, tp[4] - tp[3], tp[5] - tp[4]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The eigenvectors, when first asked for: Z = Q Z_T with the Z_T kept by EPSSolve (T is solved again only with
   -eps_pgx_tridiag_vectors 0); each rank copies its rows into the basis V, which gets its storage here */
static PetscErrorCode EPSComputeVectors_PGX(EPS eps)
{
  EPS_PGX     *ctx = (EPS_PGX *)eps->data;
  PetscInt     n = eps->n, rstart, rend, ldv;
  Mat          V;
  PetscScalar *v;
  PGXSytrdTimes t;
  MPI_Comm      comm = PetscObjectComm((PetscObject)eps);
  PetscMPIInt   size, rank;
  std::vector<PetscReal>   w(n);
  std::vector<PetscScalar> Z; /* on the solving rank */

  PetscFunctionBegin;
  if (!eps->nconv) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(EPSPGXAllocateBasis(eps));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  {
    auto vectors0 = [&]() -> PetscErrorCode {
      Z.resize((size_t)n * n);
      PetscCall(PGXSytrdSolve(ctx->S, w.data(), Z.data(), n));
      PetscCall(PGXSytrdGetTimes(ctx->S, &t));
      ctx->times = t; /* the tridiagonal time sums every solve of T (two only with -eps_pgx_tridiag_vectors 0) */
      return PETSC_SUCCESS;
    };
    PetscCall(EPSPGXShareError(eps, ctx->S ? vectors0() : PETSC_SUCCESS));
  }
  PetscCallMPI(MPI_Bcast(&ctx->times, 4, MPI_DOUBLE, 0, comm));
  PetscCall(BVGetMat(eps->V, &V));
  PetscCall(MatGetOwnershipRange(V, &rstart, &rend));
  PetscCall(MatDenseGetLDA(V, &ldv));
  PetscCall(MatDenseGetArrayWrite(V, &v));
  if (size == 1) {
    for (PetscInt j = 0; j < eps->nconv; j++)
      for (PetscInt i = rstart; i < rend; i++) v[(i - rstart) + (size_t)j * ldv] = Z[i + (size_t)ctx->order[j] * n];
  } else { /* rank 0 scatters each returned eigenvector's rows to their owners (one column at a time: counts fit an int) */
    const PetscInt         *ranges;
    std::vector<PetscMPIInt> counts(size), displs(size);
    std::vector<PetscScalar> col(rend - rstart);
    PetscCall(MatGetOwnershipRanges(V, &ranges));
    for (PetscMPIInt r = 0; r < size; r++) {
      PetscCall(PetscMPIIntCast(ranges[r + 1] - ranges[r], &counts[r]));
      PetscCall(PetscMPIIntCast(ranges[r], &displs[r]));
    }
    for (PetscInt j = 0; j < eps->nconv; j++) {
      PetscCallMPI(MPI_Scatterv(rank ? NULL : Z.data() + (size_t)ctx->order[j] * n, counts.data(), displs.data(), MPIU_SCALAR, col.data(), counts[rank], MPIU_SCALAR, 0, comm));
      for (PetscInt i = 0; i < rend - rstart; i++) v[i + (size_t)j * ldv] = col[i];
    }
  }
  PetscCall(MatDenseRestoreArrayWrite(V, &v));
  PetscCall(BVRestoreMat(eps->V, &V));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSSetFromOptions_PGX(EPS eps, PGXOptionItems PetscOptionsObject)
{
  EPS_PGX *ctx = (EPS_PGX *)eps->data;
  PetscInt b   = ctx->b;
  PetscBool flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "EPS PGX Options");
  PetscCall(PetscOptionsInt("-eps_pgx_block", "Panel width of the tridiagonal reduction", "EPSPGXSetBlockSize", b, &b, &flg));
  if (flg) PetscCall(EPSPGXSetBlockSize(eps, b));
  PetscCall(PetscOptionsEnum("-eps_pgx_symv", "Symmetric product of the GPU panel: lower (each stored element read once) or full (one gemv on the full square)", "EPSPGXSetSymv", PGXSytrdSymvs, (PetscEnum)ctx->symv, (PetscEnum *)&ctx->symv, NULL));
  PetscCall(PetscOptionsEnum("-eps_pgx_panel", "Panel of the GPU reduction: fused (one cooperative kernel per panel) or launches (the paper's cuBLAS calls and small kernels per column)", "PGXSytrdSetPanel", PGXSytrdPanels, (PetscEnum)ctx->panel, (PetscEnum *)&ctx->panel, NULL));
  PetscCall(PetscOptionsInt("-eps_pgx_back_block", "Reflectors per compact WY block of the GPU back-transformation (each block streams the eigenvectors once)", "PGXSytrdSetBackBlockSize", ctx->bback, &ctx->bback, &flg));
  if (flg) {
    if (ctx->bback == PETSC_DEFAULT || ctx->bback == PETSC_DECIDE) ctx->bback = PGX_SYTRD_DEFAULT_BACK_BLOCK;
    PetscCheck(ctx->bback >= 1 && ctx->bback <= 1024, PetscObjectComm((PetscObject)eps), PETSC_ERR_ARG_OUTOFRANGE, "-eps_pgx_back_block must be in 1..1024, got %" PetscInt_FMT, ctx->bback);
  }
  PetscCall(PetscOptionsInt("-eps_pgx_back_chunks", "Column chunks of the GPU back-transformation: each chunk of eigenvectors is downloaded while the next one is computed (1: no overlap)", "PGXSytrdSetBackChunks", ctx->backchunks, &ctx->backchunks, &flg));
  if (flg) {
    if (ctx->backchunks == PETSC_DEFAULT || ctx->backchunks == PETSC_DECIDE) ctx->backchunks = PGX_SYTRD_DEFAULT_BACK_CHUNKS;
    PetscCheck(ctx->backchunks >= 1, PetscObjectComm((PetscObject)eps), PETSC_ERR_ARG_OUTOFRANGE, "-eps_pgx_back_chunks must be at least 1, got %" PetscInt_FMT, ctx->backchunks);
  }
  PetscCall(PetscOptionsInt("-eps_pgx_chol_split", "Generalized problems on the GPU: B's Cholesky factorization splits orders above this in recursive halves (below it, right-looking by 64-column blocks)", "PGXSytrdSetCholeskySplit", ctx->cholsplit, &ctx->cholsplit, &flg));
  if (flg) {
    if (ctx->cholsplit == PETSC_DEFAULT || ctx->cholsplit == PETSC_DECIDE) ctx->cholsplit = PGX_SYTRD_DEFAULT_CHOL_SPLIT;
    PetscCheck(ctx->cholsplit >= 1, PetscObjectComm((PetscObject)eps), PETSC_ERR_ARG_OUTOFRANGE, "-eps_pgx_chol_split must be at least 1, got %" PetscInt_FMT, ctx->cholsplit);
  }
  PetscCall(PetscOptionsEnum("-eps_pgx_tridiag", "Eigensolver of T: auto (with vectors: dc on cuda, dstemr on the host; dstedc without), stedc, stemr (LAPACK, host), dc (divide and conquer, gemms in the backend)", "PGXSytrdSetTridiagonalEigenMethod", PGXTridiagEigenMethods, (PetscEnum)ctx->tev, (PetscEnum *)&ctx->tev, NULL));
  PetscCall(PetscOptionsInt("-eps_pgx_threads", "Host threads of the divide and conquer for T (1: serial; 0: the cores available, at most 16); the results are the same bitwise for any number", "PGXSytrdSetThreads", ctx->threads, &ctx->threads, &flg));
  if (flg) {
    if (ctx->threads == PETSC_DEFAULT || ctx->threads == PETSC_DECIDE) ctx->threads = 0;
    PetscCheck(ctx->threads >= 0 && ctx->threads <= PGX_STEDC_MAX_THREADS, PetscObjectComm((PetscObject)eps), PETSC_ERR_ARG_OUTOFRANGE, "-eps_pgx_threads must be in 1..%d (0: the default), got %" PetscInt_FMT, PGX_STEDC_MAX_THREADS, ctx->threads);
  }
  PetscCall(PetscOptionsEnum("-eps_pgx_stedc_secular", "Secular equations of the divide and conquer: auto (device on cuda), host (LAPACK dlaed4, S uploaded), device (PGX's root finder, z-hat and S in the backend)", "PGXSytrdSetStedcSecular", PGXStedcSeculars, (PetscEnum)ctx->secular, (PetscEnum *)&ctx->secular, NULL));
  PetscCall(PetscOptionsBool("-eps_pgx_gather_dense", "Gather a sparse (AIJ) operator into a dense matrix on the host too (default: its CSR arrays are handed over and densified where the reduction runs, on the GPU with cuda)", "EPSPGX", ctx->gatherdense, &ctx->gatherdense, NULL));
  PetscCall(PetscOptionsBool("-eps_pgx_tridiag_vectors", "EPSSolve solves T with its eigenvectors (0: eigenvalues only; asking for eigenvectors then solves T again)", "PGXSytrdSolveTridiagonal", ctx->tvectors, &ctx->tvectors, NULL));
  PetscCall(PetscOptionsEnum("-pgx_device", "Where the kernels run: auto, host (reference), cuda", "PGXInitializePackage", PGXDeviceTypes, (PetscEnum)ctx->devreq, (PetscEnum *)&ctx->devreq, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSView_PGX(EPS eps, PetscViewer viewer)
{
  EPS_PGX  *ctx = (EPS_PGX *)eps->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  block size (panel width): %" PetscInt_FMT "\n", ctx->b));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  backend: %s, symmetric product %s\n", eps->state >= EPS_STATE_SETUP ? PGXDeviceName(ctx->device) : PGXDeviceTypes[ctx->devreq], PGXSytrdSymvs[ctx->symv]));
  if (eps->state >= EPS_STATE_SOLVED && ctx->device == PGX_DEVICE_CUDA) {
    if (ctx->panelgrid > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  GPU panel: fused (one cooperative kernel per panel, %" PetscInt_FMT " blocks); back-transformation blocks of %" PetscInt_FMT " reflectors, %" PetscInt_FMT " column chunks\n", ctx->panelgrid, ctx->bback, ctx->backchunks));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  GPU panel: launches%s; back-transformation blocks of %" PetscInt_FMT " reflectors, %" PetscInt_FMT " column chunks\n", ctx->panel != PGX_SYTRD_PANEL_FUSED ? "" : " (fused asked for: it needs the lower product and resident blocks)", ctx->bback, ctx->backchunks));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "  GPU panel: %s\n", PGXSytrdPanels[ctx->panel]));
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)eps), &size));
    if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  the matrix gathered and solved on rank 0 of %d (eigenvalues broadcast, eigenvector rows scattered)\n", size));
  }
  {
    PGXDeviceType         dev = eps->state >= EPS_STATE_SETUP ? ctx->device : ctx->devreq;
    PGXTridiagEigenMethod m;
    char                  what[128];
    PetscCall(PGXTridiagEigenMethodResolve(ctx->tev, dev, ctx->tvectors, &m));
    if (m == PGX_TRIDIAG_EIGEN_DC) PetscCall(PetscSNPrintf(what, sizeof(what), "divide and conquer (gemms on %s)", dev == PGX_DEVICE_CUDA ? "cuda" : (dev == PGX_DEVICE_HOST ? "the host" : "the backend")));
    else PetscCall(PetscSNPrintf(what, sizeof(what), "%s (host)", m == PGX_TRIDIAG_EIGEN_STEDC ? "dstedc" : "dstemr"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  tridiagonal eigensolver: %s%s; T solved %s in EPSSolve\n", ctx->tev == PGX_TRIDIAG_EIGEN_AUTO ? "auto: " : "", what, ctx->tvectors ? "with its eigenvectors" : "for its eigenvalues only"));
    if (ctx->threads > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  host threads of the divide and conquer: %" PetscInt_FMT "%s\n", ctx->threads, m == PGX_TRIDIAG_EIGEN_DC ? "" : " (unused: not the divide and conquer)"));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  host threads of the divide and conquer: the cores available, at most %d%s\n", PGX_STEDC_MAX_THREADS, m == PGX_TRIDIAG_EIGEN_DC ? "" : " (unused: not the divide and conquer)"));
    if (m == PGX_TRIDIAG_EIGEN_DC) PetscCall(PetscViewerASCIIPrintf(viewer, "  secular equations of the divide and conquer: %s\n", (ctx->secular == PGX_STEDC_SECULAR_DEVICE || (ctx->secular == PGX_STEDC_SECULAR_AUTO && dev == PGX_DEVICE_CUDA)) ? "PGX's root finder in the backend" : "LAPACK dlaed4 on the host"));
  }
  if (eps->isgeneralized) PetscCall(PetscViewerASCIIPrintf(viewer, "  generalized problem (B Hermitian positive definite): B = L L^H by Cholesky, the reduction of L^-1 A L^-H, eigenvectors L^-H Q Z_T (B-orthonormal), in the backend; B gathered %s\n", ctx->Bs ? "as CSR (MATSEQAIJ)" : (ctx->Bd ? "as a dense matrix" : "as A is")));
  if (eps->isgeneralized && (eps->state >= EPS_STATE_SETUP ? ctx->device : ctx->devreq) == PGX_DEVICE_CUDA) PetscCall(PetscViewerASCIIPrintf(viewer, "  GPU Cholesky of B: recursive halves above order %" PetscInt_FMT ", 64-column blocks below\n", ctx->cholsplit));
  if (ctx->As) PetscCall(PetscViewerASCIIPrintf(viewer, "  operator gathered as CSR (MATSEQAIJ), densified by the backend (%s)\n", ctx->device == PGX_DEVICE_CUDA ? "cuda: on the GPU" : "host"));
  else if (ctx->Ad) PetscCall(PetscViewerASCIIPrintf(viewer, "  operator gathered as a dense matrix on the host%s\n", ctx->gatherdense ? " (-eps_pgx_gather_dense)" : ""));
  if (eps->state >= EPS_STATE_SETUP && eps->V) PetscCall(PetscViewerASCIIPrintf(viewer, "  basis V: %s\n", EPSPGXBasisDeferred(eps) ? "not allocated (eigenvalues only so far: allocated when eigenvectors are first asked for)" : "allocated"));
  if (eps->state >= EPS_STATE_SOLVED) {
    if (eps->isgeneralized) PetscCall(PetscViewerASCIIPrintf(viewer, "  times: gather %g s, Cholesky of B and L^-1 A L^-H %g s, reduction %g s, tridiagonal solve %g s, back-transformation %g s\n", ctx->tgather, ctx->times.generalize, ctx->times.reduce, ctx->times.tridiag, ctx->times.back));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  times: gather %g s, reduction %g s, tridiagonal solve %g s, back-transformation %g s\n", ctx->tgather, ctx->times.reduce, ctx->times.tridiag, ctx->times.back));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSReset_PGX(EPS eps)
{
  EPS_PGX *ctx = (EPS_PGX *)eps->data;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&ctx->Ad));
  PetscCall(MatDestroy(&ctx->As));
  PetscCall(MatDestroy(&ctx->Bd));
  PetscCall(MatDestroy(&ctx->Bs));
  PetscCall(PGXSytrdDestroy(&ctx->S));
  PetscCall(PetscFree(ctx->order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSPGXSetBlockSize_PGX(EPS eps, PetscInt b)
{
  EPS_PGX *ctx = (EPS_PGX *)eps->data;

  PetscFunctionBegin;
  if (b == PETSC_DEFAULT || b == PETSC_DECIDE) b = PGX_SYTRD_DEFAULT_BLOCK;
  PetscCheck(b >= 1 && b <= 1024, PetscObjectComm((PetscObject)eps), PETSC_ERR_ARG_OUTOFRANGE, "The panel width must be in 1..1024, got %" PetscInt_FMT, b);
  ctx->b = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  EPSPGXSetBlockSize - Sets the panel width of the tridiagonal reduction of `EPSPGX`.

  Logically Collective

  Input Parameters:
+ eps - the eigensolver
- b   - the panel width (1..1024; `PETSC_DEFAULT` gives 64, the width Liu et al. found best)

  Options Database Key:
. -eps_pgx_block <b> - the panel width

  Level: intermediate

.seealso: `EPSPGX`, `EPSPGXGetBlockSize()`, `PGXSytrdSetBlockSize()`
@*/
PetscErrorCode EPSPGXSetBlockSize(EPS eps, PetscInt b)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(eps, EPS_CLASSID, 1);
  PetscValidLogicalCollectiveInt(eps, b, 2);
  PetscTryMethod(eps, "EPSPGXSetBlockSize_C", (EPS, PetscInt), (eps, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSPGXGetBlockSize_PGX(EPS eps, PetscInt *b)
{
  PetscFunctionBegin;
  *b = ((EPS_PGX *)eps->data)->b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  EPSPGXGetBlockSize - Gets the panel width of the tridiagonal reduction of `EPSPGX`.

  Not Collective

  Input Parameter:
. eps - the eigensolver

  Output Parameter:
. b - the panel width

  Level: intermediate

.seealso: `EPSPGX`, `EPSPGXSetBlockSize()`
@*/
PetscErrorCode EPSPGXGetBlockSize(EPS eps, PetscInt *b)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(eps, EPS_CLASSID, 1);
  PetscAssertPointer(b, 2);
  PetscUseMethod(eps, "EPSPGXGetBlockSize_C", (EPS, PetscInt *), (eps, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSPGXSetSymv_PGX(EPS eps, PGXSytrdSymv s)
{
  PetscFunctionBegin;
  ((EPS_PGX *)eps->data)->symv = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  EPSPGXSetSymv - Chooses the symmetric matrix-vector product of the GPU panel step of `EPSPGX`.

  Logically Collective

  Input Parameters:
+ eps  - the eigensolver
- symv - `PGX_SYTRD_SYMV_LOWER` (default: each stored element of the lower triangle read once and used for its
         row and its column) or `PGX_SYTRD_SYMV_FULL` (one full gemv over the whole stored symmetric matrix,
         the choice of Liu et al., which reads twice the bytes)

  Options Database Key:
. -eps_pgx_symv <lower,full> - the product

  Level: advanced

  Note:
  The host (reference) backend ignores it.

.seealso: `EPSPGX`, `EPSPGXGetSymv()`, `PGXSytrdSetSymv()`
@*/
PetscErrorCode EPSPGXSetSymv(EPS eps, PGXSytrdSymv symv)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(eps, EPS_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(eps, symv, 2);
  PetscTryMethod(eps, "EPSPGXSetSymv_C", (EPS, PGXSytrdSymv), (eps, symv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSPGXGetSymv_PGX(EPS eps, PGXSytrdSymv *s)
{
  PetscFunctionBegin;
  *s = ((EPS_PGX *)eps->data)->symv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  EPSPGXGetSymv - Gets the symmetric product of the GPU panel step of `EPSPGX`.

  Not Collective

  Input Parameter:
. eps - the eigensolver

  Output Parameter:
. symv - the product

  Level: advanced

.seealso: `EPSPGX`, `EPSPGXSetSymv()`
@*/
PetscErrorCode EPSPGXGetSymv(EPS eps, PGXSytrdSymv *symv)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(eps, EPS_CLASSID, 1);
  PetscAssertPointer(symv, 2);
  PetscUseMethod(eps, "EPSPGXGetSymv_C", (EPS, PGXSytrdSymv *), (eps, symv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSPGXGetTimes_PGX(EPS eps, PGXSytrdTimes *t)
{
  PetscFunctionBegin;
  *t = ((EPS_PGX *)eps->data)->times;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  EPSPGXGetTimes - Seconds of the reduction, the tridiagonal eigensolve and the back-transformation of the last
  `EPSSolve()` with `EPSPGX` (the back-transformation runs when eigenvectors are first asked for), and of a
  generalized problem's Cholesky factorization of B and transformation L^-1 A L^-H.

  Not Collective

  Input Parameter:
. eps - the eigensolver

  Output Parameter:
. t - the times

  Level: intermediate

.seealso: `EPSPGX`, `PGXSytrdGetTimes()`
@*/
PetscErrorCode EPSPGXGetTimes(EPS eps, PGXSytrdTimes *t)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(eps, EPS_CLASSID, 1);
  PetscAssertPointer(t, 2);
  PetscUseMethod(eps, "EPSPGXGetTimes_C", (EPS, PGXSytrdTimes *), (eps, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EPSDestroy_PGX(EPS eps)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(eps->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)eps, "EPSPGXSetBlockSize_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)eps, "EPSPGXGetBlockSize_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)eps, "EPSPGXSetSymv_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)eps, "EPSPGXGetSymv_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)eps, "EPSPGXGetTimes_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  EPSPGX - EPSPGX = "pgx" - A dense eigensolver for Hermitian problems, standard (`EPS_HEP`) or generalized with
  B Hermitian positive definite (`EPS_GHEP`): the matrix is gathered on rank 0, reduced to tridiagonal form A = Q T Q^H by PGX's one-stage blocked Householder reduction
  (on the GPU with the cuda backend, after Liu, Zhao, Yu and Huang, 2020), T is solved by LAPACK's dstemr or
  dstedc or PGX's divide and conquer (eigenvector gemms on the GPU with the cuda backend, the default there), once,
  with its eigenvectors; the eigenvectors Z = Q Z_T are formed with compact WY blocks, only when asked for; rank
  0 sends the eigenvalues to every rank and each rank its rows of the eigenvectors. SLEPc's basis (n columns) is
  allocated only then too: `EPSSolve()` with `EPSGetEigenvalue()` alone never allocates it.

  Options Database Keys:
+ -eps_pgx_block <b> - panel width (default 64)
. -eps_pgx_symv <lower,full> - symmetric product of the GPU panel
. -eps_pgx_panel <fused,launches> - the GPU panel: one cooperative kernel per panel (default) or the paper's launches per column
. -eps_pgx_back_block <bb> - reflectors per compact WY block of the GPU back-transformation (default 256)
. -eps_pgx_back_chunks <c> - column chunks of the GPU back-transformation, each downloaded while the next is computed (default 8; 1: no overlap)
. -eps_pgx_chol_split <n> - generalized problems on the GPU: B's Cholesky factorization splits orders above n in recursive halves (default 4096)
. -eps_pgx_tridiag <auto,stedc,stemr,dc> - eigensolver of T (auto: dc on cuda, dstemr on the host; see `PGXTridiagEigenMethodResolve()`)
. -eps_pgx_tridiag_vectors <bool> - EPSSolve solves T with its eigenvectors (default; 0: eigenvalues only, T solved again for vectors)
. -eps_pgx_threads <t> - host threads of the divide and conquer for T (default 0: the cores available to the process, at most 16; 1: serial); the results are bitwise the same for any number
. -eps_pgx_gather_dense <bool> - gather a sparse (AIJ) operator densely on the host as other types are (default 0: its CSR arrays go to the backend, which forms the dense matrix itself, on the GPU with cuda)
. -eps_pgx_stedc_secular <auto,host,device> - where the divide and conquer solves its secular equations: host (LAPACK dlaed4, S uploaded) or device (PGX's root finder, z-hat and S in the backend); auto: device on cuda
- -pgx_device <auto,host,cuda> - where the reduction runs (also read with the EPS prefix)

  Level: beginner

  Notes:
  Like `EPSLAPACK`, all eigenpairs are computed and the ones selected by `EPSSetWhichEigenpairs()` returned
  (all of them, sorted; with `EPS_ALL` and `EPSSetInterval()` those in the interval). Rank 0 gathers the whole
  matrix and solves, so n is limited by one process's memory: n^2 scalars twice for a dense operator (the gathered
  copy and the reduction's), once for a sparse (AIJ) one, whose CSR arrays the reduction densifies itself (on the
  GPU with the cuda backend, where the host then holds no n^2 array until eigenvectors are asked for).
  With complex scalars the matrix is complex Hermitian and the cuda backend reduces it with the same fused panel as
  real matrices (or the launch sequence with cuBLAS Z-calls; tau complex, T real, its divide and conquer real on the
  GPU, Z = Q Z_T complex on the GPU).
  A generalized problem A x = lambda B x (`EPS_GHEP`) is made standard in the backend, as LAPACK's xsygvd does:
  B = L L^H (Cholesky; on the GPU by PGX's kernel and cuBLAS), C = L^-1 A L^-H reduced and solved, eigenvectors L^-H Q Z_T, which are
  B-orthonormal; B that is not positive definite is an error naming the leading minor where the Cholesky
  factorization fails. The ST's linear solver is not used (set to `KSPPREONLY` and `PCNONE`, as by `EPSLAPACK`).
  Other problem types (non-Hermitian, `EPS_GHIEP`, `EPS_PGNHEP`) and spectral transformations other than `STSHIFT`
  are errors; the shift of `STSHIFT` is not applied. The basis (`EPSGetBV()`, `EPSGetInvariantSubspace()`) holds the
  eigenvectors once they were asked for (`EPSGetEigenpair()`, `EPSGetEigenvector()`, `EPSComputeError()`); before
  that, unless initial or deflation vectors were given, it has its sizes but no storage, and reading it is an error.

.seealso: `EPSLAPACK`, `EPSPGXSetBlockSize()`, `EPSPGXSetSymv()`, `EPSPGXGetTimes()`, `PGXSytrdCreate()`
M*/
PETSC_EXTERN PetscErrorCode EPSCreate_PGX(EPS eps)
{
  EPS_PGX *ctx;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  eps->data = (void *)ctx;
  ctx->b    = PGX_SYTRD_DEFAULT_BLOCK;
  ctx->symv = PGX_SYTRD_SYMV_LOWER;
  ctx->panel = PGX_SYTRD_PANEL_FUSED;
  ctx->bback = PGX_SYTRD_DEFAULT_BACK_BLOCK;
  ctx->backchunks = PGX_SYTRD_DEFAULT_BACK_CHUNKS;
  ctx->cholsplit  = PGX_SYTRD_DEFAULT_CHOL_SPLIT;
  ctx->tvectors = PETSC_TRUE;
  PetscCall(PGXGetDefaultDeviceType(&ctx->devreq));
  eps->categ                = EPS_CATEGORY_OTHER;
  eps->ops->solve           = EPSSolve_PGX;
  eps->ops->setup           = EPSSetUp_PGX;
  eps->ops->setupsort       = EPSSetUpSort_PGX;
  eps->ops->setfromoptions  = EPSSetFromOptions_PGX;
  eps->ops->destroy         = EPSDestroy_PGX;
  eps->ops->reset           = EPSReset_PGX;
  eps->ops->view            = EPSView_PGX;
  eps->ops->computevectors  = EPSComputeVectors_PGX;
  eps->ops->backtransform   = EPSBackTransform_PGX;
  PetscCall(PetscObjectComposeFunction((PetscObject)eps, "EPSPGXSetBlockSize_C", EPSPGXSetBlockSize_PGX));
  PetscCall(PetscObjectComposeFunction((PetscObject)eps, "EPSPGXGetBlockSize_C", EPSPGXGetBlockSize_PGX));
  PetscCall(PetscObjectComposeFunction((PetscObject)eps, "EPSPGXSetSymv_C", EPSPGXSetSymv_PGX));
  PetscCall(PetscObjectComposeFunction((PetscObject)eps, "EPSPGXGetSymv_C", EPSPGXGetSymv_PGX));
  PetscCall(PetscObjectComposeFunction((PetscObject)eps, "EPSPGXGetTimes_C", EPSPGXGetTimes_PGX));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Called by PGXInitializePackage() in builds with SLEPc: adds EPSPGX to SLEPc's list of solvers. Harmless in
   PETSc-only programs that load libpgx.so (EPSRegister only initializes SLEPc's EPS package tables). */
PETSC_INTERN PetscErrorCode PGXRegister_EPS(void)
{
  PetscFunctionBegin;
  PetscCall(EPSRegister(EPSPGX, EPSCreate_PGX));
  PetscFunctionReturn(PETSC_SUCCESS);
}
