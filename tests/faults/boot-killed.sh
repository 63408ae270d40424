#!/bin/sh
# `boot install` SIGKILLed at every step that changes a file under the root
# (SLUICE_FAULT=kill:N for N = 1, 2, ... until the install no longer reaches
# the Nth create, write, fsync, rename, symlink, unlink, mkdir or rmdir: see
# src/core/fault.h), on a fixture root. After each kill the next boot
# command (`boot status`) must leave /etc either exactly as it was before
# the install or exactly as the install leaves it uninterrupted, and say so:
#   torn      /etc is neither (files, links and directories with their
#             content; an empty /etc/sluice is tolerated: sluice's own
#             directory, which `boot remove` keeps too)
#   dirs      as torn, but only directories differ (new empty ones)
#   disagree  /etc is one of them but `boot status` does not print (on
#             stdout: notes of what it settled go to stderr) what it prints
#             for that state; or the same install, run again, fails
#             or leaves /etc otherwise than the uninterrupted one; or `boot
#             remove` then fails or leaves a file or link of sluice
#   tmp       a temporary file (.NAME.PID.N.tmp) is still there after the
#             status, install or remove that followed the kill
# One line per scenario: "ok faults/boot-killed-NAME (K kills: B as before,
# A as after)", or FAIL with the count of each problem and the first few.
# Needs no root.
cd "$(dirname "$0")/../.." || exit 2
SLUICE=${SLUICE:-$PWD/sluice}
# Some 500 installs, each with a dozen fsyncs: on tmpfs where there is one,
# not to load the disk (or wait for it).
base=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
work=$(mktemp -d "$base/sluice-bootkill.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP PIPE
MAX_N=${SLUICE_FAULT_MAX:-400}
root=$work/root

s() { "$SLUICE" --root "$root" --db "$work/t.db" "$@"; }
# Every file, link and directory under /etc with its content or target;
# temporaries apart (counted as "tmp").
tree() {
    (cd "$root" && find etc \( -type f -o -type l -o -type d \) ! -name '.*.tmp' 2>/dev/null | sort | while read -r f; do
        if [ -L "$f" ]; then printf '%s -> %s\n' "$f" "$(readlink "$f")"
        elif [ -d "$f" ]; then [ "$f" = etc/sluice ] && ! ls -A "$f" | grep -qv '^\..*\.tmp$' || printf '%s/\n' "$f"
        else printf '%s %s\n' "$f" "$(md5sum < "$f")"; fi
    done)
}
temps() { (cd "$root" && find etc -name '.*.tmp' 2>/dev/null | sort | tr '\n' ' '); }
leaves() { (cd "$root" && find etc \( -type f -o -type l \) ! -name '.*.tmp' 2>/dev/null | sort); }
# The fixture once; boot commands change nothing outside /etc, so each run
# starts from a fresh copy of /etc alone.
cp -a tests/fixtures/modern "$root"
cp -a "$root/etc" "$work/etc.fixture"
fresh() { # prep
    rm -rf "$root/etc" "$work/t.db" "$work/t.db-wal" "$work/t.db-shm"
    cp -a "$work/etc.fixture" "$root/etc"
    (SLUICE="$SLUICE" root="$root" db="$work/t.db" sh -c "$1") > /dev/null 2>&1
}

# scenario NAME PREP -- ARGS...: PREP (a shell string, run on the fresh
# root) sets the scene; ARGS is the `boot install` that is killed.
scenario() {
    name=$1 prep=$2; shift 3
    fresh "$prep"
    tree > "$work/tree.before"
    s boot status > "$work/status.before" 2> /dev/null
    s boot install "$@" > /dev/null 2>&1 || { echo "FAIL faults/boot-killed-$name: the install fails without a kill"; return; }
    tree > "$work/tree.after"
    s boot status > "$work/status.after" 2> /dev/null
    s boot remove > /dev/null 2>&1
    leaves > "$work/leaves.removed"
    n=1 tmpn=0 kills=0 before=0 after=0 torn=0 dirs=0 disagree=0 tmp=0 problems=""
    while [ "$n" -le "$MAX_N" ]; do
        fresh "$prep"
        SLUICE_FAULT="kill:$n" "$SLUICE" --root "$root" --db "$work/t.db" boot install "$@" > "$work/out" 2>&1 < /dev/null
        rc=$?
        grep -q "^sluice: fault injected at kill:$n\$" "$work/out" || break
        kills=$((kills + 1))
        [ "$rc" = 137 ] || problems="$problems|N=$n: exit $rc, not killed"
        s boot status > "$work/status" 2> "$work/status.err"
        t=$(temps)
        [ -z "$t" ] || { tmpn=$n; problems="$problems|N=$n: tmp: after boot status: $t"; }
        tree > "$work/tree"
        if cmp -s "$work/tree" "$work/tree.before"; then
            before=$((before + 1)) state=before
        elif cmp -s "$work/tree" "$work/tree.after"; then
            after=$((after + 1)) state=after
        elif grep -v '/$' "$work/tree" | { grep -v '/$' "$work/tree.before" | cmp -s - /dev/fd/3 ||
                grep -v '/$' "$work/tree.after" | cmp -s - /dev/fd/3; } 3<&0; then
            dirs=$((dirs + 1)) state=""
            problems="$problems|N=$n: dirs: $(diff "$work/tree.before" "$work/tree" | grep '^>' | head -4 | tr '\n' ' ')"
        else
            torn=$((torn + 1)) state=""
            problems="$problems|N=$n: torn: $(diff "$work/tree.before" "$work/tree" | grep '^[<>]' | head -4 | tr '\n' ' ') / status: $(head -1 "$work/status")"
        fi
        if [ -n "$state" ] && ! cmp -s "$work/status" "$work/status.$state"; then
            disagree=$((disagree + 1))
            problems="$problems|N=$n: disagree: /etc as $state, status says: $(cat "$work/status.err" "$work/status" | grep -v '^  ' | head -2 | tr '\n' ' ')"
        fi
        s boot install "$@" > "$work/out" 2>&1; rc=$?
        if [ "$rc" != 0 ] || ! tree | cmp -s "$work/tree.after" -; then
            disagree=$((disagree + 1))
            problems="$problems|N=$n: disagree: install again: exit $rc: $(grep '^sluice:' "$work/out" | head -1)"
        fi
        t=$(temps)
        [ -z "$t" ] || { tmpn=$n; problems="$problems|N=$n: tmp: after install: $t"; }
        s boot remove > "$work/out" 2>&1; rc=$?
        if [ "$rc" != 0 ] || ! leaves | cmp -s "$work/leaves.removed" -; then
            disagree=$((disagree + 1))
            problems="$problems|N=$n: disagree: remove: exit $rc: $(tail -1 "$work/out"); left: $(leaves | diff "$work/leaves.removed" - | grep '^>' | head -2 | tr '\n' ' ')"
        fi
        t=$(temps)
        [ -z "$t" ] || { tmpn=$n; problems="$problems|N=$n: tmp: after remove: $t"; }
        [ "$tmpn" = "$n" ] && tmp=$((tmp + 1))
        n=$((n + 1))
    done
    [ "$n" -gt "$MAX_N" ] && problems="$problems|still reaching kill:$MAX_N"
    [ "$kills" -gt 0 ] || problems="$problems|the install never reached a step"
    if [ -z "$problems" ]; then
        echo "ok faults/boot-killed-$name ($kills kills: $before as before, $after as after)"
    else
        echo "FAIL faults/boot-killed-$name ($kills kills: $before as before, $after as after; $torn torn, $dirs dirs, $disagree disagree, $tmp tmp)"
        echo "$problems" | tr '|' '\n' | grep . | head -${SLUICE_SHOW:-6} | sed 's/^/  /'
    fi
}

installed='"$SLUICE" --root "$root" --db "$db" boot install hdd-streaming'
scenario install "" -- hdd-streaming
# throughput sets no queue knob: the udev rules of the last install go
scenario reinstall "$installed" -- throughput
# another init system: the unit and its link go, an init script and links come
scenario switch-init "$installed" -- --init sysv throughput
# a line added to the administrator's rc.local, beside their own lines
scenario rclocal 'printf "#!/bin/sh\necho mine\nexit 0\n" > "$root/etc/rc.local"' -- --init rc.local hdd-streaming
