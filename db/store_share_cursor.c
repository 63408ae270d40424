/* store_share_cursor — how far pulls from a central store got (011): the
 * server's sequence number of the last run merged, per server and class. */
#include "store_share.h"

#include <stdio.h>

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
    sqlite3_stmt *st;
    const char *q = "INSERT INTO share_cursors (server, hw_class, seq, url) VALUES (?1, ?2, ?3, ?4) "
                    "ON CONFLICT (server, hw_class) DO UPDATE SET seq = excluded.seq, url = excluded.url, "
                    "pulled = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";
    if (sqlite3_prepare_v2(store_db(s), q, -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "recording where the pull stopped");
    sqlite3_bind_text(st, 1, server, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, cls, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, seq);
    sqlite3_bind_text(st, 4, url, -1, SQLITE_STATIC);
    int rc = store_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_fail(s, e, "recording where the pull stopped");
}
