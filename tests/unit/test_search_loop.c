/* The noise-first loop with the synthetic evaluator: budgets, baseline
 * count, a real improvement is found and claimed, a flat landscape is
 * (almost) never claimed as a win, constraints, time budgets, resume. */
#include "harness.h"
#include "search/report.h"
#include "search/verdict.h"
#include "search/search.h"
#include "search/run.h"
#include "search_fixture.h"
#include "probe/probe.h"
#include "core/sysfs.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int count_role(const struct search_result *r, enum trial_role role)
{
    int n = 0;
    for (int i = 0; i < r->ntrials; i++) n += r->trials[i].role == role;
    return n;
}

/* The verdict line `sluice search` prints for r holds the text fmt
 * formats (a failure names both). */
static void verdict_says(const struct search_spec *s, const struct search_result *r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void verdict_says(const struct search_spec *s, const struct search_result *r, const char *fmt, ...)
{
    char line[1024], want[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(want, sizeof want, fmt, ap);
    va_end(ap);
    report_verdict_line(s, &wb, r, line, sizeof line);
    CHECK_CONTAINS(line, want);
}

TEST(search_finds_and_claims_a_real_improvement)
{
    fx_setup();
    const char *names[] = { "bo", "coord", "random", "grid" };
    for (int k = 0; k < 4; k++) {
        struct search_spec s;
        struct evaluator ev;
        fx_synthetic(&s, &ev, names[k], 40, 3, 11, 5, 0.03, false);
        struct search_result r;
        fx_run(&s, &ev, NULL, &r);
        /* the budget holds, the confirmation included */
        CHECK(r.nevals <= 40);
        /* the baseline measured at least 5 times (exploring's and the
         * confirmation's runs) */
        struct search_config b0;
        space_baseline(&wb, &b0);
        int nb0 = 0;
        for (int i = 0; i < r.ntrials; i++) nb0 += space_config_equal(&wb, &r.trials[i].cfg, &b0);
        CHECK(nb0 >= 5);
        for (int i = 0; i < r.ntrials; i++) CHECK(space_valid(&wb, &r.trials[i].cfg, NULL, 0));
        /* the synthetic default is far from the optimum: a win, and the
         * winner is truly better than the baseline */
        CHECK(r.winner >= 0);
        if (r.winner >= 0) {
            struct eval_metrics tw, tb;
            struct search_config b;
            space_baseline(&wb, &b);
            ev.ops->truth(ev.ctx, &wb, &r.leader[r.winner].cfg, &tw);
            ev.ops->truth(ev.ctx, &wb, &b, &tb);
            CHECK(tw.v[MET_THROUGHPUT] > tb.v[MET_THROUGHPUT]);
            CHECK(r.leader[r.winner].ci.lo > 0);
            /* confirmed on fresh runs (no race at 40: the winner's
             * decision is the confirmation's) */
            CHECK_INT(r.confirm.outcome, CONFIRM_CONFIRMED);
            CHECK(r.confirm.reps >= 6);
            CHECK_INT(r.leader[r.winner].n, r.confirm.reps);
            CHECK(r.confirm.dec.lo_pct > 0);
        }
        CHECK(r.npareto >= 1);
        fx_done(&r, &ev);
    }
}

/* --confirm-runs N: the confirmation measures the baseline and the winner
 * N times each on fresh runs (a narrower interval for the claim), beyond
 * the half of the budget the default keeps at most; a budget that cannot
 * afford them is refused before any run, naming what it needs. */
TEST(search_confirm_runs_buys_the_confirmation_its_runs)
{
    fx_setup();
    struct search_spec s;
    struct evaluator ev;
    fx_synthetic(&s, &ev, "bo", 48, 3, 11, 5, 0.03, false);
    s.confirm_reps = 18;
    struct search_result r;
    fx_run(&s, &ev, NULL, &r);
    CHECK(r.nevals <= 48);
    CHECK_INT(r.confirm.outcome, CONFIRM_CONFIRMED);
    CHECK(r.confirm.reps >= 18);
    struct search_config b;
    space_baseline(&wb, &b);
    int nb = 0, nw = 0;
    for (int i = 0; i < r.ntrials; i++) {
        if (r.trials[i].role != TRIAL_CONFIRM) continue;
        nb += space_config_equal(&wb, &r.trials[i].cfg, &b);
        nw += r.winner >= 0 && space_config_equal(&wb, &r.trials[i].cfg, &r.leader[r.winner].cfg);
    }
    CHECK(nb >= 18);
    CHECK(nw >= 18);
    fx_done(&r, &ev);

    fx_synthetic(&s, &ev, "bo", 40, 3, 11, 5, 0.03, false);
    s.confirm_reps = 18;
    sl_err e;
    CHECK_INT(search_run(&s, &wb, &ev, NULL, &r, &e), -1);
    CHECK_CONTAINS(e.msg, "--confirm-runs 18 needs a budget of at least 46 evaluations");
    CHECK_CONTAINS(e.msg, "not 40");
    evaluator_free(&ev);
}

/* Without an effect the confirmation claims at most alpha of the time,
 * whichever test it chose. 8000 confirmations of 6 rounds whose two runs
 * are independent draws (log sd 0.05): each test alone claims at most
 * 3/64 (4.7%), and the choice between them looks only at what a swap of
 * a round's runs does not change (decide_pairs_shared_spread): 4.41%.
 * The choice made on the signed differences' deviation, between the
 * signed-rank test and perm-trim on the runs unpaired, claimed 5.70% of
 * these, beyond alpha by more than two standard errors (0.24 points);
 * on the flat grids of bench/search-efficiency 5.75% over 12000 searches
 * (bench/data/confirm-exact.out). */
TEST(the_confirmation_claims_at_most_alpha_without_an_effect)
{
    struct search_spec s;
    search_spec_defaults(&s);
    struct decide_opts o;
    search_score_opts(&o, s.alpha);
    o.method = search_test_method(s.test);
    o.level = 1 - 2 * s.alpha;
    o.one_sided = true;
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 1);
    int n = 8000, claims = 0;
    for (int k = 0; k < n; k++) {
        double b[6], x[6];
        for (int i = 0; i < 6; i++) b[i] = gsl_ran_gaussian(g, 0.05), x[i] = gsl_ran_gaussian(g, 0.05);
        o.seed = (uint64_t)k + 1;
        struct decision d;
        CHECK_INT(search_confirm_decide(&s, b, x, 6, b, 6, x, 6, &o, &d), 0);
        claims += d.verdict == DECIDE_BETTER;
    }
    gsl_rng_free(g);
    CHECK(claims <= (s.alpha + 2 * sqrt(s.alpha * (1 - s.alpha) / n)) * n);
}

/* The quick tune explores what its plan gives exploring: no stop on low
 * expected improvement, which within its budget only moves runs from
 * exploring to the confirmation. On this project's VM that stop ended
 * exploring after 6 proposals in runs 62 and 66 of bench/transfer
 * --as-user, and both missed a win fio measured. Over 12 seeds of a flat
 * landscape at 27 evaluations (the quick tune's 5 minutes at 11 s a run)
 * the old default stopped exploring early; the quick tune's defaults never
 * do. */
TEST(the_quick_tune_explores_what_its_plan_gives_exploring)
{
    fx_setup();
    struct search_flow_opts q;
    search_flow_quick_defaults(&q);
    int early_default = 0, early_quick = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        for (int quick = 0; quick < 2; quick++) {
            struct search_spec s;
            struct evaluator ev;
            struct search_result r;
            fx_synthetic(&s, &ev, "bo", 27, seed, 40 + seed, 80 + seed, 0.03, true);
            if (quick) s.ei_stop = q.spec.ei_stop;
            fx_run(&s, &ev, NULL, &r);
            bool early = strstr(r.stop_reason, "expected improvement") != NULL;
            if (quick) early_quick += early;
            else early_default += early;
            fx_done(&r, &ev);
        }
    }
    CHECK(early_default > 0);   /* the stop does fire here: the test can tell */
    CHECK_INT(early_quick, 0);
}

TEST(search_flat_landscape_is_within_noise)
{
    fx_setup();
    int claims = 0;
    for (int seed = 1; seed <= 20; seed++) {
        struct search_spec s;
        struct evaluator ev;
        fx_synthetic(&s, &ev, seed % 2 ? "random" : "bo", 30, (uint64_t)seed, 11, (uint64_t)seed * 7, 0.05, true);
        struct search_result r;
        fx_run(&s, &ev, NULL, &r);
        claims += r.winner >= 0;
        fx_done(&r, &ev);
    }
    /* alpha 0.05 family-wise: expect about 1 in 20; 3 would be suspicious */
    CHECK(claims <= 2);
}

TEST(search_constraint_rules_out_infeasible_winners)
{
    fx_setup();
    struct search_spec s;
    struct evaluator ev;
    fx_synthetic(&s, &ev, "bo", 40, 5, 11, 5, 0.03, false);
    /* canary p99 in the synthetic landscape is 40 ms at the optimum and
     * grows away from it: a limit of 1 ms makes everything infeasible */
    snprintf(s.objective, sizeof s.objective, "throughput,canary_p99<=1ms");
    struct search_result r;
    fx_run(&s, &ev, NULL, &r);
    CHECK_INT(r.winner, -1);
    for (int i = 0; i < r.nleaders; i++) CHECK_INT(r.leader[i].verdict, VERDICT_INFEASIBLE);
    fx_done(&r, &ev);
}

static long long fake_now;
static long long fake_clock(void *arg) { return fake_now += 1000; }

TEST(search_wall_time_budget)
{
    fx_setup();
    struct search_spec s;
    struct evaluator ev;
    fx_synthetic(&s, &ev, "random", 0, 2, 11, 5, 0.03, false);
    s.budget_ms = 30000;
    struct search_hooks hk = { .now_ms = fake_clock };
    struct search_result r;
    fx_run(&s, &ev, &hk, &r);
    /* every evaluation within the wall time, the confirmation's too */
    CHECK(r.confirm.candidate >= 0);
    CHECK(count_role(&r, TRIAL_CONFIRM) >= 12);
    CHECK(r.trials[r.ntrials - 1].elapsed_ms <= 30000);
    CHECK(r.ntrials - count_role(&r, TRIAL_CONFIRM) >= 10);
    fx_done(&r, &ev);
    fx_spec(&s, "random", 0, 2);   /* no budget: refused before any run */
    sl_err e;
    CHECK_INT(search_run(&s, &wb, &ev, NULL, &r, &e), -1);
    CHECK_CONTAINS(e.msg, "budget");
}

/* The quick tune of bench/data/transfer-as-user-8.out: a plan of 50
 * evaluations of 6 s within 100 evaluations or 5 minutes, whose runs took
 * 11 s. Exploring stopped after 8 to keep the race's and the
 * confirmation's reserve, the race got 1 run, so no leader had a verdict,
 * nothing was confirmed and the search ended at 113 s of its 300 with "no
 * verdict". When the time left cannot afford a race beside the
 * confirmation, exploring's best goes straight to the confirmation, which
 * then has the time it kept. The fake clock: 1 s a reading, about 1 s a
 * run; 26 s stands for 300 s at 11.5 s a run. */
TEST(search_drops_a_race_the_time_left_cannot_afford)
{
    fx_setup();
    struct search_spec s;
    struct evaluator ev;
    fx_synthetic(&s, &ev, "bo", 100, 3, 11, 5, 0.03, false);
    s.budget_ms = 26000;
    s.confirm_reps = 7;   /* what the plan of 50 evaluations scaled it to */
    fake_now = 0;
    struct search_hooks hk = { .now_ms = fake_clock };
    struct search_result r;
    fx_run(&s, &ev, &hk, &r);
    CHECK(r.confirm.candidate >= 0);
    CHECK(count_role(&r, TRIAL_CONFIRM) >= 12);
    CHECK_INT(count_role(&r, TRIAL_RACE), 0);
    CHECK(r.confirm.outcome != CONFIRM_NONE);
    CHECK(r.trials[r.ntrials - 1].elapsed_ms <= 26000);
    char line[1024];
    report_verdict_line(&s, &wb, &r, line, sizeof line);
    CHECK(strstr(line, "no verdict") == NULL);
    fx_done(&r, &ev);
}

/* The quick tune on this project's VM: 100 evaluations or 5 minutes, a
 * plan of about 10 s a run (30 evaluations: no race beside the
 * confirmation), runs as slow as planned. The race was planned on the 100
 * alone, then "dropped" at the runs' pace, and the verdict said "no race:
 * the runs took 9.8 s each on average, longer than planned" when they had
 * not been (bench/data/tune-no-options-6dee3dd.out). A race the plan's pace
 * cannot afford is not planned, and the verdict says what the budget
 * bought. The fake clock: 1 s a reading, about 1 s a run. */
TEST(search_plans_no_race_its_planned_pace_cannot_afford)
{
    for (int planned = 1; planned >= 0; planned--) {
        fx_setup();
        struct search_spec s;
        struct evaluator ev;
        fx_synthetic(&s, &ev, "bo", 100, 3, 11, 5, 0.03, false);
        s.budget_ms = 26000;
        s.plan_run_s = planned ? 26.0 / 30 : 0;   /* 30 evaluations; 0: no plan, as before */
        fake_now = 0;
        struct search_hooks hk = { .now_ms = fake_clock };
        struct search_result r;
        fx_run(&s, &ev, &hk, &r);
        CHECK_INT(count_role(&r, TRIAL_RACE), 0);
        CHECK(r.confirm.candidate >= 0);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        report_print(f, &s, &wb, &r, "", "");
        fclose(f);
        if (planned) {
            CHECK(!r.race_dropped);
            CHECK_CONTAINS(text, "no race: a budget of 26s (");
            CHECK(strstr(text, "longer than planned") == NULL);
        } else {
            CHECK(r.race_dropped);   /* without a plan, the race is the 100 evaluations' */
            CHECK_CONTAINS(text, "longer than planned");
        }
        free(text);
        fx_done(&r, &ev);
    }
}

/* bench/data/transfer-as-user-27.out: a plan of 49 evaluations of 6.1 s
 * kept 7 runs a side for the confirmation; the runs took 2.1 s, so 100
 * ran, 74 of them exploring and racing, and the confirmation had 8 a side
 * ([-15.8, +106.9]). Once EXPLORE_MIN runs show the pace, the plan's
 * confirmation grows to its share of what the budget buys; a
 * --confirm-runs the user gave does not. The fake clock: about 1 s a run,
 * 150 s for the 100 evaluations' cap. */
TEST(search_confirmation_follows_the_runs_pace)
{
    fx_setup();
    for (int user = 0; user <= 1; user++) {
        struct search_spec s;
        struct evaluator ev;
        fx_synthetic(&s, &ev, "bo", 100, 3, 11, 5, 0.03, false);
        s.budget_ms = 150000;
        struct search_plan p;
        if (user) s.confirm_reps = 7;
        else {
            search_plan_make(&s, 3.0, SEARCH_NOISE_SD_ASSUMED, &p);
            search_plan_scale_confirmation(&s, &p);
            CHECK_INT(s.confirm_reps, 7);   /* 50 evaluations planned */
        }
        fake_now = 0;
        struct search_hooks hk = { .now_ms = fake_clock };
        struct search_result r;
        fx_run(&s, &ev, &hk, &r);
        CHECK(r.confirm.candidate >= 0);
        if (user) CHECK(count_role(&r, TRIAL_CONFIRM) <= 3 * (7 + 2));   /* a runner-up may get its own rounds */
        else CHECK(count_role(&r, TRIAL_CONFIRM) >= 2 * 15);
        CHECK_INT(s.confirm_reps, 7);   /* the caller's spec is not changed */
        fx_done(&r, &ev);
    }
}

struct tape {
    struct search_trial t[128];
    int n, stop_at, replay_n;
};
static int tape_record(void *arg, const struct search_trial *t, sl_err *e)
{
    struct tape *tp = arg;
    tp->t[tp->n++] = *t;
    return 0;
}
static int tape_replay(void *arg, int seq, struct search_trial *t)
{
    struct tape *tp = arg;
    if (seq >= tp->replay_n) return 0;
    *t = tp->t[seq];
    return 1;
}
static int tape_stop(void *arg)
{
    struct tape *tp = arg;
    return tp->stop_at && tp->n >= tp->stop_at;
}

TEST(search_resumes_from_recorded_trials)
{
    fx_setup();
    static struct tape tp;
    memset(&tp, 0, sizeof tp);
    tp.stop_at = 12;
    struct search_spec s;
    struct evaluator ev;
    fx_synthetic(&s, &ev, "bo", 30, 9, 11, 5, 0.03, false);
    struct search_hooks hk = { .arg = &tp, .record = tape_record, .replay = tape_replay, .interrupted = tape_stop };
    struct search_result r;
    sl_err e;
    CHECK_INT(search_run(&s, &wb, &ev, &hk, &r, &e), -1);
    CHECK_CONTAINS(e.msg, "interrupted");
    CHECK_INT(tp.n, 12);
    search_result_free(&r);
    /* resume: the 12 stored trials are replayed, not re-measured */
    tp.stop_at = 0;
    tp.replay_n = 12;
    CHECK_INT(search_run(&s, &wb, &ev, &hk, &r, &e), 0);
    CHECK(r.nevals <= 30);
    CHECK(count_role(&r, TRIAL_CONFIRM) >= 12);
    CHECK_INT(tp.n, r.nevals);
    for (int i = 0; i < 12; i++) CHECK_NEAR(r.trials[i].score, tp.t[i].score, 0);
    search_result_free(&r);
    /* a tape that disagrees with the search is refused */
    tp.t[5].cfg.lv[0] = (tp.t[5].cfg.lv[0] + 1) % wb.dim[0].nlevels;
    tp.n = 0;
    CHECK_INT(search_run(&s, &wb, &ev, &hk, &r, &e), -1);
    CHECK_CONTAINS(e.msg, "cannot resume");
    fx_done(&r, &ev);
}

TEST(objective_parse_and_score)
{
    struct objective o;
    sl_err e;
    CHECK_INT(objective_parse("throughput, canary_p99 <= 50ms", &o, &e), 0);
    CHECK_INT(o.nterms, 1);
    CHECK_INT(o.ncons, 1);
    CHECK_NEAR(o.cons[0].limit, 50, 0);
    struct eval_metrics m = { .v = { [MET_THROUGHPUT] = 100, [MET_CANARY_P99] = 40 },
                              .has = { [MET_THROUGHPUT] = true, [MET_CANARY_P99] = true } };
    CHECK_NEAR(objective_score(&o, &m), log(100), 1e-12);
    m.v[MET_CANARY_P99] = 100;
    CHECK(objective_score(&o, &m) < log(100) - 5);
    CHECK(!objective_feasible(&o, &m, NULL, 0));
    CHECK_INT(objective_parse("0.5*throughput+0.5*p99", &o, &e), 0);
    m.v[MET_P99] = 4;
    m.has[MET_P99] = true;
    CHECK_NEAR(objective_score(&o, &m), 0.5 * log(100) - 0.5 * log(4), 1e-12);
    CHECK_INT(objective_parse("speed", &o, &e), -1);
    CHECK_CONTAINS(e.msg, "unknown metric");
    CHECK_INT(objective_parse("throughput,p99<=fast", &o, &e), -1);
    CHECK_INT(objective_parse("throughput,p99<=0.5s", &o, &e), 0);
    CHECK_NEAR(o.cons[0].limit, 500, 0);
}

/* Sequential error control in the race: on a flat landscape with heavy
 * tails (10% of runs stalled to 20-60%), where every claim is false, the
 * sequential race with its looks claims a win in at most alpha of the
 * searches (seeded: the count is exact, not timed). Under the old fixed
 * race with Welch this grid claimed 0%, so the check is on the looks. */
TEST(search_race_looks_keep_false_claims_within_alpha)
{
    fx_setup();
    int claims = 0, looks = 0, runs = 120;
    for (int seed = 1; seed <= runs; seed++) {
        struct search_spec s;
        struct evaluator ev;
        fx_synthetic(&s, &ev, "random", 80, (uint64_t)seed, 5, (uint64_t)seed * 7919 + 1, 0.05, true);
        s.ei_stop = 0;
        s.race_reps = 10;   /* a race long enough for several looks */
        evaluator_synthetic_stalls(&ev, 0.10, 0.2, 0.6);
        struct search_result r;
        fx_run(&s, &ev, NULL, &r);
        claims += r.winner >= 0;
        for (int i = 0; i < r.nleaders; i++) looks = r.leader[i].looks > looks ? r.leader[i].looks : looks;
        fx_done(&r, &ev);
    }
    CHECK(looks > 1);                      /* the race did look more than once */
    CHECK(claims <= 0.05 * runs);
}

/* A bo search of 60 (a race runs) where a quarter of the runs stall to
 * 20-60% and the canary sees every one. */
static void run_seen_stalls(struct search_spec *s, struct evaluator *ev, struct search_result *r)
{
    fx_setup();
    fx_synthetic(s, ev, "bo", 60, 3, 11, 5, 0.03, false);
    evaluator_synthetic_stalls(ev, 0.25, 0.2, 0.6);
    evaluator_synthetic_canary(ev, 1.0, 0);
    fx_run(s, ev, NULL, r);
}

/* The stall rule: runs the canary flagged are left out of the decision and
 * of the means (the baseline's too), counted, and said in the verdict; the
 * race measures in their place. A quarter of the runs stall to 20-60% and
 * the canary sees every one: the baseline mean stays at its truth. */
TEST(search_stall_rule_leaves_flagged_runs_out)
{
    struct search_spec s;
    struct evaluator ev;
    struct search_result r;
    run_seen_stalls(&s, &ev, &r);
    int base = 0, base_flagged = 0, flagged = 0;
    for (int i = 0; i < r.ntrials; i++) {
        flagged += r.trials[i].m.stalled;   /* the confirmation's too */
        if (r.trials[i].role != TRIAL_BASELINE) continue;
        base++;
        base_flagged += r.trials[i].m.stalled;
    }
    CHECK(base_flagged > 0);
    CHECK_INT(r.stalled_runs, flagged);
    CHECK_INT(r.base_stalled_out, base_flagged);
    CHECK_INT(r.nbase, base - base_flagged);
    struct eval_metrics tb;
    struct search_config b;
    space_baseline(&wb, &b);
    ev.ops->truth(ev.ctx, &wb, &b, &tb);
    CHECK_NEAR(r.base_mean.v[MET_THROUGHPUT] / tb.v[MET_THROUGHPUT], 1, 0.05);
    int left_out = 0;
    for (int i = 0; i < r.nleaders; i++) {
        /* its race runs but the flagged ones the rule leaves out (a
         * configuration with more than half its runs flagged keeps them) */
        int counted = 0;
        for (int t = 0; t < r.ntrials; t++)
            if (r.trials[t].role == TRIAL_RACE && space_config_equal(&wb, &r.trials[t].cfg, &r.leader[i].cfg)) {
                bool counts = search_trial_counts(r.trials, r.ntrials, &wb, t);
                counted += counts;
                left_out += r.trials[t].m.stalled && !counts;
            }
        CHECK_INT(r.leader[i].n, counted);
    }
    CHECK(left_out > 0);
    verdict_says(&s, &r, "stall rule: the canary flagged");
    fx_done(&r, &ev);
}

/* ... unless most of a configuration's runs are flagged: then the stalls
 * are its own, and its runs count (kept, and counted as kept). */
TEST(search_stall_rule_keeps_a_configurations_own_stalls)
{
    fx_setup();
    struct search_spec s;
    struct evaluator ev;
    fx_synthetic(&s, &ev, "random", 30, 4, 11, 5, 0.03, false);
    evaluator_synthetic_stalls(&ev, 1.0, 0.5, 0.6);   /* every run stalls, and is seen */
    evaluator_synthetic_canary(&ev, 1.0, 0);
    struct search_result r;
    fx_run(&s, &ev, NULL, &r);
    CHECK_INT(r.base_stalled_out, 0);
    CHECK(r.base_stalled_kept >= 5);
    CHECK_INT(r.nbase, r.base_stalled_kept);
    fx_done(&r, &ev);
}

/* The winner's curse: exploring and its race measured the candidates 1.5
 * times better than they are (the flat landscape has no better setting);
 * the claim exploring makes must not survive fresh runs, and the shrinkage
 * is recorded. On the old code the race's claim was the verdict. */
TEST(search_confirmation_shrinks_a_selected_claim)
{
    fx_setup();
    struct search_spec s;
    struct evaluator ev;
    fx_synthetic(&s, &ev, "random", 30, 4, 11, 5, 0.03, true);
    evaluator_synthetic_inflate(&ev, 30 - 14, 1.5);   /* exploring: the budget but the confirmation's 14 */
    struct search_result r;
    fx_run(&s, &ev, NULL, &r);
    CHECK_INT(r.winner, -1);
    CHECK(r.confirm.candidate >= 0);
    CHECK(r.confirm.outcome == CONFIRM_NOISE || r.confirm.outcome == CONFIRM_CONTRADICTED);
    CHECK(r.confirm.explore_est > 0.3);
    CHECK(fabs(r.confirm.confirmed_est) < 0.1);
    CHECK(r.confirm.shrinkage > 0.7);
    CHECK(count_role(&r, TRIAL_CONFIRM) >= 2 * 6);
    CHECK(r.nevals <= 30);
    /* the decision counts the fresh runs only, none of exploring's */
    struct search_config b;
    space_baseline(&wb, &b);
    int nb = 0, nc = 0;
    for (int t = 0; t < r.ntrials; t++)
        if (r.trials[t].role == TRIAL_CONFIRM) {
            nb += space_config_equal(&wb, &r.trials[t].cfg, &b);
            nc += space_config_equal(&wb, &r.trials[t].cfg, &r.leader[r.confirm.candidate].cfg);
        }
    CHECK_INT(r.confirm.dec.nb, nb);
    CHECK_INT(r.confirm.dec.nc, nc);
    fx_done(&r, &ev);
    /* a real gain that exploring overstated: confirmed, smaller */
    fx_synthetic(&s, &ev, "bo", 40, 3, 11, 5, 0.03, false);
    evaluator_synthetic_inflate(&ev, 40 - 14, 1.3);
    fx_run(&s, &ev, NULL, &r);
    CHECK_INT(r.confirm.outcome, CONFIRM_CONFIRMED);
    CHECK(r.winner >= 0);
    CHECK(r.confirm.confirmed_est < r.confirm.explore_est);
    CHECK(r.confirm.shrinkage > 0.1);
    fx_done(&r, &ev);
}

/* --budget is what a quick tune can afford: the confirmation's fresh runs
 * count within it. Heavy tails nobody flags (10% of runs stall to
 * 20-60%); every strategy at budget 30 spends at most 30 evaluations, of
 * which the confirmation at least 6 a side, planned as one look since the
 * budget leaves no room for a second. Old code: the confirmation came on
 * top (48 evaluations and more, 66 with a second look). */
TEST(search_budget_holds_with_the_confirmation)
{
    fx_setup();
    const char *names[] = { "bo", "coord", "random", "grid" };
    for (int k = 0; k < 4; k++) {
        struct search_spec s;
        struct evaluator ev;
        fx_synthetic(&s, &ev, names[k], 30, 3, 2, 3 * 7919 + 1, 0.05, false);
        s.ei_stop = 0;
        evaluator_synthetic_stalls(&ev, 0.10, 0.2, 0.6);
        struct search_result r;
        fx_run(&s, &ev, NULL, &r);
        CHECK(r.nevals <= 30);
        CHECK(r.confirm.candidate >= 0);
        CHECK(count_role(&r, TRIAL_CONFIRM) >= 12);
        CHECK_INT(r.confirm.looks, 1);
        if (k == 0) {
            CHECK_INT(r.confirm.outcome, CONFIRM_CONFIRMED);
            verdict_says(&s, &r, "one-sided");
            verdict_says(&s, &r, "look 1 of 1");
        }
        fx_done(&r, &ev);
    }
}

/* The stall rule holds in the confirmation round as in the race: a fresh
 * run the canary flagged is left out of the confirmation's decision and
 * measured again in its place, and the verdict says how many. A quarter
 * of the runs stall and the canary sees every one. Old code: the flagged
 * fresh runs were counted (the baseline's 7 held 3 flagged ones, the
 * interval reached +435%) and the verdict did not say so. */
TEST(search_stall_rule_holds_in_the_confirmation)
{
    struct search_spec s;
    struct evaluator ev;
    struct search_result r;
    run_seen_stalls(&s, &ev, &r);
    const struct confirmation *cf = &r.confirm;
    CHECK(cf->candidate >= 0);
    struct search_config b;
    space_baseline(&wb, &b);
    const struct search_config *cfg[2] = { &b, &r.leader[cf->candidate].cfg };
    int flagged = 0;
    for (int k = 0; k < 2; k++) {
        int clean = 0;
        for (int t = 0; t < r.ntrials; t++)
            if (r.trials[t].role == TRIAL_CONFIRM && space_config_equal(&wb, &r.trials[t].cfg, cfg[k])) {
                clean += !r.trials[t].m.stalled;
                flagged += r.trials[t].m.stalled;
            }
        CHECK_INT(clean, cf->reps);   /* each flagged run was measured again */
    }
    CHECK(flagged > 0);
    CHECK_INT(cf->dec.nb, cf->reps);
    CHECK_INT(cf->dec.nc, cf->reps);
    CHECK(cf->stalled_out >= flagged);   /* the runner-up's count too */
    verdict_says(&s, &r, "confirmation: %d left out and measured again", cf->stalled_out);
    fx_done(&r, &ev);
}

/* A wrapper around the synthetic evaluator for bad runs: every
 * `psi_every`-th run slowed to 40% and flagged as PSI would flag it (io
 * full over the threshold); every `nan_every`-th run gives NaN throughput
 * (the 2nd of those +inf); from evaluation `flat_from` on, every run gives
 * its configuration's noise-free value (a stuck, coarse measurement). */
struct bad_ev {
    struct evaluator inner;
    int n, psi_every, nan_every, flat_from;
    double drift;   /* slow and fast spells: throughput times exp(drift sin(2 pi n / 40)) */
    int worse_from;   /* from this evaluation on, other configurations give a quarter */
    /* from this evaluation on, every configuration measures the baseline's
     * level (its own noise kept), the others tie_gain above it */
    int tie_from;
    double tie_gain;
};

static int bad_evaluate(void *ctx, const struct space *sp, const struct search_config *c, bool baseline,
                        struct eval_metrics *out, sl_err *e)
{
    struct bad_ev *p = ctx;
    p->n++;
    if (p->flat_from && p->n >= p->flat_from) return p->inner.ops->truth(p->inner.ctx, sp, c, out);
    if (p->inner.ops->evaluate(p->inner.ctx, sp, c, baseline, out, e) < 0) return -1;
    if (p->drift > 0) out->v[MET_THROUGHPUT] *= exp(p->drift * sin(2 * M_PI * p->n / 40));
    if (p->worse_from && p->n >= p->worse_from && !baseline) out->v[MET_THROUGHPUT] *= 0.25;
    if (p->tie_from && p->n >= p->tie_from) {
        struct search_config base;
        struct eval_metrics t, tb;
        space_baseline(sp, &base);
        if (p->inner.ops->truth(p->inner.ctx, sp, c, &t) < 0 || p->inner.ops->truth(p->inner.ctx, sp, &base, &tb) < 0)
            return -1;
        out->v[MET_THROUGHPUT] *= tb.v[MET_THROUGHPUT] / t.v[MET_THROUGHPUT] * (baseline ? 1 : 1 + p->tie_gain);
    }
    if (p->nan_every && p->n % p->nan_every == 0) out->v[MET_THROUGHPUT] = p->n / p->nan_every == 2 ? INFINITY : NAN;
    if (p->psi_every && p->n % p->psi_every == 0) {
        out->v[MET_THROUGHPUT] *= 0.4;
        out->v[MET_PSI_FULL] = PROBE_PSI_FULL_STALL_PCT + 10;
        eval_metrics_set_stall(out, eval_psi_stall_rule(out->v[MET_PSI_FULL]) ? PROBE_STALL_PSI : 0);
    }
    return 0;
}

static int bad_truth(void *ctx, const struct space *sp, const struct search_config *c, struct eval_metrics *out)
{
    struct bad_ev *p = ctx;
    return p->inner.ops->truth(p->inner.ctx, sp, c, out);
}

static void bad_destroy(void *ctx)
{
    struct bad_ev *p = ctx;
    evaluator_free(&p->inner);
}

static const struct evaluator_ops bad_ops = { .name = "bad", .evaluate = bad_evaluate, .truth = bad_truth, .destroy = bad_destroy };

/* A bo search of 60 (a race runs) over the synthetic landscape behind p
 * (wrapped). */
static void run_bad(struct bad_ev *p, struct evaluator *ev, struct search_spec *s, struct search_result *r)
{
    fx_setup();
    evaluator_synthetic(&p->inner, 11, 5, 0.03, false);
    *ev = (struct evaluator){ &bad_ops, p };
    fx_spec(s, "bo", 60, 3);
    fx_run(s, ev, NULL, r);
}

/* A bo search of `budget` (seed 3) over the synthetic landscape behind p
 * (its spells, p->drift), confirming on `reps` fresh runs a side, paired
 * where it can be or never; its verdict line in line. */
static void run_spells(struct bad_ev *p, int budget, int reps, bool can_pair, struct evaluator *ev, struct search_spec *s,
                       struct search_result *r, char *line, size_t n)
{
    fx_setup();
    evaluator_synthetic(&p->inner, 11, 5, 0.03, false);
    *ev = (struct evaluator){ &bad_ops, p };
    fx_spec(s, "bo", budget, 3);
    s->confirm_reps = reps;
    if (!can_pair) s->confirm_paired_from = 0;
    fx_run(s, ev, NULL, r);
    CHECK(r->confirm.candidate >= 0);
    report_verdict_line(s, &wb, r, line, n);
}

/* The confirmation's rounds are blocks: a disk with slow and fast spells
 * (here throughput swings by a factor of up to e^0.8 over 40 runs, two
 * runs of a round sharing the spell) widens an unpaired comparison; with
 * 10 rounds or more the claim is decided on the rounds' differences.
 * bench/transfer saw it on this VM: 35 rounds, unpaired +9.9% p=0.062,
 * paired +23.6% [+8.8, +31.1], fio +23.8%. Old code: decided unpaired
 * (no "paired" in the verdict, not confirmed). */
TEST(search_confirmation_decided_paired_by_round)
{
    double width[2];
    for (int paired = 1; paired >= 0; paired--) {
        struct bad_ev p = { .drift = 0.8 };
        struct evaluator ev;
        struct search_spec s;
        struct search_result r;
        char line[1024];
        run_spells(&p, 60, 12, paired, &ev, &s, &r, line, sizeof line);
        width[paired] = r.confirm.dec.hi_pct - r.confirm.dec.lo_pct;
        if (paired) {
            CHECK_INT(r.confirm.outcome, CONFIRM_CONFIRMED);
            CHECK_CONTAINS(line, "pseudo-median of paired differences");
            CHECK_CONTAINS(line, "signed-rank");
            CHECK(r.confirm.reps >= 12);
        } else {
            CHECK(strstr(line, "paired") == NULL);
        }
        fx_done(&r, &ev);
    }
    /* the spells that the unpaired interval carries cancel in the rounds */
    CHECK(width[1] < width[0] / 2);
}

/* The quick tune's confirmation (5-8 rounds at its default budget on this
 * project's VM) is decided paired by round when the rounds share the
 * disk's spells, from the first round count at which the signed-rank test
 * can reject; without spells it is decided by the trimmed means (which
 * shrug off a stall the canary missed), their test swapping runs only
 * within a round (decide_rounds). Run 48 of the default command: 8 runs a
 * side unpaired claimed +4.0% where fio measured +10-11% paired. Old code:
 * paired only from 10 rounds, so 6 rounds under spells went unpaired. */
TEST(search_six_round_confirmation_decided_paired_under_spells)
{
    double width[2];
    for (int spells = 1; spells >= 0; spells--) {
        struct bad_ev p = { .drift = spells ? 0.8 : 0 };
        struct evaluator ev;
        struct search_spec s;
        struct search_result r;
        char line[1024];
        run_spells(&p, 40, 6, true, &ev, &s, &r, line, sizeof line);
        CHECK(r.confirm.reps >= 6);
        width[spells] = r.confirm.dec.hi_pct - r.confirm.dec.lo_pct;
        if (spells) {
            CHECK_INT(r.confirm.outcome, CONFIRM_CONFIRMED);
            CHECK_CONTAINS(line, "pseudo-median of paired differences");
        } else {
            /* its test swaps runs only within a round: at its level
             * whichever way the choice went (decide_rounds) */
            CHECK(strstr(line, "paired") == NULL);
            CHECK(r.confirm.dec.in_rounds);
            CHECK_CONTAINS(line, "30% trimmed mean, round swaps exact (");
        }
        fx_done(&r, &ev);
    }
    CHECK(width[1] < 100);
}

/* A claim stands on the confirmation's one-sided test at the look's alpha;
 * the interval beside it is two-sided at the level every verdict shows
 * (95%), and reaches 0 or below when p falls between half of alpha and
 * alpha. The quick tune from the Search screen on this project's VM said
 * "better ... +7.2% [95% CI -0.7%, +10.4%] (... one-sided p=0.031)": read
 * as a claim its own interval does not bear. The sentence now says the
 * bound the claim rests on (one-sided 95%: at least +x%), and only then.
 * Synthetic surfaces at 15% run-to-run noise, 7 fresh runs a side, until
 * both kinds were seen three times.
 * Old code: no bound in the sentence. */
TEST(search_claim_names_the_bound_it_rests_on)
{
    fx_setup();
    int reaching = 0, clear = 0;
    for (uint64_t seed = 1; seed <= 400 && (reaching < 3 || clear < 3); seed++) {
        struct evaluator ev;
        struct search_spec s;
        struct search_result r;
        evaluator_synthetic(&ev, seed, seed + 7, 0.15, false);
        fx_spec(&s, "bo", 30, seed);
        s.confirm_reps = 7;
        fx_run(&s, &ev, NULL, &r);
        struct decision shown;
        if (r.confirm.outcome == CONFIRM_CONFIRMED && verdict_claim_decision(&s, &wb, &r, &shown)) {
            char line[2048];
            report_verdict_line(&s, &wb, &r, line, sizeof line);
            if (shown.lo_pct <= 0) {
                reaching++;
                CHECK(r.confirm.dec.lo_pct > 0);
                CHECK(r.confirm.dec.p < r.confirm.dec.alpha);
                CHECK_CONTAINS(line, "; one-sided 95%: at least +");
            } else {
                clear++;
                CHECK(strstr(line, "one-sided 95%:") == NULL);
            }
        }
        fx_done(&r, &ev);
    }
    printf("  %d claims whose 95%% interval reaches 0, %d clear of it\n", reaching, clear);
    CHECK(reaching > 0);
    CHECK(clear > 0);
}

/* PSI as the stall rule's second signal, shown and kept: io full counts
 * the workload's own waits, which the knobs under test change, so a rule
 * dropping PSI-flagged runs would drop the slow runs of whichever
 * configuration waits most (bench/transfer: 31 of 144 runs, most under the
 * leaders, inflating the claim). Every third run is flagged by PSI alone:
 * none is left out, the verdict says how many PSI saw, and the flag
 * survives the stored metrics. Old code: they were left out. */
TEST(search_stall_rule_psi_signal)
{
    struct bad_ev p = { .psi_every = 3 };
    struct evaluator ev;
    struct search_spec s;
    struct search_result r;
    run_bad(&p, &ev, &s, &r);
    CHECK_INT(r.base_stalled_out, 0);
    CHECK_INT(r.stalled_runs, 0);
    int by_psi = 0;
    for (int t = 0; t < r.ntrials; t++) by_psi += (r.trials[t].m.stall_by & PROBE_STALL_PSI) != 0;
    CHECK(by_psi > 0);
    verdict_says(&s, &r, "stall rule: PSI saw io full >= %.0f%% of the run in %d runs: shown, kept", PROBE_PSI_FULL_STALL_PCT,
                 by_psi);
    /* the flag survives the trial's stored metrics (resume, report), still kept */
    int t = 0;
    while (t < r.ntrials && !(r.trials[t].m.stall_by & PROBE_STALL_PSI)) t++;
    char json[2048];
    search_metrics_json(&r.trials[t].m, json, sizeof json);
    CHECK_CONTAINS(json, "\"stalled_by\":\"psi\"");
    struct eval_metrics back;
    search_metrics_parse(json, &back);
    CHECK(!back.stalled);
    CHECK_INT(back.stall_by, PROBE_STALL_PSI);
    fx_done(&r, &ev);
}

/* NaN and inf runs are left out of every decision, measured again, and
 * the verdict says how many; the real improvement is still found. Old
 * code: the search stopped at the first NaN ("workload synthetic does not
 * measure what objective throughput needs"). */
TEST(search_failed_runs_are_left_out_and_said)
{
    struct bad_ev p = { .nan_every = 7 };
    struct evaluator ev;
    struct search_spec s;
    struct search_result r;
    run_bad(&p, &ev, &s, &r);
    int bad = 0;
    for (int t = 0; t < r.ntrials; t++) bad += !isfinite(r.trials[t].score);
    CHECK(bad >= 2);
    CHECK(r.winner >= 0);
    CHECK(isfinite(r.base_mean_score));
    for (int i = 0; i < r.nleaders; i++) CHECK(r.leader[i].dec.verdict != DECIDE_NO_VERDICT);
    verdict_says(&s, &r, "%d runs gave a NaN or infinite objective (a failed run?)", bad);
    fx_done(&r, &ev);
}

/* A confirmation whose fresh runs are all one value on each side draws no
 * verdict and says why (no spread); old code called that "confirmation
 * contradicts exploration" (its NaN estimate is not above 0). */
/* run_bad whose confirmation ends with outcome `want` and no win; its
 * verdict line into line. */
static void run_no_win(struct bad_ev *p, enum confirm_outcome want, struct evaluator *ev, struct search_result *r,
                       char *line, size_t n)
{
    struct search_spec s;
    run_bad(p, ev, &s, r);
    CHECK(r->confirm.candidate >= 0);
    CHECK_INT(r->confirm.outcome, want);
    CHECK_INT(r->winner, -1);
    report_verdict_line(&s, &wb, r, line, n);
}

TEST(search_confirmation_without_spread_says_why)
{
    struct bad_ev p = { .flat_from = 60 - 14 + 1 };   /* the confirmation's runs */
    struct evaluator ev;
    struct search_result r;
    char line[1024];
    run_no_win(&p, CONFIRM_NOISE, &ev, &r, line, sizeof line);
    CHECK_INT(r.confirm.dec.why, DECIDE_WHY_IDENTICAL);
    CHECK_CONTAINS(line, "not confirmed");
    CHECK_CONTAINS(line, "no verdict: ");
    CHECK_CONTAINS(line, "no spread");
    fx_done(&r, &ev);
}

/* A confirmation that took its second look and still could not claim
 * says which look decided and the share of alpha that look tested at: a
 * p under 0.05 called "within noise" reads as a contradiction otherwise
 * (bench/data/transfer-as-user-54.out, the null search: p=0.044 at look 2
 * of 2, where a win needed p < 0.025). From the confirmation on, the
 * candidate measures 1% above the baseline, under 3% noise. Old code: the
 * line named neither the look nor its alpha. */
TEST(search_unconfirmed_at_the_second_look_names_its_alpha)
{
    struct evaluator ev;
    struct search_spec s;
    struct search_result r;
    char line[1024], want[160];
    /* where the confirmation starts: the runs before it do not depend on it */
    struct bad_ev p = { 0 };
    run_spells(&p, 100, 6, true, &ev, &s, &r, line, sizeof line);
    int first = 0;
    while (first < r.ntrials && r.trials[first].role != TRIAL_CONFIRM) first++;
    fx_done(&r, &ev);
    p = (struct bad_ev){ .tie_from = first + 1, .tie_gain = 0.01 };
    run_spells(&p, 100, 6, true, &ev, &s, &r, line, sizeof line);
    CHECK_INT(r.confirm.outcome, CONFIRM_NOISE);
    CHECK_INT(r.confirm.looks, 2);
    CHECK_INT(r.confirm.look, 2);
    CHECK_NEAR(r.confirm.dec.alpha, 0.025, 1e-12);
    snprintf(want, sizeof want, "p=%.2g): within noise at look 2 of 2, where a win needed p < 0.025 (alpha 0.05 shared "
             "by 2 looks); no win", r.confirm.dec.p);
    CHECK_CONTAINS(line, want);
    fx_done(&r, &ev);
}

/* #13 bad input: a confirmation that contradicts exploration. Exploring
 * finds the landscape's real gain (+180%); from the confirmation's runs on
 * (the last 14 of 60) every configuration but the baseline measures a
 * quarter of that, so the fresh runs put the winner below the baseline:
 * the verdict says the confirmation contradicts exploration, with both
 * estimates, and claims no win. */
TEST(search_confirmation_contradicting_exploration_says_so_no_win)
{
    struct bad_ev p = { .worse_from = 60 - 14 + 1 };
    struct evaluator ev;
    struct search_result r;
    char line[1024];
    run_no_win(&p, CONFIRM_CONTRADICTED, &ev, &r, line, sizeof line);
    CHECK(r.confirm.explore_est > 0);
    CHECK(r.confirm.confirmed_est < 0);
    CHECK_CONTAINS(line, "confirmation contradicts exploration: exploring estimated ");
    CHECK_CONTAINS(line, "fresh interleaved runs each measured -");
    CHECK_CONTAINS(line, "no win: keep the current settings");
    fx_done(&r, &ev);
}

/* The confirmation's second look, which ff160ae left without a test when
 * search_confirmation_looks_again_past_a_stall went (at budget 30 it no
 * longer fits): with a budget that leaves room for it (152) and heavy
 * tails nobody flags (20% of runs stall to 20-60%), the first look misses
 * the winner's claim and the planned second look confirms it within the
 * budget; the verdict says which look decided. Seed found by scanning
 * budgets 104-200 and seeds 1-30 (3 of 90 searches reached look 2), and
 * again when the runner-up's rounds took balanced orders (seeds 1-40 at
 * budget 152: seed 22 alone). */
TEST(search_confirmation_second_look_within_the_budget)
{
    fx_setup();
    struct search_spec s;
    struct evaluator ev;
    fx_synthetic(&s, &ev, "bo", 152, 22, 2, 22 * 7919 + 1, 0.05, false);
    evaluator_synthetic_stalls(&ev, 0.20, 0.2, 0.6);
    /* the seed was found for the unpaired rank test; perm-trim (the
     * default since) confirms this winner at the first look, and so does
     * the paired decision of 10 rounds or more (its 12 rounds) */
    s.test = TEST_MW;
    s.confirm_paired_from = 0;
    struct search_result r;
    fx_run(&s, &ev, NULL, &r);
    CHECK(r.nevals <= 152);
    CHECK_INT(r.confirm.looks, 2);
    CHECK_INT(r.confirm.look, 2);
    CHECK_INT(r.confirm.outcome, CONFIRM_CONFIRMED);
    CHECK(r.winner >= 0);
    verdict_says(&s, &r, "one-sided");
    verdict_says(&s, &r, "look 2 of 2");
    fx_done(&r, &ev);
}

/* With the runner-up measured beside the winner, the confirmation's rounds
 * go through the six orders of three (round_order), so that each of any
 * two precedes the other equally often, and the winner's claim is decided
 * paired by round as with two (the disk's spells shared by a round's runs).
 * Old code: a rotation of three (the winner followed the baseline in two
 * rounds of three) and an unpaired decision. */
TEST(search_runner_up_keeps_the_confirmation_paired)
{
    fx_setup();
    struct search_spec s;
    struct bad_ev p = { .drift = 0.2 };
    evaluator_synthetic(&p.inner, 2, 11, 0.05, false);
    struct evaluator ev = { &bad_ops, &p };
    struct search_result r;
    fx_spec(&s, "bo", 120, 3);
    s.confirm_reps = 10;
    fx_run(&s, &ev, NULL, &r);
    const struct confirmation *cf = &r.confirm;
    CHECK(cf->candidate >= 0);
    CHECK(cf->runner_up >= 0);
    if (cf->candidate >= 0 && cf->runner_up >= 0) {
        CHECK_CONTAINS(cf->dec.test, "signed-rank");
        CHECK_CONTAINS(cf->dec_runner.test, "signed-rank");
        struct search_config b;
        space_baseline(&wb, &b);
        const struct search_config *w = &r.leader[cf->candidate].cfg;
        int first[64] = { 0 }, rounds = 0;   /* per round: 1 baseline before winner, 2 after */
        for (int t = 0; t < r.ntrials; t++) {
            const struct search_trial *tr = &r.trials[t];
            if (tr->role != TRIAL_CONFIRM || tr->round <= 0 || tr->round >= 64 || first[tr->round]) continue;
            if (space_config_equal(&wb, &tr->cfg, &b)) first[tr->round] = 1;
            else if (space_config_equal(&wb, &tr->cfg, w)) first[tr->round] = 2;
        }
        int before = 0;
        for (int k = 1; k < 64; k++) {
            rounds += first[k] != 0;
            before += first[k] == 1;
        }
        CHECK(rounds >= 10);
        CHECK(abs(2 * before - rounds) <= 2);   /* balanced, within a part-cycle */
        /* the verdict's interval, redrawn at VERDICT_LEVEL, is the paired
         * one too; old code redrew it unpaired whenever a runner-up ran */
        double vb[64], vx[64];
        int np = 0;
        for (int k = 1; k < 64; k++) {
            double xb = NAN, xw = NAN;
            for (int t = 0; t < r.ntrials; t++) {
                const struct search_trial *tr = &r.trials[t];
                if (tr->role != TRIAL_CONFIRM || tr->round != k || !search_trial_counts(r.trials, r.ntrials, &wb, t)) continue;
                if (space_config_equal(&wb, &tr->cfg, &b)) xb = tr->score;
                else if (space_config_equal(&wb, &tr->cfg, w)) xw = tr->score;
            }
            if (!isnan(xb) && !isnan(xw)) vb[np] = xb, vx[np++] = xw;
        }
        struct decide_opts o;
        search_score_opts(&o, cf->dec.alpha);
        o.level = VERDICT_LEVEL;
        o.one_sided = true;
        struct decision want, got = cf->dec;
        CHECK_INT(decide_paired(vb, vx, np, &o, &want, NULL), 0);
        verdict_confirm_at_level(&s, &wb, &r, cf->candidate, &got);
        CHECK_NEAR(got.lo_pct, want.lo_pct, 1e-9);
        CHECK_NEAR(got.hi_pct, want.hi_pct, 1e-9);
    }
    fx_done(&r, &ev);
}

/* A clock that moves 10 s each time the search reads it (once a run). */
static long long slow_clock(void *arg)
{
    long long *t = arg;
    return *t += 10000;
}

/* slow_clock's arg, and the budget each trial reported to progress */
struct paced_watch {
    long long clock;
    long long first_budget_ms, last_budget_ms;
    int n;
};

static long long paced_clock(void *arg) { return slow_clock(&((struct paced_watch *)arg)->clock); }

static void paced_progress(void *arg, const struct search_trial *t, const struct history *h)
{
    (void)h;
    struct paced_watch *w = arg;
    if (w->n++ == 0) w->first_budget_ms = t->budget_ms;
    w->last_budget_ms = t->budget_ms;
}

/* A default budget (the quick tune's, grown by the plan to what a verdict
 * needs at the calibration's run time) grows again when its first runs
 * prove slower than planned, up to its ceiling, so that the confirmation
 * keeps its fresh runs; a budget the user gave holds. On this project's VM
 * `tune --quick --size 3G` planned 21.5 s a run and got 28.6: 14 ran, and
 * the verdict had 3 fresh runs a side (bench/data/transfer-as-user-51.out).
 * Old code: the budget never grew in the search (3 runs a side here). */
TEST(search_default_budget_grows_when_runs_prove_slower)
{
    int reps[2];
    for (int grows = 1; grows >= 0; grows--) {
        fx_setup();
        struct search_spec s;
        struct evaluator ev;
        fx_synthetic(&s, &ev, "bo", 100, 3, 11, 5, 0.03, false);
        struct paced_watch w = { 0 };
        struct search_hooks hk = { .arg = &w, .now_ms = paced_clock, .progress = paced_progress };
        s.budget_ms = 15 * 10000;   /* 15 runs of 10 s: a confirmation of 14 cannot follow 8 */
        s.budget_grows_to_ms = grows ? 10 * 60 * 1000 : 0;
        struct search_result r;
        fx_run(&s, &ev, &hk, &r);
        CHECK(r.confirm.candidate >= 0);
        reps[grows] = r.confirm.reps;
        if (grows) {
            CHECK_INT(r.budget_grown_from_ms, 15 * 10000);
            CHECK(r.budget_grown_to_ms > r.budget_grown_from_ms && r.budget_grown_to_ms <= 10 * 60 * 1000);
            CHECK(r.budget_grown_pace_ms > 0);
            CHECK(r.elapsed_ms <= r.budget_grown_to_ms);
            /* progress counts from the grown budget once it grew (its "left"
             * said the planned budget's before) */
            CHECK(w.first_budget_ms == 15 * 10000);
            CHECK(w.last_budget_ms == r.budget_grown_to_ms);
        } else {
            CHECK_INT(r.budget_grown_to_ms, 0);
            CHECK(w.last_budget_ms == 15 * 10000);
            CHECK(r.elapsed_ms <= 15 * 10000);
        }
        fx_done(&r, &ev);
    }
    CHECK(reps[1] >= 5);
    CHECK(reps[0] < reps[1]);
}
