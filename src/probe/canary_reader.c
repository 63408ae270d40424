/* canary_reader — the canary's file, and a thread reading it at a pace. */
#include "probe/canary_reader.h"
#include "probe/probe_internal.h"
#include "db/store_scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Larger than a disk's read cache is not possible to promise; 16 MiB keeps
 * the reads spread beyond the last few blocks written. */
#define CANARY_FILE_BYTES (16u << 20)
#define CANARY_FILL (64u << 10)

int canary_file_make(struct canary_file *f, const char *dir, sl_err *e)
{
    static _Atomic int serial;
    f->direct = false;
    f->fd = -1;
    snprintf(f->path, sizeof f->path, "%s/canary.%d", dir, atomic_fetch_add(&serial, 1));
    int fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        sl_fail_errno(e, SL_EFAIL, errno, "creating %s", f->path);
        f->path[0] = 0;
        return -1;
    }
    unsigned char *fill = xmalloc(CANARY_FILL);
    for (unsigned off = 0; off < CANARY_FILE_BYTES; off += CANARY_FILL) {
        probe_fill_random(fill, CANARY_FILL, off);
        if (pwrite(fd, fill, CANARY_FILL, off) != CANARY_FILL || (off + CANARY_FILL == CANARY_FILE_BYTES && fsync(fd) != 0)) {
            int err = errno;
            close(fd);
            free(fill);
            unlink(f->path);
            sl_fail_errno(e, SL_EFAIL, err, "writing the canary file %s", f->path);
            f->path[0] = 0;
            return -1;
        }
    }
    free(fill);
    /* O_DIRECT reads are uncached by construction; where the filesystem
     * refuses it, evict the page before each read instead (ioping). */
    int dfd = open(f->path, O_RDONLY | O_DIRECT | O_NOFOLLOW | O_CLOEXEC);
    if (dfd >= 0) {
        close(fd);
        fd = dfd;
        f->direct = true;
    }
    f->fd = fd;
    return 0;
}

uint64_t canary_file_read(const struct canary_file *f, unsigned char *buf, uint64_t *rng)
{
    off_t off = (off_t)(probe_splitmix(rng) % (CANARY_FILE_BYTES / CANARY_IO)) * CANARY_IO;
    uint64_t t0 = probe_now_ns();
    if (!f->direct) posix_fadvise(f->fd, off, CANARY_IO, POSIX_FADV_DONTNEED);
    ssize_t got = pread(f->fd, buf, CANARY_IO, off);
    (void)got;
    return probe_now_ns() - t0;
}

void canary_file_remove(struct canary_file *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    if (f->path[0]) unlink(f->path);
    f->path[0] = 0;
}

void canary_sleep_until(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
}

uint64_t canary_next_tick(uint64_t next, uint64_t period_ns, uint64_t now)
{
    next += period_ns;
    while (next <= now) next += period_ns;
    return next;
}

struct canary_reader {
    store *st;
    char dir[PATH_MAX], abs[PATH_MAX];   /* the scratch directory; abs: as recorded ("" when not) */
    struct canary_file f;
    unsigned char *buf;
    uint64_t period_ns, rng;
    pthread_t tid;
    _Atomic int stop;
    _Atomic uint64_t in_flight_since;    /* 0: no read under way */
    pthread_mutex_t mu;
    struct canary_take acc;
};

static void *reader_main(void *arg)
{
    struct canary_reader *r = arg;
    uint64_t next = probe_now_ns() + r->period_ns;
    while (!atomic_load(&r->stop)) {
        canary_sleep_until(next);
        if (atomic_load(&r->stop)) break;
        atomic_store(&r->in_flight_since, probe_now_ns());
        uint64_t ns = canary_file_read(&r->f, r->buf, &r->rng);
        pthread_mutex_lock(&r->mu);
        atomic_store(&r->in_flight_since, 0);
        uint64_t held_sum, held = paced_held_back(ns, r->period_ns, &held_sum);
        r->acc.reads++;
        r->acc.sum_ns += ns;
        r->acc.due += 1 + held;
        r->acc.due_sum_ns += ns + held_sum;
        if (ns > r->acc.max_ns) r->acc.max_ns = ns;
        pthread_mutex_unlock(&r->mu);
        next = canary_next_tick(next, r->period_ns, probe_now_ns());
    }
    return NULL;
}

void canary_reader_take(struct canary_reader *r, struct canary_take *out)
{
    pthread_mutex_lock(&r->mu);
    *out = r->acc;
    memset(&r->acc, 0, sizeof r->acc);
    uint64_t since = atomic_load(&r->in_flight_since);
    pthread_mutex_unlock(&r->mu);
    uint64_t now = probe_now_ns();
    if (since && now > since && now - since > out->max_ns) out->max_ns = now - since;
}

/* The directory, its record and the file, whichever exist. */
static void remove_all(struct canary_reader *r)
{
    canary_file_remove(&r->f);
    if (r->dir[0]) probe_scratch_remove(r->dir);
    if (r->abs[0] && r->st) store_scratch_forget(r->st, r->abs, NULL);
    free(r->buf);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

struct canary_reader *canary_reader_start(store *st, const char *dir, uint64_t period_ns, uint64_t seed, sl_err *e)
{
    struct canary_reader *r = xcalloc(1, sizeof *r);
    r->st = st;
    r->f.fd = -1;
    r->period_ns = period_ns;
    r->rng = seed ^ 0xca9a7ull;
    pthread_mutex_init(&r->mu, NULL);
    void *buf;
    if (posix_memalign(&buf, 4096, CANARY_IO) != 0) sl_die("out of memory");
    r->buf = buf;
    if (probe_scratch_create(dir, r->dir, sizeof r->dir) < 0) {
        sl_fail_errno(e, SL_EFAIL, errno, "the canary's scratch directory in %s", dir);
        remove_all(r);
        return NULL;
    }
    if ((st && probe_scratch_record(st, r->dir, r->abs, e) < 0) || canary_file_make(&r->f, r->dir, e) < 0) {
        remove_all(r);
        return NULL;
    }
    int rc = probe_thread_start(&r->tid, reader_main, r);
    if (rc) {
        sl_fail_errno(e, SL_EFAIL, rc, "starting the canary reader");
        remove_all(r);
        return NULL;
    }
    return r;
}

void canary_reader_stop(struct canary_reader *r)
{
    if (!r) return;
    atomic_store(&r->stop, 1);
    pthread_join(r->tid, NULL);
    remove_all(r);
}
