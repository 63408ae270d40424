/* report — the search result as text and JSON. */
#include "search/report.h"
#include "core/units.h"
#include "probe/probe.h"
#include "search/burst.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

void report_plan_lines(const struct search_plan *p, void (*line)(void *arg, const char *text), void *arg)
{
    char text[1024], total[32], before[64] = "";
    units_format_duration_ms((long long)(p->total_s * 1000), total, sizeof total);
    /* the quick tune's 5 minutes came after 30-40 s of timing its burst on
     * this project's VM: the command took 5m30s-5m39s (transfer-as-user-83,
     * 84-nodir.out) where the plan said "about 5m in all" */
    if (p->before_s >= 1) snprintf(before, sizeof before, ", after the %.0f s timing the burst took", p->before_s);
    snprintf(text, sizeof text, "%d evaluations of about %.1f s (%d exploring, %d fresh runs each of the baseline and the "
             "winner to confirm%s), about %s in all%s; at a run-to-run spread of %.0f%% (assumed until runs are measured) "
             "the confirmation detects a change of %+.0f%% or more", p->evals, p->run_s, p->explore, p->confirm_reps,
             p->paired ? ", paired by round if its rounds share the disk's spells" : "", total, before,
             100 * p->noise_sd, p->mde_pct);
    line(arg, text);
    if (p->grown_from_ms > 0) {
        char from[32], grown[32];
        units_format_clock_ms(p->grown_from_ms, from, sizeof from);
        units_format_clock_ms((long long)(p->total_s * 1000), grown, sizeof grown);
        snprintf(text, sizeof text, "the default budget of %s buys %d evaluations at this run time and a verdict needs "
                 "%d, so the budget is %s (--budget %s holds it to %s, and refuses)", from, p->grown_from_evals,
                 p->verdict_evals, grown, from, from);
        line(arg, text);
    }
    if (p->run_s > 2 * BURST_TARGET_S) {
        snprintf(text, sizeof text, "a run takes %.0f s: a smaller --size makes the tune quicker (about %.0f s a run is "
                 "the default)", p->run_s, BURST_TARGET_S);
        line(arg, text);
    }
}

void report_metric(const struct objective *o, const struct eval_metrics *m, double score, char *buf, size_t n)
{
    int k;
    if (objective_single(o, &k) && m->has[k])
        snprintf(buf, n, m->v[k] >= 1000 ? "%.0f%s%s" : "%.4g%s%s", m->v[k], metric_table[k].unit[0] ? " " : "", metric_table[k].unit);
    else snprintf(buf, n, "%.4f", score);
}

/* A win the objective's guard refused: what it would have gained and what
 * it costs, and how to take it anyway. */
static void refused_line(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                         const char *goal, char *buf, size_t n)
{
    const struct leader *l = &r->leader[r->effects.leader];
    char cfg[1024], est[32], lo[32], hi[32];
    struct decision d;
    struct ci ci = l->ci;
    if (verdict_leader_decision(spec, sp, r, r->effects.leader, &d))
        ci = (struct ci){ .est = d.effect_pct / 100, .lo = d.lo_pct / 100, .hi = d.hi_pct / 100, .level = d.level };
    report_config_diff(sp, &l->cfg, cfg, sizeof cfg);
    report_pct(ci.est, est, sizeof est);
    report_pct(ci.lo, lo, sizeof lo);
    report_pct(ci.hi, hi, sizeof hi);
    const struct decision *g = &l->guard.dec;
    const char *name = metric_table[l->guard.metric].name;
    char fresh[64] = "";
    if (r->confirm.candidate == r->effects.leader && r->confirm.outcome == CONFIRM_CONFIRMED)
        snprintf(fresh, sizeof fresh, " on %d fresh runs each", r->confirm.reps);
    snprintf(buf, n, "not recommended: %s improves %s by %s [%.0f%% CI %s, %s] but makes %s worse by %+.1f%% [%.0f%% CI "
                     "%+.1f%%, %+.1f%%] (%s p=%.2g)%s, and the objective %s protects it: keep the current settings, or "
                     "give --objective %s to take the trade",
             cfg, goal, est, 100 * ci.level, lo, hi, name, g->effect_pct, 100 * g->level, g->lo_pct, g->hi_pct, g->test,
             g->p, fresh, spec->objective, goal);
}

void report_trades(const struct search_spec *spec, const struct search_result *r, char *buf, size_t n)
{
    buf[0] = 0;
    if (r->winner < 0 || r->effects.leader != r->winner) return;
    struct objective o;
    objective_parse(spec->objective, &o, NULL);
    char goal[160];
    objective_goal_text(&o, goal, sizeof goal);
    size_t len = 0;
    for (int i = 0; i < r->effects.n && len < n; i++) {
        const struct collateral_effect *x = &r->effects.row[i];
        if (x->dec.verdict != DECIDE_WORSE) continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%s %+.1f%% [%.0f%% CI %+.1f%%, %+.1f%%]", len ? ", " : "trades ",
                                metric_table[x->metric].name, x->dec.effect_pct, 100 * x->dec.level, x->dec.lo_pct,
                                x->dec.hi_pct);
    }
    char guards[160] = "";
    size_t gl = 0;
    for (int i = 0; i < o.ncons && gl < sizeof guards; i++)
        if (o.cons[i].vs_base)
            gl += (size_t)snprintf(guards + gl, sizeof guards - gl, "%s%s", gl ? ", " : "", metric_table[o.cons[i].metric].name);
    if (len && len < n && guards[0])
        snprintf(buf + len, n - len, " (worse beyond noise) for %s: the objective guards only %s", goal, guards);
    else if (len && len < n)
        snprintf(buf + len, n - len, " (worse beyond noise) for %s: the objective %s protects none of them (add "
                                     "',reader_p99<=baseline' to refuse such a trade)", goal, spec->objective);
}

/* A claim that did not hold on fresh runs: what exploring said and what
 * the confirmation measured. */
static void unconfirmed_line(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                             char *buf, size_t n)
{
    const struct confirmation *cf = &r->confirm;
    const struct leader *l = &r->leader[cf->candidate];
    char cfg[1024], est[32], dec[256];
    report_config_diff(sp, &l->cfg, cfg, sizeof cfg);
    report_pct(cf->explore_est, est, sizeof est);
    struct decision cd = cf->dec;
    verdict_claim_decision(spec, sp, r, &cd);   /* its interval at the level every verdict shows */
    decide_text(&cd, dec, sizeof dec);
    struct objective o;
    char goal[160];
    objective_parse(spec->objective, &o, NULL);
    objective_goal_text(&o, goal, sizeof goal);
    /* with two looks each tests at its share of alpha: a p under alpha but
     * over that share (run 54's null search: p=0.044 at look 2 of 2, where
     * a win needed p < 0.025) reads as a contradiction unless it is said */
    char look[160] = "";
    if (cf->looks > 1 && cd.verdict != DECIDE_NO_VERDICT)
        snprintf(look, sizeof look, " at look %d of %d, where a win needed p < %.2g (alpha %.2g shared by %d looks)",
                 cf->look, cf->looks, cf->dec.alpha, spec->alpha, cf->looks);
    snprintf(buf, n, "%s: exploring estimated %s at %s on %s, but %d fresh interleaved runs each measured %s%s; no win: "
             "keep the current settings",
             cf->outcome == CONFIRM_CONTRADICTED ? "confirmation contradicts exploration" : "not confirmed", cfg, est,
             goal, cf->reps, dec, look);
}

/* What the stall rule did, "" when neither the canary nor PSI flagged a
 * run. The canary's flags leave runs out; PSI's are shown and kept. */
static void stall_note(const struct search_result *r, char *buf, size_t n)
{
    buf[0] = 0;
    int by_psi = 0;
    for (int t = 0; t < r->ntrials; t++) by_psi += (r->trials[t].m.stall_by & PROBE_STALL_PSI) != 0;
    if (!r->stalled_runs && !by_psi) return;
    int out = r->base_stalled_out, kept = r->base_stalled_kept;
    for (int i = 0; i < r->nleaders; i++) {
        out += r->leader[i].stalled_out;
        kept += r->leader[i].stalled_kept;
    }
    char psi[160] = "";
    if (by_psi)
        snprintf(psi, sizeof psi, "%sPSI saw io full >= %.0f%% of the run in %d run%s: shown, kept (io full counts the "
                 "workload's own waits)", r->stalled_runs ? "; " : "", PROBE_PSI_FULL_STALL_PCT, by_psi, by_psi == 1 ? "" : "s");
    size_t len;
    if (r->stalled_runs)
        len = (size_t)snprintf(buf, n, "stall rule: the canary flagged %d run%s (overslept >= 100 ms); %d of the baseline's "
                               "and leaders' left out of the decision (baseline %d), %d kept as their configuration's own%s",
                               r->stalled_runs, r->stalled_runs == 1 ? "" : "s", out, r->base_stalled_out, kept, psi);
    else
        len = (size_t)snprintf(buf, n, "stall rule: %s", psi);
    const struct confirmation *cf = &r->confirm;
    if (len < n && (cf->stalled_out || cf->stalled_kept))
        snprintf(buf + len, n - len, "; confirmation: %d left out and measured again, %d kept", cf->stalled_out,
                 cf->stalled_kept);
}

/* Runs whose objective came out NaN or infinite (failed runs), "" when
 * none: left out of every decision, and the verdict says so. */
static void failed_note(const struct search_result *r, char *buf, size_t n)
{
    int bad = 0;
    for (int t = 0; t < r->ntrials; t++) bad += !isfinite(r->trials[t].score);
    buf[0] = 0;
    if (bad)
        snprintf(buf, n, "%d run%s gave a NaN or infinite objective (a failed run?): left out of every decision and "
                 "measured again", bad, bad == 1 ? "" : "s");
}

/* "; one-sided 95%: at least +0.8%" when a claim (claim: the decision at
 * the look's alpha, its interval at 1 - 2 alpha) stands on its one-sided
 * test while the interval shown beside it (shown: at VERDICT_LEVEL,
 * two-sided) reaches 0 or below, as it does when p falls between half of
 * alpha and alpha: the bound the claim rests on. "" otherwise. A quick
 * tune from the Search screen said "better ... +7.2% [95% CI -0.7%,
 * +10.4%] (... one-sided p=0.031)" and nothing else. */
static void claim_bound(const struct decision *shown, const struct decision *claim, char *buf, size_t n)
{
    buf[0] = 0;
    if (claim->verdict != DECIDE_BETTER || !(shown->lo_pct <= 0) || !(claim->lo_pct > 0)) return;
    char lo[32];
    report_pct(claim->lo_pct / 100, lo, sizeof lo);
    snprintf(buf, n, "; one-sided %.3g%%: at least %s", 100 * (1 - claim->alpha), lo);
}

static void verdict_text(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                         char *buf, size_t n)
{
    struct objective o;
    objective_parse(spec->objective, &o, NULL);
    char goal[160];
    objective_goal_text(&o, goal, sizeof goal);
    /* before the unconfirmed line: a confirmed win its guard refused on the fresh runs */
    bool refused;
    search_claim_leader(r, &refused);
    if (refused) {
        refused_line(spec, sp, r, goal, buf, n);
        return;
    }
    if (r->winner < 0 && r->confirm.candidate >= 0) {
        unconfirmed_line(spec, sp, r, buf, n);
        return;
    }
    if (r->winner < 0) {
        bool any_worse = false, all_infeasible = r->nleaders > 0;
        const struct leader *why = NULL;   /* a leader without a verdict, to say why */
        for (int i = 0; i < r->nleaders; i++) {
            any_worse = any_worse || r->leader[i].verdict == VERDICT_WORSE;
            all_infeasible = all_infeasible && r->leader[i].verdict == VERDICT_INFEASIBLE;
            if (!why && r->leader[i].verdict == VERDICT_NONE) why = &r->leader[i];
        }
        if (r->nleaders == 0 && strcmp(spec->strategy, "none") == 0)
            snprintf(buf, n, "no verdict: the strategy none measures the baseline alone, with no configuration to compare");
        else if (r->nleaders == 0 && strcmp(r->stop_reason, SEARCH_STOP_BUDGET) != 0)
            snprintf(buf, n, "no verdict: exploring stopped (%s) before any configuration could be compared with the "
                     "baseline", r->stop_reason);
        else if (r->nleaders == 0)
            snprintf(buf, n, "no verdict: the budget ended before any configuration could be compared with the baseline");
        else if (all_infeasible)
            snprintf(buf, n, "no configuration met the constraints of %s: keep the current settings", spec->objective);
        else if (!r->raced && r->confirm.candidate < 0)
            snprintf(buf, n, "no leader's exploring runs beat the baseline's (no race at this budget, no confirmation); "
                     "keep the current settings");
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
    const struct confirmation *cf = &r->confirm;
    struct decision cd = l->dec;
    verdict_claim_decision(spec, sp, r, &cd);   /* its interval at the level every verdict shows */
    if (cf->outcome == CONFIRM_CONFIRMED) {
        char xest[32];
        report_pct(cf->confirmed_est, est, sizeof est);
        report_pct(cd.lo_pct / 100, lo, sizeof lo);
        report_pct(cd.hi_pct / 100, hi, sizeof hi);
        report_pct(cf->explore_est, xest, sizeof xest);
        char bound[96];
        claim_bound(&cd, &cf->dec, bound, sizeof bound);
        snprintf(buf, n, "better: %s improves %s by %s [%.3g%% CI %s, %s%s] (%s, %s p=%.2g, look %d of %d), confirmed "
                 "on %d fresh interleaved runs each; exploring estimated %s (shrinkage %.0f%%)", cfg, goal, est,
                 100 * cd.level, lo, hi, bound, cf->dec.estimator, cf->dec.test, cf->dec.p, cf->look, cf->looks,
                 cf->reps, xest, 100 * cf->shrinkage);
        return;
    }
    report_pct(l->ci.est, est, sizeof est);
    report_pct(cd.lo_pct / 100, lo, sizeof lo);
    report_pct(cd.hi_pct / 100, hi, sizeof hi);
    if (l->looks) snprintf(look, sizeof look, ", look %d of %d", l->look, l->looks);
    snprintf(buf, n, "better: %s improves %s by %s [%.3g%% CI %s, %s] (%s, %s, Holm p=%.2g%s), %d vs %d runs", cfg,
             goal, est, 100 * cd.level, lo, hi, l->dec.estimator, l->dec.test, l->p_adj, look, l->n,
             r->nbase);
}

void report_verdict_line(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                         char *buf, size_t n)
{
    verdict_text(spec, sp, r, buf, n);
    char st[512];
    stall_note(r, st, sizeof st);
    size_t len = strlen(buf);
    if (st[0] && len + 3 < n) snprintf(buf + len, n - len, "; %s", st);
    failed_note(r, st, sizeof st);
    len = strlen(buf);
    if (st[0] && len + 3 < n) snprintf(buf + len, n - len, "; %s", st);
    search_confirm_precision(&r->confirm, st, sizeof st);
    len = strlen(buf);
    if (st[0] && len + 3 < n) snprintf(buf + len, n - len, "; %s", st);
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

static void effect_value(const struct collateral_effect *x, double v, char *buf, size_t n)
{
    const char *unit = metric_table[x->metric].unit;
    snprintf(buf, n, "%.4g%s%s", v, unit[0] ? " " : "", unit);
}

/* Why a row has no verdict, in a word or two (the JSON has the sentence). */
static const char *no_verdict_why(enum decide_why why)
{
    switch (why) {
    case DECIDE_WHY_TOO_FEW: return " (too few runs)";
    case DECIDE_WHY_IDENTICAL: return " (no spread)";
    case DECIDE_WHY_NONFINITE: return " (a failed run)";
    case DECIDE_WHY_NONPOSITIVE: return " (values not positive)";
    default: return "";
    }
}

void report_effects_lines(const struct side_effects *fx, const char *of, const char *base_column, const char *column,
                          verdict_emit_fn emit, void *arg)
{
    if (fx->leader < 0 || fx->n == 0) return;
    char line[512], level[24];
    emit(arg, VL_TABLE, "");
    snprintf(line, sizeof line, "side effects of %s (medians of %d vs %d %s; change and interval: %s; each row tested at alpha %.2g):",
             of, fx->row[0].dec.nb, fx->row[0].dec.nc, fx->by_host ? "host means" : "runs",
             decide_method_name(fx->row[0].dec.method), fx->row[0].dec.alpha);
    emit(arg, VL_TABLE, line);
    verdict_level_label(fx->row[0].dec.level, level, sizeof level);
    /* the names' column as wide as its longest (reader_read_p99): two
     * blanks or more between every cell, which the HTML table splits on */
    int w = 11;
    for (int i = 0; i < fx->n; i++) {
        int len = (int)strlen(metric_table[fx->row[i].metric].name) + 1;
        w = len > w ? len : w;
    }
    snprintf(line, sizeof line, "  %-*s %-12s %-12s %-9s %-22s %s", w, "METRIC", base_column, column, "CHANGE", level,
             "VERDICT");
    emit(arg, VL_TABLE, line);
    for (int i = 0; i < fx->n; i++) {
        const struct collateral_effect *x = &fx->row[i];
        char b[32], c[32], chg[16] = "-", ci[48] = "-";
        effect_value(x, x->base, b, sizeof b);
        effect_value(x, x->cand, c, sizeof c);
        if (x->dec.verdict != DECIDE_NO_VERDICT) {
            snprintf(chg, sizeof chg, "%+.1f%%", x->dec.effect_pct);
            snprintf(ci, sizeof ci, "[%+.1f%%, %+.1f%%]", x->dec.lo_pct, x->dec.hi_pct);
        }
        snprintf(line, sizeof line, "  %-*s %-12s %-12s %-9s %-22s %s%s", w, metric_table[x->metric].name, b, c, chg, ci,
                 decide_verdict_name(x->dec.verdict), no_verdict_why(x->dec.why));
        emit(arg, VL_TABLE, line);
    }
}

static void table_line(void *arg, enum verdict_line_kind kind, const char *line)
{
    (void)kind;
    fprintf(arg, "%s\n", line);
}

void report_effects_table(FILE *out, const struct side_effects *fx, const char *of, const char *base_column,
                          const char *column)
{
    report_effects_lines(fx, of, base_column, column, table_line, out);
}

/* The confirmation round: exploring's estimate beside the fresh runs'. */
static void print_confirmation(FILE *out, const struct search_spec *spec, const struct space *sp, const struct search_result *r)
{
    const struct confirmation *cf = &r->confirm;
    if (cf->outcome == CONFIRM_NONE) return;
    /* exploring's best is the winner only once the verdict says so: a
     * candidate the confirmation did not bear out, or whose win a guard
     * refused, printed as "winner: ... confirmed" above "verdict: not
     * recommended" read as a contradiction */
    bool refused;
    search_claim_leader(r, &refused);
    fprintf(out, "\nconfirmation: %d fresh runs each of the baseline%s %s%s, interleaved (exploring's runs not reused); "
            "decided at look %d of %d\n", cf->reps, cf->runner_up >= 0 ? "," : " and", r->winner >= 0 ? "the winner" :
            "exploring's best", cf->runner_up >= 0 ? " and the runner-up" : "", cf->look, cf->looks);
    int rounds;
    double spread;
    enum confirm_pairing how = verdict_confirm_pairing(spec, sp, r, cf->candidate, cf->dec.alpha, &rounds, &spread);
    if (how == PAIRING_PAIRED)
        fprintf(out, "  paired by round: the %d rounds' sums varied %.1f times as much as their differences' sizes, a "
                "spell of the disk that a round's two runs share and pairing cancels\n", rounds, spread);
    else if (how == PAIRING_TOO_FEW && isfinite(spread))
        fprintf(out, "  unpaired (--test %s): the rounds share the disk's spells (their sums varied %.1f times as much "
                "as their differences' sizes), but %d rounds are too few for a paired test at alpha %.3g\n",
                search_test_name(spec->test), spread, rounds, cf->dec.alpha);
    else if (how == PAIRING_NO_SPELL)
        fprintf(out, "  %s (--test %s): the %d rounds' sums varied %.1f times as much as their differences' sizes: no "
                "spell of the disk for pairing to cancel (it pairs above %.1f)\n", cf->dec.in_rounds ?
                "in rounds, its test swapping runs only within a round" : "unpaired", search_test_name(spec->test),
                rounds, spread, SEARCH_CONFIRM_SHARED_SPREAD);
    char cfg[1024], xest[32], dec[256];
    report_config_diff(sp, &r->leader[cf->candidate].cfg, cfg, sizeof cfg);
    report_pct(cf->explore_est, xest, sizeof xest);
    struct decision cd = cf->dec;
    verdict_claim_decision(spec, sp, r, &cd);
    decide_text(&cd, dec, sizeof dec);
    char bound[96];
    claim_bound(&cd, &cf->dec, bound, sizeof bound);
    fprintf(out, "  %-10s exploring %s, confirmed %s%s; shrinkage %.0f%%: %s%s\n    %s\n", r->winner >= 0 ? "winner:" :
            "candidate:", xest, dec, bound, 100 * cf->shrinkage, confirm_outcome_name(cf->outcome),
            refused ? "; refused by the objective's guard (the verdict says why)" : "", cfg);
    if (cf->runner_up < 0) return;
    report_config_diff(sp, &r->leader[cf->runner_up].cfg, cfg, sizeof cfg);
    report_pct(r->leader[cf->runner_up].ci.est, xest, sizeof xest);
    cd = cf->dec_runner;
    verdict_confirm_at_level(spec, sp, r, cf->runner_up, &cd);
    decide_text(&cd, dec, sizeof dec);
    fprintf(out, "  runner-up: exploring %s, confirmed %s (no claim)\n    %s\n", xest, dec, cfg);
}

void report_print(FILE *out, const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                  const char *regime, const char *workload_text)
{
    struct objective o;
    objective_parse(spec->objective, &o, NULL);
    char base[64];
    int nconf = 0;
    for (int i = 0; i < r->ntrials; i++) nconf += r->trials[i].role == TRIAL_CONFIRM;
    if (nconf)
        fprintf(out, "%d evaluations (%d exploring, %d confirming); exploring stopped: %s\n", r->nevals, r->nevals - nconf,
                nconf, r->stop_reason);
    else
        fprintf(out, "%d evaluations; exploring stopped: %s\n", r->nevals, r->stop_reason);
    if (r->budget_grown_to_ms > 0) {
        long long f = r->budget_grown_from_ms / 1000, t = r->budget_grown_to_ms / 1000;
        fprintf(out, "budget: the first runs took %.1f s each, slower than planned, so the default budget grew from "
                "%lldm%02llds to %lldm%02llds to keep the confirmation's fresh runs (--budget holds a budget)\n",
                r->budget_grown_pace_ms / 1000.0, f / 60, f % 60, t / 60, t % 60);
    }
    report_metric(&o, &r->base_mean, r->base_mean_score, base, sizeof base);
    char mde[32];
    report_pct(r->mde, mde, sizeof mde);
    fprintf(out, "baseline: %d runs, %s (sd %.2g%%); smallest change %d runs can detect: %s\n", r->nbase, base,
            100 * r->base_sd, spec->race_reps, mde);
    struct verdict_card *v = malloc(sizeof *v);
    if (!v) abort();
    verdict_build(spec, sp, r, regime, workload_text, v);
    if (r->nleaders) {
        fputc('\n', out);
        verdict_table_lines(v, table_line, out);
        double per_s = r->nevals > 0 ? (double)r->elapsed_ms / 1000 / r->nevals : 0;   /* a run, on average */
        if (r->race_dropped) {
            fprintf(out, "no race: the runs took %.1f s each on average, longer than planned, and the time left could not "
                         "afford a race beside the confirmation; the leader whose exploring runs were best went to the "
                         "confirmation, whose runs decide it\n", per_s);
        } else if (!r->raced) {
            char budget[96], wall[32];
            units_format_duration_ms(spec->budget_ms, wall, sizeof wall);
            /* the quick tune's 100 evaluations or 5 minutes: the minutes
             * ended it, and what they bought is what kept no race */
            if (spec->budget_ms > 0 && r->nevals > 0 && (spec->budget_evals <= 0 || r->nevals < spec->budget_evals))
                snprintf(budget, sizeof budget, "a budget of %s (%d evaluations at about %.1f s a run)", wall, r->nevals,
                         per_s);
            else if (spec->budget_evals > 0) snprintf(budget, sizeof budget, "a budget of %d evaluations", spec->budget_evals);
            else snprintf(budget, sizeof budget, "a wall-time budget");
            fprintf(out, "no race: %s keeps its runs for exploring and the confirmation; the leader whose exploring "
                         "runs were best went to the confirmation, whose runs decide it\n", budget);
        }
    }
    print_confirmation(out, spec, sp, r);
    if (r->npareto) print_pareto(out, sp, r);
    verdict_print(out, v);
    free(v);
}

static json_t *metrics_obj(const struct eval_metrics *m)
{
    json_t *o = json_object();
    for (int k = 0; k < MET_NR; k++)
        if (m->has[k]) json_object_set_new(o, metric_table[k].name, json_real(m->v[k]));
    return o;
}

static json_t *num_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

/* {"of": "winner"|"refused", "leader", "changes", "rows": [{metric, unit,
 * baseline, candidate, decision}]} or null without a table. */
json_t *report_effects_rows(const struct side_effects *fx)
{
    json_t *rows = json_array();
    for (int i = 0; i < fx->n; i++) {
        const struct collateral_effect *x = &fx->row[i];
        json_t *row = json_object();
        json_object_set_new(row, "metric", json_string(metric_table[x->metric].name));
        json_object_set_new(row, "unit", json_string(metric_table[x->metric].unit));
        json_object_set_new(row, "baseline", num_or_null(x->base));
        json_object_set_new(row, "candidate", num_or_null(x->cand));
        json_object_set_new(row, "decision", decide_json(&x->dec));
        json_array_append_new(rows, row);
    }
    return rows;
}

static json_t *effects_json(const struct space *sp, const struct search_result *r)
{
    const struct side_effects *fx = &r->effects;
    if (fx->leader < 0) return json_null();
    char diff[1024];
    report_config_diff(sp, &r->leader[fx->leader].cfg, diff, sizeof diff);
    return json_pack("{s:s,s:i,s:s,s:o}", "of", fx->leader == r->winner ? "winner" : "refused", "leader", fx->leader,
                     "changes", diff, "rows", report_effects_rows(fx));
}

static json_t *confirmation_json(const struct space *sp, const struct search_result *r)
{
    const struct confirmation *cf = &r->confirm;
    if (cf->outcome == CONFIRM_NONE) return json_null();
    char diff[1024];
    report_config_diff(sp, &r->leader[cf->candidate].cfg, diff, sizeof diff);
    json_t *o = json_object();
    json_object_set_new(o, "outcome", json_string(confirm_outcome_name(cf->outcome)));
    json_object_set_new(o, "runs_each", json_integer(cf->reps));
    json_object_set_new(o, "look", json_integer(cf->look));
    json_object_set_new(o, "looks", json_integer(cf->looks));
    if (cf->stalled_out || cf->stalled_kept) {
        json_object_set_new(o, "stalled_left_out", json_integer(cf->stalled_out));
        json_object_set_new(o, "stalled_kept", json_integer(cf->stalled_kept));
    }
    json_object_set_new(o, "changes", json_string(diff));
    json_object_set_new(o, "exploring_improvement", num_or_null(cf->explore_est));
    json_object_set_new(o, "confirmed_improvement", num_or_null(cf->confirmed_est));
    json_object_set_new(o, "shrinkage", num_or_null(cf->shrinkage));
    json_object_set_new(o, "decision", decide_json(&cf->dec));
    if (cf->runner_up >= 0) {
        report_config_diff(sp, &r->leader[cf->runner_up].cfg, diff, sizeof diff);
        json_object_set_new(o, "runner_up", json_pack("{s:s,s:o,s:o}", "changes", diff, "exploring_improvement",
                                                      num_or_null(r->leader[cf->runner_up].ci.est), "decision",
                                                      decide_json(&cf->dec_runner)));
    }
    return o;
}

/* The leaders, each as the table shows it (verdict.h) beside its decision. */
static json_t *leaders_json(const struct space *sp, const struct search_result *r, const struct verdict_card *v)
{
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
        /* as the table shows it: on the runs that decide it, at the one level */
        const struct verdict_row *w = &v->row[i < v->nrows ? i : 0];
        json_object_set_new(x, "improvement", num_or_null(w->est));
        json_object_set_new(x, "ci", json_pack("[oo]", num_or_null(w->lo), num_or_null(w->hi)));
        json_object_set_new(x, "ci_level", json_real(VERDICT_LEVEL));
        json_object_set_new(x, "basis", json_string(w->basis));
        json_object_set_new(x, "p_welch", num_or_null(l->p_welch));
        json_object_set_new(x, "p_mann_whitney", num_or_null(l->p_mw));
        json_object_set_new(x, "p_holm", num_or_null(l->p_adj));
        json_object_set_new(x, "hedges_g", num_or_null(l->g));
        json_object_set_new(x, "verdict", json_string(verdict_name(l->verdict)));
        json_object_set_new(x, "decision", decide_json(&l->dec));
        json_object_set_new(x, "look", json_integer(l->look));
        json_object_set_new(x, "looks", json_integer(l->looks));
        if (r->stalled_runs) {
            json_object_set_new(x, "stalled_left_out", json_integer(l->stalled_out));
            json_object_set_new(x, "stalled_kept", json_integer(l->stalled_kept));
        }
        json_array_append_new(ls, x);
    }
    return ls;
}

json_t *report_json(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                    const char *regime, const char *workload_text)
{
    struct verdict_card *v = malloc(sizeof *v);
    if (!v) abort();
    verdict_build(spec, sp, r, regime, workload_text, v);
    json_t *o = json_object();
    json_object_set_new(o, "space", json_string(sp->name));
    json_object_set_new(o, "workload", json_string(spec->workload));
    json_object_set_new(o, "objective", json_string(spec->objective));
    json_object_set_new(o, "strategy", json_string(spec->strategy));
    json_object_set_new(o, "evaluations", json_integer(r->nevals));
    json_object_set_new(o, "raced", json_boolean(r->raced));
    json_object_set_new(o, "race_dropped", json_boolean(r->race_dropped));
    if (r->stalled_runs) json_object_set_new(o, "stalled_runs", json_integer(r->stalled_runs));
    json_object_set_new(o, "stop_reason", json_string(r->stop_reason));
    json_t *b = json_object();
    json_object_set_new(b, "runs", json_integer(r->nbase));
    json_object_set_new(b, "mean", metrics_obj(&r->base_mean));
    json_object_set_new(b, "score_sd", num_or_null(r->base_sd));
    json_object_set_new(b, "mde", num_or_null(r->mde));
    if (r->stalled_runs) {   /* the stall rule's counts, when the canary flagged any run */
        json_object_set_new(b, "stalled_left_out", json_integer(r->base_stalled_out));
        json_object_set_new(b, "stalled_kept", json_integer(r->base_stalled_kept));
    }
    json_object_set_new(o, "baseline", b);
    json_object_set_new(o, "leaders", leaders_json(sp, r, v));
    json_object_set_new(o, "winner", r->winner >= 0 ? json_integer(r->winner) : json_null());
    json_object_set_new(o, "confirmation", confirmation_json(sp, r));
    char line[1024];
    json_object_set_new(o, "verdict", json_string(v->sentence));
    json_object_set_new(o, "verdict_card", verdict_json(v));
    free(v);
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
    json_object_set_new(o, "side_effects", effects_json(sp, r));
    report_trades(spec, r, line, sizeof line);
    json_object_set_new(o, "trades", line[0] ? json_string(line) : json_null());
    return o;
}
