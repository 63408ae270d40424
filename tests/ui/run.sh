#!/bin/sh
# UI tests (tig's model): each folder tests/ui/NAME holds
#   keys      the key script (see ui/input.h): keys, ":dump-screen", <Wait>, <Resize 100x30>
#   expect    what the run prints: every dumped screen (the last one is the
#             screen at exit), then "--- stderr ---" and "--- after ---"
#             sections when they are not empty
#   fixture   fixture root to copy to $ROOT (default modern)
#   env       extra environment, one VAR=value a line (SLUICE_SIZE, SLUICE_ASCII, ...)
#   setup     shell lines run before sluice starts ($ROOT, $DB, $TMP, sluice on PATH)
#   after     shell lines run after it ended; their output is compared too
#   normalise a sed -E script for what a real run measures (numbers, graphs),
#             applied to what the run printed after the common normalisation
# sluice runs headless (SLUICE_HEADLESS=1) in C.UTF-8 unless env says else.
# Then tmux.sh drives the real terminal. Usage: run.sh [SLUICE] [LABEL];
# SLUICE_BLESS=1 rewrites the expect files.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
sluice=$(realpath "${1:-$top/sluice}")
label=${2:+-$2}
fixtures=$top/tests/fixtures

normalise() {
    sed -E -e "s#$tmp#@TMP@#g" -e "s#$top#@TOP@#g" \
        -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/@UUID@/g' \
        -e 's/(session|Session|trial|verification) [0-9a-f]{8}/\1 @ID@/g' -e 's#/[0-9a-f]{8}$#/@ID@#' -e 's#/[0-9a-f]{8}:#/@ID@:#' \
        -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}Z?/@TIME@/g' \
        -e 's/pid [0-9]+/pid @PID@/g' -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}/@TIME@/g' \
        -e 's/^(  |A |A    |B    )[0-9a-f]{8}/\1@ID@/' -e 's/(B = |search )[0-9a-f]{8}/\1@ID@/' \
        -e 's/^[0-9a-f]{8}( +)/@ID@\1/' -e 's/(@TIME@ +)[0-9]+/\1@PID@/' -e 's/(Run|batch|run|Search) [0-9a-f]{8}/\1 @ID@/g' \
        -e 's/^(Dirty +[0-9.]+ [KMGT]?i?B +)[^ ]+ +writeback/\1@METER@ writeback/' \
        -e 's/^(  |A )@ID@ [0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} /\1@ID@ @TIME@ /' \
        -e 's/^((  |A )@ID@ @TIME@ [a-z0-9]+ +[0-9a-f-]+ +)[0-9a-f]{8} /\1@ID@ /' \
        -e 's/(the same every evaluation, at most |writing \(at most )[0-9.]+ [KMGT]?i?B/\1@BYTES@/' \
        -e 's/[0-9.]+ [KMGT]?i?B free under/@FREE@ free under/g' -e 's/which has [0-9.]+ [KMGT]?i?B free/which has @FREE@ free/' \
        -e 's/((repetition|evaluation)s? of [0-9]+) in [0-9hms.]+/\1 in @CLOCK@/' \
        -e 's/((repetition|evaluation) [0-9]+( of [0-9]+)?), .*elapsed.*$/\1, @CLOCK@ elapsed/'
}
# The Dirty meter grows one sample per redraw tick: how many it shows depends
# on timing, so only its presence is compared (@METER@). The forms' costs
# name this host's free space and memory (@FREE@, @BYTES@); progress lines
# the time a worker took (@CLOCK@).

run_test() {
    dir=$1
    name=ui$label/$(basename "$dir")
    # /tmp, not the suite's TMPDIR: a transcript shows the path where a
    # command wraps it (80 columns), so its length is part of the expected
    # output; each case gets its own directory and its own TMPDIR inside it
    tmp=$(mktemp -d /tmp/sluice-ui.XXXXXX)
    fixture=modern
    [ -f "$dir/fixture" ] && fixture=$(cat "$dir/fixture")
    extra=
    [ -f "$dir/normalise" ] && extra=$dir/normalise
    cp -a "$fixtures/$fixture" "$tmp/root"
    # The shipped profiles from a path of fixed length: screens show it, and
    # an 80-column line must cut it at the same place in any checkout.
    cp -a "$top/profiles" "$tmp/profiles"
    mkdir "$tmp/bin"
    printf '#!/bin/sh\nexec "%s" --root "%s" --db "%s" "$@"\n' "$sluice" "$tmp/root" "$tmp/sluice.db" > "$tmp/bin/sluice"
    chmod 755 "$tmp/bin/sluice"
    (
        cd "$tmp" || exit 1
        ROOT=$tmp/root DB=$tmp/sluice.db TMP=$tmp PATH="$tmp/bin:$PATH"
        export ROOT DB TMP PATH
        [ -f "$dir/setup" ] && sh -e "$dir/setup" > "$tmp/setup.out" 2>&1
        env LANG=C.UTF-8 LC_ALL=C.UTF-8 SLUICE_HEADLESS=1 SLUICE_PROFILES="$tmp/profiles" SLUICE_SHARE_URL="file://$tmp/share" SLUICE_SIZE=80x24 TERM=xterm-256color \
            $( [ -f "$dir/env" ] && grep -v '^#' "$dir/env" ) \
            SLUICE_KEYS="$dir/keys" SLUICE_DUMP="$tmp/dump" \
            timeout 60 sluice ui > "$tmp/stdout" 2> "$tmp/stderr" < /dev/null
        echo "[exit $?]" >> "$tmp/stdout"
        [ -f "$dir/after" ] && sh "$dir/after" > "$tmp/after.out" 2>&1
    )
    {
        cat "$tmp/dump" 2>/dev/null
        cat "$tmp/stdout"
        if [ -s "$tmp/stderr" ]; then echo "--- stderr ---"; cat "$tmp/stderr"; fi
        # tables printed by commands: column widths follow pids, so runs of blanks count as two
        if [ -s "$tmp/after.out" ]; then echo "--- after ---"; sed -E 's/([^ ])   +/\1  /g' "$tmp/after.out"; fi
    } | normalise | sed -E -f "${extra:-/dev/null}" > "$tmp/actual"
    if [ -n "$SLUICE_BLESS" ] && [ -z "$label" ]; then cp "$tmp/actual" "$dir/expect"; fi
    if [ -f "$dir/expect" ] && diff -u "$dir/expect" "$tmp/actual" > "$tmp/diff"; then
        echo "ok $name"
    else
        echo "FAIL $name"
        if [ -f "$dir/expect" ]; then sed 's/^/  /' "$tmp/diff" | head -60; else echo "  no expect file"; fi
    fi
    rm -rf "$tmp"
}

for dir in "$here"/${SLUICE_UI_ONLY:-*}/; do
    [ -f "$dir/keys" ] && run_test "${dir%/}"
done
# The same scripts under the sanitizers, when that build exists.
if [ -z "$label" ] && [ -x "$top/build/asan/sluice" ] && [ -z "$SLUICE_BLESS" ]; then
    ASAN_OPTIONS=detect_leaks=1 sh "$0" "$top/build/asan/sluice" asan
    exit 0
fi
# The real terminal (tmux): always, or when SLUICE_UI_ONLY names tmux.
case "${SLUICE_UI_ONLY:-tmux}" in
tmux*) [ -z "$label" ] && sh "$here/tmux.sh" "$sluice" && sh "$here/tmux-keys.sh" "$sluice" ;;
esac
exit 0
