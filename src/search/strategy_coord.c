/* strategy_coord — coordinate descent as a compass search on level indices:
 * from the best configuration so far, move one knob at a time, large steps
 * first, then smaller; categories try every other value. The state is the
 * history itself, so a resumed search proposes the same points. */
#include "search/strategy.h"

#include <math.h>
#include <stdlib.h>

struct coord_state {
    const struct space *sp;
    uint64_t rng;
};

static void *coord_create(const struct space *sp, uint64_t seed)
{
    struct coord_state *c = xcalloc(1, sizeof *c);
    c->sp = sp;
    c->rng = seed ^ 0xc00dULL;
    return c;
}

/* Neighbour of centre along dim d by `step` levels (or category `step`). */
static bool neighbour(const struct space *sp, const struct search_config *centre, int d, int step,
                      struct search_config *out)
{
    *out = *centre;
    if (centre->lv[d] < 0) return false;
    int lv = sp->dim[d].kind == DIM_CATEGORICAL ? step : centre->lv[d] + step;
    if (lv < 0 || lv >= sp->dim[d].nlevels || lv == centre->lv[d]) return false;
    out->lv[d] = lv;
    space_normalise(sp, out);
    return space_valid(sp, out, NULL, 0);
}

static int coord_propose(void *st, const struct history *h, struct search_config *out, double *ei)
{
    struct coord_state *cs = st;
    const struct space *sp = cs->sp;
    *ei = NAN;
    int best = history_best(h);
    struct search_config centre;
    if (best < 0) space_baseline(sp, &centre);
    else centre = h->pt[best].cfg;
    int maxl = 1;
    for (int d = 0; d < sp->ndims; d++) if (sp->dim[d].nlevels > maxl) maxl = sp->dim[d].nlevels;
    int start = sp->ndims ? h->nobs % sp->ndims : 0;
    for (int step = maxl / 2 > 1 ? maxl / 2 : 1; step >= 1; step /= 2) {
        for (int k = 0; k < sp->ndims; k++) {
            int d = (start + k) % sp->ndims;
            const struct space_dim *dm = &sp->dim[d];
            if (dm->kind == DIM_CATEGORICAL) {
                if (step != 1) continue;
                for (int lv = 0; lv < dm->nlevels; lv++)
                    if (neighbour(sp, &centre, d, lv, out) && history_find(h, out) < 0) return 0;
                continue;
            }
            int s = step < dm->nlevels ? step : 1;
            for (int sign = 1; sign >= -1; sign -= 2)
                if (neighbour(sp, &centre, d, sign * s, out) && history_find(h, out) < 0) return 0;
        }
    }
    /* A local optimum on the level grid: restart from a random point. */
    return strategy_random_unseen(sp, h, &cs->rng, 10000, out);
}

static void coord_destroy(void *st) { free(st); }

const struct strategy_ops strategy_coord = {
    .name = "coord", .help = "coordinate descent from the best point so far, one knob at a time, coarse to fine",
    .create = coord_create, .propose = coord_propose, .destroy = coord_destroy,
};
