/* cost — a probe's bytes, space and time before it runs. */
#include "probe/cost.h"
#include "probe/workload.h"

#include <string.h>
#include <sys/statvfs.h>

void probe_cost_estimate(const struct probe_spec *r, struct probe_cost *c)
{
    memset(c, 0, sizeof *c);
    const struct probe_workload_ops *ops = workload_find(r->workload);
    unsigned flags = ops ? ops->flags : WL_NO_IO;
    double per_run = (double)(r->idle_ms + r->ramp_ms + r->time_ms) / 1000;
    int reps = r->repeat > 0 ? r->repeat : 1;
    c->time_s = per_run * reps;
    c->time_is_limit = r->fixed_work;
    if ((flags & WL_NO_IO) || r->ndirs == 0) return;
    struct statvfs v;
    if (statvfs(r->dir[0], &v) == 0 && v.f_blocks) c->free_bytes = (uint64_t)v.f_bavail * v.f_frsize;
    c->space_bytes = probe_space_need(r);
    if (r->fixed_work) c->write_bytes = r->size_bytes * (uint64_t)reps;   /* fresh files each repetition */
    else if (flags & WL_WRITES) c->write_timed = true;
    else {
        c->reads_only = true;
        c->write_bytes = r->size_bytes;   /* laid out once with real data */
    }
}
