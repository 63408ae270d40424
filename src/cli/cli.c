/* cli — command registry, shared options, output helpers. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_COMMANDS 64
static const struct cli_command *commands[MAX_COMMANDS];
static int ncommands;

void cli_register(const struct cli_command *c)
{
    if (ncommands == MAX_COMMANDS) sl_die("too many commands");
    /* Keep them sorted by name: help and the man page list them in order. */
    int i = ncommands++;
    while (i > 0 && strcmp(commands[i - 1]->name, c->name) > 0) {
        commands[i] = commands[i - 1];
        i--;
    }
    commands[i] = c;
}

const struct cli_command *cli_find(const char *name)
{
    for (int i = 0; i < ncommands; i++)
        if (strcmp(commands[i]->name, name) == 0) return commands[i];
    return NULL;
}

int cli_command_count(void) { return ncommands; }
const struct cli_command *cli_command_at(int i) { return commands[i]; }

store *cli_store(struct cli_ctx *ctx, sl_err *e)
{
    if (!ctx->st && store_open(ctx->db_path, &ctx->st, e) < 0) return NULL;
    return ctx->st;
}

int cli_error(const sl_err *e)
{
    fprintf(stderr, "sluice: %s\n", e->msg[0] ? e->msg : "failed");
    return e->status ? e->status : SL_EFAIL;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "sluice %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    const struct cli_command *c = cli_find(cmd);
    if (c) fprintf(stderr, "\nusage: sluice %s\n", c->synopsis);
    else fputc('\n', stderr);
    return SL_EUSAGE;
}

int cli_print_json(json_t *v)
{
    int rc = json_dumpf(v, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    fputc('\n', stdout);
    json_decref(v);
    return rc == 0 ? 0 : SL_EFAIL;
}

/* --- table ------------------------------------------------------------- */

#define TABLE_MAX_COLS 12
struct table {
    int ncols, nrows, cap;
    char **cells;
};

struct table *table_new(int ncols, ...)
{
    struct table *t = xcalloc(1, sizeof *t);
    t->ncols = ncols > TABLE_MAX_COLS ? TABLE_MAX_COLS : ncols;
    va_list ap;
    va_start(ap, ncols);
    t->cap = 16;
    t->cells = xmalloc(sizeof *t->cells * (size_t)(t->cap * t->ncols));
    for (int c = 0; c < t->ncols; c++) t->cells[c] = xstrdup(va_arg(ap, const char *));
    va_end(ap);
    t->nrows = 1;
    return t;
}

void table_row(struct table *t, ...)
{
    if (t->nrows == t->cap) {
        t->cap *= 2;
        t->cells = xrealloc(t->cells, sizeof *t->cells * (size_t)(t->cap * t->ncols));
    }
    va_list ap;
    va_start(ap, t);
    for (int c = 0; c < t->ncols; c++) {
        const char *s = va_arg(ap, const char *);
        t->cells[t->nrows * t->ncols + c] = xstrdup(s);
    }
    va_end(ap);
    t->nrows++;
}

void table_print(struct table *t)
{
    int width[TABLE_MAX_COLS] = { 0 };
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            int len = (int)strlen(t->cells[r * t->ncols + c]);
            if (len > width[c]) width[c] = len;
        }
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            if (c == t->ncols - 1) printf("%s", s);
            else printf("%-*s  ", width[c], s);
        }
        putchar('\n');
    }
    for (int i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
    free(t->cells);
    free(t);
}
