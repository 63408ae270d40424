"""confirm_tests — the confirmation's tests in plain Python, as src/stat
computes them, for the benches that simulate or replay a confirmation
(bench/confirm-paired-sim, bench/confirm-replay). Values are logs; every p
is one-sided, the candidate higher (lower with greater=False), after the
candidate is shifted down by d (what inverting a test into an interval
needs). No numpy or scipy: this machine has neither."""
import itertools
import statistics as st

SHARED = 1.5   # SEARCH_CONFIRM_SHARED_SPREAD
REJECTING = 3  # SEARCH_ROUNDS_REJECTING


def trim_mean(x, share=0.3):
    x = sorted(x)
    k = int(share * len(x))
    x = x[k:len(x) - k]
    return sum(x) / len(x)


def mad(x):
    m = st.median(x)
    return st.median([abs(v - m) for v in x])


def signed_rank_p(d):
    """Exact p of Wilcoxon's signed-rank test on the rounds' differences."""
    n = len(d)
    order = sorted(range(n), key=lambda i: abs(d[i]))
    v = sum(r + 1 for r, i in enumerate(order) if d[i] > 0)
    m = n * (n + 1) // 2
    pmf = [1] + [0] * m
    for rank in range(1, n + 1):
        for s in range(m, rank - 1, -1):
            pmf[s] += pmf[s - rank]
    return sum(pmf[v:]) / 2 ** n


def _side(s, obs, greater):
    return s >= obs - 1e-12 if greater else s <= obs + 1e-12


def perm_trim_p(b, c, d=0.0, greater=True, rng=None, splits=499):
    """perm-trim unpaired: the trimmed means' difference over every split of
    the pooled runs, or over `splits` random ones drawn with rng (the
    observed split counted once more, as perm.c does)."""
    c = [x - d for x in c]
    pool, n, obs = b + c, len(c), trim_mean(c) - trim_mean(b)
    if rng is not None:
        hits = 1
        for _ in range(splits):
            rng.shuffle(pool)
            hits += _side(trim_mean(pool[:n]) - trim_mean(pool[n:]), obs, greater)
        return hits / (splits + 1)
    hits = total = 0
    for idx in itertools.combinations(range(len(pool)), n):
        chosen = set(idx)
        s = trim_mean([pool[i] for i in idx]) - trim_mean([pool[i] for i in range(len(pool)) if i not in chosen])
        hits += _side(s, obs, greater)
        total += 1
    return hits / total


def swaps_p(b, c, d=0.0, greater=True):
    """The rounds' test (perm_rounds_test): the trimmed means' difference
    over the 2^n swaps of a round's two runs, exactly."""
    c = [x - d for x in c]
    n, obs, hits = len(b), trim_mean(c) - trim_mean(b), 0
    for m in range(1 << n):
        sb = [c[i] if m >> i & 1 else b[i] for i in range(n)]
        sc = [b[i] if m >> i & 1 else c[i] for i in range(n)]
        hits += _side(trim_mean(sc) - trim_mean(sb), obs, greater)
    return hits / (1 << n)


def shared_spread(b, c, sizes=True):
    """decide_pairs_shared_spread: the sums' MAD over the differences'
    sizes' (sizes=False: over the signed differences', as before the
    rounds' test)."""
    d = [y - x for x, y in zip(b, c)]
    md = mad([abs(x) for x in d] if sizes else d)
    return mad([x + y for x, y in zip(b, c)]) / md if md > 0 else float("inf")


def rounds_enough(n, alpha):
    """search_confirm_in_rounds' count: REJECTING swap patterns can reject."""
    return alpha * 2 ** n >= REJECTING


def interval(p, b, c, a=0.025, steps=18):
    """The shifts test p does not reject at a on either side (bisection)."""
    def end(rejected, kept, greater):
        for _ in range(steps):
            mid = (rejected + kept) / 2
            if p(b, c, mid, greater) > a:
                kept = mid
            else:
                rejected = mid
        return rejected
    lo, hi = min(c) - max(b), max(c) - min(b)
    return end(lo, hi, True), end(hi, lo, False)
