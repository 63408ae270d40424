/* GP posterior and expected improvement against closed forms, and every
 * strategy against a synthetic oracle: finds the optimum, never proposes a
 * configuration that breaks a rule, never proposes the same one twice. */
#include "harness.h"
#include "search/gp.h"
#include "search/strategy.h"
#include "core/sysfs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Expected values: numpy/scipy (python3-scipy 1.10.1) with the same
 * formulas written independently: K = Matern52(ls=0.5, sf2=1.3) *
 * 0.4^[cat differs] + diag(0.1/m), mu = k*^T K^-1 y, var = k** - k*^T K^-1 k*,
 * lml = -y^T a/2 - sum log L_ii - n/2 log 2pi; EI = d Phi(d/s) + s phi(d/s). */
TEST(gp_posterior_matches_closed_form)
{
    double x[] = { 0.0, 0.5, 1.0 }, y[] = { 1.0, 2.0, 0.5 }, m[] = { 1, 2, 1 };
    int cat[] = { 0, 1, 0 };
    struct gp g;
    gp_init(&g, 3, 1, 1, x, cat, y, m, 0);
    struct gp_hyper h = { .ls = { 0.5 }, .sf2 = 1.3, .sn2 = 0.1, .rho = 0.4 };
    double lml, mu, var;
    CHECK_INT(gp_fit(&g, &h, &lml), 0);
    CHECK_NEAR(lml, -4.813211767637745, 1e-7);
    double xs = 0.25, xs2 = 0.75;
    int c0 = 0, c1 = 1;
    gp_predict(&g, &xs, &c0, &mu, &var);
    CHECK_NEAR(mu, 1.0832011108577153, 1e-7);
    CHECK_NEAR(var, 0.4065984024731142, 1e-7);
    gp_predict(&g, &xs2, &c1, &mu, &var);
    CHECK_NEAR(mu, 1.5715322951617694, 1e-7);
    CHECK_NEAR(var, 0.4004396479825023, 1e-7);
    gp_free(&g);
}

TEST(gp_expected_improvement_closed_form)
{
    CHECK_NEAR(gp_ei(1.2, 0.3, 1.0, 0.01), 0.2379144524426569, 1e-12);
    CHECK_NEAR(gp_ei(0.8, 0.5, 1.0, 0.0), 0.1152194184737265, 1e-12);
    CHECK_NEAR(gp_ei(2.0, 0.0, 1.0, 0.0), 1.0, 1e-12);
    CHECK_NEAR(gp_ei(0.5, 0.0, 1.0, 0.0), 0.0, 1e-12);
}

TEST(gp_hyperparameters_fit_a_smooth_function)
{
    /* 8 points of sin(3x): the fitted GP interpolates a held-out point */
    double x[8], y[8];
    for (int i = 0; i < 8; i++) { x[i] = i / 7.0; y[i] = sin(3 * x[i]); }
    struct gp g;
    gp_init(&g, 8, 1, 0, x, NULL, y, NULL, 1);
    CHECK_INT(gp_optimise(&g), 0);
    double xs = 0.5, mu, var;
    gp_predict(&g, &xs, NULL, &mu, &var);
    CHECK_NEAR(mu, sin(1.5), 0.05);
    CHECK(var < 0.05);
    gp_free(&g);
}

static const char *small_space(void)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/small.space", harness_tmpdir());
    FILE *f = fopen(path, "w");
    fputs("[knob vm.dirty_ratio]\nvalues = 5 10 20 30 40 60\n"
          "[knob vm.dirty_background_ratio]\nvalues = 1 5 10 15\n"
          "[knob vm.dirty_expire_centisecs]\nvalues = 500 1000 2000 3000 6000\n"
          "[knob vm.dirty_writeback_centisecs]\nvalues = 100 250 500 1000\n", f);
    fclose(f);
    return path;
}

/* The oracle: a smooth bowl over level indices, optimum at dirty 40, bg 5,
 * expire 1000, writeback 250 (levels 4, 1, 1, 1). */
static double oracle(const struct search_config *c)
{
    static const int target[] = { 4, 1, 1, 1 };
    double s = 0;
    for (int i = 0; i < 4; i++) s -= 0.05 * (c->lv[i] - target[i]) * (c->lv[i] - target[i]);
    return s;
}

/* Run `budget` proposals; 1 when the best found is the optimum. Counts
 * invalid and repeated proposals. */
static int run_strategy(const struct strategy_ops *ops, const struct space *sp, int budget, int *bad, int seed)
{
    struct history h;
    history_init(&h, sp);
    struct search_config c;
    space_baseline(sp, &c);
    history_add(&h, &c, oracle(&c), true);
    void *st = ops->create(sp, (uint64_t)seed);
    for (int i = 0; i < budget; i++) {
        double ei;
        if (ops->propose(st, &h, &c, &ei) != 0) break;
        if (!space_valid(sp, &c, NULL, 0)) (*bad)++;
        int seen = history_find(&h, &c);
        /* bo may re-measure its incumbent; nothing else repeats */
        if (seen >= 0 && strcmp(ops->name, "bo") != 0) (*bad)++;
        history_add(&h, &c, oracle(&c), false);
    }
    int best = ops->recommend ? ops->recommend(st, &h) : history_best(&h);
    int found = best >= 0 && oracle(&h.pt[best].cfg) == 0;
    ops->destroy(st);
    history_free(&h);
    return found;
}

TEST(strategies_find_the_optimum_of_a_synthetic_oracle)
{
    sl_err e;
    CHECK_INT(sysfs_set_root(harness_fixture_copy("modern"), &e), 0);
    struct space sp;
    CHECK_INT(space_build(small_space(), NULL, &sp, &e), 0);
    long long n = space_count(&sp, 100000);
    CHECK(n > 300 && n < 480);
    const char *names[] = { "grid", "random", "coord", "bo" };
    int budgets[] = { (int)n, (int)n, 40, 40 };
    for (int i = 0; i < 4; i++) {
        int bad = 0;
        const struct strategy_ops *ops = strategy_find(names[i]);
        CHECK(ops != NULL);
        if (!ops) continue;
        int found = run_strategy(ops, &sp, budgets[i], &bad, 1 + i);
        if (!found) printf("  %s did not find the optimum in %d evaluations\n", names[i], budgets[i]);
        CHECK(found);
        CHECK_INT(bad, 0);
    }
    CHECK(strategy_find("nonesuch") == NULL);
}

TEST(strategies_respect_queue_rules)
{
    sl_err e;
    CHECK_INT(sysfs_set_root(harness_fixture_copy("modern"), &e), 0);
    struct space sp;
    CHECK_INT(space_build("queue", "nvme0n1", &sp, &e), 0);
    /* nvme0n1: scheduler none, hardware depth 1023: nr_requests 2048 only
     * with a scheduler */
    const char *names[] = { "grid", "random", "coord", "bo" };
    for (int i = 0; i < 4; i++) {
        const struct strategy_ops *ops = strategy_find(names[i]);
        struct history h;
        history_init(&h, &sp);
        struct search_config c;
        space_baseline(&sp, &c);
        history_add(&h, &c, 0, true);
        void *st = ops->create(&sp, 7);
        int bad = 0;
        uint64_t r = 99;
        for (int k = 0; k < 16; k++) {
            double ei;
            if (ops->propose(st, &h, &c, &ei) != 0) break;
            char why[256];
            if (!space_valid(&sp, &c, why, sizeof why)) { bad++; printf("  %s: %s\n", names[i], why); }
            history_add(&h, &c, strategy_uniform(&r), false);
        }
        CHECK_INT(bad, 0);
        ops->destroy(st);
        history_free(&h);
    }
}
