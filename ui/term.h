/* term — the one module that owns the terminal (htop's CRT.c): curses set-up
 * and teardown, colours by meaning with a monochrome fallback, the glyph set
 * (UTF-8 or ASCII), a headless mode for tests, and the screen dump. Only the
 * UI thread calls these, except term_emergency. */
#ifndef SLUICE_UI_TERM_H
#define SLUICE_UI_TERM_H

#include <stdbool.h>
#include "core/err.h"

/* What a piece of text means; term_attr turns it into colour or, on a
 * monochrome terminal, into bold/reverse/underline. */
enum role {
    ROLE_NORMAL,
    ROLE_TITLE,     /* the top bar */
    ROLE_HEADER,    /* column headings, section titles */
    ROLE_SELECTED,  /* the cursor line */
    ROLE_FKEY,      /* "F3" on the key bar, key names on the hint line */
    ROLE_FLABEL,    /* "Knobs" on the key bar */
    ROLE_CHANGED,   /* value differs from the kernel default */
    ROLE_PENDING,   /* an edit not applied yet */
    ROLE_WARN,      /* needs attention: a crashed session, a trial open */
    ROLE_ERROR,
    ROLE_OK,
    ROLE_DIM,       /* absent, read-only, unavailable */
    ROLE_GRAPH,
    ROLE_DIALOG,
    ROLE_COUNT
};

/* Box-drawing and chart glyphs: UTF-8, or plain ASCII when the locale is
 * not UTF-8 or SLUICE_ASCII=1. */
struct glyphs {
    bool utf8;
    const char *hline, *vline, *tl, *tr, *bl, *br, *arrow, *ellipsis, *mark;
};

/* Take the terminal. Environment: SLUICE_HEADLESS=1 draws into a virtual
 * terminal (no tty needed) of SLUICE_SIZE (COLSxLINES, default 80x24) with
 * terminal type SLUICE_TERM (default xterm-256color); SLUICE_ASCII=1;
 * NO_COLOR or SLUICE_MONO=1 for monochrome. -1 with e filled when curses
 * cannot start (no terminal, unknown TERM). */
int term_open(sl_err *e);
/* Give the terminal back (idempotent): leaves the alternate screen, restores
 * the tty modes saved at open. */
void term_close(void);
/* From a fatal path (sl_die hook), any thread: the terminal as the shell
 * had it, without touching curses' data structures more than endwin does. */
void term_emergency(void);

bool term_headless(void);
const struct glyphs *term_glyphs(void);
int term_attr(enum role r);
void term_size(int *lines, int *cols);
/* Headless only: pretend the terminal was resized (key scripts' <Resize>). */
int term_resize(int lines, int cols, sl_err *e);
/* While curses owns a real terminal, fd 2 goes into a pipe, so a warning
 * some library prints cannot tear the screen. The newest complete line
 * captured since the last call (into buf; 0 when none), for the message
 * line. Everything captured is written to the real stderr by term_close. */
int term_stderr_line(char *buf, size_t n);

/* Append the screen as UTF-8 text (trailing blanks trimmed, a separator
 * line first) to path. -1 with e filled on an I/O error. */
int term_dump(const char *path, sl_err *e);

#endif
