/* err — recoverable error messages and the abort path for fatal ones. */
#include "core/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sl_emergency_fn emergency_hooks[4];
static int emergency_count;

int sl_fail(sl_err *e, int status, const char *fmt, ...)
{
    if (!e) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->status = status;
    e->errnum = 0;
    return -1;
}

int sl_prefix(sl_err *e, int status, const char *fmt, ...)
{
    if (!e) return -1;
    char below[sizeof e->msg];
    snprintf(below, sizeof below, "%s", e->msg);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof e->msg) snprintf(e->msg + n, sizeof e->msg - (size_t)n, ": %s", below);
    e->status = status;
    return -1;
}

int sl_suffix(sl_err *e, const char *fmt, ...)
{
    if (!e) return -1;
    size_t len = strlen(e->msg);
    if (len + 3 >= sizeof e->msg) return -1;
    snprintf(e->msg + len, sizeof e->msg - len, "%s", len ? ". " : "");
    len = strlen(e->msg);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg + len, sizeof e->msg - len, fmt, ap);
    va_end(ap);
    return -1;
}

int sl_fail_errno(sl_err *e, int status, int errnum, const char *fmt, ...)
{
    if (!e) return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof e->msg)
        snprintf(e->msg + n, sizeof e->msg - (size_t)n, ": %s", strerror(errnum));
    e->status = status;
    e->errnum = errnum;
    return -1;
}

void sl_err_clear(sl_err *e)
{
    if (e) { e->status = 0; e->errnum = 0; e->msg[0] = 0; }
}

void sl_on_emergency(sl_emergency_fn fn)
{
    if (emergency_count < (int)(sizeof emergency_hooks / sizeof emergency_hooks[0]))
        emergency_hooks[emergency_count++] = fn;
}

void sl_die(const char *fmt, ...)
{
    /* Hooks run newest first: the terminal is restored before we print. */
    for (int i = emergency_count - 1; i >= 0; i--) emergency_hooks[i]();
    va_list ap;
    va_start(ap, fmt);
    fputs("sluice: fatal: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) sl_die("out of memory (%zu bytes)", n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) sl_die("out of memory (%zu x %zu bytes)", n, size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) sl_die("out of memory (%zu bytes)", n);
    return q;
}

void *xgrow(void *v, int n, int *cap, size_t elem, int first)
{
    if (n >= *cap) {
        *cap = *cap ? *cap * 2 : first;
        v = xrealloc(v, elem * (size_t)*cap);
    }
    memset((char *)v + elem * (size_t)n, 0, elem);
    return v;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p) sl_die("out of memory");
    return p;
}

char *xvstrfmt(const char *fmt, va_list ap)
{
    char *p;
    if (vasprintf(&p, fmt, ap) < 0) sl_die("out of memory");
    return p;
}
