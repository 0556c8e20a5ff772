/* Reference (host) kernels of the batched tridiagonal solver: the specification of the cuda ones. */
#include "../tridiag_kernels.h"
#include <algorithm>

namespace pgx
{
namespace kernels
{
namespace tridiag
{
namespace reference
{
void dia_product(PetscInt n, const DIA &B, PetscScalar *t)
{
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = 0;
    for (PetscInt d = 0; d < B.ndiag; d++) {
      const PetscInt j = i + B.off[d];
      if (j >= 0 && j < n) s += B.val[(size_t)d * (size_t)n + (size_t)i] * B.x[j];
    }
    t[i] = s;
  }
}

PetscInt batch_work(const Batch &b)
{
  PetscInt need = 0;
  for (PetscInt c = 0; c < b.nchunks; c++) need = std::max<PetscInt>(need, (PetscInt)b.chunks[c].size * (b.tiled ? 1 : b.chunks[c].nblk));
  return need;
}

void batch_solve(const Batch &b, PetscScalar alpha, const PetscScalar *r, PetscScalar beta, const PetscScalar *w, PetscScalar *y, PetscScalar *z)
{
  if (b.tiled) { /* tiles in natural order: one forward and one backward sweep over the tile's rows */
    for (PetscInt c = 0; c < b.nchunks; c++) {
      const Chunk   &ch = b.chunks[c];
      const PetscInt i0 = ch.fbase;
      const int      s  = ch.size;
      PetscScalar    zk = 0;
      for (int k = 0; k < s; k++) z[k] = zk = b.finv[i0 + k] * r[i0 + k] - b.fl[i0 + k] * zk;
      PetscScalar yk = 0;
      for (int k = s - 1; k >= 0; k--) z[k] = yk = z[k] - b.fu[i0 + k] * yk;
      if (ch.epilogue) {
        if (w)
          for (int k = 0; k < s; k++) y[i0 + k] = alpha * z[k] + beta * w[i0 + k];
        else
          for (int k = 0; k < s; k++) y[i0 + k] = alpha * z[k];
      } else
        for (int k = 0; k < s; k++) y[i0 + k] = z[k];
    }
    return;
  }
  /* interleaved: the nb blocks of a chunk side by side, z[k*nb + j] = element k of block j, so that the
     factors of one element of all the blocks are contiguous and the blocks' recurrences, independent,
     overlap. Per block, the recurrence of the interleaved layout:
       z_0 = finv_0 r_0 - fl_0 * 0,  z_k = finv_k r_k - fl_k z_{k-1},  y_{s-1} = z_{s-1},  y_k = z_k - fu_k y_{k+1} */
  for (PetscInt c = 0; c < b.nchunks; c++) {
    const Chunk    &ch = b.chunks[c];
    const int       s = ch.size, nb = ch.nblk;
    const PetscInt *st = b.bstart + ch.bfirst;
    for (int k = 0; k < s; k++) {
      const PetscScalar *finv = b.finv + ch.fbase + (PetscInt)k * ch.stride, *fl = b.fl + ch.fbase + (PetscInt)k * ch.stride;
      PetscScalar       *zk = z + (PetscInt)k * nb;
      const PetscScalar *zp = k ? zk - nb : NULL;
      for (int j = 0; j < nb; j++) zk[j] = finv[j] * r[st[j] + k] - fl[j] * (zp ? zp[j] : 0.0);
    }
    for (int k = s - 2; k >= 0; k--) {
      const PetscScalar *fu = b.fu + ch.fbase + (PetscInt)k * ch.stride;
      PetscScalar       *zk = z + (PetscInt)k * nb;
      for (int j = 0; j < nb; j++) zk[j] = zk[j] - fu[j] * zk[j + nb];
    }
    for (int j = 0; j < nb; j++) {
      PetscScalar *yj = y + st[j];
      if (!ch.epilogue)
        for (int k = 0; k < s; k++) yj[k] = z[(PetscInt)k * nb + j];
      else if (w)
        for (int k = 0; k < s; k++) yj[k] = alpha * z[(PetscInt)k * nb + j] + beta * w[st[j] + k];
      else
        for (int k = 0; k < s; k++) yj[k] = alpha * z[(PetscInt)k * nb + j];
    }
  }
}

void reduced_rhs(const Long &l, const PetscScalar *r, const PetscScalar *y, PetscScalar *rs)
{
  for (PetscInt s = 0; s < l.nsep; s++) {
    const PetscInt i = l.seprow[s];
    rs[s]            = r[i] - l.sepa[s] * y[i - 1] - l.sepc[s] * y[i + 1];
  }
}

void correct(const Long &l, const PetscScalar *xs, PetscScalar alpha, PetscScalar beta, const PetscScalar *w, PetscScalar *y)
{
  for (PetscInt e = 0; e < l.nrow; e++) {
    const PetscInt i = l.row[e];
    PetscScalar    v = y[i];
    if (l.left[e] >= 0) v -= l.G[e] * xs[l.left[e]];
    if (l.right[e] >= 0) v -= l.H[e] * xs[l.right[e]];
    y[i] = alpha * v + (w ? beta * w[i] : 0);
  }
  for (PetscInt s = 0; s < l.nsep; s++) {
    const PetscInt i = l.seprow[s];
    y[i]             = alpha * xs[s] + (w ? beta * w[i] : 0);
  }
}
} // namespace reference
} // namespace tridiag
} // namespace kernels
} // namespace pgx
