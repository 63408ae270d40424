/* verdict_card — a search's verdict as one object (verdict.h): built from
 * the result, its intervals at one level, rendered into lines that every
 * front end shows, and kept as JSON beside the search. */
#include "search/verdict.h"
#include "search/compare.h"
#include "search/recommend.h"
#include "search/report.h"
#include "core/err.h"
#include "core/units.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The counted scores of c among trials of `role` (-1: any role but the
 * confirmation's), in trial order. */
static int scores_of(const struct space *sp, const struct search_result *r, const struct search_config *c, int role,
                     double *out)
{
    int n = 0;
    for (int t = 0; t < r->ntrials; t++) {
        const struct search_trial *x = &r->trials[t];
        bool take = role < 0 ? x->role != TRIAL_CONFIRM : (int)x->role == role;
        if (take && space_config_equal(sp, &x->cfg, c) && search_trial_counts(r->trials, r->ntrials, sp, t))
            out[n++] = x->score;
    }
    return n;
}

/* c's counted confirmation score in round `round` (NAN: none), as the
 * search pairs them. */
static double round_score(const struct space *sp, const struct search_result *r, const struct search_config *c, int round)
{
    double v = NAN;
    for (int t = 0; t < r->ntrials; t++)
        if (r->trials[t].role == TRIAL_CONFIRM && r->trials[t].round == round && space_config_equal(sp, &r->trials[t].cfg, c) &&
            search_trial_counts(r->trials, r->ntrials, sp, t))
            v = r->trials[t].score;
    return v;
}

static int confirm_pairs(const struct space *sp, const struct search_result *r, const struct search_config *base,
                         const struct search_config *c, double *b, double *x)
{
    int last = 0, n = 0;
    for (int t = 0; t < r->ntrials; t++) last = r->trials[t].round > last ? r->trials[t].round : last;
    for (int k = 1; k <= last; k++) {
        double vb = round_score(sp, r, base, k), vx = round_score(sp, r, c, k);
        if (isnan(vb) || isnan(vx)) continue;
        b[n] = vb;
        x[n++] = vx;
    }
    return n;
}

static void level_opts(const struct search_spec *spec, double alpha, struct decide_opts *o)
{
    search_score_opts(o, alpha > 0 && alpha < 1 ? alpha : 0.05);
    o->method = search_test_method(spec->test);
    o->level = VERDICT_LEVEL;
    o->one_sided = true;
    o->seed = spec->seed;
}

/* The confirmation's decision redrawn at VERDICT_LEVEL: the same runs,
 * paired or not as the search decided, the same estimator; only the
 * interval is taken (the verdict and p stay the search's). */
void verdict_confirm_at_level(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                              int leader, struct decision *d)
{
    if (d->verdict == DECIDE_NO_VERDICT || fabs(d->level - VERDICT_LEVEL) < 1e-9 || leader < 0) return;
    struct search_config base;
    space_baseline(sp, &base);
    const struct search_config *c = &r->leader[leader].cfg;
    size_t sz = sizeof(double) * (size_t)(r->ntrials + 1);
    double *b = xmalloc(sz), *x = xmalloc(sz), *bp = xmalloc(sz), *xp = xmalloc(sz);
    struct decide_opts o;
    level_opts(spec, d->alpha, &o);
    struct decision z;
    int np = confirm_pairs(sp, r, &base, c, bp, xp);
    int nb = scores_of(sp, r, &base, TRIAL_CONFIRM, b), nx = scores_of(sp, r, c, TRIAL_CONFIRM, x);
    if (search_confirm_decide(spec, bp, xp, np, b, nb, x, nx, &o, &z) == 0 && z.verdict != DECIDE_NO_VERDICT) {
        d->lo_pct = z.lo_pct;
        d->hi_pct = z.hi_pct;
        d->level = z.level;
    }
    free(b);
    free(x);
    free(bp);
    free(xp);
}

enum confirm_pairing verdict_confirm_pairing(const struct search_spec *spec, const struct space *sp,
                                             const struct search_result *r, int leader, double alpha, int *rounds,
                                             double *spread)
{
    struct search_config base;
    space_baseline(sp, &base);
    double *b = malloc(sizeof *b * (size_t)(r->ntrials + 1)), *x = malloc(sizeof *x * (size_t)(r->ntrials + 1));
    if (!b || !x) abort();
    int np = leader >= 0 ? confirm_pairs(sp, r, &base, &r->leader[leader].cfg, b, x) : 0;
    *rounds = np;
    *spread = decide_pairs_shared_spread(b, x, np);
    enum confirm_pairing how = search_confirm_pairing(spec, b, x, np, alpha);
    free(b);
    free(x);
    return how;
}

/* Leader i against the baseline on its race runs at VERDICT_LEVEL; false
 * when it has none. */
static bool race_at_level(const struct search_spec *spec, const struct space *sp, const struct search_result *r, int i,
                          struct decision *d)
{
    struct search_config base;
    space_baseline(sp, &base);
    double *b = malloc(sizeof *b * (size_t)(r->ntrials + 1)), *x = malloc(sizeof *x * (size_t)(r->ntrials + 1));
    if (!b || !x) abort();
    int nx = scores_of(sp, r, &r->leader[i].cfg, TRIAL_RACE, x), nb = scores_of(sp, r, &base, -1, b);
    bool ok = false;
    if (nx > 0) {
        struct decide_opts o;
        level_opts(spec, spec->alpha, &o);
        o.seed = spec->seed + (uint64_t)i;
        ok = decide_compare(b, nb, x, nx, &o, d, NULL) == 0 && d->verdict != DECIDE_NO_VERDICT;
    }
    free(b);
    free(x);
    return ok;
}

bool verdict_claim_decision(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                            struct decision *d)
{
    const struct confirmation *cf = &r->confirm;
    if (cf->outcome != CONFIRM_NONE && cf->candidate >= 0) {
        *d = cf->dec;
        verdict_confirm_at_level(spec, sp, r, cf->candidate, d);
        return true;
    }
    if (r->winner < 0) return false;
    struct decision z;
    *d = r->leader[r->winner].dec;
    if (race_at_level(spec, sp, r, r->winner, &z)) {
        d->lo_pct = z.lo_pct;
        d->hi_pct = z.hi_pct;
        d->level = z.level;
    }
    return true;
}

bool verdict_leader_decision(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                             int i, struct decision *d)
{
    const struct confirmation *cf = &r->confirm;
    if (cf->outcome != CONFIRM_NONE && i == cf->candidate) {
        *d = cf->dec;
        verdict_confirm_at_level(spec, sp, r, i, d);
        return true;
    }
    return race_at_level(spec, sp, r, i, d);
}

void verdict_level_label(double level, char *buf, size_t n)
{
    snprintf(buf, n, "%.3g%% CI", 100 * (level > 0 && level < 1 ? level : VERDICT_LEVEL));
}

/* The leaders table: the candidate on the confirmation's fresh runs, the
 * others on their race runs, every interval at VERDICT_LEVEL. */
static void build_rows(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                       const struct objective *o, struct verdict_card *v)
{
    const struct confirmation *cf = &r->confirm;
    for (int i = 0; i < r->nleaders && v->nrows < VERDICT_MAX_ROWS; i++) {
        const struct leader *l = &r->leader[i];
        struct verdict_row *w = &v->row[v->nrows++];
        w->est = w->lo = w->hi = NAN;
        w->p = l->p_adj;
        w->g = l->g;
        w->runs = l->n;
        report_metric(o, &l->mean, l->mean_score, w->mean, sizeof w->mean);
        report_config_diff(sp, &l->cfg, w->changes, sizeof w->changes);
        snprintf(w->verdict, sizeof w->verdict, "%s", verdict_name(l->verdict));
        snprintf(w->basis, sizeof w->basis, "race");
        struct decision d;
        bool have = verdict_leader_decision(spec, sp, r, i, &d);
        if (cf->outcome != CONFIRM_NONE && i == cf->candidate) {
            w->runs = cf->reps;
            w->p = d.p;
            snprintf(w->basis, sizeof w->basis, "confirmation");
            snprintf(w->verdict, sizeof w->verdict, "%s",
                     l->refused                       ? verdict_name(l->verdict)   /* the guard's refusal */
                     : cf->outcome == CONFIRM_CONFIRMED ? verdict_name(VERDICT_WIN)
                     : d.verdict == DECIDE_NO_VERDICT ? verdict_name(VERDICT_NONE) : confirm_outcome_name(cf->outcome));
            w->est = d.effect_pct / 100;
            if (d.verdict != DECIDE_NO_VERDICT) {
                w->lo = d.lo_pct / 100;
                w->hi = d.hi_pct / 100;
            }
        } else if (have) {
            w->est = d.effect_pct / 100;
            w->lo = d.lo_pct / 100;
            w->hi = d.hi_pct / 100;
        } else if (l->n == 0) {
            w->est = l->ci.est;   /* exploring's estimate: no race run measured it again */
            snprintf(w->basis, sizeof w->basis, "exploring");
        }
    }
}

static void next_step(const struct search_spec *spec, const struct search_result *r, struct verdict_card *v)
{
    const struct confirmation *cf = &r->confirm;
    if (v->kind == VERDICT_WIN) {
        snprintf(v->next, sizeof v->next, "try it on the machine's own workload before keeping it: sluice verify --live %s",
                 v->changes);
        snprintf(v->next_keys, sizeof v->next_keys, "try it on the machine's own workload before keeping it: V verifies "
                 "it live, as sluice verify --live does");
    }
    else if (v->kind == VERDICT_INFEASIBLE && r->effects.leader >= 0 && r->leader[r->effects.leader].refused)
        snprintf(v->next, sizeof v->next, "keep the current settings; the side effects below are what the trade costs");
    else if (cf->candidate >= 0 && cf->outcome == CONFIRM_NOISE)
        snprintf(v->next, sizeof v->next, "keep the current settings; to tell a smaller change apart, search again with "
                 "more fresh runs (--confirm-runs %d)", cf->reps * 2 > 100 ? 100 : cf->reps * 2 < 12 ? 12 : cf->reps * 2);
    else if (r->nleaders == 0 && strcmp(spec->strategy, "none") == 0) {
        /* the baseline's runs and their spread are stored: what a strategy's search compares against */
        snprintf(v->next, sizeof v->next, "to compare configurations, search with a strategy (--strategy bo)");
        snprintf(v->next_keys, sizeof v->next_keys, "to compare configurations, choose a Strategy (Esc goes back to the "
                 "form)");
    }
    else if (r->nleaders == 0 && strcmp(r->stop_reason, SEARCH_STOP_BUDGET) == 0) {
        snprintf(v->next, sizeof v->next, "search again with a larger --budget (this one was %d evaluations)", r->nevals);
        snprintf(v->next_keys, sizeof v->next_keys, "search again with a larger Budget (Esc goes back to the form; this one was %d "
                 "evaluations)", r->nevals);
    }
    else
        snprintf(v->next, sizeof v->next, "keep the current settings");
}

/* The stretch of the search the confirmation's runs took: the interval is
 * that stretch's. A writeback knob's effect moves over longer spells: on
 * this project's VM fio's own 7-pair estimate of one change went from +14%
 * to +29% over 20 minutes of the same pairs (bench/data/effect-drift.out),
 * and fio's first pairs met its last pairs, minutes later, within #28's
 * band about as often as a quick tune's claim met fio
 * (bench/transfer-summary, runs to 45: 32 of 74 and 14 of 33). */
void verdict_confirm_span(const struct search_result *r, char *buf, size_t n)
{
    long long before = 0, first = -1, last = -1;
    int runs = 0;
    for (int i = 0; i < r->ntrials; i++) {
        const struct search_trial *t = &r->trials[i];
        if (t->role != TRIAL_CONFIRM) {
            if (first < 0) before = t->elapsed_ms;
            continue;
        }
        if (first < 0) first = before;
        last = t->elapsed_ms;
        runs++;
    }
    if (runs < 2 || last <= first) return;
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "; the interval is that of the confirmation's %d runs, %.0f s from %.1f to %.1f min "
             "into the search: over longer spells the effect can move", runs, (double)(last - first) / 1000,
             (double)first / 60000, (double)last / 60000);
}

static long long burst_of(const char *text)
{
    const char *s = text ? strstr(text, "size_bytes=") : NULL;
    return s ? strtoll(s + strlen("size_bytes="), NULL, 10) : 0;
}

/* The guards that judged nothing: their metric was not measured. */
static void unjudged_guards(const struct objective *o, const struct search_result *r, char *buf, size_t n)
{
    buf[0] = 0;
    if (r->winner < 0) return;
    size_t len = 0;
    for (int i = 0; i < o->ncons && len < n; i++) {
        if (!o->cons[i].vs_base) continue;
        bool judged = false;
        for (int k = 0; k < r->effects.n; k++) judged = judged || r->effects.row[k].metric == o->cons[i].metric;
        const char *m = metric_table[o->cons[i].metric].name;
        if (!judged)
            len += (size_t)snprintf(buf + len, n - len, "%s(the guard %s%sbaseline judged nothing: the runs did not measure "
                                    "%s; the reader runs with the canary, on by default for write workloads)",
                                    len ? " " : "", m, o->cons[i].le ? "<=" : ">=", m);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The trial of a group whose score is the group's median (the lower of
 * the middle two), for its metrics; -1 for none. */
static int median_trial(const struct search_result *r, const int *idx, int n)
{
    if (n == 0) return -1;
    double *sc = xmalloc((size_t)n * sizeof *sc);
    for (int i = 0; i < n; i++) sc[i] = r->trials[idx[i]].score;
    qsort(sc, (size_t)n, sizeof *sc, cmp_double);
    double med = sc[(n - 1) / 2];
    free(sc);
    for (int i = 0; i < n; i++)
        if (r->trials[idx[i]].score == med) return idx[i];
    return -1;
}

/* The baseline measured twice over: exploring's runs, against which
 * exploring estimated every configuration, and the confirmation's fresh
 * ones. When their medians are BASE_MOVED apart, the level moved between
 * them: on a fresh filesystem over a memory-backed loop device, a quick
 * tune's baseline ran at 204-222 MB/s for its first runs (first writes
 * onto blocks never written) and at 419-428 MB/s from the fourth on, so
 * exploring estimated its candidate at +82% where the confirmation
 * measured +5.9%. Said, so that a shrinkage like that reads as the disk's
 * and not the search's; the claim is the confirmation's either way. */
#define BASE_MOVED 0.20

static void baseline_moved(const struct objective *o, const struct space *sp, const struct search_result *r, char *buf,
                           size_t n)
{
    buf[0] = 0;
    int base = -1;
    for (int t = 0; t < r->ntrials && base < 0; t++)
        if (r->trials[t].role == TRIAL_BASELINE) base = t;
    if (base < 0) return;
    int *ex = xmalloc((size_t)r->ntrials * sizeof *ex), *cf = xmalloc((size_t)r->ntrials * sizeof *cf), nx = 0, nc = 0;
    for (int t = 0; t < r->ntrials; t++) {
        const struct search_trial *tr = &r->trials[t];
        if (!isfinite(tr->score) || !search_trial_counts(r->trials, r->ntrials, sp, t)) continue;
        if (tr->role == TRIAL_BASELINE) ex[nx++] = t;
        else if (tr->role == TRIAL_CONFIRM && space_config_equal(sp, &tr->cfg, &r->trials[base].cfg)) cf[nc++] = t;
    }
    int mx = nx >= 2 && nc >= 2 ? median_trial(r, ex, nx) : -1, mc = mx >= 0 ? median_trial(r, cf, nc) : -1;
    if (mx >= 0 && mc >= 0) {
        double move = exp(r->trials[mc].score - r->trials[mx].score) - 1;
        if (fabs(move) >= BASE_MOVED) {
            char was[48], now[48];
            report_metric(o, &r->trials[mx].m, r->trials[mx].score, was, sizeof was);
            report_metric(o, &r->trials[mc].m, r->trials[mc].score, now, sizeof now);
            snprintf(buf, n, "the baseline itself moved by %+.0f%%: %s while exploring, %s in the confirmation (medians "
                     "of %d and %d runs); exploring's estimates set later runs against the earlier level (a fresh "
                     "filesystem's first writes, or a spell of the disk): the confirmation's interleaved runs decide",
                     100 * move, was, now, nx, nc);
        }
    }
    free(ex);
    free(cf);
}

void verdict_build(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                   const char *regime, const char *workload_text, struct verdict_card *v)
{
    memset(v, 0, sizeof *v);
    v->est = v->lo = v->hi = v->p = v->explore_est = NAN;
    v->level = VERDICT_LEVEL;
    struct objective o;
    objective_parse(spec->objective, &o, NULL);
    objective_goal_text(&o, v->goal, sizeof v->goal);
    report_verdict_line(spec, sp, r, v->sentence, sizeof v->sentence);
    const struct confirmation *cf = &r->confirm;
    bool all_infeasible = r->nleaders > 0;
    for (int i = 0; i < r->nleaders; i++) all_infeasible = all_infeasible && r->leader[i].verdict == VERDICT_INFEASIBLE;
    const char *head;
    if (r->winner >= 0) v->kind = VERDICT_WIN, head = "better";
    else if (r->effects.leader >= 0 && r->leader[r->effects.leader].refused) v->kind = VERDICT_INFEASIBLE, head = "not recommended";
    else if (cf->candidate >= 0 && cf->dec.verdict == DECIDE_NO_VERDICT) v->kind = VERDICT_NONE, head = "no verdict";
    else if (cf->candidate >= 0) v->kind = VERDICT_NOISE, head = confirm_outcome_name(cf->outcome);
    else if (r->nleaders == 0) v->kind = VERDICT_NONE, head = "no verdict";
    else if (all_infeasible) v->kind = VERDICT_INFEASIBLE, head = "infeasible";
    else v->kind = VERDICT_NOISE, head = "within noise";
    snprintf(v->headline, sizeof v->headline, "%s", head);
    int cand = cf->candidate >= 0 ? cf->candidate : r->winner;
    if (cand >= 0) report_config_diff(sp, &r->leader[cand].cfg, v->changes, sizeof v->changes);
    struct decision d;
    if (verdict_claim_decision(spec, sp, r, &d)) {
        v->est = d.effect_pct / 100;
        if (d.verdict != DECIDE_NO_VERDICT) {
            v->lo = d.lo_pct / 100;
            v->hi = d.hi_pct / 100;
            v->level = d.level;
        }
        v->p = d.p;
        snprintf(v->test, sizeof v->test, "%s", d.test);
        snprintf(v->estimator, sizeof v->estimator, "%s", d.estimator ? d.estimator : "");
        v->runs = d.nc;
        v->base_runs = d.nb;
        v->fresh = cf->candidate >= 0;
    }
    v->explore_est = cf->candidate >= 0 ? cf->explore_est : NAN;
    if (regime) snprintf(v->regime, sizeof v->regime, "%s", regime);
    v->burst_bytes = burst_of(workload_text);
    report_trades(spec, r, v->trades, sizeof v->trades);
    unjudged_guards(&o, r, v->guards, sizeof v->guards);
    v->effects = r->effects;
    if (r->effects.leader >= 0) {
        bool winner = r->effects.leader == r->winner;
        snprintf(v->effects_of, sizeof v->effects_of, "%s", winner ? "the winner" : "the refused win");
        snprintf(v->effects_col, sizeof v->effects_col, "%s", r->leader[r->effects.leader].refused ? "REFUSED" : "WINNER");
    }
    if (r->winner >= 0 && r->winner_note[0]) snprintf(v->note, sizeof v->note, "%s", r->winner_note);
    if (r->race_guard.dec.nc > 0) {
        /* the race's runs refused it; the fresh runs decided otherwise */
        const struct decision *g = &r->race_guard.dec;
        size_t len = strlen(v->note);
        snprintf(v->note + len, sizeof v->note - len, "%sthe race's %d runs had %s worse by %+.1f%%, which refused it; the "
                 "confirmation's %d fresh runs each %s", len ? "; " : "", g->nc, metric_table[r->race_guard.metric].name,
                 g->effect_pct, cf->reps,
                 r->race_refusal_dropped ? "did not bear that out: the guard, judged on them, keeps the win" : "did not confirm the gain it traded for");
    }
    char moved[512];
    baseline_moved(&o, sp, r, moved, sizeof moved);
    if (moved[0]) {
        size_t len = strlen(v->note);
        snprintf(v->note + len, sizeof v->note - len, "%s%s", len ? "; " : "", moved);
    }
    build_rows(spec, sp, r, &o, v);
    next_step(spec, r, v);
}

static void card_lines(const struct verdict_card *v, const char *next, verdict_emit_fn emit, void *arg)
{
    char line[1400];
    emit(arg, v->kind == VERDICT_WIN ? VL_CLAIM : VL_NO_CLAIM, v->sentence);
    if (v->note[0]) {
        snprintf(line, sizeof line, "(%s)", v->note);
        emit(arg, VL_TEXT, line);
    }
    /* a claim holds for the regime and the burst it was measured in (bench/carry-over) */
    if (v->regime[0]) {
        snprintf(line, sizeof line, "regime: %s", v->regime);
        emit(arg, VL_TEXT, line);
    }
    if (v->burst_bytes > 0) {
        char b[32];
        units_format_bytes((unsigned long long)v->burst_bytes, b, sizeof b);
        snprintf(line, sizeof line, "burst: %s written by every evaluation, the same for every configuration", b);
        emit(arg, VL_TEXT, line);
    }
    if (v->trades[0]) emit(arg, VL_NOTE, v->trades);
    if (v->guards[0]) emit(arg, VL_NOTE, v->guards);
    if (next[0]) {
        snprintf(line, sizeof line, "next: %s", next);
        emit(arg, VL_TEXT, line);
    }
    if (v->effects.leader >= 0 && v->effects.n > 0)
        report_effects_lines(&v->effects, v->effects_of, v->effects_base[0] ? v->effects_base : "BASELINE", v->effects_col,
                             emit, arg);
}

void verdict_lines(const struct verdict_card *v, verdict_emit_fn emit, void *arg) { card_lines(v, v->next, emit, arg); }

void verdict_lines_keys(const struct verdict_card *v, verdict_emit_fn emit, void *arg)
{
    card_lines(v, v->next_keys[0] ? v->next_keys : v->next, emit, arg);
}

/* "the defaults' 322.8 MB/s ... (null: 6 runs in 2 configurations)": what
 * recommend judged, for a card that claims nothing. */
static void recommend_evidence(const struct recommendation *R, char *buf, size_t n)
{
    int runs = 0;
    for (int i = 0; i < R->ng; i++) runs += R->g[i].n;
    snprintf(buf, n, "%s: %d run%s in %d configuration%s", R->workload, runs, runs == 1 ? "" : "s", R->ng,
             R->ng == 1 ? "" : "s");
}

void verdict_build_recommend(const struct recommendation *R, struct verdict_card *v)
{
    memset(v, 0, sizeof *v);
    v->est = v->lo = v->hi = v->p = v->explore_est = NAN;
    v->level = VERDICT_LEVEL;
    v->effects.leader = -1;
    objective_goal_text(&R->o, v->goal, sizeof v->goal);
    char ev[160];
    recommend_evidence(R, ev, sizeof ev);
    if (R->outcome == REC_OTHER_WORK) {
        v->kind = VERDICT_NONE;
        snprintf(v->headline, sizeof v->headline, "no verdict");
        snprintf(v->sentence, sizeof v->sentence, "none: the other stored configurations ran other work than the defaults "
                 "(%s), and runs of different work are not set against each other", R->other_diff);
        return;
    }
    if (R->outcome != REC_WIN || R->win < 0) {
        v->kind = R->outcome == REC_NO_DATA || R->nc == 0 ? VERDICT_NONE : VERDICT_NOISE;
        snprintf(v->headline, sizeof v->headline, "%s", v->kind == VERDICT_NONE ? "no verdict" : "within noise");
        if (R->outcome == REC_NO_DATA)
            snprintf(v->sentence, sizeof v->sentence, "no data: no stored measurements match this host or its hardware class");
        else if (R->nc == 0)   /* nothing was set against the defaults */
            snprintf(v->sentence, sizeof v->sentence, "nothing to compare yet (%s; another configuration needs 2 runs or "
                     "more)", ev);
        else
            snprintf(v->sentence, sizeof v->sentence, "within noise: no stored configuration beats the defaults by more "
                     "than the measurements can tell apart; keep them (%s)", ev);
        return;
    }
    const struct leader *w = &R->l[R->win];
    v->kind = VERDICT_WIN;
    snprintf(v->headline, sizeof v->headline, "recommended");
    snprintf(v->changes, sizeof v->changes, "%s", R->diff);
    for (char *nl = v->changes; (nl = strchr(nl, '\n'));) *nl = ' ';
    v->est = w->ci.est;
    v->lo = w->ci.lo;
    v->hi = w->ci.hi;
    v->level = w->ci.level > 0 && w->ci.level < 1 ? w->ci.level : VERDICT_LEVEL;
    v->p = w->p_adj;
    snprintf(v->test, sizeof v->test, "%s", R->by_host ? "Bonferroni" : "Holm");
    v->runs = w->n;
    v->base_runs = R->nbs;
    char val[64], est[32], lo[32], hi[32], level[24];
    report_metric(&R->o, &w->mean, NAN, val, sizeof val);
    report_pct(v->est, est, sizeof est);
    report_pct(v->lo, lo, sizeof lo);
    report_pct(v->hi, hi, sizeof hi);
    verdict_level_label(v->level, level, sizeof level);
    snprintf(v->sentence, sizeof v->sentence, "%s: %s against the defaults' %s: %s [%s %s, %s], %s p=%.2g, %d vs %d %s "
             "(%s, %s)", v->changes[0] ? v->changes : "(same knobs as the defaults)", val, R->basev, est, level, lo, hi,
             v->test, v->p, v->runs, v->base_runs, R->by_host ? "hosts" : "runs", R->workload, recommend_match_name(R->match));
    recommend_winner_effects(R, &v->effects);
    snprintf(v->effects_of, sizeof v->effects_of, "the recommendation");
    snprintf(v->effects_base, sizeof v->effects_base, "DEFAULTS");
    snprintf(v->effects_col, sizeof v->effects_col, "RECOMMENDED");
}

void verdict_build_compare(const struct comparison *c, const struct side_effects *fx, const char *objtext,
                           struct verdict_card *v)
{
    memset(v, 0, sizeof *v);
    v->explore_est = NAN;
    v->effects.leader = -1;
    const struct leader *l = &c->l;
    v->kind = l->verdict == VERDICT_WIN ? VERDICT_WIN : l->verdict == VERDICT_WORSE ? VERDICT_WORSE
              : l->verdict == VERDICT_INFEASIBLE ? VERDICT_INFEASIBLE : VERDICT_NOISE;
    snprintf(v->headline, sizeof v->headline, "%s", v->kind == VERDICT_WIN ? "better" : v->kind == VERDICT_WORSE ? "worse"
             : v->kind == VERDICT_INFEASIBLE ? "infeasible" : "within noise");
    snprintf(v->goal, sizeof v->goal, "%s", objtext);
    v->est = l->ci.est;
    v->lo = l->ci.lo;
    v->hi = l->ci.hi;
    v->level = l->ci.level > 0 && l->ci.level < 1 ? l->ci.level : VERDICT_LEVEL;
    v->runs = c->nb;
    v->base_runs = c->na;
    char est[32], lo[32], hi[32], level[24];
    report_pct(v->est, est, sizeof est);
    report_pct(v->lo, lo, sizeof lo);
    report_pct(v->hi, hi, sizeof hi);
    verdict_level_label(v->level, level, sizeof level);
    if (c->by_host) {
        v->p = l->p_adj;
        snprintf(v->test, sizeof v->test, "host means");
        snprintf(v->sentence, sizeof v->sentence, "%s; B against A: %s %s [%s %s, %s], host means: %s, %d vs %d hosts",
                 compare_verdict_text(l), objtext, est, level, lo, hi, c->host_decision, c->na, c->nb);
    } else {
        v->p = l->p_welch;
        snprintf(v->test, sizeof v->test, "Welch");
        snprintf(v->sentence, sizeof v->sentence, "%s; B against A: %s %s [%s %s, %s], Welch p=%.2g, Mann-Whitney p=%.2g, "
                 "Hedges g %.2f, %d vs %d runs", compare_verdict_text(l), objtext, est, level, lo, hi, l->p_welch, l->p_mw,
                 l->g, c->na, c->nb);
    }
    if (fx && fx->leader >= 0 && fx->n > 0) {
        v->effects = *fx;
        snprintf(v->effects_of, sizeof v->effects_of, "B against A");
        snprintf(v->effects_base, sizeof v->effects_base, "A");
        snprintf(v->effects_col, sizeof v->effects_col, "B");
    } else if (fx) {
        snprintf(v->guards, sizeof v->guards, "side effects: not measured (these runs had no collateral reader: probe a "
                 "write workload, where the canary and its reader run by default)");
    }
}

static void print_line(void *arg, enum verdict_line_kind kind, const char *line)
{
    FILE *out = arg;
    switch (kind) {
    case VL_CLAIM:
    case VL_NO_CLAIM: fprintf(out, "\nverdict: %s\n", line); break;
    case VL_TEXT:
    case VL_NOTE: fprintf(out, "  %s\n", line); break;
    case VL_TABLE: fprintf(out, "%s\n", line); break;
    }
}

void verdict_print(FILE *out, const struct verdict_card *v) { verdict_lines(v, print_line, out); }

void verdict_table_lines(const struct verdict_card *v, verdict_emit_fn emit, void *arg)
{
    char level[24], line[1024];
    verdict_level_label(VERDICT_LEVEL, level, sizeof level);
    snprintf(line, sizeof line, "%-3s %-4s %-12s %-8s %-20s %-8s %-6s %-14s %s", "#", "RUNS", "MEAN", "CHANGE", level, "P",
             "G", "VERDICT", "CONFIG");
    emit(arg, VL_TABLE, line);
    for (int i = 0; i < v->nrows; i++) {
        const struct verdict_row *w = &v->row[i];
        char est[32], lo[32], hi[32], ci[80], p[16] = "-";
        report_pct(w->est, est, sizeof est);
        report_pct(w->lo, lo, sizeof lo);
        report_pct(w->hi, hi, sizeof hi);
        snprintf(ci, sizeof ci, "[%s, %s]", lo, hi);
        if (!isnan(w->p)) snprintf(p, sizeof p, "%.2g", w->p);
        snprintf(line, sizeof line, "%-3d %-4d %-12s %-8s %-20s %-8s %-6.2f %-14s %s", i + 1, w->runs, w->mean, est, ci, p,
                 w->g, w->verdict, w->changes);
        emit(arg, VL_TABLE, line);
    }
}

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }
static double num_of(const json_t *o, const char *k)
{
    const json_t *x = json_object_get(o, k);
    return json_is_number(x) ? json_number_value(x) : NAN;
}
static void str_of(const json_t *o, const char *k, char *buf, size_t n)
{
    const char *s = json_string_value(json_object_get(o, k));
    snprintf(buf, n, "%s", s ? s : "");
}
/* An interval stored as k: [lo, hi], NAN where an end is missing. */
static void ci_of(const json_t *o, const char *k, double *lo, double *hi)
{
    const json_t *ci = json_object_get(o, k);
    *lo = json_is_number(json_array_get(ci, 0)) ? json_number_value(json_array_get(ci, 0)) : NAN;
    *hi = json_is_number(json_array_get(ci, 1)) ? json_number_value(json_array_get(ci, 1)) : NAN;
}

/* The card's plain fields and a leader row's, one row a JSON key, so that
 * verdict_json writes and verdict_from_json reads the same keys in the
 * same order, and a new field is one row. */
enum jf_type { JF_STR, JF_NUM, JF_INT, JF_LL, JF_BOOL, JF_CI };
struct json_field {
    const char *key;
    enum jf_type type;
    size_t off, size;   /* size: a JF_STR's array */
    size_t hi;          /* JF_CI: the upper end's offset (off: the lower's) */
};
#define JF(stype, field, key, type) { key, type, offsetof(stype, field), sizeof(((stype *)0)->field), 0 }
#define JF_CI(stype, lo, hi, key) { key, JF_CI, offsetof(stype, lo), 0, offsetof(stype, hi) }
#define C(field, key, type) JF(struct verdict_card, field, key, type)
static const struct json_field card_fields[] = {
    C(headline, "headline", JF_STR), C(sentence, "sentence", JF_STR), C(changes, "changes", JF_STR),
    C(goal, "goal", JF_STR), C(est, "estimate", JF_NUM), JF_CI(struct verdict_card, lo, hi, "ci"),
    C(level, "level", JF_NUM), C(p, "p", JF_NUM), C(test, "test", JF_STR), C(estimator, "estimator", JF_STR),
    C(runs, "runs", JF_INT), C(base_runs, "baseline_runs", JF_INT), C(fresh, "fresh_runs", JF_BOOL),
    C(explore_est, "exploring_estimate", JF_NUM), C(regime, "regime", JF_STR), C(burst_bytes, "burst_bytes", JF_LL),
    C(next, "next", JF_STR), C(note, "note", JF_STR), C(trades, "trades", JF_STR), C(guards, "guards", JF_STR),
};
#undef C
#define R(field, key, type) JF(struct verdict_row, field, key, type)
static const struct json_field row_fields[] = {
    R(runs, "runs", JF_INT), R(est, "estimate", JF_NUM), JF_CI(struct verdict_row, lo, hi, "ci"), R(p, "p", JF_NUM),
    R(g, "g", JF_NUM), R(verdict, "verdict", JF_STR), R(basis, "basis", JF_STR), R(mean, "mean", JF_STR),
    R(changes, "changes", JF_STR),
};
#undef R
#define NFIELDS(t) (sizeof (t) / sizeof (t)[0])

/* A double field read and written through memcpy: a double * made from the
 * record's char * is a cast cppcheck rejects (invalidPointerCast). */
static double get_double(const void *rec, size_t off)
{
    double v;
    memcpy(&v, (const char *)rec + off, sizeof v);
    return v;
}

static void put_double(void *rec, size_t off, double v)
{
    memcpy((char *)rec + off, &v, sizeof v);
}

static json_t *field_json(const struct json_field *f, const void *rec)
{
    const char *at = (const char *)rec + f->off;
    switch (f->type) {
    case JF_STR: return json_string(at);
    case JF_NUM: return num(get_double(rec, f->off));
    case JF_INT: return json_integer(*(const int *)at);
    case JF_LL: return json_integer(*(const long long *)at);
    case JF_BOOL: return json_boolean(*(const bool *)at);
    case JF_CI: return json_pack("[oo]", num(get_double(rec, f->off)), num(get_double(rec, f->hi)));
    }
    return json_null();
}

static void fields_json(json_t *o, const struct json_field *f, size_t n, const void *rec)
{
    for (size_t i = 0; i < n; i++) json_object_set_new(o, f[i].key, field_json(&f[i], rec));
}

static void fields_from_json(const json_t *o, const struct json_field *f, size_t n, void *rec)
{
    for (size_t i = 0; i < n; i++) {
        char *at = (char *)rec + f[i].off;
        const json_t *x = json_object_get(o, f[i].key);
        switch (f[i].type) {
        case JF_STR: str_of(o, f[i].key, at, f[i].size); break;
        case JF_NUM: put_double(rec, f[i].off, num_of(o, f[i].key)); break;
        case JF_INT: *(int *)at = (int)json_integer_value(x); break;
        case JF_LL: *(long long *)at = json_integer_value(x); break;
        case JF_BOOL: *(bool *)at = json_is_true(x); break;
        case JF_CI: {
            double lo, hi;
            ci_of(o, f[i].key, &lo, &hi);
            put_double(rec, f[i].off, lo);
            put_double(rec, f[i].hi, hi);
            break;
        }
        }
    }
}

static json_t *effect_json(const struct collateral_effect *x)
{
    const struct decision *d = &x->dec;
    return json_pack("{s:s,s:o,s:o,s:o,s:[oo],s:o,s:o,s:o,s:s,s:i,s:i,s:i,s:s}", "metric", metric_table[x->metric].name,
                     "baseline", num(x->base), "candidate", num(x->cand), "change_pct", num(d->effect_pct), "ci_pct",
                     num(d->lo_pct), num(d->hi_pct), "level", num(d->level), "alpha", num(d->alpha), "p", num(d->p),
                     "verdict", decide_verdict_name(d->verdict), "why", (int)d->why, "n_base", d->nb, "n_candidate", d->nc,
                     "method", decide_method_name(d->method));
}

static int effect_from_json(const json_t *j, struct collateral_effect *x)
{
    memset(x, 0, sizeof *x);
    const char *m = json_string_value(json_object_get(j, "metric"));
    x->metric = -1;
    for (int k = 0; m && k < MET_NR; k++)
        if (strcmp(metric_table[k].name, m) == 0) x->metric = k;
    if (x->metric < 0) return -1;
    struct decision *d = &x->dec;
    x->base = num_of(j, "baseline");
    x->cand = num_of(j, "candidate");
    d->effect_pct = num_of(j, "change_pct");
    ci_of(j, "ci_pct", &d->lo_pct, &d->hi_pct);
    d->level = num_of(j, "level");
    d->alpha = num_of(j, "alpha");
    d->p = num_of(j, "p");
    const char *v = json_string_value(json_object_get(j, "verdict"));
    d->verdict = DECIDE_NO_VERDICT;
    for (int k = DECIDE_BETTER; v && k <= DECIDE_NO_VERDICT; k++)
        if (strcmp(decide_verdict_name((enum decide_verdict)k), v) == 0) d->verdict = (enum decide_verdict)k;
    d->why = (enum decide_why)json_integer_value(json_object_get(j, "why"));
    d->nb = (int)json_integer_value(json_object_get(j, "n_base"));
    d->nc = (int)json_integer_value(json_object_get(j, "n_candidate"));
    const char *meth = json_string_value(json_object_get(j, "method"));
    int mi = meth ? decide_method_parse(meth) : -1;
    d->method = mi >= 0 ? (enum decide_method)mi : DECIDE_DEFAULT_METHOD;
    return 0;
}

json_t *verdict_json(const struct verdict_card *v)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(verdict_name(v->kind)));
    fields_json(o, card_fields, NFIELDS(card_fields), v);
    json_t *fx = json_null();
    if (v->effects.leader >= 0) {
        json_t *rows = json_array();
        for (int i = 0; i < v->effects.n; i++) json_array_append_new(rows, effect_json(&v->effects.row[i]));
        fx = json_pack("{s:s,s:s,s:i,s:b,s:o}", "of", v->effects_of, "column", v->effects_col, "leader", v->effects.leader,
                       "by_host", v->effects.by_host, "rows", rows);
        if (v->effects_base[0]) json_object_set_new(fx, "base_column", json_string(v->effects_base));
    }
    json_object_set_new(o, "side_effects", fx);
    json_t *rows = json_array();
    for (int i = 0; i < v->nrows; i++) {
        json_t *row = json_object();
        fields_json(row, row_fields, NFIELDS(row_fields), &v->row[i]);
        json_array_append_new(rows, row);
    }
    json_object_set_new(o, "leaders", rows);
    return o;
}


int verdict_from_json(const json_t *j, struct verdict_card *v)
{
    memset(v, 0, sizeof *v);
    v->effects.leader = -1;
    const char *kind = json_string_value(json_object_get(j, "kind"));
    if (!json_is_object(j) || !kind) return -1;
    for (int k = VERDICT_WIN; k <= VERDICT_NONE; k++)
        if (strcmp(verdict_name((enum verdict)k), kind) == 0) v->kind = (enum verdict)k;
    fields_from_json(j, card_fields, NFIELDS(card_fields), v);
    const json_t *fx = json_object_get(j, "side_effects");
    if (json_is_object(fx)) {
        str_of(fx, "of", v->effects_of, sizeof v->effects_of);
        str_of(fx, "column", v->effects_col, sizeof v->effects_col);
        str_of(fx, "base_column", v->effects_base, sizeof v->effects_base);
        v->effects.leader = (int)json_integer_value(json_object_get(fx, "leader"));
        v->effects.by_host = json_is_true(json_object_get(fx, "by_host"));
        size_t i;
        const json_t *row;
        json_array_foreach(json_object_get(fx, "rows"), i, row)
            if (v->effects.n < SEARCH_MAX_EFFECTS && effect_from_json(row, &v->effects.row[v->effects.n]) == 0) v->effects.n++;
    }
    size_t i;
    const json_t *row;
    json_array_foreach(json_object_get(j, "leaders"), i, row) {
        if (v->nrows >= VERDICT_MAX_ROWS) break;
        fields_from_json(row, row_fields, NFIELDS(row_fields), &v->row[v->nrows++]);
    }
    return 0;
}
