/* bench/aips: PCAIPS of orders 0..3 against PETSc's Jacobi and ILU(0) (host) with GMRES.

   For each problem (-problems aniso3d:96,convdiff3d:96; gallery generators, n = m^3, one rank):
   - GMRES(30) to rtol 1e-8 from x = 0, b = A 1: iterations, setup and solve time (KSPSolve with host Vecs:
     with -pgx_device cuda every PCApply stages r to the GPU and y back, which the solve time includes)
   - time per apply: PCApply on host Vecs (median of -reps) for every PC; for AIPS on the cuda backend also
     PGXPCApplyDevice on device arrays (cudaEvent median), and the model N t_R + (N+1) t_T from the measured
     product with R (PGX's CSR kernel) and tridiagonal solve (PGXTridiagSolve), with the ratio apply/model
     (target <= 1.3).
   Options: -problems list -reps 20 -rtol 1e-8 -maxit 1000 -pgx_device auto|host|cuda
            -solve 0: AIPS only, no KSP solve nor host apply (the device apply and its model on large problems) */
#include <pgx/private/pgxcuda.h>
#include <pgx/tridiag.h>
#include <pgx/gallery.h>
#include <petscksp.h>
#include "../../src/pc/impls/aips/aips_kernels.h"
#include <vector>
#include <string>
#include <algorithm>
#include <functional>
#include "../common/pgxbench.h"

static PetscErrorCode MedianHost(int reps, const std::function<PetscErrorCode()> &f, double *ms)
{
  std::vector<double> t;

  PetscFunctionBegin;
  for (int i = 0; i < reps + 2; i++) {
    PetscLogDouble t0, t1;
    PetscCall(PetscTime(&t0));
    PetscCall(f());
    PetscCall(PetscTime(&t1));
    if (i >= 2) t.push_back((t1 - t0) * 1e3);
  }
  std::sort(t.begin(), t.end());
  *ms = t[t.size() / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}


/* t_T and t_R on the device for the split of A */
static PetscErrorCode DeviceParts(Mat A, int reps, double *tT, double *tR)
{
  PetscInt                            n, nb;
  const PetscInt                     *ia, *ja;
  const PetscScalar                  *aa;
  PetscBool                           done;
  std::vector<PetscScalar>            dl, d, du, rv;
  std::vector<PetscInt>               off, rp, rc;
  PGXTridiag                          T;
  PGXTridiagPivotInfo                 info;
  pgx::cuda::DeviceArray<PetscScalar> d_x, d_y, d_rv;
  pgx::cuda::DeviceArray<PetscInt>    d_rp, d_rc;
  namespace K = pgx::kernels::aips;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  dl.resize(n);
  d.resize(n);
  du.resize(n);
  off.resize(n + 1);
  rp.resize(n + 1);
  K::reference::extract_tridiagonal(n, ia, ja, aa, dl.data(), d.data(), du.data());
  nb = K::reference::block_offsets(n, dl.data(), du.data(), off.data());
  K::reference::split_remainder(n, ia, ja, aa, rp.data(), nullptr, nullptr);
  rc.resize(rp[n] + 1);
  rv.resize(rp[n] + 1);
  K::reference::split_remainder(n, ia, ja, aa, rp.data(), rc.data(), rv.data());
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  {
    PetscInt nr; /* MatRestoreRowIJ() zeroes its row count: keep n */
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  }
  PetscCall(PGXTridiagCreate(PGX_DEVICE_CUDA, &T));
  PetscCall(PGXTridiagSetUpSymbolic(T, nb, off.data()));
  PetscCall(PGXTridiagSetUpNumeric(T, dl.data(), d.data(), du.data(), &info));
  PetscCall(d_x.upload(d.data(), n));
  PetscCall(d_y.resize(n));
  PetscCall(d_rp.upload(rp.data(), n + 1));
  PetscCall(d_rc.upload(rc.data(), rc.size()));
  PetscCall(d_rv.upload(rv.data(), rv.size()));
  PetscCall(PGXBenchMedian(reps, [&] { return PGXTridiagSolve(T, 1.0, d_x.data(), 0.0, nullptr, d_y.data()); }, tT));
  PetscCall(PGXBenchMedian(reps, [&] { return K::cuda::csr_product(n, d_rp.data(), d_rc.data(), d_rv.data(), d_x.data(), d_y.data()); }, tR));
  PetscCall(PGXTridiagDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunProblem(const char *prob, PetscInt m, int reps, PetscReal rtol, PetscInt maxit, PGXDeviceType dev, PetscBool solve)
{
  Mat         A;
  Vec         x, b, one;
  PetscInt    n;
  double      tT = 0, tR = 0;
  const char *pcs[] = {"jacobi", "ilu", "aips0", "aips1", "aips2", "aips3"};

  PetscFunctionBegin;
  PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, prob, m, &A));
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &one));
  PetscCall(VecSet(one, 1.0));
  PetscCall(MatMult(A, one, b));
  if (dev == PGX_DEVICE_CUDA) PetscCall(DeviceParts(A, reps, &tT, &tR));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s m=%d (n=%d), GMRES(30) to rtol %.0e; AIPS backend %s", prob, (int)m, (int)n, (double)rtol, PGXDeviceName(dev)));
  if (dev == PGX_DEVICE_CUDA) PetscCall(PetscPrintf(PETSC_COMM_SELF, "; device: tridiagonal solve t_T %.4f ms, R product t_R %.4f ms", tT, tR));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n  %-8s %6s %10s %10s %14s %14s %9s\n", "pc", "its", "setup[s]", "solve[s]", "PCApply[ms]", "device[ms]", "dev/model"));
  for (const char *name : pcs) {
    if (!solve && strncmp(name, "aips", 4)) continue;
    KSP                ksp;
    PC                 pc;
    KSPConvergedReason reason;
    PetscInt           its, order = -1;
    PetscLogDouble     t0, t1, t2 = 0;
    double             apply = 0, devms = -1;
    PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPGMRES));
    PetscCall(KSPSetTolerances(ksp, rtol, PETSC_DEFAULT, PETSC_DEFAULT, maxit));
    PetscCall(KSPGetPC(ksp, &pc));
    if (!strncmp(name, "aips", 4)) {
      order = name[4] - '0';
      PetscCall(PCSetType(pc, PCAIPS));
      PetscCall(PCAIPSSetOrder(pc, order));
    } else PetscCall(PCSetType(pc, name));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(VecSet(x, 0));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSetUp(ksp));
    PetscCall(PCSetUp(pc));
    PetscCall(PetscTime(&t1));
    its    = -1;
    reason = KSP_CONVERGED_ITERATING;
    if (solve) {
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(PetscTime(&t2));
      PetscCall(KSPGetIterationNumber(ksp, &its));
      PetscCall(KSPGetConvergedReason(ksp, &reason));
      PetscCall(MedianHost(reps, [&] { return PCApply(pc, b, x); }, &apply));
    }
    if (order >= 0 && dev == PGX_DEVICE_CUDA) {
      pgx::cuda::DeviceArray<PetscScalar> d_b, d_y;
      const PetscScalar                  *ba;
      PetscCall(VecGetArrayRead(b, &ba));
      PetscCall(d_b.upload(ba, n));
      PetscCall(PGXDeviceSynchronize());
      PetscCall(VecRestoreArrayRead(b, &ba));
      PetscCall(d_y.resize(n));
      PetscCall(PGXBenchMedian(reps, [&] { return PGXPCApplyDevice(pc, d_b.data(), d_y.data()); }, &devms));
    }
    char its_s[32], dev_s[32] = "-", ratio_s[32] = "-";
    if (solve) PetscCall(PetscSNPrintf(its_s, sizeof(its_s), reason > 0 ? "%d" : "%d!", (int)its));
    else PetscCall(PetscSNPrintf(its_s, sizeof(its_s), "-"));
    if (devms >= 0) {
      PetscCall(PetscSNPrintf(dev_s, sizeof(dev_s), "%.4f", devms));
      PetscCall(PetscSNPrintf(ratio_s, sizeof(ratio_s), "%.2f", devms / (order * tR + (order + 1) * tT)));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-8s %6s %10.3f %10.3f %14.4f %14s %9s\n", name, its_s, t1 - t0, solve ? t2 - t1 : 0.0, apply, dev_s, ratio_s));
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  (its with '!': not converged)\n\n"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&one));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char          list[512] = "aniso3d:64,convdiff3d:64";
  PetscInt      reps      = 20, maxit = 1000;
  PetscReal     rtol      = 1e-8;
  PGXDeviceType req, dev;
  PetscBool     solve = PETSC_TRUE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-problems", list, sizeof(list), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxit", &maxit, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve", &solve, NULL));
  PetscCall(PGXGetDefaultDeviceType(&req));
  PetscCall(PGXDeviceResolve(PETSC_COMM_SELF, req, &dev));
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    char    *colon = strchr(tok, ':');
    PetscInt m     = 64;
    if (colon) {
      *colon = 0;
      m      = atoi(colon + 1);
    }
    PetscCall(RunProblem(tok, m, (int)reps, rtol, maxit, dev, solve));
  }
  PetscCall(PetscFinalize());
  return 0;
}
