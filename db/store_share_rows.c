/* store_share_rows — the rows of an untrusted database, checked against
 * everything the merge relies on before a single one is merged: sluice's
 * own constraints (NOT NULL, CHECK, keys) whatever schema the file declares,
 * metrics that are finite and physically possible, no text with control
 * characters, and no run that poses as this host. */
#include "store_share.h"
#include "esc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_share_corrupt(sqlite3 *db, const char *label, sl_err *e)
{
    /* Reading stopped (interrupted, an I/O error, no memory, busy) says
     * nothing about the file: it is not called corrupt then. */
    int rc = sqlite3_errcode(db) & 0xff;
    if (rc == SQLITE_INTERRUPT || rc == SQLITE_IOERR || rc == SQLITE_NOMEM || rc == SQLITE_BUSY || rc == SQLITE_FULL)
        return sl_fail(e, SL_EFAIL, "reading %s failed (%s): nothing merged, this database is as it was; run the merge "
                       "again", label, sqlite3_errmsg(db));
    return sl_fail(e, SL_EFAIL, "%s is corrupt or not a sluice database (%s): nothing merged", label, sqlite3_errmsg(db));
}

/* Whether the file has the table (col NULL) or the column: 1, 0, or -1 when
 * the question itself failed (then a check must not be skipped as if the
 * answer were no). */
static int file_has(sqlite3 *db, const char *table, const char *col)
{
    sqlite3_stmt *st;
    const char *sql = col ? "SELECT 1 FROM pragma_table_info(?1, 'main') WHERE name = ?2"
                          : "SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = ?1";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (col) sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
    int rc = store_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* --- sluice's constraints ----------------------------------------------- */

/* Whether the local table's column is a foreign key to a table that is not
 * shared (the merge writes NULL there): 1, 0, or -1 when it could not be
 * read. */
static int local_only_ref(store *s, const char *table, const char *col)
{
    sqlite3_stmt *st;
    int found = 0, rc = SQLITE_DONE;
    if (sqlite3_prepare_v2(store_db(s), "SELECT \"table\" FROM pragma_foreign_key_list(?1) WHERE \"from\" = ?2", -1, &st,
                           NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
    while (!found && (rc = store_step(st)) == SQLITE_ROW)
        found = !share_table_find((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return found ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* What of a long text or blob the copy keeps: every key, hash and
 * enumerated value of the schema is far shorter; histograms, series and
 * metrics JSON are not, and copying them whole made the check the slowest
 * part of a merge. */
#define COPY_TEXT_MAX 256

/* "INSERT INTO temp.T (cols) SELECT exprs FROM main.T s" for the file's
 * columns, each value as the merge computes it; NULL with e when the
 * columns could not all be read (the file's, or the local schema's). */
static char *copy_sql(store *s, sqlite3 *db, const struct share_table *t, const char *label, sl_err *e)
{
    size_t cap = 8192;
    char *cols = xmalloc(cap), *vals = xmalloc(cap);
    cols[0] = vals[0] = 0;
    sqlite3_stmt *st;
    int rc = SQLITE_ERROR;
    if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1, 'main')", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
        while ((rc = store_step(st)) == SQLITE_ROW) {
            const char *c = (const char *)sqlite3_column_text(st, 0);
            int ref;
            if (!c || strchr(c, '"') || strlen(cols) + strlen(c) + 8 > cap / 2) continue;
            size_t cl = strlen(cols), vl = strlen(vals);
            snprintf(cols + cl, cap - cl, "%s\"%s\"", cl ? ", " : "", c);
            if (t->private_col && strcmp(c, t->private_col) == 0)
                snprintf(vals + vl, cap - vl, "%s%s", vl ? ", " : "", t->private_expr);
            else if ((ref = local_only_ref(s, t->name, c)) < 0) {
                rc = SQLITE_ABORT;   /* the local schema could not be read */
                break;
            }
            else if (ref)
                snprintf(vals + vl, cap - vl, "%sNULL", vl ? ", " : "");
            else  /* long texts and blobs cut: a constraint looks at keys and short values, not at megabytes */
                snprintf(vals + vl, cap - vl, "%sCASE typeof(s.\"%s\") WHEN 'text' THEN substr(s.\"%s\", 1, %d) WHEN 'blob' THEN substr(s.\"%s\", 1, %d) ELSE s.\"%s\" END",
                         vl ? ", " : "", c, c, COPY_TEXT_MAX, c, COPY_TEXT_MAX, c);
        }
        sqlite3_finalize(st);
    }
    if (rc != SQLITE_DONE) {   /* a partial column list would check part of the rows */
        if (rc == SQLITE_ABORT) store_fail(s, e, "reading the local schema");
        else store_share_corrupt(db, label, e);
        free(cols);
        free(vals);
        return NULL;
    }
    size_t n = strlen(cols) + strlen(vals) + 256;
    char *sql = xmalloc(n);
    snprintf(sql, n, "INSERT INTO temp.\"%s\" (%s) SELECT %s FROM main.\"%s\" s", t->name, cols, vals, t->name);
    free(cols);
    free(vals);
    return sql;
}

/* The shared tables made again in the check's temp schema from the local
 * schema's own CREATE TABLE text, and the file's rows copied into them: a
 * file may declare its columns as it likes (without NOT NULL, without a
 * CHECK), but every row must be one that sluice's schema takes, and every
 * key between the copies must hold. The copy lives in this connection's
 * temp schema and is dropped with it: in a temporary file past an 8 MiB
 * cache, because the copy of a 100,000-run file is some 50 MB (with
 * temp_store=MEMORY the check of bench/merge's big object peaked at
 * 110 MB RSS, in a file at 32 MB, no slower). */
int store_share_check_constraints(store *s, sqlite3 *db, const char *label, sl_err *e)
{
    sqlite3_exec(db, "PRAGMA temp_store=FILE; PRAGMA temp.cache_size=-8192", NULL, NULL, NULL);
    for (int i = 0; i < share_table_count; i++) {
        const struct share_table *t = &share_tables[i];
        int has = file_has(db, t->name, NULL);
        if (has < 0) return store_share_corrupt(db, label, e);
        if (!has) continue;
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(store_db(s), "SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ?", -1,
                               &st, NULL) != SQLITE_OK) return store_fail(s, e, "reading the local schema");
        sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
        int step = store_step(st);
        if (step != SQLITE_ROW && step != SQLITE_DONE) {
            store_fail(s, e, "reading the local schema");
            sqlite3_finalize(st);
            return -1;
        }
        const char *create = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        if (!create || strncmp(create, "CREATE TABLE ", 13) != 0) {
            sqlite3_finalize(st);
            continue;  /* an older local schema: check_object has refused the file already */
        }
        size_t n = strlen(create) + 32;
        char *ddl = xmalloc(n);
        snprintf(ddl, n, "CREATE TEMP TABLE %s", create + 13);  /* security: OK because it is the local schema's own text */
        sqlite3_finalize(st);
        int rc = sqlite3_exec(db, ddl, NULL, NULL, NULL);
        free(ddl);
        if (rc != SQLITE_OK) return store_share_corrupt(db, label, e);
        char *copy = copy_sql(s, db, t, label, e);
        if (!copy) return -1;
        rc = sqlite3_exec(db, copy, NULL, NULL, NULL);
        free(copy);
        if (rc != SQLITE_OK)
            return sl_fail(e, SL_EFAIL, "%s has rows in %s that sluice's schema does not take (%s): it was not written by "
                           "sluice (or was altered); nothing merged", label, t->name, sqlite3_errmsg(db));
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA temp.foreign_key_check", -1, &st, NULL) != SQLITE_OK) return store_share_corrupt(db, label, e);
    int rc = store_step(st);
    if (rc == SQLITE_ROW)
        sl_fail(e, SL_EFAIL, "%s has rows in %s whose parent in %s is missing: nothing merged", label,
                (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 2));
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return -1;
    return rc == SQLITE_DONE ? 0 : store_share_corrupt(db, label, e);
}

/* --- metrics -------------------------------------------------------------- */

/* What a probe can measure at all: a value outside is a forgery or damage
 * (1e308 MB/s, inf, 'abc'), and would decide a recommendation alone. */
static const struct metric_bound {
    const char *col;
    double lo, hi;
    const char *unit;
} run_bounds[] = {
    { "rep", 0, 1e6, "" },
    { "wall_s", 0, 1e6, "s" },
    { "mb_s", 0, 1e7, "MB/s" },
    { "read_mb_s", 0, 1e7, "MB/s" },
    { "write_mb_s", 0, 1e7, "MB/s" },
    { "iops", 0, 1e10, "IOPS" },
    { "lat_mean_ns", 0, 1e13, "ns" },
    { "lat_p50_ns", 0, 1e13, "ns" },
    { "lat_p99_ns", 0, 1e13, "ns" },
    { "lat_p999_ns", 0, 1e13, "ns" },
    { "lat_max_ns", 0, 1e13, "ns" },
    { "cpu_usr_pct", 0, 1e5, "%" },
    { "cpu_sys_pct", 0, 1e5, "%" },
    { "ctx_switches", 0, 1e15, "" },
    { "dev_util_pct", 0, 1e3, "%" },
    { "dev_await_ms", 0, 1e9, "ms" },
    { "psi_some_pct", 0, 100, "%" },
    { "canary_max_ns", 0, 1e13, "ns" },
    { "canary_p99_ns", 0, 1e13, "ns" },
    { "stalls_100ms", 0, 1e9, "" },
    { "stalls_1s", 0, 1e9, "" },
    { "stalls_2s", 0, 1e9, "" },
    { "max_dirty_pages", 0, 1e13, "pages" },
    { "reached_dirty_threshold", 0, 1, "" },
};
#define NBOUNDS (sizeof run_bounds / sizeof run_bounds[0])

/* One scan of runs: the first value that is not a number within bounds. */
int store_share_check_metrics(sqlite3 *db, const char *label, sl_err *e)
{
    int has = file_has(db, "runs", NULL);
    if (has <= 0) return has < 0 ? store_share_corrupt(db, label, e) : 0;
    size_t cap = 16384, len = 0;
    char *sql = xmalloc(cap);
    len += (size_t)snprintf(sql + len, cap - len, "SELECT uuid, CASE");
    int terms = 0;
    for (size_t i = 0; i < NBOUNDS; i++) {
        const struct metric_bound *b = &run_bounds[i];
        if ((has = file_has(db, "runs", b->col)) < 0) {
            free(sql);
            return store_share_corrupt(db, label, e);
        }
        if (!has) continue;
        len += (size_t)snprintf(sql + len, cap - len, " WHEN \"%s\" IS NOT NULL AND NOT (typeof(\"%s\") IN ('integer', 'real') "
                                "AND \"%s\" BETWEEN %.17g AND %.17g) THEN %zu", b->col, b->col, b->col, b->lo, b->hi, i);
        terms++;
    }
    snprintf(sql + len, cap - len, " END AS bad FROM main.runs WHERE bad IS NOT NULL LIMIT 1");
    int rc = 0;
    sqlite3_stmt *st;
    if (terms && sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) rc = store_share_corrupt(db, label, e);
    else if (terms) {
        int step = store_step(st);
        if (step == SQLITE_ROW) {
            const struct metric_bound *b = &run_bounds[sqlite3_column_int(st, 1)];
            char uuid[40], value[48];
            esc_term((const char *)sqlite3_column_text(st, 0), uuid, sizeof uuid, 0);
            sqlite3_stmt *v;
            char q[128];
            snprintf(q, sizeof q, "SELECT quote(\"%s\") FROM main.runs WHERE uuid = ?", b->col);
            value[0] = 0;
            if (sqlite3_prepare_v2(db, q, -1, &v, NULL) == SQLITE_OK) {
                sqlite3_bind_text(v, 1, (const char *)sqlite3_column_text(st, 0), -1, SQLITE_TRANSIENT);
                if (store_step(v) == SQLITE_ROW) esc_term((const char *)sqlite3_column_text(v, 0), value, sizeof value, 0);
                sqlite3_finalize(v);
            }
            rc = sl_fail(e, SL_EFAIL, "%s: run %s has %s = %s, not a finite number from %g to %g%s%s: a probe cannot "
                         "measure that (a forged or damaged file); nothing merged", label, uuid, b->col, value, b->lo,
                         b->hi, b->unit[0] ? " " : "", b->unit);
        } else if (step != SQLITE_DONE) {
            rc = store_share_corrupt(db, label, e);
        }
        sqlite3_finalize(st);
    }
    free(sql);
    return rc;
}

/* --- this host ------------------------------------------------------------ */

/* This host's UUID is public (it names this host's pushed object): runs
 * that carry it are this host's own only if they are already here, as they
 * are when the file is this host's own earlier push coming back. Any other
 * would count as measured on this very machine in recommend. */
int store_share_check_claims(store *s, sqlite3 *db, const char *my_uuid, const char *label, sl_err *e)
{
    if (!my_uuid || !my_uuid[0]) return 0;
    int has = file_has(db, "runs", NULL);
    if (has <= 0) return has < 0 ? store_share_corrupt(db, label, e) : 0;
    sqlite3_stmt *st, *local;
    if (sqlite3_prepare_v2(db, "SELECT uuid FROM main.runs WHERE host_uuid = ?", -1, &st, NULL) != SQLITE_OK)
        return store_share_corrupt(db, label, e);
    if (sqlite3_prepare_v2(store_db(s), "SELECT 1 FROM main.runs WHERE uuid = ? AND host_uuid = ?", -1, &local, NULL)
        != SQLITE_OK) {
        sqlite3_finalize(st);
        return store_fail(s, e, "reading this host's runs");
    }
    sqlite3_bind_text(st, 1, my_uuid, -1, SQLITE_STATIC);
    int rc, strangers = 0;
    char first[40] = "";
    while ((rc = store_step(st)) == SQLITE_ROW) {
        const char *run = (const char *)sqlite3_column_text(st, 0);
        sqlite3_reset(local);
        sqlite3_bind_text(local, 1, run ? run : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(local, 2, my_uuid, -1, SQLITE_STATIC);
        if (store_step(local) == SQLITE_ROW) continue;
        if (!strangers++) esc_term(run, first, sizeof first, 0);
    }
    sqlite3_finalize(local);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_share_corrupt(db, label, e);
    if (strangers)
        return sl_fail(e, SL_EFAIL, "%s has %d run%s (first %s) claiming this host (%s) that this host never recorded: "
                       "only this host's own earlier push may bring runs under its name; nothing merged", label, strangers,
                       strangers == 1 ? "" : "s", first, my_uuid);
    return 0;
}
