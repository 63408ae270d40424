/* render — the probe result as JSON and as the human summary. Both read
 * only struct probe_result, so they never disagree. */
#include "probe/probe_internal.h"
#include "core/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void probe_format_ns(double ns, char *buf, size_t n) { run_metric_format_ns(ns, buf, n); }

json_t *probe_json_real(double v) { return run_metric_json_real(v); }

static json_t *lat_json(const struct probe_lat *l)
{
    json_t *o = json_object();
    json_object_set_new(o, "min", json_integer((json_int_t)l->min_ns));
    json_object_set_new(o, "mean", probe_json_real(l->mean_ns));
    json_object_set_new(o, "stddev", probe_json_real(l->stddev_ns));
    json_object_set_new(o, "p50", json_integer((json_int_t)l->p50_ns));
    json_object_set_new(o, "p90", json_integer((json_int_t)l->p90_ns));
    json_object_set_new(o, "p99", json_integer((json_int_t)l->p99_ns));
    json_object_set_new(o, "p99.9", json_integer((json_int_t)l->p999_ns));
    json_object_set_new(o, "max", json_integer((json_int_t)l->max_ns));
    return o;
}

static json_t *spec_json(const struct probe_spec *s)
{
    json_t *o = json_object(), *dirs = json_array();
    for (int i = 0; i < s->ndirs; i++) json_array_append_new(dirs, json_string(s->dir[i]));
    json_object_set_new(o, "dir", dirs);
    json_object_set_new(o, "threads", json_integer(s->threads));
    json_object_set_new(o, "bs", json_integer((json_int_t)s->bs));
    json_object_set_new(o, "size_bytes", json_integer((json_int_t)s->size_bytes));
    json_object_set_new(o, "time_ms", json_integer((json_int_t)s->time_ms));
    json_object_set_new(o, "fixed_work", json_boolean(s->fixed_work));
    json_object_set_new(o, "ramp_ms", json_integer((json_int_t)s->ramp_ms));
    if (s->idle_ms) json_object_set_new(o, "idle_before_ms", json_integer((json_int_t)s->idle_ms));
    json_object_set_new(o, "direct", json_boolean(s->direct));
    json_object_set_new(o, "iodepth", json_integer(s->iodepth));
    json_object_set_new(o, "sync_every", json_integer(s->sync_every));
    json_object_set_new(o, "canary", json_boolean(s->canary > 0));
    if (s->loadfile_hash[0]) {
        json_object_set_new(o, "loadfile", json_string(s->loadfile[0] ? s->loadfile : "(built-in)"));
        json_object_set_new(o, "loadfile_sha256", json_string(s->loadfile_hash));
    }
    return o;
}

/* The instruments' own facts, beside the metrics the table puts in
 * (run_metric_json_put): an object per instrument, null when it did not run. */
static json_t *system_json(const struct probe_result *r, json_t *o)
{
    json_object_set_new(o, "cpu", json_object());
    const struct probe_disk *d = &r->disk;
    json_t *disk = json_null();
    if (d->available) {
        disk = json_object();
        json_object_set_new(disk, "name", json_string(d->name));
        json_object_set_new(disk, "aqu_sz", probe_json_real(d->aqu_sz));
        json_object_set_new(disk, "read_ios", json_integer((json_int_t)d->read_ios));
        json_object_set_new(disk, "write_ios", json_integer((json_int_t)d->write_ios));
        json_object_set_new(disk, "read_bytes", json_integer((json_int_t)d->read_bytes));
        json_object_set_new(disk, "write_bytes", json_integer((json_int_t)d->write_bytes));
        json_object_set_new(disk, "stat_fields", json_integer(d->fields));
    }
    json_object_set_new(o, "disk", disk);
    json_t *vm = json_null();
    if (r->vm.available) {
        vm = json_object();
        json_object_set_new(vm, "dirty_threshold_pages", json_integer((json_int_t)r->vm.dirty_threshold_pages));
        json_object_set_new(vm, "bg_threshold_pages", json_integer((json_int_t)r->vm.bg_threshold_pages));
        json_object_set_new(vm, "max_writeback_pages", json_integer((json_int_t)r->vm.max_writeback_pages));
        json_object_set_new(vm, "buffered_writes", json_boolean(r->vm.buffered_writes));
        json_object_set_new(vm, "reached_threshold", json_boolean(r->vm.reached_threshold));
    }
    json_object_set_new(o, "vm", vm);
    json_t *psi = json_null();
    if (r->psi.available) {
        psi = json_object();
        json_object_set_new(psi, "full_high", json_boolean((probe_stall_signals(r) & PROBE_STALL_PSI) != 0));
    }
    json_object_set_new(o, "psi_io", psi);
    const struct probe_canary *k = &r->canary;
    json_t *can = json_null();
    if (k->enabled) {
        can = json_object();
        json_object_set_new(can, "ticks", json_integer((json_int_t)k->ticks));
        json_object_set_new(can, "read_max_ns", json_integer((json_int_t)k->read_max_ns));
        json_t *save = json_object();
        json_object_set_new(save, "count", json_integer((json_int_t)k->saves));
        json_object_set_new(save, "max_ns", json_integer((json_int_t)k->save_max_ns));
        json_object_set_new(save, "p99_ns", json_integer((json_int_t)k->save_p99_ns));
        json_object_set_new(save, "over_100ms", json_integer((json_int_t)k->save_over_100ms));
        json_object_set_new(save, "over_1s", json_integer((json_int_t)k->save_over_1s));
        json_object_set_new(can, "editor_save", save);
    }
    json_object_set_new(o, "canary", can);
    const struct probe_reader *rd = &r->reader;
    json_t *reader = json_null();
    if (rd->enabled) {
        reader = json_object();
        json_object_set_new(reader, "direct", json_boolean(rd->direct));
        json_object_set_new(reader, "reads", json_integer((json_int_t)rd->reads));
        json_object_set_new(reader, "held_back", json_integer((json_int_t)rd->held_back));
        json_object_set_new(reader, "per_read_p99_ns", json_integer((json_int_t)rd->per_read_p99_ns));
    }
    json_object_set_new(o, "reader", reader);
    return o;
}

static json_t *phases_json(const struct probe_result *r)
{
    json_t *arr = json_array();
    for (int i = 0; i < r->nphases; i++) {
        const struct probe_phase *p = &r->phase[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(p->name));
        json_object_set_new(o, "threads", json_integer(p->threads));
        json_object_set_new(o, "ios", json_integer((json_int_t)p->ios));
        json_object_set_new(o, "bytes", json_integer((json_int_t)p->bytes));
        json_object_set_new(o, "mb_s", probe_json_real(p->mb_s));
        json_object_set_new(o, "iops", probe_json_real(p->iops));
        json_object_set_new(o, "cpu_pct", probe_json_real(p->cpu_pct));
        json_object_set_new(o, "lat_mean_ms", probe_json_real(p->lat_mean_ms));
        json_object_set_new(o, "lat_max_ms", probe_json_real(p->lat_max_ms));
        json_object_set_new(o, "pct_over_100ms", probe_json_real(p->pct_over_100ms));
        json_object_set_new(o, "pct_over_1s", probe_json_real(p->pct_over_1s));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *series_json(const struct probe_series *s)
{
    json_t *o = json_object(), *t = json_array(), *d = json_array(), *w = json_array(), *m = json_array();
    for (int i = 0; i < s->n; i++) {
        json_array_append_new(t, json_integer(s->t_ms[i]));
        json_array_append_new(d, json_integer((json_int_t)s->nr_dirty[i]));
        json_array_append_new(w, json_integer((json_int_t)s->nr_writeback[i]));
        json_array_append_new(m, probe_json_real(s->mb_s[i]));
    }
    json_object_set_new(o, "interval_ms", json_integer(s->interval_ms ? s->interval_ms : 100));
    json_object_set_new(o, "t_ms", t);
    json_object_set_new(o, "nr_dirty", d);
    json_object_set_new(o, "nr_writeback", w);
    json_object_set_new(o, "mb_s", m);
    return o;
}

json_t *probe_result_json(const struct probe_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "uuid", json_string(r->uuid));
    json_object_set_new(o, "batch", json_string(r->batch));
    json_object_set_new(o, "rep", json_integer(r->rep + 1));
    json_object_set_new(o, "reps", json_integer(r->reps));
    json_object_set_new(o, "workload", json_string(r->spec.workload));
    json_object_set_new(o, "status", json_string(probe_status_name(r->status)));
    json_object_set_new(o, "note", json_string(r->note));
    json_object_set_new(o, "started", json_string(r->started));
    /* a string: jq reads numbers as doubles and would round a 64-bit seed */
    json_object_set_new(o, "seed", json_sprintf("%llu", (unsigned long long)r->seed));
    json_object_set_new(o, "spec", spec_json(&r->spec));
    json_object_set_new(o, "hostname", json_string(r->hostname));
    json_object_set_new(o, "kernel", json_string(r->kernel));
    json_object_set_new(o, "config_hash", json_string(r->config_hash));
    json_object_set_new(o, "workload_hash", json_string(r->workload_hash));
    json_object_set_new(o, "cold", json_boolean(r->cold));
    int reached = probe_threshold_reached(r);
    json_object_set_new(o, "dirty_threshold_reached", reached < 0 ? json_null() : json_boolean(reached));
    json_object_set_new(o, "external_stall", r->canary.enabled ? json_boolean(probe_external_stall(r)) : json_null());
    json_object_set_new(o, "ramp_s", probe_json_real(r->ramp_s));
    json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
    json_object_set_new(o, "rewritten_bytes", json_integer((json_int_t)r->rewritten_bytes));
    json_object_set_new(o, "ios", json_integer((json_int_t)r->ios));
    json_t *ops = json_object();
    for (int op = 0; op < PROBE_OP_NR; op++) {
        const struct probe_op_result *x = &r->op[op];
        if (!x->ios) continue;
        json_t *j = json_object();
        json_object_set_new(j, "ios", json_integer((json_int_t)x->ios));
        json_object_set_new(j, "bytes", json_integer((json_int_t)x->bytes));
        json_object_set_new(j, "mb_s", probe_json_real(x->mb_s));
        json_object_set_new(j, "iops", probe_json_real(x->iops));
        json_object_set_new(j, "lat_ns", lat_json(&x->lat));
        json_object_set_new(ops, probe_op_name(op), j);
    }
    json_object_set_new(o, "ops", ops);
    system_json(r, o);
    json_object_set_new(o, "phases", phases_json(r));
    run_metric_json_put(o, &r->m);
    json_object_set_new(o, "series", series_json(&r->series));
    return o;
}

unsigned probe_stall_signals(const struct probe_result *r)
{
    unsigned s = 0;
    if (r->canary.enabled && r->canary.sleep_max_ns >= PROBE_EXTERNAL_STALL_NS) s |= PROBE_STALL_CANARY;
    if (r->psi.available && r->psi.full_pct >= PROBE_PSI_FULL_STALL_PCT) s |= PROBE_STALL_PSI;
    return s;
}

bool probe_external_stall(const struct probe_result *r)
{
    return (probe_stall_signals(r) & PROBE_STALL_CANARY) != 0;
}

void probe_stall_note(const struct probe_result *r, char *buf, size_t n)
{
    unsigned sig = probe_stall_signals(r);
    int l = 0;
    buf[0] = 0;
    if (sig & PROBE_STALL_CANARY)
        l = snprintf(buf, n, "EXTERNAL STALL: the canary's 100 ms sleep overslept by %.0f ms (CPU starvation, a host "
                     "pause or reclaim, not this workload's I/O): kept and flagged; a search leaves it out of its "
                     "decisions", (double)r->canary.sleep_max_ns / 1e6);
    if ((sig & PROBE_STALL_PSI) && l >= 0 && (size_t)l < n)
        snprintf(buf + l, n - (size_t)l, "%sPSI io full %.0f%% of the run (the workload's own waits count here): "
                 "kept; a search shows it and keeps the run", l ? "; " : "", r->psi.full_pct);
}

int probe_threshold_reached(const struct probe_result *r)
{
    if (!r->vm.available || !r->vm.buffered_writes || !r->vm.dirty_threshold_pages) return -1;
    if (r->status == PROBE_ABORTED || r->status == PROBE_FAILED) return -1;   /* cut short: no verdict */
    return r->vm.reached_threshold ? 1 : 0;
}

/* --- human summary ---------------------------------------------------- */

static void print_op(const struct probe_op_result *x, const char *name, FILE *out)
{
    char mn[24], me[24], p50[24], p90[24], p99[24], p999[24], mx[24];
    probe_format_ns((double)x->lat.min_ns, mn, sizeof mn);
    probe_format_ns(x->lat.mean_ns, me, sizeof me);
    probe_format_ns((double)x->lat.p50_ns, p50, sizeof p50);
    probe_format_ns((double)x->lat.p90_ns, p90, sizeof p90);
    probe_format_ns((double)x->lat.p99_ns, p99, sizeof p99);
    probe_format_ns((double)x->lat.p999_ns, p999, sizeof p999);
    probe_format_ns((double)x->lat.max_ns, mx, sizeof mx);
    if (x->bytes) fprintf(out, "  %-6s %10.1f MB/s %10.0f IOPS", name, x->mb_s, x->iops);
    else fprintf(out, "  %-6s %10llu ops %12.0f /s", name, (unsigned long long)x->ios, x->iops);
    fprintf(out, "   lat min %s mean %s p50 %s p90 %s p99 %s p99.9 %s max %s\n", mn, me, p50, p90, p99, p999, mx);
}

/* A metric group's line: its name, then what the table holds for it. */
static void print_group(const struct probe_result *r, enum run_metric_group g, const char *before, const char *after,
                        FILE *out)
{
    char line[512];
    run_metric_group_text(&r->m, g, line, sizeof line);
    if (line[0]) fprintf(out, "  %-6s %s%s%s\n", run_metric_group_name(g), before, line, after);
}

static void print_system(const struct probe_result *r, FILE *out)
{
    print_group(r, MG_CPU, "", "", out);
    const struct probe_disk *d = &r->disk;
    if (d->available) {
        char rb[24], wb[24], head[80], tail[80];
        units_format_bytes(d->read_bytes, rb, sizeof rb);
        units_format_bytes(d->write_bytes, wb, sizeof wb);
        snprintf(head, sizeof head, "%s ", d->name);
        snprintf(tail, sizeof tail, "  read %s  written %s", rb, wb);
        print_group(r, MG_DISK, head, tail, out);
    } else if (r->spec.ndirs > 0) {
        fprintf(out, "  disk   unavailable (no block device under %s)\n", r->spec.dir[0]);
    }
    if (r->vm.available) {
        char tail[160];
        int l = snprintf(tail, sizeof tail, " + %llu writeback pages", (unsigned long long)r->vm.max_writeback_pages);
        if (r->vm.dirty_threshold_pages)
            l += snprintf(tail + l, sizeof tail - (size_t)l, "; threshold %llu, background %llu",
                          (unsigned long long)r->vm.dirty_threshold_pages, (unsigned long long)r->vm.bg_threshold_pages);
        else
            l += snprintf(tail + l, sizeof tail - (size_t)l, "; thresholds not in /proc/vmstat (before 2.6.29)");
        if (r->vm.buffered_writes)
            snprintf(tail + l, sizeof tail - (size_t)l, " (%s)", r->vm.reached_threshold ? "reached" : "NOT reached");
        print_group(r, MG_DIRTY, "", tail, out);
    }
    print_group(r, MG_PSI, "", "", out);
    const struct probe_canary *k = &r->canary;
    if (k->enabled) {
        char head[48];
        snprintf(head, sizeof head, "%llu ticks  ", (unsigned long long)k->ticks);
        print_group(r, MG_CANARY, head, "", out);
        if (k->saves) {
            char mx[24], p99[24];
            probe_format_ns((double)k->save_max_ns, mx, sizeof mx);
            probe_format_ns((double)k->save_p99_ns, p99, sizeof p99);
            fprintf(out, "  save   %llu editor saves (4 KiB write + fsync every 0.5 s)  max %s p99 %s  >100ms %llu  "
                         ">1s %llu\n", (unsigned long long)k->saves, mx, p99, (unsigned long long)k->save_over_100ms,
                    (unsigned long long)k->save_over_1s);
        }
    }
    const struct probe_reader *rd = &r->reader;
    if (rd->enabled && rd->reads) {
        char head[96];
        snprintf(head, sizeof head, "%llu reads beside it (4 KiB %s, depth 1, every 2 ms)  ",
                 (unsigned long long)rd->reads, rd->direct ? "O_DIRECT" : "uncached");
        print_group(r, MG_READER, head, "", out);
    }
}

static void print_phases(const struct probe_result *r, FILE *out)
{
    if (!r->nphases) return;
    fprintf(out, "  %-22s %7s %10s %10s %7s %11s %11s %8s %8s\n", "phase", "threads", "MB/s", "IOPS", "CPU%",
            "lat avg ms", "lat max ms", "% >100ms", "% >1s");
    for (int i = 0; i < r->nphases; i++) {
        const struct probe_phase *p = &r->phase[i];
        fprintf(out, "  %-22s %7d %10.2f %10.0f %7.1f %11.3f %11.3f %8.5f %8.5f\n", p->name, p->threads, p->mb_s,
                p->iops, p->cpu_pct, p->lat_mean_ms, p->lat_max_ms, p->pct_over_100ms, p->pct_over_1s);
    }
}

bool probe_result_print_own(const struct probe_result *r, FILE *out)
{
    const struct probe_workload_ops *ops = workload_find(r->spec.workload);
    return ops && ops->print && ops->print(r, out);
}

void probe_result_print(const struct probe_result *r, FILE *out)
{
    const struct probe_spec *s = &r->spec;
    char bs[24], size[24];
    units_format_bytes(s->bs, bs, sizeof bs);
    units_format_bytes(s->size_bytes, size, sizeof size);
    fprintf(out, "%s", s->workload);
    if (s->ndirs) fprintf(out, " in %s%s%s%s", s->dir[0], r->disk.available ? " (" : "", r->disk.name,
                          r->disk.available ? ")" : "");
    for (int i = 1; i < s->ndirs; i++) fprintf(out, ", %s", s->dir[i]);
    char span[64];
    if (s->fixed_work) snprintf(span, sizeof span, "fixed work (written once, fsync timed)");
    else snprintf(span, sizeof span, "%g s + %g s ramp", (double)s->time_ms / 1000, (double)s->ramp_ms / 1000);
    char psi[48] = "";
    if (probe_stall_signals(r) & PROBE_STALL_PSI) snprintf(psi, sizeof psi, ", PSI io full %.0f%% of the run", r->psi.full_pct);
    fprintf(out, ": %d thread%s, bs %s, size %s, %s%s%s, seed %llu, run %d/%d: %s%s%s%s%s\n", s->threads,
            s->threads == 1 ? "" : "s", bs, size, span,
            s->direct ? ", O_DIRECT" : "", s->iodepth > 1 ? ", io_uring" : "", (unsigned long long)r->seed, r->rep + 1,
            r->reps, probe_status_name(r->status),
            probe_threshold_reached(r) == 0 ? ", dirty threshold NOT reached" : "",
            r->rewritten_bytes ? ", REWROTE its own pages" : "", probe_external_stall(r) ? ", EXTERNAL STALL" : "", psi);
    bool phases_done = probe_result_print_own(r, out);
    print_group(r, MG_RUN, "", r->cold ? ", cold cache" : "", out);
    for (int op = 0; op < PROBE_OP_NR; op++)
        if (r->op[op].ios) print_op(&r->op[op], probe_op_name(op), out);
    print_group(r, MG_LAT, "read + write ", "", out);
    if (!phases_done) print_phases(r, out);
    print_system(r, out);
    fprintf(out, "  config %.12s  workload %.12s  kernel %s\n", r->config_hash, r->workload_hash, r->kernel);
    if (r->note[0]) fprintf(out, "  note: %s\n", r->note);
}
