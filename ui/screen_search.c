/* screen_search — set up a search, run it on a worker thread through the
 * same flow as `sluice search` (search_flow_run with an observer: its own
 * session, trials stored as they happen, resumable), cancel it (knobs put
 * back), resume an interrupted one (r: what `search --resume ID` does), and
 * apply the winner on trial or discard it. */
#include "ui/app.h"
#include "ui/form.h"
#include "ui/form_cost.h"
#include "search/burst.h"
#include "search/cost.h"
#include "search/report.h"
#include "ui/search_screen.h"
#include "core/sysfs.h"
#include "core/units.h"
#include "ui/trial.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct screen_class search_screen;

static const char *space_at(int i) { return i < space_shipped_count() ? space_shipped_name(i) : NULL; }

/* One field per option of `sluice search`, each made from its row (label,
 * help, default, bounds and messages): the command line by another face. */
static const char *const field_option[SS_COUNT] = {
    [SS_SPACE] = "space", [SS_DEVICE] = "device", [SS_WORKLOAD] = "workload", [SS_OBJECTIVE] = "objective",
    [SS_STRATEGY] = "strategy", [SS_BUDGET] = "budget", [SS_ORACLE] = "oracle", [SS_DIR] = "dir", [SS_TIME] = "time",
    [SS_RAMP] = "ramp", [SS_SIZE] = "size", [SS_SEED] = "seed", [SS_CONFIRM] = "confirm-runs",
};
static struct form_field fields[SS_COUNT];

/* A burst (fixed work, timed from its first byte) takes no ramp unless a
 * Time makes it time-based (probe.c refuses --ramp then): the row is left
 * out for it, as the Probe form leaves out Loadfile, but shown while it
 * holds a value, which the form then refuses. */
static bool takes_ramp(const struct form *fm)
{
    const char *w = fm->value[SS_WORKLOAD][0] ? fm->value[SS_WORKLOAD] : form_field_default(&fields[SS_WORKLOAD]);
    return fm->value[SS_RAMP][0] || fm->value[SS_TIME][0] || !probe_workload_fixed_work(w);
}

const struct form_field *search_form_fields(void)
{
    if (fields[SS_SPACE].label) return fields;
    for (int f = SS_COUNT - 1; f >= 0; f--) form_field_of(&fields[f], &search_flow_table, field_option[f]);
    /* the shipped spaces to step through; a space file is the command line's */
    fields[SS_SPACE].kind = FORM_CHOICE;
    fields[SS_SPACE].choice_at = space_at;
    fields[SS_RAMP].shown = takes_ramp;
    return fields;
}

/* --- the form ----------------------------------------------------------- */

static bool held(const struct search_scr *ss, int field);

/* The form as the options `sluice search` would parse: each field given
 * as its option (an empty one is the default), checked by the same code.
 * The Overview's tune is the quick tune, on the quick tune's defaults: a
 * Budget the user did not type grows where a verdict needs it, as
 * `sluice tune --quick`'s does. */
static int build_opts(struct search_scr *ss, struct search_flow_opts *o, sl_err *e)
{
    if (ss->quick) search_flow_quick_defaults(o);
    else search_flow_defaults(o);
    for (int f = 0; f < SS_COUNT; f++) {
        const char *v = ss->form.value[f];
        if (!v[0]) continue;
        if (ss->quick && f == SS_BUDGET ? search_flow_quick_budget(o, v, !held(ss, SS_BUDGET), e) < 0
                                        : search_flow_set(o, fields[f].option, v, e) < 0)
            return -1;
    }
    if (ss->quick) search_flow_quick_probe_time(o);
    if (search_flow_check(o, e) < 0 || search_flow_check_space(o, e) < 0) return -1;
    struct probe_spec check = o->probe;
    return o->oracle[0] ? 0 : probe_spec_resolve(&check, e);
}

/* The form's workload does fixed work (written once, timed to durable): a
 * buffered writer given no Time, as probe.c's fix_work decides. */
static bool fixed_work(const struct search_flow_opts *o)
{
    return probe_workload_fixed_work(o->spec.workload) && !o->probe.time_based && !o->probe.direct;
}

/* What an empty field stands for. */
static void empty_value(void *arg, int f, char *shown, size_t n)
{
    const struct search_flow_opts *o = arg;
    switch (f) {
    case SS_DEVICE: snprintf(shown, n, "(from the directory)"); break;
    case SS_OBJECTIVE: snprintf(shown, n, "%s", o->spec.objective); break;
    case SS_BUDGET:   /* the quick tune's default has both bounds (search_flow_quick_defaults) */
        if (o->spec.budget_ms > 0 && o->spec.budget_evals > 0) {
            char t[32];
            units_format_duration_ms(o->spec.budget_ms, t, sizeof t);
            snprintf(shown, n, "%d evaluations or %s", o->spec.budget_evals, t);
        } else {
            snprintf(shown, n, "%d evaluations", o->spec.budget_evals);
        }
        break;
    case SS_ORACLE: snprintf(shown, n, "(measure with probes)"); break;
    case SS_TIME:   /* a burst is written once and timed to durable (probe.c, fix_work) */
        snprintf(shown, n, "%s", fixed_work(o) ? "none: a burst, timed whole" : "the workload's default");
        break;
    case SS_RAMP: snprintf(shown, n, "the workload's default"); break;
    case SS_SIZE: {   /* sized at start from a calibration run where the cost under the form sizes it so
                         (search/cost.h): a burst, and multidisk and tiobench, which write for a time */
        struct search_cost c;
        search_cost_estimate(o, &c);
        if (c.burst_sized)
            snprintf(shown, n, "about %.0f s a run, calibrated", BURST_TARGET_S);
        else snprintf(shown, n, "the workload's default");
        break;
    }
    /* 6, fewer in a budget of few evaluations, more in a long plan
     * (search_plan_scale_confirmation): the plan under the form counts them */
    case SS_CONFIRM: snprintf(shown, n, "as the plan below says"); break;
    default: snprintf(shown, n, "%s", form_field_default(&fields[f])); break;
    }
}

static void draw_form(struct search_scr *ss, struct rect r)
{
    struct search_flow_opts o;
    sl_err e;
    bool ok = build_opts(ss, &o, &e) == 0;
    struct form_look look = { "Search settings", "(empty: the default, shown dim)", 17, 48, empty_value, NULL, &o, NULL, ROLE_NORMAL };
    char cost[1024];
    if (ok) {
        look.cost = cost;
        look.cost_role = form_cost_search(&o, cost, sizeof cost) ? ROLE_ERROR : ROLE_NORMAL;
    }
    form_draw(&ss->form, &look, ok ? NULL : e.msg, r);
}

/* --- the worker and its observer (these run on the worker thread) --------- */

static void take_plan_line(void *arg, const char *text)
{
    struct search_scr *ss = arg;
    if (ss->nplan < SEARCH_UI_PLAN_LINES) snprintf(ss->plan[ss->nplan++], sizeof ss->plan[0], "%s", text);
}

static void on_started(void *arg, const char *uuid, const struct space *sp, bool resuming, int nstored)
{
    struct search_scr *ss = arg;
    pthread_mutex_lock(&ss->lock);
    snprintf(ss->uuid, sizeof ss->uuid, "%s", uuid);
    ss->space = *sp;
    ss->have_space = true;
    /* the plan is made before this (run.c): what the progress line counts
     * to, and what the screen says of it, as the CLI prints it; the burst
     * the calibration sized (this thread's opts: the worker's) */
    ss->run_s = ss->out.plan.run_s;
    ss->nplan = 0;
    if (ss->out.calibration.mb_s > 0 && ss->opts.probe.size_bytes) {
        char b[32];
        units_format_bytes(ss->opts.probe.size_bytes, b, sizeof b);
        /* true whether the calibration sized it or only timed a --size */
        snprintf(ss->plan[ss->nplan++], sizeof ss->plan[0], "a burst of %s written and synced by every evaluation "
                 "(the calibration measured %.0f MB/s)", b, ss->out.calibration.mb_s);
    }
    if (ss->out.plan.run_s > 0) report_plan_lines(&ss->out.plan, take_plan_line, ss);
    pthread_mutex_unlock(&ss->lock);
    int planned = ss->out.plan.evals > 0 ? ss->out.plan.evals : ss->opts.spec.budget_evals;
    job_set_progress(&ss->job, nstored, planned > 0 ? planned : 0);
}

static void on_progress(void *arg, const struct search_trial *t, const struct history *h)
{
    struct search_scr *ss = arg;
    pthread_mutex_lock(&ss->lock);
    if (ss->ntrials < SEARCH_UI_MAX_TRIALS) ss->trials[ss->ntrials++] = *t;
    pthread_mutex_unlock(&ss->lock);
    int total = atomic_load(&ss->job.total);
    if (ss->out.plan.evals > 0) {   /* what the budget buys at the runs' pace, and the time left, as the CLI counts */
        long long left_ms;
        long long first_ms = ss->trials[0].seq == 0 ? ss->trials[0].elapsed_ms : -1;   /* seen in this run */
        search_plan_progress(&ss->out.plan, t->budget_ms, t->seq + 1, t->elapsed_ms, first_ms, &total, &left_ms);
        job_set_ends_after(&ss->job, t->elapsed_ms + left_ms);
    }
    job_set_progress(&ss->job, h->nobs, total);
}

static int on_cancelled(void *arg) { return job_cancelled(&((struct search_scr *)arg)->job); }

static int search_worker(struct job *j, void *arg, sl_err *e)
{
    struct search_scr *ss = arg;
    store *st;   /* its own connection */
    if (store_open(ss->db_path, &st, e) < 0) {
        memset(&ss->out, 0, sizeof ss->out);
        ss->out.err = *e;
        return -1;
    }
    int rc = search_flow_run(st, &ss->opts, &ss->out);
    store_close(st);
    if (rc != 0 || !ss->out.ok) {
        *e = ss->out.err;
        return -1;
    }
    /* Ended by itself: what ran is the whole search. The total was the
     * budget's estimate at the runs' pace, or the plan's count before an
     * early stop, and the end line would keep it ("31 evaluations of 32").
     * Stopped by the user, it keeps its "of N": the runs it did not make. */
    if (!job_cancelled(j)) job_set_progress(j, atomic_load(&j->done), atomic_load(&j->done));
    return 0;
}

static void clear_run(struct search_scr *ss)
{
    if (ss->have_result) search_result_free(&ss->out.result);
    ss->have_result = false;
    free(ss->card);
    ss->card = NULL;
    pthread_mutex_lock(&ss->lock);
    ss->ntrials = 0;
    ss->nplan = 0;
    ss->have_space = false;
    ss->uuid[0] = 0;
    pthread_mutex_unlock(&ss->lock);
    ss->cancelled = false;
}

/* The fields the Overview's next step fills in. */
#define NSUGGEST 3
static const int suggest_field[NSUGGEST] = { SS_DIR, SS_BUDGET, SS_OBJECTIVE };

/* The field holds the Overview's value, not typed over. */
static bool held(const struct search_scr *ss, int field)
{
    for (int i = 0; i < NSUGGEST; i++)
        if (suggest_field[i] == field) return ss->suggest_held[i];
    return false;
}

/* The Budget's help names what an empty Budget stands for: in the
 * Overview's quick tune that is the quick tune's default (both bounds,
 * growing where a verdict needs it), not the search row's "40". */
static void budget_help(const struct search_scr *ss)
{
    static char quick_help[sizeof fields[0].help_text];
    struct form_field *fd = &fields[SS_BUDGET];
    fd->help = fd->help_text;
    if (!ss->quick) return;   /* every field has its row (form_field_of) */
    struct search_flow_opts o;
    search_flow_quick_defaults(&o);
    char shown[96], grows[32];
    empty_value(&o, SS_BUDGET, shown, sizeof shown);
    units_format_duration_ms(o.budget_grows_to_ms, grows, sizeof grows);
    snprintf(quick_help, sizeof quick_help, "%c%s (default in the quick tune: %s, growing to %s where a verdict "
             "needs it).", toupper((unsigned char)fd->row->help[0]), fd->row->help + 1, shown, grows);
    fd->help = quick_help;
}

/* The Overview's next step in the form: the quick tune on its directory,
 * with its budget and the quick objective (the reader beside the writer
 * guarded), Enter starts it. Not typed: what the database remembers stays
 * until a search runs with them (the next start of sluice shows it). */
static void take_suggestion(struct search_scr *ss, const char *dir, const char *budget)
{
    const char *value[NSUGGEST] = { dir, budget, SEARCH_QUICK_OBJECTIVE };
    for (int i = 0; i < NSUGGEST; i++) {
        snprintf(ss->form.value[suggest_field[i]], PATH_MAX, "%s", value[i]);
        ss->suggest_held[i] = true;
    }
    ss->mode = SM_FORM;
    ss->suggested = true;
    ss->quick = true;
    budget_help(ss);
    app_message(ss->base.app, ROLE_OK, "the quick tune on %s, as sluice tune --quick runs it: Enter starts it",
                dir);
}

/* A search ran with the suggestion: its values are the user's now, and
 * the form is search's again (a Budget typed later holds). */
static void remember_suggestion(struct search_scr *ss)
{
    for (int i = 0; i < NSUGGEST; i++)
        if (ss->suggest_held[i]) ss->form.typed[suggest_field[i]] = true;
    memset(ss->suggest_held, 0, sizeof ss->suggest_held);
    ss->suggested = false;
    ss->quick = false;
    budget_help(ss);
    app_form_remember(ss->base.app, &ss->form, "search");
}

/* Starts the worker on ss->opts; false (said on the message line) when it cannot. */
static bool launch(struct search_scr *ss, const char *msg)
{
    struct app *app = ss->base.app;
    sl_err e;
    ss->observer = (struct search_observer){ .arg = ss, .started = on_started, .progress = on_progress, .cancelled = on_cancelled };
    ss->opts.observer = &ss->observer;
    ss->job.started_ms = app_now_ms(app);
    ss->job.ended_ms = 0;
    ss->run_s = 0;
    if (job_start(&ss->job, search_worker, ss, &e) < 0) { app_message(app, ROLE_ERROR, "%s", e.msg); return false; }
    ss->ran = true;
    ss->mode = SM_RUN;
    app_message(app, ROLE_OK, "%s", msg);
    return true;
}

static void start(struct search_scr *ss)
{
    struct app *app = ss->base.app;
    sl_err e;
    if (job_running(&ss->job)) { app_message(app, ROLE_WARN, "a search is running: x cancels it"); return; }
    if (trial_active()) {
        app_message(app, ROLE_WARN, "session %.8s is on trial: keep it (K) or revert it (R) before searching", trial_uuid());
        return;
    }
    if (build_opts(ss, &ss->opts, &e) < 0) { snprintf(ss->form.error, sizeof ss->form.error, "%s", e.msg); return; }
    char cost[1024];
    if (form_cost_search(&ss->opts, cost, sizeof cost)) {   /* a budget that cannot reach a verdict */
        snprintf(ss->form.error, sizeof ss->form.error, "%s Nothing was started.", cost);
        return;
    }
    if (!app_store(app, &e)) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    clear_run(ss);
    objective_parse(ss->opts.spec.objective, &ss->obj, NULL);
    snprintf(ss->db_path, sizeof ss->db_path, "%s", app_db_path(app));
    ss->shown = ss->opts.spec;
    if (launch(ss, "search started: x cancels it (knobs are put back)")) remember_suggestion(ss);
}

/* The searches a cancel, a signal or a crash stopped: r lists them. */
static void list_resumable(struct search_scr *ss)
{
    struct app *app = ss->base.app;
    sl_err e;
    if (job_running(&ss->job)) { app_message(app, ROLE_WARN, "a search is running: x cancels it"); return; }
    store *st = app_store(app, &e);
    struct search_row *rows = NULL;
    int n = st ? store_search_list(st, NULL, &rows, &e) : -1;
    if (n < 0) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    free(ss->resumable);
    ss->resumable = NULL;
    ss->nresumable = 0;
    for (int i = 0; i < n; i++)
        if (search_flow_resumable(&rows[i])) {
            ss->resumable = xrealloc(ss->resumable, sizeof *ss->resumable * (size_t)(ss->nresumable + 1));
            ss->resumable[ss->nresumable++] = rows[i];
        }
    free(rows);
    if (ss->nresumable == 0) { app_message(app, ROLE_NORMAL, "no interrupted search to resume"); return; }
    ss->mode = SM_RESUME;
    tv_cursor_init(&ss->resume_tv);
    ss->resume_tv.top = 0;
}

static void draw_resumable(struct search_scr *ss, struct rect r)
{
    draw_text(r.y, r.x, r.w, ROLE_HEADER, "Interrupted searches: Enter resumes the one under the cursor where it stopped");
    struct textview *tv = &ss->resume_tv;
    int keep = tv_selected_tag(tv);
    tv_clear(tv);
    tv_line(tv, false, -1);
    static const char *const heads[] = { "SEARCH", "STARTED", "STATE", "SPACE", "WORKLOAD", "STRATEGY", "BUDGET", "OBJECTIVE" };
    static const int widths[] = { 8, 16, 11, 10, 8, 8, 6, 10 };
    for (int c = 0; c < 8; c++) tv_cell(tv, ROLE_HEADER, widths[c], heads[c]);
    for (int i = 0; i < ss->nresumable; i++) {
        const struct search_row *row = &ss->resumable[i];
        char id[9], when[17], budget[16];
        snprintf(id, sizeof id, "%.8s", row->uuid);
        snprintf(when, sizeof when, "%.16s", row->started);
        if (row->budget_evals > 0) snprintf(budget, sizeof budget, "%lld", (long long)row->budget_evals);
        else snprintf(budget, sizeof budget, "%llds", (long long)(row->budget_ms / 1000));
        const char *cells[] = { id, when, row->state, row->space, row->workload, row->strategy, budget, row->objective };
        tv_line(tv, true, i);
        for (int c = 0; c < 8; c++) tv_cell(tv, c == 2 ? ROLE_WARN : ROLE_NORMAL, widths[c], cells[c]);
    }
    if (keep >= 0) tv_select_tag(tv, keep);
    tv_draw(tv, (struct rect){ r.y + 2, r.x, r.h - 2, r.w });
}

/* What `sluice search --resume ID` does: its stored spec, its trials
 * replayed, then on to its budget. */
static void resume_selected(struct search_scr *ss)
{
    struct app *app = ss->base.app;
    sl_err e;
    int sel = tv_selected_tag(&ss->resume_tv);
    if (sel < 0) { app_message(app, ROLE_WARN, "put the cursor on a search (Up/Down), then Enter"); return; }
    if (trial_active()) {
        app_message(app, ROLE_WARN, "session %.8s is on trial: keep it (K) or revert it (R) before searching", trial_uuid());
        return;
    }
    if (!app_store(app, &e)) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    const struct search_row *row = &ss->resumable[sel];
    clear_run(ss);
    search_flow_defaults(&ss->opts);
    snprintf(ss->opts.resume, sizeof ss->opts.resume, "%s", row->uuid);
    /* The view's copy from the row; the worker reads the full spec itself. */
    ss->shown = ss->opts.spec;
    snprintf(ss->shown.space, sizeof ss->shown.space, "%s", row->space);
    snprintf(ss->shown.workload, sizeof ss->shown.workload, "%s", row->workload);
    snprintf(ss->shown.objective, sizeof ss->shown.objective, "%s", row->objective);
    snprintf(ss->shown.strategy, sizeof ss->shown.strategy, "%s", row->strategy);
    ss->shown.budget_evals = (int)row->budget_evals;
    if (objective_parse(row->objective, &ss->obj, &e) < 0) { app_message(app, ROLE_ERROR, "%s", e.msg); return; }
    snprintf(ss->db_path, sizeof ss->db_path, "%s", app_db_path(app));
    char msg[96];
    snprintf(msg, sizeof msg, "resuming search %.8s: x cancels it again", row->uuid);
    launch(ss, msg);
}

static int build_winner(void *arg, struct knobset *ks, sl_err *e)
{
    const struct search_scr *ss = arg;
    if (space_to_knobset(&ss->out.space, &ss->out.result.leader[ss->out.result.winner].cfg, ks, e) < 0) return -1;
    return knobset_prepare(ks, e);
}

/* The winner of the last search, applied on trial (K keeps, R reverts). */
static void apply_winner(struct search_scr *ss)
{
    struct app *app = ss->base.app;
    if (!ss->have_result || ss->out.result.winner < 0) {
        app_message(app, ROLE_NORMAL, "no winner to apply: nothing beat the baseline beyond the noise");
        return;
    }
    struct knobset ks;
    sl_err e;
    enum trial_outcome o = trial_start(app_store(app, &e), "applying the winner", build_winner, ss, &ks, &e);
    if (o == TRIAL_ON) app_message(app, ROLE_WARN, "winner applied in session %.8s, on trial: K keeps it, R puts the old values back", trial_uuid());
    else app_message(app, o == TRIAL_BUSY ? ROLE_WARN : ROLE_ERROR, "%s", e.msg);
    knobset_free(&ks);
}

/* V: the winner verified on this machine's own workload (verify_panel),
 * as 'sluice verify --live SEARCH-ID' does; nothing is kept. */
static void verify_winner(struct search_scr *ss)
{
    struct app *app = ss->base.app;
    if (job_running(&ss->job)) { app_message(app, ROLE_WARN, "a search is running: x cancels it"); return; }
    if (!ss->have_result || ss->out.result.winner < 0) {
        app_message(app, ROLE_NORMAL, "no winner to verify: nothing beat the baseline beyond the noise");
        return;
    }
    struct knobset ks = { 0 };
    sl_err e;
    char source[64];
    snprintf(source, sizeof source, "search %.8s", ss->uuid);
    if (build_winner(ss, &ks, &e) < 0) app_message(app, ROLE_ERROR, "%s", e.msg);
    else verify_panel_offer(&ss->verify, app, &ks, source);
    knobset_free(&ks);
}

/* --- screen ops -------------------------------------------------------- */

static struct screen *search_create(struct app *app)
{
    struct search_scr *ss = screen_new(sizeof *ss, &search_screen, app);
    pthread_mutex_init(&ss->lock, NULL);
    ss->trials = xcalloc(SEARCH_UI_MAX_TRIALS, sizeof *ss->trials);
    struct search_flow_opts d;
    search_flow_defaults(&d);
    form_init(&ss->form, search_form_fields(), SS_COUNT);
    ss->tv.use_cursor = ss->tv.pager = true;   /* Enter on a trial's row opens it */
    snprintf(ss->form.value[SS_SPACE], PATH_MAX, "%s", d.spec.space);
    snprintf(ss->form.value[SS_WORKLOAD], PATH_MAX, "%s", d.spec.workload);
    snprintf(ss->form.value[SS_STRATEGY], PATH_MAX, "%s", d.spec.strategy);
    app_form_recall(app, &ss->form, "search");   /* what was typed last time */
    if (ss->form.value[SS_DIR][0] && !app_probe_dir(app)[0]) app_set_probe_dir(app, ss->form.value[SS_DIR]);
    return &ss->base;
}

/* From the Overview (F5): its next step's search, when it suggests one
 * and no search runs. The directory the Probe screen measured is the one
 * to tune for. */
static void search_show(struct screen *s)
{
    struct search_scr *ss = (struct search_scr *)s;
    char dir[PATH_MAX], budget[16];
    if (app_take_suggested_search(s->app, dir, sizeof dir, budget, sizeof budget) && !job_running(&ss->job) &&
        !ss->form.editing && !ss->detail.open)
        take_suggestion(ss, dir, budget);
    if (!ss->form.value[SS_DIR][0] && !ss->form.editing)
        snprintf(ss->form.value[SS_DIR], PATH_MAX, "%s", app_probe_dir(s->app));
}

/* Under the trials: evaluation n of N, elapsed, time left (the plan's). */
static void draw_progress(struct search_scr *ss, struct rect r)
{
    char line[256];
    pthread_mutex_lock(&ss->lock);
    double run_s = ss->run_s;
    pthread_mutex_unlock(&ss->lock);
    job_progress_text(&ss->job, "evaluation", app_now_ms(ss->base.app), run_s, line, sizeof line);
    draw_text(r.y, r.x, r.w, job_running(&ss->job) ? ROLE_WARN : ROLE_DIM, line);
}

static void search_draw(struct screen *s, struct rect r)
{
    struct search_scr *ss = (struct search_scr *)s;
    if (verify_panel_shown(&ss->verify)) verify_panel_draw(&ss->verify, r);
    else if (ss->detail.open) detail_draw(&ss->detail, r);
    else if (ss->mode == SM_FORM) draw_form(ss, r);
    else if (ss->mode == SM_RESUME) draw_resumable(ss, r);
    else {
        search_view_draw(ss, (struct rect){ r.y, r.x, r.h - 1, r.w });
        draw_progress(ss, (struct rect){ r.y + r.h - 1, r.x, 1, r.w });
    }
    verify_panel_draw_prompt(&ss->verify, r);
}

static enum handled settings_key(struct search_scr *ss, enum action a, int key)
{
    if (form_key(&ss->form, a, key) == H_HANDLED) {
        for (int i = 0; i < NSUGGEST; i++)   /* typed over: the user's value, remembered below */
            if (ss->form.typed[suggest_field[i]]) ss->suggest_held[i] = false;
        app_form_edited(ss->base.app, &ss->form, SS_DIR, "search");
        return H_HANDLED;
    }
    if (a != ACT_BACK || !ss->ran) return H_IGNORED;
    ss->mode = SM_RUN;
    return H_HANDLED;
}

/* Enter on the search shown: what the database holds of it (src/report):
 * the spec, every trial with its metrics and run, the verdict, the charts;
 * on a trial's row, that trial: its configuration in full, its metrics
 * with units, the runs behind it. */
static void open_report(struct search_scr *ss)
{
    char id[48];
    int row = tv_selected_tag(&ss->tv);
    pthread_mutex_lock(&ss->lock);
    if (row >= 0 && row < ss->ntrials) snprintf(id, sizeof id, "%.36s#%d", ss->uuid, ss->trials[row].seq);
    else snprintf(id, sizeof id, "%s", ss->uuid);
    pthread_mutex_unlock(&ss->lock);
    if (!ss->uuid[0]) { app_message(ss->base.app, ROLE_NORMAL, "no search stored yet"); return; }
    detail_open(&ss->detail, app_store(ss->base.app, NULL), id);
}

static enum handled search_key(struct screen *s, enum action a, int key)
{
    struct search_scr *ss = (struct search_scr *)s;
    if (ss->suggested && ss->mode == SM_FORM && !ss->form.editing) {
        ss->suggested = false;   /* one key: Enter starts the suggestion, any other makes the form the user's */
        if (a == ACT_EDIT) { start(ss); return H_HANDLED; }
    }
    if (ss->mode == SM_FORM && ss->form.editing) return settings_key(ss, a, key);
    if (verify_panel_active(&ss->verify)) return verify_panel_key(&ss->verify, a, key);
    if (ss->detail.open) return detail_key(&ss->detail, a);
    if (ss->mode == SM_RESUME) {
        switch (a) {
        case ACT_BACK: ss->mode = SM_FORM; return H_HANDLED;
        case ACT_EDIT: case ACT_RESUME: resume_selected(ss); return H_HANDLED;
        default: return tv_move(&ss->resume_tv, a);
        }
    }
    switch (a) {
    case ACT_RESUME: list_resumable(ss); return H_HANDLED;
    case ACT_START: start(ss); return H_HANDLED;
    case ACT_CANCEL:
        if (!job_running(&ss->job)) { app_message(s->app, ROLE_NORMAL, "no search is running"); return H_HANDLED; }
        job_cancel(&ss->job);
        ss->cancelled = true;
        app_message(s->app, ROLE_WARN, "cancelling after the current evaluation: the knobs are put back");
        return H_HANDLED;
    case ACT_APPLY: apply_winner(ss); return H_HANDLED;
    case ACT_VERIFY_LIVE: verify_winner(ss); return H_HANDLED;
    case ACT_KEEP: case ACT_REVERT: {
        struct restore_report rep = { 0 };
        char id[9];
        if (app_trial_decide(s->app, a == ACT_KEEP, &rep, id) == 0 && a == ACT_REVERT)
            app_message(s->app, ROLE_OK, "session %s put back: %d knob(s) checked", id, rep.n);
        restore_report_free(&rep);
        return H_HANDLED;
    }
    default: break;
    }
    if (ss->mode == SM_FORM) return settings_key(ss, a, key);
    if (a == ACT_EDIT) { open_report(ss); return H_HANDLED; }
    if (a == ACT_BACK) { ss->mode = SM_FORM; return H_HANDLED; }
    return tv_move(&ss->tv, a);
}

static void search_tick(struct screen *s, long long now)
{
    struct search_scr *ss = (struct search_scr *)s;
    verify_panel_tick(&ss->verify);
    if (!job_reap(&ss->job)) return;
    ss->job.ended_ms = now;
    ss->have_result = ss->out.ok;
    if (!ss->out.ok) search_result_free(&ss->out.result);   /* what a stopped search had gathered */
    free(ss->card);
    ss->card = NULL;
    if (ss->have_result) {   /* built once: every line the screen shows of the verdict comes from it */
        ss->card = xmalloc(sizeof *ss->card);
        verdict_build(&ss->opts.spec, &ss->out.space, &ss->out.result, ss->out.workload.regime, ss->out.workload.text,
                      ss->card);
    }
    if (ss->job.rc == 0) {
        app_message(s->app, ss->out.result.winner >= 0 ? ROLE_OK : ROLE_NORMAL, "%s", ss->card ? ss->card->sentence : "");
    } else {
        app_message(s->app, ss->cancelled ? ROLE_WARN : ROLE_ERROR, "%s", ss->job.err.msg);
    }
}

static bool search_busy(struct screen *s)
{
    struct search_scr *ss = (struct search_scr *)s;
    return job_running(&ss->job) || ss->job.joinable || verify_panel_busy(&ss->verify);
}

static void search_cancel(struct screen *s)
{
    struct search_scr *ss = (struct search_scr *)s;
    job_cancel(&ss->job);
    ss->cancelled = true;
    verify_panel_cancel(&ss->verify);
}

static bool search_hint_on(struct screen *s, enum action a)
{
    struct search_scr *ss = (struct search_scr *)s;
    bool running = job_running(&ss->job);
    if (verify_panel_shown(&ss->verify))
        return a == ACT_CANCEL ? verify_panel_busy(&ss->verify) : a == ACT_BACK && !verify_panel_busy(&ss->verify);
    if (ss->verify.prompt.open) return false;
    if (ss->detail.open) return detail_hint_on(&ss->detail, a);
    switch (a) {
    case ACT_VERIFY_LIVE: return !running && ss->mode == SM_RUN && ss->have_result && ss->out.result.winner >= 0 &&
                                 !trial_active();
    case ACT_START: return !running && !(ss->mode == SM_FORM && ss->form.editing) && ss->mode != SM_RESUME;
    case ACT_CANCEL: return running;
    case ACT_APPLY: return !running && ss->have_result && ss->out.result.winner >= 0 && !trial_active();
    case ACT_KEEP: case ACT_REVERT: return trial_active();
    case ACT_EDIT: return (ss->mode == SM_FORM && !ss->form.editing) || ss->mode == SM_RESUME || (ss->mode == SM_RUN && !running);
    case ACT_BACK: return ss->mode == SM_RUN || ss->mode == SM_RESUME || ss->form.editing;
    case ACT_RESUME: return !running && ss->mode != SM_RESUME && !ss->form.editing;
    default: return true;
    }
}

static void search_done(struct screen *s)
{
    struct search_scr *ss = (struct search_scr *)s;
    job_stop(&ss->job);
    verify_panel_free(&ss->verify);
    clear_run(ss);
    detail_close(&ss->detail);
    pthread_mutex_destroy(&ss->lock);
    tv_free(&ss->tv);
    tv_free(&ss->resume_tv);
    free(ss->resumable);
    free(ss->trials);
    free(ss);
}

static struct textview *search_text(struct screen *s)
{
    struct search_scr *ss = (struct search_scr *)s;
    if (verify_panel_shown(&ss->verify)) return verify_panel_view(&ss->verify);
    if (ss->detail.open) return detail_view(&ss->detail);
    return ss->mode == SM_RUN ? &ss->tv : ss->mode == SM_RESUME ? &ss->resume_tv : NULL;
}

static const enum action search_hints[] = { ACT_START, ACT_CANCEL, ACT_EDIT, ACT_RESUME, ACT_APPLY, ACT_VERIFY_LIVE,
                                            ACT_KEEP, ACT_REVERT, ACT_BACK, ACT_NONE };

const struct screen_class search_screen = {
    .title = "Search", .open = ACT_SEARCH, .hints = search_hints,
    .create = search_create, .show = search_show, .draw = search_draw, .handle_key = search_key,
    .done = search_done, .tick = search_tick, .busy = search_busy, .cancel = search_cancel, .hint_on = search_hint_on,
    .view = search_text,
};
