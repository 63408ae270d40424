/* cli_profile — what the profile, apply and boot commands share: loading a
 * profile from the search path (--profiles DIR) and reporting a plan. */
#ifndef SLUICE_CLI_PROFILE_H
#define SLUICE_CLI_PROFILE_H

#include <stdbool.h>
#include <jansson.h>
#include "cli/cli.h"
#include "profile/boot.h"
#include "profile/profile.h"

/* The profile `boot install` wrote; `apply --boot` and `verify` use it. */
#define PROFILE_ACTIVE BOOT_ACTIVE

/* Load NAME (searched), a path, or with name NULL the active profile, and
 * resolve it against this machine. Warnings go to stderr. On error both are
 * freed and the error is in e. */
int cli_profile_plan(const char *dirs_opt, const char *name, struct profile *p, struct plan *pl, sl_err *e);
/* The plan's warnings on stderr, escaped. */
void cli_plan_warnings(const struct plan *pl);

enum plan_view { VIEW_DIFF, VIEW_VERIFY };
/* KNOB PROFILE CURRENT VERDICT FROM for every item. */
void cli_plan_print(const struct plan *pl, enum plan_view view);
json_t *cli_plan_json(const struct profile *p, const struct plan *pl, enum plan_view view);
/* Counts by action (indexed by enum plan_action). */
void plan_counts(const struct plan *pl, int counts[4]);
/* Options of the profile subcommands. */
struct sub_opts {
    const char *dirs;            /* --profiles DIR */
    const char *format, *as, *summary, *from_search, *devices;
    bool stdout_only, force;
};
/* The options main parsed (ctx->opts starts with a sub_opts) into o, and
 * the argument count checked (argv[0] is the subcommand; optind is set to 1,
 * where its arguments start); SL_EUSAGE after printing usage, else 0. */
int cli_profile_opts(struct cli_ctx *ctx, const char *cmd, int argc, char **argv, struct sub_opts *o, int min_args,
                     int max_args);
/* --profiles DIR, into a struct sub_opts: profile, boot and apply take it. */
extern const struct opt cli_profile_dirs_rows[];

/* Subcommands implemented in their own files. */
int cli_profile_save(struct cli_ctx *ctx, int argc, char **argv);
int cli_profile_import_tuned(struct cli_ctx *ctx, int argc, char **argv);
int cli_profile_export(struct cli_ctx *ctx, int argc, char **argv);

#endif
