#!/usr/bin/env bash
# Installs what the build needs and runs every test (extra arguments go to swift test).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift test "$@"
