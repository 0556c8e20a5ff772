/* PGXGhost: the ghost exchange of a MATMPIAIJ product on device (or host) arrays. The resident KSPs and PCAIPS
   both multiply by an off-diagonal block on every rank; this is their one exchange. The values other ranks need
   are gathered on the device into one buffer in send order and copied to page-locked host memory; each neighbour's
   segment goes out with MPI_Isend (an MPI that need not be GPU-aware), the ghost values come in with MPI_Irecv
   straight into another page-locked buffer and go back to the device in one copy. The send and receive lists are
   those of PETSc's own scatter of the off-diagonal block's columns (its PetscSF: leaf ranks for what leaves this
   rank, root ranks for what arrives), so no VecScatter packing or per-exchange host loop runs. The caller runs its
   diagonal block between Begin and End, so the exchange overlaps it. -log_view: PGXGhostBegin (receives posted,
   gather, copy to the host, sends posted) and PGXGhostEnd (wait, copy of the ghosts to the device).
   cuda, with every rank's neighbours on its node (-pgx_ghost_peer, default true): GPU to GPU instead
   (src/sys/cuda/ghostpeer.cu): each rank copies its ghosts straight from its neighbours' device send buffers (CUDA
   IPC), ordered by interprocess events; no host buffer, and no host waits for its GPU in the exchange. Where
   the ranks run on GPUs of their own (-pgx_ghost_push, default true; else the copies above), the senders' GPUs
   store into the receivers' ghost arrays and raise flags that the receivers' GPUs wait on: no MPI message per
   exchange either (src/sys/cuda/ghostpeer.cu). */
#include <pgx/private/pgximpl.h>
#include <petscsf.h>

struct _n_PGXGhost {
  PGXDeviceType dev;
  MPI_Comm      comm;                     /* a duplicate: the exchange's messages never meet the caller's */
  PetscInt      n, nghost, nsend;
  PetscMPIInt   nto, nfrom;               /* neighbours: ranks this rank sends to, receives from */
  PetscMPIInt  *to, *from;                /* their ranks */
  PetscInt     *tooff, *fromoff;          /* segments of the send and receive buffers (nto + 1, nfrom + 1) */
  PetscInt     *sendidx_h, *d_sendidx;    /* local indices of the entries other ranks need, in send order */
  PetscScalar  *sendbuf_h, *d_sendbuf;    /* their values (host: page-locked for cuda) */
  PetscScalar  *recvbuf_h;                /* the ghost values in receive order (page-locked for cuda) */
  PetscInt     *recvpos;                  /* receive order -> ghost position (NULL when the identity) */
  PetscScalar  *ghost_h;                  /* the ghost values in the off-diagonal block's column order (only with recvpos) */
  PetscScalar  *d_ghost;                  /* cuda: device copy of the ghost values */
  MPI_Request  *req;                      /* nfrom receives, then nto sends */
  PGXGhostPeer  peer;                     /* cuda: the GPU-to-GPU path, or NULL (host buffers) */
  PGXGhostPush  push;                     /* cuda: its push variant (-pgx_ghost_push), or NULL */
  const char   *path;                     /* which, for views */
  PetscErrorCode (*gather)(PetscInt, const PetscInt *, const PetscScalar *, PetscScalar *);
};

/* PetscSFGetLeafRanks/GetRootRanks count ranks in PetscInt before PETSc 3.22 and in PetscMPIInt after: the count's
   type is taken from the function itself */
template <typename N>
static PetscErrorCode LeafRanks(PetscErrorCode (*f)(PetscSF, N *, const PetscMPIInt **, const PetscInt **, const PetscInt **), PetscSF sf, PetscInt *n, const PetscMPIInt **r, const PetscInt **off, const PetscInt **loc)
{
  N m = 0;

  PetscFunctionBegin;
  PetscCall(f(sf, &m, r, off, loc));
  *n = (PetscInt)m;
  PetscFunctionReturn(PETSC_SUCCESS);
}
template <typename N>
static PetscErrorCode RootRanks(PetscErrorCode (*f)(PetscSF, N *, const PetscMPIInt **, const PetscInt **, const PetscInt **, const PetscInt **), PetscSF sf, PetscInt *n, const PetscMPIInt **r, const PetscInt **off, const PetscInt **mine, const PetscInt **remote)
{
  N m = 0;

  PetscFunctionBegin;
  PetscCall(f(sf, &m, r, off, mine, remote));
  *n = (PetscInt)m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXGhostCreate - The ghost exchange of a `MATMPIAIJ` matrix's off-diagonal block, for products on arrays of the
  given backend.

  Collective

  Input Parameters:
+ A      - a `MATMPIAIJ` matrix (its off-diagonal block's column map names the ghosts)
. dev    - `PGX_DEVICE_HOST` (arrays in host memory) or `PGX_DEVICE_CUDA` (device arrays)
- gather - cuda: a device kernel buf[i] = x[idx[i]], i < m, on PGX's stream (unused for the host)

  Output Parameter:
. g - the exchange

  Options Database Key:
. -pgx_ghost_peer <bool> - cuda: GPU to GPU through CUDA IPC where every rank's neighbours run on its node (default
                           true; all ranks fall back to host buffers together where any cannot map its neighbours)

  Level: developer

  Note:
  The column order of the ghosts is that of the off-diagonal block (`MatMPIAIJGetSeqAIJ()`), so `PGXGhostEnd()`'s
  array multiplies that block directly. The exchange is valid until the nonzero pattern changes.

.seealso: `PGXGhostBegin()`, `PGXGhostEnd()`, `PGXGhostDestroy()`
@*/
PetscErrorCode PGXGhostCreate(Mat A, PGXDeviceType dev, PetscErrorCode (*gather)(PetscInt, const PetscInt *, const PetscScalar *, PetscScalar *), PGXGhost *g)
{
  PGXGhost           x;
  Mat                Ao;
  const PetscInt    *garray, *ioffset, *irootloc, *roffset, *rmine, *rremote;
  const PetscMPIInt *iranks, *ranks;
  PetscInt           N, ng, nir = 0, nr = 0;
  PetscMPIInt        rank;
  PetscBool          identity = PETSC_TRUE;
  IS                 is;
  Vec                xg, lvec;
  VecScatter         sct;
  PetscSF            sf;

  PetscFunctionBegin;
  PetscAssertPointer(g, 4);
  PetscCheck(dev == PGX_DEVICE_HOST || gather, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_NULL, "PGXGhostCreate() needs a device gather for the cuda backend");
  PetscCall(PetscNew(&x));
  x->dev    = dev;
  x->gather = gather;
  PetscCallMPI(MPI_Comm_dup(PetscObjectComm((PetscObject)A), &x->comm));
  PetscCallMPI(MPI_Comm_rank(x->comm, &rank));
  PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, &Ao, &garray));
  PetscCall(MatGetSize(Ao, NULL, &ng));
  PetscCall(MatGetLocalSize(A, &x->n, NULL));
  PetscCall(MatGetSize(A, &N, NULL));
  x->nghost = ng;
  /* PETSc's scatter of the ghost columns, for its star forest only: leaves are the ghost positions, roots the owned
     entries; leaf ranks list what leaves this rank (in the order each receiver expects), root ranks what arrives */
  PetscCall(VecCreateMPIWithArray(x->comm, 1, x->n, N, NULL, &xg));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, ng, &lvec));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, ng, garray, PETSC_COPY_VALUES, &is));
  PetscCall(VecScatterCreate(xg, is, lvec, NULL, &sct));
  PetscCall(ISDestroy(&is));
  sf = (PetscSF)sct;
  PetscCall(PetscSFSetUp(sf));
  PetscCall(LeafRanks(PetscSFGetLeafRanks, sf, &nir, &iranks, &ioffset, &irootloc));
  PetscCall(RootRanks(PetscSFGetRootRanks, sf, &nr, &ranks, &roffset, &rmine, &rremote));
  x->nsend = ioffset[nir];
  PetscCheck(roffset[nr] == ng, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The ghost scatter receives %" PetscInt_FMT " values for %" PetscInt_FMT " ghosts", roffset[nr], ng);
  x->nto   = (PetscMPIInt)nir;
  x->nfrom = (PetscMPIInt)nr;
  PetscCall(PetscMalloc4(nir, &x->to, nir + 1, &x->tooff, nr, &x->from, nr + 1, &x->fromoff));
  for (PetscInt i = 0; i < nir; i++) {
    PetscCheck(iranks[i] != rank, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The ghost scatter sends to its own rank");
    x->to[i] = iranks[i];
  }
  for (PetscInt i = 0; i < nr; i++) {
    PetscCheck(ranks[i] != rank, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The ghost scatter receives from its own rank");
    x->from[i] = ranks[i];
  }
  PetscCall(PetscArraycpy(x->tooff, ioffset, nir + 1));
  PetscCall(PetscArraycpy(x->fromoff, roffset, nr + 1));
  PetscCall(PetscMalloc1(x->nsend, &x->sendidx_h));
  PetscCall(PetscArraycpy(x->sendidx_h, irootloc, x->nsend));
  for (PetscInt k = 0; k < ng; k++)
    if ((rmine ? rmine[k] : k) != k) identity = PETSC_FALSE;
  if (!identity) {
    PetscCall(PetscMalloc1(ng, &x->recvpos));
    PetscCall(PetscArraycpy(x->recvpos, rmine, ng));
    PetscCall(PetscMalloc1(PetscMax(ng, 1), &x->ghost_h));
  }
  PetscCall(PetscMalloc1(nir + nr, &x->req));
  PetscCall(VecScatterDestroy(&sct));
  PetscCall(VecDestroy(&xg));
  PetscCall(VecDestroy(&lvec));
  if (dev == PGX_DEVICE_CUDA) {
    PetscCall(PGXHostMallocPinned((size_t)PetscMax(x->nsend, 1) * sizeof(PetscScalar), (void **)&x->sendbuf_h));
    PetscCall(PGXHostMallocPinned((size_t)PetscMax(ng, 1) * sizeof(PetscScalar), (void **)&x->recvbuf_h));
    PetscCall(PGXDeviceMallocArray(PetscMax(ng, 1), &x->d_ghost));
    PetscCall(PGXDeviceMallocArray(PetscMax(x->nsend, 1), &x->d_sendidx));
    PetscCall(PGXDeviceMallocArray(PetscMax(x->nsend, 1), &x->d_sendbuf));
    if (x->nsend) PetscCall(PGXDeviceCopyArrayToDevice(x->d_sendidx, x->sendidx_h, x->nsend));
  } else PetscCall(PetscMalloc2(PetscMax(x->nsend, 1), &x->sendbuf_h, PetscMax(ng, 1), &x->recvbuf_h));
  x->path = "through host buffers";
  if (dev == PGX_DEVICE_CUDA) {
    PetscBool   peer = PETSC_TRUE, push = PETSC_TRUE;
    const char *why  = NULL;
    PetscOptionsBegin(x->comm, NULL, "PGX ghost exchange of MPIAIJ products on the GPU", "PGX");
    PetscCall(PetscOptionsBool("-pgx_ghost_peer", "Ghost values GPU to GPU (CUDA IPC) where every rank's neighbours share its node, else through host buffers", "PGXGhostCreate", peer, &peer, NULL));
    PetscCall(PetscOptionsBool("-pgx_ghost_push", "GPU to GPU: the senders store into the receivers' ghost arrays and raise flags that the receivers' GPUs wait on (no MPI message, no host wait; ranks on GPUs of their own, else the copies of -pgx_ghost_peer)", "PGXGhostCreate", push, &push, NULL));
    PetscOptionsEnd();
    if (peer && push) {
      PetscCall(PGXGhostPushCreate(x->comm, x->recvpos ? PETSC_FALSE : PETSC_TRUE, x->nto, x->to, x->tooff, x->nfrom, x->from, x->fromoff, x->d_sendidx, x->d_ghost, &x->push, &why));
      if (x->push) x->path = "GPU to GPU, pushed by the senders (CUDA IPC, flags in device memory)";
      else PetscCall(PetscInfo(A, "Ghost exchange not pushed: %s\n", why ? why : "unavailable"));
    }
    if (peer && !x->push) {
      PetscCall(PGXGhostPeerCreate(x->comm, x->recvpos ? PETSC_FALSE : PETSC_TRUE, x->nto, x->to, x->tooff, x->nfrom, x->from, x->fromoff, x->d_sendbuf, x->d_ghost, &x->peer, &why));
      if (x->peer) x->path = "GPU to GPU (CUDA IPC)";
      else PetscCall(PetscInfo(A, "Ghost exchange through host buffers: %s\n", why ? why : "GPU-to-GPU path unavailable"));
    } else if (!peer) x->path = "through host buffers (-pgx_ghost_peer 0)";
  }
  *g = x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXGhostBegin - Starts exchanging the ghost values of x (the caller's local part, on the exchange's backend).

  Collective

  Input Parameters:
+ g - the exchange
- x - the owned entries (device array for cuda, host array for host); not changed, and must stay until `PGXGhostEnd()`

  Level: developer

.seealso: `PGXGhostCreate()`, `PGXGhostEnd()`
@*/
PetscErrorCode PGXGhostBegin(PGXGhost g, const PetscScalar *x)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_GhostBegin, 0, 0, 0, 0));
  if (g->push) {
    PetscCall(PGXGhostPushBegin(g->push, x));
    PetscCall(PetscLogEventEnd(PGX_GhostBegin, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (g->peer) {
    PetscCall(PGXGhostPeerPrepare(g->peer));
    if (g->nsend) PetscCall(g->gather(g->nsend, g->d_sendidx, x, g->d_sendbuf));
    PetscCall(PGXGhostPeerStart(g->peer));
    PetscCall(PetscLogEventEnd(PGX_GhostBegin, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscMPIInt i = 0; i < g->nfrom; i++) PetscCallMPI(MPI_Irecv(g->recvbuf_h + g->fromoff[i], (PetscMPIInt)(g->fromoff[i + 1] - g->fromoff[i]), MPIU_SCALAR, g->from[i], 0, g->comm, &g->req[i]));
  if (g->dev == PGX_DEVICE_CUDA) { /* only the entries other ranks need come to the host */
    if (g->nsend) {
      PetscCall(g->gather(g->nsend, g->d_sendidx, x, g->d_sendbuf));
      PetscCall(PGXDeviceCopyArrayToHost(g->sendbuf_h, g->d_sendbuf, g->nsend));
    }
  } else
    for (PetscInt i = 0; i < g->nsend; i++) g->sendbuf_h[i] = x[g->sendidx_h[i]];
  for (PetscMPIInt i = 0; i < g->nto; i++) PetscCallMPI(MPI_Isend(g->sendbuf_h + g->tooff[i], (PetscMPIInt)(g->tooff[i + 1] - g->tooff[i]), MPIU_SCALAR, g->to[i], 0, g->comm, &g->req[g->nfrom + i]));
  PetscCall(PetscLogEventEnd(PGX_GhostBegin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXGhostEnd - Ends the exchange: the ghost values, in the off-diagonal block's column order.

  Collective

  Input Parameter:
. g - the exchange

  Output Parameter:
. ghost - the ghost values (device array for cuda, host array for host), valid until the next `PGXGhostBegin()`

  Level: developer

.seealso: `PGXGhostCreate()`, `PGXGhostBegin()`
@*/
PetscErrorCode PGXGhostEnd(PGXGhost g, const PetscScalar **ghost)
{
  const PetscScalar *h = g->recvbuf_h;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PGX_GhostEnd, 0, 0, 0, 0));
  if (g->push) {
    PetscCall(PGXGhostPushEnd(g->push));
    *ghost = g->d_ghost;
    PetscCall(PetscLogEventEnd(PGX_GhostEnd, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (g->peer) {
    PetscCall(PGXGhostPeerFinish(g->peer));
    *ghost = g->d_ghost;
    PetscCall(PetscLogEventEnd(PGX_GhostEnd, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Waitall(g->nfrom + g->nto, g->req, MPI_STATUSES_IGNORE));
  if (g->recvpos) {
    for (PetscInt k = 0; k < g->nghost; k++) g->ghost_h[g->recvpos[k]] = g->recvbuf_h[k];
    h = g->ghost_h;
  }
  if (g->dev == PGX_DEVICE_CUDA) {
    if (g->nghost) PetscCall(PGXDeviceCopyArrayToDevice(g->d_ghost, h, g->nghost));
    *ghost = g->d_ghost;
  } else *ghost = h;
  PetscCall(PetscLogEventEnd(PGX_GhostEnd, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXGhostGetSizes - How many values one exchange sends and receives on this rank.

  Not Collective

  Input Parameter:
. g - the exchange

  Output Parameters:
+ nsend  - the owned entries other ranks need (optional)
- nghost - the ghost values received, the off-diagonal block's width (optional)

  Level: developer

.seealso: `PGXGhostCreate()`
@*/
PetscErrorCode PGXGhostGetSizes(PGXGhost g, PetscInt *nsend, PetscInt *nghost)
{
  PetscFunctionBegin;
  if (nsend) *nsend = g ? g->nsend : 0;
  if (nghost) *nghost = g ? g->nghost : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXGhostGetSendIndices - The local indices of the owned entries that one exchange sends, in the backend's memory
  (device array for cuda, host array for host): a caller that forms those entries itself before `PGXGhostBegin()` (the
  resident CG forms its new direction there, and the rest of it inside the product of the diagonal block).

  Not Collective

  Input Parameter:
. g - the exchange

  Output Parameters:
+ nsend - how many
- idx   - the indices (owned by g)

  Level: developer

.seealso: `PGXGhostCreate()`, `PGXGhostGetSizes()`
@*/
PetscErrorCode PGXGhostGetSendIndices(PGXGhost g, PetscInt *nsend, const PetscInt **idx)
{
  PetscFunctionBegin;
  *nsend = g->nsend;
  *idx   = g->dev == PGX_DEVICE_CUDA ? g->d_sendidx : g->sendidx_h;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXGhostGetPath - How the exchange moves the values, for views: "through host buffers" or "GPU to GPU (CUDA IPC)".

  Not Collective

  Input Parameter:
. g - the exchange

  Output Parameter:
. path - a static string

  Level: developer

.seealso: `PGXGhostCreate()`
@*/
PetscErrorCode PGXGhostGetPath(PGXGhost g, const char **path)
{
  PetscFunctionBegin;
  *path = g ? g->path : "none";
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXGhostDestroy - Frees an exchange (nothing when *g is NULL).

  Collective

  Input Parameter:
. g - the exchange; NULL on return

  Level: developer

.seealso: `PGXGhostCreate()`
@*/
PetscErrorCode PGXGhostDestroy(PGXGhost *g)
{
  PGXGhost x = g ? *g : NULL;

  PetscFunctionBegin;
  if (!x) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXGhostPeerDestroy(&x->peer));
  PetscCall(PGXGhostPushDestroy(&x->push));
  PetscCallMPI(MPI_Comm_free(&x->comm));
  PetscCall(PetscFree4(x->to, x->tooff, x->from, x->fromoff));
  PetscCall(PetscFree(x->sendidx_h));
  PetscCall(PetscFree(x->recvpos));
  PetscCall(PetscFree(x->ghost_h));
  PetscCall(PetscFree(x->req));
  if (x->dev == PGX_DEVICE_CUDA) {
    PetscCall(PGXHostFreePinned(&x->sendbuf_h));
    PetscCall(PGXHostFreePinned(&x->recvbuf_h));
  } else PetscCall(PetscFree2(x->sendbuf_h, x->recvbuf_h));
  PetscCall(PGXDeviceFree(&x->d_ghost));
  PetscCall(PGXDeviceFree(&x->d_sendidx));
  PetscCall(PGXDeviceFree(&x->d_sendbuf));
  PetscCall(PetscFree(*g));
  PetscFunctionReturn(PETSC_SUCCESS);
}
