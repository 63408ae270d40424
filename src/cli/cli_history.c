/* cli_history — `sluice history`: stored probe runs as a table, CSV or JSON;
 * the table is followed by the live verifications. */
#include "cli/cli.h"
#include "cli/cli_verify.h"
#include "core/esc.h"
#include "probe/probe.h"
#include "db/store_run.h"
#include "db/store_verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The knob values in force: {"vm.dirty_ratio": "20", ...}. */
static json_t *knobs_json(const char *config_text)
{
    json_t *o = json_object();
    for (const char *p = config_text; *p;) {
        size_t len = strcspn(p, "\n");
        const char *eq = memchr(p, '=', len);
        if (eq) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
            json_object_set_new(o, name, json_stringn(eq + 1, (size_t)(p + len - eq - 1)));
        }
        p += len + (p[len] == '\n');
    }
    return o;
}

static json_t *row_json(const struct run_export *r)
{
    json_t *o = rec_json(run_export_fields, run_export_fields_len, r);
    json_object_set_new(o, "knobs", knobs_json(r->config_text));
    return o;
}

/* RFC 4180: quote a field when it holds a comma, quote or newline. On a
 * terminal its control characters are shown as \xHH first (esc_term):
 * hostnames and notes come from merged databases and may carry escape
 * sequences; into a file or a pipe the bytes are kept as stored. */
static void csv_field(const char *s, bool last, bool tty)
{
    char *shown = NULL;
    if (tty) {
        size_t n = 4 * strlen(s) + 1;
        s = shown = esc_term(s, xmalloc(n), n, 0);
    }
    if (strpbrk(s, ",\"\n\r")) {
        putchar('"');
        for (const char *p = s; *p; p++) {
            if (*p == '"') putchar('"');
            putchar(*p);
        }
        putchar('"');
    } else {
        fputs(s, stdout);
    }
    putchar(last ? '\n' : ',');
    free(shown);
}

/* The columns: run_export_fields' keys in order, then the knobs. */
static void print_csv_header(void)
{
    for (size_t k = 0; k < run_export_fields_len; k++)
        if (run_export_fields[k].json) printf("%s,", run_export_fields[k].json);
    puts("knobs");
}

/* arg: a bool, whether stdout is a terminal. */
static int print_csv_row(void *arg, const struct run_export *r)
{
    bool tty = *(const bool *)arg;
    char buf[512];
    for (size_t k = 0; k < run_export_fields_len; k++)
        if (run_export_fields[k].json) csv_field(rec_text(&run_export_fields[k], r, buf, sizeof buf), false, tty);
    /* knobs: "name=value" separated by spaces (values hold none) */
    char *knobs = xstrdup(r->config_text);
    size_t len = strlen(knobs);
    while (len && knobs[len - 1] == '\n') knobs[--len] = 0;
    for (char *p = knobs; *p; p++)
        if (*p == '\n') *p = ' ';
    csv_field(knobs, true, tty);
    free(knobs);
    return 0;
}

struct json_sink {
    json_t *arr;      /* --json: one array; NULL for --jsonl: one object a line */
    int rc;
};

static int print_json_row(void *arg, const struct run_export *r)
{
    struct json_sink *js = arg;
    json_t *o = row_json(r);
    if (js->arr) {
        json_array_append_new(js->arr, o);
        return 0;
    }
    if (cli_dump_json(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12)) != 0)
        js->rc = SL_EFAIL;
    fputc('\n', stdout);
    json_decref(o);
    return js->rc;
}

/* After the runs, the live verifications (their own "kind"), into the
 * array or one a line. 0, or a status. */
static int verifications_json(store *st, struct json_sink *js)
{
    struct verify_row *rows = NULL;
    sl_err e;
    int n = store_verify_list(st, &rows, &e);
    if (n < 0) return cli_error(&e);
    for (int i = 0; i < n && js->rc == 0; i++) {
        json_t *o = store_verify_json(&rows[i]);
        if (js->arr) {
            json_array_append_new(js->arr, o);
            continue;
        }
        if (cli_dump_json(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12)) != 0)
            js->rc = SL_EFAIL;
        fputc('\n', stdout);
        json_decref(o);
    }
    free(rows);
    return js->rc;
}

static void print_table(const struct run_row *rows, int n)
{
    struct table *t = table_new(10, "RUN", "STARTED", "WORKLOAD", "DEVICE", "STATUS", "MB/S", "IOPS", "P99", "CANARY",
                                "CONFIG");
    for (int i = 0; i < n; i++) {
        const struct run_row *r = &rows[i];
        char id[16], mb[32], iops[32], p99[24], can[24], cfg[16];
        snprintf(id, sizeof id, "%.8s", r->uuid);
        snprintf(mb, sizeof mb, "%.1f", r->m.mb_s);
        snprintf(iops, sizeof iops, "%.0f", r->m.iops);
        run_metric_text(RM_lat_p99_ns, r->m.lat_p99_ns, p99, sizeof p99);
        run_metric_text(RM_canary_max_ns, r->m.canary_max_ns, can, sizeof can);
        snprintf(cfg, sizeof cfg, "%.8s", r->config_hash);
        table_row(t, id, r->started, r->workload, r->device[0] ? r->device : "-", r->status, mb, iops, p99, can, cfg);
    }
    table_print(t);
}

struct history_opts {
    bool csv, jsonl;
    const char *workload;
    int limit;
};

static int set_workload(void *at, const struct opt *o, const char *text, sl_err *e)
{
    if (!probe_workload_summary(text)) return sl_fail(e, SL_EUSAGE, "--%s %s: no such workload", o->name, text);
    *(const char **)at = text;
    return 0;
}

static const struct opt history_rows[] = {
    { .name = "csv", .type = OPT_FLAG,
      .help = "comma-separated values with a header line",
      OPT_AT(struct history_opts, csv) },
    { .name = "jsonl", .type = OPT_FLAG,
      .help = "one JSON object a line (streamed)",
      OPT_AT(struct history_opts, jsonl) },
    { .name = "workload", .type = OPT_CALL, .arg = "W", .def = "every workload",
      .help = "only runs of workload W",
      OPT_PTR(struct history_opts, workload), .set = set_workload, .complete = COMPLETE_WORKLOAD },
    { .name = "limit", .type = OPT_INT, .arg = "N", .min = 1, .max = 1000000, .def = "every run",
      .help = "the N newest runs",
      OPT_AT(struct history_opts, limit) },
    { NULL },
};
static const struct opt_table history_table = { sizeof(struct history_opts), NULL, { { history_rows, 0 } }, NULL, NULL };

static int run_history(struct cli_ctx *ctx, int argc, char **argv)
{
    const struct history_opts *o = ctx->opts;
    bool json = ctx->json, csv = o->csv, jsonl = o->jsonl;
    const char *workload = o->workload;
    int limit = o->limit;
    if (argc > 1) return cli_usage("history", "unexpected argument %s", argv[1]);
    if (json + csv + jsonl > 1) return cli_usage("history", "give one of --json, --csv and --jsonl");
    sl_err e;
    if (cli_store_missing(ctx)) return cli_nothing_stored(ctx);
    store *st = cli_store(ctx, &e);
    if (!st) return cli_error(&e);
    if (csv) {
        bool tty = isatty(STDOUT_FILENO);
        print_csv_header();
        return store_run_export(st, workload, limit, print_csv_row, &tty, &e) < 0 ? cli_error(&e) : 0;
    }
    if (json || jsonl) {
        struct json_sink js = { json ? json_array() : NULL, 0 };
        if (store_run_export(st, workload, limit, print_json_row, &js, &e) < 0) {
            json_decref(js.arr);
            return cli_error(&e);
        }
        /* a verification is no probe run of a workload: not under --workload */
        int vrc = workload ? 0 : verifications_json(st, &js);
        if (vrc && js.arr) {
            json_decref(js.arr);
            return vrc;
        }
        if (js.arr) {
            if (cli_dump_json(js.arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12)) != 0)
                js.rc = SL_EFAIL;
            fputc('\n', stdout);
            json_decref(js.arr);
        }
        return js.rc;
    }
    struct run_row *rows;
    int n = store_run_list(st, workload, limit, &rows, &e);
    if (n < 0) return cli_error(&e);
    print_table(rows, n);
    free(rows);
    if (!workload && cli_verify_print_list(st, &e) < 0) return cli_error(&e);
    return 0;
}

CLI_COMMAND_OPTS(cmd_history, "history", run_history, history_table,
            "stored probe runs, newest first, then the live verifications", 0);

/* create-db: the results database, empty, where --db says. Read-only
 * commands never create it (#32); tests and scripts that want an empty
 * store (to merge into, to push from for the first time) make one here. */
static int run_create_db(struct cli_ctx *ctx, int argc, char **argv)
{
    if (argc > 1) return cli_usage("create-db", "unexpected argument %s", argv[1]);
    sl_err e;
    if (!cli_store(ctx, &e)) return cli_error(&e);
    if (ctx->json) return cli_print_json(json_pack("{s:s}", "database", ctx->db_path));
    return 0;
}

static const struct opt_table create_db_table = { 0, NULL, { { NULL, 0 } }, NULL, NULL };
CLI_COMMAND_OPTS(cmd_create_db, "create-db", run_create_db, create_db_table,
                 "create the results database (empty) where --db says, if it is not there", CLI_HIDDEN);
