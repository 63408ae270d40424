/* evidence: configuration selectors match whole lines, diffs between
 * recorded configurations, changes from the catalogue defaults, and the
 * two-sample comparison's direction. */
#include "harness.h"
#include "search/evidence.h"

#include <math.h>
#include <stdlib.h>

TEST(evidence_selectors_match_whole_lines)
{
    const char *cfg = "vm.dirty_background_ratio=10\nvm.dirty_ratio=20\nvm.swappiness=60\n";
    CHECK(evidence_config_has(cfg, "vm.dirty_ratio=20"));
    CHECK(evidence_config_has(cfg, "vm.dirty_ratio=20,vm.swappiness=60"));
    CHECK(evidence_config_has(cfg, "vm.dirty_ratio=20 vm.dirty_background_ratio=10"));
    CHECK(!evidence_config_has(cfg, "vm.dirty_ratio=2"));
    CHECK(!evidence_config_has(cfg, "ratio=20"));
    CHECK(!evidence_config_has(cfg, "vm.dirty_ratio=20,vm.swappiness=6"));
    CHECK_INT(evidence_changes_from_defaults(cfg), 0);
    CHECK_INT(evidence_changes_from_defaults("vm.dirty_ratio=40\nvm.dirty_expire_centisecs=3000\n"), 1);
    char diff[256];
    evidence_config_diff(cfg, "vm.dirty_background_ratio=5\nvm.dirty_ratio=20\nvm.swappiness=60\nvm.new=1\n", diff, sizeof diff);
    CHECK_STR(diff, "vm.dirty_background_ratio=5");
}

TEST(evidence_compare_direction_and_noise)
{
    struct objective o;
    sl_err e;
    CHECK_INT(objective_parse("throughput", &o, &e), 0);
    struct eval_metrics a[5], b[5], c[5];
    double av[5] = { 100, 101, 99, 100.5, 99.5 }, bv[5] = { 120, 121, 119, 120.5, 119.5 }, cv[5] = { 100.2, 99.1, 100.9, 99.7, 100.4 };
    for (int i = 0; i < 5; i++) {
        a[i] = (struct eval_metrics){ .v = { [MET_THROUGHPUT] = av[i] }, .has = { [MET_THROUGHPUT] = true } };
        b[i] = (struct eval_metrics){ .v = { [MET_THROUGHPUT] = bv[i] }, .has = { [MET_THROUGHPUT] = true } };
        c[i] = (struct eval_metrics){ .v = { [MET_THROUGHPUT] = cv[i] }, .has = { [MET_THROUGHPUT] = true } };
    }
    struct comparison cmp;
    evidence_compare(&o, a, 5, b, 5, 0.05, TEST_WELCH, &cmp);
    CHECK_INT(cmp.l.verdict, VERDICT_WIN);
    CHECK_NEAR(cmp.l.ci.est, 0.2, 0.01);
    evidence_compare(&o, b, 5, a, 5, 0.05, TEST_WELCH, &cmp);
    CHECK_INT(cmp.l.verdict, VERDICT_WORSE);
    evidence_compare(&o, a, 5, c, 5, 0.05, TEST_WELCH, &cmp);
    CHECK_INT(cmp.l.verdict, VERDICT_NOISE);
    /* a latency objective: less is better, so B with lower p99 wins */
    CHECK_INT(objective_parse("p99", &o, &e), 0);
    for (int i = 0; i < 5; i++) {
        a[i].v[MET_P99] = 10 + 0.1 * i; a[i].has[MET_P99] = true;
        b[i].v[MET_P99] = 5 + 0.1 * i; b[i].has[MET_P99] = true;
    }
    evidence_compare(&o, a, 5, b, 5, 0.05, TEST_WELCH, &cmp);
    CHECK_INT(cmp.l.verdict, VERDICT_WIN);
    CHECK(cmp.l.ci.est > 0.9);
}

TEST(evidence_top_workload_counts_and_ties_first_seen)
{
    const char *names[] = { "seqread", "fsync", "fsync", "seqread", "null", "fsync", "seqread" };
    struct evidence ev = { 0 };
    ev.n = 7;
    ev.run = calloc(7, sizeof *ev.run);
    char top[32];
    for (int i = 0; i < 7; i++) snprintf(ev.run[i].workload, sizeof ev.run[i].workload, "%s", names[i]);
    evidence_top_workload(&ev, top, sizeof top);
    CHECK_STR(top, "seqread");   /* 3 and 3: seqread was seen first */
    snprintf(ev.run[0].workload, sizeof ev.run[0].workload, "null");
    evidence_top_workload(&ev, top, sizeof top);
    CHECK_STR(top, "fsync");
    ev.n = 0;
    evidence_top_workload(&ev, top, sizeof top);
    CHECK_STR(top, "");
    free(ev.run);
}

/* #31: a group mixing ramp times was refused as "different work", and two
 * sizes that round alike read "size=12 GiB vs size=12 GiB". */
#include "search/compare.h"
TEST(compare_work_diff_tells_incidental_from_material)
{
    const char *a = "bs=1048576\nfixed_work=1\nramp_ms=0\nsize_bytes=12884901888\ntime_ms=600000\nworkload=seqwrite\n";
    const char *b = "bs=1048576\nfixed_work=1\nramp_ms=50\nsize_bytes=12884905984\ntime_ms=300000\nworkload=seqwrite\n";
    char material[256], minor[256];
    compare_work_diff(a, b, material, sizeof material, minor, sizeof minor);
    CHECK_STR(material, "size_bytes=12884901888 vs size_bytes=12884905984");
    CHECK_STR(minor, "ramp_ms=0 vs ramp_ms=50, time_ms=600000 vs time_ms=300000");
    const char *c = "bs=1048576\nfixed_work=1\nramp_ms=0\nsize_bytes=12884901888\ntime_ms=600000\nworkload=seqwrite\n";
    const char *d = "bs=1048576\nramp_ms=0\nsize_bytes=25769803776\ntime_ms=5000\nworkload=seqwrite\n";
    compare_work_diff(c, d, material, sizeof material, minor, sizeof minor);
    CHECK_CONTAINS(material, "size=12 GiB vs size=24 GiB");
    CHECK_CONTAINS(material, "time_ms=600000 vs time_ms=5000");   /* a timed run: its time is its work */
    CHECK_CONTAINS(material, "fixed_work=1 vs (nothing)");
    CHECK_STR(minor, "");
}
