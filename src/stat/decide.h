/* decide — one comparison of a candidate against a baseline, made once for
 * every place that claims an improvement (the search's race, the
 * confirmation round of a transfer, compare): a robust estimator of the
 * relative effect with its interval, a test, and a verdict that is
 * "better", "worse", "within noise", or "no verdict" with the reason (too
 * few runs, no spread, a failed run's NaN/inf). Estimators are chosen by
 * evidence (bench/decide-power, man page "How a verdict is decided"). */
#ifndef SLUICE_DECIDE_H
#define SLUICE_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/err.h"

enum decide_method {
    DECIDE_HL_MW,        /* Hodges-Lehmann shift, Mann-Whitney (exact when small, no ties) */
    DECIDE_YUEN,         /* 20% trimmed means, Yuen's test */
    DECIDE_BOOT_MEDIAN,  /* difference of medians, percentile bootstrap */
    DECIDE_WELCH,        /* means, Welch's t-test (not robust: for comparison) */
    DECIDE_PERM_TRIM,    /* 30% trimmed means, permutation test (perm.h) */
    DECIDE_PERM_MEDIAN,  /* medians, permutation test (perm.h) */
    DECIDE_METHOD_NR
};
#define DECIDE_DEFAULT_METHOD DECIDE_HL_MW

enum decide_verdict { DECIDE_BETTER, DECIDE_WORSE, DECIDE_WITHIN_NOISE, DECIDE_NO_VERDICT };

enum decide_why {
    DECIDE_WHY_NONE,        /* a verdict was drawn */
    DECIDE_WHY_TOO_FEW,     /* fewer than min_reps runs on a side */
    DECIDE_WHY_IDENTICAL,   /* no spread within the samples */
    DECIDE_WHY_NONFINITE,   /* NaN or infinite value (a failed run) */
    DECIDE_WHY_NONPOSITIVE, /* raw values must be > 0 to take a ratio */
};

struct decide_opts {
    enum decide_method method;
    double alpha;            /* two-sided level this comparison is tested at (after
                              * any multiplicity or sequential spending); default 0.05 */
    double level;            /* level of the reported interval; default 0.95 */
    int min_reps;            /* per side; default 3 */
    bool log_input;          /* values are already logs (search scores); else raw
                              * positive metrics whose logs are compared */
    bool lower_is_better;    /* latency-like metrics: a negative effect is better */
    bool one_sided;          /* test only the direction named before the runs
                              * (better): p is one-sided, a "worse" verdict is
                              * never drawn; the claim needs the interval's
                              * lower end (upper with lower_is_better) beyond
                              * 0, so give level = 1 - 2 alpha for the
                              * one-sided bound at 1 - alpha (R's
                              * wilcox.test(alternative = "greater")) */
    uint64_t seed;           /* bootstrap and random-split generator (deterministic) */
};
void decide_opts_default(struct decide_opts *o);

struct decision {
    enum decide_method method;
    const char *estimator;   /* "Hodges-Lehmann shift", ... (static) */
    char test[48];           /* "Mann-Whitney exact", "Yuen t (df 4.1)", "permutation
                              * exact (3432 splits)", "permutation MC 4999 (p se
                              * 0.0031)": random splits, the p's standard error */
    double effect_pct;       /* relative change of the candidate: +12.0 is 12% higher */
    double lo_pct, hi_pct;   /* interval of effect_pct at `level` */
    double level;
    double p;                /* two-sided p of the test (NAN without a verdict) */
    double alpha;            /* the level the verdict was drawn at */
    enum decide_verdict verdict;
    enum decide_why why;
    char why_text[160];      /* why there is no verdict ("" with one) */
    int nb, nc;              /* values used per side */
    bool in_rounds;          /* tested over swaps within rounds (decide_rounds) */
};

/* Compare cand[0..nc-1] against base[0..nb-1]. Returns 0 with *out filled,
 * also when there is no verdict (out->verdict DECIDE_NO_VERDICT, why and
 * why_text say why); -1 with e only for bad options (alpha or level
 * outside (0,1), unknown method, min_reps < 2). Nothing to free. */
int decide_compare(const double *base, int nb, const double *cand, int nc, const struct decide_opts *o,
                   struct decision *out, sl_err *e);

/* A paired (blocked) comparison: cand[i] and base[i] were measured in
 * the same block (interleaved, back to back), so what drifts between
 * blocks cancels in their difference. The Hodges-Lehmann pseudo-median of
 * the paired (log) differences, its interval and Wilcoxon's signed-rank
 * test, as R's wilcox.test(cand, base, paired = TRUE, conf.int = TRUE):
 * exact without ties or zero differences and n <= 50, else the normal
 * approximation. o->method is not used. Same contract as decide_compare
 * (no verdict for too few pairs, a non-finite or non-positive value, or
 * differences that are all one value). */
int decide_paired(const double *base, const double *cand, int n, const struct decide_opts *o, struct decision *out,
                  sl_err *e);

/* The rounds' runs compared: cand[i] and base[i] measured back to back
 * in round i, so that without an effect they are exchangeable. With
 * o->method DECIDE_PERM_TRIM or DECIDE_PERM_MEDIAN, that location's
 * difference (as decide_compare gives it), tested over the swaps of a
 * round's two runs (perm_rounds_test, test "round swaps exact (128)");
 * the other methods have no rounds' form and go to decide_compare on the
 * same runs. Same contract as decide_compare. */
int decide_rounds(const double *base, const double *cand, int n, const struct decide_opts *o, struct decision *out,
                  sl_err *e);

/* How much more the pairs' sums vary than their differences' sizes
 * (median absolute deviations of the sums and of |cand - base|, a
 * ratio): about 1 when the pairs share nothing and the effect is large
 * beside the noise, sqrt(1 + 2 s^2 / r^2) then when they share a spell of
 * spread s over runs of spread r; without an effect the sizes |d| vary
 * less (0.59 of d's deviation for normal noise), so it reads higher and
 * leans to pairing. It looks at no difference's sign, which is what keeps
 * a test chosen on it at its level: swapping a round's two runs changes
 * neither the sums nor the sizes, and without an effect each swap is as
 * likely as not, so the signed-rank test and the rounds' permutation
 * test (perm_rounds_test) stay exact given its value. The deviation of
 * the signed differences (used before) made the choice lean to the test
 * the signs favoured: 6.0% false claims at alpha 0.05 on the flat grids
 * (bench/data/confirm-exact.out). Values in log units; NAN with fewer
 * than 3 pairs, inf when the sizes' deviation is 0. */
double decide_pairs_shared_spread(const double *base, const double *cand, int n);

const char *decide_verdict_name(enum decide_verdict v);   /* "better", "within noise", ... */
const char *decide_method_name(enum decide_method m);     /* "hl-mw", "yuen", "boot-median", "welch", "perm-trim", ... */
int decide_method_parse(const char *name);                /* -1 when unknown */

/* "+12.3% [95% CI +4.0%, +21.0%] (Hodges-Lehmann shift, Mann-Whitney exact
 * p=0.0079): better", or "no verdict: ...". */
void decide_text(const struct decision *d, char *buf, size_t n);

/* The decision as a JSON object (jansson json_t *, caller decrefs):
 * {"verdict","estimator","test","effect_pct","ci_pct":[lo,hi],"level",
 *  "p","alpha","n_base","n_candidate","no_verdict_reason"}. */
void *decide_json(const struct decision *d);

/* Alpha spending across sequential looks (a race re-testing as runs come
 * in): the share of alpha that look k of at most `looks` may use, so that
 * the shares sum to alpha over every look (Bonferroni over looks, which is
 * valid whatever the dependence between looks: the probability of any
 * false claim at any look is at most the sum). The final look, with the
 * most data, keeps half of alpha (a single look: all of it); the interim
 * looks share the other half, growing linearly with k, so a clear answer
 * can stop the race early while a close one loses little power at the
 * end. k counts from 1; 0 when k is out of range. */
double decide_look_alpha(double alpha, int k, int looks);

#endif
