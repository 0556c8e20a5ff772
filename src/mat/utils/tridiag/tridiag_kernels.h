/* tridiag_kernels.h: the kernels of the batched tridiagonal solver, declared once and implemented per
   backend (reference/: plain sequential C++, the specification; cuda/: one thread per block, interleaved,
   or tiles solved by parallel scans).

   Data (built by the host setup in tridiag.cxx, identical for both backends):
   - The batch: blocks of at most threshold rows (whole short blocks and the partitions of long ones),
     sorted into groups of equal size (per window of ROW_WINDOW rows). Group g of m_g blocks of size s_g stores element k of its j-th block
     at gbase + k*m_g + j (interleaved) in three factor arrays:
         fl = a_k / piv_k (forward multiplier), finv = 1 / piv_k, fu = c_k / piv_k (modified super-diagonal)
     so that  z_k = finv_k r_k - fl_k z_{k-1},  y_{s-1} = z_{s-1},  y_k = z_k - fu_k y_{k+1}.
     The groups are cut into chunks (one thread block each on the GPU): chunk c holds blocks
     bfirst .. bfirst+nblk-1 of the batch order, whose first rows are bstart[]; its element (k, j) is at
     fbase + k*stride + j.
   - The long blocks (more rows than the threshold): partitions (in the batch) separated by single rows.
     After the batch solve, each separator gets  rs = r[row] - a y[row-1] - c y[row+1]; the child solver
     solves the reduced (Schur complement) system for xs; then every partition row is corrected,
         y[row] -= G xs[left] + H xs[right]   (G, H: the partition's spikes; left/right -1 when absent),
     and the separator rows get y[row] = xs. */
#pragma once
#include <petscsys.h>
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
  #include <complex>
#endif

namespace pgx
{
namespace kernels
{
namespace tridiag
{
/* The scalar of this interface: PetscScalar as host code sees it. Under nvcc, PETSc's headers make PetscScalar
   thrust::complex<double> in complex builds, a distinct type of the same layout as the host's std::complex<double>;
   declaring the data and the functions with the host's type gives both sides the same ones (the cuda backend
   reinterprets the arrays as its device scalar). In host code, and in real builds, Scalar is PetscScalar. */
#if defined(PETSC_USE_COMPLEX) && defined(__CUDACC__)
typedef std::complex<PetscReal> Scalar;
#else
typedef PetscScalar Scalar;
#endif

/* One chunk of the batch: a thread block on the GPU */
struct Chunk {
  PetscInt fbase;    /* factor index of element 0 of the chunk's first block */
  PetscInt stride;   /* m_g: factor index step from element k to k+1 */
  PetscInt bfirst;   /* index in bstart[] of the chunk's first block */
  int      size;     /* rows of every block of the chunk */
  int      nblk;     /* blocks in the chunk */
  int      epilogue; /* 1: write alpha*sol + beta*w; 0: a partition of a long block (the correction does it) */
  int      staged;   /* 1: r and y go through shared memory (small blocks); 0: each thread streams its block */
};

/* Chunks: at most CHUNK_THREADS blocks (threads of the batch kernel). Blocks of at most STAGED_MAX rows are
   staged: the chunk's r and y pass through shared memory (coalesced gathers and scatters of short
   segments), min(128, CHUNK_SMEM/(s+1)) blocks per chunk, about 12 KiB, so that 16 chunks of 128 threads
   (the thread limit of an SM) fit. Longer blocks are streamed: each thread reads its block's rows in
   order (whole 32-byte sectors, reused from L1), 128 blocks per chunk, no shared memory. */
constexpr int CHUNK_THREADS = 128;
constexpr int CHUNK_SMEM    = 1536;
constexpr int STAGED_MAX    = 16;
/* Blocks are grouped by size within windows of this many rows (window-major chunk order): the chunks in
   flight on the GPU then gather and scatter r and y from a few MiB of rows, whose partly used 32-byte
   sectors stay in L2 until the neighbouring chunks use the rest of them. */
constexpr PetscInt ROW_WINDOW = 262144;

/* Tiled layout: the factors in natural row order (separator rows of long blocks: zero factors); chunk c is
   a tile of rows fbase .. fbase+size-1 (whole blocks, or partitions and separators of long blocks when
   epilogue is 0). The tile kernel runs tile_threads (TILE_THREADS or TILE_THREADS_BIG) threads of TILE_RPT
   rows each over the 64-byte aligned window starting at fbase rounded down to a multiple of TILE_RPT, hence
   at most tile_threads*TILE_RPT - (TILE_RPT-1) rows per tile. The big tiles are used only when a block
   would not fit the small ones (more tiles balance small systems better over the SMs). */
constexpr int TILE_THREADS     = 256;
constexpr int TILE_THREADS_BIG = 512;
constexpr int TILE_RPT         = 8;

/* The batch as seen by a kernel */
struct Batch {
  int                tiled;        /* 1: tiled layout (chunks are tiles; bstart unused) */
  int                tile_threads; /* threads per tile (TILE_THREADS or TILE_THREADS_BIG) */
  PetscInt           n;     /* rows of the system */
  PetscInt           nchunks;
  const Chunk       *chunks;
  const PetscInt    *bstart;
  const Scalar      *fl, *finv, *fu;
  PetscInt           smem; /* scalars of shared memory the largest chunk needs: size * (nblk | 1) */
};

/* The long-block part of a level */
struct Long {
  PetscInt           nsep;
  const PetscInt    *seprow;
  const Scalar      *sepa, *sepc; /* separator row's sub- and super-diagonal entries */
  PetscInt           nrow;        /* partition rows to correct */
  const PetscInt    *row, *left, *right;
  const Scalar      *G, *H;
};

/* The right-hand side of a fused solve (PGXTridiagSolveDIA()): r = B x for B in pgxdia.h's DIA storage, val[d * n + i]
   = B(i, i + off[d]) (ndiag <= DIA_MAXDIAG diagonals, offsets increasing; val and x in the backend's memory, the
   offsets here, passed to the kernels by value). Row i of r sums, in increasing d, val[d * n + i] x[i + off[d]] over
   the d with i + off[d] in [0, n): the order of PGXDIARow(). */
constexpr int DIA_MAXDIAG = 32;
struct DIA {
  PetscInt      ndiag;
  PetscInt      off[DIA_MAXDIAG];
  const Scalar *val;
  const Scalar *x;
};

namespace reference
{
/* t = B x (the fused solve's right-hand side, as the cuda kernel forms it row by row) */
void dia_product(PetscInt n, const DIA &, PetscScalar *t);
/* scalars of work batch_solve() needs (the largest chunk: size * nblk interleaved, size tiled) */
PetscInt batch_work(const Batch &);
/* z: batch_work() scalars, allocated once by the caller */
void batch_solve(const Batch &, PetscScalar alpha, const PetscScalar *r, PetscScalar beta, const PetscScalar *w, PetscScalar *y, PetscScalar *z);
void reduced_rhs(const Long &, const PetscScalar *r, const PetscScalar *y, PetscScalar *rs);
void correct(const Long &, const PetscScalar *xs, PetscScalar alpha, PetscScalar beta, const PetscScalar *w, PetscScalar *y);
} // namespace reference

namespace cuda
{
/* The factors of the tiled layout without long blocks, formed on the device from P there (PGXTridiagSetUpNumericDevice()):
   block q owns rows bstart[q] .. bstart[q+1]-1 (bstart[nb] taken as n; the blocks cover 0 .. n-1 in order); fl, finv,
   fu at the rows themselves, by the host setup's recurrence (a = 0 at a block's first row, c = 0 at its last), one
   thread a block. A pivot the host setup refuses (not finite, or |pivot| <= 1e-13 max|row|) stops its block; *badrow
   (host) gets the least such row, n when there is none. */
PetscErrorCode factor_natural(PetscInt n, PetscInt nb, const PetscInt *bstart, const Scalar *dl, const Scalar *d, const Scalar *du, Scalar *fl, Scalar *finv, Scalar *fu, PetscInt *badrow);
PetscErrorCode batch_solve(const Batch &, Scalar alpha, const Scalar *r, Scalar beta, const Scalar *w, Scalar *y);
/* t = B x */
PetscErrorCode dia_product(PetscInt n, const DIA &, Scalar *t);
/* y = alpha P^{-1} (B x) + beta w in one pass: tiled layout, every chunk a tile of whole blocks (epilogue 1, no long
   blocks); x must not alias y (other tiles read x while this one writes y). d2 (device, or NULL): also d2[0] =
   sum conj(y_i) v_i and d2[1] = sum |y_i|^2, summed in the same pass (partial sums per tile, the last tile adds them) */
PetscErrorCode batch_solve_dia(const Batch &, Scalar alpha, const DIA &, Scalar beta, const Scalar *w, Scalar *y, const Scalar *v = nullptr, Scalar *d2 = nullptr);
PetscErrorCode reduced_rhs(const Long &, const Scalar *r, const Scalar *y, Scalar *rs);
PetscErrorCode correct(const Long &, const Scalar *xs, Scalar alpha, Scalar beta, const Scalar *w, Scalar *y);
} // namespace cuda
} // namespace tridiag
} // namespace kernels
} // namespace pgx
