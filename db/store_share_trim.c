/* store_share_trim — retention inside one host's object on an object store
 * (prune --keep-runs / --older-than) and on the host's next push (what a
 * prune took out is not sent again). The runs taken out are always the
 * host's oldest in (started, uuid) order, so one mark, the newest run taken
 * out, names them all: every run of the host at or before it that was in
 * the object then. The mark's third field bounds that by the largest run id
 * of the host the object held (the host's own ids: the snapshot is a backup
 * of its database), so a run measured later, whose start time falls before
 * the mark because the host's clock went back, is not taken for pruned
 * (mark_id says when the id may move). */
#include "db/store_share.h"

#include <stdio.h>
#include <string.h>

static int trim_fail(sqlite3 *db, const char *label, const char *what, sl_err *e)
{
    return sl_fail(e, SL_EFAIL, "%s: %s: %s", label, what, sqlite3_errmsg(db));
}

static int exec(sqlite3 *db, const char *label, const char *sql, sl_err *e)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : trim_fail(db, label, sql, e);
}

/* The victims into temp table trim_victims. A start time that is not
 * YYYY-MM-DDTHH:MM:SSZ is never taken out by age (as on PostgreSQL). */
static int pick(sqlite3 *db, const char *label, const char *host, const struct share_trim *t, sl_err *e)
{
    static const char q[] =
        "CREATE TEMP TABLE trim_victims AS SELECT id, started, uuid FROM runs WHERE host_uuid = ?1 AND ("
        " (?2 IS NOT NULL AND started IS NOT NULL AND (started, uuid) <= (?2, ?3) AND (?6 IS NULL OR id <= ?6))"
        " OR (?4 IS NOT NULL AND started GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:"
        "[0-9][0-9]Z' AND started < ?4)"
        " OR (?5 > 0 AND id NOT IN (SELECT id FROM runs WHERE host_uuid = ?1 ORDER BY started DESC, uuid DESC "
        "LIMIT ?5)))";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) return trim_fail(db, label, "choosing runs", e);
    char started[64] = "", uuid[64] = "";
    long long last_id = 0;
    /* "STARTED UUID[ ID]": an older sluice's mark has no ID (no bound) */
    if (t->mark && *t->mark && sscanf(t->mark, "%63s %63s %lld", started, uuid, &last_id) >= 1) {
        sqlite3_bind_text(st, 2, started, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, uuid, -1, SQLITE_STATIC);
        if (last_id > 0) sqlite3_bind_int64(st, 6, last_id);
    }
    sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
    if (t->before && *t->before) sqlite3_bind_text(st, 4, t->before, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, t->keep_runs);
    int rc = store_step(st) == SQLITE_DONE ? 0 : trim_fail(db, label, "choosing runs", e);
    sqlite3_finalize(st);
    return rc;
}

/* The largest id of the host's runs here when every one of them at or
 * before run ("STARTED UUID") goes, else 0: a mark may then name its runs
 * by that id too. */
static long long mark_id(sqlite3 *db, const char *host, const char *run)
{
    char started[64] = "", uuid[64] = "";
    if (sscanf(run, "%63s %63s", started, uuid) < 1) return 0;
    sqlite3_stmt *st;
    static const char q[] =
        "SELECT CASE WHEN EXISTS (SELECT 1 FROM runs WHERE host_uuid = ?1 AND started IS NOT NULL AND "
        "(started, uuid) <= (?2, ?3) AND id NOT IN (SELECT id FROM trim_victims)) THEN 0 "
        "ELSE (SELECT coalesce(max(id), 0) FROM runs WHERE host_uuid = ?1) END";
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) return 0;
    sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, started, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, uuid, -1, SQLITE_STATIC);
    long long id = store_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return id;
}

/* How many were taken out and how many of the host's stay. The mark moves
 * to the newest taken out when that is past it ("STARTED UUID"), and names
 * the largest id of the host's runs here (" ID") when every run at or
 * before it goes: always so when it moved (what the age and the count take
 * is the oldest), not so when a run of a clock set back went while a later
 * one stays before the mark, which then keeps its id (that run may come
 * back with the host's next push: never one lost). */
static int count(sqlite3 *db, const char *label, const char *host, const struct share_trim *t,
                 struct share_trimmed *out, sl_err *e)
{
    sqlite3_stmt *st;
    static const char q[] =
        "SELECT (SELECT count(*) FROM trim_victims), (SELECT count(*) FROM runs WHERE host_uuid = ?1) - "
        "(SELECT count(*) FROM trim_victims), (SELECT started || ' ' || uuid FROM trim_victims WHERE started IS NOT "
        "NULL ORDER BY started DESC, uuid DESC LIMIT 1)";
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) return trim_fail(db, label, "counting runs", e);
    sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
    int rc = store_step(st) == SQLITE_ROW ? 0 : trim_fail(db, label, "counting runs", e);
    snprintf(out->mark, sizeof out->mark, "%s", t->mark ? t->mark : "");
    if (rc == 0) {
        out->removed = sqlite3_column_int64(st, 0);
        out->kept = sqlite3_column_int64(st, 1);
        const char *newest = (const char *)sqlite3_column_text(st, 2);
        char was[128], run[128];
        store_share_mark_run(out->mark, was, sizeof was);
        snprintf(run, sizeof run, "%s", newest && strcmp(newest, was) > 0 ? newest : was);
        long long id = out->removed && run[0] ? mark_id(db, host, run) : 0;
        if (id > 0) snprintf(out->mark, sizeof out->mark, "%s %lld", run, id);
        else if (strcmp(run, was) != 0) snprintf(out->mark, sizeof out->mark, "%s", run);   /* moved: has an id */
    }
    sqlite3_finalize(st);
    return rc;
}

void store_share_mark_run(const char *mark, char *buf, size_t n)
{
    const char *sp = strchr(mark, ' ');
    sp = sp ? strchr(sp + 1, ' ') : NULL;
    snprintf(buf, n, "%.*s", sp ? (int)(sp - mark) : (int)strlen(mark), mark);
}

int store_share_trim(const char *path, const char *label, const char *host, const struct share_trim *t, bool dry_run,
                     struct share_trimmed *out, sl_err *e)
{
    memset(out, 0, sizeof *out);
    sqlite3 *db;
    /* What a server held is untrusted: no trigger or view of its runs. */
    if (store_share_open_untrusted(path, label, true, &db, e) < 0) return -1;
    int rc = exec(db, label, "PRAGMA journal_mode=DELETE; BEGIN", e);
    if (rc == 0) rc = pick(db, label, host, t, e);
    if (rc == 0) rc = count(db, label, host, t, out, e);
    if (rc == 0 && !dry_run && out->removed)
        rc = exec(db, label, "DELETE FROM runs WHERE id IN (SELECT id FROM trim_victims)", e);
    if (rc == 0) rc = exec(db, label, "DROP TABLE trim_victims", e);
    if (rc == 0) rc = exec(db, label, dry_run ? "ROLLBACK" : "COMMIT", e);
    else sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    /* VACUUM: what was taken out does not travel. */
    if (rc == 0 && !dry_run && out->removed) rc = exec(db, label, "VACUUM", e);
    if (sqlite3_close(db) != SQLITE_OK && rc == 0) rc = trim_fail(db, label, "closing", e);
    return rc;
}
