/* The CUDA side of the device layer: one context per process (device, stream, library handles),
   device memory, Vec staging, and the error strings of cuSOLVER. */
#include <pgx/private/pgxcuda.h>
#include <pgx/private/pgxcopy.h>
#include <stdlib.h>
#include <chrono>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice.h>
#endif

namespace
{
constexpr int MAX_STAGING = 64;
/* pinned staging buffers of the large copies (pgxcopy.h), each with the event of its last transfer */
struct Staging {
  PetscInt    nbuf = 0;
  size_t      size = 0;
  char       *buf[MAX_STAGING] = {};
  cudaEvent_t ev[MAX_STAGING]  = {};
};

struct Context {
  PetscBool          init = PETSC_FALSE;
  int                device = -1;
  cudaDeviceProp     prop{};
  cudaStream_t       stream   = nullptr;
  cudaEvent_t        ev_petsc = nullptr; /* recorded on PETSc's stream: PGX's stream waits for it */
  cudaEvent_t        ev_pgx   = nullptr; /* recorded on PGX's stream: PETSc's stream waits for it */
  cublasHandle_t     cublas   = nullptr;
  cusparseHandle_t   cusparse = nullptr;
  cusolverDnHandle_t cusolver = nullptr;
  Staging            st;
};
Context ctx;

/* Staging buffers pinned on the probe's thread (PGXCUDAStagingPrealloc()) while the application still assembles its
   matrix: the first StagingReserve() of their shape adopts them. Pinning 3 x 8 MiB took 13-17 ms on the H200 host, in
   the first large copy of the PC's setup or of KSPSolve. Written by that thread only, read after it is joined. */
struct PreStaging {
  int    nbuf = 0;
  size_t size = 0;
  char  *buf[MAX_STAGING] = {};
  double ms = 0;
};
PreStaging pre;

/* buffers the probe's thread pinned and nobody adopted (a shape other than the copies' own, or no copy) */
void PreStagingFree(void)
{
  for (int b = 0; b < pre.nbuf; b++)
    if (pre.buf[b]) (void)cudaFreeHost(pre.buf[b]);
  pre = PreStaging();
}

PetscErrorCode StagingFree(void)
{
  PetscFunctionBegin;
  for (PetscInt b = 0; b < ctx.st.nbuf; b++) {
    if (ctx.st.ev[b]) PGXCallCUDA(cudaEventSynchronize(ctx.st.ev[b])); /* its last transfer may still read or write it */
    if (ctx.st.buf[b]) PGXCallCUDA(cudaFreeHost(ctx.st.buf[b]));
    if (ctx.st.ev[b]) PGXCallCUDA(cudaEventDestroy(ctx.st.ev[b]));
    ctx.st.buf[b] = nullptr;
    ctx.st.ev[b]  = nullptr;
  }
  ctx.st.nbuf = 0;
  ctx.st.size = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ void probe_kernel(int *p)
{
  if (p) *p = 1;
}

/* Node-local rank from the launcher's environment (no collective call: contexts are created lazily,
   from objects on any communicator). */
int local_rank()
{
  const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "PMI_LOCAL_RANK"};
  for (const char *v : vars) {
    const char *s = getenv(v);
    if (s) return atoi(s);
  }
  int rank = 0; /* no launcher variable: the world rank (right on one node) */
  (void)MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  return rank;
}

PetscErrorCode ContextDestroy(void)
{
  PetscFunctionBegin;
  PetscCall(StagingFree());
  PreStagingFree();
  if (ctx.cusolver) PGXCallCUSOLVER(cusolverDnDestroy(ctx.cusolver));
  if (ctx.cusparse) PGXCallCUSPARSE(cusparseDestroy(ctx.cusparse));
  if (ctx.cublas) PGXCallCUBLAS(cublasDestroy(ctx.cublas));
  if (ctx.ev_petsc) PGXCallCUDA(cudaEventDestroy(ctx.ev_petsc));
  if (ctx.ev_pgx) PGXCallCUDA(cudaEventDestroy(ctx.ev_pgx));
  if (ctx.stream) PGXCallCUDA(cudaStreamDestroy(ctx.stream));
  ctx = Context();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContextInit(void)
{
  int count = 0;

  PetscFunctionBegin;
  if (ctx.init) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(PGX_DeviceInit, 0, 0, 0, 0));
  PGXCallCUDA(cudaGetDeviceCount(&count));
  {
    PetscInt    requested, petsc_device = -1, dev;
    const char *rule;
    PetscCall(PGXGetDeviceIdOption(&requested));
#if defined(PETSC_HAVE_CUDA) && PETSC_VERSION_GE(3, 20, 0)
    if (requested < 0) { /* follow PETSc: its device Vecs live on the device of its current context */
      PetscDeviceContext dctx;
      PetscDevice        pdev;
      PetscDeviceType    dtype;
      PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
      PetscCall(PetscDeviceContextGetDeviceType(dctx, &dtype));
      if (dtype == PETSC_DEVICE_CUDA) {
        PetscCall(PetscDeviceContextGetDevice(dctx, &pdev));
        PetscCall(PetscDeviceGetDeviceId(pdev, &petsc_device));
      }
    }
#endif
    PetscCall(PGXDeviceSelect(requested, petsc_device, local_rank(), (PetscInt)count, &dev, &rule));
    ctx.device = (int)dev;
    PetscCall(PetscInfo(NULL, "PGX uses CUDA device %d of %d, chosen by %s\n", ctx.device, count, rule));
  }
  PGXCallCUDA(cudaSetDevice(ctx.device));
  PGXCallCUDA(cudaGetDeviceProperties(&ctx.prop, ctx.device));
  PGXCallCUDA(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
  PGXCallCUDA(cudaEventCreateWithFlags(&ctx.ev_petsc, cudaEventDisableTiming));
  PGXCallCUDA(cudaEventCreateWithFlags(&ctx.ev_pgx, cudaEventDisableTiming));
  ctx.init = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(ContextDestroy));
  PetscCall(PetscInfo(NULL, "PGX cuda context: device %d of %d (%s, sm_%d%d, %d SMs)\n", ctx.device, count, ctx.prop.name, ctx.prop.major, ctx.prop.minor, ctx.prop.multiProcessorCount));
  PetscCall(PetscLogEventEnd(PGX_DeviceInit, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* The probe without PETSc calls, so that it can run on a thread of its own (PGXCUDAProbeBegin()): the first CUDA
   call of a process initializes the driver and creates the primary context (tenths of a second) */
/* On the probe's thread, after PGXCUDAProbeRaw() found CUDA usable: nbuf staging buffers of size bytes pinned for the
   first staged copy (portable: the context the process later chooses may be another device's). No PETSc calls here. */
PETSC_INTERN void PGXCUDAStagingPrealloc(int nbuf, size_t size)
{
  const auto t0 = std::chrono::steady_clock::now();
  if (nbuf < 1 || nbuf > MAX_STAGING || !size) return;
  PreStagingFree();
  for (int b = 0; b < nbuf; b++) {
    if (cudaHostAlloc((void **)&pre.buf[b], size, cudaHostAllocPortable) != cudaSuccess) {
      (void)cudaGetLastError();
      pre.buf[b] = nullptr;
      PreStagingFree(); /* all or none */
      return;
    }
    pre.nbuf = b + 1;
  }
  pre.size = size;
  pre.ms   = 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/* The probe's finalize hook: buffers pinned on its thread that no copy adopted */
PETSC_INTERN void PGXCUDAStagingPreallocFree(void)
{
  PreStagingFree();
}

PETSC_INTERN void PGXCUDAProbeRaw(int lrank, int *avail, int *ndev, char reason[], size_t len)
{
  int                count = 0;
  cudaError_t        e;
  cudaFuncAttributes attr;

  *avail = 0;
  *ndev  = 0;
  e      = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    snprintf(reason, len, "cudaGetDeviceCount() failed with %s (%s): no usable GPU or driver", cudaGetErrorName(e), cudaGetErrorString(e));
    (void)cudaGetLastError();
    return;
  }
  if (count == 0) {
    snprintf(reason, len, "no CUDA device is visible");
    return;
  }
  e = cudaFuncGetAttributes(&attr, probe_kernel);
  if (e != cudaSuccess) {
    cudaDeviceProp p;
    (void)cudaGetDeviceProperties(&p, (lrank < 0 ? 0 : lrank) % count);
    snprintf(reason, len, "libpgx.so has no kernel image for this GPU (%s, sm_%d%d): %s; rebuild with CUDA_ARCH=%d%d", p.name, p.major, p.minor, cudaGetErrorString(e), p.major, p.minor);
    (void)cudaGetLastError();
    return;
  }
  *avail = 1;
  *ndev  = count;
}

PETSC_INTERN int PGXCUDALocalRank(void)
{
  return local_rank();
}

PETSC_INTERN PetscErrorCode PGXCUDAProbe(PetscBool *avail, PetscInt *ndev, char reason[], size_t len)
{
  int a, c;

  PetscFunctionBegin;
  PGXCUDAProbeRaw(local_rank(), &a, &c, reason, len);
  *avail = a ? PETSC_TRUE : PETSC_FALSE;
  *ndev  = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PGXCUDAPublish pgx_publish = {nullptr, nullptr, 0};

void PGXCUDAPublishArm(const void *src, void *dst, int k)
{
  pgx_publish.src = src;
  pgx_publish.dst = dst;
  pgx_publish.k   = k;
}

PGXCUDAPublish PGXCUDAPublishTake(void)
{
  const PGXCUDAPublish p = pgx_publish;
  pgx_publish.k          = 0;
  pgx_publish.src = pgx_publish.dst = nullptr;
  return p;
}

PetscBool PGXCUDAPublishDisarm(void)
{
  const PetscBool armed = (PetscBool)(pgx_publish.k > 0);
  (void)PGXCUDAPublishTake();
  return armed;
}

PetscErrorCode PGXCUDAGetStream(cudaStream_t *s)
{
  PetscFunctionBegin;
  PetscCall(ContextInit());
  *s = ctx.stream;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXCUDAGetCUBLAS(cublasHandle_t *h)
{
  PetscFunctionBegin;
  PetscCall(ContextInit());
  if (!ctx.cublas) {
    PetscCall(PGXCUDALibCheck(PGX_CUDALIB_CUBLAS));
    PetscCall(PetscLogEventBegin(PGX_DeviceInit, 0, 0, 0, 0)); /* a handle's creation loads its library: first use only */
    PGXCallCUBLAS(cublasCreate(&ctx.cublas));
    PetscCall(PetscLogEventEnd(PGX_DeviceInit, 0, 0, 0, 0));
    PGXCallCUBLAS(cublasSetStream(ctx.cublas, ctx.stream));
  }
  *h = ctx.cublas;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXCUDAGetCUSPARSE(cusparseHandle_t *h)
{
  PetscFunctionBegin;
  PetscCall(ContextInit());
  if (!ctx.cusparse) {
    PetscCall(PGXCUDALibCheck(PGX_CUDALIB_CUSPARSE));
    PetscCall(PetscLogEventBegin(PGX_DeviceInit, 0, 0, 0, 0)); /* a handle's creation loads its library: first use only */
    PGXCallCUSPARSE(cusparseCreate(&ctx.cusparse));
    PetscCall(PetscLogEventEnd(PGX_DeviceInit, 0, 0, 0, 0));
    PGXCallCUSPARSE(cusparseSetStream(ctx.cusparse, ctx.stream));
  }
  *h = ctx.cusparse;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXCUDAGetCUSOLVER(cusolverDnHandle_t *h)
{
  PetscFunctionBegin;
  PetscCall(ContextInit());
  if (!ctx.cusolver) {
    PetscCall(PGXCUDALibCheck(PGX_CUDALIB_CUSOLVER));
    PGXCallCUSOLVER(cusolverDnCreate(&ctx.cusolver));
    PGXCallCUSOLVER(cusolverDnSetStream(ctx.cusolver, ctx.stream));
  }
  *h = ctx.cusolver;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXCUDALibInitialize(PGXCUDALib lib)
{
  cublasHandle_t     hb;
  cusparseHandle_t   hs;
  cusolverDnHandle_t hd;

  PetscFunctionBegin;
  switch (lib) {
  case PGX_CUDALIB_CUBLAS: PetscCall(PGXCUDAGetCUBLAS(&hb)); break;
  case PGX_CUDALIB_CUSPARSE: PetscCall(PGXCUDAGetCUSPARSE(&hs)); break;
  case PGX_CUDALIB_CUSOLVER: PetscCall(PGXCUDAGetCUSOLVER(&hd)); break;
  default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown CUDA library %d", (int)lib);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXCUDAGetDeviceProperties(const cudaDeviceProp **p)
{
  PetscFunctionBegin;
  PetscCall(ContextInit());
  *p = &ctx.prop;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *PGXCUSOLVERGetErrorString(cusolverStatus_t s)
{
  switch (s) {
  case CUSOLVER_STATUS_SUCCESS:
    return "CUSOLVER_STATUS_SUCCESS";
  case CUSOLVER_STATUS_NOT_INITIALIZED:
    return "CUSOLVER_STATUS_NOT_INITIALIZED";
  case CUSOLVER_STATUS_ALLOC_FAILED:
    return "CUSOLVER_STATUS_ALLOC_FAILED";
  case CUSOLVER_STATUS_INVALID_VALUE:
    return "CUSOLVER_STATUS_INVALID_VALUE";
  case CUSOLVER_STATUS_ARCH_MISMATCH:
    return "CUSOLVER_STATUS_ARCH_MISMATCH";
  case CUSOLVER_STATUS_EXECUTION_FAILED:
    return "CUSOLVER_STATUS_EXECUTION_FAILED";
  case CUSOLVER_STATUS_INTERNAL_ERROR:
    return "CUSOLVER_STATUS_INTERNAL_ERROR";
  case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
    return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
  case CUSOLVER_STATUS_NOT_SUPPORTED:
    return "CUSOLVER_STATUS_NOT_SUPPORTED";
  default:
    return "unknown cuSOLVER status";
  }
}

/* ------------------------------------------------------------------------------------- device memory */
PetscErrorCode PGXDeviceMalloc(size_t bytes, void **p)
{
  PetscFunctionBegin;
  PetscAssertPointer(p, 2);
  PetscCall(ContextInit());
  *p = NULL;
  if (bytes) PGXCallCUDA(cudaMalloc(p, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXDeviceFree(void *pp)
{
  void **p = (void **)pp;

  PetscFunctionBegin;
  if (p && *p) {
    PGXCallCUDA(cudaFree(*p));
    *p = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXHostMallocPinned(size_t bytes, void **p)
{
  PetscFunctionBegin;
  PetscAssertPointer(p, 2);
  PetscCall(ContextInit());
  *p = NULL;
  if (bytes) PGXCallCUDA(cudaMallocHost(p, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXHostFreePinned(void *pp)
{
  void **p = (void **)pp;

  PetscFunctionBegin;
  if (p && *p) {
    PGXCallCUDA(cudaFreeHost(*p));
    *p = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------- large copies (pgxcopy.h) */
namespace
{
PetscErrorCode StagingReserve(PetscInt nbuf, size_t size)
{
  PetscFunctionBegin;
  if (ctx.st.nbuf == nbuf && ctx.st.size == size) PetscFunctionReturn(PETSC_SUCCESS);
  PetscLogDouble t0, t1;
  PetscCall(PetscTime(&t0));
  PetscCall(StagingFree());
  if (pre.nbuf && pre.nbuf == nbuf && pre.size == size) { /* pinned on the probe's thread */
    for (PetscInt b = 0; b < nbuf; b++) {
      ctx.st.buf[b] = pre.buf[b];
      pre.buf[b]    = nullptr;
      ctx.st.nbuf   = b + 1;
      PGXCallCUDA(cudaEventCreateWithFlags(&ctx.st.ev[b], cudaEventDisableTiming));
    }
    ctx.st.size = size;
    PetscCall(PetscInfo(NULL, "PGX staged copies: %" PetscInt_FMT " pinned buffers of %.1f MiB, pinned on the probe's thread (%.1f ms there)\n", nbuf, (double)size / 1048576.0, pre.ms));
    pre = PreStaging();
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PreStagingFree();
  for (PetscInt b = 0; b < nbuf; b++) {
    PGXCallCUDA(cudaMallocHost((void **)&ctx.st.buf[b], size));
    PGXCallCUDA(cudaEventCreateWithFlags(&ctx.st.ev[b], cudaEventDisableTiming));
    ctx.st.nbuf = b + 1; /* freed by StagingFree() on any later error */
  }
  ctx.st.size = size;
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(NULL, "PGX staged copies: %" PetscInt_FMT " pinned buffers of %.1f MiB allocated in %.1f ms\n", nbuf, (double)size / 1048576.0, 1e3 * (t1 - t0)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct StageCtx {
  char        *dev;
  cudaStream_t s;
};

PetscErrorCode StageTransfer(void *a, PGXCopyDirection dir, PetscInt b, size_t off, size_t len)
{
  StageCtx *c = (StageCtx *)a;

  PetscFunctionBegin;
  if (dir == PGX_COPY_H2D) PGXCallCUDA(cudaMemcpyAsync(c->dev + off, ctx.st.buf[b], len, cudaMemcpyHostToDevice, c->s));
  else PGXCallCUDA(cudaMemcpyAsync(ctx.st.buf[b], c->dev + off, len, cudaMemcpyDeviceToHost, c->s));
  PGXCallCUDA(cudaEventRecord(ctx.st.ev[b], c->s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StageWait(void *, PetscInt b)
{
  PetscFunctionBegin;
  PGXCallCUDA(cudaEventSynchronize(ctx.st.ev[b]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one cudaMemcpy(2D)Async */
PetscErrorCode PlainCopy(PGXCopyDirection dir, char *d, char *h, size_t width, size_t height, size_t hpitch, cudaStream_t s)
{
  PetscFunctionBegin;
  if (height <= 1 || hpitch == width) {
    if (dir == PGX_COPY_H2D) PGXCallCUDA(cudaMemcpyAsync(d, h, width * height, cudaMemcpyHostToDevice, s));
    else PGXCallCUDA(cudaMemcpyAsync(h, d, width * height, cudaMemcpyDeviceToHost, s));
  } else {
    if (dir == PGX_COPY_H2D) PGXCallCUDA(cudaMemcpy2DAsync(d, width, h, hpitch, width, height, cudaMemcpyHostToDevice, s));
    else PGXCallCUDA(cudaMemcpy2DAsync(h, hpitch, d, width, width, height, cudaMemcpyDeviceToHost, s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* Copies between the host array h (height rows of width bytes, row r at h + r hpitch) and the device bytes d
   (contiguous, width * height), on stream s (NULL: PGX's stream). Copies of at least -pgx_device_copy_threshold
   bytes from pageable memory take the path of -pgx_device_copy_mode (pgxcopy.h); smaller ones, and host memory
   already page-locked, one cudaMemcpy(2D)Async. On return a device-to-host copy is complete; a host-to-device
   copy has read h (h may be reused) and, with sync, is complete (else later work on s is ordered after it). */
PetscErrorCode PGXCUDACopy2D(PGXCopyDirection dir, void *d, void *h, size_t width, size_t height, size_t hpitch, cudaStream_t s, PetscBool sync)
{
  const size_t  total = width * height;
  PGXCopyConfig cfg;
  PGXCopyMode   mode;

  PetscFunctionBegin;
  if (!total) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(height <= 1 || hpitch >= width, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Host pitch %zu < width %zu", hpitch, width);
  PetscCall(ContextInit());
  if (!s) s = ctx.stream;
  PetscCall(PGXCopyGetConfig(&cfg));
  mode = total < (size_t)cfg.threshold ? PGX_COPY_PLAIN : cfg.mode;
  if (mode != PGX_COPY_PLAIN) { /* only pageable memory needs help: page-locked (or device, managed) memory is copied as before */
    cudaPointerAttributes attr;
    cudaError_t           e = cudaPointerGetAttributes(&attr, h);
    if (e != cudaSuccess) (void)cudaGetLastError(); /* not known to CUDA: pageable */
    else if (attr.type != cudaMemoryTypeUnregistered) mode = PGX_COPY_PLAIN;
  }
  if (mode == PGX_COPY_AUTO) mode = PGXCopyResolveMode(&cfg);
  if (mode == PGX_COPY_STAGED) {
    PGXHostLayout L  = {(char *)h, width, height, height <= 1 ? width : hpitch};
    StageCtx      sc = {(char *)d, s};
    PGXStageOps   ops;
    ops.ctx      = &sc;
    ops.transfer = StageTransfer;
    ops.wait     = StageWait;
    PetscCall(StagingReserve(cfg.buffers, (size_t)cfg.chunk));
    PetscCall(PGXStagedCopy(dir, &L, ctx.st.buf, ctx.st.nbuf, PGXCopyChunkFor(total, ctx.st.size), cfg.threads, &ops));
    if (sync && dir == PGX_COPY_H2D) PGXCallCUDA(cudaStreamSynchronize(s));
  } else if (mode == PGX_COPY_REGISTER) {
    const size_t span = (height <= 1 ? 0 : (height - 1) * hpitch) + width;
    cudaError_t  e    = cudaHostRegister(h, span, cudaHostRegisterDefault);
    if (e != cudaSuccess) { /* e.g. a part of it already registered: copy as it is */
      (void)cudaGetLastError();
      PetscCall(PetscInfo(NULL, "cudaHostRegister of %zu bytes failed (%s): plain copy\n", span, cudaGetErrorString(e)));
    }
    PetscCall(PlainCopy(dir, (char *)d, (char *)h, width, height, hpitch, s));
    PGXCallCUDA(cudaStreamSynchronize(s)); /* before the memory is unregistered */
    if (e == cudaSuccess) PGXCallCUDA(cudaHostUnregister(h));
  } else {
    PetscCall(PlainCopy(dir, (char *)d, (char *)h, width, height, hpitch, s));
    if (sync || dir == PGX_COPY_D2H) PGXCallCUDA(cudaStreamSynchronize(s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXDeviceCopyToDevice(void *d, const void *h, size_t bytes)
{
  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ContextInit());
  PetscCall(PetscLogEventBegin(PGX_CopyToDevice, 0, 0, 0, 0));
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, d, (void *)h, bytes, 1, bytes, ctx.stream, PETSC_TRUE));
  PetscCall(PetscLogEventEnd(PGX_CopyToDevice, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXDeviceCopyToHost(void *h, const void *d, size_t bytes)
{
  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ContextInit());
  PetscCall(PetscLogEventBegin(PGX_CopyToHost, 0, 0, 0, 0));
  PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, (void *)d, h, bytes, 1, bytes, ctx.stream, PETSC_TRUE));
  PetscCall(PetscLogEventEnd(PGX_CopyToHost, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXDeviceMemset(void *d, int v, size_t bytes)
{
  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ContextInit());
  PGXCallCUDA(cudaMemsetAsync(d, v, bytes, ctx.stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXDeviceSynchronize(void)
{
  PetscFunctionBegin;
  if (ctx.init) PGXCallCUDA(cudaStreamSynchronize(ctx.stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXDeviceGetName(char name[], size_t len)
{
  PetscFunctionBegin;
  PetscCall(ContextInit());
  PetscCall(PetscSNPrintf(name, len, "%s (sm_%d%d, %d SMs, device %d)", ctx.prop.name, ctx.prop.major, ctx.prop.minor, ctx.prop.multiProcessorCount, ctx.device));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------- ordering against PETSc
   A CUDA-enabled PETSc hands out device arrays (VecGetArray...AndMemType) whose pending work is queued on the
   stream of PETSc's current device context, and queues its own work on them again once they are restored.
   PGX runs on its own non-blocking stream, which does not synchronize with PETSc's (not even with the legacy
   default stream), so each hand-over is ordered by an event, both ways:
   - PGXWaitForPETSc(): before PGX touches an array PETSc gave it, PGX's stream waits for PETSc's;
   - PETScWaitForPGX(): before an array goes back to PETSc, PETSc's stream waits for PGX's.
   Neither blocks the host. Without a CUDA-enabled PETSc, PETSc never hands out device arrays. */
#if defined(PETSC_HAVE_CUDA)
  #if PETSC_VERSION_GE(3, 20, 0)
static PetscErrorCode PETScStream(cudaStream_t *s)
{
  PetscDeviceContext dctx;
  cudaStream_t      *h = nullptr;

  PetscFunctionBegin;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetStreamHandle(dctx, (void **)&h));
  *s = h ? *h : nullptr; /* nullptr: the legacy default stream */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGXWaitForPETSc(void)
{
  cudaStream_t ps = nullptr;

  PetscFunctionBegin;
  PetscCall(PETScStream(&ps));
  if (ps == ctx.stream) PetscFunctionReturn(PETSC_SUCCESS);
  PGXCallCUDA(cudaEventRecord(ctx.ev_petsc, ps));
  PGXCallCUDA(cudaStreamWaitEvent(ctx.stream, ctx.ev_petsc, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PETScWaitForPGX(void)
{
  cudaStream_t ps = nullptr;

  PetscFunctionBegin;
  PetscCall(PETScStream(&ps));
  if (ps == ctx.stream) PetscFunctionReturn(PETSC_SUCCESS);
  PGXCallCUDA(cudaEventRecord(ctx.ev_pgx, ctx.stream));
  PGXCallCUDA(cudaStreamWaitEvent(ps, ctx.ev_pgx, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
  #else
/* PETSc before 3.20 has no public handle to its stream: order by synchronizing the device (correct, slower) */
static PetscErrorCode PGXWaitForPETSc(void)
{
  PetscFunctionBegin;
  PGXCallCUDA(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PETScWaitForPGX(void)
{
  PetscFunctionBegin;
  PGXCallCUDA(cudaStreamSynchronize(ctx.stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
  #endif
#else
static PetscErrorCode PGXWaitForPETSc(void)
{
  return PETSC_SUCCESS;
}

static PetscErrorCode PETScWaitForPGX(void)
{
  return PETSC_SUCCESS;
}
#endif

/* ------------------------------------------------------------------------------------- Vec staging */
struct _n_PGXVecStage {
  PetscScalar       *buf = nullptr; /* device staging buffer */
  size_t             cap = 0;       /* its capacity in scalars */
  PetscInt           n   = 0;       /* local length of the Vec being staged */
  PetscBool          inplace = PETSC_FALSE; /* the Vec's own array is on the device */
  const PetscScalar *rarr    = nullptr;     /* read access held until restore (in place only) */
  PetscScalar       *warr    = nullptr;     /* write access held until restore */
};

static PetscErrorCode StageReserve(PGXVecStage s, PetscInt n)
{
  PetscFunctionBegin;
  if ((size_t)n > s->cap) {
    if (s->buf) PGXCallCUDA(cudaFree(s->buf));
    s->buf = nullptr;
    s->cap = 0;
    PGXCallCUDA(cudaMalloc((void **)&s->buf, (size_t)n * sizeof(PetscScalar)));
    s->cap = (size_t)n;
  }
  s->n = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXVecStageCreate(PGXVecStage *s)
{
  PetscFunctionBegin;
  PetscCall(ContextInit());
  *s = new _n_PGXVecStage();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXVecStageDestroy(PGXVecStage *s)
{
  PetscFunctionBegin;
  if (!s || !*s) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*s)->buf) PGXCallCUDA(cudaFree((*s)->buf));
  delete *s;
  *s = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's values on the device where PETSc keeps them there: a MATSEQAIJCUSPARSE matrix (not bound to the CPU) gives
   its device CSR values, in the order of its host CSR (PETSc first copies them to the device when the host copy is
   newer), with PGX's stream ordered after PETSc's pending work; *d = NULL for any other matrix (read the host values).
   The array stays PETSc's: read it before PETSc may change the matrix again. */
PetscErrorCode PGXMatGetDeviceValuesRead(Mat A, const PetscScalar **d)
{
  PetscFunctionBegin;
  *d = nullptr;
#if defined(PETSC_HAVE_CUDA)
  PetscBool cusp;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &cusp));
  if (cusp) {
    PetscScalar *a  = nullptr;
    PetscMemType mt = PETSC_MEMTYPE_HOST;
    PetscCall(MatSeqAIJGetCSRAndMemType(A, NULL, NULL, &a, &mt));
    if (PetscMemTypeDevice(mt)) {
      *d = a;
      PetscCall(PGXWaitForPETSc());
    }
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's pattern in device memory: a MATSEQAIJCUSPARSE matrix's device row offsets and column indices (full rows, host
   CSR order) when PETSc has CUDA and PetscInt is int, with PGX's stream ordered after PETSc's pending work (the row
   offsets may be new); else NULL (the caller uses the host CSR). Restore with PGXMatRestoreDevicePattern(). */
PetscErrorCode PGXMatGetDevicePattern(Mat B, const PetscInt **i, const PetscInt **j)
{
  PetscFunctionBegin;
  *i = *j = nullptr;
#if defined(PETSC_HAVE_CUDA) && !defined(PETSC_USE_64BIT_INDICES)
  PetscBool cusp;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJCUSPARSE, &cusp));
  if (cusp) {
    const int         *ii = nullptr, *jj = nullptr;
    const PetscScalar *da;
    PetscCall(MatSeqAIJCUSPARSEGetIJ(B, PETSC_FALSE, &ii, &jj));
    PetscCall(PGXMatGetDeviceValuesRead(B, &da)); /* PGX's stream waits for PETSc's */
    if (!da || !ii || !jj) {
      PetscCall(PetscInfo(B, "no device pattern (row offsets %p, column indices %p, values %p): the host CSR is used\n", (const void *)ii, (const void *)jj, (const void *)da));
      PetscCall(MatSeqAIJCUSPARSERestoreIJ(B, PETSC_FALSE, &ii, &jj));
    } else *i = ii, *j = jj;
  } else {
    MatType type;
    PetscCall(MatGetType(B, &type));
    PetscCall(PetscInfo(B, "the matrix is %s, not %s: the host CSR is used\n", type, MATSEQAIJCUSPARSE));
  }
#else
  (void)B;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXMatRestoreDevicePattern(Mat B, const PetscInt **i, const PetscInt **j)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA) && !defined(PETSC_USE_64BIT_INDICES)
  if (*i) PetscCall(MatSeqAIJCUSPARSERestoreIJ(B, PETSC_FALSE, i, j));
#else
  (void)B;
#endif
  *i = *j = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXVecGetDeviceArrayRead(Vec v, PGXVecStage s, const PetscScalar **d)
{
  const PetscScalar *a;
  PetscMemType       mt;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayReadAndMemType(v, &a, &mt));
  if (PetscMemTypeDevice(mt)) {
    s->inplace = PETSC_TRUE;
    s->rarr    = a;
    *d         = a;
    PetscCall(PGXWaitForPETSc()); /* PETSc's pending writes of v come first */
  } else {
    s->inplace = PETSC_FALSE;
    PetscCall(StageReserve(s, n));
    PetscCall(PetscLogEventBegin(PGX_CopyToDevice, 0, 0, 0, 0));
    PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, s->buf, (void *)a, (size_t)n * sizeof(PetscScalar), 1, 0, ctx.stream, PETSC_FALSE));
    PetscCall(PetscLogEventEnd(PGX_CopyToDevice, 0, 0, 0, 0));
    PetscCall(VecRestoreArrayReadAndMemType(v, &a));
    *d = s->buf;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXVecRestoreDeviceArrayRead(Vec v, PGXVecStage s, const PetscScalar **d)
{
  PetscFunctionBegin;
  if (s->inplace) {
    PetscCall(PETScWaitForPGX()); /* PETSc may overwrite v only after PGX's reads */
    PetscCall(VecRestoreArrayReadAndMemType(v, &s->rarr));
  }
  s->rarr = nullptr;
  *d      = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXVecGetDeviceArrayWrite(Vec v, PGXVecStage s, PetscScalar **d)
{
  PetscScalar *a;
  PetscMemType mt;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayWriteAndMemType(v, &a, &mt));
  s->warr = a;
  if (PetscMemTypeDevice(mt)) {
    s->inplace = PETSC_TRUE;
    *d         = a;
    PetscCall(PGXWaitForPETSc()); /* PETSc's pending reads of v come first */
  } else {
    s->inplace = PETSC_FALSE;
    PetscCall(StageReserve(s, n));
    *d = s->buf;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXVecRestoreDeviceArrayWrite(Vec v, PGXVecStage s, PetscScalar **d)
{
  PetscFunctionBegin;
  if (!s->inplace && s->n) {
    PetscCall(PetscLogEventBegin(PGX_CopyToHost, 0, 0, 0, 0));
    PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, s->buf, s->warr, (size_t)s->n * sizeof(PetscScalar), 1, 0, ctx.stream, PETSC_TRUE));
    PetscCall(PetscLogEventEnd(PGX_CopyToHost, 0, 0, 0, 0));
  } else if (s->inplace) PetscCall(PETScWaitForPGX()); /* PETSc's next use of v waits for PGX's writes */
  PetscCall(VecRestoreArrayWriteAndMemType(v, &s->warr));
  s->warr = nullptr;
  *d      = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}
