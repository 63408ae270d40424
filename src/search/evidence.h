/* evidence — stored probe runs as samples for `recommend` and `compare`:
 * loaded once, filtered by workload, configuration (every knob=value of a
 * selector present in the run's recorded configuration), kernel or host,
 * and judged with the same statistics as a search's verdict. */
#ifndef SLUICE_EVIDENCE_H
#define SLUICE_EVIDENCE_H

#include <stdbool.h>
#include "search/search.h"
#include "db/store.h"

struct run_sample {
    char *config_text;        /* "knob=value\n" sorted */
    char kernel[128], host_uuid[37], hw_class[256], workload[32];
    char host_class[192];     /* its host's CPUs, memory and CPU model: the class of a run on no device */
    char config_hash[65];
    int work;                 /* its workload: an index into evidence.work */
    struct eval_metrics m;
};

/* A workload the runs ran (workload_hash and its text): kept once however
 * many runs share it. */
struct evidence_work {
    char hash[65];
    char *text;
};

struct evidence {
    struct run_sample *run;
    int n, cap;
    struct evidence_work *work;
    int nwork, work_cap, last_work;     /* last_work: the one the last run had */
};

/* Which runs count as evidence for this host: its own, those on a disk of
 * one of its hardware classes, and those made on no device (tmpfs, hw_class
 * "") on a host of the same host class (CPUs, memory, CPU model): a run
 * without a disk measured the host, so the host is its class. recommend
 * and compare both filter with it. */
struct evidence_scope {
    char host_uuid[37];
    char host_class[192];
    char (*classes)[256];     /* this host's disks' hardware classes */
    int nclasses;
};
/* This host (recorded in st for its UUID), its disks and their classes.
 * -1 with e; evidence_scope_free frees it either way. */
int evidence_scope_this_host(store *st, struct evidence_scope *sc, sl_err *e);
void evidence_scope_free(struct evidence_scope *sc);
bool evidence_run_in_scope(const struct run_sample *r, const struct evidence_scope *sc);
/* Keep only the runs in scope (in order). */
void evidence_keep_scope(struct evidence *ev, const struct evidence_scope *sc);
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

/* The hosts behind a sample and their run counts, most runs first. */
struct host_runs {
    const char *host;         /* borrowed from the sample's host array ("" unknown) */
    int runs;
};
struct host_attribution {
    struct host_runs *h;
    int n;
};
/* hosts[0..n-1] (NULL: all one unknown host) counted; free with
 * evidence_attribution_free. */
void evidence_attribution(const char *const *hosts, int n, struct host_attribution *out);
void evidence_attribution_free(struct host_attribution *a);
/* Host strings with their place, ordered by host then place (a run's
 * host NULL: ""); caller frees. Runs of one host are adjacent. */
struct host_at {
    const char *host;
    int at;
};
struct host_at *evidence_hosts_sorted(const char *const *hosts, int n);
/* Whether more than one host stands behind a and b together: then the host,
 * not the run, is the unit of the comparison. */
bool evidence_by_host(const struct host_attribution *a, const struct host_attribution *b);
/* One objective score per host: the mean of its runs' scores (unscorable
 * runs skipped). out has room for n values; returns how many. */
int evidence_host_scores(const struct objective *o, const struct eval_metrics *m, const char *const *hosts, int n,
                         double *out);

/* Compare two samples of objective scores: p-values, interval, effect
 * size, verdict (B against A: positive is B better). */
struct comparison {
    int na, nb;
    struct eval_metrics mean_a, mean_b;
    struct leader l;          /* the verdict of B against A */
    /* With runs from more than one host: each host's mean score counts once
     * (na, nb count hosts then) and decide_compare draws the verdict. */
    bool by_host;
    struct host_attribution hosts_a, hosts_b;
    char host_decision[256];  /* decide_text of the host-level decision ("" by run) */
};
void evidence_compare(const struct objective *o, const struct eval_metrics *a, int na, const struct eval_metrics *b,
                      int nb, double alpha, enum search_test test, struct comparison *out);
/* The same with the host of every run (ha, hb: NULL when all are one
 * host's). Free with evidence_comparison_free. */
void evidence_compare_hosts(const struct objective *o, const struct eval_metrics *a, const char *const *ha, int na,
                            const struct eval_metrics *b, const char *const *hb, int nb, double alpha,
                            enum search_test test, struct comparison *out);
void evidence_comparison_free(struct comparison *c);

#endif
