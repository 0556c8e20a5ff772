#!/usr/bin/env bash
# tests/eps/same_eigenvalues.sh LIBPGX PROGRAM ARGS...
# Runs an unmodified SLEPc tutorial with -eps_type lapack and with -dll_append libpgx.so -eps_type pgx and
# passes when both print the same number of converged eigenpairs and the same eigenvalue table (the printed
# eigenvalues, compared as printed), and every printed relative residual of pgx is below 1e-10, or, for an
# eigenvalue small against the largest printed one, |lambda| / max|lambda| times it below 1e-13 (a backward-stable
# residual relative to ||A||: ex1's ||A x - lambda x|| / |lambda| is about eps ||A|| / |lambda|, 1e-10 at
# lambda = 2e-5 of ||A|| = 4 for LAPACK too).
# Set MPIEXEC_N to run both under mpiexec -n N; PGX_EPS_DEVICE (default host) is the -pgx_device of the pgx run.
lib=$1
shift
run() { if [ -n "${MPIEXEC_N:-}" ]; then ${PGX_MPIEXEC:-mpiexec} -n "$MPIEXEC_N" "$@"; else "$@"; fi; }
ref=$(run "$@" -eps_type lapack 2>&1) || { echo "$ref"; echo "same_eigenvalues.sh: lapack run failed"; exit 1; }
out=$(run "$@" -dll_append "$lib" -eps_type pgx -pgx_device "${PGX_EPS_DEVICE:-host}" 2>&1) || { echo "$out"; echo "same_eigenvalues.sh: pgx run failed"; exit 1; }
echo "$out"
# the table rows: "eigenvalue residual", both numbers (EPSErrorView and the tutorials' own tables)
table() { awk 'NF==2 && $1 ~ /^-?[0-9]+\.[0-9]+$/ {print $1}' <<<"$1"; }
nconv() { grep -oE 'Number of converged eigenpairs: [0-9]+|\([0-9]+ eigenpairs\)' <<<"$1"; }
nref=$(nconv "$ref"); npgx=$(nconv "$out")
[ -n "$nref" ] && [ "$nref" = "$npgx" ] || { echo "same_eigenvalues.sh: lapack '$nref', pgx '$npgx'"; exit 1; }
[ -n "$(table "$ref")" ] || { echo "same_eigenvalues.sh: no eigenvalue table printed"; exit 1; }
if [ "$(table "$ref")" != "$(table "$out")" ]; then
  echo "same_eigenvalues.sh: eigenvalues differ:"; diff <(table "$ref") <(table "$out"); exit 1
fi
bad=$(awk 'NF==2 && $1 ~ /^-?[0-9]+\.[0-9]+$/ {l[++k]=($1<0?-$1:$1); r[k]=$2+0; if (l[k]>m) m=l[k]}
  END {for (i=1;i<=k;i++) if (r[i] >= 1e-10 && !(m > 0 && l[i] > 0 && r[i]*l[i]/m < 1e-13)) {print r[i] " (eigenvalue " l[i] ", largest " m ")"; exit}}' <<<"$out")
[ -z "$bad" ] || { echo "same_eigenvalues.sh: residual $bad >= 1e-10, and >= 1e-13 relative to the largest eigenvalue"; exit 1; }
echo "same_eigenvalues.sh: $(table "$out" | wc -l) eigenvalues equal to EPSLAPACK's as printed"
