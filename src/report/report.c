/* report — the document: items, charts, freeing, and finding what an id
 * names. */
#include "report/report.h"
#include "report/report_internal.h"
#include "report/chart.h"
#include "db/store.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct report_item *new_item(struct report *rep, enum report_item_kind kind)
{
    rep->items = xgrow(rep->items, rep->n, &rep->cap, sizeof *rep->items, 32);
    struct report_item *it = &rep->items[rep->n++];
    it->kind = kind;
    return it;
}

void report_add(struct report *rep, enum report_item_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    new_item(rep, kind)->text = xvstrfmt(fmt, ap);
    va_end(ap);
}

void report_add_card_line(struct report *rep, enum verdict_line_kind kind, const char *line,
                          enum report_item_kind note, enum report_item_kind table)
{
    switch (kind) {
    case VL_CLAIM: report_add(rep, RI_CLAIM, "verdict: %s", line); break;
    case VL_NO_CLAIM: report_add(rep, RI_NOCLAIM, "verdict: %s", line); break;
    case VL_TEXT: report_add(rep, RI_TEXT, "%s", line); break;
    case VL_NOTE: report_add(rep, note, "%s", line); break;
    case VL_TABLE:
        if (line[0]) report_add(rep, table, "%s", line);
        break;
    }
}

void report_ref(struct report *rep, const char *ref)
{
    if (rep->n) snprintf(rep->items[rep->n - 1].ref, sizeof rep->items[0].ref, "%s", ref);
}

static struct report_chart *new_chart(struct report *rep, enum report_chart_kind kind, const char *id,
                                      const char *title)
{
    struct report_chart *c = xcalloc(1, sizeof *c);
    c->kind = kind;
    snprintf(c->id, sizeof c->id, "%s", id);
    snprintf(c->title, sizeof c->title, "%s", title);
    new_item(rep, RI_CHART)->chart = c;
    return c;
}

struct report_chart *report_chart_lines(struct report *rep, const char *id, const char *title, int n, int nseries)
{
    struct report_chart *c = new_chart(rep, RC_LINES, id, title);
    if (nseries > REPORT_MAX_SERIES) nseries = REPORT_MAX_SERIES;
    c->n = n > 0 ? n : 0;
    c->nseries = nseries;
    c->x = xcalloc((size_t)c->n + 1, sizeof *c->x);
    for (int s = 0; s < nseries; s++) c->series[s].y = xcalloc((size_t)c->n + 1, sizeof(double));
    return c;
}

struct report_chart *report_chart_bars(struct report *rep, const char *id, const char *title, int nbars)
{
    struct report_chart *c = new_chart(rep, RC_BARS, id, title);
    c->nbars = nbars > 0 ? nbars : 0;
    c->bar_label = xcalloc((size_t)c->nbars + 1, sizeof *c->bar_label);
    c->bar = xcalloc((size_t)c->nbars + 1, sizeof *c->bar);
    c->bar_at = xcalloc((size_t)c->nbars + 1, sizeof *c->bar_at);
    for (int i = 0; i < c->nbars; i++) c->bar_at[i] = i;
    return c;
}

struct report_chart *report_chart_bars_overlay(struct report *rep, const char *id, const char *title, int nbars,
                                               int nsets)
{
    struct report_chart *c = report_chart_bars(rep, id, title, nbars);
    c->overlay = true;
    c->nseries = nsets < REPORT_MAX_SERIES ? nsets : REPORT_MAX_SERIES;
    for (int s = 0; s < c->nseries; s++) c->series[s].y = xcalloc((size_t)c->nbars + 1, sizeof(double));
    return c;
}

void report_chart_missing(struct report_chart *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->missing, sizeof c->missing, fmt, ap);
    va_end(ap);
}

static void chart_free(struct report_chart *c)
{
    if (!c) return;
    free(c->x);
    for (int s = 0; s < c->nseries; s++) free(c->series[s].y);
    free(c->bar_label);
    free(c->bar);
    free(c->bar_at);
    free(c);
}

void report_free(struct report *rep)
{
    for (int i = 0; i < rep->n; i++) {
        free(rep->items[i].text);
        chart_free(rep->items[i].chart);
    }
    free(rep->items);
    memset(rep, 0, sizeof *rep);
}

/* Which of run, search, verification, session an id names: each builder fails with
 * SL_EUSAGE when it finds none, so the next is tried; any other failure
 * (a broken database, an ambiguous prefix) is the answer. */
int report_build(struct store *st, const char *id, struct report *rep, sl_err *e)
{
    static int (*const builders[])(struct store *, const char *, struct report *, sl_err *) = {
        report_run, report_search, report_verify, report_session,
    };
    memset(rep, 0, sizeof *rep);
    if (!id[0]) return sl_fail(e, SL_EUSAGE, "give the UUID (or its start) of a run, a search or a session");
    const char *dots = strstr(id, "..");
    if (dots) {   /* A..B: two runs compared */
        char a[48];
        if (dots == id || !dots[2] || (size_t)(dots - id) >= sizeof a)
            return sl_fail(e, SL_EUSAGE, "%s: a comparison is RUN..RUN (two runs' UUIDs or their starts)", id);
        snprintf(a, sizeof a, "%.*s", (int)(dots - id), id);
        return report_compare(st, a, dots + 2, rep, e);
    }
    const char *hash = strchr(id, '#');
    if (hash) {   /* SEARCH#SEQ: one trial */
        char search[48], *end;
        long seq = strtol(hash + 1, &end, 10);
        if (hash == id || *end || end == hash + 1 || seq < 0 || seq > 1000000 || (size_t)(hash - id) >= sizeof search)
            return sl_fail(e, SL_EUSAGE, "%s: a trial is SEARCH#N (the search's UUID or its start, the trial's number)", id);
        snprintf(search, sizeof search, "%.*s", (int)(hash - id), id);
        return report_trial(st, search, (int)seq, rep, e);
    }
    for (size_t i = 0; i < sizeof builders / sizeof builders[0]; i++) {
        sl_err one;
        if (builders[i](st, id, rep, &one) == 0) return 0;
        if (one.status != SL_EUSAGE || strstr(one.msg, "ambiguous")) { *e = one; return -1; }
    }
    return sl_fail(e, SL_EUSAGE, "no run, search or session \"%s\" in %s (see 'sluice history', 'sluice sessions')", id,
                   store_path(st));
}

double rj_num(const json_t *o, const char *key, double def)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_number(v) ? json_number_value(v) : def;
}

const char *rj_str(const json_t *o, const char *key, const char *def)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : def;
}

void report_resample(const double *y, int n, double *out, int npts)
{
    for (int x = 0; x < npts; x++) {
        int a = (int)((long long)x * n / npts), b = (int)((long long)(x + 1) * n / npts);
        if (b <= a) b = a + 1;
        double m = y[a < n ? a : n - 1];
        for (int i = a + 1; i < b && i < n; i++)
            if (y[i] > m) m = y[i];
        out[x] = m;
    }
}

double report_chart_top(const struct report_chart *c)
{
    double hi = 0;
    for (int s = 0; s < c->nseries; s++)
        for (int i = 0; i < c->n; i++)
            if (c->series[s].y[i] > hi) hi = c->series[s].y[i];
    for (int m = 0; m < c->nmarks; m++)
        if (c->marks[m].y > hi) hi = c->marks[m].y;
    return chart_nice_max(hi);
}
