/* session_lock — one tuner per kernel: the lock file of the system, who
 * holds it, and the one test of whether a session's holder is gone. */
#include "session/session.h"
#include "session/session_internal.h"
#include "core/audit.h"
#include "core/sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* Under the root prefix: a fixture root has its own kernel, and its own lock. */
static const char lock_file[] = "/run/sluice/lock";
static char lock_command[256] = "sluice";
/* The descriptor this process holds the lock with (-1: none). While we hold
 * it, no other process does: every other holder is gone. */
static int held_fd = -1;

void session_lock_describe(const char *command)
{
    snprintf(lock_command, sizeof lock_command, "%s", command);
}

void session_holder_self(struct session_holder *h)
{
    memset(h, 0, sizeof *h);
    h->pid = (int)getpid();
    char state;
    if (sysfs_process(h->pid, &state, &h->start) < 0) h->start = 0;
    sysfs_pid_namespace(h->ns, sizeof h->ns);
    audit_user(h->user, sizeof h->user);
}

/* The value of "KEY value" in the lock file's text, or "" */
static void lock_field(const char *text, const char *key, char *out, size_t n)
{
    out[0] = 0;
    size_t klen = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
            const char *v = p + klen + 1;
            snprintf(out, n, "%.*s", (int)strcspn(v, "\n"), v);
            return;
        }
    }
}

static int busy_message(int fd, const char *path, sl_err *e)
{
    char text[2048];
    ssize_t r = pread(fd, text, sizeof text - 1, 0);
    text[r > 0 ? r : 0] = 0;
    char pid[32], command[300], db[PATH_MAX], since[40];
    lock_field(text, "pid", pid, sizeof pid);
    lock_field(text, "command", command, sizeof command);
    lock_field(text, "db", db, sizeof db);
    lock_field(text, "since", since, sizeof since);
    return sl_fail(e, SL_EBUSY, "another sluice (pid %s%s%s%s, database %s%s%s) holds the tuning lock %s: wait for it to finish, "
                   "or stop it; reading is still possible",
                   pid[0] ? pid : "unknown", command[0] ? ", \"" : "", command, command[0] ? "\"" : "", db[0] ? db : "unknown",
                   since[0] ? ", since " : "", since, path);
}

static int write_holder(int fd, const char *db_path)
{
    struct session_holder h;
    session_holder_self(&h);
    char since[32], text[2048];
    time_t now = time(NULL);
    strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    int len = snprintf(text, sizeof text, "pid %d\nstart %.2f\nns %s\nsince %s\ncommand %s\ndb %s\n", h.pid, h.start, h.ns,
                       since, lock_command, db_path);
    if (len < 0 || (size_t)len >= sizeof text) len = (int)strlen(text);
    return ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)len, 0) == len ? 0 : -1;
}

static int try_lock(const char *db_path, int *fd_out, bool *busy, sl_err *e)
{
    char path[PATH_MAX];
    sysfs_path(path, sizeof path, lock_file);
    *busy = false;
    int fd = sysfs_open_lock(lock_file, true, e);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        if (err != EWOULDBLOCK) {
            close(fd);
            return sl_fail_errno(e, SL_EFAIL, err, "tuning lock %s", path);
        }
        *busy = true;
        busy_message(fd, path, e);
        close(fd);
        return -1;
    }
    if (write_holder(fd, db_path) != 0) {
        int err = errno;
        close(fd);
        return sl_fail_errno(e, SL_EFAIL, err, "writing the tuning lock %s", path);
    }
    *fd_out = fd;
    held_fd = fd;
    return 0;
}

/* Every command looks for crashed sessions at start (lock_is_free), which
 * holds the lock file for an instant: a short grace keeps that instant from
 * being reported as another sluice tuning. */
#define LOCK_GRACE_MS 500

int session_lock_acquire(const char *db_path, int *fd, sl_err *e)
{
    return session_lock_wait(db_path, LOCK_GRACE_MS, fd, e);
}

int session_lock_wait(const char *db_path, int timeout_ms, int *fd, sl_err *e)
{
    for (int waited = 0;; waited += 100) {
        bool busy;
        if (try_lock(db_path, fd, &busy, e) == 0) return 0;
        if (!busy || waited >= timeout_ms) return -1;
        struct timespec ts = { 0, 100 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
}

void session_lock_release(int fd)
{
    if (fd < 0) return;
    if (fd == held_fd) held_fd = -1;
    close(fd); /* closing drops the flock */
}

/* Whether another process holds the tuning lock, found with a shared lock
 * taken and dropped at once: unlike try_lock, it writes nothing. */
static bool lock_held_by_other(void)
{
    if (held_fd >= 0) return false;
    sl_err e;
    int fd = sysfs_open_lock(lock_file, false, &e);
    /* Absent: nobody ever tuned here. Unreadable (not root): unknown, and
     * the pid decides. */
    if (fd < 0) return e.errnum != ENOENT;
    bool is_free = flock(fd, LOCK_SH | LOCK_NB) == 0;
    close(fd);
    return !is_free;
}

/* When the session began (UTC "YYYY-MM-DDTHH:MM:SSZ"), 0 when unreadable. */
static double started_at(const struct session_row *r)
{
    struct tm tm = { 0 };
    const char *end = strptime(r->started, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return end && !*end ? (double)timegm(&tm) : 0;
}

/* The one test. The lock decides first: a session's holder holds the lock
 * as long as it runs, so when nobody else holds it, the holder is gone.
 * Otherwise the pid decides, unless it is of another pid namespace (it
 * names another process here): then only the lock can, and it is held. */
static bool holder_gone(const struct session_row *r, bool lock_other, const char *our_ns)
{
    bool same_ns = !r->holder_ns[0] || !our_ns[0] || strcmp(r->holder_ns, our_ns) == 0;
    if (same_ns && r->pid == (int)getpid()) return false;
    if (!lock_other) return true;
    if (!same_ns) return false;
    return !sysfs_process_runs(r->pid, r->holder_start > 0 ? r->holder_start : started_at(r));
}

int session_find_crashed(store *st, struct session_row **out, sl_err *e)
{
    struct session_row *rows;
    int n = store_session_list(st, &rows, e);
    if (n < 0) return -1;
    bool lock_other = lock_held_by_other();
    char our_ns[64];
    sysfs_pid_namespace(our_ns, sizeof our_ns);
    int m = 0;
    for (int i = 0; i < n; i++) {
        const struct session_row *r = &rows[i];
        bool unfinished = r->state == SESSION_OPEN || r->restoring;
        /* The lock is of this root: of another root's session only the pid tells. */
        bool lock = strcmp(r->root, sysfs_root()) == 0 ? lock_other : true;
        if (unfinished && holder_gone(r, lock, our_ns)) rows[m++] = *r;
    }
    *out = rows;
    return m;
}
