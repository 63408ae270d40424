/* report_compare — two stored runs side by side, "A..B": each side is the
 * run's batch of repetitions; they are judged with the compare core
 * (src/search/compare.c: the same sides, work check, statistics and words
 * as 'sluice compare'), the interval and its basis stated, and the runs'
 * charts drawn over one another (one chart per measure, A's and B's series
 * or bars on one scale). Runs of different work are refused as compare refuses
 * them: nothing judged, nothing charted. */
#include "report/report_internal.h"
#include "report/report_compare.h"
#include "search/compare.h"
#include "search/objective.h"
#include "search/verdict.h"
#include "db/store_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_MAX 64

struct side_runs {
    char uuid[37], batch[37], workload[32], config_hash[65];
    char (*uuids)[37];
    int n;
};

/* The run whose UUID starts with prefix and the runs of its batch. */
static int find_side(const struct run_row *rows, int nrows, const char *prefix, struct side_runs *s, sl_err *e)
{
    int at = -1, hits = 0;
    for (int i = 0; i < nrows; i++)
        if (strncmp(rows[i].uuid, prefix, strlen(prefix)) == 0) { at = i; hits++; }
    if (hits == 0) return sl_fail(e, SL_EUSAGE, "no run %s (see 'sluice history')", prefix);
    if (hits > 1) return sl_fail(e, SL_EUSAGE, "run id %s is ambiguous: give more of its UUID", prefix);
    const struct run_row *r = &rows[at];
    snprintf(s->uuid, sizeof s->uuid, "%s", r->uuid);
    snprintf(s->batch, sizeof s->batch, "%s", r->batch);
    snprintf(s->workload, sizeof s->workload, "%s", r->workload);
    snprintf(s->config_hash, sizeof s->config_hash, "%s", r->config_hash);
    s->uuids = xcalloc(BATCH_MAX, sizeof *s->uuids);
    snprintf(s->uuids[s->n++], sizeof s->uuids[0], "%s", r->uuid);
    for (int i = 0; i < nrows && s->n < BATCH_MAX && r->batch[0]; i++)
        if (i != at && strcmp(rows[i].batch, r->batch) == 0) snprintf(s->uuids[s->n++], sizeof s->uuids[0], "%s", rows[i].uuid);
    return 0;
}

static const struct report_chart *chart_of(const struct report *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (r->items[i].kind == RI_CHART && strcmp(r->items[i].chart->id, id) == 0) return r->items[i].chart;
    return NULL;
}

/* What keeps A's (why_a) or B's (why_b, "" when drawn) chart from being drawn, on c. */
static bool both_missing(struct report_chart *c, const char *why_a, const char *why_b)
{
    if (!why_a[0] && !why_b[0]) return false;
    report_chart_missing(c, "%s%s%s%s%s", why_a[0] ? "A: " : "", why_a, why_a[0] && why_b[0] ? "; " : "",
                         why_b[0] ? "B: " : "", why_b);
    return true;
}

/* A's and B's line charts of one measure as one chart: every series of
 * each, prefixed A/B, over the longer time axis (a side that ended sooner
 * reads 0 after its end); A's thresholds. */
static void overlay_lines(struct report *rep, const struct report *ra, const struct report *rb, const char *id)
{
    const struct report_chart *ca = chart_of(ra, id), *cb = chart_of(rb, id);
    if (!ca || !cb) return;
    const struct report_chart *longer = ca->n >= cb->n ? ca : cb;
    int ns = ca->nseries + cb->nseries;
    char title[128];
    snprintf(title, sizeof title, "%s, A and B", ca->title);
    struct report_chart *c = report_chart_lines(rep, id, title, longer->n, ns);
    c->overlay = true;
    snprintf(c->x_unit, sizeof c->x_unit, "%s", ca->x_unit);
    snprintf(c->y_unit, sizeof c->y_unit, "%s", ca->y_unit);
    if (both_missing(c, ca->missing, cb->missing)) return;
    memcpy(c->x, longer->x, sizeof *c->x * (size_t)longer->n);
    int s = 0;
    for (int side = 0; side < 2; side++) {
        const struct report_chart *src = side ? cb : ca;
        for (int k = 0; k < src->nseries && s < c->nseries; k++, s++) {
            snprintf(c->series[s].label, sizeof c->series[s].label, "%s %.40s", side ? "B" : "A", src->series[k].label);
            memcpy(c->series[s].y, src->series[k].y, sizeof(double) * (size_t)src->n);
        }
    }
    for (int m = 0; m < ca->nmarks; m++) {
        c->marks[c->nmarks] = ca->marks[m];
        snprintf(c->marks[c->nmarks].label, sizeof c->marks[0].label, "A's %.40s", ca->marks[m].label);
        c->nmarks++;
    }
}

/* The chart of id in r whose measure is measure (NULL: none). */
static const struct report_chart *bars_of(const struct report *r, const char *id, const char *measure)
{
    for (int i = 0; i < r->n; i++) {
        const struct report_chart *c = r->items[i].kind == RI_CHART ? r->items[i].chart : NULL;
        if (c && strcmp(c->id, id) == 0 && strcmp(c->measure, measure) == 0) return c;
    }
    return NULL;
}

/* One measure's bars of A (ca) and B (cb, either may be NULL: that run
 * has none) as one chart: a set each, over the buckets of both in order
 * of where they stand; a bucket one run lacks is 0 in it. */
static void pair_bars(struct report *rep, const struct report_chart *ca, const struct report_chart *cb, const char *id)
{
    const struct report_chart *side[2] = { ca, cb }, *any = ca ? ca : cb;
    int na = ca ? ca->nbars : 0, nb = cb ? cb->nbars : 0, nk = 0;
    double *at = xcalloc((size_t)(na + nb) + 1, sizeof *at);
    for (int k = 0; k < 2; k++)   /* the union of the places, ascending (insertion: a few dozen buckets) */
        for (int i = 0; side[k] && i < side[k]->nbars; i++) {
            double x = side[k]->bar_at[i];
            int j = 0;
            while (j < nk && at[j] < x) j++;
            if (j < nk && at[j] == x) continue;
            memmove(at + j + 1, at + j, sizeof *at * (size_t)(nk - j));
            at[j] = x;
            nk++;
        }
    char title[128];
    snprintf(title, sizeof title, "%s, A and B", any->measure);
    struct report_chart *c = report_chart_bars_overlay(rep, id, title, nk, 2);
    snprintf(c->measure, sizeof c->measure, "%s", any->measure);
    snprintf(c->x_unit, sizeof c->x_unit, "%s", any->x_unit);
    snprintf(c->y_unit, sizeof c->y_unit, "%s", any->y_unit);
    memcpy(c->bar_at, at, sizeof *at * (size_t)nk);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; side[k] && i < side[k]->nbars; i++) {
            int j = 0;
            while (j < nk && at[j] != side[k]->bar_at[i]) j++;
            snprintf(c->bar_label[j], sizeof c->bar_label[0], "%s", side[k]->bar_label[i]);
            c->series[k].y[j] = side[k]->bar[i];
        }
        snprintf(c->series[k].label, sizeof c->series[k].label, "%s: %s", k ? "B" : "A",
                 side[k] ? side[k]->counted : "none");
    }
    free(at);
}

/* A's and B's bar charts of id overlaid, one chart a measure (A's
 * measures in their order, then those only B has). */
static void overlay_bars(struct report *rep, const struct report *ra, const struct report *rb, const char *id)
{
    const struct report_chart *why[2] = { NULL, NULL };   /* a run's chart saying why it cannot be drawn */
    for (int k = 0; k < 2; k++) {
        const struct report *r = k ? rb : ra;
        for (int i = 0; i < r->n && !why[k]; i++) {
            const struct report_chart *src = r->items[i].kind == RI_CHART ? r->items[i].chart : NULL;
            if (src && strcmp(src->id, id) == 0 && src->missing[0]) why[k] = src;
        }
    }
    if (why[0] || why[1]) {
        char title[160];
        snprintf(title, sizeof title, "%s, A and B", (why[0] ? why[0] : why[1])->title);
        both_missing(report_chart_bars(rep, id, title, 0), why[0] ? why[0]->missing : "", why[1] ? why[1]->missing : "");
        return;
    }
    for (int k = 0; k < 2; k++) {
        const struct report *r = k ? rb : ra;
        for (int i = 0; i < r->n; i++) {
            const struct report_chart *src = r->items[i].kind == RI_CHART ? r->items[i].chart : NULL;
            if (!src || strcmp(src->id, id) != 0 || (k && bars_of(ra, id, src->measure))) continue;
            pair_bars(rep, k ? NULL : src, k ? src : bars_of(rb, id, src->measure), id);
        }
    }
}

static void add_charts(struct report *rep, struct store *st, const char *a, const char *b)
{
    struct report ra, rb;
    sl_err e;
    bool oka = report_run(st, a, &ra, &e) == 0, okb = report_run(st, b, &rb, &e) == 0;
    report_add(rep, RI_HEAD, "Charts (A's run and B's run on one scale)");
    if (oka && okb) {
        overlay_lines(rep, &ra, &rb, "mbs");
        overlay_lines(rep, &ra, &rb, "dirty");
        overlay_bars(rep, &ra, &rb, "latency");
        overlay_bars(rep, &ra, &rb, "canary");
    } else {
        report_add(rep, RI_WARN, "the runs' charts cannot be read: %s", e.msg);
    }
    if (oka) report_free(&ra);
    if (okb) report_free(&rb);
}

/* METRIC, A, B, CHANGE, the interval, VERDICT */
#define EFFECT_COLUMNS 6

/* A row of the side-effects table ("  reader_p99  0.47 ms  ...": columns
 * two blanks apart or more, none inside a cell) as cells split by tabs;
 * the count of cells. */
static int table_cells(const char *line, char *buf, size_t n)
{
    size_t len = 0;
    int cells = 0;
    const char *p = line + strspn(line, " ");
    while (*p && len + 2 < n) {
        const char *gap = strstr(p, "  ");
        size_t k = gap ? (size_t)(gap - p) : strlen(p);
        len += (size_t)snprintf(buf + len, n - len, "%s%.*s", cells ? "\t" : "", (int)k, p);
        cells++;
        p += k;
        p += strspn(p, " ");
    }
    return cells;
}

/* A line of the comparison's verdict card as a report item: the sentence
 * first and prominent, the side-effects table's heading wrapped, its rows
 * a table (aligned in text to fit 80 columns, a <table> in HTML; kept
 * as they are when a cell holds two blanks). */
static void card_item(void *arg, enum verdict_line_kind kind, const char *line)
{
    struct report *rep = arg;
    char cells[1024];
    if (kind == VL_TABLE && line[0] == ' ') {
        bool head = strncmp(line, "  METRIC ", 9) == 0;
        if (table_cells(line, cells, sizeof cells) == EFFECT_COLUMNS) report_add(rep, head ? RI_ROWHEAD : RI_ROW, "%s", cells);
        else report_add(rep, RI_PRE, "%s", line);
        return;
    }
    report_add_card_line(rep, kind, line, RI_NOTE, RI_TEXT);
}

#define HIST_BINS 8

/* The objective's measure of every run of A and of B, in the order
 * measured, over one axis: a side with fewer runs ends sooner. */
static void runs_chart(struct report *rep, const struct compare_side *a, const struct compare_side *b, int metric)
{
    const struct compare_side *side[2] = { a, b };
    int n = a->n > b->n ? a->n : b->n;
    char title[128];
    snprintf(title, sizeof title, "%s of each run, A and B", metric_table[metric].name);
    struct report_chart *c = report_chart_lines(rep, "runs", title, n, 2);
    c->overlay = true;
    c->x_whole = true;
    snprintf(c->x_unit, sizeof c->x_unit, "run");
    snprintf(c->y_unit, sizeof c->y_unit, "%s", metric_table[metric].unit);
    for (int i = 0; i < n; i++) c->x[i] = i + 1;
    for (int k = 0; k < 2; k++) {
        snprintf(c->series[k].label, sizeof c->series[k].label, "%s %.40s", k ? "B" : "A", side[k]->label);
        for (int i = 0; i < n; i++) c->series[k].y[i] = i < side[k]->n ? side[k]->m[i].v[metric] : NAN;
    }
}

/* How many runs of A and of B fall in each of HIST_BINS bins over both
 * sides' range: two sets of bars on one scale, a shift or a spread seen. */
static void hist_chart(struct report *rep, const struct compare_side *a, const struct compare_side *b, int metric)
{
    const struct compare_side *side[2] = { a, b };
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < side[k]->n; i++) {
            double v = side[k]->m[i].v[metric];
            if (isfinite(v)) lo = fmin(lo, v), hi = fmax(hi, v);
        }
    if (!(hi >= lo)) return;
    if (hi == lo) hi = lo + 1;
    char title[128];
    snprintf(title, sizeof title, "Runs by %s, A and B", metric_table[metric].name);
    struct report_chart *c = report_chart_bars_overlay(rep, "hist", title, HIST_BINS, 2);
    snprintf(c->measure, sizeof c->measure, "%s of the runs", metric_table[metric].name);
    snprintf(c->x_unit, sizeof c->x_unit, "%s", metric_table[metric].unit);
    snprintf(c->y_unit, sizeof c->y_unit, "runs");
    for (int bin = 0; bin < HIST_BINS; bin++) {
        double from = lo + (hi - lo) * bin / HIST_BINS, to = lo + (hi - lo) * (bin + 1) / HIST_BINS;
        c->bar_at[bin] = from;
        snprintf(c->bar_label[bin], sizeof c->bar_label[0], "%.4g-%.4g", from, to);
    }
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < side[k]->n; i++) {
            double v = side[k]->m[i].v[metric];
            if (!isfinite(v)) continue;
            int bin = (int)((v - lo) / (hi - lo) * HIST_BINS);
            c->series[k].y[bin < HIST_BINS ? bin : HIST_BINS - 1] += 1;
        }
        snprintf(c->series[k].label, sizeof c->series[k].label, "%s: %d runs", k ? "B" : "A", side[k]->n);
    }
}

void report_compare_sides(struct report *rep, const struct objective *o, const char *objtext, const struct compare_side *a,
                          const struct compare_side *b, double alpha, enum search_test test, bool charts)
{
    char why[512];
    if (!compare_same_work(a, b, why, sizeof why)) {
        report_add(rep, RI_WARN, "not compared: %s. A comparison needs the same work on both sides: measure both with the "
                   "same probe options (the same --size)", why);
        return;
    }
    if (a->n < 2 || b->n < 2) {
        report_add(rep, RI_WARN, "%s has %d run(s): each side needs at least 2 (record more with 'sluice probe --repeat')",
                   a->n < 2 ? a->label : b->label, a->n < 2 ? a->n : b->n);
        return;
    }
    struct comparison c;
    compare_sides(o, a, b, alpha, test, &c);
    /* what B costs beside what it wins, as every verdict says (seeded: the same runs give the same table) */
    struct side_effects fx;
    struct effect_sides es = { a->m, b->m, a->host, b->host, a->n, b->n, c.by_host };
    search_side_effects_of_runs(o, &es, test, alpha, 1, &fx);
    struct verdict_card *v = xmalloc(sizeof *v);
    verdict_build_compare(&c, &fx, objtext, v);
    verdict_lines(v, card_item, rep);
    free(v);
    char line[1024];
    if (why[0]) report_add(rep, RI_NOTE, "note: the runs differ only in what is not measured (%s)", why);
    compare_side_line("A", a, o, &c.mean_a, line, sizeof line);
    report_add(rep, RI_TEXT, "%s", line);
    compare_side_line("B", b, o, &c.mean_b, line, sizeof line);
    report_add(rep, RI_TEXT, "%s", line);
    compare_basis_line(&c, metric_table[MET_THROUGHPUT].unit, c.mean_a.v[MET_THROUGHPUT], c.mean_b.v[MET_THROUGHPUT], line,
                       sizeof line);
    report_add(rep, RI_NOTE, "%s", line);
    if (c.l.dec.verdict == DECIDE_NO_VERDICT && c.l.dec.why_text[0]) report_add(rep, RI_WARN, "no verdict: %s", c.l.dec.why_text);
    evidence_comparison_free(&c);
    if (!charts) return;
    report_add(rep, RI_HEAD, "Charts (A's runs and B's on one scale)");
    runs_chart(rep, a, b, MET_THROUGHPUT);
    hist_chart(rep, a, b, MET_THROUGHPUT);
}

/* "A..B": two runs, each with its batch. */
int report_compare(struct store *st, const char *ida, const char *idb, struct report *rep, sl_err *e)
{
    memset(rep, 0, sizeof *rep);
    struct run_row *rows = NULL;
    int nrows = store_run_list(st, NULL, 0, &rows, e);
    if (nrows < 0) return -1;
    struct side_runs sa = { 0 }, sb = { 0 };
    struct evidence ev = { 0 };
    int rc = -1;
    if (find_side(rows, nrows, ida, &sa, e) < 0 || find_side(rows, nrows, idb, &sb, e) < 0) goto out;
    if (evidence_load(st, NULL, &ev, e) < 0) goto out;
    struct compare_side a = { 0 }, b = { 0 };
    compare_runs_side(&ev, (const char(*)[37])sa.uuids, sa.n, &a);
    compare_runs_side(&ev, (const char(*)[37])sb.uuids, sb.n, &b);
    snprintf(rep->title, sizeof rep->title, "Compare: B = run %.8s against A = run %.8s", sb.uuid, sa.uuid);
    snprintf(rep->kind, sizeof rep->kind, "compare");
    struct objective o;
    objective_parse("throughput", &o, NULL);
    report_add(rep, RI_HEAD, "B against A on MB/s");
    report_compare_sides(rep, &o, "throughput", &a, &b, 0.05, TEST_WELCH, false);
    for (int k = 0; k < 2; k++) {
        const struct side_runs *s = k ? &sb : &sa;
        report_add(rep, RI_TEXT, "%s: run %s, workload %s, configuration %.8s, %d repetition%s in its batch (%d good)",
                   k ? "B" : "A", s->uuid, s->workload, s->config_hash, s->n, s->n == 1 ? "" : "s", k ? b.n : a.n);
        report_ref(rep, s->uuid);
    }
    char why[512];
    if (compare_same_work(&a, &b, why, sizeof why)) add_charts(rep, st, sa.uuid, sb.uuid);   /* one run can be drawn */
    compare_side_free(&a);
    compare_side_free(&b);
    rc = 0;
out:
    evidence_free(&ev);
    free(sa.uuids);
    free(sb.uuids);
    free(rows);
    return rc;
}
