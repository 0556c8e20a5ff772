/* The divide and conquer (Cuppen) eigensolver of a real symmetric tridiagonal T with the eigenvector updates in
   the backend (stedc_kernels.h: reference = host BLAS, cuda = cuBLAS; the eigenvector matrix stays in the
   backend's memory). The host does the O(k^2) work of each merge with LAPACK's auxiliary routines: deflation
   (as dlaed2 describes it), the roots of the secular equation (dlaed4), the Gu-Eisenstat recomputation of z and
   the eigenvectors S of the rank-one modified diagonal (as dlaed3 describes them). Leaves are solved by dsteqr
   on the host. Same organisation as LAPACK dlaed0/dlaed1 and MAGMA's dstedx; no code of theirs.
   With PGX_STEDC_SECULAR_DEVICE (the default on cuda) the roots, z-hat and S are PGX's own (stedc_secular.h) and
   run in the backend: per merge d, z and rho go up, the k eigenvalues come back and S is formed in device memory
   where the gemms read it (on the host backend the same kernels' reference loops run on the host threads).

   Host threads (a small pool of persistent std::threads, `threads` of them counting the caller): the merges are
   done a level of the tree at a time (the merges of one depth are independent: disjoint rows and columns, and
   each has its own slab of the work buffers), phase by phase. A level of at least `threads` merges runs each
   phase over the merges in parallel (each merge serial inside); a level of fewer merges runs them one after
   the other with each phase parallel inside (roots, z-hat rows, eigenvector columns; on the host backend also
   the rows of the rotations, the columns of the gathers and fixed blocks of columns of the gemms), in chunks that
   the threads claim in turn. Every
   output element is computed by one thread by the same operations in the same order whatever the thread count
   (no reductions across threads; the gemms are cut into column blocks of a fixed width), so the results are
   bitwise the same for any number of threads. Worker threads call no PETSc function: the device calls of the
   cuda backend, PetscInfo and the error checks stay on the caller's thread. */
#include "stedc.h"
#include "stedc_kernels.h"
#include <pgx/private/pgximpl.h>
#include <petscblaslapack.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <numeric>
#include <string>
#include <thread>
#include <vector>
#if defined(__linux__)
  #include <sched.h>
#endif

namespace K = pgx::kernels::stedc;

#define PGXLAPACKlaed4_ PETSCBLASREAL(laed4, LAED4)
#define PGXLAPACKsteqr_ PETSCBLASREAL(steqr, STEQR)
#define PGXLAPACKlaev2_ PETSCBLASREAL(laev2, LAEV2)
BLAS_EXTERN void PGXLAPACKlaed4_(const PetscBLASInt *, const PetscBLASInt *, const PetscReal *, const PetscReal *, PetscReal *, const PetscReal *, PetscReal *, PetscBLASInt *);
BLAS_EXTERN void PGXLAPACKsteqr_(const char *, const PetscBLASInt *, PetscReal *, PetscReal *, PetscReal *, const PetscBLASInt *, PetscReal *, PetscBLASInt *);
BLAS_EXTERN void PGXLAPACKlaev2_(const PetscReal *, const PetscReal *, const PetscReal *, PetscReal *, PetscReal *, PetscReal *, PetscReal *);

namespace
{
/* Columns of C per host gemm call: fixed, so that every column of C is computed by the same BLAS call whatever
   the thread count (a BLAS may sum differently for different shapes) */
constexpr PetscInt GEMM_BLOCK = 128;
/* Chunks of the parallel loops: roots, rows of the z-hat products, columns of S; copies of about 64k reals */
constexpr PetscInt ROOT_CHUNK = 32, ROW_CHUNK = 64, COL_CHUNK = 16, COPY_CHUNK = 65536;

double Now()
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* A pool of size()-1 persistent worker threads; Run(nt, f) calls f(t) for t = 0..nt-1, f(0) on the caller, and
   returns when all are done. Only the caller's thread may call Run (no nesting). */
class Pool
{
public:
  explicit Pool(int nthreads)
  {
    for (int id = 1; id < nthreads; id++) {
      try {
        th.emplace_back(&Pool::Worker, this, id);
      } catch (...) { /* no more threads to be had: work with those started */
        break;
      }
    }
  }
  ~Pool()
  {
    {
      std::lock_guard<std::mutex> l(mu);
      stop = true;
    }
    go.notify_all();
    for (auto &t : th) t.join();
  }
  int size() const { return (int)th.size() + 1; }
  /* false when a call of f threw (out of memory in a work array) */
  bool Run(int nt, const std::function<void(int)> &f)
  {
    bool ok = true;
    nt      = std::min(nt, size());
    if (nt <= 1) {
      try {
        f(0);
      } catch (...) {
        ok = false;
      }
      return ok;
    }
    {
      std::lock_guard<std::mutex> l(mu);
      job     = &f;
      njob    = nt;
      pending = nt - 1;
      failed  = false;
      gen++;
    }
    go.notify_all();
    try {
      f(0);
    } catch (...) {
      ok = false;
    }
    std::unique_lock<std::mutex> l(mu);
    done.wait(l, [&] { return pending == 0; });
    job = nullptr;
    return ok && !failed;
  }

private:
  std::vector<std::thread>          th;
  std::mutex                        mu;
  std::condition_variable           go, done;
  const std::function<void(int)> *job = nullptr;
  int                               njob = 0, pending = 0;
  unsigned long                     gen  = 0;
  bool                              stop = false, failed = false;

  void Worker(int id)
  {
    unsigned long seen = 0;
    for (;;) {
      const std::function<void(int)> *f;
      int                             nt;
      {
        std::unique_lock<std::mutex> l(mu);
        go.wait(l, [&] { return stop || gen != seen; });
        if (stop) return;
        seen = gen;
        f    = job;
        nt   = njob;
      }
      if (id >= nt) continue;
      bool bad = false;
      try {
        (*f)(id);
      } catch (...) {
        bad = true;
      }
      {
        std::lock_guard<std::mutex> l(mu);
        if (bad) failed = true;
        if (--pending == 0) done.notify_one();
      }
    }
  }
};

/* f(begin, end) over [0, count) in chunks of `chunk` items claimed in turn by up to nt threads of the pool (a
   thread slowed by others' processes does not hold up the rest); f(0, count) at once when serial. An item's
   result must not depend on which thread computes it. False when a call threw. */
template <class F>
bool ParallelFor(Pool *pool, int nt, PetscInt count, PetscInt chunk, F f)
{
  if (count <= 0) return true;
  chunk = PetscMax(chunk, (PetscInt)1);
  nt    = (int)PetscMin((PetscInt)nt, (count + chunk - 1) / chunk);
  if (pool) nt = std::min(nt, pool->size());
  if (!pool || nt <= 1) {
    try {
      f((PetscInt)0, count);
    } catch (...) {
      return false;
    }
    return true;
  }
  std::atomic<PetscInt>    next(0);
  std::function<void(int)> g = [&](int) {
    for (;;) {
      PetscInt b = next.fetch_add(chunk);
      if (b >= count) break;
      f(b, PetscMin(b + chunk, count));
    }
  };
  return pool->Run(nt, g);
}

struct Merge {
  PetscInt  off, m, n1; /* rows and columns off..off+m-1, torn at n1 */
  PetscReal beta;       /* the torn subdiagonal entry (scaled) */
  int       depth;      /* in the tree of tears (the whole T: 0) */
};

struct Leaf {
  PetscInt off, m;
};

/* One merge's data between its phases. Its work arrays are slabs of the run's buffers starting at column off
   (m x n each; a merge needs at most m x m of each), so the merges of one level do not share any. */
struct MergeState {
  const Merge             *mg = nullptr;
  PetscReal               *D  = nullptr;           /* host, m: the halves' eigenvalues, then the merged ones */
  PetscReal               *Zb = nullptr;           /* the block Z(off:off+m, off:off+m) (backend) */
  PetscReal               *out = nullptr, *Qc = nullptr, *Sd = nullptr; /* backend slabs */
  PetscReal               *hS  = nullptr;          /* host slab: differences, then S (k x k) */
  PetscReal                rho = 0;
  PetscInt                 k   = 0, cnt[4] = {0, 0, 0, 0};
  std::vector<PetscReal>   z, dl, w, wh, lam, tau; /* tau, org: the roots of PGX's root finder (host path) */
  std::vector<PetscInt>    sec, defl, cidx, up, lo, perm, org, iters;
  std::vector<K::Rotation> rot;
  std::vector<PetscBLASInt> info;
};

/* Seconds (wall, on the caller) of each phase of the merges */
enum Phase { PH_Z, PH_DEFLATE, PH_GATHER, PH_ROOTS, PH_VECTORS, PH_GEMM, PH_SORT, PH_COUNT };
const char *const PhaseNames[PH_COUNT] = {"z (download)", "deflation", "rotations+gathers", "secular roots", "z-hat+vectors", "S upload+gemms", "sort+gather"};

/* The run: backend, buffers in the backend's memory, host work arrays, threads */
struct DC {
  bool                   cuda = false;
  bool                   devsec = false; /* PGX's root finder, z-hat and S (stedc_secular.h): on the device on cuda,
                                            the reference kernels on the host; else LAPACK dlaed4 on the host */
  PetscInt               n = 0, leaf = 0;
  int                    threads = 1;
  Pool                  *pool    = nullptr;
  PetscReal             *Z = nullptr;                                 /* n x n, ld n (caller's) */
  PetscReal             *out = nullptr, *Qc = nullptr, *Sd = nullptr; /* n*n each (backend; Sd cuda only) */
  PetscReal             *hS = nullptr;                               /* host n*n: differences, then S */
#if PGX_HAVE_CUDA
  K::cuda::Scratch *scr = nullptr;
#endif
  PGXStedcStats *st = nullptr;
  double         t[PH_COUNT] = {0, 0, 0, 0, 0, 0, 0};
};

/* ------------------------------------------------------------------------------------- backend operations
   On the host backend they run in nt threads of the pool (nt = 1 inside a phase that is parallel over merges:
   then they may be called from a worker and call no PETSc function); on cuda they are called from the caller's
   thread only. */
PetscErrorCode Gather(DC &dc, int nt, PetscInt m, PetscInt ncol, const PetscInt *idx, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  if (m <= 0 || ncol <= 0) return PETSC_SUCCESS;
#if PGX_HAVE_CUDA
  if (dc.cuda) return K::cuda::gather_columns(dc.scr, m, ncol, idx, src, lds, dst, ldd);
#endif
  bool ok = ParallelFor(nt > 1 ? dc.pool : nullptr, nt, ncol, COPY_CHUNK / PetscMax(m, (PetscInt)1), [&](PetscInt p0, PetscInt p1) { K::reference::gather_columns(m, p1 - p0, idx + p0, src, lds, dst + (size_t)p0 * ldd, ldd); });
  return ok ? PETSC_SUCCESS : PETSC_ERR_MEM;
}

PetscErrorCode Rotate(DC &dc, int nt, PetscInt m, PetscInt nrot, const K::Rotation *rot, PetscReal *Q, PetscInt ldq)
{
  if (m <= 0 || nrot <= 0) return PETSC_SUCCESS;
#if PGX_HAVE_CUDA
  if (dc.cuda) return K::cuda::rotate_columns(dc.scr, m, nrot, rot, Q, ldq);
#endif
  /* each row is rotated by the whole chain, in order: rows are independent */
  bool ok = ParallelFor(nt > 1 ? dc.pool : nullptr, nt, m, 512, [&](PetscInt r0, PetscInt r1) { K::reference::rotate_columns(r1 - r0, nrot, rot, Q + r0, ldq); });
  return ok ? PETSC_SUCCESS : PETSC_ERR_MEM;
}

PetscErrorCode Gemm(DC &dc, int nt, PetscInt m, PetscInt n, PetscInt k, const PetscReal *A, PetscInt lda, const PetscReal *B, PetscInt ldb, PetscReal *C, PetscInt ldc)
{
  if (m <= 0 || n <= 0) return PETSC_SUCCESS;
#if PGX_HAVE_CUDA
  if (dc.cuda) return K::cuda::gemm(m, n, k, A, lda, B, ldb, C, ldc);
#endif
  PetscInt nb = (n + GEMM_BLOCK - 1) / GEMM_BLOCK;
  bool     ok = ParallelFor(nt > 1 ? dc.pool : nullptr, nt, nb, 1, [&](PetscInt b0, PetscInt b1) {
    for (PetscInt b = b0; b < b1; b++) {
      PetscInt j0 = b * GEMM_BLOCK, nc = PetscMin(GEMM_BLOCK, n - j0);
      K::reference::gemm(m, nc, k, A, lda, B + (size_t)j0 * ldb, ldb, C + (size_t)j0 * ldc, ldc);
    }
  });
  return ok ? PETSC_SUCCESS : PETSC_ERR_MEM;
}

/* host src -> backend dst (cuda; the host backend uses the host arrays in place) */
PetscErrorCode Upload(DC &dc, PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  if (m <= 0 || n <= 0) return PETSC_SUCCESS;
#if PGX_HAVE_CUDA
  if (dc.cuda) return K::cuda::upload(m, n, src, lds, dst, ldd);
#endif
  K::reference::copy(m, n, src, lds, dst, ldd);
  return PETSC_SUCCESS;
}

/* backend src -> host dst */
PetscErrorCode Download(DC &dc, PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  if (m <= 0 || n <= 0) return PETSC_SUCCESS;
#if PGX_HAVE_CUDA
  if (dc.cuda) return K::cuda::download(m, n, src, lds, dst, ldd);
#endif
  K::reference::copy(m, n, src, lds, dst, ldd);
  return PETSC_SUCCESS;
}

PetscErrorCode Zero(DC &dc, PetscInt m, PetscInt n, PetscReal *A, PetscInt lda)
{
  if (m <= 0 || n <= 0) return PETSC_SUCCESS;
#if PGX_HAVE_CUDA
  if (dc.cuda) return K::cuda::zero(m, n, A, lda);
#endif
  bool ok = ParallelFor(dc.pool, dc.threads, n, COPY_CHUNK / PetscMax(m, (PetscInt)1), [&](PetscInt j0, PetscInt j1) { K::reference::zero(m, j1 - j0, A + (size_t)j0 * lda, lda); });
  return ok ? PETSC_SUCCESS : PETSC_ERR_MEM;
}

/* records the tears (post-order: children before their merge) and the leaves; tears d */
void Tear(PetscInt off, PetscInt m, PetscInt leaf, int depth, PetscReal *d, const PetscReal *e, std::vector<Leaf> &leaves, std::vector<Merge> &merges)
{
  if (m <= leaf) {
    leaves.push_back({off, m});
    return;
  }
  PetscInt  n1 = m / 2;
  PetscReal b  = e[off + n1 - 1];
  d[off + n1 - 1] -= PetscAbsReal(b);
  d[off + n1] -= PetscAbsReal(b);
  Tear(off, n1, leaf, depth + 1, d, e, leaves, merges);
  Tear(off + n1, m - n1, leaf, depth + 1, d, e, leaves, merges);
  merges.push_back({off, m, n1, b, depth});
}

/* ------------------------------------------------------------------------------------- host phases (any thread) */

/* z = [last row of Q1, sign(beta) first row of Q2] (in ms.z), normalized; rho = |beta| ||z||^2; the deflation:
   small components, then close pairs by rotations (column types follow the rotations); the compressed order of
   the undeflated columns (type 1, type 2, type 3, each ascending) */
void Deflate(MergeState &ms)
{
  const PetscInt m = ms.mg->m, n1 = ms.mg->n1;
  PetscReal     *D = ms.D;
  std::vector<PetscReal> &z = ms.z;
  PetscReal      rho = PetscAbsReal(ms.mg->beta), zn = 0, dmax = 0, zmax = 0;

  if (ms.mg->beta < 0)
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
  std::vector<int> type(m);
  for (PetscInt i = 0; i < m; i++) type[i] = i < n1 ? 1 : 3;
  PetscInt pj = -1;
  for (PetscInt q = 0; q < m; q++) {
    PetscInt j = order[q];
    if (rho * PetscAbsReal(z[j]) <= tol) {
      ms.defl.push_back(j);
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
      ms.rot.push_back({pj, j, c, s});
      if (type[pj] != type[j]) type[j] = 2;
      PetscReal dp = D[pj] * c * c + D[j] * s * s;
      D[j]         = D[pj] * s * s + D[j] * c * c;
      D[pj]        = dp;
      ms.defl.push_back(pj);
    } else ms.sec.push_back(pj);
    pj = j;
  }
  if (pj >= 0) ms.sec.push_back(pj);
  ms.k   = (PetscInt)ms.sec.size();
  ms.rho = rho;
  for (int ty = 1; ty <= 3; ty++)
    for (PetscInt s = 0; s < ms.k; s++)
      if (type[ms.sec[s]] == ty) ms.cidx.push_back(s), ms.cnt[ty]++;
  for (PetscInt r = 0; r < ms.cnt[1] + ms.cnt[2]; r++) ms.up.push_back(ms.sec[ms.cidx[r]]);
  for (PetscInt r = ms.cnt[1]; r < ms.k; r++) ms.lo.push_back(ms.sec[ms.cidx[r]]);
  ms.dl.resize(ms.k), ms.w.resize(ms.k), ms.lam.resize(ms.k);
  for (PetscInt s = 0; s < ms.k; s++) ms.dl[s] = D[ms.sec[s]], ms.w[s] = z[ms.sec[s]];
}

/* The roots of the secular equation of D + rho w w^T (k >= 3): lam (ascending); with dlaed4 column j of hS holds
   dl - lam_j, with PGX's root finder (devsec, reference kernels) org and tau hold the roots. k <= 2 is done with
   the vectors. In nt threads of the pool (nt > 1 from the caller's thread only). */
bool Roots(Pool *pool, int nt, MergeState &ms, bool devsec)
{
  const PetscInt k = ms.k;
  if (k <= 2) return true;
  if (devsec) {
    ms.org.resize(k), ms.tau.resize(k), ms.iters.resize(k);
    return ParallelFor(pool, nt, k, ROOT_CHUNK, [&](PetscInt j0, PetscInt j1) { K::reference::secular_roots(k, ms.dl.data(), ms.w.data(), ms.rho, j0, j1, ms.lam.data(), ms.org.data(), ms.tau.data(), ms.iters.data()); });
  }
  PetscBLASInt bk = (PetscBLASInt)k;
  ms.info.assign(k, 0);
  return ParallelFor(pool, nt, k, ROOT_CHUNK, [&](PetscInt j0, PetscInt j1) {
    for (PetscInt j = j0; j < j1; j++) {
      PetscBLASInt jj = (PetscBLASInt)(j + 1);
      PGXLAPACKlaed4_(&bk, &jj, ms.dl.data(), ms.w.data(), ms.hS + (size_t)j * k, &ms.rho, &ms.lam[j], &ms.info[j]);
    }
  });
}

/* The eigenvectors of D + rho w w^T, written into hS (ld k) with rows permuted by cidx: S(r, j) = v_j(cidx[r]) */
bool Vectors(Pool *pool, int nt, MergeState &ms, bool devsec)
{
  const PetscInt   k = ms.k;
  const PetscReal *dl = ms.dl.data(), *w = ms.w.data(), rho = ms.rho;
  const PetscInt  *cidx = ms.cidx.data();
  PetscReal       *S = ms.hS, *lam = ms.lam.data();
  if (k == 0) return true;
  if (k == 1) {
    lam[0] = dl[0] + rho * w[0] * w[0];
    S[0]   = 1;
    return true;
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
    return true;
  }
  ms.wh.resize(k);
  if (devsec) { /* the reference kernels of the device path: z-hat rows, then columns */
    PetscReal *wh = ms.wh.data();
    bool       ok = ParallelFor(pool, nt, k, ROW_CHUNK, [&](PetscInt i0, PetscInt i1) { K::reference::secular_zhat(k, dl, w, ms.org.data(), ms.tau.data(), i0, i1, wh); });
    return ok && ParallelFor(pool, nt, k, COL_CHUNK, [&](PetscInt j0, PetscInt j1) { K::reference::secular_vectors(k, dl, wh, ms.org.data(), ms.tau.data(), cidx, j0, j1, S, k); });
  }
  /* Gu-Eisenstat: wh_i^2 = -(dl_i - lam_i) prod_{j != i} (dl_i - lam_j) / (dl_i - dl_j), the product in the
     order of j, computed column by column (contiguous) by threads that own a range of i */
  PetscReal *wh = ms.wh.data();
  bool       ok = ParallelFor(pool, nt, k, ROW_CHUNK, [&](PetscInt i0, PetscInt i1) {
    for (PetscInt i = i0; i < i1; i++) wh[i] = -S[i + (size_t)i * k];
    for (PetscInt j = 0; j < k; j++) {
      const PetscReal *c  = S + (size_t)j * k;
      const PetscReal  dj = dl[j];
      for (PetscInt i = i0; i < i1; i++)
        if (i != j) wh[i] *= c[i] / (dl[i] - dj);
    }
    for (PetscInt i = i0; i < i1; i++) wh[i] = std::copysign(PetscSqrtReal(PetscAbsReal(wh[i])), w[i]);
  });
  /* S(:, j) = wh ./ (dl - lam_j), normalized, rows permuted by cidx */
  ok = ok && ParallelFor(pool, nt, k, COL_CHUNK, [&](PetscInt j0, PetscInt j1) {
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
  return ok;
}

/* ascending order of all m eigenvalues (into D); perm: the columns of out in that order */
void Sort(MergeState &ms)
{
  const PetscInt m = ms.mg->m, k = ms.k;
  std::vector<PetscReal> all(m);
  for (PetscInt s = 0; s < k; s++) all[s] = ms.lam[s];
  for (PetscInt q = 0; q < m - k; q++) all[k + q] = ms.D[ms.defl[q]];
  ms.perm.resize(m);
  std::iota(ms.perm.begin(), ms.perm.end(), (PetscInt)0);
  std::stable_sort(ms.perm.begin(), ms.perm.end(), [&](PetscInt a, PetscInt b) { return all[a] < all[b]; });
  for (PetscInt q = 0; q < m; q++) ms.D[q] = all[ms.perm[q]];
}

/* ------------------------------------------------------------------------------------- backend phases */

/* the rotations, then the gathers: the undeflated columns into Qup (n1 x |up|) and Qlo (n2 x |lo|) at Qc, the
   deflated ones into out(:, k:m) (ld m) */
PetscErrorCode RotateGather(DC &dc, int nt, MergeState &ms)
{
  const PetscInt m = ms.mg->m, n1 = ms.mg->n1, n2 = m - n1, n = dc.n, k = ms.k;
  PetscErrorCode ierr;
  ierr = Rotate(dc, nt, m, (PetscInt)ms.rot.size(), ms.rot.data(), ms.Zb, n);
  if (!ierr) ierr = Gather(dc, nt, n1, (PetscInt)ms.up.size(), ms.up.data(), ms.Zb, n, ms.Qc, n1);
  if (!ierr) ierr = Gather(dc, nt, n2, (PetscInt)ms.lo.size(), ms.lo.data(), ms.Zb + n1, n, ms.Qc + (size_t)n1 * ms.up.size(), n2);
  if (!ierr) ierr = Gather(dc, nt, m, m - k, ms.defl.data(), ms.Zb, n, ms.out + (size_t)k * m, m);
  return ierr;
}

/* the eigenvectors Q S: two gemms, out(0:n1, 0:k) = Qup S(0:k1+k2, :) and out(n1:m, 0:k) = Qlo S(k1:k, :) */
PetscErrorCode MultiplyS(DC &dc, int nt, MergeState &ms)
{
  const PetscInt m = ms.mg->m, n1 = ms.mg->n1, n2 = m - n1, k = ms.k;
  PetscErrorCode ierr = PETSC_SUCCESS;
  if (k == 0) return ierr;
  const PetscReal *S = ms.hS;
  if (dc.cuda && dc.devsec && k >= 3) S = ms.Sd; /* formed there by secular_vectors */
  else if (dc.cuda) {
    ierr = Upload(dc, k, k, ms.hS, k, ms.Sd, k);
    S    = ms.Sd;
  }
  if (!ierr) ierr = Gemm(dc, nt, n1, k, (PetscInt)ms.up.size(), ms.Qc, n1, S, k, ms.out, m);
  if (!ierr) ierr = Gemm(dc, nt, n2, k, (PetscInt)ms.lo.size(), ms.Qc + (size_t)n1 * ms.up.size(), n2, S + ms.cnt[1], k, ms.out + n1, m);
  return ierr;
}

/* ------------------------------------------------------------------------------------- a level of merges */

/* phase f(ms, nt) over the merges: over the merges in parallel when there are at least as many as threads
   (host work only: pure functions, nt = 1 inside), else merge by merge with nt threads inside */
template <class F>
PetscErrorCode ForMerges(DC &dc, std::vector<MergeState> &ms, bool hostonly, Phase ph, F f)
{
  double   t0 = Now();
  PetscInt cnt = (PetscInt)ms.size();

  PetscFunctionBegin;
  if (hostonly && cnt > 1 && cnt >= dc.threads) {
    std::vector<PetscErrorCode> err(cnt, PETSC_SUCCESS);
    bool ok = ParallelFor(dc.pool, dc.threads, cnt, 1, [&](PetscInt i0, PetscInt i1) {
      for (PetscInt i = i0; i < i1; i++) err[i] = f(ms[i], 1);
    });
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_MEM, "A host thread of the divide and conquer ran out of memory (%s)", PhaseNames[ph]);
    for (PetscInt i = 0; i < cnt; i++) PetscCheck(err[i] == PETSC_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_MEM, "A host thread of the divide and conquer ran out of memory (%s)", PhaseNames[ph]);
  } else {
    for (PetscInt i = 0; i < cnt; i++) {
      PetscErrorCode ierr = f(ms[i], dc.threads);
      PetscCheck(ierr != PETSC_ERR_MEM || dc.cuda, PETSC_COMM_SELF, PETSC_ERR_MEM, "A host thread of the divide and conquer ran out of memory (%s)", PhaseNames[ph]);
      PetscCall(ierr);
    }
  }
  dc.t[ph] += Now() - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The merges [first, last) of one depth (independent), phase by phase */
PetscErrorCode DoLevel(DC &dc, const Merge *first, const Merge *last, PetscReal *dd)
{
  const PetscInt          n   = dc.n;
  const bool              hb  = !dc.cuda; /* backend phases are host work too */
  PetscInt                cnt = (PetscInt)(last - first);
  std::vector<MergeState> ms(cnt);
  double                  lt[PH_COUNT];

  PetscFunctionBegin;
  for (int p = 0; p < PH_COUNT; p++) lt[p] = dc.t[p];
  for (PetscInt i = 0; i < cnt; i++) {
    const Merge &mg = first[i];
    MergeState  &s  = ms[i];
    s.mg            = &mg;
    s.D             = dd + mg.off;
    s.Zb            = dc.Z + mg.off + (size_t)mg.off * n;
    s.out           = dc.out + (size_t)mg.off * n;
    s.Qc            = dc.Qc + (size_t)mg.off * n;
    s.Sd            = dc.cuda ? dc.Sd + (size_t)mg.off * n : nullptr;
    s.hS            = dc.hS + (size_t)mg.off * n;
  }
  /* z: the last row of Q1 and the first row of Q2 (on cuda: waits for the previous level's device work) */
  PetscCall(ForMerges(dc, ms, hb, PH_Z, [&](MergeState &s, int) -> PetscErrorCode {
    const PetscInt n1 = s.mg->n1, n2 = s.mg->m - n1;
    s.z.resize(s.mg->m);
    PetscErrorCode ierr = Download(dc, 1, n1, s.Zb + (n1 - 1), n, s.z.data(), 1);
    if (!ierr) ierr = Download(dc, 1, n2, s.Zb + n1 + (size_t)n1 * n, n, s.z.data() + n1, 1);
    return ierr;
  }));
  PetscCall(ForMerges(dc, ms, true, PH_DEFLATE, [&](MergeState &s, int) -> PetscErrorCode {
    Deflate(s);
    return PETSC_SUCCESS;
  }));
  /* the backend's rotations and gathers (on cuda queued: they overlap the secular equations) */
  PetscCall(ForMerges(dc, ms, hb, PH_GATHER, [&](MergeState &s, int nt) -> PetscErrorCode { return RotateGather(dc, nt, s); }));
  const bool ds = dc.cuda && dc.devsec; /* the secular phases on the device: from the caller's thread */
  PetscCall(ForMerges(dc, ms, !ds, PH_ROOTS, [&](MergeState &s, int nt) -> PetscErrorCode {
#if PGX_HAVE_CUDA
    if (ds) return s.k >= 3 ? K::cuda::secular_roots(dc.scr, s.mg->off, s.k, s.dl.data(), s.w.data(), s.rho, s.lam.data()) : PETSC_SUCCESS;
#endif
    return Roots(nt > 1 ? dc.pool : nullptr, nt, s, dc.devsec) ? PETSC_SUCCESS : PETSC_ERR_MEM;
  }));
  for (PetscInt i = 0; i < cnt; i++)
    for (PetscInt j = 0; j < (PetscInt)ms[i].info.size(); j++) PetscCheck(ms[i].info[j] == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dlaed4 failed for root %" PetscInt_FMT " of a secular equation of order %" PetscInt_FMT ": info %d", j + 1, ms[i].k, (int)ms[i].info[j]);
  PetscCall(ForMerges(dc, ms, !ds, PH_VECTORS, [&](MergeState &s, int nt) -> PetscErrorCode {
#if PGX_HAVE_CUDA
    if (ds && s.k >= 3) return K::cuda::secular_vectors(dc.scr, s.mg->off, s.k, s.cidx.data(), s.Sd, s.k);
#endif
    return Vectors(nt > 1 ? dc.pool : nullptr, nt, s, dc.devsec) ? PETSC_SUCCESS : PETSC_ERR_MEM;
  }));
  PetscCall(ForMerges(dc, ms, hb, PH_GEMM, [&](MergeState &s, int nt) -> PetscErrorCode { return MultiplyS(dc, nt, s); }));
  PetscCall(ForMerges(dc, ms, hb, PH_SORT, [&](MergeState &s, int nt) -> PetscErrorCode {
    Sort(s);
    return Gather(dc, nt, s.mg->m, s.mg->m, s.perm.data(), s.out, s.mg->m, s.Zb, n);
  }));
  {
    PetscInt ksum = 0, msum = 0, kmax = 0, itmax = 0;
    for (const MergeState &s : ms) ksum += s.k, msum += s.mg->m, kmax = PetscMax(kmax, s.k);
    for (const MergeState &s : ms)
      for (PetscInt it : s.iters) itmax = PetscMax(itmax, it);
    for (const MergeState &s : ms) dc.st->flops += 2.0 * s.k * ((PetscLogDouble)s.mg->n1 * s.up.size() + (PetscLogDouble)(s.mg->m - s.mg->n1) * s.lo.size());
    dc.st->merges += cnt;
    dc.st->secular += ksum;
    dc.st->deflated += msum - ksum;
    PetscCall(PetscInfo(NULL, "divide and conquer, depth %d: %" PetscInt_FMT " merge%s of order %" PetscInt_FMT "%s, secular orders %" PetscInt_FMT " (largest %" PetscInt_FMT "), %" PetscInt_FMT " deflated (%s); secular equations %s%s; seconds: z %.4f, deflation %.4f, rotations+gathers %.4f, roots %.4f, z-hat+vectors %.4f, S upload+gemms %.4f, sort+gather %.4f\n", first->depth, cnt, cnt > 1 ? "s" : "", first->m, cnt > 1 ? " or so" : "", ksum, kmax, msum - ksum,
                           cnt > 1 && cnt >= dc.threads ? "merges side by side" : "threads inside each merge", ds ? "on the device" : (dc.devsec ? "by the reference kernels of the device path" : "by dlaed4"), itmax > 0 ? (std::string(", at most ") + std::to_string((long long)itmax) + " iterations a root").c_str() : "", dc.t[PH_Z] - lt[PH_Z], dc.t[PH_DEFLATE] - lt[PH_DEFLATE], dc.t[PH_GATHER] - lt[PH_GATHER], dc.t[PH_ROOTS] - lt[PH_ROOTS], dc.t[PH_VECTORS] - lt[PH_VECTORS], dc.t[PH_GEMM] - lt[PH_GEMM], dc.t[PH_SORT] - lt[PH_SORT]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode PGXStedcDefaultThreads(PetscInt *threads)
{
  PetscInt hw = (PetscInt)std::thread::hardware_concurrency(), avail = hw;

  PetscFunctionBegin;
#if defined(__linux__) && defined(CPU_COUNT)
  {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0) avail = hw > 0 ? PetscMin(hw, (PetscInt)CPU_COUNT(&set)) : (PetscInt)CPU_COUNT(&set);
  }
#endif
  *threads = PetscMax((PetscInt)1, PetscMin((PetscInt)PGX_STEDC_MAX_THREADS, avail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *const PGXStedcSeculars[] = {"auto", "host", "device", "PGXStedcSecular", "PGX_STEDC_SECULAR_", NULL};

PetscErrorCode PGXStedcRun(PGXDeviceType type, PGXStedcSecular secular, PetscInt leaf, PetscInt threads, PetscInt n, PetscReal d[], const PetscReal e[], PetscReal *Z, PGXStedcStats *stats)
{
  DC             dc;
  PGXStedcStats  st = {0, 0, 0, 0, 0, 0};
  PetscBLASInt   bn;
  PetscErrorCode ierr = PETSC_SUCCESS;
  double         t0 = Now(), tl;

  PetscFunctionBegin;
  if (stats) *stats = st;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCheck(type == PGX_DEVICE_HOST || type == PGX_DEVICE_CUDA, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PGXStedcRun needs a resolved device type");
#if !PGX_HAVE_CUDA
  PetscCheck(type == PGX_DEVICE_HOST, PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of the divide and conquer eigensolver is not available in this build: use -pgx_device host");
#endif
  if (threads <= 0) PetscCall(PGXStedcDefaultThreads(&threads));
  dc.cuda    = type == PGX_DEVICE_CUDA;
  dc.devsec  = secular == PGX_STEDC_SECULAR_DEVICE || (secular == PGX_STEDC_SECULAR_AUTO && dc.cuda);
  dc.n       = n;
  dc.leaf    = leaf > 0 ? leaf : PGX_STEDC_DEFAULT_LEAF;
  dc.threads = (int)PetscMin(threads, (PetscInt)PGX_STEDC_MAX_THREADS);
  dc.Z       = Z;
  dc.st      = &st;

  /* scale T to max |entry| = 1 (as dstedc), tear it */
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
  Tear(0, n, dc.leaf, 0, dd.data(), ee.data(), leaves, merges);
  /* the merges by depth, deepest first (each level's children are done before it); stable: post-order within */
  std::stable_sort(merges.begin(), merges.end(), [](const Merge &a, const Merge &b) { return a.depth > b.depth; });

  Pool pool(dc.threads > 1 && n > dc.leaf ? dc.threads : 1);
  dc.pool    = &pool;
  dc.threads = pool.size();

  /* the leaves: dsteqr, in parallel (on the host backend straight into Z) */
  PetscCall(Zero(dc, n, n, Z, n));
  {
    std::vector<size_t> at(leaves.size() + 1, 0);
    if (dc.cuda)
      for (size_t l = 0; l < leaves.size(); l++) at[l + 1] = at[l] + (size_t)leaves[l].m * leaves[l].m;
    std::vector<PetscReal>    L(at.back());
    std::vector<PetscBLASInt> info(leaves.size(), 0);
    bool                      ok = ParallelFor(dc.pool, dc.threads, (PetscInt)leaves.size(), 1, [&](PetscInt l0, PetscInt l1) {
      std::vector<PetscReal> el(dc.leaf), work(2 * dc.leaf);
      for (PetscInt l = l0; l < l1; l++) {
        PetscBLASInt bm = (PetscBLASInt)leaves[l].m, ldl = dc.cuda ? bm : bn;
        PetscInt     o  = leaves[l].off;
        for (PetscInt i = 0; i < leaves[l].m - 1; i++) el[i] = ee[o + i];
        PGXLAPACKsteqr_("I", &bm, dd.data() + o, el.data(), dc.cuda ? L.data() + at[l] : Z + o + (size_t)o * n, &ldl, work.data(), &info[l]);
      }
    });
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_MEM, "A host thread of the divide and conquer ran out of memory (leaves)");
    for (size_t l = 0; l < leaves.size(); l++) PetscCheck(info[l] == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dsteqr failed on the leaf of rows %" PetscInt_FMT "..%" PetscInt_FMT ": info %d", leaves[l].off, leaves[l].off + leaves[l].m - 1, (int)info[l]);
    if (dc.cuda)
      for (size_t l = 0; l < leaves.size(); l++) PetscCall(Upload(dc, leaves[l].m, leaves[l].m, L.data() + at[l], leaves[l].m, Z + leaves[l].off + (size_t)leaves[l].off * n, n));
    st.leaves = (PetscInt)leaves.size();
  }
  tl = Now();

  /* the merges, a level at a time; buffers of the backend for the largest */
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
    /* host arrays not initialized (a merge writes what it reads): no 3 n^2 stores before the work */
    std::unique_ptr<PetscReal[]> hS, hout, hQc;
    if (!ierr) {
      hS.reset(new (std::nothrow) PetscReal[nn]);
      if (!dc.cuda) hout.reset(new (std::nothrow) PetscReal[nn]), hQc.reset(new (std::nothrow) PetscReal[nn]);
      if (!hS || (!dc.cuda && (!hout || !hQc))) ierr = PETSC_ERR_MEM;
    }
    dc.hS = hS.get();
    if (!dc.cuda) dc.out = hout.get(), dc.Qc = hQc.get();
    for (size_t a = 0; !ierr && a < merges.size();) {
      size_t b = a;
      while (b < merges.size() && merges[b].depth == merges[a].depth) b++;
      ierr = DoLevel(dc, merges.data() + a, merges.data() + b, dd.data());
      a    = b;
    }
#if PGX_HAVE_CUDA
    if (dc.cuda) {
      PetscCall(PGXDeviceFree(&dc.out));
      PetscCall(PGXDeviceFree(&dc.Qc));
      PetscCall(PGXDeviceFree(&dc.Sd));
      PetscCall(K::cuda::destroy(&dc.scr));
    }
#endif
    PetscCheck(ierr != PETSC_ERR_MEM, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of host memory for the divide and conquer work arrays (3 n^2 reals, n = %" PetscInt_FMT ")", n);
    PetscCall(ierr);
  }
  for (PetscInt i = 0; i < n; i++) d[i] = scale > 0 ? dd[i] * scale : dd[i];
  {
    double tend = Now(), tm = tend - tl, tp = 0;
    for (int p = 0; p < PH_COUNT; p++) tp += dc.t[p];
    st.thost = dc.t[PH_DEFLATE] + dc.t[PH_GATHER] + dc.t[PH_SORT] + (dc.cuda && dc.devsec ? 0 : dc.t[PH_ROOTS] + dc.t[PH_VECTORS]);
    PetscCall(PetscInfo(NULL, "divide and conquer of order %" PetscInt_FMT " (%s backend, secular equations %s, %d host threads%s): %.4f s; leaves %.4f s (%" PetscInt_FMT " of at most %" PetscInt_FMT "), merges %.4f s (%" PetscInt_FMT "): z %.0f%%, deflation %.0f%%, rotations+gathers %.0f%%, secular roots %.0f%%, z-hat+vectors %.0f%%, S upload+gemms %.0f%%, sort+gather %.0f%%, other %.0f%%\n", n, dc.cuda ? "cuda" : "host", dc.devsec ? (dc.cuda ? "on the device" : "by the reference kernels of the device path") : "by dlaed4 on the host", dc.threads, dc.cuda ? (dc.devsec ? "; the device's gathers, S and gemms are queued: their time shows in the next roots (lambda download) or z download" : "; the device's gathers and gemms are queued: their time shows in the next z download and S upload") : "", tend - t0, tl - t0, st.leaves, dc.leaf, tm, st.merges,
                          100 * dc.t[PH_Z] / PetscMax(tm, 1e-300), 100 * dc.t[PH_DEFLATE] / PetscMax(tm, 1e-300), 100 * dc.t[PH_GATHER] / PetscMax(tm, 1e-300), 100 * dc.t[PH_ROOTS] / PetscMax(tm, 1e-300), 100 * dc.t[PH_VECTORS] / PetscMax(tm, 1e-300), 100 * dc.t[PH_GEMM] / PetscMax(tm, 1e-300), 100 * dc.t[PH_SORT] / PetscMax(tm, 1e-300), 100 * (tm - tp) / PetscMax(tm, 1e-300)));
  }
  if (stats) *stats = st;
  PetscFunctionReturn(PETSC_SUCCESS);
}
