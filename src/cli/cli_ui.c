/* cli_ui — `sluice ui` (and `sluice` with no command): the interactive tuner. */
#include "ui/app.h"
#include "cli/cli.h"

static int run_ui(struct cli_ctx *ctx, int argc, char **argv)
{
    if (argc > 1) return cli_usage("ui", "unexpected argument %s", argv[1]);
    if (ctx->json) return cli_usage("ui", "--json: the interactive tuner has no JSON output (every screen's action is a command that has)");
    sl_err e;
    int rc = app_run(ctx->db_path, &e);
    return rc < 0 ? cli_error(&e) : rc;
}

/* No crash notice on stderr: the Overview screen shows crashed sessions. */
static const struct opt_table ui_table = { 0, NULL, { { NULL, 0 } }, NULL, NULL };
CLI_COMMAND_OPTS(cmd_ui, "ui", run_ui, ui_table,
            "the interactive tuner (also what 'sluice' alone starts); keys: ? inside", CLI_NO_CRASH_CHECK);
