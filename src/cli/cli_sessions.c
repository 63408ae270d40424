/* cli_sessions — `sessions` and `restore`: what sluice changed, and undoing it. */
#include "cli/cli.h"
#include "cli/cli_verify.h"
#include "share/share.h"
#include "probe/scratch.h"
#include "profile/lifecycle.h"
#include "core/record.h"
#include "session/session.h"
#include "db/store_session.h"
#include "core/sysfs.h"
#include "db/store_verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *session_json(const struct session_row *r) { return rec_json(session_fields, session_fields_len, r); }

struct sessions_opts {
    bool log;
};

/* One session's writes, its put-backs (restore, off, a switch, a
 * rollback) and how it ended, into the audit listing. */
static int log_session(store *st, const struct session_row *r, struct table *t, json_t *arr, sl_err *e)
{
    struct change_log_row *ch;
    int n = store_session_changes(st, r->id, &ch, e);
    if (n < 0) return -1;
    char id[9];
    snprintf(id, sizeof id, "%.8s", r->uuid);
    const char *what = r->profile[0] ? r->profile : r->purpose;
    /* sessions recorded before migration 009 do not know who started them */
    const char *who = r->user[0] ? r->user : "?";
    for (int i = 0; i < n; i++) {
        if (t) table_row(t, ch[i].at, id, who, what, ch[i].action, ch[i].knob, ch[i].old_value, ch[i].new_value,
                         ch[i].got_value, ch[i].note);
        else json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "at", ch[i].at,
                                                  "session", r->uuid, "user", r->user, "purpose", r->purpose, "profile",
                                                  r->profile, "action", ch[i].action, "knob", ch[i].knob, "old",
                                                  ch[i].old_value, "new", ch[i].new_value, "got", ch[i].got_value,
                                                  "note", ch[i].note));
    }
    free(ch);
    /* How it ended: put back (each knob above, from migration 010 on) or failed. */
    if (r->ended[0] && (r->state == SESSION_RESTORED || r->state == SESSION_FAILED)) {
        if (t) table_row(t, r->ended, id, who, what, session_state_name(r->state), "", "", "", "", r->note);
        else json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "at", r->ended, "session", r->uuid, "user",
                                                  r->user, "purpose", r->purpose, "profile", r->profile, "action", session_state_name(r->state),
                                                  "note", r->note));
    }
    return 0;
}

/* sessions --log: every write and put-back of every session, oldest
 * first, as the syslog audit trail told it (from the store). */
static int sessions_log(struct cli_ctx *ctx, store *st, struct session_row *rows, int n)
{
    struct table *t = ctx->json ? NULL : table_new(10, "AT", "SESSION", "USER", "FOR", "ACTION", "KNOB", "OLD", "NEW", "GOT", "NOTE");
    json_t *arr = ctx->json ? json_array() : NULL;
    sl_err e;
    int rc = 0;
    for (int i = n - 1; i >= 0 && rc == 0; i--) rc = log_session(st, &rows[i], t, arr, &e);
    free(rows);
    if (rc < 0) {
        if (t) table_print(t);
        json_decref(arr);
        return cli_error(&e);
    }
    if (t) table_print(t);
    return arr ? cli_print_json(arr) : 0;
}

/* Every session; one that ran a live verification carries it as
 * "verification" (store_verify_json). Frees rows. */
static int sessions_json(store *st, struct session_row *rows, int n)
{
    struct verify_row *tests = NULL;
    sl_err e;
    int nt = store_verify_list(st, &tests, &e);
    if (nt < 0) {
        free(rows);
        return cli_error(&e);
    }
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = session_json(&rows[i]);
        for (int k = 0; k < nt; k++)
            if (tests[k].session_id == rows[i].id) json_object_set_new(o, "verification", store_verify_json(&tests[k]));
        json_array_append_new(arr, o);
    }
    free(tests);
    free(rows);
    return cli_print_json(arr);
}

/* The live verifications under the sessions, where cli_verify.c is linked. */
int (*cli_verify_list_hook)(store *st, sl_err *e);

static int run_sessions(struct cli_ctx *ctx, int argc, char **argv)
{
    if (argc > 1) return cli_usage("sessions", "unexpected argument %s", argv[1]);
    sl_err e;
    if (cli_store_missing(ctx)) return cli_nothing_stored(ctx);
    store *st = cli_store(ctx, &e);
    if (!st) return cli_error(&e);
    struct session_row *rows;
    int n = store_session_list(st, &rows, &e);
    if (n < 0) return cli_error(&e);
    if (((const struct sessions_opts *)ctx->opts)->log) return sessions_log(ctx, st, rows, n);
    if (ctx->json) return sessions_json(st, rows, n);
    struct table *t = table_new(7, "SESSION", "PURPOSE", "STATE", "STARTED", "PID", "CHANGES", "ROOT");
    for (int i = 0; i < n; i++) {
        char id[9], pid[16], changes[16];
        snprintf(id, sizeof id, "%.8s", rows[i].uuid);
        snprintf(pid, sizeof pid, "%d", rows[i].pid);
        snprintf(changes, sizeof changes, "%d", rows[i].changes);
        table_row(t, id, rows[i].purpose, session_state_name(rows[i].state), rows[i].started, pid, changes,
                  rows[i].root[0] ? rows[i].root : "/");
    }
    table_print(t);
    free(rows);
    if (cli_verify_list_hook && cli_verify_list_hook(st, &e) < 0) return cli_error(&e);
    return 0;
}

static const struct opt sessions_rows[] = {
    { .name = "log", .type = OPT_FLAG, .help = "every knob each session wrote or put back, oldest first: the audit trail sluice also sends to syslog",
      OPT_AT(struct sessions_opts, log) },
    { NULL },
};
static const struct opt_table sessions_table = { sizeof(struct sessions_opts), NULL, { { sessions_rows, 0 } }, NULL, NULL };
CLI_COMMAND_OPTS(cmd_sessions, "sessions", run_sessions, sessions_table,
            "tuning sessions: what was changed, when, and whether it was put back", 0);

static void print_report(const struct session_row *r, const struct restore_report *rep)
{
    printf("session %.8s (%s, started %s):\n", r->uuid, r->purpose, r->started);
    struct table *t = table_new(4, "  KNOB", "FOUND", "RESTORED", "RESULT");
    for (int i = 0; i < rep->n; i++) {
        const struct restore_item *it = &rep->items[i];
        char knob[KNOB_NAME_MAX + 2], result[512];
        snprintf(knob, sizeof knob, "  %s", it->knob);
        table_row(t, knob, it->had[0] ? it->had : "-", it->want, restore_result_text(it, result, sizeof result));
    }
    table_print(t);
    for (int i = 0; i < rep->n; i++)
        if (rep->items[i].status == RESTORE_FAILED) printf("  %s: %s\n", rep->items[i].knob, rep->items[i].msg);
}

static json_t *report_json(const struct session_row *r, const struct restore_report *rep)
{
    static const char *const result[] = {
        [RESTORE_SAME] = "same", [RESTORE_WRITTEN] = "written", [RESTORE_FAILED] = "failed",
        [RESTORE_SKIPPED] = "absent", [RESTORE_LEFT_CHANGED] = "left-changed", [RESTORE_LEFT_LATER] = "left-later",
    };
    json_t *o = session_json(r), *arr = json_array();
    for (int i = 0; i < rep->n; i++) {
        const struct restore_item *it = &rep->items[i];
        json_t *x = json_object();
        json_object_set_new(x, "knob", json_string(it->knob));
        json_object_set_new(x, "found", json_string(it->had));
        json_object_set_new(x, "restored", json_string(it->want));
        json_object_set_new(x, "result", json_string(result[it->status]));
        if (it->wrote[0]) json_object_set_new(x, "sluice_wrote", json_string(it->wrote));
        if (it->later[0]) json_object_set_new(x, "later_session", json_string(it->later));
        if (it->msg[0]) json_object_set_new(x, "message", json_string(it->msg));
        json_array_append_new(arr, x);
    }
    json_object_set_new(o, "knobs", arr);
    return o;
}

struct restore_how {
    int flags;       /* RESTORE_FORCE */
    bool cascade;    /* later sessions holding its knobs first */
    json_t *out;     /* --json: the reports */
};

static int restore_one(store *st, struct session_row *r, const struct restore_how *o, int depth);

/* --cascade: the later sessions that still hold knobs of r, newest first. */
static int restore_later(store *st, struct session_row *r, const struct restore_how *o, int depth)
{
    struct session_row *later;
    sl_err e;
    int n = session_later_claimants(st, r, &later, &e);
    if (n < 0) return cli_error(&e);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        int one = restore_one(st, &later[i], o, depth + 1);
        if (one && !rc) rc = one;
    }
    free(later);
    return rc;
}

static int restore_one(store *st, struct session_row *r, const struct restore_how *o, int depth)
{
    int rc = 0;
    /* Each level restores strictly later sessions: the depth is bounded by
     * their number; the cap only guards a broken database. */
    if (o->cascade && depth < 64) rc = restore_later(st, r, o, depth);
    struct restore_report rep = { 0 };
    sl_err e;
    int one = session_restore(st, r, o->flags, &rep, &e);
    if (o->out) json_array_append_new(o->out, report_json(r, &rep));
    else if (rep.n || one == 0) print_report(r, &rep);
    restore_report_free(&rep);
    if (one < 0) one = cli_error(&e);
    return rc ? rc : one;
}

/* Crashed sessions an earlier restore --crashed left to a later session
 * (it held their knobs): restored once no later session holds them, which
 * puts back what the crash left; else each is an error (restored in part)
 * naming the session that still holds them. *seen: how many there were. */
static int restore_deferred(store *st, const struct restore_how *o, int *seen)
{
    struct session_row *rows;
    sl_err e;
    int n = store_session_deferred(st, sysfs_root(), &rows, &e);
    *seen = n > 0 ? n : 0;
    if (n < 0) return cli_error(&e);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        struct session_row *later = NULL;
        int m = o->cascade ? 0 : session_later_claimants(st, &rows[i], &later, &e);
        int one = m < 0 ? cli_error(&e) : 0;
        if (m == 0) one = restore_one(st, &rows[i], o, 0);
        else if (m > 0) {
            sl_fail(&e, SL_EPARTIAL, "session %.8s (%s, started %s) is restored in part: knobs it changed are held by "
                    "session %.8s, which changed them later; restore session %.8s first, then run 'sluice restore "
                    "--crashed' again (or add --cascade)", rows[i].uuid, rows[i].purpose, rows[i].started,
                    later[0].uuid, later[0].uuid);
            one = cli_error(&e);
        }
        free(later);
        if (one && !rc) rc = one;
    }
    free(rows);
    return rc;
}

/* Scratch directories killed probes left: one line each on stdout (stderr
 * with --json, whose stdout is the sessions' array); a failure also sets
 * the exit status. */
static int sweep_scratch(store *st, bool json)
{
    struct scratch_report rep;
    sl_err e;
    if (probe_scratch_sweep(st, &rep, &e) < 0) return cli_error(&e);
    for (int i = 0; i < rep.n; i++) {
        const struct scratch_item *it = &rep.items[i];
        if (it->result == SCRATCH_FAILED) fprintf(stderr, "sluice: %s\n", it->msg);
        else if (it->msg[0]) fprintf(json ? stderr : stdout, "%s\n", it->msg);
    }
    int rc = rep.failed ? SL_EFAIL : 0;
    scratch_report_free(&rep);
    return rc;
}

struct restore_opts {
    bool crashed, force, cascade;
};

static const struct opt restore_rows[] = {
    { .name = "crashed", .type = OPT_FLAG,
      .help = "every session whose holder is gone (a killed sluice, a killed restore), and killed probes' scratch files",
      OPT_AT(struct restore_opts, crashed) },
    { .name = "force", .type = OPT_FLAG, .help = "put back knobs changed since sluice wrote them, too",
      OPT_AT(struct restore_opts, force) },
    { .name = "cascade", .type = OPT_FLAG, .help = "restore first the later sessions that changed the same knobs",
      OPT_AT(struct restore_opts, cascade) },
    { NULL },
};
static const struct opt_table restore_table = { sizeof(struct restore_opts), NULL, { { restore_rows, 0 } }, "[SESSION]", NULL };

static int run_restore(struct cli_ctx *ctx, int argc, char **argv)
{
    const struct restore_opts *opt = ctx->opts;
    bool crashed = opt->crashed;
    struct restore_how o = { .flags = opt->force ? RESTORE_FORCE : 0, .cascade = opt->cascade };
    if (argc > 2 || (crashed && argc > 1))
        return cli_usage("restore", "give one SESSION, or --crashed");
    sl_err e;
    if (sysfs_require_root("sluice restore", &e) < 0) return cli_error(&e);
    if (cli_store_missing(ctx)) return cli_nothing_stored(ctx);
    store *st = cli_store(ctx, &e);
    int lock_fd = -1;
    if (!st || session_lock_acquire(ctx->db_path, &lock_fd, &e) < 0) return cli_error(&e);
    json_t *out = ctx->json ? json_array() : NULL;
    o.out = out;
    int rc = 0;
    if (crashed) {
        /* The deferred first: a session deferred by this very run is
         * named by its own report. */
        int deferred;
        rc = restore_deferred(st, &o, &deferred);
        struct session_row *rows;
        int n = session_find_crashed(st, &rows, &e);
        int failed = n < 0 ? cli_error(&e) : 0;
        if (failed && !rc) rc = failed;
        for (int i = 0; i < n; i++) {
            int one = restore_one(st, &rows[i], &o, 0);
            if (one && !rc) rc = one;
        }
        if (n == 0 && !deferred && !out) printf("no crashed session: nothing to restore\n");
        if (n >= 0) free(rows);
    } else {
        struct session_row r;
        int found = argc > 1 ? store_session_get(st, argv[1], &r, &e)
                                  : store_session_latest_unrestored(st, &r, &e);
        if (found < 0) {
            if (e.status != SL_EUSAGE)
                sl_suffix(&e, "Nothing was put back: every knob is as it was; run 'sluice restore' again once the "
                          "database can be read");
            rc = cli_error(&e);
        } else if (found == 1) { if (!out) printf("no session to restore\n"); }
        else if (r.state == SESSION_RESTORED && !r.restoring) {
            if (!out) printf("session %.8s was already restored\n", r.uuid);
        } else rc = restore_one(st, &r, &o, 0);
    }
    int swept = sweep_scratch(st, out != NULL);
    if (swept && !rc) rc = swept;
    char first[4096];
    int tmps = crashed ? share_tmpdir_sweep(store_path(st), first, sizeof first) : 0;
    if (tmps && !out)
        printf("removed %d temporary download director%s a killed push or pull left (%s%s)\n", tmps,
               tmps == 1 ? "y" : "ies", first, tmps > 1 ? ", ..." : "");
    session_lock_release(lock_fd);
    if (out) cli_print_json(out);
    return rc;
}

CLI_COMMAND_OPTS(cmd_restore, "restore", run_restore, restore_table,
            "put back what a session changed (the newest by default) where it still holds sluice's value; remove what killed probes left", CLI_WRITES | CLI_NO_CRASH_CHECK);

/* --- the profile lifecycle: active, off ------------------------------------ */

struct off_opts {
    bool force;
};

static const struct opt off_rows[] = {
    { .name = "force", .type = OPT_FLAG, .help = "also put back knobs changed by hand since the profile set them",
      OPT_AT(struct off_opts, force) },
    { NULL },
};
static const struct opt_table off_table = { sizeof(struct off_opts), NULL, { { off_rows, 0 } }, NULL, NULL };

/* off: the profile in force is restored, with restore's rules; a profile
 * switch handed its session what was there before any profile, so this is
 * what the kernel had before sluice. */
static int run_off(struct cli_ctx *ctx, int argc, char **argv)
{
    const struct off_opts *opt = ctx->opts;
    if (argc > 1) return cli_usage("off", "unexpected argument %s", argv[1]);
    sl_err e;
    if (sysfs_require_root("sluice off", &e) < 0) return cli_error(&e);
    store *st = cli_store(ctx, &e);
    int lock_fd = -1;
    if (!st || session_lock_acquire(ctx->db_path, &lock_fd, &e) < 0) return cli_error(&e);
    struct session_row r;
    int found = lifecycle_active(st, &r, &e);
    json_t *out = ctx->json ? json_array() : NULL;
    int rc = 0;
    if (found < 0) rc = cli_error(&e);
    else if (found == 1) { if (!out) printf("no profile is in force: nothing to put back\n"); }
    else {
        if (!out) printf("profile %s off: putting back what it changed\n", r.profile);
        struct restore_how how = { .flags = opt->force ? RESTORE_FORCE : 0, .out = out };
        rc = restore_one(st, &r, &how, 0);
    }
    session_lock_release(lock_fd);
    if (out) cli_print_json(out);
    return rc;
}

CLI_COMMAND_OPTS(cmd_off, "off", run_off, off_table,
                 "put back what the profile in force changed: the values from before any profile", CLI_WRITES);

/* active: the profile in force, since when, and each knob it set against
 * what the kernel holds now. */
static int run_active(struct cli_ctx *ctx, int argc, char **argv)
{
    if (argc > 1) return cli_usage("active", "unexpected argument %s", argv[1]);
    sl_err e;
    store *st = cli_store_read(ctx, &e);
    if (!st) return cli_error(&e);
    struct session_row r;
    int found = lifecycle_active(st, &r, &e);
    if (found < 0) return cli_error(&e);
    if (found == 1) {
        if (ctx->json) return cli_print_json(json_pack("{s:n}", "profile"));
        printf("no profile is in force (sluice has not applied one, or it is off)\n");
        return 0;
    }
    struct snapshot_row *rows;
    int n = store_session_snapshots(st, r.id, &rows, &e);
    if (n < 0) return cli_error(&e);
    json_t *arr = json_array();
    struct table *t = ctx->json ? NULL : table_new(5, "  KNOB", "BEFORE", "PROFILE", "NOW", "STATE");
    int drift = 0, ok = 0;
    for (int i = 0; i < n; i++) {
        const struct snapshot_row *s = &rows[i];
        struct knob k;
        char now[KNOB_VALUE_MAX] = "";
        if (!s->present || !s->has_left || knob_lookup(s->knob, s->sched[0] ? s->sched : NULL, &k, NULL) < 0 ||
            knob_values_equal(&k, s->left, s->value))
            continue;
        knob_read(&k, now, sizeof now, NULL);
        bool same = knob_values_equal(&k, now, s->left);
        same ? ok++ : drift++;
        const char *state = same ? "ok" : "drift: changed since";
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:s,s:b}", "knob", s->knob, "before", s->value, "profile", s->left,
                                             "now", now, "drift", !same));
        if (t) {
            char knob[KNOB_NAME_MAX + 2];
            snprintf(knob, sizeof knob, "  %s", s->knob);
            table_row(t, knob, s->value, s->left, now[0] ? now : "-", state);
        }
    }
    free(rows);
    if (ctx->json) {
        json_t *o = json_pack("{s:s,s:s,s:s,s:i}", "profile", r.profile, "session", r.uuid, "since", r.started, "drift", drift);
        json_object_set_new(o, "knobs", arr);
        return cli_print_json(o);
    }
    json_decref(arr);
    printf("profile %s, in force since %s (session %.8s)\n", r.profile, r.started, r.uuid);
    table_print(t);
    printf("%d knob(s) as the profile left them, %d changed since ('sluice off' puts back what was there before)\n", ok, drift);
    return 0;
}

static const struct opt_table active_table = { 0, NULL, { { NULL, 0 } }, NULL, NULL };
CLI_COMMAND_OPTS(cmd_active, "active", run_active, active_table,
                 "the profile in force, since when, and what changed since it was applied", 0);
