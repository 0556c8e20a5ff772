static char help[] = "Bitwise record of the host (reference) backends of PCDILU and PCAIPS.\n"
                     "  Prints, per problem, FNV-1a hashes of the bytes of E (PCDILU), of PCApply and PCApplyTranspose on a\n"
                     "  seeded random vector, and of E and PCApply after a second numeric setup (MatShift, SAME_NONZERO_PATTERN);\n"
                     "  PCAIPS: PCApply and PCApplyTranspose for orders 0..4. The host backends are the specification that the\n"
                     "  cuda backends are tested against (DILU's E bitwise), so a rewrite for speed must keep every bit.\n"
                     "  -expected <file> : compare each line with the file (recorded from the code before the rewrite)\n"
                     "  -type dilu|aips|all (default all)\n";
#include <petscksp.h>
#include <pgx/private/pgximpl.h>
#include "dilu_problems.h"
#include "../common/pgxtest.h"

static PetscInt nfail = 0;

static unsigned long long Hash(const void *p, size_t bytes)
{
  const unsigned char *c = (const unsigned char *)p;
  unsigned long long   h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; i++) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

static PetscErrorCode HashVec(Vec v, unsigned long long *h)
{
  const PetscScalar *a;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayRead(v, &a));
  *h = Hash(a, (size_t)n * sizeof(PetscScalar));
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HashE(PC pc, PetscInt n, unsigned long long *h)
{
  PetscScalar *E;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n, &E));
  PetscUseMethod(pc, "PCDILUGetDiagonal_C", (PC, PetscScalar *), (pc, E));
  *h = Hash(E, (size_t)n * sizeof(PetscScalar));
  PetscCall(PetscFree(E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the problems: name, gallery size (0: a tests/data matrix), negate */
typedef struct {
  const char *name;
  PetscInt    m;
  PetscBool   negate;
} Problem;
static const Problem problems[] = {
  {"poisson3d",     20,   PETSC_FALSE},
  {"aniso3d",       16,   PETSC_FALSE},
  {"convdiff3d",    16,   PETSC_FALSE},
  {"poisson3d27",   12,   PETSC_FALSE},
  {"random",        3001, PETSC_FALSE},
  {"BentPipe2D100", 0,    PETSC_FALSE},
  {"sherman1",      0,    PETSC_TRUE },
};

static PetscErrorCode LoadProblem(const Problem *p, Mat *A)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  if (p->m) PetscCall(DILUTestProblem(PETSC_COMM_SELF, p->name, p->m, A));
  else {
    PetscCall(DILUTestMatrixPath(p->name, path, sizeof(path)));
    PetscCall(DILUTestLoadMM(PETSC_COMM_SELF, path, A));
  }
  if (p->negate) PetscCall(MatScale(*A, -1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RandomVec(Mat A, unsigned long seed, Vec *x)
{
  PetscRandom r;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, x, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetSeed(r, seed));
  PetscCall(PetscRandomSeed(r));
  PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
  PetscCall(VecSetRandom(*x, r));
  PetscCall(PetscRandomDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one line: compared with the expected file's line of the same key (the text before ':') */
static PetscErrorCode Report(char **expected, PetscInt nexp, const char *line)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", line));
  if (!expected) PetscFunctionReturn(PETSC_SUCCESS);
  const char *colon = strchr(line, ':');
  size_t      klen  = colon ? (size_t)(colon - line) + 1 : strlen(line);
  PetscBool   found = PETSC_FALSE;
  for (PetscInt i = 0; i < nexp; i++) {
    if (strncmp(expected[i], line, klen)) continue;
    found = PETSC_TRUE;
    CHECK(!strcmp(expected[i], line), "bits changed:\n  expected %s\n  got      %s", expected[i], line);
  }
  CHECK(found, "no expected line for %.*s", (int)klen, line);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestDILU(const Problem *p, PCDILUOrdering ord, char **expected, PetscInt nexp)
{
  Mat                A;
  PC                 pc;
  Vec                r, y;
  PetscInt           n;
  unsigned long long hE, hy, hy2, ht, hE2, hs;
  char               line[512];

  PetscFunctionBeginUser;
  PetscCall(LoadProblem(p, &A));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
  PetscCall(PCSetType(pc, PCDILU));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCDILUSetOrdering(pc, ord));
  PetscCall(PetscOptionsSetValue(NULL, "-pgx_device", "host"));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  PetscCall(RandomVec(A, 11, &r));
  PetscCall(VecDuplicate(r, &y));
  PetscCall(HashE(pc, n, &hE));
  PetscCall(PCApply(pc, r, y));
  PetscCall(HashVec(y, &hy));
  PetscCall(PCApply(pc, r, y)); /* a second apply gives the same bits (no state kept between applies) */
  PetscCall(HashVec(y, &hy2));
  CHECK(hy == hy2, "%s %s: a second PCApply differs from the first", p->name, PCDILUOrderings[ord]);
  PetscCall(PCApplyTranspose(pc, r, y));
  PetscCall(HashVec(y, &ht));
  PetscCall(MatShift(A, 0.5));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetReusePreconditioner(pc, PETSC_FALSE));
  PetscCall(PCSetUp(pc));
  PetscCall(HashE(pc, n, &hE2));
  PetscCall(PCApply(pc, r, y));
  PetscCall(HashVec(y, &hs));
  PetscCall(PCApplyTranspose(pc, r, y));
  PetscCall(HashVec(y, &hy2));
  hs ^= hy2 * 3;
  PetscCall(PetscSNPrintf(line, sizeof(line), "dilu %s %s: E %016llx apply %016llx transpose %016llx resetup E %016llx applies %016llx", p->name, PCDILUOrderings[ord], hE, hy, ht, hE2, hs));
  PetscCall(Report(expected, nexp, line));
  PetscCall(PCDestroy(&pc));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestAIPS(const Problem *p, char **expected, PetscInt nexp)
{
  Mat  A;
  Vec  r, y;
  char line[512];

  PetscFunctionBeginUser;
  PetscCall(LoadProblem(p, &A));
  PetscCall(RandomVec(A, 13, &r));
  PetscCall(VecDuplicate(r, &y));
  for (PetscInt order = 0; order <= 4; order++) {
    PC                 pc;
    unsigned long long ha, ht, ha2;
    PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
    PetscCall(PCSetType(pc, PCAIPS));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCAIPSSetOrder(pc, order));
    PetscCall(PetscOptionsSetValue(NULL, "-pgx_device", "host"));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(PCSetUp(pc));
    PetscCall(PCApply(pc, r, y));
    PetscCall(HashVec(y, &ha));
    PetscCall(PCApply(pc, r, y));
    PetscCall(HashVec(y, &ha2));
    CHECK(ha == ha2, "%s aips order %" PetscInt_FMT ": a second PCApply differs from the first", p->name, order);
    PetscCall(PCApplyTranspose(pc, r, y));
    PetscCall(HashVec(y, &ht));
    PetscCall(PetscSNPrintf(line, sizeof(line), "aips %s order %" PetscInt_FMT ": apply %016llx transpose %016llx", p->name, order, ha, ht));
    PetscCall(Report(expected, nexp, line));
    PetscCall(PCDestroy(&pc));
  }
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the expected file: one line each */
static PetscErrorCode ReadExpected(const char *file, char ***lines, PetscInt *n)
{
  FILE *f;
  char  buf[512];

  PetscFunctionBeginUser;
  *n = 0;
  PetscCall(PetscMalloc1(256, lines));
  f = fopen(file, "r");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", file);
  while (fgets(buf, sizeof(buf), f) && *n < 256) {
    size_t len = strlen(buf);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = 0;
    if (!len || buf[0] == '#') continue;
    PetscCall(PetscStrallocpy(buf, &(*lines)[(*n)++]));
  }
  fclose(f);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      file[PETSC_MAX_PATH_LEN], type[16] = "all";
  PetscBool hasfile;
  char    **expected = NULL;
  PetscInt  nexp     = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PGXInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-expected", file, sizeof(file), &hasfile));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  if (hasfile) PetscCall(ReadExpected(file, &expected, &nexp));
  for (size_t i = 0; i < sizeof(problems) / sizeof(problems[0]); i++) {
    if (strcmp(type, "aips")) {
      PetscCall(TestDILU(&problems[i], PC_DILU_ORDERING_NATURAL, expected, nexp));
      PetscCall(TestDILU(&problems[i], PC_DILU_ORDERING_MULTICOLOR, expected, nexp));
    }
    if (strcmp(type, "dilu")) PetscCall(TestAIPS(&problems[i], expected, nexp));
  }
  for (PetscInt i = 0; i < nexp; i++) PetscCall(PetscFree(expected[i]));
  PetscCall(PetscFree(expected));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " checks FAILED\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
