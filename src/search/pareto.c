/* pareto — the noise-aware Pareto front (search.h): dominance only beyond
 * noise, by a pooled two-sample t-test on each metric. */
#include "search/search.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool better(int metric, double a, double b) { return metric_table[metric].dir > 0 ? a > b : a < b; }

/* Noise sd of metric k pooled over the points with repeated runs; *df its
 * degrees of freedom (0: no repeated runs, the noise is unknown). */
static double pooled_sd(const struct pareto_point *pts, int n, int k, int *df)
{
    double ss = 0;
    *df = 0;
    for (int i = 0; i < n; i++)
        if (pts[i].n > 1) {
            ss += (pts[i].n - 1) * pts[i].sd.v[k] * pts[i].sd.v[k];
            *df += pts[i].n - 1;
        }
    return *df > 0 ? sqrt(ss / *df) : NAN;
}

/* a better than b on metric k by more than the noise allows. */
static bool beyond_noise(const struct pareto_point *a, const struct pareto_point *b, int k, double sd, double t)
{
    double margin = t * sd * sqrt(1.0 / a->n + 1.0 / b->n);
    double d = a->mean.v[k] - b->mean.v[k];
    return better(k, a->mean.v[k], b->mean.v[k]) && fabs(d) > margin;
}

int search_pareto_front(const struct pareto_point *pts, int n, const int m[2], struct pareto_point *front, int max)
{
    double sd[2], t[2];
    bool known = true;
    for (int j = 0; j < 2; j++) {
        int df;
        sd[j] = pooled_sd(pts, n, m[j], &df);
        t[j] = df > 0 ? gsl_cdf_tdist_Pinv(0.975, df) : NAN;
        known = known && df > 0;
    }
    struct pareto_point *on = xmalloc(sizeof *on * (size_t)(n + 1));
    int size = 0;
    for (int i = 0; i < n; i++) {
        bool dominated = false;
        for (int j = 0; known && j < n && !dominated; j++)
            dominated = j != i && beyond_noise(&pts[j], &pts[i], m[0], sd[0], t[0]) &&
                        beyond_noise(&pts[j], &pts[i], m[1], sd[1], t[1]);
        if (dominated) continue;
        on[size] = pts[i];
        for (int j = 0; j < 2; j++) {
            double hw = known ? t[j] * sd[j] / sqrt(pts[i].n) : NAN;
            on[size].lo[j] = pts[i].mean.v[m[j]] - hw;
            on[size].hi[j] = pts[i].mean.v[m[j]] + hw;
        }
        size++;
    }
    /* best first on the first metric, then the better second metric */
    for (int i = 1; i < size; i++)
        for (int j = i; j > 0; j--) {
            const struct pareto_point *a = &on[j], *b = &on[j - 1];
            bool before = better(m[0], a->mean.v[m[0]], b->mean.v[m[0]]) ||
                          (a->mean.v[m[0]] == b->mean.v[m[0]] && better(m[1], a->mean.v[m[1]], b->mean.v[m[1]]));
            if (!before) break;
            struct pareto_point tmp = on[j];
            on[j] = on[j - 1];
            on[j - 1] = tmp;
        }
    memcpy(front, on, sizeof *on * (size_t)(size < max ? size : max));
    free(on);
    return size;
}
