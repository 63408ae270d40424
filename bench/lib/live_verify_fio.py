"""live_verify_fio — bench/live-verify's fio case: the known candidate's
effect as fio itself measures it, with no sluice in the loop. The bench
switched vm.dirty_background_ratio between A and B in blocks (balanced
random pairs) while the application ran, and wrote each block's measured
part (after the settle) to BLOCKS as lines "PAIR SIDE START_MS END_MS"
(epoch ms). The reader's completion latency comes from fio's own log
(write_lat_log (reader_clat.N.log, N the job's index) with log_avg_msec=1000 and log_unix_epoch=1: one average
a second, in ns). Each block's value is the mean of its seconds; each pair
gives B/A, and the effect is bench/lib/paired.py's Hodges-Lehmann shift of
those ratios with its 95% interval, as bench/transfer reports fio's side.
Prints
  live-verify: case=fio run=1 effect=reader_clat:-40.1%[-52.0,-30.2] pairs=10 a_ms=.. b_ms=..
Usage: live_verify_fio.py CLAT.LOG BLOCKS"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import paired_shift  # noqa: E402

log, blocks = sys.argv[1], sys.argv[2]
samples = []
with open(log) as f:
    for line in f:
        cols = [c.strip() for c in line.split(",")]
        if len(cols) >= 2 and cols[0].isdigit():
            samples.append((int(cols[0]), int(cols[1])))
pairs = {}
with open(blocks) as f:
    for line in f:
        pair, side, t0, t1 = line.split()
        vals = [v for t, v in samples if int(t0) <= t < int(t1)]
        if vals:
            pairs.setdefault(int(pair), {})[side] = sum(vals) / len(vals)
a = [p["A"] for p in pairs.values() if "A" in p and "B" in p]
b = [p["B"] for p in pairs.values() if "A" in p and "B" in p]
if not a:
    print("live-verify: case=fio run=1 effect=- pairs=0 (no latency samples inside the blocks: %d samples, %s)" %
          (len(samples), log))
    sys.exit(0)
est, ci = paired_shift(a, b)
interval = "[%+.1f,%+.1f]" % ci if ci else "[no interval: too few pairs]"
print("live-verify: case=fio run=1 effect=reader_clat:%+.1f%%%s pairs=%d a_ms=%.2f b_ms=%.2f" %
      (est, interval, len(a), sum(a) / len(a) / 1e6, sum(b) / len(b) / 1e6))
