/* randwrite — random block-aligned overwrites of laid-out files, one per
 * thread, the final fsync inside the measured time. Buffered, the files are
 * sized from nr_dirty_threshold (twice it): random writes only build up as
 * many dirty pages as the files have, so smaller files could never reach
 * the dirty limits this probe is meant to exercise. */
#include "probe/fileio.h"

static const struct fileio_cfg cfg = { .random = true, .read_pct = 0 };

static void fio_job(const struct probe_spec *s, FILE *out)
{
    probe_fio_global(s, out, "randwrite");
    if (!s->direct) fprintf(out, "end_fsync=1\n");
    if (s->sync_every) fprintf(out, "fsync=%d\n", s->sync_every);
    /* fixed work writes each block once (sluice's order, fio's random map) */
    fprintf(out, "%s\n[randwrite]\n", s->fixed_work ? "" : "norandommap=1\n");
}

const struct probe_workload_ops workload_randwrite = {
    .name = "randwrite", .summary = "random overwrites, a file per thread, final fsync timed",
    .flags = WL_WRITES | WL_BUFFERED_SIZED | WL_FIXED_WORK | WL_DIRECT_OK | WL_IODEPTH_OK, .def_threads = 1, .def_bs = 4096,
    .def_size = 256u << 20,   /* with --direct; buffered: from the dirty threshold */
    .layout = fileio_layout, .rep_begin = fileio_trim_all, .thread = fileio_thread, .fio_job = fio_job, .priv = &cfg,
};
