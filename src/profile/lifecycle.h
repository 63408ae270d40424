/* lifecycle — profiles over time, like tuned-adm without its rollback bugs:
 * which profile is in force, switching from one to another as one journaled
 * session that first brings back what the old one changed and the new one
 * does not set, and off. Built on the restore rules (session_restore.c): a
 * knob changed outside sluice since a profile set it is kept unless forced. */
#ifndef SLUICE_LIFECYCLE_H
#define SLUICE_LIFECYCLE_H

#include "profile/profile.h"
#include "session/session.h"
#include "db/store_session.h"

enum switch_what {
    SW_CHANGE,  /* the new profile sets it */
    SW_BACK,    /* the old profile set it, the new one does not: its value from before comes back */
    SW_KEEP,    /* changed outside sluice since the old profile set it: kept (--force overwrites) */
};

struct switch_item {
    char knob[KNOB_NAME_MAX];
    char now[KNOB_VALUE_MAX];
    char to[KNOB_VALUE_MAX];      /* SW_CHANGE, SW_BACK: what is written */
    char wrote[KNOB_VALUE_MAX];   /* SW_KEEP: what the old profile left */
    enum switch_what what;
};

struct profile_switch {
    struct session_row prev;      /* the profile in force, when has_prev */
    bool has_prev;
    struct switch_item *it;
    int n;
    struct knobset ks;            /* what the switch writes, prepared */
};

/* The profile in force: the newest session that applied one and is not
 * restored. 1 when there is none. */
int lifecycle_active(store *st, struct session_row *out, sl_err *e);
/* Plan applying pl over the profile in force (if any): which knobs change,
 * which come back, which are kept. force: overwrite hand edits too. -1 with
 * e when the combined change is invalid; free with lifecycle_free. */
int lifecycle_plan(store *st, const struct plan *pl, bool force, struct profile_switch *sw, sl_err *e);
/* Apply a planned switch as one journaled session named after profile: the
 * session takes over the old profile's knobs (restoring it puts back what
 * was there before either), the old one is closed as superseded. On failure
 * the writes are put back and the old profile stays in force. *out is the
 * open session (end it with session_end). */
int lifecycle_apply(store *st, struct profile_switch *sw, const char *profile, const char *purpose, int wait_ms,
                    struct session **out, sl_err *e);
/* lifecycle_apply in two steps, for a switch on trial (the UI's): write it
 * in its session named after profile, the old profile left in force on the
 * record until the user keeps the new one, so putting the session back
 * (session_end) brings back exactly the values before the switch. -1 with
 * e (the writes put back, the session closed). */
int lifecycle_try(store *st, struct profile_switch *sw, const char *profile, const char *purpose, struct session **out,
                  sl_err *e);
/* Keep a switch lifecycle_try wrote: the session takes over the old
 * profile's knobs (as lifecycle_apply does), then closes as kept. -1 with
 * e, the session still open and its values on the machine. */
int lifecycle_keep(store *st, const struct profile_switch *sw, struct session *s, sl_err *e);
void lifecycle_free(struct profile_switch *sw);

/* Merge `from` over `into` (apply a b: left to right, the later wins). Each
 * entry of `from` that replaces one of `into` with another value is said in
 * overrides ("vm.dirty_ratio: b (40) wins over a (10)"). */
void profile_merge(struct profile *into, const struct profile *from, struct notes *overrides);

#endif
