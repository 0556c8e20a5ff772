/* PGXGhost: the ghost exchange of a MATMPIAIJ product on device (or host) arrays. The resident KSPs and PCAIPS
   both multiply by an off-diagonal block on every rank; this is their one exchange. The values other ranks need
   are gathered on the device, come to the host, go through PETSc's VecScatter (an MPI that need not be
   GPU-aware), and the ghost values go back to the device; the caller runs its diagonal block between Begin and
   End, so the exchange overlaps it. */
#include <pgx/private/pgximpl.h>
#include <petscsf.h>

struct _n_PGXGhost {
  PGXDeviceType dev;
  PetscInt      n, nghost, nsend;
  VecScatter    sct;                      /* owned x -> ghost values, on the host */
  Vec           xg;                       /* MPI Vec without array: wraps the host x of one exchange */
  Vec           lvec;                     /* the ghost values (host) */
  PetscInt     *sendidx_h, *d_sendidx;    /* cuda: local indices of the entries other ranks need */
  PetscScalar  *sendbuf_h, *d_sendbuf;    /* cuda: their values */
  PetscScalar  *hx;                       /* cuda: host x (only the sent entries are current) */
  PetscScalar  *d_ghost;                  /* cuda: device copy of the ghost values */
  PetscErrorCode (*gather)(PetscInt, const PetscInt *, const PetscScalar *, PetscScalar *);
};

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
  const PetscInt    *garray, *ioffset, *irootloc;
  const PetscMPIInt *iranks;
  PetscInt           N, ng, nir;
  IS                 is;

  PetscFunctionBegin;
  PetscAssertPointer(g, 4);
  PetscCheck(dev == PGX_DEVICE_HOST || gather, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_NULL, "PGXGhostCreate() needs a device gather for the cuda backend");
  PetscCall(PetscNew(&x));
  x->dev    = dev;
  x->gather = gather;
  PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, &Ao, &garray));
  PetscCall(MatGetSize(Ao, NULL, &ng));
  PetscCall(MatGetLocalSize(A, &x->n, NULL));
  PetscCall(MatGetSize(A, &N, NULL));
  x->nghost = ng;
  PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)A), 1, x->n, N, NULL, &x->xg));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, ng, &x->lvec));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, ng, garray, PETSC_COPY_VALUES, &is));
  PetscCall(VecScatterCreate(x->xg, is, x->lvec, NULL, &x->sct));
  PetscCall(ISDestroy(&is));
  /* the entries of x that leave this rank: the roots of the scatter's star forest that other ranks reference */
  PetscCall(PetscSFSetUp(x->sct));
  PetscCall(PetscSFGetLeafRanks(x->sct, &nir, &iranks, &ioffset, &irootloc));
  x->nsend = ioffset[nir];
  if (dev == PGX_DEVICE_CUDA) {
    PetscCall(PetscMalloc2(x->nsend, &x->sendidx_h, x->nsend, &x->sendbuf_h));
    PetscCall(PetscArraycpy(x->sendidx_h, irootloc, x->nsend));
    PetscCall(PetscCalloc1(PetscMax(x->n, 1), &x->hx));
    PetscCall(PGXDeviceMallocArray(PetscMax(ng, 1), &x->d_ghost));
    PetscCall(PGXDeviceMallocArray(PetscMax(x->nsend, 1), &x->d_sendidx));
    PetscCall(PGXDeviceMallocArray(PetscMax(x->nsend, 1), &x->d_sendbuf));
    if (x->nsend) PetscCall(PGXDeviceCopyArrayToDevice(x->d_sendidx, x->sendidx_h, x->nsend));
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
  if (g->dev == PGX_DEVICE_CUDA) { /* only the entries other ranks need come to the host */
    if (g->nsend) {
      PetscCall(g->gather(g->nsend, g->d_sendidx, x, g->d_sendbuf));
      PetscCall(PGXDeviceCopyArrayToHost(g->sendbuf_h, g->d_sendbuf, g->nsend));
    }
    for (PetscInt i = 0; i < g->nsend; i++) g->hx[g->sendidx_h[i]] = g->sendbuf_h[i];
    PetscCall(VecPlaceArray(g->xg, g->hx));
  } else PetscCall(VecPlaceArray(g->xg, x));
  PetscCall(VecScatterBegin(g->sct, g->xg, g->lvec, INSERT_VALUES, SCATTER_FORWARD));
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
  const PetscScalar *h;

  PetscFunctionBegin;
  PetscCall(VecScatterEnd(g->sct, g->xg, g->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecResetArray(g->xg));
  PetscCall(VecGetArrayRead(g->lvec, &h));
  if (g->dev == PGX_DEVICE_CUDA) {
    if (g->nghost) PetscCall(PGXDeviceCopyArrayToDevice(g->d_ghost, h, g->nghost));
    *ghost = g->d_ghost;
  } else *ghost = h; /* a VECSEQ's own array: it stays valid until lvec is written again (the next exchange) */
  PetscCall(VecRestoreArrayRead(g->lvec, &h));
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
  PetscCall(VecScatterDestroy(&x->sct));
  PetscCall(VecDestroy(&x->xg));
  PetscCall(VecDestroy(&x->lvec));
  PetscCall(PetscFree2(x->sendidx_h, x->sendbuf_h));
  PetscCall(PetscFree(x->hx));
  PetscCall(PGXDeviceFree(&x->d_ghost));
  PetscCall(PGXDeviceFree(&x->d_sendidx));
  PetscCall(PGXDeviceFree(&x->d_sendbuf));
  PetscCall(PetscFree(*g));
  PetscFunctionReturn(PETSC_SUCCESS);
}
