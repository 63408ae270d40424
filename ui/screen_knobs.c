/* screen_knobs — every knob on this machine, grouped (vm, bdflush, each
 * disk's queue, iosched and bdi), with edits kept as pending changes until
 * they are applied; the selected knob's help below the list; the dry-run
 * diff, apply on trial (trial_start), keep and revert. */
#include "ui/app.h"
#include "ui/prompt.h"
#include "core/device.h"
#include "core/knob.h"
#include "session/knobset.h"
#include "ui/setview.h"
#include "ui/sortcols.h"
#include "ui/textview.h"
#include "core/sysfs.h"
#include "ui/trial.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct screen_class knobs_screen;

struct krow {
    struct knob k;
    char value[KNOB_VALUE_MAX];
    bool present;
    bool changed;                 /* differs from the kernel default */
    char title[200];              /* its group's title (read once a full refresh) */
};

struct pending {
    char name[KNOB_NAME_MAX];
    char value[KNOB_VALUE_MAX];   /* validated, canonical */
};

enum kmode {
    KM_LIST,     /* the knob list */
    KM_EDIT,     /* typing a value for the selected knob */
    KM_FILTER,   /* typing a filter */
    KM_VIEW,     /* a report over the list: diff, apply result, revert result */
};

struct knobs {
    struct screen base;
    struct textview list, view;
    struct krow *rows;
    int nrows;
    struct pending *pend;
    int npend;
    enum kmode mode;
    bool view_is_diff;            /* in KM_VIEW: `a` applies what the view shows */
    char view_title[96];
    char input[KNOB_VALUE_MAX];
    char edit_error[512];
    int edit_row;
    char filter[64];
    long long last_refresh_ms;
    /* what the screen reads: the files looked up since the last periodic
     * refresh (draws included), and that count for the period before */
    long spent, last_spent;
    int last_rows;                /* rows the last periodic refresh re-read */
    int last_shown;               /* rows the list shows (the filter's count) */
    bool periodic;                /* a periodic refresh has happened since the full one */
    /* the selected knob's range (a scheduler's is read from its file) */
    int range_row;
    char range[300];
    /* the list is rebuilt only when what it shows changed: gen moves on
     * every refresh and key, built is the gen (and width) it was built at */
    unsigned gen, built;
    int built_width;
    /* the columns and the sort column (< >): rows sort within their group;
     * none by default, the catalogue's order */
    struct sort_cols sort;
    int *group_of;                /* each row's group: the index of its first row */
};

#define REFRESH_MS 5000
#define DETAIL_LINES 5
#define EDIT_BOX_LINES 9      /* the edit box: prompt, input, 2 error lines, 3 help lines, border */
#define NAME_W 27
#define VALUE_W 14
#define DEFAULT_W 10
#define NEW_W 14

enum kcol { KC_KNOB, KC_VALUE, KC_DEFAULT, KC_PENDING, KC_UNIT, KC_COUNT };
static const struct sort_col columns[KC_COUNT] = {
    { "KNOB", NAME_W, true }, { "VALUE", VALUE_W, false }, { "DEFAULT", DEFAULT_W, false },
    { "PENDING", NEW_W, true }, { "UNIT", 0, true },   /* UNIT takes the width left */
};

/* --- model ------------------------------------------------------------- */

static const struct pending *knobs_pending_of(const struct knobs *ks, const char *name)
{
    for (int i = 0; i < ks->npend; i++)
        if (strcmp(ks->pend[i].name, name) == 0) return &ks->pend[i];
    return NULL;
}

static void pending_drop(struct knobs *ks, const char *name)
{
    for (int i = 0; i < ks->npend; i++)
        if (strcmp(ks->pend[i].name, name) == 0) {
            memmove(&ks->pend[i], &ks->pend[i + 1], sizeof *ks->pend * (size_t)(ks->npend - i - 1));
            ks->npend--;
            return;
        }
}

static void pending_set(struct knobs *ks, const char *name, const char *value)
{
    pending_drop(ks, name);
    ks->pend = xrealloc(ks->pend, sizeof *ks->pend * (size_t)(ks->npend + 1));
    struct pending *p = &ks->pend[ks->npend++];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->value, sizeof p->value, "%s", value);
}

static void knobs_pending_clear(struct knobs *ks)
{
    free(ks->pend);
    ks->pend = NULL;
    ks->npend = 0;
}

static const struct krow *selected_row(const struct knobs *ks)
{
    int tag = tv_selected_tag(&ks->list);
    return tag >= 0 && tag < ks->nrows ? &ks->rows[tag] : NULL;
}

static void group_title(const struct krow *r, char *buf, size_t n);
static bool same_group(const struct krow *a, const struct krow *b);

static void read_row(struct krow *r)
{
    r->present = knob_read(&r->k, r->value, sizeof r->value, NULL) == 0;
    r->changed = r->present && r->k.def->def && !knob_values_equal(&r->k, r->value, r->k.def->def);
}

/* Every knob: the list itself (a scheduler switch adds or removes iosched
 * tunables, a disk may come or go), each value and group title. On
 * showing the screen, ^L and after a write. */
static void knobs_refresh(struct knobs *ks)
{
    const struct krow *sel = selected_row(ks);
    char keep[KNOB_NAME_MAX] = "";
    if (sel) snprintf(keep, sizeof keep, "%s", sel->k.name);
    struct knob *list;
    sl_err e;
    int n = knob_list(NULL, 0, &list, &e);
    if (n < 0) {
        app_message(ks->base.app, ROLE_ERROR, "%s", e.msg);
        return;
    }
    free(ks->rows);
    ks->rows = xcalloc((size_t)(n ? n : 1), sizeof *ks->rows);
    for (int i = 0; i < n; i++) {
        struct krow *r = &ks->rows[i];
        r->k = list[i];
        read_row(r);
        if (i > 0 && same_group(&ks->rows[i - 1], r)) memcpy(r->title, ks->rows[i - 1].title, sizeof r->title);
        else group_title(r, r->title, sizeof r->title);
    }
    ks->nrows = n;
    free(list);
    ks->last_refresh_ms = app_now_ms(ks->base.app);
    ks->range_row = -1;
    ks->periodic = false;
    ks->gen++;
    /* The next draw rebuilds the list; point the cursor at the same knob. */
    ks->list.cursor = -1;
    ks->edit_row = -1;
    if (keep[0])
        for (int i = 0; i < n; i++)
            if (strcmp(ks->rows[i].k.name, keep) == 0) ks->edit_row = i;
}

/* The text a group of rows is introduced by: which file family, which disk. */
static void group_title(const struct krow *r, char *buf, size_t n)
{
    const struct knob *k = &r->k;
    struct device d;
    char info[256] = "";
    if (k->def->scope == SCOPE_BLOCK && device_get(k->dev, &d, NULL) == 0)   /* only its title names the hardware */
        snprintf(info, sizeof info, "%s%s%s", d.transport, d.model[0] ? ", " : "", d.model);
    switch (k->def->scope) {
    case SCOPE_VM: snprintf(buf, n, "vm.*  /proc/sys/vm"); break;
    case SCOPE_BDFLUSH: snprintf(buf, n, "vm.bdflush.*  the 9 fields of /proc/sys/vm/bdflush (2.4)"); break;
    case SCOPE_BLOCK: snprintf(buf, n, "block.%s.*  request queue  (%s)", k->dev, info); break;
    case SCOPE_IOSCHED: snprintf(buf, n, "block.%s.iosched.*  tunables of the active scheduler", k->dev); break;
    case SCOPE_BDI: snprintf(buf, n, "bdi.%s.*  its share of the dirty limit", k->dev); break;
    }
}

static bool same_group(const struct krow *a, const struct krow *b)
{
    return a->k.def->scope == b->k.def->scope && strcmp(a->k.dev, b->k.dev) == 0;
}

/* The name inside its group: "dirty_ratio", "iosched.fifo_batch" -> "fifo_batch". */
static const char *short_name(const struct knob *k)
{
    const char *dot = strrchr(k->name, '.');
    return dot ? dot + 1 : k->name;
}

static bool filtered_out(const struct knobs *ks, const struct krow *r)
{
    if (!ks->filter[0]) return false;
    if (strpbrk(ks->filter, "*?[")) return fnmatch(ks->filter, r->k.name, 0) != 0;
    return strstr(r->k.name, ks->filter) == NULL;
}

/* Values as the columns sort them: numbers largest first, then text A first. */
static int by_value(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    bool na = ea != a && !*ea, nb = eb != b && !*eb;
    if (na && nb) return (x < y) - (x > y);
    if (na != nb) return na ? -1 : 1;
    return strcmp(a, b);
}

/* Rows within their group by the sort column (groups keep the catalogue's order). */
static int by_column(int i, int j, void *arg)
{
    const struct knobs *ks = arg;
    const struct krow *a = &ks->rows[i], *b = &ks->rows[j];
    if (ks->group_of[i] != ks->group_of[j])   /* groups in the catalogue's order, reversed or not */
        return ((ks->group_of[i] > ks->group_of[j]) - (ks->group_of[i] < ks->group_of[j])) * (ks->sort.reversed ? -1 : 1);
    const struct pending *pa = knobs_pending_of(ks, a->k.name), *pb = knobs_pending_of(ks, b->k.name);
    switch (ks->sort.by) {
    case KC_KNOB: return strcmp(short_name(&a->k), short_name(&b->k));
    case KC_VALUE: return by_value(a->value, b->value);
    case KC_DEFAULT: return by_value(a->k.def->def ? a->k.def->def : "", b->k.def->def ? b->k.def->def : "");
    case KC_PENDING: return pa && pb ? by_value(pa->value, pb->value) : (pb != NULL) - (pa != NULL);
    case KC_UNIT: return strcmp(a->k.def->unit, b->k.def->unit);
    default: return 0;
    }
}

/* The rows in the order shown: the catalogue's, or sorted within each group. */
static int *shown_order(struct knobs *ks)
{
    int *order = xcalloc((size_t)ks->nrows + 1, sizeof *order);
    free(ks->group_of);
    ks->group_of = xcalloc((size_t)ks->nrows + 1, sizeof *ks->group_of);
    for (int i = 0; i < ks->nrows; i++)
        ks->group_of[i] = i > 0 && same_group(&ks->rows[i - 1], &ks->rows[i]) ? ks->group_of[i - 1] : i;
    sort_cols_order(&ks->sort, order, ks->nrows, by_column, ks);
    return order;
}

static void build_list(struct knobs *ks, int width)
{
    struct textview *tv = &ks->list;
    const struct glyphs *g = term_glyphs();
    int keep = tv_selected_tag(tv);   /* the cursor follows its knob through a rebuild */
    tv_clear(tv);
    int unit_w = width - (NAME_W + VALUE_W + DEFAULT_W + NEW_W + 4) - 1;
    const struct krow *prev = NULL;
    int shown = 0, absent = 0, *order = shown_order(ks);
    for (int k = 0; k < ks->nrows; k++) {
        int i = order[k];
        const struct krow *r = &ks->rows[i];
        if (filtered_out(ks, r)) continue;
        /* What this kernel lacks cannot be edited: counted, not listed. */
        if (!r->present) { absent++; continue; }
        if (!prev || !same_group(prev, r)) {
            tv_line(tv, false, -1);
            tv_add(tv, ROLE_HEADER, "%s", r->title);
        }
        prev = r;
        shown++;
        const struct knob_def *d = r->k.def;
        const struct pending *p = knobs_pending_of(ks, r->k.name);
        enum role base = p ? ROLE_PENDING : !knob_unwritable(d) && r->present ? ROLE_NORMAL : ROLE_DIM;
        char value[KNOB_VALUE_MAX + 8], name[KNOB_NAME_MAX + 4], now[KNOB_VALUE_MAX + 8];
        snprintf(name, sizeof name, "  %s", short_name(&r->k));
        snprintf(value, sizeof value, "%s%s", r->present ? r->value : "absent", r->changed ? " *" : "");
        tv_line(tv, true, i);
        tv_cell(tv, base, NAME_W, name);
        tv_cell(tv, r->changed && !p ? ROLE_CHANGED : base, VALUE_W, value);
        tv_cell(tv, base, DEFAULT_W, d->def ? d->def : "-");
        snprintf(now, sizeof now, "%s %s", g->arrow, p ? p->value : "");
        tv_cell(tv, ROLE_PENDING, NEW_W, p ? now : "");
        if (unit_w > 0) tv_cell(tv, base, unit_w, d->unit);
    }
    free(order);
    ks->last_shown = shown;
    if (absent) {
        tv_line(tv, false, -1);
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, "(%d more knob(s) are absent on this kernel; 'sluice show' lists them)", absent);
    }
    if (shown == 0) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, ks->filter[0] ? "  no knob matches the filter \"%s\" (Esc clears it)" : "  no knobs%s",
               ks->filter);
    }
    if (ks->edit_row >= 0) {
        tv_select_tag(tv, ks->edit_row);
        if (ks->mode != KM_EDIT) ks->edit_row = -1;
    } else if (keep >= 0) {
        tv_select_tag(tv, keep);
    }
}

/* Range text for the prompt and the detail line: schedulers as the kernel offers them. */
static void range_of(const struct knob *k, char *buf, size_t n)
{
    const struct knob_def *d = k->def;
    if (d->type == KT_SCHED) {
        char raw[256], active[64];
        if (sysfs_read(k->path, raw, sizeof raw, NULL) >= 0 && knob_sched_parse(raw, active, sizeof active, buf, n) == 0)
            return;
    }
    knob_range_text(d, buf, n);
}

/* The range of row, read once until the next refresh (draws come 4 times
 * a second; a scheduler's range is a file). */
static const char *cached_range(struct knobs *ks, const struct krow *row)
{
    int i = (int)(row - ks->rows);
    if (ks->range_row != i) {
        range_of(&row->k, ks->range, sizeof ks->range);
        ks->range_row = i;
    }
    return ks->range;
}

static void draw_detail(struct knobs *ks, struct rect r)
{
    const struct krow *row = selected_row(ks);
    if (!row) return;
    const struct knob_def *d = row->k.def;
    char lines[DETAIL_LINES][256];
    const char *range = cached_range(ks, row);
    int x = draw_text(r.y, r.x, r.w, ROLE_HEADER, row->k.name);
    draw_fmt(r.y, r.x + x, r.w - x, ROLE_NORMAL, "  %s %s%s%s, default %s", knob_type_name(d->type), range,
             d->unit[0] ? " " : "", d->unit, d->def ? d->def : "set by the hardware");
    int n = draw_wrap(d->help, r.w, lines, DETAIL_LINES - 2);
    for (int i = 0; i < n; i++) draw_text(r.y + 1 + i, r.x, r.w, ROLE_NORMAL, lines[i]);
    char partner[KNOB_NAME_MAX + 16] = "";
    if (d->partner) snprintf(partner, sizeof partner, ", partner vm.%s", d->partner);
    char flags[64];
    knob_flags_text(d, flags, sizeof flags);
    draw_fmt(r.y + DETAIL_LINES - 1, r.x, r.w, ROLE_DIM, "%s, apply order %d%s%s", row->k.path, d->order, partner, flags);
}

static void draw_prompt(struct knobs *ks, struct rect r)
{
    const struct krow *row = ks->edit_row >= 0 ? &ks->rows[ks->edit_row] : NULL;
    draw_box(r, ROLE_DIALOG, ks->mode == KM_EDIT ? "Edit" : "Filter");
    struct rect in = { r.y + 1, r.x + 2, r.h - 2, r.w - 4 };
    if (ks->mode == KM_FILTER) {
        draw_fmt(in.y, in.x, in.w, ROLE_DIALOG, "Show knobs whose name contains (or matches the glob): %d shown as you type",
                 ks->last_shown);
    } else if (row) {
        draw_fmt(in.y, in.x, in.w, ROLE_DIALOG, "%s: now %s, default %s, range %s%s%s", row->k.name, row->value,
                 row->k.def->def ? row->k.def->def : "(hardware)", cached_range(ks, row), row->k.def->unit[0] ? " " : "", row->k.def->unit);
    }
    int x = draw_fmt(in.y + 1, in.x, in.w, ROLE_DIALOG, "> %s", ks->input);
    draw_text(in.y + 1, in.x + x, 1, ROLE_SELECTED, " ");
    if (ks->edit_error[0]) {
        char lines[2][256];
        int n = draw_wrap(ks->edit_error, in.w, lines, 2);
        for (int i = 0; i < n; i++) draw_text(in.y + 2 + i, in.x, in.w, ROLE_ERROR, lines[i]);
    } else if (ks->mode == KM_FILTER) {
        draw_text(in.y + 2, in.x, in.w, ROLE_DIALOG, "Enter keep it  Esc clear it  ^U start again");
    } else {
        draw_fmt(in.y + 2, in.x, in.w, ROLE_DIALOG, "Enter accept  Esc cancel  ^U clear%s",
                 ks->mode == KM_EDIT && row && row->k.def->type >= KT_BOOL && row->k.def->type <= KT_SCHED
                     ? "  Tab next choice" : "");
    }
    if (ks->mode == KM_EDIT && row) {
        char lines[3][256];
        int n = draw_wrap(row->k.def->help, in.w, lines, in.h - 4 < 3 ? in.h - 4 : 3);
        for (int i = 0; i < n; i++) draw_text(in.y + 4 + i, in.x, in.w, ROLE_DIALOG, lines[i]);
    }
}

static void draw_screen(struct knobs *ks, struct rect r);

/* What drawing reads counts in the screen's cost (it should be nothing). */
static void knobs_draw(struct screen *s, struct rect r)
{
    struct knobs *ks = (struct knobs *)s;
    long before = sysfs_access_count();
    draw_screen(ks, r);
    ks->spent += sysfs_access_count() - before;
}

static void draw_screen(struct knobs *ks, struct rect r)
{
    if (ks->mode == KM_VIEW) {
        draw_text(r.y, r.x, r.w, ROLE_HEADER, ks->view_title);
        tv_draw(&ks->view, (struct rect){ r.y + 1, r.x, r.h - 1, r.w });
        return;
    }
    if (ks->built != ks->gen || ks->built_width != r.w) {   /* 1,600 rows with 64 disks: not 4 times a second */
        build_list(ks, r.w);
        ks->built = ks->gen;
        ks->built_width = r.w;
    }
    ks->sort.col[KC_UNIT].width = r.w - (NAME_W + VALUE_W + DEFAULT_W + NEW_W + 4) - 1;
    sort_cols_draw(&ks->sort, r.y, r.x);
    bool prompting = ks->mode == KM_EDIT || ks->mode == KM_FILTER;
    int below = prompting ? EDIT_BOX_LINES : DETAIL_LINES + 1;
    struct rect lr = { r.y + 1, r.x, r.h - below - 1, r.w };
    tv_draw(&ks->list, lr);
    int sep = lr.y + lr.h;
    if (prompting) {
        draw_prompt(ks, (struct rect){ sep, r.x, EDIT_BOX_LINES, r.w });
        return;
    }
    draw_hline(sep, r.x, r.w, ROLE_DIM);
    char status[200] = "";
    int len = 0;
    if (ks->npend) len += snprintf(status + len, sizeof status - len, " %d pending: D diff, a apply, u undo ", ks->npend);
    if (ks->filter[0]) snprintf(status + len, sizeof status - len, " filter \"%s\" ", ks->filter);
    if (status[0]) draw_text(sep, r.x + 2, r.w - 4, ks->npend ? ROLE_PENDING : ROLE_NORMAL, status);
    if (ks->periodic) {   /* what looking at this screen costs: a few files, not all of sysfs */
        char cost[96];
        snprintf(cost, sizeof cost, " every %d s: the %d knobs shown, %ld files read ", REFRESH_MS / 1000, ks->last_rows, ks->last_spent);
        int w = draw_cells(cost);
        if (w + 4 + draw_cells(status) < r.w) draw_text(sep, r.x + r.w - w - 2, w, ROLE_DIM, cost);
    }
    struct rect dr = { sep + 1, r.x, DETAIL_LINES, r.w };
    draw_detail(ks, dr);
}

/* --- editing ------------------------------------------------------------- */

static void begin_edit(struct knobs *ks)
{
    const struct krow *row = selected_row(ks);
    struct app *app = ks->base.app;
    if (!row) return;
    const struct knob_def *d = row->k.def;
    const char *why = knob_unwritable(d);
    if (why) {
        app_message(app, ROLE_WARN, "%s is %s", row->k.name, why);
        return;
    }
    if (!row->present) {
        app_message(app, ROLE_WARN, "%s is absent: this kernel has no %s", row->k.name, row->k.path);
        return;
    }
    ks->mode = KM_EDIT;
    ks->edit_row = (int)(row - ks->rows);
    ks->input[0] = 0;
    ks->edit_error[0] = 0;
}

/* The validated value becomes pending, unless the knob already has it. */
static int propose(struct knobs *ks, const struct krow *row, const char *text, sl_err *e)
{
    char canon[KNOB_VALUE_MAX];
    if (knob_validate(&row->k, text, canon, sizeof canon, e) < 0) return -1;
    if (row->present && knob_values_equal(&row->k, row->value, canon)) {
        pending_drop(ks, row->k.name);
        app_message(ks->base.app, ROLE_NORMAL, "%s is already %s: nothing pending", row->k.name, canon);
        return 0;
    }
    pending_set(ks, row->k.name, canon);
    app_message(ks->base.app, ROLE_PENDING, "pending: %s %s %s  (D shows the dry run, a applies)", row->k.name,
                term_glyphs()->arrow, canon);
    return 0;
}

/* Tab in the editor: the next of the knob's choices after what is typed. */
static void next_choice(struct knobs *ks, const struct krow *row)
{
    char choices[300];
    if (row->k.def->type == KT_BOOL) snprintf(choices, sizeof choices, "0 1");
    else if (row->k.def->type == KT_ENUM || row->k.def->type == KT_SCHED) range_of(&row->k, choices, sizeof choices);
    else return;
    const char *cur = ks->input[0] ? ks->input : row->value;
    char *save, *first = NULL, *tok;
    bool take = false;
    for (tok = strtok_r(choices, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (!first) first = tok;
        if (take) break;
        take = strcmp(tok, cur) == 0;
    }
    snprintf(ks->input, sizeof ks->input, "%s", tok ? tok : first ? first : "");
}

/* The filter narrows the list as it is typed (htop's F4): Enter keeps
 * it, Esc clears it. */
static enum handled filter_key(struct knobs *ks, enum action a, int key)
{
    if (a == ACT_BACK) ks->input[0] = 0;
    else if (key != '\n') prompt_line_edit(ks->input, sizeof ks->filter, key);
    snprintf(ks->filter, sizeof ks->filter, "%s", ks->input);
    ks->list.cursor = -1;
    ks->list.top = 0;
    if (a == ACT_BACK || key == '\n') ks->mode = KM_LIST;
    return H_HANDLED;
}

static enum handled edit_key(struct knobs *ks, enum action a, int key)
{
    const struct krow *row = ks->edit_row >= 0 ? &ks->rows[ks->edit_row] : NULL;
    if (ks->mode == KM_FILTER) return filter_key(ks, a, key);
    if (a == ACT_BACK) { ks->mode = KM_LIST; return H_HANDLED; }
    if (key == '\n') {
        sl_err e;
        if (!row || !ks->input[0]) { ks->mode = KM_LIST; return H_HANDLED; }
        if (propose(ks, row, ks->input, &e) < 0) {
            snprintf(ks->edit_error, sizeof ks->edit_error, "%s", e.msg);
            return H_HANDLED;
        }
        ks->mode = KM_LIST;
        return H_HANDLED;
    }
    if (key == '\t' && ks->mode == KM_EDIT && row) { next_choice(ks, row); return H_HANDLED; }
    ks->edit_error[0] = 0;
    prompt_line_edit(ks->input, ks->mode == KM_FILTER ? sizeof ks->filter : sizeof ks->input, key);
    return H_HANDLED;
}

static void set_default(struct knobs *ks)
{
    const struct krow *row = selected_row(ks);
    if (!row) return;
    struct app *app = ks->base.app;
    if (!row->k.def->def) {
        app_message(app, ROLE_WARN, "%s has no fixed default: the kernel picks it from the hardware", row->k.name);
        return;
    }
    sl_err e;
    if (propose(ks, row, row->k.def->def, &e) < 0) app_message(app, ROLE_ERROR, "%s", e.msg);
}

/* --- dry run, apply on trial, keep, revert ---------------------------------
 * The knobset is the one `sluice set` builds; these views are its curses
 * rendering (the CLI prints the same struct as a table). */

static int build_set(void *arg, struct knobset *set, sl_err *e)
{
    struct knobs *ks = arg;
    memset(set, 0, sizeof *set);
    if (ks->npend == 0) return sl_fail(e, SL_EUSAGE, "no pending change: edit a knob first (Enter)");
    for (int i = 0; i < ks->npend; i++)
        if (knobset_add(set, ks->pend[i].name, ks->pend[i].value, e) < 0) return -1;
    return knobset_prepare(set, e);
}

static void open_view(struct knobs *ks, const char *title, bool is_diff)
{
    ks->mode = KM_VIEW;
    ks->view_is_diff = is_diff;
    snprintf(ks->view_title, sizeof ks->view_title, "%s", title);
    tv_clear(&ks->view);
    ks->view.top = 0;
}

static void view_error(struct knobs *ks, const char *msg) { setview_error(&ks->view, msg, 76); }

static void knobs_diff(struct knobs *ks)
{
    struct knobset set;
    sl_err e;
    if (ks->npend == 0) { app_message(ks->base.app, ROLE_NORMAL, "no pending change: edit a knob first (Enter)"); return; }
    int rc = build_set(ks, &set, &e);
    open_view(ks, "Dry run: nothing is written until you apply (a)", rc == 0);
    if (rc < 0) view_error(ks, e.msg);
    else {
        setview_changes(&ks->view, &set, true);
        setview_snapshot(&ks->view, &set);
    }
    knobset_free(&set);
}

static void knobs_apply(struct knobs *ks)
{
    struct knobset set;
    sl_err e;
    if (ks->npend == 0) { app_message(ks->base.app, ROLE_NORMAL, "no pending change: edit a knob first (Enter)"); return; }
    enum trial_outcome o = trial_start(app_store(ks->base.app, &e), "applying knobs", build_set, ks, &set, &e);
    if (o == TRIAL_BUSY) app_message(ks->base.app, ROLE_WARN, "%s", e.msg);
    else {
        open_view(ks, o == TRIAL_ON            ? "Applied: on trial until you keep (K) or revert (R) it"
                      : o == TRIAL_ROLLED_BACK ? "Apply failed: rolled back"
                                               : "Apply refused: nothing was written", false);
        trial_show(&ks->view, o, &set, &e);
        if (o == TRIAL_ON) knobs_pending_clear(ks);
    }
    knobset_free(&set);
    knobs_refresh(ks);
}

static void knobs_keep(struct knobs *ks)
{
    struct restore_report unused = { 0 };
    char id[9];
    if (app_trial_decide(ks->base.app, true, &unused, id) < 0) return;
    ks->mode = KM_LIST;
    knobs_refresh(ks);
}

static void knobs_revert(struct knobs *ks)
{
    struct app *app = ks->base.app;
    struct restore_report rep = { 0 };
    sl_err e;
    char title[96];
    if (!trial_active()) { app_message(app, ROLE_NORMAL, "nothing is on trial"); return; }
    snprintf(title, sizeof title, "Reverted session %.8s", trial_uuid());
    int rc = trial_revert(&rep, &e);
    open_view(ks, title, false);
    setview_restore(&ks->view, &rep);
    if (rc < 0) view_error(ks, e.msg);
    restore_report_free(&rep);
    knobs_refresh(ks);
}

static enum handled knobs_key_now(struct knobs *ks, enum action a, int key);

/* Any key may change what the list shows (a pending value, the filter,
 * the row being edited): it is built again at the next draw. */
static enum handled knobs_key(struct screen *s, enum action a, int key)
{
    struct knobs *ks = (struct knobs *)s;
    ks->gen++;
    return knobs_key_now(ks, a, key);
}

static enum handled knobs_key_now(struct knobs *ks, enum action a, int key)
{
    struct screen *s = &ks->base;
    if (ks->mode == KM_EDIT || ks->mode == KM_FILTER) return edit_key(ks, a, key);
    if (ks->mode == KM_VIEW) {
        switch (a) {
        case ACT_BACK: ks->mode = KM_LIST; return H_HANDLED;
        case ACT_APPLY: if (ks->view_is_diff) knobs_apply(ks); return H_HANDLED;
        case ACT_KEEP: knobs_keep(ks); return H_HANDLED;
        case ACT_REVERT: knobs_revert(ks); return H_HANDLED;
        default: return tv_move(&ks->view, a);
        }
    }
    const struct krow *row = selected_row(ks);
    switch (a) {
    case ACT_EDIT: begin_edit(ks); return H_HANDLED;
    case ACT_SET_DEFAULT: set_default(ks); return H_HANDLED;
    case ACT_UNDO:
        if (row && knobs_pending_of(ks, row->k.name)) {
            pending_drop(ks, row->k.name);
            app_message(s->app, ROLE_NORMAL, "%s: pending change dropped", row->k.name);
        }
        return H_HANDLED;
    case ACT_UNDO_ALL:
        app_message(s->app, ROLE_NORMAL, "dropped %d pending change(s)", ks->npend);
        knobs_pending_clear(ks);
        return H_HANDLED;
    case ACT_FILTER:
        ks->mode = KM_FILTER;
        snprintf(ks->input, sizeof ks->input, "%s", ks->filter);
        ks->edit_error[0] = 0;
        return H_HANDLED;
    case ACT_BACK:
        if (!ks->filter[0]) return H_IGNORED;
        ks->filter[0] = 0;
        return H_HANDLED;
    case ACT_DIFF: knobs_diff(ks); return H_HANDLED;
    case ACT_APPLY: knobs_apply(ks); return H_HANDLED;
    case ACT_KEEP: knobs_keep(ks); return H_HANDLED;
    case ACT_REVERT: knobs_revert(ks); return H_HANDLED;
    case ACT_SORT_PREV: case ACT_SORT_NEXT: case ACT_SORT_REVERSE: return sort_cols_key(&ks->sort, s->app, a);
    case ACT_REFRESH: knobs_refresh(ks); return H_IGNORED;
    default: return tv_move(&ks->list, a);
    }
}

/* --- screen ops -------------------------------------------------------- */

static struct screen *knobs_create(struct app *app)
{
    struct knobs *ks = screen_new(sizeof *ks, &knobs_screen, app);
    tv_cursor_init(&ks->list);
    ks->edit_row = -1;
    ks->range_row = -1;
    sort_cols_init(&ks->sort, columns, KC_COUNT, -1, "the catalogue's order");
    return &ks->base;
}

static void knobs_show(struct screen *s) { knobs_refresh((struct knobs *)s); }

/* The values of the rows on screen, read again: what the user sees stays
 * current without reading every knob of every disk (with 64 disks the
 * whole list is ~1,600 files). */
static void reread_shown(struct knobs *ks)
{
    const struct textview *tv = &ks->list;
    int rows = 0;
    for (int i = tv->top; i < tv->n && i < tv->top + tv->page; i++) {
        int tag = tv->lines[i].tag;
        if (tag < 0 || tag >= ks->nrows) continue;
        read_row(&ks->rows[tag]);
        rows++;
    }
    ks->last_rows = rows;
    ks->range_row = -1;
    ks->gen++;
}

static void knobs_tick(struct screen *s, long long now)
{
    struct knobs *ks = (struct knobs *)s;
    /* Not while typing (the row being edited must stay put), nor while
     * another screen is shown. */
    if (ks->mode != KM_LIST || now - ks->last_refresh_ms < REFRESH_MS || !app_is_shown(s->app, s)) return;
    long before = sysfs_access_count();
    reread_shown(ks);
    ks->last_spent = ks->spent + sysfs_access_count() - before;
    ks->spent = 0;
    ks->periodic = true;
    ks->last_refresh_ms = now;
}

static bool knobs_hint_on(struct screen *s, enum action a)
{
    struct knobs *ks = (struct knobs *)s;
    const struct krow *row = selected_row(ks);
    switch (ks->mode) {
    case KM_EDIT: case KM_FILTER: return false;
    case KM_VIEW:
        return a == ACT_BACK || (a == ACT_APPLY && ks->view_is_diff) || ((a == ACT_KEEP || a == ACT_REVERT) && trial_active());
    case KM_LIST: break;
    }
    switch (a) {
    case ACT_UNDO: return row && knobs_pending_of(ks, row->k.name);
    case ACT_DIFF: case ACT_APPLY: return ks->npend > 0;
    case ACT_KEEP: case ACT_REVERT: return trial_active();
    case ACT_BACK: return false;
    default: return true;
    }
}

static void knobs_done(struct screen *s)
{
    struct knobs *ks = (struct knobs *)s;
    tv_free(&ks->list);
    tv_free(&ks->view);
    free(ks->rows);
    free(ks->pend);
    free(ks->group_of);
    free(ks);
}

static bool knobs_unsaved(struct screen *s, char *what, size_t n)
{
    const struct knobs *ks = (const struct knobs *)s;
    if (ks->npend == 0) return false;
    snprintf(what, n, "%d knob edit%s not applied (Knobs)", ks->npend, ks->npend == 1 ? "" : "s");
    return true;
}

/* What / (in a report; on the list it filters) and n/N search. */
static struct textview *knobs_view(struct screen *s)
{
    struct knobs *ks = (struct knobs *)s;
    return ks->mode == KM_VIEW ? &ks->view : &ks->list;
}

static const enum action knobs_hints[] = { ACT_EDIT, ACT_SET_DEFAULT, ACT_UNDO, ACT_FILTER, ACT_DIFF, ACT_APPLY,
                                           ACT_KEEP, ACT_REVERT, ACT_SORT_NEXT, ACT_BACK, ACT_NONE };
static const enum action knobs_keys[] = { ACT_SORT_PREV, ACT_SORT_REVERSE, ACT_NONE };

const struct screen_class knobs_screen = {
    .title = "Knobs", .open = ACT_KNOBS, .hints = knobs_hints, .keys = knobs_keys,
    .create = knobs_create, .draw = knobs_draw, .handle_key = knobs_key,
    .done = knobs_done, .show = knobs_show, .tick = knobs_tick, .hint_on = knobs_hint_on, .view = knobs_view, .unsaved = knobs_unsaved,
};
