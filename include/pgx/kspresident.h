/* kspresident.h: PGX's resident Krylov methods (included by pgx.h).

   -ksp_type pgxcg | pgxbcgs | pgxgmres run PETSc's CG, BiCGStab and GMRES with the operator, the vectors and
   the preconditioner resident in the memory of one backend (-pgx_device host: the reference kernels on host
   arrays; cuda: device arrays, only scalars come back per iteration). Same iterations and residual history
   as KSPCG, KSPBCGS, KSPGMRES with the same PC (none, jacobi, dilu, aips). */
#pragma once
#include <petscksp.h>

#define KSPPGXCG    "pgxcg"
#define KSPPGXBCGS  "pgxbcgs"
#define KSPPGXGMRES "pgxgmres"
