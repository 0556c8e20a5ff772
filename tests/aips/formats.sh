#!/usr/bin/env bash
# tests/aips/formats.sh COMMAND...
# COMMAND is a KSP solve with PCAIPS that prints -ksp_converged_reason. Runs it with -pgx_device host, then with
# -pgx_device cuda -ksp_view and each -pc_aips_remainder_format auto, csr, dia; prints for each format
#   format F: exit RC, iterations N, remainder R: ...   (the last part is PCView's line)
# and passes when every cuda run exits 0 and converges in the host run's iteration count.
its() { sed -n 's/.*converged due to CONVERGED_[A-Z_]* iterations \([0-9]*\).*/\1/p' <<<"$1" | tail -1; }
out=$("$@" -pgx_device host 2>&1)
rc=$?
ih=$(its "$out")
echo "host: exit $rc, iterations ${ih:-none}"
if [ $rc -ne 0 ] || [ -z "$ih" ]; then
  echo "$out" | tail -20
  echo "formats.sh: the host run failed or did not converge"
  exit 1
fi
ok=1
for f in auto csr dia; do
  out=$("$@" -pgx_device cuda -pc_aips_remainder_format $f -ksp_view 2>&1)
  rc=$?
  i=$(its "$out")
  view=$(grep -m1 -o 'remainder R: .*' <<<"$out")
  echo "format $f: exit $rc, iterations ${i:-none}, ${view:-no remainder line in PCView}"
  if [ $rc -ne 0 ] || [ "$i" != "$ih" ]; then
    echo "$out" | tail -20
    echo "formats.sh: format $f: exit $rc, iterations ${i:-none}, host ${ih}"
    ok=0
  fi
done
[ $ok = 1 ]
