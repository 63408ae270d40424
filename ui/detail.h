/* detail — the detail view screens open over their list (Enter on a run,
 * a trial, a search, a session): the core's report (src/report) as
 * wrapped, scrollable text with its charts, rebuilt when the width
 * changes; Esc closes it. */
#ifndef SLUICE_UI_DETAIL_H
#define SLUICE_UI_DETAIL_H

#include <stdbool.h>
#include "report/report.h"
#include "screen.h"
#include "textview.h"

struct detail {
    bool open;
    struct report rep;
    struct textview tv;
    int width;               /* the width the lines were wrapped for */
};

/* Build the report of a run, search or session (report_build) and open
 * it; on failure the view opens with the message instead. */
void detail_open(struct detail *d, struct store *st, const char *id);
/* Draw the title line and the text into r. */
void detail_draw(struct detail *d, struct rect r);
/* Esc closes, the moving keys scroll; H_IGNORED for other actions. */
enum handled detail_key(struct detail *d, enum action a);
void detail_close(struct detail *d);

#endif
