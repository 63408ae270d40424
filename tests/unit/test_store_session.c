/* Unit tests for the store and sessions: migrations, refusal of foreign
 * files, durable snapshots, put-back order and the ratio/bytes pairs. */
#include "harness.h"
#include "knobset.h"
#include "session.h"
#include "store.h"
#include "sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void db_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", harness_tmpdir(), name);
}

TEST(store_creates_private_migrated_database)
{
    char path[512];
    db_path(path, sizeof path, "sub/dir/a.db");
    store *s;
    sl_err e;
    CHECK(store_open(path, &s, &e) == 0);
    CHECK(store_schema_version(s) >= 1);
    store_close(s);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 077) == 0);
    /* Reopening is idempotent. */
    CHECK(store_open(path, &s, &e) == 0);
    store_close(s);
}

TEST(store_refuses_foreign_and_newer_files)
{
    char path[512];
    db_path(path, sizeof path, "text.db");
    FILE *f = fopen(path, "w");
    fputs("hello, not sqlite\n", f);
    fclose(f);
    store *s;
    sl_err e;
    CHECK(store_open(path, &s, &e) < 0);
    CHECK_CONTAINS(e.msg, "not an SQLite database");
    db_path(path, sizeof path, "newer.db");
    CHECK(store_open(path, &s, &e) == 0);
    CHECK(sqlite3_exec(store_db(s), "PRAGMA user_version = 9999", NULL, NULL, NULL) == SQLITE_OK);
    store_close(s);
    CHECK(store_open(path, &s, &e) < 0);
    CHECK_CONTAINS(e.msg, "newer than this sluice");
}


TEST(session_snapshot_is_durable_and_put_back_in_order)
{
    sl_err e;
    CHECK(sysfs_set_root(harness_fixture_copy("modern"), &e) == 0);
    store *s = harness_store("sess.db");
    struct knobset ks = { 0 };
    CHECK(knobset_add_assignment(&ks, "block.sda.scheduler=bfq", &e) == 0);
    CHECK(knobset_add_assignment(&ks, "vm.swappiness=10", &e) == 0);
    CHECK(knobset_prepare(&ks, &e) == 0);
    /* scheduler first, then nr_requests and the outgoing iosched tunables */
    CHECK_STR(ks.touched[0].name, "block.sda.scheduler");
    CHECK_STR(ks.touched[1].name, "block.sda.nr_requests");
    int lock_fd;
    CHECK(session_lock_acquire(store_path(s), &lock_fd, &e) == 0);
    struct session *sess;
    CHECK(session_begin(s, "test", ks.touched, ks.ntouched, lock_fd, &sess, &e) == 0);
    /* A second locker is refused and told the holder's pid. */
    int other;
    CHECK(session_lock_acquire(store_path(s), &other, &e) < 0);
    CHECK_INT(e.status, SL_EBUSY);
    char pid[32];
    snprintf(pid, sizeof pid, "pid %d", (int)getpid());
    CHECK_CONTAINS(e.msg, pid);
    CHECK(knobset_apply(&ks, sess, &e) == 0);
    char buf[64];
    CHECK(sysfs_read("/sys/block/sda/queue/scheduler", buf, sizeof buf, &e) > 0);
    CHECK_STR(buf, "bfq");
    /* The snapshot is in the database before any write. */
    struct snapshot_row *rows;
    int n = store_session_snapshots(s, sess->row.id, &rows, &e);
    CHECK_INT(n, ks.ntouched);
    if (n > 0) { CHECK_STR(rows[0].value, "mq-deadline"); free(rows); }
    struct restore_report rep = { 0 };
    CHECK(session_end(sess, false, &rep, &e) == 0);
    CHECK_INT(rep.failed, 0);
    CHECK(sysfs_read("/sys/block/sda/queue/scheduler", buf, sizeof buf, &e) > 0);
    CHECK_STR(buf, "mq-deadline");
    CHECK(sysfs_read("/proc/sys/vm/swappiness", buf, sizeof buf, &e) > 0);
    CHECK_STR(buf, "60");
    restore_report_free(&rep);
    knobset_free(&ks);
    store_close(s);
}

TEST(put_back_writes_only_the_active_half_of_a_pair)
{
    sl_err e;
    CHECK(sysfs_set_root(harness_fixture_copy("modern"), &e) == 0);
    /* Bytes mode was in force: ratio 0 must not be written after bytes,
     * which on a real kernel would leave both at 0 for the background pair. */
    struct snapshot_row rows[2] = {
        { .knob = "vm.dirty_background_bytes", .path = "/proc/sys/vm/dirty_background_bytes", .value = "1048576",
          .present = 1, .order = 60 },
        { .knob = "vm.dirty_background_ratio", .path = "/proc/sys/vm/dirty_background_ratio", .value = "0",
          .present = 1, .order = 60 },
    };
    struct restore_report rep = { 0 };
    session_put_back(NULL, rows, 2, &rep);
    CHECK_INT(rep.n, 2);
    CHECK_INT(rep.failed, 0);
    CHECK_INT(rep.items[0].status, RESTORE_WRITTEN);
    CHECK_INT(rep.items[1].status, RESTORE_SAME);
    char buf[64];
    CHECK(sysfs_read("/proc/sys/vm/dirty_background_bytes", buf, sizeof buf, &e) > 0);
    CHECK_STR(buf, "1048576");
    CHECK(sysfs_read("/proc/sys/vm/dirty_background_ratio", buf, sizeof buf, &e) > 0);
    CHECK_STR(buf, "10"); /* a fixture has no kernel to zero it; sluice did not write it */
    restore_report_free(&rep);
}

TEST(knobset_rules_between_knobs)
{
    sl_err e;
    CHECK(sysfs_set_root(harness_fixture_copy("modern"), &e) == 0);
    struct knobset ks = { 0 };
    CHECK(knobset_add_assignment(&ks, "vm.dirty_ratio=10", &e) == 0);
    CHECK(knobset_add_assignment(&ks, "vm.dirty_background_ratio=10", &e) == 0);
    CHECK(knobset_prepare(&ks, &e) < 0);
    CHECK_CONTAINS(e.msg, "must be below");
    knobset_free(&ks);
    /* Raising both together is fine even though bg passes the old dirty. */
    CHECK(knobset_add_assignment(&ks, "vm.dirty_ratio=60", &e) == 0);
    CHECK(knobset_add_assignment(&ks, "vm.dirty_background_ratio=30", &e) == 0);
    CHECK(knobset_prepare(&ks, &e) == 0);
    knobset_free(&ks);
    /* nr_requests above the hardware depth is allowed under a scheduler. */
    CHECK(knobset_add_assignment(&ks, "block.sda.nr_requests=512", &e) == 0);
    CHECK(knobset_prepare(&ks, &e) == 0);
    knobset_free(&ks);
    CHECK(knobset_add_assignment(&ks, "block.sda.nr_requests=512", &e) == 0);
    CHECK(knobset_add_assignment(&ks, "block.sda.scheduler=none", &e) == 0);
    CHECK(knobset_prepare(&ks, &e) < 0);
    CHECK_CONTAINS(e.msg, "hardware queue depth 32");
    knobset_free(&ks);
}
