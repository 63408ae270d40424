/* dbench — dbench's fileio backend: each client (thread)
 * replays a NetBench loadfile (loadfile.h; --loadfile, or the built-in
 * loadfiles/dbench-office.load) in its own clients/clientN tree, from the
 * top again whenever it reaches the end, until the time is up. Timed lines
 * wait for their time within the pass, as dbench's do; untimed ones run
 * flat out. Flush is fsync, as in dbench's fileio.c.
 *
 * Throughput is computed as dbench does: the ReadX and WriteX bytes after
 * the warm-up (--ramp) over the measured time, in decimal MB/s, printed as
 * "Throughput X MB/sec N clients", with dbench's per-operation table
 * (count, average and maximum latency). An operation the loadfile expects
 * to succeed (NT_STATUS_OK) that fails ends the run, naming the line. */
#include "probe/probe_internal.h"
#include "probe/loadfile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_HANDLES 256
#define DEF_BUF (64u << 10)

struct op_stat {
    uint64_t count, total_ns, max_ns;
};

struct client {
    char root[PATH_MAX];           /* scratch/clients/clientN */
    int64_t fnum[MAX_HANDLES];
    int fd[MAX_HANDLES];
    int nopen;
    struct op_stat st[NB_KIND_NR];
};

struct dbench {
    struct nb_load load;
    struct client *clients;
    int nclients;
};

/* Parse the loadfile now, so a bad one is refused before anything is
 * created, and size the I/O buffer for its largest request. */
static int validate(struct probe_spec *s, sl_err *e)
{
    struct nb_load l;
    const char *path = s->loadfile[0] ? s->loadfile : NULL;
    if (loadfile_parse(path, &l, e) < 0) return -1;
    uint64_t need = l.max_io > DEF_BUF ? (l.max_io + 4095) / 4096 * 4096 : DEF_BUF;
    snprintf(s->loadfile_hash, sizeof s->loadfile_hash, "%s", l.sha256);
    loadfile_free(&l);
    if (s->bs < need) s->bs = need;
    return 0;
}

static int layout(struct probe_ctx *c, sl_err *e)
{
    struct dbench *d = xcalloc(1, sizeof *d);
    c->wl = d;
    if (loadfile_parse(c->spec.loadfile[0] ? c->spec.loadfile : NULL, &d->load, e) < 0) return -1;
    d->nclients = c->spec.threads;
    d->clients = xcalloc((size_t)d->nclients, sizeof *d->clients);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/clients", c->scratch);
    if (mkdir(path, 0700) != 0) return sl_fail_errno(e, SL_EFAIL, errno, "creating %s", path);
    for (int i = 0; i < d->nclients; i++) {
        struct client *cl = &d->clients[i];
        snprintf(cl->root, sizeof cl->root, "%s/clients/client%d", c->scratch, i + 1);
        if (mkdir(cl->root, 0700) != 0) return sl_fail_errno(e, SL_EFAIL, errno, "creating %s", cl->root);
    }
    return 0;
}

/* The loadfile as messages name it. */
static const char *load_name(const struct probe_thread *t) { return ((const struct dbench *)t->ctx->wl)->load.name; }

static int op_fail(struct probe_thread *t, const struct nb_op *o, const char *what, int err)
{
    if (err == ENOSPC || err == EDQUOT)
        return probe_thread_fail(t, 0, "the filesystem under %s filled up (%s) replaying %s line %d: give a smaller "
                                       "loadfile or free some space", t->ctx->spec.dir[0], strerror(err), load_name(t),
                                 o->line);
    return probe_thread_fail(t, err, "dbench: %s line %d: %s %s failed (the loadfile expects NT_STATUS_OK)",
                             load_name(t), o->line, loadfile_kind_name(o->kind), what);
}

/* A path as the user can place it: relative to the scratch directory. */
static const char *rel_path(struct probe_thread *t, const char *path)
{
    size_t l = strlen(t->ctx->scratch);
    return strncmp(path, t->ctx->scratch, l) == 0 && path[l] == '/' ? path + l + 1 : path;
}

static int handle_find(struct client *cl, int64_t fnum)
{
    for (int i = 0; i < cl->nopen; i++)
        if (cl->fnum[i] == fnum) return i;
    return -1;
}

static void handle_drop(struct client *cl, int i)
{
    close(cl->fd[i]);
    cl->nopen--;
    cl->fnum[i] = cl->fnum[cl->nopen];
    cl->fd[i] = cl->fd[cl->nopen];
}

static int nt_create(struct probe_thread *t, struct client *cl, const struct nb_op *o, const char *path)
{
    /* FILE_SUPERSEDE, OPEN, CREATE, OPEN_IF, OVERWRITE, OVERWRITE_IF */
    static const int disp_flags[] = { O_CREAT | O_TRUNC, 0, O_CREAT | O_EXCL, O_CREAT, O_TRUNC, O_CREAT | O_TRUNC };
    static const bool disp_creates[] = { true, false, true, true, false, true };
    int64_t disp = o->p[1], fnum = o->p[2];
    bool known = disp >= 0 && disp <= 5;
    int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (known ? disp_flags[disp] : 0);
    if (o->p[0] & 1) {   /* FILE_DIRECTORY_FILE: dbench mkdirs, then opens the directory */
        if (known && disp_creates[disp] && mkdir(path, 0700) != 0 && errno != EEXIST && o->expect_ok)
            return op_fail(t, o, rel_path(t, path), errno);
        flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    }
    int fd = open(path, flags, 0600);
    if (fd < 0) return o->expect_ok ? op_fail(t, o, rel_path(t, path), errno) : 0;
    if (fnum == -1) { close(fd); return 0; }
    if (handle_find(cl, fnum) >= 0 || cl->nopen == MAX_HANDLES) {
        close(fd);
        return probe_thread_fail(t, 0, "dbench: %s line %d: handle %lld %s", load_name(t), o->line, (long long)fnum,
                                 cl->nopen == MAX_HANDLES ? "would be one more than 256 open files" : "is already open");
    }
    cl->fnum[cl->nopen] = fnum;
    cl->fd[cl->nopen++] = fd;
    return 0;
}

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

/* Operations on a handle: the fd, or -1 after failing the run (a handle the
 * loadfile never opened is its mistake, reported with the line). */
static int fd_of(struct probe_thread *t, struct client *cl, const struct nb_op *o, int *slot)
{
    int i = handle_find(cl, o->p[0]);
    if (i < 0)
        return probe_thread_fail(t, 0, "dbench: %s line %d: %s on handle %lld, which is not open",
                                 load_name(t), o->line, loadfile_kind_name(o->kind), (long long)o->p[0]);
    if (slot) *slot = i;
    return cl->fd[i];
}

/* One operation; *bytes gets the ReadX/WriteX bytes (dbench's throughput). */
static int do_op(struct probe_thread *t, struct client *cl, const struct nb_op *o, uint64_t *bytes)
{
    char path[PATH_MAX + 1024], path2[PATH_MAX + 1024];
    struct stat st;
    struct statvfs vfs;
    int fd, slot, rc = 0;
    *bytes = 0;
    if (o->path) snprintf(path, sizeof path, "%s%s", cl->root, o->path);
    if (o->path2) snprintf(path2, sizeof path2, "%s%s", cl->root, o->path2);
    switch (o->kind) {
    case NB_NTCREATEX: return nt_create(t, cl, o, path);
    case NB_CLOSE:
        if ((fd = fd_of(t, cl, o, &slot)) < 0) return -1;
        handle_drop(cl, slot);
        return 0;
    case NB_READX: {
        if ((fd = fd_of(t, cl, o, NULL)) < 0) return -1;
        ssize_t r = pread(fd, t->buf, (size_t)o->p[2], (off_t)o->p[1]);
        if (r < 0) return o->expect_ok ? op_fail(t, o, "read", errno) : 0;
        if (r != o->p[3] && o->expect_ok)
            return probe_thread_fail(t, 0, "dbench: %s line %d: ReadX returned %zd bytes, the loadfile expects %lld",
                                     load_name(t), o->line, r, (long long)o->p[3]);
        *bytes = (uint64_t)r;
        return 0;
    }
    case NB_WRITEX: {
        if ((fd = fd_of(t, cl, o, NULL)) < 0) return -1;
        ssize_t r = pwrite(fd, t->buf, (size_t)o->p[2], (off_t)o->p[1]);
        if (r != o->p[3] && o->expect_ok) return op_fail(t, o, "write", r < 0 ? errno : ENOSPC);
        *bytes = r > 0 ? (uint64_t)r : 0;
        return 0;
    }
    case NB_FLUSH:
        if ((fd = fd_of(t, cl, o, NULL)) < 0) return -1;
        rc = fsync(fd);
        break;
    case NB_UNLINK: rc = unlink(path); break;
    case NB_RENAME: rc = rename(path, path2); break;
    case NB_MKDIR: rc = mkdir(path, 0700); break;
    case NB_RMDIR: rc = rmdir(path); break;
    case NB_DELTREE: probe_scratch_remove(path); return 0;   /* like dbench: whatever is there */
    case NB_QPATHINFO: rc = stat(path, &st); break;
    case NB_QFILEINFO:
        if ((fd = fd_of(t, cl, o, NULL)) < 0) return -1;
        rc = fstat(fd, &st);
        break;
    case NB_QFSINFO: rc = statvfs(cl->root, &vfs); break;
    case NB_SFILEINFO:
        if ((fd = fd_of(t, cl, o, NULL)) < 0) return -1;
        rc = futimens(fd, NULL);
        break;
    case NB_FINDFIRST: {
        char *slash = strrchr(path, '/');   /* the pattern's directory */
        if (slash) *slash = 0;
        rc = list_dir(path);
        break;
    }
    case NB_LOCKX:
    case NB_UNLOCKX: {
        if ((fd = fd_of(t, cl, o, NULL)) < 0) return -1;
        struct flock fl = { .l_type = o->kind == NB_LOCKX ? F_WRLCK : F_UNLCK, .l_whence = SEEK_SET,
                            .l_start = (off_t)o->p[1], .l_len = (off_t)o->p[2] };
        rc = fcntl(fd, F_SETLK, &fl);
        break;
    }
    case NB_SLEEP: {
        struct timespec ts = { (time_t)(o->p[0] / 1000000), (long)(o->p[0] % 1000000) * 1000 };
        nanosleep(&ts, NULL);
        return 0;
    }
    default: return 0;
    }
    return rc != 0 && o->expect_ok ? op_fail(t, o, o->path ? rel_path(t, path) : "", errno) : 0;
}

static enum probe_op op_class(enum nb_kind k)
{
    return k == NB_READX ? PROBE_READ : k == NB_WRITEX ? PROBE_WRITE : k == NB_FLUSH ? PROBE_SYNC : PROBE_META;
}

/* A timed line waits for its time in this pass (dbench nb_time_delay),
 * never past the end of the run. */
static void wait_until(struct probe_thread *t, uint64_t at_ns)
{
    uint64_t until = at_ns < t->end_ns ? at_ns : t->end_ns;
    while (probe_now_ns() < until && !atomic_load_explicit(&t->ctx->stop, memory_order_relaxed)) {
        uint64_t left = until - probe_now_ns();
        struct timespec ts = { 0, (long)(left > 50000000 ? 50000000 : left) };
        nanosleep(&ts, NULL);
    }
}

static void close_all(struct client *cl)
{
    while (cl->nopen) handle_drop(cl, 0);
}

static int dbench_thread(struct probe_thread *t)
{
    struct dbench *d = t->ctx->wl;
    struct client *cl = &d->clients[t->idx];
    uint64_t pass_t0 = 0;
    int rc = 0;
    for (int pos = 0;; pos = (pos + 1) % d->load.n) {
        const struct nb_op *o = &d->load.ops[pos];
        if (pos == 0) pass_t0 = probe_now_ns();
        if (o->at_s >= 0) wait_until(t, pass_t0 + (uint64_t)(o->at_s * 1e9));
        uint64_t bytes, t0 = probe_now_ns();
        if ((rc = do_op(t, cl, o, &bytes)) < 0) break;
        uint64_t t1 = probe_now_ns();
        probe_account(t, op_class(o->kind), t0, t1, bytes);
        if (t1 >= t->ramp_end_ns) {
            struct op_stat *s = &cl->st[o->kind];
            s->count++;
            s->total_ns += t1 - t0;
            if (t1 - t0 > s->max_ns) s->max_ns = t1 - t0;
        }
        if (probe_should_stop(t, t1)) break;
    }
    close_all(cl);
    return rc;
}

/* dbench's per-operation table as phase rows: count, mean and max latency. */
static int dbench_run(struct probe_ctx *c, struct probe_result *r, sl_err *e)
{
    struct dbench *d = c->wl;
    for (int i = 0; i < d->nclients; i++) memset(d->clients[i].st, 0, sizeof d->clients[i].st);
    if (c->progress) atomic_store(&c->progress->total_ms, c->spec.ramp_ms + c->spec.time_ms);
    struct probe_phase_stats ps = { 0 };
    int rc = probe_phase_run(c, c->spec.threads, dbench_thread, c->spec.ramp_ms, c->spec.time_ms, &ps, e);
    for (int k = 0; k < NB_KIND_NR && r->nphases < PROBE_MAX_PHASES; k++) {
        struct op_stat sum = { 0 };
        for (int i = 0; i < d->nclients; i++) {
            const struct op_stat *s = &d->clients[i].st[k];
            sum.count += s->count;
            sum.total_ns += s->total_ns;
            if (s->max_ns > sum.max_ns) sum.max_ns = s->max_ns;
        }
        if (!sum.count) continue;
        struct probe_phase *p = &r->phase[r->nphases++];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "%s", loadfile_kind_name((enum nb_kind)k));
        p->threads = d->nclients;
        p->ios = sum.count;
        p->iops = ps.wall_s > 0 ? (double)sum.count / ps.wall_s : 0;
        p->lat_mean_ms = (double)sum.total_ns / (double)sum.count / 1e6;
        p->lat_max_ms = (double)sum.max_ns / 1e6;
    }
    return rc;
}

static bool print(const struct probe_result *r, FILE *out)
{
    fprintf(out, "  Operation                Count    AvgLat    MaxLat\n");
    fprintf(out, "  --------------------------------------------------\n");
    double max_ms = 0;
    for (int i = 0; i < r->nphases; i++) {
        const struct probe_phase *p = &r->phase[i];
        fprintf(out, "  %-20s %9llu %9.3f %9.3f\n", p->name, (unsigned long long)p->ios, p->lat_mean_ms, p->lat_max_ms);
        if (p->lat_max_ms > max_ms) max_ms = p->lat_max_ms;
    }
    fprintf(out, "\n  Throughput %g MB/sec %d clients\n", round(r->mb_s * 1000) / 1000, r->spec.threads);
    fprintf(out, "  loadfile %s (sha256 %.12s), max latency %.3f ms\n",
            r->spec.loadfile[0] ? r->spec.loadfile : "(built-in)", r->spec.loadfile_hash, max_ms);
    return true;
}

static void cleanup(struct probe_ctx *c)
{
    struct dbench *d = c->wl;
    if (!d) return;
    for (int i = 0; i < d->nclients; i++) close_all(&d->clients[i]);
    loadfile_free(&d->load);
    free(d->clients);
    free(d);
    c->wl = NULL;
}

static void fio_job(const struct probe_spec *s, FILE *out)
{
    fprintf(out, "; dbench replays a NetBench loadfile (%s): opens, stats, renames and\n"
                 "; listings have no fio equivalent; this is its data path only: mostly small reads,\n"
                 "; writes up to 64k, an fsync now and then\n", s->loadfile[0] ? s->loadfile : "built-in");
    probe_fio_global(s, out, "randrw");
    fprintf(out, "rwmixread=80\nbsrange=512-64k\nnrfiles=8\nfile_service_type=random\nfsync=50\n\n[dbench]\n");
}

const struct probe_workload_ops workload_dbench = {
    .name = "dbench", .summary = "dbench: each client replays a NetBench loadfile (--loadfile; built-in: an office mix) in its own tree",
    .flags = WL_READS | WL_WRITES | WL_DIRTIES | WL_LOADFILE, .def_threads = 4, .def_bs = DEF_BUF, .def_size = 64u << 20,
    .validate = validate, .layout = layout, .run = dbench_run, .print = print, .fio_job = fio_job, .cleanup = cleanup,
};
