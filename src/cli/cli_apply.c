/* cli_apply — `apply PROFILE...`: resolve (several merge left to right),
 * plan the switch from the profile in force, apply as one journaled
 * all-or-nothing session (the same machinery as `set`), then verify. `--boot` is what the
 * sluice-apply.service unit runs: the installed profile, waiting for the
 * tuning lock instead of failing at once. */
#include "cli/cli_knobset.h"
#include "cli/cli_profile.h"
#include "cli/cli_verify.h"
#include "profile/lifecycle.h"
#include "session/session.h"
#include "db/store_session.h"
#include "core/sysfs.h"
#include "core/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOOT_LOCK_WAIT_MS 60000

static void print_kept(const struct plan *pl)
{
    for (int i = 0; i < pl->n; i++)
        if (pl->it[i].action == PA_KEEP) printf("kept: %s: %s\n", pl->it[i].knob, pl->it[i].note);
}

/* Read back through a fresh plan: every item must now be same or kept. */
static int verify_after(const struct profile *p, bool json, json_t *out)
{
    struct plan pl;
    sl_err e;
    if (profile_plan(p, &pl, &e) < 0) {
        fprintf(stderr, "sluice: verify: %s\n", e.msg);
        return -1;
    }
    int drift = 0, ok = 0;
    json_t *arr = json_array();
    for (int i = 0; i < pl.n; i++) {
        const struct plan_item *it = &pl.it[i];
        if (it->action == PA_SKIP) continue;
        if (plan_item_ok(it)) { ok++; continue; }
        drift++;
        if (!json) printf("drift: %s: profile wants %s, the kernel has %s\n", it->knob, it->want, it->current[0] ? it->current : "absent");
        json_t *x = json_object();
        json_object_set_new(x, "knob", json_string(it->knob));
        json_object_set_new(x, "want", json_string(it->want));
        json_object_set_new(x, "current", json_string(it->current));
        json_array_append_new(arr, x);
    }
    if (!json) {
        if (drift) printf("verify: %d knob(s) match the profile, %d drifted (the kernel kept other values)\n", ok, drift);
        else printf("verify: all %d knob(s) match the profile\n", ok);
    }
    if (out) json_object_set_new(out, "drift", arr);
    else json_decref(arr);
    plan_free(&pl);
    return drift;
}

struct apply_opts {
    bool dry_run, boot, force;
    const char *dirs;
    long long wait_ms;   /* -1: the default for --boot or not */
    long long verify_ms; /* 0: apply without a live verification */
    const char *verify_dir;
};

static void apply_defaults(void *p) { ((struct apply_opts *)p)->wait_ms = -1; }

static const struct opt apply_rows[] = {
    { .name = "dry-run", .short_name = 'n', .type = OPT_FLAG,
      .help = "print the plan and what would be written; write nothing",
      OPT_AT(struct apply_opts, dry_run) },
    { .name = "profiles", .type = OPT_TEXT, .arg = "DIR",
      .help = "look for profiles in DIR first (colon-separated list)",
      OPT_PTR(struct apply_opts, dirs), .complete = COMPLETE_DIR },
    { .name = "boot", .type = OPT_FLAG,
      .help = "apply the profile 'boot install' installed (what sluice-apply.service runs)",
      OPT_AT(struct apply_opts, boot) },
    { .name = "wait", .type = OPT_DURATION, .arg = "DURATION", .def = "60s with --boot, else 0",
      .help = "wait this long for the tuning lock",
      OPT_AT(struct apply_opts, wait_ms) },
    { .name = "force", .type = OPT_FLAG,
      .help = "also overwrite knobs changed by hand since the profile in force set them",
      OPT_AT(struct apply_opts, force) },
    { .name = "verify-live", .type = OPT_DURATION, .arg = "DURATION", .min = 0, .max = 7 * 24 * 3600 * 1000.0,
      .help = "first verify the switch on the machine's own workload for DURATION (as verify --live, blocks of 60 s "
              "or DURATION/12); apply it only if it held",
      OPT_AT(struct apply_opts, verify_ms) },
    { .name = "verify-dir", .type = OPT_TEXT, .arg = "DIR",
      .help = "with --verify-live: the workload's disk (vm.* knobs), and the canary's scratch file there",
      OPT_PTR(struct apply_opts, verify_dir), .complete = COMPLETE_DIR },
    { NULL },
};
static const struct opt_table apply_table = { sizeof(struct apply_opts), apply_defaults, { { apply_rows, 0 } },
                                             "[PROFILE...]", COMPLETE_PROFILE };

/* Several profiles merge left to right: the later wins, and the plan says
 * where it did. */
static int load_merged(const char *dirs_opt, int n, char **names, struct profile *p, struct plan *pl, struct notes *won,
                       sl_err *e)
{
    if (n <= 1) return cli_profile_plan(dirs_opt, n ? names[0] : NULL, p, pl, e);
    struct profile_dirs dirs;
    profile_dirs_init(&dirs, dirs_opt);
    memset(pl, 0, sizeof *pl);
    if (profile_load(&dirs, names[0], p, e) < 0) { profile_free(p); return -1; }
    for (int i = 1; i < n; i++) {
        struct profile next;
        if (profile_load(&dirs, names[i], &next, e) < 0) { profile_free(&next); profile_free(p); return -1; }
        profile_merge(p, &next, won);
        profile_free(&next);
    }
    p->path[0] = 0;
    if (profile_plan(p, pl, e) < 0) { cli_plan_warnings(pl); plan_free(pl); profile_free(p); return -1; }
    cli_plan_warnings(pl);
    return 0;
}

/* The plan of a switch, before anything is written. */
static void print_switch(const struct profile_switch *sw, const struct notes *won)
{
    for (int i = 0; i < won->n; i++) printf("merge: %s\n", won->v[i]);
    if (!sw->has_prev || sw->n == 0) return;
    printf("over profile %s (session %.8s, applied %s):\n", sw->prev.profile, sw->prev.uuid, sw->prev.started);
    struct table *t = table_new(4, "  KNOB", "NOW", "NEW", "PLAN");
    for (int i = 0; i < sw->n; i++) {
        const struct switch_item *it = &sw->it[i];
        char knob[KNOB_NAME_MAX + 2], why[512];
        snprintf(knob, sizeof knob, "  %s", it->knob);
        if (it->what == SW_KEEP)
            snprintf(why, sizeof why, "kept: changed since %s set it (sluice wrote %s); --force to overwrite", sw->prev.profile, it->wrote);
        else if (it->what == SW_BACK)
            snprintf(why, sizeof why, "comes back (%s set it, this profile does not)", sw->prev.profile);
        else snprintf(why, sizeof why, "changes");
        table_row(t, knob, it->now[0] ? it->now : "-", it->what == SW_KEEP ? it->now : it->to, why);
    }
    table_print(t);
}

/* Write the switch and keep it; what the terminal or JSON says after. */
static int write_switch(struct cli_ctx *ctx, store *st, struct profile_switch *sw, const struct profile *p,
                        const struct plan *pl, bool boot, long long wait_ms, json_t *out)
{
    sl_err e;
    struct session *s = NULL;
    if (lifecycle_apply(st, sw, p->name, boot ? "apply --boot" : "apply", (int)wait_ms, &s, &e) < 0) {
        bool attempted = false;
        for (int i = 0; i < sw->ks.n; i++) attempted = attempted || sw->ks.ch[i].state != CHANGE_PENDING;
        if (attempted && !ctx->json) cli_knobset_print(&sw->ks, false);
        if (e.status == SL_EBUSY && wait_ms > 0)
            fprintf(stderr, "sluice: waited %lld s for the tuning lock; profile %s was not applied\n", wait_ms / 1000, p->name);
        return cli_error(&e);
    }
    /* Recorded as kept before saying so (a full disk puts it back). */
    char uuid[9];
    snprintf(uuid, sizeof uuid, "%.8s", session_row_of(s)->uuid);
    json_t *result = out ? cli_knobset_json(&sw->ks, s, false) : NULL;
    struct restore_report rep = { 0 };
    int rc = 0;
    if (session_end(s, true, &rep, &e) < 0) {
        rc = cli_error(&e);
        json_decref(result);
    } else if (out) {
        json_object_set_new(out, "result", result);
    } else {
        cli_knobset_print(&sw->ks, false);
        print_kept(pl);
        printf("session %s: kept; 'sluice restore' puts the old values back\n", uuid);
    }
    restore_report_free(&rep);
    return rc;
}

/* --verify-live, set by cli_verify.c where it is linked (sluice-apply, the
 * boot binary, links neither it nor the statistics it needs). */
cli_apply_verify_fn cli_apply_verify_hook;

/* Knobs the switch writes: changes and knobs that come back. */
static int switch_writes(const struct profile_switch *sw)
{
    int n = 0;
    for (int i = 0; i < sw->n; i++) n += sw->it[i].what != SW_KEEP;
    return n;
}

static int run_apply(struct cli_ctx *ctx, int argc, char **argv)
{
    const struct apply_opts *o = ctx->opts;
    bool dry_run = o->dry_run, boot = o->boot;
    long long wait_ms = o->wait_ms;
    if (argc == 1 && !boot) return cli_usage("apply", "give a PROFILE (or --boot for the installed one)");
    if (boot && argc > 1) return cli_usage("apply", "--boot applies the installed profile: give no PROFILE");
    if (boot && o->verify_ms) return cli_usage("apply", "--verify-live needs the machine's workload running: not with --boot");
    if (o->verify_dir && !o->verify_ms) return cli_usage("apply", "--verify-dir goes with --verify-live DURATION");
    if (o->verify_ms > 0 && !cli_apply_verify_hook)
        return cli_usage("apply", "--verify-live: this binary applies profiles at boot only; run 'sluice apply ... "
                         "--verify-live'. Nothing was changed");
    if (wait_ms < 0) wait_ms = boot ? BOOT_LOCK_WAIT_MS : 0;

    struct profile p;
    struct plan pl;
    struct notes won = { 0 };
    struct profile_switch sw = { 0 };
    sl_err e;
    if (load_merged(o->dirs, argc - 1, argv + 1, &p, &pl, &won, &e) < 0) { notes_free(&won); return cli_error(&e); }
    json_t *out = ctx->json ? cli_plan_json(&p, &pl, VIEW_DIFF) : NULL;
    if (out) json_object_set_new(out, "dry_run", json_boolean(dry_run));
    int rc = 0;
    if (!ctx->json) printf("profile %s (%s)\n", p.name, p.path[0] ? p.path : "-");
    store *st = cli_store(ctx, &e);
    if (!st || lifecycle_plan(st, &pl, o->force, &sw, &e) < 0) { rc = cli_error(&e); goto done; }
    if (!ctx->json) print_switch(&sw, &won);
    if (switch_writes(&sw) == 0) {
        if (!ctx->json) {
            print_kept(&pl);
            int counts[4];
            plan_counts(&pl, counts);
            if (counts[PA_SAME] + counts[PA_KEEP])
                printf("nothing to change: %d knob(s) already as the profile says\n", counts[PA_SAME] + counts[PA_KEEP]);
            else
                printf("nothing to apply: no knob of this profile exists on this machine\n");
        }
        goto done;
    }
    if (dry_run) {
        if (out) json_object_set_new(out, "result", cli_knobset_json(&sw.ks, NULL, true));
        else { cli_knobset_print(&sw.ks, true); print_kept(&pl); }
        goto done;
    }
    if (sysfs_require_root("sluice apply", &e) < 0) { rc = cli_error(&e); goto done; }
    if (o->verify_ms > 0 && (rc = cli_apply_verify_hook(ctx, st, o->verify_ms, o->verify_dir, &p, &sw, out)) != 0)
        goto done;
    rc = write_switch(ctx, st, &sw, &p, &pl, boot, wait_ms, out);
    if (rc == 0) verify_after(&p, ctx->json, out);
done:
    if (out) cli_print_json(out);
    lifecycle_free(&sw);
    notes_free(&won);
    plan_free(&pl);
    profile_free(&p);
    return rc;
}

CLI_COMMAND_OPTS(cmd_apply, "apply", run_apply, apply_table,
            "apply a profile (several: merged, the later wins) as one journaled session over the one in force, then verify",
            CLI_WRITES);
