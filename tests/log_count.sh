#!/usr/bin/env bash
# tests/log_count.sh EVENT MAX -- COMMAND...
# Runs COMMAND (which must print -log_view) and passes when the count of log event EVENT (0 when absent) is
# at most MAX; MAX 'its' means fewer than the KSP's iterations (-ksp_converged_reason), i.e. not once per
# iteration. Used to check that no host-device copy happens per application.
ev=$1 max=$2; shift 3
out=$("$@" 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "$out" | tail -30; echo "log_count.sh: command failed with exit $rc"; exit 1; }
count=$(awk -v e="$ev" '$1 == e {print $2; exit}' <<<"$out"); count=${count:-0}
its=$(sed -n 's/.*converged due to CONVERGED_[A-Z_]* iterations \([0-9]*\).*/\1/p' <<<"$out" | tail -1)
if [ "$max" = its ]; then
  [ -n "$its" ] || { echo "log_count.sh: no -ksp_converged_reason line"; exit 1; }
  max=$((its - 1))
fi
echo "$ev: $count (at most $max; iterations ${its:-?})"
[ "$count" -le "$max" ] || { echo "$out" | grep -E "^(PGX|KSPSolve|PCApply|MatMult )" ; echo "log_count.sh: $ev ran $count times"; exit 1; }
