/* Device selection (host side). The CUDA side lives in src/sys/cuda/device.cu; without CUDA the
   device-memory functions below raise a clear error instead. */
#include <pgx/private/pgximpl.h>
#include <pgx/private/pgxcopy.h>
#include <new>
#include <thread>

#if PGX_HAVE_CUDA
PETSC_INTERN PetscErrorCode PGXCUDAProbe(PetscBool *, PetscInt *, char[], size_t);
PETSC_INTERN void           PGXCUDAProbeRaw(int, int *, int *, char[], size_t);
PETSC_INTERN void           PGXCUDAStagingPrealloc(int, size_t);
PETSC_INTERN void           PGXCUDAStagingPreallocFree(void);
PETSC_INTERN int            PGXCUDALocalRank(void);
#endif

static PetscBool    PGXCUDAProbed = PETSC_FALSE, PGXCUDAAvailable = PETSC_FALSE;
static char         PGXCUDAReason[256];
static PetscInt     PGXCUDACount = 0;
#if PGX_HAVE_CUDA
static std::thread *PGXCUDAProbeThread = nullptr; /* PGXCUDAProbeBegin()'s thread until PGXCUDAIsAvailable() joins it */
static int          PGXCUDAProbeAvail = 0, PGXCUDAProbeCount = 0;
#endif

#if PGX_HAVE_CUDA
/* joins the probe's thread, if any, and keeps its result; *waited: whether there was one */
static void PGXCUDAProbeCollect(PetscBool *waited)
{
  *waited = PGXCUDAProbeThread ? PETSC_TRUE : PETSC_FALSE;
  if (!PGXCUDAProbeThread) return;
  PGXCUDAProbeThread->join();
  delete PGXCUDAProbeThread;
  PGXCUDAProbeThread = nullptr;
  PGXCUDAAvailable   = PGXCUDAProbeAvail ? PETSC_TRUE : PETSC_FALSE;
  PGXCUDACount       = PGXCUDAProbeCount;
  PGXCUDAProbed      = PETSC_TRUE;
}

/* PetscFinalize() with a probe still running (a program that stops before any setup): it is waited for, so that the
   process does not exit while another of its threads initializes the CUDA driver */
static PetscErrorCode PGXCUDAProbeFinalize(void)
{
  PetscBool waited;

  PetscFunctionBegin;
  PGXCUDAProbeCollect(&waited);
  PGXCUDAStagingPreallocFree(); /* pinned on the probe's thread and never adopted (no staged copy came) */
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/*@C
  PGXCUDAProbeBegin - Starts the probe of `PGXCUDAIsAvailable()` (the process's first CUDA calls: driver
  initialization and the primary context, tenths of a second) on a thread of its own, so that host work overlaps it.
  When copies are staged (`PGXCopyGetConfig()`), the thread also pins the staging buffers (3 x 8 MiB by default,
  13-17 ms on the H200 host), which the first staged copy adopts.

  Not Collective

  Level: developer

  Notes:
  The next `PGXCUDAIsAvailable()` (or `PGXDeviceResolve()`) waits for it and reports as usual. Nothing happens when
  the probe has run already, without CUDA, or when no thread can be started (the probe then runs when asked). Call it
  only where no fork() follows before that wait (a multithreaded process must not fork while the CUDA driver is being
  initialized): MATSOLVERPGX calls it after its nested dissection has forked its children.

.seealso: `PGXCUDAIsAvailable()`, `PGXDeviceResolve()`
@*/
PetscErrorCode PGXCUDAProbeBegin(void)
{
  PetscFunctionBegin;
#if PGX_HAVE_CUDA
  if (!PGXCUDAProbed && !PGXCUDAProbeThread) {
    int           lrank = PGXCUDALocalRank();
    PGXCopyConfig cfg;
    PetscCall(PGXCopyGetConfig(&cfg));
    /* the staged copies' pinned buffers too, when large copies will be staged */
    const int    nbuf  = PGXCopyResolveMode(&cfg) == PGX_COPY_STAGED ? (int)cfg.buffers : 0;
    const size_t chunk = (size_t)cfg.chunk;
    try {
      PGXCUDAProbeThread = new std::thread([lrank, nbuf, chunk] {
        PGXCUDAProbeRaw(lrank, &PGXCUDAProbeAvail, &PGXCUDAProbeCount, PGXCUDAReason, sizeof(PGXCUDAReason));
        if (PGXCUDAProbeAvail && nbuf) PGXCUDAStagingPrealloc(nbuf, chunk);
      });
    } catch (...) {
      PGXCUDAProbeThread = nullptr; /* the probe runs when asked */
    }
    if (PGXCUDAProbeThread) PetscCall(PetscRegisterFinalize(PGXCUDAProbeFinalize));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXCUDAProbeJoin - Waits for a probe that `PGXCUDAProbeBegin()` started and is still running, and keeps its result
  for `PGXCUDAIsAvailable()`; nothing when none runs. Called before PGX forks (the nested dissection of
  `MATSOLVERPGX`), since a process must not fork while another of its threads initializes the CUDA driver.

  Not Collective

  Level: developer

.seealso: `PGXCUDAProbeBegin()`, `PGXCUDAIsAvailable()`
@*/
PetscErrorCode PGXCUDAProbeJoin(void)
{
  PetscFunctionBegin;
#if PGX_HAVE_CUDA
  PetscLogDouble t0, t1;
  PetscBool      waited;
  PetscCall(PetscTime(&t0));
  PGXCUDAProbeCollect(&waited);
  PetscCall(PetscTime(&t1));
  if (waited) {
    PetscCall(PetscInfo(NULL, "PGX cuda probe (driver initialization and primary context, on its own thread since it was started): waited %.1f ms for it\n", 1e3 * (t1 - t0)));
    PetscCall(PetscInfo(NULL, "PGX cuda backend %s%s%s\n", PGXCUDAAvailable ? "available" : "unavailable", PGXCUDAAvailable ? "" : ": ", PGXCUDAAvailable ? "" : PGXCUDAReason));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXCUDAIsAvailable - Whether PGX was built with CUDA and a CUDA device is visible to this process.

  Not Collective

  Output Parameter:
. avail - `PETSC_TRUE` when the cuda backend can run

  Level: intermediate

.seealso: `PGXDeviceResolve()`
@*/
PetscErrorCode PGXCUDAIsAvailable(PetscBool *avail)
{
  PetscFunctionBegin;
  PetscAssertPointer(avail, 1);
  PetscCall(PGXCUDAProbeJoin()); /* PGXCUDAProbeBegin() started it: its result */
  if (!PGXCUDAProbed) {
#if PGX_HAVE_CUDA
    PetscCall(PGXCUDAProbe(&PGXCUDAAvailable, &PGXCUDACount, PGXCUDAReason, sizeof(PGXCUDAReason)));
#else
    PGXCUDAAvailable = PETSC_FALSE;
    PetscCall(PetscStrncpy(PGXCUDAReason, "PGX was built without CUDA (nvcc was not found at build time, or CUDA=0; rebuild with CUDA=1 CUDA_DIR=/path/to/cuda)", sizeof(PGXCUDAReason)));
#endif
    PGXCUDAProbed = PETSC_TRUE;
    PetscCall(PetscInfo(NULL, "PGX cuda backend %s%s%s\n", PGXCUDAAvailable ? "available" : "unavailable", PGXCUDAAvailable ? "" : ": ", PGXCUDAAvailable ? "" : PGXCUDAReason));
  }
  *avail = PGXCUDAAvailable;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXCUDAGetDeviceCount - How many CUDA devices this process sees (after `CUDA_VISIBLE_DEVICES`).

  Not Collective

  Output Parameter:
. count - the number of visible devices; 0 when the cuda backend cannot run (`PGXCUDAGetUnavailableReason()` says why)

  Level: intermediate

  Note:
  Which of them a process uses is `PGXDeviceSelect()`'s rule (`-pgx_device_id`, PETSc's device, node-local rank).

.seealso: `PGXCUDAIsAvailable()`, `PGXDeviceGetName()`
@*/
PetscErrorCode PGXCUDAGetDeviceCount(PetscInt *count)
{
  PetscBool avail;

  PetscFunctionBegin;
  PetscAssertPointer(count, 1);
  PetscCall(PGXCUDAIsAvailable(&avail));
  *count = avail ? PGXCUDACount : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXCUDAGetUnavailableReason - Why the cuda backend cannot run here (empty when it can).

  Not Collective

  Output Parameter:
. reason - a sentence naming the cause (built without CUDA, no driver, no device, no kernel image)

  Level: intermediate

.seealso: `PGXCUDAIsAvailable()`
@*/
PetscErrorCode PGXCUDAGetUnavailableReason(const char **reason)
{
  PetscBool avail;

  PetscFunctionBegin;
  PetscCall(PGXCUDAIsAvailable(&avail));
  *reason = avail ? "" : PGXCUDAReason;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXDeviceResolve - Turns a requested device type into the one that runs: `PGX_DEVICE_AUTO` becomes
  `PGX_DEVICE_CUDA` when a GPU is available and `PGX_DEVICE_HOST` otherwise; `PGX_DEVICE_CUDA`
  without a usable GPU is an error that says why.

  Not Collective

  Input Parameters:
+ comm - communicator for the error
- req  - the requested type

  Output Parameter:
. type - `PGX_DEVICE_HOST` or `PGX_DEVICE_CUDA`

  Level: developer

.seealso: `PGXCUDAIsAvailable()`, `PGXGetDefaultDeviceType()`
@*/
PetscErrorCode PGXDeviceResolve(MPI_Comm comm, PGXDeviceType req, PGXDeviceType *type)
{
  PetscBool avail;

  PetscFunctionBegin;
  PetscAssertPointer(type, 3);
  PetscCall(PGXCUDAIsAvailable(&avail));
  if (req == PGX_DEVICE_AUTO) *type = avail ? PGX_DEVICE_CUDA : PGX_DEVICE_HOST;
  else {
    PetscCheck(req != PGX_DEVICE_CUDA || avail, comm, PETSC_ERR_SUP_SYS, "-pgx_device cuda was requested but the cuda backend cannot run: %s. Use -pgx_device host (or auto)", PGXCUDAReason);
    *type = req;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXDeviceSelect - Which of the visible CUDA devices this process uses: the rule behind PGX's rank-to-device
  mapping, kept apart from CUDA so that it is tested without a GPU.

  Not Collective

  Input Parameters:
+ requested    - the device asked for with -pgx_device_id, or -1 when not set
. petsc_device - the device of PETSc's own current device context when PETSc was built with CUDA, else -1
. local_rank   - this process's rank on its node (from the MPI launcher), or -1 when unknown
- count        - the number of visible devices (after CUDA_VISIBLE_DEVICES)

  Output Parameters:
+ device - the device to use, 0 <= device < count
- rule   - which rule chose it (for -info and View)

  Level: developer

  Notes:
  In that order: -pgx_device_id when given; PETSc's choice when PETSc has CUDA (so that PGX's kernels run on
  the device that holds PETSc's device Vecs); otherwise the node-local rank modulo the visible devices. Several
  ranks may share a device.

.seealso: `PGXDeviceGetName()`, `PGXDeviceResolve()`
@*/
PetscErrorCode PGXDeviceSelect(PetscInt requested, PetscInt petsc_device, PetscInt local_rank, PetscInt count, PetscInt *device, const char **rule)
{
  PetscFunctionBegin;
  PetscAssertPointer(device, 5);
  PetscCheck(count > 0, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "No CUDA device is visible (check CUDA_VISIBLE_DEVICES); use -pgx_device host");
  if (requested >= 0) {
    PetscCheck(requested < count, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-pgx_device_id %" PetscInt_FMT " but only %" PetscInt_FMT " CUDA device%s visible (0..%" PetscInt_FMT ")", requested, count, count > 1 ? "s are" : " is", count - 1);
    *device = requested;
    if (rule) *rule = "-pgx_device_id";
  } else if (petsc_device >= 0) {
    PetscCheck(petsc_device < count, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PETSc's device %" PetscInt_FMT " is not among the %" PetscInt_FMT " visible devices", petsc_device, count);
    *device = petsc_device;
    if (rule) *rule = "the device of PETSc's device context";
  } else {
    *device = (local_rank < 0 ? 0 : local_rank) % count;
    if (rule) *rule = "node-local rank modulo the visible devices";
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if !PGX_HAVE_CUDA
  #define PGX_NO_CUDA SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "PGX was built without CUDA; %s needs the cuda backend", PETSC_FUNCTION_NAME)
PetscErrorCode PGXDeviceMalloc(size_t, void **) { PGX_NO_CUDA; }
PetscErrorCode PGXDeviceFree(void *p)
{
  PetscFunctionBegin;
  if (p) *(void **)p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXHostMallocPinned(size_t bytes, void **p)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc(bytes, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXHostFreePinned(void *p)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(*(void **)p));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXDeviceCopyToDevice(void *, const void *, size_t) { PGX_NO_CUDA; }
PetscErrorCode PGXDeviceCopyToHost(void *, const void *, size_t) { PGX_NO_CUDA; }
PetscErrorCode PGXDeviceMemset(void *, int, size_t) { PGX_NO_CUDA; }
PetscErrorCode PGXGhostPeerCreate(MPI_Comm, PetscBool, PetscMPIInt, const PetscMPIInt *, const PetscInt *, PetscMPIInt, const PetscMPIInt *, const PetscInt *, void *, void *, PGXGhostPeer *p, const char **why)
{
  PetscFunctionBegin;
  *p   = NULL;
  *why = "PGX was built without CUDA";
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXGhostPeerPrepare(PGXGhostPeer) { PGX_NO_CUDA; }
PetscErrorCode PGXGhostPeerStart(PGXGhostPeer) { PGX_NO_CUDA; }
PetscErrorCode PGXGhostPeerFinish(PGXGhostPeer) { PGX_NO_CUDA; }
PetscErrorCode PGXGhostPeerDestroy(PGXGhostPeer *p)
{
  PetscFunctionBegin;
  if (p) *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXGhostPushCreate(MPI_Comm, PetscBool, PetscMPIInt, const PetscMPIInt *, const PetscInt *, PetscMPIInt, const PetscMPIInt *, const PetscInt *, const PetscInt *, PetscScalar *, PGXGhostPush *p, const char **why)
{
  PetscFunctionBegin;
  *p   = NULL;
  *why = "built without CUDA";
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXGhostPushBegin(PGXGhostPush, const PetscScalar *) { PGX_NO_CUDA; }
PetscErrorCode PGXGhostPushEnd(PGXGhostPush) { PGX_NO_CUDA; }
PetscErrorCode PGXGhostPushDestroy(PGXGhostPush *p)
{
  PetscFunctionBegin;
  if (p) *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXDevReduceCreate(MPI_Comm, PGXDevReduce *p, const char **why)
{
  PetscFunctionBegin;
  *p   = NULL;
  *why = "built without CUDA";
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXDevReduceSum(PGXDevReduce, PetscInt, PetscScalar *) { PGX_NO_CUDA; }
PetscErrorCode PGXDevReduceGetCount(PGXDevReduce, PetscInt *) { PGX_NO_CUDA; }
PetscErrorCode PGXDevReduceDestroy(PGXDevReduce *p)
{
  PetscFunctionBegin;
  if (p) *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXDeviceSynchronize(void) { return PETSC_SUCCESS; }
PetscErrorCode PGXDeviceGetName(char name[], size_t len)
{
  PetscFunctionBegin;
  PetscCall(PetscStrncpy(name, "none (built without CUDA)", len));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXVecStageCreate(PGXVecStage *s) { PGX_NO_CUDA; }
PetscErrorCode PGXVecStageDestroy(PGXVecStage *s)
{
  PetscFunctionBegin;
  if (s) *s = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXVecGetDeviceArrayRead(Vec, PGXVecStage, const PetscScalar **) { PGX_NO_CUDA; }
PetscErrorCode PGXMatGetDeviceValuesRead(Mat, const PetscScalar **d)
{
  PetscFunctionBegin;
  *d = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXMatGetDevicePattern(Mat, const PetscInt **i, const PetscInt **j)
{
  PetscFunctionBegin;
  *i = *j = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXMatRestoreDevicePattern(Mat, const PetscInt **i, const PetscInt **j)
{
  PetscFunctionBegin;
  *i = *j = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode PGXVecRestoreDeviceArrayRead(Vec, PGXVecStage, const PetscScalar **) { PGX_NO_CUDA; }
PetscErrorCode PGXVecGetDeviceArrayWrite(Vec, PGXVecStage, PetscScalar **) { PGX_NO_CUDA; }
PetscErrorCode PGXVecRestoreDeviceArrayWrite(Vec, PGXVecStage, PetscScalar **) { PGX_NO_CUDA; }
PETSC_EXTERN PetscErrorCode PGXDeviceTestAXPBY(PetscInt, PetscScalar, const PetscScalar *, PetscScalar, PetscScalar *) { PGX_NO_CUDA; }
PETSC_EXTERN PetscErrorCode PGXDeviceTestForceError(const char *) { PGX_NO_CUDA; }
#endif
