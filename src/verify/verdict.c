/* verdict — the paired decision of a live verification: pair k is blocks
 * 2k and 2k+1 (one A, one B, back to back), so what the workload does from
 * one minute to the next cancels in each pair's ratio. The same decision
 * code as search and compare (decide_paired: Wilcoxon signed-rank on the
 * log ratios, Hodges-Lehmann effect and interval). The metrics judged are
 * 3 to 8 tests of one candidate, and any of them makes the verdict: each
 * at 0.05 would claim a null candidate far more often than 1 time in 20
 * (bench/data/live-verify-null-unadjusted.out: 1 run in 3), so they are
 * held to Holm's step-down levels together. */
#include "verify/live.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A live disk is saturated when the busiest watched disk was busy more than
 * this share of the A blocks' measured time (diskstats io_ticks): only
 * then does throughput say what the disk can do, not what was asked. */
#define SATURATED_UTIL_PCT 90.0
/* Demand differs when B's I/O volume is beyond noise from A's or this far
 * off: the workload did different work in the two arms. */
#define DEMAND_DIFFERS_PCT 25.0

const char *verify_overall_name(enum verify_overall v)
{
    static const char *const names[] = { "better", "worse", "no difference beyond noise", "no verdict" };
    return names[v];
}

static bool judged(enum verify_metric m, bool saturated)
{
    enum verify_judged j = verify_metrics[m].judged;
    return j == VJ_ALWAYS || (j == VJ_SATURATED && saturated);
}

/* Values of one metric over the complete pairs that have it on both
 * sides; returns how many. */
static int pair_values(const struct verify_block *b, int npairs, enum verify_metric m, double *base, double *cand)
{
    int k = 0;
    for (int p = 0; p < npairs; p++) {
        const struct verify_block *x = &b[2 * p], *y = &b[2 * p + 1];
        const struct verify_block *a = x->cand ? y : x, *c = x->cand ? x : y;
        if (!a->has[m] || !c->has[m]) continue;
        base[k] = a->v[m];
        cand[k] = c->v[m];
        k++;
    }
    return k;
}

static double mean(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i];
    return n ? s / n : NAN;
}

/* Metrics that can be 0 (no stall in a block) are compared as logs of the
 * value plus a floor; the user's metric is compared as given, and decide
 * says so when it is not positive. */
static void decide_metric(const double *base, const double *cand, int n, enum verify_metric m, bool lower,
                          struct decision *d)
{
    struct decide_opts o;
    decide_opts_default(&o);
    o.lower_is_better = lower;
    double lb[VERIFY_BLOCKS_MAX / 2], lc[VERIFY_BLOCKS_MAX / 2];
    double floor = verify_metrics[m].floor;
    if (floor > 0) {
        o.log_input = true;
        for (int i = 0; i < n; i++) {
            lb[i] = log(base[i] + floor);
            lc[i] = log(cand[i] + floor);
        }
        base = lb;
        cand = lc;
    }
    sl_err e;
    if (decide_paired(base, cand, n, &o, d, &e) < 0) memset(d, 0, sizeof *d), d->verdict = DECIDE_NO_VERDICT;
}

static void decide_demand(const struct verify_block *b, int npairs, struct verify_verdict *out)
{
    double base[VERIFY_BLOCKS_MAX / 2], cand[VERIFY_BLOCKS_MAX / 2];
    int k = 0;
    for (int p = 0; p < npairs; p++) {
        const struct verify_block *x = &b[2 * p], *y = &b[2 * p + 1];
        base[k] = x->cand ? y->io_bytes_s : x->io_bytes_s;
        cand[k] = x->cand ? x->io_bytes_s : y->io_bytes_s;
        base[k] += 1;   /* bytes/s: an idle block is not infinitely less */
        cand[k] += 1;
        k++;
    }
    struct decide_opts o;
    decide_opts_default(&o);
    sl_err e;
    if (decide_paired(base, cand, k, &o, &out->demand, &e) < 0) out->demand.verdict = DECIDE_NO_VERDICT;
    bool beyond = out->demand.verdict == DECIDE_BETTER || out->demand.verdict == DECIDE_WORSE;
    bool far = out->demand.verdict != DECIDE_NO_VERDICT && fabs(out->demand.effect_pct) > DEMAND_DIFFERS_PCT;
    out->demand_differs = !out->saturated && (beyond || far);
}

static void saturation(const struct verify_block *b, int n, struct verify_verdict *out)
{
    double sum = 0;
    int na = 0;
    for (int i = 0; i < n; i++)
        if (!b[i].cand) sum += b[i].util_pct, na++;
    out->a_util_pct = na ? sum / na : 0;
    out->saturated = out->a_util_pct > SATURATED_UTIL_PCT;
}

/* Holm: the judged metrics' p values in ascending order, the i-th (from
 * 0) tested at alpha / (m - i) until one is not under its level; that one
 * and every later one are within noise, whatever their own p. The
 * family's chance of any false claim stays under alpha. */
static void holm(struct verify_verdict *out)
{
    int idx[VM_NR], m = 0;
    for (int k = 0; k < VM_NR; k++)
        if (out->decided[k] && out->d[k].verdict != DECIDE_NO_VERDICT) idx[m++] = k;
    for (int i = 1; i < m; i++)   /* insertion sort on p: at most 8 */
        for (int j = i; j > 0 && out->d[idx[j]].p < out->d[idx[j - 1]].p; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    out->judged = m;
    bool stopped = false;
    for (int i = 0; i < m; i++) {
        struct decision *d = &out->d[idx[i]];
        d->alpha = d->alpha / (m - i);
        stopped = stopped || !(d->p <= d->alpha);
        if (stopped) d->verdict = DECIDE_WITHIN_NOISE;
    }
}

static void overall(struct verify_verdict *out)
{
    bool worse = false, better = false, noise = false;
    for (int m = 0; m < VM_NR; m++) {
        if (!out->decided[m]) continue;
        worse = worse || out->d[m].verdict == DECIDE_WORSE;
        better = better || out->d[m].verdict == DECIDE_BETTER;
        noise = noise || out->d[m].verdict == DECIDE_WITHIN_NOISE;
    }
    out->overall = worse ? VERIFY_WORSE : better ? VERIFY_BETTER : noise ? VERIFY_NOISE : VERIFY_NO_VERDICT;
    out->held = !worse;
    int need = verify_pairs_needed(out->judged);
    if (out->npairs < need)
        snprintf(out->why, sizeof out->why, "%d pair(s) of blocks: with %d metrics judged, below %d pairs no difference "
                 "can be shown (the smallest exact p of %d pairs is %.3f, Holm's first level %.4f)", out->npairs,
                 out->judged, need, out->npairs, out->npairs > 0 ? 2.0 / pow(2, out->npairs) : 1.0,
                 0.05 / (out->judged > 0 ? out->judged : 1));
}

void verify_decide(const struct verify_block *b, int n, const struct verify_spec *s, struct verify_verdict *out)
{
    memset(out, 0, sizeof *out);
    int npairs = n / 2;
    if (npairs > VERIFY_BLOCKS_MAX / 2) npairs = VERIFY_BLOCKS_MAX / 2;
    out->npairs = npairs;
    saturation(b, 2 * npairs, out);
    for (int m = 0; m < VM_NR; m++) {
        double base[VERIFY_BLOCKS_MAX / 2], cand[VERIFY_BLOCKS_MAX / 2];
        int k = pair_values(b, npairs, (enum verify_metric)m, base, cand);
        if (!k) continue;
        out->has[m] = true;
        out->a_mean[m] = mean(base, k);
        out->b_mean[m] = mean(cand, k);
        if (!judged((enum verify_metric)m, out->saturated)) continue;
        bool lower = m == VM_USER ? !s->metric_higher : verify_metrics[m].lower_is_better;
        decide_metric(base, cand, k, (enum verify_metric)m, lower, &out->d[m]);
        out->decided[m] = true;
    }
    holm(out);
    if (npairs > 0) decide_demand(b, npairs, out);
    overall(out);
}

int verify_pairs_needed(int judged)
{
    double level = 0.05 / (judged > 0 ? judged : 1);
    int n = 1;
    while (2.0 / pow(2, n) > level) n++;
    return n;
}

int verify_plan_judged(const struct verify_plan *p, const struct verify_spec *s)
{
    return 3 + (p->canary ? 1 : 0) + (s->metric_cmd ? 1 : 0);
}

double verify_detectable_pct(const struct verify_block *b, int ncomplete, enum verify_metric m, int npairs_planned,
                             int judged)
{
    double base[VERIFY_BLOCKS_MAX / 2], cand[VERIFY_BLOCKS_MAX / 2];
    int k = pair_values(b, ncomplete / 2, m, base, cand);
    if (k < 2 || npairs_planned < 1) return NAN;
    double floor = verify_metrics[m].floor > 0 ? verify_metrics[m].floor : 0;
    double d[VERIFY_BLOCKS_MAX / 2], sum = 0, ss = 0;
    for (int i = 0; i < k; i++) {
        if (base[i] + floor <= 0 || cand[i] + floor <= 0) return NAN;
        d[i] = log(cand[i] + floor) - log(base[i] + floor);
        sum += d[i];
    }
    double mean_d = sum / k;
    for (int i = 0; i < k; i++) ss += (d[i] - mean_d) * (d[i] - mean_d);
    double sd = sqrt(ss / (k - 1));
    /* a two-sided test at Holm's first level with 80% power on the paired
     * mean, widened by the signed-rank test's efficiency against it (3/pi
     * on normal data) */
    double level = 0.05 / (judged > 0 ? judged : 1);
    double z = gsl_cdf_ugaussian_Pinv(1 - level / 2) + gsl_cdf_ugaussian_Pinv(0.80);
    double shift = z * sd / sqrt((double)npairs_planned) / sqrt(3.0 / M_PI);
    return 100 * expm1(shift);
}

void verify_effect_text(const struct verify_verdict *v, enum verify_metric m, char *buf, size_t n)
{
    const struct decision *d = &v->d[m];
    if (v->decided[m] && d->verdict != DECIDE_NO_VERDICT)
        snprintf(buf, n, "%+.1f%% [%.0f%% CI %+.1f%%, %+.1f%%] p=%.2g (level %.2g): %s", d->effect_pct,
                 100 * d->level, d->lo_pct, d->hi_pct, d->p, d->alpha,
                 d->verdict == DECIDE_WITHIN_NOISE ? "no difference beyond noise" : decide_verdict_name(d->verdict));
    else if (v->decided[m]) snprintf(buf, n, "no verdict: %s", d->why_text);
    else if (verify_metrics[m].judged == VJ_SATURATED) snprintf(buf, n, "follows demand: not judged (disk not saturated)");
    else snprintf(buf, n, "shown, not judged");
}

void verify_saturation_text(const struct verify_verdict *v, char *buf, size_t n)
{
    snprintf(buf, n, "the disk was %.0f%% busy in the A blocks: %s", v->a_util_pct,
             v->saturated ? "saturated, so throughput is judged too"
                          : "not saturated, so throughput says what the workload asked, not what B can do");
}

void verify_demand_text(const struct verify_verdict *v, char *buf, size_t n)
{
    snprintf(buf, n, "the workload's demand differed between A and B: B's blocks moved %+.1f%% [%+.1f%%, %+.1f%%] of "
             "A's I/O volume, so the arms did not see the same work; read the waits with care", v->demand.effect_pct,
             v->demand.lo_pct, v->demand.hi_pct);
}
