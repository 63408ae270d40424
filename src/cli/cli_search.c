/* cli_search — `sluice search`: the options, then the search flow
 * (src/search/run.c) followed on the terminal: the announcement, a
 * progress line on a tty, the report or --json. Shared with `tune`. */
#include "cli/cli_search.h"
#include "search/report.h"
#include "db/store_search.h"
#include "core/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the terminal observer knows. */
struct term_watch {
    const struct search_flow_opts *o;
    const struct search_flow_outcome *out;
    bool quiet, tty, line_shown;
    bool lines;          /* stdout is not a terminal: a progress line per evaluation on stderr */
    bool ask;            /* a user at a terminal can answer a question */
    bool paced;          /* the pace line was printed (print_pace) */
    long long first_ms;  /* when the first evaluation ended (-1: not seen, a resumed search) */
    const struct space *sp;
    struct objective obj;
};

static void clear_line(struct term_watch *w)
{
    if (w->line_shown) fputs("\r\033[K", stderr);
    w->line_shown = false;
}

static void print_calibration(const struct burst_calibration *c)
{
    char b[32];
    units_format_bytes(c->bytes, b, sizeof b);
    printf("calibration: %s written and synced at the current settings, %d times: %.0f MB/s the last time (%.1f s, "
           "set-up included%s%.8s)\n", b, BURST_CALIBRATION_RUNS, c->mb_s, c->wall_s, c->run_uuid[0] ? ", run " : "",
           c->run_uuid);
    for (int i = 0; i < c->nsteps; i++) {
        char run[48] = "";
        if (i == c->nsteps - 1 && c->step_run_uuid[0]) snprintf(run, sizeof run, ", run %.8s", c->step_run_uuid);
        units_format_bytes(c->step[i].bytes, b, sizeof b);
        printf("calibration: %s written and synced once: %.0f MB/s (%.1f s, opening and removing its files included%s)\n",
               b, c->step[i].mb_s, c->step[i].wall_s, run);
    }
    if (c->mb_s < BURST_SLOW_MB_S)
        printf("calibration: this disk writes slower than %.0f MB/s: the burst is sized to take about %.0f s a run\n",
               BURST_SLOW_MB_S, BURST_TARGET_S);
}

static void print_plan_line(void *arg, const char *text)
{
    (void)arg;
    printf("plan: %s\n", text);
}

/* The budget cannot reach a verdict: at a terminal, ask. */
static int on_over_budget(void *arg, const struct search_plan *p, long long need_ms)
{
    struct term_watch *w = arg;
    if (!w->ask) return 0;
    char need[32];
    units_format_duration_ms(need_ms, need, sizeof need);
    fprintf(stderr, "a run takes %.1f s: the budget buys %d evaluations, a verdict needs %d (%s). Go on with %s? [y/N] ",
            p->run_s, p->evals, p->verdict_evals, need, need);
    fflush(stderr);
    char answer[16] = "";
    return fgets(answer, sizeof answer, stdin) && (answer[0] == 'y' || answer[0] == 'Y');
}

static void on_started(void *arg, const char *uuid, const struct space *sp, bool resuming, int nstored)
{
    struct term_watch *w = arg;
    const struct search_spec *s = &w->o->spec;
    w->sp = sp;
    objective_parse(s->objective, &w->obj, NULL);
    if (w->quiet) return;
    printf("search %s: space %s (%d knob%s%s%s), workload %s, objective %s, strategy %s, %s\n", uuid, sp->name, sp->ndims,
           sp->ndims == 1 ? "" : "s", sp->device[0] ? " on " : "", sp->device, s->workload, s->objective, s->strategy,
           w->o->oracle[0] ? "answered by the oracle" : "measured by probes");
    const struct search_workload *wl = &w->out->workload;
    if (wl->hash[0]) {
        char text[1024];
        search_workload_line(wl, text, sizeof text);
        printf("workload %.12s, the same for every configuration: %s\n", wl->hash, text);
    }
    if (w->out->calibration.mb_s > 0) print_calibration(&w->out->calibration);
    if (wl->note[0]) printf("sizing: %s\n", wl->note);
    if (w->out->plan.run_s > 0) report_plan_lines(&w->out->plan, print_plan_line, NULL);
    if (resuming) printf("resuming after %d stored evaluations\n", nstored);
    fflush(stdout);
}


/* Once, when the runs are slower than the plan said (search_plan_off_pace):
 * what the budget buys at their pace. */
static void print_pace(struct term_watch *w, const struct search_trial *t)
{
    const struct search_plan *p = &w->out->plan;
    int n = t->seq + 1, evals;
    long long left_ms;
    double per;
    if (w->paced || w->quiet || !search_plan_off_pace(p, w->out->calibration.mb_s > 0, n, t->elapsed_ms, &per)) return;
    w->paced = true;
    search_plan_progress(p, t->budget_ms, n, t->elapsed_ms, w->first_ms, &evals, &left_ms);
    clear_line(w);
    printf("pace: runs take %.1f s, not the %.1f s planned: the budget buys about %d evaluations in all\n", per, p->run_s,
           evals);
    fflush(stdout);
}

static void on_progress(void *arg, const struct search_trial *t, const struct history *h)
{
    struct term_watch *w = arg;
    if (t->seq == 0) w->first_ms = t->elapsed_ms;
    print_pace(w, t);
    if (!w->tty && !w->lines) return;
    char cfg[256], val[64], of[48] = "", times[96] = "";
    report_config_diff(w->sp, &t->cfg, cfg, sizeof cfg);
    report_metric(&w->obj, &t->m, t->score, val, sizeof val);
    int n = t->seq + 1, planned = 0;
    long long left_ms = 0;
    search_plan_progress(&w->out->plan, t->budget_ms, n, t->elapsed_ms, w->first_ms, &planned, &left_ms);
    if (w->out->plan.evals > 0 && planned >= n) snprintf(of, sizeof of, " of %d", planned);
    char el[32], left[32];
    units_format_clock_ms(t->elapsed_ms, el, sizeof el);
    if (w->out->plan.evals > 0 && planned > n && t->elapsed_ms > 0) {
        units_format_clock_ms(left_ms, left, sizeof left);
        snprintf(times, sizeof times, ", %s elapsed, about %s left", el, left);
    } else {
        snprintf(times, sizeof times, ", %s elapsed", el);
    }
    if (w->lines) {
        fprintf(stderr, "evaluation %d%s (%s) %s%s: %.60s\n", n, of, trial_role_name(t->role), val, times, cfg);
        return;
    }
    fprintf(stderr, "\r\033[K  %3d%s %-8s %-12s%s %.40s", n, of, trial_role_name(t->role), val, times, cfg);
    w->line_shown = true;
}

static void on_note(void *arg, const char *msg)
{
    clear_line(arg);
    fprintf(stderr, "sluice: %s\n", msg);
}

static void print_report(const struct search_flow_opts *o, const struct search_flow_outcome *out)
{
    const struct search_result *r = &out->result;
    report_print(stdout, &o->spec, &out->space, r, out->workload.regime, out->workload.text);
    char cfg[2048];
    if (r->winner >= 0) report_config_diff(&out->space, &r->leader[r->winner].cfg, cfg, sizeof cfg);
    if (out->applied) printf("applied the winner; 'sluice restore' puts the old values back\n");
    else if (o->apply && r->winner < 0) printf("nothing applied: no configuration beat the baseline beyond noise\n");
    else if (r->winner >= 0) printf("%s; to apply the winner: sluice set %s\n", out->probe_mode ? "knobs put back as they were" : "no knob was changed (oracle)", cfg);
    else if (out->probe_mode) printf("knobs put back as they were\n");
}

int cli_search_run(struct cli_ctx *ctx, struct search_flow_opts *o, struct search_flow_outcome *out)
{
    sl_err e;
    memset(out, 0, sizeof *out);
    store *st = cli_store(ctx, &e);
    if (!st) return cli_error(&e);
    struct term_watch w = { .o = o, .out = out, .quiet = ctx->json, .first_ms = -1 };
    w.lines = !w.quiet && !isatty(STDOUT_FILENO);
    w.tty = !w.quiet && !w.lines && isatty(STDERR_FILENO);
    w.ask = !w.quiet && isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
    const struct search_observer obs = { .arg = &w, .started = on_started, .progress = on_progress, .note = on_note,
                                         .over_budget = on_over_budget };
    o->observer = &obs;
    o->trap_signals = true;
    int status = search_flow_run(st, o, out);
    o->observer = NULL;
    clear_line(&w);
    if (out->ok && ctx->json) cli_print_json(search_flow_report_json(o, out));
    else if (out->ok) print_report(o, out);
    else if (out->interrupted)
        fprintf(stderr, "sluice: search %.8s interrupted after %d evaluations; knobs put back. Continue it with 'sluice search --resume %.8s'\n",
                out->uuid, out->result.nevals, out->uuid);
    else cli_error(&out->err);
    return status;
}

static int list_searches(struct cli_ctx *ctx)
{
    sl_err e;
    if (cli_store_missing(ctx)) return cli_nothing_stored(ctx);
    store *st = cli_store(ctx, &e);
    if (!st) return cli_error(&e);
    struct search_row *rows;
    int n = store_search_list(st, NULL, &rows, &e);
    if (n < 0) return cli_error(&e);
    if (ctx->json) {
        json_t *a = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(a, rec_json(search_fields, search_fields_len, &rows[i]));
        free(rows);
        return cli_print_json(a);
    }
    struct table *t = table_new(8, "SEARCH", "STARTED", "SPACE", "WORKLOAD", "OBJECTIVE", "STRATEGY", "STATE", "VERDICT");
    for (int i = 0; i < n; i++) {
        char id[9];
        snprintf(id, sizeof id, "%.8s", rows[i].uuid);
        table_row(t, id, rows[i].started, rows[i].space, rows[i].workload, rows[i].objective, rows[i].strategy,
                  rows[i].state, rows[i].verdict[0] ? rows[i].verdict : "-");
    }
    table_print(t);
    free(rows);
    return 0;
}

static int run_search(struct cli_ctx *ctx, int argc, char **argv)
{
    struct search_flow_opts *o = ctx->opts;
    sl_err e;
    if (argc > 1) return cli_usage("search", "unexpected argument %s", argv[1]);
    if (search_flow_check(o, &e) < 0) return cli_usage("search", "%s", e.msg);
    if (o->list) return list_searches(ctx);
    struct search_flow_outcome out;
    int rc = cli_search_run(ctx, o, &out);
    search_result_free(&out.result);
    return rc;
}

CLI_COMMAND_OPTS(cmd_search, "search", run_search, search_flow_table,
                 "search a parameter space for the best settings, with a verdict against the noise", CLI_WRITES);
