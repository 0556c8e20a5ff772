/* Reference (host) kernels of the batched tridiagonal solver: the specification of the cuda ones. */
#include "../tridiag_kernels.h"
#include <vector>

namespace pgx
{
namespace kernels
{
namespace tridiag
{
namespace reference
{
void batch_solve(const Batch &b, PetscScalar alpha, const PetscScalar *r, PetscScalar beta, const PetscScalar *w, PetscScalar *y)
{
  std::vector<PetscScalar> z;
  if (b.tiled) { /* tiles in natural order: one forward and one backward sweep over the tile's rows */
    for (PetscInt c = 0; c < b.nchunks; c++) {
      const Chunk   &ch = b.chunks[c];
      const PetscInt i0 = ch.fbase;
      const int      s  = ch.size;
      if ((int)z.size() < s) z.resize(s);
      PetscScalar zk = 0;
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
  for (PetscInt c = 0; c < b.nchunks; c++) {
    const Chunk &ch = b.chunks[c];
    const int    s  = ch.size;
    if ((int)z.size() < s) z.resize(s);
    for (int j = 0; j < ch.nblk; j++) {
      const PetscInt st = b.bstart[ch.bfirst + j];
      PetscInt       f  = ch.fbase + j;
      PetscScalar    zk = 0;
      for (int k = 0; k < s; k++, f += ch.stride) z[k] = zk = b.finv[f] * r[st + k] - b.fl[f] * zk;
      f -= ch.stride; /* element s-1 */
      PetscScalar yk = z[s - 1];
      for (int k = s - 2; k >= 0; k--) {
        f -= ch.stride;
        z[k] = yk = z[k] - b.fu[f] * yk;
      }
      if (ch.epilogue) {
        if (w)
          for (int k = 0; k < s; k++) y[st + k] = alpha * z[k] + beta * w[st + k];
        else
          for (int k = 0; k < s; k++) y[st + k] = alpha * z[k];
      } else
        for (int k = 0; k < s; k++) y[st + k] = z[k];
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
