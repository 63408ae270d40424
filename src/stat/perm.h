/* perm — the two-sample permutation test of a difference in location:
 * the candidate's trimmed mean (or median) minus the baseline's, its
 * null distribution over every split of the pooled values into two
 * groups of the same sizes (or, past PERM_EXACT_MAX splits, over
 * PERM_RESAMPLES random ones), and the interval got by inverting the
 * test. p-values are scipy.stats.permutation_test's (its relative
 * tolerance for equal statistics, its +1 for random splits), so they can
 * be checked against it. No assumption about the shape of the noise: the
 * only one is that, without an effect, the two groups' values are
 * exchangeable. */
#ifndef SLUICE_PERM_H
#define SLUICE_PERM_H

#include <stdbool.h>
#include <stdint.h>

#define PERM_EXACT_MAX 10000   /* every split when there are at most this many */
#define PERM_RESAMPLES 4999    /* random splits otherwise */
#define PERM_MEDIAN 0.5        /* trim: the median (the middle one or two) */

struct perm_result {
    double stat;               /* location(c) - location(b) */
    double p_greater;          /* one-sided: c is higher */
    double p_less;             /* one-sided: c is lower */
    double p_two;              /* twice the smaller one, at most 1 */
    double lo, hi;             /* interval of the shift at `level` (test inversion) */
    long long splits;          /* splits the p-values count (all, or the random ones) */
    bool exact;                /* every split (else random: p has Monte Carlo error) */
};

/* Permutation test of location(c) - location(b), the location the
 * trimmed mean with floor(trim * n) values cut from each end
 * (scipy.stats.trim_mean's rule) or, with trim PERM_MEDIAN, the median;
 * with the interval at `level`: the shifts d for which
 * the test of c - d against b is not rejected at (1 - level) / 2 on
 * either side, found by bisection (the p-values are monotone in d: the
 * observed statistic moves with d at rate 1, every split's at most that).
 * Random splits come from a generator seeded with `seed` (the same splits
 * for every d). Returns -1 when a side has no value, trim is outside
 * [0, 0.5] or level outside (0, 1); nothing to free. */
int perm_test(const double *b, int nb, const double *c, int nc, double trim, double level, uint64_t seed,
              struct perm_result *out);

/* The same test when the runs come in rounds, one of each side a round
 * measured back to back (b[i] and c[i]): the statistic is the same
 * difference of trimmed means (or medians), but its null distribution
 * is over the 2^n ways of swapping a round's two runs (every one up to
 * PERM_EXACT_MAX, else PERM_RESAMPLES random ones), not over every
 * split of the pooled runs. Without an effect a round's two runs are
 * exchangeable whatever the disk did during that round, so the test
 * holds its level under spells the rounds share, and it stays exact
 * given any fact about the rounds that a swap does not change (their
 * sums, the sizes of their differences): the confirmation chooses
 * between it and the signed-rank test on such facts alone. Returns -1
 * when n < 1, trim is outside [0, 0.5] or level outside (0, 1). */
int perm_rounds_test(const double *b, const double *c, int n, double trim, double level, uint64_t seed,
                     struct perm_result *out);

#endif
