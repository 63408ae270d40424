/* trial — one open session owned by the UI, kept or put back on request. */
#include "trial.h"
#include "app.h"

#include <stdio.h>
#include <string.h>

static struct session *open_session;
static char uuid[37];

int trial_apply(store *st, const char *db_path, struct knobset *ks, sl_err *e)
{
    if (open_session)
        return sl_fail(e, SL_EBUSY, "session %.8s is still on trial: keep it (K) or revert it (R) before applying more",
                       open_session->row.uuid);
    (void)db_path;   /* the lock lives beside the store's own path */
    if (knobset_run_session(st, ks, "ui", 0, &open_session, e) < 0) { open_session = NULL; return -1; }
    snprintf(uuid, sizeof uuid, "%s", open_session->row.uuid);
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

int trial_decide(struct app *app, bool keep, struct restore_report *rep, char id[9])
{
    if (!trial_active()) { app_message(app, ROLE_NORMAL, "nothing is on trial"); return -1; }
    snprintf(id, 9, "%.8s", trial_uuid());
    sl_err e;
    if ((keep ? trial_keep(&e) : trial_revert(rep, &e)) < 0) {
        app_message(app, ROLE_ERROR, "%s", e.msg);
        return -1;
    }
    if (keep) app_message(app, ROLE_OK, "session %s kept; 'sluice restore' puts the old values back", id);
    return 0;
}
