/* store_search — SQL for searches, trials, and reading stored runs. */
#include "db/store_search.h"
#include "core/record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The search record, described once: what create inserts, what update
 * writes (REC_UPDATE), what every read fills, and the keys of `search --list
 * --json` (in this order). */
#define SR(field, type, key, ...) REC_FIELD(struct search_row, field, type, key, #field, __VA_ARGS__)
#define LATER (REC_UPDATE | REC_NOINSERT)
const struct rec_field search_fields[] = {
    SR(id, REC_I64, NULL, .flags = REC_READONLY),
    SR(uuid, REC_TEXT, "uuid"),
    SR(started, REC_TEXT, "started", .flags = REC_READONLY),
    SR(host_id, REC_I64, NULL, .flags = REC_NULL_ZERO),
    SR(session_id, REC_I64, NULL, .flags = REC_NULL_ZERO | REC_UPDATE),
    SR(space, REC_TEXT, "space"),
    SR(device, REC_TEXT, NULL),
    SR(hw_class, REC_TEXT, NULL),
    SR(kernel, REC_TEXT, NULL),
    SR(workload, REC_TEXT, "workload"),
    SR(objective, REC_TEXT, "objective"),
    SR(strategy, REC_TEXT, "strategy"),
    SR(state, REC_TEXT, "state", .flags = REC_UPDATE),
    SR(verdict, REC_TEXT, "verdict", .flags = LATER | REC_NULL_EMPTY),
    SR(evaluator, REC_TEXT, NULL),
    SR(budget_evals, REC_I64, NULL),
    SR(budget_ms, REC_I64, NULL, .unit = "ms"),
    SR(seed, REC_I64, NULL),
    SR(spec_json, REC_TEXT, NULL),
    SR(applied, REC_INT, NULL, .flags = LATER),
    SR(winner_text, REC_TEXT, NULL, .flags = LATER),
    SR(winner_hash, REC_TEXT, NULL, .flags = LATER),
    SR(improvement, REC_DOUBLE, "improvement", .flags = LATER | REC_NULL_NAN),
    SR(ci_lo, REC_DOUBLE, "ci_lo", .flags = LATER | REC_NULL_NAN),
    SR(ci_hi, REC_DOUBLE, "ci_hi", .flags = LATER | REC_NULL_NAN),
    SR(ci_level, REC_DOUBLE, "ci_level", .flags = LATER | REC_NULL_NAN),
    SR(p_holm, REC_DOUBLE, NULL, .flags = LATER | REC_NULL_NAN),
    SR(n_winner, REC_INT, NULL, .flags = LATER),
    SR(n_baseline, REC_INT, NULL, .flags = LATER),
    SR(ended, REC_TEXT, NULL, .flags = REC_READONLY),
    SR(host_uuid, REC_TEXT, NULL, .flags = REC_READONLY),
    SR(workload_hash, REC_TEXT, NULL),
    SR(workload_text, REC_TEXT, NULL),
    SR(sizing_note, REC_TEXT, NULL),
    SR(threshold_capped, REC_INT, NULL),
    SR(confirm_outcome, REC_TEXT, NULL, .flags = LATER),
    SR(confirm_reps, REC_INT, NULL, .flags = LATER),
    SR(explore_improvement, REC_DOUBLE, NULL, .flags = LATER | REC_NULL_NAN),
    SR(shrinkage, REC_DOUBLE, NULL, .flags = LATER | REC_NULL_NAN),
};
#undef LATER
#undef SR
const size_t search_fields_len = sizeof search_fields / sizeof search_fields[0];

#define TR(field, type, ...) REC_FIELD(struct trial_row, field, type, NULL, #field, __VA_ARGS__)
const struct rec_field trial_fields[] = {
    TR(seq, REC_INT), TR(role, REC_TEXT), TR(config_hash, REC_TEXT), TR(config_text, REC_TEXT),
    TR(score, REC_DOUBLE, .flags = REC_NULL_NAN), TR(metrics_json, REC_TEXT), TR(run_uuid, REC_TEXT),
    TR(elapsed_ms, REC_I64, .unit = "ms"),
};
#undef TR
const size_t trial_fields_len = sizeof trial_fields / sizeof trial_fields[0];

int store_search_create(store *s, struct search_row *r, sl_err *e)
{
    store_uuid(r->uuid);
    snprintf(r->state, sizeof r->state, "running");
    return store_insert_dated(s, "searches", search_fields, search_fields_len, r, &r->id, r->started,
                              sizeof r->started, "recording the search", e);
}

int store_search_update(store *s, const struct search_row *r, const char *result_json, sl_err *e)
{
    sqlite3_stmt *st = store_prepare_update(
        s, "searches", search_fields, search_fields_len, r,
        ", result_json = COALESCE(:result_json, result_json), "
        "ended = CASE WHEN :state = 'running' THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%SZ', 'now') END WHERE id = :id",
        "updating the search", e);
    if (!st) return -1;
    sqlite3_bind_int64(st, store_param(st, ":id"), r->id);
    if (result_json) sqlite3_bind_text(st, store_param(st, ":result_json"), result_json, -1, SQLITE_STATIC);
    int rc = store_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "updating the search");
    return 0;
}

/* The searches with their host's UUID, as the fields name them. */
#define SEARCHES_FROM "FROM (SELECT s.*, h.uuid AS host_uuid FROM searches s LEFT JOIN hosts h ON h.id = s.host_id) s "

/* Prepare "SELECT <search fields> FROM ... tail" or NULL with e. */
static sqlite3_stmt *select_searches(store *s, const char *tail, const char *what, sl_err *e)
{
    char from[512];
    snprintf(from, sizeof from, SEARCHES_FROM "%s", tail);
    return store_prepare_select(s, search_fields, search_fields_len, from, what, e);
}

int store_search_get(store *s, const char *prefix, struct search_row *out, sl_err *e)
{
    sqlite3_stmt *st = select_searches(s, "WHERE s.uuid LIKE ?1 || '%' ORDER BY s.id DESC LIMIT 2", "reading searches", e);
    if (!st) return -1;
    return store_get_by_prefix(s, st, search_fields, search_fields_len, out, sizeof *out, prefix, "search",
                               "sluice search --list", "reading searches", e);
}

char *store_search_result_json(store *s, int64_t search_id, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "SELECT result_json FROM searches WHERE id = ?1", -1, &st, NULL) != SQLITE_OK) {
        store_fail(s, e, "reading a search's result");
        return NULL;
    }
    sqlite3_bind_int64(st, 1, search_id);
    char *out = NULL;
    int rc = store_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_text(st, 0)) out = xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        store_fail(s, e, "reading a search's result");
        return NULL;
    }
    if (!out) sl_fail(e, SL_EFAIL, "search has no stored result");
    return out;
}

int store_search_list(store *s, const char *workload, struct search_row **out, sl_err *e)
{
    sqlite3_stmt *st = select_searches(s, "WHERE (?1 IS NULL OR s.workload = ?1) ORDER BY s.id DESC", "listing searches", e);
    if (!st) return -1;
    if (workload) sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 1);
    return store_collect(s, st, search_fields, search_fields_len, sizeof **out, (void **)out, "listing searches", e);
}

int store_search_trial_add(store *s, int64_t search_id, const struct trial_row *t, sl_err *e)
{
    return store_insert_child(s, "trials", "search_id", search_id, trial_fields, trial_fields_len, t,
                              "recording a trial", e);
}

int store_search_trials(store *s, int64_t search_id, struct trial_row **out, sl_err *e)
{
    sqlite3_stmt *st = store_prepare_select(s, trial_fields, trial_fields_len, "FROM trials WHERE search_id = ? ORDER BY seq",
                                            "reading trials", e);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, search_id);
    return store_collect(s, st, trial_fields, trial_fields_len, sizeof **out, (void **)out, "reading trials", e);
}

static bool has_runs_table(store *s)
{
    sqlite3_stmt *st;
    bool yes = false;
    if (sqlite3_prepare_v2(store_db(s), "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'", -1, &st,
                           NULL) == SQLITE_OK) {
        yes = store_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    return yes;
}

/* A stored run as search, recommend and compare read it: successful runs
 * r with their config c, host h and workload w. */
#define SD(field, type, col, ...) REC_FIELD(struct stored_run, field, type, NULL, col, __VA_ARGS__)
static const struct rec_field stored_run_fields[] = {
    SD(uuid, REC_STR, "r.uuid"), SD(config_text, REC_STR, "c.text"), SD(kernel, REC_STR, "r.kernel"),
    SD(host_uuid, REC_STR, "r.host_uuid"), SD(hw_class, REC_STR, "r.hw_class"), SD(workload, REC_STR, "r.workload"),
    SD(device, REC_STR, "r.device_name"), SD(config_hash, REC_STR, "r.config_hash"),
    SD(workload_hash, REC_STR, "r.workload_hash"), SD(workload_text, REC_STR, "COALESCE(w.spec, '')"),
    METRIC_FIELDS_READ(struct stored_run)
    SD(host_cpu_model, REC_STR, "h.cpu_model"), SD(host_cpus, REC_INT, "h.cpus"),
    SD(host_mem_bytes, REC_I64, "h.mem_bytes", .unit = "bytes"),
};
#undef SD

int store_search_runs(store *s, const char *workload, stored_run_fn fn, void *arg, sl_err *e)
{
    if (!has_runs_table(s)) return 0;
    const size_t nf = sizeof stored_run_fields / sizeof stored_run_fields[0];
    sqlite3_stmt *st = store_prepare_select(
        s, stored_run_fields, nf,
        "FROM runs r JOIN configs c ON c.hash = r.config_hash LEFT JOIN hosts h ON h.uuid = r.host_uuid "
        "LEFT JOIN workloads w ON w.hash = r.workload_hash "
        "WHERE r.status IN ('ok', 'warm') AND (?1 IS NULL OR r.workload = ?1) ORDER BY r.id", "reading runs", e);
    if (!st) return -1;
    if (workload) sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 1);
    int n = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        struct stored_run r;
        store_read_fields(st, stored_run_fields, nf, &r);
        n++;
        if (fn(arg, &r) != 0) break;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) return store_fail(s, e, "reading runs");
    return n;
}

int store_search_durability(store *s, bool full, sl_err *e)
{
    /* In WAL mode NORMAL still survives a killed process (SIGKILL), which is
     * what resume needs; FULL (the default) also survives a power cut, which
     * the session snapshot needs before the first write. */
    const char *sql = full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL";
    if (sqlite3_exec(store_db(s), sql, NULL, NULL, NULL) != SQLITE_OK) return store_fail(s, e, "setting durability");
    return 0;
}
