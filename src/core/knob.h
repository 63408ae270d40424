/* knob — the catalogue of tunables (one declarative table, knob_table.c) and
 * the operations on one knob instance: name lookup, read, validate, write. */
#ifndef SLUICE_KNOB_H
#define SLUICE_KNOB_H

#include <stdbool.h>
#include <stddef.h>
#include "core/err.h"

enum knob_scope {
    SCOPE_VM,       /* /proc/sys/vm/FILE                    vm.NAME          */
    SCOPE_BDFLUSH,  /* field of /proc/sys/vm/bdflush (2.4)  vm.bdflush.NAME  */
    SCOPE_BLOCK,    /* /sys/block/DEV/queue/FILE            block.DEV.NAME   */
    SCOPE_IOSCHED,  /* /sys/block/DEV/queue/iosched/FILE    block.DEV.iosched.NAME */
    SCOPE_BDI,      /* /sys/class/bdi/MAJ:MIN/FILE          bdi.DEV.NAME     */
};

enum knob_type {
    KT_INT,     /* integer within [min, max] */
    KT_BYTES,   /* byte count; 0 is "unset" and never written (partner mode) */
    KT_BOOL,    /* 0 or 1 */
    KT_ENUM,    /* one word of `values` */
    KT_SCHED,   /* I/O scheduler: one of the names the kernel offers */
    KT_FIELD,   /* one integer field of a vector file (2.4 bdflush) */
    KT_FACT,    /* read-only hardware fact */
};

enum knob_flag {
    KF_SEARCH = 1 << 0,      /* may appear in a search space */
    KF_DESTRUCTIVE = 1 << 1, /* an action or a risk of data loss: never searched, never written */
    KF_RO = 1 << 2,          /* never written by sluice */
};

/* What a knob is to the kernel's rules between knobs (the rules of dirty limits): the
 * throttle limit and the background threshold (each a ratio/bytes pair
 * through .partner, or a 2.4 bdflush field; the background one must stay
 * below the throttle one or the kernel halves it), the scheduler (a switch
 * resets nr_requests and every iosched tunable) and nr_requests. knobset,
 * the TuneD mapping and the search space read these columns. */
enum knob_role { KR_NONE, KR_DIRTY, KR_DIRTY_BG, KR_SCHED, KR_NR_REQUESTS };

/* Apply order: lower first. Switching the scheduler resets nr_requests and
 * every iosched tunable, so those must come after it. */
enum knob_order {
    ORDER_SCHED = 10, ORDER_NR_REQUESTS = 20, ORDER_IOSCHED = 30,
    ORDER_BLOCK = 40, ORDER_BDI = 50, ORDER_VM = 60, ORDER_BDFLUSH = 70,
};

struct knob_def {
    const char *name;     /* name inside its scope: "dirty_ratio", "nfract" */
    enum knob_scope scope;
    const char *file;     /* file inside the scope directory */
    enum knob_type type;
    long long min, max;   /* sluice's safe range (kernel bounds where they exist) */
    const char *values;   /* KT_ENUM choices, space separated */
    const char *unit;
    const char *def;      /* kernel default as text; NULL when hardware decides */
    int order;            /* enum knob_order */
    const char *partner;  /* ratio/bytes partner in the same scope */
    const char *scheds;   /* SCOPE_IOSCHED: schedulers owning it, space separated */
    int field;            /* KT_FIELD: index in the vector */
    unsigned flags;       /* enum knob_flag */
    const char *help;
    int role;             /* enum knob_role */
};

extern const struct knob_def knob_table[];
extern const size_t knob_table_len;

#define KNOB_NAME_MAX 128
#define KNOB_VALUE_MAX 256
#define KNOB_DEV_MAX 64

/* One knob on this machine: a table row bound to a device where it needs one. */
struct knob {
    const struct knob_def *def;
    char name[KNOB_NAME_MAX];  /* full dotted name */
    char path[256];            /* kernel path (without the root prefix) */
    char dev[KNOB_DEV_MAX];    /* block device name for block/iosched/bdi */
};

/* Resolve a dotted name ("vm.dirty_ratio", "block.sda.iosched.fifo_batch")
 * to a knob. For iosched names, `sched` picks the row owned by that scheduler
 * (NULL: the device's active one). -1 with a message naming the knob when the
 * name is unknown or the device is not a whole disk. */
int knob_lookup(const char *name, const char *sched, struct knob *out, sl_err *e);

/* Every knob instance on this root, in catalogue order, filtered by shell
 * globs (NULL/empty: all). The array is malloc'ed; caller frees. */
int knob_list(const char *const *globs, int nglobs, struct knob **out, sl_err *e);

/* Whether the running kernel has the knob's file. */
bool knob_present(const struct knob *k);
/* Current value as text (scheduler: the active name; a field: its value).
 * -1 with e->errnum == ENOENT when the kernel lacks the knob. */
int knob_read(const struct knob *k, char *buf, size_t n, sl_err *e);
/* Validate `value` against the table (type, range, enum, offered schedulers)
 * and write its canonical form into canon. -1 with a message that names the
 * knob, the value and the allowed range. */
int knob_validate(const struct knob *k, const char *value, char *canon, size_t n, sl_err *e);
/* The table row of a knob by scope and name (for SCOPE_IOSCHED, the row owned
 * by `sched`, or any row of that name when sched is NULL); NULL if unknown. */
const struct knob_def *knob_def_find(enum knob_scope scope, const char *name, const char *sched);
/* The row of scope with this role, its bytes half (KT_BYTES) or the other
 * one (a ratio, a bdflush field, the scheduler); NULL when none. */
const struct knob_def *knob_def_of_role(enum knob_scope scope, enum knob_role role, bool bytes);
/* The knobs a write of k may change besides k, from the catalogue's
 * columns: its ratio/bytes partner, and after a scheduler switch the
 * device's nr_requests and every present iosched tunable. *out is
 * malloc'ed (caller frees); the count. */
int knob_side_effects(const struct knob *k, struct knob **out);
/* Validate `value` against the table alone, without asking the kernel (a
 * scheduler must be a name sluice knows): for checking files such as
 * profiles before any device is looked at. `name` is used in messages. */
int knob_check_value(const struct knob_def *d, const char *name, const char *value, char *canon, size_t n, sl_err *e);
/* Write an already validated value: one write(2); a vector field is written
 * as the whole vector with that field replaced. */
int knob_write(const struct knob *k, const char *value, sl_err *e);

/* Scheduler file helpers: the active name and the offered list. A fixture
 * file overwritten with a bare name reads as that name. */
int knob_sched_parse(const char *text, char *active, size_t n, char *offered, size_t m);
/* The integer fields of a 2.4 /proc/sys/vm/bdflush vector, in order, up to
 * the first that is not a number. Returns the count (0..KNOB_BDFLUSH_FIELDS). */
#define KNOB_BDFLUSH_FIELDS 9
int knob_bdflush_parse(const char *text, long long f[KNOB_BDFLUSH_FIELDS]);
/* True when two values of this knob mean the same thing (numeric compare). */
bool knob_values_equal(const struct knob *k, const char *a, const char *b);

const char *knob_type_name(enum knob_type t);
/* "0..100", "mq-deadline kyber bfq none", ... for help and messages. */
void knob_range_text(const struct knob_def *d, char *buf, size_t n);
/* The knob's flags as words, each after ", " (", searchable, read-only"),
 * "" for none: what show, the man page and the Knobs screen print. */
void knob_flags_text(const struct knob_def *d, char *buf, size_t n);
/* Why sluice never writes this knob ("read-only: sluice shows it but never
 * writes it"), or NULL when it may. */
const char *knob_unwritable(const struct knob_def *d);

#endif
