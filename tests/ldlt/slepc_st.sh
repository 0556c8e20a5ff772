#!/usr/bin/env bash
# tests/ldlt/slepc_st.sh LIBPGX REFSOLVER COUNT PROGRAM ARGS...
# MATSOLVERPGX inside SLEPc's spectral transformation: runs an unmodified SLEPc tutorial twice, with
# -st_pc_factor_mat_solver_type REFSOLVER and with -dll_append LIBPGX -st_pc_factor_mat_solver_type pgx, and passes
# when the first COUNT eigenvalues of the printed tables are equal as printed ('all': the whole tables, which must
# then have the same length: spectrum slicing, where the count comes from the factors' inertia) and every printed
# relative residual of the pgx run is below 1e-7; -eps_view of the pgx run must show the pgx factor.
lib=$1 ref=$2 count=$3
shift 3
a=$("$@" -st_pc_factor_mat_solver_type "$ref" 2>&1) || { echo "$a"; echo "slepc_st.sh: the $ref run failed"; exit 1; }
b=$("$@" -dll_append "$lib" -st_pc_factor_mat_solver_type pgx -eps_view 2>&1) || { echo "$b"; echo "slepc_st.sh: the pgx run failed"; exit 1; }
echo "$b"
grep -q "package used to perform factorization: pgx" <<<"$b" || { echo "slepc_st.sh: -eps_view does not show the pgx factor"; exit 1; }
table() { awk 'NF==2 && $1 ~ /^-?[0-9]+\.[0-9]+$/ {print $1}' <<<"$1"; }
resid() { awk 'NF==2 && $1 ~ /^-?[0-9]+\.[0-9]+$/ {print $2}' <<<"$1"; }
ta=$(table "$a") tb=$(table "$b")
[ -n "$ta" ] || { echo "$a"; echo "slepc_st.sh: no eigenvalue table in the $ref run"; exit 1; }
if [ "$count" = all ]; then
  [ "$ta" = "$tb" ] || { echo "slepc_st.sh: eigenvalues differ ($ref < > pgx):"; diff <(echo "$ta") <(echo "$tb"); exit 1; }
else
  ha=$(head -n "$count" <<<"$ta") hb=$(head -n "$count" <<<"$tb")
  [ "$(wc -l <<<"$ha")" = "$count" ] || { echo "slepc_st.sh: the $ref run printed fewer than $count eigenvalues"; exit 1; }
  [ "$ha" = "$hb" ] || { echo "slepc_st.sh: the first $count eigenvalues differ ($ref < > pgx):"; diff <(echo "$ha") <(echo "$hb"); exit 1; }
fi
bad=$(resid "$b" | awk '$1 + 0 >= 1e-7' | head -1)
[ -z "$bad" ] || { echo "slepc_st.sh: pgx residual $bad >= 1e-7"; exit 1; }
echo "slepc_st.sh: $( [ "$count" = all ] && wc -l <<<"$tb" || echo "$count") eigenvalues equal to those with $ref as printed"
