/* The noise-aware Pareto front: a configuration leaves the front only when
 * another is better on both metrics beyond noise; members carry intervals.
 * Reference: t(0.975, 12) = 2.178813 (t tables; R: qt(0.975, 12)). */
#include "harness.h"
#include "search/search.h"

#include <math.h>
#include <string.h>

static struct pareto_point pt(int id, double mbs, double p99_ms, int n, double sd_mbs, double sd_ms)
{
    struct pareto_point p;
    memset(&p, 0, sizeof p);
    p.cfg.lv[0] = id;
    p.n = n;
    p.mean.v[MET_THROUGHPUT] = mbs;
    p.mean.v[MET_P99] = p99_ms;
    p.sd.v[MET_THROUGHPUT] = sd_mbs;
    p.sd.v[MET_P99] = sd_ms;
    p.mean.has[MET_THROUGHPUT] = p.mean.has[MET_P99] = true;
    return p;
}

static const int front_metrics[2] = { MET_THROUGHPUT, MET_P99 };

TEST(pareto_keeps_configurations_within_noise_of_a_dominating_one)
{
    struct pareto_point pts[5] = {
        pt(0, 100, 10.0, 5, 5, 1),   /* A */
        pt(1, 102, 9.8, 5, 5, 1),    /* B: better on both, but by less than the noise */
        pt(2, 80, 15.0, 5, 5, 1),    /* C: worse on both beyond noise */
        pt(3, 120, 30.0, 1, 0, 0),   /* D: one run, the best throughput */
        pt(4, 90, 10.5, 1, 0, 0),    /* E: one run, 10 MB/s below A: within the pooled noise */
    };
    struct pareto_point front[SEARCH_MAX_PARETO];
    int n = search_pareto_front(pts, 5, front_metrics, front, SEARCH_MAX_PARETO);
    /* plain dominance on means would keep only D and B */
    CHECK_INT(n, 4);
    CHECK_INT(front[0].cfg.lv[0], 3);
    CHECK_INT(front[1].cfg.lv[0], 1);
    CHECK_INT(front[2].cfg.lv[0], 0);
    CHECK_INT(front[3].cfg.lv[0], 4);
    /* pooled sd 5 MB/s and 1 ms over A, B, C (df 12) */
    CHECK_NEAR(front[2].lo[0], 100 - 2.178813 * 5 / sqrt(5), 1e-4);
    CHECK_NEAR(front[2].hi[1], 10 + 2.178813 * 1 / sqrt(5), 1e-4);
    CHECK_NEAR(front[0].lo[0], 120 - 2.178813 * 5, 1e-4);
}

TEST(pareto_lists_at_most_max_members_and_counts_the_rest)
{
    struct pareto_point pts[3] = { pt(0, 100, 10, 3, 1, 0.1), pt(1, 200, 20, 3, 1, 0.1), pt(2, 300, 30, 3, 1, 0.1) };
    struct pareto_point front[2];
    CHECK_INT(search_pareto_front(pts, 3, front_metrics, front, 2), 3);
    CHECK_INT(front[0].cfg.lv[0], 2);
    CHECK_INT(front[1].cfg.lv[0], 1);
}

TEST(pareto_without_repeated_runs_leaves_nothing_out)
{
    struct pareto_point pts[2] = { pt(0, 100, 10, 1, 0, 0), pt(1, 50, 20, 1, 0, 0) };
    struct pareto_point front[2];
    CHECK_INT(search_pareto_front(pts, 2, front_metrics, front, 2), 2);
    CHECK(isnan(front[1].lo[0]));
}

TEST(pareto_drops_a_configuration_dominated_beyond_noise)
{
    struct pareto_point pts[2] = { pt(0, 100, 10, 5, 1, 0.1), pt(1, 90, 11, 5, 1, 0.1) };
    struct pareto_point front[2];
    CHECK_INT(search_pareto_front(pts, 2, front_metrics, front, 2), 1);
    CHECK_INT(front[0].cfg.lv[0], 0);
}
