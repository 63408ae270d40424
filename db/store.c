/* store — opening, migrating and identifying rows in the results database. */
#include "db/store.h"
#include "db/store_migrations.h"
#include "core/fault.h"
#include "core/record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

struct store {
    sqlite3 *db;
    char path[PATH_MAX];
    int read_only_why;      /* errno that made us open it read-only (EROFS, EACCES), or 0 */
};

sqlite3 *store_db(store *s) { return s->db; }
const char *store_path(const store *s) { return s->path; }

#define STORE_BUSY_MS 5000

/* SQLite reports a full disk as SQLITE_FULL, or as an I/O error when the
 * WAL index or journal cannot grow: look at the filesystem to tell which. */
static void dir_of(const char *db_path, char *dir, size_t n)
{
    snprintf(dir, n, "%s", db_path);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = 0;
    else snprintf(dir, n, ".");
}

static bool disk_full(const char *db_path)
{
    char dir[PATH_MAX];
    dir_of(db_path, dir, sizeof dir);
    struct statvfs vfs;
    return statvfs(dir, &vfs) == 0 && vfs.f_bavail == 0;
}

int store_fail(store *s, sl_err *e, const char *what)
{
    int code = sqlite3_errcode(s->db) & 0xff;
    if (code == SQLITE_IOERR && disk_full(s->path)) code = SQLITE_FULL;
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
        return sl_fail(e, SL_EFAIL, "%s: %s: another process kept the database locked for more than %d s; "
                       "try again when it has finished", s->path, what, STORE_BUSY_MS / 1000);
    if (code == SQLITE_FULL)
        return sl_fail(e, SL_EFAIL, "%s: %s: the disk holding the database is full; free space and try again",
                       s->path, what);
    if (code == SQLITE_READONLY && s->read_only_why)
        return sl_fail(e, SL_EFAIL, "%s: %s: the database is open read-only (its directory: %s): this needs to write "
                       "it; remount it read-write, or give --db a path on a writable filesystem", s->path, what,
                       strerror(s->read_only_why));
    return sl_fail(e, SL_EFAIL, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

sqlite3_stmt *store_prepare(store *s, const char *sql, const char *what, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK) return st;
    store_fail(s, e, what);
    return NULL;
}

int store_step_write(store *s, sqlite3_stmt *st, const char *what, sl_err *e)
{
    int rc = store_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_fail(s, e, what);
}

int store_check_writable(store *s, const char *what, sl_err *e)
{
    if (!s->read_only_why && sqlite3_db_readonly(s->db, "main") != 1) return 0;
    return sl_fail(e, SL_EFAIL, "%s: %s: the database is open read-only (%s%s): this needs to write it; remount it "
                   "read-write, or give --db a path on a writable filesystem", s->path, what,
                   s->read_only_why ? "its directory: " : "", s->read_only_why ? strerror(s->read_only_why) : "opened so");
}

bool store_busy(store *s)
{
    int code = sqlite3_errcode(s->db) & 0xff;
    return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

void store_default_path(char *buf, size_t n)
{
    if (geteuid() == 0) {
        snprintf(buf, n, "/var/lib/sluice/sluice.db");
        return;
    }
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg) snprintf(buf, n, "%s/sluice/sluice.db", xdg);
    else snprintf(buf, n, "%s/.local/share/sluice/sluice.db", home && *home ? home : ".");
}

void store_uuid(char out[37])
{
    uuid_t u;
    uuid_generate_random(u);
    uuid_unparse_lower(u, out);
}

static int mkdir_parents(const char *path, sl_err *e)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = 0;
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return sl_fail_errno(e, SL_EFAIL, errno, "creating %s", dir);
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return sl_fail_errno(e, SL_EFAIL, errno, "creating %s", dir);
    return 0;
}

/* What the path is, before SQLite opens it, without opening it: this
 * process may already hold the database through another connection (the
 * UI's job threads each open one), and on Linux closing any descriptor of
 * the file drops every POSIX lock the process holds on it; the next process
 * to close its connection then believes it is the last user and unlinks the
 * WAL under the live one (https://sqlite.org/howtocorrupt.html, 2.2). So the
 * header is SQLite's to check (a foreign file fails with "not a database"
 * on the first read), and only stat() is done here: a FIFO, device or
 * directory is refused, since opening one could block forever. */
static int check_path(const char *path, sl_err *e)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        return sl_fail_errno(e, SL_EFAIL, errno, "database %s", path);
    }
    /* as SQLITE_OPEN_NOFOLLOW would, with the reason named */
    if (S_ISLNK(st.st_mode)) return sl_fail_errno(e, SL_EFAIL, ELOOP, "database %s", path);
    if (!S_ISREG(st.st_mode))
        return sl_fail(e, SL_EUSAGE, "database %s is not a regular file (a FIFO, device or directory): give --db the path "
                       "of a database file", path);
    return 0;
}

/* SLUICE_FAULT=sqlite_step:N: the statement is interrupted as SQLite
 * interrupts one (SQLITE_INTERRUPT, "interrupted"), so the caller's own
 * error path runs with SQLite's own message. */
static int interrupt_now(void *arg) { (void)arg; return 1; }

int store_step(sqlite3_stmt *st)
{
    if (!fault_hit(FAULT_SQLITE_STEP)) return sqlite3_step(st);
    sqlite3 *db = sqlite3_db_handle(st);
    sqlite3_progress_handler(db, 1, interrupt_now, NULL);
    int rc = sqlite3_step(st);
    sqlite3_progress_handler(db, 0, NULL, NULL);
    return rc;
}

static int exec_sql(sqlite3 *db, const char *sql, char **msg)
{
    if (!fault_hit(FAULT_SQLITE_STEP)) return sqlite3_exec(db, sql, NULL, NULL, msg);
    sqlite3_progress_handler(db, 1, interrupt_now, NULL);
    int rc = sqlite3_exec(db, sql, NULL, NULL, msg);
    sqlite3_progress_handler(db, 0, NULL, NULL);
    return rc;
}

/* sql run for a step that what names ("starting a transaction"), so a
 * failure says which step: "DB: what: SQLite's message". */
static int exec(store *s, const char *sql, const char *what, sl_err *e)
{
    char *msg = NULL;
    if (exec_sql(s->db, sql, &msg) != SQLITE_OK) {
        int code = sqlite3_errcode(s->db) & 0xff;
        if (code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_FULL ||
            (code == SQLITE_IOERR && disk_full(s->path))) {
            sqlite3_free(msg);
            return store_fail(s, e, what);
        }
        sl_fail(e, SL_EFAIL, "%s: %s: %s", s->path, what, msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

int store_schema_version(store *s)
{
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
        if (store_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

static int latest_version(void)
{
    int v = 0;
    for (int i = 0; i < store_migration_count; i++)
        if (store_migrations[i].version > v) v = store_migrations[i].version;
    return v;
}

static int migrate(store *s, sl_err *e)
{
    int have = store_schema_version(s);
    if (have < 0) return store_fail(s, e, "reading the schema version");
    if (have > latest_version())
        return sl_fail(e, SL_EUSAGE, "database %s has schema version %d, newer than this sluice understands (%d): use a newer sluice or another --db",
                       s->path, have, latest_version());
    for (int i = 0; i < store_migration_count; i++) {
        const struct store_migration *m = &store_migrations[i];
        if (m->version <= have) continue;
        if (exec(s, "BEGIN IMMEDIATE", "starting a migration", e) < 0) return -1;
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", m->version);
        if (exec(s, m->sql, "migrating the schema", e) < 0 || exec(s, pragma, "setting the schema version", e) < 0) {
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            return sl_prefix(e, SL_EFAIL, "migration %s failed", m->name);
        }
        if (exec(s, "COMMIT", "committing a migration", e) < 0) return -1;
    }
    return 0;
}

/* errno saying why nothing can be created beside path (EROFS, EACCES), or 0. */
static int dir_unwritable(const char *path)
{
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    return access(dir, W_OK) == 0 ? 0 : errno;
}

static bool has_wal_content(const char *path)
{
    char wal[PATH_MAX + 8];
    snprintf(wal, sizeof wal, "%s-wal", path);
    struct stat st;
    return stat(wal, &st) == 0 && st.st_size > 0;
}

/* path as a file: URI with immutable=1 ('?', '#' and '%' escaped). */
static char *immutable_uri(const char *path)
{
    size_t n = 3 * strlen(path) + 32;
    char *uri = xmalloc(n);
    size_t j = (size_t)snprintf(uri, n, "file:");
    for (const char *p = path; *p; p++)
        j += (size_t)(strchr("?#%", *p) ? snprintf(uri + j, n - j, "%%%02X", (unsigned char)*p)
                                        : snprintf(uri + j, n - j, "%c", *p));
    snprintf(uri + j, n - j, "?immutable=1");
    return uri;
}

/* A database on a read-only filesystem (a rescue boot, a snapshot, a
 * read-only bind mount): readers in WAL mode need the -shm index, which
 * cannot be created there. Opened read-only, as immutable when no -wal holds
 * pages a reader must see; writes then fail saying why (store_fail). */
static int open_read_only(store *s, int why, sl_err *e)
{
    sqlite3_close(s->db);
    s->db = NULL;
    int rc;
    if (!has_wal_content(s->path)) {
        char *uri = immutable_uri(s->path);
        rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
        free(uri);
    } else {
        rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY, NULL);
    }
    if (rc == SQLITE_OK && sqlite3_exec(s->db, "PRAGMA foreign_keys=ON; SELECT count(*) FROM sqlite_schema", NULL, NULL,
                                        NULL) == SQLITE_OK) {
        s->read_only_why = why;
        return 0;
    }
    return sl_fail(e, SL_EFAIL, "database %s: cannot open it%s (%s), and its directory cannot be written (%s): it has a "
                   "-wal file that only a writer can fold in; open it once where it is writable, or copy the directory "
                   "to a writable place and give --db", s->path, has_wal_content(s->path) ? " read-only" : "",
                   s->db ? sqlite3_errmsg(s->db) : "cannot open", strerror(why));
}

/* Opening failed: read-only when the directory cannot be written and the
 * database exists, else a message saying which file, why and what to do. */
static int open_unwritable(store *s, sl_err *e)
{
    int why = dir_unwritable(s->path);
    struct stat st;
    bool exists = stat(s->path, &st) == 0 && st.st_size > 0;
    if (why && exists) return open_read_only(s, why, e);
    if (why)
        return sl_fail(e, SL_EFAIL, "database %s cannot be created: its directory cannot be written (%s): give --db a "
                       "path on a writable filesystem", s->path, strerror(why));
    return sl_fail(e, SL_EFAIL, "database %s: %s", s->path, s->db ? sqlite3_errmsg(s->db) : "cannot open");
}

static int open_common(const char *path, int flags, store **out, sl_err *e)
{
    store *s = xcalloc(1, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    if (check_path(path, e) < 0) { free(s); return -1; }
    mode_t old = umask(077); /* the database and its WAL are not for others */
    int rc = sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_NOFOLLOW, NULL);
    umask(old);
    if (rc != SQLITE_OK) {
        if (open_unwritable(s, e) == 0) {
            *out = s;
            return 0;
        }
        store_close(s);
        return -1;
    }
    sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_FKEY, 1, NULL);
    /* WAL keeps readers unblocked by the tuning writer; FULL makes a session's
     * snapshot durable before the first knob is written. A run row (metrics,
     * histogram, time series) is 2 KB and more: 4 KiB pages hold one each,
     * 16 KiB pages several, so files (and pushed snapshots) are smaller and a
     * merge writes that much less (bench/merge's input files, which it prints
     * the size of: 20.4 MB each with 4 KiB pages, 13.9 MB with 16 KiB). It
     * takes effect only on a new, empty database; an existing one keeps its
     * page size. */
    if (exec(s, "PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON",
             "setting up the connection", e) < 0) {
        int code = sqlite3_errcode(s->db) & 0xff;
        if ((code == SQLITE_CANTOPEN || code == SQLITE_READONLY) && dir_unwritable(path)) {
            if (open_unwritable(s, e) == 0) {
                *out = s;
                return 0;
            }
        } else if (e && strstr(e->msg, "not a database"))
            sl_fail(e, SL_EUSAGE, "database %s is not an SQLite database: give another path with --db", path);
        store_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

int store_open(const char *path, store **out, sl_err *e)
{
    if (mkdir_parents(path, e) < 0) return -1;
    store *s;
    if (open_common(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &s, e) < 0) return -1;
    if (migrate(s, e) < 0) { store_close(s); return -1; }
    *out = s;
    return 0;
}

int store_open_existing(const char *path, store **out, sl_err *e)
{
    struct stat st;
    if (stat(path, &st) != 0) return 1;
    store *s;
    if (open_common(path, SQLITE_OPEN_READWRITE, &s, e) < 0) return -1;
    int v = store_schema_version(s);
    if (v > latest_version()) {
        sl_fail(e, SL_EUSAGE, "database %s has schema version %d, newer than this sluice understands (%d): use a newer sluice or another --db",
                path, v, latest_version());
        store_close(s);
        return -1;
    }
    if (v < latest_version() && migrate(s, e) < 0) { store_close(s); return -1; }
    *out = s;
    return 0;
}

void store_close(store *s)
{
    if (!s) return;
    sqlite3_close(s->db);
    free(s);
}

int store_begin(store *s, sl_err *e) { return exec(s, "BEGIN IMMEDIATE", "starting a transaction", e); }
int store_commit(store *s, sl_err *e) { return exec(s, "COMMIT", "committing", e); }
void store_rollback(store *s) { sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL); }

store *store_wrap(sqlite3 *db, const char *path)
{
    store *s = xcalloc(1, sizeof *s);
    s->db = db;
    snprintf(s->path, sizeof s->path, "%s", path);
    return s;
}

void store_unwrap(store *s) { free(s); }

/* --- records from their field tables (core/record.h) ------------------- */

/* "INSERT INTO table (lead, col...) VALUES (?1, ...) ON CONFLICT(conflict)
 * DO UPDATE SET col = excluded.col, ... extra WHERE (cols) IS NOT
 * (excluded.cols) suffix": the stored fields in table order after nlead
 * leading columns; REC_KEY fields are inserted, never updated. Facts that
 * did not change are not written at all, so a push that fails afterwards
 * leaves the file as it was, byte for byte. */
struct sqlbuf { char text[8192]; size_t used; };

static void __attribute__((format(printf, 2, 3))) sql_add(struct sqlbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->text + b->used, sizeof b->text - b->used, fmt, ap);
    va_end(ap);
    if (w > 0) b->used = b->used + (size_t)w < sizeof b->text ? b->used + (size_t)w : sizeof b->text - 1;
}

static void upsert_sql(struct sqlbuf *b, const char *table, const char *lead, int nlead, const char *conflict,
                       const struct rec_field *f, size_t nf, const char *extra, const char *suffix)
{
    int nparam = nlead;
    sql_add(b, "INSERT INTO %s (%s", table, lead);
    for (size_t i = 0; i < nf; i++) if (f[i].column) sql_add(b, ", %s", f[i].column);
    sql_add(b, ") VALUES (?1");
    for (int i = 2; i <= nlead; i++) sql_add(b, ", ?%d", i);
    for (size_t i = 0; i < nf; i++) if (f[i].column) sql_add(b, ", ?%d", ++nparam);
    sql_add(b, ") ON CONFLICT(%s) DO UPDATE SET ", conflict);
    const char *sep = "";
    for (size_t i = 0; i < nf; i++)
        if (f[i].column && !(f[i].flags & REC_KEY)) { sql_add(b, "%s%s = excluded.%s", sep, f[i].column, f[i].column); sep = ", "; }
    sql_add(b, "%s WHERE (", extra);
    sep = "";
    for (size_t i = 0; i < nf; i++)
        if (f[i].column && !(f[i].flags & REC_KEY)) { sql_add(b, "%s%s", sep, f[i].column); sep = ", "; }
    sql_add(b, ") IS NOT (");
    sep = "";
    for (size_t i = 0; i < nf; i++)
        if (f[i].column && !(f[i].flags & REC_KEY)) { sql_add(b, "%sexcluded.%s", sep, f[i].column); sep = ", "; }
    sql_add(b, ")%s", suffix);
}

/* Bind one field of rec to parameter i: NULL where the value is missing
 * (rec_is_null), text copied. */
static void bind_one(sqlite3_stmt *st, int i, const struct rec_field *f, const void *rec)
{
    const char *v = (const char *)rec + f->offset;
    char text[512];
    if (rec_is_null(f, rec)) { sqlite3_bind_null(st, i); return; }
    switch (f->type) {
    case REC_TEXT: sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT); break;
    case REC_STR: {
        const char *t = *(const char *const *)v;
        sqlite3_bind_text(st, i, t ? t : "", -1, SQLITE_TRANSIENT);
        break;
    }
    case REC_INT: case REC_TRI: sqlite3_bind_int(st, i, *(const int *)v); break;
    case REC_I64: sqlite3_bind_int64(st, i, *(const int64_t *)v); break;
    case REC_U64: sqlite3_bind_int64(st, i, (sqlite3_int64)*(const unsigned long long *)v); break;
    case REC_DOUBLE: {
        double d;
        memcpy(&d, v, sizeof d);
        sqlite3_bind_double(st, i, d);
        break;
    }
    case REC_BOOL: sqlite3_bind_int(st, i, *(const bool *)v); break;
    case REC_DERIVED:
        f->derive(rec, text, sizeof text);
        sqlite3_bind_text(st, i, text, -1, SQLITE_TRANSIENT);
        break;
    case REC_ENUM: sqlite3_bind_text(st, i, rec_enum_name(f, rec), -1, SQLITE_STATIC); break;
    }
}

/* Bind the stored fields of rec from parameter first on, in table order. */
static void bind_fields(sqlite3_stmt *st, int first, const struct rec_field *f, size_t nf, const void *rec)
{
    for (size_t i = 0; i < nf; i++)
        if (f[i].column) bind_one(st, first++, &f[i], rec);
}

/* Prepare the upsert of one record (upsert_sql) and bind its fields after
 * the nlead leading values the caller binds. NULL with e on error. */
static sqlite3_stmt *prepare_upsert(store *s, const char *table, const char *lead, int nlead, const char *conflict,
                                    const struct rec_field *f, size_t nf, const void *rec, const char *extra,
                                    const char *suffix, const char *what, sl_err *e)
{
    struct sqlbuf b = { .used = 0 };
    upsert_sql(&b, table, lead, nlead, conflict, f, nf, extra, suffix);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, b.text, -1, &st, NULL) != SQLITE_OK) { store_fail(s, e, what); return NULL; }
    bind_fields(st, nlead + 1, f, nf, rec);
    return st;
}

void store_select_fields(char *buf, size_t n, const struct rec_field *f, size_t nf, const char *from)
{
    struct sqlbuf b = { .used = 0 };
    const char *sep = "SELECT ";
    for (size_t i = 0; i < nf; i++)
        if (f[i].column && f[i].type != REC_DERIVED) { sql_add(&b, "%s%s", sep, f[i].column); sep = ", "; }
    sql_add(&b, " %s", from);
    snprintf(buf, n, "%s", b.text);
}

sqlite3_stmt *store_prepare_select(store *s, const struct rec_field *f, size_t nf, const char *from, const char *what,
                                   sl_err *e)
{
    char sql[8192];
    store_select_fields(sql, sizeof sql, f, nf, from);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) { store_fail(s, e, what); return NULL; }
    return st;
}

void store_read_fields(sqlite3_stmt *st, const struct rec_field *f, size_t nf, void *rec)
{
    int col = 0;
    for (size_t i = 0; i < nf; i++) {
        if (!f[i].column || f[i].type == REC_DERIVED) continue;
        char *v = (char *)rec + f[i].offset;
        bool null = sqlite3_column_type(st, col) == SQLITE_NULL;
        if (f[i].have) *(bool *)((char *)rec + f[i].have - 1) = !null;
        switch (f[i].type) {
        case REC_TEXT: {
            const unsigned char *t = sqlite3_column_text(st, col);
            snprintf(v, f[i].size, "%s", t ? (const char *)t : "");
            break;
        }
        case REC_STR: *(const char **)v = (const char *)sqlite3_column_text(st, col); break;
        case REC_INT: case REC_TRI:
            *(int *)v = null && (f[i].flags & REC_NULL_NEG) ? -1 : sqlite3_column_int(st, col);
            break;
        case REC_I64: *(int64_t *)v = sqlite3_column_int64(st, col); break;
        case REC_U64: *(unsigned long long *)v = (unsigned long long)sqlite3_column_int64(st, col); break;
        case REC_DOUBLE: {
            double d = null && (f[i].flags & REC_NULL_NAN) ? NAN : sqlite3_column_double(st, col);
            memcpy(v, &d, sizeof d);
            break;
        }
        case REC_BOOL: *(bool *)v = sqlite3_column_int(st, col) != 0; break;
        case REC_DERIVED: break;
        case REC_ENUM: *(int *)v = rec_enum_value(&f[i], (const char *)sqlite3_column_text(st, col)); break;
        }
        col++;
    }
}

/* The fields a statement of kind `update` (else an insert) writes. */
static bool written(const struct rec_field *f, bool update)
{
    if (!f->column || (f->flags & REC_READONLY)) return false;
    return update ? (f->flags & REC_UPDATE) != 0 : !(f->flags & REC_NOINSERT);
}

/* Bind the written fields to their named parameters (":column"). */
static void bind_named(sqlite3_stmt *st, const struct rec_field *f, size_t nf, const void *rec, bool update)
{
    for (size_t i = 0; i < nf; i++) {
        if (!written(&f[i], update)) continue;
        char name[80];
        snprintf(name, sizeof name, ":%s", f[i].column);
        bind_one(st, sqlite3_bind_parameter_index(st, name), &f[i], rec);
    }
}

sqlite3_stmt *store_prepare_insert(store *s, const char *table, const char *extra, const struct rec_field *f,
                                   size_t nf, const void *rec, const char *suffix, const char *what, sl_err *e)
{
    struct sqlbuf cols = { .used = 0 }, vals = { .used = 0 };
    const char *sep = "";
    for (const char *p = extra ? extra : ""; *p;) {
        size_t len = strcspn(p, ", ");
        if (len) { sql_add(&cols, "%s%.*s", sep, (int)len, p); sql_add(&vals, "%s:%.*s", sep, (int)len, p); sep = ", "; }
        p += len + strspn(p + len, ", ");
    }
    for (size_t i = 0; i < nf; i++)
        if (written(&f[i], false)) { sql_add(&cols, "%s%s", sep, f[i].column); sql_add(&vals, "%s:%s", sep, f[i].column); sep = ", "; }
    char sql[sizeof cols.text * 2 + 256];
    /* table, columns and suffix are this program's own text (the compiled field tables); every value is bound */
    snprintf(sql, sizeof sql, "INSERT INTO %s (%s) VALUES (%s)%s", table, cols.text, vals.text, suffix ? suffix : ""); /* security: OK because only identifiers */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) { store_fail(s, e, what); return NULL; }
    bind_named(st, f, nf, rec, false);
    return st;
}

int store_insert_child(store *s, const char *table, const char *parent, int64_t parent_id, const struct rec_field *f,
                       size_t nf, const void *rec, const char *what, sl_err *e)
{
    sqlite3_stmt *st = store_prepare_insert(s, table, parent, f, nf, rec, NULL, what, e);
    if (!st) return -1;
    char name[64];
    snprintf(name, sizeof name, ":%s", parent);
    sqlite3_bind_int64(st, store_param(st, name), parent_id);
    int rc = store_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, what);
    return 0;
}

int store_insert_dated(store *s, const char *table, const struct rec_field *f, size_t nf, const void *rec, int64_t *id,
                       char *started, size_t started_n, const char *what, sl_err *e)
{
    sqlite3_stmt *st = store_prepare_insert(s, table, NULL, f, nf, rec, " RETURNING id, started", what, e);
    if (!st) return -1;
    int rc = store_step(st);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        const unsigned char *t = sqlite3_column_text(st, 1);
        snprintf(started, started_n, "%s", t ? (const char *)t : "");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : store_fail(s, e, what);
}

sqlite3_stmt *store_prepare_update(store *s, const char *table, const struct rec_field *f, size_t nf, const void *rec,
                                   const char *tail, const char *what, sl_err *e)
{
    struct sqlbuf b = { .used = 0 };
    sql_add(&b, "UPDATE %s SET ", table);
    const char *sep = "";
    for (size_t i = 0; i < nf; i++)
        if (written(&f[i], true)) { sql_add(&b, "%s%s = :%s", sep, f[i].column, f[i].column); sep = ", "; }
    sql_add(&b, "%s", tail);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, b.text, -1, &st, NULL) != SQLITE_OK) { store_fail(s, e, what); return NULL; }
    bind_named(st, f, nf, rec, true);
    return st;
}

int store_param(sqlite3_stmt *st, const char *name) { return sqlite3_bind_parameter_index(st, name); }

int store_collect(store *s, sqlite3_stmt *st, const struct rec_field *f, size_t nf, size_t elem, void **out,
                  const char *what, sl_err *e)
{
    int n = 0, cap = 0;
    char *v = xgrow(NULL, 0, &cap, elem, 16);   /* an empty result is an array too */
    int rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        v = xgrow(v, n, &cap, elem, 16);
        store_read_fields(st, f, nf, v + (size_t)n * elem);
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) { free(v); return store_fail(s, e, what); }
    *out = v;
    return n;
}

int store_get_by_prefix(store *s, sqlite3_stmt *st, const struct rec_field *f, size_t nf, void *rec, size_t size,
                        const char *prefix, const char *noun, const char *list, const char *what, sl_err *e)
{
    sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
    int n = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        if (n == 0) {
            memset(rec, 0, size);
            store_read_fields(st, f, nf, rec);
        }
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, what);
    if (n == 0) return sl_fail(e, SL_EUSAGE, "no %s %s in %s (see '%s')", noun, prefix, store_path(s), list);
    if (n > 1) return sl_fail(e, SL_EUSAGE, "%s id %s is ambiguous: give more of its UUID", noun, prefix);
    return 0;
}

void store_now(char buf[24])
{
    time_t t = time(NULL);
    struct tm tm;
    strftime(buf, 24, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
}

/* store_host_upsert, except that a row it creates takes new_uuid (NULL: a
 * fresh one); a row that exists keeps its own. seen: the time written as
 * first_seen and last_seen (NULL or "": now). */
static int store_host_upsert_as(store *s, const struct host_info *h, const char *new_uuid, const char *seen,
                                int64_t *id, char uuid[37], sl_err *e)
{
    const char *key = h->machine_id[0] ? h->machine_id : h->hostname;
    sqlite3_stmt *st;
    const char *find = "SELECT id, uuid FROM hosts WHERE machine_key = ?";
    if (sqlite3_prepare_v2(s->db, find, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "finding the host");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    int rc = store_step(st);
    bool found = rc == SQLITE_ROW;
    if (found) {
        *id = sqlite3_column_int64(st, 0);
        snprintf(uuid, 37, "%s", (const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return store_fail(s, e, "finding the host");
    if (!found && new_uuid) snprintf(uuid, 37, "%s", new_uuid);
    else if (!found) store_uuid(uuid);
    char now[24];
    if (!seen || !seen[0]) {
        store_now(now);
        seen = now;
    }
    /* last_seen is the last time the host's facts were seen to change. */
    st = prepare_upsert(s, "hosts", "uuid, machine_key, first_seen, last_seen", 4, "machine_key", host_fields,
                        host_fields_len, h, ", last_seen = excluded.last_seen", "", "saving the host", e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, uuid, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, seen, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, seen, -1, SQLITE_TRANSIENT);
    rc = store_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "saving the host");
    if (!found) *id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

int store_host_upsert(store *s, const struct host_info *h, int64_t *id, char uuid[37], sl_err *e)
{
    return store_host_upsert_as(s, h, NULL, NULL, id, uuid, e);
}

static int device_id(store *s, int64_t host_id, const struct device *d, int64_t *id, sl_err *e)
{
    sqlite3_stmt *st;
    const char *q = "SELECT id FROM devices WHERE host_id = ? AND name = ? AND serial = ? AND wwid = ?";
    if (sqlite3_prepare_v2(s->db, q, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "finding a device");
    sqlite3_bind_int64(st, 1, host_id);
    sqlite3_bind_text(st, 2, d->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, d->serial, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, d->wwid, -1, SQLITE_TRANSIENT);
    int rc = store_step(st);
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : store_fail(s, e, "finding a device");
}

/* store_device_upsert with new_uuid, as store_host_upsert_as. */
static int store_device_upsert_as(store *s, int64_t host_id, const struct device *d, const char *new_uuid, int64_t *id,
                                  sl_err *e)
{
    char uuid[37];
    if (new_uuid) snprintf(uuid, sizeof uuid, "%s", new_uuid);
    else store_uuid(uuid);
    sqlite3_stmt *st = prepare_upsert(s, "devices", "uuid, host_id", 2, "host_id, name, serial, wwid", device_fields,
                                      device_fields_len, d, "", " RETURNING id", "saving a device", e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, uuid, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, host_id);
    int rc = store_step(st);
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return device_id(s, host_id, d, id, e); /* known and unchanged */
    if (rc != SQLITE_ROW) return store_fail(s, e, "saving a device");
    return 0;
}

int store_device_upsert(store *s, int64_t host_id, const struct device *d, int64_t *id, sl_err *e)
{
    return store_device_upsert_as(s, host_id, d, NULL, id, e);
}

int store_host_record(store *s, const struct host_record *r, sl_err *e)
{
    int64_t host_id;
    char uuid[37];
    if (store_host_upsert_as(s, r->h, r->uuid, r->seen, &host_id, uuid, e) < 0) return -1;
    for (int i = 0; i < r->ndev; i++) {
        int64_t id;
        if (store_device_upsert_as(s, host_id, &r->dev[i], r->dev_uuid[i], &id, e) < 0) return -1;
    }
    return 0;
}
