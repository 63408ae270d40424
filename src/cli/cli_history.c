/* cli_history — `sluice history`: stored probe runs as a table, CSV or JSON. */
#include "cli.h"
#include "probe/probe.h"
#include "store_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fmt_lat(int64_t ns, char *buf, size_t n)
{
    if (ns < 0) snprintf(buf, n, "-");
    else probe_format_ns((double)ns, buf, n);
}

static json_t *row_json(const struct run_row *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "uuid", json_string(r->uuid));
    json_object_set_new(o, "batch", json_string(r->batch));
    json_object_set_new(o, "rep", json_integer(r->rep + 1));
    json_object_set_new(o, "started", json_string(r->started));
    json_object_set_new(o, "workload", json_string(r->workload));
    json_object_set_new(o, "device", r->device[0] ? json_string(r->device) : json_null());
    json_object_set_new(o, "status", json_string(r->status));
    json_object_set_new(o, "mb_s", probe_json_real(r->mb_s));
    json_object_set_new(o, "iops", probe_json_real(r->iops));
    json_object_set_new(o, "lat_p50_ns", r->lat_p50_ns >= 0 ? json_integer(r->lat_p50_ns) : json_null());
    json_object_set_new(o, "lat_p99_ns", r->lat_p99_ns >= 0 ? json_integer(r->lat_p99_ns) : json_null());
    json_object_set_new(o, "lat_max_ns", r->lat_max_ns >= 0 ? json_integer(r->lat_max_ns) : json_null());
    json_object_set_new(o, "canary_max_ns", r->canary_max_ns >= 0 ? json_integer(r->canary_max_ns) : json_null());
    json_object_set_new(o, "cpu_usr_pct", probe_json_real(r->cpu_usr_pct));
    json_object_set_new(o, "cpu_sys_pct", probe_json_real(r->cpu_sys_pct));
    json_object_set_new(o, "seed", json_integer(r->seed));
    json_object_set_new(o, "config_hash", json_string(r->config_hash));
    json_object_set_new(o, "workload_hash", json_string(r->workload_hash));
    json_object_set_new(o, "kernel", json_string(r->kernel));
    json_object_set_new(o, "hostname", json_string(r->hostname));
    json_object_set_new(o, "dirty_threshold_reached",
                        r->reached_threshold < 0 ? json_null() : json_boolean(r->reached_threshold));
    json_object_set_new(o, "note", json_string(r->note));
    return o;
}

/* RFC 4180: quote a field when it holds a comma, quote or newline. */
static void csv_field(const char *s, bool last)
{
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
}

static void print_csv(const struct run_row *rows, int n)
{
    printf("uuid,batch,rep,started,workload,device,status,mb_s,iops,lat_p50_ns,lat_p99_ns,lat_max_ns,canary_max_ns,"
           "cpu_usr_pct,cpu_sys_pct,seed,config_hash,workload_hash,kernel,hostname,note,dirty_threshold_reached\n");
    for (int i = 0; i < n; i++) {
        const struct run_row *r = &rows[i];
        char rep[16], mb[32], iops[32], p50[32], p99[32], mx[32], can[32], usr[32], sys[32], seed[32];
        snprintf(rep, sizeof rep, "%d", r->rep + 1);
        snprintf(mb, sizeof mb, "%.3f", r->mb_s);
        snprintf(iops, sizeof iops, "%.1f", r->iops);
        snprintf(p50, sizeof p50, "%lld", (long long)r->lat_p50_ns);
        snprintf(p99, sizeof p99, "%lld", (long long)r->lat_p99_ns);
        snprintf(mx, sizeof mx, "%lld", (long long)r->lat_max_ns);
        snprintf(can, sizeof can, "%lld", (long long)r->canary_max_ns);
        snprintf(usr, sizeof usr, "%.2f", r->cpu_usr_pct);
        snprintf(sys, sizeof sys, "%.2f", r->cpu_sys_pct);
        snprintf(seed, sizeof seed, "%lld", (long long)r->seed);
        const char *f[] = { r->uuid, r->batch, rep, r->started, r->workload, r->device, r->status, mb, iops,
                            r->lat_p50_ns < 0 ? "" : p50, r->lat_p99_ns < 0 ? "" : p99, r->lat_max_ns < 0 ? "" : mx,
                            r->canary_max_ns < 0 ? "" : can, usr, sys, seed, r->config_hash, r->workload_hash,
                            r->kernel, r->hostname, r->note,
                            r->reached_threshold < 0 ? "" : r->reached_threshold ? "yes" : "no" };
        int nf = (int)(sizeof f / sizeof f[0]);
        for (int k = 0; k < nf; k++) csv_field(f[k], k == nf - 1);
    }
}

static void print_table(const struct run_row *rows, int n)
{
    struct table *t = table_new(10, "RUN", "STARTED", "WORKLOAD", "DEVICE", "STATUS", "MB/S", "IOPS", "P99", "CANARY",
                                "CONFIG");
    for (int i = 0; i < n; i++) {
        const struct run_row *r = &rows[i];
        char id[16], mb[32], iops[32], p99[24], can[24], cfg[16];
        snprintf(id, sizeof id, "%.8s", r->uuid);
        snprintf(mb, sizeof mb, "%.1f", r->mb_s);
        snprintf(iops, sizeof iops, "%.0f", r->iops);
        fmt_lat(r->lat_p99_ns, p99, sizeof p99);
        fmt_lat(r->canary_max_ns, can, sizeof can);
        snprintf(cfg, sizeof cfg, "%.8s", r->config_hash);
        table_row(t, id, r->started, r->workload, r->device[0] ? r->device : "-", r->status, mb, iops, p99, can, cfg);
    }
    table_print(t);
}

struct history_opts {
    bool csv;
    const char *workload;
    int limit;
};

static int set_workload(void *at, const struct cli_opt *o, const char *text, sl_err *e)
{
    if (!probe_workload_summary(text)) return sl_fail(e, SL_EUSAGE, "--%s %s: no such workload", o->name, text);
    *(const char **)at = text;
    return 0;
}

static const struct cli_opt history_rows[] = {
    { "csv", 0, OPT_FLAG, NULL, 0, 0, NULL, "comma-separated values with a header line", OPT_AT(struct history_opts, csv), NULL, NULL },
    { "workload", 0, OPT_CALL, "W", 0, 0, "every workload", "only runs of workload W",
      OPT_PTR(struct history_opts, workload), set_workload, COMPLETE_WORKLOAD },
    { "limit", 0, OPT_INT, "N", 1, 1000000, "every run", "the N newest runs", OPT_AT(struct history_opts, limit), NULL, NULL },
    { NULL },
};
static const struct cli_opts history_table = { sizeof(struct history_opts), NULL, { { history_rows, 0 } }, NULL, NULL };

static int run_history(struct cli_ctx *ctx, int argc, char **argv)
{
    const struct history_opts *o = ctx->opts;
    bool json = ctx->json, csv = o->csv;
    const char *workload = o->workload;
    int limit = o->limit;
    if (argc > 1) return cli_usage("history", "unexpected argument %s", argv[1]);
    if (json && csv) return cli_usage("history", "give --json or --csv, not both");
    sl_err e;
    store *st = cli_store(ctx, &e);
    if (!st) return cli_error(&e);
    struct run_row *rows;
    int n = store_run_list(st, workload, limit, &rows, &e);
    if (n < 0) return cli_error(&e);
    int rc = 0;
    if (json) {
        json_t *arr = json_array();
        for (int i = 0; i < n; i++) json_array_append_new(arr, row_json(&rows[i]));
        rc = json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12));
        fputc('\n', stdout);
        json_decref(arr);
        rc = rc == 0 ? 0 : SL_EFAIL;
    } else if (csv) {
        print_csv(rows, n);
    } else {
        print_table(rows, n);
    }
    free(rows);
    return rc;
}

CLI_COMMAND_OPTS(cmd_history, "history", run_history, history_table,
            "stored probe runs, newest first", 0);
