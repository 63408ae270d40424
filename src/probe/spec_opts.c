/* spec_opts — the probe's options as table rows: the workload's
 * (probe_workload_rows: `sluice probe`, search and tune take them from
 * here) and a probe run's own (probe_run_rows); probe_spec_table holds
 * both for the Probe screen's form, so every front end takes the same
 * bounds and refuses a value with the same words. probe_spec_check holds
 * a spec built in code to the same bounds. */
#include "probe/probe.h"
#include "core/units.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_spec_set(struct probe_spec *s, const char *option, const char *text, sl_err *e)
{
    return opt_set(&probe_spec_table, s, option, text, e);
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
    { .name = "dir", .label = "Directory", .type = OPT_CALL, .arg = "D", .def = PROBE_DIR_DEFAULT, .flags = OPT_DEF_LATER,
      .help = "where to write (again for more disks: multidisk)", .set = set_dir, .complete = COMPLETE_DIR },
    { .name = "threads", .label = "Threads", .type = OPT_INT, .arg = "N", .min = 1, .max = PROBE_MAX_THREADS,
      .def = "the workload's", .flags = OPT_DEF_WORDS, .help = "worker threads", SPEC(threads) },
    { .name = "bs", .label = "Block size", .type = OPT_SIZE, .arg = "B", .min = PROBE_MIN_BS, .max = PROBE_MAX_BS,
      .def = "the workload's", .flags = OPT_DEF_WORDS, .help = "block size (4k, 1M)", SPEC(bs) },
    { .name = "size", .label = "Size", .type = OPT_SIZE, .arg = "S", .min = 1, .max = (double)PROBE_MAX_SIZE,
      .def = "a probe: from the dirty threshold; search and tune: about 8 s at the rate a calibration run measures",
      .flags = OPT_DEF_WORDS, .help = "bytes written or read in all (512M, 2G)",
      SPEC(size_bytes) },
    /* a time given makes a buffered writer time-based: no fixed work */
    { .name = "time", .label = "Time", .type = OPT_DURATION, .arg = "T", .min = 10, .max = 24 * 3600 * 1000.0,
      .def = "5s", .flags = OPT_DEF_LATER, .help = "measured time (500ms, 5s, 2m)", SPEC(time_ms),
      OPT_SEEN(struct probe_spec, time_based) },
    { .name = "ramp", .label = "Ramp", .type = OPT_DURATION, .arg = "T", .min = 0, .max = 3600 * 1000.0, .def = "1s",
      .flags = OPT_DEF_LATER, .help = "unmeasured warm-up before it", SPEC(ramp_ms), OPT_SEEN(struct probe_spec, ramp_set) },
    { .name = "idle-before", .label = "Idle before", .type = OPT_DURATION, .arg = "T", .min = 0, .max = 600 * 1000.0,
      .def = "0: back to back", .flags = OPT_DEF_WORDS, .help = "no I/O for T before each run (a burst after a quiet spell)",
      SPEC(idle_ms) },
    { .name = "direct", .label = "Direct I/O", .type = OPT_FLAG, .help = "O_DIRECT: bypass the page cache", SPEC(direct) },
    { .name = "iodepth", .label = "I/O depth", .type = OPT_INT, .arg = "N", .min = 1, .max = 1024, .def = "1",
      .flags = OPT_DEF_LATER, .help = "I/Os in flight per thread with --direct (io_uring)", SPEC(iodepth) },
    { .name = "sync-every", .label = "Sync every", .type = OPT_INT, .arg = "N", .min = 0, .max = INT_MAX, .def = "never",
      .flags = OPT_DEF_WORDS, .help = "fsync every N writes", SPEC(sync_every) },
    { .name = "loadfile", .label = "Loadfile", .type = OPT_CALL, .arg = "FILE", .def = "the built-in one",
      .flags = OPT_DEF_WORDS, .help = "dbench: a NetBench loadfile", .set = set_loadfile, .complete = COMPLETE_FILE },
    { NULL },
};

const struct opt probe_run_rows[] = {
    { .name = "repeat", .label = "Repeat", .type = OPT_INT, .arg = "N", .min = 1, .max = PROBE_MAX_REPEAT, .def = "1",
      .flags = OPT_DEF_LATER, .help = "repetitions", SPEC(repeat) },
    /* code: below 2^63 (SQLite's integers) and marks the seed given */
    { .name = "seed", .label = "Seed", .type = OPT_CALL, .arg = "N", .help = "base random seed, for repeatable runs",
      .set = set_seed },
    /* code: two rows into one tri-state (-1: the workload's default) */
    { .name = "canary", .label = "Canary", .type = OPT_CALL, .help = "measure the stalls of a small synchronous writer alongside",
      .def = "on for write workloads", .flags = OPT_DEF_WORDS, .set = set_canary },
    { .name = "no-canary", .type = OPT_CALL, .help = "no canary writer", .set = set_canary },
    { NULL },
};
#undef SPEC

const struct opt_table probe_spec_table = { sizeof(struct probe_spec), NULL,
                                          { { probe_workload_rows, 0 }, { probe_run_rows, 0 } }, "WORKLOAD",
                                          COMPLETE_WORKLOAD };

int probe_spec_check(const struct probe_spec *s, sl_err *e)
{
    const struct { const char *name; double v; } f[] = {
        { "threads", s->threads }, { "time", (double)s->time_ms }, { "ramp", (double)s->ramp_ms },
        { "idle-before", (double)s->idle_ms }, { "iodepth", s->iodepth }, { "repeat", s->repeat },
        { "sync-every", s->sync_every },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        const struct opt *o = opt_find(&probe_spec_table, f[i].name, NULL);
        if (opt_check(o, f[i].v, e) < 0) return -1;
    }
    return 0;
}

long long probe_spec_default(const char *option)
{
    const struct opt *o = opt_find(&probe_spec_table, option, NULL);
    union { long long ll; int i; } v = { 0 };
    sl_err e;
    if (!o || opt_default_of(o, &v, &e) < 0) abort();   /* a row without a value default: a broken table */
    return o->type == OPT_INT ? v.i : v.ll;
}
