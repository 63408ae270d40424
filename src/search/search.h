/* search — the noise-first evaluation loop: the baseline measured
 * repeatedly, interleaved with the strategy's proposals; when the budget
 * affords it, the leaders re-measured in a sequential race against the
 * baseline (Holm across the leaders at each look); then fresh runs of the
 * baseline and the winner in a confirmation round, which alone makes a
 * claim: one-sided, paired by round (Wilcoxon signed-rank, Hodges-Lehmann
 * pseudo-median) when its rounds share the disk's spells, else by --test's
 * location with a test that swaps runs only within rounds, or unpaired
 * (search_confirm_decide).
 * The race and an unpaired confirmation use --test, perm-trim by default (a
 * permutation test of 30% trimmed means and the interval got by inverting
 * it: decide.h, perm.h); "within noise" is never a win. Stops on an
 * evaluation or wall-time budget, or when expected improvement stays below
 * a threshold. Evaluations go through an evaluator (evaluator.h);
 * persistence and resume through hooks (run.c stores trials). */
#ifndef SLUICE_SEARCH_H
#define SLUICE_SEARCH_H

#include <limits.h>
#include "core/opt.h"
#include "search/evaluator.h"
#include "search/objective.h"
#include "search/strategy.h"
#include "stat/decide.h"
#include "stat/signif.h"

#define SEARCH_MAX_LEADERS 5
#define SEARCH_MAX_PARETO 12
/* --budget in evaluations: a budget of 8 explores 4 and keeps 4 for the
 * confirmation (search.c, confirm_keep) */
#define SEARCH_BUDGET_EVALS_MIN 8
#define SEARCH_BUDGET_EVALS_MAX 100000
/* fresh runs a side in the confirmation, and the least --confirm-runs takes */
#define SEARCH_CONFIRM_REPS 6
#define SEARCH_STR_(x) #x
#define SEARCH_STR(x) SEARCH_STR_(x)

/* How leaders are tested against the baseline (decide.h): Welch on means,
 * Hodges-Lehmann + Mann-Whitney, Yuen on trimmed means, a bootstrap of
 * medians, permutation tests of trimmed means and of medians. The numbers
 * are stored with a search (resume): append only. */
enum search_test { TEST_WELCH, TEST_MW, TEST_YUEN, TEST_BOOT_MEDIAN, TEST_PERM_TRIM, TEST_PERM_MEDIAN, TEST_NR };
enum decide_method search_test_method(enum search_test t);
/* decide's options for objective scores: they are log units, tested at
 * alpha, decide's defaults otherwise; callers set the method, level,
 * sidedness or seed their comparison needs. */
void search_score_opts(struct decide_opts *o, double alpha);
const char *search_test_name(enum search_test t);      /* "welch", "hl-mw", ... */
int search_test_parse(const char *name);               /* also "mw", "mann-whitney"; -1 unknown */
const char *search_test_at(int i);                     /* the i-th test's name, NULL past the last */

struct search_spec {
    char space[PATH_MAX];
    char device[64];
    char workload[32];
    char objective[160];
    char strategy[16];
    int budget_evals;        /* 0: none (then budget_ms) */
    long long budget_ms;     /* 0: none */
    uint64_t seed;
    int baseline_reps;       /* at least 5 */
    int race_reps;           /* per leader in the final race (default 5) */
    int leaders;             /* K (default 3) */
    double alpha;            /* family-wise (default 0.05) */
    double ei_stop;          /* stop exploring after 3 proposals with an expected relative improvement below this (0 off) */
    enum search_test test;
    /* fresh runs of the baseline and the winner in the confirmation round
     * (--confirm-runs): 0 is the default, CONFIRM_REPS (search.c) and at
     * most half of a budget in evaluations; more buys a narrower
     * interval for the claim (the budget must afford them) */
    int confirm_reps;
    /* complete confirmation rounds from which the claim is decided paired
     * by round when they share a spell (search.c, confirm_decide; default
     * 1: as soon as the signed-rank test can reject at the look's alpha,
     * search_confirm_decide); 0: never, always --test unpaired */
    int confirm_paired_from;
    /* confirm_reps is the plan's (search_plan_scale_confirmation), not
     * --confirm-runs: once EXPLORE_MIN runs show the pace, a time budget
     * that buys more evaluations than the plan counted grows it (search.c,
     * follow_pace) */
    bool confirm_follows_pace;
    /* budget_ms is a default the user did not give (the quick tune's):
     * once EXPLORE_MIN runs show a pace slower than the plan's, it grows
     * to keep the confirmation's runs, up to this (search.c, follow_pace);
     * 0: the budget holds */
    long long budget_grows_to_ms;
    /* the plan's time a run (run.c, make_plan; 0: no plan): with a wall-time
     * budget the race is planned on the evaluations that buys, not on
     * budget_evals alone (search.c, race_planned). Not stored: a resumed
     * search plans again. */
    double plan_run_s;
};
/* The options of a search spec as rows (search_opts.c): what `search`,
 * `tune` and the Search screen set, their bounds, help and defaults. */
extern const struct opt search_spec_rows[];
/* Every field's default: the rows' (space, workload, strategy, budget,
 * alpha, test, ...) and those no option sets. */
void search_spec_defaults(struct search_spec *s);
void search_spec_option_defaults(struct search_spec *s);   /* the rows' alone */
/* "40" (evaluations, SEARCH_BUDGET_EVALS_MIN or more) or "90s"/"10m" (wall
 * time) into s, the other bound cleared; -1 with e naming --budget. */
int search_spec_parse_budget(const char *arg, struct search_spec *s, sl_err *e);
/* --confirm-runs against the budget: refused (SL_EUSAGE, saying what it
 * needs) when a budget in evaluations cannot afford the fresh runs and 8
 * evaluations of exploring; checked before any run by search_flow_check
 * and search_run. */
int search_spec_check_confirm(const struct search_spec *s, sl_err *e);

/* A search's plan, made before its first evaluation from the time one run
 * takes: the evaluations the budget buys, how they split, how long they
 * take, and the smallest effect the confirmation can detect. */
struct search_plan {
    double run_s;            /* one evaluation, set-up included */
    int evals;               /* what the budget buys (evaluations and wall time, whichever ends first) */
    int explore;             /* of them, exploring (and the race) */
    int confirm_reps;        /* fresh runs a side in the confirmation */
    double total_s;
    int verdict_evals;       /* the fewest evaluations that can reach a verdict */
    double noise_sd;         /* the log spread of one run assumed */
    double mde_pct;          /* the smallest improvement the confirmation detects with 80% power */
    bool paired;             /* the confirmation is decided paired by round */
    /* a default budget grown to reach a verdict (search_plan_grow_default):
     * the budget it was and what that bought; 0 when it was not */
    long long grown_from_ms;
    int grown_from_evals;
    /* what the search spent before the plan, timing its burst (the
     * calibration and the series): the command's whole time is this and
     * total_s; 0 when nothing was timed */
    double before_s;
};
/* The spread of a run's log throughput assumed before any is measured:
 * this project's VM disk showed 0.18 between back-to-back runs. */
#define SEARCH_NOISE_SD_ASSUMED 0.18
void search_plan_make(const struct search_spec *s, double run_s, double noise_sd, struct search_plan *p);
/* Rounds share a spell when their sums vary this much more than the
 * sizes of their differences (decide_pairs_shared_spread: a spell of 0.8
 * times a run's own spread). Without one, pairing only costs: a
 * signed-rank test gives one stall the canary missed its largest rank,
 * where trimmed means drop it (bench/search-efficiency, bo at budget 30,
 * paired always: claims on writeback-cv5-stall10 92% -> 70%, regret 8.6%
 * -> 15.1%). The other side of the choice is the rounds' test of trimmed
 * means (decide_rounds), and the choice reads no difference's sign, so
 * each test keeps its level: false claims on the flat grids 5.75% -> 4.4%
 * of 12000 searches, when the choice read the signed differences and the
 * other side was unpaired; claims on the recorded grids 90% -> 86%
 * (bench/data/confirm-exact.out, bench/data/confirm-paired-sim.out). */
#define SEARCH_CONFIRM_SHARED_SPREAD 1.5
/* The rounds' test (decide_rounds) decides a confirmation that is not
 * paired when at least this many of its 2^rounds swap patterns can
 * reject at alpha: 6 rounds at 0.05 (3 of 64), 7 at each of two looks'
 * 0.025. With fewer its p moves in steps too coarse to claim much: at 5
 * rounds only the pattern in which the candidate won every round can
 * (the case search-null's +9.4% on 5 rounds: p 0.062, where perm-trim
 * unpaired gives 0.0079); those go unpaired, as they did before the
 * rounds' test. */
#define SEARCH_ROUNDS_REJECTING 3
/* The confirmation's decision on its runs: np complete rounds (bp[i] and
 * xp[i] measured in round i) and every counted run (bs[nb], xs[nx]),
 * logs, at o's alpha and level. Paired by round when
 * search_confirm_paired says so; else, when search_confirm_in_rounds,
 * --test's location with its test over the swaps of a round's two runs
 * (decide_rounds), which the choice, made on what a swap does not
 * change, leaves at its level; else --test on the runs unpaired. The search and the verdict card (its
 * interval at another level) both decide through it. */
int search_confirm_decide(const struct search_spec *s, const double *bp, const double *xp, int np, const double *bs,
                          int nb, const double *xs, int nx, const struct decide_opts *o, struct decision *d);
/* How the confirmation chose to pair (search_confirm_decide), for the
 * report to say why. */
enum confirm_pairing {
    PAIRING_OFF,        /* confirm_paired_from 0: never paired */
    PAIRING_TOO_FEW,    /* too few rounds for the signed-rank test to reject at alpha (or to judge spells) */
    PAIRING_NO_SPELL,   /* the rounds share no spell for pairing to cancel: the rounds' swaps test */
    PAIRING_PAIRED,
};
enum confirm_pairing search_confirm_pairing(const struct search_spec *s, const double *b, const double *x, int rounds,
                                            double alpha);
/* A default confirmation (no --confirm-runs) grown to 30% of a large plan,
 * at most 20 fresh runs a side, and p made again: enough rounds to decide
 * the claim paired. Nothing changes when that is no more than the default. */
void search_plan_scale_confirmation(struct search_spec *s, struct search_plan *p);
/* The time budget a verdict needs at p's run time, in ms. */
long long search_plan_verdict_ms(const struct search_plan *p);
/* A budget the user did not give (the quick tune's 5 minutes) grows to
 * what a verdict needs when that is at most ceiling_ms, and p is made
 * again: a default command answers where its runs are slow (a VM that
 * waited about 14 s a run for its freed memory to go back to the host:
 * probe/settle.h). False, nothing changed, when p reaches a verdict
 * already, ceiling_ms is 0 (the budget is the user's) or a verdict needs
 * more. */
bool search_plan_grow_default(struct search_spec *s, struct search_plan *p, long long ceiling_ms);
/* The plan as the runs go: after n evaluations in elapsed_ms, how many
 * budget_ms (the wall time in force, search_trial.budget_ms; 0: none) will
 * have bought in all (the plan's, or fewer when the runs are slower than it
 * said and a wall time ends first) and the time left. first_ms: when the
 * first evaluation ended (-1: not known, a resumed search); from the
 * second on the pace is the runs' after it, as the first waits otherwise
 * (for the calibration's freed memory, or for none). */
void search_plan_progress(const struct search_plan *p, long long budget_ms, int n, long long elapsed_ms,
                          long long first_ms, int *evals, long long *left_ms);
/* Whether n runs in elapsed_ms are a quarter slower than a calibrated plan
 * said (*per: seconds a run), from the third run on: the plan said what the
 * budget buys at the calibration's rate, and a burst past the dirty
 * threshold can run at half of it (transfer-as-user-8: 6 s planned, 11 s
 * measured). An uncalibrated plan's run time is a guess (a null run's
 * 0.5 s of set-up): never. */
bool search_plan_off_pace(const struct search_plan *p, bool calibrated, int n, long long elapsed_ms, double *per);
/* "" when the confirmation's interval is within +-10 points of its
 * estimate; else one sentence: how wide, and what --confirm-runs would
 * narrow it to that. */
struct confirmation;
void search_confirm_precision(const struct confirmation *cf, char *buf, size_t n);

enum trial_role { TRIAL_BASELINE, TRIAL_EXPLORE, TRIAL_RACE, TRIAL_CONFIRM };
const char *trial_role_name(enum trial_role r);
int trial_role_parse(const char *name);

struct search_trial {
    int seq;
    enum trial_role role;
    struct search_config cfg;
    struct eval_metrics m;
    double score;
    long long elapsed_ms;    /* search time when it finished */
    int round;               /* the confirmation's round, from 1 (0: not a confirmation run) */
    long long budget_ms;     /* the wall-time budget in force when it finished (0: none): a default budget grows
                              * once when the runs prove slower (follow_pace), and progress counts from it */
};

enum verdict { VERDICT_WIN, VERDICT_NOISE, VERDICT_WORSE, VERDICT_INFEASIBLE, VERDICT_NONE };
const char *verdict_name(enum verdict v);

/* One collateral metric of a configuration against the baseline, decided
 * by decide.h like the verdict itself (its test and estimator, the
 * metric's direction): the baseline's runs against the configuration's
 * re-measured runs (the race and anything after it, never exploration). */
struct collateral_effect {
    int metric;                  /* enum metric_id */
    double base, cand;           /* medians of their runs, in the metric's unit */
    struct decision dec;         /* change, interval, verdict (better/worse: for the metric's users) */
};

struct leader {
    struct search_config cfg;
    int n;
    double mean_score;
    struct eval_metrics mean;    /* per-metric means over its trials */
    bool feasible;
    char infeasible_why[128];
    double p_welch, p_mw, p_adj; /* p_adj: Holm-adjusted p of the chosen test */
    struct ci ci;                /* improvement exp(score gain) - 1 (the decision's, as a fraction) */
    struct decision dec;         /* the chosen test's decision (estimator, test, why no verdict) */
    int look, looks;             /* decided at sequential look `look` of at most `looks` (0: not sequential) */
    double g;                    /* Hedges' g on scores */
    enum verdict verdict;
    int changes;                 /* knobs different from the baseline */
    /* a win the objective's guard ("reader_p99<=baseline") refused:
     * verdict INFEASIBLE, guard says what got worse */
    bool refused;
    struct collateral_effect guard;
    int stalled_out, stalled_kept;   /* flagged runs left out / kept by the stall rule */
};

/* The side-effects table of a verdict: every collateral metric both sides
 * measured, for the winner (or, when the guard refused every win, the
 * best refused one: what taking it would cost). */
#define SEARCH_MAX_EFFECTS 10
struct side_effects {
    int leader;                  /* index into leader[]; -1: no table */
    int n;
    bool by_host;                /* rows decided on host means (compare, recommend over a fleet) */
    struct collateral_effect row[SEARCH_MAX_EFFECTS];
};

struct pareto_point {
    struct search_config cfg;
    struct eval_metrics mean;
    struct eval_metrics sd;      /* sample sd of its runs (0 with one run) */
    int n;
    double lo[2], hi[2];         /* 95% interval of the mean on the front's two metrics */
};

/* The noise-aware Pareto front of pts[0..n-1] on metrics m[0], m[1]: a
 * configuration is left out only when another is better on both metrics
 * beyond noise, that is by more than a two-sided 5% pooled t-test allows
 * (the noise sd pooled over every configuration measured more than once:
 * the spread of repeated runs is the machine's, so the one-run points get
 * it too). Members are written to front[] best first on m[0], with their
 * intervals, at most max of them; returns how many are on the front (can
 * exceed max). Without any repeated measurement the noise is unknown and
 * nothing is left out. */
int search_pareto_front(const struct pareto_point *pts, int n, const int m[2], struct pareto_point *front, int max);

/* The confirmation round, within --budget (exploring and the race leave
 * it its evaluations): after exploring (the race, when the budget affords
 * one, included) named a winner, it and the baseline (and the runner-up
 * when the budget left affords it) are measured again, k times each,
 * interleaved in rotating order, with fresh runs (new seeds, new files),
 * at least 6 times and as often as exploring measured any of them, as the
 * budget allows; only these runs decide the claim. The claim's direction
 * is named before these runs (the winner is better), so the test is
 * one-sided; a second look is planned only when the budget left affords
 * it: when the first look leaves the claim open and the estimate is still
 * above the baseline, more rounds are measured and the second look
 * decides (alpha shared by the two looks as the race shares it). Exploring's estimate is inflated by selection
 * (the winner is the one whose runs came out best) and by a race that
 * stops when a leader looks decided: the difference is the shrinkage. */
enum confirm_outcome {
    CONFIRM_NONE,          /* nothing to confirm: exploring named no winner */
    CONFIRM_CONFIRMED,     /* the fresh runs show the improvement beyond noise */
    CONFIRM_NOISE,         /* within noise on the fresh runs: no win */
    CONFIRM_CONTRADICTED,  /* the fresh runs put it at or below the baseline: no win */
};
const char *confirm_outcome_name(enum confirm_outcome c);   /* "confirmed", "not confirmed", "contradicted", "" */

struct confirmation {
    enum confirm_outcome outcome;
    int candidate;               /* exploring's winner: index into leader[] (-1 none) */
    int runner_up;               /* the next best leader, measured beside it (-1 none) */
    int reps;                    /* fresh runs of each (at the look that decided) */
    int look, looks;             /* the look that decided, of at most `looks` */
    int stalled_out, stalled_kept;   /* its flagged runs left out (and measured again) / kept by the stall rule */
    double explore_est;          /* exploring's estimate of the candidate (a fraction) */
    double confirmed_est;        /* the fresh runs' estimate */
    double shrinkage;            /* 1 - confirmed / exploring: the share of the claim that did not hold */
    struct decision dec;         /* candidate against the baseline, fresh runs only */
    struct decision dec_runner;  /* runner-up against the baseline, fresh runs only (no claim) */
};

/* The stop_reason of a search whose budget ended exploring (the verdict
 * proposes a larger one then, and only then). */
#define SEARCH_STOP_BUDGET "budget spent"

struct search_result {
    int nevals;
    long long elapsed_ms;
    /* a default budget that grew when the runs proved slower than planned
     * (search_spec.budget_grows_to_ms): what it was and what it became, at
     * the pace of its first EXPLORE_MIN runs; 0 when it did not */
    long long budget_grown_from_ms, budget_grown_to_ms, budget_grown_pace_ms;
    char stop_reason[160];       /* why exploring stopped: SEARCH_STOP_BUDGET, or what the strategy said */
    int nbase;                   /* baseline runs the decisions use */
    int base_stalled_out, base_stalled_kept;   /* the stall rule on the baseline's runs */
    int stalled_runs;            /* runs the canary flagged, in the whole search */
    double base_mean_score, base_sd;
    struct eval_metrics base_mean;
    double mde;                  /* minimum detectable improvement at race size */
    /* false: no race (a budget in evaluations too small for exploring, a
     * race and the confirmation); exploring's best leader went straight to
     * the confirmation, whose decision is that leader's */
    bool raced;
    /* a race was planned, but the runs took longer than the plan said and
     * the time left could not afford it beside the confirmation: exploring's
     * best went straight to the confirmation */
    bool race_dropped;
    /* the race's runs had the candidate refused by a guard, and the
     * confirmation's fresh runs did not bear the refusal out: it won */
    bool race_refusal_dropped;
    /* the guard's decision on the race's runs when the confirmation
     * overturned it (above) or found no gain to refuse (metric 0 and no
     * runs otherwise) */
    struct collateral_effect race_guard;
    int nleaders;
    struct leader leader[SEARCH_MAX_LEADERS];
    int winner;                  /* index into leader[], -1: nothing beat the baseline */
    char winner_note[256];
    struct side_effects effects;
    int pareto_metric[2];
    int npareto;                 /* members listed in pareto[] */
    int pareto_size;             /* members in all (more than listed when the front is wide) */
    struct pareto_point pareto[SEARCH_MAX_PARETO];
    struct confirmation confirm;
    struct search_trial *trials;
    int ntrials;
};
void search_result_free(struct search_result *r);
/* The leader a verdict is about: the winner, or else a win a guard refused
 * (*refused set; NULL allowed); -1 when neither. */
int search_claim_leader(const struct search_result *r, bool *refused);

/* The stall rule (man page "Stalled runs"), fixed before any run: whether
 * trial t of tr[0..ntr-1] counts in decisions and means. A run the canary
 * flagged does not, unless more than half of its configuration's runs are
 * flagged (then the stalls are its own). */
bool search_trial_counts(const struct search_trial *tr, int ntr, const struct space *sp, int t);
/* Also left out: a trial whose score is NaN or infinite (a failed run's
 * metric): it counts nowhere, and the race or confirmation measures
 * again in its place. */

struct search_hooks {
    void *arg;
    /* Resume: the stored trial with this seq (1), or none (0). */
    int (*replay)(void *arg, int seq, struct search_trial *t);
    /* Persist a new trial; -1 stops the search with e. */
    int (*record)(void *arg, const struct search_trial *t, sl_err *e);
    /* After each trial (new or replayed). */
    void (*progress)(void *arg, const struct search_trial *t, const struct history *h);
    /* Milliseconds on a monotonic clock (NULL: CLOCK_MONOTONIC). */
    long long (*now_ms)(void *arg);
    /* True when the search must stop now (SIGINT/SIGTERM). */
    int (*interrupted)(void *arg);
};

/* Run a search over sp with evaluator ev. 0 with *out filled (free with
 * search_result_free); -1 with e on an evaluation or record failure, an
 * interruption (e->status SL_EFAIL, "interrupted"), or a resume mismatch. */
int search_run(const struct search_spec *spec, const struct space *sp, struct evaluator *ev,
               const struct search_hooks *hooks, struct search_result *out, sl_err *e);

/* Decide leaders against the baseline (used by search_run and compare):
 * fills p-values (Holm over n), intervals, effect sizes, verdicts. Scores
 * are log-unit objective scores. one_sided: only "better" is tested (the
 * race's screening; intervals at 1 - 2 alpha, whose lower end is the
 * one-sided bound); no leader is then found worse. */
void search_judge(struct leader *l, const double *const *scores, const int *nscores, int n,
                  const double *base, int nbase, double alpha, enum search_test test, uint64_t seed, bool one_sided);

/* effects.c: the objective's guards on the leaders that won (a win whose
 * guarded metric is worse than the baseline beyond noise is refused:
 * verdict INFEASIBLE, refused, guard, infeasible_why), before the winner is
 * picked from the rest; only >= 0: that leader alone (the confirmed winner,
 * judged again on its fresh runs). tr[0..ntr-1] are the search's trials,
 * base its baseline configuration. */
void search_guard_leaders(const struct search_spec *spec, const struct objective *o, const struct space *sp,
                          const struct search_trial *tr, int ntr, const struct search_config *base,
                          struct search_result *r, int only);
/* The side-effects table of r's winner (or best refused leader) into
 * r->effects: the collateral metrics outside the objective's terms. */
void search_side_effects(const struct search_spec *spec, const struct objective *o, const struct space *sp,
                         const struct search_trial *tr, int ntr, const struct search_config *base,
                         struct search_result *r);

/* The side-effects table of B's runs against A's (`sluice compare`,
 * `recommend`): each collateral metric outside o's terms that both sides
 * measured, decided with test at alpha; fx->leader is 0 with rows, -1
 * without. by_host (more than one host behind the runs): each host's mean
 * counts once, as in the comparison's verdict. */
struct effect_sides {
    const struct eval_metrics *a, *b;
    const char *const *host_a, *const *host_b;   /* the host of each run; NULL: one host */
    int na, nb;
    bool by_host;
};
void search_side_effects_of_runs(const struct objective *o, const struct effect_sides *sides, enum search_test test,
                                 double alpha, uint64_t seed, struct side_effects *fx);

/* Metrics as JSON text {"throughput": 12.3, ...} and back. */
void search_metrics_json(const struct eval_metrics *m, char *buf, size_t n);
int search_metrics_parse(const char *json, struct eval_metrics *m);

#endif
