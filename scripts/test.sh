#!/usr/bin/env bash
# Installs what the build needs and runs every test (extra arguments go to swift test).
# Two passes: the whole suite on SQLite (the default), then the server's
# behaviour tests again on a real PostgreSQL the tests start themselves
# (SENSEI_TEST_BACKEND=postgresql; tests of SQLite itself skip there).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The import tests read files written by InfluxDB's real influx_inspect, which
# Debian does not package: built once from Debian's influxdb source into .build.
INFLUX_INSPECT=$(scripts/influx-inspect.sh)
export INFLUX_INSPECT
# At most 8 tests at once (docs/testing.md, "How the tests work"): Swift
# Testing starts every test together on a pool of as many threads as cores,
# and each resumed test waits behind every other running test's work.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}
swift test "$@"
echo "=== the server's tests again on PostgreSQL"
SENSEI_TEST_BACKEND=postgresql swift test --skip-build --filter SenseiServerTests "$@"
