/* rep — one repetition: drain dirty data, make reads cold, fresh seed, run
 * the workload beside the canary, and fill the result. */
#include "probe/probe_internal.h"
#include "probe/settle.h"
#include "core/device.h"
#include "core/interrupt.h"
#include "core/sysfs.h"
#include "core/units.h"
#include "core/vmstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DRAIN_TIMEOUT_NS (10ull * 1000000000ull)

static void note_add(struct probe_result *r, const char *fmt, const char *arg)
{
    size_t l = strlen(r->note);
    if (l && l + 2 < sizeof r->note) { r->note[l++] = ';'; r->note[l++] = ' '; r->note[l] = 0; }
    snprintf(r->note + l, sizeof r->note - l, fmt, arg);
}

/* Wait until the previous repetition's dirty data is written, so its
 * writeback does not leak into this one. */
static void drain(struct probe_ctx *c, struct probe_result *r)
{
    if (c->scratch[0]) {
        int fd = open(c->scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            if (syncfs(fd) != 0) note_add(r, "syncfs before the run failed: %s", strerror(errno));
            close(fd);
        }
    }
    /* A fixture root's vmstat never changes: nothing to wait for. */
    if (!sysfs_is_real_root()) return;
    uint64_t deadline = probe_now_ns() + DRAIN_TIMEOUT_NS;
    for (;;) {
        struct vmstat v;
        if (vmstat_read(&v) < 0) return;
        uint64_t limit = v.has_threshold ? v.thresh / 100 : 0;
        if (limit < 4096) limit = 4096;   /* 16 MiB of 4 KiB pages: other tasks' noise */
        if (v.nr_dirty + v.nr_writeback <= limit) return;
        if (probe_now_ns() > deadline || interrupt_signal) {
            note_add(r, "%s", "dirty data did not drain within 10 s before the run (other writers?)");
            return;
        }
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
}

/* tmpfs and small runs do not wait (SETTLE_MIN_BYTES); the rest do on the
 * real system, where the kernel counts what it hands back */
static bool waits_for_freed_memory(const struct probe_spec *s, bool has_disk)
{
    uint64_t v;
    return has_disk && s->size_bytes >= SETTLE_MIN_BYTES && sysfs_is_real_root() && vmstat_reported_kib(&v) == 0;
}

bool probe_waits_for_freed_memory(const struct probe_spec *spec)
{
    struct probe_spec s = *spec;
    sl_err e;
    char disk[64];
    if (probe_spec_resolve(&s, &e) < 0 || s.ndirs < 1) return false;
    return waits_for_freed_memory(&s, device_for_path(s.dir[0], disk, sizeof disk, NULL) == 0);
}

int probe_settle_wait(uint64_t size_bytes, atomic_int *stop, uint64_t *waited_ms)
{
    uint64_t v, t0 = probe_now_ns() / 1000000ull;
    if (waited_ms) *waited_ms = 0;
    if (vmstat_reported_kib(&v) < 0) return 1;
    struct settle s;
    settle_begin(&s, t0, v, settle_max_ms(size_bytes));
    int rc = 0;
    while (rc == 0 && !(stop && atomic_load(stop)) && !interrupt_signal) {
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
        if (vmstat_reported_kib(&v) < 0) { rc = 1; break; }
        rc = settle_step(&s, probe_now_ns() / 1000000ull, v);
    }
    if (waited_ms) *waited_ms = probe_now_ns() / 1000000ull - t0;
    return rc;
}

/* The host takes back what the previous run freed before this one starts
 * (settle.h). */
static void settle_freed_memory(struct probe_ctx *c, struct probe_result *r)
{
    if (!waits_for_freed_memory(&c->spec, c->has_disk)) return;
    if (probe_settle_wait(c->spec.size_bytes, &c->stop, NULL) < 0) {
        char why[160];
        snprintf(why, sizeof why, "this VM was still handing freed memory back to its host after %llu s (free page "
                                  "reporting): the run may have met pages the host took back",
                 (unsigned long long)(settle_max_ms(c->spec.size_bytes) / 1000));
        note_add(r, "%s", why);
    }
}

/* Cold reads: drop the page cache when we are root on the real system,
 * otherwise evict our own files' pages and call the run warm. */
static void make_cold(struct probe_ctx *c, struct probe_result *r)
{
    if (!(c->ops->flags & WL_READS)) return;
    if (c->spec.direct) { r->cold = true; return; }
    /* tmpfs and ramfs keep their data in the page cache: nothing to drop,
     * and dropping everyone else's cache would only disturb the run. */
    if (!c->has_disk) return;
    if (geteuid() == 0 && sysfs_is_real_root()) {
        sync();
        /* vm.drop_caches is an action, not a setting: the catalogue marks it
         * destructive so `set`, searches and knobsets refuse it. Dropping
         * clean caches is exactly what a cold-read probe needs and loses no
         * data, so the probe writes it directly. */
        sl_err e;
        if (sysfs_write("/proc/sys/vm/drop_caches", "3", &e) == 0) {
            r->cold = true;
            return;
        }
        note_add(r, "dropping caches failed (%s)", e.msg);
    }
    probe_evict_files(c);
    r->status = PROBE_WARM;
    note_add(r, "%s", geteuid() == 0 ? "caches not dropped (--root is not the real system): file pages evicted with "
                                       "POSIX_FADV_DONTNEED only, metadata stays cached"
                                     : "not root: caches not dropped, file pages evicted with POSIX_FADV_DONTNEED "
                                       "only, metadata stays cached");
}

/* --idle-before: none of our I/O for the given time, just before the
 * window, so the run meets the machine as a burst after a quiet spell does.
 * What ran just before moves a buffered writer: bench/carry-over measured
 * vm.dirty_ratio=10/background 2 against 20/10 at +20.0% after 20 s idle and
 * +26.3% back to back on this project's VM (bench/data/carry-over.out; ad
 * hoc runs not kept gave up to +65% back to back), and the defaults at
 * 764 MB/s after idle against 1615 back to back (free page reporting gives
 * a quiet guest's memory back to the host; the next burst pays to fault it
 * in). Back to back stays the default: a search's runs follow each other. */
static void idle_before(struct probe_ctx *c)
{
    struct probe_progress *pg = c->progress;
    int was = pg ? atomic_load(&pg->state) : PROBE_IDLE;
    if (pg) {
        atomic_store(&pg->total_ms, c->spec.idle_ms);
        atomic_store(&pg->elapsed_ms, 0);
        atomic_store(&pg->state, PROBE_QUIET);
    }
    uint64_t t0 = probe_now_ns(), end = t0 + c->spec.idle_ms * 1000000ull;
    while (!atomic_load(&c->stop) && !interrupt_signal) {
        uint64_t now = probe_now_ns();
        if (pg) atomic_store(&pg->elapsed_ms, (now < end ? now - t0 : end - t0) / 1000000ull);
        if (now >= end) break;
        uint64_t left = end - now < 100000000ull ? end - now : 100000000ull;   /* a signal is seen within 0.1 s */
        struct timespec ts = { (time_t)(left / 1000000000ull), (long)(left % 1000000000ull) };
        nanosleep(&ts, NULL);
    }
    /* The window's own clock starts at 0; its phase sets its state. */
    if (pg) {
        atomic_store(&pg->elapsed_ms, 0);
        atomic_store(&pg->state, was);
    }
}

static void fill_identity(struct probe *p, int rep, struct probe_result *r)
{
    struct probe_ctx *c = probe_ctx_of(p);
    probe_uuid(r->uuid);
    snprintf(r->batch, sizeof r->batch, "%s", probe_batch(p));
    r->rep = rep;
    r->reps = c->spec.repeat;
    uint64_t st = c->spec.seed ^ ((uint64_t)rep * 0xd1b54a32d192ed03ull);
    r->seed = rep == 0 ? c->spec.seed : probe_splitmix(&st) >> 1;   /* a fresh seed per repetition */
    c->seed = r->seed;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(r->started, sizeof r->started, "%Y-%m-%dT%H:%M:%SZ", &tm);
    r->spec = c->spec;
    probe_workload_text(&c->spec, r->workload_text, sizeof r->workload_text, r->workload_hash);
    sl_err e;
    if (probe_config_capture(c->disk, &r->config_text, r->config_hash, &e) < 0) {
        r->config_text = xstrdup("");
        probe_sha256_hex("", r->config_hash);
        note_add(r, "knob values unreadable: %s", e.msg);
    }
    if (sysfs_read("/proc/sys/kernel/osrelease", r->kernel, sizeof r->kernel, NULL) < 0) r->kernel[0] = 0;
    if (sysfs_read("/proc/sys/kernel/hostname", r->hostname, sizeof r->hostname, NULL) < 0) r->hostname[0] = 0;
    r->ramp_s = (double)c->spec.ramp_ms / 1000.0;
    r->disk.available = c->has_disk;
    snprintf(r->disk.name, sizeof r->disk.name, "%s", c->disk);
    r->vm.available = c->vm0.ok;
    r->vm.dirty_threshold_pages = c->vm0.thresh;
    r->vm.bg_threshold_pages = c->vm0.bg_thresh;
    r->vm.buffered_writes = (c->ops->flags & (WL_BUFFERED_SIZED | WL_DIRTIES)) && !c->spec.direct;
    if (probe_size_note(p)[0]) note_add(r, "%s", probe_size_note(p));
    if (rep == 0 && probe_reap_note(p)[0]) note_add(r, "%s", probe_reap_note(p));
}

static int run_default(struct probe_ctx *c, struct probe_result *r, sl_err *e)
{
    struct probe_phase_stats ps = { 0 };
    if (c->progress) atomic_store(&c->progress->total_ms, c->spec.ramp_ms + c->spec.time_ms);
    return probe_phase_run(c, c->spec.threads, c->ops->thread, c->spec.ramp_ms, c->spec.time_ms, &ps, e);
}

/* What the writer did that a reader of the figures must know: fixed work
 * cut short, or a time-based writer that ran out of fresh offsets and
 * wrote over its own pages (page-cache speed, not the disk's). */
static void note_work(struct probe_ctx *c, struct probe_result *r)
{
    char b[32];
    if (r->rewritten_bytes) {
        units_format_bytes(r->rewritten_bytes, b, sizeof b);
        note_add(r, "REWROTE %s it had already written in this repetition: the free space allowed no more fresh "
                    "offsets, so those writes may have hit the page cache, not the disk; give a smaller --time, or "
                    "drop --time for fixed work", b);
    }
    if (c->spec.fixed_work && r->status == PROBE_OK && r->op[PROBE_WRITE].bytes < c->spec.size_bytes) {
        units_format_bytes(r->op[PROBE_WRITE].bytes, b, sizeof b);
        note_add(r, "the fixed work was cut short at the time limit: %s written", b);
    }
}

static void finish(struct probe_ctx *c, struct probe_result *r)
{
    if (c->has_disk) sample_disk_finish(&c->dacc, &r->disk);
    sample_psi_finish(&c->pacc, &r->psi);
    r->cpu_usr_s = c->cpu_usr_s;
    r->cpu_sys_s = c->cpu_sys_s;
    if (c->ops->finish) c->ops->finish(c, r);
    probe_result_compute(r);
    /* what keeps this workload under the zone, and so what to change */
    if (probe_threshold_reached(r) == 0)
        note_add(r, "dirty data never reached the throttling zone ((nr_dirty_threshold + background) / 2): "
                    "the dirty limits were not exercised%s",
                 (c->ops->flags & WL_LOADFILE) ? ": the loadfile writes too little between its Flush lines, or --time "
                                                 "is too short"
                 : c->spec.sync_every ? ": --sync-every syncs it before it can build up"
                                      : "; give a larger --size or a longer --time");
    note_work(c, r);
    char stall[512];
    probe_stall_note(r, stall, sizeof stall);
    if (stall[0]) note_add(r, "%s", stall);
    if (!c->has_disk && c->spec.ndirs > 0) note_add(r, "%s", "device metrics unavailable: no block device under --dir "
                                                             "(tmpfs, a virtual filesystem, or no /sys/dev)");
}

int probe_rep(struct probe *p, int rep, struct probe_result *r, struct probe_progress *progress, sl_err *e)
{
    struct probe_ctx *c = probe_ctx_of(p);
    probe_result_reset(r);
    c->result = r;
    c->progress = progress;
    atomic_store(&c->stop, 0);
    memset(&c->dacc, 0, sizeof c->dacc);
    memset(&c->pacc, 0, sizeof c->pacc);
    c->cpu_usr_s = c->cpu_sys_s = 0;
    if (progress) {
        atomic_store(&progress->rep, rep);
        atomic_store(&progress->reps, c->spec.repeat);
        atomic_store(&progress->elapsed_ms, 0);
        atomic_store(&progress->bytes, 0);
        atomic_store(&progress->flushed_threads, 0);
        atomic_store(&progress->state, PROBE_DRAIN);
    }
    probe_live_begin(c, rep);
    fill_identity(p, rep, r);
    sl_err err;
    sl_err_clear(&err);
    int rc = 0;
    if (!(c->ops->flags & WL_NO_IO)) {
        drain(c, r);
        make_cold(c, r);
    }
    if (c->ops->rep_begin) rc = c->ops->rep_begin(c, &err);
    /* after rep_begin: its truncation frees the previous repetition's pages */
    if (rc == 0 && !(c->ops->flags & WL_NO_IO)) settle_freed_memory(c, r);
    if (rc == 0 && c->spec.idle_ms) idle_before(c);
    struct canary *k = NULL;
    if (rc == 0 && c->spec.canary) {
        k = canary_start(c, &err);
        if (!k) { note_add(r, "stall canary not started: %s", err.msg); sl_err_clear(&err); }
    }
    c->rep_t0_ns = probe_now_ns();
    if (rc == 0) rc = c->ops->run ? c->ops->run(c, r, &err) : run_default(c, r, &err);
    if (k) canary_stop(k, &r->canary, &r->reader);
    if (rc < 0) {
        bool aborted = atomic_load(&c->stop) || interrupt_signal;
        r->status = aborted ? PROBE_ABORTED : PROBE_FAILED;
        note_add(r, "%s", aborted ? "interrupted before the end: partial metrics" : err.msg);
    }
    finish(c, r);
    if (progress) atomic_store(&progress->state, PROBE_DONE);
    if (rc < 0) {
        if (e) *e = err;
        if (r->status == PROBE_ABORTED)   /* storing it is the caller's */
            sl_fail(e, SL_EFAIL, "probe interrupted in repetition %d: its run is marked aborted, with the figures so far",
                    rep + 1);
        return -1;
    }
    return 0;
}

int probe_run(const struct probe_spec *spec, probe_result_fn on_result, void *arg, struct probe_progress *progress,
              sl_err *e)
{
    struct probe *p;
    if (progress) atomic_store(&progress->state, PROBE_LAYOUT);
    if (probe_open(spec, &p, e) < 0) return -1;
    struct probe_result *r = probe_result_new();
    int rc = 0;
    for (int i = 0; i < probe_spec_resolved(p)->repeat && rc == 0; i++) {
        rc = probe_rep(p, i, r, progress, e);
        sl_err cb;
        if (on_result && on_result(r, arg, &cb) < 0 && rc == 0) {
            if (e) *e = cb;
            rc = -1;
        }
    }
    probe_result_free(r);
    probe_close(p);
    return rc;
}
