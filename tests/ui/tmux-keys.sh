#!/bin/sh
# What a tig/htop user does in a real terminal (#31 items 3, 4, 5, 7): costs
# on the forms before s, keys, mouse clicks, comparing, profiles through
# their lifecycle. Each test drives sluice in tmux and reads the pane.
# Usage: tmux-keys.sh SLUICE; SLUICE_TMUX_ONLY=GLOB runs the tests whose
# names match; SLUICE_SHOTS=DIR keeps the panes they look at.
. "$(dirname "$0")/tmux-lib.sh"

# A failure keeps the pane it failed on too.
fail() {
    echo "FAIL $name"
    echo "  $1"
    pane | sed 's/^/  | /'
    shot "${name#ui/}-at-failure"
    failed=1
}
want() { case "$1" in ${SLUICE_TMUX_ONLY:-*}) return 0 ;; esac; return 1; }
fresh_db() { DB=$tmp/$1.db; }
# A test's start: its name (ui/tmux-$1), a database of its own ($2), and
# sluice running in the pane; false when the UI did not start.
start_test() {
    name=ui/tmux-$1 failed=
    fresh_db "$2"
    run_sluice
    wait_for F1Help || { fail "the UI did not start"; return 1; }
}
# A test that failed half-way may leave sluice running: leave it (putting
# back any trial) before the next one starts.
leave_sluice() {
    [ "$(tm display -p -t t '#{alternate_on}')" = 1 ] || return 0
    tm send-keys -t t Escape Escape F10
    sleep 0.3
    pane | grep -q 'Changes on trial' && tm send-keys -t t R
    pane | grep -q 'Edits not applied' && tm send-keys -t t q
    wait_until '[ "$(tm display -p -t t "#{alternate_on}")" = 0 ]'
}
quit_sluice() {
    tm send-keys -t t q
    [ -z "$failed" ] && { wait_for 'EXIT=' || fail "q did not quit"; }
}

# A profile applied and kept from the Profiles screen is the profile in
# force for 'sluice active' and 'sluice off' (it used its own trial before).
t_profile_lifecycle() {
    start_test profile-lifecycle profile || return
    tm send-keys -t t F7; wait_for 'PROFILE .*FOR'
    tm send-keys -t t Down Down Down a
    wait_for 'Apply profile latency?' || fail "a did not ask"
    shot profile-apply-asks
    tm send-keys -t t y
    [ -z "$failed" ] && { wait_for 'on trial until you keep' || fail "y did not apply on trial"; }
    tm send-keys -t t K
    [ -z "$failed" ] && { wait_for 'kept' || fail "K did not keep"; }
    quit_sluice
    [ -z "$failed" ] && { "$sluice" --root "$ROOT" --db "$DB" active | grep -q '^profile latency, in force' ||
                          fail "sluice active does not name latency: $("$sluice" --root "$ROOT" --db "$DB" active)"; }
    [ -z "$failed" ] && { "$sluice" --root "$ROOT" --db "$DB" off > /dev/null; [ "$(cat "$ROOT/proc/sys/vm/dirty_ratio")" = 20 ] ||
                          fail "sluice off did not put vm.dirty_ratio back to 20"; }
    [ -z "$failed" ] && echo "ok $name"
}

# wait_for on the pane's lines joined by blanks: a sentence the screen wraps.
wait_text() { text=$1; wait_until 'pane | tr "\n" " " | sed "s/  */ /g" | grep -q -- "$text"'; }
# Press Right on the form row under the cursor until it reads $1 (at most 20).
choose() {
    i=0
    while [ $i -lt 20 ] && ! pane | grep -q -- "$1"; do tm send-keys -t t Right; sleep 0.1; i=$((i + 1)); done
    pane | grep -q -- "$1"
}
# s, then the progress line $1 while it runs (kept as shot $3) and $2 at
# its end; then quit: the test passed when nothing failed.
start_and_watch() {
    tm send-keys -t t s
    [ -z "$failed" ] && { wait_for "$1" || fail "no progress line like: $1"; }
    shot "$3"
    [ -z "$failed" ] && { wait_for "$2" || fail "no end like: $2"; }
    quit_sluice
    [ -z "$failed" ] && echo "ok $name"
}
# Type $1 into the form row under the cursor.
type_field() { tm send-keys -t t Enter C-u "$1" Enter; }

# The Probe form says what a probe writes, occupies and takes before s,
# refuses one larger than the free space, and the run counts repetitions
# with the time elapsed and left.
t_probe_cost() {
    mkdir -p "$tmp/scratch"
    start_test probe-cost probe-cost || return
    tm send-keys -t t F4; wait_for 'Probe settings'
    choose 'Workload *seqwrite' || fail "no seqwrite workload"
    tm send-keys -t t Down; type_field "$tmp/scratch"
    tm send-keys -t t Down Down Down; type_field 16M
    [ -z "$failed" ] && { wait_text 'Cost: writes 16 MiB, at most .*; .* free under '"$tmp/scratch" || fail "no cost line for 16 MiB"; }
    shot probe-cost-form
    type_field 5T
    [ -z "$failed" ] && { wait_text 'needs [0-9.]* TiB under .* free: give a smaller Size' || fail "no refusal past the free space"; }
    tm send-keys -t t s
    [ -z "$failed" ] && { wait_for 'nothing was started' || fail "s started a probe larger than the free space"; }
    shot probe-cost-refused
    tm send-keys -t t Down Down Down; type_field 3          # Repeat
    tm send-keys -t t Up Up Up; type_field 1M               # Size
    tm send-keys -t t Up Up Up Up; choose 'Workload *null'
    tm send-keys -t t Down Down Down Down Down; type_field 1s    # Time
    tm send-keys -t t Down; type_field 0                         # Ramp
    [ -z "$failed" ] && { wait_for 'Cost: writes nothing, about 3.0s' || fail "no cost line for 3 null repetitions of 1 s"; }
    start_and_watch 'repetition [12] of 3, [0-9.]*s elapsed, about [0-9.]*s left' '3 repetitions of 3 in [0-9.]*s' probe-progress
}

# The Search form shows the plan (evaluations, time, the smallest change it
# detects) and the bytes before s, refuses a budget that cannot reach a
# verdict with the reason, and the run counts evaluations of the plan.
t_search_cost() {
    mkdir -p "$tmp/scratch"
    start_test search-cost search-cost || return
    tm send-keys -t t F5; wait_for 'Search settings'
    tm send-keys -t t Down Down Down Down Down Down Down; type_field "$tmp/scratch"
    [ -z "$failed" ] && { wait_text 'Writes 1.0 GiB to calibrate, then the same burst every evaluation, about 8 s of the disk.s writing (at most [0-9.]* [KMGT]i*B), [0-9ms]* in all; .* free under' ||
                          fail "no bytes in the plan of a seqwrite search"; }
    [ -z "$failed" ] && { wait_text 'Plan: [0-9]* evaluations of about 8.5 s, about .* in all' || fail "no plan at 8.5 s an evaluation"; }
    [ -z "$failed" ] && { wait_text 'detects a change of +[0-9]*% or more' || fail "no smallest detectable change"; }
    shot search-plan-form
    tm send-keys -t t Up Up; type_field 30s
    [ -z "$failed" ] && { wait_text 'Budget cannot reach a verdict: at about 8.5 s a run it buys 3 evaluations' || fail "a 30 s budget was not refused"; }
    tm send-keys -t t s
    [ -z "$failed" ] && { wait_text 'Nothing was started' || fail "s started a search that cannot reach a verdict"; }
    shot search-budget-refused
    type_field 20
    tm send-keys -t t Up Up Up; choose 'Workload *null'
    tm send-keys -t t Down Down Down Down Down Down; type_field 100ms
    tm send-keys -t t Down; type_field 0
    [ -z "$failed" ] && { wait_for 'Plan: 20 evaluations of about 0.6 s' || fail "no plan for 20 null evaluations"; }
    # 20 null evaluations can end in 0.4 s, before any progress line is
    # drawn (1 run in 2 failed so): the end line, which counts them of the
    # plan's 20, stands in for it then
    start_and_watch 'evaluation [0-9]* of 20, [0-9.]*s elapsed, about [0-9.]*s left\|[0-9]* evaluations of 20 in' \
        'evaluations of 20 in' search-progress
}

# A left click at column $1, line $2 (from 0) as an xterm sends it (X10
# encoding, which TERM=screen's kmous names): press, then release.
click() {
    tm send-keys -t t -l "$(printf '\033[M %b%b' "\\0$(printf %o $((33 + $1)))" "\\0$(printf %o $((33 + $2)))")"
    tm send-keys -t t -l "$(printf '\033[M#%b%b' "\\0$(printf %o $((33 + $1)))" "\\0$(printf %o $((33 + $2)))")"
    sleep 0.2
}
# The column (from 0) where text $2 starts on line $1 (from 0) of the pane.
column_of() { pane | sed -n "$(($1 + 1))p" | awk -v t="$2" '{ print index($0, t) - 1 }'; }
# The line (from 0) of the pane where text $1 is first.
line_of() { pane | grep -n -- "$1" | head -1 | cut -d: -f1 | awk '{ print $1 - 1 }'; }

# htop's and tig's keys and mouse: a click on a tab of the F-key bar, on a
# row (twice: open it) and on a button of the hint line; i turns the sort
# round; the Knobs filter narrows as it is typed and Esc clears it.
t_keys_mouse() {
    start_test keys-mouse keys || return
    click "$(column_of 23 F3Knobs)" 23
    wait_for 'KNOB .*VALUE' || fail "a click on F3Knobs did not open the Knobs screen"
    shot mouse-tab
    y=$(line_of '  dirty_expire_centisecs')
    [ -z "$failed" ] && { click 5 "$y"; click 5 "$y"; wait_for 'vm.dirty_expire_centisecs: now 3000' ||
                          fail "two clicks on the dirty_expire_centisecs row did not open its editor"; }
    tm send-keys -t t Escape
    wait_until '! pane | grep -q "Enter accept"'
    [ -z "$failed" ] && { x=$(column_of 22 '/ Filter'); click "$x" 22; wait_for 'Show knobs whose name contains' ||
                          fail "a click on the '/ Filter' button did not open the filter"; }
    tm send-keys -t t -l dirty_b
    [ -z "$failed" ] && { wait_until '! pane | grep -q dirty_expire_centisecs && pane | grep -q "  dirty_background_bytes"' ||
                          fail "typing dirty_b did not narrow the list as it was typed"; }
    shot knobs-live-filter
    tm send-keys -t t Escape
    [ -z "$failed" ] && { wait_for '  dirty_expire_centisecs' || fail "Esc did not clear the filter"; }
    tm send-keys -t t '>'
    [ -z "$failed" ] && { wait_for 'sorted by KNOB' || fail "> did not sort by KNOB"; }
    tm send-keys -t t i
    [ -z "$failed" ] && { wait_for 'sorted by KNOB, the largest first' || fail "i did not turn the sort round"; }
    [ -z "$failed" ] && { [ "$(line_of '  dirty_writeback_centisecs')" -lt "$(line_of '  dirty_bytes')" ] ||
                          fail "reversed, dirty_writeback_centisecs is not above dirty_bytes"; }
    shot knobs-reverse-sort
    quit_sluice
    [ -z "$failed" ] && echo "ok $name"
}

# Comparing what the user means: Results shows each run's configuration
# and search; a search's winner against its own baseline (c with nothing
# marked), its verdict card with the side-effects table, then both sides
# drawn on one scale (each run's MB/s, a histogram); a configuration whose runs
# differ only in their ramp is compared, the difference said (it was
# refused: "holds runs of different work: ramp_ms=0 vs ramp_ms=50").
t_compare() {
    name=ui/tmux-compare failed=
    fresh_db compare
    S="$sluice --root $ROOT --db $DB"
    $S search --workload null --budget 20 --seed 1 --time 100ms --ramp 0 > "$tmp/search.out" 2>&1
    $S probe null --repeat 3 --time 100ms --ramp 0 > /dev/null 2>&1
    $S probe null --repeat 3 --time 100ms --ramp 50ms > /dev/null 2>&1
    sid=$($S search --list | awk 'NR == 2 { print $1 }')
    run_sluice
    if ! wait_for F1Help; then fail "the UI did not start"; return; fi
    tm send-keys -t t F6
    wait_for 'RUN .*CONFIG *SEARCH' || fail "Results has no CONFIG and SEARCH columns"
    [ -z "$failed" ] && { wait_for "  [0-9a-f]\{8\} [0-9 :-]* null  *[0-9a-f]\{8\} $sid" || fail "no run shows its search $sid"; }
    shot results-columns
    tm send-keys -t t C; wait_for 'Compare by'
    tm send-keys -t t Right
    [ -z "$failed" ] && { wait_for "$sid  winner" || fail "the search groups have no winner row"; }
    y=$(line_of "$sid  winner")
    [ -z "$failed" ] && { click 5 "$y"; tm send-keys -t t c; wait_text "A: search $sid baseline .* B: search $sid winner" ||
                          fail "c on the winner did not compare it with its baseline"; }
    [ -z "$failed" ] && { wait_text 'verdict: B is better than A' || fail "no verdict for the winner against its baseline"; }
    [ -z "$failed" ] && { wait_text 'side effects of B against A' || fail "the comparison shows no side effects"; }
    shot compare-winner-baseline
    tm send-keys -t t NPage
    [ -z "$failed" ] && { wait_text 'throughput of each run, A and B' || fail "the comparison is not drawn"; }
    shot compare-winner-baseline-charts
    tm send-keys -t t Escape; tm send-keys -t t Left
    [ -z "$failed" ] && { wait_for '\[configuration\]' || fail "Left did not go back to configurations"; }
    tm send-keys -t t Home m
    # B: the configuration with the most runs after the first (the winner's)
    y=$(pane | awk 'NR > 3 && /^  +[0-9a-f]+ +[0-9]+ runs/ { if ($2 + 0 > most) { most = $2 + 0; at = NR - 1 } } END { print at }')
    [ -z "$failed" ] && [ -z "$y" ] && fail "no second configuration to compare"
    [ -z "$failed" ] && { click 5 "$y"; click 5 "$y"; wait_text 'note: the runs differ only in what is not measured (within A: ramp_ms=0 vs ramp_ms=50)' ||
                          fail "runs that differ only in their ramp were not compared with the difference said"; }
    [ -z "$failed" ] && { wait_text 'verdict: ' || fail "no verdict for the two configurations"; }
    shot compare-ramp-differs
    quit_sluice
    [ -z "$failed" ] && echo "ok $name"
}

want tmux-compare && { t_compare; leave_sluice; }
want tmux-keys-mouse && { t_keys_mouse; leave_sluice; }
want tmux-profile-lifecycle && { t_profile_lifecycle; leave_sluice; }
want tmux-probe-cost && { t_probe_cost; leave_sluice; }
want tmux-search-cost && { t_search_cost; leave_sluice; }
exit 0
