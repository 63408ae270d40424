/* files — scratch files with real data, laid out and fsynced before any
 * measuring (fio "Laying out IO file"; a fallocated file reads as zeros
 * without touching the device). */
#include "probe/probe_internal.h"
#include "probe/settle.h"
#include "core/interrupt.h"
#include "core/sysfs.h"
#include "core/vmstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LAYOUT_CHUNK (1u << 20)

static const char *scratch_of(struct probe_ctx *c, int dir)
{
    return dir == 0 ? c->scratch : c->scratch_extra[dir];
}

static int write_fail(struct probe_ctx *c, int err, const char *path, sl_err *e)
{
    if (err == ENOSPC || err == EDQUOT)
        return sl_fail(e, SL_EFAIL, "the filesystem under %s filled up while laying out %s (%s): give a smaller --size "
                                    "or free some space",
                       c->spec.dir[0], path, strerror(err));
    return sl_fail_errno(e, SL_EFAIL, err, "laying out %s", path);
}

static int fill_file(struct probe_ctx *c, int fd, const char *path, uint64_t size, sl_err *e)
{
    unsigned char *chunk = xmalloc(LAYOUT_CHUNK);
    uint64_t seed = c->spec.seed ^ (uint64_t)c->nfiles;
    for (uint64_t off = 0; off < size;) {
        size_t len = size - off < LAYOUT_CHUNK ? (size_t)(size - off) : LAYOUT_CHUNK;
        probe_fill_random(chunk, len, seed + off);
        ssize_t w = pwrite(fd, chunk, len, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int err = w < 0 ? errno : ENOSPC;
            free(chunk);
            return write_fail(c, err, path, e);
        }
        off += (uint64_t)w;
        if (interrupt_signal) {
            free(chunk);
            return sl_fail(e, SL_EFAIL, "interrupted while laying out %s: nothing was measured or stored; the probe "
                           "removes its scratch files and changed no knob: run it again for a measurement", path);
        }
    }
    free(chunk);
    if (fsync(fd) != 0) return write_fail(c, errno, path, e);
    return 0;
}

int probe_file_create(struct probe_ctx *c, int dir, const char *name, uint64_t size, sl_err *e)
{
    struct probe_file f = { .fd = -1, .size = size, .dir = dir };
    snprintf(f.path, sizeof f.path, "%s/%s", scratch_of(c, dir), name);
    int fd = open(f.path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return sl_fail_errno(e, SL_EFAIL, errno, "creating %s", f.path);
    /* Record it before filling so probe_close removes it whatever happens. */
    c->files = xrealloc(c->files, sizeof *c->files * (size_t)(c->nfiles + 1));
    c->files[c->nfiles] = f;
    c->files[c->nfiles].fd = fd;
    struct probe_file *pf = &c->files[c->nfiles++];
    if (size && fill_file(c, fd, pf->path, size, e) < 0) return -1;
    if (c->spec.direct) {
        int dfd = open(pf->path, O_RDWR | O_DIRECT | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0) {
            if (errno == EINVAL)
                return sl_fail(e, SL_EUSAGE, "--direct: the filesystem under %s refuses O_DIRECT (ramfs does, tmpfs did before Linux 6.6): drop "
                                             "--direct or give a --dir on a disk filesystem",
                               c->spec.dir[dir]);
            return sl_fail_errno(e, SL_EFAIL, errno, "opening %s with O_DIRECT", pf->path);
        }
        close(pf->fd);
        pf->fd = dfd;
    }
    return 0;
}

int probe_layout_per_thread(struct probe_ctx *c, uint64_t min_size, sl_err *e)
{
    uint64_t per = c->spec.size_bytes / (uint64_t)c->spec.threads;
    per -= per % c->spec.bs;
    if (per < c->spec.bs) per = c->spec.bs;
    if (per < min_size) per = min_size;
    if (c->progress) atomic_store(&c->progress->state, PROBE_LAYOUT);
    for (int i = 0; i < c->spec.threads; i++) {
        char name[32];
        snprintf(name, sizeof name, "file.%d", i);
        if (probe_file_create(c, 0, name, per, e) < 0) return -1;
    }
    return 0;
}

void probe_fio_global(const struct probe_spec *s, FILE *out, const char *rw)
{
    fprintf(out, "; equivalent fio job for: sluice probe %s (seed %llu)\n", s->workload, (unsigned long long)s->seed);
    fprintf(out, "[global]\n");
    if (s->ndirs > 0) fprintf(out, "directory=%s\n", s->dir[0]);
    fprintf(out, "rw=%s\nbs=%llu\n", rw, (unsigned long long)s->bs);
    fprintf(out, "size=%llu\n", (unsigned long long)(s->size_bytes / (uint64_t)(s->threads ? s->threads : 1)));
    fprintf(out, "numjobs=%d\n", s->threads);
    /* sluice's loops are these engines' loops, and its latency is one of
     * fio's intervals: say which, so a comparison compares like with like. */
    if (s->direct && s->iodepth > 1)
        fprintf(out, "ioengine=io_uring\niodepth=%d\niodepth_batch_submit=1\niodepth_batch_complete_min=1\n"
                     "; sluice reaps every completion there is (fio's default reaps one per pass)\n"
                     "iodepth_batch_complete_max=%d\n"
                     "; sluice's latency runs from just before submission to reaping: fio's lat (slat + clat)\n",
                s->iodepth, s->iodepth);
    else
        fprintf(out, "ioengine=psync\n; sluice's latency is the read or write call itself: fio's clat for sync engines\n");
    /* sluice's I/O buffers are page-aligned; fio aligns buffered ones only when asked */
    fprintf(out, "iomem_align=4096\n");
    fprintf(out, "direct=%d\n", s->direct ? 1 : 0);
    /* fixed work: size bytes per job once, then end_fsync; fio's own default */
    if (s->fixed_work) fprintf(out, "; fixed work: every configuration writes the same bytes once, timed to durable\n");
    else fprintf(out, "time_based=1\nruntime=%llums\nramp_time=%llums\n", (unsigned long long)s->time_ms,
                 (unsigned long long)s->ramp_ms);
    /* the regime sluice measured: idle before the first write (fio's
     * startdelay), which moves a buffered writer on some machines more than
     * the knob under test does (bench/carry-over) */
    if (s->idle_ms)
        fprintf(out, "; sluice's --idle-before: no I/O for this long before the run\nstartdelay=%llums\n",
                (unsigned long long)s->idle_ms);
    /* the wait a run starts with on a VM that reports free pages (settle.h),
     * which fio has no option for */
    if (probe_waits_for_freed_memory(s))
        fprintf(out, "; sluice starts each run once this VM has handed the memory the previous run freed back to its\n"
                     "; host (free page reporting: %s,\n"
                     "; in passes 2 s apart). fio cannot wait for that: start each run once no pass of %u MiB or more\n"
                     "; has moved that counter for %d s (9 to 17 s after fio removed a 2 GiB file on this project's VM,\n"
                     "; as the kernel's page_reporting_order was 9 or 5), or each runs at whatever speed the passes\n"
                     "; leave it, 400 to 2500 MB/s there\n",
                VMSTAT_REPORTED_KIB, SETTLE_PASS_MIN_KIB >> 10, SETTLE_QUIET_MS / 1000);
    fprintf(out, "randrepeat=0\nrandseed=%llu\ngroup_reporting=1\n", (unsigned long long)s->seed);
    /* sluice writes the same random buffer each time; fio by default alters it per write */
    fprintf(out, "scramble_buffers=0\n");
}

void probe_evict_files(struct probe_ctx *c)
{
    for (int i = 0; i < c->nfiles; i++) {
        int fd = c->files[i].fd;
        /* DONTNEED cannot drop dirty pages or pages under writeback: sync first. */
        if (fd < 0 || fdatasync(fd) != 0) continue;
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    }
}
