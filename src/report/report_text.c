/* report_text — a report as lines of text for a terminal: paragraphs
 * wrapped to the width, line charts as braille (or '*') plots with a y
 * axis, threshold rows and an x axis, bar charts as one bar a line. */
#include "report/report.h"
#include "report/chart.h"
#include "core/esc.h"
#include "report/report_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AXIS_W 9          /* y labels: "  12345.6" */
#define BAR_LABEL_W 13   /* "tick > 100 ms" */
#define MARK_W 7          /* right margin naming a threshold row */
#define ROW_CAP 4096      /* bytes of one chart row (braille is 3 bytes a cell) */

/* Cells a UTF-8 string takes. */
static int draw_cells_of(const char *s)
{
    int n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Byte length of the first `w` cells of s. */
static size_t bytes_of_cells(const char *s, int w)
{
    size_t i = 0;
    for (int c = 0; s[i] && c <= w; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && ++c > w) break;
    return i;
}

/* Wrap at blanks; a word longer than the width is cut. Continuation lines
 * are indented by two. */
static void wrap(enum report_item_kind kind, const char *ref, const char *text, int width, report_line_fn emit, void *arg)
{
    char line[ROW_CAP], safe[ROW_CAP];
    const char *p = esc_term(text, safe, sizeof safe, 0);   /* notes, configs, names: from a database */
    int indent = 0;
    if (width < 8) width = 8;
    do {
        int room = width - indent;
        size_t take = bytes_of_cells(p, room);
        if (p[take]) {   /* cut at the last blank that fits, if any */
            size_t b = take;
            while (b > 0 && p[b] != ' ') b--;
            if (b > 0) take = b;
        }
        if (take > sizeof line - 3) take = sizeof line - 3;
        snprintf(line, sizeof line, "%*s%.*s", indent, "", (int)take, p);
        emit(arg, kind, ref, line);
        p += take;
        while (*p == ' ') p++;
        indent = 2;
    } while (*p);
}

static void fmt_axis(double v, char *buf, size_t n)
{
    if (fabs(v) >= 1e6) snprintf(buf, n, "%*.3g", AXIS_W - 1, v);
    else snprintf(buf, n, "%*.*f", AXIS_W - 1, fabs(v) < 10 && v != floor(v) ? 1 : 0, v);
}

/* Overwrite the empty cells of a chart row with a dotted threshold line. */
static void mark_row(char *row, int w, bool utf8)
{
    char out[ROW_CAP];
    size_t o = 0, i = 0;
    for (int c = 0; c < w && row[i]; c++) {
        size_t len = ((unsigned char)row[i] & 0x80) ? 3 : 1;
        const char *cell = row[i] == ' ' ? (utf8 ? "┈" : "-") : row + i;
        size_t cl = row[i] == ' ' ? strlen(cell) : len;
        if (o + cl + 1 < sizeof out) { memcpy(out + o, cell, cl); o += cl; }
        i += len;
    }
    out[o] = 0;
    memcpy(row, out, o + 1);
}

/* Chart rows (h of them, row 0 on top) with the y axis, threshold rows
 * dotted and named in the margin. */
static void emit_rows(const struct report_chart *c, char *rows, int w, int h, double hi, bool utf8, report_line_fn emit,
                      void *arg)
{
    const char *tick = utf8 ? "┤" : "+", *bar = utf8 ? "│" : "|";
    for (int r = 0; r < h; r++) {
        char *row = rows + (size_t)r * ROW_CAP, label[32] = "", line[ROW_CAP + 64], name[MARK_W + 1] = "";
        double row_lo = hi * (h - 1 - r) / h, row_hi = hi * (h - r) / h;
        for (int m = 0; m < c->nmarks; m++)
            if (c->marks[m].y >= row_lo && (c->marks[m].y < row_hi || (r == 0 && c->marks[m].y <= hi))) {
                mark_row(row, w, utf8);
                snprintf(name, sizeof name, " %.*s", MARK_W - 1, c->marks[m].tag);
            }
        if (r == 0 || r == h - 1) fmt_axis(r == 0 ? hi : 0, label, sizeof label);
        else snprintf(label, sizeof label, "%*s", AXIS_W - 1, "");
        snprintf(line, sizeof line, "%s %s%s%s", label, r == 0 || r == h - 1 ? tick : bar, row, name);
        emit(arg, RI_CHART, "", line);
    }
}

static void panel(const struct report_chart *c, int s, int w, int h, double hi, bool utf8, report_line_fn emit,
                  void *arg)
{
    int npts = w * (utf8 ? 2 : 1);
    double *v = xcalloc((size_t)npts, sizeof *v);
    char *rows = xcalloc((size_t)h, ROW_CAP);
    report_resample(c->series[s].y, c->n, v, npts);
    chart_lines(v, npts, 0, hi, w, h, utf8, rows, ROW_CAP);
    emit_rows(c, rows, w, h, hi, utf8, emit, arg);
    free(v);
    free(rows);
}

/* An overlay's legend wrapped to the width: each series' mark and name,
 * then (shared) the mark of cells more than one passes and the unit:
 * "● A throughput  ○ B throughput  ◉ more than one (MB/s)". */
static void legend(const struct report_chart *c, int width, bool shared, bool utf8, report_line_fn emit, void *arg)
{
    char line[ROW_CAP], entry[160];
    int ns = c->nseries < CHART_OVERLAY_MAX ? c->nseries : CHART_OVERLAY_MAX;
    snprintf(line, sizeof line, "%*s", AXIS_W - 1, "");
    for (int k = 0; k < ns + shared; k++) {
        if (k == ns) snprintf(entry, sizeof entry, " %s more than one (%s)", chart_overlay_mark(-1, utf8), c->y_unit);
        else snprintf(entry, sizeof entry, " %s %s ", chart_overlay_mark(k, utf8), esc_t(c->series[k].label));
        if (draw_cells_of(line) + draw_cells_of(entry) > width && draw_cells_of(line) > AXIS_W) {
            emit(arg, RI_NOTE, "", line);
            snprintf(line, sizeof line, "%*s", AXIS_W - 1, "");
        }
        size_t len = strlen(line);
        snprintf(line + len, sizeof line - len, "%s", entry);
    }
    emit(arg, RI_NOTE, "", line);
}

/* Every series in one plot, each its own mark, after a legend wrapped to
 * the width: "● A throughput  ○ B throughput  ◉ both (MB/s)". */
static void overlay_panel(const struct report_chart *c, int width, int w, double hi, bool utf8, report_line_fn emit,
                          void *arg)
{
    int ns = c->nseries < CHART_OVERLAY_MAX ? c->nseries : CHART_OVERLAY_MAX;
    legend(c, width, true, utf8, emit, arg);
    const double *v[CHART_OVERLAY_MAX];
    double *buf = xcalloc((size_t)(ns ? ns : 1) * (size_t)w, sizeof *buf);
    for (int s = 0; s < ns; s++) {
        report_resample(c->series[s].y, c->n, buf + (size_t)s * (size_t)w, w);
        v[s] = buf + (size_t)s * (size_t)w;
    }
    char *rows = xcalloc(REPORT_CHART_ROWS, ROW_CAP);
    chart_overlay(v, ns, 0, hi, w, REPORT_CHART_ROWS, utf8, rows, ROW_CAP);
    emit_rows(c, rows, w, REPORT_CHART_ROWS, hi, utf8, emit, arg);
    free(rows);
    free(buf);
}

static void x_axis(const struct report_chart *c, int w, bool utf8, report_line_fn emit, void *arg)
{
    char line[ROW_CAP], rule[ROW_CAP] = "";
    size_t o = 0;
    for (int i = 0; i < w && o + 4 < sizeof rule; i++) o += (size_t)snprintf(rule + o, sizeof rule - o, "%s", utf8 ? "─" : "-");
    snprintf(line, sizeof line, "%*s %s%s", AXIS_W - 1, "", utf8 ? "└" : "+", rule);
    emit(arg, RI_CHART, "", line);
    char from[24], to[24];
    snprintf(from, sizeof from, "%g %s", c->n ? c->x[0] : 0, c->x_unit);
    snprintf(to, sizeof to, "%g %s", c->n ? c->x[c->n - 1] : 0, c->x_unit);
    snprintf(line, sizeof line, "%*s  %-*s%s", AXIS_W - 1, "", w - (int)strlen(to), from, to);
    emit(arg, RI_CHART, "", line);
}

static void lines_chart(const struct report_chart *c, int width, bool utf8, report_line_fn emit, void *arg)
{
    int w = width - AXIS_W - 1 - (c->nmarks ? MARK_W : 0);
    double hi = report_chart_top(c);
    int h = c->nseries > 1 ? REPORT_CHART_ROWS - 2 : REPORT_CHART_ROWS;
    if (c->overlay) overlay_panel(c, width, w, hi, utf8, emit, arg);
    for (int s = 0; s < c->nseries && !c->overlay; s++) {
        char line[160];
        snprintf(line, sizeof line, "%*s %s (%s)", AXIS_W - 1, "", esc_t(c->series[s].label), c->y_unit);
        emit(arg, RI_NOTE, "", line);
        panel(c, s, w, h, hi, utf8, emit, arg);
    }
    x_axis(c, w, utf8, emit, arg);
    for (int m = 0; m < c->nmarks; m++) {
        char line[160];
        snprintf(line, sizeof line, "%*s %s %s: %.0f %s", AXIS_W - 1, "", utf8 ? "┈┈" : "--", esc_t(c->marks[m].label),
                 c->marks[m].y, c->y_unit);
        emit(arg, RI_NOTE, "", line);
    }
}

/* Sets of bars over one another (two runs): a legend, then each bucket's
 * label on its first set's row and one bar a set in the set's mark, with
 * its count and its share of the set's total. */
static void overlay_bars_chart(const struct report_chart *c, int width, bool utf8, report_line_fn emit, void *arg)
{
    int ns = c->nseries < CHART_OVERLAY_MAX ? c->nseries : CHART_OVERLAY_MAX;
    double max = 0, total[CHART_OVERLAY_MAX] = { 0 };
    for (int s = 0; s < ns; s++)
        for (int i = 0; i < c->nbars; i++) {
            if (c->series[s].y[i] > max) max = c->series[s].y[i];
            total[s] += c->series[s].y[i];
        }
    legend(c, width, false, utf8, emit, arg);
    int w = width - BAR_LABEL_W - 1 - 19;
    for (int i = 0; i < c->nbars; i++)
        for (int s = 0; s < ns; s++) {
            char bar[ROW_CAP], line[ROW_CAP + 128];
            double v = c->series[s].y[i];
            chart_overlay_bar(max > 0 ? v / max : 0, s, w, utf8, bar, sizeof bar);
            snprintf(line, sizeof line, "%*.*s %s %10.0f %6.2f%%", BAR_LABEL_W, BAR_LABEL_W, s ? "" : c->bar_label[i],
                     bar, v, total[s] > 0 ? 100 * v / total[s] : 0);
            emit(arg, RI_CHART, "", line);
        }
}

static void bars_chart(const struct report_chart *c, int width, bool utf8, report_line_fn emit, void *arg)
{
    if (c->overlay) { overlay_bars_chart(c, width, utf8, emit, arg); return; }
    double max = 0, total = 0;
    for (int i = 0; i < c->nbars; i++) {
        if (c->bar[i] > max) max = c->bar[i];
        total += c->bar[i];
    }
    int w = width - BAR_LABEL_W - 1 - 19;
    for (int i = 0; i < c->nbars; i++) {
        char bar[ROW_CAP], line[ROW_CAP + 128];
        chart_bar(max > 0 ? c->bar[i] / max : 0, w, utf8, bar, sizeof bar);
        snprintf(line, sizeof line, "%*.*s %s %10.0f %6.2f%%", BAR_LABEL_W, BAR_LABEL_W, c->bar_label[i], bar,
                 c->bar[i], total > 0 ? 100 * c->bar[i] / total : 0);
        emit(arg, RI_CHART, "", line);
    }
    if (c->nbars && max == 0) {
        char line[160];
        snprintf(line, sizeof line, "%*s none (0 %s)", AXIS_W - 1, "", c->y_unit);
        emit(arg, RI_NOTE, "", line);
    }
}

static void chart_text(const struct report_chart *c, int width, bool utf8, report_line_fn emit, void *arg)
{
    char line[512];
    if (c->missing[0]) {
        snprintf(line, sizeof line, "%s: %s", c->title, c->missing);
        wrap(RI_WARN, "", line, width, emit, arg);
        return;
    }
    if (width < REPORT_CHART_MIN_WIDTH) {   /* one line, cut to the width: nothing else is drawn */
        char safe[256];
        snprintf(line, sizeof line, "needs %d columns, has %d: %s", REPORT_CHART_MIN_WIDTH, width,
                 esc_term(c->title, safe, sizeof safe, 0));
        size_t end = bytes_of_cells(line, width > 8 ? width : 8);
        while (end > 0 && line[end - 1] == ' ') end--;
        line[end] = 0;
        emit(arg, RI_WARN, "", line);
        return;
    }
    wrap(RI_TEXT, "", c->title, width, emit, arg);
    if (c->points) {   /* a scatter reads only as a picture */
        emit(arg, RI_NOTE, "", "(a scatter plot: sluice report --html draws it)");
        return;
    }
    if (c->kind == RC_LINES) lines_chart(c, width, utf8, emit, arg);
    else bars_chart(c, width, utf8, emit, arg);
}

/* Items [from, to) are a table: each cell padded to its column's widest,
 * the last column free. Returns to. */
#define TABLE_MAX_COLS 16
static int table_text(const struct report *rep, int from, report_line_fn emit, void *arg)
{
    int to = from, w[TABLE_MAX_COLS] = { 0 };
    for (; to < rep->n && (rep->items[to].kind == RI_ROW || rep->items[to].kind == RI_ROWHEAD); to++) {
        const char *p = rep->items[to].text;
        for (int c = 0; c < TABLE_MAX_COLS && *p; c++) {
            size_t n = strcspn(p, "\t");
            if ((int)n > w[c]) w[c] = (int)n;
            p += n + (p[n] == '\t');
        }
    }
    for (int i = from; i < to; i++) {
        char line[ROW_CAP], safe[ROW_CAP];
        size_t len = 0;
        const char *p = rep->items[i].text;
        for (int c = 0; c < TABLE_MAX_COLS && *p && len + 2 < sizeof line; c++) {
            size_t n = strcspn(p, "\t");
            bool last = !p[n];
            len += (size_t)snprintf(line + len, sizeof line - len, "%-*.*s%s", last ? 0 : w[c], (int)n, p, last ? "" : "  ");
            p += n + (p[n] == '\t');
        }
        emit(arg, rep->items[i].kind, rep->items[i].ref, esc_term(line, safe, sizeof safe, 0));
    }
    return to;
}

void report_text(const struct report *rep, int width, bool utf8, report_line_fn emit, void *arg)
{
    for (int i = 0; i < rep->n; i++) {
        const struct report_item *it = &rep->items[i];
        if (it->kind == RI_ROW || it->kind == RI_ROWHEAD) {
            i = table_text(rep, i, emit, arg) - 1;
            continue;
        }
        if (it->kind == RI_HEAD && i > 0) emit(arg, RI_TEXT, "", "");
        if (it->kind == RI_CHART) chart_text(it->chart, width, utf8, emit, arg);
        else if (it->kind == RI_PRE) {   /* a table's columns stay; escaped as every text is */
            char safe[ROW_CAP];
            emit(arg, it->kind, it->ref, esc_term(it->text, safe, sizeof safe, 0));
        }
        else wrap(it->kind, it->ref, it->text, width, emit, arg);
    }
}

static void print_line(void *arg, enum report_item_kind kind, const char *ref, const char *line)
{
    FILE *out = arg;
    if (!line[0]) fputc('\n', out);
    else fprintf(out, "%s%s\n", kind == RI_HEAD ? "== " : kind == RI_WARN ? "!  " : "   ", line);
}

void report_write_text(const struct report *rep, int width, bool utf8, FILE *out)
{
    report_text(rep, width - 3, utf8, print_line, out);
}
