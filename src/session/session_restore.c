/* session_restore — put a stored session back, checking before it writes:
 * a knob is written back only while it still holds what the session left
 * there; the restore is journaled so a killed one is finished
 * by the next. */
#include "session/session.h"
#include "core/device.h"
#include "session/session_internal.h"
#include "core/sysfs.h"
#include "db/store_verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct restore_run {
    store *st;
    struct session_row *row;
    int flags;
    struct snapshot_row *rows;
    int n;
    struct knob *knobs;          /* knobs[i] of rows[i], when looked up */
    bool *put;                   /* rows[i] is to be written back */
    struct session_claim *claims;
    int nclaims;
};

static int check_root(const struct session_row *row, sl_err *e)
{
    if (strcmp(row->root, sysfs_root()) == 0) return 0;
    return sl_fail(e, SL_EUSAGE, "session %.8s changed knobs under root \"%s\", not \"%s\": run with --root %s",
                   row->uuid, row->root[0] ? row->root : "/", sysfs_root()[0] ? sysfs_root() : "/",
                   row->root[0] ? row->root : "/");
}

/* A later session still holds the knob: it changed it (or died writing)
 * and the kernel has what it left. The newest such one, or NULL. */
static const struct session_claim *later_claim(const struct restore_run *R, const struct knob *k, const char *found)
{
    for (int i = 0; i < R->nclaims; i++) {
        const struct session_claim *c = &R->claims[i];
        if (strcmp(c->knob, k->name) != 0) continue;
        bool changed = c->has_left && !knob_values_equal(k, c->left, c->orig);
        if ((c->writing && !knob_values_equal(k, found, c->orig)) || (changed && knob_values_equal(k, found, c->left)))
            return c;
    }
    return NULL;
}

/* Decide for one readable knob that differs from the snapshot. */
static void decide_changed(struct restore_run *R, int i, struct restore_item *it)
{
    const struct snapshot_row *row = &R->rows[i];
    const struct knob *k = &R->knobs[i];
    bool force = R->flags & RESTORE_FORCE;
    /* Chosen by a restore that was killed: finish what it started. */
    if (strcmp(row->plan, "put") == 0) { R->put[i] = true; return; }
    const struct session_claim *c = later_claim(R, k, it->had);
    if (c && !force) {
        it->status = RESTORE_LEFT_LATER;
        snprintf(it->later, sizeof it->later, "%.8s", c->uuid);
        snprintf(it->wrote, sizeof it->wrote, "%s", row->left);
        return;
    }
    /* A session that died writing, or from before sluice kept what it left,
     * may have left anything: put back as before. */
    if (R->row->writing || !row->has_left || knob_values_equal(k, it->had, row->left) || force) {
        R->put[i] = true;
        return;
    }
    it->status = RESTORE_LEFT_CHANGED;
    snprintf(it->wrote, sizeof it->wrote, "%s", row->left);
}

/* The scheduler device dev will have after the restore: the snapshot's,
 * when the session holds the scheduler row, else the one in force; and
 * whether the restore switches it (rows[] before i are decided). */
static const char *sched_after(const struct restore_run *R, const char *dev, bool *switching, char *buf, size_t n)
{
    char name[KNOB_NAME_MAX];
    snprintf(name, sizeof name, "block.%s.scheduler", dev);
    *switching = false;
    for (int j = 0; j < R->n; j++)
        if (strcmp(R->rows[j].knob, name) == 0 && R->rows[j].present) {
            *switching = R->put[j];
            return R->rows[j].value;
        }
    struct device d;
    if (device_get(dev, &d, NULL) < 0) return NULL;
    snprintf(buf, n, "%s", d.scheduler);
    return buf;
}

/* Switching a scheduler resets nr_requests and removes or resets every
 * iosched tunable. So a tunable of a scheduler the device will not have
 * after the restore has nothing to put back (its files are gone), and when
 * the restore switches the scheduler, nr_requests and the tunables it finds
 * already right are written again after the switch. */
static void after_scheduler(struct restore_run *R, struct restore_report *rep)
{
    for (int i = 0; i < R->n; i++) {
        const struct knob *k = &R->knobs[i];
        struct restore_item *it = &rep->items[i];   /* write_planned indexes them so too */
        if (!R->rows[i].present || !k->def || !k->dev[0]) continue;
        bool iosched = k->def->scope == SCOPE_IOSCHED, nr = strcmp(k->def->name, "nr_requests") == 0;
        if (!iosched && !nr) continue;
        bool switching;
        char buf[64];
        const char *sched = sched_after(R, k->dev, &switching, buf, sizeof buf);
        if (iosched && sched && R->rows[i].sched[0] && strcmp(sched, R->rows[i].sched) != 0) {
            if (it->status == RESTORE_LEFT_CHANGED || it->status == RESTORE_LEFT_LATER) rep->left--;
            R->put[i] = false;
            it->status = RESTORE_SKIPPED;
            snprintf(it->msg, sizeof it->msg, "belongs to %s, which is not the scheduler after the restore", R->rows[i].sched);
        } else if (switching && it->status == RESTORE_SAME) {
            R->put[i] = true;
        }
    }
}

/* Read every knob and decide, writing nothing. */
static void check_all(struct restore_run *R, struct restore_report *rep)
{
    for (int i = 0; i < R->n; i++) {
        const struct snapshot_row *row = &R->rows[i];
        struct restore_item *it = session_report_add(rep, row);
        sl_err e;
        if (!row->present) { it->status = RESTORE_SKIPPED; snprintf(it->msg, sizeof it->msg, "was absent"); continue; }
        if (knob_lookup(row->knob, row->sched[0] ? row->sched : NULL, &R->knobs[i], &e) < 0) {
            it->status = RESTORE_FAILED;
            snprintf(it->msg, sizeof it->msg, "%s", e.msg);
            rep->failed++;
            continue;
        }
        const struct knob *k = &R->knobs[i];
        /* Unreadable (an iosched tunable of a scheduler the restore brings
         * back, a torn fixture file): write it, and let the read-back decide. */
        bool readable = knob_read(k, it->had, sizeof it->had, &e) == 0;
        if (!readable || !it->had[0]) {
            if (!readable) snprintf(it->had, sizeof it->had, "?");
            R->put[i] = true;
            continue;
        }
        if (session_inactive_half(k, R->rows, R->n, row->value) || knob_values_equal(k, it->had, row->value)) {
            it->status = RESTORE_SAME;
            snprintf(it->got, sizeof it->got, "%s", it->had);
            continue;
        }
        decide_changed(R, i, it);
        if (it->status == RESTORE_LEFT_CHANGED || it->status == RESTORE_LEFT_LATER) rep->left++;
    }
    after_scheduler(R, rep);
}

/* Record the plan, then write the knobs it chose, in apply order. When
 * the store cannot record it (locked, read-only, full), the knobs are put
 * back all the same: the session stays unrestored in the store, and the
 * next restore finds them as it left them (already right). */
static void write_planned(struct restore_run *R, struct restore_report *rep, sl_err *journal_e)
{
    const char **names = xcalloc((size_t)(R->n ? R->n : 1), sizeof *names);
    int nput = 0;
    for (int i = 0; i < R->n; i++)
        if (R->put[i]) names[nput++] = R->rows[i].knob;
    struct session_holder self;
    session_holder_self(&self);
    if (store_session_begin_restore(R->st, R->row->id, &self, names, nput, journal_e) == 0) {
        R->row->restoring = 1;
        journal_e->msg[0] = 0;
    }
    free(names);
    for (int i = 0; i < R->n; i++)
        if (R->put[i]) session_write_back(R->row, &R->knobs[i], &R->rows[i], &rep->items[i], rep);
}

/* A crashed session's knobs left to a later session: once that one is
 * restored the kernel holds this one's values again, and only restore
 * --crashed would come back for them (store_session_deferred). A session
 * restored by hand is not: its owner was told to restore the later one
 * first. The count, names in R->rows. */
static int deferred_knobs(const struct restore_run *R, const struct restore_report *rep, bool crashed,
                          const char **names)
{
    int n = 0;
    for (int i = 0; i < R->n; i++) {
        if (strcmp(R->rows[i].plan, "later") == 0) crashed = true;
        if (rep->items[i].status == RESTORE_LEFT_LATER) names[n++] = R->rows[i].knob;
    }
    return crashed ? n : 0;
}

/* Whether the session's holder is this process: its own tuner putting it
 * back (session_end), not a restore of a session whose tuner died. The
 * start time tells a pid used again (at boot) from the holder. */
static bool held_by_self(const struct session_row *r)
{
    struct session_holder self;
    session_holder_self(&self);
    double apart = r->holder_start - self.start;
    return r->pid == self.pid && (r->holder_start == 0 || self.start == 0 || (apart > -0.5 && apart < 0.5));
}

/* A live verification of a session restored by anyone but its own tuner
 * was killed and could not record its end: its row says so now. When that
 * cannot be recorded, 'report' still tells from the restored session that
 * it was killed. */
static void mark_killed_verifications(const struct restore_run *R)
{
    if (held_by_self(R->row)) return;
    sl_err ignored;
    (void)store_verify_mark_killed(R->st, R->row->id, &ignored);
}

static int finish(struct restore_run *R, struct restore_report *rep, bool crashed, sl_err *e)
{
    bool whole = !rep->failed && !rep->left;
    enum session_state state = whole ? SESSION_RESTORED : SESSION_FAILED;
    char note[256];
    if (whole) snprintf(note, sizeof note, "restored");
    else snprintf(note, sizeof note, "restore left %d knob(s) as found, %d could not be put back", rep->left, rep->failed);
    session_log_put_backs(R->st, R->row, rep, NULL);
    const char **later = xcalloc((size_t)(R->n ? R->n : 1), sizeof *later);
    int nlater = deferred_knobs(R, rep, crashed, later);
    int recorded = store_session_finish_restore(R->st, R->row->id, state, note, later, nlater, e);
    free(later);
    if (recorded < 0) {
        char holds[2048];
        restore_report_holdings(rep, holds, sizeof holds);
        /* By its id: a session whose restore was never journaled is still
         * "kept", which restore --crashed does not look at. */
        return sl_prefix(e, SL_EFAIL, "session %.8s was %s, but recording that failed ('sluice restore %.8s' "
                         "finishes it); the kernel holds %s", R->row->uuid,
                         whole ? "restored" : "restored in part", R->row->uuid, holds);
    }
    R->row->state = state;
    R->row->restoring = 0;
    mark_killed_verifications(R);
    if (whole) return 0;
    return sl_fail(e, SL_EPARTIAL, "session %.8s: %d knob(s) left as found, %d could not be put back", R->row->uuid,
                   rep->left, rep->failed);
}

int session_restore(store *st, struct session_row *row, int flags, struct restore_report *rep, sl_err *e)
{
    if (check_root(row, e) < 0) return -1;
    /* Knobs put back unrecorded leave the session "kept": no later restore
     * --crashed would look at it again. So a store that cannot record
     * anything is refused before the first write. */
    char what[64];
    snprintf(what, sizeof what, "restoring session %.8s", row->uuid);
    if (store_check_writable(st, what, e) < 0)
        return sl_suffix(e, "Nothing was put back: every knob is as it was; run 'sluice restore' again once the "
                         "database is writable");
    struct restore_run R = { .st = st, .row = row, .flags = flags };
    R.n = store_session_snapshots(st, row->id, &R.rows, e);
    if (R.n >= 0) R.nclaims = store_session_later_claims(st, row->id, row->root, &R.claims, e);
    if (R.n < 0 || R.nclaims < 0) {
        free(R.rows);
        return sl_suffix(e, "Nothing was put back: every knob is as it was before this restore, and session %.8s "
                         "is still to be restored; run 'sluice restore' again once %s can be read",
                         row->uuid, store_path(st));
    }
    R.knobs = xcalloc((size_t)(R.n ? R.n : 1), sizeof *R.knobs);
    R.put = xcalloc((size_t)(R.n ? R.n : 1), sizeof *R.put);
    bool crashed = row->state == SESSION_OPEN;
    check_all(&R, rep);
    sl_err journal_e;
    write_planned(&R, rep, &journal_e);
    int rc = finish(&R, rep, crashed, e);
    free(R.rows);
    free(R.claims);
    free(R.knobs);
    free(R.put);
    return rc;
}

static int newest_first(const void *a, const void *b)
{
    const struct session_row *x = a, *y = b;
    return x->id < y->id ? 1 : x->id > y->id ? -1 : 0;
}

int session_later_claimants(store *st, const struct session_row *row, struct session_row **out, sl_err *e)
{
    struct restore_run R = { .st = st };
    R.n = store_session_snapshots(st, row->id, &R.rows, e);
    if (R.n < 0) return -1;
    R.nclaims = store_session_later_claims(st, row->id, row->root, &R.claims, e);
    if (R.nclaims < 0) { free(R.rows); return -1; }
    struct session_row *v = xcalloc((size_t)(R.nclaims ? R.nclaims : 1), sizeof *v);
    int m = 0, rc = 0;
    for (int i = 0; i < R.n && rc == 0; i++) {
        struct knob k;
        char found[KNOB_VALUE_MAX];
        if (!R.rows[i].present || knob_lookup(R.rows[i].knob, R.rows[i].sched[0] ? R.rows[i].sched : NULL, &k, NULL) < 0 ||
            knob_read(&k, found, sizeof found, NULL) < 0)
            continue;
        const struct session_claim *c = later_claim(&R, &k, found);
        bool seen = false;
        for (int j = 0; c && j < m && !seen; j++) seen = v[j].id == c->session_id;
        if (c && !seen) rc = store_session_get(st, c->uuid, &v[m++], e);
    }
    free(R.rows);
    free(R.claims);
    if (rc < 0) { free(v); return -1; }
    qsort(v, (size_t)m, sizeof *v, newest_first);
    *out = v;
    return m;
}
