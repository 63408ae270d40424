/* strategy_bo — Gaussian-process Bayesian optimisation: a Sobol initial
 * design, then a GP (gp.c: Matérn 5/2 on ordinal knobs, categorical kernel
 * for the scheduler, hyperparameters by marginal likelihood) refitted every
 * step; the next point maximises expected improvement over the best
 * posterior mean among observed points (a plug-in incumbent, robust to a
 * lucky noisy measurement). The incumbent is re-measured where it counts:
 * it is bo's recommendation, so it leads the final race and is measured
 * afresh there (search.c). Re-measuring it during exploration as well
 * (Metis' rule: an incumbent seen once is measured again first) spent an
 * evaluation on each new incumbent and only delayed finding better points;
 * the GP already weighs a single noisy measurement by its noise. */
#include "search/gp.h"
#include "search/strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BO_ENUM_MAX 20000
#define BO_RANDOM_CANDIDATES 3000
#define BO_XI 0.01   /* EI margin in score (log) units: 1% */

struct bo_state {
    const struct space *sp;
    void *init;                  /* the random strategy for the initial design */
    struct search_config *cand;  /* the whole space when it is small */
    int ncand, cand_cap;
    uint64_t rng;
    int n_init;
    struct gp_hyper last;        /* the last fitted hyperparameters */
    int have_last, nfits;
};

static void *bo_create(const struct space *sp, uint64_t seed)
{
    struct bo_state *b = xcalloc(1, sizeof *b);
    b->sp = sp;
    b->init = strategy_random.create(sp, seed);
    b->rng = seed ^ 0xb0b0ULL;
    int d = sp->ndims;
    b->n_init = d / 2 + 2 < 4 ? 4 : d / 2 + 2 > 8 ? 8 : d / 2 + 2;
    if (space_count(sp, BO_ENUM_MAX * 4) >= 0) {
        struct space_iter it = { 0 };
        struct search_config c;
        while (b->ncand < BO_ENUM_MAX && space_next(sp, &it, &c)) {
            b->cand = xgrow(b->cand, b->ncand, &b->cand_cap, sizeof *b->cand, 256);
            b->cand[b->ncand++] = c;
        }
    }
    return b;
}

/* Fit a GP to the history's means. 0, or -1 when there is too little data
 * or no fit. With b, hyperparameters are re-optimised only every 4th fit
 * once there are 16 points (the likelihood surface moves little by then;
 * it keeps long searches and benchmarks fast). */
static int fit(struct bo_state *b, const struct space *sp, const struct history *h, struct gp *g)
{
    int n = h->n, d = space_numeric_dims(sp), c = sp->ndims - d;
    if (n < 2) return -1;
    double *x = xmalloc(sizeof *x * (size_t)(n * d + 1)), *y = xmalloc(sizeof *y * (size_t)n);
    double *m = xmalloc(sizeof *m * (size_t)n);
    int *cat = xmalloc(sizeof *cat * (size_t)(n * c + 1));
    for (int i = 0; i < n; i++) {
        space_encode(sp, &h->pt[i].cfg, x + i * d, cat + i * c);
        y[i] = history_mean(h, i);
        m[i] = h->pt[i].m;
    }
    gp_init(g, n, d, c, x, cat, y, m, 1);
    free(x);
    free(y);
    free(m);
    free(cat);
    bool reuse = b && b->have_last && n >= 16 && b->nfits % 4 != 0 && gp_fit(g, &b->last, NULL) == 0;
    if (b) b->nfits++;
    if (!reuse && gp_optimise(g) < 0) { gp_free(g); return -1; }
    if (b) { b->last = g->h; b->have_last = 1; }
    return 0;
}

static double predict_cfg(const struct space *sp, const struct gp *g, const struct search_config *c, double *sd)
{
    double u[SPACE_MAX_DIMS], mu, var;
    int cat[SPACE_MAX_DIMS];
    space_encode(sp, c, u, cat);
    gp_predict(g, u, cat, &mu, &var);
    *sd = sqrt(var);
    return mu;
}

static int incumbent(const struct space *sp, const struct history *h, const struct gp *g, double *best_mu)
{
    int best = -1;
    for (int i = 0; i < h->n; i++) {
        double sd, mu = predict_cfg(sp, g, &h->pt[i].cfg, &sd);
        if (best < 0 || mu > *best_mu) { best = i; *best_mu = mu; }
    }
    return best;
}

/* Random candidates plus the one-knob neighbours of the best points. */
static int gather(struct bo_state *b, const struct history *h, struct search_config **out)
{
    const struct space *sp = b->sp;
    if (b->cand) { *out = b->cand; return b->ncand; }
    int cap = BO_RANDOM_CANDIDATES + 64 * SPACE_MAX_DIMS * 2, n = 0;
    struct search_config *v = xmalloc(sizeof *v * (size_t)cap);
    for (int t = 0; t < BO_RANDOM_CANDIDATES; t++)
        if (strategy_random_unseen(sp, h, &b->rng, 20, &v[n]) == 0) n++;
    int best = history_best(h);
    for (int d = 0; best >= 0 && d < sp->ndims && n < cap - 2 * SPACE_MAX_LEVELS; d++)
        for (int lv = 0; lv < sp->dim[d].nlevels; lv++) {
            struct search_config c = h->pt[best].cfg;
            if (c.lv[d] < 0 && !(sp->dim[d].kind == DIM_CATEGORICAL)) continue;
            c.lv[d] = lv;
            space_normalise(sp, &c);
            if (space_valid(sp, &c, NULL, 0)) v[n++] = c;
        }
    *out = v;
    return n;
}

static int bo_propose(void *st, const struct history *h, struct search_config *out, double *ei)
{
    struct bo_state *b = st;
    const struct space *sp = b->sp;
    *ei = NAN;
    if (h->n < b->n_init) return strategy_random.propose(b->init, h, out, ei);
    struct gp g;
    if (fit(b, sp, h, &g) < 0) return strategy_random.propose(b->init, h, out, ei);
    double best_mu = -INFINITY;
    incumbent(sp, h, &g, &best_mu);
    struct search_config *cand;
    int n = gather(b, h, &cand), arg = -1;
    double best_ei = -1;
    for (int i = 0; i < n; i++) {
        if (history_find(h, &cand[i]) >= 0) continue;
        double sd, mu = predict_cfg(sp, &g, &cand[i], &sd);
        double v = gp_ei(mu, sd, best_mu, BO_XI);
        if (v > best_ei) { best_ei = v; arg = i; }
    }
    if (arg >= 0) *out = cand[arg];
    if (cand != b->cand) free(cand);
    gp_free(&g);
    if (arg < 0) return 1;
    *ei = best_ei;
    return 0;
}

static int bo_recommend(void *st, const struct history *h)
{
    struct bo_state *b = st;
    struct gp g;
    if (h->n < 3 || fit(NULL, b->sp, h, &g) < 0) return history_best(h);
    double best_mu = -INFINITY;
    int inc = incumbent(b->sp, h, &g, &best_mu);
    gp_free(&g);
    return inc;
}

static void bo_destroy(void *st)
{
    struct bo_state *b = st;
    strategy_random.destroy(b->init);
    free(b->cand);
    free(b);
}

const struct strategy_ops strategy_bo = {
    .name = "bo", .help = "Bayesian optimisation: GP (Matern 5/2 x categorical) with expected improvement",
    .create = bo_create, .propose = bo_propose, .recommend = bo_recommend, .destroy = bo_destroy,
};
