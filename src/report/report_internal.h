/* report_internal — what the report builders share: reading stored JSON
 * that may be missing or malformed. Not a public API. */
#ifndef SLUICE_REPORT_INTERNAL_H
#define SLUICE_REPORT_INTERNAL_H

#include <jansson.h>
#include "report/report.h"
#include "search/verdict.h"

struct run_detail;

/* A number member of an object (integer or real), def when o is not an
 * object or the member is missing or not a number. */
double rj_num(const json_t *o, const char *key, double def);
/* A string member, def when missing or not a string. */
const char *rj_str(const json_t *o, const char *key, const char *def);

/* A line of a verdict card as a report item, in the order the card
 * prints: the sentence as "verdict: ...", text as text, a note as `note`,
 * a table line (blank ones dropped) as `table`. */
void report_add_card_line(struct report *rep, enum verdict_line_kind kind, const char *line,
                          enum report_item_kind note, enum report_item_kind table);

/* n samples onto npts points (n > 0): the highest sample in each point's
 * span, so a short peak is not lost; fewer samples repeat. */
void report_resample(const double *y, int n, double *out, int npts);
/* The top of a line chart's y axis: its highest value or threshold,
 * rounded up to a 1-2-5 step. */
double report_chart_top(const struct report_chart *c);

/* The charts of a run (report_charts.c): MB/s and the dirty pages over
 * time from the stored series, the latency histograms from the stored
 * blob, the canary's stalls from the metrics (m may be NULL). */
void report_run_charts(struct report *rep, const struct run_detail *d, const json_t *m);

#endif
