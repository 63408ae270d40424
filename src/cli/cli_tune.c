/* cli_tune — `sluice tune` (--quick, the only mode): the whole loop in one go for a busy
 * sysadmin: a calibration run, baseline, a short search of the writeback
 * space (and the queue of --device), a verdict, and an offer to apply the
 * winner. Bounded to 5 minutes of evaluations (a burst of about 8 s a run
 * buys about 30, a fast disk's capped burst up to 100), so the verdict
 * comes within 6; where runs are slower, the default grows to what a
 * verdict needs, up to 10 minutes (SEARCH_QUICK_BUDGET_GROWS_TO_MS). */
#include "cli/cli.h"
#include "cli/cli_search.h"
#include "search/report.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tune_opts {
    struct search_flow_opts o;
    /* quick: taken and not asked. The only mode, so 'sluice tune' alone, what
     * a sysadmin types first, runs it too (it was refused, naming --quick);
     * the flag stays for the scripts and notes that give it. */
    bool quick, yes;
};

/* quick: at most 100 evaluations or 5 minutes (the probes' length: see
 * search_flow_quick_probe_time, and the burst's: burst.h); a fast disk's
 * short runs buy a large confirmation, decided paired
 * (search_plan_scale_confirmation). The defaults are the core's: the UI's
 * Overview proposes the same tune. */
static void tune_defaults(void *p) { search_flow_quick_defaults(&((struct tune_opts *)p)->o); }

/* --workload, --dir, --objective, --seed: as search checks them. */
static int set_as_search(void *at, const struct opt *row, const char *text, sl_err *e)
{
    char option[64];
    snprintf(option, sizeof option, "--%s", row->name);
    return search_flow_set(at, option, text, e);
}

/* --device searches the disk's queue too: the full space. */
static int set_device(void *at, const struct opt *row, const char *text, sl_err *e)
{
    struct search_flow_opts *o = at;
    if (set_as_search(o, row, text, e) < 0) return -1;
    snprintf(o->spec.space, sizeof o->spec.space, "full");
    return 0;
}

/* --budget lowers one bound and keeps the other. */
static int set_budget(void *at, const struct opt *row, const char *text, sl_err *e)
{
    (void)row;
    return search_flow_quick_budget(at, text, true, e);
}

static const struct opt tune_rows[] = {
    { .name = "quick", .type = OPT_FLAG, .help = "the quick mode, the only one, so also without it: about 6 minutes in all",
      OPT_AT(struct tune_opts, quick) },
    { .name = "yes", .type = OPT_FLAG, .help = "apply the winner without asking", OPT_AT(struct tune_opts, yes) },
    { .name = "workload", .type = OPT_CALL, .arg = "W", .def = "seqwrite", .help = "the probe workload",
      OPT_AT(struct tune_opts, o), .set = set_as_search, .complete = COMPLETE_WORKLOAD },
    { .name = "device", .type = OPT_CALL, .arg = "DEV", .help = "search this disk's queue knobs too",
      OPT_AT(struct tune_opts, o), .set = set_device, .complete = COMPLETE_DEVICE },
    { .name = "objective", .type = OPT_CALL, .arg = "O", .def = SEARCH_QUICK_OBJECTIVE,
      .help = "what to optimise ('throughput' alone takes a win that slows readers beside it)",
      OPT_AT(struct tune_opts, o), .set = set_as_search },
    { .name = "budget", .type = OPT_CALL, .arg = "N|DURATION", .def = "100 evaluations or 5m",
      .help = "fewer evaluations or a shorter wall time (without it, 5m grows to at most 10m where a verdict needs more)", OPT_AT(struct tune_opts, o), .set = set_budget },
    { .name = "seed", .type = OPT_CALL, .arg = "N", .help = "random seed, for a repeatable search", OPT_AT(struct tune_opts, o), .set = set_as_search },
    { .name = "throttled", .type = OPT_FLAG,
      .help = "size the burst at twice the largest dirty limit (the throttled regime), not from the disk's calibrated rate",
      OPT_AT(struct tune_opts, o.throttled) },
    { NULL },
};
static const struct opt_table tune_table = { sizeof(struct tune_opts), tune_defaults,
                                             { { tune_rows, 0 },
                                               { probe_workload_rows, offsetof(struct tune_opts, o.probe) } }, NULL, NULL };

static int run_tune(struct cli_ctx *ctx, int argc, char **argv)
{
    struct tune_opts *t = ctx->opts;
    struct search_flow_opts o = t->o;
    bool yes = t->yes;
    if (argc > 1) return cli_usage("tune", "unexpected argument %s", argv[1]);
    snprintf(o.probe.workload, sizeof o.probe.workload, "%s", o.spec.workload);
    search_flow_quick_probe_time(&o);
    struct search_flow_outcome out;
    int rc = cli_search_run(ctx, &o, &out);
    if (rc != 0 || !out.ok) { search_result_free(&out.result); return rc; }
    const struct search_result *r = &out.result;
    if (r->winner < 0) {
        search_result_free(&out.result);
        return 0;
    }
    char diff[2048];
    report_config_diff(&out.space, &r->leader[r->winner].cfg, diff, sizeof diff);
    bool apply = yes;
    if (!yes && isatty(STDIN_FILENO) && !ctx->json) {
        printf("apply %s now? [y/N] ", diff);
        fflush(stdout);
        char answer[16] = "";
        if (fgets(answer, sizeof answer, stdin)) apply = answer[0] == 'y' || answer[0] == 'Y';
    }
    if (apply) {
        sl_err e;
        store *st = cli_store(ctx, &e);
        rc = st ? search_flow_apply(st, &out.space, &r->leader[r->winner].cfg, "tune", &e) : -1;
        if (rc < 0) rc = cli_error(&e);
        else if (!ctx->json) printf("applied; 'sluice restore' puts the old values back, 'sluice profile save NAME' keeps them\n");
    } else if (!ctx->json) {
        /* the report's last line, above, already names the command that applies it */
        printf("not applied\n");
    }
    search_result_free(&out.result);
    return rc;
}

CLI_COMMAND_OPTS(cmd_tune, "tune", run_tune, tune_table,
            "baseline, a short search, a verdict and an offer to apply, in about 6 minutes", CLI_WRITES);
