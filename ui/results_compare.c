/* results_compare — the Results screen's comparison of groups of stored
 * runs (what `sluice compare` does): two configurations by their hash, two
 * searches (winner or baseline), or kernel releases; m marks group A, c
 * judges the group under the cursor (B) against it with the compare core's
 * interval, tests and verdict on MB/s. Kernels with none marked: every
 * release against the first, Bonferroni-corrected, like --by-kernel. */
#include "app.h"
#include "results_screen.h"
#include "search/compare.h"
#include "store_search.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNELS_MAX 16

static const char *const kind_names[GK_COUNT] = { "configuration", "search", "kernel" };

static void add_group(struct results *rs, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_group(struct results *rs, const char *key, const char *fmt, ...)
{
    rs->g = xrealloc(rs->g, sizeof *rs->g * (size_t)(rs->ng + 1));
    struct rgroup *g = &rs->g[rs->ng++];
    snprintf(g->key, sizeof g->key, "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->text, sizeof g->text, fmt, ap);
    va_end(ap);
}

/* The side's mean MB/s (evidence_mean: over the runs that measured it). */
static double mean_mb_s(const struct compare_side *s)
{
    struct eval_metrics mean;
    evidence_mean(s->m, s->n, &mean);
    return mean.v[MET_THROUGHPUT];
}

/* Configurations in the order first measured; each shows what it changes
 * against the first one. */
static void config_groups(struct results *rs)
{
    const struct evidence *ev = &rs->ev;
    for (int i = 0; i < ev->n; i++) {
        bool seen = false;
        for (int k = 0; k < rs->ng && !seen; k++) seen = strcmp(rs->g[k].key, ev->run[i].config_hash) == 0;
        if (seen) continue;
        struct compare_side s = { 0 };
        compare_hash_side(ev, ev->run[i].config_hash, &s);
        char diff[200] = "";
        if (rs->ng) evidence_config_diff(ev->run[0].config_text, ev->run[i].config_text, diff, sizeof diff);
        for (char *nl = diff; (nl = strchr(nl, '\n'));) *nl = ' ';
        add_group(rs, ev->run[i].config_hash, "%.8s  %3d runs  %8.1f MB/s  %s", ev->run[i].config_hash, s.n, mean_mb_s(&s),
                  rs->ng ? diff : "(the first measured)");
        compare_side_free(&s);
    }
}

static void search_groups(struct results *rs)
{
    sl_err e;
    store *st = app_store(rs->base.app, &e);
    struct search_row *rows = NULL;
    int n = st ? store_search_list(st, rs->workload, &rows, &e) : -1;
    if (n < 0) { app_message(rs->base.app, ROLE_ERROR, "%s", e.msg); return; }
    for (int i = 0; i < n; i++)
        add_group(rs, rows[i].uuid, "%.8s  %-8s %-6s %s", rows[i].uuid, rows[i].strategy, rows[i].verdict,
                  rows[i].winner_text[0] ? rows[i].winner_text : "no winner: its baseline");
    free(rows);
}

static void kernel_groups(struct results *rs)
{
    char kernels[KERNELS_MAX][128];
    int nk = compare_kernels(&rs->ev, kernels, KERNELS_MAX);
    for (int k = 0; k < nk; k++) {
        struct compare_side s = { 0 };
        compare_kernel_side(&rs->ev, kernels[k], &s);
        add_group(rs, kernels[k], "%-24s %3d runs  %8.1f MB/s (all configurations)", kernels[k], s.n, mean_mb_s(&s));
        compare_side_free(&s);
    }
}

static void build_groups(struct results *rs)
{
    free(rs->g);
    rs->g = NULL;
    rs->ng = 0;
    rs->gmark[0] = 0;
    if (rs->kind == GK_CONFIG) config_groups(rs);
    else if (rs->kind == GK_SEARCH) search_groups(rs);
    else kernel_groups(rs);
    rs->groups.cursor = -1;
    rs->groups.top = 0;
}

void results_groups_open(struct results *rs)
{
    sl_err e;
    store *st = app_store(rs->base.app, &e);
    if (!st) { app_message(rs->base.app, ROLE_ERROR, "%s", e.msg); return; }
    /* The workload of the run under the cursor, else the one most measured. */
    int sel = tv_selected_tag(&rs->list);
    snprintf(rs->workload, sizeof rs->workload, "%s", sel >= 0 ? rs->runs[sel].workload : "");
    evidence_free(&rs->ev);
    if (compare_load(st, rs->workload, sizeof rs->workload, &rs->ev, &e) < 0) {
        app_message(rs->base.app, ROLE_ERROR, "%s", e.msg);
        return;
    }
    if (rs->ev.n == 0) { app_message(rs->base.app, ROLE_WARN, "no successful runs stored yet: F4 Probe records some"); return; }
    rs->mode = RM_GROUPS;
    rs->groups.use_cursor = true;
    build_groups(rs);
}

void results_groups_free(struct results *rs)
{
    evidence_free(&rs->ev);
    free(rs->g);
    rs->g = NULL;
    rs->ng = 0;
    tv_free(&rs->groups);
}

void results_groups_draw(struct results *rs, struct rect r)
{
    int x = draw_text(r.y, r.x, r.w, ROLE_HEADER, "Compare by ");
    for (int k = 0; k < GK_COUNT; k++)
        x += draw_fmt(r.y, r.x + x, r.w - x, k == (int)rs->kind ? ROLE_SELECTED : ROLE_DIM, k == (int)rs->kind ? "[%s]" : " %s ",
                      kind_names[k]);
    draw_fmt(r.y, r.x + x, r.w - x, ROLE_DIM, "  workload %s", rs->workload);
    struct textview *tv = &rs->groups;
    int keep = tv_selected_tag(tv);
    tv_clear(tv);
    for (int i = 0; i < rs->ng; i++) {
        bool is_a = strcmp(rs->g[i].key, rs->gmark) == 0;
        tv_line(tv, true, i);
        tv_add(tv, is_a ? ROLE_PENDING : ROLE_NORMAL, "%s %s", is_a ? "A" : " ", rs->g[i].text);
    }
    if (rs->ng == 0) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, "  no %s to compare for workload %s", rs->kind == GK_SEARCH ? "finished search" : kind_names[rs->kind],
               rs->workload);
    }
    if (keep >= 0) tv_select_tag(tv, keep);
    tv_draw(tv, (struct rect){ r.y + 2, r.x, r.h - 4, r.w });
    draw_hline(r.y + r.h - 2, r.x, r.w, ROLE_DIM);
    draw_text(r.y + r.h - 1, r.x, r.w, ROLE_DIM,
              rs->kind == GK_KERNEL ? "Left/Right: group by; m marks A; c: B under the cursor against A (none marked: each against the first)"
                                    : "Left/Right: group by; m marks A; c: B under the cursor against A");
}

/* One side as `sluice compare` builds it; false with a message when empty. */
static bool side_of(struct results *rs, const char *key, struct compare_side *s, char *objective, size_t on)
{
    sl_err e;
    memset(s, 0, sizeof *s);
    if (rs->kind == GK_CONFIG) compare_hash_side(&rs->ev, key, s);
    else if (rs->kind == GK_KERNEL) compare_kernel_side(&rs->ev, key, s);
    else {
        store *st = app_store(rs->base.app, &e);
        if (!st || compare_search_side(st, key, s, objective, on, &e) < 0) {
            app_message(rs->base.app, ROLE_ERROR, "%s", e.msg);
            compare_side_free(s);
            return false;
        }
    }
    return true;
}

static void view_line(struct results *rs, enum role r, const char *text)
{
    char lines[4][256];
    int n = draw_wrap(text, 78, lines, 4);
    for (int k = 0; k < n; k++) {
        tv_line(&rs->view, false, -1);
        tv_add(&rs->view, r, "%s%s", k ? "    " : "", lines[k]);
    }
}

/* B against A on MB/s at alpha; the CLI's lines. */
static void judge(struct results *rs, const struct compare_side *a, const struct compare_side *b, double alpha)
{
    struct objective o;
    sl_err e;
    char line[1024];
    objective_parse("throughput", &o, &e);
    if (a->n < 2 || b->n < 2) {
        snprintf(line, sizeof line, "%s has %d run(s): each side needs at least 2 (record more with F4 Probe, repeat 2 or more)",
                 a->n < 2 ? a->label : b->label, a->n < 2 ? a->n : b->n);
        view_line(rs, ROLE_WARN, line);
        return;
    }
    struct comparison c;
    evidence_compare(&o, a->m, a->n, b->m, b->n, alpha, TEST_WELCH, &c);
    compare_side_line("A", a, &o, &c.mean_a, line, sizeof line);
    view_line(rs, ROLE_NORMAL, line);
    compare_side_line("B", b, &o, &c.mean_b, line, sizeof line);
    view_line(rs, ROLE_NORMAL, line);
    compare_result_line(&c, "throughput", line, sizeof line);
    view_line(rs, ROLE_NORMAL, line);
    snprintf(line, sizeof line, "verdict: %s", compare_verdict_text(&c.l));
    view_line(rs, c.l.verdict == VERDICT_WIN ? ROLE_OK : c.l.verdict == VERDICT_WORSE ? ROLE_ERROR : ROLE_WARN, line);
}

static void compare_groups(struct results *rs)
{
    int sel = tv_selected_tag(&rs->groups);
    char objective[160] = "";
    bool all_kernels = rs->kind == GK_KERNEL && !rs->gmark[0];
    if (sel < 0 || (!rs->gmark[0] && !all_kernels)) {
        app_message(rs->base.app, ROLE_WARN, "mark group A with m, then put the cursor on group B and press c");
        return;
    }
    const char *akey = all_kernels ? rs->g[0].key : rs->gmark;
    struct compare_side a;
    if (!side_of(rs, akey, &a, objective, sizeof objective)) return;
    results_open_view(rs, "Compare by %s: B against A on MB/s (Esc back)", kind_names[rs->kind]);
    char line[160];
    snprintf(line, sizeof line, "workload %s, objective throughput (MB/s)", rs->workload);
    view_line(rs, ROLE_HEADER, line);
    if (rs->kind == GK_SEARCH && objective[0] && strcmp(objective, "throughput") != 0) {
        snprintf(line, sizeof line, "(the searches optimised %s; compared here on MB/s)", objective);
        view_line(rs, ROLE_DIM, line);
    }
    int first = all_kernels ? 1 : sel, last = all_kernels ? rs->ng - 1 : sel;
    for (int k = first; k <= last; k++) {
        struct compare_side b;
        if (!side_of(rs, rs->g[k].key, &b, objective, sizeof objective)) break;
        tv_line(&rs->view, false, -1);
        judge(rs, &a, &b, all_kernels && rs->ng > 2 ? 0.05 / (rs->ng - 1) : 0.05);
        compare_side_free(&b);
    }
    if (all_kernels && rs->ng > 2) {
        snprintf(line, sizeof line, "(%d comparisons against %s; each at alpha 0.05/%d, Bonferroni)", rs->ng - 1, akey, rs->ng - 1);
        tv_line(&rs->view, false, -1);
        view_line(rs, ROLE_DIM, line);
    }
    if (all_kernels && rs->ng < 2) view_line(rs, ROLE_WARN, "only one kernel release has runs of this workload");
    compare_side_free(&a);
}

enum handled results_groups_key(struct results *rs, enum action a, int key)
{
    int sel = tv_selected_tag(&rs->groups);
    switch (a) {
    case ACT_BACK: rs->mode = RM_LIST; return H_HANDLED;
    case ACT_LEFT: case ACT_RIGHT:
        rs->kind = (enum group_kind)(((int)rs->kind + (a == ACT_LEFT ? GK_COUNT - 1 : 1)) % GK_COUNT);
        build_groups(rs);
        return H_HANDLED;
    case ACT_MARK:
        if (sel < 0) return H_HANDLED;
        if (strcmp(rs->gmark, rs->g[sel].key) == 0) rs->gmark[0] = 0;
        else snprintf(rs->gmark, sizeof rs->gmark, "%s", rs->g[sel].key);
        return H_HANDLED;
    case ACT_COMPARE: case ACT_EDIT: compare_groups(rs); return H_HANDLED;
    default: return tv_move(&rs->groups, a);
    }
}
