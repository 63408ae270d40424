/* One workload for a whole search: a fixture root whose dirty threshold
 * follows vm.dirty_ratio as the kernel's does (dirtyable memory x ratio),
 * a real seqwrite probe per evaluation. Sized from the threshold in force
 * at each probe (the old way), every ratio ran another volume; fixed once
 * from the largest limit of the space, every run has one workload hash. */
#include "harness.h"
#include "search/eval_probe.h"
#include "search/search.h"
#include "session/session.h"
#include "db/store.h"
#include "core/sysfs.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIRTYABLE_PAGES 50000   /* 195 MiB: ratio 20/30/40 give 39/59/78 MiB */

static const char *root;

/* The fixture's /proc/vmstat for a dirty_ratio of ratio, as the kernel's. */
static void write_vmstat(int ratio)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/proc/vmstat", root);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "nr_free_pages %d\nnr_inactive_file %d\nnr_active_file %d\nnr_dirty 0\nnr_writeback 0\n"
               "nr_dirty_threshold %d\nnr_dirty_background_threshold %d\n",
            DIRTYABLE_PAGES / 2, DIRTYABLE_PAGES / 4, DIRTYABLE_PAGES / 4, DIRTYABLE_PAGES / 100 * ratio,
            DIRTYABLE_PAGES / 100 * ratio / 2);
    fclose(f);
}

/* The kernel's part: the threshold follows the ratio the configuration
 * sets, before the probe evaluator puts it in place and measures. */
struct kernel_eval { struct evaluator inner; };

static int kernel_evaluate(void *ctx, const struct space *sp, const struct search_config *c, bool baseline,
                           struct eval_metrics *out, sl_err *e)
{
    struct kernel_eval *k = ctx;
    write_vmstat((int)sp->dim[0].num[c->lv[0]]);
    return k->inner.ops->evaluate(k->inner.ctx, sp, c, baseline, out, e);
}

static void kernel_destroy(void *ctx)
{
    struct kernel_eval *k = ctx;
    evaluator_free(&k->inner);
    free(k);
}

static const struct evaluator_ops kernel_ops = { .name = "kernel", .evaluate = kernel_evaluate, .destroy = kernel_destroy };

/* Where the probes write: tmpfs when there is one (no disk wear). */
static void probe_dir(char *dir, size_t n)
{
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        snprintf(dir, n, "/dev/shm");
    else
        snprintf(dir, n, "%s", harness_tmpdir());
}

/* A grid search of 8 evaluations over dirty_ratio 20/30/40; the number of
 * distinct workload hashes among its stored runs (-1 when it failed, e). */
static int search_hashes(bool fix, char *note, size_t nn, sl_err *e)
{
    static int serial;
    root = harness_fixture_copy("modern");
    if (sysfs_set_root(root, e) < 0) return -1;
    write_vmstat(20);
    char path[PATH_MAX], db[PATH_MAX];
    snprintf(path, sizeof path, "%s/trio.space", harness_tmpdir());
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "[knob vm.dirty_ratio]\nvalues = 20 30 40\n");
    fclose(f);
    struct space sp;
    if (space_build(path, NULL, &sp, e) < 0) return -1;
    snprintf(db, sizeof db, "%s/work%d.db", harness_tmpdir(), serial++);
    store *st;
    if (store_open(db, &st, e) < 0) return -1;
    struct probe_spec spec = { .canary = 0 };
    snprintf(spec.workload, sizeof spec.workload, "seqwrite");
    probe_dir(spec.dir[0], sizeof spec.dir[0]);
    spec.ndirs = 1;
    struct search_workload w = { 0 };
    int rc = fix ? search_workload_fix(&spec, &sp, &w, e) : 0;
    snprintf(note, nn, "%s", w.note);
    struct knob *touched = NULL;
    int nt = rc < 0 ? -1 : space_touched(&sp, &touched, e), lock_fd = -1;
    struct session *s = NULL;
    rc = nt < 0 ? -1 : session_lock_acquire(store_path(st), &lock_fd, e);
    if (rc == 0) rc = session_begin(st, "search", touched, nt, lock_fd, &s, e);
    free(touched);
    struct kernel_eval *k = xcalloc(1, sizeof *k);
    struct evaluator ev = { &kernel_ops, k };
    if (rc == 0) rc = evaluator_probe(&k->inner, &spec, s, st, 1, e);
    struct search_spec ss;
    search_spec_defaults(&ss);
    snprintf(ss.objective, sizeof ss.objective, "throughput");
    snprintf(ss.strategy, sizeof ss.strategy, "grid");
    snprintf(ss.workload, sizeof ss.workload, "seqwrite");
    ss.budget_evals = 8;
    struct search_result r = { 0 };
    if (rc == 0) rc = search_run(&ss, &sp, &ev, NULL, &r, e);
    search_result_free(&r);
    if (k->inner.ops) evaluator_free(&ev);
    else free(k);
    struct restore_report rep = { 0 };
    sl_err se;
    if (s) session_end(s, false, &rep, &se);
    restore_report_free(&rep);
    int n = -1;
    sqlite3_stmt *q;
    if (rc == 0 && sqlite3_prepare_v2(store_db(st), "SELECT count(DISTINCT workload_hash) FROM runs", -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW) n = sqlite3_column_int(q, 0);
        sqlite3_finalize(q);
    }
    store_close(st);
    sysfs_set_root(NULL, &se);
    return n;
}

TEST(search_runs_one_workload_whatever_the_threshold)
{
    sl_err e;
    char note[512];
    int n = search_hashes(true, note, sizeof note, &e);
    if (n < 0) printf("  %s\n", e.msg);
    CHECK_INT(n, 1);
    /* sized from ratio 40, the largest the space sets: 2 x 78 MiB */
    CHECK_CONTAINS(note, "write volume 156");
    CHECK_CONTAINS(note, "the largest dirty limit the space can set");
}

TEST(search_refuses_a_workload_that_follows_the_threshold)
{
    /* Unfixed, each probe sizes from the threshold in force (the old way):
     * the first run at ratio 30 measures another volume, and the evaluator
     * says so instead of comparing. */
    sl_err e;
    char note[512];
    CHECK_INT(search_hashes(false, note, sizeof note, &e), -1);
    CHECK_CONTAINS(e.msg, "measured another workload than the search fixed (size=");
}

/* seqwrite, canary off, into the harness's temporary directory: the spec a
 * search fixes its workload from in the tests below. */
static struct probe_spec seqwrite_in_tmpdir(void)
{
    struct probe_spec spec = { .canary = 0, .ndirs = 1 };
    snprintf(spec.workload, sizeof spec.workload, "seqwrite");
    snprintf(spec.dir[0], sizeof spec.dir[0], "%s", harness_tmpdir());
    return spec;
}

/* Bad input: a space whose largest dirty limit needs more volume than the
 * disk holds. The volume is capped at half the free space, the note says
 * what was sized and why, and the flag says the threshold is not reached. */
TEST(search_workload_capped_by_free_space_says_so)
{
    sl_err e;
    root = harness_fixture_copy("modern");
    CHECK_INT(sysfs_set_root(root, &e), 0);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/proc/vmstat", root);
    FILE *f = fopen(path, "w");
    if (!f) return;
    /* 4 PiB of dirtyable memory: no disk holds twice 40% of it */
    fprintf(f, "nr_free_pages 1000000000000\nnr_inactive_file 0\nnr_active_file 0\nnr_dirty 0\nnr_writeback 0\n"
               "nr_dirty_threshold 200000000000\nnr_dirty_background_threshold 100000000000\n");
    fclose(f);
    struct space sp;
    CHECK_INT(space_build("writeback", NULL, &sp, &e), 0);
    struct probe_spec spec = seqwrite_in_tmpdir();
    struct search_workload w;
    CHECK_INT(search_workload_fix(&spec, &sp, &w, &e), 0);
    CHECK(w.capped);
    CHECK_CONTAINS(w.note, "is free under");
    CHECK_CONTAINS(w.note, "will not reach their threshold");
    CHECK_CONTAINS(w.text, "size_bytes=");
    CHECK(spec.size_bytes > 0);
    sysfs_set_root(NULL, &e);
}

/* A claim holds for the regime it was measured in (bench/carry-over: what
 * ran just before moves a buffered writer 2x). The fixed workload says
 * which: back to back unless --idle-before, and for a buffered writer that
 * the other regime can measure otherwise; direct I/O gets the plain fact. */
TEST(search_workload_names_its_regime)
{
    sl_err e;
    root = harness_fixture_copy("modern");
    CHECK_INT(sysfs_set_root(root, &e), 0);
    write_vmstat(20);
    struct space sp;
    CHECK_INT(space_build("writeback", NULL, &sp, &e), 0);
    struct probe_spec spec = seqwrite_in_tmpdir();
    struct probe_spec idle = spec, direct = spec;
    idle.idle_ms = 20000;
    direct.direct = true;
    direct.size_bytes = 1 << 20;
    struct search_workload w;
    CHECK_INT(search_workload_fix(&spec, &sp, &w, &e), 0);
    CHECK_CONTAINS(w.regime, "runs back to back");
    CHECK_CONTAINS(w.regime, "--idle-before T measures that regime");
    CHECK_INT(search_workload_fix(&idle, &sp, &w, &e), 0);
    CHECK_CONTAINS(w.regime, "every run followed 20 s without the probe's I/O");
    CHECK_CONTAINS(w.regime, "back to back, as a sustained writer, the result can differ");
    CHECK_INT(search_workload_fix(&direct, &sp, &w, &e), 0);
    CHECK_CONTAINS(w.regime, "runs back to back");
    CHECK(!strstr(w.regime, "--idle-before"));
    json_t *j = search_workload_json(&w);
    CHECK_STR(json_string_value(json_object_get(j, "regime")), w.regime);
    json_decref(j);
    sysfs_set_root(NULL, &e);
}
