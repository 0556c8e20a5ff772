static const char help[] = "PCAIPS: an anisotropic 3D diffusion problem solved with GMRES and a Neumann series on the tridiagonal part.\n\n"
                           "  -m <m>  grid points per direction (n = m^3)\n\n";

/* The heterogeneous anisotropic diffusion of PGX's gallery ("aniso3d") couples neighbours in x a hundred
   times more strongly than in y and ten thousand times more than in z, and x is the fastest index: the
   strong couplings lie in the tridiagonal part P of the matrix, which falls apart into one block per grid
   line in x. PCAIPS splits A = P + R and applies the truncated Neumann series
       M^{-1} = sum_{k=0..N} (-P^{-1} R)^k P^{-1}
   whose every term costs one product with R and one batched tridiagonal solve (on the GPU with
   -pgx_device cuda). The series converges because P^{-1} R is small here: -pc_aips_estimate_radius
   prints an estimate of its spectral radius in the KSPView output.

   Run: ./ex2 -m 32 [-ksp_view] [-pc_aips_order 3] [-pgx_device host|cuda]
   Try -pc_aips_order 0..3: odd orders do best on this problem (the coupling between x-lines is
   bipartite, so the preconditioned spectrum 1 - lambda^(N+1) stays on one side of 1 for odd N). */
#include <pgx.h>
#include <pgx/gallery.h>
#include <petscksp.h>

int main(int argc, char **argv)
{
  Mat                A;
  Vec                x, b, u;
  KSP                ksp;
  PC                 pc;
  PetscInt           m = 24, its, n, order;
  PetscReal          err;
  KSPConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage()); /* registers PCAIPS (or load PGX with -dll_append lib/libpgx.so) */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));

  /* the matrix, and a right-hand side with a known solution u = 1 */
  PetscCall(PGXMatCreateGallery(PETSC_COMM_WORLD, "aniso3d", m, &A));
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &u));
  PetscCall(VecSet(u, 1.0));
  PetscCall(MatMult(A, u, b));

  /* GMRES preconditioned by PCAIPS of order 2; every choice can be overridden on the command line */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCAIPS));
  PetscCall(PCAIPSSetOrder(pc, 2));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));

  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PCAIPSGetOrder(pc, &order));
  PetscCall(VecAXPY(x, -1.0, u));
  PetscCall(VecNorm(x, NORM_INFINITY, &err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "aniso3d n = %" PetscInt_FMT ": GMRES + PCAIPS of order %" PetscInt_FMT ": %s in %" PetscInt_FMT " iterations, max error %s\n", n, order, reason > 0 ? "converged" : "DIVERGED", its, err < 1e-4 ? "< 1e-4" : "LARGE"));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
