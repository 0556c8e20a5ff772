/* bench/sytrd/bench_stedc: PGX's divide and conquer for a symmetric tridiagonal T alone, with eigenvectors
   (PGXTridiagonalEigenDC), on the host backend (reference kernels: the eigenvector gemms in the host BLAS) or on
   cuda, for each size and each number of host threads; every row after the first of a size is checked bitwise
   against the first. Run with -info for the seconds of each phase of the merges (level by level).
   Options: -sizes 2048,4096 -threads 1,2 -type weak|random|wilkinson -pgx_device host|cuda -reps 1 -seed 1
   T: weak (default): e = 1, d uniform in [-0.1, 0.1] (weak disorder: delocalized eigenvectors, few deflations,
   like the T of a random dense matrix: the secular equations and the gemms dominate); random: d, e uniform in
   [-1, 1] (localized eigenvectors: most eigenpairs deflate); wilkinson: glued Wilkinson W21+ blocks (d = |10 - j|,
   e = 1, glue 1e-10; close pairs, many deflations). */
#include <pgx/sytrd.h>
#include <petsctime.h>
#include <string.h>

/* before the threads argument (built against an older PGX for a baseline: threads are ignored there) */
#if defined(PGX_STEDC_MAX_THREADS)
  #define DC(dev, t, n, d, e, Z, st) PGXTridiagonalEigenDC(dev, 0, t, n, d, e, Z, n, st)
#else
  #define DC(dev, t, n, d, e, Z, st) PGXTridiagonalEigenDC(dev, 0, n, d, e, Z, n, st)
#endif

int main(int argc, char **argv)
{
  PetscInt      sizes[16] = {2048, 4096}, nsizes = 16, threads[16] = {1, 2}, nthreads = 16, reps = 1, seed = 1;
  PetscBool     flg;
  char          type[32] = "weak", devs[16] = "host";
  PGXDeviceType dev;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-sizes", sizes, &nsizes, &flg));
  if (!flg) nsizes = 2;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-threads", threads, &nthreads, &flg));
  if (!flg) nthreads = 2;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pgx_device", devs, sizeof(devs), NULL));
  PetscCall(PGXDeviceResolve(PETSC_COMM_SELF, !strcmp(devs, "cuda") ? PGX_DEVICE_CUDA : PGX_DEVICE_HOST, &dev));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "divide and conquer for T alone with vectors, %s T, backend %s, best of %d\n", type, dev == PGX_DEVICE_CUDA ? "cuda" : "host (reference kernels, host BLAS)", (int)reps));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6s %7s %10s %8s %8s %9s %9s  %s\n", "n", "threads", "seconds", "host s", "merges", "secular%", "GFLOP/s", "check"));
  for (PetscInt s = 0; s < nsizes; s++) {
    PetscInt     n = sizes[s];
    PetscReal   *d, *e, *dd, *ee, *w0, *Z0, *Z;
    PetscRandom  r;
    PetscCall(PetscMalloc7(n, &d, n, &e, n, &dd, n, &ee, n, &w0, (size_t)n * n, &Z0, (size_t)n * n, &Z));
    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
    PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
    PetscCall(PetscRandomSetSeed(r, (unsigned long)seed));
    PetscCall(PetscRandomSeed(r));
    for (PetscInt i = 0; i < n; i++) {
      PetscReal a, b;
      PetscCall(PetscRandomGetValueReal(r, &a));
      PetscCall(PetscRandomGetValueReal(r, &b));
      if (!strcmp(type, "wilkinson")) {
        d[i] = PetscAbsReal(10.0 - (PetscReal)(i % 21));
        e[i] = (i % 21 == 20) ? 1e-10 : 1.0;
      } else if (!strcmp(type, "weak")) {
        d[i] = 0.1 * a;
        e[i] = 1.0;
      } else d[i] = a, e[i] = b;
    }
    PetscCall(PetscRandomDestroy(&r));
    for (PetscInt t = 0; t < nthreads; t++) {
      PetscLogDouble best = 1e300, t0, t1;
      PGXStedcStats  st;
      for (PetscInt k = 0; k < reps; k++) {
        PetscCall(PetscArraycpy(dd, d, n));
        PetscCall(PetscArraycpy(ee, e, n));
        PetscCall(PetscTime(&t0));
        PetscCall(DC(dev, threads[t], n, dd, ee, Z, &st));
        PetscCall(PetscTime(&t1));
        best = PetscMin(best, t1 - t0);
      }
      const char *check = "";
      if (!t) {
        PetscCall(PetscArraycpy(w0, dd, n));
        PetscCall(PetscArraycpy(Z0, Z, (size_t)n * n));
      } else check = !memcmp(w0, dd, n * sizeof(PetscReal)) && !memcmp(Z0, Z, (size_t)n * n * sizeof(PetscReal)) ? "bitwise equal to the first row" : "DIFFERS from the first row";
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %7d %10.3f %8.3f %8d %8.0f%% %9.2f  %s\n", (int)n, (int)threads[t], best, st.thost, (int)st.merges, 100.0 * st.secular / PetscMax(1, st.secular + st.deflated), st.flops / best / 1e9, check));
    }
    PetscCall(PetscFree7(d, e, dd, ee, w0, Z0, Z));
  }
  PetscCall(PetscFinalize());
  return 0;
}
