/* report_session — a tuning session as a report: its purpose and state,
 * each knob it snapshotted (the value before) and each write it made (old,
 * asked, read back). */
#include "report_internal.h"
#include "store_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
