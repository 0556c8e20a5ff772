static char help[] = "The symbolic phase of MATSOLVERPGX's LDL^T alone (no numeric factorization): ordering, etree, counts, structure,\n"
                     "supernodes and (with -mat_pgx_ldlt_method supernodal -mat_pgx_ldlt_panels, or on cuda) the supernodal plan.\n"
                     "  -poisson 48,64 (3D Poisson m^3)   -elasticity 30   -matrices name,... (missing ones: SKIPPED)   -reps <1> (best of)\n"
                     "Prints per problem n, nnz(L) (with the diagonal) and the best symbolic time; -info gives the time of each part.\n"
                     "  -orderings metis,nd (each ordering in turn; default: what -mat_pgx_ordering says)   -nd_procs 1,2,4 (nd: one run per\n"
                     "  value of -mat_pgx_ldlt_nd_procs)   prints per run the ordering, its time (best of -reps), flops, permutation hash,\n"
                     "  and for nd the ratios to metis (ordering time, nnz(L), flops)\n";
#include <petscmat.h>
#include <pgx.h>
#include <pgx/gallery.h>
#include "../../tests/ldlt/ldlt_problems.h"

typedef PetscErrorCode (*GetOrderingFn)(Mat, PetscReal *, PetscInt *, PetscInt *, unsigned long long *, PetscReal *);

/* one symbolic phase per rep with the options as they are; the best times, nnz(L), flops */
static PetscErrorCode RunOnce(const char *name, Mat A, PetscInt n, PetscReal *tbest, PetscReal *obest, PetscReal *nnzl, PetscReal *flops)
{
  PetscInt           reps = 1, depth = 0, procs = 0;
  PetscLogDouble     best = 1e300, obst = 1e300;
  MatInfo            finfo;
  unsigned long long hash = 0;
  const char        *ordering = "";
  char               what[64];

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  for (PetscInt r = 0; r < reps; r++) {
    Mat            F;
    MatFactorInfo  info;
    PetscLogDouble t0;
    PetscReal      tord;
    GetOrderingFn  getord;
    PetscErrorCode (*getsum)(Mat, const char **, const char **, const char **);
    PetscCall(MatGetFactor(A, MATSOLVERPGX, MAT_FACTOR_CHOLESKY, &F));
    PetscCall(MatFactorInfoInitialize(&info));
    t0 = MPI_Wtime();
    PetscCall(MatCholeskyFactorSymbolic(F, A, NULL, &info));
    best = PetscMin(best, MPI_Wtime() - t0);
    PetscCall(MatGetInfo(F, MAT_LOCAL, &finfo));
    PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatPGXLDLTGetOrdering_C", &getord));
    PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatPGXLDLTGetSummary_C", &getsum));
    PetscCheck(getord && getsum, PETSC_COMM_SELF, PETSC_ERR_SUP, "Not a MATSOLVERPGX factor");
    PetscCall(getord(F, &tord, &depth, &procs, &hash, flops));
    PetscCall(getsum(F, &ordering, NULL, NULL));
    obst = PetscMin(obst, tord);
    PetscCall(MatDestroy(&F));
  }
  if (depth > 0) PetscCall(PetscSNPrintf(what, sizeof(what), "%s d %" PetscInt_FMT " P %2" PetscInt_FMT, ordering, depth, procs));
  else PetscCall(PetscSNPrintf(what, sizeof(what), "%s", ordering));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s n %9" PetscInt_FMT " nnz(L) %12.0f symbolic %8.3f s ordering %-13s %8.3f s flops %10.4g hash %016llx\n", name, n, finfo.nz_used, best, what, obst, (double)*flops, hash));
  *tbest = (PetscReal)best;
  *obest = (PetscReal)obst;
  *nnzl  = (PetscReal)finfo.nz_used;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunSymbolic(const char *name, Mat A)
{
  PetscInt  n, no = 8, np = 16, procs[16];
  char     *ords[8];
  PetscBool set, pset;
  PetscReal t, ref_t = 0, ref_nnz = 0, ref_fl = 0, o, nnzl, fl;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-orderings", ords, &no, &set));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-nd_procs", procs, &np, &pset));
  if (!pset) np = 0;
  if (!set) {
    PetscCall(RunOnce(name, A, n, &t, &o, &nnzl, &fl));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; i < no; i++) {
    PetscBool isnd, ismetis;
    PetscCall(PetscStrcmp(ords[i], "nd", &isnd));
    PetscCall(PetscStrcmp(ords[i], "metis", &ismetis));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_pgx_ordering", ords[i]));
    for (PetscInt p = 0; p < (isnd && np ? np : 1); p++) {
      char v[16];
      if (isnd && np) {
        PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, procs[p]));
        PetscCall(PetscOptionsSetValue(NULL, "-mat_pgx_ldlt_nd_procs", v));
      }
      PetscCall(RunOnce(name, A, n, &t, &o, &nnzl, &fl));
      if (ismetis) {
        ref_t   = o;
        ref_nnz = nnzl;
        ref_fl  = fl;
      } else if (isnd && ref_t > 0) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s   nd (P %s) vs metis: ordering %.2fx faster, nnz(L) %+.1f%%, flops %+.1f%%\n", name, np ? v : "default", (double)(ref_t / o), (double)(100 * (nnzl / ref_nnz - 1)), (double)(100 * (fl / ref_fl - 1))));
      }
    }
    PetscCall(PetscFree(ords[i]));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_pgx_ordering"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char     *mats[32], name[64];
  PetscInt  nm = 32, np = 8, ne = 8, pois[8], elas[8];
  PetscBool set;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-poisson", pois, &np, &set));
  if (!set) np = 0;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-elasticity", elas, &ne, &set));
  if (!set) ne = 0;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-matrices", mats, &nm, &set));
  if (!set) nm = 0;
  for (PetscInt i = 0; i < np; i++) {
    Mat A;
    PetscCall(PGXMatCreateGallery(PETSC_COMM_SELF, "poisson3d", pois[i], &A));
    PetscCall(PetscSNPrintf(name, sizeof(name), "poisson3d-%" PetscInt_FMT, pois[i]));
    PetscCall(RunSymbolic(name, A));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt i = 0; i < ne; i++) {
    Mat A;
    PetscCall(LDLTElasticity(elas[i], &A));
    PetscCall(PetscSNPrintf(name, sizeof(name), "elasticity3d-%" PetscInt_FMT, elas[i]));
    PetscCall(RunSymbolic(name, A));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt i = 0; i < nm; i++) {
    char           path[PETSC_MAX_PATH_LEN];
    PetscBool      exists = PETSC_FALSE;
    PetscErrorCode ierr;
    Mat            A;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PGXMatrixPath(mats[i], path, sizeof(path));
    PetscCall(PetscPopErrorHandler());
    if (!ierr) PetscCall(PetscTestFile(path, 'r', &exists));
    if (!exists) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s SKIPPED (not found; set PGX_MATRICES)\n", mats[i]));
      PetscCall(PetscFree(mats[i]));
      continue;
    }
    PetscCall(PGXMatLoadMatrixMarket(PETSC_COMM_SELF, path, &A));
    PetscCall(RunSymbolic(mats[i], A));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFree(mats[i]));
  }
  PetscCall(PetscFinalize());
  return 0;
}
