static char help[] = "Dense LU: the cuda backend against the reference on the same seeded matrices.\n";
/* Checks, on random and ill-conditioned (cond 1e6) matrices of sizes around the fused/blocked switch
   (nsmall = 128: n = 100, 127, 128, 129, 257, 700) and block sizes 32 and 64:
   - the same with look-ahead (n = 129, 257, 700 and the singular matrix);
   - outputs poisoned first (NaN factors, -1 pivots) so unwritten entries show;
   - pivots equal the reference's (0-based, dgetrf's minus one);
   - factors agree to 1e-12 relative to max |LU| (random) - round-off of a different operation order;
   - Solve and transpose Solve (3 right-hand sides) have backward error < 10;
   - the zero pivot of the singular matrix is found in the same column;
   - mixed precision (tf32 on cond 1e6, bf16 on 1e2, half on 1e3; GMRES-IR where plain refinement is slow) reaches the FP64 backward error (< 10) without fallback;
     on cond 1e14 it falls back to FP64 (reported) within 8 refinement steps and still reaches it. */
#include <petscsys.h>
#include <vector>
#include <cmath>
#include <cstring>
#include "../../src/mat/impls/denselu/denselu_kernels.h"
#define PGX_TEST_PLAIN_CHECK
#include "../common/pgxtest.h"
#include "denselu_matrices.h"

namespace ref = pgx::kernels::denselu::reference;
namespace cu  = pgx::kernels::denselu::cuda;
namespace dl  = pgx::kernels::denselu;
static int nfail = 0;

static PetscErrorCode Compare(const char *kind, PetscInt n, PetscInt nb, double cond, PetscBool lookahead = PETSC_FALSE)
{
  std::vector<double>   a(n * n), lr(n * n), lc(n * n, NAN);
  std::vector<PetscInt> pr(n), pc(n, -1);
  PetscInt              zr, zc;
  PetscBool             finite;
  cu::Data             *d;

  PetscFunctionBegin;
  DenseLUSeed(3000 + n);
  PetscCall(DenseLUMatrix(kind, n, cond, a.data()));
  lr = a;
  PetscCall(ref::Factor(n, lr.data(), n, nb, pr.data(), &zr));
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetBlockSize(d, nb));
  PetscCall(cu::SetSmallSize(d, 128));
  PetscCall(cu::SetLookAhead(d, lookahead));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
  CHECK(finite && zc == zr, "%s n %d: cuda zerocol %d finite %d, reference zerocol %d", kind, (int)n, (int)zc, (int)finite, (int)zr);
  PetscCall(cu::GetFactors(d, lc.data(), pc.data()));
  PetscInt np = 0;
  double   dm = 0, m = 0;
  for (PetscInt k = 0; k < n; k++) np += pr[k] != pc[k];
  for (PetscInt i = 0; i < n * n; i++) dm = std::isfinite(lc[i]) ? PetscMax(dm, std::fabs(lc[i] - lr[i])) : INFINITY, m = PetscMax(m, std::fabs(lr[i]));
  CHECK(np == 0, "%s n %d nb %d: %d pivots differ from the reference", kind, (int)n, (int)nb, (int)np);
  if (!std::strcmp(kind, "random")) CHECK(dm <= 1e-12 * m, "%s n %d nb %d: max |LU_cuda - LU_ref| = %g (max %g)", kind, (int)n, (int)nb, dm, m);
  if (zr < 0)
    for (int t = 0; t < 2; t++) {
      const PetscInt      nrhs = 3;
      std::vector<double> b(n * nrhs), x;
      PetscBool           fb;
      PetscInt            its;
      for (auto &v : b) v = DenseLURand();
      x = b;
      PetscCall(cu::SolveHost(d, t ? PETSC_TRUE : PETSC_FALSE, nrhs, x.data(), n, &fb, &its));
      for (PetscInt r = 0; r < nrhs; r++) {
        double be = DenseLUBackwardError(n, a.data(), x.data() + r * n, b.data() + r * n, t ? 'T' : 'N');
        CHECK(be < 10, "%s n %d nb %d %s: backward error %g", kind, (int)n, (int)nb, t ? "transpose" : "solve", be);
      }
    }
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* expect_fallback: 1 must fall back (within 8 steps), 0 must not, -1 either (reported): the backward error is checked always */
static PetscErrorCode Mixed(dl::Precision prec, const char *name, const char *kind, PetscInt n, double cond, int expect_fallback)
{
  std::vector<double> a(n * n), b(n), x;
  PetscInt            zc, its;
  PetscBool           finite, fb;
  cu::Data           *d;

  PetscFunctionBegin;
  DenseLUSeed(5000 + n);
  PetscCall(DenseLUMatrix(kind, n, cond, a.data()));
  for (auto &v : b) v = DenseLURand();
  x = b;
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetPrecision(d, prec));
  PetscCall(cu::SetSmallSize(d, 64));
  PetscCall(cu::Factor(d, n, a.data(), n, &zc, &finite));
  PetscCall(cu::SolveHost(d, PETSC_FALSE, 1, x.data(), n, &fb, &its));
  double be = DenseLUBackwardError(n, a.data(), x.data(), b.data(), 'N');
  CHECK(be < 10, "%s %s cond %g n %d: backward error %g after %d refinement steps (fallback %d)", name, kind, cond, (int)n, be, (int)its, (int)fb);
  if (expect_fallback >= 0) CHECK((int)fb == expect_fallback, "%s %s cond %g: fallback %d, expected %d (%d steps)", name, kind, cond, (int)fb, expect_fallback, (int)its);
  if (fb) CHECK(its <= 8, "%s %s cond %g: stagnation detected after %d steps, expected <= 8", name, kind, cond, (int)its);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %s cond %g n %d: %d refinement steps, %s, backward error %.2f\n", name, kind, cond, (int)n, (int)its, fb ? "fell back to FP64" : "no fallback", be));
  PetscCall(cu::Destroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt sizes[] = {1, 33, 100, 127, 128, 129, 257, 700};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  for (PetscInt n : sizes)
    for (PetscInt nb : {32, 64}) PetscCall(Compare("random", n, nb, 0));
  for (PetscInt n : {129, 257, 700}) /* look-ahead: the same operations in another order: the same checks */
    for (PetscInt nb : {32, 64}) PetscCall(Compare("random", n, nb, 0, PETSC_TRUE));
  PetscCall(Compare("singular", 257, 32, 0, PETSC_TRUE));
  PetscCall(Compare("illcond", 257, 32, 1e6));
  PetscCall(Compare("zerolead", 129, 32, 0));
  PetscCall(Compare("singular", 257, 32, 0));
  PetscCall(Compare("singular", 100, 32, 0));
  /* cond 1e6 in one direction: GMRES-IR reaches FP64 accuracy. Graded 1e6 (hundreds of singular values below the
     tf32 factor's error) needs more GMRES iterations than a correction allows: fallback or not, reported */
  PetscCall(Mixed(dl::PRECISION_TF32, "tf32", "cluster", 300, 1e6, 0));
  PetscCall(Mixed(dl::PRECISION_HALF, "half", "cluster", 300, 1e6, -1));
  PetscCall(Mixed(dl::PRECISION_TF32, "tf32", "illcond", 300, 1e6, -1));
  PetscCall(Mixed(dl::PRECISION_BF16, "bf16", "illcond", 300, 1e2, 0));
  PetscCall(Mixed(dl::PRECISION_HALF, "half", "illcond", 300, 1e3, 0));
  PetscCall(Mixed(dl::PRECISION_TF32, "tf32", "illcond", 300, 1e14, 1));
  PetscCall(Mixed(dl::PRECISION_HALF, "half", "illcond", 300, 1e14, 1));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
