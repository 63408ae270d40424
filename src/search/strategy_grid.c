/* strategy_grid — a coarse grid first (ends and middle of every ordinal
 * knob, every category), in order; then the remaining full grid. */
#include "search/strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct grid_state {
    const struct space *sp;
    long long it;       /* position in the coarse enumeration */
    struct space_iter full_it;  /* position in the full enumeration */
};

static void *grid_create(const struct space *sp, uint64_t seed)
{
    struct grid_state *g = xcalloc(1, sizeof *g);
    g->sp = sp;
    return g;
}

/* Coarse levels of a dim: all for categories and short ordinals, else the
 * first, middle and last. */
static int coarse_levels(const struct space_dim *dm, int *lv)
{
    if (dm->kind == DIM_CATEGORICAL || dm->nlevels <= 3) {
        for (int i = 0; i < dm->nlevels; i++) lv[i] = i;
        return dm->nlevels;
    }
    lv[0] = 0;
    lv[1] = (dm->nlevels - 1) / 2;
    lv[2] = dm->nlevels - 1;
    return 3;
}

static int coarse_next(struct grid_state *g, const struct history *h, struct search_config *out)
{
    const struct space *sp = g->sp;
    int lv[SPACE_MAX_DIMS][SPACE_MAX_LEVELS] = { { 0 } }, cnt[SPACE_MAX_DIMS] = { 0 };
    long long total = 1;
    for (int i = 0; i < sp->ndims; i++) {
        cnt[i] = coarse_levels(&sp->dim[i], lv[i]);
        if (total > (1LL << 40) / cnt[i]) return 1;
        total *= cnt[i];
    }
    while (g->it < total) {
        long long x = g->it++;
        struct search_config c;
        memset(&c, 0, sizeof c);
        for (int i = sp->ndims - 1; i >= 0; i--) {
            c.lv[i] = lv[i][x % cnt[i]];
            x /= cnt[i];
        }
        struct search_config n = c;
        space_normalise(sp, &n);
        bool dup = false;
        for (int i = 0; i < sp->ndims; i++)
            if (n.lv[i] < 0 && c.lv[i] != lv[i][0]) dup = true;
        if (dup || !space_valid(sp, &n, NULL, 0) || history_find(h, &n) >= 0) continue;
        *out = n;
        return 0;
    }
    return 1;
}

static int grid_propose(void *st, const struct history *h, struct search_config *out, double *ei)
{
    struct grid_state *g = st;
    *ei = NAN;
    if (coarse_next(g, h, out) == 0) return 0;
    while (space_next(g->sp, &g->full_it, out))
        if (history_find(h, out) < 0) return 0;
    return 1;
}

static void grid_destroy(void *st) { free(st); }

const struct strategy_ops strategy_grid = {
    .name = "grid", .help = "coarse grid (ends and middle of each knob), then the full grid, in order",
    .create = grid_create, .propose = grid_propose, .destroy = grid_destroy,
};
