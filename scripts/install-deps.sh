#!/usr/bin/env bash
# Installs the Debian packages Sensei builds against, if any is missing.
# Needs root or sudo the first time; a no-op once they are there.
set -euo pipefail

# Extra package names may be given as arguments (bench/run.sh adds wrk).
# openssl and curl: the TLS tests make a certificate and talk HTTPS with them.
# zlib: gzip bodies; libssl: SHA-256 from libcrypto; libpq: the PostgreSQL client (SenseiPostgres);
# libmosquitto: the MQTT subscriber; mosquitto and its
# clients: the broker the MQTT tests start on loopback and publish through.
# influxdb: the InfluxDB 1.6 the InfluxQL differential test answers against.
# tzdata: the time zones energy usage is counted in (/usr/share/zoneinfo).
# postgresql: the server the PostgreSQL backend's tests start on a private port.
packages=(pkg-config libmicrohttpd-dev libsqlite3-dev libncurses-dev zlib1g-dev libmosquitto-dev libssl-dev libpq-dev
          mosquitto mosquitto-clients tmux openssl curl influxdb tzdata postgresql "$@")
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
