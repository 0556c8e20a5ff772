/* Package registration: PGXInitializePackage() registers every PGX type, option and log event once.
   PetscDLLibraryRegister_pgx() is what PETSc calls for -dll_append .../libpgx.so. */
#include <pgx/private/pgximpl.h>
#include <pgx/private/pgxcopy.h>

PetscClassId  PGX_CLASSID;
PetscLogEvent PGX_DeviceInit, PGX_CopyToDevice, PGX_CopyToHost, PGX_GhostBegin, PGX_GhostEnd;

const char *const PGXDeviceTypes[] = {"auto", "host", "cuda", "PGXDeviceType", "PGX_DEVICE_", NULL};

static PetscBool     PGXPackageInitialized = PETSC_FALSE;
static PGXDeviceType PGXDefaultDevice      = PGX_DEVICE_AUTO;
static PetscInt      PGXDeviceId           = -1; /* -pgx_device_id; -1: PETSc's device or local rank % count */

/*@C
  PGXFinalizePackage - Called from `PetscFinalize()`; undoes `PGXInitializePackage()`.

  Level: developer

.seealso: `PGXInitializePackage()`
@*/
PetscErrorCode PGXFinalizePackage(void)
{
  PetscFunctionBegin;
  PGXPackageInitialized = PETSC_FALSE;
  PGXDefaultDevice      = PGX_DEVICE_AUTO;
  PGXDeviceId           = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXInitializePackage - Registers the PGX types (`PCDILU`, `PCAIPS`, ...), the option -pgx_device and
  PGX's log events. Called once; later calls return at once.

  Options Database Key:
. -pgx_device <auto,host,cuda> - where PGX's kernels run by default (auto: cuda when PGX was built with
  CUDA and a GPU is visible, host otherwise); each PGX object also reads -<prefix>pgx_device

  Level: beginner

  Note:
  A program loading PGX with -dll_append lib/libpgx.so gets this called by PETSc. A program linked
  with -lpgx calls it after `PetscInitialize()`.

.seealso: `PGXFinalizePackage()`, `PGXGetDefaultDeviceType()`
@*/
PetscErrorCode PGXInitializePackage(void)
{
  PetscFunctionBegin;
  if (PGXPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  PGXPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("PGX", &PGX_CLASSID));
  PetscCall(PetscLogEventRegister("PGXDeviceInit", PGX_CLASSID, &PGX_DeviceInit));
  PetscCall(PetscLogEventRegister("PGXCopyToDevice", PGX_CLASSID, &PGX_CopyToDevice));
  PetscCall(PetscLogEventRegister("PGXCopyToHost", PGX_CLASSID, &PGX_CopyToHost));
  PetscCall(PetscLogEventRegister("PGXGhostBegin", PGX_CLASSID, &PGX_GhostBegin));
  PetscCall(PetscLogEventRegister("PGXGhostEnd", PGX_CLASSID, &PGX_GhostEnd));
  PetscCall(PGXRegister_DILU());
  PetscCall(PGXRegister_AIPS());
  PetscCall(PGXRegister_LDLT());
  PetscCall(PGXRegister_DenseLU());
  PetscCall(PGXRegister_KSP());
#if PGX_HAVE_SLEPC
  PetscCall(PGXRegister_EPS());
#endif
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "PGX " PGX_VERSION_STRING ": GPU preconditioners and solvers for PETSc", "PGX");
  PetscCall(PetscOptionsEnum("-pgx_device", "Where PGX kernels run: auto (cuda when a GPU is visible), host (reference), cuda", "PGXInitializePackage", PGXDeviceTypes, (PetscEnum)PGXDefaultDevice, (PetscEnum *)&PGXDefaultDevice, NULL));
  PetscCall(PetscOptionsInt("-pgx_device_id", "The CUDA device this process uses (default: PETSc's device when PETSc has CUDA, else the node-local rank modulo the visible devices)", "PGXDeviceSelect", PGXDeviceId, &PGXDeviceId, NULL));
  PetscOptionsEnd();
  PetscCall(PGXCopySetFromOptions());
  PetscCall(PetscRegisterFinalize(PGXFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXGetDefaultDeviceType - The device set with -pgx_device (not resolved: may be `PGX_DEVICE_AUTO`).

  Not Collective

  Output Parameter:
. type - the device type

  Level: intermediate

.seealso: `PGXDeviceResolve()`, `PGXInitializePackage()`
@*/
PetscErrorCode PGXGetDefaultDeviceType(PGXDeviceType *type)
{
  PetscFunctionBegin;
  PetscAssertPointer(type, 1);
  PetscCall(PGXInitializePackage());
  *type = PGXDefaultDevice;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXGetDeviceIdOption - The device set with -pgx_device_id, or -1 when it was not set.

  Not Collective

  Output Parameter:
. id - the device number

  Level: developer

.seealso: `PGXDeviceSelect()`
@*/
PetscErrorCode PGXGetDeviceIdOption(PetscInt *id)
{
  PetscFunctionBegin;
  PetscAssertPointer(id, 1);
  PetscCall(PGXInitializePackage());
  *id = PGXDeviceId;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXViewDevice - Prints, rank by rank, the CUDA device each rank uses; nothing for the host backend.

  Collective

  Input Parameters:
+ viewer - an ASCII viewer
- type   - the backend the object runs on

  Level: developer

.seealso: `PGXDeviceGetName()`, `PGXDeviceSelect()`
@*/
PetscErrorCode PGXViewDevice(PetscViewer viewer, PGXDeviceType type)
{
  PetscMPIInt rank;
  char        name[256];

  PetscFunctionBegin;
  if (type != PGX_DEVICE_CUDA) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)viewer), &rank));
  PetscCall(PGXDeviceGetName(name, sizeof(name)));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "  [%d] GPU: %s\n", rank, name));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXGetVersion - The PGX version string.

  Not Collective

  Input Parameter:
. len - the length of the buffer

  Output Parameter:
. version - the string

  Level: beginner
@*/
PetscErrorCode PGXGetVersion(char version[], size_t len)
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(version, len, "PGX " PGX_VERSION_STRING " (%s backend%s)", PGX_HAVE_CUDA ? "host and cuda" : "host", PGX_HAVE_CUDA ? "s" : " only"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXPCApplyDevice - Applies a PGX preconditioner to vectors that live in GPU memory, without staging
  through the host. This is what GPU-resident Krylov methods call.

  Collective

  Input Parameters:
+ pc  - the preconditioner, of a PGX type, set up with the cuda backend
- x   - device array of the local length of the input

  Output Parameter:
. y   - device array of the local length of the output

  Level: advanced

.seealso: `PCApply()`, `PCDILU`, `PCAIPS`
@*/
PetscErrorCode PGXPCApplyDevice(PC pc, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscCall(PCSetUp(pc));
  PetscUseMethod(pc, "PGXPCApplyDevice_C", (PC, const PetscScalar *, PetscScalar *), (pc, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXPCApplyDeviceDotNorm2 - `PGXPCApplyDevice()`, with the sums d2[0] = sum_i conj(y_i) x_i and d2[1] = sum_i |y_i|^2
  of this process's entries formed in the preconditioner's last pass where it can (a CG's z'r and ||z||^2, without
  a reduction of its own that reads x and y again).

  Not Collective (the sums are this process's; add them over the ranks)

  Input Parameters:
+ pc  - the preconditioner, of a PGX type, set up with the cuda backend
- x   - device array of the local length of the input

  Output Parameters:
+ y    - device array of the local length of the output
. d2   - two scalars in device memory: the sums, where `done` is true; untouched otherwise
- done - whether the preconditioner formed them (`PCAIPS` with its fused remainder on one rank: its last solve);
         otherwise the caller sums them itself

.seealso: `PGXPCApplyDevice()`, `PCAIPS`
@*/
PetscErrorCode PGXPCApplyDeviceDotNorm2(PC pc, const PetscScalar *x, PetscScalar *y, PetscScalar *d2, PetscBool *done)
{
  PetscErrorCode (*f)(PC, const PetscScalar *, PetscScalar *, PetscScalar *, PetscBool *) = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(done, 5);
  PetscCall(PCSetUp(pc));
  PetscCall(PetscObjectQueryFunction((PetscObject)pc, "PGXPCApplyDeviceDotNorm2_C", &f));
  *done = PETSC_FALSE;
  if (f) PetscCall((*f)(pc, x, y, d2, done));
  else PetscCall(PGXPCApplyDevice(pc, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_pgx(void)
{
  PetscFunctionBegin;
  PetscCall(PGXInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
