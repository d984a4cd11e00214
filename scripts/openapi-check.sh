#!/usr/bin/env bash
# Checks openapi.yaml against a real sensei-server: validates the spec, then
# starts the server on a free loopback port with a temporary data directory
# and runs schemathesis (seeded, a bounded number of examples an operation)
# with an admin token, then briefly with a read token (the 403s). Fails on a
# 5xx, or a status, content type, header or body the spec does not describe.
#
# Needs python3 (3.11 or newer) with pip; the tools pinned in
# scripts/openapi-requirements.txt go into a venv under .build/ (no root).
# Environment:
#   SENSEI_SERVER_BIN         a built sensei-server to use (default: swift build it, debug)
#   OPENAPI_CHECK_EXAMPLES    examples per operation (default 50)
#   OPENAPI_CHECK_SEED        the run's seed (default 20250109)
#   OPENAPI_CHECK_TIME_LIMIT  seconds the main pass may take before it is stopped (default 120)
#   OPENAPI_CHECK_KEEP_LOG    a file to copy the server's log to at the end
# Extra arguments go to the main schemathesis run (e.g. --include-path /sensors).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

examples=${OPENAPI_CHECK_EXAMPLES:-50}
seed=${OPENAPI_CHECK_SEED:-20250109}
time_limit=${OPENAPI_CHECK_TIME_LIMIT:-120}
requirements=$root/scripts/openapi-requirements.txt
tools=$root/.build/openapi-tools

# Stops the server we started and removes its data, whatever happens.
source scripts/check-server.sh
child=""
cleanup() {
    # A pass still running (interrupted): timeout hands the signal on to schemathesis.
    if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
    stop_check_server
    if [ -n "${OPENAPI_CHECK_KEEP_LOG:-}" ] && [ -n "$work" ]; then cp "$work/server.log" "$OPENAPI_CHECK_KEEP_LOG" 2>/dev/null || true; fi
    [ -z "$work" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '\n== %s\n' "$*" >&2; }

# Runs a command for at most $1 seconds, in a scratch folder (schemathesis and
# hypothesis leave caches in theirs: none is kept, none is found and replayed).
# In the background and waited for, so that an INT or TERM to this script is
# handled at once, not when the command ends.
bounded() {
    local limit=$1
    shift
    mkdir -p "$work/run"
    (cd "$work/run" && exec timeout --kill-after=10 "$limit" "$@") &
    child=$!
    local code=0
    wait "$child" || code=$?
    child=""
    return "$code"
}

# --- the tools -------------------------------------------------------------
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "openapi-check: needs Python 3.11 or newer (schemathesis does), found $(python3 --version 2>&1)" >&2
    exit 1
}
if ! cmp -s "$requirements" "$tools/requirements.txt"; then
    say "installing the pinned tools into $tools"
    rm -rf "$tools"
    mkdir -p "$tools"
    if python3 -m venv "$tools/venv" >/dev/null 2>&1 && [ -x "$tools/venv/bin/pip" ]; then
        "$tools/venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    else
        # Debian without python3-venv: a plain target folder, which pip
        # installs into without root and despite an externally managed Python.
        rm -rf "$tools/venv"
        python3 -m pip install --quiet --disable-pip-version-check --target "$tools/lib" -r "$requirements"
    fi
    cp "$requirements" "$tools/requirements.txt"
fi
if [ -d "$tools/venv" ]; then
    python="$tools/venv/bin/python"
    schemathesis="$tools/venv/bin/schemathesis"
else
    export PYTHONPATH="$tools/lib${PYTHONPATH:+:$PYTHONPATH}"
    python=python3
    schemathesis="$tools/lib/bin/schemathesis"
fi

say "validating openapi.yaml"
"$python" -m openapi_spec_validator openapi.yaml

# --- the server ------------------------------------------------------------
resolve_check_server

token="openapi-check-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
start_check_server openapi-check "$token"
base=http://127.0.0.1:$port
say "sensei-server $server_pid on $base, data in $work/data"

# A request through Python's standard library (no curl needed); prints the status.
request() {
    "$python" - "$@" <<'PY'
import sys, urllib.error, urllib.request
method, url, token = sys.argv[1:4]
body = sys.argv[4].encode() if len(sys.argv) > 4 else None
headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
try:
    with urllib.request.urlopen(urllib.request.Request(url, body, headers, method=method), timeout=30) as response:
        print(response.status)
except urllib.error.HTTPError as error:
    print(error.code)
PY
}

# Something to read back: the spec's example sensor with a day of readings
# (one a minute, ending now), so list, bucket and CSV answers are not all empty.
batch=$("$python" -c '
import json, time
now = int(time.time())
print(json.dumps({"data": [{"timestamp": now - 60 * i, "value": 20 + i % 97 / 10} for i in range(1440)]}))')
seeded=$(request POST "$base/sensors/temperature_ext/data" "$token" "$batch")
[ "$seeded" = 201 ] || { echo "openapi-check: seeding readings answered $seeded" >&2; exit 1; }

# GET /metrics is described in the spec; skip it against a server without it.
skip=()
if [ "$(request GET "$base/metrics" "$token")" = 404 ]; then
    echo "this server has no GET /metrics: not testing it" >&2
    skip=(--exclude-path /metrics)
fi

# GET /stream stays open until its limit or timeout: schemathesis would wait on
# it until its request timeout and count that as a failure. It is checked
# below with requests that end.
skip+=(--exclude-path /stream)

common=(
    --url "$base"
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance,unsupported_method,allow_header_conformance,ignored_auth,use_after_free,ensure_resource_availability
    --seed "$seed"
    --workers 1
    --request-timeout 10
    --generation-database none
    --no-color
    "${skip[@]}"
)

status=0
say "schemathesis: admin token, $examples examples an operation, seed $seed"
bounded "$time_limit" "$schemathesis" run "$root/openapi.yaml" "${common[@]}" \
    -H "Authorization: Bearer $token" --max-examples "$examples" "$@" || status=$?

# The 403s: the same operations with a read-only token.
read_token=$("$server" token create --name openapi-read --scope read --data-dir "$work/data")
say "schemathesis: read token, 5 examples an operation"
bounded 60 "$schemathesis" run "$root/openapi.yaml" "${common[@]}" \
    -H "Authorization: Bearer $read_token" --max-examples 5 --warnings off || status=$?

say "GET /stream: a reading posted while it is open, then its end at timeout; its errors"
"$python" - "$base" "$token" <<'PY' || status=$?
import json, sys, threading, time, urllib.error, urllib.request
base, token = sys.argv[1:3]
auth = {"Authorization": "Bearer " + token}
# A sensor of its own: the fuzzing may have deleted any other.
def post(value, delay=0):
    time.sleep(delay)
    body = json.dumps({"value": value, "timestamp": "2025-01-09T12:00:00Z"}).encode()
    urllib.request.urlopen(urllib.request.Request(base + "/sensors/stream_check/data", body, auth, method="POST"), timeout=10)
post(0)
threading.Thread(target=post, args=(1.5, 0.5)).start()
with urllib.request.urlopen(urllib.request.Request(base + "/stream?sensor=stream_check&timeout=2", headers=auth), timeout=10) as response:
    assert response.status == 200, response.status
    assert response.headers["Content-Type"] == "text/event-stream; charset=utf-8", response.headers["Content-Type"]
    text = response.read().decode()
events = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
assert {"sensor": "stream_check", "timestamp": "2025-01-09T12:00:00Z", "value": 1.5}.items() <= events[0].items(), text
for query, status in [("limit=0", 400), ("timeout=x", 400), ("sensor=no_such_sensor", 404)]:
    try:
        urllib.request.urlopen(urllib.request.Request(base + "/stream?" + query, headers=auth), timeout=10)
        raise AssertionError(query + " was accepted")
    except urllib.error.HTTPError as error:
        assert error.code == status and "error" in json.loads(error.read()), (query, error.code)
print("GET /stream: ok", file=sys.stderr)
PY

if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "openapi-check: the server died during the run:" >&2
    status=1
fi
if [ "$status" -ne 0 ]; then
    case $status in 124|137) echo "openapi-check: stopped at the time limit" >&2 ;; esac
    echo "--- server log (last 40 lines)" >&2
    tail -n 40 "$work/server.log" >&2
    echo "openapi-check: FAILED" >&2
else
    echo "openapi-check: openapi.yaml and the server agree" >&2
fi
exit "$status"
