/* stedc_secular.h: the scalar steps of PGX's root finder for the secular equation of D + rho z z^T, shared by the
   reference (host loops, stedc_kernels.cxx) and cuda (one warp per root, stedc_kernels.cu) backends, so that both
   run the same iteration; only the way the O(k) sums are formed differs (and even that has the same structure:
   LANES strided partial sums combined by a butterfly). PGX's own design, no LAPACK code.

   The secular function, with d ascending (distinct after deflation), rho > 0, z_i != 0:
       f(lambda) = 1 + rho sum_i z_i^2 / (d_i - lambda),
   increasing between its poles; root j (0-based) lies in (d_j, d_{j+1}), the last in (d_{k-1}, d_{k-1} + rho z'z).
   Each root is represented as lambda_j = d_o + tau with an origin pole o: the nearer end of the interval (o = j
   when f at the midpoint is >= 0, else o = j + 1; the last root: o = k - 1), and every difference is formed as
   delta_i = (d_i - d_o) - tau (differences of poles are exact or nearly so, and delta_o = -tau exactly, so roots
   very close to a pole keep their relative accuracy; z-hat and the eigenvectors use the same deltas).

   Iteration for tau, inside a bracket [lo, hi] with f(lo) < 0 <= f(hi) (initially the pole and the midpoint, or
   (0, rho z'z) for the last root): the sums of the terms other than the origin's and their derivative are
   formed; the model keeps the origin's term exact and fits one pole at the other end of the interval and a
   constant to the rest (value and derivative; see Step), and the model's root in the bracket is the step (a
   quadratic, its two roots formed without cancellation); when neither root is in the bracket, the root of the
   origin's term plus the rest taken as constant (tau = rho z_o^2 / (f - t_o)), and when that is not either,
   bisection. It stops when |f| is below the bound of its rounding errors (a running error bound of the sums, as
   in Higham's analysis of recursive summation, plus the errors of the terms), when the bracket cannot shrink,
   or after MAXIT iterations. */
#pragma once
#include <petscsys.h>
#include <cmath>

#if defined(__CUDACC__)
  #define PGX_SEC_HD __host__ __device__ __forceinline__
#else
  #define PGX_SEC_HD inline
#endif

namespace pgx
{
namespace kernels
{
namespace stedc
{
namespace secular
{
constexpr int    LANES = 32;                     /* partial sums of a root (a warp) */
constexpr int    MAXIT = 120;                    /* iterations at most (bisection alone: about 60 to 1100) */
constexpr double UNIT  = 1.1102230246251565e-16; /* unit roundoff of double, 2^-53 */

/* products: never fused into a multiply-add on the device (nvcc contracts a * b + c by default), so that the host
   (no contraction without FMA instructions) and the device round alike and the two backends run the same
   iteration bitwise; every product that feeds a sum goes through Mul */
PGX_SEC_HD double Mul(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

/* partial sums of one lane, or of all after the butterfly, over the terms t_i = z_i^2 / delta_i other than the
   origin's (kept apart: near its pole it dominates and would cancel in the model): neg (i <= j, t_i < 0), pos
   (i > j), the derivative dr = sum (z_i / delta_i)^2, the running error bound err of neg and pos (the sum of the
   magnitudes of the partial sums); all without the factor rho */
struct Sums {
  double neg = 0, pos = 0, dr = 0, err = 0;
};

/* delta_i = d_i - lambda for the current (o, tau) */
struct Root;
PGX_SEC_HD double Delta(const double *d, PetscInt i, const Root &r);

/* the state of root j */
struct Root {
  PetscInt j = 0, o = 0; /* the root, its origin pole */
  double   tau = 0, lo = 0, hi = 0;
  double   dx = 0; /* the last step */
  int      it = 0;
};

PGX_SEC_HD double Delta(const double *d, PetscInt i, const Root &r)
{
  return (d[i] - d[r.o]) - r.tau;
}

/* adds term i (all but the origin's) */
PGX_SEC_HD void Accumulate(Sums &s, const double *d, const double *z, PetscInt i, const Root &r)
{
  if (i == r.o) return;
  const double zi = z[i], u = zi / Delta(d, i, r), t = Mul(zi, u);
  s.dr = s.dr + Mul(u, u);
  if (i <= r.j) {
    s.neg = s.neg + t;
    s.err = s.err + fabs(s.neg);
  } else {
    s.pos = s.pos + t;
    s.err = s.err + fabs(s.pos);
  }
}

/* a + b (commutative, bitwise: the two lanes of a butterfly pair get the same result) */
PGX_SEC_HD Sums Combine(const Sums &a, const Sums &b)
{
  Sums r;
  r.neg = a.neg + b.neg;
  r.pos = a.pos + b.pos;
  r.dr  = a.dr + b.dr;
  r.err = (a.err + b.err) + (fabs(r.neg) + fabs(r.pos));
  return r;
}

/* the start: origin j, tau at the midpoint of (d_j, d_{j+1}) (it decides the origin), or for the last root origin
   k-1 and tau at the upper end rho zz of its interval (zz = z'z) */
PGX_SEC_HD void Start(Root &r, PetscInt j, PetscInt k, const double *d, double rho, double zz)
{
  r.j  = j;
  r.o  = j;
  r.it = 0;
  r.dx = 0;
  r.lo = 0;
  if (j < k - 1) r.hi = r.tau = (d[j + 1] - d[j]) / 2;
  else r.hi = r.tau = rho * zz;
}

/* The fallback point of the bracket: towards the pole (an end at 0) by a factor 8, the geometric mean of ends of
   one sign more than a factor 8 apart, else the midpoint (roots next to a pole need decades, not halvings) */
PGX_SEC_HD double Bisect(const Root &r)
{
  const double a = fabs(r.lo), b = fabs(r.hi), s = r.lo < 0 || r.hi < 0 ? -1.0 : 1.0;
  if (r.lo == 0 || r.hi == 0) return Mul(s, Mul(0.125, fmax(a, b)));
  if ((r.lo < 0) == (r.hi < 0) && fmax(a, b) > Mul(8, fmin(a, b))) return Mul(s, Mul(sqrt(a), sqrt(b)));
  return Mul(0.5, r.lo + r.hi);
}

/* One iteration after the sums s at the current tau (k: the order; d, z: the equation): true when tau is taken as
   the root; else tau, and perhaps the origin (at the first iteration), are updated for the next evaluation.
   The model (a fixed weight method): f(tau + x) ~ c + sP / (delta_P - x) + sQ / (delta_Q - x) with P the origin
   and its exact weight sP = rho z_P^2, Q the other end of the root's interval (for the last root the pole left of
   the origin) with sQ fitted to the derivative of the other terms and c to the value: near its pole the root of
   the model is the root to first order in the other terms, whatever their size. */
PGX_SEC_HD bool Step(Root &r, const Sums &s, PetscInt k, const double *d, const double *z, double rho)
{
  const bool last = r.j == k - 1;
  double     dP = Delta(d, r.o, r), uP = z[r.o] / dP, tP = Mul(rho, Mul(z[r.o], uP)), dtP = Mul(rho, Mul(uP, uP));
  double     fr = 1 + Mul(rho, s.neg + s.pos), dfr = Mul(rho, s.dr); /* all but the origin's term */
  const double f = fr + tP, tol = Mul(UNIT, Mul(8, Mul(rho, s.pos - s.neg) + fabs(tP)) + Mul(rho, s.err) + 2 + Mul(Mul(3, fabs(r.tau)), dfr + dtP));

  r.it++;
  if (fabs(f) <= tol || f != f) return true;
  if (r.it == 1 && !last && f < 0) { /* the root is right of the midpoint: origin j + 1 (same lambda, exact shift) */
    const double g = d[r.j + 1] - d[r.j];
    const double dQ = Delta(d, r.j + 1, r), uQ = z[r.j + 1] / dQ;
    fr    = (fr + tP) - Mul(rho, Mul(z[r.j + 1], uQ)); /* the sums without the new origin's term */
    dfr   = (dfr + dtP) - Mul(rho, Mul(uQ, uQ));
    dfr   = dfr > 0 ? dfr : 0;
    r.o   = r.j + 1;
    r.tau = r.tau - g;
    r.lo  = r.tau;
    r.hi  = 0;
    dP    = Delta(d, r.o, r);
    uP    = z[r.o] / dP;
  } else if (f < 0) r.lo = r.tau;
  else r.hi = r.tau;
  if (r.it >= MAXIT || r.hi - r.lo <= Mul(4 * UNIT, fmax(fabs(r.lo), fabs(r.hi)))) return true;

  /* the model's root x (tau + x) */
  const double sP = Mul(rho, Mul(z[r.o], z[r.o]));
  double       tn = Bisect(r);          /* unless a root of the model is inside the bracket */
  PetscInt     q  = last ? r.o - 1 : (r.o == r.j ? r.j + 1 : r.j);
  if (q >= 0) { /* c x^2 - b x + e = 0 */
    const double dQ = Delta(d, q, r), sQ = Mul(Mul(dfr, dQ), dQ), c = fr - sQ / dQ;
    const double b = Mul(c, dP + dQ) + (sP + sQ), e = Mul(Mul(dP, dQ), f);
    double       disc = Mul(b, b) - Mul(4, Mul(c, e)), h;
    disc = disc > 0 ? sqrt(disc) : 0;
    h    = b + (b >= 0 ? disc : -disc);
    if (h != 0) {
      const double t1 = r.tau + Mul(2, e) / h;
      if (t1 > r.lo && t1 < r.hi) tn = t1;
      else if (c != 0) {
        const double t2 = r.tau + h / Mul(2, c);
        if (t2 > r.lo && t2 < r.hi) tn = t2;
      }
    }
  } else if (fr != 0) { /* k = 1: c + sP / (dP - x) = 0 */
    const double t1 = r.tau + (dP + sP / fr);
    if (t1 > r.lo && t1 < r.hi) tn = t1;
  }
  if (tn == Bisect(r) && fr != 0) { /* the model failed: the rest of f taken as constant, fr + sP / (dP - x) = 0 */
    const double t3 = sP / fr;
    if (t3 > r.lo && t3 < r.hi) tn = t3;
  }
  if (tn != Bisect(r)) { /* a step x of the model: steps shrinking only linearly (a cluster of poles seen from afar
                            looks like a multiple one) are extrapolated (Aitken: x / (1 - q), q = x / the last step) */
    const double x = tn - r.tau, q = x / r.dx;
    if (q >= 0.25 && q <= 0.9) {
      const double t4 = r.tau + x / (1 - q);
      if (t4 > r.lo && t4 < r.hi) tn = t4;
    }
  }
  if (tn == r.tau) return true;
  r.dx  = tn - r.tau;
  r.tau = tn;
  return false;
}
} // namespace secular
} // namespace stedc
} // namespace kernels
} // namespace pgx
