/* dbench — each client (thread) replays a NetBench-like mix in its own tree
 * of small files (dbench fileio backend, probes.md §a). The mix follows the
 * op counts of dbench's client_plain.txt: read 54% (512 B - 4 KiB),
 * open/close 18%, write 11.5% (1 - 64 KiB), stat 11%, readdir 2.4%,
 * unlink + create 1.4%, rename 0.3%, fsync 0.5%. Throughput is computed as
 * dbench does: (read + write bytes) / time in decimal MB/s, printed as
 * "Throughput X MB/sec N clients". */
#include "probe_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FILES_PER_CLIENT 100
#define MAX_WRITE (64u << 10)

enum dop { D_READ, D_OPEN, D_WRITE, D_STAT, D_READDIR, D_UNLINK, D_RENAME, D_FSYNC, D_NR };
/* Cumulative weights in 1/1000 (op counts of client_plain.txt). */
static const unsigned dop_cum[D_NR] = { 540, 720, 835, 945, 969, 983, 986, 1000 };

static enum dop pick(struct probe_thread *t)
{
    unsigned x = (unsigned)probe_rand_below(t, 1000);
    for (int i = 0; i < D_NR; i++)
        if (x < dop_cum[i]) return (enum dop)i;
    return D_READ;
}

static int validate(struct probe_spec *s, sl_err *e)
{
    if (s->bs < MAX_WRITE) s->bs = MAX_WRITE;   /* the buffer: writes are up to 64 KiB */
    return 0;
}

static int layout(struct probe_ctx *c, sl_err *e)
{
    uint64_t per = c->spec.size_bytes / (uint64_t)c->spec.threads / FILES_PER_CLIENT;
    per -= per % 4096;
    if (per < 4096) per = 4096;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/clients", c->scratch);
    if (mkdir(path, 0700) != 0) return sl_fail_errno(e, SL_EFAIL, errno, "creating %s", path);
    for (int i = 0; i < c->spec.threads; i++) {
        snprintf(path, sizeof path, "%s/clients/client%d", c->scratch, i);
        if (mkdir(path, 0700) != 0) return sl_fail_errno(e, SL_EFAIL, errno, "creating %s", path);
        for (int k = 0; k < FILES_PER_CLIENT; k++) {
            char name[64];
            snprintf(name, sizeof name, "clients/client%d/f%03d", i, k);
            if (probe_file_create(c, 0, name, per, e) < 0) return -1;
        }
    }
    return 0;
}

static int fail(struct probe_thread *t, const char *what, const char *path)
{
    int err = errno;
    if (err == ENOSPC || err == EDQUOT)
        return probe_thread_fail(t, 0, "the filesystem under %s filled up (%s) in %s: give a smaller --size or free "
                                       "some space", t->ctx->spec.dir[0], strerror(err), path);
    return probe_thread_fail(t, err, "%s %s", what, path);
}

/* readdir without opendir's allocation: getdents64 into a stack buffer. */
static int list_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    char buf[8192];
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {}
    close(fd);
    return n < 0 ? -1 : 0;
}

static int recreate(struct probe_thread *t, struct probe_file *f)
{
    close(f->fd);
    f->fd = -1;
    if (unlink(f->path) != 0) return fail(t, "unlinking", f->path);
    int fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return fail(t, "creating", f->path);
    f->fd = fd;
    if (pwrite(fd, t->buf, 4096, 0) != 4096) return fail(t, "writing", f->path);
    return 0;
}

static int one_op(struct probe_thread *t, struct probe_file *f, const char *dir, enum dop op, uint64_t *bytes,
                  enum probe_op *kind)
{
    char tmp[PATH_MAX + 8];
    struct stat st;
    *bytes = 0;
    *kind = PROBE_META;
    switch (op) {
    case D_READ: {
        uint64_t len = 512u << probe_rand_below(t, 4);   /* 512 B .. 4 KiB */
        uint64_t off = f->size > len ? probe_rand_below(t, f->size - len) : 0;
        ssize_t r = pread(f->fd, t->buf, len, (off_t)off);
        if (r < 0) return fail(t, "reading", f->path);
        *bytes = (uint64_t)r;
        *kind = PROBE_READ;
        return 0;
    }
    case D_WRITE: {
        uint64_t len = 1024 + probe_rand_below(t, MAX_WRITE - 1024);
        uint64_t off = probe_rand_below(t, f->size);
        if (pwrite(f->fd, t->buf, len, (off_t)off) != (ssize_t)len) return fail(t, "writing", f->path);
        *bytes = len;
        *kind = PROBE_WRITE;
        return 0;
    }
    case D_OPEN: {
        int fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) return fail(t, "opening", f->path);
        close(fd);
        return 0;
    }
    case D_STAT: return stat(f->path, &st) == 0 ? 0 : fail(t, "stat", f->path);
    case D_READDIR: return list_dir(dir) == 0 ? 0 : fail(t, "listing", dir);
    case D_UNLINK: return recreate(t, f);
    case D_RENAME:
        snprintf(tmp, sizeof tmp, "%s.ren", f->path);
        if (rename(f->path, tmp) != 0 || rename(tmp, f->path) != 0) return fail(t, "renaming", f->path);
        return 0;
    case D_FSYNC:
        *kind = PROBE_SYNC;
        return fsync(f->fd) == 0 ? 0 : fail(t, "fsync", f->path);
    default: return 0;
    }
}

static int dbench_thread(struct probe_thread *t)
{
    struct probe_ctx *c = t->ctx;
    struct probe_file *mine = &c->files[t->idx * FILES_PER_CLIENT];
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/clients/client%d", c->scratch, t->idx);
    for (;;) {
        struct probe_file *f = &mine[probe_rand_below(t, FILES_PER_CLIENT)];
        enum dop op = pick(t);
        uint64_t bytes;
        enum probe_op kind;
        uint64_t t0 = probe_now_ns();
        if (one_op(t, f, dir, op, &bytes, &kind) < 0) return -1;
        uint64_t t1 = probe_now_ns();
        probe_account(t, kind, t0, t1, bytes);
        if (probe_should_stop(t, t1)) break;
    }
    return 0;
}

static void fio_job(const struct probe_spec *s, FILE *out)
{
    fprintf(out, "; dbench's NetBench mix has no fio equivalent; this is its data path only:\n"
                 "; 54%% small reads, 11.5%% writes up to 64k, over 100 files per client\n");
    probe_fio_global(s, out, "randrw");
    fprintf(out, "rwmixread=82\nbsrange=512-64k\nnrfiles=%d\nfile_service_type=random\nfsync=200\n\n[dbench]\n",
            FILES_PER_CLIENT);
}

const struct probe_workload_ops workload_dbench = {
    .name = "dbench", .summary = "dbench: per-client trees, NetBench mix (read/write/open/stat/readdir/unlink/rename/fsync)",
    .flags = WL_READS | WL_WRITES | WL_DIRTIES, .def_threads = 4, .def_bs = MAX_WRITE, .def_size = 64u << 20,
    .validate = validate, .layout = layout, .thread = dbench_thread, .fio_job = fio_job,
};
