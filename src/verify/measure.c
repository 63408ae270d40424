/* measure — counters of a live verification, read through sysfs. */
#include "verify/measure.h"

#include <string.h>

void verify_read(const struct verify_plan *p, struct verify_reading *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < p->ndisks; i++)
        if (sample_diskstat_read(p->disks[i], &r->disk[i]) < 0) r->disk[i].fields = 0;
    if (sample_psi_read(&r->psi) < 0) r->psi.ok = false;
    r->vm_ok = vmstat_read(&r->vm) == 0;
}

/* Sums over the disks that could be read both times; returns how many. */
static int disks_between(const struct verify_plan *p, const struct verify_reading *a, const struct verify_reading *b,
                         struct disk_acc *sum, double *busiest_pct)
{
    memset(sum, 0, sizeof *sum);
    *busiest_pct = 0;
    int used = 0;
    for (int i = 0; i < p->ndisks; i++) {
        struct disk_acc one = { 0 };
        sample_disk_accumulate(&one, &a->disk[i], &b->disk[i]);
        if (!one.window_ns) continue;
        struct probe_disk d;
        sample_disk_finish(&one, &d);
        if (d.util_pct > *busiest_pct) *busiest_pct = d.util_pct;
        sample_disk_accumulate(sum, &a->disk[i], &b->disk[i]);
        used++;
    }
    return used;
}

void verify_sample_between(const struct verify_plan *p, const struct verify_reading *a, const struct verify_reading *b,
                           double *psi_full, double *await_ms)
{
    struct disk_acc sum;
    double busiest;
    disks_between(p, a, b, &sum, &busiest);
    uint64_t ios = sum.rd_ios + sum.wr_ios;
    *await_ms = ios ? (double)sum.ticks_ms / (double)ios : 0;
    struct psi_acc pa = { 0 };
    sample_psi_accumulate(&pa, &a->psi, &b->psi);
    struct probe_psi psi;
    sample_psi_finish(&pa, &psi);
    *psi_full = psi.available ? psi.full_pct : -1;
}

void verify_vm_add(struct verify_vm_sum *s, const struct verify_reading *r)
{
    if (!r->vm_ok) return;
    s->dirty += (double)r->vm.nr_dirty;
    s->writeback += (double)r->vm.nr_writeback;
    s->n++;
}

static void set(struct verify_block *b, enum verify_metric m, double v)
{
    b->v[m] = v;
    b->has[m] = true;
}

void verify_block_between(const struct verify_plan *p, const struct verify_reading *a, const struct verify_reading *b,
                          const struct verify_vm_sum *vm, struct verify_block *out)
{
    struct disk_acc sum;
    int used = disks_between(p, a, b, &sum, &out->util_pct);
    double secs = used ? (double)sum.window_ns / 1e9 / used : 0;
    if (sum.window_ns && secs > 0) {
        uint64_t ios = sum.rd_ios + sum.wr_ios;
        set(out, VM_READ_MBS, (double)sum.rd_sectors * 512 / 1e6 / secs);
        set(out, VM_WRITE_MBS, (double)sum.wr_sectors * 512 / 1e6 / secs);
        set(out, VM_IOPS, (double)ios / secs);
        set(out, VM_AWAIT_MS, ios ? (double)sum.ticks_ms / (double)ios : 0);
        out->io_bytes_s = (double)(sum.rd_sectors + sum.wr_sectors) * 512 / secs;
    }
    struct psi_acc pa = { 0 };
    sample_psi_accumulate(&pa, &a->psi, &b->psi);
    if (pa.ok) {
        struct probe_psi psi;
        sample_psi_finish(&pa, &psi);
        set(out, VM_PSI_SOME, psi.some_pct);
        set(out, VM_PSI_FULL, psi.full_pct);
    }
    if (vm->n) {
        set(out, VM_DIRTY_PAGES, vm->dirty / vm->n);
        set(out, VM_WRITEBACK_PAGES, vm->writeback / vm->n);
    }
}
