/* report_verify — a stored live verification as a report: what was tested
 * and how, how it ended and why, the verdict per metric with its interval
 * (drawn again from the stored blocks by verify_decide), the judged metrics
 * charted block by block over time with A and B as two series, and every
 * block. */
#include "report/report_internal.h"
#include "db/store_session.h"
#include "db/store_verify.h"
#include "session/session.h"
#include "verify/live.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_header(struct report *rep, const struct verify_run *r, const struct verify_row *v)
{
    snprintf(rep->title, sizeof rep->title, "Verify %.8s: B = %.100s, %s", v->uuid, v->candidate, v->state);
    snprintf(rep->kind, sizeof rep->kind, "verify");
    report_add(rep, RI_HEAD, "Live verification %s", v->uuid);
    report_add(rep, RI_TEXT, "B (the candidate): %s%s%s%s", v->candidate, v->source[0] ? " (" : "", v->source,
               v->source[0] ? ")" : "");
    report_add(rep, RI_TEXT, "A (the settings in force): %s", v->baseline);
    report_add(rep, RI_TEXT, "started %s%s%s; session %s", v->started, v->ended[0] ? ", ended " : "", v->ended,
               v->session_uuid[0] ? v->session_uuid : "-");
    if (v->session_uuid[0]) report_ref(rep, v->session_uuid);
    report_add(rep, RI_TEXT, "%d of %d blocks of %.0f s run (%d pairs planned), seed %lld", r->ndone, r->plan.nblocks,
               (double)v->block_ms / 1000, r->plan.npairs, (long long)v->seed);
    report_add(rep, RI_TEXT, "watching %s (%s)", v->disks, r->plan.disks_why);
    report_add(rep, RI_TEXT, "settle after a switch from A: %s", r->plan.settle_why[0]);
    report_add(rep, RI_TEXT, "settle after a switch from B: %s", r->plan.settle_why[1]);
    report_add(rep, RI_TEXT, "canary: %s", r->plan.canary_why);
    if (v->metric_cmd[0])
        report_add(rep, RI_TEXT, "--metric %s (better %s)", v->metric_cmd, v->metric_higher ? "higher" : "lower");
}

/* A test whose row still says running: it runs, or it was killed and its
 * session is crashed (not yet restored: the restore marks it killed), or
 * was put back by a sluice from before migration 017. */
static void add_unended(struct report *rep, struct store *st, const struct verify_row *v)
{
    struct session_row s;
    sl_err e;
    if (!v->session_uuid[0] || store_session_get(st, v->session_uuid, &s, &e) < 0) {
        report_add(rep, RI_WARN, "still running, or killed before it ended ('sluice restore --crashed' puts its knobs "
                   "back)");
        return;
    }
    if (s.state != SESSION_OPEN) {
        report_add(rep, RI_WARN, "killed before it ended: its session %.8s was %s since (%s)", s.uuid,
                   session_state_name(s.state), s.note[0] ? s.note : "-");
        return;
    }
    struct session_row *crashed;
    int n = session_find_crashed(st, &crashed, &e);
    bool dead = false;
    for (int i = 0; i < n; i++) dead = dead || crashed[i].id == s.id;
    if (n >= 0) free(crashed);
    if (dead)
        report_add(rep, RI_WARN, "killed before it ended: its session %.8s is open with no sluice holding it: 'sluice "
                   "restore --crashed' puts its knobs back and marks the test killed", s.uuid);
    else
        report_add(rep, RI_NOTE, "still running (session %.8s, pid %d)%s", s.uuid, s.pid,
                   n < 0 ? ", or killed before it ended ('sluice restore --crashed' puts its knobs back)" : "");
}

static void add_end(struct report *rep, struct store *st, const struct verify_run *r, const struct verify_row *v)
{
    report_add(rep, RI_HEAD, "How it ended");
    if (strcmp(v->state, "running") == 0)
        add_unended(rep, st, v);
    else if (r->end == VE_KILLED)
        report_add(rep, RI_WARN, "killed: %s", v->end_why[0] ? v->end_why : "before it ended");
    else if (r->end == VE_DONE)
        report_add(rep, RI_TEXT, "done: every planned block ran");
    else
        report_add(rep, r->end == VE_GUARD ? RI_WARN : RI_NOTE, "%s: %s", v->state, v->end_why[0] ? v->end_why : "-");
    if (v->put_back[0]) report_add(rep, RI_TEXT, "%s", v->put_back);
}

static void add_verdict(struct report *rep, const struct verify_run *r)
{
    const struct verify_verdict *v = &r->verdict;
    report_add(rep, RI_HEAD, "Verdict over %d pair(s): %s", v->npairs, r->ncomplete >= 2 ? verify_overall_name(v->overall) : "none");
    if (r->ncomplete < 2) {
        report_add(rep, RI_NOTE, "no complete pair of blocks: nothing to decide");
        return;
    }
    if (v->why[0]) report_add(rep, RI_NOTE, "%s", v->why);
    report_add(rep, RI_TEXT, "the effect of B on each metric: the Hodges-Lehmann estimate of the paired blocks' log "
               "ratios, its interval, Wilcoxon's signed-rank p");
    for (int m = 0; m < VM_NR; m++) {
        if (!v->has[m]) continue;
        char effect[512];
        verify_effect_text(v, (enum verify_metric)m, effect, sizeof effect);
        bool bad = v->decided[m] && v->d[m].verdict == DECIDE_WORSE;
        report_add(rep, bad ? RI_WARN : RI_TEXT, "%s (%s): A %.3g, B %.3g: %s", verify_metrics[m].name,
                   verify_metrics[m].unit[0] ? verify_metrics[m].unit : "as printed", v->a_mean[m], v->b_mean[m], effect);
    }
    char line[512];
    verify_saturation_text(v, line, sizeof line);
    report_add(rep, RI_TEXT, "%s", line);
    if (v->demand_differs) {
        verify_demand_text(v, line, sizeof line);
        report_add(rep, RI_WARN, "%s", line);
    }
}

/* Metric m block by block over time, at evenly spaced instants (the
 * renderers space points evenly): A's series holds the value over each A
 * block's measured part, B's over each B block's; elsewhere (the other
 * arm, the settle time discarded) both are 0. */
#define CHART_POINTS_PER_BLOCK 24
#define CHART_POINTS_MAX 480
static void add_chart(struct report *rep, const struct verify_run *r, enum verify_metric m)
{
    char id[24], title[128];
    snprintf(id, sizeof id, "verify-%s", verify_metrics[m].name);
    snprintf(title, sizeof title, "%s per block over time (A and B; the settle time at 0)", verify_metrics[m].name);
    int n = r->ndone * CHART_POINTS_PER_BLOCK;
    if (n > CHART_POINTS_MAX) n = CHART_POINTS_MAX;
    struct report_chart *c = report_chart_lines(rep, id, title, n, 2);
    c->overlay = true;
    snprintf(c->x_unit, sizeof c->x_unit, "s");
    snprintf(c->y_unit, sizeof c->y_unit, "%s", verify_metrics[m].unit);
    snprintf(c->series[0].label, sizeof c->series[0].label, "A: the settings in force");
    snprintf(c->series[1].label, sizeof c->series[1].label, "B: the candidate");
    if (!n) {
        report_chart_missing(c, "no block was stored");
        return;
    }
    double t_end = (double)r->blocks[r->ndone - 1].end_ms;
    for (int p = 0, i = 0; p < n; p++) {
        double t = t_end * (p + 0.5) / n;
        while (i + 1 < r->ndone && t >= (double)r->blocks[i].end_ms) i++;
        const struct verify_block *b = &r->blocks[i];
        c->x[p] = round(t_end * p / (n > 1 ? n - 1 : 1) / 100) / 10;   /* s, to 0.1 s */
        if (t >= (double)(b->start_ms + b->settle_ms) && b->has[m]) c->series[b->cand ? 1 : 0].y[p] = b->v[m];
    }
}

static void add_blocks(struct report *rep, const struct verify_run *r)
{
    report_add(rep, RI_HEAD, "Blocks (%d)", r->ndone);
    for (int i = 0; i < r->ndone; i++) {
        const struct verify_block *b = &r->blocks[i];
        char line[1024];
        int len = snprintf(line, sizeof line, "%2d %c %6.1f-%6.1f s (settle %.1f s)%s", i + 1, b->cand ? 'B' : 'A',
                           (double)b->start_ms / 1000, (double)b->end_ms / 1000, (double)b->settle_ms / 1000,
                           i < r->ncomplete ? "" : " cut short");
        for (int m = 0; m < VM_NR && len > 0 && (size_t)len < sizeof line; m++)
            if (b->has[m])
                len += snprintf(line + len, sizeof line - (size_t)len, "  %s %.3g", verify_metrics[m].name, b->v[m]);
        report_add(rep, b->note[0] ? RI_NOTE : RI_TEXT, "%s%s%s", line, b->note[0] ? "; note: " : "", b->note);
    }
}

int report_verify(struct store *st, const char *uuid_prefix, struct report *rep, sl_err *e)
{
    memset(rep, 0, sizeof *rep);
    struct verify_row *v = xcalloc(1, sizeof *v);
    struct verify_run r;
    if (verify_load(st, uuid_prefix, &r, v, e) < 0) {
        free(v);
        return -1;
    }
    add_header(rep, &r, v);
    add_end(rep, st, &r, v);
    add_verdict(rep, &r);
    for (int m = 0; m < VM_NR; m++)
        if (r.verdict.decided[m] || m == VM_WRITE_MBS)
            if (r.verdict.has[m]) add_chart(rep, &r, (enum verify_metric)m);
    add_blocks(rep, &r);
    verify_run_free(&r);
    free(v);
    return 0;
}
