/* main — global options, the crashed-session notice, command dispatch. */
#include "cli.h"
#include "probe/scratch.h"
#include "session.h"
#include "sysfs.h"

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
                 "       sluice            (no command: the interactive tuner)\n\ncommands:\n");
    for (int i = 0; i < cli_command_count(); i++) {
        const struct cli_command *c = cli_command_at(i);
        if (!(c->flags & CLI_HIDDEN)) fprintf(out, "  %-44s %s\n", c->synopsis, c->summary);
    }
    fprintf(out, "\noptions:\n"
                 "  --root DIR   read and write kernel files under DIR (also SLUICE_ROOT)\n"
                 "  --db PATH    results database (default /var/lib/sluice/sluice.db as root)\n"
                 "  --json       machine-readable output\n"
                 "  --version, --help\n");
}

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
        fprintf(stderr, "sluice: warning: %s\n", e.msg);
        return;
    }
    struct session_row *rows;
    int n = session_find_crashed(st, &rows, &e);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "sluice: session %.8s (%s, pid %d, started %s) was left open by a sluice that died: its knobs "
                        "are still changed. Run 'sluice restore --crashed' to put them back.\n",
                rows[i].uuid, rows[i].purpose, rows[i].pid, rows[i].started);
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

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "root", required_argument, NULL, 'r' }, { "db", required_argument, NULL, 'd' },
        { "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' }, { NULL, 0, NULL, 0 },
    };
    struct cli_ctx ctx = { 0 };
    const char *root = getenv("SLUICE_ROOT");
    char db_default[PATH_MAX];
    int c;
    while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
        switch (c) {
        case 'r': root = optarg; break;
        case 'd': ctx.db_path = optarg; break;
        case 'j': ctx.json = true; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("sluice %s\n", SLUICE_VERSION); return 0;
        default: usage(stderr); return SL_EUSAGE;
        }
    }
    sl_err e;
    if (sysfs_set_root(root, &e) < 0) return cli_error(&e);
    if (!ctx.db_path) {
        const char *env = getenv("SLUICE_DB");
        if (env && *env) ctx.db_path = env;
        else { store_default_path(db_default, sizeof db_default); ctx.db_path = db_default; }
    }
    const char *name = optind < argc ? argv[optind] : (cli_find("ui") ? "ui" : "show");
    const struct cli_command *cmd = cli_find(name);
    if (!cmd) {
        fprintf(stderr, "sluice: unknown command \"%s\" (see 'sluice --help')\n", name);
        return SL_EUSAGE;
    }
    if (!(cmd->flags & CLI_NO_CRASH_CHECK)) notice_crashed_sessions(&ctx);
    int sub_argc = optind < argc ? argc - optind : 1;
    char *fallback_argv[] = { (char *)name, NULL };
    char **sub_argv = optind < argc ? argv + optind : fallback_argv;
    optind = 1; /* each command parses its own options */
    int rc = cmd->run(&ctx, sub_argc, sub_argv);
    store_close(ctx.st);
    fflush(stdout);
    return rc;
}
