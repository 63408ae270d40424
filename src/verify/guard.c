/* guard — the limit a candidate must stay under while it runs. Each guarded
 * counter (PSI io full, average wait, the canary's slowest read) is judged
 * on its mean over the last W samples, against guard_factor times the worst
 * such mean the first two A blocks showed, never below a floor (an idle A
 * would otherwise make any stall a stop).
 * The mean over a window, not one sample: a bursty workload's samples swing
 * from 0 to its peak, so a limit set from its worst sample let through a
 * candidate that tripled the stall (bench/data/live-verify-1.out). A factor
 * on the worst window, not the worst window alone: B's windows are as many
 * as A's, so the same workload passes A's worst about half the time
 * (live-verify-2: a good candidate and a null one stopped at 7.3% and 6.0%
 * against A's worst 6.0%). */
#include "verify/live.h"

#include <stdio.h>

static const struct {
    const char *name, *unit;
    double floor;
} guarded[VG_NR] = {
    [VG_PSI_FULL] = { "PSI io full", "%", VERIFY_GUARD_PSI_FLOOR },
    [VG_AWAIT] = { "average wait", " ms", VERIFY_GUARD_AWAIT_FLOOR_MS },
    [VG_CANARY] = { "the canary's slowest read", " ms", VERIFY_GUARD_CANARY_FLOOR_MS },
};

static int window_size(const struct verify_spec *s)
{
    int w = s->guard_samples > 0 ? s->guard_samples : VERIFY_GUARD_WINDOW_MIN;
    return w < VERIFY_GUARD_WINDOW_MAX ? w : VERIFY_GUARD_WINDOW_MAX;
}

static void window_push(struct verify_window *w, int size, double v)
{
    w->v[w->next] = v;
    w->next = (w->next + 1) % size;
    if (w->n < size) w->n++;
}

static double window_mean(const struct verify_window *w)
{
    double sum = 0;
    for (int i = 0; i < w->n; i++) sum += w->v[i];
    return w->n ? sum / w->n : 0;
}

/* Counter k of sample x into its window; true when the window is then
 * full, with its mean. A sample without a value (one in which no canary
 * read completed) leaves the window as it was. */
static bool window_take(struct verify_window *w, int size, const struct verify_sample *x, int k, double *mean)
{
    double v = k == VG_PSI_FULL ? x->psi_full : k == VG_AWAIT ? x->await_ms : x->canary_ms;
    if (v < 0) return false;
    window_push(w, size, v);
    *mean = window_mean(w);
    return w->n == size;
}

void verify_guard_block(struct verify_guard *g)
{
    for (int k = 0; k < VG_NR; k++) g->win[k] = (struct verify_window){ .n = 0 };
}

void verify_guard_learn(struct verify_guard *g, const struct verify_spec *s, const struct verify_sample *x)
{
    if (g->a_blocks >= 2) return;
    int size = window_size(s);
    for (int k = 0; k < VG_NR; k++) {
        double m;
        if (window_take(&g->win[k], size, x, k, &m) && m > g->a_worst_window[k]) g->a_worst_window[k] = m;
    }
}

void verify_guard_arm(struct verify_guard *g, const struct verify_spec *s)
{
    if (g->a_blocks >= 2) return;
    int size = window_size(s);
    for (int k = 0; k < VG_NR; k++) {
        /* a block shorter than the window: its whole measured part is the window */
        double m = window_mean(&g->win[k]);
        if (g->win[k].n < size && m > g->a_worst_window[k]) g->a_worst_window[k] = m;
        double l = s->guard_factor * g->a_worst_window[k];
        g->lim[k] = l > guarded[k].floor ? l : guarded[k].floor;
    }
    g->a_blocks++;
}

bool verify_guard_check(struct verify_guard *g, const struct verify_spec *s, long long sample_ms,
                        const struct verify_sample *x)
{
    if (g->a_blocks == 0) return false;
    int size = window_size(s);
    for (int k = 0; k < VG_NR; k++) {
        double m;
        if (!window_take(&g->win[k], size, x, k, &m) || m <= g->lim[k]) continue;
        snprintf(g->why, sizeof g->why, "%s averaged %.1f%s over the last %d samples (%.1f s), over the guard %.1f%s "
                 "(%.0fx the first A blocks' worst %d-sample mean, %.1f%s; at least %.0f%s)",
                 guarded[k].name, m, guarded[k].unit, size, (double)size * (double)sample_ms / 1000, g->lim[k],
                 guarded[k].unit, s->guard_factor, size, g->a_worst_window[k], guarded[k].unit, guarded[k].floor,
                 guarded[k].unit);
        return true;
    }
    return false;
}

bool verify_guard_metric(struct verify_guard *g, const struct verify_spec *s, bool cand, double value)
{
    bool higher = s->metric_higher;
    if (!cand) {
        if (g->metric_blocks >= 2) return false;
        if (!g->metric_blocks || (higher ? value < g->worst_metric : value > g->worst_metric)) g->worst_metric = value;
        g->metric_blocks++;
        g->lim_metric = higher ? g->worst_metric / s->guard_factor : g->worst_metric * s->guard_factor;
        return false;
    }
    /* a ratio means nothing around 0 or below it */
    if (!g->metric_blocks || g->worst_metric <= 0) return false;
    if (higher ? value >= g->lim_metric : value <= g->lim_metric) return false;
    snprintf(g->why, sizeof g->why, "the --metric gave %g in a B block, %s than the guard %g (%.0fx the worst of the "
             "first A blocks, %g)", value, higher ? "lower" : "higher", g->lim_metric, s->guard_factor, g->worst_metric);
    return true;
}
