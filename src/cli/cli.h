/* cli — the command registry and what every command gets: global options,
 * the store (opened on demand), and output helpers (tables or JSON). */
#ifndef SLUICE_CLI_H
#define SLUICE_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>
#include "core/opt.h"
#include "core/err.h"
#include "db/store.h"

struct cli_ctx {
    const char *db_path;    /* --db or the default */
    bool json;              /* --json */
    bool quiet;
    store *st;              /* opened by cli_store() */
    void *opts;             /* the command's option struct, filled from its table (NULL without one) */
};

struct cli_command {
    const char *name;
    int (*run)(struct cli_ctx *ctx, int argc, char **argv);
    const char *summary;    /* one line for help and the man page */
    unsigned flags;
    /* The option table, from which main parses the whole line (the command
     * gets its non-option arguments in argv and its options in ctx->opts)
     * and its usage line, help, man page and completion come. */
    const struct opt_table *opts;
};

enum cli_flag {
    CLI_WRITES = 1 << 0,    /* changes kernel settings: needs root on the real system */
    CLI_NO_CRASH_CHECK = 1 << 1,
    CLI_HIDDEN = 1 << 2,
};

/* Commands register themselves from their own file, so adding one touches
 * no shared table:  CLI_COMMAND_OPTS(cmd_show, "show", run_show, show_table, "...", 0); */
void cli_register(const struct cli_command *c);
const struct cli_command *cli_find(const char *name);
int cli_command_count(void);
const struct cli_command *cli_command_at(int i);

#define CLI_COMMAND_OPTS(var, name, fn, table, summary, flags)                      \
    static const struct cli_command var = { name, fn, summary, flags, &table };       \
    __attribute__((constructor)) static void var##_register(void) { cli_register(&var); }

/* "set KNOB=VALUE... [--dry-run] [--for DURATION]" */
void cli_command_synopsis(const struct cli_command *c, char *buf, size_t n);
/* What `sluice CMD --help` and `sluice help CMD` print. */
void cli_command_help(const struct cli_command *c, FILE *out);
/* The same as JSON (name, synopsis, summary, args, options from the table):
 * `sluice help --json`. A new reference. */
json_t *cli_command_json(const struct cli_command *c);
/* The options every command takes, before or after its name. */
struct cli_globals {
    const char *root, *db;
    bool json, help, version;
};
extern const struct opt_table cli_global_opts;
/* Split argv[1..argc) into options (the command's table t, which may be
 * NULL, into opts; the global ones into g) and the other arguments, kept in
 * order in args[1..] after args[0] = argv[0]. With pass_unknown an option
 * not in either table is kept as an argument (commands that parse their own).
 * Returns the new argc, or -1 with a message naming the option. */
int cli_parse_line(const struct opt_table *t, void *opts, struct cli_globals *g, bool pass_unknown, int argc,
                   char **argv, char **args, sl_err *e);

/* The store, opened (and created/migrated) on first use. NULL + e on error. */
store *cli_store(struct cli_ctx *ctx, sl_err *e);
/* For commands that only read: true when there is no database at
 * ctx->db_path (then nothing should be created). */
bool cli_store_missing(struct cli_ctx *ctx);
/* What a listing prints when there is no database: a note on stderr, and
 * [] with --json (else nothing) on stdout. Returns 0, the command's status. */
int cli_nothing_stored(struct cli_ctx *ctx);
/* cli_store for a command that only reads: a missing database is said once
 * and answered by an empty store in memory, so nothing is created on disk.
 * NULL + e on error. */
store *cli_store_read(struct cli_ctx *ctx, sl_err *e);
/* "unknown subcommand "lsit" (list, show, ...). Did you mean list?" as
 * cli_usage says it; choices space-separated. Returns SL_EUSAGE. */
int cli_unknown_subcommand(const char *cmd, const char *word, const char *choices);
/* Print an error the way every command does and return its status. */
int cli_error(const sl_err *e);
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print a JSON value to stdout (indented) and free it. */
int cli_print_json(json_t *v);
/* The --json contract (cli_json.c): with --json on the line, stdout holds
 * one JSON document whatever happens; a failure that printed none becomes
 * {"error": {"code": STATUS, "message": ..., "hint": ...}}. main calls
 * begin first (it watches stderr for the message of a failure no
 * cli_error() recorded) and returns finish(status). */
void cli_json_begin(int argc, char **argv);
int cli_json_finish(int status);
/* The message (and hint, NULL: the one given before or the exit status's
 * meaning) of the failure --json reports; cli_error and cli_usage call it. */
void cli_json_record(int status, const char *msg, const char *hint);
/* json_dumpf(v, stdout, flags) for a command's document, with integers past
 * 2^53 written as strings (jq would round them); 0 or SL_EFAIL. v is kept. */
int cli_dump_json(json_t *v, size_t flags);
/* "exit 2: bad command line ..." into buf; the whole list for --help. */
void cli_exit_meaning(int status, char *buf, size_t n);
void cli_exit_help(FILE *out);

/* A plain text table: add a header then rows of strings, print aligned. */
struct table;
struct table *table_new(int ncols, ...);
void table_row(struct table *t, ...);
void table_print(struct table *t);

#endif
