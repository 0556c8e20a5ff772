/* Test problems for tests/, bench/ and examples/: stencil generators and a Matrix Market reader.
   See include/pgx/gallery.h for the list. */
#include <pgx/private/pgximpl.h>
#include <pgx/gallery.h>
#include <vector>
#include <string>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cctype>
#include <algorithm>
#include <zlib.h>

namespace
{
enum class Problem { Laplace1D, Poisson2D, Poisson3D, Poisson3D27, Aniso3D, ConvDiff3D, Helmholtz3D };

/* heterogeneous coefficient of aniso3d: 1e3 or 1 in a 4x4x4 checkerboard of subdomains */
inline PetscReal AnisoCoef(PetscInt i, PetscInt j, PetscInt k, PetscInt m)
{
  PetscInt b = (4 * i) / m + (4 * j) / m + (4 * k) / m;
  return (b % 2) ? 1.0e3 : 1.0;
}

/* helmholtz3d's diagonal shift: k^2 h^2 (1 + 0.1 i) with k^2 h^2 = 1, an absorbing (complex) shift that makes the
   operator complex symmetric and indefinite in its real part; real builds keep the real part only */
inline PetscScalar HelmholtzShift()
{
#if defined(PETSC_USE_COMPLEX)
  return PetscScalar(1.0, 0.1);
#else
  return 1.0;
#endif
}

/* Row 'row' of the stencil matrix; cols/vals sized 27 */
PetscInt StencilRow(Problem p, PetscInt m, PetscInt row, PetscInt *cols, PetscScalar *vals)
{
  PetscInt nz = 0;
  switch (p) {
  case Problem::Laplace1D:
    if (row > 0) cols[nz] = row - 1, vals[nz++] = -1.0;
    cols[nz] = row, vals[nz++] = 2.0;
    if (row < m - 1) cols[nz] = row + 1, vals[nz++] = -1.0;
    break;
  case Problem::Poisson2D: {
    PetscInt i = row % m, j = row / m;
    if (j > 0) cols[nz] = row - m, vals[nz++] = -1.0;
    if (i > 0) cols[nz] = row - 1, vals[nz++] = -1.0;
    cols[nz] = row, vals[nz++] = 4.0;
    if (i < m - 1) cols[nz] = row + 1, vals[nz++] = -1.0;
    if (j < m - 1) cols[nz] = row + m, vals[nz++] = -1.0;
  } break;
  case Problem::Poisson3D:
  case Problem::Helmholtz3D:
  case Problem::ConvDiff3D: {
    PetscInt  i = row % m, j = (row / m) % m, k = row / (m * m), m2 = m * m;
    PetscReal pe[3] = {0, 0, 0};
    if (p == Problem::ConvDiff3D) pe[0] = 2.0, pe[1] = 1.0, pe[2] = 0.5; /* cell Peclet numbers of velocity (1, 0.5, 0.25) */
    if (k > 0) cols[nz] = row - m2, vals[nz++] = -1.0 - pe[2];
    if (j > 0) cols[nz] = row - m, vals[nz++] = -1.0 - pe[1];
    if (i > 0) cols[nz] = row - 1, vals[nz++] = -1.0 - pe[0];
    cols[nz] = row, vals[nz++] = 6.0 + pe[0] + pe[1] + pe[2];
    if (p == Problem::Helmholtz3D) vals[nz - 1] -= HelmholtzShift();
    if (i < m - 1) cols[nz] = row + 1, vals[nz++] = -1.0;
    if (j < m - 1) cols[nz] = row + m, vals[nz++] = -1.0;
    if (k < m - 1) cols[nz] = row + m2, vals[nz++] = -1.0;
  } break;
  case Problem::Poisson3D27: {
    PetscInt i = row % m, j = (row / m) % m, k = row / (m * m);
    for (PetscInt dk = -1; dk <= 1; dk++)
      for (PetscInt dj = -1; dj <= 1; dj++)
        for (PetscInt di = -1; di <= 1; di++) {
          PetscInt ii = i + di, jj = j + dj, kk = k + dk;
          if (ii < 0 || jj < 0 || kk < 0 || ii >= m || jj >= m || kk >= m) continue;
          cols[nz]   = ii + m * (jj + m * kk);
          vals[nz++] = (di == 0 && dj == 0 && dk == 0) ? 26.0 : -1.0;
        }
  } break;
  case Problem::Aniso3D: {
    PetscInt        i = row % m, j = (row / m) % m, k = row / (m * m);
    const PetscReal w[3] = {1.0, 1.0e-2, 1.0e-4};
    const PetscInt  d[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    PetscReal       kp = AnisoCoef(i, j, k, m), diag = 0;
    PetscInt        ndiag = 0;
    /* neighbours in increasing column order: -z, -y, -x, self, +x, +y, +z */
    const PetscInt order[6][2] = {{2, -1}, {1, -1}, {0, -1}, {0, 1}, {1, 1}, {2, 1}};
    for (int t = 0; t < 6; t++) {
      int      a = order[t][0], s = order[t][1];
      PetscInt ii = i + s * d[a][0], jj = j + s * d[a][1], kk = k + s * d[a][2];
      if (t == 3) ndiag = nz++; /* reserve the diagonal slot */
      if (ii < 0 || jj < 0 || kk < 0 || ii >= m || jj >= m || kk >= m) {
        diag += w[a] * kp; /* Dirichlet face */
        continue;
      }
      PetscReal kq = AnisoCoef(ii, jj, kk, m), kf = w[a] * 2.0 * kp * kq / (kp + kq);
      cols[nz]     = ii + m * (jj + m * kk);
      vals[nz++]   = -kf;
      diag += kf;
    }
    cols[ndiag] = row;
    vals[ndiag] = diag;
  } break;
  }
  return nz;
}
} // namespace

/*@C
  PGXMatCreateGallery - Creates a test problem: a stencil matrix of a named kind (see include/pgx/gallery.h).

  Collective

  Input Parameters:
+ comm - the communicator; rows are split evenly over its ranks
. name - laplace1d, poisson2d, poisson3d, poisson3d27, aniso3d, convdiff3d or helmholtz3d
- m    - points per direction (n = m, m^2 or m^3)

  Output Parameter:
. A - the `MATAIJ` matrix, assembled

  Level: beginner

.seealso: `PGXMatLoadMatrixMarket()`
@*/
PetscErrorCode PGXMatCreateGallery(MPI_Comm comm, const char name[], PetscInt m, Mat *A)
{
  struct {
    const char *name;
    Problem     p;
    int         dim, nz;
  } table[] = {
    {"laplace1d", Problem::Laplace1D, 1, 3},    {"poisson2d", Problem::Poisson2D, 2, 5}, {"poisson3d", Problem::Poisson3D, 3, 7}, {"poisson3d27", Problem::Poisson3D27, 3, 27},
    {"aniso3d", Problem::Aniso3D, 3, 7},        {"convdiff3d", Problem::ConvDiff3D, 3, 7}, {"helmholtz3d", Problem::Helmholtz3D, 3, 7},
  };
  PetscInt    idx = -1, n, rstart, rend, cols[27];
  PetscScalar vals[27];

  PetscFunctionBegin;
  PetscAssertPointer(A, 4);
  for (size_t t = 0; t < sizeof(table) / sizeof(table[0]); t++) {
    PetscBool match;
    PetscCall(PetscStrcmp(name, table[t].name, &match));
    if (match) idx = (PetscInt)t;
  }
  PetscCheck(idx >= 0, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown gallery problem %s: use laplace1d, poisson2d, poisson3d, poisson3d27, aniso3d, convdiff3d or helmholtz3d", name);
  PetscCheck(m >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "Gallery problem %s needs m >= 1, got %" PetscInt_FMT, name, m);
  n = m;
  for (int d = 1; d < table[idx].dim; d++) n *= m;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, table[idx].nz, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, table[idx].nz, NULL, table[idx].nz, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt nz = StencilRow(table[idx].p, m, row, cols, vals);
    PetscCall(MatSetValues(*A, 1, &row, nz, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXMatrixPath - The path of a test matrix from the SuiteSparse set.

  Not Collective

  Input Parameters:
+ name - the matrix name (BentPipe2D100) or a path to a .mtx or .mtx.gz file
- len  - the length of path

  Output Parameter:
. path - the first that exists of: $PGX_MATRICES/name.mtx(.gz) when PGX_MATRICES is set (only there);
         otherwise $PGX_ROOT/tests/data/name.mtx.gz (the matrices the test suite reads, in the repository),
         then $PGX_ROOT/../shared/matrices/name.mtx (the larger set beside a developer's checkout).
         PGX_ROOT defaults to the current directory.

  Level: developer

.seealso: `PGXMatLoadMatrixMarket()`
@*/
PetscErrorCode PGXMatrixPath(const char name[], char path[], size_t len)
{
  const char *dir = getenv("PGX_MATRICES"), *root = getenv("PGX_ROOT");
  char        tried[PETSC_MAX_PATH_LEN * 3] = "";
  PetscBool   exists = PETSC_FALSE;

  PetscFunctionBegin;
  if (!root) root = ".";
  if (strchr(name, '/') || strstr(name, ".mtx")) {
    PetscCall(PetscStrncpy(path, name, len));
    PetscCall(PetscTestFile(path, 'r', &exists));
    PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Test matrix file %s not found", name);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::vector<std::string> candidates;
  if (dir) candidates = {std::string(dir) + "/" + name + ".mtx", std::string(dir) + "/" + name + ".mtx.gz"};
  else candidates = {std::string(root) + "/tests/data/" + name + ".mtx.gz", std::string(root) + "/../shared/matrices/" + name + ".mtx"};
  for (const std::string &c : candidates) {
    PetscCall(PetscStrncpy(path, c.c_str(), len));
    PetscCall(PetscTestFile(path, 'r', &exists));
    if (exists) break;
    PetscCall(PetscStrlcat(tried, tried[0] ? ", " : "", sizeof(tried)));
    PetscCall(PetscStrlcat(tried, c.c_str(), sizeof(tried)));
  }
  PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Test matrix %s not found (looked for %s): set PGX_MATRICES to the folder holding the SuiteSparse .mtx files", name, tried);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PGXMatLoadMatrixMarket - Reads a Matrix Market file (coordinate; real, integer or pattern; general or
  symmetric) into a `MATAIJ` matrix whose rows are split evenly over the ranks.

  Collective

  Input Parameters:
+ comm - the communicator
- file - the .mtx file (see `PGXMatrixPath()`)

  Output Parameter:
. A - the assembled matrix; a symmetric file's lower triangle is mirrored

  Level: beginner

.seealso: `PGXMatCreateGallery()`
@*/
PetscErrorCode PGXMatLoadMatrixMarket(MPI_Comm comm, const char file[], Mat *A)
{
  gzFile                fp;
  char                  line[1024], obj[64] = "", fmt[64] = "", field[64] = "", sym[64] = "";
  long long             M, N, nnz;
  PetscInt              rstart, rend;
  std::vector<PetscInt> ri, ci;
  std::vector<PetscScalar> va;
  PetscBool             pattern, symmetric;

  PetscFunctionBegin;
  PetscAssertPointer(A, 3);
  fp = gzopen(file, "rb"); /* reads plain and gzip-compressed files alike */
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open Matrix Market file %s", file);
  if (!gzgets(fp, line, sizeof(line)) || sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field, sym) != 4) {
    gzclose(fp);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s is not a Matrix Market file (no %%%%MatrixMarket header)", file);
  }
  for (char *s : {obj, fmt, field, sym})
    for (char *c = s; *c; c++) *c = (char)tolower(*c);
  if (strcmp(obj, "matrix") || strcmp(fmt, "coordinate") || !(strcmp(field, "real") == 0 || strcmp(field, "integer") == 0 || strcmp(field, "pattern") == 0) || !(strcmp(sym, "general") == 0 || strcmp(sym, "symmetric") == 0)) {
    gzclose(fp);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: Matrix Market '%s %s %s %s' is not supported (coordinate real/integer/pattern, general/symmetric only)", file, obj, fmt, field, sym);
  }
  pattern   = strcmp(field, "pattern") == 0 ? PETSC_TRUE : PETSC_FALSE;
  symmetric = strcmp(sym, "symmetric") == 0 ? PETSC_TRUE : PETSC_FALSE;
  do {
    if (!gzgets(fp, line, sizeof(line))) {
      gzclose(fp);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: no size line", file);
    }
  } while (line[0] == '%');
  if (sscanf(line, "%lld %lld %lld", &M, &N, &nnz) != 3) {
    gzclose(fp);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad size line '%s'", file, line);
  }
  {
    PetscInt nloc = PETSC_DECIDE, Mi = (PetscInt)M;
    PetscCall(PetscSplitOwnership(comm, &nloc, &Mi));
    PetscCallMPI(MPI_Scan(&nloc, &rend, 1, MPIU_INT, MPI_SUM, comm));
    rstart = rend - nloc;
  }
  /* every rank reads the file (test matrices are small) and keeps its rows */
  for (long long t = 0; t < nnz; t++) {
    long long i, j;
    double    v = 1.0;
    int       got;
    if (!gzgets(fp, line, sizeof(line))) break;
    got = pattern ? sscanf(line, "%lld %lld", &i, &j) : sscanf(line, "%lld %lld %lf", &i, &j, &v);
    if (got != (pattern ? 2 : 3) || i < 1 || j < 1 || i > M || j > N) {
      gzclose(fp);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad entry %lld: '%s'", file, t + 1, line);
    }
    i--, j--;
    if (i >= rstart && i < rend) ri.push_back((PetscInt)i), ci.push_back((PetscInt)j), va.push_back(v);
    if (symmetric && i != j && j >= rstart && j < rend) ri.push_back((PetscInt)j), ci.push_back((PetscInt)i), va.push_back(v);
  }
  gzclose(fp);
  {
    PetscInt              nloc = rend - rstart, cstart, cend;
    std::vector<PetscInt> dnz(nloc, 0), onz(nloc, 0);
    {
      PetscInt nc = PETSC_DECIDE, Ni = (PetscInt)N;
      PetscCall(PetscSplitOwnership(comm, &nc, &Ni));
      PetscCallMPI(MPI_Scan(&nc, &cend, 1, MPIU_INT, MPI_SUM, comm));
      cstart = cend - nc;
    }
    for (size_t t = 0; t < ri.size(); t++) (ci[t] >= cstart && ci[t] < cend ? dnz : onz)[ri[t] - rstart]++;
    for (PetscInt r = 0; r < nloc; r++) dnz[r] = PetscMin(dnz[r], cend - cstart), onz[r] = PetscMin(onz[r], (PetscInt)N - (cend - cstart));
    PetscCall(MatCreate(comm, A));
    PetscCall(MatSetSizes(*A, nloc, cend - cstart, (PetscInt)M, (PetscInt)N));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnz.data()));
    PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnz.data(), 0, onz.data()));
    for (size_t t = 0; t < ri.size(); t++) PetscCall(MatSetValue(*A, ri[t], ci[t], va[t], ADD_VALUES));
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
