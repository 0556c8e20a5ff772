#!/usr/bin/env bash
# bench/cudapetsc/medians.sh FILE...: medians over several runs of bench/cudapetsc/run.sh (each with
# PGX_BENCH_REPS=1), one row per problem and solver. Running the script R times, rather than each row R times,
# interleaves the rows' repetitions, so a slow minute of the host touches every row alike. Columns: setup (PCSetUp),
# solve (KSPSolve), PGX's own setup (PGXDILUSetUp + PGXAIPSSetUp, where printed), solve + PGX setup, iterations (and
# "its differ" when the runs disagree), the runs counted, and the range of the solve.
set -u
awk '
  $1 ~ /^(ex45|aniso3d|convdiff3d)-/ && NF >= 7 {
    k = $1 " " $2
    if (!(k in n)) order[++nk] = k
    n[k]++; su[k, n[k]] = $3; so[k, n[k]] = $4
    if (its[k] == "") its[k] = $6; else if (its[k] != $6) bad[k] = 1
    if (match($0, /\[pgx setup [0-9.e+-]+\]/)) { p = substr($0, RSTART + 11, RLENGTH - 12); np[k]++; ps[k, np[k]] = p }
  }
  function med(a, k, m,   i, j, t, v) {
    for (i = 1; i <= m; i++) v[i] = a[k, i] + 0
    for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return m ? v[int((m + 1) / 2)] : -1
  }
  function lo(a, k, m,   i, x) { x = a[k, 1] + 0; for (i = 2; i <= m; i++) if (a[k, i] + 0 < x) x = a[k, i] + 0; return x }
  function hi(a, k, m,   i, x) { x = a[k, 1] + 0; for (i = 2; i <= m; i++) if (a[k, i] + 0 > x) x = a[k, i] + 0; return x }
  END {
    printf "%-16s %-32s %9s %9s %10s %12s %5s %5s  %s\n", "problem", "solver", "setup s", "solve s", "pgx setup", "solve+pgx", "its", "runs", "solve range"
    for (q = 1; q <= nk; q++) {
      k = order[q]; split(k, f, " "); m = n[k]
      s = med(so, k, m); p = np[k] ? med(ps, k, np[k]) : 0
      printf "%-16s %-32s %9.4f %9.4f %10s %12.4f %5s %5d  %.4f-%.4f\n", f[1], f[2], med(su, k, m), s, np[k] ? sprintf("%.4f", p) : "-", s + p, its[k] (bad[k] ? " (its differ)" : ""), m, lo(so, k, m), hi(so, k, m)
    }
  }' "$@"
