/* signif — is a difference real? Two-sample tests (Welch, Mann-Whitney),
 * Holm's correction across several comparisons, effect size, and bootstrap
 * confidence intervals of a relative improvement. Numerics come from GSL. */
#ifndef SLUICE_SIGNIF_H
#define SLUICE_SIGNIF_H

#include <stdbool.h>
#include <stdint.h>

struct sample_summary {
    int n;
    double mean, sd, median, min, max;
};
/* Summary of x[0..n-1] (sd is the n-1 sample standard deviation, 0 for n<2). */
void signif_summary(const double *x, int n, struct sample_summary *out);

struct welch_result {
    double diff;   /* mean(a) - mean(b) */
    double t, df;  /* Welch-Satterthwaite degrees of freedom */
    double p;      /* two-sided */
};
/* Welch's unequal-variance t-test of a against b. -1 when either sample has
 * fewer than 2 values. Two constant samples give p = 1 when equal, else 0. */
int signif_welch(const double *a, int na, const double *b, int nb, struct welch_result *out);

struct mw_result {
    double u;      /* U statistic of a (count of a>b pairs, ties count 1/2) */
    double z;      /* normal approximation (0 when exact) */
    double p;      /* two-sided */
    bool exact;    /* exact null distribution (small samples without ties) */
};
/* Mann-Whitney U test. Exact when a sample has at most 8 values, there are
 * no ties and na*nb <= SIGNIF_MW_EXACT_MAX (a memory bound); otherwise the
 * normal approximation with tie correction and continuity correction
 * (scipy.stats.mannwhitneyu's defaults). -1 when a sample is empty. */
int signif_mann_whitney(const double *a, int na, const double *b, int nb, struct mw_result *out);

/* The exact null distribution of U for samples of m and n values without
 * ties: pmf[0..m*n] (caller's array). -1 when m*n > SIGNIF_MW_EXACT_MAX. */
#define SIGNIF_MW_EXACT_MAX 2500
int signif_mw_pmf(int m, int n, double *pmf);

/* Holm's step-down adjustment: adj[i] is the family-wise adjusted p of p[i]
 * (monotone, capped at 1). adj may alias p. */
void signif_holm(const double *p, int n, double *adj);

/* Hedges' g: standardised mean difference (a - b) with the small-sample
 * correction. 0 when the pooled deviation is 0 or a sample has < 2 values. */
double signif_hedges_g(const double *a, int na, const double *b, int nb);

enum boot_method { BOOT_PERCENTILE, BOOT_BCA };
enum boot_stat {
    BOOT_RATIO_OF_MEANS,    /* mean(a)/mean(b) - 1: raw positive metrics */
    BOOT_EXP_MEAN_DIFF,     /* exp(mean(a) - mean(b)) - 1: log-scale scores */
};
struct ci {
    double est, lo, hi;
    double level;
};
/* Two-sample bootstrap confidence interval (level e.g. 0.95) of the relative
 * improvement of a over b, resampling each sample with replacement `iters`
 * times from a generator seeded with `seed` (deterministic). -1 when a
 * sample is empty or the statistic is undefined (mean(b) == 0). */
int signif_bootstrap(const double *a, int na, const double *b, int nb, enum boot_stat stat,
                     enum boot_method method, int iters, double level, uint64_t seed, struct ci *out);

/* Minimum detectable relative effect (two-sided alpha, power 1-beta) for two
 * samples of n with standard deviation sd of log values. */
double signif_mde(double sd, int n, double alpha, double power);

#endif
