#!/usr/bin/env bash
# Checks deploy/ (CI runs it):
#  - install.sh into a temporary DESTDIR: the binaries are there and run, the
#    unit's ExecStart points at them, the env file is created once and then
#    kept, a second run (an upgrade) replaces the binaries, PREFIX/SYSTEMD_DIR
#    are honoured, --no-build without a build fails clearly;
#  - systemd-analyze verify on the installed unit (a copy whose ExecStart
#    names the binary in the temporary DESTDIR: verify wants it to exist) and
#    systemd-analyze security --offline; neither needs a running systemd;
#  - the sandbox: the installed server runs under strace as an unprivileged
#    user, serves a few requests (and HTTPS when it has --tls-cert), stops on
#    SIGTERM, and deploy/trace_check.py checks every system call, socket,
#    memory mapping and path against the unit's filters; once more with
#    --mqtt, subscribed to a Mosquitto broker this script starts on loopback;
#  - the cluster example (deploy/cluster): haproxy -c on its configs (no
#    warnings either), systemd-analyze verify/security on the template unit
#    instantiated as sensei-server@node-a (and its hardening is the plain
#    unit's), compose.yaml parsed and its wiring checked (it cannot run here:
#    no Docker engine); then HAProxy from haproxy.cfg in front of two real
#    nodes (SQLite each, one pre-shared token): requests reach both, /stream
#    passes, a node stopped with SIGTERM is marked DOWN while every request
#    is answered by the other, and marked UP again when it returns;
#  - the Containerfile's runtime packages cover every library the binaries
#    link (it cannot be built here: no Docker engine).
#
# Slow the first time: install.sh builds a release (static Swift runtime) into
# .build, or $SENSEI_BUILD_PATH. With that build up to date this takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh systemd strace curl openssl mosquitto mosquitto-clients haproxy python3-yaml

stage=$(mktemp -d)
chmod 755 "$stage"  # the traced server runs as nobody and must reach its binary
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$stage"
}
trap cleanup EXIT
# shellcheck source=/dev/null
. scripts/tally.sh  # ok, fail, holds, tally

# ---- install.sh into a temporary DESTDIR -----------------------------------------
root="$stage/root"
echo "== DESTDIR=$root deploy/install.sh"
DESTDIR=$root deploy/install.sh | tee "$stage/install.log"
bin="$root/usr/local/bin"
unit="$root/etc/systemd/system/sensei-server.service"
env_file="$root/etc/sensei/sensei.env"
(cd "$root" && find . -printf '%M %u %10s %p\n' | sort -k4)

holds "sensei-server installed" test -x "$bin/sensei-server"
holds "sensei installed" test -x "$bin/sensei"
holds "unit installed" test -f "$unit"
holds "env file created from the example" cmp -s deploy/sensei.env.example "$env_file"
holds "env file is mode 600" test "$(stat -c %a "$env_file")" = 600
usage() { local text; text=$("$1" --help) && grep -q "USAGE: $(basename "$1")" <<< "$text"; }
lacks() { ! grep -q "$1" <<< "$2"; }
for binary in sensei-server sensei; do
    holds "$binary --help runs" usage "$bin/$binary"
    libraries=$(ldd "$bin/$binary")
    holds "$binary finds every library" lacks "not found" "$libraries"
    holds "$binary carries the Swift runtime (no libswiftCore.so)" lacks libswiftCore "$libraries"
done
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
echo "ExecStart=$exec_start"
holds "ExecStart runs the installed binary" test "${exec_start%% *}" = /usr/local/bin/sensei-server
holds "that binary is the one installed under DESTDIR" test -x "$root${exec_start%% *}"
holds "ExecStart serves from the state directory" grep -q -- "serve --data-dir %S/sensei " <<< "$exec_start"

# Every serve flag the unit and the example env file name exists.
serve_help=$("$bin/sensei-server" serve --help)
while read -r flag; do
    case "$flag" in --data-dir|--host|--port|--threads|--max-connections|--timeout|--max-body-bytes|--log-level|--tls-*|--mqtt*)
        holds "serve knows $flag (named in the unit or sensei.env.example)" grep -q -- "$flag" <<< "$serve_help" ;;
    esac
done < <(grep -ho -- '--[a-z][a-z-]*' "$unit" deploy/sensei.env.example | sort -u)
holds "sensei.env.example: only comments and KEY=value lines" \
    test -z "$(grep -Ev '^(#.*|[A-Z_][A-Z0-9_]*=.*|)$' deploy/sensei.env.example)"

# ---- systemd-analyze ------------------------------------------------------------------
# verify exits 0 even on unknown keys and bad values, so any output fails.
mkdir -p "$stage/verify"
sed "s|^ExecStart=/usr/local/bin/|ExecStart=$bin/|" "$unit" > "$stage/verify/sensei-server.service"
echo "== systemd-analyze verify sensei-server.service"
if verify=$(systemd-analyze verify "$stage/verify/sensei-server.service" 2>&1) && [ -z "$verify" ]; then
    ok "systemd-analyze verify: no complaints"
else
    echo "$verify"
    fail "systemd-analyze verify"
fi
security=$(systemd-analyze security --offline=yes "$stage/verify/sensei-server.service" 2>&1 || true)
exposure=$(sed -n 's/.*Overall exposure level for sensei-server.service: \([0-9.]*\).*/\1/p' <<< "$security")
echo "systemd-analyze security --offline: exposure ${exposure:-?} (0 = locked down, 10 = exposed)"
holds "security exposure at most 2.0" awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 2.0) }'

# ---- upgrade: run it again ------------------------------------------------------------
echo "# a local edit" >> "$env_file"
touch -d '2000-01-01' "$bin/sensei-server"
DESTDIR=$root deploy/install.sh --no-build > "$stage/upgrade.log"
holds "a second run keeps the edited env file" grep -q "^# a local edit" "$env_file"
holds "a second run says it kept it" grep -q "kept $env_file" "$stage/upgrade.log"
holds "a second run replaces the binary" test "$(stat -c %Y "$bin/sensei-server")" -gt 946684800

other="$stage/other"
PREFIX=/opt/sensei SYSTEMD_DIR=/usr/lib/systemd/system DESTDIR=$other deploy/install.sh --no-build > /dev/null
holds "PREFIX=/opt/sensei: binaries there" test -x "$other/opt/sensei/bin/sensei-server" -a -x "$other/opt/sensei/bin/sensei"
holds "PREFIX=/opt/sensei: ExecStart rewritten" \
    grep -q "^ExecStart=/opt/sensei/bin/sensei-server serve " "$other/usr/lib/systemd/system/sensei-server.service"
if SENSEI_BUILD_PATH="$stage/no-build" DESTDIR="$stage/none" deploy/install.sh --no-build > /dev/null 2> "$stage/err"; then
    fail "--no-build without a build exited 0"
else
    holds "--no-build without a build says so" grep -q "no release build" "$stage/err"
fi

# ---- the sandbox, traced ----------------------------------------------------------------
# Runs the installed server as `nobody` under strace; sets $port and $tracer
# (strace's pid; the server is its child).
start_traced() { # name extra-serve-flags…
    local name=$1; shift
    local data="$stage/$name-data"
    install -d -o nobody -g nogroup -m 0700 "$data"
    strace -f -qq -s 4096 -u nobody -o "$stage/$name.trace" \
        "$bin/sensei-server" serve --data-dir "$data" --host 127.0.0.1 --port 0 "$@" 2> "$stage/$name.log" &
    tracer=$!
    pids+=("$tracer")
    port=""
    for _ in $(seq 200); do
        port=$(sed -n 's|.*listening on https\{0,1\}://127.0.0.1:\([0-9]*\).*|\1|p' "$stage/$name.log")
        [ -n "$port" ] && return 0
        sleep 0.1
    done
    cat "$stage/$name.log" >&2
    fail "$name: the server did not start"
    return 1
}
stop_traced() { # name tracer-pid: SIGTERM to the server (strace's child), then its exit status
    local name=$1 tracer=$2 server
    server=$(pgrep -P "$tracer" | head -1)
    kill -TERM "$server"
    if wait "$tracer"; then ok "$name: stopped cleanly on SIGTERM"; else fail "$name: exit status $? after SIGTERM"; fi
    grep -q "stopped" "$stage/$name.log" || fail "$name: no 'stopped' in its log"
}
workload() { # base-url token curl-flags…
    local base=$1 token=$2; shift 2
    local c=(curl -sS --max-time 10 "$@" -o /dev/null -w '%{http_code}')
    local h="Authorization: Bearer $token"
    codes=$("${c[@]}" "$base/health")
    codes+=" $("${c[@]}" -H "$h" -d '{"value": 21.5}' "$base/sensors/porch/data")"
    codes+=" $("${c[@]}" -H "$h" -d '{"data":[{"timestamp":1736424000,"value":1},{"timestamp":1736424030,"value":"2"}]}' "$base/sensors/porch/data")"
    codes+=" $("${c[@]}" -H "$h" -H 'Content-Type: application/json' -d '{"sensor_code":"legacy","value":"23.5"}' "$base/sensor_data")"
    codes+=" $("${c[@]}" -H "$h" "$base/sensors")"
    codes+=" $("${c[@]}" -H "$h" "$base/sensors/porch/data?after=2025-01-01T00:00:00Z&before=2030-01-01T00:00:00Z&buckets=10")"
    codes+=" $("${c[@]}" -H "$h" "$base/sensors/porch/data.csv")"
    codes+=" $("${c[@]}" -H "Authorization: Bearer wrong" "$base/sensors")"
    codes+=" $("${c[@]}" -H "$h" -d '{"value": "warm"}' "$base/sensors/porch/data")"
    echo "$codes"
}
expected_codes="200 201 201 201 200 200 200 401 422"

echo "== sandbox: the installed server under strace, as nobody"
if ! strace -f -qq -o /dev/null true 2> /dev/null; then
    fail "strace cannot trace here (ptrace refused): the sandbox is not checked"
else
    if start_traced http; then
        token=$(cat "$stage/http-data/admin-token")
        holds "http: answers $expected_codes" test "$(workload "http://127.0.0.1:$port" "$token")" = "$expected_codes"
        # The Containerfile's HEALTHCHECK command, pointed at this port.
        healthcheck=$(python3 -c 'import json, re, sys
text = open("deploy/Containerfile").read().split("HEALTHCHECK", 1)[1]
print(json.loads(re.search(r"CMD (\[.*\])\n", text).group(1))[2].replace("/3000", "/" + sys.argv[1]))' "$port")
        holds "the Containerfile's HEALTHCHECK passes against a running server" bash -c "$healthcheck"
        # The dashboard, installed beside it, reads the same server.
        listing=$(HOME="$stage" XDG_CACHE_HOME="$stage/cache" XDG_CONFIG_HOME="$stage/config" \
                  SENSEI_URL="http://127.0.0.1:$port" SENSEI_TOKEN="$token" "$bin/sensei" list 2>&1 || true)
        holds "installed sensei list shows the posted sensors" grep -q "porch" <<< "$listing"
        stop_traced http "$tracer"
        holds "http: the traced run stays inside the unit's sandbox" \
            python3 deploy/trace_check.py "$stage/http.trace" "$stage/http-data"
    fi

    if "$bin/sensei-server" serve --help | grep -q -- "--tls-cert"; then
        tls="$stage/tls"
        install -d -o nobody -g nogroup -m 0700 "$tls"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
            -subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
            -keyout "$tls/key.pem" -out "$tls/cert.pem" 2> /dev/null
        chown nobody:nogroup "$tls/key.pem" "$tls/cert.pem"
        chmod 600 "$tls/key.pem"
        if start_traced https --tls-cert "$tls/cert.pem" --tls-key "$tls/key.pem"; then
            token=$(cat "$stage/https-data/admin-token")
            holds "https: answers $expected_codes" \
                test "$(workload "https://127.0.0.1:$port" "$token" --cacert "$tls/cert.pem")" = "$expected_codes"
            stop_traced https "$tracer"
            holds "https: the traced run stays inside the unit's sandbox" \
                python3 deploy/trace_check.py "$stage/https.trace" "$stage/https-data"
        fi
    else
        echo "skip: this sensei-server has no --tls-cert; HTTPS is not traced"
    fi

    # MQTT: the same sandbox while subscribed to a broker and storing what it publishes.
    mqtt_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    install -d -m 0777 "$stage/mosquitto"
    printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$mqtt_port" > "$stage/mosquitto/mosquitto.conf"
    mosquitto -c "$stage/mosquitto/mosquitto.conf" > "$stage/mosquitto.log" 2>&1 &
    pids+=("$!")
    for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$mqtt_port") 2>/dev/null && break; sleep 0.1; done
    if SENSEI_MQTT_URL="mqtt://127.0.0.1:$mqtt_port" start_traced mqtt --mqtt-preset esphome --mqtt-topic 'home/#'; then
        token=$(cat "$stage/mqtt-data/admin-token")
        connected=""
        for _ in $(seq 100); do
            curl -s "http://127.0.0.1:$port/health" | grep -q '"mqtt":"connected"' && { connected=1; break; }
            sleep 0.1
        done
        holds "mqtt: connected to the broker (SENSEI_MQTT_URL)" test -n "$connected"
        mosquitto_pub -p "$mqtt_port" -q 1 -t porch/sensor/temperature/state -m 21.5
        mosquitto_pub -p "$mqtt_port" -q 1 -t home/garage/climate -m '{"temperature":12.5,"door":false}'
        stored=""
        for _ in $(seq 100); do
            metrics=$(curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$port/metrics")
            grep -q '^sensei_mqtt_readings_stored_total 3$' <<< "$metrics" && { stored=1; break; }
            sleep 0.1
        done
        holds "mqtt: the published readings are stored" test -n "$stored"
        holds "mqtt: answers $expected_codes too" test "$(workload "http://127.0.0.1:$port" "$token")" = "$expected_codes"
        stop_traced mqtt "$tracer"
        holds "mqtt: the traced run stays inside the unit's sandbox" \
            python3 deploy/trace_check.py "$stage/mqtt.trace" "$stage/mqtt-data"
    fi
fi

# ---- the cluster example (deploy/cluster) ---------------------------------------------
cluster=deploy/cluster
echo "== deploy/cluster: haproxy.cfg, the template unit, compose.yaml"
haproxy_valid() { # config files…: valid, and no warnings (-dW makes one fatal)
    local args=() file output
    for file in "$@"; do args+=(-f "$file"); done
    if output=$(haproxy -dW -c "${args[@]}" 2>&1); then return 0; fi
    echo "$output" >&2
    return 1
}
holds "haproxy.cfg: valid, no warnings (haproxy -dW -c)" haproxy_valid "$cluster/haproxy.cfg"
holds "haproxy-patroni.cfg beside it: valid, no warnings" haproxy_valid "$cluster/haproxy.cfg" "$cluster/haproxy-patroni.cfg"

# The template, instantiated as node-a, its ExecStart on the staged binary.
template="$stage/verify/sensei-server@node-a.service"
sed "s|^ExecStart=/usr/local/bin/|ExecStart=$bin/|" "$cluster/sensei-server@.service" > "$template"
echo "== systemd-analyze verify sensei-server@node-a.service"
if verify=$(systemd-analyze verify "$template" 2>&1) && [ -z "$verify" ]; then
    ok "systemd-analyze verify sensei-server@node-a: no complaints"
else
    echo "$verify"
    fail "systemd-analyze verify sensei-server@node-a"
fi
security=$(systemd-analyze security --offline=yes "$template" 2>&1 || true)
exposure=$(sed -n 's/.*Overall exposure level for sensei-server@node-a.service: \([0-9.]*\).*/\1/p' <<< "$security")
echo "systemd-analyze security --offline: exposure ${exposure:-?}"
holds "sensei-server@node-a: security exposure at most 2.0" awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 2.0) }'
hardening() { sed -n '/^NoNewPrivileges=/,/^SystemCallErrorNumber=/{/^#/d;p}' "$1"; }
holds "the template has the plain unit's hardening, line for line" \
    test "$(hardening "$cluster/sensei-server@.service")" = "$(hardening deploy/sensei-server.service)"
exec_start=$(sed -n 's/^ExecStart=//p' "$cluster/sensei-server@.service")
holds "the template names the node --node-id %i" grep -q -- "--node-id %i " <<< "$exec_start"
holds "the template serves from its own state directory" grep -q -- "--data-dir %S/sensei/%i " <<< "$exec_start"
holds "the template's StateDirectory is sensei/%i" grep -qx "StateDirectory=sensei/%i" "$cluster/sensei-server@.service"
holds "the template reads /etc/sensei/%i.env" grep -qx "EnvironmentFile=/etc/sensei/%i.env" "$cluster/sensei-server@.service"
while read -r flag; do
    holds "serve knows $flag (in the template's ExecStart or node.env.example's SENSEI_OPTS)" grep -q -- "$flag" <<< "$serve_help"
done < <(grep -h '^ExecStart=\|SENSEI_OPTS=' "$cluster/sensei-server@.service" "$cluster/node.env.example" |
         grep -o -- ' --[a-z][a-z-]*' | sort -u)
holds "node.env.example: only comments and KEY=value lines" \
    test -z "$(grep -Ev '^(#.*|[A-Z_][A-Z0-9_]*=.*|)$' "$cluster/node.env.example")"
# ExecStartPre refuses a node without SENSEI_DATABASE_URL ($$ is systemd's literal $).
guard=$(sed -n "s/^ExecStartPre=\/bin\/sh -c '\(.*\)'\$/\1/p" "$cluster/sensei-server@.service" | sed 's/\$\$/$/g; s/%i/node-a/g')
refuses_without_url() { ! env -u SENSEI_DATABASE_URL sh -c "$1" 2> /dev/null; }
holds "the template's ExecStartPre refuses a node without SENSEI_DATABASE_URL" refuses_without_url "$guard"
holds "…and lets one with a postgresql:// URL start" \
    env SENSEI_DATABASE_URL=postgresql://sensei@db.lan/sensei sh -c "$guard"

# compose.yaml: parsed (Debian's python3-yaml), and what it wires checked;
# `docker compose config` would need Docker.
compose_problems=$(/usr/bin/python3 - "$cluster" <<'PY'
import os, re, sys, yaml
folder = sys.argv[1]
compose = yaml.safe_load(open(os.path.join(folder, "compose.yaml")))
services = compose.get("services", {})
problems = []
def need(condition, text):
    if not condition: problems.append(text)
need(set(services) == {"postgres", "node-a", "node-b", "haproxy"}, f"services: {sorted(services)}")
need(services.get("postgres", {}).get("image") == "postgres:15", "postgres: image postgres:15")
need(services.get("haproxy", {}).get("image") == "haproxy:2.6", "haproxy: image haproxy:2.6")
need("./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in services.get("haproxy", {}).get("volumes", []),
     "haproxy: mounts ./haproxy.cfg")
config = open(os.path.join(folder, "haproxy.cfg")).read()
for name, value in services.get("haproxy", {}).get("environment", {}).items():
    need("${" + name + "-" in config, f"haproxy: {name} is not read by haproxy.cfg")
for node, variable in (("node-a", "SENSEI_NODE_A"), ("node-b", "SENSEI_NODE_B")):
    service = services.get(node, {})
    build = service.get("build", {})
    need(os.path.isfile(os.path.join(folder, build.get("context", "?"), build.get("dockerfile", "?"))),
         f"{node}: build context and dockerfile do not name deploy/Containerfile")
    need(service.get("environment", {}).get("SENSEI_DATABASE_URL", "").startswith("postgresql://"),
         f"{node}: SENSEI_DATABASE_URL")
    need("SENSEI_TOKEN" in service.get("environment", {}), f"{node}: SENSEI_TOKEN")
    command = service.get("command", [])
    need(command[command.index("--node-id") + 1:][:1] == [node] if "--node-id" in command else False,
         f"{node}: --node-id {node}")
    port = command[command.index("--port") + 1] if "--port" in command else "3000"
    need(services.get("haproxy", {}).get("environment", {}).get(variable) == f"{node}:{port}",
         f"haproxy: {variable} should be {node}:{port}")
for name, service in services.items():
    for target, how in (service.get("depends_on") or {}).items():
        need(target in services, f"{name}: depends on unknown {target}")
        if how.get("condition") == "service_healthy":
            need("healthcheck" in services.get(target, {}), f"{name}: waits for {target} to be healthy, which has no healthcheck")
need((services.get("haproxy", {}).get("depends_on") or {}).keys() >= {"node-a", "node-b"}, "haproxy: depends_on both nodes")
for node in ("node-a", "node-b"):
    need((services.get(node, {}).get("depends_on") or {}).get("postgres", {}).get("condition") == "service_healthy",
         f"{node}: waits for postgres to be healthy")
print("\n".join(problems))
PY
) || compose_problems="compose.yaml does not parse"
[ -n "$compose_problems" ] && echo "$compose_problems" >&2
holds "compose.yaml parses; postgres:15, two nodes from deploy/Containerfile, haproxy:2.6 wired to haproxy.cfg" \
    test -z "$compose_problems"

# The smoke run: HAProxy from haproxy.cfg (addresses from the environment) in
# front of two real nodes, each on its own SQLite and data directory, with
# one pre-shared token (not one hub: that needs PostgreSQL; this checks the
# balancing, the health checks and the failover of HAProxy's side).
echo "== deploy/cluster: HAProxy in front of two nodes"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
grep -q -- "--node-id" <<< "$serve_help" || echo "note: this sensei-server has no --node-id; the nodes run without it"
cluster_token=$(openssl rand -hex 16)
starts=0
start_node() { # name port: starts it (pid in $node_pid) and waits until it listens
    local name=$1 port=$2 log flags=()
    starts=$((starts + 1))
    log="$stage/$name.$starts.log"
    grep -q -- "--node-id" <<< "$serve_help" && flags=(--node-id "$name")
    SENSEI_TOKEN=$cluster_token "$bin/sensei-server" serve --data-dir "$stage/$name-data" --host 127.0.0.1 \
        --port "$port" --stream-heartbeat 1 "${flags[@]}" > "$log" 2>&1 &
    node_pid=$!
    pids+=("$node_pid")
    for _ in $(seq 100); do
        grep -qs "listening on http://127.0.0.1:$port" "$log" && return 0  # -s: the log may not exist yet
        sleep 0.1
    done
    cat "$log" >&2
    return 1
}
lb_port=$(free_port)
stats_port=$(free_port)
port_a=$(free_port)
port_b=$(free_port)
lb="http://127.0.0.1:$lb_port"
statistic() { # proxy server column: one field of HAProxy's statistics (CSV)
    curl -s --max-time 2 "http://127.0.0.1:$stats_port/;csv" | awk -F, -v p="$1" -v s="$2" -v c="$3" '$1 == p && $2 == s { print $c }'
}
status_of() { statistic sensei_api "$1" 18; }  # UP, DOWN, or on the way ("UP 1/3")
until_status() { # node state: waits (at most 15 s) until HAProxy says so
    for _ in $(seq 150); do
        [ "$(status_of "$1")" = "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
both_up() { until_status node-a UP && until_status node-b UP; }
through() { # curl flags…: one request through HAProxy; prints "code node" (never fails)
    local code
    : > "$stage/through.headers"
    code=$(curl -s --max-time 10 -o /dev/null -D "$stage/through.headers" -w '%{http_code}' "$@") || true
    echo "$code $(tr -d '\r' < "$stage/through.headers" | sed -n 's/^x-sensei-node: //Ip')"
}
if start_node node-a "$port_a" && start_node node-b "$port_b" && node_b=$node_pid; then
    SENSEI_LISTEN=127.0.0.1:$lb_port SENSEI_STATS_LISTEN=127.0.0.1:$stats_port \
    SENSEI_NODE_A=127.0.0.1:$port_a SENSEI_NODE_B=127.0.0.1:$port_b \
        haproxy -db -f "$cluster/haproxy.cfg" > "$stage/haproxy.log" 2>&1 &
    pids+=("$!")
    holds "HAProxy starts and finds both nodes UP" both_up
    answers=""
    for _ in 1 2 3 4; do answers+="$(through "$lb/health"),"; done
    echo "GET /health through HAProxy, 4 times: $answers"
    holds "GET /health through HAProxy reaches node-a" grep -q "200 node-a" <<< "$answers"
    holds "…and node-b" grep -q "200 node-b" <<< "$answers"
    auth=(-H "Authorization: Bearer $cluster_token")
    writes=""
    for _ in 1 2; do writes+="$(through "${auth[@]}" -d '{"value": 21.5}' "$lb/sensors/porch/data"),"; done
    reads=""
    for _ in 1 2; do reads+="$(through "${auth[@]}" "$lb/sensors"),"; done
    echo "through HAProxy with the one token: POSTs $writes GETs $reads"
    holds "the pre-shared token writes through both nodes" grep -q "201 node-a,201 node-b,\|201 node-b,201 node-a," <<< "$writes"
    holds "…and reads through both" grep -q "200 node-a,200 node-b,\|200 node-b,200 node-a," <<< "$reads"
    stream=$(curl -sN --max-time 10 -D "$stage/stream.headers" "${auth[@]}" "$lb/stream?timeout=2" || true)
    event_stream() { grep -qi "^content-type: text/event-stream" "$1" && grep -q "^: heartbeat" <<< "$2"; }
    holds "GET /stream through HAProxy: an event stream, heartbeats pass unbuffered" \
        event_stream "$stage/stream.headers" "$stream"
    holds "…through the stream backend" test "$(statistic sensei_stream BACKEND 8)" -ge 1

    # node-b stops (SIGTERM): HAProxy marks it DOWN and answers through node-a,
    # every request of the meanwhile too (refused connections are redispatched).
    kill -TERM "$node_b"
    if wait "$node_b"; then ok "node-b: stopped cleanly on SIGTERM"; else fail "node-b: exit status $? after SIGTERM"; fi
    meanwhile=""
    for _ in $(seq 150); do
        meanwhile+="$(through "$lb/health" | cut -d' ' -f1) "
        [ "$(status_of node-b)" = DOWN ] && break
        sleep 0.1
    done
    holds "HAProxy marks the stopped node-b DOWN (within 15 s)" test "$(status_of node-b)" = DOWN
    echo "GET /health through HAProxy until then: $meanwhile"
    if ! tr ' ' '\n' <<< "$meanwhile" | grep -qv '^200$\|^$'; then
        ok "every request meanwhile answered 200 ($(wc -w <<< "$meanwhile") of them)"
    else
        grep -v ' 20[01] ' "$stage/haproxy.log" >&2 || true
        fail "a request answered otherwise while node-b was going DOWN"
    fi
    answers=""
    for _ in 1 2 3 4; do answers+="$(through "${auth[@]}" "$lb/sensors"),"; done
    holds "node-b DOWN: every request answered by node-a ($answers)" test "$answers" = "200 node-a,200 node-a,200 node-a,200 node-a,"
    holds "HAProxy logged node-b DOWN" grep -q "Server sensei_api/node-b is DOWN" "$stage/haproxy.log"

    # node-b back on its port: UP again, and answering.
    if start_node node-b "$port_b"; then
        holds "node-b restarted: HAProxy marks it UP again" until_status node-b UP
        answers=""
        for _ in 1 2 3 4; do answers+="$(through "$lb/health"),"; done
        holds "…and sends it requests again ($answers)" grep -q "200 node-b" <<< "$answers"
    else
        fail "node-b did not start again on port $port_b"
    fi
else
    fail "the cluster's nodes did not start"
fi

# ---- the Containerfile's runtime packages ------------------------------------------
# Every library the binaries link must come from a package the run stage
# installs, or one debian:bookworm-slim has (libc6, libgcc-s1, libstdc++6 for
# apt, libtinfo6 for bash, zlib1g for dpkg).
runtime=$(sed -n '/^FROM debian:bookworm-slim/,$p' deploy/Containerfile |
          sed -n '/apt-get install/,/rm -rf/p' | tr -c 'A-Za-z0-9.+-' '\n' | grep -E '^lib.*[0-9]$|^ca-certificates$' || true)
missing=""
for binary in sensei-server sensei; do
    while read -r library; do
        path=$(ldd "$bin/$binary" | awk -v l="$library" '$1 == l { print $3 }')
        package=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1 || true)
        [ -z "$package" ] && package=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1 || true)
        case " libc6 libgcc-s1 libstdc++6 libtinfo6 zlib1g $(echo "$runtime" | tr '\n' ' ') " in
            *" $package "*) ;;
            *) missing+=" $binary:$library(${package:-no package})" ;;
        esac
    done < <(readelf -d "$bin/$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
echo "Containerfile run stage installs: $(echo "$runtime" | tr '\n' ' ')"
holds "Containerfile's runtime packages cover the binaries' libraries${missing:+ (missing:$missing)}" test -z "$missing"

tally deploy
