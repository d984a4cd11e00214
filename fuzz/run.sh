#!/bin/sh
# libFuzzer on SenseiModels' JSON parser, reading rules and times.
#   fuzz/run.sh [SECONDS]        default 60; crashes are kept in $WORK/crash-*
# Optional and outside the package: CI never builds it. Needs a Swift
# toolchain whose swiftc takes -sanitize=fuzzer (Linux toolchains do).
set -eu
cd "$(dirname "$0")/.."
seconds="${1:-60}"
work="${SENSEI_FUZZ_DIR:-${TMPDIR:-/tmp}/sensei-libfuzzer}"
mkdir -p "$work/corpus"
swiftc -sanitize=fuzzer,address -parse-as-library -module-name SenseiModels -O -g \
    $(find Sources/SenseiModels -name '*.swift') fuzz/ModelsFuzzer.swift -o "$work/models-fuzzer" 2>&1 \
    | grep -v "Cannot export local symbol '__asan" || true
# Seeds: the shapes devices send; libFuzzer mutates from there.
printf '%s' '{"value": 23.5}' > "$work/corpus/single"
printf '%s' '{"value": "23.5", "timestamp": "2025-01-09T12:00:00Z"}' > "$work/corpus/string"
printf '%s' '{"data": [{"timestamp": 1736424000, "value": 23.1}, {"timestamp": "2025-01-09T12:00:30.5+01:00", "value": true}]}' > "$work/corpus/batch"
printf '%s' '{"sensor_code": "temperature_ext", "value": "23.5"}' > "$work/corpus/firmware"
printf '%s' '{"code":"hum_bath","name":"Bathroom \u00e9\ud83d\ude00","units":"%","valueType":"int","retentionDays":null}' > "$work/corpus/sensor"
printf '%s' '2025-01-09T12:00:00.123Z' > "$work/corpus/time"
cd "$work"
exec ./models-fuzzer -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 corpus
