/* screen_probe — choose a workload and its options, run it on a worker
 * thread (the UI polls the probe's atomic progress), cancel it, and see
 * every repetition as it is stored. */
#include "ui/app.h"
#include "ui/form.h"
#include "ui/form_cost.h"
#include "probe/cost.h"
#include "probe/probe_store.h"
#include "ui/probe_screen.h"
#include "core/sysfs.h"
#include "core/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern const struct screen_class probe_screen;

#define SAMPLE_MS 100

static const char *const canary_choices[] = { "", "on", "off", NULL };

static const char *workload_at(int i) { return i < probe_workload_count() ? probe_workload_name(i) : NULL; }
/* The Loadfile row is there only for the workload that replays one. */
static bool takes_loadfile(const struct form *fm) { return probe_workload_takes_loadfile(fm->value[PF_WORKLOAD]); }

/* The form, one row per option: the CLI's --options by another face, each
 * field made from its row of the probe's option table (label, help,
 * default, bounds and messages); the workload is the command's argument. */
static const char *const field_option[PF_COUNT] = {
    [PF_LOADFILE] = "loadfile", [PF_DIR] = "dir", [PF_THREADS] = "threads", [PF_BS] = "bs", [PF_SIZE] = "size",
    [PF_TIME] = "time", [PF_RAMP] = "ramp", [PF_IDLE] = "idle-before", [PF_REPEAT] = "repeat", [PF_DIRECT] = "direct",
    [PF_IODEPTH] = "iodepth", [PF_SYNC_EVERY] = "sync-every", [PF_SEED] = "seed", [PF_CANARY] = "canary",
};
static struct form_field fields[PF_COUNT];

const struct form_field *probe_form_fields(void)
{
    if (fields[PF_WORKLOAD].label) return fields;
    for (int f = PF_WORKLOAD + 1; f < PF_COUNT; f++) form_field_of(&fields[f], &probe_spec_table, field_option[f]);
    fields[PF_LOADFILE].shown = takes_loadfile;
    fields[PF_CANARY].kind = FORM_CHOICE;   /* --canary and --no-canary: one field */
    fields[PF_CANARY].choices = canary_choices;
    fields[PF_WORKLOAD] = (struct form_field){ "Workload", "WORKLOAD", "Left/Right or Enter choose the workload.", FORM_CHOICE,
                                               .choice_at = workload_at };
    return fields;
}

/* --- the form --------------------------------------------------------- */

/* The form as a probe_spec, then the probe's own validation (the same
 * function `sluice probe --fio-job` runs): nothing is created. */
static int build_spec(struct probe_scr *ps, struct probe_spec *s, sl_err *e)
{
    const struct form *fm = &ps->form;
    memset(s, 0, sizeof *s);
    s->canary = -1;
    snprintf(s->workload, sizeof s->workload, "%s", fm->value[PF_WORKLOAD]);
    /* every other field as its option: a hidden Loadfile (another workload)
     * is kept in the form but not passed */
    for (int f = PF_LOADFILE; f < PF_COUNT; f++) {
        if (!form_shown(fm, f)) continue;
        const char *t = fm->value[f], *option = fields[f].option;
        if (!t[0]) continue;
        if (f == PF_CANARY && strcmp(t, "off") == 0) option = "--no-canary";
        if (opt_set(&probe_spec_table, s, option, t, e) < 0) return -1;
    }
    return probe_spec_resolve(s, e);
}

/* What an empty field stands for: the resolved spec's value. */
struct form_defaults {
    const struct probe_spec *resolved;
    bool ok;
    const char *workload;              /* as chosen, resolved or not */
};

static void empty_value(void *arg, int f, char *shown, size_t n)
{
    const struct form_defaults *d = arg;
    const struct probe_spec *r = d->resolved;
    if (!d->ok) { snprintf(shown, n, "default"); return; }
    switch (f) {
    case PF_LOADFILE: snprintf(shown, n, "(built-in)"); break;
    case PF_DIR: snprintf(shown, n, "%s", r->ndirs ? r->dir[0] : "(no files)"); break;
    case PF_THREADS: snprintf(shown, n, "%d", r->threads); break;
    case PF_BS: units_format_bytes(r->bs, shown, n); break;
    case PF_SIZE:
        if (r->size_bytes) units_format_bytes(r->size_bytes, shown, n);
        else snprintf(shown, n, "from the dirty threshold");
        break;
    case PF_TIME: snprintf(shown, n, "%g s", (double)r->time_ms / 1000); break;
    case PF_RAMP: snprintf(shown, n, "%g s", (double)r->ramp_ms / 1000); break;
    case PF_IDLE:
        if (r->idle_ms) snprintf(shown, n, "%g s", (double)r->idle_ms / 1000);
        else snprintf(shown, n, "0 (back to back)");
        break;
    case PF_REPEAT: snprintf(shown, n, "%d", r->repeat); break;
    case PF_DIRECT: snprintf(shown, n, "no"); break;
    case PF_IODEPTH: snprintf(shown, n, "%d", r->iodepth ? r->iodepth : 1); break;
    case PF_SYNC_EVERY: snprintf(shown, n, "%d", r->sync_every); break;
    case PF_SEED: snprintf(shown, n, "random"); break;
    case PF_CANARY: snprintf(shown, n, "%s", r->canary ? "on" : "off"); break;
    default: break;
    }
}

/* The workload's row says what the workload does. */
static const char *aside(void *arg, int f)
{
    const struct form_defaults *d = arg;
    if (f != PF_WORKLOAD) return NULL;
    const char *sum = probe_workload_summary(d->workload);
    return sum ? sum : "";
}

static void draw_form(struct probe_scr *ps, struct rect r)
{
    struct probe_spec resolved;
    sl_err e;
    struct form_defaults d = { &resolved, build_spec(ps, &resolved, &e) == 0, ps->form.value[PF_WORKLOAD] };
    struct form_look look = { "Probe settings", "(empty: the workload's default, shown dim)", 16, 47, empty_value, aside, &d, NULL, ROLE_NORMAL };
    char cost[512];
    if (d.ok) {
        look.cost = cost;
        look.cost_role = form_cost_probe(&resolved, cost, sizeof cost) ? ROLE_ERROR : ROLE_NORMAL;
    }
    form_draw(&ps->form, &look, d.ok ? NULL : e.msg, r);
}

/* --- the worker -------------------------------------------------------- */

/* Runs on the worker thread: no curses, no UI state but res (under lock). */
static int probe_worker(struct job *j, void *arg, sl_err *e)
{
    struct probe_scr *ps = arg;
    store *st = NULL;
    /* Its own connection: SQLite's WAL lets the UI read while it writes. */
    if (store_open(ps->db_path, &st, e) < 0) return -1;
    struct probe *p = NULL;
    int rc = probe_open_recorded(&ps->spec, st, &p, e);
    for (int i = 0; rc == 0 && i < probe_spec_resolved(p)->repeat && !job_cancelled(j); i++) {
        struct probe_result *r = probe_result_new();
        rc = probe_rep(p, i, r, &ps->pg, e);
        sl_err se;
        if (probe_store(st, r, &se) < 0 && rc == 0) { *e = se; rc = -1; }
        pthread_mutex_lock(&ps->lock);
        if (ps->nres < PROBE_MAX_REPEAT) ps->res[ps->nres++] = r;
        else probe_result_free(r);
        pthread_mutex_unlock(&ps->lock);
        job_set_progress(j, i + 1, probe_spec_resolved(p)->repeat);
    }
    if (p && rc == 0 && job_cancelled(j)) rc = sl_fail(e, SL_EFAIL, "cancelled between repetitions");
    probe_close(p);
    store_close(st);
    return rc;
}

static void clear_results(struct probe_scr *ps)
{
    pthread_mutex_lock(&ps->lock);
    for (int i = 0; i < ps->nres; i++) probe_result_free(ps->res[i]);
    ps->nres = 0;
    pthread_mutex_unlock(&ps->lock);
    ps->nseries = 0;
    ps->outcome[0] = 0;
    ps->cancelled = false;
}

/* Under a test root, files a probe writes still go to a real directory and
 * fill this host's page cache: that is the vmstat to watch. */
static bool meter_reads_host(const struct probe_spec *sp)
{
    struct stat st;
    return !sysfs_is_real_root() && strcmp(sp->workload, "null") != 0 && sp->ndirs > 0 && stat(sp->dir[0], &st) == 0 &&
           S_ISDIR(st.st_mode);
}

static void start(struct probe_scr *ps)
{
    struct app *app = ps->base.app;
    sl_err e;
    if (job_running(&ps->job)) { app_message(app, ROLE_WARN, "a probe is running: x cancels it"); return; }
    char cost[512];
    if (build_spec(ps, &ps->spec, &e) < 0) {
        snprintf(ps->form.error, sizeof ps->form.error, "%s", e.msg);
        ps->mode = PM_FORM;
        return;
    }
    if (form_cost_probe(&ps->spec, cost, sizeof cost)) {   /* more than the free space */
        snprintf(ps->form.error, sizeof ps->form.error, "%s; nothing was started", cost);
        ps->mode = PM_FORM;
        return;
    }
    if (!app_store(app, &e)) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    snprintf(ps->db_path, sizeof ps->db_path, "%s", app_db_path(app));
    clear_results(ps);
    ps->meter_host = meter_reads_host(&ps->spec);
    memset(&ps->pg, 0, sizeof ps->pg);
    /* The last run's histogram and canary counts go: until this probe
     * publishes its own, there is nothing of it to show. */
    probe_live_destroy(&ps->live);
    probe_live_init(&ps->live);
    hist_init(&ps->live_lat);
    ps->pg.live = &ps->live;
    ps->live_seq = 0;
    ps->live_rep = 0;
    atomic_store(&ps->pg.state, PROBE_LAYOUT);
    atomic_store(&ps->pg.reps, ps->spec.repeat);
    ps->job.started_ms = app_now_ms(app);
    ps->job.ended_ms = 0;
    if (job_start(&ps->job, probe_worker, ps, &e) < 0) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    job_set_total(&ps->job, ps->spec.repeat);
    ps->ran = true;
    ps->mode = PM_RUN;
    ps->last_sample_ms = app_now_ms(app) - SAMPLE_MS;
    app_message(app, ROLE_OK, "probe %s started: x cancels it", ps->spec.workload);
}

static void cancel(struct probe_scr *ps)
{
    if (!job_running(&ps->job)) return;
    atomic_store(&ps->pg.stop, 1);
    job_cancel(&ps->job);
    ps->cancelled = true;
}

static void show_fio_job(struct probe_scr *ps)
{
    struct probe_spec s;
    sl_err e;
    if (build_spec(ps, &s, &e) < 0) { app_message(ps->base.app, ROLE_ERROR, "%s", e.msg); return; }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) { app_message(ps->base.app, ROLE_ERROR, "out of memory"); return; }
    probe_fio_job(&s, f);
    fclose(f);
    tv_clear(&ps->tv);
    ps->tv.top = 0;
    for (char *save, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        tv_line(&ps->tv, false, -1);
        tv_add(&ps->tv, ROLE_NORMAL, "%s", line);
    }
    free(text);
    snprintf(ps->text_title, sizeof ps->text_title, "fio job equivalent to this %s probe (fio FILE runs it)", s.workload);
    ps->mode = PM_TEXT;
}

/* --- screen ops -------------------------------------------------------- */

static struct screen *probe_create(struct app *app)
{
    struct probe_scr *ps = screen_new(sizeof *ps, &probe_screen, app);
    pthread_mutex_init(&ps->lock, NULL);
    probe_live_init(&ps->live);
    form_init(&ps->form, probe_form_fields(), PF_COUNT);
    /* null writes nothing: a test root's placeholder, not a probe of a real disk */
    snprintf(ps->form.value[PF_WORKLOAD], PATH_MAX, "%s", sysfs_is_real_root() ? "seqwrite" : probe_workload_name(0));
    app_form_recall(app, &ps->form, "probe");   /* what was typed last time */
    if (ps->form.value[PF_DIR][0] && !app_probe_dir(app)[0]) app_set_probe_dir(app, ps->form.value[PF_DIR]);
    return &ps->base;
}

/* A directory given on the Search form is where this probe goes too. */
static void probe_show(struct screen *s)
{
    struct probe_scr *ps = (struct probe_scr *)s;
    if (!ps->form.value[PF_DIR][0] && !ps->form.editing)
        snprintf(ps->form.value[PF_DIR], PATH_MAX, "%s", app_probe_dir(s->app));
}

/* Under the results: repetition n of N, elapsed, time left. */
static void draw_progress(struct probe_scr *ps, struct rect r)
{
    struct probe_cost c;
    probe_cost_estimate(&ps->spec, &c);
    char line[256];
    /* fixed work ends when durable: its time limit says nothing of what is left */
    double rep_s = c.time_is_limit ? 0 : c.time_s / (ps->spec.repeat > 0 ? ps->spec.repeat : 1);
    job_progress_text(&ps->job, "repetition", app_now_ms(ps->base.app), rep_s, line, sizeof line);
    draw_text(r.y, r.x, r.w, job_running(&ps->job) ? ROLE_WARN : ROLE_DIM, line);
}

static void probe_draw(struct screen *s, struct rect r)
{
    struct probe_scr *ps = (struct probe_scr *)s;
    if (ps->mode == PM_FORM) draw_form(ps, r);
    else if (ps->mode == PM_TEXT) {
        draw_text(r.y, r.x, r.w, ROLE_HEADER, ps->text_title);
        tv_draw(&ps->tv, (struct rect){ r.y + 1, r.x, r.h - 1, r.w });
    } else {
        probe_view_draw(ps, (struct rect){ r.y, r.x, r.h - 1, r.w });
        draw_progress(ps, (struct rect){ r.y + r.h - 1, r.x, 1, r.w });
    }
}

static enum handled settings_key(struct probe_scr *ps, enum action a, int key)
{
    if (form_key(&ps->form, a, key) == H_HANDLED) {
        app_form_edited(ps->base.app, &ps->form, PF_DIR, "probe");
        return H_HANDLED;
    }
    if (a != ACT_BACK || !ps->ran) return H_IGNORED;
    ps->mode = PM_RUN;
    return H_HANDLED;
}

static enum handled probe_key(struct screen *s, enum action a, int key)
{
    struct probe_scr *ps = (struct probe_scr *)s;
    if (ps->mode == PM_FORM && ps->form.editing) return settings_key(ps, a, key);
    switch (a) {
    case ACT_START: start(ps); return H_HANDLED;
    case ACT_CANCEL:
        if (!job_running(&ps->job)) app_message(s->app, ROLE_NORMAL, "no probe is running");
        else { cancel(ps); app_message(s->app, ROLE_WARN, "cancelling: the repetition is stored as aborted"); }
        return H_HANDLED;
    case ACT_FIO_JOB: show_fio_job(ps); return H_HANDLED;
    default: break;
    }
    if (ps->mode == PM_FORM) return settings_key(ps, a, key);
    if (ps->mode == PM_TEXT && a == ACT_BACK) { ps->mode = ps->ran ? PM_RUN : PM_FORM; return H_HANDLED; }
    if (a == ACT_BACK || a == ACT_EDIT) { ps->mode = PM_FORM; return H_HANDLED; }
    return tv_move(&ps->tv, a);
}

static void probe_tick(struct screen *s, long long now)
{
    struct probe_scr *ps = (struct probe_scr *)s;
    if (job_running(&ps->job) && now - ps->last_sample_ms >= SAMPLE_MS) {
        probe_view_sample(ps);
        ps->last_sample_ms = now;
    }
    if (job_reap(&ps->job)) {
        ps->job.ended_ms = now;
        probe_view_take_live(ps);
        int n;
        pthread_mutex_lock(&ps->lock);
        n = ps->nres;
        pthread_mutex_unlock(&ps->lock);
        if (ps->job.rc == 0)
            snprintf(ps->outcome, sizeof ps->outcome, "done: %d run(s) stored (F6 Results lists them)", n);
        else
            snprintf(ps->outcome, sizeof ps->outcome, "%s%s", ps->cancelled ? "cancelled: " : "failed: ", ps->job.err.msg);
        app_message(s->app, ps->job.rc == 0 ? ROLE_OK : ps->cancelled ? ROLE_WARN : ROLE_ERROR, "probe %s", ps->outcome);
    }
}

static bool probe_busy(struct screen *s)
{
    struct probe_scr *ps = (struct probe_scr *)s;
    return job_running(&ps->job) || ps->job.joinable;
}

static void probe_cancel(struct screen *s) { cancel((struct probe_scr *)s); }

static bool probe_hint_on(struct screen *s, enum action a)
{
    struct probe_scr *ps = (struct probe_scr *)s;
    bool running = job_running(&ps->job);
    switch (a) {
    case ACT_START: return !running;
    case ACT_CANCEL: return running;
    case ACT_EDIT: return ps->mode == PM_FORM && !ps->form.editing;
    case ACT_UNDO: return ps->mode == PM_FORM && form_can_clear(&ps->form);
    case ACT_BACK: return ps->mode != PM_FORM || ps->form.editing || ps->ran;
    default: return true;
    }
}

static void probe_done(struct screen *s)
{
    struct probe_scr *ps = (struct probe_scr *)s;
    job_stop(&ps->job);
    clear_results(ps);
    pthread_mutex_destroy(&ps->lock);
    probe_live_destroy(&ps->live);
    tv_free(&ps->tv);
    free(ps);
}

static struct textview *probe_text(struct screen *s)
{
    struct probe_scr *ps = (struct probe_scr *)s;
    return ps->mode == PM_FORM ? NULL : &ps->tv;
}

static const enum action probe_hints[] = { ACT_START, ACT_CANCEL, ACT_EDIT, ACT_UNDO, ACT_FIO_JOB, ACT_BACK, ACT_NONE };

const struct screen_class probe_screen = {
    .title = "Probe", .open = ACT_PROBE, .hints = probe_hints,
    .create = probe_create, .show = probe_show, .draw = probe_draw, .handle_key = probe_key, .done = probe_done,
    .tick = probe_tick, .busy = probe_busy, .cancel = probe_cancel, .hint_on = probe_hint_on, .view = probe_text,
};
