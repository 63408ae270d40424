/* store_run — probe runs in the database: one row per repetition with its
 * config and workload (content-hashed), metrics, histograms and time series. */
#ifndef SLUICE_STORE_RUN_H
#define SLUICE_STORE_RUN_H

#include <jansson.h>
#include "store.h"

/* One repetition as the store keeps it: the caller (src/probe) renders the
 * result into these values; the store only binds them. The have_* flags
 * say whether a measurement exists (else the column is NULL). Strings are
 * borrowed; NULL text is stored as "". */
struct run_record {
    const char *uuid, *batch;
    int rep;
    const char *device_name, *kernel, *workload, *workload_hash, *workload_text, *config_hash, *config_text;
    const char *dir, *started, *status, *note;
    uint64_t seed;
    double wall_s, mb_s, iops, read_mb_s, write_mb_s;
    bool have_lat;                 /* read + write latency */
    double lat_mean_ns;
    int64_t lat_p50_ns, lat_p99_ns, lat_p999_ns, lat_max_ns;
    double cpu_usr_pct, cpu_sys_pct;
    int64_t ctx_switches;
    bool have_disk;
    double dev_util_pct, dev_await_ms;
    bool have_psi;
    double psi_some_pct;
    bool have_canary;
    int64_t canary_max_ns, canary_p99_ns, stalls_100ms, stalls_1s, stalls_2s;
    bool have_vm;
    int64_t max_dirty_pages;
    int reached_threshold;         /* 1, 0 (flagged), -1 n/a (NULL) */
    const char *metrics_json, *series_json;
    const unsigned char *hist;     /* encoded latency histograms */
    size_t hist_len;
};

/* Save one repetition (any status) with its host and device (NULL when the
 * directory has no block device), all in one transaction. -1 with a message
 * naming the database on error; nothing is saved then. */
int store_run_save(store *s, const struct run_record *r, const struct host_info *h, const struct device *d, sl_err *e);

/* A stored run as `history` lists it. */
struct run_row {
    int64_t id;
    char uuid[37], batch[37];
    int rep;
    char started[32];
    char workload[32];
    char device[64];
    char status[16];
    char config_hash[65], workload_hash[65];
    char kernel[128];
    char hostname[128];
    int64_t seed;
    double wall_s, mb_s, iops, cpu_usr_pct, cpu_sys_pct;
    int64_t lat_p50_ns, lat_p99_ns, lat_max_ns;   /* -1 when no I/O */
    int64_t canary_max_ns;                        /* -1 without a canary */
    char note[512];
    int reached_threshold;    /* the dirty threshold: 1, 0 (flagged), -1 n/a */
};
/* Newest first; workload NULL for all, limit <= 0 for no limit. Caller
 * frees *out. Returns the count or -1. */
int store_run_list(store *s, const char *workload, int limit, struct run_row **out, sl_err *e);
/* A run as `history --csv/--json/--jsonl` exports it: everything a
 * fleet-wide analysis needs on one row (who, what hardware, which kernel,
 * the knob values in force, every metric). Strings are valid only during
 * the callback. */
enum run_metric {
    RM_WALL_S, RM_MB_S, RM_IOPS, RM_READ_MB_S, RM_WRITE_MB_S, RM_LAT_MEAN_NS, RM_LAT_P50_NS, RM_LAT_P99_NS,
    RM_LAT_P999_NS, RM_LAT_MAX_NS, RM_CPU_USR_PCT, RM_CPU_SYS_PCT, RM_CTX_SWITCHES, RM_DEV_UTIL_PCT,
    RM_DEV_AWAIT_MS, RM_PSI_SOME_PCT, RM_CANARY_MAX_NS, RM_CANARY_P99_NS, RM_STALLS_100MS, RM_STALLS_1S,
    RM_STALLS_2S, RM_MAX_DIRTY_PAGES,
    /* the collateral measures, from the stored metrics JSON (no column of their own) */
    RM_READER_P50_NS, RM_READER_P99_NS, RM_READER_MAX_NS, RM_WRITE_P99_NS, RM_PSI_FULL_PCT, RM_NR
};
/* The column name of each metric (the runs table's). */
extern const char *const run_metric_names[RM_NR];
struct run_export {
    const char *uuid, *batch, *started, *workload, *device, *status, *config_hash, *workload_hash, *kernel;
    const char *hostname, *host_uuid, *hw_class, *note;
    const char *config_text;   /* "knob=value\n" sorted */
    int rep;                   /* 0-based */
    long long seed;
    int reached_threshold;     /* 1, 0, -1 n/a */
    double metric[RM_NR];      /* NAN when not measured */
};
/* Runs newest first (workload NULL: all; limit <= 0: no limit), one call
 * of fn each, streamed: nothing is held. fn returning non-zero stops.
 * Returns the count or -1 with e. */
int store_run_export(store *s, const char *workload, int limit, int (*fn)(void *arg, const struct run_export *r),
                     void *arg, sl_err *e);
/* The stored JSON of a run (caller frees with json_decref), or NULL. */
json_t *store_run_metrics(store *s, const char *uuid, sl_err *e);

/* Everything stored about one run, for its detail view and report: the
 * list row, then the stored texts as they are in the database (any may be
 * NULL: an old or merged database, a run saved before the column existed).
 * Nothing here is checked; the reader says what is missing or malformed. */
struct run_detail {
    struct run_row row;
    char *metrics_json;       /* probe_result_json without "series" */
    char *series_json;        /* {"interval_ms", "t_ms", "nr_dirty", "nr_writeback", "mb_s"} */
    unsigned char *hist;      /* per-op encoded histograms (probe_hist_decode) */
    size_t hist_len;
    char *config_text;        /* "knob=value\n" in force */
    char *workload_spec;      /* the workload's canonical text */
    char *dir;
};
/* One run by UUID or unique prefix. -1 with a message when none, when
 * ambiguous, or on a database error; out is then empty. Free with
 * store_run_detail_free. */
int store_run_detail(store *s, const char *uuid_prefix, struct run_detail *out, sl_err *e);
void store_run_detail_free(struct run_detail *d);

#endif
