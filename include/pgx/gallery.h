/* gallery.h: test and benchmark problems (used by tests/, bench/ and examples/).

   PGXMatCreateGallery(comm, name, m, &A) builds a MATAIJ matrix, rows split evenly over the ranks:
     "laplace1d"   n = m,   tridiagonal [-1 2 -1]
     "poisson2d"   n = m^2, 5-point Laplacian
     "poisson3d"   n = m^3, 7-point Laplacian (Dirichlet, h-scaled out: diagonal 6)
     "poisson3d27" n = m^3, 27-point stencil (diagonal 26, off-diagonals -1)
     "aniso3d"     n = m^3, 7-point heterogeneous anisotropic diffusion: coefficient k(x)=1e3 or 1 in
                   a checkerboard of 4^3 subdomains, times (1, 1e-2, 1e-4) in (x, y, z); x is the
                   fastest index, so the strong coupling is inside the tridiagonal part
     "convdiff3d"  n = m^3, 7-point convection-diffusion, first-order upwind for the velocity
                   (1, 0.5, 0.25) at cell Peclet number 2 in x: nonsymmetric, M-matrix
     "helmholtz3d" n = m^3, poisson3d minus k^2 h^2 (1 + 0.1 i) on the diagonal, k^2 h^2 = 1: complex symmetric
                   (A = A^T, not Hermitian) with an indefinite real part; real builds drop the imaginary part
   PGXMatLoadMatrixMarket(comm, path, &A): coordinate real/integer/pattern, general or symmetric, plain or gzip
     (the symmetric lower triangle is expanded), into MATAIJ.
   PGXMatrixPath(name, path, len): the file of a test matrix: $PGX_MATRICES/name.mtx(.gz) when PGX_MATRICES
     is set, else <PGX source tree>/tests/data/name.mtx.gz (in the repository), else
     <PGX source tree>/../shared/matrices/name.mtx (via $PGX_ROOT or the cwd). */
#pragma once
#include <petscmat.h>

PETSC_EXTERN PetscErrorCode PGXMatCreateGallery(MPI_Comm, const char[], PetscInt, Mat *);
PETSC_EXTERN PetscErrorCode PGXMatLoadMatrixMarket(MPI_Comm, const char[], Mat *);
PETSC_EXTERN PetscErrorCode PGXMatrixPath(const char[], char[], size_t);
