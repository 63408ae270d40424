/* plan — what a live verification will do before it writes anything: the
 * block order, the settle time after each switch, the disks it watches. */
#include "verify/live.h"
#include "core/device.h"
#include "core/knob.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct verify_metric_def verify_metrics[VM_NR] = {
    [VM_AWAIT_MS] = { "await", "ms", true, 0.01, VJ_ALWAYS },
    [VM_PSI_SOME] = { "psi_io_some", "%", true, 0.1, VJ_ALWAYS },
    [VM_PSI_FULL] = { "psi_io_full", "%", true, 0.1, VJ_ALWAYS },
    [VM_CANARY_MS] = { "canary", "ms", true, 0.01, VJ_ALWAYS },
    [VM_USER] = { "metric", "", true, 0, VJ_ALWAYS },
    [VM_READ_MBS] = { "read", "MB/s", false, 0.001, VJ_SATURATED },
    [VM_WRITE_MBS] = { "write", "MB/s", false, 0.001, VJ_SATURATED },
    [VM_IOPS] = { "iops", "/s", false, 0.01, VJ_SATURATED },
    [VM_DIRTY_PAGES] = { "nr_dirty", "pages", true, 1, VJ_SHOWN },
    [VM_WRITEBACK_PAGES] = { "nr_writeback", "pages", true, 1, VJ_SHOWN },
    [VM_CANARY_MAX_MS] = { "canary_max", "ms", true, 0.01, VJ_SHOWN },
};

void verify_schedule(int nblocks, uint64_t seed, bool *cand)
{
    int npairs = nblocks / 2;
    if (npairs < 1) return;
    /* 1: the pair is BA. Pair 0 is AB; of the rest, as many BA as make the
     * two orders differ by at most one over all pairs. */
    int *ba = calloc((size_t)npairs, sizeof *ba);
    if (!ba) sl_die("out of memory");
    int nba = npairs / 2;
    for (int i = 1; i <= nba; i++) ba[i] = 1;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng) sl_die("out of memory");
    gsl_rng_set(rng, (unsigned long)seed);
    if (npairs > 2) gsl_ran_shuffle(rng, ba + 1, (size_t)(npairs - 1), sizeof *ba);
    gsl_rng_free(rng);
    for (int k = 0; k < npairs; k++) {
        cand[2 * k] = ba[k] == 1;
        cand[2 * k + 1] = ba[k] != 1;
    }
    free(ba);
}

long long verify_settle_ms(long long expire_cs, long long writeback_cs, long long block_ms, char *why, size_t n)
{
    long long cap = block_ms / 2;
    if (expire_cs < 0 || writeback_cs < 0) {
        snprintf(why, n, "%.1f s: half a block (the expiry and writeback intervals cannot be read)", (double)cap / 1000);
        return cap;
    }
    if (writeback_cs == 0) {
        snprintf(why, n, "%.1f s: half a block (dirty_writeback_centisecs 0: no periodic writeback, pages drain only "
                 "at the dirty thresholds)", (double)cap / 1000);
        return cap;
    }
    long long ms = (expire_cs + writeback_cs) * 10;
    if (ms > cap) {
        snprintf(why, n, "%.1f s: half a block (dirty_expire_centisecs %lld + dirty_writeback_centisecs %lld = %.1f s, "
                 "capped)", (double)cap / 1000, expire_cs, writeback_cs, (double)ms / 1000);
        return cap;
    }
    snprintf(why, n, "%.1f s: dirty_expire_centisecs %lld + dirty_writeback_centisecs %lld (the oldest dirty page "
             "is written by then)", (double)ms / 1000, expire_cs, writeback_cs);
    return ms;
}

/* The value of a knob in force now, or -1 when this kernel lacks it. */
static long long current_value(const char *name)
{
    struct knob k;
    char buf[KNOB_VALUE_MAX];
    if (knob_lookup(name, NULL, &k, NULL) < 0 || knob_read(&k, buf, sizeof buf, NULL) < 0) return -1;
    char *end;
    long long v = strtoll(buf, &end, 10);
    return end == buf ? -1 : v;
}

/* The candidate's value of a knob, else the one in force. */
static long long setting_value(const struct knobset *cand, bool b, const char *name, const char *old24)
{
    for (int i = 0; b && i < cand->n; i++)
        if (strcmp(cand->ch[i].k.name, name) == 0 || strcmp(cand->ch[i].k.name, old24) == 0)
            return strtoll(cand->ch[i].want, NULL, 10);
    long long v = current_value(name);
    /* 2.4's bdflush vector: age_buffer and interval, in jiffies at HZ=100 */
    return v >= 0 ? v : current_value(old24);
}

static void plan_settle(struct verify_plan *p, const struct knobset *cand, long long block_ms)
{
    for (int side = 0; side < 2; side++) {
        long long expire = setting_value(cand, side == 1, "vm.dirty_expire_centisecs", "vm.bdflush.age_buffer");
        long long wb = setting_value(cand, side == 1, "vm.dirty_writeback_centisecs", "vm.bdflush.interval");
        p->settle_after_ms[side] = verify_settle_ms(expire, wb, block_ms, p->settle_why[side], sizeof p->settle_why[side]);
    }
}

/* Adds dev unless it is there; false when the list is full (the plan says
 * it watches the first VERIFY_DISKS_MAX). */
static bool add_disk(struct verify_plan *p, const char *dev)
{
    for (int i = 0; i < p->ndisks; i++)
        if (strcmp(p->disks[i], dev) == 0) return true;
    if (p->ndisks >= VERIFY_DISKS_MAX) return false;
    snprintf(p->disks[p->ndisks++], sizeof p->disks[0], "%s", dev);
    return true;
}

/* The disks a vm.* knob acts on: the one under --dir, or every disk that
 * is not a virtual device (loop, dm, md, zram: their I/O is counted again
 * on the disks below them). */
static int vm_disks(struct verify_plan *p, const char *dir, sl_err *e)
{
    if (dir) {
        char disk[64];
        if (device_for_path(dir, disk, sizeof disk, e) < 0) return sl_prefix(e, SL_EUSAGE, "--dir %s", dir);
        add_disk(p, disk);
        snprintf(p->disks_why, sizeof p->disks_why, "the disk under %s", dir);
        return 0;
    }
    struct device *d;
    int n = device_list(&d, e);
    if (n < 0) return -1;
    bool all = true;
    for (int i = 0; i < n; i++)
        if (!strstr(d[i].syspath, "/devices/virtual/")) all = add_disk(p, d[i].name) && all;
    free(d);
    char first[32] = "";
    if (!all) snprintf(first, sizeof first, ": the first %d by name", VERIFY_DISKS_MAX);
    snprintf(p->disks_why, sizeof p->disks_why, "vm.* knobs act on every disk that is not virtual%s; --dir DIR watches "
             "one", first);
    return 0;
}

static int plan_disks(struct verify_plan *p, const struct verify_spec *s, const struct knobset *cand, sl_err *e)
{
    bool vm = false;
    for (int i = 0; i < cand->n; i++) {
        const struct knob *k = &cand->ch[i].k;
        if (k->def->scope == SCOPE_VM || k->def->scope == SCOPE_BDFLUSH) vm = true;
        else add_disk(p, k->dev);
    }
    if (!vm) snprintf(p->disks_why, sizeof p->disks_why, "the disk(s) the candidate's knobs belong to");
    if (vm && vm_disks(p, s->dir, e) < 0) return -1;
    if (p->ndisks == 0)
        return sl_fail(e, SL_EUSAGE, "no disk to measure: /sys/block lists no disk that is not virtual; give --dir DIR "
                       "on the disk the workload uses. Nothing was changed");
    return 0;
}

static int plan_blocks(struct verify_plan *p, const struct verify_spec *s, sl_err *e)
{
    if (s->block_ms <= 0 || s->block_ms > s->duration_ms)
        return sl_fail(e, SL_EUSAGE, "--block %.0f s is longer than --duration %.0f s: give a shorter --block or a longer "
                       "--duration. Nothing was changed", (double)s->block_ms / 1000, (double)s->duration_ms / 1000);
    long long n = s->duration_ms / s->block_ms;
    if (n < VERIFY_MIN_BLOCKS)
        return sl_fail(e, SL_EUSAGE, "--duration %.0f s holds %lld block(s) of %.0f s: the test needs two pairs of "
                       "blocks (A and B twice), so at least --duration %.0f s, or a shorter --block. Nothing was changed",
                       (double)s->duration_ms / 1000, n, (double)s->block_ms / 1000,
                       (double)(VERIFY_MIN_BLOCKS * s->block_ms) / 1000);
    if (n > VERIFY_BLOCKS_MAX)
        return sl_fail(e, SL_EUSAGE, "--duration %.0f s in %.0f s blocks is %lld blocks, more than %d: give longer "
                       "blocks. Nothing was changed", (double)s->duration_ms / 1000, (double)s->block_ms / 1000, n,
                       VERIFY_BLOCKS_MAX);
    p->nblocks = (int)(n - n % 2);   /* whole pairs only */
    p->npairs = p->nblocks / 2;
    verify_schedule(p->nblocks, s->seed, p->cand);
    p->sample_ms = s->sample_ms > 0 ? s->sample_ms : s->block_ms / 4 < 1000 ? s->block_ms / 4 : 1000;
    return 0;
}

static int plan_candidate(struct verify_plan *p, const struct knobset *cand, sl_err *e)
{
    if (cand->n == 0) return sl_fail(e, SL_EUSAGE, "no candidate: give KNOB=VALUE pairs or a profile name");
    bool differs = false;
    size_t len = 0, blen = 0;
    for (int i = 0; i < cand->n; i++) {
        const struct knob_change *c = &cand->ch[i];
        if (!c->before[0] || !knob_values_equal(&c->k, c->before, c->want)) differs = true;
        int w = snprintf(p->cand_text + len, sizeof p->cand_text - len, "%s%s=%s", i ? " " : "", c->k.name, c->want);
        if (w > 0 && (size_t)w < sizeof p->cand_text - len) len += (size_t)w;
        w = snprintf(p->base_text + blen, sizeof p->base_text - blen, "%s%s=%s", i ? " " : "", c->k.name,
                     c->before[0] ? c->before : "(absent)");
        if (w > 0 && (size_t)w < sizeof p->base_text - blen) blen += (size_t)w;
    }
    if (!differs)
        return sl_fail(e, SL_EUSAGE, "the candidate %s is already in force: there is nothing to compare it with. "
                       "Nothing was changed", p->cand_text);
    return 0;
}

/* The canary reads a file on the workload's disk: under --dir, the only
 * place sluice is told it may write. */
static void plan_canary(struct verify_plan *p, const struct verify_spec *s)
{
    p->canary = s->dir && !s->no_canary;
    if (p->canary)
        snprintf(p->canary_why, sizeof p->canary_why, "a 4 KiB uncached read every %d ms from a 16 MiB scratch file "
                 "under %s", VERIFY_CANARY_PERIOD_MS, s->dir);
    else if (s->dir)
        snprintf(p->canary_why, sizeof p->canary_why, "off (--no-canary)");
    else
        snprintf(p->canary_why, sizeof p->canary_why, "off: --dir DIR on the workload's disk gives a 4 KiB uncached "
                 "read every %d ms from a scratch file there", VERIFY_CANARY_PERIOD_MS);
}

/* The guard's window: 5 s of samples, long enough to hold a bursty
 * workload's cycle, at least VERIFY_GUARD_WINDOW_MIN samples, at most half
 * a block's (a B block must be able to fill it). */
static int guard_window(long long sample_ms, long long block_ms)
{
    if (sample_ms <= 0) return VERIFY_GUARD_WINDOW_MIN;
    long long w = 5000 / sample_ms;
    if (w > block_ms / sample_ms / 2) w = block_ms / sample_ms / 2;
    if (w < VERIFY_GUARD_WINDOW_MIN) w = VERIFY_GUARD_WINDOW_MIN;
    return w < VERIFY_GUARD_WINDOW_MAX ? (int)w : VERIFY_GUARD_WINDOW_MAX;
}

int verify_prepare(struct verify_run *r, const struct verify_spec *s, const struct knobset *cand, sl_err *e)
{
    memset(r, 0, sizeof *r);
    r->spec = *s;
    if (r->spec.guard_factor <= 0) r->spec.guard_factor = 2;
    struct verify_plan *p = &r->plan;
    if (plan_candidate(p, cand, e) < 0 || plan_blocks(p, &r->spec, e) < 0 || plan_disks(p, &r->spec, cand, e) < 0)
        return -1;
    if (r->spec.guard_samples <= 0) r->spec.guard_samples = guard_window(p->sample_ms, r->spec.block_ms);
    plan_settle(p, cand, s->block_ms);
    plan_canary(p, &r->spec);
    return 0;
}
