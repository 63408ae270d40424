/* cli_search — the search flow shared by `search` and `tune`. */
#ifndef SLUICE_CLI_SEARCH_H
#define SLUICE_CLI_SEARCH_H

#include "cli.h"
#include "probe/probe.h"
#include "search/search.h"

/* A front end other than the terminal (the UI) following a search: with a
 * watch, cli_search_run prints nothing (the report, progress and errors go
 * to the watch and the outcome), and leaves signal handling to the caller.
 * The callbacks run on the thread that runs the search. */
struct cli_search_watch {
    void *arg;
    /* The search row exists (new or resumed) and the session is open. */
    void (*started)(void *arg, const char *uuid, const struct space *sp);
    /* After each trial, new or replayed. */
    void (*progress)(void *arg, const struct search_trial *t, const struct history *h);
    /* True to stop now, like SIGINT: knobs put back, the search resumable. */
    int (*cancelled)(void *arg);
};

struct cli_search_opts {
    struct search_spec spec;
    struct probe_spec probe;
    char oracle[PATH_MAX];
    bool apply, list;
    char resume[64];
    const struct cli_search_watch *watch;   /* NULL: the terminal */
};

struct cli_search_outcome {
    bool ok, applied;
    char uuid[37];
    struct space space;
    struct search_result result;   /* free with search_result_free */
    sl_err err;                    /* why it failed or stopped (with a watch) */
};

void cli_search_defaults(struct cli_search_opts *o);
/* "40" (evaluations, at least 8) or "90s"/"10m" (wall time); -1 when bad. */
int cli_search_parse_budget(const char *arg, struct search_spec *s);
/* One option of `search` as typed ("--budget") with its text (NULL
 * for a flag) into o, checked as the command line checks it; -1 with a
 * message naming the option. The Search screen's form goes through it. */
int cli_search_set(struct cli_search_opts *o, const char *option, const char *arg, sl_err *e);
/* The options as a whole, after the last one: a known strategy, an
 * objective that parses; the probes run the search's workload. */
int cli_search_check(struct cli_search_opts *o, sl_err *e);
/* Whether --resume takes this stored search: "interrupted" (a cancel or a
 * signal stopped it) or still "running" (what a crash leaves). */
struct search_row;
bool cli_search_resumable(const struct search_row *row);
/* Run (or resume) a search as `search` does, printing its report; returns
 * the exit status. out->result is filled when out->ok. */
int cli_search_run(struct cli_ctx *ctx, struct cli_search_opts *o, struct cli_search_outcome *out);

#endif
