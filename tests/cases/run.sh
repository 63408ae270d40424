#!/bin/sh
# Data-driven CLI cases (curl's tests/data model): each folder under
# tests/cases holds
#   cmd       shell lines; "sluice ARGS" runs the binary under test with
#             --root $ROOT --db $DB, "sluice-bare ARGS" without them
#   expect    the transcript: "$ line", its output (stdout then stderr),
#             "[exit N]" when N != 0; UUIDs, times and pids normalised
#   fixture   the fixture root to copy to $ROOT (default: modern)
# Each case has its own TMPDIR ($TMP/tmpdir): what another sluice on the
# machine left in /tmp (a killed pull's sluice-share.* directory, which
# restore --crashed sweeps and names) is not in any case's transcript.
# "lockpid" prints the pid the tuning lock ($ROOT/run/sluice/lock) names.
# Usage: run.sh SLUICE [LABEL]; SLUICE_BLESS=1 rewrites expect files.
sluice=$(realpath "$1")
label=${2:+-$2}
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$(cd "$here/../fixtures" && pwd)
# Shipped profiles from the source tree, shown as @PROFILES@ in transcripts.
SLUICE_PROFILES=$(cd "$here/../../profiles" 2>/dev/null && pwd)
export SLUICE_PROFILES

normalise() {
    sed -E -e "s#$tmp#@TMP@#g" -e "s#${SLUICE_PROFILES:-@PROFILES@}#@PROFILES@#g" \
        -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/@UUID@/g' \
        -e 's/session [0-9a-f]{8}/session @ID@/g' -e 's/verification [0-9a-f]{8}/verification @ID@/g' \
        -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}Z?/@TIME@/g' \
        -e 's/pid [0-9]+/pid @PID@/g' \
        -e 's/\.sluice-probe\.[0-9]+\.[A-Za-z0-9]{6}/.sluice-probe.@PID@.@RAND@/g' -e 's/probe process [0-9]+/probe process @PID@/g' \
        -e 's/^[0-9a-f]{8}( +)/@ID@\1/' -e 's/(@TIME@ +)[0-9]+/\1@PID@/' \
        -e 's/after [0-9]+ ms/after @MS@ ms/g' \
        -e '/^evaluation [0-9]+( of [0-9]+)? \(/d' \
        -e 's/([^ ])   +/\1  /g'
}

run_case() {
    dir=$1
    tmp=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-case.XXXXXX)
    fixture=modern
    [ -f "$dir/fixture" ] && fixture=$(cat "$dir/fixture")
    cp -a "$fixtures/$fixture" "$tmp/root"
    mkdir -m 1777 "$tmp/tmpdir"   # as /tmp: a case may run a command as another user (setpriv)
    ROOT=$tmp/root DB=$tmp/sluice.db TMP=$tmp
    SLUICE_BIN=$sluice SLUICE_MAN=$here/../../man/sluice.8 SLUICE_CASE_CMD=$dir/cmd
    export ROOT DB TMP SLUICE_BIN SLUICE_MAN SLUICE_CASE_CMD
    mkdir "$tmp/bin"
    # tee.sh keeps every --json document for tests/schema/validate.py
    tee=$here/../schema/tee.sh SLUICE_JSON_DIR=$tmp.json   # beside $TMP, which cases list
    export SLUICE_JSON_DIR
    printf '#!/bin/sh\nexec sh "%s" "%s" --root "$ROOT" --db "$DB" "$@"\n' "$tee" "$sluice" > "$tmp/bin/sluice"
    printf '#!/bin/sh\nexec sh "%s" "%s" "$@"\n' "$tee" "$sluice" > "$tmp/bin/sluice-bare"
    # lockpid: the pid the tuning lock of the root names (its "pid N" line).
    printf '#!/bin/sh\nsed -n "s/^pid //p" "$ROOT/run/sluice/lock"\n' > "$tmp/bin/lockpid"
    chmod 755 "$tmp/bin/sluice" "$tmp/bin/sluice-bare" "$tmp/bin/lockpid"
    out=$tmp/transcript
    : > "$out"
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in ''|'#'*) continue ;; esac
        printf '$ %s\n' "$line" >> "$out"
        (cd "$tmp" && PATH="$tmp/bin:$PATH" && TMPDIR="$tmp/tmpdir" && export TMPDIR && eval "$line") > "$tmp/o" 2> "$tmp/e" < /dev/null
        rc=$?
        cat "$tmp/o" "$tmp/e" >> "$out"
        [ $rc -ne 0 ] && echo "[exit $rc]" >> "$out"
    done < "$dir/cmd"
    normalise < "$out" > "$tmp/actual"
    name=cases$label/$(basename "$dir")
    if [ -n "$SLUICE_BLESS" ] && [ -z "$label" ]; then
        cp "$tmp/actual" "$dir/expect"
    fi
    # One write per case, so parallel cases do not interleave their reports.
    # Every --json document the case printed, against its command's schema.
    : > "$tmp/schema"
    [ -d "$tmp.json" ] && python3 "$here/../schema/validate.py" "$tmp.json" | normalise > "$tmp/schema"
    if [ -f "$dir/expect" ] && diff -u "$dir/expect" "$tmp/actual" > "$tmp/diff" && [ ! -s "$tmp/schema" ]; then
        echo "ok $name"
    else
        { echo "FAIL $name"
          [ -f "$dir/expect" ] && sed 's/^/  /' "$tmp/diff" | head -40 || echo "  no expect file"
          sed 's/^/  /' "$tmp/schema" | head -20; } > "$tmp/report"
        cat "$tmp/report"
    fi
    rm -rf "$tmp" "$tmp.json"
}

# SLUICE_CASE_DIR: run just that case (used for parallel runs).
if [ -n "$SLUICE_CASE_DIR" ]; then run_case "$SLUICE_CASE_DIR"; exit 0; fi

# SLUICE_CASES="a b": only those cases; SLUICE_JOBS=N: N cases at a time.
list=""
for dir in "$here"/*/; do
    [ -f "$dir/cmd" ] || continue
    n=$(basename "$dir")
    if [ -n "$SLUICE_CASES" ]; then case " $SLUICE_CASES " in *" $n "*) ;; *) continue ;; esac; fi
    list="$list ${dir%/}"
done
jobs=${SLUICE_JOBS:-2}
if [ "$jobs" -gt 1 ]; then
    for d in $list; do echo "$d"; done |
        xargs -P "$jobs" -I{} env SLUICE_CASE_DIR={} sh "$0" "$1" "$2"
else
    for d in $list; do run_case "$d"; done
fi
exit 0
