/* tiobench — tiobench.pl's runs of tiotest: for each thread
 * count T in 1, 2, 4, 8 (powers of two up to --threads, and --threads
 * itself), T threads each with its own file of --size / T bytes (--size is
 * the total, as tiobench's is), through four phases in tiotest's order:
 * seq write (creates the files), random write, seq read, random read; the
 * random phases do 4000 / T requests per thread. Write phases fsync inside
 * the timed region; read phases start cold (files synced and evicted). The
 * files are removed after each thread count, as tiotest removes its own.
 *
 * Per phase: rate = bytes / wall time, CPU% = (utime + stime) / wall of the
 * workers (getrusage), latency average and maximum and the share above
 * 100 ms and 1 s (tiotest's 2 s and 10 s, rescaled for short probes).
 * Printed as tiobench.pl -T's table (MB = 2^20 there) and per phase.
 *
 * Unlike tiotest, each phase is also bounded by --time / (4 x thread
 * counts), so a probe takes about --time; a sequential phase that the bound
 * cut short of its file is said so in the run's note. */
#include "probe/probe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RAND_OPS 4000
#define MAX_SETS (PROBE_MAX_PHASES / T_NR)

enum tio_phase { T_SEQ_WRITE, T_RAND_WRITE, T_SEQ_READ, T_RAND_READ, T_NR };
static const char *const phase_names[T_NR] = { "seq write", "random write", "seq read", "random read" };

struct tio_file {
    int fd;
    uint64_t extent;      /* bytes the seq write phase laid down */
    char path[PATH_MAX];
};

struct tio_state {
    enum tio_phase phase;
    int nthreads;
    uint64_t per_file, rand_ops;
    struct tio_file *files;   /* nthreads of them during a thread count */
    _Atomic int cut;          /* a sequential phase stopped short of its file */
};

/* The thread counts: powers of two up to --threads, then --threads. */
static int thread_counts(int threads, int counts[MAX_SETS + 1])
{
    int n = 0;
    for (int t = 1; t <= threads && n <= MAX_SETS; t *= 2) counts[n++] = t;
    if (n > 0 && counts[n - 1] == threads) return n;
    if (n <= MAX_SETS) counts[n++] = threads;
    return n;
}

static int validate(struct probe_spec *s, sl_err *e)
{
    /* tiotest times each phase from its first request: no warm-up (the
     * summary shows the 0 s ramp). */
    s->ramp_ms = 0;
    int counts[MAX_SETS + 1];
    if (thread_counts(s->threads, counts) > MAX_SETS)
        return sl_fail(e, SL_EUSAGE, "--threads %d: tiobench runs every power of two up to it, at most %d thread "
                                     "counts: give at most %d", s->threads, MAX_SETS, 1 << (MAX_SETS - 1));
    return 0;
}

static int io_error(struct probe_thread *t, int err, const struct tio_file *f)
{
    if (err == ENOSPC || err == EDQUOT)
        return probe_thread_fail(t, 0, "the filesystem under %s filled up (%s) writing %s: give a smaller --size or "
                                       "free some space", t->ctx->spec.dir[0], strerror(err), f->path);
    return probe_thread_fail(t, err, "I/O on %s", f->path);
}

static int timed_fsync(struct probe_thread *t, struct tio_file *f)
{
    if (atomic_load(&t->ctx->stop)) return 0;
    uint64_t t0 = probe_now_ns();
    if (fsync(f->fd) != 0) return io_error(t, errno, f);
    probe_account(t, PROBE_SYNC, t0, probe_now_ns(), 0);
    return 0;
}

static int tio_thread(struct probe_thread *t)
{
    struct probe_ctx *c = t->ctx;
    struct tio_state *s = c->wl;
    struct tio_file *f = &s->files[t->idx];
    uint64_t bs = c->spec.bs;
    bool rnd = s->phase == T_RAND_WRITE || s->phase == T_RAND_READ;
    bool wr = s->phase == T_SEQ_WRITE || s->phase == T_RAND_WRITE;
    uint64_t blocks = (s->phase == T_SEQ_WRITE ? s->per_file : f->extent) / bs;
    uint64_t todo = rnd ? s->rand_ops : blocks, i = 0;
    if (blocks == 0) return 0;
    for (; i < todo; i++) {
        uint64_t off = (rnd ? probe_rand_below(t, blocks) : i) * bs;
        uint64_t t0 = probe_now_ns();
        ssize_t r = wr ? pwrite(f->fd, t->buf, bs, (off_t)off) : pread(f->fd, t->buf, bs, (off_t)off);
        uint64_t t1 = probe_now_ns();
        if (r != (ssize_t)bs) {
            if (r < 0 && errno == EINTR) { i--; continue; }
            return io_error(t, r < 0 ? errno : (wr ? ENOSPC : EIO), f);
        }
        probe_account(t, wr ? PROBE_WRITE : PROBE_READ, t0, t1, bs);
        if (probe_should_stop(t, t1)) { i++; break; }
    }
    if (!rnd && i < todo) atomic_store(&s->cut, 1);
    if (s->phase == T_SEQ_WRITE) f->extent = i * bs;
    return wr ? timed_fsync(t, f) : 0;   /* tiotest: fsync and close inside the timing */
}

static void close_files(struct tio_state *s)
{
    if (!s->files) return;
    for (int i = 0; i < s->nthreads; i++) {
        if (s->files[i].fd >= 0) close(s->files[i].fd);
        if (s->files[i].path[0]) unlink(s->files[i].path);
    }
    free(s->files);
    s->files = NULL;
}

static int open_files(struct probe_ctx *c, struct tio_state *s, int n, sl_err *e)
{
    s->nthreads = n;
    s->files = xcalloc((size_t)n, sizeof *s->files);
    for (int i = 0; i < n; i++) s->files[i].fd = -1;
    for (int i = 0; i < n; i++) {
        struct tio_file *f = &s->files[i];
        snprintf(f->path, sizeof f->path, "%s/tiotest.%d.%d", c->scratch, n, i);
        f->fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (f->fd < 0) {
            int err = errno;
            f->path[0] = 0;
            return sl_fail_errno(e, SL_EFAIL, err, "creating %s/tiotest.%d.%d", c->scratch, n, i);
        }
    }
    return 0;
}

/* Cold reads without root: sync, then drop the files' pages. */
static void evict(struct tio_state *s)
{
    for (int i = 0; i < s->nthreads; i++)
        if (fdatasync(s->files[i].fd) == 0) posix_fadvise(s->files[i].fd, 0, 0, POSIX_FADV_DONTNEED);
}

static int run_count(struct probe_ctx *c, struct probe_result *r, int n, uint64_t phase_ms, sl_err *e)
{
    struct tio_state *s = c->wl;
    uint64_t per = c->spec.size_bytes / (uint64_t)n;
    per -= per % c->spec.bs;
    s->per_file = per < c->spec.bs ? c->spec.bs : per;
    s->rand_ops = RAND_OPS / (uint64_t)n ? RAND_OPS / (uint64_t)n : 1;
    int rc = open_files(c, s, n, e);
    for (int ph = 0; ph < T_NR && rc == 0; ph++) {
        s->phase = (enum tio_phase)ph;
        if (ph == T_SEQ_READ || ph == T_RAND_READ) evict(s);
        struct probe_phase_stats ps = { 0 };
        rc = probe_phase_run(c, n, tio_thread, 0, phase_ms, &ps, e);
        if (rc == 0 && r->nphases < PROBE_MAX_PHASES) probe_phase_row(&r->phase[r->nphases++], phase_names[ph], n, &ps);
    }
    close_files(s);
    return rc;
}

static int tio_run(struct probe_ctx *c, struct probe_result *r, sl_err *e)
{
    struct tio_state *s = c->wl ? c->wl : xcalloc(1, sizeof *s);
    c->wl = s;
    atomic_store(&s->cut, 0);
    int counts[MAX_SETS + 1], nsets = thread_counts(c->spec.threads, counts);
    uint64_t phase_ms = c->spec.time_ms / (uint64_t)(T_NR * nsets);
    if (phase_ms < 10) phase_ms = 10;
    if (c->progress) atomic_store(&c->progress->total_ms, phase_ms * (uint64_t)(T_NR * nsets));
    for (int k = 0; k < nsets; k++)
        if (run_count(c, r, counts[k], phase_ms, e) < 0) return -1;
    if (atomic_load(&s->cut)) {
        size_t l = strlen(r->note);
        snprintf(r->note + l, sizeof r->note - l, "%stiobench: a sequential phase reached its time share (--time / %d) "
                 "before the end of its file: give a longer --time or a smaller --size for full passes",
                 l ? "; " : "", T_NR * nsets);
    }
    return 0;
}

static void cleanup(struct probe_ctx *c)
{
    struct tio_state *s = c->wl;
    if (s) close_files(s);
    free(s);
    c->wl = NULL;
}

/* tiobench.pl's rates: 4 significant digits in 5 columns; CPU% 3. */
static void fmt_rate(double v, char *buf, size_t n)
{
    int prec = v < 10 ? 3 : v < 100 ? 2 : v < 1000 ? 1 : 0;
    snprintf(buf, n, "%.*f", prec, v);
}

static void fmt_cpu(double v, char *buf, size_t n)
{
    snprintf(buf, n, "%.*f%%", v < 10 ? 2 : v < 100 ? 1 : 0, v);
}

static void center(FILE *out, const char *s, int w)
{
    int len = (int)strlen(s), left = len < w ? (w - len) / 2 : 0;
    fprintf(out, "%*s%s%*s", left, "", s, len < w ? w - len - left : 0, "");
}

static const struct probe_phase *find_row(const struct probe_result *r, const char *name, int threads)
{
    for (int i = 0; i < r->nphases; i++)
        if (r->phase[i].threads == threads && strcmp(r->phase[i].name, name) == 0) return &r->phase[i];
    return NULL;
}

/* The table of the seed mails (tiobench.pl -T). */
static bool print_table(const struct probe_result *r, FILE *out)
{
    static const int col_phase[T_NR] = { T_SEQ_READ, T_RAND_READ, T_SEQ_WRITE, T_RAND_WRITE };
    const struct probe_spec *s = &r->spec;
    int counts[MAX_SETS + 1], nsets = thread_counts(s->threads, counts);
    fprintf(out, "  Size is MB, BlkSz is Bytes, Read, Write, and Seeks are MB/sec (MB = 2^20 bytes)\n\n");
    fprintf(out, "           File   Block  Num  Seq Read    Rand Read   Seq Write  Rand Write\n");
    fprintf(out, "    Dir    Size   Size   Thr Rate (CPU%%) Rate (CPU%%) Rate (CPU%%) Rate (CPU%%)\n");
    fprintf(out, "  ------- ------ ------- --- ----------- ----------- ----------- -----------\n");
    /* tiobench shows the --dir it was given, "." by default: the last
     * component here, the whole path is on the summary's first line. */
    const char *slash = s->ndirs ? strrchr(s->dir[0], '/') : NULL;
    char dir[8];
    snprintf(dir, sizeof dir, "%s", slash && slash[1] ? slash + 1 : s->ndirs ? s->dir[0] : ".");
    char size[24], bs[24];
    snprintf(size, sizeof size, "%llu", (unsigned long long)(s->size_bytes >> 20));
    snprintf(bs, sizeof bs, "%llu", (unsigned long long)s->bs);
    for (int k = 0; k < nsets; k++) {
        if (!find_row(r, phase_names[T_SEQ_WRITE], counts[k])) continue;   /* not reached (aborted) */
        char thr[16];
        snprintf(thr, sizeof thr, "%d", counts[k]);
        fputs("  ", out);
        center(out, dir, 7);
        fputc(' ', out);
        center(out, size, 6);
        fputc(' ', out);
        center(out, bs, 7);
        fputc(' ', out);
        center(out, thr, 3);
        for (int col = 0; col < T_NR; col++) {
            const struct probe_phase *p = find_row(r, phase_names[col_phase[col]], counts[k]);
            char rate[24] = "-", cpu[24] = "-";
            if (p) {
                fmt_rate(p->mb_s * 1e6 / 1048576.0, rate, sizeof rate);
                fmt_cpu(p->cpu_pct, cpu, sizeof cpu);
            }
            fprintf(out, " %5s %5s", rate, cpu);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
    return false;   /* the phase rows follow with their latencies */
}

static void fio_job(const struct probe_spec *s, FILE *out)
{
    fprintf(out, "; tiobench: four phases at 1, 2, 4, 8 threads; one of them (seq write at --threads):\n");
    probe_fio_global(s, out, "write");
    fprintf(out, "end_fsync=1\n\n[tiobench-seq-write]\n");
}

const struct probe_workload_ops workload_tiobench = {
    .name = "tiobench", .summary = "tiobench: seq/random write/read phases at 1, 2, 4, 8 threads, a file each, with CPU%",
    .flags = WL_READS | WL_WRITES | WL_BUFFERED_SIZED, .def_threads = 8, .def_bs = 4096,
    .validate = validate, .run = tio_run, .print = print_table, .fio_job = fio_job, .cleanup = cleanup,
};
