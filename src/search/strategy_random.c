/* strategy_random — a scrambled Sobol sequence (GSL) over the level cube:
 * space-filling like a Latin hypercube, reproducible per seed through a
 * random shift mod 1 (Cranley-Patterson). */
#include "search/strategy.h"

#include <gsl/gsl_qrng.h>
#include <math.h>
#include <stdlib.h>

struct random_state {
    const struct space *sp;
    gsl_qrng *q;
    double shift[SPACE_MAX_DIMS];
    uint64_t rng;
};

static void *random_create(const struct space *sp, uint64_t seed)
{
    struct random_state *r = xcalloc(1, sizeof *r);
    r->sp = sp;
    r->q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)(sp->ndims > 0 ? sp->ndims : 1));
    if (!r->q) sl_die("gsl_qrng_alloc failed");
    r->rng = seed ^ 0x5eed5eedULL;
    for (int i = 0; i < sp->ndims; i++) r->shift[i] = strategy_uniform(&r->rng);
    return r;
}

static int random_propose(void *st, const struct history *h, struct search_config *out, double *ei)
{
    struct random_state *r = st;
    *ei = NAN;
    double u[SPACE_MAX_DIMS];
    /* Invalid or already seen points are skipped; the cube is large
     * compared with any budget, so a few thousand draws suffice. */
    for (int t = 0; t < 4096; t++) {
        gsl_qrng_get(r->q, u);
        for (int i = 0; i < r->sp->ndims; i++) u[i] = fmod(u[i] + r->shift[i], 1.0);
        strategy_from_unit(r->sp, u, out);
        if (space_valid(r->sp, out, NULL, 0) && history_find(h, out) < 0) return 0;
    }
    return strategy_random_unseen(r->sp, h, &r->rng, 100000, out);
}

static void random_destroy(void *st)
{
    struct random_state *r = st;
    gsl_qrng_free(r->q);
    free(r);
}

const struct strategy_ops strategy_random = {
    .name = "random", .help = "scrambled Sobol sequence over the space (quasi-random, space-filling)",
    .create = random_create, .propose = random_propose, .destroy = random_destroy,
};
