/* trial — the UI's tuning session. Changes applied from the UI stay on
 * trial (the session open, the tuning lock held) until the user keeps them
 * or puts them back; quitting without choosing, a signal, the end of a key
 * script or a fatal error put them back. One trial at a time. */
#ifndef SLUICE_UI_TRIAL_H
#define SLUICE_UI_TRIAL_H

#include <stdbool.h>
#include "session/knobset.h"


bool trial_active(void);
/* The open session's UUID ("" when none). */
const char *trial_uuid(void);
/* Close the session keeping the values. */
int trial_keep(sl_err *e);
/* Put the snapshot back; rep (caller frees) says knob by knob. */
int trial_revert(struct restore_report *rep, sl_err *e);
/* The one apply-on-trial flow of the Knobs, Profiles and Search screens:
 * refuse while a trial is open (TRIAL_BUSY, e says so for the message line),
 * refuse without the store st (e as app_store left it), let build fill ks (the screen's part: its pending edits, a
 * profile's plan, a search's winner; it may leave ks empty on error), check
 * root for `what` ("applying knobs"), then apply ks on trial (trial_apply).
 * ks is the caller's to knobset_free whatever the outcome; e says why when
 * it is not TRIAL_ON. */
enum trial_outcome { TRIAL_BUSY, TRIAL_REFUSED, TRIAL_ROLLED_BACK, TRIAL_ON };
enum trial_outcome trial_start(store *st, const char *what, int (*build)(void *arg, struct knobset *ks, sl_err *e),
                               void *arg, struct knobset *ks, sl_err *e);
/* A profile switch on trial through the profile lifecycle, as `sluice
 * apply` does it (lifecycle_plan over the profile in force, then
 * lifecycle_try): refused as trial_start refuses; K keeps it through
 * lifecycle_keep (so `sluice active` names it and `sluice off` puts it
 * back), R puts back the values from before the switch and the old
 * profile stays in force. sw is filled (the caller shows sw->ks); on
 * TRIAL_ON the trial owns what sw points to until kept or put back, else
 * the caller frees it with lifecycle_free. */
struct plan;
struct profile_switch;
enum trial_outcome trial_start_switch(store *st, const struct plan *pl, const char *profile, struct profile_switch *sw,
                                      sl_err *e);
/* What happened, into a screen's view: the changes and the trial note, or
 * what was rolled back and why, or why nothing was written. */
struct textview;
void trial_show(struct textview *tv, enum trial_outcome o, const struct knobset *ks, const sl_err *e);

/* From a fatal path: put back whatever is on trial, best effort. */
void trial_emergency(void);

#endif
