/* cli_recommend — `sluice recommend`: the best known configuration for this
 * host's hardware from stored (local and merged) runs, with its evidence:
 * runs, improvement and interval against the defaults, how well the
 * hardware matches. Without data, the shipped profile for the hardware
 * class. */
#include "cli.h"
#include "device.h"
#include "profile/profile.h"
#include "search/evidence.h"
#include "search/report.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct group {
    const char *config;
    struct eval_metrics *m;
    int n, from_host, from_class;
    int changes;          /* from catalogue defaults */
    double mean_score;
};

static const char *const match_names[] = { "other hardware", "same hardware class", "this host" };

static int group_of(struct group **g, int *ng, const char *config)
{
    for (int i = 0; i < *ng; i++)
        if (strcmp((*g)[i].config, config) == 0) return i;
    *g = xrealloc(*g, sizeof **g * (size_t)(*ng + 1));
    memset(&(*g)[*ng], 0, sizeof **g);
    (*g)[*ng].config = config;
    (*g)[*ng].changes = evidence_changes_from_defaults(config);
    return (*ng)++;
}

static bool class_of_host(const char *cls, char classes[][256], int n)
{
    for (int i = 0; i < n; i++)
        if (cls[0] && strcmp(classes[i], cls) == 0) return true;
    return false;
}

/* The fallback: shipped profiles whose match rules select this host, the
 * hardware-specific ones first, else one by objective. */
static int fallback(struct cli_ctx *ctx, const struct host_info *h, const struct device *devs, int nd, const char *objective,
                    const char *workload)
{
    struct profile_dirs d;
    profile_dirs_init(&d, NULL);
    char **names = NULL, **paths = NULL;
    sl_err e;
    int n = profile_list(&d, &names, &paths, &e);
    char pick[128] = "", summary[512] = "";
    bool specific = false;
    const char *general = strstr(objective, "p99") || strstr(objective, "stalls") ? "latency" : "throughput";
    for (int i = 0; i < n; i++) {
        struct profile p;
        if (profile_load(&d, paths[i], &p, NULL) < 0) continue;
        bool matches = p.nmatch > 0 && profile_host_matches(&p, devs, nd, h);
        if ((matches && !specific) || (!pick[0] && strcmp(p.name, general) == 0)) {
            snprintf(pick, sizeof pick, "%s", p.name);
            snprintf(summary, sizeof summary, "%s", p.summary);
            specific = specific || matches;
        }
        profile_free(&p);
    }
    for (int i = 0; i < n; i++) { free(names[i]); free(paths[i]); }
    if (n > 0) { free(names); free(paths); }
    if (ctx->json) {
        return cli_print_json(json_pack("{s:s,s:o,s:s}", "source", pick[0] ? "profile" : "none", "profile",
                                        pick[0] ? json_string(pick) : json_null(), "note",
                                        "no stored measurements for this hardware"));
    }
    printf("no data: no stored measurements%s%s match this host or its hardware class.\n", workload[0] ? " of workload " : "", workload);
    if (pick[0]) {
        printf("shipped profile %s (%s):\n  %s\n", pick, specific ? "its match rules select this hardware" : "general, by objective", summary);
        printf("  apply with: sluice apply %s   (or measure first: sluice tune --quick)\n", pick);
    } else {
        printf("no shipped profile is installed either: measure with 'sluice tune --quick' or 'sluice search'\n");
    }
    return 0;
}

static int run_recommend(struct cli_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        { "workload", required_argument, NULL, 'w' }, { "objective", required_argument, NULL, 'o' }, { NULL, 0, NULL, 0 },
    };
    char workload[32] = "", objective[160] = "throughput";
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'w') snprintf(workload, sizeof workload, "%s", optarg);
        else if (c == 'o') snprintf(objective, sizeof objective, "%s", optarg);
        else return cli_usage("recommend", "unknown option");
    }
    if (optind < argc) return cli_usage("recommend", "unexpected argument %s", argv[optind]);
    sl_err e;
    struct objective o;
    if (objective_parse(objective, &o, &e) < 0) return cli_usage("recommend", "%s", e.msg);
    store *st = cli_store(ctx, &e);
    if (!st) return cli_error(&e);
    struct host_info h;
    if (host_read(&h, &e) < 0) return cli_error(&e);
    int64_t host_id;
    char host_uuid[37];
    if (store_host_upsert(st, &h, &host_id, host_uuid, &e) < 0) return cli_error(&e);
    struct device *devs = NULL;
    int nd = device_list(&devs, NULL);
    if (nd < 0) nd = 0;
    char (*classes)[256] = xcalloc((size_t)nd + 1, sizeof *classes);
    for (int i = 0; i < nd; i++) device_class(&devs[i], classes[i], sizeof classes[i]);
    struct evidence ev;
    if (evidence_load(st, workload[0] ? workload : NULL, &ev, &e) < 0) { free(devs); free(classes); return cli_error(&e); }
    /* keep the runs that match this hardware */
    int m = 0;
    for (int i = 0; i < ev.n; i++) {
        bool ok = strcmp(ev.run[i].host_uuid, host_uuid) == 0 || class_of_host(ev.run[i].hw_class, classes, nd);
        if (ok) ev.run[m++] = ev.run[i];
        else free(ev.run[i].config_text);
    }
    ev.n = m;
    if (!workload[0]) evidence_top_workload(&ev, workload, sizeof workload);
    struct group *g = NULL;
    int ng = 0;
    for (int i = 0; i < ev.n; i++) {
        if (strcmp(ev.run[i].workload, workload) != 0) continue;
        int gi = group_of(&g, &ng, ev.run[i].config_text);   /* may move g */
        struct group *x = &g[gi];
        if (x->n % 16 == 0) x->m = xrealloc(x->m, sizeof *x->m * (size_t)(x->n + 16));
        x->m[x->n++] = ev.run[i].m;
        if (strcmp(ev.run[i].host_uuid, host_uuid) == 0) x->from_host++;
        else x->from_class++;
    }
    int rc = 0;
    if (ng == 0) {
        rc = fallback(ctx, &h, devs, nd, objective, workload);
        goto out;
    }
    /* the defaults: the group closest to the catalogue defaults, then the
     * one with most runs */
    int base = 0;
    for (int i = 1; i < ng; i++)
        if (g[i].changes < g[base].changes || (g[i].changes == g[base].changes && g[i].n > g[base].n)) base = i;
    for (int i = 0; i < ng; i++) {
        double s = 0;
        int k = 0;
        for (int j = 0; j < g[i].n; j++) { double v = objective_score(&o, &g[i].m[j]); if (!isnan(v)) { s += v; k++; } }
        g[i].mean_score = k ? s / k : -INFINITY;
    }
    /* up to SEARCH_MAX_LEADERS candidates with 2+ runs, best means first, judged together (Holm) */
    int cand[SEARCH_MAX_LEADERS] = { 0 }, nc = 0;
    for (int round = 0; round < SEARCH_MAX_LEADERS; round++) {
        int best = -1;
        for (int i = 0; i < ng; i++) {
            bool taken = i == base || g[i].n < 2;
            for (int j = 0; j < nc; j++) taken = taken || cand[j] == i;
            if (!taken && (best < 0 || g[i].mean_score > g[best].mean_score)) best = i;
        }
        if (best < 0) break;
        cand[nc++] = best;
    }
    struct leader l[SEARCH_MAX_LEADERS];
    double *sc[SEARCH_MAX_LEADERS], *bs = xmalloc(sizeof *bs * (size_t)g[base].n);
    int nsc[SEARCH_MAX_LEADERS], nbs = 0;
    for (int j = 0; j < g[base].n; j++) { double v = objective_score(&o, &g[base].m[j]); if (!isnan(v)) bs[nbs++] = v; }
    for (int i = 0; i < nc; i++) {
        struct group *x = &g[cand[i]];
        memset(&l[i], 0, sizeof l[i]);
        sc[i] = xmalloc(sizeof *sc[i] * (size_t)x->n);
        nsc[i] = 0;
        for (int j = 0; j < x->n; j++) { double v = objective_score(&o, &x->m[j]); if (!isnan(v)) sc[i][nsc[i]++] = v; }
        l[i].n = nsc[i];
        evidence_mean(x->m, x->n, &l[i].mean);
        l[i].feasible = objective_feasible(&o, &l[i].mean, NULL, 0);
    }
    if (nc) search_judge(l, (const double *const *)sc, nsc, nc, bs, nbs, 0.05, TEST_WELCH, 1);
    int win = -1;
    for (int i = 0; i < nc; i++)
        if (l[i].verdict == VERDICT_WIN && (win < 0 || l[i].ci.lo > l[win].ci.lo)) win = i;
    struct eval_metrics bmean;
    evidence_mean(g[base].m, g[base].n, &bmean);
    char basev[64], diff[2048] = "";
    report_metric(&o, &bmean, NAN, basev, sizeof basev);
    if (win >= 0) evidence_config_diff(g[base].config, g[cand[win]].config, diff, sizeof diff);
    int match = 1;
    if (win >= 0) match = g[cand[win]].from_host ? 2 : 1;
    if (ctx->json) {
        json_t *j = json_pack("{s:s,s:s,s:i,s:i}", "workload", workload, "objective", objective, "runs", ev.n, "configurations", ng);
        json_object_set_new(j, "baseline_runs", json_integer(g[base].n));
        if (win >= 0) {
            json_object_set_new(j, "recommended", json_string(diff));
            json_object_set_new(j, "runs_recommended", json_integer(l[win].n));
            json_object_set_new(j, "improvement", json_real(l[win].ci.est));
            json_object_set_new(j, "ci", json_pack("[ff]", l[win].ci.lo, l[win].ci.hi));
            json_object_set_new(j, "p_holm", json_real(l[win].p_adj));
            json_object_set_new(j, "match", json_string(match_names[match]));
        } else {
            json_object_set_new(j, "recommended", json_null());
        }
        rc = cli_print_json(j);
    } else {
        int nh = 0, ncl = 0;
        for (int i = 0; i < ng; i++) { nh += g[i].from_host; ncl += g[i].from_class; }
        printf("host %s, kernel %s, %d CPUs; workload %s, objective %s\n", h.hostname, h.kernel, h.cpus, workload, objective);
        printf("evidence: %d runs in %d configurations (%d from this host, %d from the same hardware class)\n", nh + ncl, ng, nh, ncl);
        printf("defaults: %d runs, %s%s\n", g[base].n, basev, g[base].changes ? " (the stored configuration closest to the kernel defaults)" : "");
        if (win >= 0) {
            char est[32], lo[32], hi[32], val[64];
            report_pct(l[win].ci.est, est, sizeof est);
            report_pct(l[win].ci.lo, lo, sizeof lo);
            report_pct(l[win].ci.hi, hi, sizeof hi);
            report_metric(&o, &l[win].mean, NAN, val, sizeof val);
            printf("recommended: %s\n", diff[0] ? diff : "(same knobs as the defaults)");
            printf("  %s against %s: %s [95%% CI %s, %s], Holm p=%.2g, %d vs %d runs\n", val, basev, est, lo, hi, l[win].p_adj,
                   l[win].n, nbs);
            printf("  hardware match: %s\n", match_names[match]);
            if (diff[0]) printf("  apply with: sluice set %s\n", diff);
        } else {
            printf("within noise: no stored configuration beats the defaults by more than the measurements can tell apart; keep them\n");
        }
    }
    for (int i = 0; i < nc; i++) free(sc[i]);
    free(bs);
out:
    for (int i = 0; i < ng; i++) free(g[i].m);
    free(g);
    evidence_free(&ev);
    free(devs);
    free(classes);
    return rc;
}

CLI_COMMAND(cmd_recommend, "recommend", run_recommend, "recommend [--workload W] [--objective O]",
            "the best known settings for this hardware, with their evidence", 0);
