/* scratch — the scratch directory a probe works in: its name carries the
 * owner's pid, so what a SIGKILLed probe (which no handler can clean up
 * after) leaves behind is recognised and removed: by `sluice restore` from
 * the record the probe keeps in the database, else by the next probe in the
 * same directory. Both go through reap_entry. */
#include "probe/probe_internal.h"
#include "probe/scratch.h"
#include "db/store_scratch.h"
#include "core/sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SCRATCH_PREFIX ".sluice-probe."

/* nftw's callback takes no argument: the first failure of this thread's walk. */
static _Thread_local int remove_errno;

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    /* files, and symlinks themselves (FTW_PHYS never follows them) */
    int rc = type == FTW_DP ? rmdir(path) : unlink(path);
    if (rc != 0 && errno != ENOENT && !remove_errno) remove_errno = errno;
    return 0;
}

int probe_scratch_remove(const char *dir)
{
    /* Only ever called on a directory we created with mkdtemp (0700), or one
     * reap_entry found to be a dead probe's. */
    remove_errno = 0;
    if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0 && errno != ENOENT && !remove_errno)
        remove_errno = errno;
    if (remove_errno) {
        errno = remove_errno;
        return -1;
    }
    /* FTW_MOUNT skips what is mounted inside; the rmdir then fails quietly */
    if (access(dir, F_OK) == 0) {
        errno = EBUSY;
        return -1;
    }
    return 0;
}

int probe_scratch_create(const char *dir, char *out, size_t n)
{
    /* mkdtemp gives 0700; the pid says whose it is if a SIGKILL leaves it. */
    snprintf(out, n, "%s/" SCRATCH_PREFIX "%ld.XXXXXX", dir, (long)getpid());
    if (mkdtemp(out)) return 0;
    int err = errno;
    out[0] = 0;
    errno = err;
    return -1;
}

int probe_scratch_record(store *st, const char *path, char abs[PATH_MAX], sl_err *e)
{
    /* Absolute and without symlinks: restore runs from any directory. */
    if (!realpath(path, abs)) return sl_fail_errno(e, SL_EFAIL, errno, "resolving scratch directory %s", path);
    return store_scratch_add(st, abs, (long)getpid(), (long)geteuid(), e);
}

/* The owner pid in ".sluice-probe.PID.XXXXXX", or 0 when the name is not one
 * of ours (including the pid-less names of older versions: whose those are
 * cannot be told, so they are left alone). */
static long owner_pid(const char *name)
{
    if (strncmp(name, SCRATCH_PREFIX, strlen(SCRATCH_PREFIX)) != 0) return 0;
    const char *p = name + strlen(SCRATCH_PREFIX);
    char *end;
    errno = 0;
    long pid = strtol(p, &end, 10);
    if (errno || end == p || pid <= 0 || *end != '.' || strlen(end + 1) != 6) return 0;
    return pid;
}

/* Whether probe process pid still runs (the one test sessions use too):
 * made_by is a time the directory's creation cannot be later than (0 when
 * unknown). When /proc cannot tell, the directory is kept: left over, never
 * wrongly removed. */
static bool runs(long pid, time_t made_by)
{
    return sysfs_process_runs(pid, (double)made_by);
}

/* The record's time (UTC, "YYYY-MM-DDTHH:MM:SSZ"), 0 when unreadable. */
static time_t recorded_at(const struct scratch_row *r)
{
    struct tm tm = { 0 };
    const char *end = strptime(r->created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return end && !*end ? timegm(&tm) : 0;
}

/* The earlier of two upper bounds on when a directory was made (0: unknown). */
static time_t earlier(time_t a, time_t b)
{
    return !a ? b : !b ? a : a < b ? a : b;
}

/* The entry `name` in the open directory fd (at path parent): removed when
 * it is the scratch directory of probe process want_pid, which no longer
 * runs, owned by want_uid (< 0: by us, or anyone's as root). why says why it
 * failed (then *err is the errno) or why it is not ours. */
static enum scratch_result reap_entry(int fd, const char *parent, const char *name, long want_pid, long want_uid,
                                      time_t recorded, char *why, size_t whyn, int *err)
{
    long pid = owner_pid(name);
    struct stat st;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) return SCRATCH_GONE;
        *err = errno;
        snprintf(why, whyn, "%s", strerror(errno));
        return SCRATCH_FAILED;
    }
    if (!pid || (want_pid > 0 && pid != want_pid)) {
        snprintf(why, whyn, "its name is not that of probe process %ld's scratch directory", want_pid);
        return SCRATCH_NOT_OURS;
    }
    /* The directory changed last (ctime) no earlier than it was made. */
    if (runs(pid, earlier(st.st_ctim.tv_sec, recorded))) return SCRATCH_RUNNING;
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, whyn, "it is %s, not a directory", S_ISLNK(st.st_mode) ? "a symlink" : "a file");
        return SCRATCH_NOT_OURS;
    }
    bool owner_ok = want_uid >= 0 ? (long)st.st_uid == want_uid : st.st_uid == geteuid() || geteuid() == 0;
    if (!owner_ok || (st.st_mode & 077)) {
        snprintf(why, whyn, "it is owned by uid %ld with mode %04o, not the probe's 0700 directory", (long)st.st_uid,
                 (unsigned)(st.st_mode & 07777));
        return SCRATCH_NOT_OURS;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", parent, name);
    if (probe_scratch_remove(path) < 0) {
        *err = errno;
        snprintf(why, whyn, "%s", strerror(errno));
        return SCRATCH_FAILED;
    }
    return SCRATCH_REMOVED;
}

int probe_scratch_reap(const char *dir, char *note, size_t n)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int fd = dirfd(d), reaped = 0;
    struct dirent *de;
    char why[256];
    int err;
    while ((de = readdir(d))) {
        long pid = owner_pid(de->d_name);
        if (!pid || reap_entry(fd, dir, de->d_name, pid, -1, 0, why, sizeof why, &err) != SCRATCH_REMOVED) continue;
        size_t l = strlen(note);
        if (l && l + 2 < n) { note[l++] = ';'; note[l++] = ' '; note[l] = 0; }
        snprintf(note + l, n - l, "removed %s/%s, left behind by probe process %ld, which no longer runs (killed?)", dir,
                 de->d_name, pid);
        reaped++;
    }
    closedir(d);
    return reaped;
}

/* One record: split into its directory and name, and reap that entry. */
static enum scratch_result reap_recorded(const struct scratch_row *r, char *why, size_t whyn, int *err)
{
    const char *slash = strrchr(r->path, '/');
    if (!slash || !slash[1]) {
        snprintf(why, whyn, "the record is not a path to a scratch directory");
        return SCRATCH_NOT_OURS;
    }
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%.*s", slash == r->path ? 1 : (int)(slash - r->path), r->path);
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return SCRATCH_GONE;
        *err = errno;
        snprintf(why, whyn, "%s: %s", parent, strerror(errno));
        return SCRATCH_FAILED;
    }
    enum scratch_result res = reap_entry(fd, strcmp(parent, "/") ? parent : "", slash + 1, r->pid, r->uid, recorded_at(r), why,
                                              whyn, err);
    close(fd);
    return res;
}

/* What the administrator does about a failed removal. */
static const char *fix_for(int err)
{
    switch (err) {
    case EROFS: return "remount that filesystem read-write";
    case EBUSY: return "unmount what is mounted inside it";
    case EPERM:
    case EACCES: return "check the permissions and attributes (lsattr -d) of it and its parent, or remove it by hand";
    default: return "remove it by hand";
    }
}

static void describe(struct scratch_item *it, const char *why, int err)
{
    switch (it->result) {
    case SCRATCH_REMOVED:
        snprintf(it->msg, sizeof it->msg, "removed %s, left behind by probe process %ld, which no longer runs", it->path,
                 it->pid);
        break;
    case SCRATCH_RUNNING:
        snprintf(it->msg, sizeof it->msg, "kept %s: probe process %ld still runs", it->path, it->pid);
        break;
    case SCRATCH_NOT_OURS:
        snprintf(it->msg, sizeof it->msg, "left %s alone: %s; its record is dropped", it->path, why);
        break;
    case SCRATCH_FAILED:
        snprintf(it->msg, sizeof it->msg,
                 "could not remove %s, left behind by probe process %ld: %s: %s, then run 'sluice restore --crashed' "
                 "again (its record stays)", it->path, it->pid, why, fix_for(err));
        break;
    case SCRATCH_GONE: it->msg[0] = 0; break;
    }
}

int probe_scratch_sweep(store *st, struct scratch_report *rep, sl_err *e)
{
    memset(rep, 0, sizeof *rep);
    struct scratch_row *rows;
    int n = store_scratch_list(st, &rows, e);
    if (n < 0)
        return sl_suffix(e, "The scratch directories of killed probes were not looked for, so none was removed; run "
                         "'sluice restore --crashed' again once the database can be read");
    rep->items = n ? xcalloc((size_t)n, sizeof *rep->items) : NULL;
    for (int i = 0; i < n; i++) {
        struct scratch_item *it = &rep->items[rep->n++];
        char why[PATH_MAX];
        int err = 0;
        snprintf(it->path, sizeof it->path, "%s", rows[i].path);
        it->pid = rows[i].pid;
        it->result = reap_recorded(&rows[i], why, sizeof why, &err);
        describe(it, why, err);
        if (it->result == SCRATCH_REMOVED) rep->removed++;
        if (it->result == SCRATCH_FAILED) rep->failed++;
        if (it->result == SCRATCH_REMOVED || it->result == SCRATCH_GONE || it->result == SCRATCH_NOT_OURS) {
            sl_err fe;
            /* the directory is gone (or was never ours): a record left is retried harmlessly */
            if (store_scratch_forget(st, rows[i].path, &fe) < 0 && it->result != SCRATCH_GONE) {
                size_t l = strlen(it->msg);
                snprintf(it->msg + l, sizeof it->msg - l, " (its record stays: %s)", fe.msg);
            }
        }
    }
    free(rows);
    return 0;
}

int probe_scratch_left(store *st, char *first, size_t n)
{
    struct scratch_row *rows;
    sl_err e;
    int count = store_scratch_list(st, &rows, &e), left = 0;
    if (count < 0) return 0;
    for (int i = 0; i < count; i++) {
        struct stat sb;
        if (lstat(rows[i].path, &sb) != 0 || runs(rows[i].pid, earlier(sb.st_ctim.tv_sec, recorded_at(&rows[i]))))
            continue;
        if (!left++ && first) snprintf(first, n, "%s", rows[i].path);
    }
    free(rows);
    return left;
}

void scratch_report_free(struct scratch_report *r)
{
    free(r->items);
    memset(r, 0, sizeof *r);
}
