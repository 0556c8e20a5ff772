/* KSPPGXGMRES: PETSc's restarted GMRES (KSPGMRES) with the operator, the Krylov basis and the preconditioner
   resident in one backend (src/ksp/utils/resident/). The basis is one block of contiguous vectors, so that a
   classical Gram-Schmidt step is one MDot (all the products, one reduction) and one MAXPY; the small
   Hessenberg least-squares problem (Givens rotations) stays on the host, as the scalars it is made of.
   Order of operations, restart, refinement, happy breakdown and converged reasons are KSPGMRES's. */
#include "../../utils/resident/resident.h"

typedef struct {
  KSP_PGXResident                base;        /* resident operator, PC binding, vectors; -pgx_device */
  PetscInt                       max_k;       /* restart */
  PetscReal                      haptol;      /* happy breakdown tolerance */
  PetscReal                      breakdowntol;/* tolerance of the restart residual check */
  PetscBool                      mgs;         /* modified Gram-Schmidt instead of classical */
  KSPGMRESCGSRefinementType      cgstype;     /* refinement of classical Gram-Schmidt */
  PetscInt                       alloc_k;     /* max_k the host arrays are sized for */
  PetscScalar                   *hh, *hes;    /* (max_k+2) x (max_k+1): the rotated and the original Hessenberg */
  PetscScalar                   *rs, *cc, *ss;/* right-hand side of the least-squares problem, rotations */
  PetscScalar                   *lhh;         /* Gram-Schmidt coefficients of one step */
  PetscScalar                   *nrs;         /* KSPBuildSolution() during a cycle: its own triangular solve */
  PetscReal                      rnorm0;      /* residual norm at the start of the cycle */
  PetscInt                       it;          /* current column - 1 */
  PetscBool                      solout;      /* ksp->vec_sol holds the final solution already (copied for the last monitor) */
  PetscBool                      lookahead;   /* -ksp_pgx_gmres_lookahead: queue the next product before reading a step's scalars */
  PetscInt                       nahead;      /* steps of the last solve whose next product was queued ahead */
  PetscLogDouble                 tq, tw;      /* the last solve's look-ahead steps: host time queuing, waiting */
  /* resident vectors of the current solve */
  PetscScalar                   *VV, *TEMP, *TEMP_MATOP, *SOL;
} KSP_PGXGMRES;

#define HH(a, b)  (g->hh + (b) * (g->max_k + 2) + (a))
#define HES(a, b) (g->hes + (b) * (g->max_k + 2) + (a))
#define GRS(a)    (g->rs + (a))
#define CC(a)     (g->cc + (a))
#define SS(a)     (g->ss + (a))
#define VEC_VV(j) (g->VV + (size_t)(j) * r->n)

static PetscErrorCode KSPSetUp_PGXGMRES(KSP ksp)
{
  KSP_PGXGMRES *g = (KSP_PGXGMRES *)ksp->data;
  PetscInt      k = g->max_k;

  PetscFunctionBegin;
  PetscCall(PGXKSPResidentSetUp(ksp, &g->base));
  if (g->alloc_k != k) {
    PetscCall(PetscFree7(g->hh, g->hes, g->rs, g->cc, g->ss, g->lhh, g->nrs));
    PetscCall(PetscCalloc7((k + 2) * (k + 1), &g->hh, (k + 2) * (k + 1), &g->hes, k + 2, &g->rs, k + 1, &g->cc, k + 1, &g->ss, k + 1, &g->lhh, k + 2, &g->nrs));
    g->alloc_k = k;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gram-Schmidt of VEC_VV(it+1) against VEC_VV(0..it): hh(:,it), hes(:,it) (KSPGMRES's classical with its
   refinement, or modified) */
static PetscErrorCode PGXGMRESOrthogonalize(KSP ksp, KSP_PGXGMRES *g, PGXResident r, PetscInt it)
{
  PetscScalar *hh = HH(0, it), *hes = HES(0, it), *lhh = g->lhh, *w = VEC_VV(it + 1);
  PetscInt     j;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_KSPOrthog, ksp, 0, 0, 0));
  for (j = 0; j <= it; j++) hh[j] = hes[j] = 0.0;
  if (g->mgs) {
    for (j = 0; j <= it; j++) {
      PetscCall(PGXResidentDot(r, w, VEC_VV(j), &hh[j]));
      KSPCheckDot(ksp, hh[j]);
      if (ksp->reason) break;
      hes[j] = hh[j];
      PetscCall(PGXResidentAXPY(r, -hh[j], VEC_VV(j), w));
    }
  } else {
    PetscBool refine = PETSC_FALSE;
    PetscCall(PGXResidentMDot(r, it + 1, VEC_VV(0), r->n, w, lhh)); /* <v_j, w>, all j in one pass */
    for (j = 0; j <= it; j++) {
      KSPCheckDot(ksp, lhh[j]);
      lhh[j] = -lhh[j];
    }
    PetscCall(PGXResidentMAXPY(r, it + 1, lhh, VEC_VV(0), r->n, w));
    for (j = 0; j <= it; j++) {
      hh[j] -= lhh[j];
      hes[j] -= lhh[j];
    }
    if (g->cgstype == KSP_GMRES_CGS_REFINE_IFNEEDED) {
      PetscReal hnrm = 0.0, wnrm;
      for (j = 0; j <= it; j++) hnrm += PetscRealPart(lhh[j] * PetscConj(lhh[j]));
      hnrm = PetscSqrtReal(hnrm);
      PetscCall(PGXResidentNorm(r, w, &wnrm));
      KSPCheckNorm(ksp, wnrm);
      if (wnrm < hnrm) {
        refine = PETSC_TRUE;
        PetscCall(PetscInfo(ksp, "Performing iterative refinement wnorm %g hnorm %g\n", (double)wnrm, (double)hnrm));
      }
    } else if (g->cgstype == KSP_GMRES_CGS_REFINE_ALWAYS) refine = PETSC_TRUE;
    if (refine) {
      PetscCall(PGXResidentMDot(r, it + 1, VEC_VV(0), r->n, w, lhh));
      for (j = 0; j <= it; j++) lhh[j] = -lhh[j];
      PetscCall(PGXResidentMAXPY(r, it + 1, lhh, VEC_VV(0), r->n, w));
      for (j = 0; j <= it; j++) {
        hh[j] -= lhh[j];
        hes[j] -= lhh[j];
      }
    }
  }
  PetscCall(PetscLogEventEnd(PGX_KSPOrthog, ksp, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reductions in backend memory (one rank, the host backend, or cuda on GPUs of their own: PGXResidentDevReductions(),
   each product summed over the ranks where it is made), classical Gram-Schmidt without refinement: the step above and
   the normalization of v_{it+1} with one host synchronization: the products stay in backend memory, MAXPY reads them
   there (negated, as above), and the products and ||w||^2 come back together; then w is scaled as
   PGXResidentNormalize() does. Same arithmetic. In two halves: Queue queues the step (and, with devscale, the
   scaling of w by 1/||w|| read in backend memory, so that the next product can be queued behind it before the host
   has the scalars) and the fetch; Finish waits for the scalars and fills the Hessenberg column. */
static PetscErrorCode PGXGMRESOneSyncQueue(KSP ksp, KSP_PGXGMRES *g, PGXResident r, PetscInt it, PetscBool devscale)
{
  PetscScalar *w = VEC_VV(it + 1), *ds;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_KSPOrthog, ksp, 0, 0, 0));
  PetscCall(PGXResidentScalars(r, &ds));
  PetscCall(PGXResidentMDotDev(r, it + 1, VEC_VV(0), r->n, w, ds));
  PetscCall(PGXResidentMAXPYNegDev(r, it + 1, ds, VEC_VV(0), r->n, w));
  PetscCall(PGXResidentNorm2SqDev(r, w, ds + it + 1));
  if (devscale) PetscCall(PGXResidentScaleInvSqrtDev(r, ds + it + 1, w));
  PetscCall(PGXResidentFetchBegin(r, it + 2, ds, it % 2));
  PetscCall(PetscLogEventEnd(PGX_KSPOrthog, ksp, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGXGMRESOneSyncFinish(KSP ksp, KSP_PGXGMRES *g, PGXResident r, PetscInt it, PetscBool devscale, PetscReal *tt)
{
  PetscScalar *hh = HH(0, it), *hes = HES(0, it), h[PGX_RESIDENT_NSCAL];
  PetscInt     j;

  PetscFunctionBegin;
  PetscCall(PGXResidentFetchEnd(r, it + 2, it % 2, h));
  for (j = 0; j <= it; j++) hh[j] = hes[j] = 0.0;
  for (j = 0; j <= it; j++) {
    KSPCheckDot(ksp, h[j]);
    hh[j] -= -h[j];
    hes[j] -= -h[j];
  }
  *tt = PetscSqrtReal(PetscRealPart(h[it + 1]));
  if (*tt == 0.0) PetscCall(PetscInfo(NULL, "Vector of zero norm can not be normalized; returning only the zero norm\n"));
  else if (*tt != 1.0 && !devscale) PetscCall(PGXResidentScale(r, 1.0 / *tt, VEC_VV(it + 1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Applies the previous rotations to column it, computes the new one, updates the residual estimate */
static PetscErrorCode PGXGMRESUpdateHessenberg(KSP ksp, KSP_PGXGMRES *g, PetscInt it, PetscBool hapend, PetscReal *res)
{
  PetscScalar *hh = HH(0, it), *cc = CC(0), *ss = SS(0), tt;
  PetscInt     j;

  PetscFunctionBegin;
  for (j = 1; j <= it; j++) {
    tt  = *hh;
    *hh = PetscConj(*cc) * tt + *ss * *(hh + 1);
    hh++;
    *hh = *cc++ * *hh - (*ss++ * tt);
  }
  if (!hapend) {
    tt = PetscSqrtScalar(PetscConj(*hh) * *hh + PetscConj(*(hh + 1)) * *(hh + 1));
    if (tt == 0.0) {
      PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "tt == 0.0");
      ksp->reason = KSP_DIVERGED_NULL;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    *cc          = *hh / tt;
    *ss          = *(hh + 1) / tt;
    *GRS(it + 1) = -(*ss * *GRS(it));
    *GRS(it)     = PetscConj(*cc) * *GRS(it);
    *hh          = PetscConj(*cc) * *hh + *ss * *(hh + 1);
    *res         = PetscAbsScalar(*GRS(it + 1));
  } else *res = 0.0; /* happy breakdown: the new subdiagonal is zero, so is the residual */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dest = X + V y (y in nrs from the triangular system; nrs = GRS(0) at the end of a cycle, as in KSPGMRES),
   unwinding right preconditioning */
static PetscErrorCode PGXGMRESBuildSoln(KSP ksp, KSP_PGXGMRES *g, PGXResident r, PetscScalar *nrs, const PetscScalar *X, PetscScalar *dest, PetscInt it)
{
  PetscScalar tt;
  PetscInt    ii, k, j;

  PetscFunctionBegin;
  if (it < 0) { /* no step taken */
    PetscCall(PGXResidentCopy(r, X, dest));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (*HH(it, it) != 0.0) nrs[it] = *GRS(it) / *HH(it, it);
  else {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "You reached the break down in GMRES; HH(it,it) = 0");
    ksp->reason = KSP_DIVERGED_BREAKDOWN;
    PetscCall(PetscInfo(ksp, "Likely your matrix or preconditioner is singular. HH(it,it) is identically zero; it = %" PetscInt_FMT " GRS(it) = %g\n", it, (double)PetscAbsScalar(*GRS(it))));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (ii = 1; ii <= it; ii++) {
    k  = it - ii;
    tt = *GRS(k);
    for (j = k + 1; j <= it; j++) tt = tt - *HH(k, j) * nrs[j];
    if (*HH(k, k) == 0.0) {
      PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "Likely your matrix or preconditioner is singular. HH(k,k) is identically zero; k = %" PetscInt_FMT, k);
      ksp->reason = KSP_DIVERGED_BREAKDOWN;
      PetscCall(PetscInfo(ksp, "Likely your matrix or preconditioner is singular. HH(k,k) is identically zero; k = %" PetscInt_FMT "\n", k));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    nrs[k] = tt / *HH(k, k);
  }
  PetscCall(PGXResidentSet(r, 0.0, g->TEMP));
  PetscCall(PGXResidentMAXPY(r, it + 1, nrs, VEC_VV(0), r->n, g->TEMP));
  PetscCall(PGXResidentUnwind(ksp, r, g->TEMP, g->TEMP_MATOP));
  PetscCall(PGXResidentCopy(r, X, dest));
  PetscCall(PGXResidentAXPY(r, 1.0, g->TEMP, dest));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One cycle of at most max_k steps, starting from the (preconditioned) residual in VEC_VV(0) */
static PetscErrorCode PGXGMRESCycle(KSP ksp, KSP_PGXGMRES *g, PGXResident r, PetscScalar *X, PetscInt *itcount)
{
  PetscReal res, hapbnd, tt;
  PetscInt  it = 0, max_k = g->max_k;
  PetscBool hapend = PETSC_FALSE, ahead = PETSC_FALSE; /* ahead: v_{it+1} = B A v_it is queued already */

  PetscFunctionBegin;
  *itcount = 0;
  PetscCall(PGXResidentNormalize(r, VEC_VV(0), &res));
  KSPCheckNorm(ksp, res);
  /* the recursion's residual estimate must agree with the true one at the restart */
  if (ksp->rnorm > 0.0 && PetscAbsReal(res - ksp->rnorm) > g->breakdowntol * g->rnorm0) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_CONV_FAILED, "Residual norm computed by GMRES recursion formula %g is far from the computed residual norm %g at restart, residual norm at start of cycle %g", (double)ksp->rnorm, (double)res, (double)g->rnorm0);
    PetscCall(PetscInfo(ksp, "Residual norm computed by GMRES recursion formula %g is far from the computed residual norm %g at restart, residual norm at start of cycle %g\n", (double)ksp->rnorm, (double)res, (double)g->rnorm0));
    ksp->reason = KSP_DIVERGED_BREAKDOWN;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *GRS(0) = g->rnorm0 = res;
  ksp->rnorm          = res;
  g->it               = it - 1;
  PetscCall(KSPLogResidualHistory(ksp, res));
  PetscCall(KSPMonitor(ksp, ksp->its, res));
  if (!res) {
    ksp->reason = KSP_CONVERGED_ATOL;
    PetscCall(PetscInfo(ksp, "Converged due to zero residual norm on entry\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall((*ksp->converged)(ksp, ksp->its, res, &ksp->reason, ksp->cnvP));
  while (!ksp->reason && it < max_k && ksp->its < ksp->max_it) {
    if (it) {
      PetscCall(KSPLogResidualHistory(ksp, res));
      PetscCall(KSPMonitor(ksp, ksp->its, res));
    }
    g->it = it - 1;
    if (!ahead) PetscCall(PGXResidentApplyBAorAB(ksp, r, VEC_VV(it), VEC_VV(it + 1), g->TEMP_MATOP));
    ahead = PETSC_FALSE;
    if (PGXResidentDevReductions(r) && !g->mgs && g->cgstype == KSP_GMRES_CGS_REFINE_NEVER && it + 2 <= PGX_RESIDENT_NSCAL) {
      /* the look-ahead: when a next step may follow in this cycle, w is scaled on the device and the next product
         queued behind it before the host waits for this step's scalars; if the host then stops (convergence,
         breakdown), that product is never read (v_{it+2} exists: it + 2 <= max_k) */
      const PetscBool la = (PetscBool)(g->lookahead && it + 2 <= max_k && ksp->its + 1 < ksp->max_it);
      PetscLogDouble  t0 = 0, t1 = 0, t2 = 0;

      PetscCall(PGXGMRESOneSyncQueue(ksp, g, r, it, la));
      if (la) {
        PetscCall(PetscTime(&t0));
        PetscCall(PGXResidentApplyBAorAB(ksp, r, VEC_VV(it + 1), VEC_VV(it + 2), g->TEMP_MATOP));
        PetscCall(PetscTime(&t1));
        ahead = PETSC_TRUE;
      }
      PetscCall(PGXGMRESOneSyncFinish(ksp, g, r, it, la, &tt));
      if (la) {
        PetscCall(PetscTime(&t2));
        g->tq += t1 - t0;
        g->tw += t2 - t1;
        g->nahead++;
      }
      if (ksp->reason) break;
    } else {
      PetscCall(PGXGMRESOrthogonalize(ksp, g, r, it));
      if (ksp->reason) break;
      PetscCall(PGXResidentNormalize(r, VEC_VV(it + 1), &tt));
    }
    KSPCheckNorm(ksp, tt);
    *HH(it + 1, it)  = tt;
    *HES(it + 1, it) = tt;
    hapbnd = PetscAbsScalar(tt / *GRS(it)); /* happy breakdown */
    if (hapbnd > g->haptol) hapbnd = g->haptol;
    if (tt < hapbnd) {
      PetscCall(PetscInfo(ksp, "Detected happy breakdown, current hapbnd = %14.12e tt = %14.12e\n", (double)hapbnd, (double)tt));
      hapend = PETSC_TRUE;
    }
    PetscCall(PGXGMRESUpdateHessenberg(ksp, g, it, hapend, &res));
    it++;
    g->it = it - 1;
    ksp->its++;
    ksp->rnorm = res;
    if (ksp->reason) break;
    PetscCall((*ksp->converged)(ksp, ksp->its, res, &ksp->reason, ksp->cnvP));
    if (hapend) {
      if (ksp->normtype == KSP_NORM_NONE) ksp->reason = KSP_CONVERGED_HAPPY_BREAKDOWN;
      else if (!ksp->reason) {
        PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "You reached the happy break down, but convergence was not indicated. Residual norm = %g", (double)res);
        ksp->reason = KSP_DIVERGED_BREAKDOWN;
        break;
      }
    }
  }
  *itcount = it;
#if PETSC_VERSION_GE(3, 22, 0)
  /* PETSc >= 3.22 (as its KSPGMRES): the solution is formed first, the last step monitored after it, and
     KSPBuildSolution() returns ksp->vec_sol once a reason is set: a monitor that builds the solution (true residual)
     finds the formed one there, copied out only when there are monitors */
  PetscCall(PGXGMRESBuildSoln(ksp, g, r, GRS(0), X, X, it - 1));
  if (ksp->reason == KSP_CONVERGED_ITERATING && ksp->its >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  if (it && ksp->reason) {
    PetscCall(KSPLogResidualHistory(ksp, res));
    if (ksp->numbermonitors && ksp->reason != KSP_DIVERGED_PC_FAILED) {
      PetscCall(PGXResidentCopyOut(r, X, ksp->vec_sol));
      g->solout = PETSC_TRUE; /* KSPSolve does not copy it again */
    }
    PetscCall(KSPMonitor(ksp, ksp->its, res));
  }
#else
  if (it && (ksp->reason || ksp->its >= ksp->max_it)) { /* no restart follows: monitor the last step */
    PetscCall(KSPLogResidualHistory(ksp, res));
    PetscCall(KSPMonitor(ksp, ksp->its, res));
  }
  PetscCall(PGXGMRESBuildSoln(ksp, g, r, GRS(0), X, X, it - 1));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGXGMRESIterate(KSP ksp, KSP_PGXGMRES *g, PGXResident r, PetscScalar *X, const PetscScalar *B)
{
  PetscInt  its, itcount = 0;
  PetscBool guess_zero = ksp->guess_zero;

  PetscFunctionBegin;
  ksp->its   = 0;
  ksp->rnorm = -1.0; /* no residual check at the first cycle */
  /* a PC that failed in KSPSetUp still gets the first cycle, which meets its Inf and reports it (as KSPGMRES) */
  while (!ksp->reason || (ksp->rnorm == -1.0 && ksp->reason == KSP_DIVERGED_PC_FAILED)) {
    PetscCall(PGXResidentInitialResidual(ksp, r, X, g->TEMP, g->TEMP_MATOP, VEC_VV(0), B));
    PetscCall(PGXGMRESCycle(ksp, g, r, X, &its));
    itcount += its;
    if (itcount >= ksp->max_it) {
      if (!ksp->reason) ksp->reason = KSP_DIVERGED_ITS;
      break;
    }
    ksp->guess_zero = PETSC_FALSE; /* the next cycles start from the current x */
  }
  ksp->guess_zero = guess_zero;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSolve_PGXGMRES(KSP ksp)
{
  KSP_PGXGMRES *g = (KSP_PGXGMRES *)ksp->data;
  PGXResident   r;
  PetscScalar  *w;
  PetscBool     guess_zero = ksp->guess_zero;

  PetscFunctionBegin;
  PetscCall(KSPSetUp_PGXGMRES(ksp));
  r = g->base.res;
  PetscCall(PetscLogEventBegin(PGX_KSPSolve, ksp, 0, 0, 0));
  PetscCall(PGXResidentGetWork(r, g->max_k + 6, &w));
  PetscScalar *X = w, *B = w + r->n;
  g->TEMP       = w + 2 * r->n;
  g->TEMP_MATOP = w + 3 * r->n;
  g->SOL        = w + 4 * r->n;
  g->VV         = w + 5 * r->n;
  PetscCall(PGXResidentCopyIn(r, ksp->vec_rhs, B));
  if (ksp->guess_zero) PetscCall(PGXResidentSet(r, 0.0, X));
  else PetscCall(PGXResidentCopyIn(r, ksp->vec_sol, X));
  g->base.X  = X;
  g->solout  = PETSC_FALSE;
  g->nahead  = 0;
  g->tq = g->tw = 0;
  PetscCall(PGXGMRESIterate(ksp, g, r, X, B));
  /* where the host's time goes in the look-ahead steps: queuing the next product against waiting for the scalars */
  if (g->nahead) PetscCall(PetscInfo(ksp, "look-ahead: %" PetscInt_FMT " steps queued their next product before the host waited, the host queued %.1f us and waited %.1f us a step\n", g->nahead, 1e6 * g->tq / g->nahead, 1e6 * g->tw / g->nahead));
  g->base.X = NULL;
  ksp->guess_zero = guess_zero; /* also after an early return from a failed check */
  if (ksp->reason != KSP_DIVERGED_PC_FAILED && !g->solout) PetscCall(PGXResidentCopyOut(r, X, ksp->vec_sol));
  PetscCall(PetscLogEventEnd(PGX_KSPSolve, ksp, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The current solution during a cycle (x0 of the cycle + V y), as KSPGMRES's KSPBuildSolution */
static PetscErrorCode KSPBuildSolution_PGXGMRES(KSP ksp, Vec v, Vec *V)
{
  KSP_PGXGMRES *g = (KSP_PGXGMRES *)ksp->data;

  PetscFunctionBegin;
  if (!g->base.X) PetscCall(KSPBuildSolutionDefault(ksp, v, V));
  else {
    PetscCall(PGXGMRESBuildSoln(ksp, g, g->base.res, g->nrs, g->base.X, g->SOL, g->it));
    PetscCall(PGXKSPResidentBuildSolution(ksp, &g->base, g->SOL, v, V));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDestroy_PGXGMRES(KSP ksp)
{
  KSP_PGXGMRES *g = (KSP_PGXGMRES *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PGXKSPResidentDestroy(ksp, &g->base));
  PetscCall(PetscFree7(g->hh, g->hes, g->rs, g->cc, g->ss, g->lhh, g->nrs));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetRestart_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESGetRestart_C", NULL));
  PetscCall(PetscFree(ksp->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPGMRESSetRestart_PGXGMRES(KSP ksp, PetscInt k)
{
  KSP_PGXGMRES *g = (KSP_PGXGMRES *)ksp->data;

  PetscFunctionBegin;
  PetscCheck(k >= 1, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "Restart must be positive, not %" PetscInt_FMT, k);
  g->max_k = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPGMRESGetRestart_PGXGMRES(KSP ksp, PetscInt *k)
{
  PetscFunctionBegin;
  *k = ((KSP_PGXGMRES *)ksp->data)->max_k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetFromOptions_PGXGMRES(KSP ksp, PGXOptionItems PetscOptionsObject)
{
  KSP_PGXGMRES *g = (KSP_PGXGMRES *)ksp->data;
  PetscInt      k = g->max_k;
  PetscBool     flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP PGXGMRES options");
  PetscCall(PetscOptionsInt("-ksp_gmres_restart", "Number of Krylov search directions", "KSPGMRESSetRestart", k, &k, &flg));
  if (flg) PetscCall(KSPGMRESSetRestart_PGXGMRES(ksp, k));
  PetscCall(PetscOptionsReal("-ksp_gmres_haptol", "Tolerance for exact convergence (happy ending)", "KSPGMRESSetHapTol", g->haptol, &g->haptol, NULL));
  PetscCall(PetscOptionsReal("-ksp_gmres_breakdown_tolerance", "Divergence breakdown tolerance during GMRES restart", "KSPGMRESSetBreakdownTolerance", g->breakdowntol, &g->breakdowntol, NULL));
  flg = PETSC_FALSE;
  PetscCall(PetscOptionsBool("-ksp_gmres_modifiedgramschmidt", "Use modified Gram-Schmidt (one reduction per basis vector)", "KSPGMRESSetOrthogonalization", flg, &flg, NULL));
  if (flg) g->mgs = PETSC_TRUE;
  flg = PETSC_FALSE;
  PetscCall(PetscOptionsBool("-ksp_gmres_classicalgramschmidt", "Use classical Gram-Schmidt (default: one MDot and one MAXPY per step)", "KSPGMRESSetOrthogonalization", flg, &flg, NULL));
  if (flg) g->mgs = PETSC_FALSE;
  PetscCall(PetscOptionsBool("-ksp_pgx_gmres_lookahead", "Classical Gram-Schmidt without refinement, reductions in backend memory: scale the new basis vector on the device and queue the next product before the host reads a step's scalars", "KSPPGXGMRES", g->lookahead, &g->lookahead, NULL));
  PetscCall(PetscOptionsEnum("-ksp_gmres_cgs_refinement_type", "Type of iterative refinement for classical (unmodified) Gram-Schmidt", "KSPGMRESSetCGSRefinementType", KSPGMRESCGSRefinementTypes, (PetscEnum)g->cgstype, (PetscEnum *)&g->cgstype, NULL));
  PetscCall(PGXKSPResidentSetFromOptions(ksp, &g->base, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_PGXGMRES(KSP ksp, PetscViewer viewer)
{
  KSP_PGXGMRES *g = (KSP_PGXGMRES *)ksp->data;
  PetscBool     iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  restart=%" PetscInt_FMT ", using %s Gram-Schmidt Orthogonalization%s%s\n", g->max_k, g->mgs ? "Modified" : "Classical (unmodified)", g->mgs ? "" : " with refinement ", g->mgs ? "" : KSPGMRESCGSRefinementTypes[g->cgstype]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  happy breakdown tolerance %g\n", (double)g->haptol));
    {
      char used[160] = "";

      if (g->lookahead && ksp->totalits) {
        if (g->nahead) PetscCall(PetscSNPrintf(used, sizeof(used), ", %" PetscInt_FMT " steps of the last solve", g->nahead));
        else PetscCall(PetscStrncpy(used, ", not used by the last solve (modified Gram-Schmidt, refinement, restart 1, or reductions through the host)", sizeof(used)));
      }
      PetscCall(PetscViewerASCIIPrintf(viewer, "  look-ahead (the next product queued before the host reads a step's scalars): %s%s\n", g->lookahead ? "on" : "off", used));
    }
    PetscCall(PGXKSPResidentView(ksp, &g->base, viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  KSPPGXGMRES - "pgxgmres": restarted GMRES as `KSPGMRES` with the whole solve resident in the memory of one
  PGX backend (operator, Krylov basis, preconditioner); only scalars leave the device per iteration.

  Options Database Keys:
+ -pgx_device <auto,host,cuda> - where the solve runs (host: the reference kernels on host arrays)
. -ksp_pgx_spmv_format <auto,csr,dia> - cuda: the SpMV reads a banded (DIA) copy of the diagonal block (see `KSPPGXCG`)
. -ksp_gmres_restart <30> - the restart (`KSPGMRESSetRestart()` works too)
. -ksp_gmres_cgs_refinement_type <refine_never,refine_ifneeded,refine_always> - as for `KSPGMRES`
. -ksp_gmres_modifiedgramschmidt - modified Gram-Schmidt
. -ksp_pgx_gmres_lookahead <true,false> - classical Gram-Schmidt without refinement with its reductions in backend
    memory (one rank, the host backend, or cuda on GPUs of their own): the new basis vector is scaled on the device
    by 1/||w|| read there and the next product queued before the host waits for the step's scalars
. -ksp_gmres_haptol <1e-30> - happy breakdown tolerance
. -ksp_gmres_breakdown_tolerance <0.1> - restart residual check
- -ksp_pc_side <left,right> - left (default, preconditioned norm) or right (unpreconditioned norm)

  Level: intermediate

  Notes:
  Same algorithm and order of operations as `KSPGMRES` (classical Gram-Schmidt without refinement by default):
  iterations and residual history equal `KSPGMRES`'s with the same preconditioner to round-off. A
  Gram-Schmidt step is one multi-dot product (one reduction) and one multi-AXPY over the contiguous basis.
  With the look-ahead the device never waits for the host between a step and the next product: the host reads
  a step's Gram-Schmidt coefficients and norm while the next product runs; a solve that stops (convergence,
  breakdown) has computed one product more than `KSPGMRES`, never read.
  Preconditioners: `PCNONE`, `PCJACOBI`, `PCDILU`, `PCAIPS`; any other PC is an error.
  Real and complex scalars, on the host and with the cuda backend, with each of these PCs.

.seealso: `KSPGMRES`, `KSPPGXCG`, `KSPPGXBCGS`, `PCDILU`, `PCAIPS`
M*/
PETSC_EXTERN PetscErrorCode KSPCreate_PGXGMRES(KSP ksp)
{
  KSP_PGXGMRES *g;

  PetscFunctionBegin;
  PetscCall(PetscNew(&g));
  ksp->data = (void *)g;
  PetscCall(PGXKSPResidentCreate(ksp, &g->base));
  g->max_k        = 30;
  g->haptol       = 1.0e-30;
  g->breakdowntol = 0.1;
  g->cgstype      = KSP_GMRES_CGS_REFINE_NEVER;
  g->lookahead    = PETSC_TRUE;
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_RIGHT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_RIGHT, 1));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  ksp->ops->setup          = KSPSetUp_PGXGMRES;
  ksp->ops->solve          = KSPSolve_PGXGMRES;
  ksp->ops->destroy        = KSPDestroy_PGXGMRES;
  ksp->ops->view           = KSPView_PGXGMRES;
  ksp->ops->setfromoptions = KSPSetFromOptions_PGXGMRES;
  ksp->ops->buildsolution  = KSPBuildSolution_PGXGMRES;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetRestart_C", KSPGMRESSetRestart_PGXGMRES));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESGetRestart_C", KSPGMRESGetRestart_PGXGMRES));
  PetscFunctionReturn(PETSC_SUCCESS);
}
