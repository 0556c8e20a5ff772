/* denselu_profile.h: the per-phase profile of the dense LU (-mat_pgx_lu_profile, bench_denselu -profile). Host code
   only: the phases, their names, the sums and the report; the backends measure (cuda: a cudaEvent pair on the stream
   around each phase; reference: PetscTime) and call ProfileAdd. Off by default: without a Profile the backends record
   no event at all.

   Phases are disjoint on each stream, so a stream's sum is at most the wall time of the call that ran them (the cuda
   test checks it). Stream 0 is PGX's stream; stream 1 the look-ahead stream of the cuda blocked path (its phases
   overlap stream 0's: add them to stream 0's sum and the result may exceed the wall time, which is the overlap). A
   "wait" phase is the time a stream spent stalled on the other (an event pair around cudaStreamWaitEvent). */
#pragma once
#include <petscsys.h>
#include <petsctime.h>
#include <string>
#include <cstdio>

namespace pgx
{
namespace kernels
{
namespace denselu
{
typedef enum {
  /* factorization */
  PHASE_CHECK,      /* NaN/Inf check of A; ||A||_inf (mixed) */
  PHASE_CONVERT,    /* A (FP64) -> FP32 copy of the low-precision factorization; FP64 copy of A (fallback) */
  PHASE_LEAF,       /* panel: the leaves of the recursion (cuda: cooperative or one-block kernel; host: the panel) */
  PHASE_PANEL_SWAP, /* panel: interchanges inside the panel recursion */
  PHASE_PANEL_TRSM, /* panel: triangular solves inside the panel recursion */
  PHASE_PANEL_GEMM, /* panel: updates inside the panel recursion */
  PHASE_SWAP,       /* a panel's interchanges on the columns left and right of it (look-ahead: left and next panel) */
  PHASE_TRSM,       /* U block row (look-ahead: the next panel's columns) */
  PHASE_GEMM,       /* trailing update (look-ahead: the next panel's columns) */
  PHASE_WAIT,       /* look-ahead: PGX's stream waiting for the rest of the previous trailing update */
  PHASE_LA_SWAP,    /* look-ahead stream: interchanges right of the next panel */
  PHASE_LA_TRSM,    /* look-ahead stream: U block row right of the next panel */
  PHASE_LA_GEMM,    /* look-ahead stream: trailing update right of the next panel */
  PHASE_LA_WAIT,    /* look-ahead stream waiting for the panel */
  PHASE_LEFT_SWAP,  /* look-ahead with the left swaps on their own stream: a panel's interchanges on the columns left of it */
  PHASE_FINISH,     /* pivots and zero-pivot flag to the host, permutation to the device */
  /* solve */
  PHASE_RESIDUAL,   /* refinement: R = B - op(A) X in FP64 and the column norms (also the start: R = B) */
  PHASE_LOWSOLVE,   /* refinement: plain steps, X += M^-1 R with the FP32 factors (conversions included) */
  PHASE_GMRES,      /* refinement: GMRES-IR (promotion of the factors, Arnoldi steps, updates) */
  PHASE_SOLVE,      /* solve with the FP64 factors (FP64 factorization, or after a fallback) */
  PHASE_COUNT
} Phase;

typedef enum {
  PROFILE_FACTOR,
  PROFILE_SOLVE
} ProfileGroup;

/* Accumulated times (ms) and counts per phase, and the wall time (ms) of the calls they belong to */
struct Profile {
  double   ms[PHASE_COUNT];
  PetscInt count[PHASE_COUNT];
  double   wall[2]; /* PROFILE_FACTOR, PROFILE_SOLVE (set by the caller that measured it, else 0) */
};

static inline const char *PhaseName(Phase p)
{
  static const char *const names[PHASE_COUNT] = {"check", "convert", "panel leaves", "panel swaps", "panel trsm", "panel gemm", "swaps", "trsm", "gemm", "wait", "la swaps", "la trsm", "la gemm", "la wait", "left swaps", "finish", "residual", "low solve", "gmres", "fp64 solve"};
  return (int)p >= 0 && p < PHASE_COUNT ? names[p] : "unknown";
}
static inline int PhaseStream(Phase p)
{
  return p >= PHASE_LA_SWAP && p <= PHASE_LA_WAIT ? 1 : (p == PHASE_LEFT_SWAP ? 2 : 0);
}
static inline ProfileGroup PhaseGroup(Phase p)
{
  return p >= PHASE_RESIDUAL ? PROFILE_SOLVE : PROFILE_FACTOR;
}

static inline void ProfileReset(Profile *pr, ProfileGroup g)
{
  for (int p = 0; p < PHASE_COUNT; p++)
    if (PhaseGroup((Phase)p) == g) pr->ms[p] = 0, pr->count[p] = 0;
  pr->wall[g] = 0;
}
static inline void ProfileClear(Profile *pr)
{
  ProfileReset(pr, PROFILE_FACTOR);
  ProfileReset(pr, PROFILE_SOLVE);
}
static inline void ProfileAdd(Profile *pr, Phase p, double ms)
{
  pr->ms[p] += ms;
  pr->count[p]++;
}
/* Sum (ms) of the phases of a group on one stream */
static inline double ProfileStreamSum(const Profile *pr, ProfileGroup g, int stream)
{
  double s = 0;
  for (int p = 0; p < PHASE_COUNT; p++)
    if (PhaseGroup((Phase)p) == g && PhaseStream((Phase)p) == stream) s += pr->ms[p];
  return s;
}
/* Whether each stream's sum is at most the wall time (plus slack ms: event and host clocks differ slightly) */
static inline PetscBool ProfileWithinWall(const Profile *pr, ProfileGroup g, double slack)
{
  return ProfileStreamSum(pr, g, 0) <= pr->wall[g] + slack && ProfileStreamSum(pr, g, 1) <= pr->wall[g] + slack && ProfileStreamSum(pr, g, 2) <= pr->wall[g] + slack ? PETSC_TRUE : PETSC_FALSE;
}

/* One line: "<what>: wall W ms, stream S0 ms[, look-ahead stream S1 ms][, left-swap stream S2 ms]; name t ms (count), ..." with every phase of
   the group that ran (all of them when all is true); times in ms with 3 decimals */
static inline std::string ProfileFormat(const Profile *pr, ProfileGroup g, PetscBool all)
{
  char        buf[128];
  std::string s = g == PROFILE_FACTOR ? "dense LU profile (factor)" : "dense LU profile (solve)";
  const double s1 = ProfileStreamSum(pr, g, 1), s2 = ProfileStreamSum(pr, g, 2);
  snprintf(buf, sizeof(buf), ": wall %.3f ms, stream %.3f ms", pr->wall[g], ProfileStreamSum(pr, g, 0));
  s += buf;
  if (s1 > 0) {
    snprintf(buf, sizeof(buf), ", look-ahead stream %.3f ms", s1);
    s += buf;
  }
  if (s2 > 0) {
    snprintf(buf, sizeof(buf), ", left-swap stream %.3f ms", s2);
    s += buf;
  }
  const char *sep = "; ";
  for (int p = 0; p < PHASE_COUNT; p++) {
    if (PhaseGroup((Phase)p) != g || (!all && !pr->count[p])) continue;
    snprintf(buf, sizeof(buf), "%s%s %.3f ms (%d)", sep, PhaseName((Phase)p), pr->ms[p], (int)pr->count[p]);
    s += buf;
    sep = ", ";
  }
  return s;
}

/* Host timing of a phase (reference backend): ProfileTic before, ProfileToc after; no-ops without a profile */
static inline PetscErrorCode ProfileTic(Profile *pr, PetscLogDouble *t0)
{
  PetscFunctionBegin;
  if (pr) PetscCall(PetscTime(t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static inline PetscErrorCode ProfileToc(Profile *pr, Phase p, PetscLogDouble t0)
{
  PetscLogDouble t1;

  PetscFunctionBegin;
  if (!pr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&t1));
  ProfileAdd(pr, p, (t1 - t0) * 1e3);
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace denselu
} // namespace kernels
} // namespace pgx
