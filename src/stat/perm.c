/* perm — two-sample permutation test of a difference in location, and
 * its inverted interval (perm.h). */
#include "stat/perm.h"
#include "core/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PERM_BISECT_REL 1e-3   /* interval ends to this share of the widest one */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Values cut from each end of n: scipy.stats.trim_mean's int(trim * n),
 * or all but the middle one (odd n) or two (even n) for the median. */
static int cut_of(int n, double trim)
{
    if (trim >= PERM_MEDIAN) return (n - 1) / 2;
    return (int)(trim * n);
}

/* The pooled values at one shift d: candidates (c - d) first, then the
 * baseline, and their order by value, merged from the two sorted sides. */
struct pool {
    int nb, nc, n, gb, gc;
    double trim;
    const double *cs, *bs;     /* each side sorted */
    int *ci, *bi;              /* pooled index of each sorted value */
    double *v;                 /* pooled values at the current shift */
    int *ord;                  /* pooled indices by value */
    unsigned *in_c;            /* the split being scored: == mark in the candidate group */
    unsigned mark;
    int *idx;                  /* the split's candidate members */
    uint64_t seed;
    long long splits;
    bool exact;
};

static void pool_shift(struct pool *P, double d)
{
    int i = 0, j = 0, k = 0;
    while (i < P->nc || j < P->nb) {
        bool take_c = j >= P->nb || (i < P->nc && P->cs[i] - d <= P->bs[j]);
        if (take_c) { P->v[P->ci[i]] = P->cs[i] - d; P->ord[k++] = P->ci[i++]; }
        else { P->v[P->bi[j]] = P->bs[j]; P->ord[k++] = P->bi[j++]; }
    }
}

/* The statistic of the split in P->in_c: one pass in value order,
 * without branches on the group (half of them would be mispredicted):
 * side 1 is the candidate group, side 0 the baseline's. */
static double split_stat(const struct pool *P)
{
    int rank[2] = { 0, 0 }, from[2] = { P->gb, P->gc }, to[2] = { P->nb - P->gb, P->nc - P->gc };
    double sum[2] = { 0, 0 };
    for (int k = 0; k < P->n; k++) {
        int i = P->ord[k], side = P->in_c[i] == P->mark, r = rank[side]++;
        sum[side] += r >= from[side] && r < to[side] ? P->v[i] : 0;
    }
    return sum[1] / (to[1] - from[1]) - sum[0] / (to[0] - from[0]);
}

static double score(struct pool *P, const int *members)
{
    if (++P->mark == 0) {   /* a fresh mark per split: nothing to clear */
        memset(P->in_c, 0, sizeof *P->in_c * (size_t)P->n);
        P->mark = 1;
    }
    for (int t = 0; t < P->nc; t++) P->in_c[members[t]] = P->mark;
    return split_stat(P);
}

/* splitmix64: the random splits' generator (seeded, so the same splits
 * at every shift), and a uniform integer below n by multiply-shift. */
static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int below(uint64_t *s, int n)
{
    return (int)(((splitmix(s) >> 32) * (uint64_t)n) >> 32);
}

/* Next k-subset of 0..n-1 in lexicographic order; false after the last. */
static bool next_combination(int *idx, int k, int n)
{
    int i = k - 1;
    while (i >= 0 && idx[i] == n - k + i) i--;
    if (i < 0) return false;
    idx[i]++;
    for (int j = i + 1; j < k; j++) idx[j] = idx[j - 1] + 1;
    return true;
}

/* The splits at shift d that are at least as extreme as the observed
 * one (ge: as high, le: as low): every split, or the same random ones at
 * every d (the generator reseeded, the index array reset). With `stop` >= 0
 * counting ends once the side named by `greater` passes it or cannot
 * reach it any more (all the bisection needs to know). */
static void count_extreme(void *arg, double d, long long stop, bool greater, long long *ge, long long *le)
{
    struct pool *P = arg;
    pool_shift(P, d);
    for (int t = 0; t < P->nc; t++) P->idx[t] = t;
    double obs = score(P, P->idx);
    double gamma = fmax(1e-14, fabs(1e-14 * obs));   /* scipy's tolerance for equal statistics */
    long long *side = greater ? ge : le, r = 0;
    *ge = *le = 0;
    int *a = P->exact ? P->idx : xmalloc(sizeof *a * (size_t)P->n);
    uint64_t rs = P->seed;
    if (!P->exact)
        for (int i = 0; i < P->n; i++) a[i] = i;
    for (; r < P->splits; r++) {
        if (P->exact && r > 0 && !next_combination(P->idx, P->nc, P->n)) break;
        for (int t = 0; !P->exact && t < P->nc; t++) {
            int j = t + below(&rs, P->n - t);
            int x = a[t]; a[t] = a[j]; a[j] = x;
        }
        double s = score(P, a);
        *ge += s >= obs - gamma;
        *le += s <= obs + gamma;
        if (stop >= 0 && (*side > stop || *side + (P->splits - r - 1) <= stop)) break;
    }
    if (!P->exact) free(a);
}

/* What the p-values, the interval's bisection and both tests share: a
 * way to count, at shift d, the rearrangements (splits, or rounds' swaps)
 * at least as extreme as the observed one, and how many there are. */
struct counter {
    void (*count)(void *arg, double d, long long stop, bool greater, long long *ge, long long *le);
    void *arg;
    long long splits;
    bool exact;
};

/* One-sided p-values at shift d. Random rearrangements: the observed one
 * counts once more, a valid p for any number of them (Phipson & Smyth
 * 2010; scipy's adjustment). */
static void pvalues(const struct counter *K, double d, double *p_greater, double *p_less)
{
    long long ge, le, extra = !K->exact;
    K->count(K->arg, d, -1, true, &ge, &le);
    *p_greater = (double)(ge + extra) / (double)(K->splits + extra);
    *p_less = (double)(le + extra) / (double)(K->splits + extra);
}

/* Whether the one-sided p at shift d is above a, counting no further
 * than it takes to know. */
static bool kept_at(const struct counter *K, double d, bool greater, double a)
{
    long long extra = !K->exact, ge, le;
    /* p > a  <=>  count + extra > a (splits + extra) */
    long long stop = (long long)floor(a * (double)(K->splits + extra)) - extra;
    if (stop < 0) return true;
    K->count(K->arg, d, stop, greater, &ge, &le);
    return (greater ? ge : le) > stop;
}

/* The end of the interval: the shift where the one-sided p crosses a.
 * `rejected` is a shift the test rejects, `kept` one it does not; the
 * returned end is the last rejected shift found, so a lower end above 0
 * means the shift 0 is rejected too. */
static double bisect(const struct counter *K, double rejected, double kept, bool greater, double a)
{
    double tol = PERM_BISECT_REL * fabs(kept - rejected);
    while (fabs(kept - rejected) > tol) {
        double mid = (rejected + kept) / 2;
        if (kept_at(K, mid, greater, a)) kept = mid;
        else rejected = mid;
    }
    return rejected;
}

/* p-values at no shift and the interval at `level`, between dl (a shift
 * at which the observed arrangement has the largest statistic of all)
 * and dh (the smallest). */
static void invert(const struct counter *K, double dl, double dh, double level, struct perm_result *out)
{
    pvalues(K, 0, &out->p_greater, &out->p_less);
    out->p_two = fmin(1, 2 * fmin(out->p_greater, out->p_less));
    double a = (1 - level) / 2;
    out->lo = kept_at(K, dl, true, a) ? dl : bisect(K, dl, dh, true, a);
    out->hi = kept_at(K, dh, false, a) ? dh : bisect(K, dh, dl, false, a);
    out->splits = K->splits;
    out->exact = K->exact;
}

static long long count_splits(int n, int k)
{
    double m = 1;
    for (int i = 1; i <= k; i++) {
        m = m * (n - k + i) / i;
        if (m > PERM_EXACT_MAX) return -1;
    }
    return (long long)llround(m);
}

int perm_test(const double *b, int nb, const double *c, int nc, double trim, double level, uint64_t seed,
              struct perm_result *out)
{
    memset(out, 0, sizeof *out);
    if (nb < 1 || nc < 1 || !(trim >= 0 && trim <= PERM_MEDIAN) || !(level > 0 && level < 1)) return -1;
    struct pool P = { .nb = nb, .nc = nc, .n = nb + nc, .trim = trim, .seed = seed };
    P.gb = cut_of(nb, trim);
    P.gc = cut_of(nc, trim);
    double *cs = xmalloc(sizeof *cs * (size_t)nc), *bs = xmalloc(sizeof *bs * (size_t)nb);
    memcpy(cs, c, sizeof *cs * (size_t)nc);
    memcpy(bs, b, sizeof *bs * (size_t)nb);
    qsort(cs, (size_t)nc, sizeof *cs, cmp_double);
    qsort(bs, (size_t)nb, sizeof *bs, cmp_double);
    P.cs = cs;
    P.bs = bs;
    P.ci = xmalloc(sizeof *P.ci * (size_t)nc);
    P.bi = xmalloc(sizeof *P.bi * (size_t)nb);
    for (int i = 0; i < nc; i++) P.ci[i] = i;
    for (int j = 0; j < nb; j++) P.bi[j] = nc + j;
    P.v = xmalloc(sizeof *P.v * (size_t)P.n);
    P.ord = xmalloc(sizeof *P.ord * (size_t)P.n);
    P.in_c = xcalloc((size_t)P.n, sizeof *P.in_c);
    P.idx = xmalloc(sizeof *P.idx * (size_t)nc);
    long long m = count_splits(P.n, nc);
    P.exact = m > 0;
    P.splits = P.exact ? m : PERM_RESAMPLES;

    pool_shift(&P, 0);
    for (int t = 0; t < nc; t++) P.idx[t] = t;
    out->stat = score(&P, P.idx);
    /* at dl every candidate value is at or above every baseline value
     * (the largest statistic any split has), at dh at or below */
    struct counter K = { .count = count_extreme, .arg = &P, .splits = P.splits, .exact = P.exact };
    invert(&K, cs[0] - bs[nb - 1], cs[nc - 1] - bs[0], level, out);
    free(cs);
    free(bs);
    free(P.ci);
    free(P.bi);
    free(P.v);
    free(P.ord);
    free(P.in_c);
    free(P.idx);
    return 0;
}

/* The rounds' test (perm_rounds_test): the two groups at shift d after
 * swapping the rounds whose bit is set, and their statistic. */
struct rounds {
    int n, cut;
    const double *b, *c;
    double *gb, *gc;           /* the groups being scored, sorted in place */
    bool *swap;
    uint64_t seed;
    long long splits;
    bool exact;
};

/* Insertion sort: a group is one value a round, a few dozen at most. */
static double trimmed_mean(double *v, int n, int cut)
{
    for (int i = 1; i < n; i++) {
        double x = v[i];
        int j = i - 1;
        for (; j >= 0 && v[j] > x; j--) v[j + 1] = v[j];
        v[j + 1] = x;
    }
    double sum = 0;
    for (int i = cut; i < n - cut; i++) sum += v[i];
    return sum / (n - 2 * cut);
}

static double rounds_stat(struct rounds *R, double d)
{
    for (int i = 0; i < R->n; i++) {
        R->gc[i] = R->swap[i] ? R->b[i] : R->c[i] - d;
        R->gb[i] = R->swap[i] ? R->c[i] - d : R->b[i];
    }
    return trimmed_mean(R->gc, R->n, R->cut) - trimmed_mean(R->gb, R->n, R->cut);
}

/* count_extreme for the rounds: every pattern of swaps (the bits of r),
 * or the same random ones at every d. */
static void count_rounds(void *arg, double d, long long stop, bool greater, long long *ge, long long *le)
{
    struct rounds *R = arg;
    memset(R->swap, 0, sizeof *R->swap * (size_t)R->n);
    double obs = rounds_stat(R, d);
    double gamma = fmax(1e-14, fabs(1e-14 * obs));
    long long *side = greater ? ge : le;
    *ge = *le = 0;
    uint64_t rs = R->seed, bits = 0;
    for (long long r = 0; r < R->splits; r++) {
        for (int i = 0; i < R->n; i++) {
            if (R->exact) R->swap[i] = (r >> i) & 1;
            else {
                if (i % 64 == 0) bits = splitmix(&rs);
                R->swap[i] = (bits >> (i % 64)) & 1;
            }
        }
        double s = rounds_stat(R, d);
        *ge += s >= obs - gamma;
        *le += s <= obs + gamma;
        if (stop >= 0 && (*side > stop || *side + (R->splits - r - 1) <= stop)) break;
    }
}

int perm_rounds_test(const double *b, const double *c, int n, double trim, double level, uint64_t seed,
                     struct perm_result *out)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || !(trim >= 0 && trim <= PERM_MEDIAN) || !(level > 0 && level < 1)) return -1;
    struct rounds R = { .n = n, .cut = cut_of(n, trim), .b = b, .c = c, .seed = seed };
    R.gb = xmalloc(sizeof *R.gb * (size_t)n);
    R.gc = xmalloc(sizeof *R.gc * (size_t)n);
    R.swap = xcalloc((size_t)n, sizeof *R.swap);
    R.exact = n < 63 && (1LL << n) <= PERM_EXACT_MAX;
    R.splits = R.exact ? 1LL << n : PERM_RESAMPLES;
    out->stat = rounds_stat(&R, 0);
    /* at dl every candidate value is at or above every baseline value, so
     * any swap lowers the statistic; at dh every one is at or below */
    double cmin = c[0], cmax = c[0], bmin = b[0], bmax = b[0];
    for (int i = 1; i < n; i++) {
        cmin = fmin(cmin, c[i]), cmax = fmax(cmax, c[i]);
        bmin = fmin(bmin, b[i]), bmax = fmax(bmax, b[i]);
    }
    struct counter K = { .count = count_rounds, .arg = &R, .splits = R.splits, .exact = R.exact };
    invert(&K, cmin - bmax, cmax - bmin, level, out);
    free(R.gb);
    free(R.gc);
    free(R.swap);
    return 0;
}
