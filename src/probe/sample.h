/* sample — the system counters a probe watches (the disk's
 * /sys/block/DEV/stat, /proc/pressure/io; /proc/vmstat is core/vmstat),
 * read through sysfs, and the arithmetic that turns two readings into metrics. Parsers are separate
 * from readers so they can be tested on text. */
#ifndef SLUICE_PROBE_SAMPLE_H
#define SLUICE_PROBE_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include "probe/probe.h"
#include "core/vmstat.h"

struct disk_sample {
    int fields;               /* 11, 15 or 17; 0 when unreadable */
    uint64_t v[17];           /* the fields in kernel order */
    uint64_t t_ns;            /* when it was read */
};
enum { DS_RD_IOS, DS_RD_MERGES, DS_RD_SECTORS, DS_RD_TICKS, DS_WR_IOS, DS_WR_MERGES, DS_WR_SECTORS,
       DS_WR_TICKS, DS_IN_FLIGHT, DS_IO_TICKS, DS_TIME_IN_QUEUE };
int sample_diskstat_parse(const char *text, struct disk_sample *d);
int sample_diskstat_read(const char *dev, struct disk_sample *d);

/* Accumulates disk deltas over one or more windows. */
struct disk_acc {
    uint64_t rd_ios, wr_ios, rd_sectors, wr_sectors, ticks_ms, io_ticks_ms, queue_ms, window_ns;
    int fields;
};
void sample_disk_accumulate(struct disk_acc *acc, const struct disk_sample *a, const struct disk_sample *b);
/* util = 100 * io_ticks / window (capped at 100), await = ticks / ios,
 * aqu-sz = time_in_queue / window (fio diskutil.c, iostat). */
void sample_disk_finish(const struct disk_acc *acc, struct probe_disk *out);

struct psi_sample {
    bool ok;
    uint64_t some_us, full_us;    /* cumulative "total=" */
    uint64_t t_ns;
};
int sample_psi_parse(const char *text, struct psi_sample *p);
int sample_psi_read(struct psi_sample *p);
struct psi_acc { uint64_t some_us, full_us, window_ns; bool ok; };
void sample_psi_accumulate(struct psi_acc *acc, const struct psi_sample *a, const struct psi_sample *b);
void sample_psi_finish(const struct psi_acc *acc, struct probe_psi *out);

/* Counter difference that survives a 32-bit wrap (fio safe_32bit_diff). */
uint64_t sample_counter_diff(uint64_t before, uint64_t after);

#endif
