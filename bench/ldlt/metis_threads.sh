#!/bin/bash
# bench/ldlt/metis_threads.sh [m] [reps] [depth]: can the leaves of a nested dissection be ordered by concurrent
# METIS_NodeND calls (issue 8, -mat_pgx_ldlt_nd_threads)? And what would top-level dissection give?
#   1. splits the 7-point Poisson graph m^3 with METIS_ComputeVertexSeparator, orders both halves with METIS_NodeND
#      serially (reference), serially again, and on two std::threads at once, reps times, and counts the runs
#      whose permutations differ from the reference;
#   2. the cause: METIS_NodeND alone while another thread calls rand() (Debian's METIS 5.1 draws its random
#      numbers from libc's rand()/srand(), one state for the whole process);
#   3. with the leaves ordered serially (so deterministically): nested dissection of depth 1..depth (2^d leaves,
#      each ordered by METIS_NodeND, separators numbered last) against one METIS_NodeND call: time of the
#      separators (the serial part), sum and largest leaf time (the ideal time with 2^d threads is their sum),
#      nnz(L) with the diagonal and the Cholesky flops (sum of squared column counts).
# It links METIS directly, so it is not one of the makefile's programs: it compiles itself into $BUILD (build).
set -e
BUILD=${BUILD:-build}
mkdir -p "$BUILD/bench/ldlt"
src="$BUILD/bench/ldlt/metis_threads.cxx"
cat > "$src" <<'CXX'
#include <metis.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
typedef std::vector<idx_t> V;
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static void poisson(int m, V &xadj, V &adj)
{
  xadj.assign(1, 0);
  adj.clear();
  for (int k = 0; k < m; k++)
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++) {
        int id = i + m * (j + m * k);
        if (k > 0) adj.push_back(id - m * m);
        if (j > 0) adj.push_back(id - m);
        if (i > 0) adj.push_back(id - 1);
        if (i < m - 1) adj.push_back(id + 1);
        if (j < m - 1) adj.push_back(id + m);
        if (k < m - 1) adj.push_back(id + m * m);
        xadj.push_back(adj.size());
      }
}
/* subgraph induced by the vertices verts (global ids); loc: scratch of size n, -1 on entry and exit */
static void sub(const V &xadj, const V &adj, const V &verts, V &loc, V &sx, V &sa)
{
  for (size_t i = 0; i < verts.size(); i++) loc[verts[i]] = i;
  sx.assign(1, 0);
  sa.clear();
  for (idx_t v : verts) {
    for (idx_t k = xadj[v]; k < xadj[v + 1]; k++)
      if (loc[adj[k]] >= 0) sa.push_back(loc[adj[k]]);
    sx.push_back(sa.size());
  }
  for (idx_t v : verts) loc[v] = -1;
}
static V nd(V x, V a)
{
  idx_t n = x.size() - 1, opt[METIS_NOPTIONS];
  METIS_SetDefaultOptions(opt);
  opt[METIS_OPTION_NUMBERING] = 0;
  V p(n), ip(n);
  if (n == 0) return p;
  if (METIS_NodeND(&n, x.data(), a.data(), NULL, opt, p.data(), ip.data()) != METIS_OK) abort();
  return p;
}
/* separator of the subgraph: part[i] in {0, 1, 2 (separator)} */
static V sep(V x, V a)
{
  idx_t n = x.size() - 1, opt[METIS_NOPTIONS], ssz;
  METIS_SetDefaultOptions(opt);
  opt[METIS_OPTION_NUMBERING] = 0;
  V part(n);
  if (METIS_ComputeVertexSeparator(&n, x.data(), a.data(), NULL, opt, &ssz, part.data()) != METIS_OK) abort();
  return part;
}
static double tsep, tleafsum, tleafmax;
/* nested dissection of the vertices verts to depth d; appends the new order (global ids) to perm */
static void ndrec(const V &xadj, const V &adj, const V &verts, int d, V &loc, V &perm)
{
  V sx, sa;
  sub(xadj, adj, verts, loc, sx, sa);
  if (d == 0 || verts.size() < 1000) {
    double t = now();
    V p      = nd(sx, sa);
    t        = now() - t;
    tleafsum += t;
    if (t > tleafmax) tleafmax = t;
    for (idx_t k : p) perm.push_back(verts[k]);
    return;
  }
  double t = now();
  V part   = sep(sx, sa);
  tsep += now() - t;
  V va, vb, vs;
  for (size_t i = 0; i < verts.size(); i++) (part[i] == 0 ? va : part[i] == 1 ? vb : vs).push_back(verts[i]);
  ndrec(xadj, adj, va, d - 1, loc, perm);
  ndrec(xadj, adj, vb, d - 1, loc, perm);
  for (idx_t v : vs) perm.push_back(v);
}
/* nnz(L) (with the diagonal) and Cholesky flops (sum of c_j^2, c_j = column count with the diagonal) */
static void fill(const V &xadj, const V &adj, const V &perm, double *nnzl, double *flops)
{
  idx_t n = xadj.size() - 1;
  V     ip(n), parent(n, -1), anc(n, -1), mark(n, -1), cnt(n, 1);
  for (idx_t k = 0; k < n; k++) ip[perm[k]] = k;
  for (idx_t i = 0; i < n; i++) { /* etree (Liu, path compression) */
    idx_t v = perm[i];
    for (idx_t k = xadj[v]; k < xadj[v + 1]; k++) {
      idx_t j = ip[adj[k]];
      while (j != -1 && j < i) {
        idx_t nx = anc[j];
        anc[j]   = i;
        if (nx == -1) parent[j] = i;
        j = nx;
      }
    }
  }
  for (idx_t i = 0; i < n; i++) { /* row subtrees */
    idx_t v = perm[i];
    mark[i] = i;
    for (idx_t k = xadj[v]; k < xadj[v + 1]; k++)
      for (idx_t j = ip[adj[k]]; j < i && mark[j] != i; j = parent[j]) {
        mark[j] = i;
        cnt[j]++;
      }
  }
  *nnzl = *flops = 0;
  for (idx_t j = 0; j < n; j++) {
    *nnzl += cnt[j];
    *flops += (double)cnt[j] * cnt[j];
  }
}
int main(int argc, char **argv)
{
  int m = argc > 1 ? atoi(argv[1]) : 30, reps = argc > 2 ? atoi(argv[2]) : 10, maxd = argc > 3 ? atoi(argv[3]) : 4;
  V   xadj, adj;
  poisson(m, xadj, adj);
  idx_t n = xadj.size() - 1;
  V     loc(n, -1), all(n);
  for (idx_t i = 0; i < n; i++) all[i] = i;
  /* 1 */
  V part = sep(xadj, adj), va, vb, ax, aa, bx, ba;
  for (idx_t i = 0; i < n; i++)
    if (part[i] < 2) (part[i] == 0 ? va : vb).push_back(i);
  sub(xadj, adj, va, loc, ax, aa);
  sub(xadj, adj, vb, loc, bx, ba);
  V   ra = nd(ax, aa), rb = nd(bx, ba);
  int bad_serial = 0, bad_conc = 0, bad_rand = 0;
  for (int r = 0; r < reps; r++) {
    if (nd(ax, aa) != ra || nd(bx, ba) != rb) bad_serial++;
    V           pa, pb;
    std::thread t1([&] { pa = nd(ax, aa); }), t2([&] { pb = nd(bx, ba); });
    t1.join();
    t2.join();
    if (pa != ra || pb != rb) bad_conc++;
    /* 2 */
    std::atomic<bool> stop(false);
    std::thread       t3([&] { while (!stop) (void)rand(); });
    V                 pc = nd(ax, aa);
    stop                 = true;
    t3.join();
    if (pc != ra) bad_rand++;
  }
  printf("poisson %d^3: halves %zu and %zu vertices\n", m, va.size(), vb.size());
  printf("serial METIS_NodeND repeated: %d of %d runs differ\n", bad_serial, reps);
  printf("two METIS_NodeND on two threads: %d of %d runs differ from the serial ones\n", bad_conc, reps);
  printf("serial METIS_NodeND while another thread calls rand(): %d of %d runs differ\n", bad_rand, reps);
  /* 3 */
  double t = now(), nnz0, fl0;
  V      p0 = nd(xadj, adj);
  t         = now() - t;
  fill(xadj, adj, p0, &nnz0, &fl0);
  printf("depth 0 (METIS_NodeND): %.2f s, nnz(L) %.4g, flops %.4g\n", t, nnz0, fl0);
  for (int d = 1; d <= maxd; d++) {
    V perm;
    tsep = tleafsum = tleafmax = 0;
    ndrec(xadj, adj, all, d, loc, perm);
    double nnzl, fl;
    fill(xadj, adj, perm, &nnzl, &fl);
    printf("depth %d (%d leaves): separators %.2f s, leaves sum %.2f s, largest %.2f s; ideal time with %d threads %.2f s; nnz(L) %.4g (%+.1f%%), flops %.4g (%+.1f%%)\n", d, 1 << d, tsep, tleafsum, tleafmax, 1 << d, tsep + tleafmax, nnzl, 100 * (nnzl / nnz0 - 1), fl, 100 * (fl / fl0 - 1));
  }
  return 0;
}
CXX
${CXX:-g++} -O2 -std=c++17 -Wall -Wextra "$src" -o "$BUILD/bench/ldlt/metis_threads" -lmetis -pthread
exec "$BUILD/bench/ldlt/metis_threads" "${1:-30}" "${2:-10}" "${3:-4}"
