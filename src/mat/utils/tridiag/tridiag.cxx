/* The batched tridiagonal solver object: host setup (grouping, interleaving, partitions, factors) shared
   by both backends, and the dispatch of the solve to the reference or cuda kernels. */
#include <pgx/tridiag.h>
#include <pgx/private/pgximpl.h>
#include "tridiag_kernels.h"
#include <algorithm>
#include <numeric>
#include <vector>

namespace K = pgx::kernels::tridiag;

namespace
{
/* A partition of a long block: rows start..start+len-1, separators left/right (-1: the block's end) */
struct Part {
  PetscInt start, len, left, right, owner, loff; /* loff: first entry in the correction list */
};

/* Device copy of a host vector */
template <class T>
struct Mirror {
  T     *d = nullptr;
  size_t n = 0;
};
} // namespace

struct _n_PGXTridiag {
  PGXDeviceType    type      = PGX_DEVICE_HOST;
  PetscInt         thrset    = 0;                         /* threshold given by the user (0: the layout's default) */
  PGXTridiagLayout layoutset = PGX_TRIDIAG_LAYOUT_AUTO;   /* layout asked for */
  PGXTridiagLayout layout    = PGX_TRIDIAG_LAYOUT_INTERLEAVED; /* layout in effect (set by SetUpSymbolic) */
  PetscInt         threshold = PGX_TRIDIAG_DEFAULT_THRESHOLD; /* threshold in effect */
  PetscBool     symbolic  = PETSC_FALSE; /* SetUpSymbolic was called */
  PetscBool     numeric   = PETSC_FALSE; /* SetUpNumeric succeeded */
  PetscBool     numdev    = PETSC_FALSE; /* the last numeric setup factored on the device (PGXTridiagSetUpNumericDevice()) */

  /* the system */
  PetscInt              n = 0, nblocks = 0;
  std::vector<PetscInt> offsets;

  /* batch (level 0): blocks in batch order */
  std::vector<PetscInt>  bsize, bowner, bpart, bfbase, bstride, bstart;
  std::vector<K::Chunk>  chunks;
  PetscInt               nf = 0, ngroups = 0, smem = 0;
  int                    tile_threads = K::TILE_THREADS; /* tiled layout: threads per tile */
  std::vector<PetscScalar> fl, finv, fu;

  /* long blocks */
  std::vector<PetscInt>    longblocks;                   /* original index of each long block */
  std::vector<Part>        parts;                        /* their partitions */
  std::vector<PetscInt>    seprow, sepleft, sepright;    /* separators: row, partitions on each side */
  std::vector<PetscScalar> sepa, sepc;                   /* separators' dl and du */
  std::vector<PetscInt>    lrow, lleft, lright;          /* correction list */
  std::vector<PetscScalar> lG, lH;
  PGXTridiag               child = nullptr;              /* reduced systems, one block per long block */

  /* device mirrors (cuda) */
  Mirror<K::Chunk>    d_chunks;
  Mirror<PetscInt>    d_bstart, d_seprow, d_lrow, d_lleft, d_lright;
  Mirror<PetscScalar> d_fl, d_finv, d_fu, d_sepa, d_sepc, d_lG, d_lH, d_rs, d_xs;
  std::vector<PetscScalar> h_rs, h_xs; /* host work for the reduced systems */
  std::vector<PetscScalar> h_z;        /* host work of the batch solve (reference::batch_work()) */
};

const char *const PGXTridiagLayouts[] = {"auto", "interleaved", "tiled", "PGXTridiagLayout", "PGX_TRIDIAG_LAYOUT_", NULL};

template <class T>
static PetscErrorCode MirrorFree(Mirror<T> &m)
{
  PetscFunctionBegin;
  if (m.d) PetscCall(PGXDeviceFree(&m.d));
  m.d = nullptr;
  m.n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Upload a host vector (or just allocate n entries when h is NULL) */
template <class T>
static PetscErrorCode MirrorSet(Mirror<T> &m, const T *h, size_t n)
{
  PetscFunctionBegin;
  if (m.n != n) {
    PetscCall(MirrorFree(m));
    if (n) PetscCall(PGXDeviceMallocArray(n, &m.d));
    m.n = n;
  }
  if (h && n) PetscCall(PGXDeviceCopyArrayToDevice(m.d, h, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGXTridiagFreeDevice(PGXTridiag T)
{
  PetscFunctionBegin;
  PetscCall(MirrorFree(T->d_chunks));
  PetscCall(MirrorFree(T->d_bstart));
  PetscCall(MirrorFree(T->d_seprow));
  PetscCall(MirrorFree(T->d_lrow));
  PetscCall(MirrorFree(T->d_lleft));
  PetscCall(MirrorFree(T->d_lright));
  PetscCall(MirrorFree(T->d_fl));
  PetscCall(MirrorFree(T->d_finv));
  PetscCall(MirrorFree(T->d_fu));
  PetscCall(MirrorFree(T->d_sepa));
  PetscCall(MirrorFree(T->d_sepc));
  PetscCall(MirrorFree(T->d_lG));
  PetscCall(MirrorFree(T->d_lH));
  PetscCall(MirrorFree(T->d_rs));
  PetscCall(MirrorFree(T->d_xs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagCreate - Creates a batched tridiagonal solver that runs on the given backend.

  Not Collective

  Input Parameter:
. type - `PGX_DEVICE_HOST` (reference kernels, host arrays) or `PGX_DEVICE_CUDA` (device arrays)

  Output Parameter:
. T - the solver

  Level: developer

.seealso: `PGXTridiagSetUpSymbolic()`, `PGXTridiagSetUpNumeric()`, `PGXTridiagSolve()`, `PCAIPS`
@*/
PetscErrorCode PGXTridiagCreate(PGXDeviceType type, PGXTridiag *T)
{
  PetscFunctionBegin;
  PetscAssertPointer(T, 2);
  PetscCheck(type == PGX_DEVICE_HOST || type == PGX_DEVICE_CUDA, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PGXTridiagCreate() needs a resolved device type (host or cuda), not %d; see PGXDeviceResolve()", (int)type);
#if !PGX_HAVE_CUDA
  PetscCheck(type != PGX_DEVICE_CUDA, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "No cuda tridiagonal solver in this build (PGX built without CUDA)");
#endif
  *T         = new _n_PGXTridiag();
  (*T)->type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagDestroy - Frees a solver and everything it holds (host and device).

  Not Collective

  Input Parameter:
. T - the solver (set to NULL)

  Level: developer

.seealso: `PGXTridiagCreate()`
@*/
PetscErrorCode PGXTridiagDestroy(PGXTridiag *T)
{
  PetscFunctionBegin;
  if (!T || !*T) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXTridiagDestroy(&(*T)->child));
  PetscCall(PGXTridiagFreeDevice(*T));
  delete *T;
  *T = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagSetThreshold - Blocks with more rows than this are cut into partitions of at most this many
  rows, solved in parallel and coupled through a reduced system (default 0: the layout's own,
  `PGX_TRIDIAG_DEFAULT_THRESHOLD` when interleaved, `PGX_TRIDIAG_TILE_ROWS` when tiled; the tiled layout
  caps it at `PGX_TRIDIAG_TILE_ROWS`). Takes effect at the next `PGXTridiagSetUpSymbolic()`.

  Not Collective

  Input Parameters:
+ T         - the solver
- threshold - 0 (default) or between 2 and `PGX_TRIDIAG_MAX_THRESHOLD`

  Level: developer

.seealso: `PGXTridiagSetUpSymbolic()`, `PCAIPSSetBlockThreshold()`
@*/
PetscErrorCode PGXTridiagSetThreshold(PGXTridiag T, PetscInt threshold)
{
  PetscFunctionBegin;
  PetscCheck(threshold == 0 || (threshold >= 2 && threshold <= PGX_TRIDIAG_MAX_THRESHOLD), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Tridiagonal block threshold %" PetscInt_FMT " must be 0 (default) or in [2, %d]", threshold, PGX_TRIDIAG_MAX_THRESHOLD);
  T->thrset = threshold;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagSetLayout - Chooses the layout of the batch: `PGX_TRIDIAG_LAYOUT_INTERLEAVED` (groups of equal
  size, one thread per block), `PGX_TRIDIAG_LAYOUT_TILED` (natural order, tiles solved by parallel scans) or
  `PGX_TRIDIAG_LAYOUT_AUTO` (default: tiled on cuda, interleaved on the host). Takes effect at the next
  `PGXTridiagSetUpSymbolic()`. Both backends accept both layouts and give the same answers.

  Not Collective

  Input Parameters:
+ T      - the solver
- layout - the layout

  Level: developer

.seealso: `PGXTridiagSetUpSymbolic()`, `PGXTridiagSetThreshold()`
@*/
PetscErrorCode PGXTridiagSetLayout(PGXTridiag T, PGXTridiagLayout layout)
{
  PetscFunctionBegin;
  PetscCheck(layout >= PGX_TRIDIAG_LAYOUT_AUTO && layout <= PGX_TRIDIAG_LAYOUT_TILED, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown tridiagonal layout %d", (int)layout);
  T->layoutset = layout;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagSetUpSymbolic - Lays out the solver for a block structure: groups the blocks by size,
  interleaves each group, cuts the long blocks into partitions and builds the reduced systems' layout.

  Not Collective

  Input Parameters:
+ T       - the solver
. nblocks - number of blocks
- offsets - nblocks+1 nondecreasing row offsets, offsets[0] = 0 (empty blocks are allowed)

  Level: developer

.seealso: `PGXTridiagSetUpNumeric()`, `PGXTridiagSetThreshold()`
@*/
PetscErrorCode PGXTridiagSetUpSymbolic(PGXTridiag T, PetscInt nblocks, const PetscInt offsets[])
{
  PetscFunctionBegin;
  T->layout = T->layoutset;
  if (T->layout == PGX_TRIDIAG_LAYOUT_AUTO) T->layout = T->type == PGX_DEVICE_CUDA ? PGX_TRIDIAG_LAYOUT_TILED : PGX_TRIDIAG_LAYOUT_INTERLEAVED;
  const bool tiled = T->layout == PGX_TRIDIAG_LAYOUT_TILED;
  if (tiled) T->threshold = T->thrset ? PetscMin(T->thrset, PGX_TRIDIAG_TILE_ROWS) : PGX_TRIDIAG_TILE_ROWS;
  else T->threshold = T->thrset ? T->thrset : PGX_TRIDIAG_DEFAULT_THRESHOLD;
  const PetscInt thr = T->threshold;

  PetscCheck(nblocks >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative number of blocks %" PetscInt_FMT, nblocks);
  PetscCheck(offsets[0] == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "offsets[0] must be 0, not %" PetscInt_FMT, offsets[0]);
  for (PetscInt b = 0; b < nblocks; b++) PetscCheck(offsets[b + 1] >= offsets[b], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "offsets must be nondecreasing: offsets[%" PetscInt_FMT "] = %" PetscInt_FMT " < offsets[%" PetscInt_FMT "] = %" PetscInt_FMT, b + 1, offsets[b + 1], b, offsets[b]);
  T->symbolic = PETSC_FALSE;
  T->numeric  = PETSC_FALSE;
  PetscCall(PGXTridiagDestroy(&T->child));
  T->nblocks = nblocks;
  T->n       = offsets[nblocks];
  T->offsets.assign(offsets, offsets + nblocks + 1);

  /* batch blocks and partitions */
  std::vector<PetscInt> bstart0, bsize0, bowner0, bpart0;
  std::vector<PetscInt> childoff(1, 0);
  T->longblocks.clear();
  T->parts.clear();
  T->seprow.clear();
  T->sepleft.clear();
  T->sepright.clear();
  for (PetscInt b = 0; b < nblocks; b++) {
    const PetscInt start = offsets[b], L = offsets[b + 1] - offsets[b];
    if (!L) continue;
    if (L <= thr) {
      bstart0.push_back(start);
      bsize0.push_back(L);
      bowner0.push_back(b);
      bpart0.push_back(-1);
      continue;
    }
    T->longblocks.push_back(b);
    PetscInt pos = start, end = start + L;
    PetscInt left = -1;
    while (true) {
      PetscInt len = std::min(thr, end - pos);
      if (pos + len + 1 == end) len--; /* keep a row after the separator; thr >= 2 so len >= 1 */
      const bool last  = (pos + len == end);
      Part       p     = {pos, len, left, last ? -1 : (PetscInt)T->seprow.size(), b, 0};
      const PetscInt pi = (PetscInt)T->parts.size();
      T->parts.push_back(p);
      bstart0.push_back(pos);
      bsize0.push_back(len);
      bowner0.push_back(b);
      bpart0.push_back(pi);
      if (last) break;
      T->seprow.push_back(pos + len);
      T->sepleft.push_back(pi);
      T->sepright.push_back(pi + 1);
      left = p.right;
      pos += len + 1;
    }
    childoff.push_back((PetscInt)T->seprow.size());
  }

  /* groups: sort by (row window, size descending, partitions after whole blocks, row) */
  const PetscInt        nb = (PetscInt)bstart0.size();
  std::vector<PetscInt> perm(nb);
  std::iota(perm.begin(), perm.end(), 0);
  if (!tiled) std::sort(perm.begin(), perm.end(), [&](PetscInt x, PetscInt y) {
    const PetscInt wx = bstart0[x] / K::ROW_WINDOW, wy = bstart0[y] / K::ROW_WINDOW;
    if (wx != wy) return wx < wy;
    if (bsize0[x] != bsize0[y]) return bsize0[x] > bsize0[y];
    const bool px = bpart0[x] >= 0, py = bpart0[y] >= 0;
    if (px != py) return py;
    return bstart0[x] < bstart0[y];
  });
  T->bstart.resize(nb);
  T->bsize.resize(nb);
  T->bowner.resize(nb);
  T->bpart.resize(nb);
  T->bfbase.resize(nb);
  T->bstride.resize(nb);
  T->chunks.clear();
  T->ngroups = 0;
  T->smem    = 0;
  PetscInt fbase = 0;
  if (tiled) { /* natural order; tiles of consecutive rows, all of whole blocks or all of long blocks */
    std::vector<char> inlong(T->n, 0);
    for (PetscInt q = 0; q < nb; q++) {
      T->bstart[q]  = bstart0[q];
      T->bsize[q]   = bsize0[q];
      T->bowner[q]  = bowner0[q];
      T->bpart[q]   = bpart0[q];
      T->bfbase[q]  = bstart0[q];
      T->bstride[q] = 1;
    }
    for (PetscInt lb : T->longblocks)
      for (PetscInt i = offsets[lb]; i < offsets[lb + 1]; i++) inlong[i] = 1;
    /* tile size: the small one unless a block does not fit it */
    PetscInt maxs = 1;
    for (PetscInt q = 0; q < nb; q++) maxs = PetscMax(maxs, T->bsize[q]);
    T->tile_threads = maxs <= K::TILE_THREADS * K::TILE_RPT - (K::TILE_RPT - 1) ? K::TILE_THREADS : K::TILE_THREADS_BIG;
    const PetscInt window = (PetscInt)T->tile_threads * K::TILE_RPT;
    /* units in row order: whole blocks, partitions, separators (one row) */
    PetscInt q = 0, sp = 0;
    auto     append = [&](PetscInt start, PetscInt len, bool islong) {
      if (!T->chunks.empty()) {
        K::Chunk &c = T->chunks.back();
        if (c.epilogue == (islong ? 0 : 1) && c.fbase + c.size == start && c.fbase % K::TILE_RPT + c.size + len <= window) {
          c.size += (int)len;
          return;
        }
      }
      K::Chunk c;
      c.fbase    = start;
      c.stride   = 1;
      c.bfirst   = 0;
      c.size     = (int)len;
      c.nblk     = 0;
      c.epilogue = islong ? 0 : 1;
      c.staged   = 0;
      T->chunks.push_back(c);
    };
    for (PetscInt i = 0; i < T->n;) {
      if (q < nb && T->bstart[q] == i) {
        append(i, T->bsize[q], inlong[i] != 0);
        i += T->bsize[q];
        q++;
      } else if (sp < (PetscInt)T->seprow.size() && T->seprow[sp] == i) {
        append(i, 1, true);
        i++;
        sp++;
      } else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "Tiled layout: row %" PetscInt_FMT " is in no block", i);
    }
    PetscCheck(q == nb && sp == (PetscInt)T->seprow.size(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Tiled layout: %" PetscInt_FMT " of %" PetscInt_FMT " blocks placed", q, nb);
    fbase = T->n;
  } else for (PetscInt q0 = 0; q0 < nb;) {
    const PetscInt s      = bsize0[perm[q0]];
    const bool     ispart = bpart0[perm[q0]] >= 0;
    const PetscInt win    = bstart0[perm[q0]] / K::ROW_WINDOW;
    PetscInt       q1     = q0;
    while (q1 < nb && bsize0[perm[q1]] == s && (bpart0[perm[q1]] >= 0) == ispart && bstart0[perm[q1]] / K::ROW_WINDOW == win) q1++;
    const PetscInt m = q1 - q0; /* group of m blocks of size s */
    for (PetscInt j = 0; j < m; j++) {
      const PetscInt o = perm[q0 + j];
      T->bstart[q0 + j]  = bstart0[o];
      T->bsize[q0 + j]   = s;
      T->bowner[q0 + j]  = bowner0[o];
      T->bpart[q0 + j]   = bpart0[o];
      T->bfbase[q0 + j]  = fbase + j;
      T->bstride[q0 + j] = m;
    }
    const bool     staged = s <= K::STAGED_MAX;
    const PetscInt per    = staged ? std::min<PetscInt>(K::CHUNK_THREADS, std::max<PetscInt>(1, K::CHUNK_SMEM / (s + 1))) : K::CHUNK_THREADS;
    for (PetscInt j = 0; j < m; j += per) {
      K::Chunk c;
      c.fbase    = fbase + j;
      c.stride   = m;
      c.bfirst   = q0 + j;
      c.size     = (int)s;
      c.nblk     = (int)std::min(per, m - j);
      c.epilogue = ispart ? 0 : 1;
      c.staged   = staged ? 1 : 0;
      T->chunks.push_back(c);
      if (staged) T->smem = std::max<PetscInt>(T->smem, s * (c.nblk | 1));
    }
    fbase += m * s;
    T->ngroups++;
    q0 = q1;
  }
  T->nf = fbase;

  /* correction list of the partitions, in partition order */
  T->lrow.clear();
  T->lleft.clear();
  T->lright.clear();
  for (auto &p : T->parts) {
    p.loff = (PetscInt)T->lrow.size();
    for (PetscInt k = 0; k < p.len; k++) {
      T->lrow.push_back(p.start + k);
      T->lleft.push_back(p.left);
      T->lright.push_back(p.right);
    }
  }
  T->lG.assign(T->lrow.size(), 0);
  T->lH.assign(T->lrow.size(), 0);
  T->sepa.assign(T->seprow.size(), 0);
  T->sepc.assign(T->seprow.size(), 0);
  T->fl.clear(); /* the host factors: sized by the host numeric setup (a device one does not need them) */
  T->finv.clear();
  T->fu.clear();

  /* reduced systems: one block per long block */
  if (!T->longblocks.empty()) {
    PetscCall(PGXTridiagCreate(T->type, &T->child));
    PetscCall(PGXTridiagSetThreshold(T->child, T->thrset));
    PetscCall(PGXTridiagSetLayout(T->child, T->layoutset));
    PetscCall(PGXTridiagSetUpSymbolic(T->child, (PetscInt)T->longblocks.size(), childoff.data()));
  }
  const size_t nsep = T->seprow.size();
  if (T->type == PGX_DEVICE_CUDA) {
    PetscCall(MirrorSet(T->d_chunks, T->chunks.data(), T->chunks.size()));
    PetscCall(MirrorSet(T->d_bstart, T->bstart.data(), T->bstart.size()));
    PetscCall(MirrorSet(T->d_seprow, T->seprow.data(), nsep));
    PetscCall(MirrorSet(T->d_lrow, T->lrow.data(), T->lrow.size()));
    PetscCall(MirrorSet(T->d_lleft, T->lleft.data(), T->lleft.size()));
    PetscCall(MirrorSet(T->d_lright, T->lright.data(), T->lright.size()));
    PetscCall(MirrorSet<PetscScalar>(T->d_rs, nullptr, nsep));
    PetscCall(MirrorSet<PetscScalar>(T->d_xs, nullptr, nsep));
  } else {
    K::Batch b = {};
    b.tiled    = tiled ? 1 : 0;
    b.nchunks  = (PetscInt)T->chunks.size();
    b.chunks   = T->chunks.data();
    T->h_rs.assign(nsep, 0);
    T->h_xs.assign(nsep, 0);
    T->h_z.assign(K::reference::batch_work(b), 0);
  }
  T->symbolic = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A pivot is refused when it is not finite or not larger than 1e-13 times the largest entry of its row */
static inline bool PivotBad(PetscScalar piv, PetscReal rowmax)
{
  return PetscIsInfOrNanScalar(piv) || !(PetscAbsScalar(piv) > 1e-13 * rowmax);
}

/* The start of both numeric setups: no failure reported, no factors valid */
static void NumericReset(PGXTridiag T, PGXTridiagPivotInfo *info)
{
  info->failed = PETSC_FALSE;
  info->block  = -1;
  info->row    = -1;
  info->pivot  = 0;
  T->numeric   = PETSC_FALSE;
  T->numdev    = PETSC_FALSE;
}

/*@C
  PGXTridiagSetUpNumeric - Factors the blocks (no pivoting) for the layout of `PGXTridiagSetUpSymbolic()`.

  Not Collective

  Input Parameters:
+ T  - the solver
. dl - sub-diagonal, n entries (dl[i] couples row i to row i-1; ignored at a block's first row)
. d  - diagonal, n entries
- du - super-diagonal, n entries (du[i] couples row i to row i+1; ignored at a block's last row)

  Output Parameter:
. info - failure report: failed, and the block, row and value of the first refused pivot. On failure the
         solver cannot be used until a successful numeric setup.

  Level: developer

.seealso: `PGXTridiagSetUpSymbolic()`, `PGXTridiagSolve()`
@*/
PetscErrorCode PGXTridiagSetUpNumeric(PGXTridiag T, const PetscScalar dl[], const PetscScalar d[], const PetscScalar du[], PGXTridiagPivotInfo *info)
{
  std::vector<PetscScalar> tl, tinv, tu;

  PetscFunctionBegin;
  PetscAssertPointer(info, 5);
  PetscCheck(T->symbolic, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call PGXTridiagSetUpSymbolic() before PGXTridiagSetUpNumeric()");
  NumericReset(T, info);
  if (T->fl.size() != (size_t)T->nf) { /* zero where no block writes (the tiled layout's separator rows) */
    T->fl.assign(T->nf, 0);
    T->finv.assign(T->nf, 0);
    T->fu.assign(T->nf, 0);
  }
  const PetscInt nb = (PetscInt)T->bstart.size();
  for (PetscInt q = 0; q < nb; q++) {
    const PetscInt st = T->bstart[q], s = T->bsize[q], m = T->bstride[q], p = T->bpart[q];
    PetscInt       f   = T->bfbase[q];
    PetscScalar    fup = 0;
    if (p >= 0) {
      tl.resize(s);
      tinv.resize(s);
      tu.resize(s);
    }
    for (PetscInt k = 0; k < s; k++, f += m) {
      const PetscInt    i = st + k;
      const PetscScalar a = k ? dl[i] : 0, b = d[i], c = k < s - 1 ? du[i] : 0;
      const PetscScalar piv    = b - a * fup;
      const PetscReal   rowmax = PetscMax(PetscAbsScalar(b), PetscMax(PetscAbsScalar(a), PetscAbsScalar(c)));
      if (PivotBad(piv, rowmax)) {
        info->failed = PETSC_TRUE;
        info->block  = T->bowner[q];
        info->row    = i;
        info->pivot  = piv;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      const PetscScalar inv = 1.0 / piv;
      T->fl[f] = a * inv;
      T->finv[f] = inv;
      T->fu[f] = fup = c * inv;
      if (p >= 0) {
        tl[k]   = a * inv;
        tinv[k] = inv;
        tu[k]   = c * inv;
      }
    }
    if (p >= 0) { /* spikes of the partition: G = T^-1 (a_first e_1), H = T^-1 (c_last e_s) */
      const Part  &P  = T->parts[p];
      PetscScalar *G  = T->lG.data() + P.loff, *H = T->lH.data() + P.loff;
      const PetscScalar af = P.left >= 0 ? dl[st] : 0, cl = P.right >= 0 ? du[st + s - 1] : 0;
      G[0] = tinv[0] * af;
      for (PetscInt k = 1; k < s; k++) G[k] = -tl[k] * G[k - 1];
      for (PetscInt k = s - 2; k >= 0; k--) G[k] -= tu[k] * G[k + 1];
      for (PetscInt k = 0; k < s - 1; k++) H[k] = 0;
      H[s - 1] = tinv[s - 1] * cl;
      for (PetscInt k = s - 2; k >= 0; k--) H[k] = -tu[k] * H[k + 1];
    }
  }
  const PetscInt nsep = (PetscInt)T->seprow.size();
  if (nsep) { /* the reduced (Schur complement) systems on the separators */
    std::vector<PetscScalar> cdl(nsep), cd(nsep), cdu(nsep);
    for (PetscInt s = 0; s < nsep; s++) {
      const PetscInt    i = T->seprow[s];
      const Part       &L = T->parts[T->sepleft[s]], &R = T->parts[T->sepright[s]];
      const PetscScalar a = dl[i], c = du[i];
      T->sepa[s] = a;
      T->sepc[s] = c;
      cdl[s]     = -a * T->lG[L.loff + L.len - 1];
      cd[s]      = d[i] - a * T->lH[L.loff + L.len - 1] - c * T->lG[R.loff];
      cdu[s]     = -c * T->lH[R.loff];
    }
    PGXTridiagPivotInfo cinfo;
    PetscCall(PGXTridiagSetUpNumeric(T->child, cdl.data(), cd.data(), cdu.data(), &cinfo));
    if (cinfo.failed) {
      info->failed = PETSC_TRUE;
      info->block  = T->longblocks[cinfo.block];
      info->row    = T->seprow[cinfo.row];
      info->pivot  = cinfo.pivot;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (T->type == PGX_DEVICE_CUDA) {
    PetscCall(MirrorSet(T->d_fl, T->fl.data(), T->fl.size()));
    PetscCall(MirrorSet(T->d_finv, T->finv.data(), T->finv.size()));
    PetscCall(MirrorSet(T->d_fu, T->fu.data(), T->fu.size()));
    PetscCall(MirrorSet(T->d_sepa, T->sepa.data(), T->sepa.size()));
    PetscCall(MirrorSet(T->d_sepc, T->sepc.data(), T->sepc.size()));
    PetscCall(MirrorSet(T->d_lG, T->lG.data(), T->lG.size()));
    PetscCall(MirrorSet(T->d_lH, T->lH.data(), T->lH.size()));
  }
  T->numeric = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagSetUpNumericDevice - `PGXTridiagSetUpNumeric()` from P on the device: the cuda backend factors there, so
  that P need not come to the host nor the factors go back (the tiled layout without long blocks, the default on cuda
  for blocks of at most `PGX_TRIDIAG_TILE_ROWS` rows; one thread a block). Other layouts, and a refused pivot (to report
  it exactly as the host setup does), bring P to the host and take `PGXTridiagSetUpNumeric()`;
  `PGXTridiagGetInfo()` says which ran.

  Not Collective

  Input Parameters:
+ T  - the solver, of the cuda backend
. dl - sub-diagonal, n entries of device memory
. d  - diagonal, n entries of device memory
- du - super-diagonal, n entries of device memory

  Output Parameter:
. info - failure report, as `PGXTridiagSetUpNumeric()` gives it

  Level: developer

.seealso: `PGXTridiagSetUpNumeric()`, `PGXTridiagSetUpSymbolic()`, `PGXTridiagGetInfo()`
@*/
PetscErrorCode PGXTridiagSetUpNumericDevice(PGXTridiag T, const PetscScalar dl[], const PetscScalar d[], const PetscScalar du[], PGXTridiagPivotInfo *info)
{
  PetscFunctionBegin;
  PetscAssertPointer(info, 5);
  PetscCheck(T->symbolic, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call PGXTridiagSetUpSymbolic() before PGXTridiagSetUpNumericDevice()");
  PetscCheck(T->type == PGX_DEVICE_CUDA, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PGXTridiagSetUpNumericDevice() takes device arrays and needs the cuda backend; the host backend takes PGXTridiagSetUpNumeric()");
#if PGX_HAVE_CUDA
  NumericReset(T, info);
  if (T->layout == PGX_TRIDIAG_LAYOUT_TILED && T->longblocks.empty()) {
    PetscInt bad;
    PetscCall(MirrorSet<PetscScalar>(T->d_fl, nullptr, T->nf));
    PetscCall(MirrorSet<PetscScalar>(T->d_finv, nullptr, T->nf));
    PetscCall(MirrorSet<PetscScalar>(T->d_fu, nullptr, T->nf));
    PetscCall(K::cuda::factor_natural(T->n, (PetscInt)T->bstart.size(), T->d_bstart.d, dl, d, du, T->d_fl.d, T->d_finv.d, T->d_fu.d, &bad));
    if (bad == T->n) {
      T->fl.clear(); /* the host factors, if any, are not these */
      T->finv.clear();
      T->fu.clear();
      T->numeric = PETSC_TRUE;
      T->numdev  = PETSC_TRUE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  {
    std::vector<PetscScalar> hdl(T->n), hd(T->n), hdu(T->n);
    PetscCall(PGXDeviceCopyArrayToHost(hdl.data(), dl, T->n));
    PetscCall(PGXDeviceCopyArrayToHost(hd.data(), d, T->n));
    PetscCall(PGXDeviceCopyArrayToHost(hdu.data(), du, T->n));
    PetscCall(PGXTridiagSetUpNumeric(T, hdl.data(), hd.data(), hdu.data(), info));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The batch as the kernels of T's backend see it (device mirrors on cuda, host arrays otherwise) */
static K::Batch BatchOf(PGXTridiag T)
{
  const bool cuda = T->type == PGX_DEVICE_CUDA;
  K::Batch   b;
  b.tiled        = T->layout == PGX_TRIDIAG_LAYOUT_TILED ? 1 : 0;
  b.tile_threads = T->tile_threads;
  b.n            = T->n;
  b.nchunks      = (PetscInt)T->chunks.size();
  b.chunks       = cuda ? T->d_chunks.d : T->chunks.data();
  b.bstart       = cuda ? T->d_bstart.d : T->bstart.data();
  b.fl           = cuda ? T->d_fl.d : T->fl.data();
  b.finv         = cuda ? T->d_finv.d : T->finv.data();
  b.fu           = cuda ? T->d_fu.d : T->fu.data();
  b.smem         = T->smem;
  return b;
}

/*@C
  PGXTridiagSolve - Computes y = alpha P^{-1} r + beta w with the factored blocks.

  Not Collective

  Input Parameters:
+ T     - the solver, set up
. alpha - scale of the solution
. r     - right-hand side, n entries, in the backend's memory (host or device)
. beta  - scale of w
- w     - n entries in the backend's memory, or NULL (then beta is ignored)

  Output Parameter:
. y - n entries in the backend's memory; must not alias r or w

  Level: developer

  Note:
  On the cuda backend the kernels run on PGX's stream; the call returns without synchronizing.

.seealso: `PGXTridiagSetUpNumeric()`
@*/
PetscErrorCode PGXTridiagSolve(PGXTridiag T, PetscScalar alpha, const PetscScalar r[], PetscScalar beta, const PetscScalar w[], PetscScalar y[])
{
  PetscFunctionBegin;
  PetscCheck(T->numeric, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PGXTridiagSolve() needs a successful PGXTridiagSetUpNumeric()");
  PetscCheck(!T->n || (r != y && w != y), PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "PGXTridiagSolve(): y must not alias r or w");
  const bool     cuda = T->type == PGX_DEVICE_CUDA;
  const K::Batch b    = BatchOf(T);
  K::Long l;
  l.nsep   = (PetscInt)T->seprow.size();
  l.seprow = cuda ? T->d_seprow.d : T->seprow.data();
  l.sepa   = cuda ? T->d_sepa.d : T->sepa.data();
  l.sepc   = cuda ? T->d_sepc.d : T->sepc.data();
  l.nrow   = (PetscInt)T->lrow.size();
  l.row    = cuda ? T->d_lrow.d : T->lrow.data();
  l.left   = cuda ? T->d_lleft.d : T->lleft.data();
  l.right  = cuda ? T->d_lright.d : T->lright.data();
  l.G      = cuda ? T->d_lG.d : T->lG.data();
  l.H      = cuda ? T->d_lH.d : T->lH.data();
  if (!cuda) {
    K::reference::batch_solve(b, alpha, r, beta, w, y, T->h_z.data());
    if (l.nsep) {
      K::reference::reduced_rhs(l, r, y, T->h_rs.data());
      PetscCall(PGXTridiagSolve(T->child, 1.0, T->h_rs.data(), 0.0, nullptr, T->h_xs.data()));
      K::reference::correct(l, T->h_xs.data(), alpha, beta, w, y);
    }
  } else {
#if PGX_HAVE_CUDA
    if (b.nchunks) PetscCall(K::cuda::batch_solve(b, alpha, r, beta, w, y));
    if (l.nsep) {
      PetscCall(K::cuda::reduced_rhs(l, r, y, T->d_rs.d));
      PetscCall(PGXTridiagSolve(T->child, 1.0, T->d_rs.d, 0.0, nullptr, T->d_xs.d));
      PetscCall(K::cuda::correct(l, T->d_xs.d, alpha, beta, w, y));
    }
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagSolveDIAFuses - Whether `PGXTridiagSolveDIA()` on this solver is one pass (then it needs no work array, and
  a caller may alternate its outputs between two arrays): the cuda backend, the tiled layout, and no block longer
  than the threshold.

  Not Collective

  Input Parameter:
. T - the solver, after `PGXTridiagSetUpSymbolic()`

  Output Parameter:
. fuses - `PETSC_TRUE` where the pass is fused

  Level: developer

.seealso: `PGXTridiagSolveDIA()`
@*/
PetscErrorCode PGXTridiagSolveDIAFuses(PGXTridiag T, PetscBool *fuses)
{
  PetscFunctionBegin;
  PetscAssertPointer(fuses, 2);
  PetscCheck(T->symbolic, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PGXTridiagSolveDIAFuses() needs PGXTridiagSetUpSymbolic()");
  *fuses = (PetscBool)(T->type == PGX_DEVICE_CUDA && T->layout == PGX_TRIDIAG_LAYOUT_TILED && T->seprow.empty());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagSolveDIA - Computes y = alpha P^{-1} (B x) + beta w, with B in DIA storage (include/pgx/private/pgxdia.h):
  the solve's right-hand side formed as it is read, in one pass where the layout allows.

  Not Collective

  Input Parameters:
+ T     - the solver, set up
. alpha - scale of the solution
. ndiag - diagonals of B (at most 32)
. off   - their offsets (column - row), increasing (host array)
. val   - B's values, val[d * n + i] = B(i, i + off[d]) (zero where B has no entry), in the backend's memory
. x     - n entries in the backend's memory; must not alias y
. beta  - scale of w
. w     - n entries in the backend's memory, or NULL
- t     - n entries of work in the backend's memory (used where the pass is not fused; may be NULL where it is,
          `fused` says)

  Output Parameters:
+ y     - n entries in the backend's memory; must not alias x or w
- fused - (may be NULL) whether one pass did it: cuda, the tiled layout, and no block longer than the threshold.
          Otherwise t = B x is formed first and `PGXTridiagSolve()` takes it (the host backend always).

  Level: developer

  Note:
  Row i of B x sums val[d * n + i] x[i + off[d]] in increasing d over the d with i + off[d] in [0, n), in both
  paths, so the fused pass and the two steps give the same result.

.seealso: `PGXTridiagSolve()`, `PCAIPS`
@*/
/* the checks of PGXTridiagSolveDIA() and PGXTridiagSolveDIADotNorm2() (name: the caller), and B */
static PetscErrorCode SolveDIACheck(PGXTridiag T, const char *name, PetscInt ndiag, const PetscInt off[], const PetscScalar val[], const PetscScalar x[], const PetscScalar w[], const PetscScalar y[], K::DIA *B)
{
  PetscFunctionBegin;
  PetscCheck(T->numeric, PETSC_COMM_SELF, PETSC_ERR_ORDER, "%s() needs a successful PGXTridiagSetUpNumeric()", name);
  PetscCheck(ndiag >= 0 && ndiag <= K::DIA_MAXDIAG, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s(): %" PetscInt_FMT " diagonals, at most %d", name, ndiag, K::DIA_MAXDIAG);
  PetscCheck(!T->n || (x != y && w != y), PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "%s(): y must not alias x or w", name);
  B->ndiag = ndiag;
  for (PetscInt d = 0; d < K::DIA_MAXDIAG; d++) B->off[d] = d < ndiag ? off[d] : 0;
  for (PetscInt d = 1; d < ndiag; d++) PetscCheck(off[d] > off[d - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s(): offsets not increasing at %" PetscInt_FMT, name, d);
  B->val = val;
  B->x   = x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PGXTridiagSolveDIA(PGXTridiag T, PetscScalar alpha, PetscInt ndiag, const PetscInt off[], const PetscScalar val[], const PetscScalar x[], PetscScalar beta, const PetscScalar w[], PetscScalar t[], PetscScalar y[], PetscBool *fused)
{
  K::DIA     B;
  const bool cuda = T->type == PGX_DEVICE_CUDA;

  PetscFunctionBegin;
  PetscCall(SolveDIACheck(T, "PGXTridiagSolveDIA", ndiag, off, val, x, w, y, &B));
  PetscBool one;
  PetscCall(PGXTridiagSolveDIAFuses(T, &one));
  if (fused) *fused = one;
  if (one) {
#if PGX_HAVE_CUDA
    PetscCall(K::cuda::batch_solve_dia(BatchOf(T), alpha, B, beta, w, y));
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(!T->n || t, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PGXTridiagSolveDIA(): this layout needs the work array t");
  PetscCheck(!T->n || (t != x && t != y && t != w), PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "PGXTridiagSolveDIA(): t must not alias x, y or w");
  if (cuda) {
#if PGX_HAVE_CUDA
    PetscCall(K::cuda::dia_product(T->n, B, t));
#endif
  } else K::reference::dia_product(T->n, B, t);
  PetscCall(PGXTridiagSolve(T, alpha, t, beta, w, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagSolveDIADotNorm2 - `PGXTridiagSolveDIA()` in its one pass, which also sums the solution against a vector:
  y = alpha P^{-1} (B x) + beta w, d2[0] = sum_i conj(y_i) v_i and d2[1] = sum_i |y_i|^2.

  Not Collective

  Input Parameters:
+ T     - the solver, set up, on which `PGXTridiagSolveDIAFuses()` is true (cuda, the tiled layout, no long blocks)
. alpha, ndiag, off, val, x, beta, w - as for `PGXTridiagSolveDIA()`
- v     - n entries in the backend's memory (may alias x or w)

  Output Parameters:
+ y  - n entries in the backend's memory; must not alias x, w or v
- d2 - two scalars in the backend's memory: this process's sums (a caller on several ranks adds them up)

  Level: developer

  Note:
  The sums are formed per tile as the tile writes its rows and added up by the tile that finishes last: the same
  value as a separate reduction up to the order of the additions. A solver whose pass is not fused is an error;
  `PGXTridiagSolveDIAFuses()` says beforehand.

.seealso: `PGXTridiagSolveDIA()`, `PGXTridiagSolveDIAFuses()`, `PCAIPS`
@*/
PetscErrorCode PGXTridiagSolveDIADotNorm2(PGXTridiag T, PetscScalar alpha, PetscInt ndiag, const PetscInt off[], const PetscScalar val[], const PetscScalar x[], PetscScalar beta, const PetscScalar w[], PetscScalar y[], const PetscScalar v[], PetscScalar d2[])
{
  K::DIA    B;
  PetscBool one;

  PetscFunctionBegin;
  PetscCall(SolveDIACheck(T, "PGXTridiagSolveDIADotNorm2", ndiag, off, val, x, w, y, &B));
  PetscCheck(!T->n || v != y, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "PGXTridiagSolveDIADotNorm2(): y must not alias v");
  PetscCall(PGXTridiagSolveDIAFuses(T, &one));
  PetscCheck(one, PETSC_COMM_SELF, PETSC_ERR_SUP, "PGXTridiagSolveDIADotNorm2() needs the fused pass (cuda, the tiled layout, no block longer than the threshold); PGXTridiagSolveDIAFuses() says whether a solver has it");
#if PGX_HAVE_CUDA
  PetscCall(K::cuda::batch_solve_dia(BatchOf(T), alpha, B, beta, w, y, v, d2));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagGetInfo - Layout statistics: block sizes, groups, chunks, long blocks, levels.

  Not Collective

  Input Parameter:
. T - the solver, after `PGXTridiagSetUpSymbolic()`

  Output Parameter:
. info - the statistics

  Level: developer

.seealso: `PGXTridiagSetUpSymbolic()`
@*/
PetscErrorCode PGXTridiagGetInfo(PGXTridiag T, PGXTridiagInfo *info)
{
  PetscFunctionBegin;
  PetscAssertPointer(info, 2);
  info->n         = T->n;
  info->nblocks   = T->nblocks;
  info->minsize   = T->nblocks ? PETSC_INT_MAX : 0;
  info->maxsize   = 0;
  info->meansize  = T->nblocks ? (PetscReal)T->n / T->nblocks : 0;
  info->ngroups   = T->ngroups;
  info->nchunks   = (PetscInt)T->chunks.size();
  info->nlong     = (PetscInt)T->longblocks.size();
  info->threshold = T->threshold;
  info->layout    = T->layout;
  info->numdevice = T->numdev;
  for (PetscInt b = 0; b < T->nblocks; b++) {
    info->minsize = PetscMin(info->minsize, T->offsets[b + 1] - T->offsets[b]);
    info->maxsize = PetscMax(info->maxsize, T->offsets[b + 1] - T->offsets[b]);
  }
  info->nlevels = 1;
  if (T->child) {
    PGXTridiagInfo ci;
    PetscCall(PGXTridiagGetInfo(T->child, &ci));
    info->nlevels += ci.nlevels;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagGetDeviceType - The backend the solver runs on.

  Not Collective

  Input Parameter:
. T - the solver

  Output Parameter:
. type - `PGX_DEVICE_HOST` or `PGX_DEVICE_CUDA`

  Level: developer

.seealso: `PGXTridiagCreate()`
@*/
PetscErrorCode PGXTridiagGetDeviceType(PGXTridiag T, PGXDeviceType *type)
{
  PetscFunctionBegin;
  *type = T->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXTridiagGetSolveBytes - DRAM traffic of one solve in PGX's byte model: per batch row 3 factors, r and y
  (and w when withw); 4 bytes per batch block (its start; interleaved layout only) and 32 per chunk or tile; per separator r, two y,
  its two couplings, the reduced rhs and solution and y; per partition row of a long block y read and
  written, G, H, the separator values and three indices; plus the reduced systems' own solves.

  Not Collective

  Input Parameters:
+ T     - the solver, set up
- withw - whether the solve is given a w

  Output Parameter:
. bytes - bytes read plus bytes written

  Level: developer

.seealso: `PGXTridiagSolve()`
@*/
PetscErrorCode PGXTridiagGetSolveBytes(PGXTridiag T, PetscBool withw, PetscLogDouble *bytes)
{
  const PetscLogDouble S = sizeof(PetscScalar), I = sizeof(PetscInt);

  PetscFunctionBegin;
  *bytes = (PetscLogDouble)T->nf * (5 + (withw ? 1 : 0)) * S + (PetscLogDouble)T->chunks.size() * sizeof(K::Chunk);
  if (T->layout != PGX_TRIDIAG_LAYOUT_TILED) *bytes += (PetscLogDouble)T->bstart.size() * I;
  *bytes += (PetscLogDouble)T->seprow.size() * (7 * S + I + (withw ? S : 0));
  *bytes += (PetscLogDouble)T->lrow.size() * (6 * S + 3 * I + (withw ? S : 0));
  if (T->child) {
    PetscLogDouble c;
    PetscCall(PGXTridiagGetSolveBytes(T->child, PETSC_FALSE, &c));
    *bytes += c;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
