/* KSPPGXBCGS: PETSc's BiCGStab (KSPBCGS) with the operator, the vectors and the preconditioner resident in
   one backend (src/ksp/utils/resident/). Left or right preconditioning, KSPBCGS's order of operations,
   breakdown tests and converged reasons, so that iterations and residual histories agree with it. ||r|| and the
   next (r, rp) share one reduction: three global reductions per iteration instead of four. */
#include "../../utils/resident/resident.h"

typedef struct {
  KSP_PGXResident base;     /* resident operator, PC binding, vectors; -pgx_device */
  PetscScalar    *T, *G;    /* during a solve: a work vector free at monitor time, and the kept initial guess */
  PetscBool       hasguess; /* right preconditioning with a nonzero initial guess: G holds it */
} KSP_PGXBCGS;

static PetscErrorCode KSPSetUp_PGXBCGS(KSP ksp)
{
  KSP_PGXBCGS *bcgs = (KSP_PGXBCGS *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PGXKSPResidentSetUp(ksp, &bcgs->base));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v[0..6] = R, RP, V, T, S, P, G (G: the initial guess kept aside with right preconditioning) */
static PetscErrorCode PGXBCGSIterate(KSP ksp, PGXResident r, PetscScalar *X, const PetscScalar *B, PetscScalar **v, PetscBool *hasguess)
{
  PetscScalar *R = v[0], *RP = v[1], *V = v[2], *T = v[3], *S = v[4], *P = v[5], *G = v[6];
  PetscScalar  rho, rhoold, alpha, beta, omega, omegaold, d1, rhonext = 0.0;
  PetscReal    dp = 0.0, d2;
  PetscBool    havenext = PETSC_FALSE;
  PetscInt     i;

  PetscFunctionBegin;
  *hasguess = PETSC_FALSE;
  PetscCall(PGXResidentInitialResidual(ksp, r, X, V, T, R, B));
  if (ksp->pc_side == PC_RIGHT && !ksp->guess_zero) { /* keep x0 aside: the iteration builds B^-1 (x - x0) */
    PetscCall(PGXResidentCopy(r, X, G));
    PetscCall(PGXResidentSet(r, 0.0, X));
    *hasguess = PETSC_TRUE;
  }
  if (ksp->normtype != KSP_NORM_NONE) {
    PetscCall(PGXResidentNorm(r, R, &dp));
    KSPCheckNorm(ksp, dp);
  } else dp = 0.0;
  ksp->its   = 0;
  ksp->rnorm = dp;
  PetscCall(KSPLogResidualHistory(ksp, dp));
  PetscCall(KSPMonitor(ksp, 0, dp));
  PetscCall((*ksp->converged)(ksp, 0, dp, &ksp->reason, ksp->cnvP));
  if (ksp->reason) PetscFunctionReturn(PETSC_SUCCESS);

  PetscCall(PGXResidentCopy(r, R, RP)); /* rp = r */
  rhoold   = 1.0;
  alpha    = 1.0;
  omegaold = 1.0;
  PetscCall(PGXResidentSet(r, 0.0, P));
  PetscCall(PGXResidentSet(r, 0.0, V));
  i = 0;
  do {
    if (havenext) rho = rhonext; /* computed with ||r|| in one reduction */
    else PetscCall(PGXResidentDot(r, R, RP, &rho)); /* rho <- (r, rp) */
    havenext = PETSC_FALSE;
    beta = (rho / rhoold) * (alpha / omegaold);
    PetscCall(PGXResidentAXPBYPCZ(r, 1.0, -omegaold * beta, beta, R, V, P)); /* p <- r - omega beta v + beta p */
    PetscCall(PGXResidentApplyBAorAB(ksp, r, P, V, T));                      /* v <- K p */
    PetscCall(PGXResidentDot(r, V, RP, &d1));
    KSPCheckDot(ksp, d1);
    if (d1 == 0.0) {
      PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPSolve has not converged due to Nan or Inf inner product");
      ksp->reason = KSP_DIVERGED_BREAKDOWN;
      PetscCall(PetscInfo(ksp, "Breakdown due to zero inner product\n"));
      break;
    }
    alpha = rho / d1;                                 /* a <- rho / (v, rp) */
    PetscCall(PGXResidentWAXPY(r, -alpha, V, R, S));  /* s <- r - a v */
    PetscCall(PGXResidentApplyBAorAB(ksp, r, S, T, R)); /* t <- K s */
    PetscCall(PGXResidentDotNorm2(r, S, T, &d1, &d2));
    if (d2 == 0.0) { /* t = 0: if s = 0 too, alpha p may be the solution */
      PetscCall(PGXResidentDot(r, S, S, &d1));
      if (d1 != 0.0) {
        ksp->reason = KSP_DIVERGED_BREAKDOWN;
        PetscCall(PetscInfo(ksp, "Failed due to singular preconditioned operator\n"));
        break;
      }
      PetscCall(PGXResidentAXPY(r, alpha, P, X));
      ksp->its++;
      ksp->rnorm  = 0.0;
      ksp->reason = KSP_CONVERGED_RTOL;
      PetscCall(KSPLogResidualHistory(ksp, dp));
      PetscCall(KSPMonitor(ksp, i + 1, 0.0));
      break;
    }
    omega = d1 / d2;                                                /* w <- (t's) / (t't) */
    PetscCall(PGXResidentAXPBYPCZ(r, alpha, omega, 1.0, P, S, X)); /* x <- alpha p + omega s + x */
    PetscCall(PGXResidentWAXPY(r, -omega, T, S, R));               /* r <- s - w t */
    if (ksp->normtype != KSP_NORM_NONE && ksp->chknorm < i + 2) {
      PetscReal r2;
      /* ||r|| and the next rho = (r, rp) in one reduction (the same sums as VecNorm and VecDot): DotNorm2(rp, r) gives
         r^H rp and r^H r, and rho = rp^H r is its conjugate (complex scalars; the same value for real ones) */
      PetscCall(PGXResidentDotNorm2(r, RP, R, &rhonext, &r2));
      rhonext  = PetscConj(rhonext);
      dp       = PetscSqrtReal(r2);
      havenext = PETSC_TRUE;
      KSPCheckNorm(ksp, dp);
    }
    rhoold   = rho;
    omegaold = omega;
    ksp->its++;
    ksp->rnorm = dp;
    PetscCall(KSPLogResidualHistory(ksp, dp));
    PetscCall(KSPMonitor(ksp, i + 1, dp));
    PetscCall((*ksp->converged)(ksp, i + 1, dp, &ksp->reason, ksp->cnvP));
    if (ksp->reason) break;
    if (rho == 0.0) {
      ksp->reason = KSP_DIVERGED_BREAKDOWN;
      PetscCall(PetscInfo(ksp, "Breakdown due to zero rho\n"));
      break;
    }
    i++;
  } while (i < ksp->max_it);
  if (i >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSolve_PGXBCGS(KSP ksp)
{
  KSP_PGXBCGS *bcgs = (KSP_PGXBCGS *)ksp->data;
  PGXResident  r;
  PetscScalar *w, *v[7];
  PetscBool    hasguess = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PGXKSPResidentSetUp(ksp, &bcgs->base));
  r = bcgs->base.res;
  PetscCall(PetscLogEventBegin(PGX_KSPSolve, ksp, 0, 0, 0));
  PetscCall(PGXResidentGetWork(r, 9, &w));
  PetscScalar *X = w, *B = w + r->n;
  for (PetscInt j = 0; j < 7; j++) v[j] = w + (2 + j) * r->n;
  PetscCall(PGXResidentCopyIn(r, ksp->vec_rhs, B));
  if (ksp->guess_zero) PetscCall(PGXResidentSet(r, 0.0, X));
  else PetscCall(PGXResidentCopyIn(r, ksp->vec_sol, X));
  bcgs->base.X    = X;
  bcgs->T         = v[3];
  bcgs->G         = v[6];
  bcgs->hasguess  = (PetscBool)(ksp->pc_side == PC_RIGHT && !ksp->guess_zero);
  PetscCall(PGXBCGSIterate(ksp, r, X, B, v, &hasguess));
  bcgs->base.X = NULL;
  if (ksp->reason != KSP_DIVERGED_PC_FAILED) {
    /* KSPUnwindPreconditioner, then add the initial guess kept aside (as KSPBCGS, also after an early return) */
    if (ksp->reason != KSP_CONVERGED_ITERATING && ksp->its > 0) PetscCall(PGXResidentUnwind(ksp, r, X, v[3]));
    if (hasguess) PetscCall(PGXResidentAXPY(r, 1.0, v[6], X));
    PetscCall(PGXResidentCopyOut(r, X, ksp->vec_sol));
  }
  PetscCall(PetscLogEventEnd(PGX_KSPSolve, ksp, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The current solution: x, or B x + x0 with right preconditioning (T is free between iterations) */
static PetscErrorCode KSPBuildSolution_PGXBCGS(KSP ksp, Vec v, Vec *V)
{
  KSP_PGXBCGS *bcgs = (KSP_PGXBCGS *)ksp->data;
  PGXResident  r    = bcgs->base.res;

  PetscFunctionBegin;
  if (!bcgs->base.X) PetscCall(KSPBuildSolutionDefault(ksp, v, V));
  else if (ksp->pc_side == PC_RIGHT) {
    PetscCall(PGXResidentPCApply(ksp, r, bcgs->base.X, bcgs->T));
    if (bcgs->hasguess) PetscCall(PGXResidentAXPY(r, 1.0, bcgs->G, bcgs->T));
    PetscCall(PGXKSPResidentBuildSolution(ksp, &bcgs->base, bcgs->T, v, V));
  } else PetscCall(PGXKSPResidentBuildSolution(ksp, &bcgs->base, bcgs->base.X, v, V));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDestroy_PGXBCGS(KSP ksp)
{
  KSP_PGXBCGS *bcgs = (KSP_PGXBCGS *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PGXKSPResidentDestroy(ksp, &bcgs->base));
  PetscCall(PetscFree(ksp->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetFromOptions_PGXBCGS(KSP ksp, PGXOptionItems PetscOptionsObject)
{
  KSP_PGXBCGS *bcgs = (KSP_PGXBCGS *)ksp->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP PGXBCGS options");
  PetscCall(PGXKSPResidentSetFromOptions(ksp, &bcgs->base, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_PGXBCGS(KSP ksp, PetscViewer viewer)
{
  KSP_PGXBCGS *bcgs = (KSP_PGXBCGS *)ksp->data;
  PetscBool    iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) PetscCall(PGXKSPResidentView(ksp, &bcgs->base, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  KSPPGXBCGS - "pgxbcgs": BiCGStab as `KSPBCGS` with the whole solve resident in the memory of one PGX
  backend (operator, vectors, preconditioner); only scalars leave the device per iteration.

  Options Database Keys:
+ -pgx_device <auto,host,cuda> - where the solve runs (host: the reference kernels on host arrays)
. -ksp_pgx_spmv_format <auto,csr,dia> - cuda: the SpMV reads a banded (DIA) copy of the diagonal block (see `KSPPGXCG`)
- -ksp_pc_side <left,right> - left (default, preconditioned norm) or right (unpreconditioned norm)

  Level: intermediate

  Notes:
  Same algorithm, order of operations, breakdown tests and converged reasons as `KSPBCGS`: the iterations and
  residual history equal `KSPBCGS`'s with the same preconditioner to round-off. Preconditioners: `PCNONE`,
  `PCJACOBI`, `PCDILU`, `PCAIPS`; any other PC is an error. Real and complex scalars, on the host and with the cuda
  backend, with each of these PCs.

.seealso: `KSPBCGS`, `KSPPGXCG`, `KSPPGXGMRES`, `PCDILU`, `PCAIPS`
M*/
PETSC_EXTERN PetscErrorCode KSPCreate_PGXBCGS(KSP ksp)
{
  KSP_PGXBCGS *bcgs;

  PetscFunctionBegin;
  PetscCall(PetscNew(&bcgs));
  ksp->data = (void *)bcgs;
  PetscCall(PGXKSPResidentCreate(ksp, &bcgs->base));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_RIGHT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_RIGHT, 1));
  ksp->ops->setup          = KSPSetUp_PGXBCGS;
  ksp->ops->solve          = KSPSolve_PGXBCGS;
  ksp->ops->destroy        = KSPDestroy_PGXBCGS;
  ksp->ops->view           = KSPView_PGXBCGS;
  ksp->ops->setfromoptions = KSPSetFromOptions_PGXBCGS;
  ksp->ops->buildsolution  = KSPBuildSolution_PGXBCGS;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  PetscFunctionReturn(PETSC_SUCCESS);
}
