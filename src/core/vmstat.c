/* vmstat — /proc/vmstat read and parsed once for every caller. */
#include "core/vmstat.h"
#include "core/knob.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int vmstat_parse(const char *text, struct vmstat *v)
{
    memset(v, 0, sizeof *v);
    for (const char *line = text; line && *line;) {
        char name[64];
        unsigned long long val;
        if (sscanf(line, "%63s %llu", name, &val) == 2) {
            if (strcmp(name, "nr_dirty") == 0) { v->nr_dirty = val; v->has_dirty = true; }
            else if (strcmp(name, "nr_writeback") == 0) { v->nr_writeback = val; v->has_writeback = true; }
            else if (strcmp(name, "nr_dirty_threshold") == 0) { v->thresh = val; v->has_threshold = true; }
            else if (strcmp(name, "nr_dirty_background_threshold") == 0) {
                v->bg_thresh = val;
                v->has_bg_threshold = true;
            }
            else if (strcmp(name, "nr_free_pages") == 0) { v->nr_free = val; v->has_dirtyable = true; }
            else if (strcmp(name, "nr_inactive_file") == 0 || strcmp(name, "nr_active_file") == 0) v->nr_file += val;
        }
        line = strchr(line, '\n');
        if (line) line++;
    }
    v->ok = v->has_dirty && v->has_writeback;
    return v->ok ? 0 : -1;
}

static int read_vmstat(bool host, struct vmstat *v)
{
    char *text = NULL;
    int got = host ? sysfs_read_text_host("/proc/vmstat", 1 << 16, &text, NULL)
                   : sysfs_read_text("/proc/vmstat", 1 << 16, &text, NULL);
    if (got < 0) {
        memset(v, 0, sizeof *v);
        return -1;
    }
    int rc = vmstat_parse(text, v);
    free(text);
    return rc;
}

int vmstat_read(struct vmstat *v) { return read_vmstat(false, v); }
int vmstat_read_host(struct vmstat *v) { return read_vmstat(true, v); }

uint64_t vmstat_freerun(const struct vmstat *v)
{
    return v->has_threshold ? (v->thresh + v->bg_thresh) / 2 : 0;
}

/* A vm ratio knob's percent, 0 when unset or unreadable. */
static long ratio_now(const char *knob)
{
    struct knob k;
    char val[KNOB_VALUE_MAX];
    if (knob_lookup(knob, NULL, &k, NULL) < 0 || knob_read(&k, val, sizeof val, NULL) < 0) return 0;
    return strtol(val, NULL, 10);
}

/* The memory that can hold dirty pages: the kernel's own figure, read back from the threshold it computed from
 * it (threshold = ratio% of the dirtyable memory): /proc/vmstat's free +
 * file pages is not always that (Linux 6.18 on this project's VM:
 * nr_free_pages 8.2 GiB while MemFree and the thresholds said 23). Free +
 * file only when both limits are set in bytes or no threshold is shown. */
uint64_t vmstat_dirtyable_bytes(void)
{
    struct vmstat v;
    if (vmstat_read(&v) < 0) return 0;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    long r = ratio_now("vm.dirty_ratio"), b = ratio_now("vm.dirty_background_ratio");
    if (v.has_threshold && v.thresh && r > 0) return v.thresh * 100 / (uint64_t)r * page;
    if (v.has_bg_threshold && v.bg_thresh && b > 0) return v.bg_thresh * 100 / (uint64_t)b * page;
    return v.has_dirtyable ? (v.nr_free + v.nr_file) * page : 0;
}

int vmstat_reported_kib(uint64_t *kib)
{
    long long v;
    if (sysfs_read_ll(VMSTAT_REPORTED_KIB, &v, NULL) < 0 || v < 0) return -1;
    *kib = (uint64_t)v;
    return 0;
}
