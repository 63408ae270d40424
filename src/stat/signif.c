/* signif — two-sample tests, Holm, effect size, bootstrap intervals. */
#include "stat/signif.h"
#include "core/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

void signif_summary(const double *x, int n, struct sample_summary *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n <= 0) return;
    double *s = xmalloc(sizeof *s * (size_t)n);
    memcpy(s, x, sizeof *s * (size_t)n);
    gsl_sort(s, 1, (size_t)n);
    out->mean = gsl_stats_mean(s, 1, (size_t)n);
    out->sd = n > 1 ? gsl_stats_sd_m(s, 1, (size_t)n, out->mean) : 0;
    out->median = gsl_stats_median_from_sorted_data(s, 1, (size_t)n);
    out->min = s[0];
    out->max = s[n - 1];
    free(s);
}

int signif_welch(const double *a, int na, const double *b, int nb, struct welch_result *out)
{
    memset(out, 0, sizeof *out);
    if (na < 2 || nb < 2) return -1;
    double ma = gsl_stats_mean(a, 1, (size_t)na), mb = gsl_stats_mean(b, 1, (size_t)nb);
    double va = gsl_stats_variance_m(a, 1, (size_t)na, ma), vb = gsl_stats_variance_m(b, 1, (size_t)nb, mb);
    double sa = va / na, sb = vb / nb, se2 = sa + sb;
    out->diff = ma - mb;
    if (se2 <= 0) {
        /* Two constant samples: either identical or certainly different. */
        out->t = out->diff == 0 ? 0 : copysign(INFINITY, out->diff);
        out->df = na + nb - 2;
        out->p = out->diff == 0 ? 1 : 0;
        return 0;
    }
    out->t = out->diff / sqrt(se2);
    out->df = se2 * se2 / (sa * sa / (na - 1) + sb * sb / (nb - 1));
    out->p = 2 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
    if (out->p > 1) out->p = 1;
    return 0;
}

struct ranked { double v; int from_a; };

static int cmp_ranked(const void *x, const void *y)
{
    double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;
    return (a > b) - (a < b);
}

int signif_mw_pmf(int m, int n, double *pmf)
{
    if (m < 1 || n < 1 || (long)m * n > SIGNIF_MW_EXACT_MAX) return -1;
    int umax = m * n;
    /* f[j][k]: arrangements of i a's and j b's with U = k, for the current
     * i (rows for i-1 kept in prev): the largest value is an a (beats all
     * j b's) or a b. */
    size_t stride = (size_t)umax + 1, cells = (size_t)(n + 1) * stride;
    double *prev = xcalloc(cells, sizeof *prev), *cur = xcalloc(cells, sizeof *cur);
    for (int j = 0; j <= n; j++) prev[(size_t)j * stride] = 1;   /* i = 0 */
    for (int i = 1; i <= m; i++) {
        memset(cur, 0, cells * sizeof *cur);
        cur[0] = 1;                                              /* j = 0 */
        for (int j = 1; j <= n; j++)
            for (int k = 0; k <= i * j; k++) {
                double v = k <= i * (j - 1) ? cur[(size_t)(j - 1) * stride + (size_t)k] : 0;
                if (k >= j) v += prev[(size_t)j * stride + (size_t)(k - j)];
                cur[(size_t)j * stride + (size_t)k] = v;
            }
        double *t = prev; prev = cur; cur = t;
    }
    double total = 0;
    for (int k = 0; k <= umax; k++) total += prev[(size_t)n * stride + (size_t)k];
    for (int k = 0; k <= umax; k++) pmf[k] = prev[(size_t)n * stride + (size_t)k] / total;
    free(prev);
    free(cur);
    return 0;
}

/* P(U >= u) under H0 for sample sizes m, n without ties. */
static double mw_exact_sf(int u, int m, int n)
{
    int umax = m * n;
    if (u <= 0) return 1;
    if (u > umax) return 0;
    double *pmf = xmalloc(sizeof *pmf * (size_t)(umax + 1)), tail = 0;
    signif_mw_pmf(m, n, pmf);
    for (int k = u; k <= umax; k++) tail += pmf[k];
    free(pmf);
    return tail;
}

int signif_mann_whitney(const double *a, int na, const double *b, int nb, struct mw_result *out)
{
    memset(out, 0, sizeof *out);
    if (na < 1 || nb < 1) return -1;
    int n = na + nb;
    struct ranked *r = xmalloc(sizeof *r * (size_t)n);
    for (int i = 0; i < na; i++) r[i] = (struct ranked){ a[i], 1 };
    for (int i = 0; i < nb; i++) r[na + i] = (struct ranked){ b[i], 0 };
    qsort(r, (size_t)n, sizeof *r, cmp_ranked);
    double rank_sum_a = 0, tie_term = 0;
    bool ties = false;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && r[j + 1].v == r[i].v) j++;
        double mid = (i + j) / 2.0 + 1; /* average rank of the tie group */
        int t = j - i + 1;
        if (t > 1) { ties = true; tie_term += (double)t * t * t - t; }
        for (int k = i; k <= j; k++) if (r[k].from_a) rank_sum_a += mid;
        i = j + 1;
    }
    free(r);
    double u1 = rank_sum_a - na * (na + 1) / 2.0, u2 = (double)na * nb - u1;
    double u = u1 > u2 ? u1 : u2;
    out->u = u1;
    if ((na <= 8 || nb <= 8) && (long)na * nb <= SIGNIF_MW_EXACT_MAX && !ties) {
        out->exact = true;
        out->p = 2 * mw_exact_sf((int)lround(u), na, nb);
    } else {
        double mu = na * (double)nb / 2;
        double s = sqrt(na * (double)nb / 12 * ((n + 1) - tie_term / ((double)n * (n - 1))));
        out->z = s > 0 ? (u - mu - 0.5) / s : 0;
        out->p = s > 0 ? 2 * gsl_cdf_ugaussian_Q(out->z) : 1;
    }
    if (out->p > 1) out->p = 1;
    return 0;
}

void signif_holm(const double *p, int n, double *adj)
{
    if (n <= 0) return;
    size_t *order = xmalloc(sizeof *order * (size_t)n);
    double *copy = xmalloc(sizeof *copy * (size_t)n);
    memcpy(copy, p, sizeof *copy * (size_t)n);
    gsl_sort_index(order, copy, 1, (size_t)n);
    double running = 0;
    for (int k = 0; k < n; k++) {
        double v = (n - k) * copy[order[k]];
        if (v > 1) v = 1;
        if (v < running) v = running; /* adjusted p-values never decrease */
        running = v;
        adj[order[k]] = v;
    }
    free(order);
    free(copy);
}

double signif_hedges_g(const double *a, int na, const double *b, int nb)
{
    if (na < 2 || nb < 2) return 0;
    double ma = gsl_stats_mean(a, 1, (size_t)na), mb = gsl_stats_mean(b, 1, (size_t)nb);
    double va = gsl_stats_variance_m(a, 1, (size_t)na, ma), vb = gsl_stats_variance_m(b, 1, (size_t)nb, mb);
    double pooled = sqrt(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2));
    if (pooled <= 0) return 0;
    double j = 1 - 3.0 / (4.0 * (na + nb) - 9);
    return j * (ma - mb) / pooled;
}

static double boot_stat(enum boot_stat stat, double ma, double mb)
{
    if (stat == BOOT_RATIO_OF_MEANS) return mb != 0 ? ma / mb - 1 : NAN;
    return exp(ma - mb) - 1;
}

static double mean_of(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    return s / n;
}

/* Bias-corrected and accelerated bounds: z0 from the share of replicates
 * below the estimate, acceleration from the jackknife over both samples. */
static void bca_bounds(const double *a, int na, const double *b, int nb, enum boot_stat stat,
                       const double *reps, int iters, double level, struct ci *out)
{
    int below = 0;
    for (int i = 0; i < iters; i++) below += reps[i] < out->est;
    double frac = (below + 0.5) / (iters + 1.0);
    double z0 = gsl_cdf_ugaussian_Pinv(frac);
    int n = na + nb;
    double *jack = xmalloc(sizeof *jack * (size_t)n);
    double sa = mean_of(a, na) * na, sb = mean_of(b, nb) * nb, jm = 0;
    for (int i = 0; i < n; i++) {
        double ma = i < na ? (na > 1 ? (sa - a[i]) / (na - 1) : sa) : sa / na;
        double mb = i >= na ? (nb > 1 ? (sb - b[i - na]) / (nb - 1) : sb) : sb / nb;
        jack[i] = boot_stat(stat, ma, mb);
        jm += jack[i] / n;
    }
    double num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        double d = jm - jack[i];
        num += d * d * d;
        den += d * d;
    }
    free(jack);
    double acc = den > 0 ? num / (6 * pow(den, 1.5)) : 0;
    double alpha = (1 - level) / 2, q[2];
    double zs[2] = { gsl_cdf_ugaussian_Pinv(alpha), gsl_cdf_ugaussian_Pinv(1 - alpha) };
    for (int k = 0; k < 2; k++) {
        double zz = z0 + (z0 + zs[k]) / (1 - acc * (z0 + zs[k]));
        q[k] = gsl_cdf_ugaussian_P(zz);
    }
    out->lo = gsl_stats_quantile_from_sorted_data(reps, 1, (size_t)iters, q[0]);
    out->hi = gsl_stats_quantile_from_sorted_data(reps, 1, (size_t)iters, q[1]);
}

/* Past this many values a resample's mean is drawn from its normal limit
 * (mean, sd/sqrt(n)) instead of n draws: by then the two agree to well
 * within the interval's own Monte Carlo error (2,000 resamples; the skew a
 * percentile interval would catch shrinks as 1/sqrt(n)), and the
 * draw-by-draw loop made a 200k-run comparison take seconds (O(iters * n)). */
#define BOOT_CLT_MIN 1000

struct boot_sample {
    const double *x;
    int n;
    double mean, se;   /* se: sd/sqrt(n), for the normal limit */
};

static void boot_sample_init(struct boot_sample *s, const double *x, int n)
{
    s->x = x;
    s->n = n;
    s->mean = gsl_stats_mean(x, 1, (size_t)n);
    s->se = n > 1 ? gsl_stats_sd_m(x, 1, (size_t)n, s->mean) / sqrt((double)n) : 0;
}

static double resampled_mean(gsl_rng *rng, const struct boot_sample *s)
{
    if (s->n >= BOOT_CLT_MIN) return s->mean + gsl_ran_gaussian_ziggurat(rng, s->se);
    double sum = 0;
    for (int k = 0; k < s->n; k++) sum += s->x[gsl_rng_uniform_int(rng, (unsigned long)s->n)];
    return sum / s->n;
}

int signif_bootstrap(const double *a, int na, const double *b, int nb, enum boot_stat stat,
                     enum boot_method method, int iters, double level, uint64_t seed, struct ci *out)
{
    memset(out, 0, sizeof *out);
    out->level = level;
    if (na < 1 || nb < 1 || iters < 10) return -1;
    out->est = boot_stat(stat, mean_of(a, na), mean_of(b, nb));
    if (isnan(out->est)) return -1;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)seed);
    struct boot_sample sa, sb;
    boot_sample_init(&sa, a, na);
    boot_sample_init(&sb, b, nb);
    double *reps = xmalloc(sizeof *reps * (size_t)iters);
    int m = 0;
    for (int i = 0; i < iters; i++) {
        double ma = resampled_mean(rng, &sa);   /* a's draws first: the same stream as before */
        double v = boot_stat(stat, ma, resampled_mean(rng, &sb));
        if (!isnan(v)) reps[m++] = v;
    }
    gsl_rng_free(rng);
    if (m < 10) { free(reps); return -1; }
    gsl_sort(reps, 1, (size_t)m);
    double alpha = (1 - level) / 2;
    if (method == BOOT_BCA) {
        bca_bounds(a, na, b, nb, stat, reps, m, level, out);
    } else {
        out->lo = gsl_stats_quantile_from_sorted_data(reps, 1, (size_t)m, alpha);
        out->hi = gsl_stats_quantile_from_sorted_data(reps, 1, (size_t)m, 1 - alpha);
    }
    free(reps);
    return 0;
}

double signif_mde(double sd, int n, double alpha, double power)
{
    if (n < 1) return INFINITY;
    double z = gsl_cdf_ugaussian_Pinv(1 - alpha / 2) + gsl_cdf_ugaussian_Pinv(power);
    return exp(z * sqrt(2.0) * sd / sqrt((double)n)) - 1;
}
