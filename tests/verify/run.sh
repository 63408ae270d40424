#!/bin/sh
# sluice verify --live end to end on a fixture root whose counters a
# scripted workload moves (fake-workload.sh): a harmful candidate stopped by
# the guard (PSI, and the --metric's), a full run with its verdict, --keep,
# SIGTERM and SIGKILL part-way (killed.sh: the stored test marked killed),
# a real effect found; then live.sh on a loop
# device (the canary reader).
# Blocks of 2 s keep each test to seconds; no kernel setting is touched.
here=$(cd "$(dirname "$0")" && pwd)
name=verify
. "$here/lib.sh"

# 1. A candidate that makes PSI io full jump is reverted by the guard: the
#    test ends "stopped by guard" before its last block, exit 1, the knob as
#    before. (Which block it stops in is not asserted, nor how long it took:
#    on a loaded machine the scripted workload's counters move less often,
#    and the guard needs its samples in a row.)
fresh guard 30
$S verify --live --duration 16s --block 2s --seed 1 vm.dirty_ratio=30 > "$tmp/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q '^stopped by guard: PSI io full' "$tmp/out" && ! grep -q '^block  8/' "$tmp/out" &&
   [ "$(ratio)" = 20 ] && [ "$(state)" = restored ]; then
    ok guard-stops-a-harmful-candidate
else
    fail guard-stops-a-harmful-candidate "exit $rc, dirty_ratio $(ratio), session $(state)" "$(tail -5 "$tmp/out")"
fi
id=$(sed -n "s/^stored as verification \([0-9a-f]*\):.*/\1/p" "$tmp/out")
if [ -n "$id" ] && $S report "$id" 2>&1 | grep -q '^!  guard: stopped by guard: PSI io full'; then
    ok guard-stop-reported
else
    fail guard-stop-reported "id '$id'" "$($S report "$id" 2>&1 | head -20)"
fi

# 2. A harmless candidate runs every block (the plan, a line per block, the
#    verdict) and the knobs end as they were.
fresh full
$S verify --live --duration 8s --block 2s --seed 3 vm.dirty_ratio=30 > "$tmp/out" 2>&1
rc=$?
blocks=$(grep -c '^block ' "$tmp/out")
if [ $rc = 0 ] && [ "$blocks" = 4 ] && grep -q '^  order: AB' "$tmp/out" && grep -q '^  settle after a switch from A: 1.0 s' "$tmp/out" &&
   grep -q '^verdict over 2 pair(s)' "$tmp/out" && grep -q '^  await  *ms  *2 ' "$tmp/out" &&
   grep -q '^the settings from before the test are back' "$tmp/out" && [ "$(ratio)" = 20 ] && [ "$(state)" = restored ]; then
    ok full-run-puts-the-knobs-back
else
    fail full-run-puts-the-knobs-back "exit $rc, $blocks block lines, dirty_ratio $(ratio), session $(state)" "$(tail -15 "$tmp/out")"
fi
# 2b. The test is stored: 'report' draws its blocks (A and B), the verdict
#     per metric and how it ended; --html the same as a page; 'sessions'
#     and 'history' list it.
id=$(sed -n "s/^stored as verification \([0-9a-f]*\):.*/\1/p" "$tmp/out")
$S report "$id" > "$tmp/report" 2>&1
rrc=$?
$S report "$id" --html "$tmp/report.html" > /dev/null 2>&1
hrc=$?
rblocks=$(grep -Ec '^ +[0-9]+ [AB] +[0-9.]+- +[0-9.]+ s \(settle' "$tmp/report")
if [ -n "$id" ] && [ $rrc = 0 ] && [ "$rblocks" = 4 ] && grep -q '^== Verdict over 2 pair(s)' "$tmp/report" &&
   grep -q 'A (the settings in force): vm.dirty_ratio=20' "$tmp/report" && grep -q 'await per block over time' "$tmp/report" &&
   grep -q '^   done: every planned block ran' "$tmp/report" && [ $hrc = 0 ] && grep -q 'verify-await' "$tmp/report.html" &&
   $S sessions | grep -q "^$id .* done  *4 of 4 " && $S history | grep -q "^$id "; then
    ok stored-test-reported
else
    fail stored-test-reported "id '$id', report exit $rrc ($rblocks block lines), html exit $hrc" "$(head -30 "$tmp/report")"
fi

# 3. --keep: B held (nothing judged worse), so it stays, in a kept session.
fresh keep
$S verify --live --duration 8s --block 2s --seed 3 --keep vm.dirty_ratio=30 > "$tmp/out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^B kept: vm.dirty_ratio=30' "$tmp/out" && [ "$(ratio)" = 30 ] && [ "$(state)" = kept ]; then
    ok keep-keeps-a-candidate-that-held
else
    fail keep-keeps-a-candidate-that-held "exit $rc, dirty_ratio $(ratio), session $(state)" "$(tail -5 "$tmp/out")"
fi

# 4. SIGTERM while B (a profile: latency sets vm.dirty_ratio=10, the
#    disks' schedulers and more) is in force: all put back before exiting.
fresh term
knobs() { $S show vm.dirty_ratio vm.swappiness block.sda.scheduler block.nvme0n1.read_ahead_kb 2>&1 | awk 'NR > 1 { print $2 }' | tr '\n' ' '; }
before=$(knobs)
$S verify --live --duration 40s --block 2s --seed 1 latency > "$tmp/out" 2>&1 &
pid=$!
wait_for '^block  1/' "$tmp/out"
i=0; while [ $i -lt 50 ] && [ "$(ratio)" != 10 ]; do sleep 0.1; i=$((i + 1)); done
was=$(knobs)
kill -TERM $pid; wait $pid; rc=$?
if [ "$was" != "$before" ] && [ $rc = 1 ] && grep -q '^interrupted by signal 15' "$tmp/out" && [ "$(knobs)" = "$before" ] &&
   [ "$(state)" = restored ]; then
    ok sigterm-puts-a-profile-back
else
    fail sigterm-puts-a-profile-back "before: $before; B: $was; after: $(knobs); exit $rc, session $(state)" "$(tail -3 "$tmp/out")"
fi

# 6. A candidate under which the workload stalls half as long (PSI), in 8
#    pairs of 2 s blocks (the metrics judged share the 0.05 level: 3 need
#    7 pairs, and await may have no spread): found, with its sign.
fresh effect none 30
$S verify --live --duration 32s --block 2s --seed 5 vm.dirty_ratio=30 > "$tmp/out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^verdict over 8 pair(s): better' "$tmp/out" && grep -Eq '^  psi_io_some .* -[0-9.]+% .*: better$' "$tmp/out" &&
   [ "$(ratio)" = 20 ]; then
    ok a-real-effect-is-found
else
    fail a-real-effect-is-found "exit $rc, dirty_ratio $(ratio)" "$(grep -A12 '^verdict' "$tmp/out")"
fi
# 7. The --metric's guard: a candidate under which the metric doubles (here
#    the metric reads vm.dirty_ratio: 20 in A, 50 in B) is stopped at the
#    end of its first B block.
fresh metric-guard
$S verify --live --duration 16s --block 2s --seed 1 --metric "cat $tmp/root/proc/sys/vm/dirty_ratio" \
    vm.dirty_ratio=50 > "$tmp/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q '^stopped by guard: the --metric gave 50 in a B block, higher than the guard 40' "$tmp/out" &&
   [ "$(grep -c '^block ' "$tmp/out")" = 2 ] && [ "$(ratio)" = 20 ]; then
    ok metric-guard-stops-a-candidate
else
    fail metric-guard-stops-a-candidate "exit $rc, dirty_ratio $(ratio)" "$(tail -4 "$tmp/out")"
fi
# 8. SIGKILL at several points (before the session, in the first A block,
#    around the switch to B at 2 s, inside B, around the switch back):
#    after each, 'restore --crashed' leaves the knob as it was and no
#    session open.
bad=""
for delay in 0.05 0.4 1.0 1.9 2.05 2.6 3.95 4.1; do
    fresh kill-$delay
    $S verify --live --duration 40s --block 2s --seed 2 vm.dirty_ratio=30 > "$tmp/out" 2>&1 &
    pid=$!
    sleep "$delay"
    kill -KILL $pid; wait $pid 2>/dev/null
    $S restore --crashed > "$tmp/restore" 2>&1
    open=$($S sessions 2>/dev/null | awk 'NR > 1 && $4 != "restored" && $4 != "kept"' | head -1)
    [ "$(ratio)" = 20 ] && [ -z "$open" ] || bad="$bad at ${delay}s: dirty_ratio $(ratio) ${open:+session $open}"
done
if [ -z "$bad" ]; then ok sigkill-anywhere-then-restore-crashed; else fail sigkill-anywhere-then-restore-crashed "$bad"; fi

# 9. Ctrl-C while the --metric's trial run hangs: sluice stops, says so,
#    and takes the command (its whole process group) with it.
fresh metric-interrupted
marker=$(( $$ % 1000 + 1000 ))   # a sleep of its own, to find it
$S verify --live --duration 16s --block 4s --metric "sleep $marker; echo 1" vm.dirty_ratio=30 > "$tmp/out" 2>&1 &
pid=$!
sleep 1
kill -INT $pid; wait $pid; rc=$?
sleep 0.2
left=$(pgrep -f "sleep $marker" | head -1)
[ -n "$left" ] && kill "$left"
if [ $rc = 1 ] && grep -q "interrupted by signal 2 during the --metric's trial run" "$tmp/out" && [ -z "$left" ] &&
   [ "$(ratio)" = 20 ]; then
    ok interrupt-during-the-metric-trial-kills-it
else
    fail interrupt-during-the-metric-trial-kills-it "exit $rc, left running: ${left:-none}" "$(cat "$tmp/out")"
fi
# 10. apply --verify-live: a profile that stalls the workload (latency sets
#     vm.dirty_ratio=10, the fake's harm) over the profile in force
#     (throughput) is stopped by the guard and not applied: throughput's
#     knobs and 'active' as before, exit 1.
fresh apply-harm 10
$S apply throughput > /dev/null 2>&1
$S apply latency --verify-live 8s > "$tmp/out" 2>&1
rc=$?
active=$($S active 2>&1 | head -1)
if [ $rc = 1 ] && grep -q '^profile latency not applied: stopped by guard: PSI io full' "$tmp/out" &&
   grep -q 'and so is profile throughput$' "$tmp/out" && [ "$(ratio)" = 40 ] &&
   case $active in "profile throughput, in force"*) true ;; *) false ;; esac; then
    ok apply-verify-live-puts-back-what-did-not-hold
else
    fail apply-verify-live-puts-back-what-did-not-hold "exit $rc, dirty_ratio $(ratio) (want 40), active: $active" "$(tail -4 "$tmp/out")"
fi
# 11. The same profile on a workload it does not harm: verified, then
#     applied through the lifecycle (kept; 'active' names it).
fresh apply-held
$S apply latency --verify-live 8s > "$tmp/out" 2>&1
rc=$?
active=$($S active 2>&1 | head -1)
if [ $rc = 0 ] && grep -q '^profile latency held over 4 pair(s)' "$tmp/out" && grep -q "^session .*: kept" "$tmp/out" &&
   [ "$(ratio)" = 10 ] && case $active in "profile latency, in force"*) true ;; *) false ;; esac; then
    ok apply-verify-live-applies-what-held
else
    fail apply-verify-live-applies-what-held "exit $rc, dirty_ratio $(ratio) (want 10), active: $active" "$(tail -4 "$tmp/out")"
fi
# 11b. sluice-apply, the boot binary, links no verify engine: it refuses
#      --verify-live before anything is read or written.
if [ -x "$top/sluice-apply" ]; then
    before=$(ratio)
    "$top/sluice-apply" --root "$tmp/root" --db "$tmp/db" apply throughput --verify-live 8s > "$tmp/out" 2>&1
    rc=$?
    if [ $rc = 2 ] && grep -q "this binary applies profiles at boot only" "$tmp/out" && [ "$(ratio)" = "$before" ]; then
        ok sluice-apply-refuses-verify-live
    else
        fail sluice-apply-refuses-verify-live "exit $rc, dirty_ratio $(ratio) (was $before)" "$(cat "$tmp/out")"
    fi
fi
# 5. SIGKILLed verifications (killed.sh: fixture roots only).
stop_workload
sh "$here/killed.sh" "$sluice"
# 12-13. On a real loop device with the canary (root only; live.sh says why
# it skips). SLUICE_VERIFY_NO_LIVE=1 leaves it out: it saves and puts back
# the host's global vm.* values, which a run beside a measurement must not touch.
if [ -n "$SLUICE_VERIFY_NO_LIVE" ]; then echo "skip verify/live: SLUICE_VERIFY_NO_LIVE"; else sh "$here/live.sh" "$sluice"; fi
exit 0
