/* loadfile — parsing dbench's NetBench loadfile format (see loadfile.h).
 * Strict: a line that cannot be replayed as written is an error naming its
 * number, so a typo never turns into a silently different workload. */
#include "probe/loadfile.h"
#include "probe/probe_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dbench_load.h"   /* generated from loadfiles/dbench-office.load */

#define MAX_TOKENS 16
#define CLIENT_ROOT "/clients/client1"

/* One row per operation: dbench's loadfile name, its latency-table name,
 * and its arguments: p a path, n a number; after '|' optional. */
static const struct {
    const char *name, *table_name, *args;
} ops[NB_KIND_NR] = {
    [NB_NTCREATEX] = { "NTCreateX", "NTCreateX", "pnnn" },
    [NB_CLOSE] = { "Close", "Close", "n" },
    [NB_READX] = { "ReadX", "ReadX", "nnnn" },
    [NB_WRITEX] = { "WriteX", "WriteX", "nnnn" },
    [NB_FLUSH] = { "Flush", "Flush", "n" },
    [NB_UNLINK] = { "Unlink", "Unlink", "p|n" },
    [NB_RENAME] = { "Rename", "Rename", "pp" },
    [NB_MKDIR] = { "Mkdir", "Mkdir", "p" },
    [NB_RMDIR] = { "Rmdir", "Rmdir", "p" },
    [NB_DELTREE] = { "Deltree", "Deltree", "p" },
    [NB_QPATHINFO] = { "QUERY_PATH_INFORMATION", "Qpathinfo", "p|n" },
    [NB_QFILEINFO] = { "QUERY_FILE_INFORMATION", "Qfileinfo", "n|n" },
    [NB_QFSINFO] = { "QUERY_FS_INFORMATION", "Qfsinfo", "|n" },
    [NB_SFILEINFO] = { "SET_FILE_INFORMATION", "Sfileinfo", "n|n" },
    [NB_FINDFIRST] = { "FIND_FIRST", "Find", "p|nnn" },
    [NB_LOCKX] = { "LockX", "LockX", "nnn" },
    [NB_UNLOCKX] = { "UnlockX", "UnlockX", "nnn" },
    [NB_SLEEP] = { "Sleep", "Sleep", "n" },
};

const char *loadfile_kind_name(enum nb_kind k) { return k < NB_KIND_NR ? ops[k].table_name : "?"; }

/* Split on blanks; a double-quoted token may hold blanks. Returns the count
 * or -1 for an unterminated quote. */
static int tokenize(char *s, char *tok[MAX_TOKENS + 1])
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r') s++;
        if (!*s || *s == '\n') return n;
        if (n == MAX_TOKENS + 1) return n;
        if (*s == '"') {
            tok[n++] = ++s;
            char *q = strchr(s, '"');
            if (!q) return -1;
            *q = 0;
            s = q + 1;
        } else {
            tok[n++] = s;
            while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') s++;
            if (*s) *s++ = 0;
        }
    }
}

struct ctx {
    const char *file;
    int line;
    sl_err *e;
};

static int bad(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct ctx *x, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sl_fail(x->e, SL_EUSAGE, "--loadfile %s line %d: %s", x->file, x->line, what);
}

/* "\clients\client1\x\y" -> "/x/y" below the client's root; nothing that
 * could leave it ("..", "." components are refused). */
static int map_path(struct ctx *x, const char *tok, char **out)
{
    char p[1024];
    if (strlen(tok) >= sizeof p) return bad(x, "path %.60s... is too long", tok);
    snprintf(p, sizeof p, "%s", tok);
    for (char *c = p; *c; c++)
        if (*c == '\\') *c = '/';
    size_t rl = strlen(CLIENT_ROOT);
    if (strncasecmp(p, CLIENT_ROOT, rl) != 0 || (p[rl] && p[rl] != '/'))
        return bad(x, "path \"%s\" is not under \\clients\\client1 (each client replays the file in its own "
                      "\\clients\\clientN)", tok);
    const char *rest = p + rl;
    for (const char *c = rest; *c;) {
        while (*c == '/') c++;
        size_t len = strcspn(c, "/");
        if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
            return bad(x, "path \"%s\" has a \".\" or \"..\" component: give paths inside \\clients\\client1", tok);
        c += len;
    }
    *out = xstrdup(rest);
    return 0;
}

static int parse_number(struct ctx *x, const char *op, const char *tok, int64_t *v)
{
    char *end;
    errno = 0;
    long long n = strtoll(tok, &end, 0);
    if (errno || end == tok || *end) return bad(x, "%s: \"%s\" is not a number", op, tok);
    *v = n;
    return 0;
}

/* Values that cannot be replayed. */
static int check_values(struct ctx *x, struct nb_op *o, const char *name)
{
    if (o->kind == NB_READX || o->kind == NB_WRITEX) {
        if (o->p[1] < 0 || o->p[2] < 0 || o->p[3] < 0 || o->p[2] > (int64_t)NB_MAX_IO || o->p[3] > o->p[2])
            return bad(x, "%s: offset, size and returned size must be 0 or more, size at most 16M and the "
                          "returned size at most the size", name);
    }
    if ((o->kind == NB_LOCKX || o->kind == NB_UNLOCKX) && (o->p[1] < 0 || o->p[2] < 0))
        return bad(x, "%s: offset and size must be 0 or more", name);
    if (o->kind == NB_SLEEP && (o->p[0] < 0 || o->p[0] > 10000000))
        return bad(x, "Sleep: give 0 to 10000000 microseconds");
    return 0;
}

static int parse_line(struct ctx *x, char *line, struct nb_load *l)
{
    char *tok[MAX_TOKENS + 1];
    int n = tokenize(line, tok);
    if (n < 0) return bad(x, "a quoted path has no closing quote");
    if (n == 0 || tok[0][0] == '#') return 0;
    if (n > MAX_TOKENS) return bad(x, "more than %d fields", MAX_TOKENS);
    struct nb_op o = { .line = x->line, .at_s = -1 };
    int i = 0;
    if (isdigit((unsigned char)tok[0][0])) {
        char *end;
        o.at_s = strtod(tok[0], &end);
        if (*end || o.at_s < 0) return bad(x, "\"%s\" is neither a time in seconds nor an operation", tok[0]);
        i++;
    }
    if (i >= n) return bad(x, "a time and nothing else");
    int k = 0;
    while (k < NB_KIND_NR && strcasecmp(tok[i], ops[k].name) != 0) k++;
    if (k == NB_KIND_NR) {
        char names[512] = "";
        for (int j = 0; j < NB_KIND_NR; j++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s", j == 0 ? "" : j == NB_KIND_NR - 1 ? " or " : ", ", ops[j].name);
        }
        return bad(x, "unknown operation \"%s\" (give %s)", tok[i], names);
    }
    o.kind = (enum nb_kind)k;
    const char *name = ops[k].name, *status = tok[n - 1];
    if (n - 1 <= i || (strncmp(status, "NT_STATUS_", 10) != 0 && strncmp(status, "0x", 2) != 0))
        return bad(x, "%s: no status at the end of the line (NT_STATUS_OK, or the NT_STATUS_... error it should "
                      "end with)", name);
    o.expect_ok = strcmp(status, "NT_STATUS_OK") == 0 || (status[0] == '0' && strtoull(status, NULL, 16) == 0);
    int a = i + 1, nargs = n - 1 - a, np = 0, got = 0;
    const char *spec = ops[k].args;
    int required = (int)strcspn(spec, "|");
    int allowed = (int)strlen(spec) - (strchr(spec, '|') ? 1 : 0);
    if (nargs < required || nargs > allowed) {
        char want[64];
        snprintf(want, sizeof want, required == allowed ? "%d" : "%d to %d", required, allowed);
        return bad(x, "%s: wrong number of arguments: give %s before the status", name, want);
    }
    for (const char *s = spec; *s && got < nargs; s++) {
        if (*s == '|') continue;
        const char *t = tok[a + got++];
        if (*s == 'p') {
            char **dst = o.path ? &o.path2 : &o.path;
            if (map_path(x, t, dst) < 0) { free(o.path); return -1; }
        } else if (parse_number(x, name, t, &o.p[np++]) < 0) {
            free(o.path);
            free(o.path2);
            return -1;
        }
    }
    if (check_values(x, &o, name) < 0) { free(o.path); free(o.path2); return -1; }
    if ((o.kind == NB_READX || o.kind == NB_WRITEX) && (uint64_t)o.p[2] > l->max_io) l->max_io = (uint64_t)o.p[2];
    l->ops = xrealloc(l->ops, sizeof *l->ops * (size_t)(l->n + 1));
    l->ops[l->n++] = o;
    return 0;
}

/* The whole file, NUL-terminated, into *text (malloc'ed), its length into *len. */
static int read_text(const char *path, char **text, size_t *len, sl_err *e)
{
    FILE *f = fopen(path, "r");
    if (!f) return sl_fail_errno(e, SL_EUSAGE, errno, "--loadfile %s", path);
    size_t cap = 4096, n = 0, got;
    char *buf = xmalloc(cap);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) buf = xrealloc(buf, cap *= 2);
    }
    int err = ferror(f) ? errno : 0;
    fclose(f);
    buf[n] = 0;
    if (err) {
        free(buf);
        return sl_fail_errno(e, SL_EUSAGE, err, "reading --loadfile %s", path);
    }
    *text = buf;
    *len = n;
    return 0;
}

int loadfile_parse(const char *path, struct nb_load *out, sl_err *e)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", path ? path : "(built-in)");
    /* Read once: the lines parsed are the text hashed. */
    char *text = NULL;
    size_t len = strlen(dbench_load_text);
    if (path && read_text(path, &text, &len, e) < 0) return -1;
    const char *src = path ? text : dbench_load_text;
    probe_sha256_hex(src, out->sha256);
    FILE *f = fmemopen((void *)src, len, "r");
    if (!f) {
        free(text);
        return sl_fail_errno(e, SL_EUSAGE, errno, "--loadfile %s", out->name);
    }
    struct ctx x = { .file = out->name, .e = e };
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        x.line++;
        if (strlen(line) > 4096) rc = bad(&x, "line longer than %d characters", 4096);
        else rc = parse_line(&x, line, out);
    }
    free(line);
    fclose(f);
    free(text);
    if (rc == 0 && out->n == 0)
        rc = sl_fail(e, SL_EUSAGE, "--loadfile %s: no operations in it (dbench's NetBench format: \"[time] "
                                   "Operation args... NT_STATUS_OK\" a line)", out->name);
    if (rc < 0) loadfile_free(out);
    return rc;
}

void loadfile_free(struct nb_load *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->ops[i].path);
        free(l->ops[i].path2);
    }
    free(l->ops);
    l->ops = NULL;
    l->n = 0;
}
