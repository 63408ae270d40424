/* objective — what a search maximises: metrics (one table), weighted sums
 * of them and constraints, e.g. "throughput", "p99",
 * "0.7*throughput+0.3*canary_p99", "throughput,canary_p99<=50ms".
 * Scores are in log units (a weighted sum of +-log metric), so weights are
 * unitless trade-offs and exp(score difference) - 1 is a relative
 * improvement; a violated constraint subtracts a steep penalty. */
#ifndef SLUICE_OBJECTIVE_H
#define SLUICE_OBJECTIVE_H

#include <stdbool.h>
#include <stddef.h>
#include "err.h"

enum metric_id { MET_THROUGHPUT, MET_P99, MET_CANARY_P99, MET_STALLS, MET_CPU_PER_MB, MET_NR };

struct metric_def {
    const char *name;
    const char *unit;     /* as printed and as constraint values default to */
    int dir;              /* +1 more is better, -1 less is better */
    double offset;        /* added before the log (counts may be 0) */
    const char *help;
};
extern const struct metric_def metric_table[MET_NR];

/* One evaluation's measurements (what a probe run gives). */
struct eval_metrics {
    double v[MET_NR];
    bool has[MET_NR];
    char run_uuid[37];    /* the stored run behind it, "" when none */
};

#define OBJ_MAX_TERMS 4
struct objective {
    int nterms;
    struct { int metric; double w; } term[OBJ_MAX_TERMS];
    int ncons;
    struct { int metric; bool le; double limit; } cons[OBJ_MAX_TERMS];
    char text[160];
};

/* The metrics of a stored probe run (db/store_search.h). */
struct stored_run;
void objective_metrics_from_run(const struct stored_run *r, struct eval_metrics *m);

/* Parse an objective; -1 with a message listing the metrics. */
int objective_parse(const char *text, struct objective *o, sl_err *e);
/* Score of one evaluation (higher is better); NAN when a needed metric is
 * missing. Penalised when a constraint is violated. */
double objective_score(const struct objective *o, const struct eval_metrics *m);
/* Constraints met by these (mean) metrics. why gets the first violation. */
bool objective_feasible(const struct objective *o, const struct eval_metrics *m, char *why, size_t n);
/* "MB/s" when the objective is one metric, else "score". */
bool objective_single(const struct objective *o, int *metric);

#endif
