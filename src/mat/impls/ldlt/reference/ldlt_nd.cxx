/* Nested dissection on METIS in forked child processes (ldlt_nd.h says what and why). */
#include "../ldlt_nd.h"
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <signal.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace pgx
{
namespace kernels
{
namespace ldlt
{
namespace nd
{
int Depth(PetscInt64 n)
{
  int d = 0;
  if (n < 32768) return 0; /* METIS_NodeND takes less than 0.1 s */
  while (d < 5 && (n >> d) > 16384) d++;
  return d;
}

namespace
{
double Now()
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* a part of the dissection tree: its vertices (of G, increasing), its induced subgraph, and what became of it */
struct Node {
  std::vector<idx_t> verts;         /* vertices of G (empty for the root: all of them) */
  std::vector<idx_t> sx, sa, sw;    /* induced subgraph, local numbering, and its vertex weights (the root uses G itself) */
  const idx_t       *x = NULL, *a = NULL, *w = NULL; /* w: NULL when G is not compressed */
  idx_t              nv    = 0;
  int                depth = 0;      /* depth left */
  bool               leaf  = false;
  std::vector<idx_t> result;        /* separator: part of each vertex (0, 1, 2); leaf: METIS_NodeND's perm */
  int                child[2] = {-1, -1};
  double             seconds = 0, path = 0; /* time of its call; time of the calls from the root to it */
};

/* the shared region of one call that runs in a child: header, then nv results */
struct Shared {
  int    done;    /* set last, with release order, when result[] is complete */
  int    status;  /* METIS's return status */
  double seconds; /* time of the call in the child */
};

size_t SharedBytes(idx_t nv)
{
  return sizeof(Shared) + sizeof(idx_t) * (size_t)(nv > 0 ? nv : 1);
}

idx_t *SharedResult(Shared *s)
{
  return (idx_t *)(s + 1);
}

/* the METIS call of a node, writing its nv results into out; METIS only, usable in a child */
int Call(const Node &nd, idx_t *out)
{
  idx_t nv = nd.nv, options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  if (nd.x[nv] == 0) { /* no edges: any order has no fill (METIS is not asked) */
    if (nd.leaf)
      for (idx_t i = 0; i < nv; i++) out[i] = i;
    else
      for (idx_t i = 0; i < nv; i++) out[i] = i < nv / 2 ? 0 : 1;
    return METIS_OK;
  }
  if (nd.leaf) {
    std::vector<idx_t> iperm((size_t)nv);
    return METIS_NodeND(&nv, (idx_t *)nd.x, (idx_t *)nd.a, (idx_t *)nd.w, options, out, iperm.data());
  }
  idx_t sepsize = 0;
  return METIS_ComputeVertexSeparator(&nv, (idx_t *)nd.x, (idx_t *)nd.a, (idx_t *)nd.w, options, &sepsize, out);
}

bool Valid(const Node &nd, const idx_t *r)
{
  if (nd.leaf) {
    std::vector<char> seen((size_t)nd.nv, 0);
    for (idx_t i = 0; i < nd.nv; i++) {
      if (r[i] < 0 || r[i] >= nd.nv || seen[r[i]]) return false;
      seen[r[i]] = 1;
    }
  } else {
    for (idx_t i = 0; i < nd.nv; i++)
      if (r[i] < 0 || r[i] > 2) return false;
  }
  return true;
}

/* METIS_NodeND's compression, done once before the dissection (METIS_ComputeVertexSeparator does not compress):
   vertices with the same closed neighbourhood (the unknowns of one mesh node of a vector problem) become one
   vertex whose weight is their number, when that leaves fewer than 85% of the vertices. Groups are numbered in
   increasing order of their smallest vertex; gptr/gind list each group's vertices in increasing order. */
bool Compress(idx_t n, const idx_t *xadj, const idx_t *adj, std::vector<idx_t> &cx, std::vector<idx_t> &ca, std::vector<idx_t> &cw, std::vector<idx_t> &gptr, std::vector<idx_t> &gind)
{
  std::vector<std::pair<long long, idx_t>> keys((size_t)n);
  std::vector<idx_t>                       rep((size_t)n, -1), mark((size_t)n, -1), cid((size_t)n, -1);
  idx_t                                    ncv = 0;

  for (idx_t v = 0; v < n; v++) {
    long long k = v;
    for (idx_t e = xadj[v]; e < xadj[v + 1]; e++) k += adj[e];
    keys[v] = {k, v};
  }
  std::sort(keys.begin(), keys.end());
  for (idx_t i = 0; i < n; i++) {
    idx_t v = keys[i].second;
    if (rep[v] >= 0) continue;
    rep[v]  = v;
    mark[v] = v;
    for (idx_t e = xadj[v]; e < xadj[v + 1]; e++) mark[adj[e]] = v;
    for (idx_t j = i + 1; j < n && keys[j].first == keys[i].first; j++) {
      idx_t u = keys[j].second;
      if (rep[u] >= 0 || xadj[u + 1] - xadj[u] != xadj[v + 1] - xadj[v] || mark[u] != v) continue;
      bool same = true;
      for (idx_t e = xadj[u]; e < xadj[u + 1] && same; e++) same = mark[adj[e]] == v;
      if (same) rep[u] = v;
    }
  }
  for (idx_t v = 0; v < n; v++)
    if (rep[v] == v) cid[v] = ncv++;
  if (ncv >= 0.85 * n) return false;
  gptr.assign((size_t)ncv + 1, 0);
  gind.resize((size_t)n);
  for (idx_t v = 0; v < n; v++) gptr[cid[rep[v]] + 1]++;
  for (idx_t g = 0; g < ncv; g++) gptr[g + 1] += gptr[g];
  {
    std::vector<idx_t> next(gptr.begin(), gptr.end() - 1);
    for (idx_t v = 0; v < n; v++) gind[next[cid[rep[v]]]++] = v;
  }
  cx.assign((size_t)ncv + 1, 0);
  cw.resize((size_t)ncv);
  ca.clear();
  std::fill(mark.begin(), mark.end(), -1);
  for (idx_t g = 0; g < ncv; g++) {
    idx_t v = gind[gptr[g]];
    cw[g]   = gptr[g + 1] - gptr[g];
    mark[g] = g;
    for (idx_t e = xadj[v]; e < xadj[v + 1]; e++) {
      idx_t h = cid[rep[adj[e]]];
      if (mark[h] != g) {
        mark[h] = g;
        ca.push_back(h);
      }
    }
    cx[g + 1] = (idx_t)ca.size();
  }
  return true;
}

/* subgraph of G induced by the vertices verts (increasing), with their weights when vwgt is not NULL; loc:
   scratch of size n, -1 on entry and on exit */
void Induce(const idx_t *xadj, const idx_t *adj, const idx_t *vwgt, const std::vector<idx_t> &verts, std::vector<idx_t> &loc, std::vector<idx_t> &sx, std::vector<idx_t> &sa, std::vector<idx_t> &sw)
{
  if (vwgt) {
    sw.resize(verts.size());
    for (size_t i = 0; i < verts.size(); i++) sw[i] = vwgt[verts[i]];
  }
  size_t m = 0;
  for (size_t i = 0; i < verts.size(); i++) {
    loc[verts[i]] = (idx_t)i;
    m += xadj[verts[i] + 1] - xadj[verts[i]];
  }
  sx.assign(verts.size() + 1, 0);
  sa.clear();
  sa.reserve(m);
  for (size_t i = 0; i < verts.size(); i++) {
    idx_t v = verts[i];
    for (idx_t k = xadj[v]; k < xadj[v + 1]; k++)
      if (loc[adj[k]] >= 0) sa.push_back(loc[adj[k]]);
    sx[i + 1] = (idx_t)sa.size();
  }
  for (idx_t v : verts) loc[v] = -1;
}

/* a call running in a child */
struct Running {
  int    node;
  pid_t  pid;
  Shared *sh;
  size_t bytes;
};
} // namespace

int Order(idx_t n0, const idx_t *xadj0, const idx_t *adj0, int depth, int procs, int fail_call, idx_t *perm0, Stats *stats, std::string *what)
{
  double               t0 = Now();
  std::vector<idx_t>   cx, ca, cw, gptr, gind;
  bool                 compressed = n0 > 0 && depth > 0 && Compress(n0, xadj0, adj0, cx, ca, cw, gptr, gind);
  idx_t                n          = compressed ? (idx_t)cw.size() : n0;
  const idx_t         *xadj = compressed ? cx.data() : xadj0, *adj = compressed ? ca.data() : adj0, *vwgt = compressed ? cw.data() : NULL;
  std::vector<idx_t>   cperm(compressed ? (size_t)n : 0);
  idx_t               *perm = compressed ? cperm.data() : perm0;
  std::deque<Node>     nodes; /* a deque: references stay valid while nodes are added */
  std::vector<int>     ready; /* nodes whose call can run */
  std::vector<Running> running;
  std::vector<idx_t>   loc((size_t)n, -1);
  int                  ncalls = 0, status = METIS_OK;

  *stats            = Stats();
  stats->depth      = depth;
  stats->procs      = procs;
  stats->compressed = compressed ? n : 0;
  if (n <= 0) return METIS_OK;
  nodes.emplace_back();
  nodes[0].x     = xadj;
  nodes[0].a     = adj;
  nodes[0].w     = vwgt;
  nodes[0].nv    = n;
  nodes[0].depth = depth;
  nodes[0].leaf  = depth == 0 || n < NDMinSeparate;
  ready.push_back(0);

  /* the result of node k is known: a leaf is done; a separator makes the nodes of A and B ready */
  auto finish = [&](int k) {
    Node &nd = nodes[k];
    if (nd.leaf) {
      stats->nleaves++;
      stats->t_leaves += nd.seconds;
      stats->t_leaf_max = std::max(stats->t_leaf_max, nd.seconds);
      stats->t_critical = std::max(stats->t_critical, nd.path);
      return;
    }
    stats->nseparators++;
    stats->t_separators += nd.seconds;
    for (int p = 0; p < 2; p++) {
      Node c;
      for (idx_t i = 0; i < nd.nv; i++)
        if (nd.result[i] == p) c.verts.push_back(k == 0 ? i : nodes[k].verts[i]);
      if (c.verts.empty()) continue;
      Induce(xadj, adj, vwgt, c.verts, loc, c.sx, c.sa, c.sw);
      c.x     = c.sx.data();
      c.a     = c.sa.data();
      c.w     = vwgt ? c.sw.data() : NULL;
      c.nv    = (idx_t)c.verts.size();
      c.depth = nd.depth - 1;
      c.leaf  = c.depth == 0 || c.nv < NDMinSeparate;
      c.path  = nd.path;
      nodes.push_back(std::move(c));
      nodes[k].child[p] = (int)nodes.size() - 1;
      ready.push_back((int)nodes.size() - 1);
    }
  };
  /* node k's call in this process */
  auto inprocess = [&](int k) {
    Node  &nd = nodes[k];
    double t  = Now();
    nd.result.resize((size_t)nd.nv);
    int st     = Call(nd, nd.result.data());
    nd.seconds = Now() - t;
    nd.path += nd.seconds;
    if (st != METIS_OK || !Valid(nd, nd.result.data())) {
      char msg[160];
      snprintf(msg, sizeof(msg), "%s of a part of %" PRIDX " vertices %s (status %d)", nd.leaf ? "METIS_NodeND" : "METIS_ComputeVertexSeparator", nd.nv, st != METIS_OK ? "failed" : "gave an invalid result", st);
      *what = msg;
      return st != METIS_OK ? st : METIS_ERROR;
    }
    finish(k);
    return (int)METIS_OK;
  };
  auto fallback = [&](int k, const char *why) {
    char msg[200];
    snprintf(msg, sizeof(msg), "%s of a part of %" PRIDX " vertices ran in this process: %s", nodes[k].leaf ? "METIS_NodeND" : "METIS_ComputeVertexSeparator", nodes[k].nv, why);
    stats->fallbacks.push_back(msg);
    return inprocess(k);
  };

  while (status == METIS_OK && (!ready.empty() || !running.empty())) {
    /* start ready calls, largest part first */
    while (status == METIS_OK && !ready.empty() && (int)running.size() < procs) {
      auto it = std::max_element(ready.begin(), ready.end(), [&](int p, int q) { return nodes[p].nv < nodes[q].nv || (nodes[p].nv == nodes[q].nv && p > q); });
      int  k  = *it;
      ready.erase(it);
      int call = ncalls++;
      if (procs == 1) {
        status = inprocess(k);
        continue;
      }
      size_t bytes = SharedBytes(nodes[k].nv);
      void  *mem   = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (mem == MAP_FAILED) {
        status = fallback(k, strerror(errno));
        continue;
      }
      Shared *sh = (Shared *)mem;
      sh->done   = 0;
      pid_t pid  = fork();
      if (pid == 0) { /* the child: METIS and plain memory only */
        if (call == fail_call) _exit(1);
        double t   = Now();
        int    st  = Call(nodes[k], SharedResult(sh));
        sh->status = st;
        sh->seconds = Now() - t;
        __atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
        _exit(st == METIS_OK ? 0 : 2);
      }
      if (pid < 0) {
        int err = errno;
        munmap(mem, bytes);
        status = fallback(k, (std::string("fork() failed: ") + strerror(err)).c_str());
        continue;
      }
      running.push_back({k, pid, sh, bytes});
    }
    if (status != METIS_OK || running.empty()) continue;
    /* collect finished children (only ours, by pid: never waitpid(-1), which would reap the application's) */
    bool any = false;
    for (size_t r = 0; r < running.size() && status == METIS_OK;) {
      Running rn  = running[r];
      int     wst = 0;
      pid_t   w   = waitpid(rn.pid, &wst, WNOHANG);
      bool    ended, ok;
      if (w == rn.pid) {
        ended = true;
        ok    = WIFEXITED(wst) && WEXITSTATUS(wst) == 0;
      } else if (w == 0 || (w < 0 && errno == EINTR)) {
        ended = false;
        ok    = false;
      } else { /* ECHILD: SIGCHLD ignored by the application, children are reaped by the kernel */
        ended = __atomic_load_n(&rn.sh->done, __ATOMIC_ACQUIRE) || (kill(rn.pid, 0) < 0 && errno == ESRCH);
        ok    = true;
      }
      if (!ended) {
        r++;
        continue;
      }
      any = true;
      running.erase(running.begin() + r);
      Node &nd   = nodes[rn.node];
      bool  done = __atomic_load_n(&rn.sh->done, __ATOMIC_ACQUIRE) && rn.sh->status == METIS_OK;
      if (ok && done && Valid(nd, SharedResult(rn.sh))) {
        nd.result.assign(SharedResult(rn.sh), SharedResult(rn.sh) + nd.nv);
        nd.seconds = rn.sh->seconds;
        nd.path += nd.seconds;
        stats->nforked++;
        munmap(rn.sh, rn.bytes);
        finish(rn.node);
      } else {
        char why[120];
        if (w == rn.pid && WIFSIGNALED(wst)) snprintf(why, sizeof(why), "its child was killed by signal %d", WTERMSIG(wst));
        else if (w == rn.pid && WIFEXITED(wst) && WEXITSTATUS(wst)) snprintf(why, sizeof(why), "its child exited with status %d", WEXITSTATUS(wst));
        else if (!done) snprintf(why, sizeof(why), "its child ended without a result");
        else snprintf(why, sizeof(why), "its child gave an invalid result");
        munmap(rn.sh, rn.bytes);
        status = fallback(rn.node, why);
      }
    }
    if (!any && status == METIS_OK) {
      struct timespec ts = {0, 200000};
      nanosleep(&ts, NULL);
    }
  }
  if (status != METIS_OK) { /* wait for the children left (their results are not needed) */
    for (Running &rn : running) {
      int wst;
      while (waitpid(rn.pid, &wst, 0) < 0 && errno == EINTR) { }
      munmap(rn.sh, rn.bytes);
    }
    return status;
  }

  /* the order: A's, B's, then S, depth first from the root (an explicit stack: (node, stage)) */
  idx_t                            pos = 0;
  std::vector<std::pair<int, int>> stack = {{0, 0}};
  while (!stack.empty()) {
    auto [k, stage] = stack.back();
    stack.pop_back();
    const Node &nd   = nodes[k];
    auto        glob = [&](idx_t i) { return k == 0 ? i : nd.verts[i]; };
    if (nd.leaf) {
      for (idx_t i = 0; i < nd.nv; i++) perm[pos++] = glob(nd.result[i]);
    } else if (stage < 2) {
      stack.push_back({k, stage + 1});
      if (nd.child[stage] >= 0) stack.push_back({nd.child[stage], 0});
    } else {
      for (idx_t i = 0; i < nd.nv; i++)
        if (nd.result[i] == 2) perm[pos++] = glob(i);
    }
  }
  if (pos != n) {
    *what = "the dissection did not number every vertex";
    return METIS_ERROR;
  }
  if (compressed) { /* each vertex of the compressed graph: its vertices of G, in increasing order */
    idx_t k = 0;
    for (idx_t i = 0; i < n; i++)
      for (idx_t e = gptr[cperm[i]]; e < gptr[cperm[i] + 1]; e++) perm0[k++] = gind[e];
  }
  stats->t_total = Now() - t0;
  return METIS_OK;
}
} // namespace nd
} // namespace ldlt
} // namespace kernels
} // namespace pgx
