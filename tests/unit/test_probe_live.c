/* The probe's live view (probe.h struct probe_live): what a worker copies
 * aside mid-run reaches the published histogram, the final publish equals
 * the result, and nobody watching costs one check per I/O. */
#include "harness.h"
#include "probe/probe.h"
#include "probe/workload.h"
#include "core/sysfs.h"

#include <stdlib.h>

TEST(probe_live_worker_copy_reaches_snapshot)
{
    static struct probe_live live;
    static struct probe_progress pg;
    static struct probe_ctx c;
    static struct probe_thread t;
    struct probe_result *r = probe_result_new();
    probe_live_init(&live);
    pg.live = &live;
    c.progress = &pg;
    c.result = r;
    t.ctx = &c;
    for (int op = 0; op < PROBE_OP_NR; op++) hist_init(&t.hist[op]);
    hist_init(&t.pub);
    pthread_mutex_init(&t.pub_mu, NULL);
    probe_live_begin(&c, 2);
    /* The first measured I/O is copied aside at once, the next ones only
     * 100 ms later: the snapshot shows what was copied, not more. */
    probe_account(&t, PROBE_WRITE, 1000, 2000, 4096);
    probe_account(&t, PROBE_READ, 2000, 2500, 4096);
    probe_account(&t, PROBE_WRITE, 3000, 3700, 4096);
    probe_live_publish(&c, &t, 1);
    static struct hist snap;
    int rep = -1;
    uint64_t seq = probe_live_copy(&live, &snap, &rep);
    CHECK(seq >= 2);
    CHECK_INT(rep, 2);
    CHECK_INT(snap.n, 1);
    CHECK_INT(snap.max_ns, 1000);
    /* 100 ms on, the copy catches up with all three. */
    probe_account(&t, PROBE_READ, 200000000ull, 200000000ull + 900, 4096);
    probe_live_publish(&c, &t, 1);
    CHECK(probe_live_copy(&live, &snap, NULL) > seq);
    CHECK_INT(snap.n, 4);
    /* The end of a phase: the result's merged histograms, complete. */
    hist_merge(&r->op[PROBE_WRITE].hist, &t.hist[PROBE_WRITE]);
    hist_merge(&r->op[PROBE_READ].hist, &t.hist[PROBE_READ]);
    probe_live_publish(&c, NULL, 0);
    probe_live_copy(&live, &snap, NULL);
    CHECK_INT(snap.n, 4);
    CHECK_INT(snap.min_ns, 500);
    /* Nobody watching: the thread stops copying. */
    pg.live = NULL;
    probe_account(&t, PROBE_WRITE, 500000000ull, 500000000ull + 10, 4096);
    CHECK(t.pub_next_ns == UINT64_MAX);
    pthread_mutex_destroy(&t.pub_mu);
    probe_live_destroy(&live);
    probe_result_free(r);
}

TEST(probe_live_null_run_publishes_each_repetition)
{
    sl_err e;
    const char *root = harness_fixture_copy("modern");
    CHECK_INT(sysfs_set_root(root, &e), 0);
    static struct probe_live live;
    static struct probe_progress pg;
    probe_live_init(&live);
    pg.live = &live;
    struct probe_spec s = { .threads = 2, .repeat = 2, .seed = 7, .seed_set = true, .canary = 0 };
    snprintf(s.workload, sizeof s.workload, "null");
    struct probe *p = NULL;
    CHECK_INT(probe_open(&s, &p, &e), 0);
    static struct hist snap;
    for (int i = 0; p && i < 2; i++) {
        struct probe_result *r = probe_result_new();
        CHECK_INT(probe_rep(p, i, r, &pg, &e), 0);
        int rep = -1;
        probe_live_copy(&live, &snap, &rep);
        CHECK_INT(rep, i);
        CHECK_INT(snap.n, r->op[PROBE_WRITE].hist.n + r->op[PROBE_READ].hist.n);
        CHECK_INT(snap.max_ns, r->op[PROBE_WRITE].hist.max_ns);
        probe_result_free(r);
    }
    probe_close(p);
    probe_live_destroy(&live);
    sysfs_set_root(NULL, &e);
}
