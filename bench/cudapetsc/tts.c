static char help[] = "Time to solution (PCSetUp + KSPSolve) of several solver configurations in ONE process, interleaved.\n"
                     "  -m 100          grid m^3 (3D 7-point Laplacian on a DMDA, b = A 1: ex45's operator shape)\n"
                     "  -configs a,b    option prefixes, one KSP each: give each its options, e.g.\n"
                     "                  -a_ksp_type gmres -a_pc_type gamg -b_ksp_type gmres -b_pc_type gamg -b_mg_levels_4_pc_type dilu\n"
                     "  -reps 7         repetitions; round r runs every configuration once, in the order given, after a warm-up round\n"
                     "                  that is not counted (first CUDA, cuBLAS and cuSPARSE uses, first allocations)\n"
                     "  -fresh         a new KSP (and PC) for every solve, created outside the clock: every setup starts from nothing\n"
                     "                  (GAMG builds its whole hierarchy, as in a program that solves once); without it each KSP\n"
                     "                  is kept and set up again on a new matrix state (GAMG then reuses its interpolation by\n"
                     "                  default and rebuilds only the Galerkin products and the smoothers, as in time stepping)\n"
                     "  -rtol 1e-8, and -dm_vec_type cuda -dm_mat_type aijcusparse for device Vecs\n"
                     "Before each solve one diagonal entry of A is set to its own value (a new matrix state, so every PC sets up\n"
                     "again from scratch, as GAMG does for new values) and x = 0. Setup = KSPSetUp + PCSetUp, solve = KSPSolve,\n"
                     "each timed with the device synchronized (PetscTime around a VecNorm of the result). Prints the medians and\n"
                     "ranges of setup, solve and total per configuration, and the iterations (which must not change between rounds).\n"
                     "Why: across processes GAMG's setup moves by up to 0.5 s on ex45 100^3 (first-use costs inside PETSc), which\n"
                     "hides differences of milliseconds between smoothers (issue 12's second target); in one warm process it does\n"
                     "not.\n";
#include <petscksp.h>
#include <petscdmda.h>
#include <pgx.h>

#define MAXC 8

static int CmpDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double Median(const double *v, PetscInt n)
{
  double s[256];
  for (PetscInt i = 0; i < n; i++) s[i] = v[i];
  qsort(s, (size_t)n, sizeof(double), CmpDouble);
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static double Min(const double *v, PetscInt n)
{
  double m = v[0];
  for (PetscInt i = 1; i < n; i++) m = PetscMin(m, v[i]);
  return m;
}

static double Max(const double *v, PetscInt n)
{
  double m = v[0];
  for (PetscInt i = 1; i < n; i++) m = PetscMax(m, v[i]);
  return m;
}

/* the 7-point Laplacian (Dirichlet, h^2 scaled) on the DMDA's grid */
static PetscErrorCode Assemble(DM da, Mat A)
{
  PetscInt    xs, ys, zs, xm, ym, zm, M, N, P;
  MatStencil  row, col[7];
  PetscScalar v[7];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        PetscInt c = 0;
        row.i = i, row.j = j, row.k = k;
        const PetscInt di[6] = {-1, 1, 0, 0, 0, 0}, dj[6] = {0, 0, -1, 1, 0, 0}, dk[6] = {0, 0, 0, 0, -1, 1};
        col[c].i = i, col[c].j = j, col[c].k = k, v[c++] = 6.0;
        for (int q = 0; q < 6; q++) {
          const PetscInt ii = i + di[q], jj = j + dj[q], kk = k + dk[q];
          if (ii < 0 || jj < 0 || kk < 0 || ii >= M || jj >= N || kk >= P) continue;
          col[c].i = ii, col[c].j = jj, col[c].k = kk, v[c++] = -1.0;
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, c, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateKSP(Mat A, const char *cfg, PetscReal rtol, KSP *ksp)
{
  char prefix[256];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", cfg));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetTolerances(*ksp, rtol, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt       m = 100, reps = 7, nc = MAXC, its[MAXC], rstart;
  char          *cfg[MAXC];
  double         tsetup[MAXC][256], tsolve[MAXC][256], ttotal[MAXC][256];
  PetscReal      rtol = 1e-8, rnorm[MAXC];
  PetscBool      itschanged[MAXC], fresh = PETSC_FALSE;
  KSPConvergedReason reason[MAXC];
  DM             da;
  Mat            A;
  Vec            b, x, one;
  KSP            ksp[MAXC];
  PetscMPIInt    rank;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-fresh", &fresh, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-configs", cfg, &nc, NULL));
  PetscCheck(nc >= 1, PETSC_COMM_WORLD, PETSC_ERR_USER, "-configs a,b,...: at least one option prefix (at most %d)", MAXC);
  PetscCheck(reps >= 1 && reps <= 256, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps must be in 1..256, not %" PetscInt_FMT, reps);
  PetscCheck(m >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-m must be at least 2, not %" PetscInt_FMT, m);

  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, m, m, m, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, A));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &one));
  PetscCall(VecSet(one, 1.0));
  PetscCall(MatMult(A, one, b));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));

  for (PetscInt c = 0; c < nc; c++) {
    PetscCall(CreateKSP(A, cfg[c], rtol, &ksp[c]));
    its[c]        = -1;
    itschanged[c] = PETSC_FALSE;
  }

  for (PetscInt r = -1; r < reps; r++) { /* r = -1: the warm-up round */
    for (PetscInt c = 0; c < nc; c++) {
      PetscLogDouble t0, t1, t2;
      PetscReal      nrm;
      PetscInt       n;
      PC             pc;
      /* a new state of A: every PC sets up again */
      if (!rank) {
        PetscScalar d = 6.0;
        PetscCall(MatSetValue(A, rstart, rstart, d, INSERT_VALUES));
      }
      PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
      if (fresh) {
        PetscCall(KSPDestroy(&ksp[c]));
        PetscCall(CreateKSP(A, cfg[c], rtol, &ksp[c]));
      } else PetscCall(KSPSetOperators(ksp[c], A, A));
      PetscCall(VecSet(x, 0.0));
      PetscCall(VecNorm(b, NORM_2, &nrm)); /* the device idle before the clock starts */
      PetscCall(PetscBarrier((PetscObject)A));
      PetscCall(PetscTime(&t0));
      PetscCall(KSPSetUp(ksp[c]));
      PetscCall(KSPGetPC(ksp[c], &pc));
      PetscCall(PCSetUp(pc));
      PetscCall(VecNorm(b, NORM_2, &nrm));
      PetscCall(PetscTime(&t1));
      PetscCall(KSPSolve(ksp[c], b, x));
      PetscCall(VecNorm(x, NORM_2, &nrm)); /* synchronizes */
      PetscCall(PetscTime(&t2));
      PetscCall(KSPGetIterationNumber(ksp[c], &n));
      PetscCall(KSPGetConvergedReason(ksp[c], &reason[c]));
      if (its[c] >= 0 && n != its[c]) itschanged[c] = PETSC_TRUE;
      its[c] = n;
      if (r >= 0) {
        tsetup[c][r] = t1 - t0;
        tsolve[c][r] = t2 - t1;
        ttotal[c][r] = t2 - t0;
      }
    }
  }
  for (PetscInt c = 0; c < nc; c++) { /* the error of the last solve: x against the ones vector */
    PetscCall(KSPSolve(ksp[c], b, x));
    PetscCall(VecAXPY(x, -1.0, one));
    PetscCall(VecNorm(x, NORM_INFINITY, &rnorm[c]));
  }

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time to solution in one process: %" PetscInt_FMT "^3, %" PetscInt_FMT " rounds after one warm-up round, rtol %g, %s; seconds: median [min-max]\n", m, reps, (double)rtol, fresh ? "a new KSP and PC for every solve (-fresh)" : "each KSP set up again on a new matrix state"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %5s %-28s %-28s %-28s %10s  %s\n", "config", "its", "setup", "solve", "total", "|x - 1|", "result"));
  for (PetscInt c = 0; c < nc; c++) {
    char s1[64], s2[64], s3[64];
    PetscCall(PetscSNPrintf(s1, sizeof(s1), "%.4f [%.4f-%.4f]", Median(tsetup[c], reps), Min(tsetup[c], reps), Max(tsetup[c], reps)));
    PetscCall(PetscSNPrintf(s2, sizeof(s2), "%.4f [%.4f-%.4f]", Median(tsolve[c], reps), Min(tsolve[c], reps), Max(tsolve[c], reps)));
    PetscCall(PetscSNPrintf(s3, sizeof(s3), "%.4f [%.4f-%.4f]", Median(ttotal[c], reps), Min(ttotal[c], reps), Max(ttotal[c], reps)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %5" PetscInt_FMT " %-28s %-28s %-28s %10.2e  %s%s\n", cfg[c], its[c], s1, s2, s3, (double)rnorm[c], KSPConvergedReasons[reason[c]], itschanged[c] ? " (iterations changed between rounds)" : ""));
  }

  for (PetscInt c = 0; c < nc; c++) {
    PetscCall(KSPDestroy(&ksp[c]));
    PetscCall(PetscFree(cfg[c]));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&one));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
