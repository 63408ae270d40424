/* report — what is stored about a run, a search or a session, as one
 * document: headings, lines of text and charts with their data. The UI's
 * detail views, `sluice report` and `sluice report --html` all render the
 * same document (STYLE rule 9), so they never disagree.
 *
 *     struct report rep;
 *     if (report_build(st, "3f2a", &rep, &err) < 0) ...   a run, search or session
 *     report_text(&rep, 80, true, emit, arg);             lines for a terminal
 *     report_html(&rep, file);                            a self-contained page
 *     report_free(&rep);
 *
 * A stored series or histogram that is missing or malformed (an old or
 * merged database) does not fail the report: its chart carries a line
 * saying what is missing, and the rest is shown. */
#ifndef SLUICE_REPORT_H
#define SLUICE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "core/err.h"

struct store;

#define REPORT_MAX_SERIES 4
#define REPORT_MAX_MARKS 2

/* RI_CLAIM / RI_NOCLAIM: a verdict's sentence (a win, or none), shown
 * first and prominent; RI_PRE: a line of a table, its columns kept (not
 * wrapped). */
/* RI_ROWHEAD, RI_ROW: a table's heading and rows, cells split by tabs;
 * consecutive rows are one table (columns aligned in text, <table> in HTML). */
enum report_item_kind { RI_HEAD, RI_TEXT, RI_NOTE, RI_WARN, RI_CHART, RI_CLAIM, RI_NOCLAIM, RI_PRE, RI_ROWHEAD, RI_ROW };
enum report_chart_kind { RC_LINES, RC_BARS };

struct report_series {
    char label[48];
    double *y;                   /* n values over the chart's x */
};

/* A horizontal line across a line chart (a threshold). */
struct report_mark {
    char label[48];
    char tag[8];                 /* a short name for a text chart's margin: "dirty", "bg" */
    double y;
};

struct report_chart {
    enum report_chart_kind kind;
    char id[24];                 /* "mbs", "dirty", "latency", "canary", "trials": HTML ids, tests */
    char title[128];
    char x_unit[16], y_unit[24];
    /* RC_LINES: n points at x[i], one y array per series. */
    int n;
    double *x;
    struct report_series series[REPORT_MAX_SERIES];
    int nseries;
    struct report_mark marks[REPORT_MAX_MARKS];
    int nmarks;
    bool points;                 /* RC_LINES drawn as points (a scatter: x need not be in order) */
    bool steps;                  /* RC_LINES: each value holds until the next x (a count that changes) */
    bool overlay;                /* the series over one another in one plot, each its own mark
                                    (two runs compared); else one panel a series. RC_BARS:
                                    nseries sets of bars, series[s].y[i] the value of bar i
                                    in set s (bar unused), each set its own mark */
    /* RC_BARS: nbars bars, each a label and a value (a count). */
    int nbars;
    char (*bar_label)[32];
    double *bar;
    double *bar_at;              /* where bar i stands (a latency bucket's lower bound in ns;
                                    else i): two runs' bars at one place are one bucket */
    char measure[64];            /* what it measures without this run's counts ("Latency of
                                    write in powers of two"): two runs' charts of one id and
                                    measure are compared with each other */
    char counted[40];            /* what this run's chart counted ("10000 I/Os", "30 ticks"),
                                    to name its set when compared */
    /* Not empty: there is nothing to draw, and this says why ("no time
     * series stored for this run (an older sluice)"). */
    char missing[256];
};

struct report_item {
    enum report_item_kind kind;
    char *text;                  /* RI_HEAD .. RI_WARN */
    struct report_chart *chart;  /* RI_CHART */
    char ref[48];                /* what this line names, as report_build takes it ("" none):
                                    a run's UUID, a trial "SEARCH#SEQ"; a reader can open it */
};

struct report {
    char title[160];
    char kind[16];               /* "run", "search", "session" */
    struct report_item *items;
    int n, cap;
};

/* Build the report of the run, search or session whose UUID starts with
 * id (runs first, then searches, then sessions), or of one trial of a
 * search, "SEARCH#SEQ", or two runs compared, "RUN..RUN". -1 with a message when
 * nothing or more than one thing matches, or the database fails; rep is
 * then empty. Free with report_free. */
int report_build(struct store *st, const char *id, struct report *rep, sl_err *e);
int report_run(struct store *st, const char *uuid_prefix, struct report *rep, sl_err *e);
int report_search(struct store *st, const char *uuid_prefix, struct report *rep, sl_err *e);
int report_session(struct store *st, const char *uuid_prefix, struct report *rep, sl_err *e);
/* A live verification (verify --live): its plan, end, verdict per metric
 * (drawn again from the stored blocks), blocks charted over time. */
int report_verify(struct store *st, const char *uuid_prefix, struct report *rep, sl_err *e);
/* Run B against run A (each with its batch of repetitions), "A..B":
 * judged by the compare core, the interval's basis stated, their charts
 * overlaid; runs of different work refused as 'sluice compare' does. */
int report_compare(struct store *st, const char *a, const char *b, struct report *rep, sl_err *e);
/* Trial seq of a search: its configuration in full, its metrics with units
 * and the runs behind it (each line's ref is its run). */
int report_trial(struct store *st, const char *search_prefix, int seq, struct report *rep, sl_err *e);
void report_free(struct report *rep);

/* Building (report.c). Text is copied. */
void report_add(struct report *rep, enum report_item_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The last item added names ref (a run, "SEARCH#SEQ"): readers may open it. */
void report_ref(struct report *rep, const char *ref);
/* A new chart appended to the report (owned by it); n points of nseries. */
struct report_chart *report_chart_lines(struct report *rep, const char *id, const char *title, int n, int nseries);
struct report_chart *report_chart_bars(struct report *rep, const char *id, const char *title, int nbars);
/* nbars bars in nsets sets over one another (an overlay: two runs). */
struct report_chart *report_chart_bars_overlay(struct report *rep, const char *id, const char *title, int nbars,
                                               int nsets);
/* The chart cannot be drawn: say why (it keeps its place in the report). */
void report_chart_missing(struct report_chart *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Text rendering (report_text.c): every line of the report wrapped to
 * width cells (each with its item's ref, "" for none), charts drawn in chart rows (braille in UTF-8, '*' in ASCII).
 * A chart that does not fit in width says so in one line. */
typedef void (*report_line_fn)(void *arg, enum report_item_kind kind, const char *ref, const char *line);
void report_text(const struct report *rep, int width, bool utf8, report_line_fn emit, void *arg);
/* The whole report as text on a stream (sluice report). */
void report_write_text(const struct report *rep, int width, bool utf8, FILE *out);
/* Text rows a chart takes when drawn. */
#define REPORT_CHART_ROWS 8
#define REPORT_CHART_MIN_WIDTH 40

/* HTML rendering (report_html.c): one self-contained page, inline SVG
 * charts, no scripts, no external resources; every text HTML-escaped.
 * -1 with a message when the stream fails. */
int report_html(const struct report *rep, FILE *out, sl_err *e);

/* JSON rendering (report_doc_json.c): the items in order, charts with their
 * data (NaN as null). A new reference the caller owns. */
struct json_t;
struct json_t *report_doc_json(const struct report *rep);

#endif
