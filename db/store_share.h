/* store_share — what travels between machines: the declarative table of
 * shareable tables, checking an untrusted database file, exporting a
 * snapshot for push, and merging a checked file into the local store. */
#ifndef SLUICE_STORE_SHARE_H
#define SLUICE_STORE_SHARE_H

#include <stdbool.h>
#include "db/store.h"
#include <jansson.h>

/* One row per table that is shared, parents before children. Everything
 * else in the schema (sessions, snapshots, session_changes, and any table not
 * listed here) is local machine state: wiped from exports, never merged.
 * Foreign keys are read from the schema itself (PRAGMA foreign_key_list): a
 * key to a shared parent is remapped through the parent's identity, a key to
 * a local-only table is exported and merged as NULL (so it must be nullable). */
struct share_table {
    const char *name;
    /* Identity: the column(s) that name a row on every machine (a UUID or a
     * content hash). Rows are found again, and deduplicated, by it. NULL for
     * a dependent table (see owner). */
    const char *key;
    /* A second UNIQUE key that can name the same row under another identity
     * (e.g. a device re-created with a new UUID), or NULL. Comma separated;
     * foreign-key columns in it are compared after remapping. */
    const char *alt_key;
    /* Dependent tables (rows without an identity of their own, like the
     * samples of a run): the foreign-key column of the owning row. Their rows
     * are copied only together with a newly merged owner. */
    const char *owner;
    /* A column whose value must not leave this machine, and the SQL
     * expression (over the source row `s`) it is replaced by on export and
     * on merge, or NULL. */
    const char *private_col, *private_expr;
    /* When key is a content hash: the column whose SHA-256 (lowercase hex)
     * it is. Every row that comes in is checked against it (a row under
     * this host's hash with other content would become what this host's
     * own runs measured), or NULL. */
    const char *hash_of;
};

extern const struct share_table share_tables[];
extern const int share_table_count;
/* Tables that are local machine state by decision (listed so that a unit
 * test can insist every table in the schema is classified one way or the
 * other). */
extern const char *const share_local_tables[];
extern const int share_local_table_count;

const struct share_table *share_table_find(const char *name);

/* Cap on what a merge reports per table. */
#define SHARE_MAX_TABLES 16

struct share_report {
    int ntables;
    struct {
        char table[48];
        long long added;     /* rows inserted */
        long long known;     /* rows already present (same identity) */
        long long skipped;   /* rows refused: a missing parent, a constraint */
    } t[SHARE_MAX_TABLES];
};

long long share_report_added(const struct share_report *r);

/* Check an untrusted database file before anything reads its rows: SQLite
 * header, opened read-only in defensive mode with trusted_schema=OFF,
 * triggers and views disabled; no trigger or view that is not identical to
 * one in the local schema; no table the local schema does not have (a file
 * of our schema version or older has only our tables); no column the local
 * table lacks; schema version between 1 and ours; PRAGMA quick_check
 * clean; every row one that sluice's own schema takes (NOT NULL, CHECK,
 * keys, whatever the file declares); every key that is a content hash
 * the SHA-256 of its content (store_share_check_hashes); metrics finite
 * and physically possible; no run claiming this host that this host does
 * not already hold.
 * path is a private copy (share_stage): nothing else can change it between
 * the check and the merge. When its header says WAL, its two journal-mode
 * bytes are rewritten to rollback mode (it has no -wal beside it).
 * It is read from disk page by page, in a few MB of memory whatever its size.
 * Returns 0, or -1 with a message naming `label` (what the user calls the
 * file) and the reason; nothing in the local store is touched. */
/* Whether store_share_check may run on several threads at once with the
 * same store (SQLite built in serialized mode). */
bool store_share_check_concurrent(void);
int store_share_check(store *s, const char *path, const char *label, sl_err *e);
/* The row checks of store_share_check (db/store_share_rows.c), on the
 * hostile connection db that holds the file as "main": every row taken by
 * the local schema's own constraints and keys; run metrics finite and
 * within what a probe can measure; runs carrying my_uuid (this host's)
 * only if the local store has them already. 0, or -1 naming label. */
int store_share_check_constraints(store *s, sqlite3 *db, const char *label, sl_err *e);
/* The file could not be read: "LABEL is corrupt or not a sluice database",
 * or, when reading stopped for a reason that is not the file's (interrupted,
 * I/O error, no memory, busy, full), "reading LABEL failed". -1. */
int store_share_corrupt(sqlite3 *db, const char *label, sl_err *e);
/* The first column of every row of sql (?1 bound to table), e.g. a table's
 * column names, read once to be looked up many times. A second column, when
 * sql has one, names a table: rows naming a shared table are left out.
 * 0, or -1 (the connection's error says why; out empty). Free with
 * store_share_names_free. */
struct share_names {
    char **v;
    int n, cap;
};
int store_share_names_read(sqlite3 *db, const char *sql, const char *table, struct share_names *out);
bool store_share_names_has(const struct share_names *l, const char *name);
void store_share_names_free(struct share_names *l);
int store_share_check_claims(store *s, sqlite3 *db, const char *my_uuid, const char *label, sl_err *e);
/* Content hashes (db/store_share_hash.c). store_share_hash_register gives
 * the connection db the SQL function sluice_sha256(x): the lowercase hex
 * SHA-256 of x's text (NULL for NULL), as probe_sha256_hex names configs
 * and workloads. 0, or -1 (db's error says why). */
int store_share_hash_register(sqlite3 *db);
/* Every row of a table with hash_of, in the database "main" of db, whose
 * key is not the SHA-256 of its content: -1 with e naming label, the
 * table, the row's hash and what its content hashes to, then `outcome`
 * ("nothing merged"); 0 when there is none. db must have sluice_sha256. */
int store_share_check_hashes(sqlite3 *db, const char *label, const char *outcome, sl_err *e);
/* The same check on a store's own rows (a view built from a server's
 * rows, which come from every host that can push). 0, or -1 with e. */
int store_share_check_content(store *s, const char *label, const char *outcome, sl_err *e);
/* How many runs under host_uuid the database file at path (a private
 * copy, untrusted: opened as store_share_check opens it) holds that this
 * store does not: push's test for another machine pushing under this
 * host's identity. 0, or -1 with e naming label. */
int store_share_runs_missing(store *s, const char *path, const char *host_uuid, const char *label, long long *missing,
                             sl_err *e);
/* The database file at path (untrusted) opened as store_share_check opens
 * it: defensive, trusted_schema off, no triggers or views; read-only unless
 * writable. 0, or -1 with e naming label. */
int store_share_open_untrusted(const char *path, const char *label, bool writable, sqlite3 **out, sl_err *e);

/* Retention inside one host's object (db/store_share_trim.c): that host's
 * runs are taken out when they are at or before mark ("STARTED UUID ID", an
 * earlier trim's: at or before that run in (started, uuid) order and with
 * an id up to ID, the largest of the host's the object held when all its
 * runs up to that one went; an older sluice's mark has no ID; NULL or "":
 * none), or started before `before` (an ISO-8601 UTC
 * time; NULL or "": none), or not among its newest keep_runs (0: no cap).
 * They are always its oldest in (started, uuid) order. */
struct share_trim {
    int keep_runs;
    const char *before;
    const char *mark;
};
struct share_trimmed {
    long long removed, kept;  /* the host's runs taken out, and left */
    char mark[128];           /* the newest taken out, or t->mark if that is newer */
};
/* Trim host's runs in the database file at path (a private copy: see
 * store_share_open_untrusted), vacuumed; with dry_run only counted. 0, or
 * -1 with e naming label (the file then as it was). */
int store_share_trim(const char *path, const char *label, const char *host, const struct share_trim *t, bool dry_run,
                     struct share_trimmed *out, sl_err *e);
/* The run a mark names, "STARTED UUID" (its ID left off): how it is shown. */
void store_share_mark_run(const char *mark, char *buf, size_t n);

/* The header check (and WAL-byte rewrite) of store_share_check alone, on the
 * private file at path. 0, or -1 naming label. */
int store_share_header(const char *path, const char *label, sl_err *e);

/* Merge the file that passed store_share_check into the local store in one
 * transaction: rows are inserted when their identity (UUID or content hash)
 * is new, foreign keys are remapped through the parents' identities (local
 * ids differ between databases), local-only references become NULL. On
 * error the transaction is rolled back: every row and page is as it was.
 * (A refusal by the checks, before any merge starts, leaves the file
 * byte-for-byte as it was. A failure inside the transaction (disk full, I/O
 * error) after the switch to a rollback journal also restores every page,
 * but the switch itself has moved the header's change counter.)
 * Returns 0 and fills *r, or -1 with e. */
int store_share_merge(store *s, const char *path, struct share_report *r, sl_err *e);
/* After the last store_share_merge of a batch (one or many files): the
 * store back in WAL mode, which merges leave while they have it to
 * themselves (db/store_share_merge.c). */
void store_share_merge_done(store *s);

/* Write a consistent snapshot of the store to out_path (SQLite online
 * backup), then scrub it: local-only tables emptied, references to them
 * NULL, private columns replaced, and with only_host_uuid set, only that
 * host's rows (and rows hanging off them) kept; rollback journal, vacuumed.
 * With rec, that host and its disks are upserted into the snapshot first
 * (with rec's UUIDs where they are new); the store itself is only read.
 * -1 with e (out_path may be left behind: the caller owns it). */
int store_share_export(store *s, const char *out_path, const char *only_host_uuid, const struct host_record *rec,
                       sl_err *e);

/* Distinct hardware classes of this host's devices that results were
 * measured on (none until the runs table exists). Returns the count and a
 * malloc'ed array of malloc'ed strings (free with share_classes_free), or -1. */
int store_share_run_classes(store *s, const char *host_uuid, char ***out, sl_err *e);
/* The same, read from a snapshot file store_share_export wrote. */
int store_share_snapshot_classes(const char *path, const char *host_uuid, char ***out, sl_err *e);
void share_classes_free(char **v, int n);

/* This host's UUID if the store knows it (found by machine-id, else hostname,
 * as store_host_upsert does): 0 found, 1 unknown, -1 error. Writes nothing. */
int store_share_host_uuid(store *s, const struct host_info *h, char uuid[37], sl_err *e);

/* A host's runs in a few bytes (db/store_share_digest.c): how many, the
 * newest start, a SHA-256 over their sorted UUIDs (each followed by a
 * newline). The manifest carries it; pull compares it with the local one. */
struct share_digest {
    char host[37];
    long long runs;
    char runs_sha256[65];
    char newest[32];
    char oldest[32];          /* the oldest run's start (prune decides by it) */
    bool known;               /* the host is in the hosts table */
};
/* Every host with runs or a hosts row, sorted by host UUID (find with
 * share_digest_find). Returns the count (array malloc'ed) or -1. */
int store_share_digests(store *s, struct share_digest **out, sl_err *e);
/* The same, read from a snapshot file store_share_export wrote. */
int store_share_snapshot_digests(const char *path, struct share_digest **out, sl_err *e);
const struct share_digest *share_digest_find(const struct share_digest *v, int n, const char *host);

/* Rows, not files (db/store_share_json.c), for a central store that keeps
 * runs one by one (PostgreSQL): the shared rows of a snapshot as JSON
 * objects, one member per column; a reference to a shared parent by local
 * id carries the parent's identity (UUID or hash) instead, blobs are
 * {"hex": "..."}, the rowid and references to local-only tables are left
 * out. And back: a fresh database file (the local schema) built from such
 * objects, to be checked and merged like any downloaded file. */
struct share_json;
typedef int (*share_json_row_fn)(const char *table, const char *ident, json_t *row, void *arg, sl_err *e);
/* Open a snapshot store_share_export wrote, read-only. -1 with e. */
int store_share_json_open(const char *snap, struct share_json **out, sl_err *e);
void store_share_json_close(struct share_json *j);
/* Every row of a shared table with a one-column identity, in identity
 * order, through fn (row is borrowed; fn returns 0 to go on, -1 with e to
 * stop). 0, or -1 with e. */
int store_share_json_rows(struct share_json *j, const char *table, share_json_row_fn fn, void *arg, sl_err *e);

struct share_build;
/* A new database at path (which must not exist) with the local schema, a
 * transaction open. -1 with e. */
int store_share_build_open(const char *path, struct share_build **out, sl_err *e);
/* One row of a shared table, parents before children (a reference to a
 * parent not stored yet becomes NULL, which a NOT NULL column refuses).
 * Members the local table lacks are ignored, columns the row lacks take
 * their default. -1 with e for a value no column can hold or a refused row. */
int store_share_build_row(struct share_build *b, const char *table, json_t *row, sl_err *e);
/* Commit (keep) or roll back, and close. -1 with e when the commit failed. */
int store_share_build_close(struct share_build *b, bool keep, sl_err *e);
/* In a database of rows from elsewhere (a view of a server's runs), the
 * host row with this UUID made this machine's (its machine-id, else its
 * hostname, as store_host_upsert finds it), so that 'this host' finds its
 * own runs there. No such row: nothing changes. 0, or -1 with e. */
int store_share_claim_host(store *s, const char *uuid, const struct host_info *h, sl_err *e);

/* Where pulls from a central store stopped (db/store_share_cursor.c): the
 * server's sequence number of the last run merged from server (its
 * identity, not its URL) for class; 0 when none. url is what the user sees
 * (no password). 0, or -1 with e. */
int store_share_cursor_get(store *s, const char *server, const char *cls, long long *seq, sl_err *e);
int store_share_cursor_set(store *s, const char *server, const char *cls, long long seq, const char *url, sl_err *e);

/* What a file of an object store looked like when it was taken: the
 * server's validators (either may be ""), and for a class manifest its
 * bytes (body, NUL-terminated, malloc'ed; NULL for an object). date: the
 * response's Date, never recorded: it says whether the others may be. */
struct share_validator {
    char etag[256];
    char last_modified[64];
    char date[64];
    char *body;
    size_t body_len;
};
/* The validators this store holds for key of the share at url (shown, no
 * password): all "" and body NULL when none. Free with
 * share_validator_free. 0, or -1 with e. */
int store_share_validator_get(store *s, const char *url, const char *key, struct share_validator *v, sl_err *e);
/* Record v for key (body kept when set); v NULL or without a validator:
 * forget key. 0, or -1 with e. */
int store_share_validator_set(store *s, const char *url, const char *key, const struct share_validator *v, sl_err *e);
void share_validator_free(struct share_validator *v);
/* The keys with validators for url that start with prefix, sorted:
 * the count, or -1 with e (free with share_classes_free). */
int store_share_validator_keys(store *s, const char *url, const char *prefix, char ***keys, sl_err *e);

#endif
