/* boot — persisting a profile the way the platform expects:
 * the profile, sysctl.d, udev rules and a oneshot unit, written atomically
 * under the root, recorded in a manifest so that `boot remove` deletes
 * exactly what `boot install` wrote and nothing an administrator edited. */
#include "boot.h"
#include "profile/quote.h"
#include "sysfs.h"
#include "textbuf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *path; const char *what; } boot_files[] = {
    { BOOT_ACTIVE, "the profile 'sluice apply --boot' applies" },
    { "/etc/sysctl.d/60-sluice.conf", "vm knobs, set early by systemd-sysctl" },
    { "/etc/udev/rules.d/61-sluice.rules", "queue knobs per disk, keyed on stable ids" },
    { BOOT_UNIT, "oneshot unit: restore --crashed, then apply --boot" },
    { BOOT_UNIT_LINK, "enables the unit (symlink)" },
};
#define NFILES (sizeof boot_files / sizeof boot_files[0])

const char *boot_file_what(const char *path)
{
    for (size_t i = 0; i < NFILES; i++)
        if (strcmp(boot_files[i].path, path) == 0) return boot_files[i].what;
    return "";
}

static uint64_t fnv1a(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}

char *boot_unit_text(const char *exe, sl_err *e)
{
    char prog[PATH_MAX * 2 + 8];
    if (quote_unit_exec(exe, prog, sizeof prog, e) < 0) return NULL;
    struct textbuf b = { 0 };
    textbuf_printf(&b,
        "# sluice-apply.service: written by sluice; 'sluice boot remove' deletes it.\n"
        "[Unit]\n"
        "Description=Apply the sluice tuning profile (VM write-back and block queues)\n"
        "Documentation=man:sluice(8) man:sluice-profile(5)\n"
        "After=local-fs.target systemd-sysctl.service systemd-udevd.service\n"
        "ConditionPathExists=" BOOT_ACTIVE "\n"
        "\n"
        "[Service]\n"
        "Type=oneshot\n"
        "RemainAfterExit=yes\n"
        "# A session a crash left open is put back first; a failure there must not stop the apply.\n"
        "ExecStartPre=-%s restore --crashed\n"
        "ExecStart=%s apply --boot\n"
        "\n"
        "[Install]\n"
        "WantedBy=multi-user.target\n",
        prog, prog);
    return textbuf_take(&b);
}

/* --- manifest --------------------------------------------------------------- */

static void manifest_add(struct boot_manifest *m, const char *path, bool link, const char *target, uint64_t hash)
{
    m->e = xrealloc(m->e, sizeof *m->e * (size_t)(m->n + 1));
    struct boot_entry *be = &m->e[m->n++];
    memset(be, 0, sizeof *be);
    snprintf(be->path, sizeof be->path, "%s", path);
    be->link = link;
    snprintf(be->target, sizeof be->target, "%s", target ? target : "");
    be->hash = hash;
}

int boot_manifest_read(struct boot_manifest *m, sl_err *e)
{
    memset(m, 0, sizeof *m);
    if (!sysfs_exists(BOOT_MANIFEST)) return 1;
    char *text;
    if (sysfs_read_text(BOOT_MANIFEST, 1 << 16, &text, e) < 0) return -1;
    char *save, *line = strtok_r(text, "\n", &save);
    for (; line; line = strtok_r(NULL, "\n", &save)) {
        char path[256], extra[256];
        unsigned long long h;
        if (sscanf(line, "profile %63s", m->profile) == 1) continue;
        if (sscanf(line, "file %255s %llx", path, &h) == 2) manifest_add(m, path, false, NULL, h);
        else if (sscanf(line, "link %255s %255s", path, extra) == 2) manifest_add(m, path, true, extra, 0);
    }
    free(text);
    return 0;
}

void boot_manifest_free(struct boot_manifest *m)
{
    free(m->e);
    memset(m, 0, sizeof *m);
}

/* What is at an entry's path now, compared with what sluice wrote. */
enum boot_state boot_entry_state(const struct boot_entry *be)
{
    if (be->link) {
        char target[256];
        if (!sysfs_is_symlink(be->path)) return sysfs_exists(be->path) ? BOOT_CHANGED : BOOT_MISSING;
        if (sysfs_readlink(be->path, target, sizeof target, NULL) < 0) return BOOT_MISSING;
        return strcmp(target, be->target) == 0 ? BOOT_INTACT : BOOT_CHANGED;
    }
    if (sysfs_is_symlink(be->path)) return BOOT_CHANGED;
    char *text;
    if (!sysfs_exists(be->path)) return BOOT_MISSING;
    int len = sysfs_read_text(be->path, 1 << 20, &text, NULL);
    if (len < 0) return BOOT_CHANGED;
    uint64_t h = fnv1a(text, (size_t)len);
    free(text);
    return h == be->hash ? BOOT_INTACT : BOOT_CHANGED;
}

const char *boot_state_name(enum boot_state s)
{
    static const char *const names[] = {
        [BOOT_INTACT] = "installed", [BOOT_MISSING] = "MISSING", [BOOT_CHANGED] = "EDITED since install",
    };
    return names[s];
}

/* --- install ------------------------------------------------------------------ */

static const struct boot_entry *manifest_find(const struct boot_manifest *m, const char *path)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->e[i].path, path) == 0) return &m->e[i];
    return NULL;
}

/* A path install may overwrite: absent, or written by sluice and unedited. */
static int check_owned(const struct boot_manifest *old, const char *path, bool force, sl_err *e)
{
    if (force || (!sysfs_exists(path) && !sysfs_is_symlink(path))) return 0;
    const struct boot_entry *be = manifest_find(old, path);
    char full[512];
    sysfs_path(full, sizeof full, path);
    if (!be)
        return sl_fail(e, SL_EFAIL, "%s exists and sluice did not write it: move it away, or use --force to replace it", full);
    if (boot_entry_state(be) == BOOT_CHANGED)
        return sl_fail(e, SL_EFAIL, "%s was edited since sluice wrote it: keep your copy elsewhere, or use --force", full);
    return 0;
}

static void dirname_of(const char *path, char *dir, size_t n)
{
    snprintf(dir, n, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
}

int boot_install(const struct profile *p, const struct plan *pl, const char *exe, bool force, struct notes *nt,
                 sl_err *e)
{
    /* The profile's path goes into active.conf's first comment. */
    if (quote_check_path("profile file", p->path, e) < 0) return -1;
    char *unit = boot_unit_text(exe, e);
    if (!unit) return -1;
    struct boot_manifest old;
    if (boot_manifest_read(&old, e) < 0) {
        free(unit);
        return -1;
    }
    char *texts[4];
    char *prof = profile_render(p, false);
    struct textbuf active = { 0 };
    textbuf_printf(&active, "; Installed by 'sluice boot install %s'%s%s: 'sluice apply --boot' applies it at every boot.\n"
                            "; Change it with 'sluice boot install', not by editing this file.\n%s",
                   p->name, p->path[0] ? " from " : "", p->path, prof);
    free(prof);
    texts[0] = textbuf_take(&active);
    /* What apply --boot will read must load: check before writing anything. */
    struct profile back;
    struct profile_dirs none = { .n = 0 };
    int ok = profile_load_text(&none, texts[0], BOOT_ACTIVE, &back, e);
    profile_free(&back);
    if (ok < 0) {
        free(texts[0]);
        free(unit);
        boot_manifest_free(&old);
        return -1;
    }
    texts[1] = profile_export_sysctl(p, pl, nt);
    texts[2] = profile_export_udev(p, pl, nt);
    texts[3] = unit;
    int rc = 0;
    for (size_t i = 0; i < NFILES && rc == 0; i++) rc = check_owned(&old, boot_files[i].path, force, e);
    struct boot_manifest m = { 0 };
    snprintf(m.profile, sizeof m.profile, "%s", p->name);
    for (size_t i = 0; i < NFILES && rc == 0; i++) {
        char dir[256];
        dirname_of(boot_files[i].path, dir, sizeof dir);
        if ((rc = sysfs_mkdirs(dir, 0755, e)) < 0) break;
        if (strcmp(boot_files[i].path, BOOT_UNIT_LINK) == 0) {
            if (sysfs_is_symlink(BOOT_UNIT_LINK) || !sysfs_exists(BOOT_UNIT_LINK) || force) {
                if (!sysfs_is_symlink(BOOT_UNIT_LINK) && sysfs_exists(BOOT_UNIT_LINK) && sysfs_unlink(BOOT_UNIT_LINK, e) < 0) {
                    rc = -1;
                    break;
                }
                rc = sysfs_symlink(BOOT_UNIT, BOOT_UNIT_LINK, e);
            }
            if (rc == 0) manifest_add(&m, BOOT_UNIT_LINK, true, BOOT_UNIT, 0);
            continue;
        }
        const char *t = texts[i];
        rc = sysfs_write_file_atomic(boot_files[i].path, t, strlen(t), 0644, e);
        if (rc == 0) manifest_add(&m, boot_files[i].path, false, NULL, fnv1a(t, strlen(t)));
    }
    /* The manifest records what this run wrote, even after a failure, so
     * `boot remove` can still take it away. */
    if (m.n) {
        struct textbuf mt = { 0 };
        textbuf_printf(&mt, "# Files 'sluice boot install' wrote; 'sluice boot remove' deletes exactly these\n"
                            "# (a file edited since is left in place). Do not edit.\nprofile %s\n", m.profile);
        for (int i = 0; i < m.n; i++) {
            if (m.e[i].link) textbuf_printf(&mt, "link %s %s\n", m.e[i].path, m.e[i].target);
            else textbuf_printf(&mt, "file %s %016llx\n", m.e[i].path, (unsigned long long)m.e[i].hash);
        }
        char *mtext = textbuf_take(&mt);
        sl_err me;
        if (sysfs_write_file_atomic(BOOT_MANIFEST, mtext, strlen(mtext), 0644, &me) < 0 && rc == 0) {
            if (e) *e = me;
            rc = -1;
        }
        free(mtext);
    }
    boot_manifest_free(&m);
    boot_manifest_free(&old);
    for (int i = 0; i < 4; i++) free(texts[i]);
    return rc;
}

int boot_remove(bool force, struct boot_manifest *out, enum boot_state *states, bool *removed, sl_err *e)
{
    int rc = boot_manifest_read(out, e);
    if (rc != 0) return rc;
    int kept = 0;
    /* The enabling link first, the unit after it, the manifest last. */
    for (int i = out->n - 1; i >= 0; i--) {
        const struct boot_entry *be = &out->e[i];
        states[i] = boot_entry_state(be);
        removed[i] = false;
        if (states[i] == BOOT_MISSING) continue;
        if (states[i] == BOOT_CHANGED && !force) { kept++; continue; }
        if (sysfs_unlink(be->path, e) < 0) return -1;
        removed[i] = true;
    }
    if (kept)
        return sl_fail(e, SL_EFAIL, "%d file(s) were edited since install and were left in place (and the manifest with them): "
                                    "look at them, then remove them yourself or run 'sluice boot remove --force'", kept);
    if (sysfs_unlink(BOOT_MANIFEST, e) < 0) return -1;
    return 0;
}

/* --- sysctl.d overrides ----------------------------------------------------- */

static const char *const sysctl_dirs[] = { "/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d" };

/* Files sorting after 60-sluice.conf (sysctl.d(5): the last assignment wins)
 * or /etc/sysctl.conf (procps applies it last) that set one of our knobs. */
int boot_sysctl_overrides(const struct plan *pl, struct notes *nt)
{
    int found = 0;
    for (size_t d = 0; d <= sizeof sysctl_dirs / sizeof sysctl_dirs[0]; d++) {
        char **names = NULL;
        int n = 0;
        if (d < sizeof sysctl_dirs / sizeof sysctl_dirs[0]) {
            if (!sysfs_is_dir(sysctl_dirs[d])) continue;
            n = sysfs_list(sysctl_dirs[d], &names, NULL);
            if (n < 0) continue;
        }
        int count = d < sizeof sysctl_dirs / sizeof sysctl_dirs[0] ? n : 1;
        for (int i = 0; i < count; i++) {
            char path[512];
            if (names) {
                size_t len = strlen(names[i]);
                if (len < 6 || strcmp(names[i] + len - 5, ".conf") || strcmp(names[i], "60-sluice.conf") <= 0) continue;
                snprintf(path, sizeof path, "%s/%s", sysctl_dirs[d], names[i]);
            } else {
                snprintf(path, sizeof path, "/etc/sysctl.conf");
            }
            char *text;
            if (sysfs_read_text(path, 1 << 20, &text, NULL) < 0) continue;
            char *save, *line = strtok_r(text, "\n", &save);
            for (; line; line = strtok_r(NULL, "\n", &save)) {
                char key[128];
                if (sscanf(line, " %127[^= \t]", key) != 1 || key[0] == '#' || key[0] == ';') continue;
                for (char *c = key; *c; c++) if (*c == '/') *c = '.';
                const char *k = key[0] == '-' ? key + 1 : key;
                for (int j = 0; j < pl->n; j++)
                    if (pl->it[j].src->sec == PS_VM && strcmp(pl->it[j].knob, k) == 0) {
                        notes_add(nt, "%s sets %s after 60-sluice.conf: at boot its value wins", path, k);
                        found++;
                    }
            }
            free(text);
        }
        if (names) sysfs_names_free(names, n);
    }
    return found;
}
