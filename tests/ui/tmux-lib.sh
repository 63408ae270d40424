# Sourced by tmux.sh and tmux-keys.sh: sluice in a real terminal, tmux on a
# private socket running a shell on a copy of the modern fixture ($ROOT,
# $DB); tm, pane, wait_for, wait_until, fail, run_sluice; shot NAME saves
# the pane as $SLUICE_SHOTS/NAME.txt when SLUICE_SHOTS is set. $1: sluice.
sluice=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$(cd "$here/../fixtures" && pwd)
if ! command -v tmux > /dev/null; then
    echo "skip ui/tmux: tmux is not installed (it is in the Makefile's TEST_DEBS)"
    exit 0
fi
sock=sluice-test-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-tmux.XXXXXX)
trap 'tmux -L "$sock" kill-server 2> /dev/null; rm -rf "$tmp"' EXIT INT TERM
cp -a "$fixtures/modern" "$tmp/root"
ROOT=$tmp/root DB=$tmp/sluice.db

tm() { tmux -L "$sock" "$@"; }
pane() { tm capture-pane -p -t t; }
alt() { tm display -p -t t '#{alternate_on}'; }
# Wait (up to 20 s) until the pane shows a text; 1 if it never does.
wait_for() {
    i=0
    while [ $i -lt 200 ]; do
        pane | grep -q -- "$1" && return 0
        sleep 0.1; i=$((i + 1))
    done
    return 1
}
# Wait (up to 20 s) until a shell condition on the pane holds.
wait_until() {
    i=0
    while [ $i -lt 200 ]; do
        eval "$1" && return 0
        sleep 0.1; i=$((i + 1))
    done
    return 1
}
fail() {
    echo "FAIL $name"
    echo "  $1"
    pane | sed 's/^/  | /'
    failed=1
}

tm -f /dev/null new-session -d -s t -x 80 -y 24 "env -i PATH=$PATH HOME=$tmp TERM=screen LANG=C.UTF-8 PS1='sh\$ ' sh"
tm set -g status off
wait_for 'sh\$' || { echo "FAIL ui/tmux: the shell in tmux did not start"; exit 0; }
run_sluice() {
    tm send-keys -t t "clear; stty -g > $tmp/stty.before; $sluice --root $ROOT --db $DB; echo EXIT=\$?; stty -g > $tmp/stty.after" Enter
}

# The pane as text into $SLUICE_SHOTS/NAME.txt (the captures a note shows).
shot() {
    [ -n "$SLUICE_SHOTS" ] || return 0
    mkdir -p "$SLUICE_SHOTS" && pane > "$SLUICE_SHOTS/$1.txt"
}
