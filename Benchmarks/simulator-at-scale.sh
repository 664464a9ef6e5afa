#!/usr/bin/env bash
# The simulator at household scale: `forager-sim --devices 50 --steps 100000` (release build),
# its wall time and peak resident set from GNU time (`/usr/bin/time -v`, Linux), against the
# targets in docs/benchmarks.md (60 s, 300 MB). Every invariant must hold too: the script exits
# with the simulator's status when it fails, 3 when a target is missed, 0 when all are met.
#
#   Benchmarks/simulator-at-scale.sh                      # the figures docs/benchmarks.md cites
#   FORAGER_SIM_DEVICES=10 FORAGER_SIM_STEPS=20000 Benchmarks/simulator-at-scale.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
devices=${FORAGER_SIM_DEVICES:-50}
steps=${FORAGER_SIM_STEPS:-100000}
seconds_target=60
megabytes_target=300

swift build -c release --package-path "$root" --product forager-sim >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
/usr/bin/time -v "$root/.build/release/forager-sim" --devices "$devices" --steps "$steps" \
  >"$work/report" 2>"$work/time" || status=$?

wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time")
kilobytes=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
seconds=$(awk -v t="$wall" 'BEGIN { n = split(t, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }')
megabytes=$((kilobytes / 1024))

echo "forager-sim --devices $devices --steps $steps"
grep -E '^(operations|messages) ' "$work/report" || true
grep '^result:' "$work/report" || true
verdict() { if awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; then echo met; else echo MISSED; fi; }
time_verdict=$(verdict "$seconds" "$seconds_target")
memory_verdict=$(verdict "$megabytes" "$megabytes_target")
echo "$time_verdict wall time ≤ $seconds_target s: $seconds s"
echo "$memory_verdict peak resident set ≤ $megabytes_target MB: $megabytes MB"
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ "$time_verdict" = MISSED ] || [ "$memory_verdict" = MISSED ]; then exit 3; fi
