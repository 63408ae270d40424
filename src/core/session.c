/* session — lock, snapshot, keep or put back, crash recovery. */
#include "session.h"
#include "device.h"
#include "sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t session_interrupted;

static void lock_path(const char *db_path, char *buf, size_t n)
{
    snprintf(buf, n, "%s.lock", db_path);
}

static int try_lock(const char *db_path, int *fd_out, bool *busy, sl_err *e)
{
    char path[PATH_MAX];
    lock_path(db_path, path, sizeof path);
    *busy = false;
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return sl_fail_errno(e, SL_EFAIL, errno, "tuning lock %s", path);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        if (err != EWOULDBLOCK) {
            close(fd);
            return sl_fail_errno(e, SL_EFAIL, err, "tuning lock %s", path);
        }
        char pid[32] = "";
        ssize_t r = pread(fd, pid, sizeof pid - 1, 0);
        pid[r > 0 ? r : 0] = 0;
        pid[strcspn(pid, "\n")] = 0;
        close(fd);
        *busy = true;
        return sl_fail(e, SL_EBUSY, "another sluice (pid %s) holds the tuning lock %s: wait for it to finish, or stop it; reading is still possible",
                       pid[0] ? pid : "unknown", path);
    }
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
        int err = errno;
        close(fd);
        return sl_fail_errno(e, SL_EFAIL, err, "writing the tuning lock %s", path);
    }
    *fd_out = fd;
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
    if (fd >= 0) close(fd); /* closing drops the flock */
}

int session_snapshot(const struct knob *ks, int n, struct snapshot_row **out, sl_err *e)
{
    struct snapshot_row *rows = xcalloc((size_t)(n ? n : 1), sizeof *rows);
    for (int i = 0; i < n; i++) {
        struct snapshot_row *r = &rows[i];
        snprintf(r->knob, sizeof r->knob, "%s", ks[i].name);
        snprintf(r->path, sizeof r->path, "%s", ks[i].path);
        r->order = ks[i].def->order;
        if (ks[i].def->scope == SCOPE_IOSCHED) {
            struct device d;
            if (device_get(ks[i].dev, &d, NULL) == 0) snprintf(r->sched, sizeof r->sched, "%s", d.scheduler);
            /* A tunable of the scheduler being switched to does not exist
             * yet: there is nothing to put back. */
            if (!knob_def_find(SCOPE_IOSCHED, ks[i].def->name, r->sched)) { r->present = 0; continue; }
        }
        sl_err re;
        if (knob_read(&ks[i], r->value, sizeof r->value, &re) == 0) {
            r->present = 1;
        } else if (re.errnum == ENOENT) {
            r->present = 0;
        } else {
            free(rows);
            if (e) *e = re;
            return -1;
        }
    }
    *out = rows;
    return n;
}

int session_begin(store *st, const char *purpose, const struct knob *touched, int n, int lock_fd,
                  struct session **out, sl_err *e)
{
    struct session *s = xcalloc(1, sizeof *s);
    s->st = st;
    s->lock_fd = lock_fd;
    if (session_snapshot(touched, n, &s->snaps, e) < 0) { session_free(s); return -1; }
    s->nsnaps = n;
    struct host_info h;
    int64_t host_id = 0;
    char host_uuid[37];
    if (host_read(&h, NULL) == 0 && store_host_upsert(st, &h, &host_id, host_uuid, e) != 0) {
        /* A locked database will not be free for the session row either:
         * fail after one busy timeout, not two. */
        if (store_busy(st)) { session_free(s); return -1; }
        host_id = 0;
    }
    if (store_session_create(st, host_id, purpose, sysfs_root(), s->snaps, n, &s->row, e) < 0) {
        session_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void session_free(struct session *s)
{
    if (!s) return;
    session_lock_release(s->lock_fd);
    free(s->snaps);
    free(s);
}

void restore_report_free(struct restore_report *r)
{
    if (!r) return;
    free(r->items);
    r->items = NULL;
    r->n = r->failed = 0;
}

static struct restore_item *report_add(struct restore_report *rep, const struct snapshot_row *row)
{
    rep->items = xrealloc(rep->items, sizeof *rep->items * (size_t)(rep->n + 1));
    struct restore_item *it = &rep->items[rep->n++];
    memset(it, 0, sizeof *it);
    snprintf(it->knob, sizeof it->knob, "%s", row->knob);
    snprintf(it->want, sizeof it->want, "%s", row->value);
    return it;
}

static const struct snapshot_row *find_row(const struct snapshot_row *rows, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].knob, name) == 0) return &rows[i];
    return NULL;
}

/* Of a ratio/bytes pair only the half that was in force is written back:
 * writing the other would switch the kernel's mode (knobs.md P3). */
static bool inactive_half(const struct knob *k, const struct snapshot_row *rows, int n, const char *value)
{
    const struct knob_def *d = k->def;
    if (!d->partner || d->scope != SCOPE_VM) return false;
    if (d->type == KT_BYTES) return strcmp(value, "0") == 0;
    char partner[KNOB_NAME_MAX];
    snprintf(partner, sizeof partner, "vm.%s", d->partner);
    const struct snapshot_row *p = find_row(rows, n, partner);
    return p && p->present && strcmp(p->value, "0") != 0;
}

void session_put_back(const struct snapshot_row *rows, int n, struct restore_report *rep)
{
    for (int i = 0; i < n; i++) {
        const struct snapshot_row *row = &rows[i];
        struct restore_item *it = report_add(rep, row);
        struct knob k;
        sl_err e;
        if (!row->present) { it->status = RESTORE_SKIPPED; snprintf(it->msg, sizeof it->msg, "was absent"); continue; }
        if (knob_lookup(row->knob, row->sched[0] ? row->sched : NULL, &k, &e) < 0) {
            it->status = RESTORE_FAILED;
            snprintf(it->msg, sizeof it->msg, "%s", e.msg);
            rep->failed++;
            continue;
        }
        /* A value that cannot be read (a write torn by SIGKILL on a fixture
         * file, a transient error) is no reason not to put the snapshot
         * back: write it, and let the read-back decide. */
        bool readable = knob_read(&k, it->had, sizeof it->had, &e) == 0;
        if (!readable) snprintf(it->had, sizeof it->had, "?");
        if (inactive_half(&k, rows, n, row->value) || (readable && knob_values_equal(&k, it->had, row->value))) {
            it->status = RESTORE_SAME;
            snprintf(it->got, sizeof it->got, "%s", it->had);
            continue;
        }
        if (knob_write(&k, row->value, &e) < 0 || knob_read(&k, it->got, sizeof it->got, &e) < 0) {
            it->status = RESTORE_FAILED;
            snprintf(it->msg, sizeof it->msg, "%s", e.msg);
            rep->failed++;
            continue;
        }
        if (!knob_values_equal(&k, it->got, row->value)) {
            it->status = RESTORE_FAILED;
            snprintf(it->msg, sizeof it->msg, "wrote %s, the kernel kept %s", row->value, it->got);
            rep->failed++;
            continue;
        }
        it->status = RESTORE_WRITTEN;
    }
}

static int check_root(const struct session_row *row, sl_err *e)
{
    if (strcmp(row->root, sysfs_root()) == 0) return 0;
    return sl_fail(e, SL_EUSAGE, "session %.8s changed knobs under root \"%s\", not \"%s\": run with --root %s",
                   row->uuid, row->root[0] ? row->root : "/", sysfs_root()[0] ? sysfs_root() : "/",
                   row->root[0] ? row->root : "/");
}

int session_restore(store *st, struct session_row *row, struct restore_report *rep, sl_err *e)
{
    if (check_root(row, e) < 0) return -1;
    struct snapshot_row *rows;
    int n = store_session_snapshots(st, row->id, &rows, e);
    if (n < 0) return -1;
    session_put_back(rows, n, rep);
    free(rows);
    const char *state = rep->failed ? "failed" : "restored";
    char note[256];
    snprintf(note, sizeof note, rep->failed ? "restore left %d knob(s) different" : "restored", rep->failed);
    if (store_session_set_state(st, row->id, state, note, e) < 0) return -1;
    snprintf(row->state, sizeof row->state, "%s", state);
    if (rep->failed)
        return sl_fail(e, SL_EPARTIAL, "session %.8s: %d knob(s) could not be put back", row->uuid, rep->failed);
    return 0;
}

int session_end(struct session *s, bool keep, struct restore_report *rep, sl_err *e)
{
    int rc;
    if (keep) {
        rc = store_session_set_state(s->st, s->row.id, "kept", NULL, e);
    } else {
        rc = session_restore(s->st, &s->row, rep, e);
    }
    session_free(s);
    return rc;
}

/* Whether anyone holds the tuning lock, found with a shared lock taken and
 * dropped at once: unlike try_lock, it writes nothing into the file. */
static bool lock_is_free(const char *db_path)
{
    char path[PATH_MAX];
    lock_path(db_path, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT;
    bool is_free = flock(fd, LOCK_SH | LOCK_NB) == 0;
    close(fd);
    return is_free;
}

static bool process_alive(int pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

int session_find_crashed(store *st, struct session_row **out, sl_err *e)
{
    struct session_row *open_rows;
    int n = store_session_list(st, "open", &open_rows, e);
    if (n < 0) return -1;
    bool lock_free = lock_is_free(store_path(st));
    int m = 0;
    for (int i = 0; i < n; i++) {
        const struct session_row *r = &open_rows[i];
        if (r->pid == (int)getpid()) continue;
        /* Free lock: nobody is tuning. Held lock: only a dead pid is crashed. */
        if (lock_free || !process_alive(r->pid)) open_rows[m++] = *r;
    }
    *out = open_rows;
    return m;
}

static void on_signal(int sig)
{
    session_interrupted = sig;
}

void session_trap_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

void session_untrap_signals(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
}
