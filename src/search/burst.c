/* burst — the write volume of a search's buffered writer, sized once from
 * a calibration run, and what it means against the thresholds. */
#include "search/burst.h"
#include "probe/probe_store.h"
#include "probe/settle.h"
#include "core/units.h"
#include "core/vmstat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    return (double)units_monotonic_ms() / 1000;
}

uint64_t burst_free_under(const char *dir)
{
    struct statvfs v;
    return statvfs(dir, &v) == 0 && v.f_blocks ? (uint64_t)v.f_bavail * v.f_frsize : 0;
}

uint64_t burst_dirtyable_now(void)
{
    return vmstat_dirtyable_bytes();
}

/* One repetition of p, stored in st (uuid: its run, "" when not stored):
 * its rate in *mb_s; -1 with e when it failed or measured nothing. The
 * calibration and the series' runs alike. */
static int measured_run(struct probe *p, int rep, store *st, char uuid[37], double *mb_s, sl_err *e)
{
    struct probe_result *r = probe_result_new();
    int rc = probe_rep(p, rep, r, NULL, e);
    sl_err se;
    if (rc == 0 && st && probe_store(st, r, &se) == 0) snprintf(uuid, 37, "%s", r->uuid);
    if (rc == 0 && !(r->mb_s > 0))
        rc = sl_fail(e, SL_EFAIL, "a run measured no throughput: give the burst with --size");
    *mb_s = r->mb_s;
    probe_result_free(r);
    return rc;
}

int burst_calibrate(const struct probe_spec *spec, store *st, struct burst_calibration *c, sl_err *e)
{
    memset(c, 0, sizeof *c);
    struct probe_spec s = *spec;
    if (probe_spec_resolve(&s, e) < 0) return -1;
    uint64_t unit = s.bs * (uint64_t)(s.threads > 0 ? s.threads : 1);
    uint64_t room = s.ndirs ? burst_free_under(s.dir[0]) / 4 : 0, want = BURST_CALIBRATION_BYTES;
    if (room && want > room) want = room;
    want = unit ? want / unit * unit : want;
    if (want < unit) want = unit;
    s = *spec;
    s.size_bytes = want;
    s.repeat = BURST_CALIBRATION_RUNS;
    struct probe *p;
    if (probe_open_recorded(&s, st, &p, e) < 0) return sl_prefix(e, SL_EFAIL, "the calibration run");
    int rc = 0;
    for (int rep = 0; rep < BURST_CALIBRATION_RUNS && rc == 0; rep++) {
        double t0 = now_s();   /* the last one's time, set-up included */
        rc = measured_run(p, rep, st, c->run_uuid, &c->mb_s, e);
        c->wall_s = now_s() - t0;
    }
    c->bytes = want;
    probe_close(p);
    return rc < 0 ? sl_prefix(e, SL_EFAIL, "the calibration run") : 0;
}

int burst_step_run(const struct probe_spec *spec, store *st, struct burst_calibration *c, sl_err *e)
{
    if (c->nsteps >= BURST_STEPS_MAX) return sl_fail(e, SL_EFAIL, "the burst's series ran %d times", c->nsteps);
    struct probe_spec s = *spec;
    s.repeat = 1;
    double t0 = now_s();
    struct probe *p;
    if (probe_open_recorded(&s, st, &p, e) < 0) return sl_prefix(e, SL_EFAIL, "timing the burst");
    double mb_s = 0;
    int rc = measured_run(p, 0, st, c->step_run_uuid, &mb_s, e);
    probe_close(p);   /* its removal is part of every evaluation's time */
    if (rc == 0) c->step[c->nsteps++] = (struct burst_step){ .bytes = s.size_bytes, .mb_s = mb_s, .wall_s = now_s() - t0 };
    return rc < 0 ? sl_prefix(e, SL_EFAIL, "timing the burst") : 0;
}

/* The seconds spent waiting, as a probe waits before its run, for the
 * memory the last run freed to go back to the host (probe/settle.h); 0
 * where nothing waits (a small burst, tmpfs, a fixture root). */
static double wait_for_freed_memory(const struct probe_spec *spec)
{
    uint64_t ms = 0;
    if (probe_waits_for_freed_memory(spec)) probe_settle_wait(spec->size_bytes, NULL, &ms);
    return (double)ms / 1000;
}

bool burst_user_burst_timed(const struct burst_calibration *c, uint64_t size_bytes)
{
    return c->mb_s > 0 && c->bytes && size_bytes >= (uint64_t)BURST_SERIES_FROM * c->bytes;
}

/* A tune --quick --size 3G on this project's VM planned 16.4 s a run from
 * the calibration's 512 MiB and its runs came 28.7 s apart (3 GiB's freed
 * memory takes longer to go back to the host than 512 MiB's): the plan said
 * about 6 minutes and the tune took 9.5 (bench/data/transfer-as-user-53.out). */
int burst_step_run_whole(const struct probe_spec *spec, store *st, struct burst_calibration *c, sl_err *e)
{
    /* the memory the run before freed goes back before the clock starts */
    bool waits = wait_for_freed_memory(spec) > 0;
    if (burst_step_run(spec, st, c, e) < 0) return -1;
    struct burst_step *last = &c->step[c->nsteps - 1];
    /* A run of the search waits, before it, for the memory the run before
     * it freed: the wait after this one is that. Its own wait before it
     * finds nothing left (the wait above) and waits SETTLE_NONE_MS for
     * nothing, which no run of the search does: taken off. On this
     * project's VM the 3 GiB burst of bench/data/transfer-as-user-53.out,
     * whose runs came 28.7 s apart, timed 28.7 s; without the wait above
     * (this run then waited for the calibration's memory too) 36.9 s. */
    last->wall_s += wait_for_freed_memory(spec);
    if (waits && last->wall_s > 2.0 * SETTLE_NONE_MS / 1000) last->wall_s -= SETTLE_NONE_MS / 1000.0;
    return 0;
}

int burst_time_user_burst(const struct probe_spec *spec, store *st, struct burst_calibration *c, sl_err *e)
{
    if (!burst_user_burst_timed(c, spec->size_bytes)) return 0;
    if (burst_step_run_whole(spec, st, c, e) < 0) return -1;
    c->fit_bytes = c->step[c->nsteps - 1].bytes;
    c->fit_s = c->step[c->nsteps - 1].wall_s;
    return 0;
}

static uint64_t whole_units(double bytes, uint64_t unit)
{
    if (unit == 0) unit = 1;
    uint64_t b = bytes > 1e18 ? (uint64_t)1e18 : bytes < 0 ? 0 : (uint64_t)bytes;
    b = b / unit * unit;
    return b < unit ? unit : b;
}

/* "2.0 GiB in 2.4 s, 4.0 GiB in 11.2 s" */
static void steps_text(const struct burst_calibration *c, char *buf, size_t n)
{
    size_t l = 0;
    buf[0] = 0;
    for (int i = 0; i < c->nsteps && l < n; i++) {
        char b[32];
        units_format_bytes(c->step[i].bytes, b, sizeof b);
        int w = snprintf(buf + l, n - l, "%s%s in %.1f s", i ? ", " : "", b, c->step[i].wall_s);
        if (w < 0) break;
        l += (size_t)w;
    }
}

/* The part of a run's time that was not its writing (set-up, removal, the
 * wait before it): its wall time less its bytes at its rate; may be < 0. */
static double step_setup_s(const struct burst_step *s)
{
    return s->mb_s > 0 ? s->wall_s - (double)s->bytes / (s->mb_s * 1e6) : 0;
}

/* The calibration's last run as a step of the series */
static struct burst_step calibration_step(const struct burst_calibration *c)
{
    return (struct burst_step){ .bytes = c->bytes, .mb_s = c->mb_s, .wall_s = c->wall_s };
}

static int series_done(struct burst_calibration *c, uint64_t chosen, double run_s, const char *why, uint64_t *size,
                       char *note, size_t n)
{
    *size = chosen;
    c->fit_bytes = chosen;
    c->fit_s = run_s;
    if (n) note[0] = 0;
    if (!c->nsteps) return 0;
    char runs[256], b[32];
    steps_text(c, runs, sizeof runs);
    units_format_bytes(chosen, b, sizeof b);
    snprintf(note, n, "burst %s for every configuration, about %.0f s a run, as runs at the current settings timed it "
                      "(%s, opening and removing the files included): %s", b, run_s, runs, why);
    return 0;
}

int burst_next_step(struct burst_calibration *c, uint64_t most, uint64_t unit, uint64_t *next, uint64_t *size,
                    char *note, size_t n)
{
    uint64_t first = whole_units((double)c->bytes * BURST_SERIES_FROM, unit);
    if (c->nsteps == 0) {
        if (!(c->mb_s > 0) || !c->bytes || most <= first) return series_done(c, most, 0, "", size, note, n);
        *next = first;
        return 1;
    }
    const struct burst_step *last = &c->step[c->nsteps - 1];
    if (c->cut_bytes && last->bytes == c->cut_bytes)
        return series_done(c, last->bytes, last->wall_s, "the last but one took longer than the target, so the burst "
                           "is cut back along the line through the two before it, and timed by a run of its own, the "
                           "wait for the memory it freed to go back to the host included", size, note, n);
    /* the point before the last: the previous run, or the calibration's */
    struct burst_step prev = c->nsteps > 1 ? c->step[c->nsteps - 2] : calibration_step(c);
    if (last->wall_s > BURST_SERIES_SLACK * BURST_TARGET_S) {
        double slope = (last->wall_s - prev.wall_s) / ((double)last->bytes - (double)prev.bytes);
        double want = slope > 0 && prev.wall_s < BURST_TARGET_S
                    ? (double)prev.bytes + (BURST_TARGET_S - prev.wall_s) / slope : (double)prev.bytes;
        uint64_t fit = whole_units(want, unit);
        if (fit > last->bytes) fit = last->bytes;
        if (prev.wall_s < BURST_TARGET_S && fit != last->bytes && fit != prev.bytes) {
            /* The line says what the burst writes, not what a run of it
             * takes: a run of the search also waits for the memory the run
             * before it freed, longer after a larger burst, and the line
             * through two runs that each waited after a smaller one missed
             * it. On this project's VM a burst cut back to 879 MiB was
             * planned at 8.0 s a run (the target) and the runs came 10.0 s
             * apart (bench/data/transfer-as-user-81-nodir.out); another,
             * 899 MiB, 11.2 s: the plan counted 37 evaluations and 29 ran.
             * So the cut-back burst runs once more, through the whole cycle
             * (burst_step_run_whole), and that is its time. */
            c->cut_bytes = fit;
            *next = fit;
            return 1;
        }
        if (prev.wall_s < BURST_TARGET_S)
            return series_done(c, fit, BURST_TARGET_S, "the last took longer than the target, so the burst is cut "
                               "back along the line through the last two", size, note, n);
        /* Even the smaller burst took longer than the target: the time a
         * run takes whatever its burst (its set-up, and on a VM that hands
         * freed memory back to its host the wait for that, 8-17 s on this
         * project's: probe/settle.h) is most of it. A smaller burst saves
         * little, so the smaller is kept, timed as it ran. */
        double setup = step_setup_s(&prev);
        char why[256];
        snprintf(why, sizeof why, "even the smaller took longer than the target, %.1f s of it not the burst's writing "
                 "(the run's set-up and the wait before it), so the burst is the smaller", setup > 0 ? setup : 0);
        return series_done(c, fit, prev.wall_s, why, size, note, n);
    }
    if (last->wall_s >= BURST_GROW_ENOUGH * BURST_TARGET_S || last->bytes >= most || c->nsteps >= BURST_STEPS_MAX)
        return series_done(c, last->bytes, last->wall_s,
                           last->wall_s >= BURST_GROW_ENOUGH * BURST_TARGET_S ? "the last is near the target"
                                                                               : "the last is the sized burst", size, note, n);
    uint64_t twice = whole_units((double)last->bytes * 2, unit);
    *next = twice > most ? most : twice;
    return 1;
}

double burst_rate_mb_s(const struct burst_calibration *c)
{
    return c->nsteps ? c->step[c->nsteps - 1].mb_s : c->mb_s;
}

double burst_setup_seconds(const struct burst_calibration *c)
{
    struct burst_step calib = calibration_step(c);
    const struct burst_step *last = c->nsteps ? &c->step[c->nsteps - 1] : NULL;
    double setup = step_setup_s(last && last->mb_s > 0 ? last : &calib);
    return setup > 0.5 ? setup : 0.5;
}

double burst_run_seconds(const struct burst_calibration *c, uint64_t size_bytes)
{
    if (c->fit_s > 0 && size_bytes == c->fit_bytes) return c->fit_s;
    double mb_s = burst_rate_mb_s(c);
    return mb_s > 0 ? (double)size_bytes / (mb_s * 1e6) + burst_setup_seconds(c) : 0;
}

uint64_t burst_for_rate(double mb_s, uint64_t free_bytes, uint64_t dirtyable_bytes, uint64_t unit, char *note, size_t n,
                        bool *capped)
{
    double want = mb_s * 1e6 * BURST_TARGET_S;
    uint64_t size = want > 1e18 ? (uint64_t)1e18 : (uint64_t)want;
    const char *why = "";
    *capped = false;
    if (dirtyable_bytes && size > dirtyable_bytes / 2) {
        size = dirtyable_bytes / 2;
        why = "memory";
    }
    if (free_bytes && size > free_bytes / 2) {
        size = free_bytes / 2;
        why = "free space";
        *capped = true;
    }
    if (unit == 0) unit = 1;
    size = size / unit * unit;
    if (size < unit) size = unit;
    char sb[32], cap[32];
    units_format_bytes(size, sb, sizeof sb);
    if (!why[0])
        snprintf(note, n, "burst %s for every configuration: about %.0f s at %.0f MB/s, the write + fsync rate a "
                          "calibration run measured at the current settings (--size sets another, --throttled sizes "
                          "it past the largest dirty limit)", sb, BURST_TARGET_S, mb_s);
    else {
        units_format_bytes(*why == 'm' ? dirtyable_bytes : free_bytes, cap, sizeof cap);
        snprintf(note, n, "burst %s for every configuration: %.0f s at the calibrated %.0f MB/s would need more, but "
                          "it is capped at half the %s (%s): a run takes about %.1f s (--size sets another)",
                 sb, BURST_TARGET_S, mb_s, *why == 'm' ? "memory that can hold dirty pages" : "free space under --dir",
                 cap, (double)size / (mb_s * 1e6));
    }
    return size;
}

static enum burst_zone zone_of(uint64_t burst_bytes, uint64_t bg, uint64_t dirty)
{
    if (!bg || !dirty) return BURST_ZONE_UNKNOWN;
    return burst_bytes < bg ? BURST_ZONE_BELOW_BG : burst_bytes < bg / 2 + dirty / 2 ? BURST_ZONE_FREE_RUN : BURST_ZONE_THROTTLED;
}

enum burst_zone burst_regime(uint64_t burst_bytes, uint64_t bg, uint64_t dirty, char *buf, size_t n)
{
    char b[32], g[32], d[32], f[32];
    units_format_bytes(burst_bytes, b, sizeof b);
    units_format_bytes(bg, g, sizeof g);
    units_format_bytes(dirty, d, sizeof d);
    enum burst_zone zone = zone_of(burst_bytes, bg, dirty);
    if (zone == BURST_ZONE_UNKNOWN) {
        snprintf(buf, n, "a burst of %s (the thresholds in force are unknown on this kernel)", b);
        return zone;
    }
    units_format_bytes(bg / 2 + dirty / 2, f, sizeof f);
    if (zone == BURST_ZONE_BELOW_BG)
        snprintf(buf, n, "a burst of %s, below the background threshold (%s) in force: it stays in the page cache "
                         "until its fsync, so the claim holds for bursts that never reach the disk before fsync", b, g);
    else if (zone == BURST_ZONE_FREE_RUN)
        snprintf(buf, n, "a burst of %s, between the background threshold (%s) and the throttling zone (from %s, "
                         "halfway to the dirty threshold %s) in force: background writeback starts during it, the "
                         "writer is not throttled", b, g, f, d);
    else
        snprintf(buf, n, "a burst of %s, past the throttling zone's start (halfway between the background %s and the "
                         "dirty threshold %s in force): the writer is throttled, the regime of sustained writing", b, g, d);
    return zone;
}

void burst_regime_measured(enum burst_zone zone, int runs, int reached, char *buf, size_t n)
{
    buf[0] = 0;
    if (runs <= 0 || zone == BURST_ZONE_UNKNOWN) return;
    if (zone == BURST_ZONE_THROTTLED && 2 * reached <= runs)
        snprintf(buf, n, "but the runs measured otherwise: dirty data reached the throttling zone in %d of the "
                         "baseline's %d runs, written back about as fast as it was written, so the writer was %s "
                         "throttled and the claim holds for that regime", reached, runs, reached ? "mostly not" : "not");
    else if (zone != BURST_ZONE_THROTTLED && 2 * reached > runs)
        snprintf(buf, n, "but the runs measured otherwise: dirty data reached the throttling zone in %d of the "
                         "baseline's %d runs, so the writer was throttled in most of them", reached, runs);
}

void burst_thresholds_now(uint64_t *bg, uint64_t *dirty)
{
    struct vmstat v;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    bool known = vmstat_read(&v) == 0 && v.has_threshold && v.has_bg_threshold;
    *bg = known ? v.bg_thresh * page : 0;
    *dirty = known ? v.thresh * page : 0;
}

/* The catalogue's type of dm's knob (KT_INT when unknown). */
static enum knob_type dim_type(const struct space_dim *dm)
{
    struct knob k;
    return knob_lookup(dm->knob, NULL, &k, NULL) == 0 ? k.def->type : KT_INT;
}

/* Whether dm is a dirty limit of `role` that a burst's bytes meet: an
 * ordinal ratio or bytes knob, not a 2.4 bdflush field (which counts
 * buffers, not this burst's bytes). */
static bool burst_limit_dim(const struct space_dim *dm, enum dim_role role)
{
    return dm->kind == DIM_ORDINAL && dm->role == role && dim_type(dm) != KT_FIELD;
}

/* The bytes level i of dimension dm stands for. */
static uint64_t level_bytes(const struct space_dim *dm, int i, uint64_t dirtyable)
{
    long long v = dm->num[i];
    if (v <= 0) return 0;
    if (dim_type(dm) == KT_BYTES) return (uint64_t)v;
    return dirtyable * (uint64_t)(v > 100 ? 100 : v) / 100;
}

/* Drop level i of dm (the baseline's index moves with it). */
static void drop_level(struct space_dim *dm, int i)
{
    memmove(&dm->level[i], &dm->level[i + 1], sizeof dm->level[0] * (size_t)(dm->nlevels - i - 1));
    memmove(&dm->num[i], &dm->num[i + 1], sizeof dm->num[0] * (size_t)(dm->nlevels - i - 1));
    dm->nlevels--;
    if (dm->base > i) dm->base--;
}

/* Collapse dm's levels of at least `from` bytes to one; returns how many
 * went, and appends "knob: a, b, c as one" to note. */
static int collapse_dim(struct space_dim *dm, uint64_t from, uint64_t dirtyable, char *note, size_t n)
{
    int keep = -1, count = 0;
    for (int i = 0; i < dm->nlevels; i++)
        if (level_bytes(dm, i, dirtyable) >= from) {
            count++;
            if (keep < 0 || i == dm->base) keep = i;
        }
    if (count < 2) return 0;
    size_t l = strlen(note);
    snprintf(note + l, n - l, "%s%s ", l ? "; " : "", dm->knob);
    int removed = 0;
    for (int i = dm->nlevels - 1; i >= 0; i--) {
        if (level_bytes(dm, i, dirtyable) < from || i == keep) continue;
        l = strlen(note);
        snprintf(note + l, n - l, "%s%s", removed ? "," : "", dm->level[i]);
        drop_level(dm, i);
        if (keep > i) keep--;
        removed++;
    }
    l = strlen(note);
    snprintf(note + l, n - l, " as %s", dm->level[keep]);
    return removed;
}

/* The threshold of `role` under c: a *_bytes level other than 0 wins over
 * a ratio (as the kernel has it: setting one zeroes the other); `now` where
 * c keeps the baseline's levels of that role or a ratio cannot be sized. */
static uint64_t threshold_under(const struct space *sp, const struct search_config *c, enum dim_role role,
                                uint64_t dirtyable, uint64_t now)
{
    uint64_t ratio = 0, bytes = 0;
    bool moved = false;
    for (int d = 0; d < sp->ndims; d++) {
        const struct space_dim *dm = &sp->dim[d];
        if (!burst_limit_dim(dm, role)) continue;
        moved = moved || c->lv[d] != dm->base;
        if (dim_type(dm) == KT_BYTES) bytes = level_bytes(dm, c->lv[d], dirtyable);
        else if (dirtyable) ratio = level_bytes(dm, c->lv[d], dirtyable);
    }
    if (!moved) return now;
    return bytes ? bytes : ratio ? ratio : now;
}

enum burst_zone burst_regime_under(const struct space *sp, const struct search_config *c, uint64_t burst_bytes,
                                   uint64_t dirtyable_bytes, uint64_t bg_now, uint64_t dirty_now, const char *who,
                                   char *buf, size_t n)
{
    buf[0] = 0;
    enum burst_zone was = zone_of(burst_bytes, bg_now, dirty_now);
    if (was == BURST_ZONE_UNKNOWN) return was;
    uint64_t bg = threshold_under(sp, c, ROLE_DIRTY_BG, dirtyable_bytes, bg_now);
    uint64_t dirty = threshold_under(sp, c, ROLE_DIRTY, dirtyable_bytes, dirty_now);
    if (bg >= dirty) bg = dirty / 2;   /* the kernel halves a background threshold at or above the dirty one */
    enum burst_zone zone = zone_of(burst_bytes, bg, dirty);
    if (zone == was) return zone;
    char g[32], d[32], f[32];
    units_format_bytes(bg, g, sizeof g);
    units_format_bytes(dirty, d, sizeof d);
    units_format_bytes(bg / 2 + dirty / 2, f, sizeof f);
    if (zone == BURST_ZONE_BELOW_BG)
        snprintf(buf, n, "under %s settings (background threshold %s) it stays in the page cache until its fsync", who, g);
    else if (zone == BURST_ZONE_FREE_RUN)
        snprintf(buf, n, "under %s settings (background threshold %s) background writeback starts during the burst, "
                         "before its fsync, and the writer is not throttled: the claim measures that change", who, g);
    else
        snprintf(buf, n, "under %s settings (throttling from %s, halfway between the background %s and the dirty "
                         "threshold %s) the writer is throttled", who, f, g, d);
    return zone;
}

int burst_collapse_space(struct space *sp, uint64_t burst_bytes, uint64_t dirtyable_bytes, char *note, size_t n)
{
    note[0] = 0;
    if (!burst_bytes) return 0;
    char list[768] = "";
    int removed = 0;
    for (int d = 0; d < sp->ndims; d++) {
        struct space_dim *dm = &sp->dim[d];
        if (!burst_limit_dim(dm, ROLE_DIRTY) && !burst_limit_dim(dm, ROLE_DIRTY_BG)) continue;
        if (dim_type(dm) != KT_BYTES && !dirtyable_bytes) continue;
        uint64_t from = dm->role == ROLE_DIRTY ? 2 * burst_bytes : burst_bytes;
        removed += collapse_dim(dm, from, dirtyable_bytes, list, sizeof list);
    }
    if (removed) {
        char b[32];
        units_format_bytes(burst_bytes, b, sizeof b);
        snprintf(note, n, "limits a burst of %s cannot tell apart are measured once (a dirty limit of twice the burst "
                          "or more never throttles it, a background limit of the burst or more never starts writeback "
                          "before its fsync): %s", b, list);
    }
    return removed;
}
