/* CUDA kernels of PCAIPS: the product with R = A - P (CSR, one thread per row: R of a stencil matrix has a
   few entries per row; on several ranks its off-diagonal block is added to it from the ghost values; or DIA,
   pgxdia.h's kernel, when R's diagonal block lies on few diagonals), a gather and a fill. Generic in the device
   scalar (double, or thrust::complex<double> in complex builds); the interface's Scalar (the host's type) is
   reinterpreted at the entry points. */
#include <pgx/private/pgxcuda.h>
#include <pgx/private/pgxdia.h>
#include "../aips_kernels.h"

namespace pgx
{
namespace kernels
{
namespace aips
{
namespace cuda
{
static_assert(sizeof(PetscScalar) == sizeof(Scalar), "aips cuda: the interface's and the device's scalars differ");
namespace
{
template <typename T>
inline const PetscScalar *Dev(const T *p)
{
  return reinterpret_cast<const PetscScalar *>(p);
}
template <typename T>
inline PetscScalar *Dev(T *p)
{
  return reinterpret_cast<PetscScalar *>(p);
}
#if defined(PETSC_USE_COMPLEX)
inline PetscScalar DevScalar(Scalar a)
{
  return PetscScalar(a.real(), a.imag());
}
#else
inline PetscScalar DevScalar(Scalar a)
{
  return a;
}
#endif

__global__ void csr_product_kernel(PetscInt n, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ col, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ y, PetscScalar *__restrict__ t)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscScalar s = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * y[col[k]];
    t[i] = s;
  }
}

__global__ void csr_product_add_kernel(PetscInt n, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ col, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ y, PetscScalar *__restrict__ t)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscScalar s = 0;
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * y[col[k]];
    t[i] += s;
  }
}

__global__ void fill_kernel(PetscInt n, PetscScalar v, PetscScalar *__restrict__ y)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) y[i] = v;
}
__global__ void gather_kernel(PetscInt n, const PetscInt *__restrict__ pos, const PetscScalar *__restrict__ a, PetscScalar *__restrict__ y)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt p = pos[i];
    y[i]             = p < 0 ? PetscScalar(0) : a[p];
  }
}
} // namespace

PetscErrorCode gather(PetscInt n, const PetscInt *pos, const Scalar *a, Scalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  gather_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, pos, Dev(a), Dev(y));
  PGXCheckLaunch("pgx::kernels::aips::cuda::gather_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode csr_product(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const Scalar *val, const Scalar *y, Scalar *t)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  csr_product_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, rowptr, col, Dev(val), Dev(y), Dev(t));
  PGXCheckLaunch("pgx::kernels::aips::cuda::csr_product_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode dia_product(PetscInt n, PetscInt ndiag, const PetscInt *off, const Scalar *val, const Scalar *y, Scalar *t)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(ndiag >= 0 && ndiag <= PGX_DIA_MAXDIAG, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "dia_product: %" PetscInt_FMT " diagonals, at most %d", ndiag, PGX_DIA_MAXDIAG);
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  PGXDIAProductKernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, ndiag, off, Dev(val), Dev(y), Dev(t), 0);
  PGXCheckLaunch("PGXDIAProductKernel (pgx::kernels::aips::cuda::dia_product)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode csr_product_add(PetscInt n, const PetscInt *rowptr, const PetscInt *col, const Scalar *val, const Scalar *y, Scalar *t)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  csr_product_add_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, rowptr, col, Dev(val), Dev(y), Dev(t));
  PGXCheckLaunch("pgx::kernels::aips::cuda::csr_product_add_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode fill(PetscInt n, Scalar v, Scalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PGXCUDAGetStream(&stream));
  fill_kernel<<<PGXCUDAGridSize(n, 256), 256, 0, stream>>>(n, DevScalar(v), Dev(y));
  PGXCheckLaunch("pgx::kernels::aips::cuda::fill_kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace cuda
} // namespace aips
} // namespace kernels
} // namespace pgx
