/* store_share_json — the shared rows of a snapshot as JSON objects, and a
 * database file built back from such objects: how runs travel to and from a
 * central store that keeps rows rather than files (PostgreSQL, src/share/pg.c).
 * A row's object has one member per column of its table, except the
 * INTEGER PRIMARY KEY (a local id, meaningless elsewhere) and references
 * to local-only tables; a reference to a shared parent by local id carries
 * the parent's identity instead (devices.host_id: the host's UUID). Blobs
 * are {"hex": "..."}. A built file goes through store_share_check and
 * store_share_merge like any pulled file: nothing read from a server is
 * trusted more than a downloaded database.
 * SQL here is composed from identifiers of our own schema only (table names
 * from share_tables, column names from pragmas of a file sluice wrote or
 * created); every value is bound. */
#include "db/store_share.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_COLS 96

struct json_col {
    char name[64];
    const struct share_table *parent;   /* a shared parent named by its identity */
    char to[64];                        /* the parent's column the local value matches */
};

struct json_plan {
    const struct share_table *t;
    struct json_col cols[JSON_MAX_COLS];
    int ncols;
};

static bool ident_ok(const char *s) { return s && *s && strlen(s) < 64 && !strchr(s, '"'); }

/* The columns of table t in db as they travel: no rowid, no reference to a
 * local-only table. 0, or -1 with e. */
static int plan_table(sqlite3 *db, const struct share_table *t, struct json_plan *p, sl_err *e)
{
    memset(p, 0, sizeof *p);
    p->t = t;
    sqlite3_stmt *st;
    const char *q = "SELECT c.name, c.pk, upper(c.type), f.\"table\", coalesce(f.\"to\", 'id') "
                    "FROM pragma_table_info(?1) c LEFT JOIN pragma_foreign_key_list(?1) f ON f.\"from\" = c.name "
                    "ORDER BY c.cid";
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
        return sl_fail(e, SL_EFAIL, "reading the columns of %s: %s", t->name, sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
    int rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *type = (const char *)sqlite3_column_text(st, 2);
        const char *parent = (const char *)sqlite3_column_text(st, 3);
        const char *to = (const char *)sqlite3_column_text(st, 4);
        if (!ident_ok(name)) continue;
        if (sqlite3_column_int(st, 1) == 1 && type && strcmp(type, "INTEGER") == 0) continue;   /* the rowid */
        const struct share_table *pt = parent ? share_table_find(parent) : NULL;
        if (parent && !pt) continue;   /* local-only: NULL everywhere else */
        if (p->ncols == JSON_MAX_COLS) {
            sqlite3_finalize(st);
            return sl_fail(e, SL_EFAIL, "table %s has more than %d columns (raise JSON_MAX_COLS)", t->name,
                           JSON_MAX_COLS);
        }
        struct json_col *c = &p->cols[p->ncols++];
        snprintf(c->name, sizeof c->name, "%s", name);
        if (pt && pt->key && strcmp(pt->key, to) != 0 && ident_ok(to)) {
            c->parent = pt;
            snprintf(c->to, sizeof c->to, "%s", to);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return sl_fail(e, SL_EFAIL, "reading the columns of %s: %s", t->name, sqlite3_errmsg(db));
    return 0;
}

/* --- rows out -------------------------------------------------------------- */

struct share_json {
    sqlite3 *db;
    char path[4096];
};

int store_share_json_open(const char *snap, struct share_json **out, sl_err *e)
{
    struct share_json *j = xcalloc(1, sizeof *j);
    snprintf(j->path, sizeof j->path, "%s", snap);
    if (sqlite3_open_v2(snap, &j->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
        sl_fail(e, SL_EFAIL, "snapshot %s: %s", snap, j->db ? sqlite3_errmsg(j->db) : "cannot open");
        store_share_json_close(j);
        return -1;
    }
    *out = j;
    return 0;
}

void store_share_json_close(struct share_json *j)
{
    if (!j) return;
    sqlite3_close(j->db);
    free(j);
}

static json_t *hex_blob(const unsigned char *b, int n)
{
    static const char hex[] = "0123456789abcdef";
    char *s = xmalloc((size_t)n * 2 + 1);
    for (int i = 0; i < n; i++) {
        s[2 * i] = hex[b[i] >> 4];
        s[2 * i + 1] = hex[b[i] & 15];
    }
    s[2 * n] = 0;
    json_t *o = json_pack("{s:s}", "hex", s);
    free(s);
    return o;
}

/* The length of the UTF-8 sequence at s (n bytes left), or 0 when it is
 * not one: overlong forms, surrogates and code points past U+10FFFF
 * included, as JSON and PostgreSQL refuse them; NUL too, which jsonb
 * cannot hold. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (c == 0 || len == 0 || len > n) return 0;
    unsigned cp = len == 1 ? c : c & (0x7f >> len);
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[k] & 0x3f);
    }
    static const unsigned min_cp[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

/* Text as a JSON string. Bytes that are not UTF-8 (a hostname holding 0xff)
 * travel escaped as \xHH, four characters: JSON cannot carry them, and a
 * member left out would arrive as NULL and make every pull of the row
 * fail. A row whose identity is a hash of its text then no longer matches
 * it on arrival, and is refused there rather than taken altered. */
static json_t *text_json(const unsigned char *s, size_t n)
{
    json_t *j = json_stringn((const char *)s, n);
    if (j) return j;
    char *buf = xmalloc(n * 4 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_len(s + i, n - i);
        if (len) {
            memcpy(buf + o, s + i, len);
            o += len;
            i += len;
        } else {
            o += (size_t)sprintf(buf + o, "\\x%02x", s[i++]);
        }
    }
    j = json_stringn(buf, o);
    free(buf);
    if (!j) sl_die("escaping text for JSON");
    return j;
}

static json_t *column_json(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: return json_real(sqlite3_column_double(st, i));
    case SQLITE_TEXT: return text_json(sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
    case SQLITE_BLOB: return hex_blob(sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i));
    default: return json_null();
    }
}

int store_share_json_rows(struct share_json *j, const char *table, share_json_row_fn fn, void *arg, sl_err *e)
{
    const struct share_table *t = share_table_find(table);
    if (!t || !t->key || strchr(t->key, ','))
        return sl_fail(e, SL_EFAIL, "table %s has no one-column identity: it cannot travel as rows", table);
    struct json_plan p;
    if (plan_table(j->db, t, &p, e) < 0) return -1;
    size_t cap = 512 + (size_t)p.ncols * 200;
    char *sql = xmalloc(cap);
    size_t len = (size_t)snprintf(sql, cap, "SELECT ");
    for (int i = 0; i < p.ncols; i++) {
        const struct json_col *c = &p.cols[i];
        const char *sep = i ? ", " : "";
        if (c->parent)
            len += (size_t)snprintf(sql + len, cap - len, "%s(SELECT p.\"%s\" FROM \"%s\" p WHERE p.\"%s\" = s.\"%s\")",
                                    sep, c->parent->key, c->parent->name, c->to, c->name);
        else len += (size_t)snprintf(sql + len, cap - len, "%ss.\"%s\"", sep, c->name);
    }
    snprintf(sql + len, cap - len, " FROM \"%s\" s ORDER BY s.\"%s\"", t->name, t->key);
    sqlite3_stmt *st;
    int prc = sqlite3_prepare_v2(j->db, sql, -1, &st, NULL);
    free(sql);
    if (prc != SQLITE_OK) return sl_fail(e, SL_EFAIL, "snapshot %s: reading %s: %s", j->path, table, sqlite3_errmsg(j->db));
    int rc, key = -1;
    for (int i = 0; i < p.ncols; i++)
        if (strcmp(p.cols[i].name, t->key) == 0) key = i;
    int out = 0;
    while (out == 0 && (rc = store_step(st)) == SQLITE_ROW) {
        json_t *row = json_object();
        for (int i = 0; i < p.ncols; i++) json_object_set_new(row, p.cols[i].name, column_json(st, i));
        const char *ident = key >= 0 ? (const char *)sqlite3_column_text(st, key) : NULL;
        if (ident) out = fn(table, ident, row, arg, e);
        json_decref(row);
    }
    sqlite3_finalize(st);
    if (out < 0) return -1;
    if (out == 0 && rc != SQLITE_DONE)
        return sl_fail(e, SL_EFAIL, "snapshot %s: reading %s: %s", j->path, table, sqlite3_errmsg(j->db));
    return 0;
}

/* --- a file from rows ---------------------------------------------------------- */

struct share_build {
    store *s;
    struct json_plan plans[SHARE_MAX_TABLES];
    long long rows;
};

int store_share_build_open(const char *path, struct share_build **out, sl_err *e)
{
    struct share_build *b = xcalloc(1, sizeof *b);
    if (store_open(path, &b->s, e) < 0) {
        free(b);
        return -1;
    }
    sqlite3 *db = store_db(b->s);
    int rc = sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF", NULL, NULL, NULL) == SQLITE_OK
                 ? 0 : store_fail(b->s, e, "preparing a file for the server's rows");
    for (int i = 0; rc == 0 && i < share_table_count && i < SHARE_MAX_TABLES; i++)
        rc = plan_table(db, &share_tables[i], &b->plans[i], e);
    if (rc == 0) rc = store_begin(b->s, e);
    if (rc < 0) {
        store_close(b->s);
        free(b);
        return -1;
    }
    *out = b;
    return 0;
}

static int unhex(const char *s, unsigned char **out, int *n)
{
    size_t len = strlen(s);
    if (len % 2) return -1;
    unsigned char *b = xmalloc(len / 2 + 1);
    for (size_t i = 0; i < len / 2; i++) {
        unsigned v = 0;
        if (sscanf(s + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
            !strchr("0123456789abcdefABCDEF", s[2 * i + 1])) {
            free(b);
            return -1;
        }
        b[i] = (unsigned char)v;
    }
    *out = b;
    *n = (int)(len / 2);
    return 0;
}

/* One value into parameter k: 0, or -1 when the JSON cannot be a column. */
static int bind_json(sqlite3_stmt *st, int k, json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING: return sqlite3_bind_text(st, k, json_string_value(v), (int)json_string_length(v), SQLITE_TRANSIENT) == SQLITE_OK ? 0 : -1;
    case JSON_INTEGER: return sqlite3_bind_int64(st, k, json_integer_value(v)) == SQLITE_OK ? 0 : -1;
    case JSON_REAL: return sqlite3_bind_double(st, k, json_real_value(v)) == SQLITE_OK ? 0 : -1;
    case JSON_NULL: return sqlite3_bind_null(st, k) == SQLITE_OK ? 0 : -1;
    case JSON_OBJECT: {
        const char *hex = json_string_value(json_object_get(v, "hex"));
        unsigned char *b;
        int n;
        if (!hex || json_object_size(v) != 1 || unhex(hex, &b, &n) < 0) return -1;
        return sqlite3_bind_blob(st, k, b, n, free) == SQLITE_OK ? 0 : -1;
    }
    default: return -1;
    }
}

int store_share_build_row(struct share_build *b, const char *table, json_t *row, sl_err *e)
{
    const struct json_plan *p = NULL;
    for (int i = 0; i < share_table_count && i < SHARE_MAX_TABLES; i++)
        if (strcmp(b->plans[i].t->name, table) == 0) p = &b->plans[i];
    if (!p || !json_is_object(row)) return sl_fail(e, SL_EFAIL, "the server sent a %s row sluice does not share", table);
    size_t cap = 512 + (size_t)p->ncols * 200;
    char *cols = xmalloc(cap), *vals = xmalloc(cap);
    size_t cl = 0, vl = 0;
    json_t *bound[JSON_MAX_COLS];
    int nb = 0;
    cols[0] = vals[0] = 0;
    for (int i = 0; i < p->ncols; i++) {
        const struct json_col *c = &p->cols[i];
        json_t *v = json_object_get(row, c->name);
        if (!v) continue;   /* an older sluice's row: the column's default */
        const char *sep = nb ? ", " : "";
        cl += (size_t)snprintf(cols + cl, cap - cl, "%s\"%s\"", sep, c->name);
        if (c->parent)
            vl += (size_t)snprintf(vals + vl, cap - vl, "%s(SELECT \"%s\" FROM \"%s\" WHERE \"%s\" = ?%d)", sep, c->to,
                                   c->parent->name, c->parent->key, nb + 1);
        else vl += (size_t)snprintf(vals + vl, cap - vl, "%s?%d", sep, nb + 1);
        bound[nb++] = v;
    }
    char *sql = xmalloc(cl + vl + 128);
    /* A row already here (a parent of an earlier batch, a device re-created
     * on its host: another UUID, the same host, name, serial and wwid) is
     * kept once, as a merge would; NOT NULL and CHECK still refuse. */
    sprintf(sql, "INSERT INTO \"%s\" (%s) VALUES (%s) ON CONFLICT DO NOTHING", table, cols, vals);
    free(cols);
    free(vals);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(store_db(b->s), sql, -1, &st, NULL) == SQLITE_OK ? 0 : -1;
    free(sql);
    if (rc < 0) return store_fail(b->s, e, "storing the server's rows");
    for (int k = 0; rc == 0 && k < nb; k++)
        if (bind_json(st, k + 1, bound[k]) < 0)
            rc = sl_fail(e, SL_EFAIL, "the server's %s row has a value sluice cannot store (not text, a number, "
                         "null or a hex blob): nothing merged", table);
    if (rc == 0 && store_step(st) != SQLITE_DONE) rc = store_fail(b->s, e, "storing the server's rows");
    sqlite3_finalize(st);
    if (rc == 0) b->rows++;
    return rc;
}

int store_share_build_close(struct share_build *b, bool keep, sl_err *e)
{
    int rc = 0;
    if (keep) rc = store_commit(b->s, e);
    else store_rollback(b->s);
    store_close(b->s);
    free(b);
    return rc;
}

int store_share_claim_host(store *s, const char *uuid, const struct host_info *h, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "UPDATE hosts SET machine_key = ?1 WHERE uuid = ?2", -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "naming this host");
    sqlite3_bind_text(st, 1, h->machine_id[0] ? h->machine_id : h->hostname, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, uuid, -1, SQLITE_STATIC);
    int rc = store_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_fail(s, e, "naming this host");
}
