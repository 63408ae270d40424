/* report_session — a tuning session as a report: its purpose and state,
 * each knob it snapshotted (the value before) and each write it made (old,
 * asked, read back). */
#include "report/report_internal.h"
#include "db/store_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds since the epoch of a stored "YYYY-MM-DDTHH:MM:SSZ" (UTC); -1 when
 * it is not one. */
static long long stamp_s(const char *at)
{
    struct tm tm = { 0 };
    const char *end = strptime(at, "%Y-%m-%dT%H:%M:%S", &tm);
    return end ? (long long)timegm(&tm) : -1;
}

/* The timeline: the knobs that differ from the snapshot, step by step, from
 * the session's start (each write of a new value adds one, each put-back
 * takes one away), then every change in order as a table. */
static void add_timeline(struct report *rep, const struct session_row *s, const struct change_log_row *ch, int nc,
                         const struct snapshot_row *snap, int ns)
{
    report_add(rep, RI_HEAD, "Timeline (%d change%s)", nc, nc == 1 ? "" : "s");
    if (nc == 0) { report_add(rep, RI_NOTE, "nothing was written or put back"); return; }
    long long t0 = stamp_s(s->started);
    struct report_chart *c = report_chart_lines(rep, "timeline", "Knobs changed from the snapshot over the session",
                                                nc + 1, 1);
    c->steps = true;
    /* stored times have whole seconds: changes closer than that are drawn one a step */
    long long span = t0 >= 0 ? stamp_s(ch[nc - 1].at) - t0 : -1;
    bool by_time = span >= nc;
    snprintf(c->x_unit, sizeof c->x_unit, by_time ? "s" : "change");
    snprintf(c->y_unit, sizeof c->y_unit, "knobs");
    snprintf(c->series[0].label, sizeof c->series[0].label, "knobs changed");
    /* what each snapshotted knob holds after each change, against the snapshot */
    const char **now = xcalloc((size_t)ns + 1, sizeof *now);
    for (int k = 0; k < ns; k++) now[k] = snap[k].present ? snap[k].value : "";
    c->x[0] = 0;
    c->series[0].y[0] = 0;
    for (int i = 0; i < nc; i++) {
        long long t = stamp_s(ch[i].at);
        int changed = 0;
        for (int k = 0; k < ns; k++) {
            if (strcmp(snap[k].knob, ch[i].knob) == 0) now[k] = ch[i].new_value;
            changed += strcmp(now[k], snap[k].present ? snap[k].value : "") != 0;
        }
        c->x[i + 1] = by_time && t >= t0 ? (double)(t - t0) : i + 1;
        c->series[0].y[i + 1] = changed;
    }
    free(now);
    report_add(rep, RI_ROWHEAD, "When\tWhat\tKnob\tFrom\tTo\tRead back");
    for (int i = 0; i < nc; i++) {
        long long t = stamp_s(ch[i].at);
        char when[32];
        if (t0 >= 0 && t >= t0) snprintf(when, sizeof when, "+%llds", t - t0);
        else snprintf(when, sizeof when, "%s", ch[i].at);
        report_add(rep, RI_ROW, "%s\t%s\t%s\t%s\t%s\t%s", when, strcmp(ch[i].action, "write") == 0 ? "write" : "put back",
                   ch[i].knob, ch[i].old_value, ch[i].new_value, ch[i].got_value[0] ? ch[i].got_value : "nothing");
    }
}

int report_session(struct store *st, const char *uuid_prefix, struct report *rep, sl_err *e)
{
    struct session_row s;
    memset(rep, 0, sizeof *rep);
    if (store_session_get(st, uuid_prefix, &s, e) < 0) return -1;
    struct snapshot_row *snap = NULL;
    struct change_log_row *ch = NULL;
    int ns = store_session_snapshots(st, s.id, &snap, e);
    int nc = ns < 0 ? -1 : store_session_changes(st, s.id, &ch, e);
    if (nc < 0) { free(snap); return -1; }
    snprintf(rep->title, sizeof rep->title, "Session %.8s: %s, %s", s.uuid, s.purpose, session_state_name(s.state));
    snprintf(rep->kind, sizeof rep->kind, "session");
    report_add(rep, RI_HEAD, "Session %s", s.uuid);
    report_add(rep, RI_TEXT, "purpose %s, state %s, pid %d, root %s", s.purpose, session_state_name(s.state), s.pid, s.root[0] ? s.root : "/");
    report_add(rep, RI_TEXT, "started %s%s%s", s.started, s.ended[0] ? ", ended " : "", s.ended);
    if (s.note[0]) report_add(rep, RI_NOTE, "note: %s", s.note);
    add_timeline(rep, &s, ch, nc, snap, ns);
    int nw = 0;
    for (int i = 0; i < nc; i++) nw += strcmp(ch[i].action, "write") == 0;
    report_add(rep, RI_HEAD, "Changes (%d): old, asked, read back", nw);
    for (int i = 0; i < nc; i++)
        if (strcmp(ch[i].action, "write") == 0)
            report_add(rep, strcmp(ch[i].new_value, ch[i].got_value) ? RI_WARN : RI_TEXT, "%s: %s -> %s (read back %s) at %s",
                       ch[i].knob, ch[i].old_value, ch[i].new_value, ch[i].got_value, ch[i].at);
    if (!nw) report_add(rep, RI_NOTE, "no knob was written");
    if (nw < nc) report_add(rep, RI_HEAD, "Put back (%d): found, put back, read back", nc - nw);
    for (int i = 0; i < nc; i++)
        if (strcmp(ch[i].action, "write") != 0)
            report_add(rep, ch[i].note[0] ? RI_WARN : RI_TEXT, "%s: %s -> %s (read back %s) at %s%s%s", ch[i].knob,
                       ch[i].old_value, ch[i].new_value, ch[i].got_value[0] ? ch[i].got_value : "nothing", ch[i].at,
                       ch[i].note[0] ? ": " : "", ch[i].note);
    report_add(rep, RI_HEAD, "Snapshot before the first write (%d knobs)", ns);
    for (int i = 0; i < ns; i++)
        report_add(rep, RI_TEXT, "%s = %s", snap[i].knob, snap[i].present ? snap[i].value : "(absent)");
    free(snap);
    free(ch);
    return 0;
}
