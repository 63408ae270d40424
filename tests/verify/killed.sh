#!/bin/sh
# A verification killed by SIGKILL (or a crash) cannot record its end: its
# stored row says "running" until 'restore --crashed' puts its session back,
# which marks it "killed" with when (the block it died in, the last block it
# stored) so history, sessions and 'report VERIFY' say so. Fixture roots
# only, blocks of 4 s. Usage: killed.sh SLUICE
here=$(cd "$(dirname "$0")" && pwd)
name=verify-killed
. "$here/lib.sh"

# The newest verification's id and state in 'history'.
verification() { $S history 2>/dev/null | awk '/^live verifications/ { v = 1; next } v && $1 != "VERIFY" { print $'"$1"'; exit }'; }
# The report with its wrapped lines joined (a continuation is indented 4).
report() { $S report "$1" 2>&1 | awk 'NR > 1 && /^[!.]?    / { sub(/^[!.]?    /, " "); printf "%s", $0; next } { printf "%s%s", (NR > 1 ? "\n" : ""), $0 } END { print "" }'; }
iso='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'

# 1. SIGKILL while B is in force (block 2 of 10): before the restore the
#    report says it was killed and what puts its knobs back; 'restore
#    --crashed' puts the knob back and marks the test killed, with the block
#    it died in and the time of its last sign of life; history, report and
#    sessions --json say so.
fresh kill
$S verify --live --duration 40s --block 4s --seed 1 vm.dirty_ratio=30 > "$tmp/out" 2>&1 &
pid=$!
wait_for '^block  1/' "$tmp/out"
wait_ratio 30
was=$(ratio)
kill -KILL $pid; wait $pid 2>/dev/null
id=$(verification 1)
report "$id" > "$tmp/before"
$S restore --crashed > "$tmp/restore" 2>&1
st=$(verification 4)
report "$id" > "$tmp/report"
if [ "$was" = 30 ] && [ "$(ratio)" = 20 ] && grep -q 'vm.dirty_ratio  *30  *20  *put back' "$tmp/restore" &&
   grep -q "^!  killed before it ended: its session .* is open with no sluice holding it: 'sluice restore --crashed'" "$tmp/before" &&
   [ "$st" = killed ] &&
   grep -Eq "^!  killed: during block 2 of 10 \(SIGKILL, a crash or a power cut\), at or after $iso \(block 1 stored\); its session [0-9a-f]{8} was put back by a restore at $iso" "$tmp/report" &&
   grep -Eq "^   started $iso, ended $iso; session" "$tmp/report"; then
    ok sigkill-marks-the-verification-killed
else
    fail sigkill-marks-the-verification-killed "B in force before: $was; dirty_ratio $(ratio), verification '$id' state '$st'" \
        "$(cat "$tmp/restore")" "before the restore: $(grep -A2 '^== How' "$tmp/before")" \
        "$(grep -A2 '^== How' "$tmp/report")" "$(grep '^   started' "$tmp/report")"
fi

# 2. SIGKILL in the first block, before any block is stored: killed during
#    block 1, at or after the test's start.
fresh kill-first
$S verify --live --duration 40s --block 4s --seed 1 vm.dirty_ratio=30 > "$tmp/out" 2>&1 &
pid=$!
wait_for '^  session ' "$tmp/out"
kill -KILL $pid; wait $pid 2>/dev/null
$S restore --crashed > "$tmp/restore" 2>&1
id=$(verification 1) st=$(verification 4)
started=$(report "$id" | sed -n 's/^   started \([^,;]*\).*/\1/p')
if [ "$st" = killed ] && [ "$(ratio)" = 20 ] &&
   report "$id" | grep -q "^!  killed: during block 1 of 10 (SIGKILL, a crash or a power cut), at or after $started (its start)"; then
    ok sigkill-in-the-first-block-marks-it-killed
else
    fail sigkill-in-the-first-block-marks-it-killed "verification '$id' state '$st', dirty_ratio $(ratio), started '$started'" \
        "$(report "$id" | grep -A2 '^== How')"
fi

# 3. A test that ended by itself is not touched by a later restore of
#    another crashed session.
fresh done-then-crash
$S verify --live --duration 8s --block 2s --seed 3 vm.dirty_ratio=30 > "$tmp/out" 2>&1
done_id=$(verification 1)
$S verify --live --duration 40s --block 4s --seed 1 vm.dirty_ratio=30 > "$tmp/out" 2>&1 &
pid=$!
wait_for '^  session ' "$tmp/out"
kill -KILL $pid; wait $pid 2>/dev/null
$S restore --crashed > "$tmp/restore" 2>&1
done_state=$($S history 2>/dev/null | awk -v id="$done_id" '$1 == id { print $4 }')
if [ "$done_state" = done ] && [ "$(verification 4)" = killed ]; then
    ok restore-marks-only-the-crashed-verification
else
    fail restore-marks-only-the-crashed-verification "the finished one: '$done_state', the killed one: '$(verification 4)'"
fi
exit 0
