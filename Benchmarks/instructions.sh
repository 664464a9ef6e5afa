#!/usr/bin/env bash
# Instructions, counted: a fixed simulator run under valgrind's callgrind, which counts every
# instruction the run executes. On a machine whose speed moves by a fifth between runs and that
# offers no hardware counters, wall time cannot see a change of a few percent; the count can
# (two runs of one build differ by about 0.4%: the checks on the second thread do not always
# start at the same point). docs/benchmarks.md has a regression only this count showed.
#
#   Benchmarks/instructions.sh > before.txt             # the build as it is
#   Benchmarks/instructions.sh --compare before.txt     # after a change: each part, before → after
#   FORAGER_SIM_STEPS=1000 Benchmarks/instructions.sh   # a shorter run (3000 steps by default)
#   FORAGER_INSTRUCTIONS_KEEP=run.callgrind Benchmarks/instructions.sh   # keep the counts, for
#                                        # callgrind_annotate --inclusive=yes run.callgrind
#
# Prints one line a part, tab-separated: the part, the instructions inclusive of what it calls,
# and the share of the run's; then a checksum of the simulator's report, so that a comparison
# says when the run itself changed (a change of behaviour moves the counts for its own reasons).
# Exit status: 0; 3 when --compare finds a part more than FORAGER_INSTRUCTIONS_SLACK percent
# (2) above before; 2 without valgrind.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
devices=${FORAGER_SIM_DEVICES:-50}
steps=${FORAGER_SIM_STEPS:-3000}
slack=${FORAGER_INSTRUCTIONS_SLACK:-2}
before=
if [ "${1:-}" = --compare ]; then before=${2:?"--compare needs the file an earlier run printed"}; fi

if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
  echo "error: needs valgrind and callgrind_annotate (apt-get install valgrind)" >&2
  exit 2
fi

swift build -c release --package-path "$root" --product forager-sim >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$work/callgrind" \
  "$root/.build/release/forager-sim" --devices "$devices" --steps "$steps" \
  >"$work/report" 2>"$work/valgrind"
callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$work/callgrind" >"$work/functions"
if [ -n "${FORAGER_INSTRUCTIONS_KEEP:-}" ]; then cp "$work/callgrind" "$FORAGER_INSTRUCTIONS_KEEP"; fi

# Each part: its name, then what its symbol holds (the module's and the function's names as
# the compiler mangles them). The largest match counts: the function with all it calls.
parts=(
  "the run" "PROGRAM TOTALS"
  "merging in place (HouseholdReplica.mergeInPlace)" "16HouseholdReplicaV12mergeInPlace"
  "a session's message (SyncSession.message(from:))" "11SyncSessionV7message4from"
  "a delta since a version (HouseholdState.delta(since:))" "14HouseholdStateV5delta5since"
  "encoding JSON (JSONWriter.encode)" "10JSONWriterV6encode_8capacity"
  "checks after each merge (SoundnessChecks.check)" "15SoundnessChecksC5check_"
  "the final checks (Simulation.checkInvariants)" "0B0V15checkInvariants"
  # Not a part of the run but a cost spread through it: a variable that a local function
  # captures, when the function is passed on as a closure, lives in a box whose every access
  # the runtime checks for exclusivity (docs/benchmarks.md, the twenty-fourth session).
  "exclusivity checked at run time (swift_beginAccess)" "swift_beginAccess"
)
# Parts a run may not call at all: counted 0 when absent.
optional_parts="swift_beginAccess"
printed=$work/printed
: >"$printed"
total=
for ((i = 0; i < ${#parts[@]}; i += 2)); do
  name=${parts[i]}
  # The first count of a function holding the part's name, read by awk from the file to its
  # end. A grep piped into an awk that exited at its first match got SIGPIPE whenever several
  # functions matched and grep had more to write, and pipefail made that the exit status (141).
  count=$(awk -v part="${parts[i + 1]}" 'found == "" && index($0, part) && $1 ~ /^[0-9,]+$/ {
    gsub(",", "", $1); found = $1 } END { print found }' "$work/functions")
  if [ -z "$count" ] && [[ " $optional_parts " == *" ${parts[i + 1]} "* ]]; then count=0; fi
  if [ -z "$count" ]; then
    echo "error: no function holding ${parts[i + 1]} in the run (renamed?)" >&2
    exit 1
  fi
  total=${total:-$count}
  printf '%s\t%s\t%s\n' "$name" "$count" "$(awk -v c="$count" -v t="$total" 'BEGIN { printf "%.1f%%", 100 * c / t }')" >>"$printed"
done
printf 'report\t%s\n' "$(cksum <"$work/report" | cut -d' ' -f1)" >>"$printed"

if [ -z "$before" ]; then
  echo "# forager-sim --devices $devices --steps $steps under valgrind --tool=callgrind"
  cat "$printed"
  exit 0
fi
echo "# forager-sim --devices $devices --steps $steps: instructions before → after"
grown=0
while IFS=$'\t' read -r name count _; do
  if [ "$name" = report ]; then
    old=$(awk -F'\t' '$1 == "report" { print $2 }' "$before")
    if [ "$old" = "$count" ]; then echo "the report: the same"; else echo "the report: DIFFERENT (the run changed)"; fi
    continue
  fi
  old=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$before")
  if [ -z "$old" ]; then echo "$name: $count (not in $before)"; continue; fi
  line=$(awk -v a="$old" -v b="$count" -v s="$slack" 'BEGIN {
    if (a == 0) { printf "%.0f → %.0f%s", a, b, (b > 0 ? "  GREW" : ""); exit }
    change = 100 * (b - a) / a
    printf "%+.1f%% (%.0f → %.0f)%s", change, a, b, (change > s ? "  GREW" : "")
  }')
  echo "$name: $line"
  case $line in *GREW) grown=1 ;; esac
done <"$printed"
if [ "$grown" -ne 0 ]; then exit 3; fi
