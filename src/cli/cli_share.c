/* cli_share — `push`, `pull` and `merge`: sharing result databases. */
#include "cli/cli.h"
#include "core/esc.h"
#include "share/sync.h"
#include "core/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct share_args {
    struct share_opts o;
    bool mine, all, keep_going;   /* all: push every run held; mine: the default, still accepted */
    bool migrate;             /* postgresql://: upgrade the server's older sluice schema */
    int older_than_days, keep_runs;   /* prune */
    bool dry_run;
    const char *hw_class;
    const char *arg;          /* URL or the first FILE */
    char *const *files;       /* merge: every FILE */
    int nfiles;
};

/* "1k/30": a transfer slower than 1 KiB/s for 30 s fails; "/30" may go. */
static int parse_min_speed(const char *text, struct share_opts *o)
{
    char bytes[64];
    const char *slash = strchr(text, '/');
    snprintf(bytes, sizeof bytes, "%.*s", (int)(slash ? slash - text : (long)strlen(text)), text);
    long long bps = units_parse_size(bytes);
    long secs = SHARE_DEFAULT_MIN_SPEED_S;
    if (slash) {
        char *end;
        secs = strtol(slash + 1, &end, 10);
        if (*end || secs < 1 || secs > 3600) return -1;
    }
    if (bps < 1 || bps > (1LL << 30)) return -1;
    o->min_speed_bps = (long)bps;
    o->min_speed_s = secs;
    return 0;
}

static void share_defaults(void *p)
{
    struct share_args *a = p;
    share_opts_defaults(&a->o);
    a->o.progress = isatty(STDERR_FILENO);
}

static int set_timeout(void *at, const struct opt *row, const char *text, sl_err *e)
{
    char *end;
    long n = strtol(text, &end, 10);
    if (end == text || *end || n < 1 || n > 86400) return sl_fail(e, SL_EUSAGE, "--timeout %s: give seconds, 1 to 86400", text);
    ((struct share_args *)at)->o.timeout_s = n;
    return 0;
}

static int set_min_speed(void *at, const struct opt *row, const char *text, sl_err *e)
{
    if (parse_min_speed(text, &((struct share_args *)at)->o) < 0)
        return sl_fail(e, SL_EUSAGE, "--min-speed %s: give BYTES[/SECONDS], like 1k/30 (at least 1 byte/s)", text);
    return 0;
}

#define ARGS(field) OPT_AT(struct share_args, field)
static const struct opt transport_rows[] = {
    { .name = "endpoint", .type = OPT_TEXT, .arg = "URL", .help = "s3: the S3-compatible server (https://host:port)",
      OPT_PTR(struct share_args, o.endpoint) },
    { .name = "region", .type = OPT_TEXT, .arg = "R", .def = "AWS_REGION, else us-east-1", .help = "s3: signing region",
      OPT_PTR(struct share_args, o.region) },
    { .name = "insecure", .type = OPT_FLAG, .help = "do not verify the server's TLS certificate or SSH host key",
      ARGS(o.insecure) },
    { .name = "retries", .type = OPT_INT, .arg = "N", .min = 0, .max = 20, .def = "4",
      .help = "attempts after the first on transient errors", ARGS(o.retries) },
    { .name = "timeout", .type = OPT_CALL, .arg = "S", .def = "1800", .help = "overall deadline in seconds, retries included",
      .set = set_timeout },
    { .name = "min-speed", .type = OPT_CALL, .arg = "BYTES[/S]",
      .help = "fail a transfer slower than BYTES a second for S seconds (1k/30)", .set = set_min_speed },
    { NULL },
};
static const struct opt max_size_rows[] = {
    { .name = "max-size", .type = OPT_SIZE, .arg = "SIZE", .min = 4096, .max = 1e15, .def = "the built-in cap",
      .help = "refuse a database file larger than SIZE (512M)", ARGS(o.max_bytes) },
    { NULL },
};
static const struct opt push_rows[] = {
    { .name = "mine", .type = OPT_FLAG, .help = "only the runs of this host (the default)", ARGS(mine) },
    { .name = "all", .type = OPT_FLAG, .help = "every run the store holds, pulled ones included", ARGS(all) },
    { .name = "class", .type = OPT_TEXT, .arg = "CLASS", .def = "this host's disks' classes",
      .help = "the hardware class folder to upload to", OPT_PTR(struct share_args, hw_class) },
    { .name = "migrate", .type = OPT_FLAG,
      .help = "postgresql://: upgrade a server's older sluice schema (older sluices then refuse it)", ARGS(migrate) },
    { NULL },
};
static const struct opt pull_rows[] = {
    { .name = "class", .type = OPT_TEXT, .arg = "this|all", .def = "this", .help = "this host's hardware classes, or all",
      OPT_PTR(struct share_args, hw_class), .complete = "this all" },
    { .name = "keep-going", .type = OPT_FLAG, .help = "merge what passes its checks when some files fail",
      ARGS(keep_going) },
    { .name = "parallel", .type = OPT_INT, .arg = "N", .min = 1, .max = SHARE_PARALLEL_MAX, .def = "8",
      .help = "downloads at once, over connections kept open", ARGS(o.parallel) },
    { NULL },
};
static const struct opt prune_rows[] = {
    { .name = "older-than", .type = OPT_INT, .arg = "DAYS", .min = 1, .max = 100000,
      .help = "remove the runs measured more than DAYS days ago", ARGS(older_than_days) },
    { .name = "keep-runs", .type = OPT_INT, .arg = "N", .min = 1, .max = 100000000,
      .help = "keep each host's newest N runs, remove the rest", ARGS(keep_runs) },
    { .name = "dry-run", .type = OPT_FLAG, .help = "count what would go, remove nothing", ARGS(dry_run) },
    { NULL },
};
#undef ARGS

static const struct opt_table merge_table = { sizeof(struct share_args), share_defaults, { { max_size_rows, 0 } },
                                              "FILE...", COMPLETE_FILE };
static const struct opt_table push_table = { sizeof(struct share_args), share_defaults,
                                             { { transport_rows, 0 }, { push_rows, 0 } }, "URL", NULL };
static const struct opt_table pull_table = { sizeof(struct share_args), share_defaults,
                                             { { transport_rows, 0 }, { pull_rows, 0 }, { max_size_rows, 0 } }, "URL", NULL };

static const struct opt_table prune_table = { sizeof(struct share_args), share_defaults,
                                              { { transport_rows, 0 }, { prune_rows, 0 } }, "URL", NULL };

/* The arguments after the options: one URL, or (merge) one or more FILEs. */
static int parse(const char *cmd, int argc, char **argv, struct share_args *a)
{
    bool many = strcmp(cmd, "merge") == 0;
    if (argc < 2) return cli_usage(cmd, "missing %s", many ? "FILE" : "URL");
    if (!many && argc > 2) return cli_usage(cmd, "unexpected argument %s", argv[2]);
    a->arg = argv[1];
    a->files = argv + 1;
    a->nfiles = argc - 1;
    if (a->o.insecure)
        fprintf(stderr, "sluice: warning: --insecure: the server's identity is not verified; anyone on the path "
                        "can read and replace what is transferred\n");
    return 0;
}

static void report_line(const char *name, const struct share_report *rep)
{
    long long added = share_report_added(rep), known = 0, skipped = 0;
    printf("merged %s:", name);
    if (!added) printf(" nothing new");
    for (int i = 0; i < rep->ntables; i++) {
        known += rep->t[i].known;
        skipped += rep->t[i].skipped;
        if (rep->t[i].added) printf(" +%lld %s", rep->t[i].added, rep->t[i].table);
    }
    printf(" (%lld already here", known);
    if (skipped) printf(", %lld skipped: a missing parent row or a constraint", skipped);
    printf(")\n");
}

static json_t *report_json(const char *name, const struct share_report *rep)
{
    json_t *o = json_object(), *t = json_object();
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "added", json_integer(share_report_added(rep)));
    for (int i = 0; i < rep->ntables; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "added", json_integer(rep->t[i].added));
        json_object_set_new(x, "known", json_integer(rep->t[i].known));
        json_object_set_new(x, "skipped", json_integer(rep->t[i].skipped));
        json_object_set_new(t, rep->t[i].table, x);
    }
    json_object_set_new(o, "tables", t);
    return o;
}

struct printer {
    bool json;
    json_t *events;
};

static void on_event(const struct share_event *ev, void *arg)
{
    struct printer *p = arg;
    if (p->json) {
        static const char *kinds[] = { "pushed", "fetched", "merged", "refused", "note" };
        json_t *o = ev->kind == SHARE_MERGED ? report_json(ev->name, ev->report) : json_object();
        json_object_set_new(o, "event", json_string(kinds[ev->kind]));
        if (ev->kind != SHARE_MERGED) json_object_set_new(o, "name", json_string(ev->name));
        if (ev->msg) json_object_set_new(o, "message", json_string(ev->msg));
        json_array_append_new(p->events, o);
        return;
    }
    /* Names and messages quote what the server holds (object entries'
     * times and marks, a central store's run UUIDs, its error text): shown
     * escaped, as errors are, so none of it acts on the terminal or starts
     * a line of its own. */
    char name[2048], msg[4096];
    esc_term(ev->name ? ev->name : "", name, sizeof name, 0);
    esc_term(ev->msg ? ev->msg : "", msg, sizeof msg, 0);
    switch (ev->kind) {
    case SHARE_PUSHED: printf("pushed %s\n", name); break;
    case SHARE_FETCHED: break;
    case SHARE_MERGED: report_line(name, ev->report); break;
    case SHARE_REFUSED: fprintf(stderr, "sluice: refused %s: %s\n", name, msg); break;
    case SHARE_NOTE: printf("%s: %s\n", name, msg); break;
    }
    fflush(stdout);
}

static int finish(struct printer *p, int rc, const sl_err *e)
{
    if (p->json) {
        json_t *o = json_object();
        json_object_set_new(o, "events", p->events);
        if (rc < 0) json_object_set_new(o, "error", json_string(e->msg));
        cli_print_json(o);
    }
    return rc < 0 ? cli_error(e) : 0;
}

static int run_merge(struct cli_ctx *ctx, int argc, char **argv)
{
    struct share_args a = *(struct share_args *)ctx->opts;
    int rc = parse("merge", argc, argv, &a);
    if (rc) return rc;
    sl_err e;
    store *s = cli_store(ctx, &e);
    if (!s) return cli_error(&e);
    if (a.nfiles > 1) {
        struct printer p = { ctx->json, ctx->json ? json_array() : NULL };
        rc = share_merge_files(s, a.files, a.nfiles, a.o.max_bytes, on_event, &p, &e);
        return finish(&p, rc, &e);
    }
    struct share_report rep;
    if (share_merge_file(s, a.arg, NULL, a.o.max_bytes, &rep, &e) < 0) return cli_error(&e);
    if (ctx->json) return cli_print_json(report_json(a.arg, &rep));
    report_line(a.arg, &rep);
    return 0;
}

static int open_remote(struct share_args *a, struct share_remote **r, sl_err *e)
{
    return share_open(a->arg, &a->o, r, e);
}

/* The remote and the local store, both or neither (the remote is closed
 * when the store cannot be opened). NULL with e set. */
static store *open_both(struct cli_ctx *ctx, struct share_args *a, struct share_remote **r, sl_err *e)
{
    if (open_remote(a, r, e) < 0) return NULL;
    store *s = cli_store(ctx, e);
    if (!s) share_close(*r);
    return s;
}

static int run_push(struct cli_ctx *ctx, int argc, char **argv)
{
    struct share_args a = *(struct share_args *)ctx->opts;
    int rc = parse("push", argc, argv, &a);
    if (rc) return rc;
    sl_err e;
    struct share_remote *r;
    store *s = open_both(ctx, &a, &r, &e);
    if (!s) return cli_error(&e);
    struct printer p = { ctx->json, ctx->json ? json_array() : NULL };
    /* A host publishes its own runs: re-publishing what it pulled made every
     * object grow with the fleet (#16). */
    struct share_push_opts po = { .mine = !a.all, .hw_class = a.hw_class, .migrate = a.migrate };
    rc = share_push(s, r, &po, on_event, &p, &e);
    share_close(r);
    return finish(&p, rc, &e);
}

static int run_pull(struct cli_ctx *ctx, int argc, char **argv)
{
    struct share_args a = *(struct share_args *)ctx->opts;
    int rc = parse("pull", argc, argv, &a);
    if (rc) return rc;
    struct share_pull_opts po = { .keep_going = a.keep_going };
    if (a.hw_class && strcmp(a.hw_class, "all") == 0) po.all_classes = true;
    else if (a.hw_class && strcmp(a.hw_class, "this") != 0)
        return cli_usage("pull", "--class %s: give 'this' (this host's disks) or 'all'", a.hw_class);
    sl_err e;
    struct share_remote *r;
    store *s = open_both(ctx, &a, &r, &e);
    if (!s) return cli_error(&e);
    struct printer p = { ctx->json, ctx->json ? json_array() : NULL };
    long long added = share_pull(s, r, &po, on_event, &p, &e);
    share_close(r);
    return finish(&p, added < 0 ? -1 : 0, &e);
}

static int run_prune(struct cli_ctx *ctx, int argc, char **argv)
{
    struct share_args a = *(struct share_args *)ctx->opts;
    int rc = parse("prune", argc, argv, &a);
    if (rc) return rc;
    sl_err e;
    struct share_remote *r;
    /* The store says which host this is: a central store prunes its runs. */
    store *s = open_both(ctx, &a, &r, &e);
    if (!s) return cli_error(&e);
    struct printer p = { ctx->json, ctx->json ? json_array() : NULL };
    struct share_prune_opts po = { .older_than_days = a.older_than_days, .keep_runs = a.keep_runs, .dry_run = a.dry_run };
    long long n = share_prune(s, r, &po, on_event, &p, &e);
    share_close(r);
    return finish(&p, n < 0 ? -1 : 0, &e);
}

CLI_COMMAND_OPTS(cmd_merge, "merge", run_merge, merge_table,
                 "check result database files (all before the first merge) and merge their runs into this one", 0);
CLI_COMMAND_OPTS(cmd_push, "push", run_push, push_table,
                 "upload a compressed snapshot of the results to URL/CLASS/HOST-UUID.sluicedb.zst", 0);
CLI_COMMAND_OPTS(cmd_pull, "pull", run_pull, pull_table,
                 "fetch the databases of this host's hardware classes from URL, check and merge them", 0);
CLI_COMMAND_OPTS(cmd_prune, "prune", run_prune, prune_table,
                 "retention on any store: remove runs by age and all but each host's newest N", 0);
