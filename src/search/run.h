/* run — one search as `sluice search`, `sluice tune` and the Search screen
 * run it: inside a tuning session, its trials stored as they happen (so a
 * resume continues after SIGKILL), the verdict stored, the winner applied
 * when asked. Prints nothing: the front end follows it through an observer
 * and renders the outcome. */
#ifndef SLUICE_SEARCH_RUN_H
#define SLUICE_SEARCH_RUN_H

#include <jansson.h>
#include "core/opt.h"
#include "probe/probe.h"
#include "search/burst.h"
#include "search/eval_probe.h"
#include "search/search.h"
#include "db/store.h"

/* What a front end hears while a search runs. Every member may be NULL;
 * the callbacks run on the thread that runs the search. */
struct search_observer {
    void *arg;
    /* The search row exists (new or resumed, nstored trials to replay) and
     * the session is open. */
    void (*started)(void *arg, const char *uuid, const struct space *sp, bool resuming, int nstored);
    /* After each trial, new or replayed. */
    void (*progress)(void *arg, const struct search_trial *t, const struct history *h);
    /* True to stop now, like SIGINT: knobs put back, the search resumable. */
    int (*cancelled)(void *arg);
    /* Something the user should read that does not stop the search (a
     * crashed session put back, a failed clean-up). */
    void (*note)(void *arg, const char *msg);
    /* The budget cannot reach a verdict at the plan's run time (the time
     * it needs: need_ms): true to go on with that much instead (a user at
     * a terminal asked), false (or NULL) to refuse before the search. */
    int (*over_budget)(void *arg, const struct search_plan *p, long long need_ms);
};

struct search_flow_opts {
    struct search_spec spec;
    struct probe_spec probe;
    char oracle[PATH_MAX];
    bool apply, list;
    /* --throttled: the burst twice the largest dirty limit the space can
     * set (the throttled regime), not the calibrated default */
    bool throttled;
    /* a budget the user did not give may grow to this to reach a verdict
     * (search_plan_grow_default); 0: the budget is the user's, refused when
     * it cannot reach one */
    long long budget_grows_to_ms;
    /* the memory that could hold dirty pages when the burst was sized: the
     * limits it cannot tell apart are collapsed with it, alike on resume */
    uint64_t burst_dirtyable;
    char resume[64];
    /* Catch SIGINT/SIGTERM while searching (a command; the UI traps its own). */
    bool trap_signals;
    const struct search_observer *observer;   /* NULL: nobody listens */
};

struct search_flow_outcome {
    bool ok, applied;
    bool interrupted;              /* a cancel or a signal stopped it: resumable */
    bool probe_mode;               /* measured by probes (else the oracle) */
    char uuid[37];
    struct space space;
    struct search_result result;   /* free with search_result_free */
    struct search_workload workload; /* what every evaluation ran (probe mode) */
    struct burst_calibration calibration; /* the run that sized the burst (mb_s 0: none) */
    struct search_plan plan;       /* made before the first evaluation (run_s 0: none) */
    sl_err err;                    /* why it failed or stopped */
};

/* The options of `search`: the spec's rows (search_spec_rows), its own
 * (search_flow_rows: oracle, apply, resume, list, throttled) and the
 * probe's workload rows (probe_workload_rows, into the probe spec). */
extern const struct opt search_flow_rows[];
extern const struct opt_table search_flow_table;

void search_flow_defaults(struct search_flow_opts *o);

/* The quick tune: `sluice tune --quick`, and the tune the UI's Overview
 * proposes (F5), one set of defaults for both. A busy sysadmin's machine
 * is also someone's desktop or database: the quick objective takes no
 * throughput bought with slower reads beside it (the collateral reader,
 * beyond noise); 'throughput' alone takes the trade, and the verdict says
 * what it costs. */
#define SEARCH_QUICK_OBJECTIVE "throughput,reader_p99<=baseline"
/* Where a run is slow (on this project's VM each waited about 14 s for the
 * memory the previous one freed to go back to its host in run 47:
 * probe/settle.h), 5 minutes buy fewer evaluations than a verdict needs;
 * the default budget then grows to what one needs, up to this, and the
 * plan says so. A budget the user gives holds. */
#define SEARCH_QUICK_BUDGET_GROWS_TO_MS (10 * 60 * 1000)
/* search_flow_defaults, then the quick tune's: at most 100 evaluations or
 * 5 minutes, growing to SEARCH_QUICK_BUDGET_GROWS_TO_MS, the quick
 * objective. */
void search_flow_quick_defaults(struct search_flow_opts *o);
/* A budget given to the quick tune ("20", "3m") lowers the bound it names
 * and keeps the other; user_gave: it holds (no growth). -1 with a message
 * naming --budget. */
int search_flow_quick_budget(struct search_flow_opts *o, const char *text, bool user_gave, sl_err *e);
/* After the options: a workload without fixed work (not a buffered
 * writer's burst) measures 3 s after its ramp unless a time was given. */
void search_flow_quick_probe_time(struct search_flow_opts *o);
/* One option of `search` as typed ("--budget") with its text (NULL
 * for a flag) into o, checked as the command line checks it; -1 with a
 * message naming the option. The Search screen's form goes through it. */
int search_flow_set(struct search_flow_opts *o, const char *option, const char *arg, sl_err *e);
/* The options as a whole, after the last one: a known strategy, an
 * objective that parses; the probes run the search's workload. */
int search_flow_check(struct search_flow_opts *o, sl_err *e);
/* Whether this kernel has the space's knobs (and, for a queue space, the
 * disk, named or under --dir), as the search would build it, and a burst
 * given with --size fits the free space under --dir and leaves the space
 * something to compare; nothing is written. -1 with the message the search
 * would refuse with (space_build's: the bdflush space on a kernel without
 * /proc/sys/vm/bdflush: use writeback). */
int search_flow_check_space(const struct search_flow_opts *o, sl_err *e);
/* Whether a resume takes this stored search: "interrupted" (a cancel or a
 * signal stopped it) or still "running" (what a crash leaves). */
struct search_row;
bool search_flow_resumable(const struct search_row *row);
/* Run (or resume, o->resume) a search with the store st. Returns the exit
 * status (0 when it finished and everything after it worked); out->err
 * says why otherwise. out->result is filled even when stopped: free it
 * with search_result_free. */
int search_flow_run(store *st, struct search_flow_opts *o, struct search_flow_outcome *out);
/* Apply configuration c of space sp in a session of its own, kept under
 * purpose ("tune"): what --apply does after an oracle search. -1 with e;
 * the knobs are then as they were. */
int search_flow_apply(store *st, const struct space *sp, const struct search_config *c, const char *purpose, sl_err *e);
/* The report of a finished search as stored and as --json prints it
 * (caller decrefs). */
json_t *search_flow_report_json(const struct search_flow_opts *o, const struct search_flow_outcome *out);

#endif
