/* cli — command registry, shared options, output helpers. */
#include "cli/cli.h"
#include "core/esc.h"
#include "core/suggest.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* --- options --------------------------------------------------------------- */

static const struct opt global_rows[] = {
    { .name = "root", .type = OPT_TEXT, .arg = "DIR",
      .help = "read and write kernel files under DIR (also SLUICE_ROOT)",
      OPT_PTR(struct cli_globals, root), .complete = COMPLETE_DIR },
    { .name = "db", .type = OPT_TEXT, .arg = "PATH",
      .help = "results database (also SLUICE_DB; default /var/lib/sluice/sluice.db as root)",
      OPT_PTR(struct cli_globals, db), .complete = COMPLETE_FILE },
    { .name = "json", .type = OPT_FLAG, .help = "machine-readable output", OPT_AT(struct cli_globals, json) },
    { .name = "help", .short_name = 'h', .type = OPT_FLAG,
      .help = "what the command does and its options",
      OPT_AT(struct cli_globals, help) },
    { .name = "version", .type = OPT_FLAG, .help = "print the version", OPT_AT(struct cli_globals, version) },
    { NULL },
};
const struct opt_table cli_global_opts = { sizeof(struct cli_globals), NULL, { { global_rows, 0 } }, NULL, NULL };

/* The row for arg ("--name", "--name=value" or "-n") in t; NULL if none. */
static const struct opt *match(const struct opt_table *t, const char *arg, size_t *base)
{
    if (!t) return NULL;
    if (arg[1] != '-') {
        for (int g = 0; g < OPT_GROUPS_MAX && t->groups[g].rows; g++)
            for (const struct opt *o = t->groups[g].rows; o->name; o++)
                if (o->short_name && o->short_name == arg[1] && !arg[2]) {
                    *base = t->groups[g].base;
                    return o;
                }
        return NULL;
    }
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
    return opt_find(t, name, base);
}

/* "unknown option --jsn. Did you mean --json?": the nearest of the
 * command's options and the global ones. -1. */
static int unknown_option(const struct opt_table *t, const char *arg, sl_err *e)
{
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(arg, "="), arg);
    struct suggest s;
    suggest_init(&s, word);
    const struct opt_table *tables[] = { t, &cli_global_opts };
    for (int k = 0; k < 2; k++)
        for (int g = 0; tables[k] && g < OPT_GROUPS_MAX && tables[k]->groups[g].rows; g++)
            for (const struct opt *o = tables[k]->groups[g].rows; o->name; o++) {
                char name[80];
                snprintf(name, sizeof name, "--%s", o->name);
                suggest_offer(&s, name);
            }
    sl_fail(e, SL_EUSAGE, "unknown option %s", arg);
    if (suggest_best(&s)) sl_suffix(e, "Did you mean %s?", suggest_best(&s));
    return -1;
}

/* One option at argv[*i] into its place; *i moves past its value. */
static int take_option(const struct opt *o, void *at, int argc, char **argv, int *i, sl_err *e)
{
    const char *eq = argv[*i][1] == '-' ? strchr(argv[*i], '=') : NULL;
    if (!o->arg) {
        if (eq) return sl_fail(e, SL_EUSAGE, "--%s takes no value", o->name);
        return opt_store(o, at, NULL, e);
    }
    const char *text = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    if (!text) return sl_fail(e, SL_EUSAGE, "--%s needs a value (%s)", o->name, o->arg);
    return opt_store(o, at, text, e);
}

int cli_parse_line(const struct opt_table *t, void *opts, struct cli_globals *g, bool pass_unknown, int argc,
                   char **argv, char **args, sl_err *e)
{
    int n = 0;
    bool only_args = false;
    args[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_args || a[0] != '-' || !a[1]) { args[n++] = argv[i]; continue; }
        if (strcmp(a, "--") == 0) {
            if (pass_unknown) args[n++] = argv[i];
            only_args = true;
            continue;
        }
        size_t base = 0;
        const struct opt *o = match(t, a, &base);
        void *at = o ? (char *)opts + base + o->offset : NULL;
        if (!o && (o = match(&cli_global_opts, a, &base))) at = (char *)g + o->offset;
        if (!o && pass_unknown) { args[n++] = argv[i]; continue; }
        if (!o) return unknown_option(t, a, e);
        if (take_option(o, at, argc, argv, &i, e) < 0) return -1;
    }
    args[n] = NULL;
    return n;
}

void cli_command_synopsis(const struct cli_command *c, char *buf, size_t n)
{
    char opts[1024];
    opt_synopsis(c->opts, opts, sizeof opts);
    snprintf(buf, n, "%s%s%s%s", c->name, c->opts->args ? " " : "", c->opts->args ? c->opts->args : "", opts);
}

void cli_command_help(const struct cli_command *c, FILE *out)
{
    char syn[1200];
    cli_command_synopsis(c, syn, sizeof syn);
    fprintf(out, "usage: sluice %s\n%s\n", syn, c->summary);
    if (c->opts->groups[0].rows && c->opts->groups[0].rows->name) {
        fprintf(out, "\noptions:\n");
        opt_help(c->opts, out);
    }
    fprintf(out, "\nglobal options (before or after the command):\n");
    opt_help(&cli_global_opts, out);
    fprintf(out, "\n'man 8 sluice' describes every command in full.\n");
}

json_t *cli_command_json(const struct cli_command *c)
{
    char syn[1200];
    cli_command_synopsis(c, syn, sizeof syn);
    json_t *j = json_pack("{s:s, s:s, s:s}", "name", c->name, "synopsis", syn, "summary", c->summary);
    if (c->opts->args) json_object_set_new(j, "args", json_string(c->opts->args));
    if (c->opts->args_complete) json_object_set_new(j, "args_complete", json_string(c->opts->args_complete));
    json_object_set_new(j, "writes", json_boolean(c->flags & CLI_WRITES));
    json_object_set_new(j, "options", opt_json(c->opts));
    return j;
}

store *cli_store(struct cli_ctx *ctx, sl_err *e)
{
    if (!ctx->st && store_open(ctx->db_path, &ctx->st, e) < 0) {
        /* Usage errors (a newer schema) already say what to do. */
        if (e && e->status != SL_EUSAGE)
            sl_suffix(e, "Nothing was changed (no knob, file or record): sluice stopped while opening the database; "
                      "run the command again once it opens");
        return NULL;
    }
    return ctx->st;
}

bool cli_store_missing(struct cli_ctx *ctx)
{
    struct stat st;
    return lstat(ctx->db_path, &st) != 0 && errno == ENOENT;
}

static void say_nothing_stored(const struct cli_ctx *ctx)
{
    fprintf(stderr, "sluice: no database at %s: nothing is stored yet (none was created)\n", esc_t(ctx->db_path));
}

int cli_nothing_stored(struct cli_ctx *ctx)
{
    say_nothing_stored(ctx);
    return ctx->json ? cli_print_json(json_array()) : 0;
}

store *cli_store_read(struct cli_ctx *ctx, sl_err *e)
{
    if (ctx->st || !cli_store_missing(ctx)) return cli_store(ctx, e);
    say_nothing_stored(ctx);
    /* An empty store in memory: the command's own code answers "nothing". */
    if (store_open(":memory:", &ctx->st, e) < 0) return NULL;
    return ctx->st;
}

int cli_unknown_subcommand(const char *cmd, const char *word, const char *choices)
{
    struct suggest s;
    suggest_init(&s, word);
    char words[512], list[600] = "", *save;
    snprintf(words, sizeof words, "%s", choices);
    for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        suggest_offer(&s, w);
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", w);
    }
    if (suggest_best(&s))
        return cli_usage(cmd, "unknown subcommand \"%s\" (%s). Did you mean %s?", word, list, suggest_best(&s));
    return cli_usage(cmd, "unknown subcommand \"%s\" (%s)", word, list);
}

/* Messages quote profile text, device strings and names from merged
 * databases: their control characters are shown, not sent to the terminal. */
int cli_error(const sl_err *e)
{
    char msg[sizeof e->msg * 4];
    fprintf(stderr, "sluice: %s\n", e->msg[0] ? esc_term(e->msg, msg, sizeof msg, 1) : "failed");
    int status = e->status ? e->status : SL_EFAIL;
    cli_json_record(status, e->msg[0] ? e->msg : "failed", strstr(e->msg, "Did you mean "));
    return status;
}

/* The meanings of the exit statuses (man 8 sluice, EXIT STATUS). */
static const char *const exit_meaning[] = {
    [SL_OK] = "success",
    [SL_EFAIL] = "the operation failed; nothing was left changed",
    [SL_EUSAGE] = "bad command line or bad input (unknown command, option, knob or profile, value out of range, bad database)",
    [SL_EBUSY] = "another sluice holds the tuning lock",
    [SL_EPERM] = "the command changes kernel settings and needs root",
    [SL_EPARTIAL] = "not everything is as it was: a failure, and putting things back failed too, or a restore left "
                    "knobs as found (run 'sluice restore')",
};

void cli_exit_meaning(int status, char *buf, size_t n)
{
    if (status >= 0 && status < (int)(sizeof exit_meaning / sizeof *exit_meaning) && exit_meaning[status])
        snprintf(buf, n, "exit %d: %s", status, exit_meaning[status]);
    else snprintf(buf, n, "exit %d", status);
}

void cli_exit_help(FILE *out)
{
    fprintf(out, "\nexit status:\n");
    for (size_t i = 0; i < sizeof exit_meaning / sizeof *exit_meaning; i++)
        fprintf(out, "  %zu  %s\n", i, exit_meaning[i]);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[1024], shown[4096];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "sluice %s: %s", cmd, esc_term(msg, shown, sizeof shown, 1));
    const struct cli_command *c = cli_find(cmd);
    char syn[1200], hint[1300];
    if (c) cli_command_synopsis(c, syn, sizeof syn);
    if (c) fprintf(stderr, "\nusage: sluice %s\n", syn);
    else fputc('\n', stderr);
    const char *mean = strstr(msg, "Did you mean ");
    if (mean) snprintf(hint, sizeof hint, "%s", mean);
    else snprintf(hint, sizeof hint, "usage: sluice %s", c ? syn : "COMMAND [ARGS] (see 'sluice --help')");
    cli_json_record(SL_EUSAGE, msg, hint);
    return SL_EUSAGE;
}

int cli_print_json(json_t *v)
{
    int rc = cli_dump_json(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
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
        /* Cells show device strings and names from merged databases. */
        const char *s = va_arg(ap, const char *);
        size_t n = 4 * strlen(s) + 1;
        t->cells[t->nrows * t->ncols + c] = esc_term(s, xmalloc(n), n, 0);
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
