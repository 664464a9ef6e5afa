#!/usr/bin/env bash
# Two devices of one household syncing through a real Syncthing pair (docs/sync-folder.md,
# "Through Syncthing"). Run by .ci/run; exits non-zero, saying why, when anything fails,
# including when Syncthing cannot be installed.
#
# Two Syncthing instances on 127.0.0.1 (discovery, relays, NAT and usage reporting off) share
# one folder. A phone and a tablet (Examples' folder-device, one launch per command) create and
# join a household through it, then, while the instances are apart, both edit (the same
# category under two spellings, and others), and the tablet's side gets an old copy of the
# phone's file back (a restored backup), so that Syncthing itself writes a .sync-conflict copy
# when they meet again. The devices then sync while Syncthing transfers (its temporary files
# come and go, and one is left half-written where the phone reads) until both hold the same
# household. Then both stay open while the phone edits: its syncs append lines to its journal
# in the folder, which the tablet must read as lines. At the end the household must hold
# every acknowledged edit.
set -euo pipefail
cd "$(dirname "$0")/../.."

say() { printf 'syncthing-pair: %s\n' "$*"; }
die() {
  printf 'syncthing-pair: error: %s\n' "$*" >&2
  exit 1
}

if ! command -v syncthing > /dev/null; then
  if [ "$(uname -s)" = Darwin ] && command -v brew > /dev/null; then
    say "Syncthing is missing; installing it with brew"
    brew install --quiet syncthing > /dev/null ||
      die "brew could not install syncthing; install it (https://syncthing.net) and run again"
  elif command -v apt-get > /dev/null; then
    say "Syncthing is missing; installing it with apt-get"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq > /dev/null || true
    $SUDO apt-get install -y -qq --no-install-recommends syncthing > /dev/null ||
      die "apt-get could not install syncthing; install it (https://syncthing.net) and run again"
  fi
  command -v syncthing > /dev/null ||
    die "Syncthing is not installed and neither brew (macOS) nor apt-get could install it; install it and run again"
fi
say "$(syncthing --version | head -1)"

swift build --package-path Examples --product folder-device > /dev/null ||
  die "could not build folder-device"
DEVICE="$(swift build --package-path Examples --show-bin-path)/folder-device"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/syncthing-pair.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2> /dev/null || true; done
  wait 2> /dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Ports from the process id, so that runs side by side do not collide.
BASE=$((20000 + ($$ % 2000) * 4))
PORT_A=$BASE
PORT_B=$((BASE + 1))

for side in a b; do
  syncthing generate --home="$WORK/$side" --no-default-folder > "$WORK/$side.generate.log" 2>&1 ||
    die "syncthing generate failed: $(cat "$WORK/$side.generate.log")"
  mkdir -p "$WORK/shared-$side" "$WORK/device-$side"
done
ID_A=$(syncthing --home="$WORK/a" --device-id)
ID_B=$(syncthing --home="$WORK/b" --device-id)

# A whole configuration per instance: both devices at fixed loopback addresses, one shared
# folder rescanned every second, conflict copies kept (without maxConflicts Syncthing keeps
# one side silently), and nothing that reaches beyond this machine.
write_config() { # side, own port
  cat > "$WORK/$1/config.xml" << EOF
<configuration version="36">
  <folder id="forager" label="forager" path="$WORK/shared-$1" type="sendreceive"
      rescanIntervalS="1" fsWatcherEnabled="false" autoNormalize="true">
    <device id="$ID_A"></device>
    <device id="$ID_B"></device>
    <maxConflicts>10</maxConflicts>
  </folder>
  <device id="$ID_A" name="a" compression="metadata"><address>tcp://127.0.0.1:$PORT_A</address></device>
  <device id="$ID_B" name="b" compression="metadata"><address>tcp://127.0.0.1:$PORT_B</address></device>
  <gui enabled="false" tls="false"><address>127.0.0.1:0</address></gui>
  <options>
    <listenAddress>tcp://127.0.0.1:$2</listenAddress>
    <globalAnnounceEnabled>false</globalAnnounceEnabled>
    <localAnnounceEnabled>false</localAnnounceEnabled>
    <relaysEnabled>false</relaysEnabled>
    <natEnabled>false</natEnabled>
    <startBrowser>false</startBrowser>
    <urAccepted>-1</urAccepted>
    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
    <crashReportingEnabled>false</crashReportingEnabled>
    <reconnectionIntervalS>1</reconnectionIntervalS>
  </options>
</configuration>
EOF
}
write_config a "$PORT_A"
write_config b "$PORT_B"

declare -A PID_OF
start() { # side
  syncthing serve --home="$WORK/$1" --no-browser --no-restart \
    --logfile="$WORK/$1.log" > /dev/null 2>&1 &
  PID_OF[$1]=$!
  PIDS+=("$!")
}
stop() { # side
  kill "${PID_OF[$1]}" 2> /dev/null || true
  wait "${PID_OF[$1]}" 2> /dev/null || true
}

# Waits until `check` (a command) succeeds, for at most `seconds`.
wait_for() { # seconds, description, command...
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq $((seconds * 4))); do
    if "$@" > /dev/null 2>&1; then return 0; fi
    sleep 0.25
  done
  say "instance a's log:"; tail -20 "$WORK/a.log" || true
  say "instance b's log:"; tail -20 "$WORK/b.log" || true
  die "timed out after ${seconds}s waiting for $what"
}
same_file() { cmp -s "$WORK/shared-a/$1" "$WORK/shared-b/$1"; }

phone() { "$DEVICE" "$WORK/device-a/household.json" "$@"; }
tablet() { "$DEVICE" "$WORK/device-b/household.json" "$@"; }
ACKNOWLEDGED=()
add() { # device, names...
  local device=$1
  shift
  while read -r word name; do
    [ "$word" = acknowledged ] && ACKNOWLEDGED+=("$name")
  done < <("$device" add "$@")
}

start a
start b

say "the phone creates the household and publishes it"
created=$(phone create Sam)
HOUSEHOLD=$(awk '/^household /{print $2}' <<< "$created")
MEMBER=$(awk '/^member /{print $2}' <<< "$created")
add phone "Produce" "Pantry"
phone sync "$WORK/shared-a" phone > /dev/null
# Each device's file in the folder is named by the id its store keeps beside its replica.
PHONE_FILE="$(cat "$WORK/device-a/household.json.device").forager.json"
wait_for 60 "the phone's file to reach the tablet's side" same_file "$PHONE_FILE"

say "the tablet joins through the folder"
tablet join "$HOUSEHOLD" "$MEMBER" > /dev/null
tablet sync "$WORK/shared-b" tablet > /dev/null
TABLET_FILE="$(cat "$WORK/device-b/household.json.device").forager.json"
wait_for 60 "the tablet's file to reach the phone's side" same_file "$TABLET_FILE"
phone sync "$WORK/shared-a" phone > /dev/null
wait_for 60 "the phone's file to reach the tablet's side again" same_file "$PHONE_FILE"
cp "$WORK/shared-b/$PHONE_FILE" "$WORK/phone-backup.json"

say "apart: both devices edit, and the tablet's side gets an old phone file back"
stop b
add phone "Dairy" "produce " "Frozen"
phone sync "$WORK/shared-a" phone > /dev/null
add tablet "PRODUCE" "Bakery" "Spices"
tablet sync "$WORK/shared-b" tablet > /dev/null
sleep 1.1 # a later modification time than the phone's copy: the restored backup wins the name
cp "$WORK/phone-backup.json" "$WORK/shared-b/$PHONE_FILE"
touch "$WORK/shared-b/$PHONE_FILE"

say "together again"
start b
conflict_copy() { ls "$WORK/shared-$1" | grep -q "^${PHONE_FILE%.json}\.sync-conflict-.*\.json\$"; }
wait_for 90 "Syncthing's conflict copy of the phone's file" conflict_copy a
wait_for 90 "the conflict copy on the tablet's side too" conflict_copy b
say "Syncthing wrote $(ls "$WORK/shared-a" | grep -c 'sync-conflict') conflict copy(ies)"

# A download in progress, as Syncthing names it: half a file the phone must not read.
head -c 200 "$WORK/shared-a/$TABLET_FILE" > "$WORK/shared-a/.syncthing.$TABLET_FILE.tmp"

# Syncs until both devices hold the same household: each sync publishes what changed, which
# Syncthing carries over while the other device syncs.
converge() {
  local converged=""
  for round in $(seq 1 20); do
    phone sync "$WORK/shared-a" phone >> "$WORK/phone-syncs.log"
    tablet sync "$WORK/shared-b" tablet >> "$WORK/tablet-syncs.log"
    if [ "$(phone show)" = "$(tablet show)" ]; then
      converged=$round
      break
    fi
    sleep 1.5
  done
  [ -n "$converged" ] || die "the devices did not converge in 20 rounds: $(phone show | head -1) vs $(tablet show | head -1)"
  say "the devices hold the same household after $converged round(s) of syncs"
}
converge
grep -q "conflicted copies [1-9]" "$WORK/phone-syncs.log" "$WORK/tablet-syncs.log" ||
  die "no device merged Syncthing's conflict copy"

# Both devices stay open, as apps do: the phone's later syncs append lines to its journal in
# the folder, and the tablet reads them as Syncthing brings them, without reading the phone's
# snapshot again.
say "both devices stay open: the phone appends journal lines, the tablet reads them"
LATER=("Herbs" "Tea" "Rice" "Oils")
phone session "$WORK/shared-a" phone "${LATER[@]}" > "$WORK/phone-session.log" &
SESSION=$!
PIDS+=("$SESSION")
tablet follow "$WORK/shared-b" tablet 120 "${LATER[@]}" > "$WORK/tablet-follow.log" ||
  die "the tablet did not receive the phone's later edits: $(cat "$WORK/tablet-follow.log")"
wait "$SESSION" || die "the phone's session failed: $(cat "$WORK/phone-session.log")"
while read -r word name; do
  [ "$word" = acknowledged ] && ACKNOWLEDGED+=("$name")
done < "$WORK/phone-session.log"
grep -q "^published line" "$WORK/phone-session.log" ||
  die "the phone published no journal line: $(cat "$WORK/phone-session.log")"
grep -q "^merged $PHONE_FILE journal" "$WORK/tablet-follow.log" ||
  die "the tablet never read the phone's journal lines: $(cat "$WORK/tablet-follow.log")"
[ -s "$WORK/shared-b/$PHONE_FILE.journal" ] ||
  die "the phone's journal did not reach the tablet's side"
say "the phone published $(grep -c '^published line' "$WORK/phone-session.log") journal line(s);" \
  "the tablet read the phone's journal $(grep -c "^merged $PHONE_FILE journal" "$WORK/tablet-follow.log") time(s) without its snapshot"
converge
say "the folder holds:"
ls -A "$WORK/shared-a" | grep -v '^[.]st' | sed 's/^/  /'

categories=$(phone show | tail -n +2)
for name in "${ACKNOWLEDGED[@]}"; do
  # Spellings of one key ("produce ", "PRODUCE") are one category under one of them.
  key=$(tr '[:upper:]' '[:lower:]' <<< "$name" | sed 's/^ *//; s/ *$//')
  grep -qix " *$key *" <<< "$categories" || die "acknowledged edit \"$name\" is missing: $categories"
done
count=$(wc -l <<< "$categories")
expected=$(printf '%s\n' "${ACKNOWLEDGED[@]}" | tr '[:upper:]' '[:lower:]' | sed 's/^ *//; s/ *$//' | sort -u | wc -l)
[ "$count" -eq "$expected" ] ||
  die "expected $expected categories, one per key acknowledged, found $count: $categories"
say "every acknowledged edit survived (${#ACKNOWLEDGED[@]} edits, $count categories); both devices agree"
