/* boot — persisting a profile the way the platform expects:
 * the profile, sysctl.d, udev rules and a oneshot unit, written atomically
 * under the root, recorded in a manifest so that `boot remove` deletes
 * exactly what `boot install` wrote and nothing an administrator edited. */
#include "profile/boot.h"
#include "profile/boot_journal.h"
#include "profile/quote.h"
#include "core/sysfs.h"
#include "profile/textbuf.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *path; const char *what; } boot_files[] = {
    { BOOT_ACTIVE, "the profile 'sluice apply --boot' applies" },
    { BOOT_SYSCTL, "vm knobs, set early by systemd-sysctl" },
    { BOOT_UDEV, "queue knobs per disk, keyed on stable ids" },
    { BOOT_UNIT, "oneshot unit: restore --crashed, then apply --boot" },
    { BOOT_UNIT_LINK, "enables the unit (symlink)" },
    { "/etc/init.d/" BOOT_INITSCRIPT, "init script: restore --crashed, then apply --boot" },
    { "/etc/rc.d/init.d/" BOOT_INITSCRIPT, "init script: restore --crashed, then apply --boot" },
    { "/etc/rc.local", "runs 'sluice apply --boot' at the end of boot" },
    { "/etc/rc.d/rc.local", "runs 'sluice apply --boot' at the end of boot" },
};
#define NFILES (sizeof boot_files / sizeof boot_files[0])

const char *boot_file_what(const char *path)
{
    for (size_t i = 0; i < NFILES; i++)
        if (strcmp(boot_files[i].path, path) == 0) return boot_files[i].what;
    if (strstr(path, "/S99" BOOT_INITSCRIPT)) return "starts the init script in that runlevel (symlink)";
    return "";
}

static uint64_t fnv1a(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}

/* A boot file's text: tmpl with the quoted exe in its two %s. */
static char *exec_text(int (*quote)(const char *, char *, size_t, sl_err *), const char *tmpl, const char *exe, sl_err *e)
{
    char prog[PATH_MAX * 4 + 8];
    if (quote(exe, prog, sizeof prog, e) < 0) return NULL;
    struct textbuf b = { 0 };
    textbuf_printf(&b, tmpl, prog, prog);
    return textbuf_take(&b);
}

/* The unit's first line: the packaged unit stays when boot remove disables it. */
static const char unit_written[] = "# sluice-apply.service: written by 'sluice boot install'; 'sluice boot remove' deletes it.\n";
static const char unit_packaged[] =
    "# sluice-apply.service: shipped with sluice, not enabled: 'sluice boot install PROFILE' enables it,\n"
    "# 'sluice boot remove' disables it (the unit stays).\n";
static const char unit_template[] =
    "%s"
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
    "WantedBy=multi-user.target\n";

char *boot_unit_text(const char *exe, bool packaged, sl_err *e)
{
    char prog[PATH_MAX * 4 + 8];
    if (quote_unit_exec(exe, prog, sizeof prog, e) < 0) return NULL;
    struct textbuf b = { 0 };
    textbuf_printf(&b, unit_template, packaged ? unit_packaged : unit_written, prog, prog);
    return textbuf_take(&b);
}

static const char *const packaged_units[] = {
    "/usr/lib/systemd/system/sluice-apply.service", "/lib/systemd/system/sluice-apply.service",
    "/usr/local/lib/systemd/system/sluice-apply.service",
};

const char *boot_packaged_unit(void)
{
    for (size_t i = 0; i < sizeof packaged_units / sizeof packaged_units[0]; i++)
        if (sysfs_exists(packaged_units[i])) return packaged_units[i];
    return NULL;
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
        else if (sscanf(line, "line %255s %llx", path, &h) == 2) {
            manifest_add(m, path, false, NULL, h);
            m->e[m->n - 1].line = true;
        }
    }
    free(text);
    return 0;
}

void boot_manifest_free(struct boot_manifest *m)
{
    free(m->e);
    memset(m, 0, sizeof *m);
}

/* text without its lines whose hash is h (the line sluice added), or NULL
 * when it has none. malloc'ed. */
static char *without_line(const char *text, uint64_t h)
{
    struct textbuf b = { 0 };
    bool found = false;
    for (const char *l = text; *l;) {
        size_t len = strcspn(l, "\n");
        if (fnv1a(l, len) == h) found = true;
        else textbuf_printf(&b, "%.*s%s", (int)len, l, l[len] ? "\n" : "");
        l += len + (l[len] ? 1 : 0);
    }
    char *out = textbuf_take(&b);
    if (found) return out;
    free(out);
    return NULL;
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
    if (be->line) {
        char *rest = without_line(text, be->hash);
        free(text);
        free(rest);
        return rest ? BOOT_INTACT : BOOT_MISSING;
    }
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

/* --- which init system ------------------------------------------------------ */

enum boot_init boot_init_detect(void)
{
    if (sysfs_is_dir("/run/systemd/system")) return BOOT_INIT_SYSTEMD;
    if (sysfs_is_dir("/etc/init.d") || sysfs_is_dir("/etc/rc.d/init.d")) return BOOT_INIT_SYSV;
    if (sysfs_is_dir("/etc/systemd/system") || sysfs_exists("/lib/systemd/systemd") || sysfs_exists("/usr/lib/systemd/systemd"))
        return BOOT_INIT_SYSTEMD;
    return sysfs_is_dir("/sys/block") ? BOOT_INIT_SYSTEMD : BOOT_INIT_RCLOCAL;
}

static const char *const init_names[] = { "systemd", "sysv", "rc.local" };

const char *boot_init_name(enum boot_init i) { return init_names[i]; }

int boot_init_parse(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(init_names[i], name) == 0) return i;
    return -1;
}

/* The System V init script: LSB header for insserv/update-rc.d, start only. */
static const char initscript_template[] =
    "#!/bin/sh\n"
    "### BEGIN INIT INFO\n"
    "# Provides:          " BOOT_INITSCRIPT "\n"
    "# Required-Start:    $local_fs $remote_fs\n"
    "# Required-Stop:\n"
    "# Should-Start:      udev procps\n"
    "# Default-Start:     2 3 4 5\n"
    "# Default-Stop:\n"
    "# Short-Description: Apply the sluice tuning profile (VM write-back and block queues)\n"
    "### END INIT INFO\n"
    "# Written by 'sluice boot install'; 'sluice boot remove' deletes it.\n"
    "case \"$1\" in\n"
    "start|restart|force-reload)\n"
    "    [ -f " BOOT_ACTIVE " ] || exit 0\n"
    "    # A session a crash left open is put back first; a failure there must not stop the apply.\n"
    "    %s restore --crashed\n"
    "    exec %s apply --boot ;;\n"
    "stop|status) exit 0 ;;\n"
    "*) echo \"usage: $0 start\" >&2; exit 3 ;;\n"
    "esac\n";

static const char rclocal_template[] =
    "[ -f " BOOT_ACTIVE " ] && { %s restore --crashed; %s apply --boot; } || true   # sluice boot install";

/* Whether an exported file sets anything (a line that is not a comment). */
static bool has_setting(const char *text)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (*l != '#' && *l != '\n') return true;
    return false;
}

/* Take away what one manifest entry installed: its file or link, or for
 * a line only that line (the administrator's file stays). */
static int remove_entry(const struct boot_entry *be, sl_err *e)
{
    if (!be->line) return sysfs_unlink(be->path, e);
    char *text, *rest;
    if (sysfs_read_text(be->path, 1 << 20, &text, e) < 0) return -1;
    rest = without_line(text, be->hash);
    free(text);
    int rc = rest ? sysfs_write_file_atomic(be->path, rest, strlen(rest), 0755, e) : 0;
    free(rest);
    return rc;
}

/* --- what install writes ---------------------------------------------------- */

/* One thing install writes: a file (text), a symlink (target), or a line
 * added to an existing file (rc.local). */
struct output {
    char path[256];
    char *text;
    const char *target;
    mode_t mode;
    bool line;
};

struct outputs {
    struct output v[16];
    int n;
};

static void out_add(struct outputs *o, const char *path, char *text, const char *target, mode_t mode, bool line)
{
    struct output *x = &o->v[o->n++];
    snprintf(x->path, sizeof x->path, "%s", path);
    x->text = text;
    x->target = target;
    x->mode = mode;
    x->line = line;
}

/* "exit 0" ends Debian's rc.local: the line goes before it. The file's
 * text with line added, malloc'ed. */
static char *with_line(const char *file, const char *line)
{
    struct textbuf b = { 0 };
    const char *end = file + strlen(file);
    const char *last = NULL;
    for (const char *l = file; l < end; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : end)
        if (strncmp(l, "exit 0", 6) == 0) last = l;
    if (!last) last = end;
    textbuf_printf(&b, "%.*s%s%s\n%s", (int)(last - file), file, last > file && last[-1] != '\n' ? "\n" : "", line, last);
    return textbuf_take(&b);
}

/* The rc.local of the root: Red Hat's lives in /etc/rc.d. */
static const char *rclocal_path(void) { return sysfs_is_dir("/etc/rc.d") ? "/etc/rc.d/rc.local" : "/etc/rc.local"; }

static void plan_init_outputs(struct outputs *o, const struct boot_manifest *old, enum boot_init init, char *unit,
                              char *script, char *line)
{
    if (init == BOOT_INIT_SYSTEMD) {
        /* The package's unit is enabled as systemctl enable does; a copy
         * in /etc would shadow it, and outlive the package. */
        const char *packaged = boot_packaged_unit();
        if (packaged) {
            free(unit);
        } else {
            out_add(o, BOOT_UNIT, unit, NULL, 0644, false);
        }
        out_add(o, BOOT_UNIT_LINK, NULL, packaged ? packaged : BOOT_UNIT, 0, false);
        free(script);
        free(line);
    } else if (init == BOOT_INIT_SYSV) {
        const char *base = sysfs_is_dir("/etc/rc.d/init.d") && !sysfs_is_dir("/etc/init.d") ? "/etc/rc.d" : "/etc";
        char path[256];
        snprintf(path, sizeof path, "%s/init.d/" BOOT_INITSCRIPT, base);
        out_add(o, path, script, NULL, 0755, false);
        /* Runlevels 2-5 where the root has them (rc2.d at least), unless
         * update-rc.d links the script (boot_install_as, once it is in place). */
        for (int level = 2; level <= 5 && !(strcmp(base, "/etc") == 0 && boot_update_rc_d_present()); level++) {
            snprintf(path, sizeof path, "%s/rc%d.d", base, level);
            if (!sysfs_is_dir(path) && level != 2) continue;
            snprintf(path, sizeof path, "%s/rc%d.d/S99" BOOT_INITSCRIPT, base, level);
            out_add(o, path, NULL, "../init.d/" BOOT_INITSCRIPT, 0, false);
        }
        free(unit);
        free(line);
    } else {
        const char *rc = rclocal_path();
        char *text = NULL;
        /* An rc.local an earlier install created (whole, unedited) is sluice's
         * own: written whole again, not given a line. */
        const struct boot_entry *mine = manifest_find(old, rc);
        bool own = mine && !mine->line && boot_entry_state(mine) == BOOT_INTACT;
        bool exists = !own && sysfs_exists(rc) && sysfs_read_text(rc, 1 << 20, &text, NULL) >= 0;
        if (exists) {
            /* A reinstall replaces the line it added before. */
            char *rest = without_line(text, fnv1a(line, strlen(line)));
            out_add(o, rc, with_line(rest ? rest : text, line), NULL, 0755, true);
            free(rest);
            free(text);
            /* The line itself is what the manifest keeps: o->v[].target holds it. */
            o->v[o->n - 1].target = line;
        } else {
            struct textbuf b = { 0 };
            textbuf_printf(&b, "#!/bin/sh\n# rc.local: run at the end of boot. Written by 'sluice boot install'.\n%s\nexit 0\n", line);
            out_add(o, rc, textbuf_take(&b), NULL, 0755, false);
            free(line);
        }
        free(unit);
        free(script);
    }
}

/* --- all or nothing ------------------------------------------------------- */

/* What install will change, staged first: each new text or link written to
 * a temporary beside its path, each stale file to remove noted, the
 * manifest last. Only once everything is staged is the install decided
 * (boot_journal_decide) and the temporaries renamed into place, so a
 * failure or a kill before that changes nothing, and one after it is
 * finished by the next boot command. */
static struct boot_step *next_step(struct boot_journal *j, const char *path, sl_err *e)
{
    if (j->n == (int)(sizeof j->v / sizeof j->v[0])) {
        sl_fail(e, SL_EFAIL, "too many files to install");
        return NULL;
    }
    struct boot_step *st = &j->v[j->n];
    memset(st, 0, sizeof *st);
    snprintf(st->path, sizeof st->path, "%s", path);
    return st;
}

/* Stage text for path (NULL: path is to be removed). Its directory was
 * planned by boot_journal_begin. */
static int stage_text(struct boot_journal *j, const char *path, const char *text, mode_t mode, sl_err *e)
{
    char dir[256];
    dirname_of(path, dir, sizeof dir);
    struct boot_step *st = next_step(j, path, e);
    if (!st || sysfs_mkdirs(dir, 0755, e) < 0) return -1;
    int rc = text ? sysfs_stage_file(path, text, strlen(text), mode, st->tmp, sizeof st->tmp, e) : 0;
    if (rc == 0) j->n++;
    return rc;
}

static int stage_output(struct boot_journal *j, const struct output *x, bool force, struct boot_manifest *m, sl_err *e)
{
    if (!x->text) {
        if (sysfs_is_symlink(x->path) || !sysfs_exists(x->path) || force) {
            char dir[256];
            dirname_of(x->path, dir, sizeof dir);
            struct boot_step *st = next_step(j, x->path, e);
            if (!st || sysfs_mkdirs(dir, 0755, e) < 0 || sysfs_stage_symlink(x->target, x->path, st->tmp, sizeof st->tmp, e) < 0)
                return -1;
            j->n++;
        }
        manifest_add(m, x->path, true, x->target, 0);
        return 0;
    }
    if (stage_text(j, x->path, x->text, x->mode, e) < 0) return -1;
    manifest_add(m, x->path, false, NULL, fnv1a(x->line ? x->target : x->text, strlen(x->line ? x->target : x->text)));
    m->e[m->n - 1].line = x->line;
    return 0;
}

/* What an earlier install wrote that this one does not (another init
 * system, a profile without vm or queue knobs): removed while unedited, so
 * no stale sysctl.d file or unit is left to apply old values at boot; a
 * line sluice added goes from its file (staged as the file without it). */
static int stage_stale(struct boot_journal *j, const struct boot_manifest *old, const struct boot_manifest *now, bool force,
                       struct notes *nt, sl_err *e)
{
    for (int i = 0; i < old->n; i++) {
        const struct boot_entry *be = &old->e[i];
        if (manifest_find(now, be->path)) continue;
        enum boot_state st = boot_entry_state(be);
        if (st == BOOT_MISSING) continue;
        if (st == BOOT_CHANGED && !force) {
            notes_add(nt, "%s, from the last install, was edited since: left in place", be->path);
            continue;
        }
        if (!be->line) {
            if (stage_text(j, be->path, NULL, 0, e) < 0) return -1;
            continue;
        }
        char *text, *rest;
        if (sysfs_read_text(be->path, 1 << 20, &text, e) < 0) return -1;
        rest = without_line(text, be->hash);
        free(text);
        int rc = rest ? stage_text(j, be->path, rest, 0755, e) : 0;
        free(rest);
        if (rc < 0) return -1;
    }
    return 0;
}

static char *manifest_text(const struct boot_manifest *m)
{
    struct textbuf mt = { 0 };
    textbuf_printf(&mt, "# Files 'sluice boot install' wrote; 'sluice boot remove' deletes exactly these\n"
                        "# (a file edited since is left in place). Do not edit.\nprofile %s\n", m->profile);
    for (int i = 0; i < m->n; i++) {
        if (m->e[i].link) textbuf_printf(&mt, "link %s %s\n", m->e[i].path, m->e[i].target);
        else textbuf_printf(&mt, "%s %s %016llx\n", m->e[i].line ? "line" : "file", m->e[i].path,
                            (unsigned long long)m->e[i].hash);
    }
    return textbuf_take(&mt);
}

/* Stage everything, decide, then finish; on a failure before the decision,
 * nothing under the root has changed and the temporaries are gone. */
static int install_outputs(const struct outputs *o, const struct boot_manifest *old, bool force, struct notes *nt,
                           struct boot_manifest *m, sl_err *e)
{
    struct boot_journal *j = xcalloc(1, sizeof *j);
    snprintf(j->profile, sizeof j->profile, "%s", m->profile);
    const char *paths[sizeof o->v / sizeof o->v[0]];
    for (int i = 0; i < o->n; i++) paths[i] = o->v[i].path;
    int rc = boot_journal_begin(j, paths, o->n, e);
    if (rc < 0) {
        free(j);
        return -1;
    }
    for (int i = 0; i < o->n && rc == 0; i++) rc = stage_output(j, &o->v[i], force, m, e);
    if (rc == 0) rc = stage_stale(j, old, m, force, nt, e);
    if (rc == 0) {
        char *text = manifest_text(m);
        rc = stage_text(j, BOOT_MANIFEST, text, 0644, e);
        free(text);
    }
    if (rc == 0) rc = boot_journal_decide(j, e);
    char etc[512];
    sysfs_path(etc, sizeof etc, "/etc");
    if (rc < 0) {
        boot_journal_undo(j, NULL);
        char kept[128] = "";
        if (old->profile[0]) snprintf(kept, sizeof kept, "; '%s' stays the boot profile", old->profile);
        sl_suffix(e, "Nothing was installed: the files under %s are as they were%s (the temporary files are "
                  "removed); fix the cause and run 'sluice boot install %s' again", etc, kept, m->profile);
    } else if ((rc = boot_journal_finish(j, e)) < 0) {
        sl_suffix(e, "The install stopped part-way, after it was decided: %s names what is left to do, and the next "
                  "'sluice boot' command (status, install or remove) finishes it once the cause is fixed", BOOT_JOURNAL);
    }
    free(j);
    return rc;
}

/* active.conf's text, checked to load back as apply --boot will read it. */
static char *active_text(const struct profile *p, sl_err *e)
{
    char *prof = profile_render(p, false);
    struct textbuf active = { 0 };
    textbuf_printf(&active, "; Installed by 'sluice boot install %s'%s%s: 'sluice apply --boot' applies it at every boot.\n"
                            "; Change it with 'sluice boot install', not by editing this file.\n%s",
                   p->name, p->path[0] ? " from " : "", p->path, prof);
    free(prof);
    char *text = textbuf_take(&active);
    struct profile back;
    struct profile_dirs none = { .n = 0 };
    int ok = profile_load_text(&none, text, BOOT_ACTIVE, &back, e);
    profile_free(&back);
    if (ok < 0) {
        free(text);
        return NULL;
    }
    return text;
}

static bool lists_init_script(const struct boot_manifest *m)
{
    return manifest_find(m, "/etc/init.d/" BOOT_INITSCRIPT) != NULL;
}

/* update-rc.d links the script an install wrote, or takes away the links
 * of the one a former install wrote and this one removed. */
static int link_init_script(const struct boot_manifest *old, const struct boot_manifest *now, struct notes *nt,
                            sl_err *e)
{
    if (!boot_update_rc_d_present()) return 0;
    const char *action = lists_init_script(now) ? "defaults" : lists_init_script(old) ? "remove" : NULL;
    if (!action) return 0;
    if (boot_update_rc_d(action, e) == 0) {
        notes_add(nt, "update-rc.d %s the init script's runlevel links", strcmp(action, "defaults") == 0 ? "made" : "removed");
        return 0;
    }
    return sl_suffix(e, "%s: run it yourself once the cause is fixed", strcmp(action, "defaults") == 0
                     ? "The files are installed but the init script is not linked into its runlevels"
                     : "The old init script is removed but its runlevel links are left");
}

int boot_install(const struct profile *p, const struct plan *pl, const char *exe, bool force, struct notes *nt,
                 sl_err *e)
{
    return boot_install_as(p, pl, exe, force, boot_init_detect(), nt, e);
}

int boot_install_as(const struct profile *p, const struct plan *pl, const char *exe, bool force, enum boot_init init,
                    struct notes *nt, sl_err *e)
{
    /* The profile's path goes into active.conf's first comment. */
    if (quote_check_path("profile file", p->path, e) < 0) return -1;
    char *unit = boot_unit_text(exe, false, e), *script = unit ? exec_text(quote_shell_word, initscript_template, exe, e) : NULL;
    char *line = script ? exec_text(quote_shell_word, rclocal_template, exe, e) : NULL;
    char *active = line ? active_text(p, e) : NULL;
    struct boot_manifest old;
    if (!active || boot_manifest_read(&old, e) < 0) {
        free(unit), free(script), free(line), free(active);
        return -1;
    }
    struct outputs o = { .n = 0 };
    out_add(&o, BOOT_ACTIVE, active, NULL, 0644, false);
    char *sysctl = profile_export_sysctl(p, pl, nt), *udev = profile_export_udev(p, pl, nt);
    /* sysctl.d where the root reads it (systemd-sysctl, procps's init script). */
    if (has_setting(sysctl) && (init == BOOT_INIT_SYSTEMD || sysfs_is_dir("/etc/sysctl.d")))
        out_add(&o, BOOT_SYSCTL, sysctl, NULL, 0644, false);
    else {
        if (has_setting(sysctl)) notes_add(nt, "no sysctl.d on this root: 'sluice apply --boot' sets the vm knobs");
        free(sysctl);
    }
    if (has_setting(udev) && sysfs_is_dir("/sys/block")) out_add(&o, BOOT_UDEV, udev, NULL, 0644, false);
    else free(udev);
    plan_init_outputs(&o, &old, init, unit, script, line);
    int rc = 0;
    for (int i = 0; i < o.n && rc == 0; i++)
        if (!o.v[i].line) rc = check_owned(&old, o.v[i].path, force, e);
    struct boot_manifest m = { 0 };
    snprintf(m.profile, sizeof m.profile, "%s", p->name);
    if (rc == 0) rc = install_outputs(&o, &old, force, nt, &m, e);
    if (rc == 0) rc = link_init_script(&old, &m, nt, e);
    for (int i = 0; i < o.n; i++) {
        free(o.v[i].text);
        if (o.v[i].line) free((char *)o.v[i].target);
    }
    boot_manifest_free(&m);
    boot_manifest_free(&old);
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
        if (remove_entry(be, e) < 0) return -1;
        removed[i] = true;
    }
    if (lists_init_script(out) && !sysfs_exists("/etc/init.d/" BOOT_INITSCRIPT) && boot_update_rc_d_present() &&
        boot_update_rc_d("remove", e) < 0)
        return sl_suffix(e, "The init script is removed but its runlevel links are left: run it yourself");
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
