/* draw — the few drawing primitives screens use on top of term: clipped
 * text in a role, fills, rules, boxes and word wrapping. UTF-8 aware. */
#ifndef SLUICE_UI_DRAW_H
#define SLUICE_UI_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include "ui/term.h"

/* The part of the screen a screen draws in. */
struct rect { int y, x, h, w; };

/* Terminal cells a UTF-8 string takes (control bytes count as one). */
int draw_cells(const char *s);
/* Text at (y, x) cut to maxw cells; returns the cells drawn. */
int draw_text(int y, int x, int maxw, enum role r, const char *s);
int draw_fmt(int y, int x, int maxw, enum role r, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Text padded with blanks to exactly w cells (a cell of a table, a bar). */
void draw_cell(int y, int x, int w, enum role r, const char *s);
void draw_fill(int y, int x, int w, enum role r);
void draw_hline(int y, int x, int w, enum role r);
/* A bordered box with an optional title, its inside blanked. */
void draw_box(struct rect b, enum role r, const char *title);

/* Split text into lines of at most width cells at spaces; returns the line
 * count (at most max). Each line is written to lines[i] (cap bytes each). */
int draw_wrap(const char *text, int width, char (*lines)[256], int max);
/* The next line of *p wrapped at width cells (cut at a blank when one is
 * in reach), copied into line (cap bytes); *p moves past it. False when
 * nothing but blanks is left. A whole text, however long:
 *     for (const char *p = text; draw_wrap_next(&p, w, line, sizeof line);) ... */
bool draw_wrap_next(const char **p, int width, char *line, size_t cap);
/* Copy s into buf cut to w cells, ending in an ellipsis when cut. */
void draw_clip(const char *s, int w, char *buf, size_t n);

/* What a mouse click can land on, recorded as the screen is drawn (the
 * app clears them before each frame): a button or tab (an action), a row of
 * a text view, a field of a form. The last one recorded over a cell wins
 * (a dialog over a list). */
enum target_kind { TARGET_ACTION, TARGET_VIEW, TARGET_FORM };
struct draw_target {
    struct rect r;
    enum target_kind kind;
    void *obj;           /* TARGET_VIEW: the textview; TARGET_FORM: the form */
    int arg;             /* TARGET_ACTION: the action; TARGET_FORM: the field */
};
void draw_targets_clear(void);
/* Record a target (at most 256 a frame; past that, ignored). */
void draw_target_add(struct rect r, enum target_kind kind, void *obj, int arg);
/* The target under (y, x), NULL when none. */
const struct draw_target *draw_target_at(int y, int x);

#endif
