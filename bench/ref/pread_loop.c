/* pread_loop — the reference instrument bench/probe-vs-fio runs each round
 * of its psync job: the random reads with nothing around the call. THREADS
 * threads, each with its own file of SIZE/THREADS bytes in DIR, read BS at
 * a time at uniformly random aligned offsets for TIME seconds after RAMP
 * seconds; the interval is the pread call (clock_gettime on both sides,
 * as sluice), kept in 1 ns buckets, so the percentiles are exact.
 * Usage: pread_loop DIR THREADS SIZE_BYTES BS TIME_S RAMP_S
 * Prints: ios=N p50_ns=X p99_ns=Y */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 65536   /* 1 ns each; slower reads count in the last one */

static const char *dir;
static uint64_t file_bytes, bs, time_ns, ramp_ns;
static uint64_t hist[BUCKETS];
static pthread_mutex_t hist_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *reader(void *arg)
{
    long id = (long)arg;
    char path[4096];
    snprintf(path, sizeof path, "%s/pread_loop.%d.%ld", dir, (int)getpid(), id);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    char *buf = aligned_alloc(4096, bs);
    if (fd < 0 || !buf) { perror(path); exit(1); }
    memset(buf, 0x5a, bs);
    for (uint64_t off = 0; off < file_bytes; off += bs)
        if (pwrite(fd, buf, bs, (off_t)off) != (ssize_t)bs) { perror(path); exit(1); }
    uint64_t *mine = calloc(BUCKETS, sizeof *mine);
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1), blocks = file_bytes / bs;
    pthread_barrier_wait(&start);
    uint64_t begin = now_ns(), counted_from = begin + ramp_ns, end = counted_from + time_ns;
    for (;;) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;   /* xorshift64 */
        uint64_t off = (x % blocks) * bs;
        uint64_t t0 = now_ns();
        ssize_t r = pread(fd, buf, bs, (off_t)off);
        uint64_t t1 = now_ns();
        if (r != (ssize_t)bs) { perror(path); exit(1); }
        if (t0 >= counted_from) mine[t1 - t0 < BUCKETS ? t1 - t0 : BUCKETS - 1]++;
        if (t1 >= end) break;
    }
    pthread_mutex_lock(&hist_lock);
    for (int i = 0; i < BUCKETS; i++) hist[i] += mine[i];
    pthread_mutex_unlock(&hist_lock);
    free(mine);
    free(buf);
    close(fd);
    unlink(path);
    return NULL;
}

static uint64_t percentile(uint64_t total, double pct)
{
    uint64_t seen = 0;
    for (int i = 0; i < BUCKETS; i++)
        if ((seen += hist[i]) >= (uint64_t)(total * pct / 100.0)) return (uint64_t)i;
    return BUCKETS - 1;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: pread_loop DIR THREADS SIZE_BYTES BS TIME_S RAMP_S\n");
        return 2;
    }
    dir = argv[1];
    int threads = atoi(argv[2]);
    bs = strtoull(argv[4], NULL, 10);
    file_bytes = strtoull(argv[3], NULL, 10) / (uint64_t)threads / bs * bs;
    time_ns = (uint64_t)(atof(argv[5]) * 1e9);
    ramp_ns = (uint64_t)(atof(argv[6]) * 1e9);
    if (threads < 1 || threads > 64 || bs == 0 || file_bytes < bs) {
        fprintf(stderr, "pread_loop: bad arguments\n");
        return 2;
    }
    pthread_t t[64];
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, reader, (void *)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    uint64_t total = 0;
    for (int i = 0; i < BUCKETS; i++) total += hist[i];
    printf("ios=%llu p50_ns=%llu p99_ns=%llu\n", (unsigned long long)total,
           (unsigned long long)percentile(total, 50), (unsigned long long)percentile(total, 99));
    return 0;
}
