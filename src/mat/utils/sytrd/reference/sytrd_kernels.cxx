/* Reference (specification) kernels of the Hermitian tridiagonal reduction: plain sequential loops,
   LAPACK dsytrd/zhetrd (lower) semantics, see sytrd_kernels.h. */
#include "../sytrd_kernels.h"
#include <cmath>
#include <vector>

namespace pgx
{
namespace kernels
{
namespace sytrd
{
namespace reference
{
#define AIJ(i, j) A[(i) + (size_t)(j) * lda]

void larfg(PetscInt len, PetscScalar *alpha, PetscScalar *x, PetscScalar *tau)
{
  PetscReal scale = 0, ssq = 1; /* ||x|| = scale*sqrt(ssq), without overflow */
  for (PetscInt i = 0; i < len - 1; i++) {
    PetscReal a = PetscAbsScalar(x[i]);
    if (a == 0) continue;
    if (scale < a) {
      ssq   = 1 + ssq * (scale / a) * (scale / a);
      scale = a;
    } else ssq += (a / scale) * (a / scale);
  }
  PetscReal xnorm = scale * PetscSqrtReal(ssq);
  PetscReal ar = PetscRealPart(*alpha), ai = PetscImaginaryPart(*alpha);
  if (len <= 0 || (xnorm == 0 && ai == 0)) {
    *tau = 0;
    return;
  }
  PetscReal beta = -std::copysign(std::hypot(std::hypot(ar, ai), xnorm), ar);
  *tau           = (beta - *alpha) / beta;
  PetscScalar s  = 1.0 / (*alpha - beta);
  for (PetscInt i = 0; i < len - 1; i++) x[i] *= s;
  *alpha = beta;
}

/* V(r,c) of a panel stored in A: 0 above the unit subdiagonal; A(c+1,c) holds 1 during the panel */
static inline PetscScalar Vpanel(const PetscScalar *A, PetscInt lda, PetscInt r, PetscInt c)
{
  return r > c ? AIJ(r, c) : 0;
}

void panel(PetscInt m, PetscInt nb, PetscScalar *A, PetscInt lda, PetscReal *e, PetscScalar *tau, PetscScalar *W, PetscInt ldw)
{
  std::vector<PetscScalar> t(nb);
#define WIJ(i, j) W[(i) + (size_t)(j) * ldw]
  for (PetscInt i = 0; i < nb; i++) {
    /* bring column i up to date with the panel's earlier reflectors */
    AIJ(i, i) = PetscRealPart(AIJ(i, i));
    for (PetscInt r = i; r < m; r++) {
      PetscScalar s = 0;
      for (PetscInt c = 0; c < i; c++) s += Vpanel(A, lda, r, c) * PetscConj(WIJ(i, c)) + WIJ(r, c) * PetscConj(Vpanel(A, lda, i, c));
      AIJ(r, i) -= s;
    }
    AIJ(i, i) = PetscRealPart(AIJ(i, i));
    if (i == m - 1) break; /* the last column of the last panel: only brought up to date */
    /* reflector i on A(i+1:m-1, i) */
    PetscScalar alpha = AIJ(i + 1, i);
    larfg(m - i - 1, &alpha, &AIJ(std::min(i + 2, m - 1), i), &tau[i]);
    e[i]          = PetscRealPart(alpha);
    AIJ(i + 1, i) = 1;
    const PetscScalar *v = &AIJ(i + 1, i);
    PetscInt           L = m - i - 1;
    PetscScalar       *w = &WIJ(i + 1, i);
    /* w = A22(i+1:, i+1:) v, Hermitian product from the lower triangle */
    for (PetscInt r = 0; r < L; r++) w[r] = 0;
    for (PetscInt c = 0; c < L; c++) {
      const PetscScalar *col = &AIJ(i + 1, i + 1 + c);
      w[c] += PetscRealPart(col[c]) * v[c];
      for (PetscInt r = c + 1; r < L; r++) {
        w[r] += col[r] * v[c];
        w[c] += PetscConj(col[r]) * v[r];
      }
    }
    /* w -= V W^H v + W V^H v over the panel's earlier columns */
    for (PetscInt c = 0; c < i; c++) {
      t[c] = 0;
      for (PetscInt r = 0; r < L; r++) t[c] += PetscConj(WIJ(i + 1 + r, c)) * v[r];
    }
    for (PetscInt r = 0; r < L; r++)
      for (PetscInt c = 0; c < i; c++) w[r] -= Vpanel(A, lda, i + 1 + r, c) * t[c];
    for (PetscInt c = 0; c < i; c++) {
      t[c] = 0;
      for (PetscInt r = 0; r < L; r++) t[c] += PetscConj(Vpanel(A, lda, i + 1 + r, c)) * v[r];
    }
    for (PetscInt r = 0; r < L; r++)
      for (PetscInt c = 0; c < i; c++) w[r] -= WIJ(i + 1 + r, c) * t[c];
    PetscScalar dot = 0;
    for (PetscInt r = 0; r < L; r++) {
      w[r] *= tau[i];
      dot += PetscConj(w[r]) * v[r];
    }
    PetscScalar a2 = -0.5 * tau[i] * dot;
    for (PetscInt r = 0; r < L; r++) w[r] += a2 * v[r];
    for (PetscInt r = 0; r <= i; r++) WIJ(r, i) = 0;
  }
#undef WIJ
}

void update(PetscInt m, PetscInt nb, PetscScalar *A, PetscInt lda, const PetscScalar *W, PetscInt ldw)
{
  for (PetscInt c = nb; c < m; c++) {
    for (PetscInt r = c; r < m; r++) {
      PetscScalar s = 0;
      for (PetscInt k = 0; k < nb; k++) s += Vpanel(A, lda, r, k) * PetscConj(W[c + k * ldw]) + W[r + k * ldw] * PetscConj(Vpanel(A, lda, c, k));
      AIJ(r, c) -= s;
    }
    AIJ(c, c) = PetscRealPart(AIJ(c, c));
  }
}

void reduce(PetscInt n, PetscInt b, PetscScalar *A, PetscInt lda, PetscReal *d, PetscReal *e, PetscScalar *tau, PetscScalar *W)
{
  PetscInt j = 0;
  if (b < 1) b = 1;
  while (n - j > 1) {
    PetscInt m = n - j, nb = m > b + 1 ? b : m; /* the last panel takes every remaining column */
    panel(m, nb, &AIJ(j, j), lda, &e[j], &tau[j], W, m);
    if (nb < m) update(m, nb, &AIJ(j, j), lda, W, m);
    for (PetscInt c = 0; c < nb && j + c + 1 < n; c++) AIJ(j + c + 1, j + c) = e[j + c];
    j += nb;
  }
  for (PetscInt i = 0; i < n; i++) {
    AIJ(i, i) = PetscRealPart(AIJ(i, i));
    d[i]      = PetscRealPart(AIJ(i, i));
  }
}

/* v_i(r) for the stored reflectors of a reduced A (row r of the full matrix) */
static inline PetscScalar Vstored(const PetscScalar *A, PetscInt lda, PetscInt r, PetscInt i)
{
  return r < i + 1 ? 0 : (r == i + 1 ? 1 : AIJ(r, i));
}

void larft(PetscInt n, PetscInt i, PetscInt k, const PetscScalar *A, PetscInt lda, const PetscScalar *tau, PetscScalar *Tb, PetscInt ldt)
{
  std::vector<PetscScalar> t(k);
  for (PetscInt c = 0; c < k; c++) {
    PetscInt ic = i + c;
    for (PetscInt r = 0; r < c; r++) {
      PetscScalar s = 0;
      for (PetscInt row = ic + 1; row < n; row++) s += PetscConj(Vstored(A, lda, row, i + r)) * Vstored(A, lda, row, ic);
      t[r] = -tau[ic] * s;
    }
    for (PetscInt r = 0; r < c; r++) {
      PetscScalar s = 0;
      for (PetscInt q = r; q < c; q++) s += Tb[r + q * ldt] * t[q];
      Tb[r + c * ldt] = s;
    }
    Tb[c + c * ldt] = tau[ic];
    for (PetscInt r = c + 1; r < k; r++) Tb[r + c * ldt] = 0;
  }
}

void apply_q(PetscInt n, PetscInt b, int trans, const PetscScalar *A, PetscInt lda, const PetscScalar *tau, PetscInt k, PetscScalar *Z, PetscInt ldz, PetscScalar *work)
{
  PetscInt nr = n - 1; /* reflectors */
  if (nr <= 0 || k <= 0) return;
  if (b < 1) b = 1;
  PetscInt     nblk = (nr + b - 1) / b;
  PetscScalar *Tb = work, *Y = work + (size_t)b * b; /* Y: kb x k */
  for (PetscInt s = 0; s < nblk; s++) {
    PetscInt blk = trans ? s : nblk - 1 - s;
    PetscInt i = blk * b, kb = std::min(b, nr - i);
    larft(n, i, kb, A, lda, tau, Tb, b);
    /* Y = V^H Z (rows i+1..n-1) */
    for (PetscInt j = 0; j < k; j++)
      for (PetscInt c = 0; c < kb; c++) {
        PetscScalar s2 = 0;
        for (PetscInt row = i + c + 1; row < n; row++) s2 += PetscConj(Vstored(A, lda, row, i + c)) * Z[row + (size_t)j * ldz];
        Y[c + j * kb] = s2;
      }
    /* Y = Tb Y or Tb^H Y */
    for (PetscInt j = 0; j < k; j++) {
      PetscScalar *y = &Y[j * kb];
      if (!trans) {
        for (PetscInt r = 0; r < kb; r++) {
          PetscScalar s2 = 0;
          for (PetscInt q = r; q < kb; q++) s2 += Tb[r + q * b] * y[q];
          y[r] = s2;
        }
      } else {
        for (PetscInt r = kb - 1; r >= 0; r--) {
          PetscScalar s2 = 0;
          for (PetscInt q = 0; q <= r; q++) s2 += PetscConj(Tb[q + r * b]) * y[q];
          y[r] = s2;
        }
      }
    }
    /* Z -= V Y */
    for (PetscInt j = 0; j < k; j++)
      for (PetscInt c = 0; c < kb; c++) {
        PetscScalar yc = Y[c + j * kb];
        if (yc == (PetscScalar)0) continue;
        for (PetscInt row = i + c + 1; row < n; row++) Z[row + (size_t)j * ldz] -= Vstored(A, lda, row, i + c) * yc;
      }
  }
}
#undef AIJ

/* Right-looking by columns (each column's scaling and the rank-1 update of the columns to its right run down
   contiguous columns) */
PetscInt potrf(PetscInt n, PetscScalar *B, PetscInt ldb)
{
  for (PetscInt j = 0; j < n; j++) {
    PetscScalar   *bj  = B + (size_t)j * ldb;
    const PetscReal djj = PetscRealPart(bj[j]);
    if (!(djj > 0) || PetscIsInfOrNanReal(djj)) return j + 1;
    const PetscReal ljj = PetscSqrtReal(djj);
    bj[j]               = ljj;
    for (PetscInt i = j + 1; i < n; i++) bj[i] /= ljj;
    for (PetscInt k = j + 1; k < n; k++) { /* B(k:n, k) -= L(k:n, j) conj(L(k, j)) */
      PetscScalar *bk = B + (size_t)k * ldb;
      const PetscScalar c = PetscConj(bj[k]);
      if (c == (PetscScalar)0) continue;
      for (PetscInt i = k; i < n; i++) bk[i] -= bj[i] * c;
    }
  }
  return 0;
}

/* X (n x n, ldx) <- L^-1 X, column by column (forward substitution) */
static void TrsmLowerLeft(PetscInt n, const PetscScalar *L, PetscInt ldl, PetscScalar *X, PetscInt ldx)
{
  for (PetscInt c = 0; c < n; c++) {
    PetscScalar *x = X + (size_t)c * ldx;
    for (PetscInt j = 0; j < n; j++) {
      const PetscScalar *lj = L + (size_t)j * ldl;
      x[j] /= lj[j];
      const PetscScalar xj = x[j];
      if (xj == (PetscScalar)0) continue;
      for (PetscInt i = j + 1; i < n; i++) x[i] -= lj[i] * xj;
    }
  }
}

void hegst(PetscInt n, PetscScalar *A, PetscInt lda, const PetscScalar *L, PetscInt ldl)
{
  /* A <- L^-1 A; A <- A^H; A <- L^-1 A: L^-1 (L^-1 A)^H = L^-1 A^H L^-H = L^-1 A L^-H for Hermitian A */
  TrsmLowerLeft(n, L, ldl, A, lda);
  for (PetscInt j = 0; j < n; j++) {
    for (PetscInt i = j + 1; i < n; i++) {
      const PetscScalar t = A[i + (size_t)j * lda];
      A[i + (size_t)j * lda] = PetscConj(A[j + (size_t)i * lda]);
      A[j + (size_t)i * lda] = PetscConj(t);
    }
    A[j + (size_t)j * lda] = PetscConj(A[j + (size_t)j * lda]);
  }
  TrsmLowerLeft(n, L, ldl, A, lda);
  /* exactly Hermitian: the lower triangle kept, the diagonal real, the strict upper triangle its mirror */
  for (PetscInt j = 0; j < n; j++) {
    A[j + (size_t)j * lda] = PetscRealPart(A[j + (size_t)j * lda]);
    for (PetscInt i = j + 1; i < n; i++) A[j + (size_t)i * lda] = PetscConj(A[i + (size_t)j * lda]);
  }
}

void trsm_lh(PetscInt n, PetscInt k, const PetscScalar *L, PetscInt ldl, PetscScalar *Z, PetscInt ldz)
{
  for (PetscInt c = 0; c < k; c++) { /* back substitution with the upper triangular L^H: z_j = (z_j - sum_{i>j} conj(l_ij) z_i) / l_jj */
    PetscScalar *z = Z + (size_t)c * ldz;
    for (PetscInt j = n - 1; j >= 0; j--) {
      const PetscScalar *lj = L + (size_t)j * ldl;
      PetscScalar        s  = z[j];
      for (PetscInt i = j + 1; i < n; i++) s -= PetscConj(lj[i]) * z[i];
      z[j] = s / PetscConj(lj[j]);
    }
  }
}
} // namespace reference
} // namespace sytrd
} // namespace kernels
} // namespace pgx
