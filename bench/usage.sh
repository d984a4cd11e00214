#!/usr/bin/env bash
# GET /sensors/<id>/usage over a year, on loopback, against a release
# sensei-server on a fresh data directory (issue 27: a year of 30-second
# readings by day in 50 ms or less). About two minutes after the release build.
#
# One sensor gets the last 365 days of 30-second readings (1,051,200, through
# `sensei-bench load-year`); the server's compactor packs every hour older than
# a day, as a server that has run for a year has them. Then, `sensei-bench
# time-get` asks each query RUNS times over one keep-alive connection
# (after=a year back, tz=Europe/Berlin), by day, by hour and by month, and
# prints the median and the p95 beside the 50 ms ceiling:
#   summaries  as the server packs hours (schema version 9: each packed hour
#              keeps its usage summary)
#   decoded    the same file with every summary emptied (NULL): each packed hour
#              decoded, reading by reading, as before version 9 (the peer, same run)
#   upgraded   the file taken back to version 8 (summary columns dropped), then
#              opened by the server: how long the upgrade that fills them takes
#
#   RUNS=N        timed requests a query (default 50; 3 more first, untimed)
#   SERVER=path   measure that sensei-server binary instead (e.g. one built
#                 before version 9: then only its own figures, no peer)
#   SKIP_BUILD=1  use the binaries already in $SCRATCH/release
#   SCRATCH=dir   SwiftPM scratch path (default .build)
#   KEEP=1        keep the temporary directory
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-50}
SCRATCH=${SCRATCH:-.build}
bin=$SCRATCH/release
say() { echo "usage: $*" >&2; }
if ! [[ $RUNS =~ ^[0-9]+$ ]] || [ "$RUNS" -lt 1 ]; then
    say "RUNS must be a whole number, at least 1"
    exit 2
fi

scripts/install-deps.sh curl sqlite3 >/dev/null
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    say "building sensei-server and sensei-bench (release)"
    swift build -c release --scratch-path "$SCRATCH" --product sensei-server >&2
    swift build -c release --scratch-path "$SCRATCH" --product sensei-bench >&2
fi
server_bin=${SERVER:-$bin/sensei-server}

work=$(mktemp -d "${TMPDIR:-/tmp}/sensei-usage-bench.XXXXXX")
database=$work/data/sensei.sqlite
server_pid=""
stop_server() {
    [ -n "$server_pid" ] || return 0
    kill -TERM "$server_pid" 2>/dev/null || return 0
    for _ in $(seq 300); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}
cleanup() {
    stop_server
    if [ "${KEEP:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=39950
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
url=http://127.0.0.1:$port
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export SENSEI_TOKEN=$token

# start_server: starts it; startup_seconds is how long until /health answered
# (an upgrade of the file runs before the server listens).
startup_seconds=""
start_server() {
    local started
    started=$(date +%s.%N)
    "$server_bin" serve --data-dir "$work/data" --host 127.0.0.1 --port "$port" --compaction-interval 2 \
        >> "$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 3000); do
        if curl -sf -o /dev/null "$url/health"; then
            startup_seconds=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
            return 0
        fi
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    say "the server did not start:"
    tail -20 "$work/server.log" >&2
    exit 1
}
packed() { grep -o 'compaction: packed [0-9]*' "$work/server.log" | awk '{ sum += $3 } END { print sum + 0 }'; }

start_server
year_from=$(date -u -d '365 days ago' +%Y-%m-%dT%H:%M:00Z)
year_to=$(date -u +%Y-%m-%dT%H:%M:00Z)
say "loading a year of 30 s readings ($year_from to $year_to)"
"$bin/sensei-bench" load-year --url "$url" --code year --from "$year_from" --to "$year_to" >&2
# Hours that ended a day ago are packed: all but the last 24-25 hours (3,000 readings at most).
say "waiting for the compactor to pack every hour older than a day"
for _ in $(seq 6000); do [ "$(packed)" -ge 1048200 ] && break; sleep 0.1; done
[ "$(packed)" -ge 1048200 ] || { say "only $(packed) readings packed"; exit 1; }
say "$(packed) readings packed"

# measure NAME: each query's "median p95 bytes" as NAME_INTERVAL lines in $work/figures.
: > "$work/figures"
measure() {
    for interval in day hour month; do
        echo "$1_$interval $("$bin/sensei-bench" time-get --url "$url" --runs "$RUNS" \
            "/sensors/year/usage?interval=$interval&after=$year_from&tz=Europe/Berlin")" >> "$work/figures"
    done
}
say "timing the usage queries ($RUNS runs each)"
measure summaries
version=$(sqlite3 "$database" 'PRAGMA user_version')
# A server before version 9 has no summaries: its figures are the "before".
[ "$version" -ge 9 ] || sed -i 's/^summaries_/before_/' "$work/figures"
if [ "$version" -ge 9 ]; then
    summaries="first_ts first_value last_ts last_value integral longest_gap increase"
    stop_server
    say "the peer: every summary emptied, each hour decoded"
    sqlite3 "$database" "UPDATE reading_blocks SET $(for c in $summaries; do printf '%s = NULL, ' "$c"; done | sed 's/, $//')"
    start_server
    echo "restart_seconds $startup_seconds" >> "$work/figures"
    measure decoded
    stop_server
    say "the file back at version 8, then upgraded by the server"
    sqlite3 "$database" "$(for c in $summaries; do printf 'ALTER TABLE reading_blocks DROP COLUMN %s; ' "$c"; done) PRAGMA user_version = 8"
    start_server
    echo "upgrade_seconds $startup_seconds" >> "$work/figures"
    echo "upgrade_blocks $(sqlite3 "$database" 'SELECT count(*) FROM reading_blocks WHERE first_ts IS NOT NULL')" >> "$work/figures"
    measure upgraded
fi

figure() { awk -v key="$1" -v field="$2" '$1 == key { print $field }' "$work/figures"; }
verdict() { awk -v value="$1" 'BEGIN { print (value <= 50 ? "ok" : "MISSED") }'; }
echo
echo "GET /sensors/year/usage: a year of 30 s readings (1,051,200; $(sqlite3 "$database" 'SELECT count(*) FROM reading_blocks') packed hours), after=a year back, tz=Europe/Berlin"
echo "$RUNS runs each over one keep-alive connection, loopback; schema version $version; $(basename "$server_bin")"
printf '%-22s %-8s %12s %12s %10s  %s\n' "" interval "median" "p95" "bytes" "ceiling 50 ms (day)"
for name in summaries before decoded upgraded; do
    grep -q "^${name}_day " "$work/figures" || continue
    for interval in day hour month; do
        row="${name}_$interval"
        mark=""
        [ "$interval" = day ] && mark=$(verdict "$(figure "$row" 3)")
        printf '%-22s %-8s %9s ms %9s ms %10s  %s\n' "$name" "$interval" "$(figure "$row" 2)" "$(figure "$row" 3)" \
            "$(figure "$row" 4)" "$mark"
    done
done
if grep -q '^upgrade_seconds ' "$work/figures"; then
    echo "upgrade to version 9: $(figure upgrade_blocks 2) blocks summarised; /health answered $(figure upgrade_seconds 2) s after the start (a start without upgrade: $(figure restart_seconds 2) s)"
fi
