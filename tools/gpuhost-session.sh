#!/usr/bin/env bash
# One GPU-host call that runs several steps within a time budget and returns everything in one archive.
#   tools/gpuhost-session.sh BUDGET_S STEPFILE
# STEPFILE: one step per line, 'name | cap_s | command' ('#' comments). Steps run in order; a line whose name starts
# with '&' runs in the background beside the next steps until a line 'wait'. Each step gets min(cap, budget left)
# seconds; its output goes to $OUT/w/<name>.txt. At the end everything is packed into $OUT/session.tgz (what comes
# back from the GPU host is limited to 8 files) and a summary (exit status and seconds of each step) is printed.
set -u
budget=$1 steps=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
O=${OUT:-$ROOT/gpuhost-out}
mkdir -p "$O/w"
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start) - 10)); }
summary=()
while IFS='|' read -r name cap cmd; do
  name=$(sed 's/^[[:space:]]*//; s/[[:space:]]*$//' <<<"$name"); cap=$(sed 's/^[[:space:]]*//; s/[[:space:]]*$//' <<<"${cap:-}")
  case "$name" in ''|\#*) continue ;; esac
  if [ "$name" = wait ]; then wait; continue; fi
  l=$(left); [ "$l" -gt 5 ] || { summary+=("$name: skipped (no time left)"); continue; }
  t=$cap; [ "$t" -gt "$l" ] && t=$l
  bg=0; case "$name" in \&*) bg=1; name=${name#&} ;; esac
  f="$O/w/$name.txt"
  { echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"; echo "date: $(date -u +%FT%TZ)"; echo "command: $cmd"; echo; } > "$f"
  if [ $bg = 1 ]; then
    ( t0=$(date +%s); OUT="$O/w/$name" timeout "$t" bash -c "$cmd" >> "$f" 2>&1 </dev/null; echo "$name: exit $? ($(( $(date +%s) - t0 )) s)" >> "$O/w/summary-bg.txt" ) &
  else
    t0=$(date +%s)
    OUT="$O/w/$name" timeout "$t" bash -c "$cmd" >> "$f" 2>&1 </dev/null
    summary+=("$name: exit $? ($(( $(date +%s) - t0 )) s, cap $t s)")
  fi
done < "$steps"
wait
printf '%s\n' "${summary[@]}" > "$O/w/summary.txt"
[ -f "$O/w/summary-bg.txt" ] && cat "$O/w/summary-bg.txt" >> "$O/w/summary.txt"
tar -C "$O" -czf "$O/session.tgz" w && rm -rf "$O/w"
cat "$O/session.tgz" >/dev/null
echo "==== session summary"; tar -xzOf "$O/session.tgz" w/summary.txt
