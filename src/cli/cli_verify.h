/* cli_verify — what other commands show of live verifications. */
#ifndef SLUICE_CLI_VERIFY_H
#define SLUICE_CLI_VERIFY_H

#include "cli.h"
#include "store.h"

/* The stored verifications as a table under a heading (nothing when there
 * are none), for `history` and `sessions`. -1 with e when they cannot be
 * read. */
int cli_verify_print_list(store *st, sl_err *e);

/* Run a prepared live verification of ks as `verify --live` does: the
 * plan, a line per block and the verdict on stdout, or with --json its
 * whole record into *json_out (a new reference; may be NULL). Returns as
 * verify_live; r->end and r->verdict say how it ended. */
struct verify_run;
struct knobset;
int cli_verify_run(struct cli_ctx *ctx, store *st, struct verify_run *r, const struct knobset *ks, json_t **json_out,
                   sl_err *e);

#endif
