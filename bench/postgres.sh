#!/usr/bin/env bash
# bench/postgres.sh: the write benchmark on both backends, in one run (issue 28).
#
#   bench/postgres.sh                 # about a minute, plus the release build
#   DURATION=20 bench/postgres.sh
#
# Starts a private PostgreSQL (Debian's, initdb in a temporary directory, as
# the postgres user when run as root, on a free loopback port) with its
# durability settings as shipped (fsync on, synchronous_commit on), then
# sensei-server twice on a fresh store: SQLite in its data directory, then
# `--database postgresql://…`. Each takes, with wrk (keep-alive, --latency):
#   batch    POST /sensors/batch/data, 1,000 new readings a request (target
#            ≥ 500,000 readings/s on PostgreSQL)
#   single   POST /sensors/device_N/data {"value": 23.5} over 64 sensors (p99 ≤ 20 ms)
# and the readings each stored are counted back through GET /sensors.
# Then the ceiling: pgbench, with as many clients, inserting batches of 1,000
# new rows into a table shaped as `readings` (no foreign key), each client
# committing its own (fsync on): what this PostgreSQL takes on this machine,
# whoever the client.
# Prints one JSON object a phase and backend.
#
# Environment: DURATION=10, WARMUP=1, CONNECTIONS=16, WRK_THREADS=2,
# SCRATCH=.build, SKIP_BUILD=1 (use the binaries in SCRATCH), KEEP=1.
set -euo pipefail

cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-1}
CONNECTIONS=${CONNECTIONS:-16}
WRK_THREADS=${WRK_THREADS:-2}
SCRATCH=${SCRATCH:-.build}
SKIP_BUILD=${SKIP_BUILD:-0}
KEEP=${KEEP:-0}
for name in DURATION WARMUP CONNECTIONS WRK_THREADS; do
    [[ ${!name} =~ ^[0-9]+$ ]] || { echo "bench: $name must be a whole number" >&2; exit 2; }
done

say() { echo "bench: $*" >&2; }

scripts/install-deps.sh wrk curl postgresql
if [ "$SKIP_BUILD" != 1 ]; then
    say "building sensei-server (release, scratch path $SCRATCH)"
    swift build -c release --scratch-path "$SCRATCH" --product sensei-server >&2
fi
server_bin="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/sensei-server"
[ -x "$server_bin" ] || { say "missing $server_bin"; exit 1; }
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

work=$(mktemp -d "${TMPDIR:-/tmp}/sensei-pgbench.XXXXXX")
chmod 755 "$work"
server_pid=""
pg_pid=""
load_pid=""

stop_process() { # pid: SIGTERM (SIGINT for PostgreSQL: its fast shutdown), then SIGKILL after 10 s
    local pid=$1 signal=${2:-TERM}
    [ -n "$pid" ] || return 0
    kill -"$signal" "$pid" 2>/dev/null || return 0
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    stop_process "$load_pid"
    stop_process "$server_pid"
    stop_process "$pg_pid" INT
    if [ "$KEEP" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    local port=$1
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    echo "$port"
}
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
run_in_background() { "$@" & load_pid=$!; wait "$load_pid"; load_pid=""; }

# --- PostgreSQL, durable as shipped ------------------------------------------------
pg_port=$(free_port 55432)
mkdir -p "$work/pg"
[ "$(id -u)" -eq 0 ] && chown postgres:postgres "$work/pg"
as_pg "$pg_bin/initdb" -D "$work/pg/data" -U postgres --auth=trust -E UTF8 > "$work/initdb.log"
as_pg "$pg_bin/postgres" -D "$work/pg/data" -p "$pg_port" -k "$work/pg" -c listen_addresses=127.0.0.1 \
    -c shared_buffers=256MB -c max_wal_size=4GB 2> "$work/postgres.log" &
pg_pid=$!
for _ in $(seq 300); do
    psql -X -q -h 127.0.0.1 -p "$pg_port" -U postgres -c 'SELECT 1' > /dev/null 2>&1 && break
    sleep 0.1
done
psql -X -q -h 127.0.0.1 -p "$pg_port" -U postgres -c 'CREATE DATABASE bench'
fsync=$(psql -X -A -t -h 127.0.0.1 -p "$pg_port" -U postgres -c 'SHOW fsync')
say "PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on port $pg_port, fsync=$fsync"

token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
export SENSEI_TOKEN=$token
auth="Authorization: Bearer $token"

total_count() {
    curl -s -H "$auth" "$base/sensors" | grep -o '"count":[0-9]*' | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }'
}

phase() { # backend name script path readings_per_request
    local backend=$1 name=$2 script=$3 path=$4 per=$5 before line
    if [ "$WARMUP" -ge 1 ]; then
        run_in_background wrk --timeout 10s -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "bench/$script" \
            "$base$path" > /dev/null
    fi
    before=$(total_count)
    run_in_background wrk --latency --timeout 10s -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" \
        -s "bench/$script" "$base$path" > "$work/wrk-$backend-$name.txt"
    line=$(grep '^bench ' "$work/wrk-$backend-$name.txt") || { cat "$work/wrk-$backend-$name.txt" >&2; exit 1; }
    local stored=$(( $(total_count) - before ))
    local rps p99 non2xx errors
    rps=$(sed 's/.* rps=\([0-9.]*\).*/\1/' <<< "$line")
    p99=$(sed 's/.* p99_us=\([0-9]*\).*/\1/' <<< "$line")
    non2xx=$(sed 's/.* non2xx=\([0-9]*\).*/\1/' <<< "$line")
    errors=$(sed 's/.* socket_errors=\([0-9]*\).*/\1/' <<< "$line")
    printf '{"backend":"%s","phase":"%s","requests_per_s":%s,"readings_per_s":%.0f,"p99_ms":%.2f,"stored":%d,"non2xx":%d,"socket_errors":%d}\n' \
        "$backend" "$name" "$rps" "$(echo "$rps * $per" | bc -l)" "$(echo "$p99 / 1000" | bc -l)" "$stored" "$non2xx" "$errors"
}

for backend in sqlite postgresql; do
    port=$(free_port 18300)
    base="http://127.0.0.1:$port"
    database=()
    [ "$backend" = postgresql ] && database=(--database "postgresql://postgres@127.0.0.1:$pg_port/bench?sslmode=disable")
    "$server_bin" serve --data-dir "$work/data-$backend" --host 127.0.0.1 --port "$port" --log-level warning \
        ${database[@]+"${database[@]}"} 2> "$work/server-$backend.log" &
    server_pid=$!
    for _ in $(seq 200); do curl -sf -o /dev/null "$base/health" && break; sleep 0.1; done
    curl -sf -o /dev/null "$base/health" || { cat "$work/server-$backend.log" >&2; exit 1; }
    say "$backend: batches of 1,000, then single POSTs, $CONNECTIONS connections, ${DURATION}s each"
    phase "$backend" batch post-batch.lua /sensors/batch/data 1000
    phase "$backend" single post-single.lua /sensors/bench/data 1
    stop_process "$server_pid"
    server_pid=""
done

# --- The ceiling: PostgreSQL alone, batches of 1,000 plain inserts -----------------
psql -X -q -h 127.0.0.1 -p "$pg_port" -U postgres -d bench -c '
    CREATE TABLE ceiling_readings (sensor_id bigint NOT NULL, ts bigint NOT NULL,
                                   value double precision NOT NULL, PRIMARY KEY (sensor_id, ts))'
# Each client its own sensor, each batch a random run of 1,000 milliseconds.
cat > "$work/ceiling.sql" <<'SQL'
\set base random(1, 1000000000) * 1000
INSERT INTO ceiling_readings SELECT :client_id, :base + g, 23.5 FROM generate_series(1, 1000) AS g;
SQL
chmod 644 "$work/ceiling.sql"
# With one client too: a sensor's writes commit one after another (its row
# keeps its count and newest reading), so one node's batches to one sensor
# use one PostgreSQL backend, one core at most.
for clients in "$CONNECTIONS" 1; do
    say "postgresql: the ceiling, pgbench, $clients client(s), ${DURATION}s"
    as_pg "$pg_bin/pgbench" -h 127.0.0.1 -p "$pg_port" -U postgres -n -c "$clients" -j "$(( clients < WRK_THREADS ? clients : WRK_THREADS ))" \
        -T "$DURATION" -f "$work/ceiling.sql" bench > "$work/pgbench.txt" 2>&1 || { cat "$work/pgbench.txt" >&2; exit 1; }
    tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/pgbench.txt" | head -n 1)
    latency=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$work/pgbench.txt")
    printf '{"backend":"postgresql","phase":"ceiling","clients":%d,"transactions_per_s":%s,"readings_per_s":%.0f,"latency_avg_ms":%s}\n' \
        "$clients" "$tps" "$(echo "$tps * 1000" | bc -l)" "${latency:-0}"
done
