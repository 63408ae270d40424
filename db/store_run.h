/* store_run — probe runs in the database: one row per repetition with its
 * config and workload (content-hashed), metrics, histograms and time series. */
#ifndef SLUICE_STORE_RUN_H
#define SLUICE_STORE_RUN_H

#include "store.h"
#include "probe/probe.h"

/* Save one repetition (any status) with its host and device (NULL when the
 * directory has no block device), all in one transaction. -1 with a message
 * naming the database on error; nothing is saved then. */
int store_run_save(store *s, const struct probe_result *r, const struct host_info *h, const struct device *d,
                   sl_err *e);

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
    int reached_threshold;    /* probe_threshold_reached: 1, 0 (flagged), -1 n/a */
};
/* Newest first; workload NULL for all, limit <= 0 for no limit. Caller
 * frees *out. Returns the count or -1. */
int store_run_list(store *s, const char *workload, int limit, struct run_row **out, sl_err *e);
/* The stored JSON of a run (caller frees with json_decref), or NULL. */
json_t *store_run_metrics(store *s, const char *uuid, sl_err *e);

/* Histogram blob of a result: per op with samples, one byte op then
 * hist_encode. Decoding fills r->op[].hist. Caller frees the blob. */
unsigned char *store_run_hist_blob(const struct probe_result *r, size_t *len);
int store_run_hist_decode(const unsigned char *blob, size_t len, struct probe_result *r);

#endif
