/* store_verify — SQL for live verifications and their blocks. */
#include "db/store_verify.h"
#include "core/record.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    return store_insert_child(s, "verify_blocks", "verify_id", verify_id, block_fields, block_fields_len, b,
                              "recording a block of the verification", e);
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

int store_verify_get(store *s, const char *prefix, struct verify_row *out, sl_err *e)
{
    sqlite3_stmt *st = select_verifies(s, "WHERE v.uuid LIKE ?1 || '%' ORDER BY v.id DESC LIMIT 2",
                                       "reading verifications", e);
    if (!st) return -1;
    return store_get_by_prefix(s, st, verify_fields, verify_fields_len, out, sizeof *out, prefix, "verification",
                               "sluice history", "reading verifications", e);
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

int store_verify_planned(const struct verify_row *v)
{
    json_t *plan = json_loads(v->plan_json, 0, NULL);
    json_int_t n = json_integer_value(json_object_get(plan, "blocks_planned"));
    json_decref(plan);
    return n > 0 && n < 1000000 ? (int)n : 0;
}

static json_t *text_or_null(const char *s) { return s[0] ? json_string(s) : json_null(); }

json_t *store_verify_json(const struct verify_row *v)
{
    return json_pack("{s:s,s:s,s:o,s:s,s:o,s:s,s:s,s:s,s:s,s:o,s:b,s:b,s:i,s:i,s:f,s:s,s:s}", "kind", "verification",
                     "uuid", v->uuid, "session", text_or_null(v->session_uuid), "started", v->started, "ended",
                     text_or_null(v->ended), "candidate", v->candidate, "baseline", v->baseline, "source", v->source,
                     "state", v->state, "verdict", text_or_null(v->verdict), "held", v->held, "kept", v->kept, "blocks",
                     v->nblocks, "blocks_planned", store_verify_planned(v), "block_s", (double)v->block_ms / 1000,
                     "why", v->end_why, "put_back", v->put_back);
}

/* Why a killed test ended, from what it stored: the block it was in (the
 * one after the last stored), the last sign of life (that block's end, or
 * the start), and when the restore found it. */
static void killed_why(const struct verify_row *v, const struct verify_block_row *last, int nstored, char *ended,
                       size_t ended_n, char *why, size_t why_n)
{
    int planned = store_verify_planned(v);
    snprintf(ended, ended_n, "%s", last ? last->ended : v->started);
    char block[64], since[48], now[32];
    if (planned > 0 && nstored >= planned) snprintf(block, sizeof block, "after its last block (%d of %d)", nstored, planned);
    else if (planned > 0) snprintf(block, sizeof block, "during block %d of %d", nstored + 1, planned);
    else snprintf(block, sizeof block, "during block %d", nstored + 1);
    if (last) snprintf(since, sizeof since, "block %d stored", nstored);
    else snprintf(since, sizeof since, "its start");
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(why, why_n, "%s (SIGKILL, a crash or a power cut), at or after %s (%s); its session %.8s was put back "
             "by a restore at %s", block, ended, since, v->session_uuid[0] ? v->session_uuid : "-", now);
}

static int mark_killed(store *s, const struct verify_row *v, sl_err *e)
{
    struct verify_block_row *blocks;
    int n = store_verify_blocks(s, v->id, &blocks, e);
    if (n < 0) return -1;
    char ended[32], why[512];
    killed_why(v, n ? &blocks[n - 1] : NULL, n, ended, sizeof ended, why, sizeof why);
    free(blocks);
    const char *what = "marking a killed verification";
    sqlite3_stmt *st = store_prepare(s, "UPDATE verifies SET state = 'killed', ended = ?1, end_why = ?2 "
                                     "WHERE id = ?3 AND state = 'running'", what, e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, ended, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, why, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, v->id);
    return store_step_write(s, st, what, e);
}

int store_verify_mark_killed(store *s, int64_t session_id, sl_err *e)
{
    if (store_begin(s, e) < 0) return -1;
    struct verify_row *rows = NULL;
    sqlite3_stmt *st = select_verifies(s, "WHERE v.session_id = ? AND v.state = 'running'", "reading verifications", e);
    int n = -1;
    if (st) {
        sqlite3_bind_int64(st, 1, session_id);
        n = store_collect(s, st, verify_fields, verify_fields_len, sizeof *rows, (void **)&rows, "reading verifications", e);
    }
    for (int i = 0; i < n; i++)
        if (mark_killed(s, &rows[i], e) < 0) n = -1;
    free(rows);
    if (n < 0 || store_commit(s, e) < 0) {
        store_rollback(s);
        return -1;
    }
    return n;
}
