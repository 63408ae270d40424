/* store_share_check — treat a downloaded database as hostile until proven
 * otherwise (https://sqlite.org/security.html: defensive mode, untrusted
 * schema, integrity check) before a single row of it is read. */
#include "db/store_share.h"
#include "db/store_migrations.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int latest_version(void)
{
    int v = 0;
    for (int i = 0; i < store_migration_count; i++)
        if (store_migrations[i].version > v) v = store_migrations[i].version;
    return v;
}

/* The header, and WAL files turned into rollback-journal ones: the file
 * is checked and attached alone, without a -wal or -shm beside it. */
int store_share_header(const char *path, const char *label, sl_err *e)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return sl_fail_errno(e, SL_EFAIL, errno, "%s", path);
    unsigned char h[100];
    ssize_t n = pread(fd, h, sizeof h, 0);
    int rc = 0;
    if (n != (ssize_t)sizeof h || memcmp(h, "SQLite format 3", 16) != 0)
        rc = sl_fail(e, SL_EFAIL, "%s is not an SQLite database (bad header): nothing merged", label);
    else if ((h[18] == 2 || h[19] == 2)) {
        static const unsigned char rollback[2] = { 1, 1 };
        if (pwrite(fd, rollback, 2, 18) != 2) rc = sl_fail_errno(e, SL_EFAIL, errno, "writing %s", path);
    }
    close(fd);
    return rc;
}

/* The file as "main" of a new connection that trusts nothing in it, read
 * only. Its rows are checked by queries over it (store_share_check_constraints),
 * read page by page, so a file of 100,000 runs is checked in a few MB of
 * memory. */
int store_share_open_untrusted(const char *path, const char *label, bool writable, sqlite3 **out, sl_err *e)
{
    sqlite3 *db = NULL;
    int flags = (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOFOLLOW;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        sl_fail(e, SL_EFAIL, "%s: %s", label, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return -1;
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, NULL);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 16 << 20);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
    if (store_share_hash_register(db) != 0) {
        sl_fail(e, SL_EFAIL, "%s could not be checked (%s): nothing merged", label, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    if (sqlite3_exec(db, "PRAGMA trusted_schema=OFF; PRAGMA cell_size_check=ON", NULL, NULL, NULL) != SQLITE_OK) {
        sl_fail(e, SL_EFAIL, "%s is not a usable SQLite database (%s): nothing merged", label, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    *out = db;
    return 0;
}

static int check_version(sqlite3 *db, const char *label, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) return store_share_corrupt(db, label, e);
    int rc = store_step(st), v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return store_share_corrupt(db, label, e);
    if (v < 1) return sl_fail(e, SL_EFAIL, "%s is not a sluice database (schema version %d): nothing merged", label, v);
    if (v > latest_version())
        return sl_fail(e, SL_EFAIL, "%s has schema version %d, newer than this sluice understands (%d): "
                       "upgrade sluice here before merging it; nothing merged", label, v, latest_version());
    return 0;
}

/* The local object of that name: its type and SQL (both "" when absent). */
/* This database's own schema object `name`: 1 found (type and sql set), 0
 * none, -1 when our schema could not be read (an I/O error, an interrupted
 * step): then nothing may be said about the file. */
static int local_object(store *s, const char *name, char *type, size_t tn, char **sql)
{
    sqlite3_stmt *st;
    *type = 0;
    *sql = NULL;
    if (sqlite3_prepare_v2(store_db(s), "SELECT type, sql FROM main.sqlite_schema WHERE name = ?", -1, &st, NULL)
        != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = store_step(st), found = 0;
    if (rc == SQLITE_ROW) {
        snprintf(type, tn, "%s", (const char *)sqlite3_column_text(st, 0));
        const char *q = (const char *)sqlite3_column_text(st, 1);
        *sql = xstrdup(q ? q : "");
        found = 1;
    } else if (rc != SQLITE_DONE) {
        found = -1;
    }
    sqlite3_finalize(st);
    return found;
}

/* Our own schema could not be read: the file is not to blame. */
static int own_schema_unreadable(store *s, const char *label, sl_err *e)
{
    return sl_fail(e, SL_EFAIL, "%s: reading this database's own schema (%s) failed, so %s could not be checked: "
                   "nothing merged; run the command again", store_path(s), sqlite3_errmsg(store_db(s)), label);
}

/* Every column of the file's table is one of the local table's: 0, or -1
 * with e. The local columns are read once (pragma_table_info prepares a
 * statement of its own at every call). */
static int check_columns(store *s, sqlite3 *db, const char *table, const char *label, sl_err *e)
{
    struct share_names local;
    if (store_share_names_read(store_db(s), "SELECT name FROM pragma_table_info(?1)", table, &local) < 0)
        return store_fail(s, e, "reading the local schema");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?)", -1, &st, NULL) != SQLITE_OK) {
        store_share_names_free(&local);
        return store_share_corrupt(db, label, e);
    }
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc, bad = 0;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        const char *col = (const char *)sqlite3_column_text(st, 0);
        if (!store_share_names_has(&local, col ? col : "")) {
            bad = sl_fail(e, SL_EFAIL, "%s has a column %s.%s that this sluice's schema lacks: nothing merged",
                          label, table, col ? col : "?");
            break;
        }
    }
    sqlite3_finalize(st);
    store_share_names_free(&local);
    if (bad) return -1;
    return rc == SQLITE_DONE ? 0 : store_share_corrupt(db, label, e);
}

/* One schema object of the untrusted file against ours. */
static int check_object(store *s, sqlite3 *db, const char *type, const char *name, const char *tbl,
                        const char *sql, const char *label, sl_err *e)
{
    char ltype[16];
    char *lsql;
    int rc = 0;
    if (strcmp(type, "table") == 0) {
        if (strncmp(name, "sqlite_", 7) == 0) return 0;  /* sqlite_sequence, sqlite_stat1 */
        if (local_object(s, name, ltype, sizeof ltype, &lsql) < 0) return own_schema_unreadable(s, label, e);
        if (strcmp(ltype, "table") != 0 || strncmp(sql, "CREATE TABLE", 12) != 0)
            rc = sl_fail(e, SL_EFAIL, "%s has a table \"%s\" that is not part of sluice's schema: it was not written "
                         "by sluice (or was altered); nothing merged", label, name);
        else if (share_table_find(name))
            rc = check_columns(s, db, name, label, e);
        free(lsql);
        return rc;
    }
    if (strcmp(type, "index") == 0) {
        if (local_object(s, tbl, ltype, sizeof ltype, &lsql) < 0) return own_schema_unreadable(s, label, e);
        if (strcmp(ltype, "table") != 0)
            rc = sl_fail(e, SL_EFAIL, "%s has an index \"%s\" on an unknown table: nothing merged", label, name);
        free(lsql);
        return rc;
    }
    /* Triggers and views run code: only our own, to the letter, may come along. */
    if (local_object(s, name, ltype, sizeof ltype, &lsql) < 0) return own_schema_unreadable(s, label, e);
    if (strcmp(ltype, type) != 0 || !lsql || strcmp(lsql, sql) != 0)
        rc = sl_fail(e, SL_EFAIL, "%s carries a %s \"%s\" that is not sluice's: refusing a database that brings "
                     "its own code; nothing merged", label, type, name);
    free(lsql);
    return rc;
}

static int check_schema(store *s, sqlite3 *db, const char *label, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema", -1, &st, NULL)
        != SQLITE_OK) return store_share_corrupt(db, label, e);
    int rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        const char *f[4];
        for (int i = 0; i < 4; i++) {
            f[i] = (const char *)sqlite3_column_text(st, i);
            if (!f[i]) f[i] = "";
        }
        if (check_object(s, db, f[0], f[1], f[2], f[3], label, e) < 0) {
            sqlite3_finalize(st);
            return -1;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_share_corrupt(db, label, e);
}

/* PRAGMA quick_check says "ok" on one row. It reads every page and checks
 * the b-trees, their cells and records, page accounting and the file's own
 * NOT NULLs: all SQLite needs to read the file safely (sqlite.org/
 * security.html names either check). integrity_check adds the cross-check
 * of every index entry against its row (0.69 s against 0.40 s for
 * bench/merge's 100,000-run object); nothing here trusts the file's
 * indexes with more than speed: they serve lookups (the identity map, the
 * UNIQUE groups), and an index that lies can at most make a row of the
 * file look new or unique, which the local schema's own unique indexes
 * then keep out of the store (counted skipped). The file's foreign keys
 * are not asked (foreign_key_check): the keys the merge follows are the
 * local schema's, checked with the rows (store_share_check_constraints). */
static int check_integrity(sqlite3 *db, const char *label, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check(5)", -1, &st, NULL) != SQLITE_OK) return store_share_corrupt(db, label, e);
    int rc = store_step(st);
    const char *r = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return store_share_corrupt(db, label, e);
    }
    if (!r || strcmp(r, "ok") != 0) {
        sl_fail(e, SL_EFAIL, "%s fails the integrity check (%.200s): it is damaged (a truncated or corrupted "
                "download?); nothing merged", label, r ? r : "?");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

/* Runs posing as this host (db/store_share_rows.c); a store that does not
 * know this host yet has no UUID anyone could claim. */
static int check_this_host(store *s, sqlite3 *db, const char *label, sl_err *e)
{
    struct host_info h;
    char uuid[37];
    if (host_read(&h, NULL) < 0 || store_share_host_uuid(s, &h, uuid, NULL) != 0) return 0;
    return store_share_check_claims(s, db, uuid, label, e);
}

int store_share_check(store *s, const char *path, const char *label, sl_err *e)
{
    if (store_share_header(path, label, e) < 0) return -1;
    sqlite3 *db;
    if (store_share_open_untrusted(path, label, false, &db, e) < 0) return -1;
    int rc = check_version(db, label, e);
    if (rc == 0) rc = check_schema(s, db, label, e);
    if (rc == 0) rc = check_integrity(db, label, e);
    if (rc == 0) rc = store_share_check_constraints(s, db, label, e);
    if (rc == 0) rc = store_share_check_hashes(db, label, "nothing merged", e);
    if (rc == 0) rc = check_this_host(s, db, label, e);
    sqlite3_close(db);
    if (rc < 0 && e && !strstr(e->msg, "merged")) sl_suffix(e, "Nothing merged: this database is as it was");
    return rc;
}

int store_share_runs_missing(store *s, const char *path, const char *host_uuid, const char *label, long long *missing,
                             sl_err *e)
{
    *missing = 0;
    if (store_share_header(path, label, e) < 0) return -1;
    sqlite3 *db;
    if (store_share_open_untrusted(path, label, false, &db, e) < 0) return -1;
    sqlite3_stmt *theirs = NULL, *ours = NULL;
    int rc = check_version(db, label, e);
    if (rc == 0 && sqlite3_prepare_v2(db, "SELECT uuid FROM main.runs WHERE host_uuid = ?", -1, &theirs, NULL) != SQLITE_OK)
        rc = store_share_corrupt(db, label, e);
    if (rc == 0 && sqlite3_prepare_v2(store_db(s), "SELECT 1 FROM main.runs WHERE uuid = ?", -1, &ours, NULL) != SQLITE_OK)
        rc = store_fail(s, e, "reading this database's runs");
    if (rc == 0) sqlite3_bind_text(theirs, 1, host_uuid, -1, SQLITE_STATIC);
    int step = SQLITE_DONE;
    while (rc == 0 && (step = store_step(theirs)) == SQLITE_ROW) {
        sqlite3_reset(ours);
        sqlite3_bind_text(ours, 1, (const char *)sqlite3_column_text(theirs, 0), -1, SQLITE_TRANSIENT);
        int got = store_step(ours);
        if (got == SQLITE_DONE) (*missing)++;
        else if (got != SQLITE_ROW) rc = store_fail(s, e, "reading this database's runs");
    }
    if (rc == 0 && step != SQLITE_DONE) rc = store_share_corrupt(db, label, e);
    sqlite3_finalize(theirs);
    sqlite3_finalize(ours);
    sqlite3_close(db);
    return rc;
}

bool store_share_check_concurrent(void) { return sqlite3_threadsafe() == 1; }
