/* fileio — the I/O loop shared by seqread, seqwrite, randread, randwrite and
 * randrw: psync pread/pwrite per thread, or io_uring at depth > 1 with
 * O_DIRECT. Per I/O: two clock reads (with io_uring: one, plus one per
 * completion batch), one histogram increment, no allocation, no lock.
 *
 * What a latency is (the fio-equivalent interval): psync, the pread or
 * pwrite call itself (fio's clat for sync engines); io_uring, from just
 * before the I/O is prepared and submitted until its completion is reaped
 * (fio's lat: slat + clat). */
#include "probe/fileio.h"

#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void fileio_perm_init(struct fileio_perm *p, uint64_t n, uint64_t seed)
{
    uint64_t mask = 0;
    while (n > 1 && mask < n - 1) mask = mask << 1 | 1;
    *p = (struct fileio_perm){ .n = n, .mask = mask, .a = ((seed >> 3) << 2 | 1) & mask,
                               .c = ((seed >> 29) | 1) & mask, .x = seed & mask, .left = n };
    if (p->a == 0) p->a = 1;   /* mask 0: a single block */
}

uint64_t fileio_perm_next(struct fileio_perm *p)
{
    do p->x = (p->a * p->x + p->c) & p->mask;
    while (p->x >= p->n);
    p->left--;
    return p->x;
}

struct loop {
    struct probe_thread *t;
    const struct fileio_cfg *cfg;
    struct probe_file *files;
    int nfiles;
    struct probe_file *own;     /* not shared: this thread's file */
    uint64_t bs, seq_off, writes;
    bool *dirty;                /* shared files written since the last sync */
    bool wrote;
    uint64_t now_ns;            /* io_uring: time of the last completion batch */
    /* Writes never land on an offset this repetition wrote: each pass
     * covers the thread's blocks once (in order, or in a random order), the
     * next pass lies past the end of the file (fresh offsets), and only
     * when the free space allows no more passes does a time-based writer
     * wrap, every later write counted as rewritten. Fixed work is one pass. */
    uint64_t wblocks;           /* this thread's blocks per pass */
    uint64_t wnext;             /* sequential: next block of the pass */
    uint64_t pass;              /* offsets of pass k start k file sizes in */
    struct fileio_perm perm;    /* random: the pass's order */
    bool wrapped;               /* writing over its own bytes now */
    bool work_done;             /* fixed work: every block written */
};

static int io_fail(struct loop *l, int err, const char *what, const struct probe_file *f)
{
    struct probe_ctx *c = l->t->ctx;
    if (err == ENOSPC || err == EDQUOT)
        return probe_thread_fail(l->t, 0, "the filesystem under %s filled up (%s) writing %s: give a smaller --size or "
                                           "free some space", c->spec.dir[f->dir], strerror(err), f->path);
    if (err == EINVAL && c->spec.direct)
        return probe_thread_fail(l->t, 0, "%s %s with O_DIRECT failed (%s): --bs must be a multiple of the device's "
                                           "logical block size", what, f->path, strerror(err));
    return probe_thread_fail(l->t, err, "%s %s", what, f->path);
}

/* The blocks this thread writes per pass: its own file's, or every
 * nthreads-th block of the shared set, so no two threads write one block. */
static uint64_t write_blocks(const struct loop *l)
{
    if (l->own) return l->own->size / l->bs;
    uint64_t total = (uint64_t)l->nfiles * (l->files[0].size / l->bs), idx = (uint64_t)l->t->idx;
    uint64_t n = (uint64_t)l->t->nthreads;
    return total > idx ? (total - idx + n - 1) / n : 0;
}

static void pass_begin(struct loop *l)
{
    l->wnext = 0;
    if (l->cfg->random && l->wblocks) fileio_perm_init(&l->perm, l->wblocks, probe_rand(l->t));
}

/* The pass is over: fixed work is done; a time-based writer moves on to
 * fresh offsets while the free space allows, else wraps. */
static void pass_end(struct loop *l)
{
    struct probe_ctx *c = l->t->ctx;
    if (c->spec.fixed_work) { l->work_done = true; return; }
    if (++l->pass >= c->fresh_passes) {
        l->pass = 0;
        l->wrapped = true;
    }
    pass_begin(l);
}

/* Where the next write goes; false when fixed work is done. */
static bool next_write(struct loop *l, struct probe_file **f, uint64_t *off)
{
    if (l->work_done || l->wblocks == 0) return l->work_done = true, false;
    if (l->wnext >= l->wblocks) {
        pass_end(l);
        if (l->work_done) return false;
    }
    uint64_t j = l->cfg->random ? fileio_perm_next(&l->perm) : l->wnext;
    l->wnext++;
    if (l->own) {
        *f = l->own;
        *off = l->pass * l->own->size + j * l->bs;
        return true;
    }
    uint64_t per = l->files[0].size / l->bs, g = j * (uint64_t)l->t->nthreads + (uint64_t)l->t->idx;
    *f = &l->files[g / per];
    *off = l->pass * l->files[0].size + (g % per) * l->bs;
    return true;
}

/* The next op, file and offset; -1 when fixed work is done. */
static inline int next_io(struct loop *l, struct probe_file **f, uint64_t *off)
{
    const struct fileio_cfg *cfg = l->cfg;
    struct probe_thread *t = l->t;
    enum probe_op op = cfg->read_pct >= 100 ? PROBE_READ
                     : cfg->read_pct <= 0   ? PROBE_WRITE
                     : (probe_rand_below(t, 100) < (uint64_t)cfg->read_pct ? PROBE_READ : PROBE_WRITE);
    if (op == PROBE_WRITE) return next_write(l, f, off) ? (int)op : -1;
    if (l->work_done) return -1;
    if (l->own) {
        *f = l->own;
    } else {
        *f = &l->files[probe_rand_below(t, (uint64_t)l->nfiles)];
    }
    uint64_t blocks = (*f)->size / l->bs;
    if (cfg->random) {
        *off = probe_rand_below(t, blocks) * l->bs;
    } else {
        if (l->seq_off + l->bs > (*f)->size) l->seq_off = 0;   /* reads wrap: time-based, like fio */
        *off = l->seq_off;
        l->seq_off += l->bs;
    }
    return (int)op;
}

/* A write went through: count it as rewritten once the writer wrapped
 * (buffered only: O_DIRECT rewrites reach the device all the same). */
static inline void count_rewrite(struct loop *l)
{
    if (l->wrapped && !l->t->ctx->spec.direct) l->t->rewritten_bytes += l->bs;
}

static int sync_file(struct loop *l, struct probe_file *f)
{
    uint64_t t0 = probe_now_ns();
    if (fsync(f->fd) != 0) return io_fail(l, errno, "fsync", f);
    probe_account(l->t, PROBE_SYNC, t0, probe_now_ns(), 0);
    return 0;
}

/* After a write: every sync_every writes, fsync what is dirty (sysbench:
 * all dirty files; a single-file thread: its file). */
static int after_write(struct loop *l, struct probe_file *f)
{
    l->wrote = true;
    if (!l->own) l->dirty[f - l->files] = true;
    int every = l->t->ctx->spec.sync_every;
    if (!every || ++l->writes % (uint64_t)every) return 0;
    if (l->own) return sync_file(l, l->own);
    for (int i = 0; i < l->nfiles; i++)
        if (l->dirty[i]) {
            if (sync_file(l, &l->files[i]) < 0) return -1;
            l->dirty[i] = false;
        }
    return 0;
}

/* fio end_fsync: buffered writes are not done until they are on disk, and
 * that time is inside the measured window. */
static int final_sync(struct loop *l)
{
    if (!l->wrote || l->t->ctx->spec.direct || atomic_load(&l->t->ctx->stop)) return 0;
    struct probe_progress *pg = l->t->ctx->progress;
    if (pg) {
        atomic_fetch_add(&pg->flushed_threads, 1);
        atomic_store(&pg->state, PROBE_FLUSH);
    }
    if (l->own) return sync_file(l, l->own);
    for (int i = 0; i < l->nfiles; i++)
        if (l->dirty[i] && sync_file(l, &l->files[i]) < 0) return -1;
    return 0;
}

static int loop_psync(struct loop *l)
{
    struct probe_thread *t = l->t;
    for (;;) {
        struct probe_file *f;
        uint64_t off;
        int next = next_io(l, &f, &off);
        if (next < 0) break;
        enum probe_op op = (enum probe_op)next;
        uint64_t t0 = probe_now_ns();
        ssize_t r = op == PROBE_READ ? pread(f->fd, t->buf, l->bs, (off_t)off)
                                     : pwrite(f->fd, t->buf, l->bs, (off_t)off);
        uint64_t t1 = probe_now_ns();
        if (r != (ssize_t)l->bs) {
            if (r < 0 && errno == EINTR) continue;
            return io_fail(l, r < 0 ? errno : (op == PROBE_WRITE ? ENOSPC : EIO),
                           op == PROBE_READ ? "reading" : "writing", f);
        }
        probe_account(t, op, t0, t1, l->bs);
        if (op == PROBE_WRITE) count_rewrite(l);
        if (op == PROBE_WRITE && after_write(l, f) < 0) return -1;
        if (probe_should_stop(t, t1)) break;
    }
    return final_sync(l);
}

struct slot {
    uint64_t start_ns;
    struct probe_file *f;
    enum probe_op op;
};

/* The ring as fio's io_uring engine sets it up (fio >= 3.33): completions
 * run as task work deferred to when this thread enters the ring, rather
 * than interrupting it. Older kernels refuse the flags: fall back as fio does. */
static int ring_init(struct io_uring *ring, unsigned depth)
{
    static const unsigned flags[] = {
        IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
        IORING_SETUP_COOP_TASKRUN,
        0,
    };
    int rc = -EINVAL;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0] && rc == -EINVAL; i++) {
        struct io_uring_params p = { .flags = flags[i] };
        rc = io_uring_queue_init_params(depth, ring, &p);
    }
    return rc;
}

/* Queue one I/O in slot i and submit it on its own, collecting whatever has
 * completed meanwhile (fio's iodepth_batch_submit=1: one io_uring_enter
 * with GETEVENTS per I/O). Submitting each at once rather than a batch
 * per wakeup keeps the device's queue as full as fio keeps it (a one-off
 * comparison on the development VM's virtio disk at depth 16 had the
 * batching loop behind fio on IOPS; no bench here reruns the batching
 * loop). Latency starts
 * here, before the SQE is prepared (fio's lat: from the I/O unit's
 * creation). Returns a negative errno when the ring refuses. */
static int submit_slot(struct loop *l, struct io_uring *ring, struct slot *s, int i)
{
    uint64_t off;
    int next = next_io(l, &s->f, &off);
    if (next < 0) return 1;   /* fixed work done */
    s->op = (enum probe_op)next;
    s->start_ns = probe_now_ns();
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    unsigned char *buf = l->t->buf + (size_t)i * l->bs;
    if (s->op == PROBE_READ) io_uring_prep_read(sqe, s->f->fd, buf, (unsigned)l->bs, off);
    else io_uring_prep_write(sqe, s->f->fd, buf, (unsigned)l->bs, off);
    io_uring_sqe_set_data64(sqe, (uint64_t)i);
    int rc = io_uring_submit_and_get_events(ring);
    /* A busy ring keeps the SQE: the next enter submits it. */
    return rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY ? rc : 0;
}

/* Reap what has completed: account each with the batch's one timestamp and
 * note the slots to reuse. Returns how many were reaped. */
static int reap(struct loop *l, struct io_uring *ring, struct slot *slots, int *done, bool account, int *err,
                struct probe_file **err_file)
{
    if (!io_uring_cq_ready(ring)) return 0;
    uint64_t t1 = probe_now_ns();   /* one clock read per completion batch */
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    int ndone = 0;
    io_uring_for_each_cqe(ring, head, cqe) {
        int i = (int)io_uring_cqe_get_data64(cqe);
        struct slot *s = &slots[i];
        if (cqe->res != (int)l->bs && !*err) { *err = cqe->res < 0 ? -cqe->res : EIO; *err_file = s->f; }
        else if (account) {
            probe_account(l->t, s->op, s->start_ns, t1, l->bs);
            if (s->op == PROBE_WRITE) count_rewrite(l);
        }
        done[ndone++] = i;
        seen++;
    }
    io_uring_cq_advance(ring, seen);
    l->now_ns = t1;
    return ndone;
}

/* fio's loop at iodepth=N, iodepth_batch_complete_min=1,
 * iodepth_batch_complete_max=N, iodepth_low=N: fill every slot, then reap
 * what is there (waiting for one completion only when nothing is), refill
 * the reaped slots, and so on. fio's default max is 1: one completion per
 * pass, the others left in the ring until later passes, so their latency
 * also counts the passes they waited (fio's p50 came out higher with it in
 * a one-off run at depth 16 on a virtio disk); reaping all stamps each
 * when it is first seen. --fio-job sets max=N so the two compare. */
static int loop_uring(struct loop *l)
{
    struct probe_thread *t = l->t;
    int depth = t->ctx->spec.iodepth;
    struct io_uring ring;
    int rc = ring_init(&ring, (unsigned)depth);
    if (rc < 0) return probe_thread_fail(t, -rc, "io_uring_queue_init (depth %d)", depth);
    struct slot *slots = xcalloc((size_t)depth, sizeof *slots);
    int *done = xcalloc((size_t)depth, sizeof *done);
    int inflight = 0, err = 0;
    struct probe_file *err_file = NULL;
    bool stopping = false, ring_failed = false;
    for (int i = 0; i < depth && !err && !stopping; i++) {
        rc = submit_slot(l, &ring, &slots[i], i);
        if (rc < 0) { err = -rc; ring_failed = true; }
        if (rc == 1) stopping = true;
        else inflight++;
    }
    while (inflight > 0 && !ring_failed) {
        int ndone = reap(l, &ring, slots, done, !stopping, &err, &err_file);
        if (ndone == 0) {
            /* Nothing yet: submit anything a busy ring kept, wait for one. */
            rc = io_uring_submit_and_wait(&ring, 1);
            if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) { err = -rc; ring_failed = true; }
            continue;
        }
        inflight -= ndone;
        if (err || probe_should_stop(t, l->now_ns)) stopping = true;
        for (int k = 0; k < ndone && !stopping; k++) {
            rc = submit_slot(l, &ring, &slots[done[k]], done[k]);
            if (rc < 0) { err = -rc; ring_failed = true; }
            if (rc != 0) stopping = true;
            else inflight++;
        }
    }
    io_uring_queue_exit(&ring);
    free(slots);
    free(done);
    if (err) return io_fail(l, err, "I/O on", err_file ? err_file : &l->files[0]);
    return 0;
}

int fileio_thread(struct probe_thread *t)
{
    struct probe_ctx *c = t->ctx;
    struct loop l = { .t = t, .cfg = c->ops->priv, .files = c->files, .nfiles = c->nfiles, .bs = c->spec.bs };
    if (c->nfiles == 0) return probe_thread_fail(t, 0, "no files laid out");
    if (!l.cfg->shared) l.own = &c->files[t->idx % c->nfiles];
    l.dirty = xcalloc((size_t)c->nfiles, sizeof *l.dirty);
    l.wblocks = write_blocks(&l);
    pass_begin(&l);
    /* Sequential threads start at different places, so two threads never
     * read the same offsets from cache (fio#1501). */
    int rc = c->spec.direct && c->spec.iodepth > 1 ? loop_uring(&l) : loop_psync(&l);
    free(l.dirty);
    return rc;
}

int fileio_layout(struct probe_ctx *c, sl_err *e)
{
    const struct fileio_cfg *cfg = c->ops->priv;
    if (!cfg->shared) return probe_layout_per_thread(c, 0, e);
    uint64_t per = c->spec.size_bytes / (uint64_t)cfg->nfiles;
    per -= per % c->spec.bs;
    if (per < c->spec.bs) per = c->spec.bs;
    for (int i = 0; i < cfg->nfiles; i++) {
        char name[32];
        snprintf(name, sizeof name, "file.%d", i);
        if (probe_file_create(c, 0, name, per, e) < 0) return -1;
    }
    return 0;
}

int fileio_layout_empty(struct probe_ctx *c, sl_err *e)
{
    uint64_t per = c->spec.size_bytes / (uint64_t)c->spec.threads;
    per -= per % c->spec.bs;
    if (per < c->spec.bs) per = c->spec.bs;
    for (int i = 0; i < c->spec.threads; i++) {
        char name[32];
        snprintf(name, sizeof name, "file.%d", i);
        if (probe_file_create(c, 0, name, 0, e) < 0) return -1;
        c->files[c->nfiles - 1].size = per;   /* what the writes may grow it to */
    }
    return 0;
}

int fileio_trim_all(struct probe_ctx *c, sl_err *e)
{
    for (int i = 0; i < c->nfiles; i++)
        if (ftruncate(c->files[i].fd, (off_t)c->files[i].size) != 0)
            return sl_fail_errno(e, SL_EFAIL, errno, "truncating %s", c->files[i].path);
    return 0;
}

/* A fresh file each repetition (dd's model): the writes allocate blocks,
 * as a real writer's would, instead of overwriting the last run's. */
int fileio_truncate_all(struct probe_ctx *c, sl_err *e)
{
    for (int i = 0; i < c->nfiles; i++) {
        if (ftruncate(c->files[i].fd, 0) != 0) return sl_fail_errno(e, SL_EFAIL, errno, "truncating %s", c->files[i].path);
        if (fsync(c->files[i].fd) != 0) return sl_fail_errno(e, SL_EFAIL, errno, "fsync %s", c->files[i].path);
    }
    return 0;
}
