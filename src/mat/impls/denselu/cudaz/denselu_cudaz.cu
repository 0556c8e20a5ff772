/* cuda backend of the dense LU with complex scalars (denselu_kernels.h, namespace cudaz): built with a complex PETSc
   (the makefile's CUDA_COMPLEX_SRC); with a real PETSc this file is empty and the real backend (../cuda) serves.

   Factor: A uploaded through PGXCUDACopy2D (pinned staging for large pageable copies), one pass on the device for
   NaN/Inf (FiniteKernelZ; nothing is factored when it finds one), cusolverDnZgetrf in place (partial pivoting,
   first largest |re| + |im|: LAPACK's zgetrf) queued behind the check, one synchronization for both flags. Solve: the right-hand sides uploaded,
   cusolverDnZgetrs (CUBLAS_OP_N, or CUBLAS_OP_T for A^T x = b), downloaded. The handle is this object's own, on
   PGX's stream. Every call is checked (PGXCall*, PGXCheckLaunch). */
#include <pgx/private/pgxcuda.h>
#include "../denselu_kernels.h"

#if defined(PETSC_USE_COMPLEX)
  #include <climits>

namespace pgx
{
namespace kernels
{
namespace denselu
{
namespace cudaz
{
static_assert(sizeof(Scalar) == sizeof(cuDoubleComplex) && sizeof(PetscScalar) == sizeof(cuDoubleComplex), "complex PetscScalar must be double complex for the cuda backend");

struct Data {
  PetscInt                                n  = 0;
  cusolverDnHandle_t                      hs = nullptr;
  pgx::cuda::DeviceArray<cuDoubleComplex> LU;   /* the factors, leading dimension n */
  pgx::cuda::DeviceArray<cuDoubleComplex> X;    /* solve workspace, n x nrhs */
  pgx::cuda::DeviceArray<cuDoubleComplex> work; /* cusolverDnZgetrf's workspace */
  pgx::cuda::DeviceArray<int>             ipiv; /* cuSOLVER's 1-based pivots */
  pgx::cuda::DeviceArray<int>             info; /* [0] getrf's info, [1] a non-finite entry seen, [2] getrs's info */
};

/* flag[0] = 1 when an entry of the nn values of a has a non-finite real or imaginary part */
__global__ void FiniteKernelZ(size_t nn, const cuDoubleComplex *a, int *flag)
{
  bool bad = false;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nn; i += (size_t)gridDim.x * blockDim.x) {
    const cuDoubleComplex v = a[i];
    bad |= !isfinite(v.x) || !isfinite(v.y);
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicExch(flag, 1);
}

PetscErrorCode Create(Data **d)
{
  PetscFunctionBegin;
  *d = new Data;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Destroy(Data **d)
{
  PetscFunctionBegin;
  if (!*d) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*d)->hs) PGXCallCUSOLVER(cusolverDnDestroy((*d)->hs));
  delete *d;
  *d = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Factor(Data *d, PetscInt n, const Scalar *a, PetscInt lda, PetscInt *zerocol, PetscBool *finite)
{
  cudaStream_t s;
  int          lwork = 0, hinfo[2];

  PetscFunctionBegin;
  PetscCheck(n >= 0 && n <= INT_MAX && lda >= PetscMax(1, n), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cudaz: n %" PetscInt_FMT ", lda %" PetscInt_FMT " (need 0 <= n <= INT_MAX, lda >= max(1, n))", n, lda);
  PetscCall(PGXCUDAGetStream(&s));
  *zerocol = -1;
  *finite  = PETSC_TRUE;
  d->n     = n;
  if (!d->hs) { /* the first use of cuSOLVER loads it (pgxcudalibs.h) */
    PetscCall(PGXCUDALibCheck(PGX_CUDALIB_CUSOLVER));
    PGXCallCUSOLVER(cusolverDnCreate(&d->hs));
  }
  PGXCallCUSOLVER(cusolverDnSetStream(d->hs, s));
  /* buffers first: cudaMalloc synchronizes */
  PetscCall(d->LU.resize((size_t)n * n));
  PetscCall(d->ipiv.resize((size_t)PetscMax(n, 1)));
  PetscCall(d->info.resize(3));
  if (n) PGXCallCUSOLVER(cusolverDnZgetrf_bufferSize(d->hs, (int)n, (int)n, d->LU.data(), (int)n, &lwork));
  if (d->work.size() < (size_t)PetscMax(lwork, 1)) PetscCall(d->work.resize((size_t)PetscMax(lwork, 1)));
  PGXCallCUDA(cudaMemsetAsync(d->info.data(), 0, 3 * sizeof(int), s));
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, d->LU.data(), (void *)a, (size_t)n * sizeof(Scalar), (size_t)n, (size_t)lda * sizeof(Scalar), s, PETSC_FALSE));
  {
    const size_t nn = (size_t)n * n;
    const int    g  = (int)PetscMin((nn + 255) / 256, (size_t)4096);
    FiniteKernelZ<<<g, 256, 0, s>>>(nn, d->LU.data(), d->info.data() + 1);
    PGXCheckLaunch("denselu cudaz FiniteKernelZ");
  }
  /* factored right away, without waiting for the check: a non-finite A's factors are only this object's workspace,
     and the one synchronization below reads both flags */
  PGXCallCUSOLVER(cusolverDnZgetrf(d->hs, (int)n, (int)n, d->LU.data(), (int)n, d->work.data(), d->ipiv.data(), d->info.data()));
  PGXCallCUDA(cudaMemcpyAsync(hinfo, d->info.data(), 2 * sizeof(int), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  if (hinfo[1]) {
    *finite = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(hinfo[0] >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "denselu cudaz: cusolverDnZgetrf rejected its argument %d", -hinfo[0]);
  if (hinfo[0] > 0) *zerocol = hinfo[0] - 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolveHost(Data *d, PetscBool transpose, PetscInt nrhs, Scalar *x, PetscInt ldx)
{
  cudaStream_t s;
  const int    n = (int)d->n;
  int          hinfo;

  PetscFunctionBegin;
  PetscCheck(nrhs >= 0 && nrhs <= INT_MAX && ldx >= PetscMax(1, d->n), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "denselu cudaz: %" PetscInt_FMT " right-hand sides with leading dimension %" PetscInt_FMT " (n %d)", nrhs, ldx, n);
  PetscCheck(d->hs && d->LU.size() >= (size_t)n * n, PETSC_COMM_SELF, PETSC_ERR_ORDER, "denselu cudaz: solve before a factorization");
  if (!n || !nrhs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&s));
  if (d->X.size() < (size_t)n * nrhs) PetscCall(d->X.resize((size_t)n * nrhs));
  PetscCall(PGXCUDACopy2D(PGX_COPY_H2D, d->X.data(), (void *)x, (size_t)n * sizeof(Scalar), (size_t)nrhs, (size_t)ldx * sizeof(Scalar), s, PETSC_FALSE));
  PGXCallCUSOLVER(cusolverDnSetStream(d->hs, s));
  PGXCallCUSOLVER(cusolverDnZgetrs(d->hs, transpose ? CUBLAS_OP_T : CUBLAS_OP_N, n, (int)nrhs, d->LU.data(), n, d->ipiv.data(), d->X.data(), n, d->info.data() + 2));
  PetscCall(PGXCUDACopy2D(PGX_COPY_D2H, d->X.data(), (void *)x, (size_t)n * sizeof(Scalar), (size_t)nrhs, (size_t)ldx * sizeof(Scalar), s, PETSC_TRUE)); /* complete on return */
  PGXCallCUDA(cudaMemcpyAsync(&hinfo, d->info.data() + 2, sizeof(int), cudaMemcpyDeviceToHost, s));
  PGXCallCUDA(cudaStreamSynchronize(s));
  PetscCheck(hinfo == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "denselu cudaz: cusolverDnZgetrs rejected its argument %d", -hinfo);
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace cudaz
} // namespace denselu
} // namespace kernels
} // namespace pgx
#else
/* a real PETSc: the real backend in ../cuda serves; nothing here */
namespace pgx
{
namespace kernels
{
namespace denselu
{
} // namespace denselu
} // namespace kernels
} // namespace pgx
#endif
