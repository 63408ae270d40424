#!/bin/sh
# Probe engine on real files: every workload on a scratch directory (short
# runs), then, as root and holding the live lock, loop-device filesystems:
# a live ext4 run with device metrics, ENOSPC (refused up front, and hit
# mid-run), --direct refused by ramfs, and SIGINT mid-probe. Every case also
# checks that no scratch files are left behind.
cd "$(dirname "$0")/../.." || exit 2
SLUICE=${SLUICE:-$PWD/sluice}
work=$(mktemp -d /var/tmp/sluice-probe-test.XXXXXX)
loop="" mnt="" ram="" vmsave="" immutable=""
# put back the dirty limits the threshold test lowered (bytes or ratio, whichever was in force)
vm_put_back() {
    [ -n "$vmsave" ] || return 0
    set -- $vmsave
    if [ "$1" != 0 ]; then echo "$1" > /proc/sys/vm/dirty_bytes; else echo "$3" > /proc/sys/vm/dirty_ratio; fi
    if [ "$2" != 0 ]; then echo "$2" > /proc/sys/vm/dirty_background_bytes; else echo "$4" > /proc/sys/vm/dirty_background_ratio; fi
    vmsave=""
}
cleanup() {
    vm_put_back
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
    [ -n "$immutable" ] && chattr -i "$immutable" 2>/dev/null
    # lazily when busy: the mount must not outlive the test (its loop
    # device, set to clear itself, goes once nothing holds the filesystem)
    [ -n "$ram" ] && { umount "$ram" 2>/dev/null || umount -l "$ram"; }
    [ -n "$mnt" ] && { umount "$mnt" 2>/dev/null || umount -l "$mnt"; }
    [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

ok()   { echo "ok probe/$1"; }
fail() { n=$1; shift; echo "FAIL probe/$n"; for l in "$@"; do echo "  $l"; done; }
db=$work/sluice.db
s() { "$SLUICE" --db "$db" "$@"; }

# One column of the newest run in 'history --csv', by its header name (the
# export gained columns after it; notes may hold quoted commas).
csv_column() { python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin)); print(r[-1][sys.argv[1]] if r else "")' "$1"; }
no_scratch() { ! ls -A "$@" 2>/dev/null | grep -q sluice-probe; }
field() { sed -n "s/^    \"$1\": \"\{0,1\}\([^\",]*\).*/\1/p" | head -1; }

# 1. every workload, short, on /var/tmp
scratch=$work/dir
mkdir "$scratch"
for w in null seqwrite seqread randread randwrite randrw fsync dbench tiobench multidisk; do
    extra=""
    [ "$w" = multidisk ] && extra="--dir $scratch"
    s --json probe $w --dir "$scratch" $extra --size 8M --time 200ms --ramp 50ms --seed 5 > "$work/$w.json" 2> "$work/$w.err"
    rc=$?
    status=$(field status < "$work/$w.json") ios=$(field ios < "$work/$w.json")
    if [ $rc -eq 0 ] && { [ "$status" = ok ] || [ "$status" = warm ]; } && [ "${ios:-0}" -gt 0 ] && no_scratch "$scratch"; then
        ok "workload-$w"
    else
        fail "workload-$w" "exit $rc, status '$status', ios '$ios'" "$(head -3 "$work/$w.err")"
    fi
done
n=$(s history --csv --workload dbench | grep -c ',dbench,')
[ "$n" = 1 ] && ok history-stored || fail history-stored "expected one dbench run stored, found $n"
s probe dbench --dir "$scratch" --size 8M --time 200ms --ramp 0 --threads 3 --no-store 2>&1 | grep -q '^  Throughput [0-9.]* MB/sec 3 clients$' \
    && ok dbench-throughput-line || fail dbench-throughput-line "no 'Throughput X MB/sec 3 clients' line"
# the built-in loadfile replayed: dbench's per-operation rows, every client in its own tree
s --json probe dbench --dir "$scratch" --time 300ms --ramp 0 --threads 2 --no-store > "$work/db.json"
n=$(grep -cE '"name": "(NTCreateX|Close|ReadX|WriteX|Flush|Unlink|Rename|Qpathinfo|Qfileinfo|Find)"' "$work/db.json")
[ "$n" = 10 ] && grep -q '"loadfile": "(built-in)"' "$work/db.json" && no_scratch "$scratch" && ok dbench-loadfile-replay \
    || fail dbench-loadfile-replay "expected 10 of dbench's operation rows from the built-in loadfile, got $n"
rows=$(s --json probe tiobench --dir "$scratch" --size 8M --time 400ms --threads 4 --no-store | grep -c '"name": "\(seq\|random\) ')
[ "$rows" = 12 ] && ok tiobench-phases || fail tiobench-phases "expected 12 phase rows (4 phases x 1,2,4 threads), got $rows"
# tiobench's sizes: --size is the total, each of T threads has its own file
# of size/T, so every full sequential phase moves --size at every thread
# count; the random phases do 4000/T requests per thread, 4000 in all
s --json probe tiobench --dir "$scratch" --size 2M --time 3s --threads 4 --no-store > "$work/tio.json"
got=$(awk '/"phases"/{p=1} /"series"/{p=0} p&&/"(name|threads|ios|bytes)"/{sub(/^ *"[a-z]*": /,""); gsub(/[",]/,""); printf "%s|", $0} p&&/^ *}/{print ""}' "$work/tio.json" |
      sed -n 's/^\(seq [a-z]*\)|\([0-9]*\)|[0-9]*|2097152|$/ok/p; s/^\(random [a-z]*\)|\([0-9]*\)|4000|[0-9]*|$/ok/p' | grep -c ok)
[ "$got" = 12 ] && ok tiobench-sizes || fail tiobench-sizes "expected 12 phases with tiobench's sizes, got $got" \
    "$(awk '/"phases"/{p=1} /"series"/{p=0} p&&/"(name|threads|ios|bytes)"/' "$work/tio.json" | head -8)"
lines=$(s probe tiobench --dir "$scratch" --size 2M --time 400ms --threads 4 --no-store |
        grep -cE '^ +dir +2 +4096 +(1|2|4)( +[0-9.]+ +[0-9.]+%){4}$')
[ "$lines" = 3 ] && ok tiobench-table || fail tiobench-table "expected the tiobench -T table with rows for 1, 2, 4 threads, got $lines"

# every buffered write workload says whether the dirty threshold was reached
# (8M in 200 ms on this scratch dir never gets near it): JSON, summary, history
for w in randwrite randrw tiobench dbench; do
    s --json probe $w --dir "$scratch" --size 8M --time 200ms --ramp 50ms --seed 5 > "$work/$w.flag.json" 2>&1
    got=$(field dirty_threshold_reached < "$work/$w.flag.json")
    hist=$(s history --csv --limit 1 | csv_column dirty_threshold_reached)
    if [ "$got" = false ] && [ "$hist" = no ] && grep -q '"note": ".*never reached the throttling zone' "$work/$w.flag.json"; then
        ok "threshold-flag-$w"
    else
        fail "threshold-flag-$w" "dirty_threshold_reached '$got', history '$hist'"
    fi
done
s probe randwrite --dir "$scratch" --size 8M --time 100ms --ramp 0 --no-store | grep -q '^randwrite .*: ok, dirty threshold NOT reached\($\|,\)' \
    && ok threshold-flag-summary || fail threshold-flag-summary "no 'dirty threshold NOT reached' on the summary line"
got=$(s --json probe fsync --dir "$scratch" --size 8M --time 100ms --ramp 0 --no-store | field dirty_threshold_reached)
[ "$got" = null ] && ok threshold-flag-fsync-na || fail threshold-flag-fsync-na "fsync: dirty_threshold_reached '$got', want null"

# SIGKILL cannot be trapped: the killed probe's scratch directory stays, and
# the next probe in that directory removes it, saying so; a running probe's
# directory is left alone
wait_scratch() {   # wait_scratch NOT: print a scratch dir other than NOT
    i=0
    while [ $i -lt 100 ]; do
        d=$(ls -A "$scratch" | grep sluice-probe | grep -vx "${1:-/}" | head -1)
        [ -n "$d" ] && { echo "$d"; return; }
        sleep 0.05; i=$((i+1))
    done
}
"$SLUICE" --db "$db" probe seqwrite --dir "$scratch" --size 64M --time 20s --ramp 0 --no-store > /dev/null 2>&1 &
pid=$!
dead=$(wait_scratch)
kill -9 $pid; wait $pid 2>/dev/null
[ -n "$dead" ] && [ -d "$scratch/$dead" ] && left=1 || left=0
"$SLUICE" --db "$db" probe seqwrite --dir "$scratch" --size 64M --time 20s --ramp 0 --no-store > "$work/reap.out" 2>&1 &
pid=$!
alive=$(wait_scratch "$dead")
s probe fsync --dir "$scratch" --size 1M --time 50ms --ramp 0 --no-store > /dev/null 2>&1
[ -n "$alive" ] && [ -d "$scratch/$alive" ] && kept=1 || kept=0
kill -INT $pid; wait $pid; pid=""
if [ $left = 1 ] && [ ! -e "$scratch/$dead" ] && [ $kept = 1 ] &&
   grep -q "note: removed $scratch/$dead, left behind by probe process [0-9]*, which no longer runs" "$work/reap.out"; then
    ok sigkill-scratch-reaped
else
    fail sigkill-scratch-reaped "killed probe's dir '$dead' (left: $left), running probe's dir '$alive' (kept by the next probe: $kept)" \
        "$(ls -A "$scratch")" "$(grep note "$work/reap.out")"
fi
no_scratch "$scratch" && ok sigkill-then-clean || fail sigkill-then-clean "left: $(ls -A "$scratch")"

# a killed probe with a database recorded its directory; when 'restore'
# cannot remove it (the parent made immutable) it names it, says why and
# what to do, exits non-zero and keeps the record; once it can, it removes it
records() { sqlite3 "$db" 'SELECT count(*) FROM probe_scratch' 2>/dev/null; }
if [ "$(id -u)" = 0 ] && command -v chattr > /dev/null && command -v sqlite3 > /dev/null; then
    "$SLUICE" --db "$db" probe seqwrite --dir "$scratch" --size 64M --time 30s --ramp 0 > /dev/null 2>&1 &
    pid=$!
    i=0
    while [ "$(records)" != 1 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
    dead=$(ls -A "$scratch" | grep sluice-probe | head -1)
    kill -9 $pid; wait $pid 2>/dev/null; pid=""
    if [ -n "$dead" ] && chattr +i "$scratch" 2>/dev/null; then
        immutable=$scratch
        s restore --crashed > "$work/rofs.out" 2> "$work/rofs.err"
        rc=$?
        chattr -i "$scratch"; immutable=""
        kept=$(records)
        if [ $rc -ne 0 ] && [ -d "$scratch/$dead" ] && [ "$kept" = 1 ] &&
           grep -q "^sluice: could not remove $scratch/$dead, left behind by probe process [0-9]*: Operation not permitted: check the permissions.*then run 'sluice restore --crashed' again (its record stays)$" "$work/rofs.err"; then
            ok restore-scratch-failed-kept
        else
            fail restore-scratch-failed-kept "exit $rc, dir '$dead' kept: $([ -d "$scratch/$dead" ] && echo yes || echo no), records $kept" "$(cat "$work/rofs.err")"
        fi
        s restore --crashed > "$work/rofs.out" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && no_scratch "$scratch" && [ "$(records)" = 0 ] &&
           grep -q "^removed $scratch/$dead, left behind by probe process [0-9]*, which no longer runs$" "$work/rofs.out"; then
            ok restore-scratch-retry
        else
            fail restore-scratch-retry "exit $rc, records $(records)" "$(cat "$work/rofs.out")" "$(ls -A "$scratch")"
        fi
    else
        echo "skip probe/restore-scratch-failed-kept: chattr +i does not work on $scratch (or no scratch dir '$dead')"
        rm -rf "$scratch/$dead"
    fi
else
    echo "skip probe/restore-scratch-failed-kept: needs root, chattr and sqlite3"
fi

# the editor-save canary: a 4 KiB rewrite + fsync every 0.5 s beside the writer, reported with the canary
s --json probe seqwrite --dir "$scratch" --size 64M --time 700ms --ramp 0 --no-store > "$work/save.json"
n=$(sed -n '/"editor_save": {/,/}/s/.*"count": \([0-9]*\).*/\1/p' "$work/save.json")
mx=$(sed -n '/"editor_save": {/,/}/s/.*"max_ns": \([0-9]*\).*/\1/p' "$work/save.json")
if [ "${n:-0}" -gt 0 ] && [ "${mx:-0}" -gt 0 ] && no_scratch "$scratch"; then ok canary-editor-save
else fail canary-editor-save "editor saves '$n', max '$mx'" "$(grep -A7 '"editor_save"' "$work/save.json")"; fi

# io_uring at depth > 1 with O_DIRECT (where the filesystem takes O_DIRECT)
if s probe randread --dir "$scratch" --direct --size 1M --time 10ms --ramp 0 --no-store > /dev/null 2>&1; then
    s --json probe randread --dir "$scratch" --direct --iodepth 8 --size 8M --time 200ms --ramp 50ms --no-store > "$work/uring.json"
    rc=$? status=$(field status < "$work/uring.json") ios=$(field ios < "$work/uring.json")
    if [ $rc -eq 0 ] && [ "$status" = ok ] && [ "${ios:-0}" -gt 0 ] && no_scratch "$scratch"; then ok io_uring-direct-depth8
    else fail io_uring-direct-depth8 "exit $rc, status '$status', ios '$ios'"; fi
    # reads and writes mixed in one ring: both kinds complete and are accounted
    s --json probe randrw --dir "$scratch" --direct --iodepth 4 --size 8M --time 200ms --ramp 0 --no-store > "$work/uring-rw.json"
    rc=$?
    r=$(sed -n '/^      "read": {/{n;s/[^0-9]//gp;}' "$work/uring-rw.json")
    w=$(sed -n '/^      "write": {/{n;s/[^0-9]//gp;}' "$work/uring-rw.json")
    if [ $rc -eq 0 ] && [ "${r:-0}" -gt 0 ] && [ "${w:-0}" -gt 0 ] && no_scratch "$scratch"; then ok io_uring-direct-randrw
    else fail io_uring-direct-randrw "exit $rc, read ios '$r', write ios '$w'"; fi
else
    echo "skip probe/io_uring-direct-depth8: $scratch refuses O_DIRECT"
fi

if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
    echo "skip probe/live: needs root, losetup and mkfs.ext4"
    exit 0
fi
exec 9>/tmp/sluice-live.lock
flock 9

# 2. a live run on a loop-device ext4 filesystem: device metrics from the loop disk
truncate -s 48M "$work/img"
loop=$(losetup -f --show "$work/img") || { fail losetup "losetup failed"; exit 0; }
mkfs.ext4 -q -F "$loop" || { fail mkfs "mkfs.ext4 failed"; exit 0; }
mnt=$work/mnt
mkdir "$mnt" && mount "$loop" "$mnt" || { fail mount "mount failed"; exit 0; }
dev=$(basename "$loop")
s --json probe randwrite --dir "$mnt" --size 8M --time 300ms --ramp 50ms > "$work/live.json"
name=$(sed -n '/"disk": {/,/}/s/.*"name": "\([^"]*\)".*/\1/p' "$work/live.json")
wios=$(sed -n '/"disk": {/,/}/s/.*"write_ios": \([0-9]*\).*/\1/p' "$work/live.json")
if [ "$name" = "$dev" ] && [ "${wios:-0}" -gt 0 ] && no_scratch "$mnt"; then ok live-loop-ext4-device-metrics
else fail live-loop-ext4-device-metrics "disk '$name' (want $dev), write_ios '$wios'"; fi

# 2b. with the dirty limits lowered to 16M/8M, buffered random writes over
# 24M do reach the throttling zone, and the run says so
vmsave="$(cat /proc/sys/vm/dirty_bytes) $(cat /proc/sys/vm/dirty_background_bytes) $(cat /proc/sys/vm/dirty_ratio) $(cat /proc/sys/vm/dirty_background_ratio)"
echo 16777216 > /proc/sys/vm/dirty_bytes && echo 8388608 > /proc/sys/vm/dirty_background_bytes
# (4 writers for 2 s; where writeback keeps up anyway, a second try)
for try in 1 2; do
    s --json probe randwrite --dir "$mnt" --size 24M --time 2s --ramp 0 --threads 4 > "$work/reach.json"
    got=$(field dirty_threshold_reached < "$work/reach.json")
    [ "$got" = true ] && break
done
vm_put_back
hist=$(s history --csv --limit 1 | csv_column dirty_threshold_reached)
if [ "$got" = true ] && [ "$hist" = yes ] && no_scratch "$mnt"; then ok threshold-reached-live
else fail threshold-reached-live "dirty_threshold_reached '$got', history '$hist'" "$(grep -A6 '"vm"' "$work/reach.json")"; fi

# 3. ENOSPC: refused up front, naming the size; and hit mid-run (space check bypassed)
out=$(s probe seqwrite --dir "$mnt" --size 200M --time 200ms 2>&1); rc=$?
case $out in *"no room in $mnt"*needs*) r=1 ;; *) r=0 ;; esac
if [ $rc = 2 ] && [ $r = 1 ] && no_scratch "$mnt"; then ok enospc-refused; else fail enospc-refused "exit $rc: $out"; fi
out=$(SLUICE_PROBE_NO_SPACE_CHECK=1 s probe seqwrite --dir "$mnt" --size 200M --time 5s --ramp 0 2>&1); rc=$?
last=$(s history --csv --limit 1 | tail -1 | cut -d, -f5,7)
case $out in *"filled up"*) r=1 ;; *) r=0 ;; esac
if [ $rc = 1 ] && [ $r = 1 ] && [ "$last" = "seqwrite,failed" ] && no_scratch "$mnt"; then ok enospc-mid-run
else fail enospc-mid-run "exit $rc, stored '$last'" "$(echo "$out" | tail -2)"; fi
free=$(df --output=avail "$mnt" | tail -1)
[ "$free" -gt 30000 ] && ok enospc-space-given-back || fail enospc-space-given-back "only ${free}K free after the run"

# 4. --direct where the filesystem refuses O_DIRECT (ramfs)
ram=$work/ram
mkdir "$ram" && mount -t ramfs ramfs "$ram" || { fail ramfs "cannot mount ramfs"; ram=""; }
if [ -n "$ram" ]; then
    out=$(s probe randread --dir "$ram" --direct --size 1M --time 100ms 2>&1); rc=$?
    case $out in *"refuses O_DIRECT"*) r=1 ;; *) r=0 ;; esac
    if [ $rc = 2 ] && [ $r = 1 ] && no_scratch "$ram"; then ok direct-refused; else fail direct-refused "exit $rc: $out"; fi
fi

# 5. SIGINT mid-probe: no scratch files, the run stored as aborted
# (sluice itself in the background, not a shell function: the signal must reach it)
"$SLUICE" --db "$db" probe seqwrite --dir "$scratch" --size 64M --time 20s --ramp 0 > "$work/int.out" 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && ! ls -A "$scratch" | grep -q sluice-probe; do sleep 0.05; i=$((i+1)); done
sleep 0.5
kill -INT $pid
wait $pid; rc=$?
pid=""
last=$(s history --csv --limit 1 | tail -1 | cut -d, -f5,7)
if [ $rc -ne 0 ] && [ "$last" = "seqwrite,aborted" ] && no_scratch "$scratch" && grep -q interrupted "$work/int.out"; then
    ok sigint-aborted-clean
else
    fail sigint-aborted-clean "exit $rc, stored '$last'" "$(tail -2 "$work/int.out")" "$(ls -A "$scratch")"
fi
