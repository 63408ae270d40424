/* verdict — leaders against the baseline (tests, Holm, bootstrap, effect
 * size), the Pareto front, and metric JSON. */
#include "search/search.h"
#include "probe/probe.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *verdict_name(enum verdict v)
{
    static const char *const names[] = {
        [VERDICT_WIN] = "win", [VERDICT_NOISE] = "within noise", [VERDICT_WORSE] = "worse",
        [VERDICT_INFEASIBLE] = "infeasible", [VERDICT_NONE] = "no verdict",
    };
    return names[v];
}

static const struct {
    const char *name;
    enum decide_method method;
} tests[TEST_NR] = {
    [TEST_WELCH] = { "welch", DECIDE_WELCH }, [TEST_MW] = { "hl-mw", DECIDE_HL_MW },
    [TEST_YUEN] = { "yuen", DECIDE_YUEN }, [TEST_BOOT_MEDIAN] = { "boot-median", DECIDE_BOOT_MEDIAN },
    [TEST_PERM_TRIM] = { "perm-trim", DECIDE_PERM_TRIM }, [TEST_PERM_MEDIAN] = { "perm-median", DECIDE_PERM_MEDIAN },
};

enum decide_method search_test_method(enum search_test t) { return tests[t].method; }
const char *search_test_name(enum search_test t) { return tests[t].name; }

void search_score_opts(struct decide_opts *o, double alpha)
{
    decide_opts_default(o);
    o->alpha = alpha;
    o->log_input = true;
}
const char *search_test_at(int i) { return i >= 0 && i < TEST_NR ? tests[i].name : NULL; }

int search_test_parse(const char *name)
{
    if (strcmp(name, "mw") == 0 || strcmp(name, "mann-whitney") == 0) return TEST_MW;
    for (int t = 0; t < TEST_NR; t++)
        if (strcmp(tests[t].name, name) == 0) return t;
    return -1;
}

/* The verdict of one leader once Holm has adjusted its p: a claim needs
 * the adjusted p below alpha and the interval on the claimed side. */
static enum verdict verdict_of(const struct leader *l, double alpha)
{
    if (!l->feasible) return VERDICT_INFEASIBLE;
    if (l->dec.verdict == DECIDE_NO_VERDICT) return VERDICT_NONE;
    if (l->p_adj < alpha && l->dec.lo_pct > 0) return VERDICT_WIN;
    if (l->p_adj < alpha && l->dec.hi_pct < 0) return VERDICT_WORSE;
    return VERDICT_NOISE;
}

void search_judge(struct leader *l, const double *const *scores, const int *nscores, int n,
                  const double *base, int nbase, double alpha, enum search_test test, uint64_t seed, bool one_sided)
{
    double p[SEARCH_MAX_LEADERS] = { 0 }, adj[SEARCH_MAX_LEADERS] = { 0 };
    if (n > SEARCH_MAX_LEADERS) n = SEARCH_MAX_LEADERS;
    struct decide_opts o;
    search_score_opts(&o, alpha);
    o.method = search_test_method(test);
    o.one_sided = one_sided;
    if (one_sided) o.level = 1 - 2 * alpha;   /* its lower end: the one-sided bound */
    for (int i = 0; i < n; i++) {
        struct welch_result w;
        struct mw_result m;
        l[i].p_welch = signif_welch(scores[i], nscores[i], base, nbase, &w) == 0 ? w.p : 1;
        l[i].p_mw = signif_mann_whitney(scores[i], nscores[i], base, nbase, &m) == 0 ? m.p : 1;
        l[i].g = signif_hedges_g(scores[i], nscores[i], base, nbase);
        o.seed = seed + (uint64_t)i;
        decide_compare(base, nbase, scores[i], nscores[i], &o, &l[i].dec, NULL);
        p[i] = isnan(l[i].dec.p) ? 1 : l[i].dec.p;
        l[i].ci = (struct ci){ .est = l[i].dec.effect_pct / 100, .lo = l[i].dec.lo_pct / 100,
                               .hi = l[i].dec.hi_pct / 100, .level = l[i].dec.level };
    }
    signif_holm(p, n, adj);
    for (int i = 0; i < n; i++) {
        l[i].p_adj = adj[i];
        l[i].verdict = verdict_of(&l[i], alpha);
        if (l[i].dec.verdict != DECIDE_NO_VERDICT)
            l[i].dec.verdict = l[i].verdict == VERDICT_WIN ? DECIDE_BETTER : l[i].verdict == VERDICT_WORSE ? DECIDE_WORSE
                                                                                                  : DECIDE_WITHIN_NOISE;
    }
}

void search_metrics_json(const struct eval_metrics *m, char *buf, size_t n)
{
    json_t *o = json_object();
    for (int k = 0; k < MET_NR; k++)
        if (m->has[k]) json_object_set_new(o, metric_table[k].name, json_real(m->v[k]));
    if (m->run_uuid[0]) json_object_set_new(o, "run", json_string(m->run_uuid));
    if (m->stalled) json_object_set_new(o, "stalled_ms", json_real(m->stall_ms));
    if (m->stall_by & PROBE_STALL_PSI)   /* absent: the canary's (searches stored before PSI counted) */
        json_object_set_new(o, "stalled_by", json_string(m->stall_by & PROBE_STALL_CANARY ? "canary+psi" : "psi"));
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
    json_t *st = json_object_get(o, "stalled_ms");
    const char *by = json_string_value(json_object_get(o, "stalled_by"));
    unsigned flags = 0;
    if (json_is_number(st)) {
        m->stall_ms = json_number_value(st);
        flags = !by ? PROBE_STALL_CANARY : strcmp(by, "psi") == 0 ? PROBE_STALL_PSI : PROBE_STALL_CANARY | PROBE_STALL_PSI;
    } else if (by) {
        flags = PROBE_STALL_PSI;   /* flagged by PSI alone: kept */
    }
    eval_metrics_set_stall(m, flags);
    json_t *r = json_object_get(o, "run");
    if (json_is_string(r)) snprintf(m->run_uuid, sizeof m->run_uuid, "%s", json_string_value(r));
    json_decref(o);
    return 0;
}
