#!/usr/bin/env bash
# bench/run.sh: the Sensei benchmark, rerunnable by anyone (see bench/README.md).
#
#   bench/run.sh                      # about eight minutes, plus the release build
#   DURATION=30 bench/run.sh          # longer phases
#   LOG_LEVEL=warning bench/run.sh    # the server logs no request: shows what logging costs
#
# It installs wrk if missing, builds sensei-server and sensei-bench in release
# mode, and measures on 127.0.0.1 only, with wrk in a separate process
# (keep-alive, 16 connections, 2 wrk threads, --latency):
#   hello    the ceiling: `sensei-bench hello`, sensei-server's HTTP layer with a
#            handler that answers "ok", same threads and limits; GET /
#   durable  the durable ceiling: the same hello, each answer only after a group
#            fdatasync of a file in the temporary directory (a 4 KiB frame a request)
#   single   POST /sensors/device_N/data {"value": 23.5} over 64 sensors, one durable reading a request
#   batch    POST /sensors/batch/data, 1,000 readings with new timestamps a request
#   year     GET /sensors/year/data?buckets=200 over a year of 30 s readings
#            (1,051,200, loaded first by `sensei-bench load-year`), 1 connection
#   sensors  GET /sensors with 100 sensors (made by `sensei-bench make-sensors`)
#   mqtt     MQTT_MESSAGES QoS 1 messages from one `mosquitto_pub -l` through a real
#            Mosquitto on loopback: the time a bare `mosquitto_sub` takes to receive
#            them (the peer), then the time sensei-server (--mqtt-topic) takes to
#            store them durably; nothing may be lost
# The server runs on a fresh temporary data directory with a random pre-shared
# token (SENSEI_TOKEN); its RSS is sampled during each phase. One table at the
# end: figures, docs/design.md's targets, shares of the ceiling, and checks (non-2xx
# answers, socket errors, rows really stored, server log, server still up).
#
# Environment:
#   DURATION=10       seconds a phase measures
#   WARMUP=1          seconds of unmeasured load before the hello, durable and single phases
#   THREADS=8         HTTP worker threads of the ceilings (and of sensei-server when set)
#   CONNECTIONS=16    wrk connections (the year query always uses 1)
#   WRK_THREADS=2     wrk threads (at most 4)
#   LOG_LEVEL=        sensei-server's --log-level; unset: its default (info, a line per request)
#   SCRATCH=.build    SwiftPM scratch path
#   SKIP_BUILD=1      use the binaries already in SCRATCH
#   KEEP=1            keep the temporary directory (database, logs, wrk output)
#   MQTT_MESSAGES=40000  messages the MQTT phase publishes (to each subscriber)
#   ROUNDS=3          rounds of the writes in alternation (at most 5)
#   ROUND_DURATION=4  seconds each server takes a load in a round (at most 8)
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

# The server runs with its default flags (what people run): --threads and
# --log-level only when THREADS or LOG_LEVEL is set.
server_flags=()
if [ -n "${THREADS:-}" ]; then server_flags+=(--threads "$THREADS"); fi
if [ -n "${LOG_LEVEL:-}" ]; then server_flags+=(--log-level "$LOG_LEVEL"); fi
LOG_LEVEL=${LOG_LEVEL:-info (default)}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-1}
THREADS=${THREADS:-8}
CONNECTIONS=${CONNECTIONS:-16}
WRK_THREADS=${WRK_THREADS:-2}
SCRATCH=${SCRATCH:-.build}
SKIP_BUILD=${SKIP_BUILD:-0}
KEEP=${KEEP:-0}
MQTT_MESSAGES=${MQTT_MESSAGES:-40000}
ROUNDS=${ROUNDS:-3}
ROUND_DURATION=${ROUND_DURATION:-4}

for name in DURATION WARMUP THREADS CONNECTIONS WRK_THREADS MQTT_MESSAGES ROUNDS ROUND_DURATION; do
    [[ ${!name} =~ ^[0-9]+$ ]] || { echo "bench: $name must be a whole number" >&2; exit 2; }
done
[ "$DURATION" -ge 1 ] || { echo "bench: DURATION must be at least 1" >&2; exit 2; }
# The rounds' line-protocol timestamps have room for that much (bench/line-batch.lua).
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 5 ] || { echo "bench: ROUNDS must be 1 to 5" >&2; exit 2; }
[ "$ROUND_DURATION" -ge 1 ] && [ "$ROUND_DURATION" -le 8 ] || { echo "bench: ROUND_DURATION must be 1 to 8" >&2; exit 2; }
[ "$WRK_THREADS" -le 4 ] || { echo "bench: WRK_THREADS must be at most 4" >&2; exit 2; }
[ "$CONNECTIONS" -ge "$WRK_THREADS" ] || { echo "bench: CONNECTIONS must be at least WRK_THREADS" >&2; exit 2; }

say() { echo "bench: $*" >&2; }

# --- tools and binaries ---------------------------------------------------------
# influxdb: Debian's InfluxDB 1.6, the peer (only the bench installs it, not CI).
scripts/install-deps.sh wrk curl mosquitto mosquitto-clients influxdb   # a no-op when everything is there
if [ "$SKIP_BUILD" != 1 ]; then
    say "building release binaries (scratch path $SCRATCH)"
    swift build -c release --scratch-path "$SCRATCH" --product sensei-server >&2
    swift build -c release --scratch-path "$SCRATCH" --product sensei-bench >&2
fi
bin=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)
server_bin="$bin/sensei-server"
bench_bin="$bin/sensei-bench"
[ -x "$server_bin" ] && [ -x "$bench_bin" ] || { say "missing binaries in $bin"; exit 1; }

# --- processes and cleanup ------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/sensei-bench.XXXXXX")
results="$work/results.txt"
: > "$results"
server_pid=""
hello_pid=""
sampler_pid=""
load_pid=""
broker_pid=""
peer_pid=""
influx_pid=""

stop_process() { # pid: SIGTERM, up to 10 s to finish, then SIGKILL
    local pid=$1
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    stop_process "$load_pid"
    stop_process "$sampler_pid"
    stop_process "$hello_pid"
    stop_process "$server_pid"
    stop_process "$peer_pid"
    stop_process "$broker_pid"
    stop_process "$influx_pid"
    if [ "$KEEP" = 1 ]; then
        say "kept $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { # the first port from $1 on which nothing answers on 127.0.0.1
    local port=$1
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    echo "$port"
}

alive() { # pid: running, not exited (an exited child stays a zombie until waited for)
    local state
    state=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $state != Z* ]]
}

wait_ready() { # url pid log: until the url answers 200, or the process dies
    for _ in $(seq 200); do
        curl -sf -o /dev/null "$1" && return 0
        alive "$2" || { say "process exited early; its log:"; cat "$3" >&2; exit 1; }
        sleep 0.1
    done
    say "$1 did not answer within 20 s"
    exit 1
}

# A load generator runs in the background and is waited for, so that a
# SIGTERM to this script stops the run at once (bash runs traps only between
# foreground commands) and cleanup can stop the generator too.
run_in_background() {
    "$@" &
    load_pid=$!
    wait "$load_pid"
    load_pid=""
}

record() { # phase key value
    echo "$1.$2=$3" >> "$results"
}

token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
export SENSEI_TOKEN=$token
auth="Authorization: Bearer $token"

# A process's CPU time so far (user + system), in clock ticks (run.clk_tck).
process_ticks() {
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}
record run clk_tck "$(getconf CLK_TCK)"

# wrk for a phase: run_wrk PHASE CONNECTIONS THREADS SCRIPT URL, for $duration
# seconds (default DURATION). Records wrk's figures, the CPU time of the
# process under load ($cpu_pid, else the server), and, when the server runs,
# its RSS peak during the phase.
run_wrk() {
    local phase=$1 connections=$2 threads=$3 script=$4 url=$5
    local measured=${cpu_pid:-$server_pid} ticks=""
    [ -n "$measured" ] && ticks=$(process_ticks "$measured")
    if [ -n "$server_pid" ]; then
        "$bench_bin" rss --pid "$server_pid" --watch > "$work/rss-$phase.txt" &
        sampler_pid=$!
    fi
    run_in_background wrk --latency --timeout 10s -t"$threads" -c"$connections" -d"${duration:-$DURATION}s" \
        -s "bench/$script" "$url" > "$work/wrk-$phase.txt"
    [ -n "$ticks" ] && record "$phase" cpu_ticks $(( $(process_ticks "$measured") - ticks ))
    if [ -n "$sampler_pid" ]; then
        stop_process "$sampler_pid"
        sampler_pid=""
        record "$phase" rss_kb "$(tail -n 1 "$work/rss-$phase.txt" | cut -d= -f2)"
    fi
    local line
    line=$(grep '^bench ' "$work/wrk-$phase.txt") || { say "wrk printed no figures:"; cat "$work/wrk-$phase.txt" >&2; exit 1; }
    for field in ${line#bench }; do record "$phase" "${field%%=*}" "${field#*=}"; done
    say "  $(grep -E 'Requests/sec|Non-2xx|Socket errors' "$work/wrk-$phase.txt" | tr -s ' ' | paste -sd ';' -)"
}

warm_up() { # connections script url
    [ "$WARMUP" -ge 1 ] || return 0
    run_in_background wrk --timeout 10s -t"$WRK_THREADS" -c"$1" -d"${WARMUP}s" -s "bench/$2" "$3" > /dev/null
}

total_count() { # the reading counts of every sensor, summed
    curl -s -H "$auth" "$base/sensors" | grep -o '"count":[0-9]*' | cut -d: -f2 | awk '{ sum += $1 } END { print sum + 0 }'
}
sensor_count() { # code: the sensor's reading count, 0 if it does not exist
    curl -s -H "$auth" "$base/sensors/$1" | grep -o '"count":[0-9]*' | head -n 1 | cut -d: -f2 | grep . || echo 0
}

record run duration "$DURATION"
record run date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
record run cores "$(nproc)"
cpu_busy_percent() { # how busy the CPUs were over the next second (others' builds, say)
    local a b
    read -r -a a < /proc/stat
    sleep 1
    read -r -a b < /proc/stat
    local idle=$(( b[4] + b[5] - a[4] - a[5] )) total=0
    for i in 1 2 3 4 5 6 7 8; do total=$(( total + b[i] - a[i] )); done
    echo $(( total > 0 ? 100 * (total - idle) / total : 0 ))
}
record run busy_percent "$(cpu_busy_percent)"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
record run commit "$commit"
record server threads "${server_flags[*]:-defaults}"
record server log_level "$LOG_LEVEL"

# --- (a) the ceilings -----------------------------------------------------------
# ceiling_phase PHASE [HELLO OPTIONS...]: sensei-bench hello on a free port,
# loaded like the server will be, then stopped.
# start_hello NAME [HELLO OPTIONS...]: sensei-bench hello on a free port
# ($hello_url, $hello_pid), configured like the server, its log $work/NAME.log.
start_hello() {
    local name=$1 port
    shift
    port=$(free_port 39500)
    "$bench_bin" hello --host 127.0.0.1 --port "$port" --threads "$THREADS" "$@" > "$work/$name.log" 2>&1 &
    hello_pid=$!
    hello_url="http://127.0.0.1:$port/"
    wait_ready "$hello_url" "$hello_pid" "$work/$name.log"
}
ceiling_phase() {
    local phase=$1
    shift
    start_hello "$phase" "$@"
    warm_up "$CONNECTIONS" get.lua "$hello_url"
    cpu_pid=$hello_pid run_wrk "$phase" "$CONNECTIONS" "$WRK_THREADS" get.lua "$hello_url"
    stop_process "$hello_pid"
    hello_pid=""
}
say "hello ceiling, $THREADS threads"
ceiling_phase hello
# The same, each answer only after a group fdatasync.
say "durable ceiling: answers after a group fdatasync of $work/durable.wal"
ceiling_phase durable --durable-file "$work/durable.wal"

# --- the InfluxDB 1.6 peer ----------------------------------------------------------
# influxd at its defaults but for its directories (under $work) and its two
# ports (loopback); usage reporting off, so nothing leaves the machine. Its
# single and batch writes are measured as sensei-server's are, then it stops.
# start_influx NAME [CONFIG LINES FOR [data]]
start_influx() {
    local dir="$work/$1" http_port rpc_port
    mkdir -p "$dir"
    http_port=$(free_port 39800)
    rpc_port=$(free_port $((http_port + 1)))
    cat > "$dir/influxdb.conf" <<EOF
reporting-disabled = true
bind-address = "127.0.0.1:$rpc_port"
[meta]
  dir = "$dir/meta"
[data]
  dir = "$dir/data"
  wal-dir = "$dir/wal"
${2:-}
[http]
  bind-address = "127.0.0.1:$http_port"
EOF
    influx="http://127.0.0.1:$http_port"
    influxd run -config "$dir/influxdb.conf" > "$dir/influxd.log" 2>&1 &
    influx_pid=$!
    wait_ready "$influx/ping" "$influx_pid" "$dir/influxd.log"
}
influx_query() { # database query: InfluxQL through GET /query
    curl -s -G "$influx/query" --data-urlencode "db=$1" --data-urlencode "q=$2"
}
influx_count() { # database measurement regex: points in every measurement matching, summed
    influx_query "$1" "SELECT count(value) FROM /$2/" | grep -o ',[0-9]*\]\]' | tr -d ',]' | awk '{ sum += $1 } END { print sum + 0 }'
}
record influx version "$(influxd version | head -n 1)"
say "InfluxDB peer: $(influxd version | head -n 1)"
start_influx influx
curl -s -XPOST "$influx/query" --data-urlencode "q=CREATE DATABASE bench" > /dev/null
say "InfluxDB single-point writes, $CONNECTIONS connections"
warm_up "$CONNECTIONS" line-single.lua "$influx/write?db=bench"
before=$(influx_count bench 'device_.*')
cpu_pid=$influx_pid run_wrk influx_single "$CONNECTIONS" "$WRK_THREADS" line-single.lua "$influx/write?db=bench"
record influx_single stored $(( $(influx_count bench 'device_.*') - before ))
say "InfluxDB batches of 1,000 points, $CONNECTIONS connections"
cpu_pid=$influx_pid run_wrk influx_batch "$CONNECTIONS" "$WRK_THREADS" line-batch.lua "$influx/write?db=bench&precision=ms"
record influx_batch items 1000
record influx_batch stored "$(influx_count bench '^batch$')"
stop_process "$influx_pid"
influx_pid=""

# The same year as the disk phase below, into a fresh influxd that writes its
# cache out and compacts a shard fully once it has been cold for a second
# (defaults: 10 minutes and 4 hours), so its figure is its compacted TSM files.
say "InfluxDB disk: the year of 30-second readings, compacted"
start_influx influx-disk '  cache-snapshot-write-cold-duration = "1s"
  compact-full-write-cold-duration = "1s"'
curl -s -XPOST "$influx/query" --data-urlencode "q=CREATE DATABASE year" > /dev/null
"$bench_bin" load-year --url "$influx" --code year --line-protocol year > "$work/influx-load-year.txt"
record influx_disk rows "$(influx_count year '^year$')"
# Compacted: no WAL segment holds data, and the TSM files stay the same for 3 s (at most 2 minutes).
last="" steady=0
for _ in $(seq 240); do
    now_files=$(find "$work/influx-disk/data/year" -name '*.tsm' -printf '%f %s\n' 2>/dev/null | sort | md5sum)
    wal_kb=$(du -sk "$work/influx-disk/wal" | cut -f1)
    if [ "$now_files" = "$last" ] && [ "$wal_kb" -le 64 ] && ! find "$work/influx-disk/data" -name '*.tmp' | grep -q .; then
        steady=$((steady + 1))
        [ "$steady" -ge 6 ] && break
    else
        steady=0
    fi
    last=$now_files
    sleep 0.5
done
record influx_disk settled "$([ "$steady" -ge 6 ] && echo 1 || echo 0)"
stop_process "$influx_pid"
influx_pid=""
record influx_disk kb "$(du -sk "$work/influx-disk" --exclude=influxd.log --exclude=influxdb.conf | cut -f1)"

# --- the MQTT broker, for the MQTT phase -------------------------------------------
mqtt_port=$(free_port 39700)
install -d -m 0777 "$work/mosquitto"   # started as root, mosquitto runs as its own user
cat > "$work/mosquitto/mosquitto.conf" <<EOF
listener $mqtt_port 127.0.0.1
allow_anonymous true
# Messages a subscriber has not acknowledged yet stay queued, however many: none is dropped.
max_queued_messages 0
EOF
/usr/sbin/mosquitto -c "$work/mosquitto/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
broker_pid=$!
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$mqtt_port") 2>/dev/null && break; sleep 0.1; done

# --- the server -----------------------------------------------------------------
port=$(free_port 39600)
base="http://127.0.0.1:$port"
say "sensei-server on $base, flags: ${server_flags[*]:-defaults}, data in $work/data"
"$server_bin" serve --data-dir "$work/data" --host 127.0.0.1 --port "$port" ${server_flags[@]+"${server_flags[@]}"} \
    --mqtt "mqtt://127.0.0.1:$mqtt_port" --mqtt-topic 'bench/#' 2> "$work/server.log" &
server_pid=$!
wait_ready "$base/health" "$server_pid" "$work/server.log"

# --- (b) single-reading POSTs ---------------------------------------------------
say "single-reading POSTs, $CONNECTIONS connections"
warm_up "$CONNECTIONS" post-single.lua "$base/sensors/bench/data"
before=$(total_count)
run_wrk single "$CONNECTIONS" "$WRK_THREADS" post-single.lua "$base/sensors/bench/data"
record single stored $(( $(total_count) - before ))

# --- (b2) writes in alternation --------------------------------------------------
# The phases run minutes apart, and the load others put on this machine moves
# in between (the peer's and the ceiling's own rates can differ by half from
# one phase to the next), so a ratio of two phases would measure the machine
# as much as the servers. So here the durable ceiling,
# InfluxDB and sensei-server take the same single writes in turn, then InfluxDB
# and sensei-server the same line-protocol batches, ROUND_DURATION seconds each,
# ROUNDS times; the table's targets against the ceiling and the peer are the
# medians of the rounds' ratios (every round's figures are printed too). The
# batches' timestamps are from the last day (ROUND, bench/line-batch.lua), so
# the server's compactor, which packs readings a day old, has no work from one
# round in the next. JSON batches are not alternated: their timestamps are a
# second apart, a request's span 17 minutes, and a round's would reach back
# past a day.
say "writes in alternation: the durable ceiling, InfluxDB, sensei-server; $ROUNDS rounds of ${ROUND_DURATION} s each"
start_hello durable-rounds --durable-file "$work/durable-rounds.wal"
start_influx influx-rounds
curl -s -XPOST "$influx/query" --data-urlencode "q=CREATE DATABASE bench" > /dev/null
warm_up "$CONNECTIONS" line-single.lua "$influx/write?db=bench"
record rounds count "$ROUNDS"
for round in $(seq "$ROUNDS"); do
    duration=$ROUND_DURATION cpu_pid=$hello_pid run_wrk "round_durable_$round" "$CONNECTIONS" "$WRK_THREADS" \
        get.lua "$hello_url"
    duration=$ROUND_DURATION cpu_pid=$influx_pid run_wrk "round_influx_$round" "$CONNECTIONS" "$WRK_THREADS" \
        line-single.lua "$influx/write?db=bench"
    duration=$ROUND_DURATION run_wrk "round_single_$round" "$CONNECTIONS" "$WRK_THREADS" \
        post-single.lua "$base/sensors/bench/data"
    ROUND=$round duration=$ROUND_DURATION cpu_pid=$influx_pid run_wrk "round_influx_batch_$round" "$CONNECTIONS" \
        "$WRK_THREADS" line-batch.lua "$influx/write?db=bench&precision=ms"
    ROUND=$round duration=$ROUND_DURATION run_wrk "round_line_$round" "$CONNECTIONS" "$WRK_THREADS" \
        line-batch.lua "$base/write?db=rounds&precision=ms"
done
stop_process "$hello_pid"
hello_pid=""
stop_process "$influx_pid"
influx_pid=""

# --- (c) batch POSTs --------------------------------------------------------------
say "batch POSTs of 1,000 readings, $CONNECTIONS connections"
before=$(sensor_count batch)
run_wrk batch "$CONNECTIONS" "$WRK_THREADS" post-batch.lua "$base/sensors/batch/data"
record batch items 1000
record batch stored $(( $(sensor_count batch) - before ))

# --- (c2) line protocol: sensei-server's /write, as InfluxDB's batches above ------
say "line-protocol writes of 1,000 points to /write, $CONNECTIONS connections"
before=$(total_count)
run_wrk line "$CONNECTIONS" "$WRK_THREADS" line-batch.lua "$base/write?db=bench&precision=ms"
record line items 1000
record line stored $(( $(total_count) - before ))

# --- (d) the 200-bucket year query ------------------------------------------------
say "loading a year of 30-second readings"
load=$("$bench_bin" load-year --url "$base" --code year --from 2023-01-01T00:00:00Z --to 2024-01-01T00:00:00Z)
say "  $load"
record year load "$load"
record year rows "$(sensor_count year)"
year_url="$base/sensors/year/data?buckets=200&after=2023-01-01T00:00:00Z&before=2024-01-01T00:00:00Z"
record year buckets "$(curl -s -H "$auth" "$year_url" | grep -o '"count":' | wc -l)"
say "200-bucket year query, 1 connection"
run_wrk year 1 1 get.lua "$year_url"

# --- (e) GET /sensors -------------------------------------------------------------
"$bench_bin" make-sensors --url "$base" --count 100 > "$work/make-sensors.txt"
record sensors count "$(grep -o '[0-9]*' "$work/make-sensors.txt" | head -n 1)"
say "GET /sensors, $CONNECTIONS connections"
run_wrk sensors "$CONNECTIONS" "$WRK_THREADS" get.lua "$base/sensors"

# --- (f) MQTT ------------------------------------------------------------------------
seq 1 "$MQTT_MESSAGES" > "$work/mqtt-lines.txt"
publish_lines() { # topic: every line of mqtt-lines.txt a QoS 1 message, from one publisher
    mosquitto_pub -h 127.0.0.1 -p "$mqtt_port" -q 1 -t "$1" -l < "$work/mqtt-lines.txt"
}
now() { date +%s.%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
metric() { # a sample of the server's /metrics, 0 when absent
    curl -s -H "$auth" "$base/metrics" | awk -v name="$1" '$1 == name { value = $2 } END { print value + 0 }'
}
say "MQTT: $MQTT_MESSAGES QoS 1 messages from one mosquitto_pub; the peer, a bare mosquitto_sub"
mosquitto_sub -h 127.0.0.1 -p "$mqtt_port" -q 1 -t 'peer/#' > "$work/mqtt-peer.txt" &
peer_pid=$!
# Subscribed once a marker comes back (mosquitto_sub flushes each message).
for _ in $(seq 100); do
    mosquitto_pub -h 127.0.0.1 -p "$mqtt_port" -q 1 -t peer/ready -m ready
    [ -s "$work/mqtt-peer.txt" ] && break
    sleep 0.05
done
marked=$(wc -l < "$work/mqtt-peer.txt")
started=$(now)
publish_lines peer/bench/value &
publisher=$!
until [ "$(wc -l < "$work/mqtt-peer.txt")" -ge $(( marked + MQTT_MESSAGES )) ]; do
    alive "$peer_pid" || { say "mosquitto_sub exited early"; exit 1; }
    sleep 0.01
done
record mqtt peer_seconds "$(seconds_since "$started")"
wait "$publisher"
stop_process "$peer_pid"
peer_pid=""

say "MQTT: the same into sensei-server (durable)"
for _ in $(seq 100); do curl -s "$base/health" | grep -q '"mqtt":"connected"' && break; sleep 0.1; done
stored_before=$(metric sensei_mqtt_readings_stored_total)
commits_before=$(metric sensei_commits_total)
"$bench_bin" rss --pid "$server_pid" --watch > "$work/rss-mqtt.txt" &
sampler_pid=$!
started=$(now)
publish_lines bench/mqtt/value &
publisher=$!
deadline=$(( $(date +%s) + 120 ))
until [ "$(metric sensei_mqtt_readings_stored_total)" -ge $(( stored_before + MQTT_MESSAGES )) ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { say "MQTT: not all messages stored within 120 s"; break; }
    sleep 0.02
done
record mqtt server_seconds "$(seconds_since "$started")"
wait "$publisher"
stop_process "$sampler_pid"
sampler_pid=""
record mqtt rss_kb "$(tail -n 1 "$work/rss-mqtt.txt" | cut -d= -f2)"
record mqtt messages "$MQTT_MESSAGES"
record mqtt stored $(( $(metric sensei_mqtt_readings_stored_total) - stored_before ))
record mqtt commits $(( $(metric sensei_commits_total) - commits_before ))
record mqtt dropped "$(curl -s -H "$auth" "$base/metrics" | awk '$1 ~ /^sensei_mqtt_dropped_total/ { sum += $2 } END { print sum + 0 }')"

# --- the server's state, then the table ----------------------------------------------
if memory=$("$bench_bin" rss --pid "$server_pid" 2>/dev/null); then
    record server alive 1
    record server hwm_kb "$(echo "$memory" | grep -o 'hwm_kb=[0-9]*' | cut -d= -f2)"
else
    record server alive 0
fi
problems="$work/server-problems.txt"
grep -vE '^[^ ]+ (trace|debug|info|notice) ' "$work/server.log" > "$problems" || true
record server log_problems "$(wc -l < "$problems")"

# --- (f) a year on disk, compacted; then 10,000 sensors --------------------------
# A second server on a fresh directory holds only the year: it packs the
# readings (all more than a day old) within its compaction interval; after a
# clean stop, `du` of its data directory over the readings is the disk figure.
stop_process "$server_pid"
server_pid=""
disk_dir="$work/disk"
start_disk_server() {
    port=$(free_port 39700)
    base="http://127.0.0.1:$port"
    "$server_bin" serve --data-dir "$disk_dir" --host 127.0.0.1 --port "$port" ${server_flags[@]+"${server_flags[@]}"} \
        2>> "$work/disk-server.log" &
    server_pid=$!
    wait_ready "$base/health" "$server_pid" "$work/disk-server.log"
}
packed_readings() { # readings the disk server's compaction passes have logged as packed
    grep -o 'compaction: packed [0-9]*' "$work/disk-server.log" | awk '{ sum += $3 } END { print sum + 0 }'
}
start_disk_server
say "disk: a year of 30-second readings, packed by the server's compactor"
"$bench_bin" load-year --url "$base" --code year --from 2023-01-01T00:00:00Z --to 2024-01-01T00:00:00Z > /dev/null
disk_rows=$(sensor_count year)
record disk rows "$disk_rows"
for _ in $(seq 1200); do
    [ "$(packed_readings)" -ge "$disk_rows" ] && break
    alive "$server_pid" || break
    sleep 0.1
done
record disk packed "$(packed_readings)"
stop_process "$server_pid"
server_pid=""
record disk kb "$(du -sk "$disk_dir" | cut -f1)"

start_disk_server
say "GET /sensors with 10,000 sensors (and the packed year)"
"$bench_bin" make-sensors --url "$base" --count 10000 > /dev/null
median_ms() { # seconds...: the median of seven, in milliseconds
    printf '%s\n' "$@" | sort -n | sed -n 4p | awk '{ printf "%.2f", $1 * 1000 }'
}
times=()
for _ in 1 2 3 4 5 6 7; do
    times+=("$(curl -s -o /dev/null -w '%{time_total}' -H "$auth" "$base/sensors")")
done
record sensors10k count "$(curl -s -H "$auth" "$base/sensors" | grep -o '"code":' | wc -l)"
record sensors10k ms "$(median_ms "${times[@]}")"
# Right after a write the cached body is stale: each of these is a rebuild.
times=()
for _ in 1 2 3 4 5 6 7; do
    curl -s -o /dev/null -H "$auth" -H 'Content-Type: application/json' -d '{"value":1}' "$base/sensors/room_001/data"
    times+=("$(curl -s -o /dev/null -w '%{time_total}' -H "$auth" "$base/sensors")")
done
record sensors10k rebuilt_ms "$(median_ms "${times[@]}")"
record disk hwm_kb "$("$bench_bin" rss --pid "$server_pid" | grep -o 'hwm_kb=[0-9]*' | cut -d= -f2)"
stop_process "$server_pid"
server_pid=""
grep -vE '^[^ ]+ (trace|debug|info|notice) ' "$work/disk-server.log" >> "$problems" || true
record server log_problems "$(wc -l < "$problems")"

echo
"$bench_bin" report --results "$results"
if [ -s "$problems" ]; then
    echo
    echo "server log, warnings and errors (first 10):"
    head -n 10 "$problems"
fi
