/* store_search — SQL for searches, trials, and reading stored runs. */
#include "store_search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bind_real_or_null(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v)) sqlite3_bind_null(st, i);
    else sqlite3_bind_double(st, i, v);
}

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int store_search_create(store *s, struct search_row *r, sl_err *e)
{
    store_uuid(r->uuid);
    const char *sql =
        "INSERT INTO searches (uuid, host_id, session_id, space, device, hw_class, kernel, workload, objective, "
        "strategy, evaluator, budget_evals, budget_ms, seed, spec_json, state, workload_hash, workload_text, sizing_note, "
        "threshold_capped) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, 'running', ?16, ?17, ?18, ?19) "
        "RETURNING id, started";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "recording the search");
    sqlite3_bind_text(st, 1, r->uuid, -1, SQLITE_STATIC);
    if (r->host_id > 0) sqlite3_bind_int64(st, 2, r->host_id); else sqlite3_bind_null(st, 2);
    if (r->session_id > 0) sqlite3_bind_int64(st, 3, r->session_id); else sqlite3_bind_null(st, 3);
    sqlite3_bind_text(st, 4, r->space, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, r->device, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, r->hw_class, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, r->kernel, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, r->workload, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 9, r->objective, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 10, r->strategy, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 11, r->evaluator, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 12, r->budget_evals);
    sqlite3_bind_int64(st, 13, r->budget_ms);
    sqlite3_bind_int64(st, 14, r->seed);
    sqlite3_bind_text(st, 15, r->spec_json, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 16, r->workload_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 17, r->workload_text, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 18, r->sizing_note, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 19, r->threshold_capped);
    int rc = store_step(st);
    if (rc == SQLITE_ROW) {
        r->id = sqlite3_column_int64(st, 0);
        COPY_TEXT(r->started, st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return store_fail(s, e, "recording the search");
    snprintf(r->state, sizeof r->state, "running");
    return 0;
}

int store_search_update(store *s, const struct search_row *r, const char *result_json, sl_err *e)
{
    const char *sql =
        "UPDATE searches SET state = ?2, session_id = ?3, applied = ?4, verdict = ?5, winner_text = ?6, "
        "winner_hash = ?7, improvement = ?8, ci_lo = ?9, ci_hi = ?10, p_holm = ?11, n_winner = ?12, "
        "n_baseline = ?13, result_json = COALESCE(?14, result_json), confirm_outcome = ?15, confirm_reps = ?16, "
        "explore_improvement = ?17, shrinkage = ?18, "
        "ended = CASE WHEN ?2 = 'running' THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%SZ', 'now') END WHERE id = ?1";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "updating the search");
    sqlite3_bind_int64(st, 1, r->id);
    sqlite3_bind_text(st, 2, r->state, -1, SQLITE_STATIC);
    if (r->session_id > 0) sqlite3_bind_int64(st, 3, r->session_id); else sqlite3_bind_null(st, 3);
    sqlite3_bind_int(st, 4, r->applied);
    sqlite3_bind_text(st, 5, r->verdict, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, r->winner_text, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, r->winner_hash, -1, SQLITE_STATIC);
    bind_real_or_null(st, 8, r->improvement);
    bind_real_or_null(st, 9, r->ci_lo);
    bind_real_or_null(st, 10, r->ci_hi);
    bind_real_or_null(st, 11, r->p_holm);
    sqlite3_bind_int(st, 12, r->n_winner);
    sqlite3_bind_int(st, 13, r->n_baseline);
    if (result_json) sqlite3_bind_text(st, 14, result_json, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 14);
    sqlite3_bind_text(st, 15, r->confirm_outcome, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 16, r->confirm_reps);
    bind_real_or_null(st, 17, r->explore_improvement);
    bind_real_or_null(st, 18, r->shrinkage);
    int rc = store_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "updating the search");
    return 0;
}

static const char search_cols[] =
    "SELECT s.id, s.uuid, COALESCE(s.host_id, 0), COALESCE(s.session_id, 0), s.space, s.device, s.hw_class, s.kernel, "
    "s.workload, s.objective, s.strategy, s.evaluator, s.budget_evals, s.budget_ms, s.seed, s.spec_json, s.state, "
    "s.applied, s.verdict, s.winner_text, s.winner_hash, s.improvement, s.ci_lo, s.ci_hi, s.p_holm, s.n_winner, "
    "s.n_baseline, s.started, COALESCE(s.ended, ''), COALESCE(h.uuid, ''), s.workload_hash, s.workload_text, "
    "s.sizing_note, s.threshold_capped, s.confirm_outcome, s.confirm_reps, s.explore_improvement, s.shrinkage "
    "FROM searches s LEFT JOIN hosts h ON h.id = s.host_id ";

static void search_from(sqlite3_stmt *st, struct search_row *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    COPY_TEXT(r->uuid, st, 1);
    r->host_id = sqlite3_column_int64(st, 2);
    r->session_id = sqlite3_column_int64(st, 3);
    COPY_TEXT(r->space, st, 4);
    COPY_TEXT(r->device, st, 5);
    COPY_TEXT(r->hw_class, st, 6);
    COPY_TEXT(r->kernel, st, 7);
    COPY_TEXT(r->workload, st, 8);
    COPY_TEXT(r->objective, st, 9);
    COPY_TEXT(r->strategy, st, 10);
    COPY_TEXT(r->evaluator, st, 11);
    r->budget_evals = sqlite3_column_int64(st, 12);
    r->budget_ms = sqlite3_column_int64(st, 13);
    r->seed = sqlite3_column_int64(st, 14);
    COPY_TEXT(r->spec_json, st, 15);
    COPY_TEXT(r->state, st, 16);
    r->applied = sqlite3_column_int(st, 17);
    COPY_TEXT(r->verdict, st, 18);
    COPY_TEXT(r->winner_text, st, 19);
    COPY_TEXT(r->winner_hash, st, 20);
    r->improvement = col_real(st, 21);
    r->ci_lo = col_real(st, 22);
    r->ci_hi = col_real(st, 23);
    r->p_holm = col_real(st, 24);
    r->n_winner = sqlite3_column_int(st, 25);
    r->n_baseline = sqlite3_column_int(st, 26);
    COPY_TEXT(r->started, st, 27);
    COPY_TEXT(r->ended, st, 28);
    COPY_TEXT(r->host_uuid, st, 29);
    COPY_TEXT(r->workload_hash, st, 30);
    COPY_TEXT(r->workload_text, st, 31);
    COPY_TEXT(r->sizing_note, st, 32);
    r->threshold_capped = sqlite3_column_int(st, 33);
    COPY_TEXT(r->confirm_outcome, st, 34);
    r->confirm_reps = sqlite3_column_int(st, 35);
    r->explore_improvement = col_real(st, 36);
    r->shrinkage = col_real(st, 37);
}

int store_search_get(store *s, const char *prefix, struct search_row *out, sl_err *e)
{
    char sql[sizeof search_cols + 128];
    snprintf(sql, sizeof sql, "%s WHERE s.uuid LIKE ?1 || '%%' ORDER BY s.id DESC LIMIT 2", search_cols);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "reading searches");
    sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
    int n = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        if (n == 0) search_from(st, out);
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "reading searches");
    if (n == 0) return sl_fail(e, SL_EUSAGE, "no search %s in %s (see 'sluice search --list')", prefix, store_path(s));
    if (n > 1) return sl_fail(e, SL_EUSAGE, "search id %s is ambiguous: give more of its UUID", prefix);
    return 0;
}

int store_search_list(store *s, const char *workload, struct search_row **out, sl_err *e)
{
    char sql[sizeof search_cols + 128];
    snprintf(sql, sizeof sql, "%s WHERE (?1 IS NULL OR s.workload = ?1) ORDER BY s.id DESC", search_cols);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "listing searches");
    if (workload) sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 1);
    struct search_row *v = NULL;
    int n = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        v = xrealloc(v, sizeof *v * (size_t)(n + 1));
        search_from(st, &v[n++]);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) { free(v); return store_fail(s, e, "listing searches"); }
    *out = v;
    return n;
}

int store_search_trial_add(store *s, int64_t search_id, const struct trial_row *t, sl_err *e)
{
    const char *sql = "INSERT INTO trials (search_id, seq, role, config_hash, config_text, score, metrics_json, "
                      "run_uuid, elapsed_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "recording a trial");
    sqlite3_bind_int64(st, 1, search_id);
    sqlite3_bind_int(st, 2, t->seq);
    sqlite3_bind_text(st, 3, t->role, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, t->config_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, t->config_text, -1, SQLITE_STATIC);
    bind_real_or_null(st, 6, t->score);
    sqlite3_bind_text(st, 7, t->metrics_json, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, t->run_uuid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, t->elapsed_ms);
    int rc = store_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "recording a trial");
    return 0;
}

int store_search_trials(store *s, int64_t search_id, struct trial_row **out, sl_err *e)
{
    const char *sql = "SELECT seq, role, config_hash, config_text, score, metrics_json, run_uuid, elapsed_ms "
                      "FROM trials WHERE search_id = ? ORDER BY seq";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "reading trials");
    sqlite3_bind_int64(st, 1, search_id);
    struct trial_row *v = NULL;
    int n = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        v = xrealloc(v, sizeof *v * (size_t)(n + 1));
        struct trial_row *t = &v[n++];
        memset(t, 0, sizeof *t);
        t->seq = sqlite3_column_int(st, 0);
        COPY_TEXT(t->role, st, 1);
        COPY_TEXT(t->config_hash, st, 2);
        COPY_TEXT(t->config_text, st, 3);
        t->score = col_real(st, 4);
        COPY_TEXT(t->metrics_json, st, 5);
        COPY_TEXT(t->run_uuid, st, 6);
        t->elapsed_ms = sqlite3_column_int64(st, 7);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) { free(v); return store_fail(s, e, "reading trials"); }
    *out = v;
    return n;
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

int store_search_runs(store *s, const char *workload, stored_run_fn fn, void *arg, sl_err *e)
{
    if (!has_runs_table(s)) return 0;
    const char *sql =
        "SELECT r.uuid, c.text, r.kernel, r.host_uuid, r.hw_class, r.workload, r.device_name, r.mb_s, r.wall_s, "
        "r.cpu_usr_pct + r.cpu_sys_pct, r.lat_p99_ns, r.canary_p99_ns, r.stalls_100ms, r.config_hash, "
        "h.cpu_model, h.cpus, h.mem_bytes, json_extract(r.metrics_json, '$.reader.p50_ns'), "
        "json_extract(r.metrics_json, '$.reader.p99_ns'), json_extract(r.metrics_json, '$.reader.max_ns'), "
        "json_extract(r.metrics_json, '$.ops.write.lat_ns.p99'), r.psi_some_pct, "
        "json_extract(r.metrics_json, '$.psi_io.full_pct'), "
        "json_extract(r.metrics_json, '$.canary.sleep_max_ns'), r.workload_hash, COALESCE(w.spec, '') "
        "FROM runs r JOIN configs c ON c.hash = r.config_hash LEFT JOIN hosts h ON h.uuid = r.host_uuid "
        "LEFT JOIN workloads w ON w.hash = r.workload_hash "
        "WHERE r.status IN ('ok', 'warm') AND (?1 IS NULL OR r.workload = ?1) ORDER BY r.id";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "reading runs");
    if (workload) sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 1);
    int n = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        struct stored_run r = {
            .uuid = (const char *)sqlite3_column_text(st, 0),
            .config_text = (const char *)sqlite3_column_text(st, 1),
            .kernel = (const char *)sqlite3_column_text(st, 2),
            .host_uuid = (const char *)sqlite3_column_text(st, 3),
            .hw_class = (const char *)sqlite3_column_text(st, 4),
            .workload = (const char *)sqlite3_column_text(st, 5),
            .device = (const char *)sqlite3_column_text(st, 6),
            .mb_s = sqlite3_column_double(st, 7),
            .wall_s = sqlite3_column_double(st, 8),
            .cpu_pct = sqlite3_column_double(st, 9),
            .p99_ns = col_real(st, 10),
            .canary_p99_ns = col_real(st, 11),
            .stalls_100ms = col_real(st, 12),
            .config_hash = (const char *)sqlite3_column_text(st, 13),
            .host_cpu_model = (const char *)sqlite3_column_text(st, 14),
            .host_cpus = sqlite3_column_int(st, 15),
            .host_mem_bytes = sqlite3_column_int64(st, 16),
            .reader_p50_ns = col_real(st, 17),
            .reader_p99_ns = col_real(st, 18),
            .reader_max_ns = col_real(st, 19),
            .write_p99_ns = col_real(st, 20),
            .psi_some_pct = col_real(st, 21),
            .psi_full_pct = col_real(st, 22),
            .sleep_max_ns = col_real(st, 23),
            .workload_hash = (const char *)sqlite3_column_text(st, 24),
            .workload_text = (const char *)sqlite3_column_text(st, 25),
        };
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
