/* cli_knobs — `show` and `set`: the knob catalogue on this machine. */
#include "cli/cli.h"
#include "cli/cli_knobset.h"
#include "core/interrupt.h"
#include "session/knobset.h"
#include "session/session.h"
#include "db/store_session.h"
#include "core/sysfs.h"
#include "core/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static json_t *knob_json(const struct knob *k, const char *value, bool present)
{
    const struct knob_def *d = k->def;
    char range[256];
    knob_range_text(d, range, sizeof range);
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(k->name));
    json_object_set_new(o, "present", json_boolean(present));
    json_object_set_new(o, "value", present ? json_string(value) : json_null());
    json_object_set_new(o, "default", d->def ? json_string(d->def) : json_null());
    json_object_set_new(o, "changed", json_boolean(present && d->def && !knob_values_equal(k, value, d->def)));
    json_object_set_new(o, "type", json_string(knob_type_name(d->type)));
    json_object_set_new(o, "range", json_string(range));
    json_object_set_new(o, "unit", json_string(d->unit));
    json_object_set_new(o, "path", json_string(k->path));
    json_object_set_new(o, "apply_order", json_integer(d->order));
    json_object_set_new(o, "searchable", json_boolean(d->flags & KF_SEARCH));
    json_object_set_new(o, "read_only", json_boolean(d->flags & KF_RO));
    json_object_set_new(o, "destructive", json_boolean(d->flags & KF_DESTRUCTIVE));
    if (d->partner) json_object_set_new(o, "partner", json_string(d->partner));
    json_object_set_new(o, "help", json_string(d->help));
    return o;
}

static bool has_glob(const char *s) { return strpbrk(s, "*?[") != NULL; }

/* Read one knob; an error other than "absent" is returned to the caller. */
static int read_value(const struct knob *k, char *buf, size_t n, bool *present, sl_err *e)
{
    sl_err re;
    if (knob_read(k, buf, n, &re) == 0) { *present = true; return 0; }
    /* Action files (drop_caches, compact_memory) are write-only even for
     * root: listing them must not fail the whole of 'sluice show'. */
    if (re.errnum == EACCES && (k->def->flags & KF_DESTRUCTIVE)) {
        snprintf(buf, n, "write-only");
        *present = true;
        return 0;
    }
    *present = false;
    if (re.errnum == ENOENT) return 0;
    if (e) *e = re;
    return -1;
}

static void print_detail(const struct knob *k, const char *value, bool present)
{
    const struct knob_def *d = k->def;
    char range[256];
    knob_range_text(d, range, sizeof range);
    printf("%s\n  value:   %s%s\n", k->name, present ? value : "absent (this kernel has no ", present ? "" : "such file)");
    printf("  default: %s\n  range:   %s%s%s\n", d->def ? d->def : "set by the hardware", range,
           d->unit[0] ? " " : "", d->unit);
    char flags[64];
    knob_flags_text(d, flags, sizeof flags);
    printf("  path:    %s%s\n  type:    %s, apply order %d%s\n", sysfs_root(), k->path, knob_type_name(d->type),
           d->order, flags);
    if (d->partner) printf("  partner: vm.%s\n", d->partner);
    printf("  %s\n", d->help);
}

static int run_show(struct cli_ctx *ctx, int argc, char **argv)
{
    const char **globs = (const char **)argv + 1;
    int nglobs = argc - 1;
    for (int i = 0; i < nglobs; i++)
        if (globs[i][0] == '-') return cli_usage("show", "unknown option %s", globs[i]);
    sl_err e;
    struct knob *list;
    int n = knob_list(globs, nglobs, &list, &e);
    if (n < 0) return cli_error(&e);
    /* An exact name that the listing does not hold (an iosched tunable of
     * another scheduler, a typo) is looked up to say precisely why. */
    for (int i = 0; i < nglobs; i++) {
        if (has_glob(globs[i])) continue;
        bool listed = false;
        for (int j = 0; j < n && !listed; j++) listed = strcmp(list[j].name, globs[i]) == 0;
        if (listed) continue;
        struct knob k;
        if (knob_lookup(globs[i], NULL, &k, &e) < 0) { free(list); return cli_error(&e); }
        list = xrealloc(list, sizeof *list * (size_t)(n + 1));
        list[n++] = k;
    }
    if (n == 0 && nglobs > 0) {
        free(list);
        fprintf(stderr, "sluice: no knob matches %s (see 'sluice show')\n", globs[0]);
        return SL_EUSAGE;
    }
    json_t *arr = ctx->json ? json_array() : NULL;
    struct table *t = (!ctx->json && !(n == 1 && nglobs == 1 && !has_glob(globs[0])))
                          ? table_new(5, "KNOB", "VALUE", "DEFAULT", "RANGE", "UNIT") : NULL;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char value[KNOB_VALUE_MAX] = "", range[256];
        bool present;
        if (read_value(&list[i], value, sizeof value, &present, &e) < 0) {
            rc = cli_error(&e);
            break;
        }
        const struct knob_def *d = list[i].def;
        if (arr) { json_array_append_new(arr, knob_json(&list[i], value, present)); continue; }
        if (!t) { print_detail(&list[i], value, present); continue; }
        knob_range_text(d, range, sizeof range);
        char shown[KNOB_VALUE_MAX + 2];
        bool changed = present && d->def && !knob_values_equal(&list[i], value, d->def);
        snprintf(shown, sizeof shown, "%s%s", present ? value : "absent", changed ? " *" : "");
        table_row(t, list[i].name, shown, d->def ? d->def : "-", range, d->unit);
    }
    if (t) {
        if (rc == 0) {
            table_print(t);
            printf("(* differs from the kernel default)\n");
        } else {
            table_row(t, "", "", "", "", "");
            free(t); /* not printed: an error was reported */
        }
    }
    if (arr) {
        if (rc == 0) rc = cli_print_json(arr);
        else json_decref(arr);
    }
    free(list);
    return rc;
}

static const struct opt_table show_table = { 0, NULL, { { NULL, 0 } }, "[KNOB|GLOB...]", COMPLETE_KNOB };
CLI_COMMAND_OPTS(cmd_show, "show", run_show, show_table,
            "current value, default, range, unit and help of knobs", 0);

/* --- set ---------------------------------------------------------------- */

json_t *cli_knobset_json(const struct knobset *ks, const struct session *s, bool dry_run)
{
    json_t *o = json_object();
    json_object_set_new(o, "dry_run", json_boolean(dry_run));
    if (s) json_object_set_new(o, "session", json_string(session_row_of(s)->uuid));
    json_t *arr = json_array();
    for (int i = 0; i < ks->n; i++) {
        const struct knob_change *c = &ks->ch[i];
        json_t *x = json_object();
        json_object_set_new(x, "knob", json_string(c->k.name));
        json_object_set_new(x, "before", json_string(c->before));
        json_object_set_new(x, "want", json_string(c->want));
        if (!dry_run) json_object_set_new(x, "after", json_string(c->after));
        json_object_set_new(x, "state", json_string(dry_run ? "planned" : change_state_name(c->state)));
        json_array_append_new(arr, x);
    }
    json_object_set_new(o, "changes", arr);
    json_t *side = json_array();
    for (int i = 0; i < ks->nside; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "knob", json_string(ks->side[i].knob));
        json_object_set_new(x, "before", json_string(ks->side[i].before));
        json_object_set_new(x, "after", json_string(ks->side[i].after));
        json_array_append_new(side, x);
    }
    json_object_set_new(o, "side_effects", side);
    json_t *touched = json_array();
    for (int i = 0; i < ks->ntouched; i++) json_array_append_new(touched, json_string(ks->touched[i].name));
    json_object_set_new(o, "snapshot", touched);
    return o;
}

void cli_knobset_print(const struct knobset *ks, bool dry_run)
{
    struct table *t = table_new(4, "KNOB", "BEFORE", dry_run ? "NEW" : "AFTER", "STATE");
    for (int i = 0; i < ks->n; i++) {
        const struct knob_change *c = &ks->ch[i];
        table_row(t, c->k.name, c->before, dry_run ? c->want : c->after,
                  dry_run ? (knob_values_equal(&c->k, c->before, c->want) ? "unchanged" : "would write")
                          : change_state_name(c->state));
    }
    table_print(t);
    for (int i = 0; i < ks->n; i++)
        if (ks->ch[i].state == CHANGE_ADJUSTED)
            printf("note: %s: asked for %s, the kernel kept %s\n", ks->ch[i].k.name, ks->ch[i].want, ks->ch[i].after);
    for (int i = 0; i < ks->nside; i++)
        printf("note: %s changed too, %s -> %s (a side effect the kernel applies)\n", ks->side[i].knob,
               ks->side[i].before, ks->side[i].after);
    if (dry_run) {
        printf("would snapshot first:");
        for (int i = 0; i < ks->ntouched; i++) printf(" %s", ks->touched[i].name);
        printf("\n(dry run: nothing was written)\n");
    }
}

/* --for: keep the change while the user measures, then put it back. */
static void hold_session(long long ms)
{
    interrupt_trap();
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += ms / 1000;
    end.tv_nsec += (ms % 1000) * 1000000;
    if (end.tv_nsec >= 1000000000) { end.tv_sec++; end.tv_nsec -= 1000000000; }
    while (!interrupt_signal)
        if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == 0) break;
}

struct set_opts {
    bool dry_run;
    long long hold_ms;   /* --for; -1: keep the change */
};

static void set_defaults(void *p) { ((struct set_opts *)p)->hold_ms = -1; }

static const struct opt set_rows[] = {
    { .name = "dry-run", .short_name = 'n', .type = OPT_FLAG,
      .help = "check and print what would change; write nothing",
      OPT_AT(struct set_opts, dry_run) },
    { .name = "for", .type = OPT_DURATION, .arg = "DURATION",
      .help = "keep the change this long (30s, 5m), then put it back",
      OPT_AT(struct set_opts, hold_ms) },
    { NULL },
};
static const struct opt_table set_table = { sizeof(struct set_opts), set_defaults, { { set_rows, 0 } }, "KNOB=VALUE...",
                                           COMPLETE_KNOB };

/* The end of a held session: how many knobs came back, and each that did not. */
static void print_put_back(const struct restore_report *rep)
{
    printf("put back %d knob(s)%s\n", rep->n - rep->failed - rep->left, rep->failed ? ", some failed" : "");
    for (int i = 0; i < rep->n; i++) {
        const struct restore_item *it = &rep->items[i];
        char result[512];
        if (it->status == RESTORE_LEFT_CHANGED || it->status == RESTORE_LEFT_LATER)
            printf("%s: %s\n", it->knob, restore_result_text(it, result, sizeof result));
    }
}

static int run_set(struct cli_ctx *ctx, int argc, char **argv)
{
    const struct set_opts *o = ctx->opts;
    bool dry_run = o->dry_run;
    long long hold_ms = o->hold_ms;
    if (argc < 2) return cli_usage("set", "give at least one KNOB=VALUE");
    struct knobset ks = { 0 };
    sl_err e;
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) rc = knobset_add_assignment(&ks, argv[i], &e);
    if (rc == 0) rc = knobset_prepare(&ks, &e);
    if (rc == 0 && !dry_run) rc = sysfs_require_root("sluice set", &e);
    if (rc < 0) { knobset_free(&ks); return cli_error(&e); }
    if (dry_run) {
        if (ctx->json) cli_print_json(cli_knobset_json(&ks, NULL, true));
        else cli_knobset_print(&ks, true);
        knobset_free(&ks);
        return 0;
    }
    store *st = cli_store(ctx, &e);
    struct session *s = NULL;
    if (!st || knobset_run_session(st, &ks, hold_ms >= 0 ? "set --for" : "set", 0, &s, &e) < 0) {
        bool attempted = false;
        for (int i = 0; i < ks.n; i++) attempted = attempted || ks.ch[i].state != CHANGE_PENDING;
        if (attempted && !ctx->json) cli_knobset_print(&ks, false);
        knobset_free(&ks);
        return cli_error(&e);
    }
    struct restore_report rep = { 0 };
    bool keep = hold_ms < 0;
    /* Kept: recorded as kept before saying so (a full disk puts it back). */
    json_t *out = ctx->json ? cli_knobset_json(&ks, s, false) : NULL;
    char uuid[9];
    snprintf(uuid, sizeof uuid, "%.8s", session_row_of(s)->uuid);
    if (keep && session_end(s, true, &rep, &e) < 0) {
        json_decref(out);
        restore_report_free(&rep);
        knobset_free(&ks);
        return cli_error(&e);
    }
    if (out) cli_print_json(out);
    else {
        cli_knobset_print(&ks, false);
        printf("session %s: %s\n", uuid, keep ? "kept; 'sluice restore' puts the old values back"
                                              : "held open; put back when the time is up or on Ctrl-C");
    }
    fflush(stdout);
    rc = 0;
    if (!keep) {
        hold_session(hold_ms);
        rc = session_end(s, false, &rep, &e);
        if (!ctx->json) print_put_back(&rep);
    }
    restore_report_free(&rep);
    knobset_free(&ks);
    return rc < 0 ? cli_error(&e) : 0;
}

CLI_COMMAND_OPTS(cmd_set, "set", run_set, set_table,
            "journaled, all-or-nothing write with read-back verify", CLI_WRITES);
