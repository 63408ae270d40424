/* engine — runs one measured phase: threads released together from a
 * barrier, a ramp, the measured window, and the calling thread sampling
 * /proc/vmstat every 100 ms meanwhile; then the per-thread histograms are
 * merged (never averaged). */
#include "probe/workload.h"
#include "core/interrupt.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_NS 100000000ull

uint64_t probe_splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void probe_seed_rng(uint64_t rng[4], uint64_t seed)
{
    uint64_t s = seed;
    for (int i = 0; i < 4; i++) rng[i] = probe_splitmix(&s);
}

void probe_fill_random(unsigned char *buf, size_t len, uint64_t seed)
{
    uint64_t s = seed;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t v = probe_splitmix(&s);
        memcpy(buf + i, &v, 8);
    }
    for (; i < len; i++) buf[i] = (unsigned char)probe_splitmix(&s);
}

void probe_begin_measure(struct probe_thread *t)
{
    t->measuring = true;
    getrusage(RUSAGE_THREAD, &t->ru0);
}

int probe_thread_fail(struct probe_thread *t, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->errmsg, sizeof t->errmsg, fmt, ap);
    va_end(ap);
    if (errnum && n >= 0 && (size_t)n < sizeof t->errmsg)
        snprintf(t->errmsg + n, sizeof t->errmsg - (size_t)n, ": %s", strerror(errnum));
    t->err = errnum ? errnum : EIO;
    return -1;
}

/* The start barrier: workers check in, then wait for `go` (1 start, -1 give
 * up: thread creation failed part-way). A mutex and condition variables
 * rather than pthread_barrier_t so a half-started phase can be called off. */
struct phase {
    struct probe_ctx *c;
    int (*fn)(struct probe_thread *);
    pthread_mutex_t mu;
    pthread_cond_t ready_cv, go_cv;
    int ready, go;
    _Atomic int finished;
};

static int gate_wait(struct phase *ph)
{
    pthread_mutex_lock(&ph->mu);
    ph->ready++;
    pthread_cond_signal(&ph->ready_cv);
    while (!ph->go) pthread_cond_wait(&ph->go_cv, &ph->mu);
    int go = ph->go;
    pthread_mutex_unlock(&ph->mu);
    return go;
}

static void gate_open(struct phase *ph, int nready, int go)
{
    pthread_mutex_lock(&ph->mu);
    while (ph->ready < nready) pthread_cond_wait(&ph->ready_cv, &ph->mu);
    ph->go = go;
    pthread_cond_broadcast(&ph->go_cv);
    pthread_mutex_unlock(&ph->mu);
}

struct thread_arg {
    struct phase *ph;
    struct probe_thread *t;
};

static void *thread_main(void *arg)
{
    struct thread_arg *ta = arg;
    struct probe_thread *t = ta->t;
    if (gate_wait(ta->ph) < 0) return NULL;
    if (t->ramp_end_ns <= probe_now_ns()) probe_begin_measure(t);
    if (ta->ph->fn(t) < 0 && !t->err) t->err = EIO;
    t->done_ns = probe_now_ns();
    if (t->measuring) getrusage(RUSAGE_THREAD, &t->ru1);
    atomic_fetch_add(&ta->ph->finished, 1);
    return NULL;
}

static double tv_s(struct timeval a, struct timeval b)
{
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_usec - a.tv_usec) / 1e6;
}

static bool abort_requested(struct probe_ctx *c)
{
    return interrupt_signal || (c->progress && atomic_load(&c->progress->stop));
}

static void series_append(struct probe_result *r, uint32_t t_ms, const struct vmstat *v, double mb_s)
{
    struct probe_series *s = &r->series;
    if (s->n >= PROBE_SERIES_CAP) return;
    if (!s->t_ms) {
        s->t_ms = xcalloc(PROBE_SERIES_CAP, sizeof *s->t_ms);
        s->nr_dirty = xcalloc(PROBE_SERIES_CAP, sizeof *s->nr_dirty);
        s->nr_writeback = xcalloc(PROBE_SERIES_CAP, sizeof *s->nr_writeback);
        s->mb_s = xcalloc(PROBE_SERIES_CAP, sizeof *s->mb_s);
        s->interval_ms = SAMPLE_NS / 1000000;
    }
    s->t_ms[s->n] = t_ms;
    s->nr_dirty[s->n] = v->nr_dirty;
    s->nr_writeback[s->n] = v->nr_writeback;
    s->mb_s[s->n] = mb_s;
    s->n++;
}

static uint64_t total_bytes(struct probe_thread *th, int n)
{
    uint64_t b = 0;
    for (int i = 0; i < n; i++) b += atomic_load_explicit(&th[i].pub_bytes, memory_order_relaxed);
    return b;
}

/* The calling thread's job while workers run: window edges, samples,
 * progress, and turning an interrupt into a stop. */
static void sample_loop(struct probe_ctx *c, struct phase *ph, struct probe_thread *th, int n, uint64_t t0,
                        uint64_t ramp_end)
{
    struct probe_result *r = c->result;
    struct probe_progress *pg = c->progress;
    struct disk_sample d0;
    struct psi_sample p0;
    bool window = false;
    uint64_t next = t0 + SAMPLE_NS, last_bytes = 0, last_t = t0;
    while (atomic_load(&ph->finished) < n) {
        uint64_t target = next;
        if (!window && ramp_end < target) target = ramp_end;
        /* Wake at least every 10 ms so short phases end promptly. */
        uint64_t soon = probe_now_ns() + 10000000ull;
        if (soon < target) target = soon;
        struct timespec ts = { (time_t)(target / 1000000000ull), (long)(target % 1000000000ull) };
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        uint64_t now = probe_now_ns();
        if (abort_requested(c)) atomic_store(&c->stop, 1);
        if (!window && now >= ramp_end) {
            window = true;
            if (c->has_disk) sample_diskstat_read(c->disk, &d0);
            sample_psi_read(&p0);
            atomic_store(&c->window_open, 1);
            if (pg) atomic_store(&pg->state, PROBE_MEASURE);
        }
        if (now < next) continue;
        struct vmstat v;
        uint64_t bytes = total_bytes(th, n);
        double mb_s = now > last_t ? (double)(bytes - last_bytes) / ((double)(now - last_t) / 1e9) / 1e6 : 0;
        if (vmstat_read(&v) == 0) {
            if (window) {
                uint64_t dw = v.nr_dirty + v.nr_writeback;
                if (v.nr_dirty > r->vm.max_dirty_pages) r->vm.max_dirty_pages = v.nr_dirty;
                if (v.nr_writeback > r->vm.max_writeback_pages) r->vm.max_writeback_pages = v.nr_writeback;
                uint64_t freerun = vmstat_freerun(&v);
                if (freerun && dw >= freerun) r->vm.reached_threshold = true;
            }
            series_append(r, (uint32_t)((now - c->rep_t0_ns) / 1000000), &v, mb_s);
            if (pg) {
                atomic_store(&pg->nr_dirty, v.nr_dirty);
                atomic_store(&pg->nr_writeback, v.nr_writeback);
            }
        }
        if (pg) {
            atomic_store(&pg->elapsed_ms, (now - c->rep_t0_ns) / 1000000);
            atomic_store(&pg->bytes, bytes);
            atomic_store(&pg->mb_s_milli, (uint64_t)(mb_s * 1000));
        }
        probe_live_publish(c, th, n);
        last_bytes = bytes;
        last_t = now;
        while (next <= now) next += SAMPLE_NS;
    }
    atomic_store(&c->window_open, 0);
    if (window) {
        struct disk_sample d1;
        struct psi_sample p1;
        if (c->has_disk && sample_diskstat_read(c->disk, &d1) == 0) sample_disk_accumulate(&c->dacc, &d0, &d1);
        if (sample_psi_read(&p1) == 0) sample_psi_accumulate(&c->pacc, &p0, &p1);
    }
}

static void thread_row(const struct probe_thread *t, uint64_t ramp_end, double cpu_s, struct probe_phase *row)
{
    struct probe_phase_stats one = { 0 };
    hist_init(&one.lat);
    hist_merge(&one.lat, &t->hist[PROBE_READ]);
    hist_merge(&one.lat, &t->hist[PROBE_WRITE]);
    one.ios = t->ios[PROBE_READ] + t->ios[PROBE_WRITE];
    one.bytes = t->bytes[PROBE_READ] + t->bytes[PROBE_WRITE];
    one.wall_s = t->done_ns > ramp_end ? (double)(t->done_ns - ramp_end) / 1e9 : 0;
    one.cpu_s = cpu_s;
    char name[32];
    snprintf(name, sizeof name, "thread %d", t->idx);
    probe_phase_row(row, name, 1, &one);
}

void probe_phase_row(struct probe_phase *row, const char *name, int threads, const struct probe_phase_stats *ps)
{
    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", name);
    row->threads = threads;
    row->ios = ps->ios;
    row->bytes = ps->bytes;
    row->mb_s = ps->wall_s > 0 ? (double)ps->bytes / ps->wall_s / 1e6 : 0;
    row->iops = ps->wall_s > 0 ? (double)ps->ios / ps->wall_s : 0;
    row->cpu_pct = ps->wall_s > 0 ? 100 * ps->cpu_s / ps->wall_s : 0;
    row->lat_mean_ms = ps->lat.n ? ps->lat.mean_ns / 1e6 : 0;
    row->lat_max_ms = ps->lat.n ? (double)ps->lat.max_ns / 1e6 : 0;
    /* tiobench's "% > 2 s / > 10 s", rescaled for second-long probes */
    row->pct_over_100ms = ps->lat.n ? 100.0 * (double)hist_count_above(&ps->lat, 100000000ull) / (double)ps->lat.n : 0;
    row->pct_over_1s = ps->lat.n ? 100.0 * (double)hist_count_above(&ps->lat, 1000000000ull) / (double)ps->lat.n : 0;
}

static void merge_threads(struct probe_ctx *c, struct probe_thread *th, int n, uint64_t ramp_end,
                          struct probe_phase_stats *ps)
{
    struct probe_result *r = c->result;
    uint64_t last_done = ramp_end;
    for (int i = 0; i < n; i++) {
        struct probe_thread *t = &th[i];
        for (int op = 0; op < PROBE_OP_NR; op++) {
            hist_merge(&r->op[op].hist, &t->hist[op]);
            r->op[op].ios += t->ios[op];
            r->op[op].bytes += t->bytes[op];
            if (op == PROBE_READ || op == PROBE_WRITE) {
                ps->ios += t->ios[op];
                ps->bytes += t->bytes[op];
                hist_merge(&ps->lat, &t->hist[op]);
            }
        }
        r->rewritten_bytes += t->rewritten_bytes;
        double cpu_s = 0;
        if (t->measuring) {
            double usr = tv_s(t->ru0.ru_utime, t->ru1.ru_utime), sys = tv_s(t->ru0.ru_stime, t->ru1.ru_stime);
            c->cpu_usr_s += usr;
            c->cpu_sys_s += sys;
            cpu_s = usr + sys;
            ps->cpu_s += cpu_s;
            r->ctx_switches += (uint64_t)((t->ru1.ru_nvcsw - t->ru0.ru_nvcsw) + (t->ru1.ru_nivcsw - t->ru0.ru_nivcsw));
        }
        if (ps->per_thread) thread_row(t, ramp_end, cpu_s, &ps->per_thread[i]);
        if (t->done_ns > last_done) last_done = t->done_ns;
    }
    ps->wall_s = (double)(last_done - ramp_end) / 1e9;
    r->wall_s += ps->wall_s;
}

static int start_threads(struct phase *ph, struct probe_thread *th, struct thread_arg *args, pthread_t *tids, int n,
                         sl_err *e)
{
    /* Workers never take SIGINT/SIGTERM: the sampling thread turns them into a stop. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int started = 0, rc = 0;
    for (; started < n; started++) {
        args[started].ph = ph;
        args[started].t = &th[started];
        rc = pthread_create(&tids[started], NULL, thread_main, &args[started]);
        if (rc) break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        sl_fail_errno(e, SL_EFAIL, rc, "starting probe thread %d of %d", started + 1, n);
        return started;
    }
    return n;
}

static int alloc_threads(struct probe_ctx *c, int n, struct probe_thread **out, sl_err *e)
{
    struct probe_thread *th = xcalloc((size_t)n, sizeof *th);
    int depth = c->spec.iodepth > 1 ? c->spec.iodepth : 1;
    size_t buflen = (size_t)(c->spec.bs ? c->spec.bs : 4096) * (size_t)depth;
    static _Atomic uint64_t phase_serial;
    uint64_t mix = c->seed ^ (atomic_fetch_add(&phase_serial, 1) * 0x9e3779b97f4a7c15ull);
    for (int i = 0; i < n; i++) {
        struct probe_thread *t = &th[i];
        t->ctx = c;
        t->idx = i;
        t->nthreads = n;
        probe_seed_rng(t->rng, c->seed + 0x1000003ull * (uint64_t)(i + 1));
        for (int op = 0; op < PROBE_OP_NR; op++) hist_init(&t->hist[op]);
        hist_init(&t->pub);
        pthread_mutex_init(&t->pub_mu, NULL);
        void *buf;
        int rc = posix_memalign(&buf, 4096, buflen);
        if (rc) {
            for (int j = 0; j < i; j++) free(th[j].buf);
            for (int j = 0; j <= i; j++) pthread_mutex_destroy(&th[j].pub_mu);
            free(th);
            return sl_fail_errno(e, SL_EFAIL, rc, "allocating %zu-byte I/O buffers", buflen);
        }
        t->buf = buf;
        t->buflen = buflen;
        probe_fill_random(t->buf, buflen, mix + (uint64_t)i);
    }
    *out = th;
    return 0;
}

int probe_phase_run(struct probe_ctx *c, int n, int (*fn)(struct probe_thread *), uint64_t ramp_ms,
                    uint64_t time_ms, struct probe_phase_stats *ps, sl_err *e)
{
    struct probe_phase *per_thread = ps->per_thread;
    memset(ps, 0, sizeof *ps);
    ps->per_thread = per_thread;
    hist_init(&ps->lat);
    struct probe_thread *th = NULL;
    if (alloc_threads(c, n, &th, e) < 0) return -1;
    struct phase ph = { .c = c, .fn = fn };
    pthread_mutex_init(&ph.mu, NULL);
    pthread_cond_init(&ph.ready_cv, NULL);
    pthread_cond_init(&ph.go_cv, NULL);
    atomic_init(&ph.finished, 0);
    struct thread_arg *args = xcalloc((size_t)n, sizeof *args);
    pthread_t *tids = xcalloc((size_t)n, sizeof *tids);
    int started = start_threads(&ph, th, args, tids, n, e);
    int rc = 0;
    if (started < n) {
        gate_open(&ph, started, -1);
        for (int i = 0; i < started; i++) pthread_join(tids[i], NULL);
        rc = -1;
    } else {
        uint64_t t0 = probe_now_ns();
        uint64_t ramp_end = t0 + ramp_ms * 1000000ull, end = ramp_end + time_ms * 1000000ull;
        for (int i = 0; i < n; i++) {
            th[i].ramp_end_ns = ramp_end;
            th[i].end_ns = end;
        }
        if (c->progress) atomic_store(&c->progress->state, ramp_ms ? PROBE_RAMP : PROBE_MEASURE);
        gate_open(&ph, n, 1);
        sample_loop(c, &ph, th, n, t0, ramp_end);
        for (int i = 0; i < n; i++) pthread_join(tids[i], NULL);
        merge_threads(c, th, n, ramp_end, ps);
        probe_live_publish(c, NULL, 0);
        for (int i = 0; i < n && rc == 0; i++)
            if (th[i].err) {
                rc = sl_fail(e, SL_EFAIL, "%s", th[i].errmsg[0] ? th[i].errmsg : "a probe thread failed");
                if (e) e->errnum = th[i].err;
            }
        if (rc == 0 && atomic_load(&c->stop)) rc = sl_fail(e, SL_EFAIL, "interrupted");
    }
    pthread_mutex_destroy(&ph.mu);
    pthread_cond_destroy(&ph.ready_cv);
    pthread_cond_destroy(&ph.go_cv);
    for (int i = 0; i < n; i++) {
        free(th[i].buf);
        pthread_mutex_destroy(&th[i].pub_mu);
    }
    free(th);
    free(args);
    free(tids);
    return rc;
}
