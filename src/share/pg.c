/* share/pg — postgresql://: PostgreSQL as the central store of a fleet
 * (libpq). The server keeps rows, not files: every run once, keyed by its
 * UUID and numbered by a server sequence in commit order, and the rows it
 * hangs off (hosts, devices, configs, workloads) once each. All of sluice's
 * PostgreSQL SQL is in this file. Every value goes as a parameter
 * (PQexecParams); the only SQL text is the constants below.
 * Connection, TLS and authentication are libpq's own: the URL's parameters
 * (sslmode, sslrootcert, sslcert, sslkey, ...), PGPASSWORD, PGPASSFILE
 * (~/.pgpass), PGSSLMODE and the rest of the PG* environment. Unless the
 * URL or PGSSLMODE says otherwise, the server's certificate is verified
 * (sslmode=verify-full; require with --insecure), as for https. */
#include "share/share.h"
#include "core/fault.h"

#include <libpq-fe.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Host identity, bound by the server. The first push of a host UUID
 * records a digest of that host's key (share_host_key: made from the
 * machine-id, which never leaves the machine) in sluice_hosts; from then on
 * the server inserts, deletes or re-dates runs under that UUID (and its
 * host and device rows, sluice_pruned and sluice_hosts rows) only for a
 * session that gave the same key (sluice.host_key, set by claim). A role per host would bind
 * nothing where a fleet shares one role, as most do; the key binds
 * whatever the roles, and triggers hold it for raw SQL too (only the
 * tables' owner can disable them). A UUID seen before this schema belongs
 * to whoever pushes it first under it. The same trigger refuses a run whose
 * start is not a UTC time or lies more than a day past the server's clock:
 * prune orders and ages runs by it. */
#define PG_KEY_OK(uuid)                                                                                           \
    "EXISTS (SELECT 1 FROM sluice_hosts h WHERE h.host_uuid = " uuid " AND h.key_sha256 = encode(sha256("      \
    "convert_to(coalesce(current_setting('sluice.host_key', true), ''), 'UTF8')), 'hex'))"
#define PG_NOT_YOURS(uuid)                                                                                        \
    "RAISE EXCEPTION 'host % belongs to another machine on this server: its runs are written and pruned by "      \
    "that machine only', " uuid " USING ERRCODE = 'insufficient_privilege';"
#define PG_GUARD                                                                                                  \
    "CREATE TABLE IF NOT EXISTS sluice_hosts (host_uuid text PRIMARY KEY, key_sha256 text NOT NULL,"             \
    " first_role name NOT NULL DEFAULT session_user, first_pushed timestamptz NOT NULL DEFAULT now());"          \
    "CREATE OR REPLACE FUNCTION sluice_run_guard() RETURNS trigger LANGUAGE plpgsql AS $$ "                     \
    "DECLARE t timestamptz; BEGIN "                                                                              \
    "IF TG_OP = 'DELETE' THEN IF NOT " PG_KEY_OK("OLD.host_uuid") " THEN " PG_NOT_YOURS("OLD.host_uuid")       \
    " END IF; RETURN OLD; END IF; "                                                                              \
    "IF NOT " PG_KEY_OK("NEW.host_uuid") " THEN " PG_NOT_YOURS("NEW.host_uuid") " END IF; "                    \
    "IF TG_OP = 'UPDATE' AND NOT " PG_KEY_OK("OLD.host_uuid") " THEN " PG_NOT_YOURS("OLD.host_uuid")           \
    " END IF; "                                                                                                  \
    "BEGIN t := NEW.started::timestamptz; EXCEPTION WHEN others THEN t := NULL; END; "                           \
    "IF t IS NULL OR NEW.started !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' "                \
    "OR t > now() + interval '1 day' THEN RAISE EXCEPTION 'run % starts at ''%'': not a UTC time "             \
    "(YYYY-MM-DDTHH:MM:SSZ) up to a day past the server''s clock', NEW.uuid, NEW.started "                     \
    "USING ERRCODE = 'invalid_datetime_format'; END IF; RETURN NEW; END $$;"                                     \
    "CREATE OR REPLACE FUNCTION sluice_host_guard() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "             \
    "IF TG_OP <> 'INSERT' AND NOT " PG_KEY_OK("OLD.host_uuid") " THEN " PG_NOT_YOURS("OLD.host_uuid")          \
    " END IF; "                                                                                                  \
    "IF TG_OP <> 'DELETE' AND TG_TABLE_NAME <> 'sluice_hosts' AND NOT " PG_KEY_OK("NEW.host_uuid") " THEN "     \
    PG_NOT_YOURS("NEW.host_uuid") " END IF; "                                                                    \
    "RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END; END $$;"                                           \
    "CREATE OR REPLACE FUNCTION sluice_parent_guard() RETURNS trigger LANGUAGE plpgsql AS $$ "                  \
    "DECLARE r record; who text; BEGIN "                                                                           \
    "FOREACH r IN ARRAY CASE TG_OP WHEN 'INSERT' THEN ARRAY[NEW] WHEN 'DELETE' THEN ARRAY[OLD] "                 \
    "ELSE ARRAY[OLD, NEW] END LOOP "                                                                             \
    "who := CASE r.tbl WHEN 'hosts' THEN r.ident WHEN 'devices' THEN r.body->>'host_id' END; "                   \
    "IF who IS NOT NULL AND NOT " PG_KEY_OK("who") " THEN " PG_NOT_YOURS("who") " END IF; END LOOP; "           \
    "RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END; END $$;"                                           \
    "DROP TRIGGER IF EXISTS sluice_parent_guard ON sluice_parents;"                                              \
    "CREATE TRIGGER sluice_parent_guard BEFORE INSERT OR UPDATE OR DELETE ON sluice_parents"                     \
    " FOR EACH ROW EXECUTE FUNCTION sluice_parent_guard();"                                                      \
    "DROP TRIGGER IF EXISTS sluice_run_guard ON sluice_runs;"                                                    \
    "CREATE TRIGGER sluice_run_guard BEFORE INSERT OR DELETE OR UPDATE OF host_uuid, started ON sluice_runs"     \
    " FOR EACH ROW EXECUTE FUNCTION sluice_run_guard();"                                                         \
    "DROP TRIGGER IF EXISTS sluice_pruned_guard ON sluice_pruned;"                                               \
    "CREATE TRIGGER sluice_pruned_guard BEFORE INSERT OR UPDATE OR DELETE ON sluice_pruned"                      \
    " FOR EACH ROW EXECUTE FUNCTION sluice_host_guard();"                                                        \
    "DROP TRIGGER IF EXISTS sluice_hosts_guard ON sluice_hosts;"                                                 \
    "CREATE TRIGGER sluice_hosts_guard BEFORE UPDATE OR DELETE ON sluice_hosts"                                  \
    " FOR EACH ROW EXECUTE FUNCTION sluice_host_guard();"

/* The server's sluice schema. A step's SQL takes a server from the version
 * before it to its own; every statement is idempotent (IF NOT EXISTS), so
 * a step interrupted before its version was recorded can run again. */
#define PG_SCHEMA_VERSION 3
static const struct pg_step {
    int version;
    const char *sql;
} pg_steps[] = {
    { 1,
      "CREATE TABLE IF NOT EXISTS sluice_parents ("
      " tbl text NOT NULL, ident text NOT NULL, body jsonb NOT NULL, PRIMARY KEY (tbl, ident));"
      "CREATE INDEX IF NOT EXISTS sluice_parents_ident ON sluice_parents (ident);"
      "CREATE SEQUENCE IF NOT EXISTS sluice_runs_seq;"
      "CREATE TABLE IF NOT EXISTS sluice_runs ("
      " seq bigint PRIMARY KEY DEFAULT nextval('sluice_runs_seq'),"
      " uuid text NOT NULL UNIQUE, host_uuid text NOT NULL, hw_class text NOT NULL, started text NOT NULL,"
      " body jsonb NOT NULL, pushed timestamptz NOT NULL DEFAULT now());"
      "CREATE INDEX IF NOT EXISTS sluice_runs_class_seq ON sluice_runs (hw_class, seq);"
      "CREATE INDEX IF NOT EXISTS sluice_runs_host ON sluice_runs (host_uuid, uuid COLLATE \"C\");" },
    /* 2: runs removed by prune are remembered, so that the host that made
     * them (still holding them) does not send them again. */
    { 2,
      "CREATE TABLE IF NOT EXISTS sluice_pruned ("
      " uuid text PRIMARY KEY, host_uuid text NOT NULL, pruned timestamptz NOT NULL DEFAULT now());"
      "CREATE INDEX IF NOT EXISTS sluice_pruned_host ON sluice_pruned (host_uuid);" },
    /* 3: a host's runs are written and removed by that host only, and
     * their start must be a time (PG_GUARD). */
    { 3, PG_GUARD },
};
#define PG_SCHEMA_TABLE                                                                                           \
    "CREATE TABLE IF NOT EXISTS sluice_schema (one boolean PRIMARY KEY DEFAULT true CHECK (one),"              \
    " version integer NOT NULL, server_uuid text NOT NULL DEFAULT gen_random_uuid()::text,"                    \
    " created timestamptz NOT NULL DEFAULT now())"
/* Serialises schema creation between first pushes (any constant will do). */
#define PG_SCHEMA_LOCK "SELECT pg_advisory_xact_lock(727165427)"

static PGconn *conn(struct share_remote *r) { return r->priv; }

/* s as one line, without its trailing newline. */
static const char *one_line(const char *s, char *buf, size_t n)
{
    snprintf(buf, n, "%s", s);
    for (char *p = buf; *p; p++)
        if (*p == '\n') *p = p[1] ? ' ' : 0;
    return buf;
}

/* libpq's message, one line. */
static const char *pq_msg(PGconn *c, char *buf, size_t n)
{
    return one_line(c ? PQerrorMessage(c) : "the connection was closed after an earlier failure", buf, n);
}

static int pg_fail(struct share_remote *r, const char *what, sl_err *e)
{
    char m[900];
    return sl_fail(e, SL_EFAIL, "%s: %s: %s", r->shown, what, pq_msg(conn(r), m, sizeof m));
}

/* A connection that stopped answering is closed, not reused: whatever the
 * server sends late would answer the wrong statement. PQfinish does not
 * wait (the socket is non-blocking). */
static void drop(struct share_remote *r)
{
    PQfinish(conn(r));
    r->priv = NULL;
}

static int timed_out(struct share_remote *r, const char *what, sl_err *e)
{
    drop(r);
    char head[2200];
    if (what) snprintf(head, sizeof head, "%s: %s", r->shown, what);
    else snprintf(head, sizeof head, "cannot connect to %s", r->shown);
    return sl_fail(e, SL_EFAIL, "%s: no answer within --timeout (%ld s): the server or the network to it stopped "
                   "answering; check that it is up and reachable, or give a longer --timeout", head, r->opts.timeout_s);
}

/* Wait until the socket is ready for events, or the command's deadline
 * (--timeout) passes: a peer gone silent (a dead link, a stopped server)
 * sends nothing that would end a blocking read, and the server's
 * statement_timeout cannot reach us through it either. Waits in slices so
 * that a cancel is seen. 0, or -1 with e (what: the step, NULL while
 * connecting); the connection is then closed. */
static int wait_socket(struct share_remote *r, short events, const char *what, sl_err *e)
{
    for (;;) {
        if (share_cancelled(r)) {
            drop(r);
            return share_fail_cancelled(e, what ? what : "connecting");
        }
        long long left = share_time_left_ms(r);
        if (left <= 0) return timed_out(r, what, e);
        struct pollfd p = { .fd = PQsocket(conn(r)), .events = events };
        if (p.fd < 0) return pg_fail(r, what ? what : "connecting", e);
        int n = poll(&p, 1, (int)(left < 250 ? left : 250));
        if (n > 0) return 0;
        if (n < 0 && errno != EINTR) {
            int err = errno;
            drop(r);
            return sl_fail_errno(e, SL_EFAIL, err, "%s: waiting for the server", r->shown);
        }
    }
}

/* Everything queued sent (non-blocking mode: libpq leaves the rest to us). */
static int flush_all(struct share_remote *r, const char *what, sl_err *e)
{
    for (;;) {
        int f = PQflush(conn(r));
        if (f == 0) return 0;
        if (f < 0) return pg_fail(r, what, e);
        if (wait_socket(r, POLLIN | POLLOUT, what, e) < 0) return -1;
        if (!PQconsumeInput(conn(r))) return pg_fail(r, what, e);
    }
}

static int await_result(struct share_remote *r, const char *what, sl_err *e)
{
    while (PQisBusy(conn(r))) {
        if (wait_socket(r, POLLIN, what, e) < 0) return -1;
        if (!PQconsumeInput(conn(r))) return pg_fail(r, what, e);
    }
    return 0;
}

/* Send sql (params NULL: constant SQL, maybe several statements; else
 * PQexecParams' text parameters, NULL an SQL NULL) and take every result,
 * each wait bounded by the deadline. The last result, or NULL with e. */
static PGresult *pq(struct share_remote *r, const char *what, const char *sql, int n, const char *const *params,
                    sl_err *e)
{
    if (!conn(r)) {
        pg_fail(r, what, e);
        return NULL;
    }
    int sent = params ? PQsendQueryParams(conn(r), sql, n, NULL, params, NULL, NULL, 0) : PQsendQuery(conn(r), sql);
    if (!sent || flush_all(r, what, e) < 0) {
        if (!sent) pg_fail(r, what, e);
        return NULL;
    }
    PGresult *last = NULL;
    char msg[900] = "";
    for (;;) {
        if (await_result(r, what, e) < 0) {
            PQclear(last);
            return NULL;
        }
        PGresult *res = PQgetResult(conn(r));
        if (!res) break;
        ExecStatusType st = PQresultStatus(res);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && !msg[0])
            one_line(PQresultErrorMessage(res), msg, sizeof msg);
        PQclear(last);
        last = res;
    }
    if (!msg[0] && last) return last;
    PQclear(last);
    if (!msg[0]) pq_msg(conn(r), msg, sizeof msg);
    sl_fail(e, SL_EFAIL, "%s: %s: %s", r->shown, what, msg);
    return NULL;
}

/* Constant SQL without parameters (a schema step may be several
 * statements): 0, or -1 with e. */
static int pq_do(struct share_remote *r, const char *what, const char *sql, sl_err *e)
{
    PGresult *res = pq(r, what, sql, 0, NULL, e);
    PQclear(res);
    return res ? 0 : -1;
}

static void rollback(struct share_remote *r)
{
    sl_err ignore;
    if (conn(r) && PQstatus(conn(r)) == CONNECTION_OK && PQtransactionStatus(conn(r)) != PQTRANS_IDLE)
        pq_do(r, "rolling back", "ROLLBACK", &ignore);
}

static void quiet(void *arg, const char *msg) { (void)arg, (void)msg; }

/* PQconnectPoll's steps, each wait bounded by the deadline (libpq's own
 * connect_timeout is whole seconds, at least 2, and per address). */
static int connect_poll(struct share_remote *r, sl_err *e)
{
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (st != PGRES_POLLING_OK) {
        if (st == PGRES_POLLING_FAILED || PQstatus(conn(r)) == CONNECTION_BAD) {
            char m[900];
            sl_fail(e, SL_EFAIL, "cannot connect to %s: %s", r->shown, pq_msg(conn(r), m, sizeof m));
            drop(r);
            return -1;
        }
        if (wait_socket(r, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, NULL, e) < 0) return -1;
        st = PQconnectPoll(conn(r));
    }
    return 0;
}

static int connect_server(struct share_remote *r, sl_err *e)
{
    if (conn(r)) return 0;
    long long left = share_time_left_ms(r);
    char secs[32], user_ms[32];
    snprintf(secs, sizeof secs, "%lld", left > 2000 ? (left + 999) / 1000 : 2);
    /* Sent data unacknowledged this long ends the connection in the kernel
     * too (Linux TCP_USER_TIMEOUT). */
    snprintf(user_ms, sizeof user_ms, "%lld", left > 1000 ? left : 1000);
    /* Ours first: the URL's own parameters, expanded from dbname, win. */
    const char *keys[6] = { "application_name", "connect_timeout", "tcp_user_timeout", NULL, NULL, NULL };
    const char *vals[6] = { "sluice", secs, user_ms, NULL, NULL, NULL };
    int k = 3;
    if (!getenv("PGSSLMODE")) {
        keys[k] = "sslmode";
        vals[k++] = r->opts.insecure ? "require" : "verify-full";
    }
    keys[k] = "dbname";
    vals[k] = r->url;
    r->priv = PQconnectStartParams(keys, vals, 1);
    if (!conn(r)) sl_die("connecting to %s", r->shown);
    if (connect_poll(r, e) < 0) return -1;
    PQsetNoticeProcessor(conn(r), quiet, NULL);
    if (PQsetnonblocking(conn(r), 1) != 0) return pg_fail(r, "connecting", e);
    /* The server ends a statement, or a transaction left idle by a client
     * that vanished (holding the push lock), just before the command's
     * deadline: a server that still answers says why itself (a lock held
     * elsewhere), and wait_socket's deadline is left for a silent one. */
    char ms[32];
    left = share_time_left_ms(r) - 300;
    snprintf(ms, sizeof ms, "%lld", left > 700 ? left : 700);
    const char *p[] = { ms };
    PGresult *res = pq(r, "setting the statement timeout", "SELECT set_config('statement_timeout', $1, false), "
                       "set_config('idle_in_transaction_session_timeout', $1, false)", 1, p, e);
    PQclear(res);
    return res ? 0 : -1;
}

static void pg_close(struct share_remote *r)
{
    PQfinish(conn(r));
    r->priv = NULL;
}

/* The server's schema version (-1: no sluice schema at all) and identity. */
static int schema_read(struct share_remote *r, int *version, char id[64], sl_err *e)
{
    PGresult *res = pq(r, "reading the sluice schema", "SELECT to_regclass('sluice_schema') IS NOT NULL", 0, NULL, e);
    if (!res) return -1;
    bool have = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
    PQclear(res);
    *version = have ? 0 : -1;
    id[0] = 0;
    if (!have) return 0;
    res = pq(r, "reading the sluice schema", "SELECT version, server_uuid FROM sluice_schema", 0, NULL, e);
    if (!res) return -1;
    if (PQntuples(res) == 1) {
        *version = atoi(PQgetvalue(res, 0, 0));
        snprintf(id, 64, "%s", PQgetvalue(res, 0, 1));
    }
    PQclear(res);
    return 0;
}

/* Create the schema, or take an older one to ours (migrate), in one
 * transaction under the schema lock: two first pushes at once create it
 * once. */
static int schema_build(struct share_remote *r, int *version, char id[64], sl_err *e)
{
    int rc = pq_do(r, "creating the sluice schema", "BEGIN", e);
    if (rc == 0) rc = pq_do(r, "creating the sluice schema", PG_SCHEMA_LOCK, e);
    if (rc == 0) rc = schema_read(r, version, id, e);
    int from = *version;
    for (size_t i = 0; rc == 0 && i < sizeof pg_steps / sizeof pg_steps[0]; i++)
        if (pg_steps[i].version > from) rc = pq_do(r, "creating the sluice schema", pg_steps[i].sql, e);
    if (rc == 0 && from < PG_SCHEMA_VERSION) rc = pq_do(r, "creating the sluice schema", PG_SCHEMA_TABLE, e);
    if (rc == 0 && from < PG_SCHEMA_VERSION) {
        char v[16];
        snprintf(v, sizeof v, "%d", PG_SCHEMA_VERSION);
        const char *p[] = { v };
        PGresult *res = pq(r, "recording the sluice schema version",
                           "INSERT INTO sluice_schema (version) VALUES ($1::integer) "
                           "ON CONFLICT (one) DO UPDATE SET version = excluded.version", 1, p, e);
        PQclear(res);
        if (!res) rc = -1;
    }
    if (rc == 0) rc = pq_do(r, "creating the sluice schema", "COMMIT", e);
    if (rc < 0) {
        rollback(r);
        return -1;
    }
    return schema_read(r, version, id, e);
}

static int pg_open(struct share_remote *r, int mode, bool *have_schema, char id[64], sl_err *e)
{
    if (connect_server(r, e) < 0) return -1;
    int v;
    if (schema_read(r, &v, id, e) < 0) return -1;
    if (v > PG_SCHEMA_VERSION)
        return sl_fail(e, SL_EFAIL, "%s has sluice schema version %d, newer than this sluice's (%d): use a newer "
                       "sluice; nothing sent or merged", r->shown, v, PG_SCHEMA_VERSION);
    if (v >= 0 && v < PG_SCHEMA_VERSION && !(mode & SHARE_ROWS_MIGRATE))
        return sl_fail(e, SL_EFAIL, "%s has sluice schema version %d, older than this sluice's (%d): 'sluice push "
                       "--migrate %s' upgrades it (sluices older than this one then refuse it); nothing sent or "
                       "merged", r->shown, v, PG_SCHEMA_VERSION, r->shown);
    if ((v < 0 && (mode & SHARE_ROWS_CREATE)) || (v >= 0 && v < PG_SCHEMA_VERSION))
        if (schema_build(r, &v, id, e) < 0) return -1;
    *have_schema = v == PG_SCHEMA_VERSION;
    return 0;
}

static int pg_digest(struct share_remote *r, const char *host, long long *runs, char sha256[65], sl_err *e)
{
    const char *p[] = { host };
    PGresult *res = pq(r, "reading the runs it holds",
                       "SELECT count(*), encode(sha256(convert_to(coalesce(string_agg(uuid || E'\\n', '' "
                       "ORDER BY uuid COLLATE \"C\"), ''), 'UTF8')), 'hex') FROM (SELECT uuid FROM sluice_runs "
                       "WHERE host_uuid = $1 UNION ALL SELECT uuid FROM sluice_pruned WHERE host_uuid = $1) u",
                       1, p, e);
    if (!res) return -1;
    *runs = atoll(PQgetvalue(res, 0, 0));
    snprintf(sha256, 65, "%s", PQgetvalue(res, 0, 1));
    PQclear(res);
    return 0;
}

static int pg_known(struct share_remote *r, const char *host, json_t **set, sl_err *e)
{
    const char *p[] = { host };
    PGresult *res = pq(r, "reading the runs it holds",
                       "SELECT uuid, false FROM sluice_runs WHERE host_uuid = $1 "
                       "UNION ALL SELECT uuid, true FROM sluice_pruned WHERE host_uuid = $1", 1, p, e);
    if (!res) return -1;
    *set = json_object();
    for (int i = 0; i < PQntuples(res); i++)
        json_object_set_new(*set, PQgetvalue(res, i, 0), strcmp(PQgetvalue(res, i, 1), "t") == 0 ? json_false() : json_true());
    PQclear(res);
    return 0;
}

/* SLUICE_FAULT=pg_batch:N: the server ends this connection in the middle of
 * the Nth batch (a send before its COMMIT, a fetch before its query), as a
 * restart or a network cut would. */
static void fault_disconnect(struct share_remote *r)
{
    sl_err ignore;
    if (fault_hit(FAULT_PG_BATCH)) pq_do(r, "ending the connection", "SELECT pg_terminate_backend(pg_backend_pid())", &ignore);
}

static int pg_send(struct share_remote *r, json_t *parents, json_t *runs, const char *default_class, long long *added,
                   sl_err *e)
{
    char *pj = json_dumps(parents, JSON_COMPACT), *rj = json_dumps(runs, JSON_COMPACT);
    if (!pj || !rj) sl_die("encoding rows for %s", r->shown);
    const char *pp[] = { pj }, *rp[] = { rj, default_class };
    /* EXCLUSIVE (readers go on, other writers wait): runs are numbered and
     * committed in the same order, so a pull that saw run N has seen every
     * run before N. */
    int rc = pq_do(r, "sending runs", "BEGIN", e);
    if (rc == 0) rc = pq_do(r, "sending runs", "LOCK TABLE sluice_runs IN EXCLUSIVE MODE", e);
    PGresult *res = NULL;
    if (rc == 0) {
        res = pq(r, "sending runs",
                 "INSERT INTO sluice_parents (tbl, ident, body) SELECT x->>'table', x->>'ident', x->'row' "
                 "FROM jsonb_array_elements($1::jsonb) x ON CONFLICT DO NOTHING", 1, pp, e);
        rc = res ? 0 : -1;
        PQclear(res);
    }
    if (rc == 0) {
        res = pq(r, "sending runs",
                 "INSERT INTO sluice_runs (uuid, host_uuid, hw_class, started, body) "
                 "SELECT x->>'uuid', x->>'host_uuid', coalesce(nullif(x->>'hw_class', ''), nullif(x->>'_class', ''), $2), "
                 "coalesce(x->>'started', ''), x - '_class' "
                 "FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY a(x, n) ORDER BY n "
                 "ON CONFLICT (uuid) DO NOTHING", 2, rp, e);
        rc = res ? 0 : -1;
        if (res) *added = atoll(PQcmdTuples(res));
        PQclear(res);
    }
    if (rc == 0) fault_disconnect(r);
    if (rc == 0) rc = pq_do(r, "committing a batch of runs", "COMMIT", e);
    if (rc < 0) rollback(r);
    free(pj);
    free(rj);
    return rc;
}

/* Rows of text JSON in column col into a new array, each wrapped by wrap
 * (NULL: as they are). */
static int rows_json(struct share_remote *r, PGresult *res, int col, json_t **out, sl_err *e)
{
    *out = json_array();
    for (int i = 0; i < PQntuples(res); i++) {
        json_error_t je;
        json_t *v = json_loads(PQgetvalue(res, i, col), 0, &je);
        if (!json_is_object(v)) {
            json_decref(v);
            json_decref(*out);
            *out = NULL;
            return sl_fail(e, SL_EFAIL, "%s sent a row that is not a JSON object: nothing merged", r->shown);
        }
        json_array_append_new(*out, v);
    }
    return 0;
}

static int pg_fetch(struct share_remote *r, const char *cls, const char *skip_host, const char *workload,
                    long long after, int limit, json_t **runs, long long *last, sl_err *e)
{
    char a[32], l[16];
    snprintf(a, sizeof a, "%lld", after);
    snprintf(l, sizeof l, "%d", limit);
    const char *p[] = { a, cls, skip_host, l, workload };
    fault_disconnect(r);
    PGresult *res = pq(r, "fetching runs",
                       "SELECT seq, body::text FROM sluice_runs WHERE seq > $1::bigint "
                       "AND ($2::text IS NULL OR hw_class = $2) AND ($3::text IS NULL OR host_uuid <> $3) "
                       "AND ($5::text IS NULL OR body->>'workload' = $5) ORDER BY seq LIMIT $4::integer", 5, p, e);
    if (!res) return -1;
    int n = PQntuples(res);
    *last = n ? atoll(PQgetvalue(res, n - 1, 0)) : after;
    int rc = rows_json(r, res, 1, runs, e);
    PQclear(res);
    return rc;
}

static int pg_parents(struct share_remote *r, json_t *idents, json_t **rows, sl_err *e)
{
    char *ij = json_dumps(idents, JSON_COMPACT);
    if (!ij) sl_die("encoding identities for %s", r->shown);
    const char *p[] = { ij };
    PGresult *res = pq(r, "fetching hosts, devices, configs and workloads",
                       "SELECT json_build_object('table', tbl, 'ident', ident, 'row', body)::text FROM sluice_parents "
                       "WHERE ident IN (SELECT jsonb_array_elements_text($1::jsonb))", 1, p, e);
    free(ij);
    if (!res) return -1;
    int rc = rows_json(r, res, 0, rows, e);
    PQclear(res);
    return rc;
}

static int pg_claim(struct share_remote *r, const char *host, const char *key, sl_err *e)
{
    const char *p[] = { host, key };
    PGresult *res = pq(r, "binding this host to its key",
                       "WITH c AS (INSERT INTO sluice_hosts (host_uuid, key_sha256) VALUES ($1, encode(sha256("
                       "convert_to($2, 'UTF8')), 'hex')) ON CONFLICT DO NOTHING) "
                       "SELECT set_config('sluice.host_key', $2, false)", 2, p, e);
    PQclear(res);
    if (!res) return -1;
    res = pq(r, "binding this host to its key", "SELECT " PG_KEY_OK("$1::text"), 1, p, e);
    if (!res) return -1;
    bool mine = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
    PQclear(res);
    if (mine) return 0;
    return sl_fail(e, SL_EFAIL, "%s: host %s belongs to another machine there (the first to push under it: a "
                   "copied database or a host taking this one's UUID); nothing sent or removed. Start this machine "
                   "on a new database (its runs then go under a new host UUID), or have the server's admin delete "
                   "that row of sluice_hosts", r->shown, host);
}

/* host's runs past the retention (pick chooses them), remembered in
 * sluice_pruned, in one transaction under the push lock (a push of the
 * same runs waits, then finds them pruned). */
static int pg_prune(struct share_remote *r, const char *host, share_pick_fn pick, void *arg, bool dry_run,
                    long long *pruned, sl_err *e)
{
    int rc = pq_do(r, "pruning", "BEGIN", e);
    if (rc == 0) rc = pq_do(r, "pruning", "LOCK TABLE sluice_runs IN EXCLUSIVE MODE", e);
    const char *p[2] = { host, NULL };
    PGresult *res = rc < 0 ? NULL : pq(r, "pruning", "SELECT coalesce(json_agg(json_build_object('seq', seq, 'uuid', "
                                       "uuid, 'started', started) ORDER BY seq), '[]')::text FROM sluice_runs "
                                       "WHERE host_uuid = $1", 1, p, e);
    json_t *runs = res ? json_loads(PQgetvalue(res, 0, 0), 0, NULL) : NULL;
    PQclear(res);
    if (rc == 0 && !json_is_array(runs)) rc = res ? sl_fail(e, SL_EFAIL, "%s: pruning: the list of runs did not "
                                                             "read as JSON", r->shown) : -1;
    json_t *victims = rc == 0 ? pick(runs, arg) : NULL;
    char *vj = victims ? json_dumps(victims, JSON_COMPACT) : NULL;
    *pruned = (long long)json_array_size(victims);
    p[1] = vj;
    if (rc == 0 && !dry_run && *pruned) {
        res = pq(r, "pruning", "WITH v AS (SELECT seq, uuid, host_uuid FROM sluice_runs WHERE host_uuid = $1 AND seq IN "
                 "(SELECT jsonb_array_elements_text($2::jsonb)::bigint)), t AS (INSERT INTO sluice_pruned (uuid, "
                 "host_uuid) SELECT uuid, host_uuid FROM v ON CONFLICT DO NOTHING) DELETE FROM sluice_runs WHERE seq "
                 "IN (SELECT seq FROM v)", 2, p, e);
        if (res) *pruned = atoll(PQcmdTuples(res));
        else rc = -1;
        PQclear(res);
    }
    if (rc == 0) rc = pq_do(r, "pruning", dry_run ? "ROLLBACK" : "COMMIT", e);
    if (rc < 0) rollback(r);
    free(vj);
    json_decref(victims);
    json_decref(runs);
    return rc;
}

static const struct share_row_ops pg_rows = {
    .open = pg_open, .digest = pg_digest, .known = pg_known, .send = pg_send, .fetch = pg_fetch,
    .parents = pg_parents, .claim = pg_claim, .prune = pg_prune,
};

static const char *const pg_schemes[] = { "postgresql", "postgres", NULL };
const struct share_transport share_pg_transport = {
    .name = "postgresql", .schemes = pg_schemes, .close = pg_close, .rows = &pg_rows,
};
