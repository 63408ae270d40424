# Shared by the verify scripts (sourced): a fixture root whose counters the
# scripted workload (fake-workload.sh) moves, and the checks' helpers.
# The sourcing script sets here (its directory) and name; this sets top,
# sluice (the script's first argument, else the tree's), and tmp, a scratch
# directory sluice-NAME.XXXXXX removed at exit.
top=$(cd "$here/../.." && pwd)
sluice=$(realpath "${1:-$top/sluice}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sluice-$name.XXXXXX")
SLUICE_PROFILES=$top/profiles   # the shipped profiles, whichever binary runs
export SLUICE_PROFILES
faker=""
cleanup() { [ -n "$faker" ] && kill "$faker" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

ok() { echo "ok verify/$1"; }
fail() { echo "FAIL verify/$1"; shift; for l in "$@"; do echo "  $l"; done; }

# fresh NAME [HARM [HELP]]: a new fixture root and database, the workload running.
fresh() {
    [ -n "$faker" ] && kill "$faker" 2>/dev/null && wait "$faker" 2>/dev/null
    rm -rf "$tmp/root" "$tmp/db"*
    cp -a "$top/tests/fixtures/modern" "$tmp/root"
    sh "$here/fake-workload.sh" "$tmp/root" "${2:-none}" "${3:-none}" &
    faker=$!
    S="$sluice --root $tmp/root --db $tmp/db"
}
stop_workload() { [ -n "$faker" ] && kill "$faker" 2>/dev/null && wait "$faker" 2>/dev/null; faker=""; }
ratio() { cat "$tmp/root/proc/sys/vm/dirty_ratio"; }
state() { $S sessions 2>&1 | awk 'NR == 2 { print $4 }'; }  # purpose is two words
# wait_for TEXT FILE: up to 10 s for TEXT to appear in FILE.
wait_for() { i=0; while [ $i -lt 100 ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }
# wait_ratio VALUE: up to 5 s for vm.dirty_ratio to hold VALUE.
wait_ratio() { i=0; while [ $i -lt 50 ] && [ "$(ratio)" != "$1" ]; do sleep 0.1; i=$((i + 1)); done; }
