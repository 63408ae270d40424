/* multidisk — bonnie++ -p style: one sequential 8 KiB buffered writer per
 * --dir (times --threads), all released together from the start barrier, so
 * the writers share the global dirty limits the way several disks do. Each
 * writer is reported as a phase row named after its directory; disk
 * metrics come from the first directory's disk. */
#include "probe/fileio.h"

#include <stdio.h>
#include <string.h>

static const struct fileio_cfg cfg = { .random = false, .read_pct = 0 };

static int layout(struct probe_ctx *c, sl_err *e)
{
    int per_dir = c->spec.threads;
    uint64_t writers = (uint64_t)per_dir * (uint64_t)c->spec.ndirs;
    uint64_t size = c->spec.size_bytes / writers;
    size -= size % c->spec.bs;
    if (size < c->spec.bs) size = c->spec.bs;
    for (int d = 0; d < c->spec.ndirs; d++)
        for (int j = 0; j < per_dir; j++) {
            char name[32];
            snprintf(name, sizeof name, "writer.%d", j);
            if (probe_file_create(c, d, name, 0, e) < 0) return -1;
            c->files[c->nfiles - 1].size = size;
        }
    return 0;
}

static int run(struct probe_ctx *c, struct probe_result *r, sl_err *e)
{
    int n = c->nfiles;
    struct probe_phase_stats ps = { 0 };
    ps.per_thread = xcalloc((size_t)n, sizeof *ps.per_thread);
    if (c->progress) atomic_store(&c->progress->total_ms, c->spec.ramp_ms + c->spec.time_ms);
    int rc = probe_phase_run(c, n, fileio_thread, c->spec.ramp_ms, c->spec.time_ms, &ps, e);
    for (int i = 0; i < n && r->nphases < PROBE_MAX_PHASES; i++) {
        struct probe_phase *row = &r->phase[r->nphases++];
        *row = ps.per_thread[i];
        snprintf(row->name, sizeof row->name, "%.40s", c->spec.dir[c->files[i].dir]);
    }
    free(ps.per_thread);
    return rc;
}

static void fio_job(const struct probe_spec *s, FILE *out)
{
    probe_fio_global(s, out, "write");
    /* no cache drop at each pass over the file (see wl_seqwrite.c) */
    fprintf(out, "fallocate=none\ninvalidate=0\nend_fsync=1\n");
    for (int i = 0; i < s->ndirs; i++) fprintf(out, "\n[writer%d]\ndirectory=%s\n", i, s->dir[i]);
}

const struct probe_workload_ops workload_multidisk = {
    .name = "multidisk", .summary = "one sequential 8 KiB writer per --dir, released together (bonnie++ -p)",
    .flags = WL_WRITES | WL_BUFFERED_SIZED | WL_MULTI_DIR, .def_threads = 1, .def_bs = 8192,
    .layout = layout, .rep_begin = fileio_truncate_all, .run = run, .fio_job = fio_job, .priv = &cfg,
};
