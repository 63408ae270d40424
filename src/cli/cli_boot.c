/* cli_boot — `boot install PROFILE | status | remove`: keep a profile across
 * reboots with sysctl.d, udev rules and the sluice-apply.service unit. */
#include "cli/cli_profile.h"
#include "core/esc.h"
#include "profile/boot.h"
#include "profile/boot_journal.h"
#include "profile/save.h"
#include "core/sysfs.h"

#include <stddef.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_notes(const struct notes *nt, const char *prefix)
{
    for (int i = 0; i < nt->n; i++) printf("%s%s\n", prefix, nt->v[i]);
}

static json_t *notes_json(const struct notes *nt)
{
    json_t *a = json_array();
    for (int i = 0; i < nt->n; i++) json_array_append_new(a, json_string(nt->v[i]));
    return a;
}

/* One manifest file for --json: path, what it is for, and (status) its state. */
static json_t *file_json(const char *path, const char *state)
{
    json_t *f = json_object();
    json_object_set_new(f, "path", json_string(path));
    if (state) json_object_set_new(f, "state", json_string(state));
    json_object_set_new(f, "what", json_string(boot_file_what(path)));
    return f;
}

/* Finish or undo an install a kill interrupted, sweep dead processes'
 * temporaries, and say so: what every boot command does before it looks. */
static int settle(sl_err *e)
{
    struct notes nt = { 0 };
    int rc = boot_settle(&nt, e);
    for (int i = 0; i < nt.n; i++) fprintf(stderr, "sluice: note: %s\n", esc_t(nt.v[i]));
    notes_free(&nt);
    return rc;
}

struct boot_opts {
    struct sub_opts s;   /* first: cli_profile_opts reads it */
    const char *exe;
    const char *init;    /* --init: systemd, sysv, rc.local; NULL: what the root has */
};

static int boot_install_cmd(struct cli_ctx *ctx, const struct sub_opts *o, const char *name)
{
    sl_err e;
    if (profile_require_root_etc("sluice boot install", &e) < 0 || settle(&e) < 0) return cli_error(&e);
    struct profile p;
    struct plan pl;
    if (cli_profile_plan(o->dirs, name, &p, &pl, &e) < 0) return cli_error(&e);
    char exe[512];
    if (sysfs_self_exe(exe, sizeof exe) < 0) snprintf(exe, sizeof exe, "/usr/local/sbin/sluice");
    /* The boot path runs sluice-apply when it is installed beside this
     * binary: it applies without the fleet and statistics libraries. */
    char lean[sizeof exe + 16];
    const char *slash = strrchr(exe, '/');
    snprintf(lean, sizeof lean, "%.*ssluice-apply", slash ? (int)(slash - exe + 1) : 0, exe);
    if (access(lean, X_OK) == 0) snprintf(exe, sizeof exe, "%s", lean);
    struct notes nt = { 0 };
    const char *init_opt = ((const struct boot_opts *)ctx->opts)->init;
    enum boot_init init = init_opt ? (enum boot_init)boot_init_parse(init_opt) : boot_init_detect();
    int rc = boot_install_as(&p, &pl, exe, o->force, init, &nt, &e);
    /* Run from a checkout, the boot files name the build tree's binary. */
    bool own_exe = !(init == BOOT_INIT_SYSTEMD && boot_packaged_unit());
    if (rc == 0 && own_exe && strncmp(exe, "/usr/", 5) && strncmp(exe, "/opt/", 5) && strncmp(exe, "/sbin/", 6) &&
        strncmp(exe, "/bin/", 5))
        notes_add(&nt, "what applies the profile at boot runs this sluice, outside /usr and /opt (a build tree?): if it "
                       "moves, nothing is applied at boot. 'make install' or the Debian package puts sluice-apply in "
                       "/usr/sbin; run 'sluice boot install' from there");
    if (rc < 0) {
        rc = cli_error(&e);
    } else {
        struct boot_manifest m;
        boot_manifest_read(&m, NULL);
        if (ctx->json) {
            json_t *files = json_array();
            for (int i = 0; i < m.n; i++) json_array_append_new(files, file_json(m.e[i].path, NULL));
            json_t *j = json_object();
            json_object_set_new(j, "installed", json_string(p.name));
            json_object_set_new(j, "root", json_string(sysfs_root()));
            json_object_set_new(j, "init", json_string(boot_init_name(init)));
            json_object_set_new(j, "files", files);
            json_object_set_new(j, "notes", notes_json(&nt));
            boot_manifest_free(&m);
            notes_free(&nt);
            plan_free(&pl);
            profile_free(&p);
            return cli_print_json(j);
        }
        const char *packaged = init == BOOT_INIT_SYSTEMD ? boot_packaged_unit() : NULL;
        char how[300];
        snprintf(how, sizeof how, "%s%s%s", packaged ? "the packaged unit " : "", packaged ? packaged : "",
                 packaged ? ", enabled" : init == BOOT_INIT_SYSTEMD ? "a systemd unit"
                 : init == BOOT_INIT_SYSV ? "a System V init script" : "a line in rc.local");
        printf("installed profile %s%s%s, applied at boot by %s:\n", p.name, sysfs_is_real_root() ? "" : " under ",
               sysfs_root(), how);
        struct table *t = table_new(2, "  FILE", "WHAT");
        for (int i = 0; i < m.n; i++) {
            char path[300];
            snprintf(path, sizeof path, "  %s", m.e[i].path);
            table_row(t, path, boot_file_what(m.e[i].path));
        }
        table_print(t);
        boot_manifest_free(&m);
        print_notes(&nt, "note: ");
        printf("takes effect at the next boot; 'sluice apply %s' applies it now\n", p.name);
    }
    notes_free(&nt);
    plan_free(&pl);
    profile_free(&p);
    return rc;
}

static int boot_status_cmd(struct cli_ctx *ctx, const struct sub_opts *o)
{
    struct boot_manifest m;
    sl_err e;
    if (settle(&e) < 0) return cli_error(&e);
    int rc = boot_manifest_read(&m, &e);
    if (rc < 0) return cli_error(&e);
    if (rc == 1 && ctx->json) return cli_print_json(json_pack("{s:n}", "installed"));
    if (rc == 1) {
        printf("no profile installed for boot ('sluice boot install PROFILE' installs one)\n");
        return 0;
    }
    int bad = 0;
    json_t *files = json_array();
    struct table *t = ctx->json ? NULL : table_new(3, "  FILE", "STATE", "WHAT");
    for (int i = 0; i < m.n; i++) {
        enum boot_state s = boot_entry_state(&m.e[i]);
        bad += s != BOOT_INTACT;
        char path[300];
        snprintf(path, sizeof path, "  %s", m.e[i].path);
        if (t) table_row(t, path, boot_state_name(s), boot_file_what(m.e[i].path));
        json_array_append_new(files, file_json(m.e[i].path, boot_state_name(s)));
    }
    json_t *j = json_pack("{s:s, s:o}", "installed", m.profile, "files", files);
    if (!ctx->json) {
        printf("boot profile: %s\n", m.profile);
        table_print(t);
    }
    boot_manifest_free(&m);
    struct profile p;
    struct plan pl;
    if (cli_profile_plan(o->dirs, NULL, &p, &pl, &e) < 0) {
        json_decref(j);
        return cli_error(&e);
    }
    struct notes nt = { 0 };
    boot_sysctl_overrides(&pl, &nt);
    int counts[4];
    plan_counts(&pl, counts);
    if (ctx->json) {
        json_object_set_new(j, "warnings", notes_json(&nt));
        json_object_set_new(j, "drift", cli_plan_json(&p, &pl, VIEW_VERIFY));
        cli_print_json(j);
    } else {
        json_decref(j);
        print_notes(&nt, "warning: ");
        printf("drift against the running kernel:\n");
        cli_plan_print(&pl, VIEW_VERIFY);
        printf("%d ok, %d drift, %d not applicable\n", counts[PA_SAME] + counts[PA_KEEP], counts[PA_WRITE], counts[PA_SKIP]);
    }
    notes_free(&nt);
    plan_free(&pl);
    profile_free(&p);
    return bad || counts[PA_WRITE] || nt.n ? SL_EFAIL : 0;
}

static int boot_remove_cmd(struct cli_ctx *ctx, const struct sub_opts *o)
{
    sl_err e;
    if (profile_require_root_etc("sluice boot remove", &e) < 0 || settle(&e) < 0) return cli_error(&e);
    struct boot_manifest m = { 0 };
    enum boot_state states[16];
    bool removed[16];
    struct boot_manifest probe;
    int rc = boot_manifest_read(&probe, &e);
    if (rc == 1 && ctx->json) return cli_print_json(json_pack("{s:n, s:[]}", "removed", "files"));
    if (rc == 1) {
        printf("nothing to remove: no profile is installed for boot\n");
        return 0;
    }
    if (rc < 0) return cli_error(&e);
    if (probe.n > 16) {
        boot_manifest_free(&probe);
        return cli_error(&(sl_err){ .status = SL_EFAIL, .msg = "the boot manifest lists more files than sluice writes: edited by hand?" });
    }
    boot_manifest_free(&probe);
    rc = boot_remove(o->force, &m, states, removed, &e);
    json_t *files = json_array();
    for (int i = 0; i < m.n; i++) {
        const char *what = removed[i] ? (m.e[i].line ? "removed sluice's line from" : "removed")
                           : states[i] == BOOT_MISSING ? "already gone" : "KEPT (edited since install)";
        if (!ctx->json) printf("%s %s\n", what, m.e[i].path);
        json_array_append_new(files, json_pack("{s:s, s:s}", "path", m.e[i].path,
                                               "state", removed[i] ? "removed" : states[i] == BOOT_MISSING ? "gone" : "kept"));
    }
    if (ctx->json && rc == 0) cli_print_json(json_pack("{s:s, s:o}", "removed", m.profile, "files", files));
    else json_decref(files);
    if (rc == 0 && !ctx->json)
        printf("boot profile %s removed; the running kernel keeps its values ('sluice apply defaults' or 'sluice restore' changes them)\n",
               m.profile);
    boot_manifest_free(&m);
    return rc < 0 ? cli_error(&e) : 0;
}


static const struct opt boot_rows[] = {
    { .name = "force", .type = OPT_FLAG, .help = "install: replace files edited since; remove: remove them too",
      OPT_AT(struct boot_opts, s.force) },
    { .name = "exe", .type = OPT_TEXT, .arg = "PATH", .def = "this binary",
      .help = "unit: the sluice binary the unit runs (for packaging)", OPT_PTR(struct boot_opts, exe), .complete = COMPLETE_FILE },
    { .name = "init", .type = OPT_CHOICE, .arg = "SYSTEM", .def = "what the root has",
      .help = "install: apply at boot by a systemd unit, a System V init script or a line in rc.local",
      OPT_PTR(struct boot_opts, init), .complete = "systemd sysv rc.local" },
    { NULL },
};
static const struct opt_table boot_table = { sizeof(struct boot_opts), NULL,
                                             { { cli_profile_dirs_rows, offsetof(struct boot_opts, s) }, { boot_rows, 0 } },
                                             "install PROFILE | status | remove | unit", COMPLETE_PROFILE };

static int run_boot(struct cli_ctx *ctx, int argc, char **argv)
{
    if (argc < 2) return cli_usage("boot", "give a subcommand: install PROFILE, status, remove");
    const char *sub = argv[1];
    struct sub_opts o;
    optind = 1;
    if (strcmp(sub, "install") == 0) {
        if (cli_profile_opts(ctx, "install", argc - 1, argv + 1, &o, 1, 1)) return SL_EUSAGE;
        return boot_install_cmd(ctx, &o, argv[1 + optind]);
    }
    if (strcmp(sub, "status") == 0) {
        if (cli_profile_opts(ctx, "status", argc - 1, argv + 1, &o, 0, 0)) return SL_EUSAGE;
        return boot_status_cmd(ctx, &o);
    }
    if (strcmp(sub, "remove") == 0) {
        if (cli_profile_opts(ctx, "remove", argc - 1, argv + 1, &o, 0, 0)) return SL_EUSAGE;
        return boot_remove_cmd(ctx, &o);
    }
    if (strcmp(sub, "unit") == 0) {
        /* For packaging: `make install` ships the unit this prints. */
        if (argc > 2) return cli_usage("boot", "unit: no argument (--exe PATH names the binary)");
        const char *exe = ((const struct boot_opts *)ctx->opts)->exe;
        char self[512];
        if (!exe && sysfs_self_exe(self, sizeof self) == 0) exe = self;
        if (!exe) return cli_usage("boot", "unit: give --exe PATH");
        sl_err e;
        char *text = boot_unit_text(exe, true, &e);
        if (!text) return cli_error(&e);
        if (ctx->json) cli_print_json(json_pack("{s:s, s:s}", "exe", exe, "unit", text));
        else fputs(text, stdout);
        free(text);
        return 0;
    }
    return cli_unknown_subcommand("boot", sub, "install status remove unit");
}

CLI_COMMAND_OPTS(cmd_boot, "boot", run_boot, boot_table,
            "persist a profile across reboots (sysctl.d, udev rules, sluice-apply.service)", 0);
