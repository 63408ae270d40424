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
#include "err.h"

enum opt_type {
    OPT_FLAG,       /* bool, set true */
    OPT_TEXT,       /* const char * (size 0) or char[size] */
    OPT_INT,        /* int in [min, max] */
    OPT_REAL,       /* double in [min, max] */
    OPT_DURATION,   /* long long milliseconds in [min, max] ("500ms", "5s", "2m") */
    OPT_SIZE,       /* long long bytes in [min, max] ("4k", "512M") */
    OPT_CHOICE,     /* one of the words of .complete, stored as OPT_TEXT is */
    OPT_CALL,       /* .set does the parsing and storing */
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
    double min, max;           /* OPT_INT, OPT_REAL, OPT_DURATION (ms), OPT_SIZE (bytes); both 0: any */
    const char *def;           /* the default, as help shows it; NULL: none */
    const char *help;
    size_t offset, size;       /* where in the command's option struct, and how big (OPT_TEXT) */
    /* OPT_CALL: parse and store text (NULL for a flag-like call) at base;
     * -1 with a message naming the option. */
    int (*set)(void *base, const struct opt *o, const char *text, sl_err *e);
    const char *complete;      /* COMPLETE_* kind or space-separated words; OPT_CHOICE's choices */
    int id;                    /* for an OPT_CALL setter that serves several rows */
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
/* " [--dry-run] [--for DURATION]" for usage lines. */
void opt_synopsis(const struct opt_table *t, char *buf, size_t n);
/* One line per option: "  --for DURATION   keep ... (default ...)". */
void opt_help(const struct opt_table *t, FILE *out);
/* The rows as a JSON array (name, type, arg, help, short, min/max, default,
 * complete): `sluice help --json`. A new reference; t may be NULL ([]). */
struct json_t;
struct json_t *opt_json(const struct opt_table *t);

#endif
