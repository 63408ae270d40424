/* setview — textview renderings of a knobset (dry run or result), a
 * restore report and error text: what the Knobs and Profiles screens show
 * after diff, apply and revert (the CLI prints the same structs as tables). */
#ifndef SLUICE_UI_SETVIEW_H
#define SLUICE_UI_SETVIEW_H

#include "session/knobset.h"
#include "ui/textview.h"

/* KNOB BEFORE NEW|AFTER STATE, then notes (adjusted values, side effects). */
void setview_changes(struct textview *tv, const struct knobset *set, bool dry_run);
/* The knobs a session snapshots first. */
void setview_snapshot(struct textview *tv, const struct knobset *set);
/* KNOB FOUND RESTORED RESULT of a put-back. */
void setview_restore(struct textview *tv, const struct restore_report *rep);
/* msg wrapped to width in the error role. */
void setview_error(struct textview *tv, const char *msg, int width);
/* Whether apply got as far as writing (then set says per knob what happened). */
bool setview_started(const struct knobset *set);

#endif
