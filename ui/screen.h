/* screen — a screen is an object whose class fills a screen_class (htop's
 * Panel / tig's view_ops): one file per screen, created on first use,
 * drawn into the content rectangle the app gives it. */
#ifndef SLUICE_UI_SCREEN_H
#define SLUICE_UI_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include "ui/action.h"
#include "ui/draw.h"

struct app;
struct textview;

enum handled { H_IGNORED = 0, H_HANDLED = 1 };

/* Every screen struct starts with this. */
struct screen {
    const struct screen_class *cls;
    struct app *app;
};

struct screen_class {
    const char *title;                  /* "Knobs": title bar and help */
    enum action open;                   /* the action that shows it */
    const enum action *hints;           /* its actions for the hint line, ACT_NONE ends */
    const enum action *keys;            /* more of its actions, for help only (NULL: none) */
    struct screen *(*create)(struct app *app);
    /* Draw into r (the app has blanked it). Never blocks. */
    void (*draw)(struct screen *s, struct rect r);
    /* A key and the action bound to it (ACT_NONE when unbound). H_IGNORED
     * passes it on to the app (screen switching, help, quit). */
    enum handled (*handle_key)(struct screen *s, enum action a, int key);
    /* Free everything; background work has ended (busy() is false). */
    void (*done)(struct screen *s);

    /* Optional (NULL: nothing to do). */
    void (*show)(struct screen *s);                 /* about to become visible: refresh */
    void (*resize)(struct screen *s, struct rect r); /* the content rectangle changed (KEY_RESIZE) */
    void (*tick)(struct screen *s, long long now_ms); /* every loop turn: poll workers, sample */
    bool (*busy)(struct screen *s);                 /* background work is running */
    void (*cancel)(struct screen *s);               /* ask background work to stop (returns at once) */
    bool (*hint_on)(struct screen *s, enum action a); /* whether a hint applies right now */
    /* Edits made but not applied (quitting would drop them): true with what
     * they are in `what` ("2 knob edits not applied"). */
    bool (*unsaved)(struct screen *s, char *what, size_t n);
    /* The text view shown now (NULL: none, e.g. a form), for / and n/N. */
    struct textview *(*view)(struct screen *s);
};

#endif
