/* pgxcudalibs.h: cuBLAS, cuSPARSE and cuSOLVER loaded when PGX first calls them (dlopen), not when libpgx is loaded.

   libpgx does not link these libraries: a program that loads PGX and never reaches a PGX path that needs one of them
   (the host backends, PCDILU's multicolor schedule, the resident KSPs, ...) does not map them (about 260 MB and 0.4 s
   of start-up on Debian 12 with CUDA 13). Every call of PGX's sources goes through a table of function pointers that
   pgx::cudalibs::Get() fills on first use, one library at a time (the sonames are the toolkit's that PGX was built
   with; the environment variables PGX_CUBLAS_LIBRARY, PGX_CUSPARSE_LIBRARY and PGX_CUSOLVER_LIBRARY name other
   files). If a library cannot be loaded, its entries are stubs that return the library's NOT_INITIALIZED status, so
   the call's PGXCallCUBLAS/CUSPARSE/CUSOLVER fails with a PETSc error naming it, and PGXCUDAGetCUBLAS/CUSPARSE/
   CUSOLVER (the first use of each library) raise the loader's own message. Included by pgxcuda.h after the libraries'
   headers; the redirection macros below rename every listed function at its call sites (cudalibs.cu, which fills the
   table, defines PGX_CUDALIBS_NO_REDIRECT). A function of these libraries that PGX starts to call must be added to
   PGX_CUDALIB_FUNCTIONS and to the macros; otherwise libpgx gets an undefined symbol of that library (a shared library
   links with one), which test sys_cuda_libs_unlinked reports. */
#pragma once

/* cublasGemmEx is overloaded in C++ (an inline variant with a cudaDataType compute type): the C function's type */
typedef cublasStatus_t (*PGXcublasGemmExFn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *, const void *, cudaDataType, int, const void *, cudaDataType, int, const void *, void *, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

/* X(library, symbol, type of its pointer): the exported symbol names (cublas_v2.h's macros already applied) */
#define PGX_CUDALIB_FUNCTIONS(X) \
  X(PGX_CUDALIB_CUBLAS, cublasCreate_v2, decltype(&::cublasCreate_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasDestroy_v2, decltype(&::cublasDestroy_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasSetStream_v2, decltype(&::cublasSetStream_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasSetPointerMode_v2, decltype(&::cublasSetPointerMode_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasSetSmCountTarget, decltype(&::cublasSetSmCountTarget)) \
  X(PGX_CUDALIB_CUBLAS, cublasGetStatusName, decltype(&::cublasGetStatusName)) \
  X(PGX_CUDALIB_CUBLAS, cublasGetStatusString, decltype(&::cublasGetStatusString)) \
  X(PGX_CUDALIB_CUBLAS, cublasDcopy_v2, decltype(&::cublasDcopy_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasDgemm_v2, decltype(&::cublasDgemm_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasDgemv_v2, decltype(&::cublasDgemv_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasDsyrkx, decltype(&::cublasDsyrkx)) \
  X(PGX_CUDALIB_CUBLAS, cublasDtrmm_v2, decltype(&::cublasDtrmm_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasDtrsm_v2, decltype(&::cublasDtrsm_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasGemmEx, PGXcublasGemmExFn) \
  X(PGX_CUDALIB_CUBLAS, cublasStrsm_v2, decltype(&::cublasStrsm_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasZgemm_v2, decltype(&::cublasZgemm_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasZgemv_v2, decltype(&::cublasZgemv_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasZhemv_v2, decltype(&::cublasZhemv_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasZherkx, decltype(&::cublasZherkx)) \
  X(PGX_CUDALIB_CUBLAS, cublasZsyrkx, decltype(&::cublasZsyrkx)) \
  X(PGX_CUDALIB_CUBLAS, cublasZtrmm_v2, decltype(&::cublasZtrmm_v2)) \
  X(PGX_CUDALIB_CUBLAS, cublasZtrsm_v2, decltype(&::cublasZtrsm_v2)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseCreate, decltype(&::cusparseCreate)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseDestroy, decltype(&::cusparseDestroy)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseSetStream, decltype(&::cusparseSetStream)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseGetErrorName, decltype(&::cusparseGetErrorName)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseGetErrorString, decltype(&::cusparseGetErrorString)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseCreateCsr, decltype(&::cusparseCreateCsr)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseCreateDnVec, decltype(&::cusparseCreateDnVec)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseDestroyDnVec, decltype(&::cusparseDestroyDnVec)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseDestroySpMat, decltype(&::cusparseDestroySpMat)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseDnVecSetValues, decltype(&::cusparseDnVecSetValues)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseSpMatSetAttribute, decltype(&::cusparseSpMatSetAttribute)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseSpSV_analysis, decltype(&::cusparseSpSV_analysis)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseSpSV_bufferSize, decltype(&::cusparseSpSV_bufferSize)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseSpSV_createDescr, decltype(&::cusparseSpSV_createDescr)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseSpSV_destroyDescr, decltype(&::cusparseSpSV_destroyDescr)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseSpSV_solve, decltype(&::cusparseSpSV_solve)) \
  X(PGX_CUDALIB_CUSPARSE, cusparseSpSV_updateMatrix, decltype(&::cusparseSpSV_updateMatrix)) \
  X(PGX_CUDALIB_CUSOLVER, cusolverDnCreate, decltype(&::cusolverDnCreate)) \
  X(PGX_CUDALIB_CUSOLVER, cusolverDnDestroy, decltype(&::cusolverDnDestroy)) \
  X(PGX_CUDALIB_CUSOLVER, cusolverDnSetStream, decltype(&::cusolverDnSetStream)) \
  X(PGX_CUDALIB_CUSOLVER, cusolverDnDgetrf, decltype(&::cusolverDnDgetrf)) \
  X(PGX_CUDALIB_CUSOLVER, cusolverDnDgetrf_bufferSize, decltype(&::cusolverDnDgetrf_bufferSize)) \
  X(PGX_CUDALIB_CUSOLVER, cusolverDnSgetrf, decltype(&::cusolverDnSgetrf)) \
  X(PGX_CUDALIB_CUSOLVER, cusolverDnSgetrf_bufferSize, decltype(&::cusolverDnSgetrf_bufferSize)) \
  X(PGX_CUDALIB_CUSOLVER, cusolverDnZgetrf, decltype(&::cusolverDnZgetrf)) \
  X(PGX_CUDALIB_CUSOLVER, cusolverDnZgetrf_bufferSize, decltype(&::cusolverDnZgetrf_bufferSize)) \
  X(PGX_CUDALIB_CUSOLVER, cusolverDnZgetrs, decltype(&::cusolverDnZgetrs))

namespace pgx
{
namespace cudalibs
{
struct Table {
#define PGX_CUDALIB_MEMBER(lib, name, type) type name;
  PGX_CUDALIB_FUNCTIONS(PGX_CUDALIB_MEMBER)
#undef PGX_CUDALIB_MEMBER
};
/* the table, with the entries of lib filled (the library loaded, or its stubs) at its first use (thread-safe) */
const Table &Get(PGXCUDALib lib);
} // namespace cudalibs
} // namespace pgx

#ifndef PGX_CUDALIBS_NO_REDIRECT
#define cublasCreate_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasCreate_v2)
#define cublasDestroy_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasDestroy_v2)
#define cublasSetStream_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasSetStream_v2)
#define cublasSetPointerMode_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasSetPointerMode_v2)
#define cublasSetSmCountTarget (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasSetSmCountTarget)
#define cublasGetStatusName (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasGetStatusName)
#define cublasGetStatusString (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasGetStatusString)
#define cublasDcopy_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasDcopy_v2)
#define cublasDgemm_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasDgemm_v2)
#define cublasDgemv_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasDgemv_v2)
#define cublasDsyrkx (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasDsyrkx)
#define cublasDtrmm_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasDtrmm_v2)
#define cublasDtrsm_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasDtrsm_v2)
#define cublasGemmEx (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasGemmEx)
#define cublasStrsm_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasStrsm_v2)
#define cublasZgemm_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasZgemm_v2)
#define cublasZgemv_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasZgemv_v2)
#define cublasZhemv_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasZhemv_v2)
#define cublasZherkx (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasZherkx)
#define cublasZsyrkx (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasZsyrkx)
#define cublasZtrmm_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasZtrmm_v2)
#define cublasZtrsm_v2 (::pgx::cudalibs::Get(PGX_CUDALIB_CUBLAS).cublasZtrsm_v2)
#define cusparseCreate (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseCreate)
#define cusparseDestroy (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseDestroy)
#define cusparseSetStream (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseSetStream)
#define cusparseGetErrorName (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseGetErrorName)
#define cusparseGetErrorString (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseGetErrorString)
#define cusparseCreateCsr (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseCreateCsr)
#define cusparseCreateDnVec (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseCreateDnVec)
#define cusparseDestroyDnVec (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseDestroyDnVec)
#define cusparseDestroySpMat (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseDestroySpMat)
#define cusparseDnVecSetValues (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseDnVecSetValues)
#define cusparseSpMatSetAttribute (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseSpMatSetAttribute)
#define cusparseSpSV_analysis (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseSpSV_analysis)
#define cusparseSpSV_bufferSize (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseSpSV_bufferSize)
#define cusparseSpSV_createDescr (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseSpSV_createDescr)
#define cusparseSpSV_destroyDescr (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseSpSV_destroyDescr)
#define cusparseSpSV_solve (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseSpSV_solve)
#define cusparseSpSV_updateMatrix (::pgx::cudalibs::Get(PGX_CUDALIB_CUSPARSE).cusparseSpSV_updateMatrix)
#define cusolverDnCreate (::pgx::cudalibs::Get(PGX_CUDALIB_CUSOLVER).cusolverDnCreate)
#define cusolverDnDestroy (::pgx::cudalibs::Get(PGX_CUDALIB_CUSOLVER).cusolverDnDestroy)
#define cusolverDnSetStream (::pgx::cudalibs::Get(PGX_CUDALIB_CUSOLVER).cusolverDnSetStream)
#define cusolverDnDgetrf (::pgx::cudalibs::Get(PGX_CUDALIB_CUSOLVER).cusolverDnDgetrf)
#define cusolverDnDgetrf_bufferSize (::pgx::cudalibs::Get(PGX_CUDALIB_CUSOLVER).cusolverDnDgetrf_bufferSize)
#define cusolverDnSgetrf (::pgx::cudalibs::Get(PGX_CUDALIB_CUSOLVER).cusolverDnSgetrf)
#define cusolverDnSgetrf_bufferSize (::pgx::cudalibs::Get(PGX_CUDALIB_CUSOLVER).cusolverDnSgetrf_bufferSize)
#define cusolverDnZgetrf (::pgx::cudalibs::Get(PGX_CUDALIB_CUSOLVER).cusolverDnZgetrf)
#define cusolverDnZgetrf_bufferSize (::pgx::cudalibs::Get(PGX_CUDALIB_CUSOLVER).cusolverDnZgetrf_bufferSize)
#define cusolverDnZgetrs (::pgx::cudalibs::Get(PGX_CUDALIB_CUSOLVER).cusolverDnZgetrs)
#endif
