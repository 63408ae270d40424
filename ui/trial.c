/* trial — one open session owned by the UI, kept or put back on request. */
#include "ui/trial.h"
#include "profile/lifecycle.h"
#include "ui/setview.h"
#include "ui/textview.h"
#include "db/store_session.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <string.h>

static struct session *open_session;
static char uuid[37];
/* A profile switch on trial (trial_start_switch): kept through the lifecycle. */
static struct profile_switch on_trial;
static bool is_switch;
static store *switch_store;

static void drop_switch(void)
{
    if (is_switch) lifecycle_free(&on_trial);
    is_switch = false;
    switch_store = NULL;
}

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
    if (is_switch) {
        /* still open on failure: the values stay on trial, R puts them back */
        if (lifecycle_keep(switch_store, &on_trial, open_session, e) < 0) return -1;
        open_session = NULL;
        drop_switch();
        return 0;
    }
    struct session *s = open_session;
    open_session = NULL;
    return session_end(s, true, NULL, e);
}

int trial_revert(struct restore_report *rep, sl_err *e)
{
    if (!open_session) return sl_fail(e, SL_EUSAGE, "no change is on trial");
    struct session *s = open_session;
    open_session = NULL;
    drop_switch();
    return session_end(s, false, rep, e);
}

void trial_emergency(void)
{
    if (!open_session) return;
    struct restore_report rep = { 0 };
    struct session *s = open_session;
    open_session = NULL;
    is_switch = false;   /* no freeing on a fatal path */
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

enum trial_outcome trial_start_switch(store *st, const struct plan *pl, const char *profile, struct profile_switch *sw,
                                      sl_err *e)
{
    memset(sw, 0, sizeof *sw);
    if (open_session) {
        sl_fail(e, SL_EBUSY, "session %.8s is still on trial: keep it (K) or revert it (R) before applying more", uuid);
        return TRIAL_BUSY;
    }
    if (!st || lifecycle_plan(st, pl, false, sw, e) < 0) return TRIAL_REFUSED;
    if (sw->ks.n == 0) {
        sl_fail(e, SL_EUSAGE, "nothing to change: this machine already has profile %s's values", profile);
        return TRIAL_REFUSED;
    }
    if (sysfs_require_root("applying a profile", e) < 0) return TRIAL_REFUSED;
    if (lifecycle_try(st, sw, profile, "apply", &open_session, e) < 0) {
        open_session = NULL;
        return setview_started(&sw->ks) ? TRIAL_ROLLED_BACK : TRIAL_REFUSED;
    }
    snprintf(uuid, sizeof uuid, "%s", session_row_of(open_session)->uuid);
    on_trial = *sw;
    is_switch = true;
    switch_store = st;
    return TRIAL_ON;
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
