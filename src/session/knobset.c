/* knobset — validated, ordered, all-or-nothing multi-knob writes. */
#include "session/knobset.h"
#include "core/device.h"
#include "session/session_internal.h"
#include "core/sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Raw assignments are kept until prepare, when the target scheduler of each
 * device is known (iosched names depend on it). */

const char *change_state_name(enum change_state s)
{
    static const char *const names[] = {
        [CHANGE_PENDING] = "not written", [CHANGE_SAME] = "unchanged", [CHANGE_WRITTEN] = "written",
        [CHANGE_ADJUSTED] = "adjusted", [CHANGE_FAILED] = "failed", [CHANGE_ROLLED_BACK] = "rolled back",
    };
    return names[s];
}

int knobset_add(struct knobset *ks, const char *name, const char *value, sl_err *e)
{
    if (strlen(name) >= KNOB_NAME_MAX || strlen(value) >= KNOB_VALUE_MAX)
        return sl_fail(e, SL_EUSAGE, "%s: name or value too long", name);
    for (int i = 0; i < ks->n; i++)
        if (strcmp(ks->ch[i].k.name, name) == 0)
            return sl_fail(e, SL_EUSAGE, "%s is given twice", name);
    ks->ch = xrealloc(ks->ch, sizeof *ks->ch * (size_t)(ks->n + 1));
    struct knob_change *c = &ks->ch[ks->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->k.name, sizeof c->k.name, "%s", name);
    snprintf(c->want, sizeof c->want, "%s", value);
    return 0;
}

int knobset_add_assignment(struct knobset *ks, const char *assignment, sl_err *e)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return sl_fail(e, SL_EUSAGE, "\"%s\": expected KNOB=VALUE, e.g. vm.dirty_ratio=10", assignment);
    char name[KNOB_NAME_MAX];
    if ((size_t)(eq - assignment) >= sizeof name) return sl_fail(e, SL_EUSAGE, "\"%s\": knob name too long", assignment);
    snprintf(name, sizeof name, "%.*s", (int)(eq - assignment), assignment);
    return knobset_add(ks, name, eq + 1, e);
}

static struct knob_change *find_change(struct knobset *ks, const char *name)
{
    for (int i = 0; i < ks->n; i++)
        if (strcmp(ks->ch[i].k.name, name) == 0) return &ks->ch[i];
    return NULL;
}

/* The scheduler a device will have after this change. */
static void target_scheduler(struct knobset *ks, const char *dev, char *out, size_t n)
{
    char name[KNOB_NAME_MAX];
    snprintf(name, sizeof name, "block.%s.scheduler", dev);
    struct knob_change *c = find_change(ks, name);
    if (c) { snprintf(out, n, "%s", c->want); return; }
    struct device d;
    out[0] = 0;
    if (device_get(dev, &d, NULL) == 0) snprintf(out, n, "%s", d.scheduler);
}

static int device_of_name(const char *name, char *dev, size_t n)
{
    if (strncmp(name, "block.", 6) != 0) return -1;
    const char *p = name + 6, *dot = strchr(p, '.');
    if (!dot) return -1;
    snprintf(dev, n, "%.*s", (int)(dot - p), p);
    return 0;
}

static int resolve_all(struct knobset *ks, sl_err *e)
{
    for (int i = 0; i < ks->n; i++) {
        struct knob_change *c = &ks->ch[i];
        char name[KNOB_NAME_MAX], sched[64] = "", dev[KNOB_DEV_MAX];
        snprintf(name, sizeof name, "%s", c->k.name);
        if (strstr(name, ".iosched.") && device_of_name(name, dev, sizeof dev) == 0)
            target_scheduler(ks, dev, sched, sizeof sched);
        if (knob_lookup(name, sched[0] ? sched : NULL, &c->k, e) < 0) return -1;
        char canon[KNOB_VALUE_MAX];
        if (c->k.def->scope == SCOPE_IOSCHED && !knob_present(&c->k)) {
            char cur[64];
            target_scheduler(ks, c->k.dev, cur, sizeof cur);
            struct device d;
            if (device_get(c->k.dev, &d, e) < 0) return -1;
            if (strcmp(d.scheduler, cur) == 0)
                return sl_fail(e, SL_EUSAGE, "%s is absent: %s%s does not exist", c->k.name, sysfs_root(), c->k.path);
        }
        if (knob_validate(&c->k, c->want, canon, sizeof canon, e) < 0) return -1;
        snprintf(c->want, sizeof c->want, "%s", canon);
    }
    return 0;
}

static long long want_ll(struct knobset *ks, const char *name, bool *given)
{
    struct knob_change *c = find_change(ks, name);
    *given = c != NULL;
    return c ? strtoll(c->want, NULL, 10) : 0;
}

/* The value a vm knob will have: the change's, else the current one. */
static long long final_vm(struct knobset *ks, const char *name)
{
    bool given;
    long long v = want_ll(ks, name, &given);
    if (given) return v;
    struct knob k;
    char buf[64];
    if (knob_lookup(name, NULL, &k, NULL) < 0 || knob_read(&k, buf, sizeof buf, NULL) < 0) return -1;
    return strtoll(buf, NULL, 10);
}

/* The catalogue's dirty limits, "vm.NAME": [role][0] the ratio, [1] the bytes. */
static void dirty_names(char names[2][2][KNOB_NAME_MAX])
{
    static const enum knob_role roles[2] = { KR_DIRTY, KR_DIRTY_BG };
    for (int r = 0; r < 2; r++)
        for (int b = 0; b < 2; b++)
            snprintf(names[r][b], KNOB_NAME_MAX, "vm.%s", knob_def_of_role(SCOPE_VM, roles[r], b)->name);
}

static int check_dirty_pair(struct knobset *ks, sl_err *e)
{
    char pairs[2][2][KNOB_NAME_MAX];   /* [throttle, background][ratio, bytes] */
    dirty_names(pairs);
    for (size_t i = 0; i < 2; i++)
        if (find_change(ks, pairs[i][0]) && find_change(ks, pairs[i][1]))
            return sl_fail(e, SL_EUSAGE, "set %s or %s, not both: writing one switches the kernel to it", pairs[i][0], pairs[i][1]);
    bool any = false;
    for (size_t i = 0; i < 2; i++)
        any = any || find_change(ks, pairs[i][0]) || find_change(ks, pairs[i][1]);
    if (!any) return 0;
    /* The mode after the change: a named half wins, else the current mode. */
    long long v[2][2];
    for (int i = 0; i < 2; i++)
        for (int b = 0; b < 2; b++) v[i][b] = final_vm(ks, pairs[i][b]);
    for (int i = 0; i < 2; i++)
        for (int b = 0; b < 2; b++)
            if (find_change(ks, pairs[i][b])) v[i][!b] = 0;
    long long r = v[0][0], b = v[0][1], br = v[1][0], bb = v[1][1];
    if (b <= 0 && bb <= 0 && r > 0 && br >= r)
        return sl_fail(e, SL_EUSAGE, "%s=%lld must be below %s=%lld: the kernel would silently use %lld", pairs[1][0], br,
                       pairs[0][0], r, r / 2);
    if (b > 0 && bb > 0 && bb >= b)
        return sl_fail(e, SL_EUSAGE, "%s=%lld must be below %s=%lld: the kernel would silently use half", pairs[1][1], bb,
                       pairs[0][1], b);
    return 0;
}

static int check_queue_rules(struct knobset *ks, sl_err *e)
{
    for (int i = 0; i < ks->n; i++) {
        struct knob_change *c = &ks->ch[i];
        if (c->k.def->role == KR_NR_REQUESTS) {
            char sched[64];
            target_scheduler(ks, c->k.dev, sched, sizeof sched);
            struct device d;
            if (device_get(c->k.dev, &d, e) < 0) return -1;
            long long v = strtoll(c->want, NULL, 10);
            if (strcmp(sched, "none") == 0 && d.queue_depth > 0 && v > d.queue_depth)
                return sl_fail(e, SL_EUSAGE, "%s=%lld exceeds %s's hardware queue depth %d, the limit while its scheduler is none",
                               c->k.name, v, c->k.dev, d.queue_depth);
        }
        if (c->k.def->scope == SCOPE_BDI && strcmp(c->k.def->name, "min_ratio") == 0) {
            char other[KNOB_NAME_MAX];
            snprintf(other, sizeof other, "bdi.%s.max_ratio", c->k.dev);
            long long mx = final_vm(ks, other), mn = strtoll(c->want, NULL, 10);
            if (mx >= 0 && mn > mx)
                return sl_fail(e, SL_EUSAGE, "%s=%lld must not exceed %s=%lld", c->k.name, mn, other, mx);
        }
    }
    return 0;
}

static int cmp_change(const void *a, const void *b)
{
    const struct knob_change *x = a, *y = b;
    if (x->k.def->order != y->k.def->order) return x->k.def->order - y->k.def->order;
    return strcmp(x->k.name, y->k.name);
}

static void touch(struct knobset *ks, const struct knob *k)
{
    for (int i = 0; i < ks->ntouched; i++)
        if (strcmp(ks->touched[i].name, k->name) == 0) return;
    ks->touched = xrealloc(ks->touched, sizeof *ks->touched * (size_t)(ks->ntouched + 1));
    ks->touched[ks->ntouched++] = *k;
}

static int cmp_knob_order(const void *a, const void *b)
{
    const struct knob *x = a, *y = b;
    if (x->def->order != y->def->order) return x->def->order - y->def->order;
    return strcmp(x->name, y->name);
}

/* Everything the kernel may change because of this set: the knobs, their
 * ratio/bytes partners, and after a scheduler switch nr_requests and every
 * tunable of the outgoing scheduler. */
static void compute_touched(struct knobset *ks)
{
    for (int i = 0; i < ks->n; i++) {
        const struct knob *k = &ks->ch[i].k;
        touch(ks, k);
        struct knob *extra;
        int n = knob_side_effects(k, &extra);
        for (int j = 0; j < n; j++) touch(ks, &extra[j]);
        free(extra);
    }
    qsort(ks->touched, (size_t)ks->ntouched, sizeof *ks->touched, cmp_knob_order);
}

int knobset_prepare(struct knobset *ks, sl_err *e)
{
    if (ks->n == 0) return sl_fail(e, SL_EUSAGE, "nothing to set: give KNOB=VALUE pairs");
    if (resolve_all(ks, e) < 0) return -1;
    if (check_dirty_pair(ks, e) < 0 || check_queue_rules(ks, e) < 0) return -1;
    qsort(ks->ch, (size_t)ks->n, sizeof *ks->ch, cmp_change);
    compute_touched(ks);
    for (int i = 0; i < ks->n; i++) {
        struct knob_change *c = &ks->ch[i];
        if (knob_read(&c->k, c->before, sizeof c->before, NULL) < 0) c->before[0] = 0;
    }
    return 0;
}

static void find_side_effects(struct knobset *ks, const struct session *s)
{
    if (!s) return;
    for (int i = 0; i < s->nsnaps; i++) {
        const struct snapshot_row *r = &s->snaps[i];
        if (!r->present || find_change(ks, r->knob)) continue;
        struct knob k;
        char now[KNOB_VALUE_MAX];
        if (knob_lookup(r->knob, r->sched[0] ? r->sched : NULL, &k, NULL) < 0) continue;
        if (knob_read(&k, now, sizeof now, NULL) < 0) snprintf(now, sizeof now, "(absent)");
        if (knob_values_equal(&k, now, r->value)) continue;
        ks->side = xrealloc(ks->side, sizeof *ks->side * (size_t)(ks->nside + 1));
        struct side_effect *se = &ks->side[ks->nside++];
        snprintf(se->knob, sizeof se->knob, "%s", r->knob);
        snprintf(se->before, sizeof se->before, "%s", r->value);
        snprintf(se->after, sizeof se->after, "%s", now);
    }
}

/* Put back what the session wrote after a failure, marking the changes
 * up to `upto` rolled back. Whether everything came back. */
static bool roll_back(struct knobset *ks, struct session *s, int upto)
{
    if (s) {
        session_put_back(&s->row, s->snaps, s->nsnaps, &ks->rollback);
        session_log_put_backs(s->st, &s->row, &ks->rollback, NULL);
    }
    for (int j = 0; j < upto; j++)
        if (ks->ch[j].state == CHANGE_WRITTEN || ks->ch[j].state == CHANGE_ADJUSTED) ks->ch[j].state = CHANGE_ROLLED_BACK;
    return ks->rollback.failed == 0;
}

/* The session's record of what it wrote, after the writes. When the store
 * fails (a full disk), the writes are put back: a change nobody recorded
 * would be undone later as a crash, or never. The message says what the
 * kernel holds. */
static int log_writes(struct knobset *ks, struct session *s, sl_err *e)
{
    struct change_row *log = xcalloc((size_t)ks->n, sizeof *log);
    int nlog = 0;
    for (int i = 0; i < ks->n; i++) {
        const struct knob_change *c = &ks->ch[i];
        if (c->state == CHANGE_WRITTEN || c->state == CHANGE_ADJUSTED || c->state == CHANGE_ROLLED_BACK)
            log[nlog++] = (struct change_row){ c->k.name, c->before, c->want, c->after, "write", NULL };
    }
    int rc = session_writes_done(s, log, nlog, e);
    free(log);
    return rc;
}

static int record_writes(struct knobset *ks, struct session *s, sl_err *e)
{
    int rc = log_writes(ks, s, e);
    if (rc == 0) return 0;
    bool whole = roll_back(ks, s, ks->n);
    char holds[2048];
    restore_report_holdings(&ks->rollback, holds, sizeof holds);
    return sl_prefix(e, whole ? SL_EFAIL : SL_EPARTIAL,
                     "the change could not be recorded in the session, so it was put back%s; the kernel holds %s",
                     whole ? "" : " where possible ('sluice restore' for the rest)", holds);
}

int knobset_apply(struct knobset *ks, struct session *s, sl_err *e)
{
    if (s && session_writes_begin(s, e) < 0) return -1;
    for (int i = 0; i < ks->n; i++) {
        struct knob_change *c = &ks->ch[i];
        /* Read again: an earlier write (a scheduler switch resets nr_requests
         * and iosched) may have changed it since prepare. */
        char now[KNOB_VALUE_MAX];
        if (knob_read(&c->k, now, sizeof now, NULL) < 0) snprintf(now, sizeof now, "%s", c->before);
        if (knob_values_equal(&c->k, now, c->want)) {
            c->state = CHANGE_SAME;
            snprintf(c->after, sizeof c->after, "%s", now);
            continue;
        }
        sl_err we;
        if (knob_write(&c->k, c->want, &we) < 0 || knob_read(&c->k, c->after, sizeof c->after, &we) < 0) {
            c->state = CHANGE_FAILED;
            bool whole = roll_back(ks, s, i);
            /* Best effort: the log keeps what was tried; the session is closed next. */
            if (s) log_writes(ks, s, NULL);
            if (!whole)
                return sl_fail(e, SL_EPARTIAL, "%s; putting back the earlier writes also failed for %d knob(s): run 'sluice restore'",
                               we.msg, ks->rollback.failed);
            return sl_fail(e, we.status ? we.status : SL_EFAIL, "%s; nothing was left changed", we.msg);
        }
        c->state = knob_values_equal(&c->k, c->after, c->want) ? CHANGE_WRITTEN : CHANGE_ADJUSTED;
    }
    if (s && record_writes(ks, s, e) < 0) return -1;
    find_side_effects(ks, s);
    return 0;
}

int knobset_begin_session(store *st, struct knobset *ks, const char *purpose, int lock_wait_ms,
                          struct session **out, sl_err *e)
{
    int lock_fd = -1;
    int rc = lock_wait_ms > 0 ? session_lock_wait(store_path(st), lock_wait_ms, &lock_fd, e)
                              : session_lock_acquire(store_path(st), &lock_fd, e);
    if (rc < 0) return -1;
    /* session_begin owns lock_fd from here and releases it when it fails:
     * closing it again could close a descriptor another thread just opened. */
    return session_begin(st, purpose, ks->touched, ks->ntouched, lock_fd, out, e);
}

int knobset_apply_session(store *st, struct knobset *ks, struct session *s, sl_err *e)
{
    if (knobset_apply(ks, s, e) == 0) return 0;
    store_session_set_state(st, s->row.id, ks->rollback.failed ? SESSION_FAILED : SESSION_RESTORED, e->msg, NULL);
    session_free(s);
    return -1;
}

int knobset_run_session(store *st, struct knobset *ks, const char *purpose, int lock_wait_ms,
                        struct session **out, sl_err *e)
{
    struct session *s;
    if (knobset_begin_session(st, ks, purpose, lock_wait_ms, &s, e) < 0) return -1;
    if (knobset_apply_session(st, ks, s, e) < 0) return -1;
    *out = s;
    return 0;
}

void knobset_free(struct knobset *ks)
{
    free(ks->ch);
    free(ks->touched);
    free(ks->side);
    restore_report_free(&ks->rollback);
    memset(ks, 0, sizeof *ks);
}
