/* search_fixture — what the search tests share: the writeback space over a
 * copy of the modern fixture, a spec, and a search over the synthetic
 * landscape that must run (a failed CHECK otherwise). */
#ifndef SLUICE_SEARCH_FIXTURE_H
#define SLUICE_SEARCH_FIXTURE_H

#include "search/search.h"

#include <stdbool.h>
#include <stdint.h>

extern struct space wb;   /* the writeback space: fx_setup builds it */

/* A fresh copy of the modern fixture as the root, and wb over it. */
void fx_setup(void);
/* Defaults, space writeback, workload synthetic, objective throughput. */
void fx_spec(struct search_spec *s, const char *strategy, int budget, uint64_t seed);
/* fx_spec and evaluator_synthetic(ev, shape_seed, noise_seed, cv, flat):
 * the test adds stalls, a canary or spec changes, then fx_run. */
void fx_synthetic(struct search_spec *s, struct evaluator *ev, const char *strategy, int budget, uint64_t seed,
                  uint64_t shape_seed, uint64_t noise_seed, double cv, bool flat);
/* search_run over wb, which must succeed; hk may be NULL. */
void fx_run(struct search_spec *s, struct evaluator *ev, const struct search_hooks *hk, struct search_result *r);
/* Frees r and ev. */
void fx_done(struct search_result *r, struct evaluator *ev);

#endif
