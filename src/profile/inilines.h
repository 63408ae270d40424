/* inilines — inih over a file or text in memory, keeping the line number a
 * handler is called for (inih itself reports lines only for syntax errors)
 * and noticing lines longer than inih's buffer instead of splitting them. */
#ifndef SLUICE_INILINES_H
#define SLUICE_INILINES_H

#include <ini.h>
#include <stdbool.h>
#include <stdio.h>

struct ini_lines {
    FILE *f;            /* read from f, or else from text */
    const char *text;
    size_t pos;
    int line;           /* the line the handler is being called for */
    int section_line;   /* the line of the last [section] header */
    int long_line;      /* first line (not a comment) too long for inih, or 0 */
    int nul_line;       /* first line holding a NUL byte (C would end it there), or 0 */
};

/* ini_parse_stream over r: the first error line (syntax or handler), 0, or
 * -2 when out of memory. */
int ini_lines_parse(struct ini_lines *r, ini_handler handler, void *user);
#define INI_LINES_MAX 198
/* inih keeps section names in 50 bytes (MAX_SECTION in ini.c). */
#define INI_SECTION_MAX 50

#endif
