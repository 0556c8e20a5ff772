/* cudalibs.cu: cuBLAS, cuSPARSE and cuSOLVER loaded on first use (see pgxcudalibs.h). */
#define PGX_CUDALIBS_NO_REDIRECT
#include <pgx/private/pgxcuda.h>
#include <dlfcn.h>
#include <mutex>
#include <string>

/* the sonames of the toolkit PGX was built with (the makefile reads them from its libraries) */
#ifndef PGX_CUBLAS_SONAME
  #define PGX_CUBLAS_SONAME "libcublas.so"
#endif
#ifndef PGX_CUSPARSE_SONAME
  #define PGX_CUSPARSE_SONAME "libcusparse.so"
#endif
#ifndef PGX_CUSOLVER_SONAME
  #define PGX_CUSOLVER_SONAME "libcusolver.so"
#endif

namespace pgx
{
namespace cudalibs
{
namespace
{
const char *const sonames[3] = {PGX_CUBLAS_SONAME, PGX_CUSPARSE_SONAME, PGX_CUSOLVER_SONAME};
const char *const names[3]   = {"cuBLAS", "cuSPARSE", "cuSOLVER"};

/* what a function of a library that could not be loaded returns */
template <class R>
struct Fail;
template <>
struct Fail<cublasStatus_t> {
  static cublasStatus_t value() { return CUBLAS_STATUS_NOT_INITIALIZED; }
};
template <>
struct Fail<cusparseStatus_t> {
  static cusparseStatus_t value() { return CUSPARSE_STATUS_NOT_INITIALIZED; }
};
template <>
struct Fail<cusolverStatus_t> {
  static cusolverStatus_t value() { return CUSOLVER_STATUS_NOT_INITIALIZED; }
};
template <>
struct Fail<const char *> {
  static const char *value() { return "(the library could not be loaded)"; }
};
template <class F>
struct Stub;
template <class R, class... A>
struct Stub<R (*)(A...)> {
  static R fn(A...) { return Fail<R>::value(); }
};

Table          table;
std::once_flag once[3];
std::string    failure[3]; /* empty: loaded */

const char *const envs[3] = {"PGX_CUBLAS_LIBRARY", "PGX_CUSPARSE_LIBRARY", "PGX_CUSOLVER_LIBRARY"};

void Load(int lib)
{
  const char *file = getenv(envs[lib]); /* another file of the same major version, e.g. a full path */
  if (!file || !file[0]) file = sonames[lib];
  void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    failure[lib]  = std::string("cannot load ") + file + ": " + (e ? e : "unknown error");
  }
#define PGX_CUDALIB_RESOLVE(l, name, type) \
  if ((int)(l) == lib) { \
    void *f = h ? dlsym(h, #name) : nullptr; \
    if (f) table.name = (decltype(table.name))f; \
    else { \
      table.name = &Stub<decltype(table.name)>::fn; \
      if (failure[lib].empty()) failure[lib] = std::string(file) + " has no symbol " #name; \
    } \
  }
  PGX_CUDALIB_FUNCTIONS(PGX_CUDALIB_RESOLVE)
#undef PGX_CUDALIB_RESOLVE
}
} // namespace

const Table &Get(PGXCUDALib lib)
{
  std::call_once(once[lib], Load, (int)lib);
  return table;
}
} // namespace cudalibs
} // namespace pgx

PetscErrorCode PGXCUDALibCheck(PGXCUDALib lib)
{
  PetscFunctionBegin;
  PetscCheck(lib >= PGX_CUDALIB_CUBLAS && lib <= PGX_CUDALIB_CUSOLVER, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown CUDA library %d", (int)lib);
  (void)pgx::cudalibs::Get(lib);
  PetscCheck(pgx::cudalibs::failure[lib].empty(), PETSC_COMM_SELF, PETSC_ERR_LIB, "PGX needs %s for this operation: %s (PGX loads it at first use; is the CUDA toolkit's lib64 folder on the library path?)", pgx::cudalibs::names[lib], pgx::cudalibs::failure[lib].c_str());
  PetscFunctionReturn(PETSC_SUCCESS);
}
