/* burst — how much a buffered writer writes in each evaluation of a
 * search: the user's burst (--size), by default one a quick tune can
 * afford (one run of about BURST_TARGET_S: sized from the rate a
 * calibration run measured, capped by free space and by memory, then
 * timed by runs of the bursts between, burst_next_step), or, with --throttled,
 * twice the largest dirty limit the space can set. Sized once, before the
 * first evaluation: every configuration then runs the same work. Also
 * what the burst means against the thresholds (its regime), and which
 * dirty limits it can tell apart. */
#ifndef SLUICE_SEARCH_BURST_H
#define SLUICE_SEARCH_BURST_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "probe/probe.h"
#include "search/space.h"
#include "db/store.h"

/* One run of the default burst takes about this long at the calibrated
 * rate: long enough that a run is mostly the disk, not the set-up, short
 * enough that a quick tune's 5 minutes buy about 30 evaluations (a fast
 * disk's capped burst up to its 100). */
#define BURST_TARGET_S 8.0
/* The calibration run writes this much (less when free space is short):
 * 0.6-3.5 s at the 300-1800 MB/s this project's VM disk wrote. */
#define BURST_CALIBRATION_BYTES (512ull << 20)
/* The calibration writes that much this many times and keeps the last
 * rate: the first write after a quiet spell, or onto blocks the filesystem
 * never held, pays for first-touch costs (here a 512 MiB calibration ran
 * at 319 MB/s, then every 2.4 GiB run of the search at 1300-3300 MB/s:
 * bench/data/tune-quick-one-calibration-run.out; the
 * transfer bench's warm-up write exists for the same reason). */
#define BURST_CALIBRATION_RUNS 2
/* A disk slower than this gets the plan's warning and a smaller burst. */
#define BURST_SLOW_MB_S 50.0

/* The calibration's 512 MiB stays below the background threshold on a
 * machine with memory: it measures copying into the page cache and one
 * fsync, not a burst that writeback and throttling meet, and a virtual
 * disk's host cache takes a small burst far faster than a large one. On
 * this project's VM it measured 1455 MB/s and sized an 11 GiB burst for 8 s
 * a run, whose runs took 14 s (the plan said 35 evaluations, 18 ran:
 * bench/data/transfer-as-user-25.out); an hour later the same 11 GiB took
 * 35 s (366 MB/s) while 1.5 GiB took 2 s (transfer-as-user-26.out): a
 * run's time is far from proportional to its burst. So when the burst the
 * calibration sizes is more than BURST_SERIES_FROM times its own, the
 * bursts between are run once each at the current settings, through the
 * probe's whole cycle (open, write + fsync, removal), doubling from that
 * ratio until a run takes BURST_GROW_ENOUGH of BURST_TARGET_S or reaches
 * the sized burst; one that took more than BURST_SERIES_SLACK times the
 * target is cut back along the line through the last two runs, which a
 * run time that grows faster than the burst only overestimates, and the
 * burst it cut back to runs once more, timed as a run of the search takes
 * (burst_step_run_whole). The plan times runs by these runs. */
#define BURST_SERIES_FROM 4
#define BURST_GROW_ENOUGH 0.7
#define BURST_SERIES_SLACK 1.25
#define BURST_STEPS_MAX 8

/* One run of the series: its burst, rate and whole time. */
struct burst_step {
    uint64_t bytes;
    double mb_s;
    double wall_s;   /* open, write + fsync, removal */
};

/* What the calibration run measured, at the settings in force. */
struct burst_calibration {
    double mb_s;           /* write + fsync, bytes over the time to durable */
    double wall_s;         /* the whole run, set-up included */
    uint64_t bytes;
    char run_uuid[37];     /* the stored run ("" when not stored) */
    /* the series towards the burst's own regime (nsteps 0: not run) */
    int nsteps;
    struct burst_step step[BURST_STEPS_MAX];
    char step_run_uuid[37];  /* the last one's stored run */
    uint64_t cut_bytes;      /* a burst the series cut back to, run last to time it (0: none) */
    uint64_t fit_bytes;      /* the burst the series chose */
    double fit_s;            /* and its time a run (0: by the calibration's rate) */
};

/* Run spec (a buffered writer) BURST_CALIBRATION_RUNS times writing
 * BURST_CALIBRATION_BYTES (at most a quarter of the free space under its
 * first --dir) at the current settings, store the runs in st (NULL: not
 * stored), and keep the last one's rate and time. -1 with e when the probe
 * cannot run. */
int burst_calibrate(const struct probe_spec *spec, store *st, struct burst_calibration *c, sl_err *e);

/* The default burst for a disk writing mb_s: BURST_TARGET_S of it, at
 * most half of free_bytes and half of the memory that can hold dirty
 * pages (dirtyable_bytes; 0: unknown), a whole number of units (bs x
 * threads), at least one. *why says which cap applied ("" for none);
 * note (n bytes) says what was sized and why. */
uint64_t burst_for_rate(double mb_s, uint64_t free_bytes, uint64_t dirtyable_bytes, uint64_t unit, char *note, size_t n,
                        bool *capped);

/* The series' next step: 1 with *next, the burst to run next (with
 * burst_step_run_whole when it is c->cut_bytes, else burst_step_run); 0 when it
 * is done, with *size (at most `most`, the burst the calibration sized, a
 * whole number of units) and c->fit_s set; note (n bytes, "" when nothing
 * ran) says what the runs measured and what was chosen. Pure: the unit
 * tests drive it with made-up runs. */
int burst_next_step(struct burst_calibration *c, uint64_t most, uint64_t unit, uint64_t *next, uint64_t *size,
                    char *note, size_t n);

/* Run a burst of spec->size_bytes once at the current settings through the
 * probe's whole cycle, store it in st (NULL: not stored), and append it to
 * c's steps. -1 with e when the probe cannot run. */
int burst_step_run(const struct probe_spec *spec, store *st, struct burst_calibration *c, sl_err *e);

/* burst_step_run as a run of the search goes: after the wait for the
 * memory the run before freed (not counted), and with the wait for the
 * memory it frees (counted: the next run waits for it), so that the step's
 * time is what an evaluation of the search takes. The series' cut-back
 * burst (c->cut_bytes) is timed so. */
int burst_step_run_whole(const struct probe_spec *spec, store *st, struct burst_calibration *c, sl_err *e);

/* A burst the user gave (spec->size_bytes, --size) of BURST_SERIES_FROM
 * times the calibration's or more, timed by one run of its own at the
 * current settings and the wait, after it, for the memory it freed to go
 * back to the VM's host (probe/settle.h), which every run of the search
 * waits for before it starts: c->fit_s then says what a run takes. 0 (c
 * unchanged) when the burst is smaller; -1 with e when the probe cannot
 * run. */
int burst_time_user_burst(const struct probe_spec *spec, store *st, struct burst_calibration *c, sl_err *e);
/* Whether burst_time_user_burst times a burst of size_bytes after c. */
bool burst_user_burst_timed(const struct burst_calibration *c, uint64_t size_bytes);

/* The seconds one run of a size_bytes burst takes, set-up and removal
 * included, from what c measured: the series' choice (fit_s) for its burst,
 * else the last run's rate and set-up (the series', or the calibration's,
 * at least 0.5 s of set-up). 0 when c measured nothing. */
double burst_run_seconds(const struct burst_calibration *c, uint64_t size_bytes);

/* The part of burst_run_seconds that is not writing. */
double burst_setup_seconds(const struct burst_calibration *c);

/* The rate burst_run_seconds writes at. */
double burst_rate_mb_s(const struct burst_calibration *c);

/* Where a burst falls against the thresholds (burst_regime returns it with
 * its words): BURST_ZONE_UNKNOWN when they are unknown. */
enum burst_zone { BURST_ZONE_UNKNOWN, BURST_ZONE_BELOW_BG, BURST_ZONE_FREE_RUN, BURST_ZONE_THROTTLED };

/* What the runs measured against what the burst's size predicted (zone):
 * "" when they agree. A burst past the throttling zone's start whose
 * dirty data reached the zone in at most half of the baseline's runs
 * (`runs`, `reached`) was written back about as fast as it was written:
 * its writer was mostly not throttled, whatever its size says (on this
 * project's VM an 11 GiB burst reached it in 4 of the baseline's 9 runs,
 * the writer bound by copying into the page cache: #28's runs 18 and 21,
 * whose databases bench/transfer kept; bench/lib/as_user.py now prints
 * the count). And the other way round for a burst predicted not to reach
 * the zone. */
void burst_regime_measured(enum burst_zone zone, int runs, int reached, char *buf, size_t n);

/* The regime a burst of burst_bytes is in against background threshold bg
 * and dirty threshold dirty (bytes; 0 unknown): below the background
 * threshold (the page cache holds it until fsync), between the background
 * threshold and the throttling zone, or throttled (past halfway between
 * the two, where balance_dirty_pages starts throttling). A sentence, and the zone it names. */
enum burst_zone burst_regime(uint64_t burst_bytes, uint64_t bg, uint64_t dirty, char *buf, size_t n);

/* The regime the same burst is in under configuration c, whose dirty and
 * background levels stand for thresholds of dirtyable_bytes (a ratio's
 * share of it, a *_bytes level itself; where c keeps the baseline's level,
 * the threshold in force, bg_now and dirty_now): "" and its zone equal to
 * the zone in force when c does not move the burst to another regime;
 * otherwise a sentence naming `who` ("the winner's"), the threshold that
 * moved it and what the burst meets there. A 512 MiB burst below a 2.3 GiB
 * background threshold meets writeback before its fsync under a
 * background ratio of 1% (about 230 MiB on this project's VM): the change
 * a quick tune's claim measures (bench/data/transfer-as-user-56-null.out). */
enum burst_zone burst_regime_under(const struct space *sp, const struct search_config *c, uint64_t burst_bytes,
                                   uint64_t dirtyable_bytes, uint64_t bg_now, uint64_t dirty_now, const char *who,
                                   char *buf, size_t n);
/* The thresholds in force now in bytes (vmstat), 0 when unknown. */
void burst_thresholds_now(uint64_t *bg, uint64_t *dirty);

/* The bytes an unprivileged writer may still use under dir, 0 when unknown. */
uint64_t burst_free_under(const char *dir);
/* The memory that can hold dirty pages now (free + file pages), 0 when
 * unknown: a ratio of it is a threshold in bytes. */
uint64_t burst_dirtyable_now(void);

/* Limits the burst cannot tell apart, collapsed: a dirty limit at or
 * above twice the burst never throttles it (throttling starts halfway
 * between the background and dirty thresholds), and a background limit at
 * or above the burst never starts background writeback before its fsync;
 * of such levels of a dimension only one stays (the baseline's when it is
 * one of them, else the smallest). Ratios convert through dirtyable_bytes
 * (0: ratio dimensions are left alone). Returns how many levels were
 * removed; note (n bytes) says which ("" when none). */
int burst_collapse_space(struct space *sp, uint64_t burst_bytes, uint64_t dirtyable_bytes, char *note, size_t n);

#endif
