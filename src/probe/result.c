/* result — the one results model: allocation, and the metrics derived from
 * raw counts and histograms. */
#include "probe/probe_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[PROBE_OP_NR] = { "read", "write", "sync", "meta" };
static const char *const status_names[] = { "ok", "warm", "aborted", "failed" };

const char *probe_op_name(enum probe_op op) { return op < PROBE_OP_NR ? op_names[op] : "?"; }
const char *probe_status_name(enum probe_status s) { return s <= PROBE_FAILED ? status_names[s] : "?"; }

const char *probe_state_name(int state)
{
    static const char *const names[] = {
#define PROBE_STATE_WORDS(id, words) words,
        PROBE_STATES(PROBE_STATE_WORDS)
#undef PROBE_STATE_WORDS
    };
    return state >= 0 && state < (int)(sizeof names / sizeof names[0]) ? names[state] : "?";
}

struct probe_result *probe_result_new(void)
{
    struct probe_result *r = xcalloc(1, sizeof *r);
    probe_result_reset(r);
    return r;
}

void probe_result_reset(struct probe_result *r)
{
    free(r->config_text);
    free(r->series.t_ms);
    free(r->series.nr_dirty);
    free(r->series.nr_writeback);
    free(r->series.mb_s);
    memset(r, 0, sizeof *r);
    for (int op = 0; op < PROBE_OP_NR; op++) hist_init(&r->op[op].hist);
    hist_init(&r->canary.stall);
    hist_init(&r->canary.save);
    hist_init(&r->reader.lat);
    hist_init(&r->reader.per_read);
    run_metric_clear(&r->m);
}

void probe_result_free(struct probe_result *r)
{
    if (!r) return;
    probe_result_reset(r);
    free(r);
}

/* NAN unless the instrument that measures it ran. */
static double when(bool measured, double v) { return measured ? v : NAN; }

/* The metric table's values (core/run_metric_table.h) of r, into r->m:
 * the code that measures each row. */
static void measure(struct probe_result *r)
{
    struct run_metrics *m = &r->m;
    run_metric_clear(m);
    m->wall_s = r->wall_s;
    m->mb_s = r->mb_s;
    m->iops = r->iops;
    m->read_mb_s = r->op[PROBE_READ].mb_s;
    m->write_mb_s = r->op[PROBE_WRITE].mb_s;
    /* read + write latency in one histogram: what "the" latency of a run is */
    struct hist h;
    hist_init(&h);
    hist_merge(&h, &r->op[PROBE_READ].hist);
    hist_merge(&h, &r->op[PROBE_WRITE].hist);
    m->lat_mean_ns = when(h.n, h.mean_ns);
    m->lat_p50_ns = when(h.n, (double)hist_percentile(&h, 50));
    m->lat_p99_ns = when(h.n, (double)hist_percentile(&h, 99));
    m->lat_p999_ns = when(h.n, (double)hist_percentile(&h, 99.9));
    m->lat_max_ns = when(h.n, (double)h.max_ns);
    const struct probe_op_result *w = &r->op[PROBE_WRITE];
    m->write_p99_ns = when(w->ios, (double)w->lat.p99_ns);
    m->cpu_usr_pct = r->cpu_usr_pct;
    m->cpu_sys_pct = r->cpu_sys_pct;
    m->cpu_us_per_io = r->cpu_us_per_io;
    m->ctx_switches = (double)r->ctx_switches;
    const struct probe_disk *d = &r->disk;
    m->dev_util_pct = when(d->available, d->util_pct);
    m->dev_await_ms = when(d->available, d->await_ms);
    /* the disk's field 11 (weighted ms doing I/O) over the window's ms */
    m->dev_queue_depth_avg = when(d->available, d->aqu_sz);
    m->psi_some_pct = when(r->psi.available, r->psi.some_pct);
    m->psi_full_pct = when(r->psi.available, r->psi.full_pct);
    const struct probe_canary *k = &r->canary;
    m->canary_max_ns = when(k->enabled, (double)k->max_ns);
    m->canary_p99_ns = when(k->enabled, (double)k->p99_ns);
    m->canary_sleep_max_ns = when(k->enabled, (double)k->sleep_max_ns);
    m->stalls_100ms = when(k->enabled, (double)k->over_100ms);
    m->stalls_1s = when(k->enabled, (double)k->over_1s);
    m->stalls_2s = when(k->enabled, (double)k->over_2s);
    m->max_dirty_pages = when(r->vm.available, (double)r->vm.max_dirty_pages);
    const struct probe_reader *rd = &r->reader;
    m->reader_p50_ns = when(rd->enabled, (double)rd->p50_ns);
    m->reader_p99_ns = when(rd->enabled, (double)rd->p99_ns);
    m->reader_max_ns = when(rd->enabled, (double)rd->max_ns);
    m->reader_read_p99_ns = when(rd->enabled, (double)rd->per_read_p99_ns);
}

static void lat_summary(const struct hist *h, struct probe_lat *l)
{
    memset(l, 0, sizeof *l);
    if (h->n == 0) return;
    l->min_ns = h->min_ns;
    l->max_ns = h->max_ns;
    l->mean_ns = h->mean_ns;
    l->stddev_ns = hist_stddev(h);
    l->p50_ns = hist_percentile(h, 50);
    l->p90_ns = hist_percentile(h, 90);
    l->p99_ns = hist_percentile(h, 99);
    l->p999_ns = hist_percentile(h, 99.9);
}

void probe_result_compute(struct probe_result *r)
{
    double wall = r->wall_s;
    r->ios = r->bytes = 0;
    for (int op = 0; op < PROBE_OP_NR; op++) {
        struct probe_op_result *o = &r->op[op];
        o->mb_s = wall > 0 ? (double)o->bytes / wall / 1e6 : 0;
        o->iops = wall > 0 ? (double)o->ios / wall : 0;
        lat_summary(&o->hist, &o->lat);
        if (op == PROBE_READ || op == PROBE_WRITE) {
            r->ios += o->ios;
            r->bytes += o->bytes;
        }
    }
    r->mb_s = wall > 0 ? (double)r->bytes / wall / 1e6 : 0;
    r->iops = wall > 0 ? (double)r->ios / wall : 0;
    r->cpu_usr_pct = wall > 0 ? 100.0 * r->cpu_usr_s / wall : 0;
    r->cpu_sys_pct = wall > 0 ? 100.0 * r->cpu_sys_s / wall : 0;
    uint64_t all_ios = r->ios + r->op[PROBE_SYNC].ios + r->op[PROBE_META].ios;
    r->cpu_us_per_io = all_ios ? (r->cpu_usr_s + r->cpu_sys_s) * 1e6 / (double)all_ios : 0;
    struct probe_canary *k = &r->canary;
    if (k->enabled) {
        k->ticks = k->stall.n;
        k->max_ns = k->stall.n ? k->stall.max_ns : 0;
        k->p99_ns = hist_percentile(&k->stall, 99);
        /* over_* are counted exactly by the canary itself */
        k->saves = k->save.n;
        k->save_max_ns = k->save.n ? k->save.max_ns : 0;
        k->save_p99_ns = hist_percentile(&k->save, 99);
    }
    struct probe_reader *rd = &r->reader;
    if (rd->enabled) {
        rd->reads = rd->lat.n - rd->held_back;
        rd->per_read_p99_ns = hist_percentile(&rd->per_read, 99);
        rd->p50_ns = hist_percentile(&rd->lat, 50);
        rd->p99_ns = hist_percentile(&rd->lat, 99);
        rd->max_ns = rd->lat.n ? rd->lat.max_ns : 0;
    }
    measure(r);
}

const struct probe_workload_ops *workload_find(const char *name)
{
    for (int i = 0; i < workload_table_len; i++)
        if (strcmp(workload_table[i]->name, name) == 0) return workload_table[i];
    return NULL;
}

const char *probe_workload_summary(const char *name)
{
    const struct probe_workload_ops *w = workload_find(name);
    return w ? w->summary : NULL;
}

bool probe_workload_takes_loadfile(const char *name)
{
    const struct probe_workload_ops *w = workload_find(name);
    return w && (w->flags & WL_LOADFILE);
}

bool probe_workload_fixed_work(const char *name)
{
    const struct probe_workload_ops *w = workload_find(name);
    return w && (w->flags & WL_FIXED_WORK);
}

int probe_workload_count(void) { return workload_table_len; }
const char *probe_workload_name(int i) { return i >= 0 && i < workload_table_len ? workload_table[i]->name : NULL; }
