/* knobs_apply — the Knobs screen's dry-run diff, apply on trial, keep and
 * revert. The knobset is the one `sluice set` builds; these views are its
 * curses rendering (the CLI prints the same struct as a table). */
#include "app.h"
#include "knobs_screen.h"
#include "knobset.h"
#include "setview.h"
#include "sysfs.h"
#include "trial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int build_set(struct knobs *ks, struct knobset *set, sl_err *e)
{
    memset(set, 0, sizeof *set);
    if (ks->npend == 0) return sl_fail(e, SL_EUSAGE, "no pending change: edit a knob first (Enter)");
    for (int i = 0; i < ks->npend; i++)
        if (knobset_add(set, ks->pend[i].name, ks->pend[i].value, e) < 0) return -1;
    return knobset_prepare(set, e);
}

static void open_view(struct knobs *ks, const char *title, bool is_diff)
{
    ks->mode = KM_VIEW;
    ks->view_is_diff = is_diff;
    snprintf(ks->view_title, sizeof ks->view_title, "%s", title);
    tv_clear(&ks->view);
    ks->view.top = 0;
}

static void view_error(struct knobs *ks, const char *msg) { setview_error(&ks->view, msg, 76); }

void knobs_diff(struct knobs *ks)
{
    struct knobset set;
    sl_err e;
    if (ks->npend == 0) { app_message(ks->base.app, ROLE_NORMAL, "no pending change: edit a knob first (Enter)"); return; }
    int rc = build_set(ks, &set, &e);
    open_view(ks, "Dry run: nothing is written until you apply (a)", rc == 0);
    if (rc < 0) view_error(ks, e.msg);
    else {
        setview_changes(&ks->view, &set, true);
        setview_snapshot(&ks->view, &set);
    }
    knobset_free(&set);
}

void knobs_apply(struct knobs *ks)
{
    struct app *app = ks->base.app;
    struct knobset set;
    sl_err e;
    if (ks->npend == 0) { app_message(app, ROLE_NORMAL, "no pending change: edit a knob first (Enter)"); return; }
    if (trial_active()) {
        app_message(app, ROLE_WARN, "session %.8s is still on trial: keep it (K) or revert it (R) before applying more",
                    trial_uuid());
        return;
    }
    store *st = app_store(app, &e);
    if (!st || build_set(ks, &set, &e) < 0 || sysfs_require_root("applying knobs", &e) < 0) {
        if (st) knobset_free(&set);
        open_view(ks, "Apply refused: nothing was written", false);
        view_error(ks, e.msg);
        return;
    }
    int rc = trial_apply(st, app_db_path(app), &set, &e);
    if (rc == 0) {
        open_view(ks, "Applied: on trial until you keep (K) or revert (R) it", false);
        setview_changes(&ks->view, &set, false);
        tv_line(&ks->view, false, -1);
        tv_line(&ks->view, false, -1);
        tv_add(&ks->view, ROLE_WARN, "Session %.8s is on trial. K keeps the values; R, quitting or a crash puts them back.",
               trial_uuid());
        knobs_pending_clear(ks);
    } else {
        open_view(ks, setview_started(&set) ? "Apply failed: rolled back" : "Apply refused: nothing was written", false);
        if (setview_started(&set)) setview_changes(&ks->view, &set, false);
        view_error(ks, e.msg);
    }
    knobset_free(&set);
    knobs_refresh(ks);
}

void knobs_keep(struct knobs *ks)
{
    struct restore_report unused = { 0 };
    char id[9];
    if (trial_decide(ks->base.app, true, &unused, id) < 0) return;
    ks->mode = KM_LIST;
    knobs_refresh(ks);
}

void knobs_revert(struct knobs *ks)
{
    struct app *app = ks->base.app;
    struct restore_report rep = { 0 };
    sl_err e;
    char title[96];
    if (!trial_active()) { app_message(app, ROLE_NORMAL, "nothing is on trial"); return; }
    snprintf(title, sizeof title, "Reverted session %.8s", trial_uuid());
    int rc = trial_revert(&rep, &e);
    open_view(ks, title, false);
    setview_restore(&ks->view, &rep);
    if (rc < 0) view_error(ks, e.msg);
    restore_report_free(&rep);
    knobs_refresh(ks);
}
