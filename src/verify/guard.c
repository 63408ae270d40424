/* guard — the limit a candidate must stay under while it runs: set from the
 * worst sample of the first two A blocks (PSI io full, average wait, the
 * canary's slowest read), times
 * a factor, never below a floor (an idle A would otherwise make any stall
 * a stop). */
#include "verify/live.h"

#include <stdio.h>

static double limit(double worst, double factor, double floor)
{
    double l = worst * factor;
    return l > floor ? l : floor;
}

static void worse_of(double *worst, double v)
{
    if (v > *worst) *worst = v;
}

void verify_guard_learn(struct verify_guard *g, const struct verify_spec *s, const struct verify_sample *worst)
{
    if (g->a_blocks >= 2) return;
    worse_of(&g->worst.psi_full, worst->psi_full);
    worse_of(&g->worst.await_ms, worst->await_ms);
    worse_of(&g->worst.canary_ms, worst->canary_ms);
    g->a_blocks++;
    g->lim_psi_full = limit(g->worst.psi_full, s->guard_factor, VERIFY_GUARD_PSI_FLOOR);
    g->lim_await_ms = limit(g->worst.await_ms, s->guard_factor, VERIFY_GUARD_AWAIT_FLOOR_MS);
    g->lim_canary_ms = limit(g->worst.canary_ms, s->guard_factor, VERIFY_GUARD_CANARY_FLOOR_MS);
}

bool verify_guard_check(struct verify_guard *g, const struct verify_spec *s, long long sample_ms,
                        const struct verify_sample *x)
{
    if (g->a_blocks == 0) return false;
    bool psi_over = x->psi_full >= 0 && x->psi_full > g->lim_psi_full;
    bool wait_over = x->await_ms > g->lim_await_ms;
    bool canary_over = x->canary_ms >= 0 && x->canary_ms > g->lim_canary_ms;
    if (!psi_over && !wait_over && !canary_over) {
        g->over = 0;
        return false;
    }
    if (++g->over < s->guard_samples) return false;
    char what[160];
    if (psi_over)
        snprintf(what, sizeof what, "PSI io full %.1f%% > guard %.1f%%", x->psi_full, g->lim_psi_full);
    else if (wait_over)
        snprintf(what, sizeof what, "average wait %.1f ms > guard %.1f ms", x->await_ms, g->lim_await_ms);
    else
        snprintf(what, sizeof what, "a canary read took %.0f ms > guard %.0f ms", x->canary_ms, g->lim_canary_ms);
    char canary[96] = "";
    if (g->worst.canary_ms > 0)   /* a canary ran */
        snprintf(canary, sizeof canary, ", canary %.0f ms; at least %.0f ms", g->worst.canary_ms,
                 VERIFY_GUARD_CANARY_FLOOR_MS);
    snprintf(g->why, sizeof g->why, "%s for %d samples in a row (%.1f s); the guard is %.0fx the worst sample of the "
             "first A blocks (PSI io full %.1f%%, wait %.1f ms%s), at least %.0f%% and %.0f ms", what, g->over,
             (double)g->over * (double)sample_ms / 1000, s->guard_factor, g->worst.psi_full, g->worst.await_ms, canary,
             VERIFY_GUARD_PSI_FLOOR, VERIFY_GUARD_AWAIT_FLOOR_MS);
    return true;
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
