#!/usr/bin/env bash
# Writes to a real sensei-server through InfluxDB's own client libraries, pinned
# in scripts/influx-clients-requirements.txt (influxdb for the 1.x API,
# influxdb-client for 2.x), and checks what Sensei stored and answered
# (scripts/influx-clients-check.py). The libraries go into a venv under .build/.
# Environment:
#   SENSEI_SERVER_BIN   a built sensei-server to use (default: swift build it, debug)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
requirements=$root/scripts/influx-clients-requirements.txt
tools=$root/.build/influx-clients

server_pid=""
work=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    [ -z "$work" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
say() { printf '\n== %s\n' "$*" >&2; }

if ! cmp -s "$requirements" "$tools/requirements.txt"; then
    say "installing the pinned InfluxDB clients into $tools"
    rm -rf "$tools"
    mkdir -p "$tools"
    if python3 -m venv "$tools/venv" >/dev/null 2>&1 && [ -x "$tools/venv/bin/pip" ]; then
        "$tools/venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    else
        # Debian without python3-venv: a plain target folder (see openapi-check.sh).
        rm -rf "$tools/venv"
        python3 -m pip install --quiet --disable-pip-version-check --target "$tools/lib" -r "$requirements"
    fi
    cp "$requirements" "$tools/requirements.txt"
fi
if [ -d "$tools/venv" ]; then
    python="$tools/venv/bin/python"
else
    export PYTHONPATH="$tools/lib${PYTHONPATH:+:$PYTHONPATH}"
    python=python3
fi

if [ -n "${SENSEI_SERVER_BIN:-}" ]; then
    server=$(cd "$(dirname "$SENSEI_SERVER_BIN")" && pwd)/$(basename "$SENSEI_SERVER_BIN")
else
    say "building sensei-server (debug)"
    scripts/install-deps.sh
    swift build --product sensei-server
    server=$(swift build --show-bin-path)/sensei-server
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/sensei-influx.XXXXXX")
admin="influx-check-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
SENSEI_TOKEN=$admin "$server" serve --host 127.0.0.1 --port 0 --data-dir "$work/data" \
    --log-level notice >"$work/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 150); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$work/server.log" | head -n 1)
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
done
if [ -z "$port" ]; then
    echo "influx-clients-check: the server did not start:" >&2
    cat "$work/server.log" >&2
    exit 1
fi
write_token=$("$server" token create --name influx-clients --scope write --data-dir "$work/data")
say "sensei-server $server_pid on http://127.0.0.1:$port"
status=0
timeout --kill-after=10 120 "$python" "$root/scripts/influx-clients-check.py" "http://127.0.0.1:$port" "$write_token" "$admin" || status=$?
if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "influx-clients-check: the server died during the run" >&2
    status=1
fi
if [ "$status" -ne 0 ]; then
    echo "--- server log (last 40 lines)" >&2
    tail -n 40 "$work/server.log" >&2
fi
exit "$status"
