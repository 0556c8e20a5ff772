static char help[] = "PCDILU at the PETSc level.\n"
                     "  -mode seq       : PCApply (natural) equals a plain sequential DILU written here (1e-14)\n"
                     "  -mode transpose : PCApplyTranspose equals PCApply of PCDILU on the explicit transpose (both orderings)\n"
                     "  -mode reuse     : SAME_NONZERO_PATTERN redoes no analysis and gives the fresh PC's answer; setters/getters\n"
                     "  -mode wave      : PCDILUSetColorWave/GetColorWave: 7-point poisson3d colors per wave, a change after setup\n"
                     "                    redoes the analysis (the fresh PC's bits), the same wave again does not, natural ignores it,\n"
                     "                    0 and 65 refused with the wave unchanged\n"
                     "  -mode richardson: KSPRICHARDSON: the fused PCApplyRichardson equals PETSc's loop (-pc_dilu_richardson 0)\n"
                     "                    to 1e-12 for its 1, 2, 5, zero and nonzero guess, both orderings; taken once per solve\n"
                     "                    on one rank only; Amat != Pmat and a reused preconditioner as the generic loop\n"
                     "  -mode compare   : -pgx_device cuda equals host (1e-12) for both orderings, apply, transpose and\n"
                     "                    PGXPCApplyDevice, on random, poisson3d, convdiff3d, helmholtz3d (complex symmetric with complex\n"
                     "                    scalars), BentPipe2D100 and Laplace3D10, and with complex scalars a complex random matrix;\n"
                     "                    the richardson checks on cuda, and cuda's fused Richardson equals host's\n";
#include <petscksp.h>
#include <petsclog.h>
#include <pgx/private/pgximpl.h>
#include "dilu_problems.h"
#include "../common/pgxtest.h"

static PetscInt nfail = 0;

/* |a - b|_inf / |b|_inf */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *d)
{
  Vec       w;
  PetscReal nb, nw;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(a, &w));
  PetscCall(VecWAXPY(w, -1.0, b, a));
  PetscCall(VecNorm(w, NORM_INFINITY, &nw));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *d = (PetscIsInfOrNanReal(nw) || nb == 0) ? PETSC_MAX_REAL : nw / nb;
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreatePC(Mat A, PCDILUOrdering ord, PGXDeviceType dev, PC *pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), pc));
  PetscCall(PCSetType(*pc, PCDILU));
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(PCDILUSetOrdering(*pc, ord));
  PetscCall(PetscOptionsSetValue(NULL, "-pgx_device", PGXDeviceTypes[dev]));
  PetscCall(PCSetFromOptions(*pc));
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RandomVec(Mat A, PetscInt seed, Vec *x)
{
  PetscRandom r;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, x, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &r));
  PetscCall(PetscRandomSetSeed(r, (unsigned long)seed));
  PetscCall(PetscRandomSeed(r));
  PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
  PetscCall(VecSetRandom(*x, r));
  PetscCall(PetscRandomDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Plain sequential DILU from MatGetRow */
static PetscErrorCode SequentialDILU(Mat A, Vec r, Vec y)
{
  PetscInt           n;
  PetscScalar       *E, *ya;
  const PetscScalar *ra;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(PetscMalloc1(n, &E));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt           nc;
    const PetscInt    *c;
    const PetscScalar *v;
    PetscScalar        d = 0;
    PetscCall(MatGetRow(A, i, &nc, &c, &v));
    for (PetscInt k = 0; k < nc; k++)
      if (c[k] == i) d += v[k];
    for (PetscInt k = 0; k < nc; k++) {
      if (c[k] >= i) continue;
      PetscScalar aji = 0, aij = v[k];
      PetscInt    j = c[k], ncj;
      PetscBool   has = PETSC_FALSE;
      const PetscInt    *cj;
      const PetscScalar *vj;
      PetscCall(MatRestoreRow(A, i, &nc, &c, &v));
      PetscCall(MatGetRow(A, j, &ncj, &cj, &vj));
      for (PetscInt q = 0; q < ncj; q++)
        if (cj[q] == i) aji = vj[q], has = PETSC_TRUE;
      PetscCall(MatRestoreRow(A, j, &ncj, &cj, &vj));
      if (has) d -= aij * aji / E[j];
      PetscCall(MatGetRow(A, i, &nc, &c, &v));
    }
    PetscCall(MatRestoreRow(A, i, &nc, &c, &v));
    E[i] = d;
  }
  PetscCall(VecGetArrayRead(r, &ra));
  PetscCall(VecGetArray(y, &ya));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt           nc;
    const PetscInt    *c;
    const PetscScalar *v;
    PetscScalar        s = ra[i];
    PetscCall(MatGetRow(A, i, &nc, &c, &v));
    for (PetscInt k = 0; k < nc; k++)
      if (c[k] < i) s -= v[k] * ya[c[k]];
    PetscCall(MatRestoreRow(A, i, &nc, &c, &v));
    ya[i] = s / E[i];
  }
  for (PetscInt i = n - 1; i >= 0; i--) {
    PetscInt           nc;
    const PetscInt    *c;
    const PetscScalar *v;
    PetscScalar        s = 0;
    PetscCall(MatGetRow(A, i, &nc, &c, &v));
    for (PetscInt k = 0; k < nc; k++)
      if (c[k] > i) s += v[k] * ya[c[k]];
    PetscCall(MatRestoreRow(A, i, &nc, &c, &v));
    ya[i] -= s / E[i];
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(r, &ra));
  PetscCall(PetscFree(E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestSeq(const char *name, PetscInt m)
{
  Mat       A;
  PC        pc;
  Vec       r, y, ys;
  PetscReal d;

  PetscFunctionBeginUser;
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, name, m, &A));
  PetscCall(CreatePC(A, PC_DILU_ORDERING_NATURAL, PGX_DEVICE_HOST, &pc));
  PetscCall(RandomVec(A, 7, &r));
  PetscCall(VecDuplicate(r, &y));
  PetscCall(VecDuplicate(r, &ys));
  PetscCall(PCApply(pc, r, y));
  PetscCall(SequentialDILU(A, r, ys));
  PetscCall(RelDiff(y, ys, &d));
  CHECK(d <= 1e-14, "%s: PCApply differs from sequential DILU by %g (relative), expected <= 1e-14", name, (double)d);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: natural PCDILU equals sequential DILU%s\n", name, d <= 1e-14 ? "" : " NOT"));
  PetscCall(PCDestroy(&pc));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&ys));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestTranspose(const char *name, PetscInt m, PGXDeviceType dev)
{
  Mat A, At;

  PetscFunctionBeginUser;
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, name, m, &A));
  PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At));
  for (int o = 0; o < 2; o++) {
    PC        pc, pct;
    Vec       r, y, yt;
    PetscReal d;
    PetscCall(CreatePC(A, (PCDILUOrdering)o, dev, &pc));
    PetscCall(CreatePC(At, (PCDILUOrdering)o, dev, &pct));
    PetscCall(RandomVec(A, 11, &r));
    PetscCall(VecDuplicate(r, &y));
    PetscCall(VecDuplicate(r, &yt));
    PetscCall(PCApplyTranspose(pc, r, y));
    PetscCall(PCApply(pct, r, yt));
    PetscCall(RelDiff(y, yt, &d));
    /* multicolor: A^T's coloring is A's (same symmetrized graph), so the two agree as well */
    CHECK(d <= 1e-13, "%s %s: PCApplyTranspose differs from PCApply on the explicit transpose by %g", name, PCDILUOrderings[o], (double)d);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: transpose apply %s\n", name, PCDILUOrderings[o], d <= 1e-13 ? "matches" : "DIFFERS"));
    PetscCall(PCDestroy(&pc));
    PetscCall(PCDestroy(&pct));
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&yt));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&At));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestReuse(PGXDeviceType dev)
{
  Mat                A;
  PC                 pc, fresh;
  Vec                r, y, yf;
  PetscReal          d, shift;
  PetscLogEvent      ev;
  PetscEventPerfInfo info;
  PCDILUOrdering     ord;
  int                count0;
  PetscInt           nana = -1;
  PetscErrorCode (*getcount)(PC, PetscInt *) = NULL;

  PetscFunctionBeginUser;
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, "convdiff3d", 9, &A));
  PetscCall(PetscLogEventGetId("PGXDILUAnalysis", &ev));
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
  count0 = info.count;
  PetscCall(CreatePC(A, PC_DILU_ORDERING_MULTICOLOR, dev, &pc));
  PetscCall(PCDILUGetOrdering(pc, &ord));
  CHECK(ord == PC_DILU_ORDERING_MULTICOLOR, "PCDILUGetOrdering gave %d", (int)ord);
  PetscCall(PCDILUSetShift(pc, 0.5));
  PetscCall(PCDILUGetShift(pc, &shift));
  CHECK(shift == 0.5, "PCDILUGetShift gave %g", (double)shift);
  PetscCall(PCDILUSetShift(pc, 0.0));
  /* new values, same pattern */
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatShift(A, 1.0));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetUp(pc));
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
  PetscCall(PetscObjectQueryFunction((PetscObject)pc, "PCDILUGetAnalysisCount_C", &getcount));
  CHECK(getcount != NULL, "PCDILUGetAnalysisCount_C is not composed");
  if (getcount) PetscCall((*getcount)(pc, &nana));
  PetscCall(CreatePC(A, PC_DILU_ORDERING_MULTICOLOR, dev, &fresh));
  PetscCall(RandomVec(A, 3, &r));
  PetscCall(VecDuplicate(r, &y));
  PetscCall(VecDuplicate(r, &yf));
  PetscCall(PCApply(pc, r, y));
  PetscCall(PCApply(fresh, r, yf));
  PetscCall(RelDiff(y, yf, &d));
  CHECK(d == 0.0, "re-setup after new values differs from a fresh setup by %g", (double)d);
  /* the PC's own count of analyses (the log event's count, across all PCs of the program, is only printed on failure) */
  CHECK(nana == 1, "re-setup with the same pattern ran the analysis again (%d analyses by this PC; log event count %d -> %d)", (int)nana, count0, info.count);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "reuse: one analysis for two setups, same answer as a fresh PC\n"));
  PetscCall(PCDestroy(&pc));
  PetscCall(PCDestroy(&fresh));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yf));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Counts(PC pc, PetscInt *nana, PetscInt *ncolors)
{
  PetscErrorCode (*getcount)(PC, PetscInt *) = NULL, (*getcolors)(PC, PetscInt *) = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectQueryFunction((PetscObject)pc, "PCDILUGetAnalysisCount_C", &getcount));
  PetscCall(PetscObjectQueryFunction((PetscObject)pc, "PCDILUGetColorCount_C", &getcolors));
  PetscCheck(getcount && getcolors, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCDILUGetAnalysisCount_C or PCDILUGetColorCount_C is not composed");
  PetscCall((*getcount)(pc, nana));
  PetscCall((*getcolors)(pc, ncolors));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the color wave through the API (host): colors of the 7-point 12^3 Laplacian per wave (w colors for w <= 34, the
   wavefront levels), re-analysis on a change after setup with the same bits as a fresh PC, none for the same wave,
   the natural ordering ignores the wave, bad waves refused with nothing changed */
static PetscErrorCode TestWave(void)
{
  Mat            A;
  PC             pc, fresh;
  Vec            r, y, yf;
  PetscInt       wave = -1, nana = -1, nc = -1;
  PetscReal      d;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, "poisson3d", 12, &A));
  PetscCall(RandomVec(A, 9, &r));
  PetscCall(VecDuplicate(r, &y));
  PetscCall(VecDuplicate(r, &yf));
  /* default 8, 8 colors */
  PetscCall(CreatePC(A, PC_DILU_ORDERING_MULTICOLOR, PGX_DEVICE_HOST, &pc));
  PetscCall(PCDILUGetColorWave(pc, &wave));
  PetscCall(Counts(pc, &nana, &nc));
  CHECK(wave == 8 && nana == 1 && nc == 8, "default: color wave %d, %d analyses, %d colors; expected 8, 1, 8", (int)wave, (int)nana, (int)nc);
  /* waves 2, 4, 3, 1, 64 after setup: one analysis each, colors 2, 4, 3, 2 (red-black), 34 (3*11+1 wavefront levels) */
  {
    const PetscInt waves[] = {2, 4, 3, 1, 64}, colors[] = {2, 4, 3, 2, 34};
    for (int q = 0; q < 5; q++) {
      PetscCall(PCDILUSetColorWave(pc, waves[q]));
      PetscCall(PCSetUp(pc));
      PetscCall(PCDILUGetColorWave(pc, &wave));
      PetscCall(Counts(pc, &nana, &nc));
      CHECK(wave == waves[q] && nana == 2 + q && nc == colors[q], "color wave %d after setup: got wave %d, %d analyses, %d colors; expected %d analyses, %d colors", (int)waves[q], (int)wave, (int)nana, (int)nc, 2 + q, (int)colors[q]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "poisson3d-12 color wave %" PetscInt_FMT ": %" PetscInt_FMT " colors\n", waves[q], nc));
    }
  }
  /* back to 2: the same bits as a fresh PC with wave 2; then 2 again: no analysis */
  PetscCall(PCDILUSetColorWave(pc, 2));
  PetscCall(PCSetUp(pc));
  PetscCall(PCApply(pc, r, y));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &fresh));
  PetscCall(PCSetType(fresh, PCDILU));
  PetscCall(PCSetOperators(fresh, A, A));
  PetscCall(PCDILUSetOrdering(fresh, PC_DILU_ORDERING_MULTICOLOR));
  PetscCall(PCDILUSetColorWave(fresh, 2));
  PetscCall(PCSetFromOptions(fresh));
  PetscCall(PCSetUp(fresh));
  PetscCall(PCApply(fresh, r, yf));
  PetscCall(RelDiff(y, yf, &d));
  CHECK(d == 0.0, "wave changed after setup: the apply differs from a fresh PC's with that wave by %g", (double)d);
  PetscCall(PCDILUSetColorWave(pc, 2));
  PetscCall(PCSetUp(pc));
  PetscCall(Counts(pc, &nana, &nc));
  CHECK(nana == 7 && nc == 2, "the same wave again: %d analyses (expected 7), %d colors", (int)nana, (int)nc);
  /* bad waves: refused, the wave and the setup unchanged */
  for (int q = 0; q < 2; q++) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PCDILUSetColorWave(pc, q ? 65 : 0);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PCDILUGetColorWave(pc, &wave));
    PetscCall(PCSetUp(pc));
    PetscCall(Counts(pc, &nana, &nc));
    CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE && wave == 2 && nana == 7 && nc == 2, "color wave %d: error %d (expected %d), wave now %d, %d analyses, %d colors", q ? 65 : 0, (int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE, (int)wave, (int)nana, (int)nc);
  }
  PetscCall(PCDestroy(&pc));
  PetscCall(PCDestroy(&fresh));
  /* natural: the wave is kept but ignored (no colors, no new analysis) */
  PetscCall(CreatePC(A, PC_DILU_ORDERING_NATURAL, PGX_DEVICE_HOST, &pc));
  PetscCall(PCDILUSetColorWave(pc, 4));
  PetscCall(PCSetUp(pc));
  PetscCall(PCDILUGetColorWave(pc, &wave));
  PetscCall(Counts(pc, &nana, &nc));
  CHECK(wave == 4 && nana == 1 && nc == 0, "natural with color wave 4: wave %d, %d analyses, %d colors; expected 4, 1, 0", (int)wave, (int)nana, (int)nc);
  /* switching that PC to multicolor after setup uses the wave */
  PetscCall(PCDILUSetOrdering(pc, PC_DILU_ORDERING_MULTICOLOR));
  PetscCall(PCSetUp(pc));
  PetscCall(Counts(pc, &nana, &nc));
  CHECK(nana == 2 && nc == 4, "natural -> multicolor after setup with color wave 4: %d analyses, %d colors; expected 2, 4", (int)nana, (int)nc);
  PetscCall(PCDestroy(&pc));
  /* in a KSP: a wave set between two solves is used by the second one */
  {
    KSP      ksp;
    PetscInt its[2];
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCDILU));
    PetscCall(PCDILUSetOrdering(pc, PC_DILU_ORDERING_MULTICOLOR));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, r, y));
    PetscCall(KSPGetIterationNumber(ksp, &its[0]));
    PetscCall(PCDILUSetColorWave(pc, 2));
    PetscCall(KSPSolve(ksp, r, y));
    PetscCall(KSPGetIterationNumber(ksp, &its[1]));
    PetscCall(Counts(pc, &nana, &nc));
    CHECK(nana == 2 && nc == 2, "KSP, color wave 8 then 2 between solves: %d analyses, %d colors; expected 2, 2", (int)nana, (int)nc);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP: color wave 8 then 2 between solves: %" PetscInt_FMT " then %" PetscInt_FMT " iterations, %" PetscInt_FMT " analyses\n", its[0], its[1], nana));
    PetscCall(KSPDestroy(&ksp));
  }
  /* another PC type: the setter does nothing */
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(PCDILUSetColorWave(pc, 3));
  PetscCall(PCDestroy(&pc));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "color wave: set after setup redoes the analysis, natural ignores it, 0 and 65 refused\n"));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yf));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One KSPRICHARDSON solve with PCDILU (max_it its, tolerances that never stop it): x from x0 (nonzero guess) or from
   zero; fast: the fused PCApplyRichardson (default), else -pc_dilu_richardson 0 (PETSc's generic loop). P: the Pmat
   (NULL: A). reuse 1: a setup, then A += I without a new factorization (KSPSetReusePreconditioner), then the solve that
   counts; reuse 2: a setup, then a new Amat A + I with the same Pmat A (no new factorization: Pmat is unchanged), then
   the solve. calls: PCDILU Richardson calls (the PGXDILURichardson event) during that solve. */
static PetscErrorCode RichSolve(Mat A, Mat P, PCDILUOrdering ord, PGXDeviceType dev, PetscBool fast, PetscInt its, PetscBool guesszero, PetscInt reuse, Vec b, Vec x0, Vec x, PetscInt *calls)
{
  KSP                ksp;
  PC                 pc;
  Mat                B = NULL;
  PetscInt           got;
  KSPConvergedReason reason;
  PetscLogEvent      ev;
  PetscEventPerfInfo i0, i1;

  PetscFunctionBeginUser;
  if (reuse) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, reuse == 1 ? B : A, reuse == 1 ? B : (P ? P : A)));
  PetscCall(KSPSetType(ksp, KSPRICHARDSON));
  PetscCall(KSPSetTolerances(ksp, 1e-300, 1e-300, PETSC_DEFAULT, its));
  PetscCall(KSPSetInitialGuessNonzero(ksp, guesszero ? PETSC_FALSE : PETSC_TRUE));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCDILU));
  PetscCall(PCDILUSetOrdering(pc, ord));
  PetscCall(PetscOptionsSetValue(NULL, "-pgx_device", PGXDeviceTypes[dev]));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_dilu_richardson", fast ? "1" : "0"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_dilu_richardson"));
  if (reuse == 1) {
    PetscCall(KSPSetUp(ksp));
    PetscCall(KSPSetReusePreconditioner(ksp, PETSC_TRUE));
    PetscCall(MatShift(B, 1.0));
  } else if (reuse == 2) {
    PetscCall(KSPSetUp(ksp));
    PetscCall(MatShift(B, 1.0));
    PetscCall(KSPSetOperators(ksp, B, A));
  }
  PetscCall(VecCopy(x0, x));
  PetscCall(PetscLogEventGetId("PGXDILURichardson", &ev));
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &i0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &i1));
  *calls = i1.count - i0.count;
  PetscCall(KSPGetIterationNumber(ksp, &got));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  CHECK(got == its && (reason == KSP_CONVERGED_ITS || reason == KSP_DIVERGED_ITS), "Richardson %s its %d: %d iterations, reason %s", fast ? "fast" : "generic", (int)its, (int)got, KSPConvergedReasons[reason]);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPRICHARDSON with PCDILU on dev: the fused PCApplyRichardson against PETSc's generic loop (-pc_dilu_richardson 0)
   for its = 1, 2, 5, zero and nonzero guess, both orderings: the same iterates to 1e-12 (relative), the fused path
   taken once per solve on one rank (never on several: PCDILU factors the diagonal block there) and never with
   -pc_dilu_richardson 0; Pmat != Amat: not taken; a reused preconditioner after A changed: the unfused steps, the
   generic loop's iterates */
static PetscErrorCode TestRichardson(const char *name, PetscInt m, PGXDeviceType dev)
{
  Mat         A;
  Vec         b, x0, xf, xg;
  PetscMPIInt size;
  PetscInt    cf, cg;
  PetscReal   d;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, name, m, &A));
  PetscCall(RandomVec(A, 21, &b));
  PetscCall(RandomVec(A, 22, &x0));
  PetscCall(VecDuplicate(b, &xf));
  PetscCall(VecDuplicate(b, &xg));
  for (int o = 0; o < 2; o++) {
    const PetscInt steps[] = {1, 2, 5};
    PetscReal      worst   = 0;
    for (int q = 0; q < 3; q++) {
      for (int gz = 0; gz < 2; gz++) {
        PetscCall(RichSolve(A, NULL, (PCDILUOrdering)o, dev, PETSC_TRUE, steps[q], (PetscBool)gz, 0, b, x0, xf, &cf));
        PetscCall(RichSolve(A, NULL, (PCDILUOrdering)o, dev, PETSC_FALSE, steps[q], (PetscBool)gz, 0, b, x0, xg, &cg));
        PetscCall(RelDiff(xf, xg, &d));
        worst = PetscMax(worst, d);
        CHECK(d <= 1e-12, "%s %s its %d guess %s: fused Richardson differs from PETSc's loop by %g (relative), expected <= 1e-12", name, PCDILUOrderings[o], (int)steps[q], gz ? "zero" : "nonzero", (double)d);
        CHECK(cf == (size == 1 ? 1 : 0) && cg == 0, "%s %s its %d: %d fused calls with the fast path (expected %d), %d with -pc_dilu_richardson 0 (expected 0)", name, PCDILUOrderings[o], (int)steps[q], (int)cf, size == 1 ? 1 : 0, (int)cg);
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: Richardson its 1, 2, 5, zero and nonzero guess: fused %s the generic loop%s\n", name, PCDILUOrderings[o], worst <= 1e-12 ? "equals" : "DIFFERS FROM", size == 1 ? "" : " (generic on several ranks)"));
    /* Pmat != Amat (a copy of A): PETSc's loop */
    {
      Mat P;
      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &P));
      PetscCall(RichSolve(A, P, (PCDILUOrdering)o, dev, PETSC_TRUE, 2, PETSC_FALSE, 0, b, x0, xf, &cf));
      CHECK(cf == 0, "%s %s: Amat != Pmat, yet %d fused calls", name, PCDILUOrderings[o], (int)cf);
      PetscCall(MatDestroy(&P));
    }
    /* a reused preconditioner after A changed, and a new Amat with the same Pmat (PCSetUp() keeps the factorization, so
       the fast path stays installed): M as factored, the residual with the current Amat (unfused steps inside
       PCApplyRichardson), as the generic loop */
    for (PetscInt reuse = 1; reuse <= 2; reuse++) {
      PetscCall(RichSolve(A, NULL, (PCDILUOrdering)o, dev, PETSC_TRUE, 3, PETSC_FALSE, reuse, b, x0, xf, &cf));
      PetscCall(RichSolve(A, NULL, (PCDILUOrdering)o, dev, PETSC_FALSE, 3, PETSC_FALSE, reuse, b, x0, xg, &cg));
      PetscCall(RelDiff(xf, xg, &d));
      CHECK(d <= 1e-12 && cf == (size == 1 ? 1 : 0) && cg == 0, "%s %s: %s: differs from the generic loop by %g, %d and %d calls", name, PCDILUOrderings[o], reuse == 1 ? "reused preconditioner after A changed" : "new Amat, same Pmat", (double)d, (int)cf, (int)cg);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: Richardson with Amat != Pmat and with a reused preconditioner: as the generic loop\n", name, PCDILUOrderings[o]));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&xf));
  PetscCall(VecDestroy(&xg));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda against host: the fused Richardson (5 steps, nonzero guess; 2 steps from zero) of both backends, both orderings */
static PetscErrorCode CompareRichardson(const char *name, PetscInt m)
{
  Mat       A;
  Vec       b, x0, xh, xd;
  PetscInt  ch, cd;
  PetscReal d;

  PetscFunctionBeginUser;
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, name, m, &A));
  PetscCall(RandomVec(A, 31, &b));
  PetscCall(RandomVec(A, 32, &x0));
  PetscCall(VecDuplicate(b, &xh));
  PetscCall(VecDuplicate(b, &xd));
  for (int o = 0; o < 2; o++) {
    for (int gz = 0; gz < 2; gz++) {
      PetscInt its = gz ? 2 : 5;
      PetscCall(RichSolve(A, NULL, (PCDILUOrdering)o, PGX_DEVICE_HOST, PETSC_TRUE, its, (PetscBool)gz, 0, b, x0, xh, &ch));
      PetscCall(RichSolve(A, NULL, (PCDILUOrdering)o, PGX_DEVICE_CUDA, PETSC_TRUE, its, (PetscBool)gz, 0, b, x0, xd, &cd));
      PetscCall(RelDiff(xd, xh, &d));
      CHECK(d <= 1e-12 && ch == 1 && cd == 1, "%s %s its %d: cuda Richardson differs from host by %g (relative), %d and %d fused calls", name, PCDILUOrderings[o], (int)its, (double)d, (int)cd, (int)ch);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: cuda Richardson equals host\n", name, PCDILUOrderings[o]));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&xd));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuda vs host on one matrix, both orderings, apply + transpose + device entry point */
static PetscErrorCode CompareOne(const char *label, Mat A)
{
  PetscFunctionBeginUser;
  for (int o = 0; o < 2; o++) {
    PC        ph, pd;
    Vec       r, yh, yd, th, td;
    PetscReal d1, d2, d3;
    PetscInt  n;
    Mat       Ad = A;
    char      dtype[64];
    PetscBool conv;
    /* -cuda_mat_type aijcusparse: the cuda PC factors a converted copy (its pattern and values read on the device) */
    PetscCall(PetscOptionsGetString(NULL, NULL, "-cuda_mat_type", dtype, sizeof(dtype), &conv));
    if (conv) PetscCall(MatConvert(A, dtype, MAT_INITIAL_MATRIX, &Ad));
    PetscCall(CreatePC(A, (PCDILUOrdering)o, PGX_DEVICE_HOST, &ph));
    PetscCall(CreatePC(Ad, (PCDILUOrdering)o, PGX_DEVICE_CUDA, &pd));
    PetscCall(RandomVec(A, 5, &r));
    PetscCall(VecDuplicate(r, &yh));
    PetscCall(VecDuplicate(r, &yd));
    PetscCall(VecDuplicate(r, &th));
    PetscCall(VecDuplicate(r, &td));
    PetscCall(VecSet(yd, NAN)); /* poison */
    PetscCall(VecSet(td, NAN));
    PetscCall(PCApply(ph, r, yh));
    PetscCall(PCApply(pd, r, yd));
    PetscCall(RelDiff(yd, yh, &d1));
    PetscCall(PCApplyTranspose(ph, r, th));
    PetscCall(PCApplyTranspose(pd, r, td));
    PetscCall(RelDiff(td, th, &d2));
    /* device entry point */
    {
      const PetscScalar *ra;
      PetscScalar       *da = NULL, *dy = NULL, *h;
      PetscCall(VecGetLocalSize(r, &n));
      PetscCall(PGXDeviceMallocArray(n, &da));
      PetscCall(PGXDeviceMallocArray(n, &dy));
      PetscCall(PGXDeviceMemset(dy, 0xff, n * sizeof(PetscScalar))); /* NaN poison */
      PetscCall(VecGetArrayRead(r, &ra));
      PetscCall(PGXDeviceCopyArrayToDevice(da, ra, n));
      PetscCall(VecRestoreArrayRead(r, &ra));
      PetscCall(PGXPCApplyDevice(pd, da, dy));
      PetscCall(VecGetArrayWrite(td, &h));
      PetscCall(PGXDeviceCopyArrayToHost(h, dy, n));
      PetscCall(VecRestoreArrayWrite(td, &h));
      PetscCall(RelDiff(td, yh, &d3));
      PetscCall(PGXDeviceFree(&da));
      PetscCall(PGXDeviceFree(&dy));
    }
    CHECK(d1 <= 1e-12 && d2 <= 1e-12 && d3 <= 1e-12, "%s %s: cuda vs host: apply %g, transpose %g, PGXPCApplyDevice %g (relative), expected <= 1e-12", label, PCDILUOrderings[o], (double)d1, (double)d2, (double)d3);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: cuda %s host\n", label, PCDILUOrderings[o], (d1 <= 1e-12 && d2 <= 1e-12 && d3 <= 1e-12) ? "equals" : "DIFFERS FROM"));
    PetscCall(PCDestroy(&ph));
    PetscCall(PCDestroy(&pd));
    if (conv) PetscCall(MatDestroy(&Ad));
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&yh));
    PetscCall(VecDestroy(&yd));
    PetscCall(VecDestroy(&th));
    PetscCall(VecDestroy(&td));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestCompare(void)
{
  Mat  A;
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, "random", 3001, &A)); /* awkward size, nonsymmetric pattern */
  PetscCall(CompareOne("random3001", A));
  PetscCall(MatDestroy(&A));
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, "poisson3d", 23, &A));
  PetscCall(CompareOne("poisson3d-23", A));
  PetscCall(MatDestroy(&A));
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, "convdiff3d", 17, &A));
  PetscCall(CompareOne("convdiff3d-17", A));
  PetscCall(MatDestroy(&A));
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, "helmholtz3d", 15, &A)); /* complex symmetric with complex scalars */
  PetscCall(CompareOne("helmholtz3d-15", A));
  PetscCall(MatDestroy(&A));
#if defined(PETSC_USE_COMPLEX)
  /* complex entries everywhere, nonsymmetric pattern: (0.8 + 0.6i) A + 0.5i I of the random matrix */
  PetscCall(DILUTestProblem(PETSC_COMM_WORLD, "random", 3001, &A));
  PetscCall(MatScale(A, PetscCMPLX(0.8, 0.6)));
  PetscCall(MatShift(A, PetscCMPLX(0.0, 0.5)));
  PetscCall(CompareOne("random3001-complex", A));
  PetscCall(MatDestroy(&A));
#endif
  PetscCall(DILUTestMatrixPath("BentPipe2D100", path, sizeof(path)));
  PetscCall(DILUTestLoadMM(PETSC_COMM_WORLD, path, &A));
  PetscCall(CompareOne("BentPipe2D100", A));
  PetscCall(MatDestroy(&A));
  PetscCall(DILUTestMatrixPath("Laplace3D10", path, sizeof(path)));
  PetscCall(DILUTestLoadMM(PETSC_COMM_WORLD, path, &A));
  PetscCall(CompareOne("Laplace3D10", A));
  PetscCall(MatDestroy(&A));
  PetscCall(TestReuse(PGX_DEVICE_CUDA));
  PetscCall(TestTranspose("convdiff3d", 7, PGX_DEVICE_CUDA));
  PetscCall(TestRichardson("convdiff3d", 9, PGX_DEVICE_CUDA));
  PetscCall(CompareRichardson("random", 3001));
  PetscCall(CompareRichardson("convdiff3d", 17));
  PetscCall(CompareRichardson("helmholtz3d", 13));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      mode[32] = "seq";
  PetscBool seq, tr, re, cmp, wv, rich;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscStrcmp(mode, "seq", &seq));
  PetscCall(PetscStrcmp(mode, "transpose", &tr));
  PetscCall(PetscStrcmp(mode, "reuse", &re));
  PetscCall(PetscStrcmp(mode, "compare", &cmp));
  PetscCall(PetscStrcmp(mode, "wave", &wv));
  PetscCall(PetscStrcmp(mode, "richardson", &rich));
  if (seq) {
    PetscCall(TestSeq("random", 777));
    PetscCall(TestSeq("convdiff3d", 9));
    PetscCall(TestSeq("poisson3d27", 7));
  }
  if (tr) {
    PetscCall(TestTranspose("convdiff3d", 7, PGX_DEVICE_HOST));
    PetscCall(TestTranspose("random", 555, PGX_DEVICE_HOST));
  }
  if (re) PetscCall(TestReuse(PGX_DEVICE_HOST));
  if (cmp) PetscCall(TestCompare());
  if (wv) PetscCall(TestWave());
  if (rich) {
    PetscCall(TestRichardson("convdiff3d", 9, PGX_DEVICE_HOST));
    PetscCall(TestRichardson("random", 777, PGX_DEVICE_HOST));
    PetscCall(TestRichardson("poisson3d", 10, PGX_DEVICE_HOST));
  }
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " checks FAILED\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
