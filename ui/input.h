/* input — the one function all input goes through (tig's model): keys from
 * the keyboard, or from a key script (SLUICE_KEYS=FILE) so that UI tests
 * replay keys and compare screens.
 *
 * Key script: one entry a line; blank lines and lines starting with '#' are
 * skipped. "<Name>" is one key: <Up> <Down> <Left> <Right> <PgUp> <PgDn>
 * <Home> <End> <Enter> <Esc> <Tab> <Space> <Backspace> <Del> <F1>..<F12>
 * <C-x> (control) <lt> (a literal '<'). <Click X Y> is a left click
 * on column X, line Y (from 0, as ncurses counts), <WheelUp X Y> and
 * <WheelDown X Y> the wheel. ":name" runs an action by its name
 * (":dump-screen"). <Wait> waits until no background work runs. <Idle MS>
 * types nothing for MS milliseconds of the UI clock (screens tick and
 * redraw as they would while the user reads). <Resize
 * COLSxLINES> resizes the headless terminal. Any other line is typed, one
 * key per character ("q", "40"). */
#ifndef SLUICE_UI_INPUT_H
#define SLUICE_UI_INPUT_H

#include <stdbool.h>
#include "core/err.h"

enum input_kind {
    IN_NONE,     /* nothing arrived before the timeout */
    IN_KEY,      /* key: a curses key code (KEY_RESIZE included) */
    IN_ACTION,   /* action: an enum action named by the script */
    IN_WAIT,     /* script: wait for background work */
    IN_IDLE,     /* script: nothing typed for ms milliseconds */
    IN_RESIZE,   /* script: lines, cols */
    IN_MOUSE,    /* a click (key 1) or the wheel (4 up, 5 down) at lines (y), cols (x) */
    IN_END,      /* the script is over */
};

struct input_event {
    enum input_kind kind;
    int key;
    int action;
    int lines, cols;
    int ms;
};

/* Read the key script at path (NULL or "": the keyboard). -1 with a message
 * naming file and line for an unknown key name. */
int input_open(const char *path, sl_err *e);
void input_close(void);
bool input_scripted(void);
/* The next event: from the script at once, else from the keyboard waiting
 * at most timeout_ms (IN_NONE when nothing came). */
void input_next(int timeout_ms, struct input_event *ev);
/* Parse one script line into events (also for unit tests); returns the
 * count, or -1 with e filled. */
int input_parse_line(const char *line, struct input_event *evs, int max, sl_err *e);

#endif
