/* prompt — a one-line input dialog a screen opens over itself: a title, a
 * question, the text typed, an error line, a help line; optional choices
 * that Tab and Left/Right cycle through. The screen checks what was typed
 * when the prompt says PROMPT_ENTERED and either closes it or leaves it
 * open with prompt_error, so a mistake never loses what was typed. */
#ifndef SLUICE_UI_PROMPT_H
#define SLUICE_UI_PROMPT_H

#include <limits.h>
#include <stdbool.h>
#include "ui/screen.h"

#define PROMPT_LINES 7

struct prompt {
    bool open;
    int id;                          /* which question, for the screen */
    char title[64], question[256], help[256];
    char input[PATH_MAX];
    char error[512];
    const char *const *choices;      /* NULL-terminated, or NULL */
};

enum prompt_result { PROMPT_EDITING, PROMPT_ENTERED, PROMPT_CANCELLED };

/* Open with an initial text (may be ""); choices may be NULL. */
void prompt_open(struct prompt *p, int id, const char *title, const char *question, const char *initial,
                 const char *help, const char *const *choices);
void prompt_close(struct prompt *p);
/* Keep it open with an error under the input (wrapped). */
void prompt_error(struct prompt *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A key while open: Enter gives PROMPT_ENTERED (still open), Esc closes
 * it (PROMPT_CANCELLED), anything else edits. */
enum prompt_result prompt_key(struct prompt *p, enum action a, int key);
/* In the lower PROMPT_LINES of r (or all of r when smaller). */
void prompt_draw(const struct prompt *p, struct rect r);
/* Printable ASCII appends, Backspace deletes, ^U clears. */
void prompt_line_edit(char *buf, size_t n, int key);
/* Whether a key (bound to action a) is text a user meant to type where a
 * field could take it: a digit (elsewhere a screen switch) or a printable
 * key bound to nothing. Screens with a field under the cursor type it
 * there instead of switching screens. */
bool prompt_typed_text(enum action a, int key);

#endif
