/* detail — the detail view screens open over their list (Enter on a run,
 * a trial, a search, a session): the core's report (src/report) as
 * wrapped, scrollable text with its charts, rebuilt when the width
 * changes. A line that names something (a trial of a search, the run
 * behind a trial) opens its own report over this one with Enter; Esc
 * goes back a level, then closes. */
#ifndef SLUICE_UI_DETAIL_H
#define SLUICE_UI_DETAIL_H

#include <stdbool.h>
#include "report/report.h"
#include "ui/screen.h"
#include "ui/textview.h"

#define DETAIL_DEPTH 4       /* search > trial > run, and one more */

struct detail_level {
    struct report rep;
    struct textview tv;
    int width;               /* the width the lines were wrapped for */
};

struct detail {
    bool open;
    struct store *st;        /* where Enter on a line finds what it names */
    struct detail_level lv[DETAIL_DEPTH];
    int depth;               /* levels open; lv[depth - 1] is shown */
};

/* Build the report of a run, search, session or trial ("SEARCH#SEQ",
 * report_build) and open it; on failure the view opens with the message
 * instead. */
void detail_open(struct detail *d, struct store *st, const char *id);
/* Draw the title line and the text into r. */
void detail_draw(struct detail *d, struct rect r);
/* Esc goes back a level (closing at the first), Enter opens what the line
 * under the cursor names, the moving keys scroll; H_IGNORED otherwise. */
enum handled detail_key(struct detail *d, enum action a);
/* Whether a hint applies while the view is open: Esc, and Enter on a line
 * that opens something. */
bool detail_hint_on(struct detail *d, enum action a);
/* The text view shown (for / and n/N); NULL when closed. */
struct textview *detail_view(struct detail *d);
void detail_close(struct detail *d);

#endif
