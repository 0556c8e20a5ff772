/* Large host <-> device copies (pgxcopy.h): the options, the thread pool and the staging pipeline. Host code
   only: the CUDA transfers are PGXStageOps given by src/sys/cuda/device.cu, the tests give memcpy ones. */
#include <pgx/private/pgximpl.h>
#include <pgx/private/pgxcopy.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

const char *const PGXCopyModes[] = {"auto", "plain", "staged", "register", "PGXCopyMode", "PGX_COPY_", NULL};

/* Defaults (the GPU bench, bench/copy, sweeps them): copies from 2 MiB on go through 3 buffers of 8 MiB */
#define PGX_COPY_DEFAULT_THRESHOLD (2 << 20)
#define PGX_COPY_DEFAULT_CHUNK     (8 << 20)
#define PGX_COPY_DEFAULT_BUFFERS   3
#define PGX_COPY_MAX_THREADS       64

static PGXCopyConfig copycfg = {PGX_COPY_AUTO, 0, PGX_COPY_DEFAULT_THRESHOLD, PGX_COPY_DEFAULT_CHUNK, PGX_COPY_DEFAULT_BUFFERS};

/*@C
  PGXCopyDefaultThreads - The host threads a staged copy uses by default: the cores this process may run on (its
  affinity mask) shared among the node-local ranks the launcher reports, at most 8.

  Not Collective

  Output Parameter:
. t - the thread count (at least 1)

  Level: developer

.seealso: `PGXCopyGetConfig()`
@*/
PetscErrorCode PGXCopyDefaultThreads(PetscInt *t)
{
  cpu_set_t   set;
  PetscInt    cores = 1, local = 1;
  const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_LOCAL_SIZE"};

  static PetscInt cached = 0; /* the mask and the launcher's variables do not change: computed once */

  PetscFunctionBegin;
  if (cached) {
    *t = cached;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cores = CPU_COUNT(&set);
  else cores = (PetscInt)std::thread::hardware_concurrency();
  for (const char *v : vars) {
    const char *s = getenv(v);
    if (s && atoi(s) > 0) {
      local = atoi(s);
      break;
    }
  }
  *t = cached = PetscMax(1, PetscMin(8, cores / local));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXCopyGetConfig - How large host-device copies are made (`PGXCopyConfig`, pgx/private/pgxcopy.h); threads 0 is
  replaced by `PGXCopyDefaultThreads()`.

  Not Collective

  Output Parameter:
. cfg - the configuration

  Level: developer

.seealso: `PGXCopySetConfig()`, `PGXDeviceCopyToDevice()`
@*/
PetscErrorCode PGXCopyGetConfig(PGXCopyConfig *cfg)
{
  PetscFunctionBegin;
  *cfg = copycfg;
  if (cfg->threads <= 0) PetscCall(PGXCopyDefaultThreads(&cfg->threads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXCopySetConfig - Sets how large host-device copies are made (the options -pgx_device_copy_* do it at
  `PGXInitializePackage()`).

  Not Collective

  Input Parameter:
. cfg - the configuration (threads 0: the default; threshold >= 0, chunk >= 4096, buffers >= 2)

  Level: developer

.seealso: `PGXCopyGetConfig()`
@*/
PetscErrorCode PGXCopySetConfig(const PGXCopyConfig *cfg)
{
  PetscFunctionBegin;
  PetscCheck(cfg->threads >= 0 && cfg->threads <= PGX_COPY_MAX_THREADS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-pgx_device_copy_threads %" PetscInt_FMT " is not in 0..%d", cfg->threads, PGX_COPY_MAX_THREADS);
  PetscCheck(cfg->threshold >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-pgx_device_copy_threshold %" PetscInt_FMT " < 0", cfg->threshold);
  PetscCheck(cfg->chunk >= 4096, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-pgx_device_copy_chunk %" PetscInt_FMT " < 4096 bytes", cfg->chunk);
  PetscCheck(cfg->buffers >= 2 && cfg->buffers <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-pgx_device_copy_buffers %" PetscInt_FMT " is not in 2..64", cfg->buffers);
  PetscCheck(cfg->mode >= PGX_COPY_AUTO && cfg->mode <= PGX_COPY_REGISTER, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown copy mode %d", (int)cfg->mode);
  copycfg = *cfg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXCopySetFromOptions - Reads the options of large host-device copies (called by `PGXInitializePackage()`).

  Options Database Keys:
+ -pgx_device_copy_mode <auto,plain,staged,register> - how copies of at least the threshold are made
. -pgx_device_copy_threads <t>    - host threads of a staged copy (0: the cores available, shared by the local ranks, at most 8)
. -pgx_device_copy_threshold <b>  - bytes from which a copy is staged or registered (default 2 MiB)
. -pgx_device_copy_chunk <b>      - bytes of a pinned staging buffer (default 8 MiB)
- -pgx_device_copy_buffers <k>    - staging buffers (default 3)

  Level: developer

.seealso: `PGXCopySetConfig()`, `PGXInitializePackage()`
@*/
PetscErrorCode PGXCopySetFromOptions(void)
{
  PGXCopyConfig c = {PGX_COPY_AUTO, 0, PGX_COPY_DEFAULT_THRESHOLD, PGX_COPY_DEFAULT_CHUNK, PGX_COPY_DEFAULT_BUFFERS};

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "PGX large host-device copies", "PGX");
  PetscCall(PetscOptionsEnum("-pgx_device_copy_mode", "How host-device copies of at least the threshold are made: auto (staged with 2 or more threads), plain, staged (host threads through pinned buffers), register (cudaHostRegister)", "PGXCopySetConfig", PGXCopyModes, (PetscEnum)c.mode, (PetscEnum *)&c.mode, NULL));
  PetscCall(PetscOptionsInt("-pgx_device_copy_threads", "Host threads of a staged copy (0: the cores available, shared by the node's ranks, at most 8)", "PGXCopySetConfig", c.threads, &c.threads, NULL));
  PetscCall(PetscOptionsInt("-pgx_device_copy_threshold", "Bytes from which a host-device copy is staged or registered", "PGXCopySetConfig", c.threshold, &c.threshold, NULL));
  PetscCall(PetscOptionsInt("-pgx_device_copy_chunk", "Bytes of one pinned staging buffer", "PGXCopySetConfig", c.chunk, &c.chunk, NULL));
  PetscCall(PetscOptionsInt("-pgx_device_copy_buffers", "Pinned staging buffers", "PGXCopySetConfig", c.buffers, &c.buffers, NULL));
  PetscOptionsEnd();
  PetscCall(PGXCopySetConfig(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

size_t PGXCopyChunkFor(size_t bytes, size_t bufsize)
{
  size_t c = (bytes + 3) / 4;
  c        = (c + 4095) & ~(size_t)4095;
  c        = std::max(c, (size_t)256 << 10);
  return std::max((size_t)1, std::min(c, bufsize));
}

/* ------------------------------------------------------------------------------------- thread pool */
namespace
{
struct Pool {
  std::mutex               m;
  std::condition_variable  work, done;
  std::vector<std::thread> threads;
  unsigned long            gen  = 0; /* job number */
  bool                     stop = false;
  void (*fn)(void *, PetscInt, PetscInt) = nullptr;
  void    *arg     = nullptr;
  PetscInt nparts  = 0;
  PetscInt pending = 0; /* pool parts of the current job not finished */
};
Pool       pool;
std::mutex poolbusy; /* held by the thread whose job the pool runs */
PetscBool  poolfinalize = PETSC_FALSE;

/* pool thread id (1, 2, ...) runs part id of each job that has one */
void Worker(PetscInt id, unsigned long seen)
{
  std::unique_lock<std::mutex> l(pool.m);
  for (;;) {
    pool.work.wait(l, [&] { return pool.stop || pool.gen != seen; });
    if (pool.stop) return;
    seen                                  = pool.gen;
    const PetscInt np                     = pool.nparts;
    void (*fn)(void *, PetscInt, PetscInt) = pool.fn;
    void *arg                             = pool.arg;
    if (id >= np) continue;
    l.unlock();
    fn(arg, id, np);
    l.lock();
    if (--pool.pending == 0) pool.done.notify_one();
  }
}

PetscErrorCode PoolFinalize(void)
{
  PetscFunctionBegin;
  PetscCall(PGXThreadPoolDestroy());
  poolfinalize = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/*@C
  PGXThreadPoolRun - Runs fn(arg, p, nparts) for p = 0, ..., nparts - 1 at the same time: part 0 on the calling
  thread, the others on PGX's pool threads (started when first needed, joined at `PetscFinalize()`); returns when
  all parts are done.

  Not Collective

  Input Parameters:
+ nparts - the parts (1..64; 1 runs fn on the caller only)
. fn     - the work; it must not call PETSc (it runs outside PETSc's thread)
- arg    - its argument

  Note:
  A job submitted while the pool runs another (from another thread, or from inside a part) runs all its parts on its
  caller, one after the other.

  Level: developer

.seealso: `PGXStagedCopy()`
@*/
PetscErrorCode PGXThreadPoolRun(PetscInt nparts, void (*fn)(void *, PetscInt, PetscInt), void *arg)
{
  PetscFunctionBegin;
  PetscCheck(nparts >= 1 && nparts <= PGX_COPY_MAX_THREADS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Thread pool job of %" PetscInt_FMT " parts (1..%d)", nparts, PGX_COPY_MAX_THREADS);
  std::unique_lock<std::mutex> busy(poolbusy, std::try_to_lock);
  if (nparts == 1 || !busy.owns_lock()) { /* one part, or the pool serves another thread's job: every part here */
    for (PetscInt p = 0; p < nparts; p++) fn(arg, p, nparts);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    std::unique_lock<std::mutex> l(pool.m);
    try {
      while ((PetscInt)pool.threads.size() < nparts - 1) pool.threads.emplace_back(Worker, (PetscInt)pool.threads.size() + 1, pool.gen);
    } catch (...) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SYS, "Could not start the thread pool's thread %zu", pool.threads.size() + 1);
    }
    pool.fn      = fn;
    pool.arg     = arg;
    pool.nparts  = nparts;
    pool.pending = nparts - 1;
    pool.gen++;
  }
  pool.work.notify_all();
  fn(arg, 0, nparts);
  {
    std::unique_lock<std::mutex> l(pool.m);
    pool.done.wait(l, [] { return pool.pending == 0; });
  }
  if (!poolfinalize) {
    poolfinalize = PETSC_TRUE;
    PetscCall(PetscRegisterFinalize(PoolFinalize));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXThreadPoolGetSize(PetscInt *n)
{
  PetscFunctionBegin;
  std::lock_guard<std::mutex> l(pool.m);
  *n = (PetscInt)pool.threads.size();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXThreadPoolDestroy(void)
{
  PetscFunctionBegin;
  {
    std::lock_guard<std::mutex> l(pool.m);
    pool.stop = true;
  }
  pool.work.notify_all();
  for (auto &t : pool.threads) t.join();
  pool.threads.clear();
  pool.stop = false;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------- pitched layouts */
namespace
{
struct LayoutJob {
  const PGXHostLayout *L;
  size_t               off, len;
  char                *lin;
  int                  dir;
};

/* bytes [off, off + len) of the contiguous image <-> lin, row piece by row piece */
void LayoutRange(const PGXHostLayout *L, size_t off, size_t len, char *lin, int dir)
{
  if (L->height <= 1 || L->pitch == L->width) { /* contiguous */
    if (dir == 0) memcpy(lin, L->host + off, len);
    else memcpy(L->host + off, lin, len);
    return;
  }
  size_t done = 0;
  while (done < len) {
    const size_t p = off + done, r = p / L->width, c = p % L->width, k = std::min(L->width - c, len - done);
    char        *h = L->host + r * L->pitch + c;
    if (dir == 0) memcpy(lin + done, h, k);
    else memcpy(h, lin + done, k);
    done += k;
  }
}

/* part p of np: a contiguous share of the range, its bounds at multiples of 4 KiB (pages of the linear buffer) */
void LayoutPart(void *a, PetscInt p, PetscInt np)
{
  const LayoutJob *J    = (const LayoutJob *)a;
  const size_t     unit = 4096, units = (J->len + unit - 1) / unit;
  size_t           b    = std::min(J->len, (units * (size_t)p / (size_t)np) * unit);
  size_t           e    = std::min(J->len, (units * (size_t)(p + 1) / (size_t)np) * unit);
  if (e > b) LayoutRange(J->L, J->off + b, e - b, J->lin + b, J->dir);
}
} // namespace

PetscErrorCode PGXHostLayoutCopy(const PGXHostLayout *L, size_t off, size_t len, void *lin, int dir, PetscInt threads)
{
  LayoutJob J = {L, off, len, (char *)lin, dir};

  PetscFunctionBegin;
  if (!len) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(L->pitch >= L->width || L->height <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Pitch %zu < width %zu", L->pitch, L->width);
  PetscCheck(off + len <= L->width * L->height, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Bytes [%zu, %zu) are outside a %zu x %zu layout", off, off + len, L->height, L->width);
  threads = PetscMax(1, PetscMin(threads, (PetscInt)((len + 4095) / 4096))); /* every part at least a page */
  PetscCall(PGXThreadPoolRun(threads, LayoutPart, &J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXStagedCopy - Copies a pitched host array to or from the device through staging buffers, packing or unpacking
  each chunk with host threads while the backend transfers others (the pipeline of pgx/private/pgxcopy.h).

  Not Collective

  Input Parameters:
+ dir     - `PGX_COPY_H2D` or `PGX_COPY_D2H`
. L       - the host array's layout
. bufs    - nbuf staging buffers of at least chunk bytes each
. nbuf    - their number (at least 1)
. chunk   - the chunk size in bytes
. threads - host threads packing or unpacking one chunk (the caller included)
- ops     - the backend's transfer and wait

  Note:
  On return the host array may be reused (H2D) or holds the data (D2H); the transfers of an H2D copy may still
  run (the backend orders its later work after them).

  Level: developer

.seealso: `PGXThreadPoolRun()`, `PGXDeviceCopyToDevice()`
@*/
PetscErrorCode PGXStagedCopy(PGXCopyDirection dir, const PGXHostLayout *L, char *const bufs[], PetscInt nbuf, size_t chunk, PetscInt threads, const PGXStageOps *ops)
{
  const size_t total = L->width * L->height;

  PetscFunctionBegin;
  PetscCheck(nbuf >= 1 && chunk >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Staged copy with %" PetscInt_FMT " buffers of %zu bytes", nbuf, chunk);
  if (!total) PetscFunctionReturn(PETSC_SUCCESS);
  const size_t nc = (total + chunk - 1) / chunk;
  if (dir == PGX_COPY_H2D) {
    for (size_t c = 0; c < nc; c++) {
      const PetscInt b   = (PetscInt)(c % (size_t)nbuf);
      const size_t   off = c * chunk, len = std::min(chunk, total - off);
      PetscCall(ops->wait(ops->ctx, b));
      PetscCall(PGXHostLayoutCopy(L, off, len, bufs[b], 0, threads));
      PetscCall(ops->transfer(ops->ctx, dir, b, off, len));
    }
  } else {
    for (size_t c = 0; c < nc && c < (size_t)nbuf; c++) {
      const size_t off = c * chunk;
      PetscCall(ops->wait(ops->ctx, (PetscInt)c));
      PetscCall(ops->transfer(ops->ctx, dir, (PetscInt)c, off, std::min(chunk, total - off)));
    }
    for (size_t c = 0; c < nc; c++) {
      const PetscInt b   = (PetscInt)(c % (size_t)nbuf);
      const size_t   off = c * chunk, len = std::min(chunk, total - off);
      PetscCall(ops->wait(ops->ctx, b));
      PetscCall(PGXHostLayoutCopy(L, off, len, bufs[b], 1, threads));
      if (c + nbuf < nc) {
        const size_t off2 = (c + nbuf) * chunk;
        PetscCall(ops->transfer(ops->ctx, dir, b, off2, std::min(chunk, total - off2)));
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
