/* store_share_check + store_share_merge: a .sluicedb from another machine
 * (pull, merge FILE) is hostile input. Mutated files must be refused with a
 * message or merged; either way the local database stays intact. */
#include "fuzz.h"
#include "db/store.h"
#include "db/store_share.h"

#include <unistd.h>

static store *local;
static char dir[] = "/tmp/sluice-fuzz-merge.XXXXXX";
static char input_path[sizeof dir + 32];

static void cleanup(void)
{
    store_close(local);
    char p[sizeof dir + 40];
    const char *names[] = { "local.db", "local.db-wal", "local.db-shm", "local.db-journal", "local.db.lock",
                            "input.sluicedb", "input.sluicedb-journal" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    if (!mkdtemp(dir)) abort();
    char db[sizeof dir + 16];
    snprintf(db, sizeof db, "%s/local.db", dir);
    snprintf(input_path, sizeof input_path, "%s/input.sluicedb", dir);
    sl_err e;
    if (store_open(db, &local, &e) < 0) { fprintf(stderr, "%s\n", e.msg); abort(); }
    atexit(cleanup);
    return 0;
}

static int quick_check_ok(sqlite3 *db)
{
    sqlite3_stmt *st;
    int ok = 0;
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK) {
        ok = sqlite3_step(st) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
        sqlite3_finalize(st);
    }
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The check and the merge take a private file (share_stage's copy). */
    FILE *f = fopen(input_path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
    sl_err e;
    sl_err_clear(&e);
    if (store_share_check(local, input_path, "fuzz.sluicedb", &e) == 0) {
        struct share_report rep;
        if (store_share_merge(local, input_path, &rep, &e) < 0) FUZZ_ASSERT(e.msg[0] != 0);
        FUZZ_ASSERT(quick_check_ok(store_db(local)));
    } else {
        FUZZ_ASSERT(e.msg[0] != 0);
    }
    /* Neither check nor merge may leave a transaction open on the store. */
    FUZZ_ASSERT(sqlite3_get_autocommit(store_db(local)));
    unlink(input_path);
    return 0;
}
