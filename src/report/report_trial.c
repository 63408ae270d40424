/* report_trial — one trial of a stored search as a report: its
 * configuration in full (one knob a line), every metric with its unit, and
 * the runs behind it (every trial of the search that measured the same
 * configuration, each naming its run, which a reader can open). Named
 * "SEARCH#SEQ" (report_build). */
#include "report/report_internal.h"
#include "probe/probe.h"
#include "search/objective.h"
#include "search/search.h"
#include "db/store_search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every metric of a trial's stored JSON with its unit, one a line. */
static void add_metrics(struct report *rep, const struct trial_row *t)
{
    report_add(rep, RI_HEAD, "Metrics");
    if (isnan(t->score)) report_add(rep, RI_NOTE, "score: none (the evaluation failed or was left out)");
    else report_add(rep, RI_TEXT, "score %.4g (the objective on a log scale: higher is better)", t->score);
    json_t *m = json_loads(t->metrics_json, 0, NULL);
    int shown = 0;
    for (int k = 0; k < MET_NR; k++) {
        const json_t *v = json_object_get(m, metric_table[k].name);
        if (!json_is_number(v)) continue;
        report_add(rep, RI_TEXT, "%-12s %10.4g %-6s %s", metric_table[k].name, json_number_value(v), metric_table[k].unit,
                   metric_table[k].help);
        shown++;
    }
    /* the stall rule as the search reads the trial today: PSI's flag is
     * shown and kept, also where it was stored as a stall (before e6b2856) */
    struct eval_metrics em;
    bool read = search_metrics_parse(t->metrics_json, &em) == 0;
    if (read && em.stalled)
        report_add(rep, RI_WARN, "STALLED: the canary overslept %.0f ms (the stall rule leaves this run out of decisions)%s",
                   em.stall_ms, em.stall_by & PROBE_STALL_PSI ? "; PSI saw io full for most of the run too" : "");
    else if (read && em.stall_by & PROBE_STALL_PSI)
        report_add(rep, RI_NOTE, "PSI saw io full >= %.0f%% of the run (the workload's own waits count here): shown, kept",
                   PROBE_PSI_FULL_STALL_PCT);
    if (!shown) report_add(rep, RI_NOTE, "no metrics stored for this trial%s", m ? "" : " (its metrics are not readable JSON)");
    json_decref(m);
}

/* The trials of the search that measured this configuration: its runs. */
static void add_runs(struct report *rep, const struct trial_row *all, int n, const struct trial_row *t)
{
    int same = 0;
    for (int i = 0; i < n; i++) same += strcmp(all[i].config_hash, t->config_hash) == 0;
    report_add(rep, RI_HEAD, "Runs behind it (%d of this configuration in the search)", same);
    for (int i = 0; i < n; i++) {
        const struct trial_row *o = &all[i];
        if (strcmp(o->config_hash, t->config_hash) != 0) continue;
        json_t *m = json_loads(o->metrics_json, 0, NULL);
        char tp[32] = "?";
        double mbs = rj_num(m, "throughput", NAN);
        if (!isnan(mbs)) snprintf(tp, sizeof tp, "%.1f MB/s", mbs);
        json_decref(m);
        report_add(rep, o->seq == t->seq ? RI_TEXT : RI_NOTE, "%s#%-3d %-8s %-12s score %-7.4g run %.8s  at %.1f s",
                   o->seq == t->seq ? "> " : "  ", o->seq, o->role, tp, o->score, o->run_uuid[0] ? o->run_uuid : "-",
                   o->elapsed_ms / 1000.0);
        if (o->run_uuid[0]) report_ref(rep, o->run_uuid);
    }
}

int report_trial(struct store *st, const char *search_prefix, int seq, struct report *rep, sl_err *e)
{
    struct search_row s;
    memset(rep, 0, sizeof *rep);
    if (store_search_get(st, search_prefix, &s, e) < 0) return -1;
    struct trial_row *t = NULL;
    int n = store_search_trials(st, s.id, &t, e), at = -1;
    if (n < 0) return -1;
    for (int i = 0; i < n; i++)
        if (t[i].seq == seq) at = i;
    if (at < 0) {
        free(t);
        return sl_fail(e, SL_EUSAGE, "search %s has no trial #%d (it has %d: #0..#%d)", s.uuid, seq, n, n - 1);
    }
    const struct trial_row *tr = &t[at];
    snprintf(rep->title, sizeof rep->title, "Trial #%d of search %.8s: %s", seq, s.uuid, tr->role);
    snprintf(rep->kind, sizeof rep->kind, "trial");
    report_add(rep, RI_HEAD, "Trial #%d (%s) of search %s", seq, tr->role, s.uuid);
    report_add(rep, RI_TEXT, "workload %s, objective %s, space %s, strategy %s", s.workload, s.objective, s.space, s.strategy);
    report_add(rep, RI_TEXT, "configuration %s, measured %.1f s into the search", tr->config_hash[0] ? tr->config_hash : "?",
               tr->elapsed_ms / 1000.0);
    report_add(rep, RI_HEAD, "Configuration");
    int nknobs = 0;
    for (const char *p = tr->config_text; *p;) {   /* "knob=value knob=value": one a line, never cut */
        size_t len = strcspn(p, "\n ");
        if (len) { report_add(rep, RI_TEXT, "%.*s", (int)len, p); nknobs++; }
        p += len + (p[len] != 0);
    }
    if (!nknobs) report_add(rep, RI_NOTE, "no configuration stored for this trial");
    add_metrics(rep, tr);
    add_runs(rep, t, n, tr);
    free(t);
    return 0;
}
