#!/usr/bin/env bash
# Installs the Debian 12 packages that PGX's build and tests need, only those missing.
# PETSc/SLEPc 3.18 (real, 32-bit indices, OpenMPI), METIS, PETSc's example sources (unmodified
# tutorials used by the tests), and the build tools. CUDA is optional: /usr/local/cuda (CUDA_DIR).
set -eu
# petsc-dev and slepc-dev accept any scalar type: with the complex packages asked for in the same apt-get, apt picks the
# complex SLEPc for slepc-dev and /usr/lib/slepc points to it. Ask for the real ones by name.
pkgs=(build-essential make petsc-dev slepc-dev libpetsc-real3.18-dev libslepc-real3.18-dev libmetis-dev libsuitesparse-dev libpetsc3.18-dev-examples libslepc3.18-dev-examples zlib1g-dev pkg-config openmpi-bin xz-utils)
# PGX_DEPS_64=1: also the 64-bit-index PETSc, for 'make check64' (CI runs it)
[ "${PGX_DEPS_64:-0}" = 1 ] && pkgs+=(libpetsc64-real3.18-dev libslepc64-real3.18-dev)
# PGX_DEPS_COMPLEX=1: also the complex-scalar PETSc/SLEPc, for 'make check-complex' (CI runs it)
[ "${PGX_DEPS_COMPLEX:-0}" = 1 ] && pkgs+=(libpetsc-complex3.18-dev libslepc-complex3.18-dev)
if [ -n "${PETSC_DIR:-}" ]; then
  echo "deps: PETSC_DIR=$PETSC_DIR is set; using that PETSc (install METIS and SLEPc yourself if it lacks them)."
  exit 0
fi
if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  echo "deps: this is not a Debian/Ubuntu system; install PETSc >= 3.18 (with SLEPc) yourself and set PETSC_DIR/PETSC_ARCH (and SLEPC_DIR)." >&2
  exit 1
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all present (${pkgs[*]})"
else
  echo "deps: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "deps: run as root, or install: apt-get install ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ -x "${CUDA_DIR:-/usr/local/cuda}/bin/nvcc" ]; then
  echo "deps: CUDA toolkit found in ${CUDA_DIR:-/usr/local/cuda}: the cuda backends will be built"
else
  echo "deps: no CUDA toolkit in ${CUDA_DIR:-/usr/local/cuda}: only the host backends will be built (set CUDA_DIR to build the cuda ones)"
fi
