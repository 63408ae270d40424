/* randrw — sysbench fileio rndrw: 16 KiB requests at uniform random offsets
 * over a set of shared files, 60% reads, and every --sync-every requests
 * (default 100) each thread fsyncs all the files it dirtied. Buffered, the
 * file set is sized from nr_dirty_threshold like the other write probes;
 * with the syncs dirty data rarely builds up to it, and the run says so. */
#include "probe/fileio.h"

static const struct fileio_cfg cfg = { .random = true, .read_pct = 60, .shared = true, .nfiles = 16 };

static void fio_job(const struct probe_spec *s, FILE *out)
{
    probe_fio_global(s, out, "randrw");
    fprintf(out, "; sysbench fsyncs all dirty files every N requests; fio's fsync=N is per file after N writes\n");
    fprintf(out, "rwmixread=60\nnrfiles=%d\nfile_service_type=random\nfilename_format=randrw.$filenum\n", cfg.nfiles);
    if (s->sync_every) fprintf(out, "fsync=%d\n", s->sync_every);
    if (!s->direct) fprintf(out, "end_fsync=1\n");
    /* fixed work ends when the writes (40%) have covered the set once */
    if (s->fixed_work)
        fprintf(out, "io_size=%llu\n", (unsigned long long)(s->size_bytes / (uint64_t)s->threads * 100 / 40));
    /* fixed work writes each block once (sluice's order, fio's random map) */
    fprintf(out, "%s\n[randrw]\n", s->fixed_work ? "" : "norandommap=1\n");
}

const struct probe_workload_ops workload_randrw = {
    .name = "randrw", .summary = "sysbench fileio rndrw: 60/40 random read/write over 16 files, fsync all every N",
    .flags = WL_READS | WL_WRITES | WL_BUFFERED_SIZED | WL_FIXED_WORK | WL_DIRECT_OK | WL_IODEPTH_OK, .def_threads = 4, .def_bs = 16384,
    .def_size = 256u << 20 /* with --direct */, .def_sync_every = 100,
    .layout = fileio_layout, .rep_begin = fileio_trim_all, .thread = fileio_thread, .fio_job = fio_job, .priv = &cfg,
};
