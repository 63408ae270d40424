/* profile_plan — a profile resolved against this machine: which knob of
 * which disk gets which value, what it has now, and what apply will do. */
#include "profile/profile.h"
#include "core/sysfs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *plan_action_name(enum plan_action a)
{
    static const char *const names[] = {
        [PA_WRITE] = "write", [PA_SAME] = "same", [PA_KEEP] = "keep", [PA_SKIP] = "skip",
    };
    return names[a];
}

bool plan_item_ok(const struct plan_item *it)
{
    return it->action == PA_SAME || it->action == PA_KEEP;
}

static void warn(struct plan *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct plan *pl, const char *fmt, ...)
{
    pl->warn = xrealloc(pl->warn, sizeof *pl->warn * (size_t)(pl->nwarn + 1));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pl->warn[pl->nwarn++], sizeof pl->warn[0], fmt, ap);
    va_end(ap);
}

static struct plan_item *add_item(struct plan *pl, const struct prof_entry *en, const struct knob *k)
{
    pl->it = xrealloc(pl->it, sizeof *pl->it * (size_t)(pl->n + 1));
    struct plan_item *it = &pl->it[pl->n++];
    memset(it, 0, sizeof *it);
    snprintf(it->knob, sizeof it->knob, "%s", k->name);
    snprintf(it->dev, sizeof it->dev, "%s", k->dev);
    it->order = k->def->order;
    it->src = en;
    return it;
}

static int entry_fail(sl_err *e, const struct prof_entry *en, const sl_err *why)
{
    return sl_fail(e, SL_EUSAGE, "%s:%d: %s", en->file, en->line, why->msg);
}

/* Decide the action from the current value; conditional values compare numerically. */
static void decide(struct plan_item *it, const struct knob *k, const struct prof_entry *en)
{
    if (en->cond == PC_SET || !it->current[0]) {
        it->action = it->current[0] && knob_values_equal(k, it->current, it->want) ? PA_SAME : PA_WRITE;
        return;
    }
    long long cur = strtoll(it->current, NULL, 10), want = strtoll(it->want, NULL, 10);
    if (cur == want) { it->action = PA_SAME; return; }
    bool keep = en->cond == PC_RAISE ? cur > want : cur < want;
    it->action = keep ? PA_KEEP : PA_WRITE;
    if (keep)
        snprintf(it->note, sizeof it->note, "%s %s already %s %s", en->cond == PC_RAISE ? "only raise:" : "only lower:",
                 it->current, en->cond == PC_RAISE ? ">" : "<", it->want);
}

static int plan_global(const struct prof_entry *en, struct plan *pl, sl_err *e)
{
    char name[KNOB_NAME_MAX];
    prof_entry_knob(en, "", name, sizeof name);
    struct knob k;
    sl_err le;
    if (knob_lookup(name, NULL, &k, &le) < 0) return entry_fail(e, en, &le);
    if (!knob_present(&k)) {
        struct plan_item *it = add_item(pl, en, &k);
        it->action = PA_SKIP;
        snprintf(it->want, sizeof it->want, "%s", en->value);
        snprintf(it->note, sizeof it->note, "absent on this kernel");
        if (en->sec == PS_VM) warn(pl, "%s:%d: %s is absent on this kernel: skipped", en->file, en->line, name);
        return 0;
    }
    char canon[KNOB_VALUE_MAX];
    if (knob_validate(&k, en->value, canon, sizeof canon, &le) < 0) return entry_fail(e, en, &le);
    struct plan_item *it = add_item(pl, en, &k);
    snprintf(it->want, sizeof it->want, "%s", canon);
    if (knob_read(&k, it->current, sizeof it->current, &le) < 0) return entry_fail(e, en, &le);
    decide(it, &k, en);
    return 0;
}

/* The entry that sets `key` on device d: the last matching [block "SEL"]
 * section, else the last [block] covering it. */
static const struct prof_entry *winner(const struct profile *p, const char *key, const struct device *d,
                                       const struct host_info *h)
{
    const struct prof_entry *plain = NULL, *sel = NULL;
    for (int i = 0; i < p->n; i++) {
        const struct prof_entry *en = &p->ent[i];
        if (en->sec != PS_BLOCK || strcmp(en->key, key) != 0) continue;
        if (en->selector[0]) { if (selector_selects(en->selector, d, h)) sel = en; }
        else if (profile_covers(p, d, h)) plain = en;
    }
    return sel ? sel : plain;
}

static bool word_in_list(const char *list, const char *word)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    char *save, *tok = strtok_r(buf, " |", &save);
    for (; tok; tok = strtok_r(NULL, " |", &save))
        if (strcmp(tok, word) == 0) return true;
    return false;
}

/* The first alternative of "a|b" the device offers. */
static int choose_scheduler(const struct prof_entry *en, const struct knob *k, char *out, size_t n, sl_err *e)
{
    char raw[256], active[64], offered[256];
    sl_err re;
    if (sysfs_read(k->path, raw, sizeof raw, &re) < 0) return entry_fail(e, en, &re);
    knob_sched_parse(raw, active, sizeof active, offered, sizeof offered);
    char alts[KNOB_VALUE_MAX];
    snprintf(alts, sizeof alts, "%s", en->value);
    char *save, *tok = strtok_r(alts, "|", &save);
    for (; tok; tok = strtok_r(NULL, "|", &save))
        if (word_in_list(offered, tok)) { snprintf(out, n, "%s", tok); return 0; }
    return sl_fail(e, SL_EUSAGE, "%s:%d: %s=%s: %s offers only: %s", en->file, en->line, k->name, en->value, k->dev, offered);
}

static int plan_device_key(const struct prof_entry *en, const struct device *d, const char *target_sched,
                           bool sched_changes, struct plan *pl, sl_err *e)
{
    char name[KNOB_NAME_MAX];
    prof_entry_knob(en, d->name, name, sizeof name);
    struct knob k;
    sl_err le;
    bool iosched = strncmp(en->key, "iosched.", 8) == 0;
    if (knob_lookup(name, iosched ? target_sched : NULL, &k, &le) < 0) {
        if (!iosched) return entry_fail(e, en, &le);
        warn(pl, "%s:%d: %s skipped: the %s scheduler of %s has no %s", en->file, en->line, name,
             target_sched[0] ? target_sched : "(none)", d->name, en->key + 8);
        return 0;
    }
    bool appears = iosched && sched_changes; /* iosched/ is recreated by the switch */
    if (!appears && !knob_present(&k)) {
        warn(pl, "%s:%d: %s is absent on %s: skipped", en->file, en->line, name, d->name);
        struct plan_item *it = add_item(pl, en, &k);
        it->action = PA_SKIP;
        snprintf(it->want, sizeof it->want, "%s", en->value);
        snprintf(it->note, sizeof it->note, "absent on this device");
        return 0;
    }
    char canon[KNOB_VALUE_MAX];
    if (k.def->type == KT_SCHED) {
        if (choose_scheduler(en, &k, canon, sizeof canon, e) < 0) return -1;
    } else if (knob_validate(&k, en->value, canon, sizeof canon, &le) < 0) {
        return entry_fail(e, en, &le);
    }
    struct plan_item *it = add_item(pl, en, &k);
    snprintf(it->want, sizeof it->want, "%s", canon);
    if (!appears && knob_read(&k, it->current, sizeof it->current, &le) < 0) return entry_fail(e, en, &le);
    decide(it, &k, en);
    bool reset = sched_changes && (iosched || (k.def->scope == SCOPE_BLOCK && strcmp(k.def->name, "nr_requests") == 0));
    if (reset && it->action != PA_WRITE) {
        /* The switch puts kernel defaults here: the value must be written again. */
        it->action = PA_WRITE;
        snprintf(it->note, sizeof it->note, "reset by the scheduler switch, written after it");
    }
    return 0;
}

static int plan_device(const struct profile *p, const struct device *d, struct plan *pl, sl_err *e)
{
    char target[64];
    snprintf(target, sizeof target, "%s", d->scheduler);
    bool changes = false;
    const struct prof_entry *sch = winner(p, "scheduler", d, &pl->host);
    if (sch) {
        char name[KNOB_NAME_MAX];
        struct knob k;
        sl_err le;
        prof_entry_knob(sch, d->name, name, sizeof name);
        if (knob_lookup(name, NULL, &k, &le) < 0) return entry_fail(e, sch, &le);
        if (knob_present(&k)) {
            if (choose_scheduler(sch, &k, target, sizeof target, e) < 0) return -1;
            changes = strcmp(target, d->scheduler) != 0;
        }
    }
    /* Each key once per device, from the entry that wins for it. */
    for (int i = 0; i < p->n; i++) {
        const struct prof_entry *en = &p->ent[i];
        if (en->sec != PS_BLOCK || winner(p, en->key, d, &pl->host) != en) continue;
        if (plan_device_key(en, d, target, changes, pl, e) < 0) return -1;
    }
    return 0;
}

static void warn_unmatched(const struct profile *p, struct plan *pl)
{
    for (int i = 0; i < p->n; i++) {
        const struct prof_entry *en = &p->ent[i];
        if (en->sec != PS_BLOCK) continue;
        bool first = true;
        for (int j = 0; j < i && first; j++)
            first = !(p->ent[j].sec == PS_BLOCK && strcmp(p->ent[j].selector, en->selector) == 0);
        if (!first) continue;
        bool any = false;
        for (int j = 0; j < pl->ndevs && !any; j++)
            any = en->selector[0] ? selector_selects(en->selector, &pl->devs[j], &pl->host)
                                  : profile_covers(p, &pl->devs[j], &pl->host);
        if (any) continue;
        if (en->selector[0])
            warn(pl, "%s:%d: [block \"%s\"] matches no device here: skipped", en->file, en->line, en->selector);
        else
            warn(pl, "%s:%d: [block] covers no disk here (only whole, non-stacked disks%s): skipped", en->file,
                 en->line, p->nmatch ? " matching the profile's match rules" : "");
    }
}

static int cmp_item(const void *a, const void *b)
{
    const struct plan_item *x = a, *y = b;
    if (x->order != y->order) return x->order - y->order;
    return strcmp(x->knob, y->knob);
}

int profile_plan(const struct profile *p, struct plan *pl, sl_err *e)
{
    memset(pl, 0, sizeof *pl);
    if (host_read(&pl->host, NULL) < 0) snprintf(pl->host.virt, sizeof pl->host.virt, "unknown");
    bool has_block = false, has_bdflush = false;
    for (int i = 0; i < p->n; i++) {
        has_block = has_block || p->ent[i].sec == PS_BLOCK;
        has_bdflush = has_bdflush || p->ent[i].sec == PS_BDFLUSH;
    }
    bool bdflush_here = sysfs_exists("/proc/sys/vm/bdflush");
    if (has_bdflush && !bdflush_here)
        warn(pl, "%s: [bdflush] skipped: this kernel has no /proc/sys/vm/bdflush (2.4 only)", p->path[0] ? p->path : p->name);
    for (int i = 0; i < p->n; i++) {
        const struct prof_entry *en = &p->ent[i];
        if (en->sec == PS_BLOCK || (en->sec == PS_BDFLUSH && !bdflush_here)) continue;
        if (plan_global(en, pl, e) < 0) return -1;
    }
    if (sysfs_is_dir("/sys/block")) {
        pl->ndevs = device_list(&pl->devs, e);
        if (pl->ndevs < 0) { pl->ndevs = 0; return -1; }
    }
    if (has_block && !sysfs_is_dir("/sys/block")) {
        warn(pl, "%s: [block] sections skipped: this kernel has no /sys/block (2.4?)", p->path[0] ? p->path : p->name);
    } else if (has_block) {
        warn_unmatched(p, pl);
        for (int j = 0; j < pl->ndevs; j++)
            if (pl->devs[j].has_queue && plan_device(p, &pl->devs[j], pl, e) < 0) return -1;
    }
    if (pl->n > 1) qsort(pl->it, (size_t)pl->n, sizeof *pl->it, cmp_item);
    return 0;
}

void plan_free(struct plan *pl)
{
    free(pl->it);
    free(pl->warn);
    free(pl->devs);
    memset(pl, 0, sizeof *pl);
}

int plan_knobset(const struct plan *pl, struct knobset *ks, sl_err *e)
{
    for (int i = 0; i < pl->n; i++) {
        const struct plan_item *it = &pl->it[i];
        if (it->action != PA_WRITE && it->action != PA_SAME) continue;
        if (knobset_add(ks, it->knob, it->want, e) < 0) return -1;
    }
    return knobset_prepare(ks, e);
}

