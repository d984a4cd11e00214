#!/usr/bin/env bash
# sensei import and export over loopback, against a release sensei-server on a
# fresh data directory: 2,000,000 points of line protocol (20 series of
# 30-second readings from 2024-01-01, so every hour is old enough to pack)
# imported, packed by the server, imported again into the packed hours, and
# exported. Prints each figure beside its target (docs/design.md, "Targets";
# issue 26). About two minutes after the release build.
#   POINTS=N      points to import (default 2000000)
#   SKIP_BUILD=1  use the binaries already in $SCRATCH/release
#   SCRATCH=dir   SwiftPM scratch path (default .build)
#   KEEP=1        keep the temporary directory
set -euo pipefail
cd "$(dirname "$0")/.."
POINTS=${POINTS:-2000000}
SCRATCH=${SCRATCH:-.build}
bin=$SCRATCH/release
say() { echo "import-export: $*" >&2; }

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    say "building sensei-server and sensei (release)"
    swift build -c release --scratch-path "$SCRATCH" --product sensei-server >&2
    swift build -c release --scratch-path "$SCRATCH" --product sensei >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/sensei-import-bench.XXXXXX")
server_pid=""
stop_server() {
    [ -n "$server_pid" ] || return 0
    kill -TERM "$server_pid" 2>/dev/null || return 0
    for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}
cleanup() {
    stop_server
    if [ "${KEEP:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

port=39900
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
url=http://127.0.0.1:$port
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export SENSEI_TOKEN=$token SENSEI_URL=$url

say "writing $POINTS points of line protocol"
python3 - "$POINTS" > "$work/points.lp" <<'PY'
import sys, math
points = int(sys.argv[1]); series = 20; per = points // series
start = 1_704_067_200  # 2024-01-01T00:00:00Z
out = sys.stdout
for s in range(series):
    lines = []
    for i in range(per):
        value = round(230 + 40 * math.sin(i / 300 + s) + (i * 7919 % 13) / 10, 1)
        lines.append(f"power,device=plug-{s:02d},room=r{s % 5} watts={value} {(start + i * 30) * 1_000_000_000}\n")
    out.write("".join(lines))
PY
size=$(du -m "$work/points.lp" | cut -f1)

"$bin/sensei-server" serve --data-dir "$work/data" --host 127.0.0.1 --port "$port" --compaction-interval 2 \
    2> "$work/server.log" &
server_pid=$!
for _ in $(seq 200); do curl -sf -o /dev/null "$url/health" && break; sleep 0.1; done

server_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$server_pid/stat"; }
timed_import() { # label: runs the import, prints "seconds max_rss_kb client_cpu_seconds"
    /usr/bin/time -f "%e %M %U %S" -o "$work/$1.time" "$bin/sensei" import "$work/points.lp" > "$work/$1.txt" 2>&1 ||
        { say "import failed:"; cat "$work/$1.txt" >&2; exit 1; }
    awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$work/$1.time"
}
# Readings in packed hours once none is left as a row (the server packs history
# as it is written, its compactor what is left), from the live database; and
# the readings the compactor says it packed.
packed() {
    sqlite3 "file:$work/data/sensei.sqlite?mode=ro" \
        "SELECT CASE WHEN EXISTS (SELECT 1 FROM readings) THEN 0 ELSE coalesce(sum(count), 0) END FROM reading_blocks" \
        2>/dev/null || echo 0
}
compacted() { { grep -o 'compaction: packed [0-9]*' "$work/server.log" || true; } | awk '{ sum += $3 } END { print sum + 0 }'; }

say "import ($size MB)"
cpu0=$(server_cpu)
read -r import_s import_kb import_cpu < <(timed_import first)
import_server_cpu=$(awk -v a="$cpu0" -v b="$(server_cpu)" 'BEGIN { printf "%.2f", b - a }')
say "waiting until every hour is packed"
for _ in $(seq 1200); do [ "$(packed)" -ge "$POINTS" ] && break; sleep 0.1; done
packed_first=$(packed)

say "import again, into the packed hours"
compacted_first=$(compacted)
read -r again_s again_kb _ < <(timed_import again)
for _ in $(seq 1200); do [ "$(packed)" -ge "$POINTS" ] && break; sleep 0.1; done
repacked=$(( $(compacted) - compacted_first ))

say "export"
cpu0=$(server_cpu)
/usr/bin/time -f "%e %M %U %S" -o "$work/export.time" "$bin/sensei" export -o "$work/export.lp" 2> "$work/export.txt"
read -r export_s export_kb export_user export_sys < "$work/export.time"
export_server_cpu=$(awk -v a="$cpu0" -v b="$(server_cpu)" 'BEGIN { printf "%.2f", b - a }')
exported=$(wc -l < "$work/export.lp")
/usr/bin/time -f "%e %M" -o "$work/export-csv.time" "$bin/sensei" export --format csv -o "$work/export.csv" 2>> "$work/export.txt"
read -r csv_s _ < "$work/export-csv.time"

stop_server
kb=$(du -sk "$work/data" | cut -f1)

rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%d", n / s }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
met() { awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN { print ((op == ">=" ? a >= b : a <= b) ? "yes" : "no") }'; }
import_rate=$(rate "$POINTS" "$import_s")
again_rate=$(rate "$POINTS" "$again_s")
export_rate=$(rate "$exported" "$export_s")
bytes=$(awk -v k="$kb" -v n="$POINTS" 'BEGIN { printf "%.2f", k * 1024 / n }')
printf '\nload average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n| metric | figure | target | met |\n| --- | --- | --- | --- |\n'
printf '| import, %s points of line protocol (%s MB) | %s points/s (%.1f s) | >= 500,000 | %s |\n' \
    "$POINTS" "$size" "$import_rate" "$import_s" "$(met "$import_rate" ">=" 500000)"
printf '| import CPU (a loaded machine slows the wall clock, not these) | sensei %s s, server %s s: %s points per CPU-second | | |\n' \
    "$import_cpu" "$import_server_cpu" "$(rate "$POINTS" "$(awk -v a="$import_cpu" -v b="$import_server_cpu" 'BEGIN { print a + b }')")"
printf '| sensei RSS while importing | %s MB | <= 50 MB | %s |\n' "$(mb "$import_kb")" "$(met "$(mb "$import_kb")" "<=" 50)"
printf '| disk once packed | %s B/reading (%s packed) | <= 6 | %s |\n' "$bytes" "$packed_first" "$(met "$bytes" "<=" 6)"
printf '| import again into packed hours | %s points/s, RSS %s MB; %s readings repacked | no hour repacked once a batch | |\n' \
    "$again_rate" "$(mb "$again_kb")" "$repacked"
printf '| export, line protocol | %s points/s (%s points, %.1f s) | >= 1,000,000 | %s |\n' \
    "$export_rate" "$exported" "$export_s" "$(met "$export_rate" ">=" 1000000)"
printf '| export CPU | sensei %.2f s, server %s s, RSS %s MB | | |\n' "$(awk -v a="$export_user" -v b="$export_sys" 'BEGIN { print a + b }')" \
    "$export_server_cpu" "$(mb "$export_kb")"
printf '| export, CSV | %s points/s | | |\n' "$(rate "$exported" "$csv_s")"
grep -E '^Imported' "$work/first.txt" >&2 || true
