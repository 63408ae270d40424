/* knobs_apply — the Knobs screen's dry-run diff, apply on trial, keep and
 * revert. The knobset is the one `sluice set` builds; these views are its
 * curses rendering (the CLI prints the same struct as a table). */
#include "app.h"
#include "knobs_screen.h"
#include "knobset.h"
#include "trial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the writes had started when apply failed (then ks says per knob). */
static bool writes_started(const struct knobset *set)
{
    for (int i = 0; i < set->n; i++)
        if (set->ch[i].state != CHANGE_PENDING) return true;
    return false;
}

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

static void view_error(struct knobs *ks, const char *msg)
{
    char lines[8][256];
    int n = draw_wrap(msg, 76, lines, 8);
    for (int i = 0; i < n; i++) {
        tv_line(&ks->view, false, -1);
        tv_add(&ks->view, ROLE_ERROR, "%s", lines[i]);
    }
}

static void change_table(struct knobs *ks, const struct knobset *set, bool dry_run)
{
    struct textview *tv = &ks->view;
    tv_line(tv, false, -1);
    tv_cell(tv, ROLE_HEADER, 36, "KNOB");
    tv_cell(tv, ROLE_HEADER, 13, "BEFORE");
    tv_cell(tv, ROLE_HEADER, 13, dry_run ? "NEW" : "AFTER");
    tv_add(tv, ROLE_HEADER, "STATE");
    for (int i = 0; i < set->n; i++) {
        const struct knob_change *c = &set->ch[i];
        bool same = knob_values_equal(&c->k, c->before, c->want);
        const char *state = dry_run ? (same ? "unchanged" : "would write") : change_state_name(c->state);
        enum role r = dry_run ? (same ? ROLE_DIM : ROLE_PENDING)
                    : c->state == CHANGE_FAILED || c->state == CHANGE_ROLLED_BACK ? ROLE_ERROR
                    : c->state == CHANGE_ADJUSTED ? ROLE_WARN : ROLE_OK;
        tv_line(tv, false, -1);
        tv_cell(tv, ROLE_NORMAL, 36, c->k.name);
        tv_cell(tv, ROLE_NORMAL, 13, c->before);
        tv_cell(tv, ROLE_NORMAL, 13, dry_run ? c->want : c->after);
        tv_add(tv, r, "%s", state);
    }
    for (int i = 0; i < set->n; i++)
        if (set->ch[i].state == CHANGE_ADJUSTED) {
            tv_line(tv, false, -1);
            tv_add(tv, ROLE_WARN, "note: %s: asked for %s, the kernel kept %s", set->ch[i].k.name, set->ch[i].want,
                   set->ch[i].after);
        }
    for (int i = 0; i < set->nside; i++) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_WARN, "note: %s changed too, %s -> %s (a side effect the kernel applies)", set->side[i].knob,
               set->side[i].before, set->side[i].after);
    }
}

static void snapshot_list(struct knobs *ks, const struct knobset *set)
{
    struct textview *tv = &ks->view;
    tv_line(tv, false, -1);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_HEADER, "Snapshot first (what revert and a crash put back):");
    for (int i = 0; i < set->ntouched; i++) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_NORMAL, "  %s", set->touched[i].name);
    }
}

void knobs_diff(struct knobs *ks)
{
    struct knobset set;
    sl_err e;
    if (ks->npend == 0) { app_message(ks->base.app, ROLE_NORMAL, "no pending change: edit a knob first (Enter)"); return; }
    int rc = build_set(ks, &set, &e);
    open_view(ks, "Dry run: nothing is written until you apply (a)", rc == 0);
    if (rc < 0) view_error(ks, e.msg);
    else {
        change_table(ks, &set, true);
        snapshot_list(ks, &set);
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
    if (!st || build_set(ks, &set, &e) < 0 || cli_require_root("applying knobs", &e) < 0) {
        if (st) knobset_free(&set);
        open_view(ks, "Apply refused: nothing was written", false);
        view_error(ks, e.msg);
        return;
    }
    int rc = trial_apply(st, app_db_path(app), &set, &e);
    if (rc == 0) {
        open_view(ks, "Applied: on trial until you keep (K) or revert (R) it", false);
        change_table(ks, &set, false);
        tv_line(&ks->view, false, -1);
        tv_line(&ks->view, false, -1);
        tv_add(&ks->view, ROLE_WARN, "Session %.8s is on trial. K keeps the values; R, quitting or a crash puts them back.",
               trial_uuid());
        knobs_pending_clear(ks);
    } else {
        open_view(ks, writes_started(&set) ? "Apply failed: rolled back" : "Apply refused: nothing was written", false);
        if (writes_started(&set)) change_table(ks, &set, false);
        view_error(ks, e.msg);
    }
    knobset_free(&set);
    knobs_refresh(ks);
}

void knobs_keep(struct knobs *ks)
{
    struct app *app = ks->base.app;
    sl_err e;
    char id[9];
    snprintf(id, sizeof id, "%.8s", trial_uuid());
    if (!trial_active()) { app_message(app, ROLE_NORMAL, "nothing is on trial"); return; }
    if (trial_keep(&e) < 0) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    ks->mode = KM_LIST;
    app_message(app, ROLE_OK, "session %s kept; 'sluice restore' puts the old values back", id);
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
    struct textview *tv = &ks->view;
    tv_line(tv, false, -1);
    tv_cell(tv, ROLE_HEADER, 36, "KNOB");
    tv_cell(tv, ROLE_HEADER, 13, "FOUND");
    tv_cell(tv, ROLE_HEADER, 13, "RESTORED");
    tv_add(tv, ROLE_HEADER, "RESULT");
    static const char *const result[] = { "already right", "put back", "FAILED", "was absent" };
    for (int i = 0; i < rep.n; i++) {
        const struct restore_item *it = &rep.items[i];
        tv_line(tv, false, -1);
        tv_cell(tv, ROLE_NORMAL, 36, it->knob);
        tv_cell(tv, ROLE_NORMAL, 13, it->had[0] ? it->had : "-");
        tv_cell(tv, ROLE_NORMAL, 13, it->want);
        tv_add(tv, it->status == RESTORE_FAILED ? ROLE_ERROR : ROLE_OK, "%s", result[it->status]);
        if (it->status == RESTORE_FAILED) tv_add(tv, ROLE_ERROR, "  %s", it->msg);
    }
    if (rc < 0) view_error(ks, e.msg);
    restore_report_free(&rep);
    knobs_refresh(ks);
}
