/* store_run — SQL for probe runs, configs and workloads. */
#include "db/store_run.h"
#include "core/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

static int exec_text2(store *s, const char *sql, const char *a, const char *b, const char *c, sl_err *e)
{
    sqlite3_stmt *st = store_prepare(s, sql, "saving a run", e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
    if (c) sqlite3_bind_text(st, 3, c, -1, SQLITE_STATIC);
    return store_step_write(s, st, "saving a run", e);
}

static int device_uuid(store *s, int64_t id, char out[37], sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "SELECT uuid FROM devices WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "finding the device");
    sqlite3_bind_int64(st, 1, id);
    int rc = store_step(st);
    if (rc == SQLITE_ROW) snprintf(out, 37, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : store_fail(s, e, "finding the device");
}

/* The run record as probe saves it: one row a column of runs; the host,
 * device, hw_class and the histogram blob are bound beside it. */
#define RR(field, type, col, ...) REC_FIELD(struct run_record, field, type, NULL, col, __VA_ARGS__)
const struct rec_field run_record_fields[] = {
    RR(uuid, REC_STR, "uuid"), RR(batch, REC_STR, "batch_uuid"), RR(rep, REC_INT, "rep"),
    RR(device_name, REC_STR, "device_name"), RR(kernel, REC_STR, "kernel"), RR(workload, REC_STR, "workload"),
    RR(workload_hash, REC_STR, "workload_hash"), RR(config_hash, REC_STR, "config_hash"), RR(dir, REC_STR, "dir"),
    RR(seed, REC_U64, "seed", .flags = REC_JSON_TEXT), RR(started, REC_STR, "started"), RR(status, REC_STR, "status"),
    RR(note, REC_STR, "note"),
    METRIC_FIELDS_STORED(struct run_record)
    RR(reached_threshold, REC_INT, "reached_dirty_threshold", .flags = REC_NULL_NEG),
    RR(metrics_json, REC_STR, "metrics_json"), RR(series_json, REC_STR, "series_json"),
};
#undef RR
const size_t run_record_fields_len = sizeof run_record_fields / sizeof run_record_fields[0];

static int insert_run(store *s, const struct run_record *r, int64_t host_id, const char *host_uuid,
                      int64_t dev_id, const char *dev_uuid, const char *hw_class, sl_err *e)
{
    sqlite3_stmt *st = store_prepare_insert(s, "runs", "host_uuid, host_id, device_uuid, device_id, hw_class, hist",
                                            run_record_fields, run_record_fields_len, r, NULL, "saving a run", e);
    if (!st) return -1;
    sqlite3_bind_text(st, store_param(st, ":host_uuid"), host_uuid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, store_param(st, ":host_id"), host_id);
    if (dev_uuid) {
        sqlite3_bind_text(st, store_param(st, ":device_uuid"), dev_uuid, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, store_param(st, ":device_id"), dev_id);
    }
    sqlite3_bind_text(st, store_param(st, ":hw_class"), hw_class, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, store_param(st, ":hist"), r->hist ? (const void *)r->hist : "", (int)r->hist_len, SQLITE_STATIC);
    return store_step_write(s, st, "saving a run", e);
}

int store_run_save(store *s, const struct run_record *r, const struct host_info *h, const struct device *d, sl_err *e)
{
    if (store_begin(s, e) < 0) goto fail;   /* said like every other step: nothing of the run is in */
    int64_t host_id, dev_id = 0;
    char host_uuid[37], dev_uuid[37], hw_class[256] = "";
    if (store_host_upsert(s, h, &host_id, host_uuid, e) < 0) goto fail;
    if (d) {
        if (store_device_upsert(s, host_id, d, &dev_id, e) < 0 || device_uuid(s, dev_id, dev_uuid, e) < 0) goto fail;
        device_class(d, hw_class, sizeof hw_class);
    }
    /* The hash was computed here from the text read here: that text is
     * what the row must hold, whatever a merge by an older sluice (which
     * kept the first text stored under a hash, unchecked) left there. */
    if (exec_text2(s, "INSERT INTO configs (hash, text) VALUES (?1, ?2) ON CONFLICT (hash) DO UPDATE SET "
                   "text = excluded.text WHERE text IS NOT excluded.text", r->config_hash,
                   r->config_text ? r->config_text : "", NULL, e) < 0 ||
        exec_text2(s, "INSERT INTO workloads (hash, workload, spec) VALUES (?1, ?3, ?2) ON CONFLICT (hash) DO UPDATE "
                   "SET workload = excluded.workload, spec = excluded.spec WHERE spec IS NOT excluded.spec",
                   r->workload_hash, r->workload_text, r->workload, e) < 0)
        goto fail;
    if (insert_run(s, r, host_id, host_uuid, dev_id, d ? dev_uuid : NULL, hw_class, e) < 0) goto fail;
    if (store_commit(s, e) < 0) goto fail;
    return 0;
fail:
    store_rollback(s);
    return sl_suffix(e, "The run was not saved: nothing of it is in %s", store_path(s));
}

/* A run as `history` lists it (the fields read from runs r joined with
 * hosts h). */
#define RW(field, type, col, ...) REC_FIELD(struct run_row, field, type, NULL, col, __VA_ARGS__)
static const struct rec_field run_row_fields[] = {
    RW(id, REC_I64, "r.id"), RW(uuid, REC_TEXT, "r.uuid"), RW(batch, REC_TEXT, "r.batch_uuid"), RW(rep, REC_INT, "r.rep"),
    RW(started, REC_TEXT, "r.started"), RW(workload, REC_TEXT, "r.workload"), RW(device, REC_TEXT, "r.device_name"),
    RW(status, REC_TEXT, "r.status"), RW(config_hash, REC_TEXT, "r.config_hash"),
    RW(workload_hash, REC_TEXT, "r.workload_hash"), RW(kernel, REC_TEXT, "r.kernel"), RW(hostname, REC_TEXT, "h.hostname"),
    RW(seed, REC_I64, "r.seed"), RW(note, REC_TEXT, "r.note"),
    RW(reached_threshold, REC_INT, "r.reached_dirty_threshold", .flags = REC_NULL_NEG),
    METRIC_FIELDS_READ(struct run_row)
};
#undef RW
#define RUN_ROW_NCOLS (sizeof run_row_fields / sizeof run_row_fields[0])

/* Prepare "SELECT <fields>, more FROM runs r ... tail" or NULL with e. */
static sqlite3_stmt *select_runs(store *s, const struct rec_field *f, size_t nf, const char *more, const char *tail,
                                 const char *what, sl_err *e)
{
    char from[1024];
    snprintf(from, sizeof from,
             "%s FROM runs r LEFT JOIN hosts h ON h.uuid = r.host_uuid LEFT JOIN configs c ON c.hash = r.config_hash "
             "LEFT JOIN workloads w ON w.hash = r.workload_hash %s", more, tail);
    return store_prepare_select(s, f, nf, from, what, e);
}

#define RUNS_NEWEST "WHERE (?1 IS NULL OR r.workload = ?1) ORDER BY r.started DESC, r.id DESC LIMIT ?2"

int store_run_list(store *s, const char *workload, int limit, struct run_row **out, sl_err *e)
{
    sqlite3_stmt *st = select_runs(s, run_row_fields, RUN_ROW_NCOLS, "", RUNS_NEWEST, "listing runs", e);
    if (!st) return -1;
    if (workload) sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, 1);
    sqlite3_bind_int(st, 2, limit > 0 ? limit : -1);
    return store_collect(s, st, run_row_fields, RUN_ROW_NCOLS, sizeof **out, (void **)out, "listing runs", e);
}

/* A run as `history --csv/--json/--jsonl` exports it, in the CSV's column
 * order: the run's identity with the table's head metrics among it (the
 * first 22 columns are the ones history --csv always had: scripts cut
 * them by position), then every other metric in table order
 * (core/run_metric_table.h). */
#define RX(field, type, key, col, ...) REC_FIELD(struct run_export, field, type, key, col, __VA_ARGS__)
const struct rec_field run_export_fields[] = {
    RX(uuid, REC_STR, "uuid", "r.uuid"), RX(batch, REC_STR, "batch", "r.batch_uuid"),
    RX(rep, REC_INT, "rep", "r.rep + 1"), RX(started, REC_STR, "started", "r.started"),
    RX(workload, REC_STR, "workload", "r.workload"),
    RX(device, REC_STR, "device", "r.device_name", .flags = REC_NULL_EMPTY), RX(status, REC_STR, "status", "r.status"),
    METRIC_TABLE_HEAD(METRIC_FIELD_READ_, struct run_export)
    RX(seed, REC_I64, "seed", "r.seed", .flags = REC_JSON_TEXT), RX(config_hash, REC_STR, "config_hash", "r.config_hash"),
    RX(workload_hash, REC_STR, "workload_hash", "r.workload_hash"), RX(kernel, REC_STR, "kernel", "r.kernel"),
    RX(hostname, REC_STR, "hostname", "COALESCE(h.hostname, '')"), RX(note, REC_STR, "note", "r.note"),
    RX(reached_threshold, REC_TRI, "dirty_threshold_reached", "r.reached_dirty_threshold", .flags = REC_NULL_NEG),
    RX(host_uuid, REC_STR, "host_uuid", "r.host_uuid"), RX(hw_class, REC_STR, "hw_class", "r.hw_class"),
    METRIC_TABLE_REST(METRIC_FIELD_READ_, struct run_export)
    RX(config_text, REC_STR, NULL, "COALESCE(c.text, '')"),
    RX(host_cpu_model, REC_STR, NULL, "COALESCE(h.cpu_model, '')"), RX(host_cpus, REC_INT, NULL, "COALESCE(h.cpus, 0)"),
    RX(host_mem_bytes, REC_I64, NULL, "COALESCE(h.mem_bytes, 0)"),
};
#undef RX
const size_t run_export_fields_len = sizeof run_export_fields / sizeof run_export_fields[0];

int store_run_export(store *s, const char *workload, int limit, int (*fn)(void *arg, const struct run_export *r),
                     void *arg, sl_err *e)
{
    sqlite3_stmt *st = select_runs(s, run_export_fields, run_export_fields_len, "", RUNS_NEWEST, "exporting runs", e);
    if (!st) return -1;
    if (workload) sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, 1);
    sqlite3_bind_int(st, 2, limit > 0 ? limit : -1);
    int n = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        struct run_export r;
        store_read_fields(st, run_export_fields, run_export_fields_len, &r);
        /* A run on no device is classed by its host, as evidence scopes it. */
        char host_class[256];
        if (!r.hw_class[0] && r.host_cpu_model[0]) {
            host_class_of(r.host_cpu_model, r.host_cpus, (long long)r.host_mem_bytes, host_class, sizeof host_class);
            r.hw_class = host_class;
        }
        n++;
        if (fn(arg, &r) != 0) { rc = SQLITE_DONE; break; }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "exporting runs");
    return n;
}

static char *dup_column(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? xstrdup((const char *)t) : NULL;
}

static void detail_from(sqlite3_stmt *st, struct run_detail *d)
{
    store_read_fields(st, run_row_fields, RUN_ROW_NCOLS, &d->row);
    int c = RUN_ROW_NCOLS;
    d->metrics_json = dup_column(st, c);
    d->series_json = dup_column(st, c + 1);
    d->config_text = dup_column(st, c + 3);
    d->workload_spec = dup_column(st, c + 4);
    d->dir = dup_column(st, c + 5);
    int len = sqlite3_column_bytes(st, c + 2);
    const void *blob = sqlite3_column_blob(st, c + 2);
    if (blob && len > 0) {
        d->hist = xmalloc((size_t)len);
        memcpy(d->hist, blob, (size_t)len);
        d->hist_len = (size_t)len;
    }
}

int store_run_detail(store *s, const char *uuid_prefix, struct run_detail *out, sl_err *e)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = select_runs(s, run_row_fields, RUN_ROW_NCOLS, ", r.metrics_json, r.series_json, r.hist, c.text, w.spec, r.dir",
                                   "WHERE substr(r.uuid, 1, length(?1)) = ?1 ORDER BY r.id LIMIT 2", "reading a run", e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, uuid_prefix, -1, SQLITE_STATIC);
    int found = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW)
        if (found++ == 0) detail_from(st, out);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_run_detail_free(out);
        return store_fail(s, e, "reading a run");
    }
    if (!uuid_prefix[0] || found == 0)
        return sl_fail(e, SL_EUSAGE, "no run \"%s\" in %s (see 'sluice history')", uuid_prefix, store_path(s));
    if (found > 1) {
        store_run_detail_free(out);
        return sl_fail(e, SL_EUSAGE, "run \"%s\" is ambiguous: give more of its UUID (see 'sluice history')",
                       uuid_prefix);
    }
    return 0;
}

void store_run_detail_free(struct run_detail *d)
{
    free(d->metrics_json);
    free(d->series_json);
    free(d->config_text);
    free(d->workload_spec);
    free(d->dir);
    free(d->hist);
    memset(d, 0, sizeof *d);
}

int store_run_stamp(store *s, char *buf, size_t n, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "SELECT count(*), COALESCE(max(id), 0) FROM runs", -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "counting runs");
    int rc = store_step(st);
    if (rc == SQLITE_ROW)
        snprintf(buf, n, "%lld:%lld", (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1));
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : store_fail(s, e, "counting runs");
}
