/* lifecycle — the profile in force, switching, merging. */
#include "profile/lifecycle.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Whether the session began before this boot: the kernel has started
 * afresh since, so nothing it set is in force (fixture roots never reboot). */
static bool before_boot(const struct session_row *r)
{
    double boot;
    struct tm tm = { 0 };
    const char *end = strptime(r->started, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return sysfs_is_real_root() && end && !*end && sysfs_boot_time(&boot) == 0 && (double)timegm(&tm) < boot;
}

int lifecycle_active(store *st, struct session_row *out, sl_err *e)
{
    int rc = store_session_active_profile(st, out, e);
    if (rc < 0)
        return sl_suffix(e, "Nothing was written: every knob is as it was; run the command again once the database "
                         "can be read");
    if (rc == 0 && (strcmp(out->root, sysfs_root()) != 0 || before_boot(out))) return 1;
    return rc;
}

static struct switch_item *add_item(struct profile_switch *sw, const char *knob, const char *now, enum switch_what w)
{
    sw->it = xrealloc(sw->it, sizeof *sw->it * (size_t)(sw->n + 1));
    struct switch_item *it = &sw->it[sw->n++];
    memset(it, 0, sizeof *it);
    snprintf(it->knob, sizeof it->knob, "%s", knob);
    snprintf(it->now, sizeof it->now, "%s", now);
    it->what = w;
    return it;
}

static const struct snapshot_row *find_snap(const struct snapshot_row *rows, int n, const char *knob)
{
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].knob, knob) == 0) return &rows[i];
    return NULL;
}

/* The knob's current value, "" when it cannot be read. */
static void read_now(const char *name, const char *sched, struct knob *k, char *buf, size_t n)
{
    buf[0] = 0;
    if (knob_lookup(name, sched && sched[0] ? sched : NULL, k, NULL) == 0) knob_read(k, buf, n, NULL);
}

/* The old profile changed it and someone changed it again since. */
static bool hand_edited(const struct snapshot_row *r, const struct knob *k, const char *now)
{
    return r && r->has_left && !knob_values_equal(k, r->left, r->value) && now[0] && !knob_values_equal(k, now, r->left);
}

/* Of a ratio/bytes pair only the half in force before comes back: writing
 * the other would switch the kernel's mode (or write a refused 0). */
static bool inactive_half(const struct knob *k, const struct snapshot_row *rows, int n, const struct snapshot_row *r)
{
    const struct knob_def *d = k->def;
    if (!d->partner || d->scope != SCOPE_VM) return false;
    if (d->type == KT_BYTES) return strcmp(r->value, "0") == 0;
    char partner[KNOB_NAME_MAX];
    snprintf(partner, sizeof partner, "vm.%s", d->partner);
    const struct snapshot_row *p = find_snap(rows, n, partner);
    return p && p->present && strcmp(p->value, "0") != 0;
}

static bool plan_sets(const struct plan *pl, const char *knob)
{
    for (int i = 0; i < pl->n; i++)
        if ((pl->it[i].action == PA_WRITE || pl->it[i].action == PA_SAME) && strcmp(pl->it[i].knob, knob) == 0) return true;
    return false;
}

/* What the new profile sets: written, unless a hand edit of a knob the old
 * profile had set is kept. */
static int plan_new(struct profile_switch *sw, const struct plan *pl, const struct snapshot_row *prev, int nprev,
                    bool force, sl_err *e)
{
    for (int i = 0; i < pl->n; i++) {
        const struct plan_item *pi = &pl->it[i];
        if (pi->action != PA_WRITE && pi->action != PA_SAME) continue;
        const struct snapshot_row *r = find_snap(prev, nprev, pi->knob);
        struct knob k;
        char now[KNOB_VALUE_MAX];
        read_now(pi->knob, NULL, &k, now, sizeof now);
        if (!force && hand_edited(r, &k, now)) {
            snprintf(add_item(sw, pi->knob, now, SW_KEEP)->wrote, KNOB_VALUE_MAX, "%s", r->left);
            continue;
        }
        if (knobset_add(&sw->ks, pi->knob, pi->want, e) < 0) return -1;
        if (pi->action == PA_WRITE) snprintf(add_item(sw, pi->knob, now, SW_CHANGE)->to, KNOB_VALUE_MAX, "%s", pi->want);
    }
    return 0;
}

/* What the old profile changed and the new one does not set: back to what
 * was there before it, unless changed by hand since. */
static int plan_back(struct profile_switch *sw, const struct plan *pl, const struct snapshot_row *prev, int nprev,
                     bool force, sl_err *e)
{
    for (int i = 0; i < nprev; i++) {
        const struct snapshot_row *r = &prev[i];
        if (!r->present || !r->has_left || plan_sets(pl, r->knob)) continue;
        struct knob k;
        char now[KNOB_VALUE_MAX];
        read_now(r->knob, r->sched, &k, now, sizeof now);
        if (!k.def || knob_values_equal(&k, r->left, r->value) || inactive_half(&k, prev, nprev, r)) continue;
        /* The new profile sets the other half of the pair: that write decides the mode. */
        char partner[KNOB_NAME_MAX];
        snprintf(partner, sizeof partner, "vm.%s", k.def->partner ? k.def->partner : "");
        if (k.def->partner && k.def->scope == SCOPE_VM && plan_sets(pl, partner)) continue;
        if (now[0] && knob_values_equal(&k, now, r->value)) continue;
        if (!force && hand_edited(r, &k, now)) {
            snprintf(add_item(sw, r->knob, now, SW_KEEP)->wrote, KNOB_VALUE_MAX, "%s", r->left);
            continue;
        }
        if (knobset_add(&sw->ks, r->knob, r->value, e) < 0) return -1;
        snprintf(add_item(sw, r->knob, now, SW_BACK)->to, KNOB_VALUE_MAX, "%s", r->value);
    }
    return 0;
}

int lifecycle_plan(store *st, const struct plan *pl, bool force, struct profile_switch *sw, sl_err *e)
{
    memset(sw, 0, sizeof *sw);
    struct snapshot_row *prev = NULL;
    int nprev = 0;
    int found = lifecycle_active(st, &sw->prev, e);
    if (found < 0) return -1;
    sw->has_prev = found == 0;
    if (sw->has_prev && (nprev = store_session_snapshots(st, sw->prev.id, &prev, e)) < 0) return -1;
    int rc = plan_new(sw, pl, prev, nprev, force, e);
    if (rc == 0) rc = plan_back(sw, pl, prev, nprev, force, e);
    free(prev);
    if (rc == 0 && sw->ks.n > 0) rc = knobset_prepare(&sw->ks, e);
    return rc;
}

/* The knobs the new session takes over: every knob it snapshots that the
 * old profile changed, except hand edits kept. */
static int inherit(store *st, const struct profile_switch *sw, const struct session *s, sl_err *e)
{
    const char **names = xcalloc((size_t)(sw->ks.ntouched ? sw->ks.ntouched : 1), sizeof *names);
    int n = 0;
    for (int i = 0; i < sw->ks.ntouched; i++) {
        bool kept = false;
        for (int j = 0; j < sw->n && !kept; j++)
            kept = sw->it[j].what == SW_KEEP && strcmp(sw->it[j].knob, sw->ks.touched[i].name) == 0;
        if (!kept) names[n++] = sw->ks.touched[i].name;
    }
    int rc = store_session_inherit(st, session_row_of(s)->id, sw->prev.id, names, n, e);
    free(names);
    return rc;
}

int lifecycle_apply(store *st, struct profile_switch *sw, const char *profile, const char *purpose, int wait_ms,
                    struct session **out, sl_err *e)
{
    struct session *s;
    if (knobset_begin_session(st, &sw->ks, purpose, wait_ms, &s, e) < 0) return -1;
    int rc = store_session_set_profile(st, session_row_of(s)->id, profile, e);
    if (rc == 0 && sw->has_prev) rc = inherit(st, sw, s, e);
    if (rc < 0) {
        store_session_set_state(st, session_row_of(s)->id, SESSION_RESTORED, "could not be recorded; nothing was written", NULL);
        session_free(s);
        return sl_prefix(e, SL_EFAIL, "the profile switch could not be recorded, so nothing was written");
    }
    if (knobset_apply_session(st, &sw->ks, s, e) < 0) {
        /* Put back: the old profile's values are in force again. */
        if (sw->has_prev) store_session_set_state(st, sw->prev.id, sw->prev.state, "in force again: a switch failed", NULL);
        return -1;
    }
    *out = s;
    return 0;
}

int lifecycle_try(store *st, struct profile_switch *sw, const char *profile, const char *purpose, struct session **out,
                  sl_err *e)
{
    struct session *s;
    if (knobset_begin_session(st, &sw->ks, purpose, 0, &s, e) < 0) return -1;
    if (store_session_set_profile(st, session_row_of(s)->id, profile, e) < 0) {
        store_session_set_state(st, session_row_of(s)->id, SESSION_RESTORED, "could not be recorded; nothing was written", NULL);
        session_free(s);
        return sl_prefix(e, SL_EFAIL, "the profile switch could not be recorded, so nothing was written");
    }
    if (knobset_apply_session(st, &sw->ks, s, e) < 0) return -1;
    *out = s;
    return 0;
}

int lifecycle_keep(store *st, const struct profile_switch *sw, struct session *s, sl_err *e)
{
    if (sw->has_prev && inherit(st, sw, s, e) < 0) return -1;
    return session_end(s, true, NULL, e);
}

void lifecycle_free(struct profile_switch *sw)
{
    free(sw->it);
    knobset_free(&sw->ks);
    memset(sw, 0, sizeof *sw);
}

/* The same place in a profile: section, selector and key. */
static int find_slot(const struct profile *p, const struct prof_entry *en)
{
    for (int i = 0; i < p->n; i++)
        if (p->ent[i].sec == en->sec && strcmp(p->ent[i].selector, en->selector) == 0 && strcmp(p->ent[i].key, en->key) == 0)
            return i;
    return -1;
}

void profile_merge(struct profile *into, const struct profile *from, struct notes *overrides)
{
    for (int i = 0; i < from->n; i++) {
        struct prof_entry en = from->ent[i];
        en.file = en.file ? profile_add_file(into, en.file) : NULL;
        int at = find_slot(into, &en);
        if (at >= 0 && (into->ent[at].cond != en.cond || strcmp(into->ent[at].value, en.value) != 0)) {
            char knob[KNOB_NAME_MAX], was[KNOB_VALUE_MAX + 2], now[KNOB_VALUE_MAX + 2];
            prof_entry_knob(&en, en.selector[0] ? "SELECTED" : "*", knob, sizeof knob);
            prof_entry_value_text(&into->ent[at], was, sizeof was);
            prof_entry_value_text(&en, now, sizeof now);
            notes_add(overrides, "%s: %s (%s) wins over %s (%s)", knob, from->name, now, into->name, was);
        }
        profile_set_entry(into, &en);
    }
    char name[PROFILE_NAME_MAX];
    snprintf(name, sizeof name, "%s+%s", into->name, from->name);
    snprintf(into->name, sizeof into->name, "%s", name);
}
