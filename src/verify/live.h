/* live — `verify --live`: a switchback test of a candidate setting (B)
 * against the settings in force (A) on the machine's own workload. Blocks
 * of A and B alternate in balanced random pairs inside one journaled
 * session; each block after a switch first waits while the setting just
 * left drains its dirty pages, then measures the kernel's counters (disk
 * stat, PSI io, vmstat), a canary reader (a 4 KiB uncached read from a
 * scratch file under --dir every 100 ms) and, if given, the user's metric
 * command. A guard
 * set from the first A blocks reverts B at once when it stalls the disk;
 * the verdict pairs neighbouring blocks so the workload's drift cancels.
 * No curses, no printing: a front end follows it through an observer. */
#ifndef SLUICE_VERIFY_LIVE_H
#define SLUICE_VERIFY_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/err.h"
#include "session/knobset.h"
#include "stat/decide.h"
#include "db/store.h"

#define VERIFY_DISKS_MAX 16
#define VERIFY_BLOCKS_MAX 2000
/* Two pairs at the least. The signed-rank test's smallest two-sided exact
 * p is 2 / 2^pairs, and the judged metrics share 0.05 (Holm: the first
 * is tested at 0.05 / metrics): the 3 always judged need 7 pairs, with the
 * canary and a --metric 8 (verify_pairs_needed); a plan is told below the
 * pairs that 5 metrics need. */
#define VERIFY_MIN_BLOCKS 4
#define VERIFY_PAIRS_FOR_VERDICT 8

/* What a block measures. The first ones decide the verdict; throughput
 * follows the workload's demand and decides only on a saturated disk;
 * dirty and writeback pages and the canary's slowest read are shown, never
 * judged (one read's time is too noisy to decide on; the mean carries it). */
enum verify_metric {
    VM_AWAIT_MS, VM_PSI_SOME, VM_PSI_FULL, VM_CANARY_MS, VM_USER,
    VM_READ_MBS, VM_WRITE_MBS, VM_IOPS,
    VM_DIRTY_PAGES, VM_WRITEBACK_PAGES, VM_CANARY_MAX_MS,
    VM_NR
};
enum verify_judged { VJ_ALWAYS, VJ_SATURATED, VJ_SHOWN };
struct verify_metric_def {
    const char *name, *unit;
    bool lower_is_better;     /* VM_USER: from --metric-better */
    double floor;             /* added before a ratio: a block with no stall is not infinitely better */
    enum verify_judged judged;
};
extern const struct verify_metric_def verify_metrics[VM_NR];

struct verify_spec {
    long long duration_ms, block_ms;
    long long sample_ms;        /* counters and guard; 0: 1 s, or a quarter block if shorter */
    uint64_t seed;
    const char *dir;            /* vm.* knobs: measure the disk under it (NULL: every non-virtual disk);
                                   the canary's scratch file goes there */
    bool no_canary;             /* no canary reader even with a dir */
    const char *metric_cmd;     /* NULL: none */
    bool metric_higher;         /* the metric is better higher (a rate), else lower (a latency) */
    bool keep;                  /* keep B at the end when it held */
    double guard_factor;        /* the limit is this times the A blocks' worst window mean (0: 2) */
    int guard_samples;          /* the guard's window: its mean over this many samples is judged
                                   (0: 5 s of samples, at least 3, at most half a block's) */
    const char *source;         /* what named the candidate, stored with the test ("profile latency"; NULL: none) */
};

/* The settings in force and the candidate, as the settle time sees them. */
struct verify_plan {
    int nblocks, npairs;
    bool cand[VERIFY_BLOCKS_MAX];         /* block i runs B */
    long long settle_after_ms[2];         /* [0]: after leaving A, [1]: after leaving B */
    char settle_why[2][160];
    char disks[VERIFY_DISKS_MAX][64];
    int ndisks;
    char disks_why[160];
    long long sample_ms;
    bool canary;                          /* a canary reader runs (under spec.dir) */
    char canary_why[256];                 /* why not, or where */
    char cand_text[512];                  /* "vm.dirty_ratio=10 vm.dirty_background_ratio=5" */
    char base_text[512];                  /* A: the same knobs as they were ("vm.dirty_ratio=20 ...") */
};

struct verify_block {
    bool cand;
    long long start_ms, settle_ms, end_ms;   /* from the test's start; measured from start + settle */
    double v[VM_NR];
    bool has[VM_NR];
    double util_pct;                          /* the busiest disk's io_ticks over the measured part */
    double io_bytes_s;                        /* read + write: the workload's demand */
    long long wall_end_ms;                    /* the wall clock at its end (ms since the epoch) */
    char note[256];                           /* why a metric is missing */
};

/* One sample of the guarded counters; canary_ms < 0: no canary read. */
struct verify_sample {
    double psi_full, await_ms, canary_ms;
};

/* The guarded counters, each judged on its mean over the last W samples
 * (spec.guard_samples): a bursty workload's single samples swing too far
 * for a limit set from one of them (a writer's burst every 3 s made the
 * A blocks' worst sample so high that a candidate with 3.7 times their
 * PSI never passed twice it). guard.c says why the limit is what it is. */
enum verify_guarded { VG_PSI_FULL, VG_AWAIT, VG_CANARY, VG_NR };
/* the guard's window is never shorter: one stalled sample is not a trend */
#define VERIFY_GUARD_WINDOW_MIN 3
#define VERIFY_GUARD_WINDOW_MAX 64
struct verify_window {
    double v[VERIFY_GUARD_WINDOW_MAX];
    int n, next;                  /* samples held (at most W), where the next one goes */
};

struct verify_guard {
    int a_blocks;                 /* A blocks learnt from (the first two set it) */
    /* those blocks' worst mean of W samples in a row (or of all the
     * measured samples, when a block held fewer) */
    double a_worst_window[VG_NR];
    double lim[VG_NR];            /* the limit a B window's mean must stay under */
    struct verify_window win[VG_NR];   /* the block running: its last W samples */
    /* --metric, checked once a block (it is measured once a block): its
     * worst value in the first A blocks, and the limit (twice as bad) */
    int metric_blocks;
    double worst_metric, lim_metric;
    char why[320];
};
/* The floors under which a sample is never over the guard, however quiet
 * the A blocks were: 5 points of PSI full, 5 ms of wait, and a canary read
 * of 100 ms (the stall an interactive user starts to feel). */
#define VERIFY_GUARD_PSI_FLOOR 5.0
#define VERIFY_GUARD_AWAIT_FLOOR_MS 5.0
#define VERIFY_GUARD_CANARY_FLOOR_MS 100.0
/* The canary reads every 100 ms. */
#define VERIFY_CANARY_PERIOD_MS 100

enum verify_overall { VERIFY_BETTER, VERIFY_WORSE, VERIFY_NOISE, VERIFY_NO_VERDICT };
struct verify_verdict {
    struct decision d[VM_NR];
    bool decided[VM_NR];          /* a decision was drawn (the metric is judged and measured) */
    double a_mean[VM_NR], b_mean[VM_NR];
    bool has[VM_NR];
    int npairs;
    bool saturated;
    double a_util_pct;            /* mean of the A blocks' busiest-disk utilisation */
    struct decision demand;       /* B's I/O volume against A's */
    bool demand_differs;
    enum verify_overall overall;
    bool held;                    /* no judged metric worse */
    int judged;                   /* metrics with a verdict: Holm's family */
    char why[256];
};

/* VE_KILLED: never a live end; the restore of a crashed session records it
 * for a test that could not (store_verify_mark_killed). */
enum verify_end { VE_DONE, VE_GUARD, VE_INTERRUPTED, VE_IDLE, VE_FAILED, VE_KILLED };
struct verify_run {
    struct verify_spec spec;
    struct verify_plan plan;
    struct verify_block *blocks;  /* plan.nblocks of them; ndone run, ncomplete run to their end */
    int ndone, ncomplete;
    struct verify_guard guard;
    struct verify_verdict verdict;
    enum verify_end end;
    char end_why[512];
    bool kept;
    char session[9];
    char put_back[512];           /* what the end of the session did */
    int64_t id;                   /* its row in the store (verifies), 0 before it is recorded */
    char uuid[37];
};

struct verify_observer {
    void *arg;
    void (*plan)(void *arg, const struct verify_run *r);
    void (*block)(void *arg, const struct verify_run *r, int i);   /* block i measured */
    void (*note)(void *arg, const char *msg);
    /* Polled with the clock (every 100 ms at most): true stops the test as
     * a signal would, B put back (NULL: never). */
    bool (*cancelled)(void *arg);
    /* The front end traps SIGINT/SIGTERM itself (the UI's run loop):
     * verify_live neither traps nor untraps them, and still stops when
     * interrupt_signal is set. */
    bool signals_handled;
};

/* --- the plan (plan.c) ---------------------------------------------------- */

/* Block order: pairs of one A and one B, the first pair AB (so a guard is
 * set before B ever runs), the others AB or BA shuffled from seed so that
 * the counts of AB and BA pairs differ by at most one. nblocks is even. */
void verify_schedule(int nblocks, uint64_t seed, bool *cand);
/* How long a block waits after a switch: the dirty pages of the setting
 * left are written by expire + writeback centiseconds at the latest,
 * capped at half a block. why says so ("35 s: ..."). */
long long verify_settle_ms(long long expire_cs, long long writeback_cs, long long block_ms, char *why, size_t n);
/* Check the spec and the candidate (prepared) against this machine and
 * fill r->plan: nothing is written. -1 with a message naming the option or
 * knob: a block longer than the duration, fewer than two pairs, a
 * candidate already in force, no disk to measure. */
int verify_prepare(struct verify_run *r, const struct verify_spec *s, const struct knobset *cand, sl_err *e);

/* --- per block ------------------------------------------------------------ */

/* A block starts: the guard's windows empty (a window never spans a
 * switch). */
void verify_guard_block(struct verify_guard *g);
/* One measured sample of an A block: the first two A blocks teach the
 * guard. */
void verify_guard_learn(struct verify_guard *g, const struct verify_spec *s, const struct verify_sample *x);
/* An A block ended: the first two set the limits, each guard_factor times
 * the A blocks' worst window mean, at least its floor. */
void verify_guard_arm(struct verify_guard *g, const struct verify_spec *s);
/* One sample of a B block: true when the mean of the last guard_samples
 * samples of a guarded counter is over its limit (g->why then says which
 * and by how much). Before a limit is set, never. */
bool verify_guard_check(struct verify_guard *g, const struct verify_spec *s, long long sample_ms,
                        const struct verify_sample *x);

/* The user's metric of an A block teaches the guard (the first two); of a
 * B block, it is checked: true when it is more than guard_factor times
 * worse than the worst of those A blocks (g->why says so). */
bool verify_guard_metric(struct verify_guard *g, const struct verify_spec *s, bool cand, double value);

/* The user's metric command, run by /bin/sh with stdout read and stderr
 * discarded, in its own process group (killed whole). */
struct verify_cmd {
    long pid;
    int fd;
    char out[256];
    size_t len;
    bool eof, reaped, overflow;
    int status;
};
/* Start; -1 with e when it cannot be started at all. */
int verify_cmd_start(struct verify_cmd *c, const char *cmd, sl_err *e);
/* Read what it printed so far without waiting; true once it has exited. */
bool verify_cmd_poll(struct verify_cmd *c);
/* Kill it if it still runs, reap it, and parse one number: 0 with *value,
 * or -1 with why ("printed nothing", "printed 'abc', not a number",
 * "exited 127", "still running at the block's end: killed"). */
int verify_cmd_finish(struct verify_cmd *c, const char *cmd, double *value, char *why, size_t n);

/* --- the verdict (verdict.c) ---------------------------------------------- */

/* Decide per metric from the complete pairs of blocks (2k, 2k+1). */
void verify_decide(const struct verify_block *b, int n, const struct verify_spec *s, struct verify_verdict *out);
const char *verify_overall_name(enum verify_overall v);
/* The smallest change of metric m the whole test (npairs_planned pairs)
 * would show at the 0.05 level with 80% power, at the spread of the
 * pairs among the first ncomplete blocks so far; a percentage, or NAN
 * before two pairs (or when a value is not positive). Rough: the spread of
 * a few pairs is itself uncertain. */
/* The effect of B on metric m as one line: "+3.1% [90% CI -2.0%, +8.4%]
 * p=0.21: no difference beyond noise", "no verdict: why", or why it is not
 * judged. The front ends and the report say it alike. */
void verify_effect_text(const struct verify_verdict *v, enum verify_metric m, char *buf, size_t n);
/* How busy the disk was and what that means for throughput. */
void verify_saturation_text(const struct verify_verdict *v, char *buf, size_t n);
/* The warning when the arms' I/O volumes differed (v->demand_differs). */
void verify_demand_text(const struct verify_verdict *v, char *buf, size_t n);
/* The fewest pairs in which the signed-rank test can show a difference
 * among `judged` metrics at Holm's first level, 0.05 / judged. */
int verify_pairs_needed(int judged);
/* The metrics a plan will judge on a disk that is not saturated: await,
 * PSI io some and full, the canary's, the --metric. */
int verify_plan_judged(const struct verify_plan *p, const struct verify_spec *s);
/* The smallest change in metric m the whole test (npairs_planned pairs)
 * would show with 80% power at the noise of the pairs so far, when m alone
 * moves among `judged` metrics: Holm's first level, 0.05 / judged. NAN
 * before two pairs. */
double verify_detectable_pct(const struct verify_block *b, int ncomplete, enum verify_metric m, int npairs_planned,
                             int judged);

/* --- the record (record.c): each test and its blocks in the store --------- */

const char *verify_end_name(enum verify_end e);
struct verify_row;
/* The test's row, once its session is open. -1 with e. */
int verify_record_start(store *st, struct verify_run *r, int64_t session_id, sl_err *e);
/* Block i's row, as soon as it is measured. -1 with e. */
int verify_record_block(store *st, const struct verify_run *r, int i, sl_err *e);
/* How it ended: state, verdict, what was kept or put back. -1 with e. */
int verify_record_end(store *st, const struct verify_run *r, sl_err *e);
/* A stored test (UUID or a unique prefix) as a run again: spec, plan
 * (order, settle times, disks), its blocks, and the verdict drawn from
 * them by verify_decide, as the test drew it. row gets the stored row
 * (its times, state, candidate); out->spec points into it, so row must
 * outlive out. -1 with e (SL_EUSAGE: no such test); free with
 * verify_run_free. */
int verify_load(store *st, const char *uuid_prefix, struct verify_run *out, struct verify_row *row, sl_err *e);

/* --- the test (live.c) ---------------------------------------------------- */

/* Run the prepared test inside one tuning session over the candidate's
 * knobs (SIGINT/SIGTERM or obs->cancelled put them back; after SIGKILL
 * `restore --crashed` does). obs may be NULL. 0 when the test ran to an end (done, guard, interrupted, idle:
 * r->end says which), -1 with e when it could not start or a write
 * failed (the session then put back what it could; e says what holds). */
int verify_live(store *st, struct verify_run *r, const struct knobset *cand, const struct verify_observer *obs,
                sl_err *e);
void verify_run_free(struct verify_run *r);

#endif
