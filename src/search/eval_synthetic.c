/* eval_synthetic — a known landscape for tests and benchmarks: per knob a
 * smooth bowl over its level position with a random optimum and weight,
 * one interaction between the first two knobs, a random offset per
 * category, times log-normal noise. Throughput peaks at 100 MB/s (0 for
 * the best configuration's log gap); latencies move the other way. */
#include "search/evaluator.h"
#include "search/strategy.h"
#include "probe/probe.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct synth {
    double opt[SPACE_MAX_DIMS], weight[SPACE_MAX_DIMS], cat_off[SPACE_MAX_DIMS][SPACE_MAX_LEVELS];
    double inter;
    double cv;
    double stall_share, stall_lo, stall_hi;
    double reader_exp;   /* reader latency ~ exp(reader_exp * f): < 0 it improves with throughput */
    double detect, false_flag;
    int inflate_until, evals;    /* evaluations so far; the first inflate_until of candidates inflated */
    double inflate;
    bool flat;
    gsl_rng *rng;
};

static double landscape(const struct synth *s, const struct space *sp, const struct search_config *c)
{
    if (s->flat) return 0;
    double f = 0;
    double u[SPACE_MAX_DIMS];
    for (int i = 0; i < sp->ndims; i++) {
        const struct space_dim *dm = &sp->dim[i];
        if (c->lv[i] < 0) { u[i] = 0.5; continue; }
        if (dm->kind == DIM_CATEGORICAL) { f += s->cat_off[i][c->lv[i]]; u[i] = 0.5; continue; }
        u[i] = dm->nlevels > 1 ? (double)c->lv[i] / (dm->nlevels - 1) : 0.5;
        double d = u[i] - s->opt[i];
        f -= s->weight[i] * d * d;
    }
    if (sp->ndims >= 2) f -= s->inter * (u[0] - s->opt[0]) * (u[1] - s->opt[1]) * (u[0] - s->opt[0]) * (u[1] - s->opt[1]);
    return f;
}

static void metrics_of(const struct synth *s, double f, double noise, struct eval_metrics *out)
{
    memset(out, 0, sizeof *out);
    out->v[MET_THROUGHPUT] = 100 * exp(f) * noise;
    out->v[MET_P99] = 20 * exp(-0.5 * f) / noise;
    out->v[MET_CANARY_P99] = 40 * exp(-0.8 * f) / noise;
    out->v[MET_STALLS] = floor(3 * (1 - exp(f)) + 0.5);
    out->v[MET_CPU_PER_MB] = 2 * exp(-0.2 * f) / noise;
    /* the collateral: the reader as the trade says, the rest with the workload */
    double reader = exp(s->reader_exp * f);
    out->v[MET_READER_P50] = 0.3 * reader / noise;
    out->v[MET_READER_P99] = 2 * reader / noise;
    out->v[MET_READER_MAX] = 30 * reader / noise;
    out->v[MET_READER_READ_P99] = 0.5 * reader / noise;
    out->v[MET_WRITE_P99] = 20 * exp(-0.5 * f) / noise;
    out->v[MET_PSI_SOME] = 20 * exp(-0.5 * f) / noise;
    out->v[MET_PSI_FULL] = 10 * exp(-0.5 * f) / noise;
    for (int i = 0; i < MET_NR; i++) out->has[i] = true;
}

static int synth_evaluate(void *ctx, const struct space *sp, const struct search_config *c, bool baseline,
                          struct eval_metrics *out, sl_err *e)
{
    struct synth *s = ctx;
    double sigma = sqrt(log(1 + s->cv * s->cv));
    double noise = s->cv > 0 ? exp(gsl_ran_gaussian(s->rng, sigma) - sigma * sigma / 2) : 1;
    bool stall = s->stall_share > 0 && gsl_rng_uniform(s->rng) < s->stall_share;
    if (stall) noise *= s->stall_lo + (s->stall_hi - s->stall_lo) * gsl_rng_uniform(s->rng);
    double f = landscape(s, sp, c);
    if (!baseline && s->evals < s->inflate_until) f += log(s->inflate);
    s->evals++;
    metrics_of(s, f, noise, out);
    if (s->detect > 0 || s->false_flag > 0) {
        double u = gsl_rng_uniform(s->rng);
        bool seen = stall ? u < s->detect : u < s->false_flag;
        out->stall_ms = seen ? 100 + 400 * gsl_rng_uniform(s->rng) : 0;
        eval_metrics_set_stall(out, seen ? PROBE_STALL_CANARY : 0);
    }
    return 0;
}

static int synth_truth(void *ctx, const struct space *sp, const struct search_config *c, struct eval_metrics *out)
{
    metrics_of(ctx, landscape(ctx, sp, c), 1, out);
    return 0;
}

static void synth_destroy(void *ctx)
{
    struct synth *s = ctx;
    gsl_rng_free(s->rng);
    free(s);
}

static const struct evaluator_ops synthetic_ops = {
    .name = "synthetic", .evaluate = synth_evaluate, .truth = synth_truth, .destroy = synth_destroy,
};

void evaluator_synthetic(struct evaluator *ev, uint64_t shape_seed, uint64_t noise_seed, double cv, bool flat)
{
    struct synth *s = xcalloc(1, sizeof *s);
    uint64_t r = shape_seed * 0x9e3779b97f4a7c15ULL + 17;
    for (int i = 0; i < SPACE_MAX_DIMS; i++) {
        s->opt[i] = strategy_uniform(&r);
        /* a few knobs matter a lot, some a little, the rest hardly (Carver:
         * few matter); about 1-3% of a 4-knob grid ends within 5% of the best */
        s->weight[i] = i % 3 == 0 ? 1.5 + 1.5 * strategy_uniform(&r)
                     : i % 3 == 1 ? 0.4 + 0.4 * strategy_uniform(&r) : 0.05 * strategy_uniform(&r);
        for (int j = 0; j < SPACE_MAX_LEVELS; j++) s->cat_off[i][j] = -0.4 * strategy_uniform(&r);
    }
    s->inter = 0.5 * strategy_uniform(&r);
    s->cv = cv;
    s->reader_exp = -0.5;
    s->flat = flat;
    s->rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(s->rng, (unsigned long)noise_seed);
    ev->ops = &synthetic_ops;
    ev->ctx = s;
}

void evaluator_synthetic_stalls(struct evaluator *ev, double share, double lo, double hi)
{
    struct synth *s = ev->ctx;
    s->stall_share = share;
    s->stall_lo = lo;
    s->stall_hi = hi;
}

void evaluator_synthetic_trade(struct evaluator *ev, double reader_exp)
{
    ((struct synth *)ev->ctx)->reader_exp = reader_exp;
}

void evaluator_synthetic_canary(struct evaluator *ev, double detect, double false_flag)
{
    struct synth *s = ev->ctx;
    s->detect = detect;
    s->false_flag = false_flag;
}

void evaluator_synthetic_inflate(struct evaluator *ev, int until, double factor)
{
    struct synth *s = ev->ctx;
    s->inflate_until = until;
    s->inflate = factor;
}

void evaluator_free(struct evaluator *ev)
{
    if (ev->ops && ev->ops->destroy) ev->ops->destroy(ev->ctx);
    ev->ops = NULL;
    ev->ctx = NULL;
}
