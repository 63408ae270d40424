/* space_file — user search spaces from an INI file (inih):
 *
 *   [space]
 *   name = nightly-batch            ; optional, defaults to the file name
 *   [knob vm.dirty_ratio]
 *   values = 5 10 20 40             ; explicit levels, or:
 *   [knob vm.dirty_expire_centisecs]
 *   range = 500..6000               ; min..max with
 *   steps = 5                       ; this many levels (2..23)
 *   scale = log                     ; log (geometric) or linear (default)
 *   [knob block.sda.iosched.fifo_batch]
 *   scheduler = mq-deadline         ; iosched tunables: the owning scheduler
 *   values = 4 16 64
 *
 * Every knob must be searchable in the catalogue and every level valid for
 * it; the rules of shipped spaces (bg < dirty, nr_requests limits, iosched
 * tunables only under their scheduler) apply to user spaces too. */
#include "core/opt.h"
#include "search/space.h"

#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct file_knob {
    char name[KNOB_NAME_MAX];
    char values[512];
    char range[64];
    char scale[16];
    char sched[32];
    int steps;
};

struct file_state {
    struct space *sp;
    struct file_knob *k;
    int n, cap;
    char err[512];
};

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
    struct file_state *fs = user;
    if (fs->err[0]) return 0;
    if (strcmp(section, "space") == 0) {
        if (strcmp(name, "name") == 0) { snprintf(fs->sp->name, sizeof fs->sp->name, "%s", value); return 1; }
        snprintf(fs->err, sizeof fs->err, "[space]: unknown key \"%s\" (known: name)", name);
        return 0;
    }
    if (strncmp(section, "knob ", 5) != 0) {
        snprintf(fs->err, sizeof fs->err, "unknown section [%s]: expected [space] or [knob NAME]", section);
        return 0;
    }
    const char *knob = section + 5;
    struct file_knob *k = fs->n ? &fs->k[fs->n - 1] : NULL;
    if (!k || strcmp(k->name, knob) != 0) {
        fs->k = xgrow(fs->k, fs->n, &fs->cap, sizeof *fs->k, 8);
        k = &fs->k[fs->n++];
        snprintf(k->name, sizeof k->name, "%s", knob);
    }
    if (strcmp(name, "values") == 0) snprintf(k->values, sizeof k->values, "%s", value);
    else if (strcmp(name, "range") == 0) snprintf(k->range, sizeof k->range, "%s", value);
    else if (strcmp(name, "scale") == 0) snprintf(k->scale, sizeof k->scale, "%s", value);
    else if (strcmp(name, "scheduler") == 0) snprintf(k->sched, sizeof k->sched, "%s", value);
    else if (strcmp(name, "steps") == 0) k->steps = atoi(value);
    else {
        snprintf(fs->err, sizeof fs->err, "[knob %s]: unknown key \"%s\" (known: values, range, steps, scale, scheduler)", knob, name);
        return 0;
    }
    return 1;
}

/* range/steps/scale to explicit levels. */
static int expand_range(const struct file_knob *k, char levels[][SPACE_VALUE_MAX], int *n, char *err, size_t errn)
{
    long long lo, hi;
    char tail;
    if (sscanf(k->range, "%lld..%lld%c", &lo, &hi, &tail) != 2 || lo >= hi) {
        snprintf(err, errn, "[knob %s]: range \"%s\": expected MIN..MAX with MIN < MAX", k->name, k->range);
        return -1;
    }
    int steps = k->steps ? k->steps : 5;
    if (steps < 2 || steps > SPACE_MAX_LEVELS - 1) {
        snprintf(err, errn, "[knob %s]: steps %d: expected 2..%d", k->name, steps, SPACE_MAX_LEVELS - 1);
        return -1;
    }
    bool logscale = strcmp(k->scale, "log") == 0;
    if (k->scale[0] && !logscale && strcmp(k->scale, "linear") != 0) {
        snprintf(err, errn, "[knob %s]: scale \"%s\": expected log or linear", k->name, k->scale);
        return -1;
    }
    if (logscale && lo <= 0) {
        snprintf(err, errn, "[knob %s]: a log scale needs MIN > 0", k->name);
        return -1;
    }
    *n = 0;
    for (int i = 0; i < steps; i++) {
        double f = (double)i / (steps - 1);
        double v = logscale ? exp(log((double)lo) + f * (log((double)hi) - log((double)lo))) : lo + f * (double)(hi - lo);
        long long r = llround(v);
        if (*n && strtoll(levels[*n - 1], NULL, 10) == r) continue; /* integer steps collapse */
        snprintf(levels[(*n)++], SPACE_VALUE_MAX, "%lld", r);
    }
    return 0;
}

static int add_file_knob(struct space *out, const char *path, struct file_knob *k, sl_err *e)
{
    char levels[SPACE_MAX_LEVELS][SPACE_VALUE_MAX];
    const char *ptrs[SPACE_MAX_LEVELS];
    int n = 0;
    char err[512];
    if (k->values[0] && k->range[0])
        return sl_fail(e, SL_EUSAGE, "space file %s: [knob %s]: give values or range, not both", path, k->name);
    if (k->range[0]) {
        if (expand_range(k, levels, &n, err, sizeof err) < 0) return sl_fail(e, SL_EUSAGE, "space file %s: %s", path, err);
    } else {
        const char *p = k->values;
        while (*p && n < SPACE_MAX_LEVELS - 1) {
            p += strspn(p, " \t,");
            size_t len = strcspn(p, " \t,");
            if (!len) break;
            snprintf(levels[n++], SPACE_VALUE_MAX, "%.*s", (int)len, p);
            p += len;
        }
    }
    if (n == 0) return sl_fail(e, SL_EUSAGE, "space file %s: [knob %s] has no values (values = ... or range = MIN..MAX)", path, k->name);
    for (int j = 0; j < n; j++) ptrs[j] = levels[j];
    if (strstr(k->name, ".iosched.") && !k->sched[0]) {
        /* default: the first scheduler owning a tunable of that name */
        struct knob kk;
        if (knob_lookup(k->name, NULL, &kk, NULL) == 0 && kk.def->scheds)
            snprintf(k->sched, sizeof k->sched, "%.*s", (int)strcspn(kk.def->scheds, " "), kk.def->scheds);
    }
    sl_err de;
    if (space_add_dim(out, k->name, ptrs, n, k->sched[0] ? k->sched : NULL, &de) < 0)
        return sl_fail(e, SL_EUSAGE, "space file %s: %s", path, de.msg);
    return 0;
}

int space_load_file(const char *path, struct space *out, sl_err *e)
{
    memset(out, 0, sizeof *out);
    struct file_state fs = { .sp = out };
    if (opt_regular_file("--space", path, e) < 0) return -1;
    int rc = ini_parse(path, on_entry, &fs);
    if (rc < 0) { free(fs.k); return sl_fail(e, SL_EUSAGE, "space file %s: cannot open it", path); }
    if (fs.err[0]) { free(fs.k); return sl_fail(e, SL_EUSAGE, "space file %s: %s", path, fs.err); }
    if (rc > 0) { free(fs.k); return sl_fail(e, SL_EUSAGE, "space file %s: line %d is not INI (KEY = VALUE or [SECTION])", path, rc); }
    if (!out->name[0]) {
        const char *base = strrchr(path, '/');
        snprintf(out->name, sizeof out->name, "%s", base ? base + 1 : path);
    }
    if (fs.n == 0) { free(fs.k); return sl_fail(e, SL_EUSAGE, "space file %s: no [knob NAME] section", path); }
    for (int i = 0; i < fs.n; i++)
        if (add_file_knob(out, path, &fs.k[i], e) < 0) { free(fs.k); return -1; }
    free(fs.k);
    return space_finish(out, e);
}
