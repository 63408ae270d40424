/* search_fixture — the set-up the search tests share (search_fixture.h). */
#include "search_fixture.h"
#include "harness.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <string.h>

struct space wb;

void fx_setup(void)
{
    sl_err e;
    sysfs_set_root(harness_fixture_copy("modern"), &e);
    if (space_build("writeback", NULL, &wb, &e) < 0) printf("  %s\n", e.msg);
}

void fx_spec(struct search_spec *s, const char *strategy, int budget, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    search_spec_defaults(s);
    snprintf(s->space, sizeof s->space, "writeback");
    snprintf(s->workload, sizeof s->workload, "synthetic");
    snprintf(s->objective, sizeof s->objective, "throughput");
    snprintf(s->strategy, sizeof s->strategy, "%s", strategy);
    s->budget_evals = budget;
    s->seed = seed;
}

void fx_synthetic(struct search_spec *s, struct evaluator *ev, const char *strategy, int budget, uint64_t seed,
                  uint64_t shape_seed, uint64_t noise_seed, double cv, bool flat)
{
    fx_spec(s, strategy, budget, seed);
    evaluator_synthetic(ev, shape_seed, noise_seed, cv, flat);
}

void fx_run(struct search_spec *s, struct evaluator *ev, const struct search_hooks *hk, struct search_result *r)
{
    sl_err e;
    CHECK_INT(search_run(s, &wb, ev, hk, r, &e), 0);
}

void fx_done(struct search_result *r, struct evaluator *ev)
{
    search_result_free(r);
    evaluator_free(ev);
}
