#!/usr/bin/env bash
# bench/startup/run.sh: what a user's run on a GPU gains or pays from libpgx loading cuBLAS, cuSPARSE and cuSOLVER at
# their first use (5ae7172) instead of linking them. Each row runs an unmodified PETSc/SLEPc tutorial twice over:
#   "first use": as libpgx is now (a library is loaded when a PGX path first needs it);
#   "linked":    the same with the three libraries preloaded into the process (LD_PRELOAD), which is what linking
#                libpgx against them did: the loader maps and initializes them at start-up.
# Columns: wall seconds of the whole process (median of R runs, min-max), max RSS where /usr/bin/time exists, and
# the -log_view events that hold the solve (KSPSolve, PCSetUp, EPSSetUp, EPSSolve; median).
# Run from the repository root on the GPU host after `source .gpuhost/env.sh`, with LD_LIBRARY_PATH holding the
# library (tools/gpuhost-run.sh's layout: lib/, build/). PGX_STARTUP_REPS=R (default 3).
set -u
R=${PGX_STARTUP_REPS:-3}
LIB=$PWD/lib/libpgx.so
PRE=libcublas.so.13:libcusparse.so.12:libcusolver.so.12
T=$(command -v /usr/bin/time || true)
echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); date: $(date -u +%FT%TZ); runs per cell: $R"
echo "preloaded for 'linked': $PRE"
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR) printf "%.3f [%.3f-%.3f]", a[int((NR+1)/2)], a[1], a[NR]; else printf "-"}'; }
row() { # name events command...
  local name=$1 events=$2; shift 2
  for mode in "first use" linked; do
    local walls="" rss="" ev=() out
    declare -A evs=()
    for ((k = 1; k <= R; k++)); do
      local t0 t1
      t0=${EPOCHREALTIME/,/.}
      if [ "$mode" = linked ]; then
        if [ -n "$T" ]; then out=$(LD_PRELOAD=$PRE $T -f "RSS %M" "$@" -log_view 2>&1); else out=$(LD_PRELOAD=$PRE "$@" -log_view 2>&1); fi
      else
        if [ -n "$T" ]; then out=$($T -f "RSS %M" "$@" -log_view 2>&1); else out=$("$@" -log_view 2>&1); fi
      fi
      t1=${EPOCHREALTIME/,/.}
      walls+=" $(awk -v a=$t0 -v b=$t1 'BEGIN {printf "%.3f", b - a}')"
      rss+=" $(grep -oE '^RSS [0-9]+' <<<"$out" | awk '{print $2/1024}')"
      for e in $events; do evs[$e]+=" $(awk -v e=$e '$1 == e {print $4; exit}' <<<"$out")"; done
      grep -qE "CONVERGED|eigenpairs|Norm of error|Number of converged" <<<"$out" || { echo "  $name ($mode): run $k did not report a solution:"; tail -5 <<<"$out" | sed 's/^/    /'; }
    done
    printf '%-34s %-10s wall %s s  RSS %s MB' "$name" "$mode" "$(med <<<"$walls")" "$(med <<<"$rss")"
    for e in $events; do printf '  %s %s' "$e" "$(med <<<"${evs[$e]}")"; done
    echo
    unset evs
  done
}
TUT=build/petsc-tutorials SLT=build/slepc-tutorials
row "ksp ex2 10x10, dilu (default)" "KSPSolve PCSetUp" $TUT/ksp_ksp_ex2 -m 10 -n 10 -dll_append $LIB -pc_type dilu -pgx_device cuda
row "ksp ex45 100^3, pgxcg + dilu-mc" "KSPSolve PCSetUp" $TUT/ksp_ksp_ex45 -da_grid_x 100 -da_grid_y 100 -da_grid_z 100 -ksp_rtol 1e-8 -dll_append $LIB -ksp_type pgxcg -pc_type dilu -pc_dilu_ordering multicolor -pgx_device cuda -ksp_converged_reason
row "ksp ex45 100^3, gmres + dilu nat." "KSPSolve PCSetUp" $TUT/ksp_ksp_ex45 -da_grid_x 100 -da_grid_y 100 -da_grid_z 100 -ksp_rtol 1e-8 -dll_append $LIB -pc_type dilu -pc_dilu_ordering natural -pgx_device cuda -ksp_converged_reason
row "ksp ex2 300x300, pgx Cholesky" "KSPSolve PCSetUp" $TUT/ksp_ksp_ex2 -m 300 -n 300 -dll_append $LIB -ksp_type preonly -pc_type cholesky -pc_factor_mat_solver_type pgx -pgx_device cuda
row "eps ex1 n=4096, eps pgx" "EPSSetUp EPSSolve" $SLT/eps_ex1 -n 4096 -dll_append $LIB -eps_type pgx -pgx_device cuda
