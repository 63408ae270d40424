/* cost — what a search will write and take, said before it starts (the
 * Search form shows it before s): the plan
 * search_flow_run would make (search_plan_make, the burst sized as
 * burst.c sizes it), from what is known before the calibration run
 * measures the disk. */
#ifndef SLUICE_SEARCH_COST_H
#define SLUICE_SEARCH_COST_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "probe/probe.h"
#include "search/run.h"

struct search_cost {
    bool oracle;              /* replays stored runs: nothing written, no plan */
    bool run_known;           /* false: a --size burst, whose time the calibration measures at start */
    bool plan_known;          /* plan is made: the run time is known, or the budget is in evaluations */
    struct search_plan plan;  /* when plan_known (run_s 0 when not run_known) */
    uint64_t burst_bytes;     /* what one evaluation writes at most (0: not a burst) */
    bool burst_sized;         /* the burst is sized at start to about BURST_TARGET_S of the disk's rate */
    uint64_t calibration_bytes; /* written once before the first evaluation (0: none) */
    uint64_t write_bytes;     /* the whole plan, calibration included, at most (0: unknown, as for a sized burst) */
    uint64_t free_bytes;      /* under free_dir (0: unknown) */
    char free_dir[PATH_MAX];  /* the first directory the search writes in: the typed one, or the default */
    bool over_budget;         /* the budget cannot reach a verdict */
    long long need_ms;        /* the time budget a verdict needs */
};

/* The cost of the search o describes (checked options, as search_flow_check
 * leaves them), reading only the free space and memory. Never fails: what
 * it cannot know is left unknown (run_known false, write_bytes 0). */
void search_cost_estimate(const struct search_flow_opts *o, struct search_cost *c);

#endif
