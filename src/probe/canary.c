/* canary — the stall canary: a thread that every
 * 100 ms sleeps on an absolute clock, records how late it woke, then does an
 * ioping-style uncached 4 KiB read. A tick's stall is the larger of the two:
 * what an interactive task would have felt while the workload ran.
 *
 * Beside it an "editor save" thread: every 500 ms it rewrites a 4 KiB file
 * in the scratch directory and fsyncs it (open, truncate, write, fsync,
 * close: what an editor does on save), timed from open to close. That is
 * the stall the seed mails complain of: fsync of one small file waiting
 * behind the heavy writer's writeback on the same filesystem. A thread of
 * its own, so a long save never delays the sleep/read ticks.
 *
 * And the collateral reader, the instrument a verdict's side effects are
 * judged by: a 4 KiB random O_DIRECT read every 2 ms at depth 1 from the
 * canary's file, each one timed. Why this rather than the ticks above:
 * - the ticks give 10 samples a second, so a 5 s run's "p99" is its
 *   maximum; 500 reads a second give a real p50 and p99;
 * - O_DIRECT at depth 1 sends every read to the device queue, where it
 *   waits behind the writeback the knobs under test schedule: what a
 *   database lookup or an editor opening a file feels (a tick's sleep
 *   mostly measures the CPU scheduler);
 * - a fixed pace (not back to back) offers the same load under every
 *   configuration, so the instrument does not change with the knob it
 *   judges; a read slower than the pace delays the next (no pile-up);
 * - but every tick a slow read overran is counted, with the wait a read
 *   due then would have had (hist_add_paced). Counted by real reads alone,
 *   a 500 ms stall is one read in 2000: dirty_background_ratio=10 under a
 *   2 GiB burst held a read for hundreds of ms in its final flush and
 *   scored a p99 of 0.35-0.91 ms, while background writeback that slowed
 *   over 1% of the reads to 32-41 ms scored that; the due reads' p99 were
 *   196-265 ms and 58-116 ms (bench/data/reader-due.out). Judged by real
 *   reads, the guard refused spreading writeback for what concentrating it
 *   hid.
 * Its own thread, so a stalled read never delays the ticks or the saves. */
#include "probe/canary_reader.h"
#include "probe/probe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TICK_NS 100000000ull
#define CANARY_FILE_BYTES (16u << 20)   /* canary_reader.c's file */
#define READ_NS 2000000ull
#define SAVE_NS 500000000ull
#define SAVE_FIRST_NS 100000000ull

struct canary {
    struct probe_ctx *c;
    pthread_t tid;
    _Atomic int stop;
    struct canary_file f;   /* fd -1: sleep only */
    unsigned char *buf;
    uint64_t rng;
    struct hist stall;
    uint64_t sleep_max, read_max, over_100ms, over_1s, over_2s;
    /* the editor save */
    pthread_t save_tid;
    bool saving;            /* the save thread runs */
    char save_path[PATH_MAX];
    unsigned char *save_buf;
    struct hist save;
    uint64_t save_over_100ms, save_over_1s;
    /* the collateral reader */
    pthread_t read_tid;
    bool reading;
    unsigned char *read_buf;
    uint64_t read_rng;
    struct hist read;       /* due reads: hist_add_paced */
    struct hist read_own;   /* the real reads alone */
    uint64_t read_held_back;
};

static void record(struct canary *k, uint64_t late_ns, uint64_t read_ns)
{
    uint64_t stall = late_ns > read_ns ? late_ns : read_ns;
    if (late_ns > k->sleep_max) k->sleep_max = late_ns;
    if (read_ns > k->read_max) k->read_max = read_ns;
    hist_add(&k->stall, stall);
    k->over_100ms += stall > 100000000ull;
    k->over_1s += stall > 1000000000ull;
    k->over_2s += stall > 2000000000ull;
    struct probe_live *l = k->c->progress ? k->c->progress->live : NULL;
    if (l) {
        atomic_store(&l->canary_ticks, k->stall.n);
        atomic_store(&l->canary_max_ns, k->stall.max_ns);
        atomic_store(&l->canary_over_100ms, k->over_100ms);
        atomic_store(&l->canary_over_1s, k->over_1s);
        atomic_store(&l->canary_over_2s, k->over_2s);
    }
}

static void *canary_main(void *arg)
{
    struct canary *k = arg;
    uint64_t next = probe_now_ns() + TICK_NS;
    while (!atomic_load(&k->stop)) {
        canary_sleep_until(next);
        uint64_t woke = probe_now_ns(), done = woke;
        uint64_t late = woke > next ? woke - next : 0;
        if (k->f.fd >= 0) {
            canary_file_read(&k->f, k->buf, &k->rng);
            done = probe_now_ns();
        }
        if (atomic_load(&k->c->window_open)) record(k, late, done - woke);
        next = canary_next_tick(next, TICK_NS, done);
    }
    return NULL;
}

/* A side thread's loop (the reader, the save): step every period_ns on
 * the absolute clock, the first first_ns from now, until the canary
 * stops; a step longer than the period is one step. */
static void every(struct canary *k, uint64_t first_ns, uint64_t period_ns, void (*step)(struct canary *))
{
    uint64_t next = probe_now_ns() + first_ns;
    while (!atomic_load(&k->stop)) {
        canary_sleep_until(next);
        if (atomic_load(&k->stop)) break;
        step(k);
        next = canary_next_tick(next, period_ns, probe_now_ns());
    }
}

static void read_step(struct canary *k)
{
    uint64_t ns = canary_file_read(&k->f, k->read_buf, &k->read_rng);
    if (atomic_load(&k->c->window_open)) {
        k->read_held_back += hist_add_paced(&k->read, ns, READ_NS);
        hist_add(&k->read_own, ns);
    }
}

static void *reader_main(void *arg)
{
    every(arg, READ_NS, READ_NS, read_step);
    return NULL;
}

/* The reader, where there is a file to read. */
static void reader_start(struct canary *k)
{
    hist_init(&k->read);
    hist_init(&k->read_own);
    if (k->f.fd < 0) return;
    void *buf;
    if (posix_memalign(&buf, 4096, CANARY_IO) != 0) sl_die("out of memory");
    k->read_buf = buf;
    k->read_rng = k->rng ^ 0x4eadull;
    k->reading = probe_thread_start(&k->read_tid, reader_main, k) == 0;
}

/* One save, open to close; false when it failed (nothing recorded: a
 * failing save measures the error path, not the stall). */
static bool save_once(struct canary *k, uint64_t *ns)
{
    uint64_t t0 = probe_now_ns();
    int fd = open(k->save_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    bool ok = pwrite(fd, k->save_buf, CANARY_IO, 0) == CANARY_IO && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    *ns = probe_now_ns() - t0;
    return ok;
}

static void save_step(struct canary *k)
{
    uint64_t ns;
    if (save_once(k, &ns) && atomic_load(&k->c->window_open)) {
        hist_add(&k->save, ns);
        k->save_over_100ms += ns > 100000000ull;
        k->save_over_1s += ns > 1000000000ull;
    }
}

static void *save_main(void *arg)
{
    every(arg, SAVE_FIRST_NS, SAVE_NS, save_step);
    return NULL;
}

/* The save thread, where there is a scratch directory; without it the
 * canary runs on (noted by the absence of saves). */
static void save_start(struct canary *k)
{
    hist_init(&k->save);
    if (!k->c->scratch[0]) return;
    static _Atomic int serial;
    snprintf(k->save_path, sizeof k->save_path, "%s/editor-save.%d", k->c->scratch, atomic_fetch_add(&serial, 1));
    k->save_buf = xmalloc(CANARY_IO);
    probe_fill_random(k->save_buf, CANARY_IO, k->rng ^ 0x5a7e);
    k->saving = probe_thread_start(&k->save_tid, save_main, k) == 0;
}

struct canary *canary_start(struct probe_ctx *c, sl_err *e)
{
    struct canary *k = xcalloc(1, sizeof *k);
    k->c = c;
    k->f.fd = -1;
    k->rng = c->seed ^ 0xca9a7ull;
    hist_init(&k->stall);
    void *buf;
    if (posix_memalign(&buf, 4096, CANARY_IO) != 0) sl_die("out of memory");
    k->buf = buf;
    if (c->scratch[0] && canary_file_make(&k->f, c->scratch, e) < 0) {
        free(k->buf);
        free(k);
        return NULL;
    }
    int rc = probe_thread_start(&k->tid, canary_main, k);
    if (rc == 0) {
        save_start(k);
        reader_start(k);
    }
    if (rc) {
        sl_fail_errno(e, SL_EFAIL, rc, "starting the canary thread");
        canary_file_remove(&k->f);
        free(k->buf);
        free(k);
        return NULL;
    }
    return k;
}

void canary_stop(struct canary *k, struct probe_canary *out, struct probe_reader *reader)
{
    atomic_store(&k->stop, 1);
    pthread_join(k->tid, NULL);
    if (k->saving) pthread_join(k->save_tid, NULL);
    if (k->reading) pthread_join(k->read_tid, NULL);
    reader->enabled = k->reading;
    reader->direct = k->f.direct;
    reader->lat = k->read;
    reader->per_read = k->read_own;
    reader->held_back = k->read_held_back;
    free(k->read_buf);
    out->enabled = true;
    out->save = k->save;
    out->save_over_100ms = k->save_over_100ms;
    out->save_over_1s = k->save_over_1s;
    if (k->save_path[0]) unlink(k->save_path);
    free(k->save_buf);
    out->stall = k->stall;
    out->sleep_max_ns = k->sleep_max;
    out->read_max_ns = k->read_max;
    out->over_100ms = k->over_100ms;
    out->over_1s = k->over_1s;
    out->over_2s = k->over_2s;
    canary_file_remove(&k->f);
    free(k->buf);
    free(k);
}

/* The canary as fio jobs, for --fio-job: its reads and saves load the disk
 * inside the measured time (on a loop device the writer of a 2.95 GB
 * seqwrite went from ~1400 MB/s alone to ~700 with them, in fio as in
 * sluice), so a job without them is not the work sluice timed. Each thread
 * is a job of its own in a reporting group of its own (new_group: the
 * workload's figures stay the workload's); exitall with exit_what=all in the
 * workload's section (printed last, so these lines still belong to it) ends
 * them when the workload's job ends, as canary_stop does. That only holds
 * for a workload that is one fio job of one thread: with more, the first
 * to finish would end its siblings, so the text says how to compare then.
 * The workload's [global] options are overridden one by one. */
void canary_fio_jobs(const struct probe_spec *s, bool one_job, FILE *out)
{
    if (!one_job) {
        fprintf(out, "\n; sluice runs its canary beside the workload (4 KiB O_DIRECT reads every %llu ms and every "
                     "%llu ms,\n; a 4 KiB write + fsync every %llu ms), inside the measured time; fio cannot end such jobs "
                     "with\n; a workload of several threads or jobs, so compare this job with sluice probe ... --no-canary\n",
                (unsigned long long)(READ_NS / 1000000), (unsigned long long)(TICK_NS / 1000000),
                (unsigned long long)(SAVE_NS / 1000000));
        return;
    }
    unsigned long long limit_ms = (unsigned long long)(s->ramp_ms + s->time_ms);
    static const struct { const char *name, *what; unsigned long long period_ns; bool save; } jobs[] = {
        { "canary-reader", "the collateral reader: one 4 KiB O_DIRECT read every 2 ms", READ_NS, false },
        { "canary-tick", "the stall ticks: one 4 KiB O_DIRECT read every 100 ms", TICK_NS, false },
        { "canary-save", "the editor save: 4 KiB written and fsynced every 500 ms (sluice truncates and rewrites a "
                         "file; fio rewrites its block)", SAVE_NS, true },
    };
    /* still in the workload's section: its end ends the canary's jobs */
    fprintf(out, "; sluice runs its canary beside the workload, inside the measured time: the jobs\n"
                 "; below, which end when this one does; read the workload's figures from this\n"
                 "; job; sluice probe ... --no-canary drops them\nexitall=1\nexit_what=all\n");
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        fprintf(out, "\n[%s]\n; %s\nnew_group\n", jobs[i].name, jobs[i].what);
        fprintf(out, "filename=%s\nrw=%s\nbs=%u\nbsrange=%u-%u\nsize=%u\nio_size=%u\nnrfiles=1\nnumjobs=1\n",
                jobs[i].save ? "sluice-editor-save" : "sluice-canary", jobs[i].save ? "write" : "randread", (unsigned)CANARY_IO,
                (unsigned)CANARY_IO, (unsigned)CANARY_IO, (unsigned)(jobs[i].save ? CANARY_IO : CANARY_FILE_BYTES),
                (unsigned)(jobs[i].save ? CANARY_IO : CANARY_FILE_BYTES));
        /* sluice's threads keep an absolute period and skip the ticks a
         * slow I/O overran (next_tick): a period of the I/O's time plus half
         * a period on average once I/Os are slower than the period, the
         * period when they are faster. fio's rate_iops alone catches up
         * instead (a loop device's reads at p50 0.3-3.8 ms held sluice's
         * reader at 140-230 reads/s, fio's at 500: the writer slowed by a
         * third more in fio); thinktime of half the period after each I/O
         * plus rate_iops as the ceiling is sluice's pace in both regimes. */
        fprintf(out, "ioengine=psync\niodepth=1\ndirect=%d\nrate_iops=%llu\nthinktime=%lluus\nthinktime_blocks=1\n"
                     "fsync=%d\nfdatasync=0\nend_fsync=0\n",
                jobs[i].save ? 0 : 1, 1000000000ull / jobs[i].period_ns, jobs[i].period_ns / 2000, jobs[i].save ? 1 : 0);
        fprintf(out, "time_based=1\nruntime=%llums\nramp_time=0\n", limit_ms);
    }
}
