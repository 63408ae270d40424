/* draw — clipped, role-coloured text and simple shapes on stdscr. */
#include "ui/draw.h"
#include "core/esc.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

int draw_cells(const char *s)
{
    int n = 0;
    for (; *s; s++)
        if (!is_cont((unsigned char)*s)) n++;
    return n;
}

/* Bytes of s that fit in w cells. */
static size_t fit_bytes(const char *s, int w)
{
    size_t i = 0;
    int cells = 0;
    while (s[i]) {
        if (!is_cont((unsigned char)s[i])) {
            if (cells == w) break;
            cells++;
        }
        i++;
    }
    return i;
}

int draw_text(int y, int x, int maxw, enum role r, const char *raw)
{
    if (maxw <= 0 || y < 0 || y >= LINES || x >= COLS) return 0;
    /* Device strings and names from merged databases: a newline or an
     * escape sequence would break the screen, so they are shown as \xHH. */
    char s[1024];
    esc_term(raw, s, sizeof s, 0);
    if (x + maxw > COLS) maxw = COLS - x;
    size_t n = fit_bytes(s, maxw);
    attrset(term_attr(r));
    mvaddnstr(y, x, s, (int)n);
    attrset(A_NORMAL);
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%.*s", (int)n, s);
    return draw_cells(tmp);
}

int draw_fmt(int y, int x, int maxw, enum role r, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return draw_text(y, x, maxw, r, buf);
}

void draw_fill(int y, int x, int w, enum role r)
{
    if (y < 0 || y >= LINES) return;
    if (x + w > COLS) w = COLS - x;
    attrset(term_attr(r));
    for (int i = 0; i < w; i++) mvaddch(y, x + i, ' ');
    attrset(A_NORMAL);
}

void draw_cell(int y, int x, int w, enum role r, const char *s)
{
    int used = draw_text(y, x, w, r, s);
    if (used < w) draw_fill(y, x + used, w - used, r);
}

void draw_hline(int y, int x, int w, enum role r)
{
    const char *g = term_glyphs()->hline;
    for (int i = 0; i < w; i++) draw_text(y, x + i, 1, r, g);
}

void draw_box(struct rect b, enum role r, const char *title)
{
    const struct glyphs *g = term_glyphs();
    if (b.h < 2 || b.w < 2) return;
    for (int y = b.y; y < b.y + b.h; y++) draw_fill(y, b.x, b.w, r);
    draw_text(b.y, b.x, 1, r, g->tl);
    draw_hline(b.y, b.x + 1, b.w - 2, r);
    draw_text(b.y, b.x + b.w - 1, 1, r, g->tr);
    for (int y = b.y + 1; y < b.y + b.h - 1; y++) {
        draw_text(y, b.x, 1, r, g->vline);
        draw_text(y, b.x + b.w - 1, 1, r, g->vline);
    }
    draw_text(b.y + b.h - 1, b.x, 1, r, g->bl);
    draw_hline(b.y + b.h - 1, b.x + 1, b.w - 2, r);
    draw_text(b.y + b.h - 1, b.x + b.w - 1, 1, r, g->br);
    if (title && *title) draw_fmt(b.y, b.x + 2, b.w - 4, r, " %s ", title);
}

bool draw_wrap_next(const char **p, int width, char *line, size_t cap)
{
    const char *s = *p;
    if (width < 1) width = 1;
    while (*s == ' ') s++;
    if (!*s || cap < 2) { *p = s; return false; }
    size_t fit = fit_bytes(s, width);
    if (fit > cap - 1) {   /* a cut mid-character would lose text: back off to its start */
        fit = cap - 1;
        while (fit > 1 && is_cont((unsigned char)s[fit])) fit--;
    }
    if (s[fit] && s[fit] != ' ') {
        size_t cut = fit;
        while (cut > 0 && s[cut] != ' ') cut--;
        if (cut > 0) fit = cut;
    }
    snprintf(line, cap, "%.*s", (int)fit, s);
    *p = s + fit;
    return true;
}

int draw_wrap(const char *text, int width, char (*lines)[256], int max)
{
    int n = 0;
    if (width > 255) width = 255;
    while (n < max && draw_wrap_next(&text, width, lines[n], sizeof lines[n])) n++;
    return n;
}

void draw_clip(const char *raw, int w, char *buf, size_t n)
{
    char s[1024];
    esc_term(raw, s, sizeof s, 0);  /* measured as it will be shown (see draw_text) */
    if (draw_cells(s) <= w) { snprintf(buf, n, "%s", s); return; }
    const char *ell = term_glyphs()->ellipsis;
    int ew = draw_cells(ell);
    size_t keep = fit_bytes(s, w > ew ? w - ew : 0);
    snprintf(buf, n, "%.*s%s", (int)keep, s, w > ew ? ell : "");
}

#define MAX_TARGETS 256
static struct draw_target targets[MAX_TARGETS];
static int ntargets;

void draw_targets_clear(void) { ntargets = 0; }

void draw_target_add(struct rect r, enum target_kind kind, void *obj, int arg)
{
    if (ntargets == MAX_TARGETS || r.h <= 0 || r.w <= 0) return;
    targets[ntargets++] = (struct draw_target){ r, kind, obj, arg };
}

const struct draw_target *draw_target_at(int y, int x)
{
    for (int i = ntargets - 1; i >= 0; i--) {
        const struct rect *r = &targets[i].r;
        if (y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w) return &targets[i];
    }
    return NULL;
}
