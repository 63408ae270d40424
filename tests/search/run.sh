#!/bin/sh
# Search safety against a fixture root: SIGKILL in the middle of a search
# leaves its session open; `search --resume` puts the knobs back, replays the
# stored trials and finishes; SIGINT restores and marks it interrupted.
# Prints "ok NAME" / "FAIL NAME" lines for tests/run.sh.
cd "$(dirname "$0")/../.." || exit 2
sluice=$(realpath "${SLUICE:-./sluice}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-search.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp -a tests/fixtures/modern "$tmp/root"
S() { "$sluice" --root "$tmp/root" --db "$tmp/s.db" "$@"; }
count() { sqlite3 "$tmp/s.db" "$1" 2>/dev/null; }
fail() { echo "FAIL $1"; shift; for l in "$@"; do echo "  $l"; done; }

# wait until the search has stored at least N trials (bounded: 30 s)
wait_trials() {
    i=0
    while [ "$i" -lt 300 ]; do
        n=$(count "SELECT count(*) FROM trials" || echo 0)
        [ "${n:-0}" -ge "$1" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# --- SIGKILL, then resume ------------------------------------------------
"$sluice" --root "$tmp/root" --db "$tmp/s.db" search --workload null --budget 120 --confirm-runs 20 --seed 7 --strategy random > "$tmp/first.out" 2>&1 &
pid=$!
if ! wait_trials 8; then
    kill -9 $pid 2>/dev/null
    fail search/resume-after-sigkill "the search stored no trials in 30 s" "$(cat "$tmp/first.out")"
    exit 0
fi
kill -9 $pid
wait $pid 2>/dev/null
before=$(count "SELECT count(*) FROM trials")
scores=$(count "SELECT group_concat(score, ',') FROM (SELECT score FROM trials WHERE seq < 8 ORDER BY seq)")
sid=$(count "SELECT uuid FROM searches")
state=$(count "SELECT state FROM sessions")
if [ "$state" != "open" ]; then
    fail search/resume-after-sigkill "after SIGKILL the session is '$state', expected open"
else
    S search --resume "$sid" > "$tmp/resume.out" 2>&1
    rc=$?
    # the budget holds, the confirmation included (ff160ae): exploring
    # stops 42 evaluations before the end to leave them to it (20 fresh
    # runs each of the baseline and the winner, 2 spare: --confirm-runs
    # is stored with the search and a resume keeps it)
    after=$(count "SELECT count(*) FROM trials WHERE role != 'confirm'")
    total=$(count "SELECT count(*) FROM trials")
    scores2=$(count "SELECT group_concat(score, ',') FROM (SELECT score FROM trials WHERE seq < 8 ORDER BY seq)")
    sstate=$(count "SELECT state FROM searches")
    open=$(count "SELECT count(*) FROM sessions WHERE state = 'open'")
    dr=$(cat "$tmp/root/proc/sys/vm/dirty_ratio") bg=$(cat "$tmp/root/proc/sys/vm/dirty_background_ratio")
    if [ $rc -eq 0 ] && [ "$after" -eq 78 ] && [ "$total" -le 120 ] && [ "$before" -lt 78 ] && [ "$scores" = "$scores2" ] &&
       [ "$sstate" = "done" ] && [ "$open" -eq 0 ] && [ "$dr" = 20 ] && [ "$bg" = 10 ] &&
       grep -q "resuming after $before stored evaluations" "$tmp/resume.out" &&
       grep -q "put back the knobs of the interrupted search" "$tmp/resume.out"; then
        echo "ok search/resume-after-sigkill"
    else
        fail search/resume-after-sigkill "rc=$rc trials $before -> $after ($total with the confirmation), search $sstate, open sessions $open, dirty_ratio $dr/$bg" \
            "first scores $scores" "after resume $scores2" "$(head -5 "$tmp/resume.out")"
    fi
fi

# --- a finished search cannot be resumed ----------------------------------
if S search --resume "$sid" > "$tmp/again.out" 2>&1; then
    fail search/resume-done-refused "resuming a finished search succeeded"
elif grep -q "only an interrupted search can be resumed" "$tmp/again.out"; then
    echo "ok search/resume-done-refused"
else
    fail search/resume-done-refused "$(cat "$tmp/again.out")"
fi

# --- SIGINT restores and marks the search interrupted --------------------
rm -f "$tmp/s.db"*
"$sluice" --root "$tmp/root" --db "$tmp/s.db" search --workload null --budget 120 --seed 8 --strategy random > "$tmp/int.out" 2>&1 &
pid=$!
if wait_trials 8; then
    kill -INT $pid
    wait $pid
    rc=$?
    sstate=$(count "SELECT state FROM searches")
    state=$(count "SELECT state FROM sessions")
    dr=$(cat "$tmp/root/proc/sys/vm/dirty_ratio") bg=$(cat "$tmp/root/proc/sys/vm/dirty_background_ratio")
    if [ $rc -ne 0 ] && [ "$sstate" = interrupted ] && [ "$state" = restored ] && [ "$dr" = 20 ] && [ "$bg" = 10 ] &&
       grep -q "sluice search --resume" "$tmp/int.out"; then
        echo "ok search/sigint-restores"
    else
        fail search/sigint-restores "rc=$rc search $sstate session $state dirty_ratio $dr/$bg" "$(tail -3 "$tmp/int.out")"
    fi
else
    kill -9 $pid 2>/dev/null
    fail search/sigint-restores "no trials stored"
fi
exit 0
