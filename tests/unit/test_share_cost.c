/* Unit tests for what a pull costs per object, counted, not timed: the
 * disk syncs SQLite asks for (a counting VFS around the default one), the
 * super-journals it creates, the statements and virtual-machine steps run
 * on the store's connection. A pull of 2N objects must cost twice a pull
 * of N, and each object a handful of syncs: bench/fleet's 1000-host first
 * pull took twice as long as before when each merge committed through a
 * super-journal and each object's validators in a transaction of their
 * own (13 syncs an object where 5 do). */
#include "harness.h"
#include "share_fixture.h"
#include "share/sync.h"
#include "db/store_share.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- a VFS that counts ---------------------------------------------------- */

struct counts {
    long long syncs, super_journals, statements, steps;
};
static struct counts seen;
static sqlite3_vfs *base_vfs;

struct counted_file {
    sqlite3_file base;
    sqlite3_file *real;   /* allocated after this struct */
};

#define REAL(f) (((struct counted_file *)(f))->real)
static int c_close(sqlite3_file *f)
{
    int rc = REAL(f)->pMethods ? REAL(f)->pMethods->xClose(REAL(f)) : SQLITE_OK;
    return rc;
}
static int c_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int c_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o)
{
    return REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int c_truncate(sqlite3_file *f, sqlite3_int64 n) { return REAL(f)->pMethods->xTruncate(REAL(f), n); }
static int c_sync(sqlite3_file *f, int flags)
{
    seen.syncs++;
    return REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int c_size(sqlite3_file *f, sqlite3_int64 *n) { return REAL(f)->pMethods->xFileSize(REAL(f), n); }
static int c_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int c_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int c_reserved(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int c_control(sqlite3_file *f, int op, void *a) { return REAL(f)->pMethods->xFileControl(REAL(f), op, a); }
static int c_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int c_chars(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int c_shm_map(sqlite3_file *f, int i, int sz, int ext, void volatile **p)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), i, sz, ext, p);
}
static int c_shm_lock(sqlite3_file *f, int o, int n, int fl) { return REAL(f)->pMethods->xShmLock(REAL(f), o, n, fl); }
static void c_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int c_shm_unmap(sqlite3_file *f, int del) { return REAL(f)->pMethods->xShmUnmap(REAL(f), del); }

/* Version 2: no xFetch, so SQLite reads through xRead (mmap is off anyway). */
static const sqlite3_io_methods counted_io = {
    2, c_close, c_read, c_write, c_truncate, c_sync, c_size, c_lock, c_unlock, c_reserved, c_control, c_sector, c_chars,
    c_shm_map, c_shm_lock, c_shm_barrier, c_shm_unmap, NULL, NULL,
};

static int c_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
    struct counted_file *cf = (struct counted_file *)f;
    cf->real = (sqlite3_file *)(cf + 1);
    cf->real->pMethods = NULL;
    if (flags & SQLITE_OPEN_SUPER_JOURNAL) seen.super_journals++;
    int rc = base_vfs->xOpen(base_vfs, name, cf->real, flags, out_flags);
    f->pMethods = cf->real->pMethods ? &counted_io : NULL;
    return rc;
}

static sqlite3_vfs counted_vfs;

/* Every database opened from here on goes through the counting VFS. */
static void count_install(void)
{
    base_vfs = sqlite3_vfs_find(NULL);
    counted_vfs = *base_vfs;
    counted_vfs.zName = "sluice-count";
    counted_vfs.szOsFile = (int)sizeof(struct counted_file) + base_vfs->szOsFile;
    counted_vfs.xOpen = c_open;
    counted_vfs.pNext = NULL;
    CHECK(sqlite3_vfs_register(&counted_vfs, 1) == SQLITE_OK);
}

static void count_remove(void)
{
    sqlite3_vfs_unregister(&counted_vfs);
    sqlite3_vfs_register(base_vfs, 1);
}

/* Statements and VM steps of the store's own connection. */
static int on_profile(unsigned type, void *arg, void *p, void *x)
{
    (void)arg;
    (void)x;
    if (type == SQLITE_TRACE_PROFILE) {
        seen.statements++;
        seen.steps += sqlite3_stmt_status((sqlite3_stmt *)p, SQLITE_STMTSTATUS_VM_STEP, 0);
    }
    return 0;
}

/* --- a fleet on a file:// remote ------------------------------------------ */

/* Host i's store: the fixture's host under its own UUID (each store names
 * this machine afresh), another host with two disks and RUNS_PER_DISK runs
 * on each: enough rows that work scanning what earlier objects brought
 * (a lookup without an index, say) shows in the VM steps. */
enum { RUNS_PER_DISK = 5 };
static void push_host(struct share_remote *r, int i)
{
    char name[64], host[32];
    snprintf(name, sizeof name, "cost-host-%d.db", i);
    snprintf(host, sizeof host, "h%d", i);
    store *s = harness_store(name);
    if (!s) return;
    sl_err e;
    struct host_info h = { .cpus = 2, .mem_bytes = 1ULL << 30 };
    snprintf(h.hostname, sizeof h.hostname, "%s", host);
    snprintf(h.machine_id, sizeof h.machine_id, "mid-%s", host);
    snprintf(h.kernel, sizeof h.kernel, "6.1");
    snprintf(h.virt, sizeof h.virt, "kvm");
    int64_t id;
    char uuid[37];
    CHECK(store_host_upsert(s, &h, &id, uuid, &e) == 0);
    for (int d = 0; d < 2; d++) {
        struct device dv = { .rotational = 0, .size_bytes = 1ULL << 34, .queue_depth = 32 };
        snprintf(dv.name, sizeof dv.name, "d%d", d);
        snprintf(dv.transport, sizeof dv.transport, "nvme");
        snprintf(dv.serial, sizeof dv.serial, "S%s-%d", host, d);
        int64_t did;
        CHECK(store_device_upsert(s, id, &dv, &did, &e) == 0);
    }
    char sql[1600];
    snprintf(sql, sizeof sql,
             SHARE_FX_RUNS_INSERT
             "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < %d) "
             "SELECT '%s-run-' || d.name || '-' || k.i, 'b', 0, h.uuid, h.id, d.uuid, d.id, '6.1', 'seqwrite', "
             SHARE_FX_WORKLOAD ", " SHARE_FX_CONFIG ", 1, '2026-01-01T00:00:00Z', 'ok', 1, 100, 1, 0, 100, 1, 1, 1, '{}' "
             " FROM hosts h JOIN devices d "
             " ON d.host_id = h.id, k WHERE h.hostname = '%s'", RUNS_PER_DISK - 1, host, host);
    char *msg = NULL;
    if (sqlite3_exec(store_db(s), sql, NULL, NULL, &msg) != SQLITE_OK) harness_fail(__FILE__, __LINE__, "%s", msg);
    sqlite3_free(msg);
    struct share_push_opts po = { .hw_class = "c" };
    CHECK_INT(share_push(s, r, &po, NULL, NULL, &e), 1);
    store_close(s);
}

/* A first pull of every object on the remote by a new store: what it cost. */
static struct counts first_pull(struct share_remote *r, const char *name, long long *added)
{
    sl_err e;
    *added = -1;
    store *s = harness_store(name);
    if (!s) return seen;
    sqlite3_trace_v2(store_db(s), SQLITE_TRACE_PROFILE, on_profile, NULL);
    memset(&seen, 0, sizeof seen);
    struct share_pull_opts all = { .all_classes = true };
    *added = share_pull(s, r, &all, NULL, NULL, &e);
    if (*added < 0) harness_fail(__FILE__, __LINE__, "pull: %s", e.msg);
    struct counts c = seen;
    store_close(s);
    return c;
}

TEST(share_pull_costs_the_same_per_object_and_few_syncs)
{
    const char *root = harness_fixture_copy("modern");
    sl_err e;
    CHECK(sysfs_set_root(root, &e) == 0);
    /* file://: its objects have validators (inode, size, mtime), which a
     * pull records for each object it merged */
    char url[600];
    snprintf(url, sizeof url, "file://%s/cost-remote", harness_tmpdir());
    struct share_opts o = { .retries = 0, .max_bytes = SHARE_DEFAULT_MAX_BYTES };
    struct share_remote *r;
    CHECK(share_open(url, &o, &r, &e) == 0);
    /* First pulls of N, 2N and 3N objects by new stores: the third N
     * objects must cost what the second N did (the pull's fixed cost
     * cancels out); work that grows with what earlier objects brought
     * makes the third N dearer. */
    enum { N = 4 };
    struct counts c[3];
    long long added[3];
    count_install();
    for (int k = 0; k < 3; k++) {
        for (int i = k * N; i < (k + 1) * N; i++) push_host(r, i);
        char name[64];
        snprintf(name, sizeof name, "cost-pull-%d.db", k);
        c[k] = first_pull(r, name, &added[k]);
        fprintf(stderr, "  first pull of %d objects: %lld syncs, %lld super-journals, %lld statements, %lld VM steps\n",
                (k + 1) * N, c[k].syncs, c[k].super_journals, c[k].statements, c[k].steps);
    }
    count_remove();
    CHECK(added[0] > 0 && added[1] > added[0] && added[2] > added[1]);
    CHECK_INT(c[0].super_journals + c[1].super_journals + c[2].super_journals, 0);
    /* One commit per merged object (journal, its directory, journal again,
     * database, journal truncated: 5 syncs with synchronous=FULL), nothing
     * else per object; the same statements for each object. */
    CHECK_INT(c[2].syncs - c[1].syncs, c[1].syncs - c[0].syncs);
    CHECK((c[2].syncs - c[1].syncs) <= 5 * N);
    CHECK_INT(c[2].statements - c[1].statements, c[1].statements - c[0].statements);
    /* VM steps: within 1% (they are equal today; b-tree lookups may deepen
     * a little as the store grows). Merge lookups by UUID that cannot use
     * the index (each a scan of what earlier objects brought) make the
     * third N 2.4% dearer than the second: checked by mutation. */
    CHECK((c[2].steps - c[1].steps) * 100 <= (c[1].steps - c[0].steps) * 101);
    share_close(r);
    CHECK(sysfs_set_root(NULL, &e) == 0);
}

/* --- the check of a file's rows, per run ------------------------------------ */

/* A snapshot of a store with one host, one disk and `runs` runs whose
 * metrics (all 24 bounded columns set) are within bounds. */
static void export_runs(int runs, char *path, size_t n)
{
    char db[64];
    snprintf(db, sizeof db, "check-cost-%d.db", runs);
    snprintf(path, n, "%s/check-cost-%d.sluicedb", harness_tmpdir(), runs);
    unlink(path);
    store *s = harness_store(db);
    if (!s) return;
    sl_err e;
    struct host_info h = { .cpus = 2, .mem_bytes = 1ULL << 30 };
    snprintf(h.hostname, sizeof h.hostname, "check-cost");
    snprintf(h.machine_id, sizeof h.machine_id, "mid-check-cost");
    snprintf(h.kernel, sizeof h.kernel, "6.1");
    int64_t id, did;
    char uuid[37];
    CHECK(store_host_upsert(s, &h, &id, uuid, &e) == 0);
    struct device dv = { .rotational = 0, .size_bytes = 1ULL << 34, .queue_depth = 32 };
    snprintf(dv.name, sizeof dv.name, "d0");
    snprintf(dv.serial, sizeof dv.serial, "S-check-cost");
    CHECK(store_device_upsert(s, id, &dv, &did, &e) == 0);
    char sql[2000];
    snprintf(sql, sizeof sql,
             SHARE_FX_RUNS_INSERT
             "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d) "
             "SELECT 'run-' || k.i, 'b', 0, h.uuid, h.id, d.uuid, d.id, '6.1', 'seqwrite', " SHARE_FX_WORKLOAD ", "
             SHARE_FX_CONFIG ", k.i, "
             " '2026-01-01T00:00:00Z', 'ok', 1, 100, 1, 0, 100, 1, 1, 1, '{}' FROM hosts h, devices d, k;"
             "UPDATE runs SET lat_mean_ns = 1e6, lat_p50_ns = 9e5, lat_p99_ns = 5e6, lat_p999_ns = 9e6, "
             " lat_max_ns = 2e7, dev_util_pct = 50, dev_await_ms = 2, psi_some_pct = 1, canary_max_ns = 1e6, "
             " canary_p99_ns = 1e5, stalls_100ms = 0, stalls_1s = 0, stalls_2s = 0, max_dirty_pages = 1000, "
             " reached_dirty_threshold = 0", runs);
    char *msg = NULL;
    if (sqlite3_exec(store_db(s), sql, NULL, NULL, &msg) != SQLITE_OK) harness_fail(__FILE__, __LINE__, "%s", msg);
    sqlite3_free(msg);
    if (store_share_export(s, path, NULL, NULL, &e) != 0) harness_fail(__FILE__, __LINE__, "export: %s", e.msg);
    store_close(s);
}

/* VM steps of the row checks (store_share_check_constraints) of a file
 * with `runs` runs, on the file's own connection, against the store s. */
static long long check_steps(store *s, int runs)
{
    char path[512];
    export_runs(runs, path, sizeof path);
    sqlite3 *db;
    sl_err e;
    if (store_share_open_untrusted(path, "cost", false, &db, &e) < 0) {
        harness_fail(__FILE__, __LINE__, "open: %s", e.msg);
        return -1;
    }
    sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, on_profile, NULL);
    memset(&seen, 0, sizeof seen);
    if (store_share_check_constraints(s, db, "cost", &e) < 0) harness_fail(__FILE__, __LINE__, "check: %s", e.msg);
    sqlite3_close(db);
    return seen.steps;
}

/* The row checks are a scan of every row that evaluates each rule, and
 * bench/merge's 100,000-run object spends as much time in it as in the
 * insert: per run and per metric, each bound is one comparison. With the
 * 24 bounded metrics as "v IS NOT NULL AND NOT (typeof(v) IN ('integer',
 * 'real') AND v BETWEEN lo AND hi)" a run cost 400 VM steps, as "+v NOT
 * BETWEEN lo AND hi" 223 (db/store_share_rows.c, metric_rules). */
TEST(share_check_costs_few_vm_steps_per_run)
{
    store *s = harness_store("check-cost-local.db");
    if (!s) return;
    long long a = check_steps(s, 200), b = check_steps(s, 400);
    long long per_run = (b - a) / 200;
    fprintf(stderr, "  row checks: %lld VM steps for 200 runs, %lld for 400: %lld per run\n", a, b, per_run);
    CHECK(per_run > 0);
    CHECK(per_run <= 300);
    store_close(s);
}

/* Past 20,000 rows a table's scan runs in two halves by rowid, the second
 * on a connection and thread of its own (db/store_share_rows.c): the
 * check's connection evaluates the rules on about half of the runs, and a
 * row broken in either half is found, the first half's first. */
TEST(share_check_scans_a_big_table_in_two_halves)
{
    store *s = harness_store("check-split-local.db");
    if (!s) return;
    sl_err e;
    enum { BIG = 40000 };
    long long small = check_steps(s, 200), per_run = (check_steps(s, 400) - small) / 200;
    long long big = check_steps(s, BIG);
    fprintf(stderr, "  row checks of %d runs: %lld VM steps on the check's connection (%lld per run alone)\n", BIG, big,
            per_run);
    CHECK(big > 0);
    CHECK(big * 10 <= per_run * BIG * 6);
    /* the file check_steps made: one broken run in the second half, then
     * one more in the first */
    char file[512];
    snprintf(file, sizeof file, "%s/check-cost-%d.sluicedb", harness_tmpdir(), BIG);
    sqlite3 *db;
    CHECK(sqlite3_open(file, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "UPDATE runs SET iops = 'abc' WHERE id = (SELECT max(id) - 2 FROM runs)", NULL, NULL,
                       NULL) == SQLITE_OK);
    sqlite3_close(db);
    CHECK(store_share_check(s, file, "split", &e) == -1);
    CHECK_CONTAINS(e.msg, "iops = 'abc'");
    CHECK(sqlite3_open(file, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "UPDATE runs SET config_hash = 'none' WHERE id = (SELECT min(id) + 2 FROM runs)", NULL, NULL,
                       NULL) == SQLITE_OK);
    sqlite3_close(db);
    CHECK(store_share_check(s, file, "split", &e) == -1);
    CHECK_CONTAINS(e.msg, "whose parent in configs is missing");
    store_close(s);
}
