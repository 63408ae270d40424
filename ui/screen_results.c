/* screen_results — stored probe runs (what `sluice history` lists), newest
 * first, with a filter; a run's stored metrics; and two batches of
 * repetitions compared with the search's own verdict (Welch with Holm, a
 * bootstrap interval of the improvement; "within noise" is never a win);
 * and groups of runs compared (configurations, searches, kernels). */
#include "ui/app.h"
#include "ui/detail.h"
#include "ui/prompt.h"
#include "report/chart.h"
#include "report/report_compare.h"
#include "ui/sortcols.h"
#include "search/compare.h"
#include "search/evidence.h"
#include "db/store_search.h"
#include "probe/probe.h"
#include "search/search.h"
#include "db/store_run.h"
#include "ui/textview.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct screen_class results_screen;

enum rmode { RM_LIST, RM_FILTER, RM_GROUPS };
enum group_kind { GK_CONFIG, GK_SEARCH, GK_KERNEL, GK_COUNT };

struct rgroup {
    char key[128];                   /* config hash, search uuid, kernel release */
    char text[300];                  /* the line the list shows */
};

struct results {
    struct screen base;
    struct run_row *runs;
    int n;
    char (*search_of)[9];            /* the search each run was a trial of ("-": none) */
    struct textview list, groups;
    enum rmode mode;
    char filter[64], input[64];
    char marked[37];                 /* uuid of run A, "" none */
    struct detail detail;            /* Enter on a run: its report; c: a comparison */
    /* compare by group (results_compare.c) */
    enum group_kind kind;
    char workload[32];
    struct evidence ev;
    struct rgroup *g;
    int ng;
    char gmark[128];                 /* key of group A, "" none */
    struct sort_cols sort;           /* the list's columns and sort column (< >): STARTED by default */
};

/* The list's columns, in the order drawn; < and > move the sort along them
 * (the widths leave room for the sort mark). Text ascending; numbers
 * largest first, P99 smallest first (the best first); STARTED newest
 * first, the order the store lists. */
enum rcol { RC_RUN, RC_STARTED, RC_WORKLOAD, RC_CONFIG, RC_SEARCH, RC_DEVICE, RC_STATUS, RC_MBS, RC_IOPS, RC_P99, RC_COUNT };
/* CONFIG (the configuration's hash) and SEARCH (the search a run was a
 * trial of) tell apart runs that look the same; DEVICE and IOPS need more
 * than 80 columns (widths set at each draw). */
static const struct sort_col columns[RC_COUNT] = {
    { "  RUN", 10, true }, { "STARTED", 11, false }, { "WORKLOAD", 9, true }, { "CONFIG", 8, true }, { "SEARCH", 8, true },
    { "DEVICE", 7, true }, { "STATUS", 7, true }, { "MB/S", 8, false }, { "IOPS", 7, false }, { "P99", 8, true },
};
#define WIDE_COLS 98   /* from this width DEVICE and IOPS are shown too */

static int by_column(int i, int j, void *arg)
{
    const struct results *rs = arg;
    const struct run_row *a = &rs->runs[i], *b = &rs->runs[j];
    switch (rs->sort.by) {
    case RC_RUN: return strcmp(a->uuid, b->uuid);
    case RC_WORKLOAD: return strcmp(a->workload, b->workload);
    case RC_CONFIG: return strcmp(a->config_hash, b->config_hash);
    case RC_SEARCH: return strcmp(rs->search_of[i], rs->search_of[j]);
    case RC_DEVICE: return strcmp(a->device, b->device);
    case RC_STATUS: return strcmp(a->status, b->status);
    case RC_MBS: return (a->m.mb_s < b->m.mb_s) - (a->m.mb_s > b->m.mb_s);
    case RC_IOPS: return (a->m.iops < b->m.iops) - (a->m.iops > b->m.iops);
    case RC_P99: return (a->m.lat_p99_ns > b->m.lat_p99_ns) - (a->m.lat_p99_ns < b->m.lat_p99_ns);
    default: return 0;
    }
}

#define RUNS_MAX 2000

struct run_search { char run[37], search[9]; };
static int by_run(const void *x, const void *y)
{
    return strcmp(((const struct run_search *)x)->run, ((const struct run_search *)y)->run);
}

/* Which search each listed run was a trial of, from the stored trials. */
static void map_searches(struct results *rs, store *st)
{
    free(rs->search_of);
    rs->search_of = xcalloc((size_t)rs->n + 1, sizeof *rs->search_of);
    for (int i = 0; i < rs->n; i++) snprintf(rs->search_of[i], sizeof rs->search_of[i], "-");
    struct search_row *rows = NULL;
    sl_err e;
    int ns = store_search_list(st, NULL, &rows, &e);
    struct run_search *map = NULL;
    int nm = 0, cap = 0;
    for (int k = 0; k < ns; k++) {
        struct trial_row *t;
        int nt = store_search_trials(st, rows[k].id, &t, &e);
        for (int i = 0; i < nt; i++) {
            if (!t[i].run_uuid[0]) continue;
            map = xgrow(map, nm, &cap, sizeof *map, 64);
            snprintf(map[nm].run, sizeof map[nm].run, "%s", t[i].run_uuid);
            snprintf(map[nm].search, sizeof map[nm].search, "%.8s", rows[k].uuid);
            nm++;
        }
        if (nt > 0) free(t);
    }
    free(rows);
    if (nm) qsort(map, (size_t)nm, sizeof *map, by_run);
    for (int i = 0; i < rs->n && nm; i++) {
        struct run_search key;
        snprintf(key.run, sizeof key.run, "%s", rs->runs[i].uuid);
        const struct run_search *hit = bsearch(&key, map, (size_t)nm, sizeof *map, by_run);
        if (hit) snprintf(rs->search_of[i], sizeof rs->search_of[i], "%s", hit->search);
    }
    free(map);
}

static void results_refresh(struct results *rs)
{
    sl_err e;
    store *st = app_store(rs->base.app, &e);
    free(rs->runs);
    rs->runs = NULL;
    rs->n = 0;
    if (!st) { app_message(rs->base.app, ROLE_ERROR, "%s", e.msg); return; }
    int n = store_run_list(st, NULL, RUNS_MAX, &rs->runs, &e);
    if (n < 0) { app_message(rs->base.app, ROLE_ERROR, "%s", e.msg); rs->runs = NULL; return; }
    rs->n = n;
    map_searches(rs, st);
}

static bool matches(const struct results *rs, const struct run_row *r)
{
    if (!rs->filter[0]) return true;
    const char *fields[] = { r->workload, r->device, r->status, r->started, r->config_hash, r->uuid, r->kernel };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strstr(fields[i], rs->filter)) return true;
    return false;
}

static void build_list(struct results *rs)
{
    struct textview *tv = &rs->list;
    int keep = tv_selected_tag(tv);
    tv_clear(tv);
    int shown = 0, *order = xcalloc((size_t)rs->n + 1, sizeof *order);
    sort_cols_order(&rs->sort, order, rs->n, by_column, rs);
    for (int k = 0; k < rs->n; k++) {
        int i = order[k];
        const struct run_row *r = &rs->runs[i];
        if (!matches(rs, r)) continue;
        shown++;
        char id[12], when[20], mbs[16], iops[16], p99[16], canary[16], cfg[9];
        bool is_a = strcmp(r->uuid, rs->marked) == 0;
        snprintf(id, sizeof id, "%s%.8s", is_a ? "A " : "  ", r->uuid);
        snprintf(when, sizeof when, "%.11s", r->started[0] && strlen(r->started) >= 16 ? r->started + 5 : r->started);
        if (strlen(when) >= 6) when[5] = ' ';   /* "12-02 14:48" */
        snprintf(cfg, sizeof cfg, "%.8s", r->config_hash[0] ? r->config_hash : "-");
        snprintf(mbs, sizeof mbs, "%.1f", r->m.mb_s);
        snprintf(iops, sizeof iops, "%.0f", r->m.iops);
        run_metric_text(RM_lat_p99_ns, r->m.lat_p99_ns, p99, sizeof p99);
        run_metric_text(RM_canary_max_ns, r->m.canary_max_ns, canary, sizeof canary);
        bool ok = strcmp(r->status, "ok") == 0 || strcmp(r->status, "warm") == 0;
        enum role base = is_a ? ROLE_PENDING : ROLE_NORMAL;
        const char *cells[RC_COUNT] = { id, when, r->workload, cfg, rs->search_of[i], r->device[0] ? r->device : "-",
                                        r->status, mbs, iops, p99 };
        tv_line(tv, true, i);
        for (int c = 0; c < RC_COUNT; c++)
            if (rs->sort.col[c].width > 0)
                tv_cell(tv, c == RC_STATUS && !ok ? ROLE_ERROR : base, rs->sort.col[c].width, cells[c]);
    }
    free(order);
    if (shown == 0) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, rs->n ? "  no run matches the filter \"%s\"" : "  no runs stored yet: F4 Probe runs one%s",
               rs->n ? rs->filter : "");
    }
    if (keep >= 0) tv_select_tag(tv, keep);
}

/* A run's detail view: everything stored, with its charts (src/report). */
static void show_run(struct results *rs, const struct run_row *r)
{
    detail_open(&rs->detail, app_store(rs->base.app, NULL), r->uuid);
}

/* Run B (under the cursor) against the marked run A, each with its batch:
 * the core's comparison (src/report "A..B": compare's sides, work check,
 * statistics, the interval's basis) with their charts overlaid. */
static void compare(struct results *rs)
{
    struct app *app = rs->base.app;
    int sel = tv_selected_tag(&rs->list);
    if (!rs->marked[0] || sel < 0) { app_message(app, ROLE_WARN, "mark run A with m, then put the cursor on run B and press c"); return; }
    char id[80];
    snprintf(id, sizeof id, "%s..%s", rs->marked, rs->runs[sel].uuid);
    detail_open(&rs->detail, app_store(app, NULL), id);
}

/* --- groups compared ---------------------------------------------------------
 * Groups of stored runs compared (what `sluice compare` does): two configurations by their hash, two
 * searches (winner or baseline), or kernel releases; m marks group A, c
 * judges the group under the cursor (B) against it with the compare core's
 * interval, tests and verdict on MB/s. Kernels with none marked: every
 * release against the first, Bonferroni-corrected, like --by-kernel. */

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
    /* each search twice: its baseline and its winner (c on a winner with
     * nothing marked: against its own baseline) */
    for (int i = 0; i < n; i++) {
        char key[64];
        snprintf(key, sizeof key, "%s:baseline", rows[i].uuid);
        add_group(rs, key, "%.8s  baseline  %-8s the settings it started from", rows[i].uuid, rows[i].strategy);
        if (rows[i].winner_text[0])
            add_group(rs, rows[i].uuid, "%.8s  winner    %-8s %-6s %s", rows[i].uuid, rows[i].strategy, rows[i].verdict,
                      rows[i].winner_text);
    }
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

static void results_groups_open(struct results *rs)
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

static void results_groups_free(struct results *rs)
{
    evidence_free(&rs->ev);
    free(rs->g);
    rs->g = NULL;
    rs->ng = 0;
    tv_free(&rs->groups);
}

static void results_groups_draw(struct results *rs, struct rect r)
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
              : rs->kind == GK_SEARCH ? "Left/Right: group by; c on a winner: against its baseline; m marks A, c: B against A"
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
        char id[64];
        snprintf(id, sizeof id, "%.*s", (int)strcspn(key, ":"), key);
        enum search_part part = strchr(key, ':') ? PART_BASELINE : PART_WINNER;
        if (!st || compare_search_part(st, id, part, s, objective, on, &e) < 0) {
            app_message(rs->base.app, ROLE_ERROR, "%s", e.msg);
            compare_side_free(s);
            return false;
        }
    }
    return true;
}

/* B (the group under the cursor, or with kernels and none marked every
 * release) against A: the core's comparison document (src/report: the
 * verdict card with its side-effects table, the sides, the interval's
 * basis, both sides' runs drawn on one scale), what `sluice compare
 * --html` writes, in the detail view. */
static void compare_groups(struct results *rs)
{
    int sel = tv_selected_tag(&rs->groups);
    char objective[160] = "";
    bool all_kernels = rs->kind == GK_KERNEL && !rs->gmark[0];
    /* a search's winner with nothing marked: against its own baseline */
    bool own_base = rs->kind == GK_SEARCH && !rs->gmark[0] && sel >= 0 && !strchr(rs->g[sel].key, ':');
    char base_key[64];
    if (own_base) snprintf(base_key, sizeof base_key, "%s:baseline", rs->g[sel].key);
    if (sel < 0 || (!rs->gmark[0] && !all_kernels && !own_base)) {
        app_message(rs->base.app, ROLE_WARN, rs->kind == GK_SEARCH
                    ? "c on a search's winner compares it with its baseline; or mark group A with m, then c on group B"
                    : "mark group A with m, then put the cursor on group B and press c");
        return;
    }
    const char *akey = all_kernels ? rs->g[0].key : own_base ? base_key : rs->gmark;
    struct compare_side a;
    if (!side_of(rs, akey, &a, objective, sizeof objective)) return;
    struct objective o;
    objective_parse("throughput", &o, NULL);
    struct report rep = { 0 };
    snprintf(rep.title, sizeof rep.title, "Compare by %s: B against A on MB/s", kind_names[rs->kind]);
    snprintf(rep.kind, sizeof rep.kind, "compare");
    report_add(&rep, RI_NOTE, "workload %s, objective throughput (MB/s)", rs->workload);
    if (rs->kind == GK_SEARCH && objective[0] && strcmp(objective, "throughput") != 0)
        report_add(&rep, RI_NOTE, "(the searches optimised %s; compared here on MB/s)", objective);
    int first = all_kernels ? 1 : sel, last = all_kernels ? rs->ng - 1 : sel;
    for (int k = first; k <= last; k++) {
        struct compare_side b;
        if (!side_of(rs, rs->g[k].key, &b, objective, sizeof objective)) break;
        if (all_kernels) report_add(&rep, RI_HEAD, "B = %s against A = %s", b.label, a.label);
        report_compare_sides(&rep, &o, "throughput", &a, &b, all_kernels && rs->ng > 2 ? 0.05 / (rs->ng - 1) : 0.05,
                             TEST_WELCH, true);
        compare_side_free(&b);
    }
    if (all_kernels && rs->ng > 2)
        report_add(&rep, RI_NOTE, "(%d comparisons against %s; each at alpha 0.05/%d, Bonferroni)", rs->ng - 1, akey,
                   rs->ng - 1);
    if (all_kernels && rs->ng < 2) report_add(&rep, RI_WARN, "only one kernel release has runs of this workload");
    compare_side_free(&a);
    detail_open_report(&rs->detail, app_store(rs->base.app, NULL), &rep);
}

/* m on a row (a run, a group): it becomes A, or stops being A if it was. */
static void toggle_mark(char *mark, size_t n, const char *key)
{
    if (strcmp(mark, key) == 0) mark[0] = 0;
    else snprintf(mark, n, "%s", key);
}

static enum handled results_groups_key(struct results *rs, enum action a, int key)
{
    int sel = tv_selected_tag(&rs->groups);
    switch (a) {
    case ACT_BACK: rs->mode = RM_LIST; return H_HANDLED;
    case ACT_LEFT: case ACT_RIGHT:
        rs->kind = (enum group_kind)(((int)rs->kind + (a == ACT_LEFT ? GK_COUNT - 1 : 1)) % GK_COUNT);
        build_groups(rs);
        return H_HANDLED;
    case ACT_MARK:
        if (sel >= 0) toggle_mark(rs->gmark, sizeof rs->gmark, rs->g[sel].key);
        return H_HANDLED;
    case ACT_COMPARE: case ACT_EDIT: compare_groups(rs); return H_HANDLED;
    default: return tv_move(&rs->groups, a);
    }
}

/* --- screen ops -------------------------------------------------------- */

static struct screen *results_create(struct app *app)
{
    struct results *rs = screen_new(sizeof *rs, &results_screen, app);
    tv_cursor_init(&rs->list);
    sort_cols_init(&rs->sort, columns, RC_COUNT, RC_STARTED, NULL);
    return &rs->base;
}

static void results_draw(struct screen *s, struct rect r)
{
    struct results *rs = (struct results *)s;
    if (rs->detail.open) { detail_draw(&rs->detail, r); return; }
    if (rs->mode == RM_GROUPS) { results_groups_draw(rs, r); return; }
    bool wide = r.w >= WIDE_COLS;
    rs->sort.col[RC_DEVICE].width = wide ? columns[RC_DEVICE].width : 0;
    rs->sort.col[RC_IOPS].width = wide ? columns[RC_IOPS].width : 0;
    build_list(rs);
    sort_cols_draw(&rs->sort, r.y, r.x);   /* the sort column marked, as htop does */
    int lh = r.h - 3;
    tv_draw(&rs->list, (struct rect){ r.y + 1, r.x, lh, r.w });
    int y = r.y + 1 + lh;
    draw_hline(y, r.x, r.w, ROLE_DIM);
    char status[160];
    snprintf(status, sizeof status, " %d run(s)%s%s%s%s ", rs->n, rs->filter[0] ? ", filter \"" : "", rs->filter,
             rs->filter[0] ? "\"" : "", rs->marked[0] ? ", A marked" : "");
    draw_text(y, r.x + 2, r.w - 4, ROLE_NORMAL, status);
    int sel = tv_selected_tag(&rs->list);
    if (rs->mode == RM_FILTER) {
        int w = draw_fmt(y + 1, r.x, r.w, ROLE_PENDING, "filter (workload, device, status, date, config): %s", rs->input);
        draw_text(y + 1, r.x + w, 1, ROLE_SELECTED, " ");
    } else if (sel >= 0 && rs->runs[sel].note[0]) {
        draw_fmt(y + 1, r.x, r.w, ROLE_DIM, "note: %s", rs->runs[sel].note);
    }
}

static enum handled results_key(struct screen *s, enum action a, int key)
{
    struct results *rs = (struct results *)s;
    if (rs->mode == RM_FILTER) {
        if (a == ACT_BACK) rs->mode = RM_LIST;
        else if (key == '\n') { snprintf(rs->filter, sizeof rs->filter, "%s", rs->input); rs->mode = RM_LIST; rs->list.cursor = -1; }
        else prompt_line_edit(rs->input, sizeof rs->input, key);
        return H_HANDLED;
    }
    if (rs->detail.open) return detail_key(&rs->detail, a);
    if (rs->mode == RM_GROUPS) return results_groups_key(rs, a, key);
    int sel = tv_selected_tag(&rs->list);
    switch (a) {
    case ACT_EDIT: if (sel >= 0) show_run(rs, &rs->runs[sel]); return H_HANDLED;
    case ACT_FILTER:
        rs->mode = RM_FILTER;
        snprintf(rs->input, sizeof rs->input, "%s", rs->filter);
        return H_HANDLED;
    case ACT_BACK:
        if (!rs->filter[0]) return H_IGNORED;
        rs->filter[0] = 0;
        return H_HANDLED;
    case ACT_MARK:
        if (sel >= 0) toggle_mark(rs->marked, sizeof rs->marked, rs->runs[sel].uuid);
        return H_HANDLED;
    case ACT_COMPARE: compare(rs); return H_HANDLED;
    case ACT_COMPARE_BY: results_groups_open(rs); return H_HANDLED;
    case ACT_SORT_PREV: case ACT_SORT_NEXT: case ACT_SORT_REVERSE: return sort_cols_key(&rs->sort, s->app, a);
    case ACT_REFRESH: results_refresh(rs); return H_IGNORED;
    default: return tv_move(&rs->list, a);
    }
}

static void results_show(struct screen *s) { results_refresh((struct results *)s); }

static bool results_hint_on(struct screen *s, enum action a)
{
    struct results *rs = (struct results *)s;
    if (rs->mode == RM_FILTER) return false;
    if (rs->detail.open) return detail_hint_on(&rs->detail, a);
    if (rs->mode == RM_GROUPS) return a == ACT_BACK || a == ACT_MARK || a == ACT_COMPARE;
    if (a == ACT_COMPARE) return rs->marked[0] != 0;
    return a != ACT_BACK;
}

static void results_done(struct screen *s)
{
    struct results *rs = (struct results *)s;
    tv_free(&rs->list);
    detail_close(&rs->detail);
    results_groups_free(rs);
    free(rs->runs);
    free(rs->search_of);
    free(rs);
}

/* What / (outside the list, where it filters) and n/N search: the view shown. */
static struct textview *results_view(struct screen *s)
{
    struct results *rs = (struct results *)s;
    if (rs->detail.open) return detail_view(&rs->detail);
    return rs->mode == RM_GROUPS ? &rs->groups : &rs->list;
}

static const enum action results_hints[] = { ACT_EDIT, ACT_FILTER, ACT_MARK, ACT_COMPARE, ACT_COMPARE_BY, ACT_SORT_NEXT, ACT_BACK, ACT_NONE };
static const enum action results_keys[] = { ACT_SORT_PREV, ACT_SORT_REVERSE, ACT_NONE };

const struct screen_class results_screen = {
    .title = "Results", .open = ACT_RESULTS, .hints = results_hints, .keys = results_keys,
    .create = results_create, .draw = results_draw, .handle_key = results_key,
    .done = results_done, .show = results_show, .hint_on = results_hint_on, .view = results_view,
};
