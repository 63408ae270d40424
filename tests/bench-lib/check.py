"""Checks of bench/lib/paired.py, bench/lib/transfer_judge.py and
bench/lib/confirm_tests.py on made-up data (tests/bench-lib/run.sh)."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "lib"))
import confirm_tests  # noqa: E402
import paired  # noqa: E402
import transfer_judge  # noqa: E402


def check(name, cond, detail=""):
    print(("ok bench-lib/%s" if cond else "FAIL bench-lib/%s") % name)
    if not cond and detail:
        print("  " + detail)


def write_log(prefix, ios):
    """A fio per-I/O latency log (write_lat_log, log_avg_msec=0): one line
    per I/O, its completion time in ms and its latency in ns."""
    with open(prefix + "_lat.1.log", "w") as f:
        for start_ms, lat_ms in ios:
            f.write("%d, %d, 0, 4096, 0\n" % (round(start_ms + lat_ms), round(lat_ms * 1e6)))


def paced(stall_at_ms=None, stall_ms=0, run_ms=1000, period_ms=2.0, read_ms=0.2):
    """A depth-1 reader that issues a read every period_ms and skips the
    ticks a slow read overran (sluice's reader; the exported job's)."""
    ios, t = [], 0.0
    while t < run_ms:
        lat = stall_ms if stall_at_ms is not None and t <= stall_at_ms < t + period_ms else read_ms
        ios.append((t, lat))
        t += period_ms
        while t < ios[-1][0] + lat:   # the ticks this read overran
            t += period_ms
    return ios


with tempfile.TemporaryDirectory() as d:
    prefix = os.path.join(d, "reader")
    check("due-p99-none-without-a-log", paired.due_p99_ms(prefix) is None)
    write_log(prefix, paced())
    quiet = paired.due_p99_ms(prefix)
    check("due-p99-quiet-reader-is-its-read-time", quiet is not None and abs(quiet - 0.2) < 0.05, "got %r" % quiet)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    # one 100 ms stall in a second: 50 reads were due during it, with waits
    # 100, 98, ... ms; the p99 of about 500 due reads is the 5th longest
    write_log(prefix, paced(stall_at_ms=500, stall_ms=100))
    stalled = paired.due_p99_ms(prefix)
    check("due-p99-counts-the-reads-a-stall-held-back", stalled is not None and 85 <= stalled <= 95, "got %r" % stalled)
    ios = sorted(lat for _, lat in paced(stall_at_ms=500, stall_ms=100))
    own_p99 = ios[int(0.99 * len(ios)) - 1]
    check("per-read-p99-hardly-sees-the-stall", own_p99 < 1, "got %r" % own_p99)

# Wilcoxon's signed-rank: the Walsh averages cut from each end of a 95%
# interval (R's wilcox.test(conf.int = TRUE)): none possible below 6 pairs
check("signed-rank-cut-7-pairs", paired.signed_rank_lower(7, 0.05) == 3, "got %r" % paired.signed_rank_lower(7, 0.05))
check("signed-rank-cut-5-pairs-none", paired.signed_rank_lower(5, 0.05) == 0)
base = [600, 610, 590, 605, 595, 620, 580]
est, ci = paired.paired_shift(base, [b * 1.10 for b in base])
check("paired-shift-constant-ratio", abs(est - 10) < 1e-9 and ci is not None and abs(ci[0] - 10) < 1e-9 and abs(ci[1] - 10) < 1e-9,
      "got %r %r" % (est, ci))
est, ci = paired.paired_shift(base, [b * r for b, r in zip(base, (1.05, 1.30, 1.10, 1.15, 1.20, 1.08, 1.12))])
check("paired-shift-interval-holds-estimate", ci is not None and ci[0] < est < ci[1] and 10 < est < 15, "got %r %r" % (est, ci))
est, ci = paired.paired_shift(base[:5], base[:5])
check("paired-shift-5-pairs-no-interval", est == 0 and ci is None, "got %r %r" % (est, ci))

agree = transfer_judge.agreement
check("judge-claim-in-band", agree("better", 10.0, 12.0, (5, 20)) == ("yes", "ratio"))
check("judge-claim-too-small", agree("better", 5.0, 12.0, (5, 20)) == ("no", "ratio"))
check("judge-claim-too-large", agree("better", 20.0, 12.0, (5, 20)) == ("no", "ratio"))
check("judge-claim-wrong-sign", agree("better", -10.0, 12.0, (5, 20)) == ("no", "ratio"))
check("judge-refusal-is-a-claim", agree("refused", 10.0, 9.0, None) == ("yes", "ratio"))
check("judge-no-claim-fio-null", agree("noise", None, 3.0, (-2, 8)) == ("yes", "both-null"))
check("judge-no-claim-fio-sees-one", agree("noise", None, 8.0, (2, 14)) == ("no", "missed"))
check("judge-no-verdict-not-judged", agree("none", None, 8.0, (2, 14)) == ("-", "-"))
check("reader-confirmed-only-above-noise",
      transfer_judge.reader_confirmed((0.5, 30)) and not transfer_judge.reader_confirmed((-1, 30))
      and not transfer_judge.reader_confirmed(None))
check("within-band-rule", transfer_judge.within_band(10, 12) and not transfer_judge.within_band(5, 12)
      and not transfer_judge.within_band(-10, 12) and not transfer_judge.within_band(10, 0)
      and not transfer_judge.within_band(None, 12))
# fio against itself: 7 pairs cut 4 and 3; a check whose effect halves
drift = transfer_judge.drift_halves(base, [b * (1.2 if i < 4 else 1.1) for i, b in enumerate(base)])
check("drift-halves-first-and-last", drift is not None and abs(drift[0] - 20) < 1e-9 and abs(drift[1] - 10) < 1e-9
      and drift[2] is False, "got %r" % (drift,))
check("drift-halves-needs-6-pairs", transfer_judge.drift_halves(base[:5], base[:5]) is None)

# the jobs the benches run: #28's mixed job exactly as bench/transfer
# --as-user ran it before it was shared (so kept outputs stay comparable)
check("mixed-job-text", paired.mixed_job("/d", 2147483648, 20, "as-user") ==
      "[global]\ndirectory=/d\nioengine=psync\n"
      "[writer]\nrw=write\nbs=1M\nsize=2147483648\nend_fsync=1\nfallocate=none\nunlink=1\nfilename=as-user.writer\nexitall=1\n"
      "[reader]\nrw=randread\nbs=4k\ndirect=1\nsize=1g\ntime_based=1\nruntime=20\nfilename=as-user.reader\nunlink=1\n")
SL = os.environ.get("SLUICE", os.path.join(HERE, "..", "..", "sluice"))
if os.access(SL, os.X_OK):
    with tempfile.TemporaryDirectory() as d:
        job = paired.exported_job(SL, d, d, 64 << 20)
        check("exported-job-fresh-file-each-run", job.split("\n")[job.split("\n").index("[global]") + 1] == "unlink=1"
              and "[seqwrite]" in job and "[canary-reader]" in job and "size=67108864" in job, job[:300])
else:
    print("skip bench-lib/exported-job-fresh-file-each-run: no sluice binary at %s" % SL)


def settle_end(size, events, most=40.0):
    """Run paired.Settle over a counter that moves by kib at each (s, kib)
    of events, read every 50 ms: (its answer, the time it gave it; within
    one reading of the exact time, as float seconds round)."""
    s, v, t = paired.Settle(0.0, 0, size), 0, 0
    for k in range(1, int(most * 20)):
        t = k / 20
        v += sum(kib for at, kib in events if abs(at - t) < 1e-9)
        rc = s.step(t, v)
        if rc:
            return rc, t
    return 0, t


# settle.h's figures at page_reporting_order 5: a 1 GiB file's passes, and
# the system's own frees (8.5 MiB at 3.3 s, 17.6 at 13.5) do not count
rc, t = settle_end(2 ** 30, [(1.8, 469 << 10), (3.3, 8704), (3.9, 324 << 10), (6.0, 184 << 10), (8.1, 53 << 10),
                             (10.2, 64 << 10), (12.2, 12 << 10), (13.5, 18048)])
check("settle-passes-not-small-frees", rc == 1 and abs(t - 13.2) < 0.06, "got %r at %r" % (rc, t))
rc, t = settle_end(2 ** 31, [(x, 300 << 10) for x in (1.7, 3.8, 6.0, 8.1, 10.2, 12.3, 13.9)])
check("settle-limit-grows-with-size", rc == 1 and abs(t - 16.9) < 0.06, "got %r at %r" % (rc, t))
rc, t = settle_end(0, [(x / 20, 64 << 10) for x in range(1, 800)])
check("settle-gives-up-at-20-s", rc == -1 and abs(t - 20) < 1e-6, "got %r at %r" % (rc, t))
rc, t = settle_end(0, [(1.0, 8704)])
check("settle-none-came", rc == 1 and abs(t - 3) < 1e-6, "got %r at %r" % (rc, t))


# confirm_tests.py against the references the C tests hold (test_decide.c):
# 7 rounds of stalled runs, as bench/confirm-replay and confirm-paired-sim
# decide them; a replay is only as good as this agreement.
STALL_B = [4.60, 4.62, 4.58, 4.63, 4.59, 4.61, 4.57]
STALL_C = [5.11, 5.09, 3.9, 5.12, 4.2, 5.10, 5.13]
p = confirm_tests.perm_trim_p(STALL_B, STALL_C)
check("confirm-perm-trim-as-scipy", abs(p - 0.01048951048951049) < 1e-12, "got %r" % p)
p = confirm_tests.swaps_p(STALL_B, STALL_C)
check("confirm-rounds-test-as-decide-rounds", abs(p - 0.03125) < 1e-12, "got %r" % p)
lo, hi = confirm_tests.interval(confirm_tests.swaps_p, STALL_B, STALL_C, 0.05, steps=40)
check("confirm-rounds-interval-as-decide-rounds", abs(lo - 0.46) < 1e-6 and abs(hi - 0.526667) < 1e-6,
      "got [%r, %r]" % (lo, hi))
# a swap of rounds' runs changes the spread the choice reads, when read on
# the signed differences only
B, C = STALL_B[:], STALL_C[:]
before = (confirm_tests.shared_spread(B, C), confirm_tests.shared_spread(B, C, sizes=False))
for i in (0, 2, 4):
    B[i], C[i] = C[i], B[i]
after = (confirm_tests.shared_spread(B, C), confirm_tests.shared_spread(B, C, sizes=False))
check("confirm-choice-reads-no-sign", abs(after[0] - before[0]) < 1e-12 and abs(after[1] - before[1]) > 1e-3,
      "sizes %r -> %r, signed %r -> %r" % (before[0], after[0], before[1], after[1]))
check("confirm-rounds-from-6-at-0.05", not confirm_tests.rounds_enough(5, 0.05) and confirm_tests.rounds_enough(6, 0.05)
      and not confirm_tests.rounds_enough(6, 0.025) and confirm_tests.rounds_enough(7, 0.025))
