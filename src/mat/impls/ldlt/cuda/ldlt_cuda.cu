/* Sparse LDL^T cuda backend (see ldlt_kernels.h for the mathematics): the level-scheduled right-looking column
   algorithm of Chen and Wang. One launch per level of the elimination tree; one thread block per column of the
   level: thread 0 applies the static pivoting rule to d_j, the block scales the column, then each thread takes
   one k in struct(L_*j) and applies c_ik -= l_ij d_j l_kj for the i > k of the column (merge scan of the two
   sorted row lists); columns of one level may update the same entries: atomicAdd. The solves use the same
   level sets (forward: increasing levels, scatter with atomics; backward: decreasing levels, gathers), all
   right-hand sides at once (grid.y). Real double only (atomicAdd on double). Everything runs on
   PGXCUDAGetStream(); every call and launch is checked. */
#include <pgx/private/pgxcuda.h>
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

#if !defined(PETSC_USE_COMPLEX) /* real double only: atomicAdd on double; the glue refuses cuda in a complex build */
__global__ void KZero(PetscInt m, PetscScalar *x)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < m; i += (PetscInt)gridDim.x * blockDim.x) x[i] = 0;
}

__global__ void KLoad(PetscInt nnzA, PetscInt nnzL, const PetscScalar *aval, const PetscInt *dest, PetscScalar *lval, PetscScalar *d)
{
  for (PetscInt k = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; k < nnzA; k += (PetscInt)gridDim.x * blockDim.x) {
    PetscInt t = dest[k];
    if (t < 0) continue;
    if (t >= nnzL) atomicAdd(&d[t - nnzL], aval[k]);
    else atomicAdd(&lval[t], aval[k]);
  }
}

/* One block per column of the level */
__global__ void KFactorLevel(PetscInt lo, PetscInt hi, const PetscInt *order, const PetscInt *lcolptr, const PetscInt *lrow, PetscReal small, PetscReal repl, PetscScalar *lval, PetscScalar *d, unsigned long long *flags)
{
  __shared__ PetscScalar dj;
  __shared__ int         ok;
  PetscInt               t = lo + blockIdx.x;
  if (t >= hi) return;
  PetscInt j = order[t], p0 = lcolptr[j], p1 = lcolptr[j + 1];
  if (threadIdx.x == 0) {
    PetscScalar v  = d[j];
    PetscReal   av = fabs(v);
    ok             = 1;
    if (!isfinite(v) || (av == 0 && repl == 0)) {
      ok = 0;
      atomicMin(&flags[1], (unsigned long long)j);
    } else if (av <= small && repl > 0) {
      v = av == 0 ? repl : (v > 0 ? repl : -repl);
      atomicAdd(&flags[0], 1ULL);
    }
    d[j] = v;
    dj   = v;
  }
  __syncthreads();
  if (!ok) return;
  for (PetscInt p = p0 + threadIdx.x; p < p1; p += blockDim.x) lval[p] /= dj;
  __syncthreads();
  for (PetscInt pb = p0 + threadIdx.x; pb < p1; pb += blockDim.x) {
    PetscInt    k = lrow[pb], q = lcolptr[k];
    PetscScalar f = dj * lval[pb];
    atomicAdd(&d[k], -lval[pb] * f);
    for (PetscInt pa = pb + 1; pa < p1; pa++) {
      PetscInt i = lrow[pa];
      while (lrow[q] != i) q++;
      atomicAdd(&lval[q], -lval[pa] * f);
    }
  }
}

#endif

PetscErrorCode FactorColumn(Data *d, const PetscScalar *aval, const PivotRule *rule, NumericInfo *info)
{
  cudaStream_t       s;
  const unsigned int B = 128;
  unsigned long long hflags[2] = {0, (unsigned long long)d->n};

  PetscFunctionBegin;
#if defined(PETSC_USE_COMPLEX)
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda LDL^T backend is real only");
#else
  PetscCheck(!rule->hermitian, PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda LDL^T backend is real only");
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
    KFactorLevel<<<(unsigned int)(hi - lo), B, 0, s>>>(lo, hi, d->order, d->lcolptr, d->lrow, rule->small, rule->repl, d->lval, d->d, d->flags);
    PGXCheckLaunch("KFactorLevel");
  }
  PetscCall(PGXDeviceCopyArrayToHost(hflags, d->flags, 2));
  info->nperturbed = (PetscInt)hflags[0];
  info->badcol     = hflags[1] < (unsigned long long)d->n ? (PetscInt)hflags[1] : -1;
  info->badvalue   = 0;
  info->flops      = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
#endif
}

#if !defined(PETSC_USE_COMPLEX)
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
  if (yj == 0) return;
  for (PetscInt p = lcolptr[j] + threadIdx.x; p < lcolptr[j + 1]; p += blockDim.x) atomicAdd(&yr[lrow[p]], -lval[p] * yj);
}

__global__ void KDiag(PetscInt n, PetscInt nrhs, const PetscScalar *d, PetscScalar *y)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n * nrhs; i += (PetscInt)gridDim.x * blockDim.x) y[i] /= d[i % n];
}

/* backward: one warp per (column of the level, right-hand side) */
__global__ void KBackwardLevel(PetscInt lo, PetscInt hi, PetscInt n, const PetscInt *order, const PetscInt *lcolptr, const PetscInt *lrow, const PetscScalar *lval, PetscScalar *y)
{
  PetscInt t = lo + blockIdx.x;
  if (t >= hi) return;
  PetscInt     j  = order[t];
  PetscScalar *yr = y + (PetscInt)blockIdx.y * n, s = 0;
  for (PetscInt p = lcolptr[j] + threadIdx.x; p < lcolptr[j + 1]; p += blockDim.x) s += lval[p] * yr[lrow[p]];
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x == 0) yr[j] -= s;
}

#endif

PetscErrorCode Solve(Data *d, PetscInt nrhs, const PetscScalar *B, PetscScalar *X)
{
  cudaStream_t       s;
  const unsigned int T = 128;
  PetscInt           m = d->n * nrhs;
  PetscScalar       *b, *y;

  PetscFunctionBegin;
#if defined(PETSC_USE_COMPLEX)
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda LDL^T backend is real only");
#else
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
  for (PetscInt l = 0; l < d->nlevels; l++) {
    dim3 grid((unsigned int)(d->lptr[l + 1] - d->lptr[l]), (unsigned int)nrhs);
    KForwardLevel<<<grid, 32, 0, s>>>(d->lptr[l], d->lptr[l + 1], d->n, d->order, d->lcolptr, d->lrow, d->lval, y);
    PGXCheckLaunch("KForwardLevel");
  }
  KDiag<<<PGXCUDAGridSize(m, T), T, 0, s>>>(d->n, nrhs, d->d, y);
  PGXCheckLaunch("KDiag");
  for (PetscInt l = d->nlevels - 1; l >= 0; l--) {
    dim3 grid((unsigned int)(d->lptr[l + 1] - d->lptr[l]), (unsigned int)nrhs);
    KBackwardLevel<<<grid, 32, 0, s>>>(d->lptr[l], d->lptr[l + 1], d->n, d->order, d->lcolptr, d->lrow, d->lval, y);
    PGXCheckLaunch("KBackwardLevel");
  }
  KScatter<<<PGXCUDAGridSize(m, T), T, 0, s>>>(d->n, nrhs, d->perm, y, b);
  PGXCheckLaunch("KScatter");
  PetscCall(PGXDeviceCopyArrayToHost(X, b, m));
  PetscFunctionReturn(PETSC_SUCCESS);
#endif
}

PetscErrorCode GetFactor(const Data *d, PetscScalar *lval, PetscScalar *dd)
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
