/* opt — every command's options as rows of a table (fio's options.c
 * model): name, type, range, default, help and where the value is stored.
 * The one table drives parsing (options anywhere on the line), the checks
 * and their messages, `sluice CMD --help`, the usage line, the manual's
 * COMMANDS section and the bash completion. */
#ifndef SLUICE_OPT_H
#define SLUICE_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "core/err.h"

enum opt_type {
    OPT_FLAG,       /* bool, set true */
    OPT_TEXT,       /* const char * (size 0) or char[size] */
    OPT_INT,        /* int in [min, max] */
    OPT_REAL,       /* double in [min, max] */
    OPT_DURATION,   /* long long milliseconds in [min, max] ("500ms", "5s", "2m") */
    OPT_SIZE,       /* long long bytes in [min, max] ("4k", "512M") */
    OPT_CHOICE,     /* one of the words of .complete or of .choice_at's table, stored as OPT_TEXT is */
    OPT_ENUM,       /* one of .choice_at's names (or what .choice_parse takes), stored as an int: its index */
    OPT_U64,        /* uint64_t, a whole number (no bounds) */
    OPT_CALL,       /* .set does the parsing and storing */
};

/* How a row's .def reads and what opt_defaults does with it. */
enum opt_flag {
    /* .def is a value, applied when the engine resolves the rest (it depends
     * on other options): opt_defaults leaves the field, opt_default_of
     * gives the value to the engine. */
    OPT_DEF_LATER = 1 << 0,
    /* .def says the default in words ("the workload's"): help shows it, and
     * nothing is parsed. */
    OPT_DEF_WORDS = 1 << 1,
    /* the bounds themselves are refused: above min, below max */
    OPT_MIN_OPEN = 1 << 2,
    OPT_MAX_OPEN = 1 << 3,
};

/* What the bash completion offers for an option's value (or a command's
 * arguments): a kind the binary lists at completion time, or fixed words. */
#define COMPLETE_KNOB "@knob"
#define COMPLETE_PROFILE "@profile"
#define COMPLETE_WORKLOAD "@workload"
#define COMPLETE_SPACE "@space"
#define COMPLETE_DEVICE "@device"
#define COMPLETE_FILE "@file"
#define COMPLETE_DIR "@dir"
#define COMPLETE_COMMAND "@command"

struct opt {
    const char *name;          /* without the dashes: "dry-run" */
    char short_name;           /* 'n' for -n, or 0 */
    enum opt_type type;
    const char *arg;           /* what the value is called in help: "DURATION"; NULL for a flag */
    double min, max;           /* OPT_INT, OPT_REAL, OPT_DURATION (ms), OPT_SIZE (bytes); both 0: any; max INFINITY: no upper */
    /* The default as the option takes it ("5s", "bo"): opt_defaults parses it
     * into the struct, help shows it (see enum opt_flag); NULL: none. */
    const char *def;
    const char *help;
    size_t offset, size;       /* where in the command's option struct, and how big (OPT_TEXT) */
    /* OPT_CALL: parse and store text (NULL for a flag-like call) at base;
     * -1 with a message naming the option. */
    int (*set)(void *base, const struct opt *o, const char *text, sl_err *e);
    const char *complete;      /* COMPLETE_* kind or space-separated words; OPT_CHOICE's choices */
    int id;                    /* for an OPT_CALL setter that serves several rows */
    const char *label;         /* the field's name on a UI form: "Block size" */
    /* OPT_CHOICE, OPT_ENUM: the i-th choice of another table (strategies,
     * tests, workloads), NULL past the last; the help's argument, the
     * completion and the refusal list them. */
    const char *(*choice_at)(int i);
    int (*choice_parse)(const char *text);   /* OPT_ENUM: the index text names (aliases too), -1; NULL: exact names */
    unsigned flags;            /* enum opt_flag */
    size_t seen;               /* OPT_SEEN: 1 + the offset of a bool set when the option is given; 0: none */
};

/* Rows that store into the same struct; a command may combine groups that
 * live at different places of its option struct (search: its own rows, and
 * the probe's at offsetof(..., probe)). */
struct opt_group {
    const struct opt *rows;   /* ends with a row whose name is NULL */
    size_t base;                  /* offset of the rows' struct in the command's */
};

#define OPT_GROUPS_MAX 4
struct opt_table {
    size_t size;                         /* of the command's option struct */
    void (*defaults)(void *opts);        /* NULL: all zero */
    struct opt_group groups[OPT_GROUPS_MAX];
    const char *args;                    /* the non-option arguments: "KNOB=VALUE..." */
    const char *args_complete;           /* what completes them: COMPLETE_* or words */
};

/* Where a row stores (rows are written with designated initialisers): OPT_AT
 * for a value or a char array, OPT_PTR for a const char * into argv. */
#define OPT_AT(type, field) .offset = offsetof(type, field), .size = sizeof(((type *)0)->field)
#define OPT_PTR(type, field) .offset = offsetof(type, field), .size = 0
/* A bool of the same struct set true when the option is given (--time sets
 * time_based): a value typed equal to the default still counts as given. */
#define OPT_SEEN(type, field) .seen = offsetof(type, field) + 1

/* The row named name (with or without the leading "--"), or NULL. */
const struct opt *opt_find(const struct opt_table *t, const char *name, size_t *base);
/* Check text against the row and store it into opts (base already added);
 * -1 with a message such as "--for 5x: give a duration such as 30s or 5m". */
int opt_store(const struct opt *o, void *at, const char *text, sl_err *e);
/* A file an option names for reading (--space FILE, --loadfile, --oracle),
 * looked at with stat() only: 0 when it is a regular file or absent (the
 * caller's own open says so); -1 (SL_EUSAGE) with e naming the option and
 * the path when it is a FIFO, device, socket or directory, which would
 * block an open() until a writer comes (a FIFO) or never read as a file. */
int opt_regular_file(const char *option, const char *path, sl_err *e);
/* "--budget" and its text into opts through the table: what the UI forms
 * call so their checks are the command line's. -1 with e. */
int opt_set(const struct opt_table *t, void *opts, const char *option, const char *text, sl_err *e);
/* Every row's .def into opts (at each group's base), as the command line
 * would store it, but for OPT_DEF_LATER and OPT_DEF_WORDS rows; a seen
 * flag is not set. -1 with e naming the row whose default does not parse
 * (a broken table: the unit tests try every table). */
int opt_defaults(const struct opt_table *t, void *opts, sl_err *e);
/* The row's default (OPT_DEF_LATER too) parsed into at, as opt_store
 * stores it; -1 with e when the row has none or it does not parse. */
int opt_default_of(const struct opt *o, void *at, sl_err *e);
/* The row named name in rows (one group), or NULL. */
const struct opt *opt_row(const struct opt *rows, const char *name);
/* What the value is called in help: .arg, or the choices of a row whose
 * choices come from another table and have no .complete kind, joined by
 * '|' ("bo|coord|random|grid|none"). */
const char *opt_arg(const struct opt *o, char *buf, size_t n);
/* What completes the value: .complete, or a choice row's choices joined by
 * spaces; "" for none. */
const char *opt_complete(const struct opt *o, char *buf, size_t n);
/* The accepted values in words, as a refusal ends: "a whole number from 1
 * to 5", "a duration from 10ms to 24h", "one of bo, coord, random".
 * buf is returned. */
const char *opt_accepts(const struct opt *o, char *buf, size_t n);
/* 0 when v is within the row's bounds; else -1 with the refusal a typed
 * value gets ("--time 5ms: give a duration from 10ms to 24h"): for values
 * set in code or resolved from other options. */
int opt_check(const struct opt *o, double v, sl_err *e);
/* " [--dry-run] [--for DURATION]" for usage lines. */
void opt_synopsis(const struct opt_table *t, char *buf, size_t n);
/* One line per option: "  --for DURATION   keep ... (default ...)". */
void opt_help(const struct opt_table *t, FILE *out);
/* The rows as a JSON array (name, type, arg, help, short, min/max, default,
 * complete): `sluice help --json`. A new reference; t may be NULL ([]). */
struct json_t;
struct json_t *opt_json(const struct opt_table *t);

#endif
