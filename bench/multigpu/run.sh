#!/usr/bin/env bash
# bench/multigpu/run.sh: one MPI rank per GPU (issue 15). Weak scaling of the unmodified PETSc tutorial ksp ex45
# (3D Poisson, 7-point) with 1e6 unknowns per GPU (1 GPU: 100^3; 2 GPUs: 126^3, split in z by the DMDA, 126x126x63
# per rank) and strong scaling of 128^3 on 1 and 2 GPUs, rtol 1e-8, for every PGX configuration, beside PETSc's
# own solvers on all the host's cores (bjacobi+ILU(0), GAMG) and PETSc's GAMG on the GPUs (PETSc 3.25 with CUDA).
#
# Run on the GPU host from the repository root, after tools/gpuhost-run.sh has set up build/ and lib/ (the Debian
# PETSc 3.18 build) and, for the CUDA-PETSc rows, with build-gpu325/ lib-gpu325/ .gpuhost325/ there ('make
# gpuhost325' here). Columns (from -log_view, max over ranks): KSPSetUp (includes ex45's matrix assembly on the
# host), PCSetUp, KSPSolve, iterations, ms per iteration; then per configuration: weak-scaling efficiency of the
# solve (t_1GPU(100^3) / t_2GPU(126^3)) and per iteration, strong-scaling speedup of 128^3 (t_1 / t_2).
# Every row is checked: a row that did not converge says so (and gets no ratios).
#
# Environment: PGX_MG_PARTS (default "pgx cp host"): pgx = Debian PETSc + PGX (resident KSPs and PGX PCs),
#   cp = PETSc 3.25 with CUDA, device Vecs (PGX PCs in PETSc's GMRES, PETSc's GAMG), host = PETSc on the host's cores;
#   PGX_MG_CONFIGS=regex (only matching configurations); PGX_MG_HOSTRANKS (default: nproc); PGX_MG_OPTS: options
#   added to every PGX run (e.g. -pgx_ghost_peer 0: the exchange through host buffers);
#   OUT=dir: each run's whole output (with -log_view: PGXGhostBegin/End, the exchange) in dir/logs/;
#   PGX_BENCH_CHECK=1: a smoke run without a GPU (tiny grids, -pgx_device host, 2 host ranks; no cp part).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIEXEC=${PGX_MPIEXEC:-mpiexec}
if [ "${PGX_BENCH_CHECK:-0}" = 1 ]; then
  W1=12 W2=15 S=16 DEVICE=host HOSTRANKS=2 PARTS=${PGX_MG_PARTS:-pgx host}
else
  W1=100 W2=126 S=128 DEVICE=cuda HOSTRANKS=${PGX_MG_HOSTRANKS:-$(nproc)} PARTS=${PGX_MG_PARTS:-pgx cp host}
fi
[ -f .gpuhost/env.sh ] && source .gpuhost/env.sh
export LD_LIBRARY_PATH="$ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RTOL="-ksp_rtol 1e-8 -ksp_max_it 5000 -ksp_converged_reason -log_view"
# name|part|options
configs=(
  "pgxgmres+dilu|pgx|-ksp_type pgxgmres -pc_type dilu"
  "pgxgmres+dilu-mc|pgx|-ksp_type pgxgmres -pc_type dilu -pc_dilu_ordering multicolor"
  "pgxgmres+aips|pgx|-ksp_type pgxgmres -pc_type aips"
  "pgxcg+dilu-mc|pgx|-ksp_type pgxcg -pc_type dilu -pc_dilu_ordering multicolor"
  "pgxcg+aips|pgx|-ksp_type pgxcg -pc_type aips"
  "pgxbcgs+dilu-mc|pgx|-ksp_type pgxbcgs -pc_type dilu -pc_dilu_ordering multicolor"
  "host:gmres+bjacobi-ilu0|host|-ksp_type gmres -pc_type bjacobi -sub_pc_type ilu"
  "host:gmres+gamg|host|-ksp_type gmres -pc_type gamg"
  "host:cg+gamg|host|-ksp_type cg -pc_type gamg"
  "cp:gmres+dilu|cp|-ksp_type gmres -pc_type dilu"
  "cp:gmres+dilu-mc|cp|-ksp_type gmres -pc_type dilu -pc_dilu_ordering multicolor"
  "cp:gmres+aips|cp|-ksp_type gmres -pc_type aips"
  "cp:petsc-gmres+gamg|cp|-ksp_type gmres -pc_type gamg"
  "cp:petsc-cg+gamg|cp|-ksp_type cg -pc_type gamg"
  "gmres(host)+dilu-mc|pgx|-ksp_type gmres -pc_type dilu -pc_dilu_ordering multicolor"
)
ev() { awk -v e="$1" '$1 == e {print $4; exit}' <<<"$2"; }
declare -A SOLVE ITS
# row NAME PART SIZE RANKS OPTIONS: runs one configuration, prints its row, records solve time and iterations
row() {
  local name=$1 part=$2 m=$3 np=$4 opts=$5 out rc its reason ksu psu solve per cmd B=build L=lib env=()
  case "$part" in
  cp) B=build-gpu325 L=lib-gpu325
      env=(env "LD_LIBRARY_PATH=$ROOT/lib-gpu325:/opt/petsc-3.25-cuda/lib:$LD_LIBRARY_PATH")
      opts="$opts -dm_vec_type cuda -dm_mat_type aijcusparse -use_gpu_aware_mpi 0 -log_view_gpu_time" ;;
  esac
  cmd="$B/petsc-tutorials/ksp_ksp_ex45 -da_grid_x $m -da_grid_y $m -da_grid_z $m $RTOL $opts"
  [ "$part" != host ] && cmd="$cmd -dll_append $ROOT/$L/libpgx.so -pgx_device $DEVICE${PGX_MG_OPTS:+ $PGX_MG_OPTS}"
  # shellcheck disable=SC2086
  out=$(timeout "${PGX_MG_TIMEOUT:-120}" "${env[@]}" $MPIEXEC -n "$np" $cmd 2>&1); rc=$?
  # every run's whole output (its -log_view) under $OUT/logs when OUT is set (the GPU host's step runner sets it)
  if [ -n "${OUT:-}" ]; then mkdir -p "$OUT/logs"; { echo "command: $MPIEXEC -n $np $cmd"; echo "$out"; } > "$OUT/logs/${name//[^A-Za-z0-9+.-]/_}-$m-$np.txt"; fi
  its=$(grep -oE 'iterations [0-9]+' <<<"$out" | tail -1 | awk '{print $2}')
  reason=$(grep -oE '(CONVERGED|DIVERGED)_[A-Z_]+' <<<"$out" | tail -1)
  ksu=$(ev KSPSetUp "$out") psu=$(ev PCSetUp "$out") solve=$(ev KSPSolve "$out")
  per=$(awk -v t="${solve:-0}" -v n="${its:-0}" 'BEGIN { if (n > 0) printf "%.3f", 1000 * t / n; else print "-" }')
  [ $rc -eq 0 ] || reason="exit $rc ${reason:-}"
  if [[ ${reason:-} == CONVERGED_* ]]; then SOLVE[$name/$m/$np]=$solve ITS[$name/$m/$np]=$its; fi
  printf '%-24s %7s %5s %9s %9s %9s %6s %9s  %s\n' "$name" "$m^3" "$np" "${ksu:--}" "${psu:--}" "${solve:--}" "${its:--}" "$per" "${reason:-?}"
  if [[ ${reason:-} != CONVERGED_* ]]; then grep -E "ERROR|rror" <<<"$out" | grep -vE "Configure options|Using |Libraries|------|Release Version|See https|by root|Option left" | head -4 | sed 's/^/    | /'; fi
}
if [[ " $PARTS " == *" cp "* ]] && [ ! -f /opt/petsc-3.25-cuda/lib/libpetsc.so.3.25 ] && [ -f .gpuhost325/petsc325.tar.xz ]; then
  tar -C / -xJf .gpuhost325/petsc325.tar.xz || echo "bench/multigpu: cannot unpack .gpuhost325/petsc325.tar.xz (cp rows will fail)"
fi
echo "bench/multigpu: $(date -u +%FT%TZ), $(nproc) cores, GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | paste -sd, -)"
echo "PGX: $(build/tests/sys/pgx_info 2>&1 | head -1)"
[ -n "${PGX_MG_OPTS:-}" ] && echo "PGX_MG_OPTS (added to every PGX run): $PGX_MG_OPTS"
printf '%-24s %7s %5s %9s %9s %9s %6s %9s  %s\n' configuration grid ranks "KSPSetUp" "PCSetUp" "KSPSolve" its "ms/it" result
for c in "${configs[@]}"; do
  IFS='|' read -r name part opts <<<"$c"
  [[ " $PARTS " == *" $part "* ]] || continue
  if [ -n "${PGX_MG_CONFIGS:-}" ] && ! [[ $name =~ $PGX_MG_CONFIGS ]]; then continue; fi
  if [ "$part" = host ]; then
    for m in $W1 $W2 $S; do row "$name" host "$m" "$HOSTRANKS" "$opts"; done
  else
    row "$name" "$part" $W1 1 "$opts"; row "$name" "$part" $W2 2 "$opts"
    row "$name" "$part" $S 1 "$opts"; row "$name" "$part" $S 2 "$opts"
  fi
done
echo
echo "Scaling (solve = KSPSolve; weak: 1 GPU $W1^3 -> 2 GPUs $W2^3; strong: $S^3 on 1 -> 2 GPUs); vs host: 2 GPUs' solve against the fastest host configuration on $HOSTRANKS cores at the same grid"
best_host() { local m=$1 b="" t; for c in "${configs[@]}"; do IFS='|' read -r name part _ <<<"$c"; [ "$part" = host ] || continue
  t=${SOLVE[$name/$m/$HOSTRANKS]:-}; [ -n "$t" ] || continue
  if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN{exit !(a < b)}'; then b=$t; fi; done; echo "$b"; }
hw2=$(best_host $W2) hs=$(best_host $S)
printf '%-24s %12s %12s %12s %14s %14s\n' configuration "weak (solve)" "weak (per it)" "strong x" "host/2GPU $W2^3" "host/2GPU $S^3"
for c in "${configs[@]}"; do
  IFS='|' read -r name part _ <<<"$c"
  [ "$part" = host ] && continue
  [[ " $PARTS " == *" $part "* ]] || continue
  if [ -n "${PGX_MG_CONFIGS:-}" ] && ! [[ $name =~ $PGX_MG_CONFIGS ]]; then continue; fi
  t1=${SOLVE[$name/$W1/1]:-} t2=${SOLVE[$name/$W2/2]:-} i1=${ITS[$name/$W1/1]:-} i2=${ITS[$name/$W2/2]:-}
  s1=${SOLVE[$name/$S/1]:-} s2=${SOLVE[$name/$S/2]:-}
  awk -v n="$name" -v t1="$t1" -v t2="$t2" -v i1="$i1" -v i2="$i2" -v s1="$s1" -v s2="$s2" -v hw="$hw2" -v hs="$hs" 'BEGIN {
    we = (t1 != "" && t2 != "") ? sprintf("%.0f%%", 100 * t1 / t2) : "-"
    wi = (t1 != "" && t2 != "") ? sprintf("%.0f%%", 100 * (t1 / i1) / (t2 / i2)) : "-"
    ss = (s1 != "" && s2 != "") ? sprintf("%.2fx", s1 / s2) : "-"
    vw = (hw != "" && t2 != "") ? sprintf("%.2fx", hw / t2) : "-"
    vs = (hs != "" && s2 != "") ? sprintf("%.2fx", hs / s2) : "-"
    printf "%-24s %12s %12s %12s %14s %14s\n", n, we, wi, ss, vw, vs }'
done
echo "Targets (issue 15): weak-scaling efficiency of the solve >= 85%; strong-scaling speedup >= 1.6x at $S^3; 2 GPUs faster than the $HOSTRANKS host cores (host/2GPU > 1) for every PGX configuration."
