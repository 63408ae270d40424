"""transfer_judge — does sluice's verdict agree with fio's paired
re-measurement of the same burst? One rule for bench/transfer --as-user
(as_user.py prints it per fio job) and bench/transfer-summary (which reads
the kept outputs, older ones included).

  a claim (verdict better or refused, an effect claimed):
      agree when the sign is fio's and claimed / fio is within 0.67..1.5
      (#28's target), basis=ratio;
  no claim (verdict within noise: keep the current settings):
      agree when fio's 95% interval holds 0 (fio sees no effect either),
      basis=both-null; when fio's interval excludes 0, sluice missed an
      effect fio sees: disagree, basis=missed.
A ratio is not judged for a verdict that claims nothing: claimed / fio of
two estimates that are both noise is noise, whatever band it falls in."""

import paired

RATIO_BAND = (0.67, 1.5)


def within_band(a, b):
    """a / b has b's sign and lies within RATIO_BAND (#28's 0.67..1.5x);
    False when b is 0 or missing."""
    if not b or a is None:
        return False
    r = a / b
    return r > 0 and RATIO_BAND[0] <= r <= RATIO_BAND[1]


def drift_halves(base, cand):
    """fio against itself within one check of paired runs: the paired
    estimate (paired.paired_shift) of its first ceil(n/2) pairs and of the
    rest, in percent, and whether the later is within the band of the
    earlier: (early, late, within). None with fewer than 6 pairs."""
    if len(base) < 6 or len(cand) != len(base):
        return None
    h = (len(base) + 1) // 2
    early = paired.paired_shift(base[:h], cand[:h])[0]
    late = paired.paired_shift(base[h:], cand[h:])[0]
    return early, late, within_band(late, early)


def agreement(verdict, claimed, fio, ci):
    """(agree: 'yes'|'no'|'-', basis: 'ratio'|'both-null'|'missed'|'-');
    claimed and fio in percent, ci a (lo, hi) pair in percent or None."""
    if verdict in ("better", "refused") and claimed is not None:
        if not fio:
            return "-", "-"
        return ("yes" if within_band(claimed, fio) else "no"), "ratio"
    if verdict == "noise":
        if ci is None:
            return "-", "-"
        return ("yes", "both-null") if ci[0] <= 0 <= ci[1] else ("no", "missed")
    return "-", "-"


def reader_confirmed(ci):
    """A refused trade is confirmed by fio's mixed job when the reader's p99
    got worse beyond its noise: the interval's lower end above 0."""
    return ci is not None and ci[0] > 0
