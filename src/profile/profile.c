/* profile — finding, parsing (inih), merging and checking sluice profiles. */
#include "profile.h"
#include "sysfs.h"
#include "textbuf.h"
#include "inilines.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef SLUICE_DATADIR
#define SLUICE_DATADIR "/usr/local/share/sluice"
#endif

#define INCLUDE_DEPTH_MAX 16

/* --- search path ----------------------------------------------------------- */

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_dir(struct profile_dirs *d, const char *dir)
{
    if (!dir || !*dir || d->n == PROFILE_MAX_DIRS || !is_dir(dir)) return;
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->dir[i], dir) == 0) return;
    snprintf(d->dir[d->n++], sizeof d->dir[0], "%s", dir);
}

void profile_dirs_init(struct profile_dirs *d, const char *option_dir)
{
    memset(d, 0, sizeof *d);
    const char *env = getenv("SLUICE_PROFILES");
    add_dir(d, option_dir && *option_dir ? option_dir : env);
    char etc[PATH_MAX];
    if (sysfs_path(etc, sizeof etc, PROFILE_ETC_DIR) == 0) add_dir(d, etc);
    add_dir(d, SLUICE_DATADIR "/profiles");
}

bool profile_name_valid(const char *name)
{
    if (!name || !*name || name[0] == '.' || strlen(name) >= PROFILE_NAME_MAX) return false;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.+-", *p)) return false;
    return true;
}

static void dirs_text(const struct profile_dirs *d, char *buf, size_t n)
{
    buf[0] = 0;
    for (int i = 0; i < d->n; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i ? ", " : "", d->dir[i]);
    }
    if (!d->n) snprintf(buf, n, "(no profile directory exists: give --profiles DIR)");
}

int profile_find(const struct profile_dirs *d, const char *name, char *path, size_t n, sl_err *e)
{
    if (!profile_name_valid(name))
        return sl_fail(e, SL_EUSAGE, "\"%s\" is not a profile name (letters, digits, _ . + -)", name);
    for (int i = 0; i < d->n; i++) {
        snprintf(path, n, "%s/%s.conf", d->dir[i], name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) return 0;
    }
    char dirs[1024];
    dirs_text(d, dirs, sizeof dirs);
    return sl_fail(e, SL_EUSAGE, "no profile \"%s\" in %s (see 'sluice profile list')", name, dirs);
}

int profile_list(const struct profile_dirs *d, char ***names_out, char ***paths_out, sl_err *e)
{
    char **names = NULL, **paths = NULL;
    int n = 0;
    for (int i = 0; i < d->n; i++) {
        /* The directories are real paths (ROOT already applied): read them directly. */
        DIR *dir = opendir(d->dir[i]);
        if (!dir) return sl_fail_errno(e, SL_EFAIL, errno, "profile directory %s", d->dir[i]);
        char **files = NULL;
        int cnt = 0;
        for (struct dirent *de; (de = readdir(dir));) {
            files = xrealloc(files, sizeof *files * (size_t)(cnt + 1));
            files[cnt++] = xstrdup(de->d_name);
        }
        closedir(dir);
        for (int j = 0; j < cnt; j++) {
            size_t len = strlen(files[j]);
            if (len <= 5 || strcmp(files[j] + len - 5, ".conf") != 0) continue;
            files[j][len - 5] = 0;
            if (!profile_name_valid(files[j])) continue;
            bool seen = false;
            for (int k = 0; k < n && !seen; k++) seen = strcmp(names[k], files[j]) == 0;
            if (seen) continue;
            names = xrealloc(names, sizeof *names * (size_t)(n + 1));
            paths = xrealloc(paths, sizeof *paths * (size_t)(n + 1));
            names[n] = xstrdup(files[j]);
            char p[PATH_MAX + 80];
            snprintf(p, sizeof p, "%s/%s.conf", d->dir[i], files[j]);
            paths[n++] = xstrdup(p);
        }
        sysfs_names_free(files, cnt);
    }
    /* Sorted by name across directories. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j]; names[j] = names[j - 1]; names[j - 1] = t;
            t = paths[j]; paths[j] = paths[j - 1]; paths[j - 1] = t;
        }
    *names_out = names;
    *paths_out = paths;
    return n;
}

/* --- selectors ------------------------------------------------------------- */

static const char *const device_keys[] = { "name", "model", "vendor", "serial", "wwid", "transport", "rotational" };
static const char *const host_keys[] = { "virt", "kernel" };

static bool key_in(const char *key, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, keys[i]) == 0) return true;
    return false;
}

/* Split the next term off *p into key and glob (both trimmed). 0 at the end. */
static int next_term(const char **p, char *key, size_t kn, char *glob, size_t gn)
{
    while (**p == ',' || isspace((unsigned char)**p)) (*p)++;
    if (!**p) return 0;
    const char *end = strchr(*p, ',');
    size_t len = end ? (size_t)(end - *p) : strlen(*p);
    char term[PROFILE_SELECTOR_MAX];
    snprintf(term, sizeof term, "%.*s", (int)len, *p);
    *p += len;
    char *eq = strchr(term, '=');
    if (!eq) { snprintf(key, kn, "%s", term); glob[0] = 0; return -1; }
    *eq = 0;
    char *k = term, *g = eq + 1;
    while (isspace((unsigned char)*k)) k++;
    for (char *t = k + strlen(k); t > k && isspace((unsigned char)t[-1]);) *--t = 0;
    while (isspace((unsigned char)*g)) g++;
    for (char *t = g + strlen(g); t > g && isspace((unsigned char)t[-1]);) *--t = 0;
    snprintf(key, kn, "%s", k);
    snprintf(glob, gn, "%s", g);
    return 1;
}

int selector_check(const char *sel, sl_err *e)
{
    const char *p = sel;
    char key[32], glob[PROFILE_SELECTOR_MAX];
    int rc, terms = 0;
    while ((rc = next_term(&p, key, sizeof key, glob, sizeof glob)) != 0) {
        if (rc < 0 || !key[0])
            return sl_fail(e, SL_EUSAGE, "selector \"%s\": \"%s\" is not KEY=GLOB (e.g. rotational=1, name=sd*)", sel, key);
        if (!key_in(key, device_keys, 7) && !key_in(key, host_keys, 2))
            return sl_fail(e, SL_EUSAGE, "selector \"%s\": unknown key \"%s\" (name model vendor serial wwid transport rotational virt kernel)",
                           sel, key);
        const char *g = glob[0] == '!' ? glob + 1 : glob;
        if (!*g) return sl_fail(e, SL_EUSAGE, "selector \"%s\": %s= has no value", sel, key);
        if (strchr(g, '='))
            return sl_fail(e, SL_EUSAGE, "selector \"%s\": separate terms with commas (rotational=1, transport=sata)", sel);
        terms++;
    }
    if (!terms) return sl_fail(e, SL_EUSAGE, "empty selector: write [block] for every disk");
    return 0;
}

static const char *term_subject(const char *key, const struct device *d, const struct host_info *h, char *buf, size_t n)
{
    if (strcmp(key, "virt") == 0) return h ? h->virt : "";
    if (strcmp(key, "kernel") == 0) return h ? h->kernel : "";
    if (!d) return NULL;
    if (strcmp(key, "name") == 0) return d->name;
    if (strcmp(key, "model") == 0) return d->model;
    if (strcmp(key, "vendor") == 0) return d->vendor;
    if (strcmp(key, "serial") == 0) return d->serial;
    if (strcmp(key, "wwid") == 0) return d->wwid;
    if (strcmp(key, "transport") == 0) return d->transport;
    if (d->rotational < 0) return "";
    snprintf(buf, n, "%d", d->rotational);
    return buf;
}

bool selector_matches(const char *sel, const struct device *d, const struct host_info *h)
{
    const char *p = sel;
    char key[32], glob[PROFILE_SELECTOR_MAX], buf[16];
    int rc;
    while ((rc = next_term(&p, key, sizeof key, glob, sizeof glob)) != 0) {
        if (rc < 0) return false;
        bool neg = glob[0] == '!';
        const char *subject = term_subject(key, d, h, buf, sizeof buf);
        if (!subject) return false;
        bool hit = fnmatch(neg ? glob + 1 : glob, subject, 0) == 0;
        if (hit == neg) return false;
    }
    return true;
}

static bool is_stacked(const struct device *d)
{
    static const char *const stacked[] = { "loop", "dm", "md", "zram", "ram", "nbd", "virtual" };
    for (size_t i = 0; i < sizeof stacked / sizeof stacked[0]; i++)
        if (strcmp(d->transport, stacked[i]) == 0) return true;
    return false;
}

bool selector_selects(const char *sel, const struct device *d, const struct host_info *h)
{
    if (!d->has_queue) return false;
    if (is_stacked(d) && !strstr(sel, "name=") && !strstr(sel, "transport=")) return false;
    return selector_matches(sel, d, h);
}

bool profile_covers(const struct profile *p, const struct device *d, const struct host_info *h)
{
    if (!d->has_queue || is_stacked(d)) return false;
    if (p->nmatch == 0) return true;
    for (int i = 0; i < p->nmatch; i++)
        if (selector_matches(p->match[i], d, h)) return true;
    return false;
}

bool profile_host_matches(const struct profile *p, const struct device *devs, int ndevs, const struct host_info *h)
{
    if (p->nmatch == 0) return true;
    for (int i = 0; i < p->nmatch; i++) {
        if (selector_matches(p->match[i], NULL, h)) return true;
        for (int j = 0; j < ndevs; j++)
            if (selector_selects(p->match[i], &devs[j], h)) return true;
    }
    return false;
}

/* --- entries --------------------------------------------------------------- */

const char *prof_section_name(enum prof_section s)
{
    static const char *const names[] = { [PS_VM] = "vm", [PS_BDFLUSH] = "bdflush", [PS_BLOCK] = "block" };
    return names[s];
}

void prof_entry_knob(const struct prof_entry *en, const char *dev, char *buf, size_t n)
{
    switch (en->sec) {
    case PS_VM: snprintf(buf, n, "vm.%s", en->key); break;
    case PS_BDFLUSH: snprintf(buf, n, "vm.bdflush.%s", en->key); break;
    case PS_BLOCK:
        if (strncmp(en->key, "bdi.", 4) == 0) snprintf(buf, n, "bdi.%s.%s", dev, en->key + 4);
        else snprintf(buf, n, "block.%s.%s", dev, en->key);
        break;
    }
}

const struct knob_def *prof_entry_def(const struct prof_entry *en)
{
    switch (en->sec) {
    case PS_VM: return knob_def_find(SCOPE_VM, en->key, NULL);
    case PS_BDFLUSH: return knob_def_find(SCOPE_BDFLUSH, en->key, NULL);
    case PS_BLOCK:
        if (strncmp(en->key, "iosched.", 8) == 0) return knob_def_find(SCOPE_IOSCHED, en->key + 8, NULL);
        if (strncmp(en->key, "bdi.", 4) == 0) return knob_def_find(SCOPE_BDI, en->key + 4, NULL);
        return knob_def_find(SCOPE_BLOCK, en->key, NULL);
    }
    return NULL;
}

void prof_entry_value_text(const struct prof_entry *en, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s", en->cond == PC_RAISE ? ">" : en->cond == PC_LOWER ? "<" : "", en->value);
}

static bool same_slot(const struct prof_entry *a, const struct prof_entry *b)
{
    return a->sec == b->sec && strcmp(a->selector, b->selector) == 0 && strcmp(a->key, b->key) == 0;
}

void profile_set_entry(struct profile *p, const struct prof_entry *en)
{
    const struct knob_def *d = prof_entry_def(en);
    if (d && d->partner && en->sec == PS_VM) {
        for (int i = 0; i < p->n; i++)
            if (p->ent[i].sec == PS_VM && strcmp(p->ent[i].key, d->partner) == 0) {
                memmove(&p->ent[i], &p->ent[i + 1], sizeof *p->ent * (size_t)(p->n - i - 1));
                p->n--;
                break;
            }
    }
    for (int i = 0; i < p->n; i++)
        if (same_slot(&p->ent[i], en)) { p->ent[i] = *en; return; }
    p->ent = xrealloc(p->ent, sizeof *p->ent * (size_t)(p->n + 1));
    p->ent[p->n++] = *en;
}

/* Check a key and value against the table; fill the entry's canonical value. */
int profile_check_entry(struct prof_entry *en, const char *raw, sl_err *e)
{
    char name[KNOB_NAME_MAX];
    prof_entry_knob(en, "DEV", name, sizeof name);
    const struct knob_def *d = prof_entry_def(en);
    if (!d) {
        if (en->sec == PS_BLOCK && strncmp(en->key, "iosched.", 8) == 0)
            return sl_fail(e, SL_EUSAGE, "unknown I/O scheduler tunable \"%s\" (see 'sluice show block.*.iosched.*')", en->key + 8);
        return sl_fail(e, SL_EUSAGE, "unknown knob \"%s\" in [%s] (see 'sluice show %s')", en->key,
                       prof_section_name(en->sec),
                       en->sec == PS_VM ? "vm.*" : en->sec == PS_BDFLUSH ? "vm.bdflush.*" : "block.DEV.*");
    }
    const char *v = raw;
    en->cond = PC_SET;
    if (*v == '>' || *v == '<') {
        en->cond = *v == '>' ? PC_RAISE : PC_LOWER;
        v++;
        while (isspace((unsigned char)*v)) v++;
        if (d->type != KT_INT && d->type != KT_BYTES && d->type != KT_FIELD)
            return sl_fail(e, SL_EUSAGE, "%s: a conditional value (%c%s) needs a numeric knob", en->key, *raw, v);
    }
    if (!*v) return sl_fail(e, SL_EUSAGE, "%s has no value", en->key);
    snprintf(name, sizeof name, "%s", en->key);
    if (d->type != KT_SCHED)
        return knob_check_value(d, name, v, en->value, sizeof en->value, e);
    /* A scheduler may list alternatives, the first the kernel offers wins:
     * "mq-deadline|deadline" works on 2.6 and on blk-mq kernels. */
    char alts[KNOB_VALUE_MAX], canon[64];
    snprintf(alts, sizeof alts, "%s", v);
    en->value[0] = 0;
    char *save, *tok = strtok_r(alts, "|", &save);
    for (; tok; tok = strtok_r(NULL, "|", &save)) {
        while (isspace((unsigned char)*tok)) tok++;
        for (char *t = tok + strlen(tok); t > tok && isspace((unsigned char)t[-1]);) *--t = 0;
        if (knob_check_value(d, name, tok, canon, sizeof canon, e) < 0) return -1;
        size_t len = strlen(en->value);
        snprintf(en->value + len, sizeof en->value - len, "%s%s", len ? "|" : "", canon);
    }
    if (!en->value[0]) return sl_fail(e, SL_EUSAGE, "%s has no value", en->key);
    return 0;
}

/* --- parsing ------------------------------------------------------------------ */

struct load_stack {
    char path[INCLUDE_DEPTH_MAX][PATH_MAX];
    int n;
};

struct parse_ctx {
    struct profile *own;        /* this file's entries and [profile] keys */
    const char *file;
    struct ini_lines in;
    /* current section */
    char section[PROFILE_SELECTOR_MAX + 16];
    int section_kind;           /* -2 unset, -1 [profile], else enum prof_section */
    char selector[PROFILE_SELECTOR_MAX];
    bool section_bad;
    /* first error */
    int err_line;
    sl_err err;
    bool by_name;               /* loaded by name: `name =` must match the file */
    char expect_name[PROFILE_NAME_MAX];
};

static int ctx_fail(struct parse_ctx *c, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int ctx_fail(struct parse_ctx *c, int line, const char *fmt, ...)
{
    if (c->err_line) return 0;
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->err_line = line;
    sl_fail(&c->err, SL_EUSAGE, "%s:%d: %s", c->file, line, msg);
    return 0;
}

static void enter_section(struct parse_ctx *c, const char *section)
{
    if (c->section_kind != -2 && strcmp(section, c->section) == 0) return;
    snprintf(c->section, sizeof c->section, "%s", section);
    c->section_bad = false;
    c->selector[0] = 0;
    if (strlen(section) >= INI_SECTION_MAX - 1) {
        /* inih cuts longer names silently: refuse rather than misread. */
        c->section_bad = true;
        ctx_fail(c, c->in.section_line, "[%s...]: a section name is at most %d characters: shorten the selector with a glob (wwid=*1234567)",
                 section, INI_SECTION_MAX - 2);
        return;
    }
    if (strcmp(section, "profile") == 0) { c->section_kind = -1; return; }
    if (strcmp(section, "vm") == 0) { c->section_kind = PS_VM; return; }
    if (strcmp(section, "bdflush") == 0) { c->section_kind = PS_BDFLUSH; return; }
    c->section_kind = PS_BLOCK;
    if (strcmp(section, "block") == 0) return;
    const char *q = strncmp(section, "block", 5) == 0 ? section + 5 : NULL;
    if (q && isspace((unsigned char)*q)) {
        while (isspace((unsigned char)*q)) q++;
        size_t len = strlen(q);
        if (len >= 2 && q[0] == '"' && q[len - 1] == '"') {
            snprintf(c->selector, sizeof c->selector, "%.*s", (int)(len - 2), q + 1);
            sl_err se;
            if (selector_check(c->selector, &se) < 0) {
                c->section_bad = true;
                ctx_fail(c, c->in.section_line, "[%s]: %s", section, se.msg);
            }
            return;
        }
        c->section_bad = true;
        ctx_fail(c, c->in.section_line, "[%s]: put the selector in double quotes: [block \"rotational=1\"]", section);
        return;
    }
    c->section_bad = true;
    if (!section[0]) return;
    const char *hint = "";
    if (strcmp(section, "main") == 0 || strcmp(section, "sysctl") == 0 || strcmp(section, "disk") == 0)
        hint = " (a TuneD profile? convert it with 'sluice profile import-tuned')";
    ctx_fail(c, c->in.section_line, "unknown section [%s]: sections are [profile], [vm], [bdflush], [block] and [block \"SELECTOR\"]%s",
             section, hint);
}

static int on_profile_key(struct parse_ctx *c, const char *name, const char *value)
{
    struct profile *p = c->own;
    if (strcmp(name, "name") == 0) {
        if (!profile_name_valid(value))
            return ctx_fail(c, c->in.line, "name = %s: names use letters, digits, _ . + - only", value);
        if (c->by_name && strcmp(value, c->expect_name) != 0)
            return ctx_fail(c, c->in.line, "name = %s, but the file is %s.conf: make them agree", value, c->expect_name);
        snprintf(p->name, sizeof p->name, "%s", value);
    } else if (strcmp(name, "summary") == 0) {
        /* An indented line continues the summary (inih calls again). */
        size_t len = strlen(p->summary);
        snprintf(p->summary + len, sizeof p->summary - len, "%s%s", len ? " " : "", value);
    } else if (strcmp(name, "include") == 0) {
        snprintf(p->include, sizeof p->include, "%s", value);
    } else if (strcmp(name, "match") == 0) {
        sl_err se;
        if (selector_check(value, &se) < 0) return ctx_fail(c, c->in.line, "match: %s", se.msg);
        if (p->nmatch == PROFILE_MAX_MATCH) return ctx_fail(c, c->in.line, "more than %d match rules", PROFILE_MAX_MATCH);
        snprintf(p->match[p->nmatch++], sizeof p->match[0], "%s", value);
    } else {
        return ctx_fail(c, c->in.line, "unknown key \"%s\" in [profile] (name, summary, include, match)", name);
    }
    return 1;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
    struct parse_ctx *c = user;
    enter_section(c, section);
    if (!section[0]) return ctx_fail(c, c->in.line, "\"%s\" is outside a section: start with [profile], [vm] or [block]", name);
    if (c->section_bad) return 1; /* reported once at the section */
    if (c->section_kind == -1) return on_profile_key(c, name, value);
    if (strchr(name, '/'))
        return ctx_fail(c, c->in.line, "\"%s\" is a path: profiles name knobs from the catalogue (dirty_ratio in [vm], scheduler in [block]), never paths",
                        name);
    if (strncmp(name, "vm.", 3) == 0 || strncmp(name, "block.", 6) == 0)
        return ctx_fail(c, c->in.line, "\"%s\": write knob names relative to their section (dirty_ratio in [vm]; [block \"name=sda\"] for one disk)",
                        name);
    struct prof_entry en = { .sec = (enum prof_section)c->section_kind, .file = c->file, .line = c->in.line };
    snprintf(en.selector, sizeof en.selector, "%s", c->selector);
    if (strlen(name) >= sizeof en.key) return ctx_fail(c, c->in.line, "knob name too long");
    snprintf(en.key, sizeof en.key, "%s", name);
    if (strncmp(name, "iosched.", 8) && strncmp(name, "bdi.", 4) && strchr(name, '.') && en.sec == PS_BLOCK)
        return ctx_fail(c, c->in.line, "unknown knob \"%s\" in [block] (iosched.NAME and bdi.NAME are the only dotted names)", name);
    for (int i = 0; i < c->own->n; i++)
        if (same_slot(&c->own->ent[i], &en))
            return ctx_fail(c, c->in.line, "%s is given twice in [%s] (first at line %d; an indented line continues the previous value)",
                            name, section, c->own->ent[i].line);
    sl_err ve;
    if (profile_check_entry(&en, value, &ve) < 0) return ctx_fail(c, c->in.line, "%s", ve.msg);
    const struct knob_def *d = prof_entry_def(&en);
    if (d && d->partner && en.sec == PS_VM)
        for (int i = 0; i < c->own->n; i++)
            if (c->own->ent[i].sec == PS_VM && strcmp(c->own->ent[i].key, d->partner) == 0)
                return ctx_fail(c, c->in.line, "give %s or %s, not both: writing one switches the kernel to it (line %d)",
                                d->partner, name, c->own->ent[i].line);
    profile_set_entry(c->own, &en);
    return 1;
}

const char *profile_add_file(struct profile *p, const char *path)
{
    p->files = xrealloc(p->files, sizeof *p->files * (size_t)(p->nfiles + 1));
    p->files[p->nfiles] = xstrdup(path);
    return p->files[p->nfiles++];
}

static int parse_one(struct parse_ctx *c, sl_err *e)
{
    c->section_kind = -2;
    int rc = ini_lines_parse(&c->in, on_entry, c);
    if (rc == -1) return sl_fail_errno(e, SL_EUSAGE, errno, "%s", c->file);
    if (rc == -2) sl_die("out of memory parsing %s", c->file);
    int first = c->err_line;
    if (c->in.long_line && (!first || c->in.long_line <= first))
        return sl_fail(e, SL_EUSAGE, "%s:%d: line longer than %d characters", c->file, c->in.long_line, INI_LINES_MAX);
    if (rc > 0 && (!first || rc < first))
        return sl_fail(e, SL_EUSAGE, "%s:%d: syntax error: expected [section] or knob = value", c->file, rc);
    if (first) { *e = c->err; return -1; }
    return 0;
}

static void merge_into(struct profile *dst, struct profile *src)
{
    for (int i = 0; i < src->n; i++) profile_set_entry(dst, &src->ent[i]);
    /* Entries point at file names: move the strings, not copies. */
    dst->files = xrealloc(dst->files, sizeof *dst->files * (size_t)(dst->nfiles + src->nfiles));
    for (int i = 0; i < src->nfiles; i++) dst->files[dst->nfiles++] = src->files[i];
    free(src->files);
    src->files = NULL;
    src->nfiles = 0;
    if (dst->nmatch == 0) {
        memcpy(dst->match, src->match, sizeof dst->match);
        dst->nmatch = src->nmatch;
    }
}

static int load_any(const struct profile_dirs *d, const char *path, const char *text, const char *expect_name,
                    struct load_stack *stk, struct profile *out, sl_err *e);

static int load_includes(const struct profile_dirs *d, struct profile *out, struct profile *own, struct load_stack *stk,
                         sl_err *e)
{
    char list[256];
    snprintf(list, sizeof list, "%s", own->include);
    char *save, *tok = strtok_r(list, ", \t", &save);
    for (; tok; tok = strtok_r(NULL, ", \t", &save)) {
        char path[PATH_MAX];
        sl_err fe;
        if (profile_find(d, tok, path, sizeof path, &fe) < 0)
            return sl_fail(e, SL_EUSAGE, "%s: include = %s: %s", own->files[0], tok, fe.msg);
        for (int i = 0; i < stk->n; i++)
            if (strcmp(stk->path[i], path) == 0) {
                char chain[2048] = "";
                for (int j = i; j < stk->n; j++) {
                    size_t len = strlen(chain);
                    snprintf(chain + len, sizeof chain - len, "%s -> ", stk->path[j]);
                }
                size_t len = strlen(chain);
                snprintf(chain + len, sizeof chain - len, "%s", path);
                return sl_fail(e, SL_EUSAGE, "include cycle: %s", chain);
            }
        struct profile inc = { 0 };
        int rc = load_any(d, path, NULL, tok, stk, &inc, e);
        if (rc == 0) merge_into(out, &inc);
        profile_free(&inc);
        if (rc < 0) return -1;
    }
    return 0;
}

static int load_any(const struct profile_dirs *d, const char *path, const char *text, const char *expect_name,
                    struct load_stack *stk, struct profile *out, sl_err *e)
{
    if (stk->n == INCLUDE_DEPTH_MAX)
        return sl_fail(e, SL_EUSAGE, "%s: includes nested deeper than %d", path, INCLUDE_DEPTH_MAX);
    struct profile own = { 0 };
    struct parse_ctx c = { .own = &own };
    c.file = profile_add_file(&own, path);
    c.by_name = expect_name != NULL;
    if (expect_name) snprintf(c.expect_name, sizeof c.expect_name, "%s", expect_name);
    if (text) {
        c.in.text = text;
    } else if (!(c.in.f = fopen(path, "re"))) {
        int err = errno;
        profile_free(&own);
        return sl_fail_errno(e, SL_EUSAGE, err, "profile %s", path);
    }
    int rc = parse_one(&c, e);
    if (c.in.f) fclose(c.in.f);
    if (rc == 0) {
        snprintf(stk->path[stk->n++], sizeof stk->path[0], "%s", path);
        rc = load_includes(d, out, &own, stk, e);
        stk->n--;
    }
    if (rc == 0) {
        char stem[PROFILE_NAME_MAX] = "";
        const char *base = strrchr(path, '/');
        snprintf(stem, sizeof stem, "%s", base ? base + 1 : path);
        if (strlen(stem) > 5 && strcmp(stem + strlen(stem) - 5, ".conf") == 0) stem[strlen(stem) - 5] = 0;
        snprintf(out->name, sizeof out->name, "%s", own.name[0] ? own.name : expect_name ? expect_name : stem);
        snprintf(out->summary, sizeof out->summary, "%s", own.summary);
        snprintf(out->include, sizeof out->include, "%s", own.include);
        snprintf(out->path, sizeof out->path, "%s", text ? "" : path);
        if (own.nmatch) {
            memcpy(out->match, own.match, sizeof out->match);
            out->nmatch = own.nmatch;
        }
        merge_into(out, &own);
    }
    profile_free(&own);
    return rc;
}

int profile_load(const struct profile_dirs *d, const char *name_or_path, struct profile *out, sl_err *e)
{
    memset(out, 0, sizeof *out);
    struct load_stack stk = { .n = 0 };
    if (strchr(name_or_path, '/')) return load_any(d, name_or_path, NULL, NULL, &stk, out, e);
    char path[PATH_MAX];
    if (profile_find(d, name_or_path, path, sizeof path, e) < 0) return -1;
    return load_any(d, path, NULL, name_or_path, &stk, out, e);
}

int profile_load_text(const struct profile_dirs *d, const char *text, const char *origin, struct profile *out,
                      sl_err *e)
{
    memset(out, 0, sizeof *out);
    struct load_stack stk = { .n = 0 };
    return load_any(d, origin, text, NULL, &stk, out, e);
}

void profile_free(struct profile *p)
{
    free(p->ent);
    for (int i = 0; i < p->nfiles; i++) free(p->files[i]);
    free(p->files);
    p->ent = NULL;
    p->files = NULL;
    p->n = p->nfiles = 0;
}

/* --- rendering --------------------------------------------------------------- */

/* A file's base name, or its whole path when two files share the name
 * (TuneD profiles are all called tuned.conf). */
static const char *provenance_name(const struct profile *p, const char *file)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    for (int i = 0; i < p->nfiles; i++) {
        const char *other = strrchr(p->files[i], '/');
        other = other ? other + 1 : p->files[i];
        if (strcmp(p->files[i], file) != 0 && strcmp(other, base) == 0) return file;
    }
    return base;
}

static void render_section(struct textbuf *b, const struct profile *p, enum prof_section sec, const char *sel,
                           bool provenance)
{
    bool header = false;
    for (int i = 0; i < p->n; i++) {
        const struct prof_entry *en = &p->ent[i];
        if (en->sec != sec || strcmp(en->selector, sel) != 0) continue;
        if (!header) {
            if (sel[0]) textbuf_printf(b, "\n[block \"%s\"]\n", sel);
            else textbuf_printf(b, "\n[%s]\n", prof_section_name(sec));
            header = true;
        }
        char v[KNOB_VALUE_MAX + 2];
        prof_entry_value_text(en, v, sizeof v);
        if (provenance) textbuf_printf(b, "%s = %s    ; %s:%d\n", en->key, v, provenance_name(p, en->file), en->line);
        else textbuf_printf(b, "%s = %s\n", en->key, v);
    }
}

/* inih reads lines of at most 198 characters: long summaries continue on
 * indented lines (which the parser joins with a space). */
static void render_summary(struct textbuf *b, const char *summary)
{
    const char *prefix = "summary = ";
    const char *s = summary;
    while (*s) {
        size_t len = strlen(s);
        if (len > 140) {
            size_t cut = 140;
            while (cut > 40 && s[cut] != ' ') cut--;
            if (s[cut] != ' ') cut = 140;
            len = cut;
        }
        textbuf_printf(b, "%s%.*s\n", prefix, (int)len, s);
        s += len;
        while (*s == ' ') s++;
        prefix = "    ";
    }
}

char *profile_render(const struct profile *p, bool provenance)
{
    struct textbuf b = { 0 };
    textbuf_printf(&b, "[profile]\nname = %s\n", p->name);
    if (p->summary[0]) render_summary(&b, p->summary);
    for (int i = 0; i < p->nmatch; i++) textbuf_printf(&b, "match = %s\n", p->match[i]);
    if (provenance && p->include[0]) textbuf_printf(&b, "; include = %s (merged below)\n", p->include);
    render_section(&b, p, PS_VM, "", provenance);
    render_section(&b, p, PS_BDFLUSH, "", provenance);
    render_section(&b, p, PS_BLOCK, "", provenance);
    for (int i = 0; i < p->n; i++) {
        const struct prof_entry *en = &p->ent[i];
        if (en->sec != PS_BLOCK || !en->selector[0]) continue;
        bool done = false;
        for (int j = 0; j < i && !done; j++)
            done = p->ent[j].sec == PS_BLOCK && strcmp(p->ent[j].selector, en->selector) == 0;
        if (!done) render_section(&b, p, PS_BLOCK, en->selector, provenance);
    }
    return textbuf_take(&b);
}
