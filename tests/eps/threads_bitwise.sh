#!/usr/bin/env bash
# tests/eps/threads_bitwise.sh "T1 T2 ..." PROGRAM ARGS...
# Runs PROGRAM ARGS -print_hash -eps_pgx_threads T for each T (tests/eps/test_eps: the hash of the bits of the
# eigenvalues and eigenvectors) and passes when every run passes its own checks ("all checks passed") and all
# print the same hash: the eigenpairs are bitwise the same whatever the number of host threads.
counts=$1
shift
first=
for t in $counts; do
  out=$("$@" -print_hash -eps_pgx_threads "$t" 2>&1) || { echo "$out"; echo "threads_bitwise.sh: the run with $t threads failed"; exit 1; }
  grep -q "all checks passed" <<<"$out" || { echo "$out"; echo "threads_bitwise.sh: the run with $t threads did not pass its checks"; exit 1; }
  h=$(grep -oE 'hash of the eigenpairs: [0-9a-f]{16}' <<<"$out" | awk '{print $NF}')
  [ -n "$h" ] || { echo "$out"; echo "threads_bitwise.sh: no hash printed with $t threads"; exit 1; }
  echo "threads $t: $h"
  if [ -z "$first" ]; then first=$h; elif [ "$h" != "$first" ]; then echo "threads_bitwise.sh: the eigenpairs with $t threads differ from those with the first count"; exit 1; fi
done
echo "$out" | grep -E "eigenpairs returned|host threads of the divide and conquer|tridiagonal eigensolver|solved on rank"
echo "threads_bitwise.sh: bitwise identical eigenpairs with host threads $counts"
