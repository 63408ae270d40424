/* search_efficiency — replay every strategy over many seeds against
 * recorded or synthetic grids (oracle mode: the evaluator draws one stored
 * repetition per evaluation) and report, per strategy:
 *
 *   STRATEGY: median_evals_to_5pct=N p90_evals_to_5pct=N final_regret=X% false_claims=Y%
 *
 * evals_to_5pct: evaluations (baseline runs included) until the best mean
 * observed so far is truly within 5% of the grid's optimum (budget+1 when
 * never: printed as ">B"). final_regret: (f* - f(deployed)) / f*, where
 * deployed is the verdict's winner, or the baseline when the verdict was
 * "within noise". false_claims: runs whose verdict claimed a win that is
 * not truly better than the baseline, over all runs (the flat grids, where
 * nothing is better, are included on purpose). On a flat grid all
 * strategies and tests see the same confirmation draws for a seed (the
 * noise seed is the seed alone): their false claims are one binomial
 * count, not independent ones (bench/search-efficiency's header).
 *
 * claimed_win: the share of runs whose verdict claimed a win (the rest
 * keep the baseline: "within noise" or no verdict).
 *
 * evals_spent_mean, evals_spent_max: the evaluations each search spent
 * in all (exploring, race and confirmation): --budget holds when the max
 * is at most the budget.
 *
 * Usage: search_efficiency FIXTURE_ROOT [SEEDS] [BUDGETS] [CSV...]
 * BUDGETS: comma-separated (default 30,60); each CSV bench/data/NAME.csv
 * is replayed over bench/data/NAME.space. TEST=yuen (etc.) picks the test. */
#include "probe/probe.h"
#include "search/search.h"
#include "core/sysfs.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct grid {
    const char *name;
    const char *space;     /* shipped name or file */
    const char *device;
    double cv;
    double stall_share;    /* heavy tails: this share of runs stalls to 20-60% */
    double seen;           /* the canary flags this share of the stalls (and 1% of other runs) */
    bool flat;
    uint64_t shape;
    const char *csv;       /* recorded grid (CSV) instead of a synthetic landscape */
};

struct tracker {
    struct evaluator *ev;
    const struct space *sp;
    double fstar, target;
    int first_hit;
};

static double truth_of(struct evaluator *ev, const struct space *sp, const struct search_config *c)
{
    struct eval_metrics m;
    if (!ev->ops->truth || ev->ops->truth(ev->ctx, sp, c, &m) < 0) return NAN;
    return m.v[MET_THROUGHPUT];
}

static void on_trial(void *arg, const struct search_trial *t, const struct history *h)
{
    struct tracker *tr = arg;
    if (tr->first_hit) return;
    int best = history_best(h);
    if (best >= 0 && truth_of(tr->ev, tr->sp, &h->pt[best].cfg) >= tr->target) tr->first_hit = h->nobs;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* CSV: one row per repetition: "config text with ; between knobs",MB/s
 * and optionally ,first,stall_ms,... (bench/record-real-grid): a run whose
 * canary overslept >= 100 ms is flagged as the probe would flag it. */
static int load_csv(struct evaluator *ev, const char *path, uint64_t seed)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    evaluator_table(ev, seed);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char *comma = strchr(line, ',');
        if (!comma) continue;
        *comma = 0;
        struct eval_metrics m = { 0 };
        char *field = comma + 1;
        m.v[MET_THROUGHPUT] = strtod(field, &field);
        m.has[MET_THROUGHPUT] = true;
        if (*field == ',' && strchr(field + 1, ',')) {
            m.stall_ms = atof(strchr(field + 1, ',') + 1);
            eval_metrics_set_stall(&m, eval_stall_rule(m.stall_ms) ? PROBE_STALL_CANARY : 0);
        }
        for (char *p = line; *p; p++) if (*p == ';') *p = '\n';
        size_t n = strlen(line);
        if (n && line[n - 1] != '\n') { line[n] = '\n'; line[n + 1] = 0; }
        evaluator_table_add(ev, line, &m);
    }
    fclose(f);
    return 0;
}

static void make_evaluator(const struct grid *g, struct evaluator *ev, uint64_t seed)
{
    if (g->csv) load_csv(ev, g->csv, seed);
    else {
        evaluator_synthetic(ev, g->shape, seed * 7919 + 1, g->cv, g->flat);
        if (g->stall_share > 0) evaluator_synthetic_stalls(ev, g->stall_share, 0.2, 0.6);
        if (g->seen > 0) evaluator_synthetic_canary(ev, g->seen, 0.01);
    }
}

struct totals {
    int *evals;
    int n, cap;
    double regret_sum;
    int runs, false_claims, claims;
    long long spent_sum;   /* evaluations spent, confirmation included */
    int spent_max, searches;
};

static void add_eval(struct totals *t, int v)
{
    if (t->n == t->cap) { t->cap = t->cap ? t->cap * 2 : 256; t->evals = realloc(t->evals, sizeof *t->evals * (size_t)t->cap); }
    t->evals[t->n++] = v;
}

/* DIAG=1: one line per seed that loses more than 5%: where the loss is
 * (search: exploring never came within 5%; race: the best leader was good
 * but the race named no winner or a worse one; confirm: the race's winner
 * was good but the confirmation did not hold it). */
static void diag_seed(const struct grid *g, const struct space *sp, struct evaluator *ev, const struct search_result *r,
                      int seed, double fstar, double fbase, double fdeploy, int hit, int budget)
{
    double best_leader = -INFINITY;
    for (int i = 0; i < r->nleaders; i++) {
        double v = truth_of(ev, sp, &r->leader[i].cfg);
        if (v > best_leader) best_leader = v;
    }
    int cand = r->confirm.candidate;
    double fcand = cand >= 0 ? truth_of(ev, sp, &r->leader[cand].cfg) : fbase;
    double loss = (fstar - fdeploy) / fstar;
    if (loss <= 0.05 && !getenv("DIAG_ALL")) return;
    const char *where = hit > budget ? "search" : (fstar - best_leader) / fstar > 0.05 ? "leaders"
                      : cand < 0 ? "race-none" : (fstar - fcand) / fstar > 0.05 ? "race-pick"
                      : r->winner < 0 ? "confirm" : "other";
    printf("DIAG %s seed=%d loss=%.1f%% where=%s hit=%d leaders=%d best_leader=%.1f%% race_cand=%.1f%% base=%.1f%% "
           "confirm=%s reps=%d est=%+.1f%% [%+.1f,%+.1f] p=%.3g nevals=%d\n",
           g->name, seed, 100 * loss, where, hit, r->nleaders, 100 * (fstar - best_leader) / fstar,
           100 * (fstar - fcand) / fstar, 100 * (fstar - fbase) / fstar, confirm_outcome_name(r->confirm.outcome),
           r->confirm.reps, r->confirm.dec.effect_pct, r->confirm.dec.lo_pct, r->confirm.dec.hi_pct, r->confirm.dec.p,
           r->nevals);
    if (getenv("DIAG_RUNS") && cand >= 0) {
        const struct search_config *cc[2] = { &r->trials[0].cfg, &r->leader[cand].cfg };
        for (int k = 0; k < 2; k++) {
            printf("DIAG    confirm %s:", k ? "cand" : "base");
            for (int t = 0; t < r->ntrials; t++)
                if (r->trials[t].role == TRIAL_CONFIRM && space_config_equal(sp, &r->trials[t].cfg, cc[k]))
                    printf(" %.2f", exp(r->trials[t].score) / 100);
            printf("\n");
        }
    }
    for (int i = 0; i < r->nleaders && getenv("DIAG_LEADERS"); i++)
        printf("DIAG    leader %d: truth %.1f%% n=%d est=%+.1f%% [%+.1f,%+.1f] p=%.3g %s look %d/%d\n", i,
               100 * (fstar - truth_of(ev, sp, &r->leader[i].cfg)) / fstar, r->leader[i].n, 100 * r->leader[i].ci.est,
               100 * r->leader[i].ci.lo, 100 * r->leader[i].ci.hi, r->leader[i].p_adj, verdict_name(r->leader[i].verdict),
               r->leader[i].look, r->leader[i].looks);
}

static void run_grid(const struct grid *g, const struct space *sp, const char *strategy, bool first_strategy, int seeds,
                     int budget, struct totals *tot, struct totals *grid_tot)
{
    struct evaluator probe_ev;
    make_evaluator(g, &probe_ev, 1);
    double fstar = -INFINITY;
    struct space_iter it = { 0 };
    struct search_config c;
    while (space_next(sp, &it, &c)) {
        double v = truth_of(&probe_ev, sp, &c);
        if (!isnan(v) && v > fstar) fstar = v;
    }
    int near = 0, all = 0;
    it = (struct space_iter){ 0 };
    while (space_next(sp, &it, &c)) {
        all++;
        near += truth_of(&probe_ev, sp, &c) >= 0.95 * fstar;
    }
    struct search_config b0;
    space_baseline(sp, &b0);
    if (first_strategy)
        fprintf(stderr, "# %s: %d configurations, %.1f%% within 5%% of the best, baseline at %.0f%% of it\n", g->name, all,
                100.0 * near / all, 100 * truth_of(&probe_ev, sp, &b0) / fstar);
    evaluator_free(&probe_ev);
    int s0 = getenv("SEED_OFFSET") ? atoi(getenv("SEED_OFFSET")) : 0;   /* a held-out set of seeds */
    for (int s = s0 + 1; s <= s0 + seeds; s++) {
        struct evaluator ev;
        make_evaluator(g, &ev, (uint64_t)s);
        struct search_spec spec;
        memset(&spec, 0, sizeof spec);
        search_spec_defaults(&spec);
        snprintf(spec.objective, sizeof spec.objective, "throughput");
        snprintf(spec.strategy, sizeof spec.strategy, "%s", strategy);
        snprintf(spec.workload, sizeof spec.workload, "bench");
        spec.budget_evals = budget;
        spec.seed = (uint64_t)s;
        spec.ei_stop = 0;   /* spend the whole budget: we measure the path */
        /* EI_STOP=R: the stop the commands use (--ei-stop, default 0.002),
         * which ends exploring early and gives the rest to the confirmation */
        if (getenv("EI_STOP")) spec.ei_stop = atof(getenv("EI_STOP"));
        if (getenv("LEADERS")) spec.leaders = atoi(getenv("LEADERS"));
        if (getenv("RACE")) spec.race_reps = atoi(getenv("RACE"));
        /* PAIRED_FROM=0: every confirmation unpaired by --test */
        if (getenv("PAIRED_FROM")) spec.confirm_paired_from = atoi(getenv("PAIRED_FROM"));
        if (getenv("TEST")) spec.test = (enum search_test)search_test_parse(getenv("TEST"));
        struct tracker tr = { .ev = &ev, .sp = sp, .fstar = fstar, .target = 0.95 * fstar };
        struct search_hooks hk = { .arg = &tr, .progress = on_trial };
        struct search_result r;
        sl_err e;
        if (search_run(&spec, sp, &ev, &hk, &r, &e) < 0) {
            fprintf(stderr, "%s/%s seed %d: %s\n", g->name, strategy, s, e.msg);
            exit(1);
        }
        struct search_config base;
        space_baseline(sp, &base);
        double fbase = truth_of(&ev, sp, &base);
        double fdeploy = r.winner >= 0 ? truth_of(&ev, sp, &r.leader[r.winner].cfg) : fbase;
        int hit = tr.first_hit ? tr.first_hit : budget + 1;
        bool false_claim = r.winner >= 0 && !(fdeploy > fbase);
        if (getenv("DIAG")) diag_seed(g, sp, &ev, &r, s, fstar, fbase, fdeploy, hit, budget);
        struct totals *ts[2] = { tot, grid_tot };
        for (int k = 0; k < 2; k++) {
            if (!g->flat) add_eval(ts[k], hit);   /* E5 is meaningless on a flat grid */
            ts[k]->regret_sum += g->flat ? 0 : (fstar - fdeploy) / fstar;
            ts[k]->runs += !g->flat;
            ts[k]->claims += r.winner >= 0;
            ts[k]->false_claims += false_claim;
            ts[k]->spent_sum += r.nevals;
            ts[k]->spent_max = r.nevals > ts[k]->spent_max ? r.nevals : ts[k]->spent_max;
            ts[k]->searches++;
        }
        search_result_free(&r);
        evaluator_free(&ev);
    }
}

static void print_line(const char *label, struct totals *t, int budget, int nruns_all)
{
    qsort(t->evals, (size_t)t->n, sizeof *t->evals, cmp_int);
    int med = t->n ? t->evals[(t->n - 1) / 2] : 0, p90 = t->n ? t->evals[(int)ceil(0.9 * t->n) - 1] : 0;
    char m[16], p[16];
    snprintf(m, sizeof m, med > budget ? ">%d" : "%d", med > budget ? budget : med);
    snprintf(p, sizeof p, p90 > budget ? ">%d" : "%d", p90 > budget ? budget : p90);
    printf("%s: median_evals_to_5pct=%s p90_evals_to_5pct=%s final_regret=%.1f%% false_claims=%.1f%% claimed_win=%.0f%% "
           "evals_spent_mean=%.1f evals_spent_max=%d\n", label, m, p,
           t->runs ? 100 * t->regret_sum / t->runs : 0, nruns_all ? 100.0 * t->false_claims / nruns_all : 0,
           nruns_all ? 100.0 * t->claims / nruns_all : 0, t->searches ? (double)t->spent_sum / t->searches : 0,
           t->spent_max);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: search_efficiency FIXTURE_ROOT [SEEDS] [BUDGETS] [GRID.csv...]\n"); return 2; }
    sl_err e;
    if (sysfs_set_root(argv[1], &e) < 0) { fprintf(stderr, "%s\n", e.msg); return 2; }
    int seeds = argc > 2 ? atoi(argv[2]) : 50, budgets[4] = { 30, 60 }, nb = 2;
    if (argc > 3) {
        char list[64];
        snprintf(list, sizeof list, "%s", argv[3]);
        nb = 0;
        for (char *tok = strtok(list, ","); tok && nb < 4; tok = strtok(NULL, ",")) budgets[nb++] = atoi(tok);
    }
    /* the -seen80 grids: the same stalls, 80% of them flagged by the
     * canary (the stall rule leaves those out), 1% of other runs flagged */
    struct grid grids[16] = {
        { "writeback-cv3", "writeback", NULL, 0.03, 0, 0, false, 1, NULL },
        { "writeback-cv5", "writeback", NULL, 0.05, 0, 0, false, 2, NULL },
        { "writeback-cv10", "writeback", NULL, 0.10, 0, 0, false, 3, NULL },
        { "mixed-cv5", "bench/data/mixed.space", NULL, 0.05, 0, 0, false, 4, NULL },
        { "flat-cv5", "writeback", NULL, 0.05, 0, 0, true, 5, NULL },
        { "writeback-cv5-stall10", "writeback", NULL, 0.05, 0.10, 0, false, 2, NULL },
        { "mixed-cv5-stall10", "bench/data/mixed.space", NULL, 0.05, 0.10, 0, false, 4, NULL },
        { "flat-cv5-stall10", "writeback", NULL, 0.05, 0.10, 0, true, 5, NULL },
        { "writeback-cv5-stall10-seen80", "writeback", NULL, 0.05, 0.10, 0.8, false, 2, NULL },
        { "mixed-cv5-stall10-seen80", "bench/data/mixed.space", NULL, 0.05, 0.10, 0.8, false, 4, NULL },
        { "flat-cv5-stall10-seen80", "writeback", NULL, 0.05, 0.10, 0.8, true, 5, NULL },
    };
    int ng = 11, nsynth = 11;
    for (int a = 4; a < argc && ng < 16; a++) {
        /* a recorded grid: bench/data/NAME.csv replayed over bench/data/NAME.space */
        static char names[5][64], spaces[5][PATH_MAX];
        const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        snprintf(names[ng - nsynth], sizeof names[0], "%.*s", (int)strcspn(base, "."), base);
        snprintf(spaces[ng - nsynth], sizeof spaces[0], "%.*s.space", (int)(strlen(argv[a]) - 4), argv[a]);
        grids[ng] = (struct grid){ names[ng - nsynth], spaces[ng - nsynth], NULL, 0, 0, 0, false, 0, argv[a] };
        ng++;
    }
    /* STRATEGIES="bo random" runs a subset (default: all four) */
    const char *strategies[4] = { "bo", "coord", "random", "grid" };
    size_t nstrat = 4;
    char want[64] = "";
    if (getenv("STRATEGIES")) {
        snprintf(want, sizeof want, "%s", getenv("STRATEGIES"));
        nstrat = 0;
        for (char *tok = strtok(want, " ,"); tok && nstrat < 4; tok = strtok(NULL, " ,")) strategies[nstrat++] = tok;
    }
    /* GRIDS="real,stall10-seen" keeps the grids whose name holds one of these */
    if (getenv("GRIDS")) {
        int kept = 0;
        for (int g = 0; g < ng; g++) {
            char list[256];
            snprintf(list, sizeof list, "%s", getenv("GRIDS"));
            bool keep = false;
            for (char *tok = strtok(list, " ,"); tok && !keep; tok = strtok(NULL, " ,")) keep = strstr(grids[g].name, tok) != NULL;
            if (keep) grids[kept++] = grids[g];
        }
        ng = kept;
    }
    struct space sps[16];
    for (int g = 0; g < ng; g++)
        if (space_build(grids[g].space, grids[g].device, &sps[g], &e) < 0) { fprintf(stderr, "%s: %s\n", grids[g].name, e.msg); return 2; }
    for (int b = 0; b < nb; b++)
        for (size_t s = 0; s < nstrat; s++) {
            struct totals tot = { 0 };
            int all = 0;
            for (int g = 0; g < ng; g++) {
                struct totals gt = { 0 };
                run_grid(&grids[g], &sps[g], strategies[s], s == 0 && b == 0, seeds, budgets[b], &tot, &gt);
                char label[96];
                snprintf(label, sizeof label, "  %s/%s/%d", grids[g].name, strategies[s], budgets[b]);
                print_line(label, &gt, budgets[b], seeds);
                all += seeds;
                free(gt.evals);
            }
            char label[64];
            snprintf(label, sizeof label, "%s/%d", strategies[s], budgets[b]);
            print_line(label, &tot, budgets[b], all);
            fflush(stdout);
            free(tot.evals);
        }
    return 0;
}
