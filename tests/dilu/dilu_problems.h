/* Test and benchmark problems of the PCDILU tests (header-only, static functions).

   DILUTestProblem(comm, name, m, &A): MATAIJ, rows split evenly over the ranks:
     poisson2d (m^2, 5-point), poisson3d (m^3, 7-point, diagonal 6), poisson3d27 (m^3, 27-point, diagonal 26),
     aniso3d (m^3, 7-point, k = 1e3 or 1 in a checkerboard of 4^3 subdomains, harmonic means on faces,
              times (1, 1e-2, 1e-4) in (x, y, z); symmetric),
     convdiff3d (m^3, 7-point diffusion + first-order upwind convection with velocity (2, 1, 0.5) in
              units of the diffusion coefficient over h: nonsymmetric M-matrix),
     random (n = m, nonsymmetric pattern: diagonal plus 5 random columns a row, fixed seed, diagonally
              dominant), zerodiag (poisson3d with a_ii = 0 in the row m^3/2 + 1).
   DILUTestLoadMM(comm, path, &A): Matrix Market coordinate real/integer/pattern, general/symmetric. */
#pragma once
#include <petscmat.h>
#include <pgx/private/pgxcompat.h>

static inline unsigned long long DILUTestLCG(unsigned long long *s)
{
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

static PetscErrorCode DILUTestProblem(MPI_Comm comm, const char name[], PetscInt m, Mat *A)
{
  PetscInt  n, rstart, rend, dim = 3, nnzrow = 7;
  PetscBool p2, p3, p27, an, cd, rnd, zd;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(name, "poisson2d", &p2));
  PetscCall(PetscStrcmp(name, "poisson3d", &p3));
  PetscCall(PetscStrcmp(name, "poisson3d27", &p27));
  PetscCall(PetscStrcmp(name, "aniso3d", &an));
  PetscCall(PetscStrcmp(name, "convdiff3d", &cd));
  PetscCall(PetscStrcmp(name, "random", &rnd));
  PetscCall(PetscStrcmp(name, "zerodiag", &zd));
  PetscCheck(p2 || p3 || p27 || an || cd || rnd || zd, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown test problem %s", name);
  if (p2) dim = 2, nnzrow = 5;
  if (p27) nnzrow = 27;
  if (rnd) dim = 1, nnzrow = 6;
  n = rnd ? m : (dim == 2 ? m * m : m * m * m);
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, nnzrow, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, nnzrow, NULL, nnzrow, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt    cols[27], nc = 0;
    PetscScalar vals[27], diag = 0;
    if (rnd) {
      unsigned long long s = 12345ull + 977ull * (unsigned long long)row;
      for (int t = 0; t < 5; t++) {
        PetscInt    c = (PetscInt)(DILUTestLCG(&s) % (unsigned long long)n), dup = 0;
        PetscScalar v = -(PetscScalar)(DILUTestLCG(&s) % 1000 + 1) / 1000.0;
        for (PetscInt q = 0; q < nc; q++) dup |= cols[q] == c;
        if (c == row || dup) continue;
        cols[nc] = c, vals[nc++] = v, diag -= v;
      }
      cols[nc] = row, vals[nc++] = diag + 1.0;
    } else if (dim == 2) {
      PetscInt i = row % m, j = row / m;
      if (j > 0) cols[nc] = row - m, vals[nc++] = -1;
      if (i > 0) cols[nc] = row - 1, vals[nc++] = -1;
      cols[nc] = row, vals[nc++] = 4;
      if (i < m - 1) cols[nc] = row + 1, vals[nc++] = -1;
      if (j < m - 1) cols[nc] = row + m, vals[nc++] = -1;
    } else {
      PetscInt i = row % m, j = (row / m) % m, k = row / (m * m);
      if (p27) {
        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              PetscInt ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || jj < 0 || kk < 0 || ii >= m || jj >= m || kk >= m) continue;
              cols[nc]   = ii + m * (jj + m * kk);
              vals[nc++] = (di || dj || dk) ? -1.0 : 26.0;
            }
      } else {
        const PetscInt  di[6] = {0, 0, -1, 1, 0, 0}, dj[6] = {0, -1, 0, 0, 1, 0}, dk[6] = {-1, 0, 0, 0, 0, 1};
        const PetscReal w[3]  = {1.0, 1e-2, 1e-4}, conv[3] = {2.0, 1.0, 0.5};
        PetscReal       ki    = 1.0;
        if (an) ki = (((i * 4) / m + (j * 4) / m + (k * 4) / m) % 2) ? 1e3 : 1.0;
        for (int t = 0; t < 6; t++) {
          PetscInt  ii = i + di[t], jj = j + dj[t], kk = k + dk[t], dir = di[t] ? 0 : (dj[t] ? 1 : 2);
          PetscBool up = (PetscBool)(di[t] + dj[t] + dk[t] < 0);
          PetscReal c  = 1.0;
          if (an) {
            PetscReal kj = 1.0;
            if (ii >= 0 && jj >= 0 && kk >= 0 && ii < m && jj < m && kk < m) kj = (((ii * 4) / m + (jj * 4) / m + (kk * 4) / m) % 2) ? 1e3 : 1.0;
            else kj = ki;
            c = w[dir] * 2.0 * ki * kj / (ki + kj);
          }
          if (cd && up) c += conv[dir]; /* upwind: flow in +x, +y, +z comes from the lower neighbor */
          diag += c;
          if (ii < 0 || jj < 0 || kk < 0 || ii >= m || jj >= m || kk >= m) continue;
          cols[nc] = ii + m * (jj + m * kk), vals[nc++] = -c;
        }
        if (!an && !cd) diag = 6.0;
        if (zd && row == n / 2 + 1) diag = 0.0;
        /* insert the diagonal in column order */
        PetscInt pos = 0;
        while (pos < nc && cols[pos] < row) pos++;
        for (PetscInt q = nc; q > pos; q--) cols[q] = cols[q - 1], vals[q] = vals[q - 1];
        cols[pos] = row, vals[pos] = diag, nc++;
      }
    }
    PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DILUTestLoadMM(MPI_Comm comm, const char path[], Mat *A)
{
  FILE     *f;
  char      line[1024];
  PetscInt  M, N, nz, rstart, rend;
  PetscBool symmetric = PETSC_FALSE, pattern = PETSC_FALSE;

  PetscFunctionBeginUser;
  f = fopen(path, "r");
  PetscCheck(f, comm, PETSC_ERR_FILE_OPEN, "Cannot open Matrix Market file %s", path);
  PetscCheck(fgets(line, sizeof(line), f), comm, PETSC_ERR_FILE_READ, "Empty file %s", path);
  PetscCheck(strstr(line, "coordinate"), comm, PETSC_ERR_SUP, "%s: only coordinate Matrix Market files", path);
  if (strstr(line, "symmetric")) symmetric = PETSC_TRUE;
  if (strstr(line, "pattern")) pattern = PETSC_TRUE;
  do PetscCheck(fgets(line, sizeof(line), f), comm, PETSC_ERR_FILE_READ, "%s: no size line", path);
  while (line[0] == '%');
  PetscCheck(sscanf(line, "%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT, &M, &N, &nz) == 3 && M == N, comm, PETSC_ERR_FILE_READ, "%s: bad size line (square matrices only)", path);
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, M, N));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetUp(*A));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt t = 0; t < nz; t++) {
    PetscInt    i, j;
    double      v = 1.0;
    PetscScalar s;
    PetscCheck(fgets(line, sizeof(line), f), comm, PETSC_ERR_FILE_READ, "%s: entry %" PetscInt_FMT " missing", path, t);
    if (pattern) PetscCheck(sscanf(line, "%" PetscInt_FMT " %" PetscInt_FMT, &i, &j) == 2, comm, PETSC_ERR_FILE_READ, "%s: bad entry", path);
    else PetscCheck(sscanf(line, "%" PetscInt_FMT " %" PetscInt_FMT " %lf", &i, &j, &v) == 3, comm, PETSC_ERR_FILE_READ, "%s: bad entry", path);
    i--, j--, s = v;
    if (i >= rstart && i < rend) PetscCall(MatSetValue(*A, i, j, s, ADD_VALUES));
    if (symmetric && i != j && j >= rstart && j < rend) PetscCall(MatSetValue(*A, j, i, s, ADD_VALUES));
  }
  fclose(f);
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ../shared/matrices/<name>.mtx via $PGX_MATRICES, $PGX_ROOT/../shared/matrices or ../shared/matrices */
static PetscErrorCode DILUTestMatrixPath(const char name[], char path[], size_t len)
{
  const char *env = getenv("PGX_MATRICES"), *root = getenv("PGX_ROOT");

  PetscFunctionBeginUser;
  if (env) PetscCall(PetscSNPrintf(path, len, "%s/%s.mtx", env, name));
  else if (root) PetscCall(PetscSNPrintf(path, len, "%s/../shared/matrices/%s.mtx", root, name));
  else PetscCall(PetscSNPrintf(path, len, "../shared/matrices/%s.mtx", name));
  PetscFunctionReturn(PETSC_SUCCESS);
}
