/* tests/denselu/denselu_cuda_checks.h: the checks of a cuda dense LU factorization shared by test_cuda_kernels.cu and
   test_cuda_panel.cu. Include after tests/common/pgxtest.h, the namespace aliases cu and dl, and the test's own
   'static int nfail' (CHECK counts there). */
#pragma once

/* max_i |x_i - y_i| (an unwritten, non-finite entry of x counts as infinite) and max_i |y_i|, over m entries */
static inline void DenseLUMaxDiff(PetscInt m, const double *x, const double *y, double *dmax, double *ymax)
{
  double dm = 0, ym = 0;
  for (PetscInt i = 0; i < m; i++) dm = std::isfinite(x[i]) ? PetscMax(dm, std::fabs(x[i] - y[i])) : INFINITY, ym = PetscMax(ym, std::fabs(y[i]));
  *dmax = dm;
  *ymax = ym;
}

/* the number of positions where two pivot vectors of length n differ */
static inline PetscInt DenseLUPivotDiffs(PetscInt n, const PetscInt *p, const PetscInt *q)
{
  PetscInt np = 0;
  for (PetscInt k = 0; k < n; k++) np += p[k] != q[k];
  return np;
}

/* Solve and transpose Solve with d's factors, nrhs random right-hand sides each: backward error below tol; refined
   (mixed precision): without fallback */
static PetscErrorCode DenseLUCheckSolves(cu::Data *d, PetscInt n, const std::vector<double> &a, PetscInt nrhs, double tol, PetscBool refined, const char *what)
{
  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    std::vector<double> b(n * nrhs), x;
    dl::RefineResult    rr;
    for (auto &v : b) v = DenseLURand();
    x = b;
    PetscCall(cu::SolveHost(d, t ? PETSC_TRUE : PETSC_FALSE, nrhs, x.data(), n, &rr));
    for (PetscInt r = 0; r < nrhs; r++) {
      const double be = DenseLUBackwardError(n, a.data(), x.data() + r * n, b.data() + r * n, t ? 'T' : 'N');
      CHECK(be < tol, "%s %s: backward error %g", what, t ? "transpose solve" : "solve", be);
    }
    if (refined) CHECK(!rr.fellback, "%s: the refinement fell back", what);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
