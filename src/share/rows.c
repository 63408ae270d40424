/* rows — push and pull through a central store of rows (share_row_ops,
 * PostgreSQL). Push sends the runs of its snapshot the server lacks: a
 * host whose run digest the server matches sends nothing, another sends
 * the runs whose UUIDs the server does not hold, with the rows they hang
 * off, in batches of one transaction each. Pull asks for the runs the
 * server numbered after the last pull, batch by batch; each batch becomes a
 * database file that is checked and merged like a downloaded one, and only
 * then does the cursor move: a batch is merged whole or not at all, and a
 * failed pull resumes where the last merged batch ended. */
#include "share/sync.h"
#include "core/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROWS_BATCH 500
#define RUN_TABLE "runs"
/* Identities (UUIDs, SHA-256 hex) are at most this long: longer strings in
 * a row are never a reference to a parent. */
#define IDENT_MAX 64
/* A run may start this far past this host's clock (it was measured here, or
 * merged): more is a clock or a row gone wrong, and is not sent. */
#define PUSH_SKEW_S 3600

static int batch_size(void)
{
    const char *env = getenv("SLUICE_PG_BATCH");   /* tests: several batches from a few runs */
    int n = env && *env ? atoi(env) : ROWS_BATCH;
    return n >= 1 && n <= 100000 ? n : ROWS_BATCH;
}

static void emit_note(share_event_fn fn, void *arg, const char *name, const char *msg)
{
    if (!fn) return;
    struct share_event ev = { .kind = SHARE_NOTE, .name = name, .msg = msg, .size_bytes = -1 };
    fn(&ev, arg);
}

/* --- push --------------------------------------------------------------------- */

struct push_state {
    struct share_remote *r;
    json_t *parents;          /* table -> ident -> row: the snapshot's */
    json_t *sent;             /* "table ident" -> true: parents in a batch of this push */
    json_t *hosts;            /* host UUID -> the set of its run UUIDs the server holds */
    json_t *matched;          /* host UUID -> how many of those this snapshot holds */
    json_t *batch_parents, *batch_runs;
    const char *default_class;
    bool by_host;             /* runs on no disk filed under their host's class */
    long long runs_sent, added, batches;
    int limit;
    long long refused;        /* runs not sent: their start is not a time */
    share_event_fn fn;
    void *arg;
};

/* The parents a row names (any short string member that is a parent's
 * identity), theirs before them, into the batch unless sent already. */
static void add_parents(struct push_state *p, json_t *row, int depth)
{
    const char *col;
    json_t *v;
    json_object_foreach(row, col, v) {
        if (!json_is_string(v) || json_string_length(v) > IDENT_MAX || depth > 4) continue;
        const char *ident = json_string_value(v), *table;
        json_t *rows;
        json_object_foreach(p->parents, table, rows) {
            json_t *prow = json_object_get(rows, ident);
            char key[256];
            snprintf(key, sizeof key, "%s %s", table, ident);
            if (!prow || json_object_get(p->sent, key)) continue;
            json_object_set_new(p->sent, key, json_true());
            add_parents(p, prow, depth + 1);
            json_array_append_new(p->batch_parents, json_pack("{s:s, s:s, s:O}", "table", table, "ident", ident,
                                                              "row", prow));
        }
    }
}

static int flush(struct push_state *p, sl_err *e)
{
    if (!json_array_size(p->batch_runs)) return 0;
    if (share_cancelled(p->r)) return share_fail_cancelled(e, "push");
    long long added = 0;
    if (p->r->ops->rows->send(p->r, p->batch_parents, p->batch_runs, p->default_class, &added, e) < 0) return -1;
    p->runs_sent += (long long)json_array_size(p->batch_runs);
    p->added += added;
    p->batches++;
    json_array_clear(p->batch_parents);
    json_array_clear(p->batch_runs);
    return 0;
}

/* A run on no disk (null, tmpfs) is filed on the server under its host's
 * class (host_class_of, as evidence scopes such runs), named in the
 * member _class that the server takes out of the row: the run's own
 * hw_class stays empty. With --class, or without its host row: send's
 * default_class. */
static json_t *with_file_class(struct push_state *p, json_t *row)
{
    const char *cls = json_string_value(json_object_get(row, "hw_class"));
    json_t *h = json_object_get(json_object_get(p->parents, "hosts"),
                                json_string_value(json_object_get(row, "host_uuid")));
    const char *model = json_string_value(json_object_get(h, "cpu_model"));
    if ((cls && *cls) || !model || !p->by_host) return json_incref(row);
    char c[256];
    host_class_of(model, (int)json_integer_value(json_object_get(h, "cpus")),
                  (long long)json_integer_value(json_object_get(h, "mem_bytes")), c, sizeof c);
    json_t *copy = json_copy(row);
    json_object_set_new(copy, "_class", json_string(c));
    return copy;
}

static int push_run(const char *table, const char *ident, json_t *row, void *arg, sl_err *e)
{
    struct push_state *p = arg;
    const char *host = json_string_value(json_object_get(row, "host_uuid"));
    json_t *known = json_object_get(p->hosts, host);
    if (!known) return 0;
    if (json_object_get(known, ident)) {
        json_t *m = json_object_get(p->matched, host);
        json_object_set_new(p->matched, host, json_integer(json_integer_value(m) + 1));
        return 0;
    }
    char why[200];
    time_t t;
    if (share_run_time_check(json_string_value(json_object_get(row, "started")), time(NULL), PUSH_SKEW_S, &t, why,
                             sizeof why) < 0) {
        char name[100], msg[300];
        snprintf(name, sizeof name, "run %s", ident);
        snprintf(msg, sizeof msg, "%s: not sent (a start that is not a time cannot be ordered or pruned)", why);
        if (p->fn) p->fn(&(struct share_event){ .kind = SHARE_REFUSED, .name = name, .msg = msg, .size_bytes = -1 },
                         p->arg);
        p->refused++;
        return 0;
    }
    add_parents(p, row, 0);
    json_array_append_new(p->batch_runs, with_file_class(p, row));
    return (int)json_array_size(p->batch_runs) >= p->limit ? flush(p, e) : 0;
}

static int load_parent(const char *table, const char *ident, json_t *row, void *arg, sl_err *e)
{
    json_t *rows = json_object_get(arg, table);
    if (!rows) json_object_set_new(arg, table, rows = json_object());
    json_object_set(rows, ident, row);
    return 0;
}

/* The snapshot's runs of other hosts (push --all: pulled ones) stay
 * here: the server takes a host's runs from that host only (claim). */
static void note_others(struct share_remote *r, long long runs, int hosts, share_event_fn fn, void *arg)
{
    if (!hosts) return;
    char msg[300];
    snprintf(msg, sizeof msg, "left out %lld run%s of %d other host%s: a central store takes a host's runs from that "
             "host only", runs, runs == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s");
    emit_note(fn, arg, r->shown, msg);
}

/* This host (own), if the server does not match its runs, with the UUIDs
 * the server holds; in_sync counts it otherwise. */
static int hosts_to_send(struct share_remote *r, const char *snap, const char *own, json_t *hosts, long long *held,
                         int *in_sync, share_event_fn fn, void *arg, sl_err *e)
{
    struct share_digest *d;
    int n = store_share_snapshot_digests(snap, &d, e), rc = n < 0 ? -1 : 0, others = 0;
    long long others_runs = 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        if (d[i].runs == 0) continue;
        if (strcmp(d[i].host, own) != 0) {
            others++;
            others_runs += d[i].runs;
            continue;
        }
        long long runs;
        char sha[65];
        rc = r->ops->rows->digest(r, d[i].host, &runs, sha, e);
        if (rc == 0 && runs == d[i].runs && strcmp(sha, d[i].runs_sha256) == 0) {
            (*in_sync)++;
            *held += runs;
            continue;
        }
        json_t *set = NULL;
        if (rc == 0) rc = r->ops->rows->known(r, d[i].host, &set, e);
        if (rc == 0) json_object_set_new(hosts, d[i].host, set);
    }
    if (n > 0) free(d);
    if (rc == 0) note_others(r, others_runs, others, fn, arg);
    return rc;
}

/* Runs the server holds under a host's UUID that the snapshot does not:
 * two machines claim one identity (a cloned disk or database). Nothing is
 * overwritten (runs are kept by their own UUIDs), but their runs are
 * counted as one host's: said, naming the host. */
static void note_clashes(struct share_remote *r, const struct push_state *p, share_event_fn fn, void *arg)
{
    const char *host;
    json_t *known;
    json_object_foreach(p->hosts, host, known) {
        long long held = 0, mine = json_integer_value(json_object_get(p->matched, host));
        const char *uuid;
        json_t *v;
        json_object_foreach(known, uuid, v) held++;
        if (held <= mine) continue;
        char msg[600];
        snprintf(msg, sizeof msg, "warning: identity clash: the server holds %lld run%s under host %s that this database "
                 "does not (another machine pushes under this host's UUID: a cloned disk, machine-id or database); "
                 "both machines' runs are kept, but counted as one host's: give the clone a new machine-id and "
                 "database", held - mine, held - mine == 1 ? "" : "s", host);
        emit_note(fn, arg, r->shown, msg);
    }
}

static void push_note(struct share_remote *r, const struct push_state *p, long long held, int in_sync,
                      share_event_fn fn, void *arg)
{
    char msg[400];
    if (!p->runs_sent)
        snprintf(msg, sizeof msg, "nothing to send: the server holds every run (%lld of %d host%s)", held, in_sync,
                 in_sync == 1 ? "" : "s");
    else
        snprintf(msg, sizeof msg, "sent %lld run%s in %lld batch%s, %lld new to the server", p->runs_sent,
                 p->runs_sent == 1 ? "" : "s", p->batches, p->batches == 1 ? "" : "es", p->added);
    emit_note(fn, arg, r->shown, msg);
}

long long share_push_rows(struct share_remote *r, const char *snap, const char *host, const char *key,
                          const char *forced_class, const char *default_class, bool migrate, share_event_fn fn,
                          void *arg, sl_err *e)
{
    bool have;
    char id[64];
    if (r->ops->rows->open(r, SHARE_ROWS_CREATE | (migrate ? SHARE_ROWS_MIGRATE : 0), &have, id, e) < 0 ||
        r->ops->rows->claim(r, host, key, e) < 0)
        return -1;
    struct push_state p = { .r = r, .parents = json_object(), .sent = json_object(), .hosts = json_object(),
                            .matched = json_object(),
                            .batch_parents = json_array(), .batch_runs = json_array(), .limit = batch_size(),
                            .default_class = forced_class ? forced_class : default_class,
                            .by_host = !forced_class, .fn = fn, .arg = arg };
    long long held = 0;
    int in_sync = 0;
    struct share_json *j = NULL;
    int rc = hosts_to_send(r, snap, host, p.hosts, &held, &in_sync, fn, arg, e);
    if (rc == 0 && json_object_size(p.hosts)) rc = store_share_json_open(snap, &j, e);
    for (int i = 0; rc == 0 && j && i < share_table_count; i++)
        if (strcmp(share_tables[i].name, RUN_TABLE) != 0)
            rc = store_share_json_rows(j, share_tables[i].name, load_parent, p.parents, e);
    if (rc == 0 && j) rc = store_share_json_rows(j, RUN_TABLE, push_run, &p, e);
    if (rc == 0) rc = flush(&p, e);
    if (rc == 0) note_clashes(r, &p, fn, arg);
    if (rc == 0) push_note(r, &p, held, in_sync, fn, arg);
    /* As pull's --keep-going: the others sent, the refused named, exit 1. */
    if (rc == 0 && p.refused)
        rc = sl_fail(e, SL_EFAIL, "%lld run%s not sent (see above); the others were sent", p.refused,
                     p.refused == 1 ? "" : "s");
    else if (rc < 0 && p.batches)
        sl_prefix(e, SL_EFAIL, "%lld batch%s of runs stored on the server before this failure, the batch being "
                  "sent was not (push again to send the rest)", p.batches, p.batches == 1 ? "" : "es");
    store_share_json_close(j);
    json_decref(p.parents);
    json_decref(p.sent);
    json_decref(p.hosts);
    json_decref(p.matched);
    json_decref(p.batch_parents);
    json_decref(p.batch_runs);
    return rc < 0 ? -1 : p.runs_sent;
}

/* --- pull ---------------------------------------------------------------------- */

/* The short strings of rows not asked for already: the identities of the
 * parents they may name. */
static json_t *idents_of(json_t *rows, json_t *asked, const char *member)
{
    json_t *out = json_array(), *x;
    size_t i;
    json_array_foreach(rows, i, x) {
        json_t *row = member ? json_object_get(x, member) : x;
        const char *col;
        json_t *v;
        json_object_foreach(row, col, v) {
            if (!json_is_string(v) || json_string_length(v) > IDENT_MAX || json_object_get(asked, json_string_value(v)))
                continue;
            json_object_set_new(asked, json_string_value(v), json_true());
            json_array_append(out, v);
        }
    }
    return out;
}

/* The parents of runs, and theirs, from the server. */
static int fetch_parents(struct share_remote *r, json_t *runs, json_t **parents, sl_err *e)
{
    json_t *asked = json_object(), *idents = idents_of(runs, asked, NULL);
    *parents = json_array();
    int rc = 0;
    for (int depth = 0; rc == 0 && json_array_size(idents) && depth < 4; depth++) {
        json_t *got = NULL;
        rc = r->ops->rows->parents(r, idents, &got, e);
        json_decref(idents);
        idents = NULL;
        if (rc < 0) break;
        idents = idents_of(got, asked, "row");
        json_array_extend(*parents, got);
        json_decref(got);
    }
    json_decref(idents);
    json_decref(asked);
    return rc;
}

/* A batch into the file being built: parents in share_tables order, then
 * the runs. */
static int build_add(struct share_build *b, json_t *parents, json_t *runs, sl_err *e)
{
    int rc = 0;
    for (int t = 0; rc == 0 && t < share_table_count; t++) {
        const char *name = share_tables[t].name;
        json_t *x;
        size_t i;
        if (strcmp(name, RUN_TABLE) == 0) {
            json_array_foreach(runs, i, x) if (rc == 0) rc = store_share_build_row(b, name, x, e);
            continue;
        }
        json_array_foreach(parents, i, x) {
            const char *table = json_string_value(json_object_get(x, "table"));
            if (rc == 0 && table && strcmp(table, name) == 0)
                rc = store_share_build_row(b, name, json_object_get(x, "row"), e);
        }
    }
    return rc;
}

static int build_file(const char *path, json_t *parents, json_t *runs, sl_err *e)
{
    struct share_build *b;
    if (store_share_build_open(path, &b, e) < 0) return -1;
    int rc = build_add(b, parents, runs, e);
    if (store_share_build_close(b, rc == 0, e) < 0) rc = -1;
    return rc;
}

struct pull_ctx {
    store *s;
    struct share_remote *r;
    const char *server, *skip_host, *dir;
    long long max_bytes, added, batches;
    bool keep_going;          /* a refused batch is merged run by run */
    long long refused;        /* runs refused so (named as they were) */
    share_event_fn fn;
    void *arg;
};

/* The classes a central store files this host's runs under: its disks',
 * and its host's for runs on no disk (with_file_class). The count, or -1. */
static int row_classes(const struct host_info *h, char ***out, sl_err *e)
{
    int n = share_host_classes(out, e);
    if (n < 0) return -1;
    char c[256];
    host_class_of(h->cpu_model, h->cpus, (long long)h->mem_bytes, c, sizeof c);
    *out = xrealloc(*out, sizeof **out * (size_t)(n + 1));
    (*out)[n++] = xstrdup(c);
    return n;
}

static void merged(struct pull_ctx *c, const char *name, const struct share_report *rep)
{
    c->added += share_report_added(rep);
    if (!c->fn) return;
    struct share_event ev = { .kind = SHARE_MERGED, .name = name, .report = rep, .size_bytes = -1 };
    c->fn(&ev, c->arg);
}

/* --keep-going, a batch refused: run by run, each that passes the checks
 * merged, each that does not named (SHARE_REFUSED) and left. 0, or -1
 * when a merge itself fails (not a refusal). */
static int pull_one_by_one(struct pull_ctx *c, json_t *parents, json_t *runs, sl_err *e)
{
    size_t i;
    json_t *run;
    json_array_foreach(runs, i, run) {
        char path[4200], name[700];
        const char *uuid = json_string_value(json_object_get(run, "uuid"));
        snprintf(path, sizeof path, "%s/run.sluicedb", c->dir);
        snprintf(name, sizeof name, "%s run %s", c->r->shown, uuid ? uuid : "(no uuid)");
        json_t *one = json_pack("[O]", run);
        sl_err refusal;
        int rc = build_file(path, parents, one, &refusal);
        json_decref(one);
        if (rc == 0) rc = store_share_check(c->s, path, name, &refusal);
        struct share_report rep;
        if (rc == 0) rc = share_merge_file(c->s, path, name, c->max_bytes, &rep, e) < 0 ? -2 : 0;
        unlink(path);
        if (rc == -2) return -1;
        if (rc == 0) merged(c, name, &rep);
        else if (c->fn) {
            struct share_event ev = { .kind = SHARE_REFUSED, .name = name, .msg = refusal.msg, .size_bytes = -1 };
            c->fn(&ev, c->arg);
        }
        c->refused += rc < 0;
    }
    return 0;
}

/* One batch of class cls (NULL: every class) after *cursor: fetched, built,
 * checked, merged, and the cursor moved. 1 merged, 0 nothing left, -1. */
static int pull_batch(struct pull_ctx *c, const char *cls, long long *cursor, sl_err *e)
{
    json_t *runs = NULL, *parents = NULL;
    long long last;
    if (share_cancelled(c->r)) return share_fail_cancelled(e, "pull");
    if (c->r->ops->rows->fetch(c->r, cls, c->skip_host, NULL, *cursor, batch_size(), &runs, &last, e) < 0) return -1;
    int rc = json_array_size(runs) ? fetch_parents(c->r, runs, &parents, e) : 0;
    if (rc == 0 && !json_array_size(runs)) {
        json_decref(runs);
        return 0;
    }
    char path[4200], name[600];
    snprintf(path, sizeof path, "%s/batch-%lld.sluicedb", c->dir, c->batches);
    snprintf(name, sizeof name, "%s %s runs %lld..%lld", c->r->shown, cls ? cls : "(all classes)", *cursor + 1, last);
    bool fetched = rc == 0;
    if (rc == 0) rc = build_file(path, parents, runs, e);
    struct share_report rep;
    if (rc == 0) rc = share_merge_file(c->s, path, name, c->max_bytes, &rep, e);
    unlink(path);
    bool whole = rc == 0;
    if (rc < 0 && fetched && c->keep_going) rc = pull_one_by_one(c, parents, runs, e);
    json_decref(runs);
    json_decref(parents);
    if (rc == 0) rc = store_share_cursor_set(c->s, c->server, cls ? cls : "*", last, c->r->shown, e);
    if (rc < 0) return -1;
    *cursor = last;
    c->batches++;
    if (whole) merged(c, name, &rep);
    return 1;
}

static int pull_class(struct pull_ctx *c, const char *cls, sl_err *e)
{
    long long cursor;
    if (store_share_cursor_get(c->s, c->server, cls ? cls : "*", &cursor, e) < 0) return -1;
    int rc;
    while ((rc = pull_batch(c, cls, &cursor, e)) == 1) {}
    return rc;
}

long long share_pull_rows(store *s, struct share_remote *r, const struct share_pull_opts *po, share_event_fn fn,
                          void *arg, sl_err *e)
{
    bool have;
    char id[64];
    if (r->ops->rows->open(r, 0, &have, id, e) < 0) return -1;
    if (!have) {
        emit_note(fn, arg, r->shown, "nothing to pull: no host has pushed to this server yet");
        return 0;
    }
    struct host_info h;
    char uuid[37];
    int known = host_read(&h, e) < 0 ? -1 : store_share_host_uuid(s, &h, uuid, e);
    if (known < 0) return -1;
    char **classes = NULL;
    int nc = po->all_classes ? 1 : row_classes(&h, &classes, e);
    if (nc < 0) return -1;
    char dir[4096];
    if (share_tmpdir(dir, sizeof dir, e) < 0) {
        share_classes_free(classes, po->all_classes ? 0 : nc);
        return -1;
    }
    struct pull_ctx c = { .s = s, .r = r, .server = id, .skip_host = known == 0 ? uuid : NULL, .dir = dir,
                          .max_bytes = r->opts.max_bytes, .keep_going = po->keep_going, .fn = fn, .arg = arg };
    int rc = 0;
    for (int i = 0; rc == 0 && i < nc; i++) rc = pull_class(&c, po->all_classes ? NULL : classes[i], e);
    share_tmpdir_remove(dir);
    share_classes_free(classes, po->all_classes ? 0 : nc);
    if (rc < 0 && c.batches)
        sl_prefix(e, SL_EFAIL, "%lld batch%s merged before this failure (the next pull goes on from there), the "
                  "batch being fetched was not", c.batches, c.batches == 1 ? "" : "es");
    if (rc == 0 && !c.batches)
        emit_note(fn, arg, r->shown, "nothing new for this host's hardware classes since the last pull");
    /* As an object store's pull with --keep-going: the others merged, the
     * refused named, exit status 1; they are not asked for again. */
    if (rc == 0 && c.refused)
        return sl_fail(e, SL_EFAIL, "%lld run%s refused (see above); the others were merged", c.refused,
                       c.refused == 1 ? "" : "s");
    return rc < 0 ? -1 : c.added;
}

/* --- a view of the server's runs ------------------------------------------------ */

/* Every run of class cls (of workload, unless NULL) into b, batch by batch. */
static int view_class(struct share_remote *r, struct share_build *b, const char *cls, const char *workload,
                      long long *runs_n, sl_err *e)
{
    long long after = 0;
    for (;;) {
        json_t *runs = NULL, *parents = NULL;
        long long last;
        if (share_cancelled(r)) return share_fail_cancelled(e, "reading the server");
        if (r->ops->rows->fetch(r, cls, NULL, workload, after, batch_size(), &runs, &last, e) < 0) return -1;
        size_t n = json_array_size(runs);
        int rc = n ? fetch_parents(r, runs, &parents, e) : 0;
        if (rc == 0 && n) rc = build_add(b, parents, runs, e);
        json_decref(runs);
        json_decref(parents);
        if (rc < 0) return -1;
        if (!n) return 0;
        *runs_n += (long long)n;
        after = last;
    }
}

int share_view_open(store *local, const char *url, const struct share_opts *o, const char *workload,
                    bool all_classes, struct share_view *v, sl_err *e)
{
    memset(v, 0, sizeof *v);
    struct share_remote *r;
    if (share_open(url, o, &r, e) < 0) return -1;
    snprintf(v->shown, sizeof v->shown, "%s", r->shown);
    bool have;
    char id[64], **classes = NULL;
    int rc = 0, nc = 0;
    if (!r->ops->rows)
        rc = sl_fail(e, SL_EUSAGE, "--server %s: give a central store (postgresql://...); objects on a file, "
                     "WebDAV, S3 or SFTP server are pulled and merged instead ('sluice pull')", r->shown);
    if (rc == 0) rc = r->ops->rows->open(r, 0, &have, id, e);
    if (rc == 0 && !have) rc = sl_fail(e, SL_EFAIL, "%s: no host has pushed to this server yet", r->shown);
    struct host_info h;
    if (rc == 0 && !all_classes && (host_read(&h, e) < 0 || (nc = row_classes(&h, &classes, e)) < 0)) rc = -1;
    if (rc == 0) rc = share_tmpdir(v->dir, sizeof v->dir, e);
    char path[4200];
    snprintf(path, sizeof path, "%s/view.sluicedb", v->dir);
    struct share_build *b = NULL;
    if (rc == 0) rc = store_share_build_open(path, &b, e);
    for (int i = 0; rc == 0 && i < nc; i++) rc = view_class(r, b, classes[i], workload, &v->runs, e);
    if (rc == 0 && all_classes) rc = view_class(r, b, NULL, workload, &v->runs, e);
    if (b && store_share_build_close(b, rc == 0, e) < 0) rc = -1;
    share_classes_free(classes, nc > 0 ? nc : 0);
    share_close(r);
    /* This host's own runs on the server count as this host's. */
    char uuid[37];
    if (rc == 0) rc = store_open(path, &v->s, e);
    /* Rows named by a content hash are checked as a pull checks them: a
     * config under this host's hash with another host's knobs would be
     * recommended to this host as its own measurement. */
    if (rc == 0) rc = store_share_check_content(v->s, v->shown, "nothing from the server was used; remove or correct "
                                                "that row on the server", e);
    if (rc == 0 && host_read(&h, e) < 0) rc = -1;
    int known = rc == 0 ? store_share_host_uuid(local, &h, uuid, e) : -1;
    if (rc == 0 && known < 0) rc = -1;
    if (rc == 0 && known == 0) rc = store_share_claim_host(v->s, uuid, &h, e);
    if (rc < 0) share_view_close(v);
    return rc;
}

void share_view_close(struct share_view *v)
{
    if (v->s) store_close(v->s);
    v->s = NULL;
    if (v->dir[0]) share_tmpdir_remove(v->dir);
    v->dir[0] = 0;
}
