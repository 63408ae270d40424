/* result — the one results model: allocation, and the metrics derived from
 * raw counts and histograms. */
#include "probe_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const op_names[PROBE_OP_NR] = { "read", "write", "sync", "meta" };
static const char *const status_names[] = { "ok", "warm", "aborted", "failed" };

const char *probe_op_name(enum probe_op op) { return op < PROBE_OP_NR ? op_names[op] : "?"; }
const char *probe_status_name(enum probe_status s) { return s <= PROBE_FAILED ? status_names[s] : "?"; }

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
}

void probe_result_free(struct probe_result *r)
{
    if (!r) return;
    probe_result_reset(r);
    free(r);
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
        rd->reads = rd->lat.n;
        rd->p50_ns = hist_percentile(&rd->lat, 50);
        rd->p99_ns = hist_percentile(&rd->lat, 99);
        rd->max_ns = rd->lat.n ? rd->lat.max_ns : 0;
    }
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

int probe_workload_count(void) { return workload_table_len; }
const char *probe_workload_name(int i) { return i >= 0 && i < workload_table_len ? workload_table[i]->name : NULL; }
