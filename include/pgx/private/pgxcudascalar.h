/* pgxcudascalar.h: the small operations of CUDA code that is generic in the scalar, for both device scalars:
   double, and thrust::complex<double> (PETSc's PetscScalar as nvcc sees it in a complex build; host code sees
   std::complex<double>, of the same layout). Overloads, not macros, so that templates on the scalar (the tridiagonal
   reduction's) and code on PetscScalar (PCDILU, the resident KSPs, the LDL^T, PCAIPS) use the same ones.

   Re, Im, Conj, Abs, Norm (|x|^2 as a real), AbsSq (|x|^2 as the scalar, imaginary part exactly 0), IsFinite;
   warp shuffles (ShflDown, ShflUp: a complex value moves as its two parts), WarpSum; loads through L2 (LdCg) and
   streaming loads (LdCs); Fma (a b + c: the fused multiply-add for double, plain arithmetic for complex);
   AtomicAdd (a complex one adds its two parts separately); Shared<T>::type and As<T>() for shared-memory arrays
   (thrust::complex has constructors, which __shared__ arrays cannot run). Included by .cu files only.

   Dev() and DevScalar(): the kernel interfaces are declared with the host's scalar (std::complex<double> in complex
   builds, where nvcc's PetscScalar is thrust::complex<double> of the same layout; PetscScalar in real builds); the
   cuda backends view those arrays and scalars as the device scalar's. */
#pragma once
#if !defined(__CUDACC__)
  #error "pgxcudascalar.h is for CUDA sources"
#endif
#include <thrust/complex.h>
#include <petscsys.h>
#if defined(PETSC_USE_COMPLEX)
  #include <complex>
#endif

namespace pgx
{
namespace dev
{
typedef thrust::complex<double> Cx;

__host__ __device__ __forceinline__ double Re(double x)
{
  return x;
}
__host__ __device__ __forceinline__ double Re(const Cx &x)
{
  return x.real();
}
__host__ __device__ __forceinline__ double Im(double)
{
  return 0.0;
}
__host__ __device__ __forceinline__ double Im(const Cx &x)
{
  return x.imag();
}
__host__ __device__ __forceinline__ double Conj(double x)
{
  return x;
}
__host__ __device__ __forceinline__ Cx Conj(const Cx &x)
{
  return thrust::conj(x);
}
__device__ __forceinline__ double Abs(double x)
{
  return fabs(x);
}
__device__ __forceinline__ double Abs(const Cx &x)
{
  return thrust::abs(x);
}
__host__ __device__ __forceinline__ double Norm(double x) /* |x|^2 */
{
  return x * x;
}
__host__ __device__ __forceinline__ double Norm(const Cx &x)
{
  return x.real() * x.real() + x.imag() * x.imag();
}
__device__ __forceinline__ double AbsSq(double x) /* |x|^2 in the scalar's type */
{
  return x * x;
}
__device__ __forceinline__ Cx AbsSq(const Cx &x)
{
  return Cx(x.real() * x.real() + x.imag() * x.imag(), 0.0);
}
__device__ __forceinline__ bool IsFinite(double x)
{
  return isfinite(x);
}
__device__ __forceinline__ bool IsFinite(const Cx &x)
{
  return isfinite(x.real()) && isfinite(x.imag());
}

__device__ __forceinline__ double ShflDown(double v, int off, int width = 32)
{
  return __shfl_down_sync(0xffffffffu, v, off, width);
}
__device__ __forceinline__ Cx ShflDown(const Cx &v, int off, int width = 32)
{
  return Cx(__shfl_down_sync(0xffffffffu, v.real(), off, width), __shfl_down_sync(0xffffffffu, v.imag(), off, width));
}
__device__ __forceinline__ double ShflUp(double v, int off, int width = 32)
{
  return __shfl_up_sync(0xffffffffu, v, off, width);
}
__device__ __forceinline__ Cx ShflUp(const Cx &v, int off, int width = 32)
{
  return Cx(__shfl_up_sync(0xffffffffu, v.real(), off, width), __shfl_up_sync(0xffffffffu, v.imag(), off, width));
}
__device__ __forceinline__ double WarpSum(double v) /* the sum lands in lane 0 */
{
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ Cx WarpSum(Cx v)
{
  return Cx(WarpSum(v.real()), WarpSum(v.imag()));
}

__device__ __forceinline__ double LdCg(const double *p)
{
  return __ldcg(p);
}
__device__ __forceinline__ Cx LdCg(const Cx *p)
{
  const double2 v = __ldcg(reinterpret_cast<const double2 *>(p));
  return Cx(v.x, v.y);
}
__device__ __forceinline__ double LdCs(const double *p)
{
  return __ldcs(p);
}
__device__ __forceinline__ Cx LdCs(const Cx *p)
{
  const double2 v = __ldcs(reinterpret_cast<const double2 *>(p));
  return Cx(v.x, v.y);
}

__device__ __forceinline__ double Fma(double a, double b, double c)
{
  return fma(a, b, c);
}
__device__ __forceinline__ Cx Fma(const Cx &a, const Cx &b, const Cx &c)
{
  return a * b + c;
}

__device__ __forceinline__ void AtomicAdd(double *p, double v)
{
  atomicAdd(p, v);
}
__device__ __forceinline__ void AtomicAdd(Cx *p, const Cx &v)
{
  atomicAdd(reinterpret_cast<double *>(p), v.real());
  atomicAdd(reinterpret_cast<double *>(p) + 1, v.imag());
}

template <typename T>
struct Shared;
template <>
struct Shared<double> {
  typedef double type;
};
template <>
struct Shared<Cx> {
  typedef double2 type;
};
template <typename T, typename S>
__device__ __forceinline__ T &As(S &s)
{
  return *reinterpret_cast<T *>(&s);
}

template <typename T>
__host__ __device__ inline const PetscScalar *Dev(const T *p)
{
  static_assert(sizeof(T) == sizeof(PetscScalar), "Dev(): the interface's and the device's scalars differ");
  return reinterpret_cast<const PetscScalar *>(p);
}
template <typename T>
__host__ __device__ inline PetscScalar *Dev(T *p)
{
  static_assert(sizeof(T) == sizeof(PetscScalar), "Dev(): the interface's and the device's scalars differ");
  return reinterpret_cast<PetscScalar *>(p);
}
#if defined(PETSC_USE_COMPLEX)
inline PetscScalar DevScalar(const std::complex<PetscReal> &a)
{
  return PetscScalar(a.real(), a.imag());
}
#else
inline PetscScalar DevScalar(PetscScalar a)
{
  return a;
}
#endif
} // namespace dev
} // namespace pgx
