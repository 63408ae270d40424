/* store_scratch — SQL for the probe_scratch table. */
#include "db/store_scratch.h"

#include <stdio.h>
#include <stdlib.h>

int store_scratch_add(store *s, const char *path, long pid, long uid, sl_err *e)
{
    const char *what = "recording a probe scratch directory";
    /* REPLACE: a path is unique on disk, so an old row of the same name
     * (a recycled pid and the same random suffix) is stale. */
    sqlite3_stmt *st = store_prepare(s, "INSERT OR REPLACE INTO probe_scratch (path, pid, uid) VALUES (?, ?, ?)", what, e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, pid);
    sqlite3_bind_int64(st, 3, uid);
    return store_step_write(s, st, what, e);
}

int store_scratch_forget(store *s, const char *path, sl_err *e)
{
    const char *what = "forgetting a probe scratch directory";
    sqlite3_stmt *st = store_prepare(s, "DELETE FROM probe_scratch WHERE path = ?", what, e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    return store_step_write(s, st, what, e);
}

int store_scratch_list(store *s, struct scratch_row **out, sl_err *e)
{
    sqlite3_stmt *st;
    *out = NULL;
    if (sqlite3_prepare_v2(store_db(s), "SELECT path, pid, uid, created FROM probe_scratch ORDER BY created, path", -1,
                           &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "listing probe scratch directories");
    int n = 0, cap = 0, rc;
    struct scratch_row *rows = NULL;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        rows = xgrow(rows, n, &cap, sizeof *rows, 8);
        COPY_TEXT(rows[n].path, st, 0);
        rows[n].pid = (long)sqlite3_column_int64(st, 1);
        rows[n].uid = (long)sqlite3_column_int64(st, 2);
        COPY_TEXT(rows[n].created, st, 3);
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(rows);
        return store_fail(s, e, "listing probe scratch directories");
    }
    *out = rows;
    return n;
}
