/* textview — a scrollable list of lines made of role-coloured segments,
 * with an optional cursor over selectable lines. Screens rebuild the lines
 * whenever they like; the scroll position and cursor survive a rebuild. */
#ifndef SLUICE_UI_TEXTVIEW_H
#define SLUICE_UI_TEXTVIEW_H

#include <stdbool.h>
#include "ui/screen.h"

#define TV_MAX_LINES 20000   /* the cap on a growing view */

struct tv_seg {
    enum role role;
    char *text;
};

struct tv_line {
    struct tv_seg *segs;
    int nsegs;
    bool selectable;
    int tag;                 /* the screen's row index, -1 for none */
};

struct textview {
    struct tv_line *lines;
    int n, cap;
    int top;                 /* first line shown */
    int cursor;              /* selected line, -1: no cursor (plain scrolling) */
    bool use_cursor;
    bool pager;              /* with use_cursor: the cursor may stand on every line and
                                the page keys move the view a page, as less does;
                                selectable lines are those Enter can open */
    int page;                /* lines shown at the last draw */
    int left;                /* cells scrolled off at the left (Left/Right) */
    int found;               /* without a cursor: the line tv_find went to, + 1 (0: none), shown selected */
};

/* Make tv a list the cursor moves over, no line selected yet: the first
 * draw puts the cursor on the first selectable line. */
void tv_cursor_init(struct textview *tv);
/* Drop the lines (keeps top and cursor). */
void tv_clear(struct textview *tv);
void tv_free(struct textview *tv);
/* Start a new line; selectable lines can hold the cursor. Past
 * TV_MAX_LINES further lines are dropped. */
void tv_line(struct textview *tv, bool selectable, int tag);
/* Append text to the current line. */
void tv_add(struct textview *tv, enum role r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Text wrapped to width cells, every word of it (a verdict's conclusion is
 * its last words), as new lines: the first after lead, the others indented
 * as far. */
void tv_wrap(struct textview *tv, enum role r, const char *lead, const char *text, int width);
/* Append text padded or cut to exactly w cells, then one blank. */
void tv_cell(struct textview *tv, enum role r, int w, const char *text);
/* A new line of n column heads in the header role, heads[i] in a cell of
 * widths[i] (tv_cell); a width of 0 (the last column) runs to the end. */
void tv_header(struct textview *tv, int n, const char *const heads[], const int widths[]);
/* The tag of the line under the cursor, -1 if none (or not selectable). */
int tv_selected_tag(const struct textview *tv);
/* Put the cursor on the line with this tag (if it exists). */
void tv_select_tag(struct textview *tv, int tag);
/* UP/DOWN/PAGE_UP/PAGE_DOWN/FIRST/LAST, LEFT/RIGHT (scroll sideways, as
 * far as the longest line needs); H_IGNORED for other actions. */
enum handled tv_move(struct textview *tv, enum action a);
/* less's / and n/N: the next line after `from` (dir 1) or before it (dir
 * -1) whose text contains needle, ignoring case, wrapping around; with a
 * cursor only selectable lines count. The cursor (or the top line) goes
 * there; returns the line, -1 when none matches. */
int tv_find(struct textview *tv, const char *needle, int from, int dir);
/* Draw into r; the rows become a mouse target (draw_target_add). */
void tv_draw(struct textview *tv, struct rect r);
/* A click on row `row` of r as last drawn: the cursor goes to that line
 * (a view without a cursor scrolls nowhere). Returns 1 when the cursor was
 * already there (a second click: open it), 0 when it moved, -1 when the
 * row holds no line the cursor can take. */
int tv_click(struct textview *tv, int row);

#endif
