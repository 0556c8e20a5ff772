/* PGXDevReduce: a sum over the ranks of a communicator of a few scalars that stay in device memory, for ranks of one
   node that each run on a GPU of their own (CUDA IPC). It lets a Krylov method on several ranks take its global
   reductions without the host: the host queues the reduction like any kernel and never waits for the GPU.

   Each rank owns a mailbox in its device memory, nranks x SLOTS slots of (flag, values), and maps every other rank's
   mailbox once (cudaIpcOpenMemHandle). A reduction (sequence number seq, the same on every rank: every rank makes the
   same calls in the same order) is one kernel of one block on PGX's stream:
     1. write this rank's partial values into slot (me, seq % SLOTS) of every mailbox, its own included (remote
        stores over NVLink or PCIe), a system-wide fence, then the flag of that slot := seq;
     2. wait until the flags of the slots (r, seq % SLOTS) of this rank's own mailbox reach seq for every rank r;
     3. sum the values of those slots in rank order 0, 1, ... (so every rank gets the same bits) into place.
   A slot is written again only SLOTS reductions later, which no rank can start before every rank has finished the
   reduction after the one that last used it (step 2 of that one needs every rank's flag): two slots suffice, there
   are four. A wait longer than PGX_DEVREDUCE_TIMEOUT_S seconds (a rank gone) gives NaN sums instead of a hang, which
   the Krylov method reports as DIVERGED_NANORINF.

   Ranks that share a GPU do not take this path: their kernels run time-sliced, and a rank's waiting kernel would hold
   the GPU from the rank it waits for (until preempted; -pgx_allreduce_peer_shared lets them take it anyway, for
   tests of the path on a one-GPU host). PGXDevReduceCreate is collective and gives NULL (with the reason) unless every
   rank can take the path; the caller then reduces through the host. */
#include <pgx/private/pgxcuda.h>

#define PGX_DEVREDUCE_SLOTS     4
#define PGX_DEVREDUCE_MAXREAL   (2 * PGX_DEVREDUCE_MAXK) /* PetscReal values of one slot: MAXK complex scalars */
#define PGX_DEVREDUCE_TIMEOUT_S 60

namespace
{
struct alignas(16) Slot {
  unsigned long long flag;
  unsigned long long pad;
  PetscReal          v[PGX_DEVREDUCE_MAXREAL];
};

/* one block; nv PetscReal values of d (device) summed over the nr ranks in place */
__global__ void DevReduceKernel(int nv, PetscReal *d, unsigned long long seq, Slot *const *peers, int me, int nr, unsigned long long timeout_ns)
{
  const int  slot = (int)(seq % PGX_DEVREDUCE_SLOTS);
  __shared__ int failed;

  if (threadIdx.x == 0) failed = 0;
  for (int r = 0; r < nr; r++) {
    volatile PetscReal *dst = peers[r][me * PGX_DEVREDUCE_SLOTS + slot].v;
    for (int i = threadIdx.x; i < nv; i += blockDim.x) dst[i] = d[i];
  }
  __threadfence_system(); /* the values before the flags, as every rank sees them */
  __syncthreads();
  if ((int)threadIdx.x < nr) {
    volatile unsigned long long *f = &peers[threadIdx.x][me * PGX_DEVREDUCE_SLOTS + slot].flag;
    *f                             = seq;
  }
  if ((int)threadIdx.x < nr) {
    volatile unsigned long long *f  = &peers[me][threadIdx.x * PGX_DEVREDUCE_SLOTS + slot].flag;
    const unsigned long long     t0 = PGXGlobalTimerNs();
    while (*f < seq) {
      if (PGXGlobalTimerNs() - t0 > timeout_ns) {
        failed = 1;
        break;
      }
    }
  }
  __threadfence_system();
  __syncthreads();
  for (int i = threadIdx.x; i < nv; i += blockDim.x) {
    PetscReal s = 0;
    for (int r = 0; r < nr; r++) s += ((volatile PetscReal *)peers[me][r * PGX_DEVREDUCE_SLOTS + slot].v)[i];
    d[i] = failed ? PGXNaNReal() : s;
  }
}
} // namespace

struct _n_PGXDevReduce {
  MPI_Comm           comm;
  PetscMPIInt        size, rank;
  Slot              *box;     /* this rank's mailbox (device) */
  Slot             **hpeers;  /* every rank's mailbox as mapped here (host copy; hpeers[rank] = box) */
  Slot             **dpeers;  /* the same, device array */
  unsigned long long seq;     /* reductions so far */
  cudaStream_t       s;
};

static PetscErrorCode DevReduceFree(PGXDevReduce x)
{
  PetscFunctionBegin;
  if (x->hpeers)
    for (PetscMPIInt r = 0; r < x->size; r++)
      if (r != x->rank && x->hpeers[r]) PGXCallCUDA(cudaIpcCloseMemHandle(x->hpeers[r]));
  if (x->dpeers) PGXCallCUDA(cudaFree(x->dpeers));
  if (x->box) PGXCallCUDA(cudaFree(x->box));
  PetscCall(PetscFree(x->hpeers));
  PetscCall(PetscFree(x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXCUDARanksOnOwnGPUs(MPI_Comm comm, PetscBool allowshared, PetscBool *ok, const char **why)
{
  PetscMPIInt size, rank, nnode = 0;
  MPI_Comm    node;
  int         dev = 0;
  char        bus[32] = {0}, *buses = NULL;

  PetscFunctionBegin;
  *ok  = PETSC_TRUE;
  *why = NULL;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nnode));
  PetscCallMPI(MPI_Comm_free(&node));
  if (nnode != size) {
    *ok  = PETSC_FALSE;
    *why = "the ranks run on several nodes";
  }
  PGXCallCUDA(cudaGetDevice(&dev));
  if (cudaDeviceGetPCIBusId(bus, (int)sizeof(bus), dev) != cudaSuccess) {
    (void)cudaGetLastError();
    if (*ok) *why = "no PCI bus id for this rank's device";
    *ok = PETSC_FALSE;
  }
  PetscCall(PetscCalloc1((size_t)size * sizeof(bus), &buses));
  PetscCallMPI(MPI_Allgather(bus, (PetscMPIInt)sizeof(bus), MPI_CHAR, buses, (PetscMPIInt)sizeof(bus), MPI_CHAR, comm));
  for (PetscMPIInt r = 0; r < size && *ok && !allowshared; r++)
    if (r != rank && !strncmp(buses + (size_t)r * sizeof(bus), bus, sizeof(bus))) {
      *ok  = PETSC_FALSE;
      *why = "ranks share a GPU";
    }
  PetscCall(PetscFree(buses));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective on comm: *p = NULL where any rank cannot take the path (*why then says why on this rank) */
PetscErrorCode PGXDevReduceCreate(MPI_Comm comm, PGXDevReduce *p, const char **why)
{
  PGXDevReduce       x  = NULL;
  PetscMPIInt        ok = 1, all = 0, size, rank;
  PetscBool          own, shared = PETSC_FALSE;
  cudaIpcMemHandle_t mh = {}, *handles = NULL;

  PetscFunctionBegin;
  *p = NULL;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  /* -pgx_allreduce_peer_shared (tests on a one-GPU host): ranks that share the GPU take the path anyway; each sum then
     waits for the other ranks' kernels to get their time slices (slow, never a hang: the GPU preempts a waiting kernel) */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-pgx_allreduce_peer_shared", &shared, NULL));
  PetscCall(PGXCUDARanksOnOwnGPUs(comm, shared, &own, why));
  ok = own ? 1 : 0;
  PetscCall(PetscNew(&x));
  x->comm = comm;
  x->size = size;
  x->rank = rank;
  PetscCall(PGXCUDAGetStream(&x->s));
  if (ok) {
    const size_t bytes = (size_t)size * PGX_DEVREDUCE_SLOTS * sizeof(Slot);
    if (cudaMalloc((void **)&x->box, bytes) != cudaSuccess || cudaMemset(x->box, 0, bytes) != cudaSuccess || cudaIpcGetMemHandle(&mh, x->box) != cudaSuccess) {
      (void)cudaGetLastError();
      ok   = 0;
      *why = "no CUDA IPC handle for this rank's mailbox";
    }
  }
  PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm));
  if (!all) {
    if (!*why) *why = "another rank cannot take it";
    PetscCall(DevReduceFree(x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(size, &handles));
  PetscCallMPI(MPI_Allgather(&mh, (PetscMPIInt)sizeof(mh), MPI_BYTE, handles, (PetscMPIInt)sizeof(mh), MPI_BYTE, comm));
  PetscCall(PetscCalloc1(size, &x->hpeers));
  for (PetscMPIInt r = 0; r < size && ok; r++) {
    if (r == rank) {
      x->hpeers[r] = x->box;
      continue;
    }
    cudaError_t e = cudaIpcOpenMemHandle((void **)&x->hpeers[r], handles[r], cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      x->hpeers[r] = NULL;
      ok           = 0;
      *why         = "cudaIpcOpenMemHandle failed (no peer access between the devices?)";
      PetscCall(PetscInfo(NULL, "cudaIpcOpenMemHandle of rank %d's mailbox: %s\n", (int)r, cudaGetErrorString(e)));
    }
  }
  PetscCall(PetscFree(handles));
  if (ok) {
    if (cudaMalloc((void **)&x->dpeers, (size_t)size * sizeof(Slot *)) != cudaSuccess || cudaMemcpy(x->dpeers, x->hpeers, (size_t)size * sizeof(Slot *), cudaMemcpyHostToDevice) != cudaSuccess) {
      (void)cudaGetLastError();
      ok   = 0;
      *why = "no device memory for the mailbox pointers";
    }
  }
  PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm));
  if (!all) {
    if (ok) *why = "another rank could not map the mailboxes";
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(DevReduceFree(x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Barrier(comm)); /* every mailbox zeroed before anyone writes into it */
  *p = x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d[0..k) (device, on PGX's stream) := their sums over the ranks, in place; queued, the host does not wait */
PetscErrorCode PGXDevReduceSum(PGXDevReduce x, PetscInt k, PetscScalar *d)
{
  const int per = (int)(sizeof(PetscScalar) / sizeof(PetscReal));

  PetscFunctionBegin;
  for (PetscInt j = 0; j < k; j += PGX_DEVREDUCE_MAXK) {
    const int m = (int)PetscMin(k - j, (PetscInt)PGX_DEVREDUCE_MAXK);
    x->seq++;
    DevReduceKernel<<<1, 64, 0, x->s>>>(m * per, (PetscReal *)(d + j), x->seq, x->dpeers, (int)x->rank, (int)x->size, (unsigned long long)PGX_DEVREDUCE_TIMEOUT_S * 1000000000ull);
    PGXCheckLaunch("DevReduceKernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXDevReduceGetCount(PGXDevReduce x, PetscInt *n)
{
  PetscFunctionBegin;
  *n = (PetscInt)x->seq;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective: after it no rank writes into another's mailbox */
PetscErrorCode PGXDevReduceDestroy(PGXDevReduce *px)
{
  PGXDevReduce x = px ? *px : NULL;

  PetscFunctionBegin;
  if (!x) PetscFunctionReturn(PETSC_SUCCESS);
  PGXCallCUDA(cudaStreamSynchronize(x->s));
  PetscCallMPI(MPI_Barrier(x->comm));
  PetscCall(DevReduceFree(x));
  *px = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
