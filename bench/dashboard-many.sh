#!/usr/bin/env bash
# bench/dashboard-many.sh: the dashboard of a big house (issue "10,000 sensors
# at rest"), on loopback, for 1,000 and 10,000 sensors.
#
#   bench/dashboard-many.sh                   # about 3 minutes after the release build
#   COUNTS="10000" READINGS=288 bench/dashboard-many.sh
#
# For each count it starts a release server on a fresh data directory, writes
# COUNT sensors × READINGS readings spread over the last day (line protocol,
# POST /write), then starts `sensei` in a detached tmux window (120×40) with a
# fresh cache and its hidden --frame-log, and prints:
#   list        ms from start to the first frame showing the sensors
#   synced      ms from start to the end of the first full sync
#   idle CPU    % of a core the synced dashboard spends over IDLE seconds with
#               no traffic (a background sync every 30 s included)
#   RSS         the dashboard's resident memory after all of it (and its peak)
#   key j       median and max ms from reading `j` to the end of its frame,
#               KEYS presses (the dashboard's own measure: tmux adds ~10 ms)
#   filter key  the same for each character typed in the `/` prompt
# Targets (the issue): list ≤ 2 s, synced ≤ 10 s at 10,000, idle ≤ 3 %,
# RSS ≤ 80 MB, key median ≤ 20 ms.
set -euo pipefail
cd "$(dirname "$0")/.."

COUNTS=${COUNTS:-"1000 10000"}
READINGS=${READINGS:-48}
IDLE=${IDLE:-30}
KEYS=${KEYS:-40}
SCRATCH=${SCRATCH:-.build}
SKIP_BUILD=${SKIP_BUILD:-0}
KEEP=${KEEP:-0}

say() { echo "bench: $*" >&2; }

scripts/install-deps.sh curl tmux >/dev/null
if [ "$SKIP_BUILD" != 1 ]; then
    say "building release binaries (scratch path $SCRATCH)"
    for product in sensei-server sensei; do
        swift build -c release --scratch-path "$SCRATCH" --product "$product" >&2
    done
fi
bin=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)

work=$(mktemp -d "${TMPDIR:-/tmp}/sensei-dashboard-many.XXXXXX")
server_pid=""
tmux_socket="sensei-bench-$$"
stop_all() {
    tmux -L "$tmux_socket" kill-server 2>/dev/null || true
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}
cleanup() {
    stop_all
    if [ "$KEEP" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every 50 ms.
wait_for() {
    local seconds=$1 what=$2; shift 2
    local deadline=$(( $(date +%s) + seconds ))
    until "$@"; do
        if [ "$(date +%s)" -ge "$deadline" ]; then say "timed out after $seconds s waiting for $what"; return 1; fi
        sleep 0.05
    done
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maximum() { sort -n | tail -1; }
log_lines() { [ -f "$1" ] && wc -l < "$1" || echo 0; }
# grown_past FILE N: FILE has more than N lines (evaluated at each poll).
grown_past() { [ "$(log_lines "$1")" -gt "$2" ]; }

results=()
for count in $COUNTS; do
    run="$work/$count"
    mkdir -p "$run/cache" "$run/config"
    port=3000
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
    SENSEI_TOKEN=$token "$bin/sensei-server" serve --host 127.0.0.1 --port "$port" --data-dir "$run/server" \
        --log-level warning --max-sensors $((count + 100)) > "$run/server.log" 2>&1 &
    server_pid=$!
    url="http://127.0.0.1:$port"
    wait_for 30 "the server" curl -sf -o /dev/null "$url/health"

    # A house: 20 rooms, a device per 4 sensors, readings over the last day.
    say "$count sensors × $READINGS readings"
    python3 - "$count" "$READINGS" "$run/points" <<'EOF'
import sys, time, random
count, readings, prefix = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
now = int(time.time())
step = 86400 // readings
random.seed(count)
lines = []
for sensor in range(count):
    room, device = sensor % 20, sensor // 4
    base = 18 + random.random() * 6
    for index in range(readings):
        ts = now - 86400 + step * index + sensor % step
        lines.append(f"climate,room=room_{room},device=node_{device} probe_{sensor}={base + (index % 12) * 0.1:.1f} {ts}")
for part in range(0, len(lines), 15000):
    with open(f"{prefix}.{part // 15000:05d}", "w") as out:
        out.write("\n".join(lines[part:part + 15000]) + "\n")
EOF
    for file in "$run"/points.*; do
        curl -sSf -H "Authorization: Token $token" --data-binary "@$file" "$url/write?db=house&precision=s" \
            || { say "load failed"; exit 1; }
        rm -f "$file"
    done

    log="$run/frames.log"
    tmux -L "$tmux_socket" new-session -d -x 120 -y 40 \
        "exec env XDG_CACHE_HOME='$run/cache' XDG_CONFIG_HOME='$run/config' SENSEI_URL='$url' SENSEI_TOKEN='$token' \
         TERM=xterm-256color '$bin/sensei' --frame-log '$log'"
    pid=$(tmux -L "$tmux_socket" display -p '#{pane_pid}')
    wait_for 120 "the first sync" grep -q '^synced ' "$log" 2>/dev/null
    list_ms=$(awk '$1 == "list" { print $2; exit }' "$log")
    synced_ms=$(awk '$1 == "synced" { print $2; exit }' "$log")

    # At rest: no traffic but the dashboard's own background syncs.
    sleep 3
    hz=$(getconf CLK_TCK)
    before=$(cpu_ticks "$pid")
    sleep "$IDLE"
    after=$(cpu_ticks "$pid")
    idle=$(awk -v t=$((after - before)) -v hz="$hz" -v s="$IDLE" 'BEGIN { printf "%.1f", 100 * t / hz / s }')

    for _ in $(seq "$KEYS"); do
        lines=$(log_lines "$log")
        tmux -L "$tmux_socket" send-keys j
        wait_for 10 "a frame after j" grown_past "$log" "$lines"
    done
    tmux -L "$tmux_socket" send-keys /
    for character in p r o b e _ 1 2; do
        lines=$(log_lines "$log")
        tmux -L "$tmux_socket" send-keys -l "$character"
        wait_for 10 "a frame after $character" grown_past "$log" "$lines"
    done
    tmux -L "$tmux_socket" send-keys Escape
    screen=$(tmux -L "$tmux_socket" capture-pane -p)
    grep -q "of $count sensors" <<< "$screen" || say "the filter did not narrow the list (screen kept in $run)"
    rss=$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")
    hwm=$(awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")
    key_median=$(awk '$1 == "key" && $2 == "j" { print $3 }' "$log" | median)
    key_max=$(awk '$1 == "key" && $2 == "j" { print $3 }' "$log" | maximum)
    filter_median=$(awk '$1 == "key" && $2 != "j" && $2 != "/" { print $3 }' "$log" | median)
    filter_max=$(awk '$1 == "key" && $2 != "j" && $2 != "/" { print $3 }' "$log" | maximum)
    results+=("$(printf '| %s | %s ms | %s ms | %s %% | %s MB (peak %s) | %s ms (max %s) | %s ms (max %s) |' \
        "$count" "$list_ms" "$synced_ms" "$idle" "$rss" "$hwm" "$key_median" "$key_max" "$filter_median" "$filter_max")")
    stop_all
done

echo
echo "Dashboard of a big house: $READINGS readings a sensor over the last day; idle over $IDLE s; $KEYS presses of j"
echo
echo "| sensors | list on screen | first full sync | idle CPU (of a core) | RSS | j to its frame (median) | filter key (median) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${results[@]}"
echo "| target | ≤ 2,000 ms | ≤ 10,000 ms at 10,000 | ≤ 3 % | ≤ 80 MB | ≤ 20 ms | ≤ 20 ms |"
