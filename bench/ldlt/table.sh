#!/usr/bin/env bash
# bench/ldlt/table.sh [real|complex] [OUTDIR]: issue 8's benchmark table (pgx against CHOLMOD, MUMPS, UMFPACK and
# PETSc's native Cholesky) in one call. Each (problem, solver) pair runs as its own process of bench_ldlt under
# `timeout` with its own cap, so a slow anchor is stopped, reported as "> CAP s", and the run goes on; a total
# time budget (PGX_LDLT_BUDGET, default 540 s) shrinks the last caps or skips the last optional pairs.
#
#   real    (default) the real PETSc build: Poisson 32^3 (column method beside), 64^3, 100^3, elasticity 40, the
#           largest SPD and indefinite matrices of ../shared/matrices (bcsstk16, hangGlider_2; tests/data holds
#           both), then if the budget allows the column method at 48^3, umfpack-nd and MUMPS on one rank (16 BLAS
#           threads: mumps-1rank) at 64^3, and elasticity 50
#   complex the complex PETSc build (make gpuhostc: build-gpuc/, with CUDA): complex symmetric Helmholtz 32^3, 48^3, 60^3
#
# Writes OUTDIR/logs/<pair>.txt (each pair's output, then a '#pair' line: exit status, cap, wall times),
# OUTDIR/pairs.tsv (one parsed row per pair) and OUTDIR/table.md (the table and the targets), and prints the table.
#
# On the GPU host, from the repository root of the tree 'make gpuhost' prepared (see tools/gpuhost-run.sh):
#   source .gpuhost/env.sh && bench/ldlt/table.sh real $OUT/ldlt
#   source .gpuhost/env.sh && bench/ldlt/table.sh complex $OUT/ldlt-complex     (after make gpuhostc here; carry .gpuhost and .gpuhostc)
# Programs: build-gpu/ and lib-gpu/ when there (as 'make gpuhost' leaves them), else build/ and lib/ (as
# tools/gpuhost-run.sh leaves them, or a local build); PGX_BUILD / PGX_LIB choose others. Complex: build-gpuc/
# (make gpuhostc), else build-complex/; PGX_COMPLEX_BUILD chooses another.
#
# CPU anchors (16 host cores): BLAS from /usr/lib/x86_64-linux-gnu/openblas-pthread when it exists (the host's
# OpenBLAS; else the BLAS on the library path, said in the header). CHOLMOD, UMFPACK (both) and PETSc: one process,
# OPENBLAS_NUM_THREADS=16, OMP_NUM_THREADS=1 (CHOLMOD's own OpenMP loops off, so they do not fight OpenBLAS's
# threads); PETSc's native Cholesky uses no BLAS (one core). MUMPS: mpiexec -n 16, OPENBLAS_NUM_THREADS=1,
# OMP_NUM_THREADS=1, the matrix assembled in parallel (each rank its own rows). pgx: -pgx_device cuda (real),
# host (complex: the CUDA backend is real-only), its symbolic phase on one host core.
#
# Knobs: PGX_LDLT_BUDGET (s), PGX_LDLT_NP (MUMPS ranks, 16), PGX_LDLT_THREADS (BLAS threads, 16),
# PGX_LDLT_DEVICE (pgx device, cuda in real mode), PGX_LDLT_FILTER (regex on "problem solver": run only those),
# PGX_LDLT_CAPS ("problem solver=cap,...": other caps for named pairs), PGX_LDLT_TINY=1 (tiny sizes and caps: a check of the script on a machine without a GPU, with PGX_LDLT_DEVICE=host),
# PGX_LDLT_MPIEXEC (mpiexec command, default mpiexec).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
MODE=${1:-real}
OUTDIR=${2:-$ROOT/ldlt-table}
case "$MODE" in real|complex) ;; *) echo "usage: $0 [real|complex] [OUTDIR]" >&2; exit 2 ;; esac
mkdir -p "$OUTDIR/logs" || exit 1
BUDGET=${PGX_LDLT_BUDGET:-540}
NP=${PGX_LDLT_NP:-16}
THREADS=${PGX_LDLT_THREADS:-16}
TINY=${PGX_LDLT_TINY:-0}
MPIEXEC=${PGX_LDLT_MPIEXEC:-mpiexec}
T0=$(date +%s.%N)
export PGX_ROOT=${PGX_ROOT:-$ROOT}

# ---------------------------------------------------------------------------------------------- programs
if [ "$MODE" = real ]; then
  if [ -n "${PGX_BUILD:-}" ]; then BUILD=$PGX_BUILD; LIB=${PGX_LIB:-lib}
  elif [ -x build-gpu/bench/ldlt/bench_ldlt ]; then BUILD=build-gpu; LIB=lib-gpu
  else BUILD=build; LIB=lib; fi
  BIN=$ROOT/$BUILD/bench/ldlt/bench_ldlt
  DEVICE=${PGX_LDLT_DEVICE:-cuda}
else
  CX=${PGX_COMPLEX_BUILD:-}
  # the complex copy built with CUDA by 'make gpuhostc' (build-gpuc/, lib-gpuc/; Debian's complex PETSc libraries
  # in .gpuhostc/complex-runtime.tar.xz, unpacked beside the real runtime), else a local complex build
  [ -z "$CX" ] && { if [ -x build-gpuc/bench/ldlt/bench_ldlt ]; then CX=build-gpuc; else CX=build-complex; fi; }
  BIN=$ROOT/$CX/bench/ldlt/bench_ldlt
  if [ "$CX" = build-gpuc ]; then LIB=lib-gpuc; DEVICE=${PGX_LDLT_DEVICE:-cuda}; else LIB=$CX/lib; DEVICE=${PGX_LDLT_DEVICE:-host}; fi
  if [ -n "${PB_ROOT:-}" ] && [ -f .gpuhostc/complex-runtime.tar.xz ] && [ ! -f "$PB_ROOT/lib/libpetsc_complex.so.3.18" ]; then
    tar -C "$(dirname "$PB_ROOT")" -xJf .gpuhostc/complex-runtime.tar.xz
  fi
fi
[ -x "$BIN" ] || { echo "table.sh: $BIN not found (build it: make, make gpuhost, or make gpuhostc)" >&2; exit 1; }
export LD_LIBRARY_PATH="$ROOT/$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
BLAS="the BLAS on the library path (reference BLAS of the packed runtime on the GPU host)"
if [ -d /usr/lib/x86_64-linux-gnu/openblas-pthread ]; then
  export LD_LIBRARY_PATH="/usr/lib/x86_64-linux-gnu/openblas-pthread:$LD_LIBRARY_PATH"
  BLAS="OpenBLAS (pthread) from /usr/lib/x86_64-linux-gnu/openblas-pthread"
fi

# ---------------------------------------------------------------------------------------------- the plan
# one pair per line: problem-id | bench_ldlt problem arguments | solver | cap (s) | optional (1: only if budget allows)
if [ "$TINY" = 1 ]; then
  P32=8 P48=10 P64=12 P100=14 E40=4 E50=5 H32=6 H48=8 H60=10; CAPSCALE=0.25; NNZMIN=1e3
else
  P32=32 P48=48 P64=64 P100=100 E40=40 E50=50 H32=32 H48=48 H60=60; CAPSCALE=1; NNZMIN=1e7
fi
# the high-fill 3D problems of the UMFPACK targets
HF="poisson3d-$P64|poisson3d-$P100|elasticity3d-$E40|elasticity3d-$E50|helmholtz3d-$H48|helmholtz3d-$H60"
MATS="-matrices"
plan_real() {
  local all="pgx pgx-column cholmod mumps umfpack umfpack-dl petsc" s
  for s in $all; do echo "bcsstk16|$MATS bcsstk16|$s|20|0"; done
  for s in $all; do echo "hangGlider_2|$MATS hangGlider_2|$s|20|0"; done
  echo "poisson3d-$P32|-poisson $P32|pgx-column|40|0"
  echo "poisson3d-$P32|-poisson $P32|pgx|30|0"
  echo "poisson3d-$P64|-poisson $P64|pgx|60|0"
  echo "poisson3d-$P64|-poisson $P64|cholmod|40|0"
  echo "poisson3d-$P64|-poisson $P64|mumps|40|0"
  echo "poisson3d-$P64|-poisson $P64|umfpack|30|0"
  echo "poisson3d-$P64|-poisson $P64|umfpack-dl|60|0"
  echo "poisson3d-$P64|-poisson $P64|petsc|8|0"
  echo "elasticity3d-$E40|-elasticity $E40|pgx|60|0"
  echo "elasticity3d-$E40|-elasticity $E40|cholmod|40|0"
  echo "elasticity3d-$E40|-elasticity $E40|mumps|40|0"
  echo "elasticity3d-$E40|-elasticity $E40|umfpack|15|0"
  echo "elasticity3d-$E40|-elasticity $E40|umfpack-dl|45|0"
  echo "elasticity3d-$E40|-elasticity $E40|petsc|8|0"
  echo "poisson3d-$P100|-poisson $P100|pgx|60|0"
  echo "poisson3d-$P100|-poisson $P100|cholmod|40|0"
  echo "poisson3d-$P100|-poisson $P100|mumps|45|0"
  echo "poisson3d-$P100|-poisson $P100|umfpack|15|0"
  echo "poisson3d-$P100|-poisson $P100|umfpack-dl|30|0"
  echo "poisson3d-$P100|-poisson $P100|petsc|8|0"
  # optional, in this order, while the budget lasts
  echo "poisson3d-$P48|-poisson $P48|pgx|30|1"
  echo "poisson3d-$P48|-poisson $P48|pgx-column|60|1"
  echo "poisson3d-$P64|-poisson $P64|umfpack-nd|10|1"
  echo "poisson3d-$P64|-poisson $P64|mumps-1rank|40|1"
  echo "elasticity3d-$E50|-elasticity $E50|pgx|60|1"
  echo "elasticity3d-$E50|-elasticity $E50|mumps|40|1"
  echo "elasticity3d-$E50|-elasticity $E50|cholmod|40|1"
}
plan_complex() {
  # pgx runs on the GPU with the complex CUDA build (build-gpuc/); the long caps are for a host-only complex build
  # (build-complex/, the sequential reference), which gets the last pair (60^3) with whatever the budget leaves
  echo "helmholtz3d-$H32|-helmholtz $H32|pgx|40|0"
  echo "helmholtz3d-$H32|-helmholtz $H32|cholmod|10|0"
  echo "helmholtz3d-$H32|-helmholtz $H32|mumps|30|0"
  echo "helmholtz3d-$H32|-helmholtz $H32|umfpack|25|0"
  echo "helmholtz3d-$H32|-helmholtz $H32|umfpack-dl|30|0"
  echo "helmholtz3d-$H32|-helmholtz $H32|petsc|20|0"
  echo "helmholtz3d-$H48|-helmholtz $H48|cholmod|10|0"
  echo "helmholtz3d-$H48|-helmholtz $H48|mumps|40|0"
  echo "helmholtz3d-$H48|-helmholtz $H48|umfpack|30|0"
  echo "helmholtz3d-$H48|-helmholtz $H48|umfpack-dl|40|0"
  echo "helmholtz3d-$H48|-helmholtz $H48|petsc|10|0"
  echo "helmholtz3d-$H48|-helmholtz $H48|pgx|180|0"
  echo "helmholtz3d-$H60|-helmholtz $H60|cholmod|10|0"
  echo "helmholtz3d-$H60|-helmholtz $H60|mumps|45|0"
  echo "helmholtz3d-$H60|-helmholtz $H60|umfpack|20|0"
  echo "helmholtz3d-$H60|-helmholtz $H60|umfpack-dl|40|0"
  echo "helmholtz3d-$H60|-helmholtz $H60|petsc|10|0"
  echo "helmholtz3d-$H60|-helmholtz $H60|pgx|150|0"
}

# ---------------------------------------------------------------------------------------------- one pair
PAIRS=$OUTDIR/pairs.tsv
# PGX_LDLT_RENDER=1: no run, the table again from OUTDIR's pairs.tsv and header.txt (after a change to the rendering)
[ "${PGX_LDLT_RENDER:-0}" = 1 ] || printf 'problem\tsolver\tstatus\tn\tnnzA\tnnzL\tord\tsym\tnum\tsol\tgflops\tberr\tnum_lb\ttot_lb\tnote\n' > "$PAIRS"
now() { date +%s.%N; }
elapsed() { awk -v a="$T0" -v b="$(now)" 'BEGIN { printf "%d", b - a }'; }

# parse one pair's log into a row of pairs.tsv
parse_pair() { # problem solver log rc cap start end
  awk -v P="$1" -v S="$2" -v rc="$4" -v cap="$5" -v t0="$6" -v t1="$7" '
    function val(key,   i) { for (i = 1; i < NF; i++) if ($i == key) return $(i + 1); return "" }
    /^== / { if (match($0, /: n [0-9]+/)) n = substr($0, RSTART + 4, RLENGTH - 4)
             if (match($0, /nnz\(A\) [0-9]+/)) nnzA = substr($0, RSTART + 7, RLENGTH - 7)
             if ($0 ~ /SKIPPED/) { st = "skipped"; note = $0; sub(/^== [^:]*: /, "", note) } }
    /^#progress / { nstart = $NF; sym = $5 }
    $1 == P && $0 ~ / FAILED / { st = "failed"; note = $0; sub(/^.* FAILED /, "", note) }
    $1 == P && $0 ~ / not applicable / { st = "n/a"; note = $0; sub(/^.* not applicable /, "", note) }
    $1 == P && $0 ~ / not available / { st = "n/a"; note = "not available in this build" }
    $1 == P && $0 ~ / skipped / { st = "skipped"; note = $0; sub(/^.* skipped /, "", note) }
    $1 == P && $3 == "n" && val("numeric") != "" {
      st = "ok"; label = $2; nnzL = val("nnz(L)"); ord = val("ord"); sym = val("symbolic"); num = val("numeric")
      sol = val("solve"); gf = val("GFLOP/s"); be = val("berr"); np = val("np") }
    END {
      if (st == "") {
        if ((rc == 124 || rc == 137) && t1 - t0 >= cap - 1) {
          st = "capped"; tot = t1 - t0; note = sprintf("stopped at the %s s cap", cap)
          if (nstart != "") { nlb = t1 - nstart; note = note sprintf(" (symbolic %s s; numeric > %.1f s)", sym, nlb) }
          else { sym = ""; note = note " before its numeric phase" }
        } else { st = "failed"; note = sprintf("exit %s without a result after %.0f s (%s; see its log)", rc, t1 - t0, rc >= 128 ? "killed by signal " rc - 128 ", e.g. out of memory" : "crashed or stopped") }
      }
      # the label shown: the solver as run; plain pgx also says the method auto took; mumps its ranks
      if (S == "pgx" && label != "") { m = label; sub(/^pgx-/, "", m); label = "pgx (auto: " m ")" }
      else label = S
      if (np != "") label = label " (" np " ranks)"
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", P, label, st, n, nnzA, nnzL, ord, (st == "ok" || st == "capped") ? sym : "", num, sol, gf, be, nlb, (st == "capped") ? sprintf("%.1f", tot) : "", note
    }' "$3"
}

run_pair() { # problem args solver cap optional
  local prob=$1 args=$2 solver=$3 cap=$4 opt=$5 left log rc start end cmd
  if [ -n "${PGX_LDLT_FILTER:-}" ] && ! [[ "$prob $solver" =~ $PGX_LDLT_FILTER ]]; then return; fi
  cap=$(awk -v c="$cap" -v s="$CAPSCALE" 'BEGIN { c = c * s; if (c < 5) c = 5; printf "%d", c }')
  # PGX_LDLT_CAPS="problem solver=cap,...": other caps for named pairs (e.g. "poisson3d-100 umfpack-dl=400")
  local ovr ov
  IFS=, read -r -a ovr <<<"${PGX_LDLT_CAPS:-}"
  for ov in "${ovr[@]}"; do [ "${ov%=*}" = "$prob $solver" ] && cap=${ov##*=}; done
  left=$((BUDGET - $(elapsed)))
  if [ "$opt" = 1 ] && [ "$left" -lt $((cap + 5)) ]; then
    printf '%s\t%s\tnotrun\t\t\t\t\t\t\t\t\t\t\t\tnot run (time budget: %s s left of %s)\n' "$prob" "$solver" "$left" "$BUDGET" >> "$PAIRS"; return
  fi
  if [ "$left" -lt 8 ]; then
    printf '%s\t%s\tnotrun\t\t\t\t\t\t\t\t\t\t\t\tnot run (time budget spent)\n' "$prob" "$solver" >> "$PAIRS"; return
  fi
  [ "$cap" -gt $((left - 3)) ] && cap=$((left - 3))
  log=$OUTDIR/logs/$prob-$solver.txt
  case "$solver" in
    pgx*) cmd=(env OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS=1 "$BIN" $args -solvers "$solver" -pgx_device "$DEVICE") ;;
    mumps-1rank) cmd=(env OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS=1 "$BIN" $args -solvers mumps) ;;
    mumps) cmd=($MPIEXEC -n "$NP" -x OPENBLAS_NUM_THREADS=1 -x OMP_NUM_THREADS=1 -x LD_LIBRARY_PATH -x PGX_ROOT
                ${PGX_MATRICES:+-x PGX_MATRICES} "$BIN" $args -solvers mumps) ;;
    *) cmd=(env OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS=1 "$BIN" $args -solvers "$solver") ;;
  esac
  start=$(now)
  { echo "# $(date -u +%FT%TZ) cap ${cap} s: ${cmd[*]}"; } > "$log"
  timeout -k 5 "$cap" "${cmd[@]}" >> "$log" 2>&1 < /dev/null
  rc=$?
  end=$(now)
  echo "#pair $prob $solver exit $rc cap $cap start $start end $end" >> "$log"
  parse_pair "$prob" "$solver" "$log" "$rc" "$cap" "$start" "$end" >> "$PAIRS"
  printf '  [%4ss] %-22s %-12s exit %-3s %s\n' "$(elapsed)" "$prob" "$solver" "$rc" "$(tail -1 "$PAIRS" | cut -f3,9,15 | tr '\t' ' ')"
}

# ---------------------------------------------------------------------------------------------- run
if [ "${PGX_LDLT_RENDER:-0}" != 1 ]; then
{
  echo "# issue 8 benchmark table ($MODE), $(date -u +%FT%TZ)"
  echo "# device: $( (nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'no GPU') | head -1)"
  echo "# host: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "# program: $BIN ($(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo 'commit unknown'))"
  echo "# BLAS: $BLAS; OPENBLAS_NUM_THREADS=$THREADS, OMP_NUM_THREADS=1 for CHOLMOD, UMFPACK and PETSc (one process);"
  echo "#   MUMPS: $MPIEXEC -n $NP, one BLAS thread per rank; pgx: -pgx_device $DEVICE; budget $BUDGET s"
} | tee "$OUTDIR/header.txt"
if [ "$MODE" = real ]; then plan_real; else plan_complex; fi > "$OUTDIR/plan.txt"
while IFS='|' read -r prob args solver cap opt; do
  run_pair "$prob" "$args" "$solver" "$cap" "$opt"
done < "$OUTDIR/plan.txt"
echo "# pairs done in $(elapsed) s" | tee -a "$OUTDIR/header.txt"
fi

# ---------------------------------------------------------------------------------------------- the table
awk -F'\t' -v hfre="^($HF)\$" -v nnzmin="$NNZMIN" '
  function ratio(a, b) { return (a > 0 && b > 0) ? a / b : 0 }
  function sx(a, b) { return (a > 0 && b > 0) ? fmt(a / b) "x" : "-" }
  function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x) }
  function sci(x) { return (x == "" || x + 0 == 0) ? "-" : sprintf("%.3g", x) }
  NR == 1 { next }
  {
    p = $1; if (!(p in seen)) { seen[p] = 1; order[++np] = p }
    k = ++cnt[p]; row[p, k] = $0
    if ($4 != "") nn[p] = $4; if ($5 != "") na[p] = $5
    if ($2 ~ /^pgx \(auto/ && $3 == "ok" && !(p in ref)) { ref[p] = k; rnum[p] = $9; rtot[p] = $8 + $9 + $10; rnnz[p] = $6 }
  }
  END {
    print "| problem | solver | n | nnz(A) | nnz(L) | ordering | symbolic s | numeric s | solve s | GFLOP/s | backward error | pgx numeric speedup | pgx total speedup |"
    print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= np; i++) {
      p = order[i]
      if (!(p in ref)) for (k = 1; k <= cnt[p]; k++) { split(row[p, k], f, "\t"); if (f[2] ~ /^pgx/ && f[3] == "ok" && !(p in ref)) { ref[p] = k; rnum[p] = f[9]; rtot[p] = f[8] + f[9] + f[10]; rnnz[p] = f[6] } }
      for (k = 1; k <= cnt[p]; k++) {
        split(row[p, k], f, "\t"); s = f[2]; st = f[3]; sn = st; st_num = "-"; st_tot = "-"
        if (st == "ok") {
          if (k == ref[p]) { st_num = "(reference)"; st_tot = "(reference)" }
          else if (p in ref) { st_num = sx(f[9], rnum[p]); st_tot = sx(f[8] + f[9] + f[10], rtot[p]) }
          printf "| %s | %s | %s | %s | %s | %s | %.4g | %.4g | %.4g | %s | %s | %s | %s |\n", p, s, nn[p], na[p], sci(f[6]), f[7], f[8], f[9], f[10], (f[11] + 0 > 0) ? sprintf("%.1f", f[11]) : "-", f[12], st_num, st_tot
        } else if (st == "capped") {
          if (p in ref) { st_tot = "> " sx(f[14], rtot[p]); if (f[13] != "") st_num = "> " sx(f[13], rnum[p]) }
          printf "| %s | %s | %s | %s | - | - | %s | %s | - | - | - | %s | %s |\n", p, s, nn[p], na[p], (f[8] != "") ? f[8] : "> " f[14], (f[13] != "") ? "> " sprintf("%.1f", f[13]) : "-", st_num, st_tot
        } else {
          printf "| %s | %s | %s | %s | - | - | - | - | - | - | %s: %s | - | - |\n", p, s, nn[p], na[p], st, f[15]
        }
      }
    }
    # ------------------------------------------------------------------ targets
    print ""
    print "Targets (pgx = the reference row of each problem: the method auto chooses; speedup = anchor time / pgx time;"
    print "\">\" = the anchor was stopped at its cap, so its time and the speedup are lower bounds):"
    # high-fill 3D problems
    nh = 0
    for (i = 1; i <= np; i++) { p = order[i]; if (p ~ hfre) hf[++nh] = p }
    for (t = 1; t <= 2; t++) {
      goal = (t == 1) ? 20 : 10; allmet = 1; any = 0; txt = ""
      for (j = 1; j <= nh; j++) {
        p = hf[j]; if (!(p in ref)) { txt = txt sprintf("%s: no pgx result; ", p); allmet = 0; continue }
        best = 0; bestlb = 0; bestname = ""; why = ""
        for (k = 1; k <= cnt[p]; k++) {
          split(row[p, k], f, "\t"); if (f[2] !~ /^umfpack/ || f[2] == "umfpack-nd") continue # umfpack-nd: the old, bad call, for the record only
          if (f[3] == "ok") { r = (t == 1) ? ratio(f[9], rnum[p]) : ratio(f[8] + f[9] + f[10], rtot[p]); lb = 0 }
          else if (f[3] == "capped") { r = (t == 1) ? ratio(f[13], rnum[p]) : ratio(f[14], rtot[p]); lb = 1 }
          else { why = why f[2] " " f[3] "; "; continue }
          # the fastest UMFPACK is the fair anchor: the smallest ratio, a lower bound counting as its value
          if (bestname == "" || r < best) { best = r; bestlb = lb; bestname = f[2] }
        }
        if (bestname == "" && why == "") { txt = txt sprintf("%s: no UMFPACK run; ", p); continue }
        any = 1
        if (bestname == "") { txt = txt sprintf("%s: unknown (%s); ", p, why); allmet = 0; continue }
        met = (best >= goal)
        if (!met) allmet = 0
        txt = txt sprintf("%s: %s%sx vs %s (%s); ", p, bestlb ? "> " : "", fmt(best), bestname, met ? "met" : (bestlb ? "not shown: cap too short" : "not met"))
      }
      printf "- %s >= %dx UMFPACK on the high-fill 3D problems: %s. %s\n", (t == 1) ? "numeric" : "total (symbolic+numeric+solve)", goal, (any && allmet) ? "MET" : "NOT MET (or not shown)", txt
    }
    # faster than CHOLMOD and MUMPS where nnz(L) >= 1e7; >= 3x on the largest
    allmet = 1; txt = ""; big = ""; bign = 0; ncount = 0
    for (i = 1; i <= np; i++) {
      p = order[i]; if (!(p in ref) || rnnz[p] + 0 < nnzmin) continue
      if (rnnz[p] + 0 > bign) { bign = rnnz[p] + 0; big = p }
      for (k = 1; k <= cnt[p]; k++) {
        split(row[p, k], f, "\t"); if (f[2] !~ /^(cholmod|mumps)/) continue
        a = (f[2] ~ /^mumps/) ? "mumps" : "cholmod"
        if (f[3] == "ok") { r = ratio(f[9], rnum[p]); lb = 0 } else if (f[3] == "capped" && f[13] != "") { r = ratio(f[13], rnum[p]); lb = 1 }
        else {
          # an anchor that does not apply or cannot factor the matrix does not count against pgx; one not run does
          txt = txt sprintf("%s %s: %s%s; ", p, f[2], f[3], (f[3] == "failed" || f[3] == "n/a") ? " (not counted)" : "")
          if (f[3] == "failed" || f[3] == "n/a") nap[p, a] = 1; else allmet = 0
          continue
        }
        sp[p, a] = r; splb[p, a] = lb; ncount++
        if (r <= 1) allmet = 0
        txt = txt sprintf("%s vs %s %s%sx; ", p, f[2], lb ? "> " : "", fmt(r))
      }
    }
    printf "- numeric faster than CHOLMOD and MUMPS on every matrix with nnz(L) >= %g: %s. %s\n", nnzmin, (ncount > 0 && allmet) ? "MET" : "NOT MET (or not shown)", txt
    if (big != "") {
      m3 = (((big, "cholmod") in sp && sp[big, "cholmod"] >= 3) || (big, "cholmod") in nap) && ((big, "mumps") in sp) && sp[big, "mumps"] >= 3
      printf "- >= 3x on the largest (%s, nnz(L) %.3g): %s (CHOLMOD %s, MUMPS %s)\n", big, bign, m3 ? "MET" : "NOT MET (or not shown)", ((big, "cholmod") in sp) ? ((splb[big, "cholmod"] ? "> " : "") fmt(sp[big, "cholmod"]) "x") : ((big, "cholmod") in nap) ? "n/a" : "no result", ((big, "mumps") in sp) ? ((splb[big, "mumps"] ? "> " : "") fmt(sp[big, "mumps"]) "x") : "no result"
    }
    # the column method beside
    txt = ""
    for (i = 1; i <= np; i++) {
      p = order[i]
      for (k = 1; k <= cnt[p]; k++) {
        split(row[p, k], f, "\t"); if (f[2] !~ /^pgx-column/ || !(p in ref) || k == ref[p]) continue
        if (f[3] == "ok") txt = txt sprintf("%s: column %.3f s, %s %.3f s (%sx); ", p, f[9], "pgx", rnum[p], fmt(ratio(f[9], rnum[p])))
        else if (f[3] == "capped" && f[13] != "") txt = txt sprintf("%s: column > %.1f s (stopped), pgx %.3f s (> %sx); ", p, f[13], rnum[p], fmt(ratio(f[13], rnum[p])))
        else txt = txt sprintf("%s: column %s; ", p, f[3])
      }
    }
    printf "- the paper'"'"'s column method beside the supernodal one (numeric): %s\n", (txt == "") ? "not run" : txt
  }' "$PAIRS" > "$OUTDIR/table.body"
{ cat "$OUTDIR/header.txt"; echo; cat "$OUTDIR/table.body"; } > "$OUTDIR/table.md"
rm -f "$OUTDIR/table.body"
echo
cat "$OUTDIR/table.md"
