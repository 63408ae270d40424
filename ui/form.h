/* form — a settings form (the Probe and Search screens'): one row per
 * field from a table (label, the value typed, what an empty value means
 * shown dim, the option it stands for), a cursor; Enter edits a text field
 * in place with prompt_line_edit or steps a choice, Left/Right cycle the
 * choices, u clears; text typed over a text field (a digit, a key bound to
 * nothing) opens its editor with it, never switching screens. Values are what the user typed: "" is the default,
 * which the screen says when it builds its options from the form. */
#ifndef SLUICE_UI_FORM_H
#define SLUICE_UI_FORM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include "core/err.h"
#include "core/opt.h"
#include "ui/screen.h"
#include "db/store.h"

#define FORM_MAX_FIELDS 16

/* What a field holds; its screen checks the values through its option
 * table (opt_set), so bounds and messages are the command line's. */
enum form_kind { FORM_TEXT, FORM_CHOICE };

struct form;

struct form_field {
    const char *label, *option, *help;
    enum form_kind kind;
    const char *const *choices;           /* FORM_CHOICE: a NULL-terminated list, or */
    const char *(*choice_at)(int i);      /* the i-th choice, NULL past the last */
    bool (*shown)(const struct form *fm); /* NULL: always; a hidden field is skipped */
    const struct opt *row;                /* the option row it was made from (form_field_of), or NULL */
    char option_text[40], help_text[512]; /* form_field_of's option and help */
};

struct form {
    const struct form_field *field;
    int n;
    char value[FORM_MAX_FIELDS][PATH_MAX];
    int sel;
    bool editing;
    char input[PATH_MAX];
    char error[512];                      /* the screen's last refusal; any key clears it */
    bool typed[FORM_MAX_FIELDS];          /* set by the keys since form_remember */
};

/* How a screen lays its form out and says what empty values mean. */
struct form_look {
    const char *title, *note;             /* the header line */
    int note_x, aside_x;                  /* columns of the note and of the right-hand text */
    /* What field f shows dim while empty (its default). */
    void (*empty)(void *arg, int f, char *buf, size_t n);
    /* The right-hand text of field f; NULL (or a NULL aside) shows its option. */
    const char *(*aside)(void *arg, int f);
    void *arg;
    /* What the work will cost (form_cost.h), wrapped under the fields, the
     * fields moving up a line when it needs it (NULL: none); in cost_role. */
    const char *cost;
    enum role cost_role;
};

/* The field for the option row named name of table t (abort when there is
 * none: a screen naming an option its command lacks): the row's label, its
 * --option, its help with its default, a choice list for a choice row and
 * yes/no for a flag. The screen adds only what a row cannot say (when a
 * field is shown, a tri-state's choices). */
void form_field_of(struct form_field *fd, const struct opt_table *t, const char *name);
/* What the field's row says its default is ("5s", "the workload's"), or "". */
const char *form_field_default(const struct form_field *fd);
/* n fields (at most FORM_MAX_FIELDS), every value empty. */
void form_init(struct form *fm, const struct form_field *field, int n);
/* Cursor, editing and choices. H_IGNORED for what a form does not take
 * (Esc when not editing, s, ...): the screen's own keys. */
enum handled form_key(struct form *fm, enum action a, int key);
/* Into r: the header, the shown fields, a rule and under it (two to four
 * lines) fm->error, else problem (what is wrong with the values now; NULL:
 * nothing), else the help of the field under the cursor. */
void form_draw(const struct form *fm, const struct form_look *look, const char *problem, struct rect r);
bool form_shown(const struct form *fm, int f);
/* The values remembered in the database for the form called name (each
 * field by its option); a choice no longer offered is left as it is.
 * -1 with e when the database fails (the form keeps its values). */
int form_recall(struct form *fm, store *st, const char *name, sl_err *e);
/* Remember the fields the keys changed since the last call. -1 with e. */
int form_remember(struct form *fm, store *st, const char *name, sl_err *e);
/* A click on field f (draw_target TARGET_FORM): the cursor goes there;
 * true when it was there already (a second click: Enter). Ignored while
 * a field is being edited. */
bool form_click(struct form *fm, int f);
/* Whether u would clear the field under the cursor ("" is one of its values). */
bool form_can_clear(const struct form *fm);
#endif
