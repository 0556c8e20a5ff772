/* denselu_refine.h: the mixed-precision refinement driver of the dense LU, one template shared by the reference
   and the cuda backends (host code; the backend supplies the vector operations, on the host or on the device).

   Mathematics. M ~ A is a low-precision LU (tf32/half/bf16 products, FP32 storage); A is kept in FP64. For the k
   right-hand sides B of op(A) X = B (op: A or A^T), starting from X = 0, R = B:
     plain step    X_c += M^-1 R_c                          (M^-1 applied in FP32)
     GMRES-IR step X_c += d, d from at most m steps of GMRES on M^-1 op(A) d = M^-1 R_c, everything in FP64
                   (M promoted to FP64), Arnoldi with CGS2, Givens rotations on the host
     after each    R = B - op(A) X in FP64 and, per column, ||R_c||_inf and ||X_c||_inf.
   Accept (LAPACK dsgesv's rule, with inf-norms):  ||R_c||_inf <= sqrt(n) eps ||A||_inf ||X_c||_inf  for every c,
   i.e. the backward error ||r||_inf / (||A||_inf ||x||_inf n eps) of issue 14 is at most 1/sqrt(n): the FP64 level.
   A converged column is frozen (not corrected again). Stagnation: ratio = the largest ||R_c||_new / ||R_c||_old
   over the columns still unconverged. A plain step with ratio > plain_rho switches to GMRES-IR (when allowed). (Even
   a first plain step that makes the residual larger is kept: on the random matrices of bench/denselu, GMRES-IR from
   there takes 3-5 iterations fewer than from x = 0, thirty-fifth session.) A GMRES-IR correction of column c runs
   until its Krylov residual |g_j| <= rtol_c beta: rtol_c = gmres_rtol, or with gmres_margin > 0
     rtol_c = max(1e-13, min(gmres_rtol, gmres_margin / s_c)),  s_c = ||R_c||_inf / (sqrt(n) eps ||A||_inf ||x_c||_inf),
   ||x_c|| from the latest nonzero iterate: the reduction the column still needs times the margin, so that one
   correction may end the refinement instead of two. (Measured, thirty-fifth session: on the random matrix a GMRES-IR
   step's true residual falls by no more than 2.5-4e-7 however far its Krylov residual goes, whichever triangular
   solve applies M, so the margin saves a step at n = 8192 and costs 6-7 iterations at 16384 and 32768: off by
   default.) A
   GMRES-IR step with ratio > gmres_rho, a non-finite residual, or maxsteps steps end the refinement unconverged,
   and the backend then factors A in FP64 (the fallback). Two more rules end a refinement that would fail anyway
   early, so that a failing run costs little before the fallback (issue 14: on the plain random matrix the mixed
   attempt must cost little more than the FP64 solve):
     too slow  after a step with ratio r <= rho (so not stagnated), the steps still needed at that rate,
               ceil(log(s) / log(1/r)) with s = the largest ||R_c|| / (sqrt(n) eps ||A|| ||X_c||), would exceed
               maxsteps: stop now ("too slow") instead of running into the step limit;
     stalled   a GMRES-IR correction whose preconditioned residual |g_j| (the Givens estimate, |g_0| = beta) fell by
               less than the factor gmres_stall_rho over the last gmres_stall iterations, |g_j| > gmres_stall_rho
               |g_{j - gmres_stall}| (the Krylov solve of M^-1 op(A) d = M^-1 r has stalled: M is too poor a
               preconditioner) is abandoned and the refinement ends at once ("GMRES-IR stalled"), without the
               remaining iterations (each an FP64 triangular solve pair and a gemv) nor the residual.

   Recycling (gmres_recycle, on by default): the first completed GMRES-IR correction's Arnoldi relation gives C and U
   with M^-1 op(A) U = C (see Recycled); every later correction starts from d0 = U C^T z and runs GMRES orthogonal to
   C (GCRO), so it need not find again the directions that the first one found (on the random matrix at n = 32768
   the second step's plateau of about 30 iterations: 106 -> 75 iterations in all, thirty-fifth session).

   With monitor (-mat_pgx_lu_refine_monitor), each step prints its residual reduction and each GMRES iteration the
   Givens estimate |g_j| / beta, on PETSC_COMM_SELF.

   The Ops class (all methods return PetscErrorCode; norms are host arrays of k):
     PetscInt  N(), K();  PetscReal ANorm()  (||A||_inf)
     Start(rn, xn)                  X = 0, R = B; rn = ||B_c||_inf, xn = 0
     Plain(active)                  X_c += M^-1 R_c for the columns with active[c]
     Residual(rn, xn)               R = B - op(A) X; the norms
     GmresPrepare()                 once, before the first GMRES-IR step (promote M to FP64)
     GmresStart(c, &beta)           V_0 = M^-1 R_c; beta = ||V_0||_2; V_0 /= beta when beta > 0 and finite
     GmresArnoldi(j, h, b)          w = M^-1 op(A) V_j; with b (not NULL: the recycled space of kr columns),
                                    twice b += C^T w, w -= C C^T w first; then CGS2 against V_0..V_j; h[0..j] the
                                    coefficients, h[j+1] = ||w||_2; V_{j+1} = w / h[j+1] (h: j+2 values on the host)
     RecycleKeep(j, Q, Ri)          C = V(:, 0:j+1) Q ((j+1) x j), U = V(:, 0:j) Ri (j x j), both column-major on the host
     RecycleProject(c, kr, beta, nrm)  V_0 (norm 1): t = C^T V_0 (twice, summed), V_0 -= C t, X_c += beta U t;
                                    nrm = ||V_0||_2, V_0 /= nrm when nrm > 0
     RecycleUpdate(c, kr, z)        X_c -= U z
     GmresUpdate(c, j, y)           X_c += V(:, 0:j) y
     PhaseBegin(p), PhaseEnd(p)     the per-phase profile (denselu_profile.h): around Start and Residual
                                    (PHASE_RESIDUAL), Plain (PHASE_LOWSOLVE), each GMRES-IR step with its
                                    GmresPrepare (PHASE_GMRES); no-ops when not profiling                   */
#pragma once
#include <petscsys.h>
#include "denselu_profile.h"
#include <cmath>
#include <memory>
#include <vector>

namespace pgx
{
namespace kernels
{
namespace denselu
{
/* Parameters of the refinement (defaults: see denselu_kernels.h's RefineOptionsDefault) */
struct RefineOptions {
  PetscInt  maxsteps;  /* refinement steps at most, plain and GMRES-IR together */
  PetscReal plain_rho; /* a plain step must reduce the residual at least this much (ratio <=), else GMRES-IR */
  PetscInt  plain_min; /* plain steps before the first whose ratio may switch to GMRES-IR (or stop: too slow); 1 by
                          default. The first step starts from X = 0, so its ratio ||B - op(A) M^-1 B|| / ||B|| is
                          M's backward error times ||A|| ||X|| / ||B||, which for an ill-conditioned A exceeds
                          plain_rho however fast the refinement contracts; the backends set 2 for tf32x3's
                          FP32-accurate factors (random matrix, n = 8192, H200, forty-first session: first ratio
                          1.7, then GMRES-IR contracted by 6e-4 an iteration, so plain steps would have converged) */
  PetscReal gmres_rho; /* a GMRES-IR step must reduce it at least this much, else the refinement stops */
  PetscBool gmres;     /* allow GMRES-IR steps */
  PetscInt  gmres_m;   /* Krylov dimension of one GMRES-IR correction (the Ops size their basis with it) */
  PetscReal gmres_rtol; /* relative preconditioned residual of one GMRES-IR correction (with gmres_margin: the loosest) */
  PetscInt  gmres_stall;     /* window of the stall rule, in GMRES iterations (0: no stall rule) ... */
  PetscReal gmres_stall_rho; /* ... over which the preconditioned residual must fall at least by this factor */
  PetscReal gmres_margin;    /* a GMRES-IR step asks its Krylov residual for gmres_margin times the reduction its column still needs (0: gmres_rtol alone) */
  PetscBool gmres_recycle;   /* keep the first GMRES-IR correction's Krylov space for the later ones (GCRO: project on it first, Arnoldi orthogonal to it) */
  PetscBool monitor;         /* print each step's residual reduction and each GMRES iteration's |g_j| / beta (PETSC_COMM_SELF) */
};

/* GMRES-IR's tightest tolerance for one correction (see Refine) */
static constexpr PetscReal GmresRtolFloor = 1e-13;

/* What a refinement did */
struct RefineResult {
  PetscInt    steps;      /* refinement steps done (plain + GMRES-IR) */
  PetscInt    gmres_steps; /* of which GMRES-IR */
  PetscInt    gmres_its;  /* GMRES iterations in all */
  PetscBool   converged;  /* every column met the acceptance test */
  PetscBool   fellback;   /* the backend factored A in FP64 and solved with it (set by the backends) */
  PetscReal   berr;       /* largest ||r_c||_inf / (||A||_inf ||x_c||_inf n eps) at the end (issue 14's measure) */
  PetscReal   ratio;      /* the last step's residual reduction (see above) */
  const char *stop;       /* why the refinement ended: "converged", "stagnated", "too slow", "GMRES-IR stalled", "not finite", "step limit" */
};

static inline RefineOptions RefineOptionsDefault(void)
{
  RefineOptions o;
  o.maxsteps   = 20;
  o.plain_rho  = 0.1;
  o.plain_min  = 1;
  o.gmres_rho  = 0.1;
  o.gmres      = PETSC_TRUE;
  /* measured on an H200 (thirty-fifth session, bench/results): on the random matrix at n = 32768 (tf32) the second
     GMRES-IR step starts with a plateau of its Krylov residual (0.70 after 10 iterations, 0.24 after 28) and then
     converges in about 30 more: the window of 10 abandoned it (the FP64 fallback, 1.8x the FP64 solve), a window of
     20 lets it converge (1.3x), and a step needs up to 60 iterations (restart 40 cut it) */
  o.gmres_m    = 100;
  o.gmres_rtol = 1e-8;
  o.gmres_stall     = 20;
  o.gmres_stall_rho = 0.5;
  o.gmres_margin    = 0;
  /* measured on an H200 (thirty-fifth session, call 6; random matrix, tf32): GMRES iterations 37 -> 29 (8192), 51 -> 42
     (16384), 106 -> 75 (32768), the refinement 508 -> 365 ms at 32768 */
  o.gmres_recycle   = PETSC_TRUE;
  o.monitor         = PETSC_FALSE;
  return o;
}

/* One GMRES-IR correction of column c (at most o.gmres_m iterations, until |g_j| <= rtol beta); its = iterations
   done; stalled: the stall rule fired (then X_c is not updated) */
/* The recycled space of GMRES-IR (gmres_recycle): C = V_{j+1} Q_j (orthonormal) and U = V_j R^-1 from the first
   completed correction's Arnoldi relation M^-1 op(A) V_j = V_{j+1} Hbar_j = V_{j+1} Q_j R, so M^-1 op(A) U = C. A later
   correction of M^-1 op(A) d = z first takes d0 = U C^T z (z -= C C^T z), then runs GMRES on (I - C C^T) M^-1 op(A)
   (each Arnoldi vector also orthogonalized against C: coefficients b_i), and adds V y - U B y (GCRO) */
struct Recycled {
  PetscInt               kr = 0; /* columns of C and U (0: none) */
  std::vector<PetscReal> B;      /* kr x m: the coefficients of the Arnoldi vectors against C */
};

template <class Ops>
static inline PetscErrorCode RefineGmres(Ops &ops, PetscInt c, const RefineOptions &o, PetscReal rtol, Recycled *rec, PetscInt *its, PetscBool *stalled)
{
  const PetscInt         m = o.gmres_m;
  PetscReal              beta = 0, beta0;
  std::vector<PetscReal> H((size_t)(m + 1) * m, 0.0), cs(m), sn(m), g(m + 1, 0.0), h(m + 2), y(m), hist(m + 1); /* hist[j]: |g_j| after j iterations */
  PetscInt               j;
  const PetscInt         kr = rec->kr;

  PetscFunctionBegin;
  *its     = 0;
  *stalled = PETSC_FALSE;
  PetscCall(ops.GmresStart(c, &beta));
  if (beta == 0 || !std::isfinite(beta)) PetscFunctionReturn(PETSC_SUCCESS); /* no correction */
  beta0 = beta;
  if (kr > 0) { /* the part of z in span(C): d0 = U C^T z */
    PetscReal nrm;
    rec->B.assign((size_t)kr * m, 0.0);
    PetscCall(ops.RecycleProject(c, kr, beta, &nrm));
    if (o.monitor) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  dense LU refinement: column %" PetscInt_FMT " projected on the recycled space of %" PetscInt_FMT " vectors: preconditioned residual %g of the step's first\n", c, kr, (double)nrm));
    beta *= nrm;
    if (!(beta > rtol * beta0)) PetscFunctionReturn(PETSC_SUCCESS); /* the projection solved it (or nothing left) */
  }
  g[0]    = beta;
  hist[0] = beta;
  for (j = 0; j < m;) {
    PetscReal *hc = &H[(size_t)j * (m + 1)];
    PetscCall(ops.GmresArnoldi(j, h.data(), kr > 0 ? &rec->B[(size_t)j * kr] : NULL));
    for (PetscInt i = 0; i <= j; i++) hc[i] = h[i];
    const PetscReal hn = h[j + 1];
    for (PetscInt i = 0; i < j; i++) { /* earlier rotations */
      const PetscReal t = cs[i] * hc[i] + sn[i] * hc[i + 1];
      hc[i + 1]         = -sn[i] * hc[i] + cs[i] * hc[i + 1];
      hc[i]             = t;
    }
    const PetscReal den = std::hypot(hc[j], hn);
    cs[j]               = den == 0 ? 1.0 : hc[j] / den;
    sn[j]               = den == 0 ? 0.0 : hn / den;
    hc[j]               = den;
    g[j + 1]            = -sn[j] * g[j];
    g[j]                = cs[j] * g[j];
    j++;
    hist[j] = std::fabs(g[j]);
    if (o.monitor) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  dense LU refinement: column %" PetscInt_FMT " GMRES iteration %" PetscInt_FMT " preconditioned residual %g of the step's first\n", c, j, (double)(hist[j] / beta0)));
    if (hn == 0 || !std::isfinite(hn) || hist[j] <= rtol * beta0) break;
    if (o.gmres_stall > 0 && j >= o.gmres_stall && j < m && hist[j] > o.gmres_stall_rho * hist[j - o.gmres_stall]) {
      *its     = j;
      *stalled = PETSC_TRUE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  for (PetscInt i = j - 1; i >= 0; i--) { /* H(0:j,0:j) y = g */
    PetscReal t = g[i];
    for (PetscInt k = i + 1; k < j; k++) t -= H[i + (size_t)k * (m + 1)] * y[k];
    y[i] = H[i + (size_t)i * (m + 1)] != 0 ? t / H[i + (size_t)i * (m + 1)] : 0.0;
  }
  PetscCall(ops.GmresUpdate(c, j, y.data()));
  if (kr > 0 && j > 0) { /* d -= U B y */
    std::vector<PetscReal> z(kr, 0.0);
    for (PetscInt i = 0; i < j; i++)
      for (PetscInt r = 0; r < kr; r++) z[r] += rec->B[(size_t)i * kr + r] * y[i];
    PetscCall(ops.RecycleUpdate(c, kr, z.data()));
  }
  if (o.gmres_recycle && kr == 0 && j > 0) { /* keep this correction's space: Q_j from the rotations, R^-1 */
    std::vector<PetscReal> Q((size_t)(j + 1) * j, 0.0), Ri((size_t)j * j, 0.0);
    PetscReal              dmax = 0, dmin = PETSC_MAX_REAL;
    for (PetscInt i = 0; i < j; i++) {
      const PetscReal d = std::fabs(H[i + (size_t)i * (m + 1)]);
      dmax              = PetscMax(dmax, d);
      dmin              = PetscMin(dmin, d);
    }
    if (dmin > 1e-12 * dmax && std::isfinite(dmax)) {
      for (PetscInt i = 0; i < j; i++) Q[i + (size_t)i * (j + 1)] = 1;
      for (PetscInt i = j - 1; i >= 0; i--) /* Q_j = G_0^T ... G_{j-1}^T [I; 0] */
        for (PetscInt col = 0; col < j; col++) {
          PetscReal      *q = &Q[(size_t)col * (j + 1)];
          const PetscReal a = q[i], b = q[i + 1];
          q[i]              = cs[i] * a - sn[i] * b;
          q[i + 1]          = sn[i] * a + cs[i] * b;
        }
      for (PetscInt col = 0; col < j; col++) { /* R Ri = I, R = H(0:j, 0:j) upper triangular */
        for (PetscInt i = col; i >= 0; i--) {
          PetscReal t = i == col ? 1.0 : 0.0;
          for (PetscInt l = i + 1; l <= col; l++) t -= H[i + (size_t)l * (m + 1)] * Ri[l + (size_t)col * j];
          Ri[i + (size_t)col * j] = t / H[i + (size_t)i * (m + 1)];
        }
      }
      PetscCall(ops.RecycleKeep(j, Q.data(), Ri.data()));
      rec->kr = j;
    }
  }
  *its = j;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The refinement: X (inside ops) is the solution when res->converged */
template <class Ops>
static inline PetscErrorCode Refine(Ops &ops, const RefineOptions &o, RefineResult *res)
{
  const PetscInt         n = ops.N(), k = ops.K();
  const PetscReal        anorm = ops.ANorm(), tol = std::sqrt((PetscReal)(n > 0 ? n : 1)) * PETSC_MACHINE_EPSILON;
  std::vector<PetscReal> rn(k), xn(k), rnew(k);
  std::unique_ptr<PetscBool[]> active(new PetscBool[k]()); /* not std::vector<PetscBool>: PetscBool is bool in C++ with PETSc >= 3.23, and vector<bool> has no data() */
  PetscBool              gmres = PETSC_FALSE;
  PetscInt               nactive = 0;
  Recycled               rec; /* gmres_recycle: the first GMRES-IR correction's space */

  PetscFunctionBegin;
  res->steps = res->gmres_steps = res->gmres_its = 0;
  res->converged = res->fellback = PETSC_FALSE;
  res->berr                      = 0;
  res->ratio                     = 0;
  res->stop                      = "step limit";
  PetscCall(ops.PhaseBegin(PHASE_RESIDUAL));
  PetscCall(ops.Start(rn.data(), xn.data()));
  PetscCall(ops.PhaseEnd(PHASE_RESIDUAL));
  for (PetscInt c = 0; c < k; c++) { /* b_c = 0: x_c = 0 is exact */
    active[c] = rn[c] <= tol * anorm * xn[c] ? PETSC_FALSE : PETSC_TRUE;
    nactive += active[c];
  }
  while (nactive > 0 && res->steps < o.maxsteps) {
    if (!gmres) {
      PetscCall(ops.PhaseBegin(PHASE_LOWSOLVE));
      PetscCall(ops.Plain(active.get()));
      PetscCall(ops.PhaseEnd(PHASE_LOWSOLVE));
    } else {
      PetscBool stalled = PETSC_FALSE;
      PetscCall(ops.PhaseBegin(PHASE_GMRES));
      if (!res->gmres_steps) PetscCall(ops.GmresPrepare());
      for (PetscInt c = 0; c < k && !stalled; c++)
        if (active[c]) {
          PetscInt  its;
          /* with gmres_margin: the reduction this column still needs, scaled = ||R_c|| / (tol ||A|| ||x_c||), times
             the margin, asked of the Krylov residual; never looser than gmres_rtol, nor tighter than GmresRtolFloor */
          const PetscReal scaled = xn[c] > 0 ? rn[c] / (tol * anorm * xn[c]) : 0;
          const PetscReal rtol   = scaled > 0 && o.gmres_margin > 0 ? PetscMax(GmresRtolFloor, PetscMin(o.gmres_rtol, o.gmres_margin / scaled)) : o.gmres_rtol;
          PetscCall(RefineGmres(ops, c, o, rtol, &rec, &its, &stalled));
          res->gmres_its += its;
        }
      PetscCall(ops.PhaseEnd(PHASE_GMRES));
      res->gmres_steps++;
      if (stalled) { /* no residual: X is not used */
        res->steps++;
        res->stop = "GMRES-IR stalled";
        break;
      }
    }
    res->steps++;
    PetscCall(ops.PhaseBegin(PHASE_RESIDUAL));
    PetscCall(ops.Residual(rnew.data(), xn.data()));
    PetscCall(ops.PhaseEnd(PHASE_RESIDUAL));
    PetscReal ratio  = 0, scaled = 0; /* scaled: the largest ||R_c|| / (tol ||A|| ||X_c||) of the active columns */
    PetscBool finite = PETSC_TRUE;
    for (PetscInt c = 0; c < k; c++) {
      if (!active[c]) continue;
      if (!std::isfinite(rnew[c]) || !std::isfinite(xn[c])) finite = PETSC_FALSE;
      else if (rnew[c] <= tol * anorm * xn[c]) {
        active[c] = PETSC_FALSE;
        nactive--;
      } else {
        ratio  = PetscMax(ratio, rn[c] > 0 ? rnew[c] / rn[c] : (PetscReal)INFINITY);
        scaled = PetscMax(scaled, tol * anorm * xn[c] > 0 ? rnew[c] / (tol * anorm * xn[c]) : (PetscReal)INFINITY);
      }
      rn[c] = rnew[c];
    }
    res->ratio = ratio;
    if (o.monitor) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  dense LU refinement: step %" PetscInt_FMT " (%s) residual reduction %g, %" PetscInt_FMT " columns unconverged, largest ||r|| / (sqrt(n) eps ||A|| ||x||) %g\n", res->steps, gmres ? "GMRES-IR" : "plain", (double)ratio, nactive, (double)scaled));
    if (!finite) {
      res->stop = "not finite";
      break;
    }
    if (!nactive) break;
    if (!gmres && res->steps < o.plain_min) continue; /* judged from step plain_min on */
    if (ratio > (gmres ? o.gmres_rho : o.plain_rho)) {
      if (!gmres && o.gmres) gmres = PETSC_TRUE; /* GmresPrepare before the first GMRES-IR step (timed as GMRES) */
      else {
        res->stop = "stagnated";
        break;
      }
    } else if (ratio > 0 && ratio < 1 && scaled > 1) { /* too slow: the steps still needed at this rate exceed the limit */
      const PetscReal need = std::ceil(std::log(scaled) / -std::log(ratio));
      if ((PetscReal)res->steps + need > (PetscReal)o.maxsteps) {
        res->stop = "too slow";
        break;
      }
    }
  }
  if (!nactive) {
    res->converged = PETSC_TRUE;
    res->stop      = "converged";
  }
  for (PetscInt c = 0; c < k; c++) {
    const PetscReal den = anorm * xn[c] * (PetscReal)n * PETSC_MACHINE_EPSILON;
    res->berr           = PetscMax(res->berr, den > 0 ? rn[c] / den : (rn[c] > 0 ? (PetscReal)INFINITY : 0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace denselu
} // namespace kernels
} // namespace pgx
