/* cli_profile_io — placeholder, filled in below. */
#include "cli_profile.h"

int cli_profile_save(struct cli_ctx *ctx, int argc, char **argv) { return cli_usage("profile", "save: not yet"); }
int cli_profile_import_tuned(struct cli_ctx *ctx, int argc, char **argv) { return cli_usage("profile", "import-tuned: not yet"); }
int cli_profile_export(struct cli_ctx *ctx, int argc, char **argv) { return cli_usage("profile", "export: not yet"); }
