/* workload — what a probe workload plugs into (the fio ioengine model): one
 * file per workload fills a struct probe_workload_ops, listed once in the
 * table in workloads.c. The engine owns threads, the start barrier, ramp and
 * measurement windows, per-thread histograms and merging; a workload owns
 * its files and its I/O loop. */
#ifndef SLUICE_PROBE_WORKLOAD_H
#define SLUICE_PROBE_WORKLOAD_H

#include <stdatomic.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include "probe/probe.h"
#include "probe/sample.h"

enum workload_flag {
    WL_NO_IO = 1 << 0,       /* no directory, no files (null) */
    WL_READS = 1 << 1,       /* reads file data: wants cold caches */
    WL_WRITES = 1 << 2,      /* writes: canary on by default */
    WL_BUFFERED_SIZED = 1 << 3, /* buffered writes sized from nr_dirty_threshold;
                                 * the run says whether the threshold was reached */
    WL_DIRECT_OK = 1 << 4,   /* --direct supported */
    WL_IODEPTH_OK = 1 << 5,  /* --iodepth > 1 supported (with --direct) */
    WL_MULTI_DIR = 1 << 6,   /* several --dir */
    WL_DIRTIES = 1 << 7,     /* buffered writes whose volume the workload sets
                              * itself (dbench's loadfile): not sized, but the
                              * run still says whether the threshold was reached */
    WL_LOADFILE = 1 << 8,    /* replays --loadfile (dbench) */
    WL_FIXED_WORK = 1 << 9,  /* buffered: fixed work unless --time (fileio.c) */
};

struct probe_ctx;
struct probe_thread;

struct probe_workload_ops {
    const char *name;
    const char *summary;
    unsigned flags;
    int def_threads;
    uint64_t def_bs, def_size;    /* def_size 0: sized from the dirty threshold */
    int def_sync_every;
    /* Extra validation and defaults beyond the common ones (may be NULL). */
    int (*validate)(struct probe_spec *s, sl_err *e);
    /* Create the files under c->scratch (NULL: none). */
    int (*layout)(struct probe_ctx *c, sl_err *e);
    /* Before each repetition, after the drain (NULL: nothing). */
    int (*rep_begin)(struct probe_ctx *c, sl_err *e);
    /* The I/O loop of one thread: returns 0, or -1 with t->err/t->errmsg set. */
    int (*thread)(struct probe_thread *t);
    /* A workload that is several measured phases (tiobench) runs them
     * itself with probe_phase_run; NULL: one phase of `thread`. */
    int (*run)(struct probe_ctx *c, struct probe_result *r, sl_err *e);
    /* Adjust the result after merging (null: synthetic values). */
    void (*finish)(struct probe_ctx *c, struct probe_result *r);
    /* Workload-specific lines of the human summary, after its first line
     * (tiobench's table, dbench's Throughput line and latency table); may
     * be NULL. */
    bool (*print)(const struct probe_result *r, FILE *out);   /* true: it printed the phases too */
    /* The equivalent fio job file. */
    void (*fio_job)(const struct probe_spec *s, FILE *out);
    void (*cleanup)(struct probe_ctx *c);
    const void *priv;             /* workload constants (fileio patterns) */
};

const struct probe_workload_ops *workload_find(const char *name);
extern const struct probe_workload_ops *const workload_table[];
extern const int workload_table_len;

/* A scratch file a workload laid out. */
struct probe_file {
    int fd;             /* buffered or O_DIRECT per the spec */
    uint64_t size;
    int dir;            /* index in spec.dir */
    char path[PATH_MAX];
};

struct probe_thread {
    struct probe_ctx *ctx;
    int idx, nthreads;  /* in this phase */
    uint64_t rng[4];    /* xoshiro256** */
    unsigned char *buf; /* bs * iodepth, 4096-aligned, random data */
    size_t buflen;
    uint64_t ramp_end_ns, end_ns;
    bool measuring;
    struct hist hist[PROBE_OP_NR];
    uint64_t ios[PROBE_OP_NR], bytes[PROBE_OP_NR];
    uint64_t done_bytes;               /* everything, ramp included */
    _Atomic uint64_t pub_bytes;        /* done_bytes for the sampler */
    uint64_t done_ns;
    uint64_t rewritten_bytes;          /* written onto offsets written before in this repetition */
    uint64_t pub_next_ns;              /* when to copy hist aside for the live view */
    pthread_mutex_t pub_mu;            /* guards pub */
    struct hist pub;                   /* reads + writes as of the last copy */
    struct rusage ru0, ru1;
    int err;
    char errmsg[256];
    void *wl;           /* workload per-thread state */
    char pad[64];
};

struct probe_ctx {
    struct probe_spec spec;
    const struct probe_workload_ops *ops;
    char scratch[PATH_MAX];     /* mkdtemp directory inside spec.dir[0] */
    char scratch_extra[PROBE_MAX_DIRS][PATH_MAX];   /* multidisk: one per dir */
    struct probe_file *files;
    int nfiles;
    uint64_t seed;              /* this repetition's */
    _Atomic int stop;
    struct probe_progress *progress;
    struct probe_result *result;   /* being filled (for phase runs) */
    uint64_t page_size;
    void *wl;                   /* workload state */
    /* the disk under spec.dir[0] and what the sampler accumulates */
    char disk[64];
    bool has_disk;
    struct disk_acc dacc;
    struct psi_acc pacc;
    struct vmstat vm0;       /* at open: thresholds for sizing */
    /* How many times a time-based writer may run over its file's size onto
     * fresh offsets (passes) before it has to wrap onto what it wrote: the
     * free space at open allows it (1: no room beyond the file). */
    uint64_t fresh_passes;
    uint64_t rep_t0_ns;
    _Atomic int window_open;    /* inside a measured window (the canary records) */
    double cpu_usr_s, cpu_sys_s;
};

/* --- helpers for workloads ----------------------------------------------- */

static inline uint64_t probe_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman & Vigna): fast, good enough for offsets. */
static inline uint64_t probe_rand(struct probe_thread *t)
{
    uint64_t *s = t->rng;
    uint64_t result = rotl64(s[1] * 5, 7) * 9, tt = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= tt; s[3] = rotl64(s[3], 45);
    return result;
}

/* Uniform in [0, n) without a division (Lemire). */
static inline uint64_t probe_rand_below(struct probe_thread *t, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)probe_rand(t) * n) >> 64);
}

uint64_t probe_splitmix(uint64_t *state);

void probe_begin_measure(struct probe_thread *t);
/* live.c: copy the thread's histograms aside for the live view (every
 * 100 ms; never again when nobody watches). */
void probe_thread_publish(struct probe_thread *t, uint64_t now_ns);
/* The sampling thread: the result so far plus the workers' copies into
 * progress->live (th NULL: the result alone, complete). */
void probe_live_publish(struct probe_ctx *c, struct probe_thread *th, int n);
/* A repetition starts: empty histogram, canary counters zero. */
void probe_live_begin(struct probe_ctx *c, int rep);

/* Account one finished I/O: the only per-I/O bookkeeping (one histogram
 * increment, a few adds, a relaxed store for the sampler). I/Os that end in
 * the ramp only count towards progress. */
static inline void probe_account(struct probe_thread *t, enum probe_op op, uint64_t start_ns, uint64_t end_ns,
                                 uint64_t bytes)
{
    t->done_bytes += bytes;
    atomic_store_explicit(&t->pub_bytes, t->done_bytes, memory_order_relaxed);
    if (end_ns < t->ramp_end_ns) return;
    if (!t->measuring) probe_begin_measure(t);
    hist_add(&t->hist[op], end_ns - start_ns);
    t->ios[op]++;
    t->bytes[op] += bytes;
    if (end_ns >= t->pub_next_ns) probe_thread_publish(t, end_ns);
}

/* True when the thread should stop: time is up or the run was stopped. */
static inline bool probe_should_stop(struct probe_thread *t, uint64_t now_ns)
{
    return now_ns >= t->end_ns || atomic_load_explicit(&t->ctx->stop, memory_order_relaxed);
}

/* Record an error in the thread and return -1. */
int probe_thread_fail(struct probe_thread *t, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Run one measured phase: n threads of fn, released together from a
 * barrier, ramp then time; per-thread histograms merged into r (op[], ios,
 * bytes, wall_s, cpu, disk, vm, psi, series are accumulated). Returns -1 when
 * a thread failed (e filled with its message) or the run was stopped. */
struct probe_phase_stats {
    uint64_t ios, bytes;
    double wall_s, cpu_s;
    struct hist lat;    /* read + write latencies of this phase */
    /* If set by the caller (nthreads entries): each thread's own figures,
     * for workloads that report per writer (multidisk). */
    struct probe_phase *per_thread;
};
int probe_phase_run(struct probe_ctx *c, int nthreads, int (*fn)(struct probe_thread *), uint64_t ramp_ms,
                    uint64_t time_ms, struct probe_phase_stats *ps, sl_err *e);

/* A tiobench-style phase row from phase stats. */
void probe_phase_row(struct probe_phase *row, const char *name, int threads, const struct probe_phase_stats *ps);
/* Evict the laid-out files from the page cache (fdatasync, then
 * POSIX_FADV_DONTNEED): cold reads between phases without root. */
void probe_evict_files(struct probe_ctx *c);

/* Files: create (O_EXCL|O_NOFOLLOW) inside the scratch dir of spec dir `dir`,
 * fill with random data in bs chunks and fsync (size 0: empty); then
 * reopen with O_DIRECT when the spec asks. Appends to c->files. */
int probe_file_create(struct probe_ctx *c, int dir, const char *name, uint64_t size, sl_err *e);
/* One file per thread of size spec.size_bytes / threads (min one block). */
int probe_layout_per_thread(struct probe_ctx *c, uint64_t min_size, sl_err *e);
/* Fill a buffer with pseudo-random bytes (so compression and dedup see real data). */
void probe_fill_random(unsigned char *buf, size_t len, uint64_t seed);

/* Common fio job text. */
void probe_fio_global(const struct probe_spec *s, FILE *out, const char *rw);

#endif
