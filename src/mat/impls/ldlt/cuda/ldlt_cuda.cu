/* Sparse LDL^T cuda backend (see ldlt_kernels.h for the mathematics): the level-scheduled right-looking column
   algorithm of Chen and Wang. One launch per level of the elimination tree; one thread block per column of the
   level: thread 0 applies the static pivoting rule to d_j, the block scales the column, then each thread takes
   one k in struct(L_*j) and applies c_ik -= l_ij d_j l_kj for the i > k of the column (merge scan of the two
   sorted row lists); columns of one level may update the same entries: atomicAdd. The solves use the same
   level sets (forward: increasing levels, scatter with atomics; backward: decreasing levels, gathers), all
   right-hand sides at once (grid.y). Everything runs on PGXCUDAGetStream(); every call and launch is checked.

   Scalars: PetscScalar is double, or in a complex build thrust::complex<double> (what PETSc's headers give nvcc;
   the same layout as the host's std::complex<double>, so the glue's arrays are used as they are). A complex
   atomic add is two double atomicAdds (real and imaginary parts, each exact to the ordering of the additions as
   in the real case). Complex symmetric matrices (LDL^T) take the transposes of the real code (cuBLAS Z-calls with
   OP_T, Zsyrkx); Hermitian ones (LDL^H, PivotRule::hermitian) conjugate where the reference backend does (Op()):
   OP_C, Zherkx (the updates L W^H with W = L D, D real, are Hermitian), and D real.

   Supernodal method (AnalyzeSupernodal, FactorSupernodal; the algorithm and its plan are described in
   ldlt_kernels.h, and reference::FactorSupernodalPlan runs the same schedule, maps and blocking on the host):
   dense panels for all supernodes in one device array, level by level of the supernodal tree. The small
   supernodes of a level: one launch, one thread block each (the operation order of the reference's
   FactorSupernodal; updates scattered into the ancestors' panels with atomicAdd). The large ones, one after the
   other: for each block column of at most nb <= 64 columns, one thread block factors the diagonal block in shared
   memory, cublas<t>trsm gives L21 D, a copy keeps it (W), a kernel scales by D^-1, <t>syrkx (<t>herkx when
   Hermitian) and <t>gemm update the rest of the panel; then W = L21 D, C = L21 op(W)^T by <t>syrkx/herkx (lower)
   into a contribution buffer,
   and a kernel scatter-adds C into the ancestors. Finally the panels are copied into the CSC arrays (lval, d) that
   GetFactor uses. After a supernodal factorization the solves run on the panels (SolveSupernodal; the same
   schedule as reference::SolvePanels): small supernodes one thread block each, one launch per level; large
   ones with cublas<t>trsm and <t>gemm on the rows R gathered into a buffer. */
#include <pgx/private/pgxcuda.h>
#include <pgx/private/pgxcudascalar.h>
#include "../ldlt_kernels.h"
#include <vector>

namespace pgx
{
namespace kernels
{
namespace ldlt
{
namespace cuda
{
struct Data {
  PetscInt              n = 0, nnzL = 0, nnzA = 0, nlevels = 0;
  std::vector<PetscInt> lptr;                                   /* host copy of the level pointers */
  PetscInt             *perm = nullptr, *lcolptr = nullptr, *lrow = nullptr, *order = nullptr, *dest = nullptr;
  PetscScalar          *lval = nullptr, *d = nullptr, *aval = nullptr, *work = nullptr;
  PetscInt              worksize = 0;
  unsigned long long   *flags = nullptr;                         /* [0] perturbed count, [1] smallest bad column (n: none) */
  /* supernodal method (AnalyzeSupernodal) */
  PetscInt                nsuper = 0, nslevels = 0, large_min = 64, nb = 64;
  std::vector<PetscInt>   hsnptr, hnr, hsmallptr, hlarge, hlargeptr; /* host: supernodes, small ones' list pointers per level, large ones by level */
  std::vector<PetscInt64> hpofs;
  PetscInt64              npanel = 0;
  PetscInt               *snptr = nullptr, *nr = nullptr, *sup = nullptr, *segptr = nullptr, *segsn = nullptr, *segb0 = nullptr, *relmap = nullptr, *small = nullptr;
  PetscInt64             *pofs = nullptr, *segrel = nullptr, *pdest = nullptr;
  PetscScalar            *panels = nullptr, *cbuf = nullptr, *wbuf = nullptr;
  PetscInt                maxnr_large = 0;  /* most rows below the diagonal block of a large supernode (solve buffer) */
  PetscBool               snode = PETSC_FALSE; /* the last numeric phase was supernodal: the solves use the panels */
  PetscBool               hermitian = PETSC_FALSE; /* the last numeric phase was LDL^H: the solves conjugate L^T */
  pgx::cuda::DeviceArray<PetscScalar> stmp;  /* solve buffer of the large supernodes: maxnr_large * nrhs */
};

PetscErrorCode Create(Data **d)
{
  PetscFunctionBegin;
  *d = new Data();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreeDevice(Data *d)
{
  PetscFunctionBegin;
  PetscCall(PGXDeviceFree(&d->perm));
  PetscCall(PGXDeviceFree(&d->lcolptr));
  PetscCall(PGXDeviceFree(&d->lrow));
  PetscCall(PGXDeviceFree(&d->order));
  PetscCall(PGXDeviceFree(&d->dest));
  PetscCall(PGXDeviceFree(&d->lval));
  PetscCall(PGXDeviceFree(&d->d));
  PetscCall(PGXDeviceFree(&d->aval));
  PetscCall(PGXDeviceFree(&d->work));
  PetscCall(PGXDeviceFree(&d->flags));
  PetscCall(PGXDeviceFree(&d->snptr));
  PetscCall(PGXDeviceFree(&d->nr));
  PetscCall(PGXDeviceFree(&d->sup));
  PetscCall(PGXDeviceFree(&d->segptr));
  PetscCall(PGXDeviceFree(&d->segsn));
  PetscCall(PGXDeviceFree(&d->segb0));
  PetscCall(PGXDeviceFree(&d->relmap));
  PetscCall(PGXDeviceFree(&d->small));
  PetscCall(PGXDeviceFree(&d->pofs));
  PetscCall(PGXDeviceFree(&d->segrel));
  PetscCall(PGXDeviceFree(&d->pdest));
  PetscCall(PGXDeviceFree(&d->panels));
  PetscCall(PGXDeviceFree(&d->cbuf));
  PetscCall(PGXDeviceFree(&d->wbuf));
  PetscCall(d->stmp.resize(0));
  d->nsuper = d->nslevels = 0;
  d->maxnr_large = 0;
  d->snode       = PETSC_FALSE;
  d->npanel   = 0;
  d->worksize = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Destroy(Data **d)
{
  PetscFunctionBegin;
  if (!*d) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FreeDevice(*d));
  delete *d;
  *d = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Analyze(Data *d, PetscInt n, const PetscInt *perm, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt nlevels, const PetscInt *order, const PetscInt *lptr, PetscInt nnzA, const PetscInt *dest)
{
  size_t freeb, totalb, need;

  PetscFunctionBegin;
  PetscCall(FreeDevice(d));
  d->n       = n;
  d->nnzL    = lcolptr[n];
  d->nnzA    = nnzA;
  d->nlevels = nlevels;
  d->lptr.assign(lptr, lptr + nlevels + 1);
  need = (size_t)(3 * n + 2 + d->nnzL + nnzA) * sizeof(PetscInt) + (size_t)(d->nnzL + 2 * n + nnzA) * sizeof(PetscScalar);
  PGXCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  PetscCheck(need < freeb, PETSC_COMM_SELF, PETSC_ERR_MEM, "MATSOLVERPGX: the factor needs %.3g GB of GPU memory, %.3g GB are free", need / 1e9, freeb / 1e9);
  PetscCall(PGXDeviceMallocArray(n, &d->perm));
  PetscCall(PGXDeviceMallocArray(n + 1, &d->lcolptr));
  PetscCall(PGXDeviceMallocArray(d->nnzL + 1, &d->lrow));
  PetscCall(PGXDeviceMallocArray(n, &d->order));
  PetscCall(PGXDeviceMallocArray(nnzA + 1, &d->dest));
  PetscCall(PGXDeviceMallocArray(d->nnzL + 1, &d->lval));
  PetscCall(PGXDeviceMallocArray(n, &d->d));
  PetscCall(PGXDeviceMallocArray(nnzA + 1, &d->aval));
  PetscCall(PGXDeviceMallocArray(2, &d->flags));
  PetscCall(PGXDeviceCopyArrayToDevice(d->perm, perm, n));
  PetscCall(PGXDeviceCopyArrayToDevice(d->lcolptr, lcolptr, n + 1));
  if (d->nnzL) PetscCall(PGXDeviceCopyArrayToDevice(d->lrow, lrow, d->nnzL));
  PetscCall(PGXDeviceCopyArrayToDevice(d->order, order, n));
  if (nnzA) PetscCall(PGXDeviceCopyArrayToDevice(d->dest, dest, nnzA));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ scalars on the device */
/* Abs, Re, Conj, IsFinite, AtomicAdd (a complex one: two double atomics), ShflDown: pgxcudascalar.h */
using pgx::dev::Abs;
using pgx::dev::AtomicAdd;
using pgx::dev::Conj;
using pgx::dev::IsFinite;
using pgx::dev::Re;
using pgx::dev::ShflDown;
/* op(x) of ldlt_kernels.h: x, or conj(x) when Hermitian */
__device__ static inline PetscScalar DOp(PetscScalar x, bool hermitian) { return hermitian ? Conj(x) : x; }

/* The pivot rule of ldlt_kernels.h (reference::ApplyPivotRule() on the host, the same operations): a replaced pivot is
   counted in flags[0]; a bad one is recorded (smallest column, flags[1]), left in place, and false is returned */
__device__ static inline bool PivotDev(PetscInt col, PetscScalar *dj, PetscReal small, PetscReal repl, bool hermitian, unsigned long long *flags)
{
  PetscScalar v  = *dj;
  PetscReal   av = Abs(v);
  if (hermitian) v = Re(v);
  if (!IsFinite(v) || (av == 0 && repl == 0)) {
    atomicMin(&flags[1], (unsigned long long)col);
    return false;
  }
  if (av <= small && repl > 0) {
    v = av == 0 ? PetscScalar(repl) : v * (repl / av);
    atomicAdd(&flags[0], 1ULL);
  }
  *dj = v;
  return true;
}

__global__ void KZero(PetscInt m, PetscScalar *x)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < m; i += (PetscInt)gridDim.x * blockDim.x) x[i] = 0;
}

__global__ void KLoad(PetscInt nnzA, PetscInt nnzL, const PetscScalar *aval, const PetscInt *dest, PetscScalar *lval, PetscScalar *d)
{
  for (PetscInt k = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; k < nnzA; k += (PetscInt)gridDim.x * blockDim.x) {
    PetscInt t = dest[k];
    if (t < 0) continue;
    if (t >= nnzL) AtomicAdd(&d[t - nnzL], aval[k]);
    else AtomicAdd(&lval[t], aval[k]);
  }
}

/* One block per column of the level */
__global__ void KFactorLevel(PetscInt lo, PetscInt hi, const PetscInt *order, const PetscInt *lcolptr, const PetscInt *lrow, PetscReal small, PetscReal repl, bool hermitian, PetscScalar *lval, PetscScalar *d, unsigned long long *flags)
{
  __shared__ int ok;
  PetscInt       t = lo + blockIdx.x;
  if (t >= hi) return;
  PetscInt j = order[t], p0 = lcolptr[j], p1 = lcolptr[j + 1];
  if (threadIdx.x == 0) ok = PivotDev(j, &d[j], small, repl, hermitian, flags) ? 1 : 0;
  __syncthreads(); /* makes thread 0's d[j] visible to the block */
  if (!ok) return;
  const PetscScalar dj = d[j];
  for (PetscInt p = p0 + threadIdx.x; p < p1; p += blockDim.x) lval[p] /= dj;
  __syncthreads();
  /* c_ik -= l_ij d_j op(l_kj), i >= k in struct(L_*j) */
  for (PetscInt pb = p0 + threadIdx.x; pb < p1; pb += blockDim.x) {
    PetscInt    k = lrow[pb], q = lcolptr[k];
    PetscScalar f = dj * DOp(lval[pb], hermitian);
    AtomicAdd(&d[k], -lval[pb] * f);
    for (PetscInt pa = pb + 1; pa < p1; pa++) {
      PetscInt i = lrow[pa];
      while (lrow[q] != i) q++;
      AtomicAdd(&lval[q], -lval[pa] * f);
    }
  }
}

PetscErrorCode FactorColumn(Data *d, const Scalar *aval, const PivotRule *rule, NumericInfo *info)
{
  cudaStream_t       s;
  const unsigned int B = 128;
  unsigned long long hflags[2] = {0, (unsigned long long)d->n};

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  if (d->nnzA) PetscCall(PGXDeviceCopyArrayToDevice(d->aval, aval, d->nnzA));
  PetscCall(PGXDeviceCopyArrayToDevice(d->flags, hflags, 2));
  KZero<<<PGXCUDAGridSize(d->nnzL + 1, B), B, 0, s>>>(d->nnzL, d->lval);
  PGXCheckLaunch("KZero");
  KZero<<<PGXCUDAGridSize(d->n + 1, B), B, 0, s>>>(d->n, d->d);
  PGXCheckLaunch("KZero");
  if (d->nnzA) {
    KLoad<<<PGXCUDAGridSize(d->nnzA, B), B, 0, s>>>(d->nnzA, d->nnzL, d->aval, d->dest, d->lval, d->d);
    PGXCheckLaunch("KLoad");
  }
  for (PetscInt l = 0; l < d->nlevels; l++) {
    PetscInt lo = d->lptr[l], hi = d->lptr[l + 1];
    KFactorLevel<<<(unsigned int)(hi - lo), B, 0, s>>>(lo, hi, d->order, d->lcolptr, d->lrow, rule->small, rule->repl, (bool)rule->hermitian, d->lval, d->d, d->flags);
    PGXCheckLaunch("KFactorLevel");
  }
  PetscCall(PGXDeviceCopyArrayToHost(hflags, d->flags, 2));
  info->nperturbed = (PetscInt)hflags[0];
  info->badcol     = hflags[1] < (unsigned long long)d->n ? (PetscInt)hflags[1] : -1;
  info->badvalue   = Scalar(0);
  info->flops      = 0;
  d->snode         = PETSC_FALSE;
  d->hermitian     = rule->hermitian;
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ void KGather(PetscInt n, PetscInt nrhs, const PetscInt *perm, const PetscScalar *b, PetscScalar *y)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n * nrhs; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscInt r = i / n, k = i % n;
    y[i]       = b[perm[k] + r * n];
  }
}

__global__ void KScatter(PetscInt n, PetscInt nrhs, const PetscInt *perm, const PetscScalar *y, PetscScalar *x)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n * nrhs; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscInt r = i / n, k = i % n;
    x[perm[k] + r * n] = y[i];
  }
}

/* forward: one block per (column of the level, right-hand side) */
__global__ void KForwardLevel(PetscInt lo, PetscInt hi, PetscInt n, const PetscInt *order, const PetscInt *lcolptr, const PetscInt *lrow, const PetscScalar *lval, PetscScalar *y)
{
  PetscInt t = lo + blockIdx.x;
  if (t >= hi) return;
  PetscInt     j  = order[t];
  PetscScalar *yr = y + (PetscInt)blockIdx.y * n, yj = yr[j];
  if (yj == PetscScalar(0)) return;
  for (PetscInt p = lcolptr[j] + threadIdx.x; p < lcolptr[j + 1]; p += blockDim.x) AtomicAdd(&yr[lrow[p]], -lval[p] * yj);
}

__global__ void KDiag(PetscInt n, PetscInt nrhs, const PetscScalar *d, PetscScalar *y)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n * nrhs; i += (PetscInt)gridDim.x * blockDim.x) y[i] /= d[i % n];
}

/* backward (op(L)^T z = y): one warp per (column of the level, right-hand side) */
__global__ void KBackwardLevel(PetscInt lo, PetscInt hi, PetscInt n, const PetscInt *order, const PetscInt *lcolptr, const PetscInt *lrow, const PetscScalar *lval, bool hermitian, PetscScalar *y)
{
  PetscInt t = lo + blockIdx.x;
  if (t >= hi) return;
  PetscInt     j  = order[t];
  PetscScalar *yr = y + (PetscInt)blockIdx.y * n, s = PetscScalar(0);
  for (PetscInt p = lcolptr[j] + threadIdx.x; p < lcolptr[j + 1]; p += blockDim.x) s += DOp(lval[p], hermitian) * yr[lrow[p]];
  for (int o = 16; o > 0; o /= 2) s += ShflDown(s, o);
  if (threadIdx.x == 0) yr[j] -= s;
}


/* ------------------------------------------------------------------------------- supernodal solve (panels) */
/* Forward, small supernodes of one level, one block each: unit lower diagonal block column by column, then
   y_R -= L21 y_s (atomics: supernodes of a level may share rows R) */
__global__ void KSolveFwdSmall(PetscInt count, const PetscInt *list, const PetscInt *snptr, const PetscInt *nrr, const PetscInt64 *pofs, const PetscInt *lcolptr, const PetscInt *lrow, const PetscScalar *panels, PetscInt n, PetscInt nrhs, PetscScalar *Y)
{
  if ((PetscInt)blockIdx.x >= count) return;
  PetscInt           s = list[blockIdx.x], f = snptr[s], nc = snptr[s + 1] - f, nr = nrr[s], m = nc + nr;
  const PetscScalar *A = panels + pofs[s];
  const PetscInt    *R = lrow + lcolptr[f] + (nc - 1);
  for (PetscInt r = 0; r < nrhs; r++) {
    PetscScalar *y = Y + (PetscInt64)r * n;
    for (PetscInt t = 0; t < nc; t++) {
      __syncthreads();
      PetscScalar yt = y[f + t];
      for (PetscInt u = t + 1 + threadIdx.x; u < nc; u += blockDim.x) y[f + u] -= A[u + (PetscInt64)t * m] * yt;
    }
    __syncthreads();
    for (PetscInt a = threadIdx.x; a < nr; a += blockDim.x) {
      PetscScalar w = PetscScalar(0);
      for (PetscInt t = 0; t < nc; t++) w += A[nc + a + (PetscInt64)t * m] * y[f + t];
      AtomicAdd(&y[R[a]], -w);
    }
    __syncthreads();
  }
}

/* Backward, small supernodes of one level: y_s -= op(L21)^T y_R, then the unit upper op(L11)^T solve from the last row */
__global__ void KSolveBwdSmall(PetscInt count, const PetscInt *list, const PetscInt *snptr, const PetscInt *nrr, const PetscInt64 *pofs, const PetscInt *lcolptr, const PetscInt *lrow, const PetscScalar *panels, bool hermitian, PetscInt n, PetscInt nrhs, PetscScalar *Y)
{
  if ((PetscInt)blockIdx.x >= count) return;
  PetscInt           s = list[blockIdx.x], f = snptr[s], nc = snptr[s + 1] - f, nr = nrr[s], m = nc + nr;
  const PetscScalar *A = panels + pofs[s];
  const PetscInt    *R = lrow + lcolptr[f] + (nc - 1);
  for (PetscInt r = 0; r < nrhs; r++) {
    PetscScalar *y = Y + (PetscInt64)r * n;
    for (PetscInt t = threadIdx.x; t < nc; t += blockDim.x) {
      PetscScalar w = PetscScalar(0);
      for (PetscInt a = 0; a < nr; a++) w += DOp(A[nc + a + (PetscInt64)t * m], hermitian) * y[R[a]];
      y[f + t] -= w;
    }
    for (PetscInt u = nc - 1; u > 0; u--) {
      __syncthreads();
      PetscScalar yu = y[f + u];
      for (PetscInt t = threadIdx.x; t < u; t += blockDim.x) y[f + t] -= DOp(A[u + (PetscInt64)t * m], hermitian) * yu;
    }
    __syncthreads();
  }
}

/* Large supernode s: Y(R, :) -= Tmp (forward) or Tmp = Y(R, :) (backward), Tmp nr x nrhs */
__global__ void KRowsR(PetscInt s, PetscBool gather, const PetscInt *snptr, const PetscInt *nrr, const PetscInt *lcolptr, const PetscInt *lrow, PetscInt n, PetscInt nrhs, PetscScalar *Y, PetscScalar *Tmp)
{
  PetscInt        f = snptr[s], nc = snptr[s + 1] - f, nr = nrr[s];
  const PetscInt *R = lrow + lcolptr[f] + (nc - 1);
  for (PetscInt64 idx = blockIdx.x * (PetscInt64)blockDim.x + threadIdx.x; idx < (PetscInt64)nr * nrhs; idx += (PetscInt64)gridDim.x * blockDim.x) {
    PetscInt a = (PetscInt)(idx % nr), r = (PetscInt)(idx / nr);
    if (gather) Tmp[idx] = Y[R[a] + (PetscInt64)r * n];
    else AtomicAdd(&Y[R[a] + (PetscInt64)r * n], -Tmp[idx]);
  }
}

/* cuBLAS for PetscScalar: D-calls for real, Z-calls for complex (PetscScalar arrays reinterpreted as cuDoubleComplex,
   the same layout). Syrkx computes C = alpha A op(B)^T + beta C (lower): <t>syrkx, or Zherkx when Hermitian (A B^H
   with B = A D, D real, is Hermitian; beta real). OpT(): the transpose of op(), OP_C when Hermitian. */
#if defined(PETSC_USE_COMPLEX)
static inline const cuDoubleComplex *BL(const PetscScalar *p) { return reinterpret_cast<const cuDoubleComplex *>(p); }
static inline cuDoubleComplex       *BL(PetscScalar *p) { return reinterpret_cast<cuDoubleComplex *>(p); }
static inline cublasStatus_t         Trsm(cublasHandle_t h, cublasSideMode_t side, cublasOperation_t op, int m, int n, const PetscScalar *alpha, const PetscScalar *A, int lda, PetscScalar *B, int ldb)
{
  return cublasZtrsm(h, side, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_UNIT, m, n, BL(alpha), BL(A), lda, BL(B), ldb);
}
static inline cublasStatus_t Gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const PetscScalar *alpha, const PetscScalar *A, int lda, const PetscScalar *B, int ldb, const PetscScalar *beta, PetscScalar *C, int ldc)
{
  return cublasZgemm(h, ta, tb, m, n, k, BL(alpha), BL(A), lda, BL(B), ldb, BL(beta), BL(C), ldc);
}
static inline cublasStatus_t Syrkx(cublasHandle_t h, bool hermitian, int n, int k, const PetscScalar *alpha, const PetscScalar *A, int lda, const PetscScalar *B, int ldb, const PetscScalar *beta, PetscScalar *C, int ldc)
{
  if (hermitian) {
    const double rbeta = beta->real();
    return cublasZherkx(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, BL(alpha), BL(A), lda, BL(B), ldb, &rbeta, BL(C), ldc);
  }
  return cublasZsyrkx(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, BL(alpha), BL(A), lda, BL(B), ldb, BL(beta), BL(C), ldc);
}
#else
static inline cublasStatus_t Trsm(cublasHandle_t h, cublasSideMode_t side, cublasOperation_t op, int m, int n, const PetscScalar *alpha, const PetscScalar *A, int lda, PetscScalar *B, int ldb)
{
  return cublasDtrsm(h, side, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_UNIT, m, n, alpha, A, lda, B, ldb);
}
static inline cublasStatus_t Gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const PetscScalar *alpha, const PetscScalar *A, int lda, const PetscScalar *B, int ldb, const PetscScalar *beta, PetscScalar *C, int ldc)
{
  return cublasDgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
static inline cublasStatus_t Syrkx(cublasHandle_t h, bool, int n, int k, const PetscScalar *alpha, const PetscScalar *A, int lda, const PetscScalar *B, int ldb, const PetscScalar *beta, PetscScalar *C, int ldc)
{
  return cublasDsyrkx(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
#endif
static inline cublasOperation_t OpT(PetscBool hermitian) { return hermitian ? CUBLAS_OP_C : CUBLAS_OP_T; }

static PetscErrorCode SolveSupernodal(Data *d, PetscInt nrhs, PetscScalar *y, cudaStream_t st)
{
  const PetscScalar one = PetscScalar(1), mone = PetscScalar(-1), zero = PetscScalar(0);
  const unsigned    T = 256;
  cublasHandle_t    h;
  PetscInt          n = d->n;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  if ((size_t)d->maxnr_large * nrhs > d->stmp.size()) PetscCall(d->stmp.resize((size_t)d->maxnr_large * nrhs));
  for (PetscInt l = 0; l < d->nslevels; l++) {
    PetscInt ns = d->hsmallptr[l + 1] - d->hsmallptr[l];
    if (ns) {
      KSolveFwdSmall<<<(unsigned)ns, 128, 0, st>>>(ns, d->small + d->hsmallptr[l], d->snptr, d->nr, d->pofs, d->lcolptr, d->lrow, d->panels, n, nrhs, y);
      PGXCheckLaunch("KSolveFwdSmall");
    }
    for (PetscInt i = d->hlargeptr[l]; i < d->hlargeptr[l + 1]; i++) {
      PetscInt           s = d->hlarge[i], f = d->hsnptr[s], nc = d->hsnptr[s + 1] - f, nr = d->hnr[s], m = nc + nr;
      const PetscScalar *A = d->panels + d->hpofs[s];
      PGXCallCUBLAS(Trsm(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, (int)nc, (int)nrhs, &one, A, (int)m, y + f, (int)n));
      if (!nr) continue;
      PGXCallCUBLAS(Gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)nr, (int)nrhs, (int)nc, &one, A + nc, (int)m, y + f, (int)n, &zero, d->stmp.data(), (int)nr));
      KRowsR<<<PGXCUDAGridSize((PetscInt)PetscMin((PetscInt64)nr * nrhs, (PetscInt64)1 << 24), T), T, 0, st>>>(s, PETSC_FALSE, d->snptr, d->nr, d->lcolptr, d->lrow, n, nrhs, y, d->stmp.data());
      PGXCheckLaunch("KRowsR");
    }
  }
  KDiag<<<PGXCUDAGridSize(n * nrhs, T), T, 0, st>>>(n, nrhs, d->d, y);
  PGXCheckLaunch("KDiag");
  for (PetscInt l = d->nslevels - 1; l >= 0; l--) {
    PetscInt ns = d->hsmallptr[l + 1] - d->hsmallptr[l];
    if (ns) {
      KSolveBwdSmall<<<(unsigned)ns, 128, 0, st>>>(ns, d->small + d->hsmallptr[l], d->snptr, d->nr, d->pofs, d->lcolptr, d->lrow, d->panels, (bool)d->hermitian, n, nrhs, y);
      PGXCheckLaunch("KSolveBwdSmall");
    }
    for (PetscInt i = d->hlargeptr[l]; i < d->hlargeptr[l + 1]; i++) {
      PetscInt           s = d->hlarge[i], f = d->hsnptr[s], nc = d->hsnptr[s + 1] - f, nr = d->hnr[s], m = nc + nr;
      const PetscScalar *A = d->panels + d->hpofs[s];
      if (nr) {
        KRowsR<<<PGXCUDAGridSize((PetscInt)PetscMin((PetscInt64)nr * nrhs, (PetscInt64)1 << 24), T), T, 0, st>>>(s, PETSC_TRUE, d->snptr, d->nr, d->lcolptr, d->lrow, n, nrhs, y, d->stmp.data());
        PGXCheckLaunch("KRowsR");
        PGXCallCUBLAS(Gemm(h, OpT(d->hermitian), CUBLAS_OP_N, (int)nc, (int)nrhs, (int)nr, &mone, A + nc, (int)m, d->stmp.data(), (int)nr, &one, y + f, (int)n));
      }
      PGXCallCUBLAS(Trsm(h, CUBLAS_SIDE_LEFT, OpT(d->hermitian), (int)nc, (int)nrhs, &one, A, (int)m, y + f, (int)n));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Solve(Data *d, PetscInt nrhs, const Scalar *B, Scalar *X)
{
  cudaStream_t       s;
  const unsigned int T = 128;
  PetscInt           m = d->n * nrhs;
  PetscScalar       *b, *y;

  PetscFunctionBegin;
  if (!m) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(nrhs <= 65535, PETSC_COMM_SELF, PETSC_ERR_SUP, "At most 65535 right-hand sides at once");
  PetscCall(PGXCUDAGetStream(&s));
  if (d->worksize < 2 * m) {
    PetscCall(PGXDeviceFree(&d->work));
    PetscCall(PGXDeviceMallocArray(2 * m, &d->work));
    d->worksize = 2 * m;
  }
  b = d->work;
  y = d->work + m;
  PetscCall(PGXDeviceCopyArrayToDevice(b, B, m));
  KGather<<<PGXCUDAGridSize(m, T), T, 0, s>>>(d->n, nrhs, d->perm, b, y);
  PGXCheckLaunch("KGather");
  if (d->snode) {
    PetscCall(SolveSupernodal(d, nrhs, y, s));
    KScatter<<<PGXCUDAGridSize(m, T), T, 0, s>>>(d->n, nrhs, d->perm, y, b);
    PGXCheckLaunch("KScatter");
    PetscCall(PGXDeviceCopyArrayToHost(X, b, m));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt l = 0; l < d->nlevels; l++) {
    dim3 grid((unsigned int)(d->lptr[l + 1] - d->lptr[l]), (unsigned int)nrhs);
    KForwardLevel<<<grid, 32, 0, s>>>(d->lptr[l], d->lptr[l + 1], d->n, d->order, d->lcolptr, d->lrow, d->lval, y);
    PGXCheckLaunch("KForwardLevel");
  }
  KDiag<<<PGXCUDAGridSize(m, T), T, 0, s>>>(d->n, nrhs, d->d, y);
  PGXCheckLaunch("KDiag");
  for (PetscInt l = d->nlevels - 1; l >= 0; l--) {
    dim3 grid((unsigned int)(d->lptr[l + 1] - d->lptr[l]), (unsigned int)nrhs);
    KBackwardLevel<<<grid, 32, 0, s>>>(d->lptr[l], d->lptr[l + 1], d->n, d->order, d->lcolptr, d->lrow, d->lval, (bool)d->hermitian, y);
    PGXCheckLaunch("KBackwardLevel");
  }
  KScatter<<<PGXCUDAGridSize(m, T), T, 0, s>>>(d->n, nrhs, d->perm, y, b);
  PGXCheckLaunch("KScatter");
  PetscCall(PGXDeviceCopyArrayToHost(X, b, m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- supernodal method */
PetscErrorCode AnalyzeSupernodal(Data *d, const symbolic::SupernodalPlan *P, PetscInt large_min, PetscInt nb, size_t maxbytes)
{
  size_t freeb, totalb, need, ncbuf = 0, nwbuf = 0, nseg = P->segsn.size();

  PetscFunctionBegin;
  PetscCheck(P->n == d->n && P->nnzA == d->nnzA && P->nnzL == d->nnzL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The supernodal plan does not match the analyzed structure");
  PetscCheck(nb >= 1 && nb <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Block size %" PetscInt_FMT " must be in [1, 64]", nb);
  d->nsuper    = P->nsuper;
  d->nslevels  = P->nslevels;
  d->large_min = large_min;
  d->nb        = nb;
  d->npanel    = P->pofs[P->nsuper];
  d->hsnptr    = P->snptr;
  d->hnr       = P->nr;
  d->hpofs     = P->pofs;
  /* per level: the small supernodes (one launch) and the large ones (one after the other) */
  std::vector<PetscInt> hsmall;
  d->hsmallptr.assign(1, 0);
  d->hlarge.clear();
  d->hlargeptr.assign(1, 0);
  for (PetscInt l = 0; l < P->nslevels; l++) {
    for (PetscInt i = P->slptr[l]; i < P->slptr[l + 1]; i++) {
      PetscInt s = P->sorder[i], nc = P->snptr[s + 1] - P->snptr[s], nr = P->nr[s], m = nc + nr;
      if (symbolic::SupernodalIsLarge(nc, nr, large_min)) {
        d->hlarge.push_back(s);
        d->maxnr_large = PetscMax(d->maxnr_large, nr);
        ncbuf = PetscMax(ncbuf, (size_t)nr * nr);
        nwbuf = PetscMax(nwbuf, PetscMax((size_t)nr * nc, (size_t)m * PetscMin(nb, nc)));
      } else hsmall.push_back(s);
    }
    d->hsmallptr.push_back((PetscInt)hsmall.size());
    d->hlargeptr.push_back((PetscInt)d->hlarge.size());
  }
  need = sizeof(PetscScalar) * ((size_t)d->npanel + ncbuf + nwbuf) + sizeof(PetscInt64) * ((size_t)P->nnzA + P->nsuper + 1 + nseg) + sizeof(PetscInt) * ((size_t)3 * P->nsuper + 2 + P->n + 2 * nseg + P->relmap.size() + hsmall.size());
  PGXCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  if (maxbytes > 0) freeb = PetscMin(freeb, maxbytes);
  PetscCheck(need < freeb, PETSC_COMM_SELF, PETSC_ERR_MEM, "MATSOLVERPGX: the supernodal factorization needs %zu bytes more of GPU memory (panels %zu, contribution buffer %zu, work %zu, maps %zu); %zu bytes are free. Use -mat_pgx_ldlt_method column or -pgx_device host", need, sizeof(PetscScalar) * (size_t)d->npanel, sizeof(PetscScalar) * ncbuf, sizeof(PetscScalar) * nwbuf, need - sizeof(PetscScalar) * ((size_t)d->npanel + ncbuf + nwbuf), freeb);
  PetscCall(PGXDeviceMallocArray(P->nsuper + 1, &d->snptr));
  PetscCall(PGXDeviceMallocArray(P->nsuper + 1, &d->nr));
  PetscCall(PGXDeviceMallocArray(P->n + 1, &d->sup));
  PetscCall(PGXDeviceMallocArray(P->nsuper + 1, &d->segptr));
  PetscCall(PGXDeviceMallocArray(nseg + 1, &d->segsn));
  PetscCall(PGXDeviceMallocArray(nseg + 1, &d->segb0));
  PetscCall(PGXDeviceMallocArray(P->relmap.size() + 1, &d->relmap));
  PetscCall(PGXDeviceMallocArray(hsmall.size() + 1, &d->small));
  PetscCall(PGXDeviceMallocArray(P->nsuper + 1, &d->pofs));
  PetscCall(PGXDeviceMallocArray(nseg + 1, &d->segrel));
  PetscCall(PGXDeviceMallocArray(P->nnzA + 1, &d->pdest));
  PetscCall(PGXDeviceMallocArray(d->npanel + 1, &d->panels));
  PetscCall(PGXDeviceMallocArray(ncbuf + 1, &d->cbuf));
  PetscCall(PGXDeviceMallocArray(nwbuf + 1, &d->wbuf));
  PetscCall(PGXDeviceCopyArrayToDevice(d->snptr, P->snptr.data(), P->nsuper + 1));
  if (P->nsuper) PetscCall(PGXDeviceCopyArrayToDevice(d->nr, P->nr.data(), P->nsuper));
  if (P->n) PetscCall(PGXDeviceCopyArrayToDevice(d->sup, P->sup.data(), P->n));
  PetscCall(PGXDeviceCopyArrayToDevice(d->segptr, P->segptr.data(), P->nsuper + 1));
  if (nseg) {
    PetscCall(PGXDeviceCopyArrayToDevice(d->segsn, P->segsn.data(), nseg));
    PetscCall(PGXDeviceCopyArrayToDevice(d->segb0, P->segb0.data(), nseg));
    PetscCall(PGXDeviceCopyArrayToDevice(d->segrel, P->segrel.data(), nseg));
  }
  if (P->relmap.size()) PetscCall(PGXDeviceCopyArrayToDevice(d->relmap, P->relmap.data(), P->relmap.size()));
  if (hsmall.size()) PetscCall(PGXDeviceCopyArrayToDevice(d->small, hsmall.data(), hsmall.size()));
  PetscCall(PGXDeviceCopyArrayToDevice(d->pofs, P->pofs.data(), P->nsuper + 1));
  if (P->nnzA) PetscCall(PGXDeviceCopyArrayToDevice(d->pdest, P->pdest.data(), P->nnzA));
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ void KZero64(PetscInt64 m, PetscScalar *x)
{
  for (PetscInt64 i = blockIdx.x * (PetscInt64)blockDim.x + threadIdx.x; i < m; i += (PetscInt64)gridDim.x * blockDim.x) x[i] = 0;
}

__global__ void KLoadPanels(PetscInt nnzA, const PetscScalar *aval, const PetscInt64 *pdest, PetscScalar *panels)
{
  for (PetscInt k = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; k < nnzA; k += (PetscInt)gridDim.x * blockDim.x)
    if (pdest[k] >= 0) AtomicAdd(&panels[pdest[k]], aval[k]);
}

/* Small supernodes of one level, one thread block each: the operation order of reference::FactorSupernodal */
__global__ void KSmallLevel(PetscInt count, const PetscInt *list, const PetscInt *snptr, const PetscInt *nrr, const PetscInt64 *pofs, const PetscInt *lcolptr, const PetscInt *lrow, const PetscInt *segptr, const PetscInt *segsn, const PetscInt *segb0, const PetscInt64 *segrel, const PetscInt *relmap, PetscReal small, PetscReal repl, bool hermitian, PetscScalar *panels, unsigned long long *flags)
{
  if ((PetscInt)blockIdx.x >= count) return;
  PetscInt        s = list[blockIdx.x], f = snptr[s], nc = snptr[s + 1] - f, nr = nrr[s], m = nc + nr;
  PetscScalar    *A = panels + pofs[s];
  const PetscInt *R = lrow + lcolptr[f] + (nc - 1);
  for (PetscInt t = 0; t < nc; t++) {
    if (threadIdx.x == 0) (void)PivotDev(f + t, &A[t + t * m], small, repl, hermitian, flags); /* a bad pivot is recorded and left: the panel goes on */
    __syncthreads();
    PetscScalar dt = A[t + t * m];
    for (PetscInt u = t + 1 + threadIdx.x; u < m; u += blockDim.x) A[u + t * m] /= dt;
    __syncthreads();
    PetscInt64 ncol = nc - t - 1, nrow = m - t - 1;
    for (PetscInt64 idx = threadIdx.x; idx < ncol * nrow; idx += blockDim.x) {
      PetscInt t2 = t + 1 + (PetscInt)(idx / nrow), u = t + 1 + (PetscInt)(idx % nrow);
      if (u >= t2) {
        PetscScalar g = dt * DOp(A[t2 + t * m], hermitian);
        A[u + t2 * m] -= A[u + t * m] * g;
      }
    }
    __syncthreads();
  }
  /* C(R_a, R_b) -= sum_t L(a,t) d_t op(L(b,t)), a >= b, into the ancestors' panels */
  for (PetscInt k = segptr[s]; k < segptr[s + 1]; k++) {
    PetscInt        p = segsn[k], b0 = segb0[k], b1 = k + 1 < segptr[s + 1] ? segb0[k + 1] : nr, fp = snptr[p], mp = snptr[p + 1] - fp + nrr[p];
    PetscScalar    *T   = panels + pofs[p];
    const PetscInt *rel = relmap + segrel[k];
    PetscInt64      na = nr - b0;
    for (PetscInt64 idx = threadIdx.x; idx < (PetscInt64)(b1 - b0) * na; idx += blockDim.x) {
      PetscInt b = b0 + (PetscInt)(idx / na), a = b0 + (PetscInt)(idx % na);
      if (a < b) continue;
      PetscScalar w = PetscScalar(0);
      for (PetscInt t = 0; t < nc; t++) w += A[nc + a + t * m] * A[t + t * m] * DOp(A[nc + b + t * m], hermitian);
      AtomicAdd(&T[rel[a - b0] + (PetscInt64)(R[b] - fp) * mp], -w);
    }
  }
}

/* Diagonal block kb x kb (kb <= 64) at (k0, k0) of a panel (leading dimension m), in dynamic shared memory of
   kb * kb scalars (64 KB for complex kb = 64: FactorSupernodal raises the kernel's limit) */
__global__ void KDiagBlock(PetscScalar *A, PetscInt m, PetscInt k0, PetscInt kb, PetscInt col0, PetscReal small, PetscReal repl, bool hermitian, unsigned long long *flags)
{
  extern __shared__ __align__(16) unsigned char kdiag_smem[];
  PetscScalar *T = reinterpret_cast<PetscScalar *>(kdiag_smem);
  for (PetscInt idx = threadIdx.x; idx < kb * kb; idx += blockDim.x) {
    PetscInt i = idx % kb, j = idx / kb;
    T[i + j * kb] = A[(k0 + i) + (PetscInt64)(k0 + j) * m];
  }
  __syncthreads();
  for (PetscInt t = 0; t < kb; t++) {
    if (threadIdx.x == 0) (void)PivotDev(col0 + t, &T[t + t * kb], small, repl, hermitian, flags);
    __syncthreads();
    PetscScalar dt = T[t + t * kb];
    for (PetscInt u = t + 1 + threadIdx.x; u < kb; u += blockDim.x) T[u + t * kb] /= dt;
    __syncthreads();
    PetscInt nrow = kb - t - 1;
    for (PetscInt idx = threadIdx.x; idx < nrow * nrow; idx += blockDim.x) {
      PetscInt t2 = t + 1 + idx / nrow, u = t + 1 + idx % nrow;
      if (u >= t2) {
        PetscScalar g = dt * DOp(T[t2 + t * kb], hermitian);
        T[u + t2 * kb] -= T[u + t * kb] * g;
      }
    }
    __syncthreads();
  }
  for (PetscInt idx = threadIdx.x; idx < kb * kb; idx += blockDim.x) {
    PetscInt i = idx % kb, j = idx / kb;
    if (i >= j) A[(k0 + i) + (PetscInt64)(k0 + j) * m] = T[i + j * kb];
  }
}

/* A(r0:m, k0:k0+kb) /= d (the diagonal of those columns) */
__global__ void KScaleCols(PetscScalar *A, PetscInt m, PetscInt r0, PetscInt k0, PetscInt kb)
{
  PetscInt64 mr = m - r0;
  for (PetscInt64 idx = blockIdx.x * (PetscInt64)blockDim.x + threadIdx.x; idx < mr * kb; idx += (PetscInt64)gridDim.x * blockDim.x) {
    PetscInt u = r0 + (PetscInt)(idx % mr), t = k0 + (PetscInt)(idx / mr);
    A[u + (PetscInt64)t * m] /= A[t + (PetscInt64)t * m];
  }
}

/* W(a, t) = L(nc + a, t) d_t, nr x nc (leading dimension nr) */
__global__ void KScaleRowsD(const PetscScalar *A, PetscInt m, PetscInt nc, PetscInt nr, PetscScalar *W)
{
  for (PetscInt64 idx = blockIdx.x * (PetscInt64)blockDim.x + threadIdx.x; idx < (PetscInt64)nr * nc; idx += (PetscInt64)gridDim.x * blockDim.x) {
    PetscInt a = (PetscInt)(idx % nr), t = (PetscInt)(idx / nr);
    W[idx] = A[nc + a + (PetscInt64)t * m] * A[t + (PetscInt64)t * m];
  }
}

/* Scatter-add of the contribution C (lower, nr x nr) of supernode s into its ancestors: one block per column b */
__global__ void KScatterLarge(PetscInt s, const PetscScalar *C, const PetscInt *snptr, const PetscInt *nrr, const PetscInt64 *pofs, const PetscInt *lcolptr, const PetscInt *lrow, const PetscInt *segptr, const PetscInt *segsn, const PetscInt *segb0, const PetscInt64 *segrel, const PetscInt *relmap, PetscScalar *panels)
{
  PetscInt f = snptr[s], nc = snptr[s + 1] - f, nr = nrr[s], b = blockIdx.x;
  if (b >= nr) return;
  PetscInt lo = segptr[s], hi = segptr[s + 1] - 1; /* the segment holding b: the last one with b0 <= b */
  while (lo < hi) {
    PetscInt mid = (lo + hi + 1) / 2;
    if (segb0[mid] <= b) lo = mid;
    else hi = mid - 1;
  }
  PetscInt        k = lo, p = segsn[k], b0 = segb0[k], fp = snptr[p], mp = snptr[p + 1] - fp + nrr[p];
  const PetscInt *R   = lrow + lcolptr[f] + (nc - 1);
  const PetscInt *rel = relmap + segrel[k];
  PetscScalar    *T   = panels + pofs[p] + (PetscInt64)(R[b] - fp) * mp;
  for (PetscInt a = b + threadIdx.x; a < nr; a += blockDim.x) AtomicAdd(&T[rel[a - b0]], -C[a + (PetscInt64)b * nr]);
}

/* Panels to the CSC arrays: one block per column */
__global__ void KPanelsToCSC(PetscInt n, const PetscInt *sup, const PetscInt *snptr, const PetscInt *nrr, const PetscInt64 *pofs, const PetscInt *lcolptr, const PetscScalar *panels, PetscScalar *lval, PetscScalar *d)
{
  PetscInt j = blockIdx.x;
  if (j >= n) return;
  PetscInt           s = sup[j], f = snptr[s], m = snptr[s + 1] - f + nrr[s], t = j - f;
  const PetscScalar *A = panels + pofs[s] + (PetscInt64)t * m;
  if (threadIdx.x == 0) d[j] = A[t];
  for (PetscInt k = threadIdx.x; k < lcolptr[j + 1] - lcolptr[j]; k += blockDim.x) lval[lcolptr[j] + k] = A[t + 1 + k];
}

/* One large supernode: blocked LDL^T of its panel, then its contribution to the ancestors */
static PetscErrorCode FactorLarge(Data *d, PetscInt s, const PivotRule *rule, cudaStream_t st, cublasHandle_t h, std::vector<cudaEvent_t> *ev)
{
  const PetscScalar one = PetscScalar(1), mone = PetscScalar(-1), zero = PetscScalar(0);
  PetscInt          f = d->hsnptr[s], nc = d->hsnptr[s + 1] - f, nr = d->hnr[s], m = nc + nr;
  PetscScalar      *A = d->panels + d->hpofs[s];
  const unsigned    T = 256;
  const bool        herm = rule->hermitian;

  PetscFunctionBegin;
  for (PetscInt k0 = 0; k0 < nc; k0 += d->nb) {
    PetscInt kb = PetscMin(d->nb, nc - k0), r0 = k0 + kb, mr = m - r0, nt = nc - r0;
    KDiagBlock<<<1, T, (size_t)kb * kb * sizeof(PetscScalar), st>>>(A, m, k0, kb, f + k0, rule->small, rule->repl, herm, d->flags);
    PGXCheckLaunch("KDiagBlock");
    if (!mr) continue;
    /* X op(L11)^T = A21 */
    PGXCallCUBLAS(Trsm(h, CUBLAS_SIDE_RIGHT, OpT(rule->hermitian), (int)mr, (int)kb, &one, A + k0 + (size_t)k0 * m, (int)m, A + r0 + (size_t)k0 * m, (int)m));
    PGXCallCUDA(cudaMemcpy2DAsync(d->wbuf, (size_t)mr * sizeof(PetscScalar), A + r0 + (size_t)k0 * m, (size_t)m * sizeof(PetscScalar), (size_t)mr * sizeof(PetscScalar), (size_t)kb, cudaMemcpyDeviceToDevice, st));
    KScaleCols<<<PGXCUDAGridSize((PetscInt)PetscMin((PetscInt64)mr * kb, (PetscInt64)1 << 24), T), T, 0, st>>>(A, m, r0, k0, kb);
    PGXCheckLaunch("KScaleCols");
    if (!nt) continue;
    /* trailing columns: A(u, c) -= sum_t L(u, t) op(W(c, t)) */
    PGXCallCUBLAS(Syrkx(h, herm, (int)nt, (int)kb, &mone, A + r0 + (size_t)k0 * m, (int)m, d->wbuf, (int)mr, &one, A + r0 + (size_t)r0 * m, (int)m));
    if (nr) PGXCallCUBLAS(Gemm(h, CUBLAS_OP_N, OpT(rule->hermitian), (int)nr, (int)nt, (int)kb, &mone, A + nc + (size_t)k0 * m, (int)m, d->wbuf, (int)mr, &one, A + nc + (size_t)r0 * m, (int)m));
  }
  if (!nr) PetscFunctionReturn(PETSC_SUCCESS);
  if (ev) {
    ev->emplace_back();
    PGXCallCUDA(cudaEventCreate(&ev->back()));
    PGXCallCUDA(cudaEventRecord(ev->back(), st));
  }
  KScaleRowsD<<<PGXCUDAGridSize((PetscInt)PetscMin((PetscInt64)nr * nc, (PetscInt64)1 << 24), T), T, 0, st>>>(A, m, nc, nr, d->wbuf);
  PGXCheckLaunch("KScaleRowsD");
  PGXCallCUBLAS(Syrkx(h, herm, (int)nr, (int)nc, &one, A + nc, (int)m, d->wbuf, (int)nr, &zero, d->cbuf, (int)nr)); /* C = L21 op(W)^T */
  KScatterLarge<<<(unsigned)nr, 128, 0, st>>>(s, d->cbuf, d->snptr, d->nr, d->pofs, d->lcolptr, d->lrow, d->segptr, d->segsn, d->segb0, d->segrel, d->relmap, d->panels);
  PGXCheckLaunch("KScatterLarge");
  if (ev) {
    ev->emplace_back();
    PGXCallCUDA(cudaEventCreate(&ev->back()));
    PGXCallCUDA(cudaEventRecord(ev->back(), st));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FactorSupernodal(Data *d, const Scalar *aval, const PivotRule *rule, NumericInfo *info)
{
  cudaStream_t       st;
  cublasHandle_t     h;
  const unsigned int B = 256;
  unsigned long long hflags[2] = {0, (unsigned long long)d->n};

  PetscFunctionBegin;
  PetscCheck(d->panels, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The supernodal method needs AnalyzeSupernodal() first");
  PetscCall(PGXCUDAGetStream(&st));
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  if (!d->hlarge.empty() && (size_t)d->nb * d->nb * sizeof(PetscScalar) > 48 * 1024) PGXCallCUDA(cudaFuncSetAttribute(KDiagBlock, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)((size_t)d->nb * d->nb * sizeof(PetscScalar))));
  if (d->nnzA) PetscCall(PGXDeviceCopyArrayToDevice(d->aval, aval, d->nnzA));
  PetscCall(PGXDeviceCopyArrayToDevice(d->flags, hflags, 2));
  KZero64<<<PGXCUDAGridSize((PetscInt)PetscMin(d->npanel + 1, (PetscInt64)1 << 24), B), B, 0, st>>>(d->npanel, d->panels);
  PGXCheckLaunch("KZero64");
  if (d->nnzA) {
    KLoadPanels<<<PGXCUDAGridSize(d->nnzA, B), B, 0, st>>>(d->nnzA, d->aval, d->pdest, d->panels);
    PGXCheckLaunch("KLoadPanels");
  }
  /* with -info: GPU times of the small supernodes, the large ones, and the contributions of the large ones */
  PetscBool                timing = PETSC_FALSE;
  std::vector<cudaEvent_t> lev, cev;
  PetscCall(PetscInfoEnabled(MAT_CLASSID, &timing));
  if (timing) {
    lev.resize(2 * d->nslevels + 1);
    for (auto &e : lev) PGXCallCUDA(cudaEventCreate(&e));
  }
  for (PetscInt l = 0; l < d->nslevels; l++) {
    PetscInt ns = d->hsmallptr[l + 1] - d->hsmallptr[l];
    if (timing) PGXCallCUDA(cudaEventRecord(lev[2 * l], st));
    if (ns) {
      KSmallLevel<<<(unsigned)ns, 128, 0, st>>>(ns, d->small + d->hsmallptr[l], d->snptr, d->nr, d->pofs, d->lcolptr, d->lrow, d->segptr, d->segsn, d->segb0, d->segrel, d->relmap, rule->small, rule->repl, (bool)rule->hermitian, d->panels, d->flags);
      PGXCheckLaunch("KSmallLevel");
    }
    if (timing) PGXCallCUDA(cudaEventRecord(lev[2 * l + 1], st));
    for (PetscInt i = d->hlargeptr[l]; i < d->hlargeptr[l + 1]; i++) PetscCall(FactorLarge(d, d->hlarge[i], rule, st, h, timing ? &cev : nullptr));
  }
  if (timing) {
    float  ms, tsmall = 0, tlarge = 0, tcontrib = 0;
    PGXCallCUDA(cudaEventRecord(lev[2 * d->nslevels], st));
    PGXCallCUDA(cudaEventSynchronize(lev[2 * d->nslevels]));
    for (PetscInt l = 0; l < d->nslevels; l++) {
      PGXCallCUDA(cudaEventElapsedTime(&ms, lev[2 * l], lev[2 * l + 1]));
      tsmall += ms;
      PGXCallCUDA(cudaEventElapsedTime(&ms, lev[2 * l + 1], lev[2 * l + 2]));
      tlarge += ms;
    }
    for (size_t i = 0; i + 1 < cev.size(); i += 2) {
      PGXCallCUDA(cudaEventElapsedTime(&ms, cev[i], cev[i + 1]));
      tcontrib += ms;
    }
    PetscCall(PetscInfo(NULL, "supernodal numeric on the GPU: %" PetscInt_FMT " levels, small supernodes %.4f s (%" PetscInt_FMT " of them), large ones %.4f s (%zu of them; their contribution blocks and scatter-adds %.4f s)\n", d->nslevels, (double)tsmall / 1e3, d->hsmallptr[d->nslevels], (double)tlarge / 1e3, d->hlarge.size(), (double)tcontrib / 1e3));
    for (auto &e : lev) PGXCallCUDA(cudaEventDestroy(e));
    for (auto &e : cev) PGXCallCUDA(cudaEventDestroy(e));
  }
  if (d->n) {
    KPanelsToCSC<<<(unsigned)d->n, 64, 0, st>>>(d->n, d->sup, d->snptr, d->nr, d->pofs, d->lcolptr, d->panels, d->lval, d->d);
    PGXCheckLaunch("KPanelsToCSC");
  }
  PetscCall(PGXDeviceCopyArrayToHost(hflags, d->flags, 2)); /* synchronizes the stream */
  info->nperturbed = (PetscInt)hflags[0];
  info->badcol     = hflags[1] < (unsigned long long)d->n ? (PetscInt)hflags[1] : -1;
  info->badvalue   = Scalar(0);
  info->flops      = 0;
  d->snode         = PETSC_TRUE;
  d->hermitian     = rule->hermitian;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetFactor(const Data *d, Scalar *lval, Scalar *dd)
{
  PetscFunctionBegin;
  if (lval && d->nnzL) PetscCall(PGXDeviceCopyArrayToHost(lval, d->lval, d->nnzL));
  if (dd && d->n) PetscCall(PGXDeviceCopyArrayToHost(dd, d->d, d->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace cuda
} // namespace ldlt
} // namespace kernels
} // namespace pgx
