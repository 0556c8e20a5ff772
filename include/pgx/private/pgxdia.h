/* pgxdia.h: a banded (DIA) copy of a square CSR block, for products that are bound by memory bandwidth (private).

   Mathematics. A square n x n block B whose entries lie on few diagonals (stencil matrices: 7 for a 3D 7-point
   stencil in lexicographic order) is stored as ndiag offsets off[0] < off[1] < ... (column minus row) and the
   values column-major by diagonal:
       val[d * n + i] = B(i, i + off[d])   where that entry is stored in the CSR, else 0.
   The product y = B x is then, for each row i, sum over d of val[d * n + i] * x[i + off[d]] (terms with
   i + off[d] outside [0, n) skipped), summed in increasing d, which is increasing column: the order of a
   sequential CSR product of a row with sorted columns, with zeros added where the CSR has no entry.
   Against CSR (12 bytes an entry with 32-bit indices, the column index read for every entry), DIA reads 8
   bytes an entry and no index, and the reads of val and x are contiguous across the rows of a warp.

   When it pays: PGXDIAAnalyze() accepts a block when it has at most maxdiag distinct offsets and the padded
   storage ndiag * n is at most 1/minfill times the stored entries (minfill 2/3: DIA's 8 bytes a padded entry
   against CSR's 12 an entry). Otherwise it reports ndiag = 0 and the caller keeps CSR.

   Input contract: 0-based CSR, columns sorted within each row, column indices in [0, n). Host arrays. */
#pragma once
#include <petscsys.h>
#include <pgx/private/pgxcompat.h>

/* the most diagonals the device product takes (its offsets staged in shared memory) */
#define PGX_DIA_MAXDIAG 32

/* Whether DIA storage pays for an n-row block of nnz entries on nd distinct offsets: some entries, at most maxdiag
   diagonals, and a fill nnz / (nd * n) of at least minfill. PGXDIAAnalyze() decides by it on the host; PCAIPS's
   maps from the device pattern, which count nnz and nd on the GPU, by the same rule. */
static inline PetscBool PGXDIAPays(PetscInt nnz, PetscInt nd, PetscInt n, PetscInt maxdiag, PetscReal minfill)
{
  return (PetscBool)(nnz > 0 && nd > 0 && nd <= maxdiag && (PetscReal)nnz >= minfill * (PetscReal)nd * (PetscReal)n);
}

/* The distinct offsets (column - row) of the n x n CSR block (rowptr, col), sorted, in off[0 .. *ndiag) (off has
   room for maxdiag); *ndiag = 0 when there are more than maxdiag of them or the fill nnz / (ndiag * n) is below
   minfill (then DIA does not pay). An empty block gives *ndiag = 0. */
/* PGXDIAAnalyzeRows() looks at the rows i with i % stride == 0 only (stride 1: every row, PGXDIAAnalyze()). The
   offsets it finds are a subset of the block's, so a block it declines (too many diagonals, too little fill) is declined
   by the whole analysis too; a block it accepts must be checked by a fill that reports entries on no offset found
   (the resident's DIAFill), and analyzed whole when there is one. */
static inline PetscErrorCode PGXDIAAnalyzeRows(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt maxdiag, PetscReal minfill, PetscInt stride, PetscInt *ndiag, PetscInt off[])
{
  PetscInt nd = 0, nnz;

  PetscFunctionBegin;
  *ndiag = 0;
  if (n <= 0 || !rowptr[n]) PetscFunctionReturn(PETSC_SUCCESS);
  if (stride < 1) stride = 1;
  nnz = rowptr[n];
  for (PetscInt i = 0; i < n; i += stride) {
    PetscInt lo = 0; /* columns sorted: a row's offsets increase, so the search goes on from the last one's place */
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt o = col[k] - i;
      while (lo < nd && off[lo] < o) lo++; /* first position with off >= o */
      if (lo < nd && off[lo] == o) continue;
      if (nd == maxdiag) PetscFunctionReturn(PETSC_SUCCESS); /* too many diagonals: keep CSR */
      for (PetscInt m = nd; m > lo; m--) off[m] = off[m - 1];
      off[lo] = o;
      nd++;
    }
  }
  if (!PGXDIAPays(nnz, nd, n, maxdiag, minfill)) PetscFunctionReturn(PETSC_SUCCESS);
  *ndiag = nd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode PGXDIAAnalyze(PetscInt n, const PetscInt *rowptr, const PetscInt *col, PetscInt maxdiag, PetscReal minfill, PetscInt *ndiag, PetscInt off[])
{
  return PGXDIAAnalyzeRows(n, rowptr, col, maxdiag, minfill, 1, ndiag, off);
}

/* Each entry k of the CSR block sent to its DIA slot: out[d * n + i] = in[k] for the entry (i, i + off[d]), empty
   slots = fill. With in the values and fill 0, the DIA values (PGXDIAFill); with in the positions of the entries in
   another array and fill -1, a map that a gather turns into the DIA values where those values live. */
template <class T>
static inline PetscErrorCode PGXDIAScatter(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const T *in, T fill, PetscInt ndiag, const PetscInt off[], T *out)
{
  PetscFunctionBegin;
  for (size_t k = 0; k < (size_t)ndiag * (size_t)n; k++) out[k] = fill;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt d = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) { /* columns sorted: the diagonals come in increasing order */
      const PetscInt o = col[k] - i;
      while (d < ndiag && off[d] < o) d++;
      PetscCheck(d < ndiag && off[d] == o, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PGXDIAScatter: row %" PetscInt_FMT " has an entry on offset %" PetscInt_FMT ", not among the %" PetscInt_FMT " analyzed diagonals (pattern changed?)", i, o, ndiag);
      out[(size_t)d * (size_t)n + (size_t)i] = in[k];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The DIA values (val: ndiag * n, column-major by diagonal, zero where the CSR has no entry) of the CSR block with
   values a, for the offsets off[0 .. ndiag) that PGXDIAAnalyze() returned for its pattern */
static inline PetscErrorCode PGXDIAFill(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const PetscScalar *a, PetscInt ndiag, const PetscInt off[], PetscScalar *val)
{
  return PGXDIAScatter<PetscScalar>(n, rowptr, col, a, 0.0, ndiag, off, val);
}

#if defined(__CUDACC__)
/* The offsets into shared memory (soff[PGX_DIA_MAXDIAG]; blockDim.x >= ndiag), the block synchronized after */
__device__ static inline void PGXDIAStageOffsets(PetscInt ndiag, const PetscInt *__restrict__ off, PetscInt *soff)
{
  if (threadIdx.x < ndiag) soff[threadIdx.x] = off[threadIdx.x];
  __syncthreads();
}

/* Row i of B x for B in DIA (offsets soff staged), summed in increasing diagonal (= column) */
__device__ static inline PetscScalar PGXDIARow(PetscInt i, PetscInt n, PetscInt ndiag, const PetscInt *soff, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x)
{
  PetscScalar s = 0;
  for (PetscInt d = 0; d < ndiag; d++) {
    const PetscInt j = i + soff[d];
    if (j >= 0 && j < n) s += val[(size_t)d * (size_t)n + (size_t)i] * x[j];
  }
  return s;
}

/* y = B x (add = 0) or y += B x (add = 1) for B in DIA (device arrays): one thread a row; the offsets staged in
   shared memory (ndiag <= PGX_DIA_MAXDIAG); blockDim.x threads per block (>= ndiag), any grid (grid-stride loop) */
__global__ static void __launch_bounds__(256) PGXDIAProductKernel(PetscInt n, PetscInt ndiag, const PetscInt *__restrict__ off, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, int add)
{
  __shared__ PetscInt soff[PGX_DIA_MAXDIAG];
  PGXDIAStageOffsets(ndiag, off, soff);
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscScalar s = PGXDIARow(i, n, ndiag, soff, val, x);
    y[i]                = add ? y[i] + s : s;
  }
}
#endif
