/* The divide and conquer (Cuppen) eigensolver of a real symmetric tridiagonal T with the eigenvector updates in
   the backend (stedc_kernels.h: reference = host BLAS, cuda = cuBLAS; the eigenvector matrix stays in the
   backend's memory). The host does the O(k^2) work of each merge with LAPACK's auxiliary routines: deflation
   (as dlaed2 describes it), the roots of the secular equation (dlaed4, in several host threads), the
   Gu-Eisenstat recomputation of z and the eigenvectors S of the rank-one modified diagonal (as dlaed3
   describes them). Leaves are solved by dsteqr on the host. Same organisation as LAPACK dlaed0/dlaed1 and
   MAGMA's dstedx; no code of theirs. */
#include "stedc.h"
#include "stedc_kernels.h"
#include <pgx/private/pgximpl.h>
#include <petscblaslapack.h>
#include <petsctime.h>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>
#include <vector>

namespace K = pgx::kernels::stedc;

#define PGXLAPACKlaed4_ PETSCBLASREAL(laed4, LAED4)
#define PGXLAPACKsteqr_ PETSCBLASREAL(steqr, STEQR)
#define PGXLAPACKlaev2_ PETSCBLASREAL(laev2, LAEV2)
BLAS_EXTERN void PGXLAPACKlaed4_(const PetscBLASInt *, const PetscBLASInt *, const PetscReal *, const PetscReal *, PetscReal *, const PetscReal *, PetscReal *, PetscBLASInt *);
BLAS_EXTERN void PGXLAPACKsteqr_(const char *, const PetscBLASInt *, PetscReal *, PetscReal *, PetscReal *, const PetscBLASInt *, PetscReal *, PetscBLASInt *);
BLAS_EXTERN void PGXLAPACKlaev2_(const PetscReal *, const PetscReal *, const PetscReal *, PetscReal *, PetscReal *, PetscReal *, PetscReal *);

namespace
{
/* runs f(begin, end) over [0, count) split into at most nthreads contiguous ranges, the first on this thread */
template <class F>
void ParallelFor(int nthreads, PetscInt count, F f)
{
  int nt = (int)PetscMin((PetscInt)nthreads, count);
  if (nt <= 1) {
    if (count > 0) f((PetscInt)0, count);
    return;
  }
  std::vector<std::thread> th;
  auto                     lo = [&](int t) { return (PetscInt)((count * (long long)t) / nt); };
  for (int t = 1; t < nt; t++) {
    try {
      th.emplace_back(f, lo(t), lo(t + 1));
    } catch (...) { /* no thread to be had: run that range here */
      f(lo(t), lo(t + 1));
    }
  }
  f(lo(0), lo(1));
  for (auto &x : th) x.join();
}

struct Merge {
  PetscInt  off, m, n1; /* rows and columns off..off+m-1, torn at n1 */
  PetscReal beta;       /* the torn subdiagonal entry (scaled) */
};

struct Leaf {
  PetscInt off, m;
};

/* The run: backend, buffers in the backend's memory, host work arrays */
struct DC {
  bool                   cuda = false;
  PetscInt               n = 0, leaf = 0;
  int                    threads = 1;
  PetscReal             *Z = nullptr;                            /* n x n, ld n (caller's) */
  PetscReal             *out = nullptr, *Qc = nullptr, *Sd = nullptr; /* n*n each (backend) */
  std::vector<PetscReal> hS;                                     /* host k x k: differences, then S */
#if PGX_HAVE_CUDA
  K::cuda::Scratch *scr = nullptr;
#endif
  PGXStedcStats *st = nullptr;
};

PetscErrorCode Gather(DC &dc, PetscInt m, PetscInt ncol, const PetscInt *idx, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  PetscFunctionBegin;
  if (m <= 0 || ncol <= 0) PetscFunctionReturn(PETSC_SUCCESS);
#if PGX_HAVE_CUDA
  if (dc.cuda) {
    PetscCall(K::cuda::gather_columns(dc.scr, m, ncol, idx, src, lds, dst, ldd));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  K::reference::gather_columns(m, ncol, idx, src, lds, dst, ldd);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Rotate(DC &dc, PetscInt m, PetscInt nrot, const K::Rotation *rot, PetscReal *Q, PetscInt ldq)
{
  PetscFunctionBegin;
  if (m <= 0 || nrot <= 0) PetscFunctionReturn(PETSC_SUCCESS);
#if PGX_HAVE_CUDA
  if (dc.cuda) {
    PetscCall(K::cuda::rotate_columns(dc.scr, m, nrot, rot, Q, ldq));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  K::reference::rotate_columns(m, nrot, rot, Q, ldq);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Gemm(DC &dc, PetscInt m, PetscInt n, PetscInt k, const PetscReal *A, PetscInt lda, const PetscReal *B, PetscInt ldb, PetscReal *C, PetscInt ldc)
{
  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  dc.st->flops += 2.0 * m * n * k;
#if PGX_HAVE_CUDA
  if (dc.cuda) {
    PetscCall(K::cuda::gemm(m, n, k, A, lda, B, ldb, C, ldc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  K::reference::gemm(m, n, k, A, lda, B, ldb, C, ldc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* host src -> backend dst */
PetscErrorCode Upload(DC &dc, PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
#if PGX_HAVE_CUDA
  if (dc.cuda) {
    PetscCall(K::cuda::upload(m, n, src, lds, dst, ldd));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  K::reference::copy(m, n, src, lds, dst, ldd);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* backend src -> host dst */
PetscErrorCode Download(DC &dc, PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
#if PGX_HAVE_CUDA
  if (dc.cuda) {
    PetscCall(K::cuda::download(m, n, src, lds, dst, ldd));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  K::reference::copy(m, n, src, lds, dst, ldd);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Zero(DC &dc, PetscInt m, PetscInt n, PetscReal *A, PetscInt lda)
{
  PetscFunctionBegin;
#if PGX_HAVE_CUDA
  if (dc.cuda) {
    PetscCall(K::cuda::zero(m, n, A, lda));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  K::reference::zero(m, n, A, lda);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* records the tears (post-order: children before their merge) and the leaves; tears d */
void Tear(PetscInt off, PetscInt m, PetscInt leaf, PetscReal *d, const PetscReal *e, std::vector<Leaf> &leaves, std::vector<Merge> &merges)
{
  if (m <= leaf) {
    leaves.push_back({off, m});
    return;
  }
  PetscInt  n1 = m / 2;
  PetscReal b  = e[off + n1 - 1];
  d[off + n1 - 1] -= PetscAbsReal(b);
  d[off + n1] -= PetscAbsReal(b);
  Tear(off, n1, leaf, d, e, leaves, merges);
  Tear(off + n1, m - n1, leaf, d, e, leaves, merges);
  merges.push_back({off, m, n1, b});
}

/* The secular problem D + rho w w^T (k >= 1, dl ascending, distinct): eigenvalues lam (ascending) and the
   eigenvector matrix, written into S (ld k) with its rows permuted by cidx: S(r, j) = v_j(cidx[r]) */
PetscErrorCode Secular(DC &dc, PetscInt k, const PetscReal *dl, const PetscReal *w, PetscReal rho, const PetscInt *cidx, PetscReal *lam, PetscReal *S)
{
  PetscFunctionBegin;
  if (k == 1) {
    lam[0] = dl[0] + rho * w[0] * w[0];
    S[0]   = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (k == 2) {
    PetscReal a = dl[0] + rho * w[0] * w[0], b = rho * w[0] * w[1], c = dl[1] + rho * w[1] * w[1], rt1, rt2, cs, sn, v[4];
    PGXLAPACKlaev2_(&a, &b, &c, &rt1, &rt2, &cs, &sn); /* (cs, sn): the eigenvector of rt1 */
    if (rt1 > rt2) {
      lam[0] = rt2, lam[1] = rt1;
      v[0] = -sn, v[1] = cs, v[2] = cs, v[3] = sn;
    } else {
      lam[0] = rt1, lam[1] = rt2;
      v[0] = cs, v[1] = sn, v[2] = -sn, v[3] = cs;
    }
    for (PetscInt j = 0; j < 2; j++)
      for (PetscInt r = 0; r < 2; r++) S[r + 2 * j] = v[cidx[r] + 2 * j];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscBLASInt           bk = (PetscBLASInt)k;
  std::vector<PetscBLASInt> info(k, 0);
  int                    nt = k >= 128 ? dc.threads : 1;
  /* roots: column j of S holds dl - lam_j */
  ParallelFor(nt, k, [&](PetscInt j0, PetscInt j1) {
    for (PetscInt j = j0; j < j1; j++) {
      PetscBLASInt jj = (PetscBLASInt)(j + 1);
      PGXLAPACKlaed4_(&bk, &jj, dl, w, S + (size_t)j * k, &rho, &lam[j], &info[j]);
    }
  });
  for (PetscInt j = 0; j < k; j++) PetscCheck(info[j] == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dlaed4 failed for root %" PetscInt_FMT " of a secular equation of order %" PetscInt_FMT ": info %d", j + 1, k, (int)info[j]);
  /* Gu-Eisenstat: wh_i^2 = -(dl_i - lam_i) prod_{j != i} (dl_i - lam_j) / (dl_i - dl_j), computed column by
     column (contiguous) by threads that own a range of i */
  std::vector<PetscReal> wh(k);
  ParallelFor(nt, k, [&](PetscInt i0, PetscInt i1) {
    for (PetscInt i = i0; i < i1; i++) wh[i] = -S[i + (size_t)i * k];
    for (PetscInt j = 0; j < k; j++) {
      const PetscReal *c = S + (size_t)j * k;
      for (PetscInt i = i0; i < i1; i++)
        if (i != j) wh[i] *= c[i] / (dl[i] - dl[j]);
    }
    for (PetscInt i = i0; i < i1; i++) wh[i] = std::copysign(PetscSqrtReal(PetscAbsReal(wh[i])), w[i]);
  });
  /* S(:, j) = wh ./ (dl - lam_j), normalized, rows permuted by cidx */
  ParallelFor(nt, k, [&](PetscInt j0, PetscInt j1) {
    std::vector<PetscReal> v(k);
    for (PetscInt j = j0; j < j1; j++) {
      PetscReal *c = S + (size_t)j * k, s = 0;
      for (PetscInt i = 0; i < k; i++) {
        v[i] = wh[i] / c[i];
        s += v[i] * v[i];
      }
      s = 1 / PetscSqrtReal(s);
      for (PetscInt r = 0; r < k; r++) c[r] = v[cidx[r]] * s;
    }
  });
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One merge: D (host, m values: the halves' eigenvalues, each ascending) becomes the merged spectrum
   (ascending), the block Z(off:off+m, off:off+m) its eigenvectors */
PetscErrorCode DoMerge(DC &dc, const Merge &mg, PetscReal *D)
{
  const PetscInt m = mg.m, n1 = mg.n1, n2 = m - n1, n = dc.n;
  PetscReal     *Zb = dc.Z + mg.off + (size_t)mg.off * n;
  PetscLogDouble t0, t1, t2, t3;

  PetscFunctionBegin;
  /* z = [last row of Q1, sign(beta) first row of Q2], normalized; rho = |beta| ||z||^2 */
  std::vector<PetscReal> z(m);
  PetscCall(Download(dc, 1, n1, Zb + (n1 - 1), n, z.data(), 1));
  PetscCall(Download(dc, 1, n2, Zb + n1 + (size_t)n1 * n, n, z.data() + n1, 1));
  PetscCall(PetscTime(&t1));
  PetscReal rho = PetscAbsReal(mg.beta), zn = 0, dmax = 0, zmax = 0;
  if (mg.beta < 0)
    for (PetscInt i = n1; i < m; i++) z[i] = -z[i];
  for (PetscInt i = 0; i < m; i++) zn += z[i] * z[i];
  zn = PetscSqrtReal(zn);
  if (zn > 0)
    for (PetscInt i = 0; i < m; i++) z[i] /= zn;
  rho *= zn * zn;
  for (PetscInt i = 0; i < m; i++) dmax = PetscMax(dmax, PetscAbsReal(D[i])), zmax = PetscMax(zmax, PetscAbsReal(z[i]));
  const PetscReal tol = 4 * PETSC_MACHINE_EPSILON * PetscMax(dmax, zmax); /* dlaed2's 8 eps, eps = 2^-53 */

  /* the two ascending halves merged */
  std::vector<PetscInt> order(m);
  {
    PetscInt a = 0, b = n1, p = 0;
    while (a < n1 && b < m) order[p++] = D[b] < D[a] ? b++ : a++;
    while (a < n1) order[p++] = a++;
    while (b < m) order[p++] = b++;
  }

  /* deflation: small components, then close pairs by rotations (column types follow the rotations) */
  std::vector<int>         type(m);
  std::vector<PetscInt>    sec, defl; /* local columns: undeflated (ascending D), deflated */
  std::vector<K::Rotation> rot;
  for (PetscInt i = 0; i < m; i++) type[i] = i < n1 ? 1 : 3;
  PetscInt pj = -1;
  for (PetscInt q = 0; q < m; q++) {
    PetscInt j = order[q];
    if (rho * PetscAbsReal(z[j]) <= tol) {
      defl.push_back(j);
      continue;
    }
    if (pj < 0) {
      pj = j;
      continue;
    }
    PetscReal s = z[pj], c = z[j], tau = std::hypot(c, s), t = D[j] - D[pj];
    c /= tau;
    s = -s / tau;
    if (PetscAbsReal(t * c * s) <= tol) { /* D[pj] and D[j] close: rotate z[pj] into z[j], deflate pj */
      z[j]  = tau;
      z[pj] = 0;
      rot.push_back({pj, j, c, s});
      if (type[pj] != type[j]) type[j] = 2;
      PetscReal dp = D[pj] * c * c + D[j] * s * s;
      D[j]         = D[pj] * s * s + D[j] * c * c;
      D[pj]        = dp;
      defl.push_back(pj);
    } else sec.push_back(pj);
    pj = j;
  }
  if (pj >= 0) sec.push_back(pj);
  const PetscInt k = (PetscInt)sec.size();

  /* compressed order of the undeflated columns: type 1, type 2, type 3 (each ascending) */
  std::vector<PetscInt> cidx, up, lo;
  PetscInt              cnt[4] = {0, 0, 0, 0};
  for (int ty = 1; ty <= 3; ty++)
    for (PetscInt s = 0; s < k; s++)
      if (type[sec[s]] == ty) cidx.push_back(s), cnt[ty]++;
  for (PetscInt r = 0; r < cnt[1] + cnt[2]; r++) up.push_back(sec[cidx[r]]);
  for (PetscInt r = cnt[1]; r < k; r++) lo.push_back(sec[cidx[r]]);

  /* backend: the rotations, then the gathers (deflated columns into out(:, k:m), ld m) */
  PetscCall(Rotate(dc, m, (PetscInt)rot.size(), rot.data(), Zb, n));
  PetscCall(Gather(dc, n1, (PetscInt)up.size(), up.data(), Zb, n, dc.Qc, n1));
  PetscReal *Qlo = dc.Qc + (size_t)n1 * up.size();
  PetscCall(Gather(dc, n2, (PetscInt)lo.size(), lo.data(), Zb + n1, n, Qlo, n2));
  PetscCall(Gather(dc, m, m - k, defl.data(), Zb, n, dc.out + (size_t)k * m, m));

  /* host: the secular problem (overlaps the backend's gathers on cuda) */
  std::vector<PetscReal> lam(k), dl(k), w(k);
  for (PetscInt s = 0; s < k; s++) dl[s] = D[sec[s]], w[s] = z[sec[s]];
  if (k > 0) PetscCall(Secular(dc, k, dl.data(), w.data(), rho, cidx.data(), lam.data(), dc.hS.data()));
  PetscCall(PetscTime(&t2));

  /* the eigenvectors Q S: two gemms */
  if (k > 0) {
    PetscCall(Upload(dc, k, k, dc.hS.data(), k, dc.Sd, k));
    PetscCall(Gemm(dc, n1, k, (PetscInt)up.size(), dc.Qc, n1, dc.Sd, k, dc.out, m));
    PetscCall(Gemm(dc, n2, k, (PetscInt)lo.size(), Qlo, n2, dc.Sd + cnt[1], k, dc.out + n1, m));
  }

  /* ascending order of all m eigenvalues; the columns of out go to Zb in that order */
  PetscCall(PetscTime(&t3));
  std::vector<PetscReal> all(m);
  for (PetscInt s = 0; s < k; s++) all[s] = lam[s];
  for (PetscInt q = 0; q < m - k; q++) all[k + q] = D[defl[q]];
  std::vector<PetscInt> perm(m);
  std::iota(perm.begin(), perm.end(), (PetscInt)0);
  std::stable_sort(perm.begin(), perm.end(), [&](PetscInt a, PetscInt b) { return all[a] < all[b]; });
  for (PetscInt q = 0; q < m; q++) D[q] = all[perm[q]];
  PetscCall(Gather(dc, m, m, perm.data(), dc.out, m, Zb, n));
  dc.st->merges++;
  dc.st->secular += k;
  dc.st->deflated += m - k;
  PetscCall(PetscTime(&t0));
  dc.st->thost += (t2 - t1) + (t0 - t3);
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode PGXStedcRun(PGXDeviceType type, PetscInt leaf, PetscInt threads, PetscInt n, PetscReal d[], const PetscReal e[], PetscReal *Z, PGXStedcStats *stats)
{
  DC             dc;
  PGXStedcStats  st = {0, 0, 0, 0, 0, 0};
  PetscBLASInt   bn;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBegin;
  if (stats) *stats = st;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCheck(type == PGX_DEVICE_HOST || type == PGX_DEVICE_CUDA, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PGXStedcRun needs a resolved device type");
#if !PGX_HAVE_CUDA
  PetscCheck(type == PGX_DEVICE_HOST, PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of the divide and conquer eigensolver is not available in this build: use -pgx_device host");
#endif
  dc.cuda = type == PGX_DEVICE_CUDA;
  dc.n    = n;
  dc.leaf = leaf > 0 ? leaf : PGX_STEDC_DEFAULT_LEAF;
  if (threads <= 0) threads = PetscMin(16, PetscMax(1, (PetscInt)std::thread::hardware_concurrency()));
  dc.threads = (int)threads;
  dc.Z       = Z;
  dc.st      = &st;

  /* scale T to max |entry| = 1 (as dstedc), tear it, solve the leaves */
  PetscReal scale = 0;
  for (PetscInt i = 0; i < n; i++) scale = PetscMax(scale, PetscAbsReal(d[i]));
  for (PetscInt i = 0; i < n - 1; i++) scale = PetscMax(scale, PetscAbsReal(e[i]));
  std::vector<PetscReal> dd(d, d + n), ee(e, e + (n - 1));
  if (scale > 0) {
    for (PetscInt i = 0; i < n; i++) dd[i] /= scale;
    for (PetscInt i = 0; i < n - 1; i++) ee[i] /= scale;
  }
  std::vector<Leaf>  leaves;
  std::vector<Merge> merges;
  Tear(0, n, dc.leaf, dd.data(), ee.data(), leaves, merges);

  PetscCall(Zero(dc, n, n, Z, n));
  {
    std::vector<size_t> at(leaves.size() + 1, 0);
    for (size_t l = 0; l < leaves.size(); l++) at[l + 1] = at[l] + (size_t)leaves[l].m * leaves[l].m;
    std::vector<PetscReal>    L(at.back());
    std::vector<PetscBLASInt> info(leaves.size(), 0);
    ParallelFor(dc.threads, (PetscInt)leaves.size(), [&](PetscInt l0, PetscInt l1) {
      std::vector<PetscReal> el(dc.leaf), work(2 * dc.leaf);
      for (PetscInt l = l0; l < l1; l++) {
        PetscBLASInt bm = (PetscBLASInt)leaves[l].m;
        PetscInt     o  = leaves[l].off;
        for (PetscInt i = 0; i < leaves[l].m - 1; i++) el[i] = ee[o + i];
        PGXLAPACKsteqr_("I", &bm, dd.data() + o, el.data(), L.data() + at[l], &bm, work.data(), &info[l]);
      }
    });
    for (size_t l = 0; l < leaves.size(); l++) PetscCheck(info[l] == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dsteqr failed on the leaf of rows %" PetscInt_FMT "..%" PetscInt_FMT ": info %d", leaves[l].off, leaves[l].off + leaves[l].m - 1, (int)info[l]);
    for (size_t l = 0; l < leaves.size(); l++) PetscCall(Upload(dc, leaves[l].m, leaves[l].m, L.data() + at[l], leaves[l].m, Z + leaves[l].off + (size_t)leaves[l].off * n, n));
    st.leaves = (PetscInt)leaves.size();
  }

  /* the merges, children first; buffers of the backend for the largest */
  if (!merges.empty()) {
    size_t nn = (size_t)n * n;
#if PGX_HAVE_CUDA
    if (dc.cuda) {
      PetscCall(K::cuda::create(n, &dc.scr));
      ierr = PGXDeviceMallocArray(nn, &dc.out);
      if (!ierr) ierr = PGXDeviceMallocArray(nn, &dc.Qc);
      if (!ierr) ierr = PGXDeviceMallocArray(nn, &dc.Sd);
    }
#endif
    std::vector<PetscReal> hout, hQc, hSd;
    if (!dc.cuda) {
      hout.resize(nn), hQc.resize(nn), hSd.resize(nn);
      dc.out = hout.data(), dc.Qc = hQc.data(), dc.Sd = hSd.data();
    }
    if (!ierr) {
      dc.hS.resize(nn);
      for (const Merge &mg : merges) {
        ierr = DoMerge(dc, mg, dd.data() + mg.off);
        if (ierr) break;
      }
    }
#if PGX_HAVE_CUDA
    if (dc.cuda) {
      PetscCall(PGXDeviceFree(&dc.out));
      PetscCall(PGXDeviceFree(&dc.Qc));
      PetscCall(PGXDeviceFree(&dc.Sd));
      PetscCall(K::cuda::destroy(&dc.scr));
    }
#endif
    PetscCall(ierr);
  }
  for (PetscInt i = 0; i < n; i++) d[i] = scale > 0 ? dd[i] * scale : dd[i];
  if (stats) *stats = st;
  PetscFunctionReturn(PETSC_SUCCESS);
}
