/* randread — random block-aligned reads, one file per thread, cold cache. */
#include "probe/fileio.h"

static const struct fileio_cfg cfg = { .random = true, .read_pct = 100 };

static void fio_job(const struct probe_spec *s, FILE *out)
{
    probe_fio_global(s, out, "randread");
    fprintf(out, "invalidate=1\nnorandommap=1\n\n[randread]\n");
}

const struct probe_workload_ops workload_randread = {
    .name = "randread", .summary = "random reads, a file per thread, caches dropped first",
    .flags = WL_READS | WL_DIRECT_OK | WL_IODEPTH_OK, .def_threads = 1, .def_bs = 4096, .def_size = 256u << 20,
    .layout = fileio_layout, .thread = fileio_thread, .fio_job = fio_job, .priv = &cfg,
};
