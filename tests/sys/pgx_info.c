static char help[] = "Prints the PGX version and the GPU it would use.\n"
                     "  -gpu_reason : print only the GPU (or why there is none); exit 0 with a GPU, 3 without\n"
                     "  -petsc_cuda : print only whether PETSc was built with CUDA; exit 0 if it was, 3 if not\n"
                     "  -gpu_count  : print only the number of visible CUDA devices PGX can use (0 without a usable GPU)\n";
/* Used by tests/run.sh to decide whether cuda tests run or are skipped. */
#include <pgx.h>

int main(int argc, char **argv)
{
  PetscBool   avail, reason_only = PETSC_FALSE, petsc_cuda = PETSC_FALSE, gpu_count = PETSC_FALSE;
  char        version[128];
  const char *why;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu_reason", &reason_only, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-petsc_cuda", &petsc_cuda, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu_count", &gpu_count, NULL));
  if (gpu_count) {
    PetscInt count;
    PetscCall(PGXCUDAGetDeviceCount(&count));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "\n", count));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (petsc_cuda) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PETSc %s CUDA\n", PetscDefined(HAVE_CUDA) ? "built with" : "built without"));
    PetscCall(PetscFinalize());
    return PetscDefined(HAVE_CUDA) ? 0 : 3;
  }
  PetscCall(PGXGetVersion(version, sizeof(version)));
  PetscCall(PGXCUDAIsAvailable(&avail));
  PetscCall(PGXCUDAGetUnavailableReason(&why));
  if (!reason_only) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, PETSc %d.%d.%d, PetscInt %d bits, PetscScalar %s\n", version, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, (int)(8 * sizeof(PetscInt)), PetscDefined(USE_COMPLEX) ? "complex" : "real"));
  if (avail) {
    char name[256];
    PetscCall(PGXDeviceGetName(name, sizeof(name)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", name));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", why));
  PetscCall(PetscFinalize());
  return (reason_only && !avail) ? 3 : 0;
}
