/* textbuf — a growing text buffer for rendering files (profiles, sysctl.d,
 * udev rules, units). Out of memory aborts, like xmalloc. */
#ifndef SLUICE_TEXTBUF_H
#define SLUICE_TEXTBUF_H

#include <stddef.h>

struct textbuf {
    char *s;        /* NUL-terminated once anything was added; caller frees */
    size_t len, cap;
};

void textbuf_printf(struct textbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text, "" when nothing was added; ownership passes to the caller. */
char *textbuf_take(struct textbuf *b);

#endif
