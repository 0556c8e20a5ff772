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
