/* main — global options, the crashed-session notice, command dispatch. */
#include "cli/cli.h"
#include "core/esc.h"
#include "probe/scratch.h"
#include "session/session.h"
#include "core/suggest.h"
#include "db/store_session.h"
#include "core/sysfs.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLUICE_VERSION "0.1"

static void usage(FILE *out)
{
    fprintf(out, "usage: sluice [--root DIR] [--db PATH] [--json] COMMAND [ARGS]\n"
                 "       sluice            (no command: the interactive tuner)\n"
                 "       sluice help COMMAND, sluice COMMAND --help\n\ncommands:\n");
    for (int i = 0; i < cli_command_count(); i++) {
        const struct cli_command *c = cli_command_at(i);
        if (!(c->flags & CLI_HIDDEN)) fprintf(out, "  %-12s %s\n", c->name, c->summary);
    }
    fprintf(out, "\noptions (before or after the command):\n");
    opt_help(&cli_global_opts, out);
    cli_exit_help(out);
}

/* Every visible command with its options, and the global ones. */
static json_t *commands_json(void)
{
    json_t *cmds = json_array();
    for (int i = 0; i < cli_command_count(); i++)
        if (!(cli_command_at(i)->flags & CLI_HIDDEN)) json_array_append_new(cmds, cli_command_json(cli_command_at(i)));
    return json_pack("{s:s, s:o, s:o}", "version", SLUICE_VERSION, "commands", cmds, "global_options",
                     opt_json(&cli_global_opts));
}

static int run_help(struct cli_ctx *ctx, int argc, char **argv)
{
    if (argc > 2) return cli_usage("help", "give one COMMAND");
    if (argc == 1 && ctx->json) return cli_print_json(commands_json());
    if (argc == 1) {
        usage(stdout);
        return 0;
    }
    const struct cli_command *c = cli_find(argv[1]);
    if (!c) return cli_usage("help", "unknown command \"%s\"", argv[1]);
    if (ctx->json) return cli_print_json(cli_command_json(c));
    cli_command_help(c, stdout);
    return 0;
}

static const struct opt_table help_opts = { 0, NULL, { { NULL, 0 } }, "[COMMAND]", COMPLETE_COMMAND };
CLI_COMMAND_OPTS(cmd_help, "help", run_help, help_opts, "what a command does and its options", CLI_NO_CRASH_CHECK);

/* A session left open by a killed sluice means knobs are still changed:
 * every command says so until it is restored. So does a scratch directory a
 * killed probe left (it holds disk space). */
static void notice_crashed_sessions(struct cli_ctx *ctx)
{
    store *st;
    sl_err e;
    int rc = store_open_existing(ctx->db_path, &st, &e);
    if (rc == 1) return;
    if (rc < 0) {
        /* a bad --db says what to do itself; a step that failed says what it skipped */
        fprintf(stderr, "sluice: warning: %s%s\n", esc_t(e.msg), e.status == SL_EUSAGE ? "" : ". Sessions a killed sluice "
                "left open were not looked for; the command goes on, and the next one looks again");
        return;
    }
    struct session_row *rows;
    int n = session_find_crashed(st, &rows, &e);
    for (int i = 0; i < n; i++) {
        if (rows[i].restoring)
            fprintf(stderr, "sluice: the restore of session %.8s (%s, started %s) by pid %d was killed part-way: some of its "
                            "knobs may still be changed. Run 'sluice restore --crashed' to finish it.\n",
                    rows[i].uuid, rows[i].purpose, rows[i].started, rows[i].pid);
        else
            fprintf(stderr, "sluice: session %.8s (%s, pid %d, started %s) was left open by a sluice that died: its knobs "
                            "are still changed. Run 'sluice restore --crashed' to put them back.\n",
                    rows[i].uuid, rows[i].purpose, rows[i].pid, rows[i].started);
    }
    if (n >= 0) free(rows);
    char first[PATH_MAX];
    int left = probe_scratch_left(st, first, sizeof first);
    if (left == 1)
        fprintf(stderr, "sluice: probe scratch directory %s was left behind by a probe that was killed. Run 'sluice "
                        "restore --crashed' to remove it.\n", first);
    else if (left > 1)
        fprintf(stderr, "sluice: %d probe scratch directories (%s, ...) were left behind by probes that were killed. "
                        "Run 'sluice restore --crashed' to remove them.\n", left, first);
    store_close(st);
}

static int print_version(bool json)
{
    if (json) return cli_print_json(json_pack("{s:s, s:s}", "name", "sluice", "version", SLUICE_VERSION));
    printf("sluice %s\n", SLUICE_VERSION);
    return 0;
}

/* prev ("--name") takes a value in the command's table. */
static bool takes_value(const struct cli_command *c, const char *prev)
{
    const struct opt *o = c->opts ? opt_find(c->opts, prev, NULL) : NULL;
    return o && o->arg;
}

/* Where the command is: the first argument that names one and is not the
 * value of an option before it (a command's valued option may come first:
 * "sluice --workload seqwrite history"); else the first word no option
 * before it can take (an unknown command, to be named); 0 when none. */
static int command_index(int argc, char **argv)
{
    int unknown = 0, skipped = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *prev = argv[i - 1];
        if (strcmp(a, "--") == 0) return i + 1 < argc ? i + 1 : 0;
        if (a[0] == '-' && a[1]) continue;
        bool after_option = i > 1 && strncmp(prev, "--", 2) == 0 && prev[2] && !strchr(prev, '=');
        const struct opt *g = after_option ? opt_find(&cli_global_opts, prev, NULL) : NULL;
        if (g && g->arg) continue;   /* --root DIR */
        if (g) after_option = false; /* --json: a flag */
        const struct cli_command *c = cli_find(a);
        if (c && !(after_option && takes_value(c, prev))) return i;
        if (!after_option && !unknown) unknown = i;
        if (after_option && !skipped) skipped = i;
    }
    return unknown ? unknown : skipped;
}

/* Options before and after the command, in one pass: the command's own (into
 * a struct allocated here, kept for the run) and the global ones. Returns
 * the command's argc with its arguments in args, or -1 after the message. */
static int parse_command_line(const struct cli_command *cmd, int argc, char **argv, int at, struct cli_globals *g,
                              void **opts, char **args)
{
    char **line = xcalloc((size_t)argc + 1, sizeof *line);
    int n = 0;
    line[n++] = (char *)cmd->name;
    for (int i = 1; i < argc; i++)
        if (i != at) line[n++] = argv[i];
    const struct opt_table *t = cmd->opts;
    *opts = t && t->size ? xcalloc(1, t->size) : NULL;
    if (t && t->defaults) t->defaults(*opts);
    sl_err e;
    int nargs = cli_parse_line(t, *opts, g, t == NULL, n, line, args, &e);
    free(line);
    if (nargs < 0) cli_usage(cmd->name, "%s", e.msg);
    return nargs;
}

/* The command line the tuning lock names, so a refused writer is told
 * what holds it. */
static void describe_for_lock(int argc, char **argv)
{
    char line[256] = "sluice";
    size_t len = strlen(line);
    for (int i = 0; i < argc && len < sizeof line; i++) {
        int w = snprintf(line + len, sizeof line - len, " %s", argv[i]);
        if (w < 0) break;
        len += (size_t)w;
    }
    session_lock_describe(line);
}

/* Every return path leaves args, ctx->opts and ctx->st to main, which frees
 * them once (the early usage and error exits leaked them). */
static int run_cli(int argc, char **argv, char **args, struct cli_ctx *ctx)
{
    opterr = 0;   /* commands still on getopt print their own one message */
    struct cli_globals g = { 0 };
    char db_default[PATH_MAX];
    int at = command_index(argc, argv);
    const char *name = at ? argv[at] : NULL;
    int nargs = 1;
    sl_err e;
    if (!name) {
        if (cli_parse_line(NULL, NULL, &g, false, argc, argv, args, &e) < 0) {
            fprintf(stderr, "sluice: %s\n", e.msg);
            usage(stderr);
            cli_json_record(SL_EUSAGE, e.msg, NULL);
            return SL_EUSAGE;
        }
        if (g.help) { usage(stdout); return 0; }
        name = cli_find("ui") ? "ui" : "show";
        args[0] = (char *)name;
    }
    if (g.version) return print_version(g.json);
    const struct cli_command *cmd = cli_find(name);
    if (!cmd) {
        char msg[512];
        struct suggest s;
        suggest_init(&s, name);
        for (int i = 0; i < cli_command_count(); i++)
            if (!(cli_command_at(i)->flags & CLI_HIDDEN)) suggest_offer(&s, cli_command_at(i)->name);
        if (suggest_best(&s)) snprintf(msg, sizeof msg, "unknown command \"%s\". Did you mean %s?", name, suggest_best(&s));
        else snprintf(msg, sizeof msg, "unknown command \"%s\"", name);
        fprintf(stderr, "sluice: %s (see 'sluice --help')\n", esc_t(msg));
        cli_json_record(SL_EUSAGE, msg, suggest_best(&s) ? strstr(msg, "Did you mean ") : "see 'sluice --help' for the commands");
        return SL_EUSAGE;
    }
    if (at && (nargs = parse_command_line(cmd, argc, argv, at, &g, &ctx->opts, args)) < 0) return SL_EUSAGE;
    if (g.version) return print_version(g.json);
    if (g.help) { cli_command_help(cmd, stdout); return 0; }
    ctx->json = g.json;
    ctx->db_path = g.db;
    const char *root = g.root ? g.root : getenv("SLUICE_ROOT");
    if (sysfs_set_root(root, &e) < 0) return cli_error(&e);
    if (!ctx->db_path) {
        const char *env = getenv("SLUICE_DB");
        if (env && *env) ctx->db_path = env;
        else { store_default_path(db_default, sizeof db_default); ctx->db_path = db_default; }
    }
    if (!(cmd->flags & CLI_NO_CRASH_CHECK)) notice_crashed_sessions(ctx);
    describe_for_lock(at ? argc - at : 1, at ? argv + at : (char **)&name);
    optind = 1; /* commands still on getopt parse their own options */
    return cmd->run(ctx, nargs, args);
}

int main(int argc, char **argv)
{
    struct cli_ctx ctx = { 0 };
    cli_json_begin(argc, argv);
    char **args = xcalloc((size_t)argc + 2, sizeof *args);
    int rc = cli_json_finish(run_cli(argc, argv, args, &ctx));
    store_close(ctx.st);
    free(ctx.opts);
    free(args);
    fflush(stdout);
    return rc;
}
