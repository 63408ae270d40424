/* evidence — stored probe runs as samples for `recommend` and `compare`:
 * loaded once, filtered by workload, configuration (every knob=value of a
 * selector present in the run's recorded configuration), kernel or host,
 * and judged with the same statistics as a search's verdict. */
#ifndef SLUICE_EVIDENCE_H
#define SLUICE_EVIDENCE_H

#include <stdbool.h>
#include "search/search.h"
#include "store.h"

struct run_sample {
    char *config_text;        /* "knob=value\n" sorted */
    char kernel[128], host_uuid[37], hw_class[256], workload[32];
    char config_hash[65];
    struct eval_metrics m;
};

struct evidence {
    struct run_sample *run;
    int n, cap;
};

/* Successful runs (optionally of one workload). -1 with e. */
int evidence_load(store *st, const char *workload, struct evidence *ev, sl_err *e);
void evidence_free(struct evidence *ev);
/* Keep only the runs of one workload (in order). */
void evidence_keep_workload(struct evidence *ev, const char *workload);
/* The workload with the most runs ("" when there are none). */
void evidence_top_workload(const struct evidence *ev, char *buf, size_t n);
/* Whether a configuration text holds every "knob=value" of sel (separated
 * by spaces or commas). */
bool evidence_config_has(const char *config_text, const char *sel);
/* Knobs whose catalogue default differs from the value in config_text
 * (searchable knobs with a known default only). */
int evidence_changes_from_defaults(const char *config_text);
/* "knob=value ..." lines of b that differ from a (knobs in both). */
void evidence_config_diff(const char *a, const char *b, char *buf, size_t n);

/* Per-metric means. */
void evidence_mean(const struct eval_metrics *v, int n, struct eval_metrics *out);

/* Compare two samples of objective scores: p-values, interval, effect
 * size, verdict (B against A: positive is B better). */
struct comparison {
    int na, nb;
    struct eval_metrics mean_a, mean_b;
    struct leader l;          /* the verdict of B against A */
};
void evidence_compare(const struct objective *o, const struct eval_metrics *a, int na, const struct eval_metrics *b,
                      int nb, double alpha, enum search_test test, struct comparison *out);

#endif
