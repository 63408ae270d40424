/* Statistics against reference values. Every expected number below was
 * computed with scipy 1.10.1 (Debian 12 python3-scipy) and numpy:
 *   stats.ttest_ind(a, b, equal_var=False), stats.mannwhitneyu(x, y,
 *   alternative='two-sided') (default method 'auto', continuity on),
 *   stats.bootstrap((log a, log b), exp(mean diff) - 1, n_resamples=200000),
 * and numpy one-liners for Holm, Hedges' g and the MDE formula. */
#include "harness.h"
#include "stat/signif.h"

#include <math.h>

static const double A[] = { 102.1, 98.4, 105.3, 99.9, 101.7, 103.2 };
static const double B[] = { 96.2, 97.8, 95.1, 99.0, 94.4 };

TEST(signif_welch_matches_scipy)
{
    struct welch_result w;
    CHECK_INT(signif_welch(A, 6, B, 5, &w), 0);
    CHECK_NEAR(w.t, 4.036447962312971, 1e-9);
    CHECK_NEAR(w.df, 8.983146296315628, 1e-9);
    CHECK_NEAR(w.p, 0.0029556311424403336, 1e-9);
    CHECK_INT(signif_welch(A, 1, B, 5, &w), -1);
    double c1[] = { 3, 3, 3 }, c2[] = { 3, 3 };
    CHECK_INT(signif_welch(c1, 3, c2, 2, &w), 0);
    CHECK_NEAR(w.p, 1, 0);
}

TEST(signif_mann_whitney_exact_matches_scipy)
{
    struct mw_result m;
    CHECK_INT(signif_mann_whitney(A, 6, B, 5, &m), 0);
    CHECK(m.exact);
    CHECK_NEAR(m.u, 29, 0);
    CHECK_NEAR(m.p, 0.008658008658008658, 1e-12);
    double x[] = { 1, 2, 3 }, y[] = { 4, 5, 6, 7 };
    CHECK_INT(signif_mann_whitney(x, 3, y, 4, &m), 0);
    CHECK_NEAR(m.u, 0, 0);
    CHECK_NEAR(m.p, 0.05714285714285714, 1e-12);
}

TEST(signif_mann_whitney_ties_and_large_match_scipy)
{
    double c[] = { 1, 2, 2, 3, 4, 5, 5, 5, 6, 7 };
    double d[] = { 3, 4, 4, 5, 6, 7, 8, 8, 9, 9, 10 };
    struct mw_result m;
    CHECK_INT(signif_mann_whitney(c, 10, d, 11, &m), 0);
    CHECK(!m.exact);
    CHECK_NEAR(m.u, 23, 0);
    CHECK_NEAR(m.p, 0.025568161854614774, 1e-9);
    double e[] = { 1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7, 8.8, 9.9, 10.5 };
    double f[] = { 3.0, 4.1, 5.2, 6.3, 7.4, 8.5, 9.6, 10.7, 11.8, 12.9, 13.1, 14.2 };
    CHECK_INT(signif_mann_whitney(e, 10, f, 12, &m), 0);
    CHECK(!m.exact);
    CHECK_NEAR(m.u, 35, 0);
    CHECK_NEAR(m.p, 0.10620632068160006, 1e-9);
}

TEST(signif_holm_adjusts_step_down)
{
    double p[] = { 0.01, 0.04, 0.03, 0.005 }, adj[4];
    signif_holm(p, 4, adj);
    CHECK_NEAR(adj[0], 0.03, 1e-12);
    CHECK_NEAR(adj[1], 0.06, 1e-12);
    CHECK_NEAR(adj[2], 0.06, 1e-12);
    CHECK_NEAR(adj[3], 0.02, 1e-12);
}

TEST(signif_effect_size_and_mde)
{
    CHECK_NEAR(signif_hedges_g(A, 6, B, 5), 2.1809148269475966, 1e-9);
    /* CV 5%, n 3, alpha 0.05, power 0.8: a minimum detectable effect of about 11-12% */
    CHECK_NEAR(signif_mde(0.05, 3, 0.05, 0.8), 0.1211716309490749, 1e-9);
}

TEST(signif_bootstrap_close_to_scipy)
{
    double la[6], lb[5];
    for (int i = 0; i < 6; i++) la[i] = log(A[i]);
    for (int i = 0; i < 5; i++) lb[i] = log(B[i]);
    struct ci c;
    /* Monte Carlo intervals: the two generators differ, so compare within
     * a few thousandths (the interval is ~0.05 wide). */
    CHECK_INT(signif_bootstrap(la, 6, lb, 5, BOOT_EXP_MEAN_DIFF, BOOT_PERCENTILE, 20000, 0.95, 7, &c), 0);
    CHECK_NEAR(c.est, 0.05448943245946203, 1e-12);
    CHECK_NEAR(c.lo, 0.03015067915449321, 0.003);
    CHECK_NEAR(c.hi, 0.07898503629927078, 0.003);
    CHECK_INT(signif_bootstrap(la, 6, lb, 5, BOOT_EXP_MEAN_DIFF, BOOT_BCA, 20000, 0.95, 7, &c), 0);
    CHECK_NEAR(c.lo, 0.029764384967598995, 0.003);
    CHECK_NEAR(c.hi, 0.07853300875784686, 0.003);
    CHECK_INT(signif_bootstrap(A, 6, B, 5, BOOT_RATIO_OF_MEANS, BOOT_PERCENTILE, 2000, 0.95, 7, &c), 0);
    CHECK(c.lo > 0 && c.lo < c.est && c.est < c.hi);
    double zero[] = { 0, 0 };
    CHECK_INT(signif_bootstrap(A, 6, zero, 2, BOOT_RATIO_OF_MEANS, BOOT_PERCENTILE, 2000, 0.95, 7, &c), -1);
}

/* Past 1,000 values a resample's mean comes from its normal limit: the
 * interval must still be the mean difference's (here 0.1 +- 1.96 * se,
 * se = sqrt(2/n) * sd for two samples of sd 1 and n = 5,000). */
TEST(signif_bootstrap_large_samples_normal_limit)
{
    enum { N = 5000 };
    static double a[N], b[N];
    for (int i = 0; i < N; i++) {
        double z = i % 2 ? 1.0 : -1.0;   /* mean 0, sd 1 */
        a[i] = z;
        b[i] = 0.1 + z;
    }
    struct ci c;
    CHECK_INT(signif_bootstrap(b, N, a, N, BOOT_EXP_MEAN_DIFF, BOOT_PERCENTILE, 4000, 0.95, 7, &c), 0);
    double se = sqrt(2.0 / N);
    CHECK_NEAR(c.est, exp(0.1) - 1, 1e-12);
    CHECK_NEAR(c.lo, exp(0.1 - 1.96 * se) - 1, 0.004);
    CHECK_NEAR(c.hi, exp(0.1 + 1.96 * se) - 1, 0.004);
}

TEST(signif_summary_median)
{
    struct sample_summary s;
    signif_summary(B, 5, &s);
    CHECK_NEAR(s.median, 96.2, 1e-12);
    CHECK_NEAR(s.min, 94.4, 1e-12);
    CHECK_NEAR(s.mean, 96.5, 1e-12);
}
