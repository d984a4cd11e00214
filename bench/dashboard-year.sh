#!/usr/bin/env bash
# bench/dashboard-year.sh: a fresh dashboard against a year of a home lab's
# history (docs/design.md, "The dashboard's sync tiers"), on loopback.
#
#   bench/dashboard-year.sh              # about 2-4 minutes after the release build
#   SENSORS=5 bench/dashboard-year.sh    # fewer sensors, quicker
#   PEER=1 bench/dashboard-year.sh       # also the cache without tiers (--raw-days 400), as before
#
# It builds sensei-server, sensei-bench and sensei in release mode, starts the
# server on a fresh temporary data directory, loads SENSORS sensors × the last
# year of 30-second readings (1,051,200 each, through `sensei-bench load-year`),
# then with a fresh cache directory times `sensei list` (hidden --timings):
#   first screen  the sensor list in the cache and readable (what the dashboard shows first)
#   synced        the whole sync: raw window, then minute and hour aggregates
#   wire          bytes over loopback during the sync (/proc/net/dev, lo, received)
#   cache         the cache directory's size afterwards
#   incremental   bytes of the next sync after one new reading per sensor
# The server is the only thing on loopback it starts; every process it starts
# is stopped when it ends, and the temporary directory removed (KEEP=1 keeps it).
set -euo pipefail
cd "$(dirname "$0")/.."

SENSORS=${SENSORS:-20}
SCRATCH=${SCRATCH:-.build}
SKIP_BUILD=${SKIP_BUILD:-0}
KEEP=${KEEP:-0}
PEER=${PEER:-0}
if ! [[ $SENSORS =~ ^[0-9]+$ ]] || [ "$SENSORS" -lt 1 ]; then
    echo "bench: SENSORS must be a whole number, at least 1" >&2
    exit 2
fi

say() { echo "bench: $*" >&2; }

scripts/install-deps.sh curl >/dev/null
if [ "$SKIP_BUILD" != 1 ]; then
    say "building release binaries (scratch path $SCRATCH)"
    for product in sensei-server sensei-bench sensei; do
        swift build -c release --scratch-path "$SCRATCH" --product "$product" >&2
    done
fi
bin=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)

work=$(mktemp -d "${TMPDIR:-/tmp}/sensei-dashboard-year.XXXXXX")
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    if [ "$KEEP" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=3000
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
export SENSEI_TOKEN=$token
SENSEI_TOKEN=$token "$bin/sensei-server" serve --host 127.0.0.1 --port "$port" --data-dir "$work/server" \
    --log-level warning > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 200); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
url="http://127.0.0.1:$port"

# The year up to now, as a home lab a year into Sensei has it: the raw window,
# the minutes and the hours all hold readings.
year_from=$(date -u -d '365 days ago' +%Y-%m-%dT%H:%M:00Z)
year_to=$(date -u +%Y-%m-%dT%H:%M:00Z)
say "loading $SENSORS sensors × a year of 30 s readings ($year_from to $year_to)"
load_started=$(date +%s)
for i in $(seq -w 1 "$SENSORS"); do
    "$bin/sensei-bench" load-year --url "$url" --code "sensor_$i" --from "$year_from" --to "$year_to" >/dev/null
done
say "loaded in $(( $(date +%s) - load_started )) s"

lo_bytes() { awk -F'[: ]+' '$2 == "lo" { print $3 }' /proc/net/dev; }

# run_sync NAME [sensei flags...]: a sync of a fresh cache (or the same one
# again), its figures as NAME_* lines in $work/figures.
run_sync() {
    local name=$1
    shift
    local before after
    before=$(lo_bytes)
    XDG_CACHE_HOME="$work/cache-$name" XDG_CONFIG_HOME="$work/config" SENSEI_URL="$url" \
        "$bin/sensei" list --timings "$@" > "$work/list-$name.txt" 2> "$work/list-$name.err"
    after=$(lo_bytes)
    {
        echo "${name}_wire $(( after - before ))"
        sed -n 's/^sensei: list ready after \([0-9.]*\) s.*/'"${name}"'_first \1/p' "$work/list-$name.err"
        sed -n 's/^sensei: synced after \([0-9.]*\) s.*/'"${name}"'_synced \1/p' "$work/list-$name.err"
        echo "${name}_cache $(du -sb "$work/cache-$name" | cut -f1)"
    } >> "$work/figures"
}

: > "$work/figures"
say "fresh dashboard sync (tiers: raw 3 days, minutes 8 days, hours beyond)"
run_sync tiered
for i in $(seq -w 1 "$SENSORS"); do
    curl -sf -o /dev/null -H "Authorization: Bearer $token" -d '{"value": 21.5}' "$url/sensors/sensor_$i/data"
done
say "incremental sync after one new reading per sensor"
before=$(lo_bytes)
XDG_CACHE_HOME="$work/cache-tiered" XDG_CONFIG_HOME="$work/config" SENSEI_URL="$url" \
    "$bin/sensei" list > /dev/null 2>&1
echo "incremental_wire $(( $(lo_bytes) - before ))" >> "$work/figures"
if [ "$PEER" = 1 ]; then
    say "the peer: every raw reading cached (--raw-days 400), as before tiers"
    run_sync raw --raw-days 400
fi
grep -q "tiered_synced" "$work/figures" || { say "the sync failed:"; cat "$work/list-tiered.err" >&2; exit 1; }

figure() { awk -v key="$1" '$1 == key { print $2 }' "$work/figures"; }
mb() { awk -v bytes="$1" 'BEGIN { if (bytes < 1e6) printf "%.1f kB", bytes / 1e3; else printf "%.1f MB", bytes / 1e6 }'; }
verdict() { awk -v value="$1" -v limit="$2" 'BEGIN { print (value <= limit ? "ok" : "MISSED") }'; }

echo
echo "Dashboard at a year's scale: $SENSORS sensors x a year of 30 s readings ($(( SENSORS * 1051200 )) readings), loopback"
printf '%-26s %14s  %-10s %s\n' "" "figure" "target" ""
printf '%-26s %14s  %-10s %s\n' "first screen (list ready)" "$(figure tiered_first) s" "<= 2 s" "$(verdict "$(figure tiered_first)" 2)"
printf '%-26s %14s  %-10s %s\n' "fully synced" "$(figure tiered_synced) s" "<= 15 s" "$(verdict "$(figure tiered_synced)" 15)"
printf '%-26s %14s  %-10s %s\n' "over the wire" "$(mb "$(figure tiered_wire)")" "<= 50 MB" "$(verdict "$(figure tiered_wire)" 50000000)"
printf '%-26s %14s  %-10s %s\n' "cache on disk" "$(mb "$(figure tiered_cache)")" "<= 50 MB" "$(verdict "$(figure tiered_cache)" 50000000)"
printf '%-26s %14s  %-10s %s\n' "incremental sync" "$(mb "$(figure incremental_wire)")" "<= 1 MB" "$(verdict "$(figure incremental_wire)" 1000000)"
if [ "$PEER" = 1 ]; then
    echo
    echo "peer, every raw reading cached (--raw-days 400): synced $(figure raw_synced) s, $(mb "$(figure raw_wire)") over the wire, $(mb "$(figure raw_cache)") of cache"
fi
echo "(targets for 20 sensors; before tiers the issue measured 2 min 2 s, about 1 GB, 673 MB)"
