/* fileio — the shared I/O loop of the plain file workloads. */
#ifndef SLUICE_PROBE_FILEIO_H
#define SLUICE_PROBE_FILEIO_H

#include "probe_internal.h"

struct fileio_cfg {
    bool random;      /* random block-aligned offsets, else sequential */
    int read_pct;     /* share of reads: 100, 0, or a mix (randrw 60) */
    bool shared;      /* all threads over one set of nfiles (sysbench), else a file per thread */
    int nfiles;       /* shared: how many */
};

int fileio_thread(struct probe_thread *t);
/* Files with real data: one per thread, or cfg->nfiles shared. */
int fileio_layout(struct probe_ctx *c, sl_err *e);
/* Empty files of logical size size/threads, truncated before each repetition. */
int fileio_layout_empty(struct probe_ctx *c, sl_err *e);
int fileio_truncate_all(struct probe_ctx *c, sl_err *e);

#endif
