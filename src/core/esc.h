/* esc — untrusted text made safe to print on a terminal. Device strings
 * (a USB stick chooses its own model and serial), profile text echoed in
 * messages and strings from merged databases may hold escape sequences that
 * would move the cursor, retitle the window or hide what follows; the CLI
 * and the UI print them through these. */
#ifndef SLUICE_ESC_H
#define SLUICE_ESC_H

#include <stddef.h>

/* in with each control character (C0, DEL, and the C1 range U+0080..U+009F
 * in UTF-8) written as \xHH, \n, \r or \t, and so each byte that is not
 * part of a valid UTF-8 character (a raw 8-bit C1 control such as CSI
 * 0x9b, Latin-1 text), into out (always terminated, cut short before a
 * character that does not fit when n is too small). Returns out.
 * keep_newline: '\n' passes (for multi-line messages sluice itself composed). */
char *esc_term(const char *in, char *out, size_t n, int keep_newline);
/* The same into one of a few per-thread buffers (1 KiB each, reused in
 * turn): for printf arguments, at most 8 live at once. */
const char *esc_t(const char *in);

#endif
