/* pgxcuda.h: the CUDA side of the device layer; included only by .cu files.

   - PGXCallCUDA/PGXCallCUBLAS/PGXCallCUSPARSE/PGXCallCUSOLVER: a failed call becomes a PETSc error
     (PETSC_ERR_GPU) naming the call and the library's error string; where the library itself could not be loaded
     (the stubs of pgxcudalibs.h answer NOT_INITIALIZED), the error says that instead (PGXCUDALibCheck).
   - PGXCheckLaunch(name): after every kernel launch; catches bad configurations and earlier faults.
   - PGXCUDAGetStream/GetCUBLAS/GetCUSPARSE/GetCUSOLVER: one lazily created context per process,
     destroyed at PetscFinalize. Every PGX kernel runs on that stream. cuBLAS, cuSPARSE and cuSOLVER are loaded
     at their first use (pgxcudalibs.h): libpgx links only the CUDA runtime.
   - PGXCUDACopy2D: host <-> device copies, large ones through pinned staging and host threads (pgxcopy.h).
   - pgx::cuda::DeviceArray<T>: a device buffer freed by its destructor, so early returns on error
     leak nothing. Use it for temporaries; persistent buffers live in the glue's context. */
#pragma once
#include <pgx/private/pgximpl.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusparse.h>
#include <cusolverDn.h>
#include <pgx/private/pgxcudalibs.h>
#include <pgx/private/pgxcopy.h>

PETSC_EXTERN const char *PGXCUSOLVERGetErrorString(cusolverStatus_t);

#define PGXCallCUDA(...) \
  do { \
    cudaError_t _pgx_e = (__VA_ARGS__); \
    PetscCheck(_pgx_e == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error %d (%s: %s) in %s", (int)_pgx_e, cudaGetErrorName(_pgx_e), cudaGetErrorString(_pgx_e), #__VA_ARGS__); \
  } while (0)

#define PGXCheckLaunch(kernelname) \
  do { \
    cudaError_t _pgx_e = cudaGetLastError(); \
    PetscCheck(_pgx_e == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error %d (%s: %s) launching kernel %s", (int)_pgx_e, cudaGetErrorName(_pgx_e), cudaGetErrorString(_pgx_e), kernelname); \
  } while (0)

#define PGXCallCUBLAS(...) \
  do { \
    cublasStatus_t _pgx_s = (__VA_ARGS__); \
    if (_pgx_s != CUBLAS_STATUS_SUCCESS) PetscCall(PGXCUDALibCheck(PGX_CUDALIB_CUBLAS)); /* a library that could not be loaded: say so */ \
    PetscCheck(_pgx_s == CUBLAS_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_GPU, "cuBLAS error %d (%s: %s) in %s", (int)_pgx_s, cublasGetStatusName(_pgx_s), cublasGetStatusString(_pgx_s), #__VA_ARGS__); \
  } while (0)

#define PGXCallCUSPARSE(...) \
  do { \
    cusparseStatus_t _pgx_s = (__VA_ARGS__); \
    if (_pgx_s != CUSPARSE_STATUS_SUCCESS) PetscCall(PGXCUDALibCheck(PGX_CUDALIB_CUSPARSE)); /* a library that could not be loaded: say so */ \
    PetscCheck(_pgx_s == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_GPU, "cuSPARSE error %d (%s: %s) in %s", (int)_pgx_s, cusparseGetErrorName(_pgx_s), cusparseGetErrorString(_pgx_s), #__VA_ARGS__); \
  } while (0)

#define PGXCallCUSOLVER(...) \
  do { \
    cusolverStatus_t _pgx_s = (__VA_ARGS__); \
    if (_pgx_s != CUSOLVER_STATUS_SUCCESS) PetscCall(PGXCUDALibCheck(PGX_CUDALIB_CUSOLVER)); /* a library that could not be loaded: say so */ \
    PetscCheck(_pgx_s == CUSOLVER_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_GPU, "cuSOLVER error %d (%s) in %s", (int)_pgx_s, PGXCUSOLVERGetErrorString(_pgx_s), #__VA_ARGS__); \
  } while (0)

PETSC_EXTERN PetscErrorCode PGXCUDAGetStream(cudaStream_t *);
PETSC_EXTERN PetscErrorCode PGXCUDAGetCUBLAS(cublasHandle_t *);
PETSC_EXTERN PetscErrorCode PGXCUDAGetCUSPARSE(cusparseHandle_t *);
PETSC_EXTERN PetscErrorCode PGXCUDAGetCUSOLVER(cusolverDnHandle_t *);
PETSC_EXTERN PetscErrorCode PGXCUDAGetDeviceProperties(const cudaDeviceProp **);
/* host (height rows of width bytes at pitch hpitch) <-> device (the same bytes contiguous) on stream s (NULL: PGX's),
   large copies through the pipeline of pgxcopy.h; D2H complete on return, H2D complete with sync (else ordered on s) */
PETSC_EXTERN PetscErrorCode PGXCUDACopy2D(PGXCopyDirection, void *d, void *h, size_t width, size_t height, size_t hpitch, cudaStream_t s, PetscBool sync);

/* A reduction's results published to host memory by the kernel that finishes it, without a copy on the stream (the
   look-ahead CG's scalars, so that no copy sits between one iteration's last kernel and the next one's first). The
   caller arms one (k scalars at src, device memory, to dst, the device address of mapped pinned host memory) just
   before it queues the reduction; that reduction's launcher takes it (PGXCUDAPublishTake, the first launcher that
   supports it) and passes it to its kernel, whose finishing block writes src[0..k) to dst after its own results
   (pgxcudareduce.h). PGXCUDAPublishDisarm() clears it and says whether it was still armed, i.e. not taken (then the
   caller copies the scalars itself). Process-wide, one at a time, on PGX's stream. */
typedef struct {
  const void *src; /* k PetscScalar */
  void       *dst;
  int         k;
} PGXCUDAPublish;
PETSC_INTERN void           PGXCUDAPublishArm(const void *, void *, int);
PETSC_INTERN PGXCUDAPublish PGXCUDAPublishTake(void);
PETSC_INTERN PetscBool      PGXCUDAPublishDisarm(void);

/* Kernels that wait on other GPUs (devreduce.cu, ghostpeer.cu): the GPU's clock in ns, and the NaN they leave where a
   wait timed out */
__device__ __forceinline__ unsigned long long PGXGlobalTimerNs()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ PetscReal PGXNaNReal() { return (PetscReal)__longlong_as_double(0x7ff8000000000000ULL); }
/* Collective on comm: whether every rank runs on one node with a GPU of its own (the condition of the paths whose
   kernels wait on other GPUs; ranks sharing a GPU run time-sliced, and a waiting kernel would hold the GPU from the
   rank it waits for; allowshared: ranks that share a GPU count as having their own, for tests on a one-GPU host). *ok
   is this rank's answer, *why the reason when it is false. */
PETSC_INTERN PetscErrorCode PGXCUDARanksOnOwnGPUs(MPI_Comm, PetscBool, PetscBool *, const char **);

/* Grid size for n work items of 'block' threads each, capped so that it fits gridDim.x */

static inline unsigned int PGXCUDAGridSize(PetscInt n, unsigned int block)
{
  PetscInt g = (n + (PetscInt)block - 1) / (PetscInt)block;
  if (g < 1) g = 1;
  if (g > 2147483647) g = 2147483647;
  return (unsigned int)g;
}

namespace pgx
{
namespace cuda
{
template <class T>
class DeviceArray {
public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray &)            = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  DeviceArray(DeviceArray &&o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  ~DeviceArray() { if (p_) (void)cudaFree(p_); }
  /* (re)allocate for n elements; contents are not kept */
  PetscErrorCode resize(size_t n)
  {
    PetscFunctionBegin;
    if (n != n_) {
      if (p_) PGXCallCUDA(cudaFree(p_));
      p_ = nullptr;
      n_ = 0;
      if (n) PGXCallCUDA(cudaMalloc((void **)&p_, n * sizeof(T)));
      n_ = n;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode upload(const T *h, size_t n)
  {
    cudaStream_t s;
    PetscFunctionBegin;
    PetscCall(resize(n));
    PetscCall(PGXCUDAGetStream(&s));
    if (n) PGXCallCUDA(cudaMemcpyAsync(p_, h, n * sizeof(T), cudaMemcpyHostToDevice, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  T     *data() const { return p_; }
  size_t size() const { return n_; }

private:
  T     *p_ = nullptr;
  size_t n_ = 0;
};
} // namespace cuda
} // namespace pgx
