/* profiles_io — the Profiles screen's save (S), import-tuned (T) and export
 * (E): prompts for a name, a TuneD profile or a file, checked before
 * anything is written, then the same profile/save.c calls `sluice profile
 * save|import-tuned|export` make. A refused answer keeps the prompt open
 * with the reason. */
#include "app.h"
#include "profile/save.h"
#include "profiles_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void profiles_io_start(struct profiles *pr, enum action a)
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

void profiles_io_key(struct profiles *pr, enum action a, int key)
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

void profiles_io_done(struct profiles *pr) { drop_import(pr); }
