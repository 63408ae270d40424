/* search_view — the Search screen while and after a search runs: the
 * best-so-far chart, every trial as it is measured (newest first), then the
 * verdict, the leaders against the baseline with their intervals, and the
 * Pareto front as a scatter. Reads what the worker published under the
 * lock, or the finished result. */
#include "ui/app.h"
#include "report/chart.h"
#include "search/report.h"
#include "ui/search_screen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHART_ROWS 4

/* The value charts and tables show for a trial: the objective's metric when
 * it is a single one (MB/s, ms), else the score. */
static double shown_value(const struct search_scr *ss, const struct search_trial *t)
{
    int m;
    if (objective_single(&ss->obj, &m) && t->m.has[m]) return t->m.v[m];
    return t->score;
}

static void header(struct search_scr *ss, struct rect r)
{
    bool running = job_running(&ss->job);
    pthread_mutex_lock(&ss->lock);
    char id[9];
    snprintf(id, sizeof id, "%.8s", ss->uuid[0] ? ss->uuid : "--------");
    int x = draw_fmt(r.y, r.x, r.w, ROLE_HEADER, "search %s  ", id);
    x += draw_fmt(r.y, r.x + x, r.w - x, ROLE_NORMAL, "%s (%d knobs) %s %s %s  %d evaluations  ",
                  ss->have_space ? ss->space.name : ss->shown.space, ss->have_space ? ss->space.ndims : 0,
                  ss->shown.workload, ss->shown.objective, ss->shown.strategy, ss->ntrials);
    pthread_mutex_unlock(&ss->lock);
    const char *state = running ? (ss->cancelled ? "cancelling" : "running") : ss->job.rc == 0 ? "done" : ss->cancelled ? "cancelled" : "failed";
    enum role sr = running ? ROLE_WARN : ss->job.rc == 0 ? ROLE_OK : ROLE_ERROR;
    if (running && ss->shown.budget_evals > 0) {
        char bar[128];
        long long done = atomic_load(&ss->job.done);
        chart_bar((double)done / ss->shown.budget_evals, 12, term_glyphs()->utf8, bar, sizeof bar);
        x += draw_text(r.y, r.x + x, 12, ROLE_GRAPH, bar);
        x += draw_text(r.y, r.x + x, 1, ROLE_NORMAL, " ");
    }
    draw_text(r.y, r.x + x, r.w - x, sr, state);
}

static void best_chart(struct search_scr *ss, struct textview *tv, int width)
{
    double best[SEARCH_UI_MAX_TRIALS];
    int n = 0, m;
    bool single = objective_single(&ss->obj, &m);
    bool lower_better = single && metric_table[m].dir < 0;
    double hi = 0;
    for (int i = 0; i < ss->ntrials; i++) {
        double v = shown_value(ss, &ss->trials[i]);
        if (!isnan(v)) best[n++] = v;
    }
    /* running best of the shown values in the objective's direction */
    for (int i = 1; i < n; i++)
        if (lower_better ? best[i] > best[i - 1] : best[i] < best[i - 1]) best[i] = best[i - 1];
    for (int i = 0; i < n; i++) if (best[i] > hi) hi = best[i];
    hi = chart_nice_max(hi);
    char rows[CHART_ROWS][2048];
    chart_lines(best, n, 0, hi, width - 12, CHART_ROWS, term_glyphs()->utf8, &rows[0][0], sizeof rows[0]);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_HEADER, "Best so far%s%s", single ? " " : " (score)", single ? metric_table[m].unit : "");
    for (int i = 0; i < CHART_ROWS; i++) {
        tv_line(tv, false, -1);
        if (i == 0) tv_add(tv, ROLE_DIM, "%9.4g %s", hi, term_glyphs()->vline);
        else if (i == CHART_ROWS - 1) tv_add(tv, ROLE_DIM, "%9s %s", "0", term_glyphs()->vline);
        else tv_add(tv, ROLE_DIM, "%9s %s", "", term_glyphs()->vline);
        tv_add(tv, ROLE_GRAPH, "%s", rows[i]);
    }
}

static void trials_table(struct search_scr *ss, struct textview *tv)
{
    tv_line(tv, false, -1);
    static const char *const heads[] = { "#", "ROLE", "RESULT", "CONFIG (what differs from the baseline)" };
    static const int widths[] = { 4, 9, 14, 0 };
    tv_header(tv, 4, heads, widths);
    for (int i = ss->ntrials - 1; i >= 0; i--) {
        const struct search_trial *t = &ss->trials[i];
        char seq[8], val[64], cfg[1024];
        snprintf(seq, sizeof seq, "%d", t->seq);   /* as stored: "sluice report SEARCH#N" */
        report_metric(&ss->obj, &t->m, t->score, val, sizeof val);
        if (ss->have_space) report_config_diff(&ss->space, &t->cfg, cfg, sizeof cfg);
        else cfg[0] = 0;
        tv_line(tv, true, i);   /* Enter opens the trial */
        tv_cell(tv, ROLE_NORMAL, 4, seq);
        tv_cell(tv, t->role == TRIAL_BASELINE ? ROLE_DIM : ROLE_NORMAL, 9, trial_role_name(t->role));
        tv_cell(tv, ROLE_NORMAL, 14, val);
        tv_add(tv, ROLE_NORMAL, "%s", cfg);
    }
}

struct card_view {
    struct textview *tv;
    int width;
};

/* One line of the verdict card as the screen shows it: the sentence in
 * the verdict's colour, the rest wrapped, the side-effects table as is. */
static void card_line(void *arg, enum verdict_line_kind kind, const char *line)
{
    struct card_view *cv = arg;
    switch (kind) {
    case VL_CLAIM: tv_line(cv->tv, false, -1); tv_wrap(cv->tv, ROLE_OK, "", line, cv->width); break;
    case VL_NO_CLAIM: tv_line(cv->tv, false, -1); tv_wrap(cv->tv, ROLE_WARN, "", line, cv->width); break;
    case VL_TEXT: tv_wrap(cv->tv, ROLE_NORMAL, "", line, cv->width); break;
    case VL_NOTE: tv_wrap(cv->tv, ROLE_WARN, "", line, cv->width); break;
    case VL_TABLE:
        tv_line(cv->tv, false, -1);
        tv_add(cv->tv, line[0] && line[0] != ' ' ? ROLE_HEADER : ROLE_NORMAL, "%s", line);
        break;
    }
}

static void show_verdict(struct search_scr *ss, struct textview *tv, int width)
{
    const struct search_result *r = &ss->out.result;
    const struct verdict_card *v = ss->card;
    if (!v) return;
    char line[4096];
    width--;   /* the last column holds the view's scroll marks */
    struct card_view cv = { tv, width };
    verdict_lines_keys(v, card_line, &cv);
    snprintf(line, sizeof line, "%d evaluations; %s. Baseline: %d runs, sd %.1f%%; smallest change the race can detect %+.1f%%",
             r->nevals, r->stop_reason, r->nbase, 100 * r->base_sd, 100 * r->mde);
    tv_wrap(tv, ROLE_NORMAL, "", line, width);
    tv_line(tv, false, -1);
    tv_cell(tv, ROLE_HEADER, 3, "#");
    tv_cell(tv, ROLE_HEADER, 5, "RUNS");
    tv_cell(tv, ROLE_HEADER, 8, "CHANGE");
    char level[24];
    verdict_level_label(VERDICT_LEVEL, level, sizeof level);
    tv_cell(tv, ROLE_HEADER, 18, level);
    tv_cell(tv, ROLE_HEADER, 8, "P");
    tv_cell(tv, ROLE_HEADER, 14, "VERDICT");
    tv_add(tv, ROLE_HEADER, "CONFIG");
    for (int i = 0; i < v->nrows; i++) {   /* the same rows as `sluice search` prints */
        const struct verdict_row *w = &v->row[i];
        char k[8], runs[8], chg[16], lo[16], hi[16], ci[40], p[16] = "-";
        snprintf(k, sizeof k, "%d", i + 1);
        snprintf(runs, sizeof runs, "%d", w->runs);
        report_pct(w->est, chg, sizeof chg);
        report_pct(w->lo, lo, sizeof lo);
        report_pct(w->hi, hi, sizeof hi);
        snprintf(ci, sizeof ci, "[%s, %s]", lo, hi);
        if (!isnan(w->p)) snprintf(p, sizeof p, "%.2g", w->p);
        enum role vr = strcmp(w->verdict, verdict_name(VERDICT_WIN)) == 0     ? ROLE_OK
                       : strcmp(w->verdict, verdict_name(VERDICT_WORSE)) == 0 ? ROLE_ERROR
                                                                              : ROLE_NORMAL;
        tv_line(tv, false, -1);
        tv_cell(tv, ROLE_NORMAL, 3, k);
        tv_cell(tv, ROLE_NORMAL, 5, runs);
        tv_cell(tv, ROLE_NORMAL, 8, chg);
        tv_cell(tv, ROLE_NORMAL, 18, ci);
        tv_cell(tv, ROLE_NORMAL, 8, p);
        tv_cell(tv, vr, 14, w->verdict);
        tv_add(tv, ROLE_NORMAL, "%s", w->changes);
    }
    if (r->winner >= 0)
        tv_wrap(tv, ROLE_OK, "", "a applies the winner (on trial: K keeps it, R puts the old values back); Esc discards it.",
                width);
}

static void pareto(struct search_scr *ss, struct textview *tv, int width)
{
    const struct search_result *r = &ss->out.result;
    if (r->npareto < 1) return;
    int mx = r->pareto_metric[0], my = r->pareto_metric[1];
    if (mx < 0 || mx >= MET_NR || my < 0 || my >= MET_NR) return;
    double x[SEARCH_MAX_PARETO], y[SEARCH_MAX_PARETO], x1 = 0, y1 = 0;
    for (int i = 0; i < r->npareto; i++) {
        x[i] = r->pareto[i].mean.v[mx];
        y[i] = r->pareto[i].mean.v[my];
        if (x[i] > x1) x1 = x[i];
        if (y[i] > y1) y1 = y[i];
    }
    x1 = chart_nice_max(x1);
    y1 = chart_nice_max(y1);
    tv_line(tv, false, -1);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_HEADER, "Pareto front: %s (across) against %s (up)", metric_table[mx].name, metric_table[my].name);
    char rows[CHART_ROWS][2048];
    int w = width - 12 > 60 ? 60 : width - 12;
    chart_scatter(x, y, r->npareto, 0, x1, 0, y1, w, CHART_ROWS, term_glyphs()->utf8, &rows[0][0], sizeof rows[0]);
    for (int i = 0; i < CHART_ROWS; i++) {
        tv_line(tv, false, -1);
        if (i == 0) tv_add(tv, ROLE_DIM, "%9.4g %s", y1, term_glyphs()->vline);
        else tv_add(tv, ROLE_DIM, "%9s %s", i == CHART_ROWS - 1 ? "0" : "", term_glyphs()->vline);
        tv_add(tv, ROLE_GRAPH, "%s", rows[i]);
    }
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_DIM, "%9s %s0%*s%.4g %s", "", term_glyphs()->bl, w - 8, "", x1, metric_table[mx].unit);
    /* each member with its 95% interval, in the value's own precision (a
     * half-width printed with %g read "+/-2.4e+02" beside 240.8) */
    for (int i = 0; i < r->npareto; i++) {
        const struct pareto_point *p = &r->pareto[i];
        char cfg[1024], hx[48], hy[48];
        report_config_diff(&ss->out.space, &p->cfg, cfg, sizeof cfg);
        if (isnan(p->hi[0]) || isnan(p->lo[0])) snprintf(hx, sizeof hx, "[?]");
        else snprintf(hx, sizeof hx, "[%.4g..%.4g]", p->lo[0], p->hi[0]);
        if (isnan(p->hi[1]) || isnan(p->lo[1])) snprintf(hy, sizeof hy, "[?]");
        else snprintf(hy, sizeof hy, "[%.4g..%.4g]", p->lo[1], p->hi[1]);
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_NORMAL, "%.4g %s %s, %.4g %s %s, %d run%s:", x[i], metric_table[mx].unit, hx, y[i],
               metric_table[my].unit, hy, p->n, p->n == 1 ? "" : "s");
        char lines[6][256];   /* the whole configuration, wrapped: it is what one applies */
        int nl = draw_wrap(cfg, width - 4, lines, 6);
        for (int k = 0; k < nl; k++) {
            tv_line(tv, false, -1);
            tv_add(tv, ROLE_NORMAL, "    %s", lines[k]);
        }
    }
    if (r->pareto_size > r->npareto) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, "  (%d more within noise of these, not listed)", r->pareto_size - r->npareto);
    }
}

void search_view_draw(struct search_scr *ss, struct rect r)
{
    header(ss, r);
    struct textview *tv = &ss->tv;
    tv_clear(tv);
    pthread_mutex_lock(&ss->lock);
    best_chart(ss, tv, r.w);
    if (ss->have_result && !job_running(&ss->job)) {
        show_verdict(ss, tv, r.w);
        pareto(ss, tv, r.w);
    }
    /* what it set out to do, above the trials that do it (under the
     * verdict once there is one: the verdict comes first) */
    for (int i = 0; i < ss->nplan; i++) tv_wrap(tv, ROLE_DIM, i ? "      " : "Plan  ", ss->plan[i], r.w - 1);
    trials_table(ss, tv);
    pthread_mutex_unlock(&ss->lock);
    tv_draw(tv, (struct rect){ r.y + 1, r.x, r.h - 1, r.w });
}
