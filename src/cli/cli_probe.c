/* cli_probe — `sluice probe WORKLOAD [options]`: run, store and print a probe. */
#include "cli/cli.h"
#include "core/interrupt.h"
#include "probe/probe.h"
#include "probe/probe_store.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct probe_cmd_opts {
    struct probe_spec s;
    bool fio_job, no_store;
};

static void probe_defaults(void *p) { ((struct probe_cmd_opts *)p)->s.canary = -1; }

static const struct opt probe_cmd_rows[] = {
    { .name = "fio-job", .type = OPT_FLAG, .help = "print the equivalent fio job and stop",
      OPT_AT(struct probe_cmd_opts, fio_job) },
    { .name = "no-store", .type = OPT_FLAG, .help = "do not store the results", OPT_AT(struct probe_cmd_opts, no_store) },
    { NULL },
};

static const struct opt_table probe_table = {
    sizeof(struct probe_cmd_opts), probe_defaults,
    { { probe_workload_rows, offsetof(struct probe_cmd_opts, s) }, { probe_run_rows, offsetof(struct probe_cmd_opts, s) },
      { probe_cmd_rows, 0 } }, "WORKLOAD", COMPLETE_WORKLOAD,
};

static int check_args(int argc, char **argv, struct probe_spec *s)
{
    if (argc < 2) return cli_usage("probe", "name a workload (%s, ...)", probe_workload_name(0));
    if (argc > 2) return cli_usage("probe", "unexpected argument %s", argv[2]);
    if (strlen(argv[1]) >= sizeof s->workload) return cli_usage("probe", "unknown workload %s", argv[1]);
    snprintf(s->workload, sizeof s->workload, "%s", argv[1]);
    return 0;
}

/* --- progress line (a terminal only) ------------------------------------ */

struct progress_line {
    struct probe_progress pg;
    pthread_t tid;
    _Atomic int done;
};

static void *progress_main(void *arg)
{
    struct progress_line *pl = arg;
    while (!atomic_load(&pl->done)) {
        struct timespec ts = { 0, 250 * 1000000L };
        nanosleep(&ts, NULL);
        int st = atomic_load(&pl->pg.state);
        if (st == PROBE_IDLE || st == PROBE_DONE) continue;
        fprintf(stderr, "\r  run %d/%d  %-20s %5.1f/%.1f s  %8.1f MB/s \033[K", atomic_load(&pl->pg.rep) + 1,
                atomic_load(&pl->pg.reps), probe_state_name(st), (double)atomic_load(&pl->pg.elapsed_ms) / 1000,
                (double)atomic_load(&pl->pg.total_ms) / 1000, (double)atomic_load(&pl->pg.mb_s_milli) / 1000);
    }
    fputs("\r\033[K", stderr);
    return NULL;
}

static void summary(const double *mb_s, int n)
{
    if (n < 2) return;
    double lo = mb_s[0], hi = lo, sum = 0;
    for (int i = 0; i < n; i++) {
        if (mb_s[i] < lo) lo = mb_s[i];
        if (mb_s[i] > hi) hi = mb_s[i];
        sum += mb_s[i];
    }
    printf("%d runs: MB/s mean %.1f, min %.1f, max %.1f (range %.1f%% of the mean)\n", n, sum / n, lo, hi,
           sum > 0 ? 100 * (hi - lo) / (sum / n) : 0);
}

static int print_json(json_t *v)
{
    /* Six significant digits are rounded in; print them without float noise. */
    int rc = cli_dump_json(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(v);
    return rc == 0 ? 0 : SL_EFAIL;
}

static int run_probe(struct cli_ctx *ctx, int argc, char **argv)
{
    struct probe_cmd_opts *o = ctx->opts;
    struct probe_spec spec = o->s;
    bool fio_job = o->fio_job, no_store = o->no_store;
    int rc = check_args(argc, argv, &spec);
    if (rc) return rc;
    sl_err e;
    if (fio_job) {
        if (probe_spec_resolve(&spec, &e) < 0) return cli_error(&e);
        probe_fio_job(&spec, stdout);
        return 0;
    }
    store *st = NULL;
    if (!no_store && !(st = cli_store(ctx, &e))) return cli_error(&e);
    struct probe *p;
    struct progress_line *pl = xcalloc(1, sizeof *pl);
    bool tty = !ctx->json && isatty(STDERR_FILENO);
    interrupt_trap();
    atomic_store(&pl->pg.state, PROBE_LAYOUT);
    if (tty) pthread_create(&pl->tid, NULL, progress_main, pl);
    rc = probe_open_recorded(&spec, st, &p, &e);
    int nres = 0;
    double *mb_s = NULL;   /* results are freed as they are printed: keep what the summary needs */
    json_t *arr = ctx->json ? json_array() : NULL;
    if (rc == 0) {
        int reps = probe_spec_resolved(p)->repeat;
        mb_s = xcalloc((size_t)reps, sizeof *mb_s);
        struct probe_result *r = probe_result_new();
        for (int i = 0; i < reps; i++) {
            rc = probe_rep(p, i, r, &pl->pg, &e);
            mb_s[nres++] = r->mb_s;
            sl_err se;
            bool stored = st && probe_store(st, r, &se) == 0;
            if (st && !stored) {
                sl_suffix(&se, "Its figures are printed %s; the probe removes its scratch files and changed no knob: "
                          "once the database can be written, run it again to store a run", ctx->json ? "below" : "above");
                if (rc == 0) { e = se; rc = -1; }
                else fprintf(stderr, "sluice: %s\n", se.msg);
            }
            if (rc < 0 && r->status == PROBE_ABORTED)
                sl_fail(&e, SL_EFAIL, "probe interrupted in run %d of %d: %s; the probe removes its scratch files and "
                        "changed no knob: run it again for a whole run", i + 1, reps,
                        stored ? "its figures so far are stored as an aborted run ('sluice history' lists it)"
                               : "its figures so far are printed, not stored");
            if (tty) fputs("\r\033[K", stderr);
            if (arr) json_array_append_new(arr, probe_result_json(r));
            else probe_result_print(r, stdout), fflush(stdout);
            if (rc < 0) break;
        }
        probe_result_free(r);
        probe_close(p);
    }
    atomic_store(&pl->done, 1);
    if (tty) pthread_join(pl->tid, NULL);
    interrupt_untrap();
    if (!arr && rc == 0) summary(mb_s, nres);
    if (arr) print_json(arr);
    free(mb_s);
    free(pl);
    return rc < 0 ? cli_error(&e) : 0;
}

CLI_COMMAND_OPTS(cmd_probe, "probe", run_probe, probe_table, "run a probe workload, store and print its metrics", 0);
