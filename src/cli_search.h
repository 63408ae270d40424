/* cli_search — the search flow shared by `search` and `tune`. */
#ifndef SLUICE_CLI_SEARCH_H
#define SLUICE_CLI_SEARCH_H

#include "cli.h"
#include "probe/probe.h"
#include "search/search.h"

struct cli_search_opts {
    struct search_spec spec;
    struct probe_spec probe;
    char oracle[PATH_MAX];
    bool apply, list;
    char resume[64];
};

struct cli_search_outcome {
    bool ok, applied;
    char uuid[37];
    struct space space;
    struct search_result result;   /* free with search_result_free */
};

void cli_search_defaults(struct cli_search_opts *o);
/* "40" (evaluations, at least 8) or "90s"/"10m" (wall time); -1 when bad. */
int cli_search_parse_budget(const char *arg, struct search_spec *s);
/* Run (or resume) a search as `search` does, printing its report; returns
 * the exit status. out->result is filled when out->ok. */
int cli_search_run(struct cli_ctx *ctx, struct cli_search_opts *o, struct cli_search_outcome *out);

#endif
