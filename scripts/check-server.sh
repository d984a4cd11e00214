# shellcheck shell=bash
# Sourced by the checks that run a real sensei-server on loopback
# (openapi-check.sh, influx-clients-check.sh): which binary, starting it on a
# free port with a temporary data directory, and stopping it. Sets `server`,
# `work`, `server_pid` and `port`; the caller's EXIT trap calls stop_check_server.

server_pid=""
work=""

# The server to check: $SENSEI_SERVER_BIN, or a debug build made now.
resolve_check_server() {
    if [ -n "${SENSEI_SERVER_BIN:-}" ]; then
        server=$(cd "$(dirname "$SENSEI_SERVER_BIN")" && pwd)/$(basename "$SENSEI_SERVER_BIN")
    else
        say "building sensei-server (debug)"
        scripts/install-deps.sh
        swift build --product sensei-server
        server=$(swift build --show-bin-path)/sensei-server
    fi
}

# start_check_server NAME TOKEN: serves with TOKEN as its admin token (alert
# notifications only to loopback: fuzzed rules may name any URL) and
# waits (up to 30 s) for the port it took; exits the script if it never listens.
start_check_server() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/sensei-$1.XXXXXX")
    SENSEI_TOKEN=$2 "$server" serve --host 127.0.0.1 --port 0 --data-dir "$work/data" \
        --log-level notice --alert-loopback-only >"$work/server.log" 2>&1 &
    server_pid=$!
    port=""
    for _ in $(seq 150); do
        port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$work/server.log" | head -n 1)
        [ -n "$port" ] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.2
    done
    if [ -z "$port" ]; then
        echo "$1: the server did not start:" >&2
        cat "$work/server.log" >&2
        exit 1
    fi
}

# SIGTERM, up to 10 s to finish, then SIGKILL.
stop_check_server() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
}
