/* store_share_merge — merge a checked database into the local store, driven
 * by share_tables: rows are named by identity (UUID or content hash), never
 * by integer id, which differs from one database to the next. Each table
 * becomes a handful of INSERT ... SELECT statements over the attached file,
 * with a temporary map (source id -> local id) per parent table.
 * The SQL is composed from identifiers only, and only from our side: table
 * names from share_tables, column names from the local schema's pragmas.
 * Nothing the untrusted file names or contains is ever pasted into SQL. */
#include "db/store_share.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC "share_src"
#define MAX_COLS 128

/* A small growing SQL buffer with a cap: our statements are a few KB. */
struct sql {
    char *p;
    size_t len, cap;
};

static void sql_add(struct sql *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sql_add(struct sql *q, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = q->cap - q->len;
        int n = vsnprintf(q->p ? q->p + q->len : NULL, q->p ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) sl_die("formatting SQL");
        if (q->p && (size_t)n < room) {
            q->len += (size_t)n;
            return;
        }
        if (q->cap > (1u << 20)) sl_die("merge SQL past 1 MiB");
        q->cap = q->cap ? q->cap * 2 + (size_t)n : 1024 + (size_t)n;
        q->p = xrealloc(q->p, q->cap);
        if (q->len == 0) q->p[0] = 0;
    }
}

static void sql_reset(struct sql *q) { q->len = 0; if (q->p) q->p[0] = 0; }

struct column {
    char name[64];
    bool in_src;
    bool rowid;              /* the INTEGER PRIMARY KEY: never copied */
    const char *parent;      /* a shared parent whose local id replaces ours */
    bool local_ref;          /* references a local-only table: NULL */
};

struct table_plan {
    const struct share_table *t;
    struct column cols[MAX_COLS];
    int ncols;
    const char *rowid;       /* name of the INTEGER PRIMARY KEY, or NULL */
};

static int db_fail(store *s, sl_err *e, const char *what, const char *table)
{
    char buf[128];
    snprintf(buf, sizeof buf, "merging %s (%s)", table, what);
    return store_fail(s, e, buf);
}

static bool src_has_table(store *s, const char *name)
{
    sqlite3_stmt *st;
    bool found = false;
    if (sqlite3_prepare_v2(store_db(s), "SELECT 1 FROM " SRC ".sqlite_schema WHERE type = 'table' AND name = ?", -1,
                           &st, NULL) != SQLITE_OK) return false;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    found = store_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static struct column *find_col(struct table_plan *p, const char *name)
{
    for (int i = 0; i < p->ncols; i++)
        if (strcmp(p->cols[i].name, name) == 0) return &p->cols[i];
    return NULL;
}

/* Columns of the local table, which of them the file has, and what each
 * foreign key points at: all read from the schemas, nothing hard-coded. */
static int plan_table(store *s, const struct share_table *t, struct table_plan *p, sl_err *e)
{
    memset(p, 0, sizeof *p);
    p->t = t;
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st;
    /* The file's columns read once: pragma_table_info prepares a statement
     * of its own at every call, and a call per column (a correlated EXISTS)
     * was a fifth of a small object's pull. */
    struct share_names src;
    if (store_share_names_read(db, "SELECT name FROM pragma_table_info(?1, '" SRC "')", t->name, &src) < 0)
        return db_fail(s, e, "columns", t->name);
    const char *cols = "SELECT name, pk, upper(type) FROM pragma_table_info(?1, 'main')";
    if (sqlite3_prepare_v2(db, cols, -1, &st, NULL) != SQLITE_OK) {
        store_share_names_free(&src);
        return db_fail(s, e, "columns", t->name);
    }
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
    int rc, pks = 0;
    struct column *pk = NULL;
    while ((rc = store_step(st)) == SQLITE_ROW && p->ncols < MAX_COLS) {
        struct column *c = &p->cols[p->ncols++];
        snprintf(c->name, sizeof c->name, "%s", (const char *)sqlite3_column_text(st, 0));
        if (sqlite3_column_int(st, 1) > 0) pks++;
        if (sqlite3_column_int(st, 1) == 1 && strcmp((const char *)sqlite3_column_text(st, 2), "INTEGER") == 0) pk = c;
        c->in_src = store_share_names_has(&src, c->name);
    }
    sqlite3_finalize(st);
    store_share_names_free(&src);
    if (rc != SQLITE_DONE) return db_fail(s, e, "columns", t->name);
    /* the INTEGER PRIMARY KEY: a primary key of that one column only */
    if (pk && pks == 1) {
        pk->rowid = true;
        p->rowid = pk->name;
    }
    const char *fks = "SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?)";
    if (sqlite3_prepare_v2(db, fks, -1, &st, NULL) != SQLITE_OK) return db_fail(s, e, "foreign keys", t->name);
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
    while ((rc = store_step(st)) == SQLITE_ROW) {
        struct column *c = find_col(p, (const char *)sqlite3_column_text(st, 0));
        const struct share_table *parent = share_table_find((const char *)sqlite3_column_text(st, 1));
        const char *to = (const char *)sqlite3_column_text(st, 2);
        if (!c) continue;
        if (!parent) c->local_ref = true;
        else if (!to || strcmp(to, "id") == 0) c->parent = parent->name;
        /* else: a key to a global column (a content hash) copies as it is */
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(s, e, "foreign keys", t->name);
    return 0;
}

/* The value a column takes in the local row, as SQL over the source row s. */
static void col_expr(struct sql *q, const struct table_plan *p, const struct column *c, bool for_insert)
{
    if (for_insert && p->t->private_col && strcmp(c->name, p->t->private_col) == 0)
        sql_add(q, "%s", p->t->private_expr);
    else if (c->local_ref)
        sql_add(q, "NULL");
    else if (c->parent)
        sql_add(q, "(SELECT local_id FROM temp.\"share_map_%s\" WHERE src_id = s.\"%s\")", c->parent, c->name);
    else
        sql_add(q, "s.\"%s\"", c->name);
}

/* "l.a IS <a of s> AND l.b IS <b of s>" for a comma-separated key. */
static int key_cond(struct sql *q, struct table_plan *p, const char *key, sl_err *e)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", key);
    int n = 0;
    for (char *save, *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        struct column *c = find_col(p, name);
        if (!c || !c->in_src)
            return sl_fail(e, SL_EFAIL, "merging %s: the key column %s is missing from the file or the schema: "
                           "nothing merged", p->t->name, name);
        sql_add(q, "%sl.\"%s\" IS ", n++ ? " AND " : "", name);
        col_expr(q, p, c, false);
    }
    return 0;
}

static int exec_changes(store *s, const char *sql, const char *table, long long *changes, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return db_fail(s, e, "prepare", table);
    int rc = store_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) return db_fail(s, e, "step", table);
    if (changes) *changes = sqlite3_changes64(store_db(s));
    return 0;
}

static long long count_rows(store *s, const char *sql)
{
    sqlite3_stmt *st;
    long long n = -1;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    if (store_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* INSERT OR IGNORE INTO main.T (copied columns) SELECT ... FROM src.T s WHERE <where>. */
static void insert_sql(struct sql *q, const struct table_plan *p, const char *where)
{
    sql_add(q, "INSERT OR IGNORE INTO main.\"%s\" (", p->t->name);
    int n = 0;
    for (int i = 0; i < p->ncols; i++) {
        const struct column *c = &p->cols[i];
        if (c->rowid || !c->in_src) continue;
        sql_add(q, "%s\"%s\"", n++ ? ", " : "", c->name);
    }
    sql_add(q, ") SELECT ");
    n = 0;
    for (int i = 0; i < p->ncols; i++) {
        const struct column *c = &p->cols[i];
        if (c->rowid || !c->in_src) continue;
        if (n++) sql_add(q, ", ");
        col_expr(q, p, c, true);
    }
    sql_add(q, " FROM " SRC ".\"%s\" s WHERE %s", p->t->name, where);
}

/* Whether a shared table has a foreign key to `name`: 1, 0, or -1. */
static int has_children(store *s, const char *name)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "SELECT 1 FROM pragma_foreign_key_list(?1) WHERE \"table\" = ?2", -1, &st,
                           NULL) != SQLITE_OK) return -1;
    int found = 0;
    for (int i = 0; i < share_table_count && !found; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, share_tables[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
        int rc = store_step(st);
        if (rc == SQLITE_ROW) found = 1;
        else if (rc != SQLITE_DONE) found = -1;
    }
    sqlite3_finalize(st);
    return found;
}

/* A table whose rows have an identity and an integer id that children use. */
static int merge_mapped(store *s, struct table_plan *p, struct sql *q, long long total, long long r[3], sl_err *e)
{
    const char *name = p->t->name, *id = p->rowid;
    sql_reset(q);
    sql_add(q, "CREATE TEMP TABLE \"share_map_%s\" (src_id INTEGER PRIMARY KEY, local_id INTEGER NOT NULL, "
               "fresh INTEGER NOT NULL)", name);
    if (exec_changes(s, q->p, name, NULL, e) < 0) return -1;
    const char *keys[2] = { p->t->key, p->t->alt_key };
    r[1] = 0;
    for (int k = 0; k < 2 && keys[k]; k++) {
        long long n;
        sql_reset(q);
        sql_add(q, "INSERT OR IGNORE INTO temp.\"share_map_%s\" SELECT s.\"%s\", l.\"%s\", 0 FROM " SRC ".\"%s\" s "
                   "JOIN main.\"%s\" l ON ", name, id, id, name, name);
        if (key_cond(q, p, keys[k], e) < 0 || exec_changes(s, q->p, name, &n, e) < 0) return -1;
        r[1] += n;
    }
    char where[256];
    snprintf(where, sizeof where, "s.\"%s\" NOT IN (SELECT src_id FROM temp.\"share_map_%s\")", id, name);
    sql_reset(q);
    insert_sql(q, p, where);
    if (exec_changes(s, q->p, name, &r[0], e) < 0) return -1;
    /* The new rows' local ids matter only to tables that point at this one
     * (runs: none); without such, what was not added was skipped. */
    int kids = has_children(s, name);
    if (kids < 0) return db_fail(s, e, "foreign keys", name);
    if (!kids) {
        r[2] = total - r[1] - r[0];
        return 0;
    }
    sql_reset(q);
    sql_add(q, "INSERT OR IGNORE INTO temp.\"share_map_%s\" SELECT s.\"%s\", l.\"%s\", 1 FROM " SRC ".\"%s\" s "
               "JOIN main.\"%s\" l ON ", name, id, id, name, name);
    if (key_cond(q, p, p->t->key, e) < 0) return -1;
    sql_add(q, " WHERE %s", where);
    long long fresh;
    if (exec_changes(s, q->p, name, &fresh, e) < 0) return -1;
    r[2] = total - r[1] - fresh;
    return 0;
}

/* A table with an identity but no integer id (e.g. keyed by a hash). */
static int merge_keyed(store *s, struct table_plan *p, struct sql *q, long long total, long long r[3], sl_err *e)
{
    sql_reset(q);
    sql_add(q, "SELECT count(*) FROM " SRC ".\"%s\" s WHERE EXISTS (SELECT 1 FROM main.\"%s\" l WHERE ",
            p->t->name, p->t->name);
    if (key_cond(q, p, p->t->key, e) < 0) return -1;
    sql_add(q, ")");
    r[1] = count_rows(s, q->p);
    if (r[1] < 0) return db_fail(s, e, "count", p->t->name);
    sql_reset(q);
    insert_sql(q, p, "1");
    if (exec_changes(s, q->p, p->t->name, &r[0], e) < 0) return -1;
    r[2] = total - r[1] - r[0];
    return 0;
}

/* Rows that belong to an owner row: copied only with a newly merged owner. */
static int merge_owned(store *s, struct table_plan *p, struct sql *q, long long total, long long r[3], sl_err *e)
{
    struct column *c = find_col(p, p->t->owner);
    if (!c || !c->parent || !c->in_src)
        return sl_fail(e, SL_EFAIL, "merging %s: owner column %s is not a key to a shared table", p->t->name,
                       p->t->owner);
    char where[256];
    snprintf(where, sizeof where, "s.\"%s\" IN (SELECT src_id FROM temp.\"share_map_%s\" WHERE fresh)", c->name,
             c->parent);
    sql_reset(q);
    sql_add(q, "SELECT count(*) FROM " SRC ".\"%s\" s WHERE %s", p->t->name, where);
    long long with_fresh_owner = count_rows(s, q->p);
    if (with_fresh_owner < 0) return db_fail(s, e, "count", p->t->name);
    sql_reset(q);
    insert_sql(q, p, where);
    if (exec_changes(s, q->p, p->t->name, &r[0], e) < 0) return -1;
    r[1] = total - with_fresh_owner;
    r[2] = with_fresh_owner - r[0];
    return 0;
}

static int merge_table(store *s, const struct share_table *t, struct sql *q, struct share_report *rep, sl_err *e)
{
    if (!src_has_table(s, t->name)) return 0;  /* an older schema without it */
    struct table_plan *p = xmalloc(sizeof *p);
    int rc = plan_table(s, t, p, e);
    long long r[3] = { 0, 0, 0 }, total = -1;
    if (rc == 0) {
        sql_reset(q);
        sql_add(q, "SELECT count(*) FROM " SRC ".\"%s\"", t->name);
        total = count_rows(s, q->p);
        if (total < 0) rc = db_fail(s, e, "count", t->name);
    }
    if (rc == 0) {
        if (t->owner) rc = merge_owned(s, p, q, total, r, e);
        else if (p->rowid) rc = merge_mapped(s, p, q, total, r, e);
        else rc = merge_keyed(s, p, q, total, r, e);
    }
    free(p);
    if (rc < 0) return -1;
    if (rep->ntables < SHARE_MAX_TABLES) {
        int i = rep->ntables++;
        snprintf(rep->t[i].table, sizeof rep->t[i].table, "%s", t->name);
        rep->t[i].added = r[0];
        rep->t[i].known = r[1];
        rep->t[i].skipped = r[2];
    }
    return 0;
}

static void drop_maps(store *s)
{
    char sql[160];
    for (int i = 0; i < share_table_count; i++) {
        snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS temp.\"share_map_%s\"", share_tables[i].name);
        sqlite3_exec(store_db(s), sql, NULL, NULL, NULL);
    }
}

/* The checked file as schema SRC of the store's connection, read from disk
 * page by page (never whole in memory). Attached read-write, because the
 * merge's BEGIN IMMEDIATE takes a write lock on every attached database
 * that SQLite does not know to be read-only; nothing is written to it (all
 * our SQL writes main and temp), and it is the caller's private copy.
 * Its synchronous=OFF keeps it out of the commit: with two databases in a
 * write transaction SQLite commits through a super-journal (a file created,
 * synced with its directory, named in the journal, deleted), 8 syncs per
 * merged file where 5 do (strace of a pull), which a 1000-host first pull
 * paid 1000 times (bench/fleet, tests/unit/test_share_cost.c). */
static int attach_file(store *s, const char *path, sl_err *e)
{
    if (store_share_header(path, "the file to merge", e) < 0) return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "ATTACH ? AS " SRC, -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "attaching the file to merge");
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    int rc = store_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "attaching the file to merge");
    if (sqlite3_exec(store_db(s), "PRAGMA " SRC ".synchronous=OFF", NULL, NULL, NULL) != SQLITE_OK) {
        rc = store_fail(s, e, "attaching the file to merge");
        sqlite3_exec(store_db(s), "DETACH " SRC, NULL, NULL, NULL);
        return rc;
    }
    return 0;
}

static int merge_in_transaction(store *s, struct share_report *rep, sl_err *e)
{
    if (store_begin(s, e) < 0) return -1;
    struct sql q = { 0 };
    int rc = 0;
    for (int i = 0; i < share_table_count && rc == 0; i++) rc = merge_table(s, &share_tables[i], &q, rep, e);
    free(q.p);
    if (rc == 0) rc = store_commit(s, e);
    if (rc < 0) store_rollback(s);
    drop_maps(s);
    return rc;
}

/* Switch the store's journal mode (WAL or TRUNCATE). Not switching is no
 * failure (see merge_tables and store_share_merge_done), so neither caller
 * asks whether it did. */
static void journal_mode(store *s, bool wal)
{
    const char *sql = wal ? "PRAGMA main.journal_mode=WAL" : "PRAGMA main.journal_mode=TRUNCATE";
    sqlite3_exec(store_db(s), sql, NULL, NULL, NULL);
}

/* A merge brings megabytes of new rows. In WAL mode each new page is written
 * twice (to the log, then by the checkpoint); with a rollback journal a page
 * appended to the file is written once and only the pages that existed are
 * journaled. So when no other connection has the store open (SQLite refuses
 * to leave WAL otherwise, at once, without waiting) merges run with a
 * rollback journal, and store_share_merge_done puts the store back in WAL
 * after the last file of a batch; with a tuning session or the UI reading
 * it, the merge stays in WAL. Either way each transaction is atomic and
 * durable (synchronous=FULL). A larger page cache (16 MiB) keeps the
 * journal from being synced in the middle of a small file's transaction;
 * a file of 100,000 runs spills, and a cap keeps its merge within a few
 * tens of MB (64 MiB peaked at 110 MB RSS with bench/merge's big object). */
static int merge_tables(store *s, struct share_report *rep, sl_err *e)
{
    sqlite3 *db = store_db(s);
    /* From WAL, or already TRUNCATE from the batch's previous file (a no-op). */
    journal_mode(s, false);
    sqlite3_exec(db, "PRAGMA main.cache_size=-16384", NULL, NULL, NULL);
    int rc = merge_in_transaction(s, rep, e);
    sqlite3_exec(db, "PRAGMA main.cache_size=-2000", NULL, NULL, NULL);
    return rc;
}

void store_share_merge_done(store *s)
{
    /* Not being able to go back is no merge failure: every store_open sets
     * WAL again. */
    journal_mode(s, true);
}

int store_share_merge(store *s, const char *path, struct share_report *rep, sl_err *e)
{
    sqlite3 *db = store_db(s);
    memset(rep, 0, sizeof *rep);
    /* The attached file is only read; defensive mode and an untrusted
     * schema keep whatever it declares from running with our privileges. */
    int was_defensive = 0;
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, -1, &was_defensive);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_exec(db, "PRAGMA trusted_schema=OFF; PRAGMA temp_store=MEMORY", NULL, NULL, NULL);
    int rc = attach_file(s, path, e);
    if (rc == 0) {
        rc = merge_tables(s, rep, e);
        sqlite3_exec(db, "DETACH " SRC, NULL, NULL, NULL);
    }
    sqlite3_exec(db, "PRAGMA trusted_schema=ON", NULL, NULL, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, was_defensive, NULL);
    return rc;
}
