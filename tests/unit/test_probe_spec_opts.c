/* probe_spec_set: the size and duration options as `sluice probe` and the
 * Probe screen's form both set them. */
#include "harness.h"
#include "probe/probe.h"

#include <string.h>

TEST(probe_spec_set_sets_sizes_and_durations)
{
    struct probe_spec s;
    sl_err e;
    memset(&s, 0, sizeof s);
    CHECK_INT(probe_spec_set(&s, "--bs", "4k", &e), 0);
    CHECK_INT((int)s.bs, 4096);
    CHECK_INT(probe_spec_set(&s, "--size", "2M", &e), 0);
    CHECK_INT((int)s.size_bytes, 2 << 20);
    CHECK_INT(probe_spec_set(&s, "--time", "250ms", &e), 0);
    CHECK_INT((int)s.time_ms, 250);
    CHECK_INT(s.ramp_set, 0);
    CHECK_INT(probe_spec_set(&s, "--ramp", "0", &e), 0);
    CHECK_INT((int)s.ramp_ms, 0);
    CHECK_INT(s.ramp_set, 1);
}

TEST(probe_spec_set_refuses_with_the_option_and_value)
{
    struct probe_spec s;
    sl_err e;
    memset(&s, 0, sizeof s);
    CHECK_INT(probe_spec_set(&s, "--bs", "1x", &e), -1);
    CHECK_STR(e.msg, "--bs 1x: give a size from 512 to 64M");
    CHECK_INT(probe_spec_set(&s, "--size", "0", &e), -1);
    CHECK_INT(probe_spec_set(&s, "--ramp", "abc", &e), -1);
    CHECK_STR(e.msg, "--ramp abc: give a duration up to 1h");
    CHECK_INT(probe_spec_set(&s, "--time", "0", &e), -1);
    CHECK_STR(e.msg, "--time 0: give a duration from 10ms to 24h");
    CHECK_INT(probe_spec_set(&s, "--nosuch", "2", &e), -1);
    CHECK_INT((int)s.bs, 0);
    CHECK_INT((int)s.size_bytes, 0);
    CHECK_INT((int)s.time_ms, 0);
}

/* The Probe screen's form and `sluice probe` set the spec through one table:
 * the same bounds (--repeat up to PROBE_MAX_REPEAT; the form stopped at 64)
 * and the same words. */
TEST(probe_spec_table_bounds_are_the_command_lines)
{
    struct probe_spec s;
    sl_err e;
    memset(&s, 0, sizeof s);
    s.canary = -1;
    CHECK_INT(opt_set(&probe_spec_table, &s, "--repeat", "65", &e), 0);
    CHECK_INT(s.repeat, 65);
    CHECK_INT(opt_set(&probe_spec_table, &s, "--repeat", "1001", &e), -1);
    CHECK_STR(e.msg, "--repeat 1001: give a whole number from 1 to 1000");
    CHECK_INT(opt_set(&probe_spec_table, &s, "--threads", "0", &e), -1);
    CHECK_STR(e.msg, "--threads 0: give a whole number from 1 to 256");
    CHECK_INT(opt_set(&probe_spec_table, &s, "--no-canary", "", &e), 0);
    CHECK_INT(s.canary, 0);
    CHECK_INT(opt_set(&probe_spec_table, &s, "--direct", "yes", &e), 0);
    CHECK(s.direct);
    CHECK_INT(opt_set(&probe_spec_table, &s, "--bs", "1x", &e), -1);
    CHECK_STR(e.msg, "--bs 1x: give a size from 512 to 64M");
}
