/* Developer-level entry points used by tests/sys to exercise the device layer: a trivial kernel and
   deliberately bad calls whose errors must come back as PETSc errors naming the call. */
#include <pgx/private/pgxcuda.h>

namespace
{
__global__ void axpby_kernel(PetscInt n, PetscScalar a, const PetscScalar *__restrict__ x, PetscScalar b, PetscScalar *__restrict__ y)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) y[i] = a * x[i] + b * y[i];
}
} // namespace

/* y = a x + b y on device arrays */
PETSC_EXTERN PetscErrorCode PGXDeviceTestAXPBY(PetscInt n, PetscScalar a, const PetscScalar *x, PetscScalar b, PetscScalar *y)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PGXCUDAGetStream(&s));
  if (n > 0) {
    axpby_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, s>>>(n, a, x, b, y);
    PGXCheckLaunch("axpby_kernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Make one bad call of the named kind: cuda, launch, cublas, cusparse, cusolver */
PETSC_EXTERN PetscErrorCode PGXDeviceTestForceError(const char *which)
{
  PetscBool match;
  PetscFunctionBegin;
  PetscCall(PetscStrcmp(which, "cuda", &match));
  if (match) {
    cudaStream_t s;
    PetscCall(PGXCUDAGetStream(&s)); /* the context exists first, so this is the call that fails */
    PGXCallCUDA(cudaSetDevice(1000000));
  }
  PetscCall(PetscStrcmp(which, "launch", &match));
  if (match) {
    cudaStream_t s;
    PetscCall(PGXCUDAGetStream(&s));
    axpby_kernel<<<1, 4096, 0, s>>>(0, 0.0, nullptr, 0.0, nullptr); /* 4096 threads per block is over the limit */
    PGXCheckLaunch("axpby_kernel");
  }
  PetscCall(PetscStrcmp(which, "cublas", &match));
  if (match) {
    cublasHandle_t h;
    PetscCall(PGXCUDAGetCUBLAS(&h));
    const double one = 1.0;
    PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 1, 1, &one, nullptr, 1, nullptr, 1, &one, nullptr, 1));
  }
  PetscCall(PetscStrcmp(which, "cusparse", &match));
  if (match) {
    cusparseHandle_t   h;
    cusparseSpMatDescr_t A;
    PetscCall(PGXCUDAGetCUSPARSE(&h));
    PGXCallCUSPARSE(cusparseCreateCsr(&A, -5, -5, 3, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  }
  PetscCall(PetscStrcmp(which, "cusolver", &match));
  if (match) {
    cusolverDnHandle_t h;
    int                lwork;
    PetscCall(PGXCUDAGetCUSOLVER(&h));
    /* cuSOLVER 12 accepts some bad sizes in the _bufferSize queries: the computational routine checks them */
    PGXCallCUSOLVER(cusolverDnDgetrf_bufferSize(h, -3, 4, nullptr, 4, &lwork));
    pgx::cuda::DeviceArray<int> info; /* getrf writes the argument error into devInfo: give it a real one */
    PetscCall(info.resize(1));
    PGXCallCUSOLVER(cusolverDnDgetrf(h, 4, 4, nullptr, 1, nullptr, nullptr, info.data()));
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PGXDeviceTestForceError(\"%s\") made no failing call", which);
}
