/* store_search — searches and trials (migration 003), and the reads of
 * stored probe runs that oracle mode, recommend and compare need. */
#ifndef SLUICE_STORE_SEARCH_H
#define SLUICE_STORE_SEARCH_H

#include "db/store.h"
#include "core/run_metric.h"
#include "core/record.h"

struct search_row {
    int64_t id;
    char uuid[37];
    int64_t host_id, session_id;
    char space[256], device[64], hw_class[256], kernel[128];
    char workload[32], objective[160], strategy[16], evaluator[16];
    int64_t budget_evals, budget_ms, seed;
    char spec_json[4096];
    char state[16];
    int applied;
    char verdict[16];
    char winner_text[2048], winner_hash[17];
    double improvement, ci_lo, ci_hi, p_holm;   /* NAN when none */
    int n_winner, n_baseline;
    char started[32], ended[32];
    char host_uuid[37];
    /* migration 007: the workload every evaluation ran, fixed before the
     * first; how its volume was sized; whether free space capped it below
     * what the largest dirty limit needs ("" and 0 for oracle searches) */
    char workload_hash[65], workload_text[1024], sizing_note[1536];
    int threshold_capped;
    /* migration 008: the confirmation round ("" and 0 when none ran);
     * improvement..p_holm then hold the confirmed effect */
    char confirm_outcome[16];
    int confirm_reps;
    double explore_improvement, shrinkage;   /* NAN when none */
    /* migration 014: the level of [ci_lo, ci_hi] (0.90 for a one-look
     * confirmation at alpha 0.05); NAN when none, or stored before 014 */
    double ci_level;
};

struct trial_row {
    int seq;
    char role[12];
    char config_hash[17];
    char config_text[2048];
    double score;                /* NAN when NULL */
    char metrics_json[1024];
    char run_uuid[37];
    int64_t elapsed_ms;
};

/* The search and trial records' field tables (core/record.h). */
extern const struct rec_field search_fields[], trial_fields[];
extern const size_t search_fields_len, trial_fields_len;

/* Insert (row->id, uuid, state and started are filled). */
int store_search_create(store *s, struct search_row *row, sl_err *e);
/* Update state, session, applied, verdict columns and result_json (may be
 * NULL to keep it). */
int store_search_update(store *s, const struct search_row *row, const char *result_json, sl_err *e);
/* One search by UUID or unique prefix; -1 with a message when none or
 * ambiguous. */
int store_search_get(store *s, const char *uuid_prefix, struct search_row *out, sl_err *e);
/* The result JSON stored when the search finished (report_json, with its
 * verdict card): a string the caller frees, or NULL with e when none is
 * stored (an unfinished search) or the database fails. */
char *store_search_result_json(store *s, int64_t search_id, sl_err *e);
/* Searches in state 'done', newest first, optionally of one workload.
 * Caller frees *out. */
int store_search_list(store *s, const char *workload, struct search_row **out, sl_err *e);
int store_search_trial_add(store *s, int64_t search_id, const struct trial_row *t, sl_err *e);
/* Trials in order; caller frees *out. */
int store_search_trials(store *s, int64_t search_id, struct trial_row **out, sl_err *e);

/* A stored probe run as search, recommend and compare read it. */
struct stored_run {
    const char *uuid, *config_text, *kernel, *host_uuid, *hw_class, *workload, *device, *config_hash;
    const char *workload_hash, *workload_text;   /* the work it ran ("" when its text is not stored) */
    struct run_metrics m;           /* NAN when not measured */
    /* The run's host as the store knows it (NULL/0 when its host row is
     * not there): what classes a run made on no device. */
    const char *host_cpu_model;
    int host_cpus;
    int64_t host_mem_bytes;
};
typedef int (*stored_run_fn)(void *arg, const struct stored_run *r);
/* Successful (ok/warm) runs, optionally of one workload, oldest first.
 * Returns the count or -1. A database without runs (no migration 002 yet)
 * has none. */
int store_search_runs(store *s, const char *workload, stored_run_fn fn, void *arg, sl_err *e);

/* Trials and runs during a search need to survive a killed sluice, not a
 * power cut: false relaxes commits to that (WAL synchronous=NORMAL), true
 * restores full durability. */
int store_search_durability(store *s, bool full, sl_err *e);

#endif
