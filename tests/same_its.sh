#!/usr/bin/env bash
# tests/same_its.sh [--tol N] COMMAND... -- ARGS_A... -- ARGS_B...
# Runs COMMAND ARGS_A and COMMAND ARGS_B (each must print PETSc's -ksp_converged_reason line), and passes when
# both converged and their iteration counts differ by at most N (default 0: equal). Used to check that a
# configuration (device Vecs, several ranks, another backend) takes the same iterations as a reference one.
# --same-history (first): also the lines of -ksp_monitor ("KSP Residual norm", 12 digits) must be identical
# (an option that must not change the arithmetic).
tol=0 hist=0
[ "${1:-}" = --same-history ] && { hist=1; shift; }
[ "${1:-}" = --tol ] && { tol=$2; shift 2; }
cmd=() a=() b=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do cmd+=("$1"); shift; done
shift
while [ $# -gt 0 ] && [ "$1" != -- ]; do a+=("$1"); shift; done
shift
b=("$@")
its() { sed -n 's/.*converged due to CONVERGED_[A-Z_]* iterations \([0-9]*\).*/\1/p' <<<"$1" | tail -1; }
outa=$("${cmd[@]}" "${a[@]}" 2>&1); rca=$?
outb=$("${cmd[@]}" "${b[@]}" 2>&1); rcb=$?
ia=$(its "$outa") ib=$(its "$outb")
echo "A (${a[*]}): exit $rca, iterations ${ia:-none}"; echo "B (${b[*]}): exit $rcb, iterations ${ib:-none}"
if [ $rca -ne 0 ] || [ $rcb -ne 0 ] || [ -z "$ia" ] || [ -z "$ib" ]; then
  echo "--- A:"; echo "$outa" | tail -20; echo "--- B:"; echo "$outb" | tail -20
  echo "same_its.sh: a run failed or did not converge"; exit 1
fi
d=$((ia > ib ? ia - ib : ib - ia))
[ $d -le "$tol" ] || { echo "same_its.sh: iterations differ by $d (tolerance $tol)"; exit 1; }
if [ $hist = 1 ]; then
  ha=$(grep 'KSP Residual norm' <<<"$outa") hb=$(grep 'KSP Residual norm' <<<"$outb")
  [ -n "$ha" ] || { echo "same_its.sh: no -ksp_monitor lines"; exit 1; }
  [ "$ha" = "$hb" ] || { echo "same_its.sh: residual histories differ:"; diff <(echo "$ha") <(echo "$hb") | head -10; exit 1; }
  echo "same_its.sh: residual histories identical ($(wc -l <<<"$ha") lines)"
fi
echo "same_its.sh: iterations agree ($ia, $ib)"
