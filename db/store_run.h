/* store_run — probe runs in the database: one row per repetition with its
 * config and workload (content-hashed), metrics, histograms and time series. */
#ifndef SLUICE_STORE_RUN_H
#define SLUICE_STORE_RUN_H

#include <jansson.h>
#include "db/store.h"
#include "core/record.h"
#include "core/run_metric.h"

/* One repetition as the store keeps it: the caller (src/probe) renders the
 * result into these values; the store only binds them. A metric not
 * measured (NAN) is a NULL column. Strings are borrowed; NULL text is
 * stored as "". */
struct run_record {
    const char *uuid, *batch;
    int rep;
    const char *device_name, *kernel, *workload, *workload_hash, *workload_text, *config_hash, *config_text;
    const char *dir, *started, *status, *note;
    uint64_t seed;
    struct run_metrics m;
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
    struct run_metrics m;     /* NAN where not measured (no I/O, no canary, an older run) */
    char note[512];
    int reached_threshold;    /* the dirty threshold: 1, 0 (flagged), -1 n/a */
};
/* Newest first; workload NULL for all, limit <= 0 for no limit. Caller
 * frees *out. Returns the count or -1. */
int store_run_list(store *s, const char *workload, int limit, struct run_row **out, sl_err *e);
/* What moves whenever runs are stored, merged or removed: their count and
 * the highest row id ("COUNT:MAXID" in buf), for a reader that judges
 * every run to know when to judge again. -1 with e. */
int store_run_stamp(store *s, char *buf, size_t n, sl_err *e);
/* A run as `history --csv/--json/--jsonl` exports it: everything a
 * fleet-wide analysis needs on one row (who, what hardware, which kernel,
 * the knob values in force, every metric). Strings are valid only during
 * the callback. Its fields, their JSON keys and CSV order:
 * run_export_fields. */
struct run_export {
    const char *uuid, *batch, *started, *workload, *device, *status, *config_hash, *workload_hash, *kernel;
    const char *hostname, *host_uuid, *hw_class, *note;
    const char *config_text;   /* "knob=value\n" sorted */
    /* its host's CPU model, CPUs and memory (not exported: they make the
     * hw_class of a run on no device, the host's class) */
    const char *host_cpu_model;
    int host_cpus;
    int64_t host_mem_bytes;
    int rep;                   /* 1-based */
    int64_t seed;
    int reached_threshold;     /* 1, 0, -1 n/a */
    struct run_metrics m;      /* NAN when not measured */
};
/* The run records' field tables (core/record.h): what a probe saves, and
 * what history exports. */
extern const struct rec_field run_record_fields[], run_export_fields[];
extern const size_t run_record_fields_len, run_export_fields_len;
/* Runs newest first (workload NULL: all; limit <= 0: no limit), one call
 * of fn each, streamed: nothing is held. fn returning non-zero stops.
 * Returns the count or -1 with e. */
int store_run_export(store *s, const char *workload, int limit, int (*fn)(void *arg, const struct run_export *r),
                     void *arg, sl_err *e);

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
