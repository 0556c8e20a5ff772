/* PCAIPS glue (placeholder until the implementation lands) */
#include <pgx/private/pgximpl.h>

PetscErrorCode PGXRegister_AIPS(void)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}
