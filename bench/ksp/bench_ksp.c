static char help[] = "Time to solution of the PGX resident Krylov methods against PETSc's host KSPs.\n"
                     "  -problems poisson3d:100,poisson3d:128,aniso3d:100,convdiff3d:100   (gallery name:m, n = m^3)\n"
                     "  -configs  pgxcg/dilu,pgxcg/dilu-mc,pgxcg/aips,pgxcg/jacobi,pgxgmres/dilu,...,cg/icc,gmres/ilu,cg/jacobi,cg/gamg,gmres/dilu\n"
                     "            (ksp/pc; -mc: PCDILU multicolor; a PETSc ksp with a PGX pc is today's path: the PC staged per apply;\n"
                     "             on several ranks icc/ilu become bjacobi with icc/ilu blocks)\n"
                     "  -warmup 1 (every configuration solved once on 8^3 first, untimed: setup then excludes the first CUDA use)\n"
                     "  -reps 3 -rtol 1e-8 -bw <GB/s of device copies, for the bound column; 0: not printed>\n"
                     "Columns: setup (s), newval (s: KSPSetUp + KSPSolve after new values on the same pattern, one solve), solve (s, median), iterations, time per iteration (ms: the solve's; 'it ms/it': the solve\n"
                     "less its host-device copies of b and x, median over the repetitions), its device bound (ms: bytes of\n"
                     "SpMV + PC + vector work per iteration at -bw; the resident SpMV and AIPS's R products counted in DIA storage unless\n"
                     "-ksp_pgx_spmv_format csr / -pc_aips_remainder_format csr, AIPS's products fused into its solves on one rank unless\n"
                     "-pc_aips_fused_remainder 0), 'it ms/it' over the bound, share of the solve in\n"
                     "host-device copies (PGX copy events, last repetition).\n"
                     "Symmetric problems (poisson3d, aniso3d) run cg configs; nonsymmetric ones (convdiff3d) run gmres and bcgs configs.\n";
#include <petscksp.h>
#include <pgx.h>
#include <pgx/gallery.h>

static PetscErrorCode CopyTime(PetscLogDouble *t)
{
  const char *names[] = {"PGXCopyToDevice", "PGXCopyToHost", "PGXKSPCopy"};
  PetscFunctionBeginUser;
  *t = 0;
  for (int i = 0; i < 3; i++) {
    PetscLogEvent      ev;
    PetscEventPerfInfo info;
    PetscCall(PetscLogEventGetId(names[i], &ev));
    PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
    *t += info.time;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bytes moved per iteration on the device (estimate): SpMV reads values, column indices and x, writes y; the PC as
   named; the vector work of the method (restart k for GMRES: about k/2 basis vectors read twice per step).
   aips of order N (-pc_aips_order, default 3): N products with R = A - P (the entries off the tridiagonal part,
   about nnz - 3 n, with their indices; y read, t written) and N + 1 tridiagonal solves (three factor arrays, the
   right-hand side, the result and, after the first, the term it is added to). With the product fused into the solve
   that takes it (-pc_aips_fused_remainder, default on; R in DIA on one rank), t is neither written nor read back:
   2 n scalars less per product. */
/* The bytes an iteration must move: the resident SpMV on CSR (a value and an index an entry, row pointers, x, y) or, when
   it reads its DIA copy (pgx resident KSPs with -ksp_pgx_spmv_format other than csr, on stencil problems), a value an
   entry (padding neglected) and x, y; the same for PCAIPS's products with R (-pc_aips_remainder_format) */
static PetscBool spmv_dia = PETSC_TRUE, r_dia = PETSC_TRUE, r_fused = PETSC_TRUE;
static double BytesPerIteration(const char *ksp, const char *pc, PetscInt n, PetscInt nnz, PetscInt restart, PetscInt aipsorder)
{
  const PetscBool resident = (PetscBool)(strncmp(ksp, "pgx", 3) == 0), dia = (PetscBool)(resident && spmv_dia), rd = (PetscBool)(strstr(pc, "aips") && r_dia);
  double spmv = dia ? (double)nnz * sizeof(PetscScalar) + 2.0 * n * sizeof(PetscScalar) : (double)nnz * (sizeof(PetscScalar) + sizeof(PetscInt)) + 3.0 * n * sizeof(PetscScalar), pcb = 0, vec;
  if (strstr(pc, "jacobi")) pcb = 3.0 * n * sizeof(PetscScalar);
  else if (strstr(pc, "dilu")) pcb = spmv + 2.0 * n * sizeof(PetscScalar); /* L and U sweeps: A once, E, r, y */
  else if (strstr(pc, "aips")) {
    const double nnzr = (double)PetscMax(nnz - 3 * n, 0);
    pcb = aipsorder * (nnzr * (sizeof(PetscScalar) + (rd ? 0 : sizeof(PetscInt))) + 2.0 * n * sizeof(PetscScalar)) + (aipsorder + 1) * 5.0 * n * sizeof(PetscScalar) + aipsorder * n * sizeof(PetscScalar);
    if (rd && r_fused) pcb -= aipsorder * 2.0 * n * sizeof(PetscScalar);
  }
  if (strstr(ksp, "bcgs")) return 2 * (spmv + pcb) + 20.0 * n * sizeof(PetscScalar); /* before "cg", which "bcgs" contains */
  if (strstr(ksp, "cg")) vec = 12.0 * n * sizeof(PetscScalar);
  else vec = (restart + 6.0) * n * sizeof(PetscScalar);
  return spmv + pcb + vec;
}

static PetscErrorCode RunProblem(char *, const char *, PetscMPIInt, PetscInt, PetscReal, PetscReal, PetscInt, PetscBool);

int main(int argc, char **argv)
{
  char        problems[512] = "poisson3d:100,poisson3d:128,aniso3d:100,convdiff3d:100";
  char        configs[1024] = "pgxcg/dilu,pgxcg/dilu-mc,pgxcg/aips,pgxcg/jacobi,pgxgmres/dilu,pgxgmres/dilu-mc,pgxgmres/aips,pgxgmres/jacobi,cg/icc,gmres/ilu,cg/jacobi,gmres/jacobi,cg/gamg,gmres/gamg,cg/dilu,gmres/dilu";
  PetscInt    reps = 3;
  PetscReal   rtol = 1e-8, bw = 0;
  PetscInt    aipsorder = 3;
  PetscMPIInt size;
  char       *prob, *psave = NULL;
  PetscBool   warmup = PETSC_TRUE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-problems", problems, sizeof(problems), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-configs", configs, sizeof(configs), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bw", &bw, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-pc_aips_order", &aipsorder, NULL)); /* the bound of aips (the PCs read it themselves) */
  { /* the storage the bound assumes: DIA unless the run is told csr (the problems here are stencils: auto takes DIA) */
    char fmt[16] = "auto";
    PetscCall(PetscOptionsGetString(NULL, NULL, "-ksp_pgx_spmv_format", fmt, sizeof(fmt), NULL));
    spmv_dia = (PetscBool)(strcmp(fmt, "csr") != 0);
    PetscCall(PetscStrncpy(fmt, "auto", sizeof(fmt)));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-pc_aips_remainder_format", fmt, sizeof(fmt), NULL));
    r_dia = (PetscBool)(strcmp(fmt, "csr") != 0);
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-pc_aips_fused_remainder", &r_fused, NULL));
    r_fused = (PetscBool)(r_fused && size == 1); /* PCAIPS fuses on one rank only */
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench_ksp: %d rank(s), rtol %g, median of %" PetscInt_FMT " solves\n", size, (double)rtol, reps));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-warmup", &warmup, NULL));
  if (warmup) { /* every configuration once on a small problem of each kind, untimed: the first CUDA use, the libraries'
                   handles and PETSc's first calls are then out of the setup column */
    PetscLogDouble w0, w1;
    char           small[512];
    PetscCall(PetscTime(&w0));
    PetscCall(PetscSNPrintf(small, sizeof(small), "poisson3d:8,convdiff3d:8"));
    for (prob = strtok_r(small, ",", &psave); prob; prob = strtok_r(NULL, ",", &psave)) PetscCall(RunProblem(prob, configs, size, 1, rtol, bw, aipsorder, PETSC_FALSE));
    PetscCall(PetscTime(&w1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "warm-up (every configuration on 8^3, untimed below): %.3f s\n", w1 - w0));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-16s %-18s %9s %9s %9s %6s %10s %10s %10s %7s %7s\n", "problem", "ksp/pc", "setup s", "newval s", "solve s", "its", "ms/it", "it ms/it", "bound ms", "x bound", "copy %"));
  psave = NULL;
  for (prob = strtok_r(problems, ",", &psave); prob; prob = strtok_r(NULL, ",", &psave)) PetscCall(RunProblem(prob, configs, size, reps, rtol, bw, aipsorder, PETSC_TRUE));
  PetscCall(PetscFinalize());
  return 0;
}

/* One problem, every configuration: setup, the timed solves, then setup again after new values on the same pattern
   (A scaled by 2 and by 1/2, exact, so the operator is the same and the state new) and one more solve that must take
   the same iterations */
static PetscErrorCode RunProblem(char *prob, const char *configs, PetscMPIInt size, PetscInt reps, PetscReal rtol, PetscReal bw, PetscInt aipsorder, PetscBool print)
{
  PetscFunctionBeginUser;
  {
    char      name[64], cfgs[1024], *cfg, *csave = NULL, *colon;
    PetscInt  m = 100, n, nnz;
    PetscBool symmetric;
    Mat       A;
    Vec       x, b;
    MatInfo   info;

    PetscCall(PetscStrncpy(name, prob, sizeof(name)));
    colon = strchr(name, ':');
    if (colon) {
      *colon = 0;
      m      = atoi(colon + 1);
    }
    symmetric = (PetscBool)(strcmp(name, "convdiff3d") != 0);
    PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, name, m, &A));
    PetscCall(MatGetSize(A, &n, NULL));
    PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
    nnz = (PetscInt)info.nz_used;
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A, x, b));
    PetscCall(PetscStrncpy(cfgs, configs, sizeof(cfgs)));
    for (cfg = strtok_r(cfgs, ",", &csave); cfg; cfg = strtok_r(NULL, ",", &csave)) {
      char           ksptype[32], pctype[32], *slash;
      PetscBool      mc, isgmres;
      KSP            ksp;
      PC             pc;
      PetscInt       its = 0, restart = 30;
      PetscLogDouble t0, t1, setup, resetup, best[64], iter[64], c0, c1, copy = 0;

      PetscCall(PetscStrncpy(ksptype, cfg, sizeof(ksptype)));
      slash = strchr(ksptype, '/');
      if (!slash) continue;
      *slash = 0;
      PetscCall(PetscStrncpy(pctype, slash + 1, sizeof(pctype)));
      isgmres = (PetscBool)(strstr(ksptype, "gmres") != NULL);
      if (strstr(ksptype, "bcgs") ? symmetric : symmetric == isgmres) continue; /* cg on symmetric problems, gmres and bcgs on the others */
      mc = (PetscBool)(strstr(pctype, "-mc") != NULL);
      if (mc) pctype[strlen(pctype) - 3] = 0;
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetOperators(ksp, A, A));
      PetscCall(KSPSetType(ksp, ksptype));
      PetscCall(KSPSetTolerances(ksp, rtol, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
      PetscCall(KSPGetPC(ksp, &pc));
      if (size > 1 && (!strcmp(pctype, "icc") || !strcmp(pctype, "ilu"))) {
        KSP *sub;
        PetscCall(PCSetType(pc, PCBJACOBI));
        PetscCall(KSPSetUp(ksp));
        PetscCall(PCBJacobiGetSubKSP(pc, NULL, NULL, &sub));
        PetscCall(KSPGetPC(sub[0], &pc));
      }
      PetscCall(PCSetType(pc, pctype));
      if (mc) PetscCall(PCDILUSetOrdering(pc, PC_DILU_ORDERING_MULTICOLOR));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(PetscBarrier((PetscObject)ksp));
      PetscCall(PetscTime(&t0));
      PetscCall(KSPSetUp(ksp));
      PetscCall(PetscBarrier((PetscObject)ksp));
      PetscCall(PetscTime(&t1));
      setup = t1 - t0;
      for (PetscInt r = 0; r < reps && r < 64; r++) {
        PetscCall(VecSet(x, 0.0));
        PetscCall(CopyTime(&c0));
        PetscCall(PetscBarrier((PetscObject)ksp));
        PetscCall(PetscTime(&t0));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(PetscBarrier((PetscObject)ksp));
        PetscCall(PetscTime(&t1));
        PetscCall(CopyTime(&c1));
        best[r] = t1 - t0;
        copy    = c1 - c0;
        iter[r] = best[r] - copy; /* the iterations alone: the solve without its host-device copies */
      }
      for (PetscInt i = 0; i < PetscMin(reps, 64); i++) /* medians */
        for (PetscInt j = i + 1; j < PetscMin(reps, 64); j++) {
          if (best[j] < best[i]) {
            PetscLogDouble t = best[i];
            best[i]          = best[j];
            best[j]          = t;
          }
          if (iter[j] < iter[i]) {
            PetscLogDouble t = iter[i];
            iter[i]          = iter[j];
            iter[j]          = t;
          }
        }
      PetscCall(KSPGetIterationNumber(ksp, &its));
      if (isgmres) PetscCall(KSPGMRESGetRestart(ksp, &restart));
      PetscCall(MatScale(A, 2.0)); /* new values on the same pattern, exactly the same operator */
      PetscCall(MatScale(A, 0.5));
      PetscCall(KSPSetOperators(ksp, A, A));
      {
        PetscInt its2;
        PetscCall(VecSet(x, 0.0));
        PetscCall(PetscBarrier((PetscObject)ksp));
        PetscCall(PetscTime(&t0));
        PetscCall(KSPSetUp(ksp));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(PetscBarrier((PetscObject)ksp));
        PetscCall(PetscTime(&t1));
        resetup = t1 - t0;
        PetscCall(KSPGetIterationNumber(ksp, &its2));
        PetscCheck(its2 == its, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s %s: %" PetscInt_FMT " iterations after the setup on new values, %" PetscInt_FMT " before", prob, cfg, its2, its);
      }
      if (!print) {
        PetscCall(KSPDestroy(&ksp));
        continue;
      }
      {
        double tsolve = best[PetscMin(reps, 64) / 2], titer = iter[PetscMin(reps, 64) / 2], bound = bw > 0 ? BytesPerIteration(ksptype, pctype, n / size, nnz / size, restart, aipsorder) / (bw * 1e9) * 1e3 : 0;
        char   cname[64];
        PetscCall(PetscSNPrintf(cname, sizeof(cname), "%s/%s%s", ksptype, pctype, mc ? "-mc" : ""));
        const double mit = its ? 1e3 * titer / its : 0;
        if (bound > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-16s %-18s %9.3f %9.4f %9.3f %6" PetscInt_FMT " %10.3f %10.3f %10.3f %7.2f %6.1f%%\n", prob, cname, setup, resetup, tsolve, its, its ? 1e3 * tsolve / its : 0, mit, bound, mit / bound, 100.0 * copy / tsolve));
        else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-16s %-18s %9.3f %9.4f %9.3f %6" PetscInt_FMT " %10.3f %10.3f %10s %7s %6.1f%%\n", prob, cname, setup, resetup, tsolve, its, its ? 1e3 * tsolve / its : 0, mit, "-", "-", 100.0 * copy / tsolve));
      }
      PetscCall(KSPDestroy(&ksp));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
