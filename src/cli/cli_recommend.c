/* cli_recommend — `sluice recommend`: the best known configuration for this
 * host's hardware from stored (local and merged) runs, with its evidence:
 * runs, improvement and interval against the defaults, how well the
 * hardware matches. Without data, the shipped profile for the hardware
 * class. */
#include "cli/cli.h"
#include "core/esc.h"
#include "core/device.h"
#include "profile/profile.h"
#include "search/compare.h"
#include "search/recommend.h"
#include "search/report.h"
#include "share/sync.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const char *vnote = recommend_virtual_note(h, devs, nd, vbuf, sizeof vbuf);
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

static int print_json(const struct recommendation *R)
{
    const struct leader *w = R->win >= 0 ? &R->l[R->win] : NULL;
    json_t *j = json_pack("{s:s,s:s,s:i,s:i}", "workload", R->workload, "objective", R->objective, "runs", R->ev.n,
                          "configurations", R->ng);
    json_object_set_new(j, "baseline_runs", json_integer(R->g[R->base].n));
    if (w) {
        json_object_set_new(j, "recommended", json_string(R->diff));
        json_object_set_new(j, "runs_recommended", json_integer(w->n));
        json_object_set_new(j, "improvement", json_real(w->ci.est));
        json_object_set_new(j, "ci", json_pack("[ff]", w->ci.lo, w->ci.hi));
        json_object_set_new(j, "p_holm", json_real(w->p_adj));
        json_object_set_new(j, "match", json_string(recommend_match_name(R->match)));
        json_object_set_new(j, "hosts_recommended", compare_hosts_json(&R->ha[R->win]));
        struct side_effects fx;
        recommend_winner_effects(R, &fx);
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

static void print_text(const struct recommendation *R)
{
    const struct recommend_group *b = &R->g[R->base];
    int nh = 0, ncl = 0;
    for (int i = 0; i < R->ng; i++) { nh += R->g[i].from_host; ncl += R->g[i].from_class; }
    printf("host %s, kernel %s, %d CPUs; workload %s, objective %s\n", esc_t(R->h.hostname), esc_t(R->h.kernel), R->h.cpus,
           esc_t(R->workload), esc_t(R->objective));
    printf("evidence: %d runs in %d configurations (%d from this host, %d from the same hardware class)\n", nh + ncl, R->ng, nh, ncl);
    printf("defaults: %d runs, %s%s\n", b->n, esc_t(R->basev), b->changes ? " (the stored configuration closest to the kernel defaults)" : "");
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
    printf("recommended: %s\n", R->diff[0] ? esc_t(R->diff) : "(same knobs as the defaults)");
    printf("  %s against %s: %s [95%% CI %s, %s], %s p=%.2g, %d vs %d %s\n", val, R->basev, est, lo, hi,
           R->by_host ? "Bonferroni" : "Holm", w->p_adj, w->n, R->nbs, R->by_host ? "hosts" : "runs");
    if (R->by_host) {
        compare_hosts_line(&R->ha[R->win], hosts, sizeof hosts);
        printf("%s\n  host-level: %s\n", esc_t(hosts), R->host_decision[R->win]);
    }
    printf("  hardware match: %s\n", recommend_match_name(R->match));
    if (R->diff[0]) printf("  apply with: sluice set %s\n", esc_t(R->diff));
    struct side_effects fx;
    recommend_winner_effects(R, &fx);
    if (fx.n) report_effects_table(stdout, &fx, "the recommendation", "DEFAULTS", "RECOMMENDED");
    else printf("  side effects: not measured (these runs had no collateral reader: probe a write workload, where the "
                "canary and its reader run by default)\n");
}

/* The engine's verdict on the stored evidence, as JSON or text. */
static int report(struct cli_ctx *ctx, struct recommendation *R)
{
    switch (recommend_judge(R)) {
    case REC_NO_DATA: return fallback(ctx, &R->h, R->devs, R->nd, R->objective, R->workload);
    case REC_OTHER_WORK:
        fprintf(stderr, "sluice: not recommended: every other stored configuration ran other work than the defaults "
                "(%s), and runs of different work are not set against each other: measure them with the same probe "
                "options (or run 'sluice search')\n", esc_t(R->other_diff));
        return SL_EFAIL;
    case REC_NOISE: case REC_WIN: break;
    }
    if (ctx->json) return print_json(R);
    print_text(R);
    return 0;
}

static int run_recommend(struct cli_ctx *ctx, int argc, char **argv)
{
    const struct recommend_opts *o = ctx->opts;
    if (argc > 1) return cli_usage("recommend", "unexpected argument %s", argv[1]);
    struct recommendation R;
    sl_err e;
    if (recommend_init(&R, o->workload, o->objective, &e) < 0) return cli_usage("recommend", "%s", e.msg);
    store *st = cli_store_read(ctx, &e);
    if (!st) return cli_error(&e);
    /* --server: the same judgement on the server's runs instead of ours. */
    struct share_view v = { 0 };
    struct share_opts so = { .retries = 0 };
    if (o->server && share_view_open(st, o->server, &so, R.workload[0] ? R.workload : NULL, false, &v, &e) < 0)
        return cli_error(&e);
    if (o->server && !ctx->json)
        printf("evidence from %s: %lld run%s of this host's hardware classes\n", esc_t(v.shown), v.runs,
               v.runs == 1 ? "" : "s");
    int rc = recommend_gather(&R, o->server ? v.s : st, &e) < 0 ? cli_error(&e) : report(ctx, &R);
    recommend_free(&R);
    share_view_close(&v);
    return rc;
}

CLI_COMMAND_OPTS(cmd_recommend, "recommend", run_recommend, recommend_table,
            "the best known settings for this hardware, with their evidence", 0);
