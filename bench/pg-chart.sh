#!/usr/bin/env bash
# The year's 200-bucket chart, GET /sensors/year/data?buckets=200 over a year
# of 30-second readings, on PostgreSQL beside SQLite in the same run, against
# release sensei-servers on loopback (issue 28: 50 ms or less on PostgreSQL;
# docs/design.md: 20 ms on SQLite).
#
# SQLite: one server on a fresh data directory gets the year through
# `sensei-bench load-year`, and its compactor packs every hour older than a
# day, as on a server that has run for a year.
# PostgreSQL: a private cluster (Debian's postgresql, as the postgres user on a
# free port and a temporary data directory) and a second server on it
# (--database). The same year is copied into it by SQL as SQLite keeps it: the
# last day as rows, every older hour as the same packed block, with the hour's
# count, sum, min and max beside it (as PostgreSQL's compaction writes them).
# Then `sensei-bench time-get` asks each server RUNS times over one keep-alive
# connection and prints the median and the p95; both answers must hold the
# same readings.
#
#   RUNS=N        timed requests a backend (default 50; 3 more first, untimed)
#   SKIP_BUILD=1  use the binaries already in $SCRATCH/release
#   SCRATCH=dir   SwiftPM scratch path (default .build)
#   KEEP=1        keep the temporary directory
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-50}
SCRATCH=${SCRATCH:-.build}
bin=$SCRATCH/release
say() { echo "pg-chart: $*" >&2; }
if ! [[ $RUNS =~ ^[0-9]+$ ]] || [ "$RUNS" -lt 1 ]; then
    say "RUNS must be a whole number, at least 1"
    exit 2
fi

scripts/install-deps.sh curl sqlite3 postgresql >/dev/null
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    say "building sensei-server and sensei-bench (release)"
    swift build -c release --scratch-path "$SCRATCH" --product sensei-server >&2
    swift build -c release --scratch-path "$SCRATCH" --product sensei-bench >&2
fi
pgbin=/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -n | tail -n 1)/bin
[ -x "$pgbin/postgres" ] || { say "no PostgreSQL server in /usr/lib/postgresql"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/sensei-pg-chart.XXXXXX")
chmod 755 "$work"
pids=()
cluster=""
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    [ -z "$cluster" ] || as_postgres "$pgbin/pg_ctl" -D "$cluster" -m fast stop >/dev/null 2>&1 || true
    if [ "${KEEP:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# PostgreSQL refuses to run as root: as root, its tools run as the postgres user.
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() {
    local port=$1
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    echo "$port"
}
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export SENSEI_TOKEN=$token

# start_server NAME PORT ARGS…: a sensei-server, until /health answers.
start_server() {
    local name=$1 port=$2
    shift 2
    "$bin/sensei-server" serve --host 127.0.0.1 --port "$port" "$@" >> "$work/$name.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 600); do
        curl -sf -o /dev/null "http://127.0.0.1:$port/health" && return 0
        sleep 0.1
    done
    say "the $name server did not start:"
    tail -20 "$work/$name.log" >&2
    exit 1
}

sqlite_port=$(free_port 39970)
sqlite_url=http://127.0.0.1:$sqlite_port
start_server sqlite "$sqlite_port" --data-dir "$work/sqlite" --compaction-interval 2
year_from=$(date -u -d '365 days ago' +%Y-%m-%dT%H:00:00Z)
year_to=$(date -u +%Y-%m-%dT%H:00:00Z)
say "loading a year of 30 s readings into SQLite ($year_from to $year_to)"
"$bin/sensei-bench" load-year --url "$sqlite_url" --code year --from "$year_from" --to "$year_to" >&2
packed() { grep -o 'compaction: packed [0-9]*' "$work/sqlite.log" | awk '{ sum += $3 } END { print sum + 0 }'; }
say "waiting for the compactor to pack every hour older than a day"
for _ in $(seq 6000); do [ "$(packed)" -ge 1048200 ] && break; sleep 0.1; done
[ "$(packed)" -ge 1048200 ] || { say "only $(packed) readings packed"; exit 1; }
database=$work/sqlite/sensei.sqlite

say "starting a PostgreSQL cluster"
mkdir -p "$work/pg"
[ "$(id -u)" != 0 ] || chown postgres:postgres "$work/pg"
cluster=$work/pg/data
as_postgres "$pgbin/initdb" -D "$cluster" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
pg_port=$(free_port 39990)
as_postgres "$pgbin/pg_ctl" -D "$cluster" -l "$work/pg/postgres.log" -w -o \
    "-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1 -c shared_buffers=128MB" start >/dev/null
pg() { psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres "$@"; }
pg -d postgres -c "CREATE DATABASE sensei"
pg_server_port=$(free_port $((sqlite_port + 1)))
pg_server_url=http://127.0.0.1:$pg_server_port
start_server postgresql "$pg_server_port" --data-dir "$work/pgnode" \
    --database "postgresql://postgres@127.0.0.1:$pg_port/sensei?sslmode=disable"

say "copying the year into PostgreSQL: rows, and the packed hours with their count, sum, min and max"
sensor=$(sqlite3 "$database" "SELECT id FROM sensors WHERE code = 'year'")
sqlite3 -csv "$database" "SELECT ts, value FROM readings WHERE sensor_id = $sensor" > "$work/rows.csv"
sqlite3 -csv "$database" "
    SELECT b.start, b.count, hex(b.data), h.sum, h.min, h.max, b.first_ts, b.first_value, b.last_ts, b.last_value,
           b.integral, b.longest_gap, b.increase
    FROM reading_blocks b JOIN rollups_hour h ON h.sensor_id = b.sensor_id AND h.start = b.start
    WHERE b.sensor_id = $sensor" > "$work/blocks.csv"
read -r count latest_ts latest_value < <(sqlite3 -separator ' ' "$database" \
    "SELECT reading_count, latest_ts, latest_value FROM sensors WHERE id = $sensor")
pg -d sensei <<SQL
INSERT INTO sensors (code, name, units, created_at, updated_at, reading_count, latest_ts, latest_value)
VALUES ('year', 'Year', 'W', 0, 0, $count, $latest_ts, $latest_value);
CREATE TABLE staged_rows (ts bigint, value double precision);
\copy staged_rows FROM '$work/rows.csv' WITH (FORMAT csv)
INSERT INTO readings SELECT (SELECT id FROM sensors WHERE code = 'year'), ts, value FROM staged_rows;
CREATE TABLE staged_blocks (start bigint, count integer, data text, sum float8, min float8, max float8,
    first_ts bigint, first_value float8, last_ts bigint, last_value float8, integral float8, longest_gap bigint,
    increase float8);
\copy staged_blocks FROM '$work/blocks.csv' WITH (FORMAT csv)
INSERT INTO reading_blocks
SELECT (SELECT id FROM sensors WHERE code = 'year'), start, count, decode(data, 'hex'), sum, min, max, first_ts,
       first_value, last_ts, last_value, integral, longest_gap, increase
FROM staged_blocks;
DROP TABLE staged_rows, staged_blocks;
VACUUM ANALYZE;
SQL
rows=$(pg -d sensei -c "SELECT count(*) FROM readings")
blocks=$(pg -d sensei -c "SELECT count(*) || ' blocks holding ' || sum(count) FROM reading_blocks")
# On disk: the tables with their indexes and TOAST (issue 28: ≤ 10 B a reading once packed).
pg_disk=$(pg -d sensei -c "SELECT pg_total_relation_size('reading_blocks') + pg_total_relation_size('readings')")

path="/sensors/year/data?buckets=200&after=$year_from&before=$year_to"
# Both hold the same readings: the buckets' counts add up alike.
total() { curl -sf -H "Authorization: Bearer $token" "$1$path" | grep -o '"count":[0-9]*' | cut -d: -f2 \
    | awk '{ sum += $1 } END { print sum + 0 }'; }
sqlite_total=$(total "$sqlite_url")
pg_total=$(total "$pg_server_url")
[ "$sqlite_total" = "$pg_total" ] || { say "the answers differ: $sqlite_total readings in SQLite's, $pg_total in PostgreSQL's"; exit 1; }

say "timing the chart ($RUNS runs each)"
read -r sqlite_median sqlite_p95 sqlite_bytes < <("$bin/sensei-bench" time-get --url "$sqlite_url" --runs "$RUNS" "$path")
read -r pg_median pg_p95 pg_bytes < <("$bin/sensei-bench" time-get --url "$pg_server_url" --runs "$RUNS" "$path")
verdict() { awk -v value="$1" -v ceiling="$2" 'BEGIN { print (value <= ceiling ? "ok" : "MISSED") }'; }
echo
echo "GET $path"
echo "a year of 30 s readings ($sqlite_total); PostgreSQL: $rows rows, $blocks; $RUNS runs each, one keep-alive connection, loopback"
printf '%-12s %12s %12s %10s  %s\n' backend median p95 bytes ceiling
printf '%-12s %9s ms %9s ms %10s  %s\n' sqlite "$sqlite_median" "$sqlite_p95" "$sqlite_bytes" \
    "20 ms: $(verdict "$sqlite_p95" 20)"
printf '%-12s %9s ms %9s ms %10s  %s\n' postgresql "$pg_median" "$pg_p95" "$pg_bytes" \
    "50 ms: $(verdict "$pg_p95" 50)"
echo "PostgreSQL on disk: $pg_disk bytes for $sqlite_total readings (reading_blocks and readings, indexes and TOAST):" \
    "$(awk -v bytes="$pg_disk" -v readings="$sqlite_total" 'BEGIN { printf "%.2f B a reading, 10 B: %s", bytes / readings, (bytes / readings <= 10 ? "ok" : "MISSED") }')"
