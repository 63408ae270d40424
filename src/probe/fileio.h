/* fileio — the shared I/O loop of the plain file workloads. */
#ifndef SLUICE_PROBE_FILEIO_H
#define SLUICE_PROBE_FILEIO_H

#include "probe/probe_internal.h"

struct fileio_cfg {
    bool random;      /* random block-aligned offsets, else sequential */
    int read_pct;     /* share of reads: 100, 0, or a mix (randrw 60) */
    bool shared;      /* all threads over one set of nfiles (sysbench), else a file per thread */
    int nfiles;       /* shared: how many */
};

/* A random order of n block indices without repeats (fio's randommap
 * without the map): a full-period LCG modulo the next power of two
 * (Hull-Dobell: c odd, a = 1 mod 4), skipping values >= n. After init,
 * n calls of next return each of 0..n-1 once; then the order repeats. */
struct fileio_perm {
    uint64_t n, mask, a, c, x, left;
};
void fileio_perm_init(struct fileio_perm *p, uint64_t n, uint64_t seed);
uint64_t fileio_perm_next(struct fileio_perm *p);

int fileio_thread(struct probe_thread *t);
/* Files with real data: one per thread, or cfg->nfiles shared. */
int fileio_layout(struct probe_ctx *c, sl_err *e);
/* Empty files of logical size size/threads, truncated before each repetition. */
int fileio_layout_empty(struct probe_ctx *c, sl_err *e);
int fileio_truncate_all(struct probe_ctx *c, sl_err *e);
/* Laid-out files back to their laid-out size: what a time-based writer
 * wrote past the end (fresh offsets) in the last repetition goes. */
int fileio_trim_all(struct probe_ctx *c, sl_err *e);

#endif
