/* store — the SQLite results database: open (WAL, foreign keys, busy
 * timeout), embedded migrations, UUIDs, and the host/device rows. All SQL in
 * sluice lives under db/. */
#ifndef SLUICE_STORE_H
#define SLUICE_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>
#include "core/err.h"
#include "core/device.h"

typedef struct store store;

/* Open (creating if missing, with a 0700 directory and a 0600 file) and
 * migrate. -1 with a message naming the path when it is not an SQLite
 * database, is from a newer sluice, or cannot be created. */
int store_open(const char *path, store **out, sl_err *e);
/* Open only if the file exists (no create, no migration); 1 when absent. */
int store_open_existing(const char *path, store **out, sl_err *e);
void store_close(store *s);
sqlite3 *store_db(store *s);
const char *store_path(const store *s);
int store_schema_version(store *s);

/* Default path: /var/lib/sluice/sluice.db as root, else
 * $XDG_DATA_HOME/sluice/sluice.db (~/.local/share/sluice/sluice.db). */
void store_default_path(char *buf, size_t n);

int store_begin(store *s, sl_err *e);
int store_commit(store *s, sl_err *e);
void store_rollback(store *s);
/* sqlite3_step, with the fault hook (SLUICE_FAULT=sqlite_step:N, fault.h):
 * every statement under db/ steps through it. Returns as sqlite3_step. */
int store_step(sqlite3_stmt *st);
/* sql prepared on s's connection; NULL with e naming what (store_fail). */
sqlite3_stmt *store_prepare(store *s, const char *sql, const char *what, sl_err *e);
/* A statement that returns no rows (an insert, update or delete) stepped
 * to its end and finalized: 0, or -1 with e naming what. Every such write
 * under db/ ends here, so they all fail the same way. */
int store_step_write(store *s, sqlite3_stmt *st, const char *what, sl_err *e);
/* Records from their field tables (core/record.h): "SELECT col, ... FROM
 * ..." of the stored fields in table order (columns may be expressions),
 * and one result row of it read back into rec. */
struct rec_field;
void store_select_fields(char *buf, size_t n, const struct rec_field *f, size_t nf, const char *from);
void store_read_fields(sqlite3_stmt *st, const struct rec_field *f, size_t nf, void *rec);
/* store_select_fields' statement prepared; NULL with e naming what. */
sqlite3_stmt *store_prepare_select(store *s, const struct rec_field *f, size_t nf, const char *from, const char *what,
                                   sl_err *e);
/* Every row of the prepared statement st (of store_select_fields' list)
 * into a malloc'ed array of elem-byte records (*out; caller frees), then
 * finalizes st. Returns the count, or -1 with e naming what. */
int store_collect(store *s, sqlite3_stmt *st, const struct rec_field *f, size_t nf, size_t elem, void **out,
                  const char *what, sl_err *e);
/* A record named by its UUID or a unique prefix of it: the one row of st
 * (store_select_fields' list, ?1 the prefix, LIMIT 2) into rec (size bytes,
 * zeroed first); binds prefix and finalizes st. Returns 0; -1 with
 * SL_EUSAGE when there is none ("no NOUN PREFIX in DB (see 'LIST')") or
 * several (give more of the UUID), or with e naming what when the database
 * fails. */
int store_get_by_prefix(store *s, sqlite3_stmt *st, const struct rec_field *f, size_t nf, void *rec, size_t size,
                        const char *prefix, const char *noun, const char *list, const char *what, sl_err *e);
/* "INSERT INTO table (extra..., col...) VALUES (:extra..., :col...) suffix"
 * prepared, with rec's fields bound (all with a column but REC_NOINSERT and
 * REC_READONLY ones). extra: a comma-separated list of further columns the
 * caller binds by name (store_param(st, ":col")); NULL for none. NULL with
 * e naming what on error. */
sqlite3_stmt *store_prepare_insert(store *s, const char *table, const char *extra, const struct rec_field *f,
                                   size_t nf, const void *rec, const char *suffix, const char *what, sl_err *e);
/* store_prepare_insert of rec as a row of a table that belongs to another
 * row (a search's trial, a verification's block): the parent column
 * (":name") set to parent_id. -1 with e naming what. */
int store_insert_child(store *s, const char *table, const char *parent, int64_t parent_id, const struct rec_field *f,
                       size_t nf, const void *rec, const char *what, sl_err *e);
/* store_prepare_insert of rec into a table whose rows have an id and a
 * started time the database sets: both read back into *id and started.
 * -1 with e naming what. */
int store_insert_dated(store *s, const char *table, const struct rec_field *f, size_t nf, const void *rec, int64_t *id,
                       char *started, size_t started_n, const char *what, sl_err *e);
/* "UPDATE table SET col = :col, ... tail" of the REC_UPDATE fields, bound;
 * tail (", x = :y WHERE id = :id") may use those names and its own, which
 * the caller binds. NULL with e on error. */
sqlite3_stmt *store_prepare_update(store *s, const char *table, const struct rec_field *f, size_t nf, const void *rec,
                                   const char *tail, const char *what, sl_err *e);
/* The index of the named parameter (":name") in st, 0 when it has none. */
int store_param(sqlite3_stmt *st, const char *name);
/* Fill e from the connection's last error; returns -1. */
int store_fail(store *s, sl_err *e, const char *what);
/* 0 when the database can be written; -1 with e naming the file, that it
 * is open read-only and why, and what to do: for callers that must not
 * change anything (a knob) they could not record. */
int store_check_writable(store *s, const char *what, sl_err *e);
/* The last error was another connection holding the database past the busy
 * timeout (the caller should give up rather than wait again). */
bool store_busy(store *s);

/* Copy a text column into a fixed char array (NULL reads as ""), truncating. */
#define COPY_TEXT(dst, st, col) \
    snprintf((dst), sizeof(dst), "%s", sqlite3_column_text((st), (col)) ? (const char *)sqlite3_column_text((st), (col)) : "")

/* A random RFC 4122 UUID in text form. */
void store_uuid(char out[37]);

/* Find or create this host's row (keyed by machine-id, else hostname) and
 * refresh its facts. */
int store_host_upsert(store *s, const struct host_info *h, int64_t *id, char uuid[37], sl_err *e);
int store_device_upsert(store *s, int64_t host_id, const struct device *d, int64_t *id, sl_err *e);

/* The time now as the store's rows say it (YYYY-MM-DDTHH:MM:SSZ, UTC). */
void store_now(char buf[24]);

/* This host and its disks, with the UUIDs their rows take if they are new. */
struct host_record {
    const struct host_info *h;
    const struct device *dev;
    int ndev;
    char uuid[37];
    char (*dev_uuid)[37];     /* ndev of them */
    /* first_seen of a new host row, last_seen of a changed one
     * (YYYY-MM-DDTHH:MM:SSZ; "" for now): a push fixes it once, so that the
     * row its snapshot carries and the row the store records afterwards are
     * the same bytes, whichever second each is written in. */
    char seen[24];
};
/* Upsert the host and every disk, inside the caller's transaction; rows it
 * creates take the record's UUIDs, rows that exist keep their own. A push
 * decides this host's UUIDs before its snapshot carries them, and records
 * the same ones in the store only once an upload succeeded
 * (src/share/sync.c). */
int store_host_record(store *s, const struct host_record *r, sl_err *e);

/* A store over a connection the caller owns (a snapshot being built), so
 * that the row functions above work on it; store_unwrap frees the wrapper
 * and leaves the connection open. */
store *store_wrap(sqlite3 *db, const char *path);
void store_unwrap(store *s);

#endif
