static const char help[] = "Dense LU benchmark (issue 14, item 6): PGX's dense LU (cuda backend; double and each mixed precision)\n"
                           "against cusolverDnDgetrf+getrs, cuSOLVER's refinement solvers (DXgesv = TF32, DHgesv, DBgesv) called\n"
                           "directly, and PETSc's LAPACK LU (dgetrf+dgetrs on the host), on a well-conditioned matrix (random in [-1,1)\n"
                           "plus n on the diagonal) and a harder one (plain random).\n"
                           "Columns: n, matrix, solver, factor ms, GFLOP/s (2/3 n^3 over the factor time), solve ms (one right-hand\n"
                           "side; mixed: with refinement), backward error ||Ax-b||_inf/(||A||_inf ||x||_inf n eps), ratio of cuSOLVER\n"
                           "getrf+getrs time to this solver's factor+solve time (> 1: faster than cuSOLVER), refinement steps, notes.\n"
                           "Options: -sizes 256,512,...,32768  -lapack_nmax <8192> (PETSc's LAPACK only up to this n)  -reps <3>\n"
                           "  -matrices diagdom,random  -o <file>\n";
/* Every timed factorization starts from A on the host (PGX's glue path: the H2D copy of A is inside the factor
   time for PGX and for cuSOLVER alike); medians of -reps runs after two warm-ups (cudaEvents on PGX's stream). */
#include <pgx/private/pgxcuda.h>
#include <petscblaslapack.h>
#include <petsctime.h>
#include <vector>
#include <string>
#include <cmath>
#include "../../src/mat/impls/denselu/denselu_kernels.h"
#include "../../tests/denselu/denselu_matrices.h"
#include "../common/pgxbench.h"

namespace cu = pgx::kernels::denselu::cuda;
namespace dl = pgx::kernels::denselu;

typedef cusolverStatus_t (*IRSolver)(cusolverDnHandle_t, cusolver_int_t, cusolver_int_t, double *, cusolver_int_t, cusolver_int_t *, double *, cusolver_int_t, double *, cusolver_int_t, void *, size_t, cusolver_int_t *, cusolver_int_t *);
typedef cusolverStatus_t (*IRBuffer)(cusolverDnHandle_t, cusolver_int_t, cusolver_int_t, double *, cusolver_int_t, cusolver_int_t *, double *, cusolver_int_t, double *, cusolver_int_t, void *, size_t *);

static FILE *out = NULL;

static PetscErrorCode Row(PetscInt n, const char *mat, const char *solver, double fms, double sms, double be, double ref_ms, PetscInt its, const char *note)
{
  const double gf = fms > 0 ? 2.0 / 3.0 * (double)n * n * n / (fms * 1e6) : 0;
  PetscFunctionBegin;
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, out, "%6d  %-8s  %-16s  %10.3f  %9.1f  %9.3f  %10.2f  %6.2f  %4d  %s\n", (int)n, mat, solver, fms, gf, sms, be, ref_ms > 0 ? ref_ms / (fms + sms) : 0.0, (int)its, note));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BenchOne(PetscInt n, const char *mat, PetscInt reps, PetscInt lapack_nmax)
{
  std::vector<double> a((size_t)n * n), b(n), x(n);
  cusolverDnHandle_t  sh;
  cudaStream_t        s;
  double             *dA, *dB, *dX, *dWork;
  int                *dPiv, *dInfo, lwork = 0;
  double              fms, sms, cus_total = 0;
  const size_t        nn = (size_t)n * n;

  PetscFunctionBegin;
  DenseLUSeed(777 + n);
  PetscCall(DenseLUMatrix(mat, n, 0, a.data()));
  for (auto &v : b) v = DenseLURand();
  PetscCall(PGXCUDAGetCUSOLVER(&sh));
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaMalloc((void **)&dA, nn * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&dB, n * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&dX, n * sizeof(double)));
  PGXCallCUDA(cudaMalloc((void **)&dPiv, n * sizeof(int)));
  PGXCallCUDA(cudaMalloc((void **)&dInfo, sizeof(int)));

  /* cuSOLVER getrf + getrs (the reference of the ratio column) */
  PGXCallCUSOLVER(cusolverDnDgetrf_bufferSize(sh, (int)n, (int)n, dA, (int)n, &lwork));
  PGXCallCUDA(cudaMalloc((void **)&dWork, (size_t)PetscMax(lwork, 1) * sizeof(double)));
  PetscCall(PGXBenchMedian(reps, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PGXCallCUDA(cudaMemcpyAsync(dA, a.data(), nn * sizeof(double), cudaMemcpyHostToDevice, s));
    PGXCallCUSOLVER(cusolverDnDgetrf(sh, (int)n, (int)n, dA, (int)n, dWork, dPiv, dInfo));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, &fms));
  PetscCall(PGXBenchMedian(reps, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PGXCallCUDA(cudaMemcpyAsync(dB, b.data(), n * sizeof(double), cudaMemcpyHostToDevice, s));
    PGXCallCUSOLVER(cusolverDnDgetrs(sh, CUBLAS_OP_N, (int)n, 1, dA, (int)n, dPiv, dB, (int)n, dInfo));
    PGXCallCUDA(cudaMemcpyAsync(x.data(), dB, n * sizeof(double), cudaMemcpyDeviceToHost, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }, &sms));
  PGXCallCUDA(cudaStreamSynchronize(s));
  cus_total = fms + sms;
  PetscCall(Row(n, mat, "cusolver getrf", fms, sms, DenseLUBackwardError(n, a.data(), x.data(), b.data(), 'N'), cus_total, 0, ""));
  PGXCallCUDA(cudaFree(dWork));

  /* cuSOLVER's refinement solvers (factor and solve in one call: reported in the factor column) */
  {
    const char *names[] = {"cusolver DXgesv", "cusolver DHgesv", "cusolver DBgesv"};
    IRSolver    f[]     = {cusolverDnDXgesv, cusolverDnDHgesv, cusolverDnDBgesv};
    IRBuffer    fb[]    = {cusolverDnDXgesv_bufferSize, cusolverDnDHgesv_bufferSize, cusolverDnDBgesv_bufferSize};
    for (int q = 0; q < 3; q++) {
      size_t bytes = 0;
      void  *dW;
      int    iter  = 0;
      PGXCallCUSOLVER(fb[q](sh, (int)n, 1, dA, (int)n, dPiv, dB, (int)n, dX, (int)n, NULL, &bytes));
      PGXCallCUDA(cudaMalloc(&dW, PetscMax(bytes, (size_t)1)));
      PetscCall(PGXBenchMedian(reps, [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        PGXCallCUDA(cudaMemcpyAsync(dA, a.data(), nn * sizeof(double), cudaMemcpyHostToDevice, s));
        PGXCallCUDA(cudaMemcpyAsync(dB, b.data(), n * sizeof(double), cudaMemcpyHostToDevice, s));
        PGXCallCUSOLVER(f[q](sh, (int)n, 1, dA, (int)n, dPiv, dB, (int)n, dX, (int)n, dW, bytes, &iter, dInfo));
        PGXCallCUDA(cudaMemcpyAsync(x.data(), dX, n * sizeof(double), cudaMemcpyDeviceToHost, s));
        PetscFunctionReturn(PETSC_SUCCESS);
      }, &fms));
      PGXCallCUDA(cudaStreamSynchronize(s));
      PetscCall(Row(n, mat, names[q], fms, 0, DenseLUBackwardError(n, a.data(), x.data(), b.data(), 'N'), cus_total, iter, iter < 0 ? "fell back to FP64" : ""));
      PGXCallCUDA(cudaFree(dW));
    }
  }
  PGXCallCUDA(cudaFree(dA));
  PGXCallCUDA(cudaFree(dB));
  PGXCallCUDA(cudaFree(dX));
  PGXCallCUDA(cudaFree(dPiv));
  PGXCallCUDA(cudaFree(dInfo));

  /* PGX, each precision */
  {
    const dl::Precision precs[] = {dl::PRECISION_DOUBLE, dl::PRECISION_TF32, dl::PRECISION_HALF, dl::PRECISION_BF16};
    const char         *names[] = {"pgx double", "pgx tf32", "pgx half", "pgx bf16"};
    for (int q = 0; q < 4; q++) {
      cu::Data *d;
      PetscInt  zc, its = 0, its_last = 0, fb_any = 0;
      PetscBool finite, fb;
      PetscCall(cu::Create(&d));
      PetscCall(cu::SetPrecision(d, precs[q]));
      PetscCall(cu::SetSmallSize(d, -1));
      PetscCall(PGXBenchMedian(reps, [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
        PetscFunctionReturn(PETSC_SUCCESS);
      }, &fms));
      /* each solve after a fresh factorization would time the fallback too; time the solve of the last factor */
      PetscCall(PGXBenchMedianPrep(reps, [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
        x = b;
        PetscFunctionReturn(PETSC_SUCCESS);
      }, [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        dl::RefineResult rr;
        PetscCall(cu::SolveHost(d, PETSC_FALSE, 1, x.data(), n, &rr));
        fb  = rr.fellback;
        its = rr.steps;
        its_last = its;
        fb_any |= fb;
        PetscFunctionReturn(PETSC_SUCCESS);
      }, &sms));
      const char *path;
      PetscInt    nb;
      PetscCall(cu::GetInfo(d, &path, &nb, NULL));
      std::string note = std::string(path) + " nb " + std::to_string((long long)nb) + (fb_any ? ", fell back to FP64" : "");
      PetscCall(Row(n, mat, names[q], fms, sms, DenseLUBackwardError(n, a.data(), x.data(), b.data(), 'N'), cus_total, its_last, note.c_str()));
      PetscCall(cu::Destroy(&d));
    }
  }

  /* PETSc's LAPACK LU on the host */
  if (n <= lapack_nmax) {
    std::vector<double>       lu = a;
    std::vector<PetscBLASInt> piv(n);
    PetscBLASInt              bn, info, one = 1;
    PetscLogDouble            t0, t1, t2;
    PetscCall(PetscBLASIntCast(n, &bn));
    x = b;
    PetscCall(PetscTime(&t0));
    LAPACKgetrf_(&bn, &bn, lu.data(), &bn, piv.data(), &info);
    PetscCall(PetscTime(&t1));
    LAPACKgetrs_("N", &bn, &one, lu.data(), &bn, piv.data(), x.data(), &bn, &info);
    PetscCall(PetscTime(&t2));
    PetscCall(Row(n, mat, "petsc lapack", (t1 - t0) * 1e3, (t2 - t1) * 1e3, DenseLUBackwardError(n, a.data(), x.data(), b.data(), 'N'), cus_total, 0, "host"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  sizes[16] = {256, 512, 1024, 2048, 4096, 8192, 16384, 32768}, nsizes = 8, reps = 3, lapack_nmax = 8192;
  char      mats[128] = "diagdom,random", fname[PETSC_MAX_PATH_LEN] = "";
  PetscBool flg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_denselu options", NULL);
  PetscCall(PetscOptionsIntArray("-sizes", "matrix orders", NULL, sizes, &nsizes, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed repetitions (median)", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-lapack_nmax", "largest n for PETSc's LAPACK LU", NULL, lapack_nmax, &lapack_nmax, NULL));
  PetscCall(PetscOptionsString("-matrices", "diagdom (well-conditioned), random (harder)", NULL, mats, mats, sizeof(mats), NULL));
  PetscCall(PetscOptionsString("-o", "also write the table to this file", NULL, fname, fname, sizeof(fname), &flg));
  PetscOptionsEnd();
  out = PETSC_STDOUT;
  if (fname[0]) PetscCall(PetscFOpen(PETSC_COMM_SELF, fname, "w", &out));
  {
    char name[256];
    PetscCall(PGXDeviceGetName(name, sizeof(name)));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, out, "# bench_denselu on %s\n", name));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, out, "#    n  matrix    solver             factor ms   GFLOP/s   solve ms   backward  vs cus  its  notes\n"));
  for (PetscInt i = 0; i < nsizes; i++) {
    std::string m(mats);
    size_t      p = 0;
    while (p <= m.size()) {
      size_t      q   = m.find(',', p);
      std::string one = m.substr(p, q == std::string::npos ? std::string::npos : q - p);
      if (!one.empty()) PetscCall(BenchOne(sizes[i], one.c_str(), reps, lapack_nmax));
      if (q == std::string::npos) break;
      p = q + 1;
    }
  }
  if (fname[0]) PetscCall(PetscFClose(PETSC_COMM_SELF, out));
  PetscCall(PetscFinalize());
  return 0;
}
