#!/bin/sh
# verify --live on a real loop device (root only): ext4 on a 64 MiB image,
# a small writer as the workload, a read-ahead candidate on the loop disk
# (no vm.* knob is written; every global vm.* value is still saved and put
# back on exit), the canary reading a scratch file on that filesystem.
# Checks: each block has the canary's reads and the verdict judges them;
# the knob and the filesystem end as they were; after a SIGKILL,
# 'restore --crashed' puts the knob back and removes the canary's scratch
# directory. Blocks of 1-2 s: seconds in all.
sluice=$1
ok() { echo "ok verify/$1"; }
fail() { echo "FAIL verify/$1"; shift; for l in "$@"; do echo "  $l"; done; }
if [ "$(id -u)" != 0 ]; then echo "skip verify/live: needs root (loop device)"; exit 0; fi
for t in losetup mkfs.ext4 mount; do
    command -v $t >/dev/null || { echo "skip verify/live: $t not installed"; exit 0; }
done
# Other live suites share this machine's knobs: one at a time.
exec 9>/tmp/sluice-live.lock
flock 9

VM_KNOBS="dirty_ratio dirty_bytes dirty_background_ratio dirty_background_bytes dirty_expire_centisecs dirty_writeback_centisecs swappiness"
work=$(mktemp -d /var/tmp/sluice-verify-live.XXXXXX)
for k in $VM_KNOBS; do cat /proc/sys/vm/$k > "$work/saved.$k"; done
loop="" mnt="" writer="" pid=""
cleanup() {
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
    # the writer ends its loop at the stop file, after its dd: killing the
    # subshell left a dd writing on the filesystem, umount failed busy, and
    # the mount and its loop device outlived the test (seen after make check
    # on a bare Debian chroot)
    if [ -n "$writer" ]; then : > "$work/stop"; wait "$writer" 2>/dev/null; fi
    # the mode that was in force: bytes if set, else the ratio
    for pair in dirty_bytes:dirty_ratio dirty_background_bytes:dirty_background_ratio; do
        b=${pair%%:*} r=${pair#*:}
        if [ "$(cat "$work/saved.$b")" != 0 ]; then cat "$work/saved.$b" > /proc/sys/vm/$b
        else cat "$work/saved.$r" > /proc/sys/vm/$r; fi
    done
    for k in dirty_expire_centisecs dirty_writeback_centisecs swappiness; do cat "$work/saved.$k" > /proc/sys/vm/$k; done
    [ -n "$mnt" ] && { umount "$mnt" 2>/dev/null || umount -l "$mnt"; }
    [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

truncate -s 64M "$work/backing.img"
loop=$(losetup -f --show "$work/backing.img") || { fail live-losetup "losetup failed"; exit 0; }
dev=$(basename "$loop")
mkfs.ext4 -q -F "$loop" > /dev/null 2>&1 || { fail live-mkfs "mkfs.ext4 $loop failed"; exit 0; }
mnt=$work/mnt
mkdir "$mnt"
mount "$loop" "$mnt" || { mnt=""; fail live-mount "mount $loop failed"; exit 0; }
(while [ ! -e "$work/stop" ]; do dd if=/dev/zero of="$mnt/app" bs=256k count=16 conv=fsync 2>/dev/null; sleep 0.05; done) &
writer=$!
ra=/sys/block/$dev/queue/read_ahead_kb
before=$(cat "$ra") cand=$(( $(cat "$ra") == 256 ? 512 : 256 ))
S="$sluice --db $work/db"
scratch_left() { ls -A "$mnt" | grep -c '^\.sluice-probe\.'; }

# 1. The canary in every block and in the verdict; all put back.
$S verify --live --duration 8s --block 2s --seed 4 --dir "$mnt" block.$dev.read_ahead_kb=$cand > "$work/out" 2>&1
rc=$?
with=$(grep -c '^block .* canary [0-9.]* ms (max [0-9.]*)' "$work/out")
if [ $rc = 0 ] && [ "$with" = 4 ] && grep -q '^  canary: a 4 KiB uncached read every 100 ms' "$work/out" &&
   grep -Eq '^  canary  *ms .*(better|worse|no difference beyond noise|no verdict)' "$work/out" &&
   [ "$(cat "$ra")" = "$before" ] && [ "$(scratch_left)" = 0 ]; then
    ok live-canary-in-every-block; [ -n "$SLUICE_VERBOSE" ] && cat "$work/out"
else
    fail live-canary-in-every-block "exit $rc, $with block(s) with the canary, read_ahead_kb $(cat "$ra") (was $before)," \
        "scratch left: $(scratch_left)" "$(tail -20 "$work/out")"
fi

# 2. SIGKILL mid-test: restore --crashed puts read_ahead_kb back and
#    removes the canary's scratch directory.
$S verify --live --duration 40s --block 1s --seed 4 --dir "$mnt" block.$dev.read_ahead_kb=$cand > "$work/out" 2>&1 &
pid=$!
i=0; while [ $i -lt 100 ] && [ "$(cat "$ra")" != "$cand" ]; do sleep 0.1; i=$((i + 1)); done
was=$(cat "$ra") left=$(scratch_left)
kill -KILL $pid; wait $pid 2>/dev/null; pid=""
$S restore --crashed > "$work/restore" 2>&1
if [ "$was" = "$cand" ] && [ "$left" = 1 ] && [ "$(cat "$ra")" = "$before" ] && [ "$(scratch_left)" = 0 ]; then
    ok live-sigkill-then-restore-crashed-removes-the-canary
else
    fail live-sigkill-then-restore-crashed-removes-the-canary "B in force: $was (want $cand), scratch while running: $left," \
        "read_ahead_kb after: $(cat "$ra") (was $before), scratch after: $(scratch_left)" "$(cat "$work/restore")"
fi
exit 0
