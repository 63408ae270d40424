/* pread_shim — LD_PRELOADed into sluice and into fio by bench/probe-vs-fio
 * --explain: times every pread of PREAD_SHIM_BS bytes from the libc call to
 * its return, the same way in both processes, and at exit writes
 * "ios=N p50_ns=X p99_ns=Y" to PREAD_SHIM_OUT. So it tells whether the read
 * itself takes longer in one tool's process than in the other's, apart from
 * what each tool adds around it. Per-thread slots (up to 64 threads), no
 * locks on the read path. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 65536
#define SLOTS 64

static uint64_t hist[SLOTS][BUCKETS];
static atomic_int next_slot;
static __thread int slot = -1;
static size_t timed_bs;
static ssize_t (*real_pread)(int, void *, size_t, off_t);

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((constructor)) static void shim_init(void)
{
    real_pread = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    const char *bs = getenv("PREAD_SHIM_BS");
    timed_bs = bs ? strtoull(bs, NULL, 10) : 4096;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    if (slot < 0) slot = atomic_fetch_add(&next_slot, 1) % SLOTS;
    uint64_t t0 = now_ns();
    ssize_t r = real_pread(fd, buf, n, off);
    uint64_t d = now_ns() - t0;
    if (n == timed_bs) hist[slot][d < BUCKETS ? d : BUCKETS - 1]++;
    return r;
}
ssize_t pread64(int fd, void *buf, size_t n, off_t off) __attribute__((alias("pread")));

__attribute__((destructor)) static void shim_report(void)
{
    const char *out = getenv("PREAD_SHIM_OUT");
    static uint64_t sum[BUCKETS];
    uint64_t total = 0, seen = 0, p50 = 0, p99 = 0;
    for (int s = 0; s < SLOTS; s++)
        for (int i = 0; i < BUCKETS; i++) { sum[i] += hist[s][i]; total += hist[s][i]; }
    if (!out || !total) return;
    for (int i = 0; i < BUCKETS; i++) {
        seen += sum[i];
        if (!p50 && seen >= total / 2) p50 = (uint64_t)i;
        if (!p99 && seen >= total * 99 / 100) { p99 = (uint64_t)i; break; }
    }
    FILE *f = fopen(out, "w");
    if (!f) return;
    fprintf(f, "ios=%llu p50_ns=%llu p99_ns=%llu\n", (unsigned long long)total, (unsigned long long)p50,
            (unsigned long long)p99);
    fclose(f);
}
