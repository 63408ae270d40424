/* space — shipped spaces, constraints, enumeration, encoding, conversion. */
#include "search/space.h"
#include "core/device.h"
#include "core/sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row per searchable dimension of a shipped space. "@" in a knob name is
 * the space's device. Levels are the search sub-range: roughly geometric
 * steps a sysadmin would try, inside the catalogue's safe range. */
enum family { FAM_WB_RATIO = 1, FAM_WB_BYTES = 2, FAM_QUEUE = 4, FAM_BDFLUSH = 8 };
static const struct dim_row {
    enum family fam;
    const char *knob;
    const char *levels;
    const char *sched;   /* iosched rows: the owning scheduler */
} dim_rows[] = {
    { FAM_WB_RATIO, "vm.dirty_ratio", "5 10 15 20 30 40 60", NULL },
    { FAM_WB_RATIO, "vm.dirty_background_ratio", "1 2 5 10 15 20 30", NULL },
    { FAM_WB_BYTES, "vm.dirty_bytes", "16777216 33554432 67108864 134217728 268435456 536870912 1073741824 2147483648", NULL },
    { FAM_WB_BYTES, "vm.dirty_background_bytes", "4194304 8388608 16777216 33554432 67108864 134217728 268435456 536870912", NULL },
    { FAM_WB_RATIO | FAM_WB_BYTES, "vm.dirty_expire_centisecs", "500 1000 1500 3000 6000 12000", NULL },
    { FAM_WB_RATIO | FAM_WB_BYTES, "vm.dirty_writeback_centisecs", "100 250 500 1000 1500 3000", NULL },
    { FAM_QUEUE, "block.@.scheduler", NULL, NULL },
    { FAM_QUEUE, "block.@.nr_requests", "16 32 64 128 256 512 1024 2048", NULL },
    { FAM_QUEUE, "block.@.read_ahead_kb", "0 32 128 512 2048 8192", NULL },
    { FAM_QUEUE, "block.@.wbt_lat_usec", "0 2000 10000 75000", NULL },
    { FAM_QUEUE, "block.@.nomerges", "0 1 2", NULL },
    { FAM_QUEUE, "block.@.rq_affinity", "0 1 2", NULL },
    { FAM_QUEUE, "block.@.iosched.fifo_batch", "1 4 16 64 256", "mq-deadline" },
    { FAM_QUEUE, "block.@.iosched.read_expire", "100 250 500 1000", "mq-deadline" },
    { FAM_QUEUE, "block.@.iosched.write_expire", "1000 2500 5000 10000", "mq-deadline" },
    { FAM_QUEUE, "block.@.iosched.writes_starved", "1 2 4 8", "mq-deadline" },
    { FAM_QUEUE, "block.@.iosched.read_lat_nsec", "500000 1000000 2000000 8000000", "kyber" },
    { FAM_QUEUE, "block.@.iosched.write_lat_nsec", "2000000 5000000 10000000 50000000", "kyber" },
    { FAM_QUEUE, "block.@.iosched.slice_idle", "0 4 8 16", "bfq" },
    { FAM_QUEUE, "block.@.iosched.low_latency", "0 1", "bfq" },
    /* 2.6-era single-queue schedulers */
    { FAM_QUEUE, "block.@.iosched.fifo_batch", "1 4 16 64", "deadline" },
    { FAM_QUEUE, "block.@.iosched.slice_idle", "0 4 8 16", "cfq" },
    { FAM_QUEUE, "block.@.iosched.quantum", "2 4 8 16", "cfq" },
    { FAM_BDFLUSH, "vm.bdflush.nfract", "10 20 30 40 50 60", NULL },
    { FAM_BDFLUSH, "vm.bdflush.nfract_sync", "30 40 50 60 70 80 90", NULL },
    { FAM_BDFLUSH, "vm.bdflush.ndirty", "100 250 500 1000 2000", NULL },
    { FAM_BDFLUSH, "vm.bdflush.interval", "100 250 500 1000 3000", NULL },
    { FAM_BDFLUSH, "vm.bdflush.age_buffer", "500 1000 3000 6000", NULL },
};

static const struct shipped {
    const char *name;
    unsigned fams;   /* FAM_WB_RATIO here means "the writeback pair in the active mode" */
    const char *help;
} shipped[] = {
    { "writeback", FAM_WB_RATIO, "dirty limits (ratio or bytes, whichever is in force), expire and writeback intervals" },
    { "queue", FAM_QUEUE, "scheduler and its tunables, nr_requests, read_ahead_kb, wbt_lat_usec, nomerges, rq_affinity" },
    { "full", FAM_WB_RATIO | FAM_QUEUE, "writeback and queue together" },
    { "bdflush", FAM_BDFLUSH, "the 2.4 /proc/sys/vm/bdflush fields (kernels that have it)" },
};
#define NSHIPPED ((int)(sizeof shipped / sizeof shipped[0]))

int space_shipped_count(void) { return NSHIPPED; }
const char *space_shipped_name(int i) { return shipped[i].name; }

static int split_words(const char *text, char words[][SPACE_VALUE_MAX], int max)
{
    int n = 0;
    const char *p = text;
    while (*p && n < max) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        size_t len = strcspn(p, " \t\n");
        snprintf(words[n++], SPACE_VALUE_MAX, "%.*s", (int)len, p);
        p += len;
    }
    return n;
}

static bool word_in(const char *list, const char *word)
{
    char w[SPACE_MAX_LEVELS * 2][SPACE_VALUE_MAX];
    int n = split_words(list, w, SPACE_MAX_LEVELS * 2);
    for (int i = 0; i < n; i++)
        if (strcmp(w[i], word) == 0) return true;
    return false;
}

static int find_dim(const struct space *sp, const char *knob)
{
    for (int i = 0; i < sp->ndims; i++)
        if (strcmp(sp->dim[i].knob, knob) == 0) return i;
    return -1;
}

static int dim_with_role(const struct space *sp, enum dim_role r)
{
    for (int i = 0; i < sp->ndims; i++)
        if (sp->dim[i].role == r) return i;
    return -1;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Resolve the knob (under its scheduler for iosched dims) and validate every
 * level with the catalogue: a space never proposes what `set` would refuse. */
int space_add_dim(struct space *sp, const char *knob, const char *const *levels, int n, const char *sched, sl_err *e)
{
    if (sp->ndims == SPACE_MAX_DIMS)
        return sl_fail(e, SL_EUSAGE, "space %s: more than %d knobs", sp->name, SPACE_MAX_DIMS);
    if (n < 1 || n > SPACE_MAX_LEVELS - 1)
        return sl_fail(e, SL_EUSAGE, "space %s: %s needs 1 to %d values", sp->name, knob, SPACE_MAX_LEVELS - 1);
    struct knob k;
    if (knob_lookup(knob, sched, &k, e) < 0) return -1;
    const struct knob_def *d = k.def;
    if (!(d->flags & KF_SEARCH) || knob_unwritable(d))
        return sl_fail(e, SL_EUSAGE, "space %s: %s is not searchable (read-only, destructive or not a tuning knob)", sp->name, knob);
    if (find_dim(sp, k.name) >= 0) return sl_fail(e, SL_EUSAGE, "space %s: %s is listed twice", sp->name, k.name);
    struct space_dim *dm = &sp->dim[sp->ndims];
    memset(dm, 0, sizeof *dm);
    snprintf(dm->knob, sizeof dm->knob, "%s", k.name);
    dm->kind = (d->type == KT_SCHED) ? DIM_CATEGORICAL : DIM_ORDINAL;
    dm->base = -1;
    if (d->scope == SCOPE_IOSCHED) snprintf(dm->sched, sizeof dm->sched, "%s", sched ? sched : "");
    if (k.dev[0] && !sp->device[0]) snprintf(sp->device, sizeof sp->device, "%s", k.dev);
    if (k.dev[0] && strcmp(k.dev, sp->device) != 0)
        return sl_fail(e, SL_EUSAGE, "space %s: %s is on %s, but the space is on %s: one device per space", sp->name, k.name, k.dev, sp->device);
    long long nums[SPACE_MAX_LEVELS];
    for (int i = 0; i < n; i++) {
        char canon[KNOB_VALUE_MAX];
        if (knob_validate(&k, levels[i], canon, sizeof canon, e) < 0) return -1;
        if (strlen(canon) >= SPACE_VALUE_MAX) return sl_fail(e, SL_EUSAGE, "space %s: %s=%s: value too long", sp->name, knob, canon);
        for (int j = 0; j < dm->nlevels; j++)
            if (strcmp(dm->level[j], canon) == 0)
                return sl_fail(e, SL_EUSAGE, "space %s: %s lists %s twice", sp->name, knob, canon);
        snprintf(dm->level[dm->nlevels], SPACE_VALUE_MAX, "%s", canon);
        nums[dm->nlevels++] = strtoll(canon, NULL, 10);
    }
    if (dm->kind == DIM_ORDINAL) {
        for (int i = 0; i < n; i++)
            if (d->type == KT_ENUM && !isdigit((unsigned char)dm->level[i][0])) dm->kind = DIM_CATEGORICAL;
    }
    if (dm->kind == DIM_ORDINAL) {
        qsort(nums, (size_t)n, sizeof nums[0], cmp_ll);
        for (int i = 0; i < n; i++) {
            dm->num[i] = nums[i];
            snprintf(dm->level[i], SPACE_VALUE_MAX, "%lld", nums[i]);
        }
    }
    sp->ndims++;
    return 0;
}

/* The current value becomes a level (inserted in order) so the baseline is
 * a point of the space. */
static int mark_base(struct space *sp, struct space_dim *dm, sl_err *e)
{
    struct knob k;
    if (knob_lookup(dm->knob, dm->sched[0] ? dm->sched : NULL, &k, e) < 0) return -1;
    if (dm->sched[0] && strcmp(dm->sched, sp->cur_sched) != 0) return 0; /* not present now */
    char cur[KNOB_VALUE_MAX];
    sl_err re;
    if (knob_read(&k, cur, sizeof cur, &re) < 0) {
        if (re.errnum == ENOENT) return 0;
        if (e) *e = re;
        return -1;
    }
    for (int i = 0; i < dm->nlevels; i++)
        if (knob_values_equal(&k, dm->level[i], cur)) { dm->base = i; return 0; }
    if (strlen(cur) >= SPACE_VALUE_MAX || dm->nlevels == SPACE_MAX_LEVELS)
        return sl_fail(e, SL_EFAIL, "%s: current value %s does not fit the space", dm->knob, cur);
    int at = dm->nlevels;
    if (dm->kind == DIM_ORDINAL) {
        long long v = strtoll(cur, NULL, 10);
        at = 0;
        while (at < dm->nlevels && dm->num[at] < v) at++;
        memmove(&dm->num[at + 1], &dm->num[at], sizeof dm->num[0] * (size_t)(dm->nlevels - at));
        memmove(&dm->level[at + 1], &dm->level[at], sizeof dm->level[0] * (size_t)(dm->nlevels - at));
        dm->num[at] = v;
    }
    snprintf(dm->level[at], SPACE_VALUE_MAX, "%s", cur);
    dm->nlevels++;
    dm->base = at;
    return 0;
}

/* The dimension's part in the kernel's rules, from the catalogue's role
 * column (an iosched tunable has none). */
static enum dim_role role_of(const struct space_dim *dm)
{
    static const enum dim_role of_knob[] = { [KR_NONE] = ROLE_NONE, [KR_DIRTY] = ROLE_DIRTY, [KR_DIRTY_BG] = ROLE_DIRTY_BG,
                                             [KR_SCHED] = ROLE_SCHED, [KR_NR_REQUESTS] = ROLE_NR_REQUESTS };
    struct knob k;
    if (dm->sched[0] || knob_lookup(dm->knob, NULL, &k, NULL) < 0) return ROLE_NONE;
    return of_knob[k.def->role];
}

int space_finish(struct space *sp, sl_err *e)
{
    if (sp->device[0]) {
        struct device d;
        if (device_get(sp->device, &d, e) < 0) return -1;
        snprintf(sp->cur_sched, sizeof sp->cur_sched, "%s", d.scheduler);
        sp->queue_depth = d.queue_depth;
    }
    for (int i = 0; i < sp->ndims; i++) sp->dim[i].role = role_of(&sp->dim[i]);
    int sd = dim_with_role(sp, ROLE_SCHED);
    if (sd > 0) {
        /* the scheduler goes first: enumeration relies on it */
        struct space_dim tmp = sp->dim[sd];
        memmove(&sp->dim[1], &sp->dim[0], sizeof tmp * (size_t)sd);
        sp->dim[0] = tmp;
        sd = 0;
    }
    /* Without a scheduler dimension only the current scheduler's tunables
     * can ever be active; with one, only offered schedulers' tunables. */
    int m = 0;
    for (int i = 0; i < sp->ndims; i++) {
        struct space_dim *dm = &sp->dim[i];
        bool keep = true;
        if (dm->sched[0]) {
            if (sd < 0) keep = strcmp(dm->sched, sp->cur_sched) == 0;
            else {
                keep = false;
                for (int j = 0; j < sp->dim[sd].nlevels; j++) keep = keep || strcmp(sp->dim[sd].level[j], dm->sched) == 0;
            }
        }
        if (keep) sp->dim[m++] = *dm;
    }
    sp->ndims = m;
    if (sp->ndims == 0) return sl_fail(e, SL_EUSAGE, "space %s has no knob this kernel offers", sp->name);
    for (int i = 0; i < sp->ndims; i++)
        if (mark_base(sp, &sp->dim[i], e) < 0) return -1;
    return 0;
}

static int add_row(struct space *sp, const struct dim_row *r, const char *device, const char *offered, sl_err *e)
{
    char name[KNOB_NAME_MAX];
    const char *at = strchr(r->knob, '@');
    if (at) snprintf(name, sizeof name, "%.*s%s%s", (int)(at - r->knob), r->knob, device, at + 1);
    else snprintf(name, sizeof name, "%s", r->knob);
    char words[SPACE_MAX_LEVELS][SPACE_VALUE_MAX];
    int n = split_words(r->levels ? r->levels : offered, words, SPACE_MAX_LEVELS - 1);
    const char *ptrs[SPACE_MAX_LEVELS];
    for (int i = 0; i < n; i++) ptrs[i] = words[i];
    if (r->sched && !word_in(offered, r->sched)) return 0;
    struct knob k;
    if (knob_lookup(name, r->sched, &k, NULL) < 0) return 0;
    if (!r->sched && !knob_present(&k)) return 0;   /* e.g. no wbt_lat_usec on dm or 2.6 */
    return space_add_dim(sp, name, ptrs, n, r->sched, e);
}

static bool looks_like_file(const char *name)
{
    size_t n = strlen(name);
    return strchr(name, '/') || (n > 6 && strcmp(name + n - 6, ".space") == 0) ||
           (n > 5 && (strcmp(name + n - 5, ".conf") == 0)) || (n > 4 && strcmp(name + n - 4, ".ini") == 0);
}

static int offered_schedulers(const char *device, char *offered, size_t n, sl_err *e)
{
    char path[256], raw[256], active[64];
    snprintf(path, sizeof path, "/sys/block/%s/queue/scheduler", device);
    if (sysfs_read(path, raw, sizeof raw, e) < 0) return -1;
    knob_sched_parse(raw, active, sizeof active, offered, n);
    return 0;
}

int space_build(const char *name, const char *device, struct space *out, sl_err *e)
{
    memset(out, 0, sizeof *out);
    if (looks_like_file(name)) return space_load_file(name, out, e);
    int which = -1;
    for (int i = 0; i < NSHIPPED; i++)
        if (strcmp(shipped[i].name, name) == 0) which = i;
    if (which < 0) {
        char list[256] = "";
        for (int i = 0; i < NSHIPPED; i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", shipped[i].name);
        }
        return sl_fail(e, SL_EUSAGE, "unknown space \"%s\": shipped spaces are %s, or give a space file path", name, list);
    }
    snprintf(out->name, sizeof out->name, "%s", name);
    unsigned fams = shipped[which].fams;
    if (fams & FAM_BDFLUSH) {
        if (!sysfs_exists("/proc/sys/vm/bdflush"))
            return sl_fail(e, SL_EUSAGE, "space bdflush: this kernel has no /proc/sys/vm/bdflush (it is a 2.4 interface): use the writeback space");
    } else if ((fams & FAM_WB_RATIO) && !sysfs_exists("/proc/sys/vm/dirty_ratio")) {
        return sl_fail(e, SL_EUSAGE, "space %s: this kernel has no /proc/sys/vm/dirty_ratio%s", name,
                       sysfs_exists("/proc/sys/vm/bdflush") ? ": use the bdflush space" : "");
    }
    if (fams & FAM_WB_RATIO) {
        /* Search the pair in the mode the kernel is in: writing the other
         * half would switch modes. */
        long long bytes = 0;
        if (sysfs_read_ll("/proc/sys/vm/dirty_bytes", &bytes, NULL) == 0 && bytes > 0) fams = (fams & ~FAM_WB_RATIO) | FAM_WB_BYTES;
    }
    char offered[256] = "";
    if (fams & FAM_QUEUE) {
        if (!device || !device[0])
            return sl_fail(e, SL_EUSAGE, "space %s has block-layer knobs: name the disk with --device (see 'sluice devices')", name);
        struct device d;
        if (device_get(device, &d, e) < 0) return -1;
        if (!d.has_queue) return sl_fail(e, SL_EUSAGE, "space %s: %s has no request queue to tune (no /sys/block/%s/queue)", name, device, device);
        snprintf(out->device, sizeof out->device, "%s", device);
        if (offered_schedulers(device, offered, sizeof offered, e) < 0) return -1;
    }
    for (size_t i = 0; i < sizeof dim_rows / sizeof dim_rows[0]; i++)
        if ((dim_rows[i].fam & fams) && add_row(out, &dim_rows[i], device, offered, e) < 0) return -1;
    return space_finish(out, e);
}

/* --- configurations ------------------------------------------------------ */

static const char *sched_of(const struct space *sp, const struct search_config *c)
{
    int sd = dim_with_role(sp, ROLE_SCHED);
    if (sd < 0 || c->lv[sd] < 0) return sp->cur_sched;
    return sp->dim[sd].level[c->lv[sd]];
}

void space_normalise(const struct space *sp, struct search_config *c)
{
    const char *sched = sched_of(sp, c);
    for (int i = 0; i < sp->ndims; i++) {
        const struct space_dim *dm = &sp->dim[i];
        if (!dm->sched[0]) continue;
        if (strcmp(dm->sched, sched) != 0) c->lv[i] = -1;
        else if (c->lv[i] < 0) c->lv[i] = dm->base >= 0 ? dm->base : 0;
    }
}

void space_baseline(const struct space *sp, struct search_config *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < sp->ndims; i++) c->lv[i] = sp->dim[i].base >= 0 ? sp->dim[i].base : 0;
    space_normalise(sp, c);
}

bool space_config_equal(const struct space *sp, const struct search_config *a, const struct search_config *b)
{
    for (int i = 0; i < sp->ndims; i++)
        if (a->lv[i] != b->lv[i]) return false;
    return true;
}

bool space_valid(const struct space *sp, const struct search_config *c, char *why, size_t n)
{
    int dd = dim_with_role(sp, ROLE_DIRTY), bd = dim_with_role(sp, ROLE_DIRTY_BG);
    if (dd >= 0 && bd >= 0 && c->lv[dd] >= 0 && c->lv[bd] >= 0) {
        long long dv = sp->dim[dd].num[c->lv[dd]], bv = sp->dim[bd].num[c->lv[bd]];
        if (bv >= dv) {
            if (why) snprintf(why, n, "%s=%lld is not below %s=%lld", sp->dim[bd].knob, bv, sp->dim[dd].knob, dv);
            return false;
        }
    }
    int nd = dim_with_role(sp, ROLE_NR_REQUESTS);
    if (nd >= 0 && c->lv[nd] >= 0) {
        long long v = sp->dim[nd].num[c->lv[nd]];
        const char *sched = sched_of(sp, c);
        long long max = strcmp(sched, "none") == 0 && sp->queue_depth > 0 ? sp->queue_depth : 2048;
        if (v > max) {
            if (why) snprintf(why, n, "%s=%lld exceeds %lld, the limit under scheduler %s", sp->dim[nd].knob, v, max, sched);
            return false;
        }
    }
    for (int i = 0; i < sp->ndims; i++) {
        bool active = !sp->dim[i].sched[0] || strcmp(sp->dim[i].sched, sched_of(sp, c)) == 0;
        if (active != (c->lv[i] >= 0) || c->lv[i] >= sp->dim[i].nlevels) {
            if (why) snprintf(why, n, "%s is %s under scheduler %s", sp->dim[i].knob, active ? "required" : "absent", sched_of(sp, c));
            return false;
        }
    }
    return true;
}

/* An odometer over the active dims (the scheduler dim is first, so a carry
 * into it resets the conditional dims after it); it->started is 0 at first. */
int space_next(const struct space *sp, struct space_iter *it, struct search_config *c)
{
    for (;;) {
        if (!it->started) {
            it->started = 1;
            memset(&it->c, 0, sizeof it->c);
        } else {
            int i = sp->ndims - 1;
            for (; i >= 0; i--) {
                if (it->c.lv[i] < 0) continue;
                if (++it->c.lv[i] < sp->dim[i].nlevels) break;
                it->c.lv[i] = 0;
            }
            if (i < 0) return 0;
        }
        const char *sched = sched_of(sp, &it->c);
        for (int i = 0; i < sp->ndims; i++) {
            if (!sp->dim[i].sched[0]) continue;
            if (strcmp(sp->dim[i].sched, sched) != 0) it->c.lv[i] = -1;
            else if (it->c.lv[i] < 0) it->c.lv[i] = 0;
        }
        if (space_valid(sp, &it->c, NULL, 0)) {
            *c = it->c;
            return 1;
        }
    }
}

long long space_count(const struct space *sp, long long cap)
{
    long long total = 1;
    for (int i = 0; i < sp->ndims; i++) {
        if (total > cap / sp->dim[i].nlevels) return -1;
        total *= sp->dim[i].nlevels;
    }
    long long n = 0;
    struct space_iter it = { 0 };
    struct search_config c;
    while (space_next(sp, &it, &c)) n++;
    return n;
}

int space_numeric_dims(const struct space *sp)
{
    int n = 0;
    for (int i = 0; i < sp->ndims; i++) n += sp->dim[i].kind == DIM_ORDINAL;
    return n;
}

int space_encode(const struct space *sp, const struct search_config *c, double *u, int *cat)
{
    int n = 0, m = 0;
    for (int i = 0; i < sp->ndims; i++) {
        const struct space_dim *dm = &sp->dim[i];
        if (dm->kind == DIM_ORDINAL) {
            u[n++] = c->lv[i] < 0 ? 0.5 : dm->nlevels > 1 ? (double)c->lv[i] / (dm->nlevels - 1) : 0.5;
        } else if (cat) {
            cat[m++] = c->lv[i];
        }
    }
    return n;
}

void space_config_text(const struct space *sp, const struct search_config *c, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < sp->ndims && len < n; i++) {
        if (c->lv[i] < 0) continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", len ? " " : "", sp->dim[i].knob, sp->dim[i].level[c->lv[i]]);
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void space_config_canonical(const struct space *sp, const struct search_config *c, char *buf, size_t n)
{
    char lines[SPACE_MAX_DIMS][KNOB_NAME_MAX + SPACE_VALUE_MAX + 2];
    char *ptr[SPACE_MAX_DIMS] = { 0 };
    int m = 0;
    for (int i = 0; i < sp->ndims; i++) {
        if (c->lv[i] < 0) continue;
        snprintf(lines[m], sizeof lines[m], "%s=%s\n", sp->dim[i].knob, sp->dim[i].level[c->lv[i]]);
        ptr[m] = lines[m];
        m++;
    }
    qsort(ptr, (size_t)m, sizeof ptr[0], cmp_str);
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < m && len < n; i++) len += (size_t)snprintf(buf + len, n - len, "%s", ptr[i]);
}

/* FNV-1a 64 of text as 16 hex digits: the content hash of canonical texts. */
static void space_hash_text(const char *text, char out[17])
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

void space_config_hash(const struct space *sp, const struct search_config *c, char out[17])
{
    char text[SPACE_MAX_DIMS * (KNOB_NAME_MAX + SPACE_VALUE_MAX + 2)];
    space_config_canonical(sp, c, text, sizeof text);
    space_hash_text(text, out);
}

int space_config_parse(const struct space *sp, const char *text, struct search_config *c, sl_err *e)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < sp->ndims; i++) c->lv[i] = -1;
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\n') p++;
        if (!*p) break;
        size_t len = strcspn(p, " \n");
        char item[KNOB_NAME_MAX + SPACE_VALUE_MAX + 2];
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        p += len;
        char *eq = strchr(item, '=');
        if (!eq) return sl_fail(e, SL_EUSAGE, "\"%s\": expected KNOB=VALUE", item);
        *eq = 0;
        int d = find_dim(sp, item);
        if (d < 0) return sl_fail(e, SL_EUSAGE, "%s is not a knob of space %s", item, sp->name);
        int lv = -1;
        for (int j = 0; j < sp->dim[d].nlevels; j++)
            if (strcmp(sp->dim[d].level[j], eq + 1) == 0) lv = j;
        if (lv < 0) return sl_fail(e, SL_EUSAGE, "%s=%s is not a level of space %s", item, eq + 1, sp->name);
        c->lv[d] = lv;
    }
    for (int i = 0; i < sp->ndims; i++)
        if (c->lv[i] < 0 && !sp->dim[i].sched[0]) return sl_fail(e, SL_EUSAGE, "no value for %s", sp->dim[i].knob);
    return 0;
}

int space_config_changes(const struct space *sp, const struct search_config *c)
{
    struct search_config b;
    space_baseline(sp, &b);
    int n = 0;
    for (int i = 0; i < sp->ndims; i++) n += c->lv[i] != b.lv[i];
    return n;
}

int space_to_knobset(const struct space *sp, const struct search_config *c, struct knobset *ks, sl_err *e)
{
    for (int i = 0; i < sp->ndims; i++) {
        if (c->lv[i] < 0) continue;
        if (knobset_add(ks, sp->dim[i].knob, sp->dim[i].level[c->lv[i]], e) < 0) return -1;
    }
    return 0;
}

static void add_touched(struct knob **v, int *n, const struct knob *k)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*v)[i].name, k->name) == 0) return;
    *v = xrealloc(*v, sizeof **v * (size_t)(*n + 1));
    (*v)[(*n)++] = *k;
}

int space_touched(const struct space *sp, struct knob **out, sl_err *e)
{
    struct knob *v = NULL, k;
    int n = 0;
    for (int i = 0; i < sp->ndims; i++) {
        const struct space_dim *dm = &sp->dim[i];
        if (dm->sched[0] && strcmp(dm->sched, sp->cur_sched) != 0) continue; /* absent now */
        if (knob_lookup(dm->knob, dm->sched[0] ? dm->sched : NULL, &k, e) < 0) { free(v); return -1; }
        add_touched(&v, &n, &k);
        struct knob *extra;
        int m = knob_side_effects(&k, &extra);   /* its partner; after a scheduler switch, what it resets */
        for (int j = 0; j < m; j++) add_touched(&v, &n, &extra[j]);
        free(extra);
    }
    *out = v;
    return n;
}
