static char help[] = "Device-layer tests.\n"
                     "  -mode resolve : -pgx_device resolution (host and no-GPU paths)\n"
                     "  -mode cuda    : allocation, copies, a trivial kernel, Vec staging, error translation\n"
                     "  -mode select  : the rank-to-device rule (PGXDeviceSelect) on fake device counts, no GPU needed\n"
                     "  -mode libs    : cuBLAS, cuSPARSE and cuSOLVER are not mapped until PGX first needs them, then load with\n"
                     "                  every function PGX calls (-pc_type: a PC set up on the host backend first), no GPU needed\n";
#include <pgx/private/pgximpl.h>
#include <pgx/gallery.h>
#include "../common/pgxtest.h"

PETSC_EXTERN PetscErrorCode PGXDeviceTestAXPBY(PetscInt, PetscScalar, const PetscScalar *, PetscScalar, PetscScalar *);
PETSC_EXTERN PetscErrorCode PGXDeviceTestForceError(const char *);

/* An error handler that keeps the message, so the test can check what the user would read */
static char           lastmsg[4096];
static PetscErrorCode KeepMessage(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL) PetscStrncpy(lastmsg, mess ? mess : "", sizeof(lastmsg));
  return n;
}


static PetscInt nfail = 0;

static PetscErrorCode ExpectError(const char *which, const char *needle1, const char *needle2)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  lastmsg[0] = 0;
  PetscCall(PetscPushErrorHandler(KeepMessage, NULL));
  ierr = PGXDeviceTestForceError(which);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_GPU, "%s: error code %d, expected PETSC_ERR_GPU (%d)", which, (int)ierr, PETSC_ERR_GPU);
  CHECK(strstr(lastmsg, needle1) && strstr(lastmsg, needle2), "%s: message '%s' should name '%s' and '%s'", which, lastmsg, needle1, needle2);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s error -> %s\n", which, lastmsg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestResolve(void)
{
  PGXDeviceType t, def;
  PetscBool     avail;

  PetscFunctionBegin;
  PetscCall(PGXCUDAIsAvailable(&avail));
  PetscCall(PGXGetDefaultDeviceType(&def));
  PetscCall(PGXDeviceResolve(PETSC_COMM_WORLD, PGX_DEVICE_HOST, &t));
  CHECK(t == PGX_DEVICE_HOST, "host must resolve to host");
  PetscCall(PGXDeviceResolve(PETSC_COMM_WORLD, PGX_DEVICE_AUTO, &t));
  CHECK(t == (avail ? PGX_DEVICE_CUDA : PGX_DEVICE_HOST), "auto must resolve to cuda exactly when a GPU is available");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "default -pgx_device %s; auto resolves to %s\n", PGXDeviceTypes[def], PGXDeviceTypes[t]));
  /* the requested default, resolved: errors (clearly) for cuda without a GPU */
  PetscCall(PGXDeviceResolve(PETSC_COMM_WORLD, def, &t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestCUDA(void)
{
  const PetscInt n = 1000003; /* odd, not a power of two, larger than a block */
  PetscScalar   *h, *hy, *d_x = NULL, *d_y = NULL;
  PGXVecStage    sin, sout;
  Vec            x, y;
  PetscRandom    rnd;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n, &h, n, &hy));
  for (PetscInt i = 0; i < n; i++) h[i] = (PetscScalar)(i % 1000) - 0.25;
  PetscCall(PGXDeviceMallocArray(n, &d_x));
  PetscCall(PGXDeviceMallocArray(n, &d_y));
  PetscCall(PGXDeviceCopyArrayToDevice(d_x, h, n));
  PetscCall(PGXDeviceMemset(d_y, 0, n * sizeof(PetscScalar)));
  PetscCall(PGXDeviceTestAXPBY(n, 2.0, d_x, 3.0, d_y)); /* y = 2 x */
  PetscCall(PGXDeviceTestAXPBY(n, 1.0, d_x, 0.5, d_y)); /* y = x + x = 2 x */
  for (PetscInt i = 0; i < n; i++) hy[i] = -1.0;        /* poison */
  PetscCall(PGXDeviceCopyArrayToHost(hy, d_y, n));
  for (PetscInt i = 0; i < n; i++)
    if (hy[i] != 2.0 * h[i]) {
      CHECK(0, "kernel result y[%" PetscInt_FMT "] = %g, expected %g", i, (double)PetscRealPart(hy[i]), (double)PetscRealPart(2.0 * h[i]));
      break;
    }
  PetscCall(PGXDeviceFree(&d_x));
  PetscCall(PGXDeviceFree(&d_y));
  CHECK(!d_x && !d_y, "PGXDeviceFree must NULL the pointer");

  /* Vec staging: y = 3 x through device arrays of host Vecs */
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSet(y, -1.0));
  PetscCall(PGXVecStageCreate(&sin));
  PetscCall(PGXVecStageCreate(&sout));
  for (int rep = 0; rep < 2; rep++) { /* twice: the stage buffers are reused */
    const PetscScalar *dx;
    PetscScalar       *dy;
    PetscReal          err, nrm;
    Vec                r;
    PetscCall(PGXVecGetDeviceArrayRead(x, sin, &dx));
    PetscCall(PGXVecGetDeviceArrayWrite(y, sout, &dy));
    PetscCall(PGXDeviceTestAXPBY(n, 3.0, dx, 0.0, dy));
    PetscCall(PGXVecRestoreDeviceArrayWrite(y, sout, &dy));
    PetscCall(PGXVecRestoreDeviceArrayRead(x, sin, &dx));
    PetscCall(VecDuplicate(x, &r));
    PetscCall(VecWAXPY(r, -3.0, x, y));
    PetscCall(VecNorm(r, NORM_INFINITY, &err));
    PetscCall(VecNorm(x, NORM_INFINITY, &nrm));
    CHECK(err == 0.0 && nrm > 0, "staged kernel: |y - 3x| = %g", (double)err);
    PetscCall(VecDestroy(&r));
  }
  PetscCall(PGXVecStageDestroy(&sin));
  PetscCall(PGXVecStageDestroy(&sout));
  CHECK(!sin && !sout, "PGXVecStageDestroy must NULL the stage");
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFree2(h, hy));

  /* every library's failure becomes a PETSc error naming the call and the library's error */
  PetscCall(ExpectError("cuda", "cudaSetDevice", "cudaErrorInvalidDevice"));
  PetscCall(ExpectError("launch", "launching kernel axpby_kernel", "CUDA error"));
  PetscCall(ExpectError("cublas", "cublasDgemm", "CUBLAS_STATUS_INVALID_VALUE"));
  PetscCall(ExpectError("cusparse", "cusparseCreateCsr", "CUSPARSE_STATUS_INVALID_VALUE"));
  PetscCall(ExpectError("cusolver", "in cusolverDnDgetrf", "CUSOLVER_STATUS_INVALID_VALUE"));
  /* and the context still works after them */
  PetscCall(PGXDeviceMallocArray(10, &d_x));
  PetscCall(PGXDeviceTestAXPBY(10, 1.0, d_x, 0.0, d_x));
  PetscCall(PGXDeviceSynchronize());
  PetscCall(PGXDeviceFree(&d_x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PGXDeviceSelect: -pgx_device_id, else PETSc's device, else local rank % count; errors name the numbers */
static PetscErrorCode TestSelect(void)
{
  struct {
    PetscInt    req, petsc, lrank, count, want;
    const char *rule;
  } cases[] = {
    {-1, -1, 0, 2, 0, "node-local rank"}, {-1, -1, 1, 2, 1, "node-local rank"}, {-1, -1, 2, 2, 0, "node-local rank"}, /* two ranks per GPU */
    {-1, -1, 3, 2, 1, "node-local rank"}, {-1, -1, 5, 1, 0, "node-local rank"}, {-1, -1, -1, 4, 0, "node-local rank"}, /* unknown rank */
    {-1, 1, 0, 2, 1, "PETSc's device"},   {1, 0, 0, 2, 1, "-pgx_device_id"},     {0, -1, 7, 8, 0, "-pgx_device_id"},
  };
  PetscInt       dev;
  const char    *rule;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    PetscCall(PGXDeviceSelect(cases[c].req, cases[c].petsc, cases[c].lrank, cases[c].count, &dev, &rule));
    CHECK(dev == cases[c].want && strstr(rule, cases[c].rule), "case %d: device %" PetscInt_FMT " by '%s', expected %" PetscInt_FMT " by '%s'", (int)c, dev, rule, cases[c].want, cases[c].rule);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "id %2" PetscInt_FMT ", PETSc's %2" PetscInt_FMT ", local rank %2" PetscInt_FMT ", %" PetscInt_FMT " devices -> device %" PetscInt_FMT " (%s)\n", cases[c].req, cases[c].petsc, cases[c].lrank, cases[c].count, dev, rule));
  }
  PetscCall(PetscPushErrorHandler(KeepMessage, NULL));
  lastmsg[0] = 0;
  ierr       = PGXDeviceSelect(2, -1, 0, 2, &dev, &rule);
  CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE && strstr(lastmsg, "-pgx_device_id 2 but only 2 CUDA devices are visible (0..1)"), "out-of-range id: error %d '%s'", (int)ierr, lastmsg);
  lastmsg[0] = 0;
  ierr       = PGXDeviceSelect(-1, -1, 0, 0, &dev, &rule);
  CHECK(ierr == PETSC_ERR_SUP_SYS && strstr(lastmsg, "No CUDA device is visible"), "no device: error %d '%s'", (int)ierr, lastmsg);
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* is a library whose file name contains name mapped into this process? */
static PetscBool Mapped(const char *name)
{
  char  line[4096];
  FILE *f = fopen("/proc/self/maps", "r");
  PetscBool found = PETSC_FALSE;
  if (!f) return PETSC_FALSE;
  while (!found && fgets(line, sizeof(line), f))
    if (strstr(line, name)) found = PETSC_TRUE;
  fclose(f);
  return found;
}

static PetscErrorCode TestLibs(void)
{
  const char *const files[3] = {"libcublas.so", "libcusparse.so", "libcusolver.so"};
  PetscBool         haspc;
  char              pctype[64];

  PetscFunctionBeginUser;
#if PGX_HAVE_CUDA
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pc_type", pctype, sizeof(pctype), &haspc));
  if (haspc) { /* a PGX PC set up and applied on the host backend maps none of them */
    Mat A;
    Vec x, y;
    PC  pc;
    PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, "laplace1d", 10, &A));
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecSet(x, 1.0));
    PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(PCSetUp(pc));
    PetscCall(PCApply(pc, x, y));
    PetscCall(PCDestroy(&pc));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&A));
  }
#if !defined(PETSC_HAVE_CUDA) /* a PETSc built with CUDA links cuBLAS and cuSPARSE itself */
  for (int l = 0; l < 3; l++) CHECK(!Mapped(files[l]), "%s is mapped before PGX needs it%s", files[l], haspc ? " (after a PC on the host backend)" : "");
#endif
  for (int l = 0; l < 3; l++) {
    PetscCall(PGXCUDALibCheck((PGXCUDALib)l));
    CHECK(Mapped(files[l]), "%s is not mapped after PGXCUDALibCheck", files[l]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cuBLAS, cuSPARSE and cuSOLVER loaded at first use, every function PGX calls found\n"));
#else
  (void)files;
  (void)haspc;
  (void)pctype;
  (void)Mapped;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "no CUDA in this build: nothing to load\n"));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      mode[32] = "resolve";
  PetscBool flg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscStrcmp(mode, "cuda", &flg));
  if (flg) PetscCall(TestCUDA());
  else {
    PetscCall(PetscStrcmp(mode, "select", &flg));
    if (flg) PetscCall(TestSelect());
    else {
      PetscCall(PetscStrcmp(mode, "libs", &flg));
      if (flg) PetscCall(TestLibs());
      else PetscCall(TestResolve());
    }
  }
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " checks failed\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
