/* sortcols — htop's sortable table (< and >): a list's columns, the one it
 * is sorted by, the header with that column marked, and the rows' order.
 * The Results, Knobs and Sessions lists use it. */
#ifndef SLUICE_UI_SORTCOLS_H
#define SLUICE_UI_SORTCOLS_H

#include <stdbool.h>
#include "ui/screen.h"

#define SORT_COLS_MAX 10

struct sort_col {
    const char *head;
    int width;           /* cells (the header takes one more); <= 0: not drawn */
    bool ascending;      /* marked ▲: A or the smallest first; ▼: the largest or newest first */
};

struct sort_cols {
    struct sort_col col[SORT_COLS_MAX];
    int n;
    int by;              /* the sort column; -1: the list's own order (allow_none only) */
    bool reversed;       /* i: the sort column's order turned round */
    bool allow_none;
    const char *none;    /* what the list's own order is ("catalogue order") */
};

/* n columns (at most SORT_COLS_MAX), sorted by column `by`; allow_none
 * puts the list's own order (called `none`) in the round of < and >. */
void sort_cols_init(struct sort_cols *s, const struct sort_col *cols, int n, int by, const char *none);
/* < and > (ACT_SORT_PREV, ACT_SORT_NEXT): the column before or after, in
 * its own order; i (ACT_SORT_REVERSE): that order turned round; said on the
 * message line; H_IGNORED for other actions. */
enum handled sort_cols_key(struct sort_cols *s, struct app *app, enum action a);
/* The header at (y, x): each drawn column's head in its width + 1 cells,
 * the sort column marked and highlighted. */
void sort_cols_draw(const struct sort_cols *s, int y, int x);
/* order[0..n-1] = 0..n-1 sorted by cmp(i, j, arg) (< 0: row i first),
 * turned round when s is reversed; ties keep the rows' own order. */
void sort_cols_order(const struct sort_cols *s, int *order, int n, int (*cmp)(int i, int j, void *arg), void *arg);

#endif
