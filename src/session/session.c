/* session — lock, snapshot, keep or put back, crash recovery. */
#include "session/session.h"
#include "core/audit.h"
#include "core/device.h"
#include "session/session_internal.h"
#include "core/sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* Read the current value of every knob in ks into snapshot rows (absent
 * knobs are recorded as absent). Caller frees *out. */
static int session_snapshot(const struct knob *ks, int n, struct snapshot_row **out, sl_err *e)
{
    struct snapshot_row *rows = xcalloc((size_t)(n ? n : 1), sizeof *rows);
    for (int i = 0; i < n; i++) {
        struct snapshot_row *r = &rows[i];
        snprintf(r->knob, sizeof r->knob, "%s", ks[i].name);
        snprintf(r->path, sizeof r->path, "%s", ks[i].path);
        r->order = ks[i].def->order;
        if (ks[i].def->scope == SCOPE_IOSCHED) {
            struct device d;
            if (device_get(ks[i].dev, &d, NULL) == 0) snprintf(r->sched, sizeof r->sched, "%s", d.scheduler);
            /* A tunable of the scheduler being switched to does not exist
             * yet: there is nothing to put back. */
            if (!knob_def_find(SCOPE_IOSCHED, ks[i].def->name, r->sched)) { r->present = 0; continue; }
        }
        sl_err re;
        if (knob_read(&ks[i], r->value, sizeof r->value, &re) == 0) {
            r->present = 1;
        } else if (re.errnum == ENOENT) {
            r->present = 0;
        } else {
            free(rows);
            if (e) *e = re;
            return -1;
        }
    }
    *out = rows;
    return n;
}

/* A session that could not be recorded writes nothing: say so, naming
 * the knobs that keep their values. -1. */
static int not_started(store *st, const struct knob *touched, int n, sl_err *e)
{
    char names[512] = "";
    size_t len = 0;
    for (int i = 0; i < n && i < 3; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", touched[i].name);
    if (n > 3) snprintf(names + len, sizeof names - len, " and %d more", n - 3);
    return sl_suffix(e, "The session could not be recorded, so no knob was written: %s %s as %s. Run the command "
                     "again once %s can be written", names, n == 1 ? "stays" : "stay", n == 1 ? "it was" : "they were",
                     store_path(st));
}

int session_begin(store *st, const char *purpose, const struct knob *touched, int n, int lock_fd,
                  struct session **out, sl_err *e)
{
    struct session *s = xcalloc(1, sizeof *s);
    s->st = st;
    s->lock_fd = lock_fd;
    if (session_snapshot(touched, n, &s->snaps, e) < 0) { session_free(s); return -1; }
    s->nsnaps = n;
    struct host_info h;
    int64_t host_id = 0;
    char host_uuid[37];
    if (host_read(&h, NULL) == 0 && store_host_upsert(st, &h, &host_id, host_uuid, e) != 0) {
        /* A locked database will not be free for the session row either:
         * fail after one busy timeout, not two. */
        if (store_busy(st)) { session_free(s); return not_started(st, touched, n, e); }
        host_id = 0;
    }
    struct session_holder holder;
    session_holder_self(&holder);
    if (store_session_create(st, host_id, purpose, sysfs_root(), &holder, s->snaps, n, &s->row, e) < 0) {
        session_free(s);
        return not_started(st, touched, n, e);
    }
    *out = s;
    return 0;
}

const struct session_row *session_row_of(const struct session *s) { return &s->row; }

void session_free(struct session *s)
{
    if (!s) return;
    session_lock_release(s->lock_fd);
    free(s->snaps);
    free(s);
}

void restore_report_free(struct restore_report *r)
{
    if (!r) return;
    free(r->items);
    r->items = NULL;
    r->n = r->failed = r->left = 0;
}

struct restore_item *session_report_add(struct restore_report *rep, const struct snapshot_row *row)
{
    rep->items = xrealloc(rep->items, sizeof *rep->items * (size_t)(rep->n + 1));
    struct restore_item *it = &rep->items[rep->n++];
    memset(it, 0, sizeof *it);
    snprintf(it->knob, sizeof it->knob, "%s", row->knob);
    snprintf(it->want, sizeof it->want, "%s", row->value);
    return it;
}

static const struct snapshot_row *find_row(const struct snapshot_row *rows, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].knob, name) == 0) return &rows[i];
    return NULL;
}

bool session_inactive_half(const struct knob *k, const struct snapshot_row *rows, int n, const char *value)
{
    const struct knob_def *d = k->def;
    if (!d->partner || d->scope != SCOPE_VM) return false;
    if (d->type == KT_BYTES) return strcmp(value, "0") == 0;
    char partner[KNOB_NAME_MAX];
    snprintf(partner, sizeof partner, "vm.%s", d->partner);
    const struct snapshot_row *p = find_row(rows, n, partner);
    return p && p->present && strcmp(p->value, "0") != 0;
}

void session_write_back(const struct session_row *who, const struct knob *k, const struct snapshot_row *row,
                        struct restore_item *it, struct restore_report *rep)
{
    sl_err e;
    if (knob_write(k, row->value, &e) < 0 || knob_read(k, it->got, sizeof it->got, &e) < 0) {
        it->status = RESTORE_FAILED;
        snprintf(it->msg, sizeof it->msg, "%s", e.msg);
        rep->failed++;
    } else if (!knob_values_equal(k, it->got, row->value)) {
        it->status = RESTORE_FAILED;
        snprintf(it->msg, sizeof it->msg, "wrote %s, the kernel kept %s", row->value, it->got);
        rep->failed++;
    } else {
        it->status = RESTORE_WRITTEN;
    }
    audit_knob(who ? who->uuid : NULL, who ? who->purpose : NULL, "put-back", row->knob, it->had, row->value,
               it->status == RESTORE_WRITTEN ? it->got : NULL, it->msg);
}

void session_put_back(const struct session_row *who, const struct snapshot_row *rows, int n, struct restore_report *rep)
{
    for (int i = 0; i < n; i++) {
        const struct snapshot_row *row = &rows[i];
        struct restore_item *it = session_report_add(rep, row);
        struct knob k;
        sl_err e;
        if (!row->present) { it->status = RESTORE_SKIPPED; snprintf(it->msg, sizeof it->msg, "was absent"); continue; }
        if (knob_lookup(row->knob, row->sched[0] ? row->sched : NULL, &k, &e) < 0) {
            it->status = RESTORE_FAILED;
            snprintf(it->msg, sizeof it->msg, "%s", e.msg);
            rep->failed++;
            continue;
        }
        /* A value that cannot be read (a write torn by SIGKILL on a fixture
         * file, a transient error) is no reason not to put the snapshot
         * back: write it, and let the read-back decide. */
        bool readable = knob_read(&k, it->had, sizeof it->had, &e) == 0;
        if (!readable) snprintf(it->had, sizeof it->had, "?");
        if (session_inactive_half(&k, rows, n, row->value) || (readable && knob_values_equal(&k, it->had, row->value))) {
            it->status = RESTORE_SAME;
            snprintf(it->got, sizeof it->got, "%s", it->had);
            continue;
        }
        session_write_back(who, &k, row, it, rep);
    }
}

int session_log_put_backs(store *st, const struct session_row *who, const struct restore_report *rep, sl_err *e)
{
    struct change_row *log = xcalloc((size_t)(rep->n ? rep->n : 1), sizeof *log);
    int n = 0;
    for (int i = 0; i < rep->n; i++) {
        const struct restore_item *it = &rep->items[i];
        if (it->status != RESTORE_WRITTEN && it->status != RESTORE_FAILED) continue;
        log[n++] = (struct change_row){ it->knob, it->had, it->want, it->status == RESTORE_WRITTEN ? it->got : "",
                                        "put-back", it->status == RESTORE_FAILED ? it->msg : NULL };
    }
    int rc = store_session_log_put_backs(st, who->id, log, n, e);
    free(log);
    return rc;
}

const char *restore_result_text(const struct restore_item *it, char *buf, size_t n)
{
    switch (it->status) {
    case RESTORE_SAME: return "already right";
    case RESTORE_WRITTEN: return "put back";
    case RESTORE_FAILED: return "FAILED";
    case RESTORE_SKIPPED: return "was absent";
    case RESTORE_LEFT_CHANGED:
        snprintf(buf, n, "left: changed since (found %s, sluice wrote %s); --force to overwrite", it->had, it->wrote);
        return buf;
    case RESTORE_LEFT_LATER:
        snprintf(buf, n, "left: session %s changed it later (found %s); restore that one first, or --cascade", it->later,
                 it->had);
        return buf;
    }
    return "?";
}

void restore_report_holdings(const struct restore_report *rep, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < rep->n && len < n; i++) {
        const struct restore_item *it = &rep->items[i];
        if (it->status == RESTORE_SKIPPED) continue;
        const char *v = it->status == RESTORE_WRITTEN || it->status == RESTORE_FAILED ? it->got : it->had;
        int w = snprintf(buf + len, n - len, "%s%s=%s", len ? ", " : "", it->knob, v[0] ? v : "?");
        if (w < 0) break;
        len += (size_t)w;
    }
}

/* What every snapshotted knob holds now, as what the session left. */
static void read_left(const struct session *s, struct snapshot_row *now)
{
    for (int i = 0; i < s->nsnaps; i++) {
        now[i] = s->snaps[i];
        struct knob k;
        if (!now[i].present || knob_lookup(now[i].knob, now[i].sched[0] ? now[i].sched : NULL, &k, NULL) < 0 ||
            knob_read(&k, now[i].left, sizeof now[i].left, NULL) < 0)
            snprintf(now[i].left, sizeof now[i].left, "%s", now[i].value);
    }
}

int session_writes_begin(struct session *s, sl_err *e)
{
    if (store_session_set_writing(s->st, s->row.id, e) < 0)
        return sl_prefix(e, SL_EFAIL, "session %.8s could not be recorded, so nothing was written to the kernel", s->row.uuid);
    return 0;
}

int session_writes_done(struct session *s, const struct change_row *ch, int nch, sl_err *e)
{
    for (int i = 0; i < nch; i++)
        audit_knob(s->row.uuid, s->row.purpose, "write", ch[i].knob, ch[i].old_value, ch[i].new_value, ch[i].got_value, NULL);
    struct snapshot_row *now = xcalloc((size_t)(s->nsnaps ? s->nsnaps : 1), sizeof *now);
    read_left(s, now);
    int rc = store_session_record_writes(s->st, s->row.id, ch, nch, now, s->nsnaps, e);
    free(now);
    return rc;
}

int session_put_back_own(struct session *s, struct restore_report *rep, sl_err *e)
{
    if (session_writes_begin(s, e) < 0) return -1;
    session_put_back(&s->row, s->snaps, s->nsnaps, rep);
    session_log_put_backs(s->st, &s->row, rep, NULL);
    return session_writes_done(s, NULL, 0, e);
}

/* Keeping could not be recorded: the session would be taken for crashed
 * and its knobs put back later, unasked. Put them back now, and say what
 * the kernel holds. */
static int undo_unrecorded(struct session *s, struct restore_report *rep, sl_err *e)
{
    struct restore_report own = { 0 };
    if (!rep) rep = &own;
    session_put_back(&s->row, s->snaps, s->nsnaps, rep);
    session_log_put_backs(s->st, &s->row, rep, NULL);
    store_session_set_state(s->st, s->row.id, rep->failed ? SESSION_FAILED : SESSION_RESTORED, e->msg, NULL);
    char holds[2048];
    restore_report_holdings(rep, holds, sizeof holds);
    int status = rep->failed ? SL_EPARTIAL : SL_EFAIL;
    restore_report_free(&own);
    return sl_prefix(e, status, "session %.8s could not be recorded as kept, so its changes were %s; the kernel holds %s",
                     s->row.uuid, rep->failed ? "put back where possible" : "put back", holds);
}

int session_end(struct session *s, bool keep, struct restore_report *rep, sl_err *e)
{
    int rc;
    if (keep) {
        rc = store_session_set_state(s->st, s->row.id, SESSION_KEPT, NULL, e);
        if (rc < 0) rc = undo_unrecorded(s, rep, e);
    } else {
        struct restore_report own = { 0 };
        rc = session_restore(s->st, &s->row, 0, rep ? rep : &own, e);
        restore_report_free(&own);
    }
    session_free(s);
    return rc;
}
