/* recommend — stored runs judged for this host (recommend.h). */
#include "search/recommend.h"
#include "probe/probe.h"
#include "search/compare.h"
#include "search/report.h"
#include "stat/decide.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const match_names[] = { "other hardware", "same hardware class", "this host" };

const char *recommend_match_name(enum recommend_match m) { return match_names[m]; }

const char *recommend_virtual_note(const struct host_info *h, const struct device *devs, int nd, char *buf, size_t n)
{
    char disks[256] = "";
    for (int i = 0; i < nd; i++)
        if (strcmp(devs[i].transport, "virtio") == 0) {
            size_t len = strlen(disks);
            snprintf(disks + len, sizeof disks - len, "%s%s", len ? ", " : "", devs[i].name);
        }
    bool vm = h->virt[0] && strcmp(h->virt, "none") != 0;
    if (!vm && !disks[0]) return NULL;
    char what[320];
    if (vm) snprintf(what, sizeof what, "this is a virtual machine (%s)%s%s", h->virt, disks[0] ? " with virtio disks " : "", disks);
    else snprintf(what, sizeof what, "%s %s virtual (virtio) disk%s", disks, strchr(disks, ',') ? "are" : "is a",
                  strchr(disks, ',') ? "s" : "");
    snprintf(buf, n,
             "%s: a virtual disk reports what the hypervisor emulates (its rotational flag, 1 or 0, is not the host's "
             "storage), and settings measured on a virtual disk transfer poorly to bare metal and back. Measure here: "
             "sluice tune --quick", what);
    return buf;
}


/* This host, its disks (for the fallback) and its evidence scope. */
static int read_hardware(struct recommendation *R, store *st, sl_err *e)
{
    if (host_read(&R->h, e) < 0) return -1;
    R->nd = device_list(&R->devs, NULL);
    if (R->nd < 0) R->nd = 0;
    return evidence_scope_this_host(st, &R->scope, e);
}

/* Runs ordered by configuration (its hash: one per text, and shorter) and
 * the work they ran, then by their place in the evidence. */
static int cmp_config(const void *a, const void *b)
{
    const struct run_sample *x = *(const struct run_sample *const *)a, *y = *(const struct run_sample *const *)b;
    int c = strcmp(x->config_hash, y->config_hash);
    if (!c) c = (x->work > y->work) - (x->work < y->work);
    return c ? c : (x > y) - (x < y);
}

/* Groups ordered by their first run, the order the runs were stored in. */
static int cmp_group_first(const void *a, const void *b)
{
    const struct recommend_group *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* The runs rs[0..n-1] (sorted by cmp_config) as one group per configuration
 * and work: O(n log n) however many configurations there are. */
static void group_sorted(struct recommendation *R, const struct run_sample **rs, int n)
{
    R->g = xmalloc(sizeof *R->g * (size_t)(n + 1));   /* at most one group per run */
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && strcmp(rs[j]->config_hash, rs[i]->config_hash) == 0 && rs[j]->work == rs[i]->work; j++) {}
        struct recommend_group *x = &R->g[R->ng++];
        memset(x, 0, sizeof *x);
        x->config = rs[i]->config_text;
        x->work = rs[i]->work;
        x->changes = evidence_changes_from_defaults(x->config);
        x->first = rs[i] - R->ev.run;
        x->m = xmalloc(sizeof *x->m * (size_t)(j - i));
        x->host = xmalloc(sizeof *x->host * (size_t)(j - i));
        for (int k = i; k < j; k++) {
            x->host[x->n] = rs[k]->host_uuid;
            x->m[x->n++] = rs[k]->m;
            if (strcmp(rs[k]->host_uuid, R->scope.host_uuid) == 0) x->from_host++;
            else x->from_class++;
        }
    }
    qsort(R->g, (size_t)R->ng, sizeof *R->g, cmp_group_first);
}

/* Keep the runs from this host or its hardware classes, then group those of
 * the workload (the most measured one when none was named) by config. */
static void group_matching_runs(struct recommendation *R)
{
    struct evidence *ev = &R->ev;
    evidence_keep_scope(ev, &R->scope);
    if (!R->workload[0]) evidence_top_workload(ev, R->workload, sizeof R->workload);
    const struct run_sample **rs = xmalloc(sizeof *rs * (size_t)(ev->n + 1));
    int n = 0;
    for (int i = 0; i < ev->n; i++)
        if (strcmp(ev->run[i].workload, R->workload) == 0) rs[n++] = &ev->run[i];
    qsort(rs, (size_t)n, sizeof *rs, cmp_config);
    group_sorted(R, rs, n);
    free(rs);
}

/* Objective scores of runs m[0..n-1] into out (skipping unscorable ones). */
static int scores_of(const struct objective *o, const struct eval_metrics *m, int n, double *out)
{
    int k = 0;
    for (int j = 0; j < n; j++) {
        double v = objective_score(o, &m[j]);
        if (!isnan(v)) out[k++] = v;
    }
    return k;
}

/* The defaults (the group closest to the catalogue defaults, then the one
 * with most runs) and up to SEARCH_MAX_LEADERS candidates with 2+ runs of
 * the same work as the defaults', best means first; those that ran other
 * work are left out and counted. */
static void pick_base_and_candidates(struct recommendation *R)
{
    struct recommend_group *g = R->g;
    int ng = R->ng, base = 0;
    for (int i = 1; i < ng; i++)
        if (g[i].changes < g[base].changes || (g[i].changes == g[base].changes && g[i].n > g[base].n)) base = i;
    R->base = base;
    for (int i = 0; i < ng; i++) {
        double s = 0;
        int k = 0;
        for (int j = 0; j < g[i].n; j++) { double v = objective_score(&R->o, &g[i].m[j]); if (!isnan(v)) { s += v; k++; } }
        g[i].mean_score = k ? s / k : -INFINITY;
    }
    R->nc = 0;
    for (int round = 0; round < SEARCH_MAX_LEADERS; round++) {
        int best = -1;
        for (int i = 0; i < ng; i++) {
            bool taken = i == base || g[i].n < 2 || g[i].work != g[base].work;
            for (int j = 0; j < R->nc; j++) taken = taken || R->cand[j] == i;
            if (!taken && (best < 0 || g[i].mean_score > g[best].mean_score)) best = i;
        }
        if (best < 0) break;
        R->cand[R->nc++] = best;
    }
    for (int i = 0; i < ng; i++) {
        if (i == base || g[i].n < 2 || g[i].work == g[base].work) continue;
        if (!R->other_work++)
            probe_workload_diff(R->ev.work[g[base].work].text, R->ev.work[g[i].work].text, R->other_diff, sizeof R->other_diff);
    }
}

/* With more than one host behind the defaults and candidates, each host's
 * mean score counts once, decided by decide_compare at 5% split over the
 * candidates (Bonferroni): one host's many runs cannot decide alone. */
static void judge_by_host(struct recommendation *R)
{
    const struct recommend_group *b = &R->g[R->base];
    double *hb = xmalloc(sizeof *hb * (size_t)(b->n + 1));
    int nhb = evidence_host_scores(&R->o, b->m, b->host, b->n, hb);
    struct decide_opts d;
    search_score_opts(&d, 0.05 / R->nc);
    for (int i = 0; i < R->nc; i++) {
        const struct recommend_group *x = &R->g[R->cand[i]];
        double *hx = xmalloc(sizeof *hx * (size_t)(x->n + 1));
        int nhx = evidence_host_scores(&R->o, x->m, x->host, x->n, hx);
        struct decision dec;
        sl_err e;
        struct leader *l = &R->l[i];
        l->verdict = VERDICT_NOISE;
        if (decide_compare(hb, nhb, hx, nhx, &d, &dec, &e) == 0) {
            l->ci.est = dec.effect_pct / 100;
            l->ci.lo = dec.lo_pct / 100;
            l->ci.hi = dec.hi_pct / 100;
            l->p_adj = isnan(dec.p) ? 1 : fmin(1, dec.p * R->nc);
            if (!l->feasible) l->verdict = VERDICT_INFEASIBLE;
            else if (dec.verdict == DECIDE_BETTER) l->verdict = VERDICT_WIN;
            else if (dec.verdict == DECIDE_WORSE) l->verdict = VERDICT_WORSE;
            decide_text(&dec, R->host_decision[i], sizeof R->host_decision[i]);
        }
        l->n = nhx;
        free(hx);
    }
    R->nbs = nhb;
    free(hb);
}

/* The candidates judged together against the defaults (Holm), by run or,
 * with several hosts, by host; the winner is the significant one with the
 * best lower bound. */
static void judge_candidates(struct recommendation *R)
{
    const struct recommend_group *b = &R->g[R->base];
    evidence_attribution(b->host, b->n, &R->hbase);
    R->by_host = R->hbase.n > 1;
    R->bs = xmalloc(sizeof *R->bs * (size_t)b->n);
    R->nbs = scores_of(&R->o, b->m, b->n, R->bs);
    for (int i = 0; i < R->nc; i++) {
        struct recommend_group *x = &R->g[R->cand[i]];
        memset(&R->l[i], 0, sizeof R->l[i]);
        R->sc[i] = xmalloc(sizeof *R->sc[i] * (size_t)x->n);
        R->nsc[i] = scores_of(&R->o, x->m, x->n, R->sc[i]);
        R->l[i].n = R->nsc[i];
        evidence_mean(x->m, x->n, &R->l[i].mean);
        R->l[i].feasible = objective_feasible(&R->o, &R->l[i].mean, NULL, 0);
        evidence_attribution(x->host, x->n, &R->ha[i]);
        R->by_host = R->by_host || evidence_by_host(&R->hbase, &R->ha[i]);
    }
    if (R->nc && R->by_host) judge_by_host(R);
    else if (R->nc) search_judge(R->l, (const double *const *)R->sc, R->nsc, R->nc, R->bs, R->nbs, 0.05, TEST_WELCH, 1, false);
    R->win = -1;
    for (int i = 0; i < R->nc; i++)
        if (R->l[i].verdict == VERDICT_WIN && (R->win < 0 || R->l[i].ci.lo > R->l[R->win].ci.lo)) R->win = i;
}

void recommend_winner_effects(const struct recommendation *R, struct side_effects *fx)
{
    memset(fx, 0, sizeof *fx);
    fx->leader = -1;
    if (R->win < 0) return;
    const struct recommend_group *b = &R->g[R->base], *w = &R->g[R->cand[R->win]];
    struct effect_sides sides = { b->m, w->m, b->host, w->host, b->n, w->n, R->by_host };
    search_side_effects_of_runs(&R->o, &sides, TEST_WELCH, 0.05, 1, fx);
}

int recommend_init(struct recommendation *R, const char *workload, const char *objective, sl_err *e)
{
    memset(R, 0, sizeof *R);
    R->win = -1;
    snprintf(R->workload, sizeof R->workload, "%s", workload ? workload : "");
    snprintf(R->objective, sizeof R->objective, "%s", objective);
    return objective_parse(R->objective, &R->o, e);
}

int recommend_gather(struct recommendation *R, store *st, sl_err *e)
{
    if (read_hardware(R, st, e) < 0 || evidence_load(st, R->workload[0] ? R->workload : NULL, &R->ev, e) < 0) return -1;
    group_matching_runs(R);
    return 0;
}

enum recommend_outcome recommend_judge(struct recommendation *R)
{
    R->win = -1;
    if (R->ng == 0) return R->outcome = REC_NO_DATA;
    pick_base_and_candidates(R);
    if (R->nc == 0 && R->other_work) return R->outcome = REC_OTHER_WORK;
    judge_candidates(R);
    const struct recommend_group *b = &R->g[R->base];
    evidence_mean(b->m, b->n, &R->base_mean);
    report_metric(&R->o, &R->base_mean, NAN, R->basev, sizeof R->basev);
    R->diff[0] = 0;
    R->match = REC_MATCH_CLASS;
    if (R->win < 0) return R->outcome = REC_NOISE;
    evidence_config_diff(b->config, R->g[R->cand[R->win]].config, R->diff, sizeof R->diff);
    R->match = R->g[R->cand[R->win]].from_host ? REC_MATCH_HOST : REC_MATCH_CLASS;
    return R->outcome = REC_WIN;
}

void recommend_free(struct recommendation *R)
{
    for (int i = 0; i < R->nc; i++) { free(R->sc[i]); evidence_attribution_free(&R->ha[i]); }
    evidence_attribution_free(&R->hbase);
    free(R->bs);
    for (int i = 0; i < R->ng; i++) { free(R->g[i].m); free(R->g[i].host); }
    free(R->g);
    evidence_free(&R->ev);
    free(R->devs);
    evidence_scope_free(&R->scope);
    memset(R, 0, sizeof *R);
}
