/* setview — knobsets and restore reports as textview lines. */
#include "ui/setview.h"

#include <stdio.h>
#include <string.h>

void setview_error(struct textview *tv, const char *msg, int width)
{
    char lines[8][256];
    int n = draw_wrap(msg, width > 20 ? width : 76, lines, 8);
    for (int i = 0; i < n; i++) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_ERROR, "%s", lines[i]);
    }
}

bool setview_started(const struct knobset *set)
{
    for (int i = 0; i < set->n; i++)
        if (set->ch[i].state != CHANGE_PENDING) return true;
    return false;
}

void setview_changes(struct textview *tv, const struct knobset *set, bool dry_run)
{
    const char *const heads[] = { "KNOB", "BEFORE", dry_run ? "NEW" : "AFTER", "STATE" };
    const int widths[] = { 36, 13, 13, 0 };
    tv_header(tv, 4, heads, widths);
    for (int i = 0; i < set->n; i++) {
        const struct knob_change *c = &set->ch[i];
        bool same = knob_values_equal(&c->k, c->before, c->want);
        const char *state = dry_run ? (same ? "unchanged" : "would write") : change_state_name(c->state);
        enum role r = dry_run ? (same ? ROLE_DIM : ROLE_PENDING)
                    : c->state == CHANGE_FAILED || c->state == CHANGE_ROLLED_BACK ? ROLE_ERROR
                    : c->state == CHANGE_ADJUSTED ? ROLE_WARN : ROLE_OK;
        tv_line(tv, false, -1);
        tv_cell(tv, ROLE_NORMAL, 36, c->k.name);
        tv_cell(tv, ROLE_NORMAL, 13, c->before);
        tv_cell(tv, ROLE_NORMAL, 13, dry_run ? c->want : c->after);
        tv_add(tv, r, "%s", state);
    }
    for (int i = 0; i < set->n; i++)
        if (set->ch[i].state == CHANGE_ADJUSTED) {
            tv_line(tv, false, -1);
            tv_add(tv, ROLE_WARN, "note: %s: asked for %s, the kernel kept %s", set->ch[i].k.name, set->ch[i].want,
                   set->ch[i].after);
        }
    for (int i = 0; i < set->nside; i++) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_WARN, "note: %s changed too, %s -> %s (a side effect the kernel applies)", set->side[i].knob,
               set->side[i].before, set->side[i].after);
    }
}

void setview_snapshot(struct textview *tv, const struct knobset *set)
{
    tv_line(tv, false, -1);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_HEADER, "Snapshot first (what revert and a crash put back):");
    for (int i = 0; i < set->ntouched; i++) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_NORMAL, "  %s", set->touched[i].name);
    }
}

void setview_restore(struct textview *tv, const struct restore_report *rep)
{
    static const char *const heads[] = { "KNOB", "FOUND", "RESTORED", "RESULT" };
    static const int widths[] = { 36, 13, 13, 0 };
    tv_header(tv, 4, heads, widths);
    for (int i = 0; i < rep->n; i++) {
        const struct restore_item *it = &rep->items[i];
        char result[512];
        tv_line(tv, false, -1);
        tv_cell(tv, ROLE_NORMAL, 36, it->knob);
        tv_cell(tv, ROLE_NORMAL, 13, it->had[0] ? it->had : "-");
        tv_cell(tv, ROLE_NORMAL, 13, it->want);
        enum role role = it->status == RESTORE_FAILED ? ROLE_ERROR
                         : it->status == RESTORE_LEFT_CHANGED || it->status == RESTORE_LEFT_LATER ? ROLE_WARN : ROLE_OK;
        const char *text = restore_result_text(it, result, sizeof result);
        /* a reason longer than its column ("left: changed since (found 35,
         * sluice wrote 40) ...") gets a line of its own, not cut at the edge */
        size_t head = strcspn(text, ":");
        if (strlen(text) <= 14 || !text[head]) tv_add(tv, role, "%s", text);
        else {
            tv_add(tv, role, "%.*s", (int)head, text);
            tv_line(tv, false, -1);
            tv_add(tv, role, "  %s", text);
        }
        if (it->status == RESTORE_FAILED) tv_add(tv, ROLE_ERROR, "  %s", it->msg);
    }
}
