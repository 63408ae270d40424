/* hist — fio-compatible log-linear latency histogram (fio stat.h,
 * FIO_IO_U_PLAT_BITS = 6): values in ns, exact below 128, then 64 buckets per
 * power of two, so a reported value is within 1/128 of the true one. fio stops
 * at 2^34 ns (17 s); we keep 33 groups (up to 2^38 ns, 4.6 minutes) so
 * writeback stalls do not saturate. Also min/max (exact) and a Welford
 * mean/variance. One histogram per thread, merged at the end: never average
 * percentiles. */
#ifndef SLUICE_HIST_H
#define SLUICE_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_BITS 6
#define HIST_VAL (1u << HIST_BITS)          /* 64 sub-buckets per power of two */
#define HIST_GROUPS 33
#define HIST_NR (HIST_GROUPS * HIST_VAL)    /* 2112 buckets, 16.9 KiB */
/* Largest value kept exactly in its bucket: 2^(HIST_GROUPS+HIST_BITS-1) - 1 ns. */
#define HIST_MAX_EXACT_NS ((1ull << (HIST_GROUPS + HIST_BITS - 1)) - 1)

struct hist {
    uint64_t n;
    uint64_t min_ns, max_ns;   /* exact; min is UINT64_MAX while empty */
    double mean_ns, m2;        /* Welford: m2 = sum of squared deviations */
    uint64_t bucket[HIST_NR];
};

void hist_init(struct hist *h);

/* Bucket of a value (fio plat_val_to_idx), clamped to the last bucket. */
static inline unsigned hist_index(uint64_t ns)
{
    if (ns < 2 * HIST_VAL) return (unsigned)ns;
    unsigned msb = 63u - (unsigned)__builtin_clzll(ns);
    unsigned e = msb - HIST_BITS;
    unsigned idx = (e + 1) * HIST_VAL + (unsigned)((ns >> e) & (HIST_VAL - 1));
    return idx < HIST_NR ? idx : HIST_NR - 1;
}

/* The value a bucket stands for: exact below 128, else its midpoint
 * (fio plat_idx_to_val). */
uint64_t hist_value(unsigned idx);

/* Record one sample: O(1), no allocation; the only per-I/O cost of stats. */
static inline void hist_add(struct hist *h, uint64_t ns)
{
    h->bucket[hist_index(ns)]++;
    h->n++;
    if (ns < h->min_ns) h->min_ns = ns;
    if (ns > h->max_ns) h->max_ns = ns;
    double d = (double)ns - h->mean_ns;
    h->mean_ns += d / (double)h->n;
    h->m2 += d * ((double)ns - h->mean_ns);
}

/* Record one operation of a paced, depth-1 loop that waits for each one
 * before the next (a reader due every period_ns that skips the ticks a slow
 * read overran): its own ns, and for each tick it overran, the wait an
 * operation due then would have had: ns - period, ns - 2 period, ... while
 * positive. Without them a stall is one sample however long it lasts, so a
 * configuration that concentrates its stalls looks better than one that
 * spreads them ("coordinated omission": HdrHistogram's
 * recordValueWithExpectedInterval, wrk2). Returns how many it added beyond
 * the operation's own. */
uint64_t hist_add_paced(struct hist *h, uint64_t ns, uint64_t period_ns);
/* The same ticks without a histogram: how many an operation of ns overran,
 * and in *sum_ns the waits owed at them (ns - period + ns - 2 period ...),
 * for a mean over the reads due (verify --live's canary). */
static inline uint64_t paced_held_back(uint64_t ns, uint64_t period_ns, uint64_t *sum_ns)
{
    uint64_t h = period_ns && ns ? (ns - 1) / period_ns : 0;
    *sum_ns = h * ns - period_ns * (h * (h + 1) / 2);
    return h;
}

/* dst += src: buckets add, min/max combine, mean/variance by Chan's parallel
 * formula (fio __sum_stat). */
void hist_merge(struct hist *dst, const struct hist *src);

/* The p-th percentile (0 < p <= 100): the value of the first bucket where the
 * cumulative count reaches p/100 of n (fio calc_clat_percentiles). 0 when
 * empty. p = 100 returns the exact max. */
uint64_t hist_percentile(const struct hist *h, double p);
/* Sample standard deviation sqrt(m2/(n-1)); 0 below two samples. */
double hist_stddev(const struct hist *h);
/* Samples above a threshold, counted from the buckets lying wholly above it:
 * exact when ns + 1 starts a bucket (e.g. 2^k - 1), otherwise the bucket
 * straddling ns (width <= ns/64) is left out. */
uint64_t hist_count_above(const struct hist *h, uint64_t ns);

/* Compact, portable encoding (little-endian: magic "SLH1", n, min, max,
 * mean, m2, count of non-empty buckets, then (u16 index, u64 count) pairs).
 * hist_encoded_size gives the bytes hist_encode writes. */
size_t hist_encoded_size(const struct hist *h);
size_t hist_encode(const struct hist *h, unsigned char *out);
/* Decode one histogram from buf; returns the bytes consumed, 0 when the data
 * is malformed (h is then empty). */
size_t hist_decode(struct hist *h, const unsigned char *buf, size_t len);

#endif
