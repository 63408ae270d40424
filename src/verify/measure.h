/* measure — one reading of the counters a live verification watches (each
 * disk's stat, PSI io, vmstat) and the metrics between two readings: per
 * sample for the guard, per block for the verdict. */
#ifndef SLUICE_VERIFY_MEASURE_H
#define SLUICE_VERIFY_MEASURE_H

#include "probe/sample.h"
#include "verify/live.h"
#include "core/vmstat.h"

struct verify_reading {
    struct disk_sample disk[VERIFY_DISKS_MAX];
    struct psi_sample psi;
    struct vmstat vm;
    bool vm_ok;
};
/* Read every counter of the plan's disks now. A counter that cannot be
 * read is marked so (fields 0, ok false) and left out of what follows. */
void verify_read(const struct verify_plan *p, struct verify_reading *r);

/* Between two readings: the share of time with every task stalled on I/O
 * (PSI io full, %; -1 without PSI) and the average wait of the I/Os
 * completed on the plan's disks (ms; 0 without any). */
void verify_sample_between(const struct verify_plan *p, const struct verify_reading *a, const struct verify_reading *b,
                           double *psi_full, double *await_ms);

/* A block's measured part: from reading a to reading b, with the vmstat
 * pages summed over nvm readings. Fills b->v / has, util_pct, io_bytes_s. */
struct verify_vm_sum { double dirty, writeback; int n; };
void verify_vm_add(struct verify_vm_sum *s, const struct verify_reading *r);
void verify_block_between(const struct verify_plan *p, const struct verify_reading *a, const struct verify_reading *b,
                          const struct verify_vm_sum *vm, struct verify_block *out);

#endif
