/* form_cost — the cost lines of the Probe and Search forms: what the work
 * will write, take and occupy, and a search's plan with the smallest change
 * it can detect, said before s (src/probe/cost.h, src/search/cost.h). A
 * budget that cannot reach a verdict is said as the reason s refuses. */
#ifndef SLUICE_UI_FORM_COST_H
#define SLUICE_UI_FORM_COST_H

#include <stdbool.h>
#include <stddef.h>
#include "probe/probe.h"
#include "search/run.h"

/* The Probe form's line for a resolved spec; true when it cannot run as
 * given (more than the free space): then text is the reason. */
bool form_cost_probe(const struct probe_spec *resolved, char *text, size_t n);
/* The Search form's plan and bytes for checked options; true when the
 * budget cannot reach a verdict: then text is the reason s refuses. */
bool form_cost_search(const struct search_flow_opts *o, char *text, size_t n);

#endif
