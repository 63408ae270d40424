/* trial — one open session owned by the UI, kept or put back on request. */
#include "trial.h"
#include "setview.h"
#include "textview.h"
#include "store_session.h"
#include "sysfs.h"

#include <stdio.h>
#include <string.h>

static struct session *open_session;
static char uuid[37];

/* Apply a prepared knobset in a new session (knobset_run_session, the
 * same path as `sluice set`). -1 with e filled when the lock is busy or a
 * write failed (then ks says what was rolled back). */
static int trial_apply(store *st, struct knobset *ks, sl_err *e)
{
    if (knobset_run_session(st, ks, "ui", 0, &open_session, e) < 0) { open_session = NULL; return -1; }
    snprintf(uuid, sizeof uuid, "%s", session_row_of(open_session)->uuid);
    return 0;
}

bool trial_active(void) { return open_session != NULL; }
const char *trial_uuid(void) { return open_session ? uuid : ""; }

int trial_keep(sl_err *e)
{
    if (!open_session) return sl_fail(e, SL_EUSAGE, "no change is on trial");
    struct session *s = open_session;
    open_session = NULL;
    return session_end(s, true, NULL, e);
}

int trial_revert(struct restore_report *rep, sl_err *e)
{
    if (!open_session) return sl_fail(e, SL_EUSAGE, "no change is on trial");
    struct session *s = open_session;
    open_session = NULL;
    return session_end(s, false, rep, e);
}

void trial_emergency(void)
{
    if (!open_session) return;
    struct restore_report rep = { 0 };
    struct session *s = open_session;
    open_session = NULL;
    session_end(s, false, &rep, NULL);
    if (rep.failed) fprintf(stderr, "sluice: %d knob(s) of session %.8s could not be put back: run 'sluice restore'\n",
                            rep.failed, uuid);
    restore_report_free(&rep);
}

enum trial_outcome trial_start(store *st, const char *what, int (*build)(void *arg, struct knobset *ks, sl_err *e),
                               void *arg, struct knobset *ks, sl_err *e)
{
    memset(ks, 0, sizeof *ks);
    if (open_session) {
        sl_fail(e, SL_EBUSY, "session %.8s is still on trial: keep it (K) or revert it (R) before applying more", uuid);
        return TRIAL_BUSY;
    }
    if (!st || build(arg, ks, e) < 0 || sysfs_require_root(what, e) < 0) return TRIAL_REFUSED;
    if (trial_apply(st, ks, e) == 0) return TRIAL_ON;
    return setview_started(ks) ? TRIAL_ROLLED_BACK : TRIAL_REFUSED;
}

void trial_show(struct textview *tv, enum trial_outcome o, const struct knobset *ks, const sl_err *e)
{
    if (o == TRIAL_ON || o == TRIAL_ROLLED_BACK) setview_changes(tv, ks, false);
    if (o != TRIAL_ON) {
        setview_error(tv, e->msg, 76);
        return;
    }
    tv_line(tv, false, -1);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_WARN, "Session %.8s is on trial. K keeps the values; R, quitting or a crash puts them back.", uuid);
}
