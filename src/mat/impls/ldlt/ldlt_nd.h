/* ldlt_nd.h: PGX's nested dissection on METIS (-mat_pgx_ordering nd), the fill-reducing ordering of MATSOLVERPGX
   for large graphs, computed in forked child processes.

   Mathematics. G = (V, E) is the graph of A + A^T without the diagonal. Nested dissection of depth d:
   METIS_ComputeVertexSeparator splits G into A, B and a separator S (no edge joins A and B); the subgraphs induced
   by A and B are dissected the same way to depth d - 1 (parts of fewer than NDMinSeparate vertices are leaves); a
   part at depth 0 (a leaf) is ordered by METIS_NodeND. The order of G is the order of A, then that of B, then S (in increasing vertex number): eliminating A and B
   first keeps the fill of each inside it, S becomes the dense last block. Depth 0 is one METIS_NodeND call,
   METIS's own ordering (its nested dissection recurses inside one call, serially). For depth > 0, G is first
   compressed as METIS_NodeND does (vertices with the same closed neighbourhood, e.g. the unknowns of one node of
   an elasticity mesh, become one vertex weighted by their number, when that removes 15% of the vertices or more;
   METIS_ComputeVertexSeparator does not compress by itself); the order of the compressed graph is expanded at the
   end, each vertex to its group in increasing order.

   Determinism. Debian's METIS 5.1 draws its random numbers from libc's process-wide rand() and reseeds it in every
   call (srand of the default seed), so concurrent calls on threads interleave one random stream and give
   timing-dependent results (bench/ldlt/README.md). Here every METIS call has the default options (NUMBERING 0)
   and no two calls run at once in one process (the caller, or a child created by fork(): each has its own rand()
   state), so each call's result depends only on its input subgraph, whose vertices are numbered in increasing
   order of the vertices of G. (An application thread calling rand() during the ordering can still disturb the
   calls that run in the caller, as with -mat_pgx_ordering metis; the calls in the children are immune.) The depth is a function of |V| only (Depth()); parts smaller
   than NDMinSeparate are leaves whatever their depth. The permutation is therefore the same, bitwise, for every
   procs, and the same as the serial nested dissection.

   Processes. Independent calls (the separators of different parts, the leaves) run concurrently in procs
   processes: the caller and procs - 1 children it fork()s once, at the start (the root separator runs meanwhile),
   so that fork()'s cost (copying the page tables of a large process: about 5 ms here at 200 MB) is paid procs - 1
   times, not once per call. Each process takes the largest runnable part (its parent separator is known), builds
   its subgraph from its own copy of G (copy on write, read only), calls METIS and writes the result into a
   MAP_SHARED | MAP_ANONYMOUS region the caller mapped before fork(): the task table, the vertex lists of the parts
   and the order itself (a part owns a range of the order). A child does nothing else: METIS, plain memory and
   malloc (glibc keeps malloc usable after fork() in a multithreaded process), no stdio, no MPI, CUDA or PETSc, and
   it ends with _exit(). The caller watches its children by pid (waitpid(WNOHANG), never waitpid(-1)); a part that
   a dead child had claimed, or whose METIS call failed in a child, is run again (same input, same result), noted
   in Stats::fallbacks (the glue prints them with PetscInfo); a fork() failure leaves fewer children. procs = 1
   forks nothing: the same tasks, in this process.

   Input contract: n >= 0 vertices, xadj[n+1], adj[xadj[n]] 0-based, symmetric, no self-loops (METIS's form).
   Output: perm[k] = the vertex of G that comes k-th (METIS_NodeND's perm). Host code, no PETSc objects.
   after_fork (optional): called once in the caller when no fork() will follow (after the children are created, or at
   once with procs = 1), so that the caller may start threads without forking a multithreaded process mid-call. */
#pragma once
#include <pgx/private/pgxcompat.h>
#include <metis.h>
#include <string>
#include <vector>

namespace pgx
{
namespace kernels
{
namespace ldlt
{
namespace nd
{
/* parts with fewer vertices are leaves (METIS_NodeND) whatever the depth left */
const idx_t NDMinSeparate = 1000;
/* the most concurrent children */
const int NDMaxProcs = 16;

/* dissection depth for a graph of n vertices: 0 below 32768 vertices, else the least d with n / 2^d <= 16384
   (leaves of 8k-16k vertices), at most 5 (Poisson 48^3: 3, 64^3: 4, 100^3: 5). The work of all calls is nearly the
   same for every depth; a deeper one shortens the critical path (the root separator ... one leaf: 64^3 0.47, 0.36,
   0.29, 0.27 s for depth 2..5, here) and, measured on Poisson, does not raise the fill (bench/ldlt/README.md) */
int Depth(PetscInt64 n);

struct Stats {
  int                      depth = 0, procs = 1;   /* depth and concurrent children (1: no fork) */
  long long                compressed = 0;          /* vertices of the compressed graph (0: not compressed) */
  int                      nseparators = 0, nleaves = 0; /* METIS_ComputeVertexSeparator and METIS_NodeND calls */
  int                      nforked = 0;             /* calls done by a child */
  double                   t_total = 0;             /* wall time of Order() */
  double                   t_separators = 0, t_leaves = 0; /* sums of the calls' own times */
  double                   t_leaf_max = 0;          /* the longest leaf */
  double                   t_fork = 0;              /* time until the children were forked (the caller's fork() calls) */
  double                   t_critical = 0;          /* the longest path root separator ... leaf of the calls' times */
  std::vector<std::string> fallbacks;               /* one line per event: a fork() failure, a dead child (its part runs again), a failed call in a child */
};

/* Nested dissection of depth depth (0..12) in procs (1..NDMaxProcs) processes. fail_call >= 0 (testing): the child
   that makes claim number fail_call of the children's claims (counted from 0) exits with status 1 at once, and
   the caller works only while no child is alive, so that the fallback runs; the permutation does not change. Returns METIS_OK or the status of the METIS call that failed in the parent (a message in *what). */
int Order(idx_t n, const idx_t *xadj, const idx_t *adj, int depth, int procs, int fail_call, idx_t *perm, Stats *stats, std::string *what, void (*after_fork)(void) = nullptr);
} // namespace nd
} // namespace ldlt
} // namespace kernels
} // namespace pgx
