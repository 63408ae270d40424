/* compare — two groups of stored runs judged against each other: two
 * configurations (KNOB=VALUE selectors or config hashes), two searches
 * (their winners, or baselines), or kernel releases; the sides, the
 * verdict's words and the report lines. `sluice compare` and the Results
 * screen both use it; the statistics are evidence_compare's. */
#ifndef SLUICE_COMPARE_H
#define SLUICE_COMPARE_H

#include "search/evidence.h"

struct compare_side {
    char label[512];
    struct eval_metrics *m;
    const char **host;        /* the host of each run (borrowed from the evidence); NULL for a search's trials */
    int n, cap;
    /* The work its runs ran (the first run's; "" unknown) and, when they
     * did not all run it, where two of them differ. */
    char work_hash[65], work_text[1024], mixed[256];
    /* Fields its runs differ in that do not change what is measured (the
     * unmeasured ramp; the time limit of fixed work), said, not refused:
     * "ramp_ms=1000 vs ramp_ms=0" ("" none). */
    char incidental[256];
};
void compare_side_free(struct compare_side *s);
/* Whether a and b can be set against each other: every run of each ran
 * one workload, the same on both sides, but for incidental fields (the
 * unmeasured ramp, the time limit of fixed work). false with why naming
 * every difference that matters ("A and B ran different work:
 * size=2.0 GiB vs size=9.0 GiB"); true with why saying the incidental ones ("" none). */
bool compare_same_work(const struct compare_side *a, const struct compare_side *b, char *why, size_t n);

/* The differences between two workload texts (probe_workload_text), each
 * "size=2.0 GiB vs size=9.0 GiB" (sizes exact when their rounding reads
 * the same), into material and incidental ("" none). */
void compare_work_diff(const char *a, const char *b, char *material, size_t mn, char *incidental, size_t in);

/* A search's winner (its race trials), or its baseline when nothing won.
 * objective is filled with the search's when empty. */
int compare_search_side(store *st, const char *id, struct compare_side *s, char *objective, size_t on, sl_err *e);
/* One part of a search: its winner (refused when it has none), its
 * baseline (the confirmation's fresh runs of it, else its exploring
 * runs), or as compare_search_side chooses. */
enum search_part { PART_AUTO, PART_WINNER, PART_BASELINE };
int compare_search_part(store *st, const char *id, enum search_part part, struct compare_side *s, char *objective,
                        size_t on, sl_err *e);
/* B against A (evidence_compare_hosts with the sides' hosts); free with
 * evidence_comparison_free. */
void compare_sides(const struct objective *o, const struct compare_side *a, const struct compare_side *b, double alpha,
                   enum search_test test, struct comparison *out);
/* "  hosts: 3 (4f2a9c1e 50000 runs, 9b3d0a77 12, ...)": who the runs came from. */
void compare_hosts_line(const struct host_attribution *h, char *buf, size_t n);
/* The host attribution as JSON: [{"host": UUID, "runs": N}, ...] (json_t *). */
void *compare_hosts_json(const struct host_attribution *h);
/* Runs whose configuration holds every knob=value of sel. */
void compare_config_side(const struct evidence *ev, const char *sel, struct compare_side *s);
/* Runs whose configuration hash starts with hash (label "config HASH8"). */
void compare_hash_side(const struct evidence *ev, const char *hash, struct compare_side *s);
/* The runs named by uuids (a batch of repetitions), label "run UUID8". */
void compare_runs_side(const struct evidence *ev, const char (*uuids)[37], int n, struct compare_side *s);
/* What the interval of c is and what it is not, for a metric ("MB/s"):
 * "95% interval of the Hodges-Lehmann shift of log MB/s: a ratio of
 * typical runs (B/A - 1), not a change of means; change of means: ..." */
void compare_basis_line(const struct comparison *c, const char *metric, double mean_a, double mean_b, char *buf, size_t n);
/* Runs on one kernel release, all configurations pooled. */
void compare_kernel_side(const struct evidence *ev, const char *kernel, struct compare_side *s);
/* The kernel releases of ev in the order first seen; returns the count. */
int compare_kernels(const struct evidence *ev, char (*kernels)[128], int max);

/* Successful runs of a workload in this host's evidence scope (its own,
 * its hardware classes', deviceless runs of its host class: the filter
 * recommend uses); with *workload empty, of the workload with the most
 * such runs (written back into workload). */
int compare_load(store *st, char *workload, size_t wn, struct evidence *ev, sl_err *e);
/* The same; all_hardware: every stored run, whatever its hardware. */
int compare_load_scoped(store *st, bool all_hardware, char *workload, size_t wn, struct evidence *ev, sl_err *e);

/* "B is better than A", "within noise: ..." */
const char *compare_verdict_text(const struct leader *l);
/* "A: LABEL: N runs, VALUE" */
void compare_side_line(const char *tag, const struct compare_side *s, const struct objective *o,
                       const struct eval_metrics *mean, char *buf, size_t n);
/* "B against A: OBJ +x% [95% CI lo, hi], Welch p=..., Mann-Whitney p=..., Hedges g ..." */
void compare_result_line(const struct comparison *c, const char *objtext, char *buf, size_t n);

#endif
