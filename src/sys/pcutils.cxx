/* Checks shared by PGX's preconditioners */
#include <pgx/private/pgximpl.h>
#include <petsc/private/pcimpl.h>

/*@C
  PGXPCCheckSquare - Raises a clear error when the preconditioning matrix of a PGX preconditioner is not
  square or its local rows and columns differ.

  Collective

  Input Parameters:
+ pc   - the preconditioner, with operators set
- name - the PC type, for the message

  Level: developer
@*/
PetscErrorCode PGXPCCheckSquare(PC pc, const char name[])
{
  PetscInt M, N, m, n;

  PetscFunctionBegin;
  PetscCheck(pc->pmat, PetscObjectComm((PetscObject)pc), PETSC_ERR_ORDER, "%s: call PCSetOperators() (or KSPSetOperators()) first", name);
  PetscCall(MatGetSize(pc->pmat, &M, &N));
  PetscCall(MatGetLocalSize(pc->pmat, &m, &n));
  PetscCheck(M == N && m == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s needs a square matrix with square local blocks; got %" PetscInt_FMT " x %" PetscInt_FMT " (local %" PetscInt_FMT " x %" PetscInt_FMT ")", name, M, N, m, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}
