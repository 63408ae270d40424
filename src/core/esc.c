/* esc — control characters of untrusted text written as visible escapes. */
#include "esc.h"

#include <stdio.h>

char *esc_term(const char *in, char *out, size_t n, int keep_newline)
{
    if (!n) return out;
    size_t j = 0;
    const unsigned char *p = (const unsigned char *)(in ? in : "");
    for (; *p; p++) {
        char rep[8] = "";
        if (*p == '\n' && keep_newline) rep[0] = '\n';
        else if (*p == '\n') snprintf(rep, sizeof rep, "\\n");
        else if (*p == '\r') snprintf(rep, sizeof rep, "\\r");
        else if (*p == '\t') snprintf(rep, sizeof rep, "\\t");
        else if (*p < 0x20 || *p == 0x7f) snprintf(rep, sizeof rep, "\\x%02x", *p);
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) snprintf(rep, sizeof rep, "\\x%02x", *++p);
        size_t len = rep[0] ? 0 : 1;
        for (const char *r = rep; *r; r++) len++;
        if (j + len >= n) break;
        if (rep[0])
            for (const char *r = rep; *r; r++) out[j++] = *r;
        else
            out[j++] = (char)*p;
    }
    out[j] = 0;
    return out;
}

const char *esc_t(const char *in)
{
    static _Thread_local char buf[8][1024];
    static _Thread_local unsigned next;
    char *out = buf[next++ % 8];
    return esc_term(in, out, sizeof buf[0], 0);
}
