/* search_opts — a search spec's options as rows (fio's options.c model):
 * each row's type, bounds, default, help and label is the one statement of
 * it; `search`, `tune`, the Search screen's form and search_spec_defaults
 * all read them. Only --budget needs code: a number of evaluations or a
 * wall time. */
#include "search/search.h"
#include "core/opt.h"
#include "probe/probe.h"
#include "core/units.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int search_spec_parse_budget(const char *arg, struct search_spec *s, sl_err *e)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end != arg && !*end && v >= SEARCH_BUDGET_EVALS_MIN && v <= SEARCH_BUDGET_EVALS_MAX) {
        s->budget_evals = (int)v;
        s->budget_ms = 0;
        return 0;
    }
    long long ms = end != arg && !*end ? -1 : units_parse_duration_ms(arg);
    if (ms <= 0)
        return sl_fail(e, SL_EUSAGE, "--budget %s: give a number of evaluations from %d to %d or a wall time (90s, 10m)", arg,
                       SEARCH_BUDGET_EVALS_MIN, SEARCH_BUDGET_EVALS_MAX);
    s->budget_ms = ms;
    s->budget_evals = 0;
    return 0;
}

/* at: the spec (the row's offset is 0) */
static int set_budget(void *at, const struct opt *row, const char *text, sl_err *e)
{
    return search_spec_parse_budget(text, at, e);
}

static const char *workload_at(int i) { return i < probe_workload_count() ? probe_workload_name(i) : NULL; }
static const char *strategy_name_at(int i) { return i < strategy_count() ? strategy_at(i)->name : NULL; }

#define SPEC(field) OPT_AT(struct search_spec, field)
const struct opt search_spec_rows[] = {
    { .name = "space", .label = "Space", .type = OPT_TEXT, .arg = "S", .def = "writeback", SPEC(space),
      .help = "the parameter space: writeback, queue, full, or a space file", .complete = COMPLETE_SPACE },
    { .name = "device", .label = "Device", .type = OPT_TEXT, .arg = "DEV", SPEC(device),
      .help = "the disk whose queue knobs the space searches", .complete = COMPLETE_DEVICE },
    { .name = "workload", .label = "Workload", .type = OPT_CHOICE, .arg = "W", .def = "seqwrite", SPEC(workload),
      .help = "the probe workload every evaluation runs", .choice_at = workload_at, .complete = COMPLETE_WORKLOAD },
    { .name = "objective", .label = "Objective", .type = OPT_TEXT, .arg = "O", .def = "throughput", SPEC(objective),
      .help = "what to optimise: throughput, latency, p99<10ms, or a weighted mix" },
    { .name = "strategy", .label = "Strategy", .type = OPT_CHOICE, .arg = "STRATEGY", .def = "bo", SPEC(strategy),
      .help = "how to pick the next trial", .choice_at = strategy_name_at },
    { .name = "budget", .label = "Budget", .type = OPT_CALL, .arg = "N|DURATION", .def = "40",
      .help = "evaluations (" SEARCH_STR(SEARCH_BUDGET_EVALS_MIN) " or more) or a wall time (90s, 10m)", .set = set_budget },
    { .name = "seed", .label = "Seed", .type = OPT_U64, .arg = "N", .def = "1", SPEC(seed),
      .help = "random seed, for a repeatable search" },
    { .name = "alpha", .type = OPT_REAL, .arg = "A", .min = 0, .max = 0.5, .flags = OPT_MIN_OPEN | OPT_MAX_OPEN,
      .def = "0.05", SPEC(alpha), .help = "significance level of the verdict" },
    { .name = "leaders", .type = OPT_INT, .arg = "N", .min = 1, .max = SEARCH_MAX_LEADERS, .def = "3", SPEC(leaders),
      .help = "how many of the best trials are raced at the end" },
    { .name = "race", .type = OPT_INT, .arg = "N", .min = 2, .max = 100, .def = "5", SPEC(race_reps),
      .help = "runs per leader in the final race" },
    /* 0 in the spec: the default, which the budget may shrink (search.c,
     * confirm_keep); a number given is kept and the budget must afford it */
    { .name = "confirm-runs", .label = "Confirm runs", .type = OPT_INT, .arg = "N", .min = SEARCH_CONFIRM_REPS, .max = 100,
      .def = SEARCH_STR(SEARCH_CONFIRM_REPS), .flags = OPT_DEF_LATER, SPEC(confirm_reps),
      .help = "fresh runs each of the baseline and the winner before a claim (more: a narrower interval)" },
    { .name = "test", .type = OPT_ENUM, .arg = "TEST", .def = "perm-trim", SPEC(test), .help = "the test of the verdict",
      .choice_at = search_test_at, .choice_parse = search_test_parse },
    { .name = "ei-stop", .type = OPT_REAL, .arg = "R", .min = 0, .max = INFINITY, .def = "0.002", SPEC(ei_stop),
      .help = "stop when the expected relative improvement falls below R (0: never)" },
    { NULL },
};
#undef SPEC

void search_spec_option_defaults(struct search_spec *s)
{
    const struct opt_table t = { sizeof *s, NULL, { { search_spec_rows, 0 } }, NULL, NULL };
    sl_err e;
    if (opt_defaults(&t, s, &e) < 0) abort();   /* a row's default that its own row refuses: the unit tests catch it */
}
