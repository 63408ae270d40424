/* cli_share — `push`, `pull` and `merge`: sharing result databases. */
#include "cli.h"
#include "share/sync.h"
#include "units.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_ENDPOINT = 1000, OPT_REGION, OPT_INSECURE, OPT_RETRIES, OPT_MAX_SIZE, OPT_MINE, OPT_CLASS, OPT_KEEP_GOING,
       OPT_TIMEOUT, OPT_MIN_SPEED };

static const struct option share_options[] = {
    { "endpoint", required_argument, NULL, OPT_ENDPOINT }, { "region", required_argument, NULL, OPT_REGION },
    { "insecure", no_argument, NULL, OPT_INSECURE },       { "retries", required_argument, NULL, OPT_RETRIES },
    { "max-size", required_argument, NULL, OPT_MAX_SIZE }, { "mine", no_argument, NULL, OPT_MINE },
    { "class", required_argument, NULL, OPT_CLASS },       { "keep-going", no_argument, NULL, OPT_KEEP_GOING },
    { "timeout", required_argument, NULL, OPT_TIMEOUT },   { "min-speed", required_argument, NULL, OPT_MIN_SPEED },
    { NULL, 0, NULL, 0 },
};

struct share_args {
    struct share_opts o;
    bool mine, keep_going;
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

/* Parse the options every sharing command accepts; `allowed` lists the
 * OPT_ values this command takes (0-terminated). */
static int parse(const char *cmd, int argc, char **argv, const int *allowed, struct share_args *a)
{
    memset(a, 0, sizeof *a);
    a->o.retries = 4;
    a->o.retry_base_ms = 500;
    a->o.max_bytes = SHARE_DEFAULT_MAX_BYTES;
    a->o.progress = isatty(STDERR_FILENO);
    const char *env = getenv("SLUICE_SHARE_RETRY_MS");  /* tests: retries without the wait */
    if (env && *env) a->o.retry_base_ms = atol(env);
    int c;
    optind = 0;  /* re-initialise getopt: options may follow the URL */
    while ((c = getopt_long(argc, argv, "", share_options, NULL)) != -1) {
        bool ok = false;
        for (const int *p = allowed; *p; p++) ok |= *p == c;
        if (!ok) return cli_usage(cmd, "unknown option %s", argv[optind - 1]);
        switch (c) {
        case OPT_ENDPOINT: a->o.endpoint = optarg; break;
        case OPT_REGION: a->o.region = optarg; break;
        case OPT_INSECURE: a->o.insecure = true; break;
        case OPT_RETRIES: {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || n < 0 || n > 20) return cli_usage(cmd, "--retries %s: give 0 to 20", optarg);
            a->o.retries = (int)n;
            break;
        }
        case OPT_MAX_SIZE:
            a->o.max_bytes = units_parse_size(optarg);
            if (a->o.max_bytes < 4096) return cli_usage(cmd, "--max-size %s: give a size like 512M", optarg);
            break;
        case OPT_TIMEOUT: {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || n < 1 || n > 86400) return cli_usage(cmd, "--timeout %s: give seconds, 1 to 86400", optarg);
            a->o.timeout_s = n;
            break;
        }
        case OPT_MIN_SPEED:
            if (parse_min_speed(optarg, &a->o) < 0)
                return cli_usage(cmd, "--min-speed %s: give BYTES[/SECONDS], like 1k/30 (at least 1 byte/s)", optarg);
            break;
        case OPT_MINE: a->mine = true; break;
        case OPT_CLASS: a->hw_class = optarg; break;
        case OPT_KEEP_GOING: a->keep_going = true; break;
        }
    }
    bool many = strcmp(cmd, "merge") == 0;
    if (optind >= argc) return cli_usage(cmd, "missing %s", many ? "FILE" : "URL");
    if (!many && optind + 1 < argc) return cli_usage(cmd, "unexpected argument %s", argv[optind + 1]);
    a->arg = argv[optind];
    a->files = argv + optind;
    a->nfiles = argc - optind;
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
    switch (ev->kind) {
    case SHARE_PUSHED: printf("pushed %s\n", ev->name); break;
    case SHARE_FETCHED: break;
    case SHARE_MERGED: report_line(ev->name, ev->report); break;
    case SHARE_REFUSED: fprintf(stderr, "sluice: refused %s: %s\n", ev->name, ev->msg); break;
    case SHARE_NOTE: printf("%s: %s\n", ev->name, ev->msg); break;
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
    static const int allowed[] = { OPT_MAX_SIZE, 0 };
    struct share_args a;
    int rc = parse("merge", argc, argv, allowed, &a);
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
    if (share_merge_file(s, a.arg, a.o.max_bytes, &rep, &e) < 0) return cli_error(&e);
    if (ctx->json) return cli_print_json(report_json(a.arg, &rep));
    report_line(a.arg, &rep);
    return 0;
}

static int open_remote(struct share_args *a, struct share_remote **r, sl_err *e)
{
    return share_open(a->arg, &a->o, r, e);
}

static int run_push(struct cli_ctx *ctx, int argc, char **argv)
{
    static const int allowed[] = { OPT_ENDPOINT, OPT_REGION, OPT_INSECURE, OPT_RETRIES, OPT_MINE, OPT_CLASS, OPT_TIMEOUT,
                                   OPT_MIN_SPEED, 0 };
    struct share_args a;
    int rc = parse("push", argc, argv, allowed, &a);
    if (rc) return rc;
    sl_err e;
    struct share_remote *r;
    if (open_remote(&a, &r, &e) < 0) return cli_error(&e);
    store *s = cli_store(ctx, &e);
    if (!s) {
        share_close(r);
        return cli_error(&e);
    }
    struct printer p = { ctx->json, ctx->json ? json_array() : NULL };
    struct share_push_opts po = { .mine = a.mine, .hw_class = a.hw_class };
    rc = share_push(s, r, &po, on_event, &p, &e);
    share_close(r);
    return finish(&p, rc, &e);
}

static int run_pull(struct cli_ctx *ctx, int argc, char **argv)
{
    static const int allowed[] = { OPT_ENDPOINT, OPT_REGION, OPT_INSECURE, OPT_RETRIES, OPT_MAX_SIZE, OPT_CLASS,
                                   OPT_TIMEOUT, OPT_MIN_SPEED,
                                   OPT_KEEP_GOING, 0 };
    struct share_args a;
    int rc = parse("pull", argc, argv, allowed, &a);
    if (rc) return rc;
    struct share_pull_opts po = { .keep_going = a.keep_going };
    if (a.hw_class && strcmp(a.hw_class, "all") == 0) po.all_classes = true;
    else if (a.hw_class && strcmp(a.hw_class, "this") != 0)
        return cli_usage("pull", "--class %s: give 'this' (this host's disks) or 'all'", a.hw_class);
    sl_err e;
    struct share_remote *r;
    if (open_remote(&a, &r, &e) < 0) return cli_error(&e);
    store *s = cli_store(ctx, &e);
    if (!s) {
        share_close(r);
        return cli_error(&e);
    }
    struct printer p = { ctx->json, ctx->json ? json_array() : NULL };
    long long added = share_pull(s, r, &po, on_event, &p, &e);
    share_close(r);
    return finish(&p, added < 0 ? -1 : 0, &e);
}

CLI_COMMAND(cmd_merge, "merge", run_merge, "merge FILE... [--max-size SIZE]",
            "check result database files (all before the first merge) and merge their runs into this one", 0);
CLI_COMMAND(cmd_push, "push", run_push,
            "push URL [--mine] [--class CLASS] [--endpoint URL] [--region R] [--insecure] [--retries N] "
            "[--timeout S] [--min-speed BYTES[/S]]",
            "upload a snapshot of the results to URL/CLASS/HOST-UUID.sluicedb", 0);
CLI_COMMAND(cmd_pull, "pull", run_pull,
            "pull URL [--class this|all] [--keep-going] [--endpoint URL] [--region R] [--insecure] [--retries N] "
            "[--max-size SIZE] [--timeout S] [--min-speed BYTES[/S]]",
            "fetch the databases of this host's hardware classes from URL, check and merge them", 0);
