/* chart — bars, sparklines and braille line graphs as UTF-8 or ASCII text. */
#include "report/chart.h"

#include <math.h>
#include <string.h>

static const char *const eighths[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
static const char *const levels_utf8[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
static const char levels_ascii[] = "_.-=+*#@";

/* Append s to out (n bytes, NUL kept); silently stops when full. */
static void put(char *out, size_t n, size_t *len, const char *s)
{
    size_t l = strlen(s);
    if (*len + l + 1 > n) return;
    memcpy(out + *len, s, l + 1);
    *len += l;
}

static double clamp01(double f)
{
    if (!(f > 0)) return 0; /* NaN too */
    return f > 1 ? 1 : f;
}

void chart_bar(double frac, int width, bool utf8, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    if (width <= 0 || n == 0) return;
    int eighths_total = (int)lround(clamp01(frac) * width * 8);
    int full = eighths_total / 8, part = eighths_total % 8, cells = 0;
    for (; cells < full; cells++) put(out, n, &len, utf8 ? "█" : "#");
    if (part && cells < width) {
        put(out, n, &len, utf8 ? eighths[part] : (part >= 4 ? "#" : "."));
        cells++;
    }
    for (; cells < width; cells++) put(out, n, &len, utf8 ? " " : ".");
}

static double scaled(double v, double lo, double hi)
{
    return hi > lo ? clamp01((v - lo) / (hi - lo)) : 0;
}

void chart_spark(const double *v, int nv, double lo, double hi, int width, bool utf8, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    int first = nv > width ? nv - width : 0;
    for (int i = first; i < nv; i++) {
        int lvl = (int)lround(scaled(v[i], lo, hi) * 7);
        if (utf8) put(out, n, &len, levels_utf8[lvl]);
        else {
            char c[2] = { levels_ascii[lvl], 0 };
            put(out, n, &len, c);
        }
    }
}

/* Braille dot bits: column 0 top to bottom, then column 1. */
static const unsigned dot_bits[2][4] = { { 0x01, 0x02, 0x04, 0x40 }, { 0x08, 0x10, 0x20, 0x80 } };

static void utf8_braille(unsigned bits, char s[4])
{
    unsigned cp = 0x2800 + bits;
    s[0] = (char)0xE2;
    s[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    s[2] = (char)(0x80 | (cp & 0x3F));
    s[3] = 0;
}

#define LINES_MAX_W 512
#define LINES_MAX_H 64

static void grid_rows(unsigned char (*grid)[LINES_MAX_W * 2], int w, int h, bool utf8, char *rows, size_t rowcap);

void chart_lines(const double *v, int nv, double lo, double hi, int w, int h, bool utf8, char *rows, size_t rowcap)
{
    if (w > LINES_MAX_W) w = LINES_MAX_W;
    if (h > LINES_MAX_H) h = LINES_MAX_H;
    if (w <= 0 || h <= 0) return;
    int xs = utf8 ? 2 : 1, ys = utf8 ? 4 : 1;   /* dots per cell */
    int npts = w * xs, ndots = h * ys;
    static unsigned char grid[LINES_MAX_H * 4][LINES_MAX_W * 2];
    memset(grid, 0, sizeof grid);
    int first = nv > npts ? nv - npts : 0, prev = -1;
    for (int i = first; i < nv; i++) {
        int x = i - first;
        int y = (int)lround(scaled(v[i], lo, hi) * (ndots - 1));   /* 0 = bottom */
        int a = prev < 0 ? y : prev, b = y;
        if (a > b) { int t = a; a = b; b = t; }
        /* Join to the previous point so steep changes stay one line. */
        for (int yy = a; yy <= b; yy++) grid[ndots - 1 - yy][x] = 1;
        prev = y;
    }
    grid_rows(grid, w, h, utf8, rows, rowcap);
}

static const char *const overlay_utf8[CHART_OVERLAY_MAX + 1] = { "◉", "●", "○", "◆", "◇" };
static const char *const overlay_ascii[CHART_OVERLAY_MAX + 1] = { "#", "*", "o", "+", "x" };

const char *chart_overlay_mark(int s, bool utf8)
{
    if (s < -1 || s >= CHART_OVERLAY_MAX) s = -1;
    return (utf8 ? overlay_utf8 : overlay_ascii)[s + 1];
}

void chart_overlay(const double *const *v, int ns, double lo, double hi, int w, int h, bool utf8, char *rows, size_t rowcap)
{
    if (w > LINES_MAX_W) w = LINES_MAX_W;
    if (h > LINES_MAX_H) h = LINES_MAX_H;
    if (ns > CHART_OVERLAY_MAX) ns = CHART_OVERLAY_MAX;
    if (w <= 0 || h <= 0) return;
    static unsigned char who[LINES_MAX_H][LINES_MAX_W];   /* bit s: series s passes the cell */
    memset(who, 0, sizeof who);
    for (int s = 0; s < ns; s++) {
        int prev = -1;
        for (int x = 0; x < w; x++) {
            int y = (int)lround(scaled(v[s][x], lo, hi) * (h - 1));   /* 0 = bottom */
            int a = prev < 0 ? y : prev, b = y;
            if (a > b) { int t = a; a = b; b = t; }
            for (int yy = a; yy <= b; yy++) who[h - 1 - yy][x] |= (unsigned char)(1u << s);
            prev = y;
        }
    }
    for (int r = 0; r < h; r++) {
        char *out = rows + (size_t)r * rowcap;
        size_t len = 0;
        out[0] = 0;
        for (int c = 0; c < w; c++) {
            unsigned bits = who[r][c];
            int s = bits == 0 ? -2 : (bits & (bits - 1)) ? -1 : __builtin_ctz(bits);
            put(out, rowcap, &len, s == -2 ? " " : chart_overlay_mark(s, utf8));
        }
    }
}

void chart_overlay_bar(double frac, int s, int width, bool utf8, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    if (width <= 0 || n == 0) return;
    int cells = (int)lround(clamp01(frac) * width);
    if (cells == 0 && frac > 0) cells = 1;   /* a bucket with samples is never blank */
    for (int c = 0; c < width; c++) put(out, n, &len, c < cells ? chart_overlay_mark(s, utf8) : " ");
}

/* Render a dot grid (ndots rows of npts columns) into text rows. */
static void grid_rows(unsigned char (*grid)[LINES_MAX_W * 2], int w, int h, bool utf8, char *rows, size_t rowcap)
{
    for (int r = 0; r < h; r++) {
        char *out = rows + (size_t)r * rowcap;
        size_t len = 0;
        out[0] = 0;
        for (int c = 0; c < w; c++) {
            if (!utf8) {
                put(out, rowcap, &len, grid[r][c] ? "*" : " ");
                continue;
            }
            unsigned bits = 0;
            for (int dx = 0; dx < 2; dx++)
                for (int dy = 0; dy < 4; dy++)
                    if (grid[r * 4 + dy][c * 2 + dx]) bits |= dot_bits[dx][dy];
            char s[4];
            utf8_braille(bits, s);
            put(out, rowcap, &len, bits ? s : " ");
        }
    }
}

void chart_scatter(const double *x, const double *y, int n, double x0, double x1, double y0, double y1, int w, int h,
                   bool utf8, char *rows, size_t rowcap)
{
    if (w > LINES_MAX_W) w = LINES_MAX_W;
    if (h > LINES_MAX_H) h = LINES_MAX_H;
    if (w <= 0 || h <= 0) return;
    int npts = w * (utf8 ? 2 : 1), ndots = h * (utf8 ? 4 : 1);
    static unsigned char grid[LINES_MAX_H * 4][LINES_MAX_W * 2];
    memset(grid, 0, sizeof grid);
    for (int i = 0; i < n; i++) {
        int cx = (int)lround(scaled(x[i], x0, x1) * (npts - 1));
        int cy = (int)lround(scaled(y[i], y0, y1) * (ndots - 1));
        grid[ndots - 1 - cy][cx] = 1;
    }
    grid_rows(grid, w, h, utf8, rows, rowcap);
}

double chart_nice_max(double hi)
{
    if (!(hi > 0)) return 1;
    double p = pow(10, floor(log10(hi)));
    for (int i = 0; i < 3; i++) {
        static const double steps[] = { 1, 2, 5 };
        if (steps[i] * p >= hi) return steps[i] * p;
    }
    return 10 * p;
}

/* The 1-2-5 step of at least raw. */
static double nice_step(double raw)
{
    double p = pow(10, floor(log10(raw)));
    static const double steps[] = { 1, 2, 5, 10 };
    for (int i = 0; i < 4; i++)
        if (steps[i] * p >= raw * (1 - 1e-9)) return steps[i] * p;
    return 10 * p;
}

void chart_axis_nice(double dmin, double dmax, int ticks, struct chart_axis *a)
{
    if (!isfinite(dmin) || !isfinite(dmax)) dmin = dmax = 0;
    if (dmax < dmin) { double t = dmin; dmin = dmax; dmax = t; }
    if (ticks < 2) ticks = 2;
    double range = dmax - dmin;
    if (!(range > 0)) range = fabs(dmax) > 0 ? fabs(dmax) / 5 : 1;
    a->step = nice_step(range / (ticks - 1));
    a->lo = floor(dmin / a->step + 1e-9) * a->step;
    a->hi = ceil(dmax / a->step - 1e-9) * a->step;
    if (a->lo == dmin && a->hi == dmax && dmin == dmax) { a->lo -= a->step; a->hi += a->step; }
    if (a->hi <= a->lo) a->hi = a->lo + a->step;
    a->nticks = (int)lround((a->hi - a->lo) / a->step) + 1;
}
