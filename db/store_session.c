/* store_session — SQL for sessions, snapshots and the change log. */
#include "db/store_session.h"
#include "core/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Ends a transaction that failed: the SQLite error reported as what (NULL:
 * a step that reported its own), and everything since store_begin rolled
 * back. Returns -1. */
static int abandon(store *s, const char *what, sl_err *e)
{
    if (what) store_fail(s, e, what);
    store_rollback(s);
    return -1;
}

/* sql prepared in the open transaction; NULL with e (what) and the
 * transaction abandoned when it fails. */
static sqlite3_stmt *prepare_in(store *s, const char *sql, const char *what, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) == SQLITE_OK) return st;
    abandon(s, what, e);
    return NULL;
}

/* A transaction opened and its first statement, sql, prepared; NULL with e
 * and nothing left open when either fails. */
static sqlite3_stmt *begin_with(store *s, const char *sql, const char *what, sl_err *e)
{
    return store_begin(s, e) < 0 ? NULL : prepare_in(s, sql, what, e);
}

int store_session_create(store *s, int64_t host_id, const char *purpose, const char *root,
                         const struct session_holder *h, const struct snapshot_row *snaps, int n,
                         struct session_row *out, sl_err *e)
{
    memset(out, 0, sizeof *out);
    store_uuid(out->uuid);
    snprintf(out->purpose, sizeof out->purpose, "%s", purpose);
    snprintf(out->root, sizeof out->root, "%s", root);
    out->state = SESSION_OPEN;
    out->pid = h->pid;
    out->holder_start = h->start;
    snprintf(out->holder_ns, sizeof out->holder_ns, "%s", h->ns);
    snprintf(out->user, sizeof out->user, "%s", h->user);
    const char *what = "recording the session snapshot";
    sqlite3_stmt *st = begin_with(s, "INSERT INTO sessions (uuid, host_id, purpose, root, pid, state, holder_start, "
                                  "holder_ns, user) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id, started", what, e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, out->uuid, -1, SQLITE_STATIC);
    if (host_id > 0) sqlite3_bind_int64(st, 2, host_id); else sqlite3_bind_null(st, 2);
    sqlite3_bind_text(st, 3, purpose, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, root, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, out->pid);
    sqlite3_bind_text(st, 6, session_state_name(SESSION_OPEN), -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 7, h->start);
    sqlite3_bind_text(st, 8, h->ns, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 9, h->user, -1, SQLITE_STATIC);
    if (store_step(st) != SQLITE_ROW) { sqlite3_finalize(st); return abandon(s, what, e); }
    out->id = sqlite3_column_int64(st, 0);
    COPY_TEXT(out->started, st, 1);
    sqlite3_finalize(st);
    /* Nothing is written yet: what the session left is what it found. */
    st = prepare_in(s, "INSERT INTO snapshots (session_id, knob, path, value, present, apply_order, sched, left_value) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?4)", what, e);
    if (!st) return -1;
    for (int i = 0; i < n; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, out->id);
        sqlite3_bind_text(st, 2, snaps[i].knob, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, snaps[i].path, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, snaps[i].value, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 5, snaps[i].present);
        sqlite3_bind_int(st, 6, snaps[i].order);
        sqlite3_bind_text(st, 7, snaps[i].sched, -1, SQLITE_STATIC);
        if (store_step(st) != SQLITE_DONE) { sqlite3_finalize(st); return abandon(s, what, e); }
    }
    sqlite3_finalize(st);
    if (store_commit(s, e) < 0) return abandon(s, NULL, e);
    return 0;
}

/* The session record, described once: what the store reads and `sessions
 * --json` prints (in this order). */
#define SESS(field, type, key, col, ...) REC_FIELD(struct session_row, field, type, key, col, __VA_ARGS__)
const struct rec_field session_fields[] = {
    SESS(uuid, REC_TEXT, "uuid", "s.uuid"),
    SESS(purpose, REC_TEXT, "purpose", "s.purpose"),
    SESS(state, REC_ENUM, "state", "s.state", .names = session_state_names),
    SESS(pid, REC_INT, "pid", "s.pid"),
    SESS(root, REC_TEXT, "root", "s.root", .empty_as = "/"),
    SESS(started, REC_TEXT, "started", "s.started"),
    SESS(ended, REC_TEXT, "ended", "s.ended", .flags = REC_NULL_EMPTY),
    SESS(changes, REC_INT, "changes", "(SELECT count(*) FROM session_changes c WHERE c.session_id = s.id AND c.action = 'write')"),
    SESS(note, REC_TEXT, "note", "s.note"),
    SESS(id, REC_I64, NULL, "s.id"),
    SESS(holder_start, REC_DOUBLE, NULL, "s.holder_start", .unit = "s"),
    SESS(holder_ns, REC_TEXT, NULL, "s.holder_ns"),
    SESS(restoring, REC_INT, NULL, "s.restoring"),
    SESS(writing, REC_INT, NULL, "s.writing"),
    SESS(profile, REC_TEXT, NULL, "s.profile"),
    SESS(user, REC_TEXT, NULL, "s.user"),
};
#undef SESS
const size_t session_fields_len = sizeof session_fields / sizeof session_fields[0];

/* "SELECT <the fields> FROM sessions s <tail>". */
static void session_sql(char *sql, size_t n, const char *tail)
{
    char from[1100];
    snprintf(from, sizeof from, "FROM sessions s %s", tail);
    store_select_fields(sql, n, session_fields, session_fields_len, from);
}

static void row_from(sqlite3_stmt *st, struct session_row *r)
{
    memset(r, 0, sizeof *r);
    store_read_fields(st, session_fields, session_fields_len, r);
}

int store_session_list(store *s, struct session_row **out, sl_err *e)
{
    char sql[1536];
    session_sql(sql, sizeof sql, "ORDER BY s.id DESC");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "listing sessions");
    return store_collect(s, st, session_fields, session_fields_len, sizeof **out, (void **)out, "listing sessions", e);
}

int store_session_get(store *s, const char *uuid_prefix, struct session_row *out, sl_err *e)
{
    char sql[1536];
    session_sql(sql, sizeof sql, "WHERE s.uuid LIKE ? || '%' ESCAPE '\\' ORDER BY s.id DESC LIMIT 2");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "finding a session");
    char pattern[64];
    size_t j = 0;
    for (const char *p = uuid_prefix; *p && j + 2 < sizeof pattern; p++) {
        if (*p == '%' || *p == '_' || *p == '\\') pattern[j++] = '\\';
        pattern[j++] = *p;
    }
    pattern[j] = 0;
    sqlite3_bind_text(st, 1, pattern, -1, SQLITE_STATIC);
    int found = 0, rc;
    while ((rc = store_step(st)) == SQLITE_ROW) {
        if (found++ == 0) row_from(st, out);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return store_fail(s, e, "finding a session");   /* not "no such session" */
    if (!uuid_prefix[0] || found == 0)
        return sl_fail(e, SL_EUSAGE, "no session \"%s\" in %s (see 'sluice sessions')", uuid_prefix, store_path(s));
    if (found > 1)
        return sl_fail(e, SL_EUSAGE, "session \"%s\" is ambiguous: give more of its UUID (see 'sluice sessions')", uuid_prefix);
    return 0;
}

/* The newest session matching `where` (SQL text of ours, no input), 1 when none. */
/* The newest session not restored (open, kept, or failed: some of its
 * knobs may still hold its values) that also meets `and` ("" for none). */
static int newest_unrestored(store *s, const char *and, struct session_row *out, sl_err *e)
{
    char sql[1536], tail[1024];
    snprintf(tail, sizeof tail, "WHERE s.state <> ?1 %s ORDER BY s.id DESC LIMIT 1", and);
    session_sql(sql, sizeof sql, tail);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "finding a session");
    sqlite3_bind_text(st, 1, session_state_name(SESSION_RESTORED), -1, SQLITE_STATIC);
    int rc = store_step(st);
    if (rc == SQLITE_ROW) row_from(st, out);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return 0;
    if (rc == SQLITE_DONE) return 1;
    return store_fail(s, e, "finding a session");
}

int store_session_deferred(store *s, const char *root, struct session_row **out, sl_err *e)
{
    char sql[1536];
    session_sql(sql, sizeof sql, "WHERE s.root = ? AND s.state = 'failed' AND EXISTS (SELECT 1 FROM snapshots p "
                "WHERE p.session_id = s.id AND p.restore_plan = 'later') ORDER BY s.id DESC");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "listing deferred sessions");
    sqlite3_bind_text(st, 1, root, -1, SQLITE_TRANSIENT);
    return store_collect(s, st, session_fields, session_fields_len, sizeof **out, (void **)out,
                         "listing deferred sessions", e);
}

int store_session_latest_unrestored(store *s, struct session_row *out, sl_err *e)
{
    return newest_unrestored(s, "", out, e);
}

#define SNAP(field, type, col) REC_FIELD(struct snapshot_row, field, type, NULL, col)
static const struct rec_field snapshot_fields[] = {
    SNAP(knob, REC_TEXT, "knob"), SNAP(path, REC_TEXT, "path"), SNAP(value, REC_TEXT, "value"),
    SNAP(present, REC_INT, "present"), SNAP(order, REC_INT, "apply_order"), SNAP(sched, REC_TEXT, "sched"),
    SNAP(left, REC_TEXT, "left_value"), SNAP(has_left, REC_INT, "left_value IS NOT NULL"),
    SNAP(plan, REC_TEXT, "restore_plan"),
};
#undef SNAP

/* The rows of fields from the statement "SELECT <fields> tail" bound to one id. */
static int collect_for(store *s, const struct rec_field *f, size_t nf, const char *tail, int64_t id, size_t elem,
                       void **out, const char *what, sl_err *e)
{
    sqlite3_stmt *st = store_prepare_select(s, f, nf, tail, what, e);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, id);
    return store_collect(s, st, f, nf, elem, out, what, e);
}

int store_session_snapshots(store *s, int64_t session_id, struct snapshot_row **out, sl_err *e)
{
    return collect_for(s, snapshot_fields, sizeof snapshot_fields / sizeof snapshot_fields[0],
                       "FROM snapshots WHERE session_id = ? ORDER BY apply_order, rowid", session_id, sizeof **out,
                       (void **)out, "reading a snapshot", e);
}

int store_session_set_state(store *s, int64_t session_id, enum session_state state, const char *note, sl_err *e)
{
    const char *sql = "UPDATE sessions SET state = ?, note = COALESCE(?, note), "
                      "ended = CASE WHEN ? THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%SZ', 'now') END "
                      "WHERE id = ?";
    const char *what = "updating a session";
    sqlite3_stmt *st = store_prepare(s, sql, what, e);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_state_name(state), -1, SQLITE_STATIC);
    if (note) sqlite3_bind_text(st, 2, note, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 2);
    sqlite3_bind_int(st, 3, state == SESSION_OPEN);
    sqlite3_bind_int64(st, 4, session_id);
    return store_step_write(s, st, what, e);
}

static int store_session_log_change(store *s, int64_t session_id, const struct change_row *c, sl_err *e)
{
    const char *sql = "INSERT INTO session_changes (session_id, seq, knob, old_value, new_value, got_value, action, note) "
                      "VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM session_changes WHERE session_id = ?1), ?2, ?3, ?4, ?5, ?6, ?7)";
    const char *what = "logging a change";
    sqlite3_stmt *st = store_prepare(s, sql, what, e);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, session_id);
    sqlite3_bind_text(st, 2, c->knob, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, c->old_value, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, c->new_value, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, c->got_value, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, c->action ? c->action : "write", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, c->note ? c->note : "", -1, SQLITE_STATIC);
    return store_step_write(s, st, what, e);
}

int store_session_set_writing(store *s, int64_t session_id, sl_err *e)
{
    const char *what = "recording that the session writes";
    sqlite3_stmt *st = store_prepare(s, "UPDATE sessions SET writing = 1 WHERE id = ?", what, e);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, session_id);
    return store_step_write(s, st, what, e);
}

static int log_changes(store *s, int64_t session_id, const struct change_row *ch, int nch, sl_err *e)
{
    for (int i = 0; i < nch; i++)
        if (store_session_log_change(s, session_id, &ch[i], e) < 0) return -1;
    return 0;
}

int store_session_log_put_backs(store *s, int64_t session_id, const struct change_row *ch, int nch, sl_err *e)
{
    if (nch == 0) return 0;
    if (store_begin(s, e) < 0) return -1;
    if (log_changes(s, session_id, ch, nch, e) < 0 || store_commit(s, e) < 0) {
        store_rollback(s);
        return -1;
    }
    return 0;
}

static int record_left(store *s, int64_t session_id, const struct snapshot_row *now, int n, sl_err *e)
{
    sqlite3_stmt *st;
    const char *sql = "UPDATE snapshots SET left_value = ? WHERE session_id = ? AND knob = ?";
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "recording what the session left");
    for (int i = 0; i < n; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, now[i].left, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, session_id);
        sqlite3_bind_text(st, 3, now[i].knob, -1, SQLITE_STATIC);
        if (store_step(st) != SQLITE_DONE) {
            sqlite3_finalize(st);
            return store_fail(s, e, "recording what the session left");
        }
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(store_db(s), "UPDATE sessions SET writing = 0 WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "recording what the session left");
    sqlite3_bind_int64(st, 1, session_id);
    return store_step_write(s, st, "recording what the session left", e);
}

int store_session_record_writes(store *s, int64_t session_id, const struct change_row *ch, int nch,
                                const struct snapshot_row *now, int n, sl_err *e)
{
    if (store_begin(s, e) < 0) return -1;
    if (log_changes(s, session_id, ch, nch, e) < 0 || record_left(s, session_id, now, n, e) < 0 || store_commit(s, e) < 0)
        return abandon(s, NULL, e);
    return 0;
}

/* Marks the snapshots of knobs[0..n) with restore_plan plan; -1 on an
 * SQLite failure, which the caller reports (store_fail). */
static int mark_restore_plan(store *s, int64_t session_id, const char *plan, const char *const *knobs, int n)
{
    sqlite3_stmt *st;
    const char *sql = "UPDATE snapshots SET restore_plan = ? WHERE session_id = ? AND knob = ?";
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    for (int i = 0; i < n; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, plan, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, session_id);
        sqlite3_bind_text(st, 3, knobs[i], -1, SQLITE_STATIC);
        if (store_step(st) != SQLITE_DONE) { sqlite3_finalize(st); return -1; }
    }
    sqlite3_finalize(st);
    return 0;
}

int store_session_begin_restore(store *s, int64_t session_id, const struct session_holder *h,
                                const char *const *put, int nput, sl_err *e)
{
    const char *what = "recording the restore before writing";
    sqlite3_stmt *st = begin_with(s, "UPDATE sessions SET restoring = 1, pid = ?, holder_start = ?, holder_ns = ? "
                                  "WHERE id = ?", what, e);
    if (!st) return -1;
    sqlite3_bind_int(st, 1, h->pid);
    sqlite3_bind_double(st, 2, h->start);
    sqlite3_bind_text(st, 3, h->ns, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, session_id);
    if (store_step_write(s, st, what, e) < 0) return abandon(s, NULL, e);
    if (mark_restore_plan(s, session_id, "put", put, nput) < 0) return abandon(s, what, e);
    if (store_commit(s, e) < 0) return abandon(s, NULL, e);
    return 0;
}

int store_session_finish_restore(store *s, int64_t session_id, enum session_state state, const char *note,
                                 const char *const *deferred, int ndeferred, sl_err *e)
{
    const char *what = "recording the restore";
    sqlite3_stmt *st = begin_with(s, "UPDATE snapshots SET restore_plan = '' WHERE session_id = ?", what, e);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, session_id);
    if (store_step_write(s, st, what, e) < 0) return abandon(s, NULL, e);
    if (mark_restore_plan(s, session_id, "later", deferred, ndeferred) < 0) return abandon(s, what, e);
    st = prepare_in(s, "UPDATE sessions SET restoring = 0, writing = 0 WHERE id = ?", what, e);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, session_id);
    if (store_step_write(s, st, what, e) < 0) return abandon(s, NULL, e);
    if (store_session_set_state(s, session_id, state, note, e) < 0 || store_commit(s, e) < 0)
        return abandon(s, NULL, e);
    return 0;
}

#define CLAIM(field, type, col) REC_FIELD(struct session_claim, field, type, NULL, col)
static const struct rec_field claim_fields[] = {
    CLAIM(session_id, REC_I64, "s.id"), CLAIM(uuid, REC_TEXT, "s.uuid"), CLAIM(writing, REC_INT, "s.writing"),
    CLAIM(knob, REC_TEXT, "p.knob"), CLAIM(orig, REC_TEXT, "p.value"), CLAIM(left, REC_TEXT, "p.left_value"),
    CLAIM(has_left, REC_INT, "p.left_value IS NOT NULL"),
};
#undef CLAIM

int store_session_later_claims(store *s, int64_t session_id, const char *root, struct session_claim **out, sl_err *e)
{
    const size_t nf = sizeof claim_fields / sizeof claim_fields[0];
    sqlite3_stmt *st = store_prepare_select(
        s, claim_fields, nf,
        "FROM sessions s JOIN snapshots p ON p.session_id = s.id "
        "WHERE s.id > ? AND s.root = ? AND s.state <> ? AND p.present = 1 ORDER BY s.id DESC, p.knob",
        "reading later sessions", e);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, session_id);
    sqlite3_bind_text(st, 2, root, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, session_state_name(SESSION_RESTORED), -1, SQLITE_STATIC);
    return store_collect(s, st, claim_fields, nf, sizeof **out, (void **)out, "reading later sessions", e);
}

int store_session_set_profile(store *s, int64_t session_id, const char *profile, sl_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "UPDATE sessions SET profile = ? WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return store_fail(s, e, "naming the session's profile");
    sqlite3_bind_text(st, 1, profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, session_id);
    return store_step_write(s, st, "naming the session's profile", e);
}

int store_session_active_profile(store *s, struct session_row *out, sl_err *e)
{
    return newest_unrestored(s, "AND s.profile <> ''", out, e);
}

int store_session_inherit(store *s, int64_t new_id, int64_t old_id, const char *const *knobs, int n, sl_err *e)
{
    const char *what = "handing the previous profile's knobs to the new session";
    sqlite3_stmt *st = begin_with(s, "UPDATE snapshots SET (value, present) = (SELECT o.value, o.present FROM snapshots o "
                                  "WHERE o.session_id = ?1 AND o.knob = ?3) WHERE session_id = ?2 AND knob = ?3 "
                                  "AND EXISTS (SELECT 1 FROM snapshots o WHERE o.session_id = ?1 AND o.knob = ?3 "
                                  "AND o.left_value IS NOT NULL AND o.left_value <> o.value)", what, e);
    if (!st) return -1;
    for (int i = 0; i < n; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, old_id);
        sqlite3_bind_int64(st, 2, new_id);
        sqlite3_bind_text(st, 3, knobs[i], -1, SQLITE_STATIC);
        if (store_step(st) != SQLITE_DONE) { sqlite3_finalize(st); return abandon(s, what, e); }
    }
    sqlite3_finalize(st);
    if (store_session_set_state(s, old_id, SESSION_RESTORED, "superseded by a profile switch", e) < 0 || store_commit(s, e) < 0)
        return abandon(s, NULL, e);
    return 0;
}

#define CHANGE(field, type, col) REC_FIELD(struct change_log_row, field, type, NULL, col)
static const struct rec_field change_fields[] = {
    CHANGE(seq, REC_INT, "seq"), CHANGE(action, REC_TEXT, "action"), CHANGE(knob, REC_TEXT, "knob"), CHANGE(old_value, REC_TEXT, "old_value"),
    CHANGE(new_value, REC_TEXT, "new_value"), CHANGE(got_value, REC_TEXT, "got_value"), CHANGE(note, REC_TEXT, "note"), CHANGE(at, REC_TEXT, "at"),
};
#undef CHANGE

int store_session_changes(store *s, int64_t session_id, struct change_log_row **out, sl_err *e)
{
    return collect_for(s, change_fields, sizeof change_fields / sizeof change_fields[0],
                       "FROM session_changes WHERE session_id = ? ORDER BY seq", session_id, sizeof **out,
                       (void **)out, "reading a change log", e);
}
