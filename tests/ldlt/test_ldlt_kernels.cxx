/* Reference kernels of the sparse LDL^T on a hand-checked 4x4 example (natural order):
       A = [4 2 0 0; 2 5 3 0; 0 3 6 1; 0 0 1 0]
   etree: parent = (1, 2, 3, -1), one level per column; L = unit lower bidiagonal with l10 = 0.5, l21 = 0.75,
   l32 = 1/3.75; D = (4, 4, 3.75, -1/3.75); fundamental supernodes {0}, {1}, {2,3}; inertia (3 positive, 1 negative). The last pivot -1/3.75 is
   perturbed to -1 with small = 0.5, repl = 1. */
#include <petscsys.h>
#include "../../src/mat/impls/ldlt/ldlt_kernels.h"
#include "../common/pgxtest.h"

namespace sym = pgx::kernels::ldlt::symbolic;
namespace ref = pgx::kernels::ldlt::reference;

static PetscInt nfail = 0;

static PetscErrorCode Run(void)
{
  const PetscInt    n = 4, rowptr[5] = {0, 2, 5, 8, 10}, col[10] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3}, iperm[4] = {0, 1, 2, 3};
  const PetscScalar aval[10]                                                                           = {4, 2, 2, 5, 3, 3, 6, 1, 1, 0};
  PetscInt          crowptr[5], *ccol, parent[4], cc[4], lcolptr[5], lrow[3], level[4], order[4], lptr[5], nl, snptr[5], ns, dest[10], rank, p, q, z;
  PetscScalar       lval[3], d[4], x[4], b[4] = {6, 10, 10, 1}, work[4];
  pgx::kernels::ldlt::PivotRule   rule = {0, 0, PETSC_FALSE};
  pgx::kernels::ldlt::NumericInfo info;
  const PetscReal                 tol  = 10 * PETSC_MACHINE_EPSILON;

  PetscFunctionBegin;
  PetscCall(sym::StructuralRank(n, rowptr, col, &rank));
  CHECK(rank == 4, "structural rank %d", (int)rank);
  PetscCall(sym::PermutedLower(n, rowptr, col, iperm, crowptr, &ccol));
  PetscCall(sym::EtreeCounts(n, crowptr, ccol, parent, cc));
  CHECK(parent[0] == 1 && parent[1] == 2 && parent[2] == 3 && parent[3] == -1, "etree");
  CHECK(cc[0] == 1 && cc[1] == 1 && cc[2] == 1 && cc[3] == 0, "column counts");
  lcolptr[0] = 0;
  for (PetscInt j = 0; j < n; j++) lcolptr[j + 1] = lcolptr[j] + cc[j];
  PetscCall(sym::Structure(n, crowptr, ccol, parent, lcolptr, lrow));
  CHECK(lrow[0] == 1 && lrow[1] == 2 && lrow[2] == 3, "structure");
  PetscCall(sym::Levels(n, parent, level, order, lptr, &nl));
  CHECK(nl == 4 && level[3] == 3, "levels");
  PetscCall(sym::Supernodes(n, parent, cc, snptr, &ns));
  CHECK(ns == 3 && snptr[2] == 2 && snptr[3] == 4, "supernodes %d", (int)ns); /* {0}, {1}, {2,3} */
  PetscCall(sym::ScatterMap(n, rowptr, col, iperm, lcolptr, lrow, dest));
  for (int method = 0; method < 2; method++) {
    PetscCall(ref::Load(n, 10, aval, dest, 3, lval, d, PETSC_FALSE));
    if (method == 0) PetscCall(ref::FactorColumn(n, lcolptr, lrow, nl, order, lptr, &rule, lval, d, &info));
    else PetscCall(ref::FactorSupernodal(n, lcolptr, lrow, ns, snptr, &rule, lval, d, &info));
    CHECK(PetscAbsScalar(lval[0] - 0.5) < tol && PetscAbsScalar(lval[1] - 0.75) < tol && PetscAbsScalar(lval[2] - 1 / 3.75) < tol, "L (method %d)", method);
    CHECK(PetscAbsScalar(d[0] - 4) < tol && PetscAbsScalar(d[1] - 4) < tol && PetscAbsScalar(d[2] - 3.75) < tol && PetscAbsScalar(d[3] + 1 / 3.75) < tol, "D (method %d)", method);
    CHECK(info.nperturbed == 0 && info.badcol == -1, "no perturbation");
  }
  PetscCall(ref::Solve(n, NULL, lcolptr, lrow, lval, d, PETSC_FALSE, 1, b, x, work)); /* A (1,1,1,1)^T = b */
  for (PetscInt i = 0; i < n; i++) CHECK(PetscAbsScalar(x[i] - 1) < 100 * tol, "x[%d] = %g", (int)i, (double)PetscRealPart(x[i]));
  PetscCall(ref::Inertia(n, d, &p, &q, &z));
  CHECK(p == 3 && q == 1 && z == 0, "inertia");
  rule.small = 0.5;
  rule.repl  = 1;
  PetscCall(ref::Load(n, 10, aval, dest, 3, lval, d, PETSC_FALSE));
  PetscCall(ref::FactorColumn(n, lcolptr, lrow, nl, order, lptr, &rule, lval, d, &info));
  CHECK(info.nperturbed == 1 && PetscAbsScalar(d[3] + 1) < tol, "static pivot: %d perturbed, d3 = %g", (int)info.nperturbed, (double)PetscRealPart(d[3]));
  rule.small = rule.repl = 0;
  const PetscScalar zval[10] = {0, 2, 2, 5, 3, 3, 6, 1, 1, 0};
  PetscCall(ref::Load(n, 10, zval, dest, 3, lval, d, PETSC_FALSE));
  PetscCall(ref::FactorColumn(n, lcolptr, lrow, nl, order, lptr, &rule, lval, d, &info));
  CHECK(info.badcol == 0, "zero pivot in column 0 (got %d)", (int)info.badcol);
  PetscCall(PetscFree(ccol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Run());
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d checks FAILED\n", (int)nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
