/* cli_ui — `sluice ui` (and `sluice` with no command): the interactive tuner. */
#include "app.h"
#include "cli.h"

static int run_ui(struct cli_ctx *ctx, int argc, char **argv)
{
    if (argc > 1) return cli_usage("ui", "unexpected argument %s", argv[1]);
    sl_err e;
    int rc = app_run(ctx->db_path, &e);
    return rc < 0 ? cli_error(&e) : rc;
}

/* No crash notice on stderr: the Overview screen shows crashed sessions. */
CLI_COMMAND(cmd_ui, "ui", run_ui, "ui",
            "the interactive tuner (also what 'sluice' alone starts); keys: ? inside", CLI_NO_CRASH_CHECK);
