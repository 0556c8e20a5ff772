/* tests/ldlt/ldlt_problems.h: problems of the LDL^T tests and benchmark */
#pragma once
#include <petscmat.h>

/* 3D linear elasticity, trilinear hexahedra on an m^3 grid of unit cube elements, E = 1, nu = 0.3, the face
   x = 0 clamped (its dofs are left out): SPD, 3 m (m+1)^2 unknowns */
static inline PetscErrorCode LDLTElasticity(PetscInt m, Mat *A)
{
  const PetscReal E = 1.0, nu = 0.3, lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  PetscReal       Ke[24][24], gp[2] = {-1 / PetscSqrtReal(3.0), 1 / PetscSqrtReal(3.0)}, h = 1.0 / m;
  PetscInt        np = m + 1, n = 3 * m * np * np;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(Ke, sizeof(Ke)));
  for (PetscInt a = 0; a < 2; a++)
    for (PetscInt b = 0; b < 2; b++)
      for (PetscInt c = 0; c < 2; c++) {
        PetscReal xi[3] = {gp[a], gp[b], gp[c]}, dN[8][3], B[6][24], w = h * h * h / 8;
        for (PetscInt v = 0; v < 8; v++) {
          PetscReal s[3] = {(PetscReal)((v & 1) ? 1 : -1), (PetscReal)((v & 2) ? 1 : -1), (PetscReal)((v & 4) ? 1 : -1)};
          for (PetscInt d = 0; d < 3; d++) {
            PetscReal g = s[d] / 8;
            for (PetscInt e = 0; e < 3; e++)
              if (e != d) g *= 1 + s[e] * xi[e];
            dN[v][d] = g * 2 / h;
          }
        }
        PetscCall(PetscMemzero(B, sizeof(B)));
        for (PetscInt v = 0; v < 8; v++) {
          B[0][3 * v]     = dN[v][0];
          B[1][3 * v + 1] = dN[v][1];
          B[2][3 * v + 2] = dN[v][2];
          B[3][3 * v]     = dN[v][1];
          B[3][3 * v + 1] = dN[v][0];
          B[4][3 * v + 1] = dN[v][2];
          B[4][3 * v + 2] = dN[v][1];
          B[5][3 * v]     = dN[v][2];
          B[5][3 * v + 2] = dN[v][0];
        }
        PetscReal Dm[6][6] = {{0}};
        for (PetscInt i = 0; i < 3; i++) {
          for (PetscInt j = 0; j < 3; j++) Dm[i][j] = lam;
          Dm[i][i] += 2 * mu;
          Dm[3 + i][3 + i] = mu;
        }
        for (PetscInt i = 0; i < 24; i++)
          for (PetscInt j = 0; j < 24; j++) {
            PetscReal s = 0;
            for (PetscInt k = 0; k < 6; k++)
              for (PetscInt l = 0; l < 6; l++) s += B[k][i] * Dm[k][l] * B[l][j];
            Ke[i][j] += w * s;
          }
      }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 81, NULL, A));
  for (PetscInt ez = 0; ez < m; ez++)
    for (PetscInt ey = 0; ey < m; ey++)
      for (PetscInt ex = 0; ex < m; ex++) {
        PetscInt    idx[24];
        PetscScalar vals[24 * 24];
        for (PetscInt v = 0; v < 8; v++) {
          PetscInt x = ex + (v & 1), y = ey + ((v >> 1) & 1), z = ez + ((v >> 2) & 1);
          for (PetscInt d = 0; d < 3; d++) idx[3 * v + d] = x == 0 ? -1 : 3 * ((x - 1) + m * (y + np * z)) + d;
        }
        for (PetscInt i = 0; i < 24; i++)
          for (PetscInt j = 0; j < 24; j++) vals[i * 24 + j] = Ke[i][j];
        PetscCall(MatSetValues(*A, 24, idx, 24, idx, vals, ADD_VALUES));
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

