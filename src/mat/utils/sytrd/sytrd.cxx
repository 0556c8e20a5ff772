/* The dense Hermitian tridiagonal reduction object: storage, timing and the dispatch to the reference or
   cuda kernels (sytrd_kernels.h); the tridiagonal eigensolve is LAPACK's dstemr or dstedc on the host, or PGX's
   divide and conquer (stedc.cxx) with its gemms in the backend. */
#include <pgx/sytrd.h>
#include <pgx/private/pgximpl.h>
#include <petscblaslapack.h>
#include <petsctime.h>
#include "sytrd_kernels.h"
#include "stedc.h"
#include <vector>

/* the cuda backend of the reduction (src/mat/utils/sytrd/cuda/): real double (sytrd_kernels.cu) and complex double
   (hetrd_kernels.cu); the divide and conquer's cuda kernels are real in both */
#define PGX_SYTRD_CUDA PGX_HAVE_CUDA

namespace K = pgx::kernels::sytrd;

/* LAPACK's divide and conquer for symmetric tridiagonal matrices (real), through PETSc's name mangling */
#define PGXLAPACKstedc_ PETSCBLASREAL(stedc, STEDC)
#define PGXLAPACKstemr_ PETSCBLASREAL(stemr, STEMR)
BLAS_EXTERN void PGXLAPACKstemr_(const char *, const char *, const PetscBLASInt *, PetscReal *, PetscReal *, const PetscReal *, const PetscReal *, const PetscBLASInt *, const PetscBLASInt *, PetscBLASInt *, PetscReal *, PetscReal *, const PetscBLASInt *, const PetscBLASInt *, PetscBLASInt *, PetscBLASInt *, PetscReal *, const PetscBLASInt *, PetscBLASInt *, const PetscBLASInt *, PetscBLASInt *);
BLAS_EXTERN void PGXLAPACKstedc_(const char *, const PetscBLASInt *, PetscReal *, PetscReal *, PetscReal *, const PetscBLASInt *, PetscReal *, const PetscBLASInt *, PetscBLASInt *, const PetscBLASInt *, PetscBLASInt *);

const char *const PGXSytrdSymvs[]  = {"lower", "full", "PGXSytrdSymv", "PGX_SYTRD_SYMV_", NULL};
const char *const PGXSytrdPanels[] = {"fused", "launches", "PGXSytrdPanel", "PGX_SYTRD_PANEL_", NULL};

PetscLogEvent PGX_SytrdReduce, PGX_SytrdTridiag, PGX_SytrdBack, PGX_SytrdGeneralize;

struct _n_PGXSytrd {
  PGXDeviceType type  = PGX_DEVICE_HOST;
  PetscInt      b     = PGX_SYTRD_DEFAULT_BLOCK; /* panel width */
  PetscInt      bback = PGX_SYTRD_DEFAULT_BACK_BLOCK; /* reflectors per block of the cuda back-transformation */
  PetscInt      backchunks = PGX_SYTRD_DEFAULT_BACK_CHUNKS; /* column chunks of the cuda back-transformation's overlapped download */
  PetscInt      cholsplit  = PGX_SYTRD_DEFAULT_CHOL_SPLIT;  /* cuda: B's Cholesky splits orders above this in recursive halves */
  PGXSytrdSymv  symv  = PGX_SYTRD_SYMV_LOWER;
  PGXTridiagEigenMethod tev = PGX_TRIDIAG_EIGEN_AUTO;
  PetscInt      threads = 0; /* host threads of the divide and conquer (0: the default) */
  PGXStedcSecular secular = PGX_STEDC_SECULAR_AUTO; /* where the divide and conquer solves its secular equations */
  PetscBool     merged = PETSC_TRUE, rank2b = PETSC_TRUE, streams = PETSC_TRUE; /* cuda ablations */
  PGXSytrdPanel panel = PGX_SYTRD_PANEL_FUSED; /* cuda panel asked for */
  PetscInt      panelbpsm = 3;                 /* fused panel: at most this many blocks per multiprocessor */
  PetscInt      panelgrid = 0;                 /* blocks of the last cuda reduction's fused panel (0: the launches ran) */
  PetscInt      n     = -1;
  PetscBool     reduced = PETSC_FALSE; /* PGXSytrdReduce has run on the current matrix */
  PetscBool     hostA   = PETSC_FALSE; /* A (host) holds the reduced matrix (cuda: downloaded) */
  std::vector<PetscScalar> A, tau;     /* host matrix (n x n, ld n) and reflector scalars */
  std::vector<PetscReal>   d, e;       /* T */
  PetscBool                haveW  = PETSC_FALSE; /* w holds the eigenvalues of T */
  PetscBool                haveZT = PETSC_FALSE; /* ZT (or dZT) holds the eigenvectors of T */
  std::vector<PetscReal>   w, ZT;      /* eigenvalues of T (ascending); its eigenvectors (n x n, host) */
  PetscBool                generalized = PETSC_FALSE; /* A holds L^-1 A L^-H, and L (host L or device dL) is kept */
  std::vector<PetscScalar> L;          /* host backend: the Cholesky factor of B (n x n, ld n, lower) */
  PGXSytrdTimes times = {0, 0, 0, 0};
#if PGX_SYTRD_CUDA
  K::cuda::Work *work = nullptr; /* device state */
  PetscScalar   *dA   = nullptr; /* device matrix */
  PetscReal     *dZT  = nullptr; /* eigenvectors of T on the device (divide and conquer), n x n */
  PetscScalar   *dL   = nullptr; /* the Cholesky factor of B (generalized problems), n x n, ld n */
#endif
};

static PetscBool PGXSytrdEventsRegistered = PETSC_FALSE;

#if PGX_SYTRD_CUDA
/* The n x k columns of host Z (ld ldz) to or from device dZ (ld n): one copy when ldz is n (what EPSPGX passes),
   else one copy a column */
template <typename T>
static PetscErrorCode PGXSytrdCopyColumns(PetscBool todevice, PetscInt n, PetscInt k, T *Z, PetscInt ldz, T *dZ)
{
  const PetscBool whole = (PetscBool)(ldz == n);

  PetscFunctionBegin;
  for (PetscInt j = 0; j < k; j += whole ? k : 1) {
    const size_t count = (size_t)n * (whole ? k : 1);
    if (todevice) PetscCall(PGXDeviceCopyArrayToDevice(dZ + (size_t)j * n, Z + (size_t)j * ldz, count));
    else PetscCall(PGXDeviceCopyArrayToHost(Z + (size_t)j * ldz, dZ + (size_t)j * n, count));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode PGXSytrdFinalizeEvents(void)
{
  PetscFunctionBegin;
  PGXSytrdEventsRegistered = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGXSytrdRegisterEvents(void)
{
  PetscFunctionBegin;
  if (PGXSytrdEventsRegistered) PetscFunctionReturn(PETSC_SUCCESS);
  PGXSytrdEventsRegistered = PETSC_TRUE;
  PetscCall(PGXInitializePackage());
  PetscCall(PetscLogEventRegister("PGXSytrdReduce", PGX_CLASSID, &PGX_SytrdReduce));
  PetscCall(PetscLogEventRegister("PGXSytrdTridiag", PGX_CLASSID, &PGX_SytrdTridiag));
  PetscCall(PetscLogEventRegister("PGXSytrdBack", PGX_CLASSID, &PGX_SytrdBack));
  PetscCall(PetscLogEventRegister("PGXSytrdGenrlz", PGX_CLASSID, &PGX_SytrdGeneralize));
  PetscCall(PetscRegisterFinalize(PGXSytrdFinalizeEvents));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdCreate - Creates a dense Hermitian tridiagonal reduction (A = Q T Q^H) and eigensolver.

  Not Collective

  Input Parameter:
. type - `PGX_DEVICE_HOST` (reference kernels) or `PGX_DEVICE_CUDA` (resolved: not `PGX_DEVICE_AUTO`)

  Output Parameter:
. S - the object

  Level: developer

.seealso: `PGXSytrdSetMatrix()`, `PGXSytrdReduce()`, `PGXSytrdSolve()`, `EPSPGX`
@*/
PetscErrorCode PGXSytrdCreate(PGXDeviceType type, PGXSytrd *S)
{
  PetscFunctionBegin;
  PetscAssertPointer(S, 2);
  PetscCheck(type == PGX_DEVICE_HOST || type == PGX_DEVICE_CUDA, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PGXSytrdCreate needs a resolved device type (host or cuda), got %s", PGXDeviceTypes[type]);
#if !PGX_SYTRD_CUDA
  PetscCheck(type == PGX_DEVICE_HOST, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "The cuda backend of PGXSytrd is not available in this build: use -pgx_device host");
#endif
  PetscCall(PGXSytrdRegisterEvents());
  *S         = new _n_PGXSytrd;
  (*S)->type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGXSytrdFreeDevice(PGXSytrd S)
{
  PetscFunctionBegin;
#if PGX_SYTRD_CUDA
  if (S->work) PetscCall(K::cuda::destroy(&S->work));
  if (S->dA) PetscCall(PGXDeviceFree(&S->dA));
  if (S->dZT) PetscCall(PGXDeviceFree(&S->dZT));
  if (S->dL) PetscCall(PGXDeviceFree(&S->dL));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdDestroy - Destroys a `PGXSytrd`.

  Not Collective

  Input Parameter:
. S - the object (set to NULL)

  Level: developer

.seealso: `PGXSytrdCreate()`
@*/
PetscErrorCode PGXSytrdDestroy(PGXSytrd *S)
{
  PetscFunctionBegin;
  if (!S || !*S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXSytrdFreeDevice(*S));
  delete *S;
  *S = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetBlockSize - Sets the panel width b of the blocked reduction (and the block of the compact WY
  back-transformation of the reference backend; the cuda one uses `PGXSytrdSetBackBlockSize()`).

  Not Collective

  Input Parameters:
+ S - the object
- b - the panel width, at least 1 (default `PGX_SYTRD_DEFAULT_BLOCK`, 64)

  Level: developer

.seealso: `PGXSytrdReduce()`, `EPSPGXSetBlockSize()`
@*/
PetscErrorCode PGXSytrdSetBlockSize(PGXSytrd S, PetscInt b)
{
  PetscFunctionBegin;
  PetscCheck(b >= 1 && b <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Panel width %" PetscInt_FMT " must be in 1..1024", b);
  S->b = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetBackBlockSize - Sets the number of reflectors per compact WY block of the cuda back-transformation
  (Z <- Q Z): each block streams Z through the GPU once, so wider blocks than the panel pay.

  Not Collective

  Input Parameters:
+ S  - the object
- bb - reflectors per block, 1..1024 (`PETSC_DECIDE`: 256, the default)

  Level: developer

.seealso: `PGXSytrdSetBlockSize()`, `PGXSytrdApplyQ()`
@*/
PetscErrorCode PGXSytrdSetBackBlockSize(PGXSytrd S, PetscInt bb)
{
  PetscFunctionBegin;
  if (bb == PETSC_DECIDE || bb == PETSC_DEFAULT) bb = PGX_SYTRD_DEFAULT_BACK_BLOCK;
  PetscCheck(bb >= 1 && bb <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Back-transformation block %" PetscInt_FMT " must be in 1..1024", bb);
  S->bback = bb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetBackChunks - Sets the number of column chunks of the cuda back-transformation of `PGXSytrdSolve()`: Z = Q Z_T
  is computed chunk after chunk of Z's columns, each chunk downloaded while the next one is computed.

  Not Collective

  Input Parameters:
+ S       - the object
- nchunks - the number of chunks, at least 1 (1: no overlap; `PETSC_DECIDE`: 8, the default)

  Level: developer

.seealso: `PGXSytrdGetBackChunks()`, `PGXSytrdSetBackBlockSize()`, `PGXSytrdSolve()`
@*/
PetscErrorCode PGXSytrdSetBackChunks(PGXSytrd S, PetscInt nchunks)
{
  PetscFunctionBegin;
  if (nchunks == PETSC_DECIDE || nchunks == PETSC_DEFAULT) nchunks = PGX_SYTRD_DEFAULT_BACK_CHUNKS;
  PetscCheck(nchunks >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Back-transformation chunks %" PetscInt_FMT " must be at least 1", nchunks);
  S->backchunks = nchunks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetBackChunks - Gets the number of column chunks of the cuda back-transformation.

  Not Collective

  Input Parameter:
. S - the object

  Output Parameter:
. nchunks - the number of chunks

  Level: developer

.seealso: `PGXSytrdSetBackChunks()`
@*/
PetscErrorCode PGXSytrdGetBackChunks(PGXSytrd S, PetscInt *nchunks)
{
  PetscFunctionBegin;
  PetscAssertPointer(nchunks, 2);
  *nchunks = S->backchunks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetCholeskySplit - Sets the order above which the cuda backend's Cholesky factorization of B (generalized
  problems, `PGXSytrdSetMatrixB()`) splits the matrix in recursive halves.

  Not Collective

  Input Parameters:
+ S      - the object
- nsplit - the order, at least 1 (`PETSC_DECIDE`: 4096, the default)

  Notes:
  Above nsplit the factorization recurses on halves: the first half's factor, one triangular solve for the columns
  below it and one rank-k update of the rest, so that the largest cuBLAS calls are as wide as the matrix. Blocks of at
  most nsplit columns are factored right-looking by 64-column blocks (32 with complex scalars), whose few distinct
  cuBLAS kernels cost less to load in a fresh process. On an H200 in fresh processes (SLEPc's ex13) the recursion saved
  0.11 s at n = 16384 and 0.02 s at 8100, and cost 0.01-0.02 s at 1600 and 4096. The host backend ignores it.

  Level: developer

.seealso: `PGXSytrdGetCholeskySplit()`, `PGXSytrdSetMatrixB()`
@*/
PetscErrorCode PGXSytrdSetCholeskySplit(PGXSytrd S, PetscInt nsplit)
{
  PetscFunctionBegin;
  if (nsplit == PETSC_DECIDE || nsplit == PETSC_DEFAULT) nsplit = PGX_SYTRD_DEFAULT_CHOL_SPLIT;
  PetscCheck(nsplit >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Cholesky split order %" PetscInt_FMT " must be at least 1", nsplit);
  S->cholsplit = nsplit;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetCholeskySplit - Gets the order above which the cuda backend's Cholesky factorization of B splits the
  matrix in recursive halves.

  Not Collective

  Input Parameter:
. S - the object

  Output Parameter:
. nsplit - the order

  Level: developer

.seealso: `PGXSytrdSetCholeskySplit()`
@*/
PetscErrorCode PGXSytrdGetCholeskySplit(PGXSytrd S, PetscInt *nsplit)
{
  PetscFunctionBegin;
  PetscAssertPointer(nsplit, 2);
  *nsplit = S->cholsplit;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetBlockSize - Gets the panel width.

  Not Collective

  Input Parameter:
. S - the object

  Output Parameter:
. b - the panel width

  Level: developer

.seealso: `PGXSytrdSetBlockSize()`
@*/
PetscErrorCode PGXSytrdGetBlockSize(PGXSytrd S, PetscInt *b)
{
  PetscFunctionBegin;
  *b = S->b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetSymv - Chooses the symmetric product of the cuda panel step.

  Not Collective

  Input Parameters:
+ S    - the object
- symv - `PGX_SYTRD_SYMV_LOWER` (each stored element read once, used for its row and its column; default)
         or `PGX_SYTRD_SYMV_FULL` (one gemv over the full stored square, as Liu et al.)

  Level: developer

  Note:
  The reference backend ignores it.

.seealso: `EPSPGXSetSymv()`
@*/
PetscErrorCode PGXSytrdSetSymv(PGXSytrd S, PGXSytrdSymv symv)
{
  PetscFunctionBegin;
  S->symv = symv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetSymv - Gets the symmetric product of the cuda panel step.

  Not Collective

  Input Parameter:
. S - the object

  Output Parameter:
. symv - the product

  Level: developer

.seealso: `PGXSytrdSetSymv()`
@*/
PetscErrorCode PGXSytrdGetSymv(PGXSytrd S, PGXSytrdSymv *symv)
{
  PetscFunctionBegin;
  *symv = S->symv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetAblation - Switches the cuda backend's optimizations (for the benchmark's ablations).

  Not Collective

  Input Parameters:
+ S       - the object
. merged  - merge the panel's small gemvs into larger ones
. rank2b  - the trailing update as one rank-2b gemm on interleaved storage (else two rank-b gemms)
- streams - run the independent operations of a panel step on several streams

  Level: developer

.seealso: `PGXSytrdSetSymv()`
@*/
PetscErrorCode PGXSytrdSetAblation(PGXSytrd S, PetscBool merged, PetscBool rank2b, PetscBool streams)
{
  PetscFunctionBegin;
  S->merged  = merged;
  S->rank2b  = rank2b;
  S->streams = streams;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetPanel - Chooses the panel of the cuda reduction.

  Not Collective

  Input Parameters:
+ S     - the object
. panel - `PGX_SYTRD_PANEL_FUSED` (one cooperative kernel per panel; default) or `PGX_SYTRD_PANEL_LAUNCHES` (the
          paper's cuBLAS calls and small kernels per column)
- bpsm  - fused: at most this many blocks per multiprocessor (`PETSC_DECIDE`: 3, measured best on the H100)

  Level: developer

  Note:
  The fused panel needs the lower symmetric product and merged gemvs; otherwise, or when the device cannot keep
  its blocks resident, the launches run. `PGXSytrdGetPanel()` says which one ran.

.seealso: `PGXSytrdGetPanel()`, `PGXSytrdSetSymv()`, `PGXSytrdSetAblation()`
@*/
PetscErrorCode PGXSytrdSetPanel(PGXSytrd S, PGXSytrdPanel panel, PetscInt bpsm)
{
  PetscFunctionBegin;
  if (bpsm == PETSC_DECIDE || bpsm == PETSC_DEFAULT) bpsm = 3;
  PetscCheck(bpsm >= 1 && bpsm <= 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Blocks per multiprocessor of the fused panel must be in 1..32, got %" PetscInt_FMT, bpsm);
  PetscCheck(panel == PGX_SYTRD_PANEL_FUSED || panel == PGX_SYTRD_PANEL_LAUNCHES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown panel %d", (int)panel);
  S->panel     = panel;
  S->panelbpsm = bpsm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetPanel - The panel that the last cuda reduction ran (before any: the one asked for).

  Not Collective

  Input Parameter:
. S - the object

  Output Parameters:
+ panel  - `PGX_SYTRD_PANEL_FUSED` or `PGX_SYTRD_PANEL_LAUNCHES`
- blocks - blocks of the fused kernel's cooperative launch (0 for the launches or the host backend); may be NULL

  Level: developer

.seealso: `PGXSytrdSetPanel()`
@*/
PetscErrorCode PGXSytrdGetPanel(PGXSytrd S, PGXSytrdPanel *panel, PetscInt *blocks)
{
  PetscFunctionBegin;
  if (panel) *panel = S->reduced && S->type == PGX_DEVICE_CUDA ? (S->panelgrid > 0 ? PGX_SYTRD_PANEL_FUSED : PGX_SYTRD_PANEL_LAUNCHES) : S->panel;
  if (blocks) *blocks = S->reduced && S->type == PGX_DEVICE_CUDA ? S->panelgrid : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetDeviceType - The backend of the object.

  Not Collective

  Input Parameter:
. S - the object

  Output Parameter:
. type - `PGX_DEVICE_HOST` or `PGX_DEVICE_CUDA`

  Level: developer

.seealso: `PGXSytrdCreate()`
@*/
PetscErrorCode PGXSytrdGetDeviceType(PGXSytrd S, PGXDeviceType *type)
{
  PetscFunctionBegin;
  *type = S->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetMatrix - Gives the Hermitian matrix to reduce (copied; only its lower triangle is used).

  Not Collective

  Input Parameters:
+ S   - the object
. n   - the order
. A   - the matrix, column-major (host)
- lda - its leading dimension, at least max(1, n)

  Level: developer

.seealso: `PGXSytrdReduce()`
@*/
/* A new matrix of order n: the results of the last one dropped */
static PetscErrorCode PGXSytrdNewMatrix(PGXSytrd S, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative order %" PetscInt_FMT, n);
  if (S->n != n) PetscCall(PGXSytrdFreeDevice(S));
  S->n = n;
  S->tau.assign(n > 0 ? n - 1 : 0, 0);
  S->d.assign(n, 0);
  S->e.assign(n > 0 ? n - 1 : 0, 0);
  S->reduced = PETSC_FALSE;
  S->haveW   = PETSC_FALSE;
  S->haveZT  = PETSC_FALSE;
  S->ZT.clear();
  S->times       = {0, 0, 0, 0};
  S->hostA       = PETSC_TRUE;
  S->generalized = PETSC_FALSE;
  S->L.clear();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* S->A (n x n, ld n): the upper triangle from the lower one, A(i, j) = conj(A(j, i)) for i < j. By 64 x 64 tiles so
   that the strided reads stay in cache (a plain column loop misses on every read: 0.2-0.4 s at n = 8192) */
static void PGXSytrdMirrorLowerHost(PetscInt n, PetscScalar *A)
{
  const PetscInt T = 64;
  for (PetscInt j0 = 0; j0 < n; j0 += T)
    for (PetscInt i0 = 0; i0 <= j0; i0 += T) {
      const PetscInt j1 = PetscMin(n, j0 + T), i1 = PetscMin(j1, i0 + T);
      for (PetscInt i = i0; i < i1; i++)
        for (PetscInt j = PetscMax(j0, i + 1); j < j1; j++) A[i + (size_t)j * n] = PetscConj(A[j + (size_t)i * n]);
    }
}

PetscErrorCode PGXSytrdSetMatrix(PGXSytrd S, PetscInt n, const PetscScalar A[], PetscInt lda)
{
  PetscFunctionBegin;
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative order %" PetscInt_FMT, n);
  PetscCheck(lda >= PetscMax(1, n), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Leading dimension %" PetscInt_FMT " < order %" PetscInt_FMT, lda, n);
  PetscCall(PGXSytrdNewMatrix(S, n));
#if PGX_SYTRD_CUDA
  if (S->type == PGX_DEVICE_CUDA && n > 0) {
    /* A goes up as given (lda) and its lower triangle is mirrored on the device: no n^2 host pass; the host copy
       S->A is filled only if PGXSytrdGetReflectors() asks for the reduced matrix */
    if (!S->dA) PetscCall(PGXDeviceMallocArray((size_t)n * n, &S->dA));
    PetscCall(K::cuda::upload_symmetric(n, A, lda, S->dA));
    S->hostA = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  S->A.resize((size_t)n * n);
  /* the lower triangle, mirrored into the upper one (the full product of the cuda backend reads it) */
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = j; i < n; i++) S->A[i + (size_t)j * n] = A[i + (size_t)j * lda];
  PGXSytrdMirrorLowerHost(n, S->A.data());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetMatrixCSR - Gives the Hermitian matrix to reduce in compressed sparse rows (copied; only the entries of
  its lower triangle, column <= row, are used). The dense matrix is formed where the reduction runs: on the device
  for the cuda backend (the CSR arrays go up, not n^2 values), so a sparse operator never exists densely on the host.

  Not Collective

  Input Parameters:
+ S      - the object
. n      - the order
. rowptr - row starts, n + 1 of them (rowptr[0] = 0)
. colidx - column indices, rowptr[n] of them, each in [0, n)
- vals   - the values, rowptr[n] of them

  Note:
  A column that occurs twice in a row adds nothing: the last one wins. `EPSPGX` passes MATSEQAIJ operators this way
  (MatGetRowIJ() and MatSeqAIJGetArrayRead()).

  Level: developer

.seealso: `PGXSytrdSetMatrix()`, `PGXSytrdReduce()`
@*/
/* The checks of the CSR arrays of PGXSytrdSetMatrixCSR and PGXSytrdSetMatrixBCSR (fn: the caller, for the messages) */
static PetscErrorCode PGXSytrdCheckCSR(const char *fn, PetscInt n, const PetscInt rowptr[], const PetscInt colidx[])
{
  PetscFunctionBegin;
  PetscCheck(n == 0 || (rowptr && rowptr[0] == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: rowptr[0] must be 0", fn);
  for (PetscInt i = 0; i < n; i++) PetscCheck(rowptr[i + 1] >= rowptr[i], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: rowptr decreases at row %" PetscInt_FMT, fn, i);
  for (PetscInt k = 0; n && k < rowptr[n]; k++) PetscCheck(colidx[k] >= 0 && colidx[k] < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: column index %" PetscInt_FMT " at position %" PetscInt_FMT " is outside [0, %" PetscInt_FMT ")", fn, colidx[k], k, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M (n x n, ld n, host) <- the CSR matrix's entries with column <= row, the rest zero (the last of a repeated column wins) */
static void PGXSytrdLowerFromCSR(PetscInt n, const PetscInt rowptr[], const PetscInt colidx[], const PetscScalar vals[], std::vector<PetscScalar> &M)
{
  M.assign((size_t)n * n, 0);
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++)
      if (colidx[k] <= i) M[i + (size_t)colidx[k] * n] = vals[k];
}

PetscErrorCode PGXSytrdSetMatrixCSR(PGXSytrd S, PetscInt n, const PetscInt rowptr[], const PetscInt colidx[], const PetscScalar vals[])
{
  PetscFunctionBegin;
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative order %" PetscInt_FMT, n);
  PetscCall(PGXSytrdCheckCSR("PGXSytrdSetMatrixCSR", n, rowptr, colidx));
  PetscCall(PGXSytrdNewMatrix(S, n));
#if PGX_SYTRD_CUDA
  if (S->type == PGX_DEVICE_CUDA && n > 0) {
    if (!S->dA) PetscCall(PGXDeviceMallocArray((size_t)n * n, &S->dA));
    PetscCall(K::cuda::upload_symmetric_csr(n, rowptr, colidx, vals, S->dA));
    S->hostA = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PGXSytrdLowerFromCSR(n, rowptr, colidx, vals, S->A);
  PGXSytrdMirrorLowerHost(n, S->A.data());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The generalized problem's transformation, B already in S->L (host) or S->dL (device, full square): B = L L^H,
   A <- L^-1 A L^-H. B not positive definite is an error that names the leading minor; A is then left as it was
   and the object stays a standard problem. */
static PetscErrorCode PGXSytrdGeneralize(PGXSytrd S)
{
  PetscLogDouble t0, t1, n = (PetscLogDouble)S->n;
  PetscInt       info = 0;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_SytrdGeneralize, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  if (S->type == PGX_DEVICE_HOST) {
    info = K::reference::potrf(S->n, S->L.data(), PetscMax(1, S->n));
    if (!info) K::reference::hegst(S->n, S->A.data(), PetscMax(1, S->n), S->L.data(), PetscMax(1, S->n));
  }
#if PGX_SYTRD_CUDA
  else if (S->n > 0) {
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(K::cuda::generalize(S->n, S->dA, S->dL, S->cholsplit, &info));
    PetscCall(PetscLogGpuTimeEnd());
  }
#endif
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogEventEnd(PGX_SytrdGeneralize, 0, 0, 0, 0));
  if (info) {
    S->L.clear();
#if PGX_SYTRD_CUDA
    if (S->dL) PetscCall(PGXDeviceFree(&S->dL));
#endif
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MAT_CH_ZRPVT, "The generalized problem needs B Hermitian positive definite: its Cholesky factorization fails at the leading minor of order %" PetscInt_FMT " of %" PetscInt_FMT " (not positive, or not finite)", info, S->n);
  }
  S->generalized         = PETSC_TRUE;
  S->times.generalize    = t1 - t0;
  /* Cholesky n^3/3, the two triangular solves n^3 each (real flops; PETSc counts complex ones as 4) */
  if (S->type == PGX_DEVICE_HOST) PetscCall(PetscLogFlops(7.0 / 3.0 * n * n * n));
  else PetscCall(PetscLogGpuFlops(7.0 / 3.0 * n * n * n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGXSytrdCheckB(PGXSytrd S, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(S->n >= 0, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PGXSytrdSetMatrix() (A) must be called before PGXSytrdSetMatrixB()");
  PetscCheck(n == S->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "B of order %" PetscInt_FMT " does not match A of order %" PetscInt_FMT, n, S->n);
  PetscCheck(!S->reduced && !S->generalized, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PGXSytrdSetMatrixB() must follow PGXSytrdSetMatrix() directly: set A again first");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetMatrixB - Makes the problem the generalized one A x = lambda B x with B Hermitian positive definite:
  factors B = L L^H (Cholesky) and replaces the matrix set by `PGXSytrdSetMatrix()` with L^-1 A L^-H, which has the
  same eigenvalues. `PGXSytrdSolve()` then returns the eigenvectors of the pair, L^-H times those of L^-1 A L^-H:
  B-orthonormal (X^H B X = I), as LAPACK's xsygvd and SLEPc's EPSLAPACK return them.

  Not Collective

  Input Parameters:
+ S   - the object, with A set (and not reduced)
. n   - the order (that of A)
. B   - the matrix (host, column-major; only its lower triangle is read)
- ldb - its leading dimension

  Notes:
  The factorization and the transformation run in the backend (cuda: PGX's blocked Cholesky on cuBLAS, which does not load cuSOLVER, and two cuBLAS triangular
  solves on the device) and are timed as `PGXSytrdTimes`'s generalize. B that is not positive definite gives an
  error of type `PETSC_ERR_MAT_CH_ZRPVT` naming the leading minor where the factorization fails.

  Level: developer

.seealso: `PGXSytrdSetMatrixBCSR()`, `PGXSytrdSetMatrix()`, `PGXSytrdSolve()`, `EPSPGX`
@*/
PetscErrorCode PGXSytrdSetMatrixB(PGXSytrd S, PetscInt n, const PetscScalar B[], PetscInt ldb)
{
  PetscFunctionBegin;
  PetscCall(PGXSytrdCheckB(S, n));
  PetscCheck(ldb >= PetscMax(1, n), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Leading dimension %" PetscInt_FMT " < order %" PetscInt_FMT, ldb, n);
#if PGX_SYTRD_CUDA
  if (S->type == PGX_DEVICE_CUDA) {
    if (n > 0) {
      if (!S->dL) PetscCall(PGXDeviceMallocArray((size_t)n * n, &S->dL));
      PetscCall(K::cuda::upload_symmetric(n, B, ldb, S->dL));
    }
    PetscCall(PGXSytrdGeneralize(S));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  S->L.assign((size_t)n * n, 0);
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = j; i < n; i++) S->L[i + (size_t)j * n] = B[i + (size_t)j * ldb];
  PetscCall(PGXSytrdGeneralize(S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetMatrixBCSR - `PGXSytrdSetMatrixB()` with B in compressed sparse rows (only the entries with column <=
  row are used), formed densely where the factorization runs (on the device for the cuda backend).

  Not Collective

  Input Parameters:
+ S      - the object, with A set (and not reduced)
. n      - the order
. rowptr - row starts, n + 1 of them (rowptr[0] = 0)
. colidx - column indices, rowptr[n] of them, each in [0, n)
- vals   - the values

  Level: developer

.seealso: `PGXSytrdSetMatrixB()`, `PGXSytrdSetMatrixCSR()`
@*/
PetscErrorCode PGXSytrdSetMatrixBCSR(PGXSytrd S, PetscInt n, const PetscInt rowptr[], const PetscInt colidx[], const PetscScalar vals[])
{
  PetscFunctionBegin;
  PetscCall(PGXSytrdCheckB(S, n));
  PetscCall(PGXSytrdCheckCSR("PGXSytrdSetMatrixBCSR", n, rowptr, colidx));
#if PGX_SYTRD_CUDA
  if (S->type == PGX_DEVICE_CUDA) {
    if (n > 0) {
      if (!S->dL) PetscCall(PGXDeviceMallocArray((size_t)n * n, &S->dL));
      PetscCall(K::cuda::upload_symmetric_csr(n, rowptr, colidx, vals, S->dL));
    }
    PetscCall(PGXSytrdGeneralize(S));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PGXSytrdLowerFromCSR(n, rowptr, colidx, vals, S->L);
  PetscCall(PGXSytrdGeneralize(S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdIsGeneralized - Whether the object holds a generalized problem (`PGXSytrdSetMatrixB()` since the last
  `PGXSytrdSetMatrix()`).

  Not Collective

  Input Parameter:
. S - the object

  Output Parameter:
. flg - `PETSC_TRUE` for A x = lambda B x

  Level: developer

.seealso: `PGXSytrdSetMatrixB()`
@*/
PetscErrorCode PGXSytrdIsGeneralized(PGXSytrd S, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = S->generalized;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdReduce - Reduces the matrix to tridiagonal form, A = Q T Q^H (one-stage blocked Householder).

  Not Collective

  Input Parameter:
. S - the object, with a matrix set

  Level: developer

.seealso: `PGXSytrdGetTridiagonal()`, `PGXSytrdApplyQ()`, `PGXSytrdSolve()`
@*/
PetscErrorCode PGXSytrdReduce(PGXSytrd S)
{
  PetscLogDouble t0, t1, n = (PetscLogDouble)S->n;

  PetscFunctionBegin;
  PetscCheck(S->n >= 0, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PGXSytrdSetMatrix() must be called before PGXSytrdReduce()");
  PetscCheck(!S->reduced, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The matrix is already reduced; set it again with PGXSytrdSetMatrix()");
  PetscCall(PetscLogEventBegin(PGX_SytrdReduce, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  if (S->type == PGX_DEVICE_HOST) {
    std::vector<PetscScalar> W((size_t)S->n * S->b + 1);
    K::reference::reduce(S->n, S->b, S->A.data(), PetscMax(1, S->n), S->d.data(), S->e.data(), S->tau.data(), W.data());
  }
#if PGX_SYTRD_CUDA
  else if (S->n > 0) {
    K::cuda::Options o;
    o.b       = (int)S->b;
    o.symv    = S->symv == PGX_SYTRD_SYMV_FULL ? K::cuda::SYMV_FULL : K::cuda::SYMV_LOWER;
    o.merged  = S->merged ? 1 : 0;
    o.rank2b  = S->rank2b ? 1 : 0;
    o.streams = S->streams ? 1 : 0;
    o.fused   = S->panel == PGX_SYTRD_PANEL_FUSED ? (int)S->panelbpsm : 0;
    o.bback   = (int)S->bback;
    if (S->work) PetscCall(K::cuda::destroy(&S->work));
    PetscCall(K::cuda::create(S->n, o, &S->work));
    {
      int g;
      PetscCall(K::cuda::fused_grid(S->work, &g));
      S->panelgrid = g;
      PetscCall(PetscInfo(NULL, "Tridiagonal reduction, n = %" PetscInt_FMT ": %s panel%s\n", S->n, PGXSytrdPanels[g > 0 ? PGX_SYTRD_PANEL_FUSED : PGX_SYTRD_PANEL_LAUNCHES], g > 0 ? " (one cooperative launch per panel)" : ""));
    }
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(K::cuda::reduce(S->work, S->dA, S->d.data(), S->e.data(), S->tau.data()));
    PetscCall(PetscLogGpuTimeEnd());
  }
#endif
  PetscCall(PetscTime(&t1));
  S->times.reduce = t1 - t0;
  S->reduced      = PETSC_TRUE;
  if (S->type == PGX_DEVICE_HOST) PetscCall(PetscLogFlops(4.0 / 3.0 * n * n * n));
  else PetscCall(PetscLogGpuFlops(4.0 / 3.0 * n * n * n));
  PetscCall(PetscLogEventEnd(PGX_SytrdReduce, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGXSytrdCheckReduced(PGXSytrd S)
{
  PetscFunctionBegin;
  PetscCheck(S->reduced, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PGXSytrdReduce() must be called first");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetTridiagonal - The tridiagonal T of A = Q T Q^H (host arrays owned by the object).

  Not Collective

  Input Parameter:
. S - the reduced object

  Output Parameters:
+ d - the diagonal (n)
- e - the subdiagonal (n - 1)

  Level: developer

.seealso: `PGXSytrdReduce()`
@*/
PetscErrorCode PGXSytrdGetTridiagonal(PGXSytrd S, const PetscReal *d[], const PetscReal *e[])
{
  PetscFunctionBegin;
  PetscCall(PGXSytrdCheckReduced(S));
  if (d) *d = S->d.data();
  if (e) *e = S->e.data();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetReflectors - The reduced matrix in LAPACK's dsytrd/zhetrd layout (lower): d on the diagonal, e on
  the subdiagonal, v_i(i+2:n-1) below it, and the reflector scalars tau (host arrays owned by the object).

  Not Collective

  Input Parameter:
. S - the reduced object

  Output Parameters:
+ A   - the matrix (the strict upper triangle is unspecified)
. lda - its leading dimension
- tau - the n - 1 scalars

  Level: developer

.seealso: `PGXSytrdReduce()`, `PGXSytrdApplyQ()`
@*/
PetscErrorCode PGXSytrdGetReflectors(PGXSytrd S, const PetscScalar *A[], PetscInt *lda, const PetscScalar *tau[])
{
  PetscFunctionBegin;
  PetscCall(PGXSytrdCheckReduced(S));
#if PGX_SYTRD_CUDA
  if (!S->hostA && S->n > 0) {
    S->A.resize((size_t)S->n * S->n);
    PetscCall(PGXDeviceCopyArrayToHost(S->A.data(), S->dA, (size_t)S->n * S->n));
    S->hostA = PETSC_TRUE;
  }
#endif
  if (A) *A = S->A.data();
  if (lda) *lda = PetscMax(1, S->n);
  if (tau) *tau = S->tau.data();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdApplyQ - Z <- Q Z or Q^H Z for a block of k vectors, blocked as compact WY.

  Not Collective

  Input Parameters:
+ S     - the reduced object
. trans - `PETSC_FALSE`: Q Z; `PETSC_TRUE`: Q^H Z
. k     - the number of vectors
- ldz   - the leading dimension of Z, at least max(1, n)

  Input/Output Parameter:
. Z - the n x k vectors (host)

  Level: developer

.seealso: `PGXSytrdFormQ()`, `PGXSytrdReduce()`
@*/
PetscErrorCode PGXSytrdApplyQ(PGXSytrd S, PetscBool trans, PetscInt k, PetscScalar Z[], PetscInt ldz)
{
  PetscLogDouble n = (PetscLogDouble)S->n;

  PetscFunctionBegin;
  PetscCall(PGXSytrdCheckReduced(S));
  PetscCheck(k >= 0 && ldz >= PetscMax(1, S->n), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Bad k %" PetscInt_FMT " or ldz %" PetscInt_FMT, k, ldz);
  if (S->n <= 1 || k == 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (S->type == PGX_DEVICE_HOST) {
    std::vector<PetscScalar> work((size_t)S->b * S->b + (size_t)S->b * k);
    K::reference::apply_q(S->n, S->b, trans ? 1 : 0, S->A.data(), S->n, S->tau.data(), k, Z, ldz, work.data());
    PetscCall(PetscLogFlops(2.0 * n * n * k));
  }
#if PGX_SYTRD_CUDA
  else {
    PetscScalar *dZ = NULL;
    PetscCall(PGXDeviceMallocArray((size_t)S->n * k, &dZ));
    PetscCall(PGXSytrdCopyColumns(PETSC_TRUE, S->n, k, Z, ldz, dZ));
    PetscCall(PetscLogGpuTimeBegin());
    PetscErrorCode ierr = K::cuda::apply_q(S->work, trans ? 1 : 0, S->dA, k, dZ);
    PetscCall(PetscLogGpuTimeEnd());
    if (ierr) PetscCall(PGXDeviceFree(&dZ));
    PetscCall(ierr);
    PetscCall(PGXSytrdCopyColumns(PETSC_FALSE, S->n, k, Z, ldz, dZ));
    PetscCall(PGXDeviceFree(&dZ));
    PetscCall(PetscLogGpuFlops(2.0 * n * n * k));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdFormQ - Forms Q of A = Q T Q^H explicitly.

  Not Collective

  Input Parameters:
+ S   - the reduced object
- ldq - the leading dimension of Q

  Output Parameter:
. Q - the n x n matrix (host)

  Level: developer

.seealso: `PGXSytrdApplyQ()`
@*/
PetscErrorCode PGXSytrdFormQ(PGXSytrd S, PetscScalar Q[], PetscInt ldq)
{
  PetscFunctionBegin;
  PetscCall(PGXSytrdCheckReduced(S));
  for (PetscInt j = 0; j < S->n; j++)
    for (PetscInt i = 0; i < S->n; i++) Q[i + (size_t)j * ldq] = i == j ? 1.0 : 0.0;
  PetscCall(PGXSytrdApplyQ(S, PETSC_FALSE, S->n, Q, ldq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagonalEigen - Eigenvalues and optionally eigenvectors of a real symmetric tridiagonal matrix
  (LAPACK dstedc, divide and conquer; eigenvalues only: its root-free QR path).

  Not Collective

  Input Parameters:
+ n   - the order
. d   - the diagonal (n); on output the eigenvalues in ascending order
. e   - the subdiagonal (n - 1); destroyed
- ldz - the leading dimension of Z

  Output Parameter:
. Z - the n x n orthonormal eigenvectors (column j for d[j]), or NULL for eigenvalues only

  Level: developer

.seealso: `PGXSytrdSolve()`
@*/
PetscErrorCode PGXTridiagonalEigen(PetscInt n, PetscReal d[], PetscReal e[], PetscReal Z[], PetscInt ldz)
{
  PetscBLASInt bn, bldz, lwork, liwork, info = 0;
  PetscReal    e0 = 0, wq = 0;
  PetscBLASInt iq = 0, query = -1;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(Z ? ldz : 1, &bldz));
  const char *compz = Z ? "I" : "N";
  if (!e || n == 1) e = &e0;
  /* workspace query */
  PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
  PGXLAPACKstedc_(compz, &bn, d, e, Z ? Z : &e0, &bldz, &wq, &query, &iq, &query, &info);
  PetscCall(PetscFPTrapPop());
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dstedc workspace query failed: info %d", (int)info);
  lwork  = PetscMax((PetscBLASInt)wq, 1);
  liwork = PetscMax(iq, 1);
  std::vector<PetscReal>    work(lwork);
  std::vector<PetscBLASInt> iwork(liwork);
  PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
  PGXLAPACKstedc_(compz, &bn, d, e, Z ? Z : &e0, &bldz, work.data(), &lwork, iwork.data(), &liwork, &info);
  PetscCall(PetscFPTrapPop());
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dstedc failed: info %d (%s)", (int)info, info < 0 ? "bad argument" : "an eigenvalue did not converge");
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *const PGXTridiagEigenMethods[] = {"auto", "stedc", "stemr", "dc", "PGXTridiagEigenMethod", "PGX_TRIDIAG_EIGEN_", NULL};

/*@C
  PGXTridiagEigenMethodResolve - The tridiagonal eigensolver that `PGX_TRIDIAG_EIGEN_AUTO` stands for.

  Not Collective

  Input Parameters:
+ method  - the method asked for (returned unchanged unless `PGX_TRIDIAG_EIGEN_AUTO`)
. type    - the backend, `PGX_DEVICE_HOST` or `PGX_DEVICE_CUDA`
- vectors - whether eigenvectors are computed

  Output Parameter:
. used - the method: without vectors `PGX_TRIDIAG_EIGEN_STEDC` (its O(n^2) QR path); with vectors
         `PGX_TRIDIAG_EIGEN_DC` on the cuda backend (gemms on the GPU) and `PGX_TRIDIAG_EIGEN_STEMR` on the host

  Level: developer

.seealso: `PGXSytrdSetTridiagonalEigenMethod()`
@*/
PetscErrorCode PGXTridiagEigenMethodResolve(PGXTridiagEigenMethod method, PGXDeviceType type, PetscBool vectors, PGXTridiagEigenMethod *used)
{
  PetscFunctionBegin;
  if (method != PGX_TRIDIAG_EIGEN_AUTO) *used = method;
  else if (!vectors) *used = PGX_TRIDIAG_EIGEN_STEDC;
  else *used = type == PGX_DEVICE_CUDA ? PGX_TRIDIAG_EIGEN_DC : PGX_TRIDIAG_EIGEN_STEMR; /* THE default with vectors */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagonalEigenDC - Eigenvalues and eigenvectors of a real symmetric tridiagonal matrix by PGX's divide
  and conquer: the host solves the leaves (dsteqr) and the secular equations of the merges, the backend does
  the eigenvector gemms (host BLAS, or cuBLAS with the eigenvectors kept on the device until the end).

  Not Collective

  Input Parameters:
+ type    - `PGX_DEVICE_HOST` (reference kernels) or `PGX_DEVICE_CUDA`
. leaf    - the largest subproblem solved directly (<= 0: `PGX_STEDC_DEFAULT_LEAF`)
. threads - host threads for the leaves, the secular equations, the eigenvectors of the merges (and on the host
            backend the gemms); <= 0: the cores available, at most `PGX_STEDC_MAX_THREADS`. The results are
            bitwise the same for any number.
. n     - the order
. d     - the diagonal (n); on output the eigenvalues in ascending order
. e     - the subdiagonal (n - 1); not changed
- ldz   - the leading dimension of Z, at least max(1, n)

  Output Parameters:
+ Z     - the n x n orthonormal eigenvectors (host; column j for d[j])
- stats - merges, deflation, gemm flops and host seconds (or NULL)

  Level: developer

.seealso: `PGXTridiagonalEigenMethod()`, `PGXSytrdSolve()`
@*/
PetscErrorCode PGXTridiagonalEigenDC(PGXDeviceType type, PetscInt leaf, PetscInt threads, PetscInt n, PetscReal d[], PetscReal e[], PetscReal Z[], PetscInt ldz, PGXStedcStats *stats)
{
  return PGXTridiagonalEigenDCSecular(type, PGX_STEDC_SECULAR_AUTO, leaf, threads, n, d, e, Z, ldz, stats);
}

/*@C
  PGXTridiagonalEigenDCSecular - `PGXTridiagonalEigenDC()` with the place of the merges' secular equations chosen:
  `PGX_STEDC_SECULAR_HOST` (LAPACK dlaed4 on the host threads, S uploaded for the gemms),
  `PGX_STEDC_SECULAR_DEVICE` (PGX's root finder, z-hat and S in the backend: on cuda in device memory, on the host
  its reference kernels) or `PGX_STEDC_SECULAR_AUTO` (device on cuda, host on the host; what
  `PGXTridiagonalEigenDC()` uses).

  Not Collective

  Level: developer

.seealso: `PGXTridiagonalEigenDC()`, `PGXSytrdSetStedcSecular()`
@*/
PetscErrorCode PGXTridiagonalEigenDCSecular(PGXDeviceType type, PGXStedcSecular secular, PetscInt leaf, PetscInt threads, PetscInt n, PetscReal d[], PetscReal e[], PetscReal Z[], PetscInt ldz, PGXStedcStats *stats)
{
  PetscFunctionBegin;
  PetscCheck(n >= 0 && ldz >= PetscMax(1, n), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Bad order %" PetscInt_FMT " or leading dimension %" PetscInt_FMT, n, ldz);
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (type == PGX_DEVICE_HOST) {
    std::vector<PetscReal> Zt(ldz == n ? 0 : (size_t)n * n);
    PetscReal             *Zr = ldz == n ? Z : Zt.data();
    PetscCall(PGXStedcRun(PGX_DEVICE_HOST, secular, leaf, threads, n, d, e, Zr, stats));
    if (ldz != n)
      for (PetscInt j = 0; j < n; j++)
        for (PetscInt i = 0; i < n; i++) Z[i + (size_t)j * ldz] = Zt[i + (size_t)j * n];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if PGX_SYTRD_CUDA
  PetscCheck(type == PGX_DEVICE_CUDA, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PGXTridiagonalEigenDC needs a resolved device type (host or cuda)");
  {
    PetscReal     *dZ = NULL;
    PetscErrorCode ierr;
    PetscCall(PGXDeviceMallocArray((size_t)n * n, &dZ));
    ierr = PGXStedcRun(PGX_DEVICE_CUDA, secular, leaf, threads, n, d, e, dZ, stats);
    if (!ierr) ierr = PGXSytrdCopyColumns(PETSC_FALSE, n, n, Z, ldz, dZ);
    PetscCall(PGXDeviceFree(&dZ));
    PetscCall(ierr);
  }
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of the divide and conquer eigensolver is not available in this build: use -pgx_device host");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dstemr (MRRR), all eigenpairs; info > 0 (MRRR could not guarantee accuracy) is returned to the caller */
static PetscErrorCode TridiagonalEigenMRRR(PetscInt n, PetscReal d[], const PetscReal e[], PetscReal Z[], PetscInt ldz, PetscBLASInt *info)
{
  PetscBLASInt bn, bldz, m = 0, lwork, liwork, one = 1, iq = 0, query = -1, tryrac = 1, nzc;
  PetscReal    zero = 0, wq = 0;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(ldz, &bldz));
  nzc = bn;
  std::vector<PetscReal>    ee(n, 0.0), w(n);
  std::vector<PetscBLASInt> isuppz(2 * (size_t)n);
  for (PetscInt i = 0; i < n - 1; i++) ee[i] = e[i];
  *info = 0;
  PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
  PGXLAPACKstemr_("V", "A", &bn, d, ee.data(), &zero, &zero, &one, &one, &m, w.data(), Z, &bldz, &nzc, isuppz.data(), &tryrac, &wq, &query, &iq, &query, info);
  PetscCall(PetscFPTrapPop());
  PetscCheck(*info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dstemr workspace query failed: info %d", (int)*info);
  lwork  = PetscMax((PetscBLASInt)wq, 1);
  liwork = PetscMax(iq, 1);
  std::vector<PetscReal>    work(lwork);
  std::vector<PetscBLASInt> iwork(liwork);
  tryrac = 1;
  PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
  PGXLAPACKstemr_("V", "A", &bn, d, ee.data(), &zero, &zero, &one, &one, &m, w.data(), Z, &bldz, &nzc, isuppz.data(), &tryrac, work.data(), &lwork, iwork.data(), &liwork, info);
  PetscCall(PetscFPTrapPop());
  PetscCheck(*info >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dstemr: bad argument %d", (int)-*info);
  if (!*info) {
    PetscCheck(m == bn, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dstemr returned %d of %d eigenpairs", (int)m, (int)bn);
    for (PetscInt i = 0; i < n; i++) d[i] = w[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagonalEigenMethod - `PGXTridiagonalEigen()` with a chosen routine: `PGX_TRIDIAG_EIGEN_STEDC`
  (LAPACK's divide and conquer), `PGX_TRIDIAG_EIGEN_STEMR` (MRRR; O(n^2) also with vectors),
  `PGX_TRIDIAG_EIGEN_DC` (PGX's divide and conquer with the reference kernels, `PGXTridiagonalEigenDC()`) or
  `PGX_TRIDIAG_EIGEN_AUTO` (dstemr with vectors, dstedc without). When dstemr cannot guarantee its accuracy
  (info > 0) dstedc is used. Without vectors it is always dstedc.

  Not Collective

  Input Parameters:
+ method - the routine
. n      - the order
. d      - the diagonal (n); on output the eigenvalues in ascending order
. e      - the subdiagonal (n - 1); destroyed
- ldz    - the leading dimension of Z

  Output Parameter:
. Z - the n x n orthonormal eigenvectors (column j for d[j]), or NULL for eigenvalues only

  Level: developer

.seealso: `PGXTridiagonalEigen()`, `PGXSytrdSetTridiagonalEigenMethod()`
@*/
PetscErrorCode PGXTridiagonalEigenMethod(PGXTridiagEigenMethod method, PetscInt n, PetscReal d[], PetscReal e[], PetscReal Z[], PetscInt ldz)
{
  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (Z && method == PGX_TRIDIAG_EIGEN_DC) {
    PetscCall(PGXTridiagonalEigenDC(PGX_DEVICE_HOST, 0, 0, n, d, e, Z, ldz, NULL));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (Z && n > 1 && method != PGX_TRIDIAG_EIGEN_STEDC) {
    std::vector<PetscReal> d0(d, d + n);
    PetscBLASInt           info;
    PetscCall(TridiagonalEigenMRRR(n, d, e, Z, ldz, &info));
    if (!info) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PetscInfo(NULL, "LAPACK dstemr could not guarantee accuracy (info %d); using dstedc\n", (int)info));
    for (PetscInt i = 0; i < n; i++) d[i] = d0[i];
  }
  PetscCall(PGXTridiagonalEigen(n, d, e, Z, ldz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetTridiagonalEigenMethod - Sets the host tridiagonal eigensolver of `PGXSytrdSolve()`.

  Not Collective

  Input Parameters:
+ S      - the object
- method - `PGX_TRIDIAG_EIGEN_AUTO` (default: with vectors the divide and conquer on the cuda backend, dstemr on the
           host; dstedc without, see `PGXTridiagEigenMethodResolve()`), `PGX_TRIDIAG_EIGEN_STEDC`,
           `PGX_TRIDIAG_EIGEN_STEMR` or `PGX_TRIDIAG_EIGEN_DC`

  Level: developer

.seealso: `PGXTridiagonalEigenMethod()`, `PGXSytrdSolve()`
@*/
PetscErrorCode PGXSytrdSetTridiagonalEigenMethod(PGXSytrd S, PGXTridiagEigenMethod method)
{
  PetscFunctionBegin;
  S->tev = method;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetTridiagonalEigenMethod - Gets the host tridiagonal eigensolver of `PGXSytrdSolve()`.

  Not Collective

  Input Parameter:
. S - the object

  Output Parameter:
. method - the method

  Level: developer

.seealso: `PGXSytrdSetTridiagonalEigenMethod()`
@*/
PetscErrorCode PGXSytrdGetTridiagonalEigenMethod(PGXSytrd S, PGXTridiagEigenMethod *method)
{
  PetscFunctionBegin;
  *method = S->tev;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetThreads - Sets the number of host threads of the divide and conquer tridiagonal eigensolver
  (`PGX_TRIDIAG_EIGEN_DC`) of `PGXSytrdSolve()`.

  Not Collective

  Input Parameters:
+ S       - the object
- threads - host threads, the calling thread included (1: serial; 0 or `PETSC_DEFAULT`: the cores available
            to the process, at most `PGX_STEDC_MAX_THREADS`)

  Note:
  The eigenvalues and eigenvectors are bitwise the same for any number of threads.

  Level: developer

.seealso: `PGXSytrdGetThreads()`, `PGXTridiagonalEigenDC()`, `PGXSytrdSetTridiagonalEigenMethod()`
@*/
PetscErrorCode PGXSytrdSetThreads(PGXSytrd S, PetscInt threads)
{
  PetscFunctionBegin;
  if (threads == PETSC_DEFAULT || threads == PETSC_DECIDE) threads = 0;
  PetscCheck(threads >= 0 && threads <= PGX_STEDC_MAX_THREADS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The number of host threads must be in 1..%d (0: the default), got %" PetscInt_FMT, PGX_STEDC_MAX_THREADS, threads);
  S->threads = threads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetThreads - Gets the number of host threads of the divide and conquer set by `PGXSytrdSetThreads()`.

  Not Collective

  Input Parameter:
. S - the object

  Output Parameter:
. threads - the number (0: the default, the cores available, at most `PGX_STEDC_MAX_THREADS`)

  Level: developer

.seealso: `PGXSytrdSetThreads()`
@*/
PetscErrorCode PGXSytrdGetThreads(PGXSytrd S, PetscInt *threads)
{
  PetscFunctionBegin;
  *threads = S->threads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSetStedcSecular - Sets where the divide and conquer (`PGX_TRIDIAG_EIGEN_DC`) of `PGXSytrdSolve()` solves
  the secular equations of its merges and forms their eigenvectors: `PGX_STEDC_SECULAR_HOST` (LAPACK dlaed4 on
  the host threads), `PGX_STEDC_SECULAR_DEVICE` (PGX's root finder in the backend) or `PGX_STEDC_SECULAR_AUTO`
  (device on cuda, host on the host; the default).

  Not Collective

  Level: developer

.seealso: `PGXSytrdSetThreads()`, `PGXTridiagonalEigenDCSecular()`
@*/
PetscErrorCode PGXSytrdSetStedcSecular(PGXSytrd S, PGXStedcSecular secular)
{
  PetscFunctionBegin;
  S->secular = secular;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSolveTridiagonal - Solves the tridiagonal T of A = Q T Q^H: its eigenvalues and, with vectors, its
  eigenvectors Z_T, kept in the object for `PGXSytrdSolve()` (on the device for the divide and conquer of the cuda
  backend). Reduces first if needed; does nothing when what is asked for is already there.

  Not Collective

  Input Parameters:
+ S       - the object, with a matrix set
- vectors - whether the eigenvectors of T are wanted

  Note:
  Eigenvalues only are dstedc's O(n^2) QR path. Asking for the vectors after an eigenvalues-only solve solves T
  again (the eigenvalues with them): whoever knows that vectors will be wanted asks for them at once.

  Level: developer

.seealso: `PGXSytrdSolve()`, `PGXSytrdSetTridiagonalEigenMethod()`
@*/
PetscErrorCode PGXSytrdSolveTridiagonal(PGXSytrd S, PetscBool vectors)
{
  PetscLogDouble        t0, t1;
  PetscInt              n = S->n;
  PGXTridiagEigenMethod method;

  PetscFunctionBegin;
  if (!S->reduced) PetscCall(PGXSytrdReduce(S));
  if (S->haveW && (!vectors || S->haveZT)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXTridiagEigenMethodResolve(S->tev, S->type, vectors, &method));
  PetscCall(PetscLogEventBegin(PGX_SytrdTridiag, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  std::vector<PetscReal> e(S->e);
  S->w.assign(S->d.begin(), S->d.end());
  S->haveW = PETSC_FALSE;
  if (!vectors) PetscCall(PGXTridiagonalEigenMethod(method, n, S->w.data(), e.data(), NULL, n));
  else if (method == PGX_TRIDIAG_EIGEN_DC && S->type == PGX_DEVICE_CUDA) {
#if PGX_SYTRD_CUDA
    PGXStedcStats st;
    if (!S->dZT && n > 0) PetscCall(PGXDeviceMallocArray((size_t)n * n, &S->dZT));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(PGXStedcRun(PGX_DEVICE_CUDA, S->secular, 0, S->threads, n, S->w.data(), e.data(), S->dZT, &st));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(st.flops));
#endif
  } else {
    S->ZT.resize((size_t)n * n);
    if (method == PGX_TRIDIAG_EIGEN_DC) PetscCall(PGXTridiagonalEigenDCSecular(PGX_DEVICE_HOST, S->secular, 0, S->threads, n, S->w.data(), e.data(), S->ZT.data(), n, NULL));
    else PetscCall(PGXTridiagonalEigenMethod(method, n, S->w.data(), e.data(), S->ZT.data(), n));
  }
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogEventEnd(PGX_SytrdTridiag, 0, 0, 0, 0));
  S->times.tridiag += t1 - t0; /* every solve of T of this matrix counts */
  S->haveW  = PETSC_TRUE;
  S->haveZT = vectors;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdSolve - All eigenvalues, and optionally eigenvectors, of the Hermitian matrix: reduction (if not
  done yet), the tridiagonal eigensolve (`PGXSytrdSolveTridiagonal()`, whose kept solution is reused;
  `PGXSytrdSetTridiagonalEigenMethod()`), back-transformation Z = Q Z_T (compact WY, in the backend).

  Not Collective

  Input Parameters:
+ S   - the object, with a matrix set
- ldz - the leading dimension of Z

  Output Parameters:
+ w - the n eigenvalues in ascending order
- Z - the n x n eigenvectors (host), or NULL for eigenvalues only (no back-transformation is done)

  Note:
  The eigenvectors of T are used up by the back-transformation: a second call with Z solves T again.

  Level: developer

.seealso: `PGXSytrdReduce()`, `PGXSytrdSolveTridiagonal()`, `PGXSytrdGetTimes()`
@*/
PetscErrorCode PGXSytrdSolve(PGXSytrd S, PetscReal w[], PetscScalar Z[], PetscInt ldz)
{
  PetscLogDouble t1, t2;
  PetscInt       n = S->n;

  PetscFunctionBegin;
  PetscCheck(S->n >= 0, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PGXSytrdSetMatrix() must be called before PGXSytrdSolve()");
  PetscCheck(!Z || ldz >= PetscMax(1, n), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Leading dimension %" PetscInt_FMT " < order %" PetscInt_FMT, ldz, n);
  PetscCall(PGXSytrdSolveTridiagonal(S, Z ? PETSC_TRUE : PETSC_FALSE));
  for (PetscInt i = 0; i < n; i++) w[i] = S->w[i];
  if (!Z) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(PGX_SytrdBack, 0, 0, 0, 0));
  PetscCall(PetscTime(&t1));
#if PGX_SYTRD_CUDA
  if (S->dZT && n > 0) { /* the divide and conquer left Z_T on the device: Z = Q Z_T there, downloaded by column chunks overlapping the computation */
    PetscErrorCode ierr;
    PetscInt       nchunks = S->backchunks; /* chunks of Z's columns: each downloaded while the next is computed (1: no overlap) */
    PetscScalar   *dZ      = NULL;
  #if defined(PETSC_USE_COMPLEX)
    /* Z_T is real: the complex Z = Q Z_T starts from it as a complex array (n^2 complex beside the n^2 real ones) */
    PetscCall(PGXDeviceMallocArray((size_t)n * n, &dZ));
    ierr = K::cuda::real_to_scalar((size_t)n * n, S->dZT, dZ);
    if (ierr) PetscCall(PGXDeviceFree(&dZ));
    PetscCall(ierr);
    PetscCall(PGXDeviceFree(&S->dZT));
  #else
    dZ = S->dZT;
  #endif
    PetscCall(PetscLogGpuTimeBegin());
    ierr = K::cuda::apply_q_download(S->work, S->dA, n, dZ, Z, ldz, nchunks, S->generalized ? S->dL : NULL); /* L^-H Q Z_T for a generalized problem */
    PetscCall(PetscLogGpuTimeEnd());
  #if defined(PETSC_USE_COMPLEX)
    PetscCall(PGXDeviceFree(&dZ));
  #endif
    PetscCall(PGXDeviceFree(&S->dZT));
    PetscCall(ierr);
    PetscCall(PetscLogGpuFlops((PetscDefined(USE_COMPLEX) ? 8.0 : 2.0) * n * n * n * (S->generalized ? 1.5 : 1.0)));
  } else
#endif
  {
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) Z[i + (size_t)j * ldz] = S->ZT[i + (size_t)j * n];
    S->ZT.clear();
    S->ZT.shrink_to_fit();
    if (!S->generalized) PetscCall(PGXSytrdApplyQ(S, PETSC_FALSE, n, Z, ldz));
#if PGX_SYTRD_CUDA
    else if (S->type == PGX_DEVICE_CUDA && n > 0) { /* T solved on the host (dstemr, dstedc): Z_T up, Z = L^-H Q Z_T on the device, down */
      PetscScalar   *dZ = NULL;
      PetscErrorCode ierr;
      PetscCall(PGXDeviceMallocArray((size_t)n * n, &dZ));
      PetscCall(PGXSytrdCopyColumns(PETSC_TRUE, n, n, Z, ldz, dZ));
      PetscCall(PetscLogGpuTimeBegin());
      ierr = K::cuda::apply_q_download(S->work, S->dA, n, dZ, Z, ldz, 1, S->dL);
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(PGXDeviceFree(&dZ));
      PetscCall(ierr);
      PetscCall(PetscLogGpuFlops((PetscDefined(USE_COMPLEX) ? 8.0 : 2.0) * n * n * n * 1.5));
    }
#endif
    else if (n > 0) {
      PetscCall(PGXSytrdApplyQ(S, PETSC_FALSE, n, Z, ldz));
      K::reference::trsm_lh(n, n, S->L.data(), PetscMax(1, n), Z, ldz);
      PetscCall(PetscLogFlops((PetscDefined(USE_COMPLEX) ? 4.0 : 1.0) * n * n * n));
    }
  }
  S->haveZT = PETSC_FALSE;
  PetscCall(PetscTime(&t2));
  S->times.back = t2 - t1;
  PetscCall(PetscLogEventEnd(PGX_SytrdBack, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXSytrdGetTimes - Seconds taken by the last reduction, tridiagonal eigensolve and back-transformation.

  Not Collective

  Input Parameter:
. S - the object

  Output Parameter:
. t - the times

  Level: developer

.seealso: `PGXSytrdSolve()`
@*/
PetscErrorCode PGXSytrdGetTimes(PGXSytrd S, PGXSytrdTimes *t)
{
  PetscFunctionBegin;
  *t = S->times;
  PetscFunctionReturn(PETSC_SUCCESS);
}
