/* chart — text charts for the screens and reports: progress bars, sparklines, braille
 * line graphs and histogram bars, in UTF-8 block/braille characters or an
 * ASCII fallback. Pure functions writing strings; curses never enters here,
 * so the geometry is unit-tested. */
#ifndef SLUICE_UI_CHART_H
#define SLUICE_UI_CHART_H

#include <stdbool.h>
#include <stddef.h>

/* A bar exactly width cells wide, frac (clamped to 0..1) of it filled:
 * eighth blocks in UTF-8, '#' then '.' in ASCII. */
void chart_bar(double frac, int width, bool utf8, char *out, size_t n);
/* The last `width` values (fewer: left-aligned) as one line of levels
 * scaled between lo and hi: ▁..█ or ASCII "_.-=+*#@". */
void chart_spark(const double *v, int nv, double lo, double hi, int width, bool utf8, char *out, size_t n);
/* A line graph of the last values in h rows of w cells, row 0 on top:
 * braille (2x4 dots a cell) in UTF-8, '*' in ASCII. rows is h strings of
 * rowcap bytes each. */
void chart_lines(const double *v, int nv, double lo, double hi, int w, int h, bool utf8, char *rows, size_t rowcap);
/* A scatter plot of points (x[i], y[i]) scaled to [x0,x1] x [y0,y1] in h
 * rows of w cells, row 0 on top: braille dots in UTF-8; in ASCII one cell a
 * point, marked '*'. rows as for chart_lines. */
void chart_scatter(const double *x, const double *y, int n, double x0, double x1, double y0, double y1, int w, int h,
                   bool utf8, char *rows, size_t rowcap);
/* Up to CHART_OVERLAY_MAX series over one another in h rows of w cells,
 * row 0 on top: v[s] holds w values of series s (one a column), drawn with
 * its own mark, chart_overlay_mark(s); a point joins the previous one in
 * the column so a steep change stays a line; a cell more than one series
 * passes through shows chart_overlay_mark(-1). rows as for chart_lines. */
#define CHART_OVERLAY_MAX 4
void chart_overlay(const double *const *v, int ns, double lo, double hi, int w, int h, bool utf8, char *rows, size_t rowcap);
/* The mark of series s (-1: of a cell shared by several): ● ○ ◆ ◇ and ◉,
 * or in ASCII * o + x and #. */
const char *chart_overlay_mark(int s, bool utf8);
/* A bar of set s of an overlay, width cells: frac of them (at least one
 * when frac > 0) in the set's mark, then blanks. */
void chart_overlay_bar(double frac, int s, int width, bool utf8, char *out, size_t n);
/* An axis over [dmin, dmax] in 1-2-5 steps: lo <= dmin, hi >= dmax, each
 * end within one step of the data, about `ticks` ticks from lo to hi.
 * An empty or one-value range gets one step either side of its value. */
struct chart_axis {
    double lo, hi, step;
    int nticks;                  /* lo, lo + step, ..., hi */
};
void chart_axis_nice(double dmin, double dmax, int ticks, struct chart_axis *a);
/* Round hi up to a 1-2-5 step so axes read well (0 stays 1). */
double chart_nice_max(double hi);

#endif
