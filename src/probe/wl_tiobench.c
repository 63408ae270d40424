/* tiobench — tiotest's four phases (seq write, random write, seq read,
 * random read; 4 KiB) at 1, 2, 4 and 8 threads (up to --threads), each
 * thread on its own file. Write phases fsync inside the timed region; reads
 * start cold (files evicted); random phases do 4000 / T operations per
 * thread, as tiotest does. Each phase is also bounded by
 * --time / (4 * thread counts), so the whole probe takes about --time.
 * Rate = MB / wall time, CPU% = (utime + stime) / wall, latency avg/max
 * and the share above 100 ms and 1 s (tiotest's 2 s / 10 s, rescaled). */
#include "probe_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TIO_FILES 8
#define RAND_OPS 4000

enum tio_phase { T_SEQ_WRITE, T_RAND_WRITE, T_SEQ_READ, T_RAND_READ, T_NR };
static const char *const phase_names[T_NR] = { "seq write", "random write", "seq read", "random read" };

struct tio_state {
    enum tio_phase phase;
    int nthreads;
};

static int validate(struct probe_spec *s, sl_err *e)
{
    if (s->threads > TIO_FILES) return sl_fail(e, SL_EUSAGE, "--threads %d: tiobench runs at 1, 2, 4 and 8 threads", s->threads);
    return 0;
}

static int layout(struct probe_ctx *c, sl_err *e)
{
    uint64_t per = c->spec.size_bytes / TIO_FILES;
    per -= per % c->spec.bs;
    if (per < c->spec.bs * 16) per = c->spec.bs * 16;
    for (int i = 0; i < TIO_FILES; i++) {
        char name[32];
        snprintf(name, sizeof name, "tiotest.%d", i);
        if (probe_file_create(c, 0, name, per, e) < 0) return -1;
    }
    c->wl = xcalloc(1, sizeof(struct tio_state));
    return 0;
}

static int io_error(struct probe_thread *t, int err, const struct probe_file *f)
{
    if (err == ENOSPC || err == EDQUOT)
        return probe_thread_fail(t, 0, "the filesystem under %s filled up (%s) writing %s: give a smaller --size or "
                                       "free some space", t->ctx->spec.dir[0], strerror(err), f->path);
    return probe_thread_fail(t, err, "I/O on %s", f->path);
}

static int tio_thread(struct probe_thread *t)
{
    struct probe_ctx *c = t->ctx;
    const struct tio_state *s = c->wl;
    struct probe_file *f = &c->files[t->idx];
    uint64_t bs = c->spec.bs, blocks = f->size / bs;
    bool rnd = s->phase == T_RAND_WRITE || s->phase == T_RAND_READ;
    bool wr = s->phase == T_SEQ_WRITE || s->phase == T_RAND_WRITE;
    uint64_t todo = rnd ? RAND_OPS / (uint64_t)s->nthreads : blocks;
    for (uint64_t i = 0; i < todo; i++) {
        uint64_t off = (rnd ? probe_rand_below(t, blocks) : i) * bs;
        uint64_t t0 = probe_now_ns();
        ssize_t r = wr ? pwrite(f->fd, t->buf, bs, (off_t)off) : pread(f->fd, t->buf, bs, (off_t)off);
        uint64_t t1 = probe_now_ns();
        if (r != (ssize_t)bs) {
            if (r < 0 && errno == EINTR) { i--; continue; }
            return io_error(t, r < 0 ? errno : EIO, f);
        }
        probe_account(t, wr ? PROBE_WRITE : PROBE_READ, t0, t1, bs);
        if (probe_should_stop(t, t1)) break;
    }
    if (wr && !atomic_load(&c->stop)) {   /* tiotest: fsync and close inside the timing */
        uint64_t t0 = probe_now_ns();
        if (fsync(f->fd) != 0) return io_error(t, errno, f);
        probe_account(t, PROBE_SYNC, t0, probe_now_ns(), 0);
    }
    return 0;
}

static int tio_run(struct probe_ctx *c, struct probe_result *r, sl_err *e)
{
    struct tio_state *s = c->wl;
    int counts[4], nsets = 0;
    for (int n = 1; n <= c->spec.threads && n <= TIO_FILES; n *= 2) counts[nsets++] = n;
    uint64_t phase_ms = c->spec.time_ms / (uint64_t)(T_NR * nsets);
    if (phase_ms < 10) phase_ms = 10;
    if (c->progress) atomic_store(&c->progress->total_ms, phase_ms * (uint64_t)(T_NR * nsets));
    for (int k = 0; k < nsets; k++) {
        for (int ph = 0; ph < T_NR; ph++) {
            s->phase = (enum tio_phase)ph;
            s->nthreads = counts[k];
            if (ph == T_SEQ_READ) probe_evict_files(c);
            struct probe_phase_stats ps = { 0 };
            if (probe_phase_run(c, counts[k], tio_thread, 0, phase_ms, &ps, e) < 0) return -1;
            if (r->nphases < PROBE_MAX_PHASES) probe_phase_row(&r->phase[r->nphases++], phase_names[ph], counts[k], &ps);
        }
    }
    return 0;
}

static void cleanup(struct probe_ctx *c)
{
    free(c->wl);
    c->wl = NULL;
}

static void fio_job(const struct probe_spec *s, FILE *out)
{
    fprintf(out, "; tiobench: four phases at 1, 2, 4, 8 threads; one of them (seq write at --threads):\n");
    probe_fio_global(s, out, "write");
    fprintf(out, "end_fsync=1\n\n[tiobench-seq-write]\n");
}

const struct probe_workload_ops workload_tiobench = {
    .name = "tiobench", .summary = "tiobench: seq/random write/read phases at 1, 2, 4, 8 threads, with CPU%",
    .flags = WL_READS | WL_WRITES | WL_BUFFERED_SIZED, .def_threads = 8, .def_bs = 4096, .def_size = 64u << 20,
    .validate = validate, .layout = layout, .run = tio_run, .fio_job = fio_job, .cleanup = cleanup,
};
