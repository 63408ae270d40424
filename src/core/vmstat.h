/* vmstat — the one reader of /proc/vmstat (through sysfs, so a fixture root
 * moves it): the dirty-memory counters a probe samples and the Overview meter
 * shows. The parser is apart from the reader so it can be tested on text. */
#ifndef SLUICE_VMSTAT_H
#define SLUICE_VMSTAT_H

#include <stdbool.h>
#include <stdint.h>

struct vmstat {
    bool ok;                  /* nr_dirty and nr_writeback were both found */
    bool has_dirty, has_writeback;
    bool has_threshold;       /* nr_dirty_threshold exists (2.6.29+) */
    bool has_bg_threshold;    /* nr_dirty_background_threshold exists */
    uint64_t nr_dirty, nr_writeback, thresh, bg_thresh;   /* pages */
    /* what the kernel counts as dirtyable: free pages and the file LRU lists */
    bool has_dirtyable;
    uint64_t nr_free, nr_file;                            /* pages */
};

/* Parse "name value" lines. Returns 0 when v->ok, -1 otherwise (the fields
 * found are still set; the rest are 0 with their has_ flag false). */
int vmstat_parse(const char *text, struct vmstat *v);
/* Read ROOT/proc/vmstat. Returns as vmstat_parse; -1 with *v zeroed when
 * the file cannot be read. */
int vmstat_read(struct vmstat *v);
/* The same from this host's /proc/vmstat whatever the root (see
 * sysfs_read_text_host): the page cache a real directory's writes fill. */
int vmstat_read_host(struct vmstat *v);
/* The throttling zone starts at (threshold + background) / 2 (the kernel's
 * "freerun" ceiling in balance_dirty_pages). 0 when thresholds are unknown. */
uint64_t vmstat_freerun(const struct vmstat *v);
/* The memory that can hold dirty pages, in bytes, as the kernel counts
 * it: read back from nr_dirty_threshold at vm.dirty_ratio (or the
 * background pair); free + file pages only when both are set in bytes.
 * 0 when /proc/vmstat cannot be read. */
uint64_t vmstat_dirtyable_bytes(void);
/* What a VM's free page reporting has handed back to its host, in KiB:
 * the counter this project's VM kernel keeps at VMSTAT_REPORTED_KIB
 * (mainline keeps none), read through sysfs. -1 when there is none. */
#define VMSTAT_REPORTED_KIB "/sys/module/page_reporting/parameters/reported_kib"
int vmstat_reported_kib(uint64_t *kib);

#endif
