/* bench/sytrd: PGX's one-stage tridiagonal reduction (PGXSytrd, cuda backend) against cuSOLVER.

   For each n (-sizes, default 2048,4096,8192,16384,32768, skipped when the device memory does not hold it):
   - reduction: PGXSytrdReduce (device matrix uploaded before, untimed; d, e, tau come back to the host) and
     cusolverDnDsytrd (lower), median of -reps runs; GFLOP/s counted as 4/3 n^3 / time;
   - reduction rows: the fused panel (one cooperative kernel per panel; one row per -bpsm value, blocks per SM)
     and the paper's launches per column;
   - the one-stage bandwidth bound: the symmetric products read the lower triangle of the trailing matrix once
     per column, n^3/6 elements (8 bytes each), at the device-to-device copy bandwidth measured here (cudaMemcpy,
     read + write; until 2026-11-24 this bench counted n^3/3, twice the bound);
     printed beside each time with the fraction bound / time;
   - full eigensolve with all vectors, one row per method of T (-methods dc,stemr; any of auto, stedc, stemr, dc
     as -eps_pgx_tridiag): PGXSytrdSolve (reduction, the tridiagonal eigensolve (dc: divide and conquer with its
     gemms on the GPU, Z_T kept on the device; stemr/stedc: LAPACK on the host), back-transformation on the
     device; host arrays at its interface, so the transfers of A and Z are included) against cusolverDnXsyevd
     (dsyevd through the 64-bit API: the 32-bit cusolverDnDsyevd_bufferSize fails at n = 32768),
     wall-clock seconds (-solve 0 skips it); each row checked: max |w - w_syevd| / max |w| and the residual
     max_j ||A z_j - w_j z_j|| / max |w| of 8 columns;
   - T alone with vectors (-tonly 1): PGXTridiagonalEigenDC (cuda) with its merge statistics against dstemr, on
     the T of the reduction; one row per host thread count of -threads a,b,... (default 0: the cores available,
     at most 16; the first count is also that of the eigensolve rows), each checked bitwise against the first
     (-info prints the seconds of each phase of the merges).
   - the generalized problem A x = lambda B x (-generalized 1; B = R / (2 sqrt(n)) + 2 I, R random symmetric): PGXSytrdSetMatrixB + PGXSytrdSolve
     with all vectors (host arrays at its interface) against cusolverDnDsygvd (itype 1, lower) on device data and
     with its copies; checked: |w - w_sygvd| / max |w|, ||A z - w B z|| / max |w| and |z^T B z - 1| of 8 columns.
   Ablations at n = -ablation_n (default 16384; 0 skips), on the paper's launches panel: symv full vs lower,
   separate vs merged panel gemvs, two rank-b vs one rank-2b update, one stream vs several; each printed as the
   time saved by the launches' default.
   Every PGX result is checked: max | |T_pgx| - |T_cusolver| | over d and |e| relative to max |d|.
   Options: -sizes a,b,... -reps 3 -b 64 -solve 1 -methods dc,stemr -tonly 1 -threads 0 -ablation_n 16384 -seed 1 -warmup 1 -launches 1 -bpsm 3 -bback 256 -back_chunks 8 (rows
   "pgx eig+vec METHOD/BBACK": one per method and back-transformation block)
   EPSSolve against EPSLAPACK and EPSSCALAPACK (whole-program timings with -log_view) are run separately:
   build/tests/eps/test_eps -n N -eps_type pgx|lapack|scalapack -log_view (mpiexec -n 16 for scalapack). */
#include <pgx/private/pgxcuda.h>
#include <pgx/sytrd.h>
#include <petsctime.h>
#include <vector>
#include <algorithm>
#include <cmath>
#include "../common/pgxbench.h"

static PetscInt warmup = 1; /* -warmup: untimed runs of PGX's reduction before the timed ones */
static PetscInt backchunks = PGX_SYTRD_DEFAULT_BACK_CHUNKS; /* -back_chunks: PGXSytrdSetBackChunks of the eigensolve rows */
static PetscBool launches = PETSC_TRUE; /* -launches 0: no row for the paper's launch sequence */
static PetscInt lastblocks = 0; /* blocks of the fused panel's launch in the last TimePGX */

static PetscErrorCode RandomSymmetric(PetscInt n, PetscInt seed, std::vector<double> &A)
{
  PetscFunctionBegin;
  A.resize((size_t)n * n);
  unsigned long long s = 0x9E3779B97F4A7C15ull * (unsigned long long)(seed + 1);
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = j; i < n; i++) {
      s         = s * 6364136223846793005ull + 1442695040888963407ull;
      double v  = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
      A[i + (size_t)j * n] = v;
      A[j + (size_t)i * n] = v;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* device-to-device copy bandwidth in GB/s (bytes read + written) */
static PetscErrorCode CopyBandwidth(double *gbs)
{
  size_t bytes = (size_t)1 << 30;
  void  *a, *b;
  double ms = 1;

  PetscFunctionBegin;
  PGXCallCUDA(cudaMalloc(&a, bytes));
  PGXCallCUDA(cudaMalloc(&b, bytes));
  cudaStream_t s;
  PetscCall(PGXCUDAGetStream(&s));
  PetscCall(PGXBenchMedian(5, [&]() -> PetscErrorCode { PGXCallCUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s)); return PETSC_SUCCESS; }, &ms));
  PGXCallCUDA(cudaFree(a));
  PGXCallCUDA(cudaFree(b));
  *gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* median seconds of PGXSytrdReduce with the given settings (matrix set before each run, untimed) */
static PetscErrorCode TimePGX(PetscInt n, const std::vector<double> &A, PetscInt b, PGXSytrdPanel panel, PetscInt bpsm, PGXSytrdSymv symv, PetscBool merged, PetscBool rank2b, PetscBool streams, PetscInt reps, double *sec, std::vector<double> *d, std::vector<double> *e)
{
  PGXSytrd            S;
  std::vector<double> t;

  PetscFunctionBegin;
  PetscCall(PGXSytrdCreate(PGX_DEVICE_CUDA, &S));
  PetscCall(PGXSytrdSetBlockSize(S, b));
  PetscCall(PGXSytrdSetSymv(S, symv));
  PetscCall(PGXSytrdSetAblation(S, merged, rank2b, streams));
  PetscCall(PGXSytrdSetPanel(S, panel, bpsm));
  for (PetscInt r = 0; r < reps + warmup; r++) {
    PetscLogDouble t0, t1;
    PetscCall(PGXSytrdSetMatrix(S, n, A.data(), n));
    PGXCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t0));
    PetscCall(PGXSytrdReduce(S));
    PetscCall(PetscTime(&t1));
    if (r >= warmup) t.push_back(t1 - t0);
  }
  std::sort(t.begin(), t.end());
  *sec = t[t.size() / 2];
  if (d) {
    const PetscReal *dd, *ee;
    PetscCall(PGXSytrdGetTridiagonal(S, &dd, &ee));
    d->assign(dd, dd + n);
    e->assign(ee, ee + n - 1);
  }
  {
    PGXSytrdPanel used;
    PetscInt      blocks;
    PetscCall(PGXSytrdGetPanel(S, &used, &blocks));
    lastblocks = blocks;
  }
  PetscCall(PGXSytrdDestroy(&S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  sizes[16] = {2048, 4096, 8192, 16384, 32768}, nsizes = 16, reps = 3, b = PGX_SYTRD_DEFAULT_BLOCK, abl = 16384, seed = 1;
  PetscBool flg, solve = PETSC_TRUE, gen = PETSC_FALSE;
  PGXTridiagEigenMethod methods[8] = {PGX_TRIDIAG_EIGEN_DC, PGX_TRIDIAG_EIGEN_STEMR};
  PetscInt              nmethods   = 8;
  PetscBool             tonly      = PETSC_TRUE;
  PetscInt              threads[8] = {0}, nthreads = 8;
  PetscInt              bpsm[8] = {3}, nbpsm = 8; /* -bpsm: blocks per SM of the fused panel, one row each */
  PetscInt              bback[8] = {PGX_SYTRD_DEFAULT_BACK_BLOCK}, nbback = 8; /* -bback: back-transformation blocks, one eig+vec row each */
  double    bw = 1;
  char      dev[256];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-sizes", sizes, &nsizes, &flg));
  if (!flg) nsizes = 5;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-b", &b, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ablation_n", &abl, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-launches", &launches, NULL));
  PetscCheck(warmup >= 0 && reps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-warmup must be >= 0 and -reps >= 1");
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-bpsm", bpsm, &nbpsm, &flg));
  if (!flg || !nbpsm) nbpsm = 1, bpsm[0] = 3;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-bback", bback, &nbback, &flg));
  if (!flg || !nbback) nbback = 1, bback[0] = PGX_SYTRD_DEFAULT_BACK_BLOCK;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve", &solve, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-generalized", &gen, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-back_chunks", &backchunks, NULL));
  PetscCall(PetscOptionsGetEnumArray(NULL, NULL, "-methods", PGXTridiagEigenMethods, (PetscEnum *)methods, &nmethods, &flg));
  if (!flg) nmethods = 2;
  {
    PGXTridiagEigenMethod one;
    PetscCall(PetscOptionsGetEnum(NULL, NULL, "-tridiag", PGXTridiagEigenMethods, (PetscEnum *)&one, &flg)); /* the old option: one method */
    if (flg) methods[0] = one, nmethods = 1;
  }
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-tonly", &tonly, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-threads", threads, &nthreads, &flg));
  if (!flg || !nthreads) nthreads = 1, threads[0] = 0;
  PetscCall(PGXDeviceGetName(dev, sizeof(dev)));
  PetscCall(CopyBandwidth(&bw));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "device: %s; copy bandwidth %.0f GB/s; panel width %d\n", dev, bw, (int)b));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6s %-22s %10s %9s %10s %9s  %s\n", "n", "what", "seconds", "GFLOP/s", "bound (s)", "bound/t", "check"));

  cusolverDnHandle_t cs;
  cudaStream_t       st;
  PetscCall(PGXCUDAGetCUSOLVER(&cs));
  PetscCall(PGXCUDAGetStream(&st));
  for (PetscInt k = 0; k < nsizes; k++) {
    PetscInt            n = sizes[k];
    size_t              freeb, totalb;
    std::vector<double> A, dp, ep, dc(n), ec(n), tc(n);
    PGXCallCUDA(cudaMemGetInfo(&freeb, &totalb));
    if ((double)n * n * 8 * 2.2 > (double)freeb) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d skipped: %.1f GB free on the device\n", (int)n, freeb / 1e9));
      continue;
    }
    PetscCall(RandomSymmetric(n, seed, A));
    /* bound: the symmetric products read the lower triangle of the trailing matrix once per column, sum over k of
       (n-k)^2/2 = n^3/6 doubles, at the copy rate (which counts read + write bytes); the issue's 14 s at n = 32768 */
    double flops = 4.0 / 3.0 * (double)n * n * n, bound = (double)n * n * n / 6.0 * 8.0 / (bw * 1e9);
    double tp = 0, tcu = 0, tl = 0;
    std::vector<double> tf(nbpsm);
    std::vector<PetscInt> fb(nbpsm);
    for (PetscInt q = 0; q < nbpsm; q++) {
      PetscCall(TimePGX(n, A, b, PGX_SYTRD_PANEL_FUSED, bpsm[q], PGX_SYTRD_SYMV_LOWER, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, reps, &tf[q], q ? NULL : &dp, q ? NULL : &ep));
      fb[q] = lastblocks;
    }
    tp = tf[0];
    if (launches) PetscCall(TimePGX(n, A, b, PGX_SYTRD_PANEL_LAUNCHES, PETSC_DECIDE, PGX_SYTRD_SYMV_LOWER, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, reps, &tl, NULL, NULL));
    /* cusolverDnDsytrd */
    {
      pgx::cuda::DeviceArray<double> dA, dd, de, dtau, work;
      pgx::cuda::DeviceArray<int>    info;
      int                            lwork;
      PetscCall(dA.resize((size_t)n * n));
      PetscCall(dd.resize(n));
      PetscCall(de.resize(n));
      PetscCall(dtau.resize(n));
      PetscCall(info.resize(1));
      PGXCallCUSOLVER(cusolverDnDsytrd_bufferSize(cs, CUBLAS_FILL_MODE_LOWER, (int)n, dA.data(), (int)n, dd.data(), de.data(), dtau.data(), &lwork));
      PetscCall(work.resize((size_t)lwork));
      PetscCall(PGXBenchMedianPrep(
        reps, [&]() -> PetscErrorCode { return dA.upload(A.data(), A.size()); },
        [&]() -> PetscErrorCode {
          PGXCallCUSOLVER(cusolverDnDsytrd(cs, CUBLAS_FILL_MODE_LOWER, (int)n, dA.data(), (int)n, dd.data(), de.data(), dtau.data(), work.data(), lwork, info.data()));
          return PETSC_SUCCESS;
        },
        &tcu));
      tcu *= 1e-3;
      PGXCallCUDA(cudaMemcpy(dc.data(), dd.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
      PGXCallCUDA(cudaMemcpy(ec.data(), de.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
    }
    double err = 0, dmax = 0;
    for (PetscInt i = 0; i < n; i++) dmax = std::max(dmax, std::fabs(dc[i]));
    for (PetscInt i = 0; i < n; i++) err = std::max(err, std::fabs(dp[i] - dc[i]));
    for (PetscInt i = 0; i < n - 1; i++) err = std::max(err, std::fabs(std::fabs(ep[i]) - std::fabs(ec[i])));
    for (PetscInt q = 0; q < nbpsm; q++) {
      char what[64];
      PetscCall(PetscSNPrintf(what, sizeof(what), "pgx reduce fused/%d", (int)bpsm[q]));
      if (q == 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f %9.1f %10.4f %9.2f  |T| diff %.1e (fused panel, %d blocks per SM at most: %d blocks)\n", (int)n, what, tf[q], flops / tf[q] / 1e9, bound, bound / tf[q], err / dmax, (int)bpsm[q], (int)fb[q]));
      else PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f %9.1f %10.4f %9.2f  %d blocks\n", (int)n, what, tf[q], flops / tf[q] / 1e9, bound, bound / tf[q], (int)fb[q]));
    }
    if (launches) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f %9.1f %10.4f %9.2f  the paper's launches per column; fused is %.2fx faster\n", (int)n, "pgx reduce launches", tl, flops / tl / 1e9, bound, bound / tl, tl / tp));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f %9.1f %10.4f %9.2f  speedup of pgx %.2fx\n", (int)n, "cusolverDnDsytrd", tcu, flops / tcu / 1e9, bound, bound / tcu, tcu / tp));
    if (solve) {
      /* cusolverDnXsyevd (the 64-bit API of dsyevd): time and eigenvalues */
      double              tsy = 0, tsyc = 0;
      std::vector<double> wsy(n);
      {
        /* the 64-bit API (cusolverDnXsyevd): the 32-bit one's workspace overflows at n = 32768 (INVALID_VALUE) */
        pgx::cuda::DeviceArray<double> dA, dw;
        pgx::cuda::DeviceArray<char>   work;
        pgx::cuda::DeviceArray<int>    info;
        cusolverDnParams_t             prm;
        size_t                         ldev = 0, lhost = 0;
        std::vector<char>              hwork;
        int                            hinfo = 0;
        PetscCall(dA.resize((size_t)n * n));
        PetscCall(dw.resize(n));
        PetscCall(info.resize(1));
        PGXCallCUSOLVER(cusolverDnCreateParams(&prm));
        PGXCallCUSOLVER(cusolverDnXsyevd_bufferSize(cs, prm, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int64_t)n, CUDA_R_64F, dA.data(), (int64_t)n, CUDA_R_64F, dw.data(), CUDA_R_64F, &ldev, &lhost));
        PetscCall(work.resize(PetscMax(ldev, (size_t)1)));
        hwork.resize(PetscMax(lhost, (size_t)1));
        auto syevd = [&]() -> PetscErrorCode {
          PGXCallCUSOLVER(cusolverDnXsyevd(cs, prm, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int64_t)n, CUDA_R_64F, dA.data(), (int64_t)n, CUDA_R_64F, dw.data(), CUDA_R_64F, work.data(), ldev, hwork.data(), lhost, info.data()));
          return PETSC_SUCCESS;
        };
        PetscCall(PGXBenchMedianPrep(
          1, [&]() -> PetscErrorCode { return dA.upload(A.data(), A.size()); }, syevd, &tsy));
        PGXCallCUDA(cudaMemcpy(&hinfo, info.data(), sizeof(int), cudaMemcpyDeviceToHost));
        PetscCheck(hinfo == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusolverDnXsyevd failed at n = %d: info %d", (int)n, hinfo);
        tsy *= 1e-3;
        PGXCallCUDA(cudaMemcpy(wsy.data(), dw.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
        { /* the same from host memory to host memory, as PGX's row is timed (A up, eigenvalues and vectors down) */
          std::vector<double> Zh((size_t)n * n);
          PetscLogDouble      c0, c1;
          PGXCallCUDA(cudaDeviceSynchronize());
          PetscCall(PetscTime(&c0));
          PetscCall(dA.upload(A.data(), A.size()));
          PetscCall(syevd());
          PGXCallCUDA(cudaDeviceSynchronize()); /* cuSOLVER runs on PGX's non-blocking stream: cudaMemcpy would not wait */
          PGXCallCUDA(cudaMemcpy(wsy.data(), dw.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
          PGXCallCUDA(cudaMemcpy(Zh.data(), dA.data(), (size_t)n * n * sizeof(double), cudaMemcpyDeviceToHost));
          PetscCall(PetscTime(&c1));
          tsyc = c1 - c0;
          PGXCallCUDA(cudaMemcpy(&hinfo, info.data(), sizeof(int), cudaMemcpyDeviceToHost));
          PetscCheck(hinfo == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusolverDnXsyevd failed at n = %d: info %d", (int)n, hinfo);
        }
        PGXCallCUSOLVER(cusolverDnDestroyParams(prm));
      }
      double wmax = 0;
      for (PetscInt i = 0; i < n; i++) wmax = std::max(wmax, std::fabs(wsy[i]));
      for (PetscInt mq = 0; mq < nmethods * nbback; mq++) {
        const PetscInt mi = mq / nbback, bq = mq % nbback;
        /* full eigensolve with vectors */
        PGXSytrd            S;
        std::vector<double> w(n), Z((size_t)n * n);
        PetscLogDouble      t0, t1, tset;
        PGXSytrdTimes       tt;
        char                what[32];
        PetscCall(PGXSytrdCreate(PGX_DEVICE_CUDA, &S));
        PetscCall(PGXSytrdSetTridiagonalEigenMethod(S, methods[mi]));
        PetscCall(PGXSytrdSetThreads(S, threads[0]));
        PetscCall(PGXSytrdSetBlockSize(S, b));
        PetscCall(PGXSytrdSetBackBlockSize(S, bback[bq]));
        PetscCall(PGXSytrdSetBackChunks(S, backchunks));
        PGXCallCUDA(cudaDeviceSynchronize());
        PetscCall(PetscTime(&t0));
        PetscCall(PGXSytrdSetMatrix(S, n, A.data(), n));
        PetscCall(PetscTime(&tset));
        PetscCall(PGXSytrdSolve(S, w.data(), Z.data(), n));
        PetscCall(PetscTime(&t1));
        PetscCall(PGXSytrdGetTimes(S, &tt));
        PetscCall(PGXSytrdDestroy(&S));
        double errw = 0, res = 0;
        for (PetscInt i = 0; i < n; i++) errw = std::max(errw, std::fabs(w[i] - wsy[i]));
        for (PetscInt c = 0; c < 8 && c < n; c++) { /* columns spread over the spectrum */
          PetscInt            j = (n - 1) * c / 7;
          std::vector<double> r(n, 0.0);
          for (PetscInt k = 0; k < n; k++)
            for (PetscInt i = 0; i < n; i++) r[i] += A[i + (size_t)k * n] * Z[k + (size_t)j * n];
          double s = 0;
          for (PetscInt i = 0; i < n; i++) s += (r[i] - w[j] * Z[i + (size_t)j * n]) * (r[i] - w[j] * Z[i + (size_t)j * n]);
          res = std::max(res, std::sqrt(s));
        }
        PetscCall(PetscSNPrintf(what, sizeof(what), "pgx eig+vec %s/%d", PGXTridiagEigenMethods[methods[mi]], (int)bback[bq]));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f %9s %10s %9s  set matrix (host mirror + upload) %.3f, reduce %.3f, tridiagonal %.3f (%.0f%%), back %.3f, rest (Z download, ...) %.3f s; |w - w_syevd| %.1e, residual %.1e; syevd %.2fx faster (%.2fx with its copies)\n", (int)n, what, t1 - t0, "", "", "", tset - t0, tt.reduce, tt.tridiag, 100.0 * tt.tridiag / (t1 - t0), tt.back, (t1 - t0) - (tset - t0) - tt.reduce - tt.tridiag - tt.back, errw / wmax, res / wmax, (t1 - t0) / tsy, (t1 - t0) / tsyc));
      }
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f\n", (int)n, "cusolverDnXsyevd", tsy));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f %9s %10s %9s  A uploaded, eigenvalues and vectors downloaded (pageable host memory), as the pgx row\n", (int)n, "syevd with its copies", tsyc, "", "", ""));
      if (tonly) { /* T alone: the divide and conquer on the GPU against dstemr on the host */
        std::vector<double> d2(dp), e2(ep), Z((size_t)n * n), w0, Z0;
        PGXStedcStats       st;
        PetscLogDouble      t0, t1, t2, tdc = 0;
        for (PetscInt ti = 0; ti < nthreads; ti++) {
          std::vector<double> d1(dp), e1(ep);
          char                what[64];
          PetscCall(PetscTime(&t0));
          PetscCall(PGXTridiagonalEigenDC(PGX_DEVICE_CUDA, 0, threads[ti], n, d1.data(), e1.data(), Z.data(), n, &st));
          PetscCall(PetscTime(&t1));
          if (!ti) tdc = t1 - t0, w0 = d1, Z0 = Z;
          double errw = 0, dz = 0;
          for (PetscInt i = 0; i < n; i++) errw = std::max(errw, std::fabs(d1[i] - w0[i]));
          for (size_t i = 0; i < Z.size(); i++) dz = std::max(dz, std::fabs(Z[i] - Z0[i]));
          if (threads[ti] > 0) PetscCall(PetscSNPrintf(what, sizeof(what), "T only: dc (cuda, %d thr)", (int)threads[ti]));
          else PetscCall(PetscSNPrintf(what, sizeof(what), "T only: dc (cuda)"));
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f %9.1f %10s %9s  host %.3f s; %d merges, secular %.0f%%, deflated %.0f%%; Z download included; %s\n", (int)n, what, t1 - t0, st.flops / (t1 - t0) / 1e9, "", "", st.thost, (int)st.merges, 100.0 * st.secular / PetscMax(1, st.secular + st.deflated), 100.0 * st.deflated / PetscMax(1, st.secular + st.deflated), ti ? (errw == 0 && dz == 0 ? "bitwise equal to the first row" : "DIFFERS from the first row") : ""));
        }
        PetscCall(PetscTime(&t1));
        PetscCall(PGXTridiagonalEigenMethod(PGX_TRIDIAG_EIGEN_STEMR, n, d2.data(), e2.data(), Z.data(), n));
        PetscCall(PetscTime(&t2));
        double errw = 0;
        for (PetscInt i = 0; i < n; i++) errw = std::max(errw, std::fabs(w0[i] - d2[i]));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f %9s %10s %9s  dc (first row) %.1fx faster; |w - w_stemr| %.1e\n", (int)n, "T only: dstemr (host)", t2 - t1, "", "", "", (t2 - t1) / tdc, errw / wmax));
      }
    }
    if (gen) { /* the generalized problem A x = lambda B x: PGX (B = L L^H, L^-1 A L^-H reduced, L^-H Q Z_T) against cusolverDnDsygvd */
      std::vector<double> B((size_t)n * n), wg(n), Z((size_t)n * n), wp(n);
      double              tg = 0, tgc = 0, tpg, errw = 0, res = 0, orth = 0, wmax = 0;
      PetscLogDouble      t0, t1;
      PGXSytrdTimes       tt;
      PGXSytrd            S;
      { /* B = R / (2 sqrt(n)) + 2 I, R random symmetric with entries in [-1, 1] (spectrum within [-2 sqrt(n), 2 sqrt(n)]):
           eigenvalues in about [1, 3] */
        std::vector<double> R;
        PetscCall(RandomSymmetric(n, seed + 17, R));
        for (size_t i = 0; i < B.size(); i++) B[i] = R[i] / (2.0 * std::sqrt((double)n));
        for (PetscInt i = 0; i < n; i++) B[i + (size_t)i * n] += 2.0;
      }
      {
        pgx::cuda::DeviceArray<double> dA, dB, dw, work;
        pgx::cuda::DeviceArray<int>    info;
        int                            lwork = 0, hinfo = 0;
        PetscCall(dA.resize((size_t)n * n));
        PetscCall(dB.resize((size_t)n * n));
        PetscCall(dw.resize(n));
        PetscCall(info.resize(1));
        PGXCallCUSOLVER(cusolverDnDsygvd_bufferSize(cs, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int)n, dA.data(), (int)n, dB.data(), (int)n, dw.data(), &lwork));
        PetscCall(work.resize((size_t)PetscMax(lwork, 1)));
        auto sygvd = [&]() -> PetscErrorCode {
          PGXCallCUSOLVER(cusolverDnDsygvd(cs, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int)n, dA.data(), (int)n, dB.data(), (int)n, dw.data(), work.data(), lwork, info.data()));
          return PETSC_SUCCESS;
        };
        PetscCall(PGXBenchMedianPrep(
          1,
          [&]() -> PetscErrorCode {
            PetscCall(dA.upload(A.data(), A.size()));
            return dB.upload(B.data(), B.size());
          },
          sygvd, &tg));
        tg *= 1e-3;
        PGXCallCUDA(cudaDeviceSynchronize());
        PetscCall(PetscTime(&t0)); /* host to host, as the pgx row */
        PetscCall(dA.upload(A.data(), A.size()));
        PetscCall(dB.upload(B.data(), B.size()));
        PetscCall(sygvd());
        PGXCallCUDA(cudaDeviceSynchronize());
        PGXCallCUDA(cudaMemcpy(wg.data(), dw.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
        PGXCallCUDA(cudaMemcpy(Z.data(), dA.data(), (size_t)n * n * sizeof(double), cudaMemcpyDeviceToHost));
        PetscCall(PetscTime(&t1));
        tgc = t1 - t0;
        PGXCallCUDA(cudaMemcpy(&hinfo, info.data(), sizeof(int), cudaMemcpyDeviceToHost));
        PetscCheck(hinfo == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusolverDnDsygvd failed at n = %d: info %d", (int)n, hinfo);
      }
      PetscCall(PGXSytrdCreate(PGX_DEVICE_CUDA, &S));
      PetscCall(PGXSytrdSetBlockSize(S, b));
      PetscCall(PGXSytrdSetBackChunks(S, backchunks));
      PGXCallCUDA(cudaDeviceSynchronize());
      PetscCall(PetscTime(&t0));
      PetscCall(PGXSytrdSetMatrix(S, n, A.data(), n));
      PetscCall(PGXSytrdSetMatrixB(S, n, B.data(), n));
      PetscCall(PGXSytrdSolve(S, wp.data(), Z.data(), n));
      PetscCall(PetscTime(&t1));
      tpg = t1 - t0;
      PetscCall(PGXSytrdGetTimes(S, &tt));
      PetscCall(PGXSytrdDestroy(&S));
      for (PetscInt i = 0; i < n; i++) wmax = std::max(wmax, std::fabs(wg[i]));
      for (PetscInt i = 0; i < n; i++) errw = std::max(errw, std::fabs(wp[i] - wg[i]));
      for (PetscInt c = 0; c < 8 && c < n; c++) { /* ||A z - w B z|| / max|w| and |z^T B z - 1| of 8 columns spread over the spectrum */
        PetscInt            j = (n - 1) * c / 7;
        std::vector<double> r(n, 0.0), bz(n, 0.0);
        for (PetscInt k = 0; k < n; k++)
          for (PetscInt i = 0; i < n; i++) r[i] += A[i + (size_t)k * n] * Z[k + (size_t)j * n], bz[i] += B[i + (size_t)k * n] * Z[k + (size_t)j * n];
        double s = 0, zbz = 0;
        for (PetscInt i = 0; i < n; i++) s += (r[i] - wp[j] * bz[i]) * (r[i] - wp[j] * bz[i]), zbz += Z[i + (size_t)j * n] * bz[i];
        res  = std::max(res, std::sqrt(s));
        orth = std::max(orth, std::fabs(zbz - 1.0));
      }
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f %9s %10s %9s  Cholesky + L^-1 A L^-H %.3f, reduce %.3f, tridiagonal %.3f, back (Q, L^-H) %.3f s; |w - w_sygvd| %.1e, residual %.1e, |z^T B z - 1| %.1e; sygvd %.2fx faster (%.2fx with its copies)\n", (int)n, "pgx generalized", tpg, "", "", "", tt.generalize, tt.reduce, tt.tridiag, tt.back, errw / wmax, res / wmax, orth, tpg / tg, tpg / tgc));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f\n", (int)n, "cusolverDnDsygvd", tg));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-22s %10.4f %9s %10s %9s  A and B uploaded, eigenvalues and vectors downloaded, as the pgx row\n", (int)n, "sygvd with its copies", tgc, "", "", ""));
    }
    if (n == abl) {
      struct {
        const char  *name;
        PGXSytrdSymv symv;
        PetscBool    merged, rank2b, streams;
      } v[4] = {
        {"symv full",          PGX_SYTRD_SYMV_FULL,  PETSC_TRUE,  PETSC_TRUE,  PETSC_TRUE },
        {"separate gemvs",     PGX_SYTRD_SYMV_LOWER, PETSC_FALSE, PETSC_TRUE,  PETSC_TRUE },
        {"two rank-b updates", PGX_SYTRD_SYMV_LOWER, PETSC_TRUE,  PETSC_FALSE, PETSC_TRUE },
        {"one stream",         PGX_SYTRD_SYMV_LOWER, PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE}
      };
      for (int a = 0; a < 4; a++) {
        double ta = 0;
        PetscCall(TimePGX(n, A, b, PGX_SYTRD_PANEL_LAUNCHES, PETSC_DECIDE, v[a].symv, v[a].merged, v[a].rank2b, v[a].streams, reps, &ta, NULL, NULL));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d ablation %-13s %10.4f %9.1f %10.4f %9.2f  the launches' default saves %.3f s (%.1f%%)\n", (int)n, v[a].name, ta, flops / ta / 1e9, bound, bound / ta, ta - tl, 100.0 * (ta - tl) / ta));
      }
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}
