/* store_share_cursor — how far pulls got: from a central store (011), the
 * server's sequence number of the last run merged, per server and class;
 * from an object store (013), each file's validators (ETag, Last-Modified)
 * as the last pull took it. */
#include "db/store_share.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_share_cursor_get(store *s, const char *server, const char *cls, long long *seq, sl_err *e)
{
    sqlite3_stmt *st;
    *seq = 0;
    if (sqlite3_prepare_v2(store_db(s), "SELECT seq FROM share_cursors WHERE server = ?1 AND hw_class = ?2", -1, &st,
                           NULL) != SQLITE_OK)
        return store_fail(s, e, "reading where the last pull stopped");
    sqlite3_bind_text(st, 1, server, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, cls, -1, SQLITE_STATIC);
    int rc = store_step(st);
    if (rc == SQLITE_ROW) *seq = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_fail(s, e, "reading where the last pull stopped");
}

int store_share_cursor_set(store *s, const char *server, const char *cls, long long seq, const char *url, sl_err *e)
{
    const char *what = "recording where the pull stopped";
    sqlite3_stmt *st = store_prepare(s, "INSERT INTO share_cursors (server, hw_class, seq, url) VALUES (?1, ?2, ?3, ?4) "
                                     "ON CONFLICT (server, hw_class) DO UPDATE SET seq = excluded.seq, url = excluded.url, "
                                     "pulled = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')", what, e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, server, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, cls, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, seq);
    sqlite3_bind_text(st, 4, url, -1, SQLITE_STATIC);
    return store_step_write(s, st, what, e);
}

int store_share_validator_get(store *s, const char *url, const char *key, struct share_validator *v, sl_err *e)
{
    sqlite3_stmt *st;
    memset(v, 0, sizeof *v);
    if (sqlite3_prepare_v2(store_db(s), "SELECT etag, last_modified, body FROM share_validators WHERE url = ?1 AND "
                           "key = ?2", -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "reading what the last pull took");
    sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    int rc = store_step(st);
    if (rc == SQLITE_ROW) {
        snprintf(v->etag, sizeof v->etag, "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(v->last_modified, sizeof v->last_modified, "%s", (const char *)sqlite3_column_text(st, 1));
        int n = sqlite3_column_bytes(st, 2);
        if (sqlite3_column_type(st, 2) == SQLITE_BLOB) {
            v->body = xmalloc((size_t)n + 1);
            memcpy(v->body, sqlite3_column_blob(st, 2), (size_t)n);
            v->body[n] = 0;
            v->body_len = (size_t)n;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_fail(s, e, "reading what the last pull took");
}

int store_share_validator_set(store *s, const char *url, const char *key, const struct share_validator *v, sl_err *e)
{
    const char *q = v && (v->etag[0] || v->last_modified[0])
        ? "INSERT INTO share_validators (url, key, etag, last_modified, body) VALUES (?1, ?2, ?3, ?4, ?5) "
          "ON CONFLICT (url, key) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified, "
          "body = excluded.body, fetched = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
        : "DELETE FROM share_validators WHERE url = ?1 AND key = ?2";
    const char *what = "recording what the pull took";
    sqlite3_stmt *st = store_prepare(s, q, what, e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    if (v && (v->etag[0] || v->last_modified[0])) {
        sqlite3_bind_text(st, 3, v->etag, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, v->last_modified, -1, SQLITE_STATIC);
        if (v->body) sqlite3_bind_blob(st, 5, v->body, (int)v->body_len, SQLITE_STATIC);
    }
    return store_step_write(s, st, what, e);
}

int store_share_validator_keys(store *s, const char *url, const char *prefix, char ***keys, sl_err *e)
{
    sqlite3_stmt *st;
    *keys = NULL;
    if (sqlite3_prepare_v2(store_db(s), "SELECT key, etag FROM share_validators WHERE url = ?1 AND "
                           "substr(key, 1, length(?2)) = ?2 ORDER BY key", -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "reading what the last pushes left");
    sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, prefix, -1, SQLITE_STATIC);
    int rc, n = 0, cap = 0;
    char **v = NULL;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        if (n + 1 >= cap) v = xrealloc(v, sizeof *v * (size_t)(cap = cap ? cap * 2 : 8));
        v[n++] = xstrdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        share_classes_free(v, n);
        return store_fail(s, e, "reading what the last pushes left");
    }
    *keys = v ? v : xcalloc(1, sizeof *v);
    return n;
}

void share_validator_free(struct share_validator *v)
{
    free(v->body);
    v->body = NULL;
    v->body_len = 0;
}
