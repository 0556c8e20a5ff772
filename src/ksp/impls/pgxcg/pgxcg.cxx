/* KSPPGXCG: PETSc's preconditioned conjugate gradient method (KSPCG, its standard variant) with the operator,
   the vectors and the preconditioner resident in one backend (src/ksp/utils/resident/). The order of the
   operations, the norms, the breakdown tests and the converged reasons are KSPCG's, so that iterations and
   residual histories agree with it to round-off. With the preconditioned norm, ||z|| and the next z'r share one
   reduction: two global reductions per iteration (p'Ap, then both). With the preconditioned norm, where the
   reductions can stay in the backend's memory (one rank; the host backend; cuda on several ranks with GPUs of their
   own, whose sums go GPU to GPU: PGXResidentDevReductions()), p'Ap stays there and the step x += a p, r -= a w is
   taken there, so that an iteration synchronizes with the host once (p'Ap, z'r and ||z|| together), with the same
   arithmetic; with the look-ahead (default) the next iteration is queued before the host waits for those scalars. */
#include "../../utils/resident/resident.h"

typedef struct {
  KSP_PGXResident base;      /* resident operator, PC binding, vectors; -pgx_device */
  PetscBool       lookahead; /* -ksp_pgx_cg_lookahead: queue iteration i+1 before reading iteration i's scalars */
  PetscBool       usedla;    /* the last solve ran the look-ahead loop */
  PetscBool       single;    /* -ksp_pgx_cg_single_reduction: Chronopoulos-Gear CG, one global reduction per iteration */
  PetscBool       usedsingle; /* the last solve ran it */
  PetscBool       fusedpc;   /* -ksp_pgx_cg_fused_pc: the look-ahead loop folds PCNONE/PCJACOBI into the step's pass */
  PetscBool       usedfused; /* the last solve did */
  PetscBool       publish;   /* -ksp_pgx_cg_publish: the look-ahead loop's scalars written to host memory by their last kernel */
} KSP_PGXCG;

static PetscErrorCode KSPSetUp_PGXCG(KSP ksp)
{
  KSP_PGXCG *cg = (KSP_PGXCG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PGXKSPResidentSetUp(ksp, &cg->base));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPCG's test on p'Ap after KSPCheckDot(): zero, or a sign change from the second iteration on, is an indefinite or
   negative definite matrix (KSPCG's message, reason and error) */
static PetscErrorCode PGXCGIndefinite(KSP ksp, PetscInt i, PetscScalar dpi, PetscScalar dpiold, PetscBool *stop)
{
  PetscFunctionBegin;
  *stop = PETSC_FALSE;
  if (dpi == 0.0 || (i > 0 && PetscSign(PetscRealPart(dpi)) * PetscSign(PetscRealPart(dpiold)) < 0.0)) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "Diverged due to indefinite matrix, dpi %g, dpiold %g", (double)PetscRealPart(dpi), (double)PetscRealPart(dpiold));
    ksp->reason = KSP_DIVERGED_INDEFINITE_MAT;
    PetscCall(PetscInfo(ksp, "diverging due to indefinite or negative definite matrix\n"));
    *stop = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPCG's tests on z'r at the top of iteration i: zero (converged), or a sign change (indefinite preconditioner) */
static PetscErrorCode PGXCGBetaStop(KSP ksp, PetscInt i, PetscScalar beta, PetscScalar betaold, PetscBool *stop)
{
  PetscFunctionBegin;
  *stop = PETSC_TRUE;
  if (beta == 0.0) {
    ksp->reason = KSP_CONVERGED_ATOL;
    PetscCall(PetscInfo(ksp, "converged due to beta = 0\n"));
  } else if (i > 0 && PetscRealPart(beta * betaold) < 0.0) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "Diverged due to indefinite preconditioner, beta %g, betaold %g", (double)PetscRealPart(beta), (double)PetscRealPart(betaold));
    ksp->reason = KSP_DIVERGED_INDEFINITE_PC;
    PetscCall(PetscInfo(ksp, "diverging due to indefinite preconditioner\n"));
  } else *stop = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r <- b - A x (b with a zero guess); Inf where the PC failed in KSPSetUp, as KSPCG does (every CG loop starts here) */
static PetscErrorCode PGXCGResidual0(KSP ksp, PGXResident r, const PetscScalar *X, const PetscScalar *B, PetscScalar *R)
{
  PetscFunctionBegin;
  if (!ksp->guess_zero) {
    PetscCall(PGXResidentMult(r, X, R));
    PetscCall(PGXResidentAYPX(r, -1.0, B, R));
  } else PetscCall(PGXResidentCopy(r, B, R));
  if (ksp->reason == KSP_DIVERGED_PC_FAILED) PetscCall(PGXResidentSet(r, PETSC_INFINITY, R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The iteration on resident arrays X (in: x0, out: x), B; R, Z, P work (W = A p shares Z, as in KSPCG) */
static PetscErrorCode PGXCGIterate(KSP ksp, PGXResident r, PetscScalar *X, const PetscScalar *B, PetscScalar *R, PetscScalar *Z, PetscScalar *P)
{
  PetscScalar *W = Z;
  PetscScalar  dpi = 0.0, a = 1.0, beta = 0.0, betaold = 1.0, b, dpiold, betanext = 0.0;
  PetscBool    fused, stop;
  PetscReal    dp  = 0.0;
  PetscInt     i;
  PetscScalar *ds      = NULL;
  PetscBool    onesync = (PetscBool)(r->size == 1 && ksp->normtype == KSP_NORM_PRECONDITIONED);

  PetscFunctionBegin;
  if (onesync) PetscCall(PGXResidentScalars(r, &ds));
  ksp->its = 0;
  PetscCall(PGXCGResidual0(ksp, r, X, B, R));

  switch (ksp->normtype) {
  case KSP_NORM_PRECONDITIONED:
    PetscCall(PGXResidentPCApply(ksp, r, R, Z)); /* z <- B r */
    PetscCall(PGXResidentNorm(r, Z, &dp));
    KSPCheckNorm(ksp, dp);
    break;
  case KSP_NORM_UNPRECONDITIONED:
    PetscCall(PGXResidentNorm(r, R, &dp));
    KSPCheckNorm(ksp, dp);
    break;
  case KSP_NORM_NATURAL:
    PetscCall(PGXResidentPCApply(ksp, r, R, Z));
    PetscCall(PGXResidentDot(r, Z, R, &beta));
    KSPCheckDot(ksp, beta);
    dp = PetscSqrtReal(PetscAbsScalar(beta));
    break;
  case KSP_NORM_NONE:
    dp = 0.0;
    break;
  default:
    SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "%s", KSPNormTypes[ksp->normtype]);
  }
  PetscCall(KSPLogResidualHistory(ksp, dp));
  PetscCall(KSPMonitor(ksp, 0, dp));
  ksp->rnorm = dp;
  PetscCall((*ksp->converged)(ksp, 0, dp, &ksp->reason, ksp->cnvP));
  if (ksp->reason) PetscFunctionReturn(PETSC_SUCCESS);

  if (ksp->normtype != KSP_NORM_PRECONDITIONED && ksp->normtype != KSP_NORM_NATURAL) PetscCall(PGXResidentPCApply(ksp, r, R, Z));
  if (ksp->normtype != KSP_NORM_NATURAL) {
    PetscCall(PGXResidentDot(r, Z, R, &beta)); /* beta <- z'r */
    KSPCheckDot(ksp, beta);
  }

  i = 0;
  do {
    ksp->its = i + 1;
    PetscCall(PGXCGBetaStop(ksp, i, beta, betaold, &stop));
    if (stop) break;
    if (!i) {
      PetscCall(PGXResidentCopy(r, Z, P)); /* p <- z */
    } else {
      b = beta / betaold;
      PetscCall(PGXResidentAYPX(r, b, Z, P)); /* p <- z + b p */
    }
    dpiold = dpi;
    fused  = PETSC_FALSE;
    if (onesync && ksp->chknorm < i + 2) {
      /* one synchronization: w <- A p with p'Ap left in backend memory (one pass with cuda's DIA copy), the step
         applies a = beta/p'Ap there (or nothing where KSPCG stops before it), then z <- B r, and p'Ap, z'r and
         ||z||^2 come back together */
      PetscScalar h[3];
      PetscCall(PGXResidentMultDotDev(r, P, W, &ds[0]));
      PetscCall(PGXResidentCGStep(r, beta, dpiold, (PetscBool)(i > 0), &ds[0], P, W, X, R));
      PetscCall(PGXResidentPCApply(ksp, r, R, Z));
      PetscCall(PGXResidentDotNorm2Dev(r, R, Z, &ds[1]));
      PetscCall(PGXResidentFetch(r, 3, ds, h));
      dpi = h[0];
      KSPCheckDot(ksp, dpi);
      betaold = beta;
      PetscCall(PGXCGIndefinite(ksp, i, dpi, dpiold, &stop));
      if (stop) break;
      betanext = h[1];
      dp       = PetscSqrtReal(PetscRealPart(h[2]));
      fused    = PETSC_TRUE;
      KSPCheckNorm(ksp, dp);
    } else {
      PetscCall(PGXResidentMult(r, P, W)); /* w <- A p */
      PetscCall(PGXResidentDot(r, P, W, &dpi));
      KSPCheckDot(ksp, dpi);
      betaold = beta;
      PetscCall(PGXCGIndefinite(ksp, i, dpi, dpiold, &stop));
      if (stop) break;
      a = beta / dpi;
      PetscCall(PGXResidentAXPY(r, a, P, X));  /* x <- x + a p */
      PetscCall(PGXResidentAXPY(r, -a, W, R)); /* r <- r - a w */
      if (ksp->normtype == KSP_NORM_PRECONDITIONED && ksp->chknorm < i + 2) {
        PetscReal z2;
        PetscCall(PGXResidentPCApply(ksp, r, R, Z));
        /* ||z|| and the next z'r in one reduction (the same sums as KSPCG's VecNorm and VecXDot) */
        PetscCall(PGXResidentDotNorm2(r, R, Z, &betanext, &z2));
        dp    = PetscSqrtReal(z2);
        fused = PETSC_TRUE;
        KSPCheckNorm(ksp, dp);
      } else if (ksp->normtype == KSP_NORM_UNPRECONDITIONED && ksp->chknorm < i + 2) {
        PetscCall(PGXResidentNorm(r, R, &dp));
        KSPCheckNorm(ksp, dp);
      } else if (ksp->normtype == KSP_NORM_NATURAL) {
        PetscCall(PGXResidentPCApply(ksp, r, R, Z));
        PetscCall(PGXResidentDot(r, Z, R, &beta));
        KSPCheckDot(ksp, beta);
        dp = PetscSqrtReal(PetscAbsScalar(beta));
      } else dp = 0.0;
    }
    ksp->rnorm = dp;
    PetscCall(KSPLogResidualHistory(ksp, dp));
    PetscCall(KSPMonitor(ksp, i + 1, dp));
    PetscCall((*ksp->converged)(ksp, i + 1, dp, &ksp->reason, ksp->cnvP));
    if (ksp->reason) break;
    if ((ksp->normtype != KSP_NORM_PRECONDITIONED && ksp->normtype != KSP_NORM_NATURAL) || ksp->chknorm >= i + 2) PetscCall(PGXResidentPCApply(ksp, r, R, Z));
    if (fused) {
      beta = betanext;
      KSPCheckDot(ksp, beta);
    } else if (ksp->normtype != KSP_NORM_NATURAL || ksp->chknorm >= i + 2) {
      PetscCall(PGXResidentDot(r, Z, R, &beta));
      KSPCheckDot(ksp, beta);
    }
    i++;
  } while (i < ksp->max_it);
  if (i >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The one-synchronization iteration with a look-ahead of one (preconditioned norm; reductions in backend memory on
   every rank, PGXResidentDevReductions(): each is summed over the ranks where it is made): every scalar of
   iteration i+1 (beta/betaold, p'Ap, the guard of the step) is read in backend memory, so iteration i+1 is
   queued before the host waits for iteration i's p'Ap, z'r and ||z||, and the device never waits for the host.
   The arithmetic is that of PGXCGIterate's one-sync branch; the host takes the same decisions from the same
   scalars, one iteration later than the device. Only x needs care, because the queued iteration may be one that
   KSPCG would not take: x rotates through three arrays; iteration i reads XX[i % 3] and writes XX[(i + 1) % 3],
   so that neither the iterate before iteration i nor the one after it is overwritten by the iteration queued
   behind i, and the host may stop on either (before the step: beta = 0, an indefinite PC or p'Ap; after it:
   convergence). The iterate it stops at is left in base->X. The direction update p = z + (beta/betaold) p is
   folded into the product w = A p (one pass on cuda's DIA copy), so p alternates between PP[0] and PP[1] and w has
   an array of its own (not z's, as in KSPCG). Scalars: record j = i % 4 of ds holds p'Ap of iteration i, then z'r
   and ||z||^2 after it (the beta and ||z|| of iteration i + 1); iteration i reads its beta in record (i + 3) % 4,
   betaold in (i + 2) % 4 and dpiold in (i + 3) % 4. The fetch of iteration i goes through slot i % 2. With fuse and
   PCNONE or PCJACOBI, the step, z <- B r and the sums of z'r and ||z||^2 are one pass (two kernels an iteration). */
static PetscErrorCode PGXCGQueue(KSP ksp, PGXResident r, PetscBool fuse, PetscBool publish, PetscInt i, PetscScalar *ds, PetscScalar *const XX[3], PetscScalar *R, PetscScalar *Z, PetscScalar *const PP[2], PetscScalar *W)
{
  PetscScalar *rec = ds + 4 * (i % 4), *prev = ds + 4 * ((i + 3) % 4), *prev2 = ds + 4 * ((i + 2) % 4), *P = PP[i % 2];

  PetscFunctionBegin;
  /* p <- z + (beta/betaold) p (p <- z first), w <- A p, p'Ap: one pass (p alternates between PP[0] and PP[1]) */
  PetscCall(PGXResidentMultDotAYPXDev(r, Z, i ? PP[(i + 1) % 2] : NULL, &prev[1], &prev2[1], P, W, &rec[0]));
  /* x += a p, r -= a w; z <- B r; z'r, ||z||^2 (publish: the kernel that finishes them writes rec[0..2] to the host) */
  if (publish) PetscCall(PGXResidentFetchArm(r, 3, rec, i % 2));
  PetscCall(PGXResidentCGStepPCDev(ksp, r, fuse, &prev[1], &rec[0], i ? &prev[0] : NULL, P, W, XX[i % 3], XX[(i + 1) % 3], R, Z, &rec[1]));
  PetscCall(PGXResidentFetchBegin(r, 3, rec, i % 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGXCGIterateLookahead(KSP ksp, KSP_PGXResident *base, PetscBool fuse, PetscBool publish, PetscScalar *const XX[3], const PetscScalar *B, PetscScalar *R, PetscScalar *Z, PetscScalar *const PP[2], PetscScalar *W)
{
  PGXResident  r  = base->res;
  PetscScalar  dpi = 0.0, beta = 0.0, betaold = 1.0, dpiold, h[3];
  PetscReal    dp  = 0.0;
  PetscInt     i;
  PetscScalar *ds = NULL;
  PetscBool    stop;
  PetscLogDouble tq = 0, tw = 0;
  PetscInt       nq = 0;

  PetscFunctionBegin;
  PetscCall(PGXResidentScalars(r, &ds));
  base->X  = XX[0];
  ksp->its = 0;
  PetscCall(PGXCGResidual0(ksp, r, XX[0], B, R));
  PetscCall(PGXResidentPCApply(ksp, r, R, Z)); /* z <- B r */
  PetscCall(PGXResidentNorm(r, Z, &dp));
  KSPCheckNorm(ksp, dp);
  PetscCall(KSPLogResidualHistory(ksp, dp));
  PetscCall(KSPMonitor(ksp, 0, dp));
  ksp->rnorm = dp;
  PetscCall((*ksp->converged)(ksp, 0, dp, &ksp->reason, ksp->cnvP));
  if (ksp->reason) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXResidentDot(r, Z, R, &beta)); /* beta <- z'r */
  KSPCheckDot(ksp, beta);
  PetscCall(r->K->Set(1, beta, ds + 4 * 3 + 1)); /* iteration 0 reads its beta in record 3 */

  i = 0;
  PetscCall(PGXCGQueue(ksp, r, fuse, publish, 0, ds, XX, R, Z, PP, W)); /* max_it > 0 here (KSPSolve_PGXCG) */
  do {
    PetscLogDouble t0, t1, t2;

    ksp->its = i + 1;
    PetscCall(PGXCGBetaStop(ksp, i, beta, betaold, &stop));
    if (stop) break;
    PetscCall(PetscTime(&t0));
    if (i + 1 < ksp->max_it) PetscCall(PGXCGQueue(ksp, r, fuse, publish, i + 1, ds, XX, R, Z, PP, W)); /* the look-ahead */
    PetscCall(PetscTime(&t1));
    PetscCall(PGXResidentFetchEnd(r, 3, i % 2, h));
    PetscCall(PetscTime(&t2));
    tq += t1 - t0;
    tw += t2 - t1;
    nq++;
    dpiold = dpi;
    dpi    = h[0];
    KSPCheckDot(ksp, dpi);
    betaold = beta;
    PetscCall(PGXCGIndefinite(ksp, i, dpi, dpiold, &stop));
    if (stop) break;
    base->X = XX[(i + 1) % 3]; /* the step was taken (CGStepTaken agrees with the tests above) */
    dp      = PetscSqrtReal(PetscRealPart(h[2]));
    KSPCheckNorm(ksp, dp);
    ksp->rnorm = dp;
    PetscCall(KSPLogResidualHistory(ksp, dp));
    PetscCall(KSPMonitor(ksp, i + 1, dp));
    PetscCall((*ksp->converged)(ksp, i + 1, dp, &ksp->reason, ksp->cnvP));
    if (ksp->reason) break;
    beta = h[1];
    KSPCheckDot(ksp, beta);
    i++;
  } while (i < ksp->max_it);
  if (i >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  /* where the host's time goes: queuing an iteration against waiting for the device's scalars (a host that never
     waits is what bounds the iteration, not the device) */
  if (nq) PetscCall(PetscInfo(ksp, "look-ahead loop: %" PetscInt_FMT " iterations, the host queued %.1f us and waited %.1f us an iteration\n", nq, 1e6 * tq / nq, 1e6 * tw / nq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Chronopoulos-Gear CG (-ksp_pgx_cg_single_reduction; preconditioned or natural norm): u = B r and w = A u first, then
   r'u, w'u and u'u in one reduction (one MPI_Allreduce per iteration instead of KSPCG's two, which is what several
   ranks wait for), p'Ap from the recurrence p'Ap = w'u - beta r'u / alpha_old, and s = A p updated as w + beta s.
   Arrays: R, W, U consecutive (one multi-dot), P and S. The same iterate as KSPCG in exact arithmetic for a symmetric
   (Hermitian) operator; in floating point the iterations may differ by a few. The recurrence for p'Ap uses the
   symmetry that KSPCG's explicit product does not: ksp ex45's matrix (Dirichlet rows reduced to their diagonal, the
   couplings to them kept in the other rows) is not symmetric, and there it stops with DIVERGED_INDEFINITE_MAT where
   KSPCG converges. The last residual's check costs one product beyond KSPCG's. */
static PetscErrorCode PGXCGIterateSingle(KSP ksp, PGXResident r, PetscScalar *X, const PetscScalar *B, PetscScalar *R, PetscScalar *W, PetscScalar *U, PetscScalar *P, PetscScalar *S)
{
  PetscScalar g[3], gamma, delta, gammaold = 1.0, alpha = 1.0, alphaold = 1.0, beta = 0.0, dpi = 0.0, dpiold = 0.0;
  PetscReal   dp = 0.0;
  PetscBool   stop;

  PetscFunctionBegin;
  PetscCheck(W == R + r->n && U == W + r->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PGXCGIterateSingle needs r, w, u consecutive");
  ksp->its = 0;
  PetscCall(PGXCGResidual0(ksp, r, X, B, R));
  for (PetscInt i = 0;; i++) {
    PetscCall(PGXResidentPCApply(ksp, r, R, U)); /* u <- B r */
    PetscCall(PGXResidentMult(r, U, W));         /* w <- A u */
    PetscCall(PGXResidentMDot(r, 3, R, r->n, U, g)); /* r'u, w'u, u'u: the iteration's one reduction */
    gamma = g[0];
    delta = g[1];
    KSPCheckDot(ksp, gamma);
    dp = ksp->normtype == KSP_NORM_PRECONDITIONED ? PetscSqrtReal(PetscAbsScalar(g[2])) : ksp->normtype == KSP_NORM_NATURAL ? PetscSqrtReal(PetscAbsScalar(gamma)) : 0.0;
    KSPCheckNorm(ksp, dp);
    ksp->its   = i;
    ksp->rnorm = dp;
    PetscCall(KSPLogResidualHistory(ksp, dp));
    PetscCall(KSPMonitor(ksp, i, dp));
    PetscCall((*ksp->converged)(ksp, i, dp, &ksp->reason, ksp->cnvP));
    if (ksp->reason) break;
    if (i >= ksp->max_it) {
      ksp->reason = KSP_DIVERGED_ITS;
      break;
    }
    ksp->its = i + 1;
    PetscCall(PGXCGBetaStop(ksp, i, gamma, gammaold, &stop)); /* KSPCG's tests on z'r */
    if (stop) break;
    beta = i ? gamma / gammaold : 0.0;
    dpi  = i ? delta - beta * gamma / alphaold : delta; /* p'Ap */
    KSPCheckDot(ksp, dpi);
    PetscCall(PGXCGIndefinite(ksp, i, dpi, dpiold, &stop));
    if (stop) break;
    alpha = gamma / dpi;
    if (!i) {
      PetscCall(PGXResidentCopy(r, U, P));
      PetscCall(PGXResidentCopy(r, W, S));
    } else {
      PetscCall(PGXResidentAYPX(r, beta, U, P)); /* p <- u + beta p */
      PetscCall(PGXResidentAYPX(r, beta, W, S)); /* s <- w + beta s = A p */
    }
    PetscCall(PGXResidentAXPY(r, alpha, P, X));  /* x <- x + alpha p */
    PetscCall(PGXResidentAXPY(r, -alpha, S, R)); /* r <- r - alpha s */
    gammaold = gamma;
    alphaold = alpha;
    dpiold   = dpi;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSolve_PGXCG(KSP ksp)
{
  KSP_PGXCG   *cg = (KSP_PGXCG *)ksp->data;
  PGXResident  r;
  PetscScalar *w;

  PetscFunctionBegin;
  PetscCall(PGXKSPResidentSetUp(ksp, &cg->base));
  r = cg->base.res;
  PetscCall(PetscLogEventBegin(PGX_KSPSolve, ksp, 0, 0, 0));
  cg->usedsingle = (PetscBool)(cg->single && (ksp->normtype == KSP_NORM_PRECONDITIONED || ksp->normtype == KSP_NORM_NATURAL));
  if (cg->single && !cg->usedsingle) PetscCall(PetscInfo(ksp, "-ksp_pgx_cg_single_reduction needs the preconditioned or natural norm (not %s): KSPCG's iteration runs\n", KSPNormTypes[ksp->normtype]));
  cg->usedfused = PETSC_FALSE;
  cg->usedla    = (PetscBool)(!cg->usedsingle && cg->lookahead && PGXResidentDevReductions(r) && ksp->normtype == KSP_NORM_PRECONDITIONED && ksp->chknorm < 2 && ksp->max_it > 0);
  PetscCall(PGXResidentGetWork(r, cg->usedla ? 9 : cg->usedsingle ? 7 : 5, &w));
  PetscScalar *X = w, *B = w + r->n, *R = w + 2 * r->n, *Z = w + 3 * r->n, *P = w + 4 * r->n;
  PetscCall(PGXResidentCopyIn(r, ksp->vec_rhs, B));
  if (ksp->guess_zero) PetscCall(PGXResidentSet(r, 0.0, X));
  else PetscCall(PGXResidentCopyIn(r, ksp->vec_sol, X));
  cg->base.X = X;
  if (cg->usedla) {
    PetscScalar *const XX[3] = {X, w + 5 * r->n, w + 6 * r->n}, *const PP[2] = {P, w + 7 * r->n};
    cg->usedfused = (PetscBool)(cg->fusedpc && PGXResidentPCPointwise(r));
    PetscCall(PGXCGIterateLookahead(ksp, &cg->base, cg->fusedpc, cg->publish, XX, B, R, Z, PP, w + 8 * r->n));
  } else if (cg->usedsingle) PetscCall(PGXCGIterateSingle(ksp, r, X, B, R, w + 3 * r->n, w + 4 * r->n, w + 5 * r->n, w + 6 * r->n));
  else PetscCall(PGXCGIterate(ksp, r, X, B, R, Z, P));
  X          = cg->base.X;
  cg->base.X = NULL;
  if (ksp->reason != KSP_DIVERGED_PC_FAILED) PetscCall(PGXResidentCopyOut(r, X, ksp->vec_sol)); /* else KSPCheck* set x to Inf */
  PetscCall(PetscLogEventEnd(PGX_KSPSolve, ksp, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPBuildSolution_PGXCG(KSP ksp, Vec v, Vec *V)
{
  KSP_PGXCG *cg = (KSP_PGXCG *)ksp->data;

  PetscFunctionBegin;
  if (cg->base.X) PetscCall(PGXKSPResidentBuildSolution(ksp, &cg->base, cg->base.X, v, V));
  else PetscCall(KSPBuildSolutionDefault(ksp, v, V));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDestroy_PGXCG(KSP ksp)
{
  KSP_PGXCG *cg = (KSP_PGXCG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PGXKSPResidentDestroy(ksp, &cg->base));
  PetscCall(PetscFree(ksp->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetFromOptions_PGXCG(KSP ksp, PGXOptionItems PetscOptionsObject)
{
  KSP_PGXCG *cg = (KSP_PGXCG *)ksp->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP PGXCG options");
  PetscCall(PGXKSPResidentSetFromOptions(ksp, &cg->base, PetscOptionsObject));
  PetscCall(PetscOptionsBool("-ksp_pgx_cg_single_reduction", "Chronopoulos-Gear CG: one global reduction per iteration instead of two (several ranks; preconditioned or natural norm; symmetric operators only; iterations may differ from KSPCG's by round-off)", "KSPPGXCG", cg->single, &cg->single, NULL));
  PetscCall(PetscOptionsBool("-ksp_pgx_cg_fused_pc", "Look-ahead loop: with PCNONE or PCJACOBI the step x += a p, r -= a w, z <- B r and the sums of z'r and ||z||^2 in one pass; with PCAIPS (fused remainder, one rank) the sums in its last solve", "KSPPGXCG", cg->fusedpc, &cg->fusedpc, NULL));
  PetscCall(PetscOptionsBool("-ksp_pgx_cg_publish", "Look-ahead loop on one rank, cuda: the kernel that finishes an iteration's scalars writes them to host memory (no copy between iterations on the stream)", "KSPPGXCG", cg->publish, &cg->publish, NULL));
  PetscCall(PetscOptionsBool("-ksp_pgx_cg_lookahead", "Preconditioned norm: queue iteration i+1 before reading iteration i's scalars (the device never waits for the host; several ranks: with the host backend, or cuda with -pgx_allreduce_peer on GPUs of their own)", "KSPPGXCG", cg->lookahead, &cg->lookahead, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_PGXCG(KSP ksp, PetscViewer viewer)
{
  KSP_PGXCG *cg = (KSP_PGXCG *)ksp->data;
  PetscBool  iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) {
    PetscCall(PGXKSPResidentView(ksp, &cg->base, viewer));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  one global reduction per iteration (Chronopoulos-Gear, -ksp_pgx_cg_single_reduction): %s%s\n", cg->single ? "on" : "off", cg->single && !cg->usedsingle && ksp->totalits ? " (not used by the last solve: a norm type other than preconditioned or natural)" : ""));
    if (cg->base.res && cg->base.res->size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  p'Ap of the one-synchronization CG: %s (-ksp_pgx_mpi_fused_products %s)\n", cg->base.res->mpifused ? "summed inside both blocks' products, the new direction formed inside the diagonal block's" : "a dot after the product", cg->base.res->mpifused ? "1" : "0"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  look-ahead of one iteration: %s%s\n", cg->lookahead ? "on" : "off", cg->lookahead && !cg->usedla && ksp->totalits ?  " (not used by the last solve: another norm type, a norm check iteration, max_it 0, or several ranks whose reductions go through the host)" : ""));
    if (cg->usedla) {
      const PetscBool sums = (PetscBool)(cg->fusedpc && !cg->usedfused && cg->base.res && cg->base.res->pcsums);
      PetscCall(PetscViewerASCIIPrintf(viewer, "  the step, the PC and z'r, ||z|| in one pass (-ksp_pgx_cg_fused_pc): %s\n", cg->usedfused ? "yes" : sums ? "z'r and ||z|| summed in the PC's last pass" : cg->fusedpc ? "no (the PC is not pointwise, and does not sum in its last pass: PCNONE and PCJACOBI fold in, PCAIPS sums with its fused remainder on one rank)" : "no (off)"));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  KSPPGXCG - "pgxcg": the preconditioned conjugate gradient method of `KSPCG` with the whole solve resident in
  the memory of one PGX backend: the operator (`MATSEQAIJ`, or `MATMPIAIJ` as diagonal and off-diagonal blocks
  with a ghost exchange), the vectors and the preconditioner. Only scalars leave the device per iteration.

  Options Database Keys:
+ -pgx_device <auto,host,cuda> - where the solve runs (host: the reference kernels on host arrays)
. -ksp_pgx_spmv_format <auto,csr,dia> - cuda: the SpMV of the diagonal block reads a banded (DIA) copy of it (auto:
    when it has at most 32 diagonals filled to 2/3 at least; dia: at most 32 diagonals; csr: never)
. -ksp_pgx_dia_sample <n> - cuda, DIA copy: its offsets from every n-th row of the host pattern, checked by the fill
    on the device (an entry on an offset the rows missed: every row is read); 0 (default): the first prime >= rows/4096
. -ksp_pgx_cg_fused_pc <true,false> - the look-ahead loop with `PCNONE` or `PCJACOBI`: the step x += a p, r -= a w,
    z <- B r and the sums of z'r and ||z||^2 in one pass (the same arithmetic per entry, the sums in another order);
    with `PCAIPS` on cuda (its fused remainder, one rank) z'r and ||z||^2 summed in its last solve
    (`PGXPCApplyDeviceDotNorm2()`); default true
. -ksp_pgx_cg_publish <true,false> - the look-ahead loop on one rank with cuda: the kernel that finishes an iteration's
    z'r and ||z||^2 writes them and p'Ap to mapped host memory, so that no copy sits on the stream between the
    iterations; default true
. -ksp_pgx_cg_lookahead <true,false> - the preconditioned norm: iteration i+1 is queued before the host reads
    iteration i's scalars (x rotates through three arrays, so the iterate returned is the one `KSPCG` stops at);
    on several ranks with cuda only where the reductions are summed GPU to GPU (-pgx_allreduce_peer); default true
. -pgx_allreduce_peer <true,false> - several ranks, cuda: the reductions of the one-synchronization loops are summed
    GPU to GPU (CUDA IPC mailboxes, no host wait) where every rank has a GPU of its own on one node; default true
. -ksp_pgx_mpi_fused_products <true,false> - several ranks: p'Ap summed inside the products of the diagonal and
    off-diagonal blocks, and the look-ahead loop's new direction formed inside the diagonal block's product (after
    the entries the ghost exchange sends); false: a copy, an update, the product and a dot; default false (the same iterations either way;
    measured on two H200s at 126^3 and 128^3 within 4% of the default, either side)
. -ksp_pgx_cg_single_reduction <false,true> - Chronopoulos-Gear CG: r'u, w'u and u'u (u = B r, w = A u) in one global
    reduction per iteration instead of two (for several ranks, where each reduction is a device-to-host copy and an
    MPI_Allreduce); preconditioned or natural norm; symmetric (Hermitian) operators only, since p'Ap comes from a
    recurrence that assumes it (a nonsymmetric one such as ksp ex45's ends in DIVERGED_INDEFINITE_MAT); the iterations
    may differ from `KSPCG`'s by round-off
- -ksp_norm_type <preconditioned,unpreconditioned,natural,none> - as for `KSPCG`

  Level: intermediate

  Notes:
  Same algorithm, order of operations, norms and converged reasons as `KSPCG` (the standard variant): the
  iterations and the residual history equal `KSPCG`'s with the same preconditioner to round-off.
  Preconditioners: `PCNONE`, `PCJACOBI` (the PC's own diagonal, applied by a resident kernel), `PCDILU`,
  `PCAIPS` (with cuda through `PGXPCApplyDevice()`); any other PC is an error. `KSPSetUp()` copies the
  operator once, only its values when its nonzero pattern is unchanged, nothing when it is unchanged;
  `KSPSolve()` copies b and x0 in and x out.
  Real and complex scalars, on the host and with the cuda backend, with each of these PCs.

.seealso: `KSPCG`, `KSPPGXBCGS`, `KSPPGXGMRES`, `PCDILU`, `PCAIPS`, `PGXPCApplyDevice()`
M*/
PETSC_EXTERN PetscErrorCode KSPCreate_PGXCG(KSP ksp)
{
  KSP_PGXCG *cg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cg));
  cg->lookahead = PETSC_TRUE;
  cg->fusedpc   = PETSC_TRUE;
  cg->publish   = PETSC_TRUE;
  ksp->data     = (void *)cg;
  PetscCall(PGXKSPResidentCreate(ksp, &cg->base));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NATURAL, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  ksp->ops->setup          = KSPSetUp_PGXCG;
  ksp->ops->solve          = KSPSolve_PGXCG;
  ksp->ops->destroy        = KSPDestroy_PGXCG;
  ksp->ops->view           = KSPView_PGXCG;
  ksp->ops->setfromoptions = KSPSetFromOptions_PGXCG;
  ksp->ops->buildsolution  = KSPBuildSolution_PGXCG;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  PetscFunctionReturn(PETSC_SUCCESS);
}
