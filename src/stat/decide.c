/* decide — a candidate against a baseline: robust effect, interval, test,
 * verdict or the reason there is none (decide.h). Work is on log values,
 * so a shift is a ratio: effect = exp(shift) - 1. */
#include "stat/decide.h"
#include "stat/perm.h"
#include "stat/signif.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define YUEN_TRIM 0.2
/* perm-trim's share cut from each end: 2 of 7 runs, so two stalled
 * candidate runs among a confirmation's 7 cannot move its statistic
 * (man page "How a verdict is decided") */
#define PERM_TRIM_SHARE 0.3
#define BOOT_ITERS 4000

static const struct {
    const char *name, *estimator;
} methods[DECIDE_METHOD_NR] = {
    [DECIDE_HL_MW] = { "hl-mw", "Hodges-Lehmann shift" },
    [DECIDE_YUEN] = { "yuen", "20% trimmed mean" },
    [DECIDE_BOOT_MEDIAN] = { "boot-median", "median" },
    [DECIDE_WELCH] = { "welch", "mean" },
    [DECIDE_PERM_TRIM] = { "perm-trim", "30% trimmed mean" },
    [DECIDE_PERM_MEDIAN] = { "perm-median", "median" },
};

void decide_opts_default(struct decide_opts *o)
{
    memset(o, 0, sizeof *o);
    o->method = DECIDE_DEFAULT_METHOD;
    o->alpha = 0.05;
    o->level = 0.95;
    o->min_reps = 3;
    o->seed = 1;
}

const char *decide_verdict_name(enum decide_verdict v)
{
    static const char *const names[] = {
        [DECIDE_BETTER] = "better", [DECIDE_WORSE] = "worse",
        [DECIDE_WITHIN_NOISE] = "within noise", [DECIDE_NO_VERDICT] = "no verdict",
    };
    return names[v];
}

const char *decide_method_name(enum decide_method m)
{
    return m < DECIDE_METHOD_NR ? methods[m].name : "?";
}

int decide_method_parse(const char *name)
{
    for (int m = 0; m < DECIDE_METHOD_NR; m++)
        if (strcmp(methods[m].name, name) == 0) return m;
    return -1;
}

/* The estimate (log units), its interval at `level` and the two-sided p;
 * a test whose null distribution need not be symmetric gives its
 * one-sided p's too (p_up: the candidate higher; else NAN), and a
 * permutation test on random splits their number (mc_splits, else 0). */
struct estimate {
    double shift, lo, hi, p;
    double p_up, p_down;
    long long mc_splits;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool has_ties(const double *a, int na, const double *b, int nb)
{
    int n = na + nb;
    double *all = xmalloc(sizeof *all * (size_t)n);
    memcpy(all, a, sizeof *a * (size_t)na);
    memcpy(all + na, b, sizeof *b * (size_t)nb);
    qsort(all, (size_t)n, sizeof *all, cmp_double);
    bool tie = false;
    for (int i = 1; i < n && !tie; i++) tie = all[i] == all[i - 1];
    free(all);
    return tie;
}

/* Hodges-Lehmann: the median of all cand - base differences. Its interval
 * is the one R's wilcox.test(conf.int = TRUE) gives: order statistics of
 * the differences at the exact U quantile, or (ties, large samples) at the
 * normal approximation's. */
static void est_hl_mw(const double *b, int nb, const double *c, int nc, double level, struct estimate *r,
                      char *test, size_t tn)
{
    int mn = nb * nc;
    double *d = xmalloc(sizeof *d * (size_t)mn);
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nc; j++) d[i * nc + j] = c[j] - b[i];
    qsort(d, (size_t)mn, sizeof *d, cmp_double);
    r->shift = gsl_stats_median_from_sorted_data(d, 1, (size_t)mn);
    int upper = 0;   /* U of the candidate: pairs where it is higher */
    for (int k = 0; k < mn; k++) upper += d[k] > 0;
    double half = (1 - level) / 2;
    int q;
    if (!has_ties(b, nb, c, nc) && mn <= SIGNIF_MW_EXACT_MAX) {
        double *pmf = xmalloc(sizeof *pmf * (size_t)(mn + 1)), cdf = 0, tail = 0;
        signif_mw_pmf(nc, nb, pmf);
        int u = upper > mn - upper ? upper : mn - upper;
        for (int k = u; k <= mn; k++) tail += pmf[k];
        r->p = fmin(1, 2 * tail);
        for (q = 0; q <= mn && (cdf += pmf[q]) < half; q++) {}
        free(pmf);
        snprintf(test, tn, "Mann-Whitney exact");
    } else {
        struct mw_result m;
        signif_mann_whitney(c, nc, b, nb, &m);
        r->p = m.p;
        double sd = sqrt(mn * (nb + nc + 1.0) / 12);
        q = (int)floor(mn / 2.0 - gsl_cdf_ugaussian_Qinv(half) * sd);
        snprintf(test, tn, "Mann-Whitney normal approx.");
    }
    if (q < 1) q = 1;   /* the widest interval the data allow */
    if (q > mn) q = mn;
    r->lo = d[q - 1];
    r->hi = d[mn - q];
    free(d);
}

/* Trimmed mean and winsorised variance of x (sorted in place). */
static void trimmed(double *x, int n, double *tmean, double *d, int *h)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    int g = (int)floor(YUEN_TRIM * n);
    *h = n - 2 * g;
    double s = 0;
    for (int i = g; i < n - g; i++) s += x[i];
    *tmean = s / *h;
    double wm = 0, wv = 0;
    for (int i = 0; i < n; i++) wm += x[i < g ? g : i >= n - g ? n - g - 1 : i];
    wm /= n;
    for (int i = 0; i < n; i++) {
        double v = x[i < g ? g : i >= n - g ? n - g - 1 : i] - wm;
        wv += v * v;
    }
    wv /= n - 1;
    *d = (n - 1) * wv / ((double)*h * (*h - 1));
}

/* Yuen (1974): Welch's test on trimmed means with winsorised variances. */
static void est_yuen(const double *b, int nb, const double *c, int nc, double level, struct estimate *r,
                     char *test, size_t tn)
{
    double *xb = xmalloc(sizeof *xb * (size_t)nb), *xc = xmalloc(sizeof *xc * (size_t)nc);
    memcpy(xb, b, sizeof *b * (size_t)nb);
    memcpy(xc, c, sizeof *c * (size_t)nc);
    double tb, tc, db, dc;
    int hb, hc;
    trimmed(xb, nb, &tb, &db, &hb);
    trimmed(xc, nc, &tc, &dc, &hc);
    free(xb);
    free(xc);
    r->shift = tc - tb;
    double se = sqrt(db + dc);
    if (se <= 0) {
        r->p = r->shift == 0 ? 1 : 0;
        r->lo = r->hi = r->shift;
        snprintf(test, tn, "Yuen t");
        return;
    }
    double df = (db + dc) * (db + dc) / (db * db / (hb - 1) + dc * dc / (hc - 1));
    double t = r->shift / se, crit = gsl_cdf_tdist_Qinv((1 - level) / 2, df);
    r->p = fmin(1, 2 * gsl_cdf_tdist_Q(fabs(t), df));
    r->lo = r->shift - crit * se;
    r->hi = r->shift + crit * se;
    snprintf(test, tn, "Yuen t (df %.1f)", df);
}

static double median_of(const double *x, int n, double *scratch)
{
    memcpy(scratch, x, sizeof *x * (size_t)n);
    gsl_sort(scratch, 1, (size_t)n);
    return gsl_stats_median_from_sorted_data(scratch, 1, (size_t)n);
}

/* Percentile bootstrap of the difference of medians; p by inverting the
 * interval (the share of resamples on the other side of 0, doubled). */
static void est_boot_median(const double *b, int nb, const double *c, int nc, double level, uint64_t seed,
                            struct estimate *r, char *test, size_t tn)
{
    int n = nb > nc ? nb : nc;
    double *scratch = xmalloc(sizeof *scratch * (size_t)n), *rs = xmalloc(sizeof *rs * (size_t)n);
    double *reps = xmalloc(sizeof *reps * BOOT_ITERS);
    r->shift = median_of(c, nc, scratch) - median_of(b, nb, scratch);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)seed);
    int below = 0, above = 0;
    for (int i = 0; i < BOOT_ITERS; i++) {
        for (int k = 0; k < nc; k++) rs[k] = c[gsl_rng_uniform_int(rng, (unsigned long)nc)];
        double mc = median_of(rs, nc, scratch);
        for (int k = 0; k < nb; k++) rs[k] = b[gsl_rng_uniform_int(rng, (unsigned long)nb)];
        reps[i] = mc - median_of(rs, nb, scratch);
        below += reps[i] <= 0;
        above += reps[i] >= 0;
    }
    gsl_rng_free(rng);
    gsl_sort(reps, 1, BOOT_ITERS);
    r->lo = gsl_stats_quantile_from_sorted_data(reps, 1, BOOT_ITERS, (1 - level) / 2);
    r->hi = gsl_stats_quantile_from_sorted_data(reps, 1, BOOT_ITERS, 1 - (1 - level) / 2);
    r->p = fmin(1, 2.0 * ((below < above ? below : above) + 1) / (BOOT_ITERS + 1));
    free(scratch);
    free(rs);
    free(reps);
    snprintf(test, tn, "bootstrap of medians");
}

/* A permutation test's result as an estimate: both sides' p (the
 * one-sided claim reads its own side) and how many random rearrangements
 * its p rests on (0: every one). */
static void from_perm(const struct perm_result *pr, struct estimate *r)
{
    r->shift = pr->stat;
    r->lo = pr->lo;
    r->hi = pr->hi;
    r->p = pr->p_two;
    r->p_up = pr->p_greater;
    r->p_down = pr->p_less;
    r->mc_splits = pr->exact ? 0 : pr->splits;
}

/* A permutation test of the difference of trimmed means (or medians):
 * exact over every split of the pooled runs when there are few enough,
 * else over random splits (perm.h); the interval inverts the test. */
static void est_perm(const double *b, int nb, const double *c, int nc, double trim, double level, uint64_t seed,
                     struct estimate *r, char *test, size_t tn)
{
    struct perm_result pr;
    /* It refuses only an empty side or a level outside (0, 1), which
     * check_opts and screen have ruled out: a refusal is a bug, and its
     * zeroed p would claim a win. */
    if (perm_test(b, nb, c, nc, trim, level, seed, &pr) < 0)
        sl_die("decide: the permutation test refused %d v %d runs at level %g (a bug)", nb, nc, level);
    from_perm(&pr, r);
    if (pr.exact) snprintf(test, tn, "permutation exact (%lld splits)", pr.splits);
    else snprintf(test, tn, "permutation MC %lld", pr.splits);
}

/* The same location's difference, its test swapping runs only within a
 * round (perm_rounds_test): exact over every pattern when there are few
 * enough, else over random ones. */
static void est_rounds(const double *b, const double *c, int n, double trim, double level, uint64_t seed,
                       struct estimate *r, char *test, size_t tn)
{
    struct perm_result pr;
    /* as est_perm: screen has ruled out every refusal */
    if (perm_rounds_test(b, c, n, trim, level, seed, &pr) < 0)
        sl_die("decide: the rounds' permutation test refused %d rounds at level %g (a bug)", n, level);
    from_perm(&pr, r);
    if (pr.exact) snprintf(test, tn, "round swaps exact (%lld)", pr.splits);
    else snprintf(test, tn, "round swaps MC %lld", pr.splits);
}

static void est_welch(const double *b, int nb, const double *c, int nc, double level, struct estimate *r,
                      char *test, size_t tn)
{
    struct welch_result w;
    signif_welch(c, nc, b, nb, &w);
    r->shift = w.diff;
    r->p = w.p;
    double se = w.t != 0 && isfinite(w.t) ? fabs(w.diff / w.t) : 0;
    double crit = gsl_cdf_tdist_Qinv((1 - level) / 2, w.df);
    r->lo = w.diff - crit * se;
    r->hi = w.diff + crit * se;
    snprintf(test, tn, "Welch t (df %.1f)", w.df);
}

/* Wilcoxon signed-rank on paired differences d (zeros dropped, as R
 * does) with the Hodges-Lehmann pseudo-median (the median of the Walsh
 * averages) and its interval: R's wilcox.test(x, y, paired = TRUE,
 * conf.int = TRUE), exact without ties or zeros, else the normal
 * approximation with the tie correction and R's continuity correction. */
static void est_signed_rank(const double *d0, int n0, double level, struct estimate *r, char *test, size_t tn)
{
    double *d = xmalloc(sizeof *d * (size_t)(n0 + 1));
    int n = 0;
    for (int i = 0; i < n0; i++)
        if (d0[i] != 0) d[n++] = d0[i];
    int mw = n0 * (n0 + 1) / 2;
    double *walsh = xmalloc(sizeof *walsh * (size_t)(mw + 1));
    int k = 0;
    for (int i = 0; i < n0; i++)
        for (int j = i; j < n0; j++) walsh[k++] = (d0[i] + d0[j]) / 2;
    qsort(walsh, (size_t)mw, sizeof *walsh, cmp_double);
    r->shift = gsl_stats_median_from_sorted_data(walsh, 1, (size_t)mw);
    /* ranks of |d| (average ranks for ties) and V, the positive ranks' sum */
    double *a = xmalloc(sizeof *a * (size_t)(n + 1));
    for (int i = 0; i < n; i++) a[i] = fabs(d[i]);
    qsort(a, (size_t)n, sizeof *a, cmp_double);
    double v = 0, tie_adj = 0;
    bool ties = n < n0;
    for (int i = 0; i < n; i++) {
        int lo = 0, hi = n - 1;
        while (lo < n && a[lo] < fabs(d[i])) lo++;
        for (hi = lo; hi + 1 < n && a[hi + 1] == a[lo]; hi++) {}
        if (d[i] > 0) v += (lo + hi) / 2.0 + 1;
    }
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && a[j + 1] == a[i]) j++;
        int t = j - i + 1;
        if (t > 1) { ties = true; tie_adj += (double)t * t * t - t; }
        i = j + 1;
    }
    double half = (1 - level) / 2;
    int q;
    if (!ties && n > 0 && n <= 50) {
        int m = n * (n + 1) / 2;
        double *pmf = xcalloc((size_t)m + 1, sizeof *pmf);
        pmf[0] = 1;
        for (int rank = 1; rank <= n; rank++)
            for (int s = m; s >= rank; s--) pmf[s] += pmf[s - rank];
        double total = ldexp(1, n), up = 0, down = 0, cdf = 0;
        for (int s = 0; s <= m; s++) {
            pmf[s] /= total;
            if (s >= v) up += pmf[s];
            if (s <= v) down += pmf[s];
        }
        r->p = fmin(1, 2 * fmin(up, down));
        for (q = 0; q <= m && (cdf += pmf[q]) < half; q++) {}
        free(pmf);
        snprintf(test, tn, "Wilcoxon signed-rank exact");
    } else {
        double mean = n * (n + 1) / 4.0, sd = sqrt(n * (n + 1) * (2 * n + 1) / 24.0 - tie_adj / 48);
        double z = v - mean;
        z = sd > 0 ? (z - (z > 0 ? 0.5 : z < 0 ? -0.5 : 0)) / sd : 0;
        r->p = fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(z)));
        q = (int)floor(mw / 2.0 - gsl_cdf_ugaussian_Qinv(half) * sqrt(n0 * (n0 + 1) * (2 * n0 + 1) / 24.0));
        snprintf(test, tn, "Wilcoxon signed-rank normal approx.");
    }
    if (q < 1) q = 1;
    if (q > mw) q = mw;
    r->lo = walsh[q - 1];
    r->hi = walsh[mw - q];
    free(a);
    free(walsh);
    free(d);
}

/* Copies of the values in log units, or a reason there is no verdict. */
static enum decide_why prepare(const double *x, int n, bool log_input, double *out, int *bad)
{
    *bad = 0;
    for (int i = 0; i < n; i++) *bad += !isfinite(x[i]);
    if (*bad) return DECIDE_WHY_NONFINITE;
    for (int i = 0; i < n; i++) *bad += !log_input && x[i] <= 0;
    if (*bad) return DECIDE_WHY_NONPOSITIVE;
    for (int i = 0; i < n; i++) out[i] = log_input ? x[i] : log(x[i]);
    return DECIDE_WHY_NONE;
}

static bool constant(const double *x, int n)
{
    for (int i = 1; i < n; i++)
        if (x[i] != x[0]) return false;
    return true;
}

static void no_verdict(struct decision *d, enum decide_why why, const char *fmt, const char *side, int count, int more)
{
    d->verdict = DECIDE_NO_VERDICT;
    d->why = why;
    snprintf(d->why_text, sizeof d->why_text, fmt, side, count, more);
}

/* Reasons there can be no verdict, in the order a reader needs them: a
 * failed run first (its value is meaningless), then counts, then spread. */
static bool screen(const double *base, int nb, const double *cand, int nc, const struct decide_opts *o, double *lb,
                   double *lc, struct decision *d)
{
    const char *sides[2] = { "baseline", "candidate" };
    const double *raw[2] = { base, cand };
    int ns[2] = { nb, nc }, bad;
    double *dst[2] = { lb, lc };
    for (int s = 0; s < 2; s++) {
        enum decide_why w = prepare(raw[s], ns[s], o->log_input, dst[s], &bad);
        if (w == DECIDE_WHY_NONFINITE) {
            no_verdict(d, w, "the %s has %d run(s) whose metric is NaN or infinite (a failed run?) among %d: rerun it", sides[s], bad, ns[s]);
            return false;
        }
        if (w == DECIDE_WHY_NONPOSITIVE) {
            no_verdict(d, w, "the %s has %d run(s) whose metric is 0 or negative among %d: no ratio can be taken", sides[s], bad, ns[s]);
            return false;
        }
    }
    for (int s = 0; s < 2; s++)
        if (ns[s] < o->min_reps) {
            no_verdict(d, DECIDE_WHY_TOO_FEW, "the %s has %d run(s); a verdict needs at least %d", sides[s], ns[s], o->min_reps);
            return false;
        }
    if (constant(lb, nb) && constant(lc, nc)) {
        no_verdict(d, DECIDE_WHY_IDENTICAL, "the %s's %d runs and the other side's %d are each all one value: "
                   "no spread to judge a difference against (a stuck or coarse measurement?)", sides[0], nb, nc);
        return false;
    }
    return true;
}

static int check_opts(const struct decide_opts *o, int nb, int nc, sl_err *e)
{
    if (!(o->alpha > 0 && o->alpha < 1) || !(o->level > 0 && o->level < 1))
        return sl_fail(e, SL_EUSAGE, "decide: alpha %g and level %g must be between 0 and 1", o->alpha, o->level);
    if (o->method >= DECIDE_METHOD_NR || o->min_reps < 2 || nb < 0 || nc < 0)
        return sl_fail(e, SL_EUSAGE, "decide: unknown method %d or min_reps %d below 2", (int)o->method, o->min_reps);
    return 0;
}

static void begin(struct decision *out, const struct decide_opts *o, int nb, int nc)
{
    memset(out, 0, sizeof *out);
    out->method = o->method;
    out->estimator = methods[o->method].estimator;
    out->level = o->level;
    out->alpha = o->alpha;
    out->nb = nb;
    out->nc = nc;
    out->effect_pct = out->lo_pct = out->hi_pct = out->p = NAN;
}

static void conclude(struct decision *out, const struct decide_opts *o, const struct estimate *r)
{
    out->effect_pct = 100 * (exp(r->shift) - 1);
    out->lo_pct = 100 * (exp(r->lo) - 1);
    out->hi_pct = 100 * (exp(r->hi) - 1);
    out->p = r->p;
    bool up = r->shift > 0;
    if (o->one_sided) {
        /* a permutation test counts each side; the others have a null
         * distribution symmetric about no change: the one-sided p is half
         * the two-sided one on the side of the estimate, one minus that
         * half on the other */
        bool toward = up != o->lower_is_better;
        if (isfinite(r->p_up)) out->p = o->lower_is_better ? r->p_down : r->p_up;
        else out->p = toward ? r->p / 2 : 1 - r->p / 2;
        bool clear = out->p < o->alpha && (o->lower_is_better ? r->hi < 0 : r->lo > 0);
        out->verdict = clear ? DECIDE_BETTER : DECIDE_WITHIN_NOISE;
        return;
    }
    bool clear = r->p < o->alpha && (up ? r->lo > 0 : r->hi < 0);
    if (!clear) out->verdict = DECIDE_WITHIN_NOISE;
    else out->verdict = up != o->lower_is_better ? DECIDE_BETTER : DECIDE_WORSE;
}

/* The test's name, then the Monte Carlo error of the p that decided
 * (random rearrangements) and the side it was tested on. */
static void finish_test_text(struct decision *out, const struct decide_opts *o, const struct estimate *r)
{
    size_t len = strlen(out->test);
    if (r->mc_splits > 0)
        snprintf(out->test + len, sizeof out->test - len, " (p se %.2g)", sqrt(out->p * (1 - out->p) / (double)r->mc_splits));
    if (o->one_sided) {
        len = strlen(out->test);
        snprintf(out->test + len, sizeof out->test - len, " one-sided");
    }
}

int decide_compare(const double *base, int nb, const double *cand, int nc, const struct decide_opts *o,
                   struct decision *out, sl_err *e)
{
    memset(out, 0, sizeof *out);
    if (check_opts(o, nb, nc, e) < 0) return -1;
    begin(out, o, nb, nc);
    double *lb = xmalloc(sizeof *lb * (size_t)(nb + 1)), *lc = xmalloc(sizeof *lc * (size_t)(nc + 1));
    if (screen(base, nb, cand, nc, o, lb, lc, out)) {
        struct estimate r = { .p_up = NAN, .p_down = NAN };
        switch (o->method) {
        case DECIDE_HL_MW: est_hl_mw(lb, nb, lc, nc, o->level, &r, out->test, sizeof out->test); break;
        case DECIDE_YUEN: est_yuen(lb, nb, lc, nc, o->level, &r, out->test, sizeof out->test); break;
        case DECIDE_BOOT_MEDIAN: est_boot_median(lb, nb, lc, nc, o->level, o->seed, &r, out->test, sizeof out->test); break;
        case DECIDE_PERM_TRIM: est_perm(lb, nb, lc, nc, PERM_TRIM_SHARE, o->level, o->seed, &r, out->test, sizeof out->test); break;
        case DECIDE_PERM_MEDIAN: est_perm(lb, nb, lc, nc, PERM_MEDIAN, o->level, o->seed, &r, out->test, sizeof out->test); break;
        default: est_welch(lb, nb, lc, nc, o->level, &r, out->test, sizeof out->test); break;
        }
        conclude(out, o, &r);
        finish_test_text(out, o, &r);
    }
    free(lb);
    free(lc);
    return 0;
}

int decide_rounds(const double *base, const double *cand, int n, const struct decide_opts *o, struct decision *out,
                  sl_err *e)
{
    if (o->method != DECIDE_PERM_TRIM && o->method != DECIDE_PERM_MEDIAN) return decide_compare(base, n, cand, n, o, out, e);
    if (check_opts(o, n, n, e) < 0) return -1;
    begin(out, o, n, n);
    double *lb = xmalloc(sizeof *lb * (size_t)(n + 1)), *lc = xmalloc(sizeof *lc * (size_t)(n + 1));
    if (screen(base, n, cand, n, o, lb, lc, out)) {
        struct estimate r = { .p_up = NAN, .p_down = NAN };
        est_rounds(lb, lc, n, o->method == DECIDE_PERM_TRIM ? PERM_TRIM_SHARE : PERM_MEDIAN, o->level, o->seed, &r,
                   out->test, sizeof out->test);
        out->in_rounds = true;
        conclude(out, o, &r);
        finish_test_text(out, o, &r);
    }
    free(lb);
    free(lc);
    return 0;
}

int decide_paired(const double *base, const double *cand, int n, const struct decide_opts *o, struct decision *out,
                  sl_err *e)
{
    if (check_opts(o, n, n, e) < 0) return -1;
    begin(out, o, n, n);
    out->estimator = "Hodges-Lehmann pseudo-median of paired differences";
    double *lb = xmalloc(sizeof *lb * (size_t)(n + 1)), *lc = xmalloc(sizeof *lc * (size_t)(n + 1));
    if (screen(base, n, cand, n, o, lb, lc, out)) {
        for (int i = 0; i < n; i++) lc[i] -= lb[i];
        if (constant(lc, n)) {
            no_verdict(out, DECIDE_WHY_IDENTICAL, "the %s differs from the baseline by the same amount in all %d "
                       "pairs (%d distinct difference): no spread to judge it against", "candidate", n, 1);
        } else {
            struct estimate r = { .p_up = NAN, .p_down = NAN };
            est_signed_rank(lc, n, o->level, &r, out->test, sizeof out->test);
            conclude(out, o, &r);
            size_t len = strlen(out->test);
            if (o->one_sided) snprintf(out->test + len, sizeof out->test - len, " one-sided");
        }
    }
    free(lb);
    free(lc);
    return 0;
}

double decide_pairs_shared_spread(const double *base, const double *cand, int n)
{
    if (n < 3) return NAN;
    double *sum = xmalloc(sizeof *sum * (size_t)n), *diff = xmalloc(sizeof *diff * (size_t)n),
           *work = xmalloc(sizeof *work * (size_t)n);
    for (int i = 0; i < n; i++) sum[i] = cand[i] + base[i], diff[i] = fabs(cand[i] - base[i]);
    double ms = gsl_stats_mad0(sum, 1, (size_t)n, work), md = gsl_stats_mad0(diff, 1, (size_t)n, work);
    free(sum);
    free(diff);
    free(work);
    return md > 0 ? ms / md : INFINITY;
}

void decide_text(const struct decision *d, char *buf, size_t n)
{
    if (d->verdict == DECIDE_NO_VERDICT) {
        snprintf(buf, n, "no verdict: %s", d->why_text);
        return;
    }
    snprintf(buf, n, "%+.1f%% [%.0f%% CI %+.1f%%, %+.1f%%] (%s, %s p=%.2g): %s", d->effect_pct, 100 * d->level,
             d->lo_pct, d->hi_pct, d->estimator, d->test, d->p, decide_verdict_name(d->verdict));
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

void *decide_json(const struct decision *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "verdict", json_string(decide_verdict_name(d->verdict)));
    json_object_set_new(o, "estimator", json_string(d->estimator ? d->estimator : ""));
    json_object_set_new(o, "test", json_string(d->test));
    json_object_set_new(o, "effect_pct", num_or_null(d->effect_pct));
    json_object_set_new(o, "ci_pct", json_pack("[oo]", num_or_null(d->lo_pct), num_or_null(d->hi_pct)));
    json_object_set_new(o, "level", json_real(d->level));
    json_object_set_new(o, "p", num_or_null(d->p));
    json_object_set_new(o, "alpha", json_real(d->alpha));
    json_object_set_new(o, "n_base", json_integer(d->nb));
    json_object_set_new(o, "n_candidate", json_integer(d->nc));
    json_object_set_new(o, "no_verdict_reason", d->why ? json_string(d->why_text) : json_null());
    return o;
}

double decide_look_alpha(double alpha, int k, int looks)
{
    if (k < 1 || k > looks) return 0;
    if (looks == 1) return alpha;
    if (k == looks) return alpha / 2;
    return alpha / 2 * 2.0 * k / ((double)(looks - 1) * looks);
}
