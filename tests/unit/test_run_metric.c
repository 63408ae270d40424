/* The metric table's promise: every row, once measured, comes back the same
 * from the store (the insert's columns, the list, the export, the search's
 * reader), from the JSON it is written to, and in the summaries' text. */
#include "harness.h"
#include "core/run_metric.h"
#include "core/device.h"
#include "db/store_run.h"
#include "db/store_search.h"
#include "report/report_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A distinct value per row, inside every row's bounds, whole (an INTEGER
 * column keeps it exactly). */
static double value_of(int i) { return 10 + i; }

static void all_values(struct run_metrics *m)
{
    for (int i = 0; i < RM_NR; i++) run_metric_set(m, i, value_of(i));
}

/* A probe JSON with every instrument's object present, so every path has
 * its parent. */
static json_t *probe_json_with(const struct run_metrics *m)
{
    json_t *o = json_pack("{s:{}, s:{}, s:{}, s:{}, s:{}, s:{}, s:{s:{s:{}}}}", "cpu", "disk", "vm", "psi_io", "canary",
                          "reader", "ops", "write", "lat_ns");
    run_metric_json_put(o, m);
    return o;
}

TEST(run_metric_json_round_trip)
{
    struct run_metrics m, back;
    all_values(&m);
    json_t *o = probe_json_with(&m);
    run_metric_json_get(o, &back);
    for (int i = 0; i < RM_NR; i++)
        if (run_metric_get(&back, i) != value_of(i))
            harness_fail(__FILE__, __LINE__, "%s: %g back from JSON, wrote %g", run_metric_table[i].name,
                         run_metric_get(&back, i), value_of(i));
    json_decref(o);
    /* a run without a disk has no "disk" object: its rows are left out */
    o = json_object();
    run_metric_json_put(o, &m);
    CHECK(!json_object_get(o, "disk"));
    CHECK(json_object_get(o, "mb_s"));
    json_decref(o);
}

TEST(run_metric_text_of_every_row_is_in_its_group_line)
{
    struct run_metrics m;
    all_values(&m);
    for (int i = 0; i < RM_NR; i++) {
        char want[64], line[1024];
        run_metric_text(i, value_of(i), want, sizeof want);
        run_metric_group_text(&m, run_metric_table[i].group, line, sizeof line);
        if (!strstr(line, want) || (run_metric_table[i].label[0] && !strstr(line, run_metric_table[i].label)))
            harness_fail(__FILE__, __LINE__, "%s: \"%s\" (%s) not in its line \"%s\"", run_metric_table[i].name, want,
                         run_metric_table[i].label, line);
    }
    char t[32];
    CHECK_STR(run_metric_text(RM_lat_p99_ns, NAN, t, sizeof t), "-");
    CHECK_STR(run_metric_text(RM_lat_p99_ns, 58100, t, sizeof t), "58.1 us");
    struct run_metrics none;
    run_metric_clear(&none);
    char line[64];
    CHECK_STR(run_metric_group_text(&none, MG_CPU, line, sizeof line), "");
}

/* Each metric of a record read back equals the one saved. */
static void check_same(const struct run_metrics *m, const char *where, int line)
{
    for (int i = 0; i < RM_NR; i++)
        if (run_metric_get(m, i) != value_of(i))
            harness_fail(__FILE__, line, "%s: %s is %g, saved %g", where, run_metric_table[i].name,
                         run_metric_get(m, i), value_of(i));
}

struct seen { int n; struct run_metrics m; char csv[RM_NR][64]; json_t *json; };

static int export_one(void *arg, const struct run_export *r)
{
    struct seen *s = arg;
    s->n++;
    s->m = r->m;
    s->json = rec_json(run_export_fields, run_export_fields_len, r);
    int k = 0;
    for (size_t f = 0; f < run_export_fields_len; f++) {
        const struct run_metric *d = run_metric_find(run_export_fields[f].json ? run_export_fields[f].json : "");
        if (d && k < RM_NR) rec_text(&run_export_fields[f], r, s->csv[d - run_metric_table], sizeof s->csv[0]), k++;
    }
    return 0;
}

static int search_one(void *arg, const struct stored_run *r)
{
    struct seen *s = arg;
    s->n++;
    s->m = r->m;
    return 0;
}

/* One run whose every metric is value_of(its row), saved in st. */
static void save_run(store *st, const char *uuid)
{
    struct run_metrics m;
    all_values(&m);
    json_t *j = probe_json_with(&m);
    char *metrics = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    struct run_record rec = { .uuid = uuid, .batch = "b", .workload = "null", .workload_hash = "w",
                              .workload_text = "bs=4096\n", .config_hash = "c", .config_text = "vm.dirty_ratio=20\n",
                              .started = "2026-01-01T00:00:00Z", .status = "ok", .note = "", .kernel = "6.8", .m = m,
                              .reached_threshold = -1, .metrics_json = metrics };
    struct host_info h = { .hostname = "h", .machine_id = "0123456789abcdef", .kernel = "6.8", .cpu_model = "cpu",
                           .cpus = 2, .mem_bytes = 1ull << 30 };
    sl_err e;
    CHECK_INT(store_run_save(st, &rec, &h, NULL, &e), 0);
    free(metrics);
}

TEST(run_metric_store_round_trip)
{
    store *st = harness_store("metrics.db");
    if (!st) return;
    save_run(st, "11111111-2222-3333-4444-555555555555");
    sl_err e;

    struct run_row *rows = NULL;
    CHECK_INT(store_run_list(st, NULL, 0, &rows, &e), 1);
    if (rows) check_same(&rows[0].m, "history's list", __LINE__);
    free(rows);

    struct seen ex = { 0 };
    CHECK_INT(store_run_export(st, NULL, 0, export_one, &ex, &e), 1);
    check_same(&ex.m, "history --csv/--json", __LINE__);
    for (int i = 0; i < RM_NR; i++) {
        char want[32];
        snprintf(want, sizeof want, "%.12g", value_of(i));
        if (strcmp(ex.csv[i], want) != 0)
            harness_fail(__FILE__, __LINE__, "CSV %s is \"%s\", saved %s", run_metric_table[i].name, ex.csv[i], want);
        json_t *v = json_object_get(ex.json, run_metric_table[i].name);
        if (!json_is_number(v) || json_number_value(v) != value_of(i))
            harness_fail(__FILE__, __LINE__, "history JSON has no %s = %g", run_metric_table[i].name, value_of(i));
    }
    json_decref(ex.json);

    struct seen sr = { 0 };
    CHECK_INT(store_search_runs(st, NULL, search_one, &sr, &e), 1);
    check_same(&sr.m, "the search's reader", __LINE__);
    store_close(st);
}

/* The stored run's report (load, then render) and the Probe screen's lines
 * (report_run_metrics) show every metric. */
TEST(run_metric_report_shows_every_row)
{
    store *st = harness_store("report.db");
    if (!st) return;
    save_run(st, "99999999-2222-3333-4444-555555555555");
    sl_err e;
    struct report rep;
    CHECK_INT(report_build(st, "99999999", &rep, &e), 0);
    for (int i = 0; i < RM_NR; i++) {
        char want[64], line[160];
        run_metric_text(i, value_of(i), want, sizeof want);
        snprintf(line, sizeof line, "%s%s%s", run_metric_table[i].label, run_metric_table[i].label[0] ? " " : "", want);
        bool found = false;
        for (int k = 0; k < rep.n && !found; k++)
            found = rep.items[k].kind == RI_TEXT && strstr(rep.items[k].text, line);
        if (!found) harness_fail(__FILE__, __LINE__, "the run's report has no \"%s\" (%s)", line, run_metric_table[i].name);
    }
    report_free(&rep);
    store_close(st);
}
