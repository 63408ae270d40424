/* probe — the measuring instrument: runs a workload from the
 * table (workload.h) on scratch files under a directory, repetition by
 * repetition, and fills one struct probe_result per repetition. That struct
 * is the one results model: the human summary, --json, the store and the UI
 * all render it (STYLE rule 9).
 *
 * Typical use (the CLI, search and UI all do this):
 *
 *     struct probe *p;
 *     if (probe_open(&spec, &p, &err) < 0) ...          validates, lays out files
 *     for (int i = 0; i < spec.repeat; i++) {
 *         struct probe_result *r = probe_result_new();
 *         int rc = probe_rep(p, i, r, &progress, &err);  drain, drop caches, ramp, measure
 *         ... render or store r (also when r->status is ABORTED or FAILED) ...
 *         probe_result_free(r);
 *     }
 *     probe_close(p);                                    removes every scratch file
 *
 * The `null` workload does no I/O: its metrics are a smooth, deterministic
 * (by seed, 1% noise) function of vm.dirty_ratio and
 * vm.dirty_background_ratio read through the knob API, with its optimum at
 * 35 / 8 (see wl_null.c), so searches can be tested against a fixture root.
 *
 * Units: MB = 10^6 bytes (dd, dbench); latencies in ns; CPU % of one CPU. */
#ifndef SLUICE_PROBE_H
#define SLUICE_PROBE_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "core/err.h"
#include "core/run_metric.h"
#include "core/opt.h"
#include "stat/hist.h"

#define PROBE_MAX_DIRS 8
#define PROBE_MAX_THREADS 256
#define PROBE_MAX_REPEAT 1000     /* --repeat, on the command line and the Probe screen */
#define PROBE_MIN_BS 512
#define PROBE_MAX_BS (64ull << 20)
#define PROBE_MAX_SIZE (16ull << 40)
#define PROBE_DIR_DEFAULT "/var/tmp"   /* where a probe writes without --dir */
#define PROBE_MAX_PHASES 32
#define PROBE_SERIES_CAP 36000     /* one hour at 100 ms */

enum probe_op { PROBE_READ, PROBE_WRITE, PROBE_SYNC, PROBE_META, PROBE_OP_NR };
const char *probe_op_name(enum probe_op op);     /* "read", "write", "sync", "meta" */

enum probe_status { PROBE_OK, PROBE_WARM, PROBE_ABORTED, PROBE_FAILED };
const char *probe_status_name(enum probe_status s); /* "ok", "warm", "aborted", "failed" */

/* What to run. Zero fields take the workload's defaults (probe_open fills
 * them in its own copy; probe_spec_resolved shows the result). */
struct probe_spec {
    char workload[32];
    char dir[PROBE_MAX_DIRS][PATH_MAX];  /* multidisk: one writer per dir */
    int ndirs;
    int threads;
    uint64_t bs;
    uint64_t size_bytes;     /* total over all threads; 0: workload default,
                              * buffered writes: sized from nr_dirty_threshold */
    uint64_t time_ms;        /* measured time (default 5 s); fixed work: the most it may take */
    uint64_t ramp_ms;        /* unmeasured warm-up before it (default 1 s; fixed work: none) */
    int ramp_set;            /* ramp_ms was given (0 is a valid ramp) */
    uint64_t idle_ms;        /* --idle-before: no I/O for this long before each repetition's window
                              * (0: back to back). What ran just before moves a buffered writer
                              * more than some knobs do (bench/carry-over), so the regime is part
                              * of the workload and its hash. */
    bool time_based;         /* --time was given: run for time_ms. Otherwise a
                              * buffered writer (seqwrite, randwrite, randrw)
                              * does fixed work: writes size_bytes once, never
                              * onto a page it wrote, fsyncs, and its time is
                              * the time to durable (resolved into fixed_work) */
    bool fixed_work;         /* resolved: see time_based */
    bool direct;             /* O_DIRECT */
    int iodepth;             /* > 1 with direct: io_uring */
    int sync_every;          /* fsync every N writes (randrw: all dirty files) */
    int repeat;              /* repetitions (default 1) */
    uint64_t seed;           /* base seed; each repetition derives its own */
    bool seed_set;
    int canary;              /* -1 default (on for write workloads), 0, 1 */
    char loadfile[PATH_MAX]; /* dbench: a NetBench loadfile; "" the built-in one */
    char loadfile_hash[65];  /* dbench: sha256 of the loadfile's text (resolved) */
};

/* Latency summary of one histogram (derived; the histogram is the truth). */
struct probe_lat {
    uint64_t min_ns, p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
    double mean_ns, stddev_ns;
};

struct probe_op_result {
    uint64_t ios, bytes;
    double mb_s, iops;
    struct probe_lat lat;
    struct hist hist;
};

/* /sys/block/DEV/stat deltas over the measured window (fio diskutil.c;
 * await and aqu-sz as iostat computes them). */
struct probe_disk {
    bool available;
    char name[64];
    int fields;              /* 11 (<4.18), 15 (discard), 17 (flush) */
    uint64_t read_ios, write_ios, read_bytes, write_bytes;
    double util_pct, await_ms, aqu_sz;
};

/* /proc/vmstat, sampled every 100 ms. */
struct probe_vm {
    bool available;
    uint64_t dirty_threshold_pages, bg_threshold_pages;
    uint64_t max_dirty_pages, max_writeback_pages;
    bool buffered_writes;    /* the workload dirties the page cache */
    bool reached_threshold;  /* nr_dirty + nr_writeback got to the throttling
                              * zone, (threshold + background) / 2 */
};

struct probe_psi {
    bool available;
    double some_pct, full_pct;   /* share of the window with io stalls */
};

/* Stall canary: every 100 ms an absolute-clock sleep (oversleep) and an
 * uncached 4 KiB read; a tick's stall is the larger of the two. */
struct probe_canary {
    bool enabled;
    uint64_t ticks;
    uint64_t max_ns, p99_ns;          /* of the stall per tick */
    uint64_t sleep_max_ns, read_max_ns;
    uint64_t over_100ms, over_1s, over_2s;
    struct hist stall;
    /* Editor save (the seed mails' "saving a small file stalls during
     * writeback"): every 500 ms a 4 KiB file in the scratch directory is
     * rewritten and fsynced; open to close is one save. */
    uint64_t saves, save_max_ns, save_p99_ns, save_over_100ms, save_over_1s;
    struct hist save;
};

/* The collateral reader: what an interactive reader on the same disk
 * suffers while the workload runs (canary.c says why this instrument). A
 * 4 KiB random read due every 2 ms at depth 1, O_DIRECT where the
 * filesystem allows it, each timed. Runs with the canary. lat holds the
 * wait of a read due at every tick of the run: a read's own time, and for
 * each tick a slow read overran, the wait a read due then would have had
 * (hist_add_paced); p50/p99/max are of lat. per_read holds the real reads
 * alone, whose p99 a stall of one long read hardly moves. */
struct probe_reader {
    bool enabled;
    bool direct;             /* O_DIRECT (else evicted page by page: tmpfs) */
    uint64_t reads;          /* real reads */
    uint64_t held_back;      /* ticks slow reads overran (in lat, not in reads) */
    uint64_t p50_ns, p99_ns, max_ns;
    uint64_t per_read_p99_ns;
    struct hist lat, per_read;
};

/* A sub-result: a tiobench phase at a thread count, a multidisk writer. */
struct probe_phase {
    char name[48];
    int threads;
    uint64_t ios, bytes;
    double mb_s, iops, cpu_pct;
    double lat_mean_ms, lat_max_ms, pct_over_100ms, pct_over_1s;
};

struct probe_series {
    int n;
    uint32_t interval_ms;
    uint32_t *t_ms;          /* since the start of the ramp */
    uint64_t *nr_dirty, *nr_writeback;
    double *mb_s;            /* over the preceding interval */
};

struct probe_result {
    char uuid[37];
    char batch[37];          /* shared by the repetitions of one probe_open */
    int rep, reps;
    uint64_t seed;
    enum probe_status status;
    char note[1024];         /* why warm/aborted/failed, flags, caveats */
    char started[32];        /* UTC, ISO 8601 */
    struct probe_spec spec;  /* resolved: defaults filled in */
    char workload_text[1024], workload_hash[65];
    char *config_text;       /* "knob=value\n" sorted; malloc'ed */
    char config_hash[65];
    char kernel[128], hostname[128];
    bool cold;               /* caches were dropped before the run */
    double ramp_s, wall_s;   /* wall_s: the measured window */
    uint64_t ios, bytes;     /* read + write */
    double mb_s, iops;
    /* Bytes written onto offsets this repetition had already written (a
     * time-based writer that ran out of fresh space wrapped): those writes
     * hit the page cache, not the disk, and the note says so. 0 for fixed work. */
    uint64_t rewritten_bytes;
    struct probe_op_result op[PROBE_OP_NR];
    double cpu_usr_s, cpu_sys_s;       /* worker threads in the measured window */
    double cpu_usr_pct, cpu_sys_pct;   /* of wall_s, % of one CPU (fio usr_cpu) */
    double cpu_us_per_io;
    uint64_t ctx_switches;
    struct probe_disk disk;
    struct probe_vm vm;
    struct probe_psi psi;
    struct probe_canary canary;
    struct probe_reader reader;
    struct probe_phase phase[PROBE_MAX_PHASES];
    int nphases;
    struct probe_series series;
    /* The run's metrics (core/run_metric_table.h), measured from the above by
     * probe_result_compute: what the store keeps, JSON and CSV print and
     * every summary shows. */
    struct run_metrics m;
};

/* What a running probe publishes for a UI or progress line to poll. The
 * probe only stores into it; set `stop` to end the run early (the repetition
 * is then ABORTED). PROBE_QUIET: the --idle-before wait, no I/O of ours
 * (elapsed_ms and total_ms are the wait's). PROBE_FLUSH: a buffered
 * writer's writes are done and its final fsync waits for the dirty pages to
 * reach the disk (timed). The phases, in order, are one table with their
 * words: */
#define PROBE_STATES(S)                                                                            \
    S(IDLE, "starting") S(LAYOUT, "laying out files") S(DRAIN, "draining dirty pages")              \
    S(QUIET, "idle before") S(RAMP, "ramp") S(MEASURE, "measuring") S(FLUSH, "flushing") S(DONE, "done")
enum probe_state {
#define PROBE_STATE_ID(id, words) PROBE_##id,
    PROBE_STATES(PROBE_STATE_ID)
#undef PROBE_STATE_ID
};
/* The phase's words, as the progress line and the Probe screen show it
 * ("?" for a value that is no phase). */
const char *probe_state_name(int state);
struct probe_progress {
    _Atomic int state;               /* enum probe_state */
    _Atomic int rep, reps;
    _Atomic uint64_t elapsed_ms, total_ms;   /* of this repetition, ramp included (PROBE_QUIET: of the wait) */
    _Atomic uint64_t bytes;          /* since the ramp began */
    _Atomic uint64_t mb_s_milli;     /* over the last 100 ms */
    _Atomic uint64_t nr_dirty, nr_writeback;
    _Atomic int flushed_threads;     /* of this repetition: threads that began their final fsync */
    _Atomic int stop;
    struct probe_live *live;         /* optional: the histogram as it grows */
};

/* The repetition being measured, published while it runs (a UI polls it on
 * its timer; nothing here waits on the workers). Each worker copies its own
 * histogram aside every 100 ms under its own lock; the sampling thread
 * merges those copies (never the histograms the workers are adding to) into
 * `lat` under `mu`, and once more, complete, when the phase ends. The
 * canary's counters are atomics it stores at every tick. */
struct probe_live {
    pthread_mutex_t mu;
    uint64_t seq;                    /* publishes so far; guarded by mu */
    int rep;                         /* the repetition lat belongs to; guarded by mu */
    struct hist lat;                 /* reads and writes so far; guarded by mu */
    _Atomic uint64_t canary_ticks, canary_max_ns, canary_over_100ms, canary_over_1s, canary_over_2s;
};
void probe_live_init(struct probe_live *l);
void probe_live_destroy(struct probe_live *l);
/* Copy the histogram out under the lock; returns seq (0: nothing yet). */
uint64_t probe_live_copy(struct probe_live *l, struct hist *lat, int *rep);

struct probe;

/* Validate the spec (workload, directories, sizes, thread counts, O_DIRECT
 * support, free space), create a 0700 scratch directory inside the first
 * --dir and lay out the files with real data, fsynced. -1 with a message
 * naming the option or directory and what to do (SL_EUSAGE for bad input);
 * nothing is left behind on failure. The caller frees *out with
 * probe_close. The spec is copied. */
int probe_open(const struct probe_spec *spec, struct probe **out, sl_err *e);
/* probe_open, recording each scratch directory in st (NULL: none) while it
 * exists, so `sluice restore` can remove what a SIGKILL leaves (scratch.h);
 * -1 also when the record cannot be written. st must outlive the probe. */
struct store;
int probe_open_recorded(const struct probe_spec *spec, struct store *st, struct probe **out, sl_err *e);
/* Fill in defaults and validate, creating nothing (for --fio-job and
 * callers that want to show what will run). -1 with a message as probe_open. */
int probe_spec_resolve(struct probe_spec *spec, sl_err *e);
/* The free space a resolved spec needs in each of its directories: its
 * share of --size plus metadata (what probe_open checks; 0: no files). */
uint64_t probe_space_need(const struct probe_spec *s);
/* One of the probe's options ("--bs") from text through its row
 * (probe_spec_table): the one check the command line and the Probe screen
 * share. -1 with a message naming the option, the value and what it takes. */
int probe_spec_set(struct probe_spec *s, const char *option, const char *text, sl_err *e);
/* The resolved numbers (threads, time, ramp, idle, iodepth, repeat,
 * sync-every) within their rows' bounds; -1 with the row's refusal. */
int probe_spec_check(const struct probe_spec *s, sl_err *e);
/* The value default of an option row ("time": 5000 ms, "ramp", "iodepth",
 * "repeat"), in the row's unit. */
long long probe_spec_default(const char *option);
/* The probe's options as rows storing into a struct probe_spec, in two
 * lists: the workload's shape (--dir, --threads, --bs, --size, --time,
 * --ramp, --direct, --iodepth, --sync-every, --loadfile), which `sluice
 * probe`, search and tune all take from here (one list, one set of checks,
 * the same words when a value is refused), and a probe run's own
 * (--repeat, --seed, --canary, --no-canary). probe_spec_table holds both,
 * for the Probe screen's form (opt_set(&probe_spec_table, spec, "--repeat",
 * "5", e)). Set spec->canary to -1 first: the rows store a given --canary /
 * --no-canary only. */
extern const struct opt probe_workload_rows[];
extern const struct opt probe_run_rows[];
extern const struct opt_table probe_spec_table;
/* The workload as text ("bs=...\nsize_bytes=...\n", sorted lines of
 * what shapes the load: not the directory, seed or repetitions) and its
 * sha256, for a resolved spec: what a run's workload_hash is made of. */
void probe_workload_text(const struct probe_spec *s, char *buf, size_t n, char hash[65]);
/* Where two workload texts differ: their first differing lines as
 * "size=2.0G vs size=9.0G" (sizes shown as sizes; "(nothing)" for a line
 * one lacks), or "the same workload". */
void probe_workload_diff(const char *a, const char *b, char *out, size_t n);
/* The regime a workload text's runs measure, in words for a verdict: back
 * to back (a sustained load), or each after --idle-before's quiet spell;
 * for a buffered writer, that the other regime can measure otherwise
 * (bench/carry-over, sluice(8) "What ran just before"). */
void probe_regime_text(const char *workload_text, char *buf, size_t n);
/* The regime in buf (probe_regime_text's, and what was appended) for runs
 * that each waited for the VM's freed memory (probe_waits_for_freed_memory):
 * "runs back to back" and its --idle-before hint become the wait, which put
 * seconds between the runs; another regime gets the wait appended. */
void probe_regime_waited(char *buf, size_t n);
/* Whether each run of spec waits, before it starts, for the memory the run
 * before freed to go back to the VM's host (settle.h): a burst of
 * SETTLE_MIN_BYTES or more on a block device, on the real system, where the
 * kernel counts what it hands back. The probe, the exported fio job's advice
 * and the verdict ask the same question here. */
bool probe_waits_for_freed_memory(const struct probe_spec *spec);
/* That wait, outside a run (the search times a burst with it): until
 * every pass of the memory freed so far is over (1), or its limit for
 * size_bytes passed (-1), polling the counter every 50 ms; 0 at once when
 * interrupted or *stop is set (stop may be NULL). *waited_ms: how long. */
int probe_settle_wait(uint64_t size_bytes, atomic_int *stop, uint64_t *waited_ms);
/* Whether s is a buffered writer doing fixed work (a burst): the write
 * volume is then what a comparison must size once (burst.h). */
bool probe_spec_is_burst(const struct probe_spec *s);
/* No --dir given: the directory the probe will write in (PROBE_DIR_DEFAULT)
 * for a workload that does I/O, as probe_spec_resolve sets it, so that an
 * estimate made before the run (the search's cost) sees the same spec. */
void probe_spec_default_dir(struct probe_spec *s);
/* "tmpfs" or "ramfs" when dir is on a filesystem that keeps its files in
 * memory (no disk under it), else NULL (a disk, or not known). */
const char *probe_dir_in_memory(const char *dir);
/* Buffered write volume for a whole comparison, fixed once before its first
 * evaluation (every configuration runs the same bytes): enough to exceed `largest_limit_bytes`, the largest
 * dirty limit any configuration compared can set (probe_dirty_limit_at),
 * capped at half the free space under the spec's first --dir. Sets
 * s->size_bytes (a multiple of bs x threads) unless it was given, and says
 * in note what was sized and why (and when the cap means the largest limit
 * will not be reached: *capped true). Workloads that are not buffered
 * writers are left alone (note ""). -1 with a message when the directory
 * cannot be examined. */
int probe_spec_size_for_limit(struct probe_spec *s, uint64_t largest_limit_bytes, char *note, size_t n, bool *capped,
                              sl_err *e);
/* The dirty limit in bytes the kernel sets for a vm.dirty_ratio of
 * ratio_pct on this machine now: ratio_pct % of the dirtyable memory
 * (free pages plus the file LRU lists, mm/page-writeback.c
 * global_dirtyable_memory). 0 when /proc/vmstat lacks the figures. */
uint64_t probe_dirty_limit_at(int ratio_pct);
/* The dirty limit in force now (nr_dirty_threshold) in bytes; 0 unknown. */
uint64_t probe_dirty_limit_now(void);
/* The equivalent fio job file for a resolved spec. */
void probe_fio_job(const struct probe_spec *spec, FILE *out);
/* The spec with defaults filled in. */
const struct probe_spec *probe_spec_resolved(const struct probe *p);
/* One repetition into r (cleared first). progress may be NULL. Returns 0 when
 * the repetition ran (r->status OK or WARM), -1 when it was aborted (stop,
 * SIGINT/SIGTERM via interrupt_signal) or failed (disk full, I/O error):
 * r is then still filled with status ABORTED/FAILED and r->note says why, so
 * it can be stored. */
int probe_rep(struct probe *p, int rep, struct probe_result *r, struct probe_progress *progress, sl_err *e);
/* Remove the scratch files and directory; safe on NULL. */
void probe_close(struct probe *p);

/* open + every repetition + close; on_result (may be NULL) sees each result
 * before it is freed. Returns -1 at the first aborted/failed repetition. */
typedef int (*probe_result_fn)(const struct probe_result *r, void *arg, sl_err *e);
int probe_run(const struct probe_spec *spec, probe_result_fn on_result, void *arg,
              struct probe_progress *progress, sl_err *e);

struct probe_result *probe_result_new(void);
void probe_result_reset(struct probe_result *r);   /* frees owned memory, zeroes */
void probe_result_free(struct probe_result *r);
/* Derive rates and latency summaries from the raw counts, histograms and
 * wall_s (also used after decoding a stored run), and last the metric
 * table's values r->m (result.c: measure, the code that measures each row). */
void probe_result_compute(struct probe_result *r);

/* Renderings of the one model: JSON (every field, the series included;
 * caller owns the reference) and the human summary. */
json_t *probe_result_json(const struct probe_result *r);
void probe_result_print(const struct probe_result *r, FILE *out);
/* The part of that summary the workload writes itself (dbench: its
 * operation table, throughput and loadfile); false when it writes none. */
bool probe_result_print_own(const struct probe_result *r, FILE *out);
/* A JSON real rounded to 6 significant digits (metrics are measurements;
 * print with JSON_REAL_PRECISION(12) to avoid float noise). */
json_t *probe_json_real(double v);
/* Whether a run that dirtied the page cache with buffered writes got
 * nr_dirty + nr_writeback into the throttling zone: 1 yes, 0 no (the dirty
 * limits were not exercised: the run is flagged), -1 not applicable
 * (no buffered writes, O_DIRECT, no thresholds in /proc/vmstat, or the
 * run was aborted or failed). */
int probe_threshold_reached(const struct probe_result *r);
/* The stall rule (man page "Stalled runs"): a run whose canary overslept
 * its 100 ms sleep by PROBE_EXTERNAL_STALL_NS or more saw an external
 * stall. A thread that only sleeps is not held up by the workload's I/O:
 * such an oversleep is CPU starvation, a host pause or reclaim, which
 * lowers one run whatever the knobs are. The run is kept, stored and
 * flagged; a search leaves it out of its decisions. true/false; false
 * without a canary (nothing seen). */
#define PROBE_EXTERNAL_STALL_NS 100000000ull
/* The second signal, PSI: a run during which every non-idle task of the
 * system was stalled on I/O (the "full" line of /proc/pressure/io, read
 * through the sysfs module, so under --root too) for
 * PROBE_PSI_FULL_STALL_PCT % of the run or more. Fixed before use from
 * bench/psi-stall (bench/data/psi-stall.out: seqwrite of 512 MiB + fsync
 * on a loop device, 8 runs): alone, full was 0.4-31.7% of a run; beside
 * another O_DIRECT writer on the same device 2.1-21.3%, so an ordinary
 * neighbour does not separate from the workload's own waits and is not
 * flagged. That was at the default knobs only: under a lower dirty pair
 * the workload's own waits reach it (bench/data/transfer-psi-dropped-runs.out:
 * 31 of 144 runs), so the flag is a hint, not proof of an outside stall,
 * and a search shows it without leaving the run out
 * (eval_metrics_set_stall). Without PSI nothing is seen. */
#define PROBE_PSI_FULL_STALL_PCT 50.0
enum { PROBE_STALL_CANARY = 1, PROBE_STALL_PSI = 2 };
/* Which stall signals flagged the run: PROBE_STALL_* bits, 0 none. */
unsigned probe_stall_signals(const struct probe_result *r);
/* Whether the run saw an external stall: the canary's flag alone (PSI's
 * io full counts the workload's own waits, so its flag is no such proof). */
bool probe_external_stall(const struct probe_result *r);
/* What the stall signals flagged, for the run's note: the canary's
 * "EXTERNAL STALL: ..." and PSI's "PSI io full N% of the run (the
 * workload's own waits count here) ...", "" when neither flagged. */
void probe_stall_note(const struct probe_result *r, char *buf, size_t n);
/* "850 ns", "12.3 us", "4.56 ms", "1.23 s" */
void probe_format_ns(double ns, char *buf, size_t n);

/* Defaults a spec gets from its workload, for help texts: the workload
 * table row's summary. NULL when the workload is unknown. */
const char *probe_workload_summary(const char *name);
int probe_workload_count(void);
const char *probe_workload_name(int i);
/* Whether the workload replays a --loadfile (dbench). */
bool probe_workload_takes_loadfile(const char *name);
/* Whether the workload, buffered and given no --time, does fixed work (a
 * burst, written once and timed to durable), which takes no --ramp. */
bool probe_workload_fixed_work(const char *name);

#endif
