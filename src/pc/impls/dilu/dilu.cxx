/* PCDILU glue (placeholder until the implementation lands) */
#include <pgx/private/pgximpl.h>

const char *const PCDILUOrderings[] = {"natural", "multicolor", "PCDILUOrdering", "PC_DILU_ORDERING_", NULL};

PetscErrorCode PGXRegister_DILU(void)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}
