#!/usr/bin/env bash
# Posts a Raspberry Pi's CPU temperature to Sensei once; run it from cron or a
# systemd timer (see README.md). No buffering: a reading taken while the server
# is away is lost (post_readings.py keeps them).
#
#   SENSEI_URL=http://sensei.local:3000 SENSEI_TOKEN=… ./post-reading.sh
#
# Environment:
#   SENSEI_URL          the server, e.g. http://sensei.local:3000 (required)
#   SENSEI_TOKEN        a token with write scope (required)
#   SENSEI_CODE         sensor code (default pi_cpu_temperature)
#   SENSEI_THERMAL_FILE where the kernel gives millidegrees
#                       (default /sys/class/thermal/thermal_zone0/temp)
#   SENSEI_CA_FILE      CA certificate for an https:// server with a private CA
#   SENSEI_DRY_RUN=1    print the request instead of sending it
#
# It sends {"value":48.312}: no timestamp, so the server stamps it on receipt
# (the reading is seconds old). examples/check.sh compares that body with
# examples/fixtures/raspberry-pi-sh.pi_cpu_temperature.json, which a server
# test posts: change them together.
set -euo pipefail

: "${SENSEI_URL:?set SENSEI_URL, e.g. http://sensei.local:3000}"
: "${SENSEI_TOKEN:?set SENSEI_TOKEN to a token with write scope}"
code=${SENSEI_CODE:-pi_cpu_temperature}
thermal=${SENSEI_THERMAL_FILE:-/sys/class/thermal/thermal_zone0/temp}

millidegrees=$(<"$thermal")
if ! [[ $millidegrees =~ ^-?[0-9]+$ ]]; then
    echo "post-reading.sh: $thermal does not hold millidegrees: '$millidegrees'" >&2
    exit 1
fi
# 48312 -> 48.312 in integer arithmetic (no bc on a minimal Pi OS).
sign=""
if (( millidegrees < 0 )); then sign="-"; millidegrees=$(( -millidegrees )); fi
value=$(printf '%s%d.%03d' "$sign" $(( millidegrees / 1000 )) $(( millidegrees % 1000 )))
body="{\"value\":$value}"
url="${SENSEI_URL%/}/sensors/$code/data"

if [ "${SENSEI_DRY_RUN:-}" = 1 ]; then
    printf 'POST %s\n%s\n' "$url" "$body"
    exit 0
fi

tls=()
[ -n "${SENSEI_CA_FILE:-}" ] && tls=(--cacert "$SENSEI_CA_FILE")
# The token goes through a header read from stdin (-H @-), not the command
# line, so other users cannot see it in `ps`.
response=$(printf 'Authorization: Bearer %s\n' "$SENSEI_TOKEN" |
    curl --silent --show-error --max-time 15 --retry 2 "${tls[@]}" \
         -H @- -H 'Content-Type: application/json' --data-binary "$body" \
         --write-out '\n%{http_code}' "$url")
status=${response##*$'\n'}
if [ "$status" != 201 ]; then
    echo "post-reading.sh: POST $url: HTTP $status ${response%$'\n'*}" >&2
    exit 1
fi
