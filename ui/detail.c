/* detail — reports in scrollable text views, one over the other. */
#include "ui/detail.h"

#include <stdio.h>
#include <string.h>

static const enum role kind_role[] = {
    [RI_HEAD] = ROLE_HEADER, [RI_TEXT] = ROLE_NORMAL, [RI_NOTE] = ROLE_DIM, [RI_WARN] = ROLE_WARN,
    [RI_CHART] = ROLE_GRAPH, [RI_CLAIM] = ROLE_OK, [RI_NOCLAIM] = ROLE_WARN, [RI_PRE] = ROLE_NORMAL,
    [RI_ROWHEAD] = ROLE_HEADER, [RI_ROW] = ROLE_NORMAL,
};

/* A line naming something is selectable; its tag finds the item's ref. */
static void add_line(void *arg, enum report_item_kind kind, const char *ref, const char *line)
{
    struct detail_level *lv = arg;
    int tag = -1;
    if (ref[0])
        for (int i = 0; i < lv->rep.n; i++)
            if (strcmp(lv->rep.items[i].ref, ref) == 0) { tag = i; break; }
    tv_line(&lv->tv, tag >= 0, tag);
    tv_add(&lv->tv, kind_role[kind], "%s", line);
}

static void rebuild(struct detail_level *lv, int width)
{
    tv_clear(&lv->tv);
    lv->width = width;
    report_text(&lv->rep, width - 1, term_glyphs()->utf8, add_line, lv);   /* the last column: scroll marks */
}

static void push(struct detail *d, const char *id)
{
    if (d->depth == DETAIL_DEPTH) return;
    struct detail_level *lv = &d->lv[d->depth++];
    memset(lv, 0, sizeof *lv);
    sl_err e;
    if (!d->st || report_build(d->st, id, &lv->rep, &e) < 0) {
        memset(&lv->rep, 0, sizeof lv->rep);
        snprintf(lv->rep.title, sizeof lv->rep.title, "%.40s", id);
        report_add(&lv->rep, RI_WARN, "%s", d->st ? e.msg : "no results database is open");
    }
    lv->tv.use_cursor = true;
    lv->tv.pager = true;
}

static void pop(struct detail *d)
{
    struct detail_level *lv = &d->lv[--d->depth];
    report_free(&lv->rep);
    tv_free(&lv->tv);
    lv->width = 0;
    if (d->depth == 0) d->open = false;
}

void detail_open(struct detail *d, struct store *st, const char *id)
{
    detail_close(d);
    d->st = st;
    d->open = true;
    push(d, id);
}

bool detail_hint_on(struct detail *d, enum action a)
{
    return a == ACT_BACK || (a == ACT_EDIT && tv_selected_tag(&d->lv[d->depth - 1].tv) >= 0);
}

struct textview *detail_view(struct detail *d) { return d->open ? &d->lv[d->depth - 1].tv : NULL; }

void detail_draw(struct detail *d, struct rect r)
{
    struct detail_level *lv = &d->lv[d->depth - 1];
    if (r.w != lv->width) rebuild(lv, r.w);
    draw_fmt(r.y, r.x, r.w, ROLE_HEADER, "%s (Esc back)", lv->rep.title);
    tv_draw(&lv->tv, (struct rect){ r.y + 1, r.x, r.h - 1, r.w });
}

enum handled detail_key(struct detail *d, enum action a)
{
    struct detail_level *lv = &d->lv[d->depth - 1];
    if (a == ACT_BACK) { pop(d); return H_HANDLED; }
    if (a == ACT_EDIT) {
        int tag = tv_selected_tag(&lv->tv);
        if (tag >= 0 && tag < lv->rep.n) {
            char ref[sizeof lv->rep.items[0].ref];
            snprintf(ref, sizeof ref, "%s", lv->rep.items[tag].ref);
            push(d, ref);
        }
        return H_HANDLED;
    }
    return tv_move(&lv->tv, a);
}

void detail_close(struct detail *d)
{
    while (d->depth > 0) pop(d);
    d->open = false;
}
