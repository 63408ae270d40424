/* knobset — a set of knob assignments applied as one all-or-nothing change:
 * validated against the table and each other, ordered (scheduler, then
 * nr_requests, then iosched, then the rest), snapshotted, written, read back,
 * and rolled back on the first failure. `set`, `apply` and search use it. */
#ifndef SLUICE_KNOBSET_H
#define SLUICE_KNOBSET_H

#include "core/knob.h"
#include "session/session.h"

enum change_state {
    CHANGE_PENDING,
    CHANGE_SAME,        /* already had the value: not written */
    CHANGE_WRITTEN,     /* written and read back equal */
    CHANGE_ADJUSTED,    /* written; the kernel kept another value (clamped, rounded, ignored) */
    CHANGE_FAILED,
    CHANGE_ROLLED_BACK, /* written, then put back because a later write failed */
};

struct knob_change {
    struct knob k;
    char want[KNOB_VALUE_MAX];
    char before[KNOB_VALUE_MAX];
    char after[KNOB_VALUE_MAX];
    enum change_state state;
};

/* A knob the change did not name but the kernel changed as a side effect
 * (a scheduler switch resets nr_requests, dirty_ratio zeroes dirty_bytes). */
struct side_effect {
    char knob[KNOB_NAME_MAX];
    char before[KNOB_VALUE_MAX];
    char after[KNOB_VALUE_MAX];
};

struct knobset {
    struct knob_change *ch;
    int n;
    struct knob *touched;   /* everything the change may alter: what a session snapshots */
    int ntouched;
    struct side_effect *side;
    int nside;
    struct restore_report rollback;
};

/* Add "KNOB=VALUE" assignments; validation happens in knobset_prepare. */
int knobset_add(struct knobset *ks, const char *name, const char *value, sl_err *e);
int knobset_add_assignment(struct knobset *ks, const char *assignment, sl_err *e);
/* Resolve and validate every value, check the rules between knobs, order
 * them and compute the touched set. Nothing is written. */
int knobset_prepare(struct knobset *ks, sl_err *e);
/* Write in order inside session `s` (which snapshotted ks->touched). On a
 * failure, put back what was written and return -1; ks->rollback says how
 * that went (e->status SL_EPARTIAL when putting back failed too). */
int knobset_apply(struct knobset *ks, struct session *s, sl_err *e);
/* The whole write path every caller uses (set, apply, the UI): take the
 * tuning lock (waiting up to lock_wait_ms; 0 = fail at once), open a session
 * snapshotting ks->touched, apply. On success *out is the open session: end it
 * with session_end(keep or put back). On failure the session is closed as
 * restored (or failed, when putting back failed too) and -1 is returned. */
int knobset_run_session(store *st, struct knobset *ks, const char *purpose, int lock_wait_ms,
                        struct session **out, sl_err *e);
/* knobset_run_session in two steps, for callers that record more in the
 * session before it writes (a profile switch): take the lock and open the
 * session; then apply, closing the session (and freeing it) on failure. */
int knobset_begin_session(store *st, struct knobset *ks, const char *purpose, int lock_wait_ms,
                          struct session **out, sl_err *e);
int knobset_apply_session(store *st, struct knobset *ks, struct session *s, sl_err *e);
void knobset_free(struct knobset *ks);
const char *change_state_name(enum change_state s);

#endif
