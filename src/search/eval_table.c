/* eval_table — replaying stored repetitions: the oracle of `--oracle DB`
 * and the recorded grids of bench/search-efficiency. A candidate is
 * answered by the rows whose configuration holds each of its knobs at its
 * value; each evaluation draws one of them with replacement. */
#include "search/evaluator.h"
#include "db/store_search.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct table_row {
    char *text;                 /* "\n" + canonical lines, for whole-line matching */
    struct eval_metrics m;
};
struct match_cache {
    char hash[17];
    int *rows, n, cap;
};
struct table {
    struct table_row *row;
    int n, cap;
    struct match_cache *cache;
    int ncache, cache_cap;
    gsl_rng *rng;
};

/* Add a repetition for the configuration given as canonical text (sorted
 * "knob=value\n" lines, the space's or a superset: matching is by the
 * space's knobs). */
void evaluator_table_add(struct evaluator *ev, const char *config_text, const struct eval_metrics *m)
{
    struct table *t = ev->ctx;
    t->row = xgrow(t->row, t->n, &t->cap, sizeof *t->row, 256);
    size_t len = strlen(config_text) + 3;
    char *text = xmalloc(len);
    snprintf(text, len, "\n%s%s", config_text, config_text[0] && config_text[strlen(config_text) - 1] == '\n' ? "" : "\n");
    t->row[t->n].text = text;
    t->row[t->n].m = *m;
    t->n++;
    for (int i = 0; i < t->ncache; i++) free(t->cache[i].rows);
    free(t->cache);
    t->cache = NULL;
    t->ncache = t->cache_cap = 0;
}

static const struct match_cache *matches(struct table *t, const struct space *sp, const struct search_config *c)
{
    char hash[17];
    space_config_hash(sp, c, hash);
    for (int i = 0; i < t->ncache; i++)
        if (strcmp(t->cache[i].hash, hash) == 0) return &t->cache[i];
    char lines[SPACE_MAX_DIMS][KNOB_NAME_MAX + SPACE_VALUE_MAX + 3];
    int nl = 0;
    for (int d = 0; d < sp->ndims; d++)
        if (c->lv[d] >= 0) snprintf(lines[nl++], sizeof lines[0], "\n%s=%s\n", sp->dim[d].knob, sp->dim[d].level[c->lv[d]]);
    t->cache = xgrow(t->cache, t->ncache, &t->cache_cap, sizeof *t->cache, 8);
    struct match_cache *mc = &t->cache[t->ncache++];
    snprintf(mc->hash, sizeof mc->hash, "%s", hash);
    for (int r = 0; r < t->n; r++) {
        bool all = true;
        for (int k = 0; k < nl && all; k++) all = strstr(t->row[r].text, lines[k]) != NULL;
        if (!all) continue;
        mc->rows = xgrow(mc->rows, mc->n, &mc->cap, sizeof *mc->rows, 16);
        mc->rows[mc->n++] = r;
    }
    return mc;
}

static int table_evaluate(void *ctx, const struct space *sp, const struct search_config *c, bool baseline,
                          struct eval_metrics *out, sl_err *e)
{
    struct table *t = ctx;
    const struct match_cache *mc = matches(t, sp, c);
    if (mc->n == 0) {
        char text[1024];
        space_config_text(sp, c, text, sizeof text);
        return sl_fail(e, SL_EFAIL, "the oracle has no run of %s: measure it with 'sluice probe' under those settings, or search a space the oracle covers", text);
    }
    *out = t->row[mc->rows[gsl_rng_uniform_int(t->rng, (unsigned long)mc->n)]].m;
    return 0;
}

static int table_truth(void *ctx, const struct space *sp, const struct search_config *c, struct eval_metrics *out)
{
    struct table *t = ctx;
    const struct match_cache *mc = matches(t, sp, c);
    if (mc->n == 0) return -1;
    memset(out, 0, sizeof *out);
    for (int k = 0; k < MET_NR; k++) {
        int cnt = 0;
        double s = 0;
        for (int i = 0; i < mc->n; i++)
            if (t->row[mc->rows[i]].m.has[k]) { s += t->row[mc->rows[i]].m.v[k]; cnt++; }
        out->has[k] = cnt > 0;
        out->v[k] = cnt ? s / cnt : 0;
    }
    return 0;
}

static void table_destroy(void *ctx)
{
    struct table *t = ctx;
    for (int i = 0; i < t->n; i++) free(t->row[i].text);
    for (int i = 0; i < t->ncache; i++) free(t->cache[i].rows);
    free(t->cache);
    free(t->row);
    gsl_rng_free(t->rng);
    free(t);
}

static const struct evaluator_ops table_ops = {
    .name = "table", .evaluate = table_evaluate, .truth = table_truth, .destroy = table_destroy,
};

/* In-memory repetitions keyed by configuration: each evaluation draws one
 * repetition uniformly (with replacement) from a generator seeded with seed.
 * Rows are added with evaluator_table_add; the truth is the mean. */
void evaluator_table(struct evaluator *ev, uint64_t seed)
{
    struct table *t = xcalloc(1, sizeof *t);
    t->rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(t->rng, (unsigned long)seed);
    ev->ops = &table_ops;
    ev->ctx = t;
}

static int add_run(void *arg, const struct stored_run *r)
{
    struct eval_metrics m;
    objective_metrics_from_run(r, &m);
    evaluator_table_add(arg, r->config_text, &m);
    return 0;
}

int evaluator_oracle(struct evaluator *ev, const char *db_path, const char *workload, uint64_t seed, sl_err *e)
{
    store *st;
    int rc = store_open_existing(db_path, &st, e);
    if (rc == 1) return sl_fail(e, SL_EUSAGE, "oracle %s: no such file", db_path);
    if (rc < 0) return -1;
    evaluator_table(ev, seed);
    int n = store_search_runs(st, workload, add_run, ev, e);
    store_close(st);
    if (n < 0) { evaluator_free(ev); return -1; }
    if (n == 0) {
        evaluator_free(ev);
        return sl_fail(e, SL_EUSAGE, "oracle %s holds no successful run of workload %s: record some with 'sluice probe %s'", db_path, workload, workload);
    }
    return 0;
}
