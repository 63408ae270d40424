/* form — a settings form (see form.h). */
#include "ui/form.h"
#include "ui/prompt.h"
#include "db/store_form.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORM_MSG_LINES 4

void form_field_of(struct form_field *fd, const struct opt_table *t, const char *name)
{
    static const char *const yes_no[] = { "", "yes", NULL };
    const struct opt *o = opt_find(t, name, NULL);
    if (!o || !o->label) abort();   /* a form field with no row, or a row with no label: the UI test catches it */
    *fd = (struct form_field){ .label = o->label, .kind = FORM_TEXT, .row = o };
    snprintf(fd->option_text, sizeof fd->option_text, "--%s", o->name);
    fd->option = fd->option_text;
    /* the row's help as a sentence, and its default */
    int n = snprintf(fd->help_text, sizeof fd->help_text, "%c%s", toupper((unsigned char)o->help[0]), o->help + 1);
    if (o->def && n > 0 && (size_t)n < sizeof fd->help_text)
        snprintf(fd->help_text + n, sizeof fd->help_text - (size_t)n, " (default %s)", o->def);
    strncat(fd->help_text, ".", sizeof fd->help_text - strlen(fd->help_text) - 1);
    fd->help = fd->help_text;
    if (o->type == OPT_FLAG) { fd->kind = FORM_CHOICE; fd->choices = yes_no; }
    else if (o->choice_at) { fd->kind = FORM_CHOICE; fd->choice_at = o->choice_at; }
}

const char *form_field_default(const struct form_field *fd)
{
    return fd->row && fd->row->def ? fd->row->def : "";
}

void form_init(struct form *fm, const struct form_field *field, int n)
{
    memset(fm, 0, sizeof *fm);
    fm->field = field;
    fm->n = n < FORM_MAX_FIELDS ? n : FORM_MAX_FIELDS;
}

bool form_shown(const struct form *fm, int f)
{
    return !fm->field[f].shown || fm->field[f].shown(fm);
}

static const char *choice(const struct form_field *fd, int i)
{
    return fd->choices ? fd->choices[i] : fd->choice_at(i);
}

/* The choice after (dir 1) or before (-1) the value; from the first when
 * the value is none of them. */
static void cycle(struct form *fm, int f, int dir)
{
    const struct form_field *fd = &fm->field[f];
    int n = 0, cur = 0;
    for (const char *c; (c = choice(fd, n)); n++)
        if (strcmp(c, fm->value[f]) == 0) cur = n;
    if (n) snprintf(fm->value[f], sizeof fm->value[f], "%s", choice(fd, (cur + dir + n) % n));
}

bool form_click(struct form *fm, int f)
{
    if (fm->editing || f < 0 || f >= fm->n || !form_shown(fm, f)) return false;
    if (fm->sel == f) return true;
    fm->sel = f;
    fm->error[0] = 0;
    return false;
}

bool form_can_clear(const struct form *fm)
{
    const struct form_field *fd = &fm->field[fm->sel];
    if (fm->editing || !fm->value[fm->sel][0]) return false;
    if (fd->kind != FORM_CHOICE) return true;
    for (int i = 0; choice(fd, i); i++)
        if (!choice(fd, i)[0]) return true;
    return false;
}

static bool offered(const struct form_field *fd, const char *v)
{
    for (int i = 0; choice(fd, i); i++)
        if (strcmp(choice(fd, i), v) == 0) return true;
    return false;
}

int form_recall(struct form *fm, store *st, const char *name, sl_err *e)
{
    for (int f = 0; f < fm->n; f++) {
        char v[PATH_MAX];
        int found = store_form_get(st, name, fm->field[f].option, v, sizeof v, e);
        if (found < 0) return -1;
        if (found && (fm->field[f].kind != FORM_CHOICE || offered(&fm->field[f], v)))
            snprintf(fm->value[f], sizeof fm->value[f], "%s", v);
    }
    return 0;
}

int form_remember(struct form *fm, store *st, const char *name, sl_err *e)
{
    for (int f = 0; f < fm->n; f++) {
        if (!fm->typed[f]) continue;
        if (store_form_set(st, name, fm->field[f].option, fm->value[f], e) < 0) return -1;
        fm->typed[f] = false;
    }
    return 0;
}

/* The next shown field from f in steps of dir; f itself when none is. */
static int step(const struct form *fm, int f, int dir)
{
    for (int g = f + dir; g >= 0 && g < fm->n; g += dir)
        if (form_shown(fm, g)) return g;
    return f;
}

enum handled form_key(struct form *fm, enum action a, int key)
{
    if (fm->editing) {
        if (a == ACT_BACK) fm->editing = false;
        else if (key == '\n') {
            snprintf(fm->value[fm->sel], sizeof fm->value[fm->sel], "%s", fm->input);
            fm->editing = false;
            fm->typed[fm->sel] = true;
        } else prompt_line_edit(fm->input, sizeof fm->input, key);
        return H_HANDLED;
    }
    fm->error[0] = 0;
    const struct form_field *fd = &fm->field[fm->sel];
    if (prompt_typed_text(a, key)) {   /* "20s" typed over a field: into it, never to another screen */
        if (fd->kind == FORM_CHOICE) {
            snprintf(fm->error, sizeof fm->error, "%s is a choice (Left/Right): '%c' was not taken; the F-keys switch "
                     "screens", fd->label, key);
            return H_HANDLED;
        }
        fm->editing = true;   /* shown in the editor: Enter takes it, Esc drops it */
        snprintf(fm->input, sizeof fm->input, "%c", key);
        return H_HANDLED;
    }
    switch (a) {
    case ACT_UP: fm->sel = step(fm, fm->sel, -1); return H_HANDLED;
    case ACT_DOWN: fm->sel = step(fm, fm->sel, 1); return H_HANDLED;
    case ACT_FIRST: if (step(fm, -1, 1) >= 0) fm->sel = step(fm, -1, 1); return H_HANDLED;
    case ACT_LAST: if (step(fm, fm->n, -1) < fm->n) fm->sel = step(fm, fm->n, -1); return H_HANDLED;
    case ACT_LEFT: case ACT_RIGHT:
        if (fd->kind == FORM_CHOICE) cycle(fm, fm->sel, a == ACT_LEFT ? -1 : 1);
        fm->typed[fm->sel] |= fd->kind == FORM_CHOICE;
        return H_HANDLED;
    case ACT_EDIT:
        if (fd->kind == FORM_CHOICE) { cycle(fm, fm->sel, 1); fm->typed[fm->sel] = true; }
        else {
            fm->editing = true;
            snprintf(fm->input, sizeof fm->input, "%s", fm->value[fm->sel]);
        }
        return H_HANDLED;
    case ACT_UNDO:
        if (form_can_clear(fm)) { fm->value[fm->sel][0] = 0; fm->typed[fm->sel] = true; }
        return H_HANDLED;
    default: return H_IGNORED;
    }
}

void form_draw(const struct form *fm, const struct form_look *look, const char *problem, struct rect r)
{
    draw_text(r.y, r.x, r.w, ROLE_HEADER, look->title);
    draw_text(r.y, r.x + look->note_x, r.w - look->note_x, ROLE_DIM, look->note);
    /* A long message (a loadfile's error names file, line and what to give)
     * takes up to four lines under the rule; the rule moves up for it. */
    bool bad = fm->error[0] || problem;
    const char *msg = fm->error[0] ? fm->error : problem ? problem : fm->field[fm->sel].help;
    char lines[FORM_MSG_LINES][256];
    int n = draw_wrap(msg, r.w, lines, FORM_MSG_LINES);
    int rule = r.y + r.h - 1 - (n > 2 ? n : 2);
    int nshown = 0;
    for (int f = 0; f < fm->n; f++) nshown += form_shown(fm, f);
    char cost[8][256];
    int nc = 0;   /* each of its lines ('\n') wrapped */
    for (const char *p = look->cost; p && *p && nc < 8;) {
        char para[1024];
        size_t len = strcspn(p, "\n");
        snprintf(para, sizeof para, "%.*s", (int)len, p);
        nc += draw_wrap(para, r.w, cost + nc, 8 - nc);
        p += len + (p[len] == '\n');
    }
    /* the cost under the fields; the blank line under the header goes first */
    int top = r.y + 2 + nshown + nc > rule ? r.y + 1 : r.y + 2;
    int row = 0;
    int value_w = look->aside_x - 17;   /* up to the aside, one blank before it */
    for (int f = 0; f < fm->n && top + row < rule; f++) {
        if (!form_shown(fm, f)) continue;
        int y = top + row++;
        draw_target_add((struct rect){ y, r.x, 1, r.w }, TARGET_FORM, (void *)fm, f);
        bool sel = f == fm->sel;
        if (sel) draw_fill(y, r.x, r.w, ROLE_SELECTED);
        enum role base = sel ? ROLE_SELECTED : ROLE_NORMAL;
        draw_fmt(y, r.x, 16, base, "  %s", fm->field[f].label);
        if (sel && fm->editing) {
            int x = draw_text(y, r.x + 16, r.w - 17, ROLE_PENDING, fm->input);
            draw_text(y, r.x + 16 + x, 1, ROLE_SELECTED, " ");
        } else if (fm->value[f][0]) {
            draw_text(y, r.x + 16, value_w, base, fm->value[f]);
        } else {
            char shown[PATH_MAX + 32] = "";
            look->empty(look->arg, f, shown, sizeof shown);
            draw_text(y, r.x + 16, value_w, sel ? ROLE_SELECTED : ROLE_DIM, shown);
        }
        const char *aside = look->aside ? look->aside(look->arg, f) : NULL;
        draw_text(y, r.x + look->aside_x, r.w - look->aside_x, sel ? ROLE_SELECTED : ROLE_DIM,
                  aside ? aside : fm->field[f].option);
    }
    for (int i = 0; i < nc && top + row + i < rule; i++) draw_text(top + row + i, r.x, r.w, look->cost_role, cost[i]);
    draw_hline(rule, r.x, r.w, ROLE_DIM);
    for (int i = 0; i < n; i++) draw_text(rule + 1 + i, r.x, r.w, bad ? ROLE_ERROR : ROLE_NORMAL, lines[i]);
}
