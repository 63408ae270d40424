/* report — the search result as text and JSON. */
#include "search/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void report_config_diff(const struct space *sp, const struct search_config *c, char *buf, size_t n)
{
    struct search_config b;
    space_baseline(sp, &b);
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < sp->ndims && len < n; i++) {
        if (c->lv[i] == b.lv[i] || c->lv[i] < 0) continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", len ? " " : "", sp->dim[i].knob, sp->dim[i].level[c->lv[i]]);
    }
    if (!buf[0]) snprintf(buf, n, "(baseline)");
}

void report_pct(double v, char *buf, size_t n)
{
    if (isnan(v)) snprintf(buf, n, "-");
    else snprintf(buf, n, "%+.1f%%", 100 * v);
}

void report_metric(const struct objective *o, const struct eval_metrics *m, double score, char *buf, size_t n)
{
    int k;
    if (objective_single(o, &k) && m->has[k])
        snprintf(buf, n, m->v[k] >= 1000 ? "%.0f%s%s" : "%.4g%s%s", m->v[k], metric_table[k].unit[0] ? " " : "", metric_table[k].unit);
    else snprintf(buf, n, "%.4f", score);
}

void report_verdict_line(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                         char *buf, size_t n)
{
    if (r->winner < 0) {
        bool any_worse = false, all_infeasible = r->nleaders > 0;
        const struct leader *why = NULL;   /* a leader without a verdict, to say why */
        for (int i = 0; i < r->nleaders; i++) {
            any_worse = any_worse || r->leader[i].verdict == VERDICT_WORSE;
            all_infeasible = all_infeasible && r->leader[i].verdict == VERDICT_INFEASIBLE;
            if (!why && r->leader[i].verdict == VERDICT_NONE) why = &r->leader[i];
        }
        if (r->nleaders == 0)
            snprintf(buf, n, "no verdict: the budget ended before any configuration could be compared with the baseline");
        else if (all_infeasible)
            snprintf(buf, n, "no configuration met the constraints of %s: keep the current settings", spec->objective);
        else if (why)
            snprintf(buf, n, "no verdict for every leader (%s); none beat the baseline: keep the current settings", why->dec.why_text);
        else
            snprintf(buf, n, "within noise: no configuration beat the baseline by more than the measurements can tell apart (%s, %s%s); keep the current settings",
                     r->leader[0].dec.estimator, r->leader[0].dec.test, any_worse ? "; some were clearly worse" : "");
        return;
    }
    const struct leader *l = &r->leader[r->winner];
    char cfg[1024], est[32], lo[32], hi[32], look[48] = "";
    report_config_diff(sp, &l->cfg, cfg, sizeof cfg);
    report_pct(l->ci.est, est, sizeof est);
    report_pct(l->ci.lo, lo, sizeof lo);
    report_pct(l->ci.hi, hi, sizeof hi);
    if (l->looks) snprintf(look, sizeof look, ", look %d of %d", l->look, l->looks);
    snprintf(buf, n, "better: %s improves %s by %s [%.0f%% CI %s, %s] (%s, %s, Holm p=%.2g%s), %d vs %d runs", cfg,
             spec->objective, est, 100 * l->ci.level, lo, hi, l->dec.estimator, l->dec.test, l->p_adj, look, l->n,
             r->nbase);
}

static void interval(double lo, double hi, char *buf, size_t n)
{
    if (isnan(lo) || isnan(hi)) snprintf(buf, n, "[?]");
    else snprintf(buf, n, "[%.4g, %.4g]", lo, hi);
}

static void print_pareto(FILE *out, const struct space *sp, const struct search_result *r)
{
    int m0 = r->pareto_metric[0], m1 = r->pareto_metric[1];
    fprintf(out, "\nPareto front (%s vs %s, 95%% intervals; left out only when another configuration is better on both beyond noise):\n",
            metric_table[m0].name, metric_table[m1].name);
    for (int i = 0; i < r->npareto; i++) {
        const struct pareto_point *p = &r->pareto[i];
        char cfg[1024], i0[64], i1[64];
        report_config_diff(sp, &p->cfg, cfg, sizeof cfg);
        interval(p->lo[0], p->hi[0], i0, sizeof i0);
        interval(p->lo[1], p->hi[1], i1, sizeof i1);
        fprintf(out, "  %10.6g %-5s %-20s %10.4g %-5s %-22s %2d runs  %s\n", p->mean.v[m0], metric_table[m0].unit, i0,
                p->mean.v[m1], metric_table[m1].unit, i1, p->n, cfg);
    }
    if (r->pareto_size > r->npareto)
        fprintf(out, "  (%d more within noise of these, not listed)\n", r->pareto_size - r->npareto);
}

void report_print(FILE *out, const struct search_spec *spec, const struct space *sp, const struct search_result *r)
{
    struct objective o;
    objective_parse(spec->objective, &o, NULL);
    char buf[1024], base[64];
    fprintf(out, "%d evaluations; exploring stopped: %s\n", r->nevals, r->stop_reason);
    report_metric(&o, &r->base_mean, r->base_mean_score, base, sizeof base);
    char mde[32];
    report_pct(r->mde, mde, sizeof mde);
    fprintf(out, "baseline: %d runs, %s (sd %.2g%%); smallest change %d runs can detect: %s\n", r->nbase, base,
            100 * r->base_sd, spec->race_reps, mde);
    if (r->nleaders) {
        fprintf(out, "\n%-3s %-4s %-12s %-8s %-20s %-8s %-6s %-12s %s\n", "#", "RUNS", "MEAN", "CHANGE", "95% CI", "P(HOLM)",
                "G", "VERDICT", "CONFIG");
        for (int i = 0; i < r->nleaders; i++) {
            const struct leader *l = &r->leader[i];
            char mean[64], est[32], lo[32], hi[32], ci[80], cfg[1024];
            report_metric(&o, &l->mean, l->mean_score, mean, sizeof mean);
            report_pct(l->ci.est, est, sizeof est);
            report_pct(l->ci.lo, lo, sizeof lo);
            report_pct(l->ci.hi, hi, sizeof hi);
            snprintf(ci, sizeof ci, "[%s, %s]", lo, hi);
            report_config_diff(sp, &l->cfg, cfg, sizeof cfg);
            fprintf(out, "%-3d %-4d %-12s %-8s %-20s %-8.2g %-6.2f %-12s %s\n", i + 1, l->n, mean, est, ci, l->p_adj, l->g,
                    verdict_name(l->verdict), cfg);
        }
    }
    if (r->npareto) print_pareto(out, sp, r);
    report_verdict_line(spec, sp, r, buf, sizeof buf);
    fprintf(out, "\nverdict: %s\n", buf);
    if (r->winner >= 0 && r->winner_note[0]) fprintf(out, "  (%s)\n", r->winner_note);
}

static json_t *metrics_obj(const struct eval_metrics *m)
{
    json_t *o = json_object();
    for (int k = 0; k < MET_NR; k++)
        if (m->has[k]) json_object_set_new(o, metric_table[k].name, json_real(m->v[k]));
    return o;
}

static json_t *num_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

json_t *report_json(const struct search_spec *spec, const struct space *sp, const struct search_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "space", json_string(sp->name));
    json_object_set_new(o, "workload", json_string(spec->workload));
    json_object_set_new(o, "objective", json_string(spec->objective));
    json_object_set_new(o, "strategy", json_string(spec->strategy));
    json_object_set_new(o, "evaluations", json_integer(r->nevals));
    json_object_set_new(o, "stop_reason", json_string(r->stop_reason));
    json_t *b = json_object();
    json_object_set_new(b, "runs", json_integer(r->nbase));
    json_object_set_new(b, "mean", metrics_obj(&r->base_mean));
    json_object_set_new(b, "score_sd", num_or_null(r->base_sd));
    json_object_set_new(b, "mde", num_or_null(r->mde));
    json_object_set_new(o, "baseline", b);
    json_t *ls = json_array();
    for (int i = 0; i < r->nleaders; i++) {
        const struct leader *l = &r->leader[i];
        char text[2048], diff[1024];
        space_config_text(sp, &l->cfg, text, sizeof text);
        report_config_diff(sp, &l->cfg, diff, sizeof diff);
        json_t *x = json_object();
        json_object_set_new(x, "config", json_string(text));
        json_object_set_new(x, "changes", json_string(diff));
        json_object_set_new(x, "runs", json_integer(l->n));
        json_object_set_new(x, "mean", metrics_obj(&l->mean));
        json_object_set_new(x, "improvement", num_or_null(l->ci.est));
        json_object_set_new(x, "ci", json_pack("[oo]", num_or_null(l->ci.lo), num_or_null(l->ci.hi)));
        json_object_set_new(x, "p_welch", num_or_null(l->p_welch));
        json_object_set_new(x, "p_mann_whitney", num_or_null(l->p_mw));
        json_object_set_new(x, "p_holm", num_or_null(l->p_adj));
        json_object_set_new(x, "hedges_g", num_or_null(l->g));
        json_object_set_new(x, "verdict", json_string(verdict_name(l->verdict)));
        json_object_set_new(x, "decision", decide_json(&l->dec));
        json_object_set_new(x, "look", json_integer(l->look));
        json_object_set_new(x, "looks", json_integer(l->looks));
        json_array_append_new(ls, x);
    }
    json_object_set_new(o, "leaders", ls);
    json_object_set_new(o, "winner", r->winner >= 0 ? json_integer(r->winner) : json_null());
    char line[1024];
    report_verdict_line(spec, sp, r, line, sizeof line);
    json_object_set_new(o, "verdict", json_string(line));
    json_t *pf = json_array();
    for (int i = 0; i < r->npareto; i++) {
        char diff[1024];
        report_config_diff(sp, &r->pareto[i].cfg, diff, sizeof diff);
        json_t *x = json_object();
        json_object_set_new(x, "changes", json_string(diff));
        json_object_set_new(x, "runs", json_integer(r->pareto[i].n));
        json_object_set_new(x, "mean", metrics_obj(&r->pareto[i].mean));
        json_t *ci = json_object();
        for (int k = 0; k < 2; k++)
            json_object_set_new(ci, metric_table[r->pareto_metric[k]].name,
                                json_pack("[oo]", num_or_null(r->pareto[i].lo[k]), num_or_null(r->pareto[i].hi[k])));
        json_object_set_new(x, "ci", ci);
        json_array_append_new(pf, x);
    }
    json_object_set_new(o, "pareto", pf);
    json_object_set_new(o, "pareto_size", json_integer(r->pareto_size));
    return o;
}
