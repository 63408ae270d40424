/* cli_json — the --json contract: whatever happens, stdout holds one JSON
 * document, and a failure is {"error": {"code", "message", "hint"}} with the
 * exit code as its code. */
#include "cli/cli.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static struct {
    bool on;              /* --json on the line */
    bool printed;         /* a document went to stdout */
    int status;           /* of the error recorded, or 0 */
    char msg[1024], hint[1200];
    char said[1024];      /* the last message said on stderr (the fallback) */
    char line[1024];      /* the stderr line being written */
    size_t len;
    FILE *real_stderr;
} J;

/* The last "sluice...: MESSAGE" line said on stderr, notes and warnings
 * left out: the message of a failure no cli_error() recorded. */
static void saw_line(const char *s)
{
    if (strncmp(s, "sluice", 6) != 0) return;
    const char *colon = strstr(s, ": ");
    if (!colon || strncmp(colon, ": note:", 7) == 0 || strncmp(colon, ": warning:", 10) == 0) return;
    snprintf(J.said, sizeof J.said, "%s", colon + 2);
}

/* stderr, passed through unchanged, watched line by line. */
static ssize_t tee_write(void *cookie, const char *buf, size_t n)
{
    (void)cookie;
    for (size_t done = 0; done < n;) {
        ssize_t w = write(STDERR_FILENO, buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        done += (size_t)w;
    }
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '\n') {
            if (J.len + 1 < sizeof J.line) J.line[J.len++] = buf[i];
            continue;
        }
        J.line[J.len] = 0;
        saw_line(J.line);
        J.len = 0;
    }
    return (ssize_t)n;
}

void cli_json_begin(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--json") == 0) J.on = true;
    if (!J.on) return;
    cookie_io_functions_t io = { .write = tee_write };
    FILE *tee = fopencookie(NULL, "w", io);
    if (!tee) return;   /* errors still become objects, from cli_error() */
    setvbuf(tee, NULL, _IONBF, 0);
    J.real_stderr = stderr;
    stderr = tee;
}

void cli_json_record(int status, const char *msg, const char *hint)
{
    if (!J.on) return;
    J.status = status;
    snprintf(J.msg, sizeof J.msg, "%s", msg);
    if (hint) snprintf(J.hint, sizeof J.hint, "%s", hint);
}

/* A value past 2^53 is rounded by readers that hold numbers as doubles (jq,
 * JavaScript): it goes out as its decimal text. Fields that can hold one
 * (seeds) are strings already; this catches the rest. */
static void big_ints_as_text(json_t *v)
{
    const json_int_t safe = (json_int_t)1 << 53;
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) {
            if (json_is_integer(x) && (json_integer_value(x) > safe || json_integer_value(x) < -safe))
                json_object_set_new(v, k, json_sprintf("%" JSON_INTEGER_FORMAT, json_integer_value(x)));
            else big_ints_as_text(x);
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            if (json_is_integer(x) && (json_integer_value(x) > safe || json_integer_value(x) < -safe))
                json_array_set_new(v, i, json_sprintf("%" JSON_INTEGER_FORMAT, json_integer_value(x)));
            else big_ints_as_text(x);
        }
    }
}

int cli_dump_json(json_t *v, size_t flags)
{
    big_ints_as_text(v);
    J.printed = true;
    return json_dumpf(v, stdout, flags) == 0 ? 0 : SL_EFAIL;
}

static json_t *error_json(int code, const char *msg, const char *hint)
{
    return json_pack("{s:{s:i, s:s, s:s}}", "error", "code", code, "message", msg, "hint", hint);
}

int cli_json_finish(int rc)
{
    if (!J.on) return rc;
    if (stderr != J.real_stderr && J.real_stderr) {
        fflush(stderr);
        fclose(stderr);
        stderr = J.real_stderr;
    }
    if (rc == 0 || J.printed) return rc;
    const char *msg = J.status ? J.msg : J.said[0] ? J.said : "failed (standard error says why)";
    char hint[sizeof J.hint];
    if (J.hint[0]) snprintf(hint, sizeof hint, "%s", J.hint);
    else cli_exit_meaning(rc, hint, sizeof hint);
    cli_print_json(error_json(rc, msg, hint));
    return rc;
}
