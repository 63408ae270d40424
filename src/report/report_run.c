/* report_run — one stored probe run as a report: what ran (spec, knobs in
 * force), every metric of the metric table with its unit, the notes, and
 * charts of the stored series (MB/s, nr_dirty and nr_writeback against the
 * thresholds), the latency histograms and the canary's stalls. Load, then
 * render: the run is read in one query (store_run_detail), and the report
 * is drawn from that record alone. Whatever is missing or malformed is
 * named and the rest shown. */
#include "report/report_run.h"
#include "report/report_internal.h"
#include "probe/probe.h"
#include "db/store_run.h"
#include "core/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fmt_ns(double ns, char *buf, size_t n) { probe_format_ns(ns, buf, n); }

static void add_header(struct report *rep, const struct run_detail *d)
{
    const struct run_row *r = &d->row;
    snprintf(rep->title, sizeof rep->title, "Run %.8s: %s, %s", r->uuid, r->workload, r->status);
    snprintf(rep->kind, sizeof rep->kind, "run");
    report_add(rep, RI_HEAD, "Run %s", r->uuid);
    report_add(rep, RI_TEXT, "workload %s, status %s, started %s", r->workload, r->status, r->started);
    report_add(rep, RI_TEXT, "repetition %d of batch %.8s, seed %lld", r->rep + 1, r->batch, (long long)r->seed);
    report_add(rep, RI_TEXT, "host %s, kernel %s", r->hostname[0] ? r->hostname : "?", r->kernel);
    report_add(rep, RI_TEXT, "directory %s, device %s", d->dir && d->dir[0] ? d->dir : "-",
               r->device[0] ? r->device : "none (no block device under the directory)");
}

static void add_spec(struct report *rep, const json_t *m)
{
    report_add(rep, RI_HEAD, "Spec");
    const json_t *s = json_object_get(m, "spec");
    if (!json_is_object(s)) { report_add(rep, RI_WARN, "the spec is not in the stored metrics"); return; }
    char bs[24], size[24];
    units_format_bytes((unsigned long long)rj_num(s, "bs", 0), bs, sizeof bs);
    units_format_bytes((unsigned long long)rj_num(s, "size_bytes", 0), size, sizeof size);
    report_add(rep, RI_TEXT, "%.0f thread(s), block size %s, size %s, %g s measured after %g s ramp",
               rj_num(s, "threads", 0), bs, size, rj_num(s, "time_ms", 0) / 1000, rj_num(s, "ramp_ms", 0) / 1000);
    report_add(rep, RI_TEXT, "%s, iodepth %.0f, fsync every %.0f writes, canary %s",
               json_is_true(json_object_get(s, "direct")) ? "O_DIRECT" : "buffered", rj_num(s, "iodepth", 1),
               rj_num(s, "sync_every", 0), json_is_true(json_object_get(s, "canary")) ? "on" : "off");
    const char *lf = rj_str(s, "loadfile", NULL);
    if (lf) report_add(rep, RI_TEXT, "loadfile %s (sha256 %.16s)", lf, rj_str(s, "loadfile_sha256", "?"));
}

static void add_knobs(struct report *rep, const struct run_detail *d)
{
    report_add(rep, RI_HEAD, "Knobs in force (config %.12s)", d->row.config_hash);
    if (!d->config_text) { report_add(rep, RI_WARN, "the configuration's text is not in this database"); return; }
    char *text = xstrdup(d->config_text);
    int lines = 0;
    for (char *save, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save), lines++)
        report_add(rep, RI_TEXT, "%s", l);
    if (!lines) report_add(rep, RI_NOTE, "no knob was readable when the run started");
    free(text);
}

static void add_op(struct report *rep, const char *name, const json_t *o)
{
    const json_t *l = json_object_get(o, "lat_ns");
    char mn[16], me[16], p50[16], p90[16], p99[16], p999[16], mx[16];
    fmt_ns(rj_num(l, "min", 0), mn, sizeof mn);
    fmt_ns(rj_num(l, "mean", 0), me, sizeof me);
    fmt_ns(rj_num(l, "p50", 0), p50, sizeof p50);
    fmt_ns(rj_num(l, "p90", 0), p90, sizeof p90);
    fmt_ns(rj_num(l, "p99", 0), p99, sizeof p99);
    fmt_ns(rj_num(l, "p99.9", 0), p999, sizeof p999);
    fmt_ns(rj_num(l, "max", 0), mx, sizeof mx);
    report_add(rep, RI_TEXT, "%s: %.1f MB/s, %.0f IOPS, %.0f I/Os; latency min %s, mean %s, p50 %s, p90 %s, p99 %s, "
               "p99.9 %s, max %s", name, rj_num(o, "mb_s", 0), rj_num(o, "iops", 0), rj_num(o, "ios", 0), mn, me, p50,
               p90, p99, p999, mx);
}

void report_run_metrics(struct report *rep, const struct run_metrics *m)
{
    for (int g = 0; g < MG_NR; g++) {
        char line[1024];
        if (run_metric_group_text(m, g, line, sizeof line)[0])
            report_add(rep, RI_TEXT, "%s: %s", run_metric_group_name(g), line);
    }
}

/* What the instruments saw beside their metrics: the disk's name and
 * bytes, the dirty thresholds, the canary's ticks and editor saves. */
static void add_facts(struct report *rep, const json_t *m)
{
    const json_t *d = json_object_get(m, "disk"), *v = json_object_get(m, "vm"), *k = json_object_get(m, "canary");
    if (json_is_object(d)) {
        char rb[24], wb[24];
        units_format_bytes((unsigned long long)rj_num(d, "read_bytes", 0), rb, sizeof rb);
        units_format_bytes((unsigned long long)rj_num(d, "write_bytes", 0), wb, sizeof wb);
        report_add(rep, RI_TEXT, "disk %s: read %s, written %s", rj_str(d, "name", "?"), rb, wb);
    } else report_add(rep, RI_NOTE, "disk: no block device statistics (tmpfs or no device under the directory)");
    if (json_is_object(v))
        report_add(rep, RI_TEXT, "dirty pages: threshold %.0f, background %.0f pages, max %.0f writeback%s",
                   rj_num(v, "dirty_threshold_pages", 0), rj_num(v, "bg_threshold_pages", 0),
                   rj_num(v, "max_writeback_pages", 0),
                   !json_is_true(json_object_get(v, "buffered_writes")) ? " (no buffered writes)"
                   : json_is_true(json_object_get(v, "reached_threshold")) ? " (throttling zone reached)"
                                                                            : " (throttling zone NOT reached)");
    if (!json_is_object(k)) { report_add(rep, RI_NOTE, "stall canary: off for this run"); return; }
    report_add(rep, RI_TEXT, "stall canary: %.0f ticks", rj_num(k, "ticks", 0));
    const json_t *s = json_object_get(k, "editor_save");
    if (rj_num(s, "count", 0) > 0) {
        char mx[16], p99[16];
        fmt_ns(rj_num(s, "max_ns", 0), mx, sizeof mx);
        fmt_ns(rj_num(s, "p99_ns", 0), p99, sizeof p99);
        report_add(rep, RI_TEXT, "editor saves: %.0f (4 KiB write + fsync every 0.5 s), max %s, p99 %s; over 100 ms "
                   "%.0f, over 1 s %.0f", rj_num(s, "count", 0), mx, p99, rj_num(s, "over_100ms", 0),
                   rj_num(s, "over_1s", 0));
    }
}

static void add_phases(struct report *rep, const json_t *phases)
{
    for (size_t i = 0; i < json_array_size(phases); i++) {
        const json_t *p = json_array_get(phases, i);
        report_add(rep, RI_TEXT, "phase %s, %.0f thread(s): %.2f MB/s, %.0f IOPS, CPU %.1f %%, latency mean %.3f ms, "
                   "max %.3f ms, %.5f %% over 100 ms, %.5f %% over 1 s", rj_str(p, "name", "?"),
                   rj_num(p, "threads", 0), rj_num(p, "mb_s", 0), rj_num(p, "iops", 0), rj_num(p, "cpu_pct", 0),
                   rj_num(p, "lat_mean_ms", 0), rj_num(p, "lat_max_ms", 0), rj_num(p, "pct_over_100ms", 0),
                   rj_num(p, "pct_over_1s", 0));
    }
}

static void add_stall_flags(struct report *rep, const struct run_metrics *x, const json_t *m)
{
    /* each signal read from its own figure, so runs stored when PSI's flag
     * still set external_stall read the same */
    double over = x->canary_sleep_max_ns;
    if (json_is_true(json_object_get(m, "external_stall")) && over >= (double)PROBE_EXTERNAL_STALL_NS) {
        char sl[16];
        fmt_ns(over, sl, sizeof sl);
        report_add(rep, RI_WARN, "external stall: the canary's sleep overslept by %s (CPU starvation, a host pause or "
                   "reclaim): a search leaves this run out of its decisions", sl);
    }
    if (x->psi_full_pct >= PROBE_PSI_FULL_STALL_PCT)
        report_add(rep, RI_NOTE, "PSI io full %.0f%% of the run (the workload's own waits count here): a search shows "
                   "it and keeps the run", x->psi_full_pct);
}

static void add_metrics(struct report *rep, const struct run_detail *d, const json_t *m)
{
    report_add(rep, RI_HEAD, "Metrics");
    report_run_metrics(rep, &d->row.m);
    if (!m) return;
    char bytes[24];
    units_format_bytes((unsigned long long)rj_num(m, "bytes", 0), bytes, sizeof bytes);
    report_add(rep, RI_TEXT, "%s in %.0f I/Os after a %g s ramp%s", bytes, rj_num(m, "ios", 0), rj_num(m, "ramp_s", 0),
               json_is_true(json_object_get(m, "cold")) ? ", caches dropped first (cold)" : "");
    json_t *ops = json_object_get(m, "ops");
    for (void *it = json_object_iter(ops); it; it = json_object_iter_next(ops, it))
        add_op(rep, json_object_iter_key(it), json_object_iter_value(it));
    add_facts(rep, m);
    add_stall_flags(rep, &d->row.m, m);
    add_phases(rep, json_object_get(m, "phases"));
}

static void add_notes(struct report *rep, const struct run_detail *d)
{
    report_add(rep, RI_HEAD, "Notes");
    if (d->row.note[0]) report_add(rep, RI_TEXT, "%s", d->row.note);
    else report_add(rep, RI_NOTE, "none");
    if (d->row.reached_threshold == 0)
        report_add(rep, RI_WARN, "the run dirtied the page cache but never reached the throttling zone: the dirty "
                   "limits were not exercised");
}

/* The whole report of a run already loaded: reads d alone. */
static void render(const struct run_detail *d, struct report *rep)
{
    json_error_t je;
    json_t *m = d->metrics_json ? json_loads(d->metrics_json, 0, &je) : NULL;
    if (m && !json_is_object(m)) { json_decref(m); m = NULL; }
    add_header(rep, d);
    if (!m) report_add(rep, RI_WARN, "the stored metrics are %s: only the list's figures are shown",
                       d->metrics_json ? "unreadable (not a JSON object)" : "missing");
    if (m) add_spec(rep, m);
    add_knobs(rep, d);
    add_metrics(rep, d, m);
    add_notes(rep, d);
    report_add(rep, RI_HEAD, "Charts");
    report_run_charts(rep, d, m);
    json_decref(m);
}

int report_run(struct store *st, const char *uuid_prefix, struct report *rep, sl_err *e)
{
    struct run_detail d;
    memset(rep, 0, sizeof *rep);
    if (store_run_detail(st, uuid_prefix, &d, e) < 0) return -1;   /* the one read */
    render(&d, rep);
    store_run_detail_free(&d);
    return 0;
}
