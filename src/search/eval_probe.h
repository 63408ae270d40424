/* eval_probe — the evaluator that measures with the probe engine inside a
 * tuning session (see evaluator.h). */
#ifndef SLUICE_EVAL_PROBE_H
#define SLUICE_EVAL_PROBE_H

#include "knobset.h"
#include "probe/probe.h"
#include "search/evaluator.h"
#include "session.h"
#include "store.h"

/* Each evaluation applies the configuration in session s (which must have
 * snapshotted space_touched()), runs one repetition of spec (seeded from
 * seed and the evaluation count) and stores it in st (NULL: not stored).
 * -1 with a message when the spec is invalid. */
int evaluator_probe(struct evaluator *ev, const struct probe_spec *spec, struct session *s, store *st, uint64_t seed,
                    sl_err *e);

#endif
