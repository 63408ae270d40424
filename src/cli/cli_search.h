/* cli_search — a search on the terminal, shared by `search` and `tune`:
 * progress on stderr, the report (or --json) on stdout. */
#ifndef SLUICE_CLI_SEARCH_H
#define SLUICE_CLI_SEARCH_H

#include "cli/cli.h"
#include "search/run.h"

/* Run (or resume) a search as `search` does, printing its report; returns
 * the exit status. out->result is filled when out->ok: free it with
 * search_result_free. */
int cli_search_run(struct cli_ctx *ctx, struct search_flow_opts *o, struct search_flow_outcome *out);

#endif
