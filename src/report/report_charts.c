/* report_charts — a run's charts from what the store kept: the series JSON
 * (t_ms, mb_s, nr_dirty, nr_writeback every 100 ms), the histogram blob
 * (per op, fio's log-linear buckets, folded here into powers of two) and
 * the canary's counters. Each chart that cannot be drawn says why. */
#include "report/report_internal.h"
#include "probe/probe.h"
#include "probe/probe_store.h"
#include "db/store_run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The stored series checked: one array per name, all of the same length,
 * numbers only. NULL with why filled when it is not so. */
static const char *const series_names[] = { "t_ms", "mb_s", "nr_dirty", "nr_writeback" };
#define NSERIES_NAMES 4

static json_t *load_series(const char *text, const json_t *arr[NSERIES_NAMES], char *why, size_t n)
{
    if (!text) {
        snprintf(why, n, "no time series stored for this run (a database from an older sluice, or merged without it)");
        return NULL;
    }
    json_error_t je;
    json_t *s = json_loads(text, 0, &je);
    if (!json_is_object(s)) {
        snprintf(why, n, "the stored time series is malformed (%s)", s ? "not a JSON object" : je.text);
        json_decref(s);
        return NULL;
    }
    for (int k = 0; k < NSERIES_NAMES; k++) {
        arr[k] = json_object_get(s, series_names[k]);
        if (!json_is_array(arr[k]) || json_array_size(arr[k]) != json_array_size(arr[0])) {
            snprintf(why, n, "the stored time series is malformed (\"%s\" is missing or of another length)",
                     series_names[k]);
            json_decref(s);
            return NULL;
        }
        for (size_t i = 0; i < json_array_size(arr[k]); i++)
            if (!json_is_number(json_array_get(arr[k], i))) {
                snprintf(why, n, "the stored time series is malformed (\"%s\" holds a non-number at %zu)",
                         series_names[k], i);
                json_decref(s);
                return NULL;
            }
    }
    if (json_array_size(arr[0]) == 0) {
        snprintf(why, n, "the stored time series has no samples (the run ended before the first 100 ms)");
        json_decref(s);
        return NULL;
    }
    return s;
}

static void fill_series(struct report_chart *c, int s, const json_t *a)
{
    for (int i = 0; i < c->n; i++) c->series[s].y[i] = json_number_value(json_array_get(a, (size_t)i));
}

static void series_charts(struct report *rep, const struct run_detail *d, const json_t *m)
{
    const json_t *arr[NSERIES_NAMES];
    char why[256];
    json_t *s = load_series(d->series_json, arr, why, sizeof why);
    int n = s ? (int)json_array_size(arr[0]) : 0;
    struct report_chart *mbs = report_chart_lines(rep, "mbs", "Throughput over time", n, 1);
    struct report_chart *dirty = report_chart_lines(rep, "dirty", "Dirty and writeback pages over time", n, 2);
    snprintf(mbs->x_unit, sizeof mbs->x_unit, "s");
    snprintf(mbs->y_unit, sizeof mbs->y_unit, "MB/s");
    snprintf(mbs->series[0].label, sizeof mbs->series[0].label, "throughput");
    snprintf(dirty->x_unit, sizeof dirty->x_unit, "s");
    snprintf(dirty->y_unit, sizeof dirty->y_unit, "pages");
    snprintf(dirty->series[0].label, sizeof dirty->series[0].label, "nr_dirty");
    snprintf(dirty->series[1].label, sizeof dirty->series[1].label, "nr_writeback");
    if (!s) {
        report_chart_missing(mbs, "%s", why);
        report_chart_missing(dirty, "%s", why);
        return;
    }
    for (int i = 0; i < n; i++) mbs->x[i] = dirty->x[i] = json_number_value(json_array_get(arr[0], (size_t)i)) / 1000;
    fill_series(mbs, 0, arr[1]);
    fill_series(dirty, 0, arr[2]);
    fill_series(dirty, 1, arr[3]);
    json_decref(s);
    const json_t *vm = json_object_get(m, "vm");
    double thr = rj_num(vm, "dirty_threshold_pages", 0), bg = rj_num(vm, "bg_threshold_pages", 0);
    if (thr > 0) {
        dirty->marks[dirty->nmarks++] = (struct report_mark){ "dirty threshold", "dirty", thr };
        dirty->marks[dirty->nmarks++] = (struct report_mark){ "background threshold", "bg", bg };
    }
}

/* Bars of one histogram folded into powers of two of ns, from the lowest
 * to the highest with samples (empty ones between are kept: gaps show). */
static void latency_chart(struct report *rep, const struct hist *h, const char *op)
{
    char title[128];
    snprintf(title, sizeof title, "Latency of %s: %llu I/Os in powers of two", op, (unsigned long long)h->n);
    double count[64] = { 0 };
    int lo = 64, hi = -1;
    for (unsigned i = 0; i < HIST_NR; i++) {
        if (!h->bucket[i]) continue;
        uint64_t v = hist_value(i);
        int b = v ? 63 - __builtin_clzll(v) : 0;
        count[b] += (double)h->bucket[i];
        if (b < lo) lo = b;
        if (b > hi) hi = b;
    }
    struct report_chart *c = report_chart_bars(rep, "latency", title, hi >= lo ? hi - lo + 1 : 0);
    snprintf(c->x_unit, sizeof c->x_unit, "from");
    snprintf(c->y_unit, sizeof c->y_unit, "I/Os");
    snprintf(c->measure, sizeof c->measure, "Latency of %s in powers of two", op);
    snprintf(c->counted, sizeof c->counted, "%llu I/Os", (unsigned long long)h->n);
    for (int b = lo; b <= hi; b++) {
        probe_format_ns(ldexp(1, b), c->bar_label[b - lo], sizeof c->bar_label[0]);
        c->bar[b - lo] = count[b];
        c->bar_at[b - lo] = ldexp(1, b);
    }
}

static void latency_charts(struct report *rep, const struct run_detail *d)
{
    if (!d->hist) {
        struct report_chart *c = report_chart_bars(rep, "latency", "Latency histogram", 0);
        report_chart_missing(c, "no latency histogram stored for this run (%s)",
                             isnan(d->row.m.lat_p99_ns) ? "it did no I/O" : "a database from an older sluice, or merged "
                                                                     "without it");
        return;
    }
    struct probe_result *r = probe_result_new();
    if (probe_hist_decode(d->hist, d->hist_len, r) < 0) {
        struct report_chart *c = report_chart_bars(rep, "latency", "Latency histogram", 0);
        report_chart_missing(c, "the stored latency histogram is malformed (%zu bytes that are not per-op SLH1 "
                             "histograms)", d->hist_len);
    } else {
        for (int op = 0; op < PROBE_OP_NR; op++)
            if (r->op[op].hist.n) latency_chart(rep, &r->op[op].hist, probe_op_name(op));
    }
    probe_result_free(r);
}

static void canary_chart(struct report *rep, const json_t *m)
{
    const json_t *k = json_object_get(m, "canary"), *s = json_object_get(k, "editor_save");
    bool saves = rj_num(s, "count", 0) > 0;
    struct report_chart *c = report_chart_bars(rep, "canary", "Canary stalls", json_is_object(k) ? (saves ? 5 : 3) : 0);
    snprintf(c->y_unit, sizeof c->y_unit, "stalls");
    snprintf(c->measure, sizeof c->measure, "Canary stalls");
    if (!m) { report_chart_missing(c, "the stored metrics are unreadable, and the canary's counts with them"); return; }
    if (!json_is_object(k)) { report_chart_missing(c, "the stall canary was off for this run"); return; }
    static const char *const labels[] = { "tick > 100 ms", "tick > 1 s", "tick > 2 s", "save > 100 ms", "save > 1 s" };
    const double v[] = { rj_num(k, "over_100ms", 0), rj_num(k, "over_1s", 0), rj_num(k, "over_2s", 0),
                         rj_num(s, "over_100ms", 0), rj_num(s, "over_1s", 0) };
    for (int i = 0; i < c->nbars; i++) {
        snprintf(c->bar_label[i], sizeof c->bar_label[0], "%s", labels[i]);
        c->bar[i] = v[i];
    }
    snprintf(c->title, sizeof c->title, "Canary stalls in %.0f ticks of 100 ms%s", rj_num(k, "ticks", 0),
             saves ? " and the editor saves" : "");
    snprintf(c->counted, sizeof c->counted, "%.0f ticks%s", rj_num(k, "ticks", 0), saves ? " and saves" : "");
}

void report_run_charts(struct report *rep, const struct run_detail *d, const json_t *m)
{
    series_charts(rep, d, m);
    latency_charts(rep, d);
    canary_chart(rep, m);
}
