/* store_share_rows — the rows of an untrusted database, checked against
 * everything the merge relies on before a single one is merged: sluice's
 * own constraints (NOT NULL, CHECK, keys) whatever schema the file declares,
 * metrics that are finite and physically possible, no text with control
 * characters, and no run that poses as this host. */
#include "db/store_share.h"
#include "core/run_metric.h"
#include "core/esc.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

int store_share_names_read(sqlite3 *db, const char *sql, const char *table, struct share_names *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        /* a second column names a table: only keys to tables that do not travel */
        if (sqlite3_column_count(st) > 1 && share_table_find((const char *)sqlite3_column_text(st, 1))) continue;
        out->v = xgrow(out->v, out->n, &out->cap, sizeof *out->v, 16);
        out->v[out->n++] = xstrdup(name ? name : "");
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return 0;
    store_share_names_free(out);
    return -1;
}

bool store_share_names_has(const struct share_names *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i], name) == 0) return true;
    return false;
}

void store_share_names_free(struct share_names *l)
{
    for (int i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* --- sluice's constraints ----------------------------------------------- */

/* The file's rows are held to the local schema's own constraints by queries
 * over the file, never by copying them: a copy of every row into temp
 * tables made from the local CREATE TABLE took longer than the merge itself
 * (1.7 s of bench/merge's 3.8 s for a 100,000-run object). Each value is
 * judged as the merge will write it: the private column's replacement, NULL
 * for a key to a local-only table, the local default for a column the file
 * lacks. NOT NULL and CHECK take one scan of a table, each UNIQUE key a
 * grouping (through the file's own index when it has a fitting one), each
 * foreign key to a shared table a lookup per row in the file's parent. */

/* Past a quoted name or string, or a comment, starting at p (else p). */
static const char *skip_quoted(const char *p)
{
    if (p[0] == '-' && p[1] == '-') {
        while (*p && *p != '\n') p++;
        return p;
    }
    if (p[0] == '/' && p[1] == '*') {
        const char *end = strstr(p + 2, "*/");
        return end ? end + 2 : p + strlen(p);
    }
    if (*p != '\'' && *p != '"' && *p != '`' && *p != '[') return p;
    char close = *p == '[' ? ']' : *p;
    for (p++; *p; p++)
        if (*p == close) {
            if (close != ']' && p[1] == close) p++;   /* a doubled quote is one */
            else return p + 1;
        }
    return p;
}

/* The next CHECK constraint of a CREATE TABLE text sql (the local schema's
 * own) from p on: its expression (between its parentheses) in *expr and
 * *len, and where to look on; NULL when there is none. */
static const char *next_check(const char *sql, const char *p, const char **expr, size_t *len)
{
    while (*p) {
        const char *q = skip_quoted(p);
        if (q != p) {
            p = q;
            continue;
        }
        bool word_start = p == sql || (p[-1] != '_' && !isalnum((unsigned char)p[-1]));
        if (!word_start || strncasecmp(p, "CHECK", 5) != 0 || isalnum((unsigned char)p[5]) || p[5] == '_') {
            p++;
            continue;
        }
        for (p += 5; isspace((unsigned char)*p); p++) {}
        if (*p != '(') continue;
        const char *open = p++;
        for (int depth = 1; *p && depth;) {
            q = skip_quoted(p);
            if (q != p) {
                p = q;
                continue;
            }
            depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
            p++;
        }
        const char *b = open + 1, *e = p - 1;
        while (b < e && isspace((unsigned char)*b)) b++;
        while (e > b && isspace((unsigned char)e[-1])) e--;
        *expr = b;
        *len = (size_t)(e - b);
        return p;
    }
    return NULL;
}

/* One constraint the scan of a table looks for, and what it says when a row
 * breaks it (SQLite's own words). */
enum rule_kind {
    RULE_SCHEMA,     /* a constraint of the local schema: msg is SQLite's words for it */
    RULE_PARENT,     /* a key to a parent the file lacks: msg is the parent table */
    RULE_METRIC,     /* a metric out of bounds (explain_metric says which) */
};

struct rule {
    char *msg;
    enum rule_kind kind;
};

static int explain_metric(sqlite3 *db, const char *label, sl_err *e);

struct table_rules {
    const struct share_table *t;
    sqlite3_str *cols;    /* the rows as the merge writes them: expr AS "name", ... */
    sqlite3_str *cases;   /* WHEN <broken> THEN <rule index> ... */
    struct rule *rules;
    int nrules, cap;
};

static void add_rule(struct table_rules *r, const char *cond, char *msg, enum rule_kind kind)
{
    r->rules = xgrow(r->rules, r->nrules, &r->cap, sizeof *r->rules, 16);
    r->rules[r->nrules].msg = msg;
    r->rules[r->nrules].kind = kind;
    sqlite3_str_appendf(r->cases, " WHEN %s THEN %d", cond, r->nrules++);
}

static void free_rules(struct table_rules *r)
{
    for (int i = 0; i < r->nrules; i++) sqlite3_free(r->rules[i].msg);
    free(r->rules);
    sqlite3_free(sqlite3_str_finish(r->cols));
    sqlite3_free(sqlite3_str_finish(r->cases));
}

/* The local table's columns: each as the merge writes it, and its NOT
 * NULL. 0, or -1 with e. */
static int column_rules(store *s, sqlite3 *db, struct table_rules *r, const char *label, sl_err *e)
{
    const struct share_table *t = r->t;
    sqlite3_stmt *st;
    /* rowid: the INTEGER PRIMARY KEY, whose value must be an integer */
    const char *cols = "SELECT name, \"notnull\", dflt_value, pk = 1 AND upper(type) = 'INTEGER' AND (SELECT count(*) "
                       "FROM pragma_table_info(?1, 'main') WHERE pk > 0) = 1 FROM pragma_table_info(?1, 'main')";
    /* The file's columns, and the local columns that are keys to a table
     * that is not shared (the merge writes NULL there), each read once:
     * pragma_table_info prepares a statement of its own at every call, and
     * a call per column was a third of a small object's check. */
    struct share_names in_file, refs;
    if (store_share_names_read(db, "SELECT name FROM pragma_table_info(?1, 'main')", t->name, &in_file) < 0)
        return store_share_corrupt(db, label, e);
    if (store_share_names_read(store_db(s), "SELECT \"from\", \"table\" FROM pragma_foreign_key_list(?1)", t->name,
                               &refs) < 0 || sqlite3_prepare_v2(store_db(s), cols, -1, &st, NULL) != SQLITE_OK) {
        store_share_names_free(&in_file);
        store_share_names_free(&refs);
        return store_fail(s, e, "reading the local schema");
    }
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
    int rc, n = 0;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        const char *dflt = (const char *)sqlite3_column_text(st, 2);
        bool ref = store_share_names_has(&refs, c);
        sqlite3_str_appendf(r->cols, "%s", n++ ? ", " : "");
        if (t->private_col && strcmp(c, t->private_col) == 0) sqlite3_str_appendf(r->cols, "%s", t->private_expr);
        else if (ref) sqlite3_str_appendf(r->cols, "NULL");
        else if (store_share_names_has(&in_file, c)) sqlite3_str_appendf(r->cols, "s.\"%w\"", c);
        else sqlite3_str_appendf(r->cols, "%s", dflt ? dflt : "NULL");   /* the local schema's own text */
        sqlite3_str_appendf(r->cols, " AS \"%w\"", c);
        char *cond = NULL;
        if (sqlite3_column_int(st, 3)) {
            cond = sqlite3_mprintf("typeof(\"%w\") NOT IN ('integer', 'null')", c); /* security: OK because an identifier of the local schema, %w-quoted */
            add_rule(r, cond, sqlite3_mprintf("datatype mismatch"), RULE_SCHEMA); /* security: OK because a message, not SQL */
        } else if (sqlite3_column_int(st, 1)) {
            cond = sqlite3_mprintf("\"%w\" IS NULL", c); /* security: OK because an identifier of the local schema, %w-quoted */
            add_rule(r, cond, sqlite3_mprintf("NOT NULL constraint failed: %s.%s", t->name, c), RULE_SCHEMA); /* security: OK because a message, not SQL */
        }
        sqlite3_free(cond);
    }
    sqlite3_finalize(st);
    store_share_names_free(&in_file);
    store_share_names_free(&refs);
    if (rc != SQLITE_DONE) return store_fail(s, e, "reading the local schema");
    return 0;
}

/* The CHECK constraints of the local CREATE TABLE text. 0, or -1 with e. */
static int check_rules(store *s, struct table_rules *r, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ?", -1, &st,
                           NULL) != SQLITE_OK) return store_fail(s, e, "reading the local schema");
    sqlite3_bind_text(st, 1, r->t->name, -1, SQLITE_STATIC);
    int rc = store_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        /* none: an older local schema, which check_object has refused already */
        return rc == SQLITE_DONE ? 0 : store_fail(s, e, "reading the local schema");
    }
    const char *sql = (const char *)sqlite3_column_text(st, 0), *p = sql, *expr;
    size_t len;
    while (p && (p = next_check(sql, p, &expr, &len))) {
        char *cond = sqlite3_mprintf("NOT (%.*s)", (int)len, expr); /* security: OK because the local schema's own CHECK text */
        add_rule(r, cond, sqlite3_mprintf("CHECK constraint failed: %.*s", (int)len, expr), RULE_SCHEMA); /* security: OK because a message, not SQL */
        sqlite3_free(cond);
    }
    sqlite3_finalize(st);
    return 0;
}

static int refuse_rows(const char *label, const char *table, const char *why, sl_err *e)
{
    return sl_fail(e, SL_EFAIL, "%s has rows in %s that sluice's schema does not take (%s): it was not written by "
                   "sluice (or was altered); nothing merged", label, table, why);
}

/* A table's scan in two halves by rowid, on two connections and threads,
 * past this many rows: the scan evaluates every rule on every row (a
 * quarter of a 100,000-run object's merge, callgrind), and a checked file
 * is merged by one thread alone, so a second core is free while it is
 * checked (sync.c checks several files at once on their own threads). */
#define SPLIT_ROWS 20000

/* One half's statement and what it found: the step's result and the rule
 * index of the first broken row. */
struct half {
    sqlite3 *db;
    sqlite3_stmt *st;
    int step, broken;
};

static void *scan_half(void *arg)
{
    struct half *h = arg;
    h->step = store_step(h->st);
    h->broken = h->step == SQLITE_ROW ? sqlite3_column_int(h->st, 0) : -1;
    return NULL;
}

/* The scan's statement on db over the rows `where` selects (?1: the split). */
static sqlite3_stmt *scan_stmt(sqlite3 *db, struct table_rules *r, const char *where)
{
    char *sql = sqlite3_mprintf("SELECT CASE%s END AS broken FROM (SELECT %s FROM main.\"%w\" s WHERE %s) r WHERE " /* security: OK because parts built above from the local schema, %w-quoted, and a fixed condition */
                                "broken IS NOT NULL LIMIT 1", sqlite3_str_value(r->cases), sqlite3_str_value(r->cols),
                                r->t->name, where);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) st = NULL;
    sqlite3_free(sql);
    return st;
}

/* Where to split the table's rows: 1 with *mid (rowid <= mid in the first
 * half, rowid > mid in the second), 0 when the table is small or "rowid"
 * may not be the b-tree's key: a hostile schema may declare a column named
 * rowid (then the name is that column's, whose values may be NULL or
 * text, in neither half) or the table WITHOUT ROWID (then the query
 * fails). Then one scan does it all. */
static int split_at(sqlite3 *db, const char *table, sqlite3_int64 *mid)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_info(?1, 'main') WHERE lower(name) = 'rowid'", -1,
                           &st, NULL) != SQLITE_OK) return 0;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    bool named = store_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0) != 0;
    sqlite3_finalize(st);
    if (named) return 0;
    char *sql = sqlite3_mprintf("SELECT min(rowid), max(rowid) FROM main.\"%w\"", table); /* security: OK because a table of the local schema, %w-quoted */
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL), split = 0;
    sqlite3_free(sql);
    if (rc != SQLITE_OK) return 0;
    if (store_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
        sqlite3_column_type(st, 1) == SQLITE_INTEGER) {
        sqlite3_int64 lo = sqlite3_column_int64(st, 0), hi = sqlite3_column_int64(st, 1);
        if (hi > lo && hi - lo >= SPLIT_ROWS) {
            *mid = lo + (hi - lo) / 2;
            split = 1;
        }
    }
    sqlite3_finalize(st);
    return split;
}

/* The scan of the rows rowid <= mid on db and of the others on a second
 * connection to the same file, at once. The first half's rows come first
 * in rowid order, so its finding (a broken row or an error) stands over
 * the second's, as in one scan: *which is the half whose result counts.
 * 0 done, -1 when the split could not be set up (nothing run). */
static int scan_split(sqlite3 *db, struct table_rules *r, const char *label, sqlite3_int64 mid, struct half *h,
                      int *which)
{
    sqlite3 *db2;
    sl_err ignore;
    if (store_share_open_untrusted(sqlite3_db_filename(db, "main"), label, false, &db2, &ignore) < 0) return -1;
    h[0] = (struct half){ .db = db, .st = scan_stmt(db, r, "s.rowid <= ?1") };
    h[1] = (struct half){ .db = db2, .st = scan_stmt(db2, r, "s.rowid > ?1") };
    if (!h[0].st || !h[1].st) {
        sqlite3_finalize(h[0].st);
        sqlite3_finalize(h[1].st);
        sqlite3_close(db2);
        h[1].db = NULL;
        return -1;
    }
    sqlite3_bind_int64(h[0].st, 1, mid);
    sqlite3_bind_int64(h[1].st, 1, mid);
    pthread_t tid;
    bool threaded = pthread_create(&tid, NULL, scan_half, &h[1]) == 0;
    scan_half(&h[0]);
    /* a broken row in the first half: the second's finding cannot count */
    if (threaded && h[0].step != SQLITE_DONE) sqlite3_interrupt(db2);
    if (threaded) pthread_join(tid, NULL);
    else if (h[0].step == SQLITE_DONE) scan_half(&h[1]);
    *which = h[0].step == SQLITE_DONE ? 1 : 0;
    sqlite3_finalize(h[0].st);
    sqlite3_finalize(h[1].st);
    return 0;
}

/* One scan: the first row that breaks a NOT NULL, a CHECK, a key or a
 * metric's bounds. */
static int scan_rules(sqlite3 *db, struct table_rules *r, const char *label, sl_err *e)
{
    if (!r->nrules) return 0;
    struct half h[2] = { { 0 }, { 0 } };
    int which = 0;
    sqlite3_int64 mid;
    if (!split_at(db, r->t->name, &mid) || scan_split(db, r, label, mid, h, &which) < 0) {
        h[0] = (struct half){ .db = db, .st = scan_stmt(db, r, "1") };
        if (!h[0].st) return store_share_corrupt(db, label, e);
        scan_half(&h[0]);
        sqlite3_finalize(h[0].st);
        which = 0;
    }
    struct half *f = &h[which];
    int rc = 0;
    if (f->step != SQLITE_ROW)
        rc = f->step == SQLITE_DONE ? 0 : store_share_corrupt(f->db, label, e);
    else if (f->broken < 0 || f->broken >= r->nrules)
        rc = store_share_corrupt(f->db, label, e);
    else if (r->rules[f->broken].kind == RULE_PARENT)
        rc = sl_fail(e, SL_EFAIL, "%s has rows in %s whose parent in %s is missing: nothing merged", label,
                     r->t->name, r->rules[f->broken].msg);
    else if (r->rules[f->broken].kind == RULE_METRIC)
        rc = explain_metric(db, label, e) < 0 ? -1 : store_share_corrupt(db, label, e);
    else
        rc = refuse_rows(label, r->t->name, r->rules[f->broken].msg, e);
    if (h[1].db) sqlite3_close(h[1].db);   /* the second half's connection, after its error was read */
    return rc;
}

/* Two rows (as the merge writes them) with one value of the local index
 * `index`'s key, no part of it NULL (NULLs are distinct, as in SQLite):
 * 0 none, -1 with e. col: pragma_index_xinfo of the local schema. */
static int one_unique_key(sqlite3 *db, struct table_rules *r, sqlite3_stmt *col, const char *index, const char *label,
                          sl_err *e)
{
    sqlite3_reset(col);
    sqlite3_bind_text(col, 1, index, -1, SQLITE_TRANSIENT);
    sqlite3_str *group = sqlite3_str_new(NULL), *nonnull = sqlite3_str_new(NULL), *names = sqlite3_str_new(NULL);
    int n = 0, rc;
    while ((rc = store_step(col)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(col, 0), *coll = (const char *)sqlite3_column_text(col, 1);
        sqlite3_str_appendf(group, "%s\"%w\" COLLATE \"%w\"", n ? ", " : "", c, coll ? coll : "BINARY");
        sqlite3_str_appendf(nonnull, "%s\"%w\" IS NOT NULL", n ? " AND " : "", c);
        sqlite3_str_appendf(names, "%s%s.%s", n ? ", " : "", r->t->name, c);
        n++;
    }
    char *g = sqlite3_str_finish(group), *nn = sqlite3_str_finish(nonnull), *nm = sqlite3_str_finish(names);
    char *sql = sqlite3_mprintf("SELECT 1 FROM (SELECT %s FROM main.\"%w\" s) WHERE %s GROUP BY %s HAVING count(*) > 1 " /* security: OK because parts built above from the local schema, %w-quoted */
                                "LIMIT 1", sqlite3_str_value(r->cols), r->t->name, nn, g);
    int res = 0;
    sqlite3_stmt *st = NULL;
    if (rc != SQLITE_DONE) res = sl_fail(e, SL_EFAIL, "reading the local schema: %s", sqlite3_errstr(rc));
    else if (n && sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) res = store_share_corrupt(db, label, e);
    else if (n) {
        int step = store_step(st);
        if (step == SQLITE_ROW) {
            char *why = sqlite3_mprintf("UNIQUE constraint failed: %s", nm); /* security: OK because a message, not SQL */
            res = refuse_rows(label, r->t->name, why, e);
            sqlite3_free(why);
        } else if (step != SQLITE_DONE) {
            res = store_share_corrupt(db, label, e);
        }
    }
    sqlite3_finalize(st);
    sqlite3_free(sql);
    sqlite3_free(g);
    sqlite3_free(nn);
    sqlite3_free(nm);
    return res;
}

/* Each UNIQUE key (and primary key that is not the rowid) of the local
 * table, over the file's rows. 0, or -1 with e. */
static int unique_rules(store *s, sqlite3 *db, struct table_rules *r, const char *label, sl_err *e)
{
    sqlite3_stmt *idx, *col;
    if (sqlite3_prepare_v2(store_db(s), "SELECT name FROM pragma_index_list(?1, 'main') WHERE \"unique\"", -1, &idx,
                           NULL) != SQLITE_OK) return store_fail(s, e, "reading the local schema");
    if (sqlite3_prepare_v2(store_db(s), "SELECT name, coll FROM pragma_index_xinfo(?1, 'main') WHERE key AND cid >= 0 "
                           "ORDER BY seqno", -1, &col, NULL) != SQLITE_OK) {
        sqlite3_finalize(idx);
        return store_fail(s, e, "reading the local schema");
    }
    sqlite3_bind_text(idx, 1, r->t->name, -1, SQLITE_STATIC);
    int rc, res = 0;
    while (res == 0 && (rc = store_step(idx)) == SQLITE_ROW)
        res = one_unique_key(db, r, col, (const char *)sqlite3_column_text(idx, 0), label, e);
    sqlite3_finalize(idx);
    sqlite3_finalize(col);
    if (res) return res;
    return rc == SQLITE_DONE ? 0 : store_fail(s, e, "reading the local schema");
}

/* Every key of the file's rows to a shared parent names a row the file
 * has (keys to local-only tables are NULL in the merge, as they are here):
 * one rule a key, in the table's scan. 0, or -1 with e. */
static int parent_rules(store *s, sqlite3 *db, struct table_rules *r, const char *label, sl_err *e)
{
    const struct share_table *t = r->t;
    sqlite3_stmt *fk;
    if (sqlite3_prepare_v2(store_db(s), "SELECT id, \"table\", \"from\", coalesce(\"to\", 'rowid') FROM "
                           "pragma_foreign_key_list(?1, 'main') ORDER BY id, seq", -1, &fk, NULL) != SQLITE_OK)
        return store_fail(s, e, "reading the local schema");
    sqlite3_bind_text(fk, 1, t->name, -1, SQLITE_STATIC);
    int rc = store_step(fk), res = 0;
    while (res == 0 && rc == SQLITE_ROW) {
        int id = sqlite3_column_int(fk, 0);
        char *parent = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(fk, 1)); /* security: OK because a table name, not SQL (checked by share_table_find) */
        sqlite3_str *set = sqlite3_str_new(NULL), *match = sqlite3_str_new(NULL);
        for (int n = 0; rc == SQLITE_ROW && sqlite3_column_int(fk, 0) == id; rc = store_step(fk), n++) {
            const char *from = (const char *)sqlite3_column_text(fk, 2), *to = (const char *)sqlite3_column_text(fk, 3);
            sqlite3_str_appendf(set, "%sr.\"%w\" IS NOT NULL", n ? " AND " : "", from);
            sqlite3_str_appendf(match, "%sp.\"%w\" = r.\"%w\"", n ? " AND " : "", to, from);
        }
        char *sv = sqlite3_str_finish(set), *mv = sqlite3_str_finish(match);
        int has_parent = share_table_find(parent) ? file_has(db, parent, NULL) : -2;
        if (has_parent == -1) res = store_share_corrupt(db, label, e);
        if (has_parent >= 0) {   /* a key to a local-only table is NULL here: nothing to look up */
            char *cond = has_parent ? sqlite3_mprintf("%s AND NOT EXISTS (SELECT 1 FROM main.\"%w\" p WHERE %s)", sv, /* security: OK because a known table (share_table_find) and local-schema parts */
                                                      parent, mv)
                                    : sqlite3_mprintf("%s", sv); /* security: OK because local-schema parts, %w-quoted */
            add_rule(r, cond, parent, RULE_PARENT);
            parent = NULL;
            sqlite3_free(cond);
        }
        sqlite3_free(parent);
        sqlite3_free(sv);
        sqlite3_free(mv);
    }
    sqlite3_finalize(fk);
    if (res) return res;
    return rc == SQLITE_DONE ? 0 : store_fail(s, e, "reading the local schema");
}

/* --- metrics -------------------------------------------------------------- */

/* What a probe can measure at all: a value outside is a forgery or damage
 * (1e308 MB/s, inf, 'abc'), and would decide a recommendation alone. The
 * metrics' bounds are the metric table's (core/run_metric_table.h), for the
 * rows kept in a column. */
static const struct metric_bound {
    const char *col;
    double lo, hi;
    const char *unit;
} run_bounds[] = {
    { "rep", 0, 1e6, "" },
#define METRIC_BOUND(A, name, kept, path, group, label, unit, lo, hi, ...) METRIC_BOUND_##kept(name, lo, hi, unit)
#define METRIC_BOUND_C(name, lo, hi, unit) { #name, lo, hi, unit },
#define METRIC_BOUND_J(name, lo, hi, unit)
    METRIC_TABLE(METRIC_BOUND, )
#undef METRIC_BOUND_J
#undef METRIC_BOUND_C
#undef METRIC_BOUND
    { "reached_dirty_threshold", 0, 1, "" },
};
#define NBOUNDS (sizeof run_bounds / sizeof run_bounds[0])

/* The first value of runs that is not a number within bounds, named: -1
 * with e (0 when there is none after all). A scan of its own, made only
 * when the table's scan found one. */
static int explain_metric(sqlite3 *db, const char *label, sl_err *e)
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

/* The bounds as rules of the runs table's scan (on the file's own values:
 * the merge copies metrics as they are). -1 when the file's columns could
 * not be read.
 * Each is one comparison, "+v NOT BETWEEN lo AND hi", which flags exactly
 * what explain_metric's "v IS NOT NULL AND NOT (typeof(v) IN ('integer',
 * 'real') AND v BETWEEN lo AND hi)" flags: NULL gives NULL (not flagged; a
 * NaN reads as NULL); a number is compared as a number; the unary + takes
 * away the column's affinity, so a TEXT or BLOB value is compared as it is
 * stored, and SQLite orders every TEXT and BLOB after every number: never
 * between the bounds, flagged, whatever type the file declares for the
 * column (with its affinity, a column declared TEXT would compare '1.5x'
 * as text between '0' and '1e7'). typeof() and IN cost two function calls
 * and string compares per metric per row: 24 metrics were 60% of the scan
 * of bench/merge's 100,000-run object (callgrind: 582M against 342M
 * instructions for 20,000 runs). */
static int metric_rules(sqlite3 *db, struct table_rules *r)
{
    if (strcmp(r->t->name, "runs") != 0) return 0;
    struct share_names cols;   /* read once, as in column_rules */
    if (store_share_names_read(db, "SELECT name FROM pragma_table_info(?1, 'main')", "runs", &cols) < 0) return -1;
    for (size_t i = 0; i < NBOUNDS; i++) {
        const struct metric_bound *b = &run_bounds[i];
        if (!store_share_names_has(&cols, b->col)) continue;
        char *cond = sqlite3_mprintf("+r.\"%w\" NOT BETWEEN %.17g AND %.17g", b->col, b->lo, b->hi); /* security: OK because a static column name and bounds */
        add_rule(r, cond, NULL, RULE_METRIC);
        sqlite3_free(cond);
    }
    store_share_names_free(&cols);
    return 0;
}

int store_share_check_constraints(store *s, sqlite3 *db, const char *label, sl_err *e)
{
    for (int i = 0; i < share_table_count; i++) {
        const struct share_table *t = &share_tables[i];
        int has = file_has(db, t->name, NULL);
        if (has < 0) return store_share_corrupt(db, label, e);
        if (!has) continue;
        struct table_rules r = { .t = t, .cols = sqlite3_str_new(NULL), .cases = sqlite3_str_new(NULL) };
        int rc = column_rules(s, db, &r, label, e);
        if (rc == 0) rc = check_rules(s, &r, e);
        if (rc == 0) rc = parent_rules(s, db, &r, label, e);
        if (rc == 0 && metric_rules(db, &r) < 0) rc = store_share_corrupt(db, label, e);
        if (rc == 0) rc = scan_rules(db, &r, label, e);
        if (rc == 0) rc = unique_rules(s, db, &r, label, e);
        free_rules(&r);
        if (rc < 0) return -1;
    }
    return 0;
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
