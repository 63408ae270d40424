#!/bin/sh
# torture — the store under concurrent use: the UI (headless, a key script)
# runs a probe on its job thread, which opens a connection of its own, then
# stays open while other sluice processes work on the same database for
# TORTURE_SECONDS (default 20; 180 with SLUICE_LONG, as make check-long
# sets): history, report, probes (one a round SIGKILLed at a varying
# moment), set and restore, a profile applied and put back (apply, off),
# push and pull through a file:// share. Then the UI runs a second probe.
# Afterwards:
#   - PRAGMA integrity_check is ok;
#   - every run a process was told was stored (a probe's --json uuid) is there,
#     the UI's two included;
#   - the UI's -wal was never unlinked under it (/proc/PID/fd, polled: the
#     data loss of a database checked with open()/close() while SQLite held
#     it, which dropped the process's POSIX locks).
# Everything runs on a fixture root; the UI in tmux on a private socket.
# Prints "ok torture/NAME" or "FAIL torture/NAME: why" like the other suites.
# Usage: run.sh [SLUICE]
cd "$(dirname "$0")/../.." || exit 2
sluice=$(realpath "${1:-./sluice}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-torture.XXXXXX)
trap '[ -n "$TORTURE_KEEP" ] || rm -rf "$tmp"' EXIT INT TERM
export TMPDIR="$tmp"
SLUICE_PROFILES=$(pwd)/profiles
export SLUICE_PROFILES
cp -a tests/fixtures/modern "$tmp/root"
mkdir "$tmp/w"
db=$tmp/sluice.db
S() { "$sluice" --root "$tmp/root" --db "$db" "$@"; }
ok() { echo "ok torture/$1${2:+: $2}"; }
fail() { echo "FAIL torture/$1: $2"; }

S --json probe null --time 100ms --ramp 0 --no-canary 2>/dev/null | jq -r '.[].uuid' > "$tmp/acked"
# the UI in a real terminal (tmux on a private socket): its Probe screen,
# null (a fixture root's default), Time 300ms, Ramp 0: a workload no other
# process here runs, so its runs can be counted apart
if ! command -v tmux > /dev/null; then echo "skip torture/store-under-the-ui: tmux is not installed"; exit 0; fi
sock=sluice-torture-$$
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2> /dev/null; [ -n "$TORTURE_KEEP" ] || rm -rf "$tmp"' EXIT INT TERM
uiruns() { sqlite3 -cmd ".timeout 10000" "$db" "SELECT count(*) FROM runs r JOIN workloads w ON w.hash = r.workload_hash WHERE w.spec LIKE '%time_ms=300%'" 2>/dev/null; }
# Wait (up to 30 s) until the UI has stored $1 runs.
wait_ui_runs() {
    for _ in $(seq 1 300); do [ "$(uiruns)" = "$1" ] && return 0; sleep 0.1; done
    return 1
}
tm -f /dev/null new-session -d -s t -x 100 -y 30 \
    "env -i PATH=$PATH HOME=$tmp TMPDIR=$tmp TERM=screen LANG=C.UTF-8 $sluice --root $tmp/root --db $db; sleep 600"
tm set -g status off
sleep 1
for k in F4 Down Down Down Down Down Enter 300ms Enter Down Enter 0 Enter s; do tm send-keys -t t "$k"; sleep 0.1; done
wait_ui_runs 1 || { echo "FAIL torture/store-under-the-ui: the UI's first probe was not stored"; tm capture-pane -p -t t | sed 's/^/  | /'; exit 0; }
uipid=$(pgrep -P "$(tm display -p -t t '#{pane_pid}')" -f "db $db" | head -1)
[ -n "$uipid" ] || uipid=$(tm display -p -t t '#{pane_pid}')
n=0 killed=0 deleted=""
seconds=${TORTURE_SECONDS:-$([ -n "$SLUICE_LONG" ] && echo 180 || echo 20)}
end=$(( $(date +%s) + seconds - 2 ))
while [ "$(date +%s)" -lt "$end" ]; do
    n=$((n + 1))
    S history > /dev/null 2>&1
    S --json probe null --time 50ms --ramp 0 --no-canary --seed "$n" 2>> "$tmp/probe.err" | jq -r '.[].uuid' >> "$tmp/acked"
    S probe randread --dir "$tmp/w" --size 8M --time 2s --ramp 0 --no-canary --seed "$((n + 1000))" > /dev/null 2>&1 &
    p=$!
    sleep "0.$(( (n * 7) % 9 + 1 ))"
    kill -KILL "$p" 2>/dev/null && killed=$((killed + 1))
    wait "$p" 2>/dev/null
    S set vm.swappiness=$((n % 50 + 10)) > /dev/null 2>&1
    S restore > /dev/null 2>&1
    S apply latency > /dev/null 2>&1
    S off > /dev/null 2>&1
    S push "file://$tmp/share" > /dev/null 2>&1
    S pull "file://$tmp/share" > /dev/null 2>&1
    S report "$(head -1 "$tmp/acked")" > /dev/null 2>&1
    ls -l "/proc/$uipid/fd" 2>/dev/null | grep -q -- '-wal (deleted)' && deleted="the UI's -wal was unlinked under it after round $n"
done
# the UI's second probe, after all that: stored, or lost to an unlinked WAL
tm send-keys -t t s
wait_ui_runs 2
tm send-keys -t t F10
sleep 1
uirc=0
kill -0 "$uipid" 2> /dev/null && [ "$(uiruns)" != 2 ] && uirc=running
uiruns=$(uiruns)
missing=0
while read -r u; do
    [ -n "$u" ] || continue
    [ "$(sqlite3 -cmd ".timeout 10000" "$db" "SELECT count(*) FROM runs WHERE uuid = '$u'" 2>/dev/null)" = 1 ] || missing=$((missing + 1))
done < "$tmp/acked"
nacked=$(grep -c . "$tmp/acked")
integrity=$(sqlite3 -cmd ".timeout 10000" "$db" "PRAGMA integrity_check" 2>&1 | head -3 | tr '\n' ' ')
sw=$(cat "$tmp/root/proc/sys/vm/swappiness")

if [ -n "$deleted" ]; then fail wal-kept-under-the-ui "$deleted"
else ok wal-kept-under-the-ui "$n rounds of other commands beside it, $killed probes SIGKILLed"; fi
if [ "$integrity" != "ok " ]; then fail integrity "$integrity"; else ok integrity; fi
if [ "$uirc" != 0 ] || [ "$uiruns" != 2 ]; then
    fail ui-writes-kept "$uiruns of the UI's 2 runs are stored; its screen: $(tm capture-pane -p -t t | grep -v '^ *$' | tail -4 | tr '\n' ' ')"
else ok ui-writes-kept "both of the UI's runs stored"; fi
if [ "$missing" != 0 ]; then fail acknowledged-writes-kept "$missing of $nacked acknowledged runs missing; the probes said: $(sort -u "$tmp/probe.err" | head -3 | tr '\n' ' ')"
else ok acknowledged-writes-kept "$nacked acknowledged runs, all stored"; fi
dr=$(cat "$tmp/root/proc/sys/vm/dirty_ratio")
if [ "$sw" != 60 ] || [ "$dr" != 20 ]; then fail knobs-put-back "vm.swappiness left at $sw, vm.dirty_ratio at $dr"
else ok knobs-put-back; fi
shared=$(find "$tmp/share" -name '*.sluicedb.zst' 2>/dev/null | wc -l)
[ "$shared" -ge 1 ] && ok pushed-beside-the-ui "$shared object(s) pushed and pulled back $n times" ||
    fail pushed-beside-the-ui "nothing was pushed to $tmp/share"
