/* textview — lines of segments, scrolling, a cursor, drawing. */
#include "ui/textview.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_lines(struct textview *tv)
{
    for (int i = 0; i < tv->n; i++) {
        for (int j = 0; j < tv->lines[i].nsegs; j++) free(tv->lines[i].segs[j].text);
        free(tv->lines[i].segs);
    }
    tv->n = 0;
}

void tv_clear(struct textview *tv) { free_lines(tv); }

void tv_free(struct textview *tv)
{
    free_lines(tv);
    free(tv->lines);
    tv->lines = NULL;
    tv->cap = 0;
}

void tv_line(struct textview *tv, bool selectable, int tag)
{
    if (tv->n >= TV_MAX_LINES) return;
    tv->lines = xgrow(tv->lines, tv->n, &tv->cap, sizeof *tv->lines, 64);
    struct tv_line *l = &tv->lines[tv->n++];
    l->selectable = selectable;
    l->tag = tag;
}

/* A segment of text (malloc'ed; the line keeps it, or it is freed when
 * the view is full) at the end of the last line. */
static void add_seg(struct textview *tv, enum role r, char *text)
{
    if (tv->n == 0) tv_line(tv, false, -1);
    if (tv->n >= TV_MAX_LINES && tv->lines[tv->n - 1].nsegs > 64) {
        free(text);
        return;
    }
    struct tv_line *l = &tv->lines[tv->n - 1];
    l->segs = xrealloc(l->segs, sizeof *l->segs * (size_t)(l->nsegs + 1));
    l->segs[l->nsegs].role = r;
    l->segs[l->nsegs].text = text;
    l->nsegs++;
}

void tv_add(struct textview *tv, enum role r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_seg(tv, r, xvstrfmt(fmt, ap));
    va_end(ap);
}

void tv_wrap(struct textview *tv, enum role r, const char *lead, const char *text, int width)
{
    char line[1024];
    int indent = draw_cells(lead);
    const char *p = text;
    for (bool first = true; draw_wrap_next(&p, width - indent, line, sizeof line); first = false) {
        tv_line(tv, false, -1);
        tv_add(tv, r, "%*s%s", first ? 0 : indent, first ? lead : "", line);
    }
}

void tv_cell(struct textview *tv, enum role r, int w, const char *text)
{
    char buf[1024];
    draw_clip(text, w, buf, sizeof buf - 2);
    int pad = w - draw_cells(buf);
    size_t len = strlen(buf);
    while (pad-- > 0 && len + 2 < sizeof buf) buf[len++] = ' ';
    buf[len++] = ' ';
    buf[len] = 0;
    add_seg(tv, r, xstrdup(buf));
}

void tv_cursor_init(struct textview *tv)
{
    tv->use_cursor = true;
    tv->cursor = -1;
}

void tv_header(struct textview *tv, int n, const char *const heads[], const int widths[])
{
    tv_line(tv, false, -1);
    for (int i = 0; i < n; i++) {
        if (widths[i]) tv_cell(tv, ROLE_HEADER, widths[i], heads[i]);
        else tv_add(tv, ROLE_HEADER, "%s", heads[i]);
    }
}

int tv_selected_tag(const struct textview *tv)
{
    if (!tv->use_cursor || tv->cursor < 0 || tv->cursor >= tv->n) return -1;
    return tv->lines[tv->cursor].selectable ? tv->lines[tv->cursor].tag : -1;
}

void tv_select_tag(struct textview *tv, int tag)
{
    for (int i = 0; i < tv->n; i++)
        if (tv->lines[i].selectable && tv->lines[i].tag == tag) { tv->cursor = i; return; }
}

/* The nearest selectable line from i in direction dir (then the other way). */
static int nearest_selectable(const struct textview *tv, int i, int dir)
{
    if (i < 0) i = 0;
    if (i >= tv->n) i = tv->n - 1;
    for (int j = i; j >= 0 && j < tv->n; j += dir)
        if (tv->lines[j].selectable) return j;
    for (int j = i; j >= 0 && j < tv->n; j -= dir)
        if (tv->lines[j].selectable) return j;
    return -1;
}

/* A pager's cursor goes over every line; a page key moves the view by a
 * page and the cursor with it. */
static enum handled pager_move(struct textview *tv, enum action a, int c, int page)
{
    switch (a) {
    case ACT_UP: c--; break;
    case ACT_DOWN: c++; break;
    case ACT_PAGE_UP: c -= page; tv->top -= page; break;
    case ACT_PAGE_DOWN:
        if (tv->top + tv->page >= tv->n) { c = tv->n - 1; break; }   /* the last page: to the end */
        c += page;
        tv->top += page;
        break;
    case ACT_FIRST: c = 0; tv->top = 0; break;
    case ACT_LAST: c = tv->n - 1; break;
    default: return H_IGNORED;
    }
    if (tv->top < 0) tv->top = 0;
    if (c >= tv->n) c = tv->n - 1;
    tv->cursor = c < 0 ? 0 : c;
    return H_HANDLED;
}

#define HSTEP 16   /* cells a Left/Right scrolls */

enum handled tv_move(struct textview *tv, enum action a)
{
    int page = tv->page > 1 ? tv->page - 1 : 1;
    if (a == ACT_LEFT || a == ACT_RIGHT) {   /* tv_draw stops it at the longest line */
        tv->left += a == ACT_LEFT ? -HSTEP : HSTEP;
        if (tv->left < 0) tv->left = 0;
        return H_HANDLED;
    }
    if (!tv->use_cursor) {
        switch (a) {
        case ACT_UP: tv->top--; break;
        case ACT_DOWN: tv->top++; break;
        case ACT_PAGE_UP: tv->top -= page; break;
        case ACT_PAGE_DOWN: tv->top += page; break;
        case ACT_FIRST: tv->top = 0; break;
        case ACT_LAST: tv->top = tv->n; break;
        default: return H_IGNORED;
        }
        return H_HANDLED;   /* tv_draw clamps */
    }
    int c = tv->cursor < 0 ? 0 : tv->cursor;
    if (tv->pager) return pager_move(tv, a, c, page);
    switch (a) {
    case ACT_UP: {
        int j = c - 1;
        while (j >= 0 && !tv->lines[j].selectable) j--;
        if (j >= 0) c = j;
        else tv->top = 0;    /* show the heading above the first row */
        break;
    }
    case ACT_DOWN: {
        int j = c + 1;
        while (j < tv->n && !tv->lines[j].selectable) j++;
        if (j < tv->n) c = j;
        break;
    }
    case ACT_PAGE_UP: c = nearest_selectable(tv, c - page, -1); break;
    case ACT_PAGE_DOWN: c = nearest_selectable(tv, c + page, 1); break;
    case ACT_FIRST: c = nearest_selectable(tv, 0, 1); tv->top = 0; break;
    case ACT_LAST: c = nearest_selectable(tv, tv->n - 1, -1); break;
    default: return H_IGNORED;
    }
    tv->cursor = c;
    return H_HANDLED;
}

static bool line_has(const struct tv_line *l, const char *needle)
{
    char text[2048];
    size_t len = 0;
    for (int j = 0; j < l->nsegs && len + 1 < sizeof text; j++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s", l->segs[j].text);
    return strcasestr(text, needle) != NULL;
}

int tv_find(struct textview *tv, const char *needle, int from, int dir)
{
    if (!needle[0] || tv->n == 0) return -1;
    for (int k = 1; k <= tv->n; k++) {
        int i = ((from + dir * k) % tv->n + tv->n) % tv->n;
        const struct tv_line *l = &tv->lines[i];
        if ((tv->use_cursor && !tv->pager && !l->selectable) || !line_has(l, needle)) continue;
        if (tv->pager) {
            tv->cursor = i;
            tv->top = i;
        } else if (tv->use_cursor) tv->cursor = i;
        else {
            tv->top = i;
            tv->found = i + 1;
        }
        return i;
    }
    return -1;
}

static int line_cells(const struct tv_line *l)
{
    int w = 0;
    for (int j = 0; j < l->nsegs; j++) w += draw_cells(l->segs[j].text);
    return w;
}

/* s past its first n cells; *n is left with the cells still to skip. */
static const char *skip_cells(const char *s, int *n)
{
    while (*s && *n > 0) {
        s++;
        while (((unsigned char)*s & 0xC0) == 0x80) s++;
        (*n)--;
    }
    return s;
}

int tv_click(struct textview *tv, int row)
{
    int i = tv->top + row;
    if (!tv->use_cursor || row < 0 || i >= tv->n || (!tv->pager && !tv->lines[i].selectable)) return -1;
    if (tv->cursor == i) return 1;
    tv->cursor = i;
    return 0;
}

void tv_draw(struct textview *tv, struct rect r)
{
    tv->page = r.h;
    draw_target_add(r, TARGET_VIEW, tv, 0);
    if (tv->left > 0) {   /* no further than the longest line's end */
        int widest = 0;
        for (int i = 0; i < tv->n; i++) {
            int w = line_cells(&tv->lines[i]);
            if (w > widest) widest = w;
        }
        int most = widest - r.w + 1 > 0 ? widest - r.w + 1 : 0;
        if (tv->left > most) tv->left = most;
    }
    if (tv->use_cursor && tv->pager) {
        if (tv->cursor >= tv->n) tv->cursor = tv->n - 1;
        if (tv->cursor < 0) tv->cursor = 0;
        if (tv->cursor < tv->top) tv->top = tv->cursor;
        if (tv->cursor >= tv->top + r.h) tv->top = tv->cursor - r.h + 1;
    } else if (tv->use_cursor) {
        if (tv->cursor < 0 || tv->cursor >= tv->n || !tv->lines[tv->cursor].selectable)
            tv->cursor = nearest_selectable(tv, tv->cursor < 0 ? 0 : tv->cursor, 1);
        if (tv->cursor >= 0) {
            if (tv->cursor < tv->top) tv->top = tv->cursor;
            if (tv->cursor >= tv->top + r.h) tv->top = tv->cursor - r.h + 1;
        }
    }
    if (tv->top > tv->n - r.h) tv->top = tv->n - r.h;
    if (tv->top < 0) tv->top = 0;
    for (int row = 0; row < r.h; row++) {
        int i = tv->top + row;
        if (i >= tv->n) break;
        const struct tv_line *l = &tv->lines[i];
        bool sel = tv->use_cursor ? i == tv->cursor : i == tv->found - 1;
        int x = 0, skip = tv->left;
        if (sel) draw_fill(r.y + row, r.x, r.w, ROLE_SELECTED);
        for (int j = 0; j < l->nsegs && x < r.w; j++) {
            const char *text = skip ? skip_cells(l->segs[j].text, &skip) : l->segs[j].text;
            x += draw_text(r.y + row, r.x + x, r.w - x, sel ? ROLE_SELECTED : l->segs[j].role, text);
        }
    }
    /* A scroll mark when there is more below or above. */
    const struct glyphs *g = term_glyphs();
    if (tv->top + r.h < tv->n) draw_text(r.y + r.h - 1, r.x + r.w - 1, 1, ROLE_DIM, g->utf8 ? "↓" : "v");
    if (tv->top > 0) draw_text(r.y, r.x + r.w - 1, 1, ROLE_DIM, g->utf8 ? "↑" : "^");
    if (tv->left > 0 && r.h > 0) draw_text(r.y + r.h / 2, r.x, 1, ROLE_DIM, g->utf8 ? "←" : "<");   /* scrolled sideways */
}
