/* eval_probe — measuring for real: put the configuration in place inside
 * the search's session (the baseline by putting the snapshot back exactly,
 * anything else as one knobset), run one repetition of the probe engine,
 * store the run, and read the metrics off the one results model. */
#include "search/eval_probe.h"
#include "probe/probe_store.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

struct probe_eval {
    struct probe_spec spec;
    struct session *session;
    store *st;
    uint64_t seed;
    int nrun;
    char text[1024], hash[65];   /* the workload every run must have */
};

/* The largest dirty limit in bytes a configuration of sp can set: the top
 * level of its dirty dimension (ratio or bytes), or the limit in force
 * when that is larger (a space without a dirty dimension keeps it). */
static uint64_t largest_dirty_limit(const struct space *sp)
{
    uint64_t most = probe_dirty_limit_now();
    for (int d = 0; d < sp->ndims; d++) {
        const struct space_dim *dm = &sp->dim[d];
        if (dm->role != ROLE_DIRTY || dm->kind != DIM_ORDINAL || dm->nlevels == 0) continue;
        long long top = dm->num[dm->nlevels - 1];
        if (top <= 0) continue;
        uint64_t lim = strstr(dm->knob, "bytes") ? (uint64_t)top : probe_dirty_limit_at(top > 100 ? 100 : (int)top);
        if (lim > most) most = lim;
    }
    return most;
}

int search_workload_fix(struct probe_spec *spec, const struct space *sp, struct search_workload *w, sl_err *e)
{
    memset(w, 0, sizeof *w);
    if (probe_spec_size_for_limit(spec, largest_dirty_limit(sp), w->note, sizeof w->note, &w->capped, e) < 0) return -1;
    if (probe_spec_resolve(spec, e) < 0) return -1;
    probe_workload_text(spec, w->text, sizeof w->text, w->hash);
    probe_regime_text(w->text, w->regime, sizeof w->regime);
    return 0;
}

void search_workload_line(const struct search_workload *w, char *buf, size_t n)
{
    snprintf(buf, n, "%s", w->text);
    size_t l = strlen(buf);
    while (l > 0 && buf[l - 1] == '\n') buf[--l] = 0;
    for (char *p = buf; *p; p++)
        if (*p == '\n') *p = ' ';
}

json_t *search_workload_json(const struct search_workload *w)
{
    return json_pack("{s:s,s:s,s:s,s:b,s:s}", "hash", w->hash, "text", w->text, "sizing", w->note, "threshold_capped",
                     w->capped, "regime", w->regime);
}

/* A probe result's metrics as a search sees them. */
static void eval_probe_metrics(const struct probe_result *r, struct eval_metrics *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->run_uuid, sizeof m->run_uuid, "%s", r->uuid);
    m->v[MET_THROUGHPUT] = r->mb_s;
    m->has[MET_THROUGHPUT] = true;
    struct hist h;
    hist_init(&h);
    hist_merge(&h, &r->op[PROBE_READ].hist);
    hist_merge(&h, &r->op[PROBE_WRITE].hist);
    if (h.n > 0) {
        m->v[MET_P99] = (double)hist_percentile(&h, 99) / 1e6;
        m->has[MET_P99] = true;
    }
    eval_metrics_set_stall(m, probe_stall_signals(r));
    if (r->canary.enabled) {
        m->stall_ms = (double)r->canary.sleep_max_ns / 1e6;
        m->v[MET_CANARY_P99] = (double)r->canary.p99_ns / 1e6;
        m->v[MET_STALLS] = (double)r->canary.over_100ms;
        m->has[MET_CANARY_P99] = m->has[MET_STALLS] = true;
    }
    if (r->mb_s > 0) {
        m->v[MET_CPU_PER_MB] = (r->cpu_usr_pct + r->cpu_sys_pct) * 10 / r->mb_s;
        m->has[MET_CPU_PER_MB] = true;
    }
    /* the collateral: what the verdict's side-effects table compares */
    if (r->reader.enabled && r->reader.reads) {
        m->v[MET_READER_P50] = (double)r->reader.p50_ns / 1e6;
        m->v[MET_READER_P99] = (double)r->reader.p99_ns / 1e6;
        m->v[MET_READER_MAX] = (double)r->reader.max_ns / 1e6;
        m->v[MET_READER_READ_P99] = (double)r->reader.per_read_p99_ns / 1e6;
        m->has[MET_READER_P50] = m->has[MET_READER_P99] = m->has[MET_READER_MAX] = m->has[MET_READER_READ_P99] = true;
    }
    if (r->op[PROBE_WRITE].ios) {
        m->v[MET_WRITE_P99] = (double)r->op[PROBE_WRITE].lat.p99_ns / 1e6;
        m->has[MET_WRITE_P99] = true;
    }
    int zone = probe_threshold_reached(r);
    m->zone_known = zone >= 0;
    m->zone_reached = zone > 0;
    if (r->psi.available) {
        m->v[MET_PSI_SOME] = r->psi.some_pct;
        m->v[MET_PSI_FULL] = r->psi.full_pct;
        m->has[MET_PSI_SOME] = m->has[MET_PSI_FULL] = true;
    }
}

static int put_in_place(struct probe_eval *pe, const struct space *sp, const struct search_config *c, bool baseline,
                        sl_err *e)
{
    if (baseline) {
        struct restore_report rep = { 0 };
        if (session_put_back_own(pe->session, &rep, e) < 0) {
            restore_report_free(&rep);
            return -1;
        }
        int failed = rep.failed;
        char first[512] = "";
        for (int i = 0; i < rep.n && !first[0]; i++)
            if (rep.items[i].status == RESTORE_FAILED) snprintf(first, sizeof first, "%s: %s", rep.items[i].knob, rep.items[i].msg);
        restore_report_free(&rep);
        if (failed) return sl_fail(e, SL_EFAIL, "putting the baseline back failed for %d knob(s) (%s)", failed, first);
        return 0;
    }
    struct knobset ks = { 0 };
    int rc = space_to_knobset(sp, c, &ks, e);
    if (rc == 0) rc = knobset_prepare(&ks, e);
    if (rc == 0) rc = knobset_apply(&ks, pe->session, e);
    knobset_free(&ks);
    return rc;
}

/* The room the previous evaluation's scratch files held counts as free
 * only once the filesystem has committed their removal (ext4 returns an
 * unlinked file's blocks at the next journal commit, seconds later), and a
 * volume sized to half the free space would otherwise find half of it
 * gone: commit before the next probe checks its room. */
static void commit_dirs(const struct probe_spec *s)
{
    for (int i = 0; i < s->ndirs; i++) {
        int fd = open(s->dir[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) continue;
        (void)syncfs(fd);
        close(fd);
    }
}

static uint64_t free_under(const struct probe_spec *s)
{
    struct statvfs v;
    return s->ndirs && statvfs(s->dir[0], &v) == 0 ? (uint64_t)v.f_bavail * v.f_frsize : 0;
}

/* probe_open, tried again while a refusal (no room) meets free space that
 * is still growing: what the previous evaluation removed can come back
 * late (seen once on ext4 over a loop device: 9.3 of 19 GiB free right
 * after a 9.2 GiB probe file was removed). At most 30 s. */
static int open_probe(struct probe_eval *pe, const struct probe_spec *spec, struct probe **p, sl_err *e)
{
    for (int waited = 0;; waited++) {
        commit_dirs(spec);
        uint64_t before = free_under(spec);
        if (probe_open_recorded(spec, pe->st, p, e) == 0) return 0;
        if (e->status != SL_EUSAGE || waited >= 30) return -1;
        struct timespec ts = { 1, 0 };
        nanosleep(&ts, NULL);
        commit_dirs(spec);
        if (free_under(spec) <= before) return -1;
    }
}

static int probe_evaluate(void *ctx, const struct space *sp, const struct search_config *c, bool baseline,
                          struct eval_metrics *out, sl_err *e)
{
    struct probe_eval *pe = ctx;
    if (put_in_place(pe, sp, c, baseline, e) < 0) return -1;
    struct probe_spec spec = pe->spec;
    spec.repeat = 1;
    /* a fresh, reproducible seed per evaluation */
    spec.seed = pe->seed * 1000003ULL + (uint64_t)pe->nrun++;
    spec.seed_set = true;
    struct probe *p;
    if (open_probe(pe, &spec, &p, e) < 0) return -1;
    struct probe_result *r = probe_result_new();
    int rc = probe_rep(p, 0, r, NULL, e);
    sl_err se;
    if (pe->st && probe_store(pe->st, r, &se) < 0 && rc == 0) {
        *e = se;
        rc = -1;
    }
    if (rc == 0 && strcmp(r->workload_hash, pe->hash) != 0) {
        char diff[256];
        probe_workload_diff(pe->text, r->workload_text, diff, sizeof diff);
        rc = sl_fail(e, SL_EFAIL, "run %.8s measured another workload than the search fixed (%s): a comparison needs the "
                     "same work for every configuration", r->uuid, diff);
    }
    if (rc == 0) eval_probe_metrics(r, out);
    probe_result_free(r);
    probe_close(p);
    return rc;
}

static void probe_destroy(void *ctx) { free(ctx); }

static const struct evaluator_ops probe_ops = {
    .name = "probe", .evaluate = probe_evaluate, .destroy = probe_destroy,
};

int evaluator_probe(struct evaluator *ev, const struct probe_spec *spec, struct session *s, store *st, uint64_t seed,
                    sl_err *e)
{
    struct probe_spec check = *spec;
    if (probe_spec_resolve(&check, e) < 0) return -1;
    struct probe_eval *pe = xcalloc(1, sizeof *pe);
    probe_workload_text(&check, pe->text, sizeof pe->text, pe->hash);
    pe->spec = *spec;
    pe->session = s;
    pe->st = st;
    pe->seed = seed;
    ev->ops = &probe_ops;
    ev->ctx = pe;
    return 0;
}
