/* boot_journal — the intent journal of `boot install`, and the settling
 * every boot command does first (see boot_journal.h). */
#include "profile/boot_journal.h"
#include "profile/boot.h"
#include "core/sysfs.h"
#include "profile/textbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void dir_of(const char *path, char *dir, size_t n)
{
    snprintf(dir, n, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
}

/* Every place a boot file lives; the temporaries beside them are
 * ".NAME.PID.N.tmp". Same directories together: each is listed once. */
static const char *const boot_paths[] = {
    BOOT_ACTIVE, BOOT_MANIFEST, BOOT_JOURNAL, BOOT_SYSCTL, BOOT_UDEV, BOOT_UNIT, BOOT_UNIT_LINK,
    "/etc/init.d/" BOOT_INITSCRIPT, "/etc/rc.d/init.d/" BOOT_INITSCRIPT, "/etc/rc.local", "/etc/rc.d/rc.local",
    "/etc/rc2.d/S99" BOOT_INITSCRIPT, "/etc/rc3.d/S99" BOOT_INITSCRIPT, "/etc/rc4.d/S99" BOOT_INITSCRIPT,
    "/etc/rc5.d/S99" BOOT_INITSCRIPT, "/etc/rc.d/rc2.d/S99" BOOT_INITSCRIPT, "/etc/rc.d/rc3.d/S99" BOOT_INITSCRIPT,
    "/etc/rc.d/rc4.d/S99" BOOT_INITSCRIPT, "/etc/rc.d/rc5.d/S99" BOOT_INITSCRIPT,
};
#define NPATHS (sizeof boot_paths / sizeof boot_paths[0])

/* The pid in name when it is a temporary of a boot file of dir, else 0. */
static long temp_pid(const char *dir, const char *name)
{
    for (size_t i = 0; i < NPATHS; i++) {
        const char *slash = strrchr(boot_paths[i], '/');
        size_t dl = (size_t)(slash - boot_paths[i]), bl = strlen(slash + 1);
        if (strncmp(boot_paths[i], dir, dl) != 0 || dir[dl] != 0) continue;
        if (name[0] != '.' || strncmp(name + 1, slash + 1, bl) != 0 || name[1 + bl] != '.') continue;
        char *end;
        long pid = strtol(name + 2 + bl, &end, 10);
        if (pid <= 0 || *end != '.') continue;
        strtol(end + 1, &end, 10);
        if (strcmp(end, ".tmp") == 0) return pid;
    }
    return 0;
}

static bool boot_path(const char *path)
{
    for (size_t i = 0; i < NPATHS; i++)
        if (strcmp(boot_paths[i], path) == 0) return true;
    return false;
}

/* A directory a boot file lives in, or one above it. */
static bool boot_dir(const char *dir)
{
    size_t len = strlen(dir);
    for (size_t i = 0; i < NPATHS; i++)
        if (strncmp(boot_paths[i], dir, len) == 0 && boot_paths[i][len] == '/') return true;
    return false;
}

/* --- the journal's text ------------------------------------------------------ */

static char *journal_text(const struct boot_journal *j)
{
    struct textbuf b = { 0 };
    textbuf_printf(&b, "# A 'sluice boot install' under way, or killed: the next 'sluice boot' command\n"
                       "# finishes it (once decided) or undoes it. Do not edit.\n"
                       "pid %ld %lld\nprofile %s\n", j->pid, j->started_s, j->profile);
    for (int i = 0; i < j->nmade; i++) textbuf_printf(&b, "dir %s\n", j->made[i]);
    if (j->decided) textbuf_printf(&b, "decided\n");
    for (int i = 0; j->decided && i < j->n; i++) {
        const char *base = strrchr(j->v[i].tmp, '/');
        if (j->v[i].tmp[0]) textbuf_printf(&b, "put %s %s\n", j->v[i].path, base ? base + 1 : j->v[i].tmp);
        else textbuf_printf(&b, "drop %s\n", j->v[i].path);
    }
    return textbuf_take(&b);
}

/* One line of the journal into j; false for a line sluice does not write. */
static bool parse_line(struct boot_journal *j, const char *line)
{
    char path[256], base[128];
    if (line[0] == '#' || sscanf(line, "pid %ld %lld", &j->pid, &j->started_s) == 2 ||
        sscanf(line, "profile %63s", j->profile) == 1)
        return true;
    if (strcmp(line, "decided") == 0) return (j->decided = true);
    if (sscanf(line, "dir %255s", path) == 1 && boot_dir(path) && j->nmade < (int)(sizeof j->made / sizeof j->made[0])) {
        snprintf(j->made[j->nmade++], sizeof j->made[0], "%s", path);
        return true;
    }
    if (j->n == (int)(sizeof j->v / sizeof j->v[0])) return false;
    struct boot_step *st = &j->v[j->n];
    /* Only boot files, and only their own temporaries, whoever wrote this. */
    if (sscanf(line, "drop %255s", st->path) == 1 && boot_path(st->path)) {
        st->tmp[0] = 0;
        j->n++;
        return true;
    }
    if (sscanf(line, "put %255s %127s", st->path, base) != 2 || !boot_path(st->path)) return false;
    char dir[256], full[PATH_MAX];
    dir_of(st->path, dir, sizeof dir);
    if (!temp_pid(dir, base) || sysfs_path(full, sizeof full, dir) != 0) return false;
    snprintf(st->tmp, sizeof st->tmp, "%s/%s", full, base);
    j->n++;
    return true;
}

static int journal_read(struct boot_journal *j, sl_err *e)
{
    memset(j, 0, sizeof *j);
    char *text, full[PATH_MAX];
    if (sysfs_read_text(BOOT_JOURNAL, 1 << 16, &text, e) < 0) return -1;
    sysfs_path(full, sizeof full, BOOT_JOURNAL);
    int rc = 0, lineno = 0;
    char *save;
    for (char *line = strtok_r(text, "\n", &save); line && rc == 0; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (!parse_line(j, line))
            rc = sl_fail(e, SL_EFAIL, "%s, line %d, is not one sluice writes: see what it names, then remove the file", full,
                         lineno);
    }
    free(text);
    if (rc == 0 && (j->pid <= 0 || !j->profile[0]))
        rc = sl_fail(e, SL_EFAIL, "%s names no install (no pid or profile line): see what it holds, then remove it", full);
    return rc;
}

/* --- an install's side ---------------------------------------------------------- */

/* Note each missing directory on the way to dir, parents first. */
static void plan_dirs(struct boot_journal *j, const char *dir)
{
    for (size_t i = 1;; i++) {
        if (dir[i] != '/' && dir[i] != 0) continue;
        char prefix[256];
        snprintf(prefix, sizeof prefix, "%.*s", (int)i, dir);
        bool known = sysfs_is_dir(prefix);
        for (int k = 0; k < j->nmade && !known; k++) known = strcmp(j->made[k], prefix) == 0;
        if (!known && j->nmade < (int)(sizeof j->made / sizeof j->made[0]))
            snprintf(j->made[j->nmade++], sizeof j->made[0], "%s", prefix);
        if (!dir[i]) break;
    }
}

static bool made_by(const struct boot_journal *j, const char *dir)
{
    for (int i = 0; i < j->nmade; i++)
        if (strcmp(j->made[i], dir) == 0) return true;
    return false;
}

int boot_journal_begin(struct boot_journal *j, const char *const *paths, int npaths, sl_err *e)
{
    char dir[256], full[PATH_MAX];
    j->pid = (long)getpid();
    j->started_s = (long long)time(NULL);
    dir_of(BOOT_JOURNAL, dir, sizeof dir);
    plan_dirs(j, dir);
    for (int i = 0; i < npaths; i++) {
        char d[256];
        dir_of(paths[i], d, sizeof d);
        plan_dirs(j, d);
    }
    char *text = journal_text(j);
    int rc = sysfs_mkdirs(dir, 0755, e);
    if (rc == 0) rc = sysfs_write_file_new(BOOT_JOURNAL, text, strlen(text), 0644, e);
    free(text);
    if (rc == 0) return 0;
    if (made_by(j, dir)) sysfs_rmdir(dir);
    sysfs_path(full, sizeof full, BOOT_JOURNAL);
    if (rc == 1)
        return sl_fail(e, SL_EBUSY, "another 'sluice boot install' began at the same time (%s appeared): nothing was "
                       "installed; run this one again once it has finished", full);
    return sl_suffix(e, "Nothing was installed; fix the cause and run the install again");
}

int boot_journal_decide(struct boot_journal *j, sl_err *e)
{
    j->decided = true;
    char *text = journal_text(j);
    int rc = sysfs_write_file_atomic(BOOT_JOURNAL, text, strlen(text), 0644, e);
    free(text);
    if (rc < 0) j->decided = false;
    return rc;
}

int boot_journal_finish(const struct boot_journal *j, sl_err *e)
{
    for (int i = 0; i < j->n; i++) {
        const struct boot_step *st = &j->v[i];
        if (!st->tmp[0]) {
            if (sysfs_unlink(st->path, e) < 0) return -1;
            continue;
        }
        sl_err why = { 0 };
        /* Gone: renamed by the one who was killed after doing it. */
        if (sysfs_commit_staged(st->tmp, st->path, &why) < 0 && why.errnum != ENOENT) {
            if (e) *e = why;
            return -1;
        }
    }
    return sysfs_unlink(BOOT_JOURNAL, e) < 0 ? -1 : 0;
}

int boot_journal_undo(const struct boot_journal *j, sl_err *e)
{
    char own[256];
    dir_of(BOOT_JOURNAL, own, sizeof own);
    for (int i = 0; i < j->n; i++) sysfs_discard_staged(j->v[i].tmp);
    /* Deepest first; the journal's own directory once the journal is gone. */
    for (int i = j->nmade - 1; i >= 0; i--)
        if (strcmp(j->made[i], own) != 0) sysfs_rmdir(j->made[i]);
    if (sysfs_unlink(BOOT_JOURNAL, e) < 0) return -1;
    if (made_by(j, own)) sysfs_rmdir(own);
    return 0;
}

/* --- the next command's side ------------------------------------------------- */

/* Remove the temporaries of processes no longer running (this one has
 * staged nothing yet: a temporary with its pid is an older process's). */
static void sweep(struct notes *nt)
{
    int removed = 0;
    char first[512] = "";
    for (size_t i = 0; i < NPATHS; i++) {
        char dir[256], prev[256] = "";
        dir_of(boot_paths[i], dir, sizeof dir);
        if (i > 0) dir_of(boot_paths[i - 1], prev, sizeof prev);
        char **names;
        int n = strcmp(dir, prev) == 0 ? -1 : sysfs_list(dir, &names, NULL);
        for (int k = 0; k < n; k++) {
            long pid = temp_pid(dir, names[k]);
            if (!pid || (pid != (long)getpid() && sysfs_process_runs(pid, 0))) continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dir, names[k]);
            if (sysfs_unlink(path, NULL) == 0 && !removed++) snprintf(first, sizeof first, "%s", path);
        }
        if (n >= 0) sysfs_names_free(names, n);
    }
    if (removed) notes_add(nt, "removed %d temporary file(s) left by sluice processes no longer running (%s%s)", removed, first,
                           removed > 1 ? ", ..." : "");
}

int boot_settle(struct notes *nt, sl_err *e)
{
    if (sysfs_exists(BOOT_JOURNAL)) {
        struct boot_journal *j = xcalloc(1, sizeof *j);
        char etc[512];
        sysfs_path(etc, sizeof etc, "/etc");
        int rc = journal_read(j, e);
        if (rc == 0 && j->pid != (long)getpid() && sysfs_process_runs(j->pid, (double)j->started_s))
            rc = sl_fail(e, SL_EBUSY, "'sluice boot install %s' (pid %ld) is writing the boot files under %s: run this "
                         "again once it has finished", j->profile, j->pid, etc);
        else if (rc == 0 && j->decided) {
            rc = boot_journal_finish(j, e);
            if (rc == 0) notes_add(nt, "finished 'sluice boot install %s', which was killed part-way (pid %ld)", j->profile, j->pid);
            else sl_suffix(e, "Finishing 'sluice boot install %s', killed part-way (pid %ld), stopped there: fix the cause, "
                           "then any 'sluice boot' command finishes it", j->profile, j->pid);
        } else if (rc == 0) {
            sweep(nt);
            rc = boot_journal_undo(j, e);
            if (rc == 0) notes_add(nt, "undid 'sluice boot install %s', killed (pid %ld) before it had changed a file",
                                   j->profile, j->pid);
        }
        free(j);
        if (rc < 0) return -1;
    }
    sweep(nt);
    return 0;
}
