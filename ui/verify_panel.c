/* verify_panel — a live verification run from a screen: the prompt for
 * its time, the worker running verify_live (the engine `sluice verify
 * --live` runs, with an observer that publishes the plan and each block
 * under a lock), and the view: the plan, the blocks as they arrive with A
 * and B marked, the verdict at the end. */
#include "ui/verify_panel.h"
#include "ui/app.h"
#include "core/interrupt.h"
#include "report/chart.h"
#include "ui/trial.h"
#include "core/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIEW_WIDTH 78
#define BAR_CELLS 16

/* --- the worker and its observer (worker thread) ------------------------- */

static void on_plan(void *arg, const struct verify_run *r)
{
    struct verify_panel *vp = arg;
    pthread_mutex_lock(&vp->lock);
    vp->plan = r->plan;
    vp->have_plan = true;
    snprintf(vp->session, sizeof vp->session, "%s", r->session);
    vp->blocks = xcalloc((size_t)r->plan.nblocks, sizeof *vp->blocks);
    vp->nshown = 0;
    pthread_mutex_unlock(&vp->lock);
    job_set_progress(&vp->job, 0, r->plan.nblocks);
}

static void on_block(void *arg, const struct verify_run *r, int i)
{
    struct verify_panel *vp = arg;
    pthread_mutex_lock(&vp->lock);
    if (vp->blocks && i < vp->plan.nblocks) {
        vp->blocks[i] = r->blocks[i];
        vp->nshown = i + 1;
    }
    pthread_mutex_unlock(&vp->lock);
    job_set_progress(&vp->job, i + 1, r->plan.nblocks);
}

static void on_note(void *arg, const char *msg)
{
    struct verify_panel *vp = arg;
    pthread_mutex_lock(&vp->lock);
    snprintf(vp->note, sizeof vp->note, "%s", msg);
    pthread_mutex_unlock(&vp->lock);
}

static bool on_cancelled(void *arg) { return job_cancelled(&((struct verify_panel *)arg)->job); }

static int verify_worker(struct job *j, void *arg, sl_err *e)
{
    struct verify_panel *vp = arg;
    store *st;   /* its own connection */
    if (store_open(vp->db_path, &st, e) < 0) return -1;
    int rc = verify_live(st, &vp->run, &vp->cand, &vp->obs, e);
    store_close(st);
    return rc;
}

/* --- offer and start ------------------------------------------------------ */

enum { Q_VERIFY_TIME = 1 };

static void drop_test(struct verify_panel *vp)
{
    verify_run_free(&vp->run);
    free(vp->blocks);
    vp->blocks = NULL;
    vp->nshown = 0;
    vp->have_plan = false;
    vp->started = vp->cancelled = false;
    vp->note[0] = vp->session[0] = 0;
}

void verify_panel_offer(struct verify_panel *vp, struct app *app, const struct knobset *cand, const char *source)
{
    vp->app = app;
    if (job_running(&vp->job)) {
        app_message(app, ROLE_WARN, "a live verification is running: x cancels it");
        return;
    }
    if (!vp->lock_ready) {
        pthread_mutex_init(&vp->lock, NULL);
        vp->lock_ready = true;
    }
    if (vp->have_cand) knobset_free(&vp->cand);
    memset(&vp->cand, 0, sizeof vp->cand);
    sl_err e;
    int rc = 0;
    for (int i = 0; i < cand->n && rc == 0; i++) rc = knobset_add(&vp->cand, cand->ch[i].k.name, cand->ch[i].want, &e);
    if (rc == 0) rc = knobset_prepare(&vp->cand, &e);
    vp->have_cand = true;
    if (rc < 0) {
        app_message(app, ROLE_ERROR, "%s", e.msg);
        return;
    }
    snprintf(vp->source, sizeof vp->source, "%s", source);
    char question[256];
    snprintf(question, sizeof question, "Verify %s live: the duration, then the block", source);
    prompt_open(&vp->prompt, Q_VERIFY_TIME, "Verify live", question, "20m 60s",
                "A and B alternate in paired blocks; a guard reverts B", NULL);
}

/* "DURATION [BLOCK]" as `verify --live --duration D --block B` take them. */
static int parse_time(const char *text, long long *duration_ms, long long *block_ms, sl_err *e)
{
    char d[64] = "", b[64] = "";
    int n = sscanf(text, " %63s %63s", d, b);
    *duration_ms = n >= 1 ? units_parse_duration_ms(d) : -1;
    *block_ms = n >= 2 ? units_parse_duration_ms(b) : 60000;
    if (*duration_ms < 1000) return sl_fail(e, SL_EUSAGE, "'%s': give the duration (20m, 90s), then the block (60s)", text);
    if (*block_ms < 1000) return sl_fail(e, SL_EUSAGE, "'%s': the block is a duration of 1 s or more (60s)", b);
    return 0;
}

static void start(struct verify_panel *vp, const char *text)
{
    struct app *app = vp->app;
    sl_err e;
    if (trial_active()) {
        prompt_error(&vp->prompt, "session %.8s is on trial: keep it (K) or revert it (R) first", trial_uuid());
        return;
    }
    drop_test(vp);
    /* the order of the pairs from the UI's clock (virtual under a key script: repeatable) */
    vp->spec = (struct verify_spec){ .source = vp->source, .seed = (uint64_t)(app_now_ms(app) % 1000000) };
    if (parse_time(text, &vp->spec.duration_ms, &vp->spec.block_ms, &e) < 0 ||
        verify_prepare(&vp->run, &vp->spec, &vp->cand, &e) < 0) {
        prompt_error(&vp->prompt, "%s", e.msg);
        return;
    }
    snprintf(vp->db_path, sizeof vp->db_path, "%s", app_db_path(app));
    vp->obs = (struct verify_observer){ .arg = vp, .plan = on_plan, .block = on_block, .note = on_note,
                                        .cancelled = on_cancelled, .signals_handled = true };
    vp->job.started_ms = app_now_ms(app);
    vp->job.ended_ms = 0;
    if (job_start(&vp->job, verify_worker, vp, &e) < 0) {
        prompt_error(&vp->prompt, "%s", e.msg);
        return;
    }
    prompt_close(&vp->prompt);
    vp->started = vp->shown = true;
    tv_clear(&vp->tv);
    vp->tv.top = 0;
    app_message(app, ROLE_OK, "verifying %s live: x cancels (B is put back)", vp->source);
}

/* --- the view ------------------------------------------------------------- */

/* What B changes against A, knob by knob ("vm.dirty_ratio 20→10, ..."):
 * cand_text and base_text name the same knobs in the same order. */
static void changes_text(const struct verify_plan *p, char *buf, size_t n)
{
    char cand[sizeof p->cand_text], base[sizeof p->base_text];
    snprintf(cand, sizeof cand, "%s", p->cand_text);
    snprintf(base, sizeof base, "%s", p->base_text);
    size_t len = (size_t)snprintf(buf, n, "B changes against A (the settings in force):");
    int same = 0;
    char *sc, *sb, *c = strtok_r(cand, " ", &sc), *b = strtok_r(base, " ", &sb);
    for (; c && b && len < n; c = strtok_r(NULL, " ", &sc), b = strtok_r(NULL, " ", &sb)) {
        char *ceq = strchr(c, '='), *beq = strchr(b, '=');
        if (!ceq || !beq) continue;
        if (strcmp(ceq, beq) == 0) { same++; continue; }
        len += (size_t)snprintf(buf + len, n - len, " %.*s %s%s%s,", (int)(ceq - c), c, beq + 1,
                                term_glyphs()->utf8 ? "→" : "->", ceq + 1);
    }
    if (len < n && buf[len - 1] == ',') buf[--len] = 0;
    if (same && len < n) snprintf(buf + len, n - len, "; %d more as they are", same);
}

static void plan_lines(struct verify_panel *vp, struct textview *tv)
{
    const struct verify_plan *p = &vp->plan;
    char line[1024];
    changes_text(p, line, sizeof line);
    tv_wrap(tv, ROLE_NORMAL, "", line, VIEW_WIDTH);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_NORMAL, "session %s, seed %llu: %d blocks of %.0f s in %d balanced pairs", vp->session,
           (unsigned long long)vp->spec.seed, p->nblocks, (double)vp->spec.block_ms / 1000, p->npairs);
    snprintf(line, sizeof line, "settle after a switch from A: %s; from B: %s", p->settle_why[0], p->settle_why[1]);
    tv_wrap(tv, ROLE_DIM, "", line, VIEW_WIDTH);
    int need = verify_pairs_needed(verify_plan_judged(p, &vp->spec));
    if (p->npairs < need) {
        snprintf(line, sizeof line, "%d pairs cannot show a difference over %d metrics (that takes %d)",
                 p->npairs, verify_plan_judged(p, &vp->spec), need);
        tv_wrap(tv, ROLE_WARN, "", line, VIEW_WIDTH);
    }
}

/* The metric a block's bar shows: the first judged one the blocks have. */
static enum verify_metric bar_metric(const struct verify_block *b, int n)
{
    static const enum verify_metric order[] = { VM_AWAIT_MS, VM_PSI_SOME, VM_CANARY_MS, VM_USER };
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        for (int i = 0; i < n; i++)
            if (b[i].has[order[k]]) return order[k];
    return VM_AWAIT_MS;
}

static void block_lines(struct verify_panel *vp, struct textview *tv)
{
    const struct verify_block *b = vp->blocks;
    int n = vp->nshown;
    enum verify_metric m = bar_metric(b, n);
    double hi = 0;
    for (int i = 0; i < n; i++)
        if (b[i].has[m] && b[i].v[m] > hi) hi = b[i].v[m];
    bool utf8 = term_glyphs()->utf8;
    tv_line(tv, false, -1);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_HEADER, "Blocks: A %s the settings in force, B %s the candidate; the bar: %s", chart_overlay_mark(0, utf8),
           chart_overlay_mark(1, utf8), verify_metrics[m].name);
    tv_line(tv, false, -1);
    tv_cell(tv, ROLE_HEADER, 4, "#");
    tv_cell(tv, ROLE_HEADER, 3, "");
    tv_cell(tv, ROLE_HEADER, 8, "SETTLE");
    tv_cell(tv, ROLE_HEADER, 9, "WAIT ms");
    tv_cell(tv, ROLE_HEADER, 9, "PSI some");
    tv_cell(tv, ROLE_HEADER, 9, "PSI full");
    tv_cell(tv, ROLE_HEADER, 8, "MB/s");
    tv_add(tv, ROLE_HEADER, "%s", verify_metrics[m].name);
    for (int i = 0; i < n; i++) {
        char seq[8], settle[16], w[16] = "-", some[16] = "-", full[16] = "-", mbs[16] = "-", bar[128] = "";
        snprintf(seq, sizeof seq, "%d", i + 1);
        snprintf(settle, sizeof settle, "%.1f s", (double)b[i].settle_ms / 1000);
        if (b[i].has[VM_AWAIT_MS]) snprintf(w, sizeof w, "%.2f", b[i].v[VM_AWAIT_MS]);
        if (b[i].has[VM_PSI_SOME]) snprintf(some, sizeof some, "%.1f%%", b[i].v[VM_PSI_SOME]);
        if (b[i].has[VM_PSI_FULL]) snprintf(full, sizeof full, "%.1f%%", b[i].v[VM_PSI_FULL]);
        if (b[i].has[VM_READ_MBS]) snprintf(mbs, sizeof mbs, "%.1f", b[i].v[VM_READ_MBS] + b[i].v[VM_WRITE_MBS]);
        if (b[i].has[m] && hi > 0) chart_overlay_bar(b[i].v[m] / hi, b[i].cand ? 1 : 0, BAR_CELLS, utf8, bar, sizeof bar);
        tv_line(tv, false, -1);
        tv_cell(tv, ROLE_NORMAL, 4, seq);
        tv_cell(tv, b[i].cand ? ROLE_PENDING : ROLE_NORMAL, 3, b[i].cand ? "B" : "A");
        tv_cell(tv, ROLE_DIM, 8, settle);
        tv_cell(tv, ROLE_NORMAL, 9, w);
        tv_cell(tv, ROLE_NORMAL, 9, some);
        tv_cell(tv, ROLE_NORMAL, 9, full);
        tv_cell(tv, ROLE_NORMAL, 8, mbs);
        tv_add(tv, b[i].cand ? ROLE_PENDING : ROLE_GRAPH, "%s", bar);
        if (b[i].note[0]) tv_wrap(tv, ROLE_DIM, "     note: ", b[i].note, VIEW_WIDTH);
    }
}

/* After the worker: how it ended, the verdict per metric, what the kernel holds. */
static void end_lines(struct verify_panel *vp, struct textview *tv)
{
    const struct verify_run *r = &vp->run;
    const struct verify_verdict *v = &r->verdict;
    char line[1024];
    tv_line(tv, false, -1);
    if (vp->job.rc < 0) {
        tv_wrap(tv, ROLE_ERROR, "", vp->job.err.msg, VIEW_WIDTH);
        return;
    }
    if (r->end != VE_DONE) tv_wrap(tv, r->end == VE_GUARD ? ROLE_ERROR : ROLE_WARN, "", r->end_why, VIEW_WIDTH);
    if (r->end != VE_GUARD && r->end != VE_IDLE && v->npairs > 0) {
        snprintf(line, sizeof line, "Verdict over %d pair(s): %s%s%s", v->npairs, verify_overall_name(v->overall),
                 v->why[0] ? ": " : "", v->why);
        tv_line(tv, false, -1);
        tv_wrap(tv, v->overall == VERIFY_BETTER ? ROLE_OK : v->overall == VERIFY_WORSE ? ROLE_ERROR : ROLE_HEADER, "",
                line, VIEW_WIDTH);
        for (int m = 0; m < VM_NR; m++) {
            if (!v->has[m]) continue;
            char effect[512];
            verify_effect_text(v, (enum verify_metric)m, effect, sizeof effect);
            bool worse = v->decided[m] && v->d[m].verdict == DECIDE_WORSE;
            /* the effect on a line of its own under the means: beside them
             * its interval, level and verdict ran past 80 columns */
            tv_line(tv, false, -1);
            tv_add(tv, worse ? ROLE_ERROR : ROLE_NORMAL, "  %-12s A %-9.3g B %-9.3g", verify_metrics[m].name,
                   v->a_mean[m], v->b_mean[m]);
            tv_wrap(tv, worse ? ROLE_ERROR : ROLE_NORMAL, "      ", effect, VIEW_WIDTH);
        }
        verify_saturation_text(v, line, sizeof line);
        tv_wrap(tv, ROLE_DIM, "  ", line, VIEW_WIDTH);
        if (v->demand_differs) {
            verify_demand_text(v, line, sizeof line);
            tv_wrap(tv, ROLE_WARN, "  ", line, VIEW_WIDTH);
        }
    }
    if (r->put_back[0]) tv_wrap(tv, ROLE_NORMAL, "", r->put_back, VIEW_WIDTH);
    if (r->id) {
        snprintf(line, sizeof line, "stored as verification %.8s: 'sluice report' with its id draws it; Esc closes "
                 "this view", r->uuid);
        tv_wrap(tv, ROLE_DIM, "", line, VIEW_WIDTH);
    }
}

static void header(struct verify_panel *vp, struct rect r)
{
    bool running = job_running(&vp->job);
    int x = draw_fmt(r.y, r.x, r.w, ROLE_HEADER, "verify live  ");
    long long done = atomic_load(&vp->job.done), total = atomic_load(&vp->job.total);
    if (running && total > 0) {
        char bar[128];
        chart_bar((double)done / (double)total, 12, term_glyphs()->utf8, bar, sizeof bar);
        x += draw_text(r.y, r.x + x, 12, ROLE_GRAPH, bar);
        long long left_ms = (total - done) * vp->spec.block_ms;
        char left[32];
        job_clock_text(left_ms, left, sizeof left);
        x += draw_fmt(r.y, r.x + x, r.w - x, ROLE_NORMAL, " block %lld of %lld, about %s left  ", done, total, left);
    }
    const char *state = running ? (vp->cancelled ? "cancelling" : "running")
                        : vp->job.rc < 0 ? "failed"
                                         : verify_end_name(vp->run.end);
    enum role sr = running ? ROLE_WARN : vp->job.rc == 0 && vp->run.end == VE_DONE ? ROLE_OK : ROLE_ERROR;
    draw_text(r.y, r.x + x, r.w - x, sr, state);
}

void verify_panel_draw(struct verify_panel *vp, struct rect r)
{
    header(vp, r);
    struct textview *tv = &vp->tv;
    tv_clear(tv);
    pthread_mutex_lock(&vp->lock);
    if (vp->have_plan) {
        plan_lines(vp, tv);
        block_lines(vp, tv);
    } else {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, "starting: the --metric's trial, the session, the first block...");
    }
    if (vp->note[0]) tv_wrap(tv, ROLE_WARN, "note: ", vp->note, VIEW_WIDTH);
    pthread_mutex_unlock(&vp->lock);
    if (!job_running(&vp->job) && vp->started) end_lines(vp, tv);
    tv_draw(tv, (struct rect){ r.y + 1, r.x, r.h - 1, r.w });
}

void verify_panel_draw_prompt(struct verify_panel *vp, struct rect r)
{
    if (vp->prompt.open) prompt_draw(&vp->prompt, r);
}

/* --- keys, tick ------------------------------------------------------------ */

bool verify_panel_active(const struct verify_panel *vp) { return vp->prompt.open || vp->shown; }
bool verify_panel_shown(const struct verify_panel *vp) { return vp->shown; }

enum handled verify_panel_key(struct verify_panel *vp, enum action a, int key)
{
    if (vp->prompt.open) {
        enum prompt_result pr = prompt_key(&vp->prompt, a, key);
        if (pr == PROMPT_ENTERED) start(vp, vp->prompt.input);
        else if (pr == PROMPT_CANCELLED) app_message(vp->app, ROLE_NORMAL, "not verified: nothing was written");
        return H_HANDLED;
    }
    switch (a) {
    case ACT_CANCEL:
        if (job_running(&vp->job)) verify_panel_cancel(vp);
        return H_HANDLED;
    case ACT_BACK:
        if (job_running(&vp->job)) app_message(vp->app, ROLE_WARN, "the test is running: x cancels it (B is put back)");
        else vp->shown = false;
        return H_HANDLED;
    default:
        return tv_move(&vp->tv, a);
    }
}

void verify_panel_tick(struct verify_panel *vp)
{
    if (!job_reap(&vp->job)) return;
    vp->job.ended_ms = app_now_ms(vp->app);
    const struct verify_run *r = &vp->run;
    if (vp->job.rc < 0) app_message(vp->app, ROLE_ERROR, "%s", vp->job.err.msg);
    else if (r->end == VE_DONE)
        app_message(vp->app, ROLE_OK, "verified %s: %s over %d pair(s)", vp->source, verify_overall_name(r->verdict.overall),
                    r->verdict.npairs);
    else app_message(vp->app, ROLE_WARN, "%s", r->end_why);
}

bool verify_panel_busy(struct verify_panel *vp) { return job_running(&vp->job); }

void verify_panel_cancel(struct verify_panel *vp)
{
    if (!job_running(&vp->job)) return;
    vp->cancelled = true;
    job_cancel(&vp->job);
    app_message(vp->app, ROLE_WARN, "cancelling: B is put back");
}

struct textview *verify_panel_view(struct verify_panel *vp) { return vp->shown ? &vp->tv : NULL; }

void verify_panel_free(struct verify_panel *vp)
{
    job_stop(&vp->job);
    drop_test(vp);
    if (vp->have_cand) knobset_free(&vp->cand);
    vp->have_cand = false;
    tv_free(&vp->tv);
    if (vp->lock_ready) pthread_mutex_destroy(&vp->lock);
    vp->lock_ready = false;
}
