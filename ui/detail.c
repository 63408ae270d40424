/* detail — a report in a scrollable text view. */
#include "detail.h"

#include <stdio.h>
#include <string.h>

static const enum role kind_role[] = {
    [RI_HEAD] = ROLE_HEADER, [RI_TEXT] = ROLE_NORMAL, [RI_NOTE] = ROLE_DIM, [RI_WARN] = ROLE_WARN,
    [RI_CHART] = ROLE_GRAPH,
};

static void add_line(void *arg, enum report_item_kind kind, const char *line)
{
    struct textview *tv = arg;
    tv_line(tv, false, -1);
    tv_add(tv, kind_role[kind], "%s", line);
}

static void rebuild(struct detail *d, int width)
{
    tv_clear(&d->tv);
    d->width = width;
    report_text(&d->rep, width - 1, term_glyphs()->utf8, add_line, &d->tv);   /* the last column: scroll marks */
}

void detail_open(struct detail *d, struct store *st, const char *id)
{
    detail_close(d);
    sl_err e;
    if (!st || report_build(st, id, &d->rep, &e) < 0) {
        memset(&d->rep, 0, sizeof d->rep);
        snprintf(d->rep.title, sizeof d->rep.title, "%.40s", id);
        report_add(&d->rep, RI_WARN, "%s", st ? e.msg : "no results database is open");
    }
    d->open = true;
    d->tv.top = 0;
    d->tv.use_cursor = false;
    d->width = 0;
}

void detail_draw(struct detail *d, struct rect r)
{
    if (r.w != d->width) rebuild(d, r.w);
    draw_fmt(r.y, r.x, r.w, ROLE_HEADER, "%s (Esc back)", d->rep.title);
    tv_draw(&d->tv, (struct rect){ r.y + 1, r.x, r.h - 1, r.w });
}

enum handled detail_key(struct detail *d, enum action a)
{
    if (a == ACT_BACK) { detail_close(d); return H_HANDLED; }
    return tv_move(&d->tv, a);
}

void detail_close(struct detail *d)
{
    report_free(&d->rep);
    tv_free(&d->tv);
    d->open = false;
    d->width = 0;
}
