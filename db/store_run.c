/* store_run — SQL for probe runs, configs and workloads. */
#include "store_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

static int exec_text2(store *s, const char *sql, const char *a, const char *b, const char *c, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "saving a run");
    sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
    if (c) sqlite3_bind_text(st, 3, c, -1, SQLITE_STATIC);
    int rc = store_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_fail(s, e, "saving a run");
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

static void bind_opt_int(sqlite3_stmt *st, int col, bool have, int64_t v)
{
    if (have) sqlite3_bind_int64(st, col, v);
    else sqlite3_bind_null(st, col);
}

static void bind_opt_real(sqlite3_stmt *st, int col, bool have, double v)
{
    if (have) sqlite3_bind_double(st, col, v);
    else sqlite3_bind_null(st, col);
}

static const char insert_sql[] =
    "INSERT INTO runs (uuid, batch_uuid, rep, host_uuid, host_id, device_uuid, device_id, device_name, hw_class, "
    " kernel, workload, workload_hash, config_hash, dir, seed, started, status, note, wall_s, mb_s, iops, read_mb_s, "
    " write_mb_s, lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_p999_ns, lat_max_ns, cpu_usr_pct, cpu_sys_pct, "
    " ctx_switches, dev_util_pct, dev_await_ms, psi_some_pct, canary_max_ns, canary_p99_ns, stalls_100ms, stalls_1s, "
    " stalls_2s, max_dirty_pages, reached_dirty_threshold, metrics_json, hist, series_json) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, "
    " ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39, ?40, ?41, ?42, ?43, ?44)";

static void bind_text(sqlite3_stmt *st, int col, const char *v) { sqlite3_bind_text(st, col, v ? v : "", -1, SQLITE_STATIC); }

static int insert_run(store *s, const struct run_record *r, int64_t host_id, const char *host_uuid,
                      int64_t dev_id, const char *dev_uuid, const char *hw_class, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), insert_sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "saving a run");
    bind_text(st, 1, r->uuid);
    bind_text(st, 2, r->batch);
    sqlite3_bind_int(st, 3, r->rep);
    bind_text(st, 4, host_uuid);
    sqlite3_bind_int64(st, 5, host_id);
    if (dev_uuid) bind_text(st, 6, dev_uuid); else sqlite3_bind_null(st, 6);
    bind_opt_int(st, 7, dev_uuid != NULL, dev_id);
    bind_text(st, 8, r->device_name);
    bind_text(st, 9, hw_class);
    bind_text(st, 10, r->kernel);
    bind_text(st, 11, r->workload);
    bind_text(st, 12, r->workload_hash);
    bind_text(st, 13, r->config_hash);
    bind_text(st, 14, r->dir);
    sqlite3_bind_int64(st, 15, (sqlite3_int64)r->seed);
    bind_text(st, 16, r->started);
    bind_text(st, 17, r->status);
    bind_text(st, 18, r->note);
    sqlite3_bind_double(st, 19, r->wall_s);
    sqlite3_bind_double(st, 20, r->mb_s);
    sqlite3_bind_double(st, 21, r->iops);
    sqlite3_bind_double(st, 22, r->read_mb_s);
    sqlite3_bind_double(st, 23, r->write_mb_s);
    bind_opt_real(st, 24, r->have_lat, r->lat_mean_ns);
    bind_opt_int(st, 25, r->have_lat, r->lat_p50_ns);
    bind_opt_int(st, 26, r->have_lat, r->lat_p99_ns);
    bind_opt_int(st, 27, r->have_lat, r->lat_p999_ns);
    bind_opt_int(st, 28, r->have_lat, r->lat_max_ns);
    sqlite3_bind_double(st, 29, r->cpu_usr_pct);
    sqlite3_bind_double(st, 30, r->cpu_sys_pct);
    sqlite3_bind_int64(st, 31, r->ctx_switches);
    bind_opt_real(st, 32, r->have_disk, r->dev_util_pct);
    bind_opt_real(st, 33, r->have_disk, r->dev_await_ms);
    bind_opt_real(st, 34, r->have_psi, r->psi_some_pct);
    bind_opt_int(st, 35, r->have_canary, r->canary_max_ns);
    bind_opt_int(st, 36, r->have_canary, r->canary_p99_ns);
    bind_opt_int(st, 37, r->have_canary, r->stalls_100ms);
    bind_opt_int(st, 38, r->have_canary, r->stalls_1s);
    bind_opt_int(st, 39, r->have_canary, r->stalls_2s);
    bind_opt_int(st, 40, r->have_vm, r->max_dirty_pages);
    bind_opt_int(st, 41, r->reached_threshold >= 0, r->reached_threshold);
    bind_text(st, 42, r->metrics_json);
    sqlite3_bind_blob(st, 43, r->hist ? (const void *)r->hist : "", (int)r->hist_len, SQLITE_STATIC);
    bind_text(st, 44, r->series_json);
    int rc = store_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_fail(s, e, "saving a run");
}

int store_run_save(store *s, const struct run_record *r, const struct host_info *h, const struct device *d, sl_err *e)
{
    if (store_begin(s, e) < 0) return -1;
    int64_t host_id, dev_id = 0;
    char host_uuid[37], dev_uuid[37], hw_class[256] = "";
    if (store_host_upsert(s, h, &host_id, host_uuid, e) < 0) goto fail;
    if (d) {
        if (store_device_upsert(s, host_id, d, &dev_id, e) < 0 || device_uuid(s, dev_id, dev_uuid, e) < 0) goto fail;
        device_class(d, hw_class, sizeof hw_class);
    }
    if (exec_text2(s, "INSERT OR IGNORE INTO configs (hash, text) VALUES (?1, ?2)", r->config_hash,
                   r->config_text ? r->config_text : "", NULL, e) < 0 ||
        exec_text2(s, "INSERT OR IGNORE INTO workloads (hash, workload, spec) VALUES (?1, ?3, ?2)", r->workload_hash,
                   r->workload_text, r->workload, e) < 0)
        goto fail;
    if (insert_run(s, r, host_id, host_uuid, dev_id, d ? dev_uuid : NULL, hw_class, e) < 0) goto fail;
    if (store_commit(s, e) < 0) goto fail;
    return 0;
fail:
    store_rollback(s);
    return -1;
}

/* The columns of a run_row, in the order row_from reads them. */
#define RUN_ROW_COLS                                                                                              \
    "r.id, r.uuid, r.batch_uuid, r.rep, r.started, r.workload, r.device_name, r.status, r.config_hash, "          \
    " r.workload_hash, r.kernel, COALESCE(h.hostname, ''), r.seed, r.wall_s, r.mb_s, r.iops, r.cpu_usr_pct, "     \
    " r.cpu_sys_pct, COALESCE(r.lat_p50_ns, -1), COALESCE(r.lat_p99_ns, -1), COALESCE(r.lat_max_ns, -1), "        \
    " COALESCE(r.canary_max_ns, -1), r.note, COALESCE(r.reached_dirty_threshold, -1) "
#define RUN_ROW_NCOLS 24

static void row_from(sqlite3_stmt *st, struct run_row *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    COPY_TEXT(r->uuid, st, 1);
    COPY_TEXT(r->batch, st, 2);
    r->rep = sqlite3_column_int(st, 3);
    COPY_TEXT(r->started, st, 4);
    COPY_TEXT(r->workload, st, 5);
    COPY_TEXT(r->device, st, 6);
    COPY_TEXT(r->status, st, 7);
    COPY_TEXT(r->config_hash, st, 8);
    COPY_TEXT(r->workload_hash, st, 9);
    COPY_TEXT(r->kernel, st, 10);
    COPY_TEXT(r->hostname, st, 11);
    r->seed = sqlite3_column_int64(st, 12);
    r->wall_s = sqlite3_column_double(st, 13);
    r->mb_s = sqlite3_column_double(st, 14);
    r->iops = sqlite3_column_double(st, 15);
    r->cpu_usr_pct = sqlite3_column_double(st, 16);
    r->cpu_sys_pct = sqlite3_column_double(st, 17);
    r->lat_p50_ns = sqlite3_column_int64(st, 18);
    r->lat_p99_ns = sqlite3_column_int64(st, 19);
    r->lat_max_ns = sqlite3_column_int64(st, 20);
    r->canary_max_ns = sqlite3_column_int64(st, 21);
    COPY_TEXT(r->note, st, 22);
    r->reached_threshold = sqlite3_column_int(st, 23);
}

int store_run_list(store *s, const char *workload, int limit, struct run_row **out, sl_err *e)
{
    const char *sql = "SELECT " RUN_ROW_COLS "FROM runs r LEFT JOIN hosts h ON h.uuid = r.host_uuid "
                      "WHERE (?1 IS NULL OR r.workload = ?1) ORDER BY r.started DESC, r.id DESC LIMIT ?2";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "listing runs");
    if (workload) sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, 1);
    sqlite3_bind_int(st, 2, limit > 0 ? limit : -1);
    int n = 0, cap = 16, rc;
    struct run_row *v = xcalloc((size_t)cap, sizeof *v);
    while ((rc = store_step(st)) == SQLITE_ROW) {
        if (n == cap) { cap *= 2; v = xrealloc(v, sizeof *v * (size_t)cap); }
        row_from(st, &v[n++]);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(v);
        return store_fail(s, e, "listing runs");
    }
    *out = v;
    return n;
}

/* The collateral measures as columns, from the run's stored metrics JSON
 * (probe_result_json): NULL where the run had no reader, or is older. */
#define RUN_COLLATERAL_COLS                                                                                            \
    " json_extract(r.metrics_json, '$.reader.p50_ns'), json_extract(r.metrics_json, '$.reader.p99_ns'), "              \
    " json_extract(r.metrics_json, '$.reader.max_ns'), json_extract(r.metrics_json, '$.ops.write.lat_ns.p99'), "       \
    " json_extract(r.metrics_json, '$.psi_io.full_pct') "

const char *const run_metric_names[RM_NR] = {
    "wall_s", "mb_s", "iops", "read_mb_s", "write_mb_s", "lat_mean_ns", "lat_p50_ns", "lat_p99_ns", "lat_p999_ns",
    "lat_max_ns", "cpu_usr_pct", "cpu_sys_pct", "ctx_switches", "dev_util_pct", "dev_await_ms", "psi_some_pct",
    "canary_max_ns", "canary_p99_ns", "stalls_100ms", "stalls_1s", "stalls_2s", "max_dirty_pages",
    "reader_p50_ns", "reader_p99_ns", "reader_max_ns", "write_p99_ns", "psi_full_pct",
};

static const char *col_text(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return t ? t : "";
}

int store_run_export(store *s, const char *workload, int limit, int (*fn)(void *arg, const struct run_export *r),
                     void *arg, sl_err *e)
{
    /* the metric columns in run_metric_names' order, from column 17 on */
    const char *sql =
        "SELECT r.uuid, r.batch_uuid, r.rep, r.started, r.workload, r.device_name, r.status, r.config_hash, "
        " r.workload_hash, r.kernel, COALESCE(h.hostname, ''), r.host_uuid, r.hw_class, r.note, COALESCE(c.text, ''), "
        " r.seed, COALESCE(r.reached_dirty_threshold, -1), "
        " r.wall_s, r.mb_s, r.iops, r.read_mb_s, r.write_mb_s, r.lat_mean_ns, r.lat_p50_ns, r.lat_p99_ns, "
        " r.lat_p999_ns, r.lat_max_ns, r.cpu_usr_pct, r.cpu_sys_pct, r.ctx_switches, r.dev_util_pct, r.dev_await_ms, "
        " r.psi_some_pct, r.canary_max_ns, r.canary_p99_ns, r.stalls_100ms, r.stalls_1s, r.stalls_2s, r.max_dirty_pages, "
        RUN_COLLATERAL_COLS
        "FROM runs r LEFT JOIN hosts h ON h.uuid = r.host_uuid LEFT JOIN configs c ON c.hash = r.config_hash "
        "WHERE (?1 IS NULL OR r.workload = ?1) ORDER BY r.started DESC, r.id DESC LIMIT ?2";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "exporting runs");
    if (workload) sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, 1);
    sqlite3_bind_int(st, 2, limit > 0 ? limit : -1);
    int n = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        struct run_export r = {
            .uuid = col_text(st, 0), .batch = col_text(st, 1), .rep = sqlite3_column_int(st, 2),
            .started = col_text(st, 3), .workload = col_text(st, 4), .device = col_text(st, 5),
            .status = col_text(st, 6), .config_hash = col_text(st, 7), .workload_hash = col_text(st, 8),
            .kernel = col_text(st, 9), .hostname = col_text(st, 10), .host_uuid = col_text(st, 11),
            .hw_class = col_text(st, 12), .note = col_text(st, 13), .config_text = col_text(st, 14),
            .seed = sqlite3_column_int64(st, 15), .reached_threshold = sqlite3_column_int(st, 16),
        };
        for (int k = 0; k < RM_NR; k++)
            r.metric[k] = sqlite3_column_type(st, 17 + k) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 17 + k);
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
    row_from(st, &d->row);
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
    const char *sql = "SELECT " RUN_ROW_COLS ", r.metrics_json, r.series_json, r.hist, c.text, w.spec, r.dir "
                      "FROM runs r LEFT JOIN hosts h ON h.uuid = r.host_uuid "
                      "LEFT JOIN configs c ON c.hash = r.config_hash LEFT JOIN workloads w ON w.hash = r.workload_hash "
                      "WHERE substr(r.uuid, 1, length(?1)) = ?1 ORDER BY r.id LIMIT 2";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "reading a run");
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

json_t *store_run_metrics(store *s, const char *uuid, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "SELECT metrics_json FROM runs WHERE uuid = ?", -1, &st, NULL) != SQLITE_OK) {
        store_fail(s, e, "reading a run");
        return NULL;
    }
    sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
    json_t *j = NULL;
    if (store_step(st) == SQLITE_ROW) {
        json_error_t je;
        j = json_loads((const char *)sqlite3_column_text(st, 0), 0, &je);
    }
    sqlite3_finalize(st);
    if (!j) sl_fail(e, SL_EFAIL, "%s: no readable run %s", store_path(s), uuid);
    return j;
}
