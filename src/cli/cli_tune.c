/* cli_tune — `sluice tune --quick`: the whole loop in one go for a busy
 * sysadmin: baseline, a short search of the writeback space (and the queue
 * of --device), a verdict, and an offer to apply the winner. Bounded to 4
 * minutes of searching (5 with layout and the verdict) on a 2-core VM. */
#include "cli.h"
#include "cli_search.h"
#include "search/report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_tune(struct cli_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        { "quick", no_argument, NULL, 'q' }, { "workload", required_argument, NULL, 'w' },
        { "device", required_argument, NULL, 'd' }, { "dir", required_argument, NULL, 'D' },
        { "objective", required_argument, NULL, 'o' }, { "yes", no_argument, NULL, 'y' },
        { "budget", required_argument, NULL, 'b' }, { "seed", required_argument, NULL, 's' }, { NULL, 0, NULL, 0 },
    };
    struct search_flow_opts o;
    search_flow_defaults(&o);
    bool quick = false, yes = false;
    /* quick: 3 s probes after a 1 s ramp, at most 40 evaluations or 4 minutes */
    o.spec.budget_evals = 40;
    o.spec.budget_ms = 4 * 60 * 1000;
    o.probe.time_ms = 3000;
    o.probe.ramp_ms = 1000;
    o.probe.ramp_set = 1;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'q': quick = true; break;
        case 'w':
            if (!probe_workload_summary(optarg)) return cli_usage("tune", "unknown workload %s (see 'sluice probe')", optarg);
            snprintf(o.spec.workload, sizeof o.spec.workload, "%s", optarg);
            snprintf(o.probe.workload, sizeof o.probe.workload, "%s", optarg);
            break;
        case 'd':
            snprintf(o.spec.device, sizeof o.spec.device, "%s", optarg);
            snprintf(o.spec.space, sizeof o.spec.space, "full");
            break;
        case 'D':
            if (strlen(optarg) >= PATH_MAX - 64) return cli_usage("tune", "--dir: path too long");
            snprintf(o.probe.dir[0], PATH_MAX, "%s", optarg);
            o.probe.ndirs = 1;
            break;
        case 'o': snprintf(o.spec.objective, sizeof o.spec.objective, "%s", optarg); break;
        case 'y': yes = true; break;
        case 'b': {
            struct search_spec tmp = o.spec;
            if (search_flow_parse_budget(optarg, &tmp) < 0)
                return cli_usage("tune", "--budget %s: give evaluations (8 or more) or a wall time (90s, 4m)", optarg);
            if (tmp.budget_evals) o.spec.budget_evals = tmp.budget_evals;
            if (tmp.budget_ms) o.spec.budget_ms = tmp.budget_ms;
            break;
        }
        case 's': o.spec.seed = strtoull(optarg, NULL, 10); break;
        default: return cli_usage("tune", "unknown option");
        }
    }
    if (!quick) return cli_usage("tune", "only the quick mode exists: sluice tune --quick (a full search is 'sluice search')");
    if (optind < argc) return cli_usage("tune", "unexpected argument %s", argv[optind]);
    snprintf(o.probe.workload, sizeof o.probe.workload, "%s", o.spec.workload);
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
        printf("not applied; to apply: sluice set %s\n", diff);
    }
    search_result_free(&out.result);
    return rc;
}

CLI_COMMAND(cmd_tune, "tune", run_tune,
            "tune --quick [--workload W] [--device DEV] [--dir D] [--objective O] [--budget N|DURATION] [--yes]",
            "baseline, a short search, a verdict and an offer to apply, in about 5 minutes", CLI_WRITES);
