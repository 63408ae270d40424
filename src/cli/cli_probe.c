/* cli_probe — `sluice probe WORKLOAD [options]`: run, store and print a probe. */
#include "cli.h"
#include "probe/probe.h"
#include "probe/probe_store.h"
#include "session.h"

#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { O_DIR = 256, O_THREADS, O_BS, O_SIZE, O_TIME, O_RAMP, O_DIRECT, O_IODEPTH, O_SYNC_EVERY, O_REPEAT, O_SEED,
       O_CANARY, O_NO_CANARY, O_FIO_JOB, O_NO_STORE, O_LOADFILE };

static int parse_int(const char *opt, const char *arg, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || v < lo || v > hi)
        return cli_usage("probe", "%s %s: give a whole number from %d to %d", opt, arg, lo, hi);
    *out = (int)v;
    return 0;
}

/* --bs, --size, --time, --ramp: checked as the Probe screen checks them. */
static int parse_spec_opt(struct probe_spec *s, const char *opt, const char *arg)
{
    sl_err e;
    return probe_spec_set(s, opt, arg, &e) < 0 ? cli_usage("probe", "%s", e.msg) : 0;
}

static int parse_opts(int argc, char **argv, struct probe_spec *s, bool *fio_job, bool *no_store)
{
    static const struct option opts[] = {
        { "dir", required_argument, NULL, O_DIR }, { "threads", required_argument, NULL, O_THREADS },
        { "bs", required_argument, NULL, O_BS }, { "size", required_argument, NULL, O_SIZE },
        { "time", required_argument, NULL, O_TIME }, { "ramp", required_argument, NULL, O_RAMP },
        { "direct", no_argument, NULL, O_DIRECT }, { "iodepth", required_argument, NULL, O_IODEPTH },
        { "sync-every", required_argument, NULL, O_SYNC_EVERY }, { "repeat", required_argument, NULL, O_REPEAT },
        { "seed", required_argument, NULL, O_SEED }, { "canary", no_argument, NULL, O_CANARY },
        { "no-canary", no_argument, NULL, O_NO_CANARY }, { "fio-job", no_argument, NULL, O_FIO_JOB },
        { "no-store", no_argument, NULL, O_NO_STORE }, { "loadfile", required_argument, NULL, O_LOADFILE },
        { NULL, 0, NULL, 0 },
    };
    memset(s, 0, sizeof *s);
    s->canary = -1;
    optind = 0;   /* GNU getopt: re-initialise, so options may follow the workload */
    int c, rc = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_DIR:
            if (s->ndirs == PROBE_MAX_DIRS) return cli_usage("probe", "--dir: at most %d directories", PROBE_MAX_DIRS);
            if (strlen(optarg) >= PATH_MAX - 64) return cli_usage("probe", "--dir: path too long");
            snprintf(s->dir[s->ndirs++], PATH_MAX, "%s", optarg);
            break;
        case O_THREADS: rc = parse_int("--threads", optarg, 1, PROBE_MAX_THREADS, &s->threads); break;
        case O_BS: rc = parse_spec_opt(s, "--bs", optarg); break;
        case O_SIZE: rc = parse_spec_opt(s, "--size", optarg); break;
        case O_TIME: rc = parse_spec_opt(s, "--time", optarg); break;
        case O_RAMP: rc = parse_spec_opt(s, "--ramp", optarg); break;
        case O_DIRECT: s->direct = true; break;
        case O_IODEPTH: rc = parse_int("--iodepth", optarg, 1, 1024, &s->iodepth); break;
        case O_SYNC_EVERY: rc = parse_int("--sync-every", optarg, 0, INT_MAX, &s->sync_every); break;
        case O_REPEAT: rc = parse_int("--repeat", optarg, 1, 1000, &s->repeat); break;
        case O_SEED: {
            char *end;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (end == optarg || *end || v > (unsigned long long)INT64_MAX)
                return cli_usage("probe", "--seed %s: give a whole number", optarg);
            s->seed = v;
            s->seed_set = true;
            break;
        }
        case O_CANARY: s->canary = 1; break;
        case O_NO_CANARY: s->canary = 0; break;
        case O_FIO_JOB: *fio_job = true; break;
        case O_NO_STORE: *no_store = true; break;
        case O_LOADFILE:
            if (!*optarg || strlen(optarg) >= sizeof s->loadfile) return cli_usage("probe", "--loadfile: give a file name");
            snprintf(s->loadfile, sizeof s->loadfile, "%s", optarg);
            break;
        default: return cli_usage("probe", "unknown option");
        }
    }
    if (rc) return rc;
    if (optind >= argc) return cli_usage("probe", "name a workload (%s, ...)", probe_workload_name(0));
    if (optind + 1 < argc) return cli_usage("probe", "unexpected argument %s", argv[optind + 1]);
    if (strlen(argv[optind]) >= sizeof s->workload) return cli_usage("probe", "unknown workload %s", argv[optind]);
    snprintf(s->workload, sizeof s->workload, "%s", argv[optind]);
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
    static const char *const states[] = { "", "laying out", "draining", "ramp", "measuring", "done" };
    while (!atomic_load(&pl->done)) {
        struct timespec ts = { 0, 250 * 1000000L };
        nanosleep(&ts, NULL);
        int st = atomic_load(&pl->pg.state);
        if (st == PROBE_IDLE || st == PROBE_DONE) continue;
        fprintf(stderr, "\r  run %d/%d  %-10s %5.1f/%.1f s  %8.1f MB/s \033[K", atomic_load(&pl->pg.rep) + 1,
                atomic_load(&pl->pg.reps), states[st], (double)atomic_load(&pl->pg.elapsed_ms) / 1000,
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
    int rc = json_dumpf(v, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(v);
    return rc == 0 ? 0 : SL_EFAIL;
}

static int run_probe(struct cli_ctx *ctx, int argc, char **argv)
{
    struct probe_spec spec;
    bool fio_job = false, no_store = false;
    int rc = parse_opts(argc, argv, &spec, &fio_job, &no_store);
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
    session_trap_signals();
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
            if (st && probe_store(st, r, &se) < 0) {
                if (rc == 0) { e = se; rc = -1; }
                else fprintf(stderr, "sluice: %s\n", se.msg);
            }
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
    session_untrap_signals();
    if (!arr && rc == 0) summary(mb_s, nres);
    if (arr) print_json(arr);
    free(mb_s);
    free(pl);
    return rc < 0 ? cli_error(&e) : 0;
}

CLI_COMMAND(cmd_probe, "probe", run_probe,
            "probe WORKLOAD [--dir D] [--threads N] [--bs B] [--size S] [--time T] [--ramp T] [--direct] "
            "[--iodepth N] [--sync-every N] [--repeat N] [--seed N] [--canary|--no-canary] [--loadfile FILE] [--fio-job] [--no-store]",
            "run a probe workload, store and print its metrics", 0);
