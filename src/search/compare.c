/* compare — the sides of a comparison and its report lines (compare.h). */
#include "search/compare.h"
#include "probe/probe.h"
#include "search/report.h"
#include "db/store_search.h"
#include "core/units.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void compare_side_free(struct compare_side *s)
{
    free(s->m);
    free(s->host);
    memset(s, 0, sizeof *s);
}

/* host NULL: a search's trial, whose host is not recorded. */
static void push(struct compare_side *s, const struct eval_metrics *m, const char *host)
{
    int host_cap = s->cap;   /* the two arrays grow together */
    s->m = xgrow(s->m, s->n, &s->cap, sizeof *s->m, 32);
    if (host) s->host = xgrow(s->host, s->n, &host_cap, sizeof *s->host, 32);
    if (host) s->host[s->n] = host;
    s->m[s->n++] = *m;
}

/* The value of key in a workload text ("" when absent). */
static void work_value(const char *text, const char *key, char *buf, size_t n)
{
    size_t kl = strlen(key);
    buf[0] = 0;
    for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            snprintf(buf, n, "%.*s", (int)strcspn(p + kl + 1, "\n"), p + kl + 1);
            return;
        }
}

/* A field as probe_workload_diff says it: "size=2.0 GiB" (the exact
 * bytes when the two sides' sizes would read the same), "ramp_ms=50". */
static void work_shown(const char *key, const char *v, const char *other, char *buf, size_t n)
{
    size_t kl = strlen(key);
    if (!v[0]) { snprintf(buf, n, "(nothing)"); return; }
    if (kl > 6 && strcmp(key + kl - 6, "_bytes") == 0) {
        char a[32], b[32];
        units_format_bytes(strtoull(v, NULL, 10), a, sizeof a);
        units_format_bytes(strtoull(other, NULL, 10), b, sizeof b);
        if (strcmp(a, b) == 0) snprintf(buf, n, "%s=%s", key, v);
        else snprintf(buf, n, "%.*s=%s", (int)(kl - 6), key, a);
    } else {
        snprintf(buf, n, "%s=%s", key, v);
    }
}

static void append(char *buf, size_t n, const char *item)
{
    size_t l = strlen(buf);
    if (l + 2 < n) snprintf(buf + l, n - l, "%s%s", l ? ", " : "", item);
}

void compare_work_diff(const char *a, const char *b, char *material, size_t mn, char *incidental, size_t in)
{
    material[0] = incidental[0] = 0;
    char fa[8], fb[8];
    work_value(a, "fixed_work", fa, sizeof fa);
    work_value(b, "fixed_work", fb, sizeof fb);
    bool fixed = strcmp(fa, "1") == 0 && strcmp(fb, "1") == 0;
    for (int side = 0; side < 2; side++) {
        const char *x = side ? b : a;
        for (const char *p = x; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
            char key[64], va[512], vb[512], sa[600], sb[600], item[1300];
            size_t kl = strcspn(p, "=\n");
            if (kl == 0 || kl >= sizeof key || p[kl] != '=') continue;
            snprintf(key, sizeof key, "%.*s", (int)kl, p);
            work_value(a, key, va, sizeof va);
            work_value(b, key, vb, sizeof vb);
            if (strcmp(va, vb) == 0 || (side && va[0])) continue;   /* said once, from a's side when a has it */
            work_shown(key, va, vb, sa, sizeof sa);
            work_shown(key, vb, va, sb, sizeof sb);
            snprintf(item, sizeof item, "%s vs %s", sa, sb);
            /* the ramp is not measured; fixed work ends when durable, its time only a limit */
            bool minor = strcmp(key, "ramp_ms") == 0 || (fixed && strcmp(key, "time_ms") == 0);
            append(minor ? incidental : material, minor ? in : mn, item);
        }
    }
}

/* The side ran this workload too (hash "": not known, not checked). */
static void side_work(struct compare_side *s, const char *hash, const char *text)
{
    if (!hash[0]) return;
    if (!s->work_hash[0]) {
        snprintf(s->work_hash, sizeof s->work_hash, "%s", hash);
        snprintf(s->work_text, sizeof s->work_text, "%s", text);
    } else if (!s->mixed[0] && strcmp(s->work_hash, hash) != 0) {
        char minor[256];
        compare_work_diff(s->work_text, text, s->mixed, sizeof s->mixed, minor, sizeof minor);
        if (minor[0] && !strstr(s->incidental, minor)) append(s->incidental, sizeof s->incidental, minor);
    }
}

static void push_run(struct compare_side *s, const struct evidence *ev, const struct run_sample *r)
{
    push(s, &r->m, r->host_uuid);
    side_work(s, ev->work[r->work].hash, ev->work[r->work].text);
}

bool compare_same_work(const struct compare_side *a, const struct compare_side *b, char *why, size_t n)
{
    const struct compare_side *mixed = a->mixed[0] ? a : b->mixed[0] ? b : NULL;
    if (mixed) {
        snprintf(why, n, "%s (%s) holds runs of different work: %s", mixed == a ? "A" : "B", mixed->label, mixed->mixed);
        return false;
    }
    char material[256] = "", minor[256] = "";
    if (a->work_hash[0] && b->work_hash[0] && strcmp(a->work_hash, b->work_hash) != 0)
        compare_work_diff(a->work_text, b->work_text, material, sizeof material, minor, sizeof minor);
    if (material[0]) {
        snprintf(why, n, "A and B ran different work: %s", material);
        return false;
    }
    /* what differs but does not change the work, said */
    why[0] = 0;
    const char *parts[3] = { a->incidental, b->incidental, minor };
    const char *who[3] = { "within A", "within B", "A against B" };
    for (int i = 0; i < 3; i++) {
        if (!parts[i][0]) continue;
        size_t l = strlen(why);
        snprintf(why + l, n - l, "%s%s: %s", l ? "; " : "", who[i], parts[i]);
    }
    return true;
}

/* Its baseline's configuration: the text of its first baseline trial. */
static const char *baseline_text(const struct trial_row *t, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].role, "baseline") == 0) return t[i].config_text;
    return NULL;
}

int compare_search_part(store *st, const char *id, enum search_part part, struct compare_side *s, char *objective,
                        size_t on, sl_err *e)
{
    struct search_row row;
    if (store_search_get(st, id, &row, e) < 0) return -1;
    struct trial_row *t;
    int n = store_search_trials(st, row.id, &t, e);
    if (n < 0) return -1;
    bool winner = part == PART_WINNER || (part == PART_AUTO && row.winner_text[0] != 0);
    if (winner && !row.winner_text[0]) {
        free(t);
        return sl_fail(e, SL_EUSAGE, "search %.8s has no winner to compare: nothing beat its baseline beyond the noise",
                       row.uuid);
    }
    /* The runs that made the claim: the confirmation's fresh runs of the
     * winner and of the baseline beside it (else the race's, and the
     * baseline's exploring runs). */
    const char *role = row.confirm_reps > 0 ? "confirm" : "race", *base = baseline_text(t, n);
    int taken = 0;
    for (int pass = 0; pass < 2 && taken == 0; pass++) {
        for (int i = 0; i < n; i++) {
            bool take = winner ? strcmp(t[i].role, role) == 0 && strcmp(t[i].config_text, row.winner_text) == 0
                        : pass == 0 ? part == PART_BASELINE && row.confirm_reps > 0 && base && strcmp(t[i].role, "confirm") == 0 &&
                                          strcmp(t[i].config_text, base) == 0
                                    : strcmp(t[i].role, "baseline") == 0;
            struct eval_metrics m;
            if (take && search_metrics_parse(t[i].metrics_json, &m) == 0) { push(s, &m, NULL); taken++; }
        }
        if (winner) break;
    }
    free(t);
    side_work(s, row.workload_hash, row.workload_text);
    snprintf(s->label, sizeof s->label, "search %.8s %s (%s)", row.uuid, winner ? "winner" : "baseline",
             winner ? row.winner_text : "the settings it started from");
    if (!objective[0]) snprintf(objective, on, "%s", row.objective);
    return 0;
}

int compare_search_side(store *st, const char *id, struct compare_side *s, char *objective, size_t on, sl_err *e)
{
    return compare_search_part(st, id, PART_AUTO, s, objective, on, e);
}

void compare_config_side(const struct evidence *ev, const char *sel, struct compare_side *s)
{
    for (int i = 0; i < ev->n; i++)
        if (evidence_config_has(ev->run[i].config_text, sel)) push_run(s, ev, &ev->run[i]);
    snprintf(s->label, sizeof s->label, "%s", sel);
}

void compare_hash_side(const struct evidence *ev, const char *hash, struct compare_side *s)
{
    for (int i = 0; i < ev->n; i++)
        if (hash[0] && strncmp(ev->run[i].config_hash, hash, strlen(hash)) == 0) push_run(s, ev, &ev->run[i]);
    snprintf(s->label, sizeof s->label, "config %.8s", hash);
}

void compare_runs_side(const struct evidence *ev, const char (*uuids)[37], int n, struct compare_side *s)
{
    for (int i = 0; i < ev->n; i++)
        for (int k = 0; k < n; k++)
            if (strcmp(ev->run[i].m.run_uuid, uuids[k]) == 0) { push_run(s, ev, &ev->run[i]); break; }
    snprintf(s->label, sizeof s->label, "run %.8s%s", n ? uuids[0] : "?", n > 1 ? " and its batch" : "");
}

void compare_basis_line(const struct comparison *c, const char *metric, double mean_a, double mean_b, char *buf, size_t n)
{
    const struct decision *d = &c->l.dec;
    char lo[32], hi[32];
    report_pct(c->l.ci.lo, lo, sizeof lo);
    report_pct(c->l.ci.hi, hi, sizeof hi);
    double change = mean_a > 0 ? mean_b / mean_a - 1 : NAN;
    char chg[32];
    report_pct(change, chg, sizeof chg);
    /* the scores are logs: a difference of their means is a ratio of
     * geometric means; a robust shift of them, a ratio of typical runs */
    bool means = d->method == DECIDE_WELCH;
    snprintf(buf, n, "basis: the %.0f%% interval [%s, %s] is a ratio B/A - 1 %s (%s of log %s, %d and %d %s), not a "
             "change of means; the change of means, %.4g to %.4g %s (%s), is shown, not tested",
             100 * c->l.ci.level, lo, hi, means ? "of geometric means" : "of typical runs",
             d->estimator ? d->estimator : "estimate", metric, c->na, c->nb, c->by_host ? "hosts" : "runs", mean_a, mean_b,
             metric, chg);
}

void compare_kernel_side(const struct evidence *ev, const char *kernel, struct compare_side *s)
{
    for (int i = 0; i < ev->n; i++)
        if (strcmp(ev->run[i].kernel, kernel) == 0) push_run(s, ev, &ev->run[i]);
    snprintf(s->label, sizeof s->label, "kernel %s", kernel);
}

int compare_kernels(const struct evidence *ev, char (*kernels)[128], int max)
{
    int nk = 0;
    for (int i = 0; i < ev->n && nk < max; i++) {
        bool seen = false;
        for (int k = 0; k < nk; k++) seen = seen || strcmp(kernels[k], ev->run[i].kernel) == 0;
        if (!seen) snprintf(kernels[nk++], sizeof kernels[0], "%s", ev->run[i].kernel);
    }
    return nk;
}

int compare_load(store *st, char *workload, size_t wn, struct evidence *ev, sl_err *e)
{
    return compare_load_scoped(st, false, workload, wn, ev, e);
}

int compare_load_scoped(store *st, bool all_hardware, char *workload, size_t wn, struct evidence *ev, sl_err *e)
{
    struct evidence_scope sc;
    if (!all_hardware && evidence_scope_this_host(st, &sc, e) < 0) {
        evidence_scope_free(&sc);
        return -1;
    }
    int rc = evidence_load(st, workload[0] ? workload : NULL, ev, e);
    if (rc == 0 && !all_hardware) evidence_keep_scope(ev, &sc);
    if (!all_hardware) evidence_scope_free(&sc);
    if (rc < 0 || workload[0]) return rc;
    evidence_top_workload(ev, workload, wn);
    evidence_keep_workload(ev, workload);
    return 0;
}

void compare_sides(const struct objective *o, const struct compare_side *a, const struct compare_side *b, double alpha,
                   enum search_test test, struct comparison *out)
{
    evidence_compare_hosts(o, a->m, a->host, a->n, b->m, b->host, b->n, alpha, test, out);
}

void compare_hosts_line(const struct host_attribution *h, char *buf, size_t n)
{
    enum { SHOWN = 5 };
    size_t used = (size_t)snprintf(buf, n, "  hosts: %d (", h->n);
    for (int i = 0; i < h->n && i < SHOWN && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%.8s %d%s", i ? ", " : "", h->h[i].host[0] ? h->h[i].host : "unknown",
                                 h->h[i].runs, i ? "" : " runs");
    if (h->n > SHOWN && used < n) used += (size_t)snprintf(buf + used, n - used, ", %d more", h->n - SHOWN);
    if (used < n) snprintf(buf + used, n - used, ")");
}

void *compare_hosts_json(const struct host_attribution *h)
{
    json_t *arr = json_array();
    for (int i = 0; i < h->n; i++) json_array_append_new(arr, json_pack("{s:s,s:i}", "host", h->h[i].host, "runs", h->h[i].runs));
    return arr;
}

const char *compare_verdict_text(const struct leader *l)
{
    switch (l->verdict) {
    case VERDICT_WIN: return "B is better than A";
    case VERDICT_WORSE: return "B is worse than A: a regression";
    case VERDICT_INFEASIBLE: return "B does not meet the constraints";
    default: return "within noise: no difference these measurements can tell apart";
    }
}

void compare_side_line(const char *tag, const struct compare_side *s, const struct objective *o,
                       const struct eval_metrics *mean, char *buf, size_t n)
{
    char v[64];
    report_metric(o, mean, NAN, v, sizeof v);
    snprintf(buf, n, "%s: %s: %d runs, %s", tag, s->label, s->n, v);
}

void compare_result_line(const struct comparison *c, const char *objtext, char *buf, size_t n)
{
    const struct leader *l = &c->l;
    char est[32], lo[32], hi[32];
    report_pct(l->ci.est, est, sizeof est);
    report_pct(l->ci.lo, lo, sizeof lo);
    report_pct(l->ci.hi, hi, sizeof hi);
    snprintf(buf, n, "B against A: %s %s [%.3g%% CI %s, %s], Welch p=%.2g, Mann-Whitney p=%.2g, Hedges g %.2f", objtext, est,
             100 * l->ci.level, lo, hi, l->p_welch, l->p_mw, l->g);
}
