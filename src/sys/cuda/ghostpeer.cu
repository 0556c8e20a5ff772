/* The GPU-to-GPU path of PGXGhost (src/sys/ghost.cxx) for ranks on one node: CUDA IPC instead of host buffers.

   Each rank maps, once, the device send buffer of every rank it receives from (cudaIpcOpenMemHandle) and opens two
   interprocess events per neighbour: the sender's "ready" (recorded on the sender's stream after its gather) and the
   receiver's "done" (recorded on the receiver's stream after its copy). An exchange is then, with no host copy and no
   wait of a host for its GPU:
     sender, Prepare: the receivers' "done" of the last exchange (their zero-byte messages, then a stream wait on each
       event), so the gather does not overwrite a buffer being read;
     sender, Start (after the gather): record "ready", send each receiver a zero-byte message;
     receiver, Finish: for each sender, its message, a stream wait on its "ready", one device-to-device copy of its
       segment (NVLink or PCIe peer access) into the ghost array; record "done", message each sender.
   The messages order the host calls (an event is waited on only after its record was issued), the events order the
   GPU work. Every rank decides together (PGXGhostPeerCreate is collective): the path is taken only where every rank
   can map every neighbour's memory, else all keep the host buffers. */
#include <pgx/private/pgxcuda.h>

namespace
{
enum { TAG_HANDLES = 31, TAG_READY = 32, TAG_DONE = 33 };

struct Handles {
  cudaIpcMemHandle_t   mem;
  cudaIpcEventHandle_t ev;
  long long            off, bytes; /* the segment of the sender's buffer meant for the receiver, in bytes */
};
} // namespace

struct _n_PGXGhostPeer {
  MPI_Comm      comm;
  PetscMPIInt   nto, nfrom, *to, *from;
  cudaStream_t  s;
  cudaEvent_t   ready, done;          /* this rank's, interprocess */
  cudaEvent_t  *peer_ready;           /* nfrom: each sender's ready */
  cudaEvent_t  *peer_done;            /* nto: each receiver's done */
  void        **peer_base;            /* nfrom: each sender's mapped buffer (NULL: not mapped) */
  size_t       *peer_off, *bytes;     /* nfrom: the segment in it */
  size_t       *recv_off;             /* nfrom: where it goes in the ghost array (bytes) */
  char         *d_recv;
  MPI_Request  *rq_ready, *rq_done;   /* nfrom, nto */
  MPI_Request  *sq;                   /* nto + nfrom zero-byte sends */
  PetscInt      nexch;
  PetscBool     pending_done;         /* the done messages of the last Start are posted and not yet received */
};

static PetscErrorCode PeerFree(PGXGhostPeer p)
{
  PetscFunctionBegin;
  for (PetscMPIInt i = 0; i < p->nfrom; i++) {
    if (p->peer_base && p->peer_base[i]) PGXCallCUDA(cudaIpcCloseMemHandle(p->peer_base[i]));
    if (p->peer_ready && p->peer_ready[i]) PGXCallCUDA(cudaEventDestroy(p->peer_ready[i]));
  }
  for (PetscMPIInt i = 0; i < p->nto; i++)
    if (p->peer_done && p->peer_done[i]) PGXCallCUDA(cudaEventDestroy(p->peer_done[i]));
  if (p->ready) PGXCallCUDA(cudaEventDestroy(p->ready));
  if (p->done) PGXCallCUDA(cudaEventDestroy(p->done));
  PetscCall(PetscFree4(p->to, p->from, p->peer_ready, p->peer_done));
  PetscCall(PetscFree4(p->peer_base, p->peer_off, p->bytes, p->recv_off));
  PetscCall(PetscFree3(p->rq_ready, p->rq_done, p->sq));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective on comm. usable: this rank's own conditions (the caller's: receive order = ghost order). *p = NULL when
   any rank cannot take the path; *why then says why on this rank (or "another rank"). */
PetscErrorCode PGXGhostPeerCreate(MPI_Comm comm, PetscBool usable, PetscMPIInt nto, const PetscMPIInt *to, const PetscInt *tooff, PetscMPIInt nfrom, const PetscMPIInt *from, const PetscInt *fromoff, void *d_sendbuf, void *d_recvbuf, PGXGhostPeer *p, const char **why)
{
  PGXGhostPeer x   = NULL;
  const size_t sz  = sizeof(PetscScalar);
  PetscMPIInt  ok  = usable ? 1 : 0, all = 0, nnode = 0, me;
  MPI_Comm     node;
  PetscMPIInt *members = NULL;
  Handles     *out = NULL, *in = NULL;
  cudaIpcEventHandle_t *dout = NULL, *din = NULL;
  MPI_Request *rq = NULL;
  cudaEvent_t  ready = NULL, done = NULL;
  cudaIpcMemHandle_t   mh = {};
  cudaIpcEventHandle_t rh = {}, dh = {};

  PetscFunctionBegin;
  *p   = NULL;
  *why = usable ? NULL : "the ghosts arrive in another order than the off-diagonal block's columns";
  PetscCallMPI(MPI_Comm_rank(comm, &me));
  /* every neighbour on this node */
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nnode));
  PetscCall(PetscMalloc1(nnode, &members));
  PetscCallMPI(MPI_Allgather(&me, 1, MPI_INT, members, 1, MPI_INT, node));
  PetscCallMPI(MPI_Comm_free(&node));
  for (PetscMPIInt k = 0; k < nto + nfrom && ok; k++) {
    PetscMPIInt r = k < nto ? to[k] : from[k - nto], found = 0;
    for (PetscMPIInt j = 0; j < nnode; j++) found |= (members[j] == r);
    if (!found) {
      ok   = 0;
      *why = "a neighbour runs on another node";
    }
  }
  PetscCall(PetscFree(members));
  if (ok) {
    int dev = 0, ipc = 0;
    PGXCallCUDA(cudaGetDevice(&dev));
    PGXCallCUDA(cudaDeviceGetAttribute(&ipc, cudaDevAttrIpcEventSupport, dev));
    if (!ipc) {
      ok   = 0;
      *why = "the device supports no interprocess events";
    }
  }
  /* this rank's interprocess events and handles: a failure here (IPC not allowed where the rank runs, say) is not an
     error either */
  if (ok) {
    if (cudaEventCreateWithFlags(&ready, cudaEventDisableTiming | cudaEventInterprocess) != cudaSuccess || cudaEventCreateWithFlags(&done, cudaEventDisableTiming | cudaEventInterprocess) != cudaSuccess || (nto && cudaIpcGetMemHandle(&mh, d_sendbuf) != cudaSuccess) || cudaIpcGetEventHandle(&rh, ready) != cudaSuccess || cudaIpcGetEventHandle(&dh, done) != cudaSuccess) {
      (void)cudaGetLastError();
      ok   = 0;
      *why = "no CUDA IPC handle for this rank's buffer or events";
    }
  }
  PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm));
  if (!all) {
    if (!*why) *why = "another rank cannot take it";
    if (ready) PGXCallCUDA(cudaEventDestroy(ready));
    if (done) PGXCallCUDA(cudaEventDestroy(done));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscCall(PetscNew(&x));
  x->comm   = comm;
  x->nto    = nto;
  x->nfrom  = nfrom;
  x->d_recv = (char *)d_recvbuf;
  PetscCall(PGXCUDAGetStream(&x->s));
  PetscCall(PetscCalloc4(nto, &x->to, nfrom, &x->from, nfrom, &x->peer_ready, nto, &x->peer_done));
  PetscCall(PetscCalloc4(nfrom, &x->peer_base, nfrom, &x->peer_off, nfrom, &x->bytes, nfrom, &x->recv_off));
  PetscCall(PetscMalloc3(nfrom, &x->rq_ready, nto, &x->rq_done, nto + nfrom, &x->sq));
  for (PetscMPIInt i = 0; i < nfrom; i++) x->rq_ready[i] = MPI_REQUEST_NULL;
  for (PetscMPIInt i = 0; i < nto; i++) x->rq_done[i] = MPI_REQUEST_NULL;
  for (PetscMPIInt i = 0; i < nto + nfrom; i++) x->sq[i] = MPI_REQUEST_NULL;
  for (PetscMPIInt i = 0; i < nto; i++) x->to[i] = to[i];
  for (PetscMPIInt i = 0; i < nfrom; i++) {
    x->from[i]     = from[i];
    x->recv_off[i] = (size_t)fromoff[i] * sz;
  }
  x->ready = ready;
  x->done  = done;

  /* handles: to each receiver, this rank's buffer, segment and ready event; to each sender, this rank's done event */
  PetscCall(PetscCalloc4(nto, &out, nfrom, &in, nfrom, &dout, nto, &din));
  PetscCall(PetscMalloc1(2 * (nto + nfrom), &rq));
  {
    PetscMPIInt nr = 0;
    for (PetscMPIInt i = 0; i < nfrom; i++) PetscCallMPI(MPI_Irecv(&in[i], (PetscMPIInt)sizeof(Handles), MPI_BYTE, from[i], TAG_HANDLES, comm, &rq[nr++]));
    for (PetscMPIInt i = 0; i < nto; i++) PetscCallMPI(MPI_Irecv(&din[i], (PetscMPIInt)sizeof(cudaIpcEventHandle_t), MPI_BYTE, to[i], TAG_HANDLES, comm, &rq[nr++]));
    for (PetscMPIInt i = 0; i < nto; i++) {
      out[i].mem   = mh;
      out[i].ev    = rh;
      out[i].off   = (long long)tooff[i] * (long long)sz;
      out[i].bytes = (long long)(tooff[i + 1] - tooff[i]) * (long long)sz;
      PetscCallMPI(MPI_Isend(&out[i], (PetscMPIInt)sizeof(Handles), MPI_BYTE, to[i], TAG_HANDLES, comm, &rq[nr++]));
    }
    for (PetscMPIInt i = 0; i < nfrom; i++) {
      dout[i] = dh;
      PetscCallMPI(MPI_Isend(&dout[i], (PetscMPIInt)sizeof(cudaIpcEventHandle_t), MPI_BYTE, from[i], TAG_HANDLES, comm, &rq[nr++]));
    }
    PetscCallMPI(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
  }
  /* open them; a failure (no peer access between the two devices, say) is not an error: all ranks fall back */
  ok = 1;
  for (PetscMPIInt i = 0; i < nfrom && ok; i++) {
    cudaError_t e = cudaIpcOpenMemHandle(&x->peer_base[i], in[i].mem, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      x->peer_base[i] = NULL;
      ok              = 0;
      *why            = "cudaIpcOpenMemHandle failed (no peer access between the devices?)";
      PetscCall(PetscInfo(NULL, "cudaIpcOpenMemHandle of rank %d's buffer: %s\n", (int)from[i], cudaGetErrorString(e)));
      break;
    }
    x->peer_off[i] = (size_t)in[i].off;
    x->bytes[i]    = (size_t)in[i].bytes;
    PetscCheck(x->bytes[i] == (size_t)(fromoff[i + 1] - fromoff[i]) * sz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Rank %d sends %lld bytes for %" PetscInt_FMT " ghosts", (int)from[i], in[i].bytes, fromoff[i + 1] - fromoff[i]);
    e = cudaIpcOpenEventHandle(&x->peer_ready[i], in[i].ev);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      x->peer_ready[i] = NULL;
      ok               = 0;
      *why             = "cudaIpcOpenEventHandle failed";
    }
  }
  for (PetscMPIInt i = 0; i < nto && ok; i++) {
    cudaError_t e = cudaIpcOpenEventHandle(&x->peer_done[i], din[i]);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      x->peer_done[i] = NULL;
      ok              = 0;
      *why            = "cudaIpcOpenEventHandle failed";
    }
  }
  PetscCall(PetscFree4(out, in, dout, din));
  PetscCall(PetscFree(rq));
  PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm));
  if (!all) {
    if (ok) *why = "another rank could not map its neighbours";
    PetscCallMPI(MPI_Barrier(comm)); /* nobody uses a mapping any more */
    PetscCall(PeerFree(x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *p = x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before the gather overwrites the send buffer: the receivers of the last exchange have copied it */
PetscErrorCode PGXGhostPeerPrepare(PGXGhostPeer p)
{
  PetscFunctionBegin;
  PetscCallMPI(MPI_Waitall(p->nto + p->nfrom, p->sq, MPI_STATUSES_IGNORE));
  if (p->pending_done) {
    PetscCallMPI(MPI_Waitall(p->nto, p->rq_done, MPI_STATUSES_IGNORE));
    for (PetscMPIInt i = 0; i < p->nto; i++) PGXCallCUDA(cudaStreamWaitEvent(p->s, p->peer_done[i], 0));
    p->pending_done = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After the gather (on PGX's stream): the send buffer is ready for the receivers */
PetscErrorCode PGXGhostPeerStart(PGXGhostPeer p)
{
  PetscFunctionBegin;
  for (PetscMPIInt i = 0; i < p->nfrom; i++) PetscCallMPI(MPI_Irecv(NULL, 0, MPI_BYTE, p->from[i], TAG_READY, p->comm, &p->rq_ready[i]));
  for (PetscMPIInt i = 0; i < p->nto; i++) PetscCallMPI(MPI_Irecv(NULL, 0, MPI_BYTE, p->to[i], TAG_DONE, p->comm, &p->rq_done[i]));
  p->pending_done = p->nto ? PETSC_TRUE : PETSC_FALSE;
  PGXCallCUDA(cudaEventRecord(p->ready, p->s));
  for (PetscMPIInt i = 0; i < p->nto; i++) PetscCallMPI(MPI_Isend(NULL, 0, MPI_BYTE, p->to[i], TAG_READY, p->comm, &p->sq[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ghosts into the receive array, ordered on PGX's stream after each sender's gather */
PetscErrorCode PGXGhostPeerFinish(PGXGhostPeer p)
{
  PetscFunctionBegin;
  for (PetscMPIInt k = 0; k < p->nfrom; k++) {
    int i = 0;
    PetscCallMPI(MPI_Waitany(p->nfrom, p->rq_ready, &i, MPI_STATUS_IGNORE));
    PetscCheck(i != MPI_UNDEFINED, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No ready message left to wait for");
    PGXCallCUDA(cudaStreamWaitEvent(p->s, p->peer_ready[i], 0));
    if (p->bytes[i]) PGXCallCUDA(cudaMemcpyAsync(p->d_recv + p->recv_off[i], (const char *)p->peer_base[i] + p->peer_off[i], p->bytes[i], cudaMemcpyDeviceToDevice, p->s));
  }
  PGXCallCUDA(cudaEventRecord(p->done, p->s));
  for (PetscMPIInt i = 0; i < p->nfrom; i++) PetscCallMPI(MPI_Isend(NULL, 0, MPI_BYTE, p->from[i], TAG_DONE, p->comm, &p->sq[p->nto + i]));
  p->nexch++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective: after it no rank reads another's memory */
PetscErrorCode PGXGhostPeerDestroy(PGXGhostPeer *pp)
{
  PGXGhostPeer p = pp ? *pp : NULL;

  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Waitall(p->nto + p->nfrom, p->sq, MPI_STATUSES_IGNORE));
  if (p->pending_done) PetscCallMPI(MPI_Waitall(p->nto, p->rq_done, MPI_STATUSES_IGNORE));
  PGXCallCUDA(cudaStreamSynchronize(p->s));
  PetscCallMPI(MPI_Barrier(p->comm));
  PetscCall(PeerFree(p));
  *pp = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------------
   The push variant (-pgx_ghost_push): no host in the exchange at all. Each sender maps its receivers' ghost arrays
   and flag words (CUDA IPC) and, in one kernel, gathers the values they need straight into their ghost arrays (NVLink
   or PCIe stores), then raises each receiver's "ready" word to the exchange's sequence number e; the receiver's End is
   one small kernel that waits on its GPU for every sender's word to reach e. A receiver may read its ghosts until its
   next Begin, whose kernel first tells its senders "done with e - 1" (the stores it makes into their words), and a
   sender writes exchange e only after each of its receivers has said so. Every rank runs the same exchanges in the
   same order (the products are collective), so the words only grow and no rank's kernel waits on work queued after
   its own: no deadlock, no MPI message, no host wait. A wait longer than PGX_GHOST_PUSH_TIMEOUT_S (a rank gone) fills
   the ghosts with NaN (the solve then reports DIVERGED_NANORINF) instead of hanging. Ranks that share a GPU do not
   take it (a waiting kernel would hold the GPU from the rank it waits for). */
#define PGX_GHOST_PUSH_TIMEOUT_S 60

namespace
{
struct PushSeg {
  PetscScalar        *dst;   /* the receiver's ghost array, at this rank's segment (mapped) */
  unsigned long long *ready; /* the receiver's ready word for this rank (mapped) */
  PetscInt            off, len; /* this rank's send buffer segment for it */
};

struct PushMsgToSender { /* what a receiver tells each of its senders */
  cudaIpcMemHandle_t ghost, flags;
  long long          off;   /* byte offset of the sender's segment in the receiver's ghost array */
  long long          bytes;
  int                ready; /* index of the sender's ready word in the receiver's flags */
};
struct PushMsgToReceiver { /* what a sender tells each of its receivers */
  cudaIpcMemHandle_t flags;
  int                done; /* index of the receiver's done word in the sender's flags */
};

/* grid (bx, nto): y = the receiver; tells the senders "done with e - 1", waits for the receiver's "done with e - 1",
   stores, and the segment's last block raises the receiver's ready word to e */
__global__ void PushKernel(const PetscInt *sendidx, const PetscScalar *x, const PushSeg *segs, unsigned long long *const *donesig, int nfrom, const unsigned long long *mydone, unsigned long long e, unsigned int *counter, unsigned long long timeout_ns)
{
  const int j = blockIdx.y;
  if (blockIdx.x == 0 && j == 0) {
    for (int i = threadIdx.x; i < nfrom; i += blockDim.x) *(volatile unsigned long long *)donesig[i] = e - 1;
    __threadfence_system();
  }
  if (threadIdx.x == 0) {
    const unsigned long long t0 = PGXGlobalTimerNs();
    while (*(volatile const unsigned long long *)&mydone[j] < e - 1)
      if (PGXGlobalTimerNs() - t0 > timeout_ns) break;
  }
  __syncthreads();
  const PushSeg s = segs[j];
  for (PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; k < s.len; k += (PetscInt)gridDim.x * blockDim.x) s.dst[k] = x[sendidx[s.off + k]];
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned int prev = atomicAdd(&counter[j], 1u);
    if (prev == gridDim.x - 1) {
      counter[j] = 0;
      __threadfence_system();
      *(volatile unsigned long long *)s.ready = e;
    }
  }
}

/* a rank that sends nothing still tells its senders "done with e - 1" */
__global__ void PushDoneKernel(unsigned long long *const *donesig, int nfrom, unsigned long long e)
{
  for (int i = threadIdx.x; i < nfrom; i += blockDim.x) *(volatile unsigned long long *)donesig[i] = e - 1;
  __threadfence_system();
}

/* one block: every sender's ready word reaches e (else, after the timeout, NaN ghosts) */
__global__ void PushWaitKernel(const unsigned long long *myready, int nfrom, unsigned long long e, PetscScalar *ghost, PetscInt nghost, unsigned long long timeout_ns)
{
  __shared__ int failed;
  if (threadIdx.x == 0) failed = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < nfrom; i += blockDim.x) {
    const unsigned long long t0 = PGXGlobalTimerNs();
    while (*(volatile const unsigned long long *)&myready[i] < e)
      if (PGXGlobalTimerNs() - t0 > timeout_ns) {
        failed = 1;
        break;
      }
  }
  __threadfence_system();
  __syncthreads();
  if (failed)
    for (PetscInt k = threadIdx.x; k < nghost; k += blockDim.x) ghost[k] = PGXNaNReal();
}
} // namespace

struct _n_PGXGhostPush {
  MPI_Comm             comm;
  PetscMPIInt          nto, nfrom;
  cudaStream_t         s;
  unsigned long long  *flags;   /* this rank's words: ready[nfrom] (written by its senders), then done[nto] (by its receivers) */
  unsigned int        *counter; /* nto, the PushKernel's block counts */
  PushSeg             *dsegs;   /* nto (device) */
  unsigned long long **ddonesig; /* nfrom (device): each sender's done word for this rank (mapped) */
  PetscMPIInt          nmapped;
  void               **mapped;   /* every base this rank opened (closed at the end) */
  PetscInt             nsend, nghost, maxlen;
  const PetscInt      *d_sendidx;
  PetscScalar         *d_ghost;
  unsigned long long   e;
};

static PetscErrorCode PushFree(PGXGhostPush p)
{
  PetscFunctionBegin;
  for (PetscMPIInt i = 0; i < p->nmapped; i++)
    if (p->mapped[i]) PGXCallCUDA(cudaIpcCloseMemHandle(p->mapped[i]));
  if (p->flags) PGXCallCUDA(cudaFree(p->flags));
  if (p->counter) PGXCallCUDA(cudaFree(p->counter));
  if (p->dsegs) PGXCallCUDA(cudaFree(p->dsegs));
  if (p->ddonesig) PGXCallCUDA(cudaFree(p->ddonesig));
  PetscCall(PetscFree(p->mapped));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Opens handle h of rank r once per (rank, allocation): the flags of a rank that is both a sender and a receiver of
   this one are asked for twice */
static PetscErrorCode PushOpen(PGXGhostPush p, PetscMPIInt r, const cudaIpcMemHandle_t &h, PetscMPIInt *keys, cudaIpcMemHandle_t *handles, void **base, PetscBool *ok)
{
  PetscFunctionBegin;
  *base = NULL;
  for (PetscMPIInt i = 0; i < p->nmapped; i++)
    if (keys[i] == r && !memcmp(&handles[i], &h, sizeof(h))) {
      *base = p->mapped[i];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  cudaError_t e = cudaIpcOpenMemHandle(base, h, cudaIpcMemLazyEnablePeerAccess);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    *base = NULL;
    *ok   = PETSC_FALSE;
    PetscCall(PetscInfo(NULL, "cudaIpcOpenMemHandle of rank %d's memory: %s\n", (int)r, cudaGetErrorString(e)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  keys[p->nmapped]      = r;
  handles[p->nmapped]   = h;
  p->mapped[p->nmapped++] = *base;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXGhostPushCreate(MPI_Comm comm, PetscBool usable, PetscMPIInt nto, const PetscMPIInt *to, const PetscInt *tooff, PetscMPIInt nfrom, const PetscMPIInt *from, const PetscInt *fromoff, const PetscInt *d_sendidx, PetscScalar *d_ghost, PGXGhostPush *pp, const char **why)
{
  PGXGhostPush       p   = NULL;
  const size_t       sz  = sizeof(PetscScalar);
  PetscMPIInt        ok  = usable ? 1 : 0, all = 0;
  PetscBool          okb = PETSC_TRUE;
  cudaIpcMemHandle_t hg = {}, hf = {};
  PushMsgToSender   *tos = NULL, *ins = NULL;     /* to my senders (nfrom), from my receivers (nto) */
  PushMsgToReceiver *tor = NULL, *inr = NULL;     /* to my receivers (nto), from my senders (nfrom) */
  MPI_Request       *rq = NULL;
  PetscMPIInt       *keys = NULL;
  cudaIpcMemHandle_t *handles = NULL;
  PushSeg           *segs = NULL;
  unsigned long long **donesig = NULL;

  PetscFunctionBegin;
  *pp  = NULL;
  *why = usable ? NULL : "the ghosts arrive in another order than the off-diagonal block's columns";
  {
    PetscBool   own;
    const char *w;
    PetscCall(PGXCUDARanksOnOwnGPUs(comm, PETSC_FALSE, &own, &w));
    if (ok && !own) {
      ok   = 0;
      *why = w;
    }
  }
  PetscCall(PetscNew(&p));
  p->comm      = comm;
  p->nto       = nto;
  p->nfrom     = nfrom;
  p->nsend     = tooff[nto];
  p->nghost    = fromoff[nfrom];
  p->d_sendidx = d_sendidx;
  p->d_ghost   = d_ghost;
  PetscCall(PGXCUDAGetStream(&p->s));
  for (PetscMPIInt j = 0; j < nto; j++) p->maxlen = PetscMax(p->maxlen, tooff[j + 1] - tooff[j]);
  if (ok) {
    const size_t fb = (size_t)PetscMax(nfrom + nto, 1) * sizeof(unsigned long long);
    if (cudaMalloc((void **)&p->flags, fb) != cudaSuccess || cudaMemset(p->flags, 0, fb) != cudaSuccess || cudaMalloc((void **)&p->counter, (size_t)PetscMax(nto, 1) * sizeof(unsigned int)) != cudaSuccess || cudaMemset(p->counter, 0, (size_t)PetscMax(nto, 1) * sizeof(unsigned int)) != cudaSuccess || cudaIpcGetMemHandle(&hf, p->flags) != cudaSuccess || (nfrom && cudaIpcGetMemHandle(&hg, d_ghost) != cudaSuccess)) {
      (void)cudaGetLastError();
      ok   = 0;
      *why = "no CUDA IPC handle for this rank's ghost array or flags";
    }
  }
  PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm));
  if (!all) {
    if (!*why) *why = "another rank cannot take it";
    PetscCall(PushFree(p));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscCalloc4(nfrom, &tos, nto, &ins, nto, &tor, nfrom, &inr));
  PetscCall(PetscMalloc1(2 * (nto + nfrom), &rq));
  {
    PetscMPIInt nr = 0;
    for (PetscMPIInt j = 0; j < nto; j++) PetscCallMPI(MPI_Irecv(&ins[j], (PetscMPIInt)sizeof(PushMsgToSender), MPI_BYTE, to[j], TAG_HANDLES, comm, &rq[nr++]));
    for (PetscMPIInt i = 0; i < nfrom; i++) PetscCallMPI(MPI_Irecv(&inr[i], (PetscMPIInt)sizeof(PushMsgToReceiver), MPI_BYTE, from[i], TAG_HANDLES, comm, &rq[nr++]));
    for (PetscMPIInt i = 0; i < nfrom; i++) {
      tos[i].ghost = hg;
      tos[i].flags = hf;
      tos[i].off   = (long long)fromoff[i] * (long long)sz;
      tos[i].bytes = (long long)(fromoff[i + 1] - fromoff[i]) * (long long)sz;
      tos[i].ready = (int)i;
      PetscCallMPI(MPI_Isend(&tos[i], (PetscMPIInt)sizeof(PushMsgToSender), MPI_BYTE, from[i], TAG_HANDLES, comm, &rq[nr++]));
    }
    for (PetscMPIInt j = 0; j < nto; j++) {
      tor[j].flags = hf;
      tor[j].done  = (int)(nfrom + j);
      PetscCallMPI(MPI_Isend(&tor[j], (PetscMPIInt)sizeof(PushMsgToReceiver), MPI_BYTE, to[j], TAG_HANDLES, comm, &rq[nr++]));
    }
    PetscCallMPI(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
  }
  /* open: at most two allocations per neighbour */
  PetscCall(PetscCalloc1(2 * (nto + nfrom) + 1, &p->mapped));
  PetscCall(PetscCalloc2(2 * (nto + nfrom) + 1, &keys, 2 * (nto + nfrom) + 1, &handles));
  PetscCall(PetscCalloc2(PetscMax(nto, 1), &segs, PetscMax(nfrom, 1), &donesig));
  for (PetscMPIInt j = 0; j < nto && okb; j++) {
    void *gbase = NULL, *fbase = NULL;
    PetscCheck(ins[j].bytes == (long long)(tooff[j + 1] - tooff[j]) * (long long)sz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Rank %d expects %lld bytes for %" PetscInt_FMT " values", (int)to[j], ins[j].bytes, tooff[j + 1] - tooff[j]);
    PetscCall(PushOpen(p, to[j], ins[j].ghost, keys, handles, &gbase, &okb));
    if (okb) PetscCall(PushOpen(p, to[j], ins[j].flags, keys, handles, &fbase, &okb));
    if (!okb) break;
    segs[j].dst   = (PetscScalar *)((char *)gbase + ins[j].off);
    segs[j].ready = (unsigned long long *)fbase + ins[j].ready;
    segs[j].off   = tooff[j];
    segs[j].len   = tooff[j + 1] - tooff[j];
  }
  for (PetscMPIInt i = 0; i < nfrom && okb; i++) {
    void *fbase = NULL;
    PetscCall(PushOpen(p, from[i], inr[i].flags, keys, handles, &fbase, &okb));
    if (okb) donesig[i] = (unsigned long long *)fbase + inr[i].done;
  }
  if (okb) {
    if (cudaMalloc((void **)&p->dsegs, (size_t)PetscMax(nto, 1) * sizeof(PushSeg)) != cudaSuccess || cudaMemcpy(p->dsegs, segs, (size_t)nto * sizeof(PushSeg), cudaMemcpyHostToDevice) != cudaSuccess || cudaMalloc((void **)&p->ddonesig, (size_t)PetscMax(nfrom, 1) * sizeof(unsigned long long *)) != cudaSuccess || cudaMemcpy(p->ddonesig, donesig, (size_t)nfrom * sizeof(unsigned long long *), cudaMemcpyHostToDevice) != cudaSuccess) {
      (void)cudaGetLastError();
      okb = PETSC_FALSE;
    }
  }
  PetscCall(PetscFree4(tos, ins, tor, inr));
  PetscCall(PetscFree(rq));
  PetscCall(PetscFree2(keys, handles));
  PetscCall(PetscFree2(segs, donesig));
  ok = okb ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm));
  if (!all) {
    *why = ok ? "another rank could not map its neighbours" : "cudaIpcOpenMemHandle failed (no peer access between the devices?)";
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PushFree(p));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Barrier(comm)); /* every rank's flags zeroed before anyone writes into them */
  *pp = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Begin of exchange e: queued on PGX's stream after the producer of x */
PetscErrorCode PGXGhostPushBegin(PGXGhostPush p, const PetscScalar *x)
{
  PetscFunctionBegin;
  p->e++;
  if (p->nto) {
    const int  bs = 256;
    const dim3 grid((unsigned)PetscMax(1, PetscMin((p->maxlen + bs - 1) / bs, 128)), (unsigned)p->nto);
    PushKernel<<<grid, bs, 0, p->s>>>(p->d_sendidx, x, p->dsegs, p->ddonesig, (int)p->nfrom, p->flags + p->nfrom, p->e, p->counter, (unsigned long long)PGX_GHOST_PUSH_TIMEOUT_S * 1000000000ull);
    PGXCheckLaunch("PushKernel");
  } else if (p->nfrom) { /* nothing to send: still tell the senders "done with e - 1" */
    PushDoneKernel<<<1, 32, 0, p->s>>>(p->ddonesig, (int)p->nfrom, p->e);
    PGXCheckLaunch("PushDoneKernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* End of exchange e: the ghosts are in place when the stream reaches the next kernel */
PetscErrorCode PGXGhostPushEnd(PGXGhostPush p)
{
  PetscFunctionBegin;
  if (p->nfrom) {
    PushWaitKernel<<<1, 64, 0, p->s>>>(p->flags, (int)p->nfrom, p->e, p->d_ghost, p->nghost, (unsigned long long)PGX_GHOST_PUSH_TIMEOUT_S * 1000000000ull);
    PGXCheckLaunch("PushWaitKernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective: after it no rank writes into another's memory */
PetscErrorCode PGXGhostPushDestroy(PGXGhostPush *pp)
{
  PGXGhostPush p = pp ? *pp : NULL;

  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(PETSC_SUCCESS);
  PGXCallCUDA(cudaStreamSynchronize(p->s));
  PetscCallMPI(MPI_Barrier(p->comm));
  PetscCall(PushFree(p));
  *pp = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
