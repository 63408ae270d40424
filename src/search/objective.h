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
#include "core/err.h"

/* The first five are what a search optimises; the rest are the collateral
 * a verdict reports as side effects (any of them can be an objective too). */
enum metric_id {
    MET_THROUGHPUT, MET_P99, MET_CANARY_P99, MET_STALLS, MET_CPU_PER_MB,
    MET_READER_P50, MET_READER_P99, MET_READER_MAX, MET_READER_READ_P99, MET_WRITE_P99, MET_PSI_SOME, MET_PSI_FULL, MET_NR
};

struct metric_def {
    const char *name;
    const char *unit;     /* as printed and as constraint values default to */
    int dir;              /* +1 more is better, -1 less is better */
    double offset;        /* added before the log (counts may be 0) */
    const char *help;
    const char *label;    /* for people: a report's column or axis ("Reader p99 latency") */
};
extern const struct metric_def metric_table[MET_NR];

/* One evaluation's measurements (what a probe run gives). */
struct eval_metrics {
    double v[MET_NR];
    bool has[MET_NR];
    char run_uuid[37];    /* the stored run behind it, "" when none */
    /* stall_by: which signals flagged the run (PROBE_STALL_* bits: the
     * canary overslept by stall_ms >= 100, PSI saw io full for at least
     * PROBE_PSI_FULL_STALL_PCT % of it). stalled: the run is left out of
     * decisions, set only by eval_metrics_set_stall (the canary's flag
     * alone: PSI counts the workload's own waits). */
    bool stalled;
    double stall_ms;
    unsigned stall_by;
    /* whether the run's dirty data reached the throttling zone
     * (probe_threshold_reached); known only for a run a probe measured in
     * this process (not stored with the trial: a resumed search counts the
     * runs it measured after the resume) */
    bool zone_known, zone_reached;
};
/* The stall signals of a run (PROBE_STALL_* bits) into m->stall_by, and
 * the rule that leaves it out of decisions into m->stalled: the canary's
 * oversleep only (bench/transfer: 31 of 144 runs reached PSI's threshold
 * by their own waits, most under the leaders). */
void eval_metrics_set_stall(struct eval_metrics *m, unsigned stall_by);
/* Whether an oversleep of the canary of this many ms is an external stall. */
bool eval_stall_rule(double sleep_max_ms);
/* Whether PSI's io full share of a run (%) is an external stall. */
bool eval_psi_stall_rule(double full_pct);

#define OBJ_MAX_TERMS 4
struct objective {
    int nterms;
    struct { int metric; double w; } term[OBJ_MAX_TERMS];
    int ncons;
    /* vs_base: "METRIC<=baseline", a guard: not worse than the baseline
     * beyond noise, judged on the leaders' runs after the race (a single
     * run cannot tell), so scores and objective_feasible ignore it */
    struct { int metric; bool le; double limit; bool vs_base; } cons[OBJ_MAX_TERMS];
    char text[160];
};

/* The metrics of a stored probe run (db/store_search.h). */
struct stored_run;
void objective_metrics_from_run(const struct stored_run *r, struct eval_metrics *m);

/* Parse an objective; -1 with a message listing the metrics. */
int objective_parse(const char *text, struct objective *o, sl_err *e);
/* Whether m has every metric the objective's terms need (a score of NaN
 * with them present is a failed run's NaN metric, not a wrong workload). */
bool objective_measured(const struct objective *o, const struct eval_metrics *m);
/* Score of one evaluation (higher is better); NAN when a needed metric is
 * missing. Penalised when a constraint is violated. */
double objective_score(const struct objective *o, const struct eval_metrics *m);
/* Constraints met by these (mean) metrics. why gets the first violation. */
bool objective_feasible(const struct objective *o, const struct eval_metrics *m, char *why, size_t n);
/* The objective as text without its guards ("throughput" for
 * "throughput,reader_p99<=baseline"). */
void objective_goal_text(const struct objective *o, char *buf, size_t n);
/* "MB/s" when the objective is one metric, else "score". */
bool objective_single(const struct objective *o, int *metric);

#endif
