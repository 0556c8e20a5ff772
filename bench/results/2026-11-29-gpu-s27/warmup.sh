#!/usr/bin/env bash
# bench/cudapetsc/warmup.sh: PCDILU's warm-up apply in PCSetUp (-pc_dilu_warmup, on by default) against none, on
# unmodified ksp ex45 100^3 with CUDA Vecs (PETSc 3.25 with CUDA): KSPSolve and PCSetUp from -log_view (medians of R
# processes, min-max), and the warm-up's own time from -info. Each process solves once, as a user's run does, so its
# KSPSolve holds CUDA's lazy loading of every kernel it meets first. Run on the GPU host from the repository root
# with the 3.25 runtime and lib-gpu325 on LD_LIBRARY_PATH (see bench/cudapetsc/run.sh). PGX_WARMUP_REPS=R (5).
set -u
R=${PGX_WARMUP_REPS:-5}
B=${PGX_BUILD:-build-gpu325} L=${PGX_LIB:-lib-gpu325}
EX=$B/petsc-tutorials/ksp_ksp_ex45
echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); date: $(date -u +%FT%TZ); processes per cell: $R"
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR) printf "%.4f [%.4f-%.4f]", a[int((NR+1)/2)], a[1], a[NR]; else printf "-"}'; }
for ksp in cg gmres; do
  for pc in "dilu -pc_dilu_ordering multicolor" "dilu -pc_dilu_ordering natural"; do
    for w in 1 0; do
      solves="" setups="" warms="" its=""
      for ((k = 1; k <= R; k++)); do
        out=$($EX -da_grid_x 100 -da_grid_y 100 -da_grid_z 100 -dm_vec_type cuda -dm_mat_type aijcusparse -use_gpu_aware_mpi 0 -ksp_rtol 1e-8 -ksp_type $ksp -dll_append $PWD/$L/libpgx.so -pc_type $pc -pgx_device cuda -pc_dilu_warmup $w -ksp_converged_reason -log_view -info :pc 2>&1)
        solves+=" $(awk '$1 == "KSPSolve" {print $4; exit}' <<<"$out")"
        setups+=" $(awk '$1 == "PCSetUp" {print $4; exit}' <<<"$out")"
        warms+=" $(sed -n 's/.*warm-up apply on scratch zeros (-pc_dilu_warmup): \([0-9.]*\) ms.*/\1/p' <<<"$out" | head -1)"
        its+=" $(sed -n 's/.*CONVERGED_RTOL iterations \([0-9]*\).*/\1/p' <<<"$out" | head -1)"
      done
      printf '%-6s %-32s warmup %s  its %-16s KSPSolve %s  PCSetUp %s  warm-up ms %s\n' "$ksp" "$pc" "$w" "$(echo $its)" "$(med <<<"$solves")" "$(med <<<"$setups")" "$(med <<<"$warms")"
    done
  done
done
