/* report_doc_json — the report document as JSON (sluice report --json): the
 * same items the text and HTML renderings draw, with each chart's data. */
#include "report/report.h"

#include <jansson.h>
#include <math.h>

static const char *item_kind[] = { "head", "text", "note", "warn", "chart", "claim", "no-claim", "pre", "row-head", "row" };

/* A stored NaN (a gap in a series) is null: JSON has no NaN. */
static json_t *number(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *numbers(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; v && i < n; i++) json_array_append_new(a, number(v[i]));
    return a;
}

static json_t *chart_json(const struct report_chart *c)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "id", c->id, "title", c->title, "kind",
                          c->kind == RC_BARS ? "bars" : "lines", "x_unit", c->x_unit, "y_unit", c->y_unit);
    if (c->missing[0]) json_object_set_new(o, "missing", json_string(c->missing));
    if (c->kind == RC_BARS) {
        json_t *bars = json_array();
        for (int i = 0; i < c->nbars; i++)
            json_array_append_new(bars, json_pack("{s:s, s:o}", "label", c->bar_label[i], "value", number(c->bar[i])));
        json_object_set_new(o, "bars", bars);
        return o;
    }
    json_object_set_new(o, "x", numbers(c->x, c->n));
    json_t *series = json_array();
    for (int s = 0; s < c->nseries; s++)
        json_array_append_new(series, json_pack("{s:s, s:o}", "label", c->series[s].label, "y", numbers(c->series[s].y, c->n)));
    json_object_set_new(o, "series", series);
    json_t *marks = json_array();
    for (int m = 0; m < c->nmarks; m++)
        json_array_append_new(marks, json_pack("{s:s, s:o}", "label", c->marks[m].label, "y", number(c->marks[m].y)));
    json_object_set_new(o, "marks", marks);
    return o;
}

json_t *report_doc_json(const struct report *rep)
{
    json_t *items = json_array();
    for (int i = 0; i < rep->n; i++) {
        const struct report_item *it = &rep->items[i];
        json_t *o = json_pack("{s:s}", "kind", item_kind[it->kind]);
        if (it->kind == RI_CHART) json_object_set_new(o, "chart", chart_json(it->chart));
        else json_object_set_new(o, "text", json_string(it->text ? it->text : ""));
        if (it->ref[0]) json_object_set_new(o, "ref", json_string(it->ref));   /* what 'sluice report REF' opens */
        json_array_append_new(items, o);
    }
    return json_pack("{s:s, s:s, s:o}", "kind", rep->kind, "title", rep->title, "items", items);
}
