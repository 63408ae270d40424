/* space — what a search may change: knobs with their candidate levels and
 * the rules between them (bg < dirty in ratio and bytes modes; nr_requests
 * bounded by the scheduler and the hardware depth; iosched tunables only
 * under their scheduler). Shipped spaces come from one table (space.c);
 * user spaces from an INI file (space_file.c). A configuration is one level
 * index per dimension and becomes knobset assignments for applying. */
#ifndef SLUICE_SPACE_H
#define SLUICE_SPACE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/knob.h"
#include "session/knobset.h"

#define SPACE_MAX_DIMS 24
#define SPACE_MAX_LEVELS 24
#define SPACE_VALUE_MAX 32

enum dim_kind { DIM_ORDINAL, DIM_CATEGORICAL };
/* What a dimension means to the constraints. */
enum dim_role { ROLE_NONE, ROLE_DIRTY, ROLE_DIRTY_BG, ROLE_SCHED, ROLE_NR_REQUESTS };

struct space_dim {
    char knob[KNOB_NAME_MAX];            /* full dotted name */
    enum dim_kind kind;
    enum dim_role role;
    int nlevels;
    char level[SPACE_MAX_LEVELS][SPACE_VALUE_MAX];  /* ordinal: ascending */
    long long num[SPACE_MAX_LEVELS];     /* numeric value of each level (ordinal) */
    int base;                            /* level of the value at the start; -1 none */
    char sched[32];                      /* iosched: active only under this scheduler */
};

struct space {
    char name[64];
    char device[KNOB_DEV_MAX];           /* "" when the space has no block knobs */
    char cur_sched[32];                  /* the device's scheduler at the start */
    int queue_depth;                     /* hardware depth (0: unknown) */
    int ndims;
    struct space_dim dim[SPACE_MAX_DIMS];
};

/* One point: a level index per dimension, -1 where a conditional dimension
 * is inactive (an iosched tunable of another scheduler). */
struct search_config {
    int lv[SPACE_MAX_DIMS];
};

/* Names of the shipped spaces, for usage, the man page and the Search screen. */
int space_shipped_count(void);
const char *space_shipped_name(int i);

/* Build a shipped space ("writeback", "queue", "full", "bdflush") for this
 * root, or load a user space when `name` is a path to a file (contains a '/'
 * or ends in .space/.conf/.ini). Block knobs bind to `device` (needed by the
 * queue and full spaces). Every knob's current value becomes a level (the
 * baseline). -1 with a message naming the space, knob or file. */
int space_build(const char *name, const char *device, struct space *out, sl_err *e);
/* The INI loader behind space_build for files (space_file.c). */
int space_load_file(const char *path, struct space *out, sl_err *e);

/* Shared by the loader: add a dimension with its levels (validated against
 * the catalogue) and mark the current value. -1 with a message. */
int space_add_dim(struct space *sp, const char *knob, const char *const *levels, int n, const char *sched, sl_err *e);
/* After dims are added: drop conditionals that can never be active, set
 * roles, read the baseline. */
int space_finish(struct space *sp, sl_err *e);

/* Set conditional dimensions to -1 or to a level according to the chosen
 * scheduler (an inactive one that becomes active gets its base or level 0). */
void space_normalise(const struct space *sp, struct search_config *c);
/* The configuration at the start (every dimension at its base level). */
void space_baseline(const struct space *sp, struct search_config *c);
/* True when c satisfies every rule; else why (if non-NULL) says which. */
bool space_valid(const struct space *sp, const struct search_config *c, char *why, size_t n);
bool space_config_equal(const struct space *sp, const struct search_config *a, const struct search_config *b);

/* Number of valid configurations (exact when the raw product is at most
 * `cap`, else -1). */
long long space_count(const struct space *sp, long long cap);
/* Enumerate valid configurations in mixed-radix order: *it starts zeroed;
 * returns 1 with c filled, 0 when done. */
struct space_iter {
    int started;
    struct search_config c;
};
int space_next(const struct space *sp, struct space_iter *it, struct search_config *c);

/* Encode for the GP: ordinal dims to u in [0,1] (level index over the span),
 * inactive ones to 0.5; the scheduler (or any categorical dim) as an index
 * in cat[] (-1 inactive). Returns the number of numeric coordinates. */
int space_encode(const struct space *sp, const struct search_config *c, double *u, int *cat);
int space_numeric_dims(const struct space *sp);

/* "knob=value knob=value" of active dims in dimension order; canonical text
 * (sorted "knob=value\n" lines) and its content hash (16 hex digits). */
void space_config_text(const struct space *sp, const struct search_config *c, char *buf, size_t n);
void space_config_hash(const struct space *sp, const struct search_config *c, char out[17]);
/* Parse "knob=value ..." back; -1 when a knob or value is not in the space. */
int space_config_parse(const struct space *sp, const char *text, struct search_config *c, sl_err *e);
/* The knobs a config differs from the baseline on (for "fewer changes"). */
int space_config_changes(const struct space *sp, const struct search_config *c);

/* Add the config's assignments (active dims) to a knobset. */
int space_to_knobset(const struct space *sp, const struct search_config *c, struct knobset *ks, sl_err *e);
/* Every knob a configuration of this space may change, for the session's
 * snapshot: the dims, ratio/bytes partners, and after a scheduler switch
 * nr_requests and the present iosched tunables. Caller frees *out. */
int space_touched(const struct space *sp, struct knob **out, sl_err *e);

#endif
