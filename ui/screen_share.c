/* screen_share — push and pull result databases (the same share_push and
 * share_pull as the CLI) on a worker thread; every event the transfer
 * reports (pushed, fetched, merged with per-table counts, refused) is
 * logged as it happens. x cancels a running transfer: the job's cancel flag
 * is the transfer's (curl's progress callback returns non-zero on it), and
 * a cancelled pull merges nothing. */
#include "ui/app.h"
#include "ui/prompt.h"
#include "ui/job.h"
#include "share/sync.h"
#include "ui/textview.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct screen_class share_screen;

#define LOG_MAX 500

enum sfield { SF_URL, SF_CLASSES, SF_MINE, SF_KEEP_GOING, SF_COUNT };

struct share_scr {
    struct screen base;
    char url[2048];
    bool all_classes, mine, keep_going;
    int sel;
    bool editing;
    char input[2048];
    bool pushing;
    char db_path[PATH_MAX];
    struct job job;
    pthread_mutex_t lock;                /* guards log */
    char (*log)[600];
    int nlog;
    long long added;                     /* pull: rows added */
    struct textview tv;
};

/* "CLASS/HOST-UUID.sluicedb" as "CLASS/8-hex-id": the full UUID adds nothing
 * a reader needs and would not fit. */
static void short_name(const char *name, char *buf, size_t n)
{
    const char *slash = strrchr(name, '/');
    if (!slash || strlen(slash + 1) < 36) { snprintf(buf, n, "%s", name); return; }
    snprintf(buf, n, "%.*s/%.8s", (int)(slash - name), name, slash + 1);
}

/* One line at the end of the log (either thread). */
static void log_line(struct share_scr *ss, const char *line)
{
    pthread_mutex_lock(&ss->lock);
    if (ss->nlog == LOG_MAX) {
        memmove(ss->log, ss->log + 1, sizeof ss->log[0] * (LOG_MAX - 1));
        ss->nlog--;
    }
    snprintf(ss->log[ss->nlog++], sizeof ss->log[0], "%s", line);
    pthread_mutex_unlock(&ss->lock);
}

/* On the worker thread: one line per event. */
static void on_event(const struct share_event *ev, void *arg)
{
    struct share_scr *ss = arg;
    char line[600], name[300];
    short_name(ev->name ? ev->name : "", name, sizeof name);
    switch (ev->kind) {
    case SHARE_PUSHED: snprintf(line, sizeof line, "pushed  %s", name); break;
    case SHARE_FETCHED: snprintf(line, sizeof line, "fetched %s", name); break;
    case SHARE_MERGED: {
        const struct share_report *rep = ev->report;
        long long known = 0, skipped = 0;
        int len = snprintf(line, sizeof line, "merged  %s:", name);
        if (!share_report_added(rep)) len += snprintf(line + len, sizeof line - (size_t)len, " nothing new");
        for (int i = 0; i < rep->ntables && len < (int)sizeof line; i++) {
            known += rep->t[i].known;
            skipped += rep->t[i].skipped;
            if (rep->t[i].added) len += snprintf(line + len, sizeof line - (size_t)len, " +%lld %s", rep->t[i].added, rep->t[i].table);
        }
        if (len < (int)sizeof line)
            snprintf(line + len, sizeof line - (size_t)len, " (%lld already here%s)", known, skipped ? ", some skipped" : "");
        break;
    }
    case SHARE_REFUSED: snprintf(line, sizeof line, "REFUSED %s: %s", name, ev->msg); break;
    case SHARE_NOTE: snprintf(line, sizeof line, "note    %s: %s", name, ev->msg); break;
    }
    log_line(ss, line);
    job_set_progress(&ss->job, atomic_load(&ss->job.done) + 1, 0);
}

static int share_worker(struct job *j, void *arg, sl_err *e)
{
    struct share_scr *ss = arg;
    struct share_opts o;
    share_opts_defaults(&o);
    o.cancel = &j->cancel;
    store *st = NULL;
    struct share_remote *r = NULL;
    /* Its own connection: the UI keeps reading while the merge writes. */
    if (store_open(ss->db_path, &st, e) < 0) return -1;
    int rc = share_open(ss->url, &o, &r, e);
    if (rc == 0 && ss->pushing) {
        struct share_push_opts po = { .mine = ss->mine };
        rc = share_push(st, r, &po, on_event, ss, e) < 0 ? -1 : 0;
    } else if (rc == 0) {
        struct share_pull_opts po = { .all_classes = ss->all_classes, .keep_going = ss->keep_going };
        long long added = share_pull(st, r, &po, on_event, ss, e);
        ss->added = added;
        rc = added < 0 ? -1 : 0;
    }
    if (r) share_close(r);
    store_close(st);
    return rc;
}

static void start(struct share_scr *ss, bool push)
{
    struct app *app = ss->base.app;
    sl_err e;
    if (job_running(&ss->job)) { app_message(app, ROLE_WARN, "a transfer is running: wait for it, or x cancels it"); return; }
    if (!ss->url[0]) { app_message(app, ROLE_WARN, "give a URL first (Enter on URL): file://DIR, https://, s3://, sftp://"); return; }
    if (!app_store(app, &e)) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    snprintf(ss->db_path, sizeof ss->db_path, "%s", app_db_path(app));
    ss->pushing = push;
    ss->added = 0;
    pthread_mutex_lock(&ss->lock);
    ss->nlog = 0;
    pthread_mutex_unlock(&ss->lock);
    if (job_start(&ss->job, share_worker, ss, &e) < 0) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    app_message(app, ROLE_OK, "%s %s ...", push ? "pushing to" : "pulling from", ss->url);
}

static struct screen *share_create(struct app *app)
{
    struct share_scr *ss = screen_new(sizeof *ss, &share_screen, app);
    ss->log = xcalloc(LOG_MAX, sizeof *ss->log);
    pthread_mutex_init(&ss->lock, NULL);
    /* A fleet's remote can come from the environment, like credentials do. */
    const char *url = getenv("SLUICE_SHARE_URL");
    if (url) snprintf(ss->url, sizeof ss->url, "%s", url);
    return &ss->base;
}

static void field(int y, struct rect r, bool sel, const char *label, const char *value, const char *help, bool editing,
                  const char *input)
{
    if (sel) draw_fill(y, r.x, r.w, ROLE_SELECTED);
    enum role base = sel ? ROLE_SELECTED : ROLE_NORMAL;
    draw_fmt(y, r.x, 16, base, "  %s", label);
    if (editing) {
        int x = draw_text(y, r.x + 16, r.w - 17, ROLE_PENDING, input);
        draw_text(y, r.x + 16 + x, 1, ROLE_SELECTED, " ");
        return;
    }
    int x = draw_text(y, r.x + 16, r.w - 16, base, value);
    if (x + 18 < r.w - 16) draw_text(y, r.x + 16 + x + 2, r.w - 18 - x, sel ? ROLE_SELECTED : ROLE_DIM, help);
}

static void share_draw(struct screen *s, struct rect r)
{
    struct share_scr *ss = (struct share_scr *)s;
    draw_text(r.y, r.x, r.w, ROLE_HEADER, "Share results with other machines");
    char redacted[2048];
    share_redact(ss->url, redacted, sizeof redacted);
    field(r.y + 2, r, ss->sel == SF_URL, "URL", ss->url[0] ? redacted : "(Enter to type one)",
          "file://DIR  https://  s3://BUCKET  sftp://", ss->editing, ss->input);
    field(r.y + 3, r, ss->sel == SF_CLASSES, "Pull classes", ss->all_classes ? "all" : "this host's disks",
          "Left/Right", false, "");
    field(r.y + 4, r, ss->sel == SF_MINE, "Push rows", ss->mine ? "this host's only" : "everything here", "Left/Right",
          false, "");
    field(r.y + 5, r, ss->sel == SF_KEEP_GOING, "Keep going", ss->keep_going ? "yes" : "no",
          "pull: merge the good files when some are refused", false, "");
    int y = r.y + 7;
    draw_hline(y, r.x, r.w, ROLE_DIM);
    const char *state = job_running(&ss->job) ? (ss->pushing ? " pushing " : " pulling ") : " log ";
    draw_text(y, r.x + 2, r.w - 4, job_running(&ss->job) ? ROLE_WARN : ROLE_HEADER, state);
    tv_clear(&ss->tv);
    pthread_mutex_lock(&ss->lock);
    for (int i = 0; i < ss->nlog; i++) {
        char lines[4][256];
        int n = draw_wrap(ss->log[i], r.w - 8, lines, 4);
        for (int k = 0; k < n; k++) {
            tv_line(&ss->tv, false, -1);
            tv_add(&ss->tv, strncmp(ss->log[i], "REFUSED", 7) == 0 ? ROLE_ERROR : ROLE_NORMAL, "%s%s", k ? "        " : "",
                   lines[k]);
        }
    }
    pthread_mutex_unlock(&ss->lock);
    if (!job_running(&ss->job) && ss->job.joinable == false && atomic_load(&ss->job.state) == JOB_IDLE && ss->nlog == 0) {
        tv_line(&ss->tv, false, -1);
        tv_add(&ss->tv, ROLE_DIM, "P pushes a snapshot of this database; L pulls and merges what matches this host.");
    }
    ss->tv.top = ss->tv.n;   /* the newest lines stay in view */
    tv_draw(&ss->tv, (struct rect){ y + 1, r.x, r.y + r.h - y - 1, r.w });
}

static void cycle(struct share_scr *ss)
{
    if (ss->sel == SF_CLASSES) ss->all_classes = !ss->all_classes;
    else if (ss->sel == SF_MINE) ss->mine = !ss->mine;
    else if (ss->sel == SF_KEEP_GOING) ss->keep_going = !ss->keep_going;
}

static enum handled share_key(struct screen *s, enum action a, int key)
{
    struct share_scr *ss = (struct share_scr *)s;
    if (ss->editing) {
        if (a == ACT_BACK) ss->editing = false;
        else if (key == '\n') { snprintf(ss->url, sizeof ss->url, "%s", ss->input); ss->editing = false; }
        else prompt_line_edit(ss->input, sizeof ss->input, key);
        return H_HANDLED;
    }
    if (prompt_typed_text(a, key)) {   /* typed over the form: into the URL, never to another screen */
        if (ss->sel != SF_URL) {
            app_message(s->app, ROLE_WARN, "'%c' not taken: a choice (Left/Right); the F-keys switch screens", key);
            return H_HANDLED;
        }
        ss->editing = true;
        snprintf(ss->input, sizeof ss->input, "%c", key);
        return H_HANDLED;
    }
    switch (a) {
    case ACT_UP: if (ss->sel > 0) ss->sel--; return H_HANDLED;
    case ACT_DOWN: if (ss->sel < SF_COUNT - 1) ss->sel++; return H_HANDLED;
    case ACT_LEFT: case ACT_RIGHT: cycle(ss); return H_HANDLED;
    case ACT_EDIT:
        if (ss->sel == SF_URL) { ss->editing = true; snprintf(ss->input, sizeof ss->input, "%s", ss->url); }
        else cycle(ss);
        return H_HANDLED;
    case ACT_PUSH: start(ss, true); return H_HANDLED;
    case ACT_CANCEL:
        if (!job_running(&ss->job)) app_message(s->app, ROLE_NORMAL, "no transfer is running");
        else {
            job_cancel(&ss->job);
            app_message(s->app, ROLE_WARN, "cancelling the %s: nothing more is transferred or merged", ss->pushing ? "push" : "pull");
        }
        return H_HANDLED;
    case ACT_PULL: start(ss, false); return H_HANDLED;
    default: return H_IGNORED;
    }
}

static void share_tick(struct screen *s, long long now)
{
    struct share_scr *ss = (struct share_scr *)s;
    if (!job_reap(&ss->job)) return;
    if (ss->job.rc < 0 && job_cancelled(&ss->job)) {
        /* Where it stopped (listing, between objects, mid-transfer) depends
         * on timing; what it means does not. */
        log_line(ss, ss->pushing ? "CANCELLED push: objects already uploaded stay, no more are sent"
                                 : "CANCELLED pull: nothing was merged; this database is as it was");
        app_message(s->app, ROLE_WARN, "%s cancelled", ss->pushing ? "push" : "pull");
    } else if (ss->job.rc < 0) app_message(s->app, ROLE_ERROR, "%s failed: %s", ss->pushing ? "push" : "pull", ss->job.err.msg);
    else if (ss->pushing) app_message(s->app, ROLE_OK, "push done: %lld object(s) uploaded", (long long)atomic_load(&ss->job.done));
    else app_message(s->app, ROLE_OK, "pull done: %lld row(s) added (F6 Results lists new runs)", ss->added);
}

static bool share_busy(struct screen *s)
{
    struct share_scr *ss = (struct share_scr *)s;
    return job_running(&ss->job) || ss->job.joinable;
}

static void share_cancel(struct screen *s) { job_cancel(&((struct share_scr *)s)->job); }

static bool share_hint_on(struct screen *s, enum action a)
{
    struct share_scr *ss = (struct share_scr *)s;
    if (ss->editing) return false;
    if (a == ACT_PUSH || a == ACT_PULL) return !job_running(&ss->job);
    if (a == ACT_CANCEL) return job_running(&ss->job);
    return true;
}

static void share_done(struct screen *s)
{
    struct share_scr *ss = (struct share_scr *)s;
    job_stop(&ss->job);
    pthread_mutex_destroy(&ss->lock);
    tv_free(&ss->tv);
    free(ss->log);
    free(ss);
}

static const enum action share_hints[] = { ACT_EDIT, ACT_PUSH, ACT_PULL, ACT_CANCEL, ACT_NONE };

const struct screen_class share_screen = {
    .title = "Share", .open = ACT_SHARE, .hints = share_hints,
    .create = share_create, .draw = share_draw, .handle_key = share_key, .done = share_done,
    .tick = share_tick, .busy = share_busy, .cancel = share_cancel, .hint_on = share_hint_on,
};
