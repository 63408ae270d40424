"""live_verify_line — bench/live-verify: one case's `sluice --json verify
--live` output as the bench's line
  live-verify: case=C run=N verdict=V effect=METRIC:+X%[lo,hi] blocks=R/P stopped_by_guard=yes|no
verdict: verify's overall verdict when the test drew one (done, or
interrupted after some pairs), else how it ended (guard, idle, failed);
effect: the judged metric whose decision is not "within noise" with the
largest effect (else the largest), with its interval. A test that did not
run prints verdict=error and the message. Environment: CASE, RUN.
Usage: live_verify_line.py OUT.json ERR.txt"""
import json
import os
import sys

case, run = os.environ["CASE"], os.environ["RUN"]


def error(msg):
    print("live-verify: case=%s run=%s verdict=error effect=- blocks=- stopped_by_guard=no (%s)" % (case, run, msg[:300]))
    sys.exit(0)


try:
    j = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    err = open(sys.argv[2]).read().strip().splitlines()
    error(err[-1] if err else "no output")
if "error" in j:
    error(j["error"].get("message", ""))
v = j.get("verdict") or {}
end = j.get("end", "?")
verdict = v.get("overall") if end in ("done", "interrupted") and v else end
best = None
for name, m in (v.get("metrics") or {}).items():
    d = m.get("decision") or {}
    if not m.get("judged") or d.get("effect_pct") is None:
        continue
    key = (d.get("verdict") not in ("within noise", "no verdict"), abs(d["effect_pct"]))
    if best is None or key > best[0]:
        best = (key, name, d)
effect = "-"
if best:
    _, name, d = best
    lo, hi = d.get("ci_pct") or [None, None]
    fmt = lambda x: "%+.1f" % x if x is not None else "?"
    effect = "%s:%+.1f%%[%s,%s]" % (name, d["effect_pct"], fmt(lo), fmt(hi))
print("live-verify: case=%s run=%s verdict=%s effect=%s blocks=%d/%d stopped_by_guard=%s" % (
    case, run, (verdict or "none").replace(" ", "-"), effect, len(j.get("blocks") or []), j.get("blocks_planned", 0),
    "yes" if end == "guard" else "no"))
if end != "done":
    print("live-verify> %s: %s" % (end, (j.get("why") or "")[:300]))
