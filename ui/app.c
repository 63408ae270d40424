/* app — screens, the run loop, the bars, quitting and signals. */
#include "ui/app.h"
#include "core/device.h"
#include "ui/form.h"
#include "ui/input.h"
#include "core/interrupt.h"
#include "ui/prompt.h"
#include "session/session.h"
#include "core/sysfs.h"
#include "ui/textview.h"
#include "ui/trial.h"

#include <curses.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIN_LINES 24
#define MIN_COLS 80
#define POLL_MS 100         /* input timeout: keys answer within this */
#define REDRAW_MS 250       /* the redraw timer while nothing is typed */
#define WAIT_LIMIT_MS (30 * 60 * 1000)

extern const struct screen_class overview_screen, knobs_screen, probe_screen, search_screen, results_screen,
    profiles_screen, share_screen, sessions_screen, help_screen;

/* One class for each screen action of the action table (ACT_OVERVIEW ...
 * ACT_SESSIONS, ACT_HELP). */
static const struct screen_class *const classes[] = { &overview_screen, &knobs_screen, &probe_screen, &search_screen,
                                                         &results_screen, &profiles_screen, &share_screen,
                                                         &sessions_screen, &help_screen };
#define NCLASSES (int)(sizeof classes / sizeof classes[0])

#define MAX_NOTES 8

struct app {
    const char *db_path;
    store *st;
    sl_err st_err;
    struct host_info host;
    struct screen *screens[NCLASSES];
    int cur, prev;
    char msg[512];
    enum role msg_role;
    bool quit, quit_dialog, leave_dialog;
    char unsaved[256];          /* what quitting drops ("": nothing) */
    long long vclock_ms;
    char notes[MAX_NOTES][512];
    int nnotes;
    char probe_dir[PATH_MAX];
    char suggest_dir[PATH_MAX], suggest_budget[16];   /* a search handed to the Search form ("": none) */
    /* / on a screen without a filter: find as you type, then n/N */
    bool finding;
    char needle[128];
    int find_from, find_line;   /* where the find started; the last match (-1: none) */
};

/* --- what screens call ------------------------------------------------ */

void app_message(struct app *a, enum role r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_role = r;
}

store *app_store(struct app *a, sl_err *e)
{
    if (!a->st && e) *e = a->st_err;
    return a->st;
}

const char *app_db_path(const struct app *a) { return a->db_path; }

void app_set_probe_dir(struct app *a, const char *dir) { snprintf(a->probe_dir, sizeof a->probe_dir, "%s", dir); }
const char *app_probe_dir(const struct app *a) { return a->probe_dir; }

void app_suggest_search(struct app *a, const char *dir, const char *budget)
{
    snprintf(a->suggest_dir, sizeof a->suggest_dir, "%s", dir);
    snprintf(a->suggest_budget, sizeof a->suggest_budget, "%s", budget);
}

bool app_take_suggested_search(struct app *a, char *dir, size_t dir_n, char *budget, size_t budget_n)
{
    bool some = a->suggest_dir[0] && a->suggest_budget[0];
    snprintf(dir, dir_n, "%s", a->suggest_dir);
    snprintf(budget, budget_n, "%s", a->suggest_budget);
    a->suggest_dir[0] = a->suggest_budget[0] = 0;
    return some;
}

void app_form_recall(struct app *a, struct form *fm, const char *name)
{
    sl_err e;
    if (a->st && form_recall(fm, a->st, name, &e) < 0) app_message(a, ROLE_ERROR, "%s", e.msg);
}

void app_form_remember(struct app *a, struct form *fm, const char *name)
{
    sl_err e;
    if (a->st && form_remember(fm, a->st, name, &e) < 0) app_message(a, ROLE_ERROR, "%s", e.msg);
}

void *screen_new(size_t size, const struct screen_class *cls, struct app *app)
{
    struct screen *s = xcalloc(1, size);
    s->cls = cls;
    s->app = app;
    return s;
}

void app_form_edited(struct app *a, struct form *fm, int dir_field, const char *name)
{
    if (fm->value[dir_field][0]) app_set_probe_dir(a, fm->value[dir_field]);
    app_form_remember(a, fm, name);
}

long long app_now_ms(const struct app *a)
{
    if (input_scripted()) return a->vclock_ms;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int app_trial_decide(struct app *app, bool keep, struct restore_report *rep, char id[9])
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

static int class_index(enum action open)
{
    for (int i = 0; i < NCLASSES; i++)
        if (classes[i]->open == open) return i;
    return -1;
}

/* A line to print on stdout after the terminal is given back. */
static __attribute__((format(printf, 2, 3))) void app_exit_note(struct app *a, const char *fmt, ...)
{
    if (a->nnotes == MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->notes[a->nnotes++], sizeof a->notes[0], fmt, ap);
    va_end(ap);
}

static struct rect content_rect(void)
{
    int lines, cols;
    term_size(&lines, &cols);
    return (struct rect){ 1, 0, lines - 3, cols };
}

static struct screen *screen_at(struct app *a, int i)
{
    if (!a->screens[i]) a->screens[i] = classes[i]->create(a);
    return a->screens[i];
}

/* Switch to the screen opened by `open`. */
static void app_show(struct app *a, enum action open)
{
    int i = class_index(open);
    if (i < 0) sl_die("app: no screen class opens action %d (a bug)", (int)open);
    if (i != a->cur) a->prev = a->cur;
    if (i != a->cur) a->find_line = -1;   /* n/N start from the new view's place */
    a->cur = i;
    struct screen *s = screen_at(a, i);
    if (s->cls->show) s->cls->show(s);
}

const struct screen_class *app_previous_screen(const struct app *a)
{
    return a->prev != a->cur ? classes[a->prev] : NULL;
}

bool app_is_shown(const struct app *a, const struct screen *s) { return a->screens[a->cur] == s; }

void app_back(struct app *a)
{
    app_show(a, classes[a->prev == a->cur ? 0 : a->prev]->open);
}

/* --- drawing ------------------------------------------------------------ */

static void draw_title(struct app *a, int cols)
{
    draw_fill(0, 0, cols, ROLE_TITLE);
    const struct glyphs *g = term_glyphs();
    int x = draw_fmt(0, 0, cols, ROLE_TITLE, " sluice %s %s %s %s", g->vline, classes[a->cur]->title, g->vline,
                     a->host.hostname[0] ? a->host.hostname : "?");
    char right[128] = "";
    enum role r = ROLE_TITLE;
    if (trial_active()) {
        snprintf(right, sizeof right, " trial %.8s: K keeps, R reverts ", trial_uuid());
        r = ROLE_WARN;
    } else if (!sysfs_is_real_root()) {
        snprintf(right, sizeof right, " test root ");
    }
    int w = draw_cells(right);
    if (w && x + w < cols) draw_text(0, cols - w, w, r, right);
}

/* htop's function bar: "F1Help F2Overview ..." from the action table.
 * Wider than the terminal (80 columns hold all ten only without blanks),
 * the blanks go first, as in htop's bar, where the keys' colour parts the
 * labels; then the longest labels lose a letter at a time. */
static void draw_fkeys(int y, int cols)
{
    struct { int k, keyw, w; const char *label; } e[12];
    int n = 0, total = 0;
    for (int k = 1; k <= 12; k++) {
        enum action a = action_for_key(KEY_F(k));
        const struct action_info *ai = action_info(a);
        if (!ai || !ai->label) continue;
        e[n].k = k;
        e[n].keyw = k < 10 ? 2 : 3;
        e[n].label = ai->label;
        e[n].w = draw_cells(ai->label);
        total += e[n].keyw + e[n].w;
        n++;
    }
    bool gaps = total + n - 1 <= cols;
    while (!gaps && total > cols) {
        int longest = -1;
        for (int i = 0; i < n; i++)
            if (e[i].w > 1 && (longest < 0 || e[i].w >= e[longest].w)) longest = i;
        if (longest < 0) break;
        e[longest].w--;
        total--;
    }
    draw_fill(y, 0, cols, ROLE_NORMAL);
    for (int i = 0, x = 0; i < n && x < cols; i++) {
        int x0 = x;
        x += draw_fmt(y, x, cols - x, ROLE_FKEY, "F%d", e[i].k);
        x += draw_text(y, x, e[i].w < cols - x ? e[i].w : cols - x, ROLE_FLABEL, e[i].label);
        draw_target_add((struct rect){ y, x0, 1, x - x0 }, TARGET_ACTION, NULL, action_for_key(KEY_F(e[i].k)));
        if (gaps) x += draw_text(y, x, cols - x, ROLE_NORMAL, " ");
    }
}

static void draw_hints(struct app *a, int y, int cols)
{
    draw_fill(y, 0, cols, ROLE_NORMAL);
    if (a->finding) {
        int x = draw_fmt(y, 0, cols, ROLE_FKEY, "/%s", a->needle);
        draw_text(y, x, cols - x, a->needle[0] && a->find_line < 0 ? ROLE_WARN : ROLE_DIM,
                  a->needle[0] && a->find_line < 0 ? "  not found  (Enter done, Esc stop)" : "  (Enter done, Esc stop, then n/N)");
        return;
    }
    if (a->msg[0]) {
        char clip[512];
        draw_clip(a->msg, cols, clip, sizeof clip);
        draw_text(y, 0, cols, a->msg_role, clip);
        return;
    }
    struct screen *s = a->screens[a->cur];
    const enum action *h = classes[a->cur]->hints;
    int x = 0;
    /* K and R work everywhere while a trial is open: every hint line says so */
    enum action all[32];
    int n = 0;
    bool has_keep = false;
    for (; h && *h != ACT_NONE && n < 29; h++) {
        all[n++] = *h;
        has_keep |= *h == ACT_KEEP;
    }
    if (!has_keep && trial_active()) { all[n++] = ACT_KEEP; all[n++] = ACT_REVERT; }
    all[n] = ACT_NONE;
    for (h = all; *h != ACT_NONE && x < cols; h++) {
        if (s && s->cls->hint_on && !s->cls->hint_on(s, *h)) continue;
        const struct action_info *ai = action_info(*h);
        const char *label = ai->label ? ai->label : ai->name;
        char key[16];
        action_key_label(ai->key, key, sizeof key);
        int need = draw_cells(key) + 1 + draw_cells(label) + 2;
        if (x + need > cols) break;
        draw_target_add((struct rect){ y, x, 1, need - 2 }, TARGET_ACTION, NULL, *h);
        x += draw_text(y, x, cols - x, ROLE_FKEY, key);
        x += draw_fmt(y, x, cols - x, ROLE_NORMAL, " %s  ", label);
    }
}

/* A dialog centred in the whole window at any size, the smallest
 * included (below 80x24 nothing else is drawn, but quitting still asks):
 * its text wrapped to the box, then one line per choice. */
static void draw_dialog(const char *title, const char *text, const char *const *choices, const enum action *acts)
{
    int lines, cols;
    term_size(&lines, &cols);
    int w = cols < 64 ? cols : 64, nc = 0;
    char wrapped[8][256];
    int n = draw_wrap(text, w - 4, wrapped, 8);
    while (choices[nc]) nc++;
    int h = n + nc + 3;
    if (h > lines) h = lines;
    struct rect b = { (lines - h) / 2, (cols - w) / 2, h, w };
    draw_box(b, ROLE_DIALOG, title);
    draw_target_add(b, TARGET_ACTION, NULL, ACT_NONE);   /* a click on the box: nothing */
    int y = b.y + 1, end = b.y + h - 1;
    for (int i = 0; i < n && y < end - nc; i++) draw_text(y++, b.x + 2, w - 4, ROLE_DIALOG, wrapped[i]);
    if (y < end - nc) y++;
    for (int i = 0; i < nc && y < end; i++) {
        draw_target_add((struct rect){ y, b.x + 2, 1, w - 4 }, TARGET_ACTION, NULL, acts[i]);
        draw_text(y++, b.x + 2, w - 4, ROLE_DIALOG, choices[i]);
    }
}

static void draw_dialogs(struct app *a)
{
    char text[512];
    if (a->quit_dialog) {
        static const char *const choices[] = { "K    keep them and quit", "R    put them back and quit", "Esc  stay in sluice",
                                               NULL };
        static const enum action acts[] = { ACT_KEEP, ACT_REVERT, ACT_BACK };
        snprintf(text, sizeof text, "Session %.8s changed knobs that are still on trial.%s%s%s", trial_uuid(),
                 a->unsaved[0] ? " Also dropped: " : "", a->unsaved, a->unsaved[0] ? "." : "");
        draw_dialog("Changes on trial", text, choices, acts);
    } else if (a->leave_dialog) {
        static const char *const choices[] = { "q    quit and drop them", "Esc  stay in sluice", NULL };
        static const enum action acts[] = { ACT_QUIT, ACT_BACK };
        snprintf(text, sizeof text, "%s: quitting drops them.", a->unsaved);
        draw_dialog("Edits not applied", text, choices, acts);
    }
}

static void draw_all(struct app *a)
{
    int lines, cols;
    term_size(&lines, &cols);
    erase();
    draw_targets_clear();
    if (lines < MIN_LINES || cols < MIN_COLS) {
        draw_fmt(lines / 2, 0, cols, ROLE_WARN, "sluice needs %dx%d, this is %dx%d", MIN_COLS, MIN_LINES, cols, lines);
        draw_text(lines / 2 + 1, 0, cols, ROLE_NORMAL, "enlarge the window, or q to quit");
        draw_dialogs(a);
        refresh();
        return;
    }
    draw_title(a, cols);
    struct rect c = content_rect();
    struct screen *s = screen_at(a, a->cur);
    s->cls->draw(s, c);
    draw_dialogs(a);
    draw_hints(a, lines - 2, cols);
    draw_fkeys(lines - 1, cols);
    refresh();
}

/* --- leaving ------------------------------------------------------------- */


/* Put back a trial nobody chose to keep, and say so after the terminal is back. */
static void put_back_trial(struct app *a, const char *why)
{
    if (!trial_active()) return;
    char id[9];
    snprintf(id, sizeof id, "%.8s", trial_uuid());
    struct restore_report rep = { 0 };
    sl_err e;
    if (trial_revert(&rep, &e) < 0) app_exit_note(a, "sluice: %s", e.msg);
    else app_exit_note(a, "sluice: %s: put back the knobs of session %s", why, id);
    restore_report_free(&rep);
}

static void emergency(void)
{
    /* Newest hook first: sl_die runs this before it prints. */
    trial_emergency();
    term_emergency();
}

static void quit_with(struct app *a, bool keep)
{
    sl_err e;
    char id[9];
    snprintf(id, sizeof id, "%.8s", trial_uuid());
    if (keep) {
        if (trial_keep(&e) < 0) { app_message(a, ROLE_ERROR, "%s", e.msg); return; }
        app_exit_note(a, "session %s: kept; 'sluice restore' puts the old values back", id);
    } else {
        put_back_trial(a, "quit");
    }
    a->quit_dialog = false;
    a->quit = true;
}

/* What the screens would drop on quitting, joined into a->unsaved. */
static bool find_unsaved(struct app *a)
{
    a->unsaved[0] = 0;
    for (int i = 0; i < NCLASSES; i++) {
        char what[128];
        if (!a->screens[i] || !classes[i]->unsaved || !classes[i]->unsaved(a->screens[i], what, sizeof what)) continue;
        size_t len = strlen(a->unsaved);
        snprintf(a->unsaved + len, sizeof a->unsaved - len, "%s%s", len ? "; " : "", what);
    }
    return a->unsaved[0] != 0;
}

/* K and R answer on every screen while a trial is open, as the title
 * bar says; a screen with its own view of the outcome (Knobs) takes them
 * first. */
static void decide_trial(struct app *a, bool keep)
{
    struct restore_report rep = { 0 };
    char id[9];
    if (app_trial_decide(a, keep, &rep, id) == 0 && !keep) {
        char held[400];
        restore_report_holdings(&rep, held, sizeof held);
        if (rep.failed || rep.left)
            app_message(a, ROLE_ERROR, "session %s: %d knob(s) not put back ('sluice restore %s' says why); now %s", id,
                        rep.failed + rep.left, id, held);
        else app_message(a, ROLE_OK, "session %s put back: %s", id, held);
    }
    restore_report_free(&rep);
    struct screen *s = a->screens[a->cur];
    if (s && s->cls->show) s->cls->show(s);   /* what it shows of the knobs is stale now */
}

/* --- finding (less's / and n/N) ---------------------------------------- */

static struct textview *current_view(struct app *a)
{
    struct screen *s = a->screens[a->cur];
    return s && s->cls->view ? s->cls->view(s) : NULL;
}

static int view_position(const struct textview *tv) { return tv->use_cursor && tv->cursor >= 0 ? tv->cursor : tv->top; }

static void find_start(struct app *a)
{
    struct textview *tv = current_view(a);
    if (!tv) { app_message(a, ROLE_DIM, "filter: not on this screen (? shows the keys)"); return; }
    a->finding = true;
    a->needle[0] = 0;
    a->find_from = view_position(tv);
    a->find_line = -1;
}

/* A key while finding: the text grows and the view goes to the first line
 * with it from where the find started; Enter keeps it for n/N, Esc drops it. */
static void find_key(struct app *a, enum action act, int key)
{
    struct textview *tv = current_view(a);
    if (act == ACT_BACK) {
        a->finding = false;
        a->needle[0] = 0;
        if (tv) tv->found = 0;
        return;
    }
    if (act == ACT_EDIT && !(key >= 32 && key < 127)) {   /* Enter; a typed 'e' is text */
        a->finding = false;
        if (a->needle[0] && a->find_line < 0) app_message(a, ROLE_WARN, "/%s: not found", a->needle);
        return;
    }
    prompt_line_edit(a->needle, sizeof a->needle, key);
    a->find_line = tv ? tv_find(tv, a->needle, a->find_from - 1, 1) : -1;
}

static void find_again(struct app *a, int dir)
{
    struct textview *tv = current_view(a);
    if (!tv) { app_message(a, ROLE_DIM, "%s: not on this screen", dir > 0 ? "find-next" : "find-prev"); return; }
    if (!a->needle[0]) { app_message(a, ROLE_NORMAL, "nothing to find: / first"); return; }
    int at = tv_find(tv, a->needle, a->find_line >= 0 ? a->find_line : view_position(tv), dir);
    if (at < 0) app_message(a, ROLE_WARN, "/%s: not found", a->needle);
    else a->find_line = at;
}

/* --- input ------------------------------------------------------------ */

static void do_resize(struct app *a)
{
    struct rect c = content_rect();
    for (int i = 0; i < NCLASSES; i++)
        if (a->screens[i] && classes[i]->resize) classes[i]->resize(a->screens[i], c);
}

static void dump_screen(struct app *a)
{
    sl_err e;
    draw_all(a);
    if (term_dump(getenv("SLUICE_DUMP"), &e) < 0) app_message(a, ROLE_ERROR, "%s", e.msg);
}

static void global_action(struct app *a, enum action act, int key)
{
    switch (act) {
    case ACT_QUIT:
        find_unsaved(a);
        if (trial_active()) a->quit_dialog = true;
        else if (a->unsaved[0]) a->leave_dialog = true;
        else a->quit = true;
        break;
    case ACT_KEEP: case ACT_REVERT:
        decide_trial(a, act == ACT_KEEP);
        break;
    case ACT_FILTER: find_start(a); break;
    case ACT_FIND_NEXT: case ACT_FIND_PREV: find_again(a, act == ACT_FIND_NEXT ? 1 : -1); break;
    case ACT_HELP: case ACT_OVERVIEW: case ACT_KNOBS: case ACT_PROBE: case ACT_SEARCH:
    case ACT_RESULTS: case ACT_PROFILES: case ACT_SHARE: case ACT_SESSIONS:
        app_show(a, act);
        break;
    case ACT_BACK:
        if (a->cur != 0) app_back(a);
        break;
    case ACT_REFRESH:
        clearok(curscr, TRUE);
        break;
    case ACT_DUMP_SCREEN:
        dump_screen(a);
        break;
    case ACT_NONE: {
        char k[16];
        if (key > 0 && key != KEY_RESIZE)
            app_message(a, ROLE_DIM, "%s: no action (? shows the keys)", action_key_label(key, k, sizeof k));
        break;
    }
    default: {
        const struct action_info *ai = action_info(act);
        app_message(a, ROLE_DIM, "%s: not on this screen (? shows the keys)", ai->name);
    }
    }
}

static void dispatch(struct app *a, enum action act, int key)
{
    if (act == ACT_DUMP_SCREEN) { dump_screen(a); return; }   /* the message stays in the dump */
    a->msg[0] = 0;
    if (key == KEY_RESIZE) { do_resize(a); return; }
    if (a->quit_dialog) {
        if (act == ACT_KEEP) quit_with(a, true);
        else if (act == ACT_REVERT) quit_with(a, false);
        else if (act == ACT_BACK) a->quit_dialog = false;
        return;
    }
    if (a->finding) { find_key(a, act, key); return; }
    if (a->leave_dialog) {
        if (act == ACT_QUIT) a->quit = true;
        else if (act == ACT_BACK) a->leave_dialog = false;
        return;
    }
    int lines, cols;
    term_size(&lines, &cols);
    if (lines < MIN_LINES || cols < MIN_COLS) {   /* too small: only quitting works */
        if (act == ACT_QUIT) global_action(a, act, key);
        return;
    }
    struct screen *s = screen_at(a, a->cur);
    if (s->cls->handle_key(s, act, key) == H_IGNORED) global_action(a, act, key);
}

/* A click (htop's): on a tab of the F-key bar or a button of the hint line,
 * its action; on a row of a list or a field of a form, the cursor goes
 * there, and a click on the row under the cursor opens it (Enter); the
 * wheel moves the cursor. While a dialog asks, only its choices answer. */
static void mouse(struct app *a, int button, int y, int x)
{
    if (button == 4 || button == 5) {
        for (int i = 0; i < 3; i++) dispatch(a, button == 4 ? ACT_UP : ACT_DOWN, button == 4 ? KEY_UP : KEY_DOWN);
        return;
    }
    const struct draw_target *t = draw_target_at(y, x);
    bool asking = a->quit_dialog || a->leave_dialog || a->finding;
    if (!t || (asking && t->kind != TARGET_ACTION)) return;
    switch (t->kind) {
    case TARGET_ACTION: {
        const struct action_info *ai = action_info((enum action)t->arg);
        if (ai) dispatch(a, ai->id, ai->key);
        break;
    }
    case TARGET_VIEW:
        a->msg[0] = 0;
        if (tv_click(t->obj, y - t->r.y) == 1) dispatch(a, ACT_EDIT, '\n');
        break;
    case TARGET_FORM:
        a->msg[0] = 0;
        if (form_click(t->obj, t->arg)) dispatch(a, ACT_EDIT, '\n');
        break;
    }
}

static bool any_busy(struct app *a)
{
    for (int i = 0; i < NCLASSES; i++)
        if (a->screens[i] && classes[i]->busy && classes[i]->busy(a->screens[i])) return true;
    return false;
}

static void tick_all(struct app *a)
{
    long long now = app_now_ms(a);
    for (int i = 0; i < NCLASSES; i++)
        if (a->screens[i] && classes[i]->tick) classes[i]->tick(a->screens[i], now);
}

/* Leaving with work running: ask every screen to stop it, and keep drawing
 * (progress, "stopping") until the workers are gone. */
static void stop_work(struct app *a)
{
    if (!any_busy(a)) return;
    for (int i = 0; i < NCLASSES; i++)
        if (a->screens[i] && classes[i]->cancel) classes[i]->cancel(a->screens[i]);
    app_message(a, ROLE_WARN, "stopping the running work...");
    while (any_busy(a)) {
        tick_all(a);
        draw_all(a);
        napms(50);
        a->vclock_ms += 50;
    }
}

/* <Wait>: keep ticking and drawing until the background work is over. */
static void wait_for_work(struct app *a)
{
    for (long long waited = 0; any_busy(a) && !interrupt_signal; waited += 20) {
        if (waited > WAIT_LIMIT_MS) {
            app_message(a, ROLE_ERROR, "<Wait>: work still running after %d minutes", WAIT_LIMIT_MS / 60000);
            return;
        }
        a->vclock_ms += 20;
        tick_all(a);
        napms(20);
    }
    tick_all(a);
}

/* <Idle MS>: the loop's turns while nothing is typed, on the UI clock. */
static void idle_for(struct app *a, int ms, long long *last_draw)
{
    for (int t = 0; t < ms && !interrupt_signal; t += POLL_MS) {
        a->vclock_ms += POLL_MS;
        tick_all(a);
        if (app_now_ms(a) - *last_draw >= REDRAW_MS) {
            draw_all(a);
            *last_draw = app_now_ms(a);
        }
    }
}

static int loop(struct app *a)
{
    long long last_draw = -REDRAW_MS;
    bool dirty = true;
    while (!a->quit && !interrupt_signal) {
        tick_all(a);
        char err_line[512];
        if (term_stderr_line(err_line, sizeof err_line)) {
            app_message(a, ROLE_WARN, "%s", err_line);
            dirty = true;
        }
        long long now = app_now_ms(a);
        if (dirty || now - last_draw >= REDRAW_MS) {
            draw_all(a);
            last_draw = now;
            dirty = false;
        }
        struct input_event ev;
        input_next(POLL_MS, &ev);
        if (input_scripted()) a->vclock_ms += POLL_MS;
        switch (ev.kind) {
        case IN_NONE: continue;
        case IN_KEY: dispatch(a, action_for_key(ev.key), ev.key); break;
        case IN_ACTION: dispatch(a, (enum action)ev.action, 0); break;
        case IN_WAIT: wait_for_work(a); break;
        case IN_IDLE: idle_for(a, ev.ms, &last_draw); break;
        case IN_MOUSE: mouse(a, ev.key, ev.lines, ev.cols); break;
        case IN_RESIZE: {
            sl_err e;
            if (term_resize(ev.lines, ev.cols, &e) < 0) app_message(a, ROLE_ERROR, "%s", e.msg);
            else dispatch(a, ACT_NONE, KEY_RESIZE);
            break;
        }
        case IN_END:
            a->quit = true;
            break;
        }
        dirty = true;
    }
    if (interrupt_signal) return 128 + interrupt_signal;
    return 0;
}

/* --- start and end ------------------------------------------------------ */

static void app_free(struct app *a)
{
    for (int i = 0; i < NCLASSES; i++)
        if (a->screens[i]) classes[i]->done(a->screens[i]);
}

int app_run(const char *db_path, sl_err *e)
{
    struct app a;
    memset(&a, 0, sizeof a);
    a.db_path = db_path;
    const char *keys = getenv("SLUICE_KEYS");
    /* Headless without a script: draw once, dump, leave (nothing could type). */
    if ((!keys || !*keys) && getenv("SLUICE_HEADLESS") && strcmp(getenv("SLUICE_HEADLESS"), "0") != 0) keys = "/dev/null";
    if (input_open(keys, e) < 0) return -1;
    if (store_open(db_path, &a.st, &a.st_err) < 0) a.st = NULL;
    host_read(&a.host, NULL);
    /* Our handlers go in before curses starts, so curses keeps its hands
     * off SIGINT/SIGTERM and the loop can restore the session itself. */
    interrupt_trap();
    sl_on_emergency(emergency);
    if (term_open(e) < 0) {
        input_close();
        interrupt_untrap();
        store_close(a.st);
        return -1;
    }
    app_show(&a, ACT_OVERVIEW);
    int rc = loop(&a);
    stop_work(&a);
    if (interrupt_signal) put_back_trial(&a, "interrupted");
    else put_back_trial(&a, input_scripted() ? "the key script ended" : "quit");
    a.quit_dialog = a.leave_dialog = false;
    if (term_headless() && getenv("SLUICE_DUMP")) dump_screen(&a);
    term_close();
    app_free(&a);
    store_close(a.st);
    input_close();
    interrupt_untrap();
    for (int i = 0; i < a.nnotes; i++)
        fprintf(strncmp(a.notes[i], "sluice:", 7) == 0 ? stderr : stdout, "%s\n", a.notes[i]);
    return rc;
}
