/* bench/copy: host <-> device copy bandwidth, GB/s (10^9 bytes / wall-clock second, the copy complete), for the
   paths of PGXCUDACopy2D() (pgx/private/pgxcopy.h) against CUDA's own:
   - pageable: one cudaMemcpyAsync from/to malloc'd (touched) memory, then a stream synchronization (the driver stages it);
   - pinned:   the same from/to cudaMallocHost memory (the link's speed; what no pageable path can beat);
   - staged/T: PGX's pipeline, T host threads packing/unpacking pinned chunks while the DMA of others runs
               (-threads 1,2,4,8,16; -chunk bytes per buffer, -buffers count: default the library's);
   - register: cudaHostRegister of the caller's array, one copy, cudaHostUnregister (all three timed);
   - auto:     PGXDeviceCopyToDevice/ToHost with the library's default configuration (what PGX's callers get).
   For each size (-sizes in MiB, default 1,4,8,16,64,256,1024,2048) and direction (h2d, d2h): best and median of
   -reps (default 3) after one untimed warm-up. Before timing, every path copies an odd size (17 MiB + 12345 bytes)
   both ways and is compared bitwise. -fresh 1: each d2h goes into newly allocated (untouched) host memory (the
   first-touch page faults included, as for a result array allocated just before).
   Run on the GPU host: build/bench/copy/bench_copy [-sizes 1,8,64,2048] [-threads 1,2,4,8,16] [-reps 3] */
#include <pgx/private/pgxcuda.h>
#include <petsctime.h>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>
#include <string.h>

/* best and median seconds of run() over reps calls after one warm-up; prep() (may be empty) untimed before each */
static PetscErrorCode Time(PetscInt reps, const std::function<PetscErrorCode()> &prep, const std::function<PetscErrorCode()> &run, double *best, double *med)
{
  std::vector<double> t;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < reps + 1; i++) {
    PetscLogDouble t0, t1;
    if (prep) PetscCall(prep());
    PGXCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t0));
    PetscCall(run());
    PGXCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t1));
    if (i > 0) t.push_back(t1 - t0);
  }
  std::sort(t.begin(), t.end());
  *best = t[0];
  *med  = t[t.size() / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct Method {
  std::string name;
  PGXCopyMode mode;    /* for the PGX paths */
  PetscInt    threads; /* staged */
  int         kind;    /* 0 pageable cudaMemcpy, 1 pinned cudaMemcpy, 2 PGXCUDACopy2D with mode/threads, 3 library default */
};

int main(int argc, char **argv)
{
  PetscInt              sizes[32], nsizes = 32, threads[32], nthreads = 32, reps = 3, chunk = 0, buffers = 0;
  PetscBool             fresh = PETSC_FALSE, set;
  PGXCopyConfig         def;
  cudaStream_t          s;
  const cudaDeviceProp *prop;
  std::vector<Method>   methods;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "Host <-> device copy bandwidth of PGX's copy paths (see the source's header)\n"));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-sizes", sizes, &nsizes, &set));
  if (!set) {
    const PetscInt d[] = {1, 4, 8, 16, 64, 256, 1024, 2048};
    nsizes             = 8;
    for (PetscInt i = 0; i < nsizes; i++) sizes[i] = d[i];
  }
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-threads", threads, &nthreads, &set));
  if (!set) {
    const PetscInt d[] = {1, 2, 4, 8, 16};
    nthreads           = 5;
    for (PetscInt i = 0; i < nthreads; i++) threads[i] = d[i];
  }
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-chunk", &chunk, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-buffers", &buffers, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-fresh", &fresh, NULL));
  PetscCall(PGXCopyGetConfig(&def));
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(PGXCUDAGetDeviceProperties(&prop));
  {
    char host[256] = "";
    PetscCall(PetscGetHostName(host, sizeof(host)));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# bench_copy on %s: %s (PCIe %d-bit bus); default copy config: mode %s, %d threads, threshold %d B, %d buffers of %d B%s\n", host, prop->name, prop->memoryBusWidth, PGXCopyModes[def.mode], (int)def.threads, (int)def.threshold, (int)def.buffers, (int)def.chunk, fresh ? "; d2h into fresh memory" : ""));
  }
  methods.push_back({"pageable", PGX_COPY_PLAIN, 1, 0});
  methods.push_back({"pinned", PGX_COPY_PLAIN, 1, 1});
  for (PetscInt i = 0; i < nthreads; i++) methods.push_back({"staged/" + std::to_string((int)threads[i]), PGX_COPY_STAGED, threads[i], 2});
  methods.push_back({"register", PGX_COPY_REGISTER, 1, 2});
  methods.push_back({"auto", def.mode, def.threads, 3});

  size_t maxb = 0;
  for (PetscInt i = 0; i < nsizes; i++) maxb = std::max(maxb, (size_t)sizes[i] << 20);
  maxb = std::max(maxb, ((size_t)17 << 20) + 12345);
  char *h = (char *)malloc(maxb), *h2 = (char *)malloc(maxb), *p = nullptr, *d = nullptr;
  PetscCheck(h && h2, PETSC_COMM_SELF, PETSC_ERR_MEM, "Could not allocate 2 x %zu host bytes", maxb);
  PGXCallCUDA(cudaMallocHost((void **)&p, maxb));
  PGXCallCUDA(cudaMalloc((void **)&d, maxb));
  for (size_t i = 0; i < maxb; i++) h[i] = (char)(i * 2654435761u >> 13);
  memset(h2, 0, maxb);
  memcpy(p, h, maxb);

  /* one copy of `bytes` by method m; dst of d2h: hd (pageable) */
  auto copy = [&](const Method &m, int dir, size_t bytes, char *hp) -> PetscErrorCode {
    PetscFunctionBegin;
    char *hm = m.kind == 1 ? p : hp;
    if (m.kind <= 1) {
      if (dir == 0) PGXCallCUDA(cudaMemcpyAsync(d, hm, bytes, cudaMemcpyHostToDevice, s));
      else PGXCallCUDA(cudaMemcpyAsync(hm, d, bytes, cudaMemcpyDeviceToHost, s));
      PGXCallCUDA(cudaStreamSynchronize(s));
    } else if (m.kind == 2) {
      PetscCall(PGXCUDACopy2D(dir == 0 ? PGX_COPY_H2D : PGX_COPY_D2H, d, hm, bytes, 1, bytes, s, PETSC_TRUE));
    } else {
      if (dir == 0) PetscCall(PGXDeviceCopyToDevice(d, hm, bytes));
      else PetscCall(PGXDeviceCopyToHost(hm, d, bytes));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  auto configure = [&](const Method &m) -> PetscErrorCode {
    PGXCopyConfig c = def;
    PetscFunctionBegin;
    if (m.kind == 2) {
      c.mode      = m.mode;
      c.threads   = m.threads;
      c.threshold = 0;
    }
    if (chunk > 0) c.chunk = chunk;
    if (buffers > 0) c.buffers = buffers;
    PetscCall(PGXCopySetConfig(&c));
    PetscFunctionReturn(PETSC_SUCCESS);
  };

  /* correctness of every path on an odd size */
  {
    const size_t odd = ((size_t)17 << 20) + 12345;
    for (const Method &m : methods) {
      PetscCall(configure(m));
      if (m.kind == 1) memcpy(p, h, odd);
      PGXCallCUDA(cudaMemset(d, 0, odd));
      PetscCall(copy(m, 0, odd, h));
      memset(h2, 0, odd);
      if (m.kind == 1) memset(p, 0, odd);
      PetscCall(copy(m, 1, odd, h2));
      const char *got = m.kind == 1 ? p : h2;
      PetscCheck(!memcmp(got, h, odd), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the round trip of %zu bytes differs", m.name.c_str(), odd);
    }
    memcpy(p, h, maxb);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# every path: a round trip of %zu bytes bitwise equal\n", odd));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%10s %4s %-10s %9s %9s %10s\n", "MiB", "dir", "method", "GB/s best", "GB/s med", "ms med"));
  for (PetscInt i = 0; i < nsizes; i++) {
    const size_t bytes = (size_t)sizes[i] << 20;
    for (int dir = 0; dir < 2; dir++)
      for (const Method &m : methods) {
        double best, med;
        PetscCall(configure(m));
        if (dir == 1 && fresh && m.kind != 1) {
          char *fresh_h = nullptr;
          PetscCall(Time(
            reps,
            [&]() -> PetscErrorCode {
              PetscFunctionBegin;
              free(fresh_h);
              fresh_h = (char *)malloc(bytes); /* untouched pages (an mmap for large sizes) */
              PetscCheck(fresh_h, PETSC_COMM_SELF, PETSC_ERR_MEM, "malloc");
              PetscFunctionReturn(PETSC_SUCCESS);
            },
            [&]() -> PetscErrorCode { return copy(m, dir, bytes, fresh_h); }, &best, &med));
          free(fresh_h);
        } else PetscCall(Time(reps, nullptr, [&]() -> PetscErrorCode { return copy(m, dir, bytes, dir == 0 ? h : h2); }, &best, &med));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%10d %4s %-10s %9.2f %9.2f %10.3f\n", (int)sizes[i], dir == 0 ? "h2d" : "d2h", m.name.c_str(), bytes / best * 1e-9, bytes / med * 1e-9, med * 1e3));
      }
  }
  PetscCall(PGXCopySetConfig(&def));
  PGXCallCUDA(cudaFree(d));
  PGXCallCUDA(cudaFreeHost(p));
  free(h);
  free(h2);
  PetscCall(PetscFinalize());
  return 0;
}
