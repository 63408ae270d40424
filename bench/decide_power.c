/* decide_power — which estimator and test decides best under heavy-tailed
 * noise: for each method of decide_compare, the share of simulated
 * comparisons that claim "better" when the candidate truly is (power) and
 * when it is not (false claims), over sample sizes a quick search affords.
 *
 * Noise: log-normal with coefficient of variation CV; with stalls, a share
 * of runs (10%) is multiplied by a uniform 0.2-0.6 (a run that stalled to
 * 20-60% of its true level), on either side, independently.
 *
 * Usage: decide_power [SIMS] [ALPHA]   (prints one row per setting) */
#include "stat/decide.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct noise { double cv, stall_share; };

static void draw(gsl_rng *r, const struct noise *nz, double level, double *x, int n)
{
    double sigma = sqrt(log(1 + nz->cv * nz->cv));
    for (int i = 0; i < n; i++) {
        x[i] = level * exp(gsl_ran_gaussian(r, sigma) - sigma * sigma / 2);
        if (gsl_rng_uniform(r) < nz->stall_share) x[i] *= 0.2 + 0.4 * gsl_rng_uniform(r);
    }
}

int main(int argc, char **argv)
{
    int sims = argc > 1 ? atoi(argv[1]) : 2000;
    double alpha = argc > 2 ? atof(argv[2]) : 0.05;
    static const int sizes[][2] = { { 5, 5 }, { 8, 5 }, { 8, 8 }, { 12, 10 } };
    static const struct noise noises[] = { { 0.05, 0 }, { 0.05, 0.10 }, { 0.10, 0.10 } };
    static const double effects[] = { 0, 0.10, 0.20, 0.45 };
    printf("# decide_power: %d simulations per cell, alpha %.3g; claims of \"better\" (%%)\n", sims, alpha);
    printf("%-6s %-5s %-6s %-7s", "cv", "stall", "n_b/n_c", "effect");
    for (int m = 0; m < DECIDE_METHOD_NR; m++) printf(" %12s", decide_method_name((enum decide_method)m));
    printf("\n");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double b[16], c[16];
    for (size_t z = 0; z < sizeof noises / sizeof *noises; z++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (size_t f = 0; f < sizeof effects / sizeof *effects; f++) {
                int claims[DECIDE_METHOD_NR] = { 0 };
                gsl_rng_set(r, 1 + z * 1000 + s * 100 + f);
                for (int i = 0; i < sims; i++) {
                    draw(r, &noises[z], 100, b, sizes[s][0]);
                    draw(r, &noises[z], 100 * (1 + effects[f]), c, sizes[s][1]);
                    for (int m = 0; m < DECIDE_METHOD_NR; m++) {
                        struct decide_opts o;
                        decide_opts_default(&o);
                        o.method = (enum decide_method)m;
                        o.alpha = alpha;
                        o.seed = (uint64_t)i + 1;
                        struct decision d;
                        decide_compare(b, sizes[s][0], c, sizes[s][1], &o, &d, NULL);
                        claims[m] += d.verdict == DECIDE_BETTER;
                    }
                }
                printf("%-6.2f %-5.2f %2d/%-4d %+6.0f%%", noises[z].cv, noises[z].stall_share, sizes[s][0], sizes[s][1],
                       100 * effects[f]);
                for (int m = 0; m < DECIDE_METHOD_NR; m++) printf(" %11.1f%%", 100.0 * claims[m] / sims);
                printf("\n");
                fflush(stdout);
            }
    gsl_rng_free(r);
    return 0;
}
