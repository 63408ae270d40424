/* strategy — the table of strategies, the history, shared helpers. */
#include "search/strategy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct strategy_ops *const strategies[] = {
    &strategy_grid, &strategy_random, &strategy_coord, &strategy_bo, &strategy_none,
};
#define NSTRATEGIES ((int)(sizeof strategies / sizeof strategies[0]))

int strategy_count(void) { return NSTRATEGIES; }
const struct strategy_ops *strategy_at(int i) { return strategies[i]; }

const struct strategy_ops *strategy_find(const char *name)
{
    for (int i = 0; i < NSTRATEGIES; i++)
        if (strcmp(strategies[i]->name, name) == 0) return strategies[i];
    return NULL;
}

void strategy_names(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < NSTRATEGIES && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", strategies[i]->name);
}

void history_init(struct history *h, const struct space *sp)
{
    memset(h, 0, sizeof *h);
    h->sp = sp;
}

void history_free(struct history *h)
{
    free(h->pt);
    h->pt = NULL;
    h->n = h->cap = h->nobs = 0;
}

int history_find(const struct history *h, const struct search_config *c)
{
    for (int i = 0; i < h->n; i++)
        if (space_config_equal(h->sp, &h->pt[i].cfg, c)) return i;
    return -1;
}

static int observe(struct history *h, const struct search_config *c, double score, bool baseline, bool stalled)
{
    int i = history_find(h, c);
    if (i < 0) {
        h->pt = xgrow(h->pt, h->n, &h->cap, sizeof *h->pt, 32);
        i = h->n++;
        h->pt[i].cfg = *c;
    }
    struct hist_point *p = &h->pt[i];
    p->baseline = p->baseline || baseline;
    h->nobs++;
    if (p->m == 0) p->stalled_only = stalled;
    if (stalled && !p->stalled_only) return i;           /* unflagged runs speak for it */
    if (!stalled && p->stalled_only) {                    /* the first unflagged run replaces flagged ones */
        p->m = 0;
        p->sum = p->sumsq = 0;
        p->stalled_only = false;
    }
    p->m++;
    p->sum += score;
    p->sumsq += score * score;
    return i;
}

int history_add(struct history *h, const struct search_config *c, double score, bool baseline)
{
    return observe(h, c, score, baseline, false);
}

int history_add_stalled(struct history *h, const struct search_config *c, double score, bool baseline)
{
    return observe(h, c, score, baseline, true);
}

double history_mean(const struct history *h, int i)
{
    return h->pt[i].m ? h->pt[i].sum / h->pt[i].m : NAN;
}

int history_best(const struct history *h)
{
    int best = -1;
    for (int i = 0; i < h->n; i++)
        if (best < 0 || history_mean(h, i) > history_mean(h, best)) best = i;
    return best;
}

/* splitmix64: a tiny deterministic generator for strategies. */
static uint64_t strategy_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double strategy_uniform(uint64_t *state)
{
    return (double)(strategy_rand(state) >> 11) / 9007199254740992.0;
}

void strategy_from_unit(const struct space *sp, const double *u, struct search_config *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < sp->ndims; i++) {
        int lv = (int)(u[i] * sp->dim[i].nlevels);
        if (lv >= sp->dim[i].nlevels) lv = sp->dim[i].nlevels - 1;
        if (lv < 0) lv = 0;
        c->lv[i] = lv;
    }
    /* conditional dims keep their coordinate when active, else -1 */
    struct search_config keep = *c;
    space_normalise(sp, c);
    for (int i = 0; i < sp->ndims; i++)
        if (c->lv[i] >= 0) c->lv[i] = keep.lv[i];
}

int strategy_random_unseen(const struct space *sp, const struct history *h, uint64_t *rng, int tries,
                           struct search_config *c)
{
    double u[SPACE_MAX_DIMS];
    for (int t = 0; t < tries; t++) {
        for (int i = 0; i < sp->ndims; i++) u[i] = strategy_uniform(rng);
        strategy_from_unit(sp, u, c);
        if (space_valid(sp, c, NULL, 0) && history_find(h, c) < 0) return 0;
    }
    return 1;
}

/* --- none: measures nothing but the baseline (tests, `tune` dry runs) --- */

static void *none_create(const struct space *sp, uint64_t seed) { return xcalloc(1, 1); }
static int none_propose(void *st, const struct history *h, struct search_config *out, double *ei) { *ei = NAN; return 1; }
static void none_destroy(void *st) { free(st); }

const struct strategy_ops strategy_none = {
    .name = "none", .help = "no search: measure the baseline only",
    .create = none_create, .propose = none_propose, .destroy = none_destroy,
};
