/* report — renderings of a search result (one model, several outputs):
 * the human report and JSON, shared by `search`, `tune` and the UI. */
#ifndef SLUICE_SEARCH_REPORT_H
#define SLUICE_SEARCH_REPORT_H

#include <jansson.h>
#include <stdio.h>
#include "search/search.h"
#include "search/verdict.h"

/* "vm.dirty_ratio=30 block.sda.scheduler=none": the knobs c changes from
 * the baseline ("(baseline)" when none). */
void report_config_diff(const struct space *sp, const struct search_config *c, char *buf, size_t n);
/* The value of the objective's metric to show (single-metric objectives)
 * with its unit, or the score. */
void report_metric(const struct objective *o, const struct eval_metrics *m, double score, char *buf, size_t n);
/* "+12.3%" */
void report_pct(double v, char *buf, size_t n);
/* The plan made once the run's time is known, a line at a time, as
 * `sluice search` prints it after "plan: " and the Search screen shows it
 * under "Plan": the evaluations, what one takes, the confirmation, the
 * total and the smallest change it detects; why a default budget grew; a
 * run too slow for a quick tune. */
void report_plan_lines(const struct search_plan *p, void (*line)(void *arg, const char *text), void *arg);

/* The search as `sluice search` prints it: counts, the leaders table, the
 * confirmation, the Pareto front, then the verdict (verdict.h), built
 * with regime and workload_text (both may be NULL). */
void report_print(FILE *out, const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                  const char *regime, const char *workload_text);
json_t *report_json(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                    const char *regime, const char *workload_text);
/* "trades reader_p99 +74.0% [95% CI ...] ... for throughput: ...": what a
 * recommended winner makes worse beyond noise that the objective does not
 * protect; "" when nothing. */
void report_trades(const struct search_spec *spec, const struct search_result *r, char *buf, size_t n);
/* The side-effects table (METRIC <base_column> <column> CHANGE <level> CI VERDICT)
 * of `of` ("the winner", "B"); nothing without rows. */
void report_effects_table(FILE *out, const struct side_effects *fx, const char *of, const char *base_column,
                          const char *column);
/* The same table as lines (kind VL_TABLE), the first one empty. */
void report_effects_lines(const struct side_effects *fx, const char *of, const char *base_column, const char *column,
                          verdict_emit_fn emit, void *arg);
/* Its rows as JSON: [{metric, unit, baseline, candidate, decision}]. */
json_t *report_effects_rows(const struct side_effects *fx);
/* One sentence: the verdict (win with numbers, within noise, or a win the
 * objective's guard refused, with what it would cost). */
void report_verdict_line(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                         char *buf, size_t n);

#endif
