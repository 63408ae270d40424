/* The options of `sluice search` one at a time, as the command line and the
 * Search screen's form both set them (search_flow_set, search_flow_check). */
#include "harness.h"
#include "search/run.h"

TEST(search_option_sets_what_the_command_line_sets)
{
    struct search_flow_opts o;
    sl_err e;
    search_flow_defaults(&o);
    CHECK_INT(search_flow_set(&o, "--budget", "20", &e), 0);
    CHECK_INT(o.spec.budget_evals, 20);
    CHECK_INT(search_flow_set(&o, "--time", "250ms", &e), 0);
    CHECK_INT((int)o.probe.time_ms, 250);
    CHECK_INT(search_flow_set(&o, "--workload", "null", &e), 0);
    CHECK_INT(search_flow_set(&o, "--apply", NULL, &e), 0);
    CHECK(o.apply);
    /* the probe's workload options, from its own rows */
    CHECK_INT(search_flow_set(&o, "--direct", NULL, &e), 0);
    CHECK(o.probe.direct);
    CHECK_INT(search_flow_set(&o, "--iodepth", "16", &e), 0);
    CHECK_INT(o.probe.iodepth, 16);
    CHECK_INT(search_flow_set(&o, "--sync-every", "8", &e), 0);
    CHECK_INT(o.probe.sync_every, 8);
    CHECK_INT(search_flow_check(&o, &e), 0);
    CHECK_STR(o.probe.workload, "null");
}

TEST(search_option_refuses_what_the_command_line_refuses)
{
    struct search_flow_opts o;
    sl_err e;
    search_flow_defaults(&o);
    CHECK_INT(search_flow_set(&o, "--budget", "3", &e), -1);
    CHECK_CONTAINS(e.msg, "--budget 3: give a number of evaluations");
    CHECK_INT(search_flow_set(&o, "--time", "0", &e), -1);
    CHECK_CONTAINS(e.msg, "--time must be above 0");   /* the probe's words: its rows */
    CHECK_INT(search_flow_set(&o, "--seed", "12x", &e), -1);
    CHECK_CONTAINS(e.msg, "--seed 12x");
    CHECK_INT(search_flow_set(&o, "--nosuch", "1", &e), -1);
    CHECK_CONTAINS(e.msg, "--nosuch is not an option");
    CHECK_INT(search_flow_set(&o, "budget", "20", &e), -1);
    CHECK_INT(search_flow_set(&o, "--strategy", "annealing", &e), 0);
    CHECK_INT(search_flow_check(&o, &e), -1);
    CHECK_CONTAINS(e.msg, "unknown strategy annealing");
}
