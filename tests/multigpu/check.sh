#!/usr/bin/env bash
# tests/multigpu/check.sh MODE ...: the checks of one MPI rank per GPU (issue 15) that need more than
# tests/expect.sh. Run from the repository root; MPI through ${PGX_MPIEXEC:-mpiexec}.
#   map NRANKS EXPECTED COMMAND...  : runs 'mpiexec -n NRANKS COMMAND -ksp_view -info' and passes when rank r's
#                                     PCView line "[r] GPU: ... device D)" names D = EXPECTED[r] (a comma list, e.g.
#                                     0,1 or 0,1,0,1) and -info says which rule chose it on every rank
#   smi COMMAND...                  : runs 'mpiexec -n 2 COMMAND' in the background and samples nvidia-smi while it
#                                     runs; passes when two distinct GPUs each hold one of the run's processes
#                                     (--query-compute-apps), printing nvidia-smi's view of that moment
#   eigs N1 N2 COMMAND...           : runs COMMAND on N1 and on N2 ranks (an unmodified SLEPc tutorial with
#                                     -eps_type pgx) and passes when both print the same non-empty eigenvalue table
#                                     (the printed eigenvalues, compared as printed) and the same converged count
set -u
MPIEXEC=${PGX_MPIEXEC:-mpiexec}
mode=$1; shift
case "$mode" in
map)
  n=$1 want=$2; shift 2
  out=$($MPIEXEC -n "$n" "$@" -ksp_view -info 2>&1); rc=$?
  grep -E "GPU: |PGX uses CUDA device" <<<"$out" | sort -u
  [ $rc -eq 0 ] || { echo "$out" | tail -20; echo "check.sh map: the run failed (exit $rc)"; exit 1; }
  IFS=, read -r -a dev <<<"$want"
  for ((r = 0; r < n; r++)); do
    got=$(sed -n "s/.*\[$r\] GPU: .*device \([0-9]*\)).*/\1/p" <<<"$out" | head -1)
    [ "$got" = "${dev[$r]}" ] || { echo "check.sh map: rank $r uses device '${got:-none}', expected ${dev[$r]}"; exit 1; }
    grep -qE "^\[$r\] .*PGX uses CUDA device ${dev[$r]} of [0-9]+, chosen by " <<<"$out" ||
      { echo "check.sh map: no -info line 'PGX uses CUDA device ${dev[$r]} ...' from rank $r"; exit 1; }
  done
  echo "check.sh map: ranks 0..$((n - 1)) on devices $want"
  ;;
smi)
  log=$(mktemp)
  $MPIEXEC -n 2 "$@" >"$log" 2>&1 &
  job=$!
  best="" view=""
  while kill -0 $job 2>/dev/null; do
    # the run's processes: mpiexec's descendants (other programs on the GPUs do not count)
    kids=$(pgrep -P $job); for k in $kids; do kids="$kids $(pgrep -P "$k")"; done
    apps=$(nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader 2>/dev/null |
      awk -F', ' -v pids=" $(echo $kids) " 'index(pids, " " $1 " ")')
    ngpu=$(awk -F', ' 'NF >= 2 {print $2}' <<<"$apps" | sort -u | wc -l)
    if [ "$ngpu" -ge 2 ]; then best=$apps; view=$(nvidia-smi 2>&1); break; fi
    sleep 0.2
  done
  wait $job; rc=$?
  echo "--- nvidia-smi while the run was on both GPUs:"; echo "${view:-(never seen on two GPUs)}"
  echo "--- compute apps (pid, bus id, memory):"; echo "${best:-none}"
  echo "--- the run (exit $rc):"; tail -5 "$log"; rm -f "$log"
  [ $rc -eq 0 ] || { echo "check.sh smi: the run failed"; exit 1; }
  [ -n "$best" ] || { echo "check.sh smi: nvidia-smi never showed the run's processes on two GPUs"; exit 1; }
  echo "check.sh smi: the two ranks ran on two GPUs ($(awk -F', ' '{print $2}' <<<"$best" | sort -u | paste -sd' '))"
  ;;
eigs)
  n1=$1 n2=$2; shift 2
  o1=$($MPIEXEC -n "$n1" "$@" 2>&1) || { echo "$o1" | tail -20; echo "check.sh eigs: the run on $n1 rank(s) failed"; exit 1; }
  o2=$($MPIEXEC -n "$n2" "$@" 2>&1) || { echo "$o2" | tail -20; echo "check.sh eigs: the run on $n2 ranks failed"; exit 1; }
  echo "$o2"
  table() { awk 'NF==2 && $1 ~ /^-?[0-9]+\.[0-9]+$/ {print $1}' <<<"$1"; }
  nconv() { grep -oE 'Number of converged eigenpairs: [0-9]+' <<<"$1"; }
  [ -n "$(table "$o1")" ] || { echo "check.sh eigs: no eigenvalue table printed"; exit 1; }
  [ "$(nconv "$o1")" = "$(nconv "$o2")" ] || { echo "check.sh eigs: '$(nconv "$o1")' on $n1, '$(nconv "$o2")' on $n2"; exit 1; }
  if [ "$(table "$o1")" != "$(table "$o2")" ]; then
    echo "check.sh eigs: eigenvalues differ:"; diff <(table "$o1") <(table "$o2"); exit 1
  fi
  echo "check.sh eigs: $(table "$o1" | wc -l) eigenvalues equal on $n1 and $n2 ranks, as printed"
  ;;
*) echo "check.sh: unknown mode $mode"; exit 2 ;;
esac
