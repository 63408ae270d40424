#!/bin/sh
# Fault injection. Every case ends with the knobs as they were
# before (or restored) and the database passing PRAGMA integrity_check with no
# session left open once `restore --crashed` has run.
#   busy-begin      another process holds a write transaction: set waits one
#                   busy timeout, fails clearly, writes no knob
#   busy-end        the writer arrives while a session is held: the knobs are
#                   still put back; the session is closed by restore --crashed
#   probe-busy      a probe cannot store its run: fails clearly (exit != 0)
#   full-begin      the database's filesystem is full (root: tmpfs): no knob
#   full-end        it fills while a session is held: knobs put back anyway
#   full-between    nearly full, 0..400 KiB free: set is kept and recorded,
#                   or fails with the knob as it was and says what it holds
#   probe-enospc    a probe's directory fills mid-run (root: tiny loop ext4)
#   probe-eio       the disk under a probe starts returning EIO (root:
#                   device-mapper `error` table swapped in; needs dmsetup)
#   probe-ro        the filesystem under a probe turns read-only mid-run
#                   (root: ext4 errors=remount-ro + trigger_fs_error)
#   probe-ioerr     the device under a probe fails writes (root: loop over a
#                   backing file on a too-small tmpfs; works without dm)
#   db-ro           the database's filesystem turns read-only while a
#                   session is held (root: same mechanism)
#   merge-killed    a merge SIGKILLed inside its transaction leaves the
#                   store as it was (merge-killed.sh; no root needed)
#   boot-killed-*   boot install SIGKILLed before each of its file steps
#                   (SLUICE_FAULT=kill:N): the next boot command leaves /etc
#                   as before or as after, never torn (boot-killed.sh)
#   loop-*          set, restore, apply, probe, profile save and boot install with the Nth
#                   sqlite3_step / knob write / file write failing, for every
#                   N they reach (loop.sh, SLUICE_FAULT; no root needed)
cd "$(dirname "$0")/../.." || exit 2
SLUICE=${SLUICE:-$PWD/sluice}
work=$(mktemp -d "${TMPDIR:-/var/tmp}"/sluice-faults.XXXXXX)
mounts="" loops="" dms="" bg=""
cleanup() {
    for p in $bg; do kill -9 "-$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
    for m in $mounts; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
    for d in $dms; do dmsetup remove --force "$d" 2>/dev/null; done
    for l in $loops; do losetup -d "$l" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

ok()   { echo "ok faults/$1${2:+ ($2)}"; }
fail() { n=$1; shift; echo "FAIL faults/$n"; for l in "$@"; do echo "  $l"; done; }
waitfor() { # file pattern [tenths]
    i=0; while [ $i -lt "${3:-300}" ] && ! grep -q "$2" "$1" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
}
integrity() { sqlite3 "$1" "PRAGMA integrity_check" 2>&1; }
open_sessions() { sqlite3 "$1" "SELECT count(*) FROM sessions WHERE state = 'open'" 2>&1; }
root=$work/root
cp -a tests/fixtures/modern "$root"
swap() { cat "$root/proc/sys/vm/swappiness"; }
s() { db=$1; shift; "$SLUICE" --root "$root" --db "$db" "$@"; }

# A second process holding a write transaction for `secs`; returns once it
# holds it.
hold_writer() { # db secs
    rm -f "$work/locked"
    # Its own process group, so that release_writer ends sleep and sqlite3 together.
    setsid sh -c '{ echo "BEGIN IMMEDIATE;"; echo "UPDATE hosts SET hostname = hostname;"
                    echo ".shell touch $2/locked"; sleep "$1"; echo "COMMIT;"; } | sqlite3 "$0"' \
        "$1" "$2" "$work" > /dev/null 2>&1 &
    holder=$!; bg="$bg $holder"
    i=0; while [ $i -lt 100 ] && [ ! -f "$work/locked" ]; do sleep 0.1; i=$((i + 1)); done
}

# The holder dies without committing (its transaction rolls back).
release_writer() { kill -TERM "-$holder" 2>/dev/null; wait "$holder" 2>/dev/null; }

# Common end state: knobs as before, DB sound, no session left open after
# restore --crashed. Prints failure lines; returns non-zero on failure.
settled() { # name db want_swappiness
    problems=""
    [ "$(swap)" = "$3" ] || problems="vm.swappiness is $(swap), expected $3"
    s "$2" restore --crashed > "$work/rc.out" 2>&1 || problems="$problems; restore --crashed failed: $(cat "$work/rc.out")"
    [ "$(swap)" = "$3" ] || problems="$problems; after restore --crashed vm.swappiness is $(swap)"
    ic=$(integrity "$2"); [ "$ic" = ok ] || problems="$problems; integrity_check: $ic"
    op=$(open_sessions "$2"); [ "$op" = 0 ] || problems="$problems; $op session(s) left open"
    [ -z "$problems" ] && return 0
    fail "$1" "$problems"; return 1
}

# A tmpfs at $work/NAME mounted with OPTIONS (and mode 0700), unmounted at
# exit unless tmpfs_drop NAME unmounted it first; false when it cannot be.
tmpfs_at() { # name options
    mkdir -p "$work/$1" && mount -t tmpfs -o "$2,mode=0700" "sluice-faults-$1" "$work/$1" && mounts="$work/$1 $mounts"
}
tmpfs_drop() { umount "$work/$1" && mounts=${mounts#"$work/$1 "}; }

# A case (a function) run on a tmpfs at $work/NAME mounted with OPTIONS,
# unmounted after it; skipped, saying so under the case's name, when the
# tmpfs cannot be mounted.
on_tmpfs() { # name options case-name function
    if tmpfs_at "$1" "$2"; then "$4"; tmpfs_drop "$1"
    else echo "skip faults/$3: cannot mount a tmpfs"; fi
}

# Loop ext4 filesystems (their image under $work).
mkloopfs() { # name size_mb [dm]: sets dev, mnt
    truncate -s "${2}M" "$work/$1.img"
    dev=$(losetup -f --show "$work/$1.img") || return 1
    loops="$dev $loops"
    if [ -n "$3" ]; then
        sectors=$(blockdev --getsz "$dev")
        dmsetup create "$3" --table "0 $sectors linear $dev 0" || return 1
        dms="$3 $dms"
        dev=/dev/mapper/$3
    fi
    mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" || return 1
    mnt=$work/mnt.$1
    mkdir -p "$mnt"
    mount -o errors=remount-ro "$dev" "$mnt" || return 1
    mounts="$mnt $mounts"
}
# The function (its case named) on a small ext4 filesystem of its own at
# $mnt, unmounted and detached at exit: where a search must write, since a
# search refuses a directory in memory (tmpfs has no disk under it).
on_loopfs() { # name size_mb case-name function
    if mkloopfs "$1" "$2"; then "$4"
    else echo "skip faults/$3: could not make a loop ext4 filesystem"; fi
}

# A search or tune put the fixture's vm.dirty_ratio back (20); prints the
# failure and returns non-zero when it did not (as settled does).
dirty_ratio_back() { # name
    dr=$(cat "$root/proc/sys/vm/dirty_ratio")
    [ "$dr" = 20 ] && return 0
    fail "$1" "vm.dirty_ratio left at $dr in the fixture"; return 1
}

# `set --for DURATION vm.swappiness=30` on db, and the fault (a command and
# its arguments) done while the session is held; then rc is set's exit and
# during vm.swappiness after it ended.
held_set() { # db duration fault...
    hdb=$1 hfor=$2; shift 2
    s "$hdb" set --for "$hfor" vm.swappiness=30 > "$work/out" 2>&1 &
    setpid=$!; bg="$bg $setpid"
    waitfor "$work/out" 'held open'
    "$@"
    wait "$setpid"; rc=$?
    during=$(swap)
}

# --- SQLite busy -----------------------------------------------------------
db=$work/busy.db
s "$db" set vm.swappiness=60 > /dev/null 2>&1
hold_writer "$db" 30
# A probe waits on the same writer at the same time (its run cannot be stored).
s "$db" probe null --time 1 > "$work/probe.out" 2>&1 &
probepid=$!; bg="$bg $probepid"
s "$db" set vm.swappiness=20 > "$work/out" 2>&1; rc=$?
wait "$probepid"; prc=$?
release_writer
if [ $rc = 0 ]; then fail busy-begin "set succeeded while another process held the database"
elif ! grep -q "locked for more than" "$work/out"; then fail busy-begin "unclear message: $(cat "$work/out")"
elif settled busy-begin "$db" 60; then ok busy-begin "exit $rc: $(sed 's/.*: another/another/' "$work/out")"; fi

held_set "$db" 1s hold_writer "$db" 30
release_writer
if [ "$during" != 60 ]; then fail busy-end "knobs not put back while the database was locked: vm.swappiness=$during"
elif [ $rc = 0 ]; then fail busy-end "exit 0 although the session could not be recorded as restored" "$(cat "$work/out")"
elif settled busy-end "$db" 60; then ok busy-end "knobs put back, exit $rc, session closed by restore --crashed"; fi

if [ $prc = 0 ]; then fail probe-busy "probe exited 0 although its run could not be stored" "$(tail -2 "$work/probe.out")"
elif ! grep -q "locked for more than" "$work/probe.out"; then fail probe-busy "unclear message: $(tail -2 "$work/probe.out")"
elif [ "$(integrity "$db")" != ok ]; then fail probe-busy "integrity_check: $(integrity "$db")"
else ok probe-busy "exit $prc: $(grep '^sluice:' "$work/probe.out" | tail -1 | sed 's/.*: another/another/' | cut -c1-60)..."; fi

# --- the fault loop: every Nth statement, knob write, file write fails --------
SLUICE="$SLUICE" sh tests/faults/loop.sh

# --- a merge killed mid-transaction ---------------------------------------------
SLUICE="$SLUICE" sh tests/faults/merge-killed.sh

# --- boot install killed at every file step ---------------------------------------
SLUICE="$SLUICE" sh tests/faults/boot-killed.sh

# --- root only from here: tiny filesystems, loop devices, device-mapper --------
if [ "$(id -u)" != 0 ]; then
    for t in full-begin full-end probe-enospc probe-eio probe-ro db-ro; do echo "skip faults/$t: needs root (mount, loop devices)"; done
    exit 0
fi

# Live parts share the machine with other live suites: one at a time.
exec 9> /tmp/sluice-live.lock
flock 9

fill() { dd if=/dev/zero of="$1/fill.$$" bs=4k > /dev/null 2>&1; sync "$1" 2>/dev/null; true; }

# --- full disk under the database (tmpfs of 2 MiB: a new database writes its
# whole schema to the WAL first, over 1 MiB since migration 013) -----------
mkdir "$work/full"
if mount -t tmpfs -o size=2m,mode=0700 sluice-faults "$work/full"; then
    mounts="$work/full $mounts"
    db=$work/full/sluice.db
    s "$db" set vm.swappiness=60 > /dev/null 2>&1
    fill "$work/full"
    s "$db" set vm.swappiness=20 > "$work/out" 2>&1; rc=$?
    after=$(swap)
    rm -f "$work/full"/fill.*
    if [ $rc = 0 ]; then fail full-begin "set succeeded on a full disk" "$(cat "$work/out")"
    elif [ "$after" != 60 ]; then fail full-begin "a knob was written although the session could not be recorded"
    elif settled full-begin "$db" 60; then ok full-begin "exit $rc: $(tail -1 "$work/out" | sed "s#^sluice: $work/##")"; fi

    held_set "$db" 2s fill "$work/full"
    rm -f "$work/full"/fill.*
    if [ "$during" != 60 ]; then fail full-end "knobs not put back on a full disk: vm.swappiness=$during" "$(cat "$work/out")"
    elif settled full-end "$db" 60; then ok full-end "knobs put back; sluice exit $rc"; fi

    # Nearly full: at each amount of free space from 0 to
    # 400 KiB, `set` either succeeds and is recorded as kept, or fails with
    # the knob as it was, nothing on stdout saying "kept", and a message
    # saying what the kernel holds when it had written it.
    sqlite3 "$db" ".backup $work/template.db"
    lies="" kinds=""
    for free_k in $(seq 0 8 400); do
        rm -f "$work/full"/*
        cp "$work/template.db" "$db"
        avail=$(df --output=avail -k "$work/full" | tail -1)
        [ "$avail" -gt "$free_k" ] && dd if=/dev/zero of="$work/full/fill.$$" bs=1k count=$((avail - free_k)) > /dev/null 2>&1
        s "$db" set vm.swappiness=61 > "$work/out" 2> "$work/err"; rc=$?
        now=$(swap)
        state=$(sqlite3 "$db" "SELECT state FROM sessions ORDER BY id DESC LIMIT 1" 2>/dev/null)
        rm -f "$work/full"/fill.*
        if [ $rc = 0 ]; then
            { [ "$now" = 61 ] && [ "$state" = kept ]; } || lies="$lies; ${free_k}K: exit 0, swappiness $now, session $state"
            kinds="$kinds ok"
            s "$db" restore > /dev/null 2>&1; [ "$(swap)" = 60 ] || echo 60 > "$root/proc/sys/vm/swappiness"
        elif [ "$now" != 60 ]; then lies="$lies; ${free_k}K: exit $rc, swappiness $now: $(cat "$work/err")"; echo 60 > "$root/proc/sys/vm/swappiness"
        elif grep -q kept "$work/out"; then lies="$lies; ${free_k}K: exit $rc, stdout says kept"
        elif grep -q 'put back' "$work/err" && ! grep -q 'kernel holds.*vm.swappiness=60' "$work/err"; then
            lies="$lies; ${free_k}K: put back without saying what the kernel holds: $(cat "$work/err")"
        else kinds="$kinds $(grep -q 'put back' "$work/err" && echo putback || echo refused)"; fi
    done
    nok=$(echo "$kinds" | tr ' ' '\n' | grep -c '^ok$'); npb=$(echo "$kinds" | tr ' ' '\n' | grep -c '^putback$')
    nref=$(echo "$kinds" | tr ' ' '\n' | grep -c '^refused$')
    if [ -n "$lies" ]; then fail full-between "${lies#; }"
    else ok full-between "51 levels of free space: $nok kept, $nref refused before writing, $npb written then put back"; fi
    umount "$work/full" && mounts=""
else
    echo "skip faults/full-begin: cannot mount a tmpfs"; echo "skip faults/full-end: cannot mount a tmpfs"
fi

# --- a search whose largest dirty limit needs more than the disk holds (#13,
# bad input): the write volume is sized once, capped by the free space (an
# ext4 loop filesystem of 96 MiB under the fixture's 8.2 GiB limit), the
# sizing says so and that the largest limits will not be reached, every
# evaluation runs the one capped workload, and the fixture's knobs are put
# back ----------------------------------------------------------------------
search_capped() {
    s "$work/cap.db" search --workload seqwrite --dir "$mnt" --throttled --budget 20 --seed 1 > "$work/out" 2>&1; rc=$?
    # the search's own runs (its trials'), not the calibration's before it
    trial_runs="runs r JOIN trials t ON t.run_uuid = r.uuid"
    hashes=$(sqlite3 "$work/cap.db" "SELECT count(DISTINCT r.workload_hash) FROM $trial_runs" 2>/dev/null)
    nruns=$(sqlite3 "$work/cap.db" "SELECT count(*) FROM $trial_runs" 2>/dev/null)
    sizes=$(sqlite3 "$work/cap.db" "SELECT count(DISTINCT json_extract(r.metrics_json, '\$.spec.size_bytes')) FROM $trial_runs" 2>/dev/null)
    if [ $rc != 0 ]; then fail search-capped-by-free-space "exit $rc" "$(tail -5 "$work/out")"
    elif ! grep -Eq "only [0-9.]+ MiB is free under $mnt \(capped at half\): configurations with the largest limits will not reach their threshold" "$work/out"; then
        fail search-capped-by-free-space "the sizing does not say it was capped" "$(grep sizing "$work/out")"
    elif [ "$hashes" != 1 ] || [ "$sizes" != 1 ] || [ "${nruns:-0}" -lt 4 ]; then
        fail search-capped-by-free-space "$nruns runs, $hashes workload hashes, $sizes sizes (want 4 or more runs of one)"
    elif dirty_ratio_back search-capped-by-free-space; then
        ok search-capped-by-free-space "$nruns runs of one capped workload; $(grep -o 'the largest dirty limit the space can set is [^,]*' "$work/out")"
    fi
}
on_loopfs small 96 search-capped-by-free-space search_capped

# --- the quick tune as a user runs it (#28): no --size, no budget. One
# calibration run at the current settings sizes the burst (an ext4 loop
# filesystem of 256 MiB caps it at half its free space, and the sizing says
# so), the plan is printed before the first evaluation, every evaluation
# runs that one burst, the verdict names the burst's regime, and the knobs
# are put back.
tune_quick() {
    s "$work/quick.db" tune --quick --dir "$mnt" --seed 1 > "$work/out" 2> "$work/err"; rc=$?
    hashes=$(sqlite3 "$work/quick.db" "SELECT count(DISTINCT r.workload_hash) FROM runs r JOIN searches s ON r.workload_hash = s.workload_hash" 2>/dev/null)
    evals=$(sqlite3 "$work/quick.db" "SELECT count(*) FROM runs WHERE workload_hash = (SELECT workload_hash FROM searches)" 2>/dev/null)
    lines=$(grep -c '^evaluation [0-9]* of [0-9]* (' "$work/err")
    if [ $rc != 0 ]; then fail tune-quick-as-a-user "exit $rc" "$(tail -5 "$work/out" "$work/err")"
    elif ! grep -q '^calibration: .* written and synced at the current settings, 2 times' "$work/out" ||
         ! grep -q '^sizing: burst .* capped at half the free space under --dir' "$work/out" ||
         ! grep -q '^plan: [0-9]* evaluations of about' "$work/out"; then
        fail tune-quick-as-a-user "no calibration, capped sizing or plan line" "$(head -8 "$work/out")"
    elif grep -q '^verdict: no verdict' "$work/out" || ! grep -q '^verdict: ' "$work/out"; then
        fail tune-quick-as-a-user "no verdict" "$(grep -A1 '^verdict' "$work/out")"
    elif ! grep -q 'regime: .*a burst of' "$work/out"; then fail tune-quick-as-a-user "the regime of the burst is not said"
    elif [ "$hashes" != 1 ] || [ "${evals:-0}" -lt 20 ] || [ "$lines" != "$evals" ]; then
        fail tune-quick-as-a-user "$evals evaluations of $hashes workloads, $lines progress lines"
    elif dirty_ratio_back tune-quick-as-a-user; then
        ok tune-quick-as-a-user "$evals evaluations of one burst, $lines progress lines; $(grep '^verdict' "$work/out" | cut -c1-80)"
    fi
}
on_loopfs quick 256 tune-quick-as-a-user tune_quick

scratch_left() { find "$1" -mindepth 1 -maxdepth 1 ! -name lost+found ! -name 'fill.*' | head -3; }

# ENOSPC: the probe's free-space check passes (64 MiB of room) but the
# filesystem has no inode left for its scratch file (tmpfs nr_inodes=2: the
# root and the probe's scratch directory), so the layout write fails mid-run.
probe_enospc() {
    db=$work/probe.db
    s "$db" probe seqwrite --dir "$work/ino" --size 4M --time 1 --ramp 0 --no-canary > "$work/out" 2>&1; rc=$?
    left=$(scratch_left "$work/ino")
    if [ $rc = 0 ]; then fail probe-enospc "probe exited 0 with no room for its file" "$(tail -2 "$work/out")"
    elif ! grep -q "No space left" "$work/out"; then fail probe-enospc "unclear message: $(tail -2 "$work/out")"
    elif [ -n "$left" ]; then fail probe-enospc "scratch left behind: $left"
    elif [ "$(integrity "$db")" != ok ]; then fail probe-enospc "integrity_check: $(integrity "$db")"
    else ok probe-enospc "exit $rc, nothing left: $(grep 'No space' "$work/out" | tail -1 | sed "s#$work/##" | cut -c1-100)"; fi
}
on_tmpfs ino size=64m,nr_inodes=2 probe-enospc probe_enospc
if mkloopfs enospc 40; then
    db=$work/probe.db
    s "$db" probe seqwrite --dir "$mnt" --size 200M --time 1 > "$work/out" 2>&1; rc=$?
    if [ $rc = 0 ] || ! grep -qi "room" "$work/out"; then fail probe-enospc-refuse "exit $rc: $(tail -2 "$work/out")"
    elif [ -n "$(scratch_left "$mnt")" ]; then fail probe-enospc-refuse "scratch files left"
    else ok probe-enospc-refuse "$(head -1 "$work/out" | sed "s#$work/##" | cut -c1-110)"; fi
else
    echo "skip faults/probe-enospc-refuse: could not make a loop ext4 filesystem"
fi

# Read-only mid-run: ext4's trigger_fs_error with errors=remount-ro.
trigger_ro() { # dev-name under /sys/fs/ext4
    f=/sys/fs/ext4/$1/trigger_fs_error
    [ -w "$f" ] && echo 1 > "$f" 2>/dev/null
}
if mkloopfs ro 40 && [ -e "/sys/fs/ext4/$(basename "$dev")/trigger_fs_error" ]; then
    rodev=$(basename "$dev")
    db=$work/probe.db
    s "$db" probe seqwrite --dir "$mnt" --size 16M --time 3 --ramp 0 --no-canary > "$work/out" 2>&1 &
    ppid=$!; bg="$bg $ppid"
    sleep 0.7; trigger_ro "$rodev"
    wait "$ppid"; rc=$?
    if touch "$mnt/.rw-test" 2>/dev/null; then isro=no; else isro=yes; fi
    if [ $isro = no ]; then fail probe-ro "the filesystem did not turn read-only"
    elif [ $rc = 0 ]; then fail probe-ro "probe exited 0 on a filesystem that turned read-only" "$(tail -3 "$work/out")"
    elif [ "$(integrity "$db")" != ok ]; then fail probe-ro "integrity_check: $(integrity "$db")"
    else ok probe-ro "exit $rc: $(grep -i 'sluice:' "$work/out" | head -1 | sed "s#$work/##" | cut -c1-120)"; fi
    umount "$mnt"; mounts=$(echo "$mounts" | sed "s#$mnt##")
else
    echo "skip faults/probe-ro: no ext4 trigger_fs_error on this kernel"
fi

# The database's filesystem turns read-only while a session is held.
if mkloopfs dbro 40 && [ -e "/sys/fs/ext4/$(basename "$dev")/trigger_fs_error" ]; then
    rodev=$(basename "$dev")
    db=$mnt/sluice.db
    held_set "$db" 2s trigger_ro "$rodev"
    # Recover the filesystem and its database the way an admin would.
    umount "$mnt" && e2fsck -fy "$dev" > /dev/null 2>&1; mount "$dev" "$mnt"
    if [ "$during" != 60 ]; then fail db-ro "knobs not put back when the database turned read-only: $during" "$(cat "$work/out")"
    elif [ $rc = 0 ]; then fail db-ro "exit 0 although the session could not be recorded" "$(cat "$work/out")"
    elif settled db-ro "$db" 60; then ok db-ro "knobs put back, exit $rc, session closed by restore --crashed"; fi
else
    echo "skip faults/db-ro: no ext4 trigger_fs_error on this kernel"
fi

# Device write errors without device-mapper: ext4 on a loop device whose
# backing file lives on a tmpfs too small for it (thin provisioning run dry):
# the block layer fails the writes (BLK_STS_NOSPC, EIO inside ext4).
mkdir "$work/thin"
if mount -t tmpfs -o size=24m,mode=0700 sluice-thin "$work/thin"; then
    mounts="$work/thin $mounts"
    truncate -s 64M "$work/thin/backing.img"
    tdev=$(losetup -f --show "$work/thin/backing.img") && loops="$tdev $loops"
    mkdir -p "$work/mnt.thin"
    if [ -n "$tdev" ] && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$tdev" &&
        mount -o errors=remount-ro "$tdev" "$work/mnt.thin"; then
        mounts="$work/mnt.thin $mounts"
        db=$work/probe.db
        s "$db" probe seqwrite --dir "$work/mnt.thin" --size 40M --time 2 --ramp 0 --no-canary > "$work/out" 2>&1; rc=$?
        left=$(scratch_left "$work/mnt.thin")
        if [ $rc = 0 ]; then fail probe-ioerr "probe exited 0 on a device failing its writes" "$(tail -2 "$work/out")"
        elif ! grep -q "^sluice: " "$work/out"; then fail probe-ioerr "no error message: $(tail -2 "$work/out")"
        elif [ "$(integrity "$db")" != ok ]; then fail probe-ioerr "integrity_check: $(integrity "$db")"
        else ok probe-ioerr "exit $rc${left:+, scratch left on the failed fs}: $(grep '^sluice: ' "$work/out" | tail -1 | sed "s#$work/##" | cut -c1-110)"; fi
    else
        echo "skip faults/probe-ioerr: could not make ext4 on a loop device"
    fi
else
    echo "skip faults/probe-ioerr: cannot mount a tmpfs"
fi

# EIO: device-mapper linear over a loop, swapped to an `error` table mid-run.
if ! command -v dmsetup > /dev/null; then
    echo "skip faults/probe-eio: dmsetup is not installed (Debian package dmsetup)"
elif ! dmsetup version > /dev/null 2>&1; then
    echo "skip faults/probe-eio: this kernel has no device-mapper driver (dmsetup version fails; no dm-mod)"
elif mkloopfs eio 40 "sluice-eio-$$"; then
    db=$work/probe.db
    s "$db" probe seqwrite --dir "$mnt" --size 16M --time 3 --ramp 0 --no-canary > "$work/out" 2>&1 &
    ppid=$!; bg="$bg $ppid"
    sleep 0.7
    sectors=$(blockdev --getsz "/dev/mapper/sluice-eio-$$")
    dmsetup suspend --noflush "sluice-eio-$$" && dmsetup load "sluice-eio-$$" --table "0 $sectors error" &&
        dmsetup resume "sluice-eio-$$"
    wait "$ppid"; rc=$?
    if [ $rc = 0 ]; then fail probe-eio "probe exited 0 on a disk returning EIO" "$(tail -3 "$work/out")"
    elif ! grep -qi "input/output\|EIO\|read-only" "$work/out"; then fail probe-eio "unclear message: $(tail -3 "$work/out")"
    elif [ "$(integrity "$db")" != ok ]; then fail probe-eio "integrity_check: $(integrity "$db")"
    else ok probe-eio "exit $rc: $(grep -i 'sluice:' "$work/out" | head -1 | cut -c1-140)"; fi
else
    echo "skip faults/probe-eio: could not build a dm device over a loop device"
fi
exit 0
