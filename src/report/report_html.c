/* report_html — a report as one self-contained HTML page to attach to a
 * ticket: inline CSS, charts as inline SVG, no script and no external
 * resource (a Content-Security-Policy forbids both), every text from the
 * database HTML-escaped (it may come from a merged, untrusted file). */
#include "report/report_internal.h"

#include "report/chart.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SVG_W 720
#define LINES_H 240
#define PAD_L 72
#define PAD_R 150      /* room for the threshold names */
#define PAD_T 16
#define PAD_B 40
#define MAX_POINTS 1200
#define BAR_ROW 20
#define BAR_LABEL 110

static const char *const colours[] = { "#1f6fb4", "#d62728", "#2ca02c", "#9467bd" };
static const char *const mark_colours[] = { "#e07000", "#8c564b" };

static void esc(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') fputc('?', out);
            else fputc(*s, out);
        }
    }
}

static void svg_open(FILE *out, const struct report_chart *c, int idx, int h)
{
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bars\" id=\"chart-%d-", idx);
    esc(out, c->id);
    fprintf(out, "\" data-kind=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>",
            c->kind == RC_LINES ? "lines" : "bars", SVG_W, h, SVG_W, h);
    esc(out, c->title);
    fputs("</title>\n", out);
}

static void legend(FILE *out, const struct report_chart *c);

/* A tick's label: as many decimals as the step needs. */
static void tick_label(double v, double step, char *buf, size_t n)
{
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (dec > 6) dec = 6;
    if (fabs(v) < step * 1e-9) v = 0;
    snprintf(buf, n, "%.*f", dec, v);
}

#define PLOT_W 1000.0
#define PLOT_H 1000.0

/* The series of c in the plot's viewBox: polylines (steps when c->steps)
 * or points. */
static void plot_series(FILE *out, const struct report_chart *c, const struct chart_axis *xa, const struct chart_axis *ya)
{
#define PX(v) (PLOT_W * ((v) - xa->lo) / (xa->hi - xa->lo))
#define PY(v) (PLOT_H * (1 - ((v) - ya->lo) / (ya->hi - ya->lo)))
    int npts = c->n < MAX_POINTS ? c->n : MAX_POINTS;
    double *v = xcalloc((size_t)npts + 1, sizeof *v), *x = xcalloc((size_t)npts + 1, sizeof *x);
    report_resample(c->x, c->n, x, npts);
    for (int s = 0; s < c->nseries; s++) {
        report_resample(c->series[s].y, c->n, v, npts);
        if (c->points) {
            for (int i = 0; i < c->n; i++)
                if (isfinite(c->series[s].y[i]))
                    fprintf(out, "<line class=\"point\" stroke=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                            colours[s], PX(c->x[i]), PY(c->series[s].y[i]), PX(c->x[i]), PY(c->series[s].y[i]));
            fputc('\n', out);
            continue;
        }
        fprintf(out, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" points=\"", colours[s]);
        for (int i = 0; i < npts; i++) {
            if (!isfinite(v[i])) continue;
            double xi = c->n == npts ? PX(c->x[i]) : PX(x[i]);
            if (c->steps && i > 0 && isfinite(v[i - 1])) fprintf(out, "%.1f,%.1f ", xi, PY(v[i - 1]));
            fprintf(out, "%.1f,%.1f ", xi, PY(v[i]));
        }
        fputs("\"/>\n", out);
    }
#undef PX
#undef PY
    free(v);
    free(x);
}

/* A line chart: the plot an SVG stretched to the page's width (its lines
 * keep their width), the tick labels HTML placed in percent of it, so text
 * stays readable from a phone to a desktop. The y axis spans the data
 * (series and thresholds) in 1-2-5 steps; data-y0/y1 say the axis, data-ymin/max the data. */
static void lines_html(FILE *out, const struct report_chart *c, int idx)
{
    double dmin = INFINITY, dmax = -INFINITY, xmin = INFINITY, xmax = -INFINITY;
    for (int s = 0; s < c->nseries; s++)
        for (int i = 0; i < c->n; i++)
            if (isfinite(c->series[s].y[i])) {
                dmin = fmin(dmin, c->series[s].y[i]);
                dmax = fmax(dmax, c->series[s].y[i]);
            }
    for (int m = 0; m < c->nmarks; m++) {
        dmin = fmin(dmin, c->marks[m].y);
        dmax = fmax(dmax, c->marks[m].y);
    }
    for (int i = 0; i < c->n; i++) {
        xmin = fmin(xmin, c->x[i]);
        xmax = fmax(xmax, c->x[i]);
    }
    if (!isfinite(dmin)) dmin = dmax = 0;
    if (!isfinite(xmin)) xmin = xmax = 0;
    struct chart_axis ya, xa;
    chart_axis_nice(dmin, dmax, 6, &ya);
    chart_axis_nice(xmin, xmax, 8, &xa);
    if (xmin >= xa.lo && xmax <= xa.hi && c->n > 1 && !c->points) { xa.lo = xmin; xa.hi = xmax; }   /* a series spans its x */
    fprintf(out, "<figure class=\"chart\" id=\"chart-%d-", idx);
    esc(out, c->id);
    fprintf(out, "\" data-kind=\"%s\" data-y0=\"%.10g\" data-y1=\"%.10g\" data-ystep=\"%.10g\" data-ymin=\"%.10g\" "
            "data-ymax=\"%.10g\">\n<div class=\"yunit\">", c->points ? "points" : "lines", ya.lo, ya.hi, ya.step, dmin, dmax);
    esc(out, c->y_unit);
    fputs("</div><div class=\"plot\"><div class=\"yaxis\">", out);
    for (int t = 0; t < ya.nticks; t++) {
        char lab[32];
        double v = ya.lo + t * ya.step;
        tick_label(v, ya.step, lab, sizeof lab);
        fprintf(out, "<span style=\"top:%.2f%%\">%s</span>", 100 * (1 - (v - ya.lo) / (ya.hi - ya.lo)), lab);
    }
    fprintf(out, "</div><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 %.0f %.0f\" "
            "preserveAspectRatio=\"none\" role=\"img\"><title>", PLOT_W, PLOT_H);
    esc(out, c->title);
    fputs("</title>\n", out);
#define PX(v) (PLOT_W * ((v) - xa.lo) / (xa.hi - xa.lo))
#define PY(v) (PLOT_H * (1 - ((v) - ya.lo) / (ya.hi - ya.lo)))
    for (int t = 1; t < ya.nticks - 1; t++)
        fprintf(out, "<line class=\"grid\" x1=\"0\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>", PLOT_W,
                PY(ya.lo + t * ya.step), PY(ya.lo + t * ya.step));
    fputc('\n', out);
    for (int m = 0; m < c->nmarks; m++)
        fprintf(out, "<line class=\"mark\" stroke=\"%s\" stroke-dasharray=\"6 4\" x1=\"0\" y1=\"%.1f\" x2=\"%.0f\" "
                "y2=\"%.1f\"/>\n", mark_colours[m], PY(c->marks[m].y), PLOT_W, PY(c->marks[m].y));
    plot_series(out, c, &xa, &ya);
#undef PX
#undef PY
    fputs("</svg><div></div><div class=\"xaxis\">", out);
    for (int t = 0; t < xa.nticks; t++) {
        char lab[32];
        double xv = xa.lo + t * xa.step;
        if (xv < xa.lo - 1e-9 || xv > xa.hi + 1e-9) continue;
        tick_label(xv, xa.step, lab, sizeof lab);
        fprintf(out, "<span style=\"left:%.2f%%\">%s</span>", 100 * (xv - xa.lo) / (xa.hi - xa.lo), lab);
    }
    fputs("</div></div><div class=\"xunit\">", out);
    esc(out, c->x_unit);
    fputs("</div></figure>\n", out);
    legend(out, c);
}

/* Each series' colour and name, then each threshold's. */
static void legend(FILE *out, const struct report_chart *c)
{
    fputs("<p class=\"legend\">", out);
    for (int s = 0; s < c->nseries; s++) {
        fprintf(out, "<span style=\"color:%s\">&#9632; ", colours[s]);
        esc(out, c->series[s].label);
        fputs("</span> ", out);
    }
    for (int m = 0; m < c->nmarks; m++) {
        fprintf(out, "<span style=\"color:%s\">- - ", mark_colours[m]);
        esc(out, c->marks[m].label);
        fprintf(out, " %.0f</span> ", c->marks[m].y);
    }
    fputs("</p>\n", out);
}

/* Sets of bars over one another (two runs compared): each bucket a band
 * of one thinner bar a set, in the set's colour, and a legend. */
static void overlay_bars_svg(FILE *out, const struct report_chart *c, int idx)
{
    int ns = c->nseries, band = BAR_ROW * (ns > 1 ? ns : 1), h = PAD_T + band * c->nbars + 8, w = SVG_W - BAR_LABEL - PAD_R;
    double max = 0;
    for (int s = 0; s < ns; s++)
        for (int i = 0; i < c->nbars; i++)
            if (c->series[s].y[i] > max) max = c->series[s].y[i];
    svg_open(out, c, idx, h);
    fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", BAR_LABEL, PAD_T - 4, BAR_LABEL,
            h - 4);
    for (int i = 0; i < c->nbars; i++) {
        int y = PAD_T + band * i;
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", BAR_LABEL - 6, y + 13);
        esc(out, c->bar_label[i]);
        fputs("</text>", out);
        for (int s = 0; s < ns; s++) {
            double v = c->series[s].y[i], bw = max > 0 ? w * v / max : 0;
            fprintf(out, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
                    "<text x=\"%.1f\" y=\"%d\">%.0f</text>", BAR_LABEL, y + BAR_ROW * s + 2, bw > 0 && bw < 1 ? 1 : bw,
                    BAR_ROW - 4, colours[s], BAR_LABEL + bw + 6, y + BAR_ROW * s + 13, v);
        }
        fputc('\n', out);
    }
    fputs("</svg>\n", out);
    legend(out, c);
}

static void bars_svg(FILE *out, const struct report_chart *c, int idx)
{
    if (c->overlay) { overlay_bars_svg(out, c, idx); return; }
    int h = PAD_T + BAR_ROW * c->nbars + 8, w = SVG_W - BAR_LABEL - PAD_R;
    double max = 0, total = 0;
    for (int i = 0; i < c->nbars; i++) {
        if (c->bar[i] > max) max = c->bar[i];
        total += c->bar[i];
    }
    svg_open(out, c, idx, h);
    fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", BAR_LABEL, PAD_T - 4, BAR_LABEL,
            h - 4);
    for (int i = 0; i < c->nbars; i++) {
        int y = PAD_T + BAR_ROW * i;
        double bw = max > 0 ? w * c->bar[i] / max : 0;
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", BAR_LABEL - 6, y + 13);
        esc(out, c->bar_label[i]);
        fprintf(out, "</text><rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
                "<text x=\"%.1f\" y=\"%d\">%.0f (%.2f%%)</text>\n", BAR_LABEL, y + 2, bw > 0 && bw < 1 ? 1 : bw,
                BAR_ROW - 4, colours[0], BAR_LABEL + bw + 6, y + 13, c->bar[i], total > 0 ? 100 * c->bar[i] / total : 0);
    }
    fputs("</svg>\n", out);
}

static void chart_html(FILE *out, const struct report_chart *c, int idx)
{
    fputs("<h3>", out);
    esc(out, c->title);
    fputs("</h3>\n", out);
    if (c->missing[0]) {
        fputs("<p class=\"missing\">", out);
        esc(out, c->missing);
        fputs("</p>\n", out);
        return;
    }
    if (c->kind == RC_LINES) lines_html(out, c, idx);
    else if (c->nbars) bars_svg(out, c, idx);
    else fputs("<p class=\"missing\">nothing to draw</p>\n", out);
}

/* Items from `from` on that are rows: one table. Returns the first item after. */
static int table_html(const struct report *rep, int from, FILE *out)
{
    fputs("<div class=\"wide\"><table class=\"rows\">\n", out);
    int i = from;
    for (; i < rep->n && (rep->items[i].kind == RI_ROW || rep->items[i].kind == RI_ROWHEAD); i++) {
        const char *cell = rep->items[i].kind == RI_ROWHEAD ? "th" : "td";
        fputs("<tr>", out);
        for (const char *p = rep->items[i].text; *p;) {
            size_t n = strcspn(p, "\t");
            char buf[2048];
            snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), p);
            fprintf(out, "<%s>", cell);
            esc(out, buf);
            fprintf(out, "</%s>", cell);
            p += n + (p[n] == '\t');
        }
        fputs("</tr>\n", out);
    }
    fputs("</table></div>\n", out);
    return i;
}

static const char style[] =
    "body{font:14px/1.4 sans-serif;margin:16px;color:#222;background:#fff;max-width:1400px}"
    "figure.chart{margin:4px 0 0 0}.plot{display:grid;grid-template-columns:56px 1fr;grid-template-rows:240px 20px}"
    ".yaxis,.xaxis{position:relative;font-size:12px;color:#333}.yaxis span{position:absolute;right:6px;transform:translateY(-50%)}"
    ".xaxis span{position:absolute;top:2px;transform:translateX(-50%);white-space:nowrap}.yunit,.xunit{font-size:12px;color:#333}"
    ".xunit{text-align:right}svg.chart{width:100%;height:100%;display:block;border-left:1px solid #333;border-bottom:1px solid #333;"
    "overflow:visible}svg.chart line.grid{stroke:#ddd;vector-effect:non-scaling-stroke}"
    "svg.chart polyline,svg.chart line.mark{stroke-width:2;vector-effect:non-scaling-stroke}"
    "svg.chart line.point{stroke-width:9;stroke-linecap:round;vector-effect:non-scaling-stroke}"
    "svg.bars{width:100%;max-width:900px;height:auto;display:block}table.rows{border-collapse:collapse;font-size:13px;margin:4px 0}"
    "table.rows th,table.rows td{padding:2px 8px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}"
    "table.rows th{background:#f3f3f3}.wide{overflow-x:auto}"
    "h1{font-size:20px}h2{font-size:17px;border-bottom:1px solid #ccc;margin-top:28px}h3{font-size:15px}"
    "p{margin:2px 0}p.note{color:#666}p.warn,p.missing{color:#a40000}svg.chart{display:block;background:#fff}"
    "svg text{font:12px sans-serif;fill:#333}line.axis{stroke:#333;stroke-width:1}p.legend{margin-bottom:12px}"
    "p.verdict{font-size:16px;padding:10px 12px;margin:8px 0;border-left:6px solid}"
    "p.win{background:#e8f5e9;border-color:#2e7d32;color:#1b3d1e}p.nowin{background:#fff4e0;border-color:#e07000;color:#3d2600}"
    "p.pre{font:13px/1.35 monospace;white-space:pre;overflow-x:auto}";

int report_html(const struct report *rep, FILE *out, sl_err *e)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
          "<title>", out);
    esc(out, rep->title);
    fprintf(out, "</title>\n<style>%s</style></head>\n<body>\n<h1>sluice: ", style);
    esc(out, rep->title);
    fputs("</h1>\n", out);
    int charts = 0;
    for (int i = 0; i < rep->n; i++) {
        const struct report_item *it = &rep->items[i];
        if (it->kind == RI_ROW || it->kind == RI_ROWHEAD) {
            i = table_html(rep, i, out) - 1;
            continue;
        }
        static const char *const cls[] = { [RI_TEXT] = "", [RI_NOTE] = " class=\"note\"", [RI_WARN] = " class=\"warn\"",
                                           [RI_CLAIM] = " class=\"verdict win\"", [RI_NOCLAIM] = " class=\"verdict nowin\"",
                                           [RI_PRE] = " class=\"pre\"" };
        if (it->kind == RI_CHART) { chart_html(out, it->chart, charts++); continue; }
        fputs(it->kind == RI_HEAD ? "<h2>" : "<p", out);
        if (it->kind != RI_HEAD) fprintf(out, "%s>", cls[it->kind]);
        esc(out, it->text);
        fputs(it->kind == RI_HEAD ? "</h2>\n" : "</p>\n", out);
    }
    fputs("</body></html>\n", out);
    if (fflush(out) != 0 || ferror(out)) return sl_fail_errno(e, SL_EFAIL, errno, "writing the HTML report");
    return 0;
}
