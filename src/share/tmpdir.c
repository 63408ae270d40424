/* tmpdir — the private temporary directories of share operations, and the
 * sweep of those a killed sluice left. Apart from share.c so that restore
 * --crashed (and sluice-apply, which runs it at boot) links none of the
 * transports' libraries (libcurl, libpq, libxml2, OpenSSL, zstd). */
#include "share/share.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *tmp_base(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

int share_tmpdir(char *buf, size_t n, sl_err *e)
{
    share_tmpdir_sweep(NULL, NULL, 0);
    /* The pid in the name lets a later sluice tell a killed one's directory
     * from a running one's. */
    snprintf(buf, n, "%s/sluice-share.%ld.XXXXXX", tmp_base(), (long)getpid());
    if (!mkdtemp(buf)) return sl_fail_errno(e, SL_EFAIL, errno, "creating a temporary directory %s", buf);
    return 0;
}

/* The directory holding the database at db_path. */
static void db_dir(const char *db_path, char *buf, size_t n)
{
    const char *slash = strrchr(db_path, '/');
    if (!slash) snprintf(buf, n, ".");
    else if (slash == db_path) snprintf(buf, n, "/");
    else snprintf(buf, n, "%.*s", (int)(slash - db_path), db_path);
}

int share_tmpdir_near(const char *db_path, char *buf, size_t n, sl_err *e)
{
    share_tmpdir_sweep(db_path, NULL, 0);
    char dir[4096];
    db_dir(db_path, dir, sizeof dir);
    snprintf(buf, n, "%s/.sluice-share.%ld.XXXXXX", dir, (long)getpid());
    if (!mkdtemp(buf))
        return sl_fail_errno(e, SL_EFAIL, errno, "creating a temporary directory %s beside the database", buf);
    return 0;
}

/* Killed runs' directories named PREFIX.PID.XXXXXX in base. */
static int sweep_in(const char *base, const char *prefix, char *first, size_t fn)
{
    DIR *d = opendir(base);
    if (!d) return 0;
    int removed = 0;
    size_t plen = strlen(prefix);
    for (struct dirent *de; (de = readdir(d));) {
        char *end;
        if (strncmp(de->d_name, prefix, plen) != 0) continue;
        long pid = strtol(de->d_name + plen, &end, 10);
        if (pid <= 0 || *end != '.' || pid == (long)getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;  /* running, or not ours to judge */
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", base, de->d_name);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
        share_tmpdir_remove(path);
        if (!removed++ && first) snprintf(first, fn, "%s", path);
    }
    closedir(d);
    return removed;
}

int share_tmpdir_sweep(const char *db_path, char *first, size_t fn)
{
    int removed = sweep_in(tmp_base(), "sluice-share.", first, fn);
    if (db_path) {
        char dir[4096];
        db_dir(db_path, dir, sizeof dir);
        removed += sweep_in(dir, ".sluice-share.", removed ? NULL : first, fn);
    }
    return removed;
}

void share_tmpdir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        char path[4096];
        while ((de = readdir(d))) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}
