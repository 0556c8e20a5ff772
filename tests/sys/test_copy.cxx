static char help[] = "Host tests of the large-copy machinery (pgx/private/pgxcopy.h), no GPU needed:\n"
                     "  the thread pool (every part runs once, on distinct threads, job after job), the chunk rule, and the staging\n"
                     "  pipeline PGXStagedCopy() both ways on pitched layouts of odd sizes, against a backend whose transfers are\n"
                     "  deferred until the pipeline waits for them (the slowest a stream may be): a buffer reused before its wait, or\n"
                     "  unpacked before it, gives wrong bytes. Results compared bitwise; pitch gaps must stay untouched.\n"
                     "  -cases <n> random layouts (default 400), -seed <s>\n";
#include <pgx/private/pgximpl.h>
#include <pgx/private/pgxcopy.h>
#include <atomic>
#include <thread>
#include <vector>
#include <set>
#include <mutex>
#include <string.h>
#include "../common/pgxtest.h"

static PetscInt nfail = 0;

/* ------------------------------------------------------------------ pool */
struct PoolProbe {
  std::atomic<int>            count[64];
  std::mutex                  m;
  std::set<std::thread::id>   ids;
};

static void ProbePart(void *a, PetscInt p, PetscInt np)
{
  PoolProbe *P = (PoolProbe *)a;
  P->count[p]++;
  std::lock_guard<std::mutex> l(P->m);
  P->ids.insert(std::this_thread::get_id());
  (void)np;
}

/* part 1 submits a job of 3 parts while the pool runs this one: it must run on part 1's thread, not deadlock */
struct Nested {
  PoolProbe outer, inner;
  int       err = 0;
};
static void NestedPart(void *a, PetscInt p, PetscInt np)
{
  Nested *N = (Nested *)a;
  ProbePart(&N->outer, p, np);
  if (p == 1) N->err = (int)PGXThreadPoolRun(3, ProbePart, &N->inner);
}

static PetscErrorCode TestPool(void)
{
  PetscInt sz;

  PetscFunctionBegin;
  for (int rep = 0; rep < 50; rep++)
    for (PetscInt np : {1, 2, 3, 7, 16, 5, 1, 17, 2}) {
      PoolProbe P;
      for (auto &c : P.count) c = 0;
      PetscCall(PGXThreadPoolRun(np, ProbePart, &P));
      for (PetscInt p = 0; p < 64; p++) CHECK(P.count[p] == (p < np ? 1 : 0), "pool job of %d parts: part %d ran %d times", (int)np, (int)p, (int)P.count[p]);
      CHECK((PetscInt)P.ids.size() == np, "pool job of %d parts ran on %d distinct threads", (int)np, (int)P.ids.size());
    }
  PetscCall(PGXThreadPoolGetSize(&sz));
  CHECK(sz == 16, "pool threads after jobs of at most 17 parts: %d, expected 16", (int)sz);
  PetscCall(PGXThreadPoolDestroy());
  PetscCall(PGXThreadPoolGetSize(&sz));
  CHECK(sz == 0, "pool threads after destroy: %d", (int)sz);
  { /* restarts after a destroy */
    PoolProbe P;
    for (auto &c : P.count) c = 0;
    PetscCall(PGXThreadPoolRun(4, ProbePart, &P));
    CHECK(P.count[0] == 1 && P.count[3] == 1 && P.count[4] == 0, "pool after restart");
  }
  {
    Nested N;
    for (auto &c : N.outer.count) c = 0;
    for (auto &c : N.inner.count) c = 0;
    PetscCall(PGXThreadPoolRun(4, NestedPart, &N));
    CHECK(!N.err && N.inner.count[0] == 1 && N.inner.count[1] == 1 && N.inner.count[2] == 1 && N.inner.ids.size() == 1, "a job submitted from inside a part: error %d, parts ran %d %d %d times on %d threads (expected once each, on one thread)", N.err, (int)N.inner.count[0], (int)N.inner.count[1], (int)N.inner.count[2], (int)N.inner.ids.size());
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "thread pool: jobs of 1..17 parts, each part once on its own thread\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestChunkRule(void)
{
  const size_t K = 1024, M = K * K;

  PetscFunctionBegin;
  CHECK(PGXCopyChunkFor(1000, 8 * M) == 256 * K, "chunk of 1000 bytes: %zu", PGXCopyChunkFor(1000, 8 * M));
  CHECK(PGXCopyChunkFor(8 * M, 8 * M) == 2 * M, "chunk of 8 MiB: %zu", PGXCopyChunkFor(8 * M, 8 * M));
  CHECK(PGXCopyChunkFor(8 * M + 1, 8 * M) == 2 * M + 4 * K, "chunk of 8 MiB + 1: %zu", PGXCopyChunkFor(8 * M + 1, 8 * M));
  CHECK(PGXCopyChunkFor(2048 * M, 8 * M) == 8 * M, "chunk of 2 GiB: %zu", PGXCopyChunkFor(2048 * M, 8 * M));
  CHECK(PGXCopyChunkFor(2048 * M, 100 * K) == 100 * K, "chunk capped by a buffer of 100 KiB: %zu", PGXCopyChunkFor(2048 * M, 100 * K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ pipeline against a deferred backend */
struct Deferred {
  char                                *dev;
  std::vector<char *>                  bufs;
  std::vector<int>                     pending; /* per buffer: -1 none, else direction */
  std::vector<size_t>                  off, len;
  size_t                               transfers = 0, waits = 0, bad = 0;
};

static void Run(Deferred *D, PetscInt b)
{
  if (D->pending[b] < 0) return;
  if (D->pending[b] == PGX_COPY_H2D) memcpy(D->dev + D->off[b], D->bufs[b], D->len[b]);
  else memcpy(D->bufs[b], D->dev + D->off[b], D->len[b]);
  D->pending[b] = -1;
}

static PetscErrorCode DTransfer(void *a, PGXCopyDirection dir, PetscInt b, size_t off, size_t len)
{
  Deferred *D = (Deferred *)a;
  if (D->pending[b] >= 0) D->bad++; /* a buffer started again before its last transfer was waited for */
  D->pending[b] = (int)dir;
  D->off[b]     = off;
  D->len[b]     = len;
  D->transfers++;
  return PETSC_SUCCESS;
}

static PetscErrorCode DWait(void *a, PetscInt b)
{
  Deferred *D = (Deferred *)a;
  Run(D, b);
  D->waits++;
  return PETSC_SUCCESS;
}

static unsigned long long rng;
static unsigned long long Next(void)
{
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return rng >> 17;
}

static PetscErrorCode OneCase(size_t width, size_t height, size_t pitch, size_t chunk, PetscInt nbuf, PetscInt threads, int verbose)
{
  const size_t      total = width * height, hbytes = height ? (height - 1) * pitch + width : 0;
  std::vector<char> host(hbytes + 64), dev(total + 64, 0), back(hbytes + 64);
  Deferred          D;
  PGXStageOps       ops = {&D, DTransfer, DWait};
  PGXHostLayout     L   = {host.data(), width, height, pitch};

  PetscFunctionBegin;
  for (auto &c : host) c = (char)Next();
  for (auto &c : dev) c = (char)0x5A;
  D.dev = dev.data();
  std::vector<std::vector<char>> store(nbuf, std::vector<char>(chunk, (char)0xA5));
  for (PetscInt b = 0; b < nbuf; b++) D.bufs.push_back(store[b].data());
  D.pending.assign(nbuf, -1);
  D.off.assign(nbuf, 0);
  D.len.assign(nbuf, 0);
  /* host -> device, then the "stream" drains */
  PetscCall(PGXStagedCopy(PGX_COPY_H2D, &L, D.bufs.data(), nbuf, chunk, threads, &ops));
  for (PetscInt b = 0; b < nbuf; b++) Run(&D, b);
  size_t wrong = 0;
  for (size_t r = 0; r < height; r++) wrong += memcmp(dev.data() + r * width, host.data() + r * pitch, width) != 0;
  for (size_t i = total; i < dev.size(); i++) wrong += dev[i] != (char)0x5A;
  CHECK(!wrong && !D.bad, "H2D %zu x %zu (pitch %zu), chunk %zu, %d buffers, %d threads: %zu rows wrong, %zu buffers restarted unwaited", height, width, pitch, chunk, (int)nbuf, (int)threads, wrong, D.bad);
  CHECK(D.transfers == (total + chunk - 1) / chunk, "H2D: %zu transfers for %zu chunks", D.transfers, (total + chunk - 1) / chunk);
  /* device -> a poisoned host copy with the same layout */
  for (auto &c : back) c = (char)0x3C;
  PGXHostLayout L2 = {back.data(), width, height, pitch};
  D.transfers      = 0;
  for (PetscInt b = 0; b < nbuf; b++) memset(D.bufs[b], 0xA5, chunk);
  PetscCall(PGXStagedCopy(PGX_COPY_D2H, &L2, D.bufs.data(), nbuf, chunk, threads, &ops));
  for (PetscInt b = 0; b < nbuf; b++) CHECK(D.pending[b] < 0, "D2H returned with buffer %d's transfer not waited for", (int)b);
  wrong = 0;
  size_t gaps = 0;
  for (size_t r = 0; r < height; r++) {
    wrong += memcmp(back.data() + r * pitch, host.data() + r * pitch, width) != 0;
    for (size_t c = width; r + 1 < height && c < pitch; c++) gaps += back[r * pitch + c] != (char)0x3C;
  }
  for (size_t i = hbytes; i < back.size(); i++) gaps += back[i] != (char)0x3C;
  CHECK(!wrong && !gaps && !D.bad, "D2H %zu x %zu (pitch %zu), chunk %zu, %d buffers, %d threads: %zu rows wrong, %zu gap bytes written, %zu restarts", height, width, pitch, chunk, (int)nbuf, (int)threads, wrong, gaps, D.bad);
  if (verbose) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %zu x %zu pitch %zu chunk %zu buffers %d threads %d\n", height, width, pitch, chunk, (int)nbuf, (int)threads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestPipeline(PetscInt cases, PetscBool verbose)
{
  const size_t widths[] = {1, 7, 8, 104, 4095, 4096, 5000, 8000, 65536 + 24};
  const size_t heights[] = {1, 2, 3, 37, 300};
  const size_t chunks[] = {1, 3, 4096, 5000, 65536, 1 << 20};
  const size_t pads[]   = {0, 1, 8, 4104};

  PetscFunctionBegin;
  /* fixed corners: one chunk exactly, a chunk larger than everything, one byte */
  PetscCall(OneCase(4096, 4, 4096, 16384, 2, 3, verbose));
  PetscCall(OneCase(4096, 4, 4200, 16384, 3, 4, verbose));
  PetscCall(OneCase(1, 1, 1, 1 << 20, 2, 8, verbose));
  PetscCall(OneCase(3 << 20, 1, 3 << 20, 1 << 20, 2, 5, verbose)); /* pages split among threads */
  PetscCall(OneCase(8 * 2049, 513, 8 * 2100, 262144, 3, 8, verbose)); /* a matrix with ld > n, chunks across columns */
  for (PetscInt k = 0; k < cases; k++) {
    const size_t w = widths[Next() % 9], h = heights[Next() % 5], pad = pads[Next() % 4], ch = chunks[Next() % 6];
    const PetscInt nbuf = 1 + (PetscInt)(Next() % 4), th = 1 + (PetscInt)(Next() % 9);
    if (w * h > (size_t)(4 << 20) || (ch < 4096 && w * h > 65536)) continue;
    PetscCall(OneCase(w, h, w + (h > 1 ? pad : 0), ch, nbuf, th, verbose));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "staged pipeline: %d random layouts both ways, bitwise equal, gaps untouched\n", (int)cases));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestConfig(void)
{
  PGXCopyConfig c, d;
  PetscInt      t;

  PetscFunctionBegin;
  PetscCall(PGXCopyGetConfig(&c));
  PetscCall(PGXCopyDefaultThreads(&t));
  CHECK(t >= 1 && t <= 8, "default threads %d", (int)t);
  CHECK(c.threads >= 1 && c.buffers >= 2 && c.chunk >= 4096, "config threads %d buffers %d chunk %d", (int)c.threads, (int)c.buffers, (int)c.chunk);
  d         = c;
  d.buffers = 1; /* refused */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscErrorCode ierr = PGXCopySetConfig(&d);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "one staging buffer should be refused (got %d)", (int)ierr);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "copy config: mode %s, threshold %d, chunk %d, buffers %d (threads %s)\n", PGXCopyModes[c.mode], (int)c.threshold, (int)c.chunk, (int)c.buffers, t >= 1 ? "ok" : "bad"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  cases = 400, seed = 1;
  PetscBool verbose = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cases", &cases, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-verbose", &verbose, NULL));
  rng = 0x9E3779B97F4A7C15ull * (unsigned long long)(seed + 1);
  PetscCall(TestConfig());
  PetscCall(TestChunkRule());
  PetscCall(TestPool());
  PetscCall(TestPipeline(cases, verbose));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
