#!/usr/bin/env bash
# Sets up and starts sensei-server on its defaults: port 3000, data in
# ./sensei-data, an admin token generated on first start. Extra arguments go
# to the server (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product sensei-server
exec .build/release/sensei-server "$@"
