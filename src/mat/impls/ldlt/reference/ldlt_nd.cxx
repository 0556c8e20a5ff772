/* Nested dissection on METIS in forked child processes (ldlt_nd.h says what and why).

   The dissection tree is a heap: task 0 is the whole graph, the parts A and B of task i are tasks 2i+1 and 2i+2;
   a task at level l (depth of the heap) owns a range [off, off+nv) of the final order (A's range, then B's, then
   S, which is what the numbering A, B, S gives), and its vertices, in increasing order, are stored at
   verts[l][off..off+nv). The task table, verts and the order live in one MAP_SHARED | MAP_ANONYMOUS region, so
   that the processes that work on it (the caller and procs - 1 children forked once, each a copy of the caller
   with the graph) see each other's results. A task can run when its parent task is done; the process that runs
   it writes the order of a leaf, or the separator's order and the vertices and sizes of A and B, and then marks it
   done (a release store: everything it wrote is visible to whoever sees the mark). A child that dies leaves its
   claimed task to the caller, which runs it again from the same input (the same result). */
#include "../ldlt_nd.h"
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
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

/* subgraph of G induced by the vertices verts[0..nv) (increasing), with their weights when vwgt is not NULL; loc:
   scratch of size n, -1 on entry and on exit */
void Induce(const idx_t *xadj, const idx_t *adj, const idx_t *vwgt, const idx_t *verts, idx_t nv, std::vector<idx_t> &loc, std::vector<idx_t> &sx, std::vector<idx_t> &sa, std::vector<idx_t> &sw)
{
  size_t m = 0;
  for (idx_t i = 0; i < nv; i++) {
    loc[verts[i]] = i;
    m += xadj[verts[i] + 1] - xadj[verts[i]];
  }
  if (vwgt) {
    sw.resize((size_t)nv);
    for (idx_t i = 0; i < nv; i++) sw[i] = vwgt[verts[i]];
  }
  sx.assign((size_t)nv + 1, 0);
  sa.clear();
  sa.reserve(m);
  for (idx_t i = 0; i < nv; i++) {
    idx_t v = verts[i];
    for (idx_t k = xadj[v]; k < xadj[v + 1]; k++)
      if (loc[adj[k]] >= 0) sa.push_back(loc[adj[k]]);
    sx[i + 1] = (idx_t)sa.size();
  }
  for (idx_t i = 0; i < nv; i++) loc[verts[i]] = -1;
}

/* task states: free (not claimed; runnable once its parent is done and nv > 0), claimed by process p (CLAIMED + p;
   0 is the caller), done, failed (METIS returned an error in a child: the caller runs it again) */
enum { FREE = 0, DONE = 1, FAILED = 2, CLAIMED = 16 };

struct Task {
  idx_t  off, nv; /* range in the order and size; nv -1: not created yet (its parent is not done) */
  int    leaf;
  int    state;
  int    status; /* METIS's return status */
  int    by;     /* the process that did it */
  double seconds;
};

/* the head of the shared region */
struct Flags {
  int    abort;   /* the caller gave up: children exit */
  int    nclaims; /* claims made by children (fail_call) */
  double pad;
};

/* the shared region: flags, tasks, verts[0..depth][n], order[n] (the pointers, set before fork, are the same in all) */
struct Board {
  Flags *flags;
  int    ntasks, depth, fail_call;
  idx_t  n;
  Task  *task;
  idx_t *verts, *order;
};

/* what one process needs to run tasks: the graph (its own copy in a child) and scratch */
struct Worker {
  const idx_t       *xadj, *adj, *vwgt;
  idx_t              n;
  int                me; /* 0: the caller */
  std::vector<idx_t> loc, sx, sa, sw, res;
};

int Level(int i)
{
  int l = 0;
  for (i++; i > 1; i >>= 1) l++;
  return l;
}

bool Runnable(const Board *b, int i)
{
  if (__atomic_load_n(&b->task[i].state, __ATOMIC_ACQUIRE) != FREE) return false;
  if (i > 0 && __atomic_load_n(&b->task[(i - 1) / 2].state, __ATOMIC_ACQUIRE) != DONE) return false;
  return b->task[i].nv > 0;
}

/* every created task is done (the root always is created) */
bool Finished(const Board *b)
{
  for (int i = 0; i < b->ntasks; i++) {
    if (i > 0 && __atomic_load_n(&b->task[(i - 1) / 2].state, __ATOMIC_ACQUIRE) != DONE) continue; /* not created */
    if (b->task[i].nv > 0 && __atomic_load_n(&b->task[i].state, __ATOMIC_ACQUIRE) != DONE) return false;
  }
  return true;
}

/* run claimed task i: METIS on its part, results into the board, then the done mark (or failed) */
int Run(Board *b, Worker &w, int i)
{
  Task        &t = b->task[i];
  int          l = Level(i);
  const idx_t *v = b->verts + (size_t)l * b->n + t.off;
  idx_t        nv = t.nv, options[METIS_NOPTIONS];
  int          st = METIS_OK;
  double       t0 = Now();

  Induce(w.xadj, w.adj, w.vwgt, v, nv, w.loc, w.sx, w.sa, w.sw);
  w.res.resize((size_t)nv);
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  if (w.sx[nv] == 0) { /* no edges: any order has no fill (METIS is not asked) */
    for (idx_t k = 0; k < nv; k++) w.res[k] = t.leaf ? k : (k < nv / 2 ? 0 : 1);
  } else if (t.leaf) {
    std::vector<idx_t> iperm((size_t)nv);
    st = METIS_NodeND(&nv, w.sx.data(), w.sa.data(), w.vwgt ? w.sw.data() : NULL, options, w.res.data(), iperm.data());
  } else {
    idx_t sepsize = 0;
    st = METIS_ComputeVertexSeparator(&nv, w.sx.data(), w.sa.data(), w.vwgt ? w.sw.data() : NULL, options, &sepsize, w.res.data());
  }
  if (st == METIS_OK) { /* check the result: a permutation, or parts 0, 1, 2 */
    if (t.leaf) {
      std::vector<char> seen((size_t)nv, 0);
      for (idx_t k = 0; k < nv && st == METIS_OK; k++) {
        if (w.res[k] < 0 || w.res[k] >= nv || seen[w.res[k]]) st = METIS_ERROR;
        else seen[w.res[k]] = 1;
      }
    } else {
      for (idx_t k = 0; k < nv && st == METIS_OK; k++)
        if (w.res[k] < 0 || w.res[k] > 2) st = METIS_ERROR;
    }
  }
  t.status  = st;
  t.by      = w.me;
  t.seconds = Now() - t0;
  if (st != METIS_OK) {
    __atomic_store_n(&t.state, (int)FAILED, __ATOMIC_RELEASE);
    return st;
  }
  if (t.leaf) {
    for (idx_t k = 0; k < nv; k++) b->order[t.off + k] = v[w.res[k]];
  } else {
    idx_t *next = b->verts + (size_t)(l + 1) * b->n + t.off, na = 0, nb = 0, ns = 0;
    for (idx_t k = 0; k < nv; k++) {
      if (w.res[k] == 0) na++;
      else if (w.res[k] == 1) nb++;
    }
    idx_t ia = 0, ib = na;
    for (idx_t k = 0; k < nv; k++) {
      if (w.res[k] == 0) next[ia++] = v[k];
      else if (w.res[k] == 1) next[ib++] = v[k];
      else b->order[t.off + na + nb + ns++] = v[k];
    }
    for (int c = 0; c < 2; c++) {
      Task &ct = b->task[2 * i + 1 + c];
      ct.off   = t.off + (c ? na : 0);
      ct.nv    = c ? nb : na;
      ct.leaf  = l + 1 == b->depth || ct.nv < NDMinSeparate;
      ct.state = FREE;
    }
  }
  __atomic_store_n(&t.state, (int)DONE, __ATOMIC_RELEASE);
  return METIS_OK;
}

/* claim and run one runnable task, the largest; 1: ran one, 0: none runnable, -1: all finished; a failed METIS
   call in the caller returns its status in *st */
int WorkOne(Board *b, Worker &w, int *st)
{
  int best = -1;
  *st      = METIS_OK;
  for (int i = 0; i < b->ntasks; i++)
    if (Runnable(b, i) && (best < 0 || b->task[i].nv > b->task[best].nv)) best = i;
  if (best < 0) return Finished(b) ? -1 : 0;
  int expect = FREE;
  if (!__atomic_compare_exchange_n(&b->task[best].state, &expect, CLAIMED + w.me, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return 1; /* another took it: look again */
  if (w.me > 0 && b->fail_call >= 0 && __atomic_fetch_add(&b->flags->nclaims, 1, __ATOMIC_ACQ_REL) == b->fail_call) _exit(1); /* testing */
  *st = Run(b, w, best);
  return 1;
}

void Nap()
{
  struct timespec ts = {0, 100000};
  nanosleep(&ts, NULL);
}

/* a child: METIS, plain memory and malloc only; _exit, never exit (no atexit handlers, no stdio flush) */
[[noreturn]] void ChildMain(Board *b, Worker &w)
{
  for (;;) {
    int st;
    if (__atomic_load_n(&b->flags->abort, __ATOMIC_ACQUIRE)) _exit(0);
    int r = WorkOne(b, w, &st);
    if (r < 0) _exit(0);
    if (r == 0) Nap();
  }
}
} // namespace

int Order(idx_t n0, const idx_t *xadj0, const idx_t *adj0, int depth, int procs, int fail_call, idx_t *perm, Stats *stats, std::string *what, void (*after_fork)(void))
{
  double             t0 = Now();
  std::vector<idx_t> cx, ca, cw, gptr, gind;
  bool               compressed = n0 > 0 && depth > 0 && Compress(n0, xadj0, adj0, cx, ca, cw, gptr, gind);
  idx_t              n          = compressed ? (idx_t)cw.size() : n0;
  Worker             w;
  Board              b;

  /* no more processes than parts that can run at once (the leaves): each fork copies the caller's page tables */
  if (depth < 30 && procs > (1 << depth)) procs = 1 << depth;
  *stats            = Stats();
  stats->depth      = depth;
  stats->procs      = procs;
  stats->compressed = compressed ? n : 0;
  if (n0 <= 0) return METIS_OK;
  w.xadj = compressed ? cx.data() : xadj0;
  w.adj  = compressed ? ca.data() : adj0;
  w.vwgt = compressed ? cw.data() : NULL;
  w.n    = n;
  w.me   = 0;
  w.loc.assign((size_t)n, -1);

  /* the shared region */
  size_t ntasks = ((size_t)2 << depth) - 1, bytes = sizeof(Flags) + ntasks * sizeof(Task) + ((size_t)depth + 2) * (size_t)n * sizeof(idx_t);
  void  *mem    = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) { /* then a private region: the same work in this process only */
    stats->fallbacks.push_back(std::string("mmap() of the shared region failed (") + strerror(errno) + "): no child processes");
    procs = 1;
    mem   = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
      *what = std::string("mmap() of ") + std::to_string(bytes) + " bytes failed: " + strerror(errno);
      return METIS_ERROR_MEMORY;
    }
  }
  b.flags             = (Flags *)mem;
  b.flags->abort      = 0;
  b.flags->nclaims    = 0;
  b.ntasks            = (int)ntasks;
  b.depth             = depth;
  b.fail_call         = fail_call;
  b.n                 = n;
  b.task              = (Task *)(b.flags + 1);
  b.verts             = (idx_t *)(b.task + ntasks);
  b.order             = b.verts + ((size_t)depth + 1) * n;
  for (size_t i = 0; i < ntasks; i++) b.task[i] = Task{0, -1, 0, FREE, METIS_OK, -1, 0.0};
  for (idx_t i = 0; i < n; i++) b.verts[i] = i;
  b.task[0].nv   = n;
  b.task[0].leaf = depth == 0 || n < NDMinSeparate;

  /* procs - 1 children, forked once; each works until every task is done */
  std::vector<pid_t> pid;
  std::vector<bool>  alive;
  double             tf = Now();
  for (int p = 1; p < procs; p++) {
    pid_t c = fork();
    if (c == 0) {
      w.me = p;
      ChildMain(&b, w);
    }
    if (c < 0) {
      stats->fallbacks.push_back(std::string("fork() failed (") + strerror(errno) + "): " + std::to_string(p - 1) + " child processes instead of " + std::to_string(procs - 1));
      break;
    }
    pid.push_back(c);
    alive.push_back(true);
  }
  stats->t_fork = Now() - tf;
  if (after_fork) after_fork(); /* no fork() follows: the caller may start a thread now */

  /* the caller: watch the children, run again what a dead child or a failed call left, work itself */
  int status = METIS_OK;
  for (;;) {
    int nalive = 0;
    for (size_t p = 0; p < pid.size(); p++) {
      if (!alive[p]) continue;
      int   wst = 0;
      pid_t r   = waitpid(pid[p], &wst, WNOHANG);
      bool  dead = false, bad = false;
      char  why[96] = "";
      if (r == pid[p]) {
        dead = true;
        bad  = !(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
        if (WIFSIGNALED(wst)) snprintf(why, sizeof(why), "was killed by signal %d", WTERMSIG(wst));
        else if (bad) snprintf(why, sizeof(why), "exited with status %d", WEXITSTATUS(wst));
      } else if (r < 0 && errno != EINTR && kill(pid[p], 0) < 0 && errno == ESRCH) { /* reaped by someone else (SIGCHLD ignored) */
        dead = true;
        snprintf(why, sizeof(why), "ended");
      }
      if (!dead) {
        nalive++;
        continue;
      }
      alive[p] = false;
      for (int i = 0; i < b.ntasks; i++) { /* its claimed task goes back: this process runs it again */
        int expect = CLAIMED + (int)p + 1;
        if (__atomic_compare_exchange_n(&b.task[i].state, &expect, (int)FREE, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
          char msg[200];
          snprintf(msg, sizeof(msg), "child process %d %s during %s of a part of %" PRIDX " vertices; it runs again", (int)p + 1, why, b.task[i].leaf ? "METIS_NodeND" : "METIS_ComputeVertexSeparator", b.task[i].nv);
          stats->fallbacks.push_back(msg);
        }
      }
      if (bad && !why[0]) stats->fallbacks.push_back("a child process failed");
    }
    for (int i = 0; i < b.ntasks && status == METIS_OK; i++) { /* a call that failed in a child: run it here */
      int expect = FAILED;
      if (__atomic_compare_exchange_n(&b.task[i].state, &expect, CLAIMED, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        char msg[200];
        snprintf(msg, sizeof(msg), "%s of a part of %" PRIDX " vertices failed in child process %d (status %d); it ran again in this process", b.task[i].leaf ? "METIS_NodeND" : "METIS_ComputeVertexSeparator", b.task[i].nv, b.task[i].by, b.task[i].status);
        stats->fallbacks.push_back(msg);
        status = Run(&b, w, i);
        if (status != METIS_OK) {
          snprintf(msg, sizeof(msg), "%s of a part of %" PRIDX " vertices failed (status %d)", b.task[i].leaf ? "METIS_NodeND" : "METIS_ComputeVertexSeparator", b.task[i].nv, status);
          *what = msg;
        }
      }
    }
    if (status != METIS_OK) break;
    int r = 0, st = METIS_OK;
    if (fail_call < 0 || nalive == 0) r = WorkOne(&b, w, &st); /* with fail_call, the children work alone while they live (testing) */
    else r = Finished(&b) ? -1 : 0;
    if (st != METIS_OK) {
      status = st;
      *what  = std::string("METIS failed in this process (status ") + std::to_string(st) + ")";
      break;
    }
    if (r < 0) break;
    if (r == 0) Nap();
  }
  if (status != METIS_OK) __atomic_store_n(&b.flags->abort, 1, __ATOMIC_RELEASE);
  for (size_t p = 0; p < pid.size(); p++) /* the children end when all is done (or at abort) */
    if (alive[p]) {
      int wst;
      while (waitpid(pid[p], &wst, 0) < 0 && errno == EINTR) { }
    }

  if (status == METIS_OK) {
    std::vector<double> path((size_t)b.ntasks, 0.0);
    for (int i = 0; i < b.ntasks; i++) {
      const Task &t = b.task[i];
      if ((i > 0 && b.task[(i - 1) / 2].state != DONE) || t.nv <= 0) continue;
      path[i] = (i > 0 ? path[(i - 1) / 2] : 0) + t.seconds;
      if (t.by > 0) stats->nforked++;
      if (t.leaf) {
        stats->nleaves++;
        stats->t_leaves += t.seconds;
        stats->t_leaf_max = std::max(stats->t_leaf_max, t.seconds);
        stats->t_critical = std::max(stats->t_critical, path[i]);
      } else {
        stats->nseparators++;
        stats->t_separators += t.seconds;
      }
    }
    if (compressed) { /* each vertex of the compressed graph: its vertices of G, in increasing order */
      idx_t k = 0;
      for (idx_t i = 0; i < n; i++)
        for (idx_t e = gptr[b.order[i]]; e < gptr[b.order[i] + 1]; e++) perm[k++] = gind[e];
    } else std::copy(b.order, b.order + n, perm);
  }
  munmap(mem, bytes);
  stats->t_total = Now() - t0;
  return status;
}
} // namespace nd
} // namespace ldlt
} // namespace kernels
} // namespace pgx
