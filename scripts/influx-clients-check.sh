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

source scripts/check-server.sh
cleanup() {
    stop_check_server
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

resolve_check_server

admin="influx-check-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
start_check_server influx-clients-check "$admin"
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
