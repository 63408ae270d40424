/* fsync — a commit log (bonnie++ -b, a database's WAL): small appends, each
 * followed by fdatasync (every --sync-every appends; default 1). The write
 * and the sync are timed apart; commits per second is the sync IOPS. The
 * log wraps to the start at --size / threads, as a recycled log does.
 * Not sized from nr_dirty_threshold and not flagged for missing it: the
 * syncs keep at most --sync-every blocks dirty, by design; what it measures
 * is commit latency beside (or without) other writers' dirty data. */
#include "probe/fileio.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static int fsync_thread(struct probe_thread *t)
{
    struct probe_ctx *c = t->ctx;
    struct probe_file *f = &c->files[t->idx % c->nfiles];
    uint64_t bs = c->spec.bs, off = 0, n = 0;
    int every = c->spec.sync_every ? c->spec.sync_every : 1;
    for (;;) {
        if (off + bs > f->size) off = 0;
        uint64_t t0 = probe_now_ns();
        ssize_t w = pwrite(f->fd, t->buf, bs, (off_t)off);
        uint64_t t1 = probe_now_ns();
        if (w != (ssize_t)bs) {
            if (w < 0 && errno == EINTR) continue;
            int err = w < 0 ? errno : ENOSPC;
            if (err == ENOSPC || err == EDQUOT)
                return probe_thread_fail(t, 0, "the filesystem under %s filled up (%s) appending to %s: give a smaller "
                                               "--size or free some space", c->spec.dir[0], strerror(err), f->path);
            return probe_thread_fail(t, err, "appending to %s", f->path);
        }
        probe_account(t, PROBE_WRITE, t0, t1, bs);
        off += bs;
        if (++n % (uint64_t)every == 0) {
            if (fdatasync(f->fd) != 0) return probe_thread_fail(t, errno, "fdatasync %s", f->path);
            uint64_t t2 = probe_now_ns();
            probe_account(t, PROBE_SYNC, t1, t2, 0);
            t1 = t2;
        }
        if (probe_should_stop(t, t1)) break;
    }
    return 0;
}

static void fio_job(const struct probe_spec *s, FILE *out)
{
    probe_fio_global(s, out, "write");
    fprintf(out, "fallocate=none\nfdatasync=%d\n\n[fsync]\n", s->sync_every ? s->sync_every : 1);
}

const struct probe_workload_ops workload_fsync = {
    .name = "fsync", .summary = "commit log: small appends, each followed by fdatasync (bonnie++ -b)",
    .flags = WL_WRITES | WL_DIRECT_OK, .def_threads = 1, .def_bs = 4096, .def_size = 64u << 20, .def_sync_every = 1,
    .layout = fileio_layout_empty, .rep_begin = fileio_truncate_all, .thread = fsync_thread, .fio_job = fio_job,
};
