/* err — a recoverable error: a status plus one human sentence saying what
 * failed (file, knob, errno text) and what to do about it. */
#ifndef SLUICE_ERR_H
#define SLUICE_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* Exit statuses shared by every command (man/sluice.8, EXIT STATUS). */
enum sl_status {
    SL_OK = 0,
    SL_EFAIL = 1,    /* the operation failed; nothing was left changed */
    SL_EUSAGE = 2,   /* bad command line or bad input value */
    SL_EBUSY = 3,    /* another sluice holds the tuning lock */
    SL_EPERM = 4,    /* needs root */
    SL_EPARTIAL = 5, /* a failure, and putting things back also failed */
};

typedef struct sl_err {
    int status;          /* enum sl_status */
    int errnum;          /* errno behind it, or 0 */
    char msg[1024];
} sl_err;

/* Fill *e (if non-NULL) and return -1, so callers write `return sl_fail(...)`. */
int sl_fail(sl_err *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like sl_fail, appending ": <strerror(errnum)>" and recording errnum. */
int sl_fail_errno(sl_err *e, int status, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Put "PREFIX: " before e's message (say where a failure from below
 * happened), setting status; -1, so callers write `return sl_prefix(...)`. */
int sl_prefix(sl_err *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Append ". TEXT" to e's message: after the cause, what it left as it was
 * and what to do. Keeps the status; -1, so callers write `return sl_suffix(...)`. */
int sl_suffix(sl_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sl_err_clear(sl_err *e);

/* Out-of-memory and broken invariants are not recoverable: these abort after
 * running the registered emergency hooks (terminal restore, session restore). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* The array v of *cap elem-byte elements, n of them used, with room for one
 * more: grown (doubling, from first) when full. v[n] is zeroed. Returns the
 * array (it may move); aborts on out-of-memory like xrealloc. */
void *xgrow(void *v, int n, int *cap, size_t elem, int first);
char *xstrdup(const char *s);
/* vsnprintf's text in memory of its own size (the caller frees): for the
 * printf-like adders (report_add, tv_add) that keep what they format. */
char *xvstrfmt(const char *fmt, va_list ap);
void sl_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
typedef void (*sl_emergency_fn)(void);
void sl_on_emergency(sl_emergency_fn fn);

#endif
