/* bench/sytrd/bench_hetrd: PGX's complex Hermitian tridiagonal reduction and eigensolve (PGXSytrd, cuda backend,
   complex double: the fused panel, the default, and the launch sequence of hetrd_kernels.cu) against cuSOLVER's
   zhetrd and zheevd, in a build against a
   complex PETSc (make gpuhostc). A real build prints that it needs complex scalars and exits.

   For each n (-sizes, default 1024,2048,4096,8192): a random Hermitian matrix (entries of both parts in [-1,1], real
   diagonal), then
   - reduction: PGXSytrdReduce with each panel (matrix uploaded before each run, untimed; d, e, tau come back to the
     host; the launches' T checked against the fused panel's) against
     cusolverDnZhetrd (lower, device matrix uploaded before, untimed), medians of -reps runs after one untimed run each;
     GFLOP/s counted as 16/3 n^3 (four real flops per complex multiply-add); checked: max | |T_pgx| - |T_cusolver| |
     over d and |e| relative to max |d|;
   - eigensolve with all vectors (-solve 1): PGXSytrdSolve with host arrays at its interface (the upload of A and the
     download of Z included; the divide and conquer's gemms on the GPU, Z = Q Z_T on the GPU) against cusolverDnZheevd
     on device data and the same zheevd with A uploaded and w, Z downloaded; one timed run each after an untimed one;
     each checked on its own (sum w = trace A and sum w^2 = ||A||_F^2, relative to n max|w| and n max|w|^2;
     max_j ||A z_j - w_j z_j|| / max |w| over 8 columns), and max |w - w_zheevd| / max |w| printed with where it is.
   Options: -sizes a,b,... -reps 3 -b 64 -solve 1 -seed 1 */
#include <pgx/private/pgxcuda.h>
#include <pgx/sytrd.h>
#include <petsctime.h>
#include <vector>
#include <algorithm>
#include <complex>
#include "../common/pgxbench.h"

/* the checks accumulate in long double (host code only; nvcc warns about every use as if it were device code) */
#pragma nv_diag_suppress 20208

#if defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
typedef std::complex<double> Z; /* host arrays; PetscScalar (thrust::complex<double> under nvcc) has the same layout */

static void RandomHermitian(PetscInt n, PetscInt seed, std::vector<Z> &A)
{
  A.resize((size_t)n * n);
  unsigned long long s = 0x9E3779B97F4A7C15ull * (unsigned long long)(seed + 1);
  auto               u = [&]() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
  };
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = j; i < n; i++) {
      double re = u(), im = i == j ? 0.0 : u();
      A[i + (size_t)j * n] = Z(re, im);
      A[j + (size_t)i * n] = Z(re, -im);
    }
}

static PetscScalar *PS(Z *p)
{
  return reinterpret_cast<PetscScalar *>(p);
}
static cuDoubleComplex *CZ(void *p)
{
  return reinterpret_cast<cuDoubleComplex *>(p);
}

static double Now(void)
{
  PetscLogDouble t;
  PetscTime(&t);
  return t;
}

int main(int argc, char **argv)
{
  PetscInt           sizes[16] = {1024, 2048, 4096, 8192}, nsizes = 16, reps = 3, b = PGX_SYTRD_DEFAULT_BLOCK, seed = 1;
  PetscBool          flg, solve = PETSC_TRUE;
  cusolverDnHandle_t cs;
  char               dev[256];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-sizes", sizes, &nsizes, &flg));
  if (!flg) nsizes = 4;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-b", &b, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve", &solve, NULL));
  PetscCall(PGXDeviceGetName(dev, sizeof(dev)));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_hetrd: complex Hermitian, PGX (cuda: fused panel, and the launch sequence) against cuSOLVER zhetrd/zheevd; %s; panel width %d, medians of %d\n", dev, (int)b, (int)reps));
  PetscCall(PGXCUDAGetCUSOLVER(&cs));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6s %-26s %10s %9s  %s\n", "n", "what", "seconds", "GFLOP/s", "check / ratio"));
  for (PetscInt q = 0; q < nsizes; q++) {
    const PetscInt  n     = sizes[q];
    const double    flops = 16.0 / 3.0 * (double)n * n * n;
    std::vector<Z>  A;
    double          tp = 0, tc = 0;
    std::vector<PetscReal> dp(n), ep(n), dc(n), ec(n);
    RandomHermitian(n, seed, A);
    double tpl = 0, errp[2] = {0, 0};
    for (int pan = 0; pan < 2; pan++) { /* PGX's reduction: the fused panel (the default), then the launches */
      PGXSytrd            S;
      PGXSytrdPanel       used;
      PetscInt            blocks;
      std::vector<double> t;
      PetscCall(PGXSytrdCreate(PGX_DEVICE_CUDA, &S));
      PetscCall(PGXSytrdSetBlockSize(S, b));
      PetscCall(PGXSytrdSetPanel(S, pan ? PGX_SYTRD_PANEL_LAUNCHES : PGX_SYTRD_PANEL_FUSED, PETSC_DECIDE));
      for (PetscInt r = 0; r < reps + 1; r++) {
        double t0;
        PetscCall(PGXSytrdSetMatrix(S, n, PS(A.data()), n));
        PGXCallCUDA(cudaDeviceSynchronize());
        t0 = Now();
        PetscCall(PGXSytrdReduce(S));
        if (r) t.push_back(Now() - t0);
      }
      std::sort(t.begin(), t.end());
      PetscCall(PGXSytrdGetPanel(S, &used, &blocks));
      PetscCheck((used == PGX_SYTRD_PANEL_FUSED) == !pan, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the %s panel ran, not the one asked for", PGXSytrdPanels[used]);
      const PetscReal *dd, *ee;
      PetscCall(PGXSytrdGetTridiagonal(S, &dd, &ee));
      if (!pan) {
        tp = t[t.size() / 2];
        std::copy(dd, dd + n, dp.begin());
        std::copy(ee, ee + n - 1, ep.begin());
      } else {
        tpl = t[t.size() / 2];
        std::copy(dd, dd + n, dc.begin()); /* kept until cuSOLVER's T overwrites them: checked against the fused one's */
        std::copy(ee, ee + n - 1, ec.begin());
        for (PetscInt i = 0; i < n; i++) errp[1] = std::max(errp[1], std::fabs(dp[i] - dc[i]));
        for (PetscInt i = 0; i < n - 1; i++) errp[1] = std::max(errp[1], std::fabs(std::fabs(ep[i]) - std::fabs(ec[i])));
      }
      PetscCall(PGXSytrdDestroy(&S));
    }
    { /* cusolverDnZhetrd */
      pgx::cuda::DeviceArray<Z>      dA, dtau, work;
      pgx::cuda::DeviceArray<double> dd, de;
      pgx::cuda::DeviceArray<int>    info;
      int                            lwork = 0;
      std::vector<double>            t;
      PetscCall(dA.resize((size_t)n * n));
      PetscCall(dd.resize(n));
      PetscCall(de.resize(n));
      PetscCall(dtau.resize(n));
      PetscCall(info.resize(1));
      PGXCallCUSOLVER(cusolverDnZhetrd_bufferSize(cs, CUBLAS_FILL_MODE_LOWER, (int)n, CZ(dA.data()), (int)n, dd.data(), de.data(), CZ(dtau.data()), &lwork));
      PetscCall(work.resize((size_t)PetscMax(lwork, 1)));
      for (PetscInt r = 0; r < reps + 1; r++) {
        double t0;
        PetscCall(dA.upload(A.data(), A.size()));
        PGXCallCUDA(cudaDeviceSynchronize());
        t0 = Now();
        PGXCallCUSOLVER(cusolverDnZhetrd(cs, CUBLAS_FILL_MODE_LOWER, (int)n, CZ(dA.data()), (int)n, dd.data(), de.data(), CZ(dtau.data()), CZ(work.data()), lwork, info.data()));
        PGXCallCUDA(cudaDeviceSynchronize());
        if (r) t.push_back(Now() - t0);
      }
      std::sort(t.begin(), t.end());
      tc = t[t.size() / 2];
      PGXCallCUDA(cudaMemcpy(dc.data(), dd.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
      PGXCallCUDA(cudaMemcpy(ec.data(), de.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
    }
    {
      double err = 0, dmax = 0;
      for (PetscInt i = 0; i < n; i++) dmax = std::max(dmax, std::fabs(dc[i]));
      for (PetscInt i = 0; i < n; i++) err = std::max(err, std::fabs(dp[i] - dc[i]));
      for (PetscInt i = 0; i < n - 1; i++) err = std::max(err, std::fabs(std::fabs(ep[i]) - std::fabs(ec[i])));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-26s %10.4f %9.1f  |T| diff %.1e %s\n", (int)n, "pgx reduce (fused panel)", tp, flops / tp / 1e9, err / dmax, err / dmax < 1e-10 ? "ok" : "WRONG"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-26s %10.4f %9.1f  |T| diff to the fused %.1e %s; fused is %.2fx faster\n", (int)n, "pgx reduce (launches)", tpl, flops / tpl / 1e9, errp[1] / dmax, errp[1] / dmax < 1e-10 ? "ok" : "WRONG", tpl / tp));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-26s %10.4f %9.1f  pgx is %.2fx cuSOLVER\n", (int)n, "cusolverDnZhetrd", tc, flops / tc / 1e9, tc / tp));
    }
    if (solve) {
      std::vector<Z>         Zp((size_t)n * n), Zc((size_t)n * n);
      std::vector<PetscReal> wp(n), wc(n);
      double                 tps = 0, tzd = 0, tzh = 0;
      for (PetscInt r = 0; r < 2; r++) { /* PGX: host to host */
        PGXSytrd S;
        double   t0;
        PGXCallCUDA(cudaDeviceSynchronize());
        t0 = Now();
        PetscCall(PGXSytrdCreate(PGX_DEVICE_CUDA, &S));
        PetscCall(PGXSytrdSetBlockSize(S, b));
        PetscCall(PGXSytrdSetMatrix(S, n, PS(A.data()), n));
        PetscCall(PGXSytrdSolve(S, wp.data(), PS(Zp.data()), n));
        tps = Now() - t0;
        PetscCall(PGXSytrdDestroy(&S));
      }
      { /* cusolverDnZheevd on device data, then host to host */
        pgx::cuda::DeviceArray<Z>      dA, work;
        pgx::cuda::DeviceArray<double> dw;
        pgx::cuda::DeviceArray<int>    info;
        int                            lwork = 0, hinfo = 0;
        PetscCall(dA.resize((size_t)n * n));
        PetscCall(dw.resize(n));
        PetscCall(info.resize(1));
        PGXCallCUSOLVER(cusolverDnZheevd_bufferSize(cs, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int)n, CZ(dA.data()), (int)n, dw.data(), &lwork));
        PetscCall(work.resize((size_t)PetscMax(lwork, 1)));
        for (PetscInt r = 0; r < 2; r++) {
          double t0;
          PetscCall(dA.upload(A.data(), A.size()));
          PGXCallCUDA(cudaDeviceSynchronize());
          t0 = Now();
          PGXCallCUSOLVER(cusolverDnZheevd(cs, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int)n, CZ(dA.data()), (int)n, dw.data(), CZ(work.data()), lwork, info.data()));
          PGXCallCUDA(cudaDeviceSynchronize());
          tzd = Now() - t0;
        }
        PGXCallCUDA(cudaMemcpy(&hinfo, info.data(), sizeof(int), cudaMemcpyDeviceToHost));
        PetscCheck(hinfo == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusolverDnZheevd failed at n = %d: info %d", (int)n, hinfo);
        {
          double t0;
          PGXCallCUDA(cudaDeviceSynchronize());
          t0 = Now();
          PetscCall(dA.upload(A.data(), A.size()));
          PGXCallCUSOLVER(cusolverDnZheevd(cs, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int)n, CZ(dA.data()), (int)n, dw.data(), CZ(work.data()), lwork, info.data()));
          PGXCallCUDA(cudaDeviceSynchronize()); /* cuSOLVER runs on PGX's stream, which does not order with cudaMemcpy's */
          PGXCallCUDA(cudaMemcpy(wc.data(), dw.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
          PGXCallCUDA(cudaMemcpy(Zc.data(), dA.data(), (size_t)n * n * sizeof(Z), cudaMemcpyDeviceToHost));
          tzh = Now() - t0;
        }
      }
      double      werr = 0, wmax = 0;
      long double tr = 0, fro = 0; /* the checks' own sums in extended precision: n^2 terms */
      PetscInt    jerr = 0;
      for (PetscInt i = 0; i < n; i++) wmax = std::max(wmax, std::fabs(wc[i]));
      for (PetscInt i = 0; i < n; i++)
        if (std::fabs(wp[i] - wc[i]) > werr) werr = std::fabs(wp[i] - wc[i]), jerr = i;
      for (PetscInt i = 0; i < n; i++) tr += A[i + (size_t)i * n].real();
      for (size_t i = 0; i < A.size(); i++) fro += (long double)std::norm(A[i]);
      /* each set of eigenvalues on its own: sum w = trace(A), sum w^2 = ||A||_F^2 (relative to n max|w| and n max|w|^2),
         and ||A z - w z|| / max|w| of 8 columns spread over the spectrum */
      auto check = [&](const std::vector<PetscReal> &w, const std::vector<Z> &V, double *etr, double *efro, double *res) {
        long double sw = 0, sw2 = 0;
        for (PetscInt i = 0; i < n; i++) sw += w[i], sw2 += (long double)w[i] * w[i];
        *etr  = (double)(std::fabs(sw - tr) / (n * wmax));
        *efro = (double)(std::fabs(sw2 - fro) / (n * wmax * wmax));
        *res  = 0;
        for (PetscInt c = 0; c < 8; c++) {
          const PetscInt j = c * (n - 1) / 7;
          long double    s = 0;
          for (PetscInt i = 0; i < n; i++) {
            long double vr = 0, vi = 0;
            for (PetscInt k = 0; k < n; k++) {
              const Z a = A[i + (size_t)k * n], z = V[k + (size_t)j * n];
              vr += (long double)a.real() * z.real() - (long double)a.imag() * z.imag();
              vi += (long double)a.real() * z.imag() + (long double)a.imag() * z.real();
            }
            vr -= (long double)w[j] * V[i + (size_t)j * n].real();
            vi -= (long double)w[j] * V[i + (size_t)j * n].imag();
            s += vr * vr + vi * vi;
          }
          *res = std::max(*res, (double)(std::sqrt(s) / wmax));
        }
      };
      double etp, efp, rp, etc, efc, rc;
      check(wp, Zp, &etp, &efp, &rp);
      check(wc, Zc, &etc, &efc, &rc);
      werr /= wmax;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-26s %10.4f %9s  trace %.1e, Frobenius %.1e, residual %.1e %s; eigenvalues vs zheevd %.1e (at %d: %.15g vs %.15g)\n", (int)n, "pgx eig+vec (host arrays)", tps, "", etp, efp, rp, etp < 1e-12 && efp < 1e-12 && rp < 1e-12 ? "ok" : "WRONG", werr, (int)jerr, (double)wp[jerr], (double)wc[jerr]));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-26s %10.4f %9s  trace %.1e, Frobenius %.1e, residual %.1e %s; pgx is %.2fx\n", (int)n, "cusolverDnZheevd (device)", tzd, "", etc, efc, rc, etc < 1e-12 && efc < 1e-12 && rc < 1e-12 ? "ok" : "WRONG", tzd / tps));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%6d %-26s %10.4f %9s  pgx is %.2fx\n", (int)n, "cusolverDnZheevd (host)", tzh, "", tzh / tps));
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}
#else
int main(int argc, char **argv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_hetrd: skipped: it needs complex double scalars (a build against a complex PETSc: make gpuhostc)\n"));
  PetscCall(PetscFinalize());
  return 0;
}
#endif
