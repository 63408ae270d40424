/* store_verify — SQL for live verifications and their blocks. */
#include "db/store_verify.h"
#include "core/record.h"

#include <stdio.h>
#include <string.h>

/* The test's record, described once: what create inserts, what finish
 * writes (REC_UPDATE), what every read fills. */
#define VR(field, type, ...) REC_FIELD(struct verify_row, field, type, NULL, #field, __VA_ARGS__)
#define END (REC_UPDATE | REC_NOINSERT)
static const struct rec_field verify_fields[] = {
    VR(id, REC_I64, .flags = REC_READONLY),
    VR(uuid, REC_TEXT),
    VR(session_id, REC_I64, .flags = REC_NULL_ZERO),
    VR(candidate, REC_TEXT),
    VR(baseline, REC_TEXT),
    VR(source, REC_TEXT),
    VR(duration_ms, REC_I64),
    VR(block_ms, REC_I64),
    VR(seed, REC_I64),
    VR(metric_cmd, REC_TEXT),
    VR(metric_higher, REC_INT),
    VR(dir, REC_TEXT),
    VR(disks, REC_TEXT),
    VR(plan_json, REC_TEXT),
    VR(state, REC_TEXT, .flags = REC_UPDATE),
    VR(end_why, REC_TEXT, .flags = END),
    VR(verdict, REC_TEXT, .flags = END),
    VR(held, REC_INT, .flags = END),
    VR(kept, REC_INT, .flags = END),
    VR(put_back, REC_TEXT, .flags = END),
    VR(started, REC_TEXT, .flags = REC_READONLY),
    VR(ended, REC_TEXT, .flags = REC_READONLY),
    VR(session_uuid, REC_TEXT, .flags = REC_READONLY),
    VR(nblocks, REC_INT, .flags = REC_READONLY),
};
#undef END
#undef VR
static const size_t verify_fields_len = sizeof verify_fields / sizeof verify_fields[0];

#define VB(field, type, ...) REC_FIELD(struct verify_block_row, field, type, NULL, #field, __VA_ARGS__)
static const struct rec_field block_fields[] = {
    VB(seq, REC_INT), VB(arm, REC_TEXT), VB(setting, REC_TEXT), VB(start_ms, REC_I64), VB(settle_ms, REC_I64),
    VB(end_ms, REC_I64), VB(started, REC_TEXT), VB(ended, REC_TEXT), VB(complete, REC_INT), VB(util_pct, REC_DOUBLE),
    VB(io_bytes_s, REC_DOUBLE), VB(metrics_json, REC_TEXT), VB(note, REC_TEXT),
};
#undef VB
static const size_t block_fields_len = sizeof block_fields / sizeof block_fields[0];

int store_verify_create(store *s, struct verify_row *r, sl_err *e)
{
    store_uuid(r->uuid);
    snprintf(r->state, sizeof r->state, "running");
    return store_insert_dated(s, "verifies", verify_fields, verify_fields_len, r, &r->id, r->started,
                              sizeof r->started, "recording the verification", e);
}

int store_verify_finish(store *s, const struct verify_row *r, sl_err *e)
{
    sqlite3_stmt *st = store_prepare_update(s, "verifies", verify_fields, verify_fields_len, r,
                                            ", ended = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = :id",
                                            "recording the verification's end", e);
    if (!st) return -1;
    sqlite3_bind_int64(st, store_param(st, ":id"), r->id);
    int rc = store_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "recording the verification's end");
    return 0;
}

int store_verify_block_add(store *s, int64_t verify_id, const struct verify_block_row *b, sl_err *e)
{
    sqlite3_stmt *st = store_prepare_insert(s, "verify_blocks", "verify_id", block_fields, block_fields_len, b, NULL,
                                            "recording a block of the verification", e);
    if (!st) return -1;
    sqlite3_bind_int64(st, store_param(st, ":verify_id"), verify_id);
    int rc = store_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "recording a block of the verification");
    return 0;
}

/* The tests with their session's UUID and block count, as the fields name them. */
#define VERIFIES_FROM                                                                                             \
    "FROM (SELECT v.*, COALESCE(s.uuid, '') AS session_uuid, "                                                   \
    "(SELECT count(*) FROM verify_blocks b WHERE b.verify_id = v.id) AS nblocks "                                 \
    "FROM verifies v LEFT JOIN sessions s ON s.id = v.session_id) v "

static sqlite3_stmt *select_verifies(store *s, const char *tail, const char *what, sl_err *e)
{
    char from[512];
    snprintf(from, sizeof from, VERIFIES_FROM "%s", tail);
    return store_prepare_select(s, verify_fields, verify_fields_len, from, what, e);
}

/* At most two rows of st (bound by the caller) into out: 0 for one, 1 for
 * none, 2 for more. -1 with e when the database fails. */
static int one_of(store *s, sqlite3_stmt *st, struct verify_row *out, sl_err *e)
{
    int n = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        if (n == 0) {
            memset(out, 0, sizeof *out);
            store_read_fields(st, verify_fields, verify_fields_len, out);
        }
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "reading verifications");
    return n == 1 ? 0 : n == 0 ? 1 : 2;
}

int store_verify_get(store *s, const char *prefix, struct verify_row *out, sl_err *e)
{
    sqlite3_stmt *st = select_verifies(s, "WHERE v.uuid LIKE ?1 || '%' ORDER BY v.id DESC LIMIT 2",
                                       "reading verifications", e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
    int rc = one_of(s, st, out, e);
    if (rc == 1) return sl_fail(e, SL_EUSAGE, "no verification %s in %s (see 'sluice history')", prefix, store_path(s));
    if (rc == 2) return sl_fail(e, SL_EUSAGE, "verification id %s is ambiguous: give more of its UUID", prefix);
    return rc;
}

int store_verify_list(store *s, struct verify_row **out, sl_err *e)
{
    sqlite3_stmt *st = select_verifies(s, "ORDER BY v.id DESC", "listing verifications", e);
    if (!st) return -1;
    return store_collect(s, st, verify_fields, verify_fields_len, sizeof **out, (void **)out, "listing verifications", e);
}

int store_verify_blocks(store *s, int64_t verify_id, struct verify_block_row **out, sl_err *e)
{
    sqlite3_stmt *st = store_prepare_select(s, block_fields, block_fields_len,
                                            "FROM verify_blocks WHERE verify_id = ? ORDER BY seq",
                                            "reading a verification's blocks", e);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, verify_id);
    return store_collect(s, st, block_fields, block_fields_len, sizeof **out, (void **)out,
                         "reading a verification's blocks", e);
}
