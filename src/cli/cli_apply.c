/* cli_apply — `apply PROFILE`: resolve, apply as one journaled all-or-nothing
 * session (the same machinery as `set`), then verify. `--boot` is what the
 * sluice-apply.service unit runs: the installed profile, waiting for the
 * tuning lock instead of failing at once. */
#include "cli_knobset.h"
#include "cli_profile.h"
#include "session.h"
#include "sysfs.h"
#include "units.h"

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
    bool dry_run, boot;
    const char *dirs;
    long long wait_ms;   /* -1: the default for --boot or not */
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
    { NULL },
};
static const struct opt_table apply_table = { sizeof(struct apply_opts), apply_defaults, { { apply_rows, 0 } },
                                             "[PROFILE]", COMPLETE_PROFILE };

static int run_apply(struct cli_ctx *ctx, int argc, char **argv)
{
    const struct apply_opts *o = ctx->opts;
    bool dry_run = o->dry_run, boot = o->boot;
    const char *dirs = o->dirs;
    long long wait_ms = o->wait_ms;
    if (argc > 2) return cli_usage("apply", "give one PROFILE");
    if (argc == 1 && !boot) return cli_usage("apply", "give a PROFILE (or --boot for the installed one)");
    if (wait_ms < 0) wait_ms = boot ? BOOT_LOCK_WAIT_MS : 0;

    struct profile p;
    struct plan pl;
    struct knobset ks = { 0 };
    sl_err e;
    if (cli_profile_plan(dirs, argc > 1 ? argv[1] : NULL, &p, &pl, &e) < 0) return cli_error(&e);
    int counts[4];
    plan_counts(&pl, counts);
    json_t *out = ctx->json ? cli_plan_json(&p, &pl, VIEW_DIFF) : NULL;
    if (out) json_object_set_new(out, "dry_run", json_boolean(dry_run));
    int rc = 0;
    if (!ctx->json) printf("profile %s (%s)\n", p.name, p.path[0] ? p.path : "-");
    if (counts[PA_WRITE] == 0) {
        if (!ctx->json) {
            print_kept(&pl);
            if (counts[PA_SAME] + counts[PA_KEEP])
                printf("nothing to change: %d knob(s) already as the profile says\n", counts[PA_SAME] + counts[PA_KEEP]);
            else
                printf("nothing to apply: no knob of this profile exists on this machine\n");
        }
        goto done;
    }
    if (plan_knobset(&pl, &ks, &e) < 0) { rc = cli_error(&e); goto done; }
    if (dry_run) {
        if (out) json_object_set_new(out, "result", cli_knobset_json(&ks, NULL, true));
        else { cli_knobset_print(&ks, true); print_kept(&pl); }
        goto done;
    }
    if (sysfs_require_root("sluice apply", &e) < 0) { rc = cli_error(&e); goto done; }
    store *st = cli_store(ctx, &e);
    struct session *s = NULL;
    if (!st || knobset_run_session(st, &ks, boot ? "apply --boot" : "apply", (int)wait_ms, &s, &e) < 0) {
        bool attempted = false;
        for (int i = 0; i < ks.n; i++) attempted = attempted || ks.ch[i].state != CHANGE_PENDING;
        if (attempted && !ctx->json) cli_knobset_print(&ks, false);
        if (e.status == SL_EBUSY && wait_ms > 0)
            fprintf(stderr, "sluice: waited %lld s for the tuning lock; profile %s was not applied\n", wait_ms / 1000, p.name);
        rc = cli_error(&e);
        goto done;
    }
    /* Recorded as kept before saying so (a full disk puts it back). */
    char uuid[9];
    snprintf(uuid, sizeof uuid, "%.8s", s->row.uuid);
    json_t *result = out ? cli_knobset_json(&ks, s, false) : NULL;
    struct restore_report rep = { 0 };
    if (session_end(s, true, &rep, &e) < 0) {
        rc = cli_error(&e);
        json_decref(result);
    } else if (out) {
        json_object_set_new(out, "result", result);
    } else {
        cli_knobset_print(&ks, false);
        print_kept(&pl);
        printf("session %s: kept; 'sluice restore' puts the old values back\n", uuid);
    }
    restore_report_free(&rep);
    if (rc == 0) verify_after(&p, ctx->json, out);
done:
    if (out) cli_print_json(out);
    knobset_free(&ks);
    plan_free(&pl);
    profile_free(&p);
    return rc;
}

CLI_COMMAND_OPTS(cmd_apply, "apply", run_apply, apply_table,
            "apply a profile now as one journaled session, then verify", CLI_WRITES);
