/* screen_profiles — the profiles on the search path, each compared with
 * this machine (the plan `sluice profile diff` prints); apply one on trial
 * (a shows the plan and asks first),
 * install one for boot, and see what boot has installed; save this
 * machine's values, import a TuneD profile, export one. */
#include "ui/app.h"
#include "ui/prompt.h"
#include "ui/textview.h"
#include "profile/boot.h"
#include "profile/lifecycle.h"
#include "profile/profile.h"
#include "profile/save.h"
#include "ui/setview.h"
#include "core/sysfs.h"
#include "ui/trial.h"
#include "ui/verify_panel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct screen_class profiles_screen;

enum prmode { PR_LIST, PR_VIEW, PR_CONFIRM, PR_ASK_APPLY };   /* PR_ASK_APPLY: the view holds a's question */

struct profiles {
    struct screen base;
    struct profile_row *rows;            /* the catalogue */
    int n;
    struct textview list, diff, view;
    enum prmode mode;
    char view_title[160];
    int planned;                       /* row whose plan is below, -1 none */
    struct profile p;
    struct plan pl;
    bool have_plan;
    char plan_err[1024];
    char boot[PROFILE_NAME_MAX];       /* installed for boot, "" none */
    struct prompt prompt;              /* save, import, export questions */
    struct profile imported;           /* a TuneD import waiting for its name */
    struct notes unmapped;
    char import_comment[PATH_MAX + 128];
    bool have_import;
    char export_format[16];
    bool plan_focus;                   /* Tab: Up/Down scroll the plan, not the list */
    struct verify_panel verify;        /* V: the selected profile verified live */
};

static void drop_plan(struct profiles *pr)
{
    if (pr->have_plan) {
        plan_free(&pr->pl);
        profile_free(&pr->p);
    }
    pr->have_plan = false;
    pr->planned = -1;
    pr->plan_err[0] = 0;
}

static void profiles_refresh(struct profiles *pr)
{
    struct profile_dirs dirs;
    profile_dirs_init(&dirs, NULL);
    sl_err e;
    drop_plan(pr);
    free(pr->rows);
    int n = profile_catalogue(&dirs, &pr->rows, &e);
    if (n < 0) { app_message(pr->base.app, ROLE_ERROR, "%s", e.msg); n = 0; }
    pr->n = n;
    struct boot_manifest m;
    pr->boot[0] = 0;
    if (boot_manifest_read(&m, NULL) == 0) {
        snprintf(pr->boot, sizeof pr->boot, "%s", m.profile);
        boot_manifest_free(&m);
    }
}

/* Plan the selected profile against this machine (reads every knob it names). */
static void profiles_plan_selected(struct profiles *pr)
{
    int sel = tv_selected_tag(&pr->list);
    if (sel == pr->planned || sel < 0) return;
    drop_plan(pr);
    pr->planned = sel;
    struct profile_dirs dirs;
    profile_dirs_init(&dirs, NULL);
    sl_err e;
    if (profile_load(&dirs, pr->rows[sel].name, &pr->p, &e) < 0) {
        profile_free(&pr->p);
        snprintf(pr->plan_err, sizeof pr->plan_err, "%s", e.msg);
        return;
    }
    if (profile_plan(&pr->p, &pr->pl, &e) < 0) {
        plan_free(&pr->pl);
        profile_free(&pr->p);
        snprintf(pr->plan_err, sizeof pr->plan_err, "%s", e.msg);
        return;
    }
    pr->have_plan = true;
}

static void build_list(struct profiles *pr, int width)
{
    struct textview *tv = &pr->list;
    int keep = tv_selected_tag(tv);
    tv_clear(tv);
    for (int i = 0; i < pr->n; i++) {
        const struct profile_row *r = &pr->rows[i];
        char name[80];
        snprintf(name, sizeof name, "%s%s", r->name, strcmp(r->name, pr->boot) == 0 ? " (boot)" : "");
        tv_line(tv, true, i);
        tv_add(tv, ROLE_NORMAL, " ");
        tv_cell(tv, ROLE_NORMAL, 21, name);
        tv_cell(tv, strcmp(r->fits, "no") == 0 || strcmp(r->fits, "invalid") == 0 ? ROLE_DIM : ROLE_OK, 7, r->fits);
        tv_add(tv, ROLE_NORMAL, "%s", r->summary);
    }
    if (pr->n == 0) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, " no profiles: put *.conf files in /etc/sluice/profiles or set SLUICE_PROFILES=DIR");
    }
    if (keep >= 0) tv_select_tag(tv, keep);
    (void)width;
}

/* The plan as rows (verify: as boot drift); only_writes: the rows apply
 * would write, and the counts of all. */
static void diff_lines(struct profiles *pr, struct textview *tv, int width, bool verify, bool only_writes)
{
    if (pr->plan_err[0]) { setview_error(tv, pr->plan_err, width); return; }
    if (!pr->have_plan) return;
    int counts[4] = { 0 };
    static const char *const heads[] = { "KNOB", "PROFILE", "CURRENT", "VERDICT" };
    static const int widths[] = { 34, 13, 13, 0 };
    tv_header(tv, 4, heads, widths);
    static const char *const diff[] = { [PA_WRITE] = "differs", [PA_SAME] = "same", [PA_KEEP] = "kept", [PA_SKIP] = "skipped" };
    static const char *const ver[] = { [PA_WRITE] = "DRIFT", [PA_SAME] = "ok", [PA_KEEP] = "ok", [PA_SKIP] = "n/a" };
    for (int i = 0; i < pr->pl.n; i++) {
        const struct plan_item *it = &pr->pl.it[i];
        counts[it->action]++;
        if (only_writes && it->action != PA_WRITE) continue;
        char want[KNOB_VALUE_MAX + 2];
        snprintf(want, sizeof want, "%s%s", it->src->cond == PC_RAISE ? ">" : it->src->cond == PC_LOWER ? "<" : "", it->want);
        enum role r = it->action == PA_WRITE ? ROLE_PENDING : it->action == PA_SKIP ? ROLE_DIM : ROLE_NORMAL;
        tv_line(tv, false, -1);
        tv_cell(tv, r, 34, it->knob);
        tv_cell(tv, r, 13, want);
        tv_cell(tv, r, 13, it->current[0] ? it->current : "absent");
        tv_add(tv, r, "%s", verify ? ver[it->action] : diff[it->action]);
    }
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_NORMAL, verify ? "%d ok, %d drift, %d not applicable" : "%3$d would change, %1$d same or kept, %2$d skipped",
           counts[PA_SAME] + counts[PA_KEEP], verify ? counts[PA_WRITE] : counts[PA_SKIP], verify ? counts[PA_SKIP] : counts[PA_WRITE]);
    for (int i = 0; i < pr->pl.nwarn; i++) {
        char lines[4][256];
        int n = draw_wrap(pr->pl.warn[i], width - 9, lines, 4);
        for (int k = 0; k < n; k++) {
            tv_line(tv, false, -1);
            tv_add(tv, ROLE_WARN, "%s%s", k ? "         " : "warning: ", lines[k]);
        }
    }
}

static void profiles_open_view(struct profiles *pr, const char *title)
{
    pr->mode = PR_VIEW;
    snprintf(pr->view_title, sizeof pr->view_title, "%s", title);
    tv_clear(&pr->view);
    pr->view.top = 0;
}

/* Through the profile lifecycle, as `sluice apply`: over the profile in
 * force, on trial until K (then `sluice active` names it) or R. */
static void apply_selected(struct profiles *pr)
{
    struct app *app = pr->base.app;
    profiles_plan_selected(pr);
    if (!pr->have_plan) { app_message(app, ROLE_ERROR, "%s", pr->plan_err[0] ? pr->plan_err : "no profile selected"); return; }
    struct profile_switch sw;
    sl_err e;
    enum trial_outcome o = trial_start_switch(app_store(app, &e), &pr->pl, pr->p.name, &sw, &e);
    if (o == TRIAL_BUSY) app_message(app, ROLE_WARN, "%s", e.msg);
    else {
        char title[160];
        snprintf(title, sizeof title,
                 o == TRIAL_ON            ? "Applied profile %s: on trial until you keep (K) or revert (R) it"
                 : o == TRIAL_ROLLED_BACK ? "Apply of profile %s failed: rolled back"
                                          : "Apply of profile %s refused: nothing was written", pr->p.name);
        profiles_open_view(pr, title);
        trial_show(&pr->view, o, &sw.ks, &e);
    }
    if (o != TRIAL_ON) lifecycle_free(&sw);
    pr->planned = -2;   /* values changed: plan again */
}

/* The switch as `sluice apply` prints it: each knob's value now and the
 * one it gets, the old profile's knobs that come back, hand edits kept. */
static void switch_lines(struct textview *tv, const struct profile_switch *sw, int width)
{
    if (sw->has_prev) {
        char over[256];
        snprintf(over, sizeof over, "over profile %s, in force since %.16s (session %.8s): what it set and this one "
                 "does not comes back", sw->prev.profile, sw->prev.started, sw->prev.uuid);
        tv_wrap(tv, ROLE_NORMAL, "", over, width);
    }
    static const char *const heads[] = { "KNOB", "NOW", "NEW", "PLAN" };
    static const int widths[] = { 34, 13, 13, 0 };
    tv_header(tv, 4, heads, widths);
    for (int i = 0; i < sw->n; i++) {
        const struct switch_item *it = &sw->it[i];
        enum role r = it->what == SW_KEEP ? ROLE_DIM : ROLE_PENDING;
        tv_line(tv, false, -1);
        tv_cell(tv, r, 34, it->knob);
        tv_cell(tv, r, 13, it->now[0] ? it->now : "-");
        tv_cell(tv, r, 13, it->what == SW_KEEP ? it->now : it->to);
        tv_add(tv, r, "%s", it->what == SW_CHANGE ? "changes" : it->what == SW_BACK ? "comes back" : "kept: changed by hand");
    }
}

/* The switch to the selected profile (lifecycle_plan: what a would write),
 * or false with the reason said; refuse_on_trial: not while a session is on
 * trial (applying would stack on it). Free sw with lifecycle_free. */
static bool plan_switch(struct profiles *pr, bool refuse_on_trial, struct profile_switch *sw)
{
    struct app *app = pr->base.app;
    profiles_plan_selected(pr);
    if (!pr->have_plan) {
        app_message(app, ROLE_ERROR, "%s", pr->plan_err[0] ? pr->plan_err : "no profile selected");
        return false;
    }
    if (refuse_on_trial && trial_active()) {
        app_message(app, ROLE_WARN, "session %.8s is on trial: keep it (K) or revert it (R) before applying", trial_uuid());
        return false;
    }
    sl_err e;
    store *st = app_store(app, &e);
    if (!st || lifecycle_plan(st, &pr->pl, false, sw, &e) < 0) {
        if (st) lifecycle_free(sw);
        app_message(app, ROLE_ERROR, "%s", e.msg);
        return false;
    }
    return true;
}

/* a: the switch against this machine first (lifecycle_plan, nothing
 * written): each value now and the one it gets; y applies it
 * (apply_selected), n or Esc does nothing. */
static void ask_apply(struct profiles *pr)
{
    struct app *app = pr->base.app;
    struct profile_switch sw;
    if (!plan_switch(pr, true, &sw)) return;
    int writes = 0;
    for (int i = 0; i < sw.n; i++) writes += sw.it[i].what != SW_KEEP;
    if (writes == 0) {
        app_message(app, ROLE_NORMAL, "nothing to change: this machine already has profile %s's values", pr->p.name);
        lifecycle_free(&sw);
        return;
    }
    char title[160];
    snprintf(title, sizeof title, "Apply profile %s? y applies it, n or Esc cancels", pr->p.name);
    profiles_open_view(pr, title);
    pr->mode = PR_ASK_APPLY;
    switch_lines(&pr->view, &sw, 78);
    tv_line(&pr->view, false, -1);
    char what[200];
    snprintf(what, sizeof what, "y writes the %d value(s) in NEW, on trial (K keeps them as the profile in force, R "
             "puts back NOW); n or Esc: nothing is written.", writes);
    tv_wrap(&pr->view, ROLE_WARN, "", what, 78);
    lifecycle_free(&sw);
}

/* A key while a asks: y, n/Esc, the moving keys; anything else is
 * answered with the question again (nothing is written without a y). */
static void answer_apply(struct profiles *pr, enum action a, int key)
{
    if (key == 'y' || key == 'Y') {
        pr->mode = PR_LIST;
        apply_selected(pr);
    } else if (key == 'n' || key == 'N' || a == ACT_BACK) {
        pr->mode = PR_LIST;
        app_message(pr->base.app, ROLE_NORMAL, "profile %s not applied: nothing was written", pr->p.name);
    } else if (tv_move(&pr->view, a) == H_IGNORED) {
        app_message(pr->base.app, ROLE_WARN, "y applies profile %s, n or Esc cancels", pr->p.name);
    }
}

/* V: the switch to the selected profile (what a would write) verified on
 * this machine's own workload first, as 'apply --verify-live' does; nothing
 * is kept (a applies it after). */
static void verify_selected(struct profiles *pr)
{
    struct app *app = pr->base.app;
    struct profile_switch sw;
    if (!plan_switch(pr, false, &sw)) return;
    char source[PROFILE_NAME_MAX + 16];
    snprintf(source, sizeof source, "profile %s", pr->p.name);
    if (sw.ks.n == 0) app_message(app, ROLE_NORMAL, "nothing to verify: this machine already has profile %s's values", pr->p.name);
    else verify_panel_offer(&pr->verify, app, &sw.ks, source);
    lifecycle_free(&sw);
}

static void boot_install_selected(struct profiles *pr)
{
    struct app *app = pr->base.app;
    sl_err e;
    profiles_plan_selected(pr);
    pr->mode = PR_LIST;
    if (!pr->have_plan) { app_message(app, ROLE_ERROR, "%s", pr->plan_err); return; }
    if (profile_require_root_etc("installing a boot profile", &e) < 0) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    char exe[512], title[160];
    if (sysfs_self_exe(exe, sizeof exe) < 0) snprintf(exe, sizeof exe, "/usr/local/sbin/sluice");
    struct notes nt = { 0 };
    int rc = boot_install(&pr->p, &pr->pl, exe, false, &nt, &e);
    snprintf(title, sizeof title, rc == 0 ? "Installed profile %s for boot" : "Boot install of %s refused", pr->p.name);
    profiles_open_view(pr, title);
    if (rc < 0) setview_error(&pr->view, e.msg, 76);
    else {
        struct boot_manifest m;
        if (boot_manifest_read(&m, NULL) == 0) {
            tv_line(&pr->view, false, -1);
            tv_cell(&pr->view, ROLE_HEADER, 56, "FILE");
            tv_add(&pr->view, ROLE_HEADER, "WHAT");
            for (int i = 0; i < m.n; i++) {
                tv_line(&pr->view, false, -1);
                tv_cell(&pr->view, ROLE_NORMAL, 56, m.e[i].path);
                tv_add(&pr->view, ROLE_NORMAL, "%s", boot_file_what(m.e[i].path));
            }
            boot_manifest_free(&m);
        }
        tv_line(&pr->view, false, -1);
        tv_add(&pr->view, ROLE_NORMAL, "Takes effect at the next boot; a applies it now.");
    }
    for (int i = 0; i < nt.n; i++) {
        tv_line(&pr->view, false, -1);
        tv_add(&pr->view, ROLE_WARN, "note: %s", nt.v[i]);
    }
    notes_free(&nt);
    profiles_refresh(pr);
}

static void boot_status(struct profiles *pr)
{
    struct boot_manifest m;
    sl_err e;
    int rc = boot_manifest_read(&m, &e);
    if (rc < 0) { app_message(pr->base.app, ROLE_ERROR, "%s", e.msg); return; }
    if (rc == 1) { app_message(pr->base.app, ROLE_NORMAL, "no profile installed for boot (I installs the selected one)"); return; }
    char title[160];
    snprintf(title, sizeof title, "Boot profile %s", m.profile);
    profiles_open_view(pr, title);
    struct textview *tv = &pr->view;
    static const char *const heads[] = { "FILE", "STATE", "WHAT" };
    static const int widths[] = { 50, 10, 0 };
    tv_header(tv, 3, heads, widths);
    for (int i = 0; i < m.n; i++) {
        enum boot_state s = boot_entry_state(&m.e[i]);
        tv_line(tv, false, -1);
        tv_cell(tv, ROLE_NORMAL, 50, m.e[i].path);
        tv_cell(tv, s == BOOT_INTACT ? ROLE_OK : ROLE_ERROR, 10, boot_state_name(s));
        tv_add(tv, ROLE_NORMAL, "%s", boot_file_what(m.e[i].path));
    }
    boot_manifest_free(&m);
    /* Drift of the installed profile against the running kernel. */
    struct profile p;
    struct plan pl;
    struct profile_dirs dirs;
    profile_dirs_init(&dirs, NULL);
    char active[PATH_MAX];
    if (sysfs_path(active, sizeof active, BOOT_ACTIVE) == 0 && profile_load(&dirs, active, &p, &e) == 0 &&
        profile_plan(&p, &pl, &e) == 0) {
        struct profile sp = pr->p;
        struct plan spl = pr->pl;
        bool had = pr->have_plan;
        char err[1024];
        snprintf(err, sizeof err, "%s", pr->plan_err);
        pr->p = p, pr->pl = pl, pr->have_plan = true, pr->plan_err[0] = 0;
        tv_line(tv, false, -1);
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_HEADER, "Drift against the running kernel:");
        diff_lines(pr, tv, 76, true, false);
        pr->p = sp, pr->pl = spl, pr->have_plan = had;
        snprintf(pr->plan_err, sizeof pr->plan_err, "%s", err);
        plan_free(&pl);
        profile_free(&p);
    } else {
        profile_free(&p);
        setview_error(tv, e.msg, 76);
    }
}

/* --- save (S), import-tuned (T), export (E) ---------------------------------
 * Prompts for a name, a TuneD profile or a file, checked before anything is
 * written, then the same profile/save.c calls `sluice profile
 * save|import-tuned|export` make. A refused answer keeps the prompt open
 * with the reason. */

enum question { Q_SAVE_NAME, Q_IMPORT_FROM, Q_IMPORT_NAME, Q_EXPORT_FORMAT, Q_EXPORT_PATH };

static const char *const export_formats[] = { "sysctl", "udev", "tuned", NULL };

static void drop_import(struct profiles *pr)
{
    if (pr->have_import) {
        profile_free(&pr->imported);
        notes_free(&pr->unmapped);
    }
    pr->have_import = false;
}

/* A new name that is a valid profile name and not a file already there
 * (saving never replaces a profile from the UI). */
static bool name_ok(struct profiles *pr, const char *name)
{
    char where[PATH_MAX];
    if (!profile_name_valid(name)) {
        prompt_error(&pr->prompt, "\"%s\" is not a profile name: letters, digits, _ . + - (not starting with .), at most %d",
                     name, PROFILE_NAME_MAX - 1);
        return false;
    }
    if (profile_saved_exists(name, where, sizeof where)) {
        prompt_error(&pr->prompt, "%s exists: choose another name (nothing was written)", where);
        return false;
    }
    return true;
}

/* head, then text wrapped under it (paths under a test root are long). */
static void view_wrapped(struct profiles *pr, enum role r, const char *head, const char *text)
{
    char lines[6][256];
    int n = draw_wrap(text, 78 - (int)strlen(head), lines, 6);
    for (int k = 0; k < n; k++) {
        tv_line(&pr->view, false, -1);
        tv_add(&pr->view, r, "%*s%s", (int)strlen(head), k ? "" : head, lines[k]);
    }
}

static void view_notes(struct profiles *pr, const char *head, const struct notes *nt)
{
    for (int i = 0; i < nt->n; i++) view_wrapped(pr, ROLE_WARN, head, nt->v[i]);
}

/* Write a made profile; on success close the prompt and show what happened. */
static void write_made(struct profiles *pr, const struct profile *p, const char *comment, const struct notes *nt,
                       bool provenance, const char *what)
{
    char *text = profile_file_text(p, comment, nt, provenance);
    char where[PATH_MAX], title[160];
    sl_err e;
    int rc = profile_write(p->name, text, false, where, sizeof where, &e);
    free(text);
    if (rc < 0) { prompt_error(&pr->prompt, "%s", e.msg); return; }
    prompt_close(&pr->prompt);
    snprintf(title, sizeof title, "%s profile %s (Esc back; the list shows it)", what, p->name);
    profiles_open_view(pr, title);
    char wrote[PATH_MAX + 64];
    snprintf(wrote, sizeof wrote, "%d setting(s) to %s", p->n, where);
    view_wrapped(pr, ROLE_OK, "wrote ", wrote);
    if (p->path[0]) view_wrapped(pr, ROLE_NORMAL, "from ", p->path);
    view_wrapped(pr, ROLE_NORMAL, "summary: ", p->summary);
    view_notes(pr, "not mapped: ", nt);
    profiles_refresh(pr);
    for (int i = 0; i < pr->n; i++)
        if (strcmp(pr->rows[i].name, p->name) == 0) tv_select_tag(&pr->list, i);
    app_message(pr->base.app, ROLE_OK, "%s profile %s: E exports it, a applies it", what, p->name);
}

static void save_current(struct profiles *pr, const char *name)
{
    if (!name_ok(pr, name)) return;
    struct profile p;
    struct notes nt = { 0 };
    char comment[512];
    profile_save_current(name, NULL, &p, &nt, comment, sizeof comment);
    write_made(pr, &p, comment, &nt, false, "Saved");
    notes_free(&nt);
    profile_free(&p);
}

static void import_from(struct profiles *pr, const char *src)
{
    sl_err e;
    drop_import(pr);
    if (!src[0]) { prompt_error(&pr->prompt, "give a TuneD profile name or a directory holding tuned.conf"); return; }
    memset(&pr->unmapped, 0, sizeof pr->unmapped);
    if (profile_import_tuned_as(src, NULL, &pr->imported, &pr->unmapped, pr->import_comment, sizeof pr->import_comment,
                                &e) < 0) {
        profile_free(&pr->imported);
        notes_free(&pr->unmapped);
        prompt_error(&pr->prompt, "%s", e.msg);
        return;
    }
    pr->have_import = true;
    char q[256];
    snprintf(q, sizeof q, "Save TuneD profile %s (%d setting(s) mapped, %d not) as:", src, pr->imported.n, pr->unmapped.n);
    prompt_open(&pr->prompt, Q_IMPORT_NAME, "Import TuneD profile", q, pr->imported.name,
                "A new name in /etc/sluice/profiles.", NULL);
}

static void import_as(struct profiles *pr, const char *name)
{
    if (!pr->have_import || !name_ok(pr, name)) return;
    snprintf(pr->imported.name, sizeof pr->imported.name, "%s", name);
    write_made(pr, &pr->imported, pr->import_comment, &pr->unmapped, true, "Imported");
    if (!pr->prompt.open) drop_import(pr);
}

static void export_to(struct profiles *pr, const char *path)
{
    sl_err e;
    profiles_plan_selected(pr);
    if (!pr->have_plan) { prompt_error(&pr->prompt, "%s", pr->plan_err[0] ? pr->plan_err : "no profile selected"); return; }
    struct notes nt = { 0 };
    char *text = profile_export(pr->export_format, &pr->p, &pr->pl, &nt);
    if (profile_export_write(path, text, false, &e) < 0) {
        prompt_error(&pr->prompt, "%s", e.msg);
    } else {
        prompt_close(&pr->prompt);
        char title[160];
        snprintf(title, sizeof title, "Exported profile %s as %s to %s", pr->p.name, pr->export_format, path);
        profiles_open_view(pr, title);
        view_notes(pr, "note: ", &nt);
        for (char *save, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            tv_line(&pr->view, false, -1);
            tv_add(&pr->view, ROLE_NORMAL, "%s", line);
        }
        app_message(pr->base.app, ROLE_OK, "wrote %s", path);
    }
    free(text);
    notes_free(&nt);
}

static void profiles_io_start(struct profiles *pr, enum action a)
{
    struct app *app = pr->base.app;
    sl_err e;
    if (a != ACT_EXPORT && profile_require_root_etc("saving a profile", &e) < 0) {
        app_message(app, ROLE_ERROR, "%s", e.msg);
        return;
    }
    pr->mode = PR_LIST;
    if (a == ACT_SAVE) {
        prompt_open(&pr->prompt, Q_SAVE_NAME, "Save profile", "Save the settings in force now as profile:", "",
                    "vm knobs and the queue and iosched knobs of the disks, into /etc/sluice/profiles/NAME.conf.", NULL);
    } else if (a == ACT_IMPORT_TUNED) {
        prompt_open(&pr->prompt, Q_IMPORT_FROM, "Import TuneD profile", "TuneD profile: a name (/etc/tuned, /usr/lib/tuned) or a directory:",
                    "", "Its [sysctl] vm.*, [vm], [disk] and [sysfs] block settings are mapped; the rest is listed.", NULL);
    } else if (a == ACT_EXPORT) {
        int sel = tv_selected_tag(&pr->list);
        if (sel < 0) { app_message(app, ROLE_WARN, "no profile selected to export"); return; }
        char q[160];
        snprintf(q, sizeof q, "Export profile %s as:", pr->rows[sel].name);
        prompt_open(&pr->prompt, Q_EXPORT_FORMAT, "Export profile", q, "sysctl",
                    "sysctl: sysctl.d(5) lines; udev: rules for the disks; tuned: a TuneD profile.", export_formats);
    }
}

static void profiles_io_key(struct profiles *pr, enum action a, int key)
{
    struct prompt *q = &pr->prompt;
    enum prompt_result r = prompt_key(q, a, key);
    if (r == PROMPT_CANCELLED) {
        drop_import(pr);
        app_message(pr->base.app, ROLE_NORMAL, "%s cancelled: nothing was written", q->title);
        return;
    }
    if (r != PROMPT_ENTERED) return;
    char input[PATH_MAX];
    snprintf(input, sizeof input, "%s", q->input);
    switch (q->id) {
    case Q_SAVE_NAME: save_current(pr, input); break;
    case Q_IMPORT_FROM: import_from(pr, input); break;
    case Q_IMPORT_NAME: import_as(pr, input); break;
    case Q_EXPORT_FORMAT: {
        if (!profile_export_format_valid(input)) { prompt_error(q, "%s: give sysctl, udev or tuned", input); break; }
        snprintf(pr->export_format, sizeof pr->export_format, "%s", input);
        int sel = tv_selected_tag(&pr->list);
        char file[PATH_MAX], question[200];
        const char *name = sel >= 0 ? pr->rows[sel].name : "profile";
        snprintf(file, sizeof file, !strcmp(input, "udev") ? "60-sluice-%s.rules" : !strcmp(input, "tuned") ? "tuned-%s.conf"
                                                                                                            : "60-sluice-%s.conf",
                 name);
        snprintf(question, sizeof question, "Write the %s export of %s to the file:", input, name);
        prompt_open(q, Q_EXPORT_PATH, "Export profile", question, file,
                    "A relative path starts where sluice started; an existing file is kept.", NULL);
        break;
    }
    case Q_EXPORT_PATH: export_to(pr, input); break;
    }
}

static void profiles_io_done(struct profiles *pr) { drop_import(pr); }

/* --- screen ops -------------------------------------------------------- */

static struct screen *profiles_create(struct app *app)
{
    struct profiles *pr = screen_new(sizeof *pr, &profiles_screen, app);
    tv_cursor_init(&pr->list);
    pr->planned = -1;
    return &pr->base;
}

static void profiles_draw(struct screen *s, struct rect r)
{
    struct profiles *pr = (struct profiles *)s;
    if (verify_panel_shown(&pr->verify)) {
        verify_panel_draw(&pr->verify, r);
        return;
    }
    if (pr->mode == PR_VIEW || pr->mode == PR_ASK_APPLY) {
        draw_text(r.y, r.x, r.w, pr->mode == PR_ASK_APPLY ? ROLE_WARN : ROLE_HEADER, pr->view_title);
        tv_draw(&pr->view, (struct rect){ r.y + 1, r.x, r.h - 1, r.w });
        return;
    }
    build_list(pr, r.w);
    draw_cell(r.y, r.x, 23, ROLE_HEADER, " PROFILE");
    draw_cell(r.y, r.x + 23, 8, ROLE_HEADER, "FOR");
    draw_text(r.y, r.x + 31, r.w - 31, ROLE_HEADER, "SUMMARY");
    int lh = pr->n + 1 < r.h / 3 ? pr->n + 1 : r.h / 3;
    if (lh < 3) lh = 3;
    tv_draw(&pr->list, (struct rect){ r.y + 1, r.x, lh, r.w });
    profiles_plan_selected(pr);
    int y = r.y + 1 + lh;
    draw_hline(y, r.x, r.w, ROLE_DIM);
    int sel = tv_selected_tag(&pr->list);
    if (sel >= 0)
        draw_fmt(y, r.x + 2, r.w - 4, pr->plan_focus ? ROLE_SELECTED : ROLE_HEADER, " %s against this machine%s ",
                 pr->rows[sel].name, pr->plan_focus ? " (keys here: Tab)" : "");
    char boot[128];
    snprintf(boot, sizeof boot, " boot: %s ", pr->boot[0] ? pr->boot : "none installed");
    draw_text(y, r.x + r.w - draw_cells(boot) - 2, draw_cells(boot), ROLE_NORMAL, boot);
    tv_clear(&pr->diff);
    diff_lines(pr, &pr->diff, r.w, false, false);
    tv_draw(&pr->diff, (struct rect){ y + 1, r.x, r.y + r.h - y - 1, r.w });
    if (pr->mode == PR_CONFIRM && sel >= 0) {
        struct rect b = { r.y + r.h / 2 - 3, r.x + (r.w - 64) / 2, 6, 64 };
        draw_box(b, ROLE_DIALOG, "Install for boot");
        draw_fmt(b.y + 1, b.x + 2, b.w - 4, ROLE_DIALOG, "Install profile %s for every boot?", pr->rows[sel].name);
        draw_text(b.y + 2, b.x + 2, b.w - 4, ROLE_DIALOG, "Writes sysctl.d, udev rules and sluice-apply.service.");
        draw_text(b.y + 4, b.x + 2, b.w - 4, ROLE_DIALOG, "y  install      any other key  cancel");
    }
    if (pr->prompt.open) prompt_draw(&pr->prompt, r);
    verify_panel_draw_prompt(&pr->verify, r);
}

static enum handled profiles_key(struct screen *s, enum action a, int key)
{
    struct profiles *pr = (struct profiles *)s;
    if (verify_panel_active(&pr->verify)) return verify_panel_key(&pr->verify, a, key);
    if (pr->prompt.open) { profiles_io_key(pr, a, key); return H_HANDLED; }
    if (pr->mode == PR_ASK_APPLY) { answer_apply(pr, a, key); return H_HANDLED; }
    if (pr->mode == PR_CONFIRM) {
        if (key == 'y' || key == 'Y') boot_install_selected(pr);
        else { pr->mode = PR_LIST; app_message(s->app, ROLE_NORMAL, "boot install cancelled"); }
        return H_HANDLED;
    }
    if (pr->mode == PR_VIEW) {
        switch (a) {
        case ACT_BACK: pr->mode = PR_LIST; return H_HANDLED;
        case ACT_KEEP: case ACT_REVERT: case ACT_APPLY: break;
        default: return tv_move(&pr->view, a);
        }
    }
    switch (a) {
    case ACT_NEXT_PANE:   /* the list or the plan below it takes the moving keys */
        pr->plan_focus = !pr->plan_focus;
        app_message(s->app, ROLE_NORMAL, pr->plan_focus ? "the plan has the keys: Up/Down, Left/Right scroll it; Tab back to the list"
                                                        : "the list has the keys: Up/Down choose a profile");
        return H_HANDLED;
    case ACT_UP: case ACT_DOWN: case ACT_FIRST: case ACT_LAST: case ACT_LEFT: case ACT_RIGHT:
        return tv_move(pr->plan_focus ? &pr->diff : &pr->list, a);
    case ACT_PAGE_UP: case ACT_PAGE_DOWN: return tv_move(&pr->diff, a == ACT_PAGE_UP ? ACT_PAGE_UP : ACT_PAGE_DOWN);
    case ACT_EDIT: case ACT_DIFF: {
        profiles_plan_selected(pr);
        int sel = tv_selected_tag(&pr->list);
        if (sel < 0) return H_HANDLED;
        char title[160];
        snprintf(title, sizeof title, "Profile %s against this machine (a applies it)", pr->rows[sel].name);
        profiles_open_view(pr, title);
        diff_lines(pr, &pr->view, 76, false, false);
        return H_HANDLED;
    }
    case ACT_APPLY: ask_apply(pr); return H_HANDLED;
    case ACT_BOOT_INSTALL:
        if (tv_selected_tag(&pr->list) >= 0) pr->mode = PR_CONFIRM;
        return H_HANDLED;
    case ACT_BOOT_STATUS: boot_status(pr); return H_HANDLED;
    case ACT_VERIFY_LIVE: verify_selected(pr); return H_HANDLED;
    case ACT_SAVE: case ACT_IMPORT_TUNED: case ACT_EXPORT: profiles_io_start(pr, a); return H_HANDLED;
    case ACT_KEEP: case ACT_REVERT: {
        struct restore_report rep = { 0 };
        char id[9];
        if (app_trial_decide(s->app, a == ACT_KEEP, &rep, id) == 0) {
            if (a == ACT_KEEP) pr->mode = PR_LIST;
            else {
                char title[96];
                snprintf(title, sizeof title, "Reverted session %s", id);
                profiles_open_view(pr, title);
                setview_restore(&pr->view, &rep);
            }
        }
        restore_report_free(&rep);
        pr->planned = -2;
        return H_HANDLED;
    }
    case ACT_REFRESH: profiles_refresh(pr); return H_IGNORED;
    default: return H_IGNORED;
    }
}

static void profiles_show(struct screen *s) { profiles_refresh((struct profiles *)s); }

static bool profiles_hint_on(struct screen *s, enum action a)
{
    struct profiles *pr = (struct profiles *)s;
    if (pr->prompt.open || pr->verify.prompt.open) return false;
    if (verify_panel_shown(&pr->verify))
        return a == ACT_CANCEL ? verify_panel_busy(&pr->verify) : a == ACT_BACK && !verify_panel_busy(&pr->verify);
    switch (a) {
    case ACT_CANCEL: return false;
    case ACT_VERIFY_LIVE: return false;   /* help names it; the hint line has no room */
    case ACT_KEEP: case ACT_REVERT: return trial_active();
    case ACT_BACK: return pr->mode == PR_VIEW || pr->mode == PR_ASK_APPLY;
    case ACT_NEXT_PANE: return pr->mode == PR_LIST && pr->n > 0;
    case ACT_APPLY: return pr->n > 0 && !trial_active() && pr->mode != PR_ASK_APPLY;
    case ACT_BOOT_INSTALL: case ACT_DIFF: case ACT_EXPORT: return pr->mode == PR_LIST && pr->n > 0;
    default: return pr->mode == PR_LIST;
    }
}

static void profiles_done(struct screen *s)
{
    struct profiles *pr = (struct profiles *)s;
    drop_plan(pr);
    verify_panel_free(&pr->verify);
    profiles_io_done(pr);
    tv_free(&pr->list);
    tv_free(&pr->diff);
    tv_free(&pr->view);
    free(pr->rows);
    free(pr);
}

/* What / and n/N search: the open view, else the pane the keys move. */
static struct textview *profiles_view(struct screen *s)
{
    struct profiles *pr = (struct profiles *)s;
    if (verify_panel_shown(&pr->verify)) return verify_panel_view(&pr->verify);
    return pr->mode == PR_VIEW || pr->mode == PR_ASK_APPLY ? &pr->view : pr->plan_focus ? &pr->diff : &pr->list;
}

static const enum action profiles_hints[] = { ACT_DIFF, ACT_APPLY, ACT_KEEP, ACT_REVERT, ACT_BOOT_INSTALL, ACT_BOOT_STATUS,
                                              ACT_SAVE, ACT_IMPORT_TUNED, ACT_EXPORT, ACT_NEXT_PANE, ACT_CANCEL, ACT_BACK,
                                              ACT_VERIFY_LIVE, ACT_NONE };

static void profiles_tick(struct screen *s, long long now_ms) { verify_panel_tick(&((struct profiles *)s)->verify); }
static bool profiles_busy(struct screen *s) { return verify_panel_busy(&((struct profiles *)s)->verify); }
static void profiles_cancel(struct screen *s) { verify_panel_cancel(&((struct profiles *)s)->verify); }

const struct screen_class profiles_screen = {
    .title = "Profiles", .open = ACT_PROFILES, .hints = profiles_hints,
    .create = profiles_create, .draw = profiles_draw, .handle_key = profiles_key,
    .done = profiles_done, .show = profiles_show, .hint_on = profiles_hint_on, .view = profiles_view,
    .tick = profiles_tick, .busy = profiles_busy, .cancel = profiles_cancel,
};
