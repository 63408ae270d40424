/* esc — control characters of untrusted text written as visible escapes. */
#include "core/esc.h"

#include <stdio.h>

/* The length of the valid UTF-8 character at p (2 to 4), or 0 when the
 * byte there does not start one (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *p)
{
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    if (!n) return 0;
    unsigned char lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80;
    unsigned char hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return n;
}

char *esc_term(const char *in, char *out, size_t n, int keep_newline)
{
    if (!n) return out;
    size_t j = 0;
    const unsigned char *p = (const unsigned char *)(in ? in : "");
    while (*p) {
        char rep[8] = "";
        size_t take = 1;    /* bytes of in copied as they are, when rep is empty */
        if (*p == '\n' && keep_newline) rep[0] = '\n';
        else if (*p == '\n') snprintf(rep, sizeof rep, "\\n");
        else if (*p == '\r') snprintf(rep, sizeof rep, "\\r");
        else if (*p == '\t') snprintf(rep, sizeof rep, "\\t");
        else if (*p < 0x20 || *p == 0x7f) snprintf(rep, sizeof rep, "\\x%02x", *p);
        /* C1 controls in UTF-8 (U+0080..U+009F), shown by their code */
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) snprintf(rep, sizeof rep, "\\x%02x", *++p);
        /* a byte of no valid character: a raw 8-bit C1 control (0x9b is
         * CSI where the terminal takes 8-bit controls), Latin-1, a cut */
        else if (*p >= 0x80 && !(take = utf8_len(p))) snprintf(rep, sizeof rep, "\\x%02x", *p);
        size_t len = rep[0] ? 0 : take;
        for (const char *r = rep; *r; r++) len++;
        if (j + len >= n) break;
        if (rep[0]) {
            for (const char *r = rep; *r; r++) out[j++] = *r;
            take = 1;
        } else {
            for (size_t i = 0; i < take; i++) out[j++] = (char)p[i];
        }
        p += take;
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
