/* effects — what a recommended configuration costs beside what it wins:
 * each collateral metric (the reader beside the workload, write latency,
 * PSI, the canary) of the candidate's re-measured runs against the
 * baseline's, decided by decide.h with the verdict's own test; and the
 * objective's guards ("reader_p99<=baseline"), which refuse a win that
 * makes a protected metric worse beyond noise. */
#include "search/evidence.h"
#include "search/search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table's rows, most telling first: interactive readers, then the
 * workload's own writes, then system pressure and the canary. */
static const int collateral[] = { MET_READER_P99, MET_READER_READ_P99, MET_READER_P50, MET_READER_MAX, MET_WRITE_P99,
                                  MET_PSI_SOME,   MET_PSI_FULL,        MET_CANARY_P99, MET_STALLS };

/* The round that judges c: the latest re-measurement it had (a
 * confirmation round after the race, when there was one), else the race. */
static int judging_role(const struct search_trial *tr, int ntr, const struct space *sp, const struct search_config *c)
{
    int role = TRIAL_RACE;
    for (int t = 0; t < ntr; t++)
        if ((int)tr[t].role > role && space_config_equal(sp, &tr[t].cfg, c)) role = (int)tr[t].role;
    return role;
}

/* Values of metric k (plus its offset, so counts and PSI of 0 can be
 * compared as ratios) over the trials of c in round `role`: never
 * exploration, whose selection picked c. The baseline's side: its runs of
 * that round where it had them (a confirmation measures it afresh beside
 * the candidate), else all its runs. Runs the stall rule leaves out of
 * the objective's decision are left out here too. */
static int values_of(const struct search_trial *tr, int ntr, const struct space *sp, const struct search_config *c,
                     int role, bool any_role, int k, double *out)
{
    int n = 0;
    for (int t = 0; t < ntr; t++) {
        if (!space_config_equal(sp, &tr[t].cfg, c) || !tr[t].m.has[k]) continue;
        if (!any_role && (int)tr[t].role != role) continue;
        if (!search_trial_counts(tr, ntr, sp, t)) continue;   /* the stall rule, as for the objective */
        out[n++] = tr[t].m.v[k] + metric_table[k].offset;
    }
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n == 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Metric k of b[0..nb-1] (the baseline's values, offset added) against
 * c[0..nc-1], decided by decide.h with the verdict's test. Each row is
 * tested at the alpha given on its own: the table describes, and a guard
 * is one question declared before the search, so neither needs a
 * correction across the rows. */
static void decide_effect(double *b, int nb, double *c, int nc, int k, enum search_test test, double alpha, uint64_t seed,
                          struct collateral_effect *out)
{
    memset(out, 0, sizeof *out);
    out->metric = k;
    struct decide_opts o;
    decide_opts_default(&o);
    o.method = search_test_method(test);
    o.alpha = alpha;
    o.lower_is_better = metric_table[k].dir < 0;
    o.seed = seed + 7919u * (uint64_t)k;
    decide_compare(b, nb, c, nc, &o, &out->dec, NULL);
    out->base = median(b, nb) - metric_table[k].offset;
    out->cand = median(c, nc) - metric_table[k].offset;
}

/* One row; false when either side has no value of the metric. */
static bool effect_of(const struct search_spec *spec, const struct space *sp, const struct search_trial *tr, int ntr,
                      const struct search_config *base, const struct search_config *cand, int k,
                      struct collateral_effect *out)
{
    double *b = xmalloc(sizeof *b * (size_t)(ntr + 1)), *c = xmalloc(sizeof *c * (size_t)(ntr + 1));
    int role = judging_role(tr, ntr, sp, cand);
    int nc = values_of(tr, ntr, sp, cand, role, false, k, c);
    int nb = role == TRIAL_RACE ? 0 : values_of(tr, ntr, sp, base, role, false, k, b);
    if (nb == 0) nb = values_of(tr, ntr, sp, base, role, true, k, b);
    bool ok = nb > 0 && nc > 0;
    if (ok) decide_effect(b, nb, c, nc, k, spec->test, spec->alpha, spec->seed, out);
    free(b);
    free(c);
    return ok;
}

void search_guard_leaders(const struct search_spec *spec, const struct objective *o, const struct space *sp,
                          const struct search_trial *tr, int ntr, const struct search_config *base,
                          struct search_result *r, int only)
{
    for (int i = 0; i < r->nleaders; i++) {
        if (only >= 0 && i != only) continue;
        struct leader *l = &r->leader[i];
        for (int g = 0; g < o->ncons && l->verdict == VERDICT_WIN; g++) {
            struct collateral_effect fx;
            if (!o->cons[g].vs_base || !effect_of(spec, sp, tr, ntr, base, &l->cfg, o->cons[g].metric, &fx)) continue;
            if (fx.dec.verdict != DECIDE_WORSE) continue;
            l->verdict = VERDICT_INFEASIBLE;
            l->refused = true;
            l->guard = fx;
            snprintf(l->infeasible_why, sizeof l->infeasible_why, "%s %+.0f%% [%.0f%% CI %+.0f%%, %+.0f%%] worse than the baseline",
                     metric_table[fx.metric].name, fx.dec.effect_pct, 100 * fx.dec.level, fx.dec.lo_pct, fx.dec.hi_pct);
        }
    }
}

static bool in_objective(const struct objective *o, int k)
{
    for (int i = 0; i < o->nterms; i++)
        if (o->term[i].metric == k) return true;
    return false;
}

void search_side_effects(const struct search_spec *spec, const struct objective *o, const struct space *sp,
                         const struct search_trial *tr, int ntr, const struct search_config *base,
                         struct search_result *r)
{
    struct side_effects *fx = &r->effects;
    memset(fx, 0, sizeof *fx);
    fx->leader = r->winner;
    /* no winner: the refused leader the verdict names. After a
     * confirmation only its own candidate: a leader the race's 3-5 runs
     * refused and no fresh run measured is no claim (the verdict had named
     * one at reader p99 +65.6% beside a confirmation of another leader, and
     * fio's mixed job measured the reader -1.1% [-21.5, +29.7]:
     * bench/data/transfer-as-user-27.out) */
    int only = r->confirm.outcome != CONFIRM_NONE ? r->confirm.candidate : -1;
    if (fx->leader < 0)
        for (int i = 0; i < r->nleaders; i++)
            if (r->leader[i].refused && (only < 0 || i == only) &&
                (fx->leader < 0 || r->leader[i].ci.est > r->leader[fx->leader].ci.est))
                fx->leader = i;
    if (fx->leader < 0) return;
    const struct search_config *cand = &r->leader[fx->leader].cfg;
    for (size_t i = 0; i < sizeof collateral / sizeof collateral[0] && fx->n < SEARCH_MAX_EFFECTS; i++)
        if (!in_objective(o, collateral[i]) && effect_of(spec, sp, tr, ntr, base, cand, collateral[i], &fx->row[fx->n]))
            fx->n++;
}

/* Metric k (offset added) of the runs of m[0..n-1] that measured it; by
 * host (hosts given), one value per host: the mean of its runs', so one
 * host's many runs count once, as in the comparison's own verdict. */
static int run_values(const struct eval_metrics *m, const char *const *hosts, int n, int k, double *out)
{
    int got = 0;
    if (!hosts) {
        for (int i = 0; i < n; i++)
            if (m[i].has[k]) out[got++] = m[i].v[k] + metric_table[k].offset;
        return got;
    }
    struct host_at *s = evidence_hosts_sorted(hosts, n);
    for (int i = 0, j; i < n; i = j) {
        double sum = 0;
        int c = 0;
        for (j = i; j < n && strcmp(s[j].host, s[i].host) == 0; j++)
            if (m[s[j].at].has[k]) { sum += m[s[j].at].v[k]; c++; }
        if (c) out[got++] = sum / c + metric_table[k].offset;
    }
    free(s);
    return got;
}

void search_side_effects_of_runs(const struct objective *o, const struct effect_sides *sides, enum search_test test,
                                 double alpha, uint64_t seed, struct side_effects *fx)
{
    memset(fx, 0, sizeof *fx);
    fx->leader = -1;
    fx->by_host = sides->by_host;
    const char *const *ha = sides->by_host ? sides->host_a : NULL, *const *hb = sides->by_host ? sides->host_b : NULL;
    double *va = xmalloc(sizeof *va * (size_t)(sides->na + 1)), *vb = xmalloc(sizeof *vb * (size_t)(sides->nb + 1));
    for (size_t i = 0; i < sizeof collateral / sizeof collateral[0] && fx->n < SEARCH_MAX_EFFECTS; i++) {
        int k = collateral[i];
        if (in_objective(o, k)) continue;
        int ka = run_values(sides->a, ha, sides->na, k, va), kb = run_values(sides->b, hb, sides->nb, k, vb);
        if (ka == 0 || kb == 0) continue;
        decide_effect(va, ka, vb, kb, k, test, alpha, seed, &fx->row[fx->n++]);
        fx->leader = 0;
    }
    free(va);
    free(vb);
}
