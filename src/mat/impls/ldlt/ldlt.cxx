/* MATSOLVERPGX for MAT_FACTOR_CHOLESKY: sparse LDL^T (A = P^T L D L^T P) with static pivoting and automatic
   refinement. Glue only: PETSc objects to plain arrays; the kernels live behind ldlt_kernels.h. */
#include <pgx/private/pgximpl.h>
#include <petsc/private/matimpl.h>
#include <metis.h>
#include <suitesparse/amd.h>
#include <sched.h>
#include <unistd.h>
#include <cstdlib>
#include <vector>
#include "ldlt_kernels.h"
#include "ldlt_nd.h"

namespace K   = pgx::kernels::ldlt;
namespace sym = pgx::kernels::ldlt::symbolic;
namespace ref = pgx::kernels::ldlt::reference;
namespace nd  = pgx::kernels::ldlt::nd;

typedef enum {
  LDLT_ORDERING_AUTO,
  LDLT_ORDERING_METIS,
  LDLT_ORDERING_AMD,
  LDLT_ORDERING_NATURAL,
  LDLT_ORDERING_PETSC,
  LDLT_ORDERING_ND
} LDLTOrdering;
static const char *const LDLTOrderings[] = {"auto", "metis", "amd", "natural", "petsc", "nd", "LDLTOrdering", "LDLT_ORDERING_", NULL};
typedef enum {
  LDLT_METHOD_AUTO,
  LDLT_METHOD_COLUMN,
  LDLT_METHOD_SUPERNODAL
} LDLTMethod;
static const char *const LDLTMethods[] = {"auto", "column", "supernodal", "LDLTMethod", "LDLT_METHOD_", NULL};

static PetscLogEvent PGX_LDLTSymbolic, PGX_LDLTNumeric, PGX_LDLTSolve;

typedef struct {
  /* options (read at each symbolic phase through the factor's prefix) */
  LDLTOrdering   ordering;     /* -mat_pgx_ordering */
  LDLTMethod     method;       /* -mat_pgx_ldlt_method */
  PetscReal      pivot_tol;    /* -mat_pgx_pivot_tol: static pivoting threshold relative to ||A||_inf */
  PetscInt       refine_steps; /* -mat_pgx_refine_steps: -1 automatic */
  PetscInt       gmres_max;    /* -mat_pgx_refine_gmres: most GMRES iterations of the refinement */
  PetscBool      hermitian;    /* LDL^H instead of LDL^T (complex only) */
  PetscBool      check_symmetry;
  PetscBool      check_symbolic; /* -mat_pgx_ldlt_check_symbolic (hidden, for tests): redo the symbolic phase with the simple algorithms and compare */
  PetscBool      symbolic_checked; /* the last symbolic phase was checked that way (MatView says so) */
  PetscInt       large_min;    /* -mat_pgx_ldlt_large: supernodes with nc >= large_min or nr >= 8 large_min use dense BLAS-3 (panel algorithm) */
  PetscInt       nb;           /* -mat_pgx_ldlt_nb: block size of their diagonal blocks */
  PetscBool      host_panels;  /* -mat_pgx_ldlt_panels: on the host, run the cuda backend's panel algorithm (reference twin) */
  PetscReal      gpu_memory;   /* -mat_pgx_ldlt_gpu_memory: bytes the supernodal GPU factor may take (0: the free GPU memory) */
  PGXDeviceType  devreq, device;
  PetscInt       nd_procs;     /* -mat_pgx_ldlt_nd_procs: concurrent METIS processes of -mat_pgx_ordering nd (0: from the cores) */
  PetscInt       nd_depth;     /* -mat_pgx_ldlt_nd_depth: dissection depth of nd (-1: from n, nd::Depth) */
  PetscInt       nd_fail_call; /* -mat_pgx_ldlt_nd_fail_call (testing): the child of that call fails, the parent runs it */
  /* symbolic */
  PetscInt       n, nnzA;      /* size and stored entries of A (AIJ form) */
  PetscInt      *arowptr, *acol; /* A's pattern (AIJ form, original numbering): residuals and pattern checks */
  PetscScalar   *aval;         /* A's values of the last numeric phase (refinement) */
  LDLTOrdering   used_ordering;
  PetscInt       nd_used_depth, nd_used_procs; /* nd: the depth and the concurrent processes of the last ordering */
  PetscLogDouble t_ordering;   /* time of the last ordering */
  unsigned long long perm_hash; /* FNV-1a hash of perm (MatView: tests compare permutations with it) */
  PetscInt      *perm, *iperm; /* perm[k] = row of A that is row k of C = P A P^T */
  PetscInt      *lcolptr, *lrow, *parent, *colcount, *level, *order, *lptr, *snptr, *dest;
  PetscInt       nlevels, nsuper, maxsuper;
  PetscInt       nnzL;         /* strictly lower entries of L */
  sym::SupernodalPlan *plan;   /* supernodal numeric phase on panels (cuda, or -mat_pgx_ldlt_panels); NULL otherwise */
  PetscScalar   *panels;       /* host panels of -mat_pgx_ldlt_panels */
  /* numeric */
  LDLTMethod     used_method;
  PetscScalar   *lval, *d;
  PetscReal      anorm;        /* ||A||_inf */
  PetscReal      small, repl;  /* the pivot rule of the last numeric phase */
  PetscInt       nperturbed;
  PetscBool      numeric_done;
  PetscLogDouble flops;
  /* statistics */
  PetscInt       nsymbolic, nnumeric, nsolve;
  void          *cu;           /* cuda backend: pgx::kernels::ldlt::cuda::Data */
  PetscInt       last_ir, last_gmres; /* refinement steps and GMRES iterations of the last solve */
  PetscReal      last_berr;    /* normwise backward error after the last refined solve (-1: not computed) */
  PetscLogDouble t_symbolic, t_numeric, t_solve;
} Mat_PGXLDLT;

static PetscErrorCode LDLTFreeSymbolic(Mat_PGXLDLT *c)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(c->arowptr, c->acol, c->aval));
  PetscCall(PetscFree2(c->perm, c->iperm));
  PetscCall(PetscFree4(c->lcolptr, c->parent, c->colcount, c->level));
  PetscCall(PetscFree4(c->order, c->lptr, c->snptr, c->dest));
  PetscCall(PetscFree(c->lrow));
  PetscCall(PetscFree2(c->lval, c->d));
  PetscCall(PetscFree(c->panels));
  delete c->plan;
  c->plan = NULL;
#if PGX_HAVE_CUDA
  if (c->cu) {
    K::cuda::Data *d = (K::cuda::Data *)c->cu;
    PetscCall(K::cuda::Destroy(&d));
    c->cu = NULL;
  }
#endif
  c->numeric_done     = PETSC_FALSE;
  c->symbolic_checked = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_PGXLDLT(Mat F)
{
  Mat_PGXLDLT *c = (Mat_PGXLDLT *)F->data;

  PetscFunctionBegin;
  PetscCall(LDLTFreeSymbolic(c));
  PetscCall(PetscFree(F->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatFactorGetSolverType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatPGXLDLTGetSummary_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatPGXLDLTGetOrdering_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A as SEQAIJ (SBAIJ converted to its full AIJ form; AIJCUSPARSE is an AIJ) */
static PetscErrorCode LDLTGetAIJ(Mat A, Mat *B)
{
  PetscBool isaij;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &isaij));
  if (isaij) {
    PetscCall(PetscObjectReference((PetscObject)A));
    *B = A;
  } else PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the graph of A + A^T without the diagonal, in METIS's form (rows sorted, no duplicates) */
static PetscErrorCode LDLTGraph(Mat_PGXLDLT *c, std::vector<idx_t> &xadj, std::vector<idx_t> &adj)
{
  PetscInt  n = c->n, *crowptr, *ccol;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &crowptr));
  for (PetscInt k = 0; k < n; k++) c->iperm[k] = k;
  PetscCall(sym::PermutedLower(n, c->arowptr, c->acol, c->iperm, crowptr, &ccol));
  PetscCheck(2 * (PetscInt64)crowptr[n] <= (PetscInt64)IDX_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The graph of A has %" PetscInt_FMT " edges, too many for METIS's index type (%d bits)", crowptr[n], IDXTYPEWIDTH);
  xadj.assign(n + 1, 0);
  adj.assign(2 * (size_t)crowptr[n] + 1, 0);
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = crowptr[i]; k < crowptr[i + 1]; k++) {
      xadj[i + 1]++;
      xadj[ccol[k] + 1]++;
    }
  for (PetscInt i = 0; i < n; i++) xadj[i + 1] += xadj[i];
  std::vector<idx_t> next(xadj.begin(), xadj.end() - 1);
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = crowptr[i]; k < crowptr[i + 1]; k++) {
      adj[next[i]++]       = (idx_t)ccol[k];
      adj[next[ccol[k]]++] = (idx_t)i;
    }
  PetscCall(PetscFree(crowptr));
  PetscCall(PetscFree(ccol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_pgx_ldlt_nd_procs default: the cores this process may run on (its affinity mask, which forked children
   inherit); when that is the whole node (the process is not bound), divided by the MPI ranks on the node, from
   the launcher's environment (Open MPI, MPICH/Hydra, Slurm), else by the size of PETSC_COMM_WORLD (an upper
   bound; no collective call, the symbolic phase of a sequential factor may run on one rank alone); 1..16 */
static PetscInt LDLTNDDefaultProcs(void)
{
  long      online = sysconf(_SC_NPROCESSORS_ONLN), cores;
  cpu_set_t set;

  if (online < 1) online = 1;
  cores = online;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) cores = PetscMin(cores, (long)CPU_COUNT(&set));
  if (cores == online) {
    const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"};
    long        local  = 0;
    for (const char *v : vars) {
      const char *e = getenv(v);
      if (e && atol(e) > 0) {
        local = atol(e);
        break;
      }
    }
    if (local <= 0) {
      PetscMPIInt size = 1;
      if (MPI_Comm_size(PETSC_COMM_WORLD, &size) == MPI_SUCCESS && size > 0) local = size;
      else local = 1;
    }
    cores = online / local;
  }
  return (PetscInt)PetscMax(1, PetscMin(cores, (long)nd::NDMaxProcs));
}

/* FNV-1a hash of a permutation (MatView prints it: tests compare permutations by it) */
static unsigned long long LDLTHash(PetscInt n, const PetscInt *perm)
{
  unsigned long long h = 14695981039346656037ULL;
  for (PetscInt k = 0; k < n; k++) {
    unsigned long long v = (unsigned long long)(long long)perm[k];
    for (int b = 0; b < 8; b++) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 1099511628211ULL;
    }
  }
  return h;
}

/* nd's after_fork: start the CUDA probe once no fork() follows (its error, if any, is reported by the probe itself) */
static void LDLTProbeAfterFork(void)
{
  (void)PGXCUDAProbeBegin();
}

static PetscErrorCode LDLTOrder(Mat F, Mat_PGXLDLT *c, IS isperm)
{
  PetscInt n = c->n;

  PetscFunctionBegin;
  LDLTOrdering o = c->ordering;
  if (o == LDLT_ORDERING_AUTO) o = isperm ? LDLT_ORDERING_PETSC : (n >= 5000 ? LDLT_ORDERING_ND : LDLT_ORDERING_AMD); /* nd: depth 0, i.e. one METIS_NodeND call, below 32768 */
  if (n <= 2 && o != LDLT_ORDERING_PETSC) o = LDLT_ORDERING_NATURAL;
  c->used_ordering = o;
  /* the process's first CUDA calls (tenths of a second) on a thread beside the ordering; nd starts it once its
     children are forked (a process must not fork while another of its threads initializes the CUDA driver) */
  if (c->devreq != PGX_DEVICE_HOST && o != LDLT_ORDERING_ND) PetscCall(PGXCUDAProbeBegin());
  if (o == LDLT_ORDERING_ND) PetscCall(PGXCUDAProbeJoin()); /* one a KSP or PC started at its SetFromOptions: done before the fork */
  switch (o) {
  case LDLT_ORDERING_NATURAL:
    for (PetscInt k = 0; k < n; k++) c->perm[k] = k;
    break;
  case LDLT_ORDERING_PETSC: {
    const PetscInt *idx;
    PetscInt        len;
    PetscCheck(isperm, PetscObjectComm((PetscObject)F), PETSC_ERR_ARG_WRONGSTATE, "-mat_pgx_ordering petsc needs the ordering that PETSc passes to MatCholeskyFactorSymbolic(); none was given (set -pc_factor_mat_ordering_type)");
    PetscCall(ISGetLocalSize(isperm, &len));
    PetscCheck(len == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Ordering of length %" PetscInt_FMT " for a matrix of size %" PetscInt_FMT, len, n);
    PetscCall(ISGetIndices(isperm, &idx));
    PetscCall(PetscArraycpy(c->perm, idx, n));
    PetscCall(ISRestoreIndices(isperm, &idx));
  } break;
  case LDLT_ORDERING_AMD: {
    double control[AMD_CONTROL], info[AMD_INFO];
    amd_defaults(control);
    if (sizeof(PetscInt) == sizeof(int)) {
      int st = amd_order((int)n, (const int *)c->arowptr, (const int *)c->acol, (int *)c->perm, control, info);
      PetscCheck(st == AMD_OK || st == AMD_OK_BUT_JUMBLED, PETSC_COMM_SELF, PETSC_ERR_LIB, "amd_order() failed with status %d", st);
    } else {
      std::vector<SuiteSparse_long> p(n + 1), ci(c->nnzA), pm(n);
      for (PetscInt i = 0; i <= n; i++) p[i] = c->arowptr[i];
      for (PetscInt k = 0; k < c->nnzA; k++) ci[k] = c->acol[k];
      SuiteSparse_long st = amd_l_order((SuiteSparse_long)n, p.data(), ci.data(), pm.data(), control, info);
      PetscCheck(st == AMD_OK || st == AMD_OK_BUT_JUMBLED, PETSC_COMM_SELF, PETSC_ERR_LIB, "amd_l_order() failed with status %d", (int)st);
      for (PetscInt i = 0; i < n; i++) c->perm[i] = (PetscInt)pm[i];
    }
  } break;
  case LDLT_ORDERING_METIS: {
    std::vector<idx_t> xadj, adj, mperm(n), miperm(n);
    PetscCall(LDLTGraph(c, xadj, adj));
    /* METIS's defaults (its own ndmetis): the graph above is already clean (no self-loops, no duplicates, sorted
       rows), COMPRESS is on, CCORDER off; other refinement settings change the ordering (and its fill) */
    idx_t nv = (idx_t)n, options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_NUMBERING] = 0;
    PetscLogDouble tm               = MPI_Wtime();
    int            st               = METIS_NodeND(&nv, xadj.data(), adj.data(), NULL, options, mperm.data(), miperm.data());
    PetscCheck(st == METIS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "METIS_NodeND() failed with status %d", st);
    PetscCall(PetscInfo(F, "METIS_NodeND: %.3g s (graph of %" PetscInt_FMT " vertices and %" PetscInt_FMT " edges)\n", MPI_Wtime() - tm, n, (PetscInt)xadj[n] / 2));
    for (PetscInt i = 0; i < n; i++) c->perm[i] = (PetscInt)mperm[i];
  } break;
  case LDLT_ORDERING_ND: {
    std::vector<idx_t> xadj, adj, mperm(n);
    nd::Stats          st;
    std::string        what;
    PetscCall(LDLTGraph(c, xadj, adj));
    PetscInt depth = c->nd_depth >= 0 ? c->nd_depth : nd::Depth(n);
    PetscInt procs = depth == 0 ? 1 : (c->nd_procs > 0 ? c->nd_procs : LDLTNDDefaultProcs());
    int      rc    = nd::Order((idx_t)n, xadj.data(), adj.data(), (int)depth, (int)PetscMin(procs, nd::NDMaxProcs), (int)c->nd_fail_call, mperm.data(), &st, &what, c->devreq != PGX_DEVICE_HOST ? LDLTProbeAfterFork : nullptr);
    PetscCheck(rc == METIS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "PGX nested dissection (-mat_pgx_ordering nd): %s", what.c_str());
    for (const std::string &f : st.fallbacks) PetscCall(PetscInfo(F, "nested dissection: %s\n", f.c_str()));
    char compressed[64] = "";
    if (st.compressed) PetscCall(PetscSNPrintf(compressed, sizeof(compressed), ", compressed to %lld vertices", st.compressed));
    PetscCall(PetscInfo(F, "nested dissection (graph of %" PetscInt_FMT " vertices and %" PetscInt_FMT " edges%s): depth %d, %d separators, %d leaves, %d processes at a time (%d calls in child processes, forked in %.3g s): %.3g s; the calls' own times: separators %.3g s, leaves %.3g s (largest %.3g s), critical path %.3g s\n", n, (PetscInt)xadj[n] / 2, compressed, st.depth, st.nseparators, st.nleaves, st.procs, st.nforked, st.t_fork, st.t_total, st.t_separators, st.t_leaves, st.t_leaf_max, st.t_critical));
    c->nd_used_depth = st.depth;
    c->nd_used_procs = st.procs;
    for (PetscInt i = 0; i < n; i++) c->perm[i] = (PetscInt)mperm[i];
  } break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unknown ordering");
  }
  for (PetscInt k = 0; k < n; k++) c->iperm[k] = -1;
  for (PetscInt k = 0; k < n; k++) {
    PetscCheck(c->perm[k] >= 0 && c->perm[k] < n && c->iperm[c->perm[k]] < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The ordering is not a permutation (entry %" PetscInt_FMT ")", k);
    c->iperm[c->perm[k]] = k;
  }
  c->perm_hash = LDLTHash(n, c->perm);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorNumeric_PGXLDLT(Mat, Mat, const MatFactorInfo *);
static PetscErrorCode MatView_PGXLDLT(Mat, PetscViewer);

static PetscErrorCode MatCholeskyFactorSymbolic_PGXLDLT(Mat F, Mat A, IS isperm, const MatFactorInfo *info)
{
  Mat_PGXLDLT    *c = (Mat_PGXLDLT *)F->data;
  Mat             B;
  const PetscInt *ia, *ja;
  PetscInt        n, m, N, rank;
  PetscBool       done;
  PetscLogDouble  t0;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &N));
  PetscCheck(m == N, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "MATSOLVERPGX Cholesky/LDL^T needs a square matrix; this one is %" PetscInt_FMT " x %" PetscInt_FMT, m, N);
  PetscOptionsBegin(PetscObjectComm((PetscObject)F), ((PetscObject)F)->prefix, "PGX sparse LDL^T options", "Mat");
  PetscCall(PetscOptionsEnum("-mat_pgx_ordering", "Fill-reducing ordering: auto (nd for n >= 5000, amd below; petsc when PETSc passes an ordering), metis (one METIS_NodeND call), nd (PGX's nested dissection on METIS, its calls in parallel child processes), amd, natural, petsc (-pc_factor_mat_ordering_type)", "MatCholeskyFactorSymbolic", LDLTOrderings, (PetscEnum)c->ordering, (PetscEnum *)&c->ordering, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_ldlt_nd_procs", "-mat_pgx_ordering nd: METIS calls run at once, each in a forked child process (1: all in this process, the same permutation; 0: the cores of this process, divided by the MPI ranks on the node when it is not bound, at most 16)", "MatCholeskyFactorSymbolic", c->nd_procs, &c->nd_procs, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_ldlt_nd_depth", "-mat_pgx_ordering nd: dissection depth (-1: from n, leaves of 16k-32k vertices, at most 5; 0: one METIS_NodeND call); for tests and benchmarks", "MatCholeskyFactorSymbolic", c->nd_depth, &c->nd_depth, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_ldlt_nd_fail_call", "Testing: -mat_pgx_ordering nd: the child process that makes this claim (0, 1, ... among the claims of the children) exits at once, its part runs again (-info says so)", "MatCholeskyFactorSymbolic", c->nd_fail_call, &c->nd_fail_call, NULL));
  PetscCall(PetscOptionsEnum("-mat_pgx_ldlt_method", "Numeric factorization: auto (supernodal when supernodes average 4 columns or more; with cuda also when half the flops are in supernodes of 16 columns or more), column (level-scheduled right-looking), supernodal (dense blocks)", "MatCholeskyFactorNumeric", LDLTMethods, (PetscEnum)c->method, (PetscEnum *)&c->method, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_ldlt_large", "Supernodal method on the GPU: supernodes with nc >= this many columns or nr >= 8 times as many rows below use cuBLAS (trsm, syrkx, gemm), the others one thread block each", "MatCholeskyFactorNumeric", c->large_min, &c->large_min, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_ldlt_nb", "Supernodal method on the GPU: block size (1..64) of the blocked LDL^T of large diagonal blocks", "MatCholeskyFactorNumeric", c->nb, &c->nb, NULL));
  PetscCall(PetscOptionsReal("-mat_pgx_ldlt_gpu_memory", "Supernodal method on the GPU: bytes its buffers may take (0: the free GPU memory); more is an error saying how many are needed", "MatCholeskyFactorSymbolic", c->gpu_memory, &c->gpu_memory, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_ldlt_panels", "Supernodal method on the host: run the GPU's panel algorithm (its schedule, maps and blocking) in plain C++ instead of the reference (for testing)", "MatCholeskyFactorNumeric", c->host_panels, &c->host_panels, NULL));
  PetscCall(PetscOptionsReal("-mat_pgx_pivot_tol", "Static pivoting: pivots with |d| <= tol*||A||_inf become sign(d)*tol*||A||_inf (0: no repair, zero pivots are errors)", "MatCholeskyFactorNumeric", c->pivot_tol, &c->pivot_tol, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_refine_steps", "Iterative refinement steps in MatSolve (-1: automatic when pivots were perturbed, until the componentwise backward error stops falling, at most 10; 0: none)", "MatSolve", c->refine_steps, &c->refine_steps, NULL));
  PetscCall(PetscOptionsInt("-mat_pgx_refine_gmres", "Most GMRES iterations (factor as preconditioner) after refinement when the backward error is still above 1e-14 (0: none)", "MatSolve", c->gmres_max, &c->gmres_max, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_hermitian", "Complex Hermitian A: LDL^H instead of LDL^T", "MatCholeskyFactorSymbolic", c->hermitian, &c->hermitian, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_ldlt_check_symbolic", "Testing: redo the symbolic phase with the simple algorithms and stop with an error where a result differs", "MatCholeskyFactorSymbolic", c->check_symbolic, &c->check_symbolic, NULL));
  PetscCall(PetscOptionsBool("-mat_pgx_check_symmetry", "Check that A is symmetric (Hermitian) at each numeric factorization", "MatCholeskyFactorNumeric", c->check_symmetry, &c->check_symmetry, NULL));
  PetscCall(PetscOptionsEnum("-pgx_device", "Where the numeric phase and the solves run: auto, host (reference), cuda", "MatCholeskyFactorNumeric", PGXDeviceTypes, (PetscEnum)c->devreq, (PetscEnum *)&c->devreq, NULL));
  PetscOptionsEnd();
  PetscCheck(c->nd_procs >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_ldlt_nd_procs %" PetscInt_FMT " must be >= 0", c->nd_procs);
  PetscCheck(c->nd_depth >= -1 && c->nd_depth <= 12, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_ldlt_nd_depth %" PetscInt_FMT " must be in [-1, 12]", c->nd_depth);
  PetscCheck(c->large_min >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_ldlt_large %" PetscInt_FMT " must be >= 0", c->large_min);
  PetscCheck(c->gpu_memory >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_ldlt_gpu_memory %g must be >= 0", (double)c->gpu_memory);
  PetscCheck(c->nb >= 1 && c->nb <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_ldlt_nb %" PetscInt_FMT " must be in [1, 64]", c->nb);
  PetscCheck(c->pivot_tol >= 0 && c->pivot_tol < 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_pgx_pivot_tol %g must be in [0, 1)", (double)c->pivot_tol);
#if !defined(PETSC_USE_COMPLEX)
  c->hermitian = PETSC_FALSE; /* real: LDL^T and LDL^H are the same */
#else
  if (!c->hermitian) {
    PetscBool known, flg;
    PetscCall(MatIsHermitianKnown(A, &known, &flg));
    if (known && flg) c->hermitian = PETSC_TRUE;
  }
#endif
  PetscCall(PetscLogEventBegin(PGX_LDLTSymbolic, F, A, 0, 0));
  t0 = MPI_Wtime();
  PetscCall(LDLTFreeSymbolic(c));
  PetscCall(LDLTGetAIJ(A, &B));
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ() failed");
  c->n    = n;
  c->nnzA = ia[n];
  PetscCall(PetscMalloc3(n + 1, &c->arowptr, c->nnzA + 1, &c->acol, c->nnzA + 1, &c->aval));
  PetscCall(PetscArraycpy(c->arowptr, ia, n + 1));
  PetscCall(PetscArraycpy(c->acol, ja, c->nnzA));
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  n = c->n; // MatRestoreRowIJ() may clear it
  PetscCall(MatDestroy(&B));

  PetscCall(sym::StructuralRank(n, c->arowptr, c->acol, &rank));
  PetscCheck(rank == n, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "MATSOLVERPGX: the matrix is structurally singular (structural rank %" PetscInt_FMT " < n = %" PetscInt_FMT "): no factorization exists", rank, n);

  PetscLogDouble tp[6];
  tp[0] = MPI_Wtime();
  PetscCall(PetscMalloc2(n, &c->perm, n, &c->iperm));
  PetscCall(LDLTOrder(F, c, isperm));
  /* the backend: after the ordering, which overlapped the CUDA probe (PGXCUDAProbeBegin()) */
  PetscCall(PGXDeviceResolve(PetscObjectComm((PetscObject)F), c->devreq, &c->device)); /* real and complex (symmetric or Hermitian) on both backends */
  tp[1]         = MPI_Wtime();
  c->t_ordering = tp[1] - tp[0];

  PetscInt      *crowptr, *ccol;
  PetscLogDouble ts[4];
  PetscCall(PetscMalloc1(n + 1, &crowptr));
  PetscCall(sym::PermutedLower(n, c->arowptr, c->acol, c->iperm, crowptr, &ccol));
  PetscCall(PetscMalloc4(n + 1, &c->lcolptr, n, &c->parent, n, &c->colcount, n, &c->level));
  PetscCall(PetscMalloc4(n, &c->order, n + 1, &c->lptr, n + 1, &c->snptr, c->nnzA, &c->dest));
  ts[0] = MPI_Wtime();
  PetscCall(sym::EtreeCounts(n, crowptr, ccol, c->parent, c->colcount));
  c->lcolptr[0] = 0;
  for (PetscInt j = 0; j < n; j++) c->lcolptr[j + 1] = c->lcolptr[j] + c->colcount[j];
  c->nnzL = c->lcolptr[n];
  ts[1] = MPI_Wtime();
  PetscCall(PetscMalloc1(c->nnzL + 1, &c->lrow));
  PetscCall(sym::Structure(n, crowptr, ccol, c->parent, c->lcolptr, c->lrow));
  PetscCall(PetscFree(crowptr));
  PetscCall(PetscFree(ccol));
  ts[2] = MPI_Wtime();
  PetscCall(sym::Levels(n, c->parent, c->level, c->order, c->lptr, &c->nlevels));
  PetscCall(sym::Supernodes(n, c->parent, c->colcount, c->snptr, &c->nsuper));
  c->maxsuper = 0;
  for (PetscInt s = 0; s < c->nsuper; s++) c->maxsuper = PetscMax(c->maxsuper, c->snptr[s + 1] - c->snptr[s]);
  ts[3] = MPI_Wtime();
  PetscCall(sym::ScatterMap(n, c->arowptr, c->acol, c->iperm, c->lcolptr, c->lrow, c->dest));
  tp[2] = MPI_Wtime();
  PetscCall(PetscInfo(F, "tree and structure (s): permuted pattern %.3g, etree and column counts %.3g, structure of L %.3g, levels and supernodes %.3g, value map %.3g\n", ts[0] - tp[1], ts[1] - ts[0], ts[2] - ts[1], ts[3] - ts[2], tp[2] - ts[3]));
  PetscCall(PetscMalloc2(c->device == PGX_DEVICE_HOST ? c->nnzL + 1 : 1, &c->lval, n + 1, &c->d)); /* cuda: L stays on the device */
  c->used_method = c->method;
  if (c->used_method == LDLT_METHOD_AUTO) {
    c->used_method = (c->nsuper > 0 && c->n >= 4 * c->nsuper) ? LDLT_METHOD_SUPERNODAL : LDLT_METHOD_COLUMN;
    if (c->device == PGX_DEVICE_CUDA && c->used_method == LDLT_METHOD_COLUMN) {
      /* on the GPU also when most flops are in supernodes of 16 columns or more (3D meshes: many one-column
         supernodes, but the flops are in the dense separators, where the column method is 10-100 times slower) */
      PetscLogDouble fall = 0, fwide = 0;
      for (PetscInt s = 0; s < c->nsuper; s++) {
        PetscInt       f = c->snptr[s], nc = c->snptr[s + 1] - f, nr = c->colcount[f] - (nc - 1), m = nc + nr;
        PetscLogDouble fs = 1.5 * (PetscLogDouble)nr * (nr + 1) * nc;
        for (PetscInt t = 0; t < nc; t++) fs += (m - t - 1) + 2.0 * (PetscLogDouble)(nc - t - 1) * (m - t);
        fall += fs;
        if (nc >= 16) fwide += fs;
      }
      if (fwide >= 0.5 * fall && fall > 0) c->used_method = LDLT_METHOD_SUPERNODAL;
    }
  }
  if (c->used_method == LDLT_METHOD_SUPERNODAL && (c->device == PGX_DEVICE_CUDA || c->host_panels)) {
    c->plan = new sym::SupernodalPlan();
    PetscCall(sym::SupernodalPlanCreate(n, c->lcolptr, c->lrow, c->parent, c->nsuper, c->snptr, c->arowptr, c->acol, c->iperm, c->dest, c->plan));
    PetscCall(PetscInfo(F, "supernodal plan: %" PetscInt_FMT " levels of the supernodal tree, panels %" PetscInt64_FMT " entries, %zu segments, relmap %zu entries\n", c->plan->nslevels, c->plan->pofs[c->nsuper], c->plan->segsn.size(), c->plan->relmap.size()));
    if (c->device == PGX_DEVICE_HOST) PetscCall(PetscMalloc1(c->plan->pofs[c->nsuper] + 1, &c->panels));
    {
      PetscInt       nlarge = 0;
      PetscLogDouble flarge = 0, fall = 0;
      for (PetscInt s = 0; s < c->nsuper; s++) {
        PetscInt       nc = c->snptr[s + 1] - c->snptr[s], nr = c->plan->nr[s], m = nc + nr;
        PetscLogDouble fs = 1.5 * (PetscLogDouble)nr * (nr + 1) * nc;
        for (PetscInt t = 0; t < nc; t++) fs += (m - t - 1) + 2.0 * (PetscLogDouble)(nc - t - 1) * (m - t);
        fall += fs;
        if (sym::SupernodalIsLarge(nc, nr, c->large_min)) {
          nlarge++;
          flarge += fs;
        }
      }
      PetscCall(PetscInfo(F, "supernodal plan: %" PetscInt_FMT " of %" PetscInt_FMT " supernodes large (-mat_pgx_ldlt_large %" PetscInt_FMT "), %.1f%% of the %g flops\n", nlarge, c->nsuper, c->large_min, fall > 0 ? 100.0 * flarge / fall : 0.0, fall));
    }
  }
  tp[3] = MPI_Wtime();
#if PGX_HAVE_CUDA
  if (c->device == PGX_DEVICE_CUDA) {
    K::cuda::Data *d;
    PetscCall(K::cuda::Create(&d));
    c->cu = d;
    PetscCall(K::cuda::Analyze(d, n, c->perm, c->lcolptr, c->lrow, c->nlevels, c->order, c->lptr, c->nnzA, c->dest));
    if (c->plan) PetscCall(K::cuda::AnalyzeSupernodal(d, c->plan, c->large_min, c->nb, (size_t)c->gpu_memory));
  }
#endif
  tp[4] = MPI_Wtime();
  if (c->check_symbolic) {
    const char *what;
    PetscCall(sym::simple::Check(n, c->arowptr, c->acol, c->iperm, c->parent, c->colcount, c->lcolptr, c->lrow, c->nsuper, c->snptr, c->dest, c->plan, &what));
    PetscCheck(!what, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_pgx_ldlt_check_symbolic: the %s differs from that of the simple algorithms", what);
    c->symbolic_checked = PETSC_TRUE;
    PetscCall(PetscInfo(F, "-mat_pgx_ldlt_check_symbolic: the same results as the simple algorithms (%.3g s)\n", MPI_Wtime() - tp[4]));
  }
  PetscCall(PetscInfo(F, "symbolic phases (s): structural rank and copy %.3g, ordering %.3g, etree/structure/levels/supernodes/map %.3g, supernodal plan %.3g, device analysis %.3g\n", tp[0] - t0, tp[1] - tp[0], tp[2] - tp[1], tp[3] - tp[2], tp[4] - tp[3]));
  c->nsymbolic++;
  c->t_symbolic = MPI_Wtime() - t0;
  PetscCall(PetscLogEventEnd(PGX_LDLTSymbolic, F, A, 0, 0));
  PetscCall(PetscInfo(F, "symbolic: n %" PetscInt_FMT ", ordering %s, nnz(L) %" PetscInt_FMT ", %" PetscInt_FMT " levels, %" PetscInt_FMT " supernodes\n", n, LDLTOrderings[c->used_ordering], c->nnzL + n, c->nlevels, c->nsuper));
  F->ops->choleskyfactornumeric = MatCholeskyFactorNumeric_PGXLDLT;
  F->preallocated               = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- solves */
static void LDLTResidual(const Mat_PGXLDLT *c, PetscBool conj, const PetscScalar *b, const PetscScalar *x, PetscScalar *r, PetscReal *absax)
{
  /* r = b - op(A) x (op = conj for the transpose of a Hermitian A); absax = |A||x| + |b| (may be NULL) */
  for (PetscInt i = 0; i < c->n; i++) {
    PetscScalar s = b[i];
    PetscReal   t = PetscAbsScalar(b[i]);
    for (PetscInt k = c->arowptr[i]; k < c->arowptr[i + 1]; k++) {
      PetscScalar a = conj ? PetscConj(c->aval[k]) : c->aval[k];
      s -= a * x[c->acol[k]];
      t += PetscAbsScalar(a) * PetscAbsScalar(x[c->acol[k]]);
    }
    r[i] = s;
    if (absax) absax[i] = t;
  }
}

static PetscErrorCode LDLTApplyFactor(const Mat_PGXLDLT *c, PetscBool conj, PetscInt nrhs, const PetscScalar *b, PetscScalar *x, PetscScalar *work)
{
  PetscFunctionBegin;
  const PetscScalar *in = b;
  if (conj) { /* A^T = conj(A) for Hermitian A: x = conj(A^-1 conj(b)) (both backends) */
    for (PetscInt i = 0; i < c->n * nrhs; i++) x[i] = PetscConj(b[i]);
    in = x;
  }
  if (c->cu) {
#if PGX_HAVE_CUDA
    PetscCall(K::cuda::Solve((K::cuda::Data *)c->cu, nrhs, in, x));
#endif
  } else if (c->panels && c->used_method == LDLT_METHOD_SUPERNODAL) PetscCall(ref::SolvePanels(c->plan, c->lcolptr, c->lrow, c->panels, c->perm, c->hermitian, nrhs, in, x, work)); /* -mat_pgx_ldlt_panels */
  else PetscCall(ref::Solve(c->n, c->perm, c->lcolptr, c->lrow, c->lval, c->d, c->hermitian, nrhs, in, x, work));
  if (conj)
    for (PetscInt i = 0; i < c->n * nrhs; i++) x[i] = PetscConj(x[i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal NormInf(PetscInt n, const PetscScalar *x)
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < n; i++) s = PetscMax(s, PetscAbsScalar(x[i]));
  return s;
}

/* Refinement of x for one right-hand side: plain iterative refinement while the componentwise backward error
   falls (at least by half per step), then right-preconditioned restarted GMRES (the factor as preconditioner)
   when the normwise backward error is still above 1e-14. */
static PetscErrorCode LDLTRefine(Mat_PGXLDLT *c, PetscBool conj, const PetscScalar *b, PetscScalar *x)
{
  PetscInt               n = c->n, maxir = c->refine_steps < 0 ? 10 : c->refine_steps, it;
  std::vector<PetscScalar> r(n), dx(n), work(n);
  std::vector<PetscReal>   absax(n);
  PetscReal              berr_prev = PETSC_MAX_REAL, nb = NormInf(n, b), target = 1e-14;

  PetscFunctionBegin;
  c->last_ir = c->last_gmres = 0;
  c->last_berr               = -1;
  if (c->refine_steps == 0 || (c->refine_steps < 0 && c->nperturbed == 0)) PetscFunctionReturn(PETSC_SUCCESS);
  for (it = 0; it <= maxir; it++) {
    PetscReal berr = 0;
    LDLTResidual(c, conj, b, x, r.data(), absax.data());
    for (PetscInt i = 0; i < n; i++)
      if (absax[i] > 0) berr = PetscMax(berr, PetscAbsScalar(r[i]) / absax[i]);
    if (it == maxir || berr <= PETSC_MACHINE_EPSILON || berr > 0.5 * berr_prev) break;
    PetscCall(LDLTApplyFactor(c, conj, 1, r.data(), dx.data(), work.data()));
    for (PetscInt i = 0; i < n; i++) x[i] += dx[i];
    berr_prev = berr;
    c->last_ir++;
  }
  /* normwise backward error ||b - Ax|| / (||A|| ||x|| + ||b||) (infinity norms) */
  LDLTResidual(c, conj, b, x, r.data(), NULL);
  PetscReal berr = NormInf(n, r.data()) / (c->anorm * NormInf(n, x) + nb);
  if (berr > target && c->gmres_max > 0) {
    /* GMRES(m) on A e = r, right-preconditioned: A M^-1 u = r, e = M^-1 u; x += e after each cycle */
    const PetscInt           m = 30;
    std::vector<PetscScalar> V((size_t)(m + 1) * n), H((size_t)(m + 1) * m), g(m + 1), cs(m), sn(m), y(m), w(n);
    PetscInt                 total = 0;
    while (total < c->gmres_max && berr > target) {
      PetscReal beta = 0, tol = target * (c->anorm * NormInf(n, x) + nb), prev = berr;
      for (PetscInt i = 0; i < n; i++) beta += PetscRealPart(PetscConj(r[i]) * r[i]);
      beta = PetscSqrtReal(beta);
      if (beta == 0) break;
      for (PetscInt i = 0; i < n; i++) V[i] = r[i] / beta;
      for (PetscInt i = 0; i <= m; i++) g[i] = 0;
      g[0]       = beta;
      PetscInt k = 0;
      for (; k < m && total < c->gmres_max; k++, total++) {
        PetscScalar *vk = &V[(size_t)k * n], *vk1 = &V[(size_t)(k + 1) * n];
        PetscCall(LDLTApplyFactor(c, conj, 1, vk, w.data(), work.data()));
        std::vector<PetscScalar> zero(n, 0);
        LDLTResidual(c, conj, zero.data(), w.data(), vk1, NULL); /* vk1 = -A M^-1 vk */
        for (PetscInt i = 0; i < n; i++) vk1[i] = -vk1[i];
        for (PetscInt j = 0; j <= k; j++) { /* modified Gram-Schmidt */
          PetscScalar h = 0, *vj = &V[(size_t)j * n];
          for (PetscInt i = 0; i < n; i++) h += PetscConj(vj[i]) * vk1[i];
          for (PetscInt i = 0; i < n; i++) vk1[i] -= h * vj[i];
          H[j + k * (m + 1)] = h;
        }
        PetscReal hn = 0;
        for (PetscInt i = 0; i < n; i++) hn += PetscRealPart(PetscConj(vk1[i]) * vk1[i]);
        hn                     = PetscSqrtReal(hn);
        H[k + 1 + k * (m + 1)] = hn;
        if (hn > 0)
          for (PetscInt i = 0; i < n; i++) vk1[i] /= hn;
        for (PetscInt j = 0; j < k; j++) { /* previous rotations */
          PetscScalar a = H[j + k * (m + 1)], bb = H[j + 1 + k * (m + 1)];
          H[j + k * (m + 1)]     = cs[j] * a + sn[j] * bb;
          H[j + 1 + k * (m + 1)] = -PetscConj(sn[j]) * a + cs[j] * bb;
        }
        PetscScalar a = H[k + k * (m + 1)], bb = H[k + 1 + k * (m + 1)];
        PetscReal   aa = PetscAbsScalar(a), nrm = PetscSqrtReal(aa * aa + PetscAbsScalar(bb) * PetscAbsScalar(bb));
        if (aa == 0) {
          cs[k] = 0;
          sn[k] = 1;
          H[k + k * (m + 1)] = bb;
        } else {
          cs[k]              = aa / nrm;
          sn[k]              = (a / aa) * PetscConj(bb) / nrm;
          H[k + k * (m + 1)] = (a / aa) * nrm;
        }
        H[k + 1 + k * (m + 1)] = 0;
        g[k + 1]               = -PetscConj(sn[k]) * g[k];
        g[k]                   = cs[k] * g[k];
        if (PetscAbsScalar(g[k + 1]) <= tol) {
          k++;
          total++;
          break;
        }
      }
      /* y = H^-1 g, e = M^-1 V y */
      for (PetscInt j = k - 1; j >= 0; j--) {
        PetscScalar s = g[j];
        for (PetscInt l = j + 1; l < k; l++) s -= H[j + l * (m + 1)] * y[l];
        y[j] = s / H[j + j * (m + 1)];
      }
      for (PetscInt i = 0; i < n; i++) dx[i] = 0;
      for (PetscInt j = 0; j < k; j++)
        for (PetscInt i = 0; i < n; i++) dx[i] += y[j] * V[(size_t)j * n + i];
      PetscCall(LDLTApplyFactor(c, conj, 1, dx.data(), w.data(), work.data()));
      for (PetscInt i = 0; i < n; i++) x[i] += w[i];
      LDLTResidual(c, conj, b, x, r.data(), NULL);
      berr = NormInf(n, r.data()) / (c->anorm * NormInf(n, x) + nb);
      c->last_gmres += k;
      if (!(berr < 0.9 * prev)) break; /* no progress */
    }
  }
  c->last_berr = berr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LDLTSolveVec(Mat F, Vec b, Vec x, PetscBool transpose)
{
  Mat_PGXLDLT       *c = (Mat_PGXLDLT *)F->data;
  const PetscScalar *bb;
  PetscScalar       *xx;
  PetscBool          conj = (PetscBool)(transpose && c->hermitian);
  PetscLogDouble     t0;

  PetscFunctionBegin;
  if (F->factorerrortype) {
    PetscCall(PetscInfo(F, "MatSolve called on a factor that failed (zero pivot): output is Inf\n"));
    PetscCall(PGXVecSetInf(x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(PGX_LDLTSolve, F, b, x, 0));
  t0 = MPI_Wtime();
  std::vector<PetscScalar> work(c->n), bcopy(c->n);
  PetscCall(VecGetArrayRead(b, &bb));
  PetscCall(PetscArraycpy(bcopy.data(), bb, c->n));
  PetscCall(VecRestoreArrayRead(b, &bb));
  PetscCall(VecGetArrayWrite(x, &xx));
  PetscCall(LDLTApplyFactor(c, conj, 1, bcopy.data(), xx, work.data()));
  PetscCall(LDLTRefine(c, conj, bcopy.data(), xx));
  PetscCall(VecRestoreArrayWrite(x, &xx));
  PetscCall(PetscLogFlops(4.0 * c->nnzL + c->n));
  c->nsolve++;
  c->t_solve = MPI_Wtime() - t0;
  PetscCall(PetscLogEventEnd(PGX_LDLTSolve, F, b, x, 0));
  if (c->last_ir || c->last_gmres) PetscCall(PetscInfo(F, "refinement: %" PetscInt_FMT " steps, %" PetscInt_FMT " GMRES iterations, backward error %g\n", c->last_ir, c->last_gmres, (double)c->last_berr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_PGXLDLT(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(LDLTSolveVec(F, b, x, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_PGXLDLT(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(LDLTSolveVec(F, b, x, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolve_PGXLDLT(Mat F, Mat B, Mat X)
{
  Mat_PGXLDLT       *c = (Mat_PGXLDLT *)F->data;
  const PetscScalar *bb;
  PetscScalar       *xx;
  PetscInt           nrhs, ldb, ldx, n = c->n;
  PetscBool          dense;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &dense, MATSEQDENSE, MATSEQDENSECUDA, ""));
  PetscCheck(dense, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatMatSolve with MATSOLVERPGX needs a MATSEQDENSE right-hand side");
  PetscCall(PetscObjectTypeCompareAny((PetscObject)X, &dense, MATSEQDENSE, MATSEQDENSECUDA, ""));
  PetscCheck(dense, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatMatSolve with MATSOLVERPGX needs a MATSEQDENSE solution matrix");
  PetscCall(MatGetSize(B, NULL, &nrhs));
  if (F->factorerrortype) {
    PetscCall(MatDenseGetArrayWrite(X, &xx));
    PetscCall(MatDenseGetLDA(X, &ldx));
    for (PetscInt i = 0; i < ldx * nrhs; i++) xx[i] = PETSC_INFINITY;
    PetscCall(MatDenseRestoreArrayWrite(X, &xx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(PGX_LDLTSolve, F, B, X, 0));
  std::vector<PetscScalar> bc((size_t)n * nrhs), xc((size_t)n * nrhs), work((size_t)n * nrhs);
  PetscCall(MatDenseGetLDA(B, &ldb));
  PetscCall(MatDenseGetArrayRead(B, &bb));
  for (PetscInt r = 0; r < nrhs; r++) PetscCall(PetscArraycpy(&bc[(size_t)r * n], bb + (size_t)r * ldb, n));
  PetscCall(MatDenseRestoreArrayRead(B, &bb));
  /* all columns at once through the factor, then the refinement column by column */
  PetscCall(LDLTApplyFactor(c, PETSC_FALSE, nrhs, bc.data(), xc.data(), work.data()));
  for (PetscInt r = 0; r < nrhs; r++) PetscCall(LDLTRefine(c, PETSC_FALSE, &bc[(size_t)r * n], &xc[(size_t)r * n]));
  PetscCall(MatDenseGetLDA(X, &ldx));
  PetscCall(MatDenseGetArrayWrite(X, &xx));
  for (PetscInt r = 0; r < nrhs; r++) PetscCall(PetscArraycpy(xx + (size_t)r * ldx, &xc[(size_t)r * n], n));
  PetscCall(MatDenseRestoreArrayWrite(X, &xx));
  PetscCall(PetscLogFlops(nrhs * (4.0 * c->nnzL + n)));
  c->nsolve++;
  PetscCall(PetscLogEventEnd(PGX_LDLTSolve, F, B, X, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInertia_PGXLDLT(Mat F, PetscInt *nneg, PetscInt *nzero, PetscInt *npos)
{
  Mat_PGXLDLT *c = (Mat_PGXLDLT *)F->data;
  PetscInt     p, q, z;

  PetscFunctionBegin;
  PetscCheck(c->numeric_done, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatGetInertia() needs a numeric factorization");
#if defined(PETSC_USE_COMPLEX)
  {
    const char *pre;
    PetscCall(MatGetOptionsPrefix(F, &pre));
    PetscCheck(c->hermitian, PETSC_COMM_SELF, PETSC_ERR_SUP, "Inertia is defined for Hermitian matrices only; this factor is complex symmetric (set -%smat_pgx_hermitian or MatSetOption(A, MAT_HERMITIAN, PETSC_TRUE))", pre ? pre : "");
  }
#endif
  PetscCall(ref::Inertia(c->n, c->d, &p, &q, &z));
  if (c->nperturbed) PetscCall(PetscInfo(F, "Inertia may be unreliable: %" PetscInt_FMT " pivots were perturbed by static pivoting (they keep their sign; zero pivots count as positive)\n", c->nperturbed));
  if (nneg) *nneg = q;
  if (nzero) *nzero = z;
  if (npos) *npos = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- numeric */
static PetscErrorCode MatCholeskyFactorNumeric_PGXLDLT(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_PGXLDLT       *c = (Mat_PGXLDLT *)F->data;
  Mat                B;
  const PetscScalar *av;
  K::PivotRule       rule;
  K::NumericInfo     ninfo;
  PetscLogDouble     t0;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_LDLTNumeric, F, A, 0, 0));
  t0 = MPI_Wtime();
  if (c->check_symmetry) {
    PetscBool flg;
    if (c->hermitian) PetscCall(MatIsHermitian(A, 0.0, &flg));
    else PetscCall(MatIsSymmetric(A, 0.0, &flg));
    PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MATSOLVERPGX: the matrix is not %s (-mat_pgx_check_symmetry); LDL^T needs A = A^%s", c->hermitian ? "Hermitian" : "symmetric", c->hermitian ? "H" : "T");
  }
  PetscCall(LDLTGetAIJ(A, &B));
  {
    const PetscInt *ia, *ja;
    PetscInt        n;
    PetscBool       done, same;
    PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    same = (PetscBool)(n == c->n && ia[n] == c->nnzA);
    if (same) PetscCall(PetscArraycmp(ia, c->arowptr, n + 1, &same));
    if (same) PetscCall(PetscArraycmp(ja, c->acol, c->nnzA, &same));
    PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MATSOLVERPGX: the nonzero pattern changed since MatCholeskyFactorSymbolic(); call it again");
  }
  PetscCall(MatSeqAIJGetArrayRead(B, &av));
  PetscCall(PetscArraycpy(c->aval, av, c->nnzA));
  PetscCall(MatSeqAIJRestoreArrayRead(B, &av));
  PetscCall(MatDestroy(&B));
  c->anorm = 0;
  for (PetscInt i = 0; i < c->n; i++) {
    PetscReal s = 0;
    for (PetscInt k = c->arowptr[i]; k < c->arowptr[i + 1]; k++) s += PetscAbsScalar(c->aval[k]);
    c->anorm = PetscMax(c->anorm, s);
  }
  /* pivot rule: static pivoting relative to ||A||_inf, or PETSc's MAT_SHIFT_NONZERO from MatFactorInfo */
  rule.hermitian = c->hermitian;
  rule.small = rule.repl = c->pivot_tol * c->anorm;
  if (info && (info->shifttype == (PetscReal)MAT_SHIFT_NONZERO || info->shifttype == (PetscReal)MAT_SHIFT_INBLOCKS) && info->shiftamount > 0) {
    rule.small = info->zeropivot > 0 ? info->zeropivot : 100 * PETSC_MACHINE_EPSILON; /* PCFactor's default zero-pivot tolerance */
    rule.repl  = info->shiftamount;
  } else if (info && info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE) {
    PetscCall(PetscInfo(F, "MAT_SHIFT_POSITIVE_DEFINITE is ignored by MATSOLVERPGX (an indefinite LDL^T needs no shift); static pivoting applies\n"));
  }
  if (rule.repl == 0) rule.small = 0;
  c->small = rule.small;
  c->repl  = rule.repl;
  if (c->cu) {
#if PGX_HAVE_CUDA
    PetscCall(PetscLogGpuTimeBegin());
    if (c->used_method == LDLT_METHOD_SUPERNODAL) PetscCall(K::cuda::FactorSupernodal((K::cuda::Data *)c->cu, c->aval, &rule, &ninfo));
    else PetscCall(K::cuda::FactorColumn((K::cuda::Data *)c->cu, c->aval, &rule, &ninfo));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(K::cuda::GetFactor((K::cuda::Data *)c->cu, NULL, c->d)); /* host copy of D: inertia, badvalue (L stays on the device) */
    if (ninfo.badcol >= 0) ninfo.badvalue = c->d[ninfo.badcol];
    if (c->used_method == LDLT_METHOD_SUPERNODAL) ninfo.flops = c->plan->flops;
    else {
      ninfo.flops = 0;
      for (PetscInt j = 0; j < c->n; j++) {
        PetscLogDouble cj = c->colcount[j];
        ninfo.flops += cj + 2.0 * cj * (cj + 1);
      }
    }
#endif
  } else if (c->used_method == LDLT_METHOD_SUPERNODAL && c->plan) {
    PetscCall(ref::FactorSupernodalPlan(c->plan, c->lcolptr, c->lrow, c->aval, c->large_min, c->nb, &rule, c->panels, c->lval, c->d, &ninfo));
  } else {
    PetscCall(ref::Load(c->n, c->nnzA, c->aval, c->dest, c->nnzL, c->lval, c->d, c->hermitian));
    if (c->used_method == LDLT_METHOD_SUPERNODAL) PetscCall(ref::FactorSupernodal(c->n, c->lcolptr, c->lrow, c->nsuper, c->snptr, &rule, c->lval, c->d, &ninfo));
    else PetscCall(ref::FactorColumn(c->n, c->lcolptr, c->lrow, c->nlevels, c->order, c->lptr, &rule, c->lval, c->d, &ninfo));
  }
  c->nperturbed      = ninfo.nperturbed;
  c->flops           = ninfo.flops;
  F->factorerrortype = MAT_FACTOR_NOERROR;
  if (ninfo.badcol >= 0) {
    PetscInt row = c->perm[ninfo.badcol];
    PetscCall(PetscInfo(F, "Zero pivot in row %" PetscInt_FMT " (value %g), static pivoting is off (-mat_pgx_pivot_tol 0)\n", row, (double)PetscAbsScalar(ninfo.badvalue)));
    PetscCheck(!A->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in row %" PetscInt_FMT " (value %g) of the LDL^T factorization; set -mat_pgx_pivot_tol > 0 for static pivoting", row, (double)PetscAbsScalar(ninfo.badvalue));
    F->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    F->factorerror_zeropivot_value = PetscAbsScalar(ninfo.badvalue);
    F->factorerror_zeropivot_row   = row;
  }
  if (c->nperturbed) PetscCall(PetscInfo(F, "static pivoting: %" PetscInt_FMT " pivots with |d| <= %g replaced by +-%g\n", c->nperturbed, (double)rule.small, (double)rule.repl));
  c->numeric_done = PETSC_TRUE;
  c->nnumeric++;
  PetscCall(PetscLogFlops(c->flops));
  c->t_numeric = MPI_Wtime() - t0;
  PetscCall(PetscLogEventEnd(PGX_LDLTNumeric, F, A, 0, 0));

  F->ops->solve             = MatSolve_PGXLDLT;
  F->ops->solvetranspose    = MatSolveTranspose_PGXLDLT;
  F->ops->matsolve          = MatMatSolve_PGXLDLT;
  F->ops->getinertia        = MatGetInertia_PGXLDLT;
  F->assembled              = PETSC_TRUE;
  F->preallocated           = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_PGXLDLT(Mat F, PetscViewer viewer)
{
  Mat_PGXLDLT *c = (Mat_PGXLDLT *)F->data;
  PetscBool    isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "PGX sparse LDL^T (MATSOLVERPGX), backend: %s\n", PGXDeviceName(c->device)));
  if (!c->nsymbolic) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscInt nnzAlow = (c->nnzA + c->n) / 2; /* stored entries of the lower triangle with the diagonal (symmetric pattern) */
  PetscCall(PetscViewerASCIIPrintf(viewer, "n %" PetscInt_FMT ", nnz(A) %" PetscInt_FMT ", nnz(L) %" PetscInt_FMT " (with the diagonal), fill %.2f\n", c->n, c->nnzA, c->nnzL + c->n, nnzAlow ? (double)(c->nnzL + c->n) / nnzAlow : 0.0));
  if (c->symbolic_checked) PetscCall(PetscViewerASCIIPrintf(viewer, "symbolic phase checked: the same permuted pattern, tree, counts, structure, supernodes, value map%s as the simple algorithms\n", c->plan ? " and supernodal plan" : ""));
  if (c->used_ordering == LDLT_ORDERING_ND) PetscCall(PetscViewerASCIIPrintf(viewer, "ordering: nd (nested dissection on METIS, depth %" PetscInt_FMT ", %" PetscInt_FMT " process%s at a time), %.3g s, permutation hash %016llx\n", c->nd_used_depth, c->nd_used_procs, c->nd_used_procs > 1 ? "es" : "", c->t_ordering, c->perm_hash));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "ordering: %s, %.3g s, permutation hash %016llx\n", LDLTOrderings[c->used_ordering], c->t_ordering, c->perm_hash));
  PetscCall(PetscViewerASCIIPrintf(viewer, "elimination tree levels: %" PetscInt_FMT ", supernodes: %" PetscInt_FMT " (largest %" PetscInt_FMT " columns)\n", c->nlevels, c->nsuper, c->maxsuper));
  if (c->numeric_done) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "method: %s, %s, numeric flops %g\n", LDLTMethods[c->used_method], c->hermitian ? "LDL^H" : "LDL^T", (double)c->flops));
    if (c->plan) PetscCall(PetscViewerASCIIPrintf(viewer, "supernodal on panels (%s): %" PetscInt_FMT " levels of the supernodal tree, dense BLAS-3 for nc >= %" PetscInt_FMT " or nr >= %" PetscInt_FMT " (block size %" PetscInt_FMT "), the others one thread block each; solves on the panels\n", c->cu ? "cuda" : "host emulation, -mat_pgx_ldlt_panels", c->plan->nslevels, c->large_min, 8 * c->large_min, c->nb));
    if (c->repl == 0) PetscCall(PetscViewerASCIIPrintf(viewer, "static pivoting: off (a zero pivot is MAT_FACTOR_NUMERIC_ZEROPIVOT), perturbed pivots: 0\n"));
    else if (c->small == c->repl) PetscCall(PetscViewerASCIIPrintf(viewer, "static pivoting: tol %g * ||A||_inf = %g, perturbed pivots: %" PetscInt_FMT "\n", (double)c->pivot_tol, (double)c->repl, c->nperturbed));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "shift (MAT_SHIFT_NONZERO): pivots with |d| <= %g replaced by sign(d) * %g, perturbed pivots: %" PetscInt_FMT "\n", (double)c->small, (double)c->repl, c->nperturbed));
    if (c->nperturbed) PetscCall(PetscViewerASCIIPrintf(viewer, "inertia from D: may be unreliable (perturbed pivots keep their sign, zero ones count as positive)\n"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "refinement: %s (steps %" PetscInt_FMT ", GMRES up to %" PetscInt_FMT ")\n", c->refine_steps < 0 ? (c->nperturbed ? "automatic, on" : "automatic, off (no perturbed pivot)") : (c->refine_steps ? "on" : "off"), c->refine_steps, c->gmres_max));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "symbolic factorizations: %" PetscInt_FMT ", numeric factorizations: %" PetscInt_FMT "\n", c->nsymbolic, c->nnumeric));
  PetscCall(PetscViewerASCIIPrintf(viewer, "times (s): symbolic %.3g, numeric %.3g, last solve %.3g\n", c->t_symbolic, c->t_numeric, c->t_solve));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_PGXLDLT(Mat F, MatInfoType flag, MatInfo *info)
{
  Mat_PGXLDLT *c = (Mat_PGXLDLT *)F->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->block_size        = 1.0;
  info->nz_allocated      = (PetscLogDouble)(c->nnzL + c->n);
  info->nz_used           = info->nz_allocated;
  info->memory            = (PetscLogDouble)(c->nnzL + c->n) * (sizeof(PetscScalar) + sizeof(PetscInt));
  info->assemblies        = (PetscLogDouble)c->nnumeric;
  info->fill_ratio_given  = 0;
  info->fill_ratio_needed = c->nnzA ? (PetscLogDouble)(c->nnzL + c->n) / ((c->nnzA + c->n) / 2) : 0;
  info->factor_mallocs    = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For bench_ldlt: the ordering, method and backend the last factorization used (composed as "MatPGXLDLTGetSummary_C") */
static PetscErrorCode MatPGXLDLTGetSummary_PGXLDLT(Mat F, const char **ordering, const char **method, const char **backend)
{
  Mat_PGXLDLT *c = (Mat_PGXLDLT *)F->data;

  PetscFunctionBegin;
  if (ordering) *ordering = c->nsymbolic ? LDLTOrderings[c->used_ordering] : "none";
  if (method) *method = c->nsymbolic ? LDLTMethods[c->used_method] : "none";
  if (backend) *backend = PGXDeviceName(c->device);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For bench_ldlt_symbolic: the last ordering's time, its nd depth and processes (0 for the other orderings), the
   permutation's hash and the flops of the factorization its structure implies (composed as "MatPGXLDLTGetOrdering_C") */
static PetscErrorCode MatPGXLDLTGetOrdering_PGXLDLT(Mat F, PetscReal *seconds, PetscInt *depth, PetscInt *procs, unsigned long long *hash, PetscReal *flops)
{
  Mat_PGXLDLT *c = (Mat_PGXLDLT *)F->data;

  PetscFunctionBegin;
  PetscCheck(c->nsymbolic, PetscObjectComm((PetscObject)F), PETSC_ERR_ARG_WRONGSTATE, "No symbolic factorization yet");
  if (seconds) *seconds = (PetscReal)c->t_ordering;
  if (depth) *depth = c->used_ordering == LDLT_ORDERING_ND ? c->nd_used_depth : 0;
  if (procs) *procs = c->used_ordering == LDLT_ORDERING_ND ? c->nd_used_procs : 0;
  if (hash) *hash = c->perm_hash;
  if (flops) {
    PetscLogDouble f = 0;
    for (PetscInt j = 0; j < c->n; j++) {
      PetscLogDouble cj = c->colcount[j];
      f += cj + 2.0 * cj * (cj + 1);
    }
    *flops = (PetscReal)f;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatFactorGetSolverType_PGXLDLT(Mat F, MatSolverType *type)
{
  PetscFunctionBegin;
  *type = MATSOLVERPGX;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  MATSOLVERPGX - "pgx": PGX's sparse LDL^T (Cholesky) factorization A = P^T L D L^T P of sequential symmetric
  (or, in a complex build, complex symmetric or Hermitian: LDL^H) AIJ and SBAIJ matrices, for
  -pc_type cholesky -pc_factor_mat_solver_type pgx, also as the sub-solver of bjacobi/asm.

  Symbolic phase (host): fill-reducing ordering, elimination tree, column counts, exact structure of L, level
  sets of the tree and fundamental supernodes; reused by MatCholeskyFactorNumeric() while the pattern is the same.
  Numeric phase: right-looking column algorithm in the order of the tree levels (Chen and Wang) or supernodal
  (dense blocks). No pivots are exchanged: a pivot with |d| <= tol ||A||_inf is replaced by sign(d) tol ||A||_inf
  (static pivoting, counted in MatView() and -info). MatSolve() then refines automatically: iterative refinement
  while the componentwise backward error falls, then GMRES preconditioned by the factor when the normwise
  backward error ||b-Ax||/(||A|| ||x|| + ||b||) is still above 1e-14 (the remedy for KKT matrices with zero
  diagonal blocks, where static pivoting alone leaves errors of about tol).

  Options Database Keys:
+ -mat_pgx_ordering <auto,metis,nd,amd,natural,petsc> - auto: nd for n >= 5000, AMD below, or the ordering PETSc passes when -pc_factor_mat_ordering_type is set; metis: one METIS_NodeND call; nd: PGX's nested dissection of fixed depth (from n) on METIS, its separators and leaves computed in parallel child processes (the same permutation for any number of them)
. -mat_pgx_ldlt_nd_procs <0> - nd: METIS calls at once, each in a forked child (1: in this process; 0: the cores of this process / MPI ranks on the node, at most 16)
. -mat_pgx_ldlt_nd_depth <-1> - nd: the dissection depth (-1: from n)
. -mat_pgx_ldlt_method <auto,column,supernodal> - numeric algorithm (auto: supernodal when the supernodes average 4 columns or more, on both backends; with cuda also when half the flops or more are in supernodes of 16 columns or more)
. -mat_pgx_ldlt_large <64> - supernodal on the GPU: supernodes with at least this many columns (or 8 times as many rows below them) use cuBLAS, the others one thread block each, one launch per level of the supernodal tree
. -mat_pgx_ldlt_nb <64> - supernodal on the GPU: block size of the blocked LDL^T of the large diagonal blocks
. -mat_pgx_ldlt_panels - supernodal on the host: run the GPU's panel algorithm in plain C++ (testing)
. -mat_pgx_ldlt_gpu_memory <0> - supernodal on the GPU: bytes its buffers may take (0: the free GPU memory); an error says how many are needed
. -mat_pgx_pivot_tol <1e-10> - static pivoting threshold relative to ||A||_inf; 0 turns repair off (zero pivot: MAT_FACTOR_NUMERIC_ZEROPIVOT)
. -mat_pgx_refine_steps <-1> - refinement steps of MatSolve() (-1: automatic when pivots were perturbed, at most 10)
. -mat_pgx_refine_gmres <100> - most GMRES iterations of the refinement (0: none)
. -mat_pgx_hermitian - complex Hermitian A (LDL^H); also taken from MatSetOption(A, MAT_HERMITIAN, PETSC_TRUE)
. -mat_pgx_check_symmetry - check A = A^T (A^H) at each numeric factorization
- -pgx_device <auto,host,cuda> - where the numeric phase runs (cuda: real, complex symmetric and Hermitian)

  MatFactorInfo: shifttype MAT_SHIFT_NONZERO (-pc_factor_shift_type nonzero -pc_factor_shift_amount a) replaces
  pivots with |d| <= zeropivot by sign(d) a instead of static pivoting.

  Level: beginner

.seealso: `PCCHOLESKY`, `PCFactorSetMatSolverType()`, `MatGetInertia()`, `MATSOLVERCHOLMOD`, `MATSOLVERMUMPS`
M*/
static PetscErrorCode MatGetFactor_seqaij_pgx(Mat A, MatFactorType ftype, Mat *F)
{
  Mat          B;
  Mat_PGXLDLT *c;
  PetscInt     m, n, bs;
  PetscMPIInt  size;

  PetscFunctionBegin;
  *F = NULL;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatGetBlockSize(A, &bs));
  if (size > 1 || ftype != MAT_FACTOR_CHOLESKY) {
    PetscCall(PetscInfo(A, "MATSOLVERPGX supports sequential Cholesky (LDL^T) factorizations only\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    PetscBool issbaij;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQSBAIJ, &issbaij));
    if (issbaij && bs > 1) {
      PetscCall(PetscInfo(A, "MATSOLVERPGX supports SEQSBAIJ with block size 1 only (this one has %" PetscInt_FMT ")\n", bs));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, m, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(PetscStrallocpy(MATSOLVERPGX, &((PetscObject)B)->type_name));
  PetscCall(MatSetUp(B));
  PetscCall(PetscNew(&c));
  c->ordering       = LDLT_ORDERING_AUTO;
  c->method         = LDLT_METHOD_AUTO;
  c->pivot_tol      = 1e-10;
  c->refine_steps   = -1;
  c->gmres_max      = 100;
  c->hermitian      = PETSC_FALSE;
  c->check_symmetry = PETSC_FALSE;
  c->large_min      = 64;
  c->nb             = 64;
  c->host_panels    = PETSC_FALSE;
  c->gpu_memory     = 0;
  c->last_berr      = -1;
  c->nd_procs       = 0;
  c->nd_depth       = -1;
  c->nd_fail_call   = -1;
  PetscCall(PGXGetDefaultDeviceType(&c->devreq));
  c->device                            = PGX_DEVICE_HOST;
  B->data                              = c;
  B->factortype                        = MAT_FACTOR_CHOLESKY;
  B->ops->destroy                      = MatDestroy_PGXLDLT;
  B->ops->view                         = MatView_PGXLDLT;
  B->ops->choleskyfactorsymbolic       = MatCholeskyFactorSymbolic_PGXLDLT;
  B->ops->getinertia                   = MatGetInertia_PGXLDLT;
  B->ops->getinfo                      = MatGetInfo_PGXLDLT;
  B->canuseordering                    = PETSC_TRUE;
  PetscCall(PetscStrallocpy(MATORDERINGEXTERNAL, (char **)&B->preferredordering[MAT_FACTOR_CHOLESKY]));
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERPGX, &B->solvertype));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_PGXLDLT));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatPGXLDLTGetSummary_C", MatPGXLDLTGetSummary_PGXLDLT));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatPGXLDLTGetOrdering_C", MatPGXLDLTGetOrdering_PGXLDLT));
  *F = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXRegister_LDLT(void)
{
  PetscFunctionBegin;
  PetscCall(MatInitializePackage()); /* PETSc's own solver types first (MAT_CLASSID is set there too) */
  PetscCall(MatSolverTypeRegister(MATSOLVERPGX, MATSEQAIJ, MAT_FACTOR_CHOLESKY, PGXMatSolverFn(MatGetFactor_seqaij_pgx)));
  PetscCall(MatSolverTypeRegister(MATSOLVERPGX, MATSEQSBAIJ, MAT_FACTOR_CHOLESKY, PGXMatSolverFn(MatGetFactor_seqaij_pgx)));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSolverTypeRegister(MATSOLVERPGX, MATSEQAIJCUSPARSE, MAT_FACTOR_CHOLESKY, PGXMatSolverFn(MatGetFactor_seqaij_pgx)));
#endif
  PetscCall(PetscLogEventRegister("PGXLDLTSymbolic", MAT_CLASSID, &PGX_LDLTSymbolic));
  PetscCall(PetscLogEventRegister("PGXLDLTNumeric", MAT_CLASSID, &PGX_LDLTNumeric));
  PetscCall(PetscLogEventRegister("PGXLDLTSolve", MAT_CLASSID, &PGX_LDLTSolve));
  PetscFunctionReturn(PETSC_SUCCESS);
}
