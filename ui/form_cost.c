/* form_cost — the forms' cost lines. */
#include "ui/form_cost.h"
#include "ui/job.h"
#include "probe/cost.h"
#include "search/burst.h"
#include "search/cost.h"
#include "core/units.h"

#include <stdio.h>
#include <string.h>

bool form_cost_probe(const struct probe_spec *r, char *text, size_t n)
{
    struct probe_cost c;
    probe_cost_estimate(r, &c);
    char t[32], w[32], sp[32], fr[32];
    job_clock_text((long long)(c.time_s * 1000), t, sizeof t);
    units_format_bytes(c.write_bytes, w, sizeof w);
    units_format_bytes(c.space_bytes, sp, sizeof sp);
    units_format_bytes(c.free_bytes, fr, sizeof fr);
    if (c.free_bytes && c.space_bytes > c.free_bytes) {
        snprintf(text, n, "needs %s under %s, which has %s free: give a smaller Size or another Directory", sp,
                 r->dir[0], fr);
        return true;
    }
    int len;
    if (!c.space_bytes && !c.write_bytes && !c.write_timed) len = snprintf(text, n, "Cost: writes nothing");
    else if (c.write_timed) len = snprintf(text, n, "Cost: writes what the disk takes in its time, in %s of files", sp);
    else if (c.reads_only) len = snprintf(text, n, "Cost: writes %s once (the files it reads)", w);
    else len = snprintf(text, n, "Cost: writes %s", w);
    if (len > 0 && (size_t)len < n)
        len += snprintf(text + len, n - (size_t)len, c.time_is_limit ? ", at most %s" : ", about %s", t);
    if (c.space_bytes && c.free_bytes && len > 0 && (size_t)len < n)
        snprintf(text + len, n - (size_t)len, "; %s free under %s", fr, r->dir[0]);
    return false;
}

/* The bytes part, its own lines: what the calibration and every
 * evaluation write, then the whole (for a burst sized at start, in the
 * disk's time: its bytes follow a rate nobody has measured yet) and the
 * free space. */
static void search_bytes(const struct search_cost *c, char *text, size_t n)
{
    char w[32], cal[32], b[32], fr[32], writing[32];
    units_format_bytes(c->write_bytes, w, sizeof w);
    units_format_bytes(c->calibration_bytes, cal, sizeof cal);
    units_format_bytes(c->burst_bytes, b, sizeof b);
    units_format_bytes(c->free_bytes, fr, sizeof fr);
    int len;
    /* Not the cap times the evaluations: "at most 424 GiB in all" on this
     * project's VM, where a quick tune wrote about 20 GiB (512 MiB a run).
     * A run writes for about BURST_TARGET_S whatever the disk, so the
     * whole is that many seconds of the disk's writing a run. */
    if (c->burst_sized) {
        units_format_clock_ms((long long)(c->plan.evals * BURST_TARGET_S * 1000), writing, sizeof writing);
        char most[64] = "";   /* the cap: half the free space or the memory that can hold dirty pages */
        if (c->burst_bytes) snprintf(most, sizeof most, " (at most %s)", b);
        len = snprintf(text, n, "\nWrites %s to calibrate, then the same burst every evaluation, about %.0f s of the "
                       "disk's writing%s, %s in all", cal, BURST_TARGET_S, most, writing);
        if (c->free_bytes && len > 0 && (size_t)len < n) snprintf(text + len, n - (size_t)len, "; %s free under %s.", fr, c->free_dir);
        else if (len > 0 && (size_t)len < n) snprintf(text + len, n - (size_t)len, ".");
        return;
    }
    if (c->burst_bytes && c->write_bytes)
        len = snprintf(text, n, "\nWrites %s to calibrate, then a burst of %s every evaluation.\n%s in all", cal, b, w);
    else if (c->burst_bytes)
        len = snprintf(text, n, "\nWrites %s to calibrate, then %s every evaluation", cal, b);
    else len = snprintf(text, n, "\nEach evaluation writes what the disk takes in its time");
    if (c->free_bytes && len > 0 && (size_t)len < n) snprintf(text + len, n - (size_t)len, "; %s free under %s.", fr, c->free_dir);
    else if (len > 0 && (size_t)len < n) snprintf(text + len, n - (size_t)len, ".");
}

bool form_cost_search(const struct search_flow_opts *o, char *text, size_t n)
{
    struct search_cost c;
    search_cost_estimate(o, &c);
    if (c.oracle) { snprintf(text, n, "Plan: replays stored runs from the oracle: nothing is written or measured."); return false; }
    const struct search_plan *p = &c.plan;
    char total[32], need[32], bytes[768] = "";
    job_clock_text((long long)(p->total_s * 1000), total, sizeof total);
    search_bytes(&c, bytes, sizeof bytes);
    if (c.over_budget) {
        if (c.run_known && o->spec.budget_ms > 0) {
            units_format_duration_ms(c.need_ms, need, sizeof need);   /* as Budget takes it */
            snprintf(text, n, "Budget cannot reach a verdict: at about %.1f s a run it buys %d evaluations, a verdict "
                     "needs %d (%s): give Budget %s or more.", p->run_s, p->evals, p->verdict_evals, need, need);
        } else {
            snprintf(text, n, "Budget cannot reach a verdict: %d evaluations, a verdict needs %d: give Budget %d or "
                     "more.", p->evals, p->verdict_evals, p->verdict_evals);
        }
        return true;
    }
    if (!c.plan_known) {
        char reps[96] = "";   /* Confirm runs given: what the plan will hold whatever the rate */
        if (o->spec.confirm_reps > 0)
            snprintf(reps, sizeof reps, " with %d fresh runs each of the baseline and the winner to confirm",
                     o->spec.confirm_reps);
        snprintf(text, n, "Plan: a run's time depends on the disk's rate, which the calibration run measures at "
                 "start; the plan follows it%s, and a budget it cannot afford is refused then.%s", reps, bytes);
        return false;
    }
    char run[64] = "";
    if (c.run_known) snprintf(run, sizeof run, " of about %.1f s, about %s in all", p->run_s, total);
    snprintf(text, n, "Plan: %d evaluations%s (%d exploring, %d fresh runs each of the baseline and the winner to "
             "confirm%s); it detects a change of %+.0f%% or more (at an assumed %.0f%% run-to-run spread).%s",
             p->evals, run, p->explore, p->confirm_reps, p->paired ? ", paired" : "", p->mde_pct, 100 * p->noise_sd, bytes);
    return false;
}
