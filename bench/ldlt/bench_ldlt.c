static char help[] = "Sparse LDL^T/Cholesky through PETSc: pgx against cholmod, mumps, umfpack (LU), umfpack-dl and petsc.\n"
                     "  -solvers pgx,cholmod,mumps,umfpack,umfpack-dl,petsc   -poisson 64,100 (3D Poisson m^3)   -elasticity 30 (3 m (m+1)^2 unknowns)\n"
                     "  -helmholtz 48,60 (complex symmetric 3D Helmholtz m^3, gallery helmholtz3d; complex PETSc builds only, skipped in real ones)\n"
                     "  pgx-column, pgx-supernodal: pgx with -mat_pgx_ldlt_method column or supernodal (both may run in one call)\n"
                     "  umfpack-dl: SuiteSparse's UMFPACK called directly with 64-bit indices (umfpack_dl_*, complex: umfpack_zl_*),\n"
                     "    default Control and its own ordering, on the same matrix; 'umfpack' is PETSc's interface (32-bit PetscInt:\n"
                     "    umfpack_di_*) with the ordering PCLU passes (none: UMFPACK's own); 'umfpack-nd' the same with PETSc's nested\n"
                     "    dissection given to UMFPACK (umfpack_di_qsymbolic), as this bench called it before\n"
                     "  -matrices name,... (read from $PGX_MATRICES or ../shared/matrices; missing ones are skipped visibly)\n"
                     "  -reps <1> numeric factorizations timed (the fastest is reported)   -view_factor: MatView of each factor (ASCII info)\n"
                     "Under mpiexec (more than one rank) the matrices are assembled in parallel (each rank its own rows) and only\n"
                     "mumps runs; the other solvers are sequential and say so.\n"
                     "Columns: problem, solver, n, nnz(A), nnz(L) (MatGetInfo of the factor; mumps: INFOG(29); umfpack-dl: nnz(L)+nnz(U)),\n"
                     "ordering (pgx: the one used; mumps: INFOG(7); umfpack-dl: Info[UMFPACK_ORDERING_USED]; others: the package's own),\n"
                     "symbolic, numeric, solve (s), GFLOP/s of the numeric phase (flops logged by the factorization, mumps RINFOG(3),\n"
                     "umfpack-dl Info[UMFPACK_FLOPS] / numeric time; 0 when unknown), backward error ||b-Ax||/(||A|| ||x|| + ||b||)\n"
                     "(infinity norms, b = 1). After each problem: the numeric and total (symbolic + numeric + solve) speedups of\n"
                     "each pgx variant over each other solver that ran (time of the other / time of pgx). Before each numeric phase a\n"
                     "'#progress' line gives the symbolic time and the wall-clock (epoch) start of the numeric phase, so that a\n"
                     "driver that stops a slow solver can bound its numeric time from below (bench/ldlt/table.sh).\n";
#include <petscmat.h>
#include <pgx.h>
#include <pgx/gallery.h>
#include <sys/time.h>
#include "../../tests/ldlt/ldlt_problems.h"
#if defined(PGX_BENCH_UMFPACK)
  #include <umfpack.h>
#endif

static PetscMPIInt size_, rank_;
static PetscInt    reps_ = 1;
static PetscBool   view_factor_;

static double EpochNow(void)
{
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* the '#progress' line: the symbolic phase is done, the numeric one starts now */
static PetscErrorCode Progress(const char *name, const char *label, PetscLogDouble ts)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "#progress %s %s symbolic %.3f numeric_start_epoch %.3f\n", name, label, ts, EpochNow()));
  if (!rank_) fflush(stdout);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the last error message PETSc recorded (the reason of a FAILED line) */
static const char *LastError(PetscErrorCode ierr)
{
  const char *text = NULL;
#if PETSC_VERSION_LT(3, 19, 0)
  char *specific = NULL;
#else
  const char *specific = NULL;
#endif
  if (PetscErrorMessage(ierr, &text, &specific)) return "";
  if (specific && specific[0]) return specific;
  return text ? text : "";
}

/* put back the -mat_pgx_ldlt_method of the command line after a pgx-<method> run */
static PetscErrorCode RestoreMethod(const char *method, PetscBool hadsaved, const char *saved)
{
  PetscFunctionBegin;
  if (!method[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (hadsaved) PetscCall(PetscOptionsSetValue(NULL, "-mat_pgx_ldlt_method", saved));
  else PetscCall(PetscOptionsClearValue(NULL, "-mat_pgx_ldlt_method"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunPhases(const char *name, const char *label, Mat A, Mat F, PetscBool lu, const char *solver, IS rperm, IS cperm, MatFactorInfo *info, Vec x, Vec b, PetscLogDouble *ts, PetscLogDouble *tn, PetscLogDouble *tsol, PetscLogDouble *f0, PetscLogDouble *f1)
{
  PetscLogDouble t0;
  MPI_Comm       comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCallMPI(MPI_Barrier(comm));
  t0 = MPI_Wtime();
  if (lu) PetscCall(MatLUFactorSymbolic(F, A, rperm, cperm, info));
  else PetscCall(MatCholeskyFactorSymbolic(F, A, !strcmp(solver, MATSOLVERPETSC) ? rperm : NULL, info));
  PetscCallMPI(MPI_Barrier(comm));
  *ts = MPI_Wtime() - t0;
  PetscCall(Progress(name, label, *ts));
  *tn = 1e300;
  for (PetscInt k = 0; k < reps_; k++) {
    PetscCall(PetscGetFlops(f0));
    PetscCallMPI(MPI_Barrier(comm));
    t0 = MPI_Wtime();
    if (lu) PetscCall(MatLUFactorNumeric(F, A, info));
    else PetscCall(MatCholeskyFactorNumeric(F, A, info));
    PetscCallMPI(MPI_Barrier(comm));
    *tn = PetscMin(*tn, MPI_Wtime() - t0);
    PetscCall(PetscGetFlops(f1));
  }
  PetscCallMPI(MPI_Barrier(comm));
  t0 = MPI_Wtime();
  PetscCall(MatSolve(F, b, x));
  PetscCallMPI(MPI_Barrier(comm));
  *tsol = MPI_Wtime() - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) */
static PetscErrorCode BackwardError(Mat A, Vec x, Vec b, PetscReal *berr)
{
  Vec       r;
  PetscReal nr, na, nx, nb;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_INFINITY, &nr));
  PetscCall(MatNorm(A, NORM_INFINITY, &na));
  PetscCall(VecNorm(x, NORM_INFINITY, &nx));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *berr = nr / (na * nx + nb);
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* times of the solvers of the current problem, for the speedup lines */
static char           done_name[16][32];
static PetscLogDouble done_tn[16], done_tt[16];
static PetscInt       ndone;

static PetscErrorCode Report(const char *name, const char *label, PetscInt n, PetscReal nnzA, PetscReal nnzL, const char *ord, PetscLogDouble ts, PetscLogDouble tn, PetscLogDouble tsol, PetscLogDouble flops, PetscReal berr, const char *backend)
{
  char np[32] = "";

  PetscFunctionBegin;
  if (size_ > 1) PetscCall(PetscSNPrintf(np, sizeof(np), " np %d", (int)size_));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %-14s n %9" PetscInt_FMT " nnz(A) %10.0f nnz(L) %12.4g ord %-7s symbolic %9.4f numeric %10.5f solve %9.5f GFLOP/s %8.2f berr %8.2e%s%s%s\n", name, label, n, (double)nnzA, (double)nnzL, ord, ts, tn, tsol, flops > 0 && tn > 0 ? flops / tn / 1e9 : 0.0, (double)berr, backend ? " " : "", backend ? backend : "", np));
  if (ndone < 16) {
    PetscCall(PetscStrncpy(done_name[ndone], label, sizeof(done_name[0])));
    done_tn[ndone]   = tn;
    done_tt[ndone++] = ts + tn + tsol;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PGX_BENCH_UMFPACK)
  #if defined(PETSC_USE_COMPLEX)
    #define UMF_symbolic(n, Ap, Ai, Ax, S, C, I)         umfpack_zl_symbolic(n, n, Ap, Ai, Ax, NULL, S, C, I)
    #define UMF_numeric(Ap, Ai, Ax, S, N, C, I)          umfpack_zl_numeric(Ap, Ai, Ax, NULL, S, N, C, I)
    #define UMF_solve(sys, Ap, Ai, Ax, X, B, N, C, I)    umfpack_zl_solve(sys, Ap, Ai, Ax, NULL, X, NULL, B, NULL, N, C, I)
    #define UMF_get_lunz(l, u, r, c, d, N)                umfpack_zl_get_lunz(l, u, r, c, d, N)
    #define UMF_defaults(C)                               umfpack_zl_defaults(C)
    #define UMF_free_symbolic(S)                          umfpack_zl_free_symbolic(S)
    #define UMF_free_numeric(N)                           umfpack_zl_free_numeric(N)
    #define UMF_TRANSPOSE                                 UMFPACK_Aat /* A^T without conjugation */
    #define UMF_NAME                                      "umfpack_zl"
  #else
    #define UMF_symbolic(n, Ap, Ai, Ax, S, C, I)      umfpack_dl_symbolic(n, n, Ap, Ai, Ax, S, C, I)
    #define UMF_numeric(Ap, Ai, Ax, S, N, C, I)       umfpack_dl_numeric(Ap, Ai, Ax, S, N, C, I)
    #define UMF_solve(sys, Ap, Ai, Ax, X, B, N, C, I) umfpack_dl_solve(sys, Ap, Ai, Ax, X, B, N, C, I)
    #define UMF_get_lunz(l, u, r, c, d, N)             umfpack_dl_get_lunz(l, u, r, c, d, N)
    #define UMF_defaults(C)                            umfpack_dl_defaults(C)
    #define UMF_free_symbolic(S)                       umfpack_dl_free_symbolic(S)
    #define UMF_free_numeric(N)                        umfpack_dl_free_numeric(N)
    #define UMF_TRANSPOSE                              UMFPACK_At
    #define UMF_NAME                                   "umfpack_dl"
  #endif

static const char *UmfStatus(SuiteSparse_long s)
{
  switch (s) {
  case UMFPACK_ERROR_out_of_memory:
    return "out of memory";
  case UMFPACK_WARNING_singular_matrix:
    return "singular matrix";
  case UMFPACK_ERROR_invalid_matrix:
    return "invalid matrix";
  case UMFPACK_ERROR_different_pattern:
    return "different pattern";
  case UMFPACK_ERROR_internal_error:
    return "internal error";
  default:
    return "error";
  }
}

static const char *UmfOrdering(const double *Info)
{
  switch ((int)Info[UMFPACK_ORDERING_USED]) {
  case UMFPACK_ORDERING_AMD:
    return Info[UMFPACK_STRATEGY_USED] == UMFPACK_STRATEGY_SYMMETRIC ? "amd" : "colamd";
  case UMFPACK_ORDERING_METIS:
    return "metis";
  case UMFPACK_ORDERING_CHOLMOD:
    return "cholmod";
  case UMFPACK_ORDERING_GIVEN:
    return "given";
  case UMFPACK_ORDERING_NONE:
    return "natural";
  default:
    return "own";
  }
}

/* UMFPACK with 64-bit indices on A's CSR arrays: read as CSC they are A^T (transposed, not conjugated), which it
   factors; A x = b is then its transposed solve (UMFPACK_At, complex UMFPACK_Aat), as PETSc's interface does.
   The default Control, as PETSc's interface uses (its iterative refinement in the solve included). */
static PetscErrorCode RunUmfpackDL(const char *name, Mat A)
{
  const char        *label = "umfpack-dl";
  const PetscInt    *ia, *ja;
  const PetscScalar *av, *ba;
  PetscScalar       *xa;
  PetscInt           n;
  PetscBool          done, seqaij;
  SuiteSparse_long  *Ap, *Ai, status, lnz = 0, unz = 0, nr, nc, nzud;
  double             Control[UMFPACK_CONTROL], Info[UMFPACK_INFO];
  void              *Sym = NULL, *Num = NULL;
  PetscLogDouble     t0, ts, tn = 1e300, tsol = 0;
  PetscReal          berr = 0;
  Vec                x, b;
  MatInfo            ainfo;
  const char        *phase = NULL, *ord = "own";

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
  PetscCheck(seqaij, PETSC_COMM_SELF, PETSC_ERR_SUP, "umfpack-dl needs a MATSEQAIJ matrix");
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ() failed");
  PetscCall(PetscMalloc2(n + 1, &Ap, ia[n], &Ai));
  for (PetscInt i = 0; i <= n; i++) Ap[i] = (SuiteSparse_long)ia[i];
  for (PetscInt k = 0; k < ia[n]; k++) Ai[k] = (SuiteSparse_long)ja[k];
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatSeqAIJGetArrayRead(A, &av));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  UMF_defaults(Control);

  t0     = MPI_Wtime();
  status = UMF_symbolic((SuiteSparse_long)n, Ap, Ai, (const double *)av, &Sym, Control, Info);
  ts     = MPI_Wtime() - t0;
  if (status != UMFPACK_OK) phase = "symbolic";
  else ord = UmfOrdering(Info);
  if (!phase) {
    PetscCall(Progress(name, label, ts));
    for (PetscInt k = 0; k < reps_ && !phase; k++) {
      if (Num) UMF_free_numeric(&Num);
      t0     = MPI_Wtime();
      status = UMF_numeric(Ap, Ai, (const double *)av, Sym, &Num, Control, Info);
      tn     = PetscMin(tn, MPI_Wtime() - t0);
      if (status != UMFPACK_OK) phase = "numeric";
    }
  }
  if (!phase) {
    double flops = Info[UMFPACK_FLOPS];
    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(VecGetArray(x, &xa));
    t0     = MPI_Wtime();
    status = UMF_solve(UMF_TRANSPOSE, Ap, Ai, (const double *)av, (double *)xa, (const double *)ba, Num, Control, Info);
    tsol   = MPI_Wtime() - t0;
    PetscCall(VecRestoreArray(x, &xa));
    PetscCall(VecRestoreArrayRead(b, &ba));
    if (status != UMFPACK_OK) phase = "solve";
    else {
      (void)UMF_get_lunz(&lnz, &unz, &nr, &nc, &nzud, Num);
      PetscCall(MatSeqAIJRestoreArrayRead(A, &av));
      av = NULL;
      PetscCall(BackwardError(A, x, b, &berr));
      PetscCall(MatGetInfo(A, MAT_LOCAL, &ainfo));
      PetscCall(Report(name, label, n, ainfo.nz_used, (PetscReal)(lnz + unz), ord, ts, tn, tsol, flops, berr, NULL));
    }
  }
  if (phase) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %-14s FAILED (" UMF_NAME " %s: status %ld, %s)\n", name, label, phase, (long)status, UmfStatus(status)));
  if (av) PetscCall(MatSeqAIJRestoreArrayRead(A, &av));
  if (Num) UMF_free_numeric(&Num);
  if (Sym) UMF_free_symbolic(&Sym);
  PetscCall(PetscFree2(Ap, Ai));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode RunOne(const char *name, Mat A, const char *solverspec)
{
  char           solver[64], method[32] = "", saved[64];
  PetscBool      hadsaved = PETSC_FALSE;
  Mat            F;
  IS             rperm = NULL, cperm = NULL;
  MatFactorInfo  info;
  MatInfo        finfo, ainfo;
  Vec            x, b;
  PetscInt       n;
  PetscReal      berr, nnzL;
  PetscLogDouble ts = 0, tn = 0, tsol = 0, f0 = 0, f1 = 0, flops;
  PetscBool      lu, avail, pgx, mumps;
  MatFactorType  ftype;
  char           ordname[32] = "own";

  PetscFunctionBegin;
  if (!strcmp(solverspec, "umfpack-dl")) {
    if (size_ > 1) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %-14s skipped (sequential solver: only mumps runs under mpiexec)\n", name, solverspec));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
#if defined(PGX_BENCH_UMFPACK)
    PetscCall(RunUmfpackDL(name, A));
#else
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %-14s not available (built without SuiteSparse's umfpack.h)\n", name, solverspec));
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* pgx-column / pgx-supernodal: pgx with that -mat_pgx_ldlt_method (the factor reads it in the symbolic phase) */
  PetscCall(PetscStrncpy(solver, solverspec, sizeof(solver)));
  PetscCall(PetscStrbeginswith(solver, "pgx-", &pgx));
  if (pgx) {
    solver[3] = 0;
    PetscCall(PetscStrncpy(method, solverspec + 4, sizeof(method)));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_pgx_ldlt_method", saved, sizeof(saved), &hadsaved));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_pgx_ldlt_method", method));
  }
  if (!strcmp(solverspec, "umfpack-nd")) PetscCall(PetscStrncpy(solver, MATSOLVERUMFPACK, sizeof(solver)));
  PetscCall(PetscStrcmp(solver, MATSOLVERMUMPS, &mumps));
  if (size_ > 1 && !mumps) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %-14s skipped (sequential solver: only mumps runs under mpiexec)\n", name, solverspec));
    PetscCall(RestoreMethod(method, hadsaved, saved));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(PETSC_USE_COMPLEX)
  if (!strcmp(solver, MATSOLVERCHOLMOD)) {
    PetscBool known, herm;
    PetscCall(MatIsHermitianKnown(A, &known, &herm));
    if (!known || !herm) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %-14s not applicable (CHOLMOD factors Hermitian positive definite matrices only; this one is complex symmetric, A = A^T != A^H)\n", name, solverspec));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(PetscStrcmp(solver, MATSOLVERUMFPACK, &lu));
  ftype = lu ? MAT_FACTOR_LU : MAT_FACTOR_CHOLESKY;
  {
    PetscErrorCode ierr;
    F = NULL;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatGetFactor(A, solver, ftype, &F);
    PetscCall(PetscPopErrorHandler());
    avail = (PetscBool)(!ierr && F);
    if (!avail) PetscCall(PetscInfo(A, "MatGetFactor(%s) failed with error %d\n", solver, (int)ierr));
  }
  if (!avail) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %-14s not available in this PETSc\n", name, solverspec));
    PetscCall(RestoreMethod(method, hadsaved, saved));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatFactorInfoInitialize(&info));
  /* the ordering PCLU/PCCHOLESKY would pass: the factor's preferred one (MATORDERINGEXTERNAL, e.g. for umfpack: none
     passed, the package orders), except umfpack-nd (PETSc's nested dissection given to UMFPACK, this bench's old call) */
  if (lu || !strcmp(solver, MATSOLVERPETSC)) {
    PetscBool       canuse, external;
    MatOrderingType otype;
    PetscCall(MatFactorGetCanUseOrdering(F, &canuse));
    if (canuse) {
      PetscCall(MatFactorGetPreferredOrdering(F, ftype, &otype));
      if (!strcmp(solverspec, "umfpack-nd")) otype = MATORDERINGND;
      PetscCall(PetscStrcmp(otype, MATORDERINGEXTERNAL, &external));
      if (!external) {
        PetscCall(MatGetOrdering(A, otype, &rperm, &cperm));
        PetscCall(PetscStrncpy(ordname, otype, sizeof(ordname)));
      }
    }
  }
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  {
    /* a solver that fails (e.g. CHOLMOD on an indefinite matrix) is reported, not fatal */
    PetscErrorCode ierr;
    MatFactorError ferr = MAT_FACTOR_NOERROR;
    char           label[64];
    PetscCall(PetscStrncpy(label, solverspec, sizeof(label)));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = RunPhases(name, label, A, F, lu, solver, rperm, cperm, &info, x, b, &ts, &tn, &tsol, &f0, &f1);
    PetscCall(PetscPopErrorHandler());
    if (!ierr) PetscCall(MatFactorGetError(F, &ferr));
    if (ierr || ferr) {
      if (ierr) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %-14s FAILED (error %d: %s)\n", name, solverspec, (int)ierr, LastError(ierr)));
      else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %-14s FAILED (factor error %d)\n", name, solverspec, (int)ferr));
      PetscCall(RestoreMethod(method, hadsaved, saved));
      PetscCall(ISDestroy(&rperm));
      PetscCall(ISDestroy(&cperm));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&b));
      PetscCall(MatDestroy(&F));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (view_factor_) {
    PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_WORLD, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(F, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_WORLD));
  }
  PetscCall(BackwardError(A, x, b, &berr));
  PetscCall(MatGetInfo(F, MAT_LOCAL, &finfo));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ainfo));
  nnzL  = finfo.nz_used;
  flops = f1 - f0;
  {
    const char    *ord = "own", *meth = NULL, *backend = NULL;
    char           label[64];
    PetscErrorCode (*summary)(Mat, const char **, const char **, const char **) = NULL;
    PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatPGXLDLTGetSummary_C", &summary));
    if (summary) PetscCall((*summary)(F, &ord, &meth, &backend));
    else ord = ordname;
#if defined(PETSC_HAVE_MUMPS)
    if (mumps) {
      PetscInt  nfac, o;
      PetscReal fl;
      /* INFOG(29): entries in the factors after factorization (negative: millions); RINFOG(3): flops of the elimination */
      PetscCall(MatMumpsGetInfog(F, 29, &nfac));
      PetscCall(MatMumpsGetRinfog(F, 3, &fl));
      PetscCall(MatMumpsGetInfog(F, 7, &o));
      nnzL  = nfac < 0 ? -1e6 * (PetscReal)nfac : (PetscReal)nfac;
      flops = fl;
      ord   = o == 0 ? "amd" : o == 2 ? "amf" : o == 3 ? "scotch" : o == 4 ? "pord" : o == 5 ? "metis" : o == 6 ? "qamd" : "own";
    }
#endif
    if (meth) PetscCall(PetscSNPrintf(label, sizeof(label), "%s-%s", solver, !strcmp(meth, "supernodal") ? "snode" : meth));
    else PetscCall(PetscStrncpy(label, solverspec, sizeof(label)));
    PetscCall(Report(name, label, n, ainfo.nz_used, nnzL, ord, ts, tn, tsol, flops, berr, backend));
  }
  PetscCall(RestoreMethod(method, hadsaved, saved));
  PetscCall(ISDestroy(&rperm));
  PetscCall(ISDestroy(&cperm));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* hermitian: in a complex build, A = A^H as well as A = A^T (real-valued problems); false for Helmholtz */
static PetscErrorCode RunAll(const char *name, Mat A, char **solvers, PetscInt ns, PetscBool hermitian)
{
  PetscBool pgx;
  PetscInt  n;
  MatInfo   info;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "== %s: n %" PetscInt_FMT ", nnz(A) %" PetscInt_FMT "\n", name, n, (PetscInt)info.nz_used));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
#if defined(PETSC_USE_COMPLEX)
  PetscCall(MatSetOption(A, MAT_HERMITIAN, hermitian));
#endif
  ndone = 0;
  for (PetscInt s = 0; s < ns; s++) PetscCall(RunOne(name, A, solvers[s]));
  for (PetscInt i = 0; i < ndone; i++) {
    PetscCall(PetscStrbeginswith(done_name[i], "pgx", &pgx));
    if (!pgx) continue;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s numeric speedup of %-10s", name, done_name[i]));
    for (PetscInt k = 0; k < ndone; k++)
      if (k != i && done_tn[i] > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  vs %s %.2fx", done_name[k], done_tn[k] / done_tn[i]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s total speedup of %-10s  ", name, done_name[i]));
    for (PetscInt k = 0; k < ndone; k++)
      if (k != i && done_tt[i] > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  vs %s %.2fx", done_name[k], done_tt[k] / done_tt[i]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* under mpiexec: the sequential matrix S (the same on every rank) as an MPIAIJ matrix, each rank keeping its rows */
static PetscErrorCode Distribute(Mat S, Mat *A)
{
  PetscInt n, rstart, rend, cstart, cend, *dnz, *onz;

  PetscFunctionBegin;
  if (size_ == 1) {
    *A = S;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetSize(S, &n, NULL));
  {
    PetscInt nloc = PETSC_DECIDE, N = n;
    PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &nloc, &N));
    PetscCallMPI(MPI_Scan(&nloc, &rend, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    rstart = rend - nloc;
    cstart = rstart, cend = rend;
    PetscCall(MatCreate(PETSC_COMM_WORLD, A));
    PetscCall(MatSetSizes(*A, nloc, nloc, n, n));
    PetscCall(MatSetType(*A, MATAIJ));
  }
  PetscCall(PetscCalloc2(rend - rstart, &dnz, rend - rstart, &onz));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt        nc;
    const PetscInt *cols;
    PetscCall(MatGetRow(S, i, &nc, &cols, NULL));
    for (PetscInt k = 0; k < nc; k++) (cols[k] >= cstart && cols[k] < cend ? dnz : onz)[i - rstart]++;
    PetscCall(MatRestoreRow(S, i, &nc, &cols, NULL));
  }
  PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnz, 0, onz));
  PetscCall(PetscFree2(dnz, onz));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(S, i, &nc, &cols, &vals));
    PetscCall(MatSetValues(*A, 1, &i, nc, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(S, i, &nc, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatDestroy(&S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char     *solvers[8], *mats[32], name[64];
  PetscInt  ns = 8, nm = 32, np = 8, ne = 8, nh = 8, pois[8], elas[8], helm[8];
  PetscBool set;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size_));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank_));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps_, NULL));
  PetscCheck(reps_ >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be >= 1", reps_);
  PetscCall(PetscOptionsHasName(NULL, NULL, "-view_factor", &view_factor_));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-solvers", solvers, &ns, &set));
  if (!set) {
    const char *def[] = {MATSOLVERPGX, MATSOLVERCHOLMOD, MATSOLVERMUMPS, MATSOLVERUMFPACK, "umfpack-dl", MATSOLVERPETSC};
    ns                = 6;
    for (PetscInt s = 0; s < ns; s++) PetscCall(PetscStrallocpy(def[s], &solvers[s]));
  }
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-poisson", pois, &np, &set));
  if (!set) np = 0;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-elasticity", elas, &ne, &set));
  if (!set) ne = 0;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-helmholtz", helm, &nh, &set));
  if (!set) nh = 0;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-matrices", mats, &nm, &set));
  if (!set) nm = 0;
  for (PetscInt i = 0; i < np; i++) {
    Mat A;
    PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "poisson3d", pois[i], &A));
    PetscCall(PetscSNPrintf(name, sizeof(name), "poisson3d-%" PetscInt_FMT, pois[i]));
    PetscCall(RunAll(name, A, solvers, ns, PETSC_TRUE));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt i = 0; i < ne; i++) {
    Mat S, A;
    PetscCall(LDLTElasticity(elas[i], &S));
    PetscCall(Distribute(S, &A));
    PetscCall(PetscSNPrintf(name, sizeof(name), "elasticity3d-%" PetscInt_FMT, elas[i]));
    PetscCall(RunAll(name, A, solvers, ns, PETSC_TRUE));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt i = 0; i < nh; i++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "helmholtz3d-%" PetscInt_FMT, helm[i]));
#if defined(PETSC_USE_COMPLEX)
    Mat A;
    PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "helmholtz3d", helm[i], &A));
    PetscCall(RunAll(name, A, solvers, ns, PETSC_FALSE));
    PetscCall(MatDestroy(&A));
#else
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "== %s: SKIPPED (complex symmetric: needs a complex PETSc build, this one is real)\n", name));
#endif
  }
  for (PetscInt i = 0; i < nm; i++) {
    char           path[PETSC_MAX_PATH_LEN];
    PetscBool      exists;
    Mat            A;
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PGXMatrixPath(mats[i], path, sizeof(path));
    PetscCall(PetscPopErrorHandler());
    exists = PETSC_FALSE;
    if (!ierr) PetscCall(PetscTestFile(path, 'r', &exists));
    if (!exists) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "== %s: SKIPPED (not found; set PGX_MATRICES)\n", mats[i]));
      continue;
    }
    PetscCall(PGXMatLoadMatrixMarket(PETSC_COMM_WORLD, path, &A));
    PetscCall(RunAll(mats[i], A, solvers, ns, PETSC_TRUE));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt s = 0; s < ns; s++) PetscCall(PetscFree(solvers[s]));
  for (PetscInt i = 0; i < nm; i++) PetscCall(PetscFree(mats[i]));
  PetscCall(PetscFinalize());
  return 0;
}
