/* cli_recommend — `sluice recommend`: the best known configuration for this
 * host's hardware from stored (local and merged) runs, with its evidence:
 * runs, improvement and interval against the defaults, how well the
 * hardware matches. Without data, the shipped profile for the hardware
 * class. */
#include "cli.h"
#include "esc.h"
#include "device.h"
#include "probe/probe.h"
#include "profile/profile.h"
#include "search/compare.h"
#include "search/evidence.h"
#include "search/report.h"
#include "share/sync.h"
#include "stat/decide.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct group {
    const char *config;
    struct eval_metrics *m;
    const char **host;    /* of each run, borrowed from the evidence */
    int n, from_host, from_class;
    int changes;          /* from catalogue defaults */
    int work;             /* the workload its runs ran (evidence.work) */
    ptrdiff_t first;      /* its first run's place in the evidence */
    double mean_score;
};

static const char *const match_names[] = { "other hardware", "same hardware class", "this host" };

/* On a virtual machine, or with virtio disks, what the guest sees of its
 * disks is not the hardware: say so and propose measuring. NULL on bare
 * metal with no virtual disk. */
static const char *virtual_note(const struct host_info *h, const struct device *devs, int nd, char *buf, size_t n)
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

/* The fallback: every shipped profile whose match rules select this host,
 * ranked with its reasons (profile_rank), and the general one by
 * objective; on a virtual machine, the note that its disks are not the
 * hardware. */
static int fallback(struct cli_ctx *ctx, const struct host_info *h, const struct device *devs, int nd, const char *objective,
                    const char *workload)
{
    struct profile_dirs d;
    profile_dirs_init(&d, NULL);
    const char *general = strstr(objective, "p99") || strstr(objective, "stalls") ? "latency" : "throughput";
    struct profile_fit *fits;
    sl_err e;
    int n = profile_rank(&d, h, devs, nd, general, &fits, &e);
    if (n < 0) n = 0;
    char vbuf[600];
    const char *vnote = virtual_note(h, devs, nd, vbuf, sizeof vbuf);
    if (ctx->json) {
        json_t *ranked = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(ranked, json_pack("{s:s, s:f, s:s, s:b, s:s}", "profile", fits[i].name, "score", fits[i].score,
                                                    "reasons", fits[i].reasons, "guest_flag_only", fits[i].guest_flag_only,
                                                    "summary", fits[i].summary));
        json_t *j = json_pack("{s:s, s:o, s:s, s:s?, s:o}", "source", n ? "profile" : "none", "profile",
                              n ? json_string(fits[0].name) : json_null(), "note", "no stored measurements for this hardware",
                              "virtual", vnote, "ranked", ranked);
        free(fits);
        return cli_print_json(j);
    }
    printf("no data: no stored measurements%s%s match this host or its hardware class.\n", workload[0] ? " of workload " : "", workload);
    if (vnote) printf("note: %s\n", vnote);
    if (n) {
        printf("shipped profiles for this host, best first:\n");
        for (int i = 0; i < n; i++) {
            printf("  %d. %s: %s\n", i + 1, fits[i].name, esc_t(fits[i].reasons));
            printf("     %s\n", esc_t(fits[i].summary));
        }
        printf("  apply with: sluice apply %s   (or measure first: sluice tune --quick)\n", fits[0].name);
    } else {
        printf("no shipped profile is installed either: measure with 'sluice tune --quick' or 'sluice search'\n");
    }
    free(fits);
    return 0;
}

/* What the steps of one recommend share. */
struct rec {
    struct cli_ctx *ctx;
    char workload[32], objective[160];
    struct objective o;
    struct host_info h;
    struct evidence_scope scope;        /* which runs count: compare's filter too */
    struct device *devs;
    int nd;
    struct evidence ev;
    struct group *g;
    int ng, base;
    int cand[SEARCH_MAX_LEADERS], nc;   /* groups judged against base */
    struct leader l[SEARCH_MAX_LEADERS];
    double *sc[SEARCH_MAX_LEADERS], *bs;
    int nsc[SEARCH_MAX_LEADERS], nbs;
    int win;                            /* index into l[], -1: none */
    int other_work;                     /* configurations left out: they ran other work than the defaults */
    char other_diff[256];               /* how the first of them differs */
    bool by_host;                       /* more than one host behind the judged groups */
    struct host_attribution ha[SEARCH_MAX_LEADERS], hbase;
    char host_decision[SEARCH_MAX_LEADERS][256];
};

struct recommend_opts {
    char workload[32], objective[160];
    const char *server;       /* answer from a central store's runs */
};

static void recommend_defaults(void *p) { snprintf(((struct recommend_opts *)p)->objective, 160, "throughput"); }

static const struct opt recommend_rows[] = {
    { .name = "workload", .type = OPT_TEXT, .arg = "W", .def = "the most measured one",
      .help = "recommend from runs of this workload", OPT_AT(struct recommend_opts, workload), .complete = COMPLETE_WORKLOAD },
    { .name = "objective", .type = OPT_TEXT, .arg = "O", .def = "throughput", .help = "what 'best' means",
      OPT_AT(struct recommend_opts, objective) },
    { .name = "server", .type = OPT_TEXT, .arg = "URL", .def = "this database",
      .help = "answer from the runs a postgresql:// central store holds for this host's hardware classes",
      OPT_PTR(struct recommend_opts, server) },
    { NULL },
};
static const struct opt_table recommend_table = { sizeof(struct recommend_opts), recommend_defaults,
                                                  { { recommend_rows, 0 } }, NULL, NULL };

/* 0, or the exit status of a usage error. */
static int parse_args(struct rec *R, const struct recommend_opts *o, int argc, char **argv)
{
    snprintf(R->workload, sizeof R->workload, "%s", o->workload);
    snprintf(R->objective, sizeof R->objective, "%s", o->objective);
    if (argc > 1) return cli_usage("recommend", "unexpected argument %s", argv[1]);
    sl_err e;
    if (objective_parse(R->objective, &R->o, &e) < 0) return cli_usage("recommend", "%s", e.msg);
    return 0;
}

/* This host, its disks (for the fallback) and its evidence scope. */
static int read_hardware(struct rec *R, store *st, sl_err *e)
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
    const struct group *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* The runs rs[0..n-1] (sorted by cmp_config) as one group per configuration
 * and work: O(n log n) however many configurations there are. */
static void group_sorted(struct rec *R, const struct run_sample **rs, int n)
{
    R->g = xmalloc(sizeof *R->g * (size_t)(n + 1));   /* at most one group per run */
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && strcmp(rs[j]->config_hash, rs[i]->config_hash) == 0 && rs[j]->work == rs[i]->work; j++) {}
        struct group *x = &R->g[R->ng++];
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
static void group_matching_runs(struct rec *R)
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
static void pick_base_and_candidates(struct rec *R)
{
    struct group *g = R->g;
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
static void judge_by_host(struct rec *R)
{
    const struct group *b = &R->g[R->base];
    double *hb = xmalloc(sizeof *hb * (size_t)(b->n + 1));
    int nhb = evidence_host_scores(&R->o, b->m, b->host, b->n, hb);
    struct decide_opts d;
    decide_opts_default(&d);
    d.alpha = 0.05 / R->nc;
    d.log_input = true;
    for (int i = 0; i < R->nc; i++) {
        const struct group *x = &R->g[R->cand[i]];
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
static void judge_candidates(struct rec *R)
{
    const struct group *b = &R->g[R->base];
    evidence_attribution(b->host, b->n, &R->hbase);
    R->by_host = R->hbase.n > 1;
    R->bs = xmalloc(sizeof *R->bs * (size_t)b->n);
    R->nbs = scores_of(&R->o, b->m, b->n, R->bs);
    for (int i = 0; i < R->nc; i++) {
        struct group *x = &R->g[R->cand[i]];
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

/* What the recommended configuration's runs cost beside the defaults'
 * (rows of the collateral metrics both measured; none without a winner). */
static void winner_effects(const struct rec *R, struct side_effects *fx)
{
    memset(fx, 0, sizeof *fx);
    fx->leader = -1;
    if (R->win < 0) return;
    const struct group *b = &R->g[R->base], *w = &R->g[R->cand[R->win]];
    struct effect_sides sides = { b->m, w->m, b->host, w->host, b->n, w->n, R->by_host };
    search_side_effects_of_runs(&R->o, &sides, TEST_WELCH, 0.05, 1, fx);
}

static int print_json(const struct rec *R, const char *diff, int match)
{
    const struct leader *w = R->win >= 0 ? &R->l[R->win] : NULL;
    json_t *j = json_pack("{s:s,s:s,s:i,s:i}", "workload", R->workload, "objective", R->objective, "runs", R->ev.n,
                          "configurations", R->ng);
    json_object_set_new(j, "baseline_runs", json_integer(R->g[R->base].n));
    if (w) {
        json_object_set_new(j, "recommended", json_string(diff));
        json_object_set_new(j, "runs_recommended", json_integer(w->n));
        json_object_set_new(j, "improvement", json_real(w->ci.est));
        json_object_set_new(j, "ci", json_pack("[ff]", w->ci.lo, w->ci.hi));
        json_object_set_new(j, "p_holm", json_real(w->p_adj));
        json_object_set_new(j, "match", json_string(match_names[match]));
        json_object_set_new(j, "hosts_recommended", compare_hosts_json(&R->ha[R->win]));
        struct side_effects fx;
        winner_effects(R, &fx);
        json_object_set_new(j, "side_effects", report_effects_rows(&fx));
    } else {
        json_object_set_new(j, "recommended", json_null());
    }
    json_object_set_new(j, "unit", json_string(R->by_host ? "host" : "run"));
    json_object_set_new(j, "hosts_baseline", compare_hosts_json(&R->hbase));
    json_object_set_new(j, "left_out_other_work", json_integer(R->other_work));
    if (R->other_work) json_object_set_new(j, "other_work", json_string(R->other_diff));
    return cli_print_json(j);
}

static void print_text(const struct rec *R, const char *basev, const char *diff, int match)
{
    const struct group *b = &R->g[R->base];
    int nh = 0, ncl = 0;
    for (int i = 0; i < R->ng; i++) { nh += R->g[i].from_host; ncl += R->g[i].from_class; }
    printf("host %s, kernel %s, %d CPUs; workload %s, objective %s\n", esc_t(R->h.hostname), esc_t(R->h.kernel), R->h.cpus,
           esc_t(R->workload), esc_t(R->objective));
    printf("evidence: %d runs in %d configurations (%d from this host, %d from the same hardware class)\n", nh + ncl, R->ng, nh, ncl);
    printf("defaults: %d runs, %s%s\n", b->n, esc_t(basev), b->changes ? " (the stored configuration closest to the kernel defaults)" : "");
    char hosts[512];
    if (R->by_host) {
        compare_hosts_line(&R->hbase, hosts, sizeof hosts);
        printf("%s\nunit: host (runs from more than one host: each host's mean counts once)\n", esc_t(hosts));
    }
    if (R->other_work)
        printf("left out: %d configuration%s measured with other work than the defaults (%s): runs of different work "
               "are not set against each other\n", R->other_work, R->other_work == 1 ? "" : "s", esc_t(R->other_diff));
    if (R->win < 0) {
        printf("within noise: no stored configuration beats the defaults by more than the measurements can tell apart; keep them\n");
        return;
    }
    const struct leader *w = &R->l[R->win];
    char est[32], lo[32], hi[32], val[64];
    report_pct(w->ci.est, est, sizeof est);
    report_pct(w->ci.lo, lo, sizeof lo);
    report_pct(w->ci.hi, hi, sizeof hi);
    report_metric(&R->o, &w->mean, NAN, val, sizeof val);
    /* The configuration's text comes from whichever database measured it. */
    printf("recommended: %s\n", diff[0] ? esc_t(diff) : "(same knobs as the defaults)");
    printf("  %s against %s: %s [95%% CI %s, %s], %s p=%.2g, %d vs %d %s\n", val, basev, est, lo, hi,
           R->by_host ? "Bonferroni" : "Holm", w->p_adj, w->n, R->nbs, R->by_host ? "hosts" : "runs");
    if (R->by_host) {
        compare_hosts_line(&R->ha[R->win], hosts, sizeof hosts);
        printf("%s\n  host-level: %s\n", esc_t(hosts), R->host_decision[R->win]);
    }
    printf("  hardware match: %s\n", match_names[match]);
    if (diff[0]) printf("  apply with: sluice set %s\n", esc_t(diff));
    struct side_effects fx;
    winner_effects(R, &fx);
    if (fx.n) report_effects_table(stdout, &fx, "the recommendation", "DEFAULTS", "RECOMMENDED");
    else printf("  side effects: not measured (these runs had no collateral reader: probe a write workload, where the "
                "canary and its reader run by default)\n");
}

/* The verdict on the stored evidence, as JSON or text. */
static int report(struct rec *R)
{
    pick_base_and_candidates(R);
    if (R->nc == 0 && R->other_work) {
        fprintf(stderr, "sluice: not recommended: every other stored configuration ran other work than the defaults "
                "(%s), and runs of different work are not set against each other: measure them with the same probe "
                "options (or run 'sluice search')\n", esc_t(R->other_diff));
        return SL_EFAIL;
    }
    judge_candidates(R);
    const struct group *b = &R->g[R->base];
    struct eval_metrics bmean;
    evidence_mean(b->m, b->n, &bmean);
    char basev[64], diff[2048] = "";
    report_metric(&R->o, &bmean, NAN, basev, sizeof basev);
    int match = 1;
    if (R->win >= 0) {
        evidence_config_diff(b->config, R->g[R->cand[R->win]].config, diff, sizeof diff);
        match = R->g[R->cand[R->win]].from_host ? 2 : 1;
    }
    if (R->ctx->json) return print_json(R, diff, match);
    print_text(R, basev, diff, match);
    return 0;
}

static void rec_free(struct rec *R)
{
    for (int i = 0; i < R->nc; i++) { free(R->sc[i]); evidence_attribution_free(&R->ha[i]); }
    evidence_attribution_free(&R->hbase);
    free(R->bs);
    for (int i = 0; i < R->ng; i++) { free(R->g[i].m); free(R->g[i].host); }
    free(R->g);
    evidence_free(&R->ev);
    free(R->devs);
    evidence_scope_free(&R->scope);
}

static int run_recommend(struct cli_ctx *ctx, int argc, char **argv)
{
    struct rec R;
    memset(&R, 0, sizeof R);
    R.ctx = ctx;
    int rc = parse_args(&R, ctx->opts, argc, argv);
    if (rc) return rc;
    sl_err e;
    store *st = cli_store(ctx, &e);
    if (!st) return cli_error(&e);
    /* --server: the same judgement on the server's runs instead of ours. */
    const char *server = ((const struct recommend_opts *)ctx->opts)->server;
    struct share_view v = { 0 };
    struct share_opts so = { .retries = 0 };
    if (server && share_view_open(st, server, &so, R.workload[0] ? R.workload : NULL, false, &v, &e) < 0) return cli_error(&e);
    store *from = server ? v.s : st;
    if (server && !ctx->json)
        printf("evidence from %s: %lld run%s of this host's hardware classes\n", esc_t(v.shown), v.runs,
               v.runs == 1 ? "" : "s");
    if (read_hardware(&R, from, &e) < 0 || evidence_load(from, R.workload[0] ? R.workload : NULL, &R.ev, &e) < 0) {
        free(R.devs);
        evidence_scope_free(&R.scope);
        share_view_close(&v);
        return cli_error(&e);
    }
    group_matching_runs(&R);
    if (R.ng == 0) rc = fallback(ctx, &R.h, R.devs, R.nd, R.objective, R.workload);
    else rc = report(&R);
    rec_free(&R);
    share_view_close(&v);
    return rc;
}

CLI_COMMAND_OPTS(cmd_recommend, "recommend", run_recommend, recommend_table,
            "the best known settings for this hardware, with their evidence", 0);
