/* scratch — the scratch directory a probe works in: its name carries the
 * owner's pid, so what a SIGKILLed probe (which no handler can clean up
 * after) leaves behind is recognised and removed by the next probe. */
#include "probe_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCRATCH_PREFIX ".sluice-probe."

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (type == FTW_DP) rmdir(path);
    else unlink(path);   /* files, and symlinks themselves (FTW_PHYS never follows them) */
    return 0;
}

void probe_scratch_remove(const char *dir)
{
    /* Only ever called on a directory we created with mkdtemp (0700), or one
     * probe_scratch_reap found to be a dead probe's. */
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
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

int probe_scratch_reap(const char *dir, char *note, size_t n)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int fd = dirfd(d), reaped = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        long pid = owner_pid(de->d_name);
        /* A live owner (or one we may not signal: EPERM) is still running. A
         * recycled pid keeps its directory: left over, never wrongly removed. */
        if (!pid || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        struct stat st;
        if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) continue;
        if (st.st_uid != geteuid() && geteuid() != 0) continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        probe_scratch_remove(path);
        if (access(path, F_OK) == 0) continue;   /* not ours to remove after all */
        size_t l = strlen(note);
        if (l && l + 2 < n) { note[l++] = ';'; note[l++] = ' '; note[l] = 0; }
        snprintf(note + l, n - l, "removed %s, left behind by probe process %ld, which no longer runs (killed?)", path,
                 pid);
        reaped++;
    }
    closedir(d);
    return reaped;
}
