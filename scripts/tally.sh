# shellcheck shell=bash
# scripts/tally.sh: the pass/fail bookkeeping shared by deploy/check.sh and
# examples/check.sh. Sourced, not run.
#
#   ok LABEL / fail LABEL     count a check (failures go to stderr)
#   holds LABEL COMMAND…      ok if the command succeeds, fail otherwise
#   tally NAME                print "NAME: n passed, m failed"; false if any failed
passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
holds() {
    local label=$1; shift
    if "$@"; then ok "$label"; else fail "$label"; fi
}
tally() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
