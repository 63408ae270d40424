/* cli_profile — `profile list|show|diff|verify|save|import-tuned|export`. */
#include "cli/cli_profile.h"
#include "core/esc.h"
#include "core/sysfs.h"

#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_plan_warnings(const struct plan *pl)
{
    for (int i = 0; i < pl->nwarn; i++) fprintf(stderr, "sluice: warning: %s\n", esc_t(pl->warn[i]));
}

int cli_profile_plan(const char *dirs_opt, const char *name, struct profile *p, struct plan *pl, sl_err *e)
{
    struct profile_dirs dirs;
    profile_dirs_init(&dirs, dirs_opt);
    char active[PATH_MAX];
    memset(pl, 0, sizeof *pl);
    if (!name) {
        if (sysfs_path(active, sizeof active, PROFILE_ACTIVE) != 0 || !sysfs_exists(PROFILE_ACTIVE)) {
            memset(p, 0, sizeof *p);
            return sl_fail(e, SL_EUSAGE, "no profile given and none installed (%s is absent): name one, or run 'sluice boot install PROFILE'",
                           active);
        }
        name = active;
    }
    if (profile_load(&dirs, name, p, e) < 0) { profile_free(p); return -1; }
    if (profile_plan(p, pl, e) < 0) {
        cli_plan_warnings(pl);
        plan_free(pl);
        profile_free(p);
        return -1;
    }
    if (!profile_host_matches(p, pl->devs, pl->ndevs, &pl->host)) {
        char rules[PROFILE_MAX_MATCH * (PROFILE_SELECTOR_MAX + 4)] = "";
        for (int i = 0; i < p->nmatch; i++) {
            size_t len = strlen(rules);
            snprintf(rules + len, sizeof rules - len, "%s%s", i ? "; " : "", p->match[i]);
        }
        fprintf(stderr, "sluice: warning: profile %s is meant for \"%s\": nothing on this host matches\n", p->name, esc_t(rules));
    }
    cli_plan_warnings(pl);
    return 0;
}

void plan_counts(const struct plan *pl, int counts[4])
{
    memset(counts, 0, sizeof *counts * 4);
    for (int i = 0; i < pl->n; i++) counts[pl->it[i].action]++;
}

static const char *verdict(const struct plan_item *it, enum plan_view view)
{
    static const char *const diff[] = { [PA_WRITE] = "differs", [PA_SAME] = "same", [PA_KEEP] = "kept", [PA_SKIP] = "skipped" };
    static const char *const verify[] = { [PA_WRITE] = "DRIFT", [PA_SAME] = "ok", [PA_KEEP] = "ok", [PA_SKIP] = "n/a" };
    return view == VIEW_DIFF ? diff[it->action] : verify[it->action];
}

static void item_profile_value(const struct plan_item *it, char *buf, size_t n)
{
    const char *op = it->src->cond == PC_RAISE ? ">" : it->src->cond == PC_LOWER ? "<" : "";
    snprintf(buf, n, "%s%s", op, it->want);
}

static void item_from(const struct plan_item *it, char *buf, size_t n)
{
    const char *base = strrchr(it->src->file, '/');
    snprintf(buf, n, "%s:%d", base ? base + 1 : it->src->file, it->src->line);
}

void cli_plan_print(const struct plan *pl, enum plan_view view)
{
    struct table *t = table_new(5, "KNOB", "PROFILE", "CURRENT", "VERDICT", "FROM");
    for (int i = 0; i < pl->n; i++) {
        const struct plan_item *it = &pl->it[i];
        char want[KNOB_VALUE_MAX + 2], from[PATH_MAX + 16];
        item_profile_value(it, want, sizeof want);
        item_from(it, from, sizeof from);
        table_row(t, it->knob, want, it->current[0] ? it->current : "absent", verdict(it, view), from);
    }
    table_print(t);
    for (int i = 0; i < pl->n; i++)
        if (pl->it[i].note[0] && pl->it[i].action != PA_SKIP) printf("note: %s: %s\n", pl->it[i].knob, pl->it[i].note);
}

json_t *cli_plan_json(const struct profile *p, const struct plan *pl, enum plan_view view)
{
    json_t *o = json_object(), *items = json_array(), *warns = json_array();
    json_object_set_new(o, "profile", json_string(p->name));
    json_object_set_new(o, "path", json_string(p->path));
    json_object_set_new(o, "summary", json_string(p->summary));
    for (int i = 0; i < pl->n; i++) {
        const struct plan_item *it = &pl->it[i];
        char want[KNOB_VALUE_MAX + 2], from[PATH_MAX + 16];
        item_profile_value(it, want, sizeof want);
        snprintf(from, sizeof from, "%s:%d", it->src->file, it->src->line);
        json_t *x = json_object();
        json_object_set_new(x, "knob", json_string(it->knob));
        if (it->dev[0]) json_object_set_new(x, "device", json_string(it->dev));
        json_object_set_new(x, "profile", json_string(want));
        json_object_set_new(x, "current", it->current[0] ? json_string(it->current) : json_null());
        json_object_set_new(x, "verdict", json_string(verdict(it, view)));
        json_object_set_new(x, "action", json_string(plan_action_name(it->action)));
        json_object_set_new(x, "from", json_string(from));
        if (it->note[0]) json_object_set_new(x, "note", json_string(it->note));
        json_array_append_new(items, x);
    }
    for (int i = 0; i < pl->nwarn; i++) json_array_append_new(warns, json_string(pl->warn[i]));
    json_object_set_new(o, "knobs", items);
    json_object_set_new(o, "warnings", warns);
    return o;
}

/* --- subcommands ---------------------------------------------------------- */

#define SUB(field) OPT_AT(struct sub_opts, field)
#define SUB_TEXT(field) OPT_PTR(struct sub_opts, field)
const struct opt cli_profile_dirs_rows[] = {
    { .name = "profiles", .type = OPT_TEXT, .arg = "DIR", .help = "look for profiles in DIR first (colon-separated list)",
      SUB_TEXT(dirs), .complete = COMPLETE_DIR },
    { NULL },
};
static const struct opt profile_rows[] = {
    { .name = "format", .type = OPT_TEXT, .arg = "sysctl|udev|tuned", .help = "export: what to write",
      SUB_TEXT(format), .complete = "sysctl udev tuned" },
    { .name = "as", .type = OPT_TEXT, .arg = "NAME", .def = "the TuneD profile's name", .help = "import-tuned: the new profile's name",
      SUB_TEXT(as) },
    { .name = "summary", .type = OPT_TEXT, .arg = "TEXT", .help = "save: the profile's one-line summary", SUB_TEXT(summary) },
    { .name = "from-search", .type = OPT_TEXT, .arg = "ID", .def = "the settings in force",
      .help = "save: the winner of a stored search", SUB_TEXT(from_search) },
    { .name = "devices", .type = OPT_TEXT, .arg = "GLOB", .def = "every disk", .help = "save: the disks whose queue knobs to keep",
      SUB_TEXT(devices), .complete = COMPLETE_DEVICE },
    { .name = "stdout", .type = OPT_FLAG, .help = "save, import-tuned: print the profile instead of writing it",
      SUB(stdout_only) },
    { .name = "force", .type = OPT_FLAG, .help = "replace what is there", SUB(force) },
    { NULL },
};
#undef SUB
#undef SUB_TEXT

static const struct opt_table profile_table = {
    sizeof(struct sub_opts), NULL, { { cli_profile_dirs_rows, 0 }, { profile_rows, 0 } },
    "list|show|diff|verify|save|import-tuned|export [PROFILE...]", COMPLETE_PROFILE,
};

int cli_profile_opts(struct cli_ctx *ctx, const char *cmd, int argc, char **argv, struct sub_opts *o, int min_args,
                     int max_args)
{
    *o = *(const struct sub_opts *)ctx->opts;
    const char *top = strcmp(cmd, "install") && strcmp(cmd, "status") && strcmp(cmd, "remove") ? "profile" : "boot";
    optind = 1;   /* main took the options out: the arguments start at argv[1] */
    int n = argc - optind;
    if (n < min_args || n > max_args)
        return cli_usage(top, "%s: expected %s", cmd,
                         max_args == 0 ? "no argument" : min_args == max_args ? "one PROFILE" : "PROFILE [OTHER]");
    return 0;
}

static int run_list(struct cli_ctx *ctx, int argc, char **argv)
{
    struct sub_opts o;
    if (cli_profile_opts(ctx, "list", argc, argv, &o, 0, 0)) return SL_EUSAGE;
    struct profile_dirs dirs;
    profile_dirs_init(&dirs, o.dirs);
    struct profile_row *rows;
    sl_err e;
    int n = profile_catalogue(&dirs, &rows, &e);
    if (n < 0) return cli_error(&e);
    json_t *arr = ctx->json ? json_array() : NULL;
    struct table *t = arr ? NULL : table_new(3, "PROFILE", "FOR THIS HOST", "SUMMARY");
    for (int i = 0; i < n; i++) {
        const struct profile_row *r = &rows[i];
        if (arr) {
            json_t *x = json_object();
            json_object_set_new(x, "name", json_string(r->name));
            json_object_set_new(x, "path", json_string(r->path));
            json_object_set_new(x, "fits", json_string(r->fits));
            json_object_set_new(x, r->ok ? "summary" : "error", json_string(r->summary));
            json_array_append_new(arr, x);
        } else {
            table_row(t, r->name, r->fits, r->summary);
        }
    }
    free(rows);
    if (arr) return cli_print_json(arr);
    table_print(t);
    if (n == 0) printf("(no profiles: give --profiles DIR or set SLUICE_PROFILES)\n");
    return 0;
}

static int run_show(struct cli_ctx *ctx, int argc, char **argv)
{
    struct sub_opts o;
    if (cli_profile_opts(ctx, "show", argc, argv, &o, 1, 1)) return SL_EUSAGE;
    struct profile_dirs dirs;
    profile_dirs_init(&dirs, o.dirs);
    struct profile p;
    sl_err e;
    if (profile_load(&dirs, argv[optind], &p, &e) < 0) { profile_free(&p); return cli_error(&e); }
    if (ctx->json) {
        json_t *x = json_object(), *arr = json_array(), *m = json_array();
        json_object_set_new(x, "name", json_string(p.name));
        json_object_set_new(x, "path", json_string(p.path));
        json_object_set_new(x, "summary", json_string(p.summary));
        json_object_set_new(x, "include", json_string(p.include));
        for (int i = 0; i < p.nmatch; i++) json_array_append_new(m, json_string(p.match[i]));
        json_object_set_new(x, "match", m);
        for (int i = 0; i < p.n; i++) {
            const struct prof_entry *en = &p.ent[i];
            char v[KNOB_VALUE_MAX + 2], from[PATH_MAX + 16];
            prof_entry_value_text(en, v, sizeof v);
            snprintf(from, sizeof from, "%s:%d", en->file, en->line);
            json_t *y = json_object();
            json_object_set_new(y, "section", json_string(prof_section_name(en->sec)));
            json_object_set_new(y, "selector", json_string(en->selector));
            char knob[PROFILE_KEY_MAX + 32];
            prof_entry_knob(en, "*", knob, sizeof knob);   /* canonical, as every command names knobs */
            json_object_set_new(y, "knob", json_string(knob));
            json_object_set_new(y, "key", json_string(en->key));
            json_object_set_new(y, "value", json_string(v));
            json_object_set_new(y, "from", json_string(from));
            json_array_append_new(arr, y);
        }
        json_object_set_new(x, "entries", arr);
        profile_free(&p);
        return cli_print_json(x);
    }
    char *text = profile_render(&p, true);
    printf("; %s\n%s", p.path, text);
    free(text);
    profile_free(&p);
    return 0;
}

/* Two profiles side by side, entry by entry, without looking at the machine. */
static int diff_two(struct cli_ctx *ctx, const struct sub_opts *o, const char *a_name, const char *b_name)
{
    struct profile_dirs dirs;
    profile_dirs_init(&dirs, o->dirs);
    struct profile a, b;
    sl_err e;
    if (profile_load(&dirs, a_name, &a, &e) < 0) { profile_free(&a); return cli_error(&e); }
    if (profile_load(&dirs, b_name, &b, &e) < 0) { profile_free(&a); profile_free(&b); return cli_error(&e); }
    json_t *arr = ctx->json ? json_array() : NULL;
    struct table *t = arr ? NULL : table_new(4, "KNOB", a.name, b.name, "VERDICT");
    int differ = 0;
    for (int pass = 0; pass < 2; pass++) {
        const struct profile *x = pass ? &b : &a, *y = pass ? &a : &b;
        for (int i = 0; i < x->n; i++) {
            const struct prof_entry *en = &x->ent[i], *other = NULL;
            for (int j = 0; j < y->n && !other; j++)
                if (y->ent[j].sec == en->sec && !strcmp(y->ent[j].selector, en->selector) && !strcmp(y->ent[j].key, en->key))
                    other = &y->ent[j];
            if (pass && other) continue; /* listed in the first pass */
            /* the canonical name, every disk the entry is for as "*" */
            char knob[PROFILE_SELECTOR_MAX + PROFILE_KEY_MAX + 16], v1[KNOB_VALUE_MAX + 2] = "-", v2[KNOB_VALUE_MAX + 2] = "-";
            prof_entry_knob(en, "*", knob, sizeof knob);
            prof_entry_value_text(en, pass ? v2 : v1, sizeof v1);
            if (other) prof_entry_value_text(other, pass ? v1 : v2, sizeof v1);
            const char *verdict_text = !other ? (pass ? "only in second" : "only in first")
                                              : strcmp(v1, v2) == 0 ? "same" : "differs";
            if (strcmp(verdict_text, "same")) differ++;
            if (arr) {
                json_t *j = json_object();
                json_object_set_new(j, "knob", json_string(knob));
                json_object_set_new(j, "selector", en->selector[0] ? json_string(en->selector) : json_null());
                json_object_set_new(j, "first", strcmp(v1, "-") ? json_string(v1) : json_null());
                json_object_set_new(j, "second", strcmp(v2, "-") ? json_string(v2) : json_null());
                json_object_set_new(j, "verdict", json_string(verdict_text));
                json_array_append_new(arr, j);
            } else {
                char shown[sizeof knob + PROFILE_SELECTOR_MAX + 4];
                snprintf(shown, sizeof shown, en->selector[0] ? "%s [%s]" : "%s", knob, en->selector);
                table_row(t, shown, v1, v2, verdict_text);
            }
        }
    }
    profile_free(&a);
    profile_free(&b);
    if (arr) return cli_print_json(arr);
    table_print(t);
    printf("%d difference(s)\n", differ);
    return 0;
}

static int run_diff_or_verify(struct cli_ctx *ctx, int argc, char **argv, enum plan_view view)
{
    struct sub_opts o;
    const char *cmd = view == VIEW_DIFF ? "diff" : "verify";
    if (cli_profile_opts(ctx, cmd, argc, argv, &o, view == VIEW_DIFF ? 1 : 0, view == VIEW_DIFF ? 2 : 1)) return SL_EUSAGE;
    if (argc - optind == 2) return diff_two(ctx, &o, argv[optind], argv[optind + 1]);
    struct profile p;
    struct plan pl;
    sl_err e;
    if (cli_profile_plan(o.dirs, optind < argc ? argv[optind] : NULL, &p, &pl, &e) < 0) return cli_error(&e);
    int counts[4];
    plan_counts(&pl, counts);
    if (ctx->json) {
        cli_print_json(cli_plan_json(&p, &pl, view));
    } else {
        printf("profile %s (%s)\n", p.name, p.path[0] ? p.path : "-");
        cli_plan_print(&pl, view);
        if (view == VIEW_VERIFY)
            printf("%d ok, %d drift, %d not applicable\n", counts[PA_SAME] + counts[PA_KEEP], counts[PA_WRITE], counts[PA_SKIP]);
        else
            printf("%d would change, %d same, %d kept, %d skipped\n", counts[PA_WRITE], counts[PA_SAME], counts[PA_KEEP],
                   counts[PA_SKIP]);
    }
    plan_free(&pl);
    profile_free(&p);
    return view == VIEW_VERIFY && counts[PA_WRITE] ? SL_EFAIL : 0;
}

static int run_diff(struct cli_ctx *ctx, int argc, char **argv) { return run_diff_or_verify(ctx, argc, argv, VIEW_DIFF); }
static int run_verify(struct cli_ctx *ctx, int argc, char **argv) { return run_diff_or_verify(ctx, argc, argv, VIEW_VERIFY); }

static const struct {
    const char *name;
    int (*run)(struct cli_ctx *, int, char **);
} subcommands[] = {
    { "list", run_list }, { "show", run_show }, { "diff", run_diff }, { "verify", run_verify },
    { "save", cli_profile_save }, { "import-tuned", cli_profile_import_tuned }, { "export", cli_profile_export },
};

static int run_profile(struct cli_ctx *ctx, int argc, char **argv)
{
    if (argc < 2) return cli_usage("profile", "give a subcommand: list, show, diff, verify, save, import-tuned, export");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0) {
            optind = 1;
            return subcommands[i].run(ctx, argc - 1, argv + 1);
        }
    return cli_unknown_subcommand("profile", argv[1], "list show diff verify save import-tuned export");
}

CLI_COMMAND_OPTS(cmd_profile, "profile", run_profile, profile_table,
            "profiles: list, show, compare with this machine or each other, verify, save, convert", 0);
