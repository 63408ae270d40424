/* seqwrite — dd bs=1M: sequential writes into a fresh file per thread, the
 * final fsync inside the measured time. Buffered, the volume is sized from
 * nr_dirty_threshold so the dirty limits are exercised. */
#include "probe/fileio.h"

static const struct fileio_cfg cfg = { .random = false, .read_pct = 0 };

static void fio_job(const struct probe_spec *s, FILE *out)
{
    probe_fio_global(s, out, "write");
    /* sluice writes a fresh file each run: no preallocated extents. A
     * time-based fio job that comes to the end of the file drops the file's
     * cached pages before the next pass (POSIX_FADV_DONTNEED, which also
     * starts writeback of the dirty ones) unless invalidate=0; sluice just
     * carries on writing from the start, so the job must not invalidate. */
    fprintf(out, "fallocate=none\ninvalidate=0\n");
    if (!s->direct) fprintf(out, "end_fsync=1\n");
    if (s->sync_every) fprintf(out, "fsync=%d\n", s->sync_every);
    fprintf(out, "\n[seqwrite]\n");
}

const struct probe_workload_ops workload_seqwrite = {
    .name = "seqwrite", .summary = "sequential writes into a fresh file per thread, final fsync timed (dd)",
    .flags = WL_WRITES | WL_BUFFERED_SIZED | WL_FIXED_WORK | WL_DIRECT_OK | WL_IODEPTH_OK, .def_threads = 1, .def_bs = 1 << 20,
    .layout = fileio_layout_empty, .rep_begin = fileio_truncate_all, .thread = fileio_thread, .fio_job = fio_job,
    .priv = &cfg,
};
