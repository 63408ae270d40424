/* live — the switchback test itself: one tuning session, blocks on a fixed
 * clock (block i spans [i, i+1) block lengths from the start, so a slow
 * write or metric never shifts the rest), counters sampled every
 * sample_ms, the guard watching every sample of a B block. */
#include "verify/live.h"
#include "core/interrupt.h"
#include "probe/canary_reader.h"
#include "session/session.h"
#include "db/store_session.h"
#include "verify/measure.h"
#include "core/units.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct live {
    store *st;
    struct verify_run *r;
    const struct knobset *cand;
    const struct verify_observer *obs;
    struct session *s;
    struct canary_reader *canary;   /* NULL: none */
    bool store_failed;              /* a block could not be stored (said once) */
    long long t0_ms;
    bool b_in_force;
};

/* Why the test is to stop now: a signal or the front end's cancel ("" to
 * go on). */
static const char *stop_reason(const struct live *L, char *buf, size_t n)
{
    buf[0] = 0;
    if (interrupt_signal) snprintf(buf, n, "interrupted by signal %d", (int)interrupt_signal);
    else if (L->obs && L->obs->cancelled && L->obs->cancelled(L->obs->arg)) snprintf(buf, n, "cancelled");
    return buf;
}

/* Sleep until the monotonic time `until` in short steps, so a signal or a
 * cancel ends it within 100 ms. False when stopped. */
static bool sleep_until(const struct live *L, long long until)
{
    for (;;) {
        char why[48];
        if (stop_reason(L, why, sizeof why)[0]) return false;
        long long left = until - units_monotonic_ms();
        if (left <= 0) return true;
        if (left > 100) left = 100;
        struct timespec ts = { left / 1000, (left % 1000) * 1000000 };
        nanosleep(&ts, NULL);
    }
}

static void note(const struct live *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const struct live *L, const char *fmt, ...)
{
    if (!L->obs || !L->obs->note) return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    L->obs->note(L->obs->arg, msg);
}

/* B: the candidate written inside the session (a fresh knobset each time:
 * knobset_apply records its side effects per call). */
static int put_b(struct live *L, sl_err *e)
{
    struct knobset ks = { 0 };
    int rc = 0;
    for (int i = 0; i < L->cand->n && rc == 0; i++) rc = knobset_add(&ks, L->cand->ch[i].k.name, L->cand->ch[i].want, e);
    if (rc == 0) rc = knobset_prepare(&ks, e);
    if (rc == 0) rc = knobset_apply(&ks, L->s, e);
    knobset_free(&ks);
    if (rc == 0) L->b_in_force = true;
    return rc;
}

/* A: the session's snapshot put back, journaled like any write. */
static int put_a(struct live *L, sl_err *e)
{
    struct restore_report rep = { 0 };
    int rc = session_put_back_own(L->s, &rep, e);
    if (rc == 0 && rep.failed) {
        char first[600] = "";
        for (int i = 0; i < rep.n && !first[0]; i++)
            if (rep.items[i].status == RESTORE_FAILED) snprintf(first, sizeof first, "%s: %s", rep.items[i].knob, rep.items[i].msg);
        rc = sl_fail(e, SL_EPARTIAL, "putting the settings in force back failed for %d knob(s) (%s)", rep.failed, first);
    }
    restore_report_free(&rep);
    if (rc == 0) L->b_in_force = false;
    return rc;
}

/* The metric command once at the current settings, before anything is
 * written: a command that fails, hangs or prints no number is refused now,
 * not discovered block after block. */
static int check_metric(const struct live *L, sl_err *e)
{
    const struct verify_run *r = L->r;
    const char *cmd = r->spec.metric_cmd;
    if (!cmd) return 0;
    struct verify_cmd c;
    if (verify_cmd_start(&c, cmd, e) < 0) return -1;
    long long until = units_monotonic_ms() + r->spec.block_ms;
    while (!verify_cmd_poll(&c) && units_monotonic_ms() < until && sleep_until(L, units_monotonic_ms() + 20)) {}
    double v;
    char why[512], stop[48];
    int rc = verify_cmd_finish(&c, cmd, &v, why, sizeof why);
    if (stop_reason(L, stop, sizeof stop)[0])
        return sl_fail(e, SL_EFAIL, "%s during the --metric's trial run (stopped). Nothing was changed", stop);
    if (rc < 0)
        return sl_fail(e, SL_EUSAGE, "--metric: %s (run once at the current settings, with a block's time to answer). "
                       "Nothing was changed", why);
    return 0;
}

/* What one block watches while it runs. */
struct block_watch {
    struct verify_reading prev, m0;
    struct verify_vm_sum vm;
    bool measuring, metric_running;
    struct verify_cmd metric;
    struct canary_take canary;       /* the measured part's reads */
};

/* The guarded counters since the previous sample; the canary's reads of
 * the measured part are summed into w. */
static void sample_read(struct live *L, struct block_watch *w, const struct verify_reading *cur, struct verify_sample *x)
{
    verify_sample_between(&L->r->plan, &w->prev, cur, &x->psi_full, &x->await_ms);
    x->canary_ms = -1;
    if (!L->canary) return;
    struct canary_take t;
    canary_reader_take(L->canary, &t);
    if (t.reads || t.max_ns) x->canary_ms = (double)t.max_ns / 1e6;
    if (!w->measuring) return;
    w->canary.reads += t.reads;
    w->canary.sum_ns += t.sum_ns;
    w->canary.due += t.due;
    w->canary.due_sum_ns += t.due_sum_ns;
    if (t.max_ns > w->canary.max_ns) w->canary.max_ns = t.max_ns;
}

static void start_measuring(struct live *L, struct block_watch *w, const struct verify_reading *at)
{
    w->measuring = true;
    w->m0 = *at;
    verify_vm_add(&w->vm, at);
    if (L->canary) {
        struct canary_take drop;   /* the settle time's reads are not the block's */
        canary_reader_take(L->canary, &drop);
    }
    if (L->r->spec.metric_cmd) w->metric_running = verify_cmd_start(&w->metric, L->r->spec.metric_cmd, NULL) == 0;
}

/* One sample: the guard checks it in a B block, learns from it in an A block.
 * 1 when the guard fired (B is reverted and the test ends), -1 on a failed
 * write, else 0. */
static int sample(struct live *L, struct verify_block *blk, struct block_watch *w, long long settle_at, sl_err *e)
{
    struct verify_run *r = L->r;
    struct verify_reading cur;
    verify_read(&r->plan, &cur);
    struct verify_sample x;
    sample_read(L, w, &cur, &x);
    w->prev = cur;
    if (blk->cand && verify_guard_check(&r->guard, &r->spec, r->plan.sample_ms, &x)) {
        if (put_a(L, e) < 0) return -1;
        r->end = VE_GUARD;
        snprintf(r->end_why, sizeof r->end_why, "stopped by guard: %s. B was reverted at once", r->guard.why);
        return 1;
    }
    if (!w->measuring && units_monotonic_ms() >= settle_at) {
        start_measuring(L, w, &cur);
        return 0;
    }
    if (!w->measuring) return 0;
    verify_vm_add(&w->vm, &cur);
    if (!blk->cand) verify_guard_learn(&r->guard, &r->spec, &x);
    if (w->metric_running) verify_cmd_poll(&w->metric);
    return 0;
}

/* The block's numbers from its measured part, the metric collected. */
static void block_close(struct live *L, struct verify_block *blk, struct block_watch *w)
{
    struct verify_run *r = L->r;
    blk->end_ms = units_monotonic_ms() - L->t0_ms;
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    blk->wall_end_ms = (long long)wall.tv_sec * 1000 + wall.tv_nsec / 1000000;
    if (w->measuring) verify_block_between(&r->plan, &w->m0, &w->prev, &w->vm, blk);
    else snprintf(blk->note, sizeof blk->note, "nothing measured after the settle time");
    if (w->measuring && w->canary.reads) {
        /* the mean wait of the reads due: a block whose stalls held one
         * read for a second is not the quieter for having read less */
        blk->v[VM_CANARY_MS] = (double)w->canary.due_sum_ns / (double)w->canary.due / 1e6;
        blk->v[VM_CANARY_MAX_MS] = (double)w->canary.max_ns / 1e6;
        blk->has[VM_CANARY_MS] = blk->has[VM_CANARY_MAX_MS] = true;
        /* the workload's demand, not the canary's own reads (an idle disk
         * stays idle, the arms' volumes compare the workload's) */
        double secs = (double)(blk->end_ms - blk->start_ms - blk->settle_ms) / 1000;
        if (secs > 0) blk->io_bytes_s -= (double)w->canary.reads * CANARY_IO / secs;
        if (blk->io_bytes_s < 0) blk->io_bytes_s = 0;
    } else if (w->measuring && L->canary) {
        snprintf(blk->note, sizeof blk->note, "no canary read completed in the block's measured part");
    }
    if (w->metric_running) {
        double v;
        if (verify_cmd_finish(&w->metric, r->spec.metric_cmd, &v, blk->note, sizeof blk->note) == 0) {
            blk->v[VM_USER] = v;
            blk->has[VM_USER] = true;
        }
    } else if (r->spec.metric_cmd && w->measuring) {
        snprintf(blk->note, sizeof blk->note, "the metric command could not be started");
    }
    if (!blk->cand && w->measuring) verify_guard_arm(&r->guard, &r->spec);
}

/* The metric's guard, at the end of a block: B is reverted before the
 * next block starts. 1 when it fired, -1 when reverting failed. */
static int metric_guard(struct live *L, const struct verify_block *blk, sl_err *e)
{
    struct verify_run *r = L->r;
    if (!blk->has[VM_USER] || !verify_guard_metric(&r->guard, &r->spec, blk->cand, blk->v[VM_USER])) return 0;
    if (put_a(L, e) < 0) return -1;
    r->end = VE_GUARD;
    snprintf(r->end_why, sizeof r->end_why, "stopped by guard: %s. B was reverted at once", r->guard.why);
    return 1;
}

/* Run block i: switch if its setting is not in force, settle, measure.
 * 0 to go on, 1 when the test ends here (r->end says why), -1 on error. */
static int run_block(struct live *L, int i, sl_err *e)
{
    struct verify_run *r = L->r;
    struct verify_block *blk = &r->blocks[i];
    memset(blk, 0, sizeof *blk);
    blk->cand = r->plan.cand[i];
    long long start = L->t0_ms + (long long)i * r->spec.block_ms, end = start + r->spec.block_ms;
    blk->start_ms = start - L->t0_ms;
    if (blk->cand != L->b_in_force) {
        /* what drains is the dirty data of the setting left */
        blk->settle_ms = r->plan.settle_after_ms[L->b_in_force ? 1 : 0];
        if ((blk->cand ? put_b(L, e) : put_a(L, e)) < 0) return -1;
    }
    verify_guard_block(&r->guard);
    struct block_watch w = { .measuring = false };
    verify_read(&r->plan, &w.prev);
    long long settle_at = start + blk->settle_ms;
    if (blk->settle_ms == 0) start_measuring(L, &w, &w.prev);
    int rc = 0;
    for (long long next = start + r->plan.sample_ms; rc == 0; next += r->plan.sample_ms) {
        if (next > end) next = end;
        if (!sleep_until(L, next)) {
            char stop[48];
            r->end = VE_INTERRUPTED;
            snprintf(r->end_why, sizeof r->end_why, "%s in block %d", stop_reason(L, stop, sizeof stop), i + 1);
            rc = 1;
            break;
        }
        rc = sample(L, blk, &w, settle_at, e);
        if (next >= end) break;
    }
    block_close(L, blk, &w);
    if (rc == 0) rc = metric_guard(L, blk, e);
    return rc;
}

/* After the first pair: a disk with no I/O at all has nothing to verify. */
static bool idle(struct live *L)
{
    const struct verify_block *b = L->r->blocks;
    if (b[0].io_bytes_s > 0 || b[1].io_bytes_s > 0) return false;
    if (b[0].has[VM_USER] || b[1].has[VM_USER]) return false;
    char disks[VERIFY_DISKS_MAX * 66] = "";
    for (int i = 0; i < L->r->plan.ndisks; i++)
        snprintf(disks + strlen(disks), sizeof disks - strlen(disks), "%s%s", i ? ", " : "", L->r->plan.disks[i]);
    L->r->end = VE_IDLE;
    snprintf(L->r->end_why, sizeof L->r->end_why, "no I/O on %s in the first two blocks: nothing to verify on an idle "
             "disk ('sluice tune --quick' measures a probe workload instead)", disks);
    return true;
}

static int run_blocks(struct live *L, sl_err *e)
{
    struct verify_run *r = L->r;
    L->t0_ms = units_monotonic_ms();
    for (int i = 0; i < r->plan.nblocks; i++) {
        int rc = run_block(L, i, e);
        if (rc < 0) return -1;
        r->ndone = i + 1;
        r->ncomplete = rc == 0 ? i + 1 : i;
        sl_err se;
        if (verify_record_block(L->st, r, i, &se) < 0 && !L->store_failed) {
            L->store_failed = true;
            note(L, "block %d could not be stored (%s): the test goes on; 'sluice report' will lack it", i + 1, se.msg);
        }
        if (L->obs && L->obs->block) L->obs->block(L->obs->arg, r, i);
        if (rc > 0) return 0;
        if (i == 1 && !r->spec.metric_cmd && idle(L)) return 0;
    }
    r->end = VE_DONE;
    return 0;
}

/* A crashed session's knobs are still changed: the A blocks would measure
 * its leftovers, not the settings the administrator chose. */
static int refuse_crashed(store *st, sl_err *e)
{
    struct session_row *rows;
    int n = session_find_crashed(st, &rows, e);
    if (n < 0) return -1;
    int rc = n ? sl_fail(e, SL_EBUSY, "session %.8s (%s) was left open by a sluice that died and its knobs are still "
                         "changed: run 'sluice restore --crashed' first. Nothing was changed", rows[0].uuid, rows[0].purpose)
               : 0;
    free(rows);
    return rc;
}

/* Keep B (asked, and it held) or put everything back; r->put_back says
 * what the kernel holds. */
static int finish(struct live *L, bool failed, sl_err *e)
{
    struct verify_run *r = L->r;
    bool keep = !failed && r->spec.keep && r->end == VE_DONE && r->verdict.held;
    sl_err ke;
    if (keep && !L->b_in_force && put_b(L, &ke) < 0) {
        keep = false;
        note(L, "keeping B failed (%s): the settings from before the test are put back", ke.msg);
    }
    struct restore_report rep = { 0 };
    sl_err ee;
    int rc = session_end(L->s, keep, &rep, &ee);
    L->s = NULL;
    r->kept = keep && rc == 0;
    char holds[2048] = "";
    restore_report_holdings(&rep, holds, sizeof holds);
    if (r->kept) snprintf(r->put_back, sizeof r->put_back, "B kept: %s ('sluice restore' puts the old values back)", r->plan.cand_text);
    else if (rc == 0) snprintf(r->put_back, sizeof r->put_back, "the settings from before the test are back: %s", holds);
    else snprintf(r->put_back, sizeof r->put_back, "%s", ee.msg);
    restore_report_free(&rep);
    if (rc < 0 && !failed) {
        *e = ee;
        return -1;
    }
    return failed ? -1 : 0;
}

int verify_live(store *st, struct verify_run *r, const struct knobset *cand, const struct verify_observer *obs,
                sl_err *e)
{
    struct live L = { .st = st, .r = r, .cand = cand, .obs = obs };
    /* Trapped from the start: a Ctrl-C during the metric's trial run kills
     * the command too, and one after the first write is a put-back. */
    bool trap = !(obs && obs->signals_handled);
    if (trap) interrupt_trap();
    char stop[48];
    int lock_fd, rc = refuse_crashed(st, e);
    if (rc == 0) rc = check_metric(&L, e);
    if (rc == 0 && stop_reason(&L, stop, sizeof stop)[0])
        rc = sl_fail(e, SL_EFAIL, "%s before the test began. Nothing was changed", stop);
    if (rc == 0 && r->plan.canary && !(L.canary = canary_reader_start(st, r->spec.dir,
                                                                       VERIFY_CANARY_PERIOD_MS * 1000000ull, r->spec.seed, e)))
        rc = sl_prefix(e, SL_EUSAGE, "the canary reader under --dir %s (--no-canary goes without). Nothing was changed",
                       r->spec.dir);
    if (rc == 0) rc = session_lock_acquire(store_path(st), &lock_fd, e);
    if (rc == 0) rc = session_begin(st, "verify --live", cand->touched, cand->ntouched, lock_fd, &L.s, e);
    if (rc == 0 && verify_record_start(st, r, session_row_of(L.s)->id, e) < 0) {
        /* nothing written yet: the session ends as it began */
        sl_err ee;
        session_end(L.s, false, NULL, &ee);
        rc = sl_prefix(e, SL_EFAIL, "the test could not be recorded, so it did not start. Nothing was changed");
    }
    if (rc < 0) {
        canary_reader_stop(L.canary);
        if (trap) interrupt_untrap();
        return -1;
    }
    snprintf(r->session, sizeof r->session, "%.8s", session_row_of(L.s)->uuid);
    r->blocks = xcalloc((size_t)r->plan.nblocks, sizeof *r->blocks);
    if (obs && obs->plan) obs->plan(obs->arg, r);
    rc = run_blocks(&L, e);
    canary_reader_stop(L.canary);
    if (trap) interrupt_untrap();
    if (rc < 0) r->end = VE_FAILED;
    verify_decide(r->blocks, r->ncomplete - r->ncomplete % 2, &r->spec, &r->verdict);
    rc = finish(&L, rc < 0, e);
    sl_err se;
    if (verify_record_end(st, r, &se) < 0) note(&L, "the test's end could not be stored: %s", se.msg);
    return rc;
}

void verify_run_free(struct verify_run *r)
{
    free(r->blocks);
    r->blocks = NULL;
}
