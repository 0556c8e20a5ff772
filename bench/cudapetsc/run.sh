#!/usr/bin/env bash
# bench/cudapetsc/run.sh: PGX with a PETSc built with CUDA, device Vecs and AIJCUSPARSE matrices, beside
# PETSc's own GPU solvers, in one run (issue 12). Runs on the GPU host from the repository root, after
# 'make gpuhost325' here and with the 3.25 runtime on LD_LIBRARY_PATH (tools/gpuhost-run.sh bench325 does both).
#
# Problems: unmodified ksp ex45 (3D Poisson, 7-point) at 100^3 and 128^3; tests/dilu/test_ksp's heterogeneous
# anisotropic (aniso3d) and convection-diffusion (convdiff3d) problems at 100^3, converted to AIJCUSPARSE.
# Solvers (rtol 1e-8): GMRES (CG where marked) with Jacobi, cuSPARSE ILU(0), GAMG (default smoother), GAMG with
# PGX dilu smoothing, PGX dilu natural and multicolor, PGX aips; and PGX's resident KSPs (pgxcg, pgxgmres: the whole
# solve on the device arrays of PETSc's CUDA Vecs) with dilu multicolor and aips. Columns: setup (PCSetUp), solve (KSPSolve),
# iterations, time per iteration, from -log_view (max over ranks), and whether the answer converged.
# GAMG variants: dilu smoothing on every level (one launch per color, or -single1k: the single-block apply on levels
# of at most 1024 rows), on the two finest levels only (-fine-levels: levels 3 and 4, the finest of ex45 100^3's five; GAMG's
# default Chebyshev/Jacobi below), and under Richardson (1 or 2 steps) or one Chebyshev step.
# Finest-level variants (the tokens FINEST and FINEST1 stand for the finest level's index and the one below it,
# found per problem from GAMG's -ksp_view): PGX dilu under Richardson on the finest level only (GAMG's default
# Chebyshev/Jacobi below), on the two finest levels, and with three Richardson steps on the finest; and PGX dilu
# under GAMG's default Chebyshev smoother on the finest level only (-cheby); -next-cheby: r1 and PGX dilu under GAMG's
# Chebyshev on the level below the finest; -coarse3: three Chebyshev steps (GAMG's default two) on the levels below the
# finest; -wcycle: the W cycle (-pc_mg_cycle_type w; the rows without dilu are the references for both); aips-smoother
# and aips-finest-r1: PGX aips under GAMG's Chebyshev on every level, and one aips Richardson step on the finest;
# -w2: with the color wave 2 (red-black on 7-point stencils); -fused: the Richardson rows with PCDILU's
# fused PCApplyRichardson turned on (-pc_dilu_richardson 1; default off: PETSc's own Richardson loop around PCApply).
# PGX_BENCH_REPS=R (default 1): each row runs R times; setup and solve are the medians (the min and max of the
# solve are printed beside them when R > 1).
# PGX_BENCH_SETUP=1: PETSc 3.25 prints no PCSetUp time for GPU events without -log_view_gpu_time, so each
# repetition runs once more with it, and the setup column is that run's PCSetUp (its solve is not used: the
# synchronization per event slows it); "total" is setup + solve (time to solution, the same medians); rows with PGX PCs
# also print [pgx setup S]: the median of PGXDILUSetUp + PGXAIPSSetUp in those runs (PGX's part of PCSetUp, all levels).
# Every row is checked: a row whose solve did not converge says so.
set -u
B=${PGX_BUILD:-build} L=${PGX_LIB:-lib}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
# PGX_BENCH_CHECK=1: a smoke run of this script without a GPU (16^3, host Vecs, host backend)
if [ "${PGX_BENCH_CHECK:-0}" = 1 ]; then
  N1=16 N2=20 VEC="" CONV="" DEVICE=host GPUTIME=""
else
  # PGX_BENCH_GPUTIME=1 adds -log_view_gpu_time (GPU time per event, at the price of a synchronization per event:
  # the solve times then include them; off by default, so the times are what a user's run sees)
  N1=100 N2=128 VEC="-dm_vec_type cuda -dm_mat_type aijcusparse" CONV="-convert aijcusparse" DEVICE=cuda GPUTIME=""
  [ "${PGX_BENCH_GPUTIME:-0}" = 1 ] && GPUTIME="-log_view_gpu_time"
fi
DEV="-use_gpu_aware_mpi 0 -log_view $GPUTIME -ksp_converged_reason -ksp_rtol 1e-8 -ksp_max_it 5000 -pgx_device $DEVICE"
PGX="-dll_append $ROOT/$L/libpgx.so"
solvers=(
  "jacobi|-ksp_type gmres -pc_type jacobi"
  "cusparse-ilu0|-ksp_type gmres -pc_type ilu -pc_factor_mat_solver_type cusparse"
  "gamg|-ksp_type gmres -pc_type gamg"
  "cg+gamg|-ksp_type cg -pc_type gamg"
  "gamg+dilu-smoother|-ksp_type gmres -pc_type gamg -mg_levels_pc_type dilu -mg_levels_pc_dilu_ordering multicolor"
  "cg+gamg+dilu-smoother|-ksp_type cg -pc_type gamg -mg_levels_pc_type dilu -mg_levels_pc_dilu_ordering multicolor"
  "gamg+dilu-smoother-single1k|-ksp_type gmres -pc_type gamg -mg_levels_pc_type dilu -mg_levels_pc_dilu_ordering multicolor -mg_levels_pc_dilu_single_block_rows 1024"
  "gamg+dilu-fine-levels|-ksp_type gmres -pc_type gamg -mg_levels_3_pc_type dilu -mg_levels_3_pc_dilu_ordering multicolor -mg_levels_4_pc_type dilu -mg_levels_4_pc_dilu_ordering multicolor"
  "gamg+dilu-richardson1|-ksp_type gmres -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type dilu -mg_levels_pc_dilu_ordering multicolor"
  "gamg+dilu-richardson2|-ksp_type gmres -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type dilu -mg_levels_pc_dilu_ordering multicolor"
  "gamg+dilu-finest|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "gamg+dilu-finest-r3|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 3 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "gamg+dilu-finest2|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor -mg_levels_FINEST1_ksp_type richardson -mg_levels_FINEST1_pc_type dilu -mg_levels_FINEST1_pc_dilu_ordering multicolor"
  "cg+gamg+dilu-finest|-ksp_type cg -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "gamg+dilu-finest-fused|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor -mg_levels_FINEST_pc_dilu_richardson 1"
  "cg+gamg+dilu-finest-fused|-ksp_type cg -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor -mg_levels_FINEST_pc_dilu_richardson 1"
  "gamg+dilu-finest-w2|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor -mg_levels_FINEST_pc_dilu_color_wave 2"
  "cg+gamg+dilu-finest-w2|-ksp_type cg -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor -mg_levels_FINEST_pc_dilu_color_wave 2"
  "gamg+dilu-finest-r1|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "cg+gamg+dilu-finest-r1|-ksp_type cg -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "gamg+dilu-finest-r1-w2|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor -mg_levels_FINEST_pc_dilu_color_wave 2"
  "gamg+dilu-finest-r1-w4|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor -mg_levels_FINEST_pc_dilu_color_wave 4"
  "gamg+dilu-finest2-r1|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor -mg_levels_FINEST1_ksp_type richardson -mg_levels_FINEST1_ksp_max_it 1 -mg_levels_FINEST1_pc_type dilu -mg_levels_FINEST1_pc_dilu_ordering multicolor"
  "gamg+dilu-finest-r1-next-cheby|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor -mg_levels_FINEST1_pc_type dilu -mg_levels_FINEST1_pc_dilu_ordering multicolor"
  "gamg-coarse3|-ksp_type gmres -pc_type gamg -mg_levels_ksp_max_it 3"
  "gamg+dilu-finest-r1-coarse3|-ksp_type gmres -pc_type gamg -mg_levels_ksp_max_it 3 -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "gamg-wcycle|-ksp_type gmres -pc_type gamg -pc_mg_cycle_type w"
  "gamg+dilu-finest-r1-wcycle|-ksp_type gmres -pc_type gamg -pc_mg_cycle_type w -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "cg+gamg+dilu-finest-r1-next-cheby|-ksp_type cg -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor -mg_levels_FINEST1_pc_type dilu -mg_levels_FINEST1_pc_dilu_ordering multicolor"
  "cg+gamg-coarse3|-ksp_type cg -pc_type gamg -mg_levels_ksp_max_it 3"
  "cg+gamg+dilu-finest-r1-coarse3|-ksp_type cg -pc_type gamg -mg_levels_ksp_max_it 3 -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "cg+gamg-wcycle|-ksp_type cg -pc_type gamg -pc_mg_cycle_type w"
  "cg+gamg+dilu-finest-r1-wcycle|-ksp_type cg -pc_type gamg -pc_mg_cycle_type w -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "gamg+aips-smoother|-ksp_type gmres -pc_type gamg -mg_levels_pc_type aips"
  "cg+gamg+aips-smoother|-ksp_type cg -pc_type gamg -mg_levels_pc_type aips"
  "gamg+aips-finest-r1|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type aips"
  "cg+gamg+aips-finest-r1|-ksp_type cg -pc_type gamg -mg_levels_FINEST_ksp_type richardson -mg_levels_FINEST_ksp_max_it 1 -mg_levels_FINEST_pc_type aips"
  "gamg+dilu-finest-cheby|-ksp_type gmres -pc_type gamg -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "cg+gamg+dilu-finest-cheby|-ksp_type cg -pc_type gamg -mg_levels_FINEST_pc_type dilu -mg_levels_FINEST_pc_dilu_ordering multicolor"
  "gamg+dilu-cheby1|-ksp_type gmres -pc_type gamg -mg_levels_ksp_max_it 1 -mg_levels_pc_type dilu -mg_levels_pc_dilu_ordering multicolor"
  "dilu-natural|-ksp_type gmres -pc_type dilu"
  "dilu-multicolor|-ksp_type gmres -pc_type dilu -pc_dilu_ordering multicolor"
  "cg+dilu-multicolor|-ksp_type cg -pc_type dilu -pc_dilu_ordering multicolor"
  "pgxcg+dilu-multicolor|-ksp_type pgxcg -pc_type dilu -pc_dilu_ordering multicolor"
  "pgxgmres+dilu-multicolor|-ksp_type pgxgmres -pc_type dilu -pc_dilu_ordering multicolor"
  "pgxgmres+aips|-ksp_type pgxgmres -pc_type aips"
  "aips|-ksp_type gmres -pc_type aips"
)
problems=(
  "ex45-$N1^3|$B/petsc-tutorials/ksp_ksp_ex45 -da_grid_x $N1 -da_grid_y $N1 -da_grid_z $N1 $VEC"
  "ex45-$N2^3|$B/petsc-tutorials/ksp_ksp_ex45 -da_grid_x $N2 -da_grid_y $N2 -da_grid_z $N2 $VEC"
  "aniso3d-$N1^3|$B/tests/dilu/test_ksp -problem aniso3d -m $N1 $CONV"
  "convdiff3d-$N1^3|$B/tests/dilu/test_ksp -problem convdiff3d -m $N1 $CONV"
)
ev() { awk -v e="$1" '$1 == e {print $4; exit}' <<<"$2"; }
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]}'; }
REPS=${PGX_BENCH_REPS:-1}
echo "PGX with CUDA Vecs: $($B/tests/sys/pgx_info | head -2 | paste -sd' ')"
echo "repetitions per row: $REPS (setup and solve: medians)"
printf '%-18s %-24s %10s %10s %10s %6s %12s  %s\n' problem solver "setup s" "solve s" "total s" its "ms/it" result
for p in "${problems[@]}"; do
  pname=${p%%|*} pcmd=${p#*|}
  # PGX_BENCH_PROBLEMS=regex: only the problems whose name matches (e.g. 'ex45')
  if [ -n "${PGX_BENCH_PROBLEMS:-}" ] && ! [[ $pname =~ $PGX_BENCH_PROBLEMS ]]; then continue; fi
  finest=""
  for s in "${solvers[@]}"; do
    sname=${s%%|*} sopt=${s#*|}
    # PGX_BENCH_SOLVERS=regex: only the solvers whose name matches (e.g. 'gamg')
    if [ -n "${PGX_BENCH_SOLVERS:-}" ] && ! [[ $sname =~ $PGX_BENCH_SOLVERS ]]; then continue; fi
    if [[ $sopt == *FINEST* ]]; then
      if [ -z "$finest" ]; then
        # shellcheck disable=SC2086
        nl=$(timeout 240 $pcmd $PGX $DEV -ksp_type gmres -pc_type gamg -ksp_max_it 1 -ksp_view 2>&1 | sed -n 's/.*levels=\([0-9]*\).*/\1/p' | head -1)
        finest=$((${nl:-1} - 1))
        echo "# $pname: GAMG has ${nl:-?} levels, the finest is level $finest"
      fi
      sopt=${sopt//FINEST1/$((finest - 1))} sopt=${sopt//FINEST/$finest}
    fi
    setups="" solves="" its="" reason="" rc=0 gsetups="" psetups=""
    for ((rep = 1; rep <= REPS; rep++)); do
      # shellcheck disable=SC2086
      out=$(timeout 240 $pcmd $PGX $DEV $sopt 2>&1); rc1=$?
      [ $rc1 -eq 0 ] || rc=$rc1
      its1=$(grep -oE 'iterations [0-9]+' <<<"$out" | tail -1 | awk '{print $2}')
      reason1=$(grep -oE '(CONVERGED|DIVERGED)_[A-Z_]+' <<<"$out" | tail -1)
      [ -n "$its" ] && [ "$its1" != "$its" ] && reason1="$reason1 (its differ between repetitions: $its, $its1)"
      its=${its1:-$its} reason=${reason1:-$reason}
      setups="$setups $(ev PCSetUp "$out")" solves="$solves $(ev KSPSolve "$out")"
      if [ "${PGX_BENCH_SETUP:-0}" = 1 ] && [ -z "$GPUTIME" ]; then
        # shellcheck disable=SC2086
        gout=$(timeout 240 $pcmd $PGX $DEV -log_view_gpu_time $sopt 2>&1)
        gsetups="$gsetups $(ev PCSetUp "$gout")"
        # PGX's own part of the setup (PCDILU's and PCAIPS's setup events, summed over levels by -log_view)
        psetups="$psetups $(awk '$1 == "PGXDILUSetUp" || $1 == "PGXAIPSSetUp" {t += $4; f = 1} END {if (f) print t}' <<<"$gout")"
      fi
    done
    setup=$(med <<<"$setups") solve=$(med <<<"$solves")
    [ -n "$gsetups" ] && setup=$(med <<<"$gsetups")
    range=""
    if [ "$REPS" -gt 1 ] && [ -n "$solve" ]; then range=" [solve $(tr ' ' '\n' <<<"$solves" | grep -v '^$' | sort -g | sed -n '1p;$p' | paste -sd- )]"; fi
    psetup=$(med <<<"$psetups"); [ -n "$psetup" ] && range="$range [pgx setup $psetup]"
    per=$(awk -v t="${solve:-0}" -v n="${its:-0}" 'BEGIN { if (n > 0) printf "%.3f", 1000 * t / n; else print "-" }')
    total=$(awk -v a="${setup:-x}" -v b="${solve:-x}" 'BEGIN { if (a + 0 == a && b + 0 == b && a != "" && b != "") printf "%.4e", a + b; else print "-" }')
    [ $rc -eq 0 ] || reason="exit $rc ${reason:-}"
    printf '%-18s %-24s %10s %10s %10s %6s %12s  %s\n' "$pname" "$sname" "${setup:--}" "${solve:--}" "$total" "${its:--}" "$per" "${reason:-?}$range"
  done
done
