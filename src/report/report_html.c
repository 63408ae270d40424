/* report_html — a report as one self-contained HTML page to attach to a
 * ticket: inline CSS, charts as inline SVG, no script and no external
 * resource (a Content-Security-Policy forbids both), every text from the
 * database HTML-escaped (it may come from a merged, untrusted file). */
#include "report_internal.h"

#include <errno.h>
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
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"chart-%d-", idx);
    esc(out, c->id);
    fprintf(out, "\" data-kind=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>",
            c->kind == RC_LINES ? "lines" : "bars", SVG_W, h, SVG_W, h);
    esc(out, c->title);
    fputs("</title>\n", out);
}

static double px_y(double v, double hi, int h) { return PAD_T + (h - PAD_T - PAD_B) * (1 - (hi > 0 ? v / hi : 0)); }

static void lines_axes(FILE *out, const struct report_chart *c, double hi, int w)
{
    int h = LINES_H;
    fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", PAD_L, PAD_T, PAD_L, h - PAD_B);
    fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", PAD_L, h - PAD_B, PAD_L + w,
            h - PAD_B);
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.7g</text>", PAD_L - 6, PAD_T + 4, hi);
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>", PAD_L - 6, h - PAD_B + 4);
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", PAD_L - 6, PAD_T + (h - PAD_T - PAD_B) / 2);
    esc(out, c->y_unit);
    fprintf(out, "</text>\n<text x=\"%d\" y=\"%d\">%g ", PAD_L, h - PAD_B + 18, c->n ? c->x[0] : 0);
    esc(out, c->x_unit);
    fprintf(out, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%g ", PAD_L + w, h - PAD_B + 18,
            c->n ? c->x[c->n - 1] : 0);
    esc(out, c->x_unit);
    fputs("</text>\n", out);
}

static void legend(FILE *out, const struct report_chart *c);

static void lines_svg(FILE *out, const struct report_chart *c, int idx)
{
    int w = SVG_W - PAD_L - PAD_R, h = LINES_H, npts = c->n < MAX_POINTS ? c->n : MAX_POINTS;
    double hi = report_chart_top(c), *v = xcalloc((size_t)npts + 1, sizeof *v);
    svg_open(out, c, idx, h);
    lines_axes(out, c, hi, w);
    for (int m = 0; m < c->nmarks; m++) {
        double y = px_y(c->marks[m].y, hi, h);
        fprintf(out, "<line class=\"mark\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"6 4\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
                "y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\" fill=\"%s\">", mark_colours[m], PAD_L, y, PAD_L + w, y,
                PAD_L + w + 6, y + 4, mark_colours[m]);
        esc(out, c->marks[m].label);
        fputs("</text>\n", out);
    }
    for (int s = 0; s < c->nseries; s++) {
        report_resample(c->series[s].y, c->n, v, npts);
        fprintf(out, "<polyline class=\"series\" fill=\"none\" stroke-width=\"1.5\" stroke=\"%s\" points=\"",
                colours[s]);
        for (int i = 0; i < npts; i++)
            fprintf(out, "%.1f,%.1f ", PAD_L + (npts > 1 ? (double)w * i / (npts - 1) : 0), px_y(v[i], hi, h));
        fputs("\"/>\n", out);
    }
    free(v);
    fputs("</svg>\n", out);
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
    if (c->kind == RC_LINES) lines_svg(out, c, idx);
    else if (c->nbars) bars_svg(out, c, idx);
    else fputs("<p class=\"missing\">nothing to draw</p>\n", out);
}

static const char style[] =
    "body{font:14px/1.4 sans-serif;margin:24px;color:#222;background:#fff;max-width:960px}"
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
