/* cli_verify — `sluice verify --live CONFIG|PROFILE|SEARCH-ID`: a candidate checked on
 * the machine's own workload by the switchback engine (verify/live.h); this
 * file reads the candidate, prints the plan, a line per block and the
 * verdict. */
#include "cli/cli.h"
#include "cli/cli_profile.h"
#include "cli/cli_verify.h"
#include "profile/lifecycle.h"
#include "db/store_verify.h"
#include "db/store_search.h"
#include "core/sysfs.h"
#include "verify/live.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct verify_opts {
    bool live, keep, no_canary;
    long long duration_ms, block_ms;
    int seed;                 /* -1: from the clock (printed, to repeat the order) */
    const char *metric, *dir, *dirs;
    char better[8];
};

static void verify_defaults(void *p)
{
    struct verify_opts *o = p;
    o->duration_ms = 20 * 60 * 1000;
    o->block_ms = 60 * 1000;
    o->seed = -1;
    snprintf(o->better, sizeof o->better, "lower");
}

static const struct opt verify_rows[] = {
    { .name = "live", .type = OPT_FLAG, .help = "on the machine's own workload (the only mode)",
      OPT_AT(struct verify_opts, live) },
    { .name = "duration", .type = OPT_DURATION, .arg = "DURATION", .min = 1000, .max = 7 * 24 * 3600 * 1000.0, .def = "20m",
      .help = "the whole test, A and B blocks together", OPT_AT(struct verify_opts, duration_ms) },
    { .name = "block", .type = OPT_DURATION, .arg = "DURATION", .min = 1000, .max = 24 * 3600 * 1000.0, .def = "60s",
      .help = "one block of A or B, its settle time included", OPT_AT(struct verify_opts, block_ms) },
    { .name = "seed", .type = OPT_INT, .arg = "N", .min = 0, .max = 2147483647, .def = "from the clock",
      .help = "the random order of the pairs, to repeat a test", OPT_AT(struct verify_opts, seed) },
    { .name = "metric", .type = OPT_TEXT, .arg = "CMD",
      .help = "a shell command printing one number (a query's latency, a job's rate), run once a block",
      OPT_PTR(struct verify_opts, metric) },
    { .name = "metric-better", .type = OPT_CHOICE, .arg = "lower|higher", .def = "lower",
      .help = "which way --metric improves", OPT_AT(struct verify_opts, better), .complete = "lower higher" },
    { .name = "dir", .type = OPT_TEXT, .arg = "DIR",
      .help = "the workload's disk: vm.* knobs watch the disk under DIR (default: every disk that is not virtual), "
              "and the canary reads a scratch file there",
      OPT_PTR(struct verify_opts, dir), .complete = COMPLETE_DIR },
    { .name = "no-canary", .type = OPT_FLAG, .help = "no canary reader under --dir (a 4 KiB uncached read every 100 ms)",
      OPT_AT(struct verify_opts, no_canary) },
    { .name = "keep", .type = OPT_FLAG, .help = "keep B at the end if it held (no judged metric worse, no guard stop)",
      OPT_AT(struct verify_opts, keep) },
    { .name = "profiles", .type = OPT_TEXT, .arg = "DIR", .help = "look for profiles in DIR first (colon-separated list)",
      OPT_PTR(struct verify_opts, dirs), .complete = COMPLETE_DIR },
    { NULL },
};
static const struct opt_table verify_table = { sizeof(struct verify_opts), verify_defaults, { { verify_rows, 0 } },
                                              "KNOB=VALUE...|PROFILE|SEARCH-ID", COMPLETE_PROFILE };

/* A stored search's id (its UUID or a prefix of 4 or more of its hex
 * digits) rather than a profile's name. */
static bool search_id_like(const char *s)
{
    size_t n = strlen(s), hex = 0;
    for (size_t i = 0; i < n; i++) {
        if (isxdigit((unsigned char)s[i])) hex++;
        else if (s[i] != '-') return false;
    }
    return hex >= 4;
}

/* The winner of stored search id, as the knobset its verdict named; 1
 * when no search has that id (then it may be a profile's name). */
static int load_search(struct cli_ctx *ctx, const char *id, struct knobset *ks, sl_err *e)
{
    store *st = cli_store(ctx, e);
    if (!st) return -1;
    struct search_row row;
    sl_err nf;
    if (store_search_get(st, id, &row, &nf) < 0) return 1;
    if (strcmp(row.verdict, "win") != 0 || !row.winner_text[0])
        return sl_fail(e, SL_EUSAGE, "search %s has no winner (verdict: %s): nothing to verify. Nothing was changed",
                       row.uuid, row.verdict[0] ? row.verdict : row.state);
    char text[sizeof row.winner_text];
    snprintf(text, sizeof text, "%s", row.winner_text);
    for (char *save, *tok = strtok_r(text, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
        if (strchr(tok, '=') && knobset_add_assignment(ks, tok, e) < 0) return -1;
    return knobset_prepare(ks, e);
}

/* KNOB=VALUE pairs (as `set` takes them), a stored search's winner, or one
 * profile name (as `apply` resolves it), prepared: validated and ordered,
 * nothing written. */
static int load_candidate(struct cli_ctx *ctx, const struct verify_opts *o, int argc, char **argv, struct knobset *ks,
                          sl_err *e)
{
    bool assignments = false;
    for (int i = 1; i < argc; i++) assignments = assignments || strchr(argv[i], '=');
    if (!assignments) {
        if (argc > 2)
            return sl_fail(e, SL_EUSAGE, "give one profile or KNOB=VALUE pairs, not %d names. Nothing was changed", argc - 1);
        int rc = search_id_like(argv[1]) ? load_search(ctx, argv[1], ks, e) : 1;
        if (rc <= 0) return rc;
        struct profile p;
        struct plan pl;
        if (cli_profile_plan(o->dirs, argv[1], &p, &pl, e) < 0) return -1;
        rc = plan_knobset(&pl, ks, e);
        plan_free(&pl);
        profile_free(&p);
        return rc;
    }
    for (int i = 1; i < argc; i++)
        if (knobset_add_assignment(ks, argv[i], e) < 0) return -1;
    return knobset_prepare(ks, e);
}

static void print_order(const struct verify_plan *p)
{
    printf("  order:");
    for (int k = 0; k < p->npairs && k < 30; k++) printf(" %s", p->cand[2 * k] ? "BA" : "AB");
    printf("%s\n", p->npairs > 30 ? " ..." : "");
}

static void on_plan(void *arg, const struct verify_run *r)
{
    const struct verify_plan *p = &r->plan;
    const struct verify_spec *s = &r->spec;
    printf("verify --live: A = the settings in force, B = %s\n", p->cand_text);
    printf("  %d blocks of %.0f s in %d balanced pairs (the first AB, so the guard is set before B runs), seed %llu: "
           "%.0f s in all\n", p->nblocks, (double)s->block_ms / 1000, p->npairs, (unsigned long long)s->seed,
           (double)p->nblocks * (double)s->block_ms / 1000);
    print_order(p);
    printf("  watching:");
    for (int i = 0; i < p->ndisks; i++) printf(" %s", p->disks[i]);
    printf(" (%s)\n", p->disks_why);
    printf("  settle after a switch from A: %s\n", p->settle_why[0]);
    printf("  settle after a switch from B: %s\n", p->settle_why[1]);
    printf("  canary: %s\n", p->canary_why);
    printf("  guard: the first two A blocks set it; B is reverted at once when the mean of %s over %d samples of %.1f s "
           "passes %.0fx the worst such mean of those blocks (at least %.0f%%, %.0f ms%s)\n",
           p->canary ? "PSI io full, the average wait or the canary's slowest read" : "PSI io full or the average wait",
           s->guard_samples, (double)p->sample_ms / 1000, s->guard_factor, VERIFY_GUARD_PSI_FLOOR,
           VERIFY_GUARD_AWAIT_FLOOR_MS, p->canary ? ", 100 ms" : "");
    if (s->metric_cmd)
        printf("  guard on --metric: at the end of a B block, when it is %.0fx %s than the worst of the first two A "
               "blocks\n", s->guard_factor, s->metric_higher ? "lower" : "higher");
    printf("  decided on: average wait, PSI io some and full%s%s, together at the 0.05 level (Holm's levels over the "
           "metrics judged); throughput follows the workload's demand and is judged only on a saturated disk (the "
           "busiest watched disk over 90%% busy in the A blocks, diskstats io_ticks)\n",
           p->canary ? ", the canary's mean wait (its reads due every 100 ms, those a stall held back included)" : "", s->metric_cmd ? ", the --metric command" : "");
    int need = verify_pairs_needed(verify_plan_judged(p, s));
    if (p->npairs < need)
        printf("  note: %d pairs cannot show a difference at the 0.05 level over %d metrics (that takes %d pairs): a "
               "longer --duration or shorter --block\n", p->npairs, verify_plan_judged(p, s), need);
    printf("  session %s: Ctrl-C or SIGTERM puts the knobs back; after a SIGKILL 'sluice restore --crashed' does\n",
           r->session);
    fflush(stdout);
}

/* After each pair: what the whole test can see at the noise so far. */
static void print_detectable(const struct verify_run *r)
{
    static const enum verify_metric shown[] = { VM_AWAIT_MS, VM_PSI_SOME, VM_CANARY_MS, VM_USER };
    static const char *const what[] = { "the wait", "PSI io some", "the canary", "the metric" };
    char parts[256] = "";
    for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++) {
        double pct = verify_detectable_pct(r->blocks, r->ncomplete, shown[k], r->plan.npairs,
                                           verify_plan_judged(&r->plan, &r->spec));
        if (!isfinite(pct) || pct <= 0) continue;
        char amount[32];
        /* the noise of near-idle blocks makes this huge: a number past
         * doubling says nothing more */
        if (pct > 100) snprintf(amount, sizeof amount, "more than double");
        else snprintf(amount, sizeof amount, "%.0f%%", pct);
        snprintf(parts + strlen(parts), sizeof parts - strlen(parts), "%s%s in %s", parts[0] ? ", " : "", amount, what[k]);
    }
    if (parts[0])
        printf("  at the noise of the %d pair(s) so far, the whole test can show a change of about %s\n", r->ncomplete / 2,
               parts);
}

static void on_block(void *arg, const struct verify_run *r, int i)
{
    const struct verify_block *b = &r->blocks[i];
    printf("block %2d/%d %c  settle %4.1f s", i + 1, r->plan.nblocks, b->cand ? 'B' : 'A', (double)b->settle_ms / 1000);
    if (b->has[VM_AWAIT_MS])
        printf("  wait %.2f ms  read %.1f write %.1f MB/s  %.0f IOPS  busy %.0f%%", b->v[VM_AWAIT_MS],
               b->v[VM_READ_MBS], b->v[VM_WRITE_MBS], b->v[VM_IOPS], b->util_pct);
    if (b->has[VM_PSI_SOME]) printf("  psi some %.1f%% full %.1f%%", b->v[VM_PSI_SOME], b->v[VM_PSI_FULL]);
    if (b->has[VM_DIRTY_PAGES]) printf("  dirty %.0f wb %.0f", b->v[VM_DIRTY_PAGES], b->v[VM_WRITEBACK_PAGES]);
    if (b->has[VM_CANARY_MS]) printf("  canary %.2f ms (max %.1f)", b->v[VM_CANARY_MS], b->v[VM_CANARY_MAX_MS]);
    if (b->has[VM_USER]) printf("  metric %g", b->v[VM_USER]);
    long long left = (long long)(r->plan.nblocks - i - 1) * r->spec.block_ms;
    printf("  left %.0f s\n", (double)left / 1000);
    if (i % 2 == 1 && r->ncomplete == i + 1) print_detectable(r);
    if (b->note[0]) printf("  note: %s\n", b->note);
    fflush(stdout);
}

static void on_note(void *arg, const char *msg)
{
    printf("note: %s\n", msg);
    fflush(stdout);
}

static void print_metric(const struct verify_verdict *v, enum verify_metric m)
{
    const struct verify_metric_def *d = &verify_metrics[m];
    char effect[512];
    verify_effect_text(v, m, effect, sizeof effect);
    printf("  %-13s %-5s %10.3g %10.3g  %s\n", d->name, d->unit, v->a_mean[m], v->b_mean[m], effect);
}

static void print_verdict(const struct verify_run *r)
{
    const struct verify_verdict *v = &r->verdict;
    if (r->end == VE_GUARD || r->end == VE_IDLE || r->end == VE_INTERRUPTED) printf("%s\n", r->end_why);
    if (r->end == VE_FAILED) printf("the test failed part-way\n");
    if (r->end == VE_GUARD || r->end == VE_FAILED || r->end == VE_IDLE || v->npairs == 0) return;
    printf("verdict over %d pair(s): %s%s%s\n", v->npairs, verify_overall_name(v->overall), v->why[0] ? " — " : "",
           v->why);
    printf("  %-13s %-5s %10s %10s  %s\n", "METRIC", "UNIT", "A", "B", "EFFECT OF B");
    for (int m = 0; m < VM_NR; m++)
        if (v->has[m]) print_metric(v, (enum verify_metric)m);
    char line[512];
    verify_saturation_text(v, line, sizeof line);
    printf("  %s\n", line);
    if (v->demand_differs) {
        verify_demand_text(v, line, sizeof line);
        printf("warning: %s\n", line);
    }
}

static json_t *block_json(const struct verify_block *b)
{
    json_t *o = json_pack("{s:s,s:f,s:f,s:f,s:f,s:f}", "setting", b->cand ? "B" : "A", "start_s", b->start_ms / 1000.0,
                          "settle_s", b->settle_ms / 1000.0, "end_s", b->end_ms / 1000.0, "util_pct", b->util_pct,
                          "io_bytes_s", b->io_bytes_s);
    for (int m = 0; m < VM_NR; m++)
        if (b->has[m]) json_object_set_new(o, verify_metrics[m].name, json_real(b->v[m]));
    if (b->note[0]) json_object_set_new(o, "note", json_string(b->note));
    return o;
}

static json_t *verdict_json(const struct verify_verdict *v)
{
    json_t *metrics = json_object();
    for (int m = 0; m < VM_NR; m++) {
        if (!v->has[m]) continue;
        json_t *x = json_pack("{s:f,s:f,s:b}", "a_mean", v->a_mean[m], "b_mean", v->b_mean[m], "judged", v->decided[m]);
        if (v->decided[m]) json_object_set_new(x, "decision", decide_json(&v->d[m]));
        json_object_set_new(metrics, verify_metrics[m].name, x);
    }
    json_t *o = json_pack("{s:s,s:i,s:b,s:f,s:b,s:b,s:o}", "overall", verify_overall_name(v->overall), "pairs", v->npairs,
                          "saturated", v->saturated, "a_util_pct", v->a_util_pct, "held", v->held, "demand_differs",
                          v->demand_differs, "metrics", metrics);
    if (v->npairs) json_object_set_new(o, "demand", decide_json(&v->demand));
    if (v->why[0]) json_object_set_new(o, "note", json_string(v->why));
    return o;
}

/* The whole test as JSON: the plan, every block, the verdict, the end. */
static json_t *run_json(const struct verify_run *r)
{
    const struct verify_plan *p = &r->plan;
    json_t *disks = json_array(), *blocks = json_array();
    for (int i = 0; i < p->ndisks; i++) json_array_append_new(disks, json_string(p->disks[i]));
    for (int i = 0; i < r->ndone; i++) json_array_append_new(blocks, block_json(&r->blocks[i]));
    /* the seed as a string, as every command gives it (jq rounds 64-bit numbers) */
    json_t *o = json_pack("{s:s,s:o,s:i,s:f,s:[f,f],s:[s,s],s:o,s:s,s:o,s:s,s:s,s:b,s:s}", "candidate", p->cand_text,
                          "seed", json_sprintf("%llu", (unsigned long long)r->spec.seed), "blocks_planned", p->nblocks, "block_s",
                          r->spec.block_ms / 1000.0, "settle_s", p->settle_after_ms[0] / 1000.0,
                          p->settle_after_ms[1] / 1000.0, "settle_why", p->settle_why[0], p->settle_why[1], "disks", disks,
                          "session", r->session, "blocks", blocks, "end", verify_end_name(r->end), "why", r->end_why, "kept",
                          r->kept, "put_back", r->put_back);
    if (r->id) json_object_set_new(o, "uuid", json_string(r->uuid));
    json_object_set_new(o, "canary", json_pack("{s:b,s:s}", "on", p->canary, "why", p->canary_why));
    if (r->ncomplete >= 2) json_object_set_new(o, "verdict", verdict_json(&r->verdict));
    return o;
}

int cli_verify_print_list(store *st, sl_err *e)
{
    struct verify_row *rows = NULL;
    int n = store_verify_list(st, &rows, e);
    if (n <= 0) {
        free(rows);   /* an empty list is still an allocation */
        return n;
    }
    printf("\nlive verifications ('sluice report VERIFY' shows one):\n");
    struct table *t = table_new(7, "VERIFY", "SESSION", "STARTED", "STATE", "BLOCKS", "VERDICT", "CANDIDATE (B)");
    for (int i = 0; i < n; i++) {
        const struct verify_row *v = &rows[i];
        char id[9], session[9], blocks[32];
        snprintf(id, sizeof id, "%.8s", v->uuid);
        snprintf(session, sizeof session, "%.8s", v->session_uuid[0] ? v->session_uuid : "-");
        snprintf(blocks, sizeof blocks, "%d of %d", v->nblocks, store_verify_planned(v));
        table_row(t, id, session, v->started, v->state, blocks, v->verdict[0] ? v->verdict : "-", v->candidate);
    }
    table_print(t);
    free(rows);
    return 0;
}

/* Run a prepared live verification of ks: the plan, a line per block and
 * the verdict on stdout, or with --json its whole record into *json_out (a
 * new reference; may be NULL). Returns as verify_live; r->end and
 * r->verdict say how it ended. */
static int cli_verify_run(struct cli_ctx *ctx, store *st, struct verify_run *r, const struct knobset *ks,
                          json_t **json_out, sl_err *e)
{
    struct verify_observer obs = { .plan = on_plan, .block = on_block, .note = on_note };
    int rc = verify_live(st, r, ks, ctx->json ? NULL : &obs, e);
    if (ctx->json && r->blocks && json_out) *json_out = run_json(r);
    else if (r->blocks && !ctx->json) print_verdict(r);
    if (!ctx->json && r->put_back[0]) printf("%s\n", r->put_back);
    if (!ctx->json && r->id) printf("stored as verification %.8s: 'sluice report' with its id draws its blocks\n", r->uuid);
    return rc;
}

static int run_verify(struct cli_ctx *ctx, int argc, char **argv)
{
    const struct verify_opts *o = ctx->opts;
    if (!o->live) return cli_usage("verify", "only the live mode exists: sluice verify --live KNOB=VALUE...|PROFILE|SEARCH-ID");
    if (argc < 2) return cli_usage("verify", "give the candidate: KNOB=VALUE pairs, a profile or a search's id. Nothing was changed");
    struct verify_spec spec = { .duration_ms = o->duration_ms, .block_ms = o->block_ms, .dir = o->dir, .no_canary = o->no_canary,
                                .metric_cmd = o->metric, .metric_higher = strcmp(o->better, "higher") == 0,
                                .keep = o->keep };
    spec.seed = o->seed >= 0 ? (uint64_t)o->seed : (uint64_t)time(NULL) % 1000000;
    struct knobset ks = { 0 };
    struct verify_run r;
    sl_err e;
    int rc = load_candidate(ctx, o, argc, argv, &ks, &e);
    if (rc == 0) rc = verify_prepare(&r, &spec, &ks, &e);
    if (rc == 0) rc = sysfs_require_root("sluice verify --live", &e);
    store *st = rc == 0 ? cli_store(ctx, &e) : NULL;
    if (rc < 0 || !st) { knobset_free(&ks); return cli_error(&e); }
    json_t *out = NULL;
    rc = cli_verify_run(ctx, st, &r, &ks, &out, &e);
    if (out) cli_print_json(out);
    verify_run_free(&r);
    knobset_free(&ks);
    if (rc < 0) return cli_error(&e);
    return r.end == VE_DONE || r.end == VE_IDLE ? 0 : SL_EFAIL;
}

/* --verify-live's blocks: 60 s, or shorter so the test holds
 * VERIFY_PAIRS_FOR_VERDICT pairs (enough for the metrics judged to show a
 * difference together), never under a second. */
#define VERIFY_APPLY_BLOCK_MS 60000
static long long verify_block_ms(long long duration_ms)
{
    long long b = duration_ms / (2 * VERIFY_PAIRS_FOR_VERDICT);
    if (b > VERIFY_APPLY_BLOCK_MS) b = VERIFY_APPLY_BLOCK_MS;
    return b < 1000 ? 1000 : b;
}

/* Why a verified switch is not applied ("" when it held). */
static void not_held_why(const struct verify_run *r, char *buf, size_t n)
{
    buf[0] = 0;
    if (r->end == VE_IDLE) { snprintf(buf, n, "nothing was verified: %s", r->end_why); return; }
    if (r->end != VE_DONE) { snprintf(buf, n, "%s", r->end_why); return; }
    if (r->verdict.held) return;
    size_t len = (size_t)snprintf(buf, n, "it made things worse beyond noise:");
    for (int m = 0; m < VM_NR && len < n; m++)
        if (r->verdict.decided[m] && r->verdict.d[m].verdict == DECIDE_WORSE)
            len += (size_t)snprintf(buf + len, n - len, " %s %+.1f%% [%+.1f%%, %+.1f%%]", verify_metrics[m].name,
                                    r->verdict.d[m].effect_pct, r->verdict.d[m].lo_pct, r->verdict.d[m].hi_pct);
}

/* --verify-live: the switch's writes verified first as a candidate (B)
 * against the settings in force (A), in a journaled session of their own
 * that ends with everything put back; only then is the switch written
 * through the lifecycle, so the profile in force is right either way. 0
 * when it held (write it), SL_EFAIL when it did not (said why, nothing
 * changed), another status on error. */
static int apply_verify_first(struct cli_ctx *ctx, store *st, long long duration_ms, const char *dir,
                              const struct profile *p, const struct profile_switch *sw, json_t *out)
{
    sl_err e;
    if (duration_ms < VERIFY_MIN_BLOCKS * 1000LL)
        return cli_usage("apply", "--verify-live %.0f s is too short: the test needs two pairs of blocks of at least "
                         "1 s (--verify-live 4s), and %d pairs to show a difference (%ds). Nothing was changed",
                         (double)duration_ms / 1000, VERIFY_PAIRS_FOR_VERDICT, 2 * VERIFY_PAIRS_FOR_VERDICT);
    char source[PROFILE_NAME_MAX + 16];
    snprintf(source, sizeof source, "apply %s", p->name);
    struct verify_spec spec = { .duration_ms = duration_ms, .block_ms = verify_block_ms(duration_ms),
                                .dir = dir, .seed = (uint64_t)time(NULL) % 1000000, .source = source };
    struct verify_run r;
    if (verify_prepare(&r, &spec, &sw->ks, &e) < 0) return cli_error(&e);
    json_t *vj = NULL;
    if (cli_verify_run(ctx, st, &r, &sw->ks, &vj, &e) < 0) {
        json_decref(vj);
        verify_run_free(&r);
        return cli_error(&e);
    }
    char why[1024];
    not_held_why(&r, why, sizeof why);
    if (out) {
        if (vj) json_object_set_new(out, "verify", vj);
        json_object_set_new(out, "verified", json_boolean(!why[0]));
        if (why[0]) json_object_set_new(out, "not_applied", json_string(why));
    }
    if (!ctx->json && why[0])
        printf("profile %s not applied: %s. The settings from before the test are in force%s%s\n", p->name, why,
               sw->has_prev ? ", and so is profile " : "", sw->has_prev ? sw->prev.profile : "");
    else if (!ctx->json)
        printf("profile %s held over %d pair(s) (%s): applying it\n", p->name, r.verdict.npairs,
               verify_overall_name(r.verdict.overall));
    verify_run_free(&r);
    return why[0] ? SL_EFAIL : 0;
}

/* apply --verify-live and the lists of `sessions` go through hooks that
 * only a binary linking this file has (sluice-apply does not). */
__attribute__((constructor)) static void verify_hooks_register(void)
{
    cli_apply_verify_hook = apply_verify_first;
    cli_verify_list_hook = cli_verify_print_list;
}

CLI_COMMAND_OPTS(cmd_verify, "verify", run_verify, verify_table,
                 "check a candidate on the machine's own workload: A and B alternate in paired blocks, "
                 "a guard reverts B when it stalls the disk", CLI_WRITES);
