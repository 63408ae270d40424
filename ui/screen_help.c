/* screen_help — the `?` screen, built from the action table. */
#include "ui/app.h"
#include "ui/textview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct screen_class help_screen;

struct help {
    struct screen base;
    struct textview tv;
};

/* One action's row: its keys, its script name, its help wrapped. */
static void action_row(struct textview *tv, enum action a, int width)
{
    const struct action_info *ai = action_info(a);
    char keys[32];
    action_keys_text(a, keys, sizeof keys);
    tv_line(tv, false, a);
    tv_add(tv, ROLE_NORMAL, "  ");
    tv_cell(tv, ROLE_FKEY, 12, keys);
    tv_cell(tv, ROLE_NORMAL, 17, ai->name);
    char lines[4][256];
    int n = draw_wrap(ai->help, width - 33 > 20 ? width - 33 : 20, lines, 4);
    for (int i = 0; i < n; i++) {
        if (i > 0) {
            tv_line(tv, false, a);
            tv_add(tv, ROLE_NORMAL, "%33s", "");
        }
        tv_add(tv, ROLE_NORMAL, "%s", lines[i]);
    }
}

static void heading(struct textview *tv, const char *fmt, const char *arg)
{
    tv_line(tv, false, -1);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_HEADER, fmt, arg);
}

/* The actions that work on every screen: switching screens, moving,
 * finding, keep and revert while a trial is open. */
static bool global(enum action a)
{
    const char *group = action_info(a)->group;
    return strcmp(group, "Screens") == 0 || strcmp(group, "Moving") == 0 || a == ACT_KEEP || a == ACT_REVERT;
}

static bool listed(const enum action *list, enum action a)
{
    for (; list && *list != ACT_NONE; list++)
        if (*list == a) return true;
    return false;
}

/* Whether a is one of the screen's own keys: on its hint line, in its
 * keys, or in the action table's group named after it (Knobs: U as well). */
static bool of_screen(const struct screen_class *c, enum action a)
{
    return !global(a) && (listed(c->hints, a) || listed(c->keys, a) || strcmp(action_info(a)->group, c->title) == 0);
}

/* The keys of the screen help was opened from, then the ones that work
 * everywhere (switching screens, moving, finding, keep/revert, quit): the
 * action table read twice, nothing listed by hand. */
static void build(struct help *h, int width)
{
    struct textview *tv = &h->tv;
    const struct glyphs *g = term_glyphs();
    const struct screen_class *from = app_previous_screen(h->base.app);
    tv_clear(tv);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_HEADER, "Keys");
    tv_add(tv, ROLE_DIM, "   (Esc or F1 goes back; the same actions by name in key scripts: \":name\")");
    if (from) {
        heading(tv, "On the %s screen", from->title);
        for (int a = ACT_NONE + 1; a < ACT_COUNT; a++)
            if (of_screen(from, (enum action)a)) action_row(tv, (enum action)a, width);
    }
    heading(tv, "%s", "Screens");
    for (int a = ACT_NONE + 1; a < ACT_COUNT; a++)
        if (strcmp(action_info((enum action)a)->group, "Screens") == 0) action_row(tv, (enum action)a, width);
    heading(tv, "%s", "Everywhere");
    for (int a = ACT_NONE + 1; a < ACT_COUNT; a++)
        if (global((enum action)a) && strcmp(action_info((enum action)a)->group, "Screens") != 0) action_row(tv, (enum action)a, width);
    tv_line(tv, false, -1);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_HEADER, "Marks");
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_CHANGED, "  *");
    tv_add(tv, ROLE_NORMAL, "  the value differs from the kernel default");
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_PENDING, "  %s", g->arrow);
    tv_add(tv, ROLE_NORMAL, " a pending value, written only by apply");
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_WARN, "  trial");
    tv_add(tv, ROLE_NORMAL, " applied values not kept yet: quitting, a signal or a crash puts them back");
}

static struct screen *help_create(struct app *app)
{
    struct help *h = screen_new(sizeof *h, &help_screen, app);
    return &h->base;
}

static void help_draw(struct screen *s, struct rect r)
{
    struct help *h = (struct help *)s;
    build(h, r.w);
    tv_draw(&h->tv, r);
}

static enum handled help_key(struct screen *s, enum action a, int key)
{
    struct help *h = (struct help *)s;
    if (a == ACT_HELP || a == ACT_BACK) { app_back(s->app); return H_HANDLED; }
    return tv_move(&h->tv, a);
}

static void help_show(struct screen *s) { ((struct help *)s)->tv.top = 0; }

static void help_done(struct screen *s)
{
    struct help *h = (struct help *)s;
    tv_free(&h->tv);
    free(h);
}

static struct textview *help_view(struct screen *s) { return &((struct help *)s)->tv; }

static const enum action help_hints[] = { ACT_NONE };

const struct screen_class help_screen = {
    .title = "Help", .open = ACT_HELP, .hints = help_hints,
    .create = help_create, .draw = help_draw, .handle_key = help_key, .done = help_done,
    .show = help_show, .view = help_view,
};
