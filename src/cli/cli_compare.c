/* cli_compare — `sluice compare A B`: two configurations (KNOB=VALUE
 * selectors over stored runs), two searches (their winners, or baselines),
 * or runs grouped by kernel release (--by-kernel: did kernel B regress
 * against A?), with effect size, interval and verdict. The sides and the
 * lines come from search/compare.c, which the Results screen shares. */
#include "cli/cli.h"
#include "core/esc.h"
#include "search/compare.h"
#include "search/report.h"
#include "share/sync.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *comparison_json(const char *a, const char *b, const struct comparison *c)
{
    const struct leader *l = &c->l;
    json_t *j = json_pack("{s:s,s:s,s:i,s:i,s:o,s:o,s:o,s:o,s:o,s:s}", "a", a, "b", b, "runs_a", c->na, "runs_b", c->nb,
                          "change", isnan(l->ci.est) ? json_null() : json_real(l->ci.est), "ci",
                          json_pack("[oo]", isnan(l->ci.lo) ? json_null() : json_real(l->ci.lo),
                                    isnan(l->ci.hi) ? json_null() : json_real(l->ci.hi)),
                          "p_welch", json_real(l->p_welch), "p_mann_whitney", json_real(l->p_mw), "hedges_g", json_real(l->g),
                          "verdict", verdict_name(l->verdict));
    /* with hosts as the unit, runs_a/runs_b count hosts: say so */
    json_object_set_new(j, "unit", json_string(c->by_host ? "host" : "run"));
    json_object_set_new(j, "hosts_a", compare_hosts_json(&c->hosts_a));
    json_object_set_new(j, "hosts_b", compare_hosts_json(&c->hosts_b));
    if (c->by_host) json_object_set_new(j, "host_decision", json_string(c->host_decision));
    return j;
}

static void print_side(const char *tag, const struct compare_side *s, const struct objective *o, const struct eval_metrics *mean)
{
    char line[1024];
    compare_side_line(tag, s, o, mean, line, sizeof line);
    printf("%s\n", esc_t(line));  /* labels come from merged databases */
}

/* Where the runs came from, when more than one host gave them. */
static void print_hosts(const struct comparison *c)
{
    if (!c->by_host) return;
    char line[512];
    compare_hosts_line(&c->hosts_a, line, sizeof line);
    printf("A%s\n", esc_t(line));   /* host UUIDs come from merged databases */
    compare_hosts_line(&c->hosts_b, line, sizeof line);
    printf("B%s\n", esc_t(line));
    printf("unit: host (runs from %d and %d hosts: each host's mean counts once)\n", c->hosts_a.n, c->hosts_b.n);
}

/* By host, the line is decide_compare's on the host means (its counts are
 * hosts); by run, the run-level tests. */
static void print_comparison(const struct comparison *c, const char *objtext)
{
    char line[512];
    print_hosts(c);
    if (c->by_host) snprintf(line, sizeof line, "B against A: %s, host means: %s", objtext, c->host_decision);
    else compare_result_line(c, objtext, line, sizeof line);
    printf("%s\nverdict: %s\n", esc_t(line), compare_verdict_text(&c->l));
}

/* Runs of different work are not set against each other: false (and the
 * refusal said) when a and b are not comparable. */
static bool comparable(const struct compare_side *a, const struct compare_side *b)
{
    char why[512];
    if (compare_same_work(a, b, why, sizeof why)) return true;
    fprintf(stderr, "sluice: not compared: %s. A comparison needs the same work on both sides: measure both with the "
            "same probe options (the same --size), or compare two searches of one workload\n", esc_t(why));
    return false;
}

static int by_kernel(struct cli_ctx *ctx, const struct evidence *ev, int argc, char **argv, const struct objective *o,
                     const char *objtext, enum search_test test)
{
    char kernels[16][128];
    int nk = 0;
    if (argc == 2) {
        snprintf(kernels[0], sizeof kernels[0], "%s", argv[0]);
        snprintf(kernels[1], sizeof kernels[1], "%s", argv[1]);
        nk = 2;
    } else {
        nk = compare_kernels(ev, kernels, 16);
    }
    if (nk < 2) {
        fprintf(stderr, "sluice: compare --by-kernel needs runs from two kernel releases; found %d\n", nk);
        return SL_EUSAGE;
    }
    struct compare_side base = { 0 };
    compare_kernel_side(ev, kernels[0], &base);
    if (base.n < 2) {
        fprintf(stderr, "sluice: kernel %s has %d run(s) of this workload: at least 2 are needed\n", kernels[0], base.n);
        compare_side_free(&base);
        return SL_EUSAGE;
    }
    json_t *arr = ctx->json ? json_array() : NULL;
    if (!arr) printf("A: %s, %d runs (all configurations pooled)\n", esc_t(base.label), base.n);
    int rc = 0;
    for (int k = 1; k < nk; k++) {
        struct compare_side s = { 0 };
        compare_kernel_side(ev, kernels[k], &s);
        if (s.n < 2) {
            fprintf(stderr, "sluice: kernel %s has %d run(s): at least 2 are needed\n", kernels[k], s.n);
            rc = SL_EUSAGE;
        } else if (!comparable(&base, &s)) {
            rc = SL_EFAIL;
        } else {
            struct comparison c;
            compare_sides(o, &base, &s, 0.05 / (nk - 1), test, &c);
            if (arr) json_array_append_new(arr, comparison_json(base.label, s.label, &c));
            else {
                printf("\nB: %s, %d runs\n", esc_t(s.label), s.n);
                print_comparison(&c, objtext);
            }
            evidence_comparison_free(&c);
        }
        compare_side_free(&s);
    }
    if (arr) cli_print_json(arr);
    else if (nk > 2) printf("(%d comparisons against %s; each at alpha 0.05/%d, Bonferroni)\n", nk - 1, esc_t(kernels[0]), nk - 1);
    compare_side_free(&base);
    return rc;
}

struct compare_opts {
    char workload[32], objective[160];  /* "": the most measured one; the searches' or throughput */
    const char *server;                 /* runs from a central store instead of this database's */
    bool kernel, all_hardware;
    enum search_test test;
    int nargs;
    char **args;
};

static const struct opt_table compare_table;
static void compare_defaults(void *p)
{
    sl_err e;
    if (opt_defaults(&compare_table, p, &e) < 0) abort();   /* a broken row */
}

static const struct opt compare_rows[] = {
    { .name = "workload", .type = OPT_TEXT, .arg = "W", .def = "the most measured one", .flags = OPT_DEF_WORDS,
      .help = "compare runs of this workload", OPT_AT(struct compare_opts, workload), .complete = COMPLETE_WORKLOAD },
    { .name = "objective", .type = OPT_TEXT, .arg = "O", .def = "the searches' or throughput", .flags = OPT_DEF_WORDS,
      .help = "what 'better' means", OPT_AT(struct compare_opts, objective) },
    /* the tests of search's verdict (verdict.c); "mw" names hl-mw */
    { .name = "test", .type = OPT_ENUM, .arg = "TEST", .def = "welch", .help = "the significance test",
      OPT_AT(struct compare_opts, test), .choice_at = search_test_at, .choice_parse = search_test_parse },
    { .name = "by-kernel", .type = OPT_FLAG, .help = "compare kernel releases (every one, or the two named)",
      OPT_AT(struct compare_opts, kernel) },
    { .name = "any-hardware", .type = OPT_FLAG, .help = "use runs of any hardware, not only this host's class",
      OPT_AT(struct compare_opts, all_hardware) },
    { .name = "server", .type = OPT_TEXT, .arg = "URL", .def = "this database",
      .help = "compare the runs a postgresql:// central store holds for this host's hardware classes", .flags = OPT_DEF_WORDS,
      OPT_PTR(struct compare_opts, server) },
    { NULL },
};
static const struct opt_table compare_table = { sizeof(struct compare_opts), compare_defaults, { { compare_rows, 0 } },
                                                "A B | --by-kernel [KERNEL_A KERNEL_B]", NULL };

/* 0, or the exit status of a usage error. */
static int check_args(int argc, char **argv, struct compare_opts *co)
{
    co->nargs = argc - 1;
    co->args = argv + 1;
    if (!co->kernel && co->nargs != 2) return cli_usage("compare", "give two things to compare: KNOB=VALUE selectors or search ids");
    if (co->kernel && co->nargs != 0 && co->nargs != 2)
        return cli_usage("compare", "--by-kernel takes no argument (every kernel) or two kernel releases");
    return 0;
}

/* B against A at 5%, as JSON or the report lines (with the workload when
 * stored runs, not only searches, made a side). */
static int report(struct cli_ctx *ctx, const struct compare_opts *co, const struct compare_side *a,
                  const struct compare_side *b, const struct objective *o, bool from_runs)
{
    struct comparison cmp;
    compare_sides(o, a, b, 0.05, co->test, &cmp);
    /* what B costs beside what it wins, as every verdict says (seeded:
     * the same runs give the same table) */
    struct side_effects fx;
    struct effect_sides sides = { a->m, b->m, a->host, b->host, a->n, b->n, cmp.by_host };
    search_side_effects_of_runs(o, &sides, co->test, 0.05, 1, &fx);
    int rc = 0;
    if (ctx->json) {
        json_t *j = comparison_json(a->label, b->label, &cmp);
        json_object_set_new(j, "side_effects", report_effects_rows(&fx));
        rc = cli_print_json(j);
    } else {
        if (co->workload[0] && from_runs)
            printf("workload %s, objective %s%s\n", esc_t(co->workload), esc_t(co->objective),
                   co->all_hardware ? " (runs of any hardware)" : "");
        print_side("A", a, o, &cmp.mean_a);
        print_side("B", b, o, &cmp.mean_b);
        print_comparison(&cmp, co->objective);
        if (fx.n) report_effects_table(stdout, &fx, "B against A", "A", "B");
        else printf("side effects: not measured (these runs had no collateral reader: probe a write workload, "
                    "where the canary and its reader run by default)\n");
    }
    evidence_comparison_free(&cmp);
    return rc;
}

static int run_compare(struct cli_ctx *ctx, int argc, char **argv)
{
    struct compare_opts co = *(struct compare_opts *)ctx->opts;
    int rc = check_args(argc, argv, &co);
    if (rc) return rc;
    sl_err e;
    store *st = cli_store_read(ctx, &e);
    if (!st) return cli_error(&e);
    struct compare_side a = { 0 }, b = { 0 };
    struct evidence ev = { 0 };
    struct share_view view = { 0 };
    struct objective o;
    bool a_search = !co.kernel && !strchr(co.args[0], '='), b_search = !co.kernel && !strchr(co.args[1], '=');
    if ((a_search && compare_search_side(st, co.args[0], &a, co.objective, sizeof co.objective, &e) < 0) ||
        (b_search && compare_search_side(st, co.args[1], &b, co.objective, sizeof co.objective, &e) < 0)) {
        rc = cli_error(&e);
        goto out;
    }
    if (!co.objective[0]) snprintf(co.objective, sizeof co.objective, "throughput");
    if (objective_parse(co.objective, &o, &e) < 0) {
        rc = cli_usage("compare", "%s", e.msg);
        goto out;
    }
    if (co.kernel || !a_search || !b_search) {
        /* --server: the server's runs of this host's classes, judged alike. */
        if (co.server && share_view_open(st, co.server, &(struct share_opts){ .retries = 0 },
                                         co.workload[0] ? co.workload : NULL, co.all_hardware, &view, &e) < 0) {
            rc = cli_error(&e);
            goto out;
        }
        if (co.server && !ctx->json)
            printf("evidence from %s: %lld run%s of %s\n", esc_t(view.shown), view.runs, view.runs == 1 ? "" : "s",
                   co.all_hardware ? "any hardware" : "this host's hardware classes");
        if (compare_load_scoped(co.server ? view.s : st, co.all_hardware, co.workload, sizeof co.workload, &ev, &e) < 0) {
            rc = cli_error(&e);
            goto out;
        }
        if (ev.n == 0) {
            fprintf(stderr, "sluice: no stored runs%s%s: record some with 'sluice probe'\n", co.workload[0] ? " of workload " : "",
                    co.workload);
            rc = SL_EUSAGE;
            goto out;
        }
    }
    if (co.kernel) {
        rc = by_kernel(ctx, &ev, co.nargs, co.args, &o, co.objective, co.test);
        goto out;
    }
    if (!a_search) compare_config_side(&ev, co.args[0], &a);
    if (!b_search) compare_config_side(&ev, co.args[1], &b);
    if (a.n < 2 || b.n < 2) {
        fprintf(stderr, "sluice: %s has %d run(s)%s%s: each side needs at least 2 (record more with 'sluice probe')\n",
                a.n < 2 ? a.label : b.label, a.n < 2 ? a.n : b.n, co.workload[0] ? " of workload " : "", co.workload);
        rc = SL_EUSAGE;
        goto out;
    }
    if (!comparable(&a, &b)) {
        rc = SL_EFAIL;
        goto out;
    }
    rc = report(ctx, &co, &a, &b, &o, !a_search || !b_search);
out:
    evidence_free(&ev);
    share_view_close(&view);
    compare_side_free(&a);
    compare_side_free(&b);
    return rc;
}

CLI_COMMAND_OPTS(cmd_compare, "compare", run_compare, compare_table,
            "did B (configuration, search or kernel) beat or regress against A, with confidence", 0);
