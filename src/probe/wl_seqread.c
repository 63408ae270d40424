/* seqread — sequential reads, one file per thread, cold cache (dd of=/dev/null). */
#include "probe/fileio.h"

static const struct fileio_cfg cfg = { .random = false, .read_pct = 100 };

static void fio_job(const struct probe_spec *s, FILE *out)
{
    probe_fio_global(s, out, "read");
    /* invalidate=1 gives fio's first pass cold pages, as sluice's drop of
     * the caches does; but fio also drops the file's pages at every later
     * pass of a time-based job, where sluice reads on from whatever the
     * cache holds: the two agree only while the run stays in its first pass. */
    fprintf(out, "invalidate=1\n; fio drops the file from the cache at each pass; sluice only before the run\n\n[seqread]\n");
}

const struct probe_workload_ops workload_seqread = {
    .name = "seqread", .summary = "sequential reads, a file per thread, caches dropped first",
    .flags = WL_READS | WL_DIRECT_OK | WL_IODEPTH_OK, .def_threads = 1, .def_bs = 1 << 20, .def_size = 256u << 20,
    .layout = fileio_layout, .thread = fileio_thread, .fio_job = fio_job, .priv = &cfg,
};
