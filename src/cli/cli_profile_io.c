/* cli_profile_io — profiles in and out: `profile export` (sysctl.d, udev,
 * TuneD), `profile save` and `profile import-tuned`; the work is done by
 * profile/save.c, which the Profiles screen shares. */
#include "cli/cli_profile.h"
#include "core/esc.h"
#include "profile/save.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *notes_array(const struct notes *nt)
{
    json_t *a = json_array();
    for (int i = 0; i < nt->n; i++) json_array_append_new(a, json_string(nt->v[i]));
    return a;
}

/* --json for a profile written out: what, where (NULL with --stdout: the
 * text instead), and the notes. */
static int print_written_json(const char *key, const struct profile *p, const char *where, const char *text,
                              const struct notes *nt)
{
    json_t *j = json_pack("{s:s, s:i}", key, p->name, "settings", p->n);
    json_object_set_new(j, where ? "path" : "text", json_string(where ? where : text));
    json_object_set_new(j, "notes", notes_array(nt));
    return cli_print_json(j);
}

int cli_profile_export(struct cli_ctx *ctx, int argc, char **argv)
{
    struct sub_opts o;
    if (cli_profile_opts(ctx, "export", argc, argv, &o, 1, 1)) return SL_EUSAGE;
    if (!profile_export_format_valid(o.format)) return cli_usage("profile", "export: give --format sysctl, udev or tuned");
    struct profile p;
    struct plan pl;
    sl_err e;
    if (cli_profile_plan(o.dirs, argv[optind], &p, &pl, &e) < 0) return cli_error(&e);
    struct notes nt = { 0 };
    char *text = profile_export(o.format, &p, &pl, &nt);
    if (ctx->json)
        cli_print_json(json_pack("{s:s, s:s, s:s, s:o}", "profile", p.name, "format", o.format, "text", text, "notes",
                                 notes_array(&nt)));
    else fputs(text, stdout);
    fflush(stdout);
    for (int i = 0; !ctx->json && i < nt.n; i++) fprintf(stderr, "sluice: note: %s\n", esc_t(nt.v[i]));
    free(text);
    notes_free(&nt);
    plan_free(&pl);
    profile_free(&p);
    return 0;
}

int cli_profile_import_tuned(struct cli_ctx *ctx, int argc, char **argv)
{
    struct sub_opts o;
    if (cli_profile_opts(ctx, "import-tuned", argc, argv, &o, 1, 1)) return SL_EUSAGE;
    if (o.as && !profile_name_valid(o.as)) return cli_usage("profile", "import-tuned: --as %s is not a profile name", o.as);
    struct profile p;
    struct notes nt = { 0 };
    sl_err e;
    char comment[PATH_MAX + 128];
    if (profile_import_tuned_as(argv[optind], o.as, &p, &nt, comment, sizeof comment, &e) < 0) {
        profile_free(&p);
        notes_free(&nt);
        return cli_error(&e);
    }
    char *text = profile_file_text(&p, comment, &nt, true);
    int rc = 0;
    char where[PATH_MAX];
    if (o.stdout_only && ctx->json) {
        print_written_json("imported", &p, NULL, text, &nt);
    } else if (o.stdout_only) {
        fputs(text, stdout);
    } else if (profile_write(p.name, text, o.force, where, sizeof where, &e) < 0) {
        rc = cli_error(&e);
    } else if (ctx->json) {
        print_written_json("imported", &p, where, text, &nt);
    } else {
        printf("imported TuneD profile %s as %s: %d setting(s) mapped, %d not\n", p.path, p.name, p.n, nt.n);
        for (int i = 0; i < nt.n; i++) printf("  not mapped: %s\n", nt.v[i]);
        printf("wrote %s; 'sluice profile diff %s' compares it with this machine\n", where, p.name);
    }
    if (o.stdout_only && !ctx->json)
        for (int i = 0; i < nt.n; i++) fprintf(stderr, "sluice: not mapped: %s\n", nt.v[i]);
    free(text);
    notes_free(&nt);
    profile_free(&p);
    return rc;
}

int cli_profile_save(struct cli_ctx *ctx, int argc, char **argv)
{
    struct sub_opts o;
    if (cli_profile_opts(ctx, "save", argc, argv, &o, 1, 1)) return SL_EUSAGE;
    const char *name = argv[optind];
    sl_err e;
    if (profile_name_check(name, &e) < 0) return cli_usage("profile", "save: %s", e.msg);
    struct profile p;
    struct notes nt = { 0 };
    char comment[512];
    if (o.from_search && cli_store_missing(ctx)) {
        sl_fail(&e, SL_EUSAGE, "no search %s: there is no database at %s (nothing is stored yet)", o.from_search,
                ctx->db_path);
        return cli_error(&e);
    }
    if (o.from_search) {
        store *st = cli_store(ctx, &e);
        if (!st || profile_save_search(st, name, o.from_search, &p, &nt, comment, sizeof comment, &e) < 0) {
            if (st) profile_free(&p);
            notes_free(&nt);
            return cli_error(&e);
        }
    } else {
        profile_save_current(name, o.devices, &p, &nt, comment, sizeof comment);
    }
    if (o.summary) snprintf(p.summary, sizeof p.summary, "%s", o.summary);
    char *text = profile_file_text(&p, comment, &nt, false);
    int rc = 0;
    char where[PATH_MAX];
    if (o.stdout_only && ctx->json) print_written_json("saved", &p, NULL, text, &nt);
    else if (o.stdout_only) fputs(text, stdout);
    else if (profile_write(name, text, o.force, where, sizeof where, &e) < 0) rc = cli_error(&e);
    else if (ctx->json) print_written_json("saved", &p, where, text, &nt);
    else printf("saved %d setting(s) as profile %s in %s\n", p.n, name, where);
    for (int i = 0; !ctx->json && i < nt.n; i++) fprintf(stderr, "sluice: note: %s\n", esc_t(nt.v[i]));
    free(text);
    notes_free(&nt);
    profile_free(&p);
    return rc;
}
