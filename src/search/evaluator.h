/* evaluator — how a search measures one configuration, as plug-ins:
 * synthetic (a known landscape with calibrated noise: tests, benchmarks),
 * table/oracle (replays stored repetitions of the same configuration:
 * deterministic tests and benchmarks, `--oracle DB`), and probe (applies
 * the configuration in the search's session and runs the probe engine). */
#ifndef SLUICE_EVALUATOR_H
#define SLUICE_EVALUATOR_H

#include <stdbool.h>
#include <stdint.h>
#include "search/objective.h"
#include "search/space.h"

struct evaluator_ops {
    const char *name;
    /* Measure c once (baseline: c is the configuration at the start, which
     * the probe evaluator restores exactly from the session snapshot). -1
     * with a message when the measurement could not be made. */
    int (*evaluate)(void *ctx, const struct space *sp, const struct search_config *c, bool baseline,
                    struct eval_metrics *out, sl_err *e);
    /* Noise-free metrics of c, when the evaluator knows them (benchmarks
     * score recommendations by it). NULL or -1: unknown. */
    int (*truth)(void *ctx, const struct space *sp, const struct search_config *c, struct eval_metrics *out);
    void (*destroy)(void *ctx);
};

struct evaluator {
    const struct evaluator_ops *ops;
    void *ctx;
};

/* A smooth landscape over the space drawn from `shape_seed`, with
 * multiplicative log-normal noise of coefficient of variation `cv` drawn
 * from `noise_seed`. flat: every configuration is equally good (only noise:
 * any claimed win is false). */
void evaluator_synthetic(struct evaluator *ev, uint64_t shape_seed, uint64_t noise_seed, double cv, bool flat);

/* Heavy tails for a synthetic evaluator: a share of runs (e.g. 0.1)
 * stalls, its throughput multiplied by a uniform factor in [lo, hi] (e.g.
 * 0.2-0.6: a stall to 20-60% of the true level), as host reclaim or a
 * balloon does to a real disk's runs. The truth stays stall-free. */
void evaluator_synthetic_stalls(struct evaluator *ev, double share, double lo, double hi);
/* What the stall canary sees of those stalls: a stalled run is flagged
 * (eval_metrics.stalled) with probability `detect`; a run that did not
 * stall is flagged with probability `false_flag` (a stall that did not
 * lower the run). Without this call nothing is flagged. */
void evaluator_synthetic_canary(struct evaluator *ev, double detect, double false_flag);

/* What the synthetic landscape does to the reader beside the workload
 * (reader_p50/p99/max): its latency goes as exp(reader_exp * f), where f
 * <= 0 is the configuration's log throughput gap to the best. The default
 * -0.5 makes readers faster where throughput is higher; a positive value
 * makes the throughput winner the readers' worst (a trade to report). */
void evaluator_synthetic_trade(struct evaluator *ev, double reader_exp);

/* Exploring that measures more than is there: the first `until`
 * evaluations of every configuration but the baseline come out `factor`
 * times better (a warm cache, rewritten pages, a lucky streak that got a
 * leader picked and a race stopped), later ones as the landscape says.
 * The truth is the landscape's. */
void evaluator_synthetic_inflate(struct evaluator *ev, int until, double factor);

/* In-memory repetitions keyed by configuration: each evaluation draws one
 * repetition uniformly (with replacement) from a generator seeded with seed.
 * Rows are added with evaluator_table_add; the truth is the mean. */
void evaluator_table(struct evaluator *ev, uint64_t seed);
/* Add a repetition for the configuration given as canonical text (sorted
 * "knob=value\n" lines, the space's or a superset: matching is by the
 * space's knobs). */
void evaluator_table_add(struct evaluator *ev, const char *config_text, const struct eval_metrics *m);

/* The oracle: a table loaded from the runs of `workload` stored in the
 * database at db_path (runs whose recorded configuration holds each knob of
 * a candidate at its value answer for it). -1 with a message when the file
 * is not a sluice database or holds no runs of the workload. */
int evaluator_oracle(struct evaluator *ev, const char *db_path, const char *workload, uint64_t seed, sl_err *e);

void evaluator_free(struct evaluator *ev);

#endif
