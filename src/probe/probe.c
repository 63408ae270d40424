/* probe — validating a spec, the scratch directory and its files, and the
 * life of a probe across repetitions. */
#include "probe/probe_internal.h"
#include "core/device.h"
#include "db/store_scratch.h"
#include "core/sysfs.h"
#include "core/units.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>
#include <uuid/uuid.h>

struct probe {
    struct probe_ctx c;
    char batch[37];
    char size_note[256];
    char reap_note[1024];    /* stale scratch directories removed at open */
    store *st;               /* records the scratch directories (NULL: none) */
    char recorded[PROBE_MAX_DIRS][PATH_MAX];   /* as recorded, to forget them */
};

void probe_uuid(char out[37])
{
    uuid_t u;
    uuid_generate_random(u);
    uuid_unparse_lower(u, out);
}

const struct probe_spec *probe_spec_resolved(const struct probe *p) { return &p->c.spec; }

static int check_dir(const char *dir, sl_err *e)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return sl_fail_errno(e, SL_EUSAGE, errno, "--dir %s", dir);
    if (!S_ISDIR(st.st_mode))
        return sl_fail(e, SL_EUSAGE, "--dir %s is not a directory: give a directory on the filesystem to measure", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return sl_fail(e, SL_EUSAGE, "--dir %s is not writable by this user: give a writable directory (or run as root)", dir);
    return 0;
}

#define FIXED_WORK_LIMIT_MS (10ull * 60 * 1000)

/* A buffered writer does fixed work unless --time asks for a time-based
 * run: the same bytes for every configuration compared, none written
 * twice, and the time to durable measured from the first write. */
static int fix_work(struct probe_spec *s, const struct probe_workload_ops *ops, sl_err *e)
{
    s->fixed_work = (ops->flags & WL_FIXED_WORK) && !s->direct && !s->time_based;
    if (!s->fixed_work) return 0;
    if (s->ramp_set && s->ramp_ms)
        return sl_fail(e, SL_EUSAGE, "--ramp: a buffered %s probe does fixed work (writes --size once, then fsync) timed "
                                     "from its first byte; give --time as well for a time-based run with a ramp", ops->name);
    s->ramp_ms = 0;
    s->ramp_set = 1;
    if (s->time_ms == 0) s->time_ms = FIXED_WORK_LIMIT_MS;
    return 0;
}

/* Common limits, then defaults from the workload row. */
static int resolve_spec(struct probe_spec *s, const struct probe_workload_ops *ops, sl_err *e)
{
    if (s->threads == 0) s->threads = ops->def_threads;
    if (s->bs == 0) s->bs = ops->def_bs;
    if (s->bs < PROBE_MIN_BS || s->bs > PROBE_MAX_BS || s->bs % PROBE_MIN_BS)
        return sl_fail(e, SL_EUSAGE, "--bs %llu: give a multiple of %d bytes from %d to %lluM", (unsigned long long)s->bs,
                       PROBE_MIN_BS, PROBE_MIN_BS, PROBE_MAX_BS >> 20);
    /* Before the defaults: fixed work has no ramp and a generous time limit. */
    if (fix_work(s, ops, e) < 0) return -1;
    if (s->time_ms == 0) s->time_ms = (uint64_t)probe_spec_default("time");
    if (!s->ramp_set) s->ramp_ms = (uint64_t)probe_spec_default("ramp");
    if (s->iodepth == 0) s->iodepth = (int)probe_spec_default("iodepth");
    if (s->repeat == 0) s->repeat = (int)probe_spec_default("repeat");
    if (s->sync_every == 0) s->sync_every = ops->def_sync_every;
    if (probe_spec_check(s, e) < 0) return -1;
    if (s->direct && !(ops->flags & WL_DIRECT_OK))
        return sl_fail(e, SL_EUSAGE, "--direct: the %s workload does not support O_DIRECT", ops->name);
    if (s->iodepth > 1 && !(ops->flags & WL_IODEPTH_OK))
        return sl_fail(e, SL_EUSAGE, "--iodepth: the %s workload runs at depth 1", ops->name);
    if (s->iodepth > 1 && !s->direct)
        return sl_fail(e, SL_EUSAGE, "--iodepth %d needs --direct: buffered I/O completes synchronously, so a deeper queue "
                                     "measures nothing more", s->iodepth);
    if (s->size_bytes && (s->size_bytes > PROBE_MAX_SIZE || s->size_bytes < s->bs * (uint64_t)s->threads))
        return sl_fail(e, SL_EUSAGE, "--size %llu: give at least --bs times --threads (%llu) and at most 16T",
                       (unsigned long long)s->size_bytes, (unsigned long long)(s->bs * (uint64_t)s->threads));
    if (ops->flags & WL_NO_IO) {
        s->ndirs = 0;
    } else {
        probe_spec_default_dir(s);
        if (s->ndirs > 1 && !(ops->flags & WL_MULTI_DIR))
            return sl_fail(e, SL_EUSAGE, "--dir given %d times: only multidisk takes several directories", s->ndirs);
        for (int i = 0; i < s->ndirs; i++)
            if (check_dir(s->dir[i], e) < 0) return -1;
    }
    if (s->loadfile[0] && !(ops->flags & WL_LOADFILE))
        return sl_fail(e, SL_EUSAGE, "--loadfile: only dbench replays a loadfile, not %s", ops->name);
    if (s->canary < 0) s->canary = (ops->flags & WL_WRITES) ? 1 : 0;
    if (!s->seed_set) {
        uint64_t st = (uint64_t)probe_now_ns() ^ ((uint64_t)getpid() << 32);
        s->seed = probe_splitmix(&st) >> 1;   /* fits SQLite's signed integers */
        s->seed_set = true;
    }
    return ops->validate ? ops->validate(s, e) : 0;
}

/* Buffered writes exceed the dirty limit by this much, so the run spends
 * most of its bytes throttled or written back rather than in free-run. */
#define SIZE_OVER_LIMIT 2
#define SIZE_FLOOR (64ull << 20)

/* want bytes, within half the free space (a note says so when capped), as
 * a multiple of bs x threads. */
static uint64_t size_within(const struct probe_spec *s, uint64_t want, uint64_t free_bytes, bool *capped)
{
    if (want < SIZE_FLOOR) want = SIZE_FLOOR;
    *capped = free_bytes && want > free_bytes / 2;
    if (*capped) want = free_bytes / 2;
    uint64_t unit = s->bs * (uint64_t)s->threads;
    uint64_t size = want / unit * unit;
    return size < unit ? unit : size;
}

/* A probe on its own (no comparison sized it): from the threshold in force. */
static void size_buffered(struct probe *p, uint64_t free_bytes)
{
    struct probe_spec *s = &p->c.spec;
    const struct vmstat *v = &p->c.vm0;
    uint64_t want = v->has_threshold ? SIZE_OVER_LIMIT * v->thresh * p->c.page_size : (1ull << 30);
    bool capped;
    s->size_bytes = size_within(s, want, free_bytes, &capped);
    if (capped)
        snprintf(p->size_note, sizeof p->size_note,
                 "write volume capped by free space at half of what reaching the dirty threshold needs");
}

static uint64_t free_bytes_of(const char *dir)
{
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0) return 0;
    return (uint64_t)vfs.f_bavail * vfs.f_frsize;
}

/* Default sizes: a workload's own, or for buffered writes from the dirty
 * threshold. */
static void size_spec(struct probe *p)
{
    struct probe_spec *s = &p->c.spec;
    const struct probe_workload_ops *ops = p->c.ops;
    if (s->ndirs == 0) {
        if (!s->size_bytes) s->size_bytes = 256ull << 20;
        return;
    }
    if (s->size_bytes == 0 && (ops->flags & WL_BUFFERED_SIZED) && !s->direct) size_buffered(p, free_bytes_of(s->dir[0]));
    else if (s->size_bytes == 0) s->size_bytes = ops->def_size ? ops->def_size : (256ull << 20);
    uint64_t unit = s->bs * (uint64_t)s->threads;
    if (s->size_bytes < unit) s->size_bytes = unit;
}

/* How often a time-based writer may run past its file onto fresh offsets:
 * as many file sizes as half the free space holds (at least the file
 * itself). SLUICE_PROBE_FRESH_PASSES caps it (test hook: reach the wrap
 * without filling a disk). */
static void fresh_budget(struct probe *p, uint64_t free_bytes)
{
    struct probe_spec *s = &p->c.spec;
    uint64_t passes = s->size_bytes ? free_bytes / 2 / s->size_bytes : 1;
    const char *hook = getenv("SLUICE_PROBE_FRESH_PASSES");
    if (hook && strtoull(hook, NULL, 10) < passes) passes = strtoull(hook, NULL, 10);
    p->c.fresh_passes = passes ? passes : 1;
}

uint64_t probe_space_need(const struct probe_spec *s)
{
    /* Per directory for multidisk: each holds its writers' share. */
    return s->ndirs ? s->size_bytes / (uint64_t)s->ndirs + s->size_bytes / 32 + (8ull << 20) : 0;
}

static int check_space(struct probe *p, sl_err *e)
{
    struct probe_spec *s = &p->c.spec;
    if (s->ndirs == 0 || getenv("SLUICE_PROBE_NO_SPACE_CHECK")) return 0;   /* test hook: reach ENOSPC mid-run */
    uint64_t need = probe_space_need(s);
    for (int i = 0; i < s->ndirs; i++) {
        struct statvfs vfs;
        if (statvfs(s->dir[i], &vfs) != 0) return sl_fail_errno(e, SL_EFAIL, errno, "statvfs %s", s->dir[i]);
        uint64_t free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
        /* ramfs and the like report no size at all: nothing to check against. */
        if (vfs.f_blocks != 0 && free_bytes < need) {
            char nb[32], fb[32];
            units_format_bytes(need, nb, sizeof nb);
            units_format_bytes(free_bytes, fb, sizeof fb);
            return sl_fail(e, SL_EUSAGE, "no room in %s: the %s probe needs %s (--size plus metadata), %s is free: give "
                                         "a smaller --size or another --dir", s->dir[i], p->c.ops->name, nb, fb);
        }
    }
    return 0;
}

static int make_scratch(struct probe *p, sl_err *e)
{
    struct probe_spec *s = &p->c.spec;
    for (int i = 0; i < s->ndirs; i++) {
        char *dst = i == 0 ? p->c.scratch : p->c.scratch_extra[i];
        if (probe_scratch_create(s->dir[i], dst, PATH_MAX) < 0) {
            int err = errno;
            return sl_fail_errno(e, err == EROFS || err == EACCES ? SL_EUSAGE : SL_EFAIL, err,
                                 "creating a scratch directory in %s", s->dir[i]);
        }
        /* Right after mkdtemp: a SIGKILL in between leaves a directory only
         * the next probe there removes (as with --no-store). */
        if (p->st && probe_scratch_record(p->st, dst, p->recorded[i], e) < 0) {
            p->recorded[i][0] = 0;
            return -1;
        }
    }
    snprintf(p->c.scratch_extra[0], PATH_MAX, "%s", p->c.scratch);
    return 0;
}

static void find_disk(struct probe *p)
{
    if (p->c.spec.ndirs == 0) return;
    /* tmpfs and other virtual filesystems have no disk under them. */
    p->c.has_disk = device_for_path(p->c.spec.dir[0], p->c.disk, sizeof p->c.disk, NULL) == 0;
    if (!p->c.has_disk) p->c.disk[0] = 0;
}

int probe_open(const struct probe_spec *spec, struct probe **out, sl_err *e)
{
    return probe_open_recorded(spec, NULL, out, e);
}

int probe_open_recorded(const struct probe_spec *spec, store *st, struct probe **out, sl_err *e)
{
    const struct probe_workload_ops *ops = workload_find(spec->workload);
    if (!ops) {
        char names[512] = "";
        for (int i = 0; i < workload_table_len; i++) {
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s%s", i ? ", " : "", workload_table[i]->name);
        }
        return sl_fail(e, SL_EUSAGE, "unknown workload \"%s\": give one of %s", spec->workload, names);
    }
    struct probe *p = xcalloc(1, sizeof *p);
    p->c.spec = *spec;
    p->c.ops = ops;
    p->st = st;
    p->c.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
    atomic_init(&p->c.stop, 0);
    vmstat_read(&p->c.vm0);
    probe_uuid(p->batch);
    if (resolve_spec(&p->c.spec, ops, e) < 0) {
        free(p);
        return -1;
    }
    /* Before the space check: what a killed probe left holds space. */
    for (int i = 0; i < p->c.spec.ndirs; i++) probe_scratch_reap(p->c.spec.dir[i], p->reap_note, sizeof p->reap_note);
    size_spec(p);
    if (p->c.spec.ndirs) fresh_budget(p, free_bytes_of(p->c.spec.dir[0]));
    if (check_space(p, e) < 0) {
        free(p);
        return -1;
    }
    find_disk(p);
    p->c.seed = p->c.spec.seed;
    if (make_scratch(p, e) < 0) {
        probe_close(p);
        return -1;
    }
    if (ops->layout) {
        if (ops->layout(&p->c, e) < 0) {
            probe_close(p);
            return -1;
        }
    }
    *out = p;
    return 0;
}

void probe_close(struct probe *p)
{
    if (!p) return;
    if (p->c.ops && p->c.ops->cleanup) p->c.ops->cleanup(&p->c);
    for (int i = 0; i < p->c.nfiles; i++)
        if (p->c.files[i].fd >= 0) close(p->c.files[i].fd);
    free(p->c.files);
    for (int i = 0; i < p->c.spec.ndirs; i++) {
        const char *dir = i == 0 ? p->c.scratch : p->c.scratch_extra[i];
        sl_err e;
        /* A record whose directory is gone is dropped by the next restore. */
        if (dir[0] && probe_scratch_remove(dir) == 0 && p->recorded[i][0])
            (void)store_scratch_forget(p->st, p->recorded[i], &e);
    }
    free(p);
}

int probe_spec_resolve(struct probe_spec *spec, sl_err *e)
{
    const struct probe_workload_ops *ops = workload_find(spec->workload);
    if (!ops) return sl_fail(e, SL_EUSAGE, "unknown workload \"%s\"", spec->workload);
    struct probe *p = xcalloc(1, sizeof *p);
    p->c.spec = *spec;
    p->c.ops = ops;
    p->c.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
    vmstat_read(&p->c.vm0);
    int rc = resolve_spec(&p->c.spec, ops, e);
    if (rc == 0) {
        size_spec(p);
        *spec = p->c.spec;
    }
    free(p);
    return rc;
}

uint64_t probe_dirty_limit_at(int ratio_pct)
{
    return ratio_pct > 0 ? vmstat_dirtyable_bytes() / 100 * (uint64_t)ratio_pct : 0;
}

uint64_t probe_dirty_limit_now(void)
{
    struct vmstat v;
    if (vmstat_read(&v) < 0 || !v.has_threshold) return 0;
    return v.thresh * (uint64_t)sysconf(_SC_PAGESIZE);
}

void probe_spec_default_dir(struct probe_spec *s)
{
    const struct probe_workload_ops *ops = workload_find(s->workload);
    if (s->ndirs || !ops || (ops->flags & WL_NO_IO)) return;
    snprintf(s->dir[0], sizeof s->dir[0], "%s", PROBE_DIR_DEFAULT);
    s->ndirs = 1;
}

const char *probe_dir_in_memory(const char *dir)
{
    struct statfs fs;
    if (statfs(dir, &fs) != 0) return NULL;
    if (fs.f_type == TMPFS_MAGIC) return "tmpfs";
    if (fs.f_type == RAMFS_MAGIC) return "ramfs";
    return NULL;
}

bool probe_spec_is_burst(const struct probe_spec *s)
{
    const struct probe_workload_ops *ops = workload_find(s->workload);
    return ops && (ops->flags & WL_BUFFERED_SIZED) && !s->direct && !s->time_based && s->ndirs > 0;
}

int probe_spec_size_for_limit(struct probe_spec *s, uint64_t largest_limit_bytes, char *note, size_t n, bool *capped,
                              sl_err *e)
{
    const struct probe_workload_ops *ops = workload_find(s->workload);
    note[0] = 0;
    *capped = false;
    if (!ops || !(ops->flags & WL_BUFFERED_SIZED) || s->direct || s->size_bytes || s->ndirs == 0) return 0;
    struct statvfs vfs;
    if (statvfs(s->dir[0], &vfs) != 0) return sl_fail_errno(e, SL_EUSAGE, errno, "--dir %s", s->dir[0]);
    uint64_t free_bytes = vfs.f_blocks ? (uint64_t)vfs.f_bavail * vfs.f_frsize : 0;
    struct probe_spec r = *s;
    if (r.threads == 0) r.threads = ops->def_threads;
    if (r.bs == 0) r.bs = ops->def_bs;
    if (r.threads < 1 || r.bs == 0) return 0;   /* resolve says what is wrong */
    uint64_t want = largest_limit_bytes ? SIZE_OVER_LIMIT * largest_limit_bytes : (1ull << 30);
    s->size_bytes = size_within(&r, want, free_bytes, capped);
    char lb[32], sb[32], fb[32];
    units_format_bytes(largest_limit_bytes, lb, sizeof lb);
    units_format_bytes(s->size_bytes, sb, sizeof sb);
    units_format_bytes(free_bytes, fb, sizeof fb);
    if (*capped)
        snprintf(note, n, "write volume %s for every configuration: the largest dirty limit the space can set is %s, "
                          "so %d times that is needed, but only %s is free under %s (capped at half): configurations "
                          "with the largest limits will not reach their threshold", sb, lb, SIZE_OVER_LIMIT, fb, s->dir[0]);
    else if (largest_limit_bytes)
        snprintf(note, n, "write volume %s for every configuration: %d times %s, the largest dirty limit the space can set",
                 sb, SIZE_OVER_LIMIT, lb);
    else
        snprintf(note, n, "write volume %s for every configuration: no dirty limit is known on this system", sb);
    return 0;
}

void probe_fio_job(const struct probe_spec *spec, FILE *out)
{
    const struct probe_workload_ops *ops = workload_find(spec->workload);
    if (!ops || !ops->fio_job) return;
    ops->fio_job(spec, out);
    /* the canary's load is part of the work sluice times */
    if (spec->canary > 0 && !(ops->flags & WL_NO_IO))
        canary_fio_jobs(spec, spec->threads == 1 && spec->ndirs <= 1 && !ops->run, out);
}

const char *probe_batch(const struct probe *p) { return p->batch; }
const char *probe_size_note(const struct probe *p) { return p->size_note; }
const char *probe_reap_note(const struct probe *p) { return p->reap_note; }
struct probe_ctx *probe_ctx_of(struct probe *p) { return &p->c; }
