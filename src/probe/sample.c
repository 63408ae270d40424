/* sample — vmstat, disk stat and PSI readings, and metrics from their deltas. */
#include "probe/sample.h"
#include "core/sysfs.h"
#include "probe/workload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sample_diskstat_parse(const char *text, struct disk_sample *d)
{
    memset(d, 0, sizeof d->v);
    d->fields = 0;
    const char *p = text;
    for (int i = 0; i < 17; i++) {
        char *end;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '\n') break;
        unsigned long long x = strtoull(p, &end, 10);
        if (end == p) break;
        d->v[i] = x;
        d->fields = i + 1;
        p = end;
    }
    if (d->fields < 11) { d->fields = 0; return -1; }
    return 0;
}

int sample_diskstat_read(const char *dev, struct disk_sample *d)
{
    char path[128], buf[512];
    d->fields = 0;
    d->t_ns = probe_now_ns();
    snprintf(path, sizeof path, "/sys/block/%s/stat", dev);
    if (sysfs_read(path, buf, sizeof buf, NULL) < 0) return -1;
    return sample_diskstat_parse(buf, d);
}

uint64_t sample_counter_diff(uint64_t before, uint64_t after)
{
    if (after >= before) return after - before;
    if (before <= UINT32_MAX) return (after + (1ull << 32)) - before;   /* a 32-bit counter wrapped */
    return 0;                                                          /* reset: no delta */
}

void sample_disk_accumulate(struct disk_acc *acc, const struct disk_sample *a, const struct disk_sample *b)
{
    if (!a->fields || !b->fields || b->t_ns <= a->t_ns) return;
    acc->fields = b->fields;
    acc->rd_ios += sample_counter_diff(a->v[DS_RD_IOS], b->v[DS_RD_IOS]);
    acc->wr_ios += sample_counter_diff(a->v[DS_WR_IOS], b->v[DS_WR_IOS]);
    acc->rd_sectors += sample_counter_diff(a->v[DS_RD_SECTORS], b->v[DS_RD_SECTORS]);
    acc->wr_sectors += sample_counter_diff(a->v[DS_WR_SECTORS], b->v[DS_WR_SECTORS]);
    acc->ticks_ms += sample_counter_diff(a->v[DS_RD_TICKS], b->v[DS_RD_TICKS]) +
                     sample_counter_diff(a->v[DS_WR_TICKS], b->v[DS_WR_TICKS]);
    acc->io_ticks_ms += sample_counter_diff(a->v[DS_IO_TICKS], b->v[DS_IO_TICKS]);
    acc->queue_ms += sample_counter_diff(a->v[DS_TIME_IN_QUEUE], b->v[DS_TIME_IN_QUEUE]);
    acc->window_ns += b->t_ns - a->t_ns;
}

void sample_disk_finish(const struct disk_acc *acc, struct probe_disk *out)
{
    out->fields = acc->fields;
    out->read_ios = acc->rd_ios;
    out->write_ios = acc->wr_ios;
    out->read_bytes = acc->rd_sectors * 512;   /* always 512-byte sectors */
    out->write_bytes = acc->wr_sectors * 512;
    double window_ms = (double)acc->window_ns / 1e6;
    out->util_pct = window_ms > 0 ? 100.0 * (double)acc->io_ticks_ms / window_ms : 0;
    if (out->util_pct > 100) out->util_pct = 100;
    uint64_t ios = acc->rd_ios + acc->wr_ios;
    out->await_ms = ios ? (double)acc->ticks_ms / (double)ios : 0;
    out->aqu_sz = window_ms > 0 ? (double)acc->queue_ms / window_ms : 0;
}

int sample_psi_parse(const char *text, struct psi_sample *p)
{
    p->ok = false;
    p->some_us = p->full_us = 0;
    const char *s = strstr(text, "some ");
    const char *f = strstr(text, "full ");
    const char *st = s ? strstr(s, "total=") : NULL;
    const char *ft = f ? strstr(f, "total=") : NULL;
    if (!st) return -1;
    p->some_us = strtoull(st + 6, NULL, 10);
    if (ft) p->full_us = strtoull(ft + 6, NULL, 10);
    p->ok = true;
    return 0;
}

int sample_psi_read(struct psi_sample *p)
{
    char buf[512];
    p->t_ns = probe_now_ns();
    p->ok = false;
    if (sysfs_read("/proc/pressure/io", buf, sizeof buf, NULL) < 0) return -1;
    return sample_psi_parse(buf, p);
}

void sample_psi_accumulate(struct psi_acc *acc, const struct psi_sample *a, const struct psi_sample *b)
{
    if (!a->ok || !b->ok || b->t_ns <= a->t_ns) return;
    acc->ok = true;
    acc->some_us += sample_counter_diff(a->some_us, b->some_us);
    acc->full_us += sample_counter_diff(a->full_us, b->full_us);
    acc->window_ns += b->t_ns - a->t_ns;
}

void sample_psi_finish(const struct psi_acc *acc, struct probe_psi *out)
{
    out->available = acc->ok;
    double window_us = (double)acc->window_ns / 1e3;
    out->some_pct = window_us > 0 ? 100.0 * (double)acc->some_us / window_us : 0;
    out->full_pct = window_us > 0 ? 100.0 * (double)acc->full_us / window_us : 0;
    if (out->some_pct > 100) out->some_pct = 100;
    if (out->full_pct > 100) out->full_pct = 100;
}
