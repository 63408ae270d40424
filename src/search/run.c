/* run — a search inside one tuning session, its trials stored as they
 * happen (so a resume continues after SIGKILL), the verdict stored, and
 * the winner applied when asked. Shared by `search`, `tune` and the
 * Search screen, which follow it through a search_observer. */
#include "search/run.h"
#include "core/device.h"
#include "core/interrupt.h"
#include "search/eval_probe.h"
#include "search/report.h"
#include "search/verdict.h"
#include "session/session.h"
#include "db/store_session.h"
#include "db/store_search.h"
#include "core/sysfs.h"
#include "core/units.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void search_flow_defaults(struct search_flow_opts *o)
{
    memset(o, 0, sizeof *o);
    search_spec_defaults(&o->spec);
    o->probe.canary = -1;
    sl_err e;
    if (opt_defaults(&search_flow_table, o, &e) < 0) abort();   /* a broken row: the unit tests catch it */
}

void search_flow_quick_defaults(struct search_flow_opts *o)
{
    search_flow_defaults(o);
    o->spec.budget_evals = 100;   /* a fast disk's short runs: at most this many (cli_tune.c) */
    o->spec.budget_ms = 5 * 60 * 1000;
    o->budget_grows_to_ms = SEARCH_QUICK_BUDGET_GROWS_TO_MS;
    snprintf(o->spec.objective, sizeof o->spec.objective, "%s", SEARCH_QUICK_OBJECTIVE);
    /* No stop on low expected improvement: within a budget this small it
     * saves no time (the confirmation takes what exploring leaves), it
     * only takes runs from exploring. On this project's VM it ended a quick
     * tune's exploring after 6 proposals where the plan gave it 14
     * evaluations, in runs 60, 62 and 66 of bench/transfer --as-user: 62
     * and 66 confirmed a candidate chosen on one lucky run at +0.6% and
     * +0.1% where fio measured +2-5% and +4-8%. bench/search-efficiency,
     * whose figures the quick budget was planned on, measures with it off. */
    o->spec.ei_stop = 0;
}

int search_flow_quick_budget(struct search_flow_opts *o, const char *text, bool user_gave, sl_err *e)
{
    struct search_spec given = { 0 };
    if (search_spec_parse_budget(text, &given, e) < 0) return -1;
    if (given.budget_evals) o->spec.budget_evals = given.budget_evals;
    if (given.budget_ms) o->spec.budget_ms = given.budget_ms;
    if (user_gave) o->budget_grows_to_ms = 0;
    return 0;
}

void search_flow_quick_probe_time(struct search_flow_opts *o)
{
    struct probe_spec chk = o->probe;
    sl_err e;
    if (o->probe.time_ms || probe_spec_resolve(&chk, &e) < 0 || chk.fixed_work) return;
    o->probe.time_ms = 3000;
}

static int set_oracle(void *at, const struct opt *row, const char *text, sl_err *e)
{
    if (opt_regular_file("--oracle", text, e) < 0) return -1;
    return opt_store(&(struct opt){ .name = row->name, .type = OPT_TEXT, .size = row->size }, at, text, e);
}

/* empty would read as "no --resume": a new search, writing knobs */
static int set_resume(void *at, const struct opt *row, const char *text, sl_err *e)
{
    if (!*text) return sl_fail(e, SL_EUSAGE, "--resume: give the ID of an interrupted search (see 'sluice search --list')");
    return opt_store(&(struct opt){ .name = row->name, .type = OPT_TEXT, .size = row->size }, at, text, e);
}

#define FLOW(field) OPT_AT(struct search_flow_opts, field)
const struct opt search_flow_rows[] = {
    { .name = "oracle", .label = "Oracle DB", .type = OPT_CALL, .arg = "DB", FLOW(oracle), .set = set_oracle,
      .help = "evaluate from stored results in DB instead of running probes", .complete = COMPLETE_FILE },
    { .name = "apply", .type = OPT_FLAG, .help = "apply the winner when it beats the baseline beyond the noise", FLOW(apply) },
    { .name = "resume", .type = OPT_CALL, .arg = "ID", FLOW(resume), .set = set_resume, .help = "continue an interrupted search" },
    { .name = "list", .type = OPT_FLAG, .help = "list the stored searches and stop", FLOW(list) },
    { .name = "throttled", .type = OPT_FLAG,
      .help = "size a buffered writer's burst at twice the largest dirty limit the space can set (the throttled "
              "regime), not from the disk's calibrated rate",
      FLOW(throttled) },
    { NULL },
};
#undef FLOW

static void table_defaults(void *o) { search_flow_defaults(o); }

/* The search's own rows and the probe's workload rows (the same list as
 * `sluice probe`), so every evaluation's workload is set as a probe's is. */
const struct opt_table search_flow_table = {
    sizeof(struct search_flow_opts), table_defaults,
    { { search_spec_rows, offsetof(struct search_flow_opts, spec) }, { search_flow_rows, 0 },
      { probe_workload_rows, offsetof(struct search_flow_opts, probe) } }, NULL, NULL,
};

int search_flow_set(struct search_flow_opts *o, const char *option, const char *arg, sl_err *e)
{
    if (!opt_find(&search_flow_table, option, NULL) || strncmp(option, "--", 2) != 0)
        return sl_fail(e, SL_EUSAGE, "%s is not an option of search", option);
    return opt_set(&search_flow_table, o, option, arg, e);
}

int search_flow_check(struct search_flow_opts *o, sl_err *e)
{
    struct search_spec *s = &o->spec;
    if (!strategy_find(s->strategy)) {
        char names[128];
        strategy_names(names, sizeof names);
        return sl_fail(e, SL_EUSAGE, "unknown strategy %s (strategies: %s)", s->strategy, names);
    }
    struct objective ob;
    if (objective_parse(s->objective, &ob, e) < 0) return -1;
    if (search_spec_check_confirm(s, e) < 0) return -1;
    snprintf(o->probe.workload, sizeof o->probe.workload, "%s", s->workload);
    return 0;
}

/* --- spec <-> JSON (what --resume needs) -------------------------------- */

static void spec_json(const struct search_flow_opts *o, char *buf, size_t n)
{
    const struct search_spec *s = &o->spec;
    json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:i,s:i,s:i,s:f,s:f,s:i,s:s,s:s,s:I,s:I,s:i,s:b,s:i}",
                          "space", s->space, "device", s->device, "workload", s->workload, "objective", s->objective,
                          "strategy", s->strategy, "budget_evals", (json_int_t)s->budget_evals, "budget_ms",
                          (json_int_t)s->budget_ms, "seed", (json_int_t)s->seed, "baseline_reps", s->baseline_reps,
                          "race_reps", s->race_reps, "leaders", s->leaders, "alpha", s->alpha, "ei_stop", s->ei_stop,
                          "test", (int)s->test, "oracle", o->oracle, "dir", o->probe.ndirs ? o->probe.dir[0] : "",
                          "time_ms", (json_int_t)o->probe.time_ms, "ramp_ms", (json_int_t)o->probe.ramp_ms,
                          "ramp_set", o->probe.ramp_set, "apply", o->apply, "threads", o->probe.threads);
    /* the workload as fixed (search_workload_fix): a resume runs the same */
    const struct probe_spec *p = &o->probe;
    json_t *dirs = json_array();
    for (int i = 0; i < p->ndirs; i++) json_array_append_new(dirs, json_string(p->dir[i]));
    json_object_set_new(j, "dirs", dirs);
    json_object_set_new(j, "bs", json_integer((json_int_t)p->bs));
    json_object_set_new(j, "size_bytes", json_integer((json_int_t)p->size_bytes));
    json_object_set_new(j, "time_based", json_boolean(p->time_based));
    json_object_set_new(j, "direct", json_boolean(p->direct));
    json_object_set_new(j, "iodepth", json_integer(p->iodepth));
    json_object_set_new(j, "sync_every", json_integer(p->sync_every));
    json_object_set_new(j, "loadfile", json_string(p->loadfile));
    json_object_set_new(j, "idle_before_ms", json_integer((json_int_t)p->idle_ms));
    json_object_set_new(j, "confirm_reps", json_integer(s->confirm_reps));
    json_object_set_new(j, "confirm_follows_pace", json_boolean(s->confirm_follows_pace));
    /* a default budget's ceiling: the resumed search's follow_pace grows it
     * again from the stored runs' times, as the first did */
    json_object_set_new(j, "budget_grows_to_ms", json_integer((json_int_t)o->budget_grows_to_ms));
    json_object_set_new(j, "throttled", json_boolean(o->throttled));
    json_object_set_new(j, "burst_dirtyable", json_integer((json_int_t)o->burst_dirtyable));
    char *t = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    snprintf(buf, n, "%s", t ? t : "{}");
    free(t);
    json_decref(j);
}

static int spec_parse(const char *text, struct search_flow_opts *o, sl_err *e)
{
    search_flow_defaults(o);
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    const char *space, *device, *workload, *objective, *strategy, *oracle, *dir;
    json_int_t be, bm, seed, tms, rms;
    int br, rr, ld, test, rset, apply, threads;
    double alpha, ei;
    if (!j || json_unpack(j, "{s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:i,s:i,s:i,s:F,s:F,s:i,s:s,s:s,s:I,s:I,s:i,s:b,s:i}",
                          "space", &space, "device", &device, "workload", &workload, "objective", &objective,
                          "strategy", &strategy, "budget_evals", &be, "budget_ms", &bm, "seed", &seed, "baseline_reps",
                          &br, "race_reps", &rr, "leaders", &ld, "alpha", &alpha, "ei_stop", &ei, "test", &test, "oracle",
                          &oracle, "dir", &dir, "time_ms", &tms, "ramp_ms", &rms, "ramp_set", &rset, "apply", &apply,
                          "threads", &threads) < 0) {
        json_decref(j);
        return sl_fail(e, SL_EFAIL, "the stored search settings are unreadable: start a new search");
    }
    struct search_spec *s = &o->spec;
    snprintf(s->space, sizeof s->space, "%s", space);
    snprintf(s->device, sizeof s->device, "%s", device);
    snprintf(s->workload, sizeof s->workload, "%s", workload);
    snprintf(s->objective, sizeof s->objective, "%s", objective);
    snprintf(s->strategy, sizeof s->strategy, "%s", strategy);
    s->budget_evals = (int)be;
    s->budget_ms = bm;
    s->seed = (uint64_t)seed;
    s->baseline_reps = br;
    s->race_reps = rr;
    s->leaders = ld;
    s->alpha = alpha;
    s->ei_stop = ei;
    if (test < 0 || test >= TEST_NR) {
        json_decref(j);
        return sl_fail(e, SL_EFAIL, "the stored search's test %d is unknown to this sluice: start a new search", test);
    }
    s->test = (enum search_test)test;
    snprintf(o->oracle, sizeof o->oracle, "%s", oracle);
    snprintf(o->probe.workload, sizeof o->probe.workload, "%s", workload);
    if (dir[0]) { snprintf(o->probe.dir[0], PATH_MAX, "%s", dir); o->probe.ndirs = 1; }
    o->probe.time_ms = (uint64_t)tms;
    o->probe.ramp_ms = (uint64_t)rms;
    o->probe.ramp_set = rset;
    o->probe.threads = threads;
    o->apply = o->apply || apply;
    /* the fixed workload (absent from searches stored before it was) */
    json_int_t bs = 0, size = 0, idle = 0, dirtyable = 0, grows = 0;
    int tb = 0, direct = 0, depth = 0, sync = 0, confirm = 0, throttled = 0, paced = 0;
    const char *loadfile = "";
    json_t *dirs = NULL;
    json_unpack(j, "{s?o,s?I,s?I,s?b,s?b,s?i,s?i,s?s,s?I,s?i,s?b,s?I,s?b,s?I}", "dirs", &dirs, "bs", &bs, "size_bytes",
                &size, "time_based", &tb, "direct", &direct, "iodepth", &depth, "sync_every", &sync, "loadfile", &loadfile,
                "idle_before_ms", &idle, "confirm_reps", &confirm, "throttled", &throttled, "burst_dirtyable", &dirtyable,
                "confirm_follows_pace", &paced, "budget_grows_to_ms", &grows);
    o->budget_grows_to_ms = grows;
    o->throttled = throttled;
    o->burst_dirtyable = (uint64_t)dirtyable;
    s->confirm_reps = confirm;
    s->confirm_follows_pace = paced;
    for (size_t i = 0; json_is_array(dirs) && i < json_array_size(dirs) && i < PROBE_MAX_DIRS; i++) {
        const char *d = json_string_value(json_array_get(dirs, i));
        if (d) snprintf(o->probe.dir[i], PATH_MAX, "%s", d);
        o->probe.ndirs = (int)i + 1;
    }
    o->probe.bs = (uint64_t)bs;
    o->probe.size_bytes = (uint64_t)size;
    o->probe.time_based = tb;
    o->probe.direct = direct;
    o->probe.iodepth = depth;
    o->probe.sync_every = sync;
    o->probe.idle_ms = (uint64_t)idle;
    snprintf(o->probe.loadfile, sizeof o->probe.loadfile, "%s", loadfile);
    json_decref(j);
    return 0;
}

/* --- hooks: trials into the store, replay on resume, signals ------------- */

struct hook_ctx {
    const struct search_observer *obs;
    store *st;
    const struct search_row *row;
    const struct space *sp;
    struct trial_row *stored;
    int nstored;
};

static int hook_record(void *arg, const struct search_trial *t, sl_err *e)
{
    struct hook_ctx *h = arg;
    if (!h->st) return 0;
    struct trial_row r;
    memset(&r, 0, sizeof r);
    r.seq = t->seq;
    snprintf(r.role, sizeof r.role, "%s", trial_role_name(t->role));
    space_config_hash(h->sp, &t->cfg, r.config_hash);
    space_config_text(h->sp, &t->cfg, r.config_text, sizeof r.config_text);
    r.score = t->score;
    search_metrics_json(&t->m, r.metrics_json, sizeof r.metrics_json);
    snprintf(r.run_uuid, sizeof r.run_uuid, "%s", t->m.run_uuid);
    r.elapsed_ms = t->elapsed_ms;
    return store_search_trial_add(h->st, h->row->id, &r, e);
}

static int hook_replay(void *arg, int seq, struct search_trial *t)
{
    struct hook_ctx *h = arg;
    if (seq >= h->nstored) return 0;
    const struct trial_row *r = &h->stored[seq];
    memset(t, 0, sizeof *t);
    t->seq = r->seq;
    int role = trial_role_parse(r->role);
    t->role = role < 0 ? TRIAL_EXPLORE : (enum trial_role)role;
    if (space_config_parse(h->sp, r->config_text, &t->cfg, NULL) < 0) {
        /* cannot happen unless the space changed: make the loop refuse */
        memset(&t->cfg, 0xff, sizeof t->cfg);
    }
    search_metrics_parse(r->metrics_json, &t->m);
    t->score = r->score;
    t->elapsed_ms = r->elapsed_ms;
    return 1;
}

static int hook_interrupted(void *arg)
{
    struct hook_ctx *h = arg;
    return interrupt_signal != 0 || (h->obs && h->obs->cancelled && h->obs->cancelled(h->obs->arg));
}

static void hook_progress(void *arg, const struct search_trial *t, const struct history *hist)
{
    struct hook_ctx *h = arg;
    if (h->obs && h->obs->progress) h->obs->progress(h->obs->arg, t, hist);
}

/* A line for the observer's note, if it takes notes. */
static void note(const struct search_observer *obs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const struct search_observer *obs, const char *fmt, ...)
{
    if (!obs || !obs->note) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    obs->note(obs->arg, msg);
}

/* --- the flow ------------------------------------------------------------ */

/* The disk a search tunes: --device, or for a queue space without it the
 * disk under --dir, if any ("" otherwise). */
static void device_of(const struct search_flow_opts *o, char *device, size_t n)
{
    const struct search_spec *s = &o->spec;
    snprintf(device, n, "%s", s->device);
    if (s->device[0] || strcmp(s->space, "writeback") == 0 || strcmp(s->space, "bdflush") == 0) return;
    if (o->probe.ndirs && device_for_path(o->probe.dir[0], device, n, NULL) == 0) return;
    device[0] = 0;
}

static void pick_device(struct search_flow_opts *o)
{
    char device[sizeof o->spec.device];
    device_of(o, device, sizeof device);
    snprintf(o->spec.device, sizeof o->spec.device, "%s", device);
}

static void fill_row(struct search_row *row, const struct search_flow_opts *o, const struct space *sp,
                     const struct search_workload *w, store *st)
{
    memset(row, 0, sizeof *row);
    const struct search_spec *s = &o->spec;
    snprintf(row->space, sizeof row->space, "%s", sp->name);
    snprintf(row->device, sizeof row->device, "%s", sp->device);
    snprintf(row->workload, sizeof row->workload, "%s", s->workload);
    snprintf(row->objective, sizeof row->objective, "%s", s->objective);
    snprintf(row->strategy, sizeof row->strategy, "%s", s->strategy);
    snprintf(row->evaluator, sizeof row->evaluator, "%s", o->oracle[0] ? "oracle" : "probe");
    row->budget_evals = s->budget_evals;
    row->budget_ms = s->budget_ms;
    row->seed = (int64_t)s->seed;
    spec_json(o, row->spec_json, sizeof row->spec_json);
    snprintf(row->workload_hash, sizeof row->workload_hash, "%s", w->hash);
    snprintf(row->workload_text, sizeof row->workload_text, "%s", w->text);
    snprintf(row->sizing_note, sizeof row->sizing_note, "%s", w->note);
    row->threshold_capped = w->capped;
    struct host_info h;
    char uuid[37];
    if (host_read(&h, NULL) == 0) {
        snprintf(row->kernel, sizeof row->kernel, "%s", h.kernel);
        if (store_host_upsert(st, &h, &row->host_id, uuid, NULL) != 0) row->host_id = 0;
    }
    struct device d;
    if (sp->device[0] && device_get(sp->device, &d, NULL) == 0) device_class(&d, row->hw_class, sizeof row->hw_class);
    row->improvement = row->ci_lo = row->ci_hi = row->p_holm = row->ci_level = NAN;
    row->explore_improvement = row->shrinkage = NAN;
}

static void fill_verdict(struct search_row *row, const struct search_spec *spec, const struct space *sp,
                         const struct search_result *r)
{
    /* the claim's interval at the level every verdict shows (verdict.h) */
    struct decision d = r->confirm.dec;
    if (r->confirm.outcome != CONFIRM_NONE) verdict_claim_decision(spec, sp, r, &d);
    snprintf(row->state, sizeof row->state, "done");
    row->n_baseline = r->nbase;
    const struct confirmation *cf = &r->confirm;
    snprintf(row->confirm_outcome, sizeof row->confirm_outcome, "%s", confirm_outcome_name(cf->outcome));
    row->confirm_reps = cf->reps;
    row->explore_improvement = cf->explore_est;
    row->shrinkage = cf->shrinkage;
    if (r->winner >= 0) {
        /* the claim is the confirmation's: its fresh runs, its interval */
        const struct leader *l = &r->leader[r->winner];
        snprintf(row->verdict, sizeof row->verdict, "win");
        space_config_text(sp, &l->cfg, row->winner_text, sizeof row->winner_text);
        space_config_hash(sp, &l->cfg, row->winner_hash);
        row->improvement = cf->confirmed_est;
        row->ci_lo = d.lo_pct / 100;
        row->ci_hi = d.hi_pct / 100;
        row->ci_level = d.level;
        row->p_holm = cf->dec.p;
        row->n_winner = cf->reps;
    } else if (cf->outcome != CONFIRM_NONE) {
        snprintf(row->verdict, sizeof row->verdict, "%s", cf->outcome == CONFIRM_CONTRADICTED ? "contradicted" : "noise");
        row->improvement = cf->confirmed_est;
        row->ci_lo = d.lo_pct / 100;
        row->ci_hi = d.hi_pct / 100;
        row->ci_level = d.level;
        row->p_holm = cf->dec.p;
    } else {
        bool infeasible = r->nleaders > 0;
        for (int i = 0; i < r->nleaders; i++) infeasible = infeasible && r->leader[i].verdict == VERDICT_INFEASIBLE;
        snprintf(row->verdict, sizeof row->verdict, "%s", r->nleaders == 0 ? "none" : infeasible ? "infeasible" : "noise");
    }
}

/* session_end with a report, which it requires. */
static int end_session(struct session *s, bool keep, sl_err *e)
{
    struct restore_report rep = { 0 };
    int rc = session_end(s, keep, &rep, e);
    restore_report_free(&rep);
    return rc;
}

/* Put the winner in place: inside the session s, or (s NULL) in a session
 * of its own that is kept under purpose. */
static int apply_winner(store *st, struct session *s, const struct space *sp, const struct search_config *c,
                        const char *purpose, sl_err *e)
{
    struct knobset ks = { 0 };
    int rc = space_to_knobset(sp, c, &ks, e);
    if (rc == 0) rc = knobset_prepare(&ks, e);
    if (rc == 0 && s) {
        rc = knobset_apply(&ks, s, e);
    } else if (rc == 0) {
        struct session *own;
        rc = knobset_run_session(st, &ks, purpose, 0, &own, e);
        if (rc == 0) rc = end_session(own, true, e);
    }
    knobset_free(&ks);
    return rc;
}

int search_flow_apply(store *st, const struct space *sp, const struct search_config *c, const char *purpose, sl_err *e)
{
    return apply_winner(st, NULL, sp, c, purpose, e);
}

/* A crashed session blocks a new search: its knobs are still changed, so a
 * baseline measured now would be wrong. The one of the resumed search is
 * put back first. */
static int settle_crashed(store *st, int64_t own_session, const struct search_observer *obs, sl_err *e)
{
    struct session_row *rows;
    int n = session_find_crashed(st, &rows, e);
    if (n < 0) return -1;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (rows[i].id == own_session) {
            struct restore_report rep = { 0 };
            rc = session_restore(st, &rows[i], 0, &rep, e);
            restore_report_free(&rep);
            if (rc == 0) note(obs, "put back the knobs of the interrupted search's session %.8s", rows[i].uuid);
        } else {
            rc = sl_fail(e, SL_EBUSY, "session %.8s (%s) was left open by a sluice that died and its knobs are still changed: "
                         "run 'sluice restore --crashed' first (or 'sluice search --resume' for an interrupted search)",
                         rows[i].uuid, rows[i].purpose);
        }
    }
    free(rows);
    return rc;
}

/* What the steps of one search_flow_run share. */
struct run {
    struct search_flow_opts *o;
    struct search_flow_outcome *out;
    store *st;
    struct search_row row;
    struct trial_row *stored;
    int nstored;
    bool resuming, probe_mode;
    struct space *sp;
    struct evaluator ev;
    struct session *s;
    enum burst_zone zone;   /* where the burst's size put it at the thresholds in force (describe_burst) */
    double timing_s;        /* timing the burst (the calibration and the series), before the plan */
    uint64_t bg_now, dirty_now;   /* those thresholds in bytes, before the first run */
    char collapsed[1024];   /* what the burst cannot tell apart, measured once (describe_burst; "" when nothing) */
};

bool search_flow_resumable(const struct search_row *row)
{
    return strcmp(row->state, "running") == 0 || strcmp(row->state, "interrupted") == 0;
}

/* A resume: the stored spec replaces the options, not who is observing
 * (and --apply given now still counts); the stored trials are read for
 * replay. */
static int load_resume(struct run *R, sl_err *e)
{
    struct search_flow_opts *o = R->o;
    if (store_search_get(R->st, o->resume, &R->row, e) < 0) return -1;
    if (!search_flow_resumable(&R->row))
        return sl_fail(e, SL_EUSAGE, "search %.8s is %s: only an interrupted search can be resumed", R->row.uuid, R->row.state);
    bool apply = o->apply, trap = o->trap_signals;
    const struct search_observer *obs = o->observer;
    int prc = spec_parse(R->row.spec_json, o, e);
    o->observer = obs;
    o->trap_signals = trap;
    if (prc < 0) return -1;
    o->apply = o->apply || apply;
    R->nstored = store_search_trials(R->st, R->row.id, &R->stored, e);
    return R->nstored < 0 ? -1 : 0;
}

/* A directory in memory (tmpfs, ramfs: /dev/shm, and /tmp where it is
 * mounted so): its files never reach a disk, so no knob a search sets
 * (writeback, the disk's queue) changes what it measures, and the search
 * would time the page cache for minutes and call what it found noise, or
 * a win. Refused before anything runs. A probe may measure it. */
static int check_dirs_on_disk(const struct search_flow_opts *o, sl_err *e)
{
    if (o->oracle[0]) return 0;
    for (int i = 0; i < o->probe.ndirs; i++) {
        const char *fs = probe_dir_in_memory(o->probe.dir[i]);
        if (fs)
            return sl_fail(e, SL_EUSAGE, "--dir %s is on %s, which keeps its files in memory with no disk under it: "
                           "the knobs a search sets change nothing there; give --dir on the disk to tune (by default "
                           "%s); nothing was changed", o->probe.dir[i], fs, PROBE_DIR_DEFAULT);
    }
    return 0;
}

/* Probing needs root, a directory on a disk, and no crashed session
 * around when knobs change. */
static int check_ready(struct run *R, sl_err *e)
{
    if (R->probe_mode && sysfs_require_root("search", e) < 0) return -1;
    if (check_dirs_on_disk(R->o, e) < 0) return -1;
    if ((R->probe_mode || R->o->apply) && settle_crashed(R->st, R->resuming ? R->row.session_id : -1, R->o->observer, e) < 0)
        return -1;
    return 0;
}

/* Probe mode: the search's session over every knob it may touch, and the
 * probe evaluator measuring inside it. */
static int begin_probe_session(struct run *R, sl_err *e)
{
    int lock_fd;
    struct knob *touched = NULL;
    int nt = space_touched(R->sp, &touched, e);
    int rc = nt < 0 ? -1 : session_lock_acquire(store_path(R->st), &lock_fd, e);
    if (rc == 0) rc = session_begin(R->st, "search", touched, nt, lock_fd, &R->s, e);
    free(touched);
    if (rc == 0) {
        R->row.session_id = session_row_of(R->s)->id;
        snprintf(R->row.state, sizeof R->row.state, "running");
        rc = store_search_update(R->st, &R->row, NULL, e);
    }
    if (rc == 0) rc = evaluator_probe(&R->ev, &R->o->probe, R->s, R->st, R->o->spec.seed, e);
    return rc;
}

/* --size more than the free space under --dir: refused before anything
 * is written, naming both. */
static int check_size_fits(const struct probe_spec *p, sl_err *e)
{
    uint64_t free_bytes = p->size_bytes && p->ndirs ? burst_free_under(p->dir[0]) : 0;
    if (!free_bytes || p->size_bytes <= free_bytes) return 0;
    char want[32], have[32];
    units_format_bytes(p->size_bytes, want, sizeof want);
    units_format_bytes(free_bytes, have, sizeof have);
    return sl_fail(e, SL_EUSAGE, "--size %s is more than the %s free under %s: give a smaller --size or another --dir; "
                   "nothing was written", want, have, p->dir[0]);
}

/* A new search of a buffered writer: one calibration run at the current
 * settings measures the disk's write + fsync rate, which sizes the default
 * burst (burst.h) and times the plan. --size and --throttled keep their
 * burst; the run still times it. */
/* A time budget that cannot reach a verdict even at the default burst's
 * BURST_TARGET_S a run is refused before the calibration writes its 1 GiB
 * (#28: "a budget that cannot afford the calibration run"); at a terminal
 * the observer may take the longer budget instead. */
static int check_budget_affords_burst(struct run *R, sl_err *e)
{
    struct search_spec *s = &R->o->spec;
    if (s->budget_ms <= 0 || R->o->probe.size_bytes || R->o->throttled) return 0;
    struct search_plan p;
    search_plan_make(s, BURST_TARGET_S + 0.5, SEARCH_NOISE_SD_ASSUMED, &p);
    if (p.evals >= p.verdict_evals) return 0;
    long long need_ms = search_plan_verdict_ms(&p);
    const struct search_observer *obs = R->o->observer;
    if (obs && obs->over_budget && obs->over_budget(obs->arg, &p, need_ms)) {
        s->budget_ms = need_ms;
        return 0;
    }
    char have[32], need[32];
    units_format_duration_ms(s->budget_ms, have, sizeof have);
    units_format_duration_ms(need_ms, need, sizeof need);
    return sl_fail(e, SL_EUSAGE, "a budget of %s cannot reach a verdict: the default burst is sized for about %.0f s a "
                   "run, and a verdict needs %d evaluations (%s): --budget %s, or a smaller burst with --size; nothing "
                   "was written", have, BURST_TARGET_S, p.verdict_evals, need, need);
}

/* A space whose only configuration is the baseline measures nothing: a
 * space file of the current values, or one the burst collapsed whole
 * (collapsed: burst_collapse_space's note, "" when it removed nothing). A
 * space file of vm.dirty_background_ratio = 1 under a 64 MiB burst (1% is
 * about 230 MiB here) ran 3 baseline runs, said "no verdict: the budget
 * ended before any configuration could be compared" and proposed a larger
 * --budget. Refused before the first evaluation, saying why. */
static int something_to_compare(const struct space *sp, const char *collapsed, sl_err *e)
{
    if (space_count(sp, 2) != 1) return 0;   /* -1: more than 2 */
    if (collapsed[0])
        return sl_fail(e, SL_EUSAGE, "space %s has nothing to compare with the settings in force at this burst: %s; "
                       "give a larger --size, or a space with other levels; nothing was changed", sp->name, collapsed);
    return sl_fail(e, SL_EUSAGE, "space %s has nothing to compare: its only configuration is the settings in force; "
                   "give levels other than the current ones; nothing was changed", sp->name);
}

/* The user's burst (--size): what it cannot tell apart is known before
 * the calibration writes anything. */
static int user_burst_has_something_to_compare(const struct search_flow_opts *o, const struct space *sp, sl_err *e)
{
    if (!o->probe.size_bytes || o->throttled) return 0;
    struct space *copy = xmalloc(sizeof *copy);
    *copy = *sp;
    char note[1024];
    burst_collapse_space(copy, o->probe.size_bytes, burst_dirtyable_now(), note, sizeof note);
    int rc = something_to_compare(copy, note, e);
    free(copy);
    return rc;
}

int search_flow_check_space(const struct search_flow_opts *given, sl_err *e)
{
    char device[sizeof given->spec.device];
    device_of(given, device, sizeof device);   /* as search_flow_run picks it, before the default directory */
    /* an empty Directory is where the search will write: its free space */
    struct search_flow_opts *o = xmalloc(sizeof *o);
    *o = *given;
    probe_spec_default_dir(&o->probe);
    struct space *sp = xmalloc(sizeof *sp);
    int rc = space_build(o->spec.space, device[0] ? device : NULL, sp, e);
    /* the refusals calibrate_burst makes before anything is written, so
     * the Search form says them before s, as the command line would */
    if (rc == 0 && check_dirs_on_disk(o, e) < 0) rc = -1;
    if (rc == 0 && !o->oracle[0] && probe_spec_is_burst(&o->probe) &&
        (check_size_fits(&o->probe, e) < 0 || user_burst_has_something_to_compare(o, sp, e) < 0))
        rc = -1;
    free(sp);
    free(o);
    return rc;
}

static int calibrate_burst(struct run *R, sl_err *e)
{
    struct search_flow_opts *o = R->o;
    struct burst_calibration *c = &R->out->calibration;
    if (check_size_fits(&o->probe, e) < 0) return -1;
    if (check_budget_affords_burst(R, e) < 0) return -1;
    if (user_burst_has_something_to_compare(o, R->sp, e) < 0) return -1;
    if (burst_calibrate(&o->probe, R->st, c, e) < 0) return -1;
    o->burst_dirtyable = burst_dirtyable_now();
    if (o->probe.size_bytes && !o->throttled) {
        /* the user's burst, many times the calibration's: its own time a
         * run, before the plan counts on it (burst_time_user_burst) */
        if (burst_user_burst_timed(c, o->probe.size_bytes)) {
            char b[32];
            units_format_bytes(o->probe.size_bytes, b, sizeof b);
            note(R->o->observer, "timing the burst: %s written and synced once at the current settings", b);
        }
        return burst_time_user_burst(&o->probe, R->st, c, e);
    }
    if (o->throttled) return 0;
    struct probe_spec r = o->probe;
    if (probe_spec_resolve(&r, e) < 0) return -1;
    uint64_t free_bytes = burst_free_under(o->probe.dir[0]);
    bool capped;
    uint64_t unit = r.bs * (uint64_t)r.threads;
    struct search_workload *w = &R->out->workload;
    o->probe.size_bytes = burst_for_rate(c->mb_s, free_bytes, o->burst_dirtyable, unit, w->note, sizeof w->note, &capped);
    w->capped = capped;
    /* the burst's own regime: bursts between the calibration's and this
     * one, run once each, time it (burst.h) */
    uint64_t next, most = o->probe.size_bytes;
    char timed[768];
    while (burst_next_step(c, most, unit, &next, &o->probe.size_bytes, timed, sizeof timed) == 1) {
        char b[32];
        units_format_bytes(next, b, sizeof b);
        if (next == c->cut_bytes)
            note(R->o->observer, "timing the burst: %s, cut back, written and synced once at the current settings, "
                 "with the wait for the memory it frees to go back to the host", b);
        else
            note(R->o->observer, "timing the burst: %s written and synced once at the current settings", b);
        struct probe_spec step = o->probe;
        step.size_bytes = next;
        if ((next == c->cut_bytes ? burst_step_run_whole : burst_step_run)(&step, R->st, c, e) < 0) return -1;
    }
    if (timed[0]) {
        char was[32];
        units_format_bytes(most, was, sizeof was);
        snprintf(w->note, sizeof w->note, "%s (the calibration's rate alone, %.0f MB/s, sized %s; --size sets another, "
                 "--throttled sizes it past the largest dirty limit)", timed, c->mb_s, was);
    }
    return 0;
}

/* What the burst means: its regime against the thresholds in force, and
 * the limits it cannot tell apart measured once (the space collapsed). */
static void describe_burst(struct run *R)
{
    struct search_workload *w = &R->out->workload;
    const struct probe_spec *p = &R->o->probe;
    if (!p->size_bytes || !probe_spec_is_burst(p)) return;
    char regime[512];
    const char *collapsed = R->collapsed;
    burst_thresholds_now(&R->bg_now, &R->dirty_now);
    R->zone = burst_regime(p->size_bytes, R->bg_now, R->dirty_now, regime, sizeof regime);
    burst_collapse_space(R->sp, p->size_bytes, R->o->burst_dirtyable, R->collapsed, sizeof R->collapsed);
    size_t l = strlen(w->note);
    if (!R->resuming)   /* a resumed search's stored note says it already */
        snprintf(w->note + l, sizeof w->note - l, "%s%s%s%s", l ? "; " : "", regime, collapsed[0] ? "; " : "", collapsed);
    l = strlen(w->regime);
    snprintf(w->regime + l, sizeof w->regime - l, "; %s", regime);
}

/* The workload every evaluation runs, fixed before the first (a resume
 * runs the stored one, and refuses when it no longer comes out the same:
 * a changed loadfile). */
static int fix_workload(struct run *R, sl_err *e)
{
    struct search_workload *w = &R->out->workload;
    char sized[sizeof w->note] = "";
    bool capped = false;
    if (!R->resuming && probe_spec_is_burst(&R->o->probe)) {
        long long t0 = units_monotonic_ms();
        if (calibrate_burst(R, e) < 0) return -1;
        R->timing_s = (double)(units_monotonic_ms() - t0) / 1000;
        snprintf(sized, sizeof sized, "%s", w->note);
        capped = w->capped;
    }
    bool sized_here = sized[0] != 0;
    if (!sized_here && !R->o->throttled && !R->resuming && probe_spec_is_burst(&R->o->probe)) {
        char b[32];
        units_format_bytes(R->o->probe.size_bytes, b, sizeof b);
        const struct burst_calibration *c = &R->out->calibration;
        if (c->fit_s > 0 && c->fit_bytes == R->o->probe.size_bytes)
            snprintf(sized, sizeof sized, "burst %s for every configuration, as --size gave it, about %.0f s a run as "
                     "one run at the current settings timed it (opening and removing the files, and the wait for the "
                     "memory it freed to go back to the host, included)", b, c->fit_s);
        else
            snprintf(sized, sizeof sized, "burst %s for every configuration, as --size gave it", b);
    }
    if (search_workload_fix(&R->o->probe, R->sp, w, e) < 0) return -1;
    if (sized[0]) {
        snprintf(w->note, sizeof w->note, "%s", sized);
        w->capped = capped;
    }
    if (!R->resuming || !R->row.workload_hash[0]) {
        describe_burst(R);
        return 0;
    }
    if (strcmp(R->row.workload_hash, w->hash) != 0) {
        char diff[256];
        probe_workload_diff(R->row.workload_text, w->text, diff, sizeof diff);
        return sl_fail(e, SL_EFAIL, "cannot resume search %.8s: its workload no longer comes out the same (%s): start a new search",
                       R->row.uuid, diff);
    }
    snprintf(w->note, sizeof w->note, "%s", R->row.sizing_note);
    w->capped = R->row.threshold_capped;
    describe_burst(R);
    return 0;
}

/* The time one evaluation takes: for a burst, what the calibration and
 * the runs timing the burst measured (burst_run_seconds); the window and
 * ramp for a workload that runs for a time; 0 when unknown (the oracle). */
static double run_seconds(const struct run *R)
{
    const struct burst_calibration *c = &R->out->calibration;
    const struct probe_spec *p = &R->o->probe;
    if (!R->probe_mode) return 0;
    if (c->mb_s > 0 && p->size_bytes) return burst_run_seconds(c, p->size_bytes);
    struct probe_spec r = *p;
    sl_err e;
    if (probe_spec_resolve(&r, &e) < 0) return 0;
    return (double)(r.ramp_ms + r.time_ms) / 1000 + 0.5;
}

/* The plan, before the first evaluation: a budget that cannot reach a
 * verdict is refused, naming what it needs, unless the observer (a user
 * at a terminal) takes the longer plan. */
static int make_plan(struct run *R, sl_err *e)
{
    struct search_plan *p = &R->out->plan;
    struct search_spec *s = &R->o->spec;
    double run_s = run_seconds(R);
    if (run_s <= 0) return 0;
    s->plan_run_s = run_s;
    search_plan_make(s, run_s, SEARCH_NOISE_SD_ASSUMED, p);
    if (!R->resuming) search_plan_scale_confirmation(s, p);
    /* a default budget grows again, in the search, if its runs prove slower */
    s->budget_grows_to_ms = R->o->budget_grows_to_ms;
    if (R->resuming || p->evals >= p->verdict_evals) return 0;
    if (search_plan_grow_default(s, p, R->o->budget_grows_to_ms)) return 0;
    long long need_ms = search_plan_verdict_ms(p);
    const struct search_observer *obs = R->o->observer;
    if (obs && obs->over_budget && obs->over_budget(obs->arg, p, need_ms)) {
        if (s->budget_ms > 0 && s->budget_ms < need_ms) s->budget_ms = need_ms;
        if (s->budget_evals > 0 && s->budget_evals < p->verdict_evals) s->budget_evals = p->verdict_evals;
        search_plan_make(s, run_s, SEARCH_NOISE_SD_ASSUMED, p);
        return 0;
    }
    char need[32], alt[96] = "";
    units_format_duration_ms(need_ms, need, sizeof need);
    const struct burst_calibration *c = &R->out->calibration;
    if (c->mb_s > 0 && s->budget_ms > 0) {
        /* the burst whose runs fit the budget, set-up kept */
        double per_run = (double)s->budget_ms / 1000 / p->verdict_evals - burst_setup_seconds(c);
        unsigned long long mib = (unsigned long long)(per_run * burst_rate_mb_s(c) * 1e6) >> 20;
        if (per_run > 0.5 && mib > 0) snprintf(alt, sizeof alt, ", or a smaller burst: --size %lluM", mib);
    }
    if (s->budget_ms > 0 && (s->budget_evals <= 0 || s->budget_ms / 1000.0 / run_s < s->budget_evals))
        return sl_fail(e, SL_EUSAGE, "a run takes %.1f s, so the budget buys %d evaluations; a verdict needs %d (%s): "
                       "--budget %s%s; nothing was changed", run_s, p->evals, p->verdict_evals, need, need, alt);
    return sl_fail(e, SL_EUSAGE, "a budget of %d evaluations cannot reach a verdict: it needs %d (%s at %.1f s a run): "
                   "--budget %d; nothing was changed", p->evals, p->verdict_evals, need, run_s, p->verdict_evals);
}

/* The space, the evaluator, the stored search row and (probing) the session. */
static int prepare(struct run *R, sl_err *e)
{
    struct search_flow_opts *o = R->o;
    int rc = space_build(o->spec.space, o->spec.device[0] ? o->spec.device : NULL, R->sp, e);
    if (rc == 0 && R->probe_mode) rc = fix_workload(R, e);
    if (rc == 0 && !R->resuming) rc = something_to_compare(R->sp, R->collapsed, e);
    if (rc == 0) rc = make_plan(R, e);
    if (rc == 0) R->out->plan.before_s = R->timing_s;
    if (rc == 0 && !R->probe_mode) rc = evaluator_oracle(&R->ev, o->oracle, o->spec.workload, o->spec.seed, e);
    if (rc == 0 && !R->resuming) {
        fill_row(&R->row, o, R->sp, &R->out->workload, R->st);
        rc = store_search_create(R->st, &R->row, e);
    }
    if (rc == 0 && R->probe_mode) rc = begin_probe_session(R, e);
    return rc;
}

/* prepare failed: undo what it did. */
static void abandon(struct run *R)
{
    evaluator_free(&R->ev);
    if (R->s) { sl_err se; end_session(R->s, false, &se); }
    /* a resumed search stays resumable; a new one that never ran failed */
    if (R->row.id > 0 && !R->resuming) {
        snprintf(R->row.state, sizeof R->row.state, "failed");
        store_search_update(R->st, &R->row, NULL, NULL);
    }
}

/* The search itself, its trials stored as they come (batched commits). */
static int explore_and_judge(struct run *R, struct hook_ctx *hc, sl_err *e)
{
    *hc = (struct hook_ctx){ .obs = R->o->observer, .st = R->st, .row = &R->row, .sp = R->sp, .stored = R->stored,
                             .nstored = R->nstored };
    struct search_hooks hk = { .arg = hc, .record = hook_record, .replay = hook_replay, .progress = hook_progress,
                               .interrupted = hook_interrupted };
    if (R->o->trap_signals) interrupt_trap();
    store_search_durability(R->st, false, NULL);
    int rc = search_run(&R->o->spec, R->sp, &R->ev, &hk, &R->out->result, e);
    store_search_durability(R->st, true, NULL);
    evaluator_free(&R->ev);
    return rc;
}

/* The search stopped early: knobs back, the row marked resumable or failed. */
static int finish_stopped(struct run *R, struct hook_ctx *hc, const sl_err *e)
{
    struct search_row *row = &R->row;
    bool interrupted = interrupt_signal != 0 || hook_interrupted(hc);
    snprintf(row->state, sizeof row->state, interrupted ? "interrupted" : "failed");
    sl_err se;
    if (R->s && end_session(R->s, false, &se) < 0) note(R->o->observer, "%s", se.msg);
    store_search_update(R->st, row, NULL, NULL);
    R->out->interrupted = interrupted;
    if (interrupted)
        sl_fail(&R->out->err, SL_EFAIL, "search %.8s interrupted after %d evaluations; knobs put back (it can be resumed)",
                row->uuid, R->out->result.nevals);
    else
        R->out->err = *e;
    return interrupted ? SL_EFAIL : (e->status ? e->status : SL_EFAIL);
}

json_t *search_flow_report_json(const struct search_flow_opts *o, const struct search_flow_outcome *out)
{
    json_t *j = report_json(&o->spec, &out->space, &out->result, out->workload.regime, out->workload.text);
    json_object_set_new(j, "search", json_string(out->uuid));
    if (out->workload.hash[0]) json_object_set_new(j, "workload_fixed", search_workload_json(&out->workload));
    json_object_set_new(j, "applied", json_boolean(out->applied));
    return j;
}

/* The burst's regime as its baseline's runs measured it, beside what its
 * size predicted (burst_regime_measured): the verdict's regime says so
 * when they disagree. */
static void check_burst_regime(struct run *R)
{
    const struct search_result *r = &R->out->result;
    struct search_workload *w = &R->out->workload;
    if (R->zone == BURST_ZONE_UNKNOWN) return;
    struct search_config base;
    space_baseline(R->sp, &base);
    int runs = 0, reached = 0;
    for (int i = 0; i < r->ntrials; i++) {
        const struct search_trial *t = &r->trials[i];
        if (!t->m.zone_known || !space_config_equal(R->sp, &t->cfg, &base)) continue;
        runs++;
        reached += t->m.zone_reached;
    }
    char measured[512];
    burst_regime_measured(R->zone, runs, reached, measured, sizeof measured);
    size_t l = strlen(w->regime);
    if (measured[0]) snprintf(w->regime + l, sizeof w->regime - l, "; %s", measured);
    /* the claim's configuration may put the same burst in another regime:
     * the thresholds in force say where the baseline's runs were, not the
     * winner's (a burst below the background threshold "stays in the page
     * cache until its fsync" read beside a win from a lower one) */
    bool refused;
    int who = search_claim_leader(r, &refused);
    if (who < 0) return;
    char under[512];
    burst_regime_under(R->sp, &r->leader[who].cfg, R->o->probe.size_bytes, R->o->burst_dirtyable, R->bg_now,
                       R->dirty_now, refused ? "the refused configuration's" : "the winner's", under, sizeof under);
    l = strlen(w->regime);
    if (under[0]) snprintf(w->regime + l, sizeof w->regime - l, "; %s", under);
}

/* The search finished: the winner applied when asked, the session ended,
 * the verdict and report stored. */
static int finish_done(struct run *R)
{
    const struct search_result *r = &R->out->result;
    const struct search_observer *obs = R->o->observer;
    int status = 0;
    sl_err e;
    check_burst_regime(R);
    /* probes on the real system: a fixture root's runs take no time a
     * machine would (their figures are the fixture's) */
    if (R->probe_mode && sysfs_is_real_root()) {
        verdict_confirm_span(r, R->out->workload.regime, sizeof R->out->workload.regime);
        if (probe_waits_for_freed_memory(&R->o->probe))
            probe_regime_waited(R->out->workload.regime, sizeof R->out->workload.regime);
    }
    fill_verdict(&R->row, &R->o->spec, R->sp, r);
    bool applied = false;
    if (R->o->apply && r->winner >= 0) {
        if (apply_winner(R->st, R->s, R->sp, &r->leader[r->winner].cfg, "search", &e) < 0) note(obs, "applying the winner: %s", e.msg);
        else applied = true;
    }
    R->row.applied = applied;
    R->out->applied = applied;
    if (R->s && end_session(R->s, applied, &e) < 0) {
        note(obs, "%s", e.msg);
        status = e.status;
    }
    json_t *j = search_flow_report_json(R->o, R->out);
    char *jt = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(10));
    if (store_search_update(R->st, &R->row, jt, &e) < 0) note(obs, "%s", e.msg);
    free(jt);
    json_decref(j);
    return status;
}

/* An error before the search ran. */
static int fail(struct search_flow_outcome *out, const sl_err *e)
{
    out->err = *e;
    return e->status ? e->status : SL_EFAIL;
}

int search_flow_run(store *st, struct search_flow_opts *o, struct search_flow_outcome *out)
{
    sl_err e;
    memset(out, 0, sizeof *out);
    struct run R = { .o = o, .out = out, .st = st, .resuming = o->resume[0] != 0 };
    if (R.resuming && load_resume(&R, &e) < 0) return fail(out, &e);
    pick_device(o);
    R.probe_mode = out->probe_mode = !o->oracle[0];
    /* No --dir: the probe writes in its default directory, and the burst is
     * sized and timed there. Left empty until the probe resolved it, no
     * burst was seen: 'sluice tune --quick' alone sized 5.4 GiB from the
     * dirty threshold, planned 600.5 s a run and refused its own budget. */
    if (R.probe_mode) probe_spec_default_dir(&o->probe);
    if (check_ready(&R, &e) < 0) { free(R.stored); return fail(out, &e); }
    R.sp = xcalloc(1, sizeof *R.sp);
    if (prepare(&R, &e) < 0) {
        abandon(&R);
        free(R.sp);
        free(R.stored);
        return fail(out, &e);
    }
    snprintf(out->uuid, sizeof out->uuid, "%s", R.row.uuid);
    out->space = *R.sp;
    if (o->observer && o->observer->started) o->observer->started(o->observer->arg, R.row.uuid, R.sp, R.resuming, R.nstored);
    struct hook_ctx hc;
    int rc = explore_and_judge(&R, &hc, &e);
    int status = rc < 0 ? finish_stopped(&R, &hc, &e) : finish_done(&R);
    if (o->trap_signals) interrupt_untrap();
    out->ok = rc == 0;
    free(R.sp);
    free(R.stored);
    return status;
}
