static char help[] = "Runs PETSc's KSP (-type cg|bcgs|gmres) and PGX's resident twin (pgxcg|pgxbcgs|pgxgmres) on the same\n"
                     "system with the same options and checks: the same iteration count and converged reason, residual\n"
                     "histories equal to -hist_tol (1e-10) relative to the initial residual norm, solutions equal to -sol_tol relative (1e-8).\n"
                     "  -problem poisson2d|poisson3d|aniso3d|convdiff3d|helmholtz3d|random|swap -m <m> | -matrix <tests/data name> [-negate]\n"
                     "  -phase (complex scalars: D A D^H, D = diag(exp(0.7 i k)): Hermitian with complex entries when A is symmetric)\n"
                     "  -true_monitor (compare ||b - A x_k|| from KSPBuildResidual at every step)  -shift s (A + s I)  -convert <mattype>  -rhs ones|zero|e0  -nonzero_guess  -mode once|reuse  -pgx_view\n"
                     "Prints the PGX run's iteration count and reason (stable across backends and ranks).\n";
#include <petscksp.h>
#include <pgx.h>
#include "../common/pgxtest.h"
#include "../dilu/dilu_problems.h"

static PetscInt nfail = 0;

typedef struct {
  PetscInt           its, nhist, ntrue;
  PetscReal          hist[4096], truehist[4096];
  KSPConvergedReason reason;
} Run;

/* -true_monitor: the norm of b - A x_k from KSPBuildResidual() at every monitor call (exercises KSPBuildSolution) */
static PetscErrorCode TrueMonitor(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
  Run      *run = (Run *)ctx;
  Vec       t, v, res;
  PetscReal nrm;

  PetscFunctionBeginUser;
  PetscCall(KSPGetSolution(ksp, &t));
  PetscCall(VecDuplicate(t, &v));
  PetscCall(VecDuplicate(t, &t));
  PetscCall(KSPBuildResidual(ksp, t, v, &res));
  PetscCall(VecNorm(res, NORM_2, &nrm));
  if (run->ntrue < 4096) run->truehist[run->ntrue++] = nrm;
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(KSP ksp, Vec b, Vec x0, Vec x, Run *run)
{
  const PetscReal *h;
  PetscBool        tm = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-true_monitor", &tm, NULL));
  run->ntrue = 0;
  if (tm) {
    PetscCall(KSPMonitorCancel(ksp));
    PetscCall(KSPMonitorSet(ksp, TrueMonitor, run, NULL));
  }
  PetscCall(KSPSetResidualHistory(ksp, run->hist, 4096, PETSC_TRUE));
  PetscCall(VecCopy(x0, x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &run->its));
  PetscCall(KSPGetConvergedReason(ksp, &run->reason));
  PetscCall(KSPGetResidualHistory(ksp, &h, &run->nhist));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(const char *what, Run *p, Run *q, Vec xp, Vec xq, PetscReal htol, PetscReal stol)
{
  PetscReal hmax = 0, nx, dx;
  Vec       d;

  PetscFunctionBeginUser;
  CHECK(p->its == q->its, "%s: iterations PETSc %" PetscInt_FMT ", PGX %" PetscInt_FMT, what, p->its, q->its);
  CHECK(p->reason == q->reason, "%s: reason PETSc %s, PGX %s", what, KSPConvergedReasons[p->reason], KSPConvergedReasons[q->reason]);
  CHECK(p->nhist == q->nhist, "%s: history lengths PETSc %" PetscInt_FMT ", PGX %" PetscInt_FMT, what, p->nhist, q->nhist);
  for (PetscInt i = 0; i < PetscMin(p->nhist, q->nhist); i++) {
    PetscReal a = p->hist[i], b = q->hist[i], e = PetscAbsReal(a - b) / PetscMax(p->hist[0], 1e-300); /* relative to ||r_0|| */
    if (a == b) e = 0;
    hmax = PetscMax(hmax, e);
  }
  CHECK(hmax <= htol, "%s: residual histories differ by %g relative (tolerance %g)", what, (double)hmax, (double)htol);
  CHECK(p->ntrue == q->ntrue, "%s: true-residual monitor calls PETSc %" PetscInt_FMT ", PGX %" PetscInt_FMT, what, p->ntrue, q->ntrue);
  if (p->ntrue) {
    PetscReal tmax = 0;
    PetscInt  imax = 0;
    for (PetscInt i = 0; i < PetscMin(p->ntrue, q->ntrue); i++) {
      PetscReal e = PetscAbsReal(p->truehist[i] - q->truehist[i]) / p->truehist[0];
      if (e > tmax) tmax = e, imax = i;
    }
    CHECK(tmax <= 1e-8, "%s: true residual norms differ by %g relative to the first (tolerance 1e-8), at monitor call %d of %d: PETSc %.6e, PGX %.6e", what, (double)tmax, (int)imax, (int)p->ntrue, (double)p->truehist[imax], (double)q->truehist[imax]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " true residual norms agree, last %.3e\n", what, q->ntrue, (double)q->truehist[q->ntrue - 1]));
  }
  PetscCall(VecDuplicate(xp, &d));
  PetscCall(VecWAXPY(d, -1.0, xp, xq));
  PetscCall(VecNorm(d, NORM_2, &dx));
  PetscCall(VecNorm(xp, NORM_2, &nx));
  if (q->reason != KSP_DIVERGED_PC_FAILED && q->reason != KSP_DIVERGED_NANORINF) CHECK(dx <= stol * PetscMax(nx, 1e-300) || dx == 0, "%s: solutions differ by %g relative (tolerance %g)", what, (double)(dx / nx), (double)stol);
  PetscCall(VecDestroy(&d));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: iterations %" PetscInt_FMT ", %s, history length %" PetscInt_FMT "%s\n", what, q->its, KSPConvergedReasons[q->reason], q->nhist, hmax <= htol ? ", histories agree" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A;
  Vec         b, x0, xp, xq, u;
  KSP         kp, kq;
  char        problem[64] = "poisson3d", matrix[256] = "", path[PETSC_MAX_PATH_LEN], type[32] = "cg", pgxtype[40], rhs[16] = "ones", mode[16] = "once";
  PetscInt    m = 10;
  PetscBool   negate = PETSC_FALSE, hasmatrix, guess = PETSC_FALSE, view = PETSC_FALSE, isswap, phase = PETSC_FALSE;
  PetscReal   shift = 0, htol = 1e-10, stol = 1e-8;
  static Run  rp, rq;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-problem", problem, sizeof(problem), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", matrix, sizeof(matrix), &hasmatrix));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-rhs", rhs, sizeof(rhs), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-negate", &negate, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-phase", &phase, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-nonzero_guess", &guess, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-pgx_view", &view, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-shift", &shift, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-hist_tol", &htol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-sol_tol", &stol, NULL));
  PetscCall(PetscSNPrintf(pgxtype, sizeof(pgxtype), "pgx%s", type));
  PetscCall(PetscStrcmp(problem, "swap", &isswap));
  if (hasmatrix) {
    PetscCall(DILUTestMatrixPath(matrix, path, sizeof(path)));
    PetscCall(DILUTestLoadMM(PETSC_COMM_WORLD, path, &A));
  } else if (isswap) { /* block diagonal of [0 1; 1 0]: (A e0, e0) = 0, the breakdown case of BiCGStab and CG */
    PetscInt rs, re;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 2 * m, 2 * m, 1, NULL, 1, NULL, &A));
    PetscCall(MatGetOwnershipRange(A, &rs, &re));
    for (PetscInt i = rs; i < re; i++) PetscCall(MatSetValue(A, i, i ^ 1, 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  } else PetscCall(DILUTestProblem(PETSC_COMM_WORLD, problem, m, &A));
  if (negate) PetscCall(MatScale(A, -1.0));
  if (phase) { /* D A D^H with D = diag(exp(0.7 i k)): Hermitian with complex off-diagonal entries when A is real symmetric,
                  the same spectrum (complex scalars; real builds keep A) */
#if defined(PETSC_USE_COMPLEX)
    Vec          dl, dr;
    PetscScalar *a, *c;
    PetscInt     rs, re;
    PetscCall(MatCreateVecs(A, &dr, &dl));
    PetscCall(VecGetOwnershipRange(dl, &rs, &re));
    PetscCall(VecGetArray(dl, &a));
    PetscCall(VecGetArray(dr, &c));
    for (PetscInt k = rs; k < re; k++) {
      a[k - rs] = PetscCMPLX(PetscCosReal(0.7 * (PetscReal)k), PetscSinReal(0.7 * (PetscReal)k));
      c[k - rs] = PetscConj(a[k - rs]);
    }
    PetscCall(VecRestoreArray(dl, &a));
    PetscCall(VecRestoreArray(dr, &c));
    PetscCall(MatDiagonalScale(A, dl, dr));
    PetscCall(VecDestroy(&dl));
    PetscCall(VecDestroy(&dr));
#endif
  }
  {
    char      mtype[64];
    PetscBool conv;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-convert", mtype, sizeof(mtype), &conv)); /* e.g. baij: not supported */
    if (conv) PetscCall(MatConvert(A, mtype, MAT_INPLACE_MATRIX, &A));
  }
  if (shift != 0) PetscCall(MatShift(A, shift));
  PetscCall(MatCreateVecs(A, &x0, &b));
  PetscCall(VecDuplicate(x0, &xp));
  PetscCall(VecDuplicate(x0, &xq));
  PetscCall(VecDuplicate(x0, &u));
  PetscCall(VecSet(u, 1.0));
  if (!strcmp(rhs, "zero")) PetscCall(VecSet(b, 0.0));
  else if (!strcmp(rhs, "e0")) {
    PetscCall(VecSet(b, 0.0));
    PetscCall(VecSetValue(b, 0, 1.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(b));
    PetscCall(VecAssemblyEnd(b));
  } else PetscCall(MatMult(A, u, b));
  if (guess) { /* a fixed, rank-independent initial guess */
    PetscInt     rs, re;
    PetscScalar *a;
    PetscCall(VecGetOwnershipRange(x0, &rs, &re));
    PetscCall(VecGetArray(x0, &a));
    for (PetscInt i = rs; i < re; i++) a[i - rs] = PetscSinReal((PetscReal)i);
    PetscCall(VecRestoreArray(x0, &a));
  } else PetscCall(VecSet(x0, 0.0));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &kp));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &kq));
  PetscCall(KSPSetOperators(kp, A, A));
  PetscCall(KSPSetOperators(kq, A, A));
  PetscCall(KSPSetType(kp, type));
  PetscCall(KSPSetType(kq, pgxtype));
  PetscCall(KSPSetTolerances(kp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPSetTolerances(kq, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPSetInitialGuessNonzero(kp, guess));
  PetscCall(KSPSetInitialGuessNonzero(kq, guess));
  PetscCall(KSPSetFromOptions(kp));
  PetscCall(KSPSetFromOptions(kq));

  PetscCall(Solve(kp, b, x0, xp, &rp));
  PetscCall(Solve(kq, b, x0, xq, &rq));
  PetscCall(Compare(hasmatrix ? matrix : problem, &rp, &rq, xp, xq, htol, stol));
  if (!strcmp(mode, "reuse")) {
    /* new values, same pattern: the values are refreshed; then the same matrix again: nothing is copied */
    PetscCall(MatScale(A, 2.0));
    PetscCall(MatShift(A, 1.0));
    PetscCall(Solve(kp, b, x0, xp, &rp));
    PetscCall(Solve(kq, b, x0, xq, &rq));
    PetscCall(Compare("new values", &rp, &rq, xp, xq, htol, stol));
    PetscCall(Solve(kp, b, x0, xp, &rp));
    PetscCall(Solve(kq, b, x0, xq, &rq));
    PetscCall(Compare("same matrix", &rp, &rq, xp, xq, htol, stol));
  }
  if (view) PetscCall(KSPView(kq, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(KSPDestroy(&kp));
  PetscCall(KSPDestroy(&kq));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&xp));
  PetscCall(VecDestroy(&xq));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  {
    PetscInt g;
    PetscCallMPI(MPI_Allreduce(&nfail, &g, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    if (!g) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " checks FAILED\n", g));
    nfail = g;
  }
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
