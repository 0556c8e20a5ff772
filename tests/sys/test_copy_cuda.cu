static char help[] = "Host <-> device copies through every path of PGXCUDACopy2D() (plain, staged at 1, 2, 5 threads, register, auto;\n"
                     "pageable and pinned host memory), odd sizes and pitched layouts, both ways, compared bitwise; also\n"
                     "PGXDeviceCopyToDevice/ToHost, and staged host-to-device copies left unsynchronized back to back (the staging\n"
                     "buffers' reuse). Small chunks and a small threshold force many chunks. Needs a GPU.\n";
#include <pgx/private/pgxcuda.h>
#include <vector>
#include <string.h>
#include "../common/pgxtest.h"

static PetscInt           nfail = 0;
static unsigned long long rng   = 12345;

static void Fill(char *p, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    rng  = rng * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = (char)(rng >> 33);
  }
}

/* host (pitched) -> device -> a poisoned host copy; the device image checked through a plain copy */
static PetscErrorCode RoundTrip(const char *what, size_t width, size_t height, size_t pitch, PetscBool pinned)
{
  const size_t total = width * height, hbytes = (height - 1) * pitch + width;
  char        *h = nullptr, *back = nullptr, *d = nullptr;
  std::vector<char> img(total);

  PetscFunctionBegin;
  if (pinned) {
    PGXCallCUDA(cudaMallocHost((void **)&h, hbytes));
    PGXCallCUDA(cudaMallocHost((void **)&back, hbytes));
  } else {
    h    = (char *)malloc(hbytes);
    back = (char *)malloc(hbytes);
  }
  PGXCallCUDA(cudaMalloc((void **)&d, total));
  Fill(h, hbytes);
  memset(back, 0x3C, hbytes);
  PGXCallCUDA(cudaMemset(d, 0x77, total));
  PGXCallCUDA(cudaDeviceSynchronize());
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, d, h, width, height, pitch, NULL, PETSC_TRUE));
  PGXCallCUDA(cudaMemcpy(img.data(), d, total, cudaMemcpyDeviceToHost));
  size_t wrong = 0, gaps = 0;
  for (size_t r = 0; r < height; r++) wrong += memcmp(img.data() + r * width, h + r * pitch, width) != 0;
  CHECK(!wrong, "%s: H2D %zu x %zu (pitch %zu, %s): %zu rows differ", what, height, width, pitch, pinned ? "pinned" : "pageable", wrong);
  PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, d, back, width, height, pitch, NULL, PETSC_TRUE));
  wrong = 0;
  for (size_t r = 0; r < height; r++) {
    wrong += memcmp(back + r * pitch, h + r * pitch, width) != 0;
    for (size_t c = width; r + 1 < height && c < pitch; c++) gaps += back[r * pitch + c] != (char)0x3C;
  }
  CHECK(!wrong && !gaps, "%s: D2H %zu x %zu (pitch %zu, %s): %zu rows differ, %zu gap bytes written", what, height, width, pitch, pinned ? "pinned" : "pageable", wrong, gaps);
  PGXCallCUDA(cudaFree(d));
  if (pinned) {
    PGXCallCUDA(cudaFreeHost(h));
    PGXCallCUDA(cudaFreeHost(back));
  } else {
    free(h);
    free(back);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* several staged H2D copies without a synchronization, then the device checked: the staging buffers are reused
   only after their transfers; then PGXDeviceCopyToDevice/ToHost */
static PetscErrorCode BackToBack(const char *what)
{
  const size_t            n = (3 << 20) + 4093, k = 5;
  std::vector<char>       h(n * k), back(n * k, 0);
  char                   *d = nullptr;

  PetscFunctionBegin;
  Fill(h.data(), h.size());
  PGXCallCUDA(cudaMalloc((void **)&d, n * k));
  for (size_t j = 0; j < k; j++) PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, d + j * n, h.data() + j * n, n, 1, n, NULL, PETSC_FALSE));
  PetscCall(PGXDeviceCopyToHost(back.data(), d, n * k));
  CHECK(!memcmp(back.data(), h.data(), n * k), "%s: back-to-back unsynchronized H2D copies differ", what);
  Fill(h.data(), n);
  PetscCall(PGXDeviceCopyToDevice(d + 1, h.data(), n - 1)); /* odd offset and length */
  PetscCall(PGXDeviceCopyToHost(back.data() + 1, d + 1, n - 1));
  CHECK(!memcmp(back.data() + 1, h.data(), n - 1), "%s: PGXDeviceCopyToDevice/ToHost at an odd offset differ", what);
  PGXCallCUDA(cudaFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PGXCopyConfig c0, c;
  struct {
    const char *name;
    PGXCopyMode mode;
    PetscInt    threads, chunk, buffers;
  } cfgs[] = {
    {"plain", PGX_COPY_PLAIN, 1, 1 << 20, 2},         {"staged/1", PGX_COPY_STAGED, 1, 1 << 20, 2}, {"staged/2", PGX_COPY_STAGED, 2, 300000, 2},
    {"staged/5", PGX_COPY_STAGED, 5, 1 << 20, 3},     {"staged/4k", PGX_COPY_STAGED, 3, 4096, 4},    {"register", PGX_COPY_REGISTER, 1, 1 << 20, 2},
    {"auto", PGX_COPY_AUTO, 0, 8 << 20, 3},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PGXCopyGetConfig(&c0));
  for (auto &f : cfgs) {
    c           = c0;
    c.mode      = f.mode;
    c.threads   = f.threads;
    c.chunk     = f.chunk;
    c.buffers   = f.buffers;
    c.threshold = 4096;
    PetscCall(PGXCopySetConfig(&c));
    for (PetscBool pinned : {PETSC_FALSE, PETSC_TRUE}) {
      PetscCall(RoundTrip(f.name, 1, 1, 1, pinned));
      PetscCall(RoundTrip(f.name, 4095, 1, 4095, pinned));   /* below the threshold */
      PetscCall(RoundTrip(f.name, 4097, 1, 4097, pinned));   /* just above */
      PetscCall(RoundTrip(f.name, (5 << 20) + 13, 1, 0, pinned));
      PetscCall(RoundTrip(f.name, 8 * 1000, 777, 8 * 1003, pinned)); /* a matrix with ld > n */
      PetscCall(RoundTrip(f.name, 8 * 2049, 301, 8 * 2049, pinned)); /* ld = n */
      PetscCall(RoundTrip(f.name, 24, 5000, 40, pinned));             /* narrow rows */
    }
    PetscCall(BackToBack(f.name));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-10s: odd sizes and pitches, both ways, pageable and pinned: checked\n", f.name));
  }
  PetscCall(PGXCopySetConfig(&c0));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
