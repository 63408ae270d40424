/* Histogram math against fio's own values. */
#include "harness.h"
#include "stat/hist.h"

#include <math.h>
#include <stdlib.h>

TEST(hist_exact_below_128)
{
    for (uint64_t v = 0; v < 128; v++) {
        CHECK_INT(hist_index(v), v);
        CHECK_INT(hist_value(hist_index(v)), v);
    }
}

TEST(hist_known_buckets)
{
    /* fio: 128 -> idx 128 -> 129; 1000 ns -> 1004; 1 ms -> 1.0035 ms */
    CHECK_INT(hist_index(128), 128);
    CHECK_INT(hist_value(128), 129);
    CHECK_INT(hist_index(1000), 317);
    CHECK_INT(hist_value(317), 1004);
    CHECK_NEAR((double)hist_value(hist_index(1000000)) / 1e6, 1.0035, 0.0001);
    CHECK_INT(hist_index(255), 191);
    CHECK_INT(hist_index(256), 192);
    /* range: the last exact bucket is past four minutes */
    CHECK(HIST_MAX_EXACT_NS > 240ull * 1000000000ull);
    CHECK(hist_index(HIST_MAX_EXACT_NS) == HIST_NR - 1);
    CHECK(hist_index(UINT64_MAX) == HIST_NR - 1);
    CHECK(hist_index(240ull * 1000000000ull) < HIST_NR - 1);
}

TEST(hist_round_trip_within_1_128)
{
    double worst = 0;
    uint64_t v = 1;
    for (int i = 0; i < 200000 && v <= HIST_MAX_EXACT_NS; i++) {
        uint64_t got = hist_value(hist_index(v));
        double err = fabs((double)got - (double)v) / (double)v;
        if (err > worst) worst = err;
        v = v + 1 + v / 97;
    }
    CHECK(worst <= 1.0 / 128 + 1e-12);
    CHECK(worst > 0.007); /* the bound is attained near 128 ns */
    /* indices are monotonic in the value */
    unsigned last = 0;
    for (uint64_t x = 0; x < 100000; x += 7) {
        unsigned idx = hist_index(x);
        CHECK(idx >= last);
        last = idx;
    }
}

TEST(hist_percentiles_and_welford)
{
    static struct hist h;
    hist_init(&h);
    for (uint64_t i = 1; i <= 1000; i++) hist_add(&h, i * 1000); /* 1..1000 us */
    CHECK_INT(h.n, 1000);
    CHECK_INT(h.min_ns, 1000);
    CHECK_INT(h.max_ns, 1000000);
    CHECK_NEAR(h.mean_ns, 500500, 1e-6);
    /* sample stddev of 1..1000 times 1000 */
    CHECK_NEAR(hist_stddev(&h), 288819.436095, 1e-3);
    double p50 = (double)hist_percentile(&h, 50), p99 = (double)hist_percentile(&h, 99);
    CHECK(fabs(p50 - 500000) / 500000 <= 1.0 / 128);
    CHECK(fabs(p99 - 990000) / 990000 <= 1.0 / 128);
    CHECK_INT(hist_percentile(&h, 100), 1000000);
    /* exact at bucket edges (2^19 = 524288 starts a bucket) */
    CHECK_INT(hist_count_above(&h, 524287), 476);
    /* elsewhere the straddling bucket (width 4096 here) is left out */
    uint64_t above = hist_count_above(&h, 500000);
    CHECK(above >= 496 && above <= 500);
}

TEST(hist_merge_equals_single)
{
    static struct hist a, b, all;
    hist_init(&a);
    hist_init(&b);
    hist_init(&all);
    srand(7);
    for (int i = 0; i < 5000; i++) {
        uint64_t v = (uint64_t)(rand() % 1000000) + 50;
        hist_add(i % 3 ? &a : &b, v);
        hist_add(&all, v);
    }
    hist_merge(&a, &b);
    CHECK_INT(a.n, all.n);
    CHECK_INT(a.min_ns, all.min_ns);
    CHECK_INT(a.max_ns, all.max_ns);
    CHECK_NEAR(a.mean_ns, all.mean_ns, 1e-6);
    CHECK_NEAR(hist_stddev(&a), hist_stddev(&all), 1e-6);
    CHECK(memcmp(a.bucket, all.bucket, sizeof a.bucket) == 0);
    static struct hist empty;
    hist_init(&empty);
    hist_merge(&empty, &all);
    CHECK_INT(empty.min_ns, all.min_ns);
    CHECK_NEAR(empty.mean_ns, all.mean_ns, 1e-9);
    CHECK_INT(hist_percentile(&empty, 50), hist_percentile(&all, 50));
}

TEST(hist_encode_decode)
{
    static struct hist h, back;
    hist_init(&h);
    for (uint64_t v = 1; v < 1000000000ull; v *= 3) hist_add(&h, v);
    size_t need = hist_encoded_size(&h);
    unsigned char *buf = malloc(need);
    CHECK_INT(hist_encode(&h, buf), need);
    CHECK_INT(hist_decode(&back, buf, need), need);
    CHECK(memcmp(&h, &back, sizeof h) == 0);
    CHECK_INT(hist_decode(&back, buf, need - 1), 0);
    buf[0] = 'X';
    CHECK_INT(hist_decode(&back, buf, need), 0);
    CHECK_INT(back.n, 0);
    free(buf);
}

/* A reader due every 2 ms beside two writebacks of a 4 s run (2000 ticks),
 * shaped as measured (bench/data/reader-due.out): one that holds one read
 * for 500 ms in its final flush, one that slows 60 reads to 35 ms along the
 * way. Counted by real reads the first scores 0.3 ms and the second 35 ms;
 * counted by the reads due, the first is the worse for the reader. */
TEST(hist_add_paced_counts_the_reads_a_stall_held_back)
{
    const uint64_t tick = 2000000;
    struct hist one, spread, one_reads, spread_reads;
    hist_init(&one), hist_init(&spread), hist_init(&one_reads), hist_init(&spread_reads);
    uint64_t held = 0;
    /* the stall: 500 ms overran 249 ticks (498, 496, ..., 2 ms owed) */
    held += hist_add_paced(&one, 500000000, tick);
    hist_add(&one_reads, 500000000);
    CHECK_INT(held, 249);
    CHECK_INT(one.n, 250);
    CHECK_INT(one.max_ns, 500000000);
    CHECK_INT(one.min_ns, 2000000);
    for (int i = 0; i < 2000 - 250; i++) {
        held += hist_add_paced(&one, 300000, tick);   /* a fast read holds nothing back */
        hist_add(&one_reads, 300000);
    }
    CHECK_INT(held, 249);
    CHECK_INT(one.n, 2000);
    for (int i = 0; i < 60; i++) {
        CHECK_INT(hist_add_paced(&spread, 35000000, tick), 17);
        hist_add(&spread_reads, 35000000);
    }
    for (int i = 0; i < 2000 - 60 * 18; i++) {
        hist_add_paced(&spread, 300000, tick);
        hist_add(&spread_reads, 300000);
    }
    CHECK_INT(spread.n, 2000);
    /* the real reads alone: the concentrated stall looks harmless */
    CHECK(hist_percentile(&one_reads, 99) < 1000000);
    CHECK(hist_percentile(&spread_reads, 99) > 30000000);
    /* the reads due: 2.5% of the first run waited 450 ms or more */
    CHECK(hist_percentile(&one, 99) > 400000000);
    CHECK(hist_percentile(&spread, 99) < 40000000);
    CHECK(hist_percentile(&one, 99) > 10 * hist_percentile(&spread, 99));
    /* an exact tick is not overrun; no pace records the read alone */
    CHECK_INT(hist_add_paced(&one, tick, tick), 0);
    CHECK_INT(hist_add_paced(&one, tick + 1, tick), 1);
    CHECK_INT(hist_add_paced(&one, 9 * tick, 0), 0);
    /* the count and the sum without a histogram agree with it */
    for (uint64_t ns = 1; ns < 20 * tick; ns += 333333) {
        struct hist h;
        hist_init(&h);
        uint64_t sum, extra = paced_held_back(ns, tick, &sum);
        CHECK_INT(hist_add_paced(&h, ns, tick), extra);
        CHECK_NEAR(h.mean_ns * (double)h.n, (double)(ns + sum), 1.0);
    }
    uint64_t sum;
    CHECK_INT(paced_held_back(0, tick, &sum), 0);
    CHECK_INT(sum, 0);
}
