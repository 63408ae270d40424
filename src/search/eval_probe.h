/* eval_probe — the evaluator that measures with the probe engine inside a
 * tuning session (see evaluator.h). */
#ifndef SLUICE_EVAL_PROBE_H
#define SLUICE_EVAL_PROBE_H

#include "session/knobset.h"
#include "probe/probe.h"
#include "search/evaluator.h"
#include "session/session.h"
#include "db/store.h"

/* The workload of a whole search, fixed before its first evaluation: every
 * configuration, the baseline's included, runs the same work. */
struct search_workload {
    char text[1024], hash[65];   /* probe_workload_text of the fixed spec */
    char note[1536];             /* what was sized and why ("" when nothing was), with the burst's
                                  * regime and the limits it cannot tell apart */
    bool capped;                 /* the volume is capped by free space: the
                                  * largest dirty limits are not reached */
    char regime[1024];           /* probe_regime_text (back to back or after a quiet spell), and the burst's regime */
};

/* Fix spec for a search of sp: a buffered writer's volume sized from the
 * largest dirty limit any configuration of sp can set (vm.dirty_ratio's
 * top level through probe_dirty_limit_at, vm.dirty_bytes' directly, the
 * limit in force when larger), capped by free space; then every other
 * default resolved. spec is then complete: probe_open changes nothing in
 * it. -1 with a message when the spec is invalid. */
int search_workload_fix(struct probe_spec *spec, const struct space *sp, struct search_workload *w, sl_err *e);
/* Its text on one line ("bs=1048576 direct=0 ..."). */
void search_workload_line(const struct search_workload *w, char *buf, size_t n);
/* As JSON: {"hash", "text", "sizing", "threshold_capped", "regime"} (caller decrefs). */
json_t *search_workload_json(const struct search_workload *w);

/* Each evaluation applies the configuration in session s (which must have
 * snapshotted space_touched()), runs one repetition of spec (seeded from
 * seed and the evaluation count) and stores it in st (NULL: not stored).
 * spec should be fixed (search_workload_fix): a run whose workload differs
 * from the first evaluation's fails the evaluation, naming both. -1 with a
 * message when the spec is invalid. */
int evaluator_probe(struct evaluator *ev, const struct probe_spec *spec, struct session *s, store *st, uint64_t seed,
                    sl_err *e);

#endif
