/* report_search — a stored search as a report: what was searched (space,
 * workload, objective, strategy, budget), its verdict with the interval and
 * its basis, every trial with its metrics, and the trials' scores charted
 * in order with the best so far. */
#include "report_internal.h"
#include "probe/probe.h"
#include "search/objective.h"
#include "search/search.h"
#include "search/verdict.h"
#include "store_search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "knob=value\n..." as "knob=value, knob=value". */
static void one_line(const char *text, char *out, size_t n)
{
    size_t o = 0;
    for (const char *p = text; *p && o + 3 < n; p++) {
        if (*p != '\n') { out[o++] = *p; continue; }
        if (p[1]) { out[o++] = ','; out[o++] = ' '; }
    }
    out[o] = 0;
}

static void add_search_header(struct report *rep, const struct search_row *s)
{
    snprintf(rep->title, sizeof rep->title, "Search %.8s: %s for %s, %s", s->uuid, s->workload, s->objective, s->state);
    snprintf(rep->kind, sizeof rep->kind, "search");
    report_add(rep, RI_HEAD, "Search %s", s->uuid);
    report_add(rep, RI_TEXT, "space %s, workload %s, objective %s, strategy %s, evaluator %s", s->space, s->workload,
               s->objective, s->strategy, s->evaluator);
    report_add(rep, RI_TEXT, "budget %lld evaluations, %lld s; seed %lld", (long long)s->budget_evals,
               (long long)(s->budget_ms / 1000), (long long)s->seed);
    report_add(rep, RI_TEXT, "device %s, kernel %s; started %s%s%s", s->device[0] ? s->device : "-",
               s->kernel[0] ? s->kernel : "?", s->started, s->ended[0] ? ", ended " : "", s->ended);
    report_add(rep, RI_TEXT, "state %s%s", s->state, s->applied ? ", the winner was applied" : "");
    if (s->workload_hash[0]) {
        char text[1024];
        one_line(s->workload_text, text, sizeof text);
        report_add(rep, RI_TEXT, "workload %.12s, the same for every configuration: %s", s->workload_hash, text);
    }
    if (s->sizing_note[0]) report_add(rep, s->threshold_capped ? RI_NOTE : RI_TEXT, "sizing: %s", s->sizing_note);
    if (s->workload_hash[0]) {
        char regime[320];
        probe_regime_text(s->workload_text, regime, sizeof regime);
        report_add(rep, RI_TEXT, "regime: %s", regime);
    }
}

/* "90 % interval": the level the decision drew [ci_lo, ci_hi] at, as
 * stored (migration 014); a search stored before that did not keep it, and
 * its level is not guessed. */
static void interval_name(const struct search_row *s, char *buf, size_t n)
{
    if (s->ci_level > 0 && s->ci_level < 1) snprintf(buf, n, "%.3g %% interval", 100 * s->ci_level);
    else snprintf(buf, n, "interval (level unknown: not stored with this search)");
}

/* Whether the confirmation measured a runner-up beside the baseline and
 * the candidate (only when the budget left afforded it, since ff160ae):
 * its confirm trials then hold a third configuration. */
static bool confirmed_runner_up(const struct trial_row *t, int n)
{
    const char *seen[2] = { NULL, NULL };
    for (int i = 0; i < n; i++) {
        if (strcmp(t[i].role, "confirm") != 0) continue;
        int k = 0;
        while (k < 2 && seen[k] && strcmp(seen[k], t[i].config_hash) != 0) k++;
        if (k == 2) return true;
        seen[k] = t[i].config_hash;
    }
    return false;
}

/* A line of the verdict card as a report item: what `sluice search`
 * printed, in the same order. */
static void card_item(void *arg, enum verdict_line_kind kind, const char *line)
{
    struct report *rep = arg;
    switch (kind) {
    case VL_CLAIM: report_add(rep, RI_CLAIM, "verdict: %s", line); break;
    case VL_NO_CLAIM: report_add(rep, RI_NOCLAIM, "verdict: %s", line); break;
    case VL_TEXT: report_add(rep, RI_TEXT, "%s", line); break;
    case VL_NOTE: report_add(rep, RI_WARN, "%s", line); break;
    case VL_TABLE:
        if (line[0]) report_add(rep, RI_PRE, "%s", line);
        break;
    }
}

/* The verdict card stored with the search (searches finished since the
 * card existed); false when there is none. */
static bool add_card(struct report *rep, struct store *st, const struct search_row *s)
{
    sl_err e;
    char *text = store_search_result_json(st, s->id, &e);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    struct verdict_card *v = xmalloc(sizeof *v);
    bool ok = verdict_from_json(json_object_get(j, "verdict_card"), v) == 0;
    json_decref(j);
    if (ok) verdict_lines(v, card_item, rep);
    free(v);
    return ok;
}

static void add_verdict(struct report *rep, struct store *st, const struct search_row *s, const struct trial_row *t, int n)
{
    report_add(rep, RI_HEAD, "Verdict");
    if (!s->verdict[0]) { report_add(rep, RI_NOTE, "no verdict (the search did not finish)"); return; }
    if (add_card(rep, st, s)) {
        if (s->confirm_outcome[0])
            report_add(rep, RI_TEXT, "confirmation: %s on %d fresh interleaved runs each of the baseline%s; exploring "
                       "estimated %+.1f %%, shrinkage %.0f %%", s->confirm_outcome, s->confirm_reps,
                       confirmed_runner_up(t, n) ? ", the candidate and the runner-up" : " and the candidate",
                       100 * s->explore_improvement, 100 * s->shrinkage);
        return;
    }
    /* a search stored before the card: its columns as they were kept */
    report_add(rep, s->verdict[0] == 'w' && strcmp(s->verdict, "win") == 0 ? RI_TEXT : RI_NOTE, "verdict: %s",
               s->verdict);
    if (s->winner_text[0]) report_add(rep, RI_TEXT, "winner: %s", s->winner_text);
    char interval[80];
    interval_name(s, interval, sizeof interval);
    if (s->confirm_outcome[0]) {
        report_add(rep, strcmp(s->confirm_outcome, "confirmed") == 0 ? RI_TEXT : RI_NOTE,
                   "confirmation: %s on %d fresh interleaved runs each of the baseline%s", s->confirm_outcome,
                   s->confirm_reps, confirmed_runner_up(t, n) ? ", the candidate and the runner-up" : " and the candidate");
        report_add(rep, RI_TEXT, "exploring estimated %+.1f %%; confirmed %+.1f %%, %s %+.1f %% .. %+.1f %%, "
                   "p = %.3g; shrinkage %.0f %%", 100 * s->explore_improvement, 100 * s->improvement, interval,
                   100 * s->ci_lo, 100 * s->ci_hi, s->p_holm, 100 * s->shrinkage);
    } else if (!isnan(s->improvement)) {
        report_add(rep, RI_TEXT, "improvement %+.1f %%, %s %+.1f %% .. %+.1f %% (bootstrap of the change "
                   "of means on the log scale, i.e. a ratio of geometric means), Holm-corrected p = %.3g; %d winner "
                   "and %d baseline repetitions", 100 * s->improvement, interval, 100 * s->ci_lo, 100 * s->ci_hi,
                   s->p_holm, s->n_winner, s->n_baseline);
    }
}

static void add_trials(struct report *rep, const char *search_uuid, const struct trial_row *t, int n)
{
    report_add(rep, RI_HEAD, "Trials (%d)", n);
    int nstalled = 0;
    for (int i = 0; i < n; i++) {
        char cfg[2048], metrics[512] = "";
        one_line(t[i].config_text, cfg, sizeof cfg);
        json_t *m = json_loads(t[i].metrics_json, 0, NULL);
        size_t o = 0;
        for (int k = 0; k < MET_NR && o + 64 < sizeof metrics; k++) {
            const json_t *v = json_object_get(m, metric_table[k].name);
            if (json_is_number(v))
                o += (size_t)snprintf(metrics + o, sizeof metrics - o, "%s%s %.4g%s%s", o ? ", " : "",
                                      metric_table[k].name, json_number_value(v), metric_table[k].unit[0] ? " " : "",
                                      metric_table[k].unit);
        }
        json_decref(m);
        /* the stall rule as the search reads a stored trial today: only the
         * canary's oversleep leaves a run out; PSI's flag is shown and kept,
         * also on trials stored when PSI counted as a stall (stalled_ms
         * beside stalled_by "psi") */
        struct eval_metrics em;
        char stall[128] = "", psi[128] = "";
        bool read = search_metrics_parse(t[i].metrics_json, &em) == 0;
        if (read && em.stalled)
            snprintf(stall, sizeof stall, "; STALLED (the canary overslept %.0f ms%s: the stall rule)", em.stall_ms,
                     em.stall_by & PROBE_STALL_PSI ? "; PSI io full for most of the run too" : "");
        else if (read && em.stall_by & PROBE_STALL_PSI)
            snprintf(psi, sizeof psi, "; PSI io full >= %.0f%% of the run (the workload's own waits count here): kept",
                     PROBE_PSI_FULL_STALL_PCT);
        report_add(rep, stall[0] ? RI_WARN : RI_TEXT, "#%d %s: score %.4g; %s%s%s; run %s; %s", t[i].seq, t[i].role,
                   t[i].score, metrics[0] ? metrics : "no metrics", stall, psi, t[i].run_uuid[0] ? t[i].run_uuid : "-", cfg);
        char ref[48];
        snprintf(ref, sizeof ref, "%.36s#%d", search_uuid, t[i].seq);
        report_ref(rep, ref);
        nstalled += stall[0] != 0;
    }
    if (nstalled)
        report_add(rep, RI_NOTE, "%d trial%s flagged by the stall canary: left out of the decisions unless more than half "
                   "of its configuration's runs were flagged (man page: Stalled runs)", nstalled, nstalled == 1 ? "" : "s");
}

static void add_scores_chart(struct report *rep, const struct search_row *s, const struct trial_row *t, int n)
{
    int good = 0;
    for (int i = 0; i < n; i++) good += !isnan(t[i].score);
    struct report_chart *c = report_chart_lines(rep, "trials", "Trial scores in order", good, 2);
    snprintf(c->x_unit, sizeof c->x_unit, "trial");
    snprintf(c->y_unit, sizeof c->y_unit, "log units");
    snprintf(c->series[0].label, sizeof c->series[0].label, "score of %.30s", s->objective);
    snprintf(c->series[1].label, sizeof c->series[1].label, "best so far");
    if (!good) { report_chart_missing(c, "no trial has a score"); return; }
    /* Scores are logs (may be negative): shifted so the lowest sits at 0. */
    double lo = INFINITY;
    for (int i = 0; i < n; i++)
        if (!isnan(t[i].score) && t[i].score < lo) lo = t[i].score;
    double best = -INFINITY;
    for (int i = 0, j = 0; i < n; i++) {
        if (isnan(t[i].score)) continue;
        if (t[i].score > best) best = t[i].score;
        c->x[j] = t[i].seq;
        c->series[0].y[j] = t[i].score - lo;
        c->series[1].y[j++] = best - lo;
    }
    snprintf(c->title, sizeof c->title, "Trial scores in order, above the lowest (%.4g)", lo);
}

int report_search(struct store *st, const char *uuid_prefix, struct report *rep, sl_err *e)
{
    struct search_row s;
    memset(rep, 0, sizeof *rep);
    if (store_search_get(st, uuid_prefix, &s, e) < 0) return -1;
    struct trial_row *t = NULL;
    int n = store_search_trials(st, s.id, &t, e);
    if (n < 0) return -1;
    add_search_header(rep, &s);
    add_verdict(rep, st, &s, t, n);
    add_trials(rep, s.uuid, t, n);
    report_add(rep, RI_HEAD, "Charts");
    add_scores_chart(rep, &s, t, n);
    free(t);
    return 0;
}
