#!/bin/sh
# The fault loop (SQLite's model, test/alterfault.test): each command runs
# again and again with SLUICE_FAULT=POINT:N for N = 1, 2, ... until it no
# longer reaches the Nth call at POINT (see src/core/fault.h). After every
# run it asserts:
#   - no crash (exit below 128) and, when the command failed, a message on
#     stderr besides the "fault injected" line; no message, failed or
#     warned, that is only "DB: [step: ]interrupted" (what was left, what
#     to do);
#   - every knob of the fixture as before when the command failed (for the
#     commands that change knobs: set, apply, probe), and, whatever the
#     command did, every knob back at the fixture's value once `restore
#     --crashed` and `restore` ran without a fault;
#   - PRAGMA integrity_check ok and no session left open after
#     `restore --crashed`;
#   - the database unchanged (its dump) when a command that refused
#     (exit != 0) is one that records nothing it did not do: probe, merge;
#   - every file under the root's /etc unchanged when a command that
#     refused is all-or-nothing there: boot install (no file without its
#     manifest, no half of a reinstall, no temporary file or new empty
#     directory left).
# One line per command and point: "ok faults/loop-CMD-POINT (N runs, K failed
# clearly, S went on)"; S counts faults a command survived (a notice it
# could not print, an optional read), each still checked for the end state.
# Needs no root: fixture roots and temporary databases.
cd "$(dirname "$0")/../.." || exit 2
SLUICE=${SLUICE:-$PWD/sluice}
work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-faultloop.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP PIPE
MAX_N=${SLUICE_FAULT_MAX:-1000}

# The checks run three times a step, thousands of steps: one grep reads
# every file (a cat a file cost 20 processes a call, the loop's largest
# share of make check's time).
knobs() { # the values of every vm knob and block queue file of the root, FILE:VALUE
    (cd "$1" && find proc/sys/vm sys/block -type f -print0 2>/dev/null | sort -z | xargs -0 grep -H '' 2>/dev/null)
}
dump() { sqlite3 "$1" .dump 2>&1; }
files() { # every file, link and directory under the root's /etc, with its content or target
    (cd "$1" && { find etc \( -type l -printf '%p -> %l\n' \) -o \( -type d -printf '%p/\n' \) 2>/dev/null
                 find etc -type f -exec md5sum {} + 2>/dev/null; } | sort)
}

# loop NAME POINT CHECKS PREP-COMMAND -- COMMAND...
#   CHECKS: "knobs" (a failure leaves the knobs as they were before the
#   command), "db" (and the database too), "files" (and every file under
#   the root's /etc: no file written, none left half-way, no temporary
#   file), "-" (only the end state).
#   PREP-COMMAND (a shell string, run without a fault on the fresh root and
#   database, in $work) sets the scene; COMMAND is sluice's arguments.
cp -a tests/fixtures/modern "$work/root"
knobs "$work/root" > "$work/knobs.fixture"
#   STEP (default 1): try every STEPth N, for commands that reach hundreds.
loop() {
    name=$1 point=$2 checks=$3 prep=$4; shift 5
    n=1 refused=0 swallowed=0 problems="" runs=0
    while [ "$n" -le "$MAX_N" ]; do
        rm -rf "$work/root" "$work/t.db" "$work/t.db-wal" "$work/t.db-shm" "$work/out"
        cp -a tests/fixtures/modern "$work/root"
        (cd "$work" && SLUICE="$SLUICE" root="$work/root" db="$work/t.db" sh -c "$prep") > /dev/null 2>&1
        knobs "$work/root" > "$work/knobs.before"
        files "$work/root" > "$work/files.before"
        [ -f "$work/t.db" ] && dump "$work/t.db" > "$work/db.before"
        (cd "$work" && SLUICE_FAULT="$point:$n" "$SLUICE" --root "$work/root" --db "$work/t.db" "$@") \
            > "$work/out" 2>&1 < /dev/null
        rc=$?
        grep -q "^sluice: fault injected at $point:$n\$" "$work/out" || break
        at="N=$n"
        [ "$rc" = 0 ] && swallowed=$((swallowed + 1))
        # a failed step says what it left and what to do: never a bare
        # "DB: [step: ]interrupted" (refused, or warned and went on)
        bare=$(grep -v "fault injected" "$work/out" | grep -E '^sluice: (warning: )?[^ ]+: ([^:;.]+: )?interrupted\.?$' | head -1)
        [ -z "$bare" ] || problems="$problems|$at: exit $rc, a bare message: $bare"
        if [ "$rc" -ge 128 ]; then problems="$problems|$at: died (exit $rc): $(tail -2 "$work/out" | tr '\n' ' ')"
        elif [ "$rc" != 0 ]; then
            refused=$((refused + 1))
            grep -v "fault injected" "$work/out" | grep -q . ||
                problems="$problems|$at: exit $rc with no message"
            case $checks in *knobs*|*db*)
            knobs "$work/root" | cmp -s "$work/knobs.before" - ||
                problems="$problems|$at: exit $rc left knobs changed: $(knobs "$work/root" | diff "$work/knobs.before" - | grep '^>' | head -2 | tr '\n' ' ')"
            esac
            case $checks in *files*)
            files "$work/root" | cmp -s "$work/files.before" - ||
                problems="$problems|$at: exit $rc left files changed: $(files "$work/root" | diff "$work/files.before" - | grep '^[<>]' | head -3 | tr '\n' ' ')"
            esac
            case $checks in *db*)
            if [ -f "$work/db.before" ] && ! dump "$work/t.db" | cmp -s "$work/db.before" -; then
                problems="$problems|$at: refused, but the database changed"
            fi
            esac
        fi
        "$SLUICE" --root "$work/root" --db "$work/t.db" restore --crashed > /dev/null 2>&1
        "$SLUICE" --root "$work/root" --db "$work/t.db" restore > /dev/null 2>&1
        knobs "$work/root" | cmp -s "$work/knobs.fixture" - ||
            problems="$problems|$at (exit $rc): knobs not back after restore: $(knobs "$work/root" | diff "$work/knobs.fixture" - | grep '^>' | head -2 | tr '\n' ' ')"
        if [ -f "$work/t.db" ]; then
            ic=$(sqlite3 "$work/t.db" "PRAGMA integrity_check" 2>&1)
            [ "$ic" = ok ] || problems="$problems|$at: integrity_check: $ic"
            op=$(sqlite3 "$work/t.db" "SELECT count(*) FROM sessions WHERE state = 'open'" 2>&1)
            [ "$op" = 0 ] || problems="$problems|$at: $op session(s) left open after restore"
        fi
        n=$((n + ${STEP:-1})) runs=$((runs + 1))
    done
    if [ "$runs" -eq 0 ]; then echo "FAIL faults/loop-$name-$point: the command never reached $point"; return; fi
    every=""; [ "${STEP:-1}" = 1 ] || every=" (every ${STEP}th N)"
    if [ "$n" -gt "$MAX_N" ]; then problems="$problems|still reaching $point at N=$MAX_N"; fi
    if [ -n "$problems" ]; then
        echo "FAIL faults/loop-$name-$point ($runs runs$every)"
        echo "$problems" | tr '|' '\n' | grep . | head -8 | sed 's/^/  /'
    else
        echo "ok faults/loop-$name-$point ($runs runs$every, $refused failed clearly, $swallowed went on)"
    fi
}

newdb='"$SLUICE" --root "$root" --db "$db" create-db'
held='"$SLUICE" --root "$root" --db "$db" set vm.swappiness=20 vm.dirty_ratio=25 block.sda.read_ahead_kb=512'
probed='"$SLUICE" --root "$root" --db "$db" probe null --time 100ms --ramp 0'

for p in sqlite_step sysfs_write; do
    loop set "$p" knobs "$newdb" -- set vm.swappiness=20 vm.dirty_ratio=25 block.sda.read_ahead_kb=512
    loop restore "$p" - "$held" -- restore
    loop apply "$p" knobs "$newdb" -- apply --profiles "$PWD/profiles" throughput
done
loop probe sqlite_step db "$probed" -- probe null --time 100ms --ramp 0
loop profile-save write - "$newdb" -- profile save --profiles "$work" mine
# boot install: all or nothing. A failed install leaves /etc as it was: no
# file without its manifest, no half of a reinstall, no temporary file, no
# directory it created.
installed='"$SLUICE" --root "$root" --db "$db" boot install hdd-streaming'
loop boot-install write "knobs files" "$newdb" -- boot install hdd-streaming
loop boot-reinstall write "knobs files" "$installed" -- boot install throughput
# merge: a refused merge leaves the database as it was (SQLite's model: the
# transaction or nothing)
"$SLUICE" --root "$work/root" --db "$work/src.orig.db" probe null --time 100ms --ramp 0 > /dev/null 2>&1
merged='cp src.orig.db src.db && "$SLUICE" --root "$root" --db "$db" create-db'
STEP=11
loop merge sqlite_step db "$merged" -- merge src.db
STEP=1
# ... and a step of ours that fails never becomes a verdict on the file: the
# file is sluice's own, so no message may call it foreign, altered or
# corrupt (the old check read a failed read of our own schema as "has a
# table that is not part of sluice's schema": 32 of the first 400 steps).
blamed=""
n=1
while [ "$n" -le 120 ]; do
    rm -f "$work/b.db" "$work/b.db-wal" "$work/b.db-shm"
    "$SLUICE" --root "$work/root" --db "$work/b.db" create-db > /dev/null 2>&1
    SLUICE_FAULT="sqlite_step:$n" "$SLUICE" --root "$work/root" --db "$work/b.db" merge "$work/src.orig.db" > "$work/b.out" 2>&1
    grep -q "fault injected" "$work/b.out" || break
    grep -qE "not part of sluice's schema|on an unknown table|that is not sluice's|not a sluice database|corrupt" "$work/b.out" &&
        blamed="$blamed N=$n: $(grep -v 'fault injected' "$work/b.out" | head -1)|"
    n=$((n + 1))
done
if [ -z "$blamed" ]; then echo "ok faults/merge-fault-not-blamed-on-the-file ($((n - 1)) steps)"
else echo "FAIL faults/merge-fault-not-blamed-on-the-file"; echo "$blamed" | tr '|' '\n' | head -3 | sed 's/^/  /'; fi
# ... and a push whose step fails never publishes this machine's own state:
# a snapshot that leaves holds no session, snapshot or other local row (the
# old export read a failed listing of the tables as the end of the list and
# pushed sessions and snapshots: sqlite_step:21..23).
if command -v zstd > /dev/null; then
    leaked="" n=1
    rm -f "$work/l.db"*
    "$SLUICE" --root "$work/root" --db "$work/l.db" set vm.swappiness=20 > /dev/null 2>&1
    "$SLUICE" --root "$work/root" --db "$work/l.db" restore > /dev/null 2>&1
    "$SLUICE" --root "$work/root" --db "$work/l.db" probe null --time 50ms --ramp 0 > /dev/null 2>&1
    while [ "$n" -le 200 ]; do
        rm -rf "$work/share" "$work/x.db"
        SLUICE_FAULT="sqlite_step:$n" "$SLUICE" --root "$work/root" --db "$work/l.db" push "file://$work/share" > "$work/l.out" 2>&1
        grep -q "fault injected" "$work/l.out" || break
        for f in $(find "$work/share" -name '*.sluicedb.zst' 2>/dev/null); do
            zstd -qdc "$f" > "$work/x.db"
            own=$(sqlite3 "$work/x.db" "SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM snapshots)" 2>&1)
            [ "$own" = 0 ] || leaked="${leaked}N=$n: $own session or snapshot rows in $(basename "$f")|"
        done
        n=$((n + 1))
    done
    if [ -z "$leaked" ]; then echo "ok faults/push-fault-never-publishes-local-state ($((n - 1)) steps)"
    else echo "FAIL faults/push-fault-never-publishes-local-state"; echo "$leaked" | tr '|' '\n' | head -3 | sed 's/^/  /'; fi
else
    echo "skip faults/push-fault-never-publishes-local-state: zstd is not installed"
fi
