#!/usr/bin/env bash
# bench/startup/eps_phases.sh: where EPS pgx's first EPSSolve spends the time that loading cuBLAS at first use adds
# (bench/startup: +80 ms in EPSSolve at n = 4096 against cuBLAS preloaded). Unmodified SLEPc eps ex1, -info's EPSPGX
# solve line (create, set matrix, reduction, T, eigenvalues, order) and EPSSetUp/EPSSolve from -log_view, with cuBLAS
# loaded at first use or preloaded, each under CUDA's lazy and eager module loading. Run on the GPU host after
# `source .gpuhost/env.sh`, LD_LIBRARY_PATH holding lib/. PGX_PHASES_N (4096), PGX_PHASES_REPS (3).
set -u
N=${PGX_PHASES_N:-4096} R=${PGX_PHASES_REPS:-3}
PRE=libcublas.so.13:libcusparse.so.12:libcusolver.so.12
echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); date: $(date -u +%FT%TZ); n $N; runs per cell: $R"
for loading in LAZY EAGER; do
  for mode in "first use" linked; do
    for ((k = 1; k <= R; k++)); do
      t0=${EPOCHREALTIME/,/.}
      if [ "$mode" = linked ]; then pre=$PRE; else pre=; fi
      out=$(CUDA_MODULE_LOADING=$loading LD_PRELOAD=$pre build/slepc-tutorials/eps_ex1 -n $N -dll_append $PWD/lib/libpgx.so -eps_type pgx -pgx_device cuda -log_view -info :eps 2>&1)
      t1=${EPOCHREALTIME/,/.}
      printf '%-5s %-9s run %d: wall %s s  EPSSetUp %s  EPSSolve %s | %s\n' $loading "$mode" $k "$(awk -v a=$t0 -v b=$t1 'BEGIN {printf "%.3f", b - a}')" \
        "$(awk '$1 == "EPSSetUp" {print $4; exit}' <<<"$out")" "$(awk '$1 == "EPSSolve" {print $4; exit}' <<<"$out")" \
        "$(grep -o 'EPSPGX solve of order.*' <<<"$out" | head -1)"
    done
  done
done
