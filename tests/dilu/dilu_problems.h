/* Test and benchmark problems of the PCDILU tests (header-only, static functions).

   DILUTestProblem(comm, name, m, &A): MATAIJ, rows split evenly over the ranks:
     poisson2d, poisson3d, poisson3d27, aniso3d, convdiff3d, helmholtz3d: PGXMatCreateGallery() (include/pgx/gallery.h);
     random (n = m, nonsymmetric pattern: diagonal plus 5 random columns a row, fixed seed, diagonally
              dominant), zerodiag (the 7-point Laplacian with a_ii = 0 in the row m^3/2 + 1).
   DILUTestLoadMM(), DILUTestMatrixPath(): PGXMatLoadMatrixMarket(), PGXMatrixPath(). */
#pragma once
#include <petscmat.h>
#include <pgx/gallery.h>
#include <pgx/private/pgxcompat.h>

static inline unsigned long long DILUTestLCG(unsigned long long *s)
{
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

static PetscErrorCode DILUTestProblem(MPI_Comm comm, const char name[], PetscInt m, Mat *A)
{
  PetscInt  n, rstart, rend, dim = 3, nnzrow = 7;
  PetscBool p2, p3, p27, an, cd, hh, rnd, zd;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(name, "poisson2d", &p2));
  PetscCall(PetscStrcmp(name, "poisson3d", &p3));
  PetscCall(PetscStrcmp(name, "poisson3d27", &p27));
  PetscCall(PetscStrcmp(name, "aniso3d", &an));
  PetscCall(PetscStrcmp(name, "convdiff3d", &cd));
  PetscCall(PetscStrcmp(name, "helmholtz3d", &hh));
  PetscCall(PetscStrcmp(name, "random", &rnd));
  PetscCall(PetscStrcmp(name, "zerodiag", &zd));
  PetscCheck(p2 || p3 || p27 || an || cd || hh || rnd || zd, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown test problem %s", name);
  if (!rnd && !zd) {
    PetscCall(PGXMatCreateGallery(comm, name, m, A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
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
  PetscFunctionBeginUser;
  PetscCall(PGXMatLoadMatrixMarket(comm, path, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DILUTestMatrixPath(const char name[], char path[], size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PGXMatrixPath(name, path, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}
