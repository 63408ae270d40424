/* Unit tests for sharing: the table classification, merging (idempotent,
 * convergent, remapped), refusal of hostile files with the store untouched,
 * export scrubbing, and push/pull through the fake transport. */
#include "harness.h"
#include "share_fixture.h"
#include "share/sync.h"
#include "db/store_share.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/share-%s", harness_tmpdir(), name);
}

static store *fresh_store(const char *name)
{
    char n[256];
    snprintf(n, sizeof n, "share-%s", name);
    return harness_store(n);
}

/* A host with n disks named d0.. with serials S<host>-<i>; returns its id. */
static int64_t add_host(store *s, const char *hostname, int ndisks)
{
    struct host_info h = { .cpus = 2, .mem_bytes = 1ULL << 30 };
    snprintf(h.hostname, sizeof h.hostname, "%s", hostname);
    snprintf(h.machine_id, sizeof h.machine_id, "mid-%s", hostname);
    snprintf(h.kernel, sizeof h.kernel, "6.1");
    snprintf(h.virt, sizeof h.virt, "kvm");
    char uuid[37];
    sl_err e;
    int64_t host_id;
    CHECK(store_host_upsert(s, &h, &host_id, uuid, &e) == 0);
    for (int i = 0; i < ndisks; i++) {
        struct device d = { .rotational = 0, .size_bytes = 1ULL << 34, .queue_depth = 32 };
        snprintf(d.name, sizeof d.name, "d%d", i);
        snprintf(d.transport, sizeof d.transport, "nvme");
        snprintf(d.model, sizeof d.model, "Model %d", i % 2);
        snprintf(d.serial, sizeof d.serial, "S%s-%d", hostname, i);
        int64_t id;
        CHECK(store_device_upsert(s, host_id, &d, &id, &e) == 0);
    }
    return host_id;
}

/* A fresh store holding one host (add_host). */
static store *hosted_store(const char *name, const char *hostname, int ndisks)
{
    store *s = fresh_store(name);
    add_host(s, hostname, ndisks);
    return s;
}

/* The first column of sql's first row ("" when none). */
static void text_of(store *s, const char *sql, char *buf, size_t n)
{
    sqlite3_stmt *st;
    buf[0] = 0;
    CHECK(sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) == SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* The number sql's first row starts with (-1: no row). */
static long long count(store *s, const char *sql)
{
    char n[32];
    text_of(s, sql, n, sizeof n);
    return n[0] ? atoll(n) : -1;
}

/* Every device's (uuid, host uuid, name) in order, as one string. */
static char *device_fingerprint(store *s)
{
    sqlite3_stmt *st;
    const char *q = "SELECT group_concat(x, ';') FROM (SELECT d.uuid || '@' || h.uuid || '/' || d.name || "
                    "'/' || d.serial AS x FROM devices d JOIN hosts h ON h.id = d.host_id ORDER BY 1)";
    char *out = NULL;
    if (sqlite3_prepare_v2(store_db(s), q, -1, &st, NULL) != SQLITE_OK) return xstrdup("?");
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) out = xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return out ? out : xstrdup("");
}

static void export_to(store *s, const char *name, const char *only, char *path, size_t n)
{
    tmp_path(path, n, name);
    unlink(path);
    sl_err e;
    if (store_share_export(s, path, only, NULL, &e) != 0) harness_fail(__FILE__, __LINE__, "export: %s", e.msg);
}

/* A store of one host with ndisks disks (hosted_store), exported whole to
 * the test's directory as file: path gets the file's path. */
static store *hosted_export(const char *db, const char *hostname, int ndisks, const char *file, char *path, size_t n)
{
    store *s = hosted_store(db, hostname, ndisks);
    export_to(s, file, NULL, path, n);
    return s;
}

/* s exported to the test's directory under name (only: that host's UUID, or
 * NULL for all), and the file opened as a store. */
static store *export_open(store *s, const char *name, const char *only)
{
    char path[512];
    export_to(s, name, only, path, sizeof path);
    store *x;
    sl_err e;
    if (store_open_existing(path, &x, &e) != 0) harness_fail(__FILE__, __LINE__, "open %s: %s", path, e.msg);
    return x;
}

/* The stores a test opened, closed at its end (c may be NULL). */
static void close_stores(store *a, store *b, store *c)
{
    store_close(a);
    store_close(b);
    store_close(c);
}

static int merge(store *s, const char *path, struct share_report *rep, sl_err *e)
{
    return share_merge_file(s, path, NULL, SHARE_DEFAULT_MAX_BYTES, rep, e);
}

TEST(share_every_table_is_classified)
{
    store *s = fresh_store("classify.db");
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(store_db(s), "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
                             -1, &st, NULL) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        bool local = false;
        for (int i = 0; i < share_local_table_count; i++) local |= strcmp(share_local_tables[i], name) == 0;
        if (!local && !share_table_find(name))
            harness_fail(__FILE__, __LINE__, "table %s is neither shared nor local: add it to share_tables or "
                         "share_local_tables in db/store_share_tables.c", name);
        if (local && share_table_find(name)) harness_fail(__FILE__, __LINE__, "table %s is both", name);
    }
    sqlite3_finalize(st);
    store_close(s);
}

TEST(share_merge_is_idempotent_and_converges)
{
    char fa[512], fb[512];
    store *a = hosted_export("a.db", "alpha", 3, "a.sluicedb", fa, sizeof fa);
    store *b = hosted_export("b.db", "beta", 2, "b.sluicedb", fb, sizeof fb);
    struct share_report rep;
    sl_err e;
    CHECK(merge(b, fa, &rep, &e) == 0);
    CHECK_INT(share_report_added(&rep), 4);
    CHECK_STR(rep.t[0].table, "hosts");
    CHECK_INT(rep.t[0].added, 1);
    CHECK_INT(rep.t[1].added, 3);
    CHECK(merge(b, fa, &rep, &e) == 0);           /* twice: nothing new */
    CHECK_INT(share_report_added(&rep), 0);
    CHECK_INT(rep.t[1].known, 3);
    CHECK(merge(a, fb, &rep, &e) == 0);
    CHECK_INT(share_report_added(&rep), 3);
    char *pa = device_fingerprint(a), *pb = device_fingerprint(b);
    CHECK_STR(pa, pb);                             /* A+B == B+A, host links included */
    CHECK_INT(count(a, "SELECT count(*) FROM devices"), 5);
    /* The merged host never takes this machine's key: its machine-id stays home. */
    CHECK_INT(count(b, "SELECT count(*) FROM hosts WHERE machine_key = 'mid-alpha'"), 0);
    CHECK_INT(count(b, "SELECT count(*) FROM hosts WHERE machine_key LIKE 'host:%'"), 1);
    free(pa);
    free(pb);
    close_stores(a, b, NULL);
}

TEST(share_merge_finds_a_device_twin_by_its_other_key)
{
    store *a = hosted_store("twin-a.db", "gamma", 2);
    char fa[512];
    export_to(a, "twin.sluicedb", NULL, fa, sizeof fa);
    store *b = fresh_store("twin-b.db");
    struct share_report rep;
    sl_err e;
    CHECK(merge(b, fa, &rep, &e) == 0);
    /* The same disk re-created with a new UUID on gamma. */
    CHECK(sqlite3_exec(store_db(a), "UPDATE devices SET uuid = 'renamed-' || id", NULL, NULL, NULL) == SQLITE_OK);
    export_to(a, "twin2.sluicedb", NULL, fa, sizeof fa);
    CHECK(merge(b, fa, &rep, &e) == 0);
    CHECK_INT(share_report_added(&rep), 0);
    CHECK_INT(rep.t[1].known, 2);
    CHECK_INT(count(b, "SELECT count(*) FROM devices"), 2);
    close_stores(a, b, NULL);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = xmalloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

/* A file's bytes, taken to show later that nothing changed them. */
struct file_bytes {
    char *p;
    size_t len;
};

static struct file_bytes file_take(const char *path)
{
    struct file_bytes b = { 0 };
    b.p = slurp(path, &b.len);
    return b;
}

/* Whether path still holds exactly the bytes taken (which are freed). */
static bool file_unchanged(const char *path, struct file_bytes *before)
{
    size_t n;
    char *now = slurp(path, &n);
    bool same = before->p && now && n == before->len && memcmp(before->p, now, n) == 0;
    free(now);
    free(before->p);
    before->p = NULL;
    return same;
}

/* A copy of good under name in the test's directory (its path in path), with
 * sql (if any) run on it through the sqlite3 API, as an attacker would with
 * any tool. */
static void tampered_copy(const char *good, const char *name, const char *sql, char *path, size_t n)
{
    char cmd[2048];
    tmp_path(path, n, name);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", good, path);
    CHECK(system(cmd) == 0);
    if (sql) {
        sqlite3 *db;
        CHECK(sqlite3_open(path, &db) == SQLITE_OK);
        char *msg = NULL;
        if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) harness_fail(__FILE__, __LINE__, "%s: %s", sql, msg);
        sqlite3_close(db);
    }
}

/* Merge a tampered copy of a good export (tampered_copy): refused, the
 * local file byte-identical. */
static void check_refused(store *local, const char *good, const char *name, const char *sql, const char *expect)
{
    char bad[512];
    tampered_copy(good, name, sql, bad, sizeof bad);
    struct file_bytes before = file_take(store_path(local));
    struct share_report rep;
    sl_err e = { 0 };
    CHECK(merge(local, bad, &rep, &e) == -1);
    CHECK_CONTAINS(e.msg, expect);
    CHECK(file_unchanged(store_path(local), &before));
}

TEST(share_merge_refuses_hostile_files_and_changes_nothing)
{
    char good[512];
    store *a = hosted_export("h-a.db", "delta", 2, "good.sluicedb", good, sizeof good);
    store *local = hosted_store("h-local.db", "local", 1);
    check_refused(local, good, "trigger.sluicedb",
                  "CREATE TRIGGER t AFTER INSERT ON hosts BEGIN DELETE FROM devices; END", "trigger \"t\"");
    check_refused(local, good, "view.sluicedb", "CREATE VIEW v AS SELECT * FROM hosts", "view \"v\"");
    check_refused(local, good, "table.sluicedb", "CREATE TABLE evil (x)", "table \"evil\"");
    check_refused(local, good, "column.sluicedb", "ALTER TABLE hosts ADD COLUMN extra TEXT", "hosts.extra");
    check_refused(local, good, "newer.sluicedb", "PRAGMA user_version = 999", "newer than this sluice");
    check_refused(local, good, "zero.sluicedb", "PRAGMA user_version = 0", "not a sluice database");
    check_refused(local, good, "orphan.sluicedb", "PRAGMA foreign_keys=OFF; UPDATE devices SET host_id = 77",
                  "parent in hosts is missing");
    /* A file whose tables declare fewer constraints than sluice's: its
     * rows are held to ours (two devices under one UUID, a NULL where
     * ours says NOT NULL). */
    const char *loose = "PRAGMA foreign_keys=OFF; CREATE TABLE d2 (id INTEGER PRIMARY KEY, uuid, host_id, name, "
                        "transport, vendor, model, serial, wwid, rotational, size_bytes, logical_block_size, "
                        "physical_block_size, hw_queues, queue_depth, max_hw_sectors_kb, hw_class); INSERT INTO d2 "
                        "SELECT * FROM devices; DROP TABLE devices; ALTER TABLE d2 RENAME TO devices; ";
    char sql[1024];
    snprintf(sql, sizeof sql, "%sINSERT INTO devices SELECT id + 10, uuid, host_id, name || 'x', transport, vendor, "
             "model, serial, wwid, rotational, size_bytes, logical_block_size, physical_block_size, hw_queues, "
             "queue_depth, max_hw_sectors_kb, hw_class FROM devices", loose);
    check_refused(local, good, "dup.sluicedb", sql, "UNIQUE constraint failed: devices.uuid");
    snprintf(sql, sizeof sql, "%sUPDATE devices SET hw_class = NULL", loose);
    check_refused(local, good, "null.sluicedb", sql, "NOT NULL constraint failed: devices.hw_class");
    /* Damage: a page of garbage past the header. */
    char bad[512];
    tampered_copy(good, "corrupt.sluicedb", NULL, bad, sizeof bad);
    FILE *f = fopen(bad, "r+b");
    CHECK(f != NULL);
    /* Garbage over the header of every page past the first. */
    for (long page = 1; page < 14; page++) {
        fseek(f, page * 4096, SEEK_SET);
        for (int i = 0; i < 12; i++) fputc(0x5a, f);
    }
    fclose(f);
    struct file_bytes before = file_take(store_path(local));
    struct share_report rep;
    sl_err e;
    CHECK(merge(local, bad, &rep, &e) == -1);
    CHECK(strstr(e.msg, "corrupt") || strstr(e.msg, "integrity"));
    CHECK(file_unchanged(store_path(local), &before));
    /* Not SQLite at all, and too big. */
    tmp_path(bad, sizeof bad, "text.sluicedb");
    f = fopen(bad, "w");
    fputs("<html>503 Service Unavailable</html>\n", f);
    fclose(f);
    CHECK(merge(local, bad, &rep, &e) == -1);
    CHECK_CONTAINS(e.msg, "not an SQLite database");
    CHECK(share_merge_file(local, good, NULL, 4096, &rep, &e) == -1);
    CHECK_CONTAINS(e.msg, "cap");
    close_stores(a, local, NULL);
}

/* The file's indexes are trusted with speed only (quick_check, not
 * integrity_check): one whose entries are another column's values is no
 * reason to refuse its rows, which are held to the local schema anyway. */
TEST(share_merge_takes_rows_past_a_lying_index)
{
    char good[512], lie[512];
    store *a = hosted_export("l-a.db", "lima", 2, "lie-good.sluicedb", good, sizeof good);
    store *local = hosted_store("l-local.db", "local", 1);
    tampered_copy(good, "lie.sluicedb", "CREATE INDEX lie ON devices(model); PRAGMA writable_schema=ON; UPDATE "
                  "sqlite_schema SET sql = 'CREATE INDEX lie ON devices(uuid)' WHERE name = 'lie'", lie, sizeof lie);
    struct share_report rep;
    sl_err e = { 0 };
    if (merge(local, lie, &rep, &e) != 0) harness_fail(__FILE__, __LINE__, "refused: %s", e.msg);
    CHECK(count(local, "SELECT count(*) FROM devices") == 3);
    CHECK(count(local, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'") == 1);
    close_stores(a, local, NULL);
}

TEST(share_check_rewrites_wal_header_in_its_private_copy_only)
{
    store *a = hosted_store("wal-a.db", "wal", 1), *b = fresh_store("wal-b.db");
    /* The store itself is a WAL database: merge the raw file (closed first). */
    char path[512];
    snprintf(path, sizeof path, "%s", store_path(a));
    store_close(a);
    struct file_bytes before = file_take(path);
    CHECK(before.len > 100 && before.p[18] == 2);
    struct share_report rep;
    sl_err e;
    CHECK(merge(b, path, &rep, &e) == 0);
    CHECK_INT(share_report_added(&rep), 2);
    /* The file merged is only read. */
    CHECK(file_unchanged(path, &before));
    store_close(b);
}

/* The merge leaves WAL only while nobody else has the store open, and the
 * store is in WAL mode again after it either way. */
TEST(share_merge_journal_mode_with_and_without_other_readers)
{
    store *a = hosted_store("jm-a.db", "jm1", 2), *b = fresh_store("jm-b.db");
    char out[512];
    export_to(a, "jm.sluicedb", NULL, out, sizeof out);
    struct share_report rep;
    sl_err e;
    CHECK(merge(b, out, &rep, &e) == 0);
    CHECK_INT(share_report_added(&rep), 3);
    CHECK_INT(count(b, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
    /* Another connection (a tuning session, the UI) holds the store open. */
    sqlite3 *other;
    CHECK(sqlite3_open(store_path(b), &other) == SQLITE_OK);
    CHECK(sqlite3_exec(other, "SELECT count(*) FROM hosts", NULL, NULL, NULL) == SQLITE_OK);
    add_host(a, "jm2", 1);
    export_to(a, "jm2.sluicedb", NULL, out, sizeof out);
    CHECK(merge(b, out, &rep, &e) == 0);
    CHECK_INT(share_report_added(&rep), 2);
    CHECK_INT(count(b, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
    sqlite3_close(other);
    close_stores(a, b, NULL);
}

/* A snapshot carries no CREATE INDEX of its own: UNIQUE keys only. */
TEST(share_export_has_no_secondary_indexes)
{
    store *s = hosted_store("noidx.db", "noidx", 1);
    CHECK(count(s, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL") > 0);
    store *x = export_open(s, "noidx.sluicedb", NULL);
    CHECK_INT(count(x, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL"), 0);
    CHECK(count(x, "SELECT count(*) FROM sqlite_schema WHERE type = 'index'") > 0);
    close_stores(x, s, NULL);
}

TEST(share_export_mine_keeps_only_this_host_and_no_sessions)
{
    store *s = hosted_store("mine.db", "me", 2);
    add_host(s, "other", 3);
    CHECK(sqlite3_exec(store_db(s), "INSERT INTO sessions (uuid, host_id, purpose, root, pid, state) "
                       "VALUES ('s1', 1, 'set', '', 1, 'kept')", NULL, NULL, NULL) == SQLITE_OK);
    char me[37];
    text_of(s, "SELECT uuid FROM hosts WHERE hostname = 'me'", me, sizeof me);
    CHECK(me[0] != 0);
    store *x = export_open(s, "mine.sluicedb", me);
    CHECK_INT(count(x, "SELECT count(*) FROM hosts"), 1);
    CHECK_INT(count(x, "SELECT count(*) FROM devices"), 2);
    CHECK_INT(count(x, "SELECT count(*) FROM sessions"), 0);
    CHECK_INT(count(x, "SELECT count(*) FROM hosts WHERE machine_key LIKE 'mid-%'"), 0);
    store_close(x);
    x = export_open(s, "all.sluicedb", NULL);
    CHECK_INT(count(x, "SELECT count(*) FROM devices"), 5);
    CHECK_INT(count(x, "SELECT count(*) FROM sessions"), 0);
    close_stores(x, s, NULL);
}

/* A push's surroundings: the modern fixture root, the fake remote emptied,
 * a fresh store s in the test's directory, and fake://bucket opened as r with
 * o (no retries, the default size cap). fake_end closes them and sets the
 * root back. */
struct fake_fx {
    store *s;
    struct share_opts o;
    struct share_remote *r;
};

static void fake_start(struct fake_fx *fx, const char *db)
{
    sl_err e;
    CHECK(sysfs_set_root(harness_fixture_copy("modern"), &e) == 0);
    share_fake_reset();
    fx->s = fresh_store(db);
    fx->o = (struct share_opts){ .retries = 0, .max_bytes = SHARE_DEFAULT_MAX_BYTES };
    CHECK(share_open("fake://bucket", &fx->o, &fx->r, &e) == 0);
}

static void fake_end(struct fake_fx *fx)
{
    sl_err e;
    share_close(fx->r);
    share_fake_reset();
    store_close(fx->s);
    CHECK(sysfs_set_root(NULL, &e) == 0);
}

TEST(share_push_and_pull_through_the_fake_transport)
{
    struct fake_fx fx;
    fake_start(&fx, "fake-b.db");
    store *a = fresh_store("fake-a.db"), *b = fx.s;
    add_host(b, "remote", 2);           /* b's own rows, and b is not this host */
    struct share_remote *r = fx.r;
    sl_err e;
    struct share_push_opts po = { .hw_class = "nvme-x-rot0-qd32-s4" };
    CHECK_INT(share_push(b, r, &po, NULL, NULL, &e), 1);
    CHECK_INT(share_fake_count(), 3);         /* the object, its entry and the class manifest */
    struct share_pull_opts all = { .all_classes = true };
    /* A failing download stops the pull before any merge. */
    share_fake_fail("get", 1, "connection reset");
    CHECK(share_pull(a, r, &all, NULL, NULL, &e) == -1);
    CHECK_CONTAINS(e.msg, "connection reset");
    CHECK_INT(count(a, "SELECT count(*) FROM devices"), 0);
    long long added = share_pull(a, r, &all, NULL, NULL, &e);
    CHECK(added > 2);                         /* remote's 2 disks, plus the fixture host and its disks */
    CHECK_INT(count(a, "SELECT count(*) FROM hosts WHERE hostname = 'remote'"), 1);
    CHECK_INT(share_pull(a, r, &all, NULL, NULL, &e), 0);
    /* Only this host's classes: the fixture's disks are not nvme-x. */
    struct share_pull_opts mine = { 0 };
    CHECK_INT(share_pull(a, r, &mine, NULL, NULL, &e), 0);
    store_close(a);
    fake_end(&fx);
}

/* A host's first push: a failed or cancelled upload records nothing in the
 * store; the first that succeeds records the host under the UUID its object
 * is named by. */
TEST(share_first_push_records_the_host_only_after_an_upload)
{
    sl_err e;
    struct fake_fx fx;
    fake_start(&fx, "first-push.db");
    store *s = fx.s;
    struct share_push_opts po = { .hw_class = "c" };
    share_fake_fail("put", 1, "403 Forbidden");
    CHECK(share_push(s, fx.r, &po, NULL, NULL, &e) == -1);
    CHECK_CONTAINS(e.msg, "403 Forbidden");
    CHECK_INT(count(s, "SELECT count(*) FROM hosts"), 0);
    CHECK_INT(count(s, "SELECT count(*) FROM devices"), 0);
    share_close(fx.r);
    atomic_bool cancel = true;
    fx.o.cancel = &cancel;
    CHECK(share_open("fake://bucket", &fx.o, &fx.r, &e) == 0);
    CHECK(share_push(s, fx.r, &po, NULL, NULL, &e) == -1);
    CHECK_INT(count(s, "SELECT count(*) FROM hosts"), 0);
    CHECK_INT(share_fake_count(), 0);
    share_close(fx.r);
    fx.o.cancel = NULL;
    CHECK(share_open("fake://bucket", &fx.o, &fx.r, &e) == 0);
    CHECK_INT(share_push(s, fx.r, &po, NULL, NULL, &e), 1);
    CHECK_INT(count(s, "SELECT count(*) FROM hosts"), 1);
    CHECK(count(s, "SELECT count(*) FROM devices") > 0);
    struct share_list l = { 0 };
    CHECK(fx.r->ops->list(fx.r, "c", &l, &e) == 0);
    CHECK_INT(l.n, 3);                        /* the object, OBJECT.json and manifest.json */
    const char *object = "";
    for (int i = 0; i < l.n; i++)
        if (strstr(l.v[i].name, ".zst") && !strstr(l.v[i].name, ".json")) object = l.v[i].name;
    char q[512];
    snprintf(q, sizeof q, "SELECT count(*) FROM hosts WHERE uuid || '.sluicedb.zst' = '%s'", object);
    CHECK_INT(count(s, q), 1);
    share_list_free(&l);
    fake_end(&fx);
}

/* On the event after an upload, before the push records the host in the
 * store: wait until the wall clock's second turns, as it can on any push. */
static void wait_next_second(const struct share_event *ev, void *arg)
{
    if (ev->kind != SHARE_PUSHED) return;
    time_t t0 = time(NULL);
    while (time(NULL) == t0) {
        struct timespec ts = { 0, 10000000L };
        nanosleep(&ts, NULL);
    }
}

/* The object a push left under key, fetched into path. */
static struct file_bytes fetched(struct share_remote *r, const char *key, const char *name)
{
    char path[512];
    tmp_path(path, sizeof path, name);
    unlink(path);
    sl_err e;
    CHECK(r->ops->get(r, key, path, NULL, &e) == 0);
    return file_take(path);
}

/* A push with nothing new uploads the very bytes of the last one, even when
 * the first push's clock second turned between the snapshot (which carries
 * the new host row) and the store recording that host: both rows have the
 * same first_seen and last_seen. */
TEST(share_push_with_nothing_new_uploads_the_same_bytes)
{
    sl_err e;
    struct fake_fx fx;
    fake_start(&fx, "same-bytes.db");
    store *s = fx.s;
    struct share_remote *r = fx.r;
    struct share_push_opts po = { .hw_class = "c" };
    CHECK_INT(share_push(s, r, &po, wait_next_second, NULL, &e), 1);
    char uuid[37], key[512], sha[65], sha_again[65];
    text_of(s, "SELECT uuid FROM hosts", uuid, sizeof uuid);
    snprintf(key, sizeof key, "c/%s" SHARE_ZST_SUFFIX, uuid);
    const char *pushed = "SELECT etag FROM share_validators WHERE key LIKE 'pushed:%'";
    text_of(s, pushed, sha, sizeof sha);
    struct file_bytes first = fetched(r, key, "same-bytes-1.zst");
    CHECK_INT(share_push(s, r, &po, NULL, NULL, &e), 1);
    struct file_bytes second = fetched(r, key, "same-bytes-2.zst");
    CHECK(first.p && second.p && first.len == second.len && memcmp(first.p, second.p, first.len) == 0);
    text_of(s, pushed, sha_again, sizeof sha_again);
    CHECK_STR(sha_again, sha);
    free(first.p);
    free(second.p);
    fake_end(&fx);
}

/* A run of the host's first disk, with its config and workload rows. */
static void add_run(store *s, const char *hostname, const char *uuid)
{
    char sql[1600];
    snprintf(sql, sizeof sql,
             SHARE_FX_RUNS_INSERT
             "SELECT '%s', 'b', 0, h.uuid, h.id, d.uuid, d.id, '6.1', 'seqwrite', " SHARE_FX_WORKLOAD ", "
             SHARE_FX_CONFIG ", 1, 't', 'ok', 1, 100, "
             " 1, 0, 100, 1, 1, 1, '{}' FROM hosts h JOIN devices d ON d.host_id = h.id "
             "WHERE h.hostname = '%s' ORDER BY d.id LIMIT 1", uuid, hostname);
    char *msg = NULL;
    if (sqlite3_exec(store_db(s), sql, NULL, NULL, &msg) != SQLITE_OK) harness_fail(__FILE__, __LINE__, "%s", msg);
}

TEST(share_runs_merge_with_their_host_and_device_remapped)
{
    store *a = fresh_store("runs-a.db"), *b = fresh_store("runs-b.db");
    if (count(a, "SELECT count(*) FROM pragma_table_info('runs')") <= 0) {
        close_stores(a, b, NULL);
        return;  /* before migration 002 */
    }
    add_host(b, "bravo", 2);          /* b's own ids come first: a's ids differ */
    add_host(a, "alpha", 2);
    add_host(a, "other", 1);
    add_run(a, "alpha", "run-alpha");
    add_run(a, "other", "run-other");
    char f[512];
    export_to(a, "runs.sluicedb", NULL, f, sizeof f);
    struct share_report rep;
    sl_err e;
    CHECK(merge(b, f, &rep, &e) == 0);
    CHECK_INT(count(b, "SELECT count(*) FROM runs"), 2);
    /* The run points at the host and disk with its own UUIDs in b. */
    CHECK_INT(count(b, "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id JOIN devices d ON d.id = r.device_id "
                       "WHERE h.uuid = r.host_uuid AND d.uuid = r.device_uuid"), 2);
    CHECK(merge(b, f, &rep, &e) == 0);
    CHECK_INT(share_report_added(&rep), 0);
    /* --mine: only alpha's run leaves. */
    char me[37];
    text_of(a, "SELECT uuid FROM hosts WHERE hostname = 'alpha'", me, sizeof me);
    store *x = export_open(a, "runs-mine.sluicedb", me);
    CHECK_INT(count(x, "SELECT count(*) FROM runs"), 1);
    CHECK_INT(count(x, "SELECT count(*) FROM runs WHERE uuid = 'run-alpha'"), 1);
    store_close(x);
    char **classes;
    int n = store_share_run_classes(a, me, &classes, &e);
    CHECK_INT(n, 1);
    if (n == 1) CHECK_STR(classes[0], "nvme-model_0-rot0-qd32-s4");
    if (n >= 0) share_classes_free(classes, n);
    close_stores(a, b, NULL);
}

/* Rows named by the SHA-256 of their content (configs, workloads) are
 * checked against it: the first text stored under a hash is kept, so a row
 * under the hash this host's own runs will have, with other content, would
 * become what those runs measured. Refused, naming the table, the row's
 * hash and what its content hashes to; the correct file merges. */
TEST(share_merge_refuses_a_row_whose_key_is_not_its_content_hash)
{
    store *a = hosted_store("hash-a.db", "alpha", 1), *local = hosted_store("hash-local.db", "local", 1);
    add_run(a, "alpha", "run-hash");
    char good[512];
    export_to(a, "hash-good.sluicedb", NULL, good, sizeof good);
    check_refused(local, good, "hash-config.sluicedb", "UPDATE configs SET text = 'vm.swappiness=200'",
                  "the configs row with hash " SHARE_FX_CONFIG " holds a text whose SHA-256 is "
                  "41357e5d43df41e4c92184aa9c327e6cca77561e757f19e4ee2ced8d2849b6da");
    check_refused(local, good, "hash-workload.sluicedb", "UPDATE workloads SET spec = 'bs=4k'",
                  "the workloads row with hash " SHARE_FX_WORKLOAD " holds a spec whose SHA-256 is "
                  "55a436c1a3cbf2ab440eaaf902676c4689621acaf8adb2c96e065c4ffa0d48d8");
    check_refused(local, good, "hash-nothing.sluicedb", "UPDATE configs SET text = 'vm.swappiness=200'",
                  "nothing merged");
    /* The key as the merge copies it: a BLOB of the right hex digits is not
     * the TEXT key this host's runs name, and a collation the file declares
     * does not make an upper-case key equal. */
    check_refused(local, good, "hash-blob.sluicedb", "UPDATE configs SET hash = CAST(hash AS BLOB); "
                  "UPDATE runs SET config_hash = CAST(config_hash AS BLOB)", "the configs row with hash X'");
    check_refused(local, good, "hash-nocase.sluicedb", "PRAGMA foreign_keys=OFF; CREATE TABLE c2 (hash TEXT "
                  "COLLATE NOCASE PRIMARY KEY, text TEXT NOT NULL); INSERT INTO c2 SELECT upper(hash), text FROM "
                  "configs; DROP TABLE configs; ALTER TABLE c2 RENAME TO configs; DELETE FROM runs",
                  "the configs row with hash '58EBF350");
    struct share_report rep;
    sl_err e;
    CHECK(merge(local, good, &rep, &e) == 0);
    CHECK_INT(count(local, "SELECT count(*) FROM configs WHERE hash = " SHARE_FX_CONFIG), 1);
    CHECK_INT(count(local, "SELECT count(*) FROM workloads WHERE hash = " SHARE_FX_WORKLOAD), 1);
    CHECK_INT(count(local, "SELECT count(*) FROM runs WHERE uuid = 'run-hash'"), 1);
    /* Every shared table keyed by a hash says of what. */
    for (int i = 0; i < share_table_count; i++)
        if (share_tables[i].key && strstr(share_tables[i].key, "hash") && !share_tables[i].hash_of)
            harness_fail(__FILE__, __LINE__, "share table %s is keyed by a hash but names no hash_of column",
                         share_tables[i].name);
    close_stores(a, local, NULL);
}

static void count_merged(const struct share_event *ev, void *arg)
{
    if (ev->kind == SHARE_MERGED) *(int *)arg += 1;
}

/* merge FILE...: every file is checked before the first merge, so one bad
 * file leaves the store byte-for-byte as it was; good files each merge. */
TEST(share_merge_files_all_checked_before_the_first_merge)
{
    char fa[512], fb[512], bad[512];
    store *a = hosted_export("many-a.db", "many1", 2, "many-a.sluicedb", fa, sizeof fa);
    store *b = hosted_export("many-b.db", "many2", 1, "many-b.sluicedb", fb, sizeof fb);
    store *local = hosted_store("many-local.db", "here", 1);
    tampered_copy(fb, "many-bad.sluicedb", "PRAGMA user_version = 999", bad, sizeof bad);
    CHECK(sqlite3_exec(store_db(local), "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) == SQLITE_OK);
    struct file_bytes before = file_take(store_path(local));
    char *files[] = { fa, bad, fb };
    int merged = 0;
    sl_err e;
    CHECK(share_merge_files(local, files, 3, SHARE_DEFAULT_MAX_BYTES, count_merged, &merged, &e) == -1);
    CHECK_CONTAINS(e.msg, "newer than this sluice");
    CHECK_INT(merged, 0);
    CHECK(file_unchanged(store_path(local), &before));
    files[1] = fb;
    files[2] = fa;  /* again: already here, adds nothing */
    CHECK(share_merge_files(local, files, 3, SHARE_DEFAULT_MAX_BYTES, count_merged, &merged, &e) == 0);
    CHECK_INT(merged, 3);
    CHECK_INT(count(local, "SELECT count(*) FROM hosts"), 3);
    CHECK_INT(count(local, "SELECT count(*) FROM devices"), 4);
    CHECK_INT(count(local, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
    close_stores(a, b, local);
}

/* Events of a pull, counted by kind. */
static void count_events(const struct share_event *ev, void *arg)
{
    int *n = arg;
    n[ev->kind]++;
}

/* After a host's object loses runs (a prune, or the host dropped them), a
 * store holding more of its runs than the object fetches it once, merging
 * nothing new, and not again while the object stays as the manifest then
 * described it: on a transport without validators (SFTP, fake) every pull
 * fetched it. */
TEST(share_pull_fetches_a_shrunk_object_once_without_validators)
{
    struct fake_fx fx;
    fake_start(&fx, "shrunk-x.db");
    store *x = fx.s, *m = fresh_store("shrunk-m.db");
    struct share_remote *r = fx.r;
    sl_err e;
    struct host_info h;
    int64_t id;
    char uuid[37];
    CHECK(host_read(&h, &e) == 0);
    CHECK(store_host_upsert(x, &h, &id, uuid, &e) == 0);
    char sql[1200];
    for (int i = 0; i < 3; i++) {   /* three runs of x's own host, on no disk */
        snprintf(sql, sizeof sql,
                 SHARE_FX_PARENTS
                 "INSERT INTO runs (uuid, batch_uuid, rep, host_uuid, host_id, kernel, workload, workload_hash, "
                 " config_hash, seed, started, status, wall_s, mb_s, iops, read_mb_s, write_mb_s, cpu_usr_pct, "
                 " cpu_sys_pct, ctx_switches, metrics_json) VALUES ('shrunk-%d', 'b', 0, '%s', %lld, '6.1', "
                 " 'seqwrite', " SHARE_FX_WORKLOAD ", " SHARE_FX_CONFIG ", 1, '2026-01-0%dT00:00:00Z', 'ok', 1, 100, "
                 " 1, 0, 100, 1, 1, 1, '{}')",
                 i, uuid, (long long)id, i + 1);
        CHECK(sqlite3_exec(store_db(x), sql, NULL, NULL, NULL) == SQLITE_OK);
    }
    struct share_push_opts po = { .hw_class = "c" };
    CHECK_INT(share_push(x, r, &po, NULL, NULL, &e), 1);
    struct share_pull_opts all = { .all_classes = true };
    int ev[SHARE_NOTE + 1] = { 0 };
    CHECK(share_pull(m, r, &all, count_events, ev, &e) > 3);   /* x's host and its 3 runs, and more */
    CHECK_INT(ev[SHARE_FETCHED], 1);
    /* x's object now holds one run; m holds three */
    CHECK(sqlite3_exec(store_db(x), "DELETE FROM runs WHERE uuid <> 'shrunk-2'", NULL, NULL, NULL) == SQLITE_OK);
    CHECK_INT(share_push(x, r, &po, NULL, NULL, &e), 1);
    for (int pull = 0; pull < 3; pull++) {
        memset(ev, 0, sizeof ev);
        CHECK_INT(share_pull(m, r, &all, count_events, ev, &e), 0);
        CHECK_INT(ev[SHARE_FETCHED], pull == 0 ? 1 : 0);   /* once, then never while it stays so */
    }
    CHECK_INT(count(m, "SELECT count(*) FROM runs WHERE uuid LIKE 'shrunk-%'"), 3);
    store_close(m);
    fake_end(&fx);
}

/* A run's start as push and prune take it: a real UTC time in sluice's
 * form, not past now by more than the skew; anything else refused, saying
 * why (the date that made prune fail for the whole fleet among them). */
TEST(share_run_time_check_takes_real_utc_times_only)
{
    time_t now = 1767225600;   /* 2026-01-01T00:00:00Z */
    time_t t;
    char why[200];
    CHECK(share_run_time_check("2024-02-29T23:59:59Z", now, 3600, &t, why, sizeof why) == 0);
    CHECK(t == 1709251199);
    CHECK(share_run_time_check("2026-01-01T00:59:59Z", now, 3600, &t, why, sizeof why) == 0);
    static const char *const bad[] = { "2020-13-45T25:61:61Z", "2023-02-29T00:00:00Z", "2020-01-01T00:00:60Z",
                                       "2020-01-01 00:00:00Z", "2020-01-01T00:00:00", "+020-01-01T00:00:00Z",
                                       "2020-1-01T00:00:00Z ", "1969-12-31T23:59:59Z", "", NULL };
    for (int i = 0; bad[i]; i++) {
        why[0] = 0;
        CHECK(share_run_time_check(bad[i], now, 3600, &t, why, sizeof why) < 0);
        CHECK(strstr(why, "which is not a UTC time") != NULL);
    }
    CHECK(share_run_time_check(NULL, now, 3600, &t, why, sizeof why) < 0);
    CHECK(share_run_time_check("9999-01-01T00:00:00Z", now, 3600, &t, why, sizeof why) < 0);
    CHECK(strstr(why, "in the future") != NULL);
    CHECK(share_run_time_check("2026-01-01T01:00:01Z", now, 3600, &t, why, sizeof why) < 0);
}
