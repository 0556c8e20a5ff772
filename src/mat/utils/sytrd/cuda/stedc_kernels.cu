/* CUDA kernels of the divide and conquer tridiagonal eigensolver (stedc_kernels.h), real double precision, all on
   PGX's stream: column gathers and rotation chains (one small kernel each), cuBLAS dgemm, 2D copies. */
#include <pgx/private/pgxcuda.h>
#include "../stedc_kernels.h"

namespace pgx
{
namespace kernels
{
namespace stedc
{
namespace cuda
{
#if !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
struct Scratch {
  PetscInt  n   = 0;
  PetscInt *idx = nullptr; /* n indices */
  Rotation *rot = nullptr; /* n rotations */
};

constexpr int BLOCK = 256;

PetscErrorCode create(PetscInt n, Scratch **s)
{
  PetscFunctionBegin;
  *s      = new Scratch;
  (*s)->n = n;
  if (n > 0) {
    PetscErrorCode ierr = PGXDeviceMallocArray(n, &(*s)->idx);
    if (!ierr) ierr = PGXDeviceMallocArray(n, &(*s)->rot);
    if (ierr) PetscCall(destroy(s));
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode destroy(Scratch **s)
{
  PetscFunctionBegin;
  if (!*s) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXDeviceFree(&(*s)->idx));
  PetscCall(PGXDeviceFree(&(*s)->rot));
  delete *s;
  *s = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst(r, p) = src(r, idx[p]): x over rows, y (grid-stride) over columns */
__global__ void k_gather(PetscInt m, PetscInt ncol, const PetscInt *idx, const double *src, PetscInt lds, double *dst, PetscInt ldd)
{
  PetscInt r = (PetscInt)blockIdx.x * BLOCK + threadIdx.x;
  if (r >= m) return;
  for (PetscInt p = blockIdx.y; p < ncol; p += gridDim.y) dst[r + (size_t)p * ldd] = src[r + (size_t)idx[p] * lds];
}

/* one thread per row applies the whole chain of rotations in order */
__global__ void k_rotate(PetscInt m, PetscInt nrot, const Rotation *rot, double *Q, PetscInt ldq)
{
  PetscInt r = (PetscInt)blockIdx.x * BLOCK + threadIdx.x;
  if (r >= m) return;
  for (PetscInt t = 0; t < nrot; t++) {
    const Rotation g = rot[t];
    double        *x = Q + r + (size_t)g.i * ldq, *y = Q + r + (size_t)g.j * ldq;
    double         a = *x, b = *y;
    *x               = g.c * a + g.s * b;
    *y               = g.c * b - g.s * a;
  }
}

PetscErrorCode gather_columns(Scratch *s, PetscInt m, PetscInt ncol, const PetscInt *idx, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (m <= 0 || ncol <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(ncol <= s->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gather of %" PetscInt_FMT " columns exceeds the scratch of %" PetscInt_FMT, ncol, s->n);
  PetscCall(PGXCUDAGetStream(&st));
  /* pageable host memory: the call returns once idx is staged, so the host may reuse it */
  PGXCallCUDA(cudaMemcpyAsync(s->idx, idx, (size_t)ncol * sizeof(PetscInt), cudaMemcpyHostToDevice, st));
  dim3 grid(PGXCUDAGridSize(m, BLOCK), (unsigned int)PetscMin(ncol, (PetscInt)65535));
  k_gather<<<grid, BLOCK, 0, st>>>(m, ncol, s->idx, src, lds, dst, ldd);
  PGXCheckLaunch("k_gather");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode rotate_columns(Scratch *s, PetscInt m, PetscInt nrot, const Rotation *rot, PetscReal *Q, PetscInt ldq)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (m <= 0 || nrot <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(nrot <= s->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " rotations exceed the scratch of %" PetscInt_FMT, nrot, s->n);
  PetscCall(PGXCUDAGetStream(&st));
  PGXCallCUDA(cudaMemcpyAsync(s->rot, rot, (size_t)nrot * sizeof(Rotation), cudaMemcpyHostToDevice, st));
  k_rotate<<<PGXCUDAGridSize(m, BLOCK), BLOCK, 0, st>>>(m, nrot, s->rot, Q, ldq);
  PGXCheckLaunch("k_rotate");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode gemm(PetscInt m, PetscInt n, PetscInt k, const PetscReal *A, PetscInt lda, const PetscReal *B, PetscInt ldb, PetscReal *C, PetscInt ldc)
{
  cublasHandle_t h;
  const double   one = 1.0, zz = 0.0;

  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (k <= 0) {
    PetscCall(zero(m, n, C, ldc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PGXCUDAGetCUBLAS(&h));
  PGXCallCUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  PGXCallCUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &one, A, (int)lda, B, (int)ldb, &zz, C, (int)ldc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode upload(PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&st));
  PGXCallCUDA(cudaMemcpy2DAsync(dst, (size_t)ldd * sizeof(double), src, (size_t)lds * sizeof(double), (size_t)m * sizeof(double), (size_t)n, cudaMemcpyHostToDevice, st));
  /* the driver rewrites src right after: wait for the copy */
  PGXCallCUDA(cudaStreamSynchronize(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode download(PetscInt m, PetscInt n, const PetscReal *src, PetscInt lds, PetscReal *dst, PetscInt ldd)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&st));
  PGXCallCUDA(cudaMemcpy2DAsync(dst, (size_t)ldd * sizeof(double), src, (size_t)lds * sizeof(double), (size_t)m * sizeof(double), (size_t)n, cudaMemcpyDeviceToHost, st));
  PGXCallCUDA(cudaStreamSynchronize(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode zero(PetscInt m, PetscInt n, PetscReal *A, PetscInt lda)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (m <= 0 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&st));
  PGXCallCUDA(cudaMemset2DAsync(A, (size_t)lda * sizeof(double), 0, (size_t)m * sizeof(double), (size_t)n, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
struct Scratch {
  int unused;
};
PetscErrorCode create(PetscInt, Scratch **)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The cuda backend of the divide and conquer eigensolver supports real double precision only; use -pgx_device host");
}
PetscErrorCode destroy(Scratch **s)
{
  *s = nullptr;
  return PETSC_SUCCESS;
}
PetscErrorCode gather_columns(Scratch *, PetscInt, PetscInt, const PetscInt *, const PetscReal *, PetscInt, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "real double only");
}
PetscErrorCode rotate_columns(Scratch *, PetscInt, PetscInt, const Rotation *, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "real double only");
}
PetscErrorCode gemm(PetscInt, PetscInt, PetscInt, const PetscReal *, PetscInt, const PetscReal *, PetscInt, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "real double only");
}
PetscErrorCode upload(PetscInt, PetscInt, const PetscReal *, PetscInt, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "real double only");
}
PetscErrorCode download(PetscInt, PetscInt, const PetscReal *, PetscInt, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "real double only");
}
PetscErrorCode zero(PetscInt, PetscInt, PetscReal *, PetscInt)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "real double only");
}
#endif
} // namespace cuda
} // namespace stedc
} // namespace kernels
} // namespace pgx
