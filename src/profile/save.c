/* save — profiles made here (the running settings, a search's winner, a
 * TuneD import), written to /etc/sluice/profiles; exports written to a file.
 * The CLI (cli_profile_io.c) and the Profiles screen both call these. */
#include "profile/save.h"
#include "profile/inilines.h"
#include "profile/quote.h"
#include "db/store_search.h"
#include "core/sysfs.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int profile_require_root_etc(const char *what, sl_err *e)
{
    if (geteuid() == 0 || !sysfs_is_real_root()) return 0;
    return sl_fail(e, SL_EPERM, "%s writes under /etc and needs root: run it with sudo (or use --root DIR)", what);
}

/* rel: the file under the root; where: its full path. */
static void saved_path(const char *name, char *rel, size_t rn, char *where, size_t wn)
{
    snprintf(rel, rn, "%s/%s.conf", PROFILE_ETC_DIR, name);
    sysfs_path(where, wn, rel);
}

bool profile_saved_exists(const char *name, char *where, size_t wn)
{
    char rel[PATH_MAX];
    saved_path(name, rel, sizeof rel, where, wn);
    return sysfs_exists(rel);
}

int profile_write(const char *name, const char *text, bool force, char *where, size_t wn, sl_err *e)
{
    struct profile back;
    struct profile_dirs none = { .n = 0 };
    char rel[PATH_MAX];
    saved_path(name, rel, sizeof rel, where, wn);
    int rc = profile_load_text(&none, text, where, &back, e);
    profile_free(&back);
    if (rc < 0) return -1;
    if (profile_require_root_etc("saving a profile", e) < 0) return -1;
    if (sysfs_exists(rel) && !force)
        return sl_fail(e, SL_EUSAGE, "%s exists: choose another name, or use --force to replace it", where);
    if (sysfs_mkdirs(PROFILE_ETC_DIR, 0755, e) < 0 || sysfs_write_file_atomic(rel, text, strlen(text), 0644, e) < 0)
        return sl_suffix(e, "Profile %s was not saved (%s is %s); fix the cause and save it again", name, where,
                         force && sysfs_exists(rel) ? "as it was" : "not there");
    return 0;
}

char *profile_file_text(const struct profile *p, const char *comment, const struct notes *nt, bool provenance)
{
    char *body = profile_render(p, provenance);
    size_t need = strlen(comment) + strlen(body) + 64;
    for (int i = 0; i < nt->n; i++) need += 4 * strlen(nt->v[i]) + 8;
    char *text = xmalloc(need);
    size_t len = (size_t)snprintf(text, need, "%s", comment);
    if (nt->n) len += (size_t)snprintf(text + len, need - len, "; Not mapped:\n");
    for (int i = 0; i < nt->n; i++) {
        char note[sizeof nt->v[0] * 4];
        quote_comment(nt->v[i], note, sizeof note);
        len += (size_t)snprintf(text + len, need - len, ";   %s\n", note);
    }
    snprintf(text + len, need - len, "%s", body);
    free(body);
    return text;
}

int profile_import_tuned_as(const char *name_or_path, const char *as, struct profile *p, struct notes *unmapped,
                            char *comment, size_t cn, sl_err *e)
{
    if (as && profile_name_check(as, e) < 0) {
        memset(p, 0, sizeof *p);
        return -1;
    }
    if (profile_import_tuned(name_or_path, p, unmapped, e) < 0) return -1;
    /* Its path goes into the saved file's first comment. */
    if (quote_check_path("TuneD profile", p->path, e) < 0) return -1;
    if (as) snprintf(p->name, sizeof p->name, "%s", as);
    snprintf(comment, cn, "; Imported by 'sluice profile import-tuned' from %s.\n", p->path);
    return 0;
}

/* --- the running settings ------------------------------------------------ */

static void save_entry(struct profile *p, struct notes *nt, enum prof_section sec, const char *sel, const char *key,
                       const char *value)
{
    struct prof_entry en = { .sec = sec, .file = p->files[0], .line = 0 };
    snprintf(en.selector, sizeof en.selector, "%s", sel);
    snprintf(en.key, sizeof en.key, "%s", key);
    sl_err ve;
    if (profile_check_entry(&en, value, &ve) < 0) notes_add(nt, "%s = %s not saved: %s", key, value, ve.msg);
    else profile_set_entry(p, &en);
}

/* Whether the half of a ratio/bytes pair d names is the one in force. */
static bool pair_half_in_force(const struct knob_def *d, const char *value)
{
    char partner[KNOB_NAME_MAX], pv[KNOB_VALUE_MAX] = "0";
    struct knob pk;
    snprintf(partner, sizeof partner, "vm.%s", d->partner);
    if (knob_lookup(partner, NULL, &pk, NULL) == 0) knob_read(&pk, pv, sizeof pv, NULL);
    bool bytes_mode = d->type == KT_BYTES ? strcmp(value, "0") != 0 : strcmp(pv, "0") != 0;
    return (d->type == KT_BYTES) == bytes_mode;
}

static void save_globals(struct profile *p, struct notes *nt)
{
    for (size_t i = 0; i < knob_table_len; i++) {
        const struct knob_def *d = &knob_table[i];
        if ((d->scope != SCOPE_VM && d->scope != SCOPE_BDFLUSH) || knob_unwritable(d)) continue;
        /* Values the hardware decides (min_free_kbytes) and unused fields stay out. */
        if (!d->def || !strncmp(d->name, "dummy", 5)) continue;
        char name[KNOB_NAME_MAX], value[KNOB_VALUE_MAX];
        snprintf(name, sizeof name, "%s%s", d->scope == SCOPE_VM ? "vm." : "vm.bdflush.", d->name);
        struct knob k;
        if (knob_lookup(name, NULL, &k, NULL) < 0 || knob_read(&k, value, sizeof value, NULL) < 0) continue;
        if (d->partner && !pair_half_in_force(d, value)) continue;
        save_entry(p, nt, d->scope == SCOPE_VM ? PS_VM : PS_BDFLUSH, "", d->name, value);
    }
}

/* A stable id for a disk, cut to its tail when the section name would pass
 * inih's limit (the serial ends an ATA wwid, so the tail stays unique).
 * The device chose the id: what the section header or the selector syntax
 * would read as syntax becomes '?', which the glob matches. */
static void device_selector(const struct device *d, char *sel, size_t n)
{
    const char *id = d->wwid[0] ? d->wwid : d->serial[0] ? d->serial : NULL;
    const char *idkey = id == d->wwid ? "wwid" : "serial";
    char glob[PROFILE_SELECTOR_MAX];
    quote_selector_glob(id ? id : d->name, glob, sizeof glob);
    size_t room = INI_SECTION_MAX - 2 - strlen("block \"\"") - strlen(idkey) - 1;
    if (!id) snprintf(sel, n, "name=%s", glob);
    else if (strlen(glob) <= room) snprintf(sel, n, "%s=%s", idkey, glob);
    else {
        const char *tail = glob + strlen(glob) - (room - 1);
        while (*tail == ' ') tail++;
        snprintf(sel, n, "%s=*%s", idkey, tail);
    }
}

static void save_device(struct profile *p, struct notes *nt, const struct device *d)
{
    char sel[PROFILE_SELECTOR_MAX];
    device_selector(d, sel, sizeof sel);
    char glob[KNOB_NAME_MAX];
    snprintf(glob, sizeof glob, "block.%s.*", d->name);
    const char *g = glob;
    struct knob *list;
    int n = knob_list(&g, 1, &list, NULL);
    for (int i = 0; i < n; i++) {
        const struct knob_def *def = list[i].def;
        if (knob_unwritable(def)) continue;
        if (def->scope == SCOPE_BLOCK && !(def->flags & KF_SEARCH)) continue;
        char value[KNOB_VALUE_MAX], key[PROFILE_KEY_MAX];
        if (knob_read(&list[i], value, sizeof value, NULL) < 0) continue;
        snprintf(key, sizeof key, "%s%s", def->scope == SCOPE_IOSCHED ? "iosched." : "", def->name);
        save_entry(p, nt, PS_BLOCK, sel, key, value);
    }
    if (n >= 0) free(list);
}

void profile_save_current(const char *name, const char *devices, struct profile *p, struct notes *nt, char *comment,
                          size_t cn)
{
    struct host_info h;
    if (host_read(&h, NULL) < 0) memset(&h, 0, sizeof h);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    profile_add_file(p, "(current settings)");
    time_t now = time(NULL);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(p->summary, sizeof p->summary, "Settings of %s (kernel %s) saved %s", h.hostname[0] ? h.hostname : "this host",
             h.kernel, when);
    save_globals(p, nt);
    struct device *devs = NULL;
    int nd = sysfs_is_dir("/sys/block") ? device_list(&devs, NULL) : 0;
    for (int i = 0; i < nd; i++) {
        bool want = devices ? fnmatch(devices, devs[i].name, 0) == 0 : profile_covers(p, &devs[i], &h);
        if (want && devs[i].has_queue) save_device(p, nt, &devs[i]);
    }
    free(devs);
    snprintf(comment, cn, "; Saved by 'sluice profile save %s' from the running kernel.\n", name);
}

/* --- a search's winner ------------------------------------------------------ */

/* One "knob=value" of a winner into the profile's section for it. */
static void save_winner_knob(struct profile *p, struct notes *nt, const char *knob, const char *value)
{
    if (!strncmp(knob, "vm.bdflush.", 11)) save_entry(p, nt, PS_BDFLUSH, "", knob + 11, value);
    else if (!strncmp(knob, "vm.", 3)) save_entry(p, nt, PS_VM, "", knob + 3, value);
    else if (!strncmp(knob, "block.", 6) || !strncmp(knob, "bdi.", 4)) {
        bool bdi = knob[0] == 'b' && knob[1] == 'd';
        const char *dev = knob + (bdi ? 4 : 6), *dot = strchr(dev, '.');
        char name[KNOB_DEV_MAX], sel[PROFILE_SELECTOR_MAX], key[PROFILE_KEY_MAX];
        struct device d;
        if (!dot) return;
        snprintf(name, sizeof name, "%.*s", (int)(dot - dev), dev);
        if (device_get(name, &d, NULL) == 0) device_selector(&d, sel, sizeof sel);
        else {
            char glob[KNOB_DEV_MAX];
            quote_selector_glob(name, glob, sizeof glob);
            snprintf(sel, sizeof sel, "name=%s", glob);
        }
        snprintf(key, sizeof key, "%s%s", bdi ? "bdi." : "", dot + 1);
        save_entry(p, nt, PS_BLOCK, sel, key, value);
    } else {
        notes_add(nt, "%s = %s: not a knob a profile holds", knob, value);
    }
}

int profile_save_search(store *st, const char *name, const char *id, struct profile *p, struct notes *nt,
                        char *comment, size_t cn, sl_err *e)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    struct search_row row;
    if (store_search_get(st, id, &row, e) < 0) return -1;
    if (strcmp(row.verdict, "win") != 0 || !row.winner_text[0])
        return sl_fail(e, SL_EUSAGE, "search %.8s has no winner (verdict: %s): nothing better than the baseline to save",
                       row.uuid, row.verdict[0] ? row.verdict : row.state);
    profile_add_file(p, "(search winner)");
    char level[24] = "";   /* a search stored before migration 014 did not keep its level */
    if (row.ci_level > 0 && row.ci_level < 1) snprintf(level, sizeof level, "%.3g%% ", 100 * row.ci_level);
    snprintf(p->summary, sizeof p->summary, "Winner of search %s: %s %s %+.1f%% [the confirmation's %sinterval %+.1f%%, %+.1f%%] on %s (workload %s)",
             row.uuid, row.objective, row.objective[0] ? "by" : "", row.improvement * 100, level, row.ci_lo * 100,
             row.ci_hi * 100, row.device[0] ? row.device : "this host", row.workload);
    char text[sizeof row.winner_text];
    snprintf(text, sizeof text, "%s", row.winner_text);
    for (char *save, *tok = strtok_r(text, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = 0;
        save_winner_knob(p, nt, tok, eq + 1);
    }
    snprintf(comment, cn, "; Saved by 'sluice profile save %s --from-search %s': the search's winner, verdict %s, Holm p=%.3g.\n",
             p->name, row.uuid, row.verdict, row.p_holm);
    return 0;
}

/* --- export ----------------------------------------------------------------- */

static const struct {
    const char *name;
    char *(*fn)(const struct profile *, const struct plan *, struct notes *);
} formats[] = {
    { "sysctl", profile_export_sysctl },
    { "udev", profile_export_udev },
    { "tuned", profile_export_tuned },
};

bool profile_export_format_valid(const char *format)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (format && strcmp(format, formats[i].name) == 0) return true;
    return false;
}

char *profile_export(const char *format, const struct profile *p, const struct plan *pl, struct notes *nt)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(format, formats[i].name) == 0) return formats[i].fn(p, pl, nt);
    return NULL;
}

int profile_export_write(const char *path, const char *text, bool force, sl_err *e)
{
    if (!path[0]) return sl_fail(e, SL_EUSAGE, "no file named: give a path to write the export to");
    if (!force && access(path, F_OK) == 0)
        return sl_fail(e, SL_EUSAGE, "%s exists: choose another file name (nothing was written)", path);
    return sysfs_write_local_atomic(path, text, strlen(text), 0644, e);
}
