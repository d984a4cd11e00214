#!/usr/bin/env bash
# Checks the device examples without the devices:
#  1. syntax: the Python files compile (MicroPython is Python syntax), the
#     shell scripts pass `bash -n` and shellcheck (when installed);
#  2. bodies: what each example sends equals its fixture in examples/fixtures/
#     (<example>.<sensor code>.json, posted by Tests/SenseiServerTests/
#     ExampleBodiesTests.swift). The sketch's buildBody() (between the
#     "sensei-body" markers) is compiled on this machine with g++; the whole
#     sketch is compiled against stand-in Arduino headers (types and calls
#     only, it does not run); main.py is imported with stand-in hardware modules;
#  3. live, against a real sensei-server on 127.0.0.1 (skipped, saying so,
#     when no built server is found; set SENSEI_SERVER to a binary): both
#     Raspberry Pi scripts, post_readings.py first with the server away (it
#     buffers) then back (one batch), and three wake-ups of main.py with
#     stand-in hardware whose requests module talks to that server.
# Bounded: a few seconds, every wait has a limit.
set -euo pipefail
cd "$(dirname "$0")"
examples=$(pwd)
fixtures="$examples/fixtures"
work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=/dev/null
. ../scripts/tally.sh  # ok, fail, holds, tally
skip() { echo "skip: $*"; }
# Fixtures are exact bodies; one trailing newline an editor may add is ignored.
fixture() { local text; text=$(<"$fixtures/$1"); printf '%s' "$text"; }
same() { # label expected actual
    if [ "$2" = "$3" ]; then ok "$1"; else fail "$1"$'\n  expected: '"$2"$'\n  actual:   '"$3"; fi
}

# The inputs every body check uses (the fixtures were made from them).
timestamps=(1736424000 1736424300 1736424600)
temperatures=(21.4 21.6 -3.5)
humidities=(48 47.5 100)

# ---- 1. syntax ------------------------------------------------------------------
while IFS= read -r file; do
    if python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' "$file"; then
        ok "python syntax: $file"
    else
        fail "python syntax: $file"
    fi
done < <(find . -name '*.py' | sort)
while IFS= read -r file; do
    if bash -n "$file"; then ok "bash -n: $file"; else fail "bash -n: $file"; fi
    if command -v shellcheck > /dev/null; then
        if shellcheck "$file"; then ok "shellcheck: $file"; else fail "shellcheck: $file"; fi
    fi
done < <(find . -name '*.sh' | sort)
command -v shellcheck > /dev/null || skip "shellcheck not installed (apt-get install shellcheck)"

# ---- 2. bodies ----------------------------------------------------------------------
sketch="$examples/esp32-dht22/esp32-dht22.ino"
if command -v g++ > /dev/null; then
    sed -n '/BEGIN sensei-body/,/END sensei-body/p' "$sketch" > "$work/body.inc"
    cat > "$work/body-main.cpp" <<'EOF'
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include "body.inc"
// argv: n timestamps then n values; prints buildBody's output.
int main(int argc, char **argv) {
    size_t n = (size_t)(argc - 1) / 2;
    uint32_t timestamps[16];
    float values[16];
    for (size_t i = 0; i < n; i++) {
        timestamps[i] = (uint32_t)strtoul(argv[1 + i], nullptr, 10);
        values[i] = strtof(argv[1 + n + i], nullptr);
    }
    char out[2048], small[24];
    size_t length = buildBody(out, sizeof out, timestamps, values, n);
    if (length == 0) return 1;
    fwrite(out, 1, length, stdout);
    return buildBody(small, sizeof small, timestamps, values, n) == 0 ? 0 : 2;  // too small: 0
}
EOF
    if g++ -std=c++17 -Wall -Wextra -Werror -I"$work" -o "$work/body" "$work/body-main.cpp"; then
        same "esp32-dht22 temperature body = fixture" "$(fixture esp32-dht22.living_temperature.json)" \
            "$("$work/body" "${timestamps[@]}" "${temperatures[@]}")"
        same "esp32-dht22 humidity body = fixture" "$(fixture esp32-dht22.living_humidity.json)" \
            "$("$work/body" "${timestamps[@]}" "${humidities[@]}")"
    else
        fail "esp32-dht22: buildBody() does not compile"
    fi

    # The whole sketch against stand-ins with the Arduino-ESP32 and DHT
    # library signatures it uses: catches typos and type errors, not behaviour.
    mkdir -p "$work/arduino"
    cat > "$work/arduino/Arduino.h" <<'EOF'
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <ctime>
#define RTC_DATA_ATTR
class String {
  public:
    String(const char *s = "") : s_(s) {}
    String(const std::string &s) : s_(s) {}
    const char *c_str() const { return s_.c_str(); }
    friend String operator+(const String &a, const String &b) { return String(a.s_ + b.s_); }
    friend String operator+(const String &a, const char *b) { return String(a.s_ + b); }
  private:
    std::string s_;
};
struct SerialPort {
    void begin(unsigned long) {}
    int printf(const char *, ...) __attribute__((format(printf, 2, 3))) { return 0; }
    void println(const char *) {}
};
extern SerialPort Serial;
unsigned long millis();
void delay(unsigned long);
void configTime(long gmtOffset, int daylightOffset, const char *server1, const char *server2 = nullptr, const char *server3 = nullptr);
EOF
    cat > "$work/arduino/WiFi.h" <<'EOF'
#pragma once
#include "Arduino.h"
enum wl_status_t { WL_IDLE_STATUS, WL_CONNECTED };
enum wifi_mode_t { WIFI_OFF, WIFI_STA };
struct WiFiClass {
    bool mode(wifi_mode_t);
    wl_status_t begin(const char *ssid, const char *passphrase);
    wl_status_t status();
    bool disconnect(bool wifioff = false);
};
extern WiFiClass WiFi;
class WiFiClient { public: virtual ~WiFiClient() {} };
EOF
    cat > "$work/arduino/WiFiClientSecure.h" <<'EOF'
#pragma once
#include "WiFi.h"
class WiFiClientSecure : public WiFiClient {
  public:
    void setCACert(const char *rootCA);
    void setInsecure();
};
EOF
    cat > "$work/arduino/HTTPClient.h" <<'EOF'
#pragma once
#include "WiFi.h"
class HTTPClient {
  public:
    bool begin(WiFiClient &client, String url);
    void setTimeout(uint16_t timeout);
    void addHeader(const String &name, const String &value, bool first = false, bool replace = true);
    int POST(uint8_t *payload, size_t size);
    String getString();
    static String errorToString(int error);
    void end();
};
EOF
    cat > "$work/arduino/DHT.h" <<'EOF'
#pragma once
#include "Arduino.h"
#define DHT22 22
class DHT {
  public:
    DHT(uint8_t pin, uint8_t type, uint8_t count = 6);
    void begin(uint8_t usec = 55);
    float readTemperature(bool S = false, bool force = false);
    float readHumidity(bool force = false);
};
EOF
    cat > "$work/arduino/esp_sleep.h" <<'EOF'
#pragma once
#include <cstdint>
int esp_sleep_enable_timer_wakeup(uint64_t time_in_us);
void esp_deep_sleep_start();
EOF
    if g++ -std=gnu++17 -fsyntax-only -Wall -Wextra -Werror -Wno-unused-function -I"$work/arduino" \
           -include Arduino.h -x c++ "$sketch"; then
        ok "esp32-dht22.ino compiles against stand-in Arduino headers"
    else
        fail "esp32-dht22.ino does not compile against stand-in Arduino headers"
    fi
else
    skip "no g++: the sketch's body is not checked"
fi

# main.py and post_readings.py, imported as modules (their main() does not run).
cat > "$work/stubs.py" <<'EOF'
"""Stand-ins for MicroPython's hardware modules, enough to import and run main.py."""
import importlib.util
import json
import sys
import time
import types
import urllib.error
import urllib.request

time.ticks_ms = lambda: int(time.monotonic() * 1000)
time.ticks_diff = lambda a, b: a - b
time.sleep_ms = lambda ms: None

class Sleep(Exception):
    pass

machine = types.ModuleType("machine")
class RTC:
    memory_bytes = b""
    def memory(self, data=None):
        if data is None:
            return RTC.memory_bytes
        assert len(data) <= 2048, "RTC user memory is 2 KiB"
        RTC.memory_bytes = bytes(data)
machine.RTC = RTC
machine.Pin = lambda number: number
def deepsleep(ms):
    raise Sleep(ms)
machine.deepsleep = deepsleep

dht = types.ModuleType("dht")
class DHT22:
    reading = (21.4, 48.0)
    def __init__(self, pin):
        pass
    def measure(self):
        pass
    def temperature(self):
        return DHT22.reading[0]
    def humidity(self):
        return DHT22.reading[1]
dht.DHT22 = DHT22

network = types.ModuleType("network")
network.STA_IF = 0
class WLAN:
    online = False
    def __init__(self, interface):
        pass
    def active(self, on):
        pass
    def isconnected(self):
        return WLAN.online
    def connect(self, ssid, password):
        pass
network.WLAN = WLAN

ntptime = types.ModuleType("ntptime")
ntptime.settime = lambda: None

requests = types.ModuleType("requests")
class Response:
    def __init__(self, status, text):
        self.status_code, self.text = status, text
    def close(self):
        pass
requests.sent = []
def post(url, data=None, headers=None, timeout=None):
    requests.sent.append((url, data))
    request = urllib.request.Request(url, data=data.encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Response(response.status, response.read().decode())
    except urllib.error.HTTPError as error:
        return Response(error.code, error.read().decode())
    except urllib.error.URLError as error:
        raise OSError(str(error.reason))
requests.post = post

for module in (machine, dht, network, ntptime, requests):
    sys.modules[module.__name__] = module

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
EOF
bodies=$(cd "$work" && PYTHONDONTWRITEBYTECODE=1 python3 - "$examples" "${timestamps[@]}" "${temperatures[@]}" "${humidities[@]}" <<'EOF'
import sys
from stubs import load
examples, numbers = sys.argv[1], sys.argv[2:]
t, temperatures, humidities = [int(x) for x in numbers[:3]], [float(x) for x in numbers[3:6]], [float(x) for x in numbers[6:]]
micropython = load("sensei_example_micropython", examples + "/micropython/main.py")
pi = load("sensei_example_pi", examples + "/raspberry-pi/post_readings.py")
print(micropython.body(t, temperatures))
print(micropython.body(t, humidities))
print(pi.body([(1736424000, 48.312), (1736424060, 47.775)]).decode())
EOF
) || fail "importing main.py / post_readings.py"
same "micropython temperature body = fixture" "$(fixture micropython.bedroom_temperature.json)" "$(sed -n 1p <<< "$bodies")"
same "micropython humidity body = fixture" "$(fixture micropython.bedroom_humidity.json)" "$(sed -n 2p <<< "$bodies")"
same "post_readings.py body = fixture" "$(fixture raspberry-pi-py.pi_cpu_temperature.json)" "$(sed -n 3p <<< "$bodies")"

echo 48312 > "$work/thermal"
dry=$(SENSEI_URL=http://sensei.invalid:3000/ SENSEI_TOKEN=t SENSEI_THERMAL_FILE="$work/thermal" SENSEI_DRY_RUN=1 \
      raspberry-pi/post-reading.sh)
same "post-reading.sh request = fixture" \
    "POST http://sensei.invalid:3000/sensors/pi_cpu_temperature/data"$'\n'"$(fixture raspberry-pi-sh.pi_cpu_temperature.json)" "$dry"

# ---- 3. live ------------------------------------------------------------------------
server=${SENSEI_SERVER:-}
if [ -z "$server" ]; then
    for candidate in ../.build/release/sensei-server ../.build/debug/sensei-server; do
        if [ -x "$candidate" ]; then server=$candidate; break; fi
    done
fi
if [ -z "$server" ]; then
    skip "live runs: no built sensei-server (build one, or set SENSEI_SERVER)"
elif ! command -v curl > /dev/null; then
    skip "live runs: no curl"
else
    echo "live runs against $server"
    data="$work/data"
    token=$("$server" token create --data-dir "$data" --name examples --scope write)
    "$server" serve --data-dir "$data" --host 127.0.0.1 --port 0 --log-level notice 2> "$work/server.log" &
    server_pid=$!
    port=""
    for _ in $(seq 100); do
        port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$work/server.log")
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$work/server.log" >&2; echo "FAIL: the server did not start" >&2; exit 1; }
    url="http://127.0.0.1:$port"
    count() { curl -sS --max-time 5 -H "Authorization: Bearer $token" "$url/sensors/$1" |
              python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }
    values() { curl -sS --max-time 5 -H "Authorization: Bearer $token" "$url/sensors/$1/data?order=asc" |
               python3 -c 'import json,sys; print(" ".join(str(r["value"]) for r in json.load(sys.stdin)["data"]))'; }

    # post_readings.py: twice with the server away (port 1 refuses), then back.
    buffer="$work/pi-buffer.jsonl"
    run_py() { SENSEI_URL=$1 SENSEI_TOKEN=$token SENSEI_BUFFER=$buffer SENSEI_THERMAL_FILE="$work/thermal" \
               PYTHONDONTWRITEBYTECODE=1 python3 raspberry-pi/post_readings.py; }
    echo 48312 > "$work/thermal"; away1=$(run_py http://127.0.0.1:1 2>/dev/null); sleep 1.05
    echo 47775 > "$work/thermal"; away2=$(run_py http://127.0.0.1:1 2>/dev/null); sleep 1.05
    same "post_readings.py with the server away buffers" "4 lines" "$(wc -l < "$buffer" | tr -d ' ') lines"
    holds "post_readings.py says what it kept: '$away1' then '$away2'" \
        grep -q "^sent 0 readings, 4 buffered in" <<< "$away2"
    echo 46000 > "$work/thermal"; back=$(run_py "$url")
    same "post_readings.py flushes the buffer in one run" "sent 6 readings" "$back"
    holds "post_readings.py empties its buffer" test ! -e "$buffer"
    same "server holds the Pi's buffered CPU readings" "48.312 47.775 46" "$(values pi_cpu_temperature)"
    same "server holds the Pi's load readings" "3" "$(count pi_load1)"

    # post-reading.sh: one reading, stamped by the server.
    echo 51000 > "$work/thermal"
    if SENSEI_URL=$url SENSEI_TOKEN=$token SENSEI_THERMAL_FILE="$work/thermal" raspberry-pi/post-reading.sh; then
        same "post-reading.sh posted" "48.312 47.775 46 51" "$(values pi_cpu_temperature)"
    else
        fail "post-reading.sh against the server"
    fi
    if SENSEI_URL=$url SENSEI_TOKEN=wrong SENSEI_THERMAL_FILE="$work/thermal" raspberry-pi/post-reading.sh 2> "$work/err"; then
        fail "post-reading.sh with a wrong token exited 0"
    else
        holds "post-reading.sh reports a 401: $(cat "$work/err")" grep -q "HTTP 401" "$work/err"
    fi

    # main.py: wake-ups with stand-in hardware; its requests module posts for real.
    if (cd "$work" && PYTHONDONTWRITEBYTECODE=1 python3 - "$examples" "$url" "$token" <<'EOF'
import sys
import stubs
examples, url, token = sys.argv[1:]
main = stubs.load("sensei_example_micropython", examples + "/micropython/main.py")
main.SENSEI_URL, main.SENSEI_TOKEN = url, token

def wake(online, reading):
    stubs.WLAN.online = online
    stubs.DHT22.reading = reading
    stubs.requests.sent.clear()
    try:
        main.main()
    except stubs.Sleep as sleep:
        assert sleep.args[0] == main.SLEEP_SECONDS * 1000
    else:
        raise AssertionError("main() did not go to deep sleep")
    return main.load()[1]

assert len(wake(False, (21.4, 48.0))) == 1
import time; time.sleep(1.05)
assert len(wake(False, (21.6, 47.5))) == 2, "offline readings stay in RTC memory"
time.sleep(1.05)
left = wake(True, (-3.5, 100.0))
assert left == [], left
assert [u.rsplit("/", 2)[1] for u, _ in stubs.requests.sent] == ["bedroom_temperature", "bedroom_humidity"], stubs.requests.sent
assert all(body.count("timestamp") == 3 for _, body in stubs.requests.sent), "one batch of 3"

# The ring buffer keeps the newest CAPACITY readings.
main.store(0, [(1736424000 + i, i, i) for i in range(main.CAPACITY + 10)])
kept = main.load()[1]
assert len(kept) == main.CAPACITY == 255 and kept[0][0] == 1736424010, (len(kept), kept[0])
print("ok")
EOF
    ); then
        ok "main.py: two offline wake-ups buffer in RTC memory, the third sends one batch per sensor"
        same "server holds main.py's temperatures" "21.4 21.6 -3.5" "$(values bedroom_temperature)"
        same "server holds main.py's humidities" "48 47.5 100" "$(values bedroom_humidity)"
    else
        fail "main.py wake-ups against the server"
    fi

    kill -TERM "$server_pid"
    holds "server stopped cleanly on SIGTERM" wait "$server_pid"
    server_pid=""
fi

tally examples
