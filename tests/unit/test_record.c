/* Records described once (core/record.h): the device and host field tables
 * cover the database's columns, and what the store saves from them reads
 * back field by field. */
#include "harness.h"
#include "core/device.h"
#include "core/record.h"
#include "db/store.h"
#include "db/store_session.h"
#include "db/store_run.h"
#include "db/store_search.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Every column of table except the row's own identity is some field's. */
static void columns_covered(store *s, const char *table, const struct rec_field *f, size_t nf, const char *own)
{
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *col = (const char *)sqlite3_column_text(st, 1);
        bool found = strstr(own, col) != NULL;
        for (size_t i = 0; i < nf && !found; i++) {
            const char *c = f[i].column;
            if (c && strncmp(c, "s.", 2) == 0) c += 2;    /* a column of the sessions s query */
            found = c && strcmp(c, col) == 0;
        }
        if (!found) fprintf(stderr, "  %s.%s has no field\n", table, col);
        CHECK(found);
    }
    sqlite3_finalize(st);
}

TEST(record_tables_cover_the_columns_and_round_trip)
{
    sl_err e;
    store *s = harness_store("record.db");
    columns_covered(s, "devices", device_fields, device_fields_len, " id uuid host_id ");
    columns_covered(s, "hosts", host_fields, host_fields_len, " id uuid machine_key first_seen last_seen ");
    columns_covered(s, "sessions", session_fields, session_fields_len, " host_id ");
    struct host_info h = { .hostname = "h1", .machine_id = "m1", .kernel = "6.1", .cpu_model = "cpu", .cpus = 4,
                           .mem_bytes = 1ULL << 33, .virt = "kvm" };
    struct device d = { .name = "sda", .transport = "sata", .model = "M", .serial = "S1", .rotational = -1,
                        .size_bytes = 1ULL << 40, .logical_block_size = 512, .physical_block_size = 4096,
                        .hw_queues = 1, .queue_depth = 32, .max_hw_sectors_kb = 128 };
    int64_t hid, did;
    char uuid[37];
    CHECK(store_host_upsert(s, &h, &hid, uuid, &e) == 0);
    CHECK(store_device_upsert(s, hid, &d, &did, &e) == 0);
    d.queue_depth = 64;                           /* a changed fact is updated in place */
    int64_t again;
    CHECK(store_device_upsert(s, hid, &d, &again, &e) == 0);
    CHECK(again == did);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(store_db(s), "SELECT rotational, size_bytes, queue_depth, hw_class, virt, mem_bytes "
                             "FROM devices JOIN hosts ON hosts.id = host_id", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    char cls[256];
    device_class(&d, cls, sizeof cls);
    CHECK_INT(sqlite3_column_int(st, 0), -1);
    CHECK(sqlite3_column_int64(st, 1) == (sqlite3_int64)(1ULL << 40));
    CHECK_INT(sqlite3_column_int(st, 2), 64);
    CHECK_STR((const char *)sqlite3_column_text(st, 3), cls);
    CHECK_STR((const char *)sqlite3_column_text(st, 4), "kvm");
    CHECK(sqlite3_column_int64(st, 5) == (sqlite3_int64)(1ULL << 33));
    CHECK(sqlite3_step(st) == SQLITE_DONE);
    sqlite3_finalize(st);
    store_close(s);
    /* JSON from the same rows: the unknown rotational is null, an empty
     * scheduler null, the derived fields present */
    json_t *o = rec_json(device_fields, device_fields_len, &d);
    CHECK(json_is_null(json_object_get(o, "rotational")));
    CHECK(json_is_null(json_object_get(o, "scheduler")));
    CHECK_STR(json_string_value(json_object_get(o, "devnum")), "0:0");
    CHECK_STR(json_string_value(json_object_get(o, "hw_class")), cls);
    CHECK(json_integer_value(json_object_get(o, "max_hw_sectors_kb")) == 128);
    json_decref(o);
}

/* The run, search and trial tables cover their columns too, and a search
 * with missing values (NaN, no session) reads back as it went in. */
TEST(record_tables_for_runs_searches_and_trials)
{
    sl_err e;
    store *s = harness_store("record-search.db");
    columns_covered(s, "runs", run_record_fields, run_record_fields_len,
                    " id host_uuid host_id device_uuid device_id hw_class hist ");
    columns_covered(s, "searches", search_fields, search_fields_len, " result_json ");
    columns_covered(s, "trials", trial_fields, trial_fields_len, " search_id at ");
    struct search_row r = { .space = "sp", .workload = "null", .objective = "throughput", .strategy = "bo",
                            .evaluator = "synthetic", .budget_evals = 20, .seed = 7, .spec_json = "{}",
                            .improvement = NAN, .ci_lo = NAN, .ci_hi = NAN, .p_holm = NAN,
                            .explore_improvement = NAN, .shrinkage = NAN };
    CHECK(store_search_create(s, &r, &e) == 0);
    CHECK(r.id > 0);
    snprintf(r.state, sizeof r.state, "done");
    snprintf(r.verdict, sizeof r.verdict, "win");
    r.improvement = 0.25;
    r.n_winner = 5;
    CHECK(store_search_update(s, &r, "{\"x\":1}", &e) == 0);
    struct trial_row t = { .seq = 1, .role = "baseline", .config_hash = "h", .config_text = "a=1", .score = NAN,
                           .metrics_json = "{}", .elapsed_ms = 12 };
    CHECK(store_search_trial_add(s, r.id, &t, &e) == 0);
    struct search_row back;
    CHECK(store_search_get(s, r.uuid, &back, &e) == 0);
    CHECK_STR(back.state, "done");
    CHECK_STR(back.verdict, "win");
    CHECK(back.improvement == 0.25 && isnan(back.ci_lo) && isnan(back.shrinkage));
    CHECK(back.session_id == 0 && back.n_winner == 5 && back.budget_evals == 20);
    CHECK(back.ended[0] != 0);
    struct trial_row *tr;
    CHECK_INT(store_search_trials(s, r.id, &tr, &e), 1);
    CHECK(isnan(tr[0].score) && tr[0].elapsed_ms == 12);
    CHECK_STR(tr[0].config_text, "a=1");
    free(tr);
    /* the list's JSON: an empty verdict is null, the keys in table order */
    json_t *o = rec_json(search_fields, search_fields_len, &r);
    CHECK_STR(json_string_value(json_object_get(o, "verdict")), "win");
    json_decref(o);
    r.verdict[0] = 0;
    o = rec_json(search_fields, search_fields_len, &r);
    CHECK(json_is_null(json_object_get(o, "verdict")));
    json_decref(o);
    store_close(s);
}

/* An enum field is its name in JSON, text and the store; a value outside
 * the table (or a stored name it lacks) is none. */
TEST(record_enum_field_is_its_name)
{
    struct session_row r = { .state = SESSION_FAILED };
    const struct rec_field *f = NULL;
    for (size_t i = 0; i < session_fields_len; i++)
        if (session_fields[i].json && strcmp(session_fields[i].json, "state") == 0) f = &session_fields[i];
    CHECK(f && f->type == REC_ENUM);
    if (!f) return;
    char buf[32];
    CHECK_STR(rec_text(f, &r, buf, sizeof buf), "failed");
    json_t *j = rec_json(f, 1, &r);
    CHECK_STR(json_string_value(json_object_get(j, "state")), "failed");
    json_decref(j);
    CHECK_INT(rec_enum_value(f, "kept"), SESSION_KEPT);
    CHECK_INT(rec_enum_value(f, "half-kept"), -1);
    r.state = (enum session_state)-1;
    CHECK(rec_is_null(f, &r));
    j = rec_json(f, 1, &r);
    CHECK(json_is_null(json_object_get(j, "state")));
    json_decref(j);
}
