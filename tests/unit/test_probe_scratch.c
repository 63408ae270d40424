/* Unit tests for the probe scratch records and the sweep `restore` runs:
 * a dead probe's directory removed, a live one's kept, a record of a gone
 * directory dropped, and anything not the probe's own 0700 directory left. */
#include "harness.h"
#include "probe/scratch.h"
#include "db/store_scratch.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static long dead_pid(void)
{
    pid_t p = fork();
    if (p == 0) _exit(0);
    waitpid(p, NULL, 0);
    return (long)p;   /* reaped: no such process (until the pid is reused) */
}

static const struct scratch_item *item(const struct scratch_report *r, const char *path)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->items[i].path, path) == 0) return &r->items[i];
    return NULL;
}

TEST(scratch_sweep_removes_only_dead_probes_directories)
{
    char dir[512], db[600], dead[700], live[700], gone[700], open_mode[700], file[800];
    snprintf(dir, sizeof dir, "%s/scratch-sweep", harness_tmpdir());
    snprintf(db, sizeof db, "%s/s.db", dir);
    CHECK(mkdir(dir, 0755) == 0);
    long pid = dead_pid();
    uid_t me = geteuid();
    snprintf(dead, sizeof dead, "%s/.sluice-probe.%ld.aaaaaa", dir, pid);
    snprintf(live, sizeof live, "%s/.sluice-probe.%ld.bbbbbb", dir, (long)getpid());
    snprintf(gone, sizeof gone, "%s/.sluice-probe.%ld.cccccc", dir, pid);
    snprintf(open_mode, sizeof open_mode, "%s/.sluice-probe.%ld.dddddd", dir, pid);
    CHECK(mkdir(dead, 0700) == 0 && mkdir(live, 0700) == 0 && mkdir(open_mode, 0700) == 0);
    CHECK(chmod(open_mode, 0755) == 0);   /* not what mkdtemp made */
    snprintf(file, sizeof file, "%s/data", dead);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f) fclose(f);

    store *st;
    sl_err e;
    CHECK(store_open(db, &st, &e) == 0);
    CHECK(store_scratch_add(st, dead, pid, me, &e) == 0);
    CHECK(store_scratch_add(st, live, (long)getpid(), me, &e) == 0);
    CHECK(store_scratch_add(st, gone, pid, me, &e) == 0);
    CHECK(store_scratch_add(st, open_mode, pid, me, &e) == 0);
    char first[700] = "";
    CHECK_INT(probe_scratch_left(st, first, sizeof first), 2);   /* dead and open_mode exist, owners gone */

    struct scratch_report rep;
    CHECK(probe_scratch_sweep(st, &rep, &e) == 0);
    CHECK_INT(rep.n, 4);
    CHECK_INT(rep.removed, 1);
    CHECK_INT(rep.failed, 0);
    const struct scratch_item *it;
    CHECK((it = item(&rep, dead)) && it->result == SCRATCH_REMOVED);
    if (it) CHECK_CONTAINS(it->msg, "removed ");
    CHECK((it = item(&rep, live)) && it->result == SCRATCH_RUNNING);
    CHECK((it = item(&rep, gone)) && it->result == SCRATCH_GONE && it->msg[0] == 0);
    CHECK((it = item(&rep, open_mode)) && it->result == SCRATCH_NOT_OURS);
    scratch_report_free(&rep);

    struct stat sb;
    CHECK(stat(dead, &sb) != 0);
    CHECK(stat(live, &sb) == 0 && stat(open_mode, &sb) == 0);
    struct scratch_row *rows;
    int n = store_scratch_list(st, &rows, &e);
    CHECK_INT(n, 1);   /* only the live probe's record stays */
    if (n == 1) CHECK_STR(rows[0].path, live);
    free(rows);
    CHECK(store_scratch_forget(st, live, &e) == 0);
    CHECK_INT(store_scratch_list(st, &rows, &e), 0);
    free(rows);
    store_close(st);
    rmdir(live);
    rmdir(open_mode);
}
