/* cli_verify — what other commands show of live verifications. */
#ifndef SLUICE_CLI_VERIFY_H
#define SLUICE_CLI_VERIFY_H

#include "cli/cli.h"
#include "db/store.h"

/* The stored verifications as a table under a heading (nothing when there
 * are none), for `history` and `sessions`. -1 with e when they cannot be
 * read. */
int cli_verify_print_list(store *st, sl_err *e);


/* Hooks this file sets when it is linked, so that apply and sessions,
 * which sluice-apply (the boot binary) links without the verify engine and
 * its statistics, reach it only in sluice: NULL in sluice-apply.
 * cli_apply_verify_hook: apply --verify-live, the switch verified first;
 * 0 when it held (write it), SL_EFAIL when it did not (said why, nothing
 * changed), another status on error. Defined in cli_apply.c and
 * cli_sessions.c. */
struct profile;
struct profile_switch;
typedef int (*cli_apply_verify_fn)(struct cli_ctx *ctx, store *st, long long duration_ms, const char *dir,
                                   const struct profile *p, const struct profile_switch *sw, json_t *out);
extern cli_apply_verify_fn cli_apply_verify_hook;
extern int (*cli_verify_list_hook)(store *st, sl_err *e);

#endif
