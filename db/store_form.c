/* store_form — remembered form values (012). */
#include "db/store_form.h"

#include <stdio.h>

int store_form_get(store *s, const char *form, const char *field, char *buf, size_t n, sl_err *e)
{
    sqlite3_stmt *st;
    buf[0] = 0;
    if (sqlite3_prepare_v2(store_db(s), "SELECT value FROM form_values WHERE form = ?1 AND field = ?2", -1, &st, NULL) !=
        SQLITE_OK)
        return store_fail(s, e, "reading the remembered form values");
    sqlite3_bind_text(st, 1, form, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, field, -1, SQLITE_STATIC);
    int rc = store_step(st);
    if (rc == SQLITE_ROW) snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return store_fail(s, e, "reading the remembered form values");
    return rc == SQLITE_ROW;
}

int store_form_set(store *s, const char *form, const char *field, const char *value, sl_err *e)
{
    const char *q = "INSERT INTO form_values (form, field, value) VALUES (?1, ?2, ?3) ON CONFLICT (form, field) DO UPDATE "
                    "SET value = excluded.value, saved = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";
    const char *what = "remembering a form value";
    sqlite3_stmt *st = store_prepare(s, q, what, e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, form, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, field, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, value, -1, SQLITE_STATIC);
    return store_step_write(s, st, what, e);
}
