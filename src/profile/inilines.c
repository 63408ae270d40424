/* inilines — a line-counting reader for inih. */
#include "profile/inilines.h"

#include <ctype.h>

static char *reader(char *str, int num, void *stream)
{
    struct ini_lines *r = stream;
    int i = 0;
    bool newline = false;
    for (;;) {
        int ch = r->f ? fgetc(r->f) : (r->text[r->pos] ? (unsigned char)r->text[r->pos++] : EOF);
        if (ch == EOF) break;
        if (ch == '\n') { newline = true; break; }
        if (ch == 0 && !r->nul_line) r->nul_line = r->line + 1;
        if (i < num - 2) str[i++] = (char)ch;
        else if (!r->long_line) {
            /* Overlong comment lines are harmless; anything else is an error. */
            const char *s = str;
            while (isspace((unsigned char)*s)) s++;
            if (*s != '#' && *s != ';') r->long_line = r->line + 1;
        }
    }
    if (i == 0 && !newline) return NULL;
    str[i] = '\n';
    str[i + 1] = 0;
    r->line++;
    const char *s = str;
    while (isspace((unsigned char)*s)) s++;
    if (*s == '[') r->section_line = r->line;
    return str;
}

int ini_lines_parse(struct ini_lines *r, ini_handler handler, void *user)
{
    return ini_parse_stream(reader, r, handler, user);
}
