/* Reference backend of the dense LU (the specification; see denselu_kernels.h). Plain sequential C++. */
#include "../denselu_kernels.h"
#include "../denselu_tournament.h"
#include <cmath>
#include <cstring>
#include <cstdint>
#include <algorithm>

namespace pgx
{
namespace kernels
{
namespace denselu
{
namespace reference
{
PetscErrorCode FactorPanel(PetscInt m, PetscInt kb, PetscScalar *p, PetscInt lda, PetscInt *ipiv, PetscInt *zerocol)
{
  PetscFunctionBegin;
  *zerocol = -1;
  for (PetscInt j = 0; j < kb && j < m; j++) {
    PetscScalar *cj = p + j * lda;
    /* pivot search: the first row with the largest magnitude (LAPACK's idamax) */
    PetscInt  piv  = j;
    PetscReal vmax = std::fabs(cj[j]);
    for (PetscInt i = j + 1; i < m; i++) {
      const PetscReal v = std::fabs(cj[i]);
      if (v > vmax) vmax = v, piv = i;
    }
    ipiv[j] = piv;
    if (piv != j)
      for (PetscInt c = 0; c < kb; c++) {
        PetscScalar t      = p[j + c * lda];
        p[j + c * lda]     = p[piv + c * lda];
        p[piv + c * lda]   = t;
      }
    const PetscScalar d = cj[j];
    if (d == 0.0) {
      if (*zerocol < 0) *zerocol = j;
      continue; /* nothing to eliminate in this column */
    }
    for (PetscInt i = j + 1; i < m; i++) cj[i] /= d;
    /* rank-1 update of the panel's remaining columns */
    for (PetscInt c = j + 1; c < kb; c++) {
      PetscScalar      *cc = p + c * lda;
      const PetscScalar u  = cc[j];
      if (u != 0.0)
        for (PetscInt i = j + 1; i < m; i++) cc[i] -= cj[i] * u;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class T>
static PetscErrorCode ApplyPivotsT(PetscInt ncol, T *b, PetscInt ldb, PetscInt k1, PetscInt k2, const PetscInt *ipiv, PetscBool backward)
{
  PetscFunctionBegin;
  for (PetscInt c = 0; c < ncol; c++) {
    T *bc = b + c * ldb;
    if (!backward) {
      for (PetscInt k = k1; k < k2; k++)
        if (ipiv[k] != k) {
          const T t = bc[k];
          bc[k]               = bc[ipiv[k]];
          bc[ipiv[k]]         = t;
        }
    } else {
      for (PetscInt k = k2 - 1; k >= k1; k--)
        if (ipiv[k] != k) {
          const T t = bc[k];
          bc[k]               = bc[ipiv[k]];
          bc[ipiv[k]]         = t;
        }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ApplyPivots(PetscInt ncol, PetscScalar *b, PetscInt ldb, PetscInt k1, PetscInt k2, const PetscInt *ipiv, PetscBool backward)
{
  return ApplyPivotsT<PetscScalar>(ncol, b, ldb, k1, k2, ipiv, backward);
}

PetscErrorCode Factor(PetscInt n, PetscScalar *a, PetscInt lda, PetscInt nb, PetscInt *ipiv, PetscInt *zerocol)
{
  return FactorProfiled(n, a, lda, nb, ipiv, zerocol, NULL);
}

PetscErrorCode FactorProfiled(PetscInt n, PetscScalar *a, PetscInt lda, PetscInt nb, PetscInt *ipiv, PetscInt *zerocol, Profile *prof)
{
  PetscLogDouble t0 = 0;

  PetscFunctionBegin;
  PetscCheck(n >= 0 && lda >= (n > 1 ? n : 1) && nb >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu reference Factor: n %" PetscInt_FMT ", lda %" PetscInt_FMT ", block %" PetscInt_FMT, n, lda, nb);
  *zerocol = -1;
  for (PetscInt k = 0; k < n; k += nb) {
    const PetscInt kb = PetscMin(nb, n - k), k2 = k + kb;
    PetscInt       zc;
    /* 1. panel */
    PetscCall(ProfileTic(prof, &t0));
    PetscCall(FactorPanel(n - k, kb, a + k + k * lda, lda, ipiv + k, &zc));
    if (zc >= 0 && *zerocol < 0) *zerocol = k + zc;
    for (PetscInt j = k; j < k2; j++) ipiv[j] += k;
    PetscCall(ProfileToc(prof, PHASE_LEAF, t0));
    /* 2. interchanges left and right of the panel */
    PetscCall(ProfileTic(prof, &t0));
    PetscCall(ApplyPivots(k, a, lda, k, k2, ipiv, PETSC_FALSE));
    PetscCall(ApplyPivots(n - k2, a + k2 * lda, lda, k, k2, ipiv, PETSC_FALSE));
    PetscCall(ProfileToc(prof, PHASE_SWAP, t0));
    /* 3. U block row: L(K,K)^-1 A(K, k2:n), unit lower, column by column */
    PetscCall(ProfileTic(prof, &t0));
    for (PetscInt c = k2; c < n; c++) {
      PetscScalar *ac = a + c * lda;
      for (PetscInt j = k; j < k2; j++) {
        const PetscScalar u = ac[j];
        if (u != 0.0)
          for (PetscInt i = j + 1; i < k2; i++) ac[i] -= a[i + j * lda] * u;
      }
    }
    PetscCall(ProfileToc(prof, PHASE_TRSM, t0));
    /* 4. trailing update A22 -= L21 U12 */
    PetscCall(ProfileTic(prof, &t0));
    for (PetscInt c = k2; c < n; c++) {
      PetscScalar *ac = a + c * lda;
      for (PetscInt j = k; j < k2; j++) {
        const PetscScalar  u  = ac[j];
        const PetscScalar *lj = a + j * lda;
        if (u != 0.0)
          for (PetscInt i = k2; i < n; i++) ac[i] -= lj[i] * u;
      }
    }
    PetscCall(ProfileToc(prof, PHASE_GEMM, t0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class T>
static PetscErrorCode SolveT(PetscInt n, const T *lu, PetscInt lda, const PetscInt *ipiv, PetscBool transpose, PetscInt nrhs, T *b, PetscInt ldb)
{
  PetscFunctionBegin;
  if (!transpose) {
    PetscCall(ApplyPivotsT<T>(nrhs, b, ldb, 0, n, ipiv, PETSC_FALSE));
    for (PetscInt r = 0; r < nrhs; r++) {
      T *x = b + r * ldb;
      for (PetscInt j = 0; j < n; j++) { /* L y = b, column oriented */
        const T  xj = x[j];
        const T *lj = lu + j * lda;
        if (xj != 0.0)
          for (PetscInt i = j + 1; i < n; i++) x[i] -= lj[i] * xj;
      }
      for (PetscInt j = n - 1; j >= 0; j--) { /* U x = y */
        const T *uj = lu + j * lda;
        x[j] /= uj[j];
        const T xj = x[j];
        if (xj != 0.0)
          for (PetscInt i = 0; i < j; i++) x[i] -= uj[i] * xj;
      }
    }
  } else {
    for (PetscInt r = 0; r < nrhs; r++) {
      T *x = b + r * ldb;
      for (PetscInt j = 0; j < n; j++) { /* U^T y = b: row j of U^T is column j of U */
        const T *uj = lu + j * lda;
        T        s  = x[j];
        for (PetscInt i = 0; i < j; i++) s -= uj[i] * x[i];
        x[j] = s / uj[j];
      }
      for (PetscInt j = n - 1; j >= 0; j--) { /* L^T z = y */
        const T *lj = lu + j * lda;
        T        s  = x[j];
        for (PetscInt i = j + 1; i < n; i++) s -= lj[i] * x[i];
        x[j] = s;
      }
    }
    PetscCall(ApplyPivotsT<T>(nrhs, b, ldb, 0, n, ipiv, PETSC_TRUE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Solve(PetscInt n, const PetscScalar *lu, PetscInt lda, const PetscInt *ipiv, PetscBool transpose, PetscInt nrhs, PetscScalar *b, PetscInt ldb)
{
  return SolveT<PetscScalar>(n, lu, lda, ipiv, transpose, nrhs, b, ldb);
}

PetscErrorCode CheckFinite(PetscInt n, const PetscScalar *a, PetscInt lda, PetscBool *finite, PetscInt *row, PetscInt *col)
{
  PetscFunctionBegin;
  *finite = PETSC_TRUE;
  *row = *col = -1;
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++)
      if (PetscIsInfOrNanScalar(a[i + j * lda])) {
        *finite = PETSC_FALSE;
        *row    = i;
        *col    = j;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int PrecisionBits(Precision p)
{
  return p == PRECISION_TF32 || p == PRECISION_HALF ? 11 : (p == PRECISION_BF16 ? 8 : (p == PRECISION_TF32X3 ? 24 : 53));
}

float RoundToBits(float x, int bits)
{
  if (bits >= 24 || !std::isfinite(x) || x == 0.0f) return x;
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  const int      drop = 24 - bits;
  const uint32_t half = 1u << (drop - 1), mask = (1u << drop) - 1, lsb = (u >> drop) & 1u;
  if ((u & mask) > half || ((u & mask) == half && lsb)) u += half; /* ties to even; a carry into the exponent is right */
  u &= ~mask;
  std::memcpy(&x, &u, sizeof(u));
  return x;
}

PetscReal NormInf(PetscInt n, const PetscScalar *a, PetscInt lda)
{
  std::vector<PetscReal> rs(n, 0.0);
  PetscReal              m = 0;
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) rs[i] += PetscAbsScalar(a[i + j * lda]);
  for (PetscInt i = 0; i < n; i++) m = PetscMax(m, rs[i]);
  return m;
}

#if !defined(PETSC_USE_COMPLEX)
void RbtDiagonals(PetscInt n, PetscInt depth, unsigned long long seed, std::vector<double> &r)
{
  uint64_t x = seed;
  r.resize((size_t)2 * depth * n);
  for (double &v : r) { /* splitmix64, then the top 53 bits as u in [0, 1) */
    uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z          = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    const double u = (double)(z >> 11) * (1.0 / 9007199254740992.0);
    v              = std::exp((u - 0.5) / 10.0);
  }
}

/* One level of a butterfly on the index of x, x[i * inc] for 0 <= i < n */
static void RbtLevel(PetscInt n, PetscInt level, const double *r, bool transposed, PetscScalar *x, PetscInt inc)
{
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt q = RbtPartner((int)n, (int)level, (int)i);
    if (q < i) continue;
    if (q == i) x[i * inc] *= r[i];
    else RbtPair<PetscScalar>(transposed, r[i], r[q], x[i * inc], x[q * inc]);
  }
}

void RbtVectors(PetscInt n, PetscInt depth, const double *r, PetscBool transposed, PetscInt ncol, PetscScalar *b, PetscInt ldb)
{
  for (PetscInt c = 0; c < ncol; c++)
    for (PetscInt t = 0; t < depth; t++) {
      const PetscInt l = transposed ? depth - 1 - t : t;
      RbtLevel(n, l, r + l * n, transposed ? true : false, b + c * ldb, 1);
    }
}

void RbtMatrix(PetscInt n, PetscInt depth, const double *r, PetscScalar *a, PetscInt lda)
{
  RbtVectors(n, depth, r, PETSC_TRUE, n, a, lda); /* U^T on every column */
  for (PetscInt i = 0; i < n; i++)                 /* V^T on every row */
    for (PetscInt l = depth - 1; l >= 0; l--) RbtLevel(n, l, r + (depth + l) * n, true, a + i, lda);
}

PetscErrorCode FactorNoPivot(PetscInt n, PetscScalar *a, PetscInt lda, PetscInt *zerocol)
{
  PetscFunctionBegin;
  *zerocol = -1;
  for (PetscInt k = 0; k < n; k++) {
    const PetscScalar p = a[k + k * lda];
    if (p == 0.0) {
      if (*zerocol < 0) *zerocol = k;
      continue;
    }
    for (PetscInt i = k + 1; i < n; i++) a[i + k * lda] /= p;
    for (PetscInt j = k + 1; j < n; j++) {
      const PetscScalar u = a[k + j * lda];
      if (u != 0.0)
        for (PetscInt i = k + 1; i < n; i++) a[i + j * lda] -= a[i + k * lda] * u;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Unblocked right-looking LU in FP32 with every stored result rounded to 'bits' significant bits (the emulated
   low-precision factorization; same pivot rule as FactorPanel) */
static PetscErrorCode FactorLow(PetscInt n, float *a, PetscInt *ipiv, int bits, PetscInt *zerocol)
{
  PetscFunctionBegin;
  *zerocol = -1;
  for (PetscInt i = 0; i < n * n; i++) a[i] = RoundToBits(a[i], bits);
  for (PetscInt j = 0; j < n; j++) {
    float   *cj   = a + j * n;
    PetscInt piv  = j;
    float    vmax = std::fabs(cj[j]);
    for (PetscInt i = j + 1; i < n; i++)
      if (std::fabs(cj[i]) > vmax) vmax = std::fabs(cj[i]), piv = i;
    ipiv[j] = piv;
    if (piv != j)
      for (PetscInt c = 0; c < n; c++) std::swap(a[j + c * n], a[piv + c * n]);
    const float d = cj[j];
    if (d == 0.0f) {
      if (*zerocol < 0) *zerocol = j;
      continue;
    }
    for (PetscInt i = j + 1; i < n; i++) cj[i] = RoundToBits(cj[i] / d, bits);
    for (PetscInt c = j + 1; c < n; c++) {
      float      *cc = a + c * n;
      const float u  = cc[j];
      if (u != 0.0f)
        for (PetscInt i = j + 1; i < n; i++) cc[i] = RoundToBits(cc[i] - cj[i] * u, bits);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tournament pivoting (denselu_tournament.h) of the m x w panel p (leading dimension lda, m >= w, w <= TSLU_WMAX):
   T double (no rounding: the specification of the cuda kernels in FP64) or float with every stored result rounded
   to 'bits' significant bits (the emulated low precision) */
static inline double Rnd(double x, int) { return x; }
static inline float  Rnd(float x, int bits) { return RoundToBits(x, bits); }

/* Partial-pivoting selection of w rows among the nr rows rows[0..nr) of p (their current values; list order breaks
   ties): out[0..w) the chosen rows in pivot order. t: nr x w work. */
template <class T>
static void TournamentSelect(const T *p, PetscInt lda, int nr, const int *rows, int w, int bits, int *out, std::vector<T> &t, std::vector<char> &chosen)
{
  t.resize((size_t)nr * w);
  chosen.assign(nr, 0);
  for (int c = 0; c < w; c++)
    for (int i = 0; i < nr; i++) t[i + (size_t)c * nr] = p[rows[i] + c * lda];
  for (int j = 0; j < w; j++) {
    int piv = -1;
    T   vmax = 0;
    for (int i = 0; i < nr; i++)
      if (!chosen[i] && (piv < 0 || std::fabs(t[i + (size_t)j * nr]) > vmax)) piv = i, vmax = std::fabs(t[i + (size_t)j * nr]);
    chosen[piv] = 1;
    out[j]      = rows[piv];
    const T d   = t[piv + (size_t)j * nr];
    if (d == (T)0) continue;
    for (int i = 0; i < nr; i++) {
      if (chosen[i]) continue;
      const T l               = Rnd((T)(t[i + (size_t)j * nr] / d), bits);
      t[i + (size_t)j * nr] = l;
      for (int c = j + 1; c < w; c++) t[i + (size_t)c * nr] = Rnd((T)(t[i + (size_t)c * nr] - l * t[piv + (size_t)c * nr]), bits);
    }
  }
}

template <class T>
static PetscErrorCode TournamentPanelT(PetscInt m, PetscInt w, T *p, PetscInt lda, int bits, PetscInt *ipiv, PetscInt *zerocol)
{
  const int         nc = TournamentChunks((int)m);
  std::vector<int>  cand((size_t)nc * w), next, rows, out(w), piv(w), pos(2 * w), row(2 * w), dst(2 * w), src(2 * w);
  std::vector<T>    t;
  std::vector<char> chosen;
  int               nmoved, cnt = nc;

  PetscFunctionBegin;
  PetscCheck(w >= 1 && w <= TSLU_WMAX && m >= w, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu tournament panel: m %" PetscInt_FMT ", w %" PetscInt_FMT " (need 1 <= w <= %d, m >= w)", m, w, (int)TSLU_WMAX);
  *zerocol = -1;
  for (int c = 0; c < nc; c++) { /* leaves */
    int r0, r1;
    TournamentChunkRows((int)m, c, &r0, &r1);
    rows.resize(r1 - r0);
    for (int i = r0; i < r1; i++) rows[i - r0] = i;
    TournamentSelect<T>(p, lda, r1 - r0, rows.data(), (int)w, bits, &cand[(size_t)c * w], t, chosen);
  }
  while (cnt > 1) { /* the tree */
    const int up = (cnt + 1) / 2;
    next.resize((size_t)up * w);
    for (int i = 0; i < up; i++) {
      if (2 * i + 1 >= cnt) {
        std::copy(&cand[(size_t)2 * i * w], &cand[(size_t)2 * i * w] + w, &next[(size_t)i * w]);
        continue;
      }
      TournamentSelect<T>(p, lda, 2 * (int)w, &cand[(size_t)2 * i * w], (int)w, bits, &next[(size_t)i * w], t, chosen);
    }
    cand.swap(next);
    cnt = up;
  }
  TournamentInterchanges((int)w, cand.data(), piv.data(), pos.data(), row.data(), &nmoved, dst.data(), src.data());
  for (PetscInt j = 0; j < w; j++) {
    ipiv[j] = piv[j];
    if (piv[j] != j)
      for (PetscInt c = 0; c < w; c++) std::swap(p[j + c * lda], p[piv[j] + c * lda]);
  }
  for (PetscInt j = 0; j < w; j++) { /* U11, L11 without pivoting */
    const T d = p[j + j * lda];
    if (d == (T)0) {
      if (*zerocol < 0) *zerocol = j;
      continue;
    }
    for (PetscInt i = j + 1; i < w; i++) {
      const T l        = Rnd((T)(p[i + j * lda] / d), bits);
      p[i + j * lda] = l;
      for (PetscInt c = j + 1; c < w; c++) p[i + c * lda] = Rnd((T)(p[i + c * lda] - l * p[j + c * lda]), bits);
    }
  }
  for (PetscInt i = w; i < m; i++) /* L21 = A21 U11^-1, row by row */
    for (PetscInt j = 0; j < w; j++) {
      const T d = p[j + j * lda];
      if (d == (T)0) continue;
      const T l        = Rnd((T)(p[i + j * lda] / d), bits);
      p[i + j * lda] = l;
      for (PetscInt c = j + 1; c < w; c++) p[i + c * lda] = Rnd((T)(p[i + c * lda] - l * p[j + c * lda]), bits);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TournamentPanel(PetscInt m, PetscInt w, PetscScalar *p, PetscInt lda, PetscInt *ipiv, PetscInt *zerocol)
{
  return TournamentPanelT<PetscScalar>(m, w, p, lda, 53, ipiv, zerocol);
}

void TournamentLeaves(PetscInt n, PetscInt nb, PetscInt leafw, std::vector<PetscInt> &leaves)
{
  struct Rec {
    static void Split(PetscInt k, PetscInt kb, PetscInt lw, std::vector<PetscInt> &out)
    {
      if (kb <= lw) {
        out.push_back(k);
        out.push_back(kb);
        return;
      }
      Split(k, kb / 2, lw, out);
      Split(k + kb / 2, kb - kb / 2, lw, out);
    }
  };
  leaves.clear();
  for (PetscInt k = 0; k < n; k += nb) Rec::Split(k, PetscMin(nb, n - k), leafw, leaves);
}

/* Right-looking LU of the n x n float matrix a (leading dimension n) by the leaves of TournamentLeaves, each by
   TournamentPanelT (every stored result rounded to 'bits'): the emulated low-precision factorization with
   tournament pivoting, the specification of the cuda recursion with tournament leaves (same pivots up to rounding) */
static PetscErrorCode FactorLowTournament(PetscInt n, float *a, PetscInt nb, PetscInt leafw, PetscInt *ipiv, int bits, PetscInt *zerocol)
{
  std::vector<PetscInt> leaves;

  PetscFunctionBegin;
  *zerocol = -1;
  for (PetscInt i = 0; i < n * n; i++) a[i] = RoundToBits(a[i], bits);
  TournamentLeaves(n, nb, leafw, leaves);
  for (size_t q = 0; q < leaves.size(); q += 2) {
    const PetscInt k = leaves[q], kb = leaves[q + 1], k2 = k + kb;
    PetscInt       zc = -1;
    PetscCall(TournamentPanelT<float>(n - k, kb, a + k + k * n, n, bits, ipiv + k, &zc));
    if (zc >= 0 && *zerocol < 0) *zerocol = k + zc;
    for (PetscInt j = k; j < k2; j++) ipiv[j] += k;
    PetscCall(ApplyPivotsT<float>(k, a, n, k, k2, ipiv, PETSC_FALSE));
    PetscCall(ApplyPivotsT<float>(n - k2, a + k2 * n, n, k, k2, ipiv, PETSC_FALSE));
    for (PetscInt c = k2; c < n; c++) { /* U12 = L11^-1 A12, then A22 -= L21 U12 */
      float *ac = a + c * n;
      for (PetscInt j = k; j < k2; j++) {
        const float u = ac[j];
        if (u != 0.0f)
          for (PetscInt i = j + 1; i < k2; i++) ac[i] = RoundToBits(ac[i] - a[i + j * n] * u, bits);
      }
      for (PetscInt j = k; j < k2; j++) {
        const float u = ac[j];
        if (u != 0.0f)
          for (PetscInt i = k2; i < n; i++) ac[i] = RoundToBits(ac[i] - a[i + j * n] * u, bits);
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FactorTournament(PetscInt n, PetscScalar *a, PetscInt lda, PetscInt nb, PetscInt leafw, Precision prec, PetscInt *ipiv, PetscInt *zerocol)
{
  std::vector<float> f((size_t)n * n);

  PetscFunctionBegin;
  PetscCheck(nb >= 1 && leafw >= 1 && leafw <= TSLU_WMAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu reference FactorTournament: block %" PetscInt_FMT ", leaf %" PetscInt_FMT, nb, leafw);
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) f[i + j * n] = (float)a[i + j * lda];
  PetscCall(FactorLowTournament(n, f.data(), nb, leafw, ipiv, PrecisionBits(prec), zerocol));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) a[i + j * lda] = f[i + j * n];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The refinement driver's operations on host arrays (see denselu_refine.h) */
struct HostOps {
  Mixed              *m;
  PetscBool           tr;
  PetscInt            n, k;
  const double       *B; /* n x k, leading dimension n */
  std::vector<double> X, R, V, w, t;
  std::vector<float>  C;
  PetscLogDouble      t0 = 0; /* start of the phase being timed (m->prof) */

  PetscErrorCode PhaseBegin(Phase) { return ProfileTic(m->prof, &t0); }
  PetscErrorCode PhaseEnd(Phase p) { return ProfileToc(m->prof, p, t0); }
  PetscInt       N() const { return n; }
  PetscInt  K() const { return k; }
  PetscReal ANorm() const { return m->anorm; }
  void      Norms(PetscReal *rn, PetscReal *xn) const
  {
    for (PetscInt c = 0; c < k; c++) {
      rn[c] = xn[c] = 0;
      for (PetscInt i = 0; i < n; i++) rn[c] = PetscMax(rn[c], std::fabs(R[i + c * n])), xn[c] = PetscMax(xn[c], std::fabs(X[i + c * n]));
    }
  }
  PetscErrorCode Start(PetscReal *rn, PetscReal *xn)
  {
    PetscFunctionBegin;
    X.assign((size_t)n * k, 0.0);
    R.assign(B, B + (size_t)n * k);
    C.resize(n);
    Norms(rn, xn);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode Plain(const PetscBool *active)
  {
    PetscFunctionBegin;
    for (PetscInt c = 0; c < k; c++) {
      if (!active[c]) continue;
      for (PetscInt i = 0; i < n; i++) C[i] = (float)R[i + c * n];
      PetscCall(SolveT<float>(n, m->LUs.data(), n, m->ipiv.data(), tr, 1, C.data(), n));
      for (PetscInt i = 0; i < n; i++) X[i + c * n] += (double)C[i];
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  void ApplyA(const double *x, double *y) const /* y = op(A) x */
  {
    for (PetscInt i = 0; i < n; i++) y[i] = 0;
    if (!tr)
      for (PetscInt j = 0; j < n; j++)
        for (PetscInt i = 0; i < n; i++) y[i] += m->A[i + j * n] * x[j];
    else
      for (PetscInt j = 0; j < n; j++)
        for (PetscInt i = 0; i < n; i++) y[j] += m->A[i + j * n] * x[i];
  }
  PetscErrorCode Residual(PetscReal *rn, PetscReal *xn)
  {
    PetscFunctionBegin;
    t.resize(n);
    for (PetscInt c = 0; c < k; c++) {
      ApplyA(&X[c * n], t.data());
      for (PetscInt i = 0; i < n; i++) R[i + c * n] = B[i + c * n] - t[i];
    }
    Norms(rn, xn);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode GmresPrepare(void)
  {
    PetscFunctionBegin;
    m->LUp.assign(m->LUs.begin(), m->LUs.end());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  static double Nrm2(PetscInt n, const double *v)
  {
    double s = 0;
    for (PetscInt i = 0; i < n; i++) s += v[i] * v[i];
    return std::sqrt(s);
  }
  PetscInt gm = 0; /* basis columns allocated */
  PetscErrorCode GmresStart(PetscInt c, PetscReal *beta)
  {
    PetscFunctionBegin;
    if ((PetscInt)V.size() < n) V.resize(n);
    std::copy(&R[c * n], &R[c * n] + n, V.begin());
    PetscCall(SolveT<double>(n, m->LUp.data(), n, m->ipiv.data(), tr, 1, V.data(), n));
    *beta = Nrm2(n, V.data());
    if (*beta > 0 && std::isfinite(*beta))
      for (PetscInt i = 0; i < n; i++) V[i] /= *beta;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::vector<double> Cr, Ur; /* the recycled space (RecycleKeep): n x kr each */
  PetscInt            kr = 0;
  /* classical Gram-Schmidt twice (CGS2) against the k orthonormal columns of Q (n x k): each pass tt = Q^T v from the
     same v, then v -= Q tt; t = the sum of the passes' coefficients */
  void CGS2(const double *Q, PetscInt k, double *v, PetscReal *t) const
  {
    for (PetscInt i = 0; i < k; i++) t[i] = 0;
    for (int pass = 0; pass < 2; pass++) {
      std::vector<double> tt(k, 0.0);
      for (PetscInt i = 0; i < k; i++)
        for (PetscInt r = 0; r < n; r++) tt[i] += Q[r + i * n] * v[r];
      for (PetscInt i = 0; i < k; i++)
        for (PetscInt r = 0; r < n; r++) v[r] -= Q[r + i * n] * tt[i];
      for (PetscInt i = 0; i < k; i++) t[i] += tt[i];
    }
  }
  /* v orthogonal to the recycled C, t = its coefficients */
  void ProjectOut(double *v, PetscReal *t) const { CGS2(Cr.data(), kr, v, t); }
  PetscErrorCode RecycleKeep(PetscInt j, const PetscReal *Q, const PetscReal *Ri)
  {
    PetscFunctionBegin;
    kr = j;
    Cr.assign((size_t)n * j, 0.0);
    Ur.assign((size_t)n * j, 0.0);
    for (PetscInt col = 0; col < j; col++)
      for (PetscInt i = 0; i <= j; i++)
        for (PetscInt r = 0; r < n; r++) Cr[r + col * n] += V[r + i * n] * Q[i + col * (j + 1)];
    for (PetscInt col = 0; col < j; col++)
      for (PetscInt i = 0; i <= col; i++)
        for (PetscInt r = 0; r < n; r++) Ur[r + col * n] += V[r + i * n] * Ri[i + col * j];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode RecycleProject(PetscInt c, PetscInt kr_, PetscReal beta, PetscReal *nrm)
  {
    std::vector<PetscReal> t(kr_);
    PetscFunctionBegin;
    PetscCheck(kr_ == kr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "denselu reference: recycled space of %" PetscInt_FMT " columns, asked for %" PetscInt_FMT, kr, kr_);
    ProjectOut(V.data(), t.data());
    for (PetscInt i = 0; i < kr; i++)
      for (PetscInt r = 0; r < n; r++) X[r + c * n] += beta * Ur[r + i * n] * t[i];
    *nrm = Nrm2(n, V.data());
    if (*nrm > 0)
      for (PetscInt r = 0; r < n; r++) V[r] /= *nrm;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode RecycleUpdate(PetscInt c, PetscInt, const PetscReal *z)
  {
    PetscFunctionBegin;
    for (PetscInt i = 0; i < kr; i++)
      for (PetscInt r = 0; r < n; r++) X[r + c * n] -= Ur[r + i * n] * z[i];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode GmresArnoldi(PetscInt j, PetscReal *h, PetscReal *b)
  {
    PetscFunctionBegin;
    if ((PetscInt)V.size() < (j + 2) * n) V.resize((size_t)(j + 2) * n);
    w.resize(n);
    ApplyA(&V[j * n], w.data());
    PetscCall(SolveT<double>(n, m->LUp.data(), n, m->ipiv.data(), tr, 1, w.data(), n));
    if (b) ProjectOut(w.data(), b);
    CGS2(V.data(), j + 1, w.data(), h);
    h[j + 1] = Nrm2(n, w.data());
    for (PetscInt r = 0; r < n; r++) V[r + (j + 1) * n] = h[j + 1] > 0 ? w[r] / h[j + 1] : 0.0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode GmresUpdate(PetscInt c, PetscInt j, const PetscReal *y)
  {
    PetscFunctionBegin;
    for (PetscInt i = 0; i < j; i++)
      for (PetscInt r = 0; r < n; r++) X[r + c * n] += V[r + i * n] * y[i];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

PetscErrorCode MixedFactor(Mixed *mx, PetscInt n, const PetscScalar *a, PetscInt lda, Precision prec, PetscInt nb, PetscInt *zerocol)
{
  PetscLogDouble t0 = 0;

  PetscFunctionBegin;
  PetscCheck(prec != PRECISION_DOUBLE && prec != PRECISION_AUTO, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "denselu reference MixedFactor: give a low precision (tf32, half, bf16, tf32x3)");
  mx->n    = n;
  mx->nb   = nb > 0 ? nb : 32;
  mx->prec = prec;
  mx->used = prec;
  PetscCall(ProfileTic(mx->prof, &t0));
  mx->A.resize((size_t)n * n);
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) mx->A[i + j * n] = a[i + j * lda];
  mx->anorm = NormInf(n, mx->A.data(), n);
  PetscCall(ProfileToc(mx->prof, PHASE_CHECK, t0));
  PetscCall(ProfileTic(mx->prof, &t0));
  mx->LUs.assign(mx->A.begin(), mx->A.end());
  PetscCall(ProfileToc(mx->prof, PHASE_CONVERT, t0));
  mx->ipiv.resize(n);
  mx->LUp.clear();
  mx->LU.clear();
  PetscCall(ProfileTic(mx->prof, &t0));
  if (mx->pivoting == PIVOTING_TOURNAMENT) PetscCall(FactorLowTournament(n, mx->LUs.data(), mx->nb, mx->leafw, mx->ipiv.data(), PrecisionBits(prec), zerocol));
  else PetscCall(FactorLow(n, mx->LUs.data(), mx->ipiv.data(), PrecisionBits(prec), zerocol)); /* unblocked: one leaf */
  PetscCall(ProfileToc(mx->prof, PHASE_LEAF, t0));
  if (*zerocol >= 0) { /* a zero pivot in low precision decides nothing: FP64 */
    mx->LU = mx->A;
    PetscCall(FactorProfiled(n, mx->LU.data(), n, mx->nb, mx->ipiv.data(), zerocol, mx->prof));
    mx->used = PRECISION_DOUBLE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MixedSolve(Mixed *mx, PetscBool transpose, PetscInt nrhs, PetscScalar *b, PetscInt ldb, const RefineOptions *opt, RefineResult *res)
{
  const PetscInt      n = mx->n;
  const RefineOptions o = RefineOptionsFor(opt ? *opt : RefineOptionsDefault(), mx->used);
  std::vector<double> B((size_t)n * nrhs);

  PetscFunctionBegin;
  res->steps = res->gmres_steps = res->gmres_its = 0;
  res->converged = res->fellback = PETSC_FALSE;
  res->berr = res->ratio = 0;
  res->stop             = "FP64 factors";
  if (!n || !nrhs) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt c = 0; c < nrhs; c++)
    for (PetscInt i = 0; i < n; i++) B[i + c * n] = b[i + c * ldb];
  if (mx->used != PRECISION_DOUBLE) {
    HostOps ops;
    ops.m  = mx;
    ops.tr = transpose;
    ops.n  = n;
    ops.k  = nrhs;
    ops.B  = B.data();
    PetscCall(Refine(ops, o, res));
    if (res->converged) {
      for (PetscInt c = 0; c < nrhs; c++)
        for (PetscInt i = 0; i < n; i++) b[i + c * ldb] = ops.X[i + c * n];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscInt zc;
    mx->LU = mx->A;
    PetscCall(FactorProfiled(n, mx->LU.data(), n, mx->nb, mx->ipiv.data(), &zc, mx->prof)); /* the fallback: factor phases */
    PetscCheck(zc < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in column %" PetscInt_FMT " of the FP64 fallback of the MATSOLVERPGX dense LU", zc);
    mx->used      = PRECISION_DOUBLE;
    res->fellback = PETSC_TRUE;
  }
  {
    PetscLogDouble t0 = 0;
    PetscCall(ProfileTic(mx->prof, &t0));
    PetscCall(Solve(n, mx->LU.data(), n, mx->ipiv.data(), transpose, nrhs, b, ldb));
    PetscCall(ProfileToc(mx->prof, PHASE_SOLVE, t0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
} // namespace reference
} // namespace denselu
} // namespace kernels
} // namespace pgx
