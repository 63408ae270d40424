/* sortcols — the sort column, its mark and the rows' order (sortcols.h). */
#include "ui/sortcols.h"
#include "ui/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sort_cols_init(struct sort_cols *s, const struct sort_col *cols, int n, int by, const char *none)
{
    memset(s, 0, sizeof *s);
    s->n = n < SORT_COLS_MAX ? n : SORT_COLS_MAX;
    memcpy(s->col, cols, sizeof *cols * (size_t)s->n);
    s->by = by;
    s->allow_none = none != NULL;
    s->none = none;
}

enum handled sort_cols_key(struct sort_cols *s, struct app *app, enum action a)
{
    if (a == ACT_SORT_REVERSE) {
        if (s->by < 0) { app_message(app, ROLE_NORMAL, "in %s: < > sort by a column first", s->none); return H_HANDLED; }
        s->reversed = !s->reversed;
        const char *head = s->col[s->by].head;
        bool up = s->col[s->by].ascending != s->reversed;
        app_message(app, ROLE_NORMAL, "sorted by %s, %s first (i turns it round)", head + strspn(head, " "),
                    up ? "the smallest" : "the largest");
        return H_HANDLED;
    }
    if (a != ACT_SORT_PREV && a != ACT_SORT_NEXT) return H_IGNORED;
    s->reversed = false;
    /* the round: -1 (the list's own order, when allowed), 0 .. n-1 */
    int first = s->allow_none ? -1 : 0, len = s->n - first;
    do   /* a column not drawn at this width is passed over */
        s->by = ((s->by - first + (a == ACT_SORT_NEXT ? 1 : len - 1)) % len) + first;
    while (s->by >= 0 && s->col[s->by].width <= 0);
    if (s->by < 0) {
        app_message(app, ROLE_NORMAL, "in %s (< > sort by a column)", s->none);
        return H_HANDLED;
    }
    const char *head = s->col[s->by].head;
    app_message(app, ROLE_NORMAL, "sorted by %s (< > another column)", head + strspn(head, " "));
    return H_HANDLED;
}

void sort_cols_draw(const struct sort_cols *s, int y, int x)
{
    const struct glyphs *g = term_glyphs();
    for (int c = 0; c < s->n; c++) {
        const struct sort_col *col = &s->col[c];
        if (col->width <= 0) continue;
        char head[64];
        bool up = col->ascending != s->reversed;
        const char *mark = c != s->by ? "" : g->utf8 ? (up ? "▲" : "▼") : (up ? "^" : "v");
        snprintf(head, sizeof head, "%s%s", col->head, mark);
        draw_cell(y, x, col->width + 1, c == s->by ? ROLE_SELECTED : ROLE_HEADER, head);
        x += col->width + 1;
    }
}

struct order_ctx {
    int (*cmp)(int i, int j, void *arg);
    void *arg;
    int sign;
};

static int by_cmp(const void *x, const void *y, void *p)
{
    const struct order_ctx *c = p;
    int i = *(const int *)x, j = *(const int *)y, r = c->sign * c->cmp(i, j, c->arg);
    return r ? r : (i > j) - (i < j);
}

void sort_cols_order(const struct sort_cols *s, int *order, int n, int (*cmp)(int i, int j, void *arg), void *arg)
{
    struct order_ctx c = { cmp, arg, s->reversed && s->by >= 0 ? -1 : 1 };
    for (int i = 0; i < n; i++) order[i] = i;
    if (n > 1) qsort_r(order, (size_t)n, sizeof *order, by_cmp, &c);
}
