#!/bin/sh
# Live foundation tests on a real loop device and the real vm knobs (root
# only). Every vm.* value that could change is saved first and put back on
# exit, the loop device is detached and scratch files removed, even on failure.
cd "$(dirname "$0")/../.." || exit 2
SLUICE=${SLUICE:-$PWD/sluice}
if [ "$(id -u)" != 0 ]; then echo "skip live/foundation: needs root (loop devices, real knobs)"; exit 0; fi
command -v losetup >/dev/null || { echo "skip live/foundation: losetup not installed"; exit 0; }

# Other live suites share this machine's global vm knobs: one at a time.
exec 9>/tmp/sluice-live.lock
flock 9

VM_KNOBS="dirty_ratio dirty_bytes dirty_background_ratio dirty_background_bytes dirty_expire_centisecs dirty_writeback_centisecs swappiness"
work=$(mktemp -d /var/tmp/sluice-live.XXXXXX)
for k in $VM_KNOBS; do cat /proc/sys/vm/$k > "$work/saved.$k"; done
loop=""
cleanup() {
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
    # Put back the mode that was in force: bytes if set, else the ratio.
    for pair in dirty:dirty_bytes:dirty_ratio background:dirty_background_bytes:dirty_background_ratio; do
        b=$(echo $pair | cut -d: -f2) r=$(echo $pair | cut -d: -f3)
        if [ "$(cat $work/saved.$b)" != 0 ]; then cat "$work/saved.$b" > /proc/sys/vm/$b
        else cat "$work/saved.$r" > /proc/sys/vm/$r; fi
    done
    for k in dirty_expire_centisecs dirty_writeback_centisecs swappiness; do cat "$work/saved.$k" > /proc/sys/vm/$k; done
    [ -n "$loop" ] && losetup -d "$loop"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

ok()   { echo "ok live/$1"; }
fail() { echo "FAIL live/$1"; shift; echo "  $*"; }
check() { # name expected actual
    if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

truncate -s 64M "$work/backing.img"
loop=$(losetup -f --show "$work/backing.img") || { echo "FAIL live/losetup"; exit 0; }
dev=$(basename "$loop")
q=/sys/block/$dev/queue
sched() { sed 's/.*\[\(.*\)\].*/\1/' $q/scheduler; }
db=$work/sluice.db
s() { "$SLUICE" --db "$db" "$@"; }

before_sched=$(sched) before_nr=$(cat $q/nr_requests) before_ra=$(cat $q/read_ahead_kb)
before_bg=$(cat /proc/sys/vm/dirty_background_ratio) before_dirty=$(cat /proc/sys/vm/dirty_ratio)
new_bg=$((before_bg == 7 ? 6 : 7))
[ "$new_bg" -ge "$before_dirty" ] && new_bg=$((before_dirty / 2))

# 1. set scheduler, nr_requests, read_ahead_kb and a vm knob, then SIGKILL
#    sluice while its session is open; restore --crashed puts all back.
"$SLUICE" --db "$db" set --for 120s block.$dev.nr_requests=32 block.$dev.scheduler=mq-deadline \
    block.$dev.read_ahead_kb=512 vm.dirty_background_ratio=$new_bg > "$work/set.out" 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && ! grep -q 'held open' "$work/set.out"; do sleep 0.1; i=$((i+1)); done
check set-scheduler mq-deadline "$(sched)"
check set-nr_requests-after-scheduler 32 "$(cat $q/nr_requests)"
check set-read_ahead_kb 512 "$(cat $q/read_ahead_kb)"
check set-vm-knob "$new_bg" "$(cat /proc/sys/vm/dirty_background_ratio)"
kill -9 $pid; wait $pid 2>/dev/null; pid=""
s show vm.dirty_background_ratio > "$work/notice.out" 2>&1
if grep -q "restore --crashed" "$work/notice.out"; then ok crash-noticed; else fail crash-noticed "$(cat $work/notice.out)"; fi
s restore --crashed > "$work/restore.out" 2>&1 || fail restore-exit "$(cat $work/restore.out)"
check restored-scheduler "$before_sched" "$(sched)"
check restored-nr_requests "$before_nr" "$(cat $q/nr_requests)"
check restored-read_ahead_kb "$before_ra" "$(cat $q/read_ahead_kb)"
check restored-vm-knob "$before_bg" "$(cat /proc/sys/vm/dirty_background_ratio)"

# 2. The kernel rounds read_ahead_kb to whole pages: sluice reports it.
out=$(s set block.$dev.read_ahead_kb=514 2>&1)
case $out in *"kernel kept 512"*) ok readback-adjusted ;; *) fail readback-adjusted "$out" ;; esac
s restore > /dev/null 2>&1
check readback-restored "$before_ra" "$(cat $q/read_ahead_kb)"

# 3. Ratio/bytes partners: bytes mode zeroes the ratio; restore goes back to ratio mode.
s set vm.dirty_bytes=$((256 << 20)) > /dev/null 2>&1
check bytes-mode "0 $((256 << 20))" "$(cat /proc/sys/vm/dirty_ratio) $(cat /proc/sys/vm/dirty_bytes)"
s restore > "$work/r3.out" 2>&1 || fail bytes-restore-exit "$(cat $work/r3.out)"
check ratio-mode-back "$before_dirty 0" "$(cat /proc/sys/vm/dirty_ratio) $(cat /proc/sys/vm/dirty_bytes)"

# 4. All-or-nothing on the real kernel: nr_requests over the hardware depth
#    under 'none' is refused before anything is written.
depth=$(cat /sys/block/$dev/mq/0/nr_tags)
out=$(s set block.$dev.read_ahead_kb=1024 block.$dev.scheduler=none block.$dev.nr_requests=$((depth + 1)) 2>&1)
case $out in *"hardware queue depth"*) ok refuse-over-depth ;; *) fail refuse-over-depth "$out" ;; esac
check refuse-left-nothing "$before_ra" "$(cat $q/read_ahead_kb)"

# 5. Profile A, then B over A, then off, on the loop device and the vm knobs:
#    B puts back what A set that B does not, and off leaves every knob as it
#    was. The profiles select the loop device by name, so no other disk of
#    this machine is touched.
mkdir "$work/profiles"
printf '[profile]\nsummary = live A\n[vm]\ndirty_background_ratio = %s\ndirty_expire_centisecs = 1500\nswappiness = 11\n[block "name=%s"]\nscheduler = mq-deadline\niosched.fifo_batch = 4\nread_ahead_kb = 256\n' \
    "$new_bg" "$dev" > "$work/profiles/live-a.conf"
printf '[profile]\nsummary = live B\n[vm]\ndirty_writeback_centisecs = 300\nswappiness = 22\n[block "name=%s"]\nread_ahead_kb = 1024\n' \
    "$dev" > "$work/profiles/live-b.conf"
knobs_now() {
    for k in $VM_KNOBS; do echo "vm.$k $(cat /proc/sys/vm/$k)"; done
    echo "scheduler $(sched)"
    for f in nr_requests read_ahead_kb; do echo "$f $(cat $q/$f)"; done
    if [ -d $q/iosched ]; then for f in $q/iosched/*; do echo "iosched.$(basename $f) $(cat $f)"; done; fi
}
knobs_now > "$work/before.knobs"
before_expire=$(cat /proc/sys/vm/dirty_expire_centisecs) before_swap=$(cat /proc/sys/vm/swappiness)
s apply --profiles "$work/profiles" live-a > "$work/a.out" 2>&1 || fail apply-a "$(tail -3 $work/a.out)"
check a-scheduler mq-deadline "$(sched)"
check a-fifo_batch 4 "$(cat $q/iosched/fifo_batch 2>/dev/null)"
check a-swappiness 11 "$(cat /proc/sys/vm/swappiness)"
s apply --profiles "$work/profiles" live-b > "$work/b.out" 2>&1 || fail apply-b "$(tail -3 $work/b.out)"
check b-over-a-expire-back "$before_expire" "$(cat /proc/sys/vm/dirty_expire_centisecs)"
check b-over-a-bg-back "$before_bg" "$(cat /proc/sys/vm/dirty_background_ratio)"
check b-over-a-scheduler-back "$before_sched" "$(sched)"
check b-swappiness 22 "$(cat /proc/sys/vm/swappiness)"
check b-read_ahead_kb 1024 "$(cat $q/read_ahead_kb)"
check b-writeback 300 "$(cat /proc/sys/vm/dirty_writeback_centisecs)"
s off > "$work/off.out" 2>&1 || fail off-exit "$(tail -3 $work/off.out)"
knobs_now > "$work/after.knobs"
if diff "$work/before.knobs" "$work/after.knobs" > "$work/knobs.diff"; then ok a-b-off-every-knob-back
else fail a-b-off-every-knob-back "$(tr '\n' ' ' < $work/knobs.diff)"; fi
check off-swappiness "$before_swap" "$(cat /proc/sys/vm/swappiness)"

# 6. A write that fails part-way through a scheduler switch on the real
#    kernel: the rollback puts back the scheduler first, then nr_requests and
#    the outgoing scheduler's tunables the switch reset (an admin's
#    read_expire 100, nr_requests 32), whichever write failed; and
#    'sessions --log' lists each put-back. The scheduler switched to is one
#    this kernel offers besides mq-deadline: bfq, else kyber (a kernel
#    without bfq refused the set before any write, and logged no put-back).
echo mq-deadline > $q/scheduler; echo 32 > $q/nr_requests; echo 100 > $q/iosched/read_expire
knobs_now > "$work/before6.knobs"
other=$(for c in bfq kyber; do tr -d '[]' < $q/scheduler | tr ' ' '\n' | grep -qx $c && { echo $c; break; }; done)
if [ -z "$other" ]; then echo "skip live/rollback: $(cat $q/scheduler): no scheduler besides mq-deadline to switch to"; exit 0; fi
for n in 1 2 3; do
    SLUICE_FAULT=sysfs_write:$n s set block.$dev.scheduler=$other block.$dev.nr_requests=64 block.$dev.read_ahead_kb=512 \
        > "$work/fault$n.out" 2>&1 && fail rollback-fault$n-exit "the set succeeded with write $n failing: $(cat $work/fault$n.out)"
    knobs_now > "$work/after6.knobs"
    if diff "$work/before6.knobs" "$work/after6.knobs" > "$work/knobs6.diff"; then ok rollback-scheduler-switch-write$n
    else fail rollback-scheduler-switch-write$n "$(tr '\n' ' ' < $work/knobs6.diff)"; fi
done
s sessions --log > "$work/log6.out" 2>&1
if grep -q "put-back  *block.$dev.scheduler  *$other  *mq-deadline  *mq-deadline" "$work/log6.out"; then ok rollback-put-backs-logged
else fail rollback-put-backs-logged "$(grep put-back $work/log6.out | head -3 | tr '\n' ' ')"; fi
exit 0
