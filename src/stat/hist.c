/* hist — log-linear histogram math, merging and a portable encoding. */
#include "stat/hist.h"

#include <math.h>
#include <string.h>

void hist_init(struct hist *h)
{
    memset(h, 0, sizeof *h);
    h->min_ns = UINT64_MAX;
}

static uint64_t bucket_lower(unsigned idx)
{
    if (idx < 2 * HIST_VAL) return idx;
    unsigned e = (idx >> HIST_BITS) - 1;
    uint64_t base = 1ull << (e + HIST_BITS);
    return base + (uint64_t)(idx % HIST_VAL) * (1ull << e);
}

uint64_t hist_value(unsigned idx)
{
    if (idx >= HIST_NR) idx = HIST_NR - 1;
    if (idx < 2 * HIST_VAL) return idx;
    unsigned e = (idx >> HIST_BITS) - 1;
    /* midpoint: lower + half the bucket width (width 2^e, e >= 1 here) */
    return bucket_lower(idx) + (1ull << e) / 2;
}

uint64_t hist_add_paced(struct hist *h, uint64_t ns, uint64_t period_ns)
{
    hist_add(h, ns);
    uint64_t sum, held = paced_held_back(ns, period_ns, &sum);
    for (uint64_t j = 1; j <= held; j++) hist_add(h, ns - j * period_ns);
    return held;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    if (src->n == 0) return;
    for (unsigned i = 0; i < HIST_NR; i++) dst->bucket[i] += src->bucket[i];
    if (src->min_ns < dst->min_ns) dst->min_ns = src->min_ns;
    if (src->max_ns > dst->max_ns) dst->max_ns = src->max_ns;
    double na = (double)dst->n, nb = (double)src->n, n = na + nb;
    double delta = src->mean_ns - dst->mean_ns;
    dst->mean_ns += delta * nb / n;
    dst->m2 += src->m2 + delta * delta * na * nb / n;
    dst->n += src->n;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
    if (h->n == 0) return 0;
    if (p >= 100.0) return h->max_ns;
    double want = p / 100.0 * (double)h->n;
    uint64_t cum = 0;
    for (unsigned i = 0; i < HIST_NR; i++) {
        cum += h->bucket[i];
        if (h->bucket[i] && (double)cum >= want) {
            uint64_t v = hist_value(i);
            /* A midpoint can lie outside what was seen: keep it honest. */
            if (v > h->max_ns) v = h->max_ns;
            if (v < h->min_ns) v = h->min_ns;
            return v;
        }
    }
    return h->max_ns;
}

double hist_stddev(const struct hist *h)
{
    if (h->n < 2) return 0;
    return sqrt(h->m2 / (double)(h->n - 1));
}

uint64_t hist_count_above(const struct hist *h, uint64_t ns)
{
    uint64_t c = 0;
    for (unsigned i = hist_index(ns); i < HIST_NR; i++)
        if (bucket_lower(i) > ns) c += h->bucket[i];
    return c;
}

/* --- encoding --------------------------------------------------------- */

static unsigned char *put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bits_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

#define HEADER_BYTES (4 + 8 * 5 + 4)

size_t hist_encoded_size(const struct hist *h)
{
    size_t used = 0;
    for (unsigned i = 0; i < HIST_NR; i++) used += h->bucket[i] != 0;
    return HEADER_BYTES + used * 10;
}

size_t hist_encode(const struct hist *h, unsigned char *out)
{
    unsigned char *p = out;
    memcpy(p, "SLH1", 4);
    p += 4;
    p = put_u64(p, h->n);
    p = put_u64(p, h->min_ns);
    p = put_u64(p, h->max_ns);
    p = put_u64(p, double_bits(h->mean_ns));
    p = put_u64(p, double_bits(h->m2));
    uint32_t used = 0;
    for (unsigned i = 0; i < HIST_NR; i++) used += h->bucket[i] != 0;
    for (int i = 0; i < 4; i++) *p++ = (unsigned char)(used >> (8 * i));
    for (unsigned i = 0; i < HIST_NR; i++) {
        if (!h->bucket[i]) continue;
        *p++ = (unsigned char)(i & 0xff);
        *p++ = (unsigned char)(i >> 8);
        p = put_u64(p, h->bucket[i]);
    }
    return (size_t)(p - out);
}

size_t hist_decode(struct hist *h, const unsigned char *buf, size_t len)
{
    hist_init(h);
    if (len < HEADER_BYTES || memcmp(buf, "SLH1", 4) != 0) return 0;
    const unsigned char *p = buf + 4;
    uint64_t n = get_u64(p), min = get_u64(p + 8), max = get_u64(p + 16);
    double mean = bits_double(get_u64(p + 24)), m2 = bits_double(get_u64(p + 32));
    p += 40;
    uint32_t used = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    p += 4;
    if (used > HIST_NR || len - HEADER_BYTES < (size_t)used * 10) return 0;
    uint64_t total = 0;
    /* hist_encode writes indices in increasing order: a repeated index would
     * let the counts add up to n while buckets are lost (found by fuzzing),
     * and a wrapped total would pass as a small n. */
    for (uint32_t k = 0; k < used; k++, p += 10) {
        unsigned idx = (unsigned)p[0] | (unsigned)p[1] << 8;
        uint64_t count = get_u64(p + 2);
        if (idx >= HIST_NR || (k > 0 && idx <= (unsigned)(p[-10] | p[-9] << 8)) || total + count < total) {
            hist_init(h);
            return 0;
        }
        h->bucket[idx] = count;
        total += count;
    }
    if (total != n) { hist_init(h); return 0; }
    h->n = n;
    h->min_ns = min;
    h->max_ns = max;
    h->mean_ns = mean;
    h->m2 = m2;
    return (size_t)(p - buf);
}
