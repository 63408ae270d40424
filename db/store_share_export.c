/* store_share_export — a snapshot of the store fit to leave this machine:
 * consistent (online backup API), without local machine state, optionally
 * only this host's rows, in rollback-journal mode and vacuumed. */
#include "db/store_share.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dst_fail(sqlite3 *db, const char *path, const char *what, sl_err *e)
{
    return sl_fail(e, SL_EFAIL, "snapshot %s: %s: %s", path, what, sqlite3_errmsg(db));
}

static int run(sqlite3 *db, const char *path, const char *sql, sl_err *e)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        sl_fail(e, SL_EFAIL, "snapshot %s: %s: %s", path, sql, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int backup(store *s, sqlite3 *dst, const char *path, sl_err *e)
{
    sqlite3_backup *b = sqlite3_backup_init(dst, "main", store_db(s), "main");
    if (!b) return dst_fail(dst, path, "starting the backup", e);
    /* One step: the whole copy is taken inside one read transaction. */
    int rc = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) return dst_fail(dst, path, "copying the database", e);
    return 0;
}

/* Rows whose parent went (another host's) go too; nullable references to
 * them, and every reference to a local-only table, become NULL. */
static int cut_references(sqlite3 *db, const char *path, const struct share_table *t, bool only_host, sl_err *e)
{
    sqlite3_stmt *st;
    const char *q = "SELECT f.\"from\", f.\"table\", coalesce(f.\"to\", 'id'), c.\"notnull\" "
                    "FROM pragma_foreign_key_list(?1) f JOIN pragma_table_info(?1) c ON c.name = f.\"from\"";
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) return dst_fail(db, path, "foreign keys", e);
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
    int rc = 0, step;
    while (rc == 0 && (step = store_step(st)) == SQLITE_ROW) {
        const char *col = (const char *)sqlite3_column_text(st, 0), *parent = (const char *)sqlite3_column_text(st, 1);
        const char *to = (const char *)sqlite3_column_text(st, 2);
        bool notnull = sqlite3_column_int(st, 3), shared = share_table_find(parent) != NULL;
        char sql[512];
        if (!shared && notnull)
            rc = sl_fail(e, SL_EFAIL, "snapshot: %s.%s must reference %s, which is local to this machine: "
                         "this table cannot be shared (fix db/store_share_tables.c)", t->name, col, parent);
        else if (!shared)
            snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = NULL", t->name, col);
        else if (only_host && strcmp(parent, "hosts") == 0)
            /* --mine: a row that does not name this host is not this host's. */
            snprintf(sql, sizeof sql, "DELETE FROM \"%s\" WHERE \"%s\" IS NULL OR \"%s\" NOT IN (SELECT \"%s\" "
                     "FROM hosts)", t->name, col, col, to);
        else if (notnull)
            snprintf(sql, sizeof sql, "DELETE FROM \"%s\" WHERE \"%s\" NOT IN (SELECT \"%s\" FROM \"%s\")", t->name,
                     col, to, parent);
        else
            snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = NULL WHERE \"%s\" NOT IN (SELECT \"%s\" FROM \"%s\")",
                     t->name, col, col, to, parent);
        if (rc == 0) rc = run(db, path, sql, e);
    }
    sqlite3_finalize(st);
    return rc;
}

/* sql (fmt with %s) for every name q lists from sqlite_schema, but those
 * keep() wants kept; the names are read first, so the statements do not
 * change the schema being listed. A listing that fails or that holds more
 * names than expected fails: a table left unemptied would leave this
 * machine. */
static int for_each_name(sqlite3 *db, const char *path, const char *q, bool (*keep)(const char *name), const char *fmt,
                         const char *what, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) return dst_fail(db, path, what, e);
    char names[64][128];
    int n = 0, step;
    while ((step = store_step(st)) == SQLITE_ROW && n < 64) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (!keep || !keep(name)) snprintf(names[n++], sizeof names[0], "%s", name);
    }
    if (step != SQLITE_DONE) {
        if (step == SQLITE_ROW) sl_fail(e, SL_EFAIL, "snapshot %s: %s: more than 64", path, what);
        else dst_fail(db, path, what, e);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    for (int i = 0; i < n; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, fmt, names[i]);
        if (run(db, path, sql, e) < 0) return -1;
    }
    return 0;
}

static bool shared_table(const char *name) { return share_table_find(name) != NULL; }

/* Every row of a table that is not shared (sessions, snapshots, forms:
 * this machine's own state) goes. */
static int empty_local_tables(sqlite3 *db, const char *path, sl_err *e)
{
    return for_each_name(db, path, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' "
                         "ESCAPE '\\'", shared_table, "DELETE FROM \"%s\"", "listing tables", e);
}

/* Secondary indexes (CREATE INDEX, not UNIQUE constraints) serve queries on
 * a store, not a snapshot: the merge reads every row of it anyway. Left out,
 * the file is smaller and its integrity_check, which verifies every index
 * entry against its row, has fewer entries to verify (bench/merge times the
 * checks and the merge together, not this alone). */
static int drop_indexes(sqlite3 *db, const char *path, sl_err *e)
{
    return for_each_name(db, path, "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL", NULL,
                         "DROP INDEX \"%s\"", "listing indexes", e);
}

/* The host and its disks go into the snapshot, not into the store: a push
 * that fails afterwards has changed nothing (src/share/sync.c records them
 * in the store once an upload succeeded). Before the scrub, so that the
 * host's machine_key is replaced like every other. */
static int record_host(sqlite3 *db, const char *path, const struct host_record *rec, sl_err *e)
{
    store *w = store_wrap(db, path);
    int rc = store_host_record(w, rec, e);
    store_unwrap(w);
    return rc < 0 ? sl_prefix(e, SL_EFAIL, "snapshot %s: recording this host", path) : 0;
}

static int scrub(sqlite3 *db, const char *path, const char *only_host_uuid, const struct host_record *rec,
                 sl_err *e)
{
    if (run(db, path, "PRAGMA journal_mode=DELETE; PRAGMA foreign_keys=OFF; BEGIN", e) < 0) return -1;
    int rc = rec ? record_host(db, path, rec, e) : 0;
    if (rc == 0) rc = empty_local_tables(db, path, e);
    if (rc == 0 && only_host_uuid) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, "DELETE FROM hosts WHERE uuid IS NOT ?", -1, &st, NULL) != SQLITE_OK)
            rc = dst_fail(db, path, "keeping this host", e);
        else {
            sqlite3_bind_text(st, 1, only_host_uuid, -1, SQLITE_STATIC);
            if (store_step(st) != SQLITE_DONE) rc = dst_fail(db, path, "keeping this host", e);
            sqlite3_finalize(st);
        }
    }
    /* Parents come first in share_tables, so one pass reaches every orphan. */
    for (int i = 0; rc == 0 && i < share_table_count; i++) rc = cut_references(db, path, &share_tables[i], only_host_uuid != NULL, e);
    for (int i = 0; rc == 0 && i < share_table_count; i++) {
        const struct share_table *t = &share_tables[i];
        if (!t->private_col) continue;
        char sql[512];
        snprintf(sql, sizeof sql, "UPDATE \"%s\" AS s SET \"%s\" = %s", t->name, t->private_col, t->private_expr);
        rc = run(db, path, sql, e);
    }
    if (rc < 0) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    if (run(db, path, "COMMIT", e) < 0) return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &st, NULL) != SQLITE_OK)
        return dst_fail(db, path, "checking references", e);
    int step = store_step(st);
    if (step == SQLITE_ROW)
        rc = sl_fail(e, SL_EFAIL, "snapshot %s: table %s still references a row that is not exported (a bug)", path,
                     (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc < 0) return -1;
    if (drop_indexes(db, path, e) < 0) return -1;
    /* VACUUM drops the freed pages: what was deleted does not travel. */
    return run(db, path, "VACUUM", e);
}

int store_share_export(store *s, const char *out_path, const char *only_host_uuid, const struct host_record *rec,
                       sl_err *e)
{
    sqlite3 *dst = NULL;
    if (sqlite3_open_v2(out_path, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL)
        != SQLITE_OK) {
        sl_fail(e, SL_EFAIL, "snapshot %s: %s", out_path, dst ? sqlite3_errmsg(dst) : "cannot create");
        sqlite3_close(dst);
        return -1;
    }
    int rc = backup(s, dst, out_path, e);
    if (rc == 0) rc = scrub(dst, out_path, only_host_uuid, rec, e);
    if (sqlite3_close(dst) != SQLITE_OK && rc == 0) rc = sl_fail(e, SL_EFAIL, "snapshot %s: closing", out_path);
    return rc < 0 ? sl_suffix(e, "The snapshot was not finished, so nothing of it left this machine; run the command "
                              "again") : rc;
}

int store_share_run_classes(store *s, const char *host_uuid, char ***out, sl_err *e)
{
    *out = NULL;
    sqlite3_stmt *st;
    /* Until the runs table exists there are no measured classes. */
    const char *probe = "SELECT 1 FROM pragma_table_info('runs') WHERE name = 'device_id'";
    if (sqlite3_prepare_v2(store_db(s), probe, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "reading runs");
    bool have_runs = store_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!have_runs) return 0;
    const char *q = "SELECT DISTINCT d.hw_class FROM runs r JOIN devices d ON d.id = r.device_id "
                    "JOIN hosts h ON h.id = d.host_id WHERE h.uuid = ? ORDER BY 1";
    if (sqlite3_prepare_v2(store_db(s), q, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "reading runs");
    sqlite3_bind_text(st, 1, host_uuid, -1, SQLITE_STATIC);
    int n = 0, cap = 0, rc;
    char **v = NULL;
    while ((rc = store_step(st)) == SQLITE_ROW && n < 256) {
        v = xgrow(v, n, &cap, sizeof *v, 4);
        v[n++] = xstrdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        share_classes_free(v, n);
        return store_fail(s, e, "reading runs");
    }
    *out = v;
    return n;
}

/* A snapshot file store_share_export wrote, opened read-only and wrapped
 * as a store; NULL with e. Release with snapshot_close. */
static store *snapshot_open(const char *path, sl_err *e)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
        sl_fail(e, SL_EFAIL, "snapshot %s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return NULL;
    }
    return store_wrap(db, path);
}

static void snapshot_close(store *w)
{
    sqlite3 *db = store_db(w);
    store_unwrap(w);
    sqlite3_close(db);
}

int store_share_snapshot_classes(const char *path, const char *host_uuid, char ***out, sl_err *e)
{
    store *w = snapshot_open(path, e);
    if (!w) return -1;
    int n = store_share_run_classes(w, host_uuid, out, e);
    snapshot_close(w);
    return n;
}

int store_share_snapshot_digests(const char *path, struct share_digest **out, sl_err *e)
{
    store *w = snapshot_open(path, e);
    if (!w) return -1;
    int n = store_share_digests(w, out, e);
    snapshot_close(w);
    return n;
}

void share_classes_free(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

int store_share_host_uuid(store *s, const struct host_info *h, char uuid[37], sl_err *e)
{
    const char *key = h->machine_id[0] ? h->machine_id : h->hostname;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "SELECT uuid FROM hosts WHERE machine_key = ?", -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "finding this host");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int rc = store_step(st);
    if (rc == SQLITE_ROW) snprintf(uuid, 37, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return 0;
    if (rc == SQLITE_DONE) return 1;
    return store_fail(s, e, "finding this host");
}
