/* verdict — a search's verdict as one object, built once by the engine
 * from the result and rendered by every front end (the CLI's search and
 * tune, the UI's Search screen, `sluice report` in text, JSON and HTML),
 * so that the numbers they show cannot disagree.
 *
 *     struct verdict_card v;
 *     verdict_build(spec, sp, result, regime, workload_text, &v);
 *     verdict_lines(&v, emit, arg);        the lines every format shows
 *     json_t *j = verdict_json(&v);        stored with the search, read back
 *     verdict_from_json(j, &v2);           by `sluice report SEARCH`
 *
 * Every interval it holds is at VERDICT_LEVEL (the level is printed beside
 * it): the claim's, the leaders', the side effects' and the Pareto
 * front's. The claim is still decided as the search decided it (the
 * confirmation's one-sided test at --alpha, the race's screening): only
 * the interval shown beside it is drawn at the one level, from the same
 * runs with the same estimator. */
#ifndef SLUICE_SEARCH_VERDICT_H
#define SLUICE_SEARCH_VERDICT_H

#include <jansson.h>
#include <stdbool.h>
#include "search/search.h"

/* The level of every interval a verdict shows (two-sided). */
#define VERDICT_LEVEL 0.95

/* One line of the leaders table: a leader against the baseline on the
 * runs that decided it (the confirmation's fresh runs for the candidate,
 * the race's for the others). */
struct verdict_row {
    int runs;
    double est, lo, hi;          /* fractions (+0.12 is 12% better); NAN when none */
    double p;                    /* the deciding test's p (Holm-adjusted in the race); NAN none */
    double g;                    /* Hedges' g on scores */
    char verdict[24];            /* "win", "within noise", "not confirmed", "no verdict", ... */
    char basis[16];              /* "confirmation", "race", "exploring" */
    char mean[48];               /* the objective's metric with its unit, or the score */
    char changes[512];
};

enum verdict_line_kind {
    VL_CLAIM,                    /* the verdict's sentence: a win */
    VL_NO_CLAIM,                 /* the verdict's sentence: no win */
    VL_TEXT,                     /* interval, runs, regime, burst, what next */
    VL_NOTE,                     /* trades, guards that judged nothing */
    VL_TABLE,                    /* a heading or row of the side-effects table */
};
typedef void (*verdict_emit_fn)(void *arg, enum verdict_line_kind kind, const char *line);

#define VERDICT_MAX_ROWS SEARCH_MAX_LEADERS
struct verdict_card {
    enum verdict kind;           /* VERDICT_WIN: a claim to act on */
    char headline[24];           /* "better", "within noise", "not confirmed", "contradicted",
                                    "not recommended", "infeasible", "no verdict" */
    char sentence[2048];         /* the verdict in one sentence (report_verdict_line) */
    char changes[1024];          /* the candidate's knobs ("" without one) */
    char goal[160];              /* what the objective measures */
    double est, lo, hi, level;   /* the claim's change and interval (fractions); NAN without */
    double p;                    /* its test's p (one-sided for a confirmation) */
    char test[48], estimator[64];
    int runs, base_runs;         /* runs each side behind est */
    bool fresh;                  /* est comes from the confirmation's fresh runs */
    double explore_est;          /* exploring's estimate of the candidate; NAN without */
    char regime[1024];           /* what the claim holds for ("" unknown: oracle) */
    long long burst_bytes;       /* the volume every evaluation wrote (0: not a burst) */
    char next[512];              /* what to do next, in commands */
    char next_keys[512];         /* the same on the Search screen, in its keys ("": next says it there too) */
    char note[1024];             /* why this winner (fewer knobs for the same gain; a race refusal the fresh runs overturned), "" none */
    char trades[1024];           /* what the win makes worse ("" nothing) */
    char guards[512];            /* guards that judged nothing ("" none) */
    char effects_of[24];         /* "the winner", "the refused win" */
    char effects_col[16];        /* "WINNER", "REFUSED" */
    char effects_base[16];       /* the table's baseline column ("": "BASELINE") */
    struct side_effects effects; /* leader -1: no table */
    int nrows;
    struct verdict_row row[VERDICT_MAX_ROWS];
};

/* The claim's decision (the confirmation's, or the winner's) with its
 * interval redrawn at VERDICT_LEVEL from the same runs; false (d
 * untouched) when the search has no claim to show. */
bool verdict_claim_decision(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                            struct decision *d);
/* d, a decision on leader's confirmation runs (the candidate's or the
 * runner-up's), with its interval redrawn at VERDICT_LEVEL. */
void verdict_confirm_at_level(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                              int leader, struct decision *d);
/* How leader's confirmation was decided, paired by round or not, at alpha (the
 * decision's), with its complete rounds and how much more their sums
 * varied than their differences (decide_pairs_shared_spread; NAN under 3
 * rounds): what the report says of the choice. */
enum confirm_pairing verdict_confirm_pairing(const struct search_spec *spec, const struct space *sp,
                                             const struct search_result *r, int leader, double alpha, int *rounds,
                                             double *spread);
/* Leader i against the baseline at VERDICT_LEVEL on the runs that decide
 * it: the confirmation's for its candidate, else the race's; false (d
 * unset) when it has none. */
bool verdict_leader_decision(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                             int i, struct decision *d);
/* Build v from a finished search. regime and workload_text may be NULL
 * (oracle searches). Nothing to free. */
void verdict_build(const struct search_spec *spec, const struct space *sp, const struct search_result *r,
                   const char *regime, const char *workload_text, struct verdict_card *v);
/* Appends to buf (a regime, verdict_build's) the stretch of the search the
 * confirmation's runs took ("; the interval is that of the confirmation's
 * 14 runs, 75 s from 3.2 to 4.4 min into the search: ..."); nothing
 * without two confirmation runs at distinct times. For searches measured
 * on the machine's clock (probes): an oracle's or a synthetic search's
 * times say nothing of a machine. */
void verdict_confirm_span(const struct search_result *r, char *buf, size_t n);
/* recommend's verdict on stored runs (recommend.h, after recommend_judge)
 * as a card: the winner against the defaults with its interval and level,
 * Holm's (or by host Bonferroni's) p, the runs each side, what got worse
 * (the side-effects table); or within noise, or not judged (other work).
 * `sluice recommend` and the UI's Overview render it. Nothing to free. */
struct recommendation;
void verdict_build_recommend(const struct recommendation *R, struct verdict_card *v);
/* A comparison of two groups of runs (compare.h: B against A, with the
 * side effects of B beside A) as a card: its verdict ("B is better than
 * A", "within noise: ...") with the change of objtext, the interval and
 * level, the test's p and the runs of each side; the side-effects table
 * (A, B). `sluice compare`, its HTML page and the UI's Compare view render
 * it. fx may be NULL (none measured). Nothing to free. */
struct comparison;
void verdict_build_compare(const struct comparison *c, const struct side_effects *fx, const char *objtext,
                           struct verdict_card *v);
/* The lines every format shows, in order: the sentence, the claim with
 * its interval and level, the regime and burst, what to do next, trades,
 * then the side-effects table. */
void verdict_lines(const struct verdict_card *v, verdict_emit_fn emit, void *arg);
/* verdict_lines as the Search screen shows them: what next in its keys. */
void verdict_lines_keys(const struct verdict_card *v, verdict_emit_fn emit, void *arg);
/* verdict_lines on a stream, indented as `sluice search` prints them. */
void verdict_print(FILE *out, const struct verdict_card *v);
/* The leaders table's heading and rows as text lines (the CLI's columns). */
void verdict_table_lines(const struct verdict_card *v, verdict_emit_fn emit, void *arg);
/* "95% CI" */
void verdict_level_label(double level, char *buf, size_t n);
/* The card as JSON (a new reference) and back: 0, or -1 when j is not a
 * card (v then zeroed). */
json_t *verdict_json(const struct verdict_card *v);
int verdict_from_json(const json_t *j, struct verdict_card *v);

#endif
