/* quote — escaping or refusing text for each generated format. */
#include "profile/quote.h"
#include "core/esc.h"

#include <stdio.h>
#include <string.h>

static bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

bool quote_has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (is_control(*p)) return true;
    return false;
}

int quote_check_path(const char *what, const char *s, sl_err *e)
{
    if (!quote_has_control(s)) return 0;
    char shown[600];
    esc_term(s, shown, sizeof shown, 0);
    return sl_fail(e, SL_EUSAGE, "%s \"%s\" holds a control character (a newline?): it would be written into a "
                   "generated file; rename it", what, shown);
}

/* out gets c, or its \xHH form; false when out is full. */
static bool put(char *out, size_t n, size_t *j, unsigned char c, bool hex)
{
    if (!hex) {
        if (*j + 1 >= n) return false;
        out[(*j)++] = (char)c;
        return true;
    }
    if (*j + 4 >= n) return false;
    *j += (size_t)snprintf(out + *j, n - *j, "\\x%02x", c);
    return true;
}

void quote_comment(const char *in, char *out, size_t n)
{
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p; p++)
        if (!put(out, n, &j, *p, is_control(*p))) break;
    out[j] = 0;
}

void quote_ini_value(const char *in, char *out, size_t n)
{
    size_t j = 0;
    unsigned char prev = ' ';
    for (const unsigned char *p = (const unsigned char *)in; *p; prev = *p++) {
        bool comment = (*p == ';' || *p == '#') && (prev == ' ' || prev == '\t');
        if (!put(out, n, &j, *p, is_control(*p) || comment)) break;
    }
    out[j] = 0;
}

void quote_selector_glob(const char *in, char *out, size_t n)
{
    size_t j = 0, len = strlen(in);
    for (size_t i = 0; i < len && j + 1 < n; i++) {
        unsigned char c = (unsigned char)in[i];
        bool edge_blank = (c == ' ' || c == '\t') && (i == 0 || i == len - 1);
        bool special = is_control(c) || strchr("\"[]*?,=\\;#", c) || (i == 0 && c == '!') || edge_blank;
        out[j++] = special ? '?' : (char)c;
    }
    out[j] = 0;
}

int quote_sysctl_value(const char *in, char *out, size_t n, sl_err *e)
{
    if (quote_has_control(in)) {
        char shown[300];
        esc_term(in, shown, sizeof shown, 0);
        return sl_fail(e, SL_EUSAGE, "sysctl.d value \"%s\" holds a control character: one sysctl.d line cannot carry it",
                       shown);
    }
    snprintf(out, n, "%s", in);
    return 0;
}

void quote_udev_match(const char *in, char *out, size_t n)
{
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && j + 1 < n; p++)
        out[j++] = is_control(*p) || strchr("\"\\*?[]%$", *p) ? '?' : (char)*p;
    out[j] = 0;
}

int quote_udev_assign(const char *in, char *out, size_t n, sl_err *e)
{
    if (quote_has_control(in) || strpbrk(in, "\"\\")) {
        char shown[300];
        esc_term(in, shown, sizeof shown, 0);
        return sl_fail(e, SL_EUSAGE, "udev value \"%s\" holds a quote, backslash or control character: a udev rule "
                       "cannot carry it", shown);
    }
    size_t j = 0;
    for (const char *p = in; *p && j + 2 < n; p++) {
        if (*p == '%' || *p == '$') out[j++] = *p;
        out[j++] = *p;
    }
    out[j] = 0;
    return 0;
}

int quote_unit_exec(const char *path, char *out, size_t n, sl_err *e)
{
    if (quote_check_path("program path", path, e) < 0) return -1;
    bool blank = strpbrk(path, " \t") != NULL;
    size_t j = 0;
    if (blank && j + 1 < n) out[j++] = '"';
    for (const char *p = path; *p && j + 3 < n; p++) {
        if (*p == '%' || *p == '$') out[j++] = *p;
        else if (*p == '\\' || *p == '"') out[j++] = '\\';
        out[j++] = *p;
    }
    if (blank && j + 1 < n) out[j++] = '"';
    out[j] = 0;
    return 0;
}

int quote_shell_word(const char *path, char *out, size_t n, sl_err *e)
{
    if (quote_check_path("program path", path, e) < 0) return -1;
    size_t j = 0;
    if (j + 1 < n) out[j++] = '\'';
    for (const char *p = path; *p && j + 6 < n; p++) {
        if (*p == '\'') {
            memcpy(out + j, "'\\''", 4);
            j += 4;
        } else {
            out[j++] = *p;
        }
    }
    if (j + 1 < n) out[j++] = '\'';
    out[j] = 0;
    return 0;
}

void quote_tuned_value(const char *in, char *out, size_t n)
{
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && j + 1 < n; p++)
        out[j++] = is_control(*p) || *p == '$' || *p == '#' ? '?' : (char)*p;
    out[j] = 0;
}
