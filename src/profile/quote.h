/* quote — text written into the files sluice generates, one function per
 * format and place. Values come partly from outside: device strings (a USB
 * stick chooses its own model and serial), file and directory names, TuneD
 * profiles, host names. A newline there would start a new profile line,
 * sysctl line or udev rule that runs as root at boot; a quote or ']' would
 * end a value or section early; '%' and '$' are substitutions to udev and
 * systemd, '${' a function call to TuneD. Each function either writes the
 * text so that the format reads back exactly it (or a glob that matches
 * it), or refuses it with a message naming it. */
#ifndef SLUICE_PROFILE_QUOTE_H
#define SLUICE_PROFILE_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include "core/err.h"

/* Whether s holds a control character (C0, DEL) that no generated format
 * can carry on one line. */
bool quote_has_control(const char *s);
/* Refuse (SL_EUSAGE) a path or name holding a control character, naming
 * `what` and the text (its control characters shown as \xHH). */
int quote_check_path(const char *what, const char *s, sl_err *e);

/* The text of a comment line (profile ';', sysctl.d and udev '#'): control
 * characters written as \xHH, so the comment stays one line. */
void quote_comment(const char *in, char *out, size_t n);

/* A sluice profile (INI read by inih) value after "key = ": control
 * characters as \xHH, and ';' or '#' after a blank as \xHH (inih would
 * take the rest for a comment): one value that reads back whole. */
void quote_ini_value(const char *in, char *out, size_t n);
/* A glob for a selector term (KEY=GLOB in [block "..."] or match =) that
 * matches the device string `in`: every character the section header or
 * the selector syntax gives a meaning to (control characters, '"', '[',
 * ']', '*', '?', ',', '=', '\\', ';', '#', a leading '!' or blank, a
 * trailing blank) becomes '?', which fnmatch matches to any one character. */
void quote_selector_glob(const char *in, char *out, size_t n);

/* A sysctl.d(5) value: the rest of the line, blanks trimmed. -1 (SL_EUSAGE)
 * for a control character, which would end the line early. */
int quote_sysctl_value(const char *in, char *out, size_t n, sl_err *e);

/* A udev match value (KEY=="value", a glob): '"', '\\', '*', '?', '[', ']',
 * '%', '$' (substitutions) and control characters become '?'. */
void quote_udev_match(const char *in, char *out, size_t n);
/* A udev assignment value (ATTR{file}="value"): '%' and '$' doubled (udev's
 * escapes for a literal one); -1 (SL_EUSAGE) for '"', '\\' or a control
 * character, which udev's plain strings cannot hold. */
int quote_udev_assign(const char *in, char *out, size_t n, sl_err *e);

/* A program path as the first word of a systemd Exec*= line: '%' and '$'
 * doubled (specifiers, variables), '\\' and '"' escaped, in double quotes
 * when it holds a blank. -1 (SL_EUSAGE) naming it for a control character. */
int quote_unit_exec(const char *path, char *out, size_t n, sl_err *e);

/* A program path as one word of a shell script (an init script, an
 * rc.local line): single-quoted, a ' as '\''. -1 (SL_EUSAGE) naming it for
 * a control character. */
int quote_shell_word(const char *path, char *out, size_t n, sl_err *e);

/* A TuneD profile value (summary=, devices=, a [sysfs] path): '$' (TuneD
 * expands ${...}, calling functions such as ${f:exec:...}), '#' (its
 * parser's inline comments) and control characters become '?'. */
void quote_tuned_value(const char *in, char *out, size_t n);

#endif
