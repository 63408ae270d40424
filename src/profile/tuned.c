/* tuned — TuneD profiles (tuned.conf(5)) converted into sluice profiles:
 * the VM and block settings are mapped onto catalogue knobs, and every
 * setting that is not becomes a note saying where it was and why. */
#include "profile/profile.h"
#include "profile/inilines.h"
#include "core/sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TUNED_DEPTH_MAX 8
/* Files read for one import, repeats counted (see INCLUDE_FILES_MAX). */
#define TUNED_FILES_MAX 64

struct raw { char section[128]; char key[160]; char value[512]; int line; };
struct tfile {
    const char *path;   /* owned by the output profile */
    struct raw *r;
    int n;
    struct ini_lines in;
};

static int on_raw(void *user, const char *section, const char *name, const char *value)
{
    struct tfile *t = user;
    t->r = xrealloc(t->r, sizeof *t->r * (size_t)(t->n + 1));
    struct raw *r = &t->r[t->n++];
    snprintf(r->section, sizeof r->section, "%s", section);
    snprintf(r->key, sizeof r->key, "%s", name);
    snprintf(r->value, sizeof r->value, "%s", value);
    r->line = t->in.line;
    return 1;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* TuneD's own directories, searched under the root in its order of
 * precedence: /etc overrides /usr/lib. */
static const char *const tuned_dirs[] = { "/etc/tuned/profiles", "/etc/tuned", "/usr/lib/tuned/profiles", "/usr/lib/tuned" };

/* name's tuned.conf in TuneD's directories under the root: 0, or 1 when none has it. */
static int tuned_find_standard(const char *name, char *path, size_t n)
{
    for (size_t i = 0; i < sizeof tuned_dirs / sizeof tuned_dirs[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "%s/%s/tuned.conf", tuned_dirs[i], name);
        if (sysfs_path(path, n, rel) == 0 && is_file(path)) return 0;
    }
    return 1;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int profile_tuned_names(char ***out)
{
    char **all = NULL;
    int n = 0;
    for (size_t i = 0; i < sizeof tuned_dirs / sizeof tuned_dirs[0]; i++) {
        char **names;
        int k = sysfs_is_dir(tuned_dirs[i]) ? sysfs_list(tuned_dirs[i], &names, NULL) : -1;
        for (int j = 0; j < k; j++) {
            char rel[512], path[PATH_MAX];
            snprintf(rel, sizeof rel, "%s/%s/tuned.conf", tuned_dirs[i], names[j]);
            if (profile_name_valid(names[j]) && sysfs_path(path, sizeof path, rel) == 0 && is_file(path)) {
                all = xrealloc(all, sizeof *all * (size_t)(n + 1));
                all[n++] = xstrdup(names[j]);
            }
        }
        if (k >= 0) sysfs_names_free(names, k);
    }
    if (n) qsort(all, (size_t)n, sizeof *all, name_cmp);
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (kept && strcmp(all[kept - 1], all[i]) == 0) free(all[i]);
        else all[kept++] = all[i];
    }
    *out = all;
    return kept;
}

static int tuned_find(const char *name, char *path, size_t n, sl_err *e)
{
    if (strchr(name, '/')) {
        struct stat st;
        /* "DIR/" as a shell completes it: one slash before tuned.conf, so
         * the profile is named after DIR and its includes are found beside it. */
        int len = (int)strlen(name);
        while (len > 1 && name[len - 1] == '/') len--;
        if (stat(name, &st) == 0 && S_ISDIR(st.st_mode)) snprintf(path, n, "%.*s/tuned.conf", len, name);
        else snprintf(path, n, "%s", name);
        if (is_file(path)) return 0;
        return sl_fail(e, SL_EUSAGE, "%s: no TuneD profile there (expected a directory with tuned.conf, or the file)", name);
    }
    if (!profile_name_valid(name))
        return sl_fail(e, SL_EUSAGE, "\"%s\" is not a TuneD profile name", name);
    if (tuned_find_standard(name, path, n) == 0) return 0;
    return sl_fail(e, SL_EUSAGE, "no TuneD profile \"%s\" in /etc/tuned or /usr/lib/tuned (is the tuned package installed?)", name);
}

/* An include= of the profile in file (its line): a path as given; a name
 * beside the including profile first (the tree it was given from: an
 * unpacked package, a copy), then TuneD's directories under the root. */
static int tuned_find_include(const char *name, const char *file, int line, char *path, size_t n, sl_err *e)
{
    if (strchr(name, '/')) return tuned_find(name, path, n, e);
    if (!profile_name_valid(name))
        return sl_fail(e, SL_EUSAGE, "%s:%d: include=%s: not a TuneD profile name", file, line, name);
    char tree[PATH_MAX];
    snprintf(tree, sizeof tree, "%s", file);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(tree, '/');
        if (slash) *slash = 0;
        else snprintf(tree, sizeof tree, ".");
    }
    if (!tree[0]) snprintf(tree, sizeof tree, "/");
    if ((size_t)snprintf(path, n, "%s/%s/tuned.conf", tree, name) < n && is_file(path)) return 0;
    if (tuned_find_standard(name, path, n) == 0) return 0;
    return sl_fail(e, SL_EUSAGE, "%s:%d: include=%s: no TuneD profile \"%s\" beside it (%s) nor in /etc/tuned or "
                   "/usr/lib/tuned%s", file, line, name, name, tree, sysfs_is_real_root() ? "" : " under the root");
}

/* --- mapping ------------------------------------------------------------------ */

struct mapper {
    struct profile *out;
    struct notes *nt;
    const char *file;
};

static void unmapped(struct mapper *m, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void unmapped(struct mapper *m, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    notes_add(m->nt, "%s:%d: %s", m->file, line, msg);
}

static void map_one(struct mapper *m, const struct raw *r, enum prof_section sec, const char *sel, const char *key,
                    const char *value)
{
    if (strstr(value, "${")) {
        unmapped(m, r->line, "%s = %s: uses TuneD variables or functions, which sluice does not expand", r->key, value);
        return;
    }
    /* The written profile must load again: [block "SELECTOR"] has to fit
     * inih's section limit (a long TuneD devices= glob did not; fuzzing). */
    sl_err se;
    bool plain = true;
    for (const unsigned char *c = (const unsigned char *)sel; *c; c++)
        if (*c < 0x20 || *c >= 0x7f || *c == ']' || *c == '"') plain = false;
    if (sel[0] && (!plain || selector_check(sel, &se) < 0)) {
        unmapped(m, r->line, "%s = %s: the devices list does not make a sluice selector (%s)", r->key, value,
                 plain ? se.msg : "a character a profile section cannot hold");
        return;
    }
    if (sel[0] && strlen(sel) + strlen("block \"\"") >= INI_SECTION_MAX - 1) {
        unmapped(m, r->line, "%s = %s: the devices selector %.40s... is longer than a profile section allows (%d characters)",
                 r->key, value, sel, INI_SECTION_MAX - 2);
        return;
    }
    struct prof_entry en = { .sec = sec, .file = m->file, .line = r->line };
    snprintf(en.selector, sizeof en.selector, "%s", sel);
    snprintf(en.key, sizeof en.key, "%s", key);
    sl_err ve;
    if (profile_check_entry(&en, value, &ve) < 0) {
        unmapped(m, r->line, "%s = %s: %s", r->key, value, ve.msg);
        return;
    }
    profile_set_entry(m->out, &en);
}

static const struct raw *find_key(const struct raw *r, int n, const char *section, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(r[i].section, section) && !strcmp(r[i].key, key)) return &r[i];
    return NULL;
}

/* A ratio of 0 beside a bytes value is how TuneD switches to bytes mode
 * (postgresql): the kernel zeroes the ratio itself when the bytes are set. */
static bool ratio_zero_for_bytes(const struct raw *all, int n, const struct raw *r, const char *ratio_key,
                                 const char *bytes_key)
{
    if (strcmp(r->value, "0") != 0) return false;
    const struct raw *b = find_key(all, n, r->section, bytes_key);
    (void)ratio_key;
    return b && strcmp(b->value, "0") != 0;
}

static void map_sysctl(struct mapper *m, const struct raw *all, int n, const struct raw *r)
{
    char key[160];
    snprintf(key, sizeof key, "%s", r->key);
    for (char *c = key; *c; c++) if (*c == '/') *c = '.';
    if (strncmp(key, "vm.", 3) != 0) {
        unmapped(m, r->line, "[sysctl] %s = %s: not a VM knob", r->key, r->value);
        return;
    }
    const struct knob_def *d = knob_def_find(SCOPE_VM, key + 3, NULL);
    if (!d) {
        unmapped(m, r->line, "[sysctl] %s = %s: not in sluice's knob catalogue", r->key, r->value);
        return;
    }
    /* a dirty limit's ratio half, its bytes partner in the catalogue */
    if (d->role != KR_NONE && d->partner && d->type != KT_BYTES) {
        char bytes[KNOB_NAME_MAX];
        snprintf(bytes, sizeof bytes, "vm.%s", d->partner);
        if (ratio_zero_for_bytes(all, n, r, key, bytes)) {
            unmapped(m, r->line, "[sysctl] %s = 0: dropped, %s sets the limit (the kernel zeroes the ratio itself)", key, bytes);
            return;
        }
    }
    map_one(m, r, PS_VM, "", key + 3, r->value);
}

static void map_vm(struct mapper *m, const struct raw *r)
{
    /* TuneD's [vm] dirty keys are the catalogue's dirty limits */
    const struct knob_def *d = knob_def_find(SCOPE_VM, r->key, NULL);
    if (d && d->role != KR_NONE) {
        size_t len = strlen(r->value);
        /* TuneD: "dirty_bytes = 40%" means the ratio. */
        if (len > 1 && r->value[len - 1] == '%') {
            char v[64];
            snprintf(v, sizeof v, "%.*s", (int)(len - 1), r->value);
            map_one(m, r, PS_VM, "", d->type == KT_BYTES ? d->partner : d->name, v);
        } else {
            map_one(m, r, PS_VM, "", r->key, r->value);
        }
        return;
    }
    unmapped(m, r->line, "[vm] %s = %s: not a write-back knob (transparent hugepages are out of sluice's scope)", r->key,
             r->value);
}

/* TuneD readahead: KiB, or sectors with an " s" suffix; a >/< prefix. */
static void map_readahead(struct mapper *m, const struct raw *r, const char *sel)
{
    const char *v = r->value;
    char cond[2] = "";
    if (*v == '>' || *v == '<') { cond[0] = *v++; }
    while (isspace((unsigned char)*v)) v++;
    char *end;
    long long n = strtoll(v, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    if (end == v || (*end && strcmp(end, "s") != 0)) {
        unmapped(m, r->line, "[disk] readahead = %s: not a number of KiB or \"N s\" sectors", r->value);
        return;
    }
    if (*end == 's') n /= 2;
    char value[64];
    snprintf(value, sizeof value, "%s%lld", cond, n);
    map_one(m, r, PS_BLOCK, sel, "read_ahead_kb", value);
}

/* TuneD devices= (comma-separated globs, "!" excludes) as sluice selectors:
 * each positive glob is one selector (OR), every exclusion joins each. */
static int devices_selectors(const char *devices, char sels[][PROFILE_SELECTOR_MAX], int max)
{
    char buf[256], neg[PROFILE_SELECTOR_MAX] = "";
    int n = 0;
    snprintf(buf, sizeof buf, "%s", devices);
    for (char *save, *tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save))
        if (tok[0] == '!') {
            size_t len = strlen(neg);
            snprintf(neg + len, sizeof neg - len, ", name=%s", tok);
        }
    snprintf(buf, sizeof buf, "%s", devices);
    for (char *save, *tok = strtok_r(buf, ", \t", &save); tok && n < max; tok = strtok_r(NULL, ", \t", &save))
        if (tok[0] != '!') snprintf(sels[n++], PROFILE_SELECTOR_MAX, "name=%s%s", tok, neg);
    if (n == 0 && neg[0] && max) snprintf(sels[n++], PROFILE_SELECTOR_MAX, "%s", neg + 2);
    return n;
}

static void map_disk(struct mapper *m, const struct raw *r, char sels[][PROFILE_SELECTOR_MAX], int nsel)
{
    for (int i = 0; i < (nsel ? nsel : 1); i++) {
        const char *sel = nsel ? sels[i] : "";
        if (!strcmp(r->key, "elevator")) map_one(m, r, PS_BLOCK, sel, "scheduler", r->value);
        else if (!strcmp(r->key, "readahead")) map_readahead(m, r, sel);
        else {
            unmapped(m, r->line, "[disk] %s = %s: %s", r->key, r->value,
                     !strcmp(r->key, "readahead_multiply") ? "a multiplier of the current value has no sluice equivalent"
                     : !strcmp(r->key, "apm") || !strcmp(r->key, "spindown") ? "disk power management (hdparm), not a queue knob"
                     : !strcmp(r->key, "scheduler_quantum") ? "a CFQ tunable of kernels before 5.0"
                                                           : "not a knob sluice tunes");
            return;
        }
    }
}

/* [sysfs] /sys/block/GLOB/queue/[iosched/]FILE = VALUE */
static void map_sysfs(struct mapper *m, const struct raw *r)
{
    char glob[64], rest[128];
    if (sscanf(r->key, "/sys/block/%63[^/]/queue/%127s", glob, rest) != 2) {
        unmapped(m, r->line, "[sysfs] %s = %s: not a block queue attribute", r->key, r->value);
        return;
    }
    char key[PROFILE_KEY_MAX], sel[PROFILE_SELECTOR_MAX] = "";
    if (!strncmp(rest, "iosched/", 8)) snprintf(key, sizeof key, "iosched.%s", rest + 8);
    else snprintf(key, sizeof key, "%s", rest);
    if (strchr(key + (strncmp(key, "iosched.", 8) ? 0 : 8), '/')) {
        unmapped(m, r->line, "[sysfs] %s = %s: not a queue knob sluice knows", r->key, r->value);
        return;
    }
    if (strcmp(glob, "*") != 0) snprintf(sel, sizeof sel, "name=%s", glob);
    map_one(m, r, PS_BLOCK, sel, key, r->value);
}

static bool instance_key(const char *k)
{
    static const char *const keys[] = { "type", "devices", "devices_udev_regex", "priority", "enabled", "replace",
                                        "drop", "uname_regex", "cpuinfo_regex", "script_pre", "script_post" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(k, keys[i])) return true;
    return false;
}

static void map_section(struct mapper *m, const struct raw *all, int n, const char *section)
{
    const struct raw *type = find_key(all, n, section, "type");
    char plugin[128];
    snprintf(plugin, sizeof plugin, "%s", type ? type->value : section);
    if (!type) plugin[strcspn(plugin, ".")] = 0;
    int first = 0;
    for (int i = 0; i < n; i++) if (!strcmp(all[i].section, section)) { first = all[i].line; break; }
    const char *cond[] = { "uname_regex", "cpuinfo_regex", "devices_udev_regex" };
    for (size_t i = 0; i < 3; i++) {
        const struct raw *c = find_key(all, n, section, cond[i]);
        if (c) {
            unmapped(m, c->line, "[%s]: applies only where %s=%s matches, which sluice cannot decide: not mapped", section,
                     cond[i], c->value);
            return;
        }
    }
    const struct raw *en = find_key(all, n, section, "enabled");
    if (en && (!strcmp(en->value, "false") || !strcmp(en->value, "0"))) return;
    if (!strcmp(plugin, "main") || !strcmp(plugin, "variables")) return;
    bool known = !strcmp(plugin, "sysctl") || !strcmp(plugin, "vm") || !strcmp(plugin, "disk") || !strcmp(plugin, "sysfs");
    if (!known) {
        char keys[300] = "";
        for (int i = 0; i < n; i++) {
            if (strcmp(all[i].section, section) || instance_key(all[i].key)) continue;
            size_t len = strlen(keys);
            snprintf(keys + len, sizeof keys - len, "%s%s", len ? ", " : "", all[i].key);
        }
        if (keys[0]) unmapped(m, first, "[%s] %s: TuneD's %s plugin, not a VM or block knob", section, keys, plugin);
        return;
    }
    char sels[8][PROFILE_SELECTOR_MAX];
    int nsel = 0;
    const struct raw *dev = find_key(all, n, section, "devices");
    if (dev && !strcmp(plugin, "disk")) nsel = devices_selectors(dev->value, sels, 8);
    for (int i = 0; i < n; i++) {
        const struct raw *r = &all[i];
        if (strcmp(r->section, section) || instance_key(r->key)) continue;
        if (!strcmp(plugin, "sysctl")) map_sysctl(m, all, n, r);
        else if (!strcmp(plugin, "vm")) map_vm(m, r);
        else if (!strcmp(plugin, "disk")) map_disk(m, r, sels, nsel);
        else map_sysfs(m, r);
    }
}

/* --- loading ------------------------------------------------------------------- */

struct tstack { char path[TUNED_DEPTH_MAX][512]; int n; int files; };

static int tuned_load(const char *path, struct tstack *stk, struct profile *out, struct notes *nt, sl_err *e,
                      char *summary, size_t sn)
{
    for (int i = 0; i < stk->n; i++)
        if (!strcmp(stk->path[i], path)) return sl_fail(e, SL_EUSAGE, "TuneD include cycle at %s", path);
    if (stk->n == TUNED_DEPTH_MAX) return sl_fail(e, SL_EUSAGE, "%s: TuneD includes nested too deep", path);
    if (++stk->files > TUNED_FILES_MAX)
        return sl_fail(e, SL_EUSAGE, "%s: its includes read more than %d TuneD files: refused",
                       stk->n ? stk->path[0] : path, TUNED_FILES_MAX);
    struct tfile t = { .path = profile_add_file(out, path) };
    if (!(t.in.f = fopen(path, "re"))) return sl_fail_errno(e, SL_EUSAGE, errno, "TuneD profile %s", path);
    int rc = ini_lines_parse(&t.in, on_raw, &t);
    fclose(t.in.f);
    if (rc == 0 && t.in.nul_line) {
        free(t.r);
        return sl_fail(e, SL_EUSAGE, "%s:%d: a NUL byte inside the line: refused rather than cut short", path,
                       t.in.nul_line);
    }
    if (rc != 0) {
        free(t.r);
        return sl_fail(e, SL_EUSAGE, "%s:%d: not a TuneD profile this parser can read (syntax error)", path, rc);
    }
    struct mapper m = { .out = out, .nt = nt, .file = t.path };
    const struct raw *inc = find_key(t.r, t.n, "main", "include");
    snprintf(stk->path[stk->n++], sizeof stk->path[0], "%s", path);
    if (inc) {
        char list[512];
        snprintf(list, sizeof list, "%s", inc->value);
        if (strstr(list, "${")) {
            unmapped(&m, inc->line, "[main] include = %s: chosen by a TuneD function at run time: not followed", inc->value);
        } else {
            for (char *save, *tok = strtok_r(list, ", \t", &save); tok && rc == 0; tok = strtok_r(NULL, ", \t", &save)) {
                char ipath[PATH_MAX];
                char ignored[8];
                rc = tuned_find_include(tok, path, inc->line, ipath, sizeof ipath, e);
                if (rc == 0) rc = tuned_load(ipath, stk, out, nt, e, ignored, sizeof ignored);
            }
        }
    }
    stk->n--;
    const struct raw *sum = find_key(t.r, t.n, "main", "summary");
    snprintf(summary, sn, "%s", sum ? sum->value : "");
    for (int i = 0; i < t.n && rc == 0; i++) {
        bool first = true;
        for (int j = 0; j < i && first; j++) first = strcmp(t.r[j].section, t.r[i].section) != 0;
        if (first) map_section(&m, t.r, t.n, t.r[i].section);
    }
    free(t.r);
    return rc;
}

int profile_import_tuned(const char *name_or_path, struct profile *out, struct notes *unmapped_notes, sl_err *e)
{
    memset(out, 0, sizeof *out);
    char path[PATH_MAX];
    if (tuned_find(name_or_path, path, sizeof path, e) < 0) return -1;
    struct tstack stk = { .n = 0 };
    char summary[400];
    if (tuned_load(path, &stk, out, unmapped_notes, e, summary, sizeof summary) < 0) return -1;
    /* The profile's name: tuned-NAME, NAME being the TuneD directory. */
    char dir[PATH_MAX], base[PROFILE_NAME_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    slash = strrchr(dir, '/');
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : dir);
    snprintf(out->name, sizeof out->name, "tuned-%.*s", (int)(sizeof out->name - 7), base);
    if (!profile_name_valid(out->name)) snprintf(out->name, sizeof out->name, "tuned-import");
    snprintf(out->summary, sizeof out->summary, "TuneD %s%s%s", base, summary[0] ? ": " : "", summary);
    snprintf(out->path, sizeof out->path, "%s", path);
    return 0;
}
