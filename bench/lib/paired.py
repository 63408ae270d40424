"""paired — what bench/transfer's measurements share: putting knobs in place
and back, fio's MB/s for a job, and the paired shift of two sides measured
back to back (ABBA), decided as R's wilcox.test(paired = TRUE, conf.int =
TRUE) would. Imported by bench/transfer's python parts."""
import glob
import json
import math
import os
import time
import subprocess
import sys


def sh(cmd):
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("transfer: failed: %s\n%s%s" % (cmd, p.stdout[-1500:], p.stderr[-1500:]))
    return p.stdout


def knob_path(k):
    if k.startswith("vm."):
        return "/proc/sys/vm/" + k[3:]
    _, d, rest = k.split(".", 2)
    return "/sys/block/%s/queue/%s" % (d, rest.replace(".", "/"))


def write(path, v):
    with open(path, "w") as f:
        f.write(v)


def apply(cfg):
    """cfg: 'knob=value' words; the scheduler first (it resets the rest)."""
    items = [l.split("=", 1) for l in cfg.split() if "=" in l]
    items.sort(key=lambda kv: not kv[0].endswith(".scheduler"))
    for k, v in items:
        write(knob_path(k), v)


def save(work):
    """WORK/saved as bench/lib/vm-loop.sh's vm_save writes it: every vm.dirty*
    value as it is now, for restore."""
    with open(os.path.join(work, "saved"), "w") as f:
        for p in sorted(glob.glob("/proc/sys/vm/dirty_*")):
            with open(p) as v:
                f.write("%s %s\n" % (p, v.read().strip()))


def restore(work):
    """Every value bench/lib/vm-loop.sh's vm_save wrote to WORK/saved back
    (of each ratio/bytes pair the half in force), and WORK/queue.saved's."""
    with open(os.path.join(work, "saved")) as f:
        vals = dict(l.split() for l in f)
    for p, v in vals.items():
        if not (p.endswith("_bytes") or p.endswith("_ratio")):
            write(p, v)
    for pair in ("dirty", "dirty_background"):
        b, r = "/proc/sys/vm/%s_bytes" % pair, "/proc/sys/vm/%s_ratio" % pair
        write(b, vals[b]) if vals[b] != "0" else write(r, vals[r])
    qs = os.path.join(work, "queue.saved")
    if os.path.exists(qs):
        with open(qs) as f:
            for l in f:
                p, v = l.split()
                try:
                    write(p, v)
                except OSError:
                    pass


REPORTED_KIB = "/sys/module/page_reporting/parameters/reported_kib"


class Settle:
    """src/probe/settle.c's wait, step by step: 1 when it is over (no pass
    of 32 MiB or more for 3 s, or none in 3 s), 0 to read again, -1 at the
    limit (20 s, or 12 s per GiB of size when longer). Changes less than
    0.5 s apart are one pass; smaller passes are the system's own frees."""
    def __init__(self, now, value, size=0):
        self.t0, self.value, self.most = now, value, max(20.0, 12.0 * size / 2 ** 30)
        self.moved, self.pass_t, self.pass_kib = None, None, 0

    def step(self, now, value):
        if value != self.value:
            if self.pass_t is None or now - self.pass_t > 0.5:
                self.pass_kib = 0
            self.pass_kib += max(value - self.value, 0)
            self.pass_t, self.value = now, value
            if self.pass_kib >= 32 << 10:
                self.moved = now
        if (self.moved is not None and now - self.moved >= 3.0) or (self.moved is None and now - self.t0 >= 3.0):
            return 1
        return -1 if now - self.t0 >= self.most else 0


def settle(size=0):
    """Wait, as sluice's probe waits before a run (src/probe/settle.h), for
    this VM to hand the memory the previous run freed back to its host, in
    passes 2 s apart (Settle). Without it a run met a pass or not by chance
    (bench/data/report-passes.out, report-passes-order5.out). The seconds
    waited, or None where the kernel does not count reported pages."""
    try:
        with open(REPORTED_KIB) as f:
            v = int(f.read())
    except OSError:
        return None
    t0 = time.monotonic()
    s = Settle(t0, v, size)
    while True:
        time.sleep(0.05)
        now = time.monotonic()
        with open(REPORTED_KIB) as f:
            if s.step(now, int(f.read())):
                return now - t0


def job_size(job):
    """The largest size= of a fio job's text, in bytes (0 when none is plain bytes)."""
    sizes = [int(l.split("=", 1)[1]) for l in job.splitlines() if l.startswith("size=") and l[5:].isdigit()]
    return max(sizes, default=0)


def fio_json(work, job):
    path = os.path.join(work, "job.fio")
    with open(path, "w") as f:
        f.write(job)
    sh("sync")
    settle(job_size(job))
    return json.loads(sh("fio --output-format=json %s" % path))


def exported_job(sluice, work, d, size):
    """The fio job `sluice probe seqwrite --size SIZE --fio-job` exports for
    a burst in directory d (the writer and sluice's canary beside it), with
    unlink=1: a fresh file each run, as sluice's probe writes one. Its
    database is a scratch one in work."""
    job = sh("%s --db %s/fio-job.db probe seqwrite --dir %s --size %d --fio-job" % (sluice, work, d, size))
    return job.replace("[global]\n", "[global]\nunlink=1\n", 1)


def mixed_job(d, size, runtime_s, tag):
    """#28's mixed job: a buffered writer of size bytes, durable at its end
    (end_fsync), beside an unthrottled 4 KiB O_DIRECT random reader of a
    1 GiB file that ends with it (exitall) or after runtime_s; files named
    TAG.writer and TAG.reader in d, removed after."""
    return ("[global]\ndirectory=%s\nioengine=psync\n"
            "[writer]\nrw=write\nbs=1M\nsize=%d\nend_fsync=1\nfallocate=none\nunlink=1\nfilename=%s.writer\nexitall=1\n"
            "[reader]\nrw=randread\nbs=4k\ndirect=1\nsize=1g\ntime_based=1\nruntime=%d\nfilename=%s.reader\nunlink=1\n"
            % (d, size, tag, runtime_s, tag))


def lat_log_opts(prefix):
    """fio options that log each I/O's latency under prefix (for due_p99_ms)."""
    return "write_lat_log=%s\nlog_avg_msec=0\n" % prefix


def clear_lat_logs(prefix):
    """Remove the logs a previous run wrote under prefix (fio appends)."""
    for old in glob.glob(prefix + "_*.log"):
        os.unlink(old)


def due_p99_ms(prefix, period_ms=2.0, pct=99.0):
    """The p99 wait of a 4 KiB read due every period_ms while a depth-1
    reader ran, from the per-I/O latency log fio wrote under prefix
    (lat_log_opts): at each due time, the time left until the read then in
    flight completes, or when none was, the next read's own latency. The
    same figure sluice's reader records (hist_add_paced in src/stat/hist.h):
    a read's own time, and for every tick it overran, the wait a read due
    then would have had. It reads a paced reader's log and a back-to-back
    reader's alike; counted by reads instead, a stall of one long read
    hardly moves a p99. None without a log."""
    files = sorted(glob.glob(prefix + "_lat.*.log"))
    if not files:
        return None
    ios = []  # (start, end) in ms
    with open(files[0]) as f:
        for line in f:
            parts = line.split(",")
            if len(parts) < 2:
                continue
            end, lat = float(parts[0]), float(parts[1]) / 1e6
            ios.append((end - lat, end))
    if not ios:
        return None
    ios.sort(key=lambda x: x[1])
    waits, i, d = [], 0, ios[0][0]
    while d < ios[-1][1]:
        while i < len(ios) and ios[i][1] <= d:
            i += 1
        if i == len(ios):
            break
        s, e = ios[i]
        waits.append(e - d if s <= d else e - s)
        d += period_ms
    waits.sort()
    return waits[max(0, int(math.ceil(pct / 100 * len(waits))) - 1)]


def job_mb_s(result, name):
    """The MB/s of the job named name in a fio JSON result: its bytes over
    its runtime, end_fsync inside (time to durable); fio's start-up, layout
    and unlink outside, as they are outside sluice's window."""
    w = next(x for x in result["jobs"] if x["jobname"] == name)["write"]
    return w["io_bytes"] / (w["runtime"] / 1e3) / 1e6


def fio_mb_s(work, job, name):
    """Run job and return job_mb_s of the job named name."""
    return job_mb_s(fio_json(work, job), name)


def signed_rank_lower(n, alpha):
    """k: the number of Walsh averages cut from each end for a two-sided
    1-alpha interval of the Hodges-Lehmann pseudo-median (exact null
    distribution of Wilcoxon's signed-rank statistic, no ties), as R's
    wilcox.test(conf.int = TRUE); 0 when n is too small for that level."""
    counts = [1]
    for i in range(1, n + 1):
        nxt = counts + [0] * i
        for s, c in enumerate(counts):
            nxt[s + i] += c
        counts = nxt
    total, cum, k = 2 ** n, 0, 0
    for t, c in enumerate(counts):
        cum += c
        if cum / total > alpha / 2:
            break
        k = t + 1
    return k


def paired_shift(base, cand, alpha=0.05):
    """The Hodges-Lehmann pseudo-median of the paired log ratios cand[i] /
    base[i] (each pair measured back to back, so drift between pairs
    cancels) with its 95% interval, in %: (est, (lo, hi)), or (est, None)
    with too few pairs for an interval."""
    d = [math.log(c / b) for b, c in zip(base, cand) if b > 0 and c > 0]
    n = len(d)
    if n == 0:
        return None, None
    w = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    pct = lambda x: 100 * (math.exp(x) - 1)
    m = len(w)
    est = (w[(m - 1) // 2] + w[m // 2]) / 2
    k = signed_rank_lower(n, alpha)
    return pct(est), ((pct(w[k - 1]), pct(w[m - k])) if k >= 1 else None)
