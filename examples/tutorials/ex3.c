static const char help[] = "KSPPGXGMRES and KSPPGXCG: the whole Krylov solve resident (on the GPU with -pgx_device cuda), beside PETSc's own.\n\n"
                           "  -m <m>  grid points per direction of the 3D Poisson problem (n = m^3)\n\n";

/* A PGX preconditioner under a PETSc Krylov method moves two vectors between host and GPU at every
   application, and the method's products and orthogonalization run on the host. The resident methods
   pgxcg, pgxbcgs and pgxgmres are PETSc's CG, BiCGStab and GMRES with the matrix, the vectors and the
   preconditioner kept in one place from the first iteration to the last: KSPSetUp copies the matrix, KSPSolve
   copies b in and x out, and only scalars come back per iteration. They run the same algorithm in the same
   order as PETSc's, so the iteration counts printed below are equal.

   Run: ./ex3 -m 32 [-pgx_device host|cuda] [-ksp_view] [-log_view]   (then look for PGXKSPSolve) */
#include <pgx.h>
#include <pgx/gallery.h>
#include <petscksp.h>

static PetscErrorCode SolveWith(Mat A, Vec b, Vec x, KSPType type, PCType pctype, PetscInt *its)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat      A;
  Vec      x, b;
  PetscInt m = 24, its, pits;
  const struct {
    KSPType petsc, pgx;
    PCType  pc;
  } runs[] = {
    {KSPGMRES, KSPPGXGMRES, PCDILU  },
    {KSPCG,    KSPPGXCG,    PCJACOBI},
    {KSPCG,    KSPPGXCG,    PCAIPS  }
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "poisson3d", m, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
    PetscCall(SolveWith(A, b, x, runs[i].petsc, runs[i].pc, &pits));
    PetscCall(SolveWith(A, b, x, runs[i].pgx, runs[i].pc, &its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PC %-6s  PETSc %-5s %3" PetscInt_FMT " iterations, resident %-8s %3" PetscInt_FMT " iterations%s\n", runs[i].pc, runs[i].petsc, pits, runs[i].pgx, its, its == pits ? "" : "  (DIFFERENT)"));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
