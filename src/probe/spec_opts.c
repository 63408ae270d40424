/* spec_opts — the probe's options as table rows: the workload's
 * (probe_workload_rows: `sluice probe`, search and tune take them from
 * here) and a probe run's own (probe_run_rows); probe_spec_table holds
 * both for the Probe screen's form, so every front end takes the same
 * bounds and refuses a value with the same words. And the size and
 * duration options given as text. */
#include "probe.h"
#include "units.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_spec_set(struct probe_spec *s, const char *option, const char *text, sl_err *e)
{
    bool size = strcmp(option, "--bs") == 0 || strcmp(option, "--size") == 0;
    bool time = strcmp(option, "--time") == 0 || strcmp(option, "--ramp") == 0 || strcmp(option, "--idle-before") == 0;
    if (size) {
        long long v = units_parse_size(text);
        if (v <= 0) return sl_fail(e, SL_EUSAGE, "%s %s: give a size such as 4k, 1M or 2G", option, text);
        *(option[2] == 'b' ? &s->bs : &s->size_bytes) = (uint64_t)v;
        return 0;
    }
    if (time) {
        long long v = units_parse_duration_ms(text);
        if (v < 0) return sl_fail(e, SL_EUSAGE, "%s %s: give a duration such as 500ms, 5s or 2m", option, text);
        if (option[2] == 't') {
            if (v == 0) return sl_fail(e, SL_EUSAGE, "--time must be above 0");
            s->time_ms = (uint64_t)v;
            s->time_based = true;   /* buffered writers: no fixed work */
        } else if (option[2] == 'i') {
            s->idle_ms = (uint64_t)v;
        } else {
            s->ramp_ms = (uint64_t)v;
            s->ramp_set = 1;
        }
        return 0;
    }
    return sl_fail(e, SL_EUSAGE, "%s: not a size or duration option of probe", option);
}

/* --bs, --size, --time, --ramp, --idle-before. */
static int set_spec(void *at, const struct opt *row, const char *text, sl_err *e)
{
    char option[32];
    snprintf(option, sizeof option, "--%s", row->name);
    return probe_spec_set(at, option, text, e);
}

/* --dir again adds a directory (multidisk writes to each). */
static int set_dir(void *at, const struct opt *row, const char *text, sl_err *e)
{
    struct probe_spec *s = at;
    if (s->ndirs == PROBE_MAX_DIRS) return sl_fail(e, SL_EUSAGE, "--dir: at most %d directories", PROBE_MAX_DIRS);
    if (strlen(text) >= PATH_MAX - 64) return sl_fail(e, SL_EUSAGE, "--dir: path too long");
    snprintf(s->dir[s->ndirs++], PATH_MAX, "%s", text);
    return 0;
}

static int set_seed(void *at, const struct opt *row, const char *text, sl_err *e)
{
    struct probe_spec *s = at;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end || v > (unsigned long long)INT64_MAX) return sl_fail(e, SL_EUSAGE, "--seed %s: give a whole number", text);
    s->seed = v;
    s->seed_set = true;
    return 0;
}

static int set_canary(void *at, const struct opt *row, const char *text, sl_err *e)
{
    ((struct probe_spec *)at)->canary = strcmp(row->name, "canary") == 0;
    return 0;
}

static int set_loadfile(void *at, const struct opt *row, const char *text, sl_err *e)
{
    struct probe_spec *s = at;
    if (!*text || strlen(text) >= sizeof s->loadfile) return sl_fail(e, SL_EUSAGE, "--loadfile: give a file name");
    if (opt_regular_file("--loadfile", text, e) < 0) return -1;
    snprintf(s->loadfile, sizeof s->loadfile, "%s", text);
    return 0;
}

#define SPEC(field) OPT_AT(struct probe_spec, field)
const struct opt probe_workload_rows[] = {
    { .name = "dir", .type = OPT_CALL, .arg = "D", .def = "/var/tmp",
      .help = "where to write (again for more disks: multidisk)", .set = set_dir, .complete = COMPLETE_DIR },
    { .name = "threads", .type = OPT_INT, .arg = "N", .min = 1, .max = PROBE_MAX_THREADS, .def = "the workload's",
      .help = "worker threads", SPEC(threads) },
    { .name = "bs", .type = OPT_CALL, .arg = "B", .def = "the workload's", .help = "block size (4k, 1M)", .set = set_spec },
    { .name = "size", .type = OPT_CALL, .arg = "S", .def = "a probe: from the dirty threshold; search and tune: about 8 s at the rate a calibration run measures",
      .help = "bytes written or read in all (512M, 2G)", .set = set_spec },
    { .name = "time", .type = OPT_CALL, .arg = "T", .def = "5s", .help = "measured time (500ms, 5s, 2m)", .set = set_spec },
    { .name = "ramp", .type = OPT_CALL, .arg = "T", .def = "1s", .help = "unmeasured warm-up before it", .set = set_spec },
    { .name = "idle-before", .type = OPT_CALL, .arg = "T", .def = "0: back to back",
      .help = "no I/O for T before each run (a burst after a quiet spell)", .set = set_spec },
    { .name = "direct", .type = OPT_FLAG, .help = "O_DIRECT: bypass the page cache", SPEC(direct) },
    { .name = "iodepth", .type = OPT_INT, .arg = "N", .min = 1, .max = 1024, .def = "1",
      .help = "I/Os in flight per thread with --direct (io_uring)", SPEC(iodepth) },
    { .name = "sync-every", .type = OPT_INT, .arg = "N", .min = 0, .max = INT_MAX, .def = "never",
      .help = "fsync every N writes", SPEC(sync_every) },
    { .name = "loadfile", .type = OPT_CALL, .arg = "FILE", .def = "the built-in one",
      .help = "dbench: a NetBench loadfile", .set = set_loadfile, .complete = COMPLETE_FILE },
    { NULL },
};

const struct opt probe_run_rows[] = {
    { .name = "repeat", .type = OPT_INT, .arg = "N", .min = 1, .max = PROBE_MAX_REPEAT, .def = "1", .help = "repetitions",
      SPEC(repeat) },
    { .name = "seed", .type = OPT_CALL, .arg = "N", .help = "base random seed, for repeatable runs", .set = set_seed },
    { .name = "canary", .type = OPT_CALL, .help = "measure the stalls of a small synchronous writer alongside",
      .def = "on for write workloads", .set = set_canary },
    { .name = "no-canary", .type = OPT_CALL, .help = "no canary writer", .set = set_canary },
    { NULL },
};
#undef SPEC

const struct opt_table probe_spec_table = { sizeof(struct probe_spec), NULL,
                                          { { probe_workload_rows, 0 }, { probe_run_rows, 0 } }, "WORKLOAD",
                                          COMPLETE_WORKLOAD };
