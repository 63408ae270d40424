/* report_compare — two stored runs side by side, "A..B": each side is the
 * run's batch of repetitions; they are judged with the compare core
 * (src/search/compare.c: the same sides, work check, statistics and words
 * as 'sluice compare'), the interval and its basis stated, and the runs'
 * charts drawn over one another (one chart per measure, A's and B's series
 * on one scale). Runs of different work are refused as compare refuses
 * them: nothing judged, nothing charted. */
#include "report_internal.h"
#include "search/compare.h"
#include "search/objective.h"
#include "store_run.h"

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
    if (ca->missing[0] || cb->missing[0]) {
        report_chart_missing(c, "%s%s%s%s%s", ca->missing[0] ? "A: " : "", ca->missing, ca->missing[0] && cb->missing[0] ? "; " : "",
                             cb->missing[0] ? "B: " : "", cb->missing);
        return;
    }
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

/* Bar charts side by side: A's, then B's, each named. */
static void both_bars(struct report *rep, const struct report *ra, const struct report *rb, const char *id)
{
    for (int side = 0; side < 2; side++) {
        const struct report *r = side ? rb : ra;
        for (int i = 0; i < r->n; i++) {
            const struct report_chart *src = r->items[i].kind == RI_CHART ? r->items[i].chart : NULL;
            if (!src || strcmp(src->id, id) != 0) continue;
            char title[160];
            snprintf(title, sizeof title, "%s: %s", side ? "B" : "A", src->title);
            struct report_chart *c = report_chart_bars(rep, id, title, src->nbars);
            snprintf(c->x_unit, sizeof c->x_unit, "%s", src->x_unit);
            snprintf(c->y_unit, sizeof c->y_unit, "%s", src->y_unit);
            snprintf(c->missing, sizeof c->missing, "%s", src->missing);
            memcpy(c->bar_label, src->bar_label, sizeof *c->bar_label * (size_t)src->nbars);
            memcpy(c->bar, src->bar, sizeof *c->bar * (size_t)src->nbars);
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
        both_bars(rep, &ra, &rb, "latency");
        both_bars(rep, &ra, &rb, "canary");
    } else {
        report_add(rep, RI_WARN, "the runs' charts cannot be read: %s", e.msg);
    }
    if (oka) report_free(&ra);
    if (okb) report_free(&rb);
}

static void judge(struct report *rep, const struct compare_side *a, const struct compare_side *b)
{
    struct objective o;
    objective_parse("throughput", &o, NULL);
    struct comparison c;
    compare_sides(&o, a, b, 0.05, TEST_WELCH, &c);
    char line[1024];
    compare_side_line("A", a, &o, &c.mean_a, line, sizeof line);
    report_add(rep, RI_TEXT, "%s", line);
    compare_side_line("B", b, &o, &c.mean_b, line, sizeof line);
    report_add(rep, RI_TEXT, "%s", line);
    compare_result_line(&c, "throughput", line, sizeof line);
    report_add(rep, RI_TEXT, "%s", line);
    compare_basis_line(&c, "MB/s", c.mean_a.v[MET_THROUGHPUT], c.mean_b.v[MET_THROUGHPUT], line, sizeof line);
    report_add(rep, RI_NOTE, "%s", line);
    if (c.l.dec.verdict == DECIDE_NO_VERDICT) report_add(rep, RI_WARN, "no verdict: %s", c.l.dec.why_text);
    report_add(rep, c.l.verdict == VERDICT_WIN || c.l.verdict == VERDICT_WORSE ? RI_TEXT : RI_NOTE, "verdict: %s",
               compare_verdict_text(&c.l));
    evidence_comparison_free(&c);
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
    report_add(rep, RI_HEAD, "B against A on MB/s");
    for (int k = 0; k < 2; k++) {
        const struct side_runs *s = k ? &sb : &sa;
        report_add(rep, RI_TEXT, "%s: run %s, workload %s, configuration %.8s, %d repetition%s in its batch (%d good)",
                   k ? "B" : "A", s->uuid, s->workload, s->config_hash, s->n, s->n == 1 ? "" : "s", k ? b.n : a.n);
        report_ref(rep, s->uuid);
    }
    char why[512];
    if (!compare_same_work(&a, &b, why, sizeof why)) {
        report_add(rep, RI_WARN, "not compared: %s. A comparison needs the same work on both sides: measure both with the "
                   "same probe options (the same --size)", why);
    } else {
        judge(rep, &a, &b);
        add_charts(rep, st, sa.uuid, sb.uuid);
    }
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
