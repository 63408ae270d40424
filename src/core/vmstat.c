/* vmstat — /proc/vmstat read and parsed once for every caller. */
#include "vmstat.h"
#include "sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
