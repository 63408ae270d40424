/* sysfs — root-prefixed, no-follow access to kernel files. */
#include "core/sysfs.h"
#include "core/fault.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root_prefix[PATH_MAX] = "";
static atomic_long accesses;   /* probe workers read vmstat too */

long sysfs_access_count(void) { return atomic_load(&accesses); }

int sysfs_set_root(const char *root, sl_err *e)
{
    if (!root || !*root || strcmp(root, "/") == 0) {
        root_prefix[0] = 0;
        return 0;
    }
    char real[PATH_MAX];
    if (!realpath(root, real))
        return sl_fail_errno(e, SL_EUSAGE, errno, "--root %s", root);
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
        return sl_fail(e, SL_EUSAGE, "--root %s: not a directory", root);
    snprintf(root_prefix, sizeof root_prefix, "%s", strcmp(real, "/") == 0 ? "" : real);
    return 0;
}

const char *sysfs_root(void) { return root_prefix; }
bool sysfs_is_real_root(void) { return root_prefix[0] == 0; }

int sysfs_require_root(const char *what, sl_err *e)
{
    if (geteuid() == 0 || !sysfs_is_real_root()) return 0;
    return sl_fail(e, SL_EPERM, "%s changes kernel settings and needs root: run it with sudo", what);
}

int sysfs_path(char *buf, size_t n, const char *path)
{
    atomic_fetch_add(&accesses, 1);
    int len = snprintf(buf, n, "%s%s", root_prefix, path);
    return (len < 0 || (size_t)len >= n) ? -1 : 0;
}

/* host: the path on the machine sluice runs on, whatever the root. */
static int open_at(const char *path, int flags, bool host, sl_err *e)
{
    char full[PATH_MAX];
    if (host ? snprintf(full, sizeof full, "%s", path) >= (int)sizeof full : sysfs_path(full, sizeof full, path) != 0)
        return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    int fd = open(full, flags | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return sl_fail_errno(e, SL_EFAIL, errno, "%s", full);
    return fd;
}

static size_t trim(char *s, size_t len)
{
    size_t start = 0;
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    while (start < len && (s[start] == ' ' || s[start] == '\t' || s[start] == '\n'))
        start++;
    memmove(s, s + start, len - start);
    s[len - start] = 0;
    return len - start;
}

/* Read the whole file into a buffer that grows up to cap bytes (fixed when
 * growable is false). Returns the byte count, or -1 with e naming the path. */
static int open_in_root(const char *path, int flags, sl_err *e) { return open_at(path, flags, false, e); }

static long read_file_at(const char *path, bool host, char **buf, size_t size, size_t cap, bool growable, sl_err *e)
{
    int fd = open_at(path, O_RDONLY, host, e);
    if (fd < 0) return -1;
    size_t got = 0;
    for (;;) {
        if (got + 1 >= size) {
            if (!growable || size >= cap) break;
            size = size * 2 > cap ? cap : size * 2;
            *buf = xrealloc(*buf, size);
        }
        ssize_t r = read(fd, *buf + got, size - 1 - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int err = errno;
            close(fd);
            char full[PATH_MAX];
            sysfs_path(full, sizeof full, path);
            return sl_fail_errno(e, SL_EFAIL, err, "%s", full);
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    close(fd);
    (*buf)[got] = 0;
    return (long)got;
}

static long read_file(const char *path, char **buf, size_t size, size_t cap, bool growable, sl_err *e)
{
    return read_file_at(path, false, buf, size, cap, growable, e);
}

int sysfs_read(const char *path, char *buf, size_t n, sl_err *e)
{
    long got = read_file(path, &buf, n, n, false, e);
    return got < 0 ? -1 : (int)trim(buf, (size_t)got);
}

static int read_text_at(const char *path, bool host, size_t cap, char **out, sl_err *e)
{
    char *buf = xmalloc(4096);
    long got = read_file_at(path, host, &buf, 4096, cap, true, e);
    if (got < 0) { free(buf); return -1; }
    *out = buf;
    return (int)got;
}

int sysfs_read_text(const char *path, size_t cap, char **out, sl_err *e) { return read_text_at(path, false, cap, out, e); }

int sysfs_read_text_host(const char *path, size_t cap, char **out, sl_err *e)
{
    atomic_fetch_add(&accesses, 1);
    return read_text_at(path, true, cap, out, e);
}

int sysfs_read_ll(const char *path, long long *out, sl_err *e)
{
    char buf[64];
    if (sysfs_read(path, buf, sizeof buf, e) < 0) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno || end == buf || *end) {
        char full[PATH_MAX];
        sysfs_path(full, sizeof full, path);
        return sl_fail(e, SL_EFAIL, "%s: expected an integer, found \"%s\"", full, buf);
    }
    *out = v;
    return 0;
}

int sysfs_write(const char *path, const char *value, sl_err *e)
{
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, path) != 0)
        return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    /* SLUICE_FAULT=sysfs_write:N: rollback tested on fixture roots, where
     * the kernel would otherwise accept everything */
    if (fault_hit(FAULT_SYSFS_WRITE))
        return sl_fail_errno(e, SL_EFAIL, EIO, "writing \"%s\" to %s", value, full);
    char line[4096];
    int len = snprintf(line, sizeof line, "%s\n", value);
    if (len < 0 || (size_t)len >= sizeof line)
        return sl_fail(e, SL_EUSAGE, "%s: value too long", full);
    /* O_TRUNC matters only for fixture files; sysfs and procfs ignore it. */
    int fd = open(full, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return sl_fail_errno(e, SL_EFAIL, errno, "opening %s for writing", full);
    ssize_t w;
    do w = write(fd, line, (size_t)len); while (w < 0 && errno == EINTR);
    int err = errno;
    if (close(fd) != 0 && w >= 0) { w = -1; err = errno; }
    if (w < 0)
        return sl_fail_errno(e, SL_EFAIL, err, "writing \"%s\" to %s", value, full);
    if (w != len)
        return sl_fail(e, SL_EFAIL, "writing \"%s\" to %s: short write (%zd of %d bytes)", value, full, w, len);
    return 0;
}

bool sysfs_exists(const char *path)
{
    char full[PATH_MAX];
    struct stat st;
    return sysfs_path(full, sizeof full, path) == 0 && stat(full, &st) == 0;
}

bool sysfs_is_dir(const char *path)
{
    char full[PATH_MAX];
    struct stat st;
    return sysfs_path(full, sizeof full, path) == 0 && stat(full, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int sysfs_list(const char *dir, char ***names, sl_err *e)
{
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, dir) != 0)
        return sl_fail(e, SL_EFAIL, "%s: path too long", dir);
    DIR *d = opendir(full);
    if (!d) return sl_fail_errno(e, SL_EFAIL, errno, "%s", full);
    int n = 0, cap = 16;
    char **v = xmalloc(sizeof *v * (size_t)cap);
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        if (n == cap) { cap *= 2; v = xrealloc(v, sizeof *v * (size_t)cap); }
        v[n++] = xstrdup(de->d_name);
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof *v, cmp_names);
    *names = v;
    return n;
}

void sysfs_names_free(char **names, int n)
{
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

int sysfs_resolve(const char *path, char *buf, size_t n, sl_err *e)
{
    char full[PATH_MAX], real[PATH_MAX];
    if (sysfs_path(full, sizeof full, path) != 0)
        return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    if (!realpath(full, real))
        return sl_fail_errno(e, SL_EFAIL, errno, "%s", full);
    size_t rl = strlen(root_prefix);
    if (rl && (strncmp(real, root_prefix, rl) != 0 || (real[rl] != '/' && real[rl] != 0)))
        return sl_fail(e, SL_EFAIL, "%s: resolves outside the root %s", full, root_prefix);
    snprintf(buf, n, "%s", real[rl] ? real + rl : "/");
    return 0;
}

/* --- configuration files ------------------------------------------------- */

static int fsync_dir_of(const char *full, sl_err *e)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", full);
    char *slash = strrchr(dir, '/');
    if (!slash) return 0;
    if (slash == dir) slash[1] = 0;
    else *slash = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return sl_fail_errno(e, SL_EFAIL, errno, "opening directory %s", dir);
    fault_kill_point();
    int rc = fsync(fd);
    int err = errno;
    close(fd);
    if (rc != 0 && err != EINVAL) return sl_fail_errno(e, SL_EFAIL, err, "fsync of directory %s", dir);
    return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

int sysfs_write_file_atomic(const char *path, const char *data, size_t len, mode_t mode, sl_err *e)
{
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, path) != 0) return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    return sysfs_write_local_atomic(full, data, len, mode, e);
}

/* Write data to a new temporary file beside full (tmp: its path), fsynced.
 * -1 with e naming full; nothing is left behind then. */
static int stage_local(const char *full, const char *data, size_t len, mode_t mode, char *tmp, size_t n, sl_err *e)
{
    const char *slash = strrchr(full, '/');
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        snprintf(tmp, n, "%.*s/.%s.%d.%d.tmp", (int)(slash - full), full, slash + 1, (int)getpid(), attempt);
        fault_kill_point();
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST) return sl_fail_errno(e, SL_EFAIL, errno, "creating %s", tmp);
    }
    if (fd < 0) return sl_fail(e, SL_EFAIL, "creating a temporary file beside %s: too many stale ones", full);
    int err = 0;
    const char *what = "writing";
    if (fchmod(fd, mode) != 0) { err = errno; what = "setting the mode of"; }
    else if (fault_hit(FAULT_WRITE)) err = EIO;
    else {
        fault_kill_point();
        if (write_all(fd, data, len) != 0) { err = errno; what = "writing"; }
    }
    if (!err) fault_kill_point();
    if (!err && fsync(fd) != 0) { err = errno; what = "fsync of"; }
    if (close(fd) != 0 && !err) { err = errno; what = "closing"; }
    if (err) {
        unlink(tmp);
        return sl_fail_errno(e, SL_EFAIL, err, "%s %s", what, full);
    }
    return 0;
}

int sysfs_write_local_atomic(const char *full, const char *data, size_t len, mode_t mode, sl_err *e)
{
    char tmp[PATH_MAX + 32];
    if (!strchr(full, '/')) {
        char rel[PATH_MAX];
        if (snprintf(rel, sizeof rel, "./%s", full) >= (int)sizeof rel) return sl_fail(e, SL_EFAIL, "%s: path too long", full);
        return sysfs_write_local_atomic(rel, data, len, mode, e);
    }
    if (stage_local(full, data, len, mode, tmp, sizeof tmp, e) < 0) return -1;
    fault_kill_point();
    if (rename(tmp, full) != 0) {
        int err = errno;
        unlink(tmp);
        return sl_fail_errno(e, SL_EFAIL, err, "renaming the temporary file over %s", full);
    }
    return fsync_dir_of(full, e);
}

int sysfs_write_file_new(const char *path, const char *data, size_t len, mode_t mode, sl_err *e)
{
    char full[PATH_MAX], tmp[PATH_MAX + 32];
    if (sysfs_path(full, sizeof full, path) != 0 || !strchr(full, '/')) return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    if (stage_local(full, data, len, mode, tmp, sizeof tmp, e) < 0) return -1;
    /* link(2), unlike rename(2), refuses to replace: the file appears whole
     * or not at all, and only for the first of two writers. */
    fault_kill_point();
    int rc = link(tmp, full), err = errno;
    fault_kill_point();
    unlink(tmp);
    if (rc != 0) return err == EEXIST ? 1 : sl_fail_errno(e, SL_EFAIL, err, "creating %s", full);
    return fsync_dir_of(full, e);
}

int sysfs_stage_file(const char *path, const char *data, size_t len, mode_t mode, char *tmp, size_t n, sl_err *e)
{
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, path) != 0 || !strchr(full, '/')) return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    return stage_local(full, data, len, mode, tmp, n, e);
}

int sysfs_stage_symlink(const char *target, const char *path, char *tmp, size_t n, sl_err *e)
{
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, path) != 0) return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    const char *slash = strrchr(full, '/');
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(tmp, n, "%.*s/.%s.%d.%d.tmp", (int)(slash - full), full, slash + 1, (int)getpid(), attempt);
        fault_kill_point();
        if (symlink(target, tmp) == 0) return 0;
        if (errno != EEXIST) return sl_fail_errno(e, SL_EFAIL, errno, "creating symlink %s", tmp);
    }
    return sl_fail(e, SL_EFAIL, "creating a temporary symlink beside %s: too many stale ones", full);
}

int sysfs_commit_staged(const char *tmp, const char *path, sl_err *e)
{
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, path) != 0) return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    fault_kill_point();
    if (rename(tmp, full) != 0) return sl_fail_errno(e, SL_EFAIL, errno, "renaming %s over %s", tmp, full);
    return fsync_dir_of(full, e);
}

void sysfs_discard_staged(const char *tmp)
{
    if (!tmp || !*tmp) return;
    fault_kill_point();
    unlink(tmp);
}

int sysfs_mkdirs(const char *dir, mode_t mode, sl_err *e)
{
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, dir) != 0) return sl_fail(e, SL_EFAIL, "%s: path too long", dir);
    size_t skip = strlen(root_prefix);
    for (char *p = full + skip + 1;; p++) {
        if (*p != '/' && *p != 0) continue;
        char saved = *p;
        *p = 0;
        struct stat st;
        if (lstat(full, &st) != 0) fault_kill_point();
        if (mkdir(full, mode) != 0 && errno != EEXIST) return sl_fail_errno(e, SL_EFAIL, errno, "creating directory %s", full);
        if (stat(full, &st) != 0 || !S_ISDIR(st.st_mode))
            return sl_fail(e, SL_EFAIL, "%s exists and is not a directory", full);
        *p = saved;
        if (!saved) break;
    }
    return 0;
}

int sysfs_rmdir(const char *dir)
{
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, dir) != 0) return -1;
    fault_kill_point();
    if (rmdir(full) != 0) return -1;
    return fsync_dir_of(full, NULL);
}

int sysfs_unlink(const char *path, sl_err *e)
{
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, path) != 0) return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    fault_kill_point();
    if (unlink(full) != 0) {
        if (errno == ENOENT) return 1;
        return sl_fail_errno(e, SL_EFAIL, errno, "removing %s", full);
    }
    return fsync_dir_of(full, e);
}

int sysfs_readlink(const char *path, char *buf, size_t n, sl_err *e)
{
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, path) != 0) return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    ssize_t len = readlink(full, buf, n - 1);
    if (len < 0) return sl_fail_errno(e, SL_EFAIL, errno, "%s", full);
    buf[len] = 0;
    return 0;
}

bool sysfs_is_symlink(const char *path)
{
    char full[PATH_MAX];
    struct stat st;
    return sysfs_path(full, sizeof full, path) == 0 && lstat(full, &st) == 0 && S_ISLNK(st.st_mode);
}

int sysfs_self_exe(char *buf, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0) return -1;
    buf[len] = 0;
    return 0;
}

int sysfs_process(long pid, char *state, double *start_epoch_s)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = 0;
    /* "pid (comm) state ..." where comm may hold spaces and parentheses:
     * the fields start after the last ')'. starttime is field 22. */
    char *p = strrchr(buf, ')');
    unsigned long long start_ticks = 0;
    if (!p || sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu", state,
                     &start_ticks) != 2)
        return -1;
    double btime;
    long tck = sysconf(_SC_CLK_TCK);
    if (sysfs_boot_time(&btime) < 0 || tck <= 0) return -1;
    *start_epoch_s = btime + (double)start_ticks / (double)tck;
    return 0;
}

/* How far /proc's start time (the boot time is whole seconds) and another
 * clock may disagree about one moment. */
#define START_SLACK_S 2.0

bool sysfs_process_runs(long pid, double started_by_s)
{
    if (pid <= 0) return false;
    if (pid == (long)getpid()) return true;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return false;
    char state;
    double start_s;
    if (sysfs_process(pid, &state, &start_s) < 0) return true;
    if (state == 'Z' || state == 'X') return false;
    return !(started_by_s > 0 && start_s > started_by_s + START_SLACK_S);
}

int sysfs_pid_namespace(char *buf, size_t n)
{
    ssize_t len = readlink("/proc/self/ns/pid", buf, n - 1);
    if (len <= 0) { buf[0] = 0; return -1; }
    buf[len] = 0;
    return 0;
}

int sysfs_open_lock(const char *path, bool create, sl_err *e)
{
    if (!create) return open_in_root(path, O_RDONLY, e);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        if (sysfs_mkdirs(dir, 0755, e) < 0) return -1;
    }
    char full[PATH_MAX];
    if (sysfs_path(full, sizeof full, path) != 0) return sl_fail(e, SL_EFAIL, "%s: path too long", path);
    /* Not for others: it names the command line and the database. */
    int fd = open(full, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return sl_fail_errno(e, SL_EFAIL, errno, "tuning lock %s", full);
    return fd;
}

int sysfs_boot_time(double *epoch_s)
{
    FILE *f = fopen("/proc/stat", "re");
    if (!f) return -1;
    unsigned long long btime = 0;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "btime %llu", &btime) == 1) break;
    fclose(f);
    if (!btime) return -1;
    *epoch_s = (double)btime;
    return 0;
}
