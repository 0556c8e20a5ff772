#!/usr/bin/env bash
# bench/cudapetsc/finest_residuals.sh: why GAMG + one PGX DILU step on the finest level (r1) stays at 10 GMRES
# iterations on ex45 128^3 (issue 12). Runs unmodified ksp ex45 (PETSc 3.25 build, host Vecs, PGX's host backend:
# the iterations do not depend on the device) with GAMG's default smoother, r1, and variants of the finest and the
# coarser levels' smoothing, and prints each run's residual norms at iterations 7-10 and its converged reason.
# rtol 1e-8 of the initial residual norm (1.0175e3 at 128^3) asks for 1.0175e-5 at the last iteration.
# Needs 'make gpuhost325' (build-gpu325/, lib-gpu325/) and PETSc 3.25 at /opt/petsc-3.25-cuda; no GPU.
# Usage: bench/cudapetsc/finest_residuals.sh [N]   (default 128; GAMG's finest level is then level 4)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
N=${1:-128}
export LD_LIBRARY_PATH=/opt/cudax/lib/stubs:/opt/petsc-3.25-cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
P="build-gpu325/petsc-tutorials/ksp_ksp_ex45 -da_grid_x $N -da_grid_y $N -da_grid_z $N -ksp_type gmres -pc_type gamg -ksp_rtol 1e-8 -ksp_monitor -ksp_converged_reason -dll_append $ROOT/lib-gpu325/libpgx.so -pgx_device host"
F=$(timeout 300 $P -ksp_max_it 1 -ksp_view 2>&1 | sed -n 's/.*levels=\([0-9]*\).*/\1/p' | head -1); F=$((${F:-1} - 1))
R1="-mg_levels_${F}_ksp_type richardson -mg_levels_${F}_ksp_max_it 1 -mg_levels_${F}_pc_type dilu -mg_levels_${F}_pc_dilu_ordering multicolor"
echo "ex45 $N^3, GAMG's finest level $F; date $(date -u +%FT%TZ); host $(uname -n), $(nproc) cores"
variants=(
  "gamg|"
  "r1|$R1"
  "r1 scale 1.1|$R1 -mg_levels_${F}_ksp_richardson_scale 1.1"
  "r1 scale 1.2|$R1 -mg_levels_${F}_ksp_richardson_scale 1.2"
  "r1 scale 1.3|$R1 -mg_levels_${F}_ksp_richardson_scale 1.3"
  "r2 (two DILU steps)|$R1 -mg_levels_${F}_ksp_max_it 2"
  "r1 natural ordering|$R1 -mg_levels_${F}_pc_dilu_ordering natural"
  "r1 W cycle|$R1 -pc_mg_cycle_type w"
  "gamg W cycle|-pc_mg_cycle_type w"
  "r1 coarse3|$R1 -mg_levels_ksp_max_it 3 -mg_levels_${F}_ksp_max_it 1"
  "r1, level $((F - 1)) Chebyshev 4 steps|$R1 -mg_levels_$((F - 1))_ksp_max_it 4"
  "r1, dilu under Chebyshev on level $((F - 1))|$R1 -mg_levels_$((F - 1))_pc_type dilu -mg_levels_$((F - 1))_pc_dilu_ordering multicolor"
)
for v in "${variants[@]}"; do
  name=${v%%|*} opts=${v#*|}
  echo "== $name: $opts"
  # shellcheck disable=SC2086
  timeout 600 $P $opts 2>&1 | grep -E "^ *(0|7|8|9|10) KSP Residual|converged|DIVERGED"
done
