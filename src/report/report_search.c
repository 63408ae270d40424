/* report_search — a stored search as a report: what was searched (space,
 * workload, objective, strategy, budget), its verdict with the interval and
 * its basis, every trial with its metrics, and the trials' scores charted
 * in order with the best so far. */
#include "report/report_internal.h"
#include "probe/probe.h"
#include "search/objective.h"
#include "search/search.h"
#include "search/verdict.h"
#include "db/store_search.h"

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
    report_add_card_line(arg, kind, line, RI_WARN, RI_PRE);
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

static const char *role_label(const char *role)
{
    static const char *const names[][2] = { { "baseline", "Baseline" }, { "explore", "Exploring" }, { "race", "Race" },
                                            { "confirm", "Confirmation" } };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i][0], role) == 0) return names[i][1];
    return role;
}

/* The knobs of text ("knob=value" words) that differ from base's, or "(baseline)". */
static void changes_from(const char *text, const char *base, char *out, size_t n)
{
    size_t o = 0;
    out[0] = 0;
    char copy[2048];
    snprintf(copy, sizeof copy, "%s", text);
    for (char *save, *tok = strtok_r(copy, " \n", &save); tok && o + 2 < n; tok = strtok_r(NULL, " \n", &save)) {
        size_t len = strlen(tok);
        bool same = false;
        for (const char *hit = strstr(base, tok); hit && !same; hit = strstr(hit + 1, tok))
            same = (hit == base || hit[-1] == '\n' || hit[-1] == ' ') && (hit[len] == '\n' || hit[len] == ' ' || !hit[len]);
        if (same) continue;
        o += (size_t)snprintf(out + o, n - o, "%s%s", o ? " " : "", tok);
    }
    if (!out[0]) snprintf(out, n, "(baseline)");
}

#define TRIAL_COLS 6
static void add_trials(struct report *rep, const char *search_uuid, const struct trial_row *t, int n)
{
    report_add(rep, RI_HEAD, "Trials (%d)", n);
    int cols[TRIAL_COLS], nc = 0;
    for (int k = 0; k < MET_NR && nc < TRIAL_COLS; k++) {   /* the metrics any trial measured */
        bool any = false;
        for (int i = 0; i < n && !any; i++) {
            json_t *m = json_loads(t[i].metrics_json, 0, NULL);
            const json_t *v = json_object_get(m, metric_table[k].name);
            any = json_is_number(v) && json_number_value(v) != 0;   /* a column of zeros says nothing */
            json_decref(m);
        }
        if (any) cols[nc++] = k;
    }
    const char *base = "";
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].role, "baseline") == 0) { base = t[i].config_text; break; }
    char head[1024];
    size_t o = (size_t)snprintf(head, sizeof head, "#\tRole");
    for (int c = 0; c < nc; c++)
        o += (size_t)snprintf(head + o, sizeof head - o, "\t%s%s%s%s", metric_table[cols[c]].label,
                              metric_table[cols[c]].unit[0] ? " (" : "", metric_table[cols[c]].unit,
                              metric_table[cols[c]].unit[0] ? ")" : "");
    snprintf(head + o, sizeof head - o, "\tStall rule\tKnobs changed from the baseline");
    report_add(rep, RI_ROWHEAD, "%s", head);
    int nstalled = 0;
    for (int i = 0; i < n; i++) {
        char row[3072], cfg[2048], stall[64] = "";
        json_t *m = json_loads(t[i].metrics_json, 0, NULL);
        o = (size_t)snprintf(row, sizeof row, "%d\t%s", t[i].seq, role_label(t[i].role));
        for (int c = 0; c < nc; c++) {
            const json_t *v = json_object_get(m, metric_table[cols[c]].name);
            o += (size_t)(json_is_number(v) ? snprintf(row + o, sizeof row - o, "\t%.4g", json_number_value(v))
                                            : snprintf(row + o, sizeof row - o, "\t-"));
        }
        json_decref(m);
        /* the stall rule as the search reads a stored trial today: only the
         * canary's oversleep leaves a run out; PSI's flag is shown and kept */
        struct eval_metrics em;
        bool read = search_metrics_parse(t[i].metrics_json, &em) == 0;
        if (read && em.stalled) snprintf(stall, sizeof stall, "STALLED %.0f ms: left out", em.stall_ms);
        else if (read && em.stall_by & PROBE_STALL_PSI) snprintf(stall, sizeof stall, "PSI io full: kept");
        changes_from(t[i].config_text, base, cfg, sizeof cfg);
        snprintf(row + o, sizeof row - o, "\t%s\t%s", stall[0] ? stall : "-", cfg);
        report_add(rep, RI_ROW, "%s", row);
        char ref[48];
        snprintf(ref, sizeof ref, "%.36s#%d", search_uuid, t[i].seq);
        report_ref(rep, ref);
        nstalled += stall[0] == 'S';
    }
    if (nstalled)
        report_add(rep, RI_NOTE, "%d trial%s flagged by the stall canary: left out of the decisions unless more than half "
                   "of its configuration's runs were flagged (man page: Stalled runs)", nstalled, nstalled == 1 ? "" : "s");
    report_add(rep, RI_NOTE, "each trial's runs and full configuration: sluice report SEARCH#N (this search's id, the "
               "trial's number)");
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

static double trial_metric(const struct trial_row *t, int k)
{
    json_t *m = json_loads(t->metrics_json, 0, NULL);
    const json_t *v = json_object_get(m, metric_table[k].name);
    double x = json_is_number(v) ? json_number_value(v) : NAN;
    json_decref(m);
    return x;
}

static void axis_name(int k, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s%s", metric_table[k].label, metric_table[k].unit[0] ? " (" : "", metric_table[k].unit,
             metric_table[k].unit[0] ? ")" : "");
}

/* The objective's metric of each trial in order, with the best so far, in
 * its unit (a weighted or constrained objective: the scores). */
static void add_progress_chart(struct report *rep, const struct search_row *s, const struct trial_row *t, int n)
{
    struct objective o;
    int k;
    if (objective_parse(s->objective, &o, NULL) < 0 || !objective_single(&o, &k)) { add_scores_chart(rep, s, t, n); return; }
    int good = 0;
    for (int i = 0; i < n; i++) good += isfinite(trial_metric(&t[i], k));
    char title[128];
    snprintf(title, sizeof title, "%s of each trial, in order, and the best so far", metric_table[k].label);
    struct report_chart *c = report_chart_lines(rep, "trials", title, good, 2);
    snprintf(c->x_unit, sizeof c->x_unit, "trial");
    snprintf(c->y_unit, sizeof c->y_unit, "%s", metric_table[k].unit);
    snprintf(c->series[0].label, sizeof c->series[0].label, "%s of the trial", metric_table[k].label);
    snprintf(c->series[1].label, sizeof c->series[1].label, "best so far");
    if (!good) { report_chart_missing(c, "no trial measured %s", metric_table[k].name); return; }
    double best = NAN;
    for (int i = 0, j = 0; i < n; i++) {
        double v = trial_metric(&t[i], k);
        if (!isfinite(v)) continue;
        if (isnan(best) || (metric_table[k].dir > 0 ? v > best : v < best)) best = v;
        c->x[j] = t[i].seq;
        c->series[0].y[j] = v;
        c->series[1].y[j++] = best;
    }
}

/* Every trial on the Pareto front's two metrics, and the front itself
 * (from the result stored with the search). */
static void add_pareto_chart(struct report *rep, struct store *st, const struct search_row *s, const struct trial_row *t,
                             int n)
{
    sl_err e;
    char *text = store_search_result_json(st, s->id, &e);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    const json_t *pf = json_object_get(j, "pareto"), *ci = json_object_get(json_array_get(pf, 0), "ci");
    int m[2] = { -1, -1 }, nm = 0;
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)ci, key, val)
        for (int k = 0; k < MET_NR && nm < 2; k++)
            if (strcmp(metric_table[k].name, key) == 0) m[nm++] = k;
    struct objective o;
    int first;
    if (nm == 2 && objective_parse(s->objective, &o, NULL) == 0 && objective_single(&o, &first) && m[1] == first) {
        m[1] = m[0];
        m[0] = first;
    }
    if (nm < 2) { json_decref(j); return; }
    int np = (int)json_array_size(pf);
    char title[160];
    snprintf(title, sizeof title, "Pareto front: %s against %s", metric_table[m[1]].label, metric_table[m[0]].label);
    struct report_chart *c = report_chart_lines(rep, "pareto", title, n + np, 2);
    c->points = true;
    axis_name(m[0], c->x_unit, sizeof c->x_unit);
    axis_name(m[1], c->y_unit, sizeof c->y_unit);
    snprintf(c->series[0].label, sizeof c->series[0].label, "every trial");
    snprintf(c->series[1].label, sizeof c->series[1].label, "the front (%d)", np);
    for (int i = 0; i < n; i++) {
        c->x[i] = trial_metric(&t[i], m[0]);
        c->series[0].y[i] = isfinite(c->x[i]) ? trial_metric(&t[i], m[1]) : NAN;
        c->series[1].y[i] = NAN;
    }
    for (int i = 0; i < np; i++) {
        const json_t *mean = json_object_get(json_array_get(pf, (size_t)i), "mean");
        const json_t *x = json_object_get(mean, metric_table[m[0]].name), *y = json_object_get(mean, metric_table[m[1]].name);
        c->x[n + i] = json_is_number(x) ? json_number_value(x) : NAN;
        c->series[0].y[n + i] = NAN;
        c->series[1].y[n + i] = json_is_number(y) && json_is_number(x) ? json_number_value(y) : NAN;
    }
    json_decref(j);
}

int report_search(struct store *st, const char *uuid_prefix, struct report *rep, sl_err *e)
{
    struct search_row s;
    memset(rep, 0, sizeof *rep);
    if (store_search_get(st, uuid_prefix, &s, e) < 0) return -1;
    struct trial_row *t = NULL;
    int n = store_search_trials(st, s.id, &t, e);
    if (n < 0) return -1;
    snprintf(rep->title, sizeof rep->title, "Search %.8s: %s for %s, %s", s.uuid, s.workload, s.objective, s.state);
    snprintf(rep->kind, sizeof rep->kind, "search");
    add_verdict(rep, st, &s, t, n);   /* first: what a reader forwarded this for */
    add_search_header(rep, &s);
    report_add(rep, RI_HEAD, "Charts");
    add_progress_chart(rep, &s, t, n);
    add_pareto_chart(rep, st, &s, t, n);
    add_trials(rep, s.uuid, t, n);
    free(t);
    return 0;
}
