/* pgxcopy.h: large host <-> device copies through pinned staging buffers filled and drained by host threads
   (src/sys/copy.cxx: the thread pool, the options and the pipeline; src/sys/cuda/device.cu: its CUDA transfers).

   Why. A cudaMemcpy from or to pageable host memory is staged by the driver through one thread (4-6 GB/s on the
   GPU host), a host memcpy on one thread is no faster; T threads copying pageable <-> pinned chunks in parallel
   while the DMA of the previous chunk runs can approach the link's speed.

   The pipeline (PGXStagedCopy). The host side is a "pitched" array: `height` rows of `width` bytes, row r at
   host + r * pitch (a column-major matrix with leading dimension ld: width = n * sizeof(scalar), pitch = ld *
   sizeof(scalar); a plain array: height 1). The device side is the same bytes contiguous (pitch = width). The
   total width * height bytes are cut into chunks of at most `chunk` bytes, in order of the contiguous layout
   (a chunk may begin or end inside a row). Chunk c uses staging buffer c % nbuf.
   - host to device: for each chunk, wait until the buffer's previous transfer is done, pack the chunk into it
     with `threads` threads (the caller and threads - 1 pool threads, each a contiguous part), start its transfer;
   - device to host: start the transfers of the first nbuf chunks; for each chunk, wait for its transfer, unpack
     it with the threads, start the transfer of chunk c + nbuf into the freed buffer.
   Before any use of a buffer the pipeline waits for that buffer's last transfer (also one of an earlier copy).
   The transfers are the backend's (PGXStageOps): asynchronous cudaMemcpyAsync + an event per buffer on the GPU,
   a plain memcpy in the host reference that the tests run. The bytes are moved, never computed with: results are
   bitwise those of a plain copy.

   The thread pool (PGXThreadPoolRun): persistent threads, created when first needed and joined at
   PetscFinalize(); a job runs fn(arg, p, nparts) for p = 0..nparts-1, part 0 on the caller. */
#pragma once
#include <petscsys.h>

/* How PGXDeviceCopyToDevice()/ToHost() and the Vec staging move copies of at least the threshold's size
   (smaller ones always take one cudaMemcpyAsync): AUTO = STAGED with 2 or more threads, else PLAIN;
   PLAIN = one cudaMemcpyAsync from the caller's (pageable) memory; STAGED = the pipeline above;
   REGISTER = cudaHostRegister() of the caller's array, one cudaMemcpyAsync, cudaHostUnregister().
   Host memory that is already page-locked (cudaMallocHost, registered) is always copied directly. */
typedef enum {
  PGX_COPY_AUTO,
  PGX_COPY_PLAIN,
  PGX_COPY_STAGED,
  PGX_COPY_REGISTER
} PGXCopyMode;
PETSC_EXTERN const char *const PGXCopyModes[];

typedef struct {
  PGXCopyMode mode;      /* -pgx_device_copy_mode */
  PetscInt    threads;   /* -pgx_device_copy_threads: host threads of the pipeline, the caller included (0: default) */
  PetscInt    threshold; /* -pgx_device_copy_threshold: bytes; smaller copies take one cudaMemcpyAsync */
  PetscInt    chunk;     /* -pgx_device_copy_chunk: bytes of one staging buffer (the largest chunk) */
  PetscInt    buffers;   /* -pgx_device_copy_buffers: staging buffers (at least 2) */
} PGXCopyConfig;

PETSC_EXTERN PetscErrorCode PGXCopyGetConfig(PGXCopyConfig *);
/* The mode of a large copy of pageable memory under cfg: auto is staged with 2 or more threads, plain otherwise
   (PGXCUDACopy2D; the CUDA probe pins the staging buffers early when it is staged) */
static inline PGXCopyMode PGXCopyResolveMode(const PGXCopyConfig *cfg)
{
  return cfg->mode == PGX_COPY_AUTO ? (cfg->threads >= 2 ? PGX_COPY_STAGED : PGX_COPY_PLAIN) : cfg->mode;
}
PETSC_EXTERN PetscErrorCode PGXCopySetConfig(const PGXCopyConfig *);
PETSC_EXTERN PetscErrorCode PGXCopySetFromOptions(void);
PETSC_EXTERN PetscErrorCode PGXCopyDefaultThreads(PetscInt *);
/* The chunk the pipeline uses for a copy of `bytes` (at most the buffer size; smaller for smaller copies, so that
   a copy of a few buffers' size still overlaps: at least 4 chunks where each stays >= 256 KiB) */
PETSC_EXTERN size_t PGXCopyChunkFor(size_t bytes, size_t bufsize);

/* Thread pool */
PETSC_EXTERN PetscErrorCode PGXThreadPoolRun(PetscInt nparts, void (*fn)(void *, PetscInt, PetscInt), void *arg);
PETSC_EXTERN PetscErrorCode PGXThreadPoolGetSize(PetscInt *); /* pool threads now running (the caller not counted) */
PETSC_EXTERN PetscErrorCode PGXThreadPoolDestroy(void);

/* The host side of a staged copy: height rows of width bytes, row r at host + r * pitch (pitch >= width) */
typedef struct {
  char  *host;
  size_t width, height, pitch;
} PGXHostLayout;

/* Bytes [off, off + len) of the contiguous image of the layout <-> lin[0, len), on `threads` threads:
   dir 0 packs (host -> lin), dir 1 unpacks (lin -> host) */
PETSC_EXTERN PetscErrorCode PGXHostLayoutCopy(const PGXHostLayout *, size_t off, size_t len, void *lin, int dir, PetscInt threads);

typedef enum {
  PGX_COPY_H2D = 0,
  PGX_COPY_D2H = 1
} PGXCopyDirection;

/* The backend of the pipeline: transfer starts moving buffer buf's first len bytes to (H2D) or from (D2H) the
   device's bytes [off, off + len) and returns; wait returns once buffer buf's last transfer is done (at once for a
   buffer never used) */
typedef struct {
  void *ctx;
  PetscErrorCode (*transfer)(void *ctx, PGXCopyDirection, PetscInt buf, size_t off, size_t len);
  PetscErrorCode (*wait)(void *ctx, PetscInt buf);
} PGXStageOps;

PETSC_EXTERN PetscErrorCode PGXStagedCopy(PGXCopyDirection, const PGXHostLayout *, char *const bufs[], PetscInt nbuf, size_t chunk, PetscInt threads, const PGXStageOps *);
