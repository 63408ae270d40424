/* cli_profile_io — profiles in and out: `profile export` (sysctl.d, udev,
 * TuneD), `profile save` and `profile import-tuned`. */
#include "cli_profile.h"
#include "profile/inilines.h"
#include "sysfs.h"
#include "store_search.h"

#include <fnmatch.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

int cli_profile_export(struct cli_ctx *ctx, int argc, char **argv)
{
    struct sub_opts o;
    if (cli_profile_opts("export", argc, argv, &o, 1, 1)) return SL_EUSAGE;
    if (!o.format || (strcmp(o.format, "sysctl") && strcmp(o.format, "udev") && strcmp(o.format, "tuned")))
        return cli_usage("profile", "export: give --format sysctl, udev or tuned");
    struct profile p;
    struct plan pl;
    sl_err e;
    if (cli_profile_plan(o.dirs, argv[optind], &p, &pl, &e) < 0) return cli_error(&e);
    struct notes nt = { 0 };
    char *text = !strcmp(o.format, "sysctl") ? profile_export_sysctl(&p, &pl, &nt)
                 : !strcmp(o.format, "udev") ? profile_export_udev(&p, &pl, &nt)
                                             : profile_export_tuned(&p, &pl, &nt);
    fputs(text, stdout);
    fflush(stdout);
    for (int i = 0; i < nt.n; i++) fprintf(stderr, "sluice: note: %s\n", nt.v[i]);
    free(text);
    notes_free(&nt);
    plan_free(&pl);
    profile_free(&p);
    return 0;
}


/* Write a profile text to /etc/sluice/profiles/NAME.conf (under the root),
 * after checking that it loads. */
static int write_profile(const char *name, const char *text, bool force, char *where, size_t wn, sl_err *e)
{
    struct profile back;
    struct profile_dirs none = { .n = 0 };
    char rel[256];
    snprintf(rel, sizeof rel, "%s/%s.conf", PROFILE_ETC_DIR, name);
    sysfs_path(where, wn, rel);
    int rc = profile_load_text(&none, text, where, &back, e);
    profile_free(&back);
    if (rc < 0) return -1;
    if (cli_require_root_etc("saving a profile", e) < 0) return -1;
    if (sysfs_exists(rel) && !force)
        return sl_fail(e, SL_EUSAGE, "%s exists: choose another name, or use --force to replace it", where);
    if (sysfs_mkdirs(PROFILE_ETC_DIR, 0755, e) < 0) return -1;
    return sysfs_write_file_atomic(rel, text, strlen(text), 0644, e);
}

static char *with_header(const char *comment, const struct notes *nt, const char *body)
{
    size_t need = strlen(comment) + strlen(body) + 64;
    for (int i = 0; i < nt->n; i++) need += strlen(nt->v[i]) + 8;
    char *text = xmalloc(need);
    size_t len = (size_t)snprintf(text, need, "%s", comment);
    if (nt->n) len += (size_t)snprintf(text + len, need - len, "; Not mapped:\n");
    for (int i = 0; i < nt->n; i++) len += (size_t)snprintf(text + len, need - len, ";   %s\n", nt->v[i]);
    snprintf(text + len, need - len, "%s", body);
    return text;
}

int cli_profile_import_tuned(struct cli_ctx *ctx, int argc, char **argv)
{
    struct sub_opts o;
    if (cli_profile_opts("import-tuned", argc, argv, &o, 1, 1)) return SL_EUSAGE;
    if (o.as && !profile_name_valid(o.as)) return cli_usage("profile", "import-tuned: --as %s is not a profile name", o.as);
    struct profile p;
    struct notes nt = { 0 };
    sl_err e;
    if (profile_import_tuned(argv[optind], &p, &nt, &e) < 0) {
        profile_free(&p);
        notes_free(&nt);
        return cli_error(&e);
    }
    if (o.as) snprintf(p.name, sizeof p.name, "%s", o.as);
    char comment[PATH_MAX + 128];
    snprintf(comment, sizeof comment, "; Imported by 'sluice profile import-tuned' from %s.\n", p.path);
    char *body = profile_render(&p, true), *text = with_header(comment, &nt, body);
    int rc = 0;
    char where[PATH_MAX];
    if (o.stdout_only) {
        fputs(text, stdout);
    } else if (write_profile(p.name, text, o.force, where, sizeof where, &e) < 0) {
        rc = cli_error(&e);
    } else {
        printf("imported TuneD profile %s as %s: %d setting(s) mapped, %d not\n", p.path, p.name, p.n, nt.n);
        for (int i = 0; i < nt.n; i++) printf("  not mapped: %s\n", nt.v[i]);
        printf("wrote %s; 'sluice profile diff %s' compares it with this machine\n", where, p.name);
    }
    if (o.stdout_only)
        for (int i = 0; i < nt.n; i++) fprintf(stderr, "sluice: not mapped: %s\n", nt.v[i]);
    free(body);
    free(text);
    notes_free(&nt);
    profile_free(&p);
    return rc;
}

/* --- save -------------------------------------------------------------------- */

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

static void save_globals(struct profile *p, struct notes *nt)
{
    for (size_t i = 0; i < knob_table_len; i++) {
        const struct knob_def *d = &knob_table[i];
        if ((d->scope != SCOPE_VM && d->scope != SCOPE_BDFLUSH) || (d->flags & (KF_RO | KF_DESTRUCTIVE))) continue;
        /* Values the hardware decides (min_free_kbytes) and unused fields stay out. */
        if (!d->def || !strncmp(d->name, "dummy", 5)) continue;
        char name[KNOB_NAME_MAX], value[KNOB_VALUE_MAX];
        snprintf(name, sizeof name, "%s%s", d->scope == SCOPE_VM ? "vm." : "vm.bdflush.", d->name);
        struct knob k;
        if (knob_lookup(name, NULL, &k, NULL) < 0 || knob_read(&k, value, sizeof value, NULL) < 0) continue;
        if (d->partner) {
            /* Only the half of a ratio/bytes pair that is in force. */
            char partner[KNOB_NAME_MAX], pv[KNOB_VALUE_MAX] = "0";
            struct knob pk;
            snprintf(partner, sizeof partner, "vm.%s", d->partner);
            if (knob_lookup(partner, NULL, &pk, NULL) == 0) knob_read(&pk, pv, sizeof pv, NULL);
            bool bytes_mode = d->type == KT_BYTES ? strcmp(value, "0") != 0 : strcmp(pv, "0") != 0;
            if ((d->type == KT_BYTES) != bytes_mode) continue;
        }
        save_entry(p, nt, d->scope == SCOPE_VM ? PS_VM : PS_BDFLUSH, "", d->name, value);
    }
}

/* A stable id for a disk, cut to its tail when the section name would pass
 * inih's limit (the serial ends an ATA wwid, so the tail stays unique). */
static void device_selector(const struct device *d, char *sel, size_t n)
{
    const char *id = d->wwid[0] && !strpbrk(d->wwid, ",=*?[") ? d->wwid : d->serial[0] && !strpbrk(d->serial, ",=*?[") ? d->serial : NULL;
    const char *idkey = id == d->wwid ? "wwid" : "serial";
    size_t room = INI_SECTION_MAX - 2 - strlen("block \"\"") - strlen(idkey) - 1;
    if (!id) snprintf(sel, n, "name=%s", d->name);
    else if (strlen(id) <= room) snprintf(sel, n, "%s=%s", idkey, id);
    else {
        const char *tail = id + strlen(id) - (room - 1);
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
        if (def->flags & (KF_RO | KF_DESTRUCTIVE) || def->type == KT_FACT) continue;
        if (def->scope == SCOPE_BLOCK && !(def->flags & KF_SEARCH)) continue;
        char value[KNOB_VALUE_MAX], key[PROFILE_KEY_MAX];
        if (knob_read(&list[i], value, sizeof value, NULL) < 0) continue;
        snprintf(key, sizeof key, "%s%s", def->scope == SCOPE_IOSCHED ? "iosched." : "", def->name);
        save_entry(p, nt, PS_BLOCK, sel, key, value);
    }
    if (n >= 0) free(list);
}

/* The winner of a stored search: its knobs only, each disk's under a
 * selector on its stable id. */
static int save_from_search(struct cli_ctx *ctx, struct profile *p, struct notes *nt, const char *id, char *comment,
                            size_t cn, sl_err *e)
{
    store *st = cli_store(ctx, e);
    if (!st) return -1;
    struct search_row row;
    if (store_search_get(st, id, &row, e) < 0) return -1;
    if (strcmp(row.verdict, "win") != 0 || !row.winner_text[0])
        return sl_fail(e, SL_EUSAGE, "search %.8s has no winner (verdict: %s): nothing better than the baseline to save",
                       row.uuid, row.verdict[0] ? row.verdict : row.state);
    const char *file = profile_add_file(p, "(search winner)");
    snprintf(p->summary, sizeof p->summary, "Winner of search %s: %s %s %+.1f%% [95%% CI %+.1f%%, %+.1f%%] on %s (workload %s)",
             row.uuid, row.objective, row.objective[0] ? "by" : "", row.improvement * 100, row.ci_lo * 100, row.ci_hi * 100,
             row.device[0] ? row.device : "this host", row.workload);
    char text[sizeof row.winner_text];
    snprintf(text, sizeof text, "%s", row.winner_text);
    for (char *save, *tok = strtok_r(text, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = 0;
        const char *knob = tok, *value = eq + 1;
        if (!strncmp(knob, "vm.bdflush.", 11)) save_entry(p, nt, PS_BDFLUSH, "", knob + 11, value);
        else if (!strncmp(knob, "vm.", 3)) save_entry(p, nt, PS_VM, "", knob + 3, value);
        else if (!strncmp(knob, "block.", 6) || !strncmp(knob, "bdi.", 4)) {
            bool bdi = knob[0] == 'b' && knob[1] == 'd';
            const char *dev = knob + (bdi ? 4 : 6), *dot = strchr(dev, '.');
            char name[KNOB_DEV_MAX], sel[PROFILE_SELECTOR_MAX], key[PROFILE_KEY_MAX];
            struct device d;
            if (!dot) continue;
            snprintf(name, sizeof name, "%.*s", (int)(dot - dev), dev);
            if (device_get(name, &d, NULL) == 0) device_selector(&d, sel, sizeof sel);
            else snprintf(sel, sizeof sel, "name=%s", name);
            snprintf(key, sizeof key, "%s%s", bdi ? "bdi." : "", dot + 1);
            save_entry(p, nt, PS_BLOCK, sel, key, value);
        } else {
            notes_add(nt, "%s = %s: not a knob a profile holds", knob, value);
        }
    }
    (void)file;
    snprintf(comment, cn, "; Saved by 'sluice profile save %s --from-search %s': the search's winner, verdict %s, Holm p=%.3g.\n",
             p->name, row.uuid, row.verdict, row.p_holm);
    return 0;
}

int cli_profile_save(struct cli_ctx *ctx, int argc, char **argv)
{
    struct sub_opts o;
    if (cli_profile_opts("save", argc, argv, &o, 1, 1)) return SL_EUSAGE;
    const char *name = argv[optind];
    if (!profile_name_valid(name)) return cli_usage("profile", "save: \"%s\" is not a profile name (letters, digits, _ . + -)", name);
    sl_err e;
    struct profile p = { 0 };
    struct notes nt = { 0 };
    struct host_info h;
    if (host_read(&h, NULL) < 0) memset(&h, 0, sizeof h);
    snprintf(p.name, sizeof p.name, "%s", name);
    char comment[512];
    if (o.from_search) {
        if (save_from_search(ctx, &p, &nt, o.from_search, comment, sizeof comment, &e) < 0) {
            profile_free(&p);
            notes_free(&nt);
            return cli_error(&e);
        }
    } else {
        profile_add_file(&p, "(current settings)");
        time_t now = time(NULL);
        char when[32];
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        snprintf(p.summary, sizeof p.summary, "Settings of %s (kernel %s) saved %s", h.hostname[0] ? h.hostname : "this host",
                 h.kernel, when);
        save_globals(&p, &nt);
        struct device *devs = NULL;
        int nd = sysfs_is_dir("/sys/block") ? device_list(&devs, NULL) : 0;
        for (int i = 0; i < nd; i++) {
            bool want = o.devices ? fnmatch(o.devices, devs[i].name, 0) == 0 : profile_covers(&p, &devs[i], &h);
            if (want && devs[i].has_queue) save_device(&p, &nt, &devs[i]);
        }
        free(devs);
        snprintf(comment, sizeof comment, "; Saved by 'sluice profile save %s' from the running kernel.\n", name);
    }
    if (o.summary) snprintf(p.summary, sizeof p.summary, "%s", o.summary);
    char *body = profile_render(&p, false), *text = with_header(comment, &nt, body);
    int rc = 0;
    char where[PATH_MAX];
    if (o.stdout_only) fputs(text, stdout);
    else if (write_profile(name, text, o.force, where, sizeof where, &e) < 0) rc = cli_error(&e);
    else printf("saved %d setting(s) as profile %s in %s\n", p.n, name, where);
    for (int i = 0; i < nt.n; i++) fprintf(stderr, "sluice: note: %s\n", nt.v[i]);
    free(body);
    free(text);
    notes_free(&nt);
    profile_free(&p);
    return rc;
}
