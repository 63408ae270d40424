/* trial — the UI's tuning session. Changes applied from the UI stay on
 * trial (the session open, the tuning lock held) until the user keeps them
 * or puts them back; quitting without choosing, a signal, the end of a key
 * script or a fatal error put them back. One trial at a time. */
#ifndef SLUICE_UI_TRIAL_H
#define SLUICE_UI_TRIAL_H

#include <stdbool.h>
#include "knobset.h"

/* Apply a prepared knobset in a new session (knobset_run_session, the
 * same path as `sluice set`). -1 with e filled when a trial is already open,
 * the lock is busy, or a write failed (then ks says what was rolled back). */
int trial_apply(store *st, const char *db_path, struct knobset *ks, sl_err *e);
bool trial_active(void);
/* The open session's UUID ("" when none). */
const char *trial_uuid(void);
/* Close the session keeping the values. */
int trial_keep(sl_err *e);
/* Put the snapshot back; rep (caller frees) says knob by knob. */
int trial_revert(struct restore_report *rep, sl_err *e);
/* The UI's answer to K (keep) or R (revert), shared by every screen that puts
 * changes on trial: "nothing is on trial" and errors go to the message line,
 * a keep is confirmed there. Returns 0 when done (for a revert, rep says what
 * was put back and the caller shows it), -1 otherwise. id gets the session's
 * short id. */
struct app;
int trial_decide(struct app *app, bool keep, struct restore_report *rep, char id[9]);
/* From a fatal path: put back whatever is on trial, best effort. */
void trial_emergency(void);

#endif
