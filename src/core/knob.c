/* knob — lookup, listing, reading, validation and writing of catalogue knobs. */
#include "core/knob.h"
#include "core/suggest.h"
#include "core/device.h"
#include "core/sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Schedulers any kernel since 2.6.10 may offer; a fixture scheduler file that
 * holds a bare name no longer lists the choices, so these stand in. */
static const char known_schedulers[] = "none mq-deadline kyber bfq noop deadline cfq anticipatory";

const char *knob_type_name(enum knob_type t)
{
    static const char *const names[] = {
        [KT_INT] = "int", [KT_BYTES] = "bytes", [KT_BOOL] = "bool", [KT_ENUM] = "enum",
        [KT_SCHED] = "scheduler", [KT_FIELD] = "field", [KT_FACT] = "fact",
    };
    return names[t];
}

static bool word_in(const char *list, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = list; p && *p;) {
        while (*p == ' ') p++;
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == wl && strncmp(p, word, wl) == 0) return true;
        p = end;
    }
    return false;
}

void knob_range_text(const struct knob_def *d, char *buf, size_t n)
{
    switch (d->type) {
    case KT_INT: case KT_FIELD: case KT_BYTES:
        snprintf(buf, n, "%lld..%lld", d->min, d->max);
        break;
    case KT_BOOL: snprintf(buf, n, "0 1"); break;
    case KT_ENUM: snprintf(buf, n, "%s", d->values); break;
    case KT_SCHED: snprintf(buf, n, "offered by the kernel"); break;
    case KT_FACT: snprintf(buf, n, "read-only"); break;
    }
}

/* The flags worded once: the word show, the man page and the Knobs screen
 * list, and why a knob that carries it is never written. */
static const char read_only_why[] = "read-only: sluice shows it but never writes it";
static const struct {
    enum knob_flag flag;
    const char *word, *unwritable;
} flag_words[] = {
    { KF_SEARCH, "searchable", NULL },
    { KF_RO, "read-only", read_only_why },
    { KF_DESTRUCTIVE, "destructive", "destructive or an action, not a setting: sluice does not write it" },
};

void knob_flags_text(const struct knob_def *d, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0] && used < n; i++)
        if (d->flags & flag_words[i].flag) {
            int w = snprintf(buf + used, n - used, ", %s", flag_words[i].word);
            if (w > 0) used += (size_t)w;
        }
}

const char *knob_unwritable(const struct knob_def *d)
{
    if (d->type == KT_FACT) return read_only_why;   /* hardware facts */
    for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++)
        if ((d->flags & flag_words[i].flag) && flag_words[i].unwritable) return flag_words[i].unwritable;
    return NULL;
}

int knob_sched_parse(const char *text, char *active, size_t n, char *offered, size_t m)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    if (active) active[0] = 0;
    if (offered) offered[0] = 0;
    bool bracketed = strchr(buf, '[') != NULL;
    char *save, *tok = strtok_r(buf, " \t\n", &save);
    int count = 0;
    for (; tok; tok = strtok_r(NULL, " \t\n", &save), count++) {
        size_t len = strlen(tok);
        bool is_active = tok[0] == '[' && len > 2 && tok[len - 1] == ']';
        if (is_active) { tok[len - 1] = 0; tok++; }
        if (active && (is_active || (!bracketed && count == 0))) snprintf(active, n, "%s", tok);
        if (offered) {
            size_t ol = strlen(offered);
            snprintf(offered + ol, m - ol, "%s%s", ol ? " " : "", tok);
        }
    }
    if (!bracketed && count == 1 && offered) snprintf(offered, m, "%s", known_schedulers);
    return active && active[0] ? 0 : -1;
}

static const struct knob_def *find_def(enum knob_scope scope, const char *name, const char *sched)
{
    const struct knob_def *any = NULL;
    for (size_t i = 0; i < knob_table_len; i++) {
        const struct knob_def *d = &knob_table[i];
        if (d->scope != scope || strcmp(d->name, name) != 0) continue;
        if (scope != SCOPE_IOSCHED || !sched || word_in(d->scheds, sched)) return d;
        if (!any) any = d;
    }
    return scope == SCOPE_IOSCHED && !sched ? any : NULL;
}

static bool iosched_name_exists(const char *name)
{
    for (size_t i = 0; i < knob_table_len; i++)
        if (knob_table[i].scope == SCOPE_IOSCHED && strcmp(knob_table[i].name, name) == 0) return true;
    return false;
}

static void bind(struct knob *k, const struct knob_def *d, const char *dev, unsigned maj, unsigned min)
{
    memset(k, 0, sizeof *k);
    k->def = d;
    snprintf(k->dev, sizeof k->dev, "%s", dev ? dev : "");
    switch (d->scope) {
    case SCOPE_VM:
        snprintf(k->name, sizeof k->name, "vm.%s", d->name);
        snprintf(k->path, sizeof k->path, "/proc/sys/vm/%s", d->file);
        break;
    case SCOPE_BDFLUSH:
        snprintf(k->name, sizeof k->name, "vm.bdflush.%s", d->name);
        snprintf(k->path, sizeof k->path, "/proc/sys/vm/bdflush");
        break;
    case SCOPE_BLOCK:
        snprintf(k->name, sizeof k->name, "block.%s.%s", dev, d->name);
        snprintf(k->path, sizeof k->path, "/sys/block/%s/queue/%s", dev, d->file);
        break;
    case SCOPE_IOSCHED:
        snprintf(k->name, sizeof k->name, "block.%s.iosched.%s", dev, d->name);
        snprintf(k->path, sizeof k->path, "/sys/block/%s/queue/iosched/%s", dev, d->file);
        break;
    case SCOPE_BDI:
        snprintf(k->name, sizeof k->name, "bdi.%s.%s", dev, d->name);
        snprintf(k->path, sizeof k->path, "/sys/class/bdi/%u:%u/%s", maj, min, d->file);
        break;
    }
}

static int lookup_device_knob(const char *prefix, const char *rest, const char *sched,
                              struct knob *out, sl_err *e, const char *full)
{
    const char *dot = strchr(rest, '.');
    if (!dot || dot == rest)
        return sl_fail(e, SL_EUSAGE, "unknown knob \"%s\": expected %s.DEVICE.NAME (see 'sluice show')", full, prefix);
    char dev[KNOB_DEV_MAX];
    snprintf(dev, sizeof dev, "%.*s", (int)(dot - rest), rest);
    const char *name = dot + 1;
    if (!device_name_valid(dev))
        return sl_fail(e, SL_EUSAGE, "unknown knob \"%s\": \"%s\" is not a device name", full, dev);
    if (!sysfs_is_dir("/sys"))
        return sl_fail(e, SL_EUSAGE, "%s: block knobs are unavailable on this kernel (no /sys: a 2.4 kernel?)", full);
    struct device d;
    if (device_get(dev, &d, e) < 0) return -1;
    bool is_bdi = strcmp(prefix, "bdi") == 0;
    if (!is_bdi && strncmp(name, "iosched.", 8) == 0) {
        const char *tun = name + 8;
        const char *want = sched ? sched : d.scheduler;
        const struct knob_def *def = find_def(SCOPE_IOSCHED, tun, want);
        if (!def) {
            if (iosched_name_exists(tun))
                return sl_fail(e, SL_EUSAGE, "%s: no tunable \"%s\" under the %s scheduler of %s (set block.%s.scheduler first)",
                               full, tun, want[0] ? want : "(unknown)", dev, dev);
            return sl_fail(e, SL_EUSAGE, "unknown knob \"%s\" (see 'sluice show block.%s.*')", full, dev);
        }
        bind(out, def, dev, d.major, d.minor);
        return 0;
    }
    const struct knob_def *def = find_def(is_bdi ? SCOPE_BDI : SCOPE_BLOCK, name, NULL);
    if (!def) return sl_fail(e, SL_EUSAGE, "unknown knob \"%s\" (see 'sluice show %s.%s.*')", full, prefix, dev);
    bind(out, def, dev, d.major, d.minor);
    return 0;
}

static int lookup_name(const char *name, const char *sched, struct knob *out, sl_err *e)
{
    if (!name || strlen(name) >= KNOB_NAME_MAX)
        return sl_fail(e, SL_EUSAGE, "unknown knob: name too long");
    if (strchr(name, '/'))
        return sl_fail(e, SL_EUSAGE, "unknown knob \"%s\": knobs are names like vm.dirty_ratio, never paths", name);
    if (strncmp(name, "vm.bdflush.", 11) == 0) {
        const struct knob_def *d = find_def(SCOPE_BDFLUSH, name + 11, NULL);
        if (!d) return sl_fail(e, SL_EUSAGE, "unknown knob \"%s\" (the bdflush fields are listed by 'sluice show vm.bdflush.*')", name);
        bind(out, d, NULL, 0, 0);
        return 0;
    }
    if (strncmp(name, "vm.", 3) == 0) {
        const struct knob_def *d = find_def(SCOPE_VM, name + 3, NULL);
        if (!d) return sl_fail(e, SL_EUSAGE, "unknown knob \"%s\" (see 'sluice show vm.*')", name);
        bind(out, d, NULL, 0, 0);
        return 0;
    }
    if (strncmp(name, "block.", 6) == 0) return lookup_device_knob("block", name + 6, sched, out, e, name);
    if (strncmp(name, "bdi.", 4) == 0) return lookup_device_knob("bdi", name + 4, sched, out, e, name);
    return sl_fail(e, SL_EUSAGE, "unknown knob \"%s\": names start with vm., block. or bdi. (see 'sluice show')", name);
}

/* An unknown name gets the nearest knob of this machine, when a typo
 * explains it: "Did you mean vm.dirty_ratio?". */
int knob_lookup(const char *name, const char *sched, struct knob *out, sl_err *e)
{
    if (lookup_name(name, sched, out, e) == 0) return 0;
    if (!e) return -1;   /* nobody reads the message: no suggestion to look for */
    struct knob *all;
    int n;
    if (strncmp(e->msg, "unknown knob \"", 14) != 0 || (n = knob_list(NULL, 0, &all, NULL)) < 0) return -1;
    struct suggest s;
    suggest_init(&s, name);
    for (int i = 0; i < n; i++) suggest_offer(&s, all[i].name);
    free(all);
    if (suggest_best(&s)) sl_suffix(e, "Did you mean %s?", suggest_best(&s));
    return -1;
}

static bool matches(const char *name, const char *const *globs, int n)
{
    if (n == 0) return true;
    for (int i = 0; i < n; i++)
        if (fnmatch(globs[i], name, 0) == 0) return true;
    return false;
}

struct knob_vec { struct knob *v; int n, cap; };

static void push(struct knob_vec *kv, const struct knob *k)
{
    kv->v = xgrow(kv->v, kv->n, &kv->cap, sizeof *kv->v, 64);
    kv->v[kv->n++] = *k;
}

int knob_list(const char *const *globs, int nglobs, struct knob **out, sl_err *e)
{
    struct knob_vec kv = { 0 };
    struct knob k;
    for (size_t i = 0; i < knob_table_len; i++) {
        const struct knob_def *d = &knob_table[i];
        if (d->scope != SCOPE_VM && d->scope != SCOPE_BDFLUSH) continue;
        bind(&k, d, NULL, 0, 0);
        if (matches(k.name, globs, nglobs)) push(&kv, &k);
    }
    struct device *devs = NULL;
    int nd = sysfs_is_dir("/sys") ? device_list(&devs, e) : 0;
    if (nd < 0) { free(kv.v); return -1; }
    for (int j = 0; j < nd; j++) {
        const struct device *dv = &devs[j];
        if (!dv->has_queue) continue;
        for (size_t i = 0; i < knob_table_len; i++) {
            const struct knob_def *d = &knob_table[i];
            if (d->scope == SCOPE_VM || d->scope == SCOPE_BDFLUSH) continue;
            if (d->scope == SCOPE_IOSCHED && !word_in(d->scheds, dv->scheduler)) continue;
            bind(&k, d, dv->name, dv->major, dv->minor);
            if (d->scope == SCOPE_BDI && !knob_present(&k)) continue;
            if (matches(k.name, globs, nglobs)) push(&kv, &k);
        }
    }
    free(devs);
    *out = kv.v;
    return kv.n;
}

bool knob_present(const struct knob *k)
{
    return sysfs_exists(k->path);
}

int knob_bdflush_parse(const char *text, long long f[KNOB_BDFLUSH_FIELDS])
{
    int n = 0;
    const char *p = text;
    while (n < KNOB_BDFLUSH_FIELDS && *p) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p) break;
        f[n++] = v;
        p = end;
    }
    return n;
}

int knob_read(const struct knob *k, char *buf, size_t n, sl_err *e)
{
    char raw[512];
    if (sysfs_read(k->path, raw, sizeof raw, e) < 0) return -1;
    switch (k->def->type) {
    case KT_SCHED:
        if (knob_sched_parse(raw, buf, n, NULL, 0) < 0)
            return sl_fail(e, SL_EFAIL, "%s%s: no scheduler in \"%s\"", sysfs_root(), k->path, raw);
        return 0;
    case KT_FIELD: {
        long long f[KNOB_BDFLUSH_FIELDS];
        int cnt = knob_bdflush_parse(raw, f);
        if (k->def->field >= cnt)
            return sl_fail(e, SL_EFAIL, "%s%s: has %d fields, %s is field %d", sysfs_root(), k->path, cnt,
                           k->name, k->def->field + 1);
        snprintf(buf, n, "%lld", f[k->def->field]);
        return 0;
    }
    default:
        snprintf(buf, n, "%s", raw);
        return 0;
    }
}

/* Strict base-10 integer with an optional K/M/G/T suffix for byte counts. */
static int parse_int(const char *s, bool allow_suffix, long long *out)
{
    /* strtoll would skip leading blanks; queue files reject them, so do we. */
    if (!*s || isspace((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s) return -1;
    if (allow_suffix && *end) {
        static const char units[] = "KMGT";
        const char *u = strchr(units, toupper((unsigned char)*end));
        if (!u || (end[1] && !(toupper((unsigned char)end[1]) == 'I' && end[2] == 'B' && !end[3])
                   && !(toupper((unsigned char)end[1]) == 'B' && !end[2])))
            return -1;
        for (long i = 0; i <= u - units; i++) {
            if (v > LLONG_MAX / 1024 || v < LLONG_MIN / 1024) return -1;
            v *= 1024;
        }
        end = (char *)"";
    }
    if (*end) return -1;
    *out = v;
    return 0;
}

static int validate_number(const struct knob *k, const char *value, char *canon, size_t n, sl_err *e)
{
    const struct knob_def *d = k->def;
    long long v;
    if (parse_int(value, d->type == KT_BYTES, &v) < 0)
        return sl_fail(e, SL_EUSAGE, "%s=%s: not a whole number%s", k->name, value,
                       d->type == KT_BYTES ? " of bytes (suffixes K, M, G allowed)" : "");
    if (d->type == KT_BYTES && v == 0)
        return sl_fail(e, SL_EUSAGE, "%s=0: the kernel refuses 0; to go back to ratio mode set vm.%s instead",
                       k->name, d->partner);
    if (v < d->min || v > d->max)
        return sl_fail(e, SL_EUSAGE, "%s=%s is out of sluice's safe range %lld..%lld%s%s", k->name, value,
                       d->min, d->max, d->unit[0] ? " " : "", d->unit);
    snprintf(canon, n, "%lld", v);
    return 0;
}

const struct knob_def *knob_def_find(enum knob_scope scope, const char *name, const char *sched)
{
    return find_def(scope, name, sched);
}

/* Checks that need only the table row; KT_SCHED is left to the caller. */
static int check_def_value(const struct knob_def *d, const char *name, const char *value, char *canon, size_t n,
                           sl_err *e)
{
    const char *why = knob_unwritable(d);
    if (why) return sl_fail(e, SL_EUSAGE, "%s is %s", name, why);
    switch (d->type) {
    case KT_INT: case KT_FIELD: case KT_BYTES: {
        struct knob k = { .def = d };
        snprintf(k.name, sizeof k.name, "%s", name);
        return validate_number(&k, value, canon, n, e);
    }
    case KT_BOOL:
        if (strcmp(value, "0") && strcmp(value, "1"))
            return sl_fail(e, SL_EUSAGE, "%s=%s: expected 0 or 1", name, value);
        snprintf(canon, n, "%s", value);
        return 0;
    case KT_ENUM:
        if (!word_in(d->values, value))
            return sl_fail(e, SL_EUSAGE, "%s=%s: expected one of: %s", name, value, d->values);
        snprintf(canon, n, "%s", value);
        return 0;
    case KT_SCHED:
        return 0;
    case KT_FACT:
        break;
    }
    return sl_fail(e, SL_EUSAGE, "%s cannot be written", name);
}

int knob_check_value(const struct knob_def *d, const char *name, const char *value, char *canon, size_t n, sl_err *e)
{
    if (check_def_value(d, name, value, canon, n, e) < 0) return -1;
    if (d->type == KT_SCHED) {
        if (!device_name_valid(value) || !word_in(known_schedulers, value))
            return sl_fail(e, SL_EUSAGE, "%s=%s: not an I/O scheduler sluice knows (%s)", name, value, known_schedulers);
        snprintf(canon, n, "%s", value);
    }
    return 0;
}

int knob_validate(const struct knob *k, const char *value, char *canon, size_t n, sl_err *e)
{
    const struct knob_def *d = k->def;
    if (d->flags & (KF_RO | KF_DESTRUCTIVE)) return check_def_value(d, k->name, value, canon, n, e);
    if (!knob_present(k) && d->scope != SCOPE_IOSCHED)
        return sl_fail(e, SL_EUSAGE, "%s is absent: the running kernel has no %s%s", k->name, sysfs_root(), k->path);
    switch (d->type) {
    case KT_INT: case KT_FIELD: case KT_BYTES: case KT_BOOL: case KT_ENUM:
        return check_def_value(d, k->name, value, canon, n, e);
    case KT_SCHED: {
        char raw[256], active[64], offered[256];
        if (sysfs_read(k->path, raw, sizeof raw, e) < 0) return -1;
        knob_sched_parse(raw, active, sizeof active, offered, sizeof offered);
        if (!device_name_valid(value) || !word_in(offered, value))
            return sl_fail(e, SL_EUSAGE, "%s=%s: the kernel offers only: %s", k->name, value, offered);
        snprintf(canon, n, "%s", value);
        return 0;
    }
    case KT_FACT:
        break;
    }
    return sl_fail(e, SL_EUSAGE, "%s cannot be written", k->name);
}

int knob_write(const struct knob *k, const char *value, sl_err *e)
{
    if (k->def->type != KT_FIELD) return sysfs_write(k->path, value, e);
    char raw[512];
    if (sysfs_read(k->path, raw, sizeof raw, e) < 0) return -1;
    long long f[KNOB_BDFLUSH_FIELDS];
    int cnt = knob_bdflush_parse(raw, f);
    if (k->def->field >= cnt)
        return sl_fail(e, SL_EFAIL, "%s%s: has %d fields, cannot set %s", sysfs_root(), k->path, cnt, k->name);
    f[k->def->field] = strtoll(value, NULL, 10);
    char vec[256] = "";
    for (int i = 0; i < cnt; i++) {
        size_t len = strlen(vec);
        snprintf(vec + len, sizeof vec - len, "%s%lld", i ? " " : "", f[i]);
    }
    return sysfs_write(k->path, vec, e);
}

bool knob_values_equal(const struct knob *k, const char *a, const char *b)
{
    switch (k->def->type) {
    case KT_INT: case KT_FIELD: case KT_BYTES: case KT_BOOL: {
        long long x, y;
        if (parse_int(a, false, &x) == 0 && parse_int(b, false, &y) == 0) return x == y;
        return strcmp(a, b) == 0;
    }
    default:
        return strcmp(a, b) == 0;
    }
}

const struct knob_def *knob_def_of_role(enum knob_scope scope, enum knob_role role, bool bytes)
{
    for (size_t i = 0; i < knob_table_len; i++) {
        const struct knob_def *d = &knob_table[i];
        if (d->scope == scope && d->role == (int)role && (d->type == KT_BYTES) == bytes) return d;
    }
    return NULL;
}

static void add_present(struct knob **v, int *n, const struct knob *k)
{
    *v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
    (*v)[(*n)++] = *k;
}

int knob_side_effects(const struct knob *k, struct knob **out)
{
    struct knob *v = NULL, extra;
    int n = 0;
    char name[KNOB_NAME_MAX];
    if (k->def->partner && k->def->scope == SCOPE_VM) {
        snprintf(name, sizeof name, "vm.%s", k->def->partner);
        if (knob_lookup(name, NULL, &extra, NULL) == 0 && knob_present(&extra)) add_present(&v, &n, &extra);
    }
    if (k->def->role == KR_SCHED) {
        const struct knob_def *nr = knob_def_of_role(SCOPE_BLOCK, KR_NR_REQUESTS, false);
        if (nr) {   /* the catalogue has one; the analyzer cannot know */
            snprintf(name, sizeof name, "block.%s.%s", k->dev, nr->name);
            if (knob_lookup(name, NULL, &extra, NULL) == 0) add_present(&v, &n, &extra);
        }
        snprintf(name, sizeof name, "block.%s.iosched.*", k->dev);
        const char *glob = name;
        struct knob *list;
        int m = knob_list(&glob, 1, &list, NULL);
        for (int j = 0; j < m; j++)
            if (knob_present(&list[j])) add_present(&v, &n, &list[j]);
        if (m >= 0) free(list);
    }
    *out = v;
    return n;
}
