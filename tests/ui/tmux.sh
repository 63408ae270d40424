#!/bin/sh
# sluice in a real terminal: tmux on a private socket runs a shell, the test
# types into it, resizes the window and reads the pane. Checks that keys and
# resizes work, that quitting and SIGTERM give the terminal back as it was
# (alternate screen left, stty modes equal) and put back a trial session.
# Usage: tmux.sh SLUICE
. "$(dirname "$0")/tmux-lib.sh"

# On the Knobs screen, vm.dirty_ratio (its first row) set to the keys given
# and applied: a trial session is open.
apply_dirty_ratio() {
    tm send-keys -t t F3; wait_for 'KNOB .*VALUE'
    tm send-keys -t t Enter; wait_for 'Enter accept'
    tm send-keys -t t "$@" Enter; wait_for 'pending:'
    tm send-keys -t t a
    wait_for 'is on trial' || fail "apply did not open a trial"
}

# After sluice ended ($1: how), the terminal is as it was before.
terminal_back() {
    [ -z "$failed" ] && [ "$(alt)" != 0 ] && fail "the alternate screen is still on $1"
    [ -z "$failed" ] && { cmp -s "$tmp/stty.before" "$tmp/stty.after" || fail "stty settings differ $1: $(cat "$tmp/stty.before") vs $(cat "$tmp/stty.after")"; }
}

# 1. keys and resizes in a real terminal
name=ui/tmux-keys-resize failed=
run_sluice
if ! wait_for F1Help; then fail "the UI did not draw its key bar"
elif [ "$(alt)" != 1 ]; then fail "not on the alternate screen"
else
    tm send-keys -t t F3
    wait_for 'KNOB .*VALUE' || fail "F3 did not open the Knobs screen"
    tm resize-window -t t -x 100 -y 30
    [ -z "$failed" ] && { wait_until '[ "$(pane | sed -n 30p | grep -c F1Help)" = 1 ]' || fail "after resizing to 100x30 the key bar is not on line 30"; }
    [ -z "$failed" ] && { pane | head -1 | grep -qE '^.{80}.*test root *$' || fail "the title bar did not widen to 100 columns"; }
    tm resize-window -t t -x 60 -y 20
    [ -z "$failed" ] && { wait_for 'sluice needs 80x24, this is 60x20' || fail "no too-small notice at 60x20"; }
    tm resize-window -t t -x 80 -y 24
    [ -z "$failed" ] && { wait_for 'F1Help' || fail "did not come back at 80x24"; }
    tm send-keys -t t q
    [ -z "$failed" ] && { wait_for 'EXIT=0' || fail "q did not quit"; }
    terminal_back "after quitting"
fi
[ -z "$failed" ] && echo "ok $name"

# 2. a trial put back by quitting; the terminal restored
name=ui/tmux-quit-puts-back failed=
run_sluice
if ! wait_for F1Help; then fail "the UI did not start again"
else
    apply_dirty_ratio 4 0
    [ -z "$failed" ] && { [ "$(cat "$ROOT/proc/sys/vm/dirty_ratio")" = 40 ] || fail "apply did not write vm.dirty_ratio=40"; }
    tm send-keys -t t q
    [ -z "$failed" ] && { wait_for 'Changes on trial' || fail "q with a trial open did not ask"; }
    tm send-keys -t t R
    [ -z "$failed" ] && { wait_for 'EXIT=0' || fail "R in the quit dialog did not quit"; }
    [ -z "$failed" ] && { pane | grep -q 'quit: put back the knobs of session' || fail "no note about putting the knobs back"; }
    [ -z "$failed" ] && { [ "$(cat "$ROOT/proc/sys/vm/dirty_ratio")" = 20 ] || fail "vm.dirty_ratio was not put back to 20"; }
    terminal_back "after quitting"
fi
[ -z "$failed" ] && echo "ok $name"

# 3. SIGTERM while a trial is open: session restored, terminal restored
name=ui/tmux-sigterm failed=
run_sluice
if ! wait_for F1Help; then fail "the UI did not start again"
else
    apply_dirty_ratio 3 3
    pid=$(sed -n 's/^pid //p' "$ROOT/run/sluice/lock" 2> /dev/null)
    [ -z "$failed" ] && [ -z "$pid" ] && fail "no pid in the tuning lock $ROOT/run/sluice/lock"
    [ -z "$failed" ] && kill -TERM "$pid"
    [ -z "$failed" ] && { wait_for 'EXIT=143' || fail "sluice did not exit with 143 after SIGTERM"; }
    [ -z "$failed" ] && { pane | grep -q 'interrupted: put back the knobs of session' || fail "no note about putting the knobs back"; }
    [ -z "$failed" ] && { [ "$(cat "$ROOT/proc/sys/vm/dirty_ratio")" = 20 ] || fail "vm.dirty_ratio was not put back after SIGTERM"; }
    terminal_back "after SIGTERM"
fi
[ -z "$failed" ] && echo "ok $name"

# 4. a real probe on the worker thread: the UI answers keys while it runs,
#    x cancels it, the aborted run is stored and no scratch file is left
name=ui/tmux-probe-cancel failed=
mkdir "$tmp/scratch"
run_sluice
if ! wait_for F1Help; then fail "the UI did not start again"
else
    tm send-keys -t t F4; wait_for 'Probe settings'
    tm send-keys -t t Right Down Enter; wait_for 'Directory'
    tm send-keys -t t C-u "$tmp/scratch" Enter
    tm send-keys -t t Down Down Down Enter C-u 16M Enter Down Enter C-u 60s Enter Down Enter C-u 0 Enter
    wait_for '60s' || fail "could not set the probe's time"
    tm send-keys -t t s
    [ -z "$failed" ] && { wait_for 'measuring' || fail "seqwrite did not reach its measuring phase"; }
    tm send-keys -t t F2
    [ -z "$failed" ] && { wait_for 'Key knobs' || fail "F2 did not switch screens while the probe ran"; }
    tm send-keys -t t F4
    [ -z "$failed" ] && { wait_for 'measuring' || fail "the probe was not running any more after switching back"; }
    tm send-keys -t t x
    [ -z "$failed" ] && { wait_for 'cancelled' || fail "x did not cancel the probe"; }
    [ -z "$failed" ] && [ -n "$(ls -A "$tmp/scratch")" ] && fail "scratch files left after cancelling: $(ls -A "$tmp/scratch")"
    tm send-keys -t t q
    [ -z "$failed" ] && { wait_for 'EXIT=0' || fail "q did not quit after the cancelled probe"; }
    [ -z "$failed" ] && { "$sluice" --root "$ROOT" --db "$DB" history | grep -q 'seqwrite.*aborted' || fail "no aborted seqwrite run in the history"; }
fi
[ -z "$failed" ] && echo "ok $name"

# 5. a search cancelled from its screen: its session is put back and the
#    search is left resumable
name=ui/tmux-search-cancel failed=
run_sluice
if ! wait_for F1Help; then fail "the UI did not start again"
else
    tm send-keys -t t F5; wait_for 'Search settings'
    tm send-keys -t t Down Down Down Down Down Down Down Enter C-u "$tmp/scratch" Enter
    tm send-keys -t t Down Enter C-u 1s Enter Down Enter C-u 0 Enter
    wait_for '1s' || fail "could not set the search's probe time"
    tm send-keys -t t s
    [ -z "$failed" ] && { wait_for 'baseline  ' || fail "no trial appeared"; }
    tm send-keys -t t x
    [ -z "$failed" ] && { wait_for 'interrupted after' || fail "x did not stop the search"; }
    [ -z "$failed" ] && { [ "$(cat "$ROOT/proc/sys/vm/dirty_ratio")" = 20 ] || fail "vm.dirty_ratio not put back after the cancel"; }
    [ -z "$failed" ] && { "$sluice" --root "$ROOT" --db "$DB" search --list | grep -q interrupted || fail "the search is not marked interrupted"; }
    [ -z "$failed" ] && [ -n "$(ls -A "$tmp/scratch")" ] && fail "scratch files left after cancelling: $(ls -A "$tmp/scratch")"
    tm send-keys -t t q
    [ -z "$failed" ] && { wait_for 'EXIT=0' || fail "q did not quit after the cancelled search"; }
fi
[ -z "$failed" ] && echo "ok $name"

# 6. a probe's --idle-before wait shows as its own state on the real clock
#    ("idle before", N of M s without I/O), not as the state before it
name=ui/tmux-probe-idle-wait failed=
DB=$tmp/idle.db   # a fresh database: the form's remembered values are the defaults (null)
run_sluice
if ! wait_for F1Help; then fail "the UI did not start again"
else
    tm send-keys -t t F4; wait_for 'Probe settings'
    tm send-keys -t t Down Down Down Down Down Down Down Down Down Down Down Down Down Enter C-u 20s Enter
    wait_for 'Idle before *20s' || fail "could not set Idle before"
    tm send-keys -t t s
    [ -z "$failed" ] && { wait_for 'run 1/1  idle before .* of 20\.0 s without I/O' || fail "the wait was not shown as idle before"; }
    [ -z "$failed" ] && { wait_for 'run 1/1  idle before .* [2-9]\.[0-9] of 20\.0 s without I/O' || fail "the wait's clock did not advance"; }
    tm send-keys -t t x
    [ -z "$failed" ] && { wait_for 'cancelled' || fail "x did not cancel the probe in its wait"; }
    tm send-keys -t t q
    [ -z "$failed" ] && { wait_for 'EXIT=0' || fail "q did not quit after the cancelled probe"; }
fi
[ -z "$failed" ] && echo "ok $name"
exit 0
