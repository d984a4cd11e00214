#!/usr/bin/env bash
# Installs what the build needs and runs every test (extra arguments go to swift test).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The import tests read files written by InfluxDB's real influx_inspect, which
# Debian does not package: built once from Debian's influxdb source into .build.
INFLUX_INSPECT=$(scripts/influx-inspect.sh)
export INFLUX_INSPECT
swift test "$@"
