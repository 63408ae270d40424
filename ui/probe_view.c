/* probe_view — the Probe screen while and after it runs: progress, a live
 * MB/s graph, dirty memory, one row per stored repetition, the latency
 * histogram and canary stalls of the last one. Everything here reads the
 * probe's published counters or finished results; nothing waits. */
#include "ui/app.h"
#include "core/vmstat.h"
#include "report/chart.h"
#include "report/report_run.h"
#include "ui/probe_screen.h"
#include "core/sysfs.h"
#include "core/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HIST_ROWS 6

void probe_view_take_live(struct probe_scr *ps)
{
    /* The copy is 17 KiB under the probe's lock: only when it changed. */
    pthread_mutex_lock(&ps->live.mu);
    bool newer = ps->live.seq != ps->live_seq;
    pthread_mutex_unlock(&ps->live.mu);
    if (newer) ps->live_seq = probe_live_copy(&ps->live, &ps->live_lat, &ps->live_rep);
}

void probe_view_sample(struct probe_scr *ps)
{
    probe_view_take_live(ps);
    int st = atomic_load(&ps->pg.state);
    if (st != PROBE_RAMP && st != PROBE_MEASURE && st != PROBE_FLUSH) return;
    if (ps->nseries == PROBE_UI_SERIES) {
        memmove(ps->mb_s, ps->mb_s + 1, sizeof ps->mb_s[0] * (PROBE_UI_SERIES - 1));
        memmove(ps->dirty_mb, ps->dirty_mb + 1, sizeof ps->dirty_mb[0] * (PROBE_UI_SERIES - 1));
        ps->nseries--;
    }
    ps->mb_s[ps->nseries] = (double)atomic_load(&ps->pg.mb_s_milli) / 1000;
    struct vmstat host;
    uint64_t dirty = atomic_load(&ps->pg.nr_dirty);
    if (ps->meter_host) dirty = vmstat_read_host(&host) == 0 ? host.nr_dirty : 0;
    ps->dirty_mb[ps->nseries] = (double)dirty * (double)sysconf(_SC_PAGESIZE) / 1e6;
    ps->nseries++;
}

static void draw_progress(struct probe_scr *ps, struct rect r)
{
    bool running = job_running(&ps->job);
    int x = draw_fmt(r.y, r.x, r.w, ROLE_HEADER, "%s  ", ps->spec.workload);
    if (!running) {
        draw_text(r.y, r.x + x, r.w - x, ps->job.rc == 0 && !ps->cancelled ? ROLE_OK : ps->cancelled ? ROLE_WARN : ROLE_ERROR,
                  ps->outcome[0] ? ps->outcome : "finishing");
        return;
    }
    int st = atomic_load(&ps->pg.state);
    double el = (double)atomic_load(&ps->pg.elapsed_ms) / 1000, tot = (double)atomic_load(&ps->pg.total_ms) / 1000;
    char bar[256];
    int bw = r.w - x - 60 > 10 ? r.w - x - 60 : 10;
    chart_bar(tot > 0 ? el / tot : 0, bw, term_glyphs()->utf8, bar, sizeof bar);
    x += draw_fmt(r.y, r.x + x, r.w - x, ROLE_NORMAL, "run %d/%d  %-20s ", atomic_load(&ps->pg.rep) + 1,
                  atomic_load(&ps->pg.reps), probe_state_name(st));
    x += draw_text(r.y, r.x + x, bw, ROLE_GRAPH, bar);
    if (st == PROBE_FLUSH) {
        /* the writes are done; the timed fsync waits for what is still dirty */
        double left_mb = (double)(atomic_load(&ps->pg.nr_dirty) + atomic_load(&ps->pg.nr_writeback)) *
                         (double)sysconf(_SC_PAGESIZE) / 1e6;
        draw_fmt(r.y, r.x + x, r.w - x, ROLE_WARN, " %.1f s  flushing: %.1f MB to write back%s", el, left_mb,
                 ps->cancelled ? "  cancelling" : "");
        return;
    }
    if (st == PROBE_QUIET) {
        draw_fmt(r.y, r.x + x, r.w - x, ROLE_NORMAL, " %.1f of %.1f s without I/O%s", el, tot,
                 ps->cancelled ? "  cancelling" : "");
        return;
    }
    draw_fmt(r.y, r.x + x, r.w - x, ROLE_NORMAL, " %.1f/%.1f s  %.1f MB/s%s", el, tot,
             (double)atomic_load(&ps->pg.mb_s_milli) / 1000, ps->cancelled ? "  cancelling" : "");
}

/* While it runs, the graph shows what the UI sampled from the progress
 * counters; once it is over, the last repetition's own stored series, so
 * what stays on screen is what the database holds. */
static void series_of_last(struct probe_scr *ps)
{
    pthread_mutex_lock(&ps->lock);
    const struct probe_result *res = ps->nres ? ps->res[ps->nres - 1] : NULL;
    if (res) {
        const struct probe_series *se = &res->series;
        int first = se->n > PROBE_UI_SERIES ? se->n - PROBE_UI_SERIES : 0;
        ps->nseries = 0;
        for (int i = first; i < se->n; i++) {
            ps->mb_s[ps->nseries] = se->mb_s[i];
            /* the stored dirty pages are the root's: keep what this host's meter showed */
            if (!ps->meter_host) ps->dirty_mb[ps->nseries] = (double)se->nr_dirty[i] * (double)sysconf(_SC_PAGESIZE) / 1e6;
            ps->nseries++;
        }
    }
    pthread_mutex_unlock(&ps->lock);
}

/* MB/s over time: a braille (or ASCII) line graph with its scale. */
static void draw_graph(struct probe_scr *ps, struct rect r)
{
    double hi = 0;
    for (int i = 0; i < ps->nseries; i++) if (ps->mb_s[i] > hi) hi = ps->mb_s[i];
    hi = chart_nice_max(hi);
    int gw = r.w - 10, gh = r.h;
    char rows[16][2048];
    if (gh > 16) gh = 16;
    chart_lines(ps->mb_s, ps->nseries, 0, hi, gw, gh, term_glyphs()->utf8, &rows[0][0], sizeof rows[0]);
    for (int i = 0; i < gh; i++) {
        if (i == 0) draw_fmt(r.y, r.x, 9, ROLE_DIM, "%7.0f", hi);
        else if (i == gh - 1) draw_fmt(r.y + i, r.x, 9, ROLE_DIM, "%7s", "0 MB/s");
        draw_text(r.y + i, r.x + 9, 1, ROLE_DIM, term_glyphs()->vline);
        draw_text(r.y + i, r.x + 10, gw, ROLE_GRAPH, rows[i]);
    }
    if (ps->nseries == 0)
        draw_text(r.y + gh / 2, r.x + 12, gw - 2, ROLE_DIM, job_running(&ps->job) ? "(the graph fills while the probe ramps and measures)"
                                                                                : "(no time series: the run was shorter than a 100 ms sample)");
}

/* Dirty memory as the probe read it from ROOT/proc/vmstat, or under a test
 * root with the probe writing into a real directory, from this host's
 * /proc/vmstat (the page cache its writes fill). Otherwise, under a test
 * root, the fixture's file: the meter says so rather than pass for a
 * measurement. */
static void draw_dirty(struct probe_scr *ps, struct rect r)
{
    const char *fixture_note = ps->meter_host ? "  this host's /proc/vmstat: the directory is real"
                               : strcmp(ps->spec.workload, "null") == 0 ? "  test root's vmstat: null writes nothing"
                                                                        : "  the test root's vmstat, not this host's";
    char spark[PROBE_UI_SERIES * 4];
    double hi = 0;
    for (int i = 0; i < ps->nseries; i++) if (ps->dirty_mb[i] > hi) hi = ps->dirty_mb[i];
    int x = draw_fmt(r.y, r.x, r.w, ROLE_NORMAL, "dirty %8.1f MB ", ps->nseries ? ps->dirty_mb[ps->nseries - 1] : 0.0);
    int note = sysfs_is_real_root() ? 0 : draw_cells(fixture_note);
    chart_spark(ps->dirty_mb, ps->nseries, 0, chart_nice_max(hi), r.w - x - 2 - note, term_glyphs()->utf8, spark,
                sizeof spark);
    x += draw_text(r.y, r.x + x, r.w - x - note, ROLE_GRAPH, spark);
    if (note) draw_text(r.y, r.x + x, r.w - x, ROLE_DIM, fixture_note);
}

static void fmt_ns(uint64_t ns, char *buf, size_t n) { probe_format_ns((double)ns, buf, n); }

static void results_table(struct probe_scr *ps, struct textview *tv, int width)
{
    tv_line(tv, false, -1);
    static const char *const heads[] = { "RUN", "STATUS", "MB/S", "IOPS", "P50", "P99", "MAX", "CANARY MAX", ">100ms" };
    static const int widths[] = { 4, 8, 9, 9, 10, 10, 10, 11, 6 };
    for (int c = 0; c < 9; c++) tv_cell(tv, ROLE_HEADER, widths[c], heads[c]);
    pthread_mutex_lock(&ps->lock);
    double sum = 0, lo = 0, hi = 0;
    int ok = 0;
    for (int i = 0; i < ps->nres; i++) {
        const struct probe_result *res = ps->res[i];
        /* the run's metrics as the table has them ("-" when not measured) */
        static const int shown[] = { RM_lat_p50_ns, RM_lat_p99_ns, RM_lat_max_ns, RM_canary_max_ns, RM_stalls_100ms };
        char c[9][32];
        snprintf(c[0], 32, "%d", res->rep + 1);
        snprintf(c[1], 32, "%s", probe_status_name(res->status));
        snprintf(c[2], 32, "%.1f", res->m.mb_s);
        snprintf(c[3], 32, "%.0f", res->m.iops);
        for (int k = 0; k < 5; k++) run_metric_text(shown[k], run_metric_get(&res->m, shown[k]), c[4 + k], 32);
        tv_line(tv, false, i);
        bool good = res->status == PROBE_OK || res->status == PROBE_WARM;
        for (int k = 0; k < 9; k++) tv_cell(tv, k == 1 && !good ? ROLE_ERROR : ROLE_NORMAL, widths[k], c[k]);
        if (good) {
            if (ok == 0 || res->mb_s < lo) lo = res->mb_s;
            if (ok == 0 || res->mb_s > hi) hi = res->mb_s;
            sum += res->mb_s;
            ok++;
        }
        if (res->note[0]) {
            char lines[4][256], note[1100];
            snprintf(note, sizeof note, "note: %s", res->note);
            int n = draw_wrap(note, width - 5, lines, 4);
            for (int k = 0; k < n; k++) {
                tv_line(tv, false, -1);
                tv_add(tv, ROLE_DIM, "     %s", lines[k]);
            }
        }
    }
    if (ok > 1) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_NORMAL, "%d runs: MB/s mean %.1f, min %.1f, max %.1f (range %.1f%% of the mean)", ok, sum / ok, lo, hi,
               sum > 0 ? 100 * (hi - lo) / (sum / ok) : 0);
    }
    pthread_mutex_unlock(&ps->lock);
}

/* A latency distribution in a few log-spaced rows (each one or more
 * powers of two). */
static void hist_rows(struct textview *tv, const struct hist *h, int width)
{
    int lo = h->min_ns ? 63 - __builtin_clzll(h->min_ns) : 0, top = 63 - __builtin_clzll(h->max_ns | 1) + 1;
    int span = top - lo, step = (span + HIST_ROWS - 1) / HIST_ROWS;
    if (step < 1) step = 1;
    for (int e = lo; e < top; e += step) {
        uint64_t from = 1ull << e, to = e + step >= 64 ? UINT64_MAX : 1ull << (e + step), cnt = 0;
        for (unsigned i = 0; i < HIST_NR; i++)
            if (h->bucket[i]) {
                uint64_t v = hist_value(i);
                if (v >= from && v < to) cnt += h->bucket[i];
            }
        char a[32], b[32], bar[512];
        fmt_ns(from, a, sizeof a);
        fmt_ns(to, b, sizeof b);
        double frac = (double)cnt / (double)h->n;
        chart_bar(frac, width - 36 > 10 ? width - 36 : 10, term_glyphs()->utf8, bar, sizeof bar);
        tv_line(tv, false, -1);
        char range[64];
        snprintf(range, sizeof range, "%s - %s", a, b);
        tv_cell(tv, ROLE_NORMAL, 22, range);
        tv_add(tv, ROLE_GRAPH, "%s", bar);
        tv_add(tv, ROLE_NORMAL, " %5.1f%%", 100 * frac);
    }
}

static void add_report_line(void *arg, enum report_item_kind kind, const char *ref, const char *line)
{
    struct textview *tv = arg;
    tv_line(tv, false, -1);
    tv_add(tv, kind == RI_HEAD ? ROLE_HEADER : kind == RI_WARN ? ROLE_WARN : ROLE_NORMAL, "%s", line);
}

/* The latency histogram of the repetition running (as the probe last
 * published it) or, once over, of the last one; and the canary's stalls
 * while it runs (its live counters), the metrics after. */
static void latency_histogram(struct probe_scr *ps, struct textview *tv, int width)
{
    bool running = job_running(&ps->job);
    const struct hist *h = &ps->live_lat;
    if (ps->live_seq && h->n) {
        tv_line(tv, false, -1);
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_HEADER, "Latency of run %d%s (%llu reads and writes)", ps->live_rep + 1, running ? " so far" : "",
               (unsigned long long)h->n);
        hist_rows(tv, h, width);
    }
    if (running) {
        if (!ps->spec.canary) return;
        const struct probe_live *l = &ps->live;
        char mx[32];
        fmt_ns(atomic_load(&l->canary_max_ns), mx, sizeof mx);
        unsigned long long over = atomic_load(&l->canary_over_100ms);
        tv_line(tv, false, -1);
        tv_add(tv, over ? ROLE_WARN : ROLE_NORMAL, "Canary so far: %llu ticks, stall max %s; >100 ms %llu, >1 s %llu, >2 s %llu",
               (unsigned long long)atomic_load(&l->canary_ticks), mx, over, (unsigned long long)atomic_load(&l->canary_over_1s),
               (unsigned long long)atomic_load(&l->canary_over_2s));
        return;
    }
    /* once over, the last repetition's metrics as its stored run's report
     * says them (report_run_metrics: the same lines) */
    struct report rep;
    memset(&rep, 0, sizeof rep);
    pthread_mutex_lock(&ps->lock);
    const struct probe_result *res = ps->nres ? ps->res[ps->nres - 1] : NULL;
    if (res) {
        report_add(&rep, RI_HEAD, "Run %d", res->rep + 1);
        report_run_metrics(&rep, &res->m);
    }
    pthread_mutex_unlock(&ps->lock);
    if (res) {
        tv_line(tv, false, -1);
        report_text(&rep, width, term_glyphs()->utf8, add_report_line, tv);
    }
    report_free(&rep);
}

/* The last repetition's report in its workload's own words, where the
 * workload writes one (dbench: each operation's count and latency, its
 * throughput and the loadfile it replayed), as `sluice probe` prints it. */
static void own_report(struct probe_scr *ps, struct textview *tv)
{
    char *text = NULL;
    size_t len = 0;
    pthread_mutex_lock(&ps->lock);
    const struct probe_result *res = ps->nres ? ps->res[ps->nres - 1] : NULL;
    int rep = res ? res->rep : 0;
    FILE *f = res ? open_memstream(&text, &len) : NULL;
    bool any = f && probe_result_print_own(res, f);
    pthread_mutex_unlock(&ps->lock);
    if (f && fclose(f) == 0 && any) {
        tv_line(tv, false, -1);
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_HEADER, "Run %d as %s reports it", rep + 1, ps->spec.workload);
        for (char *save, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            tv_line(tv, false, -1);
            tv_add(tv, ROLE_NORMAL, "%s", line);
        }
    }
    free(text);
}

void probe_view_draw(struct probe_scr *ps, struct rect r)
{
    if (!job_running(&ps->job)) series_of_last(ps);
    draw_progress(ps, (struct rect){ r.y, r.x, 1, r.w });
    int gh = r.h >= 30 ? 8 : 5;
    draw_graph(ps, (struct rect){ r.y + 1, r.x, gh, r.w });
    draw_dirty(ps, (struct rect){ r.y + 1 + gh, r.x, 1, r.w });
    tv_clear(&ps->tv);
    results_table(ps, &ps->tv, r.w);
    latency_histogram(ps, &ps->tv, r.w);
    own_report(ps, &ps->tv);
    tv_draw(&ps->tv, (struct rect){ r.y + 2 + gh, r.x, r.h - 2 - gh, r.w });
}
