"""as_user — bench/transfer --as-user: the command a sysadmin runs first,
`sluice tune --quick --dir D` with no other option, timed, then its claim
re-measured by fio on the same burst, baseline and candidate interleaved
(ABBA, REPS pairs):
  1. the fio job sluice exports for the workload the tune ran;
  2. a plain buffered write + fsync of the same burst (no canary);
  3. when the verdict refused a trade: a buffered writer of the burst beside
     a 4 KiB direct random reader, the reader's p99 compared; and the p99 of
     the reader sluice runs itself, the exported job's canary-reader, from
     the runs of 1.
  4. sluice's own probe of the burst, in the same rounds: its effect
     against fio's, free of the drift between the tune and fio's rounds
     (transfer-now: lines).
Prints what the plan said against what ran
  transfer-plan: plan: N evaluations of about S s; ran M (by role), ... apart;
                 baseline runs reaching the throttling zone R of B
then
  transfer: verdict=better|refused|noise|none seconds=T burst=B claimed=X fio=Y ratio=R sign=S
            fio_ci=[lo,hi] agree=yes|no basis=ratio|both-null|missed
per fio job (fio: the Hodges-Lehmann pseudo-median of the pairs' ratios
with its 95% interval; agree: transfer_judge's rule), and for a refused
trade
  transfer-reader: job=mixed|sluice-job canary-reader claimed reader_p99=X fio reader p99=Y [lo, hi]
                   confirmed=yes|no
Environment: WORK (with saved, queue.saved), DIR, SLUICE, DB, REPS, and
TUNE_SIZE (bench/transfer --as-user --size S: --size S added, said in the
"transfer: command=..." line)."""
import json
import os
import re
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired  # noqa: E402
import transfer_judge  # noqa: E402

W, D, sl, db, reps = os.environ["WORK"], os.environ["DIR"], os.environ["SLUICE"], os.environ["DB"], int(os.environ["REPS"])
# TUNE_SIZE (bench/transfer --as-user --size S): a burst of the bench's
# choosing; the default command has none
# TUNE_NO_DIR (--no-dir): the command alone, writing where the probe writes
# by default; DIR is that directory, for fio
command = "sluice tune --quick%s%s" % ("" if os.environ.get("TUNE_NO_DIR") else " --dir " + D,
                                       " --size " + os.environ["TUNE_SIZE"] if os.environ.get("TUNE_SIZE") else "")
print("transfer: command=%s" % command)

t0 = time.monotonic()
out = paired.sh("%s --db %s %s 2> %s/tune.err" % (sl, db, command.split(" ", 1)[1], W))
seconds = time.monotonic() - t0
with open(os.path.join(W, "tune.out"), "w") as f:
    f.write(out)
for l in out.splitlines():
    if l.startswith(("calibration:", "sizing:", "plan:", "verdict:", "  regime:", "confirmation:", "  winner:", "  candidate:")):
        # the regime whole: what the runs measured comes at its end
        print("tune> " + (l if l.startswith("  regime:") else l[:400]))

con = sqlite3.connect(db)
row = con.execute("SELECT result_json, workload_text FROM searches ORDER BY id DESC LIMIT 1").fetchone()
# what the plan said against what ran: the evaluations by role, the time
# between them, and the baseline's runs that reached the throttling zone
# (reached_dirty_threshold) with their system CPU share (#28: a 5-minute
# plan of 35 evaluations ran 18)
trials = con.execute("SELECT t.role, t.elapsed_ms, t.config_text, r.reached_dirty_threshold, r.cpu_sys_pct "
                     "FROM trials t LEFT JOIN runs r ON r.uuid = t.run_uuid "
                     "WHERE t.search_id = (SELECT max(id) FROM searches) ORDER BY t.seq").fetchall()
if trials:
    base = trials[0][2]
    roles = {}
    for t in trials:
        roles[t[0]] = roles.get(t[0], 0) + 1
    gaps = sorted((b[1] - a[1]) / 1e3 for a, b in zip(trials, trials[1:]))
    bz = [t[3] for t in trials if t[2] == base and t[3] is not None]
    bs = sorted(t[4] for t in trials if t[2] == base and t[4] is not None)
    plan = next((l for l in out.splitlines() if l.startswith("plan:")), "plan: -")
    print("transfer-plan: %s; ran %d evaluations (%s), first %.1f s, then %.1f s apart (median); baseline runs reaching "
          "the throttling zone %d of %d, system CPU %s%% (median)" % (
              plan.split(" (")[0], len(trials), ", ".join("%s %d" % kv for kv in roles.items()), trials[0][1] / 1e3,
              gaps[len(gaps) // 2] if gaps else 0, sum(bz), len(bz), "%.0f" % bs[len(bs) // 2] if bs else "-"))

j = json.loads(row[0])
size = int(next(l.split("=", 1)[1] for l in row[1].splitlines() if l.startswith("size_bytes=")))
conf = j.get("confirmation") if isinstance(j.get("confirmation"), dict) else None
leaders = j.get("leaders") or []
w = j.get("winner")
verdict_text = j.get("verdict") or ""
fx = j.get("side_effects") if isinstance(j.get("side_effects"), dict) else {}
if w is not None:
    verdict, leader = "better", leaders[w]
elif verdict_text.startswith("not recommended"):
    # refused on the confirmation's fresh runs, or (no confirmation: the
    # race's leader was refused before it) on the race's: side_effects names it
    verdict = "refused"
    key = conf["changes"] if conf else fx.get("changes")
    leader = next((x for x in leaders if x["changes"] == key), None)
elif conf:
    verdict, leader = "noise", next((x for x in leaders if x["changes"] == conf["changes"]), None)
elif verdict_text.startswith("within noise"):
    verdict, leader = "noise", None   # the race found nothing to confirm: a verdict, nothing claimed
else:
    verdict, leader = "none", None
claimed = 100 * conf["confirmed_improvement"] if conf and conf.get("confirmed_improvement") is not None else None
if claimed is None and verdict == "refused" and leader and leader.get("improvement") is not None:
    claimed = 100 * leader["improvement"]   # the race's estimate: no confirmation measured it
print("transfer: verdict=%s seconds=%.0f burst=%.2fGB candidate=%s" % (
    verdict, seconds, size / 1e9, leader["changes"] if leader else "-"))
if leader is None:
    sys.exit(0)

sjob = paired.exported_job(sl, W, D, size)
pjob = ("[global]\ndirectory=%s\nrw=write\nbs=1M\nsize=%d\nioengine=psync\nend_fsync=1\nfallocate=none\nunlink=1\n"
        "[burst-fsync]\n" % (D, size))
jobs = [("sluice-job", sjob, "seqwrite"), ("burst-fsync", pjob, "burst-fsync")]
# the reader beside the writer is checked whatever the verdict: a refused
# trade names it, and a win lists it among its side effects
rates = [float(x) for l in out.splitlines() if l.startswith("calibration:") for x in re.findall(r"([0-9.]+) MB/s", l)]
rate = rates[-1] if rates else 300.0
# the reader ends when the writer is durable (exitall), as sluice's
# does: a reader of a fixed 5 s beside a 2 GiB burst durable in 1.5 s
# measured mostly an idle disk (transfer-as-user-19-size2g.out: p99
# -1.0% [-25.2, +28.3] where sluice's reader saw +41.2%)
runtime = max(5, int(size / (rate * 1e6)) + 1) * 4
MIXED_LOG, CANARY_LOG = os.path.join(W, "mixed-reader"), os.path.join(W, "canary-reader")
mixed = paired.mixed_job(D, size, runtime, "as-user") + paired.lat_log_opts(MIXED_LOG)
jobs.append(("mixed", mixed, None))
# sluice's own reader in fio: the exported job's canary-reader, logged
sjob = sjob.replace("[canary-reader]\n", "[canary-reader]\n" + paired.lat_log_opts(CANARY_LOG), 1)
jobs[0] = ("sluice-job", sjob, "seqwrite")
# sluice's own probe of the same burst, in the same rounds as fio's jobs:
# the tune's claim was measured minutes before fio's runs, and on this VM
# the effect drifts with the disk over minutes (run 37: the candidate ran
# 555-588 MB/s through the confirmation, 526-749 in fio's rounds, the
# baseline 505-530 throughout); the probe beside fio tells the instrument's
# error from that drift
jobs.append(("sluice-probe", None, "probe"))


def p99_ms(j, jobname):
    r = next((x for x in j["jobs"] if x["jobname"] == jobname), None)
    return None if r is None else r["read"]["clat_ns"]["percentile"]["99.000000"] / 1e6


# each reader is judged twice: by the wait of a read due every 2 ms (what
# sluice's reader_p99 is: paired.due_p99_ms, from the per-I/O log) and by
# the real reads' own p99 (fio's clat p99; a stall of one long read hardly
# moves it). Two readers: the mixed job's (#28's: a writer beside an
# unthrottled 4 KiB direct reader) and the one sluice itself ran, the
# exported job's canary-reader (one 4 KiB O_DIRECT read every 2 ms, ending
# with the writer), read from the same fio runs as its MB/s
readers = {k: ([], []) for k in ("mixed", "mixed per-read", "sluice-job canary-reader", "sluice-job canary-reader per-read")}


def probe_mb_s():
    out = paired.sh("%s --db %s --json probe seqwrite --dir %s --size %d --repeat 1" % (sl, os.path.join(W, "now.db"), D, size))
    return json.loads(out)[0]["mb_s"]


def one(job, jobname, side):
    if jobname == "probe":
        paired.sh("sync")
        return probe_mb_s()
    for prefix in (MIXED_LOG, CANARY_LOG):
        paired.clear_lat_logs(prefix)
    j = paired.fio_json(W, job)
    if jobname is None:
        readers["mixed"][side].append(paired.due_p99_ms(MIXED_LOG))
        readers["mixed per-read"][side].append(p99_ms(j, "reader"))
        return None
    if jobname == "seqwrite":
        readers["sluice-job canary-reader"][side].append(paired.due_p99_ms(CANARY_LOG))
        readers["sluice-job canary-reader per-read"][side].append(p99_ms(j, "canary-reader"))
    return paired.job_mb_s(j, jobname)


m = {name: ([], []) for name, _, _ in jobs}
for r in range(reps):
    for side in ((0, 1) if r % 2 == 0 else (1, 0)):
        paired.restore(W)
        if side == 1:
            paired.apply(leader["config"])
        for name, job, jobname in jobs:
            m[name][side].append(one(job, jobname, side))
    paired.restore(W)
fx = j.get("side_effects") or {}
rows = fx.get("rows") if isinstance(fx, dict) else None
mine = next((x for x in rows or [] if x.get("metric") == "reader_p99"), None)
eff = (mine or {}).get("decision") or {}
said = "-" if eff.get("effect_pct") is None else "%+.1f%% [%s]" % (
    eff["effect_pct"], ", ".join("-" if v is None else "%+.1f%%" % v for v in eff.get("ci_pct") or []))
for name, (base, cand) in readers.items():
    if len(base) != reps or len(cand) != reps or None in base or None in cand:
        print("transfer-reader: job=%s not measured (%d of %d pairs)" % (name, min(len(base), len(cand)), reps))
        continue
    fio, ci = paired.paired_shift(base, cand)
    cis = "-" if ci is None else "[%+.1f%%,%+.1f%%]" % ci
    print("transfer-reader: job=%s verdict=%s claimed reader_p99=%s fio reader p99=%+.1f%% %s confirmed=%s (%d pairs; ms "
          "base %s, candidate %s)" % (name, verdict, said, fio, cis, "yes" if transfer_judge.reader_confirmed(ci) else "no",
                                      len(base), " ".join("%.2f" % v for v in base), " ".join("%.2f" % v for v in cand)))

now = None
if len(m["sluice-probe"][0]) == reps:
    now = paired.paired_shift(*m["sluice-probe"])
    print("transfer-now: sluice probe in fio's rounds=%+.1f%% %s (%d pairs; MB/s base %s, candidate %s)" % (
        now[0], "-" if now[1] is None else "[%+.1f%%,%+.1f%%]" % now[1], reps,
        " ".join("%.0f" % v for v in m["sluice-probe"][0]), " ".join("%.0f" % v for v in m["sluice-probe"][1])))
for name, _, jobname in jobs:
    if jobname is None or jobname == "probe":
        continue
    base, cand = m[name]
    fio, ci = paired.paired_shift(base, cand)
    cis = "-" if ci is None else "[%+.1f%%,%+.1f%%]" % ci
    if claimed is None or fio == 0:
        ratio, sign = "-", "-"
    else:
        ratio, sign = "%.2f" % (claimed / fio), "same" if (claimed > 0) == (fio > 0) else "differs"
    agree, basis = transfer_judge.agreement(verdict, claimed, fio, ci)
    print("transfer: verdict=%s seconds=%.0f claimed=%s fio=%+.1f%% ratio=%s sign=%s fio_ci=%s agree=%s basis=%s job=%s "
          "(%d pairs; MB/s base %s, candidate %s)" % (
              verdict, seconds, "none" if claimed is None else "%+.1f%%" % claimed, fio, ratio, sign, cis, agree, basis,
              name, len(base), " ".join("%.0f" % v for v in base), " ".join("%.0f" % v for v in cand)))
    drift = transfer_judge.drift_halves(base, cand)
    if drift:
        # fio against itself within this check: its first pairs (nearest the
        # tune's confirmation) and its last, minutes later; on this VM the
        # effect itself moves over minutes (bench/data/effect-drift.out:
        # +14% to +29% over 20 minutes of the same pairs)
        early, late, within = drift
        h = (len(base) + 1) // 2
        print("transfer-drift: job=%s fio first %d pairs=%+.1f%% last %d=%+.1f%% ratio=%.2f within=%s" % (
            name, h, early, len(base) - h, late, late / early if early else 0, "yes" if within else "no"))
    if now and fio:
        # the same band, between sluice's probe and fio in the same rounds
        r_now = now[0] / fio
        print("transfer-now: job=%s sluice probe=%+.1f%% fio=%+.1f%% ratio=%.2f agree=%s" % (
            name, now[0], fio, r_now, "yes" if transfer_judge.within_band(now[0], fio) else "no"))
sys.stdout.flush()
