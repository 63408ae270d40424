/* strategy — search strategies as plug-ins (the fio ioengine model): each
 * file fills a struct strategy_ops; strategy.c holds the one table of them.
 * A strategy sees the history of evaluated configurations (scores: higher is
 * better, in log units) and proposes the next one; it never evaluates. */
#ifndef SLUICE_STRATEGY_H
#define SLUICE_STRATEGY_H

#include <stdbool.h>
#include <stdint.h>
#include "search/space.h"

/* Every distinct configuration evaluated so far with its observations. */
struct hist_point {
    struct search_config cfg;
    int m;              /* observations */
    double sum, sumsq;  /* of scores */
    bool baseline;
    bool stalled_only;  /* every observation so far was flagged by the stall canary */
};
struct history {
    const struct space *sp;
    struct hist_point *pt;
    int n, cap;
    int nobs;           /* evaluations in total */
};

void history_init(struct history *h, const struct space *sp);
void history_free(struct history *h);
/* Record one observation; returns the point's index. */
int history_add(struct history *h, const struct search_config *c, double score, bool baseline);
/* The same for a run the stall canary flagged (the stall rule): it counts
 * only while the point has nothing else, and the first unflagged run
 * replaces it, so a strategy's means are those of unflagged runs. */
int history_add_stalled(struct history *h, const struct search_config *c, double score, bool baseline);
int history_find(const struct history *h, const struct search_config *c);
double history_mean(const struct history *h, int i);
/* Index of the best mean (ties: fewer observations last); -1 when empty. */
int history_best(const struct history *h);

struct strategy_ops {
    const char *name;
    const char *help;
    void *(*create)(const struct space *sp, uint64_t seed);
    /* The next configuration (valid in the space). 0 with *out filled, 1 when
     * the strategy has nothing left to propose. *ei is the expected
     * improvement of the proposal in score units, NAN without a model. */
    int (*propose)(void *st, const struct history *h, struct search_config *out, double *ei);
    /* The point the strategy believes best (index into h->pt); NULL means
     * the best mean. */
    int (*recommend)(void *st, const struct history *h);
    void (*destroy)(void *st);
};

int strategy_count(void);
const struct strategy_ops *strategy_at(int i);
const struct strategy_ops *strategy_find(const char *name);
/* "grid, random, coord, bo" for messages. */
void strategy_names(char *buf, size_t n);

/* Helpers shared by strategies. */
/* Map a point of the unit cube (one coordinate per dim) to a configuration. */
void strategy_from_unit(const struct space *sp, const double *u, struct search_config *c);
/* A uniformly random valid configuration not yet in h (tries `tries` times);
 * 0, or 1 when none was found. */
int strategy_random_unseen(const struct space *sp, const struct history *h, uint64_t *rng_state, int tries,
                           struct search_config *c);
double strategy_uniform(uint64_t *state);

extern const struct strategy_ops strategy_none, strategy_grid, strategy_random, strategy_coord, strategy_bo;

#endif
