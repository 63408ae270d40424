/* verdict — leaders against the baseline (tests, Holm, bootstrap, effect
 * size), the Pareto front, and metric JSON. */
#include "search/search.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *verdict_name(enum verdict v)
{
    static const char *const names[] = {
        [VERDICT_WIN] = "win", [VERDICT_NOISE] = "within noise", [VERDICT_WORSE] = "worse",
        [VERDICT_INFEASIBLE] = "infeasible",
    };
    return names[v];
}

void search_judge(struct leader *l, const double *const *scores, const int *nscores, int n,
                  const double *base, int nbase, double alpha, enum search_test test, uint64_t seed)
{
    double p[SEARCH_MAX_LEADERS] = { 0 }, adj[SEARCH_MAX_LEADERS] = { 0 };
    if (n > SEARCH_MAX_LEADERS) n = SEARCH_MAX_LEADERS;
    for (int i = 0; i < n; i++) {
        struct welch_result w;
        struct mw_result m;
        l[i].p_welch = signif_welch(scores[i], nscores[i], base, nbase, &w) == 0 ? w.p : 1;
        l[i].p_mw = signif_mann_whitney(scores[i], nscores[i], base, nbase, &m) == 0 ? m.p : 1;
        p[i] = test == TEST_MW ? l[i].p_mw : l[i].p_welch;
        l[i].g = signif_hedges_g(scores[i], nscores[i], base, nbase);
        if (signif_bootstrap(scores[i], nscores[i], base, nbase, BOOT_EXP_MEAN_DIFF, BOOT_PERCENTILE, 2000, 1 - alpha,
                             seed + (uint64_t)i, &l[i].ci) < 0) {
            l[i].ci.est = l[i].ci.lo = l[i].ci.hi = NAN;
        }
    }
    signif_holm(p, n, adj);
    for (int i = 0; i < n; i++) {
        l[i].p_adj = adj[i];
        bool enough = nscores[i] >= 2 && nbase >= 2;
        if (!l[i].feasible) l[i].verdict = VERDICT_INFEASIBLE;
        else if (enough && adj[i] < alpha && l[i].ci.lo > 0) l[i].verdict = VERDICT_WIN;
        else if (enough && adj[i] < alpha && l[i].ci.hi < 0) l[i].verdict = VERDICT_WORSE;
        else l[i].verdict = VERDICT_NOISE;
    }
}

void search_metrics_json(const struct eval_metrics *m, char *buf, size_t n)
{
    json_t *o = json_object();
    for (int k = 0; k < MET_NR; k++)
        if (m->has[k]) json_object_set_new(o, metric_table[k].name, json_real(m->v[k]));
    if (m->run_uuid[0]) json_object_set_new(o, "run", json_string(m->run_uuid));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    snprintf(buf, n, "%s", s ? s : "{}");
    free(s);
    json_decref(o);
}

int search_metrics_parse(const char *text, struct eval_metrics *m)
{
    memset(m, 0, sizeof *m);
    json_t *o = json_loads(text, 0, NULL);
    if (!json_is_object(o)) { json_decref(o); return -1; }
    for (int k = 0; k < MET_NR; k++) {
        json_t *v = json_object_get(o, metric_table[k].name);
        if (json_is_number(v)) { m->v[k] = json_number_value(v); m->has[k] = true; }
    }
    json_t *r = json_object_get(o, "run");
    if (json_is_string(r)) snprintf(m->run_uuid, sizeof m->run_uuid, "%s", json_string_value(r));
    json_decref(o);
    return 0;
}
