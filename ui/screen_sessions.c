/* screen_sessions — every tuning session, as `sluice sessions` lists them:
 * Enter opens its report (the knobs, the values before and after, the
 * change log: src/report), p shows what putting a session back would
 * change and y puts it back through the core's session_restore, with the
 * rules of `sluice restore`: a knob changed outside sluice since is named
 * and left, never silently overwritten. */
#include "ui/app.h"
#include "ui/detail.h"
#include "session/session.h"
#include "ui/setview.h"
#include "core/knob.h"
#include "ui/sortcols.h"
#include "db/store_session.h"
#include "core/sysfs.h"
#include "ui/textview.h"
#include "ui/trial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct screen_class sessions_screen;

struct sessions {
    struct screen base;
    struct textview tv;
    struct session_row *rows;
    int nrows;
    char problem[512];
    struct detail detail;        /* Enter: the session's report */
    bool outcome_open;           /* p: what the restore did, knob by knob */
    bool asking;                 /* the outcome view holds p's question: y puts ask_row back */
    struct session_row ask_row;
    struct textview outcome;
    char outcome_title[128];
    struct sort_cols sort;       /* the columns and the sort column (< >): STARTED, newest first */
};

/* The start last but the note: a time then a number would read as a pid. */
enum scol { SC_SESSION, SC_PURPOSE, SC_STATE, SC_CHANGES, SC_STARTED, SC_NOTE, SC_COUNT };
static const struct sort_col columns[SC_COUNT] = {
    { "SESSION", 8, true }, { "PURPOSE", 9, true }, { "STATE", 14, true }, { "CHANGES", 8, false },
    { "STARTED", 20, false }, { "NOTE", 40, true },
};

static void load(struct sessions *ss)
{
    free(ss->rows);
    ss->rows = NULL;
    ss->nrows = 0;
    ss->problem[0] = 0;
    sl_err e;
    store *st = app_store(ss->base.app, &e);
    int n = st ? store_session_list(st, &ss->rows, &e) : -1;
    if (n < 0) {
        ss->rows = NULL;
        snprintf(ss->problem, sizeof ss->problem, "%s", e.msg);
        return;
    }
    ss->nrows = n;
}

static bool on_trial(const struct session_row *r) { return trial_active() && strcmp(r->uuid, trial_uuid()) == 0; }

/* Text A first, CHANGES the most first, STARTED the newest first (ties
 * keep the store's order: the newest first). */
static int by_column(int i, int j, void *arg)
{
    const struct sessions *ss = arg;
    const struct session_row *a = &ss->rows[i], *b = &ss->rows[j];
    switch (ss->sort.by) {
    case SC_SESSION: return strcmp(a->uuid, b->uuid);
    case SC_PURPOSE: return strcmp(a->purpose, b->purpose);
    case SC_STATE: return strcmp(session_state_name(a->state), session_state_name(b->state));
    case SC_CHANGES: return (a->changes < b->changes) - (a->changes > b->changes);
    case SC_STARTED: return -strcmp(a->started, b->started);
    case SC_NOTE: {
        int c = strcmp(a->profile, b->profile);
        return c ? c : strcmp(a->note, b->note);
    }
    default: return 0;
    }
}

static void build(struct sessions *ss, int width)
{
    struct textview *tv = &ss->tv;
    const struct sort_col *col = ss->sort.col;
    tv_clear(tv);
    tv->use_cursor = true;
    int *order = xcalloc((size_t)ss->nrows + 1, sizeof *order);
    sort_cols_order(&ss->sort, order, ss->nrows, by_column, ss);
    for (int k = 0; k < ss->nrows; k++) {
        int i = order[k];
        const struct session_row *r = &ss->rows[i];
        char id[9], state[32], changes[16];
        snprintf(id, sizeof id, "%.8s", r->uuid);
        snprintf(state, sizeof state, "%s%s", session_state_name(r->state), on_trial(r) ? " (trial)" : "");
        snprintf(changes, sizeof changes, "%d", r->changes);
        bool undone = r->state == SESSION_RESTORED;
        tv_line(tv, true, i);
        tv_cell(tv, ROLE_NORMAL, col[SC_SESSION].width, id);
        tv_cell(tv, ROLE_NORMAL, col[SC_PURPOSE].width, r->purpose);
        tv_cell(tv, undone ? ROLE_DIM : r->state == SESSION_KEPT ? ROLE_OK : ROLE_WARN, col[SC_STATE].width, state);
        tv_cell(tv, ROLE_NORMAL, col[SC_CHANGES].width, changes);
        tv_cell(tv, ROLE_NORMAL, col[SC_STARTED].width, r->started);
        tv_add(tv, ROLE_DIM, "%s%s%s", r->profile[0] ? "profile " : "", r->profile, r->note);
    }
    free(order);
    if (ss->nrows == 0) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, "No session yet: applying knobs (Knobs, Profiles, a search's winner) opens one.");
    }
    if (ss->problem[0]) setview_error(tv, ss->problem, width);
}

static const struct session_row *selected(const struct sessions *ss)
{
    int i = tv_selected_tag(&ss->tv);
    return i >= 0 && i < ss->nrows ? &ss->rows[i] : NULL;
}

static void open_outcome(struct sessions *ss, const char *title)
{
    snprintf(ss->outcome_title, sizeof ss->outcome_title, "%s", title);
    tv_clear(&ss->outcome);
    ss->outcome.top = 0;
    ss->outcome_open = true;
}

/* The selected session when p can put it back, else NULL (said on the
 * message line). */
static const struct session_row *put_back_target(struct sessions *ss)
{
    struct app *app = ss->base.app;
    const struct session_row *r = selected(ss);
    if (!r) { app_message(app, ROLE_NORMAL, "no session selected"); return NULL; }
    if (on_trial(r)) { app_message(app, ROLE_NORMAL, "session %.8s is the trial: R puts it back", r->uuid); return NULL; }
    if (r->state == SESSION_RESTORED) {
        app_message(app, ROLE_NORMAL, "session %.8s is already put back", r->uuid);
        return NULL;
    }
    if (trial_active()) {
        app_message(app, ROLE_WARN, "session %.8s is on trial: keep it (K) or revert it (R) first", trial_uuid());
        return NULL;
    }
    return r;
}

/* One knob of the question: its value now, before the session, and what
 * the session wrote; false when it holds its value from before already. */
static bool ask_line(struct textview *tv, const struct snapshot_row *row)
{
    struct knob k;
    char now[KNOB_VALUE_MAX];
    if (knob_lookup(row->knob, row->sched[0] ? row->sched : NULL, &k, NULL) < 0 || knob_read(&k, now, sizeof now, NULL) < 0)
        snprintf(now, sizeof now, "?");
    else if (knob_values_equal(&k, now, row->value)) return false;
    tv_line(tv, false, -1);
    tv_cell(tv, ROLE_NORMAL, 36, row->knob);
    tv_cell(tv, ROLE_PENDING, 13, now);
    tv_cell(tv, ROLE_NORMAL, 13, row->value);
    tv_add(tv, ROLE_DIM, "%s", row->has_left ? row->left : "-");
    return true;
}

/* p: what putting the session back would change, read from its snapshot
 * and the kernel; y does it (put_back), n or Esc does nothing. */
static void ask_put_back(struct sessions *ss)
{
    struct app *app = ss->base.app;
    const struct session_row *r = put_back_target(ss);
    if (!r) return;
    sl_err e;
    store *st = app_store(app, &e);
    struct snapshot_row *rows = NULL;
    int n = st ? store_session_snapshots(st, r->id, &rows, &e) : -1;
    if (n < 0) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    ss->ask_row = *r;
    char title[128];
    snprintf(title, sizeof title, "Put back session %.8s? y puts it back, n or Esc cancels", r->uuid);
    open_outcome(ss, title);
    ss->asking = true;
    struct textview *tv = &ss->outcome;
    static const char *const heads[] = { "KNOB", "NOW", "BEFORE", "SESSION WROTE" };
    static const int widths[] = { 36, 13, 13, 0 };
    tv_header(tv, 4, heads, widths);
    int differ = 0;
    for (int i = 0; i < n; i++) differ += rows[i].present && ask_line(tv, &rows[i]);
    free(rows);
    tv_line(tv, false, -1);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_NORMAL, differ ? "%d knob(s) differ from before the session." : "%d knobs differ: every knob holds its "
           "value from before the session.", differ);
    tv_wrap(tv, ROLE_WARN, "", "y puts them back as 'sluice restore' does: a knob changed since the session wrote it "
            "is named and left as found. n or Esc: nothing is written.", 78);
}

/* y: the session's knobs put back as `sluice restore SESSION` does. */
static void put_back(struct sessions *ss, struct session_row r)
{
    struct app *app = ss->base.app;
    sl_err e;
    int lock_fd = -1;
    store *st = app_store(app, &e);
    if (!st || sysfs_require_root("putting a session back", &e) < 0 || session_lock_acquire(app_db_path(app), &lock_fd, &e) < 0) {
        app_message(app, ROLE_ERROR, "%s", e.msg);
        return;
    }
    struct restore_report rep = { 0 };
    int rc = session_restore(st, &r, 0, &rep, &e);
    session_lock_release(lock_fd);
    char title[128];
    snprintf(title, sizeof title, rc == 0 ? "Session %.8s put back" : "Session %.8s: not every knob put back", r.uuid);
    open_outcome(ss, title);
    setview_restore(&ss->outcome, &rep);
    if (rc < 0) {
        tv_line(&ss->outcome, false, -1);
        setview_error(&ss->outcome, e.msg, 76);
    }
    restore_report_free(&rep);
    load(ss);
}

/* A key while p asks: y, n/Esc, the moving keys; anything else is answered
 * with the question again (nothing is written without a y). */
static enum handled answer_key(struct sessions *ss, enum action a, int key)
{
    if (key == 'y' || key == 'Y') {
        ss->asking = false;
        put_back(ss, ss->ask_row);
    } else if (key == 'n' || key == 'N' || a == ACT_BACK) {
        ss->asking = ss->outcome_open = false;
        app_message(ss->base.app, ROLE_NORMAL, "session %.8s not put back: nothing was written", ss->ask_row.uuid);
    } else if (tv_move(&ss->outcome, a) == H_IGNORED) {
        app_message(ss->base.app, ROLE_WARN, "y puts session %.8s back, n or Esc cancels", ss->ask_row.uuid);
    }
    return H_HANDLED;
}

static struct screen *sessions_create(struct app *app)
{
    struct sessions *ss = screen_new(sizeof *ss, &sessions_screen, app);
    ss->tv.use_cursor = true;
    sort_cols_init(&ss->sort, columns, SC_COUNT, SC_STARTED, NULL);
    return &ss->base;
}

static void sessions_show(struct screen *s) { load((struct sessions *)s); }

static void sessions_draw(struct screen *s, struct rect r)
{
    struct sessions *ss = (struct sessions *)s;
    if (ss->detail.open) { detail_draw(&ss->detail, r); return; }
    if (ss->outcome_open) {
        draw_fmt(r.y, r.x, r.w, ss->asking ? ROLE_WARN : ROLE_HEADER, ss->asking ? "%s" : "%s (Esc back)", ss->outcome_title);
        tv_draw(&ss->outcome, (struct rect){ r.y + 1, r.x, r.h - 1, r.w });
        return;
    }
    build(ss, r.w);
    sort_cols_draw(&ss->sort, r.y, r.x);
    tv_draw(&ss->tv, (struct rect){ r.y + 1, r.x, r.h - 1, r.w });
}

static enum handled sessions_key(struct screen *s, enum action a, int key)
{
    struct sessions *ss = (struct sessions *)s;
    if (ss->detail.open) return detail_key(&ss->detail, a);
    if (ss->asking) return answer_key(ss, a, key);
    if (ss->outcome_open) {
        if (a == ACT_BACK) { ss->outcome_open = false; return H_HANDLED; }
        return tv_move(&ss->outcome, a);
    }
    switch (a) {
    case ACT_EDIT: {
        const struct session_row *r = selected(ss);
        if (r) detail_open(&ss->detail, app_store(s->app, NULL), r->uuid);
        return H_HANDLED;
    }
    case ACT_PUT_BACK: ask_put_back(ss); return H_HANDLED;
    case ACT_SORT_PREV: case ACT_SORT_NEXT: case ACT_SORT_REVERSE: return sort_cols_key(&ss->sort, s->app, a);
    case ACT_REFRESH: load(ss); return H_IGNORED;
    default: return tv_move(&ss->tv, a);
    }
}

static bool sessions_hint_on(struct screen *s, enum action a)
{
    struct sessions *ss = (struct sessions *)s;
    if (ss->detail.open) return detail_hint_on(&ss->detail, a);
    if (ss->outcome_open) return a == ACT_BACK;
    const struct session_row *r = selected(ss);
    if (a == ACT_PUT_BACK) return r && r->state != SESSION_RESTORED && !on_trial(r);
    return a != ACT_BACK;
}

static void sessions_done(struct screen *s)
{
    struct sessions *ss = (struct sessions *)s;
    detail_close(&ss->detail);
    tv_free(&ss->tv);
    tv_free(&ss->outcome);
    free(ss->rows);
    free(ss);
}

static struct textview *sessions_view(struct screen *s)
{
    struct sessions *ss = (struct sessions *)s;
    return ss->detail.open ? detail_view(&ss->detail) : ss->outcome_open ? &ss->outcome : &ss->tv;
}

static const enum action sessions_hints[] = { ACT_EDIT, ACT_PUT_BACK, ACT_SORT_NEXT, ACT_BACK, ACT_NONE };
static const enum action sessions_keys[] = { ACT_SORT_PREV, ACT_SORT_REVERSE, ACT_NONE };

const struct screen_class sessions_screen = {
    .title = "Sessions", .open = ACT_SESSIONS, .hints = sessions_hints, .keys = sessions_keys,
    .create = sessions_create, .draw = sessions_draw, .handle_key = sessions_key,
    .done = sessions_done, .show = sessions_show, .hint_on = sessions_hint_on, .view = sessions_view,
};
