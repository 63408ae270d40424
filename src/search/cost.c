/* cost — a search's plan, bytes and time before it starts. */
#include "search/cost.h"
#include "search/burst.h"

#include <stdio.h>
#include <string.h>

/* The burst a calibration would size, at most: what burst_for_rate caps
 * it at whatever the disk's rate (half the free space, half the memory
 * that can hold dirty pages). */
static uint64_t sized_burst_cap(uint64_t free_bytes)
{
    uint64_t dirtyable = burst_dirtyable_now(), cap = dirtyable / 2;
    if (free_bytes && (!cap || free_bytes / 2 < cap)) cap = free_bytes / 2;
    return cap;
}

void search_cost_estimate(const struct search_flow_opts *o, struct search_cost *c)
{
    memset(c, 0, sizeof *c);
    if (o->oracle[0]) { c->oracle = true; return; }
    struct probe_spec spec = o->probe;
    probe_spec_default_dir(&spec);   /* an empty Directory: where the search will write */
    const struct probe_spec *p = &spec;
    double run_s = 0;
    if (p->ndirs) {
        snprintf(c->free_dir, sizeof c->free_dir, "%s", p->dir[0]);
        c->free_bytes = burst_free_under(p->dir[0]);
    }
    if (probe_spec_is_burst(p)) {
        uint64_t room = c->free_bytes / 4, one = BURST_CALIBRATION_BYTES;
        if (room && one > room) one = room;
        if (!p->size_bytes && !o->throttled) {
            c->calibration_bytes = one * BURST_CALIBRATION_RUNS;
            c->burst_sized = true;
            c->burst_bytes = sized_burst_cap(c->free_bytes);
            run_s = BURST_TARGET_S + 0.5;   /* the set-up, as run.c's run_seconds counts at least */
        } else {
            /* timed by the calibration at start: its rate is not known yet */
            c->calibration_bytes = one * BURST_CALIBRATION_RUNS;
            c->burst_bytes = p->size_bytes;
        }
    } else {
        struct probe_spec r = *p;
        sl_err e;
        if (probe_spec_resolve(&r, &e) == 0) {
            run_s = (double)(r.ramp_ms + r.time_ms) / 1000 + 0.5;
            if (r.fixed_work) c->burst_bytes = r.size_bytes;   /* sized from the dirty threshold in force */
        }
    }
    struct search_spec s = o->spec;
    c->run_known = run_s > 0;
    c->plan_known = c->run_known || (s.budget_evals > 0 && s.budget_ms <= 0);
    if (!c->plan_known) return;
    search_plan_make(&s, run_s, SEARCH_NOISE_SD_ASSUMED, &c->plan);
    search_plan_scale_confirmation(&s, &c->plan);
    c->over_budget = c->plan.evals < c->plan.verdict_evals;
    c->need_ms = c->run_known ? search_plan_verdict_ms(&c->plan) : 0;
    /* a sized burst's bytes follow the disk's rate, which only the
     * calibration measures: its whole is BURST_TARGET_S of writing a run */
    if (c->burst_bytes && !c->burst_sized) c->write_bytes = c->calibration_bytes + c->burst_bytes * (uint64_t)c->plan.evals;
}
