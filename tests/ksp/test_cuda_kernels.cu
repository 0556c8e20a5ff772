static char help[] = "Resident Krylov layer: the cuda kernels against the reference kernels (needs a GPU).\n"
                     "Random CSR, n = 3001 rows (not a power of two, larger than a warp), rows of 0 to 40 entries, an off-diagonal\n"
                     "block of 37 ghosts; SpMV, SpMVAdd, SpMVDotDev, SpMVDotAYPXDev (and AYPXIdxDev, bitwise against it) also on a banded matrix; SpMVAddDotDev on the ghost block through its DIA copy (9 diagonals, filled on the device by DIAFill); every kernel (Gather: 977 random indices), outputs poisoned with NaN first; MDot/MAXPY with k = 1, 7, 31 and 70 (> MAXK).\n"
                     "Tolerance: 1e-13 absolute times a scale: 10 for SpMV and MAXPY, 1 for updates, 1000 for the reductions\n(another summation order: ~2000 eps of the sum of |terms|).\n";
#include <pgx/private/pgxcuda.h>
#include <vector>
#include <cmath>
#include <cstring>
#include "../../src/ksp/utils/resident/resident_kernels.h"
#include <pgx/private/pgxdia.h>
#define PGX_TEST_PLAIN_CHECK
#include "../common/pgxtest.h"

namespace R = pgx::kernels::resident;

static int                nfail = 0;
static unsigned long long seed  = 4242;
static double             Rand()
{
  seed = seed * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(seed >> 11) / 9007199254740992.0;
}

struct HostCsr {
  std::vector<PetscInt>    p, j;
  std::vector<PetscScalar> v;
};

static HostCsr Random(PetscInt n, PetscInt ncols)
{
  HostCsr A;
  A.p.push_back(0);
  for (PetscInt i = 0; i < n; i++) {
    PetscInt len = (PetscInt)(Rand() * 41), c = 0;
    for (PetscInt q = 0; q < len && c < ncols; q++) {
      c += 1 + (PetscInt)(Rand() * (2.0 * ncols / (len + 1)));
      if (c >= ncols) break;
      A.j.push_back(c);
      A.v.push_back(Rand() - 0.5);
    }
    A.p.push_back((PetscInt)A.j.size());
  }
  return A;
}

template <class T>
static T *Up(const std::vector<T> &h)
{
  T *d = nullptr;
  (void)cudaMalloc((void **)&d, sizeof(T) * (h.size() ? h.size() : 1));
  (void)cudaMemcpy(d, h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice);
  (void)cudaDeviceSynchronize(); /* a pageable cudaMemcpy may return before its DMA lands, and the kernels run on PGX's
                                    non-blocking stream, which does not wait for the legacy stream */
  return d;
}

static std::vector<PetscScalar> Down(const PetscScalar *d, size_t n)
{
  std::vector<PetscScalar> h(n);
  (void)cudaDeviceSynchronize(); /* the kernels run on PGX's non-blocking stream: cudaMemcpy would not wait for them */
  (void)cudaMemcpy(h.data(), d, sizeof(PetscScalar) * n, cudaMemcpyDeviceToHost);
  return h;
}

static void Compare(const char *what, const std::vector<PetscScalar> &ref, const std::vector<PetscScalar> &got, double scale)
{
  for (size_t i = 0; i < ref.size(); i++) {
    if (!(std::fabs(ref[i] - got[i]) <= 1e-13 * scale)) {
      CHECK(0, "%s[%zu]: cuda %g, reference %g", what, i, (double)got[i], (double)ref[i]);
      return;
    }
  }
}

static std::vector<PetscScalar> RandVec(PetscInt n)
{
  std::vector<PetscScalar> x(n);
  for (auto &e : x) e = Rand() - 0.5;
  return x;
}

int main(int argc, char **argv)
{
  const R::Backend &H = R::reference::backend, &D = R::cuda::backend;
  const PetscInt    n = 3001, ng = 37;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  {
    PetscBool avail;
    PetscCall(PGXCUDAIsAvailable(&avail));
    if (!avail) {
      printf("no GPU: skipped\n");
      PetscCall(PetscFinalize());
      return 0;
    }
  }
  {
    HostCsr                  a = Random(n, n), b = Random(n, ng);
    std::vector<PetscScalar> x = RandVec(n), g = RandVec(ng), y0 = RandVec(n), z0 = RandVec(n), nan(n, NAN);
    PetscInt                *dap = Up(a.p), *daj = Up(a.j), *dbp = Up(b.p), *dbj = Up(b.j);
    PetscScalar             *dav = Up(a.v), *dbv = Up(b.v), *dx = Up(x), *dg = Up(g), *dy = Up(nan), *dz = Up(z0);
    R::CSR                   hA = {n, n, (PetscInt)a.j.size(), a.p.data(), a.j.data(), a.v.data(), 0, nullptr, nullptr}, hB = {n, ng, (PetscInt)b.j.size(), b.p.data(), b.j.data(), b.v.data(), 0, nullptr, nullptr};
    R::CSR                   dA = {n, n, hA.nnz, dap, daj, dav, 0, nullptr, nullptr}, dB = {n, ng, hB.nnz, dbp, dbj, dbv, 0, nullptr, nullptr};
    std::vector<PetscScalar> y(n);
    const double             s = 1000.0; /* reductions: 1e-10 absolute on sums of ~3001 terms of size <= 0.25 (sum |terms| ~ 250: ~2000 eps relative) */

    PetscCall(H.SpMV(hA, x.data(), y.data()));
    PetscCall(D.SpMV(dA, dx, dy));
    Compare("SpMV", y, Down(dy, n), 10);
    PetscCall(H.SpMVAdd(hB, g.data(), y.data()));
    PetscCall(D.SpMVAdd(dB, dg, dy));
    Compare("SpMVAdd", y, Down(dy, n), 10);

    { /* the banded (DIA) copy the glue gives the cuda SpMV: a random band of 9 diagonals (some entries dropped, the
         first and last rows cut by the borders) against the reference's CSR product, and SpMVAdd on it */
      const PetscInt offs[9] = {-301, -17, -5, -1, 0, 1, 6, 40, 299};
      HostCsr        c;
      c.p.push_back(0);
      for (PetscInt i = 0; i < n; i++) {
        for (PetscInt o : offs)
          if (i + o >= 0 && i + o < n && (o == 0 || Rand() < 0.85)) {
            c.j.push_back(i + o);
            c.v.push_back(Rand() - 0.5);
          }
        c.p.push_back((PetscInt)c.j.size());
      }
      PetscInt nd = 0, off[PGX_DIA_MAXDIAG];
      PetscCall(PGXDIAAnalyze(n, c.p.data(), c.j.data(), PGX_DIA_MAXDIAG, 2.0 / 3.0, &nd, off));
      if (nd != 9) {
        printf("FAIL: DIA analysis found %d diagonals, expected 9\n", (int)nd);
        nfail++;
      }
      std::vector<PetscScalar> dvh((size_t)nd * n);
      std::vector<PetscInt>    offv(off, off + nd);
      PetscCall(PGXDIAFill(n, c.p.data(), c.j.data(), c.v.data(), nd, off, dvh.data()));
      PetscInt    *dcp = Up(c.p), *dcj = Up(c.j), *doff = Up(offv);
      PetscScalar *dcv = Up(c.v), *ddv = Up(dvh), *dy2 = Up(nan);
      R::CSR       hC = {n, n, (PetscInt)c.j.size(), c.p.data(), c.j.data(), c.v.data(), 0, nullptr, nullptr};
      R::CSR       dC = {n, n, hC.nnz, dcp, dcj, dcv, nd, doff, ddv};
      std::vector<PetscScalar> yc(n);
      PetscCall(H.SpMV(hC, x.data(), yc.data()));
      PetscCall(D.SpMV(dC, dx, dy2));
      Compare("SpMV (DIA)", yc, Down(dy2, n), 1);
      PetscCall(H.SpMVAdd(hC, x.data(), yc.data()));
      PetscCall(D.SpMVAdd(dC, dx, dy2));
      Compare("SpMVAdd (DIA)", yc, Down(dy2, n), 2);
      { /* DIAFill on the device from the device CSR: the host fill's values exactly (poisoned first) */
        PetscScalar *dfill = Up(std::vector<PetscScalar>((size_t)nd * n, NAN));
        PetscBool    miss = PETSC_TRUE, hmiss = PETSC_TRUE;
        PetscCall(D.DIAFill(dC, nd, doff, dfill, &miss));
        Compare("DIAFill", dvh, Down(dfill, (size_t)nd * n), 0);
        /* the offsets without 40 (as sampled rows may miss it): both backends report the miss */
        std::vector<PetscInt>    off8;
        std::vector<PetscScalar> hfill((size_t)nd * n);
        for (PetscInt d = 0; d < nd; d++)
          if (off[d] != 40) off8.push_back(off[d]);
        PetscInt *doff8 = Up(off8);
        PetscBool miss8 = PETSC_FALSE, hmiss8 = PETSC_FALSE;
        PetscCall(D.DIAFill(dC, 8, doff8, dfill, &miss8));
        PetscCall(H.DIAFill(hC, 8, off8.data(), hfill.data(), &hmiss8));
        PetscCall(H.DIAFill(hC, nd, off, hfill.data(), &hmiss));
        Compare("DIAFill (host)", dvh, hfill, 0);
        if (miss || hmiss || !miss8 || !hmiss8 || off8.size() != 8) {
          printf("FAIL: DIAFill's miss flag: all offsets %d/%d (expected 0/0), without 40 %d/%d (expected 1/1)\n", (int)miss, (int)hmiss, (int)miss8, (int)hmiss8);
          nfail++;
        }
        (void)cudaFree(dfill);
        (void)cudaFree(doff8);
      }
      { /* SpMVDotDev: y = A x and x'y left on the device, on the DIA copy (one kernel) and on CSR (dA) */
        PetscScalar hd2, dd2, *ddev = Up(std::vector<PetscScalar>(1, NAN));
        PetscCall(H.SpMVDotDev(hC, x.data(), yc.data(), &hd2));
        PetscCall(D.SpMVDotDev(dC, dx, dy2, ddev));
        PetscCall(D.Fetch(1, ddev, &dd2));
        Compare("SpMVDotDev (DIA) y", yc, Down(dy2, n), 1);
        Compare("SpMVDotDev (DIA) x'y", {hd2}, {dd2}, s);
        PetscCall(H.SpMVDotDev(hA, x.data(), yc.data(), &hd2));
        PetscCall(D.SpMVDotDev(dA, dx, dy2, ddev));
        PetscCall(D.Fetch(1, ddev, &dd2));
        Compare("SpMVDotDev (CSR) y", yc, Down(dy2, n), 10);
        Compare("SpMVDotDev (CSR) x'y", {hd2}, {dd2}, s);
        /* SpMVDotAYPXDev: p_new = z + (num/den) p_old (and p_new = z), w = A p_new, p_new'w, on the DIA copy (one
           kernel) and on CSR */
        std::vector<PetscScalar> sc = {0.7, -1.3}, hp(n), hw(n);
        PetscScalar             *dsc = Up(sc), *dpn = Up(nan), *dw = Up(nan);
        for (int withold = 0; withold < 2; withold++)
          for (int csr = 0; csr < 2; csr++) {
            PetscCall(H.SpMVDotAYPXDev(csr ? hA : hC, z0.data(), withold ? y0.data() : NULL, &sc[0], &sc[1], hp.data(), hw.data(), &hd2));
            PetscCall(D.SpMVDotAYPXDev(csr ? dA : dC, dz, withold ? Up(y0) : NULL, dsc, dsc + 1, dpn, dw, ddev));
            PetscCall(D.Fetch(1, ddev, &dd2));
            Compare(csr ? "SpMVDotAYPXDev (CSR) p" : "SpMVDotAYPXDev (DIA) p", hp, Down(dpn, n), 1);
            Compare(csr ? "SpMVDotAYPXDev (CSR) w" : "SpMVDotAYPXDev (DIA) w", hw, Down(dw, n), 10);
            Compare(csr ? "SpMVDotAYPXDev (CSR) p'w" : "SpMVDotAYPXDev (DIA) p'w", {hd2}, {dd2}, s);
          }
        { /* several ranks: the entries the ghost exchange sends formed first (AYPXIdxDev: equal to the reference, the
             other entries untouched, and bitwise equal to what the fused DIA product then writes there), and the
             off-diagonal block's y += B g with d += sum (B g)_i p_i (SpMVAddDotDev; rows of B without entries add nothing) */
          std::vector<PetscInt> idx;
          for (PetscInt i = 0; i < n; i += 1 + (PetscInt)(Rand() * 20)) idx.push_back(i);
          PetscInt    *didx = Up(idx);
          PetscScalar *dold = Up(y0);
          for (int withold = 0; withold < 2; withold++) {
            std::vector<PetscScalar> hq(n, NAN);
            PetscScalar             *dq = Up(nan);
            PetscCall(H.AYPXIdxDev((PetscInt)idx.size(), idx.data(), z0.data(), withold ? y0.data() : NULL, &sc[0], &sc[1], hq.data()));
            PetscCall(D.AYPXIdxDev((PetscInt)idx.size(), didx, dz, withold ? dold : NULL, dsc, dsc + 1, dq));
            PetscCall(D.SpMVDotAYPXDev(dC, dz, withold ? dold : NULL, dsc, dsc + 1, dpn, dw, ddev));
            std::vector<PetscScalar> gq = Down(dq, n), gp = Down(dpn, n);
            size_t                   k = 0;
            for (PetscInt i = 0; i < n; i++) {
              const bool sent = k < idx.size() && idx[k] == i;
              if (sent) {
                k++;
                CHECK(std::fabs(gq[i] - hq[i]) <= 1e-13, "AYPXIdxDev[%d] (p_old %s): cuda %g, reference %g", (int)i, withold ? "given" : "NULL", (double)gq[i], (double)hq[i]);
                CHECK(std::memcmp(&gq[i], &gp[i], sizeof(PetscScalar)) == 0, "AYPXIdxDev[%d] (p_old %s): %.17g, not bitwise the fused product's %.17g", (int)i, withold ? "given" : "NULL", (double)gq[i], (double)gp[i]);
              } else CHECK(std::isnan(gq[i]) && std::isnan(hq[i]), "AYPXIdxDev[%d]: an entry not listed was written", (int)i);
            }
            (void)cudaFree(dq);
          }
          std::vector<PetscScalar> hy = y0, hdv = {0.25};
          PetscScalar             *dyb = Up(y0), *ddv = Up(hdv), dd3 = 0;
          PetscCall(H.SpMVAddDotDev(hB, g.data(), z0.data(), hy.data(), hdv.data()));
          PetscCall(D.SpMVAddDotDev(dB, dg, dz, dyb, ddv));
          PetscCall(D.Fetch(1, ddv, &dd3));
          Compare("SpMVAddDotDev y", hy, Down(dyb, n), 10);
          Compare("SpMVAddDotDev d", {hdv[0]}, {dd3}, s);
          { /* the same sum as SpMVAdd followed by the dot of p with the increment */
            std::vector<PetscScalar> t(n, 0.0);
            PetscScalar              e = 0.25;
            PetscCall(H.SpMVAdd(hB, g.data(), t.data()));
            for (PetscInt i = 0; i < n; i++) e += t[i] * z0[i];
            Compare("SpMVAddDotDev d against SpMVAdd and a dot", {e}, {hdv[0]}, s);
          }
          (void)cudaFree(didx);
          (void)cudaFree(dold);
          (void)cudaFree(dyb);
          (void)cudaFree(ddv);
        }
        (void)cudaFree(dsc);
        (void)cudaFree(dpn);
        (void)cudaFree(dw);
        (void)cudaFree(ddev);
      }
      (void)cudaFree(dcp);
      (void)cudaFree(dcj);
      (void)cudaFree(doff);
      (void)cudaFree(dcv);
      (void)cudaFree(ddv);
      (void)cudaFree(dy2);
    }

    { /* the look-ahead CG's kernels: AYPXDev (b = num/den read in memory), CGStepDev with and without the sign check
         (taken: x_out = x_in + a p, r -= a w; not taken: x_out and r untouched), FetchBegin/End through both slots */
      std::vector<PetscScalar> sc = {0.7, -1.3, 2.5, -0.4}, hy = y0, hr = z0, hxo(n, NAN);
      PetscScalar             *dsc = Up(sc), *dyy = Up(y0), *dr = Up(z0), *dxo = Up(nan), h2[2];
      PetscCall(H.AYPXDev(n, &sc[0], &sc[1], x.data(), hy.data()));
      PetscCall(D.AYPXDev(n, dsc, dsc + 1, dx, dyy));
      Compare("AYPXDev", hy, Down(dyy, n), 1);
      PetscCall(H.CGStepDev(n, &sc[0], &sc[2], NULL, x.data(), y0.data(), z0.data(), hxo.data(), hr.data()));
      PetscCall(D.CGStepDev(n, dsc, dsc + 2, NULL, dx, Up(y0), dz, dxo, dr));
      Compare("CGStepDev x", hxo, Down(dxo, n), 1);
      Compare("CGStepDev r", hr, Down(dr, n), 1);
      /* dpi 2.5 against dpiold -0.4: a sign change, the step is not taken (outputs as they were) */
      PetscCall(H.CGStepDev(n, &sc[0], &sc[2], &sc[3], x.data(), y0.data(), z0.data(), hxo.data(), hr.data()));
      PetscCall(D.CGStepDev(n, dsc, dsc + 2, dsc + 3, dx, Up(y0), dz, dxo, dr));
      Compare("CGStepDev (not taken) x", hxo, Down(dxo, n), 1);
      Compare("CGStepDev (not taken) r", hr, Down(dr, n), 1);
      PetscCall(D.FetchBegin(2, dsc, 0));
      PetscCall(D.FetchBegin(2, dsc + 2, 1));
      PetscCall(D.FetchEnd(2, 1, h2));
      Compare("FetchBegin/End slot 1", {sc[2], sc[3]}, {h2[0], h2[1]}, 0);
      PetscCall(D.FetchEnd(2, 0, h2));
      Compare("FetchBegin/End slot 0", {sc[0], sc[1]}, {h2[0], h2[1]}, 0);
      { /* the look-ahead GMRES's normalization by 1/sqrt(Re d[0]) read on the device: the host backend's arithmetic
           exactly (the same IEEE square root and quotient); d = 0 and d = 1 leave x untouched */
        std::vector<PetscScalar> nn = {2.7, 0.0, 1.0}, hv = y0;
        PetscScalar             *dnn = Up(nn), *dv = Up(y0);
        PetscCall(H.ScaleInvSqrtDev(n, &nn[0], hv.data()));
        PetscCall(D.ScaleInvSqrtDev(n, dnn, dv));
        Compare("ScaleInvSqrtDev", hv, Down(dv, n), 0);
        PetscCall(D.ScaleInvSqrtDev(n, dnn + 1, dv));
        PetscCall(D.ScaleInvSqrtDev(n, dnn + 2, dv));
        Compare("ScaleInvSqrtDev (norms 0 and 1: untouched)", hv, Down(dv, n), 0);
      }
      { /* FetchArm: the next reduction (DotNorm2Dev, the pointwise CG step) writes d[0..3) to the host from its
           finishing block and FetchBegin queues no copy; armed with no reduction before FetchBegin: the copy */
        std::vector<PetscScalar> rec0 = {1.5, NAN, NAN}, hd2(2), hd3(2);
        PetscScalar             *drec = Up(rec0), h3[3];
        PetscCall(H.DotNorm2Dev(n, x.data(), z0.data(), hd2.data()));
        const std::vector<PetscScalar> junk = {-7.0, -7.0, -7.0};
        /* d overwritten after the kernel, then fetched through slot: a published fetch returns what the kernel wrote
           (1.5 before it, its two sums), a copy would return the junk */
        auto CheckPublished = [&](const char *what, PetscInt slot, const std::vector<PetscScalar> &sums) -> PetscErrorCode {
          (void)cudaDeviceSynchronize();
          (void)cudaMemcpy(drec, junk.data(), 3 * sizeof(PetscScalar), cudaMemcpyHostToDevice);
          (void)cudaDeviceSynchronize();
          PetscCall(D.FetchBegin(3, drec, slot));
          PetscCall(D.FetchEnd(3, slot, h3));
          Compare(what, {1.5}, {h3[0]}, 0);
          Compare(what, sums, {h3[1], h3[2]}, s);
          return PETSC_SUCCESS;
        };
        PetscCall(D.FetchArm(3, drec, 1));
        PetscCall(D.DotNorm2Dev(n, dx, dz, drec + 1));
        PetscCall(CheckPublished("FetchArm + DotNorm2Dev (published)", 1, hd2));
        PetscCall(D.FetchArm(2, dsc, 0));
        PetscCall(D.FetchBegin(2, dsc, 0));
        PetscCall(D.FetchEnd(2, 0, h2));
        Compare("FetchArm, nothing taken (copied)", {sc[0], sc[1]}, {h2[0], h2[1]}, 0);
        /* the pointwise step publishes: jacobi with d = x, taken (no sign check) */
        std::vector<PetscScalar> hr = z0, hxo(n), hz(n);
        PetscScalar             *dr2 = Up(z0), *dxo2 = Up(nan), *dz2 = Up(nan), *dy2 = Up(y0);
        PetscCall(H.CGStepPointwiseDev(n, &sc[0], &sc[2], NULL, x.data(), y0.data(), z0.data(), hxo.data(), hr.data(), x.data(), hz.data(), hd3.data()));
        (void)cudaMemcpy(drec, rec0.data(), 3 * sizeof(PetscScalar), cudaMemcpyHostToDevice);
        PetscCall(D.FetchArm(3, drec, 0));
        PetscCall(D.CGStepPointwiseDev(n, dsc, dsc + 2, NULL, dx, dy2, dz, dxo2, dr2, dx, dz2, drec + 1));
        PetscCall(CheckPublished("FetchArm + CGStepPointwiseDev (published)", 0, hd3));
        for (PetscScalar *q : {drec, dr2, dxo2, dz2, dy2}) (void)cudaFree(q);
      }
      (void)cudaFree(dsc);
      (void)cudaFree(dyy);
      (void)cudaFree(dr);
      (void)cudaFree(dxo);
    }

    /* CGStepPointwiseDev (the look-ahead CG's step, z = d .* r or z = r, z'r and ||z||^2 in one pass) against the
       reference's three calls: taken with d and without, not taken (x_out, r untouched; z and the sums from the old
       r); at n = 3001 (a few blocks) and at 2^20 + 17 (grid-stride over the NPART partials, every one of them summed
       by the last block), where DotNorm2Dev's wider grid is checked too */
    for (PetscInt m : {n, (PetscInt)(1 << 20) + 17}) {
      std::vector<PetscScalar> sc = {0.7, -1.3, 2.5, -0.4}, p = RandVec(m), w = RandVec(m), xi = RandVec(m), r0 = RandVec(m), dg = RandVec(m), nanm(m, NAN);
      PetscScalar             *dsc = Up(sc), *dp = Up(p), *dw = Up(w), *dxi = Up(xi), *ddg = Up(dg), *dr = Up(r0), *dxo = Up(nanm), *dzz = Up(nanm), *dd2 = Up(std::vector<PetscScalar>(2, NAN));
      const double             sm = m > n ? 1e5 : s; /* sums of ~1M terms */
      for (int c = 0; c < 3; c++) {
        const bool               jac = c != 1, taken = c != 2;
        std::vector<PetscScalar> hr = r0, hxo(m, NAN), hz(m, NAN), hd2(2), dd2h(2);
        (void)cudaMemcpy(dr, r0.data(), sizeof(PetscScalar) * m, cudaMemcpyHostToDevice); /* Down() synchronized the device */
        (void)cudaMemcpy(dxo, nanm.data(), sizeof(PetscScalar) * m, cudaMemcpyHostToDevice);
        PetscCall(H.CGStepPointwiseDev(m, &sc[0], &sc[2], taken ? NULL : &sc[3], p.data(), w.data(), xi.data(), hxo.data(), hr.data(), jac ? dg.data() : NULL, hz.data(), hd2.data()));
        PetscCall(D.CGStepPointwiseDev(m, dsc, dsc + 2, taken ? NULL : dsc + 3, dp, dw, dxi, dxo, dr, jac ? ddg : NULL, dzz, dd2));
        const char *what[3] = {"CGStepPointwiseDev (jacobi)", "CGStepPointwiseDev (none)", "CGStepPointwiseDev (not taken)"};
        if (taken) Compare(what[c], hxo, Down(dxo, m), 1);
        Compare(what[c], hr, Down(dr, m), 1);
        Compare(what[c], hz, Down(dzz, m), 1);
        dd2h = Down(dd2, 2);
        Compare(what[c], hd2, dd2h, sm);
        CHECK(std::isfinite((double)dd2h[0]) && std::isfinite((double)dd2h[1]), "%s: sums %g %g", what[c], (double)dd2h[0], (double)dd2h[1]);
        if (!taken) CHECK(std::isnan((double)Down(dxo, 1)[0]), "%s: x_out written", what[c]);
      }
      { /* DotNorm2Dev's grid of at most NPART blocks, at both sizes */
        std::vector<PetscScalar> hd2(2);
        PetscCall(H.DotNorm2Dev(m, r0.data(), dg.data(), hd2.data()));
        (void)cudaMemcpy(dr, r0.data(), sizeof(PetscScalar) * m, cudaMemcpyHostToDevice);
        PetscCall(D.DotNorm2Dev(m, dr, ddg, dd2));
        Compare("DotNorm2Dev", hd2, Down(dd2, 2), sm);
      }
      for (PetscScalar *q : {dsc, dp, dw, dxi, ddg, dr, dxo, dzz, dd2}) (void)cudaFree(q);
    }

    PetscScalar hd, dd, hv[2], dv[2];
    PetscReal   hn, dn, ht, dt;
    PetscCall(H.Dot(n, x.data(), z0.data(), &hd));
    PetscCall(D.Dot(n, dx, dz, &dd));
    Compare("Dot", {hd}, {dd}, s);
    PetscCall(H.Norm2Sq(n, x.data(), &hn));
    PetscCall(D.Norm2Sq(n, dx, &dn));
    Compare("Norm2Sq", {hn}, {dn}, s);
    PetscCall(H.DotNorm2(n, x.data(), z0.data(), &hv[0], &ht));
    PetscCall(D.DotNorm2(n, dx, dz, &dv[0], &dt));
    Compare("DotNorm2", {hv[0], ht}, {dv[0], dt}, s);

    for (PetscInt k : {1, 7, 31, 70}) {
      const PetscInt           ld = n + 3;
      std::vector<PetscScalar> V(ld * k), hr(k), dr(k), coef = RandVec(k);
      for (auto &e : V) e = Rand() - 0.5;
      PetscScalar *dV = Up(V);
      PetscCall(H.MDot(n, k, V.data(), ld, x.data(), hr.data()));
      PetscCall(D.MDot(n, k, dV, ld, dx, dr.data()));
      Compare("MDot", hr, dr, s);
      std::vector<PetscScalar> hy = y0;
      PetscScalar             *dyy = Up(y0);
      PetscCall(H.MAXPY(n, k, coef.data(), V.data(), ld, hy.data()));
      PetscCall(D.MAXPY(n, k, coef.data(), dV, ld, dyy));
      Compare("MAXPY", hy, Down(dyy, n), 10);
      (void)cudaFree(dV);
      (void)cudaFree(dyy);
    }
    { /* the vector updates, each from the same inputs */
      std::vector<PetscScalar> hw = y0;
      PetscScalar             *dw = Up(y0);
      PetscCall(H.AXPY(n, 0.3, x.data(), hw.data()));
      PetscCall(D.AXPY(n, 0.3, dx, dw));
      Compare("AXPY", hw, Down(dw, n), 1);
      PetscCall(H.AYPX(n, -0.7, x.data(), hw.data()));
      PetscCall(D.AYPX(n, -0.7, dx, dw));
      Compare("AYPX", hw, Down(dw, n), 1);
      PetscCall(H.AXPBYPCZ(n, 0.2, -1.1, 0.9, x.data(), z0.data(), hw.data()));
      PetscCall(D.AXPBYPCZ(n, 0.2, -1.1, 0.9, dx, dz, dw));
      Compare("AXPBYPCZ", hw, Down(dw, n), 1);
      PetscCall(H.Scale(n, 1.5, hw.data()));
      PetscCall(D.Scale(n, 1.5, dw));
      Compare("Scale", hw, Down(dw, n), 1);
      PetscCall(cudaMemcpy(dy, nan.data(), sizeof(PetscScalar) * n, cudaMemcpyHostToDevice) == cudaSuccess ? PETSC_SUCCESS : PETSC_ERR_GPU);
      PetscCall(cudaDeviceSynchronize() == cudaSuccess ? PETSC_SUCCESS : PETSC_ERR_GPU);
      PetscCall(H.WAXPY(n, 2.0, x.data(), z0.data(), y.data()));
      PetscCall(D.WAXPY(n, 2.0, dx, dz, dy));
      Compare("WAXPY", y, Down(dy, n), 1);
      PetscCall(H.PointwiseMult(n, z0.data(), x.data(), y.data()));
      PetscCall(D.PointwiseMult(n, dz, dx, dy));
      Compare("PointwiseMult", y, Down(dy, n), 1);
      PetscCall(D.Copy(n, dx, dy));
      Compare("Copy", x, Down(dy, n), 1);
      PetscCall(D.Set(n, -3.0, dy));
      Compare("Set", std::vector<PetscScalar>(n, -3.0), Down(dy, n), 1);
      std::vector<PetscInt> idx(977);
      for (auto &e : idx) e = (PetscInt)(Rand() * n);
      PetscInt *didx = Up(idx);
      PetscCall(H.Gather(977, idx.data(), x.data(), y.data()));
      PetscCall(D.Gather(977, didx, dx, dy));
      Compare("Gather", std::vector<PetscScalar>(y.begin(), y.begin() + 977), Down(dy, 977), 1);
      (void)cudaFree(didx);
      (void)cudaFree(dw);
    }
    PetscCall(PGXDeviceSynchronize());
    for (void *p : {(void *)dap, (void *)daj, (void *)dbp, (void *)dbj, (void *)dav, (void *)dbv, (void *)dx, (void *)dg, (void *)dy, (void *)dz}) (void)cudaFree(p);
  }
  if (!nfail) printf("all checks passed\n");
  else printf("%d checks FAILED\n", nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
