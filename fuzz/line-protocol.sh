#!/bin/sh
# libFuzzer on the line-protocol parser (Sources/SenseiLineProtocol).
#   fuzz/line-protocol.sh [SECONDS]   default 60; crashes are kept in $WORK/crash-*
# Optional and outside the package, like fuzz/run.sh; CI runs the seeded
# in-suite fuzzing (LineProtocolFuzzTests) instead.
set -eu
cd "$(dirname "$0")/.."
seconds="${1:-60}"
work="${SENSEI_FUZZ_DIR:-${TMPDIR:-/tmp}/sensei-libfuzzer}/line-protocol"
mkdir -p "$work/corpus"
swiftc -sanitize=fuzzer,address -parse-as-library -module-name LineProtocol -O -g \
    Sources/SenseiLineProtocol/LineProtocolParser.swift Sources/SenseiLineProtocol/LineProtocolText.swift \
    fuzz/LineProtocolFuzzer.swift -o "$work/line-protocol-fuzzer" 2>&1 \
    | grep -v "Cannot export local symbol '__asan" || true
printf '%s\n' 'cpu,host=a,region=us-west usage_idle=98.5,usage_user=1.2 1700000000000000000' > "$work/corpus/telegraf"
printf '%s\n' '°C,domain=sensor,entity_id=living_room value=21.3,friendly_name_str="Living room" 1700000000000000000' > "$work/corpus/ha"
printf '%s\n' 'weather,location=us\ midwest temperature=82i,ok=t,text="hot, \"dry\"" 1465839830100400200' > "$work/corpus/escapes"
printf '%s\n' '# comment' '' 'mem,host=b used=123u,avail=9.1e3,flag=FALSE -1' > "$work/corpus/types"
cd "$work"
exec ./line-protocol-fuzzer -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 corpus
