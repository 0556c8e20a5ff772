static char help[] = "Dense LU, cuda backend: the panel options of issue 14 (stream priority, leaf rows per thread, leaf swaps) against the default path.\n"
                     "  -matrix <random,diagdom,zerolead,singular,illcond>  -n <n>  -nb <nb>  -leaf <w>  -lookahead  -precision <double,tf32,half,bf16>\n"
                     "  -coop <bool> (cooperative leaves; else the one-block leaf)  -priority <bool>  -leafrows <0,1,2,4,8>  -leafswaps <bool>  -refcheck <bool> (pivots against the reference, n <= 1500)\n"
                     "  -path <auto,fused,blocked,cluster,cusolver> (the variant's path: -mat_pgx_lu_path)  -panel <pgx,cusolver,auto> (who factors the variant's pivoted FP64 panels: -mat_pgx_lu_panel)\n"
                     "  -cusolver_max <n> -panel_max <n> (the variant's panel auto: SetPanel)  -graph (the variant in a CUDA graph: factored 4 times)\n"
                     "  -leftstream <bool> (the variant's look-ahead left swaps on their own stream: -mat_pgx_lu_left_swap_stream; default true, as the default path's)\n"
                     "  -swapplan <bool> (the variant's swap plans made once per panel: SetSwapPlan; default true, as the default path's)\n"
                     "  -trsmleaf <rows> (the variant's FP64 U-row solves split down to cublasDtrsm of this many rows: SetTrsmLeaf; default 64, as the default path's; 0: one cublasDtrsm)  -factol <t> (the factors' agreement, relative to max|LU|; default 1e-12 FP64)\n";
/* One matrix (seeded), factored twice on the device: by the default path (priority off, leaf rows by the default
   rule, recursion swaps) and by the variant the options name (with the same block size, leaf width, look-ahead and
   precision). Checks (prints "all checks passed" and one line naming the variant):
   - the same zero pivot column (-1 when none) and finite input;
   - the pivots are the same as the default path's (and, -refcheck with n <= 1500, as the reference's = LAPACK
     dgetrf's minus one, for FP64);
   - the factors differ from the default path's by at most 1e-12 max|LU| (FP64) / 1e-5 max|LU| (low precision): the
     variants do the same operations, only scheduled differently (a leaf's rows per thread, where the swaps happen,
     which stream);
   - the variant's cooperative leaves used min(R, Rmax) rows per thread (W: the leaf kernel's width 8, 16 or 32;
     Rmax = min(8, 512 / (W sizeof(T))), T double or float (mixed))
     when -leafrows R > 0, 1 with the default rule (n <= 8000: 1 row per thread fits on an H100); 0 with -coop 0;
   - a forced path (-path other than auto), FP64, random or diagdom, n <= 1500: its factors within 1e-12 max|LU| of the
     reference's (as test_cuda_kernels asserts for the default path);
   - -panel cusolver (FP64): every panel of the variant (ceil(n / nb)) was factored by cusolverDnDgetrf, none by PGX's
     leaves; low precision: none (PGX's panels); -path cusolver (FP64): the path is named "cusolver" and one
     cusolverDnDgetrf factored the whole matrix; -panel auto: as the ranges -cusolver_max and -panel_max say;
   - -path cluster: every leaf of the variant was factored by one thread-block cluster when n <= 4096 (sm_90: a
     cluster of at most 16 blocks of 256 threads, up to 2 (FP64) rows per thread), the path is named "cluster..."
     and the rows per thread used are between the requested (1 by default) and Rmax;
   - -graph: the variant is factored four times with -mat_pgx_lu_graph (direct, captured, replayed, replayed): one
     graph captured, the third factorization replayed it with the second's factors and pivots bitwise, and the fourth
     (replayed too) gives the factors compared above;
   - -leftstream 0 with look-ahead: the factors are bitwise the default's (left swaps on their own stream);
   - -swapplan 0: the factors are bitwise the default's (every swap block builds its own plan: the same moves);
   - -trsmleaf r: the variant's U rows split down to solves of r rows (0: one cublasDtrsm; the default path's 64),
     other round-off: -factol loosens the factors' check, which is relative to max|LU| and so scales with the
     condition of the panels' L11; the same pivots;
   - FP64: Solve and transpose Solve (2 right-hand sides) have backward error < 10 with both; mixed: the refined solve
     (or its FP64 fallback) of the variant has backward error < 1. */
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
#include "denselu_cuda_checks.h"

struct Setup {
  PetscInt      n = 1000, nb = 256, leaf = 0, leafrows = 0;
  PetscBool     lookahead = PETSC_FALSE, priority = PETSC_FALSE, leafswaps = PETSC_FALSE, coop = PETSC_TRUE;
  PetscBool     leftstream = PETSC_TRUE; /* the variant's */
  PetscBool     swapplan   = PETSC_TRUE; /* the variant's */
  PetscInt      trsmleaf   = 64;         /* the variant's (the default path's: 64) */
  dl::Precision prec = dl::PRECISION_DOUBLE;
  dl::Path      path = dl::PATH_AUTO; /* the variant's */
  dl::Panel     panel = dl::PANEL_PGX; /* the variant's */
  PetscInt      wholemax = 0, panelmax = 0; /* the variant's panel auto */
  PetscBool     graph = PETSC_FALSE;  /* the variant's */
};

static PetscErrorCode Run(const Setup &su, PetscBool variant, const std::vector<double> &a, std::vector<double> &lu, std::vector<PetscInt> &piv, PetscInt *zc, PetscInt *rowsused, cu::Data **dout)
{
  const PetscInt n = su.n;
  PetscBool      finite;
  cu::Data      *d;

  PetscFunctionBegin;
  PetscCall(cu::Create(&d));
  PetscCall(cu::SetBlockSize(d, su.nb));
  PetscCall(cu::SetSmallSize(d, 64));
  PetscCall(cu::SetPrecision(d, su.prec));
  PetscCall(cu::SetLookAhead(d, su.lookahead));
  PetscCall(cu::SetLeaf(d, su.leaf, su.coop));
  if (variant) PetscCall(cu::SetPanelOptions(d, su.priority, su.leafrows, su.leafswaps));
  if (variant) PetscCall(cu::SetPath(d, su.path, 0));
  if (variant) PetscCall(cu::SetPanel(d, su.panel, su.wholemax, su.panelmax));
  if (variant) PetscCall(cu::SetLeftSwapStream(d, su.leftstream));
  if (variant) PetscCall(cu::SetSwapPlan(d, su.swapplan));
  if (variant) PetscCall(cu::SetTrsmLeaf(d, su.trsmleaf));
  if (variant && su.graph) { /* direct, captured, replayed */
    std::vector<double>   lu2(n * n);
    std::vector<PetscInt> piv2(n);
    PetscInt              ncap;
    PetscBool             replayed;
    PetscCall(cu::SetGraph(d, PETSC_TRUE));
    PetscCall(cu::Factor(d, n, a.data(), n, zc, &finite));
    PetscCall(cu::GetGraphInfo(d, &ncap, &replayed));
    CHECK(ncap == 0 && !replayed, "graph: after the first factorization %d captured, replayed %d (expected 0, 0)", (int)ncap, (int)replayed);
    PetscCall(cu::Factor(d, n, a.data(), n, zc, &finite));
    PetscCall(cu::GetGraphInfo(d, &ncap, &replayed));
    CHECK(ncap == 1 && !replayed, "graph: after the second factorization %d captured, replayed %d (expected 1, 0)", (int)ncap, (int)replayed);
    PetscCall(cu::GetFactors(d, lu2.data(), piv2.data()));
    lu.assign(n * n, NAN);
    piv.assign(n, -1);
    PetscCall(cu::Factor(d, n, a.data(), n, zc, &finite));
    PetscCall(cu::GetGraphInfo(d, &ncap, &replayed));
    CHECK(ncap == 1 && replayed, "graph: after the third factorization %d captured, replayed %d (expected 1, 1)", (int)ncap, (int)replayed);
    PetscCall(cu::GetFactors(d, lu.data(), piv.data()));
    PetscInt ndiff = 0;
    for (PetscInt i = 0; i < n * n; i++) ndiff += !(lu[i] == lu2[i]);
    for (PetscInt k = 0; k < n; k++) ndiff += piv[k] != piv2[k];
    CHECK(ndiff == 0, "graph: the replayed factorization differs from the captured one in %d entries or pivots", (int)ndiff);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "graph: captured once, replayed, the same factors\n"));
  }
  lu.assign(n * n, NAN);
  piv.assign(n, -1);
  PetscCall(cu::Factor(d, n, a.data(), n, zc, &finite));
  CHECK(finite, "%s: the finite matrix was reported non-finite", variant ? "variant" : "default");
  PetscCall(cu::GetFactors(d, lu.data(), piv.data()));
  PetscCall(cu::GetLeafRowsUsed(d, rowsused));
  *dout = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Setup       su;
  char        kind[32] = "random", prec[16] = "double", path[16] = "auto", panel[16] = "pgx";
  PetscBool   refcheck = PETSC_TRUE;
  PetscReal   cond     = 1e6;
  PetscReal   factol   = 0; /* 0: 1e-12 (FP64) or 1e-5 */
  const char *precs[]  = {"double", "tf32", "half", "bf16"};
  const char *paths[]  = {"auto", "fused", "blocked", "cluster", "cusolver"};
  const char *panels[] = {"auto", "pgx", "cusolver"};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", kind, sizeof(kind), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-precision", prec, sizeof(prec), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-path", path, sizeof(path), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-panel", panel, sizeof(panel), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cusolver_max", &su.wholemax, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-panel_max", &su.panelmax, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &su.n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &su.nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-leaf", &su.leaf, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-leafrows", &su.leafrows, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-lookahead", &su.lookahead, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-priority", &su.priority, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-leafswaps", &su.leafswaps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-refcheck", &refcheck, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-coop", &su.coop, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-graph", &su.graph, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-leftstream", &su.leftstream, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-swapplan", &su.swapplan, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-trsmleaf", &su.trsmleaf, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-factol", &factol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-cond", &cond, NULL));
  for (int p = 0; p < 4; p++)
    if (!std::strcmp(prec, precs[p])) su.prec = (dl::Precision)p;
  for (int p = 0; p < 5; p++)
    if (!std::strcmp(path, paths[p])) su.path = (dl::Path)p;
  for (int p = 0; p < 3; p++)
    if (!std::strcmp(panel, panels[p])) su.panel = (dl::Panel)p;
  const PetscInt      n = su.n;
  const bool          dbl = su.prec == dl::PRECISION_DOUBLE;
  std::vector<double> a(n * n), lu0, lu1;
  std::vector<PetscInt> p0, p1;
  PetscInt            z0, z1, r0, r1, np = 0;
  cu::Data           *d0, *d1;
  double              dm = 0, m = 0;

  DenseLUSeed(7000 + n);
  PetscCall(DenseLUMatrix(kind, n, cond, a.data()));
  PetscCall(Run(su, PETSC_FALSE, a, lu0, p0, &z0, &r0, &d0));
  PetscCall(Run(su, PETSC_TRUE, a, lu1, p1, &z1, &r1, &d1));
  CHECK(z0 == z1, "zero pivot column: default %d, variant %d", (int)z0, (int)z1);
  np = DenseLUPivotDiffs(n, p0.data(), p1.data());
  CHECK(np == 0, "%d pivots of the variant differ from the default path's", (int)np);
  DenseLUMaxDiff(n * n, lu1.data(), lu0.data(), &dm, &m);
  if (factol <= 0) factol = dbl ? 1e-12 : 1e-5;
  CHECK(dm <= factol * m, "max |LU_variant - LU_default| = %g (max |LU| %g)", dm, m);
  if (su.trsmleaf != 64) PetscCall(PetscPrintf(PETSC_COMM_SELF, "U rows %s%d-row solves in the variant: the same pivots, factors within %g max|LU|\n", su.trsmleaf ? "split down to " : "by one cublasDtrsm, not ", (int)(su.trsmleaf ? su.trsmleaf : 64), (double)factol));
  if (refcheck && dbl && n <= 1500) {
    std::vector<double>   lr = a;
    std::vector<PetscInt> pr(n);
    PetscInt              zr, npr;
    PetscCall(ref::Factor(n, lr.data(), n, su.nb, pr.data(), &zr));
    npr = DenseLUPivotDiffs(n, pr.data(), p1.data());
    CHECK(npr == 0 && zr == z1, "%d pivots of the variant differ from the reference's (zero column %d, reference %d)", (int)npr, (int)z1, (int)zr);
    if (su.path != dl::PATH_AUTO && (!std::strcmp(kind, "random") || !std::strcmp(kind, "diagdom"))) { /* a forced path: its factors against the reference's */
      double dr, mr;
      DenseLUMaxDiff(n * n, lu1.data(), lr.data(), &dr, &mr);
      CHECK(dr <= 1e-12 * mr, "max |LU_variant - LU_reference| = %g (max |LU| %g)", dr, mr);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "factors of the %s path against the reference: within 1e-12 max|LU|\n", path));
    }
  }
  PetscInt ncs = 0; /* the variant's panels by cusolverDnDgetrf */
  {
    const bool  whole = dbl && (su.path == dl::PATH_CUSOLVER || (su.path == dl::PATH_AUTO && su.panel == dl::PANEL_AUTO && n <= su.wholemax));
    const bool  csp   = dbl && !whole && (su.panel == dl::PANEL_CUSOLVER || (su.panel == dl::PANEL_AUTO && n <= su.panelmax));
    const char *pname;
    PetscInt    ncs0;
    PetscCall(cu::GetPanelInfo(d1, &ncs));
    PetscCall(cu::GetPanelInfo(d0, &ncs0));
    PetscCall(cu::GetInfo(d1, &pname, NULL, NULL));
    CHECK(ncs0 == 0, "the default path factored %d panels by cusolverDnDgetrf (expected none)", (int)ncs0);
    if (whole) {
      CHECK(!std::strcmp(pname, "cusolver") && ncs == 1, "the variant's path is %s with %d cusolverDnDgetrf calls (expected cusolver, 1)", pname, (int)ncs);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "whole matrix by one cusolverDnDgetrf: the same pivots, factors within %g max|LU|\n", (double)factol));
    } else if (csp) {
      CHECK(ncs == (n + su.nb - 1) / su.nb, "the variant factored %d panels by cusolverDnDgetrf (expected all %d)", (int)ncs, (int)((n + su.nb - 1) / su.nb));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d panels by cusolverDnDgetrf (path %s): the same pivots, factors within %g max|LU|\n", (int)ncs, pname, (double)factol));
    } else {
      CHECK(ncs == 0, "the variant factored %d panels by cusolverDnDgetrf (expected none: %s)", (int)ncs, dbl ? "panel pgx or outside auto's range" : "low precision takes PGX's panels");
      if (su.panel != dl::PANEL_PGX) PetscCall(PetscPrintf(PETSC_COMM_SELF, "no panel by cusolverDnDgetrf (%s)\n", dbl ? "outside auto's range" : "low precision"));
    }
  }
  {
    const PetscInt lw = su.leaf ? su.leaf : 32, W = lw <= 8 ? 8 : (lw <= 16 ? 16 : 32), rmax = PetscMin(8, 512 / (W * (dbl ? 8 : 4))), want = (!su.coop || ncs) ? 0 : (su.leafrows ? PetscMin(su.leafrows, rmax) : 1);
    if (su.path == dl::PATH_CLUSTER && !ncs) {
      const PetscInt  wantc = su.leafrows ? PetscMin(su.leafrows, rmax) : 1;
      PetscInt        ncl, gmax, lwu, nco, nbl;
      const char     *pname;
      PetscCall(cu::GetClusterInfo(d1, &ncl, &gmax));
      PetscCall(cu::GetLeafInfo(d1, &lwu, &nco, &nbl));
      PetscCall(cu::GetInfo(d1, &pname, NULL, NULL));
      CHECK(!std::strncmp(pname, "cluster", 7), "the variant's path is %s, not cluster", pname);
      CHECK(r0 == (su.coop ? 1 : 0), "cooperative leaf rows per thread of the default path: %d (expected %d)", (int)r0, su.coop ? 1 : 0);
      if (n <= 4096) {
        CHECK(ncl > 0 && nco == 0 && nbl == 0 && gmax >= 1 && gmax <= 16, "cluster path: %d leaves by a cluster (largest %d blocks), %d cooperative, %d one-block (expected all by a cluster of <= 16 blocks)", (int)ncl, (int)gmax, (int)nco, (int)nbl);
        CHECK(r1 >= wantc && r1 <= rmax, "cluster leaf rows per thread used %d, expected %d..%d", (int)r1, (int)wantc, (int)rmax);
      }
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "path %s: %d of %d leaves by one thread-block cluster\n", pname, (int)ncl, (int)(ncl + nco + nbl)));
    } else CHECK(r0 == (su.coop ? 1 : 0) && r1 == want, "cooperative leaf rows per thread: default %d (expected %d), variant %d (expected %d)", (int)r0, su.coop ? 1 : 0, (int)r1, (int)want);
  }
  if (!su.leftstream && su.lookahead) { /* the same interchanges on the same columns, on another stream: the same bits */
    PetscInt nd = 0;
    for (PetscInt i = 0; i < n * n; i++) nd += !(lu1[i] == lu0[i]);
    CHECK(nd == 0, "left swaps on the panel's stream: %d entries of the factors differ from the default's (expected the same bits)", (int)nd);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "left swaps on the panel's stream: the same factors as on their own stream\n"));
  }
  if (!su.swapplan) { /* the same moves from plans built per block: the same bits */
    PetscInt nd = 0;
    for (PetscInt i = 0; i < n * n; i++) nd += !(lu1[i] == lu0[i]);
    CHECK(nd == 0, "swap plans per block: %d entries of the factors differ from the default's (expected the same bits)", (int)nd);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "swap plans built per block: the same factors as with one plan per panel\n"));
  }
  if (z1 < 0) {
    if (dbl) PetscCall(DenseLUCheckSolves(d0, n, a, 2, 10.0, PETSC_FALSE, "default"));
    PetscCall(DenseLUCheckSolves(d1, n, a, 2, dbl ? 10.0 : 1.0, PETSC_FALSE, "variant"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %s n %d nb %d leaf %d coop %d look-ahead %d: priority %d, leaf rows %d (used %d), leaf swaps %d: same pivots as the default path\n", prec, kind, (int)n, (int)su.nb, (int)su.leaf, (int)su.coop, (int)su.lookahead, (int)su.priority, (int)su.leafrows, (int)r1, (int)su.leafswaps));
  PetscCall(cu::Destroy(&d0));
  PetscCall(cu::Destroy(&d1));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks FAILED\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
