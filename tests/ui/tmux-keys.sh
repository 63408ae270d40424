#!/bin/sh
# What a tig/htop user does in a real terminal (#31 items 3, 4, 5, 7): costs
# on the forms before s, keys, mouse clicks, comparing, profiles through
# their lifecycle. Each test drives sluice in tmux and reads the pane.
# Usage: tmux-keys.sh SLUICE; SLUICE_TMUX_ONLY=GLOB runs the tests whose
# names match; SLUICE_SHOTS=DIR keeps the panes they look at.
. "$(dirname "$0")/tmux-lib.sh"

want() { case "$1" in ${SLUICE_TMUX_ONLY:-*}) return 0 ;; esac; return 1; }
fresh_db() { DB=$tmp/$1.db; }
quit_sluice() {
    tm send-keys -t t q
    [ -z "$failed" ] && { wait_for 'EXIT=' || fail "q did not quit"; }
}

# A profile applied and kept from the Profiles screen is the profile in
# force for 'sluice active' and 'sluice off' (it used its own trial before).
t_profile_lifecycle() {
    name=ui/tmux-profile-lifecycle failed=
    fresh_db profile
    run_sluice
    if ! wait_for F1Help; then fail "the UI did not start"; return; fi
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

want tmux-profile-lifecycle && t_profile_lifecycle
exit 0
