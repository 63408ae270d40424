/* screen_results — stored probe runs (what `sluice history` lists), newest
 * first, with a filter; a run's stored metrics; and two batches of
 * repetitions compared with the search's own verdict (Welch with Holm, a
 * bootstrap interval of the improvement; "within noise" is never a win). */
#include "app.h"
#include "detail.h"
#include "prompt.h"
#include "results_screen.h"
#include "probe/probe.h"
#include "search/search.h"
#include "store_run.h"
#include "textview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct screen_class results_screen;

#define RUNS_MAX 2000
#define COMPARE_SEED 20240601

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
}

static bool matches(const struct results *rs, const struct run_row *r)
{
    if (!rs->filter[0]) return true;
    const char *fields[] = { r->workload, r->device, r->status, r->started, r->config_hash, r->uuid, r->kernel };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strstr(fields[i], rs->filter)) return true;
    return false;
}

static void fmt_ns(int64_t ns, char *buf, size_t n)
{
    if (ns < 0) snprintf(buf, n, "-");
    else probe_format_ns((double)ns, buf, n);
}

static void build_list(struct results *rs)
{
    struct textview *tv = &rs->list;
    int keep = tv_selected_tag(tv);
    tv_clear(tv);
    int shown = 0;
    for (int i = 0; i < rs->n; i++) {
        const struct run_row *r = &rs->runs[i];
        if (!matches(rs, r)) continue;
        shown++;
        char id[12], when[20], mbs[16], iops[16], p99[16], canary[16];
        bool is_a = strcmp(r->uuid, rs->marked) == 0;
        snprintf(id, sizeof id, "%s%.8s", is_a ? "A " : "  ", r->uuid);
        snprintf(when, sizeof when, "%.16s", r->started);
        snprintf(mbs, sizeof mbs, "%.1f", r->mb_s);
        snprintf(iops, sizeof iops, "%.0f", r->iops);
        fmt_ns(r->lat_p99_ns, p99, sizeof p99);
        fmt_ns(r->canary_max_ns, canary, sizeof canary);
        bool ok = strcmp(r->status, "ok") == 0 || strcmp(r->status, "warm") == 0;
        enum role base = is_a ? ROLE_PENDING : ROLE_NORMAL;
        tv_line(tv, true, i);
        tv_cell(tv, base, 10, id);
        tv_cell(tv, base, 16, when);
        tv_cell(tv, base, 8, r->workload);
        tv_cell(tv, base, 7, r->device[0] ? r->device : "-");
        tv_cell(tv, ok ? base : ROLE_ERROR, 6, r->status);
        tv_cell(tv, base, 8, mbs);
        tv_cell(tv, base, 7, iops);
        tv_cell(tv, base, 9, p99);
    }
    if (shown == 0) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, rs->n ? "  no run matches the filter \"%s\"" : "  no runs stored yet: F4 Probe runs one%s",
               rs->n ? rs->filter : "");
    }
    if (keep >= 0) tv_select_tag(tv, keep);
}

void results_open_view(struct results *rs, const char *fmt, const char *arg)
{
    rs->view_back = rs->mode == RM_GROUPS ? RM_GROUPS : RM_LIST;
    rs->mode = RM_VIEW;
    snprintf(rs->view_title, sizeof rs->view_title, fmt, arg);
    tv_clear(&rs->view);
    rs->view.top = 0;
}

/* A run's detail view: everything stored, with its charts (src/report). */
static void show_run(struct results *rs, const struct run_row *r)
{
    detail_open(&rs->detail, app_store(rs->base.app, NULL), r->uuid);
}

/* log(MB/s) of the good repetitions in r's batch: the scale the search's
 * verdict works on. Returns the count. */
static int batch_scores(const struct results *rs, const struct run_row *r, double *out, int max)
{
    int n = 0;
    for (int i = 0; i < rs->n && n < max; i++) {
        const struct run_row *x = &rs->runs[i];
        bool same = r->batch[0] ? strcmp(x->batch, r->batch) == 0 : strcmp(x->uuid, r->uuid) == 0;
        if (same && strcmp(x->status, "ok") == 0 && x->mb_s > 0) out[n++] = log(x->mb_s);
    }
    return n;
}

/* The search's verdict on B against A (log MB/s): interval, tests, words. */
static void compare_verdict(struct textview *tv, const double *sa, int na, const double *sb, int nb)
{
    struct leader l;
    memset(&l, 0, sizeof l);
    l.feasible = true;
    l.n = nb;
    const double *scores[1] = { sb };
    search_judge(&l, scores, &nb, 1, sa, na, 0.05, TEST_WELCH, COMPARE_SEED);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_NORMAL, "B against A: %+.1f%% MB/s, 95%% interval %+.1f%% .. %+.1f%% (bootstrap)", 100 * l.ci.est,
           100 * l.ci.lo, 100 * l.ci.hi);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_NORMAL, "Welch p = %.3g, Mann-Whitney p = %.3g, Hedges' g = %.2f", l.p_welch, l.p_mw, l.g);
    tv_line(tv, false, -1);
    static const char *const words[] = {
        [VERDICT_WIN] = "Verdict: B is faster than A beyond the noise.",
        [VERDICT_NOISE] = "Verdict: within noise: no difference this data can show.",
        [VERDICT_WORSE] = "Verdict: B is slower than A beyond the noise.",
        [VERDICT_INFEASIBLE] = "Verdict: not comparable.",
    };
    tv_add(tv, l.verdict == VERDICT_WIN ? ROLE_OK : l.verdict == VERDICT_WORSE ? ROLE_ERROR : ROLE_WARN, "%s",
           words[l.verdict]);
}

static void compare(struct results *rs)
{
    struct app *app = rs->base.app;
    int sel = tv_selected_tag(&rs->list);
    const struct run_row *a = NULL, *b = sel >= 0 ? &rs->runs[sel] : NULL;
    for (int i = 0; i < rs->n; i++)
        if (strcmp(rs->runs[i].uuid, rs->marked) == 0) a = &rs->runs[i];
    if (!a || !b) { app_message(app, ROLE_WARN, "mark run A with m, then put the cursor on run B and press c"); return; }
    double sa[RUNS_MAX], sb[RUNS_MAX];
    int na = batch_scores(rs, a, sa, RUNS_MAX), nb = batch_scores(rs, b, sb, RUNS_MAX);
    char title[64];
    snprintf(title, sizeof title, "%.8s", b->uuid);
    results_open_view(rs, "Compare: B = %s against A (MB/s, Esc back)", title);
    struct textview *tv = &rs->view;
    struct sample_summary ma, mb;
    double ea[RUNS_MAX], eb[RUNS_MAX];
    for (int i = 0; i < na; i++) ea[i] = exp(sa[i]);
    for (int i = 0; i < nb; i++) eb[i] = exp(sb[i]);
    signif_summary(ea, na, &ma);
    signif_summary(eb, nb, &mb);
    const struct run_row *ab[2] = { a, b };
    const struct sample_summary *sm[2] = { &ma, &mb };
    tv_line(tv, false, -1);
    tv_cell(tv, ROLE_HEADER, 4, "");
    tv_cell(tv, ROLE_HEADER, 10, "RUN");
    tv_cell(tv, ROLE_HEADER, 10, "WORKLOAD");
    tv_cell(tv, ROLE_HEADER, 9, "CONFIG");
    tv_cell(tv, ROLE_HEADER, 5, "N");
    tv_cell(tv, ROLE_HEADER, 10, "MEAN MB/S");
    tv_cell(tv, ROLE_HEADER, 9, "SD");
    tv_add(tv, ROLE_HEADER, "KERNEL");
    for (int k = 0; k < 2; k++) {
        char id[12], cfg[12], nn[8], mean[16], sd[16];
        snprintf(id, sizeof id, "%.8s", ab[k]->uuid);
        snprintf(cfg, sizeof cfg, "%.8s", ab[k]->config_hash);
        snprintf(nn, sizeof nn, "%d", sm[k]->n);
        snprintf(mean, sizeof mean, "%.1f", sm[k]->mean);
        snprintf(sd, sizeof sd, "%.1f", sm[k]->sd);
        tv_line(tv, false, -1);
        tv_cell(tv, ROLE_NORMAL, 4, k ? "B" : "A");
        tv_cell(tv, ROLE_NORMAL, 10, id);
        tv_cell(tv, ROLE_NORMAL, 10, ab[k]->workload);
        tv_cell(tv, ROLE_NORMAL, 9, cfg);
        tv_cell(tv, ROLE_NORMAL, 5, nn);
        tv_cell(tv, ROLE_NORMAL, 10, mean);
        tv_cell(tv, ROLE_NORMAL, 9, sd);
        tv_add(tv, ROLE_NORMAL, "%s", ab[k]->kernel);
    }
    tv_line(tv, false, -1);
    if (strcmp(a->workload, b->workload) != 0) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_WARN, "A and B ran different workloads: their MB/s are not comparable.");
    }
    if (na < 2 || nb < 2) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_WARN, "Each side needs at least 2 good repetitions (probe --repeat) for an interval and a verdict.");
        return;
    }
    compare_verdict(tv, sa, na, sb, nb);
}

/* --- screen ops -------------------------------------------------------- */

static struct screen *results_create(struct app *app)
{
    struct results *rs = xcalloc(1, sizeof *rs);
    rs->base.cls = &results_screen;
    rs->base.app = app;
    rs->list.use_cursor = true;
    rs->list.cursor = -1;
    return &rs->base;
}

static void results_draw(struct screen *s, struct rect r)
{
    struct results *rs = (struct results *)s;
    if (rs->detail.open) { detail_draw(&rs->detail, r); return; }
    if (rs->mode == RM_GROUPS) { results_groups_draw(rs, r); return; }
    if (rs->mode == RM_VIEW) {
        draw_text(r.y, r.x, r.w, ROLE_HEADER, rs->view_title);
        tv_draw(&rs->view, (struct rect){ r.y + 1, r.x, r.h - 1, r.w });
        return;
    }
    build_list(rs);
    static const char *const heads[] = { "  RUN", "STARTED", "WORKLOAD", "DEVICE", "STATUS", "MB/S", "IOPS", "P99" };
    static const int widths[] = { 10, 16, 8, 7, 6, 8, 7, 9 };
    int x = 0;
    for (int c = 0; c < 8; c++) {
        draw_cell(r.y, r.x + x, widths[c] + 1, ROLE_HEADER, heads[c]);
        x += widths[c] + 1;
    }
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
    if (rs->mode == RM_VIEW) {
        if (a == ACT_BACK) { rs->mode = rs->view_back; return H_HANDLED; }
        return tv_move(&rs->view, a);
    }
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
        if (sel < 0) return H_HANDLED;
        if (strcmp(rs->marked, rs->runs[sel].uuid) == 0) rs->marked[0] = 0;
        else snprintf(rs->marked, sizeof rs->marked, "%s", rs->runs[sel].uuid);
        return H_HANDLED;
    case ACT_COMPARE: compare(rs); return H_HANDLED;
    case ACT_COMPARE_BY: results_groups_open(rs); return H_HANDLED;
    case ACT_REFRESH: results_refresh(rs); return H_IGNORED;
    default: return tv_move(&rs->list, a);
    }
}

static void results_show(struct screen *s) { results_refresh((struct results *)s); }

static bool results_hint_on(struct screen *s, enum action a)
{
    struct results *rs = (struct results *)s;
    if (rs->mode == RM_FILTER) return false;
    if (rs->mode == RM_VIEW || rs->detail.open) return a == ACT_BACK;
    if (rs->mode == RM_GROUPS) return a == ACT_BACK || a == ACT_MARK || a == ACT_COMPARE;
    if (a == ACT_COMPARE) return rs->marked[0] != 0;
    return a != ACT_BACK;
}

static void results_resize(struct screen *s, struct rect r) {}

static void results_done(struct screen *s)
{
    struct results *rs = (struct results *)s;
    tv_free(&rs->list);
    tv_free(&rs->view);
    detail_close(&rs->detail);
    results_groups_free(rs);
    free(rs->runs);
    free(rs);
}

static const enum action results_hints[] = { ACT_EDIT, ACT_FILTER, ACT_MARK, ACT_COMPARE, ACT_COMPARE_BY, ACT_BACK, ACT_NONE };

const struct screen_class results_screen = {
    .title = "Results", .open = ACT_RESULTS, .hints = results_hints,
    .create = results_create, .draw = results_draw, .handle_key = results_key, .resize = results_resize,
    .done = results_done, .show = results_show, .hint_on = results_hint_on,
};
