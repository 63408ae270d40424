/* Unit tests for the store and sessions: migrations, refusal of foreign
 * files, durable snapshots, put-back order and the ratio/bytes pairs. */
#include "harness.h"
#include "session/knobset.h"
#include "session/session.h"
#include "db/store_session.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
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


/* The text sessions.state holds for a session: the database's own. */
static void stored_state(store *s, int64_t id, char *buf, size_t n, bool *ended)
{
    sqlite3_stmt *st;
    buf[0] = 0;
    if (sqlite3_prepare_v2(store_db(s), "SELECT state, ended IS NOT NULL FROM sessions WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
        *ended = sqlite3_column_int(st, 1) != 0;
    }
    sqlite3_finalize(st);
}

/* Databases hold the states by these names (and their CHECK lists them):
 * every state is written as its name, read back as the same state, and
 * only a restored session is out of the "not restored" queries. */
TEST(session_states_are_stored_by_their_names)
{
    static const char *const want[SESSION_STATES] = { "open", "kept", "restored", "failed" };
    for (int i = 0; i < SESSION_STATES; i++) CHECK_STR(session_state_name((enum session_state)i), want[i]);
    CHECK_STR(session_state_name(SESSION_STATES), "");
    store *s = harness_store("states.db");
    if (!s) return;
    sl_err e;
    struct session_holder h = { .pid = (int)getpid() };
    struct session_row row, back;
    CHECK(store_session_create(s, 0, "test", "/", &h, NULL, 0, &row, &e) == 0);
    CHECK_INT(row.state, SESSION_OPEN);
    static const enum session_state order[] = { SESSION_KEPT, SESSION_FAILED, SESSION_OPEN, SESSION_RESTORED };
    for (int i = 0; i < SESSION_STATES; i++) {
        char text[32];
        bool ended = false;
        CHECK(store_session_set_state(s, row.id, order[i], NULL, &e) == 0);
        stored_state(s, row.id, text, sizeof text, &ended);
        CHECK_STR(text, want[order[i]]);
        CHECK_INT(ended, order[i] != SESSION_OPEN);
        CHECK(store_session_get(s, row.uuid, &back, &e) == 0);
        CHECK_INT(back.state, order[i]);
        CHECK_INT(store_session_latest_unrestored(s, &back, &e), order[i] == SESSION_RESTORED ? 1 : 0);
    }
    store_close(s);
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
    int n = store_session_snapshots(s, session_row_of(sess)->id, &rows, &e);
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

/* #30 item 1: a second connection opened by the same process (the UI's job
 * threads each open one) must not drop the first one's POSIX locks. When it
 * did (store_open read the header with open()/close(), and a close drops
 * every lock the process holds on the file), the next process to close its
 * connection believed itself the last user, checkpointed and unlinked the
 * WAL under the live connection, whose later writes vanished. */
TEST(store_second_connection_keeps_the_wal_of_the_first)
{
    char path[512], wal[530];
    db_path(path, sizeof path, "wal-kept.db");
    snprintf(wal, sizeof wal, "%s-wal", path);
    store *ui = harness_store("wal-kept.db");
    if (!ui) return;
    CHECK(sqlite3_exec(store_db(ui), "CREATE TABLE acked(n INTEGER)", NULL, NULL, NULL) == SQLITE_OK);
    store *job;
    sl_err e;
    CHECK(store_open(path, &job, &e) == 0); /* the same process, a second connection */
    struct stat before;
    CHECK(stat(wal, &before) == 0);
    /* Another process opens and closes the database, as `sluice history`
     * does: a process of its own (exec'ed, so that no SQLite state of ours
     * is inherited by a forked child). */
    pid_t pid = fork();
    if (pid == 0) {
        execlp("sqlite3", "sqlite3", path, "SELECT count(*) FROM acked;", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat after;
    CHECK(stat(wal, &after) == 0 && after.st_ino == before.st_ino); /* not unlinked under us */
    CHECK(sqlite3_exec(store_db(ui), "INSERT INTO acked VALUES (1)", NULL, NULL, NULL) == SQLITE_OK);
    store_close(job);
    /* A fresh process-independent reader sees the acknowledged write. */
    sqlite3 *check;
    CHECK(sqlite3_open_v2(path, &check, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(check, "SELECT count(*) FROM acked", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1);
    sqlite3_finalize(st);
    sqlite3_close(check);
    store_close(ui);
}

static void on_alarm(int sig) { (void)sig; }

/* #30 item 5: a FIFO given as --db is refused at once, not opened (an
 * open() for reading would wait for a writer forever). */
TEST(store_refuses_a_fifo_without_blocking)
{
    char path[512];
    db_path(path, sizeof path, "fifo.db");
    unlink(path);
    CHECK(mkfifo(path, 0600) == 0);
    store *s;
    sl_err e;
    /* A hang is interrupted after 5 s (no SA_RESTART: the open fails
     * with EINTR) and fails the test instead of stalling the run. */
    struct sigaction sa = { .sa_handler = on_alarm }, old;
    sigaction(SIGALRM, &sa, &old);
    alarm(5);
    CHECK(store_open(path, &s, &e) < 0);
    alarm(0);
    sigaction(SIGALRM, &old, NULL);
    CHECK_CONTAINS(e.msg, "not a regular file");
    unlink(path);
}
